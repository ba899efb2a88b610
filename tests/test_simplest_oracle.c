/* An independent oracle for the simplest walking model, to cross-check the
 * library (CVODE + root finding + finite-difference Newton) with completely
 * separate code: a fixed-step classical RK4 integrator, its own heel-strike
 * location by bisection on the RK4 step, its own heel-strike map, its own
 * Newton iteration with a 2x2 central-difference Jacobian, and closed-form
 * 2x2 eigenvalues.  Nothing here calls the library except to compare.
 *
 * The model (Garcia, Chatterjee, Ruina & Coleman 1998, J. Biomech. Eng.
 * 120:281-288), in units where g = l = 1, on a slope gamma:
 *   theta'' = sin(theta - gamma)
 *   phi''   = sin(theta - gamma) + sin(phi) (theta'^2 - cos(theta - gamma))
 * Heel-strike: the swing foot comes DOWN onto the slope in front,
 *   phi - 2 theta = 0, crossed from below (rising), with theta < 0.
 * (The foot's height is 2 sin((phi - 2 theta)/2) sin(phi/2); with phi < 0 in
 * front it descends to zero exactly when phi - 2 theta rises to zero.  The
 * mid-stance scuff crosses the same surface falling and is not an impact.)
 * Impact (angular momentum about the new contact conserved, then the legs
 * swap):  theta+ = -theta-,  theta_dot+ = cos(2 theta-) theta_dot-,
 *         phi+ = -2 theta-,  phi_dot+ = cos(2 theta-)(1 - cos(2 theta-)) theta_dot-.
 * Section just after heel-strike: phi = 2 theta, phi_dot = (1 - cos 2theta) theta_dot. */
#include <stdbool.h>

#include "test_util.h"

/* ---- the oracle ------------------------------------------------------- */

static void oracle_rhs(const double x[4], double gamma, double d[4])
{
    const double s = sin(x[0] - gamma), c = cos(x[0] - gamma);
    d[0] = x[1];
    d[1] = s;
    d[2] = x[3];
    d[3] = s + sin(x[2]) * (x[1] * x[1] - c);
}

static void rk4(const double x[4], double h, double gamma, double out[4])
{
    double k1[4], k2[4], k3[4], k4[4], y[4];
    oracle_rhs(x, gamma, k1);
    for (int i = 0; i < 4; i++) y[i] = x[i] + 0.5 * h * k1[i];
    oracle_rhs(y, gamma, k2);
    for (int i = 0; i < 4; i++) y[i] = x[i] + 0.5 * h * k2[i];
    oracle_rhs(y, gamma, k3);
    for (int i = 0; i < 4; i++) y[i] = x[i] + h * k3[i];
    oracle_rhs(y, gamma, k4);
    for (int i = 0; i < 4; i++) out[i] = x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

static double foot_surface(const double x[4]) { return x[2] - 2.0 * x[0]; }

typedef struct {
    double gamma;
    double h; /* RK4 step */
} oracle;

/* One step from the section point z = (theta, theta_dot) to the next;
 * false if the walker falls or takes too long. */
static bool oracle_stride(const oracle *o, const double z[2], double z_out[2], double *period)
{
    double x[4] = {z[0], z[1], 2.0 * z[0], (1.0 - cos(2.0 * z[0])) * z[1]};
    double y[4];
    const long max_steps = (long)(20.0 / o->h);
    for (long k = 0; k < max_steps; k++) {
        rk4(x, o->h, o->gamma, y);
        if (x[1] < 0 && y[1] >= 0) return false;                      /* stopped, rolls back */
        if (fabs(y[0] - o->gamma) >= M_PI_2) return false;           /* hip on the ground */
        if (foot_surface(x) < 0 && foot_surface(y) >= 0 && y[0] < 0) {
            /* Bisection for the crossing inside this RK4 step. */
            double lo = 0.0, hi = o->h;
            for (int it = 0; it < 200; it++) {
                double mid = 0.5 * (lo + hi);
                if (mid <= lo || mid >= hi) break;
                rk4(x, mid, o->gamma, y);
                if (foot_surface(y) < 0)
                    lo = mid;
                else
                    hi = mid;
            }
            rk4(x, hi, o->gamma, y);
            if (!(y[0] < 0)) return false;
            const double c2 = cos(2.0 * y[0]);
            z_out[0] = -y[0];
            z_out[1] = c2 * y[1];
            *period = (double)k * o->h + hi;
            return true;
        }
        memcpy(x, y, sizeof x);
    }
    return false;
}

typedef struct {
    bool ok;
    double z[2], period;
    double J[4]; /* dP/dz, row-major */
    double eig_re[2], eig_im[2];
    int iterations;
} oracle_gait;

static bool central_difference(const oracle *o, const double z[2], double d, double J[4])
{
    for (int j = 0; j < 2; j++) {
        double zp[2] = {z[0], z[1]}, zm[2] = {z[0], z[1]}, fp[2], fm[2], t;
        zp[j] += d;
        zm[j] -= d;
        if (!oracle_stride(o, zp, fp, &t) || !oracle_stride(o, zm, fm, &t)) return false;
        for (int i = 0; i < 2; i++) J[2 * i + j] = (fp[i] - fm[i]) / (2.0 * d);
    }
    return true;
}

/* RK4 + bisection is smooth in z (only rounding noise), but the map curves
 * hard (D(d) - J is about 3.4e4 d^2 at the gait): a plain central
 * difference at 1e-5 is 7.5e-7 off in the eigenvalues.  (4 D(d/2) - D(d)) / 3
 * cancels the d^2 term; its d^4 term is large too, so d = 1e-4: extrapolated
 * from 4e-4, 2e-4 and 1e-4 the entries move by 9e-7 then 6e-8 (d^4), so
 * this one is within about 4e-9. */
static bool oracle_jacobian_at(const oracle *o, const double z[2], double d, double J[4])
{
    double coarse[4];
    if (!central_difference(o, z, d, coarse) || !central_difference(o, z, d / 2, J)) return false;
    for (int i = 0; i < 4; i++) J[i] = (4 * J[i] - coarse[i]) / 3;
    return true;
}

static bool oracle_jacobian(const oracle *o, const double z[2], double J[4])
{
    return oracle_jacobian_at(o, z, 1e-4, J);
}

/* Eigenvalues of a 2x2 matrix from its trace and determinant, larger modulus first. */
static void eig2(const double J[4], double re[2], double im[2])
{
    const double tr = J[0] + J[3], det = J[0] * J[3] - J[1] * J[2];
    const double disc = 0.25 * tr * tr - det;
    if (disc < 0) {
        re[0] = re[1] = 0.5 * tr;
        im[0] = sqrt(-disc);
        im[1] = -im[0];
    } else {
        const double a = 0.5 * tr + sqrt(disc), b = 0.5 * tr - sqrt(disc);
        re[0] = fabs(a) >= fabs(b) ? a : b;
        re[1] = fabs(a) >= fabs(b) ? b : a;
        im[0] = im[1] = 0.0;
    }
}

static oracle_gait oracle_newton(const oracle *o, double theta, double theta_dot)
{
    oracle_gait g = {.ok = false, .z = {theta, theta_dot}};
    for (g.iterations = 0; g.iterations < 50; g.iterations++) {
        double Pz[2], J[4], t;
        if (!oracle_stride(o, g.z, Pz, &t) || !oracle_jacobian(o, g.z, J)) return g;
        const double r0 = Pz[0] - g.z[0], r1 = Pz[1] - g.z[1];
        if (fabs(r0) < 1e-14 && fabs(r1) < 1e-14) break;
        /* (J - I) dz = -r by Cramer's rule. */
        const double a = J[0] - 1.0, b = J[1], c = J[2], d = J[3] - 1.0, det = a * d - b * c;
        const double dz0 = (-r0 * d + b * r1) / det, dz1 = (-a * r1 + c * r0) / det;
        g.z[0] += dz0;
        g.z[1] += dz1;
        if (fabs(dz0) < 1e-15 && fabs(dz1) < 1e-15) break;
    }
    double Pz[2];
    if (!oracle_stride(o, g.z, Pz, &g.period) || !oracle_jacobian(o, g.z, g.J)) return g;
    if (!(fabs(Pz[0] - g.z[0]) < 1e-12 && fabs(Pz[1] - g.z[1]) < 1e-12)) return g;
    eig2(g.J, g.eig_re, g.eig_im);
    g.ok = true;
    return g;
}

/* ---- the oracle's own convergence study --------------------------------
 * The stable gait from a crude guess (0.2, -0.2) with RK4 steps h = 2e-3,
 * 1e-3 and 5e-4.  RK4 is fourth order (error ~ h^4 ~ 1e-11 already at
 * h = 2e-3 for this smooth, slow motion), so the three must agree to far
 * better than the comparisons below; measured: theta* to 2e-15, the period
 * to 2e-14 and the eigenvalues to 4e-11 (the finite-difference noise floor of
 * the Jacobian).  The finest result is the reference. */
static oracle_gait ref_stable; /* h = 5e-4 */

static int setup_reference(void **state)
{
    (void)state;
    const oracle o = {GARCIA_GAMMA, 5e-4};
    ref_stable = oracle_newton(&o, 0.2, -0.2);
    return ref_stable.ok ? 0 : -1;
}

static void test_oracle_step_size_convergence(void **state)
{
    (void)state;
    const double hs[3] = {2e-3, 1e-3, 5e-4};
    oracle_gait g[3];
    for (int k = 0; k < 3; k++) {
        const oracle o = {GARCIA_GAMMA, hs[k]};
        g[k] = oracle_newton(&o, 0.2, -0.2);
        assert_true(g[k].ok);
        print_message("oracle RK4 h=%.0e: theta*=%.14f theta_dot*=%.14f period=%.12f "
                      "eig=%.11f +- %.11fi (|eig|=%.11f) [%d Newton steps]\n",
                      hs[k], g[k].z[0], g[k].z[1], g[k].period, g[k].eig_re[0], fabs(g[k].eig_im[0]),
                      hypot(g[k].eig_re[0], g[k].eig_im[0]), g[k].iterations);
    }
    const double dth1 = fabs(g[1].z[0] - g[0].z[0]), dth2 = fabs(g[2].z[0] - g[1].z[0]);
    const double de1 = fabs(g[1].eig_re[0] - g[0].eig_re[0]) + fabs(fabs(g[1].eig_im[0]) - fabs(g[0].eig_im[0]));
    const double de2 = fabs(g[2].eig_re[0] - g[1].eig_re[0]) + fabs(fabs(g[2].eig_im[0]) - fabs(g[1].eig_im[0]));
    const double dT2 = fabs(g[2].period - g[1].period);
    print_message("oracle changes h->h/2: theta* %.2e then %.2e, eigenvalue %.2e then %.2e, period %.2e\n", dth1,
                  dth2, de1, de2, dT2);
    /* Converged far below the comparisons that follow. */
    assert_true(dth2 < 1e-11);
    assert_true(fabs(g[2].z[1] - g[1].z[1]) < 1e-11);
    assert_true(dT2 < 1e-10);
    assert_true(de2 < 1e-8);
    /* And the same gait whatever the step. */
    assert_close(g[2].z[0], ref_stable.z[0], 0.0);
}

/* The oracle reproduces the published stable gait; its eigenvalues do NOT
 * match the published pair -0.19120868949940 +- 0.55633363687106i beyond
 * ~1e-3 (the oracle, converged to ~4e-9, gives -0.1900998 +- 0.5575988i),
 * so the published pair is only asserted to 3e-3. */
static void test_oracle_vs_published(void **state)
{
    (void)state;
    const oracle_gait *g = &ref_stable;
    assert_close(g->z[0], GARCIA_STABLE_THETA, 1e-9);
    assert_close(g->z[1], GARCIA_STABLE_THETA_DOT, 1e-9);
    assert_true(g->eig_im[0] != 0.0);
    assert_true(hypot(g->eig_re[0], g->eig_im[0]) < 1.0);
    print_message("oracle eig - published: re %.3e, im %.3e\n", g->eig_re[0] - GARCIA_STABLE_EIG_RE,
                  fabs(g->eig_im[0]) - GARCIA_STABLE_EIG_IM);
    assert_close(g->eig_re[0], GARCIA_STABLE_EIG_RE, 3e-3);
    assert_close(fabs(g->eig_im[0]), GARCIA_STABLE_EIG_IM, 3e-3);
}

/* The unstable gait of the same paper, found by the oracle from (0.19, -0.2). */
static void test_oracle_unstable_gait(void **state)
{
    (void)state;
    const oracle o = {GARCIA_GAMMA, 5e-4};
    oracle_gait g = oracle_newton(&o, 0.19, -0.2);
    assert_true(g.ok);
    print_message("oracle unstable gait: theta*=%.14f theta_dot*=%.14f period=%.12f eig=%.10f, %.10f\n", g.z[0],
                  g.z[1], g.period, g.eig_re[0], g.eig_re[1]);
    assert_close(g.z[0], GARCIA_UNSTABLE_THETA, 1e-9);
    assert_close(g.z[1], GARCIA_UNSTABLE_THETA_DOT, 1e-9);
    assert_close(g.eig_im[0], 0.0, 0.0);
    assert_close(g.eig_re[0], 4.0, 0.01);
    assert_close(g.eig_re[1], 0.459, 0.002);
}

/* ---- library against oracle -------------------------------------------- */

static void test_library_gait_matches_oracle(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    const oracle_gait *g = &ref_stable;
    print_message("library: theta*=%.14f theta_dot*=%.14f period=%.12f eig=%.10f +- %.10fi\n", r.x[0], r.x[1],
                  r.metrics.period, r.eig_re[0], fabs(r.eig_im[0]));
    assert_close(r.x[0], g->z[0], 1e-8);
    assert_close(r.x[1], g->z[1], 1e-8);
    assert_close(r.metrics.period, g->period, 1e-7);
    /* The library at its default rtol 1e-10 carries its integration error,
     * about 1e-7 in the eigenvalues (it shrinks with rtol: test_fixedpoint). */
    assert_close(r.eig_re[0], g->eig_re[0], 3e-7);
    assert_close(r.eig_re[1], g->eig_re[1], 3e-7);
    assert_close(fabs(r.eig_im[0]), fabs(g->eig_im[0]), 3e-7);
    assert_close(r.eig_im[1], -r.eig_im[0], 0.0);
    /* The library's Jacobian entry by entry. */
    for (int i = 0; i < 4; i++) assert_close(r.jacobian[i], g->J[i], 3e-6);
    sm_workspace_free(ws);
}

/* One stride away from the gait, where P is not the identity. */
static void test_library_stride_matches_oracle(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const oracle o = {GARCIA_GAMMA, 5e-4};
    const double starts[][2] = {{0.2, -0.2}, {0.2, -0.21}, {0.195, -0.2}};
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    for (size_t i = 0; i < 3; i++) {
        double z_or[2] = {NAN, NAN}, T_or = NAN;
        assert_true(oracle_stride(&o, starts[i], z_or, &T_or));
        double x[4], y[4];
        simplest_on_section(starts[i][0], starts[i][1], x);
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, y, &mt, NULL), SM_OK);
        assert_close(y[0], z_or[0], 1e-8);
        assert_close(y[1], z_or[1], 1e-8);
        assert_close(mt.period, T_or, 1e-7);
    }
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_step_size_convergence),
        cmocka_unit_test(test_oracle_vs_published),
        cmocka_unit_test(test_oracle_unstable_gait),
        cmocka_unit_test(test_library_gait_matches_oracle),
        cmocka_unit_test(test_library_stride_matches_oracle),
    };
    return cmocka_run_group_tests_name("simplest_oracle", tests, setup_reference, NULL);
}
