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
    const double p[1] = {r_value}, x0[1] = {0.3};
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
    const double p[1] = {0.009};
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
    const double steep[1] = {0.0195};
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
    const double p[1] = {GARCIA_GAMMA};
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
    assert_non_null(strstr(why, "--record"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_logistic_periods),
        cmocka_unit_test(test_simplest_fall_is_reported),
        cmocka_unit_test(test_simplest_attractor_is_the_gait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
