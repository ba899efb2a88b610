/* What the tests of the sweep-style commands (sweep, sweep --disturb,
 * basin; test_control_state's sweep) share (header-only, static functions,
 * after cli_run.h): the group's directory and a run's rows
 * (sweep_dir.h); a run killed with SIGKILL part-way and resumed; a run
 * under mpirun.  The binary is cli_exe, as for cli_run.h. */
#ifndef STRIDEMAP_TEST_SWEEP_HARNESS_H
#define STRIDEMAP_TEST_SWEEP_HARNESS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_run.h"
#include "sweep_dir.h"

/* Lines of the file at path (0 if there is none yet). */
static inline long lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long n = 0;
    for (int c; (c = fgetc(f)) != EOF;) n += c == '\n';
    fclose(f);
    return n;
}

/* Starts prog (NULL: cli_exe) with the NULL-terminated args, stderr to
 * err_path (NULL: none), and waits, 20 s at the most, until the file at
 * path has `lines` lines: a run caught part-way.  Returns its pid. */
static inline pid_t spawn_until_lines(const char *prog, const char *const *args, const char *err_path,
                                      const char *path, long lines)
{
    const pid_t pid = cli_spawn(prog ? prog : cli_exe, args, NULL, err_path, NULL);
    const struct timespec nap = {0, 1000 * 1000};
    for (int i = 0; i < 20000 && lines_in(path) < lines; i++) nanosleep(&nap, NULL);
    return pid;
}

/* The words of head then those of the NULL-terminated list, into
 * out[cap] (NULL-terminated). */
static inline void words_then(const char **out, size_t cap, const char *const *head, ...)
{
    size_t n = 0;
    for (; head && *head && n + 1 < cap; head++) out[n++] = *head;
    va_list ap;
    va_start(ap, head);
    for (const char *w; (w = va_arg(ap, const char *)) != NULL && n + 1 < cap;) out[n++] = w;
    va_end(ap);
    assert_true(n + 1 < cap); /* nothing was cut */
    out[n] = NULL;
}

/* A run of args (the command and its settings, NULL-terminated, without
 * --jobs, --out, --resume) into DIR/csv, points rows in all: run whole on
 * two threads into one directory, and on one thread into another, killed
 * with SIGKILL once its part-local.csv holds at least `at` rows, then
 * resumed on two threads.  The resumed run computes only what is missing
 * and ends with the unbroken run's rows. */
static inline void killed_and_resumed_loses_nothing(const char *const *args, const char *csv, long points, long at)
{
    const char *ref = dir("kill-ref"), *cut = dir("killed");
    const char *words[64];
    words_then(words, 64, args, "--jobs", "2", "--out", ref, "-q", NULL);
    cli_result *r = cli_run_argv(NULL, words);
    if (r->status) print_error("%s\n", r->err);
    assert_int_equal(r->status, 0);
    char *want = rows_of(ref, csv);

    const test_path part = in_dir(cut, "part-local.csv");
    words_then(words, 64, args, "--jobs", "1", "--out", cut, "-q", NULL);
    const pid_t pid = spawn_until_lines(NULL, words, NULL, part.s, at + 1);
    kill(pid, SIGKILL);
    static cli_result killed;
    cli_finish(pid, NULL, NULL, &killed);
    assert_int_equal(killed.status, 128 + SIGKILL);
    const long kept = lines_in(part.s) - 1;
    if (!(kept >= at && kept < points)) print_error("killed with %ld of %ld rows written\n", kept, points);
    assert_true(kept >= at && kept < points);

    words_then(words, 64, args, "--jobs", "2", "--resume", "--out", cut, "-q", NULL);
    r = cli_run_argv(NULL, words);
    if (r->status) print_error("%s\n", r->err);
    assert_int_equal(r->status, 0);
    assert_int_equal(lines_in(part.s), points + 1); /* nothing computed twice */
    assert_rows(want, cut, csv);
    free(want);
}

/* mpirun -np ranks stridemap ARGS (NULL-terminated): its exit status; its
 * stderr is printed unless it is 0 or 75 (stopped by --stop-after). */
static inline int mpi_run(const char *mpirun, const char *ranks, const char *const *args)
{
    const char *words[64] = {"--oversubscribe", "--allow-run-as-root", "-np", ranks, cli_exe};
    size_t n = 5;
    for (; *args && n + 1 < 64; args++) words[n++] = *args;
    assert_null(*args); /* nothing was cut */
    words[n] = NULL;
    const test_path err = in_dir(base_dir, "stderr-mpi");
    static cli_result r;
    cli_finish(cli_spawn(mpirun, words, NULL, err.s, NULL), NULL, err.s, &r);
    if (r.status != 0 && r.status != 75) print_error("mpirun: exit %d: %s\n", r.status, r.err);
    return r.status;
}

#endif
