/* Kinetic friction on a slide that starts at rest (src/body/eval.c): with no
 * sliding velocity to take its sign from, friction must oppose the motion
 * that starts.  A block on a slope steeper than atan(mu), released from
 * rest, slides downhill with the closed-form a = g (sin γ − μ cos γ); with
 * friction the wrong way it would accelerate at g (sin γ + μ cos γ).  The
 * same block on the mirrored slope checks the other sign. */
#include "test_util.h"

#include "../src/body/body_model.h"
#include "stridemap/registry.h"

static void accel_from_rest(double slope, double *ax, double *az)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(SM_SOURCE_DIR "/tests/data/friction/block.yaml", &m, why, sizeof why) != SM_OK)
        fail_msg("%s", why);
    const body_model *bm = (const body_model *)(const void *)m;
    double p[SM_MAX_PARAMS];
    memcpy(p, bm->defaults, sizeof p);
    const int k = sm_model_param_index(m, "slope");
    assert_true(k >= 0);
    p[k] = slope;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    const double x[4] = {0, 0, 0, 0};
    double vdot[2], lambda[1];
    assert_status(body_phase_solve(&e, 0, x, vdot, lambda, NULL, NULL), SM_OK);
    *ax = vdot[0];
    *az = vdot[1];
    sm_registry_close(m);
}

static void test_slides_downhill_from_rest(void **state)
{
    (void)state;
    const double g = 9.81, mu = 0.2, gamma = 0.3;
    const double a = g * (sin(gamma) - mu * cos(gamma));
    double ax, az;
    accel_from_rest(-gamma, &ax, &az); /* downhill is -x */
    assert_close(ax, -a, 1e-12);
    assert_close(az, 0.0, 1e-12);
    accel_from_rest(gamma, &ax, &az); /* downhill is +x */
    assert_close(ax, a, 1e-12);
    assert_close(az, 0.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slides_downhill_from_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
