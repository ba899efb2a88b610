/* Continuation's step sizes from those given (src/continuation_steps.c):
 * the rule 'stridemap continue --help' states, and that no default crosses
 * a step given. */
#include "test_util.h"

static sm_cont_options apply_ok(const sm_cont_steps *s, double from, double to, double weight)
{
    const sm_model *m = test_model("simplest");
    sm_cont_options o;
    sm_cont_options_default(&o, m, 0);
    o.weight = weight;
    char why[256] = "";
    assert_status(sm_cont_steps_apply(s, from, to, &o, why, sizeof why), SM_OK);
    return o;
}

/* --step-max's default: 0.02 or W |B - A| / 20, the larger; --step 1e-3 and
 * --step-min 1e-8 as they are. */
static void defaults_follow_the_span(void **state)
{
    (void)state;
    const sm_cont_steps none = {.step = 1e-3, .step_min = 1e-8};
    sm_cont_options o = apply_ok(&none, 0.009, 0.017, 1.0); /* 0.008 / 20 < 0.02 */
    assert_close(o.h_max, 0.02, 0);
    assert_close(o.h0, 1e-3, 0);
    assert_close(o.h_min, 1e-8, 0);
    o = apply_ok(&none, 5.0, 1.0, 2.0); /* 2 * 4 / 20, going down */
    assert_close(o.h_max, 0.4, 1e-15);
    assert_close(o.h0, 1e-3, 0);
}

/* A default gives way to a step given. */
static void defaults_give_way(void **state)
{
    (void)state;
    sm_cont_options o = apply_ok(&(sm_cont_steps){.step = 0.5, .step_min = 1e-8, .have_step = true}, 2.5, 2.6, 1.0);
    assert_close(o.h0, 0.5, 0);
    assert_close(o.h_max, 0.5, 0); /* above the span's 0.02 */
    o = apply_ok(&(sm_cont_steps){.step = 1e-3, .step_min = 0.05, .have_step_min = true}, 2.5, 2.6, 1.0);
    assert_close(o.h_min, 0.05, 0);
    assert_close(o.h0, 0.05, 0);
    assert_close(o.h_max, 0.05, 0);
    o = apply_ok(&(sm_cont_steps){.step = 1e-3, .step_min = 1e-8, .step_max = 1e-4, .have_step_max = true}, 2.5,
                 2.6, 1.0);
    assert_close(o.h_max, 1e-4, 0);
    assert_close(o.h0, 1e-4, 0);
    assert_close(o.h_min, 1e-8, 0);
    o = apply_ok(&(sm_cont_steps){.step = 1e-3, .step_min = 1e-3, .step_max = 1e-5, .have_step_max = true}, 2.5,
                 2.6, 1.0);
    assert_close(o.h_min, 1e-5, 0); /* the default step_min below a smaller step_max */
}

/* Whatever subset of consistent steps is given, the options hold
 * h_min <= h0 <= h_max, as sm_cont_options_check demands. */
static void every_subset_is_consistent(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    const double given[][3] = {{1e-3, 1e-8, 0.05}, {0.3, 0.1, 2.0}, {1e-6, 1e-7, 1e-5}, {0.04, 0.04, 0.04}};
    for (size_t g = 0; g < sizeof given / sizeof given[0]; g++)
        for (int mask = 0; mask < 8; mask++) {
            const sm_cont_steps s = {.step = mask & 1 ? given[g][0] : 1e-3,
                                     .step_min = mask & 2 ? given[g][1] : 1e-8,
                                     .step_max = given[g][2],
                                     .have_step = mask & 1,
                                     .have_step_min = mask & 2,
                                     .have_step_max = mask & 4};
            sm_cont_options o = apply_ok(&s, 0.0, 0.1, 1.0);
            if (s.have_step) assert_close(o.h0, s.step, 0);
            if (s.have_step_min) assert_close(o.h_min, s.step_min, 0);
            if (s.have_step_max) assert_close(o.h_max, s.step_max, 0);
            char why[256];
            if (sm_cont_options_check(&o, m, why, sizeof why) != SM_OK)
                fail_msg("given %zu, mask %d: %s", g, mask, why);
        }
}

/* Given steps that disagree are refused, naming both fields. */
static void disagreeing_steps_refused(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    const struct {
        sm_cont_steps s;
        const char *a, *b;
    } bad[] = {
        {{.step = 1e-3, .step_min = 1.0, .step_max = 0.5, .have_step_min = true, .have_step_max = true},
         "sm_cont_steps.step_min 1 ", "sm_cont_steps.step_max 0.5"},
        {{.step = 1e-9, .step_min = 1e-3, .have_step = true, .have_step_min = true}, "sm_cont_steps.step 1e-09",
         "sm_cont_steps.step_min 0.001"},
        {{.step = 1.0, .step_min = 1e-8, .step_max = 0.5, .have_step = true, .have_step_max = true},
         "sm_cont_steps.step 1 ", "sm_cont_steps.step_max 0.5"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sm_cont_options o;
        sm_cont_options_default(&o, m, 0);
        char why[256] = "";
        assert_status(sm_cont_steps_apply(&bad[i].s, 0.0, 1.0, &o, why, sizeof why), SM_BAD_OPTION);
        assert_non_null(strstr(why, bad[i].a));
        assert_non_null(strstr(why, bad[i].b));
        assert_null(strchr(why, '\n'));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_follow_the_span),
        cmocka_unit_test(defaults_give_way),
        cmocka_unit_test(every_subset_is_consistent),
        cmocka_unit_test(disagreeing_steps_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
