/* The flat interface's tables: named columns of doubles, row-major. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_internal.h"

struct sm_ffi_table {
    size_t cols, rows, cap;
    char **names; /* [cols] */
    double *v;    /* [cap * cols] */
};

sm_ffi_table *ffi_table_new(size_t cols, size_t cap)
{
    sm_ffi_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->cols = cols;
    t->cap = cap ? cap : 16;
    t->names = calloc(cols ? cols : 1, sizeof *t->names);
    t->v = malloc(t->cap * (cols ? cols : 1) * sizeof *t->v);
    if (!t->names || !t->v) {
        sm_ffi_table_free(t);
        return NULL;
    }
    return t;
}

bool ffi_table_name(sm_ffi_table *t, size_t j, const char *name)
{
    free(t->names[j]);
    t->names[j] = strdup(name);
    return t->names[j] != NULL;
}

bool ffi_table_reserve(sm_ffi_table *t, size_t n)
{
    size_t cap = t->cap;
    while (cap - t->rows < n) cap *= 2;
    if (cap == t->cap) return true;
    double *v = realloc(t->v, cap * t->cols * sizeof *v);
    if (!v) return false;
    t->v = v;
    t->cap = cap;
    return true;
}

bool ffi_table_has_room(const sm_ffi_table *t) { return t->rows < t->cap; }

double *ffi_table_row(sm_ffi_table *t)
{
    if (t->rows == t->cap) {
        double *v = realloc(t->v, 2 * t->cap * t->cols * sizeof *v);
        if (!v) return NULL;
        t->v = v;
        t->cap *= 2;
    }
    double *row = t->v + t->rows++ * t->cols;
    for (size_t j = 0; j < t->cols; j++) row[j] = NAN;
    return row;
}

size_t sm_ffi_table_rows(const sm_ffi_table *t) { return t->rows; }
size_t sm_ffi_table_cols(const sm_ffi_table *t) { return t->cols; }
const char *sm_ffi_table_column(const sm_ffi_table *t, size_t j) { return j < t->cols ? t->names[j] : NULL; }

void sm_ffi_table_copy(const sm_ffi_table *t, double *out)
{
    if (t->rows) memcpy(out, t->v, t->rows * t->cols * sizeof *out);
}

void sm_ffi_table_free(sm_ffi_table *t)
{
    if (!t) return;
    for (size_t j = 0; t->names && j < t->cols; j++) free(t->names[j]);
    free(t->names);
    free(t->v);
    free(t);
}
