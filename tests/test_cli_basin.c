/* stridemap basin as a user meets it: refused planes, the same rows from 1
 * and 2 threads, 2 shards merged, a run stopped or killed and resumed, 2 MPI
 * ranks (the mpi suite), the measures in basin.json against the rows, and
 * --help.  argv[1] is the binary, argv[2] mpirun in the mpi suite. */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_run.h"
#include "test_util.h"

static const char *mpirun;
static char base_dir[] = "/tmp/sm_test_cli_basinXXXXXX";

static const char *dir(const char *name)
{
    static char buf[4][300];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", base_dir, name);
    return buf[k];
}

/* The rows of DIR/basin.csv without wall_s (the last column). */
static char *rows_of(const char *d)
{
    char path[400];
    snprintf(path, sizeof path, "%s/basin.csv", d);
    FILE *f = fopen(path, "r");
    if (!f) print_error("no %s\n", path);
    assert_non_null(f);
    char *text = calloc(1 << 20, 1), line[1024];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        *strrchr(line, ',') = '\0';
        const size_t len = strlen(line);
        memcpy(text + n, line, len);
        text[n + len] = '\n';
        n += len + 1;
    }
    fclose(f);
    return text;
}

/* True if a row of rows (rows_of) with index in [lo, hi) took its fate from a
 * walk of a cell in [from_lo, from_hi) (mapped_from, the seventh column). */
static bool mapped_in(const char *rows, long lo, long hi, long from_lo, long from_hi)
{
    for (const char *p = strchr(rows, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        long idx = strtol(p + 1, NULL, 10), from = -1;
        const char *f = p + 1;
        for (int k = 0; k < 6 && f; k++) f = strchr(f + 1, ',');
        if (f) from = strtol(f + 1, NULL, 10);
        if (idx >= lo && idx < hi && from >= from_lo && from < from_hi) return true;
    }
    return false;
}

static long lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long n = 0;
    for (int c; (c = fgetc(f)) != EOF;) n += c == '\n';
    fclose(f);
    return n;
}

#define TOLS "--rtol", "1e-9", "--atol", "1e-9", "--tol", "1e-8"
/* The simplest walker's gait at gamma = 0.009 is near (0.2003, -0.1998). */
#define PLANE "theta=0.17:0.23:9,theta_dot=-0.23:-0.17:7"
#define CELLS 63

static void bad_planes_get_one_line_and_a_sysexits_code(void **state)
{
    (void)state;
    const char *out = dir("bad");
    cli_expect_error(cli_run("basin", "simplest", "--out", out, NULL), 64, "--plane");
    cli_expect_error(cli_run("basin", "simplest", "--plane", PLANE, NULL), 64, "--out");
    cli_expect_error(cli_run("basin", "simplest", "--plane", "theta=0.1:0.2:5", "--out", out, NULL), 64, "two axes");
    cli_expect_error(cli_run("basin", "simplest", "--plane", "phi=0.1:0.2:5,theta=0.1:0.2:5", "--out", out, NULL), 64,
                     "not a free coordinate");
    cli_expect_error(cli_run("basin", "simplest", "--plane", "theta=0.2:0.1:5,theta_dot=-0.3:-0.1:5", "--out", out, NULL),
                     65, "--plane theta: LO 0.2 must be below HI 0.1");
    cli_expect_error(cli_run("basin", "simplest", "--plane", "theta=0.1:0.2:1,theta_dot=-0.3:-0.1:5", "--out", out, NULL),
                     65, "from 2 to");
    cli_expect_error(cli_run("basin", "simplest", "--plane", "theta=0.1:0.2:5,theta=0.1:0.2:5", "--out", out, NULL), 64,
                     "twice");
    /* options that contradict each other: usage */
    cli_expect_error(cli_run("basin", "simplest", "--plane", PLANE, "--fix", "theta=0.2", "--out", out, NULL), 64,
                     "--fix: 'theta' is an axis of the plane");
    cli_expect_error(cli_run("basin", "simplest", "--plane", PLANE, "--max-strides", "0", "--out", out, NULL), 65,
                     "--max-strides");
    cli_expect_error(cli_run("basin", "simplest", "--plane", PLANE, "--return-tol", "-1", "--out", out, NULL), 65,
                     "--return-tol");
    /* No gait (the walker cannot walk down a slope this steep from this guess): exit 1 before any work. */
    cli_expect_error(cli_run("basin", "simplest", "--set", "gamma=0.009", "--guess", "0.5,0.5,1,0", "--plane", PLANE,
                             "--out", out, NULL),
                     1, "no gait found");
    struct stat sb;
    assert_int_not_equal(stat(out, &sb), 0); /* nothing was created */
}

/* The reference: one thread.  Its measures against its own rows. */
static char *reference(void)
{
    const char *ref = dir("ref");
    cli_result *r = cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "1",
                            "--out", ref, "-q", NULL);
    if (r->status) print_error("%s\n", r->err);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "of the plane converges"));
    char path[400];
    snprintf(path, sizeof path, "%s/basin.csv", ref);
    assert_int_equal(lines_in(path), CELLS + 1);
    return rows_of(ref);
}

static void threads_shards_and_resume_give_the_same_rows(void **state)
{
    (void)state;
    char *want = reference();
    /* Cell mapping was used: rows of decided cells are what later cells map onto. */
    assert_non_null(strstr(want, "index,theta,theta_dot,outcome,status,strides,mapped_from,orbit_point,distance\n"));

    const char *two = dir("two");
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "2",
                             "--out", two, "-q", NULL)->status,
                     0);
    char *got = rows_of(two);
    assert_string_equal(want, got);
    free(got);

    const char *sh = dir("shards");
    for (int k = 0; k < 2; k++)
        assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--shard",
                                 k ? "1/2" : "0/2", "--out", sh, "-q", NULL)->status,
                         0);
    cli_result *r = cli_run("merge", sh, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "63 rows in"));
    assert_non_null(strstr(r->out, "of the plane converges")); /* merge prints a basin's measures */
    got = rows_of(sh);
    assert_string_equal(want, got);
    free(got);

    /* Stopped after 23 rows, part-way through the third line (cells 18-26),
     * resumed with two threads: a later cell of that line whose walk meets the
     * path of one walked before the stop maps as in the unbroken run only if
     * the resumed worker walks cells 18-22 again first. */
    assert_true(mapped_in(want, 23, 27, 18, 23));
    const char *cut = dir("stopped");
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "1",
                             "--stop-after", "23", "--out", cut, "-q", NULL)->status,
                     75);
    char part[400];
    snprintf(part, sizeof part, "%s/part-local.csv", cut);
    assert_int_equal(lines_in(part), 24);
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "2",
                             "--resume", "--out", cut, "-q", NULL)->status,
                     0);
    assert_int_equal(lines_in(part), CELLS + 1); /* nothing computed twice */
    got = rows_of(cut);
    assert_string_equal(want, got);
    free(got);

    /* Another return tolerance is another basin: refused, nothing mixed. */
    cli_expect_error(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--return-tol",
                             "1e-5", "--resume", "--out", cut, "-q", NULL),
                     73, "holds another sweep");
    free(want);
}

/* A walk near the gait takes tens of strides: a plane of such cells runs long
 * enough to be killed part-way. */
static void killed_with_sigkill_and_resumed_loses_nothing(void **state)
{
    (void)state;
    const char *plane = "theta=0.195:0.205:24,theta_dot=-0.205:-0.195:24";
    const char *ref = dir("kill-ref"), *cut = dir("killed");
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", plane, TOLS, "--no-cell-map",
                             "--jobs", "2", "--out", ref, "-q", NULL)->status,
                     0);
    char *want = rows_of(ref);
    const char *args[] = {"basin", "simplest", "--set", "gamma=0.009", "--plane", plane, TOLS, "--no-cell-map",
                          "--jobs", "1", "--out", cut, "-q", NULL};
    char part[400];
    snprintf(part, sizeof part, "%s/part-local.csv", cut);
    pid_t pid = cli_spawn(cli_exe, args, NULL, NULL, NULL);
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (int i = 0; i < 5000 && lines_in(part) < 30; i++) nanosleep(&nap, NULL);
    kill(pid, SIGKILL);
    static cli_result r;
    cli_finish(pid, NULL, NULL, &r);
    assert_int_equal(r.status, 128 + SIGKILL);
    const long kept = lines_in(part) - 1;
    assert_true(kept >= 29 && kept < 576);
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", plane, TOLS, "--no-cell-map",
                             "--jobs", "2", "--resume", "--out", cut, "-q", NULL)->status,
                     0);
    assert_int_equal(lines_in(part), 577);
    char *got = rows_of(cut);
    assert_string_equal(want, got);
    free(got);
    free(want);
}

/* basin.json: the gait, and measures that agree with the rows counted here. */
static void the_sidecar_holds_the_gait_and_measures_of_the_rows(void **state)
{
    (void)state;
    const char *d = dir("ref");
    char path[400];
    snprintf(path, sizeof path, "%s/basin.csv", d);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    long conv = 0, fell = 0, rows = 0, backward = 0;
    assert_non_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        rows++;
        conv += strstr(line, ",converged,ok,") != NULL;
        fell += strstr(line, ",fell,") != NULL;
        backward += strstr(line, ",fell_backward,") != NULL;
        /* converged with 0 strides only at the gait itself, which is no centre of this plane */
        assert_null(strstr(line, ",converged,ok,0,"));
    }
    fclose(f);
    assert_int_equal(rows, CELLS);
    snprintf(path, sizeof path, "%s/basin.json", d);
    json_t *doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "kind")), "basin");
    json_t *ms = json_object_get(doc, "measures");
    assert_int_equal(json_integer_value(json_object_get(ms, "cells")), CELLS);
    assert_int_equal(json_integer_value(json_object_get(ms, "converged")), conv);
    assert_int_equal(json_integer_value(json_object_get(ms, "fell")), fell);
    assert_close(json_number_value(json_object_get(ms, "area_fraction")), (double)conv / CELLS, 1e-15);
    assert_true(conv > 0 && fell > 0 && backward > 0);
    assert_true(json_is_true(json_object_get(ms, "gait_inside")));
    /* Garcia et al.'s (1998) gait, on the plane */
    json_t *gp = json_object_get(doc, "gait_plane");
    assert_close(json_number_value(json_array_get(gp, 0)), 0.20031090, 1e-7);
    assert_close(json_number_value(json_array_get(gp, 1)), -0.19983247, 1e-7);
    assert_true(json_is_true(json_object_get(json_object_get(doc, "basin"), "cell_map_used")));
    json_decref(doc);
}

/* mpirun -np 2 stridemap basin ... */
static void mpi_two_ranks_give_the_same_rows(void **state)
{
    (void)state;
    if (!mpirun) skip();
    const char *ref = dir("mpi-ref"), *out = dir("mpi-2");
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "1",
                             "--out", ref, "-q", NULL)->status,
                     0);
    char *want = rows_of(ref);
    const char *args[] = {"--oversubscribe", "--allow-run-as-root", "-np", "2", cli_exe, "basin", "simplest", "--set",
                          "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "1", "--out", out, "-q", NULL};
    char err_path[300];
    snprintf(err_path, sizeof err_path, "%s/stderr-mpi", base_dir);
    static cli_result r;
    cli_finish(cli_spawn(mpirun, args, NULL, err_path, NULL), NULL, err_path, &r);
    if (r.status) print_error("mpirun: exit %d: %s\n", r.status, r.err);
    assert_int_equal(r.status, 0);
    char part[400];
    snprintf(part, sizeof part, "%s/part-rank-1-of-2.csv", out);
    assert_true(lines_in(part) >= 1);
    char *got = rows_of(out);
    assert_string_equal(want, got);
    free(got);
    free(want);
}

static void help_has_an_example_and_the_command_list_names_basin(void **state)
{
    (void)state;
    cli_result *r = cli_run("basin", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "example:\n  stridemap basin simplest"));
    assert_non_null(strstr(r->out, "--no-cell-map"));
    r = cli_run("--help", NULL);
    assert_non_null(strstr(r->out, "  basin MODEL"));
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(base_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_basin PATH-TO-STRIDEMAP [MPIRUN]\n");
        return 2;
    }
    cli_exe = argv[1];
    mpirun = argc > 2 ? argv[2] : NULL;
    if (mpirun) cmocka_set_test_filter("mpi_*");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_planes_get_one_line_and_a_sysexits_code),
        cmocka_unit_test(threads_shards_and_resume_give_the_same_rows),
        cmocka_unit_test(the_sidecar_holds_the_gait_and_measures_of_the_rows),
        cmocka_unit_test(killed_with_sigkill_and_resumed_loses_nothing),
        cmocka_unit_test(help_has_an_example_and_the_command_list_names_basin),
        cmocka_unit_test(mpi_two_ranks_give_the_same_rows),
    };
    return cmocka_run_group_tests_name("cli_basin", tests, setup, teardown);
}
