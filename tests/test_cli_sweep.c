/* stridemap sweep and merge as a user meets them: refused grids, a killed
 * sweep resumed, shards merged, the JSON sidecar.  argv[1] is the binary. */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"
#include "sweep_harness.h"
#include "test_util.h"

static const char *mpirun; /* argv[2] when the MPI build is tested */

#define GRID "gamma=0.002:0.02:12"
#define TOLS "--rtol", "1e-8", "--atol", "1e-8", "--tol", "1e-8"

/* 64 for the command line's form (names, missing or conflicting options),
 * 65 for a value given (malformed, not a number, out of range): README. */
static void bad_grids_get_one_line_and_a_sysexits_code(void **state)
{
    (void)state;
    const char *out = dir("bad");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.2:0.1:5", "--out", out, NULL), 65, "above HI");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.1:0.2:0", "--out", out, NULL), 65,
                 "N must be a whole number from 1 to 100000000");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", out, "--segment", "0", NULL), 65,
                 "from 1 to 100000000");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", out, "--shard", "0/2000000", NULL), 65,
                 "N <= 1000000");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "beta=0.1:0.2:3", "--out", out, NULL), 64,
                 "no parameter 'beta'");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.1:0.2", "--out", out, NULL), 65, "NAME=LO:HI:N");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.01:0.02:3", "--set", "gamma=0.01", "--out", out, NULL),
                 64, "both fixed (--set) and swept");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.01:0.02:3", "--grid", "gamma=0.01:0.02:3", "--out",
                     out, NULL),
                 64, "swept twice");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.1:0.9:3", "--out", out, NULL), 65, "[-0.5, 0.5]");
    cli_expect_error(cli_run("sweep", "simplest", "--out", out, NULL), 64, "--grid");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, NULL), 64, "--out");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", out, "--jobs", "0", NULL), 65, "--jobs");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", out, "--shard", "3/3", NULL), 65, "--shard");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", out, "--shard", "1", NULL), 65, "K/N");
    cli_expect_error(cli_run("sweep", "nosuch", "--grid", GRID, "--out", out, NULL), 64, "unknown model");
    cli_expect_error(cli_run("merge", NULL), 64, "which directory");
    cli_expect_error(cli_run("merge", dir("nothing-here"), NULL), 66, "cannot read directory");
    struct stat sb;
    assert_int_not_equal(stat(out, &sb), 0); /* nothing was created */
}

static void an_unwritable_or_foreign_directory_is_refused_before_work(void **state)
{
    (void)state;
    char file[300];
    snprintf(file, sizeof file, "%s/plain-file", base_dir);
    fclose(fopen(file, "w"));
    char sub[400];
    snprintf(sub, sizeof sub, "%s/sub", file);
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", file, "-q", NULL), 73, "not a directory");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", GRID, "--out", sub, "-q", NULL), 73, "cannot create directory");

    const char *d = dir("foreign");
    assert_int_equal(cli_run("sweep", "simplest", "--grid", "gamma=0.005:0.01:3", TOLS, "--out", d, "-q", NULL)->status, 0);
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.005:0.01:3", TOLS, "--out", d, "-q", NULL), 73,
                 "--resume");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.005:0.01:4", TOLS, "--out", d, "--resume", "-q", NULL),
                 73, "another sweep ('grid' differs");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.005:0.01:3", "--out", d, "--resume", "-q", NULL), 73,
                 "another sweep ('newton' differs");
    /* Another walker: the model is named, not its parameters that follow from it. */
    cli_expect_error(cli_run("sweep", "rimless", "--grid", "gamma=0.005:0.01:3", TOLS, "--out", d, "--resume", "-q", NULL),
                 73, "another model ('simplest', not 'rimless'");
}

/* No room for a megabyte (a file-size limit stands in for a full disk). */
static void a_full_disk_is_refused_before_work(void **state)
{
    (void)state;
    if (access("/usr/bin/prlimit", X_OK) != 0) skip();
    const char *d = dir("full");
    const char *args[] = {"--fsize=200000", "--", cli_exe, "sweep", "simplest", "--grid", GRID, "--out", d, "-q", NULL};
    char err_path[300], part[400];
    snprintf(err_path, sizeof err_path, "%s/stderr-full", base_dir);
    static cli_result r;
    cli_finish(cli_spawn("/usr/bin/prlimit", args, NULL, err_path, NULL), NULL, err_path, &r);
    cli_expect_error(&r, 73, "File too large");
    snprintf(part, sizeof part, "%s/part-local.csv", d);
    assert_int_equal(access(part, F_OK), -1); /* nothing started */
}

/* Starts a sweep of 8000 quick rows (every stride gives up at once) into d,
 * holds it after its first rows, and blocks its final sidecar: the path of
 * the temporary file it will write becomes a directory. */
static pid_t start_blocked_sidecar(const char *d, const char *fsize, const char *err_path)
{
    const char *sweep[] = {"sweep", "rimless", "--grid", "gamma=0.02:0.2:8000", "--tmax", "1e-6", "--jobs", "1",
                           "--out", d, "-q", NULL};
    const char *limited[] = {fsize, "--", cli_exe, "sweep", "rimless", "--grid", "gamma=0.02:0.2:8000", "--tmax",
                             "1e-6", "--jobs", "1", "--out", d, "-q", NULL};
    const test_path part = in_dir(d, "part-local.csv");
    pid_t pid = fsize ? spawn_until_lines("/usr/bin/prlimit", limited, err_path, part.s, 3)
                      : spawn_until_lines(NULL, sweep, err_path, part.s, 3);
    char block[400];
    kill(pid, SIGSTOP);
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, WUNTRACED), pid);
    assert_true(WIFSTOPPED(ws));
    snprintf(block, sizeof block, "%s/part-local.json.tmp.%ld", d, (long)pid); /* prlimit execs: same pid */
    assert_int_equal(mkdir(block, 0755), 0);
    kill(pid, SIGCONT);
    return pid;
}

/* The disk fills up in the middle: the rows' file and then the sidecar fail
 * to write, and the user reads one line about it, not two. */
static void a_disk_full_mid_sweep_is_one_line(void **state)
{
    (void)state;
    if (access("/usr/bin/prlimit", X_OK) != 0) skip();
    const char *d = dir("full-mid");
    char err_path[300], block[400];
    snprintf(err_path, sizeof err_path, "%s/stderr-full-mid", base_dir);
    static cli_result r;
    /* 1.1 MB passes the 1 MB probe; 8000 rows need about 1.5 MB. */
    pid_t pid = start_blocked_sidecar(d, "--fsize=1100000", err_path);
    cli_finish(pid, NULL, err_path, &r);
    cli_expect_error(&r, 74, "cannot write");
    assert_non_null(strstr(r.err, "part-local.csv"));
    assert_non_null(strstr(r.err, "--resume"));
    snprintf(block, sizeof block, "%s/part-local.json.tmp.%ld", d, (long)pid);
    rmdir(block);

    /* Only the sidecar fails: an error (not exit 0 after an error line), and --resume finishes. */
    const char *d2 = dir("sidecar-fails");
    pid = start_blocked_sidecar(d2, NULL, err_path);
    cli_finish(pid, NULL, err_path, &r);
    cli_expect_error(&r, 73, "part-local.json");
    assert_non_null(strstr(r.err, "--resume"));
    snprintf(block, sizeof block, "%s/part-local.json.tmp.%ld", d2, (long)pid);
    assert_int_equal(rmdir(block), 0);
    assert_int_equal(cli_run("sweep", "rimless", "--grid", "gamma=0.02:0.2:8000", "--tmax", "1e-6", "--jobs", "1",
                         "--out", d2, "-q", "--resume", NULL)->status,
                     0);
    char path[400];
    snprintf(path, sizeof path, "%s/sweep.csv", d2);
    assert_int_equal(lines_in(path), 8001);

    /* merge under the same limit: a message, not a kill by SIGXFSZ. */
    const char *args[] = {"--fsize=1000", "--", cli_exe, "merge", d2, NULL};
    cli_finish(cli_spawn("/usr/bin/prlimit", args, NULL, err_path, NULL), NULL, err_path, &r);
    cli_expect_error(&r, 74, "File too large");
}

static void killed_with_sigkill_and_resumed_loses_nothing(void **state)
{
    (void)state;
    const char *const args[] = {"sweep", "simplest", "--grid", "gamma=0.002:0.02:60", NULL};
    killed_and_resumed_loses_nothing(args, "sweep.csv", 60, 5);
}

/* Two runs on one DIR: one writes, the other is refused at once (73) and
 * touches nothing, so every point has exactly one row. */
static void a_second_sweep_on_the_same_directory_is_refused(void **state)
{
    (void)state;
    const char *d = dir("busy");
    const char *args[] = {"sweep", "simplest", "--grid", "gamma=0.002:0.02:60", "--jobs", "1", "--out", d, "-q",
                          NULL};
    char err_path[300], part[400];
    snprintf(err_path, sizeof err_path, "%s/stderr-busy", base_dir);
    snprintf(part, sizeof part, "%s/part-local.csv", d);
    pid_t pid = spawn_until_lines(NULL, args, err_path, part, 3);
    /* Held mid-run, the first sweep is certainly still writing when the second starts. */
    kill(pid, SIGSTOP);
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, WUNTRACED), pid); /* stopped, not just signalled */
    assert_true(WIFSTOPPED(ws));
    long before = lines_in(part);
    assert_true(before >= 3 && before < 61);
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.002:0.02:60", "--jobs", "1", "--out", d, "--resume",
                     "-q", NULL),
                 73, "in use");
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.002:0.02:60", "--jobs", "1", "--out", d, "-q", NULL),
                 73, "in use");
    assert_int_equal(lines_in(part), before);
    assert_int_equal(waitpid(pid, &ws, WNOHANG), 0); /* refused quickly: the first is still there */
    kill(pid, SIGCONT);
    static cli_result r;
    cli_finish(pid, NULL, err_path, &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(lines_in(part), 61);

    /* Started at the same instant: exactly one runs. */
    const char *d2 = dir("busy2");
    const char *args2[] = {"sweep", "simplest", "--grid", "gamma=0.002:0.02:60", "--jobs", "1", "--out", d2, "-q",
                           NULL};
    char err2[300];
    snprintf(err2, sizeof err2, "%s/stderr-busy2", base_dir);
    snprintf(part, sizeof part, "%s/part-local.csv", d2);
    pid_t a = cli_spawn(cli_exe, args2, NULL, err_path, NULL), b = cli_spawn(cli_exe, args2, NULL, err2, NULL);
    static cli_result ra, rb;
    cli_finish(a, NULL, err_path, &ra);
    cli_finish(b, NULL, err2, &rb);
    cli_result *refused = ra.status == 0 ? &rb : &ra;
    assert_int_equal((ra.status == 0) + (rb.status == 0), 1);
    assert_int_equal(refused->status, 73);
    assert_int_equal(cli_count_lines(refused->err), 1);
    assert_int_equal(lines_in(part), 61);
    char *want = rows_of(d, "sweep.csv");
    assert_rows(want, d2, "sweep.csv");
    free(want);
}

static void sigterm_and_sigint_keep_every_finished_row(void **state)
{
    (void)state;
    const int sigs[] = {SIGTERM, SIGINT};
    const char *names[] = {"SIGTERM", "SIGINT"};
    for (int k = 0; k < 2; k++) {
        const char *d = dir(k ? "interrupted" : "termed");
        const char *args[] = {"sweep", "simplest", "--grid", "gamma=0.002:0.02:60", "--jobs", "2", "--out", d, "-q",
                              NULL};
        char err_path[300], part[400];
        snprintf(err_path, sizeof err_path, "%s/stderr-term", base_dir);
        snprintf(part, sizeof part, "%s/part-local.csv", d);
        pid_t pid = spawn_until_lines(NULL, args, err_path, part, 4);
        kill(pid, sigs[k]);
        static cli_result r;
        cli_finish(pid, NULL, err_path, &r);
        cli_expect_error(&r, 128 + sigs[k], "--resume");
        assert_non_null(strstr(r.err, names[k]));
        long kept = lines_in(part) - 1;
        assert_true(kept >= 3 && kept < 60);
        cli_result *rr = cli_run("sweep", "simplest", "--grid", "gamma=0.002:0.02:60", "--jobs", "2", "--out", d,
                             "--resume", "-q", NULL);
        assert_int_equal(rr->status, 0);
        assert_int_equal(lines_in(part), 61); /* each point once */
    }
}

static void shards_merge_into_the_same_rows(void **state)
{
    (void)state;
    const char *ref = dir("ref2d"), *sh = dir("shards");
    const char *g0 = "gamma=0.02:0.2:5", *g1 = "n=5:8:4";
    assert_int_equal(cli_run("sweep", "rimless", "--grid", g0, "--grid", g1, TOLS, "--out", ref, "-q", NULL)->status, 0);
    char *want = rows_of(ref, "sweep.csv");
    assert_int_equal(cli_run("sweep", "rimless", "--grid", g0, "--grid", g1, TOLS, "--out", sh, "--shard", "0/3", "-q",
                         NULL)->status,
                     0);
    assert_int_equal(cli_run("sweep", "rimless", "--grid", g0, "--grid", g1, TOLS, "--out", sh, "--shard", "2/3", "-q",
                         NULL)->status,
                     0);
    cli_expect_error(cli_run("merge", sh, NULL), 1, "have no row yet");
    assert_int_equal(cli_run("sweep", "rimless", "--grid", g0, "--grid", g1, TOLS, "--out", sh, "--shard", "1/3", "-q",
                         NULL)->status,
                     0);
    cli_result *r = cli_run("merge", sh, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "20 rows"));
    assert_rows(want, sh, "sweep.csv");
    free(want);

    json_t *doc = json_load_file(in_dir(sh, "sweep.json").s, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "rows")), 20);
    assert_int_equal(json_integer_value(json_object_get(doc, "missing")), 0);
    assert_int_equal(json_array_size(json_object_get(doc, "parts")), 3);
    json_decref(doc);
}

static void the_sidecar_says_how_the_sweep_was_made(void **state)
{
    (void)state;
    const char *d = dir("sidecar");
    char *env[256];
    size_t n = 0;
    for (char **e = environ; *e && n < 250; e++)
        if (strncmp(*e, "SLURM_", 6) != 0) env[n++] = *e;
    env[n++] = "SLURM_JOB_ID=4242";
    env[n++] = "SLURM_ARRAY_TASK_ID=7";
    env[n] = NULL;
    assert_int_equal(cli_run_env(env, "sweep", "simplest", "--grid", "gamma=0.005:0.01:3", TOLS, "--out", d, "-q",
                             "--jobs", "1", NULL)->status,
                     0);
    char path[400];
    snprintf(path, sizeof path, "%s/part-local.json", d);
    json_t *doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "model")), "simplest");
    assert_int_equal(json_integer_value(json_object_get(doc, "points")), 3);
    json_t *axis = json_array_get(json_object_get(doc, "grid"), 0);
    assert_string_equal(json_string_value(json_object_get(axis, "name")), "gamma");
    assert_int_equal(json_integer_value(json_object_get(axis, "n")), 3);
    assert_close(json_number_value(json_object_get(json_object_get(doc, "solver"), "rtol")), 1e-8, 0);
    assert_non_null(json_string_value(json_object_get(doc, "version")));
    assert_non_null(json_string_value(json_object_get(doc, "signature")));
    json_t *part = json_object_get(doc, "run");
    assert_non_null(json_string_value(json_object_get(part, "host")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(part, "command"), 1)), "sweep");
    json_t *slurm = json_object_get(part, "slurm");
    assert_string_equal(json_string_value(json_object_get(slurm, "SLURM_JOB_ID")), "4242");
    assert_string_equal(json_string_value(json_object_get(slurm, "SLURM_ARRAY_TASK_ID")), "7");
    assert_true(json_is_true(json_object_get(doc, "complete")));
    json_decref(doc);
    snprintf(path, sizeof path, "%s/sweep.csv", d);
    assert_int_equal(lines_in(path), 4);
    /* The simplest walker conserves nothing: no trivial multiplier (column last). */
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[8192];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",seed,wall_s,trivial_eig\n"));
    while (fgets(line, sizeof line, f)) assert_string_equal(strrchr(line, ','), ",0\n");
    fclose(f);
}

/* mpirun -np R stridemap sweep ... */
static int run_mpi(const char *ranks, const char *out, const char *extra)
{
    const char *const args[] = {"sweep", "rimless", "--grid", "gamma=0.02:0.2:4", "--grid", "n=5:12:8", TOLS, "--jobs",
                                "1", "--out", out, "-q", extra, NULL};
    return mpi_run(mpirun, ranks, args);
}

static void mpi_ranks_give_the_same_rows_and_resume(void **state)
{
    (void)state;
    if (!mpirun) skip();
    const char *ref = dir("mpi-ref"), *four = dir("mpi-4"), *cut = dir("mpi-cut");
    assert_int_equal(cli_run("sweep", "rimless", "--grid", "gamma=0.02:0.2:4", "--grid", "n=5:12:8", TOLS, "--jobs", "1",
                         "--out", ref, "-q", NULL)->status,
                     0);
    char *want = rows_of(ref, "sweep.csv");
    assert_int_equal(run_mpi("4", four, NULL), 0);
    assert_rows(want, four, "sweep.csv");
    assert_true(lines_in(in_dir(four, "part-rank-3-of-4.csv").s) >= 1); /* every rank wrote its own part */

    /* Lines cut into segments of 2 points: ranks and threads agree again. */
    const char *seg_ref = dir("mpi-seg-ref"), *seg4 = dir("mpi-seg-4");
    assert_int_equal(cli_run("sweep", "rimless", "--grid", "gamma=0.02:0.2:4", "--grid", "n=5:12:8", TOLS, "--jobs", "2",
                         "--segment=2", "--out", seg_ref, "-q", NULL)->status,
                     0);
    char *seg_want = rows_of(seg_ref, "sweep.csv");
    assert_int_equal(run_mpi("4", seg4, "--segment=2"), 0);
    assert_rows(seg_want, seg4, "sweep.csv");
    free(seg_want);

    /* Three ranks stopped early, resumed by two: the same rows. */
    assert_int_equal(run_mpi("3", cut, "--stop-after=2"), 75);
    assert_int_equal(run_mpi("2", cut, "--resume"), 0);
    assert_rows(want, cut, "sweep.csv");
    free(want);
}

/* The environment a launcher gives rank R of N, on top of ours. */
static char **launcher_env(const char *const *vars)
{
    static char *env[300];
    size_t n = 0;
    for (char **e = environ; *e && n < 280; e++)
        if (strncmp(*e, "OMPI_", 5) != 0 && strncmp(*e, "PMI", 3) != 0) env[n++] = *e;
    for (; *vars && n < 298; vars++) env[n++] = (char *)*vars;
    env[n] = NULL;
    return env;
}

/* A build without MPI under mpirun/srun: each rank would be a lone sweep
 * of every point.  It says so and stops (EX_UNAVAILABLE) before any work. */
static void a_build_without_mpi_refuses_an_mpi_launch(void **state)
{
    (void)state;
    const char *built = getenv("STRIDEMAP_MPI_BUILD");
    if (!built || strcmp(built, "0") != 0) skip(); /* an MPI build would call MPI_Init */
    const char *d = dir("lone-ranks");
    static const char *const launches[][3] = {
        {"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0", NULL}, /* OpenMPI's mpirun */
        {"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=1", NULL},
        {"PMI_SIZE=4", "PMI_RANK=3", NULL},                         /* MPICH's mpiexec, srun --mpi=pmi2 */
        {"PMIX_RANK=1", NULL, NULL},                                 /* srun --mpi=pmix */
    };
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++) {
        cli_result *r = cli_run_env(launcher_env(launches[i]), "sweep", "simplest", "--grid", GRID, "--out", d, "-q",
                                "--resume", NULL);
        cli_expect_error(r, 69, "built without MPI");
        assert_non_null(strstr(r->err, "-Dmpi=enabled"));
    }
    assert_non_null(strstr(cli_run_env(launcher_env(launches[2]), "sweep", "simplest", "--grid", GRID, "--out", d, "-q",
                                   NULL)->err,
                           "4 MPI ranks"));
    struct stat sb;
    assert_int_not_equal(stat(d, &sb), 0); /* nothing was created */
    /* srun -n 4 of --shard K/4: each process has its own share of the grid. */
    assert_int_equal(cli_run_env(launcher_env(launches[2]), "sweep", "simplest", "--grid", "gamma=0.005:0.01:3", TOLS,
                             "--out", dir("lone-shard"), "-q", "--shard", "0/4", NULL)->status,
                     0);
    /* mpirun -np 1 is one process: nothing to refuse. */
    static const char *const one[] = {"OMPI_COMM_WORLD_SIZE=1", "OMPI_COMM_WORLD_RANK=0", NULL};
    assert_int_equal(cli_run_env(launcher_env(one), "sweep", "simplest", "--grid", "gamma=0.005:0.01:3", TOLS, "--out", d,
                             "-q", NULL)->status,
                     0);
}

/* An MPI build opens libmpi only under a launcher: a library that cannot be
 * loaded, or is not an MPI, is one line naming STRIDEMAP_MPI_LIB and exit 69
 * (EX_UNAVAILABLE) before any work. */
static void an_mpi_library_that_cannot_be_loaded_is_one_line(void **state)
{
    (void)state;
    const char *built = getenv("STRIDEMAP_MPI_BUILD");
    if (!built || strcmp(built, "1") != 0) skip(); /* a build without MPI refuses launches itself */
    const char *d = dir("no-libmpi");
    static const char *const missing[] = {"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0",
                                          "STRIDEMAP_MPI_LIB=/nonexistent/libmpi.so.40", NULL};
    cli_result *r = cli_run_env(launcher_env(missing), "sweep", "simplest", "--grid", GRID, "--out", d, "-q", NULL);
    cli_expect_error(r, 69, "cannot load MPI: /nonexistent/libmpi.so.40");
    assert_non_null(strstr(r->err, "STRIDEMAP_MPI_LIB"));
    /* a library that loads but is no MPI */
    static const char *const not_mpi[] = {"PMI_SIZE=2", "PMI_RANK=1", "STRIDEMAP_MPI_LIB=libm.so.6", NULL};
    r = cli_run_env(launcher_env(not_mpi), "sweep", "simplest", "--grid", GRID, "--out", d, "-q", NULL);
    cli_expect_error(r, 69, "MPI_Get_library_version");
    assert_non_null(strstr(r->err, "STRIDEMAP_MPI_LIB"));
    struct stat sb;
    assert_int_not_equal(stat(d, &sb), 0); /* nothing was created */
}

/* Only an MPI sweep loads libmpi (and the libraries under it): every other
 * run starts without it (bench/README.md, a fast start).  The dynamic
 * loader's own trace (LD_DEBUG=libs) lists every object it opens, dlopen
 * included. */
static void runs_without_a_launcher_never_load_libmpi(void **state)
{
    (void)state;
    static const char *const trace[] = {"LD_DEBUG=libs", NULL};
    cli_result *r = cli_run_env(launcher_env(trace), "fixed", "simplest", "--set", "gamma=0.009", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "libc.so.6")); /* the trace is there */
    if (strstr(r->err, "libmpi")) print_error("the loader: ...%.160s\n", strstr(r->err, "libmpi"));
    assert_null(strstr(r->err, "libmpi"));
    r = cli_run_env(launcher_env(trace), "sweep", "simplest", "--grid", "gamma=0.005:0.01:3", TOLS, "--out",
                    dir("no-launcher"), "-q", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "libc.so.6"));
    assert_null(strstr(r->err, "libmpi"));
}

/* --guess starts the sweep on the other gait: the simplest walker's short,
 * unstable one (Garcia et al. 1998: max |eigenvalue| 4.0 at gamma 0.009). */
static void a_guess_chooses_the_branch_the_sweep_follows(void **state)
{
    (void)state;
    const char *d = dir("guess");
    assert_int_equal(cli_run("sweep", "simplest", "--grid", "gamma=0.008:0.01:3", "--guess", "0.19,-0.2,0.38,-0.01",
                         "--out", d, "-q", NULL)->status,
                     0);
    char path[400], line[8192];
    snprintf(path, sizeof path, "%s/sweep.csv", d);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        assert_non_null(strstr(line, ",unstable,ok,"));
        if (strncmp(line, "1,", 2) == 0) {
            char *c = line;
            for (int k = 0; k < 7; k++) c = strchr(c, ',') + 1; /* max_abs_eig */
            assert_close(strtod(c, NULL), 4.0, 0.01);
        }
        n++;
    }
    fclose(f);
    assert_int_equal(n, 3);
    cli_expect_error(cli_run("sweep", "simplest", "--grid", "gamma=0.008:0.01:3", "--guess", "0.19,-0.2", "--out", d, NULL),
                 65, "needs 4");
}

/* A model of many parameters (human9 has 250) records its settings in a
 * signature longer than the 8 KiB the sweep once kept for it (it then
 * refused the sweep); its rows are the unpadded model's. */
static void a_model_of_many_parameters_sweeps(void **state)
{
    (void)state;
    const char *d = dir("many"), *ref = dir("many-ref");
    const test_path model = in_dir(base_dir, "many.yaml");
    FILE *in = fopen(SM_SOURCE_DIR "/models/compass.yaml", "r"), *out = fopen(model.s, "w");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fprintf(out, "\nparameters:\n");
    for (int k = 0; k < 200; k++)
        fprintf(out, "  unused_parameter_number_%03d: {value: 0.123456789, min: -1, max: 1, unit: m, description: x}\n", k);
    assert_int_equal(fclose(out), 0);
    assert_int_equal(cli_run("sweep", model.s, "--grid", "slope=0.05:0.06:2", "--out", d, "-q", NULL)->status, 0);
    struct stat sb;
    assert_int_equal(stat(in_dir(d, "part-local.sig").s, &sb), 0);
    assert_true(sb.st_size > 8192);
    assert_int_equal(cli_run("sweep", SM_SOURCE_DIR "/models/compass.yaml", "--grid", "slope=0.05:0.06:2", "--out", ref,
                             "-q", NULL)->status,
                     0);
    char *want = rows_of(ref, "sweep.csv");
    assert_rows(want, d, "sweep.csv");
    free(want);
}

static void help_has_an_example(void **state)
{
    (void)state;
    assert_int_equal(cli_run("sweep", "--help", NULL)->status, 0);
    assert_int_equal(cli_run("merge", "--help", NULL)->status, 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_sweep PATH-TO-STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    mpirun = argc > 2 ? argv[2] : NULL;
    if (mpirun) cmocka_set_test_filter("mpi_*"); /* the MPI suite runs only the MPI test */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_grids_get_one_line_and_a_sysexits_code),
        cmocka_unit_test(a_model_of_many_parameters_sweeps),
        cmocka_unit_test(an_unwritable_or_foreign_directory_is_refused_before_work),
        cmocka_unit_test(a_full_disk_is_refused_before_work),
        cmocka_unit_test(a_disk_full_mid_sweep_is_one_line),
        cmocka_unit_test(killed_with_sigkill_and_resumed_loses_nothing),
        cmocka_unit_test(a_second_sweep_on_the_same_directory_is_refused),
        cmocka_unit_test(sigterm_and_sigint_keep_every_finished_row),
        cmocka_unit_test(shards_merge_into_the_same_rows),
        cmocka_unit_test(the_sidecar_says_how_the_sweep_was_made),
        cmocka_unit_test(a_guess_chooses_the_branch_the_sweep_follows),
        cmocka_unit_test(a_build_without_mpi_refuses_an_mpi_launch),
        cmocka_unit_test(an_mpi_library_that_cannot_be_loaded_is_one_line),
        cmocka_unit_test(runs_without_a_launcher_never_load_libmpi),
        cmocka_unit_test(help_has_an_example),
        cmocka_unit_test(mpi_ranks_give_the_same_rows_and_resume),
    };
    return cmocka_run_group_tests_name("cli_sweep", tests, sweep_dir_setup, sweep_dir_teardown);
}
