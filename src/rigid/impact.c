/* Plastic impact by generalized impulse (seed 000, eqs. 27–35; Featherstone
 * 2008, §11.4): the contact set c takes an impulse Λ that stops its rows,
 *     [ M  −Jᵀ ] [ v⁺ ]   [ M v⁻ ]
 *     [ J   0  ] [ Λ  ] = [ 0    ],
 * i.e. (J M⁻¹ Jᵀ) Λ = −J v⁻ and v⁺ = v⁻ + M⁻¹ Jᵀ Λ.  A sliding contact takes
 * only its normal impulse (no friction impulse).  One step of refinement on
 * the residual J v⁺ brings it to round-off.  The energy lost is
 * ½ (v⁻ − v⁺)ᵀ M (v⁻ − v⁺) (Carnot's theorem: equal to T⁻ − T⁺ when J v⁺ = 0,
 * and free of the cancellation of that difference). */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

sm_status sm_rigid_impact(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c, size_t nc,
                          const double *v_minus, double *v_plus, double *Lambda, double *energy_lost,
                          double *residual, double *work)
{
    size_t nv = m->nv, rows = sm_contact_set_rows(m, c, nc);
    if (nv > SM_RIGID_MAX_V || rows > SM_RIGID_MAX_ROWS) return SM_BAD_PARAM;
    double *M = work, *J = M + nv * nv, *Y = J + rows * nv, *A = Y + rows * nv, *Mf = A + rows * rows;
    double *dv = Mf + nv; /* nv: Mf reuses the Jt block's room */
    size_t rp[SM_RIGID_MAX_ROWS], cp[SM_RIGID_MAX_ROWS];
    double lam[SM_RIGID_MAX_ROWS], r[SM_RIGID_MAX_ROWS], vp[SM_RIGID_MAX_V];
    sm_rigid_mass(m, d, M);
    /* keep M for the energy: its lower triangle is overwritten by the factor,
     * the diagonal saved in Mf */
    for (size_t i = 0; i < nv; i++) Mf[i] = M[i * nv + i];
    if (!sm_rigid_chol(M, nv)) return SM_SINGULAR_CONSTRAINTS;
    sm_contact_jacobian(m, d, c, nc, J, NULL, NULL);
    sm_status st = sm_rigid_schur(m, M, J, NULL, rows, Y, A, rp, cp);
    if (st != SM_OK) return st;
    memcpy(vp, v_minus, nv * sizeof *vp);
    memset(lam, 0, sizeof lam);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < rows; i++) {
            double s = 0.0;
            for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * vp[k];
            r[i] = -s;
        }
        sm_rigid_lu_solve(A, rows, rp, cp, r);
        for (size_t i = 0; i < rows; i++) lam[i] += r[i];
        for (size_t k = 0; k < nv; k++)
            for (size_t j = 0; j < rows; j++) vp[k] += Y[j * nv + k] * r[j];
    }
    double res = 0.0;
    for (size_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * vp[k];
        res = fmax(res, fabs(s));
    }
    /* ½ δᵀ M δ with M rebuilt from its upper triangle (untouched) and diagonal */
    for (size_t k = 0; k < nv; k++) dv[k] = v_minus[k] - vp[k];
    double e = 0.0;
    for (size_t i = 0; i < nv; i++) {
        e += 0.5 * Mf[i] * dv[i] * dv[i];
        for (size_t j = i + 1; j < nv; j++) e += M[i * nv + j] * dv[i] * dv[j];
    }
    memcpy(v_plus, vp, nv * sizeof *v_plus);
    if (Lambda) memcpy(Lambda, lam, rows * sizeof *Lambda);
    if (energy_lost) *energy_lost = e;
    if (residual) *residual = res;
    return SM_OK;
}
