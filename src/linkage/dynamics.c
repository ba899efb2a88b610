/* On-line equations of motion and impacts of a planar walker (Garcia 1999,
 * 2.3-2.5), in the slope frame of linkage.h.
 *
 * The walker is a set of pieces (stance thigh, stance shank, hip mass, swing
 * thigh, swing shank; a straight leg is a "thigh" with a massless "shank"),
 * each a rigid body with mass, inertia about its centre and the absolute
 * angle of the chain body it rides on.  The chain bodies of a phase are:
 *   0: the stance leg with the hip mass (joint: the stance foot's centre),
 *   1: the swing thigh, or the whole swing leg with the knee locked (joint: hip),
 *   2: the swing shank when the knee is free (joint: the swing knee). */
#include <math.h>
#include <string.h>

#ifdef LK_LAPACK_CHOLESKY /* see chol_solve */
#include <lapacke.h>
#undef I /* complex.h, through lapacke.h: geo has a member I (inertias) */
#endif

#include "internal.h"

enum { P_ST_T, P_ST_S, P_HIP, P_SW_T, P_SW_S, N_PIECES };

typedef struct {
    double m[N_PIECES], I[N_PIECES];
    double r[N_PIECES][2];     /* centres of mass */
    int body[N_PIECES];        /* chain body of each piece */
    int nb;                    /* chain bodies */
    double J[LK_MAX_DOF + 1][2]; /* joint of each body, J[nb] unused */
    double hip[2], knee_st[2], knee_sw[2], foot_st[2], foot_sw[2]; /* foot centres */
    double R;
    double gx, gy;             /* gravity vector */
} geo;

static void d_of(double th, double d[2])
{
    d[0] = sin(th);
    d[1] = -cos(th);
}

static void f_of(double th, double f[2])
{
    f[0] = cos(th);
    f[1] = sin(th);
}

static double inertia(const sm_linkage *lk, const sm_linkage_values *v, size_t i)
{
    return lk->use_gyration[i] ? v->link[i].mass * v->link[i].gyration * v->link[i].gyration : v->link[i].inertia;
}

/* A leg hanging from hip H with thigh angle tt and shank angle ts: knee,
 * the two centres of mass and the foot centre. */
static void leg(const sm_linkage *lk, const sm_linkage_values *v, const double H[2], double tt, double ts,
                double K[2], double cT[2], double cS[2], double F[2])
{
    double dt[2], ft[2], ds[2], fs[2];
    d_of(tt, dt);
    f_of(tt, ft);
    d_of(ts, ds);
    f_of(ts, fs);
    const double R = v->foot_radius, fo = v->foot_offset;
    for (int k = 0; k < 2; k++) cT[k] = H[k] + v->link[0].com * dt[k] + v->link[0].com_offset * ft[k];
    if (lk->n_links == 2) {
        for (int k = 0; k < 2; k++) {
            K[k] = H[k] + v->link[0].length * dt[k];
            cS[k] = K[k] + v->link[1].com * ds[k] + v->link[1].com_offset * fs[k];
            F[k] = K[k] + (v->link[1].length - R) * ds[k] + fo * fs[k];
        }
    } else {
        for (int k = 0; k < 2; k++) {
            K[k] = H[k];
            cS[k] = H[k];
            F[k] = H[k] + (v->link[0].length - R) * dt[k] + fo * ft[k];
        }
    }
}

/* Geometry for a[] = (stance, swing thigh, swing shank, stance knee bend)
 * with nb chain bodies (2: swing leg rigid, 3: knee free).  The stance
 * angle is that of the stance shank (the link with the foot); the stance
 * thigh is at stance + bend (bend 0 but for phases: [knee_free], whose
 * stance knee is locked at whatever angle it struck the ground with).  The
 * stance foot's centre is at (0, R), its contact point at the origin. */
static void geo_make(const sm_linkage *lk, const sm_linkage_values *v, const double a[4], int nb, geo *G)
{
    const double st = a[0], th = a[1], sh = a[2], bend = a[3];
    memset(G, 0, sizeof *G);
    G->nb = nb;
    G->R = v->foot_radius;
    G->gx = v->gravity * sin(v->slope);
    G->gy = -v->gravity * cos(v->slope);
    const double O[2] = {0, 0};
    double K[2], cT[2], cS[2], F[2];
    leg(lk, v, O, st + bend, st, K, cT, cS, F);
    /* hip = foot centre (0, R) minus the hip-to-foot-centre vector */
    G->hip[0] = -F[0];
    G->hip[1] = G->R - F[1];
    for (int k = 0; k < 2; k++) {
        G->knee_st[k] = K[k] + G->hip[k];
        G->r[P_ST_T][k] = cT[k] + G->hip[k];
        G->r[P_ST_S][k] = cS[k] + G->hip[k];
        G->r[P_HIP][k] = G->hip[k];
    }
    G->foot_st[0] = 0;
    G->foot_st[1] = G->R;
    leg(lk, v, G->hip, th, sh, G->knee_sw, G->r[P_SW_T], G->r[P_SW_S], G->foot_sw);

    const bool knee = lk->n_links == 2;
    G->m[P_ST_T] = G->m[P_SW_T] = v->link[0].mass;
    G->I[P_ST_T] = G->I[P_SW_T] = inertia(lk, v, 0);
    G->m[P_ST_S] = G->m[P_SW_S] = knee ? v->link[1].mass : 0.0;
    G->I[P_ST_S] = G->I[P_SW_S] = knee ? inertia(lk, v, 1) : 0.0;
    G->m[P_HIP] = v->hip_mass;
    G->I[P_HIP] = 0;
    G->body[P_ST_T] = G->body[P_ST_S] = G->body[P_HIP] = 0;
    G->body[P_SW_T] = 1;
    G->body[P_SW_S] = nb == 3 ? 2 : 1;
    G->J[0][0] = 0;
    G->J[0][1] = G->R;
    memcpy(G->J[1], G->hip, sizeof G->J[1]);
    memcpy(G->J[2], G->knee_sw, sizeof G->J[2]);
}

static double cross(const double a[2], const double b[2]) { return a[0] * b[1] - a[1] * b[0]; }

/* Recursive Newton-Euler: joint torques tau[nb] (generalised forces of the
 * relative coordinates) for absolute rates w[nb] and accelerations al[nb];
 * gravity by accelerating the base up by g.  Piece accelerations (gravity
 * included as -g) go to acc if not NULL. */
static void newton_euler(const geo *G, const double *w, const double *al, bool gravity, double *tau,
                         double acc[N_PIECES][2])
{
    const int nb = G->nb;
    double aJ[LK_MAX_DOF + 1][2];
    aJ[0][0] = -G->R * al[0] - (gravity ? G->gx : 0.0);
    aJ[0][1] = -(gravity ? G->gy : 0.0);
    for (int b = 0; b + 1 < nb; b++) {
        const double r[2] = {G->J[b + 1][0] - G->J[b][0], G->J[b + 1][1] - G->J[b][1]};
        aJ[b + 1][0] = aJ[b][0] - al[b] * r[1] - w[b] * w[b] * r[0];
        aJ[b + 1][1] = aJ[b][1] + al[b] * r[0] - w[b] * w[b] * r[1];
    }
    double Fb[LK_MAX_DOF][2] = {{0}}, Nb[LK_MAX_DOF] = {0};
    for (int p = 0; p < N_PIECES; p++) {
        const int b = G->body[p];
        const double c[2] = {G->r[p][0] - G->J[b][0], G->r[p][1] - G->J[b][1]};
        const double a[2] = {aJ[b][0] - al[b] * c[1] - w[b] * w[b] * c[0],
                             aJ[b][1] + al[b] * c[0] - w[b] * w[b] * c[1]};
        if (acc) {
            acc[p][0] = a[0];
            acc[p][1] = a[1];
        }
        const double F[2] = {G->m[p] * a[0], G->m[p] * a[1]};
        Fb[b][0] += F[0];
        Fb[b][1] += F[1];
        Nb[b] += G->I[p] * al[b] + cross(c, F);
    }
    double f[2] = {0, 0}, n = 0;
    for (int b = nb - 1; b >= 0; b--) {
        double r[2] = {0, 0};
        if (b + 1 < nb) {
            r[0] = G->J[b + 1][0] - G->J[b][0];
            r[1] = G->J[b + 1][1] - G->J[b][1];
        }
        n = Nb[b] + cross(r, f) + n;
        f[0] += Fb[b][0];
        f[1] += Fb[b][1];
        tau[b] = n;
    }
    /* eq. 2.17: the stance leg's balance about the contact point */
    tau[0] += -G->R * f[0];
}

/* M[nb x nb] (relative coordinates) by unit accelerations (Garcia 2.4.1). */
static void mass_matrix(const geo *G, double *M)
{
    const int nb = G->nb;
    const double w[LK_MAX_DOF] = {0};
    for (int i = 0; i < nb; i++) {
        double al[LK_MAX_DOF], tau[LK_MAX_DOF];
        for (int b = 0; b < nb; b++) al[b] = b >= i ? 1.0 : 0.0;
        newton_euler(G, w, al, false, tau, NULL);
        for (int r = 0; r < nb; r++) M[r * nb + i] = tau[r];
    }
    for (int r = 0; r < nb; r++) /* symmetrise the round-off */
        for (int c = r + 1; c < nb; c++) M[r * nb + c] = M[c * nb + r] = 0.5 * (M[r * nb + c] + M[c * nb + r]);
}

/* Solves M y = b in place (n <= 3, M symmetric, row-major) by Cholesky;
 * M is not modified.  Returns -1 if M is not positive definite (a massless
 * chain), which the engine reports as SM_RHS_FAILED.
 *
 * Why by hand and not LAPACK (issue 4 asks for LAPACK): with Debian's
 * OpenBLAS, LAPACKE_dpotrf + LAPACKE_dpotrs (row-major) made one dynamics
 * evaluation 3-4 times slower (bench_linkage, compass gait: about 1200 ns
 * against 320 ns; McGeer's kneed walker, 3 bodies: about 1900 ns against
 * 530 ns), and the column-major _work calls that skip LAPACKE's transposed
 * copies and NaN checks still 2-3 times slower: for n = 2 or 3 the cost is
 * the library's dispatch, not the arithmetic (n^3/3 = 9 multiplications).
 * The LAPACK calls are kept behind -DLK_LAPACK_CHOLESKY to repeat the
 * measurement (bench/README.md); they give the same results to round-off
 * (tests/test_linkage.c and tests/test_kneed_cross.c pass with either). */
#ifdef LK_LAPACK_CHOLESKY
static int chol_solve(int n, const double *M, double *b)
{
    double A[LK_MAX_DOF * LK_MAX_DOF];
    memcpy(A, M, sizeof(double) * (size_t)(n * n));
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, A, n) != 0) return -1; /* info > 0: not positive definite */
    if (LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', n, 1, A, n, b, 1) != 0) return -1;
    return 0;
}
#else
static int chol_solve(int n, const double *M, double *b)
{
    double L[LK_MAX_DOF][LK_MAX_DOF] = {{0}};
    for (int j = 0; j < n; j++) {
        double s = M[j * n + j];
        for (int k = 0; k < j; k++) s -= L[j][k] * L[j][k];
        if (!(s > 0)) return -1;
        L[j][j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            double t = M[i * n + j];
            for (int k = 0; k < j; k++) t -= L[i][k] * L[j][k];
            L[i][j] = t / L[j][j];
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++) b[i] -= L[i][k] * b[k];
        b[i] /= L[i][i];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) b[i] -= L[k][i] * b[k];
        b[i] /= L[i][i];
    }
    return 0;
}
#endif

/* Chain bodies of a phase. */
static int bodies(const sm_linkage *lk, size_t phase) { return lk->n_dof >= 3 && phase == 0 ? 3 : 2; }

/* Chain bodies just before heel-strike: the swing knee is free then only
 * with phases: [knee_free]. */
static int hs_pre_bodies(const sm_linkage *lk) { return lk->n_dof == 4 ? 3 : 2; }

/* Chain bodies just after heel-strike: the new swing knee is free unless
 * held (hold_at_heelstrike) or the knees are locked. */
static int hs_post_bodies(const sm_linkage *lk) { return lk->n_dof >= 3 && !lk->hs_knee_locked ? 3 : 2; }

/* Absolute angles (st, th, sh, stance bend) and rates of the chain bodies
 * from a state. */
static void unpack(const sm_linkage *lk, int nb, const double *x, double ang[4], double w[LK_MAX_DOF])
{
    const size_t n = lk->n_dof;
    ang[0] = x[0];
    ang[1] = x[1];
    ang[2] = n >= 3 && nb == 3 ? x[2] : x[1];
    ang[3] = n == 4 ? x[3] : 0.0;
    for (int b = 0; b < nb; b++) w[b] = x[n + (size_t)b];
}

/* The parameter values and the geometry of state x taken as nb bodies: how
 * every measure of a pose begins. */
static void pose(const sm_linkage *lk, const double *p, int nb, const double *x, sm_linkage_values *v,
                 double ang[4], double w[LK_MAX_DOF], geo *G)
{
    sm_linkage_values_from(lk, p, v);
    unpack(lk, nb, x, ang, w);
    geo_make(lk, v, ang, nb, G);
}

/* Applied joint torques (relative coordinates). */
static void applied(const sm_linkage_values *v, int nb, const double ang[4], const double *w, double *tau)
{
    tau[0] = 0;
    tau[1] = -v->hip_stiffness * (ang[1] - ang[0] - ang[3] - v->hip_rest) - v->hip_damping * (w[1] - w[0]) + v->hip_torque;
    if (nb == 3)
        tau[2] = -v->knee_stiffness * (ang[2] - ang[1]) - v->knee_damping * (w[2] - w[1]) + v->knee_torque;
}

/* Absolute accelerations al[nb] of the chain bodies. */
static int accel(const sm_linkage *lk, const sm_linkage_values *v, int nb, const double *x, geo *G,
                 double *al)
{
    double ang[4], w[LK_MAX_DOF];
    unpack(lk, nb, x, ang, w);
    geo_make(lk, v, ang, nb, G);
    double M[LK_MAX_DOF * LK_MAX_DOF], VG[LK_MAX_DOF], tau[LK_MAX_DOF];
    const double zero[LK_MAX_DOF] = {0};
    newton_euler(G, w, zero, true, VG, NULL);
    mass_matrix(G, M);
    applied(v, nb, ang, w, tau);
    double q[LK_MAX_DOF];
    for (int b = 0; b < nb; b++) q[b] = tau[b] - VG[b];
    if (chol_solve(nb, M, q) != 0) return -1;
    double s = 0;
    for (int b = 0; b < nb; b++) {
        s += q[b];
        al[b] = s;
    }
    return 0;
}

int sm_linkage_accel(const sm_linkage *lk, const double *p, size_t phase, const double *x, double *acc)
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const int nb = bodies(lk, phase);
    geo G;
    double al[LK_MAX_DOF];
    if (accel(lk, &v, nb, x, &G, al) != 0) return -1;
    for (size_t i = 0; i < lk->n_dof && i < 3; i++) acc[i] = al[i < (size_t)nb ? i : (size_t)nb - 1];
    if (lk->n_dof == 4) acc[3] = 0.0; /* the stance knee's bend is fixed through the step */
    return 0;
}

int sm_linkage_mass_matrix(const sm_linkage *lk, const double *p, size_t phase, const double *x, double *M,
                           double *VG, size_t *n)
{
    sm_linkage_values v;
    const int nb = bodies(lk, phase);
    double ang[4], w[LK_MAX_DOF];
    geo G;
    pose(lk, p, nb, x, &v, ang, w, &G);
    const double zero[LK_MAX_DOF] = {0};
    newton_euler(&G, w, zero, true, VG, NULL);
    mass_matrix(&G, M);
    *n = (size_t)nb;
    return 0;
}

/* Velocities of the pieces for body rates w (base rolling). */
static void velocities(const geo *G, const double *w, double v[N_PIECES][2], double om[N_PIECES])
{
    double vJ[LK_MAX_DOF + 1][2];
    vJ[0][0] = -G->R * w[0];
    vJ[0][1] = 0;
    for (int b = 0; b + 1 < G->nb; b++) {
        const double r[2] = {G->J[b + 1][0] - G->J[b][0], G->J[b + 1][1] - G->J[b][1]};
        vJ[b + 1][0] = vJ[b][0] - w[b] * r[1];
        vJ[b + 1][1] = vJ[b][1] + w[b] * r[0];
    }
    for (int p = 0; p < N_PIECES; p++) {
        const int b = G->body[p];
        const double c[2] = {G->r[p][0] - G->J[b][0], G->r[p][1] - G->J[b][1]};
        v[p][0] = vJ[b][0] - w[b] * c[1];
        v[p][1] = vJ[b][1] + w[b] * c[0];
        om[p] = w[b];
    }
}

/* Angular momentum of the pieces in mask about point P. */
static double momentum(const geo *G, double v[N_PIECES][2], const double om[N_PIECES], unsigned mask,
                       const double P[2])
{
    double h = 0;
    for (int p = 0; p < N_PIECES; p++) {
        if (!(mask & (1u << p))) continue;
        const double r[2] = {G->r[p][0] - P[0], G->r[p][1] - P[1]};
        const double mv[2] = {G->m[p] * v[p][0], G->m[p] * v[p][1]};
        h += cross(r, mv) + G->I[p] * om[p];
    }
    return h;
}

#define BIT(p) (1u << (p))
#define ALL (BIT(P_ST_T) | BIT(P_ST_S) | BIT(P_HIP) | BIT(P_SW_T) | BIT(P_SW_S))

/* Pre-impact momenta h[] about the post-impact contact point and hinges. */
static void pre_momenta(const sm_linkage *lk, sm_linkage_impact kind, const geo *G, const double *w,
                        double *h, int *n_out)
{
    double v[N_PIECES][2], om[N_PIECES];
    velocities(G, w, v, om);
    if (kind == SM_LINKAGE_HEELSTRIKE) {
        const double C[2] = {G->foot_sw[0], G->foot_sw[1] - G->R};
        h[0] = momentum(G, v, om, ALL, C);
        h[1] = momentum(G, v, om, BIT(P_ST_T) | BIT(P_ST_S), G->hip);
        int n = 2;
        if (hs_post_bodies(lk) == 3) h[n++] = momentum(G, v, om, BIT(P_ST_S), G->knee_st);
        *n_out = n;
    } else {
        const double C[2] = {0, 0};
        h[0] = momentum(G, v, om, ALL, C);
        h[1] = momentum(G, v, om, BIT(P_SW_T) | BIT(P_SW_S), G->hip);
        *n_out = 2;
    }
}

/* The same momenta computed from a post-impact state in its own frame. */
static void post_momenta(const sm_linkage *lk, sm_linkage_impact kind, const geo *G, const double *w,
                         double *h, int *n_out)
{
    double v[N_PIECES][2], om[N_PIECES];
    velocities(G, w, v, om);
    const double C[2] = {0, 0};
    h[0] = momentum(G, v, om, ALL, C);
    h[1] = momentum(G, v, om, BIT(P_SW_T) | BIT(P_SW_S), G->hip);
    int n = 2;
    if (kind == SM_LINKAGE_HEELSTRIKE && hs_post_bodies(lk) == 3)
        h[n++] = momentum(G, v, om, BIT(P_SW_S), G->knee_sw);
    *n_out = n;
}

/* The post-impact state xp from the pre-impact state xm. */
int lk_impact(const sm_linkage *lk, const double *p, sm_linkage_impact kind, const double *xm, double *xp)
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const size_t n = lk->n_dof;
    const int nb_pre = kind == SM_LINKAGE_HEELSTRIKE ? hs_pre_bodies(lk) : 3;
    const int nb_post = kind == SM_LINKAGE_HEELSTRIKE ? hs_post_bodies(lk) : 2;
    double ang[4], w[LK_MAX_DOF];
    unpack(lk, nb_pre, xm, ang, w);
    geo G;
    geo_make(lk, &v, ang, nb_pre, &G);
    double h[LK_MAX_DOF];
    int nh = 0;
    pre_momenta(lk, kind, &G, w, h, &nh);

    /* the same configuration, renamed: at heel-strike the swing leg (its
     * knee bent as it is) becomes the stance leg and the stance leg (thigh
     * at stance + bend) the swing leg */
    double post[4];
    if (kind == SM_LINKAGE_HEELSTRIKE) {
        post[0] = ang[2];
        post[1] = ang[0] + ang[3];
        post[2] = ang[0];
        post[3] = ang[1] - ang[2];
    } else {
        post[0] = ang[0];
        post[1] = ang[1];
        post[2] = ang[1];
        post[3] = ang[3];
    }
    geo Gp;
    geo_make(lk, &v, post, nb_post, &Gp);
    double M[LK_MAX_DOF * LK_MAX_DOF];
    mass_matrix(&Gp, M);
    if (chol_solve(nb_post, M, h) != 0) return -1;
    xp[0] = post[0];
    xp[1] = post[1];
    if (n >= 3) xp[2] = post[2];
    if (n == 4) {
        xp[3] = post[3];
        xp[7] = 0.0;
    }
    double s = 0;
    for (size_t b = 0; b < n && b < 3; b++) {
        if ((int)b < nb_post) s += h[b];
        xp[n + b] = s; /* a locked shank turns with the thigh */
    }
    return 0;
}

int sm_linkage_impact_momenta(const sm_linkage *lk, const double *p, sm_linkage_impact kind,
                              const double *x_pre, const double *x_post, double *h_pre, double *h_post,
                              size_t *n)
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const int nb_pre = kind == SM_LINKAGE_HEELSTRIKE ? hs_pre_bodies(lk) : 3;
    const int nb_post = kind == SM_LINKAGE_HEELSTRIKE ? hs_post_bodies(lk) : 2;
    double ang[4], w[LK_MAX_DOF];
    geo G;
    int n1 = 0, n2 = 0;
    unpack(lk, nb_pre, x_pre, ang, w);
    geo_make(lk, &v, ang, nb_pre, &G);
    pre_momenta(lk, kind, &G, w, h_pre, &n1);
    unpack(lk, nb_post, x_post, ang, w);
    geo_make(lk, &v, ang, nb_post, &G);
    post_momenta(lk, kind, &G, w, h_post, &n2);
    *n = (size_t)n1;
    return n1 == n2 ? 0 : -1;
}

/* Chain bodies that describe a state: the knee is free unless shank = thigh
 * and their rates agree. */
static int state_bodies(const sm_linkage *lk, const double *x)
{
    if (lk->n_dof == 4) return 3; /* phases: [knee_free]: never locked */
    if (lk->n_dof != 3) return 2;
    return x[1] == x[2] && x[4] == x[5] ? 2 : 3;
}

double sm_linkage_kinetic(const sm_linkage *lk, const double *p, const double *x)
{
    sm_linkage_values v;
    const int nb = state_bodies(lk, x);
    double ang[4], w[LK_MAX_DOF];
    geo G;
    pose(lk, p, nb, x, &v, ang, w, &G);
    double vel[N_PIECES][2], om[N_PIECES];
    velocities(&G, w, vel, om);
    double T = 0;
    for (int q = 0; q < N_PIECES; q++)
        T += 0.5 * (G.m[q] * (vel[q][0] * vel[q][0] + vel[q][1] * vel[q][1]) + G.I[q] * om[q] * om[q]);
    return T;
}

double sm_linkage_potential(const sm_linkage *lk, const double *p, const double *x)
{
    sm_linkage_values v;
    const int nb = state_bodies(lk, x);
    double ang[4], w[LK_MAX_DOF];
    geo G;
    pose(lk, p, nb, x, &v, ang, w, &G);
    double U = 0;
    /* the frame rides with the contact point; the foot centre has rolled
     * -R stance along the slope */
    const double roll = -G.R * ang[0];
    for (int q = 0; q < N_PIECES; q++) U -= G.m[q] * (G.gx * (G.r[q][0] + roll) + G.gy * G.r[q][1]);
    const double dh = ang[1] - ang[0] - ang[3] - v.hip_rest;
    U += 0.5 * v.hip_stiffness * dh * dh;
    if (nb == 3) U += 0.5 * v.knee_stiffness * (ang[2] - ang[1]) * (ang[2] - ang[1]);
    return U;
}

void sm_linkage_swing_foot(const sm_linkage *lk, const double *p, const double *x, double *height,
                           double *ahead)
{
    sm_linkage_values v;
    const int nb = lk->n_dof >= 3 ? 3 : 2;
    double ang[4], w[LK_MAX_DOF];
    geo G;
    pose(lk, p, nb, x, &v, ang, w, &G);
    if (height) *height = G.foot_sw[1] - G.R;
    if (ahead) *ahead = G.foot_sw[0];
}

/* Hip position (stance contact at the origin). */
void lk_hip(const sm_linkage *lk, const double *p, const double *x, double hip[2])
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    geo G;
    const double ang[4] = {x[0], x[1], x[1], lk->n_dof == 4 ? x[3] : 0.0};
    geo_make(lk, &v, ang, 2, &G);
    hip[0] = G.hip[0];
    hip[1] = G.hip[1];
}

double sm_linkage_knee_lock_torque(const sm_linkage *lk, const double *p, size_t phase, const double *x)
{
    if (lk->n_links != 2) return NAN;
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const int nb = bodies(lk, phase);
    geo G;
    double al[LK_MAX_DOF], ang[4], w[LK_MAX_DOF], tau[LK_MAX_DOF], acc[N_PIECES][2];
    if (accel(lk, &v, nb, x, &G, al) != 0) return NAN;
    unpack(lk, nb, x, ang, w);
    newton_euler(&G, w, al, true, tau, acc);
    double T = 0;
    for (int q = 0; q < N_PIECES; q++) {
        if (q == P_ST_S) continue;
        const double r[2] = {G.r[q][0] - G.knee_st[0], G.r[q][1] - G.knee_st[1]};
        const double F[2] = {G.m[q] * acc[q][0], G.m[q] * acc[q][1]};
        T += cross(r, F) + G.I[q] * al[G.body[q]];
    }
    return T;
}

double sm_linkage_heelstrike_knee_impulse(const sm_linkage *lk, const double *p, const double *x_pre,
                                          const double *x_post)
{
    if (lk->n_links != 2) return NAN;
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    double ang[4], w[LK_MAX_DOF], vel[N_PIECES][2], om[N_PIECES];
    geo G;
    const int nbm = hs_pre_bodies(lk);
    unpack(lk, nbm, x_pre, ang, w);
    geo_make(lk, &v, ang, nbm, &G);
    velocities(&G, w, vel, om);
    const double hm = momentum(&G, vel, om, ALL & ~BIT(P_SW_S), G.knee_sw);
    const int nbp = lk->n_dof >= 3 ? 3 : 2;
    unpack(lk, nbp, x_post, ang, w);
    geo_make(lk, &v, ang, nbp, &G);
    velocities(&G, w, vel, om);
    const double hp = momentum(&G, vel, om, ALL & ~BIT(P_ST_S), G.knee_st);
    return hp - hm;
}

/* Ground reaction on the stance foot R[2] (slope frame) in a phase: the sum
 * of the pieces' m (a - g). */
int lk_ground_reaction(const sm_linkage *lk, const double *p, size_t phase, const double *x, double R[2])
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const int nb = bodies(lk, phase);
    geo G;
    double al[LK_MAX_DOF], ang[4], w[LK_MAX_DOF], tau[LK_MAX_DOF], acc[N_PIECES][2];
    if (accel(lk, &v, nb, x, &G, al) != 0) return -1;
    unpack(lk, nb, x, ang, w);
    newton_euler(&G, w, al, true, tau, acc);
    R[0] = R[1] = 0;
    for (int q = 0; q < N_PIECES; q++) {
        R[0] += G.m[q] * acc[q][0];
        R[1] += G.m[q] * acc[q][1];
    }
    return 0;
}

/* Total linear momentum P[2] of a state. */
void lk_momentum(const sm_linkage *lk, const double *p, const double *x, double P[2])
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const int nb = state_bodies(lk, x);
    double ang[4], w[LK_MAX_DOF], vel[N_PIECES][2], om[N_PIECES];
    unpack(lk, nb, x, ang, w);
    geo G;
    geo_make(lk, &v, ang, nb, &G);
    velocities(&G, w, vel, om);
    P[0] = P[1] = 0;
    for (int q = 0; q < N_PIECES; q++) {
        P[0] += G.m[q] * vel[q][0];
        P[1] += G.m[q] * vel[q][1];
    }
}
