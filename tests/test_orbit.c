/* The orbit diagram by simulation (orbit.h): attractors of maps with known
 * periods, and walkers that fall reported as falls, not as numbers. */
#include <stdbool.h>

#include "test_util.h"

typedef struct {
    int n;
    double x[4096];
    double period[4096];
} rec;

static int keep(void *ctx, int index, const double *x, const sm_step_metrics *mt)
{
    rec *r = ctx;
    if (r->n < 4096) {
        r->x[r->n] = x[0];
        r->period[r->n] = mt->period;
        r->n++;
    }
    return 0;
}

static int orbit_period(double r_value, double *x_last)
{
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {r_value}, x0[1] = {0.3};
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 2000;
    o.record = 64;
    o.period_tol = 1e-9;
    static rec rc;
    rc.n = 0;
    sm_orbit_result r;
    assert_status(sm_orbit(ws, p, x0, &o, keep, &rc, &r), SM_OK);
    assert_int_equal(r.steps, 2064);
    assert_int_equal(r.recorded, 64);
    assert_int_equal(rc.n, 64);
    for (int i = 0; i < rc.n; i++) assert_close(rc.period[i], 1.0, 0.0);
    *x_last = r.x[0];
    sm_workspace_free(ws);
    return r.period;
}

/* Logistic map: period 1 below r = 3, 2 up to 1 + sqrt 6, 4 up to
 * 3.5441, 8 up to 3.5644; chaos at r = 3.9 (no period up to 32). */
static void test_logistic_periods(void **state)
{
    double x;
    assert_int_equal(orbit_period(2.8, &x), 1);
    assert_close(x, 1.0 - 1.0 / 2.8, 1e-12);
    assert_int_equal(orbit_period(3.2, &x), 2);
    assert_int_equal(orbit_period(3.5, &x), 4);
    assert_int_equal(orbit_period(3.56, &x), 8);
    assert_int_equal(orbit_period(3.9, &x), 0);
}

/* A walker that falls: the fall is reported with its status and the strides
 * before it, never as a recorded state. */
static void test_simplest_fall_is_reported(void **state)
{
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {0.009};
    double x0[4];
    simplest_on_section(0.2, -0.01, x0); /* far too slow: rolls back */
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 5;
    o.record = 5;
    static rec rc;
    rc.n = 0;
    sm_orbit_result r;
    assert_status(sm_orbit(ws, p, x0, &o, keep, &rc, &r), SM_FELL_BACKWARD);
    assert_int_equal(r.steps, 0);
    assert_int_equal(r.recorded, 0);
    assert_int_equal(rc.n, 0);
    assert_int_equal(r.period, 0);
    for (int i = 0; i < 4; i++) assert_close(r.x_good[i], x0[i], 0.0);

    /* On a steep slope the walker falls after some steps: steps counts them,
     * and every recorded state before the fall is a real one. */
    const double steep[SM_MAX_PARAMS] = {0.0195};
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x0);
    o.transient = 0;
    o.record = 200;
    rc.n = 0;
    sm_status st = sm_orbit(ws, steep, x0, &o, keep, &rc, &r);
    assert_true(st == SM_FELL_FORWARD || st == SM_FELL_BACKWARD);
    if (!(r.steps >= 1 && r.steps < 200)) fail_msg("steps %ld status %s", r.steps, sm_status_name(st));
    assert_int_equal(r.recorded, r.steps);
    for (int i = 0; i < rc.n; i++) assert_true(isfinite(rc.x[i]) && isfinite(rc.period[i]) && rc.period[i] > 0);
    sm_workspace_free(ws);
}

/* The simplest walker's attractor at gamma = 0.009 is the published gait. */
static void test_simplest_attractor_is_the_gait(void **state)
{
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    double x0[4];
    simplest_on_section(0.2, -0.2, x0);
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 120;
    o.record = 4;
    sm_orbit_result r;
    assert_status(sm_orbit(ws, p, x0, &o, NULL, NULL, &r), SM_OK);
    assert_int_equal(r.period, 1);
    assert_close(r.x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(r.x[1], GARCIA_STABLE_THETA_DOT, 1e-8);
    sm_workspace_free(ws);
}

static void test_options(void **state)
{
    sm_orbit_options o;
    char why[200];
    sm_orbit_options_default(&o);
    assert_status(sm_orbit_options_check(&o, why, sizeof why), SM_OK);
    o.record = 0;
    assert_status(sm_orbit_options_check(&o, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_orbit_options.record"));
}

/* ---- the orbit diagram (sm_orbit_diagram) ---- */

typedef struct {
    int n;
    double mu[8];
    int period[8], recorded[8];
    bool fell[8];
    double first[8];
    int stop_after; /* 0: never */
} diagram_log;

static int log_value(void *ctx, const sm_orbit_value *v)
{
    diagram_log *d = ctx;
    if (d->n < 8) {
        d->mu[d->n] = v->mu;
        d->period[d->n] = v->r->period;
        d->recorded[d->n] = v->r->recorded;
        d->fell[d->n] = v->fell;
        d->first[d->n] = v->r->recorded ? v->xs[0] : NAN;
    }
    d->n++;
    return d->stop_after && d->n >= d->stop_after;
}

/* Logistic map at r = 2.8, 3.15, 3.5: periods 1, 2, 4 (May 1976), the
 * first value from Newton's fixed point 1 - 1/r, the others carried over. */
static void test_diagram_follows_the_logistic_cascade(void **state)
{
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 2000;
    o.record = 16;
    diagram_log d = {0};
    sm_orbit_diagram_result res;
    const size_t ir = (size_t)sm_model_param_index(m, "r");
    assert_status(sm_orbit_diagram(ws, p, ir, 2.8, 3.5, 3, NULL, &no, &o, log_value, &d, &res), SM_OK);
    assert_int_equal(d.n, 3);
    assert_int_equal(res.values, 3);
    assert_int_equal(res.falls + res.failures, 0);
    assert_true(isnan(res.first_fall));
    assert_close(d.mu[1], 3.15, 1e-15);
    assert_int_equal(d.period[0], 1);
    assert_int_equal(d.period[1], 2);
    assert_int_equal(d.period[2], 4);
    assert_close(d.first[0], 1 - 1 / 2.8, 1e-12);
    const double r = 3.15, dd = sqrt((r - 3) * (r + 1));
    assert_close(fmin(fabs(d.first[1] - (r + 1 + dd) / (2 * r)), fabs(d.first[1] - (r + 1 - dd) / (2 * r))), 0.0,
                 1e-9);
    assert_int_equal(res.total_steps, 3 * (2000 + 16));

    /* The callback stops it. */
    d = (diagram_log){.stop_after = 1};
    assert_status(sm_orbit_diagram(ws, p, ir, 2.8, 3.5, 3, NULL, &no, &o, log_value, &d, &res), SM_IO_ERROR);
    assert_int_equal(d.n, 1);
    sm_workspace_free(ws);
}

/* The simplest walker: its gait at gamma = 0.009, a fall at 0.0195 (as in
 * test_simplest_fall_is_reported), counted and dated. */
static void test_diagram_counts_falls(void **state)
{
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {0.009}, x0[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x0);
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 0;
    o.record = 200;
    diagram_log d = {0};
    sm_orbit_diagram_result res;
    assert_status(sm_orbit_diagram(ws, p, 0, 0.009, 0.0195, 2, x0, NULL, &o, log_value, &d, &res), SM_OK);
    assert_int_equal(d.n, 2);
    assert_int_equal(d.period[0], 1);
    assert_false(d.fell[0]);
    assert_true(d.fell[1]);
    assert_int_equal(res.falls, 1);
    assert_int_equal(res.failures, 0);
    assert_close(res.first_fall, 0.0195, 0.0);
    assert_true(sm_orbit_walker_outcome(SM_FELL_FORWARD));
    assert_false(sm_orbit_walker_outcome(SM_INTEGRATOR_FAILED));
    /* Bad options are refused before any walking, not counted as falls. */
    o.record = 0;
    d = (diagram_log){0};
    assert_status(sm_orbit_diagram(ws, p, 0, 0.009, 0.0195, 2, x0, NULL, &o, log_value, &d, &res), SM_BAD_OPTION);
    assert_int_equal(d.n, 0);
    assert_int_equal(res.falls, 0);
    sm_workspace_free(ws);
}

/* A callback may run another orbit on the same workspace: the inner walk
 * (r = 2.8, more strides recorded) must not disturb the outer one's record
 * (r = 3.2, the 2-cycle (r + 1 +- sqrt((r - 3)(r + 1))) / 2r, May 1976). */
typedef struct {
    sm_workspace *ws;
    int calls, inner_period;
    double inner_x;
} nested;

static int run_inner(void *ctx, int index, const double *x, const sm_step_metrics *mt)
{
    (void)x, (void)mt;
    nested *n = ctx;
    n->calls++;
    if (index != 0) return 0;
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 500;
    o.record = 256;
    o.period_tol = 1e-9;
    const double p[SM_MAX_PARAMS] = {2.8}, x0[1] = {0.3};
    sm_orbit_result r;
    if (sm_orbit(n->ws, p, x0, &o, NULL, NULL, &r) != SM_OK) return 1;
    n->inner_period = r.period;
    n->inner_x = r.x[0];
    return 0;
}

static void test_orbit_inside_an_orbit(void **state)
{
    (void)state;
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 2000;
    o.record = 8;
    o.period_tol = 1e-9;
    const double p[SM_MAX_PARAMS] = {3.2}, x0[1] = {0.3};
    nested n = {.ws = ws};
    sm_orbit_result r;
    assert_status(sm_orbit(ws, p, x0, &o, run_inner, &n, &r), SM_OK);
    assert_int_equal(n.calls, 8);
    assert_int_equal(n.inner_period, 1);
    assert_close(n.inner_x, 1 - 1 / 2.8, 1e-12);
    assert_int_equal(r.period, 2);
    const double rr = 3.2, dd = sqrt((rr - 3) * (rr + 1));
    assert_close(fmin(fabs(r.x[0] - (rr + 1 + dd) / (2 * rr)), fabs(r.x[0] - (rr + 1 - dd) / (2 * rr))), 0.0,
                 1e-9);
    /* Again, the workspace's buffers now grown: the same answers. */
    n = (nested){.ws = ws};
    sm_orbit_result again;
    assert_status(sm_orbit(ws, p, x0, &o, run_inner, &n, &again), SM_OK);
    assert_int_equal(again.period, 2);
    assert_close(again.x[0], r.x[0], 0.0);
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_logistic_periods),
        cmocka_unit_test(test_simplest_fall_is_reported),
        cmocka_unit_test(test_simplest_attractor_is_the_gait),
        cmocka_unit_test(test_diagram_follows_the_logistic_cascade),
        cmocka_unit_test(test_diagram_counts_falls),
        cmocka_unit_test(test_orbit_inside_an_orbit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
