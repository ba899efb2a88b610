/* The controller core (include/stridemap/control.h): Bézier and power-series
 * polynomials against their closed forms (Bernstein's sum written out) and
 * finite differences, natural splines against one solved by hand, Fourier
 * series against their sums written out, the Bézier endpoint properties, the outputs' ẏ and ÿ
 * against finite differences along a known motion, and input-output
 * linearisation against the closed-loop law it must impose. */
#include "test_util.h"

/* Bernstein's sum written out: Σ a_k C(M,k) s^k (1−s)^(M−k). */
static double bernstein_sum(const double *a, size_t M, double s)
{
    double h = 0.0, binom = 1.0;
    for (size_t k = 0; k <= M; k++) {
        h += a[k] * binom * pow(s, (double)k) * pow(1.0 - s, (double)(M - k));
        binom = binom * (double)(M - k) / (double)(k + 1);
    }
    return h;
}

static void test_bezier_endpoints(void **state)
{
    (void)state;
    const double a[6] = {0.3, -1.2, 0.7, 2.5, -0.4, 1.1};
    const size_t M = 5;
    double h[3];
    sm_bezier(a, M, 0.0, h);
    assert_close(h[0], a[0], 1e-15);
    assert_close(h[1], M * (a[1] - a[0]), 1e-13);
    assert_close(h[2], M * (M - 1.0) * (a[2] - 2 * a[1] + a[0]), 1e-12);
    sm_bezier(a, M, 1.0, h);
    assert_close(h[0], a[M], 1e-15);
    assert_close(h[1], M * (a[M] - a[M - 1]), 1e-13);
    assert_close(h[2], M * (M - 1.0) * (a[M] - 2 * a[M - 1] + a[M - 2]), 1e-12);
}

static void test_bezier_against_bernstein_and_differences(void **state)
{
    (void)state;
    const double a[6] = {0.3, -1.2, 0.7, 2.5, -0.4, 1.1};
    const double d = 1e-5;
    for (double s = 0.05; s < 1.0; s += 0.1) {
        double h[3];
        sm_bezier(a, 5, s, h);
        assert_close(h[0], bernstein_sum(a, 5, s), 1e-14);
        const double fp = bernstein_sum(a, 5, s + d), fm = bernstein_sum(a, 5, s - d), f0 = bernstein_sum(a, 5, s);
        assert_close(h[1], (fp - fm) / (2 * d), 1e-8);
        assert_close(h[2], (fp - 2 * f0 + fm) / (d * d), 1e-4);
    }
    /* degree 1 is the straight line, with no curvature */
    const double line[2] = {2.0, 5.0};
    double h[3];
    sm_bezier(line, 1, 0.25, h);
    assert_close(h[0], 2.75, 1e-15);
    assert_close(h[1], 3.0, 1e-15);
    assert_close(h[2], 0.0, 0.0);
}

static void test_power_series(void **state)
{
    (void)state;
    /* h = 1 - 2x + 3x^2 + 0.5x^3: h' = -2 + 6x + 1.5x^2, h'' = 6 + 3x */
    const double a[4] = {1, -2, 3, 0.5};
    for (double x = -1.5; x <= 1.5; x += 0.25) {
        double h[3];
        sm_poly(a, 3, x, h);
        assert_close(h[0], 1 - 2 * x + 3 * x * x + 0.5 * x * x * x, 1e-14);
        assert_close(h[1], -2 + 6 * x + 1.5 * x * x, 1e-14);
        assert_close(h[2], 6 + 3 * x, 1e-14);
    }
}

/* The natural cubic spline through (0, 0), (1/2, 1), (1, 0) by hand: M_1
 * from 2 (h + h) M_1 = 6 (−1/h − 1/h), h = 1/2, is −12, so on [0, 1/2]
 * S(s) = 3s − 4s³ (S' = 3 − 12 s², S'' = −24 s), mirrored on [1/2, 1]. */
static void test_spline_closed_form(void **state)
{
    (void)state;
    const double knots[3] = {0.0, 0.5, 1.0}, values[3] = {0.0, 1.0, 0.0};
    for (double s = 0.0; s <= 1.0 + 1e-12; s += 0.0625) {
        const double u = s <= 0.5 ? s : 1.0 - s, sign = s <= 0.5 ? 1.0 : -1.0;
        double h[3];
        sm_spline(knots, values, 3, s, h);
        assert_close(h[0], 3 * u - 4 * u * u * u, 1e-14);
        assert_close(h[1], sign * (3 - 12 * u * u), 1e-13);
        assert_close(h[2], -24 * u, 1e-12);
    }
    /* two points: the straight line */
    const double k2[2] = {-1.0, 3.0}, v2[2] = {2.0, 10.0};
    double h[3];
    sm_spline(k2, v2, 2, 0.5, h);
    assert_close(h[0], 5.0, 1e-15);
    assert_close(h[1], 2.0, 1e-15);
    assert_close(h[2], 0.0, 0.0);
}

/* Through uneven knots: the values at the knots, zero curvature at the
 * ends, h' and h'' continuous across the interior knots, and both equal
 * to central differences of h inside each piece. */
static void test_spline_properties(void **state)
{
    (void)state;
    const double knots[6] = {0.0, 0.1, 0.35, 0.5, 0.8, 1.0}, values[6] = {0.3, -0.2, 0.9, 0.4, 1.1, -0.5};
    double h[3], l[3], r[3];
    for (size_t k = 0; k < 6; k++) {
        sm_spline(knots, values, 6, knots[k], h);
        assert_close(h[0], values[k], 1e-14);
    }
    sm_spline(knots, values, 6, 0.0, h);
    assert_close(h[2], 0.0, 1e-12);
    sm_spline(knots, values, 6, 1.0, h);
    assert_close(h[2], 0.0, 1e-12);
    for (size_t k = 1; k < 5; k++) {
        const double d = 1e-9;
        sm_spline(knots, values, 6, knots[k] - d, l);
        sm_spline(knots, values, 6, knots[k] + d, r);
        assert_close(l[1], r[1], 1e-6);
        assert_close(l[2], r[2], 1e-6);
    }
    const double d = 1e-5;
    for (double s = 0.03; s < 1.0; s += 0.1) {
        double p[3], m[3];
        sm_spline(knots, values, 6, s, h);
        sm_spline(knots, values, 6, s + d, p);
        sm_spline(knots, values, 6, s - d, m);
        assert_close(h[1], (p[0] - m[0]) / (2 * d), 1e-7);
        assert_close(h[2], (p[1] - m[1]) / (2 * d), 1e-6);
    }
}

/* A Fourier series against its sum written out term by term, its
 * derivatives in closed form and by central differences. */
static void test_fourier(void **state)
{
    (void)state;
    const double a[7] = {0.4, 0.3, -0.2, 0.15, 0.05, -0.1, 0.07}; /* c0, c1, s1, c2, s2, c3, s3 */
    const double P = 2.0, w = 2 * M_PI / P, d = 1e-5;
    for (double s = -0.2; s <= 1.2; s += 0.1) {
        double h0 = a[0], h1 = 0, h2 = 0;
        for (int k = 1; k <= 3; k++) {
            const double c = a[2 * k - 1], sn = a[2 * k], wk = w * k;
            h0 += c * cos(wk * s) + sn * sin(wk * s);
            h1 += -c * wk * sin(wk * s) + sn * wk * cos(wk * s);
            h2 += -wk * wk * (c * cos(wk * s) + sn * sin(wk * s));
        }
        double h[3], p[3], m[3];
        sm_fourier(a, 3, P, s, h);
        assert_close(h[0], h0, 1e-14);
        assert_close(h[1], h1, 1e-13);
        assert_close(h[2], h2, 1e-12);
        sm_fourier(a, 3, P, s + d, p);
        sm_fourier(a, 3, P, s - d, m);
        assert_close(h[1], (p[0] - m[0]) / (2 * d), 1e-8);
        assert_close(h[2], (p[1] - m[1]) / (2 * d), 1e-7);
    }
    /* K = 0: the constant */
    double h[3];
    sm_fourier(a, 0, P, 0.3, h);
    assert_close(h[0], 0.4, 0.0);
    assert_close(h[1], 0.0, 0.0);
}

/* Two outputs over three coordinates on θ = q0 − 0.5 q2, Bézier or power series. */
static sm_vc example_vc(sm_basis basis)
{
    sm_vc vc = {.nq = 3, .ny = 2, .theta_plus = -0.4, .theta_minus = 0.5, .basis = basis};
    vc.c[0] = 1.0;
    vc.c[2] = -0.5;
    vc.H[0][1] = 1.0;
    vc.H[1][0] = 0.3;
    vc.H[1][2] = 1.0;
    vc.degree[0] = 4;
    vc.degree[1] = 3;
    const double a0[5] = {0.2, -0.1, 0.5, 0.4, -0.3}, a1[4] = {-0.6, 0.3, 0.9, 0.1};
    memcpy(vc.a[0], a0, sizeof a0);
    memcpy(vc.a[1], a1, sizeof a1);
    const double k0[5] = {0.0, 0.2, 0.5, 0.7, 1.0}, k1[4] = {-0.1, 0.3, 0.6, 1.1};
    memcpy(vc.knots[0], k0, sizeof k0);
    memcpy(vc.knots[1], k1, sizeof k1);
    vc.period[0] = 1.0;
    vc.period[1] = 2.5;
    if (basis == SM_BASIS_FOURIER) vc.degree[1] = 2; /* an even count: c0, c1, s1 */
    return vc;
}

/* Along q(t) = q0 + v0 t + acc t²/2 the outputs' ẏ and ÿ = J q̈ + b are the
 * time derivatives of y, by central differences. */
static void check_outputs_along_motion(sm_basis basis)
{
    const sm_vc vc = example_vc(basis);
    const double q0[3] = {0.1, -0.2, 0.3}, v0[3] = {0.7, 0.4, -0.5}, acc[3] = {-1.1, 0.6, 0.9};
    const double dt = 1e-4;
    sm_vc_value w[3];
    for (int k = -1; k <= 1; k++) {
        double q[3], v[3];
        const double t = k * dt;
        for (int i = 0; i < 3; i++) {
            q[i] = q0[i] + v0[i] * t + 0.5 * acc[i] * t * t;
            v[i] = v0[i] + acc[i] * t;
        }
        sm_vc_eval(&vc, q, v, &w[k + 1]);
    }
    assert_close(w[1].theta, q0[0] - 0.5 * q0[2], 1e-15);
    assert_close(w[1].s, (w[1].theta + 0.4) / 0.9, 1e-15);
    for (size_t i = 0; i < 2; i++) {
        /* O(dt²) truncation, relative to the size of ÿ (a Fourier
         * reference's harmonics curve hard) */
        double ydd = w[1].b[i];
        for (int k = 0; k < 3; k++) ydd += w[1].J[i][k] * acc[k];
        const double scale = fmax(1.0, fabs(ydd));
        assert_close(w[1].dy[i], (w[2].y[i] - w[0].y[i]) / (2 * dt), 1e-6 * scale);
        assert_close(ydd, (w[2].dy[i] - w[0].dy[i]) / (2 * dt), 1e-6 * scale);
        assert_close(ydd, (w[2].y[i] - 2 * w[1].y[i] + w[0].y[i]) / (dt * dt), 1e-3 * scale);
    }
}

static void test_outputs_bezier(void **state)
{
    (void)state;
    check_outputs_along_motion(SM_BASIS_BEZIER);
}

static void test_outputs_poly(void **state)
{
    (void)state;
    check_outputs_along_motion(SM_BASIS_POLY);
}

static void test_outputs_spline(void **state)
{
    (void)state;
    check_outputs_along_motion(SM_BASIS_SPLINE);
}

static void test_outputs_fourier(void **state)
{
    (void)state;
    check_outputs_along_motion(SM_BASIS_FOURIER);
}

/* With q̈ = a + K τ, the torques must give ÿ = −(kd/ε) ẏ − (kp/ε²) y. */
static void test_io_linearisation_imposes_the_law(void **state)
{
    (void)state;
    const sm_vc vc = example_vc(SM_BASIS_BEZIER);
    const double q[3] = {0.1, -0.2, 0.3}, v[3] = {0.7, 0.4, -0.5};
    const double a[3] = {0.3, -2.0, 1.4}, K[3 * 2] = {0.5, -0.2, 1.3, 0.4, -0.7, 2.1};
    sm_vc_value val;
    sm_vc_eval(&vc, q, v, &val);
    const double kp = 1.0, kd = 2.0, eps = 0.1;
    double tau[2];
    assert_status(sm_ctrl_io_linearise(&vc, &val, a, K, 2, kp, kd, eps, tau), SM_OK);
    for (size_t i = 0; i < 2; i++) {
        double ydd = val.b[i];
        for (size_t k = 0; k < 3; k++) ydd += val.J[i][k] * (a[k] + K[k * 2] * tau[0] + K[k * 2 + 1] * tau[1]);
        assert_close(ydd, -(kd / eps) * val.dy[i] - (kp / (eps * eps)) * val.y[i], 1e-11);
    }
}

static void test_singular_decoupling(void **state)
{
    (void)state;
    const sm_vc vc = example_vc(SM_BASIS_POLY);
    const double q[3] = {0.1, -0.2, 0.3}, v[3] = {0.7, 0.4, -0.5}, a[3] = {0};
    /* both torques move the coordinates the same way: J K has rank one */
    const double K[3 * 2] = {0.5, 0.5, 1.3, 1.3, -0.7, -0.7};
    sm_vc_value val;
    sm_vc_eval(&vc, q, v, &val);
    double tau[2];
    assert_status(sm_ctrl_io_linearise(&vc, &val, a, K, 2, 1, 2, 0.1, tau), SM_SINGULAR_DECOUPLING);
    /* a torque that moves nothing the outputs read */
    const double K0[3 * 2] = {0, 0, 0, 0, 0, 0};
    assert_status(sm_ctrl_io_linearise(&vc, &val, a, K0, 2, 1, 2, 0.1, tau), SM_SINGULAR_DECOUPLING);
}

static void test_pd_and_saturation(void **state)
{
    (void)state;
    sm_vc vc = example_vc(SM_BASIS_POLY);
    sm_vc_value val = {.y = {0.1, -0.2}, .dy = {-0.5, 0.25}};
    double tau[2];
    /* outputs that are the actuated joints (H B = I): the textbook law */
    vc.H[0][0] = 0, vc.H[0][1] = 1, vc.H[0][2] = 0;
    vc.H[1][0] = 0, vc.H[1][1] = 0, vc.H[1][2] = 1;
    const double Bid[3 * 2] = {0, 0, 1, 0, 0, 1};
    assert_status(sm_ctrl_pd(&vc, &val, Bid, 2, 100.0, 10.0, tau), SM_OK);
    assert_close(tau[0], -100 * 0.1 + 10 * 0.5, 1e-14);
    assert_close(tau[1], 100 * 0.2 - 10 * 0.25, 1e-14);
    /* a torque between two joints (the three-link's B): H B tau is the law */
    const double B[3 * 2] = {-1, 0, 0, -1, 1, 1};
    double t2[2];
    assert_status(sm_ctrl_pd(&vc, &val, B, 2, 100.0, 10.0, t2), SM_OK);
    assert_close(-t2[1], -100 * 0.1 + 10 * 0.5, 1e-13);         /* H row 0 reads joint 1: (H B) = [0 -1] */
    assert_close(t2[0] + t2[1], 100 * 0.2 - 10 * 0.25, 1e-13);   /* H row 1 reads joint 2: (H B) = [1 1] */
    /* no actuator moves output 0 */
    const double Bbad[3 * 2] = {1, 1, 0, 0, 1, 1};
    assert_status(sm_ctrl_pd(&vc, &val, Bbad, 2, 100.0, 10.0, t2), SM_SINGULAR_DECOUPLING);
    assert_false(sm_ctrl_saturate(tau, 2, 20.0));
    assert_true(sm_ctrl_saturate(tau, 2, 6.0));
    assert_close(tau[0], -5.0, 0.0);
    assert_close(tau[1], 6.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bezier_endpoints),
        cmocka_unit_test(test_bezier_against_bernstein_and_differences),
        cmocka_unit_test(test_power_series),
        cmocka_unit_test(test_outputs_bezier),
        cmocka_unit_test(test_outputs_poly),
        cmocka_unit_test(test_spline_closed_form),
        cmocka_unit_test(test_spline_properties),
        cmocka_unit_test(test_fourier),
        cmocka_unit_test(test_outputs_spline),
        cmocka_unit_test(test_outputs_fourier),
        cmocka_unit_test(test_io_linearisation_imposes_the_law),
        cmocka_unit_test(test_singular_decoupling),
        cmocka_unit_test(test_pd_and_saturation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
