/* The stridemap program as a user meets it: exit codes, one-line errors,
 * JSON an analysis script can rely on, CSV that keeps every row up to a fall.
 * The binary's path comes as argv[1]. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "test_util.h"

static double num(json_t *doc, const char *key)
{
    json_t *v = json_object_get(doc, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void fixed_json_reports_the_published_gait(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--set", "gamma=0.009", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_error_t jerr;
    json_t *doc = json_loads(r->out, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "model")), "simplest");
    assert_string_equal(json_string_value(json_object_get(doc, "status")), "ok");
    assert_true(json_is_true(json_object_get(doc, "converged")));
    assert_true(json_is_true(json_object_get(doc, "stable")));
    assert_close(num(json_object_get(doc, "params"), "gamma"), 0.009, 0);
    json_t *names = json_object_get(doc, "state_names");
    assert_int_equal(json_array_size(names), 4);
    assert_string_equal(json_string_value(json_array_get(names, 0)), "theta");
    json_t *x = json_object_get(doc, "fixed_point");
    assert_int_equal(json_array_size(x), 4);
    /* Garcia et al. (1998), Table 1. */
    assert_close(json_number_value(json_array_get(x, 0)), 0.20031090049483, 1e-8);
    assert_close(json_number_value(json_array_get(x, 1)), -0.19983247291764, 1e-8);
    json_t *eig = json_object_get(doc, "eigenvalues");
    assert_int_equal(json_array_size(eig), 2);
    double max_abs = 0;
    for (size_t i = 0; i < 2; i++) {
        json_t *pair = json_array_get(eig, i);
        max_abs = fmax(max_abs, hypot(json_number_value(json_array_get(pair, 0)),
                                      json_number_value(json_array_get(pair, 1))));
    }
    assert_close(num(doc, "max_abs_eigenvalue"), max_abs, 1e-15);
    assert_true(max_abs < 1.0);
    assert_true(num(doc, "iterations") >= 1);
    assert_true(num(doc, "residual") <= 1e-10);
    /* Two legs of unit length at +-theta: step length 2 sin(theta*). */
    assert_close(num(doc, "step_length"), 2 * sin(0.20031090049483), 1e-8);
    assert_close(num(doc, "speed"), num(doc, "step_length") / num(doc, "step_period"), 1e-12);
    json_decref(doc);
}

static void contact_checks_follow_mu(void **state)
{
    (void)state;
    /* The simplest walker's stance leg leans up to theta* = 0.2003, so it
     * needs |Ft/Fn| = tan(0.2003) = 0.2030: enough with mu = 1, not 0.1. */
    for (int k = 0; k < 2; k++) {
        cli_result *r = cli_run("fixed", "simplest", "--json", "--mu", k == 0 ? "1" : "0.1", NULL);
        assert_int_equal(r->status, 0);
        json_t *doc = json_loads(r->out, 0, NULL);
        assert_non_null(doc);
        json_t *contact = json_object_get(doc, "contact");
        assert_true(json_is_true(json_object_get(contact, "unilateral")));
        assert_true(json_is_boolean(json_object_get(contact, "no_slip")));
        assert_int_equal(json_is_true(json_object_get(contact, "no_slip")), k == 0);
        assert_close(num(doc, "max_friction_ratio"), tan(0.20031090049483), 1e-8);
        assert_close(num(doc, "cost_of_transport"), sin(0.009), 1e-7);
        /* a point-foot walker is judged on its stance foot, mu the option's */
        assert_string_equal(json_string_value(json_object_get(contact, "judged")), "the stance foot");
        assert_true(json_is_null(json_object_get(contact, "per_foot")));
        assert_string_equal(json_string_value(json_object_get(contact, "mu_from")), "option");
        assert_close(num(contact, "max_friction_ratio"), num(doc, "max_friction_ratio"), 0);
        json_decref(doc);
    }
    /* without --mu: the simplest walker declares none, so 1 */
    cli_result *r = cli_run("fixed", "simplest", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    json_t *contact = json_object_get(doc, "contact");
    assert_string_equal(json_string_value(json_object_get(contact, "mu_from")), "default");
    assert_close(num(contact, "mu"), 1.0, 0);
    json_decref(doc);
    cli_expect_error(cli_run("fixed", "simplest", "--mu", "-1", NULL), 65, "--mu");
    /* a body walker's feet: the compass stands on one point per foot, so
     * the seed's per-foot check reads that point's force, as the strict
     * verdict does */
    r = cli_run("fixed", SM_SOURCE_DIR "/models/compass.yaml", "--json", NULL);
    assert_int_equal(r->status, 0);
    doc = json_loads(r->out, 0, NULL);
    contact = json_object_get(doc, "contact");
    json_t *foot = json_object_get(contact, "per_foot");
    assert_true(json_is_true(json_object_get(foot, "unilateral")) && json_is_true(json_object_get(foot, "no_slip")));
    assert_true(num(foot, "min_normal_force") > 0);
    assert_close(num(foot, "min_normal_force"), num(contact, "min_normal_force"), 0);
    assert_close(num(foot, "max_friction_ratio"), num(contact, "max_friction_ratio"), 0);
    json_decref(doc);
}

static void a_limping_gait_at_0016(void **state)
{
    (void)state;
    /* Garcia et al. (1998): past gamma ~ 0.015 the period-1 gait is unstable
     * and a stable period-2 gait takes over; its two steps differ. */
    cli_result *r = cli_run("fixed", "simplest", "--set", "gamma=0.016", "--period", "2", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    assert_int_equal((int)num(doc, "period"), 2);
    assert_true(json_is_true(json_object_get(doc, "stable")));
    json_t *orbit = json_object_get(doc, "orbit");
    assert_int_equal(json_array_size(orbit), 2);
    const double th0 = json_number_value(json_array_get(json_array_get(orbit, 0), 0));
    const double th1 = json_number_value(json_array_get(json_array_get(orbit, 1), 0));
    assert_true(fabs(th0 - th1) > 1e-3);
    json_decref(doc);
    /* The period-1 gait there exists but is unstable, with a multiplier past -1. */
    r = cli_run("fixed", "simplest", "--set", "gamma=0.016", "--json", NULL);
    assert_int_equal(r->status, 0);
    doc = json_loads(r->out, 0, NULL);
    assert_true(json_is_false(json_object_get(doc, "stable")));
    assert_true(json_number_value(json_array_get(json_array_get(json_object_get(doc, "eigenvalues"), 0), 0)) < -1);
    json_decref(doc);
}

static void search_lists_both_gaits_without_a_guess(void **state)
{
    (void)state;
    cli_result *r = cli_run("search", "simplest", "--set", "gamma=0.009", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    json_t *gaits = json_object_get(doc, "gaits");
    assert_int_equal(json_array_size(gaits), 2);
    int stable = 0;
    for (size_t i = 0; i < 2; i++) stable += json_is_true(json_object_get(json_array_get(gaits, i), "stable"));
    assert_int_equal(stable, 1);
    json_decref(doc);
    cli_expect_error(cli_run("search", "simplest", "--box", "0.1:0.3", NULL), 65, "--box needs 2");
    cli_expect_error(cli_run("search", "simplest", "--box", "0.3:0.1,-0.3:-0.1", NULL), 65, "LO < HI");
    cli_expect_error(cli_run("search", "simplest", "--starts", "0", NULL), 65, "--starts");
}

static void fixed_text_says_stable(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "stable       yes"));
}

static void the_unstable_gait_is_found_and_called_unstable(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--guess", "0.19,-0.2,0.38,-0.01", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    json_t *x = json_object_get(doc, "fixed_point");
    assert_close(json_number_value(json_array_get(x, 0)), 0.19393736960624, 1e-8);
    assert_close(json_number_value(json_array_get(x, 1)), -0.20386692731962, 1e-8);
    assert_true(json_is_false(json_object_get(doc, "stable")));
    assert_close(num(doc, "max_abs_eigenvalue"), 4.0, 0.01); /* published: 4.000 */
    json_decref(doc);
}

static void hopeless_guess_is_no_gait_not_a_crash(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--guess", "1.2,3,2.4,0", "--json", NULL);
    assert_int_equal(r->status, 1);
    assert_int_equal(cli_count_lines(r->err), 1);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    assert_true(json_is_false(json_object_get(doc, "converged")));
    assert_string_equal(json_string_value(json_object_get(doc, "status")), "not_converged");
    assert_int_equal(json_array_size(json_object_get(doc, "eigenvalues")), 0);
    json_decref(doc);
}

static void bad_input_gets_one_line_and_a_sysexits_code(void **state)
{
    (void)state;
    cli_expect_error(cli_run("fixed", "nosuch", NULL), 64, "unknown model 'nosuch'");
    cli_expect_error(cli_run("fixed", "simplest", "--set", "beta=1", NULL), 64, "no parameter 'beta'");
    cli_expect_error(cli_run("fixed", "simplest", "--set", "gamma", NULL), 64, "NAME=VALUE");
    cli_expect_error(cli_run("fixed", "simplest", "--set", "gamma=nan", NULL), 65, "finite");
    cli_expect_error(cli_run("fixed", "simplest", "--set", "gamma=inf", NULL), 65, "finite");
    cli_expect_error(cli_run("fixed", "simplest", "--set", "gamma=5", NULL), 65, "[-0.5, 0.5]");
    cli_expect_error(cli_run("fixed", "simplest", "--set", "gamma=0.01x", NULL), 65, "not a number");
    cli_expect_error(cli_run("fixed", "rimless", "--set", "n=7.5", NULL), 65, "whole number");
    cli_expect_error(cli_run("fixed", "simplest", "--guess", "0.2,abc,0,0", NULL), 65, "'abc'");
    cli_expect_error(cli_run("fixed", "simplest", "--guess", "0.2,-0.2", NULL), 65, "needs 4");
    cli_expect_error(cli_run("fixed", "simplest", "--guess", "0.2,-0.2,0,0,0", NULL), 65, "needs 4");
    cli_expect_error(cli_run("fixed", "simplest", "--guess", "0.2,nan,0,0", NULL), 65, "finite");
    cli_expect_error(cli_run("fixed", "simplest", "--rtol", "0", NULL), 65, "--rtol");
    cli_expect_error(cli_run("fixed", "simplest", "--period", "0", NULL), 65, "--period");
    cli_expect_error(cli_run("fixed", "simplest", "--method", "rk4", NULL), 65, "--method");
    cli_expect_error(cli_run("fixed", "simplest", "--method", "bdf", "--max-order", "7", NULL), 65, "--max-order");
    cli_expect_error(cli_run("fixed", "simplest", "--max-order", "13", NULL), 65, "--max-order");
    cli_expect_error(cli_run("fixed", "simplest", "--bogus", NULL), 64, "unknown option '--bogus'");
    cli_expect_error(cli_run("fixed", "simplest", "--guess", NULL), 64, "needs a value");
    cli_expect_error(cli_run("fixed", NULL), 64, "which model");
    cli_expect_error(cli_run("fixed", "simplest", "rimless", NULL), 64, "one model only");
    cli_expect_error(cli_run("walk", NULL), 64, "unknown command 'walk'");
    cli_expect_error(cli_run("simulate", "simplest", "--steps", "0", NULL), 65, "--steps");
    cli_expect_error(cli_run("simulate", "simplest", "--dt", "-1", NULL), 65, "--dt");
}

static void options_may_come_before_the_model(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "--set", "gamma=0.009", "--json", "simplest", NULL);
    assert_int_equal(r->status, 0);
}

static void every_command_has_help_with_an_example(void **state)
{
    (void)state;
    const char *cmds[] = {"models", "params", "simulate", "fixed", "search"};
    for (size_t i = 0; i < 5; i++) {
        cli_result *r = cli_run(cmds[i], "--help", NULL);
        assert_int_equal(r->status, 0);
        assert_non_null(strstr(r->out, "usage: stridemap"));
        assert_non_null(strstr(r->out, "example"));
    }
    assert_int_equal(cli_run("--help", NULL)->status, 0);
}

static void models_and_params_list_what_exists(void **state)
{
    (void)state;
    cli_result *r = cli_run("models", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "simplest"));
    assert_non_null(strstr(r->out, "rimless"));
    r = cli_run("params", "rimless", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    json_t *params = json_object_get(doc, "params");
    assert_int_equal(json_array_size(params), 6); /* n, gamma, g, l and two disturbances */
    assert_string_equal(json_string_value(json_object_get(json_array_get(params, 0), "name")), "n");
    assert_true(json_is_true(json_object_get(json_array_get(params, 4), "disturbance")));
    json_decref(doc);
}

static void simulate_writes_rows_and_keeps_them_when_the_walker_falls(void **state)
{
    (void)state;
    char path[] = "/tmp/sm_cli_csvXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cli_result *r = cli_run("simulate", "simplest", "--steps", "2", "--out", path, NULL);
    assert_int_equal(r->status, 0);
    static char csv[1 << 20];
    cli_slurp(path, csv, sizeof csv);
    assert_true(strncmp(csv, "kind,step,time,phase,event,theta,theta_dot,phi,phi_dot\n", 55) == 0);
    assert_non_null(strstr(csv, "\npre,1,"));
    assert_non_null(strstr(csv, "\npost,1,"));

    /* Starting almost at rest, the stance leg rolls back. */
    r = cli_run("simulate", "simplest", "--x0", "0.2,-0.01,0.4,0", "--steps", "3", "--out", path, NULL);
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "fell_backward"));
    cli_slurp(path, csv, sizeof csv);
    assert_non_null(strstr(csv, "\nstart,0,0,"));
    assert_non_null(strstr(csv, "\nfail,0,"));
    assert_non_null(strstr(csv, "rolled_back"));
    unlink(path);

    cli_expect_error(cli_run("simulate", "simplest", "--out", "/nonexistent-dir/x.csv", NULL), 73, "cannot create");
}

/* Runs stridemap with the NULL-terminated arguments, stdout on /dev/full. */
static int run_to_full_disk(const char *first, ...)
{
    const char *args[16] = {first};
    size_t n = 1;
    va_list ap;
    va_start(ap, first);
    while (n < 15 && (args[n] = va_arg(ap, const char *)) != NULL) n++;
    va_end(ap);
    args[n] = NULL;
    static cli_result r;
    cli_finish(cli_spawn(cli_exe, args, "/dev/full", NULL, NULL), NULL, NULL, &r);
    assert_false(r.signaled);
    return r.status;
}

/* A listing that could not be written is an I/O error (74), not success. */
static void listings_on_a_full_disk_fail(void **state)
{
    (void)state;
    assert_int_equal(run_to_full_disk("models", NULL), 74);
    assert_int_equal(run_to_full_disk("params", "simplest", NULL), 74);
    assert_int_equal(run_to_full_disk("params", "simplest", "--json", NULL), 74);
}

/* Values print in the shortest form that reads back exactly, in columns as
 * wide as their widest entry. */
static void values_print_shortest_and_columns_align(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--max-iter", "0", NULL);
    assert_non_null(strstr(r->out, "params       gamma = 0.009 rad\n"));
    r = cli_run("params", SM_SOURCE_DIR "/models/kneed_hsu.yaml", NULL);
    assert_int_equal(r->status, 0);
    /* every row's range column starts where the header's does */
    const char *header = strstr(r->out, "parameter ");
    assert_non_null(header);
    const size_t col = (size_t)(strstr(header, "range") - header);
    const char *row = strstr(r->out, "\nbodies.thigh_a.com.x ");
    assert_non_null(row);
    row++;
    assert_int_equal(row[col], '[');
    assert_int_equal(row[col - 1], ' ');
    assert_null(strstr(r->out, "0.29999999999999999"));
    assert_non_null(strstr(r->out, " -0.3 "));
}

/* 1e-320 is a finite (subnormal) number; 1e999 is not. */
static void subnormal_numbers_are_numbers(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "rimless", "--max-iter", "0", "--guess", "0.6283185307179586,1e-320", NULL);
    assert_null(strstr(r->err, "not a finite number"));
    assert_int_not_equal(r->status, 65);
    cli_expect_error(cli_run("fixed", "rimless", "--guess", "0.6,1e999", NULL), 65, "not a finite number");
}

/* Model files are found by name in STRIDEMAP_MODEL_PATH wherever the
 * program runs, not only in ./models; an unknown name says where it looked. */
static void model_files_are_found_on_the_model_path(void **state)
{
    (void)state;
    unsetenv("STRIDEMAP_MODEL_PATH");
    cli_result *r = cli_run("params", "kneed_hsu", NULL); /* the tests run in the build tree: no ./models */
    cli_expect_error(r, 64, "STRIDEMAP_MODEL_PATH");
    setenv("STRIDEMAP_MODEL_PATH", "/nonexistent:" SM_SOURCE_DIR "/models", 1);
    r = cli_run("params", "kneed_hsu", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "bodies.thigh_a.mass"));
    r = cli_run("models", NULL);
    assert_non_null(strstr(r->out, "\nkneed_hsu "));
    unsetenv("STRIDEMAP_MODEL_PATH");
}

/* The value after "NAME " on the "step K:" line of simulate's stderr. */
static double step_measure(const char *err, int step, const char *name)
{
    char head[32], key[64];
    snprintf(head, sizeof head, "step %d:", step);
    const char *line = strstr(err, head);
    assert_non_null(line);
    const char *end = strchr(line, '\n');
    snprintf(key, sizeof key, " %s ", name);
    const char *at = strstr(line, key);
    assert_true(at && (!end || at < end));
    return strtod(at + strlen(key), NULL);
}

/* The gait measures of a step are the step's, not the output's: the same
 * for every --dt, and the same as 'fixed' reports for the gait. */
static void simulate_measures_do_not_depend_on_dt(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--set", "gamma=0.009", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    char x0[256];
    json_t *x = json_object_get(doc, "fixed_point");
    snprintf(x0, sizeof x0, "%.17g,%.17g,%.17g,%.17g", json_number_value(json_array_get(x, 0)),
             json_number_value(json_array_get(x, 1)), json_number_value(json_array_get(x, 2)),
             json_number_value(json_array_get(x, 3)));
    const char *measures[] = {"min_foot_clearance", "max_foot_clearance", "min_normal_force",
                              "max_friction_ratio", "step_length"};
    const char *dts[] = {"0.1", "0.0007", "1e300", NULL};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        r = dts[d] ? cli_run("simulate", "simplest", "--set", "gamma=0.009", "--x0", x0, "--steps", "1", "--dt", dts[d],
                         "--out", "/dev/null", NULL)
                   : cli_run("simulate", "simplest", "--set", "gamma=0.009", "--x0", x0, "--steps", "1", "--out",
                         "/dev/null", NULL);
        assert_int_equal(r->status, 0);
        for (size_t k = 0; k < sizeof measures / sizeof measures[0]; k++) {
            const double want = num(doc, measures[k]), got = step_measure(r->err, 0, measures[k]);
            if (!(fabs(got - want) <= 1e-9 + 1e-7 * fabs(want)))
                print_error("--dt %s: %s %.10g, fixed says %.10g\n", dts[d] ? dts[d] : "default", measures[k], got,
                            want);
            assert_true(fabs(got - want) <= 1e-9 + 1e-7 * fabs(want));
        }
        assert_close(step_measure(r->err, 0, "period"), num(doc, "step_period"), 1e-8);
    }
    json_decref(doc);
}

/* A --dt so small that a step would never end is refused at once. */
static void simulate_refuses_a_dt_that_never_ends(void **state)
{
    (void)state;
    cli_expect_error(cli_run("simulate", "simplest", "--dt", "1e-300", "--out", "/dev/null", NULL), 65, "1000000");
    cli_expect_error(cli_run("simulate", "simplest", "--dt", "1e-6", "--out", "/dev/null", NULL), 65, "--dt");
    /* The bound follows --tmax: 20 / 1e-5 is 2e6 samples, 5 / 1e-5 is 5e5. */
    cli_expect_error(cli_run("simulate", "simplest", "--dt", "1e-5", "--out", "/dev/null", NULL), 65, "--dt");
    cli_result *r = cli_run("simulate", "simplest", "--dt", "1e-5", "--tmax", "5", "--steps", "1", "--out", "/dev/null",
                        NULL);
    assert_int_equal(r->status, 0);
}

/* orbit reads a range as sweep does: LO <= HI, one point needs LO = HI. */
static void orbit_refuses_the_ranges_sweep_refuses(void **state)
{
    (void)state;
    cli_expect_error(cli_run("orbit", "simplest", "--param", "gamma=0.01:0.009:3", "--transient", "1", "--record", "1",
                     "--out", "/dev/null", NULL),
                 65, "LO 0.01 is above HI 0.009");
    cli_expect_error(cli_run("orbit", "simplest", "--param", "gamma=0.009:0.01:1", "--transient", "1", "--record", "1",
                     "--out", "/dev/null", NULL),
                 65, "one point needs LO = HI");
    cli_result *r = cli_run("orbit", "simplest", "--param", "gamma=0.009:0.009:1", "--transient", "1", "--record", "1",
                        "--out", "/dev/null", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "orbit: 1 values of gamma"));
}

/* A failed write is one line, never after a summary that says all went well. */
static void orbit_write_error_is_the_only_line(void **state)
{
    (void)state;
    cli_expect_error(cli_run("orbit", "simplest", "--param", "gamma=0.009:0.0095:2", "--transient", "1", "--record", "1",
                     "--out", "/dev/full", NULL),
                 74, "could not write the orbit diagram to /dev/full");
}

/* The gait 'fixed' finds from a guess, as x[0..1]. */
static void fixed_from(const char *gamma_set, const char *guess, double *x)
{
    cli_result *r = cli_run("fixed", "simplest", "--set", gamma_set, "--guess", guess, "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    json_t *fp = json_object_get(doc, "fixed_point");
    x[0] = json_number_value(json_array_get(fp, 0));
    x[1] = json_number_value(json_array_get(fp, 1));
    json_decref(doc);
}

/* At gamma = 0.02 and 0.025 the simplest walker has a long-period gait
 * (theta* near 0.97 gamma^(1/3)) and a short-period one, which 'fixed' finds
 * from two guesses; search with its defaults finds both, says how many
 * starts found each, and gives the keys 'fixed --json' gives. */
static void search_defaults_find_long_and_short_gaits(void **state)
{
    (void)state;
    const char *gammas[] = {"0.02", "0.025"};
    for (size_t gi = 0; gi < 2; gi++) {
        const double gamma = atof(gammas[gi]), th = 0.97 * cbrt(gamma);
        char set[64], guess_long[128], guess_short[128];
        snprintf(set, sizeof set, "gamma=%s", gammas[gi]);
        snprintf(guess_long, sizeof guess_long, "%.6f,%.6f,0,0", th, -0.95 * th);
        snprintf(guess_short, sizeof guess_short, "%.6f,%.6f,0,0", th, -th);
        double want[2][2];
        fixed_from(set, guess_long, want[0]);
        fixed_from(set, guess_short, want[1]);
        assert_true(fabs(want[0][0] - want[1][0]) > 1e-3); /* two gaits, not one twice */
        assert_close(want[0][0], th, 0.03 * th);

        cli_result *r = cli_run("search", "simplest", "--set", set, "--json", NULL);
        assert_int_equal(r->status, 0);
        json_t *doc = json_loads(r->out, 0, NULL);
        assert_non_null(doc);
        assert_close(num(json_object_get(doc, "params"), "gamma"), gamma, 0);
        json_t *gaits = json_object_get(doc, "gaits");
        assert_int_equal(json_array_size(gaits), 2);
        double hits = 0;
        for (int k = 0; k < 2; k++) {
            json_t *g = json_array_get(gaits, 0), *h = json_array_get(gaits, 1);
            const double t0 = json_number_value(json_array_get(json_object_get(g, "fixed_point"), 0));
            const double t1 = json_number_value(json_array_get(json_object_get(h, "fixed_point"), 0));
            json_t *match = fabs(t0 - want[k][0]) < fabs(t1 - want[k][0]) ? g : h;
            json_t *fp = json_object_get(match, "fixed_point");
            assert_close(json_number_value(json_array_get(fp, 0)), want[k][0], 1e-8);
            assert_close(json_number_value(json_array_get(fp, 1)), want[k][1], 1e-8);
            assert_true(num(match, "starts_found") >= 1);
            hits += num(match, "starts_found");
            assert_true(json_is_null(json_object_get(match, "trivial_multiplier")));
            assert_non_null(json_object_get(match, "stability_note"));
        }
        assert_close(hits + num(doc, "starts_without_gait"), num(doc, "starts"), 0);
        json_decref(doc);

        r = cli_run("search", "simplest", "--set", set, NULL);
        assert_int_equal(r->status, 0);
        assert_non_null(strstr(r->out, "2 distinct gaits"));
        assert_non_null(strstr(r->out, "found by "));
    }
}

/* A walker with a conserved quantity: search reports its trivial multiplier
 * as 'fixed' does. */
static void search_json_has_the_trivial_multiplier(void **state)
{
    (void)state;
    cli_result *r = cli_run("search", "slip", "--starts", "8", "--max-starts", "8", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    assert_close(num(json_object_get(doc, "params"), "E"), 840, 0);
    json_t *g = json_array_get(json_object_get(doc, "gaits"), 0);
    assert_non_null(g);
    json_t *t = json_object_get(g, "trivial_multiplier");
    assert_true(json_is_array(t));
    assert_close(json_number_value(json_array_get(t, 0)), 1.0, 1e-4);
    assert_true(json_is_string(json_object_get(g, "stability_note")));
    json_decref(doc);
}

/* A search that would run for hours is refused at once, saying what to
 * lower; a long one shows where it is. */
static void search_refuses_an_absurd_cost_and_shows_progress(void **state)
{
    (void)state;
    cli_expect_error(cli_run("search", "simplest", "--period", "1024", NULL), 64, "lower --starts, --period or --max-iter");
    cli_expect_error(cli_run("search", "simplest", "--max-starts", "100000000", NULL), 64, "lower --max-starts");
    cli_expect_error(cli_run("search", "simplest", "--starts", "100", "--max-starts", "50", NULL), 64, "--max-starts");
    cli_result *r = cli_run("search", "simplest", "--set", "gamma=0.009", "--starts", "8", "--max-starts", "8",
                        "--progress", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "search: 8/8 starts"));
    r = cli_run("search", "simplest", "--set", "gamma=0.009", "--starts", "8", "--max-starts", "8", "-q", NULL);
    assert_int_equal(r->status, 0);
    assert_string_equal(r->err, "");
}

/* --box takes exactly one range per free coordinate: a third range for the
 * simplest walker's two used to be ignored without a word. */
static void search_box_needs_one_range_per_coordinate(void **state)
{
    (void)state;
    cli_expect_error(cli_run("search", "simplest", "--box", "0.1:0.3,-0.3:-0.1,0:1", NULL), 65, "needs 2 ranges");
    cli_expect_error(cli_run("search", "simplest", "--box", "0.1:0.3", NULL), 65, "needs 2 ranges");
    cli_expect_error(cli_run("search", "simplest", "--box", "0.1:0.3,-0.3:-0.1,", NULL), 65, "needs 2 ranges");
}

/* The library says its messages in field names (sm_solver_options.rtol);
 * the program says them in its flags, exactly as it always has. */
static void library_messages_read_as_flags(void **state)
{
    (void)state;
    static const struct {
        const char *args[8];
        int code;
        const char *err;
    } cases[] = {
        {{"fixed", "simplest", "--rtol", "2"}, 65, "stridemap fixed: --rtol must be a number in (0, 1), not 2\n"},
        {{"fixed", "simplest", "--tmax", "-1"},
         65,
         "stridemap fixed: --tmax must be a finite number >= 0 (0: the model's own), not -1\n"},
        {{"sweep", "simplest", "--grid", "nosuch=0:1:3", "--out", "/nonexistent/never"},
         64,
         "stridemap sweep: --grid: model 'simplest' has no parameter 'nosuch' (see 'stridemap params simplest')\n"},
        {{"orbit", "simplest", "--param", "gamma=0.002:0.001:3"}, 65, "stridemap orbit: --param gamma: LO 0.002 is above HI 0.001\n"},
        {{"orbit", "simplest", "--param", "gamma=0.002:0.003:1"},
         65,
         "stridemap orbit: --param gamma: one point needs LO = HI (or use --set gamma=VALUE)\n"},
        {{"fixed", "simplest", "--max-iter", "0"},
         1,
         "stridemap fixed: no gait found: Newton's method did not converge: no step lowered the residual, or the "
         "iterations ran out (try another --guess; more --max-iter only if the residual was still falling)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *const *a = cases[k].args;
        cli_result *r = cli_run(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        assert_int_equal(r->status, cases[k].code);
        assert_string_equal(r->err, cases[k].err);
    }
    cli_result *r = cli_run("fixed", "simplest", "--max-iter", "0", NULL);
    assert_non_null(strstr(r->out, "status       not_converged: Newton's method did not converge: no step lowered "
                                   "the residual, or the iterations ran out (try another --guess; more --max-iter"));
    r = cli_run("fixed", "nosuch", NULL);
    assert_int_equal(r->status, 64);
    assert_non_null(strstr(r->err, "(see 'stridemap models')\n"));
}

/* --newton-update: Broyden by default, full on request; the same gait, the
 * default in no more strides (the two runs' own counts), and the choice in
 * the solver object; another word is refused in one line. */
static void newton_update_is_a_choice_with_one_gait(void **state)
{
    (void)state;
    json_t *doc[2];
    const char *const updates[2] = {"broyden", "full"};
    for (int k = 0; k < 2; k++) {
        cli_result *r = k ? cli_run("fixed", "compass", "--newton-update", "full", "--json", NULL)
                          : cli_run("fixed", "compass", "--json", NULL);
        assert_int_equal(r->status, 0);
        doc[k] = json_loads(r->out, 0, NULL);
        assert_non_null(doc[k]);
        assert_string_equal(json_string_value(json_object_get(json_object_get(doc[k], "solver"), "newton_update")),
                            updates[k]);
        assert_true(num(doc[k], "residual") <= 1e-10);
        assert_true(num(doc[k], "newton_stride_evaluations") < num(doc[k], "stride_evaluations"));
    }
    for (size_t i = 0; i < 4; i++)
        assert_close(json_number_value(json_array_get(json_object_get(doc[0], "fixed_point"), i)),
                     json_number_value(json_array_get(json_object_get(doc[1], "fixed_point"), i)), 1e-9);
    assert_true(num(doc[0], "newton_stride_evaluations") <= num(doc[1], "newton_stride_evaluations"));
    assert_true(num(doc[0], "stride_evaluations") <= num(doc[1], "stride_evaluations"));
    json_decref(doc[0]);
    json_decref(doc[1]);
    cli_expect_error(cli_run("fixed", "simplest", "--newton-update", "fast", NULL), 65, "--newton-update");
}

/* One output vocabulary: the solver object has the same keys in every
 * output (fixed --json, the continue, orbit and sweep sidecars), with the
 * stride time limit as "t_max" (the sweep said "tmax" before issue 10). */
static void solver_object_is_the_same_everywhere(void **state)
{
    (void)state;
    char dir[] = "/tmp/sm_cli_solverXXXXXX", path[256], path2[128];
    assert_non_null(mkdtemp(dir));
    json_t *solvers[4];
    cli_result *r = cli_run("fixed", "simplest", "--json", "--tmax", "7", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    solvers[0] = json_incref(json_object_get(doc, "solver"));
    json_decref(doc);

    snprintf(path, sizeof path, "%s/branch.csv", dir);
    r = cli_run("continue", "logistic", "--param", "r", "--from", "2.5", "--to", "2.6", "--max-points", "3", "--tmax", "7",
                "--out", path, NULL);
    assert_int_equal(r->status, 0);
    snprintf(path, sizeof path, "%s/branch.json", dir);
    doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    solvers[1] = json_incref(json_object_get(doc, "solver"));
    json_decref(doc);

    snprintf(path, sizeof path, "%s/orbit.csv", dir);
    r = cli_run("orbit", "logistic", "--param", "r=2.8:2.9:2", "--transient", "5", "--record", "2", "--tmax", "7",
                "--out", path, NULL);
    assert_int_equal(r->status, 0);
    snprintf(path, sizeof path, "%s/orbit.json", dir);
    doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    solvers[2] = json_incref(json_object_get(doc, "solver"));
    json_decref(doc);

    snprintf(path2, sizeof path2, "%s/sweep", dir);
    r = cli_run("sweep", "logistic", "--grid", "r=2.5:2.6:2", "--tmax", "7", "--out", path2, "-q", NULL);
    assert_int_equal(r->status, 0);
    snprintf(path, sizeof path, "%s/sweep.json", path2);
    doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    solvers[3] = json_incref(json_object_get(doc, "solver"));
    json_decref(doc);

    static const char *const keys[] = {"method", "max_order", "rtol", "atol", "max_step", "t_max"};
    for (int k = 0; k < 4; k++) {
        if (!json_is_object(solvers[k])) fail_msg("output %d has no solver object", k);
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (!json_object_get(solvers[k], keys[i])) fail_msg("output %d: solver has no '%s'", k, keys[i]);
        assert_null(json_object_get(solvers[k], "tmax"));
        assert_true(json_real_value(json_object_get(solvers[k], "t_max")) == 7.0);
        json_decref(solvers[k]);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A stiff walker under Adams stops in milliseconds and the one line says
 * what to do (it used to grind for 2.5 minutes). */
static void a_stiff_walker_says_use_bdf(void **state)
{
    (void)state;
    const char *file = SM_SOURCE_DIR "/models/compass_round_spring.yaml";
    /* At rtol 1e-10 Adams' steps fail to converge often enough for the
     * stiffness check; at 1e-12 (the default) its steps are held small by
     * the accuracy asked for, and it ends as integrator_failed, whose
     * message names --method bdf too. */
    cli_result *r = cli_run("fixed", file, "--set", "forces.hip_spring.damping=1e6", "--rtol", "1e-10", "--atol",
                            "1e-10", NULL);
    cli_expect_error(r, 1, "stiff");
    assert_non_null(strstr(r->err, "--method bdf"));
    /* BDF integrates it: what stops the walker then is the walker (so
     * damped, the legs move as one and the walker falls forward), not the
     * solver. */
    r = cli_run("fixed", file, "--set", "forces.hip_spring.damping=1e6", "--method", "bdf", NULL);
    cli_expect_error(r, 1, "last failed stride: fell_forward");
    assert_null(strstr(r->err, "stiff"));
}

/* Runs stridemap in the source tree, where models/NAME.yaml is found by
 * name, with the NULL-terminated arguments. */
static cli_result *run_in_tree(const char *first, ...)
{
    char here[4096];
    assert_non_null(getcwd(here, sizeof here));
    assert_int_equal(chdir(SM_SOURCE_DIR), 0);
    va_list ap;
    va_start(ap, first);
    cli_result *r = cli_run_va(NULL, first, ap);
    va_end(ap);
    assert_int_equal(chdir(here), 0);
    return r;
}

/* The model files of models/ as the program reads them (docs/body-walkers.md):
 * by name from the source tree, their ground and knee measures in JSON, a
 * --set by a dotted parameter name, the list of models; a bad file, a
 * missing one, a directory and a bad --set each one line with their exit
 * status. */
static void model_files_run_from_the_tree(void **state)
{
    (void)state;
    unsetenv("STRIDEMAP_MODEL_PATH");
    cli_result *r = run_in_tree("fixed", "models/kneed_mcgeer.yaml", "--json", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"min_lock_torque\""));
    assert_non_null(strstr(r->out, "\"heelstrike_impulse\""));
    assert_non_null(strstr(r->out, "\"min_foot_clearance\""));
    assert_non_null(strstr(r->out, "\"stable\": true"));
    assert_int_equal(run_in_tree("fixed", "kneed_hsu", "--set", "bodies.thigh_a.mass=0.55", NULL)->status, 0);
    /* a 1e-5 step in a leg rate does not lock the knee for the swing */
    r = run_in_tree("fixed", "kneed_hsu", "--fd-step", "1e-5", "--rtol", "1e-12", "--atol", "1e-12", NULL);
    assert_int_equal(r->status, 0);
    r = run_in_tree("params", "models/compass.yaml", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "bodies.leg_a.mass"));
    r = run_in_tree("models", NULL);
    assert_int_equal(r->status, 0);
    /* compass.yaml's name (compass_file) is not its file's: listed by path */
    static const char *const files[] = {"models/compass.yaml", "compass_round_spring", "kneed_hsu", "kneed_mcgeer",
                                        "kneed_mcgeer_locked"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char want[80];
        snprintf(want, sizeof want, "\n%s ", files[i]);
        if (!strstr(r->out, want)) fail_msg("models lists no %s:\n%s", files[i], r->out);
    }
    assert_non_null(strstr(r->out, "models/kneed_mcgeer.yaml"));
    /* a file error: file:line:col, one line, the data-error status */
    r = run_in_tree("fixed", "tests/data/body_bad/mass_negative.yaml", NULL);
    cli_expect_error(r, 65, "tests/data/body_bad/mass_negative.yaml:12:11: ");
    assert_non_null(strstr(r->err, "bodies.leg_a.mass must lie in [0, 1e+06], not -5"));
    assert_int_equal(run_in_tree("fixed", "/nonexistent/walker.yaml", NULL)->status, 66);
    char top[] = "/tmp/stridemap_dir_XXXXXX", dir[64];
    assert_non_null(mkdtemp(top));
    snprintf(dir, sizeof dir, "%s/walker.yaml", top);
    assert_int_equal(mkdir(dir, 0700), 0);
    r = run_in_tree("fixed", dir, NULL);
    rmdir(dir);
    rmdir(top);
    assert_int_equal(r->status, 66);
    assert_non_null(strstr(r->err, "is a directory"));
    assert_int_equal(run_in_tree("fixed", "models/compass.yaml", "--set", "bodies.leg_a.mass=-1", NULL)->status, 65);
}

/* --jacobian: the exact multipliers with the finite-difference ones beside
 * them (agreeing to 1e-6), either Jacobian in Newton landing on the same
 * gait, and a word the flag does not know answered with 65 in one line. */
static void fixed_reports_exact_and_fd_multipliers(void **state)
{
    (void)state;
    const char *kinds[] = {"fd", "exact"};
    double x0[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        cli_result *r = cli_run("fixed", "compass", "--jacobian", kinds[k], "--json", NULL);
        assert_int_equal(r->status, 0);
        json_error_t jerr;
        json_t *doc = json_loads(r->out, 0, &jerr);
        assert_non_null(doc);
        assert_string_equal(json_string_value(json_object_get(doc, "jacobian_method")), "exact");
        assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "solver"), "newton_jacobian")),
                            kinds[k]);
        json_t *eig = json_object_get(doc, "eigenvalues"), *fd = json_object_get(doc, "eigenvalues_fd");
        assert_int_equal(json_array_size(eig), 3);
        assert_int_equal(json_array_size(fd), 3);
        for (size_t i = 0; i < 3; i++)
            for (size_t j = 0; j < 2; j++)
                assert_close(json_number_value(json_array_get(json_array_get(eig, i), j)),
                             json_number_value(json_array_get(json_array_get(fd, i), j)), 1e-6);
        x0[k] = json_number_value(json_array_get(json_object_get(doc, "fixed_point"), 2));
        json_decref(doc);
    }
    assert_close(x0[0], x0[1], 1e-9);
    cli_result *r = cli_run("fixed", "compass", "--jacobian", "sensitivities", NULL);
    cli_expect_error(r, 65, "--jacobian is 'fd' or 'exact'");
    r = cli_run("fixed", "compass", NULL);
    assert_non_null(strstr(r->out, "(exact Jacobian)"));
    assert_non_null(strstr(r->out, "eigen (fd)"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli PATH-TO-STRIDEMAP\n");
        return 2;
    }
    /* absolute: some tests run the program in the source tree */
    static char abs_exe[4096];
    cli_exe = realpath(argv[1], abs_exe) ? abs_exe : argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_json_reports_the_published_gait),
        cmocka_unit_test(newton_update_is_a_choice_with_one_gait),
        cmocka_unit_test(fixed_text_says_stable),
        cmocka_unit_test(search_lists_both_gaits_without_a_guess),
        cmocka_unit_test(a_limping_gait_at_0016),
        cmocka_unit_test(contact_checks_follow_mu),
        cmocka_unit_test(the_unstable_gait_is_found_and_called_unstable),
        cmocka_unit_test(hopeless_guess_is_no_gait_not_a_crash),
        cmocka_unit_test(bad_input_gets_one_line_and_a_sysexits_code),
        cmocka_unit_test(options_may_come_before_the_model),
        cmocka_unit_test(every_command_has_help_with_an_example),
        cmocka_unit_test(models_and_params_list_what_exists),
        cmocka_unit_test(simulate_writes_rows_and_keeps_them_when_the_walker_falls),
        cmocka_unit_test(listings_on_a_full_disk_fail),
        cmocka_unit_test(values_print_shortest_and_columns_align),
        cmocka_unit_test(subnormal_numbers_are_numbers),
        cmocka_unit_test(model_files_are_found_on_the_model_path),
        cmocka_unit_test(simulate_measures_do_not_depend_on_dt),
        cmocka_unit_test(simulate_refuses_a_dt_that_never_ends),
        cmocka_unit_test(orbit_refuses_the_ranges_sweep_refuses),
        cmocka_unit_test(orbit_write_error_is_the_only_line),
        cmocka_unit_test(search_defaults_find_long_and_short_gaits),
        cmocka_unit_test(search_json_has_the_trivial_multiplier),
        cmocka_unit_test(search_refuses_an_absurd_cost_and_shows_progress),
        cmocka_unit_test(search_box_needs_one_range_per_coordinate),
        cmocka_unit_test(a_stiff_walker_says_use_bdf),
        cmocka_unit_test(model_files_run_from_the_tree),
        cmocka_unit_test(library_messages_read_as_flags),
        cmocka_unit_test(solver_object_is_the_same_everywhere),
        cmocka_unit_test(fixed_reports_exact_and_fd_multipliers),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
