/* Phase integration on CVODE (hybrid.h): energy along a smooth phase, the
 * crossings that must not end a step, injected failures, bad descriptors and
 * options, and Adams versus BDF.
 */
#include <stdbool.h>

#include "test_util.h"

/* ---- observers ------------------------------------------------------- */

/* Samples E = T + V along a phase and keeps the largest drift from E0. */
typedef struct {
    const sm_model *m;
    const double *p;
    double e0, max_drift;
    double (*energy)(const double *x, const double *p); /* the test's own formula */
    double max_formula_gap;                             /* |model's E - test's E| */
    long samples;
    double t_last;
} energy_watch;

static int energy_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    energy_watch *w = ctx;
    double e = w->m->kinetic_energy(x, w->p, NULL) + w->m->potential_energy(x, w->p, NULL);
    w->max_drift = fmax(w->max_drift, fabs(e - w->e0));
    w->max_formula_gap = fmax(w->max_formula_gap, fabs(e - w->energy(x, w->p)));
    if (!(t > w->t_last)) return 1; /* samples must move forward in time */
    w->t_last = t;
    w->samples++;
    return 0;
}

/* Garcia et al. (1998), per M l^2 with g = l = 1 (the massless swing leg
 * carries no energy): E = theta_dot^2 / 2 + cos(theta - gamma). */
static double simplest_energy(const double *x, const double *p)
{
    return 0.5 * x[1] * x[1] + cos(x[0] - p[0]);
}

/* Rimless wheel per m l^2: E = theta_dot^2 / 2 + (g/l) cos(theta - gamma). */
static double rimless_energy(const double *x, const double *p)
{
    return 0.5 * x[1] * x[1] + p[2] / p[3] * cos(x[0] - p[1]);
}

static void test_energy_conserved_simplest(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);

    energy_watch w = {.m = m, .p = p, .energy = simplest_energy, .t_last = 0.0};
    w.e0 = m->kinetic_energy(x, p, NULL) + m->potential_energy(x, p, NULL);
    assert_close(w.e0, simplest_energy(x, p), 1e-15);
    sm_observer obs = {.dt = 0.01, .sample = energy_sample, .ctx = &w};

    double t = 0.0;
    size_t e = 99;
    assert_status(sm_hybrid_flow(ws, p, m->start_phase, &t, x, 20.0, &obs, &e), SM_OK);
    /* A whole swing phase up to heel-strike. */
    assert_string_equal(m->phases[m->start_phase].events[e].name, "heelstrike");
    assert_true(t > 3.0 && t < 5.0);
    assert_true(w.samples >= 300);
    assert_close(w.max_formula_gap, 0.0, 1e-15);
    print_message("simplest: %ld samples to t = %.6f, max |E - E0| = %.3g\n", w.samples, t, w.max_drift);
    assert_close(w.max_drift, 0.0, 1e-9);
    double e_end = m->kinetic_energy(x, p, NULL) + m->potential_energy(x, p, NULL);
    assert_close(e_end, w.e0, 1e-9);
    sm_workspace_free(ws);
}

static void test_energy_conserved_rimless(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {10, 0.08, 9.81, 1.0};
    double x[2] = {M_PI / 10, -1.5};

    energy_watch w = {.m = m, .p = p, .energy = rimless_energy, .t_last = 0.0};
    w.e0 = rimless_energy(x, p);
    sm_observer obs = {.dt = 0.002, .sample = energy_sample, .ctx = &w};
    double t = 0.0;
    size_t e = 99;
    assert_status(sm_hybrid_flow(ws, p, m->start_phase, &t, x, 10.0, &obs, &e), SM_OK);
    assert_string_equal(m->phases[m->start_phase].events[e].name, "spoke_strike");
    assert_close(x[0], -M_PI / 10, 1e-9); /* at the strike: theta = -alpha */
    assert_true(w.samples >= 50);
    assert_close(w.max_formula_gap, 0.0, 1e-13);
    print_message("rimless: %ld samples to t = %.6f, E0 = %.6f, max |E - E0| = %.3g\n", w.samples, t, w.e0,
                  w.max_drift);
    /* E0 is about 10 here (g/l = 9.81): 1e-9 relative. */
    assert_close(w.max_drift, 0.0, 1e-9 * fabs(w.e0));
    assert_close(rimless_energy(x, p), w.e0, 1e-9 * fabs(w.e0));
    sm_workspace_free(ws);
}

/* ---- crossings that must not count ----------------------------------- */

typedef struct {
    const double *p;
    double prev_g, prev_t;
    int sign_changes;
    double change_t[8], change_theta[8];
    int n_events;
    char first_event[64];
    double first_t, first_theta;
} crossing_watch;

static int crossing_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    crossing_watch *w = ctx;
    double g = x[2] - 2.0 * x[0]; /* phi - 2 theta, the heel-strike surface */
    if (w->prev_t > 0 && (g > 0) != (w->prev_g > 0)) {
        if (w->sign_changes < 8) {
            w->change_t[w->sign_changes] = t;
            w->change_theta[w->sign_changes] = x[0];
        }
        w->sign_changes++;
    }
    w->prev_g = g;
    w->prev_t = t;
    return 0;
}

static int crossing_event(void *ctx, double t, size_t phase, const char *name, const double *xm,
                          const double *xp)
{
    (void)phase, (void)xp;
    crossing_watch *w = ctx;
    if (w->n_events++ == 0) {
        snprintf(w->first_event, sizeof w->first_event, "%s", name);
        w->first_t = t;
        w->first_theta = xm[0];
    }
    return 0;
}

/* Steps once from the section point (theta, theta_dot) with an observer
 * sampling phi - 2 theta every 0.005; checks that the only counted event is
 * the heel-strike, with theta- = -theta (a symmetric gait), after t = 3, and
 * that phi - 2 theta changed sign mid-stance before it.  Returns the theta
 * at that mid-stance crossing. */
static double step_past_scuff(sm_workspace *ws, const sm_model *m, double theta, double theta_dot)
{
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x[4], y[4];
    simplest_on_section(theta, theta_dot, x);
    crossing_watch w = {.p = p};
    sm_observer obs = {.dt = 0.005, .sample = crossing_sample, .event = crossing_event, .ctx = &w};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_OK);

    assert_int_equal(w.n_events, 1);
    assert_int_equal(mt.n_events, 1);
    assert_string_equal(w.first_event, "heelstrike");
    assert_close(w.first_theta, -theta, 1e-8);
    assert_true(w.first_t > 3.0);
    assert_close(w.first_t, mt.period, 1e-12);

    /* The scuff: phi - 2 theta changed sign mid-stance (stance leg near the
     * slope normal, well before the heel-strike) and the step went on. */
    if (w.sign_changes < 1) fail_msg("no mid-stance crossing of phi = 2 theta was seen");
    assert_true(w.change_t[0] > 0.5 && w.change_t[0] < w.first_t - 0.5);
    assert_true(fabs(w.change_theta[0]) < 0.1);
    print_message("from (%.5f, %.5f): scuff crossing near t = %.3f (theta = %.4f); heel-strike at t = %.6f\n",
                  theta, theta_dot, w.change_t[0], w.change_theta[0], w.first_t);

    /* The same through sm_hybrid_flow: the first counted event is the heel-strike. */
    double t = 0.0;
    size_t e = 99;
    simplest_on_section(theta, theta_dot, x);
    assert_status(sm_hybrid_flow(ws, p, m->start_phase, &t, x, 20.0, NULL, &e), SM_OK);
    assert_string_equal(m->phases[m->start_phase].events[e].name, "heelstrike");
    assert_close(t, mt.period, 1e-12);
    return w.change_theta[0];
}

/* The stride starts ON the surface phi = 2 theta and crosses it again near
 * mid-stance (the swing foot scuffs); neither may end the step. */
static void test_start_and_scuff_crossings_ignored(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    /* The stable gait: the scuff comes while theta > 0 still. */
    double th = step_past_scuff(ws, m, GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT);
    assert_true(th > 0);
    /* The unstable (short-step) gait: the scuff comes with theta < 0 already,
     * so only the crossing's direction tells it from a heel-strike
     * (regression test: models/simplest.c once counted such a scuff as heel-strike). */
    th = step_past_scuff(ws, m, GARCIA_UNSTABLE_THETA, GARCIA_UNSTABLE_THETA_DOT);
    assert_true(th < 0);
    sm_workspace_free(ws);
}

/* ---- failure injection: a toy model defined here ---------------------- */

/* State (y, v): y' = 1, v' = 0 on [0, 1] (so y = t); after t = 1 the
 * right-hand side of each toy goes wrong in its own way.  The section event
 * y = 100 is never reached before the time limit 5. */
static int rhs_nan_after_1(double t, const double *x, double *xd, const double *p, const void *data)
{
    (void)x, (void)p;
    xd[0] = 1.0;
    xd[1] = t > 1.0 ? NAN : 0.0;
    return 0;
}

static int rhs_fails_after_1(double t, const double *x, double *xd, const double *p, const void *data)
{
    (void)x, (void)p;
    xd[0] = 1.0;
    xd[1] = 0.0;
    return t > 1.0 ? -3 : 0;
}

static int rhs_fine(double t, const double *x, double *xd, const double *p, const void *data)
{
    (void)t, (void)x, (void)p;
    xd[0] = 1.0;
    xd[1] = 0.0;
    return 0;
}

static double y_reaches_100(double t, const double *x, const double *p, const void *data)
{
    (void)t, (void)p;
    return x[0] - 100.0;
}

static double always_positive(double t, const double *x, const double *p, const void *data)
{
    (void)t, (void)x, (void)p;
    return 1.0;
}

static void toy_lift(double *x, const double *p, const void *data)
{
    (void)p;
    x[0] = 0.0;
}

static void toy_guess(double *x, const double *p, const void *data)
{
    (void)p;
    x[0] = 0.0;
    x[1] = 0.0;
}

static double toy_time_limit(const double *p, const void *data)
{
    (void)p;
    return 5.0;
}

static const char *const toy_state_names[] = {"y", "v"};
static const size_t toy_free[] = {1};

static const sm_event toy_section_events[] = {
    {.name = "y_is_100", .value = y_reaches_100, .direction = +1, .outcome = SM_EVENT_SECTION},
};
static const sm_event toy_silent_events[] = {
    {.name = "never", .value = always_positive, .direction = 0, .outcome = SM_EVENT_SECTION},
};
static const sm_event toy_fail_only_events[] = {
    {.name = "y_is_100", .value = y_reaches_100, .direction = +1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_FORWARD},
};

static const sm_phase toy_nan_phase[] = {{"nan", rhs_nan_after_1, 1, toy_section_events, NULL, NULL}};
static const sm_phase toy_fail_phase[] = {{"fail", rhs_fails_after_1, 1, toy_section_events, NULL, NULL}};
static const sm_phase toy_silent_phase[] = {{"silent", rhs_fine, 1, toy_silent_events, NULL, NULL}};
static const sm_phase toy_no_section_phase[] = {{"nosection", rhs_fine, 1, toy_fail_only_events, NULL, NULL}};

#define TOY_MODEL(NAME, PHASES)                                                                   \
    {.name = NAME, .title = "failure-injection toy", .reference = "tests/test_hybrid.c",       \
     .n_state = 2, .state_names = toy_state_names, .n_params = 0, .params = NULL,                \
     .n_phases = 1, .phases = PHASES, .start_phase = 0, .n_free = 1, .free_index = toy_free,     \
     .lift = toy_lift, .guess = toy_guess, .time_limit = toy_time_limit}

static const sm_model toy_nan = TOY_MODEL("toy_nan", toy_nan_phase);
/* y' = v, v' = -1e8 (v - cos t): v relaxes onto cos t at a rate of 1e8, a
 * stiff system whose smooth solution any stable method follows with large
 * steps; Adams' fixed-point iteration converges only for steps below 1e-8. */
static int rhs_stiff(double t, const double *x, double *xd, const double *p, const void *data)
{
    xd[0] = x[1];
    xd[1] = -1e8 * (x[1] - cos(t));
    return 0;
}
static const sm_phase toy_stiff_phase[] = {{"stiff", rhs_stiff, 1, toy_section_events, NULL, NULL}};
static const sm_model toy_stiff = TOY_MODEL("toy_stiff", toy_stiff_phase);

static const sm_model toy_fail = TOY_MODEL("toy_fail", toy_fail_phase);
static const sm_model toy_silent = TOY_MODEL("toy_silent", toy_silent_phase);
static const sm_model toy_no_section = TOY_MODEL("toy_no_section", toy_no_section_phase);

/* A NaN derivative is "recoverable" for CVODE (a smaller step might avoid
 * it), so CVODE creeps towards t = 1 with ever smaller steps until its step
 * limit; with the default limit (1e6 steps) that takes seconds, so these
 * workspaces get a limit of 20000 steps.  The status must still say why. */
static sm_workspace *toy_workspace(const sm_model *m, sm_method method)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.method = method;
    o.max_num_steps = 20000;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    return ws;
}

/* A stiff phase under Adams ends in milliseconds with SM_STIFF, after a
 * bounded number of steps, not after the default million; BDF integrates it
 * (to the time limit: y never reaches 100) in a few hundred steps. */
static void test_stiff_phase_is_named_not_ground_through(void **state)
{
    (void)state;
    sm_workspace *ws = test_workspace(&toy_stiff, 0, SM_METHOD_ADAMS);
    double x[2] = {0, 1}, t = 0.0;
    size_t e = 0;
    assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 5.0, NULL, &e), SM_STIFF);
    sm_counters c;
    sm_workspace_counters(ws, &c);
    assert_true(c.steps <= 20000);
    assert_true(t < 1e-3); /* it gave up at the start, where the steps collapsed */
    sm_workspace_free(ws);

    ws = test_workspace(&toy_stiff, 0, SM_METHOD_BDF);
    x[0] = 0, x[1] = 1, t = 0.0;
    assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 5.0, NULL, &e), SM_NO_HEELSTRIKE);
    assert_close(t, 5.0, 1e-12);
    assert_close(x[1], cos(5.0), 1e-6); /* v follows cos t */
    assert_close(x[0], sin(5.0), 1e-6);
    sm_workspace_counters(ws, &c);
    assert_true(c.steps < 5000);
    sm_workspace_free(ws);
}

static void test_rhs_nan_gives_nonfinite(void **state)
{
    (void)state;
    for (int method = 0; method < 2; method++) {
        sm_workspace *ws = toy_workspace(&toy_nan, method ? SM_METHOD_BDF : SM_METHOD_ADAMS);
        double x[2] = {0, 0}, t = 0.0;
        size_t e = 0;
        assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 5.0, NULL, &e), SM_NONFINITE);
        assert_true(t >= 0.99 && t <= 1.0 + 1e-9); /* it stopped where the NaN began */
        /* Through a whole stride too. */
        double y[2], x0[2] = {0, 0};
        assert_status(sm_stride(ws, NULL, x0, y, NULL, NULL), SM_NONFINITE);
        sm_workspace_free(ws);
    }
}

/* A negative return from the right-hand side is fatal (model.h): the flow
 * must stop with SM_RHS_FAILED, with BDF and with Adams alike. */
static void test_rhs_error_gives_rhs_failed_bdf(void **state)
{
    (void)state;
    sm_workspace *ws = toy_workspace(&toy_fail, SM_METHOD_BDF);
    double x[2] = {0, 0}, t = 0.0;
    size_t e = 0;
    assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 5.0, NULL, &e), SM_RHS_FAILED);
    assert_true(t <= 1.0 + 1e-9);
    assert_true(strlen(sm_workspace_detail(ws)) > 0); /* CVODE's own words */
    double y[2], x0[2] = {0, 0};
    assert_status(sm_stride(ws, NULL, x0, y, NULL, NULL), SM_RHS_FAILED);
    sm_workspace_free(ws);
}

/* Regression: with Adams (fixed-point nonlinear solver) CVODE takes a failed
 * RHS for a convergence failure and used to creep towards the failure point
 * with ever smaller steps until its step limit, then report
 * integrator_failed.  A fatal RHS return must give SM_RHS_FAILED, promptly. */
static void test_rhs_error_gives_rhs_failed_adams(void **state)
{
    (void)state;
    sm_workspace *ws = toy_workspace(&toy_fail, SM_METHOD_ADAMS);
    double x[2] = {0, 0}, t = 0.0;
    size_t e = 0;
    sm_status st = sm_hybrid_flow(ws, NULL, 0, &t, x, 5.0, NULL, &e);
    sm_counters c;
    sm_workspace_counters(ws, &c);
    print_message("Adams, fatal RHS after t = 1: %s at t = %.17g after %ld steps, %ld RHS calls (%s)\n",
                  sm_status_name(st), t, c.steps, c.rhs_evals, sm_workspace_detail(ws));
    sm_workspace_free(ws); /* before asserting: a failed assertion leaves the test */
    assert_status(st, SM_RHS_FAILED);
    assert_true(c.steps < 1000);
}

static void test_silent_event_runs_to_time_limit(void **state)
{
    (void)state;
    sm_workspace *ws = test_workspace(&toy_silent, 0, SM_METHOD_ADAMS);
    double x[2] = {0, 0}, t = 0.0;
    size_t e = 0;
    assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 3.0, NULL, &e), SM_NO_HEELSTRIKE);
    assert_close(t, 3.0, 1e-12);
    assert_close(x[0], 3.0, 1e-8); /* y = t there */
    /* A stride uses the model's limit (5), or the option's when set. */
    double y[2], x0[2] = {0, 0};
    assert_status(sm_stride(ws, NULL, x0, y, NULL, NULL), SM_NO_HEELSTRIKE);
    assert_close(y[0], 5.0, 1e-8);
    sm_workspace_free(ws);

    sm_solver_options o;
    sm_solver_options_default(&o);
    o.t_max = 2.5;
    assert_status(sm_workspace_create(&toy_silent, &o, &ws), SM_OK);
    assert_status(sm_stride(ws, NULL, x0, y, NULL, NULL), SM_NO_HEELSTRIKE);
    assert_close(y[0], 2.5, 1e-8);
    /* An empty interval is no heel-strike either. */
    t = 4.0;
    assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 4.0, NULL, &e), SM_NO_HEELSTRIKE);
    sm_workspace_free(ws);
}

static int refuse_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase, (void)x;
    int *calls = ctx;
    (*calls)++;
    return t > 1.0 ? 1 : 0;
}

static void test_observer_refusal_gives_io_error(void **state)
{
    (void)state;
    sm_workspace *ws = test_workspace(&toy_silent, 0, SM_METHOD_ADAMS);
    int calls = 0;
    sm_observer obs = {.dt = 0.25, .sample = refuse_sample, .ctx = &calls};
    double x[2] = {0, 0}, t = 0.0;
    size_t e = 0;
    assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 5.0, &obs, &e), SM_IO_ERROR);
    assert_int_equal(calls, 5); /* 0.25, 0.5, 0.75, 1.0 and the refusing 1.25 */
    assert_close(t, 1.25, 1e-12);
    sm_workspace_free(ws);
}

/* y'' = -2 a y' - w^2 y from y = 1 at rest: y rings down, and its first
 * trough, -exp(-a pi / w) at t = pi / w (-0.456 at 1.57 ms), lies well
 * inside the first interval of a grid 10 ms apart. */
#define RING_A 500.0
#define RING_W 2000.0
static int rhs_ringing(double t, const double *x, double *xd, const double *p, const void *data)
{
    (void)t, (void)p, (void)data;
    xd[0] = x[1];
    xd[1] = -2.0 * RING_A * x[1] - RING_W * RING_W * x[0];
    return 0;
}
static const sm_phase toy_ringing_phase[] = {{"ringing", rhs_ringing, 1, toy_silent_events, NULL, NULL}};
static const sm_model toy_ringing = TOY_MODEL("toy_ringing", toy_ringing_phase);

typedef struct {
    double y_min, t_last, grid;
    long samples, on_grid;
} low_watch;

static int watch_low(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    low_watch *w = ctx;
    if (!(t > w->t_last)) return 1; /* in time order */
    w->t_last = t;
    w->y_min = fmin(w->y_min, x[0]);
    w->samples++;
    w->on_grid += t > 0.5 * w->grid && fabs(t / w->grid - round(t / w->grid)) < 1e-9;
    return 0;
}

/* A grid of samples steps over the trough; every internal step of the
 * integrator, which resolves it, sees it (to the steps' spacing: within
 * 5 %, 2.5 % at rtol 1e-10), and the grid's samples are all still there. */
static void test_each_step_sees_what_the_grid_steps_over(void **state)
{
    (void)state;
    const double trough = -exp(-RING_A * M_PI / RING_W);
    for (int each = 0; each < 2; each++) {
        sm_workspace *ws = test_workspace(&toy_ringing, 1e-10, SM_METHOD_BDF);
        low_watch w = {.y_min = INFINITY, .t_last = 0.0, .grid = 0.01};
        sm_observer obs = {.dt = 0.01, .each_step = each, .sample = watch_low, .ctx = &w};
        double x[2] = {1, 0}, t = 0.0;
        size_t e = 0;
        assert_status(sm_hybrid_flow(ws, NULL, 0, &t, x, 0.095, &obs, &e), SM_NO_HEELSTRIKE);
        sm_counters c;
        sm_workspace_counters(ws, &c);
        print_message("%s: %ld samples (%ld on the grid, %ld steps), lowest y %.6f (trough %.6f)\n",
                      each ? "each step" : "grid", w.samples, w.on_grid, c.steps, w.y_min, trough);
        assert_int_equal(w.on_grid, 9); /* 0.01 .. 0.09 */
        if (each) {
            assert_true(w.samples >= c.steps - 1); /* but the step that ends the flow */
            assert_true(fabs(w.y_min - trough) < 0.05 * fabs(trough));
        } else {
            assert_int_equal(w.samples, 9);
            assert_true(w.y_min > -1e-2);
        }
        sm_workspace_free(ws);
    }
}

static void test_counters(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_counters c;
    sm_workspace_counters(ws, &c);
    assert_int_equal(c.rhs_evals, 0);
    assert_int_equal(c.flows, 0);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4], y[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_OK);
    sm_workspace_counters(ws, &c);
    assert_int_equal(c.flows, 1);
    assert_true(c.steps > 10 && c.rhs_evals >= c.steps && c.root_evals > 0);
    sm_workspace_reset_counters(ws);
    sm_workspace_counters(ws, &c);
    assert_int_equal(c.rhs_evals, 0);
    assert_int_equal(c.steps, 0);
    assert_ptr_equal(sm_workspace_model(ws), m);
    assert_string_equal(sm_workspace_detail(ws), "");
    sm_workspace_free(ws);
    sm_workspace_free(NULL);
}

/* ---- invalid descriptors and options ---------------------------------- */

static void test_invalid_descriptor_rejected(void **state)
{
    (void)state;
    char why[256] = "";
    assert_status(sm_model_validate(&toy_no_section, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "section"));
    static int sentinel;
    sm_workspace *ws = (sm_workspace *)(void *)&sentinel; /* must come back NULL */
    assert_status(sm_workspace_create(&toy_no_section, NULL, &ws), SM_BAD_OPTION);
    assert_null(ws);

    sm_model empty_state = toy_silent;
    empty_state.n_state = 0;
    assert_status(sm_model_validate(&empty_state, why, sizeof why), SM_BAD_OPTION);
    assert_status(sm_workspace_create(&empty_state, NULL, &ws), SM_BAD_OPTION);
    assert_null(ws);

    sm_model bad_free = toy_silent;
    static const size_t free_outside[] = {2};
    bad_free.free_index = free_outside;
    assert_status(sm_workspace_create(&bad_free, NULL, &ws), SM_BAD_OPTION);

    sm_model no_lift = toy_silent;
    no_lift.lift = NULL;
    assert_status(sm_workspace_create(&no_lift, NULL, &ws), SM_BAD_OPTION);

    sm_model bad_start = toy_silent;
    bad_start.start_phase = 1;
    assert_status(sm_workspace_create(&bad_start, NULL, &ws), SM_BAD_OPTION);
    assert_null(ws);
}

static void expect_bad_options(const sm_solver_options *o, const char *word)
{
    char why[256] = "";
    assert_status(sm_solver_options_check(o, why, sizeof why), SM_BAD_OPTION);
    if (!strstr(why, word)) fail_msg("message does not name %s: \"%s\"", word, why);
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(test_model("simplest"), o, &ws), SM_BAD_OPTION);
    assert_null(ws);
}

static void test_bad_solver_options_rejected(void **state)
{
    (void)state;
    sm_solver_options o;
    char why[256];
    sm_solver_options_default(&o);
    assert_status(sm_solver_options_check(&o, why, sizeof why), SM_OK);
    assert_close(o.rtol, 1e-12, 0.0); /* the documented defaults */
    assert_close(o.atol, 1e-12, 0.0);
    assert_int_equal(o.method, SM_METHOD_ADAMS);

    const double bad_tols[] = {0.0, -1e-8, NAN, INFINITY, 1.0, 2.0};
    for (size_t i = 0; i < sizeof bad_tols / sizeof bad_tols[0]; i++) {
        sm_solver_options_default(&o);
        o.rtol = bad_tols[i];
        expect_bad_options(&o, "rtol");
        sm_solver_options_default(&o);
        o.atol = bad_tols[i];
        expect_bad_options(&o, "atol");
    }
    sm_solver_options_default(&o);
    o.max_step = -0.1;
    expect_bad_options(&o, "sm_solver_options.max_step");
    sm_solver_options_default(&o);
    o.max_step = NAN;
    expect_bad_options(&o, "sm_solver_options.max_step");
    sm_solver_options_default(&o);
    o.t_max = INFINITY;
    expect_bad_options(&o, "sm_solver_options.t_max");
    sm_solver_options_default(&o);
    o.t_max = -1.0;
    expect_bad_options(&o, "sm_solver_options.t_max");
    sm_solver_options_default(&o);
    o.max_num_steps = 0;
    char w2[256];
    assert_status(sm_solver_options_check(&o, w2, sizeof w2), SM_BAD_OPTION);
}

/* sm_workspace_create_ex says why, in the library's words: the struct field
 * and its value, never a command-line flag. */
static void expect_workspace_why(const sm_model *m, const sm_solver_options *o, sm_status want,
                                 const char *const words[])
{
    char why[256] = "";
    static int sentinel;
    sm_workspace *ws = (sm_workspace *)(void *)&sentinel; /* must come back NULL */
    assert_status(sm_workspace_create_ex(m, o, &ws, why, sizeof why), want);
    assert_null(ws);
    for (size_t i = 0; words[i]; i++)
        if (!strstr(why, words[i])) fail_msg("message does not say '%s': \"%s\"", words[i], why);
    if (strstr(why, "--")) fail_msg("message names a flag: \"%s\"", why);
}

static void test_workspace_create_says_why(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.rtol = 2.0;
    expect_workspace_why(m, &o, SM_BAD_OPTION, (const char *const[]){"sm_solver_options.rtol", "not 2", NULL});
    sm_solver_options_default(&o);
    o.atol = -1e-8;
    expect_workspace_why(m, &o, SM_BAD_OPTION, (const char *const[]){"sm_solver_options.atol", "-1e-08", NULL});
    sm_solver_options_default(&o);
    o.max_step = NAN;
    expect_workspace_why(m, &o, SM_BAD_OPTION, (const char *const[]){"sm_solver_options.max_step", "nan", NULL});
    sm_solver_options_default(&o);
    o.t_max = -1.0;
    expect_workspace_why(m, &o, SM_BAD_OPTION, (const char *const[]){"sm_solver_options.t_max", "-1", NULL});
    sm_solver_options_default(&o);
    o.method = SM_METHOD_BDF;
    o.max_order = 6; /* BDF's orders are 1..5 */
    expect_workspace_why(m, &o, SM_BAD_OPTION, (const char *const[]){"sm_solver_options.max_order", "6", NULL});
    sm_solver_options_default(&o);
    o.max_num_steps = 0;
    expect_workspace_why(m, &o, SM_BAD_OPTION,
                         (const char *const[]){"sm_solver_options.max_num_steps", "not 0", NULL});

    /* a bad model: the model's own account, by name */
    expect_workspace_why(&toy_no_section, NULL, SM_BAD_OPTION, (const char *const[]){"section", NULL});
    sm_model empty_state = toy_silent;
    empty_state.n_state = 0;
    expect_workspace_why(&empty_state, NULL, SM_BAD_OPTION, (const char *const[]){"incomplete", NULL});

    /* more events in a phase than the workspace watches */
    static sm_event many[40];
    for (size_t e = 0; e < 40; e++) many[e] = toy_silent.phases[0].events[0];
    sm_phase crowded = toy_silent.phases[0];
    crowded.n_events = 40;
    crowded.events = many;
    sm_model crowded_model = toy_silent;
    crowded_model.phases = &crowded;
    expect_workspace_why(&crowded_model, NULL, SM_BAD_OPTION, (const char *const[]){"40 events", NULL});

    /* success leaves why empty and gives a workspace */
    char why[256] = "stale";
    sm_workspace *ws = NULL;
    sm_solver_options_default(&o);
    assert_status(sm_workspace_create_ex(m, &o, &ws, why, sizeof why), SM_OK);
    assert_non_null(ws);
    assert_string_equal(why, "");
    sm_workspace_free(ws);
}

/* ---- Adams versus BDF ------------------------------------------------- */

static void test_bdf_matches_adams(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4], ya[4], yb[4];
    sm_step_metrics ma, mb;
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);

    sm_workspace *wa = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_workspace *wb = test_workspace(m, 1e-10, SM_METHOD_BDF);
    assert_int_equal(sm_workspace_options(wb)->method, SM_METHOD_BDF);
    assert_status(sm_stride(wa, p, x, ya, &ma, NULL), SM_OK);
    assert_status(sm_stride(wb, p, x, yb, &mb, NULL), SM_OK);
    for (int i = 0; i < 4; i++) assert_close(yb[i], ya[i], 1e-8);
    /* The event time is the least accurate output: BDF - Adams measured
     * 1.0e-8 here at rtol 1e-10 (2.4e-8 at other starts), each within ~3e-8
     * of the RK4 oracle of test_simplest_oracle.c. */
    assert_close(mb.period, ma.period, 3e-8);
    assert_close(mb.impact_energy_loss, ma.impact_energy_loss, 1e-8);

    /* The rimless wheel as well. */
    const sm_model *r = test_model("rimless");
    const double pr[SM_MAX_PARAMS] = {10, 0.08, 9.81, 1.0};
    double xr[2] = {M_PI / 10, -2.0}, ra[2], rb[2];
    sm_workspace_free(wa);
    sm_workspace_free(wb);
    wa = test_workspace(r, 1e-10, SM_METHOD_ADAMS);
    wb = test_workspace(r, 1e-10, SM_METHOD_BDF);
    assert_status(sm_stride(wa, pr, xr, ra, &ma, NULL), SM_OK);
    assert_status(sm_stride(wb, pr, xr, rb, &mb, NULL), SM_OK);
    assert_close(rb[1], ra[1], 1e-8);
    assert_close(mb.period, ma.period, 1e-8);
    sm_workspace_free(wa);
    sm_workspace_free(wb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rhs_error_gives_rhs_failed_adams),
        cmocka_unit_test(test_energy_conserved_simplest),
        cmocka_unit_test(test_energy_conserved_rimless),
        cmocka_unit_test(test_start_and_scuff_crossings_ignored),
        cmocka_unit_test(test_rhs_nan_gives_nonfinite),
        cmocka_unit_test(test_stiff_phase_is_named_not_ground_through),
        cmocka_unit_test(test_rhs_error_gives_rhs_failed_bdf),
        cmocka_unit_test(test_silent_event_runs_to_time_limit),
        cmocka_unit_test(test_observer_refusal_gives_io_error),
        cmocka_unit_test(test_each_step_sees_what_the_grid_steps_over),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_invalid_descriptor_rejected),
        cmocka_unit_test(test_bad_solver_options_rejected),
        cmocka_unit_test(test_workspace_create_says_why),
        cmocka_unit_test(test_bdf_matches_adams),
    };
    return cmocka_run_group_tests_name("hybrid", tests, NULL, NULL);
}
