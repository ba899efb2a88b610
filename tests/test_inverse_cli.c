/* stridemap inverse as users meet it (models/human_hu9.yaml): a 75 kg
 * human standing still on both feet (ds1) is held by 735.75 N of vertical
 * ground force at g = 9.81 (issue 15's check; Newton's law for the whole
 * body, whichever moments double support picks) and no horizontal force,
 * and by 588.6 N with --set mass=60 (the segments scale with the body);
 * a simulated walk goes through with its phase column and --forward (a run
 * too short to simulate is a warning and NaN columns); bad
 * data (a missing column, a time that does not increase, NaN, too few
 * samples for the differentiator, an unknown phase) is one line and exit
 * 65, a missing file 66, a missing contact case 64; human9's controlled
 * step returns its controller's torques under their own names
 * (test_human9_step), and five_link's step, simulated, inverted by actuator
 * and simulated forward again, is retraced (test_five_link_round_trip). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "csv_read.h"
#include "src_path.h"

static char dir[64];

static const char *tmp(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static const char *const coords[] = {"hat.x", "hat.z", "hat", "thigh_a", "shank_a", "foot_a",
                                     "toe_a", "thigh_b", "shank_b", "foot_b", "toe_b"};

/* A file of rows samples of one standing pose; drop: a coordinate left out,
 * bad_row: a row whose time or value is spoiled by what. */
static const char *standing(const char *name, size_t rows, const char *drop, size_t bad_row, const char *what)
{
    const char *path = tmp(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    static const double pose[] = {-0.2, 0.88, 0.02, -0.25, 0.05, 0.2, 0.0, 0.25, 0.05, -0.25, 0.0};
    fputs("time,phase", f);
    for (size_t k = 0; k < 11; k++)
        if (!drop || strcmp(drop, coords[k]) != 0) fprintf(f, ",%s", coords[k]);
    fputc('\n', f);
    for (size_t i = 0; i < rows; i++) {
        double t = 0.01 * (double)i;
        if (i == bad_row && what && strcmp(what, "time") == 0) t = 0.0;
        fprintf(f, "%g,%s", t, i == bad_row && what && strcmp(what, "phase") == 0 ? "ds9" : "ds1");
        for (size_t k = 0; k < 11; k++) {
            if (drop && strcmp(drop, coords[k]) == 0) continue;
            if (i == bad_row && what && strcmp(what, "nan") == 0 && k == 3) fputs(",nan", f);
            else fprintf(f, ",%.17g", pose[k]);
        }
        fputc('\n', f);
    }
    fclose(f);
    return path;
}

/* set: a --set of the body's mass (NULL: the file's 75 kg), weight its
 * mass times g. */
static void standing_weight(const char *set, double weight)
{
    const char *in = standing("stand.csv", 9, NULL, 99, NULL);
    cli_result *r = set ? cli_run("inverse", src_path("models/human_hu9.yaml"), in, "--set", set, NULL)
                        : cli_run("inverse", src_path("models/human_hu9.yaml"), in, NULL);
    if (r->status != 0) print_error("%s", r->err);
    assert_int_equal(r->status, 0);
    char f[64][64];
    const char *s = r->out, *end;
    const size_t nh = rfc4180_record(s, f, 64, &end);
    const int tz = column(f, nh, "tip_a.fz"), hz = column(f, nh, "heel_b.fz"), tx = column(f, nh, "tip_a.fx"),
              hx = column(f, nh, "heel_b.fx"), res = column(f, nh, "residual");
    assert_true(tz >= 0 && hz >= 0 && tx >= 0 && hx >= 0 && res >= 0);
    assert_true(column(f, nh, "tau0") >= 0 && column(f, nh, "thigh_a.torque") >= 0);
    size_t rows = 0;
    for (s = end; *s; s = end, rows++) {
        char g[64][64];
        assert_int_equal(rfc4180_record(s, g, 64, &end), nh);
        assert_close(atof(g[tz]) + atof(g[hz]), weight, 1e-6);
        assert_close(atof(g[tx]) + atof(g[hx]), 0.0, 1e-6);
        assert_true(atof(g[res]) < 1e-9);
    }
    assert_int_equal(rows, 9);
}

static void test_standing_weight(void **state)
{
    (void)state;
    standing_weight(NULL, 735.75);
    /* every segment's mass a fraction of the body's (Winter's), so the
     * weight follows it */
    standing_weight("mass=60", 588.6);
}

static void test_walk_with_forward(void **state)
{
    (void)state;
    const char *walk = tmp("walk.csv"), *out = tmp("inv.csv");
    cli_result *r = cli_run("simulate", src_path("models/human_hu9.yaml"), "--steps", "1", "--dt", "0.002", "--out",
                            walk, NULL);
    assert_int_equal(r->status, 0);
    r = cli_run("inverse", src_path("models/human_hu9.yaml"), walk, "--half-window", "2", "--forward", "-o", out,
                NULL);
    if (r->status != 0) print_error("%s", r->err);
    assert_int_equal(r->status, 0);
    static char text[1 << 20];
    cli_slurp(out, text, sizeof text);
    char f[128][64];
    const char *end;
    const size_t nh = rfc4180_record(text, f, 128, &end);
    const int ph = column(f, nh, "phase"), q = column(f, nh, "thigh_a"), fq = column(f, nh, "fwd.thigh_a");
    assert_true(ph >= 0 && q >= 0 && fq >= 0);
    bool ss1 = false, ds1 = false;
    for (const char *s = end; *s; s = end) {
        char g[128][64];
        assert_int_equal(rfc4180_record(s, g, 128, &end), nh);
        ss1 |= strcmp(g[ph], "ss1") == 0;
        ds1 |= strcmp(g[ph], "ds1") == 0;
    }
    assert_true(ss1 && ds1);
    /* the first row of a run starts the forward simulation on the data */
    char g[128][64];
    rfc4180_record(strchr(text, '\n') + 1, g, 128, &end);
    assert_close(atof(g[fq]), atof(g[q]), 1e-6);
}

/* A run too short to simulate forward is a warning, its columns NaN. */
static void test_forward_too_short(void **state)
{
    (void)state;
    cli_result *r = cli_run("inverse", src_path("models/human_hu9.yaml"), standing("three.csv", 3, NULL, 99, NULL),
                            "--half-window", "1", "--degree", "2", "--forward", NULL);
    assert_int_equal(r->status, 0);
    assert_int_equal(cli_count_lines(r->err), 1);
    assert_non_null(strstr(r->err, "too few to simulate forward"));
    assert_int_equal(cli_count_lines(r->out), 4);
    assert_non_null(strstr(r->out, ",nan"));
}

/* `stridemap inverse human9` (the bare name, found on STRIDEMAP_MODEL_PATH)
 * on one step of human9's periodic gait sampled at 1 kHz
 * (tests/data/human9_step.csv, scripts/reproduce_human9_inverse.py): its
 * coordinates without the clock (set from the time), and the controller's
 * torques and the contact forces that drove the simulation as reference
 * columns, which the inverse ignores.  The moments come back by the
 * file's actuators under the names simulate gives them (hip_a.torque, ...,
 * tau0.torque), each read beside the data's column of the same name.  In
 * single support the moments are the actuators' and the forces the
 * simulation's, to the differentiator's
 * accuracy: 0.35 N m and 0.05 N measured inside the runs (3 samples from a
 * run's end: the window is centred), 25 N m and 3.9 N at the ends (one-sided;
 * the largest at the step's first sample, on the swing ankle, whose moment
 * changes fastest just after toe-off); in double support, where the
 * moments are free, the total ground force is the simulation's (0.016 N in
 * ds_flat, 2.4 N in the 36 ms of ds1).  The bounds are the measured values
 * with a margin of about 1.5. */
static const char *const h9_moments[] = {"hip_a.torque",  "hip_b.torque",   "knee_a.torque", "knee_b.torque",
                                         "ankle_a.torque", "ankle_b.torque", "toe_a.torque",  "tau0.torque"};
static const char *const h9_forces[] = {"tip_a.fx", "tip_a.fz", "heel_b.fx", "heel_b.fz", "flat_b.fx", "flat_b.fz"};

static void test_human9_step(void **state)
{
    (void)state;
    setenv("STRIDEMAP_MODEL_PATH", src_path("models"), 1);
    const char *data = src_path("tests/data/human9_step.csv"), *out = tmp("h9.csv");
    cli_result *r = cli_run("inverse", "human9", data, "-o", out, NULL);
    if (r->status != 0) print_error("%s", r->err);
    assert_int_equal(r->status, 0);
    static char in_text[1 << 20], out_text[1 << 20];
    cli_slurp(data, in_text, sizeof in_text);
    cli_slurp(out, out_text, sizeof out_text);
    char hi[64][64], ho[64][64];
    const char *si, *so;
    const size_t ni = rfc4180_record(in_text, hi, 64, &si), no = rfc4180_record(out_text, ho, 64, &so);
    assert_true(column(hi, ni, "clock") < 0); /* the data does not give the clock */
    /* the rows, and each row's place in its run of one phase */
    static double rows_i[600][64], rows_o[600][64];
    static char phase[600][16];
    const int ph = column(ho, no, "phase"), res = column(ho, no, "residual");
    size_t n = 0;
    for (; *si && *so && n < 600; n++) {
        char g[64][64];
        assert_int_equal(rfc4180_record(si, g, 64, &si), ni);
        for (size_t c = 0; c < ni; c++) rows_i[n][c] = atof(g[c]);
        assert_int_equal(rfc4180_record(so, g, 64, &so), no);
        for (size_t c = 0; c < no; c++) rows_o[n][c] = atof(g[c]);
        memcpy(phase[n], g[ph], sizeof phase[n] - 1);
    }
    assert_true(*si == '\0' && *so == '\0');
    assert_true(n > 400);
    double tau_in = 0, tau_end = 0, f_in = 0, tot_ds1 = 0, tot_flat = 0, worst_res = 0;
    for (size_t i = 0; i < n; i++) {
        size_t s = i, e = i;
        while (s > 0 && strcmp(phase[s - 1], phase[i]) == 0) s--;
        while (e + 1 < n && strcmp(phase[e + 1], phase[i]) == 0) e++;
        const bool inside = i - s >= 3 && e - i >= 3;
        worst_res = fmax(worst_res, rows_o[i][res]);
        double total[2] = {0, 0};
        for (size_t k = 0; k < sizeof h9_forces / sizeof h9_forces[0]; k++) {
            const double d = rows_o[i][column(ho, no, h9_forces[k])] - rows_i[i][column(hi, ni, h9_forces[k])];
            total[k % 2] += d;
            if (strcmp(phase[i], "ss1") == 0 && inside) f_in = fmax(f_in, fabs(d));
        }
        const double tot = fmax(fabs(total[0]), fabs(total[1]));
        if (strcmp(phase[i], "ss1") == 0) {
            for (size_t k = 0; k < sizeof h9_moments / sizeof h9_moments[0]; k++) {
                const double d =
                    fabs(rows_o[i][column(ho, no, h9_moments[k])] - rows_i[i][column(hi, ni, h9_moments[k])]);
                if (inside) tau_in = fmax(tau_in, d);
                else tau_end = fmax(tau_end, d);
            }
        } else if (inside) {
            if (strcmp(phase[i], "ds1") == 0) tot_ds1 = fmax(tot_ds1, tot);
            else tot_flat = fmax(tot_flat, tot);
        }
    }
    print_message("human9 at 1 kHz: ss1 moments within %.3g N m inside the runs (%.3g at their ends), forces "
                  "within %.3g N; total ground force within %.3g N (ds1), %.3g N (ds_flat); residual %.3g\n",
                  tau_in, tau_end, f_in, tot_ds1, tot_flat, worst_res);
    assert_true(tau_in > 0 && tau_in < 0.5);
    assert_true(tau_end < 40);
    assert_true(f_in < 0.08);
    assert_true(tot_ds1 < 3.5);
    assert_true(tot_flat < 0.025);
    assert_true(worst_res < 1e-10);
    /* --by-coordinate: the joints' moments by coordinate and tau0, the same
     * numbers (each joint here has its own actuator) */
    const char *by_c = tmp("h9_coord.csv");
    r = cli_run("inverse", "human9", data, "--by-coordinate", "-o", by_c, NULL);
    assert_int_equal(r->status, 0);
    cli_slurp(by_c, in_text, sizeof in_text);
    char hc[64][64];
    const size_t nc = rfc4180_record(in_text, hc, 64, &si);
    assert_true(column(hc, nc, "hip_a.torque") < 0 && column(hc, nc, "tau0") >= 0);
    static const char *const by_coord[][2] = {{"thigh_a.torque", "hip_a.torque"}, {"shank_b.torque", "knee_b.torque"},
                                              {"toe_a.torque", "toe_a.torque"}, {"tau0", "tau0.torque"}};
    double dc = 0;
    for (size_t i = 0; *si; i++) {
        char g[64][64];
        assert_int_equal(rfc4180_record(si, g, 64, &si), nc);
        for (size_t k = 0; k < sizeof by_coord / sizeof by_coord[0]; k++)
            dc = fmax(dc, fabs(atof(g[column(hc, nc, by_coord[k][0])]) - rows_o[i][column(ho, no, by_coord[k][1])]));
    }
    assert_true(dc < 1e-6);
    /* a coordinate left out is still one line and exit 65 */
    const char *drop = tmp("h9_drop.csv");
    FILE *f = fopen(drop, "w");
    assert_non_null(f);
    fputs("time,phase,hip_x,hip_z,hat,thigh_a,shank_a,foot_a,toe_a,thigh_b,shank_b,foot_b\n", f);
    fclose(f);
    cli_expect_error(cli_run("inverse", "human9", drop, NULL), 65, "no column 'toe_b'");
}

/* The round trip by actuator through the program: `simulate five_link`
 * (1 kHz), whose hips act between thigh and torso, then `inverse
 * five_link` on its CSV: the moments come back under the simulation's own
 * column names (hip_a.torque, ...), each within 1.3e-4 N m of it (the
 * differentiator), and --forward, driven by them alone, retraces the whole
 * step, 0.67 s, within 7.8e-7 rad at rtol = atol = 1e-11 (the data's 12
 * digits and the moments' spline).  Bounds: the measured values with a
 * margin of about 2. */
static void test_five_link_round_trip(void **state)
{
    (void)state;
    const char *model = src_path("models/five_link.yaml"), *walk = tmp("fl_walk.csv"), *out = tmp("fl_inv.csv");
    cli_result *r = cli_run("simulate", model, "--steps", "1", "--dt", "0.001", "--rtol", "1e-11", "--atol", "1e-11",
                            "--out", walk, NULL);
    assert_int_equal(r->status, 0);
    r = cli_run("inverse", model, walk, "--forward", "--rtol", "1e-11", "--atol", "1e-11", "-o", out, NULL);
    if (r->status != 0) print_error("%s", r->err);
    assert_int_equal(r->status, 0);
    static char wt[1 << 21], ot[1 << 20];
    cli_slurp(walk, wt, sizeof wt);
    cli_slurp(out, ot, sizeof ot);
    char hw[128][64], ho[128][64];
    const char *sw, *so;
    const size_t nw = rfc4180_record(wt, hw, 128, &sw), no = rfc4180_record(ot, ho, 128, &so);
    static const char *const moments[] = {"hip_a.torque", "hip_b.torque", "knee_a.torque", "knee_b.torque"};
    static const char *const coords[] = {"hip_x", "hip_z", "torso", "thigh_a", "shank_a", "thigh_b", "shank_b"};
    assert_true(column(ho, no, "thigh_a.torque") < 0 && column(ho, no, "tau0") < 0);
    const int kind = column(hw, nw, "kind");
    double du = 0, dq = 0, t_end = 0;
    size_t rows = 0;
    while (*so) {
        char g[128][64], o[128][64];
        assert_int_equal(rfc4180_record(sw, g, 128, &sw), nw);
        if (strcmp(g[kind], "start") != 0 && strcmp(g[kind], "sample") != 0) continue;
        assert_int_equal(rfc4180_record(so, o, 128, &so), no);
        for (size_t k = 0; k < 4; k++)
            du = fmax(du, fabs(atof(o[column(ho, no, moments[k])]) - atof(g[column(hw, nw, moments[k])])));
        for (size_t k = 0; k < 7; k++) {
            char fwd[64];
            snprintf(fwd, sizeof fwd, "fwd.%s", coords[k]);
            dq = fmax(dq, fabs(atof(o[column(ho, no, fwd)]) - atof(o[column(ho, no, coords[k])])));
        }
        t_end = atof(o[column(ho, no, "time")]);
        rows++;
    }
    print_message("five_link at 1 kHz, %zu samples over %.3g s: moments within %.3g N m of the simulation's, "
                  "retraced within %.3g rad\n",
                  rows, t_end, du, dq);
    assert_true(rows > 600 && t_end > 0.6);
    assert_true(du < 3e-4);
    assert_true(dq < 2e-6);
}

static void test_bad_data(void **state)
{
    (void)state;
    const char *model = src_path("models/human_hu9.yaml");
    cli_expect_error(cli_run("inverse", model, standing("drop.csv", 9, "shank_b", 99, NULL), NULL), 65,
                     "no column 'shank_b'");
    cli_expect_error(cli_run("inverse", model, standing("time.csv", 9, NULL, 4, "time"), NULL), 65,
                     "line 6: time 0 does not come after");
    cli_expect_error(cli_run("inverse", model, standing("nan.csv", 9, NULL, 2, "nan"), NULL), 65,
                     "line 4: thigh_a 'nan' is not a number");
    cli_expect_error(cli_run("inverse", model, standing("few.csv", 6, NULL, 99, NULL), NULL), 65,
                     "6 samples of phase ds1, fewer than the 7");
    cli_expect_error(cli_run("inverse", model, standing("few9.csv", 9, NULL, 99, NULL), "--half-window", "5", NULL),
                     65, "fewer than the 11");
    cli_expect_error(cli_run("inverse", model, standing("phase.csv", 9, NULL, 3, "phase"), NULL), 65,
                     "'ds9' is not a phase");
    cli_expect_error(cli_run("inverse", model, tmp("missing.csv"), NULL), 66, "cannot read");
    cli_expect_error(cli_run("inverse", model, NULL), 64, "which motion?");
    cli_expect_error(cli_run("inverse", model, standing("ok.csv", 9, NULL, 99, NULL), "--phase", "fly", NULL), 64,
                     "--phase fly is not a phase");
    cli_expect_error(cli_run("inverse", "simplest", standing("ok.csv", 9, NULL, 99, NULL), NULL), 65,
                     "needs a model file");
    cli_expect_error(cli_run("inverse", model, standing("ok.csv", 9, NULL, 99, NULL), "--degree", "1", NULL), 64,
                     "--degree takes");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDEMAP\n", argv[0]);
        return 2;
    }
    cli_exe = argv[1];
    snprintf(dir, sizeof dir, "/tmp/sm_inverse_XXXXXX");
    if (!mkdtemp(dir)) return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standing_weight),
        cmocka_unit_test(test_walk_with_forward),
        cmocka_unit_test(test_forward_too_short),
        cmocka_unit_test(test_human9_step),
        cmocka_unit_test(test_five_link_round_trip),
        cmocka_unit_test(test_bad_data),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return failed;
}
