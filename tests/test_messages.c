/* The library names its own things: no message it writes names a flag of
 * the stridemap program ("--rtol") or one of its subcommands ("stridemap
 * params"), which a C caller of the library does not have.  Each message is
 * triggered for real, through every option check and the grid parser. */
#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"

static int n_seen;

/* why must say something, in the library's own words. */
static void expect_library_words(const char *why, const char *what)
{
    if (strlen(why) < 3) fail_msg("%s: no message", what);
    if (strstr(why, "--")) fail_msg("%s names a flag: \"%s\"", what, why);
    if (strstr(why, "stridemap ")) fail_msg("%s names a subcommand: \"%s\"", what, why);
    n_seen++;
}

static void test_status_messages(void **state)
{
    (void)state;
    for (int s = 0; s < SM_STATUS_COUNT; s++) expect_library_words(sm_strerror((sm_status)s), sm_status_name((sm_status)s));
}

static void test_solver_option_messages(void **state)
{
    (void)state;
    char why[512];
    sm_solver_options o;
    for (int k = 0; k < 6; k++) {
        sm_solver_options_default(&o);
        switch (k) {
        case 0: o.rtol = 2; break;
        case 1: o.atol = -1; break;
        case 2: o.max_step = -1; break;
        case 3: o.t_max = NAN; break;
        case 4: o.max_order = 99; break;
        default: o.max_num_steps = 0; break;
        }
        why[0] = '\0';
        assert_status(sm_solver_options_check(&o, why, sizeof why), SM_BAD_OPTION);
        expect_library_words(why, "sm_solver_options_check");
    }
    /* The message names the field a C caller sets. */
    sm_solver_options_default(&o);
    o.rtol = 2;
    sm_solver_options_check(&o, why, sizeof why);
    assert_string_equal(why, "sm_solver_options.rtol must be a number in (0, 1), not 2");
}

static void test_newton_option_messages(void **state)
{
    (void)state;
    char why[512];
    sm_newton_options o;
    for (int k = 0; k < 4; k++) {
        sm_newton_options_default(&o);
        switch (k) {
        case 0: o.period = 0; break;
        case 1: o.tol = 0; break;
        case 2: o.max_iter = -1; break;
        default: o.fd_step = 2; break;
        }
        why[0] = '\0';
        assert_status(sm_newton_options_check(&o, why, sizeof why), SM_BAD_OPTION);
        expect_library_words(why, "sm_newton_options_check");
    }
}

static void test_continuation_option_messages(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    char why[512];
    sm_cont_options o;
    for (int k = 0; k < 6; k++) {
        sm_cont_options_default(&o, m, 0);
        o.lo = 0.001;
        o.hi = 0.02;
        switch (k) {
        case 0: o.period = 0; break;
        case 1: o.h0 = 10 * o.h_max; break;
        case 2: o.max_points = 0; break;
        case 3: o.tol = -1; break;
        case 4: o.fd_step = 1; break;
        default: o.weight = 0; break;
        }
        why[0] = '\0';
        assert_status(sm_cont_options_check(&o, m, why, sizeof why), SM_BAD_OPTION);
        expect_library_words(why, "sm_cont_options_check");
    }
}

static void test_search_and_orbit_option_messages(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    char why[512];
    for (int k = 0; k < 3; k++) {
        sm_search_options o;
        sm_search_options_default(m, p, &o);
        switch (k) {
        case 0: o.starts = 0; break;
        case 1: o.max_starts = 200000000; break;
        default: o.lo[0] = o.hi[0]; break;
        }
        why[0] = '\0';
        assert_status(sm_search_options_check(m, &o, why, sizeof why), SM_BAD_OPTION);
        expect_library_words(why, "sm_search_options_check");
    }
    for (int k = 0; k < 2; k++) {
        sm_orbit_options o;
        sm_orbit_options_default(&o);
        if (k == 0) o.transient = -1;
        else o.record = 0;
        why[0] = '\0';
        assert_status(sm_orbit_options_check(&o, why, sizeof why), SM_BAD_OPTION);
        expect_library_words(why, "sm_orbit_options_check");
    }
}

static void test_grid_messages(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    const char *bad[] = {"gamma",          "nosuch=0:1:3", "gamma=a:1:3",   "gamma=0.001:0.01:0",
                         "gamma=0.01:0.001:3", "gamma=0.001:0.002:1", "gamma=0.001:0.001:3",
                         "averyveryveryveryveryveryveryveryveryveryveryveryverylongname=0:1:2"};
    char why[512];
    sm_sweep_axis a;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        why[0] = '\0';
        assert_true(sm_sweep_axis_parse(m, bad[k], &a, why, sizeof why) != SM_OK);
        expect_library_words(why, bad[k]);
    }
    sm_sweep_grid g = {0};
    assert_status(sm_sweep_axis_parse(m, "gamma=0.001:0.01:3", &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_OK);
    why[0] = '\0';
    assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_BAD_OPTION);
    expect_library_words(why, "sm_sweep_grid_add");
}

static void test_sweep_open_messages(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    char dir[] = "/tmp/sm_test_messages_XXXXXX", why[1024];
    assert_non_null(mkdtemp(dir));
    sm_sweep_config c;
    sm_sweep *s = NULL;
    sm_sweep_axis a;
    for (int k = 0; k < 3; k++) {
        sm_sweep_config_default(&c, m);
        if (k > 0) {
            assert_status(sm_sweep_axis_parse(m, "gamma=0.001:0.01:3", &a, why, sizeof why), SM_OK);
            assert_status(sm_sweep_grid_add(&c.grid, &a, why, sizeof why), SM_OK);
        }
        if (k == 1) c.jobs = 0;
        if (k == 2) c.shard_k = 5;
        why[0] = '\0';
        assert_status(sm_sweep_open(&c, dir, "t", false, &s, why, sizeof why), SM_BAD_OPTION);
        expect_library_words(why, "sm_sweep_open");
    }
    /* A finished sweep opened again without resume. */
    sm_sweep_config_default(&c, m);
    assert_status(sm_sweep_axis_parse(m, "gamma=0.001:0.01:2", &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&c.grid, &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_open(&c, dir, "t", false, &s, why, sizeof why), SM_OK);
    assert_status(sm_sweep_start(s, why, sizeof why), SM_OK);
    assert_status(sm_sweep_wait(s, why, sizeof why), SM_OK);
    sm_sweep_free(s);
    why[0] = '\0';
    assert_status(sm_sweep_open(&c, dir, "t", false, &s, why, sizeof why), SM_BAD_OPTION);
    expect_library_words(why, "sm_sweep_open again");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_registry_messages(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[1024] = "";
    assert_status(sm_registry_open("no_such_walker", &m, why, sizeof why), SM_UNKNOWN_MODEL);
    expect_library_words(why, "sm_registry_open");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_messages),
        cmocka_unit_test(test_solver_option_messages),
        cmocka_unit_test(test_newton_option_messages),
        cmocka_unit_test(test_continuation_option_messages),
        cmocka_unit_test(test_search_and_orbit_option_messages),
        cmocka_unit_test(test_grid_messages),
        cmocka_unit_test(test_sweep_open_messages),
        cmocka_unit_test(test_registry_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
