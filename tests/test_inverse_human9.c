/* Inverse dynamics of a controlled walk (issue 15, item 2): models/human9.yaml,
 * the nine-segment human under its time-indexed PD controller with
 * feedforward, one step of its periodic gait from the file's guess.
 *
 * The controller's torques (the model's per-sample measures, ACTUATOR.torque)
 * and its contact forces (CONTACT.fx, .fz, a lock's .torque) are what drove
 * the walk; the inverse dynamics sees the motion alone, and names its
 * moments by the file's actuators as the samples do, so that each is looked
 * up by its own name.  With the exact accelerations of the model's own
 * right-hand side:
 * - single support (ss1: 8 actuators, 8 degrees of freedom besides the
 *   clock) determines the moments: each actuator's must equal the
 *   controller's (tau0 among them, one generalized force on hat..toe_a) and
 *   the contact forces the simulation's, to 1e-8;
 * - double support leaves the moments free (ds1 by two, ds_flat by three):
 *   the equations are met (residual at round-off) by moments no larger than
 *   the controller's (the least-norm choice), and the total ground force,
 *   which Newton's law for the whole body fixes whatever the moments, equals
 *   the simulation's to 1e-8.
 * The clock (a slide of its own, rate 1 on the gait) has no moment: its
 * equation holds because its drive and damper cancel at rate 1, which the
 * residual checks too; sm_inverse_clock finds it.
 *
 * The moments by coordinate (by_coordinate: each joint's, and tau0 as the
 * stance toe's rotational Jacobian, not the file's `on:` list) are a second
 * derivation: joint by joint the same as the actuators' in every phase.
 *
 * The round trip by name: the forward simulation driven by the columns
 * named as the inverse names its moments, taken once from the walk's
 * samples (the controller's torques) and once from the inverse, retraces
 * the walk's single support. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src_path.h"
#include "stridemap/inverse.h"
#include "stridemap/registry.h"
#include "test_util.h"

#define NX 24 /* 12 coordinates and their rates */

#define WALK_LOG_ROWS 1500
#define WALK_LOG_NX (NX)
#include "walk_log.h"
#include "name_index.h"

/* One step of the file's gait sampled every dt, at the file's parameters. */
static walk_log w;
static double p[SM_MAX_PARAMS];

static const sm_model *human9_step(double dt)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(src_path("models/human9.yaml"), &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    sm_model_default_params(m, p);
    assert_int_equal(m->n_state, NX);
    walk_log_step(m, p, 1e-11, dt, &w);
    return m;
}

static sm_inverse *open_inverse(const sm_model *m, bool by_coordinate)
{
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    o.by_coordinate = by_coordinate;
    sm_inverse *inv = NULL;
    char why[1024] = "";
    assert_status(sm_inverse_create(m, &o, &inv, why, sizeof why), SM_OK);
    assert_true(sm_inverse_by_actuator(inv) == !by_coordinate);
    return inv;
}

static void test_inverse_returns_the_controller(void **state)
{
    (void)state;
    const sm_model *m = human9_step(0.002);
    sm_inverse *inv = open_inverse(m, false);
    const size_t nq = sm_inverse_nq(inv), nt = sm_inverse_n_torques(inv), nf = sm_inverse_n_forces(inv);
    assert_int_equal(nq, 12);
    assert_int_equal(nt, 8); /* the file's 8 actuators, named as the samples name them */
    assert_string_equal(sm_inverse_torque_name(inv, 0), "hip_a.torque");
    assert_string_equal(sm_inverse_torque_name(inv, 7), "tau0.torque");
    assert_int_equal(sm_inverse_clock(inv), 11);
    assert_string_equal(sm_inverse_q_name(inv, 11), "clock");

    double worst_tau = 0, worst_F = 0, worst_total = 0, worst_res = 0;
    size_t seen[3] = {0};
    for (size_t i = 0; i < w.n; i++) {
        const size_t ph = w.phase[i];
        const char *name = m->phases[ph].name;
        double xd[NX], tau[16], F[64], res, s[SM_MAX_SAMPLE];
        assert_int_equal(m->phases[ph].rhs(w.t[i], w.x[i], xd, p, m->data), 0);
        assert_status(sm_inverse_solve(inv, p, ph, w.x[i], w.x[i] + nq, xd + nq, tau, F, &res), SM_OK);
        assert_int_equal(m->sample(w.t[i], ph, w.x[i], p, m->data, s), 0);
        worst_res = fmax(worst_res, res);
        double total[2] = {0, 0}, want_total[2] = {0, 0};
        for (size_t k = 0; k < nf; k++) {
            const char *fn = sm_inverse_force_name(inv, k);
            const double sim = s[sample_index(m, fn)];
            const double want = isnan(sim) ? 0.0 : sim; /* a contact the phase does not hold */
            const size_t len = strlen(fn);
            if (strcmp(fn + len - 3, ".fx") == 0 || strcmp(fn + len - 3, ".fz") == 0) {
                const int c = fn[len - 1] == 'x' ? 0 : 1;
                total[c] += F[k];
                want_total[c] += want;
            }
            if (strcmp(name, "ss1") == 0) worst_F = fmax(worst_F, fabs(F[k] - want));
        }
        for (int c = 0; c < 2; c++) worst_total = fmax(worst_total, fabs(total[c] - want_total[c]));
        double n_inv = 0, n_ctl = 0;
        for (size_t k = 0; k < nt; k++) {
            const double mine = tau[k], ctl = s[sample_index(m, sm_inverse_torque_name(inv, k))];
            if (strcmp(name, "ss1") == 0) worst_tau = fmax(worst_tau, fabs(mine - ctl));
            n_ctl += ctl * ctl;
            n_inv += mine * mine;
        }
        if (strcmp(name, "ss1") == 0) {
            seen[0]++;
        } else {
            assert_true(n_inv <= n_ctl * (1 + 1e-12));
            seen[strcmp(name, "ds1") == 0 ? 1 : 2]++;
        }
    }
    print_message("human9, one step (%zu samples: %zu ss1, %zu ds1, %zu ds_flat): moments within %.3g N m and "
                  "forces within %.3g N of the controller's in ss1, total ground force within %.3g N, residual "
                  "%.3g\n",
                  w.n, seen[0], seen[1], seen[2], worst_tau, worst_F, worst_total, worst_res);
    assert_true(seen[0] > 100 && seen[1] > 10 && seen[2] > 10);
    assert_true(worst_tau <= 1e-8);
    assert_true(worst_F <= 1e-8);
    assert_true(worst_total <= 1e-8);
    assert_true(worst_res <= 1e-9);
    sm_inverse_free(inv);
    sm_registry_close(m);
}

/* each joint's moment by coordinate and the actuator that drives it */
static const char *const pairs[][2] = {
    {"thigh_a.torque", "hip_a.torque"},  {"thigh_b.torque", "hip_b.torque"},  {"shank_a.torque", "knee_a.torque"},
    {"shank_b.torque", "knee_b.torque"}, {"foot_a.torque", "ankle_a.torque"}, {"foot_b.torque", "ankle_b.torque"},
    {"toe_a.torque", "toe_a.torque"},    {"tau0", "tau0.torque"}};

static void test_by_coordinate_agrees(void **state)
{
    (void)state;
    const sm_model *m = human9_step(0.002);
    sm_inverse *act = open_inverse(m, false), *crd = open_inverse(m, true);
    const size_t nq = sm_inverse_nq(act);
    assert_int_equal(sm_inverse_n_torques(crd), 9); /* 8 joints (toe_b locked throughout) and tau0 */
    double worst = 0, scale = 0;
    for (size_t i = 0; i < w.n; i++) {
        const size_t ph = w.phase[i];
        double xd[NX], ta[16], tc[16], F[64], ra, rc;
        assert_int_equal(m->phases[ph].rhs(w.t[i], w.x[i], xd, p, m->data), 0);
        assert_status(sm_inverse_solve(act, p, ph, w.x[i], w.x[i] + nq, xd + nq, ta, F, &ra), SM_OK);
        assert_status(sm_inverse_solve(crd, p, ph, w.x[i], w.x[i] + nq, xd + nq, tc, F, &rc), SM_OK);
        assert_true(tc[tau_index(crd, "toe_b.torque")] == 0.0); /* locked: the lock's reaction */
        for (size_t j = 0; j < sizeof pairs / sizeof pairs[0]; j++) {
            const double a = ta[tau_index(act, pairs[j][1])], c = tc[tau_index(crd, pairs[j][0])];
            worst = fmax(worst, fabs(a - c));
            scale = fmax(scale, fabs(a));
        }
        assert_true(fabs(ra - rc) <= 1e-9);
    }
    print_message("human9, %zu samples: moments by coordinate within %.3g N m of the actuators' (largest %.3g)\n",
                  w.n, worst, scale);
    assert_true(scale > 100);
    assert_true(worst <= 1e-8);
    sm_inverse_free(act);
    sm_inverse_free(crd);
    sm_registry_close(m);
}

/* Single support from i0 for n samples retraced from the walk's state at
 * i0 by the forward simulation driven by a table of moments (row i - i0 at
 * sample i) by the inverse's names: the worst coordinate misfit. */
static double retrace(const sm_inverse *inv, const double *tab, size_t i0, size_t n)
{
    const size_t nq = sm_inverse_nq(inv), ns = 2 * nq;
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.rtol = so.atol = 1e-11;
    static double x[WALK_LOG_ROWS * NX];
    size_t done = 0;
    assert_status(sm_inverse_playback(inv, p, &so, w.phase[i0], n, w.t + i0, tab, w.x[i0], x, &done), SM_OK);
    assert_int_equal(done, n);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nq; k++) worst = fmax(worst, fabs(x[i * ns + k] - w.x[i0 + i][k]));
    return worst;
}

/* Just after toe-off the swing ankle's PD settles in about a millisecond
 * (its torque goes from -33 to -2 N m in 1.2 ms), faster than a table of
 * samples can follow; the round trip starts after it, 30 ms in, on samples
 * 0.5 ms apart.  Retraced within 1.0e-5 rad at 1 ms, 1.7e-6 at 0.5 ms (the
 * moments' spline between samples), the same from either table. */
static void test_round_trip_by_name(void **state)
{
    (void)state;
    const sm_model *m = human9_step(0.0005);
    sm_inverse *inv = open_inverse(m, false);
    const size_t nq = sm_inverse_nq(inv), nt = sm_inverse_n_torques(inv);
    const size_t ss1 = (size_t)sm_inverse_phase_index(inv, "ss1");
    size_t i0 = 0, n = 0;
    while (i0 < w.n && w.t[i0] < 0.03) i0++;
    while (i0 + n < w.n && w.phase[i0 + n] == ss1 && w.t[i0 + n] - w.t[i0] <= 0.15 + 1e-9) n++;
    assert_true(n >= 300);
    static double ctl[WALK_LOG_ROWS * 8], mine[WALK_LOG_ROWS * 8];
    for (size_t i = 0; i < n; i++) {
        const double *x = w.x[i0 + i], t = w.t[i0 + i];
        double xd[NX], s[SM_MAX_SAMPLE], F[64], res;
        assert_int_equal(m->sample(t, ss1, x, p, m->data, s), 0);
        for (size_t k = 0; k < nt; k++) ctl[i * nt + k] = s[sample_index(m, sm_inverse_torque_name(inv, k))];
        assert_int_equal(m->phases[ss1].rhs(t, x, xd, p, m->data), 0);
        assert_status(sm_inverse_solve(inv, p, ss1, x, x + nq, xd + nq, mine + i * nt, F, &res), SM_OK);
    }
    const double d_ctl = retrace(inv, ctl, i0, n), d_mine = retrace(inv, mine, i0, n);
    print_message("human9 ss1, %zu samples over %.3g s retraced: within %.3g driven by the controller's torques, "
                  "%.3g by the inverse's\n",
                  n, w.t[i0 + n - 1] - w.t[i0], d_ctl, d_mine);
    assert_true(d_ctl < 3e-6);
    assert_true(fabs(d_mine - d_ctl) < 1e-9);
    sm_inverse_free(inv);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inverse_returns_the_controller),
        cmocka_unit_test(test_by_coordinate_agrees),
        cmocka_unit_test(test_round_trip_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
