/* Seed 004 (Zanchi & Cecic 1993, "2-D biped walking system", Period. biol.
 * 95(1)): its appendix's I(theta), B (B theta'^2 the velocity terms) and M_G
 * in its absolute angles from the vertical, the stance foot at the origin,
 * written from the paper, and its Lagrangian (eqs. 1-7) worked directly.
 * Shared by tests/test_seed_walkers.c (models/five_link_trunk.yaml) and
 * tests/test_five_link.c (models/five_link.yaml, RABBIT's numbers), with
 * the checks both make: the appendix against the Lagrangian, and a rigid
 * model with the stance foot pinned against the appendix.
 *
 * Seed 004's appendix, read against its own Lagrangian (eqs. 1-7), has
 * typos; the functions below use the consistent reading, and these are:
 * - eq. (5) for G5 misses -l4 sin(theta4) in x (and -l4 cos(theta4) in z):
 *   link 5 hangs from the swing knee, and the appendix's own I(1,4) =
 *   -(M4 l1 b4 + M5 l1 l4) cos(theta1 - theta4) holds that term;
 * - I(1,1) and I(1,2) write m1, m2 for M1, M2;
 * - B(2,1) is printed with sin(theta1 - theta2); the Lagrangian gives
 *   B(i,j) = c_ij sin(theta_i - theta_j) for I(i,j) = c_ij cos(theta_i -
 *   theta_j), so B(2,1) = c_12 sin(theta2 - theta1), the opposite sign
 *   (every other printed B(i,j) agrees with that rule); in eq. (14) B44
 *   stands where B45 belongs;
 * - eq. (10) writes I theta'' + B theta'^2 - M_G = Gamma but the appendix's
 *   M_G is dV/dtheta (V of eq. 6), so the consistent equation is eq. (11)'s
 *   I theta'' + B theta'^2 + M_G = Gamma.
 */
#ifndef STRIDEMAP_TEST_SEED004_H
#define STRIDEMAP_TEST_SEED004_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "stridemap/rigid.h"

typedef struct {
    double M[6], I[6];            /* 1-based: M1..M5, I1..I5 */
    double a1, a2, a3, b4, b5, l1, l2, l4, g;
} seed004;

/* The appendix's I(theta), B and M_G (M_G = dV/dtheta), typos corrected as
 * the header says. */
static inline void seed004_appendix(const seed004 *s, const double *th1, double I[5][5], double B[5][5], double MG[5])
{
    const double *th = th1 - 1; /* 1-based as the seed */
    const double *M = s->M, *J = s->I;
    const double a1 = s->a1, a2 = s->a2, a3 = s->a3, b4 = s->b4, b5 = s->b5, l1 = s->l1, l2 = s->l2,
                 l4 = s->l4, g = s->g;
#define C(i, j) cos(th[i] - th[j])
#define S(i, j) sin(th[i] - th[j])
    const double c12 = M[2] * l1 * a2 + M[3] * l1 * l2 + M[4] * l1 * l2 + M[5] * l1 * l2;
    const double c14 = -(M[4] * l1 * b4 + M[5] * l1 * l4);
    const double c24 = -(M[4] * l2 * b4 + M[5] * l2 * l4);
    memset(I, 0, 25 * sizeof(double));
    memset(B, 0, 25 * sizeof(double));
    I[0][0] = J[1] + M[1] * a1 * a1 + (M[2] + M[3] + M[4] + M[5]) * l1 * l1;
    I[0][1] = I[1][0] = c12 * C(1, 2);
    I[0][2] = I[2][0] = M[3] * l1 * a3 * C(1, 3);
    I[0][3] = I[3][0] = c14 * C(1, 4);
    I[0][4] = I[4][0] = -M[5] * l1 * b5 * C(1, 5);
    I[1][1] = J[2] + M[2] * a2 * a2 + (M[3] + M[4] + M[5]) * l2 * l2;
    I[1][2] = I[2][1] = M[3] * l2 * a3 * C(2, 3);
    I[1][3] = I[3][1] = c24 * C(2, 4);
    I[1][4] = I[4][1] = -M[5] * l2 * b5 * C(2, 5);
    I[2][2] = J[3] + M[3] * a3 * a3;
    I[3][3] = J[4] + M[4] * b4 * b4 + M[5] * l4 * l4;
    I[3][4] = I[4][3] = M[5] * l4 * b5 * C(4, 5);
    I[4][4] = J[5] + M[5] * b5 * b5;

    B[0][1] = c12 * S(1, 2);
    B[0][2] = M[3] * l1 * a3 * S(1, 3);
    B[0][3] = c14 * S(1, 4);
    B[0][4] = -M[5] * l1 * b5 * S(1, 5);
    B[1][0] = c12 * S(2, 1); /* printed: sin(theta1 - theta2) */
    B[1][2] = M[3] * l2 * a3 * S(2, 3);
    B[1][3] = c24 * S(2, 4);
    B[1][4] = -M[5] * l2 * b5 * S(2, 5);
    B[2][0] = -M[3] * l1 * a3 * S(1, 3);
    B[2][1] = -M[3] * l2 * a3 * S(2, 3);
    B[3][0] = (M[4] * l1 * b4 + M[5] * l1 * l4) * S(1, 4);
    B[3][1] = (M[4] * l2 * b4 + M[5] * l2 * l4) * S(2, 4);
    B[3][4] = M[5] * l4 * b5 * S(4, 5);
    B[4][0] = M[5] * l1 * b5 * S(1, 5);
    B[4][1] = M[5] * l2 * b5 * S(2, 5);
    B[4][3] = -M[5] * l4 * b5 * S(4, 5);
#undef C
#undef S
    MG[0] = -(M[1] * g * a1 + (M[2] + M[3] + M[4] + M[5]) * g * l1) * sin(th[1]);
    MG[1] = -(M[2] * g * a2 + (M[3] + M[4] + M[5]) * g * l2) * sin(th[2]);
    MG[2] = -M[3] * g * a3 * sin(th[3]);
    MG[3] = (M[4] * g * b4 + M[5] * g * l4) * sin(th[4]);
    MG[4] = M[5] * g * b5 * sin(th[5]);
}

/* Eqs. 1-7 worked directly: G_j = sum_k c[j][k] (sin theta_k, cos theta_k)
 * (eq. 5 with its -l4 term), T = sum 1/2 (I_j theta_j'^2 + M_j |G_j'|^2),
 * V = sum M_j g z_j.  Gives I, the velocity terms h (= B theta'^2) and dV. */
static inline void seed004_lagrangian(const seed004 *s, const double *th, const double *thd, double I[5][5], double h[5],
                       double dV[5])
{
    const double c[5][5] = {
        {s->a1, 0, 0, 0, 0},
        {s->l1, s->a2, 0, 0, 0},
        {s->l1, s->l2, s->a3, 0, 0},
        {s->l1, s->l2, 0, -s->b4, 0},
        {s->l1, s->l2, 0, -s->l4, -s->b5},
    };
    memset(I, 0, 25 * sizeof(double));
    memset(h, 0, 5 * sizeof(double));
    memset(dV, 0, 5 * sizeof(double));
    for (int j = 0; j < 5; j++) {
        const double Mj = s->M[j + 1];
        I[j][j] += s->I[j + 1];
        /* the acceleration of G_j when theta'' = 0 */
        double ax = 0, az = 0;
        for (int k = 0; k < 5; k++) ax -= c[j][k] * sin(th[k]) * thd[k] * thd[k], az -= c[j][k] * cos(th[k]) * thd[k] * thd[k];
        for (int i = 0; i < 5; i++) {
            const double jx = c[j][i] * cos(th[i]), jz = -c[j][i] * sin(th[i]);
            for (int k = 0; k < 5; k++) I[i][k] += Mj * (jx * c[j][k] * cos(th[k]) + jz * (-c[j][k] * sin(th[k])));
            h[i] += Mj * (jx * ax + jz * az);
            dV[i] += Mj * s->g * jz;
        }
    }
}

static inline double seed004_urand(double lo, double hi) { return lo + (hi - lo) * (double)rand() / RAND_MAX; }

/* got = want to 1e-12 of scale; (i, j) 0-based, printed 1-based as the seed. */
static inline void seed004_close_to(double got, double want, double scale, const char *what, int i, int j)
{
    if (!(fabs(got - want) <= 1e-12 * scale))
        fail_msg("%s(%d,%d): %.17g, want %.17g (diff %.3g, scale %.3g)", what, i + 1, j + 1, got, want,
                 got - want, scale);
}

/* The appendix (as read) is the seed's own Lagrangian at n random states
 * (theta in [-1.5, 1.5], theta' in [-3, 3]): I to scale_I, B theta'^2 and
 * M_G to scale_B. */
static inline void seed004_appendix_is_lagrangian(const seed004 *s, int n, double scale_I, double scale_B)
{
    for (int it = 0; it < n; it++) {
        double th[5], thd[5], I[5][5], B[5][5], MG[5], IL[5][5], h[5], dV[5];
        for (int k = 0; k < 5; k++) th[k] = seed004_urand(-1.5, 1.5), thd[k] = seed004_urand(-3, 3);
        seed004_appendix(s, th, I, B, MG);
        seed004_lagrangian(s, th, thd, IL, h, dV);
        for (int i = 0; i < 5; i++) {
            double Bt = 0;
            for (int k = 0; k < 5; k++) Bt += B[i][k] * thd[k] * thd[k];
            for (int k = 0; k < 5; k++) seed004_close_to(I[i][k], IL[i][k], scale_I, "I", i, k);
            seed004_close_to(Bt, h[i], scale_B, "B theta'^2", i, 0);
            seed004_close_to(MG[i], dV[i], scale_B, "M_G", i, 0);
        }
    }
}

/* rm's data and its site foot_a, with rm as both walkers have it: planar,
 * seven coordinates (the base's x, z and pitch, four joints). */
static inline sm_rigid_data *seed004_rigid_data(const sm_rigid_model *rm, int *foot)
{
    assert_non_null(rm);
    assert_int_equal(sm_rigid_nv(rm), 7);
    assert_true(sm_rigid_is_planar(rm));
    sm_rigid_data *d = sm_rigid_data_create(rm);
    assert_non_null(d);
    *foot = sm_rigid_site_index(rm, "foot_a");
    assert_true(*foot >= 0);
    return d;
}

/* A rigid model with its site foot pinned at the origin, at q = q(theta),
 * qdot = Phi theta' (Phi = dq/dtheta; the first two rows, the floating
 * base's x and z, those of the hip at l1 u(theta1) + l2 u(theta2),
 * u = (sin, cos)), against the appendix: I = Phi^T M Phi,
 * B theta'^2 = Phi^T (C(q, Phi theta') + M Phi' theta'), M_G = Phi^T G;
 * I to scale_I, the others to scale_B.  Returns the largest difference as
 * a fraction of its scale. */
static inline double seed004_rigid_is_appendix(const sm_rigid_model *rm, sm_rigid_data *d, int foot, const seed004 *s,
                                               const double th[5], const double thd[5], double Phi[7][5],
                                               const double q[7], double scale_I, double scale_B)
{
    double v[7] = {0}, pdd[7] = {0}, zero[7] = {0};
    for (int i = 0; i < 7; i++)
        for (int k = 0; k < 5; k++) v[i] += Phi[i][k] * thd[k];
    pdd[0] = -s->l1 * sin(th[0]) * thd[0] * thd[0] - s->l2 * sin(th[1]) * thd[1] * thd[1];
    pdd[1] = -s->l1 * cos(th[0]) * thd[0] * thd[0] - s->l2 * cos(th[1]) * thd[1] * thd[1];

    double Mq[49], G[7], bias[7], pos[3];
    assert_int_equal(sm_rigid_forward(rm, d, q, zero), SM_OK);
    sm_rigid_bias(rm, d, G);
    sm_rigid_site_pos(rm, d, (size_t)foot, pos);
    assert_true(fabs(pos[0]) < 1e-14 && fabs(pos[2]) < 1e-14); /* the pinned foot is at the origin */
    assert_int_equal(sm_rigid_forward(rm, d, q, v), SM_OK);
    sm_rigid_mass(rm, d, Mq);
    sm_rigid_bias(rm, d, bias);

    double I[5][5], B[5][5], MG[5], worst = 0;
    seed004_appendix(s, th, I, B, MG);
    for (int i = 0; i < 5; i++) {
        double h = 0, g = 0, Bt = 0;
        for (int a = 0; a < 7; a++) {
            double Mpdd = 0;
            for (int b = 0; b < 7; b++) Mpdd += Mq[a * 7 + b] * pdd[b];
            h += Phi[a][i] * (bias[a] - G[a] + Mpdd);
            g += Phi[a][i] * G[a];
        }
        for (int k = 0; k < 5; k++) {
            double Iik = 0;
            for (int a = 0; a < 7; a++)
                for (int b = 0; b < 7; b++) Iik += Phi[a][i] * Mq[a * 7 + b] * Phi[b][k];
            seed004_close_to(Iik, I[i][k], scale_I, "I", i, k);
            worst = fmax(worst, fabs(Iik - I[i][k]) / scale_I);
            Bt += B[i][k] * thd[k] * thd[k];
        }
        seed004_close_to(h, Bt, scale_B, "B theta'^2", i, 0);
        seed004_close_to(g, MG[i], scale_B, "M_G", i, 0);
        worst = fmax(worst, fmax(fabs(h - Bt), fabs(g - MG[i])) / scale_B);
    }
    return worst;
}

#endif
