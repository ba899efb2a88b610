/* models/biped12_3d_sampled.yaml (issue 15, item 4): the 3-D biped under
 * a controller sampled at a fixed period, each sample an event, over
 * continuous joint dampers (scripts/gen_biped12_3d_sampled.py, the file's
 * header).
 *
 * - The file is models/biped12_3d.yaml's walker with eight held torques
 *   after its 36 states, the same free coordinates, the law's velocity
 *   gain moved into the dampers (kd_c = kd, kd 0) and fed forward; in
 *   each phase each driven joint's dampers sum to the base's c_joint plus
 *   kd where the base's output on that joint acts (its phases:), c_joint
 *   alone where it does not.
 * - Two derivations of the torques agree: along the continuous file's
 *   gait the sampled law minus the dampers' extra drag is the continuous
 *   file's law (its kd y' term from its own velocities, the sampled
 *   file's from the feed-forward splines; both nothing where the output's
 *   feedback is off): exactly at the splines' knots, to their
 *   interpolation between them.
 * - Steps at 2 and 1 ms from the continuous file's gait: the held torques
 *   change only across t = k dt, at nearly every multiple; each step ends
 *   on its section, and the one at 1 ms nearer the step of the same law
 *   unsampled (the file without `sampling:`), in its end and its time.
 * - STRIDEMAP_SLOW_TESTS=1: that distance shrinks at least as dt (2, 1,
 *   0.5 ms) and no faster than dt^2, and `fixed` finds the sampled gait at 1 ms that the file's header
 *   states (the generator ran the same fixed): its multipliers, each in
 *   its mode, stable but for the heading's -1.
 * Nothing here is a number of one gait: every comparison is with the
 * continuous file or the unsampled law computed here, or with the header
 * the generator wrote from the file it wrote. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"
#include "hzd_checks.h"
#include "src_path.h"
#include "stridemap/poincare.h"

#define SAMPLED "models/biped12_3d_sampled.yaml"
#define BASE "models/biped12_3d.yaml"
#define NV 18
#define NACT 8

static const char *const actuators[NACT] = {"hip_a", "knee_a", "ankle_a", "ankle_roll_a",
                                            "hip_b", "knee_b", "ankle_b", "hip_roll_b"};
/* the joint each actuator drives, as in the files' controller */
static const char *const joints[NACT] = {"thigh_a", "knee_a", "foot_a", "ankle_x_a",
                                         "thigh_b", "knee_b", "foot_b", "hip_x_b"};

static double param(const sm_model *m, const double *p, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("%s has no parameter %s", m->name, name);
    return p[i];
}

/* Whether the base's output on joint j (named after it) acts in phase ph. */
static bool base_output_on(const sm_model *mb, size_t j, size_t ph)
{
    const body_controller *k = &body_model_file(mb)->ctrl;
    for (size_t o = 0; o < k->n_out; o++)
        if (strcmp(k->out_name[o], joints[j]) == 0) return k->out_phases[o] >> ph & 1u;
    fail_msg("the base has no output %s", joints[j]);
    return false;
}

/* The sampled file without its `sampling:` line: the same law, continuous
 * (the limit dt -> 0), written next to the test's other files. */
static const char *unsampled_file(void)
{
    static char path[512];
    FILE *in = fopen(src_path(SAMPLED), "r");
    assert_non_null(in);
    snprintf(path, sizeof path, "%s/biped12_3d_unsampled_%ld.yaml", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    char line[8192];
    int dropped = 0;
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, "  sampling:", 11) == 0) {
            dropped++;
            continue;
        }
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
    assert_int_equal(dropped, 1);
    return path;
}

static void test_file_shape(void **state)
{
    (void)state;
    const sm_model *mb = hzd_open_file(src_path(BASE)), *ms = hzd_open_file(src_path(SAMPLED));
    assert_int_equal(mb->n_state, 2 * NV);
    assert_int_equal(ms->n_state, 2 * NV + NACT);
    assert_int_equal(ms->n_free, mb->n_free);
    for (size_t j = 0; j < NACT; j++) {
        char name[64];
        snprintf(name, sizeof name, "%s.held", actuators[j]);
        assert_int_equal(sm_model_state_index(ms, name), (int)(2 * NV + j));
    }
    for (size_t i = 0; i < 2 * NV; i++) assert_string_equal(ms->state_names[i], mb->state_names[i]);
    double pb[SM_MAX_PARAMS], ps[SM_MAX_PARAMS];
    sm_model_default_params(mb, pb);
    sm_model_default_params(ms, ps);
    assert_true(param(ms, ps, "sample_dt") > 0 && param(ms, ps, "sample_dt") <= 2e-3);
    assert_true(param(ms, ps, "kd") == 0.0);
    assert_true(param(ms, ps, "kp") == param(mb, pb, "kp"));
    assert_true(param(ms, ps, "kd_ff") == param(mb, pb, "kd"));
    assert_true(param(ms, ps, "kd_c") == param(mb, pb, "kd"));
    assert_true(param(ms, ps, "c_joint") == param(mb, pb, "c_joint"));
    /* each driven joint's dampers in each phase: the base's c_joint, and kd
     * where the base's output acts (foot_b and hip_x_b not in roll) */
    const body_file *f = body_model_file(ms);
    int off = 0;
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t j = 0; j < NACT; j++) {
            double c = 0.0;
            for (size_t i = 0; i < f->n_forces; i++) {
                const body_force *g = &f->forces[i];
                if (g->n == 1 && strcmp(f->bodies[g->body[0]].name, joints[j]) == 0 && !(g->phases_off >> ph & 1u))
                    c += g->coef[0] * g->coef[0] * body_num_eval(&g->damping, ps);
            }
            const bool on = base_output_on(mb, j, ph);
            off += !on;
            assert_close(c, param(mb, pb, "c_joint") + (on ? param(mb, pb, "kd") : 0.0), 1e-12);
        }
    assert_true(off >= 2);
    sm_registry_close(ms);
    sm_registry_close(mb);
}

/* u_sampled - kd q' = u_base along the base's gait (its guess), both laws
 * evaluated at the same states, sampled every 1 ms: the base's law has
 * -kd (q' - h'(s) s'), from the walker's own velocities; the sampled
 * file's the feed-forward kd h'(s) s'_nom(s), natural splines through the
 * generator's knots of the same gait's s'(s).  So the difference e(s) is
 * the splines' interpolation error: zero at every knot (to the linear
 * interpolation between samples, here and in the generator's reading of
 * 0.5 ms rows), and elsewhere small against the drag kd q' the feed-forward
 * stands in for, for s in [0.02, 0.98] (at the ends s' has a transient,
 * 1.30 -> 1.14 over the first 2 % of s, and jumps at the impacts, which 16
 * knots round). */
#define LAW_SAMPLES 4000
typedef struct {
    const sm_model *mb, *ms;
    const double *pb, *ps;
    double worst, big, drag;
    int n;
    double s[LAW_SAMPLES], e[LAW_SAMPLES][NACT];
    size_t phase[LAW_SAMPLES];
} law_pair;

static int compare_laws(void *ctx, double t, size_t phase, const double *x)
{
    (void)t;
    law_pair *c = ctx;
    const body_model *bb = c->mb->data, *bs = c->ms->data;
    const double th0 = param(c->mb, c->pb, "theta_start"), th1 = param(c->mb, c->pb, "theta_end");
    const double s = (x[sm_model_state_index(c->mb, "hat")] + x[sm_model_state_index(c->mb, "thigh_a")] - th0) /
                     (th1 - th0);
    BODY_EVAL_MEM(mb_mem, bb);
    BODY_EVAL_MEM(ms_mem, bs);
    body_eval eb, es;
    double ub[NACT], us[NACT], xs[SM_MAX_STATE] = {0};
    memcpy(xs, x, 2 * NV * sizeof *xs);
    if (body_eval_init(&eb, bb, c->pb, mb_mem, NULL, 0) != SM_OK || body_control_law_at(&eb, phase, x, ub) != SM_OK ||
        body_eval_init(&es, bs, c->ps, ms_mem, NULL, 0) != SM_OK || body_control_law_at(&es, phase, xs, us) != SM_OK)
        return 1;
    if (c->n >= LAW_SAMPLES) return 1;
    c->s[c->n] = s;
    c->phase[c->n] = phase;
    for (size_t j = 0; j < NACT; j++) {
        /* the drive's kd share acts where the output's feedback does */
        const double kd = base_output_on(c->mb, j, phase) ? param(c->mb, c->pb, "kd") : 0.0;
        const double qd = x[sm_model_state_index(c->mb, joints[j]) + NV];
        c->e[c->n][j] = us[j] - kd * qd - ub[j];
        if (s >= 0.02 && s <= 0.98) {
            c->worst = fmax(c->worst, fabs(c->e[c->n][j]));
            c->big = fmax(c->big, fabs(ub[j]));
            c->drag = fmax(c->drag, fabs(kd * qd));
        }
    }
    c->n++;
    return 0;
}

static void test_torques_two_derivations(void **state)
{
    (void)state;
    const sm_model *mb = hzd_open_file(src_path(BASE)), *ms = hzd_open_file(src_path(SAMPLED));
    double pb[SM_MAX_PARAMS], ps[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(mb, pb);
    sm_model_default_params(ms, ps);
    mb->guess(x, pb, mb->data);
    law_pair *c = calloc(1, sizeof *c);
    assert_non_null(c);
    *c = (law_pair){.mb = mb, .ms = ms, .pb = pb, .ps = ps};
    sm_observer obs = {.dt = 1e-3, .sample = compare_laws, .ctx = c};
    sm_workspace *ws = hzd_workspace(mb, 1e-10, SM_METHOD_BDF);
    assert_status(sm_stride(ws, pb, x, xo, NULL, &obs), SM_OK);
    print_message("over %d samples: largest difference %.3e N m; largest torque %.3e, largest kd q' %.3e\n", c->n,
                  c->worst, c->big, c->drag);
    assert_true(c->n > 500);
    assert_true(c->big > 10.0 && c->drag > 50.0);
    /* the generator places the knots where this is least and states it in
     * the header (on the roll-phase gait 7.97 N m of 187: the swing knee's
     * and ankle's, where their references bend fastest) */
    assert_true(c->worst < 0.05 * c->drag);
    /* at the knots: the two laws agree but for the samples' spacing */
    const body_controller *k = &((const body_model *)ms->data)->f->ctrl;
    assert_true(k->ff_n >= 2);
    int at_knots = 0;
    double knot_worst = 0.0;
    for (size_t m = 0; m < k->ff_n; m++) {
        const double sk = k->ff_knots[m];
        if (sk < 0.02 || sk > 0.98) continue;
        for (int i = 0; i + 1 < c->n; i++) {
            if (!(c->s[i] <= sk && sk < c->s[i + 1]) || c->phase[i] != c->phase[i + 1]) continue;
            const double w = (sk - c->s[i]) / (c->s[i + 1] - c->s[i]);
            for (size_t j = 0; j < NACT; j++)
                knot_worst = fmax(knot_worst, fabs((1 - w) * c->e[i][j] + w * c->e[i + 1][j]));
            at_knots++;
            break;
        }
    }
    print_message("at %d knots inside [0.02, 0.98]: largest difference %.3e N m\n", at_knots, knot_worst);
    assert_true(at_knots >= 4);
    assert_true(knot_worst < 1e-3 * c->drag);
    free(c);
    sm_workspace_free(ws);
    sm_registry_close(ms);
    sm_registry_close(mb);
}

/* Held torques change only across multiples of the period. */
typedef struct {
    double dt, t_prev, held_prev[NACT];
    int changes, bad;
} hold_watch;

static int hold_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    hold_watch *h = ctx;
    const double *held = x + 2 * NV;
    const bool changed = memcmp(held, h->held_prev, sizeof h->held_prev) != 0;
    double k = floor(h->t_prev / h->dt) + 1; /* the first tick after the previous sample, as the engine's */
    while (!(k * h->dt > h->t_prev)) k++;
    h->changes += changed;
    h->bad += changed && !(k * h->dt <= t);
    h->t_prev = t;
    memcpy(h->held_prev, held, sizeof h->held_prev);
    return 0;
}

/* One step of the sampled file at period dt from the continuous gait's
 * start, watched every dt/3; *period its time; its distance (free
 * coordinates of the section) from the unsampled law's step, *d. */
static void sampled_step(double dt, const double *z_unsampled, double *d, double *period)
{
    const sm_model *ms = hzd_open_file(src_path(SAMPLED));
    double ps[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE], z[SM_MAX_STATE];
    sm_model_default_params(ms, ps);
    ps[sm_model_param_index(ms, "sample_dt")] = dt;
    ms->guess(x, ps, ms->data);
    sm_model_to_section(ms, ps, x, x);
    sm_workspace *ws = hzd_workspace(ms, 1e-10, SM_METHOD_BDF);
    hold_watch h = {.dt = dt};
    memcpy(h.held_prev, x + 2 * NV, sizeof h.held_prev);
    sm_observer obs = {.dt = dt / 3, .sample = hold_sample, .ctx = &h};
    sm_step_metrics met;
    assert_status(sm_stride(ws, ps, x, xo, &met, &obs), SM_OK);
    assert_int_equal(h.bad, 0);
    /* a sample whose torques are the previous ones bit for bit is rare */
    assert_true(h.changes >= (int)(0.98 * met.period / dt));
    assert_true(h.changes <= (int)(met.period / dt) + 1);
    sm_model_free(ms, xo, z);
    *d = 0.0;
    for (size_t i = 0; i < ms->n_free; i++) *d = fmax(*d, fabs(z[i] - z_unsampled[i]));
    *period = met.period;
    sm_workspace_free(ws);
    sm_registry_close(ms);
}

/* The unsampled law's step from the same start (free coordinates, *period its time). */
static void unsampled_step(double *z, double *period)
{
    const sm_model *mu = hzd_open_file(unsampled_file());
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(mu, p);
    mu->guess(x, p, mu->data);
    sm_model_to_section(mu, p, x, x);
    sm_workspace *ws = hzd_workspace(mu, 1e-10, SM_METHOD_BDF);
    sm_step_metrics met;
    assert_status(sm_stride(ws, p, x, xo, &met, NULL), SM_OK);
    sm_model_free(mu, xo, z);
    *period = met.period;
    sm_workspace_free(ws);
    sm_registry_close(mu);
}

/* A step at 2 ms and at 1 ms from the base's gait: each ends on its section,
 * and halving the period brings the step (its end on the section and its
 * time) nearer the unsampled law's from the same start. */
static void test_step_at_2_and_1ms(void **state)
{
    (void)state;
    double zu[SM_MAX_STATE], d2, d1, T2, T1, Tu;
    unsampled_step(zu, &Tu);
    sampled_step(2e-3, zu, &d2, &T2);
    sampled_step(1e-3, zu, &d1, &T1);
    print_message("unsampled %.5f s; at 2 ms %.5f s, %.3e away; at 1 ms %.5f s, %.3e away\n", Tu, T2, d2, T1, d1);
    assert_true(d1 < 0.75 * d2);
    assert_true(fabs(T1 - Tu) < fabs(T2 - Tu) || fabs(T1 - Tu) < 1e-3);
    assert_true(fabs(T2 - Tu) < 0.02 * Tu);
}

/* The distance at 2, 1 and 0.5 ms shrinks with the period at least as dt
 * (a held torque lags the law by dt/2 on average) and no faster than dt^2
 * (a ratio above 4.5 would be a cancellation of the hold's error, not
 * convergence).  With every output's feedback in every phase the ratios
 * were 2.04 and 2.04 (8.70e-3, 4.27e-3, 2.09e-3); with the base's phases:
 * kept (foot_b and hip_x_b without feedback in roll), measured 1.011e-2,
 * 2.457e-3, 8.78e-4, ratios 4.11 and 2.80: faster than first order, as the
 * first trial of the damper's phases alone gave (2.8 and 2.5), for a reason
 * not found (the distance is the largest over the free coordinates, whose
 * errors of order dt may partly cancel). */
static void test_tends_to_unsampled(void **state)
{
    (void)state;
    if (!getenv("STRIDEMAP_SLOW_TESTS")) {
        print_message("biped12_3d_sampled: dt -> 0 skipped (STRIDEMAP_SLOW_TESTS=1 runs it)\n");
        skip();
    }
    double zu[SM_MAX_STATE], d[3], T, Tu;
    const double dts[3] = {2e-3, 1e-3, 5e-4};
    unsampled_step(zu, &Tu);
    for (int k = 0; k < 3; k++) sampled_step(dts[k], zu, &d[k], &T);
    print_message("distance from the unsampled step %.3e %.3e %.3e at 2, 1, 0.5 ms (ratios %.3f %.3f)\n", d[0], d[1],
                  d[2], d[0] / d[1], d[1] / d[2]);
    assert_in_range((long)lround(100 * d[0] / d[1]), 170, 450);
    assert_in_range((long)lround(100 * d[1] / d[2]), 170, 450);
}

static json_t *fixed_json(const char *path)
{
    cli_result *r = cli_run("fixed", path, "--json", "--method", "bdf", "--rtol", "1e-10", "--atol", "1e-10", "--tol",
                            "1e-8", NULL);
    if (r->status != 0) fail_msg("fixed %s: exit %d: %s", path, r->status, r->err);
    json_error_t je;
    json_t *doc = json_loads(r->out, 0, &je);
    if (!doc) fail_msg("fixed %s: not JSON (%s)", path, je.text);
    assert_string_equal(json_string_value(json_object_get(doc, "status")), "ok");
    assert_true(json_is_true(json_object_get(doc, "converged")));
    assert_true(json_number_value(json_object_get(doc, "residual")) <= 1e-8);
    return doc;
}

/* The file's header comments as one line (the generator wraps its
 * sentences), malloc'd. */
static char *header_text(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t cap = 1 << 16, n = 0;
    char *h = malloc(cap), line[8192];
    assert_non_null(h);
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        const char *s = line[1] == ' ' ? line + 2 : line + 1;
        size_t len = strcspn(s, "\n");
        if (n + len + 2 > cap) break;
        memcpy(h + n, s, len);
        n += len;
        h[n++] = ' ';
    }
    h[n] = '\0';
    fclose(f);
    return h;
}

#define MAX_STATED 8
typedef struct {
    double re, im;
    char mode[32];
} stated_multiplier;

/* "Multipliers at 1 ms: -1 (heading), 0.0605 (sagittal), 0.1+0.02i
 * (lateral); the rest below 0.001." from the header: the count, *rest the
 * bound on the others. */
static int stated_multipliers(const char *h, stated_multiplier *m, double *rest)
{
    const char *p = strstr(h, "Multipliers at ");
    if (!p) fail_msg("%s's header states no multipliers (scripts/gen_biped12_3d_sampled.py writes them)", SAMPLED);
    p = strchr(p, ':');
    assert_non_null(p);
    p++;
    int n = 0;
    while (n < MAX_STATED) {
        char *end;
        m[n].re = strtod(p, &end);
        assert_true(end != p);
        m[n].im = 0.0;
        if ((*end == '+' || *end == '-') && end[1] >= '0' && end[1] <= '9') {
            p = end;
            m[n].im = strtod(p, &end);
            assert_true(*end == 'i');
            end++;
        }
        assert_int_equal(sscanf(end, " (%31[^)])", m[n].mode), 1);
        p = strchr(end, ')') + 1;
        n++;
        if (*p != ',') break;
        p++;
    }
    const char *r = strstr(p, "the rest below ");
    assert_non_null(r);
    *rest = strtod(r + strlen("the rest below "), NULL);
    return n;
}

/* One unit of the last of the three significant digits the header prints. */
static double last_digit(double re, double im)
{
    const double a = fmax(fabs(re), fabs(im));
    return a > 0 ? pow(10.0, floor(log10(a)) - 2) : 1e-3;
}

/* Newton on the sampled map at 1 ms (6-7 minutes of one core): the gait the
 * header states (scripts/gen_biped12_3d_sampled.py ran the same fixed):
 * each stated multiplier, in its mode, to the digits printed, the rest
 * below the stated bound; the heading's -1 once, the rest inside the unit
 * circle. */
static void test_gait_newton(void **state)
{
    (void)state;
    if (!getenv("STRIDEMAP_SLOW_TESTS") || !cli_exe) {
        print_message("biped12_3d_sampled: Newton skipped (STRIDEMAP_SLOW_TESTS=1 and the program run it)\n");
        skip();
    }
    json_t *gs = fixed_json(src_path(SAMPLED));
    json_t *ev = json_object_get(gs, "eigenvalues"), *modes = json_object_get(gs, "modes");
    const size_t n = json_array_size(ev);
    assert_int_equal(n, 18);
    assert_int_equal(json_array_size(modes), n);
    assert_int_equal(json_array_size(json_object_get(gs, "fixed_point")), 2 * NV + NACT);
    char *h = header_text(src_path(SAMPLED));
    stated_multiplier st[MAX_STATED];
    double rest;
    const int ns = stated_multipliers(h, st, &rest);
    bool used[32] = {false};
    int heading = 0;
    for (size_t i = 0; i < n; i++) {
        const double re = json_number_value(json_array_get(json_array_get(ev, i), 0));
        const double im = json_number_value(json_array_get(json_array_get(ev, i), 1));
        print_message("multiplier %+.6f%+.6fi (%s)\n", re, im, json_string_value(json_array_get(modes, i)));
        if (hypot(re + 1.0, im) < 1e-3) {
            assert_string_equal(json_string_value(json_array_get(modes, i)), "heading");
            heading++;
        } else {
            assert_true(hypot(re, im) < 1.0);
        }
    }
    assert_int_equal(heading, 1);
    for (int k = 0; k < ns; k++) {
        size_t best = n;
        double dmin = INFINITY;
        for (size_t i = 0; i < n; i++) {
            const double re = json_number_value(json_array_get(json_array_get(ev, i), 0));
            const double im = json_number_value(json_array_get(json_array_get(ev, i), 1));
            const double d = hypot(re - st[k].re, im - st[k].im);
            if (!used[i] && d < dmin && strcmp(json_string_value(json_array_get(modes, i)), st[k].mode) == 0) {
                dmin = d;
                best = i;
            }
        }
        if (best == n) fail_msg("the header's %g%+gi (%s) has no multiplier of that mode", st[k].re, st[k].im, st[k].mode);
        used[best] = true;
        print_message("stated %g%+gi (%s): %.3e away\n", st[k].re, st[k].im, st[k].mode, dmin);
        assert_true(dmin <= last_digit(st[k].re, st[k].im));
    }
    for (size_t i = 0; i < n; i++)
        if (!used[i])
            assert_true(hypot(json_number_value(json_array_get(json_array_get(ev, i), 0)),
                              json_number_value(json_array_get(json_array_get(ev, i), 1))) < rest);
    const char *sp = strstr(strstr(h, "Multipliers at "), "Step ");
    assert_non_null(sp);
    const double T = strtod(sp + 5, NULL);
    print_message("step %.6f s, the header's %.5f\n", json_number_value(json_object_get(gs, "step_period")), T);
    assert_true(fabs(json_number_value(json_object_get(gs, "step_period")) - T) <= 1e-5);
    free(h);
    json_decref(gs);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_shape),
        cmocka_unit_test(test_torques_two_derivations),
        cmocka_unit_test(test_step_at_2_and_1ms),
        cmocka_unit_test(test_tends_to_unsampled),
        cmocka_unit_test(test_gait_newton),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
