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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli_version PATH-TO-STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sundials_is_the_one_the_build_chose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
