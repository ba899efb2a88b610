/* The pd law's feedforward term and the nine-segment human's gait
 * (models/human9.yaml, docs/body-walkers.md, controller: feedforward).
 * - feedforward: a block pushed by u(s) = c0 + c1 s along its own phase
 *   variable (the output vanishing identically, so the feedback adds
 *   nothing) against the closed form of m x'' = c0 + c1 x. */
#include "hzd_checks.h"

#define BLOCK SM_SOURCE_DIR "/tests/data/body_models/feedforward_block.yaml"

static void test_feedforward_block_closed_form(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(BLOCK);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const double mass = 2.0;
    for (int k = 0; k < 2; k++) {
        const double c0 = k ? 3.0 : 2.0, c1 = k ? 1.5 : 6.0;
        p[sm_model_param_index(m, "c0")] = c0;
        p[sm_model_param_index(m, "c1")] = c1;
        m->guess(x, p, m->data);
        sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, xo, &mt, NULL), SM_OK);
        const double w = sqrt(c1 / mass);
        assert_close(mt.period, acosh(1.0 + c1 / c0) / w, 1e-8);
        /* block_x_dot after block_x and block_z */
        assert_close(xo[2], sqrt(2.0 * (c0 + c1 / 2.0) / mass), 1e-8);
        sm_workspace_free(ws);
    }
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feedforward_block_closed_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
