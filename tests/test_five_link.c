/* The five-link biped with RABBIT's numbers under HZD control
 * (models/five_link.yaml) against seed 004 (Zanchi & Cecic 1993) and the
 * hybrid-zero-dynamics theory (Westervelt et al. 2007):
 * - its mass matrix, velocity and gravity terms, in the seed's absolute
 *   angles with the stance foot pinned, are the seed's appendix I(theta),
 *   B theta'^2, M_G (tests/seed004.h) at RABBIT's published numbers,
 *   written here, not read from the file;
 * - its heel-strike is the seed's momentum jump (eq. 16): in the extended
 *   coordinates (the old stance foot p, theta) whose momenta P = dL/dq'
 *   have the appendix's I(theta) as their angle block, the jump in P is
 *   the generalized force of an impulse at the new foot alone, the new
 *   foot stops, the ground pushes, and the angular momentum about the new
 *   foot (from the seed's centres of mass, eqs. 1-5) is kept;
 * - along a step started on the zero dynamics the outputs stay below 1e-8,
 *   and the impact leaves them there (the design is impact invariant);
 * - the full map's dominant multiplier is the restricted map's delta^2 to
 *   1e-6 and its gait carries zeta* to 1e-8; scripts/design_hzd.py's
 *   impact map (numpy, the seed's centres of mass) made the file's second
 *   Bezier coefficients, and the library's impact finds them invariant;
 * - the energy changes by the torques' work (RK4 alongside) to 1e-8;
 * - the gait's ground forces push (normal force > 0, friction ratio < 1),
 *   and `stridemap fixed --json` prints both maps' multipliers. */
#include "cli_run.h"
#include "hzd_checks.h"
#include "seed004.h"
#include "src_path.h"
#include "../src/body/body_model.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/hzd.h"
#include "stridemap/registry.h"
#include "stridemap/rigid.h"
#include "stridemap/stride.h"

#define MODEL "models/five_link.yaml"

/* RABBIT, Chevallereau et al. (2003), Table 1: torso 12 kg, 0.24 m above
 * the hip, 1.33 kg m^2; femur 6.8 kg, 0.11 m below the hip, 0.47 kg m^2,
 * 0.4 m; tibia 3.2 kg, 0.24 m below the knee, 0.20 kg m^2, 0.4 m.  In the
 * seed's links: 1 stance tibia, 2 stance femur, 3 torso, 4 swing femur,
 * 5 swing tibia; a_j from a link's lower end up, b_j from its upper end
 * down. */
static seed004 rabbit(void)
{
    seed004 s = {.g = 9.81};
    s.M[1] = s.M[5] = 3.2, s.M[2] = s.M[4] = 6.8, s.M[3] = 12;
    s.I[1] = s.I[5] = 0.20, s.I[2] = s.I[4] = 0.47, s.I[3] = 1.33;
    s.l1 = 0.4, s.l2 = s.l4 = 0.4;
    s.a1 = 0.4 - 0.24, s.a2 = 0.4 - 0.11, s.a3 = 0.24, s.b4 = 0.11, s.b5 = 0.24;
    return s;
}
#define L5 0.4 /* the swing tibia's length, to its foot */

/* The seed's centres of mass, G_j = p + sum_k c[j][k] (sin theta_k, cos
 * theta_k) (eq. 5 with its -l4 term), and the swing foot's row. */
static void seed_rows(const seed004 *s, double c[5][5], double foot[5])
{
    const double rows[5][5] = {
        {s->a1, 0, 0, 0, 0},
        {s->l1, s->a2, 0, 0, 0},
        {s->l1, s->l2, s->a3, 0, 0},
        {s->l1, s->l2, 0, -s->b4, 0},
        {s->l1, s->l2, 0, -s->l4, -s->b5},
    };
    memcpy(c, rows, sizeof rows);
    const double f[5] = {s->l1, s->l2, 0, -s->l4, -L5};
    memcpy(foot, f, sizeof f);
}

/* The file's state x = (hip_x, hip_z, torso, thigh_a, shank_a, thigh_b,
 * shank_b, rates) in the seed's angles, with leg a the stance leg or, when
 * swapped, leg b; p the stance foot's position and pd its velocity. */
static void seed_state(const seed004 *s, const double *x, bool swapped, double th[5], double thd[5], double p[2],
                       double pd[2])
{
    const double *v = x + 7;
    const int st = swapped ? 5 : 3, sw = swapped ? 3 : 5;
    th[1] = x[st], thd[1] = v[st];
    th[0] = x[st] + x[st + 1], thd[0] = v[st] + v[st + 1];
    th[2] = x[2], thd[2] = v[2];
    th[3] = x[sw], thd[3] = v[sw];
    th[4] = x[sw] + x[sw + 1], thd[4] = v[sw] + v[sw + 1];
    p[0] = x[0] - s->l1 * sin(th[0]) - s->l2 * sin(th[1]);
    p[1] = x[1] - s->l1 * cos(th[0]) - s->l2 * cos(th[1]);
    pd[0] = v[0] - s->l1 * cos(th[0]) * thd[0] - s->l2 * cos(th[1]) * thd[1];
    pd[1] = v[1] + s->l1 * sin(th[0]) * thd[0] + s->l2 * sin(th[1]) * thd[1];
}

/* The y-component (z vx - x vz) of the angular momentum about o, from the
 * seed's centres of mass and the links' spins. */
static double momentum_about(const seed004 *s, const double th[5], const double thd[5], const double p[2],
                             const double pd[2], const double o[2])
{
    double c[5][5], foot[5], sigma = 0;
    seed_rows(s, c, foot);
    for (int j = 0; j < 5; j++) {
        double x = p[0] - o[0], z = p[1] - o[1], vx = pd[0], vz = pd[1];
        for (int k = 0; k < 5; k++) {
            x += c[j][k] * sin(th[k]), z += c[j][k] * cos(th[k]);
            vx += c[j][k] * cos(th[k]) * thd[k], vz -= c[j][k] * sin(th[k]) * thd[k];
        }
        sigma += s->M[j + 1] * (z * vx - x * vz) + s->I[j + 1] * thd[j];
    }
    return sigma;
}

/* The library's M(q) and C(q, v)v, G(q) of the file with foot_a pinned at
 * the origin, in the seed's angles: q = q(theta) (the hip at l1 u(theta1)
 * + l2 u(theta2), u = (sin, cos); torso and thighs absolute, knees the
 * differences), qdot = Phi theta'; the pinned system's I = Phi^T M Phi,
 * B theta'^2 = Phi^T (C(q, Phi theta') + M Phi' theta'), M_G = Phi^T G. */
static void test_dynamics_is_seed_004(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    const sm_rigid_model *rm = body_model_rigid(m);
    int foot;
    sm_rigid_data *d = seed004_rigid_data(rm, &foot);
    const seed004 s = rabbit();
    srand(13);
    double worst = 0;
    for (int n = 0; n < 200; n++) {
        double th[5], thd[5];
        for (int k = 0; k < 5; k++) th[k] = seed004_urand(-1.5, 1.5), thd[k] = seed004_urand(-3, 3);
        double Phi[7][5] = {{0}};
        Phi[0][0] = s.l1 * cos(th[0]), Phi[0][1] = s.l2 * cos(th[1]);
        Phi[1][0] = -s.l1 * sin(th[0]), Phi[1][1] = -s.l2 * sin(th[1]);
        Phi[2][2] = 1;
        Phi[3][1] = 1;
        Phi[4][0] = 1, Phi[4][1] = -1;
        Phi[5][3] = 1;
        Phi[6][4] = 1, Phi[6][3] = -1;
        const double q[7] = {s.l1 * sin(th[0]) + s.l2 * sin(th[1]), s.l1 * cos(th[0]) + s.l2 * cos(th[1]), th[2],
                             th[1], th[0] - th[1], th[3], th[4] - th[3]};
        worst = fmax(worst, seed004_rigid_is_appendix(rm, d, foot, &s, th, thd, Phi, q, 10, 100));
    }
    print_message("five_link vs seed 004 at RABBIT's numbers: largest difference %.3g of the scale\n", worst);
    /* and the appendix, so read, is the seed's Lagrangian at these numbers */
    seed004_appendix_is_lagrangian(&s, 50, 10, 100);
    sm_rigid_data_free(d);
    sm_registry_close(m);
}

typedef struct {
    double xm[SM_MAX_STATE], xp[SM_MAX_STATE];
    int impacts;
} impact_seen;

static int on_impact(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)t;
    (void)phase;
    impact_seen *w = ctx;
    if (strcmp(name, "heelstrike") == 0) {
        memcpy(w->xm, xm, sizeof w->xm);
        memcpy(w->xp, xp, sizeof w->xp);
        w->impacts++;
    }
    return 0;
}

/* The heel-strike of a step from the file's guess (near the gait) and of
 * steps from states off it, in the seed's form. */
static void check_impact(const seed004 *s, const double *xm, const double *xp, double *worst)
{
    double th[5], thd[5], p[2], pd[2], th2[5], thd2[5], p2[2], pd2[2];
    seed_state(s, xm, false, th, thd, p, pd);
    seed_state(s, xp, true, th2, thd2, p2, pd2); /* after the swap, leg b is the old stance leg */
    for (int k = 0; k < 5; k++) assert_close(th2[k], th[k], 1e-13);
    assert_close(p2[0], p[0], 1e-13);
    assert_close(p2[1], p[1], 1e-13);
    if (!(fabs(pd[0]) < 1e-8 && fabs(pd[1]) < 1e-8)) /* pinned, up to the integrator's drift */
        fail_msg("the stance foot moves at %g, %g before the impact", pd[0], pd[1]);

    /* P = dL/dq' in (p, theta): [m_tot 1, A; A^T, I(theta)], A[r][k] the
     * centres of mass' sum_j M_j c[j][k] (cos, -sin)(theta_k) */
    double c[5][5], foot[5], I[5][5], B[5][5], MG[5], A[2][5] = {{0}}, mtot = 0;
    seed_rows(s, c, foot);
    seed004_appendix(s, th, I, B, MG);
    for (int j = 0; j < 5; j++) {
        mtot += s->M[j + 1];
        for (int k = 0; k < 5; k++) {
            A[0][k] += s->M[j + 1] * c[j][k] * cos(th[k]);
            A[1][k] -= s->M[j + 1] * c[j][k] * sin(th[k]);
        }
    }
    double dpd[2] = {pd2[0] - pd[0], pd2[1] - pd[1]}, dthd[5], dP[7];
    for (int k = 0; k < 5; k++) dthd[k] = thd2[k] - thd[k];
    for (int r = 0; r < 2; r++) {
        dP[r] = mtot * dpd[r];
        for (int k = 0; k < 5; k++) dP[r] += A[r][k] * dthd[k];
    }
    double scale = 0;
    for (int k = 0; k < 5; k++) {
        dP[2 + k] = A[0][k] * dpd[0] + A[1][k] * dpd[1];
        for (int i = 0; i < 5; i++) dP[2 + k] += I[k][i] * dthd[i];
    }
    for (int i = 0; i < 7; i++) scale = fmax(scale, fabs(dP[i]));
    assert_true(scale > 1.0); /* a real impact */
    /* the impulse's generalized force E^T Lambda, E the new foot's
     * Jacobian [1 | foot (cos, -sin)]: its first two rows give Lambda */
    const double Lx = dP[0], Lz = dP[1];
    assert_true(Lz > 0); /* the ground pushes up */
    double lands[2] = {pd2[0], pd2[1]};
    for (int k = 0; k < 5; k++) {
        const double gen = foot[k] * cos(th[k]) * Lx - foot[k] * sin(th[k]) * Lz;
        seed004_close_to(dP[2 + k], gen, scale, "dP", k, 0);
        *worst = fmax(*worst, fabs(dP[2 + k] - gen) / scale);
        lands[0] += foot[k] * cos(th[k]) * thd2[k];
        lands[1] -= foot[k] * sin(th[k]) * thd2[k];
    }
    /* the new foot stops; the old one leaves the ground */
    assert_true(fabs(lands[0]) < 1e-12 && fabs(lands[1]) < 1e-12);
    assert_true(pd2[1] > 0);
    /* angular momentum about the new foot kept */
    double o[2] = {p[0], p[1]};
    for (int k = 0; k < 5; k++) o[0] += foot[k] * sin(th[k]), o[1] += foot[k] * cos(th[k]);
    assert_true(fabs(o[1]) < 1e-9); /* on the ground */
    const double before = momentum_about(s, th, thd, p, pd, o), after = momentum_about(s, th2, thd2, p2, pd2, o);
    seed004_close_to(after, before, fabs(before), "sigma about the new foot", 0, 0);
    *worst = fmax(*worst, fabs(after - before) / fabs(before));
}

static void test_impact_is_the_momentum_jump(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    const seed004 s = rabbit();
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE], worst = 0;
    sm_model_default_params(m, p);
    sm_workspace *ws = hzd_workspace(m, 1e-10, SM_METHOD_BDF);
    for (int n = 0; n < 3; n++) {
        m->guess(x, p, m->data);
        x[9] += 0.1 * n;  /* torso_dot */
        x[12] -= 0.1 * n; /* thigh_b_dot */
        impact_seen w = {.impacts = 0};
        sm_observer obs = {.dt = 0, .event = on_impact, .ctx = &w};
        assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
        assert_int_equal(w.impacts, 1);
        check_impact(&s, w.xm, w.xp, &worst);
    }
    print_message("five_link heel-strike vs the seed's momentum jump: %.3g of the scale\n", worst);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* A state on the zero dynamics at the step's start: theta = theta+, the
 * outputs' h_d (thigh_a = theta - h_knee/2, the torso from the stance
 * hip, the swing thigh from the swing hip), the stance foot at the origin,
 * theta_dot = w. */
static void zero_dynamics_state(const sm_model *m, const double *p, double w, double *x)
{
    const body_file *f = body_model_file(m);
    sm_vc vc;
    body_control_vc(f, p, &vc);
    const double th = vc.theta_plus, l = 0.4;
    double h[4][3];
    for (size_t i = 0; i < 4; i++) sm_vc_desired(&vc, i, th, h[i]);
    const double ta = th - h[2][0] / 2, tor = ta - h[0][0], tb = tor + h[1][0], sa = ta + h[2][0];
    const double wa = w * (1 - h[2][1] / 2), wt = wa - w * h[0][1], wb = wt + w * h[1][1], wsa = wa + w * h[2][1];
    const double q[7] = {l * (sin(sa) + sin(ta)), l * (cos(sa) + cos(ta)), tor, ta, h[2][0], tb, h[3][0]};
    const double v[7] = {l * (cos(sa) * wsa + cos(ta) * wa), -l * (sin(sa) * wsa + sin(ta) * wa), wt, wa,
                         w * h[2][1], wb, w * h[3][1]};
    memcpy(x, q, sizeof q);
    memcpy(x + 7, v, sizeof v);
}

typedef struct {
    const sm_model *m;
    const double *p;
    double max_y, after_y, after_dy;
    int samples;
} y_watch;

static void outputs(y_watch *w, const double *x, sm_vc_value *val)
{
    const body_file *f = body_model_file(w->m);
    sm_vc vc;
    double qv[SM_CTRL_MAX_Q];
    body_control_vc(f, w->p, &vc);
    body_control_q_on_v(f, x, qv);
    sm_vc_eval(&vc, qv, x + 7, val);
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)t;
    (void)phase;
    y_watch *w = ctx;
    sm_vc_value val;
    outputs(w, x, &val);
    for (size_t i = 0; i < 4; i++) w->max_y = fmax(w->max_y, fabs(val.y[i]));
    w->samples++;
    return 0;
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)name;
    y_watch *w = ctx;
    on_sample(ctx, t, phase, xm);
    sm_vc_value val;
    outputs(w, xp, &val);
    for (size_t i = 0; i < 4; i++) {
        w->after_y = fmax(w->after_y, fabs(val.y[i]));
        w->after_dy = fmax(w->after_dy, fabs(val.dy[i] / val.theta_dot));
    }
    return 0;
}

static void test_outputs_stay_zero_on_the_zero_dynamics(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    zero_dynamics_state(m, p, 0.8, x);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
    y_watch w = {.m = m, .p = p};
    on_sample(&w, 0, 0, x);
    assert_true(w.max_y < 1e-14);
    sm_observer obs = {.dt = 1e-3, .sample = on_sample, .event = on_event, .ctx = &w};
    assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
    assert_true(w.samples > 300);
    if (!(w.max_y < 1e-8)) fail_msg("max |y| along the step = %g", w.max_y);
    /* impact invariant: the impact leaves the state on the zero dynamics */
    if (!(w.after_y < 1e-8 && w.after_dy < 1e-8))
        fail_msg("after the impact |y| %g, |y'/theta'| %g", w.after_y, w.after_dy);
    print_message("five_link on the zero dynamics: max |y| %.3g along, after the impact %.3g, %.3g\n", w.max_y,
                  w.after_y, w.after_dy);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

static void test_energy_and_the_torques_work(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], moved;
    sm_model_default_params(m, p);
    /* off the zero dynamics (the swing leg's and the torso's rates: the
     * stance foot stays at rest), so that every torque works */
    zero_dynamics_state(m, p, 0.8, x);
    x[9] -= 0.3, x[12] += 0.4, x[13] -= 0.5;
    const double miss = hzd_energy_balance(m, p, x, 0.3, 1e-4, &moved);
    assert_true(fabs(moved) > 1.0);
    if (!(fabs(miss) < 1e-8)) fail_msg("E(T) - E(0) - work = %g (energy moved by %g)", miss, moved);
    print_message("five_link: energy moved %.4g J, missed by the torques' work %.3g J\n", moved, miss);
    sm_registry_close(m);
}

/* The file's gait: found by Newton from its guess, stable; its dominant
 * multiplier delta^2 and its zeta the restricted map's; its ground forces
 * those of walking (the stance foot pushed, friction within mu = 1). */
static void test_gait_is_the_restricted_maps(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    assert_true(sm_hzd_applies(m));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    sm_restricted_map rm;
    assert_status(sm_hzd_restricted_map(m, p, 1e-12, &rm), SM_OK);
    /* scripts/design_hzd.py's impact map (numpy) made the second
     * coefficients; the library's finds the design invariant */
    if (!(rm.invariance < 1e-9)) fail_msg("the file's design is off invariance by %g", rm.invariance);
    assert_true(rm.exists);
    assert_true(rm.multiplier > 0 && rm.multiplier < 1);

    m->guess(x, p, m->data);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.tol = 1e-11;
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.stable);
    assert_close(r.eig_re[0], rm.multiplier, 1e-6);
    assert_close(r.eig_im[0], 0.0, 0.0);
    /* the others are the outputs' decay over a step */
    assert_true(hypot(r.eig_re[1], r.eig_im[1]) < 1e-3);
    double zeta;
    assert_status(sm_hzd_zeta(m, p, r.x, &zeta), SM_OK);
    if (!(fabs(zeta - rm.zeta_plus) <= 1e-8 * rm.zeta_plus))
        fail_msg("full map zeta+ %.15g, restricted %.15g", zeta, rm.zeta_plus);
    if (!(fabs(zeta - rm.v_minus - rm.zeta_star) <= 1e-8 * rm.zeta_star))
        fail_msg("full map zeta- %.15g, zeta* %.15g", zeta - rm.v_minus, rm.zeta_star);
    /* the step the design asked for: 0.4 m at 0.6 m/s (the script's own
     * quadrature of the period, to its trapezoid's accuracy) */
    assert_close(r.gait.metrics.step_length, 0.4, 1e-9);
    assert_close(r.gait.metrics.speed, 0.6, 1e-3);

    double values[SM_MAX_EXTRA];
    assert_true(sm_gait_extra_measures(ws, p, &r.gait, values));
    int torques = 0;
    for (size_t i = 0; i < m->n_extra; i++) {
        const char *name = m->extra_names[i];
        if (strcmp(name, "min_normal_force") == 0) assert_true(values[i] > 0);
        if (strcmp(name, "max_friction_ratio") == 0) assert_true(values[i] > 0 && values[i] < 1);
        if (strcmp(name, "min_normal_impulse") == 0) assert_true(values[i] > 0);
        if (strstr(name, ".max_torque")) {
            assert_true(values[i] > 0 && isfinite(values[i]));
            torques++;
        }
    }
    assert_int_equal(torques, 4);
    print_message("five_link gait: multiplier %.10g, delta^2 %.10g; zeta+ %.12g vs %.12g\n", r.eig_re[0],
                  rm.multiplier, zeta, rm.zeta_plus);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

static void test_cli_fixed(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", src_path(MODEL), "--json", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"stable\": true"));
    assert_non_null(strstr(r->out, "\"restricted_map\""));
    assert_non_null(strstr(r->out, "\"hip_a.max_torque\""));
    assert_non_null(strstr(r->out, "\"knee_b.max_torque\""));
    assert_non_null(strstr(r->out, "\"max_friction_ratio\""));
    assert_non_null(strstr(r->out, "\"method_from\": \"controller\""));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDEMAP_BINARY\n", argv[0]);
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamics_is_seed_004),
        cmocka_unit_test(test_impact_is_the_momentum_jump),
        cmocka_unit_test(test_outputs_stay_zero_on_the_zero_dynamics),
        cmocka_unit_test(test_energy_and_the_torques_work),
        cmocka_unit_test(test_gait_is_the_restricted_maps),
        cmocka_unit_test(test_cli_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
