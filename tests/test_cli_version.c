/* 'stridemap --version' names the SUNDIALS and OpenBLAS the program really
 * runs with: the SUNDIALS file is the loader's answer, checked here against
 * the prefix the build was configured with (-Dsundials_dir, empty for the
 * system library), and the version against the headers the build compiled
 * with; OpenBLAS's thread count is OpenBLAS's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sundials/sundials_config.h>

#include "cli_run.h"

/* The line of out that starts with key ("" if none), without its newline. */
static const char *line_of(const char *out, const char *key)
{
    static char line[8192];
    line[0] = '\0';
    for (const char *s = out; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
        if (strncmp(s, key, strlen(key)) == 0) {
            size_t n = strcspn(s, "\n");
            if (n >= sizeof line) n = sizeof line - 1;
            memcpy(line, s, n);
            line[n] = '\0';
            break;
        }
    }
    return line;
}

/* This process's environment without OPENBLAS_NUM_THREADS (the test
 * harness sets it), plus extra if not NULL. */
static char **env_without_blas_threads(const char *extra)
{
    static char *env[512];
    size_t n = 0;
    for (char **e = environ; *e && n < 510; e++)
        if (strncmp(*e, "OPENBLAS_NUM_THREADS=", 21) != 0) env[n++] = *e;
    if (extra) env[n++] = (char *)extra;
    env[n] = NULL;
    return env;
}

static void sundials_is_the_one_the_build_chose(void **state)
{
    (void)state;
    cli_result *r = cli_run("--version", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "stridemap " STRIDEMAP_VERSION "\n"));
    const char *line = line_of(r->out, "sundials  ");
    print_message("%s\n", line);
    /* The headers the build compiled against and the library it loaded. */
    assert_non_null(strstr(line, "sundials  " SUNDIALS_VERSION " "));
    const char *path = strstr(line, ": /");
    assert_non_null(path);
    path += 2;
    if (SM_SUNDIALS_DIR[0] != '\0') {
        char *want = realpath(SM_SUNDIALS_DIR "/lib", NULL), *have = realpath(path, NULL);
        assert_non_null(want);
        assert_non_null(have);
        assert_memory_equal(have, want, strlen(want));
        assert_int_equal(have[strlen(want)], '/');
        free(want);
        free(have);
        assert_non_null(strstr(line, "optimised (-O2)"));
    } else {
        assert_non_null(strstr(line, "system libsundials-dev, not optimised"));
        assert_null(strstr(path, "/.cache/"));
    }
}

/* One OpenBLAS thread unless the user asks for more: the value is
 * OpenBLAS's own (openblas_get_num_threads), and the machine has more than
 * one core, so without stridemap's setting it would say more. */
static void openblas_runs_one_thread(void **state)
{
    (void)state;
    cli_result *r = cli_run_env(env_without_blas_threads(NULL), "--version", NULL);
    assert_int_equal(r->status, 0);
    const char *line = line_of(r->out, "openblas  ");
    print_message("%s\n", line);
    if (strstr(line, "not linked")) skip();
    assert_non_null(strstr(line, "openblas  1 thread,"));
    r = cli_run_env(env_without_blas_threads("OPENBLAS_NUM_THREADS=2"), "--version", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(line_of(r->out, "openblas  "), "openblas  2 threads,"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_version PATH-TO-STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sundials_is_the_one_the_build_chose),
        cmocka_unit_test(openblas_runs_one_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
