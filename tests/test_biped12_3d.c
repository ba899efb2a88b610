/* The walking 3-D biped of seed 000 (models/biped12_3d.yaml, issue 15 item
 * 4): its degrees of freedom as the seed counts them, the mirror relabel,
 * and its gait: `stridemap fixed --json` converges, the fixed point is
 * checked by simulating the stride from it, a right step and the next left
 * step are mirror images, the ground forces per foot pass the seed's checks
 * (eqs. 25-26), and the heel-strike (eq. 35) stops the heel and loses
 * energy.
 *
 * Degrees of freedom (seed 000 §3.2): 17 free in the air (the file's 18
 * with the heading held: the seed's base has no yaw), 10 in single stance
 * (the toe line and the seed's control constraints as locks), 7 in double
 * stance (the front heel's pin added); the flat part of single stance,
 * where the heel row stands for the seed's toe torque, 9. */
#include "test_util.h"
#include "src_path.h"
#include "cli_run.h"
#include "csv_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../src/body/body_model.h"
#include "stridemap/registry.h"
#include "stridemap/rigid.h"
#include "stridemap/rigid_contact.h"

#include "test_rng.h"

#define NV 18
#define MODEL SM_SOURCE_DIR "/models/biped12_3d.yaml"
/* The integration and Newton tolerances of the tests' runs: tight enough
 * for a fixed point to 1e-9, loose enough for the stiff PD's strides to
 * take seconds on a shared machine. */
#define RTOL "1e-11"
#define TOL 1e-9
/* The slow test's Newton run: its fixed point is the file's guess to 1e-8,
 * the guess from which test_mirror makes the 1e-10. */
#define SLOW_RTOL "1e-12"
#define SLOW_TOL "1e-10"
/* Friction coefficient of the seed's check (eq. 26): the seed gives none;
 * 0.7, rubber soles on a dry floor, ASSUMED. */
#define MU 0.7

typedef struct {
    const sm_model *m;
    const body_model *bm;
    const body_file *f;
    double p[SM_MAX_PARAMS];
} biped;

static void open_biped(biped *B)
{
    char why[2048] = "";
    if (sm_registry_open(MODEL, &B->m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    B->bm = (const body_model *)(const void *)B->m;
    B->f = body_model_file(B->m);
    assert_non_null(B->f);
    memcpy(B->p, B->bm->defaults, sizeof B->p);
}

static size_t phase_index(const biped *B, const char *name)
{
    for (size_t i = 0; i < B->f->n_phases; i++)
        if (strcmp(B->f->phases[i].name, name) == 0) return i;
    fail_msg("no phase %s", name);
    return 0;
}

static size_t body_index(const biped *B, const char *name)
{
    for (size_t i = 0; i < B->f->n_bodies; i++)
        if (strcmp(B->f->bodies[i].name, name) == 0) return i;
    fail_msg("no body %s", name);
    return 0;
}

/* Rank of a rows x n matrix by Gaussian elimination with full pivoting. */
static size_t rank_of(const double *A, size_t rows, size_t n, double tol)
{
    double B[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V];
    memcpy(B, A, rows * n * sizeof *B);
    size_t r = 0;
    bool used_row[SM_RIGID_MAX_ROWS] = {false};
    for (; r < rows && r < n; r++) {
        size_t pi = 0, pj = 0;
        double big = -1;
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < n && !used_row[i]; j++)
                if (fabs(B[i * n + j]) > big) big = fabs(B[i * n + j]), pi = i, pj = j;
        if (big <= tol) break;
        used_row[pi] = true;
        for (size_t i = 0; i < rows; i++) {
            if (used_row[i]) continue;
            const double f = B[i * n + pj] / B[pi * n + pj];
            for (size_t j = 0; j < n; j++) B[i * n + j] -= f * B[pi * n + j];
        }
    }
    return r;
}

/* nv − rank(J) of a contact set at x. */
static size_t dof(body_eval *e, const double *x, const sm_contact *c, size_t nc)
{
    assert_status(sm_rigid_forward(e->m, e->d, x, x + NV), SM_OK);
    double J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V];
    const size_t rows = sm_contact_jacobian(e->m, e->d, c, nc, J, NULL, NULL);
    return NV - rank_of(J, rows, NV, 1e-9);
}

static void test_dof_counts(void **state)
{
    (void)state;
    biped B;
    open_biped(&B);
    assert_int_equal(B.bm->nq, NV);
    assert_int_equal(B.bm->nv, NV);
    BODY_EVAL_MEM(mem, B.bm);
    body_eval e;
    assert_status(body_eval_init(&e, B.bm, B.p, mem, NULL, 0), SM_OK);
    for (int trial = 0; trial < 20; trial++) {
        double x[2 * NV];
        for (size_t i = 0; i < 2 * NV; i++) x[i] = urand(-0.6, 0.6);
        x[2] = 0.5; /* hat_z */
        assert_status(sm_rigid_forward(e.m, e.d, x, x + NV), SM_OK);
        sm_contact c[BODY_MAX_CONTACTS];
        assert_int_equal(dof(&e, x, c, 0), 18);
        /* the seed's 17: the heading held (its base, foot 1, has no yaw) */
        c[0] = (sm_contact){.kind = SM_CONTACT_LOCK, .body = body_index(&B, "hat_yaw")};
        assert_int_equal(dof(&e, x, c, 1), 17);
        /* the file's phases: single stance 10, double 7, the flat foot 9 */
        size_t nc = body_phase_contacts(&e, phase_index(&B, "single"), x + NV, c);
        assert_int_equal(sm_contact_set_rows(e.m, c, nc), 8);
        assert_int_equal(dof(&e, x, c, nc), 10);
        nc = body_phase_contacts(&e, phase_index(&B, "double"), x + NV, c);
        assert_int_equal(sm_contact_set_rows(e.m, c, nc), 11);
        assert_int_equal(dof(&e, x, c, nc), 7);
        nc = body_phase_contacts(&e, phase_index(&B, "flat"), x + NV, c);
        assert_int_equal(dof(&e, x, c, nc), 9);
        /* the landing foot turning about its heel and inner toe corner, its
         * ankle's roll let go: double stance's 7 still */
        nc = body_phase_contacts(&e, phase_index(&B, "roll"), x + NV, c);
        assert_int_equal(dof(&e, x, c, nc), 7);
    }
    sm_registry_close(B.m);
}

/* ---- the gait -------------------------------------------------------------------- */

static json_t *gait; /* `fixed --json`, run once */
static double x_star[2 * NV]; /* the file's guess: the gait `fixed` found at rtol 1e-12 */

static int guess_setup(void **state)
{
    (void)state;
    biped B;
    open_biped(&B);
    body_guess(x_star, B.p, B.bm);
    sm_registry_close(B.m);
    return 0;
}

static int gait_setup(void **state)
{
    guess_setup(state);
    if (!cli_exe) return 0;
    cli_result *r = cli_run("fixed", MODEL, "--json", "--rtol", SLOW_RTOL, "--atol", SLOW_RTOL, "--tol", SLOW_TOL, NULL);
    if (r->status != 0) {
        fprintf(stderr, "fixed failed (%d): %s\n", r->status, r->err);
        return -1;
    }
    json_error_t je;
    gait = json_loads(r->out, 0, &je);
    if (!gait) {
        fprintf(stderr, "bad JSON: %s\n", je.text);
        return -1;
    }
    return 0;
}

static int gait_teardown(void **state)
{
    (void)state;
    json_decref(gait);
    return 0;
}

static double ground(const char *name)
{
    json_t *v = json_object_get(json_object_get(gait, "ground"), name);
    if (!json_is_number(v)) fail_msg("no ground.%s", name);
    return json_number_value(v);
}

/* Newton converged below its tolerance; the multipliers are those of the
 * exact Jacobian where the stride has one, else Richardson's differences
 * (the file's header: at this test's rtol 1e-12 the sensitivities have
 * failed, at 1e-10 and 1e-11 they hold);
 * the heading's family gives -1 (the mirror turns h into -h), the others
 * lie inside the unit circle; the torques and the per-contact forces are
 * reported. */
static void test_gait_converges(void **state)
{
    (void)state;
    if (!cli_exe) skip();
    assert_string_equal(json_string_value(json_object_get(gait, "status")), "ok");
    assert_true(json_is_true(json_object_get(gait, "converged")));
    assert_true(json_number_value(json_object_get(gait, "residual")) <= strtod(SLOW_TOL, NULL));
    json_t *ev = json_object_get(gait, "eigenvalues"), *modes = json_object_get(gait, "modes");
    const size_t n = json_array_size(ev);
    assert_int_equal(n, 18);
    int heading = 0;
    for (size_t i = 0; i < n; i++) {
        const double re = json_number_value(json_array_get(json_array_get(ev, i), 0));
        const double im = json_number_value(json_array_get(json_array_get(ev, i), 1));
        const char *mode = json_string_value(json_array_get(modes, i));
        assert_non_null(mode);
        if (hypot(re + 1.0, im) < 1e-3) {
            assert_string_equal(mode, "heading");
            heading++;
        } else {
            if (!(hypot(re, im) < 1.0)) fail_msg("multiplier %zu: %g%+gi (%s)", i, re, im, mode);
        }
    }
    assert_int_equal(heading, 1);
    /* the gait is the file's guess (iterated to a two-step cycle at rtol
     * 1e-13 and turned to the heading the mirror keeps) */
    json_t *x = json_object_get(gait, "fixed_point");
    assert_int_equal(json_array_size(x), 2 * NV);
    double worst = 0;
    for (size_t i = 0; i < 2 * NV; i++) worst = fmax(worst, fabs(json_number_value(json_array_get(x, i)) - x_star[i]));
    print_message("Newton's fixed point and the file's guess differ by %.3g\n", worst);
    assert_true(worst < 1e-8);
    /* every driven joint's largest torque is reported */
    static const char *const act[] = {"hip_a", "knee_a", "ankle_a", "ankle_roll_a",
                                      "hip_b", "knee_b", "ankle_b", "hip_roll_b"};
    char name[64];
    for (size_t j = 0; j < sizeof act / sizeof *act; j++) {
        snprintf(name, sizeof name, "%s.max_torque", act[j]);
        const double u = ground(name);
        assert_true(u > 0.0 && u < 500.0);
    }
    /* the impacts are plastic: the contacts they hold do not move after them */
    assert_true(ground("impact_residual") < 1e-10);
}

/* The x0 argument of simulate: the full state, comma-separated. */
static void state_arg(const double *x, char *buf, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < 2 * NV; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%.17g", i ? "," : "", x[i]);
}

/* Rows of a simulate CSV: per row its kind, step, time, event and state. */
typedef struct {
    char kind[64], event[64], phase[64];
    int step;
    double t, x[2 * NV];
    double f[5][3]; /* toe_a, toe_ao, heel_a, heel_b, toe_bz: fx, fy, fz (NaN where not held) */
} sim_row;

static sim_row rows[40000];

/* The rows of `simulate` of the model file at path from x (NULL: the
 * file's guess, lifted onto its section), a sample every dt seconds,
 * written by the program to a file and read back (fine samples of a step
 * pass cli_result's buffer: about 1.8 kB a row). */
static size_t simulate_tol(const char *path, const double *x, const char *steps, const char *dt, const char *rtol)
{
    char x0[2 * NV * 26], csv[] = "/tmp/stridemap_test_biped12_sim_XXXXXX";
    const int fd = mkstemp(csv);
    assert_true(fd >= 0);
    close(fd);
    cli_result *r;
    if (x) {
        state_arg(x, x0, sizeof x0);
        r = cli_run("simulate", path, "--x0", x0, "--steps", steps, "--rtol", rtol, "--atol", rtol, "--dt", dt, "--out",
                    csv, NULL);
    } else {
        r = cli_run("simulate", path, "--steps", steps, "--rtol", rtol, "--atol", rtol, "--dt", dt, "--out", csv, NULL);
    }
    if (r->status != 0) fail_msg("simulate: status %d: %s", r->status, r->err);
    enum { CSV_CAP = 48 << 20 };
    static char *text;
    if (!text) text = malloc(CSV_CAP);
    assert_non_null(text);
    cli_slurp(csv, text, CSV_CAP);
    unlink(csv);
    assert_true(strlen(text) + 1 < CSV_CAP);
    static char f[160][64];
    const char *s = text;
    const size_t nh = rfc4180_record(s, f, 160, &s);
    const int q0 = column(f, nh, "hat_x");
    assert_int_equal(q0, 5);
    assert_int_equal(column(f, nh, "foot_b_dot"), q0 + 2 * NV - 1);
    static const char *const fc[5] = {"toe_a", "toe_ao", "heel_a", "heel_b", "toe_bz"};
    int fcol[5][3];
    for (int c = 0; c < 5; c++)
        for (int a = 0; a < 3; a++) {
            char name[32];
            snprintf(name, sizeof name, "%s.f%c", fc[c], "xyz"[a]);
            fcol[c][a] = column(f, nh, name);
            assert_true(fcol[c][a] > 0);
        }
    size_t n = 0;
    while (*s && n < sizeof rows / sizeof *rows) {
        if (rfc4180_record(s, f, 160, &s) != nh) continue;
        sim_row *w = &rows[n++];
        snprintf(w->kind, sizeof w->kind, "%s", f[0]);
        w->step = atoi(f[1]);
        w->t = strtod(f[2], NULL);
        snprintf(w->phase, sizeof w->phase, "%s", f[3]);
        snprintf(w->event, sizeof w->event, "%s", f[4]);
        for (size_t i = 0; i < 2 * NV; i++) w->x[i] = strtod(f[q0 + (int)i], NULL);
        for (int c = 0; c < 5; c++)
            for (int a = 0; a < 3; a++) w->f[c][a] = strtod(f[fcol[c][a]], NULL);
    }
    if (*s) fail_msg("simulate wrote more than %zu rows", n);
    return n;
}

static size_t simulate_file(const char *path, const double *x, const char *steps, const char *dt)
{
    return simulate_tol(path, x, steps, dt, RTOL);
}

/* The same from the fixed point of the file. */
static size_t simulate(const char *steps, const char *dt) { return simulate_file(MODEL, x_star, steps, dt); }

static const sim_row *find(size_t n, int step, const char *kind, const char *event)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].step == step && strcmp(rows[i].kind, kind) == 0 && strcmp(rows[i].event, event) == 0)
            return &rows[i];
    fail_msg("no %s row of %s in step %d", kind, event, step);
    return NULL;
}

/* The events of one step, in order: the phase each ends and its name. */
static const char *const STEP_EVENTS[][2] = {
    {"flat", "heel_off"}, {"single", "heelstrike"}, {"double", "toedown"}, {"roll", "toeoff"}};
#define N_EVENTS (sizeof STEP_EVENTS / sizeof *STEP_EVENTS)

/* The step's events in the rows of step `step` are STEP_EVENTS, in order. */
static void assert_events(size_t n, int step)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].step != step || strcmp(rows[i].kind, "pre") != 0) continue;
        if (k >= N_EVENTS) fail_msg("more than %zu events: %s", N_EVENTS, rows[i].event);
        assert_string_equal(rows[i].phase, STEP_EVENTS[k][0]);
        assert_string_equal(rows[i].event, STEP_EVENTS[k][1]);
        k++;
    }
    assert_int_equal(k, N_EVENTS);
}

/* One stride from the fixed point, simulated by the program with no lift
 * between (the state after the section's reset runs on): it goes through
 * every phase in order and ends where it began in every coordinate but
 * where the walker stands (hat_x, hat_y), to the fixed point's accuracy.
 * The file's section is one the dynamics reaches (its header): the reset
 * (relabel and the flat foot's impact) moves no position, so the state the
 * dynamics hands over is the map's, not a projection of it (before the roll
 * phase, the projection moved the positions by 8.8e-3 rad and this
 * comparison could only be made on the section's free coordinates). */
static void test_stride(void **state)
{
    (void)state;
    if (!cli_exe) skip();
    const size_t n = simulate("1", "0.1");
    assert_events(n, 0);
    const sim_row *end = find(n, 0, "post", "toeoff");
    double worst = 0;
    for (size_t i = 2; i < 2 * NV; i++) worst = fmax(worst, fabs(end->x[i] - x_star[i]));
    print_message("stride from the fixed point: the state returns to within %.3g\n", worst);
    assert_true(worst < 1e-9);
}

/* Largest change of a position at the section's reset: the post-toeoff
 * row less the relabelled pre-toeoff row (the impact moves no position). */
static double section_jump(const body_model *bm, size_t n, int step)
{
    double y[2 * NV];
    body_relabel(bm, find(n, step, "pre", "toeoff")->x, y);
    const double *post = find(n, step, "post", "toeoff")->x;
    double worst = 0;
    for (size_t i = 0; i < NV; i++) worst = fmax(worst, fabs(post[i] - y[i]));
    return worst;
}

/* A right step and the following left step (issue 15's check): in the
 * file's coordinates, relabelled at each section, the left step is the
 * right one again, so the two agree at each event (the state just before
 * it, but where the walker stands, hat_x and hat_y, and the time since the
 * step began).  Compared at the events, not at equal sample times: a sample
 * a few 1e-5 s from an impact on one step and across it on the other
 * differs in the rates by O(1).  x: the start; rtol: the integration's. */
static void mirror_gap(const double *x, const char *rtol, double *dx, double *dt)
{
    const size_t n = simulate_tol(MODEL, x, "2", "0.05", rtol);
    assert_events(n, 0);
    assert_events(n, 1);
    const double t1 = find(n, 0, "post", "toeoff")->t;
    *dx = *dt = 0;
    for (size_t k = 0; k < N_EVENTS; k++) {
        const sim_row *a = find(n, 0, "pre", STEP_EVENTS[k][1]), *b = find(n, 1, "pre", STEP_EVENTS[k][1]);
        *dt = fmax(*dt, fabs((b->t - t1) - a->t));
        for (size_t i = 2; i < 2 * NV; i++) *dx = fmax(*dx, fabs(b->x[i] - a->x[i]));
    }
}

/* The check, to its 1e-10: from the file's fixed point (to about
 * 1e-11: the slow test finds it by Newton), integrated at rtol 1e-13 (at
 * 1e-12 the two steps' own integration errors, amplified over a step, make
 * 3e-10; at 1e-11, 5e-9). */
static void test_mirror(void **state)
{
    (void)state;
    if (!cli_exe) skip();
    double dx, dt;
    mirror_gap(x_star, "1e-13", &dx, &dt);
    print_message("right step and left step: the states at the events differ by %.3g, their times by %.3g s\n", dx,
                  dt);
    assert_true(dx < 1e-10);
    assert_true(dt < 1e-10);
}

static void write_variant(const char *path, const char *const (*subs)[2], size_t n_subs);

/* Per foot over one step from x in the rows of `simulate` at dt (the seed's
 * checks, eqs. 25-26): the smallest F_z, the largest abs(F_x)/F_z,
 * abs(F_y)/F_z and abs(F_t)/F_z (F_t the horizontal force) outside the roll
 * phase ([foot][0..2]) and foot b's in it (roll[0..2]); foot a is the toe
 * line (and its heel in the flat phase), foot b the front heel and, in the
 * roll phase, its inner toe corner.  Per contact point, the smallest normal
 * force (point_min: toe_a, toe_ao, heel_a, heel_b, toe_bz). */
typedef struct {
    double fz_min[2], ratio[2][3], roll[3], point_min[5];
    size_t seen[2], roll_seen;
} foot_checks;

static foot_checks ground_checks(size_t n)
{
    foot_checks k = {.fz_min = {INFINITY, INFINITY}};
    for (int c = 0; c < 5; c++) k.point_min[c] = INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].kind, "start") == 0 || strcmp(rows[i].kind, "fail") == 0) continue;
        const bool roll = strcmp(rows[i].phase, "roll") == 0;
        for (int c = 0; c < 5; c++)
            if (!isnan(rows[i].f[c][2])) k.point_min[c] = fmin(k.point_min[c], rows[i].f[c][2]);
        for (int foot = 0; foot < 2; foot++) {
            double F[3] = {0, 0, 0};
            bool any = false;
            for (int c = foot ? 3 : 0; c < (foot ? 5 : 3); c++)
                if (!isnan(rows[i].f[c][2])) {
                    any = true;
                    for (int a = 0; a < 3; a++) F[a] += isnan(rows[i].f[c][a]) ? 0.0 : rows[i].f[c][a];
                }
            if (!any) continue;
            k.seen[foot]++;
            k.fz_min[foot] = fmin(k.fz_min[foot], F[2]);
            const double r[3] = {fabs(F[0]) / F[2], fabs(F[1]) / F[2], hypot(F[0], F[1]) / F[2]};
            double *to = roll && foot == 1 ? k.roll : k.ratio[foot];
            if (roll && foot == 1) k.roll_seen++;
            for (int j = 0; j < 3; j++) to[j] = fmax(to[j], r[j]);
        }
    }
    return k;
}

/* The roll phase's feedback on the swing ankle's pitch (foot_b) and the
 * swing hip's roll (hip_x_b) switched back on, as the file had it before. */
static const char *const ROLL_FEEDBACK[][2] = {
    {"{name: foot_b, on: {foot_b: 1}, phases: [flat, single, double], ", "{name: foot_b, on: {foot_b: 1}, "},
    {"{name: hip_x_b, on: {hip_x_b: 1}, phases: [flat, single, double], ", "{name: hip_x_b, on: {hip_x_b: 1}, "},
};

/* The seed's checks of the ground reaction per foot over the stride (eqs.
 * 25-26, MU assumed): both feet push up, and each horizontal component
 * stays below MU F_z, as does the horizontal force as a whole, at every
 * sample (every 0.2 ms: the roll phase lasts about 6 ms, and with its
 * feedback on its friction ratio peaked between coarser samples) and at the
 * rows just before and after each event.  The roll phase has no feedback on
 * the swing ankle's pitch and the swing hip's roll (the header's
 * "Controller"): with it (ROLL_FEEDBACK) the toe-down impact, which stops
 * the front foot's pitch, kicks the ankle by kd times its rate's jump, the
 * swing hip's roll pushes the heel sideways, and the front foot leaves the
 * cone in that phase (the header's "PER FOOT": 1.86 on that gait): the
 * check can fail.  Per contact point the stance toe line's corners pull:
 * printed, not asserted. */
static void test_ground_forces(void **state)
{
    (void)state;
    if (!cli_exe) skip();
    size_t n = simulate("1", "0.0002");
    const foot_checks k = ground_checks(n);
    print_message("foot a: min F_z %.4g N, max |F_x|/F_z %.3g, |F_y|/F_z %.3g, |F_t|/F_z %.3g\n", k.fz_min[0],
                  k.ratio[0][0], k.ratio[0][1], k.ratio[0][2]);
    print_message("foot b: min F_z %.4g N, max %.3g, %.3g, %.3g; in the roll phase %.3g, %.3g, %.3g\n", k.fz_min[1],
                  k.ratio[1][0], k.ratio[1][1], k.ratio[1][2], k.roll[0], k.roll[1], k.roll[2]);
    print_message("per point, min F_z (N): toe_a %.4g, toe_ao %.4g, heel_a %.4g, heel_b %.4g, toe_bz %.4g\n",
                  k.point_min[0], k.point_min[1], k.point_min[2], k.point_min[3], k.point_min[4]);
    assert_true(k.seen[0] > 4000 && k.seen[1] > 800 && k.roll_seen >= 15);
    for (int foot = 0; foot < 2; foot++) {
        assert_true(k.fz_min[foot] > 0.0);
        for (int j = 0; j < 3; j++) assert_true(k.ratio[foot][j] < MU);
    }
    for (int j = 0; j < 3; j++) assert_true(k.roll[j] < MU);

    char path[] = "/tmp/stridemap_test_biped12_rollfb_XXXXXX.yaml";
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    write_variant(path, ROLL_FEEDBACK, sizeof ROLL_FEEDBACK / sizeof *ROLL_FEEDBACK);
    n = simulate_file(path, x_star, "1", "0.0002");
    unlink(path);
    const foot_checks o = ground_checks(n);
    print_message("with the roll phase's feedback on: foot b in the roll phase %.3g, %.3g, %.3g\n", o.roll[0],
                  o.roll[1], o.roll[2]);
    assert_true(o.roll_seen >= 15);
    assert_true(o.roll[2] > MU);
}

/* Heel2strike on the gait (eq. 35): the configuration is unchanged, the
 * front heel came down moving and is at rest after it in all three rows,
 * and the kinetic energy lost is ½ Δvᵀ M Δv (Kelvin's theorem for a
 * plastic impact: Δv = v⁺ − v⁻ with J v⁺ = 0 and M Δv = Jᵀ Λ), never
 * negative. */
static void test_heelstrike(void **state)
{
    (void)state;
    if (!cli_exe) skip();
    const size_t n = simulate("1", "0.006");
    const double *pre = find(n, 0, "pre", "heelstrike")->x, *post = find(n, 0, "post", "heelstrike")->x;
    for (size_t i = 0; i < NV; i++) assert_true(pre[i] == post[i]);
    biped B;
    open_biped(&B);
    BODY_EVAL_MEM(mem, B.bm);
    body_eval e;
    assert_status(body_eval_init(&e, B.bm, B.p, mem, NULL, 0), SM_OK);
    const int heel = sm_rigid_site_index(e.m, "heel_b");
    assert_true(heel >= 0);
    double vel[2][3];
    for (int k = 0; k < 2; k++) {
        const double *x = k ? post : pre;
        assert_status(sm_rigid_forward(e.m, e.d, x, x + NV), SM_OK);
        double J[3 * NV];
        sm_rigid_site_jac(e.m, e.d, (size_t)heel, J, NULL);
        for (int i = 0; i < 3; i++) {
            vel[k][i] = 0;
            for (size_t j = 0; j < NV; j++) vel[k][i] += J[i * NV + j] * x[NV + j];
        }
    }
    const double before = hypot(hypot(vel[0][0], vel[0][1]), vel[0][2]);
    const double after = hypot(hypot(vel[1][0], vel[1][1]), vel[1][2]);
    print_message("heel-strike: heel at %.3g m/s before, %.3g m/s after\n", before, after);
    assert_true(vel[0][2] < -1e-3);
    assert_true(after < 1e-12);
    static double M[NV * NV];
    assert_status(sm_rigid_forward(e.m, e.d, pre, pre + NV), SM_OK);
    sm_rigid_mass(e.m, e.d, M);
    double T[2] = {0, 0}, kelvin = 0;
    for (size_t i = 0; i < NV; i++)
        for (size_t j = 0; j < NV; j++) {
            T[0] += 0.5 * pre[NV + i] * M[i * NV + j] * pre[NV + j];
            T[1] += 0.5 * post[NV + i] * M[i * NV + j] * post[NV + j];
            kelvin += 0.5 * (post[NV + i] - pre[NV + i]) * M[i * NV + j] * (post[NV + j] - pre[NV + j]);
        }
    print_message("heel-strike: T %.10g -> %.10g J, lost %.4g J, 1/2 dv'M dv %.4g J\n", T[0], T[1], T[0] - T[1],
                  kelvin);
    assert_true(kelvin > 0.0);
    assert_true(T[0] - T[1] >= 0.0);
    assert_close(T[0] - T[1], kelvin, 1e-9 * T[0]);
    sm_registry_close(B.m);
}

/* The file with the n_subs substitutions of subs made, written to path
 * (each must match once). */
static void write_variant(const char *path, const char *const (*subs)[2], size_t n_subs)
{
    static char text[1 << 17], out[1 << 17];
    cli_slurp(MODEL, text, sizeof text);
    assert_true(strlen(text) > 1000);
    for (size_t k = 0; k < n_subs; k++) {
        const char *at = strstr(text, subs[k][0]);
        if (!at || strstr(at + 1, subs[k][0])) fail_msg("the model file has no single '%.40s...'", subs[k][0]);
        const size_t head = (size_t)(at - text);
        snprintf(out, sizeof out, "%.*s%s%s", (int)head, text, subs[k][1], at + strlen(subs[k][0]));
        memcpy(text, out, sizeof text);
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The file as it was before its roll phase: Foot2flat when the landing
 * foot's inner toe corner lands, the swing ankle's roll locked at 0, and
 * the section touching that lock; the section's projection then moves the
 * positions (the landing foot's outer corner is still up, the trailing
 * ankle's roll is not 0). */
static const char *const PROJECTED[][2] = {
    {"  - {name: roll_b, type: lock, coord: ankle_x_b, at: here}", "  - {name: roll_b, type: lock, coord: ankle_x_b, at: 0}"},
    {"      - name: toedown\n"
     "        when: {gap: toe_b, crosses: down}\n"
     "        impact: [toe_a, toe_ao, heel_b, toe_bz, yaw_a, yaw_b, roll_b]\n"
     "        then: roll\n",
     "      - name: toeoff\n"
     "        when: {gap: toe_b, crosses: down}\n"
     "        relabel: true\n"
     "        impact: [toe_a, toe_ao, heel_a, yaw_a, yaw_b, roll_b]\n"
     "        then: section\n"},
    {"  touching: [toe_a, toe_b, toe_ao, toe_bo, heel_a, yaw_a, yaw_b]",
     "  touching: [toe_a, toe_b, toe_ao, heel_a, yaw_a, yaw_b, roll_b]"},
};

/* The file's section is one the dynamics reaches: over two steps from the
 * fixed point the section's reset moves no position but by the
 * integration's drift; the swing ankle's roll stays where the section put
 * it (at: here), the trailing toe line's roll, not 0, until the front
 * foot's inner toe corner lands.  The same measure on the file as it was
 * before the roll phase (PROJECTED) finds the jump: the check can fail. */
static void test_section_reached(void **state)
{
    (void)state;
    if (!cli_exe) skip();
    biped B;
    open_biped(&B);
    size_t n = simulate("2", "0.05");
    const double jump = fmax(section_jump(B.bm, n, 0), section_jump(B.bm, n, 1));
    const size_t ax_b = 16; /* ankle_x_b */
    const double roll0 = rows[0].x[ax_b], roll1 = find(n, 0, "pre", "toedown")->x[ax_b];
    print_message("the section's reset moves a position by %.3g; the swing ankle's roll %.6g at the section, %.6g "
                  "when the toe lands\n", jump, roll0, roll1);
    assert_true(jump < 1e-9);
    assert_true(fabs(roll0) > 1e-4);
    assert_close(roll1, roll0, 1e-9);
    sm_registry_close(B.m);

    char path[] = "/tmp/stridemap_test_biped12_projected_XXXXXX.yaml";
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    write_variant(path, PROJECTED, sizeof PROJECTED / sizeof *PROJECTED);
    biped P;
    char why[2048] = "";
    if (sm_registry_open(path, &P.m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    P.bm = (const body_model *)(const void *)P.m;
    n = simulate_file(path, NULL, "1", "0.05");
    const double old_jump = section_jump(P.bm, n, 0);
    print_message("before the roll phase: the section's reset moved a position by %.3g\n", old_jump);
    assert_true(old_jump > 1e-3);
    sm_registry_close(P.m);
    unlink(path);
}

/* A lock that holds its coordinate where it is gives the section's lift no
 * equation: touching it is refused, naming the fix. */
static void test_hold_lock_not_touching(void **state)
{
    (void)state;
    static const char *const TOUCH[][2] = {{"  touching: [toe_a, toe_b, toe_ao, toe_bo, heel_a, yaw_a, yaw_b]",
                                            "  touching: [toe_a, toe_b, toe_ao, heel_a, yaw_a, yaw_b, roll_b]"}};
    char path[] = "/tmp/stridemap_test_biped12_hold_XXXXXX.yaml";
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    write_variant(path, TOUCH, 1);
    const sm_model *m = NULL;
    char why[2048] = "";
    assert_int_not_equal(sm_registry_open(path, &m, why, sizeof why), SM_OK);
    print_message("%s\n", why);
    assert_non_null(strstr(why, "roll_b"));
    assert_non_null(strstr(why, "at: here"));
    unlink(path);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest plain[] = {
        cmocka_unit_test(test_dof_counts),
        cmocka_unit_test(test_hold_lock_not_touching),
    };
    const struct CMUnitTest stride[] = {
        cmocka_unit_test(test_stride),
        cmocka_unit_test(test_mirror),
        cmocka_unit_test(test_ground_forces),
        cmocka_unit_test(test_heelstrike),
        cmocka_unit_test(test_section_reached),
    };
    const struct CMUnitTest walking[] = {
        cmocka_unit_test(test_gait_converges),
    };
    int failed = cmocka_run_group_tests(plain, NULL, NULL);
    failed += cmocka_run_group_tests(stride, guess_setup, NULL);
    /* Newton on the 34-dimensional section with finite-difference multipliers
     * takes 6-13 min here (20 and more under the sanitizers), too long for
     * every run: STRIDEMAP_SLOW_TESTS=1 runs it (.ci/run does, in its plain
     * run). */
    const char *slow = getenv("STRIDEMAP_SLOW_TESTS");
    if (!slow || strcmp(slow, "1") != 0) {
        print_message("biped12_3d: the gait's Newton run skipped (STRIDEMAP_SLOW_TESTS=1 runs it)\n");
        return failed;
    }
    return failed + cmocka_run_group_tests(walking, gait_setup, gait_teardown);
}
