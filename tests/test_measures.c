/* Gait measures (stride.h) against what physics fixes them to: a passive
 * walker's cost of transport is sin(gamma), the simplest walker's massless
 * stance leg pushes along itself, and the heel-strike impulse is the jump of
 * the walker's momentum. */
#include <math.h>
#include <string.h>

#include "test_util.h"

static sm_fixed_result gait_of(const char *name, double gamma)
{
    const sm_model *m = test_model(name);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    if (gamma != 0) p[sm_model_param_index(m, "gamma")] = gamma;
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options o;
    sm_newton_options_default(&o);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &o, &r), SM_OK);
    sm_workspace_free(ws);
    return r;
}

/* On a periodic gait everything the walker loses at impacts it gains coming
 * down the slope: E = W d sin(gamma), so E / (W d) = sin(gamma). */
static void passive_cost_of_transport_is_sin_gamma(void **state)
{
    const struct {
        const char *model;
        double gamma;
    } cases[] = {{"simplest", 0.009}, {"simplest", 0.004}, {"compass", 0}, {"compass", 0.04}, {"rimless", 0},
                 {"rimless", 0.12}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sm_fixed_result r = gait_of(cases[i].model, cases[i].gamma);
        const sm_model *m = test_model(cases[i].model);
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        const double gamma = cases[i].gamma != 0 ? cases[i].gamma : p[sm_model_param_index(m, "gamma")];
        assert_close(r.metrics.cost_of_transport, sin(gamma), 1e-8);
    }
}

static void simplest_leg_pushes_along_itself(void **state)
{
    sm_fixed_result r = gait_of("simplest", 0.009);
    const double th = r.x[0], thd = r.x[1], gamma = 0.009;
    /* |Ft/Fn| = |tan(theta)| is largest at the ends of the step, theta = +-theta*. */
    assert_close(r.metrics.max_friction_ratio, tan(th), 1e-9);
    /* Leg compression T = cos(theta - gamma) - theta_dot^2, normal part T cos(theta). */
    const double fn_start = (cos(th - gamma) - thd * thd) * cos(th);
    assert_true(r.metrics.min_normal_force > 0);
    assert_true(r.metrics.min_normal_force <= fn_start + 1e-12);
    /* The impulse: hip momentum -theta_dot (cos theta, sin theta) before and after. */
    const double c2 = cos(2 * th), thd_m = thd / c2, th_m = -th;
    const double pm[2] = {-thd_m * cos(th_m), -thd_m * sin(th_m)}, pp[2] = {-thd * cos(th), -thd * sin(th)};
    assert_close(r.metrics.heelstrike_impulse, hypot(pp[0] - pm[0], pp[1] - pm[1]), 1e-9);
}

static void clearance_is_never_negative_outside_the_scuff_window(void **state)
{
    const char *models[] = {"simplest", "compass"};
    for (size_t i = 0; i < 2; i++) {
        sm_fixed_result r = gait_of(models[i], 0);
        assert_true(r.metrics.min_foot_clearance >= -1e-12);
        assert_true(r.metrics.max_foot_clearance > r.metrics.min_foot_clearance);
    }
    /* A wheel has no swing foot. */
    sm_fixed_result w = gait_of("rimless", 0);
    assert_true(isnan(w.metrics.min_foot_clearance));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(passive_cost_of_transport_is_sin_gamma),
        cmocka_unit_test(simplest_leg_pushes_along_itself),
        cmocka_unit_test(clearance_is_never_negative_outside_the_scuff_window),
    };
    return cmocka_run_group_tests_name("measures", tests, NULL, NULL);
}
