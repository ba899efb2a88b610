/* The stride function P (stride.h): the simplest walker's published gait,
 * step metrics against their definitions and the energy balance, falls,
 * bad input, and the rimless wheel's closed-form stride.
 */
#include <stdbool.h>

#include "test_util.h"

/* Remembers the last counted event's pre- and post-reset states. */
typedef struct {
    int n;
    char name[64];
    double t, xm[SM_MAX_STATE], xp[SM_MAX_STATE];
} event_log;

static int log_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)phase;
    event_log *l = ctx;
    l->n++;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->t = t;
    memcpy(l->xm, xm, 4 * sizeof *xm);
    memcpy(l->xp, xp, 4 * sizeof *xp);
    return 0;
}

static void test_published_gait_maps_to_itself(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4], y[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, y, &mt, NULL), SM_OK);
    for (int i = 0; i < 4; i++) assert_close(y[i], x[i], 1e-8);
    assert_int_equal(mt.n_events, 1);

    /* x_out may alias x_in (sm_poincare relies on it). */
    double z[4];
    memcpy(z, x, sizeof z);
    assert_status(sm_stride(ws, p, z, z, NULL, NULL), SM_OK);
    for (int i = 0; i < 4; i++) assert_close(z[i], y[i], 0.0);
    sm_workspace_free(ws);
}

/* step_length = 2 sin(theta*) (the two feet on the slope, legs of length
 * 1), speed = step_length / period, the heel-strike map of Garcia et al.
 * (1998), the stance leg's kinetic energy lost at impact
 * theta_dot-^2/2 (1 - cos^2 2theta-), and that this loss equals the potential
 * energy released over the step, cos(theta+ - gamma) - cos(theta- - gamma). */
static void test_step_metrics_and_energy_balance(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double gamma = GARCIA_GAMMA, p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4], y[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);
    event_log log = {0};
    sm_observer obs = {.event = log_event, .ctx = &log};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_OK);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.name, "heelstrike");
    assert_close(log.t, mt.period, 0.0);
    for (int i = 0; i < 4; i++) assert_close(log.xp[i], y[i], 0.0);

    const double th_m = log.xm[0], thd_m = log.xm[1];
    /* The heel-strike surface, stance leg past vertical, symmetric gait. */
    assert_close(log.xm[2], 2.0 * th_m, 1e-9);
    assert_close(th_m, -GARCIA_STABLE_THETA, 1e-8);

    /* The heel-strike map, from angular momentum about the new contact. */
    const double c2 = cos(2.0 * th_m);
    assert_close(log.xp[0], -th_m, 1e-15);
    assert_close(log.xp[1], c2 * thd_m, 1e-15);
    assert_close(log.xp[2], -2.0 * th_m, 1e-15);
    assert_close(log.xp[3], c2 * (1.0 - c2) * thd_m, 1e-15);

    assert_true(mt.period > 3.0 && mt.period < 5.0);
    assert_close(mt.step_length, 2.0 * sin(GARCIA_STABLE_THETA), 1e-8);
    assert_close(mt.step_length, 2.0 * sin(-th_m), 1e-14);
    assert_close(mt.speed, mt.step_length / mt.period, 1e-15);

    const double loss = 0.5 * thd_m * thd_m * (1.0 - c2 * c2);
    assert_close(mt.impact_energy_loss, loss, 1e-14);
    const double released = cos(x[0] - gamma) - cos(th_m - gamma);
    print_message("impact loss %.15g, potential energy released %.15g\n", mt.impact_energy_loss, released);
    assert_true(loss > 0);
    assert_close(mt.impact_energy_loss, released, 1e-9);
    /* Swing energy conserved from x to the pre-impact state. */
    assert_close(0.5 * thd_m * thd_m + cos(th_m - gamma), 0.5 * x[1] * x[1] + cos(x[0] - gamma), 1e-9);
    sm_workspace_free(ws);
}

static void test_falls(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double gamma = GARCIA_GAMMA, p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4], y[4];
    sm_step_metrics mt;
    event_log log = {0};
    sm_observer obs = {.event = log_event, .ctx = &log};

    /* Too slow to pass vertical: the stance leg stops and rolls back. */
    simplest_on_section(0.2, -0.01, x);
    assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_FELL_BACKWARD);
    assert_true(isnan(mt.period));
    assert_close(y[1], 0.0, 1e-9); /* it ended where theta_dot = 0 */
    assert_true(y[0] > 0);
    assert_int_equal(log.n, 1); /* the failure event is reported too */

    /* Too fast: the swing leg is flung forward and never comes down in
     * front; the stance leg falls until the hip hits the ground at
     * theta - gamma = -pi/2. */
    const double fast[] = {-1.5, -1.0, -3.0};
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++) {
        simplest_on_section(0.2, fast[i], x);
        assert_status(sm_stride(ws, p, x, y, &mt, NULL), SM_FELL_FORWARD);
        assert_close(y[0], gamma - M_PI_2, 1e-8);
        assert_true(isnan(mt.period));
    }

    /* Starting backwards (theta_dot > 0): over the back, hip down behind at
     * theta - gamma = +pi/2. */
    simplest_on_section(0.2, 0.1, x);
    assert_status(sm_stride(ws, p, x, y, &mt, NULL), SM_FELL_BACKWARD);
    assert_close(y[0], gamma + M_PI_2, 1e-8);
    sm_workspace_free(ws);
}

static void test_bad_state(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t b = 0; b < 3; b++)
        for (int i = 0; i < 4; i++) {
            double x[4], y[4];
            simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);
            x[i] = bad[b];
            sm_step_metrics mt;
            assert_status(sm_stride(ws, p, x, y, &mt, NULL), SM_BAD_STATE);
            assert_true(isnan(mt.period));
        }
    sm_counters c;
    sm_workspace_counters(ws, &c);
    assert_int_equal(c.flows, 0); /* rejected before any integration */
    sm_workspace_free(ws);
}

/* Rimless wheel (McGeer 1990): energy over one spoke,
 *   theta_dot-^2 = theta_dot+^2 + 4 (g/l) sin(alpha) sin(gamma),
 * then the strike theta_dot' = cos(2 alpha) theta_dot-; theta' = alpha. */
static void test_rimless_closed_form_stride(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    const double params[][SM_MAX_PARAMS] = {{10, 0.08, 9.81, 1.0}, {6, 0.3, 9.81, 1.0}, {16, 0.05, 1.0, 0.8}};
    const double starts[] = {-1.0, -2.0, -4.0, -7.5};
    /* rtol = atol = 1e-12: at the default 1e-10 a slow start that barely
     * vaults (theta_dot+ = -1 with the defaults) is off by 4e-9 in
     * theta_dot-^2, too much for 1e-9. */
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    for (size_t k = 0; k < 3; k++) {
        const double *p = params[k];
        const double alpha = M_PI / p[0], gl = p[2] / p[3];
        const double K = 4.0 * gl * sin(alpha) * sin(p[1]);
        for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
            double x[2] = {alpha, starts[i]}, y[2];
            event_log log = {0};
            sm_observer obs = {.event = log_event, .ctx = &log};
            sm_step_metrics mt;
            assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_OK);
            assert_string_equal(log.name, "spoke_strike");
            const double thd_m = log.xm[1];
            assert_close(log.xm[0], -alpha, 1e-9);
            assert_close(thd_m * thd_m, x[1] * x[1] + K, 1e-9 * fmax(1.0, K + x[1] * x[1]));
            assert_close(y[1], cos(2.0 * alpha) * thd_m, 1e-14);
            assert_close(y[1], -cos(2.0 * alpha) * sqrt(x[1] * x[1] + K), 1e-9 * fmax(1.0, fabs(y[1])));
            assert_close(y[0], alpha, 1e-9);
            assert_close(mt.step_length, 2.0 * p[3] * sin(alpha), 1e-14);
            assert_close(mt.speed, mt.step_length / mt.period, 1e-14);
            /* Kinetic energy lost at the strike, per unit hub mass. */
            const double l = p[3];
            assert_close(mt.impact_energy_loss, 0.5 * l * l * thd_m * thd_m * (1.0 - pow(cos(2.0 * alpha), 2)),
                         1e-12 * l * l);
            /* The impulse is the jump of the hub's momentum, l (thd+ - thd-) along
             * the spoke-normal directions: |l thd- (cos 2a e_- ... )|, written out. */
            const double vm[2] = {-l * thd_m * cos(-alpha), -l * thd_m * sin(-alpha)};
            const double vp[2] = {-l * y[1] * cos(alpha), -l * y[1] * sin(alpha)};
            assert_close(mt.heelstrike_impulse, hypot(vp[0] - vm[0], vp[1] - vm[1]), 1e-12 * l);
            /* Cost of transport: the energy lost per weight and distance. */
            assert_close(mt.cost_of_transport, mt.impact_energy_loss / (p[2] * mt.step_length), 1e-15);
        }
    }
    /* Too slow to vault over the spoke: it rolls back. */
    const double p[SM_MAX_PARAMS] = {10, 0.08, 9.81, 1.0};
    double x[2] = {M_PI / 10, -0.3}, y[2];
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_FELL_BACKWARD);
    sm_workspace_free(ws);
}

/* The published unstable gait of Garcia et al. (1998), theta* =
 * 0.19393736960624, theta_dot* = -0.20386692731962, maps to itself too.  Its
 * mid-stance scuff (phi - 2 theta falling through 0) comes when theta < 0
 * already (theta ~ -0.05, t ~ 2.14); only the real heel-strike, rising through
 * 0 at theta = -theta* (t ~ 3.10), may end the step.  Regression test: the
 * library once ended this step at the scuff. */
static void test_unstable_gait_maps_to_itself(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4], y[4];
    simplest_on_section(GARCIA_UNSTABLE_THETA, GARCIA_UNSTABLE_THETA_DOT, x);
    event_log log = {0};
    sm_observer obs = {.event = log_event, .ctx = &log};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_OK);
    assert_int_equal(log.n, 1);
    assert_close(log.xm[0], -GARCIA_UNSTABLE_THETA, 1e-8);
    assert_true(mt.period > 3.0);
    for (int i = 0; i < 4; i++) assert_close(y[i], x[i], 1e-8);
    sm_workspace_free(ws);
}

static int refuse_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)t, (void)phase, (void)xm, (void)xp;
    event_log *l = ctx;
    l->n++;
    snprintf(l->name, sizeof l->name, "%s", name);
    return 1;
}

/* hybrid.h: a non-zero return from the observer's event callback stops the
 * computation with SM_IO_ERROR (e.g. the CSV row of the event could not be
 * written). */
static void test_event_observer_refusal(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4], y[4];
    event_log log = {0};
    sm_observer obs = {.event = refuse_event, .ctx = &log};
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);
    assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_IO_ERROR);
    assert_int_equal(log.n, 1);
    assert_string_equal(log.name, "heelstrike");
    sm_workspace_free(ws);
}

/* Regression: at a fall (an SM_EVENT_FAIL event) the observer's refusal used
 * to be ignored and the fall reported; hybrid.h promises SM_IO_ERROR, so a
 * trajectory whose last row could not be written never looks complete. */
static void test_event_observer_refusal_on_fall(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4], y[4];
    event_log log = {0};
    sm_observer obs = {.event = refuse_event, .ctx = &log};
    simplest_on_section(0.2, -0.01, x); /* falls backwards */
    sm_status st = sm_stride(ws, p, x, y, NULL, &obs);
    sm_workspace_free(ws); /* before asserting: a failed assertion leaves the test */
    assert_int_equal(log.n, 1);
    assert_string_equal(log.name, "rolled_back");
    assert_status(st, SM_IO_ERROR);
}

/* A model whose heel-strike event counts both crossing directions (the bug
 * the simplest walker once had): on the short-step gait the mid-stance scuff
 * crosses the heel-strike surface with the stance leg already past the
 * normal.  The engine must not take that scuff for a strike. */
static void a_scuff_is_never_taken_for_a_strike(void **state)
{
    (void)state;
    const sm_model *good = test_model("simplest");
    sm_event events[8];
    memcpy(events, good->phases[0].events, good->phases[0].n_events * sizeof events[0]);
    events[0].direction = 0;
    sm_phase phase = good->phases[0];
    phase.events = events;
    sm_model careless = *good;
    careless.phases = &phase;
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4], y[4];
    simplest_on_section(GARCIA_UNSTABLE_THETA, GARCIA_UNSTABLE_THETA_DOT, x);
    sm_workspace *ws = test_workspace(&careless, 0, SM_METHOD_ADAMS);
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_SCUFFED);
    assert_true(y[0] < 0 && y[0] > -0.1); /* it ended at the scuff, theta ~ -0.05 */
    sm_workspace_free(ws);
    /* The real model walks the step. */
    ws = test_workspace(good, 0, SM_METHOD_ADAMS);
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_OK);
    sm_workspace_free(ws);
}

/* sm_walk: the simplest walker on Garcia's stable gait (gamma = 0.009)
 * walks on, returning to the gait each step; on gamma = 0.0195 it falls
 * (Garcia et al. 1998: no gait survives past about 0.019). */
typedef struct {
    long calls, last_k, stop_at;
} walk_log;

static int walk_step(void *ctx, long k, const sm_step_metrics *mt)
{
    walk_log *w = ctx;
    assert_true(mt->period > 0);
    w->calls++;
    w->last_k = k;
    return w->stop_at && w->calls >= w->stop_at;
}

static void test_walk(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {0.009}, x[4], x0[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x0);
    memcpy(x, x0, sizeof x);
    walk_log w = {0};
    long done = -1;
    assert_status(sm_walk(ws, p, x, 5, NULL, walk_step, &w, &done), SM_OK);
    assert_int_equal(done, 5);
    assert_int_equal(w.calls, 5);
    assert_int_equal(w.last_k, 4);
    assert_close(x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(x[1], GARCIA_STABLE_THETA_DOT, 1e-8);

    w = (walk_log){.stop_at = 2};
    memcpy(x, x0, sizeof x);
    assert_status(sm_walk(ws, p, x, 5, NULL, walk_step, &w, &done), SM_IO_ERROR);
    assert_int_equal(done, 2);

    p[0] = 0.0195;
    memcpy(x, x0, sizeof x);
    w = (walk_log){0};
    const sm_status st = sm_walk(ws, p, x, 300, NULL, walk_step, &w, &done);
    assert_true(st == SM_FELL_FORWARD || st == SM_FELL_BACKWARD);
    assert_true(done >= 1 && done < 300);
    assert_int_equal(w.calls, done);
    sm_workspace_free(ws);
}

/* Failure injection for the discrete callbacks: a reset or a map that
 * returns c.  They follow the SUNDIALS convention of the RHS: 0 is success;
 * >0 (recoverable) and <0 (fatal) both end the stride with SM_RHS_FAILED,
 * since an impact or a closed-form stride has no smaller step to retry. */
typedef struct {
    sm_reset_fn reset;
    sm_map_fn map;
    int code;
} injected;

static int injected_reset(const double *xm, double *xp, const double *p, const void *data)
{
    const injected *in = data;
    in->reset(xm, xp, p, NULL);
    return in->code;
}

static int injected_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    const injected *in = data;
    in->map(x, y, period, p, NULL);
    return in->code;
}

static void reset_returns_follow_the_sundials_convention(void **state)
{
    (void)state;
    const sm_model *good = test_model("simplest");
    sm_event events[8];
    memcpy(events, good->phases[0].events, good->phases[0].n_events * sizeof events[0]);
    assert_int_equal(events[0].outcome, SM_EVENT_SECTION);
    injected in = {.reset = events[0].reset};
    events[0].reset = injected_reset;
    sm_phase phase = good->phases[0];
    phase.events = events;
    sm_model m = *good;
    m.phases = &phase;
    m.data = &in; /* the simplest walker's own callbacks ignore data */
    sm_workspace *ws = test_workspace(&m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4], y[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);

    in.code = 0;
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_OK);
    assert_close(y[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(y[1], GARCIA_STABLE_THETA_DOT, 1e-8);

    const int failing[] = {1, 7, -1, -7};
    for (size_t k = 0; k < sizeof failing / sizeof failing[0]; k++) {
        in.code = failing[k];
        assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_RHS_FAILED);
        /* The stride ended just before the impact: phi = 2 theta there. */
        assert_close(y[2], 2 * y[0], 1e-8);
        assert_true(y[0] < 0);
        sm_step_metrics mt;
        assert_status(sm_stride_measured(ws, p, x, y, &mt, NULL, 0.01), SM_RHS_FAILED);
    }
    sm_workspace_free(ws);
}

static void map_returns_follow_the_sundials_convention(void **state)
{
    (void)state;
    const sm_model *good = test_model("logistic");
    injected in = {.map = good->map};
    sm_model m = *good;
    m.map = injected_map;
    m.data = &in;
    sm_workspace *ws = test_workspace(&m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {3.0}, x[1] = {0.25};
    double y[1];
    in.code = 0;
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_OK);
    assert_close(y[0], 3.0 * 0.25 * 0.75, 1e-15);
    const int failing[] = {1, 7, -1, -7};
    for (size_t k = 0; k < sizeof failing / sizeof failing[0]; k++) {
        in.code = failing[k];
        assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_RHS_FAILED);
        assert_close(y[0], 0.25, 0.0); /* where the stride started: the map's output is not a state */
    }
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_scuff_is_never_taken_for_a_strike),
        cmocka_unit_test(test_event_observer_refusal_on_fall),
        cmocka_unit_test(test_published_gait_maps_to_itself),
        cmocka_unit_test(test_unstable_gait_maps_to_itself),
        cmocka_unit_test(test_step_metrics_and_energy_balance),
        cmocka_unit_test(test_falls),
        cmocka_unit_test(test_bad_state),
        cmocka_unit_test(test_rimless_closed_form_stride),
        cmocka_unit_test(test_event_observer_refusal),
        cmocka_unit_test(test_walk),
        cmocka_unit_test(reset_returns_follow_the_sundials_convention),
        cmocka_unit_test(map_returns_follow_the_sundials_convention),
    };
    return cmocka_run_group_tests_name("stride", tests, NULL, NULL);
}
