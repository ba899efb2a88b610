/* The rigid-body core (src/rigid/) against closed forms and independent routes.
 *
 * - single and double pendulum: M and C v + G written out from Lagrange's
 *   equations (any dynamics text, e.g. Spong, Hutchinson & Vidyasagar,
 *   Robot Modeling and Control, §7.4) to 1e-12;
 * - a free rigid body: M = diag(m 1, I_c) and bias = (−m g, ω × I_c ω)
 *   (Newton and Euler's equations);
 * - M symmetric positive definite, and ½ vᵀ M v equal to the kinetic energy
 *   summed body by body from centre-of-mass and angular velocities;
 * - site Jacobians against central differences of the site position, J̇v
 *   against central differences of J(q ⊕ s v) v along s;
 * - energy conserved along an RK4 integration of M v̇ = −bias, with the energy
 *   summed body by body (never through M);
 * - a tree rotated as a whole, gravity with it, has the same M and bias;
 * - bad trees refused with a message naming the body.
 * Reference for the algorithms: Featherstone, Rigid Body Dynamics Algorithms, 2008. */
#include "test_util.h"

#include <stdlib.h>

#include "stridemap/rigid.h"
#include "rigid_trees.h"

#define G 9.81

/* ---- small helpers ---------------------------------------------------- */

#include "test_rng.h"
#include "test_dense_solve.h"

static sm_rigid_model *build(const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns,
                             const double *g)
{
    sm_rigid_model *m = NULL;
    char msg[200];
    sm_status st = sm_rigid_model_create(b, nb, s, ns, g, &m, msg, sizeof msg);
    if (st != SM_OK) fail_msg("tree refused: %s", msg);
    return m;
}

/* Random state: hinge/slide coordinates uniform, quaternions random unit, velocities uniform. */
static void random_state(const sm_rigid_model *m, double *q, double *v)
{
    sm_rigid_q_neutral(m, q);
    size_t nv = sm_rigid_nv(m);
    double *w = malloc(nv * sizeof *w);
    for (size_t i = 0; i < nv; i++) w[i] = urand(-1.5, 1.5);
    sm_rigid_integrate_q(m, q, w, 1.0, q); /* reaches any rotation and offset */
    for (size_t i = 0; i < nv; i++) v[i] = urand(-2.0, 2.0);
    free(w);
}

/* Cholesky of a copy; false if a pivot is not positive. */
static bool spd(const double *M, size_t n)
{
    double *A = malloc(n * n * sizeof *A);
    memcpy(A, M, n * n * sizeof *A);
    bool ok = true;
    for (size_t j = 0; j < n && ok; j++) {
        double s = A[j * n + j];
        for (size_t k = 0; k < j; k++) s -= A[j * n + k] * A[j * n + k];
        if (!(s > 0)) {
            ok = false;
            break;
        }
        A[j * n + j] = sqrt(s);
        for (size_t i = j + 1; i < n; i++) {
            double t = A[i * n + j];
            for (size_t k = 0; k < j; k++) t -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = t / A[j * n + j];
        }
    }
    free(A);
    return ok;
}

/* Kinetic and potential energy summed body by body, from centre-of-mass and
 * angular velocities: T = Σ ½ m |v_c|² + ½ ωᵀ R I_c Rᵀ ω,  V = −Σ m g·p_c. */
static void energy(const sm_rigid_model *m, const sm_rigid_data *d, const sm_rigid_body_def *b,
                   const double *g, double *T, double *V)
{
    *T = *V = 0.0;
    for (size_t i = 0; i < sm_rigid_nbody(m); i++) {
        double R[9], p[3], vc[3], w[3], wl[3], Iw[3];
        sm_rigid_body_state(m, d, i, R, p, vc, w);
        for (int k = 0; k < 3; k++) wl[k] = R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2];
        for (int k = 0; k < 3; k++)
            Iw[k] = b[i].inertia[3 * k] * wl[0] + b[i].inertia[3 * k + 1] * wl[1] + b[i].inertia[3 * k + 2] * wl[2];
        *T += 0.5 * b[i].mass * (vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2])
            + 0.5 * (wl[0] * Iw[0] + wl[1] * Iw[1] + wl[2] * Iw[2]);
        *V -= b[i].mass * (g[0] * p[0] + g[1] * p[1] + g[2] * p[2]);
    }
}

static const double gz[3] = {0, 0, -G};

/* ---- closed forms ------------------------------------------------------ */

/* One body hinged about y at the origin, centre of mass l below it:
 * M = I_yy + m l²,  bias = m g l sin q (q about +y swings the mass toward −x). */
static void test_single_pendulum(void **state)
{
    (void)state;
    sm_rigid_body_def b = {"bob", -1, SM_RIGID_HINGE, {0, 0, 0}, {1, 0, 0, 0}, {0, 2, 0}, 1.7, {0, 0, -0.8}, {0}};
    set_inertia(b.inertia, 0.05, 0.07, 0.04, 0.01, -0.02, 0.015); /* products off the axis do not enter */
    sm_rigid_site_def s = {"tip", 0, {0, 0, -1.0}};
    sm_rigid_model *m = build(&b, 1, &s, 1, gz);
    sm_rigid_data *d = sm_rigid_data_create(m);
    assert_true(sm_rigid_is_planar(m));
    for (int k = 0; k < 40; k++) {
        sm_rigid_use_planar(m, k % 2 == 0); /* both paths */
        double q = urand(-3, 3), v = urand(-3, 3), M, bias, p[3], acc[3];
        assert_status(sm_rigid_forward(m, d, &q, &v), SM_OK);
        sm_rigid_mass(m, d, &M);
        sm_rigid_bias(m, d, &bias);
        assert_close(M, 0.07 + 1.7 * 0.64, 1e-12);
        assert_close(bias, 1.7 * G * 0.8 * sin(q), 1e-12);
        sm_rigid_site_pos(m, d, 0, p);
        assert_close(p[0], -sin(q), 1e-14);
        assert_close(p[2], -cos(q), 1e-14);
        /* a point on a circle at constant rate: centripetal acceleration v² toward the pivot */
        sm_rigid_site_jdotv(m, d, 0, acc);
        assert_close(acc[0], v * v * sin(q), 1e-12);
        assert_close(acc[1], 0.0, 1e-14);
        assert_close(acc[2], v * v * cos(q), 1e-12);
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

/* Two links hinged about y, the second at l1 down the first, relative angle q2:
 *   M11 = I1 + I2 + m1 c1² + m2 (l1² + c2² + 2 l1 c2 cos q2)
 *   M12 = I2 + m2 (c2² + l1 c2 cos q2),  M22 = I2 + m2 c2²
 *   bias1 = −m2 l1 c2 sin q2 (2 q̇1 q̇2 + q̇2²) + (m1 c1 + m2 l1) g sin q1 + m2 c2 g sin(q1 + q2)
 *   bias2 =  m2 l1 c2 sin q2 q̇1² + m2 c2 g sin(q1 + q2). */
static void test_double_pendulum(void **state)
{
    (void)state;
    const double m1 = 2.3, m2 = 1.4, l1 = 0.9, c1 = 0.35, c2 = 0.5, I1 = 0.21, I2 = 0.13;
    sm_rigid_body_def b[2] = {
        {"upper", -1, SM_RIGID_HINGE, {0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0}, m1, {0, 0, -c1}, {0}},
        {"lower", 0, SM_RIGID_HINGE, {0, 0, -l1}, {1, 0, 0, 0}, {0, 1, 0}, m2, {0, 0, -c2}, {0}},
    };
    set_inertia(b[0].inertia, 0.3, I1, 0.1, 0.02, 0.05, -0.01);
    set_inertia(b[1].inertia, 0.2, I2, 0.05, -0.01, 0.01, 0.02);
    sm_rigid_model *m = build(b, 2, NULL, 0, gz);
    sm_rigid_data *d = sm_rigid_data_create(m);
    assert_true(sm_rigid_is_planar(m));
    for (int k = 0; k < 100; k++) {
        sm_rigid_use_planar(m, k % 2 == 0); /* both paths */
        double q[2] = {urand(-3, 3), urand(-3, 3)}, v[2] = {urand(-4, 4), urand(-4, 4)}, M[4], bias[2];
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        sm_rigid_mass(m, d, M);
        sm_rigid_bias(m, d, bias);
        double c = cos(q[1]), s = sin(q[1]);
        assert_close(M[0], I1 + I2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * c), 1e-12);
        assert_close(M[1], I2 + m2 * (c2 * c2 + l1 * c2 * c), 1e-12);
        assert_close(M[2], M[1], 0.0);
        assert_close(M[3], I2 + m2 * c2 * c2, 1e-12);
        double g12 = m2 * c2 * G * sin(q[0] + q[1]);
        assert_close(bias[0],
                     -m2 * l1 * c2 * s * (2 * v[0] * v[1] + v[1] * v[1]) + (m1 * c1 + m2 * l1) * G * sin(q[0]) + g12,
                     1e-12);
        assert_close(bias[1], m2 * l1 * c2 * s * v[0] * v[0] + g12, 1e-12);
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

/* A free body: Newton's m a = m g and Euler's I ω̇ + ω × I ω = 0 in the body frame. */
static void test_free_body_newton_euler(void **state)
{
    (void)state;
    const double g[3] = {0.3, -1.2, -9.7};
    sm_rigid_body_def b = {"rock", -1, SM_RIGID_FREE, {0, 0, 0}, {1, 0, 0, 0}, {0}, 3.2, {0.1, -0.05, 0.2}, {0}};
    set_inertia(b.inertia, 0.4, 0.3, 0.5, 0.05, -0.02, 0.01);
    /* site at the centre of mass, so that its Jacobian gives v_c */
    sm_rigid_site_def s = {"c", 0, {0.1, -0.05, 0.2}};
    sm_rigid_model *m = build(&b, 1, &s, 1, g);
    assert_int_equal(sm_rigid_nq(m), 7);
    assert_int_equal(sm_rigid_nv(m), 6);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double q[7], v[6], M[36], bias[6], R[9];
    for (int k = 0; k < 20; k++) {
        random_state(m, q, v);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        sm_rigid_mass(m, d, M);
        sm_rigid_bias(m, d, bias);
        sm_rigid_body_state(m, d, 0, R, NULL, NULL, NULL);
        /* The coordinates are the origin's position (not the centre of mass)
         * and the body-frame ω, so M and bias are written for that point:
         * with c = R c_b the world offset of the centre of mass,
         *   m (p̈ + ω̇ × c + ω × (ω × c)) = m g
         *   I_o ω̇ + m c_b × Rᵀ p̈ + ω × I_o ω = c_b × Rᵀ m g   (I_o about the origin, body frame). */
        const double *cb = b.com, mass = b.mass;
        double wb[3] = {v[3], v[4], v[5]}, w[3], c[3];
        for (int i = 0; i < 3; i++) w[i] = R[3 * i] * wb[0] + R[3 * i + 1] * wb[1] + R[3 * i + 2] * wb[2];
        for (int i = 0; i < 3; i++) c[i] = R[3 * i] * cb[0] + R[3 * i + 1] * cb[1] + R[3 * i + 2] * cb[2];
        double wc[3] = {w[1] * c[2] - w[2] * c[1], w[2] * c[0] - w[0] * c[2], w[0] * c[1] - w[1] * c[0]};
        double wwc[3] = {w[1] * wc[2] - w[2] * wc[1], w[2] * wc[0] - w[0] * wc[2], w[0] * wc[1] - w[1] * wc[0]};
        for (int i = 0; i < 3; i++) {
            assert_close(M[6 * i + i], mass, 1e-12);
            assert_close(bias[i], mass * (wwc[i] - g[i]), 1e-12);
        }
        double Io[9], cc = cb[0] * cb[0] + cb[1] * cb[1] + cb[2] * cb[2];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Io[3 * i + j] = b.inertia[3 * i + j] + mass * ((i == j) * cc - cb[i] * cb[j]);
        double Iw[3];
        for (int i = 0; i < 3; i++) Iw[i] = Io[3 * i] * wb[0] + Io[3 * i + 1] * wb[1] + Io[3 * i + 2] * wb[2];
        double gb[3];
        for (int i = 0; i < 3; i++) gb[i] = R[i] * g[0] + R[3 + i] * g[1] + R[6 + i] * g[2];
        double wIw[3] = {wb[1] * Iw[2] - wb[2] * Iw[1], wb[2] * Iw[0] - wb[0] * Iw[2], wb[0] * Iw[1] - wb[1] * Iw[0]};
        double cg[3] = {cb[1] * gb[2] - cb[2] * gb[1], cb[2] * gb[0] - cb[0] * gb[2], cb[0] * gb[1] - cb[1] * gb[0]};
        for (int i = 0; i < 3; i++) {
            assert_close(bias[3 + i], wIw[i] - mass * cg[i], 1e-12);
            for (int j = 0; j < 3; j++) assert_close(M[6 * (3 + i) + 3 + j], Io[3 * i + j], 1e-12);
        }
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

/* ---- structure: SPD, kinetic energy, Jacobians ------------------------ */

typedef void (*tree_fn)(sm_rigid_body_def *, sm_rigid_site_def *);

static void check_mass_spd_and_kinetic(tree_fn make, size_t nb, size_t ns, size_t want_nv)
{
    sm_rigid_body_def b[8];
    sm_rigid_site_def s[8];
    make(b, s);
    sm_rigid_model *m = build(b, nb, s, ns, gz);
    size_t nq = sm_rigid_nq(m), nv = sm_rigid_nv(m);
    assert_int_equal(nv, want_nv);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double *q = malloc(nq * sizeof *q), *v = malloc(nv * sizeof *v), *M = malloc(nv * nv * sizeof *M);
    for (int k = 0; k < 100; k++) {
        random_state(m, q, v);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        sm_rigid_mass(m, d, M);
        double scale = 0.0;
        for (size_t i = 0; i < nv; i++) scale = fmax(scale, fabs(M[i * nv + i]));
        for (size_t i = 0; i < nv; i++)
            for (size_t j = 0; j < i; j++) assert_close(M[i * nv + j], M[j * nv + i], 1e-14 * scale);
        assert_true(spd(M, nv));
        double vMv = 0.0, T, V;
        for (size_t i = 0; i < nv; i++)
            for (size_t j = 0; j < nv; j++) vMv += v[i] * M[i * nv + j] * v[j];
        energy(m, d, b, gz, &T, &V);
        assert_close(0.5 * vMv, T, 1e-12 * T);
    }
    free(q);
    free(v);
    free(M);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_mass_spd_biped(void **state)
{
    (void)state;
    check_mass_spd_and_kinetic(biped, BIPED_N, 4, 7);
}

static void test_mass_spd_tree3d(void **state)
{
    (void)state;
    check_mass_spd_and_kinetic(tree3d, TREE_N, 3, 12);
}

/* J against central differences of the site position along each velocity
 * coordinate (q ⊕ h e_k), jacr against those of the orientation; J̇v against
 * the central difference of J(q ⊕ s v) v in s. */
static void check_jacobians(tree_fn make, size_t nb, size_t ns)
{
    sm_rigid_body_def b[8];
    sm_rigid_site_def s[8];
    make(b, s);
    sm_rigid_model *m = build(b, nb, s, ns, gz);
    size_t nq = sm_rigid_nq(m), nv = sm_rigid_nv(m);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double *q = malloc(nq * sizeof *q), *v = malloc(nv * sizeof *v), *e = calloc(nv, sizeof *e);
    double *qp = malloc(nq * sizeof *qp), *qm = malloc(nq * sizeof *qm);
    double *Jp = malloc(3 * nv * sizeof *Jp), *Jr = malloc(3 * nv * sizeof *Jr), *J2 = malloc(3 * nv * sizeof *J2);
    const double h = 1e-5;
    for (int k = 0; k < 20; k++) {
        random_state(m, q, v);
        for (size_t site = 0; site < ns; site++) {
            double acc[3];
            assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
            sm_rigid_site_jac(m, d, site, Jp, Jr);
            sm_rigid_site_jdotv(m, d, site, acc);
            sm_rigid_site_jac(m, d, site, J2, NULL);
            for (size_t i = 0; i < 3 * nv; i++) assert_close(J2[i], Jp[i], 0.0); /* jacr NULL changes nothing */
            for (size_t c = 0; c < nv; c++) {
                e[c] = 1.0;
                double pp[3], pm[3], Rp[9], Rm[9], Rc[9];
                sm_rigid_integrate_q(m, q, e, h, qp);
                sm_rigid_integrate_q(m, q, e, -h, qm);
                e[c] = 0.0;
                size_t body = (size_t)s[site].body; /* its orientation: jacr's finite difference */
                sm_rigid_forward(m, d, qp, v);
                sm_rigid_site_pos(m, d, site, pp);
                sm_rigid_body_state(m, d, body, Rp, NULL, NULL, NULL);
                sm_rigid_forward(m, d, qm, v);
                sm_rigid_site_pos(m, d, site, pm);
                sm_rigid_body_state(m, d, body, Rm, NULL, NULL, NULL);
                sm_rigid_forward(m, d, q, v);
                sm_rigid_body_state(m, d, body, Rc, NULL, NULL, NULL);
                /* Ṙ Rᵀ = ω̃ */
                double W[9];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        double t = 0.0;
                        for (int l = 0; l < 3; l++) t += (Rp[3 * i + l] - Rm[3 * i + l]) / (2 * h) * Rc[3 * j + l];
                        W[3 * i + j] = t;
                    }
                double wfd[3] = {W[7], W[2], W[3]};
                for (int i = 0; i < 3; i++) {
                    assert_close(Jp[i * nv + c], (pp[i] - pm[i]) / (2 * h), 1e-8);
                    assert_close(Jr[i * nv + c], wfd[i], 1e-8);
                }
            }
            /* J̇v */
            double ap[3] = {0, 0, 0}, am[3] = {0, 0, 0};
            sm_rigid_integrate_q(m, q, v, h, qp);
            sm_rigid_integrate_q(m, q, v, -h, qm);
            sm_rigid_forward(m, d, qp, v);
            sm_rigid_site_jac(m, d, site, J2, NULL);
            for (int i = 0; i < 3; i++)
                for (size_t c = 0; c < nv; c++) ap[i] += J2[i * nv + c] * v[c];
            sm_rigid_forward(m, d, qm, v);
            sm_rigid_site_jac(m, d, site, J2, NULL);
            for (int i = 0; i < 3; i++)
                for (size_t c = 0; c < nv; c++) am[i] += J2[i * nv + c] * v[c];
            for (int i = 0; i < 3; i++) assert_close(acc[i], (ap[i] - am[i]) / (2 * h), 1e-7 * fmax(1.0, fabs(acc[i])));
        }
    }
    free(q);
    free(v);
    free(e);
    free(qp);
    free(qm);
    free(Jp);
    free(Jr);
    free(J2);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_jacobians_biped(void **state)
{
    (void)state;
    check_jacobians(biped, BIPED_N, 4);
}

static void test_jacobians_tree3d(void **state)
{
    (void)state;
    check_jacobians(tree3d, TREE_N, 3);
}

/* ---- energy ------------------------------------------------------------ */

static void accel(const sm_rigid_model *m, sm_rigid_data *d, const double *q, const double *v, double *vdot,
                  double *M)
{
    size_t nv = sm_rigid_nv(m);
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    sm_rigid_mass(m, d, M);
    sm_rigid_bias(m, d, vdot);
    for (size_t i = 0; i < nv; i++) vdot[i] = -vdot[i];
    test_dense_solve(M, vdot, nv);
}

/* RK4 on (q, v) with hinges and slides only (q̇ = v), 3 s at h = 1e-3; the
 * energy, summed body by body, must stay within 1e-8 of its start relative
 * to the energy scale (T + |V|). */
static void check_energy(const sm_rigid_body_def *b, size_t nb, double *q, double *v)
{
    sm_rigid_model *m = build(b, nb, NULL, 0, gz);
    size_t n = sm_rigid_nv(m);
    assert_int_equal(sm_rigid_nq(m), n);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double *M = malloc(n * n * sizeof *M), *k = malloc(8 * n * sizeof *k), *qs = malloc(2 * n * sizeof *qs);
    double *k1 = k, *k2 = k + 2 * n, *k3 = k + 4 * n, *k4 = k + 6 * n;
    double T, V;
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    energy(m, d, b, gz, &T, &V);
    const double E0 = T + V, scale = T + fabs(V);
    const double h = 1e-3;
    double drift = 0.0;
    for (int step = 0; step < 3000; step++) {
        double *st[4] = {k1, k2, k3, k4};
        double c[4] = {0, 0.5, 0.5, 1.0};
        for (int s = 0; s < 4; s++) {
            for (size_t i = 0; i < n; i++) {
                qs[i] = q[i] + (s ? c[s] * h * st[s - 1][i] : 0.0);
                qs[n + i] = v[i] + (s ? c[s] * h * st[s - 1][n + i] : 0.0);
            }
            memcpy(st[s], qs + n, n * sizeof *qs);
            accel(m, d, qs, qs + n, st[s] + n, M);
        }
        for (size_t i = 0; i < 2 * n; i++) {
            double dx = h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
            if (i < n) q[i] += dx;
            else v[i - n] += dx;
        }
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        energy(m, d, b, gz, &T, &V);
        drift = fmax(drift, fabs(T + V - E0) / scale);
    }
    print_message("energy drift over 3 s (RK4, h = 1e-3, %zu DOF): %.2g of T + |V|\n", n, drift);
    assert_true(drift < 1e-8);
    free(M);
    free(k);
    free(qs);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_energy_biped(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N];
    sm_rigid_site_def s[4];
    biped(b, s);
    double q[BIPED_N] = {0.3, -0.5, 0.4, 0.2, 0.6, -0.2, 0.1}, v[BIPED_N] = {0.5, -1.0, 1.5, 0.3, -0.8, 2.0, -1.0};
    check_energy(b, BIPED_N, q, v);
}

static void test_energy_3d_chain(void **state)
{
    (void)state;
    sm_rigid_body_def b[4] = {
        {"a", -1, SM_RIGID_HINGE, {0, 0, 1}, {0.9, 0.2, 0.1, 0.3}, {1, 0, 0}, 2.0, {0.1, 0.0, -0.3}, {0}},
        {"b", 0, SM_RIGID_HINGE, {0.1, 0, -0.5}, {1, 0, 0, 0}, {0, 1, 1}, 1.5, {0.0, 0.1, -0.2}, {0}},
        {"c", 1, SM_RIGID_SLIDE, {0.0, 0.1, -0.4}, {0.8, -0.3, 0.2, 0.1}, {1, 0, 1}, 1.0, {0.05, 0, -0.1}, {0}},
        {"d", 2, SM_RIGID_HINGE, {0.0, 0.0, -0.3}, {1, 0, 0, 0}, {0.2, 0.3, 1}, 0.8, {0.1, 0.05, -0.1}, {0}},
    };
    set_inertia(b[0].inertia, 0.05, 0.06, 0.02, 0.003, -0.002, 0.001);
    set_inertia(b[1].inertia, 0.03, 0.02, 0.025, -0.001, 0.002, 0.0);
    set_inertia(b[2].inertia, 0.01, 0.012, 0.008, 0.0, 0.001, 0.0);
    set_inertia(b[3].inertia, 0.004, 0.006, 0.005, 0.0005, 0.0, 0.0003);
    double q[4] = {0.4, -0.3, 0.1, 0.5}, v[4] = {1.0, -0.5, 0.2, 2.0};
    check_energy(b, 4, q, v);
}

/* ---- invariance under a rigid rotation of the whole tree --------------- */

static void qmul(const double *a, const double *b, double *c)
{
    double t[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(c, t, sizeof t);
}

/* Turning every root body by Q (position and orientation) and gravity by Q
 * leaves M and bias unchanged and turns every site by Q. */
static void check_rotated(tree_fn make, size_t nb, size_t ns)
{
    sm_rigid_body_def b[8], br[8];
    sm_rigid_site_def s[8];
    make(b, s);
    memcpy(br, b, sizeof b);
    double Qq[4] = {0.6, -0.3, 0.5, 0.2}, n = 0.0;
    for (int i = 0; i < 4; i++) n += Qq[i] * Qq[i];
    for (int i = 0; i < 4; i++) Qq[i] /= sqrt(n);
    double w = Qq[0], x = Qq[1], y = Qq[2], z = Qq[3];
    double Q[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                   2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    double gr[3];
    for (int i = 0; i < 3; i++) gr[i] = Q[3 * i] * gz[0] + Q[3 * i + 1] * gz[1] + Q[3 * i + 2] * gz[2];
    for (size_t i = 0; i < nb; i++)
        if (b[i].parent < 0) {
            for (int k = 0; k < 3; k++)
                br[i].pos[k] = Q[3 * k] * b[i].pos[0] + Q[3 * k + 1] * b[i].pos[1] + Q[3 * k + 2] * b[i].pos[2];
            qmul(Qq, b[i].quat, br[i].quat);
        }
    sm_rigid_model *m = build(b, nb, s, ns, gz), *mr = build(br, nb, s, ns, gr);
    sm_rigid_data *d = sm_rigid_data_create(m), *dr = sm_rigid_data_create(mr);
    size_t nq = sm_rigid_nq(m), nv = sm_rigid_nv(m);
    double *q = malloc(nq * sizeof *q), *v = malloc(nv * sizeof *v);
    double *M = malloc(nv * nv * sizeof *M), *Mr = malloc(nv * nv * sizeof *Mr);
    double *c = malloc(nv * sizeof *c), *cr = malloc(nv * sizeof *cr);
    for (int k = 0; k < 50; k++) {
        random_state(m, q, v);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        assert_status(sm_rigid_forward(mr, dr, q, v), SM_OK);
        sm_rigid_mass(m, d, M);
        sm_rigid_mass(mr, dr, Mr);
        sm_rigid_bias(m, d, c);
        sm_rigid_bias(mr, dr, cr);
        double sM = 0.0, sc = 0.0;
        for (size_t i = 0; i < nv * nv; i++) sM = fmax(sM, fabs(M[i]));
        for (size_t i = 0; i < nv; i++) sc = fmax(sc, fabs(c[i]));
        for (size_t i = 0; i < nv * nv; i++) assert_close(Mr[i], M[i], 1e-12 * sM);
        for (size_t i = 0; i < nv; i++) assert_close(cr[i], c[i], 1e-12 * sc);
        for (size_t si = 0; si < ns; si++) {
            double p[3], pr[3];
            sm_rigid_site_pos(m, d, si, p);
            sm_rigid_site_pos(mr, dr, si, pr);
            for (int i = 0; i < 3; i++)
                assert_close(pr[i], Q[3 * i] * p[0] + Q[3 * i + 1] * p[1] + Q[3 * i + 2] * p[2], 1e-13);
        }
    }
    free(q);
    free(v);
    free(M);
    free(Mr);
    free(c);
    free(cr);
    sm_rigid_data_free(d);
    sm_rigid_data_free(dr);
    sm_rigid_model_free(m);
    sm_rigid_model_free(mr);
}

static void test_rotated_biped(void **state)
{
    (void)state;
    check_rotated(biped, BIPED_N, 4);
}

static void test_rotated_tree3d(void **state)
{
    (void)state;
    check_rotated(tree3d, TREE_N, 3);
}

/* ---- the planar fast path ---------------------------------------------- */

/* The biped with a slide across the plane on the torso, a fixed body tilted
 * out of the plane on it and a hinge on that whose axis, in its own frame, is
 * the plane's normal seen from the tilt; the whole turned by Q.  The fast path
 * must take it and give the 3-D sweeps' results to 1e-12. */
static void test_planar_equals_3d(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N + 3];
    sm_rigid_site_def s[6];
    biped(b, s);
    const double c35 = cos(0.35), s35 = sin(0.35);
    b[7] = (sm_rigid_body_def){"sled", 0, SM_RIGID_SLIDE, {0.1, 0.02, 0.3}, {c35, 0, s35, 0}, {1, 0, 0.5}, 0.7,
                               {0.03, 0.01, 0.02}, {0}};
    set_inertia(b[7].inertia, 0.01, 0.012, 0.009, 0.001, 0.0, -0.002);
    const double tq[4] = {0.8, 0.4, -0.3, 0.33}; /* a tilt out of the plane */
    b[8] = (sm_rigid_body_def){"tilted", 7, SM_RIGID_FIXED, {0.05, 0.0, 0.1}, {tq[0], tq[1], tq[2], tq[3]},
                               {0, 0, 0}, 0.5, {0.02, -0.03, 0.01}, {0}};
    set_inertia(b[8].inertia, 0.004, 0.005, 0.006, 0.0005, -0.0004, 0.0003);
    /* y in the tilted frame: Rᵀ y, R = rotation of tq */
    double n2 = tq[0] * tq[0] + tq[1] * tq[1] + tq[2] * tq[2] + tq[3] * tq[3];
    double w = tq[0] / sqrt(n2), x = tq[1] / sqrt(n2), y = tq[2] / sqrt(n2), z = tq[3] / sqrt(n2);
    double ax[3] = {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)}; /* row 2 of R */
    b[9] = (sm_rigid_body_def){"flap", 8, SM_RIGID_HINGE, {0.1, 0.05, -0.02}, {1, 0, 0, 0},
                               {ax[0], ax[1], ax[2]}, 0.3, {0.05, 0.01, 0.0}, {0}};
    set_inertia(b[9].inertia, 0.002, 0.003, 0.0025, 0.0002, 0.0001, -0.0003);
    s[4] = (sm_rigid_site_def){"sled_tip", 7, {0.1, 0.05, 0.0}};
    s[5] = (sm_rigid_site_def){"flap_tip", 9, {0.12, -0.04, 0.03}};
    /* turn the roots by Q */
    const double Qq[4] = {0.6 / 0.8544, -0.3 / 0.8544, 0.5 / 0.8544, 0.2 / 0.8544};
    double Q[9];
    {
        double qw = Qq[0], qx = Qq[1], qy = Qq[2], qz = Qq[3], l = sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
        qw /= l, qx /= l, qy /= l, qz /= l;
        double R[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy),
                       2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx),
                       2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)};
        memcpy(Q, R, sizeof Q);
        double p[3], t[4];
        for (int k = 0; k < 3; k++) p[k] = Q[3 * k] * b[0].pos[0] + Q[3 * k + 1] * b[0].pos[1] + Q[3 * k + 2] * b[0].pos[2];
        memcpy(b[0].pos, p, sizeof p);
        const double a[4] = {qw, qx, qy, qz}, *q0 = b[0].quat;
        t[0] = a[0] * q0[0] - a[1] * q0[1] - a[2] * q0[2] - a[3] * q0[3];
        t[1] = a[0] * q0[1] + a[1] * q0[0] + a[2] * q0[3] - a[3] * q0[2];
        t[2] = a[0] * q0[2] - a[1] * q0[3] + a[2] * q0[0] + a[3] * q0[1];
        t[3] = a[0] * q0[3] + a[1] * q0[2] - a[2] * q0[1] + a[3] * q0[0];
        memcpy(b[0].quat, t, sizeof t);
    }
    const double g[3] = {0.5, -2.0, -9.5}; /* with a component along the normal */
    const size_t nb = BIPED_N + 3, ns = 6;
    sm_rigid_model *m = build(b, nb, s, ns, g);
    assert_true(sm_rigid_is_planar(m));
    size_t nv = sm_rigid_nv(m);
    assert_int_equal(nv, 9);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double q[9], v[9], M[81], M3[81], c[9], c3[9], Jp[27], Jr[27], Jp3[27], Jr3[27];
    for (int k = 0; k < 100; k++) {
        random_state(m, q, v);
        assert_true(sm_rigid_use_planar(m, true));
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        sm_rigid_mass(m, d, M);
        sm_rigid_bias(m, d, c);
        double pos[6][3], acc[6][3], st[10][12];
        for (size_t i = 0; i < nb; i++) sm_rigid_body_state(m, d, i, st[i], NULL, st[i] + 9, NULL);
        for (size_t i = 0; i < ns; i++) {
            sm_rigid_site_pos(m, d, i, pos[i]);
            sm_rigid_site_jdotv(m, d, i, acc[i]);
        }
        assert_false(sm_rigid_use_planar(m, false));
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        sm_rigid_mass(m, d, M3);
        sm_rigid_bias(m, d, c3);
        double sM = 0, sc = 0;
        for (size_t i = 0; i < nv * nv; i++) sM = fmax(sM, fabs(M3[i]));
        for (size_t i = 0; i < nv; i++) sc = fmax(sc, fabs(c3[i]));
        for (size_t i = 0; i < nv * nv; i++) assert_close(M[i], M3[i], 1e-12 * sM);
        for (size_t i = 0; i < nv; i++) assert_close(c[i], c3[i], 1e-12 * sc);
        for (size_t i = 0; i < nb; i++) {
            double R[9], vc[3], om[3], om3[3];
            sm_rigid_body_state(m, d, i, R, NULL, vc, om3);
            for (int j = 0; j < 9; j++) assert_close(st[i][j], R[j], 1e-13);
            for (int j = 0; j < 3; j++) assert_close(st[i][9 + j], vc[j], 1e-12);
            (void)om;
        }
        for (size_t i = 0; i < ns; i++) {
            double p3[3], a3[3];
            sm_rigid_site_pos(m, d, i, p3);
            sm_rigid_site_jdotv(m, d, i, a3);
            sm_rigid_site_jac(m, d, i, Jp3, Jr3);
            sm_rigid_use_planar(m, true);
            sm_rigid_forward(m, d, q, v);
            sm_rigid_site_jac(m, d, i, Jp, Jr);
            sm_rigid_use_planar(m, false);
            sm_rigid_forward(m, d, q, v);
            for (int j = 0; j < 3; j++) {
                assert_close(pos[i][j], p3[j], 1e-13);
                assert_close(acc[i][j], a3[j], 1e-12 * fmax(1.0, fabs(a3[j])));
            }
            for (size_t j = 0; j < 3 * nv; j++) {
                assert_close(Jp[j], Jp3[j], 1e-13);
                assert_close(Jr[j], Jr3[j], 1e-13);
            }
        }
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

/* Trees that leave the plane take the 3-D sweeps. */
static void test_planar_detection(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N > TREE_N ? BIPED_N : TREE_N];
    sm_rigid_site_def s[4];
    tree3d(b, s);
    sm_rigid_model *m = build(b, TREE_N, s, 3, gz);
    assert_false(sm_rigid_is_planar(m));
    assert_false(sm_rigid_use_planar(m, true));
    sm_rigid_model_free(m);
    biped(b, s);
    b[5].axis[0] = 1e-6; /* one knee a little out of parallel */
    m = build(b, BIPED_N, s, 4, gz);
    assert_false(sm_rigid_is_planar(m));
    sm_rigid_model_free(m);
    biped(b, s);
    b[5].joint = SM_RIGID_SLIDE; /* a slide along the normal */
    m = build(b, BIPED_N, s, 4, gz);
    assert_false(sm_rigid_is_planar(m));
    sm_rigid_model_free(m);
    biped(b, s);
    m = build(b, BIPED_N, s, 4, gz);
    assert_true(sm_rigid_is_planar(m));
    sm_rigid_model_free(m);
}

/* ---- validation -------------------------------------------------------- */

static void expect_refused(const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns,
                           const char *words)
{
    sm_rigid_model *m = (sm_rigid_model *)1;
    char msg[200];
    assert_status(sm_rigid_model_create(b, nb, s, ns, gz, &m, msg, sizeof msg), SM_BAD_PARAM);
    assert_null(m);
    if (!strstr(msg, words)) fail_msg("message '%s' lacks '%s'", msg, words);
    assert_null(strchr(msg, '\n'));
}

static void test_bad_trees_refused(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N], bad[BIPED_N];
    sm_rigid_site_def s[4];
    biped(b, s);
    memcpy(bad, b, sizeof b);
    bad[2].parent = 5;
    expect_refused(bad, BIPED_N, s, 4, "body 'shank_r': parent 5");
    memcpy(bad, b, sizeof b);
    bad[4].parent = -2;
    expect_refused(bad, BIPED_N, s, 4, "body 'thigh_l'");
    memcpy(bad, b, sizeof b);
    bad[3].mass = -1.0;
    expect_refused(bad, BIPED_N, s, 4, "body 'foot_r': mass -1 is negative");
    memcpy(bad, b, sizeof b);
    memset(bad[1].axis, 0, sizeof bad[1].axis);
    expect_refused(bad, BIPED_N, s, 4, "body 'thigh_r': joint axis is zero");
    memcpy(bad, b, sizeof b);
    set_inertia(bad[6].inertia, 0.1, 0.1, 0.1, 0.2, 0.0, 0.0); /* eigenvalue 0.1 − 0.2 < 0 */
    expect_refused(bad, BIPED_N, s, 4, "body 'foot_l': inertia is not symmetric positive semi-definite");
    memcpy(bad, b, sizeof b);
    bad[0].inertia[1] = 0.5; /* not symmetric */
    expect_refused(bad, BIPED_N, s, 4, "body 'torso': inertia");
    memcpy(bad, b, sizeof b);
    bad[5].pos[0] = NAN;
    expect_refused(bad, BIPED_N, s, 4, "body 'shank_l'");
    sm_rigid_site_def bs = {"nose", 9, {0, 0, 0}};
    expect_refused(b, BIPED_N, &bs, 1, "site 'nose': body 9 does not exist");

    /* a planar inertia (only the out-of-plane moment) is legitimate */
    memcpy(bad, b, sizeof b);
    set_inertia(bad[2].inertia, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0);
    sm_rigid_model *m = NULL;
    assert_status(sm_rigid_model_create(bad, BIPED_N, s, 4, gz, &m, NULL, 0), SM_OK);
    assert_int_equal(sm_rigid_site_index(m, "toe_l"), 2);
    assert_int_equal(sm_rigid_body_index(m, "foot_l"), 6);
    assert_int_equal(sm_rigid_site_index(m, "nose"), -1);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double q[BIPED_N] = {0}, v[BIPED_N] = {0};
    v[3] = NAN;
    assert_status(sm_rigid_forward(m, d, q, v), SM_BAD_STATE);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_pendulum),
        cmocka_unit_test(test_double_pendulum),
        cmocka_unit_test(test_free_body_newton_euler),
        cmocka_unit_test(test_mass_spd_biped),
        cmocka_unit_test(test_mass_spd_tree3d),
        cmocka_unit_test(test_jacobians_biped),
        cmocka_unit_test(test_jacobians_tree3d),
        cmocka_unit_test(test_energy_biped),
        cmocka_unit_test(test_energy_3d_chain),
        cmocka_unit_test(test_rotated_biped),
        cmocka_unit_test(test_rotated_tree3d),
        cmocka_unit_test(test_planar_equals_3d),
        cmocka_unit_test(test_planar_detection),
        cmocka_unit_test(test_bad_trees_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
