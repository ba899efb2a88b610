/* The stride map P^N in the section's free coordinates z and its
 * derivatives by finite differences (Garcia 1999, ch. 2.8-2.9): what Newton,
 * the gait analysis and continuation all differentiate. */
#ifndef STRIDEMAP_POINCARE_H
#define STRIDEMAP_POINCARE_H

#include <stdbool.h>

#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"

/* z_out[n_free] = free coordinates of P^N(lift(z)); metrics of the first
 * step and the full end state (x_end, may be NULL) come back too. */
sm_status sm_poincare(sm_workspace *ws, const double *p, int period, const double *z, double *z_out,
                      double *x_end, sm_step_metrics *metrics);

/* J[n_free x n_free] = dP^N/dz at z by finite differences of step h (forward,
 * reusing Pz = P^N(z) when given, or central).  *evals counts strides. */
sm_status sm_map_jacobian(sm_workspace *ws, const double *p, int period, const double *z,
                          const double *Pz, double h, bool central, double *J, long *evals);

/* J[n_free x n_free] = dP^N/dz at z, exactly: forward sensitivities
 * through every phase and the saltation at every event (sm_stride_sens),
 * started from dlift/dz (central differences of the lift); z_out (may be
 * NULL) gets P^N(z) from the same strides.  A plain map model gets central
 * differences of its map, which is its stride.  N strides added to *evals;
 * SM_NO_EXACT_JACOBIAN where the method has no sensitivities. */
sm_status sm_map_jacobian_exact(sm_workspace *ws, const double *p, int period, const double *z, double *z_out,
                                double *J, long *evals);

/* Newton's difference step: fd_step if positive, else sqrt(rtol), for
 * forward and central differences alike (only convergence depends on it). */
double sm_newton_fd_step(double fd_step, bool central, double rtol);

/* The stability Jacobian's step: fd_step if positive, else 0.01 rtol^(1/5)
 * (1e-4 at rtol 1e-10), where Richardson's h^4 truncation and the
 * integrator's noise / h were both below 1e-7 on the simplest, compass and
 * spring-mass walkers for rtol 1e-9 ... 1e-13 (bench/README.md). */
double sm_stability_fd_step(double fd_step, double rtol);

/* J[n_free x n_free] = dP^N/dz as the product of the N strides' Jacobians
 * round the orbit from z, each by Richardson-extrapolated central
 * differences at steps h and h/2 (where a stride that far off fails, plain
 * central differences at Newton's step sqrt(rtol)); 4 N n_free + N - 1
 * strides, added to *evals. */
sm_status sm_stability_jacobian(sm_workspace *ws, const double *p, int period, const double *z, double h,
                                double *J, long *evals);

/* For a model with an invariant: (invariant(lift(z)) - its parameter),
 * relative to the parameter's size (at least 1), so that the row weighs
 * like the others in Newton's system. */
double sm_invariant_gap(const sm_model *m, const double *p, const double *z);

/* grad[n_free] = d sm_invariant_gap / dz by central differences of step h. */
void sm_invariant_gradient(const sm_model *m, const double *p, const double *z, double h, double *grad);

/* Moves z[n_free] onto the invariant's level set along its gradient
 * (central differences of step h; no strides). */
void sm_invariant_project(const sm_model *m, const double *p, double *z, double h);

#endif
