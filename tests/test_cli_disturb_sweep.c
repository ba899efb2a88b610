/* stridemap sweep --disturb as a user meets it: refused usage, a point's
 * row against 'stridemap disturb' run alone there, the same rows from 1 and
 * 2 threads, 2 shards merged, a run stopped or killed and resumed, another
 * setting refused on resume, 2 MPI ranks (the mpi suite), and --help.
 * argv[1] is the binary, argv[2] mpirun in the mpi suite. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli_run.h"
#include "csv_read.h"
#include "sweep_harness.h"
#include "test_util.h"

static const char *mpirun;

#define TOLS "--rtol", "1e-9", "--atol", "1e-9", "--tol", "1e-8"
#define SEARCH "--disturb", "step_down", "--from", "-0.02", "--to", "0.02", "--max-strides", "30", "--scan", "8", \
               "--bisect-tol", "1e-5"
/* The compass walker over b and mh: 2 grid lines, and at b = 0.6, mh = 12
 * an unstable gait (nothing survived, no GSN). */
#define GRID "--grid", "b=0.3:0.6:3", "--grid", "mh=8:12:2"
#define POINTS 6

static void bad_usage_gets_one_line_and_a_sysexits_code(void **state)
{
    (void)state;
    const char *out = dir("bad");
    cli_expect_error(cli_run("sweep", "compass", GRID, "--disturb", "kick", "--from", "-1", "--to", "1", "--out", out,
                             NULL),
                     64, "'kick' is not a disturbance of compass");
    cli_expect_error(cli_run("sweep", "compass", GRID, "--disturb", "step_down", "--out", out, NULL), 64,
                     "--from A --to B");
    cli_expect_error(cli_run("sweep", "compass", GRID, "--disturb", "step_down", "--from", "0.01", "--to", "-0.01",
                             "--out", out, NULL),
                     64, "is not below --to");
    cli_expect_error(cli_run("sweep", "compass", GRID, "--disturb", "step_down", "--from", "0.01", "--to", "0.02",
                             "--out", out, NULL),
                     64, "must hold 0");
    cli_expect_error(cli_run("sweep", "compass", GRID, "--grid", "push=-1:1:3", "--disturb", "push", "--from", "-1",
                             "--to", "1", "--out", out, NULL),
                     64, "searched, not swept");
    cli_expect_error(cli_run("sweep", "compass", GRID, SEARCH, "--segment", "2", "--out", out, NULL), 64,
                     "--segment does not apply");
    cli_expect_error(cli_run("sweep", "compass", GRID, SEARCH, "--period", "2", "--out", out, NULL), 64,
                     "period-1 gait");
    cli_expect_error(cli_run("sweep", "compass", GRID, "--from", "-0.01", "--to", "0.01", "--out", out, NULL), 64,
                     "belong to --disturb");
    cli_expect_error(cli_run("sweep", "compass", GRID, SEARCH, "--scan", "0", "--out", out, NULL), 64, "--scan");
    /* a range the parameter does not admit (a step up beyond its floor) */
    cli_expect_error(cli_run("sweep", "compass", GRID, "--disturb", "step_down", "--from", "-1e9", "--to", "0.01",
                             "--out", out, NULL),
                     65, "outside its range");
    assert_int_not_equal(access(out, F_OK), 0); /* nothing was created */
}

/* A JSON number, or NaN for null (the CSV's nan or empty field). */
static double num(const json_t *v) { return json_is_number(v) ? json_number_value(v) : NAN; }

static double field_num(const char *s) { return s[0] ? strtod(s, NULL) : NAN; }

/* Equal to the last bit, NaN equal to NaN. */
static void same(const char *what, double csv, double json)
{
    if (!(csv == json || (isnan(csv) && isnan(json)))) print_error("%s: sweep %.17g, disturb %.17g\n", what, csv, json);
    assert_true(csv == json || (isnan(csv) && isnan(json)));
}

/* Row idx of DIR/sweep.csv against 'stridemap disturb' at its point. */
static void row_is_disturb_alone(const char *d, long idx)
{
    static char text[1 << 16];
    cli_slurp(in_dir(d, "sweep.csv").s, text, sizeof text);
    static char head[64][64], row[64][64];
    const char *p;
    const size_t nh = rfc4180_record(text, head, 64, &p);
    size_t nr = 0;
    for (long k = 0; k <= idx; k++) nr = rfc4180_record(p, row, 64, &p);
    assert_int_equal(nh, nr);
    assert_int_equal(strtol(row[0], NULL, 10), idx);
    char set_b[80], set_mh[80];
    snprintf(set_b, sizeof set_b, "b=%s", row[column(head, nh, "b")]);
    snprintf(set_mh, sizeof set_mh, "mh=%s", row[column(head, nh, "mh")]);
    cli_result *r = cli_run("disturb", "compass", "--set", set_b, "--set", set_mh, "--param", "step_down", "--from",
                            "-0.02", "--to", "0.02", "--max-strides", "30", "--scan", "8", "--bisect-tol", "1e-5", TOLS,
                            "--json", NULL);
    assert_int_equal(r->status, 0);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    const json_t *gait = json_object_get(doc, "gait");
#define COL(name) row[column(head, nh, name)]
    same("max_abs_eig", field_num(COL("max_abs_eig")), num(json_object_get(gait, "max_abs_eigenvalue")));
    assert_int_equal(strtol(COL("stable"), NULL, 10), json_is_true(json_object_get(gait, "stable")));
    const json_t *x = json_object_get(gait, "fixed_point");
    static const char *const xs[] = {"x_th_st", "x_th_sw", "x_dth_st", "x_dth_sw"};
    for (size_t i = 0; i < 4; i++) same(xs[i], field_num(COL(xs[i])), num(json_array_get(x, i)));
    same("gsn", field_num(COL("gsn")), num(json_object_get(doc, "gsn")));
    const json_t *why = json_object_get(doc, "gsn_reason");
    assert_string_equal(COL("gsn_reason"), json_is_string(why) ? json_string_value(why) : "");
    static const char *const nums[] = {"survives", "fails", "width", "failure_strides", "return_strides", "bisections",
                                       "strides"};
    for (int side = 0; side < 2; side++) {
        const json_t *s = json_object_get(doc, side ? "positive" : "negative");
        char name[64];
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            snprintf(name, sizeof name, "%s_%s", side ? "pos" : "neg", nums[k]);
            same(name, field_num(COL(name)), num(json_object_get(s, nums[k])));
        }
        snprintf(name, sizeof name, "%s_failure", side ? "pos" : "neg");
        const json_t *f = json_object_get(s, "failure");
        assert_string_equal(COL(name), json_is_string(f) ? json_string_value(f) : "");
    }
#undef COL
    json_decref(doc);
}

static const char *reference(void)
{
    const char *ref = dir("ref");
    if (access(ref, F_OK) == 0) return ref;
    cli_result *r = cli_run("sweep", "compass", GRID, SEARCH, TOLS, "--jobs", "1", "--out", ref, "-q", NULL);
    if (r->status) print_error("%s\n", r->err);
    assert_int_equal(r->status, 0);
    assert_int_equal(lines_in(in_dir(ref, "sweep.csv").s), POINTS + 1);
    return ref;
}

/* The row at a point is what 'stridemap disturb' finds there alone, to the
 * last digit of both (%.17g): a stable gait with a fall on each side, a
 * stable one of the other line, and the unstable one (nothing survived, no
 * GSN). */
static void each_row_is_disturb_run_alone_at_its_point(void **state)
{
    (void)state;
    const char *ref = reference();
    char *rows = rows_of(ref, "sweep.csv");
    assert_non_null(strstr(rows, "\n5,0.59999999999999998,12,unstable,ok,"));
    /* no GSN there: a step down of 1e-5 m, the norm's difference step, already fells it */
    assert_non_null(strstr(rows, ",fell_forward,2,2,8,38,nan,failed,"));
    free(rows);
    row_is_disturb_alone(ref, 0);
    row_is_disturb_alone(ref, 4);
    row_is_disturb_alone(ref, 5);
}

static void threads_shards_and_resume_give_the_same_rows(void **state)
{
    (void)state;
    char *want = rows_of(reference(), "sweep.csv");
    assert_non_null(strstr(want, "index,b,mh,outcome,status,max_abs_eig,stable,neg_survives,"));

    const char *two = dir("two");
    assert_int_equal(cli_run("sweep", "compass", GRID, SEARCH, TOLS, "--jobs", "2", "--out", two, "-q", NULL)->status,
                     0);
    assert_rows(want, two, "sweep.csv");

    const char *sh = dir("shards");
    for (int k = 0; k < 2; k++)
        assert_int_equal(cli_run("sweep", "compass", GRID, SEARCH, TOLS, "--shard", k ? "1/2" : "0/2", "--out", sh,
                                 "-q", NULL)
                             ->status,
                         0);
    assert_int_equal(lines_in(in_dir(sh, "part-shard-1-of-2.csv").s), 1 + POINTS / 2); /* one grid line each */
    cli_result *r = cli_run("merge", sh, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "6 rows in"));
    assert_rows(want, sh, "sweep.csv");

    const char *cut = dir("stopped");
    assert_int_equal(cli_run("sweep", "compass", GRID, SEARCH, TOLS, "--jobs", "1", "--stop-after", "2", "--out", cut,
                             "-q", NULL)
                         ->status,
                     75);
    const test_path part = in_dir(cut, "part-local.csv");
    assert_int_equal(lines_in(part.s), 3);
    /* another disturbance setting is another sweep: refused, nothing mixed */
    cli_expect_error(cli_run("sweep", "compass", GRID, "--disturb", "step_down", "--from", "-0.02", "--to", "0.02",
                             "--max-strides", "31", "--scan", "8", "--bisect-tol", "1e-5", TOLS, "--resume", "--out",
                             cut, "-q", NULL),
                     73, "holds another sweep");
    cli_expect_error(cli_run("sweep", "compass", GRID, TOLS, "--resume", "--out", cut, "-q", NULL), 73,
                     "holds another sweep");
    assert_int_equal(cli_run("sweep", "compass", GRID, SEARCH, TOLS, "--jobs", "2", "--resume", "--out", cut, "-q",
                             NULL)
                         ->status,
                     0);
    assert_int_equal(lines_in(part.s), POINTS + 1); /* nothing computed twice */
    assert_rows(want, cut, "sweep.csv");

    /* the sidecar names the search, which is part of the signature */
    json_t *doc = json_load_file(in_dir(cut, "sweep.json").s, 0, NULL);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "kind")), "disturb");
    const json_t *ds = json_object_get(doc, "disturb");
    assert_string_equal(json_string_value(json_object_get(ds, "disturbance")), "step_down");
    assert_int_equal(json_integer_value(json_object_get(ds, "max_strides")), 30);
    const json_t *fixed = json_object_get(doc, "fixed_params"); /* the swept ones are not fixed */
    assert_null(json_object_get(fixed, "b"));
    assert_null(json_object_get(fixed, "mh"));
    assert_non_null(json_object_get(fixed, "m"));
    assert_non_null(strstr(json_string_value(json_object_get(doc, "signature")), "\"disturb\":"));
    json_decref(doc);
    free(want);
}

/* Enough points to kill the run part-way. */
static void killed_with_sigkill_and_resumed_loses_nothing(void **state)
{
    (void)state;
    const char *const args[] = {"sweep", "compass", "--grid", "b=0.3:0.5:40", SEARCH, TOLS, NULL};
    killed_and_resumed_loses_nothing(args, "sweep.csv", 40, 3);
}

/* mpirun -np 2 stridemap sweep --disturb ... */
static void mpi_two_ranks_give_the_same_rows(void **state)
{
    (void)state;
    if (!mpirun) skip();
    const char *ref = dir("mpi-ref"), *out = dir("mpi-2");
    assert_int_equal(cli_run("sweep", "compass", GRID, SEARCH, TOLS, "--jobs", "1", "--out", ref, "-q", NULL)->status,
                     0);
    const char *const args[] = {"sweep", "compass", GRID, SEARCH, TOLS, "--jobs", "1", "--out", out, "-q", NULL};
    assert_int_equal(mpi_run(mpirun, "2", args), 0);
    assert_true(lines_in(in_dir(out, "part-rank-1-of-2.csv").s) >= 1);
    char *want = rows_of(ref, "sweep.csv");
    assert_rows(want, out, "sweep.csv");
    free(want);
}

static void help_names_disturb_with_an_example(void **state)
{
    (void)state;
    cli_result *r = cli_run("sweep", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "--disturb NAME --from A --to B"));
    assert_non_null(strstr(r->out, "  stridemap sweep compass --grid b=0.3:0.6:7 --disturb step_down"));
    r = cli_run("disturb", "--help", NULL); /* points to the grid form */
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "--disturb NAME --from A --to B --out DIR"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_disturb_sweep PATH-TO-STRIDEMAP [MPIRUN]\n");
        return 2;
    }
    cli_exe = argv[1];
    mpirun = argc > 2 ? argv[2] : NULL;
    if (mpirun) cmocka_set_test_filter("mpi_*");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_usage_gets_one_line_and_a_sysexits_code),
        cmocka_unit_test(each_row_is_disturb_run_alone_at_its_point),
        cmocka_unit_test(threads_shards_and_resume_give_the_same_rows),
        cmocka_unit_test(killed_with_sigkill_and_resumed_loses_nothing),
        cmocka_unit_test(help_names_disturb_with_an_example),
        cmocka_unit_test(mpi_two_ranks_give_the_same_rows),
    };
    return cmocka_run_group_tests_name("cli_disturb_sweep", tests, sweep_dir_setup, sweep_dir_teardown);
}
