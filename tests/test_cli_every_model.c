/* Every model takes every disturbance command (issue 16): each built-in
 * walker `stridemap models` lists and each file of models/ that has a gait
 * declares disturbances, and for each of them a small `disturb` runs (exit
 * 0, its JSON names it), `fixed --json` reports a gait sensitivity norm
 * (a number, or null with a named reason), and a 3 x 3 `basin` around the
 * gait runs, its centre cell (the gait itself) converged, and a one-point
 * `sweep --disturb` gives the row `disturb` gave there.  A model left
 * out of any of these fails the test unless it is on an exclusion list
 * below, each entry with its reason; a model on a list that now does the
 * thing fails too, so the lists do not outlive their reasons.
 *
 * Loose tolerances (rtol 1e-8) and a few strides keep it short: it checks
 * that the commands work on each model, the numbers are tested elsewhere
 * (tests/test_disturb.c, tests/test_basin.c). */
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "csv_read.h"

/* No disturbance declared: no walker, or no gait to disturb. */
static const char *const no_disturbances[] = {
    "logistic", "foldmap", "delayed_logistic", /* test maps, no walkers */
    "human_hu9", "biped3d", "five_link_trunk", /* spring-held seed files: fixed finds no gait from their guess */
    /* written on other branches at the same time as these lists: they
     * join the loop once they declare disturbances (docs/body-walkers.md) */
    "human9", "biped12_3d",
    "biped12_3d_sampled", /* biped12_3d's walker (which declares none) under a sampled law; a step costs seconds */
    NULL,
};

/* No basin: `basin` needs a plane of two free coordinates. */
static const char *const no_basin[] = {
    "rimless", /* one free coordinate (the spoke's rate) */
    NULL,
};

static bool listed(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0) return true;
    return false;
}

static json_t *parse(const cli_result *r, const char *what)
{
    json_error_t e;
    json_t *doc = json_loads(r->out, 0, &e);
    if (!doc) fail_msg("%s: not JSON (%s): exit %d, %s", what, e.text, r->status, r->err);
    return doc;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("%s is not a number", key);
    return json_number_value(v);
}

/* The model's short name: a file's base name without .yaml. */
static void short_name(const char *model, char *out, size_t len)
{
    const char *s = strrchr(model, '/');
    snprintf(out, len, "%s", s ? s + 1 : model);
    char *dot = strstr(out, ".yaml");
    if (dot) *dot = '\0';
}

static void run_basin(const char *model, const char *name, const json_t *fixed)
{
    const json_t *free_names = json_object_get(fixed, "free_coordinates");
    const json_t *names = json_object_get(fixed, "state_names"), *x = json_object_get(fixed, "fixed_point");
    if (json_array_size(free_names) < 2) {
        if (!listed(no_basin, name)) fail_msg("%s has fewer than two free coordinates: put it on no_basin", name);
        return;
    }
    if (listed(no_basin, name)) fail_msg("%s is on no_basin but has a plane: take it off", name);
    char plane[512] = "", *at = plane;
    for (size_t k = 0; k < 2; k++) {
        const char *fname = json_string_value(json_array_get(free_names, k));
        double z = NAN;
        for (size_t i = 0; i < json_array_size(names); i++)
            if (strcmp(json_string_value(json_array_get(names, i)), fname) == 0)
                z = json_number_value(json_array_get(x, i));
        const double w = 1e-4 * fmax(1.0, fabs(z));
        at += snprintf(at, (size_t)(plane + sizeof plane - at), "%s%s=%.17g:%.17g:3", k ? "," : "", fname, z - w,
                       z + w);
    }
    char dir[] = "/tmp/stridemap_every_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[64 + sizeof dir];
    snprintf(out, sizeof out, "%s/b", dir);
    const cli_result *r =
        cli_run("basin", model, "--plane", plane, "--max-strides", "3", "--rtol", "1e-8", "--tol", "1e-7", "--out", out, "-q", NULL);
    if (r->status != 0) fail_msg("basin %s: exit %d, %s", name, r->status, r->err);
    char csv[128 + sizeof dir];
    snprintf(csv, sizeof csv, "%s/basin.csv", out);
    static char text[1 << 16];
    cli_slurp(csv, text, sizeof text);
    assert_int_equal(cli_count_lines(text), 10); /* a header and 9 cells */
    /* cell 4 is the centre: the gait itself */
    const char *row = strstr(text, "\n4,");
    if (!row) fail_msg("basin %s: no centre cell in %s", name, text);
    char *end = strchr(row + 1, '\n');
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(end ? end - row - 1 : (long)strlen(row + 1)), row + 1);
    if (!strstr(line, ",converged,")) fail_msg("basin %s: the gait's own cell is not converged: %s", name, line);
    char cmd[256 + sizeof dir];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A one-point sweep --disturb of dist at the model's own parameters (axis:
 * a parameter that is no disturbance, at its default) against disturb's
 * JSON d there: the same gait, brackets and GSN, to the last bit. */
static void run_disturb_sweep(const char *model, const char *name, const char *axis, double value, const char *dist,
                              const char *from, const char *to, const json_t *d)
{
    char grid[160], out[300], csv[320];
    snprintf(grid, sizeof grid, "%s=%.17g:%.17g:1", axis, value, value);
    snprintf(out, sizeof out, "/tmp/sm_every_dsweep_%d_%s", (int)getpid(), name);
    const cli_result *r = cli_run("sweep", model, "--grid", grid, "--disturb", dist, "--from", from, "--to", to,
                                  "--max-strides", "3", "--scan", "1", "--bisect-tol", "1", "--rtol", "1e-8", "--tol",
                                  "1e-7", "--jobs", "1", "--out", out, "-q", NULL);
    if (r->status != 0) fail_msg("sweep --disturb %s %s: exit %d, %s", name, dist, r->status, r->err);
    snprintf(csv, sizeof csv, "%s/sweep.csv", out);
    static char text[1 << 16], f[160][64];
    cli_slurp(csv, text, sizeof text);
    const char *p;
    rfc4180_record(text, f, 160, &p); /* the header */
    const size_t n = rfc4180_record(p, f, 160, &p);
    /* index, the axis, outcome, status, max_abs_eig (4), stable, neg_ (6..13), pos_ (14..21), gsn (22) */
    if (n < 24) fail_msg("sweep --disturb %s: a row of %zu fields", name, n);
    const json_t *neg = json_object_get(d, "negative"), *pos = json_object_get(d, "positive");
    const json_t *gsn = json_object_get(d, "gsn");
    const double want[4] = {json_number_value(json_object_get(json_object_get(d, "gait"), "max_abs_eigenvalue")),
                            json_is_object(neg) ? json_number_value(json_object_get(neg, "survives")) : NAN,
                            json_is_object(pos) ? json_number_value(json_object_get(pos, "survives")) : NAN,
                            json_is_number(gsn) ? json_number_value(gsn) : NAN};
    const int col[4] = {4, 6, 14, 22};
    for (int k = 0; k < 4; k++) {
        const double got = strtod(f[col[k]], NULL);
        if (!(got == want[k] || (isnan(got) && isnan(want[k]))))
            fail_msg("sweep --disturb %s %s: column %d is %.17g, disturb says %.17g", name, dist, col[k], got, want[k]);
    }
    char rm[400];
    snprintf(rm, sizeof rm, "rm -rf '%s'", out);
    assert_int_equal(system(rm), 0);
}

/* Returns the disturbances run. */
static int every_command(const char *model)
{
    char name[256];
    short_name(model, name, sizeof name);
    json_t *doc = parse(cli_run("params", model, "--json", NULL), model);
    const json_t *params = json_object_get(doc, "params");
    char dist[16][64], axis[64] = "";
    double lo[16], hi[16], axis_value = 0;
    int n = 0;
    for (size_t i = 0; i < json_array_size(params) && n < 16; i++) {
        const json_t *q = json_array_get(params, i);
        if (!axis[0] && !json_is_true(json_object_get(q, "disturbance")) && !json_is_true(json_object_get(q, "integer"))) {
            snprintf(axis, sizeof axis, "%s", json_string_value(json_object_get(q, "name")));
            axis_value = num(q, "default");
        }
        if (!json_is_true(json_object_get(q, "disturbance"))) continue;
        snprintf(dist[n], sizeof dist[n], "%s", json_string_value(json_object_get(q, "name")));
        lo[n] = 0.01 * fmax(num(q, "min"), -1.0), hi[n] = 0.01 * fmin(num(q, "max"), 1.0);
        n++;
    }
    json_decref(doc);
    if (!n) {
        if (!listed(no_disturbances, name))
            fail_msg("%s declares no disturbance: declare them (docs/body-walkers.md), or put it on no_disturbances "
                     "with the reason",
                     model);
        cli_expect_error(cli_run("disturb", model, "--param", "step_down", "--from", "-0.01", "--to", "0.01", NULL), 64,
                         "its disturbances: none");
        return 0;
    }
    if (listed(no_disturbances, name)) fail_msg("%s is on no_disturbances but declares some: take it off", name);

    for (int k = 0; k < n; k++) {
        char from[32], to[32];
        snprintf(from, sizeof from, "%.6g", lo[k]);
        snprintf(to, sizeof to, "%.6g", hi[k]);
        const cli_result *r = cli_run("disturb", model, "--param", dist[k], "--from", from, "--to", to, "--max-strides",
                                      "3", "--scan", "1", "--bisect-tol", "1", "--rtol", "1e-8", "--tol", "1e-7", "--json", NULL);
        if (r->status != 0) fail_msg("disturb %s --param %s: exit %d, %s", model, dist[k], r->status, r->err);
        json_t *d = parse(r, model);
        assert_string_equal(json_string_value(json_object_get(d, "disturbance")), dist[k]);
        assert_true(json_is_number(json_object_get(d, "gsn")) || json_is_string(json_object_get(d, "gsn_reason")));
        if (k == 0 && !axis[0]) fail_msg("%s: no parameter that is neither a disturbance nor whole", name);
        if (k == 0) run_disturb_sweep(model, name, axis, axis_value, dist[k], from, to, d);
        json_decref(d);
    }

    const cli_result *r = cli_run("fixed", model, "--json", "--rtol", "1e-8", "--tol", "1e-7", NULL);
    if (r->status != 0) fail_msg("fixed %s: exit %d, %s", model, r->status, r->err);
    doc = parse(r, model);
    const json_t *gs = json_object_get(json_object_get(doc, "gait_sensitivity"), "disturbances");
    if (json_object_size(gs) != (size_t)n) fail_msg("fixed %s: %zu GSNs for %d disturbances", model, json_object_size(gs), n);
    for (int k = 0; k < n; k++) {
        const json_t *v = json_object_get(gs, dist[k]);
        if (!v) fail_msg("fixed %s: no GSN for %s", model, dist[k]);
        const json_t *gsn = json_object_get(v, "gsn"), *why = json_object_get(v, "reason");
        if (json_is_number(gsn)) {
            assert_true(json_is_null(why) && json_number_value(gsn) >= 0);
        } else {
            assert_true(json_is_null(gsn) && json_is_string(why));
            /* null only for a reason: an unstable gait or a family's drift */
            if (json_is_true(json_object_get(doc, "stable")) && strcmp(json_string_value(why), "family") != 0)
                fail_msg("fixed %s: the stable gait's GSN to %s is null (%s)", model, dist[k], json_string_value(why));
        }
    }
    run_basin(model, name, doc);
    json_decref(doc);
    return n;
}

static void every_model_takes_every_command(void **state)
{
    (void)state;
    json_t *list = parse(cli_run("models", "--json", NULL), "models");
    int total = 0, models = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        if (json_object_get(e, "file")) continue; /* a file: from the glob below, once */
        total += every_command(json_string_value(json_object_get(e, "name")));
        models++;
    }
    json_decref(list);
    glob_t g;
    assert_int_equal(glob(SM_SOURCE_DIR "/models/*.yaml", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++, models++) total += every_command(g.gl_pathv[i]);
    globfree(&g);
    /* 7 built-in, 13 files; simplest 3, compass 3, rimless 2, slip 1, 10 files with 3 and garcia3d 4 */
    assert_true(models >= 20);
    assert_true(total >= 40);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_every_model PATH_TO_STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_model_takes_every_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
