/* stridemap basin as a user meets it: refused planes, the same rows from 1
 * and 2 threads, 2 shards merged, a run stopped or killed and resumed, 2 MPI
 * ranks (the mpi suite), the measures in basin.json against the rows, and
 * --help.  argv[1] is the binary, argv[2] mpirun in the mpi suite. */
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"
#include "sweep_harness.h"
#include "test_util.h"

static const char *mpirun;

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
    assert_int_equal(lines_in(in_dir(ref, "basin.csv").s), CELLS + 1);
    return rows_of(ref, "basin.csv");
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
    assert_rows(want, two, "basin.csv");

    const char *sh = dir("shards");
    for (int k = 0; k < 2; k++)
        assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--shard",
                                 k ? "1/2" : "0/2", "--out", sh, "-q", NULL)->status,
                         0);
    cli_result *r = cli_run("merge", sh, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "63 rows in"));
    assert_non_null(strstr(r->out, "of the plane converges")); /* merge prints a basin's measures */
    assert_rows(want, sh, "basin.csv");

    /* Stopped after 23 rows, part-way through the third line (cells 18-26),
     * resumed with two threads: a later cell of that line whose walk meets the
     * path of one walked before the stop maps as in the unbroken run only if
     * the resumed worker walks cells 18-22 again first. */
    assert_true(mapped_in(want, 23, 27, 18, 23));
    const char *cut = dir("stopped");
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "1",
                             "--stop-after", "23", "--out", cut, "-q", NULL)->status,
                     75);
    const test_path part = in_dir(cut, "part-local.csv");
    assert_int_equal(lines_in(part.s), 24);
    assert_int_equal(cli_run("basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "2",
                             "--resume", "--out", cut, "-q", NULL)->status,
                     0);
    assert_int_equal(lines_in(part.s), CELLS + 1); /* nothing computed twice */
    assert_rows(want, cut, "basin.csv");

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
    const char *const args[] = {"basin", "simplest", "--set", "gamma=0.009", "--plane",
                                "theta=0.195:0.205:24,theta_dot=-0.205:-0.195:24", TOLS, "--no-cell-map", NULL};
    killed_and_resumed_loses_nothing(args, "basin.csv", 576, 29);
}

/* basin.json: the gait, and measures that agree with the rows counted here. */
static void the_sidecar_holds_the_gait_and_measures_of_the_rows(void **state)
{
    (void)state;
    const char *d = dir("ref");
    FILE *f = fopen(in_dir(d, "basin.csv").s, "r");
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
    json_t *doc = json_load_file(in_dir(d, "basin.json").s, 0, NULL);
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
    const char *const args[] = {"basin", "simplest", "--set", "gamma=0.009", "--plane", PLANE, TOLS, "--jobs", "1",
                                "--out", out, "-q", NULL};
    assert_int_equal(mpi_run(mpirun, "2", args), 0);
    assert_true(lines_in(in_dir(out, "part-rank-1-of-2.csv").s) >= 1);
    char *want = rows_of(ref, "basin.csv");
    assert_rows(want, out, "basin.csv");
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
    return cmocka_run_group_tests_name("cli_basin", tests, sweep_dir_setup, sweep_dir_teardown);
}
