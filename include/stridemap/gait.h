/* A gait as the fixed-point layer and the continuation both describe it.
 *
 * A gait is a fixed point x of P^N on the section.  Its stability comes
 * from the multipliers, the eigenvalues of dP^N/dz in the free coordinates
 * z (Garcia 1999, ch. 2.9): stable when every one judged lies inside the
 * unit circle.  A model with a conserved quantity has one multiplier 1 by
 * that law (moving along the family of gaits); it is reported, not judged.
 * sm_gait_analyse() is the one place that judgement is made, for fixed
 * points, branch points, search and sweep alike. */
#ifndef STRIDEMAP_GAIT_H
#define STRIDEMAP_GAIT_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/stride.h"

/* The fields of sm_gait, listed once: sm_fixed_result and sm_cont_point
 * embed them as an anonymous member (so r.eig_re and r.gait.eig_re name the
 * same storage) next to a named sm_gait `gait`. */
#define SM_GAIT_FIELDS                                                                             \
    int period;               /* N: x is a fixed point of P^N */                                    \
    int minimal_period;       /* the shortest d dividing N with P^d(x) = x (N if none, or not known) */ \
    size_t n_state, n_free;                                                                        \
    double x[SM_MAX_STATE];   /* the full section state */                                         \
    double jacobian[SM_MAX_STATE * SM_MAX_STATE]; /* dP^N/dz, row-major, n_free x n_free */         \
    double eig_re[SM_MAX_STATE], eig_im[SM_MAX_STATE]; /* multipliers, by decreasing modulus */     \
    double max_abs_eig;       /* over the multipliers that judge stability (NaN: not known) */     \
    bool stable;              /* every such |multiplier| < 1 */                                    \
    int trivial_index;        /* the multiplier that is 1 by a conservation law, or -1 */          \
    sm_step_metrics metrics;  /* of the first step from x */                                       \
    const char *family;       /* the model's name for the gait's family, or NULL */                \
    bool jacobian_exact;      /* jacobian by sensitivities (else finite differences) */

typedef struct {
    SM_GAIT_FIELDS
} sm_gait;

/* Embeds a gait in a result: `gait` and its fields by their own names. */
#define SM_GAIT_MEMBER                                                                             \
    union {                                                                                        \
        sm_gait gait;                                                                              \
        struct {                                                                                   \
            SM_GAIT_FIELDS                                                                         \
        };                                                                                         \
    }

/* Stability of the gait g->x at p (a converged fixed point of P^g->period,
 * g->n_free set): the Jacobian exact by sm_map_jacobian_exact where the
 * model and method allow (g->jacobian_exact), else by
 * sm_stability_jacobian at step h (strides added to *evals), the multipliers, the trivial one for a model with an
 * invariant, max |multiplier| over the others and the verdict.  On failure
 * (a stride or LAPACK) max_abs_eig stays NaN and stable false. */
sm_status sm_gait_analyse(sm_workspace *ws, const double *p, double h, sm_gait *g, long *evals);

/* sm_gait_analyse with the Jacobian by finite differences only
 * (sm_stability_jacobian at step h), as a cross-check of the exact one. */
sm_status sm_gait_analyse_fd(sm_workspace *ws, const double *p, double h, sm_gait *g, long *evals);

/* The model's extra measures (sm_model.extra_measures) of a converged gait
 * into values[n_extra]; false, with no values, when the model has none or
 * all of them are NaN (they do not apply to this walker). */
bool sm_gait_extra_measures(sm_workspace *ws, const double *p, const sm_gait *g, double *values);

/* The contact checks of a gait (seed 000, eqs. 25-26): the ground only
 * pushes (unilateral) and friction holds with coefficient mu (no_slip).
 * Where the model measures each ground contact point and each foot (a body
 * walker's extra measures min_normal_force and max_foot_friction_ratio,
 * given in extra, which may be NULL), those are judged: a total force that
 * pushes can hide a toe corner that pulls.  Otherwise the stance foot's
 * force in the metrics.  A force that reaches zero (a spring leg at
 * toe-off) passes down to rounding, 1e-9 of the walker's weight.  mu NaN:
 * the coefficient the model's contacts declare, else 1.  per_foot is the
 * seed's own check where the model measures feet (min_foot_normal_force):
 * each foot's summed force, which pushes even where one of its corners
 * pulls; unilateral and no_slip are the stricter verdict. */
typedef struct {
    bool known;                  /* false: the model measures no ground force */
    bool unilateral, no_slip;
    double mu;                   /* the coefficient judged against */
    const char *mu_from;         /* "option", "model" or "default" */
    double min_normal_force;     /* the values judged */
    double max_friction_ratio;
    bool per_point;              /* judged per contact point and per foot */
    struct {
        bool known, unilateral, no_slip;
        double min_normal_force, max_friction_ratio;
    } per_foot;                  /* seed 000 eqs. 25-26 as written: each foot's sum */
} sm_contact_checks;

void sm_gait_contact_checks(const sm_model *m, const double *p, const sm_step_metrics *mt, const double *extra,
                            double mu, sm_contact_checks *out);

/* orbit[k * n_state], k = 0 .. period - 1: the states of the period-N
 * gait through x (x first), each just after its heel-strike.  Returns how
 * many were filled: period, or fewer if a stride fails. */
/* The name of a mode: "sagittal", "lateral", "heading" ("?" out of range). */
const char *sm_mode_name(int mode);

/* mode[i] of multiplier i of g (a converged gait with its Jacobian): the
 * kind of the model's free_mode holding the largest share of the squared
 * components of its eigenvector (real and imaginary parts of a complex
 * one), share[i] that share (NULL: not wanted).  SM_BAD_OPTION when the
 * model has no free_mode; SM_LAPACK_FAILED when the eigenvectors fail. */
sm_status sm_gait_modes(const sm_model *m, const sm_gait *g, int *mode, double *share);

/* mag[i * n_free + r]: |component r| of multiplier i's eigenvector (a
 * complex one's modulus), scaled to unit length; multipliers in g's order.
 * SM_LAPACK_FAILED when the eigenvectors fail. */
sm_status sm_gait_eigenvectors(const sm_gait *g, double *mag);

int sm_gait_orbit(sm_workspace *ws, const double *p, const double *x, int period, double *orbit);

/* Eigenvalues of the n x n row-major matrix A, sorted by decreasing modulus. */
sm_status sm_eigenvalues(size_t n, const double *A, double *re, double *im);

#endif
