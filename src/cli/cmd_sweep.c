/* stridemap sweep: the gait and its stability over a grid of parameters. */
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sweep_cli.h"

static const char help[] =
    "usage: stridemap sweep MODEL --grid NAME=LO:HI:N [--grid NAME=LO:HI:N]... --out DIR\n"
    "                       [--set NAME=VALUE]... [--period N] [--two-step] [--jobs N] [--shard K/N]\n"
    "                       [--guess v1,v2,...] [--segment S] [--resume] [--progress | -q]\n"
    "                       [solver and Newton options of 'fixed']\n"
    "\n"
    "Finds the gait (a fixed point of the stride map) and its stability at every\n"
    "point of a grid of parameters.  Each point starts from the last converged\n"
    "point before it on its grid line (along the first --grid axis); the first\n"
    "point of each line from the first point of the line before.  The order does\n"
    "not depend on threads, shards or MPI ranks, so neither do the rows.\n"
    "\n"
    "  --grid NAME=LO:HI:N  sweep parameter NAME over N evenly spaced values (repeatable;\n"
    "                    the first axis varies fastest)\n"
    "  --out DIR         write DIR/part-TAG.csv (a row per point, as soon as it is done),\n"
    "                    DIR/part-TAG.json (the run), and at the end DIR/sweep.csv (all rows,\n"
    "                    sorted by index) with DIR/sweep.json\n"
    "  --set NAME=VALUE  fix a parameter that is not swept\n"
    "  --guess LIST      start points that have no converged neighbour from this full\n"
    "                    state (as in 'fixed'; default: the model's guess at each point)\n"
    "  --jobs N          worker threads (default: SLURM_CPUS_PER_TASK, else every core)\n"
    "  --segment S       cut each grid line into units of work of S points, each seeded\n"
    "                    like a line from its own first point (more units for many cores;\n"
    "                    default: whole lines)\n"
    "  --shard K/N       compute only grid lines l with l % N == K (0 <= K < N), e.g. one\n"
    "                    task of a SLURM job array; join the parts with 'stridemap merge DIR'\n"
    "  --resume          keep every row already in DIR and compute only what is missing\n"
    "                    (a torn last line is redone)\n"
    "  --progress        a progress line on stderr even when it is not a terminal\n"
    "  -q, --quiet       no progress line\n"
    "  --period, --two-step, --rtol, --atol, --method, --max-order, --tol, --max-iter, --fd-step,\n"
    "  --central, --newton-update, --jacobian, --tmax, --max-step   as in 'stridemap fixed'\n"
    "\n"
    "Columns: index, the swept parameters, outcome (stable, unstable, fell,\n"
    "not_converged, no_stability, degenerate), status, stride_status, converged, stable,\n"
    "max_abs_eig, eigK_re, eigK_im, iterations, residual, stride_evals, the gait\n"
    "measures, x_STATE (the fixed point), seed (neighbour, guess, guess_retry), wall_s,\n"
    "trivial_eig (K of the eigK that is 1 by a conservation law, e.g. slip's energy,\n"
    "or along a family the model picks a member of, e.g. rimless3d's heading, and so\n"
    "left out of max_abs_eig and stable; 0 for none).\n"
    "\n"
    "SIGINT or SIGTERM stops after the points in progress; every finished row is\n"
    "kept.  Run the same command with --resume to finish.\n"
    "\n"
    "exit status: 0 every point done, 64 bad usage, 65 bad values, 73 DIR not\n"
    "writable, holds another sweep, or another run is writing the same part file\n"
    "now, 69 started by mpirun/srun as one of several ranks but built without MPI\n"
    "(rebuild with MPI) or without a loadable OpenMPI (STRIDEMAP_MPI_LIB names its\n"
    "libmpi.so.40), 74 write error, 130/143 interrupted.\n"
    "\n"
    "examples:\n"
    "  stridemap sweep simplest --grid gamma=0.001:0.015:50 --out sweep-gamma\n"
    "  stridemap sweep compass --set m=1 --set a=1 --grid b=0.1:2:50 --grid mh=0.1:10:50 \\\n"
    "      --jobs 8 --out compass-map\n";

enum { OPT_GRID = 2000, OPT_JOBS, OPT_SHARD, OPT_RESUME, OPT_PROGRESS, OPT_QUIET, OPT_STOP_AFTER, OPT_SEGMENT };

static volatile sig_atomic_t stop_signal;

/* OpenBLAS's own threads only cost start-up time on 2x2 and 3x3 problems and
 * compete with the sweep's workers; set when OpenBLAS is the BLAS loaded. */
extern void openblas_set_num_threads(int n) __attribute__((weak));

static void on_signal(int sig) { stop_signal = sig; }

typedef struct {
    const char *grids[SM_SWEEP_MAX_AXES + 1];
    size_t n_grids;
    const char *out;
    long jobs;
    long shard_k, shard_n;
    bool resume, progress, quiet;
    long stop_after;
    long segment;
} sweep_opts;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    sweep_opts *o = ctx;
    switch (opt) {
    case OPT_GRID:
        if (o->n_grids == SM_SWEEP_MAX_AXES)
            return cli_fail(run, EX_USAGE, "at most %d --grid axes", SM_SWEEP_MAX_AXES);
        o->grids[o->n_grids++] = arg;
        return 0;
    case OPT_OUT:
        o->out = arg;
        return 0;
    case OPT_JOBS:
        if (!cli_parse_long(arg, 1, 1024, &o->jobs))
            return cli_fail(run, EX_DATAERR, "--jobs takes a whole number from 1 to 1024, not '%s'", arg);
        return 0;
    case OPT_SHARD: {
        char *slash = strchr(arg, '/');
        char k[32];
        if (!slash || (size_t)(slash - arg) >= sizeof k)
            return cli_fail(run, EX_DATAERR, "--shard takes K/N (e.g. 0/8), not '%s'", arg);
        memcpy(k, arg, (size_t)(slash - arg));
        k[slash - arg] = '\0';
        if (!cli_parse_long(k, 0, 1000000, &o->shard_k) || !cli_parse_long(slash + 1, 1, 1000000, &o->shard_n) ||
            o->shard_k >= o->shard_n)
            return cli_fail(run, EX_DATAERR, "--shard K/N needs whole numbers with 0 <= K < N <= 1000000, not '%s'",
                            arg);
        return 0;
    }
    case OPT_RESUME:
        o->resume = true;
        return 0;
    case OPT_PROGRESS:
        o->progress = true;
        return 0;
    case OPT_QUIET:
        o->quiet = true;
        return 0;
    case OPT_GUESS:
        run->state_option = "--guess";
        run->state_text = arg;
        return 0;
    case OPT_SEGMENT:
        if (!cli_parse_long(arg, 1, 100000000L, &o->segment))
            return cli_fail(run, EX_DATAERR, "--segment takes a whole number from 1 to 100000000, not '%s'", arg);
        return 0;
    case OPT_STOP_AFTER:
        if (!cli_parse_long(arg, 1, 1000000000L, &o->stop_after))
            return cli_fail(run, EX_DATAERR, "--stop-after takes a whole number from 1 to 1000000000, not '%s'",
                            arg);
        return 0;
    default:
        return 1;
    }
}

static long default_jobs(void)
{
    const char *slurm = getenv("SLURM_CPUS_PER_TASK");
    long n;
    if (slurm && cli_parse_long(slurm, 1, 1024, &n)) return n;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void print_progress(const sm_sweep_stats *st, double elapsed, bool tty, bool last)
{
    const long todo = st->owned - st->loaded;
    const double rate = elapsed > 0 ? (double)st->written / elapsed : 0;
    char left[64] = "";
    if (rate > 0 && !last) {
        double s = (double)(todo - st->written) / rate;
        if (s < 120)
            snprintf(left, sizeof left, ", %.0f s left", s);
        else if (s < 7200)
            snprintf(left, sizeof left, ", %.0f min left", s / 60);
        else
            snprintf(left, sizeof left, ", %.1f h left", s / 3600);
    }
    fprintf(stderr, "%ssweep: %ld/%ld points (%.0f%%), %ld without a gait, %.1f points/s%s%s",
            tty ? "\r" : "", st->loaded + st->written, st->owned,
            st->owned ? 100.0 * (double)(st->loaded + st->written) / (double)st->owned : 100.0, st->failed,
            rate, left, tty && !last ? "\033[K" : "\n");
    fflush(stderr);
}

int cmd_sweep(int argc, char **argv)
{
    /* -q is the one short option of its own; the shared parser knows "hs:". */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) return EX_OSERR;
    for (int i = 0; i < argc; i++) args[i] = strcmp(argv[i], "-q") == 0 ? "--quiet" : argv[i];

    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "sweep");
    sweep_opts o = {.jobs = 0, .shard_k = 0, .shard_n = 1};
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"grid", required_argument, 0, OPT_GRID},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {"jobs", required_argument, 0, OPT_JOBS},
                                         {"shard", required_argument, 0, OPT_SHARD},
                                         {"resume", no_argument, 0, OPT_RESUME},
                                         {"progress", no_argument, 0, OPT_PROGRESS},
                                         {"quiet", no_argument, 0, OPT_QUIET},
                                         {"stop-after", required_argument, 0, OPT_STOP_AFTER},
                                         {"segment", required_argument, 0, OPT_SEGMENT},
                                         {"guess", required_argument, 0, OPT_GUESS},
                                         {"period", required_argument, 0, OPT_PERIOD},
                                         {"two-step", no_argument, 0, OPT_TWO_STEP},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"max-iter", required_argument, 0, OPT_MAX_ITER},
                                         {"fd-step", required_argument, 0, OPT_FD_STEP},
                                         {"central", no_argument, 0, OPT_CENTRAL},
                                         {"newton-update", required_argument, 0, OPT_NEWTON_UPDATE},
                                         {"jacobian", required_argument, 0, OPT_JACOBIAN},
                                         {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, args, opts, help, own_option, &o, false);
    if (rc) {
        free(args);
        return rc == CLI_DONE ? 0 : rc;
    }
    free(args);
    const sm_model *m = run.model;

    sm_sweep_config c;
    sm_sweep_config_default(&c, m);
    memcpy(c.params, run.params, sizeof c.params);
    c.solver = run.solver;
    c.newton = run.newton;
    c.have_guess = run.have_x0;
    memcpy(c.guess, run.x0, sizeof c.guess);
    if (o.n_grids == 0)
        return cli_fail(&run, EX_USAGE, "which parameters? give at least one --grid NAME=LO:HI:N");
    char why[1024];
    for (size_t i = 0; i < o.n_grids; i++) {
        sm_sweep_axis a;
        sm_status st = sm_sweep_axis_parse(m, o.grids[i], &a, why, sizeof why);
        if (st == SM_OK) st = sm_sweep_grid_add(&c.grid, &a, why, sizeof why);
        if (st != SM_OK) return cli_fail(&run, cli_exit_code(st, EX_IOERR), "%s", why);
        for (size_t k = 0; k < run.n_sets; k++) {
            size_t len = strlen(a.name);
            if (strncmp(run.sets[k], a.name, len) == 0 && run.sets[k][len] == '=')
                return cli_fail(&run, EX_USAGE, "'%s' is both fixed (--set) and swept (--grid); choose one",
                                a.name);
        }
    }
    if (!o.out) return cli_fail(&run, EX_USAGE, "where to? give --out DIR");
    c.jobs = (int)(o.jobs ? o.jobs : default_jobs());
    c.shard_k = o.shard_k;
    c.shard_n = o.shard_n;
    c.stop_after = o.stop_after;
    c.segment = o.segment;
    c.stop = &stop_signal;

    sweep_mpi mpi;
    rc = sweep_mpi_begin(&run, &mpi, o.shard_n > 1);
    if (rc) return rc;
    if (mpi.size > 1 && o.shard_n > 1) {
        sweep_mpi_end(&mpi);
        return cli_fail(&run, EX_USAGE, "--shard and MPI ranks do not mix; use one or the other");
    }
    char tag[96];
    if (mpi.size > 1) {
        snprintf(tag, sizeof tag, "rank-%d-of-%d", mpi.rank, mpi.size);
        c.external_lines = true;
    } else if (o.shard_n > 1) {
        snprintf(tag, sizeof tag, "shard-%ld-of-%ld", o.shard_k, o.shard_n);
    } else {
        snprintf(tag, sizeof tag, "local");
    }

    /* A file-size limit (ulimit -f) or quota becomes a write error with a
     * message, not a kill by SIGXFSZ. */
    signal(SIGXFSZ, SIG_IGN);
    json_t *sidecar = sweep_sidecar(&run, &c, argc, argv, tag, o.resume);
    sweep_mpi_describe(&mpi, json_object_get(sidecar, "run"));
    rc = sweep_check_sidecars(&run, o.out, sidecar);
    sm_sweep *s = NULL;
    if (!rc) {
        sm_status st = sm_sweep_open(&c, o.out, tag, o.resume, &s, why, sizeof why);
        /* The help promises 73 for every DIR that cannot take this sweep
         * (not writable, another sweep in it, in use): the refusals of a
         * bad DIR are output failures here, whatever their status. */
        if (st != SM_OK)
            rc = cli_fail(&run, sm_status_kind(st) == SM_KIND_INPUT ? EX_CANTCREAT : cli_exit_code(st, EX_CANTCREAT),
                          "%s", why);
    }
    if (!rc) rc = sweep_write_sidecar(&run, o.out, tag, sidecar, NULL, 0);
    if (rc) {
        json_decref(sidecar);
        sm_sweep_free(s);
        sweep_mpi_end(&mpi);
        return rc;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    const bool tty = isatty(STDERR_FILENO);
    const bool show = !o.quiet && (o.progress || tty) && mpi.rank == 0;
    if (openblas_set_num_threads) openblas_set_num_threads(1);
    const double t0 = now_seconds();
    sm_status st = sm_sweep_start(s, why, sizeof why);
    double last_print = 0;
    sm_sweep_stats stats;
    for (;;) {
        sm_sweep_stats_get(s, &stats);
        if (stats.finished) break;
        if (mpi.size > 1) {
            sweep_mpi_pump(&mpi, s, &c, stop_signal != 0);
        } else {
            struct timespec nap = {0, 50 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        double t = now_seconds();
        sweep_mpi_totals(&mpi, &stats);
        if (show && t - last_print >= (tty ? 0.5 : 5.0)) {
            print_progress(&stats, t - t0, tty, false);
            last_print = t;
        }
    }
    if (st == SM_OK) st = sm_sweep_wait(s, why, sizeof why);
    sm_sweep_stats_get(s, &stats);
    const double elapsed = now_seconds() - t0;
    /* Under MPI a rank's share is whatever rank 0 handed it; it is complete
     * when it ran out of lines without an error or a signal. */
    const bool complete = st == SM_OK && !stop_signal && !stats.stopped &&
                          (c.external_lines || stats.loaded + stats.written == stats.owned);
    json_object_set_new(sidecar, "rows_written", json_integer(stats.written));
    json_object_set_new(sidecar, "rows_without_gait", json_integer(stats.failed));
    json_object_set_new(sidecar, "seconds", json_real(elapsed));
    json_object_set_new(sidecar, "complete", json_boolean(complete));
    /* Not printed here: on a full disk the rows' write error comes first, and
     * one line is all a user should have to read. */
    char side_why[1024] = "";
    const int side_rc = sweep_write_sidecar(&run, o.out, tag, sidecar, side_why, sizeof side_why);
    json_decref(sidecar);

    /* The last progress line first, then at most one message. */
    char msg[1400] = "";
    rc = 0;
    if (st != SM_OK) {
        rc = EX_IOERR;
        snprintf(msg, sizeof msg, "%s (finished rows are kept; fix it and run again with --resume)", why);
    } else if (stop_signal) {
        rc = 128 + stop_signal;
        snprintf(msg, sizeof msg,
                 "interrupted by %s: %ld rows written, every finished row kept in '%s'; run the same "
                 "command with --resume to finish",
                 stop_signal == SIGINT ? "SIGINT" : "SIGTERM", stats.written, o.out);
    } else if (!complete && o.stop_after) {
        rc = EX_TEMPFAIL;
        snprintf(msg, sizeof msg, "stopped after %ld rows (--stop-after); run again with --resume", o.stop_after);
    } else if (!complete) {
        rc = EX_SOFTWARE;
        snprintf(msg, sizeof msg, "stopped with %ld of %ld points missing; run again with --resume",
                 stats.owned - stats.loaded - stats.written, stats.owned);
    } else if (side_rc) {
        rc = side_rc;
        snprintf(msg, sizeof msg, "%s (every row is kept; fix that and run again with --resume to finish)",
                 side_why);
    }
    int worst = sweep_mpi_finish(&mpi, rc, &stats);
    sweep_mpi_totals(&mpi, &stats);
    if (show) print_progress(&stats, elapsed, tty, true);
    if (msg[0]) cli_fail(&run, rc, "%s", msg);
    rc = worst;
    if (rc == 0 && o.shard_n == 1 && mpi.rank == 0) rc = cli_merge_dir(&run, o.out, true);
    /* Only now: the part file stays locked until its sidecar and the merge are written. */
    sm_sweep_free(s);
    sweep_mpi_end(&mpi);
    return rc;
}
