/* stridemap disturb, and the disturbances as params and fixed show them:
 * one-line errors with sysexits codes, the JSON a script reads, the same
 * answer twice, the bracket holding what it says. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"

static json_t *parse(const cli_result *r)
{
    json_error_t e;
    json_t *doc = json_loads(r->out, 0, &e);
    if (!doc) fail_msg("not JSON (%s): %s", e.text, r->out);
    return doc;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("%s is not a number", key);
    return json_number_value(v);
}

static void bad_input_is_one_line_and_a_sysexits_code(void **state)
{
    (void)state;
    cli_expect_error(cli_run("disturb", "simplest", "--param", "bump", "--from", "-0.01", "--to", "0.01", NULL), 64,
                     "'bump' is not a disturbance of simplest; its disturbances: step_down, push, slope_step");
    cli_expect_error(cli_run("disturb", "simplest", "--param", "gamma", "--from", "-0.01", "--to", "0.01", NULL), 64,
                     "'gamma' is not a disturbance");
    cli_expect_error(cli_run("disturb", "simplest", "--param", "step_down", "--from", "0.01", "--to", "-0.01", NULL),
                     64, "--from 0.01 is not below --to -0.01");
    cli_expect_error(cli_run("disturb", "simplest", "--param", "step_down", "--from", "0.01", "--to", "0.02", NULL),
                     64, "must hold 0");
    cli_expect_error(cli_run("disturb", "simplest", "--from", "-0.01", "--to", "0.01", NULL), 64, "give --param NAME");
    cli_expect_error(cli_run("disturb", "simplest", "--param", "step_down", "--to", "0.01", NULL), 64, "--from A --to B");
    cli_expect_error(cli_run("disturb", "simplest", "--param", "step_down", "--from", "-1", "--to", "0.01", NULL), 65,
                     "outside its range");
    cli_expect_error(cli_run("disturb", "simplest", "--param", "step_down", "--from", "-0.01", "--to", "0.01",
                             "--max-strides", "0", NULL),
                     64, "--max-strides");
    cli_expect_error(cli_run("disturb", "rimless", "--param", "push", "--from", "-0.01", "--to", "0.01", NULL), 64,
                     "its disturbances: step_down, slope_step");
    cli_expect_error(cli_run("disturb", "logistic", "--param", "push", "--from", "-0.01", "--to", "0.01", NULL), 64,
                     "its disturbances: none");
    /* a floor step on every stride is no gait of this model */
    cli_expect_error(cli_run("fixed", "simplest", "--set", "step_down=0.01", NULL), 65, "step_down acts on one step only");
}

static void params_lists_the_disturbances(void **state)
{
    (void)state;
    cli_result *r = cli_run("params", "simplest", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "disturbance"));
    r = cli_run("params", "compass", "--json", NULL);
    json_t *doc = parse(r);
    size_t i, n = 0;
    json_t *p;
    json_array_foreach(json_object_get(doc, "params"), i, p)
        n += json_is_true(json_object_get(p, "disturbance"));
    assert_int_equal(n, 3);
    json_decref(doc);
}

/* The JSON of a search: each sign's bracket, in and out as the trials
 * say, width and failure, the same digits twice. */
static void disturb_json_brackets_and_repeats(void **state)
{
    (void)state;
    cli_result *r = cli_run("disturb", "simplest", "--param", "step_down", "--from", "-0.01", "--to", "0.01",
                            "--max-strides", "60", "--bisect-tol", "1e-7", "--json", NULL);
    assert_int_equal(r->status, 0);
    static char first[1 << 20];
    snprintf(first, sizeof first, "%s", r->out);
    json_t *doc = parse(r);
    assert_string_equal(json_string_value(json_object_get(doc, "disturbance")), "step_down");
    assert_int_equal(json_integer_value(json_object_get(doc, "max_strides")), 60);
    const json_t *pos = json_object_get(doc, "positive"), *neg = json_object_get(doc, "negative");
    assert_true(num(pos, "survives") > 0 && num(pos, "survives") < num(pos, "fails"));
    assert_true(num(neg, "survives") < 0 && num(neg, "survives") > num(neg, "fails"));
    assert_true(num(pos, "width") <= 1e-7 && num(neg, "width") <= 1e-7);
    assert_non_null(json_string_value(json_object_get(pos, "failure")));
    assert_true(num(doc, "gsn") > 0);
    json_decref(doc);
    r = cli_run("disturb", "simplest", "--param", "step_down", "--from", "-0.01", "--to", "0.01", "--max-strides", "60",
                "--bisect-tol", "1e-7", "--json", NULL);
    assert_string_equal(r->out, first);
}

/* A range the gait survives whole says so: no failure, no fails. */
static void a_range_survived_whole(void **state)
{
    (void)state;
    cli_result *r = cli_run("disturb", "compass", "--param", "push", "--from", "0", "--to", "0.5", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = parse(r);
    const json_t *pos = json_object_get(doc, "positive");
    assert_close(num(pos, "survives"), 0.5, 0);
    assert_true(json_is_null(json_object_get(pos, "fails")));
    assert_true(json_is_null(json_object_get(pos, "failure")));
    assert_true(json_is_null(json_object_get(doc, "negative")));
    json_decref(doc);
    r = cli_run("disturb", "compass", "--param", "push", "--from", "0", "--to", "0.5", NULL);
    assert_non_null(strstr(r->out, "survives the whole range"));
}

/* fixed reports the gait sensitivity norm per disturbance, on the default
 * indicators, and the disturbances stay out of the text's params line. */
static void fixed_reports_the_gait_sensitivity_norm(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = parse(r);
    const json_t *g = json_object_get(doc, "gait_sensitivity");
    assert_non_null(g);
    assert_string_equal(json_string_value(json_array_get(json_object_get(g, "indicators"), 0)), "step_length");
    assert_string_equal(json_string_value(json_array_get(json_object_get(g, "indicators"), 1)), "step_period");
    const json_t *each = json_object_get(g, "disturbances");
    assert_int_equal(json_object_size(each), 3);
    const json_t *sd = json_object_get(each, "step_down");
    const double gsn = num(sd, "gsn");
    const json_t *pi = json_object_get(sd, "per_indicator");
    const double a = num(pi, "step_length"), b = num(pi, "step_period");
    assert_close(gsn * gsn, a * a + b * b, 1e-12 * gsn * gsn);
    json_decref(doc);
    r = cli_run("fixed", "simplest", NULL);
    assert_non_null(strstr(r->out, "params       gamma = 0.009 rad\n"));
    /* the text has it only when asked (it costs strides), the JSON unless told not */
    assert_null(strstr(r->out, "\ngsn"));
    r = cli_run("fixed", "simplest", "--gsn", NULL);
    assert_non_null(strstr(r->out, "\ngsn          step_down "));
    doc = parse(cli_run("fixed", "simplest", "--json", "--no-gsn", NULL));
    assert_null(json_object_get(doc, "gait_sensitivity"));
    json_decref(doc);
    /* no disturbance, no key */
    doc = parse(cli_run("fixed", "logistic", "--json", NULL));
    assert_null(json_object_get(doc, "gait_sensitivity"));
    json_decref(doc);
}

static void help_names_the_command(void **state)
{
    (void)state;
    cli_result *r = cli_run("disturb", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "usage: stridemap disturb MODEL --param NAME --from A --to B"));
    r = cli_run("--help", NULL);
    assert_non_null(strstr(r->out, "disturb MODEL"));
}

/* compass.yaml with one more disturbance line: a second slope step, an
 * unknown kind and bad pushes are refused with the line and what to change (exit 65). */
static void bad_disturbance_lines_name_what_to_change(void **state)
{
    (void)state;
    static const char *const extra[][2] = {
        {"  tilt: {kind: slope_step}\n", "a second slope_step ('tilt'); a file has one slope step"},
        {"  shove: {kind: shove}\n", "disturbance kind 'shove' is not known; the kinds: floor_step, slope_step, push"},
        {"  shove: {kind: push, site: hip, direction: left}\n", "direction: left needs a 3-D walker; this one is planar"},
        {"  shove: {kind: push, site: nose}\n", "nose"},
        {"  heelstrike: {kind: push, site: hip}\n", "disturbance 'heelstrike' has the name of an event of phase 'swing'"},
    };
    static char text[1 << 16];
    FILE *in = fopen(SM_SOURCE_DIR "/models/compass.yaml", "r");
    assert_non_null(in);
    const size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        char path[] = "/tmp/stridemap_disturb_XXXXXX.yaml";
        const int fd = mkstemps(path, 5);
        assert_true(fd >= 0);
        FILE *out = fdopen(fd, "w");
        fwrite(text, 1, n, out);
        fputs(extra[k][0], out);
        fclose(out);
        cli_expect_error(cli_run("params", path, NULL), 65, extra[k][1]);
        unlink(path);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_disturb PATH_TO_STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_input_is_one_line_and_a_sysexits_code),
        cmocka_unit_test(params_lists_the_disturbances),
        cmocka_unit_test(disturb_json_brackets_and_repeats),
        cmocka_unit_test(a_range_survived_whole),
        cmocka_unit_test(fixed_reports_the_gait_sensitivity_norm),
        cmocka_unit_test(help_names_the_command),
        cmocka_unit_test(bad_disturbance_lines_name_what_to_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
