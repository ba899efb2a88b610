/* Inverse dynamics by actuators that act on several coordinates (issue 15,
 * item 2): models/five_link.yaml, the five-link biped under its
 * input-output linearising controller, whose hips act between thigh and
 * torso (hip_a on {thigh_a: 1, torso: -1}: the thighs and the torso are all
 * hinged on the hip, so no hip moment is a single coordinate's), one step
 * of its gait from the file's guess.
 *
 * - With the exact accelerations of the model's own right-hand side the
 *   inverse's moments, looked up by their names among the samples
 *   (ACTUATOR.torque), are the controller's to 1e-8 N m, and the residual is
 *   at round-off: single support on a point foot has 5 degrees of freedom
 *   and 4 actuators, and the motion is one the actuators made.
 * - The residual of a motion the actuators cannot make: add to those
 *   accelerations α y, y the whole walker turning rigidly about its stance
 *   foot at unit rate (torso and thighs at rate 1, knees still, the hip
 *   along (r_z, -r_x), r = hip - foot).  No actuator works along y (Bᵀy = 0:
 *   hip = thigh - torso, knees) and the pinned foot does not move (J y = 0),
 *   so the generalized force α M y is unmet by any choice of moments and
 *   contact force; the residual √(rᵀM⁻¹r) is then |yᵀ α M y| / √(yᵀ M y) =
 *   |α| √(I_foot), I_foot = Σ I_i + m_i |c_i - foot|², the body's moment of
 *   inertia about the foot, computed here from the file's segments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src_path.h"
#include "stridemap/inverse.h"
#include "stridemap/registry.h"
#include "test_util.h"

#define NQ 7 /* hip_x, hip_z, torso, thigh_a, shank_a, thigh_b, shank_b */

#define WALK_LOG_ROWS 1000
#define WALK_LOG_NX (2 * NQ) /* the state: coordinates and rates */
#include "walk_log.h"
#include "name_index.h"

static double pv(const sm_model *m, const double *p, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    return p[i];
}

/* A point d along a segment at absolute angle th (turned about +y, its
 * length down -z): its offset (x, z). */
static void along(double th, double d, double *o)
{
    o[0] = -d * sin(th);
    o[1] = -d * cos(th);
}

/* y (the rigid turn about the stance foot a) and I_foot at the pose q. */
static void rigid_turn(const sm_model *m, const double *p, const double *q, double *y, double *inertia)
{
    const double L1 = pv(m, p, "femur_length"), L2 = pv(m, p, "tibia_length");
    const double hip[2] = {q[0], q[1]};
    double knee[2][2], foot[2][2], o[2];
    for (int s = 0; s < 2; s++) {
        const double A = q[3 + 2 * s], S = q[4 + 2 * s];
        along(A, L1, o);
        knee[s][0] = hip[0] + o[0], knee[s][1] = hip[1] + o[1];
        along(A + S, L2, o);
        foot[s][0] = knee[s][0] + o[0], foot[s][1] = knee[s][1] + o[1];
    }
    const double *fa = foot[0];
    const double r[2] = {hip[0] - fa[0], hip[1] - fa[1]};
    const double yy[NQ] = {r[1], -r[0], 1, 1, 0, 1, 0};
    memcpy(y, yy, sizeof yy);
    /* centres of mass: torso above the hip (com +z), thighs and shanks below */
    double c[5][2], mass[5], I[5];
    along(q[2], -pv(m, p, "torso_com"), o);
    c[0][0] = hip[0] + o[0], c[0][1] = hip[1] + o[1];
    mass[0] = pv(m, p, "torso_mass"), I[0] = pv(m, p, "torso_inertia");
    for (int s = 0; s < 2; s++) {
        const double A = q[3 + 2 * s], S = q[4 + 2 * s];
        along(A, pv(m, p, "femur_com"), o);
        c[1 + 2 * s][0] = hip[0] + o[0], c[1 + 2 * s][1] = hip[1] + o[1];
        mass[1 + 2 * s] = pv(m, p, "femur_mass"), I[1 + 2 * s] = pv(m, p, "femur_inertia");
        along(A + S, pv(m, p, "tibia_com"), o);
        c[2 + 2 * s][0] = knee[s][0] + o[0], c[2 + 2 * s][1] = knee[s][1] + o[1];
        mass[2 + 2 * s] = pv(m, p, "tibia_mass"), I[2 + 2 * s] = pv(m, p, "tibia_inertia");
    }
    *inertia = 0;
    for (int k = 0; k < 5; k++) {
        const double dx = c[k][0] - fa[0], dz = c[k][1] - fa[1];
        *inertia += I[k] + mass[k] * (dx * dx + dz * dz);
    }
}

static void test_hips_between_thigh_and_torso(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(src_path("models/five_link.yaml"), &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    assert_int_equal(m->n_state, 2 * NQ);
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    sm_inverse *inv = NULL;
    assert_status(sm_inverse_create(m, &o, &inv, why, sizeof why), SM_OK);
    assert_true(sm_inverse_by_actuator(inv));
    assert_int_equal(sm_inverse_nq(inv), NQ);
    const size_t nt = sm_inverse_n_torques(inv);
    assert_int_equal(nt, 4);
    assert_string_equal(sm_inverse_torque_name(inv, 0), "hip_a.torque");
    assert_string_equal(sm_inverse_q_name(inv, 2), "torso");
    assert_string_equal(sm_inverse_q_name(inv, 6), "shank_b");

    static walk_log w;
    walk_log_step(m, p, 1e-11, 0.005, &w);
    assert_true(w.n > 50);

    const double alpha = 1.0;
    double worst_u = 0, scale = 0, worst_res = 0, worst_rel = 0, lo = INFINITY, hi = 0;
    for (size_t i = 0; i < w.n; i++) {
        const size_t ph = w.phase[i];
        double xd[SM_MAX_STATE], u[8], F[16], res, s[SM_MAX_SAMPLE], y[NQ], I_foot;
        assert_int_equal(m->phases[ph].rhs(w.t[i], w.x[i], xd, p, m->data), 0);
        assert_status(sm_inverse_solve(inv, p, ph, w.x[i], w.x[i] + NQ, xd + NQ, u, F, &res), SM_OK);
        assert_int_equal(m->sample(w.t[i], ph, w.x[i], p, m->data, s), 0);
        for (size_t k = 0; k < nt; k++) {
            const double ctl = s[sample_index(m, sm_inverse_torque_name(inv, k))];
            worst_u = fmax(worst_u, fabs(u[k] - ctl));
            scale = fmax(scale, fabs(ctl));
        }
        worst_res = fmax(worst_res, res);
        rigid_turn(m, p, w.x[i], y, &I_foot);
        double a[NQ];
        for (size_t k = 0; k < NQ; k++) a[k] = xd[NQ + k] + alpha * y[k];
        assert_status(sm_inverse_solve(inv, p, ph, w.x[i], w.x[i] + NQ, a, u, F, &res), SM_OK);
        const double want = fabs(alpha) * sqrt(I_foot);
        worst_rel = fmax(worst_rel, fabs(res - want) / want);
        lo = fmin(lo, want), hi = fmax(hi, want);
    }
    print_message("five_link, %zu samples: moments within %.3g N m of the controller's (largest %.3g), residual "
                  "%.3g; a rigid turn about the foot: residual |alpha| sqrt(I_foot) (%.4g to %.4g) to %.3g\n",
                  w.n, worst_u, scale, worst_res, lo, hi, worst_rel);
    assert_true(scale > 1);
    assert_true(worst_u <= 1e-8);
    assert_true(worst_res <= 1e-9);
    assert_true(worst_rel <= 1e-9);
    sm_inverse_free(inv);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hips_between_thigh_and_torso),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
