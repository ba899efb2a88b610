/* Gaits as fixed points of the stride function, and their stability.
 *
 * Newton-Raphson on g(z) = P^N(z) - z in the section's free coordinates z,
 * with finite-difference Jacobians (Garcia 1999, ch. 2.8) and a backtracking
 * line search so that a long step cannot throw the walker into a fall.
 * Stability from the eigenvalues of dP^N/dz (ch. 2.9) with LAPACKE_dgeev. */
#ifndef STRIDEMAP_FIXEDPOINT_H
#define STRIDEMAP_FIXEDPOINT_H

#include <stdbool.h>

#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"

typedef struct {
    int period;         /* N: look for fixed points of P^N (default 1) */
    double tol;         /* converged when max |g| <= tol (default 1e-10), or when no step
                           lowers |g| and Newton's step is below 100 rtol (the
                           integrator's noise floor) */
    int max_iter;       /* Newton iterations (default 30) */
    double fd_step;     /* finite-difference step; 0 means sqrt(rtol) */
    bool central;       /* central differences for Newton's Jacobian (default forward) */
    int max_backtracks; /* halvings of one Newton step (default 20) */
} sm_newton_options;

/* Fills o with the defaults above. */
void sm_newton_options_default(sm_newton_options *o);

/* Checks the options; why gets a line naming the bad one. */
sm_status sm_newton_options_check(const sm_newton_options *o, char *why, size_t why_len);

typedef struct {
    sm_status status;         /* SM_OK when converged, otherwise why not */
    sm_status stride_status;  /* the last failed stride's status (SM_OK if none failed) */
    bool converged;
    int iterations;
    double residual;          /* max |P^N(z) - z| at the returned point */
    long stride_evals;        /* strides evaluated, Jacobians included */
    size_t n_state, n_free;
    double x[SM_MAX_STATE];   /* the full section state at the returned point */
    double jacobian[SM_MAX_STATE * SM_MAX_STATE]; /* dP^N/dz, row-major, n_free x n_free */
    double eig_re[SM_MAX_STATE], eig_im[SM_MAX_STATE]; /* by decreasing modulus */
    double max_abs_eig;       /* over the multipliers that judge stability */
    bool stable;              /* every such |eigenvalue| < 1 */
    int trivial_index;        /* the multiplier that is 1 by a conservation law, or -1 */
    sm_step_metrics metrics;  /* of the first step from x */
} sm_fixed_result;

/* z_out[n_free] = free coordinates of P^N(lift(z)); metrics of the first
 * step and the full end state (x_end, may be NULL) come back too. */
sm_status sm_poincare(sm_workspace *ws, const double *p, int period, const double *z, double *z_out,
                      double *x_end, sm_step_metrics *metrics);

/* J[n_free x n_free] = dP^N/dz at z by finite differences of step h (forward,
 * reusing Pz = P^N(z) when given, or central).  *evals counts strides. */
sm_status sm_map_jacobian(sm_workspace *ws, const double *p, int period, const double *z,
                          const double *Pz, double h, bool central, double *J, long *evals);

/* Eigenvalues of the n x n row-major matrix A, sorted by decreasing modulus. */
sm_status sm_eigenvalues(size_t n, const double *A, double *re, double *im);

/* Newton from x_guess (a full state; its free components are used).  On
 * convergence the result holds the gait, its Jacobian, eigenvalues,
 * stability and step metrics (the Jacobian by central differences). */
sm_status sm_fixed_point(sm_workspace *ws, const double *p, const double *x_guess,
                         const sm_newton_options *o, sm_fixed_result *r);

#endif
