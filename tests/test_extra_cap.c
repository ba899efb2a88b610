/* The per-step measures' cap (SM_MAX_EXTRA): a body file whose measures fit
 * exactly reports every one of them, the last impulse included; one more
 * and the loader refuses the file, naming it, the count and the limit, and
 * `stridemap fixed` exits 65 with that one line.  The files are made here
 * from tests/data/body_models/double_support.yaml (twelve measures: the ten
 * fixed ones and its two pins' forces) by adding events whose impacts act on
 * both pins, each a distinct name and so two impulses, and one on a single
 * pin for an odd count.  The events never fire: only the count matters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "stridemap/stridemap.h"
#include "sweep_dir.h"

#define BASE_MEASURES 12 /* double_support.yaml's */

static char base[8192];

/* A copy of double_support.yaml at path with impact events added so that
 * its walker has `total` per-step measures; the name of the last impulse
 * into last[cap]. */
static void write_file(const char *path, size_t total, char *last, size_t cap)
{
    assert_true(total > BASE_MEASURES);
    size_t pairs = (total - BASE_MEASURES) / 2, single = (total - BASE_MEASURES) % 2, k = 0;
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    const char *at = base, *key = "    events:\n";
    const char *hit;
    while ((hit = strstr(at, key))) {
        hit += strlen(key);
        fwrite(at, 1, (size_t)(hit - at), out);
        /* a phase holds at most 12 events, two of them its own */
        for (int i = 0; i < 10 && (pairs || single); i++, k++) {
            const bool both = pairs > 0;
            fprintf(out, "      - {name: k%02zu, when: {coord: torso, value: 3, crosses: up}, impact: [%s], then: falling}\n",
                    k, both ? "foot_a, foot_b" : "foot_a");
            snprintf(last, cap, "k%02zu.%s.impulse", k, both ? "foot_b" : "foot_a");
            if (both)
                pairs--;
            else
                single--;
        }
        at = hit;
    }
    fputs(at, out);
    fclose(out);
    assert_int_equal(pairs + single, 0);
}

static void file_at_the_cap_reports_every_measure(void **state)
{
    (void)state;
    char last[64];
    const char *path = dir("at_cap.yaml");
    write_file(path, SM_MAX_EXTRA, last, sizeof last);
    char why[512] = "";
    const sm_model *m;
    assert_int_equal(sm_registry_open(path, &m, why, sizeof why), SM_OK);
    assert_int_equal(m->n_extra, SM_MAX_EXTRA);
    assert_string_equal(m->extra_names[m->n_extra - 1], last);
    /* every impulse once: names distinct */
    for (size_t i = 0; i < m->n_extra; i++)
        for (size_t j = 0; j < i; j++) assert_string_not_equal(m->extra_names[i], m->extra_names[j]);
    sm_registry_close(m);
}

static void file_over_the_cap_is_refused(void **state)
{
    (void)state;
    char last[64];
    const char *path = dir("over_cap.yaml");
    write_file(path, SM_MAX_EXTRA + 1, last, sizeof last);
    char why[512] = "", count[64];
    const sm_model *m = NULL;
    assert_int_equal(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    assert_null(m);
    snprintf(count, sizeof count, "%d per-step measures", SM_MAX_EXTRA + 1);
    assert_non_null(strstr(why, path));
    assert_non_null(strstr(why, count));
    snprintf(count, sizeof count, "more than the %d", SM_MAX_EXTRA);
    assert_non_null(strstr(why, count));

    const cli_result *r = cli_run("fixed", path, NULL);
    assert_false(r->signaled);
    assert_int_equal(r->status, 65);
    assert_non_null(strstr(r->err, why));
    const char *nl = strchr(r->err, '\n');
    assert_true(nl && nl[1] == '\0'); /* one line */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDEMAP\n", argv[0]);
        return 1;
    }
    cli_exe = argv[1];
    FILE *f = fopen(SM_SOURCE_DIR "/tests/data/body_models/double_support.yaml", "r");
    if (!f) return 1;
    const size_t n = fread(base, 1, sizeof base - 1, f);
    fclose(f);
    if (n == 0 || n == sizeof base - 1) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_at_the_cap_reports_every_measure),
        cmocka_unit_test(file_over_the_cap_is_refused),
    };
    return cmocka_run_group_tests(tests, sweep_dir_setup, sweep_dir_teardown);
}
