/* The orbit diagram by simulation: where the stride map goes when iterated.
 *
 * Newton-based continuation (continuation.h) follows fixed points whether
 * stable or not; iterating P instead finds what a walker actually does,
 * including chaotic attractors that have no fixed point to follow, and when
 * it falls.  Garcia et al. (1998), fig. 5; Garcia (1999) ch. 2.13. */
#ifndef STRIDEMAP_ORBIT_H
#define STRIDEMAP_ORBIT_H

#include <stdbool.h>

#include "stridemap/fixedpoint.h"
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

/* A stride that ended because of what the walker did (fell, scuffed, never
 * struck), as opposed to the solver failing. */
bool sm_orbit_walker_outcome(sm_status st);

/* One value of an orbit diagram, as handed to the caller. */
typedef struct {
    long index;                 /* k, from 0 */
    double mu;                  /* the parameter's value */
    const sm_orbit_result *r;   /* the walk at mu */
    bool fell;                  /* r->status != SM_OK by the walker's doing (else the solver's) */
    const double *xs;           /* [r->recorded x n_state]: the state after each recorded stride */
    const sm_step_metrics *mts; /* [r->recorded]: each recorded stride's metrics */
} sm_orbit_value;

/* Receives each value in order; non-zero stops the diagram (SM_IO_ERROR). */
typedef int (*sm_orbit_value_fn)(void *ctx, const sm_orbit_value *v);

typedef struct {
    sm_status status;   /* SM_OK, SM_BAD_OPTION (o), SM_NO_MEMORY, or SM_IO_ERROR if the callback stopped it */
    long values;        /* values walked */
    long total_steps;   /* strides over all values */
    long falls;         /* values where the walker fell */
    long failures;      /* values where the solver failed */
    double first_fall;  /* the first value where it fell, NaN if none */
} sm_orbit_diagram_result;

/* The orbit diagram: for k = 0 .. n - 1, p[param] = lo + (hi - lo) k / (n - 1)
 * (lo if n = 1), sm_orbit from where the last value that did not fall or
 * fail ended, so that it follows an attractor as the parameter moves.  The
 * first value starts from x0, or if x0 is NULL from the gait Newton
 * (options newton) finds from the model's guess at lo, or the guess itself
 * if Newton fails. */
sm_status sm_orbit_diagram(sm_workspace *ws, const double *p, size_t param, double lo, double hi, long n,
                           const double *x0, const sm_newton_options *newton, const sm_orbit_options *o,
                           sm_orbit_value_fn cb, void *ctx, sm_orbit_diagram_result *res);

#endif
