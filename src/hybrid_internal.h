/* The model's phase callbacks as both integrators call them (the return
 * convention, the statuses a failure leaves, which crossing counts), and
 * the ARKODE explicit Runge-Kutta path behind sm_hybrid_flow
 * (src/hybrid_arkode.c). A workspace whose method is an ERK pair owns one of
 * these; hybrid.c keeps CVODE and dispatches.  Private to the library. */
#ifndef STRIDEMAP_HYBRID_INTERNAL_H
#define STRIDEMAP_HYBRID_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <sundials/sundials_context.h>

#include "stridemap/hybrid.h"

/* Why a phase's callbacks failed, for the flow to report: the status of
 * the last failure, and whether it was fatal (a negative return, after
 * which the right-hand side is not called again in this flow). */
typedef struct {
    sm_status status;
    bool fatal;
} sm_phase_failure;

/* The phase's right-hand side at (t, x) in SUNDIALS' convention: 0 ok, 1
 * recoverable (the model asked for a smaller step, or xdot is not finite),
 * -1 fatal; f records why.  Inline: it is on every step's path. */
static inline int sm_phase_rhs(const sm_model *m, const sm_phase *P, const double *p, double t, const double *x,
                               double *xdot, sm_phase_failure *f)
{
    /* A fatal model error stays fatal for the rest of the flow: CVODE's
     * fixed-point solver treats a failed RHS as a convergence failure and
     * would otherwise creep up to the failure point with ever smaller steps. */
    if (f->fatal) return -1;
    const int r = P->rhs(t, x, xdot, p, m->data);
    if (r < 0) {
        f->status = sm_callback_status(r);
        f->fatal = true;
        return -1;
    }
    if (r > 0) return 1;
    for (size_t i = 0; i < m->n_state; i++)
        if (!isfinite(xdot[i])) {
            /* Recoverable: a smaller step may keep the state finite; if it
             * does not, the integrator gives up and the status says why. */
            f->status = SM_NONFINITE;
            return 1;
        }
    return 0;
}

/* Event functions and guards run on the phase's clock (model.h): t less
 * t_start, the time the flow began.  Every phase starts on surfaces whose
 * crossing CVODE cannot see at its initial time, and a model can tell that
 * start only by this clock (src/body/events.c); the stride's own time would
 * give it the stride's first phase alone. */

/* g[n_events] = every event function of the phase at (t, x), through its
 * events_all hook where it has one; false when one is not finite. */
static inline bool sm_phase_events(const sm_model *m, const sm_phase *P, const double *p, double t_start, double t,
                                   const double *x, double *g)
{
    const double tp = t - t_start;
    if (P->events_all) P->events_all(tp, x, p, m->data, g);
    for (size_t e = 0; e < P->n_events; e++) {
        if (!P->events_all) g[e] = P->events[e].value(tp, x, p, m->data);
        if (!isfinite(g[e])) return false;
    }
    return true;
}

/* The first event whose root was found (rootsfound[e] != 0) and whose guard
 * passes at (t, x); n_events when none counts (a scuff, a step's start). */
static inline size_t sm_phase_counting_event(const sm_model *m, const sm_phase *P, const double *p, double t_start,
                                             double t, const double *x, const int *rootsfound)
{
    const double tp = t - t_start;
    size_t e = 0;
    while (e < P->n_events && !(rootsfound[e] != 0 && (!P->events[e].guard || P->events[e].guard(tp, x, p, m->data))))
        e++;
    return e;
}

/* How the event the last flow of a workspace returned was found: by
 * CVODE's root finder (its time moves with the start), or at a tick of the
 * model's clock, where the held values' jump took its function across zero
 * (its time is the tick's and does not move with the start, as long as
 * the crossing stays strictly inside the jump), or at a tick where the
 * function landed exactly on zero (its time has no derivative: a start
 * moved one way crosses at the tick, the other way later or not at all). */
typedef enum { SM_FOUND_BY_ROOT, SM_FOUND_AT_TICK, SM_FOUND_AT_TICK_ON_ZERO } sm_event_found;

sm_event_found sm_hybrid_event_found(const sm_workspace *ws);

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
