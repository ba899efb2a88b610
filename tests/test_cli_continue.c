/* stridemap continue and orbit as a user meets them: exit codes, one-line
 * errors, the CSV columns, the JSON sidecar, MX and fall rows.  The binary's
 * path comes as argv[1]. */
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"
#include "test_util.h"

static char dir[] = "/tmp/sm_cont_cliXXXXXX";

static const char *path(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* One error line, "stridemap CMD: ...". */
static void one_line_error(const cli_result *r, const char *cmd)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "stridemap %s: ", cmd);
    if (strncmp(r->err, prefix, strlen(prefix)) != 0) fail_msg("stderr: %s", r->err);
    const char *nl = strchr(r->err, '\n');
    assert_non_null(nl);
    assert_int_equal(nl[1], '\0');
}

/* --newton-update: the corrector's choice, said in the sidecar; both find
 * the logistic map's PD at r = 3, the default in fewer strides (each run's
 * own count); another word is refused in one line, exit 65. */
static void test_continue_newton_update(void **state)
{
    (void)state;
    const char *const updates[2] = {"full", "broyden"};
    double strides[2];
    for (int k = 0; k < 2; k++) {
        const char *csv = path(k ? "upd_b.csv" : "upd_f.csv");
        cli_result *r = k ? cli_run("continue", "logistic", "--param", "r", "--from", "2.5", "--to", "3.3", "--out",
                                    csv, NULL)
                          : cli_run("continue", "logistic", "--param", "r", "--from", "2.5", "--to", "3.3",
                                    "--newton-update", "full", "--out", csv, NULL);
        if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
        json_t *doc = json_load_file(path(k ? "upd_b.json" : "upd_f.json"), 0, NULL);
        assert_non_null(doc);
        assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "continuation"), "newton_update")),
                            updates[k]);
        json_t *branch = json_array_get(json_object_get(doc, "branches"), 0);
        strides[k] = json_number_value(json_object_get(branch, "stride_evaluations"));
        json_t *pd = json_array_get(json_object_get(branch, "special"), 0);
        assert_string_equal(json_string_value(json_object_get(pd, "type")), "PD");
        assert_close(json_number_value(json_object_get(pd, "value")), 3.0, 1e-8);
        json_decref(doc);
    }
    assert_true(strides[1] < strides[0]);
    cli_result *r = cli_run("continue", "logistic", "--param", "r", "--newton-update", "chord", NULL);
    assert_int_equal(r->status, 65);
    one_line_error(r, "continue");
}

static void test_continue_logistic_csv_and_sidecar(void **state)
{
    const char *csv = path("log.csv");
    cli_result *r = cli_run("continue", "logistic", "--param", "r", "--from", "2.5", "--to", "3.5", "--switch", "--out", csv,
                   NULL);
    if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
    char text[1 << 16];
    cli_slurp(csv, text, sizeof text);
    assert_true(strncmp(text, "branch,period,r,type,x,eig1_re,eig1_im,max_abs_eig,stable,step_period,", 70) == 0);
    /* the PD rows: r = 3 on branch 0, 1 + sqrt 6 on branch 1 */
    const char *pd = strstr(text, "\n0,1,");
    assert_non_null(pd);
    pd = strstr(text, ",PD,");
    assert_non_null(pd);
    const char *line = pd;
    while (line > text && line[-1] != '\n') line--;
    int branch, period;
    double value;
    assert_int_equal(sscanf(line, "%d,%d,%lf", &branch, &period, &value), 3);
    assert_int_equal(branch, 0);
    assert_close(value, 3.0, 1e-8);
    pd = strstr(pd + 1, ",PD,");
    assert_non_null(pd);
    line = pd;
    while (line > text && line[-1] != '\n') line--;
    assert_int_equal(sscanf(line, "%d,%d,%lf", &branch, &period, &value), 3);
    assert_int_equal(branch, 1);
    assert_int_equal(period, 2);
    assert_close(value, 1.0 + sqrt(6.0), 1e-8);

    json_error_t e;
    json_t *doc = json_load_file(path("log.json"), 0, &e);
    if (!doc) fail_msg("sidecar: %s", e.text);
    assert_string_equal(json_string_value(json_object_get(doc, "model")), "logistic");
    assert_string_equal(json_string_value(json_object_get(doc, "param")), "r");
    assert_string_equal(json_string_value(json_object_get(doc, "version")), STRIDEMAP_VERSION);
    assert_true(json_array_size(json_object_get(doc, "command_line")) >= 10);
    json_t *br = json_object_get(doc, "branches");
    assert_true(json_array_size(br) >= 3);
    json_t *b0 = json_array_get(br, 0);
    assert_string_equal(json_string_value(json_object_get(b0, "stop")), "bound");
    json_t *sp = json_array_get(json_object_get(b0, "special"), 0);
    assert_string_equal(json_string_value(json_object_get(sp, "type")), "PD");
    assert_close(json_real_value(json_object_get(sp, "value")), 3.0, 1e-8);
    json_t *b1 = json_array_get(br, 1);
    assert_int_equal(json_integer_value(json_object_get(b1, "period")), 2);
    assert_int_equal(json_integer_value(json_object_get(b1, "parent")), 0);
    assert_non_null(json_object_get(json_object_get(doc, "solver"), "rtol"));
    assert_non_null(json_object_get(json_object_get(doc, "continuation"), "locate_tol"));
    json_decref(doc);
    assert_non_null(strstr(r->err, "PD at r = 3"));
}

/* The logistic map's branches x = 1 - 1/r and x = 0 cross at r = 1: a BP
 * row (a multiplier through +1 where the branch goes on in r), not LP, in
 * the CSV, the sidecar and the summary. */
static void test_continue_branch_point_row(void **state)
{
    const char *csv = path("bp.csv");
    cli_result *r = cli_run("continue", "logistic", "--param", "r", "--from", "0.5", "--to", "1.5", "--guess", "-1",
                            "--out", csv, NULL);
    if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
    char text[1 << 16];
    cli_slurp(csv, text, sizeof text);
    assert_null(strstr(text, ",LP,"));
    const char *bp = strstr(text, ",BP,");
    assert_non_null(bp);
    const char *line = bp;
    while (line > text && line[-1] != '\n') line--;
    int branch, period;
    double value, x;
    assert_int_equal(sscanf(line, "%d,%d,%lf,BP,%lf", &branch, &period, &value, &x), 4);
    assert_close(value, 1.0, 1e-6);
    assert_close(x, 0.0, 1e-6);
    json_t *doc = json_load_file(path("bp.json"), 0, NULL);
    assert_non_null(doc);
    json_t *sp = json_object_get(json_array_get(json_object_get(doc, "branches"), 0), "special");
    assert_int_equal(json_array_size(sp), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(sp, 0), "type")), "BP");
    json_decref(doc);
    assert_non_null(strstr(r->err, "BP at r = 1"));
}

static void test_continue_failed_start(void **state)
{
    cli_result *r = cli_run("continue", "simplest", "--param", "gamma", "--to", "0.012", "--guess", "0.2,-0.01,0.4,0", NULL);
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->out, ",MX,"));
    assert_non_null(strstr(r->err, "start_failed"));
    assert_non_null(strstr(r->err, "fell_backward"));
    assert_non_null(strstr(r->err, "stridemap continue: no gait at the start"));
}

/* A start Newton brings close but not within --tol is no gait, and the
 * message says how close: the compass at rtol 1e-3 stalls at the map's
 * noise.  Spring-mass walking, whose energy equation the strides meet only
 * to the integration error, starts at the default tolerances because the
 * return is measured on the energy's level set (as in 'fixed'). */
static void test_continue_start_not_within_tol(void **state)
{
    cli_result *r = cli_run("continue", "compass", "--param", "gamma", "--from", "0.05", "--to", "0.06", "--rtol", "1e-3",
                   "--atol", "1e-3", NULL);
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->out, ",MX,"));
    const char *last = strstr(r->err, "stridemap continue: no gait at the start (gamma = 0.05) within --tol 1e-10");
    if (!last) fail_msg("stderr: %s", r->err);
    double got = 0;
    const char *at = strstr(last, "residual of ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "residual of %lf", &got), 1);
    assert_true(got > 1e-10);
    assert_non_null(strstr(last, "--rtol"));
    assert_non_null(strchr(last, '\n'));
    assert_int_equal(strchr(last, '\n')[1], '\0');
    assert_non_null(strstr(r->err, "stalled"));

    r = cli_run("continue", "slip", "--param", "k", "--from", "21000", "--to", "22000", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "NS at k = 2142"));
}

/* Runs argv (NULL-terminated, argv[0] ignored) as stridemap in folder `in`. */
static cli_result *sm_argv_in(const char *in, char **args)
{
    char here[4096], abs_exe[4096];
    assert_non_null(getcwd(here, sizeof here));
    assert_non_null(realpath(cli_exe, abs_exe));
    const char *saved = cli_exe;
    cli_exe = abs_exe;
    assert_int_equal(chdir(in), 0);
    cli_result *r = cli_run(args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10],
                   args[11], args[12], args[13], args[14], args[15], args[16], args[17], args[18], args[19],
                   args[20], args[21], args[22], args[23], NULL);
    assert_int_equal(chdir(here), 0);
    cli_exe = saved;
    return r;
}

/* Every example of 'continue --help' runs as written (in a scratch folder). */
static void test_continue_help_examples_run(void **state)
{
    cli_result *r = cli_run("continue", "--help", NULL);
    assert_int_equal(r->status, 0);
    static char help[sizeof r->out];
    snprintf(help, sizeof help, "%s", r->out);
    char *ex = strstr(help, "\nexamples:\n");
    assert_non_null(ex);
    ex += strlen("\nexamples:\n");
    int n_run = 0;
    char cmd[2048];
    while (*ex) {
        /* one command: lines joined while they end in a backslash */
        cmd[0] = '\0';
        for (;;) {
            char *nl = strchr(ex, '\n');
            if (!nl) nl = ex + strlen(ex);
            const bool more = nl > ex && nl[-1] == '\\';
            strncat(cmd, ex, (size_t)(nl - ex) - (more ? 1 : 0));
            ex = *nl ? nl + 1 : nl;
            if (!more) break;
        }
        char *args[26] = {0};
        int n = 0;
        for (char *tok = strtok(cmd, " "); tok && n < 25; tok = strtok(NULL, " ")) args[n++] = tok;
        if (n == 0) continue;
        assert_string_equal(args[0], "stridemap");
        assert_true(n < 24);
        r = sm_argv_in(dir, args);
        if (r->status != 0) fail_msg("example %d exits %d: %s", n_run + 1, r->status, r->err);
        assert_non_null(strstr(r->err, "PD at "));
        n_run++;
    }
    assert_int_equal(n_run, 2);
    char text[1 << 16];
    cli_slurp(path("branch.csv"), text, sizeof text);
    assert_non_null(strstr(text, ",PD,"));
}

/* Steps given together must agree; one that does not is refused, not
 * silently moved.  A default gives way to a step given: --step 0.5 with
 * the default --step-max (0.02 here) makes the largest step 0.5. */
static void test_continue_step_options(void **state)
{
    const char *bad[][4] = {{"--step", "0.1", "--step-max", "0.01"},
                            {"--step-min", "0.1", "--step", "0.01"},
                            {"--step-min", "0.1", "--step-max", "0.01"}};
    for (int i = 0; i < 3; i++) {
        cli_result *r = cli_run("continue", "logistic", "--param", "r", "--to", "3.2", bad[i][0], bad[i][1], bad[i][2],
                       bad[i][3], NULL);
        assert_int_equal(r->status, 64);
        one_line_error(r, "continue");
        assert_non_null(strstr(r->err, bad[i][0]));
        assert_non_null(strstr(r->err, bad[i][2]));
        assert_int_equal(r->out[0], '\0');
    }
    const char *json = path("steps.json");
    cli_result *r = cli_run("continue", "logistic", "--param", "r", "--from", "2.5", "--to", "2.6", "--step", "0.5",
                   "--sidecar", json, NULL);
    if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
    json_error_t e;
    json_t *doc = json_load_file(json, 0, &e);
    if (!doc) fail_msg("sidecar: %s", e.text);
    json_t *c = json_object_get(doc, "continuation");
    assert_close(json_real_value(json_object_get(c, "step")), 0.5, 0);
    assert_close(json_real_value(json_object_get(c, "step_max")), 0.5, 0);
    assert_close(json_real_value(json_object_get(c, "step_min")), 1e-8, 0);
    json_decref(doc);
}

/* --set of the continued parameter is its start when --from is absent, and
 * refused beside --from (which of the two would be the start?). */
static void test_continue_set_of_the_continued_parameter(void **state)
{
    cli_result *r = cli_run("continue", "logistic", "--param", "r", "--set", "r=2.7", "--from", "2.5", "--to", "2.9", NULL);
    assert_int_equal(r->status, 64);
    one_line_error(r, "continue");
    assert_non_null(strstr(r->err, "--set r=2.7"));
    assert_non_null(strstr(r->err, "--from"));
    assert_int_equal(r->out[0], '\0');
    r = cli_run("continue", "logistic", "--param", "r", "--set", "r=2.7", "--to", "2.9", NULL);
    if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
    const char *row = strchr(r->out, '\n');
    assert_non_null(row);
    int branch, period;
    double value;
    assert_int_equal(sscanf(row + 1, "%d,%d,%lf", &branch, &period, &value), 3);
    assert_close(value, 2.7, 0);
    assert_non_null(strstr(r->out, "\n0,1,2.9,EP,"));
}

/* An unwritable sidecar fails before any work: nothing on standard output. */
static void test_continue_sidecar_checked_first(void **state)
{
    cli_result *r = cli_run("continue", "logistic", "--param", "r", "--from", "2.5", "--to", "3.5", "--sidecar",
                   "/nonexistent/dir/b.json", NULL);
    assert_int_equal(r->status, 73);
    one_line_error(r, "continue");
    assert_non_null(strstr(r->err, "/nonexistent/dir/b.json"));
    assert_int_equal(r->out[0], '\0');
}

static void test_continue_errors(void **state)
{
    cli_result *r = cli_run("continue", "logistic", NULL);
    assert_int_equal(r->status, 64);
    one_line_error(r, "continue");
    assert_non_null(strstr(r->err, "--param"));
    r = cli_run("continue", "logistic", "--param", "q", NULL);
    assert_int_equal(r->status, 64);
    one_line_error(r, "continue");
    r = cli_run("continue", "logistic", "--param", "r", "--to", "5", NULL);
    assert_int_equal(r->status, 65);
    one_line_error(r, "continue");
    r = cli_run("continue", "logistic", "--param", "r", "--from", "2.8", "--to", "2.8", NULL);
    assert_int_equal(r->status, 65);
    one_line_error(r, "continue");
    r = cli_run("continue", "logistic", "--param", "r", "--step", "-1", NULL);
    assert_int_equal(r->status, 65);
    one_line_error(r, "continue");
    r = cli_run("continue", "rimless", "--param", "n", "--to", "20", NULL); /* whole-number parameter */
    assert_int_equal(r->status, 65);
    one_line_error(r, "continue");
    r = cli_run("continue", "nosuchmodel", "--param", "r", NULL);
    assert_int_equal(r->status, 64);
    r = cli_run("continue", "logistic", "--param", "r", "--out", "/nonexistent/dir/x.csv", NULL);
    assert_int_equal(r->status, 73);
    one_line_error(r, "continue");
    r = cli_run("continue", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "usage: stridemap continue"));
    assert_non_null(strstr(r->out, "examples:"));
}

static void test_orbit_logistic(void **state)
{
    const char *csv = path("orbit.csv");
    cli_result *r = cli_run("orbit", "logistic", "--param", "r=2.8:3.9:12", "--transient", "500", "--record", "8", "--out", csv,
                   NULL);
    if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
    char text[1 << 16];
    cli_slurp(csv, text, sizeof text);
    size_t lines = 0;
    for (const char *c = text; *c; c++) lines += *c == '\n';
    assert_int_equal(lines, 1 + 12 * 8);
    assert_true(strncmp(text, "r,index,kind,x,step_period,step_length,speed,period,steps,status\n", 65) == 0);
    assert_non_null(strstr(text, "\n2.8,0,visit,0.642857142857143,1,,,1,508,ok\n"));
    json_error_t e;
    json_t *doc = json_load_file(path("orbit.json"), 0, &e);
    if (!doc) fail_msg("sidecar: %s", e.text);
    assert_int_equal(json_array_size(json_object_get(doc, "values")), 12);
    assert_int_equal(json_integer_value(json_object_get(doc, "falls")), 0);
    json_decref(doc);
}

static void test_orbit_reports_falls(void **state)
{
    cli_result *r = cli_run("orbit", "simplest", "--param", "gamma=0.009:0.0095:2", "--x0", "0.2,-0.01,0.4,0", "--transient",
                   "5", "--record", "5", NULL);
    assert_int_equal(r->status, 0); /* falls are results */
    /* both values fall at once: no visit rows, two fell rows with 0 strides */
    assert_null(strstr(r->out, ",visit,"));
    const char *f1 = strstr(r->out, "\n0.009,-1,fell,");
    assert_non_null(f1);
    assert_non_null(strstr(f1, ",0,0,fell_backward\n"));
    assert_non_null(strstr(r->out, "\n0.0095,-1,fell,"));
    assert_non_null(strstr(r->err, "fell at 2 of them, first at gamma = 0.009"));
}

static void test_orbit_errors(void **state)
{
    cli_result *r = cli_run("orbit", "simplest", NULL);
    assert_int_equal(r->status, 64);
    one_line_error(r, "orbit");
    r = cli_run("orbit", "simplest", "--param", "gamma=0.01:0.02", NULL);
    assert_int_equal(r->status, 64);
    one_line_error(r, "orbit");
    r = cli_run("orbit", "simplest", "--param", "gamma=a:0.02:3", NULL);
    assert_int_equal(r->status, 65);
    one_line_error(r, "orbit");
    r = cli_run("orbit", "simplest", "--param", "beta=0.01:0.02:3", NULL);
    assert_int_equal(r->status, 64);
    r = cli_run("orbit", "simplest", "--param", "gamma=0.01:0.02:3", "--record", "0", NULL);
    assert_int_equal(r->status, 65);
    r = cli_run("orbit", "rimless", "--param", "n=6:10:4", NULL); /* 7.33 spokes */
    assert_int_equal(r->status, 65);
    one_line_error(r, "orbit");
    r = cli_run("orbit", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "usage: stridemap orbit"));
}

static int setup(void **state)
{
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    const char *names[] = {"log.csv", "log.json", "orbit.csv", "orbit.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(path(names[i]));
    rmdir(dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_continue PATH_TO_STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_continue_logistic_csv_and_sidecar),
        cmocka_unit_test(test_continue_newton_update),
        cmocka_unit_test(test_continue_branch_point_row),
        cmocka_unit_test(test_continue_failed_start),
        cmocka_unit_test(test_continue_start_not_within_tol),
        cmocka_unit_test(test_continue_errors),
        cmocka_unit_test(test_continue_help_examples_run),
        cmocka_unit_test(test_continue_step_options),
        cmocka_unit_test(test_continue_set_of_the_continued_parameter),
        cmocka_unit_test(test_continue_sidecar_checked_first),
        cmocka_unit_test(test_orbit_logistic),
        cmocka_unit_test(test_orbit_reports_falls),
        cmocka_unit_test(test_orbit_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
