/* The kneed walker of models/kneed_hsu.yaml, a tree of rigid bodies, against
 * a closed form derived by hand (tests/kneed_closed_form.h): accelerations
 * and the stance knee's locking torque in both phases, the knee-strike and
 * heel-strike maps, and whole strides, with the file's mass positions (the
 * issue's: thigh centre 0.2 m above the knee, shank centre 0.35 m above the
 * foot) and with other ones (thigh_a's centre 0.325 m and shank_a's 0.125 m
 * below their joints).
 *
 * The file's heel-strike holds the new swing knee locked through the
 * impact (impact: [foot_a, knee_a, knee_b]; Chen 2007, Tedrake's
 * kneedCompassGait: KCF_HS_LOCKED).  The same file with impact: true, onto
 * the next phase's contacts, frees that knee at the impact, so the trailing
 * shank's momentum about its knee is conserved too (Garcia 1999, 2.5.3:
 * KCF_HS_FREE); both are checked.  The last test answers the issue's
 * question: with its mass positions on slope asin(7.25/144), Chen's walker
 * has a stable gait and Garcia's impact does not; models/kneed_hsu.yaml is
 * therefore Chen's model.
 *
 * States: the closed form's (st, th, sh, rates) are absolute angles from
 * the slope normal with the stance foot at the origin; the body file's in
 * its full formulation (the file itself integrates the joints alone) are
 * (hip_x, hip_z, thigh_a, shank_a, thigh_b, shank_b, rates) with the
 * shanks' coordinates the knees' flexions (thigh minus shank). */
#include <stdlib.h>

#include "kneed_closed_form.h"
#include "test_util.h"
#include "../src/body/body_model.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/gait.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

#define MODEL_FILE SM_SOURCE_DIR "/models/kneed_hsu.yaml"

/* Angles from the slope normal of Tedrake's kneedCompassGait.m initial
 * condition (his angles from the vertical plus the slope). */
static const double TEDRAKE_X0[6] = {0.187700106303669, -0.288437140111164, -0.288437140111164,
                                     -1.101439041094875, -0.039885255927632, -0.039885255927632};

typedef struct {
    const sm_model *m;
    const body_model *bm;
    double p[SM_MAX_PARAMS];
    kcf_params P;
} walker;

static double get(const sm_model *m, const double *p, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    return p[i];
}

static void set(const sm_model *m, double *p, const char *name, double v)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    p[i] = v;
}

/* The walker of path; other: thigh and shank centres elsewhere than the
 * file's. */
static void open_walker(walker *w, const char *path, bool other)
{
    char why[2048] = "";
    w->m = NULL;
    if (sm_registry_open(path, &w->m, why, sizeof why) != SM_OK) fail_msg("%s: %s", path, why);
    w->bm = w->m->data;
    assert_non_null(body_model_file(w->m));
    sm_model_default_params(w->m, w->p);
    if (other) {
        set(w->m, w->p, "bodies.thigh_a.com.z", -0.325);
        set(w->m, w->p, "bodies.shank_a.com.z", -0.125);
    }
    /* the closed form has point masses on the link axes */
    const char *zero[] = {"bodies.thigh_a.com.x", "bodies.thigh_a.com.y", "bodies.shank_a.com.x",
                          "bodies.shank_a.com.y", "bodies.shank_a.pos.x",  "bodies.shank_a.pos.y",
                          "sites.foot_a.pos.x",   "sites.foot_a.pos.y"};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++) assert_true(get(w->m, w->p, zero[i]) == 0.0);
    w->P = (kcf_params){.g = get(w->m, w->p, "gravity"),
                        .gamma = get(w->m, w->p, "slope"),
                        .mh = get(w->m, w->p, "bodies.hip_z.mass"),
                        .mt = get(w->m, w->p, "bodies.thigh_a.mass"),
                        .ms = get(w->m, w->p, "bodies.shank_a.mass"),
                        .lt = -get(w->m, w->p, "bodies.shank_a.pos.z"),
                        .ls = -get(w->m, w->p, "sites.foot_a.pos.z"),
                        .ct = -get(w->m, w->p, "bodies.thigh_a.com.z"),
                        .cs = -get(w->m, w->p, "bodies.shank_a.com.z")};
}

static void close_walker(walker *w) { sm_registry_close(w->m); }

/* MODEL_FILE copied to /tmp/kneed_STEM_XXXXXX.yaml (path gets its name)
 * with each line that starts as edits[i][0] replaced by edits[i][1], and
 * without its integrate: line if full; the number of lines replaced. */
static int write_variant(char *path, size_t len, const char *stem, const char *const (*edits)[2], size_t n_edits,
                         bool full)
{
    FILE *in = fopen(MODEL_FILE, "r");
    assert_non_null(in);
    snprintf(path, len, "/tmp/kneed_%s_XXXXXX.yaml", stem);
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    assert_non_null(out);
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, in)) {
        size_t i = 0;
        while (i < n_edits && strncmp(line, edits[i][0], strlen(edits[i][0])) != 0) i++;
        if (i < n_edits) {
            fputs(edits[i][1], out);
            found++;
        } else if (!full || strncmp(line, "integrate:", 10) != 0) {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    return found;
}

/* The file in the full formulation (below, with write_full_model). */
static void open_full(walker *w, bool other, bool free_knee);

/* The closed form's state as the body file's: the stance foot at the
 * origin, the stance knee straight. */
static void to_body(const kcf_params *P, const double *c, double *x)
{
    const double L = P->lt + P->ls;
    const double q[6] = {-L * sin(c[0]), L * cos(c[0]), c[0], 0, c[1], c[1] - c[2]};
    const double v[6] = {-L * cos(c[0]) * c[3], -L * sin(c[0]) * c[3], c[3], 0, c[4], c[4] - c[5]};
    memcpy(x, q, sizeof q);
    memcpy(x + 6, v, sizeof v);
}

static void from_body(const double *x, double *c)
{
    const double r[6] = {x[2], x[4], x[4] - x[5], x[8], x[10], x[10] - x[11]};
    memcpy(c, r, sizeof r);
}

/* A reproducible uniform number in [lo, hi]. */
static double uniform(unsigned long long *s, double lo, double hi)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

static void random_state(unsigned long long *s, double *x)
{
    for (int i = 0; i < 3; i++) x[i] = uniform(s, -0.6, 0.6);
    for (int i = 3; i < 6; i++) x[i] = uniform(s, -4, 4);
}

static size_t phase_index(const sm_model *m, const char *name)
{
    for (size_t k = 0; k < m->n_phases; k++)
        if (strcmp(m->phases[k].name, name) == 0) return k;
    fail_msg("no phase %s", name);
    return 0;
}

static const sm_event *find_event(const sm_model *m, const char *phase, const char *name)
{
    const size_t ph = phase_index(m, phase);
    for (size_t k = 0; k < m->phases[ph].n_events; k++)
        if (strcmp(m->phases[ph].events[k].name, name) == 0) return &m->phases[ph].events[k];
    fail_msg("phase %s has no event %s", phase, name);
    return NULL;
}

/* The stance knee's (knee_a's) locking torque in phase ph at x. */
static double knee_torque(const walker *w, size_t ph, const double *x)
{
    BODY_EVAL_MEM(mem, w->bm);
    body_eval e;
    assert_status(body_eval_init(&e, w->bm, w->p, mem, NULL, 0), SM_OK);
    double lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc = 0;
    assert_status(body_phase_solve(&e, ph, x, NULL, lambda, c, &nc), SM_OK);
    const body_file *f = w->bm->f;
    int knee_a = -1;
    for (size_t k = 0; k < f->n_contacts; k++)
        if (strcmp(f->contacts[k].name, "knee_a") == 0) knee_a = (int)k;
    const int slot = body_phase_contact_slot(f, ph, knee_a);
    assert_true(slot >= 0);
    double n, t;
    body_contact_force(&e, c, nc, lambda, (size_t)slot, &n, &t);
    return n;
}

/* ---- (a) accelerations and the stance knee's locking torque --------------- */

static void check_accel(bool other)
{
    walker w;
    open_full(&w, other, false);
    const size_t free_ph = phase_index(w.m, "knee_free"), locked_ph = phase_index(w.m, "knee_locked");
    unsigned long long seed = other ? 11 : 7;
    double worst = 0, worst_t = 0;
    for (int k = 0; k < 200; k++) {
        double x[6], a[3], xb[12], xd[12], Tc = NAN;
        random_state(&seed, x);
        /* knee free */
        to_body(&w.P, x, xb);
        assert_int_equal(w.m->phases[free_ph].rhs(0, xb, xd, w.p, w.m->data), 0);
        assert_int_equal(kcf_accel(&w.P, 3, x, x + 3, a), 0);
        const double got3[3] = {xd[8], xd[10], xd[10] - xd[11]};
        for (int i = 0; i < 3; i++) {
            assert_close(got3[i], a[i], 1e-12 * (1 + fabs(a[i])));
            worst = fmax(worst, fabs(got3[i] - a[i]) / (1 + fabs(a[i])));
        }
        assert_close(xd[9], 0.0, 1e-12); /* the stance knee held */
        double Te = knee_torque(&w, free_ph, xb);
        assert_int_equal(kcf_stance_knee_torque(&w.P, 3, x, x + 3, &Tc), 0);
        assert_close(Te, Tc, 1e-12 * (1 + fabs(Tc)));
        worst_t = fmax(worst_t, fabs(Te - Tc) / (1 + fabs(Tc)));
        /* knee locked */
        x[2] = x[1];
        x[5] = x[4];
        to_body(&w.P, x, xb);
        const double th[2] = {x[0], x[1]}, wr[2] = {x[3], x[4]};
        assert_int_equal(w.m->phases[locked_ph].rhs(0, xb, xd, w.p, w.m->data), 0);
        assert_int_equal(kcf_accel(&w.P, 2, th, wr, a), 0);
        const double got2[2] = {xd[8], xd[10]};
        for (int i = 0; i < 2; i++) {
            assert_close(got2[i], a[i], 1e-12 * (1 + fabs(a[i])));
            worst = fmax(worst, fabs(got2[i] - a[i]) / (1 + fabs(a[i])));
        }
        assert_close(xd[11], 0.0, 1e-12);
        Te = knee_torque(&w, locked_ph, xb);
        assert_int_equal(kcf_stance_knee_torque(&w.P, 2, th, wr, &Tc), 0);
        assert_close(Te, Tc, 1e-12 * (1 + fabs(Tc)));
        worst_t = fmax(worst_t, fabs(Te - Tc) / (1 + fabs(Tc)));
    }
    print_message("accelerations (%s): worst |bodies - closed form| / (1 + |a|) = %.2e over 400 states; "
                  "stance-knee locking torque %.2e\n",
                  other ? "other mass positions" : "the file's", worst, worst_t);
    close_walker(&w);
}

static void test_accel_file(void **state) { check_accel(false); }
static void test_accel_other(void **state) { check_accel(true); }

/* kneed_hsu.yaml with knee_b locked in knee_free too (both knees straight
 * throughout, as kneed_mcgeer_locked.yaml's) and shank_b_dot no longer
 * free, in a temporary file; path gets its name. */
static void write_locked_model(char *path, size_t len)
{
    static const char *const edits[][2] = {
        {"    contacts: [foot_a, knee_a]\n", "    contacts: [foot_a, knee_a, knee_b]\n"},
        {"  free: [thigh_a, thigh_a_dot, thigh_b_dot, shank_b_dot]\n", "  free: [thigh_a, thigh_a_dot, thigh_b_dot]\n"}};
    assert_int_equal(write_variant(path, len, "locked", edits, 2, false), 2);
}

/* The right-hand side the integrator calls on the reduced state, against
 * the closed form: the file itself (the stance knee, locked in both phases,
 * left out: thigh_a, thigh_b, shank_b and rates) in both phases, and the
 * file with both knees locked throughout (thigh_a, thigh_b and rates). */
static void test_accel_reduced(void **state)
{
    walker w;
    open_walker(&w, MODEL_FILE, false);
    assert_true(w.bm->reduced);
    static const char *const names[] = {"thigh_a", "thigh_b", "shank_b", "thigh_a_dot", "thigh_b_dot", "shank_b_dot"};
    assert_int_equal(w.m->n_state, 6);
    for (size_t i = 0; i < 6; i++) assert_string_equal(w.m->state_names[i], names[i]);
    const size_t free_ph = phase_index(w.m, "knee_free"), locked_ph = phase_index(w.m, "knee_locked");
    unsigned long long seed = 19;
    double worst = 0;
    for (int k = 0; k < 200; k++) {
        double x[6], a[3], xb[12], xr[6], xd[6];
        random_state(&seed, x);
        to_body(&w.P, x, xb);
        body_reduce(w.bm, xb, xr);
        assert_int_equal(w.m->phases[free_ph].rhs(0, xr, xd, w.p, w.m->data), 0);
        assert_int_equal(kcf_accel(&w.P, 3, x, x + 3, a), 0);
        const double got3[3] = {xd[3], xd[4], xd[4] - xd[5]};
        for (int i = 0; i < 3; i++) {
            assert_close(got3[i], a[i], 1e-12 * (1 + fabs(a[i])));
            worst = fmax(worst, fabs(got3[i] - a[i]) / (1 + fabs(a[i])));
        }
        x[2] = x[1];
        x[5] = x[4];
        to_body(&w.P, x, xb);
        body_reduce(w.bm, xb, xr);
        const double th[2] = {x[0], x[1]}, wr[2] = {x[3], x[4]};
        assert_int_equal(w.m->phases[locked_ph].rhs(0, xr, xd, w.p, w.m->data), 0);
        assert_int_equal(kcf_accel(&w.P, 2, th, wr, a), 0);
        for (int i = 0; i < 2; i++) {
            assert_close(xd[3 + i], a[i], 1e-12 * (1 + fabs(a[i])));
            worst = fmax(worst, fabs(xd[3 + i] - a[i]) / (1 + fabs(a[i])));
        }
        assert_true(xd[5] == 0.0);
    }
    close_walker(&w);

    char path[64];
    write_locked_model(path, sizeof path);
    open_walker(&w, path, false);
    remove(path);
    assert_true(w.bm->reduced);
    static const char *const thighs[] = {"thigh_a", "thigh_b", "thigh_a_dot", "thigh_b_dot"};
    assert_int_equal(w.m->n_state, 4);
    for (size_t i = 0; i < 4; i++) assert_string_equal(w.m->state_names[i], thighs[i]);
    for (int k = 0; k < 200; k++) {
        double x[6], a[2], xb[12], xr[4], xd[4];
        random_state(&seed, x);
        x[2] = x[1];
        x[5] = x[4];
        to_body(&w.P, x, xb);
        body_reduce(w.bm, xb, xr);
        const double th[2] = {x[0], x[1]}, wr[2] = {x[3], x[4]};
        assert_int_equal(kcf_accel(&w.P, 2, th, wr, a), 0);
        for (size_t ph = 0; ph < w.m->n_phases; ph++) {
            assert_int_equal(w.m->phases[ph].rhs(0, xr, xd, w.p, w.m->data), 0);
            for (int i = 0; i < 2; i++) {
                assert_true(xd[i] == xr[2 + i]);
                assert_close(xd[2 + i], a[i], 1e-12 * (1 + fabs(a[i])));
                worst = fmax(worst, fabs(xd[2 + i] - a[i]) / (1 + fabs(a[i])));
            }
        }
    }
    print_message("reduced right-hand sides (the stance knee, or both knees, held): worst |bodies - closed form| / "
                  "(1 + |a|) = %.2e\n",
                  worst);
    close_walker(&w);
}

/* The closed form itself: energy conserved along each phase. */
static void test_closed_form_energy(void **state)
{
    walker w;
    open_walker(&w, MODEL_FILE, false);
    unsigned long long seed = 3;
    for (int n = 2; n <= 3; n++) {
        double x[6];
        random_state(&seed, x);
        for (int i = 3; i < 6; i++) x[i] *= 0.3;
        if (n == 2) x[2] = x[1], x[5] = x[4];
        const double e0 = kcf_energy(&w.P, n, x);
        for (int s = 0; s < 2000; s++) {
            double y[6];
            assert_int_equal(kcf_rk4(&w.P, n, x, 1e-4, y), 0);
            memcpy(x, y, sizeof x);
        }
        assert_close(kcf_energy(&w.P, n, x), e0, 1e-11 * (1 + fabs(e0)));
    }
    close_walker(&w);
}

/* ---- (b) impact maps -------------------------------------------------------- */

/* kneed_hsu.yaml in the full formulation (integrate: full, the state the
 * closed form is compared with below: the base's slides and rates first),
 * with Garcia's heel-strike if free_knee (impact: true, onto the next
 * phase's contacts, which release the new swing knee), written to a
 * temporary file; path gets its name.  The file itself integrates the
 * joints alone (test_issue_gait); tests/test_body_reduced.c holds the two
 * formulations to each other. */
static void write_full_model(char *path, size_t len, bool free_knee)
{
    static const char *const edits[][2] = {{"        impact: [foot_a, knee_a, knee_b]", "        impact: true\n"}};
    assert_int_equal(write_variant(path, len, "full", edits, free_knee ? 1 : 0, true), free_knee ? 1 : 0);
}

static void open_full(walker *w, bool other, bool free_knee)
{
    char path[64];
    write_full_model(path, sizeof path, free_knee);
    open_walker(w, path, other);
    assert_false(w->bm->reduced);
    remove(path);
}

static void open_free_knee(walker *w, bool other) { open_full(w, other, true); }

/* The knee-strike, and a heel-strike with both feet on the ground (the
 * section's projection then moves nothing), against the closed form's. */
static void check_impacts(walker *w, kcf_heelstrike_kind kind, unsigned long long seed, const char *what)
{
    const sm_event *ks = find_event(w->m, "knee_free", "kneestrike"), *hs = find_event(w->m, "knee_locked", "heelstrike");
    double worst_k = 0, worst_h = 0;
    for (int k = 0; k < 200; k++) {
        double x[6], c[6], e[6], xb[12], yb[12];
        random_state(&seed, x);
        x[2] = x[1]; /* at knee-strike: the knee straight, its rate not */
        to_body(&w->P, x, xb);
        assert_int_equal(ks->reset(xb, yb, w->p, w->m->data), 0);
        assert_int_equal(kcf_kneestrike(&w->P, x, c), 0);
        from_body(yb, e);
        for (int i = 0; i < 6; i++) {
            assert_close(e[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst_k = fmax(worst_k, fabs(e[i] - c[i]) / (1 + fabs(c[i])));
        }
        /* heel-strike: both knees locked, the swing foot on the ground ahead */
        random_state(&seed, x);
        x[0] = -fabs(x[0]) - 0.05;
        x[1] = x[2] = -x[0];
        x[5] = x[4];
        to_body(&w->P, x, xb);
        assert_int_equal(hs->reset(xb, yb, w->p, w->m->data), 0);
        assert_int_equal(kcf_heelstrike(&w->P, kind, x, c), 0);
        from_body(yb, e);
        for (int i = 0; i < 6; i++) {
            assert_close(e[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst_h = fmax(worst_h, fabs(e[i] - c[i]) / (1 + fabs(c[i])));
        }
        /* the new stance foot at rest */
        const double L = w->P.lt + w->P.ls;
        assert_close(yb[6], -L * cos(e[0]) * e[3], 1e-12 * (1 + fabs(yb[6])));
        assert_close(yb[7], -L * sin(e[0]) * e[3], 1e-12 * (1 + fabs(yb[7])));
    }
    print_message("impacts (%s): knee-strike %.2e, heel-strike %.2e\n", what, worst_k, worst_h);
}

static void test_impacts_file(void **state)
{
    walker w;
    open_full(&w, false, false);
    check_impacts(&w, KCF_HS_LOCKED, 5, "the file: the new swing knee held");
    close_walker(&w);
    open_full(&w, true, false);
    check_impacts(&w, KCF_HS_LOCKED, 13, "the file at other mass positions");
    close_walker(&w);
}

static void test_impacts_free_knee(void **state)
{
    walker w;
    open_free_knee(&w, false);
    check_impacts(&w, KCF_HS_FREE, 17, "impact: true, the new swing knee free");
    close_walker(&w);
}

/* ---- (c) strides ------------------------------------------------------------ */

static void check_stride(walker *w, kcf_heelstrike_kind kind, const double *x0, const char *what)
{
    sm_workspace *ws = test_workspace(w->m, 1e-12, SM_METHOD_ADAMS);
    double xb[SM_MAX_STATE], yb[SM_MAX_STATE], y[6], z[6], T = 0;
    to_body(&w->P, x0, xb);
    sm_step_metrics mt;
    assert_status(sm_stride(ws, w->p, xb, yb, &mt, NULL), SM_OK);
    assert_int_equal(kcf_stride(&w->P, kind, x0, 2e-5, 5.0, z, &T), KCF_OK);
    from_body(yb, y);
    double worst = fabs(mt.period - T);
    for (int i = 0; i < 6; i++) {
        assert_close(y[i], z[i], 1e-8 * (1 + fabs(z[i])));
        worst = fmax(worst, fabs(y[i] - z[i]));
    }
    assert_close(mt.period, T, 1e-8);
    print_message("stride from %s: max |bodies - closed form| = %.2e (step time %.9f)\n", what, worst, T);
    sm_workspace_free(ws);
}

static void test_stride_file(void **state)
{
    walker w;
    open_full(&w, false, false);
    double x[6];
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    check_stride(&w, KCF_HS_LOCKED, x, "Tedrake's x0 (the file)");
    const double starts[2][4] = {{0.24, -1.1, 0.0, -2.0}, {0.23, -1.05, -0.04, -0.04}};
    for (int k = 0; k < 2; k++) {
        kcf_lift(starts[k][0], starts[k][1], starts[k][2], starts[k][3], x);
        check_stride(&w, KCF_HS_LOCKED, x, "a nearby start (the file)");
    }
    close_walker(&w);
}

static void test_stride_free_knee(void **state)
{
    walker w;
    open_free_knee(&w, true);
    const double starts[2][4] = {{0.24, -1.15, 0.0, -3.5}, {0.22, -1.1, 0.1, -3.0}};
    for (int k = 0; k < 2; k++) {
        double x[6];
        kcf_lift(starts[k][0], starts[k][1], starts[k][2], starts[k][3], x);
        check_stride(&w, KCF_HS_FREE, x, "a start of the free knee, other mass positions");
    }
    close_walker(&w);
}

/* ---- the issue's question ---------------------------------------------------- */

/* With the issue's mass positions on slope asin(7.25/144): Chen's walker
 * (knee held locked through heel-strike) walks from Tedrake's initial
 * condition onto a stable gait, in the closed form and in the file (Newton),
 * while Garcia's heel-strike (impact: true) puts the foot down before
 * knee-strike on the fifth step. */
static void test_issue_gait(void **state)
{
    walker w;
    open_walker(&w, MODEL_FILE, false);
    double x[6], y[6], T;
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    for (int s = 0; s < 100; s++) {
        assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, x, 1e-4, 5.0, y, &T), KCF_OK);
        memcpy(x, y, sizeof x);
    }
    assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, x, 1e-4, 5.0, y, &T), KCF_OK);
    for (int i = 0; i < 6; i++) assert_close(y[i], x[i], 1e-10);
    assert_close(x[0], 0.2396419965, 1e-8);
    assert_close(x[3], -1.1338165864, 1e-8);
    assert_close(x[4], -0.1087293385, 1e-8);
    assert_close(x[5], x[4], 0);
    /* its multipliers, on (stance, stance_dot, thigh_dot = shank_dot) */
    double J[9], re[3], im[3];
    const double z0[3] = {x[0], x[3], x[4]};
    for (int j = 0; j < 3; j++) {
        double zp[3], zm[3], a[6], b[6], yp[6], ym[6];
        memcpy(zp, z0, sizeof zp), memcpy(zm, z0, sizeof zm);
        zp[j] += 1e-6, zm[j] -= 1e-6;
        kcf_lift(zp[0], zp[1], zp[2], zp[2], a);
        kcf_lift(zm[0], zm[1], zm[2], zm[2], b);
        assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, a, 1e-4, 5.0, yp, &T), KCF_OK);
        assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, b, 1e-4, 5.0, ym, &T), KCF_OK);
        const int out[3] = {0, 3, 4};
        for (int i = 0; i < 3; i++) J[i * 3 + j] = (yp[out[i]] - ym[out[i]]) / 2e-6;
    }
    assert_status(sm_eigenvalues(3, J, re, im), SM_OK);
    const double rho = hypot(re[0], im[0]);
    print_message("Chen's heel-strike: gait stance=%.10f stance_dot=%.10f thigh_dot=shank_dot=%.10f, "
                  "step %.6f s, max |multiplier| %.4f\n",
                  x[0], x[3], x[4], T, rho);
    assert_close(rho, 0.7410, 2e-4);

    /* the file: Newton from Tedrake's start onto the same gait */
    double xb[SM_MAX_STATE];
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    to_body(&w.P, x, xb);
    /* the file integrates the joints alone: its state is the full one's
     * joints, the base put back by the stance foot */
    assert_true(w.bm->reduced);
    double xr[SM_MAX_STATE], xf[SM_MAX_STATE];
    body_reduce(w.bm, xb, xr);
    sm_workspace *ws = test_workspace(w.m, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, w.p, xr, &no, &r), SM_OK);
    assert_true(r.stable);
    assert_status(body_expand_at(w.bm, w.p, r.x, xf), SM_OK);
    from_body(xf, y);
    assert_close(y[0], 0.2396419965, 1e-8);
    assert_close(y[3], -1.1338165864, 1e-8);
    assert_close(y[4], -0.1087293385, 1e-8);
    assert_close(y[5], y[4], 1e-12);
    assert_close(r.max_abs_eig, 0.7410, 2e-4);
    sm_workspace_free(ws);
    close_walker(&w);

    /* Garcia's heel-strike from the same start */
    open_free_knee(&w, false);
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    to_body(&w.P, x, xb);
    ws = test_workspace(w.m, 1e-10, SM_METHOD_ADAMS);
    double yb[SM_MAX_STATE];
    for (int s = 0; s < 4; s++) {
        assert_status(sm_stride(ws, w.p, xb, yb, NULL, NULL), SM_OK);
        memcpy(xb, yb, sizeof xb);
    }
    assert_status(sm_stride(ws, w.p, xb, yb, NULL, NULL), SM_EVENT_ORDER);
    sm_workspace_free(ws);
    close_walker(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form_energy), cmocka_unit_test(test_accel_file),
        cmocka_unit_test(test_accel_other),        cmocka_unit_test(test_accel_reduced),
        cmocka_unit_test(test_impacts_file),
        cmocka_unit_test(test_impacts_free_knee),  cmocka_unit_test(test_stride_file),
        cmocka_unit_test(test_stride_free_knee),   cmocka_unit_test(test_issue_gait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
