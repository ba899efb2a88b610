/* An event due at a phase's start (src/body/events.c's start-up ramp on
 * the phase's event clock, hybrid_internal.h): the block of
 * tests/data/body_models/latch_release.yaml is released from its latch at
 * x = a with the ground's normal force already negative, and lifts off at
 * once, t = a / v (x = v t); its flight ends at the closed form's time.
 * With the force ramp in the stride's first phase only (as the position
 * ramp still is) the lift-off was never seen and the stride ran into its
 * time limit (no_heelstrike). */
#include <string.h>

#include "src_path.h"
#include "stridemap/poincare.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

/* The start-up ramp lasts 1e-9 s (START_TAU): an event due at a phase's
 * start fires within it, give or take the root's tolerance (1e-14 s). */
#define RAMP (1e-9 + 1e-13)

/* The model file at its defaults p[] and a workspace for it with method. */
static const sm_model *open_block(double *p, sm_method method, sm_workspace **ws)
{
    const sm_model *m = NULL;
    char why[512] = "";
    if (sm_registry_open(src_path("tests/data/body_models/latch_release.yaml"), &m, why, sizeof why) != SM_OK)
        fail_msg("%s", why);
    sm_model_default_params(m, p);
    *ws = test_workspace(m, 1e-12, method);
    return m;
}

static size_t phase_of(const sm_model *m, const char *name)
{
    for (size_t ph = 0; ph < m->n_phases; ph++)
        if (strcmp(m->phases[ph].name, name) == 0) return ph;
    fail_msg("no phase %s", name);
    return 0;
}

typedef struct {
    size_t n;
    char name[8][16];
    double t[8], z[8], zdot[8];
} event_log;

static int log_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)phase, (void)xp;
    event_log *L = ctx;
    if (L->n < 8) {
        snprintf(L->name[L->n], sizeof L->name[L->n], "%s", name);
        L->t[L->n] = t, L->z[L->n] = xm[1], L->zdot[L->n] = xm[3];
        L->n++;
    }
    return 0;
}

/* The flight's time from the ground at rest to height h: z = A (1 - cos w t). */
static double flight_time(const sm_model *m, const double *p)
{
    const double k = p[sm_model_param_index(m, "k")], r = p[sm_model_param_index(m, "r")];
    const double h = p[sm_model_param_index(m, "h")], mass = 2.0, g = 9.81;
    const double A = r - mass * g / k, w = sqrt(k / mass);
    return acos(1.0 - h / A) / w;
}

/* One stride from x = 0 at speed v with the latch letting go at a: the
 * three events in order, the release at a / v, the lift-off within the
 * ramp after it with the block still on the ground, the rise at the
 * flight's closed-form time after that, which is the period's end.  With
 * an explicit Runge-Kutta pair (hybrid_arkode.c) too. */
static void check_stride(double a, double v, sm_method method)
{
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_workspace *ws;
    const sm_model *m = open_block(p, method, &ws);
    set_param(m, p, "a", a);
    m->guess(x, p, m->data);
    x[2] = v;
    event_log L = {0};
    const sm_observer obs = {.event = log_event, .ctx = &L};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_OK);
    static const char *const want[] = {"release", "liftoff", "rising"};
    assert_int_equal(L.n, 3);
    for (size_t k = 0; k < 3; k++) assert_string_equal(L.name[k], want[k]);
    const double t1 = a / v, tf = flight_time(m, p);
    print_message("a = %g, v = %g (%s): release at %.12g, lift-off %.3g s after it, rise %.12g s after that "
                  "(closed form %.12g)\n", a, v, sm_method_name(method), L.t[0], L.t[1] - L.t[0], L.t[2] - L.t[1],
                  tf);
    /* a position is integrated exactly (x'' = 0); the root to CVODE's and
     * refine_root's tolerance */
    assert_close(L.t[0], t1, 1e-12 * (1 + t1));
    if (!(L.t[1] >= L.t[0] && L.t[1] - L.t[0] <= RAMP))
        fail_msg("liftoff at %.17g, %.3g s after the release: not at its phase's start", L.t[1], L.t[1] - L.t[0]);
    /* the bottom has not moved off the ground: z'' = (k r - m g) / m is
     * 15 m/s^2, over a few ns */
    for (size_t k = 0; k < 2; k++) assert_true(fabs(L.z[k]) < 1e-15 && fabs(L.zdot[k]) < 1e-7);
    assert_close(L.t[2] - L.t[1], tf, 1e-9);
    assert_close(mt.period, L.t[2], 0.0);
    assert_close(mt.period, t1 + tf, RAMP + 1e-9);
    assert_close(y[2], v, 1e-12);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

static void test_stride_events_at_phase_starts(void **state)
{
    (void)state;
    check_stride(0.5, 1.0, SM_METHOD_ADAMS);
    check_stride(0.3, 2.0, SM_METHOD_BDF);
    check_stride(1.5, 1.2, SM_METHOD_ERK8);
}

/* The phase's clock starts at each flow's start: a flow of `pressed` from
 * the ground at rest finds the lift-off within the ramp whether it starts
 * at 0 (as a stride's first phase) or later. */
static void test_flow_at_any_start(void **state)
{
    (void)state;
    double p[SM_MAX_PARAMS];
    sm_workspace *ws;
    const sm_model *m = open_block(p, SM_METHOD_ADAMS, &ws);
    static const char *const phases[][2] = {{"pressed", "liftoff"}};
    for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++) {
        const size_t ph = phase_of(m, phases[k][0]);
        double after[2];
        static const double starts[] = {0.0, 0.37};
        for (size_t s = 0; s < 2; s++) {
            double x[4] = {0.2, 0.0, 1.0, 0.0}, t = starts[s];
            size_t e = 99;
            assert_status(sm_hybrid_flow(ws, p, ph, &t, x, starts[s] + 1.0, NULL, &e), SM_OK);
            assert_string_equal(m->phases[ph].events[e].name, phases[k][1]);
            after[s] = t - starts[s];
            if (!(after[s] >= 0 && after[s] <= RAMP))
                fail_msg("%s from t = %g: %s after %.3g s, not at the start", phases[k][0], starts[s], phases[k][1],
                         after[s]);
        }
        assert_close(after[1], after[0], 1e-13);
    }
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* The exact Jacobian through events at phases' starts: every speed is a
 * fixed point, P(v) = v, so dP/dv = 1. */
static void test_exact_jacobian(void **state)
{
    (void)state;
    double p[SM_MAX_PARAMS];
    sm_workspace *ws;
    const sm_model *m = open_block(p, SM_METHOD_ADAMS, &ws);
    const double z = 1.3;
    double z_out, J;
    long evals = 0;
    assert_status(sm_map_jacobian_exact(ws, p, 1, &z, &z_out, &J, &evals), SM_OK);
    assert_close(z_out, z, 1e-12);
    assert_close(J, 1.0, 1e-9);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stride_events_at_phase_starts),
        cmocka_unit_test(test_flow_at_any_start),
        cmocka_unit_test(test_exact_jacobian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
