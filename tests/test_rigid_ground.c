/* Ground forces, centre of pressure and zero-moment point (rigid_contact.h,
 * seed 000 eqs. 24–26) against statics and Newton–Euler.
 *
 * A planar seven-segment human of 75 kg (HAT, two thighs, two shanks, two
 * feet) with segment masses, lengths, centres of mass and radii of gyration
 * from D. A. Winter, Biomechanics and Motor Control of Human Movement, 4th
 * ed., Wiley 2009, Table 4.1 and Fig. 4.1 (height H = 1.75 m), every joint
 * held by a LOCK, stands on both feet.  A locked body is one rigid whole
 * with 3 planar degrees of freedom, so its ground contacts must be 3
 * independent rows: a heel pin on one foot (x, z) and a toe slide on the
 * other (z); a second pin would make the set dependent.
 * - At rest: the ground carries the weight, Σ F_z = m g = 735.75 N, and the
 *   centre of pressure lies under the centre of mass (moment balance about
 *   the ground point below it; the horizontal forces act at z = 0).
 * - Moving (random rates): the ZMP from the motion alone equals the CoP from
 *   the contact forces, since gravity and the ground are the only external
 *   forces (the locks are internal); planar and 3-D (a free pelvis with two
 *   ball-jointed legs pinned at both feet). */
#include "rigid_contact_util.h"

#define G 9.81
#define MASS 75.0
#define H 1.75

enum { HAT = 2, THIGH_A, SHANK_A, FOOT_A, THIGH_B, SHANK_B, FOOT_B, NBODY };

static sm_rigid_model *human(void)
{
    /* Winter 2009, Table 4.1: mass fraction, com from the proximal end as a
     * fraction of segment length, radius of gyration about the com (same) */
    const double l_hat = (0.818 - 0.530) * H, l_thigh = 0.245 * H, l_shank = 0.246 * H;
    const double foot_len = 0.152 * H, ankle_h = 0.039 * H;
    double m_hat = 0.678 * MASS, m_thigh = 0.100 * MASS, m_shank = 0.0465 * MASS, m_foot = 0.0145 * MASS;
    double I_hat = m_hat * pow(0.496 * l_hat, 2), I_thigh = m_thigh * pow(0.323 * l_thigh, 2);
    double I_shank = m_shank * pow(0.302 * l_shank, 2), I_foot = m_foot * pow(0.475 * foot_len, 2);
    sm_rigid_body_def b[NBODY];
    planar_base(b, "hat", m_hat, I_hat);
    b[HAT].com[2] = 0.626 * l_hat; /* the HAT's com above the hip */
    for (int leg = 0; leg < 2; leg++) {
        int t = leg ? THIGH_B : THIGH_A;
        b[t] = body1(leg ? "thigh_b" : "thigh_a", HAT, SM_RIGID_HINGE, 1, 0, 0, m_thigh, 0, -0.433 * l_thigh,
                     I_thigh);
        b[t + 1] = body1(leg ? "shank_b" : "shank_a", t, SM_RIGID_HINGE, 1, 0, -l_thigh, m_shank, 0,
                         -0.433 * l_shank, I_shank);
        /* ankle to the head of metatarsal II; the foot's com halfway, above the sole */
        b[t + 2] = body1(leg ? "foot_b" : "foot_a", t + 1, SM_RIGID_HINGE, 1, 0, -l_shank, m_foot,
                         0.5 * 0.75 * foot_len, -0.5 * ankle_h, I_foot);
    }
    sm_rigid_site_def s[4] = {{"heel_a", FOOT_A, {-0.25 * foot_len, 0, -ankle_h}},
                              {"toe_a", FOOT_A, {0.75 * foot_len, 0, -ankle_h}},
                              {"heel_b", FOOT_B, {-0.25 * foot_len, 0, -ankle_h}},
                              {"toe_b", FOOT_B, {0.75 * foot_len, 0, -ankle_h}}};
    return make_model(b, NBODY, s, 4);
}

/* Stance: HAT leaning forward 0.15 rad, thighs at ±0.25 rad from the
 * vertical, knees straight, feet flat; projected onto the contacts. */
static void stand(sm_rigid_model *m, sm_rigid_data *d, sm_contact *c, double *q)
{
    double angles[9] = {0, 0, 0.15, 0.1, 0.0, -0.25, -0.4, 0.0, 0.25};
    memcpy(q, angles, sizeof angles);
    q[1] = (0.245 + 0.246) * H * cos(0.25) + 0.039 * H;
    const int locked[6] = {THIGH_A, SHANK_A, FOOT_A, THIGH_B, SHANK_B, FOOT_B};
    for (int k = 0; k < 6; k++)
        c[k] = (sm_contact){.kind = SM_CONTACT_LOCK, .body = (size_t)locked[k], .at = q[locked[k]]};
    double v[9] = {0}, x[3], work[WORK_DOUBLES], drift;
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    sm_rigid_site_pos(m, d, 0, x);
    c[6] = (sm_contact){.kind = SM_CONTACT_PIN, .site = 0, .anchor = {x[0], 0, 0}};
    c[7] = (sm_contact){.kind = SM_CONTACT_SLIDE, .site = 3, .mu = 0.5, .slide_sign = 1};
    assert_status(sm_rigid_project(m, d, c, 8, 1e-14, q, v, &drift, work), SM_OK);
}

static void mass_centre(const sm_rigid_model *m, const sm_rigid_data *d, double *total, double com[3])
{
    double M = 0.0, s[3] = {0, 0, 0};
    for (size_t b = 0; b < sm_rigid_nbody(m); b++) {
        double p[3];
        sm_rigid_body_state(m, d, b, NULL, p, NULL, NULL);
        double mb = b == HAT ? 0.678 * MASS
                  : (b == THIGH_A || b == THIGH_B) ? 0.100 * MASS
                  : (b == SHANK_A || b == SHANK_B) ? 0.0465 * MASS
                  : (b == FOOT_A || b == FOOT_B) ? 0.0145 * MASS
                                                 : 0.0;
        M += mb;
        for (int k = 0; k < 3; k++) s[k] += mb * p[k];
    }
    *total = M;
    for (int k = 0; k < 3; k++) com[k] = s[k] / M;
}

static void test_standing_human(void **state)
{
    (void)state;
    sm_rigid_model *m = human();
    assert_true(sm_rigid_is_planar(m));
    sm_rigid_data *d = sm_rigid_data_create(m);
    sm_contact c[8];
    double q[9], v[9] = {0}, vdot[9], lam[16], work[WORK_DOUBLES];
    stand(m, d, c, q);
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    double gap_b = sm_contact_gap(m, d, q, &(sm_contact){.kind = SM_CONTACT_PIN, .site = 2}, NULL);
    assert_true(fabs(gap_b) < 0.02); /* standing on both feet, near flat */
    assert_status(sm_rigid_constrained_accel(m, d, c, 8, NULL, vdot, lam, work), SM_OK);
    for (int i = 0; i < 9; i++) assert_close(vdot[i], 0.0, 1e-9);
    double Fz = 0.0, F[3], cop[3], com[3], total;
    for (size_t k = 6; k < 8; k++) {
        sm_contact_force(m, d, c, 8, lam, k, F);
        assert_true(F[2] > 0); /* unilateral: both feet push */
        Fz += F[2];
    }
    mass_centre(m, d, &total, com);
    assert_close(total, MASS, 1e-12);
    assert_true(sm_rigid_cop(m, d, c, 8, lam, cop));
    printf("standing: sum Fz = %.10f N, CoP x %.10f m, CoM x %.10f m\n", Fz, cop[0], com[0]);
    assert_close(Fz, 735.75, 1e-9 * 735.75);
    assert_close(cop[0], com[0], 1e-9);
    assert_close(cop[2], 0.0, 1e-12);
    assert_true(fabs(cop[0] - c[6].anchor[0]) > 0.05); /* not trivially at one foot */
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_zmp_equals_cop_planar(void **state)
{
    (void)state;
    sm_rigid_model *m = human();
    sm_rigid_data *d = sm_rigid_data_create(m);
    sm_contact c[8];
    double q[9], vdot[9], lam[16], work[WORK_DOUBLES], worst = 0.0;
    stand(m, d, c, q);
    for (int trial = 0; trial < 20; trial++) {
        double v[9], cop[3], zmp[3];
        for (int i = 0; i < 9; i++) v[i] = urand(-1.5, 1.5);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        assert_status(sm_rigid_constrained_accel(m, d, c, 8, NULL, vdot, lam, work), SM_OK);
        bool up = sm_rigid_cop(m, d, c, 8, lam, cop);
        assert_true(sm_rigid_zmp(m, d, v, vdot, zmp) == up);
        if (!up) continue;
        assert_close(zmp[0], cop[0], 1e-9);
        assert_close(zmp[1], cop[1], 1e-9);
        worst = fmax(worst, fabs(zmp[0] - cop[0]));
    }
    printf("planar ZMP vs CoP: largest difference %.2e m\n", worst);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_zmp_equals_cop_3d(void **state)
{
    (void)state;
    sm_rigid_model *m = spatial_biped(0.9, 0.02);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double q[16], v[13] = {0}, vdot[13], lam[6], work[WORK_DOUBLES], drift, worst = 0.0;
    sm_rigid_q_neutral(m, q);
    q[7] = cos(0.1), q[8] = sin(0.1); /* leg_a out sideways */
    q[11] = cos(0.2), q[13] = sin(0.2);
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    sm_contact c[2];
    for (int k = 0; k < 2; k++) {
        double x[3];
        sm_rigid_site_pos(m, d, (size_t)k, x);
        c[k] = (sm_contact){.kind = SM_CONTACT_PIN, .site = (size_t)k, .anchor = {x[0], x[1], 0}};
    }
    assert_status(sm_rigid_project(m, d, c, 2, 1e-14, q, v, &drift, work), SM_OK);
    int counted = 0;
    for (int trial = 0; trial < 20; trial++) {
        double cop[3], zmp[3];
        for (int i = 0; i < 13; i++) v[i] = urand(-1, 1);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        assert_status(sm_rigid_constrained_accel(m, d, c, 2, NULL, vdot, lam, work), SM_OK);
        bool up = sm_rigid_cop(m, d, c, 2, lam, cop);
        assert_true(sm_rigid_zmp(m, d, v, vdot, zmp) == up);
        if (!up) continue;
        counted++;
        assert_close(zmp[0], cop[0], 1e-9);
        assert_close(zmp[1], cop[1], 1e-9);
        worst = fmax(worst, fmax(fabs(zmp[0] - cop[0]), fabs(zmp[1] - cop[1])));
    }
    printf("3-D ZMP vs CoP: largest difference %.2e m over %d states\n", worst, counted);
    assert_true(counted > 5);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standing_human),
        cmocka_unit_test(test_zmp_equals_cop_planar),
        cmocka_unit_test(test_zmp_equals_cop_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
