/* Running the stridemap program from a CMocka test (header-only, static
 * functions), shared by the CLI tests: spawn it with arguments and an
 * environment, wait, and keep its exit status, stdout and stderr.  The
 * binary's path is cli_exe, which each test's main() sets from argv[1]. */
#ifndef STRIDEMAP_TEST_CLI_RUN_H
#define STRIDEMAP_TEST_CLI_RUN_H

#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

extern char **environ;

static const char *cli_exe;

typedef struct {
    int status;     /* exit code, or 128 + signal */
    bool signaled;  /* ended by a signal */
    char out[1 << 20];
    char err[1 << 14];
} cli_result;

/* buf = the file's first cap - 1 bytes ("" if it cannot be read). */
static inline void cli_slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

/* Starts prog (looked up in PATH without a slash) with the NULL-terminated
 * args after argv[0], stdout to out_path and stderr to err_path (NULL:
 * /dev/null), in env (NULL: this process's). */
static inline pid_t cli_spawn(const char *prog, const char *const *args, const char *out_path,
                              const char *err_path, char **env)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    const char *argv[64] = {prog};
    size_t n = 1;
    for (; args[n - 1] && n < 63; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid;
    assert_int_equal(posix_spawnp(&pid, prog, &fa, NULL, (char *const *)argv, env ? env : environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* Waits for pid and fills r from its status and the files it wrote (read
 * and removed; NULL: none). */
static inline void cli_finish(pid_t pid, const char *out_path, const char *err_path, cli_result *r)
{
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    r->signaled = !WIFEXITED(ws);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r->out[0] = r->err[0] = '\0';
    if (out_path) {
        cli_slurp(out_path, r->out, sizeof r->out);
        unlink(out_path);
    }
    if (err_path) {
        cli_slurp(err_path, r->err, sizeof r->err);
        unlink(err_path);
    }
}

/* Runs stridemap with the NULL-terminated arguments args in env; it must
 * exit, never crash.  The result lives until the next run. */
static inline cli_result *cli_run_argv(char **env, const char *const *args)
{
    static cli_result r;
    char out_path[] = "/tmp/sm_cli_outXXXXXX", err_path[] = "/tmp/sm_cli_errXXXXXX";
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    assert_true(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    cli_finish(cli_spawn(cli_exe, args, out_path, err_path, env), out_path, err_path, &r);
    if (r.signaled) print_error("killed by signal %d, stderr: %s\n", r.status - 128, r.err);
    assert_false(r.signaled); /* never a crash */
    return &r;
}

/* As cli_run_argv, with the arguments from first and ap (NULL-terminated). */
static inline cli_result *cli_run_va(char **env, const char *first, va_list ap)
{
    const char *args[64] = {first};
    size_t n = 1;
    while (n < 63 && (args[n] = va_arg(ap, const char *)) != NULL) n++;
    args[n] = NULL;
    return cli_run_argv(env, args);
}

static inline cli_result *cli_run_env(char **env, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    cli_result *r = cli_run_va(env, first, ap);
    va_end(ap);
    return r;
}

/* Runs stridemap with the NULL-terminated arguments. */
static inline cli_result *cli_run(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    cli_result *r = cli_run_va(NULL, first, ap);
    va_end(ap);
    return r;
}

static inline size_t cli_count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* An error is one line on stderr naming what to change, and a given code. */
static inline void cli_expect_error(const cli_result *r, int code, const char *needle)
{
    if (r->status != code || !strstr(r->err, needle)) print_error("exit %d, stderr: %s\n", r->status, r->err);
    assert_int_equal(r->status, code);
    assert_int_equal(cli_count_lines(r->err), 1);
    assert_non_null(strstr(r->err, needle));
}

#endif
