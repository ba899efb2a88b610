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

/* The Schur solve on the factored L (n x n), the rows J and J̃ (Jt, NULL
 * without friction: J̃ = J) and rhs u = τ − C v − G: v̇ and λ.  With
 * M = L Lᵀ, A = (L⁻¹Jᵀ)ᵀ (L⁻¹J̃ᵀ) and J M⁻¹ u = (L⁻¹Jᵀ)ᵀ L⁻¹ u: the rows need
 * only forward substitutions, and v̇ = L⁻ᵀ(L⁻¹u + L⁻¹J̃ᵀλ) one backward
 * one, where M⁻¹ per row took both.  J, Jt, u are overwritten.  Inlined:
 * as a call (ten arguments) it cost 0.5 % of a compass stride. */
static inline __attribute__((always_inline)) sm_status schur_solve(const double *L, size_t n, double *J, double *Jt, size_t rows, const double *jdv,
                             double *u, double *A, double *vdot, double *lam)
{
    size_t rp[SM_RIGID_MAX_ROWS], cp[SM_RIGID_MAX_ROWS];
    sm_rigid_chol_forward(L, n, u);
    if (rows == 0) {
        memcpy(vdot, u, n * sizeof *vdot);
        sm_rigid_chol_backward(L, n, vdot);
        return SM_OK;
    }
    const double *Zt = J;
    if (Jt) {
        for (size_t j = 0; j < rows; j++) sm_rigid_chol_forward(L, n, Jt + j * n);
        Zt = Jt;
    }
    for (size_t j = 0; j < rows; j++) sm_rigid_chol_forward(L, n, J + j * n);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < rows; j++) {
            double s = 0.0;
            for (size_t k = 0; k < n; k++) s += J[i * n + k] * Zt[j * n + k];
            A[i * rows + j] = s;
        }
    if (!sm_rigid_lu(A, rows, rp, cp, RANK_TOL)) return SM_SINGULAR_CONSTRAINTS;
    for (size_t i = 0; i < rows; i++) {
        double s = -jdv[i];
        for (size_t k = 0; k < n; k++) s -= J[i * n + k] * u[k];
        lam[i] = s;
    }
    sm_rigid_lu_solve(A, rows, rp, cp, lam);
    for (size_t k = 0; k < n; k++) {
        double s = u[k];
        for (size_t j = 0; j < rows; j++) s += Zt[j * n + k] * lam[j];
        vdot[k] = s;
    }
    sm_rigid_chol_backward(L, n, vdot);
    return SM_OK;
}

/* Keeps the columns keep[0..nk) of the rows×n matrix X listed in row_keep
 * as true, packed in place: each entry moves to a lower index. */
static void pack(double *X, size_t n, size_t rows, const bool *row_keep, const size_t *keep, size_t nk)
{
    size_t out = 0;
    for (size_t i = 0; i < rows; i++) {
        if (!row_keep[i]) continue;
        for (size_t j = 0; j < nk; j++) X[out * nk + j] = X[i * n + keep[j]];
        out++;
    }
}

/* A lock holds one coordinate (J a unit row, J̇v = 0), so it is eliminated
 * exactly rather than solved for: its coordinate's v̇ is 0, the rest solve
 * the smaller system M_FF v̇_F = u_F + J̃_FᵀλF over the free coordinates F
 * and the other rows, and the lock's force is its row of the equations,
 * λ_k = (M v̇ − u − J̃ᵀλ)_k.  Cholesky, Schur complement and LU all shrink
 * (the kneed walkers: 6 coordinates and 3-4 rows to 5-4 and 2). */
sm_status sm_rigid_constrained_accel(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c,
                                     size_t nc, const double *tau, double *vdot, double *lambda, double *work)
{
    size_t nv = m->nv, rows = sm_contact_set_rows(m, c, nc);
    if (nv > SM_RIGID_MAX_V || rows > SM_RIGID_MAX_ROWS) return SM_BAD_PARAM;
    double *M = work, *J = M + nv * nv, *Jt = J + rows * nv, *Mk = Jt + rows * nv, *A = Mk + rows * nv;
    double *jdv = A + rows * rows, *u = jdv + rows;
    if (m->use_planar) {
        sm_rigid_planar_mass_bias(m, d, M, u);
    } else {
        sm_rigid_mass(m, d, M);
        sm_rigid_bias(m, d, u);
    }
    for (size_t i = 0; i < nv; i++) u[i] = (tau ? tau[i] : 0.0) - u[i];
    double lam[SM_RIGID_MAX_ROWS];
    size_t nk = 0;
    bool friction = false;
    for (size_t k = 0; k < nc; k++) {
        nk += c[k].kind == SM_CONTACT_LOCK;
        friction |= c[k].kind == SM_CONTACT_SLIDE && c[k].mu != 0.0;
    }
    if (rows > 0) {
        sm_contact_jacobian(m, d, c, nc, J, jdv, Jt);
        /* J̃ overwrites Jt, last contact first: contact k's tangential row
         * sits at Jt + k nv and its rows start at or after k, so no row is
         * overwritten before it is read.  Without friction J̃ = J. */
        size_t row = rows;
        for (size_t k = nc; friction && k-- > 0;) {
            size_t nr = sm_contact_rows(m, &c[k]);
            row -= nr;
            double f = c[k].kind == SM_CONTACT_SLIDE ? c[k].mu * (c[k].slide_sign < 0 ? -1.0 : 1.0) : 0.0;
            for (size_t r = nr; r-- > 0;) {
                double *dst = Jt + (row + r) * nv;
                const double *t = Jt + k * nv;
                for (size_t j = 0; j < nv; j++) dst[j] = J[(row + r) * nv + j] - (r == 0 ? f * t[j] : 0.0);
            }
        }
    }
    if (nk == 0) {
        if (!sm_rigid_chol(M, nv)) return SM_SINGULAR_CONSTRAINTS;
        const sm_status st = schur_solve(M, nv, J, friction ? Jt : NULL, rows, jdv, u, A, vdot, lam);
        if (st != SM_OK) return st;
        if (lambda) memcpy(lambda, lam, rows * sizeof *lambda);
        return SM_OK;
    }
    bool locked[SM_RIGID_MAX_V] = {false}, other[SM_RIGID_MAX_ROWS];
    size_t lock_at[SM_RIGID_MAX_ROWS], lock_row[SM_RIGID_MAX_ROWS];
    nk = 0;
    for (size_t k = 0, row = 0; k < nc; k++) {
        const size_t nr = sm_contact_rows(m, &c[k]);
        for (size_t r = 0; r < nr; r++) other[row + r] = c[k].kind != SM_CONTACT_LOCK;
        if (c[k].kind == SM_CONTACT_LOCK) {
            const size_t at = sm_rigid_body_vadr(m, c[k].body);
            if (locked[at]) return SM_SINGULAR_CONSTRAINTS; /* two locks on one coordinate: dependent rows */
            locked[at] = true;
            lock_at[nk] = at;
            lock_row[nk++] = row;
        }
        row += nr;
    }
    /* the locked rows of M and u, and the other rows' J̃ on the locked
     * columns, before packing drops them */
    size_t free_at[SM_RIGID_MAX_V], nf = 0, ro = rows - nk;
    for (size_t i = 0; i < nv; i++)
        if (!locked[i]) free_at[nf++] = i;
    double uk[SM_RIGID_MAX_ROWS], jk[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_ROWS / 4 + 1];
    _Static_assert(SM_RIGID_MAX_ROWS % 2 == 0, "ro nk <= (rows / 2)^2");
    const double *Jk = friction ? Jt : J;
    for (size_t i = 0; i < nk; i++) {
        memcpy(Mk + i * nv, M + lock_at[i] * nv, nv * sizeof *Mk);
        uk[i] = u[lock_at[i]];
    }
    for (size_t o = 0, out = 0; o < rows; o++) {
        if (!other[o]) continue;
        for (size_t i = 0; i < nk; i++) jk[out * nk + i] = Jk[o * nv + lock_at[i]];
        out++;
    }
    bool free_row[SM_RIGID_MAX_V];
    for (size_t i = 0; i < nv; i++) free_row[i] = !locked[i];
    pack(M, nv, nv, free_row, free_at, nf);
    for (size_t i = 0; i < nf; i++) u[i] = u[free_at[i]];
    pack(J, nv, rows, other, free_at, nf);
    if (friction) pack(Jt, nv, rows, other, free_at, nf);
    for (size_t o = 0, out = 0; o < rows; o++)
        if (other[o]) jdv[out++] = jdv[o];
    if (!sm_rigid_chol(M, nf)) return SM_SINGULAR_CONSTRAINTS;
    double vf[SM_RIGID_MAX_V], lo[SM_RIGID_MAX_ROWS];
    const sm_status st = schur_solve(M, nf, J, friction ? Jt : NULL, ro, jdv, u, A, vf, lo);
    if (st != SM_OK) return st;
    memset(vdot, 0, nv * sizeof *vdot);
    for (size_t i = 0; i < nf; i++) vdot[free_at[i]] = vf[i];
    for (size_t o = 0, out = 0; o < rows; o++)
        if (other[o]) lam[o] = lo[out++];
    for (size_t i = 0; i < nk; i++) {
        double s = -uk[i];
        for (size_t j = 0; j < nv; j++) s += Mk[i * nv + j] * vdot[j];
        for (size_t o = 0; o < ro; o++) s -= jk[o * nk + i] * lo[o];
        lam[lock_row[i]] = s;
    }
    if (lambda) memcpy(lambda, lam, rows * sizeof *lambda);
    return SM_OK;
}
