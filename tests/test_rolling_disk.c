/* A disk rolling without slipping (ROLL contacts) against classical theory.
 *
 * 3-D: a thin uniform disk (mass m, radius a; A = m a²/4 about a diameter,
 * C = m a²/2 about its axis) rolling upright at spin Ω.  A small lean θ obeys
 *     (A + m a²) θ̈ + [(C + m a²) C Ω² / A − m g a] θ = 0
 * (e.g. Routh, Advanced Rigid Dynamics, 1905, §244; Neĭmark & Fufaev,
 * Dynamics of Nonholonomic Systems, 1972, ch. III; the notes in
 * shared/notes/mujoco-2.2.2.md), stable for Ω² > g/(3a): its period at two
 * stable spins is checked to 1e-5, and below the threshold the lean grows
 * as sinh(σ t).  The run starts upright with a lean rate and no yaw rate,
 * the yaw rate the linear motion has at θ = 0 (ψ̇ = C Ω θ / A), so the disk
 * oscillates about straight rolling instead of drifting into a circle.
 *
 * J̇v of a roll carries the turning of the lowest-point direction d (ḋ);
 * at small leans that term is second order (ḋ is then parallel to the
 * spin), so two checks hold it at large leans: J̇v against central
 * differences of J(q) v along the motion, and energy conservation of a
 * disk rolling at a 0.6 rad lean (rolling forces do no work).
 *
 * Planar: a uniform disk rolling down a slope γ accelerates at
 * g sin γ / (1 + I/(m a²)) = (2/3) g sin γ (any mechanics text). */
#include "rigid_contact_util.h"

#define G 9.81
#define MASS 1.3
#define RAD 0.3

static sm_rigid_model *disk3d(void)
{
    double A = MASS * RAD * RAD / 4, C = MASS * RAD * RAD / 2;
    sm_rigid_body_def b = {"disk", -1, SM_RIGID_FREE, {0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0}, MASS, {0, 0, 0},
                           {A, 0, 0, 0, C, 0, 0, 0, A}};
    sm_rigid_site_def s = {"centre", 0, {0, 0, 0}};
    return make_model(&b, 1, &s, 1);
}

/* The z component of the disk's axis: sin of its lean. */
static double lean(sys *S, const double *y)
{
    double R[9];
    assert_status(sm_rigid_forward(S->m, S->d, y, y + 7), SM_OK);
    sm_rigid_body_state(S->m, S->d, 0, R, NULL, NULL, NULL);
    return R[7];
}

/* Runs from upright at spin Omega with lean rate w0 until t_end; records the
 * times the lean crosses zero (located by secant on the RK4 step length). */
static int run(double Omega, double w0, double t_end, double h, double *cross, int maxc, double *lean_end)
{
    sm_rigid_model *m = disk3d();
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES];
    sm_contact roll = {.kind = SM_CONTACT_ROLL, .site = 0, .radius = RAD, .axis = {0, 1, 0}};
    double y[16] = {0, 0, RAD, 1, 0, 0, 0, /* v: */ RAD * Omega, -RAD * w0, 0, w0, Omega, 0, 0};
    sys S = {m, d, &roll, 1, NULL, 0, work, SM_OK};
    double drift;
    assert_status(sm_rigid_project(m, d, &roll, 1, 1e-14, y, y + 7, &drift, work), SM_OK);
    assert_true(drift < 1e-15); /* the start already rolls */
    int nc = 0;
    double t = 0.0, f0 = lean(&S, y);
    while (t < t_end - 0.5 * h) {
        double y0[16];
        memcpy(y0, y, sizeof y0);
        rk4(&S, y, h);
        double f1 = lean(&S, y);
        if (t > 0.5 * h && ((f0 < 0) != (f1 < 0)) && nc < maxc) {
            double a = 0.0, fa = f0, b = h, fb = f1;
            for (int it = 0; it < 30 && fabs(b - a) > 1e-15; it++) {
                double c = b - fb * (b - a) / (fb - fa), yc[16];
                memcpy(yc, y0, sizeof yc);
                rk4(&S, yc, c);
                a = b, fa = fb, b = c, fb = lean(&S, yc);
            }
            cross[nc++] = t + b;
        }
        f0 = f1;
        t += h;
    }
    assert_status(S.st, SM_OK);
    *lean_end = f0;
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
    return nc;
}

static void check_period(double Omega)
{
    double A = MASS * RAD * RAD / 4, C = MASS * RAD * RAD / 2, mr2 = MASS * RAD * RAD;
    double w2 = ((C + mr2) * C * Omega * Omega / A - MASS * G * RAD) / (A + mr2);
    assert_true(w2 > 0);
    double T = 2 * M_PI / sqrt(w2), cross[8], end;
    int n = run(Omega, 1e-4 * sqrt(w2), 2.2 * T, T / 4000, cross, 8, &end);
    assert_true(n >= 4);
    double Tm = cross[3] / 2; /* crossings at T/2, T, 3T/2, 2T */
    printf("Omega %.1f: lean period %.10f s, theory %.10f s, relative %.2e\n", Omega, Tm, T, fabs(Tm / T - 1));
    assert_close(Tm / T, 1.0, 1e-5);
    assert_close(cross[0] / (T / 2), 1.0, 1e-5);
}

static void test_period_two_stable_spins(void **state)
{
    (void)state;
    check_period(8.0);
    check_period(12.0);
}

static void test_lean_grows_below_threshold(void **state)
{
    (void)state;
    double Omega = 2.0, A = MASS * RAD * RAD / 4, C = MASS * RAD * RAD / 2, mr2 = MASS * RAD * RAD;
    assert_true(Omega * Omega < G / (3 * RAD));
    double s2 = (MASS * G * RAD - (C + mr2) * C * Omega * Omega / A) / (A + mr2), sigma = sqrt(s2);
    double w0 = 1e-5, cross[2], end, t_end = 1.0;
    int n = run(Omega, w0, t_end, 1e-4, cross, 2, &end);
    double want = w0 / sigma * sinh(sigma * t_end);
    printf("Omega %.1f: lean %.6e after %.1f s, linear theory %.6e (growth rate %.4f /s)\n", Omega, fabs(end),
           t_end, want, sigma);
    assert_int_equal(n, 0); /* it never comes back upright */
    assert_true(fabs(end) > 10 * w0 / sigma);
    assert_close(fabs(end) / want, 1.0, 1e-3);
}

static void test_roll_jdotv_differences(void **state)
{
    (void)state;
    sm_rigid_model *m = disk3d();
    sm_rigid_data *d = sm_rigid_data_create(m);
    sm_contact roll = {.kind = SM_CONTACT_ROLL, .site = 0, .radius = RAD, .axis = {0.1, 1, -0.2}};
    double worst = 0.0;
    for (int trial = 0; trial < 20; trial++) {
        double q[7] = {urand(-1, 1), urand(-1, 1), urand(0, 1), urand(-1, 1), urand(-1, 1), urand(-1, 1),
                       urand(-1, 1)},
               v[6], J[18], Jp[18], Jm[18], jdv[3], qp[7], qm[7], s = 1e-6;
        for (int i = 0; i < 6; i++) v[i] = urand(-3, 3);
        sm_rigid_integrate_q(m, q, v, s, qp);
        sm_rigid_integrate_q(m, q, v, -s, qm);
        assert_status(sm_rigid_forward(m, d, qp, v), SM_OK);
        sm_contact_jacobian(m, d, &roll, 1, Jp, NULL, NULL);
        assert_status(sm_rigid_forward(m, d, qm, v), SM_OK);
        sm_contact_jacobian(m, d, &roll, 1, Jm, NULL, NULL);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        sm_contact_jacobian(m, d, &roll, 1, J, jdv, NULL);
        for (int r = 0; r < 3; r++) {
            double a = 0.0, b = 0.0;
            for (int k = 0; k < 6; k++) a += Jp[6 * r + k] * v[k], b += Jm[6 * r + k] * v[k];
            double fd = (a - b) / (2 * s);
            assert_close(jdv[r], fd, 1e-7 * (1 + fabs(fd)));
            worst = fmax(worst, fabs(jdv[r] - fd));
        }
    }
    printf("roll J̇v vs central differences: largest difference %.2e\n", worst);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_leaning_disk_energy(void **state)
{
    (void)state;
    sm_rigid_model *m = disk3d();
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES];
    sm_contact roll = {.kind = SM_CONTACT_ROLL, .site = 0, .radius = RAD, .axis = {0, 1, 0}};
    double th = 0.6, Omega = 9.0;
    /* leaning by th about x, its lowest point at the origin */
    double y[16] = {0, -RAD * sin(th), RAD * cos(th), cos(th / 2), sin(th / 2), 0, 0,
                    RAD * Omega, 0, 0, 0.5, Omega, 1.0};
    double drift;
    assert_status(sm_rigid_project(m, d, &roll, 1, 1e-14, y, y + 7, &drift, work), SM_OK);
    sys S = {m, d, &roll, 1, NULL, 0, work, SM_OK};
    double E0 = total_energy(&S, y, y + 7), worst = 0.0, h = 2e-4;
    for (int k = 0; k < 5000; k++) {
        rk4(&S, y, h);
        worst = fmax(worst, fabs(total_energy(&S, y, y + 7) - E0) / E0);
    }
    assert_status(S.st, SM_OK);
    printf("rolling at a 0.6 rad lean: |E - E0| / E0 <= %.2e over 1 s\n", worst);
    assert_true(worst < 1e-8);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_planar_disk_down_slope(void **state)
{
    (void)state;
    double gamma = 0.1;
    sm_rigid_body_def b[3];
    size_t n = planar_base(b, "disk", MASS, MASS * RAD * RAD / 2);
    sm_rigid_site_def s = {"centre", 2, {0, 0, 0}};
    sm_rigid_model *m = NULL;
    char msg[200];
    assert_status(sm_rigid_model_create(b, n, &s, 1, (double[3]){G * sin(gamma), 0, -G * cos(gamma)}, &m, msg,
                                        sizeof msg),
                  SM_OK);
    assert_true(sm_rigid_is_planar(m));
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES], q[3] = {0.4, RAD, 0.7}, vdot[3], lam[2];
    sm_contact roll = {.kind = SM_CONTACT_ROLL, .site = 0, .radius = RAD, .axis = {0, 1, 0}};
    for (int k = 0; k < 2; k++) {
        /* at rest, then rolling at 2 m/s (ω = v / a about y: x forward, z up) */
        double v[3] = {k ? 2.0 : 0.0, 0, k ? 2.0 / RAD : 0.0};
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        assert_close(sm_contact_gap(m, d, q, &roll, NULL), 0.0, 1e-15);
        assert_status(sm_rigid_constrained_accel(m, d, &roll, 1, NULL, vdot, lam, work), SM_OK);
        assert_close(vdot[0], 2.0 / 3.0 * G * sin(gamma), 1e-12);
        assert_close(vdot[1], 0.0, 1e-12);
        assert_close(lam[1], MASS * G * cos(gamma), 1e-12);            /* normal force */
        assert_close(lam[0], -MASS * G * sin(gamma) / 3.0, 1e-12);      /* friction holds back */
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_period_two_stable_spins),
        cmocka_unit_test(test_lean_grows_below_threshold),
        cmocka_unit_test(test_roll_jdotv_differences),
        cmocka_unit_test(test_leaning_disk_energy),
        cmocka_unit_test(test_planar_disk_down_slope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
