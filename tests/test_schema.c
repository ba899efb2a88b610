/* docs/output-schema.md against the program: the tables are read from the
 * document itself, so that neither can drift from the other.  For each
 * JSON output (fixed, search, params, the continue, orbit, sweep and basin
 * sidecars), over runs that between them meet every documented condition:
 * every key is documented, with the documented type; every key documented
 * "always" is there in each run; every documented key appears in some run
 * (MPI's alone excepted); "schema" is the document's version.  For each
 * CSV (simulate, continue, orbit, sweep, sweep --disturb, basin, inverse): every column is documented, every
 * "always" column is there, the fixed columns in the documented order.
 * The binary's path comes as argv[1]. */
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "src_path.h"
#include "test_util.h"

enum { MAX_ROWS = 256, MAX_SEEN = 1024 };

typedef struct {
    char key[160];      /* as written, backticks removed */
    char type[64];      /* "number or null", "map: string", ... */
    char present[128];
    bool always, literal, seen;
} doc_row;

typedef struct {
    doc_row row[MAX_ROWS];
    size_t n;
} doc_table;

static char schema_version[64];
static char tmpdir[] = "/tmp/sm_schemaXXXXXX";

static char *trim(char *s)
{
    while (*s == ' ') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n')) s[--n] = '\0';
    return s;
}

/* The table under the heading that contains title; fails if there is none. */
static void read_table(const char *title, doc_table *t)
{
    FILE *f = fopen(src_path("docs/output-schema.md"), "r");
    assert_non_null(f);
    char line[2048];
    bool in = false;
    t->n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Schema version: `", 17) == 0)
            sscanf(line + 17, "%63[^`]", schema_version);
        if (strncmp(line, "## ", 3) == 0) {
            if (in) break;
            in = strstr(line, title) != NULL;
            continue;
        }
        if (!in || strncmp(line, "| `", 3) != 0) continue;
        char *cell[5] = {0}, *p = line + 1;
        for (int c = 0; c < 5 && p; c++) {
            char *bar = strchr(p, '|');
            while (bar && bar[-1] == '\\') bar = strchr(bar + 1, '|');
            if (bar) *bar = '\0';
            cell[c] = trim(p);
            p = bar ? bar + 1 : NULL;
        }
        assert_non_null(cell[3]);
        assert_true(t->n < MAX_ROWS);
        doc_row *r = &t->row[t->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->key, sizeof r->key, "%.*s", (int)strlen(cell[0]) - 2, cell[0] + 1);
        snprintf(r->type, sizeof r->type, "%s", cell[1]);
        snprintf(r->present, sizeof r->present, "%s", cell[3]);
        r->always = strncmp(cell[3], "always", 6) == 0;
        r->literal = !strchr(r->key, '<');
    }
    fclose(f);
    if (t->n == 0) fail_msg("docs/output-schema.md has no table under a heading with %s", title);
}

/* Appends s to re with the regex's special characters escaped. */
static void put_escaped(char *re, size_t cap, const char *s, size_t n)
{
    size_t k = strlen(re);
    for (size_t i = 0; i < n && k + 3 < cap; i++) {
        if (strchr(".[]()*+?^$|\\{}", s[i])) re[k++] = '\\';
        re[k++] = s[i];
    }
    re[k] = '\0';
}

/* Whether name is the documented key (or column) pattern: a literal, or
 * with <NAME> standing for one of names[] where the run says which (a
 * state, a parameter), <K> for 1, 2, ..., any other <...> for a word
 * (sep: the character it may not contain, '.' in JSON keys). */
static bool matches(const char *pattern, const char *name, json_t *states, json_t *params, char sep)
{
    char re[4096] = "^";
    for (const char *p = pattern; *p;) {
        const char *lt = strchr(p, '<');
        if (!lt) {
            put_escaped(re, sizeof re, p, strlen(p));
            break;
        }
        put_escaped(re, sizeof re, p, (size_t)(lt - p));
        const char *gt = strchr(lt, '>');
        assert_non_null(gt);
        json_t *choices = strncmp(lt, "<state>", 7) == 0 ? states : strncmp(lt, "<param>", 7) == 0 ? params : NULL;
        if (strncmp(lt, "<K>", 3) == 0) {
            strcat(re, "[1-9][0-9]*");
        } else if (choices) {
            strcat(re, "(");
            size_t i;
            json_t *v;
            json_array_foreach(choices, i, v) {
                if (i) strcat(re, "|");
                put_escaped(re, sizeof re, json_string_value(v), strlen(json_string_value(v)));
            }
            strcat(re, ")");
        } else {
            strcat(re, sep == '.' ? "[^.]+" : "[^,]+");
        }
        p = gt + 1;
    }
    strcat(re, "$");
    regex_t rx;
    assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
    const bool ok = regexec(&rx, name, 0, NULL, 0) == 0;
    regfree(&rx);
    return ok;
}

static doc_row *find_row(doc_table *t, const char *path)
{
    for (size_t i = 0; i < t->n; i++)
        if (matches(t->row[i].key, path, NULL, NULL, '.')) return &t->row[i];
    return NULL;
}

static bool type_ok(const char *type, json_t *v)
{
    if (json_is_null(v)) return strstr(type, "or null") != NULL;
    if (strncmp(type, "map", 3) == 0) return json_is_object(v);
    if (strncmp(type, "string", 6) == 0) return json_is_string(v);
    if (strncmp(type, "integer", 7) == 0) return json_is_integer(v);
    if (strncmp(type, "number", 6) == 0) return json_is_number(v);
    if (strncmp(type, "boolean", 7) == 0) return json_is_boolean(v);
    if (strncmp(type, "array", 5) == 0) return json_is_array(v);
    if (strncmp(type, "object", 6) == 0) return json_is_object(v);
    fail_msg("docs/output-schema.md: unknown type '%s'", type);
    return false;
}

/* Every key under v (prefix: its path) documented with its type; the
 * paths seen go to seen[]. */
static void walk(doc_table *t, json_t *v, const char *prefix, const char *what, char seen[][160], size_t *n_seen)
{
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x) {
        char path[160];
        snprintf(path, sizeof path, "%s%s", prefix, k);
        doc_row *r = find_row(t, path);
        if (!r) fail_msg("%s: key '%s' is not in docs/output-schema.md", what, path);
        if (!type_ok(r->type, x)) fail_msg("%s: '%s' is not of the documented type '%s'", what, path, r->type);
        r->seen = true;
        if (*n_seen < MAX_SEEN) snprintf(seen[(*n_seen)++], 160, "%s", path);
        if (strncmp(r->type, "map", 3) == 0) {
            const char *mk;
            json_t *mv;
            json_object_foreach(x, mk, mv) {
                if (!type_ok(r->type + 5, mv)) fail_msg("%s: '%s.%s' is not a %s", what, path, mk, r->type + 5);
            }
        } else if (json_is_object(x)) {
            char sub[170];
            snprintf(sub, sizeof sub, "%s.", path);
            walk(t, x, sub, what, seen, n_seen);
        } else if (json_is_array(x)) {
            size_t i;
            json_t *e;
            char sub[170];
            snprintf(sub, sizeof sub, "%s[].", path);
            json_array_foreach(x, i, e) if (json_is_object(e)) walk(t, e, sub, what, seen, n_seen);
        }
    }
}

/* One JSON output against its table. */
static void check_json(doc_table *t, json_t *doc, const char *what)
{
    if (!doc) fail_msg("%s: no JSON", what);
    static char seen[MAX_SEEN][160];
    size_t n_seen = 0;
    walk(t, doc, "", what, seen, &n_seen);
    for (size_t i = 0; i < t->n; i++) {
        if (!t->row[i].always || !t->row[i].literal) continue;
        bool there = false;
        for (size_t s = 0; s < n_seen && !there; s++) there = strcmp(seen[s], t->row[i].key) == 0;
        if (!there) fail_msg("%s: '%s', documented as always present, is missing", what, t->row[i].key);
    }
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), schema_version);
}

/* Every documented key appeared in one of the runs (MPI's need a launcher). */
static void check_covered(const doc_table *t, const char *section)
{
    for (size_t i = 0; i < t->n; i++)
        if (!t->row[i].seen && !strstr(t->row[i].present, "MPI"))
            fail_msg("%s: '%s' is documented but no run wrote it", section, t->row[i].key);
}

static json_t *run_json(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    cli_result *r = cli_run_va(NULL, first, ap);
    va_end(ap);
    json_error_t err;
    json_t *doc = json_loads(r->out, 0, &err);
    if (!doc) fail_msg("stridemap %s: exit %d, no JSON (%s): %s", first, r->status, err.text, r->err);
    return doc;
}

static json_t *load(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    json_error_t err;
    json_t *doc = json_load_file(p, 0, &err);
    if (!doc) fail_msg("%s: %s", p, err.text);
    return doc;
}

static const char *tmp(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

static void test_fixed(void **state)
{
    (void)state;
    doc_table t;
    read_table("`fixed --json`", &t);
    char rimless3d[512], hzd[512], slide[512];
    snprintf(rimless3d, sizeof rimless3d, "%s", src_path("models/rimless3d.yaml"));
    snprintf(hzd, sizeof hzd, "%s", src_path("models/three_link_hzd.yaml"));
    snprintf(slide, sizeof slide, "%s", src_path("tests/data/friction/slide_steady.yaml"));
    const char *const runs[][8] = {
        {"fixed", "simplest", "--set", "gamma=0.009", "--json"},     /* a closed-form walker */
        {"fixed", "simplest", "--max-iter", "1", "--json"},          /* not converged */
        {"fixed", "slip", "--set", "E=840", "--json"},               /* a conserved quantity */
        {"fixed", rimless3d, "--json"},                              /* 3-D body walker, a family */
        {"fixed", hzd, "--json"},                                    /* a controller, HZD */
        {"fixed", slide, "--json"},                                  /* a slide contact in use */
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        json_t *doc = run_json(runs[i][0], runs[i][1], runs[i][2], runs[i][3], runs[i][4], NULL);
        char what[600];
        snprintf(what, sizeof what, "fixed %s %s", runs[i][1], runs[i][2] ? runs[i][2] : "");
        check_json(&t, doc, what);
        json_decref(doc);
    }
    check_covered(&t, "fixed --json");
}

static void test_search_params(void **state)
{
    (void)state;
    doc_table t;
    read_table("`search --json`", &t);
    json_t *doc = run_json("search", "simplest", "--set", "gamma=0.009", "--starts", "8", "--max-starts", "8",
                           "--json", NULL);
    check_json(&t, doc, "search simplest");
    json_decref(doc);
    check_covered(&t, "search --json");

    read_table("`disturb --json`", &t);
    doc = run_json("disturb", "simplest", "--param", "step_down", "--from", "-0.002", "--to", "0.002", "--max-strides",
                   "60", "--json", NULL);
    check_json(&t, doc, "disturb simplest");
    json_decref(doc);
    doc = run_json("disturb", "simplest", "--param", "push", "--from", "0", "--to", "1e-4", "--json", NULL);
    check_json(&t, doc, "disturb simplest, a range survived whole");
    json_decref(doc);
    check_covered(&t, "disturb --json");

    read_table("`params --json`", &t);
    doc = run_json("params", "compass", "--json", NULL);
    check_json(&t, doc, "params compass");
    json_decref(doc);
    check_covered(&t, "params --json");
}

static void test_continue_orbit(void **state)
{
    (void)state;
    doc_table t;
    read_table("`continue` sidecar", &t);
    cli_result *r = cli_run("continue", "simplest", "--param", "gamma", "--from", "0.009", "--to", "0.017", "--step",
                            "0.002", "--out", tmp("cont.csv"), NULL);
    if (r->status != 0) fail_msg("continue: exit %d: %s", r->status, r->err);
    json_t *doc = load("cont.json");
    check_json(&t, doc, "continue sidecar");
    json_decref(doc);
    check_covered(&t, "continue sidecar");

    read_table("`orbit` sidecar", &t);
    r = cli_run("orbit", "simplest", "--param", "gamma=0.009:0.01:2", "--transient", "5", "--record", "4", "--out",
                tmp("orbit.csv"), NULL);
    if (r->status != 0) fail_msg("orbit: exit %d: %s", r->status, r->err);
    doc = load("orbit.json");
    check_json(&t, doc, "orbit sidecar");
    json_decref(doc);
    check_covered(&t, "orbit sidecar");
}

static void test_sweep(void **state)
{
    (void)state;
    doc_table t;
    read_table("`sweep` sidecars", &t);
    cli_result *r = cli_run("sweep", "compass", "--grid", "gamma=0.02:0.03:4", "--segment", "2", "--jobs", "1",
                            "--out", tmp("sweep"), NULL);
    if (r->status != 0) fail_msg("sweep: exit %d: %s", r->status, r->err);
    json_t *part = load("sweep/part-local.json"), *all = load("sweep/sweep.json");
    check_json(&t, part, "sweep part-local.json");
    check_json(&t, all, "sweep sweep.json");
    json_decref(part);
    json_decref(all);
    /* the disturbance search's sidecar: the sweep's keys and its settings */
    r = cli_run("sweep", "compass", "--grid", "gamma=0.02:0.03:2", "--disturb", "step_down", "--from", "-0.01", "--to",
                "0.01", "--max-strides", "10", "--scan", "2", "--bisect-tol", "1e-3", "--jobs", "1", "-q", "--out",
                tmp("dsweep"), NULL);
    if (r->status != 0) fail_msg("sweep --disturb: exit %d: %s", r->status, r->err);
    part = load("dsweep/part-local.json");
    all = load("dsweep/sweep.json");
    check_json(&t, part, "sweep --disturb part-local.json");
    check_json(&t, all, "sweep --disturb sweep.json");
    json_decref(part);
    json_decref(all);
    check_covered(&t, "sweep sidecars");
}

/* A basin's sidecars: a plain run, and one with --segment and --guess (the
 * keys only they write). */
static void test_basin(void **state)
{
    (void)state;
    doc_table t;
    read_table("`basin` sidecars", &t);
    cli_result *r = cli_run("basin", "simplest", "--plane", "theta=0.17:0.23:3,theta_dot=-0.23:-0.17:3", "-q",
                            "--out", tmp("basin1"), NULL);
    if (r->status != 0) fail_msg("basin: exit %d: %s", r->status, r->err);
    r = cli_run("basin", "simplest", "--plane", "theta=0.17:0.23:4,theta_dot=-0.23:-0.17:3", "--segment", "2",
                "--guess", "0.2,-0.2,0.4,-0.0158", "-q", "--out", tmp("basin2"), NULL);
    if (r->status != 0) fail_msg("basin --segment --guess: exit %d: %s", r->status, r->err);
    static const char *const files[] = {"basin1/part-local.json", "basin1/basin.json", "basin2/part-local.json",
                                        "basin2/basin.json"};
    for (size_t i = 0; i < 4; i++) {
        json_t *doc = load(files[i]);
        check_json(&t, doc, files[i]);
        json_decref(doc);
    }
    check_covered(&t, "basin sidecars");
}

/* The header of a CSV written by a run: its columns against the table. */
static void check_csv(doc_table *t, const char *header, json_t *states, json_t *params, const char *what)
{
    char cols[128][96];
    size_t n = 0;
    for (const char *p = header; *p && *p != '\n' && n < 128;) {
        const size_t k = strcspn(p, ",\n");
        snprintf(cols[n++], sizeof cols[0], "%.*s", (int)k, p);
        p += k + (p[k] == ',');
    }
    size_t next_literal = 0; /* the literal rows must come in the document's order */
    for (size_t c = 0; c < n; c++) {
        doc_row *r = NULL;
        for (size_t i = 0; i < t->n && !r; i++)
            if (matches(t->row[i].key, cols[c], states, params, ',')) r = &t->row[i];
        if (!r) fail_msg("%s: column '%s' is not in docs/output-schema.md", what, cols[c]);
        r->seen = true;
        if (r->literal) {
            const size_t at = (size_t)(r - t->row);
            if (at < next_literal) fail_msg("%s: column '%s' is out of the documented order", what, cols[c]);
            next_literal = at + 1;
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        if (!t->row[i].always) continue;
        bool there = false;
        for (size_t c = 0; c < n && !there; c++) there = matches(t->row[i].key, cols[c], states, params, ',');
        if (!there) fail_msg("%s: column '%s', documented as always present, is missing", what, t->row[i].key);
    }
}

/* The state and parameter names of a model, for <state> and <param>. */
static void names_of(const char *model, json_t **states, json_t **params)
{
    json_t *doc = run_json("params", model, "--json", NULL);
    *states = json_incref(json_object_get(doc, "state_names"));
    *params = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(doc, "params"), i, p) json_array_append(*params, json_object_get(p, "name"));
    json_decref(doc);
}

static void test_csv_columns(void **state)
{
    (void)state;
    doc_table t;
    json_t *states, *params;
    char kneed[512], rimless3d[512];
    snprintf(kneed, sizeof kneed, "%s", src_path("models/kneed_hsu.yaml"));
    snprintf(rimless3d, sizeof rimless3d, "%s", src_path("models/rimless3d.yaml"));

    read_table("`simulate` CSV", &t);
    const char *const models[] = {"simplest", kneed, rimless3d}; /* closed form, locks, 3-D */
    for (size_t i = 0; i < 3; i++) {
        names_of(models[i], &states, &params);
        cli_result *r = cli_run("simulate", models[i], "--steps", "1", "--dt", "0.5", NULL);
        if (r->status != 0) fail_msg("simulate %s: exit %d: %s", models[i], r->status, r->err);
        check_csv(&t, r->out, states, params, models[i]);
        json_decref(states);
        json_decref(params);
    }
    check_covered(&t, "simulate CSV");

    names_of("simplest", &states, &params);
    char text[1 << 14];
    read_table("`continue` CSV", &t);
    assert_int_equal(cli_run("continue", "simplest", "--param", "gamma", "--from", "0.009", "--to", "0.01", "--step",
                             "0.001", "--out", tmp("c.csv"), NULL)->status, 0);
    cli_slurp(tmp("c.csv"), text, sizeof text);
    check_csv(&t, text, states, params, "continue CSV");
    read_table("`orbit` CSV", &t);
    assert_int_equal(cli_run("orbit", "simplest", "--param", "gamma=0.009:0.01:2", "--transient", "5", "--record", "4",
                             "--out", tmp("o.csv"), NULL)->status, 0);
    cli_slurp(tmp("o.csv"), text, sizeof text);
    check_csv(&t, text, states, params, "orbit CSV");
    json_decref(states);
    json_decref(params);

    names_of("compass", &states, &params);
    read_table("`sweep` CSV", &t);
    assert_int_equal(cli_run("sweep", "compass", "--grid", "gamma=0.02:0.03:2", "--grid", "mh=9:10:2", "--jobs", "1",
                             "--out", tmp("sw"), NULL)->status, 0);
    cli_slurp(tmp("sw/sweep.csv"), text, sizeof text);
    check_csv(&t, text, states, params, "sweep CSV");
    read_table("`sweep --disturb` CSV", &t);
    assert_int_equal(cli_run("sweep", "compass", "--grid", "gamma=0.02:0.03:2", "--disturb", "step_down", "--from",
                             "-0.01", "--to", "0.01", "--max-strides", "10", "--scan", "2", "--bisect-tol", "1e-3",
                             "--jobs", "1", "-q", "--out", tmp("dsw"), NULL)->status, 0);
    cli_slurp(tmp("dsw/sweep.csv"), text, sizeof text);
    check_csv(&t, text, states, params, "sweep --disturb CSV");
    check_covered(&t, "sweep --disturb CSV");
    json_decref(states);
    json_decref(params);

    names_of("simplest", &states, &params);
    read_table("`basin` CSV", &t);
    cli_result *rb = cli_run("basin", "simplest", "--plane", "theta=0.17:0.23:3,theta_dot=-0.23:-0.17:3", "-q",
                             "--out", tmp("bc"), NULL);
    if (rb->status != 0) fail_msg("basin: exit %d: %s", rb->status, rb->err);
    cli_slurp(tmp("bc/basin.csv"), text, sizeof text);
    check_csv(&t, text, states, params, "basin CSV");
    cli_slurp(tmp("bc/part-local.csv"), text, sizeof text);
    check_csv(&t, text, states, params, "basin part-local.csv");
    check_covered(&t, "basin CSV");
    json_decref(states);
    json_decref(params);

    /* inverse on a walk 'simulate' wrote, without and with --forward */
    char hu9[512];
    snprintf(hu9, sizeof hu9, "%s", src_path("models/human_hu9.yaml"));
    names_of(hu9, &states, &params);
    read_table("`inverse` CSV", &t);
    assert_int_equal(cli_run("simulate", hu9, "--steps", "1", "--dt", "0.002", "--out", tmp("walk.csv"), NULL)->status,
                     0);
    cli_result *ri = cli_run("inverse", hu9, tmp("walk.csv"), "--half-window", "2", NULL);
    if (ri->status != 0) fail_msg("inverse: exit %d: %s", ri->status, ri->err);
    check_csv(&t, ri->out, states, params, "inverse CSV");
    ri = cli_run("inverse", hu9, tmp("walk.csv"), "--half-window", "2", "--forward", NULL);
    if (ri->status != 0) fail_msg("inverse --forward: exit %d: %s", ri->status, ri->err);
    check_csv(&t, ri->out, states, params, "inverse --forward CSV");
    check_covered(&t, "inverse CSV");
    json_decref(states);
    json_decref(params);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDEMAP\n", argv[0]);
        return 2;
    }
    cli_exe = argv[1];
    if (!mkdtemp(tmpdir)) return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_search_params),
        cmocka_unit_test(test_continue_orbit),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_basin),
        cmocka_unit_test(test_csv_columns),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed;
}
