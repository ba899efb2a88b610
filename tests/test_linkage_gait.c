/* Gaits of the kneed model files and their knee measures
 * (src/linkage/gait.c): Chen's and McGeer's walkers, the stance knee's
 * locking torque and heel-strike impulse, and multipliers that converge
 * with the integration tolerance. */
#include "linkage_util.h"

/* Hsu Chen's kneed walker: Newton finds the stable gait from a rough start,
 * and the gait measures of the file model match the closed-form compass. */
static void test_kneed_hsu_gait(void **state)
{
    sm_linkage *lk = load_ok("tests/data/linkage_models/kneed_hsu.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    double x0[SM_MAX_STATE];
    m->guess(x0, p, m->data); /* the file's rough start */
    sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x0, &no, &r), SM_OK);
    assert_true(r.stable);
    /* Chen's gait with the masses, as the independent closed form of
     * tests/kneed_closed_form.h finds it (tests/test_kneed_cross.c). */
    assert_close(r.x[0], 0.2396419965, 1e-8);
    assert_close(r.max_abs_eig, 0.741003599, 1e-5);
    /* the file assumes the stance knee locked: its torque is negative early
     * in the step (see models/kneed_hsu.yaml) */
    assert_true(sm_linkage_knee_lock_torque(lk, p, 0, r.x) < 0);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* McGeer's kneed walker with round feet: a stable gait whose stance knee
 * stays locked, with its Table 2.1 characteristics; a smaller foot offset
 * unlocks the knee and is reported as such. */
static void test_kneed_mcgeer_gait(void **state)
{
    sm_linkage *lk = load_ok("tests/data/linkage_models/kneed_mcgeer.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const double x0[6] = {0.2, -0.35, -0.35, -1.1, 0.1, -2.0};
    sm_solver_options o;
    sm_solver_options_default(&o);
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x0, &no, &r), SM_OK);
    assert_true(r.stable);
    assert_close(r.max_abs_eig, 0.4577403, 1e-5);
    double lock = NAN, imp = NAN;
    assert_status(sm_linkage_knee_measures(m, &o, p, r.x, &lock, &imp), SM_OK);
    assert_close(lock, 0.194842, 1e-4);
    assert_close(imp, 0.0374573, 1e-5);
    assert_true(r.metrics.step_length > 0.3);

    set_param(m, p, "foot.offset", 0.0);
    double y[SM_MAX_STATE];
    assert_status(sm_stride(ws, p, r.x, y, NULL, NULL), SM_KNEE_UNLOCKED);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* The multipliers of a kneed gait, by central differences of one fixed step
 * h, converge as the integration tolerance goes from 1e-10 to 1e-13: the
 * integrator's error in P, divided by h, is all that changes.  Newton with
 * that step converges at every tolerance, as it does with forward
 * differences of 1e-5 (a knee locking at once for one sign of the step
 * stopped both).  h = 1e-2 puts that error near 1e-9 at rtol 1e-12; the
 * stencil's own truncation error does not move with rtol. */
static void check_multipliers_converge(const char *rel)
{
    const double h = 1e-2;
    static sm_fixed_result r[4];
    for (int k = 0; k < 4; k++) {
        const double rtol = pow(10.0, -10 - k);
        if (kneed_gait(rel, rtol, h, true, &r[k]) != SM_OK)
            fail_msg("%s: no gait at rtol %g with fd_step %g (%s)", rel, rtol, h, sm_status_name(r[k].status));
        static sm_fixed_result f;
        if (kneed_gait(rel, rtol, 1e-5, false, &f) != SM_OK)
            fail_msg("%s: no gait at rtol %g with fd_step 1e-5 (%s)", rel, rtol, sm_status_name(f.status));
    }
    double d[3];
    for (int k = 0; k < 3; k++) {
        d[k] = 0;
        for (size_t i = 0; i < r[k].n_free; i++)
            d[k] = fmax(d[k], hypot(r[k].eig_re[i] - r[k + 1].eig_re[i], r[k].eig_im[i] - r[k + 1].eig_im[i]));
    }
    print_message("%s: multipliers move by %.2g, %.2g, %.2g from rtol 1e-10 to 1e-13\n", rel, d[0], d[1], d[2]);
    assert_true(d[2] < d[0]);
    assert_true(d[2] <= 2e-8);
}

static void test_kneed_multipliers_converge(void **state)
{
    check_multipliers_converge("tests/data/linkage_models/kneed_hsu.yaml");
    check_multipliers_converge("tests/data/linkage_models/kneed_mcgeer.yaml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kneed_hsu_gait),
        cmocka_unit_test(test_kneed_mcgeer_gait),
        cmocka_unit_test(test_kneed_multipliers_converge),
    };
    return cmocka_run_group_tests_name("linkage_gait", tests, NULL, NULL);
}
