/* The orbit diagram by simulation: where the stride map goes when iterated.
 *
 * Newton-based continuation (continuation.h) follows fixed points whether
 * stable or not; iterating P instead finds what a walker actually does,
 * including chaotic attractors that have no fixed point to follow, and when
 * it falls.  Garcia et al. (1998), fig. 5; Garcia (1999) ch. 2.13. */
#ifndef STRIDEMAP_ORBIT_H
#define STRIDEMAP_ORBIT_H

#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"

typedef struct {
    int transient;     /* strides iterated and dropped first (default 200) */
    int record;        /* strides recorded after them (default 64) */
    int max_period;    /* longest period looked for among the recorded strides (default 32) */
    double period_tol; /* a period k when max |z_{i+k} - z_i| <= period_tol over the record (default 1e-6) */
} sm_orbit_options;

/* Fills o with the defaults above. */
void sm_orbit_options_default(sm_orbit_options *o);

/* Checks the options; why gets a line naming the bad one. */
sm_status sm_orbit_options_check(const sm_orbit_options *o, char *why, size_t why_len);

/* Receives each recorded stride: its index among the recorded ones, the
 * state after it (full, [n_state]) and its metrics.  Non-zero stops the run
 * with SM_IO_ERROR. */
typedef int (*sm_orbit_fn)(void *ctx, int index, const double *x, const sm_step_metrics *mt);

typedef struct {
    sm_status status;        /* SM_OK, or how the walker's last stride ended (fell_forward, ...) */
    long steps;              /* strides completed, transient included; on a fall, the ones before it */
    int recorded;            /* strides handed to the callback */
    int period;              /* smallest k <= max_period with the record k-periodic; 0: none (chaos, or not settled) */
    double x[SM_MAX_STATE];  /* the last state reached (on a fall: where the failing stride ended) */
    double x_good[SM_MAX_STATE]; /* the last state after a completed stride (the start if none) */
} sm_orbit_result;

/* Iterates P from x0 (a full state on the section) at p: drops o->transient
 * strides, records o->record.  Returns r->status. */
sm_status sm_orbit(sm_workspace *ws, const double *p, const double *x0, const sm_orbit_options *o,
                   sm_orbit_fn cb, void *ctx, sm_orbit_result *r);

#endif
