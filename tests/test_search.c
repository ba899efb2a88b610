/* Gaits without a guess (search.h): the simplest walker's two period-one
 * gaits at gamma = 0.009, found from the model's own box. */
#include <math.h>
#include <string.h>

#include "stridemap/search.h"
#include "test_util.h"

static void finds_both_published_gaits(void **state)
{
    const sm_model *m = test_model("simplest");
    double p[1] = {GARCIA_GAMMA};
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_newton_options nw;
    sm_newton_options_default(&nw);
    nw.max_iter = 20;
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    sm_fixed_result found[8];
    int period[8];
    size_t n = 0, failed = 0;
    assert_status(sm_search(ws, p, &nw, &so, found, period, 8, &n, &failed), SM_OK);
    assert_int_equal(n, 2);
    assert_int_equal(n + failed <= so.starts, 1);
    int stable = found[0].stable ? 0 : 1, unstable = 1 - stable;
    assert_true(found[stable].stable && !found[unstable].stable);
    assert_close(found[stable].x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(found[stable].x[1], GARCIA_STABLE_THETA_DOT, 1e-8);
    assert_close(found[unstable].x[0], GARCIA_UNSTABLE_THETA, 1e-8);
    assert_close(found[unstable].x[1], GARCIA_UNSTABLE_THETA_DOT, 1e-8);
    assert_int_equal(period[0], 1);
    assert_int_equal(period[1], 1);

    /* Deterministic: the same starts give the same gaits in the same order. */
    sm_fixed_result again[8];
    size_t n2 = 0, failed2 = 0;
    assert_status(sm_search(ws, p, &nw, &so, again, period, 8, &n2, &failed2), SM_OK);
    assert_int_equal(n2, n);
    assert_int_equal(failed2, failed);
    for (size_t i = 0; i < n; i++) assert_memory_equal(again[i].x, found[i].x, 4 * sizeof(double));
    sm_workspace_free(ws);
}

static void a_bad_box_is_refused(void **state)
{
    const sm_model *m = test_model("simplest");
    double p[1] = {GARCIA_GAMMA};
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    char why[256];
    so.lo[1] = so.hi[1];
    assert_status(sm_search_options_check(m, &so, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "theta_dot"));
    sm_search_options_default(m, p, &so);
    so.starts = 0;
    assert_status(sm_search_options_check(m, &so, why, sizeof why), SM_BAD_OPTION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_both_published_gaits),
        cmocka_unit_test(a_bad_box_is_refused),
    };
    return cmocka_run_group_tests_name("search", tests, NULL, NULL);
}
