/* The flat interface (ffi.h) from C, as a binding calls it, so that the
 * sanitizers see it too (the Python tests cannot run under them): names,
 * refusals, a published gait, trajectories, branches, a sweep, and every
 * handle released. */
#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"
#include "stridemap/ffi.h"

static sm_ffi_model *open_model(const char *name)
{
    sm_ffi_model *h = NULL;
    char why[512];
    assert_status(sm_ffi_open(name, &h, why, sizeof why), SM_OK);
    assert_non_null(h);
    return h;
}

static void names_and_refusals(void **state)
{
    (void)state;
    sm_ffi_model *h = NULL;
    char why[512] = "";
    assert_status(sm_ffi_open("no_such_walker", &h, why, sizeof why), SM_UNKNOWN_MODEL);
    assert_null(h);
    assert_non_null(strstr(why, "no_such_walker"));

    h = open_model("simplest");
    assert_string_equal(sm_ffi_model_text(h, "name"), "simplest");
    assert_int_equal(sm_ffi_n_state(h), 4);
    assert_int_equal(sm_ffi_n_free(h), 2);
    assert_string_equal(sm_ffi_state_name(h, sm_ffi_free_index(h, 1)), "theta_dot");
    assert_null(sm_ffi_state_name(h, 4));
    size_t n_events = sm_ffi_n_events(h);
    assert_true(n_events > 0);
    assert_non_null(sm_ffi_event_name(h, n_events - 1));
    assert_null(sm_ffi_event_name(h, n_events));
    assert_null(sm_ffi_param(h, sm_ffi_n_params(h), NULL, NULL, NULL, NULL, NULL, NULL));

    assert_status(sm_ffi_set_param(h, "gammma", 0.01), SM_UNKNOWN_PARAM);
    assert_non_null(strstr(sm_ffi_message(h), "gammma"));
    assert_status(sm_ffi_set_param(h, "gamma", 5.0), SM_BAD_PARAM);
    assert_status(sm_ffi_set_option(h, "nope", 1.0), SM_BAD_OPTION);
    assert_status(sm_ffi_set_option(h, "max_order", 13), SM_BAD_OPTION);
    assert_status(sm_ffi_set_option(h, "period", 1.5), SM_BAD_OPTION);
    assert_status(sm_ffi_set_option_text(h, "method", "rk4"), SM_BAD_OPTION);
    /* A range only the computation checks is refused there, with no result. */
    assert_status(sm_ffi_set_option(h, "rtol", -1.0), SM_OK);
    sm_ffi_gait *g = (sm_ffi_gait *)h; /* overwritten with NULL on refusal */
    assert_status(sm_ffi_fixed(h, NULL, &g), SM_BAD_OPTION);
    assert_null(g);
    assert_non_null(strstr(sm_ffi_message(h), "rtol"));
    const double nan_guess[4] = {0.2, NAN, 0.4, 0.0};
    sm_ffi_reset_options(h);
    assert_status(sm_ffi_fixed(h, nan_guess, &g), SM_BAD_STATE);
    sm_ffi_close(h);
}

static void garcias_gait(void **state)
{
    (void)state;
    sm_ffi_model *h = open_model("simplest");
    assert_status(sm_ffi_set_param(h, "gamma", 0.009), SM_OK);
    sm_ffi_gait *g = NULL;
    assert_status(sm_ffi_fixed(h, NULL, &g), SM_OK);
    double x[4], J[4], re[2], im[2], fre[2], fim[2];
    sm_ffi_gait_x(g, x);
    /* Garcia et al. (1998), to their 8 printed decimals. */
    assert_close(x[0], 0.20031090, 5e-9);
    assert_close(x[1], -0.19983247, 5e-9);
    assert_int_equal(sm_ffi_gait_jacobian(g, J), 2);
    assert_int_equal(sm_ffi_gait_eigenvalues(g, 0, re, im), 2);
    assert_int_equal(sm_ffi_gait_eigenvalues(g, 1, fre, fim), 2);
    /* The multipliers are the 2x2 Jacobian's, from its trace and determinant. */
    const double tr = J[0] + J[3], det = J[0] * J[3] - J[1] * J[2];
    assert_true(tr * tr / 4 - det < 0); /* a complex pair */
    assert_close(re[0], tr / 2, 1e-12);
    assert_close(re[0] * re[0] + im[0] * im[0], det, 1e-12);
    assert_close(fre[0], re[0], 1e-8);
    double v = 0;
    double stable = NAN, max_abs = NAN, step_length = NAN;
    for (size_t i = 0; sm_ffi_gait_value(g, 0, i, &v); i++) {
        if (strcmp(sm_ffi_gait_value(g, 0, i, &v), "stable") == 0) stable = v;
        if (strcmp(sm_ffi_gait_value(g, 0, i, &v), "max_abs_eigenvalue") == 0) max_abs = v;
    }
    for (size_t i = 0; sm_ffi_gait_value(g, 1, i, &v); i++)
        if (strcmp(sm_ffi_gait_value(g, 1, i, &v), "step_length") == 0) step_length = v;
    assert_true(stable == 1.0);
    assert_close(max_abs, sqrt(det), 1e-12);
    /* The step of a symmetric gait: 2 sin(theta*) for legs of length 1. */
    assert_close(step_length, 2 * sin(x[0]), 1e-9);
    assert_string_equal(sm_ffi_gait_family(g), "long-period");
    assert_string_equal(sm_ffi_gait_jacobian_method(g), "exact");
    double orbit[4];
    assert_int_equal(sm_ffi_gait_orbit(g, orbit), 1);
    assert_memory_equal(orbit, x, sizeof x);
    sm_ffi_gait_free(g);

    /* A guess that falls backwards: a result with its status. */
    const double falls[4] = {0.2, -0.05, 0.4, 0.0};
    assert_status(sm_ffi_fixed(h, falls, &g), SM_NOT_CONVERGED);
    assert_non_null(g);
    assert_status(sm_ffi_gait_stride_status(g), SM_FELL_BACKWARD);
    assert_int_equal(sm_ffi_gait_eigenvalues(g, 0, re, im), 0);
    assert_null(sm_ffi_gait_jacobian_method(g));
    sm_ffi_gait_free(g);
    sm_ffi_close(h);
}

/* Column j of table t by name. */
static size_t column(const sm_ffi_table *t, const char *name)
{
    for (size_t j = 0; j < sm_ffi_table_cols(t); j++)
        if (strcmp(sm_ffi_table_column(t, j), name) == 0) return j;
    fail_msg("no column %s", name);
    return 0;
}

static void trajectories(void **state)
{
    (void)state;
    sm_ffi_model *h = open_model("simplest");
    sm_ffi_table *rows = NULL, *steps = NULL;
    long done = 0;
    /* Small dt: many rows per step, past the first reservation's growth. */
    assert_status(sm_ffi_simulate(h, NULL, 4, 0.001, &rows, &steps, &done), SM_OK);
    assert_int_equal(done, 4);
    const size_t n = sm_ffi_table_rows(rows), c = sm_ffi_table_cols(rows);
    assert_int_equal(c, 5 + 4);
    assert_int_equal(sm_ffi_table_rows(steps), 4);
    double *r = malloc(n * c * sizeof *r), s[4 * 11];
    assert_int_equal(sm_ffi_table_cols(steps), 11);
    sm_ffi_table_copy(rows, r);
    sm_ffi_table_copy(steps, s);
    /* Every heel-strike ('post' row) is one step's period after the last. */
    double last = 0;
    int k = 0;
    const size_t period = column(steps, "step_period");
    for (size_t i = 0; i < n; i++) {
        if (r[i * c] != 3) continue;
        assert_close(r[i * c + 2] - last, s[k * 11 + period], 1e-12);
        last = r[i * c + 2];
        k++;
    }
    assert_int_equal(k, 4);
    /* Samples every dt within a step. */
    assert_int_equal(r[c], 1);
    assert_close(r[c + 2], 0.001, 1e-15);
    free(r);
    sm_ffi_table_free(rows);
    sm_ffi_table_free(steps);

    const double falls[4] = {0.2, -0.05, 0.4, 0.0};
    assert_status(sm_ffi_simulate(h, falls, 3, 0, &rows, &steps, &done), SM_FELL_BACKWARD);
    assert_int_equal(done, 0);
    assert_int_equal(sm_ffi_table_rows(steps), 0);
    double last_row[9];
    const size_t m = sm_ffi_table_rows(rows);
    r = malloc(m * 9 * sizeof *r);
    sm_ffi_table_copy(rows, r);
    memcpy(last_row, r + (m - 1) * 9, sizeof last_row);
    free(r);
    assert_string_equal(sm_ffi_row_kind((int)last_row[0]), "fail");
    assert_non_null(strstr(sm_ffi_message(h), "fell_backward"));
    sm_ffi_table_free(rows);
    sm_ffi_table_free(steps);
    assert_status(sm_ffi_simulate(h, NULL, 3, 1e-9, &rows, &steps, &done), SM_BAD_OPTION);
    assert_null(rows);
    sm_ffi_close(h);
}

static void branches(void **state)
{
    (void)state;
    sm_ffi_model *h = open_model("simplest");
    const double guess[4] = {0.045, -0.047, 0, 0};
    assert_status(sm_ffi_set_option(h, "switch", 1), SM_OK);
    assert_status(sm_ffi_set_option(h, "max_period", 4), SM_OK);
    sm_ffi_table *pts = NULL, *brs = NULL;
    assert_status(sm_ffi_continue(h, "gamma", 0.0001, 0.0195, guess, &pts, &brs), SM_OK);
    const size_t n = sm_ffi_table_rows(pts), c = sm_ffi_table_cols(pts);
    assert_int_equal(c, 4 + 4 + 4 + 10);
    double *r = malloc(n * c * sizeof *r);
    sm_ffi_table_copy(pts, r);
    int pd = 0;
    for (size_t i = 0; i < n; i++) {
        const double *p = r + i * c;
        if (strcmp(sm_ffi_point_type((int)p[3]), "PD") != 0) continue;
        /* A period doubling: a multiplier of -1. */
        const double d1 = hypot(p[8] + 1, p[9]), d2 = hypot(p[10] + 1, p[11]);
        assert_true(fmin(d1, d2) < 1e-6);
        assert_int_equal((int)p[1], 1 << pd);
        pd++;
    }
    assert_int_equal(pd, 3);
    free(r);
    assert_int_equal(sm_ffi_table_rows(brs), 3);
    double b[3 * 11];
    sm_ffi_table_copy(brs, b);
    for (int i = 0; i < 3; i++) {
        assert_int_equal((int)b[i * 11 + 1], 1 << i);
        assert_string_equal(sm_ffi_stop_name((int)b[i * 11 + column(brs, "stop")]), "bound");
    }
    sm_ffi_table_free(pts);
    sm_ffi_table_free(brs);
    assert_status(sm_ffi_continue(h, "gamma", 0.01, 0.01, NULL, &pts, &brs), SM_BAD_OPTION);
    assert_status(sm_ffi_continue(h, "nope", NAN, NAN, NULL, &pts, &brs), SM_UNKNOWN_PARAM);
    assert_null(pts);
    sm_ffi_close(h);
}

/* The command that removes dir, in buf. */
static char *cmd_rm(char *buf, size_t len, const char *dir)
{
    snprintf(buf, len, "rm -rf '%s'", dir);
    return buf;
}

static void a_sweep(void **state)
{
    (void)state;
    char dir[] = "/tmp/stridemap-test-ffi-XXXXXX";
    assert_non_null(mkdtemp(dir));
    sm_ffi_model *h = open_model("compass");
    const char *const grid[] = {"gamma=0.02:0.05:4", "mh=5:15:2"};
    sm_ffi_sweep *s = NULL;
    assert_status(sm_ffi_sweep_start(h, 2, grid, dir, NULL, 2, 0, &s), SM_OK);
    long done = 0, total = 0;
    while (!sm_ffi_sweep_poll(s, &done, &total)) usleep(10000);
    assert_int_equal(done, 8);
    assert_int_equal(total, 8);
    int complete = 0;
    assert_status(sm_ffi_sweep_finish(s, &complete), SM_OK);
    assert_int_equal(complete, 1);
    char path[256], line[8192];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int lines = 0;
    while (fgets(line, sizeof line, f)) lines++;
    fclose(f);
    assert_int_equal(lines, 1 + 8);
    /* Stopped at once: no merged table, and resume finishes the grid. */
    char dir2[] = "/tmp/stridemap-test-ffi-XXXXXX";
    assert_non_null(mkdtemp(dir2));
    assert_status(sm_ffi_sweep_start(h, 2, grid, dir2, NULL, 1, 0, &s), SM_OK);
    sm_ffi_sweep_stop(s);
    assert_status(sm_ffi_sweep_finish(s, &complete), SM_OK);
    if (!complete) {
        snprintf(path, sizeof path, "%s/sweep.csv", dir2);
        assert_int_not_equal(access(path, F_OK), 0);
        assert_status(sm_ffi_sweep_start(h, 2, grid, dir2, NULL, 1, 1, &s), SM_OK);
        while (!sm_ffi_sweep_poll(s, &done, &total)) usleep(10000);
        assert_status(sm_ffi_sweep_finish(s, &complete), SM_OK);
    }
    assert_int_equal(complete, 1);
    assert_int_equal(system(cmd_rm(path, sizeof path, dir2)), 0);
    /* The same directory again, without resume: refused, nothing started. */
    assert_int_not_equal(sm_ffi_sweep_start(h, 2, grid, dir, NULL, 1, 0, &s), SM_OK);
    assert_null(s);
    assert_true(sm_ffi_message(h)[0] != '\0');
    sm_ffi_close(h);
    char cmd[300];
    assert_int_equal(system(cmd_rm(cmd, sizeof cmd, dir)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_refusals), cmocka_unit_test(garcias_gait), cmocka_unit_test(trajectories),
        cmocka_unit_test(branches), cmocka_unit_test(a_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
