/* What the flat interface's files share: the model handle and tables. */
#ifndef STRIDEMAP_FFI_INTERNAL_H
#define STRIDEMAP_FFI_INTERNAL_H

#include <stdbool.h>

#include "stridemap/ffi.h"
#include "stridemap/stridemap.h"

/* Continuation settings as the stridemap program takes them: a step not
 * given gets its default from the bounds and the steps that were given. */
typedef struct {
    bool have_step, have_step_min, have_step_max;
    double step, step_min, step_max, weight, locate_tol, amplitude;
    long max_points, max_period, corrector_iter;
    bool do_switch, locate;
} ffi_cont_settings;

struct sm_ffi_model {
    const sm_model *m;
    double params[SM_MAX_PARAMS];
    sm_solver_options solver;
    sm_newton_options newton;
    bool method_given, two_step;
    ffi_cont_settings cont;
    char why[1024];
};

/* Sets h->why and returns st. */
int ffi_fail(sm_ffi_model *h, int st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The parameters, then the solver and Newton settings in force for a
 * computation (the model's BDF for a controller, the two-step doubling),
 * checked: SM_OK, or why not in h->why. */
int ffi_settings(sm_ffi_model *h, sm_solver_options *solver, sm_newton_options *newton);

/* x[n_state] from guess, or the model's guess when NULL; SM_BAD_STATE for
 * a value that is not finite. */
int ffi_start_state(sm_ffi_model *h, const double *guess, double *x);

/* A table of `cols` named columns with room for `cap` rows, grown by
 * ffi_table_row as needed (the names are copied). */
sm_ffi_table *ffi_table_new(size_t cols, size_t cap);
/* Names column j (copied); false when out of memory. */
bool ffi_table_name(sm_ffi_table *t, size_t j, const char *name);
/* A new row's cols values, NaN-filled, or NULL when out of memory. */
double *ffi_table_row(sm_ffi_table *t);
/* Makes room for n more rows; false when out of memory. */
bool ffi_table_reserve(sm_ffi_table *t, size_t n);
/* Whether one more row fits without growing. */
bool ffi_table_has_room(const sm_ffi_table *t);

#endif
