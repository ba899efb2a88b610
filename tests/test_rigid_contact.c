/* Contacts on the rigid core (stridemap/rigid_contact.h): the constrained
 * dynamics against conservation laws and closed forms.
 *
 * - a compass-like planar floating-base tree with its stance foot pinned
 *   conserves kinetic + potential energy (the constraint forces do no work);
 * - with a hip damper and a constant hip torque, the energy change equals
 *   the work ∫ power dt integrated beside the state;
 * - a double-support closed loop (a planar floating-base biped, both feet
 *   pinned, knees free, held up by knee springs) keeps its pins within
 *   1e-9 m when projected every 0.1 s (exact J̇v: a finite-difference J̇v
 *   drifts orders of magnitude more, see the MuJoCo notes);
 * - two pins on one rigid planar foot are dependent: SM_SINGULAR_CONSTRAINTS;
 * - a block sliding on the ground with kinetic friction μ decelerates at
 *   μ g with normal force m g (Coulomb's law; any mechanics text), on the
 *   3-D sweeps and on the planar path;
 * - locks (eliminated from the solve, not solved as rows) give the v̇ and λ
 *   of the whole saddle-point system solved densely here, with a pin and a
 *   sliding contact with friction beside them; a locked hinge of a fixed
 *   pendulum holds the gravity torque m g l sin θ; two locks on one
 *   coordinate are dependent;
 * - a model copied into caller memory with a changed mass has the M of a
 *   model created with that mass, and evaluations on stack data equal those
 *   on heap data;
 * - the planar path's contact rows (pins on x and z, a rolling disk, a pin
 *   on x alone, a slide, a lock) equal the 3-D sweeps' to 1e-13. */
#include "rigid_contact_util.h"
#include "test_dense_solve.h"

#include <stdlib.h>

#define G 9.81

/* Hip (planar base, 10 kg) and two legs of 1 m with 5 kg at 0.5 m: nv = 5. */
static sm_rigid_model *compass_tree(void)
{
    sm_rigid_body_def b[5];
    size_t n = planar_base(b, "hip", 10.0, 0.1);
    b[n++] = body1("leg_a", 2, SM_RIGID_HINGE, 1, 0, 0, 5.0, 0.02, -0.5, 0.4);
    b[n++] = body1("leg_b", 2, SM_RIGID_HINGE, 1, 0, 0, 5.0, -0.01, -0.5, 0.45);
    sm_rigid_site_def s[2] = {{"foot_a", 3, {0, 0, -1}}, {"foot_b", 4, {0, 0, -1}}};
    return make_model(b, n, s, 2);
}

/* A pinned run of the compass tree from a lean with random rates; returns
 * the largest |E − E0 − W| / |E0| and the work W at the end. */
static double pinned_run(const sm_rigid_spring *spring, size_t ns, double *work_done)
{
    sm_rigid_model *m = compass_tree();
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES];
    sm_contact pin = {.kind = SM_CONTACT_PIN, .site = 0};
    size_t nq = sm_rigid_nq(m);
    double y[16] = {0};
    double *q = y, *v = y + nq;
    q[0] = 0.1;
    q[1] = 0.95;
    q[2] = 0.1;
    q[3] = -0.3;
    q[4] = 0.35;
    for (size_t i = 0; i < sm_rigid_nv(m); i++) v[i] = urand(-1, 1);
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    sm_rigid_site_pos(m, d, 0, pin.anchor);
    double drift;
    assert_status(sm_rigid_project(m, d, &pin, 1, 1e-13, q, v, &drift, work), SM_OK);
    sys S = {m, d, &pin, 1, spring, ns, work, SM_OK};
    double E0 = total_energy(&S, q, v), worst = 0.0;
    assert_true(E0 > 10.0);
    double h = 1e-3;
    for (int k = 1; k <= 2000; k++) {
        rk4(&S, y, h);
        if (k % 100 == 0) assert_status(sm_rigid_project(m, d, &pin, 1, 1e-13, q, v, &drift, work), SM_OK);
        double E = total_energy(&S, q, v);
        worst = fmax(worst, fabs(E - E0 - y[nq + sm_rigid_nv(m)]) / fabs(E0));
    }
    assert_status(S.st, SM_OK);
    *work_done = y[nq + sm_rigid_nv(m)];
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
    return worst;
}

static void test_pinned_energy_conserved(void **state)
{
    (void)state;
    double W, err = pinned_run(NULL, 0, &W);
    printf("pinned phase: |E - E0| / E0 <= %.2e over 2 s\n", err);
    assert_true(err < 1e-8);
    assert_true(W == 0.0);
}

static void test_damper_torque_work(void **state)
{
    (void)state;
    sm_rigid_spring hip = {.n = 2, .body = {4, 3}, .coef = {1, -1}, .stiffness = 5, .damping = 0.8, .rest = 0.1,
                           .torque = 3.0};
    double W, err = pinned_run(&hip, 1, &W);
    printf("damper + torque: work %.6f J, |E - E0 - W| / E0 <= %.2e\n", W, err);
    assert_true(fabs(W) > 0.1); /* the forces did work worth testing */
    assert_true(err < 1e-8);
}

/* Pelvis (planar base) with two legs of thigh and shank; feet at the shank ends. */
static sm_rigid_model *biped_tree(void)
{
    sm_rigid_body_def b[7];
    size_t n = planar_base(b, "pelvis", 20.0, 1.0);
    b[n++] = body1("thigh_a", 2, SM_RIGID_HINGE, 1, 0, 0, 7.0, 0, -0.2, 0.12);
    b[n++] = body1("shank_a", 3, SM_RIGID_HINGE, 1, 0, -0.45, 3.5, 0, -0.2, 0.05);
    b[n++] = body1("thigh_b", 2, SM_RIGID_HINGE, 1, 0, 0, 7.5, 0, -0.21, 0.13);
    b[n++] = body1("shank_b", 5, SM_RIGID_HINGE, 1, 0, -0.46, 3.2, 0, -0.2, 0.05);
    sm_rigid_site_def s[2] = {{"foot_a", 4, {0, 0, -0.43}}, {"foot_b", 6, {0, 0, -0.42}}};
    return make_model(b, n, s, 2);
}

static void test_double_support_drift(void **state)
{
    (void)state;
    sm_rigid_model *m = biped_tree();
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES];
    size_t nq = sm_rigid_nq(m), nv = sm_rigid_nv(m);
    double y[32] = {0};
    double *q = y, *v = y + nq;
    double q0[7] = {0, 0.8, 0.05, -0.35, 0.5, 0.25, 0.45};
    memcpy(q, q0, sizeof q0);
    sm_contact pins[2] = {{.kind = SM_CONTACT_PIN, .site = 0}, {.kind = SM_CONTACT_PIN, .site = 1}};
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    for (int k = 0; k < 2; k++) {
        double x[3];
        sm_rigid_site_pos(m, d, (size_t)k, x);
        pins[k].anchor[0] = x[0]; /* on the ground below where the feet hang */
    }
    double drift;
    assert_status(sm_rigid_project(m, d, pins, 2, 1e-13, q, v, &drift, work), SM_OK);
    for (size_t i = 0; i < nv; i++) v[i] = urand(-0.5, 0.5);
    assert_status(sm_rigid_project(m, d, pins, 2, 1e-13, q, v, &drift, work), SM_OK);
    /* knee springs with their rest angles hold the loop up */
    sm_rigid_spring knees[2] = {{.n = 1, .body = {4}, .coef = {1}, .stiffness = 300, .rest = 0.5},
                                {.n = 1, .body = {6}, .coef = {1}, .stiffness = 300, .rest = 0.45}};
    sys S = {m, d, pins, 2, knees, 2, work, SM_OK};
    double worst = 0.0, vworst = 0.0, moved = 0.0, h = 2.5e-4; /* RK4's error, not the constraint's, sets the drift */
    for (int k = 1; k <= 12000; k++) {
        rk4(&S, y, h);
        moved = fmax(moved, fabs(q[1] - 0.8));
        if (k % 400 == 0) {
            /* the pins' position drift, measured before projecting */
            assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
            for (int j = 0; j < 2; j++) {
                double x[3];
                sm_rigid_site_pos(m, d, (size_t)j, x);
                worst = fmax(worst, fmax(fabs(x[0] - pins[j].anchor[0]), fabs(x[2])));
            }
            assert_status(sm_rigid_project(m, d, pins, 2, 1e-13, q, v, &drift, work), SM_OK);
            vworst = fmax(vworst, drift);
        }
    }
    assert_status(S.st, SM_OK);
    printf("double support: largest pin drift %.2e m (and |J v| %.2e m/s) over 3 s, pelvis moved %.3f m\n",
           worst, vworst, moved);
    assert_true(moved > 0.01); /* it moved */
    assert_true(worst < 1e-9);
    /* the pins hold after the last projection */
    for (int k = 0; k < 2; k++) {
        double x[3];
        sm_rigid_site_pos(m, d, (size_t)k, x);
        assert_close(x[0], pins[k].anchor[0], 1e-12);
        assert_close(x[2], 0.0, 1e-12);
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_two_pins_one_foot_singular(void **state)
{
    (void)state;
    sm_rigid_body_def b[3];
    size_t n = planar_base(b, "foot", 1.0, 0.01);
    sm_rigid_site_def s[2] = {{"heel", 2, {-0.05, 0, 0}}, {"toe", 2, {0.15, 0, 0}}};
    sm_rigid_model *m = make_model(b, n, s, 2);
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES], q[3] = {0.2, 0, 0}, v[3] = {0.1, 0, 0};
    sm_contact c[2] = {{.kind = SM_CONTACT_PIN, .site = 0, .anchor = {0.15, 0, 0}},
                       {.kind = SM_CONTACT_PIN, .site = 1, .anchor = {0.35, 0, 0}}};
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    double vdot[3] = {7, 7, 7}, lam[4] = {7, 7, 7, 7}, vp[3] = {7, 7, 7}, drift;
    assert_status(sm_rigid_constrained_accel(m, d, c, 2, NULL, vdot, lam, work), SM_SINGULAR_CONSTRAINTS);
    for (int i = 0; i < 3; i++) assert_true(vdot[i] == 7 && lam[i] == 7);
    assert_status(sm_rigid_impact(m, d, c, 2, v, vp, lam, NULL, NULL, work), SM_SINGULAR_CONSTRAINTS);
    assert_status(sm_rigid_project(m, d, c, 2, 1e-12, q, v, &drift, work), SM_SINGULAR_CONSTRAINTS);
    /* a pin and a slide on the same foot are independent */
    c[1].kind = SM_CONTACT_SLIDE;
    c[1].mu = 0.5;
    c[1].slide_sign = 1;
    assert_status(sm_rigid_constrained_accel(m, d, c, 2, NULL, vdot, lam, work), SM_OK);
    assert_string_equal(sm_status_name(SM_SINGULAR_CONSTRAINTS), "singular_constraints");
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void slide_check(sm_rigid_model *m, double *q, double *v, size_t vx, double mass, double mu, int sign)
{
    sm_rigid_data *d = sm_rigid_data_create(m);
    double work[WORK_DOUBLES], vdot[8], lam[1];
    sm_contact c = {.kind = SM_CONTACT_SLIDE, .site = 0, .mu = mu, .slide_sign = sign};
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    assert_close(sm_contact_gap(m, d, q, &c, NULL), 0.0, 1e-15);
    assert_status(sm_rigid_constrained_accel(m, d, &c, 1, NULL, vdot, lam, work), SM_OK);
    assert_close(vdot[vx], -sign * mu * G, 1e-12);
    assert_close(lam[0], mass * G, 1e-10);
    double F[3];
    sm_contact_force(m, d, &c, 1, lam, 0, F);
    assert_close(F[0], -sign * mu * mass * G, 1e-10);
    assert_close(F[2], mass * G, 1e-10);
    sm_rigid_data_free(d);
}

static void test_slide_friction(void **state)
{
    (void)state;
    /* 3-D sweeps: slides only (no hinge, so not planar) */
    sm_rigid_body_def b[2] = {body1("block.x", -1, SM_RIGID_SLIDE, 0, 0, 0, 0, 0, 0, 0),
                              body1("block", 0, SM_RIGID_SLIDE, 2, 0, 0, 2.0, 0, 0, 0.01)};
    sm_rigid_site_def s = {"bottom", 1, {0, 0, -0.1}};
    sm_rigid_model *m = make_model(b, 2, &s, 1);
    assert_false(sm_rigid_is_planar(m));
    double q[2] = {0.3, 0.1}, v[2] = {1.5, 0};
    slide_check(m, q, v, 0, 2.0, 0.4, 1);
    v[0] = -1.5;
    slide_check(m, q, v, 0, 2.0, 0.4, -1);
    sm_rigid_model_free(m);
    /* the planar path: a block that could also turn, sliding level */
    sm_rigid_body_def p[3];
    planar_base(p, "block", 3.0, 0.05);
    s.body = 2;
    m = make_model(p, 3, &s, 1);
    assert_true(sm_rigid_is_planar(m));
    double qp[3] = {0.3, 0.1, 0}, vp[3] = {2.0, 0, 0};
    slide_check(m, qp, vp, 0, 3.0, 0.7, 1);
    sm_rigid_model_free(m);
}

static void test_lock_eliminated(void **state)
{
    (void)state;
    sm_rigid_model *m = compass_tree();
    sm_rigid_data *d = sm_rigid_data_create(m);
    const size_t nv = sm_rigid_nv(m), nq = sm_rigid_nq(m);
    assert_int_equal(nv, 5);
    assert_int_equal(nq, 5);
    double work[WORK_DOUBLES], q[8] = {0.1, 0.95, 0.1, -0.3, 0.35}, v[8], tau[8];
    for (size_t i = 0; i < nv; i++) v[i] = urand(-1, 1), tau[i] = urand(-2, 2);
    /* the lock between the rows of the pin and the slide, so that its row
     * sits inside the set */
    sm_contact c[3] = {{.kind = SM_CONTACT_PIN, .site = 0},
                       {.kind = SM_CONTACT_LOCK, .body = 4},
                       {.kind = SM_CONTACT_SLIDE, .site = 1, .mu = 0.3, .slide_sign = -1}};
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    const size_t rows = sm_contact_set_rows(m, c, 3), n = nv + rows;
    assert_int_equal(rows, 4);
    double vdot[8], lam[8];
    assert_status(sm_rigid_constrained_accel(m, d, c, 3, tau, vdot, lam, work), SM_OK);
    /* [M  −J̃ᵀ; J  0] [v̇; λ] = [τ − b; −J̇v], J̃'s slide row J_n − μ s J_t */
    double M[25], b[5], J[4 * 5], jdv[4], Jt[3 * 5], K[81] = {0}, r[9];
    sm_rigid_mass(m, d, M);
    sm_rigid_bias(m, d, b);
    assert_int_equal(sm_contact_jacobian(m, d, c, 3, J, jdv, Jt), rows);
    for (size_t i = 0; i < nv; i++) {
        for (size_t j = 0; j < nv; j++) K[i * n + j] = M[i * nv + j];
        for (size_t k = 0; k < rows; k++) {
            const double jt = J[k * nv + i] - (k == 3 ? 0.3 * -1.0 * Jt[2 * nv + i] : 0.0);
            K[i * n + nv + k] = -jt;
            K[(nv + k) * n + i] = J[k * nv + i];
        }
        r[i] = tau[i] - b[i];
    }
    for (size_t k = 0; k < rows; k++) r[nv + k] = -jdv[k];
    test_dense_solve(K, r, n);
    for (size_t i = 0; i < nv; i++) assert_close(vdot[i], r[i], 1e-11);
    for (size_t k = 0; k < rows; k++) assert_close(lam[k], r[nv + k], 1e-10);
    assert_true(vdot[sm_rigid_body_vadr(m, 4)] == 0.0);
    /* two locks on one coordinate */
    sm_contact two[2] = {{.kind = SM_CONTACT_LOCK, .body = 4}, {.kind = SM_CONTACT_LOCK, .body = 4}};
    assert_status(sm_rigid_constrained_accel(m, d, two, 2, NULL, vdot, lam, work), SM_SINGULAR_CONSTRAINTS);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
    /* a pendulum of mass 2 at l = 0.7 on a fixed hinge, locked at θ = 0.4:
     * the lock holds gravity's torque, ±m g l sin θ (the sign is the hinge
     * axis's) */
    sm_rigid_body_def p = body1("rod", -1, SM_RIGID_HINGE, 1, 0, 0, 2.0, 0, -0.7, 0.01);
    sm_rigid_site_def s = {"tip", 0, {0, 0, -0.7}};
    m = make_model(&p, 1, &s, 1);
    d = sm_rigid_data_create(m);
    double qp[1] = {0.4}, vp[1] = {0.8}, ap[1] = {7}, lp[1];
    sm_contact lock = {.kind = SM_CONTACT_LOCK, .body = 0};
    assert_status(sm_rigid_forward(m, d, qp, vp), SM_OK);
    assert_status(sm_rigid_constrained_accel(m, d, &lock, 1, NULL, ap, lp, work), SM_OK);
    assert_true(ap[0] == 0.0);
    assert_close(fabs(lp[0]), 2.0 * G * 0.7 * sin(0.4), 1e-12);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

static void test_stack_copy_and_data(void **state)
{
    (void)state;
    sm_rigid_body_def b[7];
    sm_rigid_model *m = biped_tree();
    size_t nv = sm_rigid_nv(m), nq = sm_rigid_nq(m);
    /* the copy, its thigh_b made heavier and its com moved */
    _Alignas(16) unsigned char mem[32768], dmem[16384], dmem2[16384];
    assert_true(sm_rigid_model_bytes(m) <= sizeof mem);
    sm_rigid_model *c = sm_rigid_model_copy(m, mem + 8, sizeof mem - 8); /* misaligned on purpose */
    assert_non_null(c);
    sm_rigid_body_def heavy = body1("thigh_b", 2, SM_RIGID_HINGE, 1, 0, 0, 11.0, 0.01, -0.25, 0.2);
    char msg[200];
    assert_status(sm_rigid_body_set(c, 5, &heavy, msg, sizeof msg), SM_OK);
    /* the same tree created with that body */
    size_t n = planar_base(b, "pelvis", 20.0, 1.0);
    b[n++] = body1("thigh_a", 2, SM_RIGID_HINGE, 1, 0, 0, 7.0, 0, -0.2, 0.12);
    b[n++] = body1("shank_a", 3, SM_RIGID_HINGE, 1, 0, -0.45, 3.5, 0, -0.2, 0.05);
    b[n++] = heavy;
    b[n++] = body1("shank_b", 5, SM_RIGID_HINGE, 1, 0, -0.46, 3.2, 0, -0.2, 0.05);
    sm_rigid_site_def s[2] = {{"foot_a", 4, {0, 0, -0.43}}, {"foot_b", 6, {0, 0, -0.42}}};
    sm_rigid_model *f = make_model(b, n, s, 2);
    sm_rigid_data *dc = sm_rigid_data_init(c, dmem + 4, sizeof dmem - 4);
    sm_rigid_data *df = sm_rigid_data_create(f);
    sm_rigid_data *dm = sm_rigid_data_init(m, dmem2, sizeof dmem2);
    sm_rigid_data *dh = sm_rigid_data_create(m);
    assert_non_null(dc);
    assert_non_null(dm);
    assert_int_equal(sm_rigid_site_index(c, "foot_b"), 1);
    assert_int_equal(sm_rigid_body_index(c, "thigh_b"), 5);
    for (int planar = 0; planar < 2; planar++) {
        sm_rigid_use_planar(c, planar);
        sm_rigid_use_planar(f, planar);
        sm_rigid_use_planar(m, planar);
        for (int trial = 0; trial < 5; trial++) {
            double q[8], v[8], Mc[64], Mf[64], Mm[64], Mh[64], bm[8], bh[8];
            for (size_t i = 0; i < nq; i++) q[i] = urand(-1, 1);
            for (size_t i = 0; i < nv; i++) v[i] = urand(-1, 1);
            assert_status(sm_rigid_forward(c, dc, q, v), SM_OK);
            assert_status(sm_rigid_forward(f, df, q, v), SM_OK);
            assert_status(sm_rigid_forward(m, dm, q, v), SM_OK);
            assert_status(sm_rigid_forward(m, dh, q, v), SM_OK);
            sm_rigid_mass(c, dc, Mc);
            sm_rigid_mass(f, df, Mf);
            sm_rigid_mass(m, dm, Mm);
            sm_rigid_mass(m, dh, Mh);
            sm_rigid_bias(m, dm, bm);
            sm_rigid_bias(m, dh, bh);
            double differs = 0.0;
            for (size_t i = 0; i < nv * nv; i++) {
                assert_close(Mc[i], Mf[i], 1e-15 * (1 + fabs(Mf[i])));
                assert_true(Mm[i] == Mh[i]);
                differs = fmax(differs, fabs(Mc[i] - Mm[i]));
            }
            for (size_t i = 0; i < nv; i++) assert_true(bm[i] == bh[i]);
            assert_true(differs > 1e-3); /* the changed mass shows */
        }
    }
    double bad = heavy.mass;
    heavy.mass = -1;
    assert_status(sm_rigid_body_set(c, 5, &heavy, msg, sizeof msg), SM_BAD_PARAM);
    assert_non_null(strstr(msg, "thigh_b"));
    heavy.mass = bad;
    assert_null(sm_rigid_model_copy(m, mem, 16));
    assert_null(sm_rigid_data_init(m, dmem, 16));
    sm_rigid_data_free(df);
    sm_rigid_data_free(dh);
    sm_rigid_model_free(f);
    sm_rigid_model_free(m);
}

static void test_qdot_quaternion(void **state)
{
    (void)state;
    /* q̇ against the difference of sm_rigid_integrate_q (an independent route:
     * the exponential map) for a free body */
    sm_rigid_body_def b = {"ball", -1, SM_RIGID_FREE, {0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0}, 1, {0, 0, 0},
                           {0.1, 0, 0, 0, 0.2, 0, 0, 0, 0.3}};
    sm_rigid_model *m = make_model(&b, 1, NULL, 0);
    double q[7] = {0.1, 0.2, 0.3, 0.8, 0.1, -0.4, 0.3}, v[6] = {0.3, -0.2, 0.5, 1.1, -0.7, 0.4}, qd[7], qp[7],
           qm[7], h = 1e-6;
    double n = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    for (int k = 3; k < 7; k++) q[k] /= n;
    sm_rigid_qdot(m, q, v, qd);
    sm_rigid_integrate_q(m, q, v, h, qp);
    sm_rigid_integrate_q(m, q, v, -h, qm);
    for (int k = 0; k < 7; k++) assert_close(qd[k], (qp[k] - qm[k]) / (2 * h), 1e-9);
    sm_rigid_model_free(m);
}

/* Rank of a rows x n matrix by Gaussian elimination with full pivoting. */
static size_t rank_of(const double *A, size_t rows, size_t n, double tol)
{
    double B[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V];
    memcpy(B, A, rows * n * sizeof *B);
    size_t r = 0;
    for (; r < rows && r < n; r++) {
        size_t pi = r, pj = 0;
        double big = -1;
        for (size_t i = r; i < rows; i++)
            for (size_t j = 0; j < n; j++)
                if (fabs(B[i * n + j]) > big) big = fabs(B[i * n + j]), pi = i, pj = j;
        if (big <= tol) break;
        for (size_t j = 0; j < n; j++) {
            double t = B[r * n + j];
            B[r * n + j] = B[pi * n + j];
            B[pi * n + j] = t;
        }
        for (size_t i = r + 1; i < rows; i++) {
            double f = B[i * n + pj] / B[r * n + pj];
            for (size_t j = 0; j < n; j++) B[i * n + j] -= f * B[r * n + j];
        }
        for (size_t j = 0; j < n; j++) B[r * n + j] = 0.0; /* pivot row done: keep it out of the next search */
    }
    return r;
}

/* A free foot hinged along its toe line (y) in 3-D: a pin at one end and
 * the other end held in x and z.  Exactly the rotation about y is left;
 * a second full pin would be dependent.  The accelerations are the
 * hinge's: θ̈ = −a m g / (I_yy + m (a² + h²)) for the centre of mass at
 * (−a, ·, h) from the line, and the forces add up to m (a_com − g). */
static void test_toe_line_masked_pin(void **state)
{
    (void)state;
    const double mass = 1.3, a = 0.12, h = 0.04, ixx = 0.002, iyy = 0.011, izz = 0.012, g = 9.81;
    sm_rigid_body_def b;
    memset(&b, 0, sizeof b);
    b.name = "foot";
    b.parent = -1;
    b.joint = SM_RIGID_FREE;
    b.quat[0] = 1.0;
    b.mass = mass;
    b.com[0] = -a;
    b.com[2] = h;
    b.inertia[0] = ixx;
    b.inertia[4] = iyy;
    b.inertia[8] = izz;
    sm_rigid_site_def s[2] = {{"toe_l", 0, {0, 0.05, 0}}, {"toe_r", 0, {0, -0.05, 0}}};
    sm_rigid_model *m = make_model(&b, 1, s, 2);
    sm_rigid_data *d = sm_rigid_data_create(m);
    assert_int_equal(sm_rigid_nv(m), 6);
    double work[WORK_DOUBLES], q[7] = {0, 0, 0, 1, 0, 0, 0}, v[6] = {0};
    sm_contact c[2] = {{.kind = SM_CONTACT_PIN, .site = 0, .anchor = {0, 0.05, 0}},
                       {.kind = SM_CONTACT_PIN, .site = 1, .anchor = {0, -0.05, 0}, .rows = SM_ROW_X | SM_ROW_Z}};
    assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
    assert_int_equal(sm_contact_set_rows(m, c, 2), 5);
    double J[5 * 6], Jdv[5];
    assert_int_equal(sm_contact_jacobian(m, d, c, 2, J, Jdv, NULL), 5);
    assert_int_equal(6 - rank_of(J, 5, 6, 1e-12), 1);
    /* the one free direction: the rotation about y (ω_y alone) moves no row */
    double w[6] = {0, 0, 0, 0, 1, 0};
    for (size_t i = 0; i < 5; i++) {
        double r = 0;
        for (size_t k = 0; k < 6; k++) r += J[i * 6 + k] * w[k];
        assert_close(r, 0.0, 1e-15);
    }
    double vdot[6], lam[5];
    assert_status(sm_rigid_constrained_accel(m, d, c, 2, NULL, vdot, lam, work), SM_OK);
    const double th = -a * mass * g / (iyy + mass * (a * a + h * h));
    assert_close(vdot[4], th, 1e-12);
    for (int k = 0; k < 6; k++)
        if (k != 4 && k != 0 && k != 2) assert_close(vdot[k], 0.0, 1e-12);
    /* the centre of mass moves on the circle about the line: a_com = α × r */
    const double acom[3] = {th * h, 0, th * a};
    double F0[3], F1[3];
    sm_contact_force(m, d, c, 2, lam, 0, F0);
    sm_contact_force(m, d, c, 2, lam, 1, F1);
    assert_true(F1[1] == 0.0);
    assert_close(F0[0] + F1[0], mass * acom[0], 1e-12);
    assert_close(F0[1] + F1[1], 0.0, 1e-12);
    assert_close(F0[2] + F1[2], mass * (acom[2] + g), 1e-12);
    /* the same foot with two full pins: the sixth row is dependent */
    c[1].rows = 0;
    assert_int_equal(sm_contact_set_rows(m, c, 2), 6);
    assert_status(sm_rigid_constrained_accel(m, d, c, 2, NULL, vdot, lam, work), SM_SINGULAR_CONSTRAINTS);
    /* a planar tree drops y from a mask, as from a full pin */
    sm_rigid_body_def pb[3];
    size_t n = planar_base(pb, "foot", 1.0, 0.01);
    sm_rigid_site_def ps[1] = {{"toe", 2, {0.15, 0, 0}}};
    sm_rigid_model *pm = make_model(pb, n, ps, 1);
    sm_contact pc = {.kind = SM_CONTACT_PIN, .site = 0, .rows = SM_ROW_Y | SM_ROW_Z};
    assert_int_equal(sm_contact_rows(pm, &pc), 1);
    pc.rows = 0;
    assert_int_equal(sm_contact_rows(pm, &pc), 2);
    sm_rigid_model_free(pm);
    /* the projection restores only the rows held: a masked pin moved along
     * y stays there, moved along x comes back */
    c[1].rows = SM_ROW_X | SM_ROW_Z;
    double qp[7] = {0.01, 0.02, 0.003, 1, 0, 0, 0}, vp[6] = {0.1, 0.2, 0.3, 0.1, 0.2, 0.3}, drift;
    assert_status(sm_rigid_project(m, d, c, 2, 1e-13, qp, vp, &drift, work), SM_OK);
    double p0[3], p1[3];
    sm_rigid_site_pos(m, d, 0, p0);
    sm_rigid_site_pos(m, d, 1, p1);
    assert_close(p0[0], 0, 1e-13);
    assert_close(p0[1], 0.05, 1e-13);
    assert_close(p0[2], 0, 1e-13);
    assert_close(p1[0], 0, 1e-13);
    assert_close(p1[2], 0, 1e-13);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

/* The contact rows of a planar tree on its fast path (a pin's and a roll's
 * x and z rows straight from the in-plane columns) against the 3-D sweeps'
 * site Jacobians and ω × r d. */
static void test_planar_rows_equal_3d(void **state)
{
    (void)state;
    sm_rigid_model *m = biped_tree();
    sm_rigid_data *d = sm_rigid_data_create(m);
    const size_t nv = sm_rigid_nv(m), nq = sm_rigid_nq(m);
    sm_contact c[5] = {{.kind = SM_CONTACT_PIN, .site = 0},
                       {.kind = SM_CONTACT_ROLL, .site = 1, .radius = 0.15, .axis = {0, 1, 0}},
                       {.kind = SM_CONTACT_PIN, .site = 1, .rows = SM_ROW_X},
                       {.kind = SM_CONTACT_SLIDE, .site = 0, .mu = 0.3},
                       {.kind = SM_CONTACT_LOCK, .body = 4}};
    const size_t rows = sm_contact_set_rows(m, c, 5);
    assert_int_equal(rows, 7);
    for (int trial = 0; trial < 20; trial++) {
        double q[16], v[16], J[2][7 * 16], A[2][7], Jt[2][5 * 16], gap[2];
        for (size_t i = 0; i < nq; i++) q[i] = urand(-1, 1);
        for (size_t i = 0; i < nv; i++) v[i] = urand(-2, 2);
        for (int planar = 0; planar < 2; planar++) {
            assert_int_equal(sm_rigid_use_planar(m, planar), planar);
            assert_status(sm_rigid_forward(m, d, q, v), SM_OK);
            assert_int_equal(sm_contact_jacobian(m, d, c, 5, J[planar], A[planar], Jt[planar]), rows);
            gap[planar] = sm_contact_gap(m, d, q, &c[1], NULL);
        }
        for (size_t i = 0; i < rows * nv; i++) assert_close(J[1][i], J[0][i], 1e-13);
        for (size_t i = 0; i < rows; i++) assert_close(A[1][i], A[0][i], 1e-13 * (1 + fabs(A[0][i])));
        for (size_t i = 0; i < 5 * nv; i++) assert_close(Jt[1][i], Jt[0][i], 1e-13);
        assert_close(gap[1], gap[0], 1e-13);
    }
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinned_energy_conserved),
        cmocka_unit_test(test_damper_torque_work),
        cmocka_unit_test(test_double_support_drift),
        cmocka_unit_test(test_two_pins_one_foot_singular),
        cmocka_unit_test(test_slide_friction),
        cmocka_unit_test(test_lock_eliminated),
        cmocka_unit_test(test_stack_copy_and_data),
        cmocka_unit_test(test_qdot_quaternion),
        cmocka_unit_test(test_toe_line_masked_pin),
        cmocka_unit_test(test_planar_rows_equal_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
