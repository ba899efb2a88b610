/* The CLI's one table (src/cli/args.c) from library words to flags: every
 * status message and every option message the library writes reads in the
 * program's own words, with no struct field left over. */
#include <getopt.h>

#include "test_util.h"
#include "../src/cli/cli.h"

static void expect_cli_words(const char *lib, const char *what)
{
    char out[2048];
    cli_lib_text(lib, out, sizeof out);
    if (strstr(out, "sm_") || strstr(out, "SM_")) fail_msg("%s: a library name is left in \"%s\"", what, out);
}

static void every_status_reads_in_flags(void **state)
{
    (void)state;
    char buf[1024];
    for (int s = 0; s < SM_STATUS_COUNT; s++) {
        cli_strerror((sm_status)s, buf, sizeof buf);
        if (strstr(buf, "sm_") || strstr(buf, "SM_")) fail_msg("%s: \"%s\"", sm_status_name((sm_status)s), buf);
    }
    /* Today's texts, word for word. */
    assert_string_equal(cli_strerror(SM_STALLED, buf, sizeof buf),
                        "Newton's method stalled near the integration error: the stride map is too noisy at these "
                        "tolerances to bring the residual below --tol (tighten --rtol/--atol, or use --central or "
                        "another --fd-step)");
    assert_string_equal(cli_strerror(SM_INTEGRATOR_FAILED, buf, sizeof buf),
                        "the ODE integrator failed (try looser --rtol/--atol or --method bdf)");
    assert_string_equal(cli_strerror(SM_NO_HEELSTRIKE, buf, sizeof buf),
                        "no heel-strike within the stride time limit (raise --tmax or change the start)");
    assert_string_equal(cli_strerror(SM_STIFF, buf, sizeof buf),
                        "the equations are stiff: Adams' fixed-point iteration keeps failing at tiny steps (use "
                        "--method bdf)");
    assert_string_equal(cli_strerror(SM_DEGENERATE_GAIT, buf, sizeof buf),
                        "the fixed point is not a gait: its step has zero length or takes no time (standing with the "
                        "legs together); try another --guess");
    assert_string_equal(cli_strerror(SM_UNKNOWN_MODEL, buf, sizeof buf), "no such model (see 'stridemap models')");
    assert_string_equal(cli_strerror(SM_UNKNOWN_PARAM, buf, sizeof buf),
                        "no such parameter (see 'stridemap params MODEL')");
}

static void option_messages_read_in_flags(void **state)
{
    (void)state;
    char why[512], out[1024];
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.max_step = -1;
    sm_solver_options_check(&so, why, sizeof why);
    assert_string_equal(cli_lib_text(why, out, sizeof out),
                        "--max-step must be a finite number >= 0 (0: no limit), not -1");
    sm_newton_options no;
    for (int k = 0; k < 4; k++) {
        sm_newton_options_default(&no);
        if (k == 0) no.period = 0;
        if (k == 1) no.tol = 0;
        if (k == 2) no.max_iter = -1;
        if (k == 3) no.fd_step = 2;
        sm_newton_options_check(&no, why, sizeof why);
        expect_cli_words(why, "sm_newton_options_check");
    }
    const sm_model *m = test_model("simplest");
    sm_cont_options co;
    for (int k = 0; k < 6; k++) {
        sm_cont_options_default(&co, m, 0);
        co.lo = 0.001;
        co.hi = 0.02;
        if (k == 0) co.period = 0;
        if (k == 1) co.h0 = 10 * co.h_max;
        if (k == 2) co.max_points = 0;
        if (k == 3) co.tol = -1;
        if (k == 4) co.fd_step = 1;
        if (k == 5) co.weight = 0;
        sm_cont_options_check(&co, m, why, sizeof why);
        expect_cli_words(why, "sm_cont_options_check");
    }
    sm_orbit_options oo;
    sm_orbit_options_default(&oo);
    oo.record = 0;
    sm_orbit_options_check(&oo, why, sizeof why);
    assert_string_equal(cli_lib_text(why, out, sizeof out), "--record must be a whole number from 1 to 1e6, not 0");
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    sm_search_options se;
    sm_search_options_default(m, p, &se);
    se.lo[0] = se.hi[0];
    sm_search_options_check(m, &se, why, sizeof why);
    expect_cli_words(why, "sm_search_options_check");
    assert_non_null(strstr(cli_lib_text(why, out, sizeof out), "--box: "));
    sm_sweep_axis a;
    sm_sweep_axis_parse(m, "gamma=0.001:0.002:1", &a, why, sizeof why);
    assert_string_equal(cli_lib_text(why, out, sizeof out),
                        "--grid gamma: one point needs LO = HI (or use --set gamma=VALUE)");
    /* A field is a whole name: a longer identifier is left alone. */
    assert_string_equal(cli_lib_text("sm_sweep_axis_parse and sm_solver_options.rtolx", out, sizeof out),
                        "sm_sweep_axis_parse and sm_solver_options.rtolx");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_status_reads_in_flags),
        cmocka_unit_test(option_messages_read_in_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
