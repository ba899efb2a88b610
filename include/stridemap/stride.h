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

/* What a step did.  NaN marks a measure the model does not define; the
 * sampled measures (clearance, forces) come only from sm_stride_measured. */
typedef struct {
    double period;             /* time from section to section */
    double step_length;        /* model's step length at the section event */
    double speed;              /* step_length / period */
    double impact_energy_loss; /* kinetic energy lost over all resets of the stride */
    double heelstrike_impulse; /* |jump of linear momentum| at the strike (sm_event.strike; the last
                                  one), else at the section event */
    double cost_of_transport;  /* impact_energy_loss / (weight * step_length) */
    double min_foot_clearance; /* outside the scuff window and the first/last 5 % of the step */
    double max_foot_clearance;
    double min_normal_force;   /* at the stance foot */
    double max_friction_ratio; /* max |F_tangential / F_normal| at the stance foot */
    int n_events;              /* events that counted, the section event included */
} sm_step_metrics;

/* Samples per step that sm_fixed_point uses for the sampled measures. */
#define SM_MEASURE_SAMPLES 1000

/* x_out[n_state] = P(x_in[n_state]); x_in should lie on the section.  On a
 * failure x_out holds the state where the stride ended, for diagnosis.
 * metrics and obs may be NULL. */
sm_status sm_stride(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                    sm_step_metrics *metrics, const sm_observer *obs);

/* sm_stride that also carries sensitivity columns S[ncols x n_state]
 * (column j at S + j n_state): dx_out/dx_in times S on return, through
 * every phase (CVODES) and every event (the saltation; stride.c derives
 * it).  SM_NO_EXACT_JACOBIAN for a map model or a method without
 * sensitivities. */
sm_status sm_stride_sens(sm_workspace *ws, const double *p, const double *x_in, double *x_out, double *S,
                         size_t ncols, sm_step_metrics *metrics);

/* sm_stride that also samples the gait measures every dt along the step
 * (minima refined by a parabola through the neighbouring samples).  obs, if
 * given, sees the same samples. */
sm_status sm_stride_measured(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                             sm_step_metrics *metrics, const sm_observer *obs, double dt);

/* sm_stride (obs sees the samples it asks for, at obs->dt) whose measures
 * are then sampled as sm_fixed_point samples them, SM_MEASURE_SAMPLES over
 * the step, so they do not depend on how the caller samples its output.
 * Costs a second stride on success.  x_in and x_out may be the same. */
sm_status sm_stride_gait(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                         sm_step_metrics *metrics, const sm_observer *obs);

/* Receives step k's metrics once it is done; non-zero stops the walk (SM_IO_ERROR). */
typedef int (*sm_walk_fn)(void *ctx, long k, const sm_step_metrics *mt);

/* Walks up to `steps` steps from x (in place, ending where the walk ended)
 * by sm_stride_gait, obs seeing every sample; *done gets the steps
 * completed.  Returns SM_OK, the failing step's status, or SM_IO_ERROR if
 * cb stopped it. */
sm_status sm_walk(sm_workspace *ws, const double *p, double *x, long steps, const sm_observer *obs,
                  sm_walk_fn cb, void *ctx, long *done);

/* The gait measures of a step, as (name, output name, offset), for writers
 * of tables and JSON: every column a metric has, in one place. */
typedef struct {
    const char *name;   /* the sm_step_metrics field */
    size_t offset;      /* of a double in sm_step_metrics */
    const char *output; /* its CSV column and JSON key: "step_period" for period,
                           which in outputs means only N of P^N */
} sm_metric_field;

extern const sm_metric_field sm_metric_fields[];
extern const size_t sm_metric_field_count;

/* The value of sm_metric_fields[i] in mt. */
double sm_metric_value(const sm_step_metrics *mt, size_t i);

#endif
