/* The planar kneed walker with point feet and point masses, derived by hand
 * (Lagrange) and written without any engine of stridemap's, to cross-check
 * the model files (tests/test_kneed_cross.c; once the retired linkage
 * engine, now the rigid-body core).
 *
 * Frame and angles are the model files' (docs/body-walkers.md): x along
 * the slope, downhill; y along the slope normal, up; gravity
 * g (sin gamma, -cos gamma).  Every angle th is that of the unit vector
 * u(th) = (sin th, -cos th) pointing from a link's upper end to its lower
 * end, so the stance leg leaning back (hip uphill of the foot) and a swing
 * foot ahead of the hip both have positive angles.  With the stance foot at
 * the origin and L = lt + ls, each point mass sits at
 *   p = sum_j c_j u(th_j)
 * over the generalised coordinates th_j, with constant coefficients c_j:
 *
 *   knee free (st, th, sh)         knee locked (st, sw)
 *   hip          mh  (-L, 0, 0)          (-L, 0)
 *   stance thigh mt  (ct - L, 0, 0)      (ct - L, 0)
 *   stance shank ms  (lt + cs - L, 0, 0) (lt + cs - L, 0)
 *   swing thigh  mt  (-L, ct, 0)         (-L, ct)
 *   swing shank  ms  (-L, lt, cs)        (-L, lt + cs)
 *
 * ct: thigh centre of mass from the hip, cs: shank centre of mass from the
 * knee (the engine's thigh.com and shank.com).
 *
 * Since u(a).u'(b) = cos(a - b) and u(a) x u'(b) = cos(a - b), with
 * A_jk = sum m c_j c_k and B_j = sum m c_j:
 *   T = 1/2 sum_jk A_jk cos(th_j - th_k) w_j w_k,
 *   V = -g sum_j B_j cos(th_j - gamma),
 * and Lagrange's equations are
 *   sum_k A_jk [cos(th_j - th_k) th_k'' + sin(th_j - th_k) w_k^2]
 *       + g B_j sin(th_j - gamma) = 0.
 * The angular momentum about a point P = sum_j e_j u(th_j) of a set of the
 * masses is
 *   H_P = sum_m m sum_jk (c_j - e_j) c_k cos(th_j - th_k) w_k.
 *
 * Impacts (plastic, impulses at the contact and the hinges only):
 *   knee-strike: H of the whole walker about the stance foot and of the
 *     swing leg about the hip conserved; after it shank = thigh.
 *   heel-strike: the swing foot (straight leg) lands, the trailing leg
 *     leaves; H of the whole walker about the new contact point and of the
 *     trailing leg about the hip conserved; the legs swap:
 *     (st, sw) -> (sw, st).  Two variants for the new swing leg's knee:
 *       KCF_HS_LOCKED: it stays locked through the impact (Chen 2007,
 *         Tedrake's kneedCompassGait.m): 2 equations, shank_dot = thigh_dot;
 *       KCF_HS_FREE: it is free (Garcia 1999, 2.5.3): a third equation, H of
 *         the trailing shank about its knee conserved.
 *
 * Stride: knee free until knee-strike (thigh - shank falling through zero),
 * knee locked until heel-strike (swing foot height falling through zero with
 * the hip ahead of the stance foot and the swing foot more than 2 % of L
 * ahead).  Integrated with classical RK4 at a fixed step; an event is located
 * by a secant iteration on the length of the last RK4 step.
 *
 * Header-only, static functions, for the tests. */
#ifndef STRIDEMAP_KNEED_CLOSED_FORM_H
#define STRIDEMAP_KNEED_CLOSED_FORM_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

typedef struct {
    double g, gamma;
    double mh, mt, ms;
    double lt, ls;
    double ct, cs; /* centres of mass from the upper joint */
} kcf_params;

typedef enum { KCF_HS_LOCKED, KCF_HS_FREE } kcf_heelstrike_kind;

enum { KCF_HIP, KCF_ST_T, KCF_ST_S, KCF_SW_T, KCF_SW_S, KCF_NMASS };

/* Coefficients c[mass][coord] and masses for n = 3 (knee free) or 2. */
static void kcf_coeffs(const kcf_params *P, int n, double c[KCF_NMASS][3], double m[KCF_NMASS])
{
    const double L = P->lt + P->ls;
    memset(c, 0, sizeof(double) * KCF_NMASS * 3);
    m[KCF_HIP] = P->mh;
    m[KCF_ST_T] = m[KCF_SW_T] = P->mt;
    m[KCF_ST_S] = m[KCF_SW_S] = P->ms;
    c[KCF_HIP][0] = -L;
    c[KCF_ST_T][0] = P->ct - L;
    c[KCF_ST_S][0] = P->lt + P->cs - L;
    c[KCF_SW_T][0] = -L;
    c[KCF_SW_T][1] = P->ct;
    c[KCF_SW_S][0] = -L;
    if (n == 3) {
        c[KCF_SW_S][1] = P->lt;
        c[KCF_SW_S][2] = P->cs;
    } else {
        c[KCF_SW_S][1] = P->lt + P->cs;
    }
}

/* Solves the n x n system A y = b (n <= 3) by Gaussian elimination with
 * partial pivoting; b becomes y.  -1 if singular. */
static int kcf_solve(int n, double A[3][3], double b[3])
{
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i][k]) > fabs(A[piv][k])) piv = i;
        if (!(fabs(A[piv][k]) > 0)) return -1;
        if (piv != k) {
            for (int j = 0; j < n; j++) {
                const double t = A[k][j];
                A[k][j] = A[piv][j];
                A[piv][j] = t;
            }
            const double t = b[k];
            b[k] = b[piv];
            b[piv] = t;
        }
        for (int i = k + 1; i < n; i++) {
            const double f = A[i][k] / A[k][k];
            for (int j = k; j < n; j++) A[i][j] -= f * A[k][j];
            b[i] -= f * b[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) b[i] -= A[i][j] * b[j];
        b[i] /= A[i][i];
    }
    return 0;
}

/* Angular accelerations acc[n] for angles th[n], rates w[n] (n = 3: knee
 * free, n = 2: knee locked). */
static int kcf_accel(const kcf_params *P, int n, const double *th, const double *w, double *acc)
{
    double c[KCF_NMASS][3], m[KCF_NMASS];
    kcf_coeffs(P, n, c, m);
    double A[3][3] = {{0}}, B[3] = {0};
    for (int q = 0; q < KCF_NMASS; q++)
        for (int j = 0; j < n; j++) {
            B[j] += m[q] * c[q][j];
            for (int k = 0; k < n; k++) A[j][k] += m[q] * c[q][j] * c[q][k];
        }
    double M[3][3], r[3];
    for (int j = 0; j < n; j++) {
        r[j] = -P->g * B[j] * sin(th[j] - P->gamma);
        for (int k = 0; k < n; k++) {
            M[j][k] = A[j][k] * cos(th[j] - th[k]);
            r[j] -= A[j][k] * sin(th[j] - th[k]) * w[k] * w[k];
        }
    }
    if (kcf_solve(n, M, r) != 0) return -1;
    for (int j = 0; j < n; j++) acc[j] = r[j];
    return 0;
}

/* Angular momentum of the masses in `mask` about P = sum_j e_j u(th_j). */
static double kcf_momentum(const kcf_params *P, int n, const double *th, const double *w, unsigned mask,
                           const double *e)
{
    double c[KCF_NMASS][3], m[KCF_NMASS];
    kcf_coeffs(P, n, c, m);
    double H = 0;
    for (int q = 0; q < KCF_NMASS; q++) {
        if (!(mask & (1u << q))) continue;
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) H += m[q] * (c[q][j] - e[j]) * c[q][k] * cos(th[j] - th[k]) * w[k];
    }
    return H;
}

#define KCF_BIT(q) (1u << (q))
#define KCF_ALL (KCF_BIT(KCF_HIP) | KCF_BIT(KCF_ST_T) | KCF_BIT(KCF_ST_S) | KCF_BIT(KCF_SW_T) | KCF_BIT(KCF_SW_S))

/* Post-impact rates w[n] with momenta h[n] = K w, K column by column. */
static int kcf_post_rates(const kcf_params *P, int n, const double *th, const unsigned *mask,
                          const double (*e)[3], const double *h, double *w)
{
    double K[3][3], b[3];
    for (int col = 0; col < n; col++) {
        double unit[3] = {0, 0, 0};
        unit[col] = 1;
        for (int r = 0; r < n; r++) K[r][col] = kcf_momentum(P, n, th, unit, mask[r], e[r]);
    }
    for (int r = 0; r < n; r++) b[r] = h[r];
    if (kcf_solve(n, K, b) != 0) return -1;
    for (int r = 0; r < n; r++) w[r] = b[r];
    return 0;
}

/* Knee-strike: xm (st, th, sh, rates) with the knee free -> xp with
 * shank = thigh and the swing leg turning as one. */
static int kcf_kneestrike(const kcf_params *P, const double *xm, double *xp)
{
    const double L = P->lt + P->ls;
    const unsigned mask[2] = {KCF_ALL, KCF_BIT(KCF_SW_T) | KCF_BIT(KCF_SW_S)};
    const double e3[2][3] = {{0, 0, 0}, {-L, 0, 0}};
    const double h[2] = {kcf_momentum(P, 3, xm, xm + 3, mask[0], e3[0]),
                         kcf_momentum(P, 3, xm, xm + 3, mask[1], e3[1])};
    const double th[2] = {xm[0], xm[1]};
    double w[2];
    if (kcf_post_rates(P, 2, th, mask, e3, h, w) != 0) return -1;
    xp[0] = xm[0];
    xp[1] = xp[2] = xm[1];
    xp[3] = w[0];
    xp[4] = xp[5] = w[1];
    return 0;
}

/* Heel-strike: xm (st, sw, sw, st_dot, sw_dot, sw_dot) with both knees
 * locked (xm[2], xm[5] are ignored) -> xp after the leg swap. */
static int kcf_heelstrike(const kcf_params *P, kcf_heelstrike_kind kind, const double *xm, double *xp)
{
    const double L = P->lt + P->ls;
    const double th[2] = {xm[0], xm[1]}, w[2] = {xm[3], xm[4]};
    /* before: the new contact C = -L u(st) + L u(sw); the trailing leg is
     * the stance leg, its knee at hip + lt u(st) */
    const double eC[3] = {-L, L, 0}, eH[3] = {-L, 0, 0}, eK[3] = {P->lt - L, 0, 0};
    double h[3];
    h[0] = kcf_momentum(P, 2, th, w, KCF_ALL, eC);
    h[1] = kcf_momentum(P, 2, th, w, KCF_BIT(KCF_ST_T) | KCF_BIT(KCF_ST_S), eH);
    h[2] = kcf_momentum(P, 2, th, w, KCF_BIT(KCF_ST_S), eK);
    /* after: stance = sw, swing = st, contact at the origin */
    const unsigned mask[3] = {KCF_ALL, KCF_BIT(KCF_SW_T) | KCF_BIT(KCF_SW_S), KCF_BIT(KCF_SW_S)};
    const double e[3][3] = {{0, 0, 0}, {-L, 0, 0}, {-L, P->lt, 0}};
    const double thp[3] = {xm[1], xm[0], xm[0]};
    double wp[3];
    xp[0] = xm[1];
    xp[1] = xp[2] = xm[0];
    if (kind == KCF_HS_LOCKED) {
        if (kcf_post_rates(P, 2, thp, mask, e, h, wp) != 0) return -1;
        wp[2] = wp[1];
    } else {
        if (kcf_post_rates(P, 3, thp, mask, e, h, wp) != 0) return -1;
    }
    xp[3] = wp[0];
    xp[4] = wp[1];
    xp[5] = wp[2];
    return 0;
}

/* Kinetic and potential energy of a state (n = 3 knee free, 2 locked:
 * then x = (st, sw, sw, st_dot, sw_dot, sw_dot)). */
static double kcf_energy(const kcf_params *P, int n, const double *x)
{
    double c[KCF_NMASS][3], m[KCF_NMASS];
    kcf_coeffs(P, n, c, m);
    const double th[3] = {x[0], x[1], x[2]}, w[3] = {x[3], x[4], x[5]};
    double T = 0, V = 0;
    for (int q = 0; q < KCF_NMASS; q++)
        for (int j = 0; j < n; j++) {
            V -= P->g * m[q] * c[q][j] * cos(th[j] - P->gamma);
            for (int k = 0; k < n; k++) T += 0.5 * m[q] * c[q][j] * c[q][k] * cos(th[j] - th[k]) * w[j] * w[k];
        }
    return T + V;
}

/* The torque the stance knee's stop must supply to keep it straight: the
 * moment about the stance knee K = (lt - L) u(st) of m (a - g) of every mass
 * above it (all but the stance shank).  With a_q = sum_j c_j (th_j'' u'(th_j)
 * - w_j^2 u(th_j)), g = g u(gamma), u(a) x u'(b) = cos(a - b) and
 * u(a) x u(b) = sin(b - a):
 *   T = sum_q m_q sum_j e_qj [sum_k c_qk (cos(th_j - th_k) th_k''
 *         + sin(th_j - th_k) w_k^2) - g sin(gamma - th_j)],  e_q = c_q - K.
 * Positive: the loads press the knee into its stop (it stays locked). */
static int kcf_stance_knee_torque(const kcf_params *P, int n, const double *th, const double *w, double *T)
{
    double c[KCF_NMASS][3], m[KCF_NMASS], acc[3];
    if (kcf_accel(P, n, th, w, acc) != 0) return -1;
    kcf_coeffs(P, n, c, m);
    const double K0 = P->lt - (P->lt + P->ls);
    double t = 0;
    for (int q = 0; q < KCF_NMASS; q++) {
        if (q == KCF_ST_S) continue;
        for (int j = 0; j < n; j++) {
            const double e = c[q][j] - (j == 0 ? K0 : 0.0);
            double s = -P->g * sin(P->gamma - th[j]);
            for (int k = 0; k < n; k++) s += c[q][k] * (cos(th[j] - th[k]) * acc[k] + sin(th[j] - th[k]) * w[k] * w[k]);
            t += m[q] * e * s;
        }
    }
    *T = t;
    return 0;
}

/* ---- the stride ------------------------------------------------------------ */

typedef enum {
    KCF_OK,
    KCF_EVENT_ORDER,    /* swing foot down before knee-strike */
    KCF_FELL_BACKWARD,  /* stance rate rose through zero */
    KCF_FELL_FORWARD,   /* hip reached the slope */
    KCF_NO_HEELSTRIKE,  /* time limit */
    KCF_SOLVER          /* singular matrix */
} kcf_status;

/* Full-state derivative in a phase (3: knee free, 2: locked). */
static int kcf_rhs(const kcf_params *P, int n, const double *x, double *xd)
{
    double acc[3];
    if (n == 3) {
        if (kcf_accel(P, 3, x, x + 3, acc) != 0) return -1;
        xd[0] = x[3], xd[1] = x[4], xd[2] = x[5];
        xd[3] = acc[0], xd[4] = acc[1], xd[5] = acc[2];
    } else {
        const double th[2] = {x[0], x[1]}, w[2] = {x[3], x[4]};
        if (kcf_accel(P, 2, th, w, acc) != 0) return -1;
        xd[0] = x[3], xd[1] = x[4], xd[2] = x[4];
        xd[3] = acc[0], xd[4] = acc[1], xd[5] = acc[1];
    }
    return 0;
}

static int kcf_rk4(const kcf_params *P, int n, const double *x, double h, double *y)
{
    double k1[6], k2[6], k3[6], k4[6], t[6];
    if (kcf_rhs(P, n, x, k1) != 0) return -1;
    for (int i = 0; i < 6; i++) t[i] = x[i] + 0.5 * h * k1[i];
    if (kcf_rhs(P, n, t, k2) != 0) return -1;
    for (int i = 0; i < 6; i++) t[i] = x[i] + 0.5 * h * k2[i];
    if (kcf_rhs(P, n, t, k3) != 0) return -1;
    for (int i = 0; i < 6; i++) t[i] = x[i] + h * k3[i];
    if (kcf_rhs(P, n, t, k4) != 0) return -1;
    for (int i = 0; i < 6; i++) y[i] = x[i] + h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    return 0;
}

static double kcf_foot_height(const kcf_params *P, const double *x)
{
    return (P->lt + P->ls) * cos(x[0]) - P->lt * cos(x[1]) - P->ls * cos(x[2]);
}

static double kcf_foot_ahead(const kcf_params *P, const double *x)
{
    return -(P->lt + P->ls) * sin(x[0]) + P->lt * sin(x[1]) + P->ls * sin(x[2]);
}

static bool kcf_strike_guard(const kcf_params *P, const double *x)
{
    const double L = P->lt + P->ls;
    return -L * sin(x[0]) > 0 && kcf_foot_ahead(P, x) > 0.02 * L;
}

enum { KCF_EV_KNEE, KCF_EV_FOOT, KCF_EV_ROLL, KCF_EV_HIP, KCF_NEV };

/* Event functions: all fire falling through zero. */
static void kcf_events(const kcf_params *P, const double *x, double *ev)
{
    ev[KCF_EV_KNEE] = x[1] - x[2];
    ev[KCF_EV_FOOT] = kcf_foot_height(P, x);
    ev[KCF_EV_ROLL] = -x[3];
    ev[KCF_EV_HIP] = (P->lt + P->ls) * cos(x[0]);
}

/* One step from the section state x0 (just after heel-strike) to just after
 * the next heel-strike, x1; *T the step time.  h: RK4 step; t_max: limit. */
static kcf_status kcf_stride(const kcf_params *P, kcf_heelstrike_kind kind, const double *x0, double h,
                             double t_max, double *x1, double *T)
{
    double x[6], t = 0;
    memcpy(x, x0, sizeof x);
    int n = 3;
    bool first = true;
    while (t < t_max) {
        double y[6], e0[KCF_NEV], e1[KCF_NEV];
        kcf_events(P, x, e0);
        if (kcf_rk4(P, n, x, h, y) != 0) return KCF_SOLVER;
        kcf_events(P, y, e1);
        /* the first event to fall through zero in this step */
        int hit = -1;
        double tau_hit = h;
        for (int k = 0; k < KCF_NEV; k++) {
            if (n == 2 && k == KCF_EV_KNEE) continue;
            const bool starts_on = first && (k == KCF_EV_KNEE || k == KCF_EV_FOOT);
            if (!(e1[k] <= 0 && (e0[k] > 0 || (starts_on && e0[k] <= 0 && e1[k] < e0[k])))) continue;
            /* secant (regula falsi, Illinois) on the step length */
            double a = 0, b = h, fa = e0[k], fb = e1[k];
            if (starts_on && fa <= 0) fa = 1e-300; /* the start is on the surface */
            double tau = h;
            int side = 0;
            for (int it = 0; it < 200; it++) {
                tau = (a * fb - b * fa) / (fb - fa);
                double z[6], ez[KCF_NEV];
                if (kcf_rk4(P, n, x, tau, z) != 0) return KCF_SOLVER;
                kcf_events(P, z, ez);
                const double fz = ez[k];
                if (fz > 0) {
                    a = tau, fa = fz;
                    if (side == -1) fb *= 0.5;
                    side = -1;
                } else {
                    b = tau, fb = fz;
                    if (side == +1) fa *= 0.5;
                    side = +1;
                }
                if (fabs(fz) < 1e-15 || b - a < 1e-15) break;
            }
            /* foot events count only with the guard */
            double z[6];
            if (kcf_rk4(P, n, x, tau, z) != 0) return KCF_SOLVER;
            if (k == KCF_EV_FOOT && !kcf_strike_guard(P, z)) continue;
            if (tau < tau_hit || hit < 0) {
                hit = k;
                tau_hit = tau;
            }
        }
        if (hit < 0) {
            memcpy(x, y, sizeof x);
            t += h;
            first = false;
            continue;
        }
        double z[6];
        if (kcf_rk4(P, n, x, tau_hit, z) != 0) return KCF_SOLVER;
        t += tau_hit;
        if (hit == KCF_EV_ROLL) return KCF_FELL_BACKWARD;
        if (hit == KCF_EV_HIP) return KCF_FELL_FORWARD;
        if (hit == KCF_EV_FOOT && n == 3) {
            memcpy(x1, z, sizeof z);
            *T = t;
            return KCF_EVENT_ORDER;
        }
        if (hit == KCF_EV_KNEE) {
            if (kcf_kneestrike(P, z, x) != 0) return KCF_SOLVER;
            n = 2;
            first = false;
            continue;
        }
        /* heel-strike */
        if (kcf_heelstrike(P, kind, z, x1) != 0) return KCF_SOLVER;
        *T = t;
        return KCF_OK;
    }
    memcpy(x1, x, sizeof x);
    *T = t;
    return KCF_NO_HEELSTRIKE;
}

/* The section state from its free coordinates: the stance angle, the
 * trailing (straight) leg with its foot on the ground behind (sw = -st for
 * point feet and equal legs), and the rates. */
static void kcf_lift(double st, double st_dot, double th_dot, double sh_dot, double *x)
{
    x[0] = st;
    x[1] = x[2] = -st;
    x[3] = st_dot;
    x[4] = th_dot;
    x[5] = sh_dot;
}

#endif
