/* Disturbances of a gait: how large a one-step disturbance it survives, and
 * its gait sensitivity norm.
 *
 * A model declares a disturbance as a parameter flagged
 * SM_PARAM_DISTURBANCE (model.h), nominal value 0: a floor step at the next
 * heel-strike, a push at mid-stance, a slope change for one step; each
 * model's header says its equations.  The disturbed stride is P(x, d), the
 * stride with that parameter raised by d; the strides after it are P(x).
 *
 * The largest disturbance survived (sm_disturb_search): a trial is one
 * disturbed stride from the gait, then nominal strides until the section's
 * free coordinates are back within return_tol of the gait's (survived;
 * judged from the first nominal stride on, since the disturbed one may end
 * off the section, and in the free coordinates, since a walker's position
 * along the ground is not periodic), a stride fails (a fall, the walker's
 * status) or max_strides pass (SM_NOT_RETURNED).  Each sign is scanned
 * outward from 0 (which survives) in scan_points equal steps to the end of
 * the range, to the first step that fails, and bisected between it and the
 * step before: the survivors need not be an interval (a far island of
 * survivors is not reported), and the scan finds the first edge out from
 * the gait at its resolution.  The trials depend on nothing but the range,
 * and a trial that survives with K strides survives with more; so with
 * more strides the scan stops at the same step or a later one, and the
 * bisection follows the same midpoints until its first different verdict,
 * which can only move the bracket outwards: the largest surviving
 * disturbance never shrinks as max_strides grows.
 *
 * The gait sensitivity norm (Hobbelen & Wisse 2007, IEEE Trans. Robot.
 * 23(6):1213-1224; sm_gsn): the walker linearised about its gait,
 *   x_{k+1} = A x_k + B d_k,   e_k = C x_k + D d_k,
 * with gait indicators e (step length, step time, any measure of a plain
 * stride, sm_metric_fields), and for a unit impulse d_0 = 1 the response
 *   GSN = sqrt(sum_k |e_k|^2) = sqrt(|D|^2 + sum_{k>=1} |C A^{k-1} B|^2),
 * the H2 norm of the system.  The state after a disturbed stride need not
 * lie on the section (after a floor step the trailing foot is off the new
 * floor), so the first two strides are differenced whole: e_0 = D, e_1, and
 * b = dz_2/dd, the free coordinates after the first nominal stride; from
 * there on A is dP/dz in the free coordinates (the gait's own Jacobian,
 * exact where the model allows) and
 *   GSN^2 = |e_0|^2 + |e_1|^2 + sum_i c_i X c_i^T,  X = sum_{k>=0} A^k b b^T (A^T)^k,
 * where X, the discrete Lyapunov equation X = A X A^T + b b^T's solution, is
 * summed by Smith's doubling (X <- X + A_j X A_j^T, A_j <- A_j^2), 2^j terms
 * after j steps.  For x -> A x + B d this is exactly the closed form
 * (tests/test_disturb.c).  The derivatives in d and z are central
 * differences at h (sm_gsn_fd_step; in d, at h / max|B| where a unit of d
 * moves the state by less than 1, relative, so that the state moves by h,
 * within half the parameter's range): 4 or 8 strides per disturbance and 2 per
 * free coordinate for C, shared by the disturbances (sm_gsn_all). */
#ifndef STRIDEMAP_DISTURB_H
#define STRIDEMAP_DISTURB_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/gait.h"
#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"
#include "stridemap/sweep.h"

/* True when parameter i of m is a disturbance. */
bool sm_param_is_disturbance(const sm_model *m, size_t i);

/* How many of m's parameters are disturbances. */
size_t sm_disturb_count(const sm_model *m);

/* x_out[n_state] = P(x_in, d): one stride with p[param] raised by d. */
sm_status sm_disturbed_stride(sm_workspace *ws, const double *p, size_t param, double d, const double *x_in,
                              double *x_out, sm_step_metrics *metrics);

typedef struct {
    long max_strides;   /* K: strides of a trial, the disturbed one included (default 100) */
    double return_tol;  /* back at the gait when max_k |z_k - z*_k| <= return_tol over the free
                           coordinates z (default 1e-6) */
    double bisect_tol;  /* stop when the bracket is this narrow; 0: 1e-6 max(|from|, |to|) (default 0) */
    int max_bisections; /* default 60 */
    int scan_points;    /* steps of the outward scan before the bisection (default 20; 1: bisect at once) */
} sm_disturb_options;

/* Fills o with the defaults above. */
void sm_disturb_options_default(sm_disturb_options *o);

/* Checks the options; why gets a line naming the bad one. */
sm_status sm_disturb_options_check(const sm_disturb_options *o, char *why, size_t why_len);

/* One trial: SM_OK when the walker came back to the gait x_star[n_state]
 * (a period-1 gait's section state), else the failed stride's status or
 * SM_NOT_RETURNED; *strides gets the strides it took (the disturbed one
 * included), to coming back or to the failure. */
sm_status sm_disturb_try(sm_workspace *ws, const double *p, size_t param, const double *x_star, double d,
                         const sm_disturb_options *o, long *strides);

/* One sign's answer. */
typedef struct {
    bool searched;          /* the range reaches out to this sign */
    double survives;        /* the largest disturbance found survived (0 at worst) */
    double fails;           /* the smallest found beyond it that is not; NaN if the whole range survives */
    double width;           /* |fails - survives| (0 if the whole range survives) */
    sm_status failure;      /* the trial's status at fails (SM_OK if none failed) */
    long failure_strides;   /* strides of that trial */
    long return_strides;    /* strides to come back at survives */
    int bisections;
    long strides;           /* strides integrated for this sign */
} sm_disturb_side;

/* The largest disturbance of parameter `param` (a disturbance of m) of each
 * sign in [from, to] the gait x_star survives; from <= 0 <= to, from < to,
 * and p[param] + from, p[param] + to within the parameter's range.
 * neg covers [from, 0), pos (0, to]; a side the range does not reach has
 * searched false.  SM_BAD_PARAM / SM_BAD_OPTION with why for bad input. */
sm_status sm_disturb_search(sm_workspace *ws, const double *p, size_t param, const double *x_star, double from,
                            double to, const sm_disturb_options *o, sm_disturb_side *neg, sm_disturb_side *pos,
                            char *why, size_t why_len);

#define SM_GSN_MAX_INDICATORS 10

typedef struct {
    size_t n_indicators;
    size_t indicator[SM_GSN_MAX_INDICATORS]; /* indices into sm_metric_fields */
    double h;  /* difference step in d and z; 0: sm_gsn_fd_step's */
} sm_gsn_options;

/* The default indicators: step_length and step_period (Hobbelen and
 * Wisse's step length and step time). */
void sm_gsn_options_default(sm_gsn_options *o);

/* Why a gait sensitivity norm is NaN (sm_gsn_result.why). */
typedef enum {
    SM_GSN_DEFINED = 0, /* a number */
    SM_GSN_UNSTABLE,    /* the gait is unstable: the response grows */
    SM_GSN_FAMILY,      /* the disturbance moves the walker along its family of gaits for good */
    SM_GSN_FAILED,      /* a stride failed, or bad input: status says which */
} sm_gsn_why;

/* The name of a sm_gsn_why: "defined", "unstable", "family", "failed". */
const char *sm_gsn_why_name(sm_gsn_why why);

typedef struct {
    sm_status status;
    double gsn;                                   /* NaN when not defined (see sm_gsn) */
    double per_indicator[SM_GSN_MAX_INDICATORS];  /* each indicator's own norm; NaN where the
                                                     model does not measure it; gsn^2 is their
                                                     squares' sum */
    double B[SM_MAX_STATE];                       /* dP/dd at the gait, the full state x_1 */
    double D[SM_GSN_MAX_INDICATORS];              /* de_0/dd: the disturbed step's indicators */
    double e1[SM_GSN_MAX_INDICATORS];             /* de_1/dd: the next step's */
    double b[SM_MAX_STATE];                       /* dz_2/dd, the free coordinates after it */
    long strides;                                 /* strides integrated */
    sm_gsn_why why;                               /* why gsn is NaN (SM_GSN_DEFINED if it is not) */
    double family_drift;                          /* a family's gait: |C v| |a| / |(e_0, e_1)|, the
                                                     indicators' change per stride along the family
                                                     (v its multiplier 1's eigenvector, a the part of b
                                                     along it) against the first two strides'
                                                     response; NaN without a family */
} sm_gsn_result;

/* The gait sensitivity norm of the converged period-1 gait g (its x and
 * Jacobian) at p to the disturbance `param`.  SM_OK with gsn NaN where the
 * response does not decay: an unstable gait (why SM_GSN_UNSTABLE), or a
 * disturbance that moves the walker to another gait of its family for good
 * (SM_GSN_FAMILY).  A gait of a family (g->trivial_index: a multiplier 1 by
 * a conservation law or a family condition, with right and left
 * eigenvectors v, w, w.v = 1) responds to b as a v + A^k (b - a v),
 * a = w.b: the part along the family stays, the rest decays with the other
 * multipliers.  Where the indicators' change a C v per stride is below
 * SM_GSN_FAMILY_TOL of the first two strides' response (a disturbance that
 * keeps the family's invariant: slip's attack_error keeps its energy, so a
 * is zero to the differences' noise), the norm is the sum over the rest,
 * with A deflated (A - v w^T, its multiplier 1 made 0); else it is NaN with
 * SM_GSN_FAMILY.  SM_BAD_OPTION for a period other than 1, a parameter
 * that is no disturbance or an indicator out of range; a failed stride's
 * status (why SM_GSN_FAILED). */
#define SM_GSN_FAMILY_TOL 1e-5
sm_status sm_gsn(sm_workspace *ws, const double *p, const sm_gait *g, size_t param, const sm_gsn_options *o,
                 sm_gsn_result *r);

/* sm_gsn for the n disturbances param[n] into r[n], sharing the
 * indicators' Jacobian C; the first failure's status (each r[k] has its own). */
sm_status sm_gsn_all(sm_workspace *ws, const double *p, const sm_gait *g, const sm_gsn_options *o, size_t n,
                     const size_t *param, sm_gsn_result *r);

/* The GSN's difference step: h if positive, else 0.1 cbrt(rtol) (1e-5 at
 * rtol 1e-12), balancing the truncation h^2 against the noise rtol / h. */
double sm_gsn_fd_step(double h, double rtol);

/* X[n x n] = sum_{k>=0} A^k Q (A^T)^k for A[n x n] with spectral radius
 * below 1 (Smith's doubling); SM_NONFINITE if the sum does not settle. */
sm_status sm_lyapunov_sum(size_t n, const double *A, const double *Q, double *X);

/* The disturbance search over a grid of parameters, as a sweep task
 * (sweep.h): at every point of c->grid (axes of model parameters, the
 * others at c->params) the gait found by Newton from c->guess, or the
 * model's guess at the point's parameters (never from a neighbour's gait,
 * so that a point's row is what sm_fixed_point, sm_disturb_search and
 * sm_gsn give there alone, however the sweep is run), then the largest
 * disturbance `param` of each sign in [from, to] it survives (options o)
 * and its gait sensitivity norm to it (the default indicators).  One CSV
 * row per point: index, the axes, outcome and status (the gait's, as a
 * sweep's), max_abs_eig, stable, neg_ and pos_ survives, fails, width,
 * failure, failure_strides, return_strides, bisections, strides (a side the
 * range does not reach: NaN and empty fields), gsn, gsn_reason (empty where
 * the norm is a number), x_STATE (the gait), wall_s.  The signature adds the
 * disturbance's settings, so a resume with others is refused.  c's grid,
 * parameters, guess, solver and Newton options (period 1) are copied;
 * SM_BAD_PARAM / SM_BAD_OPTION with why for a parameter that is no
 * disturbance, a disturbance on the grid or a range as sm_disturb_search
 * refuses it. */
typedef struct sm_disturb_sweep sm_disturb_sweep;
sm_status sm_disturb_sweep_create(const sm_sweep_config *c, size_t param, double from, double to,
                                  const sm_disturb_options *o, sm_disturb_sweep **out, char *why, size_t why_len);

/* The task to put in sm_sweep_config.task (valid until sm_disturb_sweep_free). */
const sm_sweep_task *sm_disturb_sweep_task(sm_disturb_sweep *s);

/* Frees s; NULL is fine. */
void sm_disturb_sweep_free(sm_disturb_sweep *s);

#endif
