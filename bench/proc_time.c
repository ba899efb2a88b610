/* proc_time: whole-process time of a command, or of two in turn.
 *
 *   proc_time N CMD [ARG...] [--vs CMD2 [ARG...]]
 *
 * Runs CMD N times (CMD and CMD2 alternately with --vs: A B A B ..., after
 * three warm-up runs each), output to /dev/null, and prints the minimum and
 * median wall time and the median CPU time (user + system, from wait4) of
 * each, and with --vs the median of the N pair-by-pair ratios A/B, which
 * holds while a shared machine's speed drifts.  No shell: the commands are
 * spawned directly (give the full path), in this environment. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One run of argv: wall and CPU milliseconds.  Exits on a failed start. */
static void run(char **argv, double *wall_ms, double *cpu_ms)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        fprintf(stderr, "proc_time: cannot start %s (give its full path)\n", argv[0]);
        exit(66);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("proc_time: wait4");
        exit(71);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    posix_spawn_file_actions_destroy(&fa);
    *wall_ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
    *cpu_ms = 1e3 * (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              1e-3 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void report(const char *name, double *wall, double *cpu, int n)
{
    double w[n], c[n];
    memcpy(w, wall, sizeof w);
    memcpy(c, cpu, sizeof c);
    const double med_w = median(w, n);
    printf("%s  wall ms: min %.3f median %.3f   cpu ms: median %.3f\n", name, w[0], med_w, median(c, n));
}

int main(int argc, char **argv)
{
    const int n = argc > 2 ? atoi(argv[1]) : 0;
    if (n < 1 || n > 100000) {
        fprintf(stderr, "usage: proc_time N CMD [ARG...] [--vs CMD2 [ARG...]]\n");
        return 64;
    }
    char **a = argv + 2, **b = NULL;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--vs") == 0) {
            argv[i] = NULL;
            b = argv + i + 1;
            if (!*b || !*a) {
                fprintf(stderr, "proc_time: a command on each side of --vs\n");
                return 64;
            }
        }
    double *wa = calloc((size_t)n, sizeof *wa), *ca = calloc((size_t)n, sizeof *ca);
    double *wb = calloc((size_t)n, sizeof *wb), *cb = calloc((size_t)n, sizeof *cb);
    double *ratio = calloc((size_t)n, sizeof *ratio);
    if (!wa || !ca || !wb || !cb || !ratio) return 71;
    double w, c;
    for (int i = 0; i < 3; i++) {
        run(a, &w, &c);
        if (b) run(b, &w, &c);
    }
    for (int i = 0; i < n; i++) {
        run(a, &wa[i], &ca[i]);
        if (b) {
            run(b, &wb[i], &cb[i]);
            ratio[i] = wa[i] / wb[i];
        }
    }
    report("A", wa, ca, n);
    if (b) {
        report("B", wb, cb, n);
        printf("A/B wall: median of %d pairs %.3f\n", n, median(ratio, n));
    }
    return 0;
}
