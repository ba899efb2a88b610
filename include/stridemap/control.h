/* Controllers inside the stride map (issue 13): the pure functions of
 * hybrid-zero-dynamics control (Westervelt, Grizzle, Chevallereau, Choi &
 * Morris 2007, ch. 5-6).  No I/O, no allocation: every array is the
 * caller's, at most SM_CTRL_MAX_* long.
 *
 * Phase variable θ = c·q, normalised s = (θ − θ⁺)/(θ⁻ − θ⁺) (0 at the
 * step's start, 1 at its end).  Virtual constraints (outputs)
 *     y = H q − h_d(θ),   ẏ = (H − h_d'(θ) cᵀ) q̇,
 *     ÿ = (H − h_d'(θ) cᵀ) q̈ − h_d''(θ) (c·q̇)²,
 * each h_d,i a power series in θ, or in s a Bézier polynomial, a natural
 * cubic spline through points or a Fourier series.  With the
 * dynamics affine in the torques, q̈ = a + K τ, input-output linearisation
 * solves (L_gL_f y) τ = −(K_D/ε) ẏ − (K_P/ε²) y − (J_y a + b) for τ, with
 * J_y = H − h_d' cᵀ, b = −h_d'' θ̇² and L_gL_f y = J_y K. */
#ifndef STRIDEMAP_CONTROL_H
#define STRIDEMAP_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/status.h"

#define SM_CTRL_MAX_Q 48    /* coordinates (nq = nv: 1-DOF joints) */
#define SM_CTRL_MAX_Y 8     /* outputs = actuators */
#define SM_CTRL_MAX_COEF 16 /* coefficients of one h_d (degree 15) */

/* Bézier polynomial of degree M (a[M+1]) at s: out = (h, dh/ds, d²h/ds²).
 * h(0) = a₀, h(1) = a_M, h'(0) = M (a₁ − a₀), h'(1) = M (a_M − a_{M−1}). */
void sm_bezier(const double *a, size_t M, double s, double out[3]);

/* Power series Σ a_k x^k of degree M (a[M+1]) at x: out = (h, h', h''). */
void sm_poly(const double *a, size_t M, double x, double out[3]);

/* Natural cubic spline through (knots[k], values[k]), k < n (2 <= n <=
 * SM_CTRL_MAX_COEF, knots increasing: the caller's check) at s: out = (h,
 * h', h'').  h'' is 0 at the end knots; beyond them the end pieces' cubics
 * continue.  Two points give the straight line. */
void sm_spline(const double *knots, const double *values, size_t n, double s, double out[3]);

/* Fourier series a₀ + Σ_{k=1..K} (a_{2k−1} cos(2πks/P) + a_{2k} sin(2πks/P))
 * of period P (a[2K+1]) at s: out = (h, h', h''). */
void sm_fourier(const double *a, size_t K, double period, double s, double out[3]);

typedef enum { SM_BASIS_POLY, SM_BASIS_BEZIER, SM_BASIS_SPLINE, SM_BASIS_FOURIER } sm_basis;

/* The virtual constraints at one parameter point. */
typedef struct {
    size_t nq, ny;
    double c[SM_CTRL_MAX_Q];                    /* θ = c·q */
    double theta_plus, theta_minus;            /* θ at the step's start and end */
    double H[SM_CTRL_MAX_Y][SM_CTRL_MAX_Q];
    sm_basis basis;                            /* POLY: h_d in θ; the others in s */
    size_t degree[SM_CTRL_MAX_Y];              /* a[i] holds degree[i] + 1 numbers */
    double a[SM_CTRL_MAX_Y][SM_CTRL_MAX_COEF];
    /* SPLINE: a[i] the values at knots[i] (in s, increasing); FOURIER: a[i]
     * = (a₀, cos₁, sin₁, cos₂, ...), degree[i] = 2K, of period[i] in s */
    double knots[SM_CTRL_MAX_Y][SM_CTRL_MAX_COEF];
    double period[SM_CTRL_MAX_Y];
} sm_vc;

/* What the outputs are at (q, v). */
typedef struct {
    double theta, theta_dot, s;
    double y[SM_CTRL_MAX_Y], dy[SM_CTRL_MAX_Y];
    double J[SM_CTRL_MAX_Y][SM_CTRL_MAX_Q]; /* J_y = H − h_d' cᵀ */
    double b[SM_CTRL_MAX_Y];                /* ÿ = J_y q̈ + b */
    /* integral action on output i, ki_i z_i with z_i an integrator's state
     * (0 where none: sm_vc_eval clears it, the caller sets it) */
    double iz[SM_CTRL_MAX_Y];
} sm_vc_value;

/* h_d(θ) of output i and its first two θ-derivatives. */
void sm_vc_desired(const sm_vc *vc, size_t i, double theta, double out[3]);

/* y, ẏ, J_y and b at (q, v[nq]). */
void sm_vc_eval(const sm_vc *vc, const double *q, const double *v, sm_vc_value *out);

/* Input-output linearisation: the torques tau[ny] with ÿ = −(kd/eps) ẏ −
 * (kp/eps²) y − iz/eps³ (with ż = y: the characteristic polynomial
 * λ³ + (kd/ε)λ² + (kp/ε²)λ + ki/ε³, Hurwitz when kp kd > ki), from the drift accelerations a[nq] (τ = 0) and the
 * response K[nq × nu] (row-major) to unit torques.  nu must equal ny.
 * SM_SINGULAR_DECOUPLING when J_y K is singular (a pivot below 1e-12 of
 * its largest entry). */
sm_status sm_ctrl_io_linearise(const sm_vc *vc, const sm_vc_value *val, const double *a, const double *K, size_t nu,
                               double kp, double kd, double eps, double *tau);

/* PD tracking of the outputs through the input matrix B[nq × nu]
 * (row-major): (H B) tau = −kp y − kd ẏ − iz, so that each torque pushes its
 * output back whatever the signs of B (tau_i = −kp y_i − kd ẏ_i where
 * H B = I, outputs that are the actuated joints themselves).
 * SM_SINGULAR_DECOUPLING when H B is singular. */
sm_status sm_ctrl_pd(const sm_vc *vc, const sm_vc_value *val, const double *B, size_t nu, double kp, double kd,
                     double *tau);

/* Clamps each |tau_i| to limit; true if any was above it. */
bool sm_ctrl_saturate(double *tau, size_t nu, double limit);

#endif
