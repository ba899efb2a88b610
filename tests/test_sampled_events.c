/* Events that a sampled controller's tick sets off (hybrid.c, tick_event):
 * an event function that depends on the held values (a contact's normal
 * force) jumps at a tick, and a jump across zero in the event's direction
 * is a crossing at the tick's instant, which CVODE's root finder, watching
 * continuous crossings only, cannot see.
 * - A toy model whose held value follows h <- a h + b at every tick and
 *   whose events watch h: the event fires at the tick, in its direction
 *   only, behind its guard; the exact Jacobian is a time-triggered switch's
 *   (against the closed form), and is refused where h lands exactly on 0
 *   (the map jumps there).
 * - tests/data/body_models/sampled_liftoff.yaml, a block sliding with
 *   friction and lifted by a sampled force that grows as it slides: the
 *   normal force is constant between samples, and lift-off is at the first
 *   sample where it jumps below zero, k dt, against the closed form
 *   (frictionless) and the recurrence of constant decelerations (with
 *   friction), with the transition to flight; where it never changes
 *   sign nothing fires; the exact Jacobian of its map against the
 *   recurrence's derivative and central differences. */
#include <float.h>

#include "hzd_checks.h"
#include "src_path.h"
#include "stridemap/poincare.h"

/* ---- the toy: a held value h that jumps at each tick ---------------------------- */

/* p: dt, guard level, a, b, time limit */
enum { T_DT, T_LEVEL, T_A, T_B, T_LIMIT, T_NP };

/* state (c, h): c' = 1 (c is the time), h held: h' = 0 */
static int toy_rhs(double t, const double *x, double *xd, const double *p, const void *d)
{
    xd[0] = 1.0;
    xd[1] = 0.0;
    return 0;
}

static double toy_h(double t, const double *x, const double *p, const void *d) { return x[1]; }
static bool toy_guard(double t, const double *x, const double *p, const void *d) { return x[0] > p[T_LEVEL]; }

/* the section: the clock's coordinate back to 0 */
static int toy_reset(const double *xm, double *xp, const double *p, const void *d)
{
    xp[0] = 0.0;
    xp[1] = xm[1];
    return 0;
}

static const sm_event toy_events[] = {
    {.name = "drop", .value = toy_h, .direction = -1, .guard = toy_guard, .outcome = SM_EVENT_SECTION,
     .reset = toy_reset},
    {.name = "rise", .value = toy_h, .direction = 1, .outcome = SM_EVENT_FAIL, .failure = SM_EVENT_ORDER},
};
static const sm_phase toy_phase = {.name = "held", .rhs = toy_rhs, .n_events = 2, .events = toy_events};

static double toy_period(const double *p, const void *d) { return p[T_DT]; }

static int toy_tick(size_t phase, const double *xm, double *xp, const double *p, const void *d)
{
    xp[0] = xm[0];
    xp[1] = p[T_A] * xm[1] + p[T_B];
    return 0;
}

static void toy_lift(double *x, const double *p, const void *d) { x[0] = 0.0; }
static void toy_guess(double *x, const double *p, const void *d) { x[0] = 0.0, x[1] = 3.0; }
static double toy_limit(const double *p, const void *d) { return p[T_LIMIT]; }

static const char *const toy_names[] = {"c", "h"};
static const size_t toy_free[] = {1};
static const sm_param_def toy_params[] = {
    {"dt", 0.125, 1e-6, 1, "", "tick", 0},
    {"level", -1, -10, 10, "", "drop's guard: c above it", 0},
    {"a", 0.5, -10, 10, "", "h <- a h + b", 0},
    {"b", -1, -10, 10, "", "h <- a h + b", 0},
    {"limit", 1, 0, 10, "", "time limit", 0},
};
static const sm_model toy = {.name = "held_toy",
                             .title = "a held value jumping at ticks",
                             .reference = "test",
                             .n_state = 2,
                             .state_names = toy_names,
                             .n_params = T_NP,
                             .params = toy_params,
                             .n_phases = 1,
                             .phases = &toy_phase,
                             .n_free = 1,
                             .free_index = toy_free,
                             .lift = toy_lift,
                             .guess = toy_guess,
                             .time_limit = toy_limit,
                             .clock_period = toy_period,
                             .clock_reset = toy_tick};

/* t within round-off of the tick k dt */
static void assert_at_tick(double t, int k, double dt)
{
    const double tick = (double)k * dt;
    if (!(fabs(t - tick) <= 4 * DBL_EPSILON * tick)) fail_msg("event at t = %.17g, not at the tick %d dt = %.17g", t, k, tick);
}

/* From h = 3 the ticks give 0.5, then -0.75: "drop" (falling) fires at
 * the second tick with the state after it, "rise" does not; from h = -3
 * with b = +1 they give -0.5, then 0.75: "rise" fires there, "drop" not. */
static void test_toy_fires_at_the_tick_in_its_direction(void **state)
{
    (void)state;
    double p[T_NP];
    sm_model_default_params(&toy, p);
    sm_workspace *ws = test_workspace(&toy, 1e-12, SM_METHOD_ADAMS);
    double x[2] = {0.0, 3.0}, t = 0.0;
    size_t e = 99;
    assert_status(sm_hybrid_flow(ws, p, 0, &t, x, 1.0, NULL, &e), SM_OK);
    assert_string_equal(toy_events[e].name, "drop");
    assert_at_tick(t, 2, p[T_DT]);
    assert_close(x[1], -0.75, 1e-15);
    assert_close(x[0], t, 1e-12);

    p[T_B] = 1.0;
    double y[2] = {0.0, -3.0};
    t = 0.0;
    assert_status(sm_hybrid_flow(ws, p, 0, &t, y, 1.0, NULL, &e), SM_OK);
    assert_string_equal(toy_events[e].name, "rise");
    assert_at_tick(t, 2, p[T_DT]);
    assert_close(y[1], 0.75, 1e-15);
    /* the stride ends with the event's outcome */
    double yo[2];
    y[0] = 0.0, y[1] = -3.0;
    assert_status(sm_stride(ws, p, y, yo, NULL, NULL), SM_EVENT_ORDER);

    /* a jump that stays on one side: h from 3 with a = 0.5, b = 0 halves
     * and never reaches 0; nothing fires up to the time limit */
    p[T_B] = 0.0;
    double z[2] = {0.0, 3.0};
    t = 0.0;
    assert_status(sm_hybrid_flow(ws, p, 0, &t, z, 1.0, NULL, &e), SM_NO_HEELSTRIKE);
    assert_close(t, 1.0, 1e-15);
    assert_close(z[1], 3.0 / 128.0, 1e-15); /* seven ticks: the one at the end is not taken */
    sm_workspace_free(ws);
}

/* A crossing whose guard fails at the tick does not count, as a root's
 * would not: from h = 3 "drop" waits for c above 0.3, and h stays below
 * 0 after the second tick (0.25), so the flow runs to its end. */
static void test_toy_guard(void **state)
{
    (void)state;
    double p[T_NP];
    sm_model_default_params(&toy, p);
    p[T_LEVEL] = 0.3;
    sm_workspace *ws = test_workspace(&toy, 1e-12, SM_METHOD_BDF);
    double x[2] = {0.0, 3.0}, t = 0.0;
    size_t e = 99;
    assert_status(sm_hybrid_flow(ws, p, 0, &t, x, 1.0, NULL, &e), SM_NO_HEELSTRIKE);
    assert_close(t, 1.0, 1e-15);
    sm_workspace_free(ws);
}

/* The map P(h0) = h after the tick that takes it below 0: for 2 < h0 < 6
 * that is the second, P = (h0/2 - 1)/2 - 1 = h0/4 - 3/2, dP/dh0 = 1/4.
 * The event's time is the tick's whatever h0 nearby, so the saltation is
 * the reset's Jacobian alone (a root's saltation would divide by
 * dg/dt = 0).  At h0 = 2 the first tick lands exactly on 0: the event
 * fires there, but h0 a little above 2 fires a tick later, so P jumps
 * and the exact Jacobian is refused with a named status. */
static void test_toy_exact_jacobian(void **state)
{
    (void)state;
    double p[T_NP];
    sm_model_default_params(&toy, p);
    sm_workspace *ws = test_workspace(&toy, 1e-12, SM_METHOD_ADAMS);
    double z = 3.0, zo = 0.0, J = 0.0, Jd = 0.0;
    long evals = 0;
    assert_status(sm_map_jacobian_exact(ws, p, 1, &z, &zo, &J, &evals), SM_OK);
    assert_close(zo, 3.0 / 4.0 - 1.5, 1e-15);
    assert_close(J, 0.25, 1e-9);
    assert_status(sm_map_jacobian(ws, p, 1, &z, NULL, 1e-6, true, &Jd, &evals), SM_OK);
    assert_close(Jd, 0.25, 1e-9);

    z = 2.0;
    double x[2] = {0.0, 2.0}, xo[2];
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, xo, &mt, NULL), SM_OK);
    assert_close(xo[1], 0.0, 0.0);
    assert_at_tick(mt.period, 1, p[T_DT]);
    assert_status(sm_map_jacobian_exact(ws, p, 1, &z, &zo, &J, &evals), SM_NO_EXACT_JACOBIAN);
    sm_workspace_free(ws);
}

/* ---- the sliding block lifted by a sampled force ------------------------------- */

#define BLOCK "tests/data/body_models/sampled_liftoff.yaml"
#define MASS 2.0
#define G 9.81

typedef struct {
    int k;          /* the lift-off's tick, 0 if the block reaches x = 1 first */
    double t;       /* k dt, or the time x = 1 */
    double x, v;    /* there */
    double dv;      /* dv/dv0 there */
} block_run;

/* The block on the ground from x = 0, x' = v0 (the model file's header):
 * at each sample k dt the force u_k = c0 + c1 x_k is held, N_k = m g - u_k,
 * and x'' = -mu N_k / m until the next.  Lift-off at the first k >= 1 with
 * N_k <= 0; the sensitivity to v0 carried along the same recurrence. */
static block_run block_recurrence(double c0, double c1, double mu, double dt, double v0)
{
    double x = 0.0, v = v0, dx = 0.0, dv = 1.0;
    for (int k = 0;; k++) {
        if (!(v > 0) || k > 100000) fail_msg("the block stops before x = 1 (k = %d, v = %g)", k, v);
        const double N = MASS * G - (c0 + c1 * x);
        if (k > 0 && N <= 0) return (block_run){k, (double)k * dt, x, v, dv};
        const double a = -mu * N / MASS, da = mu * c1 * dx / MASS;
        const double x1 = x + v * dt + 0.5 * a * dt * dt;
        if (x1 >= 1.0) {
            /* x = 1 inside this interval: (a/2) tau^2 + v tau - (1 - x) = 0 */
            const double d = 1.0 - x, tau = 2 * d / (v + sqrt(v * v + 2 * a * d));
            return (block_run){0, (double)k * dt + tau, 1.0, v + a * tau, NAN};
        }
        dx += dv * dt + 0.5 * da * dt * dt;
        dv += da * dt;
        x = x1;
        v += a * dt;
    }
}

static size_t event_index(const sm_model *m, size_t phase, const char *name)
{
    for (size_t e = 0; e < m->phases[phase].n_events; e++)
        if (strcmp(m->phases[phase].events[e].name, name) == 0) return e;
    fail_msg("no event '%s' in phase %zu", name, phase);
    return 0;
}

/* The events of a stride, in order. */
typedef struct {
    int n;
    char name[4][32];
    double t[4];
    size_t phase[4];
    double held[4]; /* the held force in the state the event saw */
} event_log;

static int log_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    event_log *l = ctx;
    if (l->n < 4) {
        snprintf(l->name[l->n], sizeof l->name[l->n], "%s", name);
        l->t[l->n] = t;
        l->phase[l->n] = phase;
        l->held[l->n++] = xm[4];
    }
    return 0;
}

/* Frictionless, x = v0 t, and the lift-off is at the first sample after
 * the continuous force's t* = (m g - c0) / (c1 v0): k = ceil(t* / dt)
 * (t* / dt at 48.1 and 174.05 here, off the samples). */
static void test_block_liftoff_closed_form(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(BLOCK));
    assert_int_equal(sm_model_state_index(m, "lift.held"), 4);
    const size_t liftoff = event_index(m, 0, "liftoff");
    const double cases[2][4] = {{10, 20, 1.0, 0.01}, {5, 30, 0.7, 0.004}}; /* c0, c1, v0, dt */
    for (int c = 0; c < 2; c++) {
        const double c0 = cases[c][0], c1 = cases[c][1], v0 = cases[c][2], dt = cases[c][3];
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
        sm_model_default_params(m, p);
        set_param(m, p, "c0", c0), set_param(m, p, "c1", c1), set_param(m, p, "mu", 0), set_param(m, p, "dt", dt);
        sm_model_lift(m, p, &v0, x);
        assert_close(x[4], c0, 1e-12); /* the clock starts on the section: a sample */
        const int k = (int)ceil((MASS * G - c0) / (c1 * v0 * dt));
        sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_ADAMS);
        double t = 0.0;
        size_t e = 99;
        assert_status(sm_hybrid_flow(ws, p, 0, &t, x, 5.0, NULL, &e), SM_OK);
        assert_int_equal(e, liftoff);
        assert_at_tick(t, k, dt);
        assert_close(x[0], v0 * t, 1e-10);
        /* the state the event sees is the one after the sample: its force
         * is the new held one, above m g */
        assert_close(x[4], c0 + c1 * v0 * t, 1e-9);
        assert_true(x[4] > MASS * G && c0 + c1 * v0 * (k - 1) * dt < MASS * G);
        /* the stride: lift-off into flight, then the section from there */
        sm_model_lift(m, p, &v0, x);
        event_log log = {0};
        sm_observer obs = {.event = log_event, .ctx = &log};
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, xo, &mt, &obs), SM_OK);
        assert_int_equal(log.n, 2);
        assert_string_equal(log.name[0], "liftoff");
        assert_int_equal(log.phase[0], 0);
        assert_at_tick(log.t[0], k, dt);
        assert_string_equal(log.name[1], "up");
        assert_int_equal(log.phase[1], 1);
        assert_true(log.t[1] > log.t[0]);
        print_message("c0 %g c1 %g v0 %g dt %g: lift-off at %.17g = %d dt, section at %.9f\n", c0, c1, v0, dt,
                      log.t[0], k, mt.period);
        sm_workspace_free(ws);
    }
    sm_registry_close(m);
}

/* With friction the block slows by mu N_k / m between samples: the flow's
 * lift-off against the recurrence, and the exact Jacobian of the map
 * (the speed at lift-off, which flight keeps) against the recurrence's
 * derivative and against central differences. */
static void test_block_liftoff_with_friction(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(BLOCK));
    const size_t liftoff = event_index(m, 0, "liftoff");
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const double v0 = 1.0;
    const block_run r = block_recurrence(10, 20, 0.2, 0.01, v0);
    assert_true(r.k > 0);
    sm_model_lift(m, p, &v0, x);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
    double t = 0.0;
    size_t e = 99;
    assert_status(sm_hybrid_flow(ws, p, 0, &t, x, 5.0, NULL, &e), SM_OK);
    assert_int_equal(e, liftoff);
    assert_at_tick(t, r.k, 0.01);
    assert_close(x[0], r.x, 1e-9);
    assert_close(x[2], r.v, 1e-9);

    double z = v0, zo = 0.0, Je = 0.0, Jd = 0.0;
    long evals = 0;
    assert_status(sm_map_jacobian_exact(ws, p, 1, &z, &zo, &Je, &evals), SM_OK);
    /* h = 1e-4 moves N at the ticks by about 1e-3, far from changing the
     * lift-off's tick (N is 0.13 before it, -0.018 after) */
    assert_status(sm_map_jacobian(ws, p, 1, &z, NULL, 1e-4, true, &Jd, &evals), SM_OK);
    print_message("lift-off at %d dt, speed %.12f (recurrence %.12f); dP/dv0 exact %.10f, central %.10f, "
                  "recurrence %.10f\n", r.k, zo, r.v, Je, Jd, r.dv);
    assert_close(zo, r.v, 1e-9);
    assert_close(Je, r.dv, 1e-8);
    assert_close(Jd, r.dv, 1e-7);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* A force that grows too little never exceeds m g: the normal force jumps
 * down at every sample but stays positive, nothing fires, and the stride
 * ends at x = 1 when the recurrence says (less friction, so that the block
 * gets there). */
static void test_block_no_sign_change(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(BLOCK));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(m, p);
    set_param(m, p, "c1", 5);
    set_param(m, p, "mu", 0.05);
    const double v0 = 1.0;
    const block_run r = block_recurrence(10, 5, 0.05, 0.01, v0);
    assert_int_equal(r.k, 0);
    sm_model_lift(m, p, &v0, x);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_ADAMS);
    event_log log = {0};
    sm_observer obs = {.event = log_event, .ctx = &log};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, xo, &mt, &obs), SM_OK);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.name[0], "far");
    assert_close(mt.period, r.t, 1e-9);
    assert_close(xo[2], r.v, 1e-9);
    print_message("no lift-off: x = 1 at %.12f (recurrence %.12f)\n", mt.period, r.t);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy_fires_at_the_tick_in_its_direction),
        cmocka_unit_test(test_toy_guard),
        cmocka_unit_test(test_toy_exact_jacobian),
        cmocka_unit_test(test_block_liftoff_closed_form),
        cmocka_unit_test(test_block_liftoff_with_friction),
        cmocka_unit_test(test_block_no_sign_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
