/* `continue` and `sweep` on Garcia's 3-D walker (models/garcia3d.yaml, the
 * mirrored one-step map), as a user runs them (issue 14, item 6).
 *
 * What each check stands on:
 * - Every point of a branch or a sweep is a gait in its own right, so an
 *   independent `fixed` run at the same parameters (Newton from the model's
 *   guess, not from the branch) must find the same fixed point (to 1e-8:
 *   both residuals are below 1e-10 and |1 - multiplier| >= 0.3 here, so the
 *   two solutions lie within about 1e-9 of each other) and the same
 *   multipliers (to 1e-6 of max(1, |multiplier|): the stability Jacobians
 *   are differenced at points 1e-9 apart).  The stable column must say
 *   max |multiplier| < 1, using `fixed`'s multipliers.
 * - The Neimark-Sacker crossing of the heading pair in hip_width (w near
 *   0.0226, results/README.md): at the NS row `fixed` finds a complex pair
 *   of modulus 1 (to 1e-6), inside the circle at the point before and
 *   outside at the point after (the definition of an NS, measured by a
 *   method that does not use the continuation's test function).
 * - The planar limit (seed 003 §2.5.4): with w = 0, point-mass legs and the
 *   2-D file's hip spring, garcia3d moves in the sagittal plane, and along
 *   a slope continuation each point's sagittal state and multipliers are
 *   models/compass_round_spring.yaml's `fixed` at that slope (to 1e-8 and
 *   1e-6); the out-of-plane coordinates are 0.
 * - Coleman's two-step map is the mirrored map twice (F_L F_R = (S F_R)^2,
 *   src/cli/args.c), so `continue --two-step` finds the one-step gait with
 *   its multipliers squared (to 1e-6 of their size).
 * - The 3-D rimless wheel's family in a sweep: the heading held, the lean
 *   by the closed form atan(tan(gamma) sin(b)), the family's multiplier 1
 *   (to 1e-6) named by trivial_eig and left out of max_abs_eig.
 * - A sweep's rows do not depend on --jobs (README: the seed order is
 *   fixed), so --jobs 1 and --jobs 2 give the same rows bit for bit apart
 *   from wall_s. */
#include "test_util.h"
#include "sweep_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define G3 SM_SOURCE_DIR "/models/garcia3d.yaml"
#define G2 SM_SOURCE_DIR "/models/compass_round_spring.yaml"

enum { MAX_ROWS = 64, MAX_COLS = 64, CELL = 48, MAX_N = 16 };

/* ------------------------------------------------------------------ CSV */

typedef struct {
    size_t ncol, nrow;
    char head[MAX_COLS][CELL];
    char cell[MAX_ROWS][MAX_COLS][CELL];
} table;

static void read_csv(const char *path, table *t)
{
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("no %s", path);
    char line[8192];
    memset(t, 0, sizeof *t);
    for (size_t r = 0; fgets(line, sizeof line, f); r++) {
        line[strcspn(line, "\r\n")] = '\0';
        assert_true(r <= MAX_ROWS);
        size_t c = 0;
        for (char *s = line, *e;; s = e + 1, c++) {
            e = strchr(s, ',');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            assert_true(c < MAX_COLS && len < CELL);
            char *dst = r == 0 ? t->head[c] : t->cell[r - 1][c];
            memcpy(dst, s, len);
            dst[len] = '\0';
            if (!e) break;
        }
        if (r == 0)
            t->ncol = c + 1;
        else {
            assert_int_equal(c + 1, t->ncol);
            t->nrow = r;
        }
    }
    fclose(f);
}

static int col(const table *t, const char *name)
{
    for (size_t c = 0; c < t->ncol; c++)
        if (!strcmp(t->head[c], name)) return (int)c;
    fail_msg("no column %s", name);
    return -1;
}

static const char *str(const table *t, size_t r, const char *name) { return t->cell[r][col(t, name)]; }

static double num(const table *t, size_t r, const char *name)
{
    const char *s = str(t, r, name);
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end) fail_msg("%s = '%s' is not a number", name, s);
    return v;
}

/* --------------------------------------------------------------- fixed */

typedef struct {
    size_t n, k;  /* states, multipliers */
    char names[MAX_N * 2][CELL];
    double x[MAX_N * 2], re[MAX_N], im[MAX_N], max_abs;
    int trivial; /* the family's multiplier 1, left out of max_abs; -1: none */
    bool stable;
} gait;

/* `stridemap ARGS...` (NULL-terminated); it must exit 0. */
static cli_result *run_ok(const char *const *args)
{
    const char *argv[64];
    size_t n = 0;
    for (; args[n]; n++) argv[n] = args[n];
    argv[n] = NULL;
    const test_path out = in_dir(base_dir, "stdout"), err = in_dir(base_dir, "stderr");
    static cli_result r;
    cli_finish(cli_spawn(cli_exe, argv, out.s, err.s, NULL), out.s, err.s, &r);
    if (r.status != 0) fail_msg("stridemap %s %s: exit %d: %s", args[0], args[1], r.status, r.err);
    return &r;
}

/* `fixed MODEL --json --tol 1e-12 --set S...` (sets NULL-terminated,
 * each "name=value"), from the model's own guess. */
static void fixed_at(const char *model, const char *const *sets, gait *g)
{
    const char *args[64] = {"fixed", model, "--json", "--tol", "1e-12"};
    size_t n = 5;
    for (size_t i = 0; sets[i]; i++) {
        args[n++] = "--set";
        args[n++] = sets[i];
    }
    args[n] = NULL;
    cli_result *r = run_ok(args);
    json_error_t e;
    json_t *doc = json_loads(r->out, 0, &e);
    if (!doc) fail_msg("not JSON (%s)", e.text);
    if (!json_is_true(json_object_get(doc, "converged"))) fail_msg("fixed %s did not converge", sets[0]);
    json_t *names = json_object_get(doc, "state_names"), *x = json_object_get(doc, "fixed_point"),
           *eig = json_object_get(doc, "eigenvalues");
    g->n = json_array_size(names);
    g->k = json_array_size(eig);
    assert_true(g->n == json_array_size(x) && g->n <= 2 * MAX_N && g->k <= MAX_N && g->k > 0);
    for (size_t i = 0; i < g->n; i++) {
        snprintf(g->names[i], CELL, "%s", json_string_value(json_array_get(names, i)));
        g->x[i] = json_real_value(json_array_get(x, i));
    }
    for (size_t i = 0; i < g->k; i++) {
        g->re[i] = json_number_value(json_array_get(json_array_get(eig, i), 0));
        g->im[i] = json_number_value(json_array_get(json_array_get(eig, i), 1));
    }
    g->max_abs = json_number_value(json_object_get(doc, "max_abs_eigenvalue"));
    g->stable = json_is_true(json_object_get(doc, "stable"));
    json_t *one = json_object_get(doc, "trivial_multiplier");
    g->trivial = -1;
    for (size_t i = 0; json_is_array(one) && i < g->k; i++)
        if (g->re[i] == json_number_value(json_array_get(one, 0)) && g->im[i] == json_number_value(json_array_get(one, 1)))
            g->trivial = (int)i;
    assert_true(json_is_null(one) || g->trivial >= 0);
    json_decref(doc);
    /* stands on the multipliers, not on the field that reports them */
    double big = 0;
    for (size_t i = 0; i < g->k; i++)
        if ((int)i != g->trivial) big = fmax(big, hypot(g->re[i], g->im[i]));
    assert_close(g->max_abs, big, 1e-12 * big);
}

/* Every multiplier of a has a partner of b (unused so far) within tol of
 * max(1, |a|).  ka <= kb: a may be a subspectrum. */
static void assert_within(const double *ar, const double *ai, size_t ka, const double *br, const double *bi,
                          size_t kb, double tol)
{
    bool used[MAX_N] = {false};
    assert_true(ka <= kb && kb <= MAX_N);
    for (size_t i = 0; i < ka; i++) {
        size_t best = kb;
        double d = INFINITY;
        for (size_t j = 0; j < kb; j++)
            if (!used[j] && hypot(ar[i] - br[j], ai[i] - bi[j]) < d) d = hypot(ar[i] - br[j], ai[i] - bi[j]), best = j;
        if (!(d <= tol * fmax(1.0, hypot(ar[i], ai[i]))))
            fail_msg("multiplier %.12g%+.12gi has no partner within %.1g (nearest %.3g away)", ar[i], ai[i], tol, d);
        used[best] = true;
    }
}

/* Row r's multipliers (eigK_re, eigK_im, K = 1..k). */
static void row_eigs(const table *t, size_t r, size_t k, double *re, double *im)
{
    for (size_t i = 0; i < k; i++) {
        char name[32];
        snprintf(name, sizeof name, "eig%zu_re", i + 1);
        re[i] = num(t, r, name);
        snprintf(name, sizeof name, "eig%zu_im", i + 1);
        im[i] = num(t, r, name);
    }
}

/* Row r of a continue (prefix "") or sweep ("x_") table against g. */
static void assert_row_is(const table *t, size_t r, const char *prefix, const gait *g)
{
    for (size_t i = 0; i < g->n; i++) {
        char name[CELL + 8];
        snprintf(name, sizeof name, "%s%s", prefix, g->names[i]);
        assert_close(num(t, r, name), g->x[i], 1e-8);
    }
    double re[MAX_N], im[MAX_N];
    row_eigs(t, r, g->k, re, im);
    assert_within(g->re, g->im, g->k, re, im, g->k, 1e-6);
    assert_close(num(t, r, "max_abs_eig"), g->max_abs, 1e-6 * g->max_abs);
    assert_int_equal(num(t, r, "stable") != 0, g->max_abs < 1);
    assert_int_equal(g->stable, g->max_abs < 1);
}

/* Each row of a continue CSV in PARAM against `fixed --set PARAM=value`,
 * with extra sets; the rows' count within [lo, hi]. */
static void check_branch(const table *t, const char *param, const char *const *extra, size_t lo, size_t hi)
{
    assert_true(t->nrow >= lo && t->nrow <= hi);
    for (size_t r = 0; r < t->nrow; r++) {
        assert_string_equal(str(t, r, "status"), "ok");
        char set[128];
        snprintf(set, sizeof set, "%s=%s", param, str(t, r, param));
        const char *sets[8] = {set};
        for (size_t i = 0; extra && extra[i]; i++) sets[i + 1] = extra[i];
        gait g;
        fixed_at(G3, sets, &g);
        assert_int_equal(g.k, 7);
        assert_row_is(t, r, "", &g);
    }
}

/* -------------------------------------------------------------- continue */

/* The complex pair nearest the unit circle: its modulus. */
static double pair_modulus(const gait *g)
{
    double best = INFINITY, mod = 0;
    for (size_t i = 0; i < g->k; i++) {
        const double m = hypot(g->re[i], g->im[i]);
        if (g->im[i] > 1e-9 && fabs(m - 1) < best) best = fabs(m - 1), mod = m;
    }
    if (!(best < INFINITY)) fail_msg("no complex pair");
    return mod;
}

static void continue_hip_width(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *out = dir("hw.csv");
    run_ok((const char *const[]){"continue", G3, "--param", "hip_width", "--from", "0.0224", "--to", "0.0228",
                                 "--step", "0.0004", "--out", out, NULL});
    static table t;
    read_csv(out, &t);
    check_branch(&t, "hip_width", NULL, 3, 12);
    assert_close(num(&t, 0, "hip_width"), 0.0224, 0.0);
    assert_close(num(&t, t.nrow - 1, "hip_width"), 0.0228, 1e-15);

    /* exactly one NS, strictly inside the branch */
    size_t ns = 0, count = 0;
    for (size_t r = 0; r < t.nrow; r++)
        if (!strcmp(str(&t, r, "type"), "NS")) ns = r, count++;
    assert_int_equal(count, 1);
    assert_true(ns > 0 && ns + 1 < t.nrow);
    assert_true(num(&t, ns - 1, "hip_width") < num(&t, ns, "hip_width"));
    assert_true(num(&t, ns, "hip_width") < num(&t, ns + 1, "hip_width"));
    gait before, at, after;
    char s0[64], s1[64], s2[64];
    snprintf(s0, sizeof s0, "hip_width=%s", str(&t, ns - 1, "hip_width"));
    snprintf(s1, sizeof s1, "hip_width=%s", str(&t, ns, "hip_width"));
    snprintf(s2, sizeof s2, "hip_width=%s", str(&t, ns + 1, "hip_width"));
    fixed_at(G3, (const char *const[]){s0, NULL}, &before);
    fixed_at(G3, (const char *const[]){s1, NULL}, &at);
    fixed_at(G3, (const char *const[]){s2, NULL}, &after);
    assert_true(pair_modulus(&before) < 1);
    assert_close(pair_modulus(&at), 1.0, 1e-6);
    assert_true(pair_modulus(&after) > 1);
}

static void continue_foot_radius(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *out = dir("fr.csv");
    run_ok((const char *const[]){"continue", G3, "--param", "foot_radius", "--to", "0.22", "--step", "0.01", "--out",
                                 out, NULL});
    static table t;
    read_csv(out, &t);
    check_branch(&t, "foot_radius", NULL, 3, 10);
    assert_close(num(&t, t.nrow - 1, "foot_radius"), 0.22, 1e-15);
}

static void continue_slope(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *out = dir("slope.csv");
    run_ok((const char *const[]){"continue", G3, "--param", "slope", "--to", "0.056", "--step", "0.004", "--out", out,
                                 NULL});
    static table t;
    read_csv(out, &t);
    check_branch(&t, "slope", NULL, 3, 10);
    assert_close(num(&t, t.nrow - 1, "slope"), 0.056, 1e-15);
}

/* w = 0, point-mass legs, the 2-D file's spring: a slope continuation of
 * the planar gait (started from the 2-D fixed point) against the 2-D walker
 * at every slope the branch visits. */
static void continue_slope_planar(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    gait g2;
    fixed_at(G2, (const char *const[]){NULL}, &g2);
    assert_int_equal(g2.k, 3);
    /* the 3-D guess: the 2-D state, 0 out of the plane */
    static const char *names3[] = {"hip_x",     "hip_y",        "hip_z",        "hip_yaw",  "hip_roll",
                                   "leg_a",     "leg_b",        "hip_x_dot",    "hip_y_dot", "hip_z_dot",
                                   "hip_yaw_dot", "hip_roll_dot", "leg_a_dot", "leg_b_dot"};
    char guess[1024] = "--guess=";
    for (size_t i = 0; i < 14; i++) {
        double v = 0;
        for (size_t j = 0; j < g2.n; j++)
            if (!strcmp(g2.names[j], names3[i])) v = g2.x[j];
        snprintf(guess + strlen(guess), sizeof guess - strlen(guess), "%s%.17g", i ? "," : "", v);
    }
    const char *out = dir("planar.csv");
    run_ok((const char *const[]){"continue", G3, "--param", "slope", "--to", "0.058", "--step", "0.004", "--set",
                                 "hip_width=0", "--set", "leg_iyy=0", "--set", "forces.hip_spring.stiffness=5", "--set",
                                 "forces.hip_spring.damping=0.05", guess, "--out", out, NULL});
    static table t;
    read_csv(out, &t);
    assert_true(t.nrow >= 4 && t.nrow <= 12);
    assert_close(num(&t, t.nrow - 1, "slope"), 0.058, 1e-15);
    for (size_t r = 0; r < t.nrow; r++) {
        assert_string_equal(str(&t, r, "status"), "ok");
        assert_string_equal(str(&t, r, "type"), r == 0 || r + 1 == t.nrow ? "EP" : "");
        char set[64];
        snprintf(set, sizeof set, "slope=%s", str(&t, r, "slope"));
        fixed_at(G2, (const char *const[]){set, NULL}, &g2);
        for (size_t j = 0; j < g2.n; j++) assert_close(num(&t, r, g2.names[j]), g2.x[j], 1e-8);
        for (const char *const *o = (const char *const[]){"hip_y", "hip_yaw", "hip_roll", "hip_y_dot", "hip_yaw_dot",
                                                          "hip_roll_dot", NULL};
             *o; o++)
            assert_close(num(&t, r, *o), 0.0, 1e-8);
        double re[7], im[7];
        row_eigs(&t, r, 7, re, im);
        assert_within(g2.re, g2.im, 3, re, im, 7, 1e-6);
    }
}

/* `continue --two-step` follows the mirrored map's gait as a fixed point of
 * two steps (P^2): each point is the one-step `fixed` gait at that
 * foot_radius, with its multipliers squared.  Before the fix the branch
 * stopped at its start (MX): a period-2 branch refused every point that
 * was period 1, as if it had fallen back onto the orbit it doubled from. */
static void continue_two_step(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *out = dir("two.csv");
    run_ok((const char *const[]){"continue", G3, "--param", "foot_radius", "--to", "0.21", "--step", "0.01",
                                 "--two-step", "--out", out, NULL});
    static table t;
    read_csv(out, &t);
    assert_true(t.nrow >= 3 && t.nrow <= 10);
    assert_close(num(&t, t.nrow - 1, "foot_radius"), 0.21, 1e-15);
    for (size_t r = 0; r < t.nrow; r++) {
        assert_string_equal(str(&t, r, "status"), "ok");
        assert_close(num(&t, r, "period"), 2.0, 0.0);
        char set[64];
        snprintf(set, sizeof set, "foot_radius=%s", str(&t, r, "foot_radius"));
        gait g;
        fixed_at(G3, (const char *const[]){set, NULL}, &g);
        assert_int_equal(g.k, 7);
        for (size_t i = 0; i < g.n; i++) assert_close(num(&t, r, g.names[i]), g.x[i], 1e-8);
        double sq_re[7], sq_im[7], re[7], im[7];
        for (size_t i = 0; i < 7; i++) {
            sq_re[i] = g.re[i] * g.re[i] - g.im[i] * g.im[i];
            sq_im[i] = 2 * g.re[i] * g.im[i];
        }
        row_eigs(&t, r, 7, re, im);
        assert_within(sq_re, sq_im, 7, re, im, 7, 1e-6);
        assert_close(num(&t, r, "max_abs_eig"), g.max_abs * g.max_abs, 1e-6 * g.max_abs * g.max_abs);
    }
}

/* ----------------------------------------------------------------- sweep */

static void sweep_stability_map(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const test_path d2 = in_dir(base_dir, "sweep2"), d1 = in_dir(base_dir, "sweep1");
    run_ok((const char *const[]){"sweep", G3, "--grid", "hip_width=0.02:0.04:2", "--grid", "foot_radius=0.15:0.25:2",
                                 "--jobs", "2", "-q", "--out", d2.s, NULL});
    run_ok((const char *const[]){"sweep", G3, "--grid", "hip_width=0.02:0.04:2", "--grid", "foot_radius=0.15:0.25:2",
                                 "--jobs", "1", "-q", "--out", d1.s, NULL});
    char *two_jobs = rows_of(d2.s, "sweep.csv");
    assert_rows(two_jobs, d1.s, "sweep.csv");
    free(two_jobs);

    static table t;
    read_csv(in_dir(d2.s, "sweep.csv").s, &t);
    assert_int_equal(t.nrow, 4);
    for (size_t r = 0; r < t.nrow; r++) {
        assert_close(num(&t, r, "index"), (double)r, 0.0);
        char s0[64], s1[64];
        snprintf(s0, sizeof s0, "hip_width=%s", str(&t, r, "hip_width"));
        snprintf(s1, sizeof s1, "foot_radius=%s", str(&t, r, "foot_radius"));
        assert_close(num(&t, r, "hip_width"), r % 2 ? 0.04 : 0.02, 1e-16);
        assert_close(num(&t, r, "foot_radius"), r < 2 ? 0.15 : 0.25, 1e-16);
        gait g;
        fixed_at(G3, (const char *const[]){s0, s1, NULL}, &g);
        assert_int_equal(g.k, 7);
        assert_row_is(&t, r, "x_", &g);
        assert_string_equal(str(&t, r, "outcome"), g.max_abs < 1 ? "stable" : "unstable");
        assert_close(num(&t, r, "trivial_eig"), 0.0, 0.0); /* no family at w > 0 */
    }
}

/* A sweep over the 3-D rimless wheel's family (models/rimless3d.yaml):
 * slope x heading b.  Each row is the family member at heading b (held),
 * leaning by the closed form atan(tan(gamma) sin(b)) (gravity in the
 * wheel's plane, test_garcia3d.c); trivial_eig names the multiplier that is
 * 1 along the family (to 1e-6), left out of max_abs_eig as `fixed` does. */
static void sweep_family(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *model = SM_SOURCE_DIR "/models/rimless3d.yaml";
    const test_path d = in_dir(base_dir, "rimless");
    run_ok((const char *const[]){"sweep", model, "--grid", "slope=0.1:0.14:2", "--grid",
                                 "section.family.hub_yaw=0:0.3:2", "--jobs", "2", "-q", "--out", d.s, NULL});
    static table t;
    read_csv(in_dir(d.s, "sweep.csv").s, &t);
    assert_int_equal(t.nrow, 4);
    for (size_t r = 0; r < t.nrow; r++) {
        const double gamma = num(&t, r, "slope"), b = num(&t, r, "section.family.hub_yaw");
        assert_close(gamma, r % 2 ? 0.14 : 0.1, 1e-16);
        assert_close(b, r < 2 ? 0.0 : 0.3, 1e-16);
        assert_close(num(&t, r, "x_hub_yaw"), b, 1e-9);
        assert_close(num(&t, r, "x_hub_roll"), -atan(tan(gamma) * sin(b)), 1e-9);
        const double k = num(&t, r, "trivial_eig");
        assert_true(k >= 1 && k <= 12);
        char name[32];
        snprintf(name, sizeof name, "eig%d_re", (int)k);
        assert_close(num(&t, r, name), 1.0, 1e-6);
        snprintf(name, sizeof name, "eig%d_im", (int)k);
        assert_close(num(&t, r, name), 0.0, 1e-6);
        char s0[64], s1[80];
        snprintf(s0, sizeof s0, "slope=%s", str(&t, r, "slope"));
        snprintf(s1, sizeof s1, "section.family.hub_yaw=%s", str(&t, r, "section.family.hub_yaw"));
        gait g;
        fixed_at(model, (const char *const[]){s0, s1, NULL}, &g);
        assert_true(g.trivial >= 0);
        assert_row_is(&t, r, "x_", &g);
        assert_string_equal(str(&t, r, "outcome"), g.max_abs < 1 ? "stable" : "unstable");
    }
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(continue_hip_width),
        cmocka_unit_test(continue_foot_radius),
        cmocka_unit_test(continue_slope),
        cmocka_unit_test(continue_slope_planar),
        cmocka_unit_test(continue_two_step),
        cmocka_unit_test(sweep_stability_map),
        cmocka_unit_test(sweep_family),
    };
    return cmocka_run_group_tests(tests, sweep_dir_setup, sweep_dir_teardown);
}
