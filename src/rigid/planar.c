/* The planar fast path: a tree whose joints are all hinges about axes that
 * are parallel (to a unit n) in the reference pose, or slides across n, moves
 * in planes normal to n, every body turned about n by its angle
 *     θ_i = θ_λ(i) + s_i q_i   (hinge; s_i = ±1 the axis along or against n)
 * and a body-frame vector u showing in the world as Rot_n(θ_i) R0_i u.  In the
 * plane (basis e1, e2, with perp(x) = n × x) the origin offset of link i from
 * its parent is d_i = Rot(θ_λ) r_i + Rot(θ_λ) a_i q_i (a slide's direction
 * turns with the parent), so
 *     ṗ_i = ṗ_λ + θ̇_λ perp(d_i) + a_i q̇_i
 *     p̈⁰_i = p̈⁰_λ − θ̇_λ² d_i + 2 θ̇_λ perp(a_i) q̇_i      (v̇ = 0)
 * and a point x of link i moves with ẋ = ṗ_i + θ̇_i perp(x − p_i),
 * ẍ⁰ = p̈⁰_i − θ̇_i² (x − p_i).  A joint k above i moves x by
 * s_k perp(x − p_k) (hinge) or a_k (slide), which gives the Jacobians; then
 *     M = Σ_i m_i J_ciᵀ J_ci + I_n,i J_θiᵀ J_θi,   bias = Σ_i m_i J_ciᵀ (ẍ⁰_ci − g)
 * (d'Alembert: the gyroscopic ω × Iω has no component along n when ω ∥ n, and
 * gravity along n does no work).  It equals the 3-D sweeps (test_rigid.c holds
 * it to 1e-12) at a fraction of their cost.  Reference: Featherstone, Rigid
 * Body Dynamics Algorithms, 2008, §2.16 (planar vectors). */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"

#define MAX_DEPTH 64

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void split(const sm_rigid_model *m, const double *w, double *out, int k)
{
    out[0] = dot3(w, m->pl_e1);
    out[1] = dot3(w, m->pl_e2);
    if (k == 3) out[2] = dot3(w, m->pl_n);
}

bool sm_rigid_planar_setup(sm_rigid_model *m)
{
    m->planar = m->use_planar = false;
    int first = -1;
    for (size_t L = 0; L < m->nlink; L++) {
        if (m->kind[L] != LINK_HINGE && m->kind[L] != LINK_SLIDE && m->kind[L] != LINK_FIXED) return false;
        if (first < 0 && m->kind[L] == LINK_HINGE) first = (int)L;
    }
    if (first < 0) return false;
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (size_t L = 0; L < m->nlink; L++) {
        const double *Rp = m->parent[L] < 0 ? I3 : m->pl_R0 + 9 * m->parent[L];
        m3_mul(Rp, (double[9]){m->ET[9 * L], m->ET[9 * L + 3], m->ET[9 * L + 6], m->ET[9 * L + 1],
                               m->ET[9 * L + 4], m->ET[9 * L + 7], m->ET[9 * L + 2], m->ET[9 * L + 5],
                               m->ET[9 * L + 8]},
               m->pl_R0 + 9 * L);
    }
    const double *S = m->S + 18 * first;
    double a[3] = {S[0], S[3], S[6]};
    m3_mul_v(m->pl_R0 + 9 * first, a, m->pl_n);
    double *n = m->pl_n, t[3] = {0, 0, 0};
    int k = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2) : (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
    t[k] = 1.0;
    v3_cross(n, t, m->pl_e1);
    double l = sqrt(dot3(m->pl_e1, m->pl_e1));
    for (int i = 0; i < 3; i++) m->pl_e1[i] /= l;
    v3_cross(n, m->pl_e1, m->pl_e2);

    for (size_t L = 0; L < m->nlink; L++) {
        const double *R0 = m->pl_R0 + 9 * L, *SL = m->S + 18 * L;
        double w[3], c[3];
        if (m->kind[L] == LINK_HINGE) {
            m3_mul_v(R0, (double[3]){SL[0], SL[3], SL[6]}, w);
            v3_cross(w, n, c);
            if (sqrt(dot3(c, c)) > 1e-12) return false;
            m->pl_sgn[L] = dot3(w, n) > 0 ? 1.0 : -1.0;
        } else if (m->kind[L] == LINK_SLIDE) {
            m3_mul_v(R0, (double[3]){SL[9], SL[12], SL[15]}, w);
            if (fabs(dot3(w, n)) > 1e-12) return false;
            split(m, w, m->pl_dir + 2 * L, 2);
        }
        const double *Rp = m->parent[L] < 0 ? I3 : m->pl_R0 + 9 * m->parent[L];
        m3_mul_v(Rp, m->rT + 3 * L, w);
        split(m, w, m->pl_rT + 3 * L, 3);
        m3_mul_v(R0, m->com + 3 * L, w);
        split(m, w, m->pl_com + 3 * L, 3);
        double nb[3], In[3];
        m3t_mul_v(R0, n, nb);
        m3_mul_v(m->Icom + 9 * L, nb, In);
        m->pl_In[L] = dot3(nb, In);
    }
    for (size_t s = 0; s < m->nsite; s++) {
        double w[3];
        m3_mul_v(m->pl_R0 + 9 * m->site_link[s], m->site_pos + 3 * s, w);
        split(m, w, m->pl_site + 3 * s, 3);
    }
    for (size_t L = 0; L < m->nlink; L++) {
        const double *R0 = m->pl_R0 + 9 * L;
        double *A0 = m->pl_Rc + 27 * L, *A1 = A0 + 9, *A2 = A0 + 18;
        for (int j = 0; j < 3; j++) {
            const double u[3] = {R0[j], R0[3 + j], R0[6 + j]};
            const double nu = dot3(n, u);
            double w[3];
            v3_cross(n, u, w);
            for (int i = 0; i < 3; i++) {
                A0[3 * i + j] = nu * n[i];
                A1[3 * i + j] = u[i] - nu * n[i];
                A2[3 * i + j] = w[i];
            }
        }
    }
    /* the depth bounds the stack arrays of the sweeps below */
    for (size_t L = 0; L < m->nlink; L++) {
        int depth = 0;
        for (int j = (int)L; j >= 0; j = m->parent[j]) depth++;
        if (depth > MAX_DEPTH) return false;
    }
    m->planar = m->use_planar = true;
    return true;
}

static inline void rot2(double c, double s, const double *x, double *y)
{
    double a = c * x[0] - s * x[1], b = s * x[0] + c * x[1];
    y[0] = a;
    y[1] = b;
}

void sm_rigid_planar_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *q, const double *v)
{
    static const double zero[3] = {0, 0, 0};
    for (size_t L = 0; L < m->nlink; L++) {
        const int P = m->parent[L];
        double thP = 0.0, thdP = 0.0, cP = 1.0, sP = 0.0;
        const double *pP = zero, *vP = zero, *aP = zero;
        if (P >= 0) {
            thP = d->th[P];
            thdP = d->thd[P];
            cP = d->cs[2 * P];
            sP = d->cs[2 * P + 1];
            pP = d->pp + 3 * P;
            vP = d->pv + 2 * P;
            aP = d->pa + 2 * P;
        }
        const double *rT = m->pl_rT + 3 * L;
        double off[2] = {cP * rT[0] - sP * rT[1], sP * rT[0] + cP * rT[1]};
        double *p = d->pp + 3 * L, *pv = d->pv + 2 * L, *pa = d->pa + 2 * L;
        double th = thP, thd = thdP, c = cP, s = sP; /* a slide or fixed link turns with its parent */
        double vx = 0.0, vy = 0.0, ax = 0.0, ay = 0.0; /* a slide's own rate terms */
        if (m->kind[L] == LINK_HINGE) {
            const double sg = m->pl_sgn[L];
            th += sg * q[m->qadr[L]];
            thd += sg * v[m->vadr[L]];
            c = cos(th);
            s = sin(th);
        } else if (m->kind[L] == LINK_SLIDE) {
            const double qi = q[m->qadr[L]], vi = v[m->vadr[L]], *u = m->pl_dir + 2 * L;
            const double dir[2] = {cP * u[0] - sP * u[1], sP * u[0] + cP * u[1]};
            off[0] += dir[0] * qi;
            off[1] += dir[1] * qi;
            vx = dir[0] * vi;
            vy = dir[1] * vi;
            ax = -2.0 * thdP * vy;
            ay = 2.0 * thdP * vx;
        }
        p[0] = pP[0] + off[0];
        p[1] = pP[1] + off[1];
        p[2] = pP[2] + rT[2];
        pv[0] = vP[0] - thdP * off[1] + vx;
        pv[1] = vP[1] + thdP * off[0] + vy;
        pa[0] = aP[0] - thdP * thdP * off[0] + ax;
        pa[1] = aP[1] - thdP * thdP * off[1] + ay;
        d->th[L] = th;
        d->thd[L] = thd;
        d->cs[2 * L] = c;
        d->cs[2 * L + 1] = s;
    }
    d->poses_pending = true;
}

/* The 3-D poses of the last planar sweep, for site positions and body states. */
void sm_rigid_planar_poses(const sm_rigid_model *m, sm_rigid_data *d)
{
    const double *n = m->pl_n;
    for (size_t L = 0; L < m->nlink; L++) {
        const double *p = d->pp + 3 * L;
        for (int k = 0; k < 3; k++) d->p[3 * L + k] = p[0] * m->pl_e1[k] + p[1] * m->pl_e2[k] + p[2] * n[k];
        const double c = d->cs[2 * L], s = d->cs[2 * L + 1];
        /* Rot_n(θ) R0 = n nᵀ R0 + cos θ (I − n nᵀ) R0 + sin θ [n]× R0 */
        const double *A0 = m->pl_Rc + 27 * L, *A1 = A0 + 9, *A2 = A0 + 18;
        double *R = d->R + 9 * L;
        for (int k = 0; k < 9; k++) R[k] = A0[k] + c * A1[k] + s * A2[k];
    }
    d->poses_pending = false;
}

/* In-plane position of a point given by its reference world image u on link L. */
static void point2(const sm_rigid_data *d, size_t L, const double *u, double *x)
{
    double c = d->cs[2 * L], s = d->cs[2 * L + 1], r[2];
    rot2(c, s, u, r);
    x[0] = d->pp[3 * L] + r[0];
    x[1] = d->pp[3 * L + 1] + r[1];
}

/* Columns of the joints above link L moving the in-plane point x: dof index,
 * in-plane column, rotation rate per unit rate.  Returns their count. */
static int columns(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *x, size_t *dof,
                   double *col, double *rot)
{
    int n = 0;
    for (int j = (int)L; j >= 0; j = m->parent[j]) {
        if (m->kind[j] == LINK_HINGE) {
            double s = m->pl_sgn[j];
            col[2 * n] = -s * (x[1] - d->pp[3 * j + 1]);
            col[2 * n + 1] = s * (x[0] - d->pp[3 * j]);
            rot[n] = s;
        } else if (m->kind[j] == LINK_SLIDE) {
            int P = m->parent[j];
            rot2(P < 0 ? 1.0 : d->cs[2 * P], P < 0 ? 0.0 : d->cs[2 * P + 1], m->pl_dir + 2 * j, col + 2 * n);
            rot[n] = 0.0;
        } else {
            continue;
        }
        dof[n++] = m->vadr[j];
    }
    return n;
}

/* Acceleration at v̇ = 0 of the in-plane point x on link L. */
static void point_acc0(const sm_rigid_data *d, size_t L, const double *x, double *a)
{
    double w2 = d->thd[L] * d->thd[L];
    a[0] = d->pa[2 * L] - w2 * (x[0] - d->pp[3 * L]);
    a[1] = d->pa[2 * L + 1] - w2 * (x[1] - d->pp[3 * L + 1]);
}

/* M and the bias by composite sums (Featherstone 2008, §6.2, in the plane),
 * O(Σ depth) where the sum over links of m J_cᵀ J_c took O(Σ depth²) (21 %
 * of a McGeer stride).  For the subtree below link k, about k's origin p_k
 * (x: the centres of mass, f = m (ẍ⁰ − g) their d'Alembert forces):
 *     m_k = Σ m,  h_k = Σ m (x − p_k),  K_k = Σ m |x − p_k|² + I_n,
 *     F_k = Σ f,  T_k = Σ (x − p_k) × f,
 * each carried to the parent's origin by r = p_k − p_λ (h += m r,
 * K += 2 r·h + m |r|², T += r × F).  A hinge j above k moves x by
 * s_j perp(x − p_j), a slide by its direction a_j, so with D = p_k − p_j
 *     M_jk = s_j s_k (K_k + D·h_k)       hinges j and k
 *          = s_k a_j·perp(h_k)           slide j, hinge k
 *          = s_j a_k·perp(h_k + m_k D)   hinge j, slide k
 *          = m_k a_j·a_k                 slides j and k
 *     bias_k = s_k T_k (hinge), a_k·F_k (slide).
 * Moments about each link's own origin keep the terms the size of the
 * subtree, not of its distance from the world origin. */

static inline void accumulate(const sm_rigid_model *m, sm_rigid_data *d, const double g[2], bool M, bool bias)
{
    const size_t n = m->nlink;
    double *Cs = d->Ic; /* 36 per link, unused by the planar path otherwise */
    for (size_t L = 0; L < n; L++)
        for (int k = 0; k <= C_T; k++) Cs[36 * L + k] = 0.0;
    for (size_t L = n; L-- > 0;) {
        double *C = Cs + 36 * L, x[2];
        const double mass = m->mass[L], *p = d->pp + 3 * L;
        /* a massless link (a base's first slide) adds nothing of its own */
        if (mass != 0.0 || m->pl_In[L] != 0.0) {
            point2(d, L, m->pl_com + 3 * L, x);
            const double X[2] = {x[0] - p[0], x[1] - p[1]};
            C[C_M] += mass;
            if (M) {
                C[C_HX] += mass * X[0];
                C[C_HY] += mass * X[1];
                C[C_K] += mass * (X[0] * X[0] + X[1] * X[1]) + m->pl_In[L];
            }
            if (bias) {
                double a[2];
                point_acc0(d, L, x, a);
                const double f[2] = {mass * (a[0] - g[0]), mass * (a[1] - g[1])};
                C[C_FX] += f[0];
                C[C_FY] += f[1];
                C[C_T] += X[0] * f[1] - X[1] * f[0];
            }
        }
        const int P = m->parent[L];
        if (m->kind[L] == LINK_SLIDE)
            rot2(P < 0 ? 1.0 : d->cs[2 * P], P < 0 ? 0.0 : d->cs[2 * P + 1], m->pl_dir + 2 * L, C + C_AX);
        if (P < 0) continue;
        double *CP = Cs + 36 * P;
        const double r[2] = {p[0] - d->pp[3 * P], p[1] - d->pp[3 * P + 1]};
        CP[C_M] += C[C_M];
        if (M) {
            CP[C_HX] += C[C_HX] + C[C_M] * r[0];
            CP[C_HY] += C[C_HY] + C[C_M] * r[1];
            CP[C_K] += C[C_K] + 2.0 * (r[0] * C[C_HX] + r[1] * C[C_HY]) + C[C_M] * (r[0] * r[0] + r[1] * r[1]);
        }
        if (bias) {
            CP[C_FX] += C[C_FX];
            CP[C_FY] += C[C_FY];
            CP[C_T] += C[C_T] + r[0] * C[C_FY] - r[1] * C[C_FX];
        }
    }
}

static inline void composite(const sm_rigid_model *m, sm_rigid_data *d, double *M, double *bias)
{
    const size_t nv = m->nv, n = m->nlink;
    double g[2];
    split(m, m->gravity, g, 2);
    accumulate(m, d, g, M != NULL, bias != NULL);
    const double *Cs = d->Ic;
    if (M) memset(M, 0, nv * nv * sizeof *M);
    for (size_t k = 0; k < n; k++) {
        if (m->kind[k] != LINK_HINGE && m->kind[k] != LINK_SLIDE) continue;
        const double *C = Cs + 36 * k, *pk = d->pp + 3 * k;
        const bool hk = m->kind[k] == LINK_HINGE;
        const size_t vk = m->vadr[k];
        if (bias) bias[vk] = hk ? m->pl_sgn[k] * C[C_T] : C[C_AX] * C[C_FX] + C[C_AY] * C[C_FY];
        if (!M) continue;
        for (int j = (int)k; j >= 0; j = m->parent[j]) {
            if (m->kind[j] != LINK_HINGE && m->kind[j] != LINK_SLIDE) continue;
            const double *Cj = Cs + 36 * j;
            const double D[2] = {pk[0] - d->pp[3 * j], pk[1] - d->pp[3 * j + 1]};
            double e;
            if (m->kind[j] == LINK_HINGE && hk)
                e = m->pl_sgn[j] * m->pl_sgn[k] * (C[C_K] + D[0] * C[C_HX] + D[1] * C[C_HY]);
            else if (hk) /* perp(h) = (−h_y, h_x) */
                e = m->pl_sgn[k] * (Cj[C_AY] * C[C_HX] - Cj[C_AX] * C[C_HY]);
            else if (m->kind[j] == LINK_HINGE)
                e = m->pl_sgn[j] * (C[C_AY] * (C[C_HX] + C[C_M] * D[0]) - C[C_AX] * (C[C_HY] + C[C_M] * D[1]));
            else
                e = C[C_M] * (Cj[C_AX] * C[C_AX] + Cj[C_AY] * C[C_AY]);
            const size_t vj = m->vadr[j];
            M[vj * nv + vk] = e;
            M[vk * nv + vj] = e;
        }
    }
}

void sm_rigid_planar_mass(const sm_rigid_model *m, sm_rigid_data *d, double *M) { composite(m, d, M, NULL); }

void sm_rigid_planar_mass_bias(const sm_rigid_model *m, sm_rigid_data *d, double *M, double *bias)
{
    composite(m, d, M, bias);
}

void sm_rigid_planar_bias(const sm_rigid_model *m, sm_rigid_data *d, double *bias) { composite(m, d, NULL, bias); }

void sm_rigid_planar_point_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                               double *jacp, double *jacr)
{
    size_t nv = m->nv, dof[MAX_DEPTH];
    double col[2 * MAX_DEPTH], rot[MAX_DEPTH], x[2];
    if (jacp) memset(jacp, 0, 3 * nv * sizeof *jacp);
    if (jacr) memset(jacr, 0, 3 * nv * sizeof *jacr);
    point2(d, L, u, x);
    int n = columns(m, d, L, x, dof, col, rot);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 3; i++) {
            if (jacp) jacp[i * nv + dof[k]] = col[2 * k] * m->pl_e1[i] + col[2 * k + 1] * m->pl_e2[i];
            if (jacr) jacr[i * nv + dof[k]] = rot[k] * m->pl_n[i];
        }
}

void sm_rigid_planar_point_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                                 double acc[3])
{
    double x[2], a[2];
    point2(d, L, u, x);
    point_acc0(d, L, x, a);
    for (int i = 0; i < 3; i++) acc[i] = a[0] * m->pl_e1[i] + a[1] * m->pl_e2[i];
}

void sm_rigid_planar_site_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double *jacp,
                              double *jacr)
{
    sm_rigid_planar_point_jac(m, d, m->site_link[site], m->pl_site + 3 * site, jacp, jacr);
}

/* The world x and z rows (nv each, Jx, Jz) of the Jacobian of the point at
 * the site plus the world offset e, e carried along without turning (a
 * roll's lowest point, r below the disk's centre; e = 0 for a pin): the
 * contact rows straight from the in-plane columns, where the site's 3 x nv
 * Jacobians and the ω × e sum over them cost three times as much. */
void sm_rigid_planar_site_xz(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, const double e[3],
                             double *Jx, double *Jz)
{
    const size_t nv = m->nv, L = m->site_link[site];
    size_t dof[MAX_DEPTH];
    double col[2 * MAX_DEPTH], rot[MAX_DEPTH], x[2];
    point2(d, L, m->pl_site + 3 * site, x);
    x[0] += dot3(e, m->pl_e1);
    x[1] += dot3(e, m->pl_e2);
    const int n = columns(m, d, L, x, dof, col, rot);
    memset(Jx, 0, nv * sizeof *Jx);
    memset(Jz, 0, nv * sizeof *Jz);
    const double *e1 = m->pl_e1, *e2 = m->pl_e2;
    for (int k = 0; k < n; k++) {
        Jx[dof[k]] = col[2 * k] * e1[0] + col[2 * k + 1] * e2[0];
        Jz[dof[k]] = col[2 * k] * e1[2] + col[2 * k + 1] * e2[2];
    }
}

void sm_rigid_planar_site_pos(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double pos[3])
{
    const size_t L = m->site_link[site];
    const double *u = m->pl_site + 3 * site;
    double x[2];
    point2(d, L, u, x);
    const double z = d->pp[3 * L + 2] + u[2];
    for (int k = 0; k < 3; k++) pos[k] = x[0] * m->pl_e1[k] + x[1] * m->pl_e2[k] + z * m->pl_n[k];
}

void sm_rigid_planar_site_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double acc[3])
{
    sm_rigid_planar_point_jdotv(m, d, m->site_link[site], m->pl_site + 3 * site, acc);
}

/* The reference world image of the link-frame vector u, in (e1, e2, n). */
void sm_rigid_planar_image(const sm_rigid_model *m, size_t L, const double *u, double out[3])
{
    double w[3];
    m3_mul_v(m->pl_R0 + 9 * L, u, w);
    split(m, w, out, 3);
}
