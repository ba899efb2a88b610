/* The forward sweep: each link's transform from its parent, its pose in the
 * world, its spatial velocity and its acceleration at v̇ = 0 without gravity
 * (Featherstone 2008, §5.3, first loop of Table 5.1):
 *     X_i = X_J(q_i) X_T,i      v_i = X_i v_λ(i) + S_i q̇_i
 *     a⁰_i = X_i a⁰_λ(i) + v_i × S_i q̇_i          (Ṡ_i = 0: S_i is constant)
 * with v_0 = a⁰_0 = 0 for the world.  Gravity is added where it is needed
 * (rnea.c), since a body's acceleration is linear in the base's. */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"

static void axis_angle(const double *a, double th, double *R)
{
    double c = cos(th), s = sin(th), t = 1.0 - c;
    R[0] = c + t * a[0] * a[0];
    R[1] = t * a[0] * a[1] - s * a[2];
    R[2] = t * a[0] * a[2] + s * a[1];
    R[3] = t * a[1] * a[0] + s * a[2];
    R[4] = c + t * a[1] * a[1];
    R[5] = t * a[1] * a[2] - s * a[0];
    R[6] = t * a[2] * a[0] - s * a[1];
    R[7] = t * a[2] * a[1] + s * a[0];
    R[8] = c + t * a[2] * a[2];
}

sm_status sm_rigid_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *q, const double *v)
{
    /* one test on the sum (a NaN or an infinity makes it non-finite), each
     * value only when it fails: the checks cost a fifth of a planar sweep */
    double sum = 0.0;
    for (size_t i = 0; i < m->nq; i++) sum += q[i];
    for (size_t i = 0; i < m->nv; i++) sum += v[i];
    if (!isfinite(sum)) {
        for (size_t i = 0; i < m->nq; i++)
            if (!isfinite(q[i])) return SM_BAD_STATE;
        for (size_t i = 0; i < m->nv; i++)
            if (!isfinite(v[i])) return SM_BAD_STATE;
    }
    if (m->use_planar) {
        sm_rigid_planar_forward(m, d, q, v);
        return SM_OK;
    }
    d->poses_pending = false;
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double Z3[3] = {0, 0, 0}, Z6[6] = {0, 0, 0, 0, 0, 0};
    for (size_t L = 0; L < m->nlink; L++) {
        const double *S = m->S + 18 * L, *qi = q + m->qadr[L], *vi = v + m->vadr[L];
        double RJ[9], rJ[3] = {0, 0, 0};
        memcpy(RJ, I3, sizeof RJ);
        switch (m->kind[L]) {
        case LINK_HINGE: {
            double a[3] = {S[0], S[3], S[6]};
            axis_angle(a, qi[0], RJ);
            break;
        }
        case LINK_SLIDE:
            for (int k = 0; k < 3; k++) rJ[k] = S[3 * (3 + k)] * qi[0];
            break;
        case LINK_BALL:
            if (qi[0] == 0 && qi[1] == 0 && qi[2] == 0 && qi[3] == 0) return SM_BAD_STATE;
            sm_rigid_quat_to_mat(qi, RJ);
            break;
        case LINK_TRANS:
            for (int k = 0; k < 3; k++) rJ[k] = qi[k];
            break;
        case LINK_FIXED: break;
        }
        /* E = RJᵀ ET;  r = rT + ETᵀ rJ */
        const double *ET = m->ET + 9 * L;
        double *E = d->E + 9 * L, *r = d->r + 3 * L;
        double RJt[9] = {RJ[0], RJ[3], RJ[6], RJ[1], RJ[4], RJ[7], RJ[2], RJ[5], RJ[8]};
        m3_mul(RJt, ET, E);
        m3t_mul_v(ET, rJ, r);
        for (int k = 0; k < 3; k++) r[k] += m->rT[3 * L + k];

        int par = m->parent[L];
        const double *Rp = par < 0 ? I3 : d->R + 9 * par, *pp = par < 0 ? Z3 : d->p + 3 * par;
        const double *vp = par < 0 ? Z6 : d->v + 6 * par, *ap = par < 0 ? Z6 : d->a0 + 6 * par;
        m3_mul_bt(Rp, E, d->R + 9 * L);
        m3_mul_v(Rp, r, d->p + 3 * L);
        for (int k = 0; k < 3; k++) d->p[3 * L + k] += pp[k];

        double vJ[6] = {0, 0, 0, 0, 0, 0};
        for (int row = 0; row < 6; row++)
            for (size_t c = 0; c < m->nd[L]; c++) vJ[row] += S[3 * row + c] * vi[c];
        double *vL = d->v + 6 * L, *aL = d->a0 + 6 * L, cJ[6];
        sp_xmot(E, r, vp, vL);
        for (int k = 0; k < 6; k++) vL[k] += vJ[k];
        sp_xmot(E, r, ap, aL);
        sp_crm(vL, vJ, cJ);
        for (int k = 0; k < 6; k++) aL[k] += cJ[k];
    }
    return SM_OK;
}

void sm_rigid_translate(const sm_rigid_model *m, sm_rigid_data *d, const double dx[3])
{
    if (m->use_planar) {
        const double a = dx[0] * m->pl_e1[0] + dx[1] * m->pl_e1[1] + dx[2] * m->pl_e1[2],
                     b = dx[0] * m->pl_e2[0] + dx[1] * m->pl_e2[1] + dx[2] * m->pl_e2[2],
                     c = dx[0] * m->pl_n[0] + dx[1] * m->pl_n[1] + dx[2] * m->pl_n[2];
        for (size_t L = 0; L < m->nlink; L++) {
            d->pp[3 * L] += a;
            d->pp[3 * L + 1] += b;
            d->pp[3 * L + 2] += c;
        }
        d->poses_pending = true; /* the world positions follow from pp */
        return;
    }
    for (size_t L = 0; L < m->nlink; L++)
        for (int k = 0; k < 3; k++) d->p[3 * L + k] += dx[k];
}
