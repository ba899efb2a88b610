/* The ARKODE explicit Runge-Kutta path behind sm_hybrid_flow (src/hybrid_arkode.c).
 * A workspace whose method is an ERK pair owns one of these; hybrid.c keeps
 * CVODE and dispatches.  Private to the library. */
#ifndef STRIDEMAP_HYBRID_INTERNAL_H
#define STRIDEMAP_HYBRID_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sundials/sundials_context.h>

#include "stridemap/hybrid.h"

typedef struct sm_arkode sm_arkode;

/* True for the methods this path integrates. */
bool sm_arkode_method(sm_method m);

/* Creates the ERKStep integrator for model m with options o in context ctx.
 * counters and detail (detail_len bytes) belong to the workspace, which
 * outlives it: the flow adds its work to the first and writes ARKODE's words
 * about a failure into the second. */
sm_status sm_arkode_create(const sm_model *m, const sm_solver_options *o, SUNContext ctx, sm_counters *counters,
                           char *detail, size_t detail_len, sm_arkode **out);

/* Frees it; NULL is fine. */
void sm_arkode_free(sm_arkode *a);

/* sm_hybrid_flow's contract, on ERKStep. */
sm_status sm_arkode_flow(sm_arkode *a, const double *p, size_t phase, double *t, double *x, double t_end,
                         const sm_observer *obs, size_t *event);

#endif
