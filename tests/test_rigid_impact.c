/* Plastic impacts by generalized impulse (sm_rigid_impact, seed 000 eqs.
 * 27–35) against independent statements of the same physics:
 * - after the impact the contacts' rows are stopped, |J v⁺| < 1e-12, J taken
 *   afresh from sm_contact_jacobian;
 * - the kinetic energy lost, T⁻ − T⁺ summed body by body (sm_rigid_energy,
 *   never through M), is never negative, and equals the reported loss;
 * - for a single chain pinned at the new contact point, the post-impact
 *   rates are those of the H = M angular-momentum map: the compass gait's
 *   closed-form heel-strike (models/compass.c, Goswami, Thuilot & Espiau
 *   1998, from two conservation laws of angular momentum), to 1e-12. */
#include "rigid_contact_util.h"

/* Pelvis (planar base) with two legs of thigh and shank: nv = 7. */
static sm_rigid_model *planar_biped(void)
{
    sm_rigid_body_def b[7];
    size_t n = planar_base(b, "pelvis", 20.0, 1.0);
    b[n++] = body1("thigh_a", 2, SM_RIGID_HINGE, 1, 0, 0, 7.0, 0.01, -0.2, 0.12);
    b[n++] = body1("shank_a", 3, SM_RIGID_HINGE, 1, 0, -0.45, 3.5, 0, -0.2, 0.05);
    b[n++] = body1("thigh_b", 2, SM_RIGID_HINGE, 1, 0, 0, 7.5, 0, -0.21, 0.13);
    b[n++] = body1("shank_b", 5, SM_RIGID_HINGE, 1, 0, -0.46, 3.2, 0.02, -0.2, 0.05);
    sm_rigid_site_def s[3] = {{"foot_a", 4, {0, 0, -0.43}}, {"foot_b", 6, {0, 0, -0.42}}, {"heel_b", 6, {-0.05, 0, -0.42}}};
    return make_model(b, n, s, 3);
}

static void random_impacts(sm_rigid_model *m, const sm_contact *c, size_t nc)
{
    sm_rigid_data *d = sm_rigid_data_create(m);
    size_t nq = sm_rigid_nq(m), nv = sm_rigid_nv(m), rows = sm_contact_set_rows(m, c, nc);
    double work[WORK_DOUBLES], J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V];
    double worst_res = 0.0, least_loss = INFINITY;
    for (int trial = 0; trial < 100; trial++) {
        double q[SM_RIGID_MAX_V + 8], v[SM_RIGID_MAX_V], vp[SM_RIGID_MAX_V], L[SM_RIGID_MAX_ROWS];
        sm_rigid_q_neutral(m, q);
        for (size_t i = 0; i < nq; i++) q[i] += urand(-0.6, 0.6);
        for (size_t i = 0; i < nv; i++) v[i] = urand(-2, 2);
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        double T0, T1, V, lost, res;
        sm_rigid_energy(m, d, v, &T0, &V);
        assert_status(sm_rigid_impact(m, d, c, nc, v, vp, L, &lost, &res, work), SM_OK);
        assert_status(sm_rigid_forward(m, d, q, vp), SM_OK);
        sm_rigid_energy(m, d, vp, &T1, &V);
        assert_int_equal(sm_contact_jacobian(m, d, c, nc, J, NULL, NULL), rows);
        double r = 0.0;
        for (size_t i = 0; i < rows; i++) {
            double s = 0.0;
            for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * vp[k];
            r = fmax(r, fabs(s));
        }
        assert_true(r < 1e-12);
        assert_true(res <= 1e-12);
        assert_true(T0 - T1 >= -1e-12 * T0);
        assert_close(lost, T0 - T1, 1e-11 * T0);
        worst_res = fmax(worst_res, r);
        least_loss = fmin(least_loss, (T0 - T1) / T0);
    }
    printf("%zu rows: largest |J v+| %.2e, least relative loss %.3f\n", rows, worst_res, least_loss);
    sm_rigid_data_free(d);
}

static void test_random_impacts_planar(void **state)
{
    (void)state;
    sm_rigid_model *m = planar_biped();
    sm_contact one = {.kind = SM_CONTACT_PIN, .site = 1};
    random_impacts(m, &one, 1);
    /* a flat foot landing while the other stays: pin, pin and a slide (heel) */
    sm_contact three[3] = {{.kind = SM_CONTACT_PIN, .site = 0},
                           {.kind = SM_CONTACT_PIN, .site = 1},
                           {.kind = SM_CONTACT_SLIDE, .site = 2, .mu = 0.3, .slide_sign = 1}};
    random_impacts(m, three, 3);
    sm_rigid_model_free(m);
}

static void test_random_impacts_3d(void **state)
{
    (void)state;
    sm_rigid_model *m = spatial_biped(1.0, 0.0);
    sm_contact two[2] = {{.kind = SM_CONTACT_PIN, .site = 0}, {.kind = SM_CONTACT_PIN, .site = 1}};
    random_impacts(m, two, 2);
    sm_rigid_model_free(m);
}

static double param(const sm_model *cm, const char *name)
{
    for (size_t i = 0; i < cm->n_params; i++)
        if (strcmp(cm->params[i].name, name) == 0) return cm->params[i].value;
    fail_msg("compass has no parameter %s", name);
    return NAN;
}

/* The compass gait as a rigid tree: hip slides (x along the slope, z
 * normal to it) carrying the hip mass, two legs hinged at the hip with
 * point masses m at b below it.  Leg angles from the slope normal are
 * Goswami's angles (from the vertical) less the slope. */
static void test_compass_heelstrike(void **state)
{
    (void)state;
    const sm_model *cm = test_model("compass");
    double p[SM_MAX_PARAMS];
    for (size_t i = 0; i < cm->n_params; i++) p[i] = cm->params[i].value;
    double mass = param(cm, "m"), mh = param(cm, "mh"), a = param(cm, "a"), b = param(cm, "b");
    double gamma = param(cm, "gamma"), l = a + b;
    sm_reset_fn reset = NULL;
    for (size_t e = 0; e < cm->phases[0].n_events; e++)
        if (strcmp(cm->phases[0].events[e].name, "heelstrike") == 0) reset = cm->phases[0].events[e].reset;
    assert_non_null(reset);

    sm_rigid_body_def bd[4] = {body1("hip.x", -1, SM_RIGID_SLIDE, 0, 0, 0, 0, 0, 0, 0),
                               body1("hip", 0, SM_RIGID_SLIDE, 2, 0, 0, mh, 0, 0, 0),
                               body1("leg_st", 1, SM_RIGID_HINGE, 1, 0, 0, mass, 0, -b, 0),
                               body1("leg_sw", 1, SM_RIGID_HINGE, 1, 0, 0, mass, 0, -b, 0)};
    sm_rigid_site_def sd[2] = {{"foot_st", 2, {0, 0, -l}}, {"foot_sw", 3, {0, 0, -l}}};
    sm_rigid_model *m = make_model(bd, 4, sd, 2);
    assert_true(sm_rigid_is_planar(m));
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES], worst = 0.0;
    for (int trial = 0; trial < 20; trial++) {
        double th_st = urand(0.1, 0.4) + gamma, dst = urand(-2.0, 0.5), dsw = urand(-2.0, 2.0);
        double xm[4] = {th_st, 2 * gamma - th_st, dst, dsw}, xp[4];
        assert_int_equal(reset(xm, xp, p, NULL), 0);
        double fa = xm[0] - gamma, fb = xm[1] - gamma;
        double q[4] = {l * sin(fa), l * cos(fa), fa, fb};
        double v[4] = {l * dst * cos(fa), -l * dst * sin(fa), dst, dsw}, vp[4], L[2];
        assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
        double x[3];
        sm_rigid_site_pos(m, d, 1, x);
        assert_close(x[2], 0.0, 1e-14); /* heel-strike: the swing foot on the slope */
        sm_contact pin = {.kind = SM_CONTACT_PIN, .site = 1};
        double lost, res;
        assert_status(sm_rigid_impact(m, d, &pin, 1, v, vp, L, &lost, &res, work), SM_OK);
        /* after the swap the old swing leg stands: its rate is xp's stance rate */
        double want[4] = {l * xp[2] * cos(fb), -l * xp[2] * sin(fb), xp[3], xp[2]};
        for (int k = 0; k < 4; k++) {
            assert_close(vp[k], want[k], 1e-12);
            worst = fmax(worst, fabs(vp[k] - want[k]));
        }
    }
    printf("compass heel-strike: generalized impulse vs H = M map, largest difference %.2e\n", worst);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_impacts_planar),
        cmocka_unit_test(test_random_impacts_3d),
        cmocka_unit_test(test_compass_heelstrike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
