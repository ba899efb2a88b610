/* Running a sweep from the command line, for every command that is one
 * (sweep, basin): the options they share, the directory and sidecar checks,
 * signals, progress, MPI, the closing message and the merge. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sweep_cli.h"

static volatile sig_atomic_t stop_signal;

/* OpenBLAS's own threads only cost start-up time on 2x2 and 3x3 problems and
 * compete with the sweep's workers; set when OpenBLAS is the BLAS loaded. */
extern void openblas_set_num_threads(int n) __attribute__((weak));

static void on_signal(int sig) { stop_signal = sig; }

int sweep_run_option(cli_run *run, int opt, const char *arg, sweep_run_opts *o)
{
    switch (opt) {
    case OPT_OUT:
        o->out = arg;
        return 0;
    case OPT_SWEEP_JOBS:
        if (!cli_parse_long(arg, 1, 1024, &o->jobs))
            return cli_fail(run, EX_DATAERR, "--jobs takes a whole number from 1 to 1024, not '%s'", arg);
        return 0;
    case OPT_SWEEP_SHARD: {
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
    case OPT_SWEEP_RESUME:
        o->resume = true;
        return 0;
    case OPT_SWEEP_PROGRESS:
        o->progress = true;
        return 0;
    case OPT_SWEEP_QUIET:
        o->quiet = true;
        return 0;
    case OPT_GUESS:
        run->state_option = "--guess";
        run->state_text = arg;
        return 0;
    case OPT_SWEEP_SEGMENT:
        if (!cli_parse_long(arg, 1, 100000000L, &o->segment))
            return cli_fail(run, EX_DATAERR, "--segment takes a whole number from 1 to 100000000, not '%s'", arg);
        return 0;
    case OPT_SWEEP_STOP_AFTER:
        if (!cli_parse_long(arg, 1, 1000000000L, &o->stop_after))
            return cli_fail(run, EX_DATAERR, "--stop-after takes a whole number from 1 to 1000000000, not '%s'",
                            arg);
        return 0;
    default:
        return 1;
    }
}

void sweep_config_from_run(const cli_run *run, sm_sweep_config *c)
{
    sm_sweep_config_default(c, run->model);
    memcpy(c->params, run->params, sizeof c->params);
    c->solver = run->solver;
    c->newton = run->newton;
    c->have_guess = run->have_x0;
    memcpy(c->guess, run->x0, sizeof c->guess);
}

char **sweep_quiet_args(int argc, char **argv)
{
    /* -q is the one short option of its own; the shared parser knows "hs:". */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    for (int i = 0; args && i < argc; i++) args[i] = strcmp(argv[i], "-q") == 0 ? "--quiet" : argv[i];
    return args;
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

static void print_progress(const sweep_words *w, const sm_sweep_stats *st, double elapsed, bool tty, bool last)
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
    fprintf(stderr, "%s%s: %ld/%ld %s (%.0f%%), %ld %s, %.1f %s/s%s%s", tty ? "\r" : "", w->cmd,
            st->loaded + st->written, st->owned, w->points,
            st->owned ? 100.0 * (double)(st->loaded + st->written) / (double)st->owned : 100.0, st->failed, w->failed,
            rate, w->points, left, tty && !last ? "\033[K" : "\n");
    fflush(stderr);
}

int sweep_run(cli_run *run, sm_sweep_config *c, const sweep_run_opts *o, const sweep_words *w, json_t *extra,
              int argc, char **argv)
{
    if (!o->out) return cli_fail(run, EX_USAGE, "where to? give --out DIR");
    c->jobs = (int)(o->jobs ? o->jobs : default_jobs());
    c->shard_k = o->shard_k;
    c->shard_n = o->shard_n;
    c->stop_after = o->stop_after;
    c->segment = o->segment;
    c->stop = &stop_signal;

    sweep_mpi mpi;
    int rc = sweep_mpi_begin(run, &mpi, o->shard_n > 1);
    if (rc) return rc;
    if (mpi.size > 1 && o->shard_n > 1) {
        sweep_mpi_end(&mpi);
        return cli_fail(run, EX_USAGE, "--shard and MPI ranks do not mix; use one or the other");
    }
    char tag[96];
    if (mpi.size > 1) {
        snprintf(tag, sizeof tag, "rank-%d-of-%d", mpi.rank, mpi.size);
        c->external_lines = true;
    } else if (o->shard_n > 1) {
        snprintf(tag, sizeof tag, "shard-%ld-of-%ld", o->shard_k, o->shard_n);
    } else {
        snprintf(tag, sizeof tag, "local");
    }

    /* A file-size limit (ulimit -f) or quota becomes a write error with a
     * message, not a kill by SIGXFSZ. */
    signal(SIGXFSZ, SIG_IGN);
    json_t *sidecar = sweep_sidecar(run, c, argc, argv, tag, o->resume, extra);
    sweep_mpi_describe(&mpi, json_object_get(sidecar, "run"));
    rc = sweep_check_sidecars(run, o->out, sidecar);
    sm_sweep *s = NULL;
    char why[1024];
    if (!rc) {
        sm_status st = sm_sweep_open(c, o->out, tag, o->resume, &s, why, sizeof why);
        /* The help promises 73 for every DIR that cannot take this sweep
         * (not writable, another sweep in it, in use): the refusals of a
         * bad DIR are output failures here, whatever their status. */
        if (st != SM_OK)
            rc = cli_fail(run, sm_status_kind(st) == SM_KIND_INPUT ? EX_CANTCREAT : cli_exit_code(st, EX_CANTCREAT),
                          "%s", why);
    }
    if (!rc) rc = sweep_write_sidecar(run, o->out, tag, sidecar, NULL, 0);
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
    const bool show = !o->quiet && (o->progress || tty) && mpi.rank == 0;
    if (openblas_set_num_threads) openblas_set_num_threads(1);
    const double t0 = now_seconds();
    sm_status st = sm_sweep_start(s, why, sizeof why);
    double last_print = 0;
    sm_sweep_stats stats;
    for (;;) {
        sm_sweep_stats_get(s, &stats);
        if (stats.finished) break;
        if (mpi.size > 1) {
            sweep_mpi_pump(&mpi, s, c, stop_signal != 0);
        } else {
            struct timespec nap = {0, 50 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        double t = now_seconds();
        sweep_mpi_totals(&mpi, &stats);
        if (show && t - last_print >= (tty ? 0.5 : 5.0)) {
            print_progress(w, &stats, t - t0, tty, false);
            last_print = t;
        }
    }
    if (st == SM_OK) st = sm_sweep_wait(s, why, sizeof why);
    sm_sweep_stats_get(s, &stats);
    const double elapsed = now_seconds() - t0;
    /* Under MPI a rank's share is whatever rank 0 handed it; it is complete
     * when it ran out of lines without an error or a signal. */
    const bool complete = st == SM_OK && !stop_signal && !stats.stopped &&
                          (c->external_lines || stats.loaded + stats.written == stats.owned);
    json_object_set_new(sidecar, "rows_written", json_integer(stats.written));
    json_object_set_new(sidecar, w->failed_key, json_integer(stats.failed));
    json_object_set_new(sidecar, "seconds", json_real(elapsed));
    json_object_set_new(sidecar, "complete", json_boolean(complete));
    /* Not printed here: on a full disk the rows' write error comes first, and
     * one line is all a user should have to read. */
    char side_why[1024] = "";
    const int side_rc = sweep_write_sidecar(run, o->out, tag, sidecar, side_why, sizeof side_why);
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
                 stop_signal == SIGINT ? "SIGINT" : "SIGTERM", stats.written, o->out);
    } else if (!complete && o->stop_after) {
        rc = EX_TEMPFAIL;
        snprintf(msg, sizeof msg, "stopped after %ld rows (--stop-after); run again with --resume", o->stop_after);
    } else if (!complete) {
        rc = EX_SOFTWARE;
        snprintf(msg, sizeof msg, "stopped with %ld of %ld %s missing; run again with --resume",
                 stats.owned - stats.loaded - stats.written, stats.owned, w->points);
    } else if (side_rc) {
        rc = side_rc;
        snprintf(msg, sizeof msg, "%s (every row is kept; fix that and run again with --resume to finish)",
                 side_why);
    }
    int worst = sweep_mpi_finish(&mpi, rc, &stats);
    sweep_mpi_totals(&mpi, &stats);
    if (show) print_progress(w, &stats, elapsed, tty, true);
    if (msg[0]) cli_fail(run, rc, "%s", msg);
    rc = worst;
    if (rc == 0 && o->shard_n == 1 && mpi.rank == 0) rc = cli_merge_dir(run, o->out, true);
    if (rc == 0 && o->shard_n == 1 && mpi.rank == 0 && w->after_merge) rc = w->after_merge(run, o->out);
    /* Only now: the part file stays locked until its sidecar and the merge are written. */
    sm_sweep_free(s);
    sweep_mpi_end(&mpi);
    return rc;
}
