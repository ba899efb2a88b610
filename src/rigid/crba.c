/* The joint-space inertia matrix by the composite-rigid-body algorithm
 * (Featherstone 2008, §6.2, Table 6.2):
 *     Iᶜ_i = I_i + Σ_{children j} X_jᵀ Iᶜ_j X_j
 *     F = Iᶜ_i S_i,  M_ii = S_iᵀ F;  then up the ancestors j of i:
 *     M_ij = S_jᵀ F,  M_ji = M_ijᵀ,  then F = X_jᵀ F (carried to j's parent).
 * Uses the transforms of the last sm_rigid_forward. */
#include <string.h>

#include "rigid_internal.h"

/* Iᶜ_parent += Xᵀ Iᶜ X, column by column: X maps a unit motion of the parent
 * into the child, Iᶜ turns it into a force, Xᵀ carries that force back. */
static void add_transformed(const double *E, const double *r, const double *Ic, double *Ip)
{
    for (int c = 0; c < 6; c++) {
        double e[6] = {0, 0, 0, 0, 0, 0}, mc[6], fc[6], fp[6];
        e[c] = 1.0;
        sp_xmot(E, r, e, mc);
        m6_mul_v(Ic, mc, fc);
        sp_xtforce(E, r, fc, fp);
        for (int k = 0; k < 6; k++) Ip[6 * k + c] += fp[k];
    }
}

void sm_rigid_mass(const sm_rigid_model *m, sm_rigid_data *d, double *M)
{
    if (m->use_planar) {
        sm_rigid_planar_mass(m, d, M);
        return;
    }
    size_t nv = m->nv;
    memset(M, 0, nv * nv * sizeof *M);
    memcpy(d->Ic, m->I6, 36 * m->nlink * sizeof(double));
    for (size_t L = m->nlink; L-- > 0;)
        if (m->parent[L] >= 0)
            add_transformed(d->E + 9 * L, d->r + 3 * L, d->Ic + 36 * L, d->Ic + 36 * m->parent[L]);
    for (size_t L = 0; L < m->nlink; L++) {
        const double *S = m->S + 18 * L;
        for (size_t c = 0; c < m->nd[L]; c++) {
            double col[6], F[6];
            for (int k = 0; k < 6; k++) col[k] = S[3 * k + c];
            m6_mul_v(d->Ic + 36 * L, col, F);
            size_t row = m->vadr[L] + c;
            size_t j = L;
            for (;;) {
                const double *Sj = m->S + 18 * j;
                for (size_t cj = 0; cj < m->nd[j]; cj++) {
                    double s = 0.0;
                    for (int k = 0; k < 6; k++) s += Sj[3 * k + cj] * F[k];
                    size_t colidx = m->vadr[j] + cj;
                    M[row * nv + colidx] = s;
                    M[colidx * nv + row] = s;
                }
                if (m->parent[j] < 0) break;
                double Fp[6];
                sp_xtforce(d->E + 9 * j, d->r + 3 * j, F, Fp);
                memcpy(F, Fp, sizeof F);
                j = (size_t)m->parent[j];
            }
        }
    }
}

void sm_rigid_mass_bias(const sm_rigid_model *m, sm_rigid_data *d, double *M, double *bias)
{
    if (m->use_planar) {
        sm_rigid_planar_mass_bias(m, d, M, bias);
        return;
    }
    sm_rigid_mass(m, d, M);
    sm_rigid_bias(m, d, bias);
}
