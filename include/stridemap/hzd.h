/* The restricted Poincaré map of a walker under hybrid-zero-dynamics
 * control (Westervelt, Grizzle, Chevallereau, Choi & Morris 2007, §5.4,
 * Theorem 5.3): on the zero dynamics y = 0 the state is (θ, σ), σ the
 * angular momentum about the stance foot, σ = κ₁(θ) θ̇ and σ̇ = κ₂(θ) (the
 * gravity torque about the foot: the pin's force and the joint torques
 * have none).  With ζ = σ²/2, dζ/dθ = κ₁κ₂, so over a step
 *     ζ⁻ = ζ⁺ − V(θ⁻),   V(θ) = −∫_{θ⁺}^{θ} κ₁(ξ) κ₂(ξ) dξ,
 * and the impact gives σ⁺ = δ σ⁻: ρ(ζ⁻) = δ² ζ⁻ − V(θ⁻), whose fixed point
 * is ζ* = −V(θ⁻)/(1 − δ²) with multiplier δ².  It is the full map's
 * restriction only when the zero dynamics is impact invariant: `invariance`
 * says how far the impact throws the zero dynamics' state off y = 0. */
#ifndef STRIDEMAP_HZD_H
#define STRIDEMAP_HZD_H

#include <stdbool.h>

#include "stridemap/model.h"
#include "stridemap/status.h"

typedef struct {
    double theta_plus, theta_minus; /* the phase variable at the step's start and end */
    double delta;                   /* σ⁺ = δ σ⁻ through the impact */
    double multiplier;              /* δ² */
    double v_minus;                 /* V(θ⁻) */
    double v_max;                   /* max V over the step (at the ends of 16 equal panels): ζ⁺
                                       must exceed it to finish the step */
    double zeta_star;               /* ζ⁻ at the fixed point, −V(θ⁻)/(1 − δ²) (NaN if δ² ≥ 1) */
    double zeta_plus;               /* ζ just after the impact at the fixed point, δ² ζ* */
    bool exists;                    /* δ² < 1 and ζ* − V(θ⁻) > v_max, i.e. ζ⁺ > v_max */
    double invariance;              /* max over the outputs of |y⁺|, |ẏ⁺/θ̇⁺| after the impact from
                                       the zero dynamics at θ⁻ (0: impact invariant) */
    double dy_plus[8];              /* each output's ẏ⁺/θ̇⁺ after that impact (the first
                                       SM_CTRL_MAX_Y; 0 when the velocities are invariant) */
    int evaluations;                /* points of the zero dynamics the quadrature used */
} sm_restricted_map;

/* Whether m is a body walker with an input-output linearising controller
 * on a planar tree of 1-DOF joints, to which the restricted map applies. */
bool sm_hzd_applies(const sm_model *m);

/* The restricted map at parameters p; V by adaptive Simpson quadrature to
 * the absolute tolerance tol (e.g. 1e-11).  SM_BAD_PARAM when the map does
 * not apply (sm_hzd_applies), SM_NOT_CONVERGED when the zero dynamics'
 * configuration cannot be solved at some θ (Newton on y = 0, c·q = θ and
 * the stance pin). */
sm_status sm_hzd_restricted_map(const sm_model *m, const double *p, double tol, sm_restricted_map *out);

/* ζ = σ²/2 at the state x, σ its angular momentum about the stance foot
 * (the section's origin contact): the full map's value to compare with
 * zeta_plus at a gait's section state. */
sm_status sm_hzd_zeta(const sm_model *m, const double *p, const double *x, double *zeta);

#endif
