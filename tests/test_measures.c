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

static int count_sample(void *ctx, double t, size_t phase, const double *x)
{
    (*(size_t *)ctx)++;
    return 0;
}

/* The measures of a step are the step's: sm_stride_gait gives what
 * sm_fixed_point gives for the gait, whatever sampling its observer asks for
 * (and the observer still gets that sampling). */
static void step_measures_do_not_depend_on_output_sampling(void **state)
{
    const char *models[] = {"simplest", "compass"};
    for (size_t i = 0; i < 2; i++) {
        sm_fixed_result r = gait_of(models[i], 0);
        const sm_model *m = test_model(models[i]);
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
        const double dts[] = {0.1, 7e-4, 1e300};
        for (size_t k = 0; k < 3; k++) {
            size_t samples = 0;
            sm_observer obs = {.dt = dts[k], .sample = count_sample, .ctx = &samples};
            sm_step_metrics mt;
            double x[SM_MAX_STATE];
            assert_status(sm_stride_gait(ws, p, r.x, x, &mt, &obs), SM_OK);
            assert_close(mt.period, r.metrics.period, 1e-10);
            assert_close(mt.min_foot_clearance, r.metrics.min_foot_clearance, 1e-10);
            assert_close(mt.max_foot_clearance, r.metrics.max_foot_clearance, 1e-10);
            assert_close(mt.min_normal_force, r.metrics.min_normal_force, 1e-10);
            assert_close(mt.max_friction_ratio, r.metrics.max_friction_ratio, 1e-10);
            assert_true(mt.min_foot_clearance >= -1e-12);
            /* Every dt of the step but the one that would land past its end. */
            const double want = floor(mt.period / dts[k]);
            assert_true(fabs((double)samples - want) <= 1.0);
            /* The gait maps onto itself. */
            for (size_t j = 0; j < m->n_state; j++) assert_close(x[j], r.x[j], 1e-8);
        }
        sm_workspace_free(ws);
    }
}

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

/* The kneed walker's swing foot is lowest where the clearance window opens
 * (5 % into the step); which sample opened it used to hang on the last bits
 * of the step period, so the minimum moved by 1.4e-4 m between rtol 1e-12
 * and 1e-13.  A measure of the gait must settle as the tolerance tightens. */
static void clearance_settles_as_the_tolerance_tightens(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[512];
    assert_status(sm_registry_open(SM_SOURCE_DIR "/models/kneed_hsu.yaml", &m, why, sizeof why), SM_OK);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    double lo[4];
    const double tols[4] = {1e-10, 1e-11, 1e-12, 1e-13};
    for (int k = 0; k < 4; k++) {
        m->guess(x, p, m->data);
        sm_workspace *ws = test_workspace(m, tols[k], SM_METHOD_ADAMS);
        sm_newton_options o;
        sm_newton_options_default(&o);
        o.tol = 1e-11;
        static sm_fixed_result r;
        assert_status(sm_fixed_point(ws, p, x, &o, &r), SM_OK);
        lo[k] = r.metrics.min_foot_clearance;
        sm_workspace_free(ws);
    }
    for (int k = 1; k < 4; k++) assert_close(lo[k], lo[3], 1e-10);
    assert_true(lo[3] > 0.007 && lo[3] < 0.008); /* Chen's gait clears by 7.6 mm */
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(passive_cost_of_transport_is_sin_gamma),
        cmocka_unit_test(simplest_leg_pushes_along_itself),
        cmocka_unit_test(clearance_is_never_negative_outside_the_scuff_window),
        cmocka_unit_test(step_measures_do_not_depend_on_output_sampling),
        cmocka_unit_test(clearance_settles_as_the_tolerance_tightens),
    };
    return cmocka_run_group_tests_name("measures", tests, NULL, NULL);
}
