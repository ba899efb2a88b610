/* The stride function: McGeer's Poincare map P.
 *
 * P takes the full state just after one section event (for walkers, just
 * after heel-strike) through the model's phase graph to the state just after
 * the next one, and reports how the step went.  Garcia (1999) ch. 2.6. */
#ifndef STRIDEMAP_STRIDE_H
#define STRIDEMAP_STRIDE_H

#include "stridemap/hybrid.h"
#include "stridemap/model.h"

/* More counted events than this in one stride means the walker is chattering
 * between phases, which the model does not allow. */
#define SM_MAX_EVENTS_PER_STRIDE 64

typedef struct {
    double period;             /* time from section to section */
    double step_length;        /* model's step length at the section event; NaN if undefined */
    double speed;              /* step_length / period */
    double impact_energy_loss; /* kinetic energy lost over all resets of the stride; NaN if undefined */
    int n_events;              /* events that counted, the section event included */
} sm_step_metrics;

/* x_out[n_state] = P(x_in[n_state]); x_in should lie on the section.  On a
 * failure x_out holds the state where the stride ended, for diagnosis.
 * metrics and obs may be NULL. */
sm_status sm_stride(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                    sm_step_metrics *metrics, const sm_observer *obs);

#endif
