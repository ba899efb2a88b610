/* The bias forces C(q, v)v + G(q) by recursive Newton-Euler at v̇ = 0
 * (Featherstone 2008, §5.3, Table 5.1), gravity entering by accelerating the
 * base by −g (a_0 = [0; −g]), which in link i's coordinates adds [0; −R_iᵀ g]:
 *     a_i = a⁰_i + [0; −R_iᵀ g]
 *     f_i = I_i a_i + v_i ×* I_i v_i
 *     τ_i = S_iᵀ f_i,   f_λ(i) += X_iᵀ f_i   (leaves to root). */
#include <string.h>

#include "rigid_internal.h"

void sm_rigid_bias(const sm_rigid_model *m, sm_rigid_data *d, double *bias)
{
    if (m->use_planar) {
        sm_rigid_planar_bias(m, d, bias);
        return;
    }
    sm_rigid_poses(m, d);
    for (size_t L = 0; L < m->nlink; L++) {
        double a[6], gl[3], Iv[6], vIv[6];
        memcpy(a, d->a0 + 6 * L, sizeof a);
        m3t_mul_v(d->R + 9 * L, m->gravity, gl);
        for (int k = 0; k < 3; k++) a[3 + k] -= gl[k];
        const double *I6 = m->I6 + 36 * L, *vL = d->v + 6 * L;
        double *f = d->f + 6 * L;
        m6_mul_v(I6, a, f);
        m6_mul_v(I6, vL, Iv);
        sp_crf(vL, Iv, vIv);
        for (int k = 0; k < 6; k++) f[k] += vIv[k];
    }
    for (size_t L = m->nlink; L-- > 0;) {
        const double *S = m->S + 18 * L, *f = d->f + 6 * L;
        for (size_t c = 0; c < m->nd[L]; c++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += S[3 * k + c] * f[k];
            bias[m->vadr[L] + c] = s;
        }
        if (m->parent[L] >= 0) {
            double fp[6];
            sp_xtforce(d->E + 9 * L, d->r + 3 * L, f, fp);
            double *fpar = d->f + 6 * m->parent[L];
            for (int k = 0; k < 6; k++) fpar[k] += fp[k];
        }
    }
}
