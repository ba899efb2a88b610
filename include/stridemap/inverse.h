/* Inverse dynamics of a planar body walker from its motion, and the
 * forward simulation those moments drive (seed 002, Hu, Lin, Abel &
 * Allaire, "Human gait modeling: dealing with holonomic constraints",
 * sections IV and V).
 *
 * Per sample, in the contact case (phase) the sample is in, the equations
 * of motion
 *     M(q) q̈ + C(q, q̇) q̇ + G(q) = Sᵀ τ + J̃ᵀ λ
 * are solved for the joint moments τ and the contact forces λ, with q̇ and
 * q̈ from the samples of q by the differentiator below.  The unknowns, for
 * a model whose file has a controller with actuators (unless by_coordinate):
 * - each actuator's input u_j, entering as the generalized force B u (B's
 *   column j the actuator's coefficients on its coordinates, the file's
 *   `on:`), with no ground moment of the inverse's own (a file's τ₀ is one
 *   of its actuators, as models/human9.yaml's tau0); an actuator on several
 *   coordinates (a hip between thigh and torso: on {thigh_a: 1, torso: -1})
 *   gets the input that makes, with the contact forces, the generalized
 *   force the motion needs, by the least squares below; one whose every
 *   coordinate a lock of the phase holds is 0 (the lock's reaction);
 * - the phase's contact forces, as below.
 * For a model without a controller (or by_coordinate):
 * - a moment on every hinge that has a hinge between it and the world (the
 *   joints; the floating base's own turn, and a first hinge on the world
 *   such as a pinned ankle, carry none), except one a lock of the phase
 *   holds, whose moment is the lock's reaction;
 * - the paper's fictitious toe moment τ₀ (ground_moment): a moment from the
 *   ground on the body of the model's section origin contact (the stance
 *   toe), about +y, which stands for the pressure distributed under it;
 * - the phase's contact forces: a pin's (x, z) components, a slide's
 *   normal force F_n with its friction F_t = −μ sign(ẋ) F_n in the same
 *   column (J̃ = J_n − μ s J_t: the paper's F_x = k F_y with k = −μ sign(ẋ)),
 *   a lock's torque.
 * Single support on a pinned toe (ss1) is square: one solution.  A sliding
 * toe (ss2) has one equation more than unknowns (the friction law): the
 * least-squares solution, in the metric rᵀ M⁻¹ r of the residual
 * r = M q̈ + C q̇ + G − Sᵀτ − J̃ᵀλ (the kinetic-energy norm of the
 * acceleration misfit M⁻¹ r, unit independent).  Double support leaves the
 * moments partly free (ds1 by two, ds3 by one; ds2 is square): of the
 * least-squares solutions, the one with the smallest Σ τ² (τ₀ included,
 * contact forces free; Σ u² for the actuators).  `residual` reports
 * √(rᵀ M⁻¹ r), Sᵀτ read B u for the actuators; 0 up to round-off where the
 * data satisfies the phase's equations.  With actuators it also carries the
 * part of the needed generalized force that neither B nor the contacts can
 * make (an underactuated walker's motion off its own dynamics: where one
 * direction y has Bᵀy = 0 and J̃y = 0 it is |yᵀ r₀| / √(yᵀ M y), r₀ the
 * misfit before the moments): the moments are then the least-squares ones
 * and the residual their error in the kinetic-energy norm.  The model
 * file's own springs and controller law are not applied: τ (u) is the whole
 * moment each joint (actuator) carries.
 *
 * Differentiator: Savitzky and Golay's local polynomial, generalised to
 * uneven sampling: at each sample a polynomial of degree `degree` is fitted
 * by least squares to the 2 half_window + 1 samples around it (the window
 * slides inward at the ends of a run so as to keep its length), and q̇, q̈
 * are its derivatives there.  It is exact for polynomials up to that degree
 * and its error is O(h^(degree + 1 − r)) for the r-th derivative at spacing
 * h; a wider window averages out more noise.  Each run of consecutive
 * samples in one phase is differentiated alone, so that an impact's jump in
 * the rates between phases is not smeared across it.  Defaults 3 and 4 (7
 * samples).
 *
 * Forward simulation (playback): the phase's constrained dynamics driven by
 * the moments τ(t), the not-a-knot cubic spline through the samples'
 * moments (C², O(h⁴)), from a state at the first sample; CVODE through
 * the hybrid engine, with the solver options given.  Nothing else acts:
 * no springs, no controller, no events (a contact force changing sign is
 * not checked). */
#ifndef STRIDEMAP_INVERSE_H
#define STRIDEMAP_INVERSE_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/status.h"

typedef struct {
    int half_window;    /* samples each side of the fitted window (>= 1), default 3 */
    int degree;         /* the polynomial's degree (2 .. 2 half_window), default 4 */
    bool ground_moment; /* solve for τ₀ on the section origin contact's body (by coordinate only), default true */
    bool by_coordinate; /* moments by joint coordinate even where the model has actuators, default false */
} sm_inverse_options;

void sm_inverse_options_default(sm_inverse_options *o);
/* SM_BAD_OPTION with a line naming the field when out of range. */
sm_status sm_inverse_options_check(const sm_inverse_options *o, char *why, size_t why_len);

/* The unknowns' layout for one model: made once, read-only afterwards. */
typedef struct sm_inverse sm_inverse;

/* SM_BAD_MODEL_FILE (why says) when m is not a planar body walker. */
sm_status sm_inverse_create(const sm_model *m, const sm_inverse_options *o, sm_inverse **out, char *why,
                            size_t why_len);
void sm_inverse_free(sm_inverse *inv);

/* The coordinates q: their number and names (the file's, e.g. "hat.x", "thigh_a"). */
size_t sm_inverse_nq(const sm_inverse *inv);
size_t sm_inverse_nv(const sm_inverse *inv);
const char *sm_inverse_q_name(const sm_inverse *inv, size_t i);
/* The coordinate (q index) of the controller's clock, -1 when the model has
 * none: the phase variable of a time-indexed controller made a slide on
 * the world of its own, which carries no body and no site (models/human9.yaml's
 * clock).  Nothing else feels it, so the motion does not give it: set it to
 * the samples' times (its rate 1, its acceleration 0, where its drive and
 * damper cancel); its offset does not change the moments. */
int sm_inverse_clock(const sm_inverse *inv);
/* The phases: number, names, and the index of a name (-1: none). */
size_t sm_inverse_n_phases(const sm_inverse *inv);
const char *sm_inverse_phase_name(const sm_inverse *inv, size_t ph);
int sm_inverse_phase_index(const sm_inverse *inv, const char *name);
/* The moments: each actuator's ("<actuator>.torque", the name `simulate`
 * gives its torque) for a model with actuators; else (or by_coordinate)
 * each joint's ("<coordinate>.torque"), then "tau0". */
bool sm_inverse_by_actuator(const sm_inverse *inv);
size_t sm_inverse_n_torques(const sm_inverse *inv);
const char *sm_inverse_torque_name(const sm_inverse *inv, size_t k);
/* The contact forces of every contact some phase holds: "<contact>.fx" and
 * "<contact>.fz" (world frame, on the walker) for pins and slides,
 * "<contact>.torque" for locks; 0 in a phase that does not hold it. */
size_t sm_inverse_n_forces(const sm_inverse *inv);
const char *sm_inverse_force_name(const sm_inverse *inv, size_t k);

/* dy[i * stride], ddy[i * stride] (either may be NULL): the first and
 * second derivatives of the samples y[i * stride], i < n, at the strictly
 * increasing times t[n] by the differentiator of o.  SM_BAD_DATA when n < 2 half_window + 1 or a time
 * does not increase. */
sm_status sm_inverse_differentiate(const sm_inverse_options *o, size_t n, const double *t, const double *y,
                                   size_t stride, double *dy, double *ddy);

/* One sample: τ[n_torques], F[n_forces] and the residual (√(rᵀM⁻¹r)) for
 * the coordinates q[nq], rates v[nv] and accelerations a[nv] in phase ph at
 * parameters p.  SM_SINGULAR_CONSTRAINTS when the phase's contacts are
 * dependent there, SM_BAD_STATE for a non-finite input. */
sm_status sm_inverse_solve(const sm_inverse *inv, const double *p, size_t ph, const double *q, const double *v,
                           const double *a, double *tau, double *F, double *residual);

/* A whole motion: n samples at times t[n], coordinates q[n x nq] (row i at
 * q + i nq), phase[n]; v, a [n x nv] receive the differentiated rates and
 * accelerations, tau [n x n_torques], F [n x n_forces], residual[n].
 * SM_BAD_DATA with a line naming the sample (index from 0) when a time does
 * not increase, a value is not finite, a phase is out of range, or a run of
 * one phase is shorter than the differentiator's window. */
sm_status sm_inverse_run(const sm_inverse *inv, const double *p, size_t n, const double *t, const double *q,
                         const size_t *phase, double *v, double *a, double *tau, double *F, double *residual,
                         char *why, size_t why_len);

/* The forward simulation (playback.c): from the state x0 = (q, v) at t[0]
 * in phase ph, driven by the moments tau[n x n_torques] at the times t[n]
 * (n >= 4), the coordinates and rates at every t[i] into x[n x (nq + nv)]
 * (x[0] is x0 projected onto the phase's contacts).  *done gets the number
 * of samples written; on a failure (the integrator's, a singular contact
 * set) its status, the rest of x NaN. */
sm_status sm_inverse_playback(const sm_inverse *inv, const double *p, const sm_solver_options *so, size_t ph,
                              size_t n, const double *t, const double *tau, const double *x0, double *x,
                              size_t *done);

#endif
