/* Gaits as fixed points of the stride function, and their stability.
 *
 * Newton-Raphson on g(z) = P^N(z) - z in the section's free coordinates z,
 * with finite-difference Jacobians (Garcia 1999, ch. 2.8) and a backtracking
 * line search so that a long step cannot throw the walker into a fall.
 * Stability from the eigenvalues of dP^N/dz (ch. 2.9) with LAPACKE_dgeev. */
#ifndef STRIDEMAP_FIXEDPOINT_H
#define STRIDEMAP_FIXEDPOINT_H

#include <stdbool.h>

#include "stridemap/gait.h"
#include "stridemap/hybrid.h"
#include "stridemap/poincare.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"

/* How Newton's Jacobian follows the iterates.  Broyden: difference
 * Jacobians (the first may be the caller's jacobian_guess) until a whole
 * step halves the residual, then a rank-one update after each step, and a
 * fresh difference Jacobian only where the updated one fails to halve the
 * residual; full: a difference Jacobian every iteration. */
typedef enum { SM_NEWTON_BROYDEN, SM_NEWTON_FULL } sm_newton_update;

/* How Newton gets dP^N/dz. */
typedef enum {
    SM_JACOBIAN_FD,    /* finite differences (the default) */
    SM_JACOBIAN_EXACT  /* sm_map_jacobian_exact: sensitivities and saltation */
} sm_jacobian_kind;

typedef struct {
    int period;         /* N: look for fixed points of P^N (default 1) */
    double tol;         /* converged when max |g| <= tol (default 1e-10); a Newton that
                           can lower |g| no further above it is SM_STALLED */
    int max_iter;       /* Newton iterations (default 30) */
    double fd_step;     /* finite-difference step; 0 means the defaults of
                           sm_newton_fd_step and sm_stability_fd_step */
    bool central;       /* central differences for Newton's Jacobian (default forward) */
    int max_backtracks; /* halvings of one Newton step (default 20) */
    sm_newton_update update;      /* default SM_NEWTON_BROYDEN */
    const double *jacobian_guess; /* [n_free x n_free] row-major dP^N/dz near the guess (a
                                     neighbouring gait's), Broyden's first Jacobian (full
                                     Newton differences its own); NULL: none */
    sm_jacobian_kind jacobian; /* Newton's Jacobian (default SM_JACOBIAN_FD) */
    bool check_fd;      /* also the multipliers from finite differences (eig_fd_*),
                           beside the exact ones (default false) */
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
    double residual;          /* max |P^N(z) - z| at the returned point (with an
                                 invariant, P^N(z) moved back onto its level set) */
    double invariant_drift;   /* with an invariant: its change over the N strides at
                                 the gait, relative as the Newton row; else NaN */
    long stride_evals;        /* strides integrated (N per evaluation of P^N), Jacobians included */
    long newton_evals;        /* of which Newton's, up to its last residual (the rest: measures,
                                 period check and stability Jacobian) */
    SM_GAIT_MEMBER;           /* the gait at the returned point: x, and once converged its
                                 Jacobian, multipliers, stability, metrics and family */
    /* With check_fd: the multipliers from sm_stability_jacobian's finite
     * differences, by decreasing modulus, and that computation's status
     * (without it: NaN, and SM_NOT_CONVERGED for "not computed"). */
    sm_status fd_check_status;
    double eig_fd_re[SM_MAX_STATE], eig_fd_im[SM_MAX_STATE];
} sm_fixed_result;


/* Newton from x_guess (a full state; its free components are used).  On
 * convergence the result holds the gait, its Jacobian, eigenvalues,
 * stability and step metrics (the Jacobian by sm_gait_analyse: exact where
 * the model allows, else sm_stability_jacobian).
 * Converged means max |P^N(z) - z| <= tol at a step of positive length and
 * duration; a zero step is SM_DEGENERATE_GAIT, not a gait. */
sm_status sm_fixed_point(sm_workspace *ws, const double *p, const double *x_guess,
                         const sm_newton_options *o, sm_fixed_result *r);

#endif
