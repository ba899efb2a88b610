/* A test group's temporary directory (header-only, static functions): made
 * by sweep_dir_setup, removed with all it holds by sweep_dir_teardown
 * (CMocka's group setup and teardown), and the rows of a sweep's CSV in it
 * without the wall-clock column, the one field that differs between two
 * runs of the same points.  For the library's tests as for the program's
 * (sweep_harness.h adds running the program). */
#ifndef STRIDEMAP_TEST_SWEEP_DIR_H
#define STRIDEMAP_TEST_SWEEP_DIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "test_util.h"

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

#endif
