/* The constrained accelerations (Featherstone 2008, §8.1): with the contact
 * rows J and the applied forces τ,
 *     M v̇ = τ − (C v + G) + J̃ᵀ λ,     J v̇ = −J̇ v,
 * where J̃ = J except that a sliding contact's row carries its friction,
 * J̃_k = J_n,k − μ_k s_k J_t,k (F_t = −μ sign(v_t) F_n, seed 002).  Rather
 * than factor the whole saddle-point matrix, M (symmetric positive definite)
 * is factored by Cholesky and the rows by their Schur complement
 *     A = J M⁻¹ J̃ᵀ,   A λ = −J̇v − J M⁻¹ (τ − C v − G),
 * rows × rows, unsymmetric with friction; LU with complete pivoting of A
 * both solves it and tells dependent rows (two pins on one rigid planar
 * foot) by a pivot below 1e-10 of A's largest entry, where a dependent row
 * lands after round-off.  sm_rigid_constrained_accel takes A through the
 * Cholesky factor's forward substitutions alone (below). */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

#define RANK_TOL 1e-10

sm_status sm_rigid_schur(const sm_rigid_model *m, const double *Lm, const double *J, const double *Jtil,
                         size_t rows, double *Y, double *A, size_t *rp, size_t *cp)
{
    size_t nv = m->nv;
    for (size_t j = 0; j < rows; j++) {
        memcpy(Y + j * nv, (Jtil ? Jtil : J) + j * nv, nv * sizeof *Y);
        sm_rigid_chol_solve(Lm, nv, Y + j * nv);
    }
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < rows; j++) {
            double s = 0.0;
            for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * Y[j * nv + k];
            A[i * rows + j] = s;
        }
    return sm_rigid_lu(A, rows, rp, cp, RANK_TOL) ? SM_OK : SM_SINGULAR_CONSTRAINTS;
}

sm_status sm_rigid_constrained_accel(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c,
                                     size_t nc, const double *tau, double *vdot, double *lambda, double *work)
{
    size_t nv = m->nv, rows = sm_contact_set_rows(m, c, nc);
    if (nv > SM_RIGID_MAX_V || rows > SM_RIGID_MAX_ROWS) return SM_BAD_PARAM;
    double *M = work, *J = M + nv * nv, *Jt = J + rows * nv, *A = Jt + 2 * rows * nv;
    double *jdv = A + rows * rows, *u = jdv + rows;
    size_t rp[SM_RIGID_MAX_ROWS], cp[SM_RIGID_MAX_ROWS];
    if (m->use_planar) {
        sm_rigid_planar_mass_bias(m, d, M, u);
    } else {
        sm_rigid_mass(m, d, M);
        sm_rigid_bias(m, d, u);
    }
    if (!sm_rigid_chol(M, nv)) return SM_SINGULAR_CONSTRAINTS;
    for (size_t i = 0; i < nv; i++) u[i] = (tau ? tau[i] : 0.0) - u[i];
    /* With M = L Lᵀ, A = (L⁻¹Jᵀ)ᵀ (L⁻¹J̃ᵀ) and J M⁻¹ f = (L⁻¹Jᵀ)ᵀ L⁻¹ f: the
     * rows need only forward substitutions, and v̇ = L⁻ᵀ(L⁻¹f + L⁻¹J̃ᵀλ) one
     * backward one, where M⁻¹ per row took both. */
    sm_rigid_chol_forward(M, nv, u);
    if (rows == 0) {
        sm_rigid_chol_backward(M, nv, u);
        memcpy(vdot, u, nv * sizeof *vdot);
        return SM_OK;
    }
    sm_contact_jacobian(m, d, c, nc, J, jdv, Jt);
    /* J̃ overwrites Jt, last contact first: contact k's tangential row sits
     * at Jt + k nv and its rows start at or after k, so no row is
     * overwritten before it is read.  Without friction J̃ = J. */
    bool friction = false;
    for (size_t k = 0; k < nc; k++) friction |= c[k].kind == SM_CONTACT_SLIDE && c[k].mu != 0.0;
    const double *Zt = J;
    if (friction) {
        size_t row = rows;
        for (size_t k = nc; k-- > 0;) {
            size_t nr = sm_contact_rows(m, &c[k]);
            row -= nr;
            double f = c[k].kind == SM_CONTACT_SLIDE ? c[k].mu * (c[k].slide_sign < 0 ? -1.0 : 1.0) : 0.0;
            for (size_t r = nr; r-- > 0;) {
                double *dst = Jt + (row + r) * nv;
                const double *t = Jt + k * nv;
                for (size_t j = 0; j < nv; j++) dst[j] = J[(row + r) * nv + j] - (r == 0 ? f * t[j] : 0.0);
            }
        }
        for (size_t j = 0; j < rows; j++) sm_rigid_chol_forward(M, nv, Jt + j * nv);
        Zt = Jt;
    }
    for (size_t j = 0; j < rows; j++) sm_rigid_chol_forward(M, nv, J + j * nv);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < rows; j++) {
            double s = 0.0;
            for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * Zt[j * nv + k];
            A[i * rows + j] = s;
        }
    if (!sm_rigid_lu(A, rows, rp, cp, RANK_TOL)) return SM_SINGULAR_CONSTRAINTS;
    double lam[SM_RIGID_MAX_ROWS];
    for (size_t i = 0; i < rows; i++) {
        double s = -jdv[i];
        for (size_t k = 0; k < nv; k++) s -= J[i * nv + k] * u[k];
        lam[i] = s;
    }
    sm_rigid_lu_solve(A, rows, rp, cp, lam);
    for (size_t k = 0; k < nv; k++) {
        double s = u[k];
        for (size_t j = 0; j < rows; j++) s += Zt[j * nv + k] * lam[j];
        vdot[k] = s;
    }
    sm_rigid_chol_backward(M, nv, vdot);
    if (lambda) memcpy(lambda, lam, rows * sizeof *lambda);
    return SM_OK;
}
