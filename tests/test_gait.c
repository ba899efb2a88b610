/* One gait analysis (gait.h): multipliers and verdict against closed forms. */
#include <stdbool.h>

#include "test_util.h"
#include "stridemap/registry.h"

static sm_workspace *workspace(const sm_model *m)
{
    sm_solver_options so;
    sm_solver_options_default(&so);
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &so, &ws), SM_OK);
    return ws;
}

static sm_gait logistic_gait(const sm_model *m, int period, double x)
{
    sm_gait g;
    memset(&g, 0, sizeof g);
    g.period = period;
    g.n_state = m->n_state;
    g.n_free = m->n_free;
    g.x[0] = x;
    return g;
}

/* x' = r x (1 - x): the fixed point 1 - 1/r has multiplier 2 - r; the
 * 2-cycle x = (r + 1 +- sqrt((r - 3)(r + 1))) / (2 r) has 4 + 2 r - r^2
 * (May 1976). */
static void test_logistic_multipliers_and_verdict(void **state)
{
    (void)state;
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = workspace(m);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const int ir = sm_model_param_index(m, "r");
    assert_true(ir >= 0);
    long evals = 0;

    p[ir] = 2.5;
    sm_gait g = logistic_gait(m, 1, 1 - 1 / 2.5);
    assert_status(sm_gait_analyse(ws, p, 1e-4, &g, &evals), SM_OK);
    assert_close(g.eig_re[0], -0.5, 1e-8);
    assert_close(g.eig_im[0], 0.0, 0.0);
    assert_close(g.jacobian[0], -0.5, 1e-8);
    assert_close(g.max_abs_eig, 0.5, 1e-8);
    assert_true(g.stable);
    assert_int_equal(g.trivial_index, -1);
    assert_true(evals > 0);

    p[ir] = 3.2;
    g = logistic_gait(m, 1, 1 - 1 / 3.2);
    assert_status(sm_gait_analyse(ws, p, 1e-4, &g, &evals), SM_OK);
    assert_close(g.max_abs_eig, 1.2, 1e-8);
    assert_false(g.stable);

    const double r = 3.2, x2 = (r + 1 + sqrt((r - 3) * (r + 1))) / (2 * r);
    g = logistic_gait(m, 2, x2);
    assert_status(sm_gait_analyse(ws, p, 1e-4, &g, &evals), SM_OK);
    assert_close(g.eig_re[0], 4 + 2 * r - r * r, 1e-7);
    assert_true(g.stable);
    sm_workspace_free(ws);
}

/* The spring-mass walker conserves energy: one multiplier is 1 by that law
 * (to the differences' accuracy), is named trivial, and does not judge. */
static void test_conserved_quantity_multiplier_is_set_aside(void **state)
{
    (void)state;
    const sm_model *m = test_model("slip");
    assert_non_null(m->invariant);
    sm_workspace *ws = workspace(m);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result fr;
    assert_status(sm_fixed_point(ws, p, x, &no, &fr), SM_OK);

    sm_gait g = fr.gait;
    long evals = 0;
    assert_status(sm_gait_analyse(ws, p, 1e-4, &g, &evals), SM_OK);
    assert_true(g.trivial_index >= 0);
    assert_close(g.eig_re[g.trivial_index], 1.0, 1e-5);
    assert_close(g.eig_im[g.trivial_index], 0.0, 1e-5);
    double others = 0.0;
    for (size_t i = 0; i < g.n_free; i++)
        if ((int)i != g.trivial_index) others = fmax(others, hypot(g.eig_re[i], g.eig_im[i]));
    assert_close(g.max_abs_eig, others, 0.0);
    assert_true(g.stable == (others < 1.0));
    /* The fixed point's own result is the same analysis. */
    assert_int_equal(fr.trivial_index, g.trivial_index);
    assert_true(fr.stable == g.stable);
    sm_workspace_free(ws);
}

/* The logistic 2-cycle visits x+- = (r + 1 +- sqrt((r - 3)(r + 1))) / (2 r) in turn. */
static void test_period_two_orbit_visits_both_points(void **state)
{
    (void)state;
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = workspace(m);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const double r = 3.3, d = sqrt((r - 3) * (r + 1));
    p[sm_model_param_index(m, "r")] = r;
    const double x[1] = {(r + 1 + d) / (2 * r)};
    double orbit[4] = {NAN, NAN, NAN, NAN};
    assert_int_equal(sm_gait_orbit(ws, p, x, 2, orbit), 2);
    assert_close(orbit[0], (r + 1 + d) / (2 * r), 0.0);
    assert_close(orbit[1], (r + 1 - d) / (2 * r), 1e-15);
    assert_true(isnan(orbit[2])); /* nothing beyond the period */
    assert_int_equal(sm_gait_orbit(ws, p, x, 1, orbit), 1);
    sm_workspace_free(ws);
}

/* A walker from a model file reports its ground measures (the group
 * "ground" of fixed --json) through the model's extra measures, among them
 * the stance knee's smallest locking torque (Garcia 1999, Table 2.1) where a
 * lock is held in every phase; straight legs have no lock (NaN) but their
 * feet's forces; closed-form walkers report none. */
static void test_kneed_walker_extra_measures(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[256];
    assert_status(sm_registry_open(SM_SOURCE_DIR "/models/kneed_mcgeer.yaml", &m, why, sizeof why), SM_OK);
    assert_non_null(m->extra_measures);
    assert_string_equal(m->extra_group, "ground");
    assert_string_equal(m->extra_names[0], "min_normal_force");
    assert_string_equal(m->extra_names[3], "min_lock_torque");
    sm_workspace *ws = workspace(m);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], v[SM_MAX_EXTRA], w[SM_MAX_EXTRA];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result fr;
    assert_status(sm_fixed_point(ws, p, x, &no, &fr), SM_OK);
    assert_true(sm_gait_extra_measures(ws, p, &fr.gait, v));
    assert_status(m->extra_measures(ws, p, fr.x, w), SM_OK);
    for (size_t i = 0; i < m->n_extra; i++)
        if (!(isnan(v[i]) && isnan(w[i]))) assert_close(v[i], w[i], 0.0);
    /* McGeer's walker keeps its stance knee locked (Garcia 1999, Table 2.1:
     * positive) and its disk on the ground */
    assert_true(v[3] > 0);
    assert_true(v[0] > 0);
    sm_workspace_free(ws);
    sm_registry_close(m);

    /* Straight legs: no lock, but the foot's forces. */
    assert_status(sm_registry_open(SM_SOURCE_DIR "/models/compass.yaml", &m, why, sizeof why), SM_OK);
    ws = workspace(m);
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    assert_status(sm_fixed_point(ws, p, x, &no, &fr), SM_OK);
    assert_true(sm_gait_extra_measures(ws, p, &fr.gait, v));
    assert_true(isnan(v[3]));
    assert_true(v[0] > 0);
    sm_workspace_free(ws);
    sm_registry_close(m);

    const sm_model *simplest = test_model("simplest");
    assert_null(simplest->extra_measures);
    ws = workspace(simplest);
    sm_gait g;
    memset(&g, 0, sizeof g);
    assert_false(sm_gait_extra_measures(ws, p, &g, v));
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logistic_multipliers_and_verdict),
        cmocka_unit_test(test_conserved_quantity_multiplier_is_set_aside),
        cmocka_unit_test(test_period_two_orbit_visits_both_points),
        cmocka_unit_test(test_kneed_walker_extra_measures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
