/* Following a gait as a parameter changes, and where it changes character.
 *
 * Pseudo-arclength continuation of the fixed points of P^N in (z, mu), with
 * z the section's free coordinates and mu one model parameter: a secant
 * predictor, Newton on the augmented system
 *     P^N(z; mu) - z = 0,   t . (y - y_pred) = 0     (y = (z, mu), t the secant)
 * with finite-difference Jacobians (d/dmu included), and a step that grows
 * when Newton is quick and shrinks when it struggles or a stride fails.
 * Because mu is an unknown, the branch goes round folds.
 *
 * Along the branch three test functions watch the multipliers (eigenvalues
 * of dP^N/dz): det(J - I) (a real multiplier through +1: fold, LP),
 * det(J + I) (through -1: period doubling, PD), and the product of
 * lambda_i lambda_j - 1 over pairs of multipliers, det(J (.) J - I) (a
 * complex pair through the unit circle: Neimark-Sacker, NS; two real
 * multipliers that become a complex pair do not change its sign, and a
 * real pair with product 1 is no NS).  A zero of det(J - I) is a fold only
 * where the branch turns back in mu (the tangent's mu component changes
 * sign, AUTO's fold test); where it does not, another branch crosses this
 * one and the point is a branch point, BP.  A step where more than one changes
 * sign is halved until each change has a stretch of its own; a sign change
 * is located by regula falsi (Illinois) on the arclength between the two
 * points, each trial corrected back onto the branch.
 *
 * Kuznetsov (2004), Elements of Applied Bifurcation Theory, ch. 4 and 10;
 * Doedel, Keller & Kernevez (1991), Int. J. Bifurcation Chaos 1:493 (the
 * point labels EP, LP, PD, NS, MX are AUTO's).  The library never prints:
 * every point goes to a callback. */
#ifndef STRIDEMAP_CONTINUATION_H
#define STRIDEMAP_CONTINUATION_H

#include <stdbool.h>

#include "stridemap/fixedpoint.h"
#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"

typedef enum {
    SM_POINT_REGULAR, /* an ordinary point of the branch */
    SM_POINT_EP,      /* end point: the start, a bound, the last point */
    SM_POINT_LP,      /* limit point (fold): a real multiplier through +1 */
    SM_POINT_PD,      /* period doubling (flip): a real multiplier through -1 */
    SM_POINT_NS,      /* Neimark-Sacker: a complex pair through the unit circle */
    SM_POINT_MX,      /* failure: no gait here (the stride failed or Newton did not converge) */
    SM_POINT_BP       /* branch point: a real multiplier through +1 where the branch does not
                         turn (another branch of gaits crosses this one) */
} sm_point_type;

/* AUTO's label: "", "EP", "LP", "PD", "NS", "MX" or "BP". */
const char *sm_point_label(sm_point_type t);

/* Why a continuation ended. */
typedef enum {
    SM_STOP_BOUND,        /* the parameter reached lo or hi */
    SM_STOP_MAX_POINTS,   /* max_points were computed */
    SM_STOP_START_FAILED, /* no gait at the start */
    SM_STOP_FAILED,       /* the step shrank below h_min: strides fail or Newton diverges ahead */
    SM_STOP_CALLBACK      /* the callback asked to stop */
} sm_cont_stop;

/* Stable snake_case name: "bound", "max_points", "start_failed", "failed", "callback". */
const char *sm_cont_stop_name(sm_cont_stop s);

typedef struct {
    size_t param;      /* index of the continued parameter */
    double lo, hi;     /* the branch is followed while lo <= mu <= hi */
    int direction;     /* +1: set off towards larger mu, -1: smaller */
    int period;        /* N: fixed points of P^N (default 1) */
    double h0;         /* first arclength step (default 1e-3) */
    double h_min;      /* smallest step before giving up (default 1e-8) */
    double h_max;      /* largest step (default 0.05) */
    int max_points;    /* regular points computed, start included (default 500) */
    double tol;        /* a point (the start included) is on the branch only when its residual
                          max |P^N(z) - z| (and the invariant's equation) is <= tol (default 1e-10) */
    int max_iter;      /* corrector iterations per step (default 8) */
    int fast_iter;     /* at most this many iterations: grow the step (default 3) */
    double fd_step;    /* finite-difference step; 0 means sqrt(rtol) */
    bool central;      /* central differences in the corrector (default true: P^N of a
                          walker is too curved for forward ones when N > 1) */
    double weight;     /* the parameter's weight in the arclength norm (default 1) */
    bool locate;       /* detect and locate LP, PD, NS (default true) */
    double locate_tol; /* a bifurcation is located when its bracket in mu is this narrow (default 1e-10) */
    sm_newton_options start; /* Newton at the start point (its period is overridden by `period`;
                                its jacobian is the corrector's dF/dz too) */
    double orient[SM_MAX_STATE + 1]; /* if non-zero: the first tangent t in (z, w mu) has t . orient > 0
                                       (overrides direction; set by sm_cont_switch_pd) */
    sm_newton_update update; /* the corrector's Jacobian: SM_NEWTON_BROYDEN (default: the last
                                one, its free-coordinate block the last point's stability
                                Jacobian, carried by rank-one updates and differenced anew
                                where a step fails to halve the residual) or SM_NEWTON_FULL
                                (differenced at every iteration) */
} sm_cont_options;

/* Fills o with the defaults above for parameter index `param`, lo and hi
 * from the parameter's admissible range. */
void sm_cont_options_default(sm_cont_options *o, const sm_model *m, size_t param);

/* Checks the options against the model; why gets a line naming the bad one. */
sm_status sm_cont_options_check(const sm_cont_options *o, const sm_model *m, char *why, size_t why_len);

/* One point of a branch. */
typedef struct {
    sm_point_type type;
    SM_GAIT_MEMBER;             /* period N, x, multipliers of P^N, stability, metrics of
                                   the first step (family NULL, minimal_period N: not sought) */
    double mu;                  /* the continued parameter's value */
    int iterations;             /* corrector iterations */
    double residual;            /* max |P^N(z) - z| */
    double arclength;           /* from the start of the branch */
    sm_status status;           /* SM_OK, or why there is no gait (MX) */
    double eigvec[SM_MAX_STATE]; /* PD, LP and BP: unit eigenvector of the critical multiplier, [n_free] */
    double tangent[SM_MAX_STATE + 1]; /* unit direction of the branch in (z, mu) */
} sm_cont_point;

/* Receives every point in branch order, bifurcations included.  A non-zero
 * return stops the continuation (SM_STOP_CALLBACK). */
typedef int (*sm_cont_fn)(void *ctx, const sm_cont_point *pt);

#define SM_CONT_MAX_SPECIAL 64

typedef struct {
    sm_cont_stop stop;
    sm_status status;          /* SM_OK unless the run failed (start, or a stall) */
    sm_status stride_status;   /* the last failed stride's status, SM_OK if none */
    double stop_mu;            /* where it stopped: the last good point's mu */
    int n_points;              /* points handed to the callback */
    long stride_evals;
    sm_cont_point last;        /* the last good point */
    int n_special;             /* LP, PD, NS and BP points found, at most SM_CONT_MAX_SPECIAL kept */
    sm_cont_point special[SM_CONT_MAX_SPECIAL];
} sm_cont_result;

/* Follows the branch of P^N fixed points through x_guess at p (a full
 * state; p[o->param] is the start value) until a bound, max_points or a
 * failure.  The start point is found with Newton at fixed p.  Returns r->status.
 * The branch's state (~130 KB) lives in ws, allocated on its first branch
 * and kept. */
sm_status sm_continue(sm_workspace *ws, const double *p, const double *x_guess,
                      const sm_cont_options *o, sm_cont_fn cb, void *ctx, sm_cont_result *r);

/* sm_continue in parts, for a caller that drives the branch itself:
 *
 *     sm_cont_state *s = sm_cont_state_create();
 *     if (sm_cont_start(s, ws, p, x, &o, cb, ctx, &r) == SM_OK) {
 *         while (sm_cont_more(s) && sm_cont_step(s) == SM_OK && sm_cont_accept(s)) {}
 *         sm_cont_finish(s);
 *     }
 *     sm_cont_state_free(s);
 *
 * The state refers to ws, o, cb's ctx and r until sm_cont_finish. */
typedef struct sm_cont_state sm_cont_state;

/* A state for one branch at a time (NULL if out of memory). */
sm_cont_state *sm_cont_state_create(void);
void sm_cont_state_free(sm_cont_state *s);

/* The start: Newton at fixed p, the first point's analysis and tangent.  On
 * failure the branch is over: r says why (the start's MX point, if any,
 * went to cb) and the status is returned; do not call the others. */
sm_status sm_cont_start(sm_cont_state *s, sm_workspace *ws, const double *p, const double *x_guess,
                        const sm_cont_options *o, sm_cont_fn cb, void *ctx, sm_cont_result *r);

/* Whether the branch may take another step (open, fewer than max_points points). */
bool sm_cont_more(const sm_cont_state *s);

/* Predicts and corrects the next point, halving the step until it lands on
 * the branch; non-SM_OK (why the last try failed) once the step is below
 * h_min: the branch then stops (SM_STOP_FAILED), call sm_cont_finish. */
sm_status sm_cont_step(sm_cont_state *s);

/* Takes the point sm_cont_step found: locates the bifurcations between it
 * and the last, hands the last and those to cb, moves on and adapts the
 * step.  False when the branch stops here (a bound, or cb asked to). */
bool sm_cont_accept(sm_cont_state *s);

/* Closes the branch (its last point as EP, an MX after a failure) and
 * completes r; returns r->status. */
sm_status sm_cont_finish(sm_cont_state *s);

/* From a period-doubling point pd of a period-N branch (p: the parameters,
 * p[o->param] ignored), a point of the period-2N branch: solves
 * P^2N(z; mu) = z with v . (z - z_pd) = amplitude (v the eigenvector of -1),
 * so it works on either side of the bifurcation, and checks the result is
 * not the period-N point.  Fills x (full state), *mu, and *next: o with
 * period 2N and the first tangent pointed away from the PD, ready for
 * sm_continue(ws, p with p[param] = *mu, x, next, ...).  amplitude 0 means
 * 1e-3 of the state's scale (at least 1e-4). */
sm_status sm_cont_switch_pd(sm_workspace *ws, const double *p, const sm_cont_point *pd,
                            const sm_cont_options *o, double amplitude, double *x, double *mu,
                            sm_cont_options *next);

/* ---- the branch tree: a branch, and the period-doubled branches at its PDs */

typedef struct {
    bool do_switch;     /* follow the period-2N branch from every PD (default false) */
    int max_period;     /* ... while 2N <= max_period (default 16) */
    double amplitude;   /* the first period-2N point's distance from the PD; 0: 1e-3 of the
                           free state's size (at least 1e-4).  If a switch fails at that
                           amplitude, 2.5 and 0.4 times it are tried. */
    int max_branches;   /* branches followed at most, the first included (default 256) */
} sm_cont_tree_options;

/* Fills t with the defaults above. */
void sm_cont_tree_options_default(sm_cont_tree_options *t);

/* A branch of the tree once followed. */
typedef struct {
    int index;                 /* 0, 1, ... in the order found (breadth first) */
    int parent;                /* the branch it doubled from, -1 for the first */
    double parent_pd;          /* the PD's parameter value on the parent, NaN for the first */
    double start_mu;           /* where it started */
    const sm_cont_options *o;  /* its options (period 2^k N) */
    const sm_cont_result *r;   /* how it went */
} sm_cont_branch;

/* Where the tree's points and branches go.  Any callback may be NULL. */
typedef struct {
    /* Every point of branch `branch`; non-zero stops the whole tree. */
    int (*point)(void *ctx, int branch, const sm_cont_point *pt);
    /* Each branch once followed, before switching from its PDs. */
    void (*branch)(void *ctx, const sm_cont_branch *b);
    /* A PD of branch `branch` from which no period-2N branch could be found (why: st). */
    void (*switch_failed)(void *ctx, int branch, const sm_cont_point *pd, sm_status st);
    void *ctx;
} sm_cont_tree_fns;

typedef struct {
    sm_status status;       /* SM_OK, SM_NO_MEMORY, or the first branch's status */
    int n_branches;         /* followed */
    sm_cont_stop first_stop; /* why the first branch ended (SM_STOP_START_FAILED: no gait at the start) */
    double start_residual;  /* at a failed start: the residual Newton got to, else NaN */
    bool stopped;           /* a point callback stopped the tree */
} sm_cont_tree_result;

/* Follows the branch through x_guess at p (as sm_continue), then, with
 * t->do_switch, the period-doubled branch from each PD it found (by
 * sm_cont_switch_pd), and so on breadth first up to t->max_period and
 * t->max_branches branches. */
sm_status sm_cont_tree(sm_workspace *ws, const double *p, const double *x_guess, const sm_cont_options *o,
                       const sm_cont_tree_options *t, const sm_cont_tree_fns *fns, sm_cont_tree_result *res);

/* Continuation's three steps as a caller was given them: each one given or
 * not; a value not given holds the caller's default (step 1e-3 and
 * step_min 1e-8 are the program's; step_max's is worked out). */
typedef struct {
    double step, step_min, step_max; /* sm_cont_options.h0, h_min, h_max */
    bool have_step, have_step_min, have_step_max;
} sm_cont_steps;

/* Sets o->h0, h_min, h_max from s for a continuation over [from, to] at
 * o->weight: a step given is kept; a default never crosses a step given,
 * and step_max's default is 0.02 or weight |to - from| / 20, the larger.
 * SM_BAD_OPTION, with why naming the two, when given steps disagree. */
sm_status sm_cont_steps_apply(const sm_cont_steps *s, double from, double to, sm_cont_options *o, char *why,
                              size_t why_len);

#endif
