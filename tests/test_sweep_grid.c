/* Grid specifications NAME=LO:HI:N and the numbering of grid points
 * (src/sweep_grid.c). */
#include "test_util.h"

static void grid_specs_parse_and_number_points(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    sm_sweep_grid g = {0};
    sm_sweep_axis a;
    char why[256];
    assert_status(sm_sweep_axis_parse(m, "gamma=0.01:0.2:20", &a, why, sizeof why), SM_OK);
    assert_string_equal(a.name, "gamma");
    assert_int_equal(a.n, 20);
    assert_close(sm_sweep_axis_value(&a, 0), 0.01, 0);
    assert_close(sm_sweep_axis_value(&a, 19), 0.2, 0);
    assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_axis_parse(m, "n=5:8:4", &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_OK);
    assert_int_equal(sm_sweep_grid_points(&g), 80);
    assert_int_equal(sm_sweep_grid_lines(&g), 4);
    double v[SM_SWEEP_MAX_AXES];
    sm_sweep_grid_values(&g, 20 * 2 + 3, v); /* i0 = 3, i1 = 2 */
    assert_close(v[0], 0.01 + 0.19 * 3 / 19, 1e-15);
    assert_close(v[1], 7, 0);
    assert_status(sm_sweep_axis_parse(m, "gamma=0.1:0.1:1", &a, why, sizeof why), SM_OK);
}

static void expect_refused(const char *spec, sm_status want, const char *needle)
{
    const sm_model *m = test_model("rimless");
    sm_sweep_axis a;
    char why[256] = "";
    sm_status st = sm_sweep_axis_parse(m, spec, &a, why, sizeof why);
    if (st != want || !strstr(why, needle)) print_error("'%s': %s (%s)\n", spec, sm_status_name(st), why);
    assert_status(st, want);
    assert_non_null(strstr(why, needle));
    assert_null(strchr(why, '\n'));
}

static void bad_grid_specs_are_refused_with_a_reason(void **state)
{
    (void)state;
    expect_refused("gamma=0.2:0.1:5", SM_BAD_PARAM, "above HI");
    expect_refused("gamma=0.1:0.2:0", SM_BAD_PARAM, "N must be");
    expect_refused("gamma=0.1:0.2:-3", SM_BAD_PARAM, "N must be");
    expect_refused("gamma=0.1:0.2:2.5", SM_BAD_PARAM, "N must be");
    expect_refused("beta=0.1:0.2:5", SM_UNKNOWN_PARAM, "no parameter 'beta'");
    expect_refused("gamma=0.1:0.2", SM_BAD_PARAM, "NAME=LO:HI:N");
    expect_refused("gamma", SM_BAD_PARAM, "NAME=LO:HI:N");
    expect_refused("=0.1:0.2:3", SM_BAD_PARAM, "NAME=LO:HI:N");
    expect_refused("gamma=0.1:0.2:3:4", SM_BAD_PARAM, "NAME=LO:HI:N");
    expect_refused("gamma=a:0.2:3", SM_BAD_PARAM, "finite");
    expect_refused("gamma=nan:0.2:3", SM_BAD_PARAM, "finite");
    expect_refused("gamma=0.1:0.2:1", SM_BAD_PARAM, "LO = HI");
    expect_refused("gamma=0.1:0.1:3", SM_BAD_PARAM, "LO < HI");
    expect_refused("gamma=0.1:0.9:3", SM_BAD_PARAM, "gamma");
    expect_refused("n=5:12:5", SM_BAD_PARAM, "whole number");

    const sm_model *m = test_model("rimless");
    sm_sweep_grid g = {0};
    sm_sweep_axis a;
    char why[256];
    assert_status(sm_sweep_axis_parse(m, "gamma=0.1:0.2:3", &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "swept twice"));

    /* A refusal states the limit, so the user knows what would be accepted. */
    expect_refused("gamma=0.1:0.2:0", SM_BAD_PARAM, "from 1 to 100000000");
    expect_refused("gamma=0.1:0.2:100000001", SM_BAD_PARAM, "from 1 to 100000000");
    char spec[128];
    snprintf(spec, sizeof spec, "%0100d=0.1:0.2:3", 7);
    expect_refused(spec, SM_BAD_OPTION, "at most 63 characters");
    sm_sweep_grid big = {0};
    sm_sweep_axis wide = {.name = "gamma", .param = 1, .lo = 0, .hi = 0.1, .n = 100000};
    assert_status(sm_sweep_grid_add(&big, &wide, why, sizeof why), SM_OK);
    wide = (sm_sweep_axis){.name = "g", .param = 2, .lo = 1, .hi = 10, .n = 10001};
    assert_status(sm_sweep_grid_add(&big, &wide, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "100000 x 10001"));
    assert_non_null(strstr(why, "at most 1000000000"));
    wide.n = 10000; /* exactly 10^9 */
    assert_status(sm_sweep_grid_add(&big, &wide, why, sizeof why), SM_OK);
}

/* Point index i = i0 + n0 (i1 + n1 i2): the first axis varies fastest. */
static void points_number_first_axis_fastest(void **state)
{
    (void)state;
    const sm_model *m = test_model("compass");
    sm_sweep_grid g = {0};
    sm_sweep_axis a;
    char why[256];
    const char *specs[3] = {"a=0.1:0.5:5", "b=0.2:0.8:4", "mh=1:13:3"};
    for (size_t k = 0; k < 3; k++) {
        assert_status(sm_sweep_axis_parse(m, specs[k], &a, why, sizeof why), SM_OK);
        assert_status(sm_sweep_grid_add(&g, &a, why, sizeof why), SM_OK);
    }
    assert_int_equal(sm_sweep_grid_points(&g), 5 * 4 * 3);
    assert_int_equal(sm_sweep_grid_lines(&g), 4 * 3);
    for (long i2 = 0; i2 < 3; i2++)
        for (long i1 = 0; i1 < 4; i1++)
            for (long i0 = 0; i0 < 5; i0++) {
                double v[SM_SWEEP_MAX_AXES];
                sm_sweep_grid_values(&g, i0 + 5 * (i1 + 4 * i2), v);
                assert_close(v[0], 0.1 + 0.1 * (double)i0, 1e-15);
                assert_close(v[1], 0.2 + 0.2 * (double)i1, 1e-15);
                assert_close(v[2], 1.0 + 6.0 * (double)i2, 1e-14);
            }
    sm_sweep_grid empty = {0};
    assert_int_equal(sm_sweep_grid_points(&empty), 0);
    assert_int_equal(sm_sweep_grid_lines(&empty), 0);
}

/* The ends of an axis are LO and HI exactly (no rounding off the range a
 * parameter is checked against), the points between evenly spaced. */
static void axis_ends_are_exact(void **state)
{
    (void)state;
    const sm_sweep_axis a = {.name = "x", .lo = 0.1, .hi = 0.7, .n = 7};
    assert_true(sm_sweep_axis_value(&a, 0) == 0.1);
    assert_true(sm_sweep_axis_value(&a, 6) == 0.7);
    for (long i = 0; i < 7; i++) assert_close(sm_sweep_axis_value(&a, i), 0.1 + 0.1 * (double)i, 1e-15);
    const sm_sweep_axis one = {.name = "x", .lo = 0.3, .hi = 0.3, .n = 1};
    assert_true(sm_sweep_axis_value(&one, 0) == 0.3);
}

/* Shard K of N owns the lines l with l mod N = K: together the shards own
 * every line once; without shards one run owns them all. */
static void shards_own_every_line_once(void **state)
{
    (void)state;
    for (int n = 1; n <= 5; n++) {
        for (long l = 0; l < 23; l++) {
            int owners = 0;
            for (int k = 0; k < n; k++) {
                sm_sweep_config c = {.shard_k = k, .shard_n = n};
                if (sm_sweep_owns_line(&c, l)) {
                    owners++;
                    assert_int_equal(l % n, k);
                }
            }
            assert_int_equal(owners, 1);
        }
    }
    sm_sweep_config whole = {0};
    assert_true(sm_sweep_owns_line(&whole, 17));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grid_specs_parse_and_number_points),
        cmocka_unit_test(bad_grid_specs_are_refused_with_a_reason),
        cmocka_unit_test(points_number_first_axis_fastest),
        cmocka_unit_test(axis_ends_are_exact),
        cmocka_unit_test(shards_own_every_line_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
