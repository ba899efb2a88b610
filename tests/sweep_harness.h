/* What the tests of the sweep-style commands (sweep, sweep --disturb,
 * basin; test_control_state's sweep) share (header-only, static functions,
 * after cli_run.h): a temporary directory for the test group, made by its
 * setup and removed by its teardown; the rows of a run's CSV without the
 * wall-clock column, the one field that differs between two runs of the
 * same points; a run killed with SIGKILL part-way and resumed; a run under
 * mpirun.  The binary is cli_exe, as for cli_run.h. */
#ifndef STRIDEMAP_TEST_SWEEP_HARNESS_H
#define STRIDEMAP_TEST_SWEEP_HARNESS_H

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_run.h"

/* The group's directory: made by sweep_dir_setup, removed with all it holds
 * by sweep_dir_teardown. */
static char base_dir[] = "/tmp/sm_test_sweepXXXXXX";

/* A path by value, so that it lives as long as the caller wants it. */
typedef struct {
    char s[512];
} test_path;

static inline test_path in_dir(const char *d, const char *name)
{
    test_path p;
    const int n = snprintf(p.s, sizeof p.s, "%s/%s", d, name);
    assert_true(n > 0 && (size_t)n < sizeof p.s);
    return p;
}

/* base_dir/name, in one of eight rotating buffers: a name taken for a run
 * and the paths built from it in the next few lines. */
static inline const char *dir(const char *name)
{
    static test_path buf[8];
    static int k;
    k = (k + 1) % 8;
    buf[k] = in_dir(base_dir, name);
    return buf[k].s;
}

static inline int sweep_dir_setup(void **state)
{
    (void)state;
    return mkdtemp(base_dir) ? 0 : -1;
}

static inline int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline int sweep_dir_teardown(void **state)
{
    (void)state;
    return nftw(base_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

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

/* The place of the header's column name counted from its last field (0:
 * the last), or -1. */
static inline long field_from_end(const char *header, const char *name)
{
    const size_t len = strlen(name);
    long place = -1;
    for (const char *f = header; f; f = strchr(f, ',')) {
        if (*f == ',') f++;
        if (strncmp(f, name, len) == 0 && (f[len] == ',' || f[len] == '\0')) place = 0;
        else if (place >= 0) place++;
    }
    return place;
}

/* The comma before p in line, or NULL. */
static inline char *comma_before(char *line, char *p)
{
    while (p > line)
        if (*--p == ',') return p;
    return NULL;
}

/* Removes from line (no '\n') its field `from_end` places before the last,
 * with the comma before it; the fields after it must hold no comma (plain
 * numbers, never quoted text). */
static inline void drop_field(char *line, long from_end)
{
    char *hi = line + strlen(line);
    for (long k = 0; k < from_end && hi; k++) hi = comma_before(line, hi);
    char *lo = hi ? comma_before(line, hi) : NULL;
    assert_non_null(lo);
    memmove(lo, hi, strlen(hi) + 1);
}

/* The rows of DIR/csv, header included, without the column wall_s (the
 * run's wall-clock seconds, which the file must have), each line ending in
 * '\n'; free() it. */
static inline char *rows_of(const char *d, const char *csv)
{
    const test_path path = in_dir(d, csv);
    FILE *f = fopen(path.s, "r");
    if (!f) print_error("no %s\n", path.s);
    assert_non_null(f);
    /* grown by hand, not by open_memstream: GCC 12 takes the stream's hold
     * on a local's address for a dangling pointer in every caller */
    char *line = NULL;
    size_t cap = 0, used = 0, room = 4096;
    char *text = malloc(room);
    assert_non_null(text);
    text[0] = '\0';
    long wall = -1;
    for (ssize_t len; (len = getline(&line, &cap, f)) > 0;) {
        if (line[len - 1] == '\n') line[len - 1] = '\0';
        if (wall < 0) {
            wall = field_from_end(line, "wall_s");
            if (wall < 0) print_error("%s: no column wall_s in %s\n", path.s, line);
            assert_true(wall >= 0);
        }
        drop_field(line, wall);
        const size_t n = strlen(line);
        if (used + n + 2 > room) {
            while (used + n + 2 > room) room *= 2;
            text = realloc(text, room);
            assert_non_null(text);
        }
        memcpy(text + used, line, n);
        used += n;
        text[used++] = '\n';
        text[used] = '\0';
    }
    free(line);
    fclose(f);
    return text;
}

/* DIR/csv holds the rows want (rows_of), to the last digit. */
static inline void assert_rows(const char *want, const char *d, const char *csv)
{
    char *got = rows_of(d, csv);
    assert_string_equal(want, got);
    free(got);
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
