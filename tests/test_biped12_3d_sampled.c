/* models/biped12_3d_sampled.yaml (issue 15, item 4): the 3-D biped under
 * a controller sampled at a fixed period, each sample an event, over
 * continuous joint dampers (scripts/gen_biped12_3d_sampled.py, the file's
 * header).
 *
 * - The file is models/biped12_3d.yaml's walker with eight held torques
 *   after its 36 states, the same free coordinates, the law's velocity
 *   gain moved into the dampers (c_joint = c + kd, kd 0) and fed forward.
 * - Two derivations of the torques agree: along the continuous file's
 *   gait the sampled law minus the dampers' extra drag is the continuous
 *   file's law (its kd y' term from its own velocities, the sampled
 *   file's from the feed-forward splines).
 * - A step at 2 ms: the held torques change only across t = k dt, at
 *   nearly every multiple; the step ends on its section, within O(dt) of
 *   the step of the same law unsampled (the file without `sampling:`).
 * - STRIDEMAP_SLOW_TESTS=1: that distance halves with dt (1 ms, 0.5 ms),
 *   and `fixed` finds the sampled gait at 1 ms, stable but for the
 *   heading's -1, near the unsampled law's. */
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
    assert_close(param(ms, ps, "c_joint"), param(mb, pb, "c_joint") + param(mb, pb, "kd"), 1e-12);
    sm_registry_close(ms);
    sm_registry_close(mb);
}

/* u_sampled - kd q' = u_base along the continuous file's gait (its guess),
 * sampled every 10 ms: the base's law has -kd (q' - h'(s) s'), from its
 * own velocities; the sampled file's the feed-forward kd h'(s) s'_nom(s),
 * natural splines through 16 knots of s'_nom read by the generator from
 * the same gait's rows, 2 ms apart.  They differ by the splines' fit
 * (16 knots round the kinks of s' at the heel-off and the heel-strike)
 * and, in the first 5 ms of the step, a transient of s' (1.105 at the
 * section, 1.23 5 ms later) that the knot at 0 does not see: compared for
 * s in [0.02, 0.98], against the size of the drag kd q' the feed-forward
 * stands in for. */
typedef struct {
    const sm_model *mb, *ms;
    const double *pb, *ps;
    double worst, big, drag;
    int n;
} law_pair;

static int compare_laws(void *ctx, double t, size_t phase, const double *x)
{
    (void)t;
    law_pair *c = ctx;
    const body_model *bb = c->mb->data, *bs = c->ms->data;
    const double th0 = param(c->mb, c->pb, "theta_start"), th1 = param(c->mb, c->pb, "theta_end");
    const double s = (x[sm_model_state_index(c->mb, "hat")] + x[sm_model_state_index(c->mb, "thigh_a")] - th0) /
                     (th1 - th0);
    if (s < 0.02 || s > 0.98) return 0;
    BODY_EVAL_MEM(mb_mem, bb);
    BODY_EVAL_MEM(ms_mem, bs);
    body_eval eb, es;
    double ub[NACT], us[NACT], xs[SM_MAX_STATE] = {0};
    memcpy(xs, x, 2 * NV * sizeof *xs);
    if (body_eval_init(&eb, bb, c->pb, mb_mem, NULL, 0) != SM_OK || body_control_law_at(&eb, phase, x, ub) != SM_OK ||
        body_eval_init(&es, bs, c->ps, ms_mem, NULL, 0) != SM_OK || body_control_law_at(&es, phase, xs, us) != SM_OK)
        return 1;
    const double kd = param(c->mb, c->pb, "kd");
    for (size_t j = 0; j < NACT; j++) {
        const double qd = x[sm_model_state_index(c->mb, joints[j]) + NV];
        c->worst = fmax(c->worst, fabs(us[j] - kd * qd - ub[j]));
        c->big = fmax(c->big, fabs(ub[j]));
        c->drag = fmax(c->drag, fabs(kd * qd));
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
    law_pair c = {.mb = mb, .ms = ms, .pb = pb, .ps = ps};
    sm_observer obs = {.dt = 0.01, .sample = compare_laws, .ctx = &c};
    sm_workspace *ws = hzd_workspace(mb, 1e-10, SM_METHOD_BDF);
    assert_status(sm_stride(ws, pb, x, xo, NULL, &obs), SM_OK);
    print_message("over %d samples: largest difference %.3e N m; largest torque %.3e, largest kd q' %.3e\n", c.n,
                  c.worst, c.big, c.drag);
    assert_true(c.n > 100);
    assert_true(c.big > 10.0 && c.drag > 50.0);
    /* measured 3.8 N m, at the heel-strike's kink of s' (knee_b, s = 0.77),
     * 2.1 at the heel-off's; elsewhere below 1.2 */
    assert_true(c.worst < 0.05 * c.drag);
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

/* The unsampled law's step from the same start (free coordinates). */
static void unsampled_step(double *z)
{
    const sm_model *mu = hzd_open_file(unsampled_file());
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(mu, p);
    mu->guess(x, p, mu->data);
    sm_model_to_section(mu, p, x, x);
    sm_workspace *ws = hzd_workspace(mu, 1e-10, SM_METHOD_BDF);
    assert_status(sm_stride(ws, p, x, xo, NULL, NULL), SM_OK);
    sm_model_free(mu, xo, z);
    sm_workspace_free(ws);
    sm_registry_close(mu);
}

static void test_step_at_2ms(void **state)
{
    (void)state;
    double zu[SM_MAX_STATE], d, T;
    unsampled_step(zu);
    sampled_step(2e-3, zu, &d, &T);
    print_message("a step at 2 ms: %.4f s, %.3e from the unsampled law's step\n", T, d);
    assert_true(T > 1.2 && T < 1.6);
    /* measured 4.089e-3: about 2 dt (rates in rad/s), as the slow test's
     * halving says */
    assert_true(d > 0.5 * 2e-3 && d < 4 * 2e-3);
}

/* O(dt): the distance at 2, 1 and 0.5 ms halves with the period (a held
 * torque lags the law by dt/2 on average): measured 4.089e-3, 2.022e-3,
 * 1.000e-3, ratios 2.023 and 2.021.  At 0.5 ms the stance heel lifts at
 * one sample and lands again before the next lifts it for good (the
 * file's heel_down impact); at 1 and 2 ms it lifts once. */
static void test_tends_to_unsampled(void **state)
{
    (void)state;
    if (!getenv("STRIDEMAP_SLOW_TESTS")) {
        print_message("biped12_3d_sampled: dt -> 0 skipped (STRIDEMAP_SLOW_TESTS=1 runs it)\n");
        skip();
    }
    double zu[SM_MAX_STATE], d[3], T;
    const double dts[3] = {2e-3, 1e-3, 5e-4};
    unsampled_step(zu);
    for (int k = 0; k < 3; k++) sampled_step(dts[k], zu, &d[k], &T);
    print_message("distance from the unsampled step %.3e %.3e %.3e at 2, 1, 0.5 ms (ratios %.3f %.3f)\n", d[0], d[1],
                  d[2], d[0] / d[1], d[1] / d[2]);
    assert_in_range((long)lround(100 * d[0] / d[1]), 170, 230);
    assert_in_range((long)lround(100 * d[1] / d[2]), 170, 230);
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

/* Newton on the sampled map at 1 ms (69 strides, 6-7 minutes of one
 * core): a gait, stable but for the heading's -1 (the mirror turns a
 * heading h into -h; measured: the next 0.0605), within O(dt) of the
 * unsampled law's gait (measured 2.031e-3, foot_b's rate: about 2 dt). */
static void test_gait_newton(void **state)
{
    (void)state;
    if (!getenv("STRIDEMAP_SLOW_TESTS") || !cli_exe) {
        print_message("biped12_3d_sampled: Newton skipped (STRIDEMAP_SLOW_TESTS=1 and the program run it)\n");
        skip();
    }
    json_t *gs = fixed_json(src_path(SAMPLED)), *gu = fixed_json(unsampled_file());
    json_t *ev = json_object_get(gs, "eigenvalues"), *modes = json_object_get(gs, "modes");
    assert_int_equal(json_array_size(ev), 18);
    int heading = 0;
    double second = 0.0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        const double re = json_number_value(json_array_get(json_array_get(ev, i), 0));
        const double im = json_number_value(json_array_get(json_array_get(ev, i), 1));
        if (hypot(re + 1.0, im) < 1e-3) {
            assert_string_equal(json_string_value(json_array_get(modes, i)), "heading");
            heading++;
        } else {
            second = fmax(second, hypot(re, im));
        }
    }
    assert_int_equal(heading, 1);
    print_message("sampled gait: largest multiplier but the heading's %.4f\n", second);
    assert_true(second < 1.0);
    json_t *xs = json_object_get(gs, "fixed_point"), *xu = json_object_get(gu, "fixed_point");
    assert_int_equal(json_array_size(xs), 2 * NV + NACT);
    assert_int_equal(json_array_size(xu), 2 * NV);
    double d = 0.0;
    for (size_t i = 0; i < 2 * NV; i++)
        d = fmax(d, fabs(json_number_value(json_array_get(xs, i)) - json_number_value(json_array_get(xu, i))));
    print_message("sampled gait %.3e from the unsampled law's\n", d);
    assert_true(d < 4 * 1e-3);
    json_decref(gs);
    json_decref(gu);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_shape),
        cmocka_unit_test(test_torques_two_derivations),
        cmocka_unit_test(test_step_at_2ms),
        cmocka_unit_test(test_tends_to_unsampled),
        cmocka_unit_test(test_gait_newton),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
