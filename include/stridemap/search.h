/* Gaits without a guess: Newton from many starts spread over a box of the
 * section's free coordinates, duplicates dropped.
 *
 * The starts are the first points of a Halton sequence scaled to the box, so
 * a search is deterministic and a larger --starts only adds points. */
#ifndef STRIDEMAP_SEARCH_H
#define STRIDEMAP_SEARCH_H

#include "stridemap/fixedpoint.h"

typedef struct {
    size_t starts;            /* Newton runs (default 64) */
    double lo[SM_MAX_STATE];  /* box of the free coordinates */
    double hi[SM_MAX_STATE];
    double same;              /* two gaits closer than this (max norm, free coords) are one (default 1e-6) */
} sm_search_options;

/* Defaults, with the model's own box (or +-50 % around its guess if it has none). */
void sm_search_options_default(const sm_model *m, const double *p, sm_search_options *o);

/* Checks the box and counts; why gets a line. */
sm_status sm_search_options_check(const sm_model *m, const sm_search_options *o, char *why, size_t why_len);

/* Runs the search; found[0..*n_found) holds the distinct gaits (at most cap),
 * in the order they were first found.  A period-N gait whose orbit is a
 * shorter cycle is reported at its shortest period (minimal_period).
 * *attempts_failed counts starts from which Newton found nothing. */
sm_status sm_search(sm_workspace *ws, const double *p, const sm_newton_options *newton,
                    const sm_search_options *o, sm_fixed_result *found, int *minimal_period, size_t cap,
                    size_t *n_found, size_t *attempts_failed);

#endif
