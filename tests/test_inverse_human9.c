/* Inverse dynamics of a controlled walk (issue 15, item 2): models/human9.yaml,
 * the nine-segment human under its time-indexed PD controller with
 * feedforward, one step of its periodic gait from the file's guess.
 *
 * The controller's torques (the model's per-sample measures, ACTUATOR.torque)
 * and its contact forces (CONTACT.fx, .fz, a lock's .torque) are what drove
 * the walk; the inverse dynamics sees the motion alone.  With the exact
 * accelerations of the model's own right-hand side:
 * - single support (ss1: 8 moments, 8 degrees of freedom besides the clock)
 *   determines the moments: each joint's must equal its actuator's (hip_a
 *   on thigh_a, knee_a on shank_a, ankle_a on foot_a, toe_a; the swing
 *   leg's; tau0, the same generalized force on hat..toe_a) and the contact
 *   forces the simulation's, to 1e-8;
 * - double support leaves the moments free (ds1 by two, ds_flat by three):
 *   the equations are met (residual at round-off) by moments no larger than
 *   the controller's (the least-norm choice), and the total ground force,
 *   which Newton's law for the whole body fixes whatever the moments, equals
 *   the simulation's to 1e-8.
 * The clock (a slide of its own, rate 1 on the gait) has no moment: its
 * equation holds because its drive and damper cancel at rate 1, which the
 * residual checks too; sm_inverse_clock finds it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src_path.h"
#include "stridemap/inverse.h"
#include "stridemap/registry.h"
#include "test_util.h"

#define NX 24 /* 12 coordinates and their rates */

#define WALK_LOG_ROWS 1000
#define WALK_LOG_NX (NX)
#include "walk_log.h"

static int sample_index(const sm_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_sample; i++)
        if (strcmp(m->sample_names[i], name) == 0) return (int)i;
    fail_msg("no sample column %s", name);
    return -1;
}

static int tau_index(const sm_inverse *inv, const char *name)
{
    for (size_t k = 0; k < sm_inverse_n_torques(inv); k++)
        if (strcmp(sm_inverse_torque_name(inv, k), name) == 0) return (int)k;
    fail_msg("no moment %s", name);
    return -1;
}

/* each joint's moment and the actuator that drives it */
static const char *const pairs[][2] = {
    {"thigh_a.torque", "hip_a.torque"},   {"thigh_b.torque", "hip_b.torque"},   {"shank_a.torque", "knee_a.torque"},
    {"shank_b.torque", "knee_b.torque"},  {"foot_a.torque", "ankle_a.torque"},  {"foot_b.torque", "ankle_b.torque"},
    {"toe_a.torque", "toe_a.torque"},     {"tau0", "tau0.torque"}};

static void test_inverse_returns_the_controller(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(src_path("models/human9.yaml"), &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    assert_int_equal(m->n_state, NX);
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    sm_inverse *inv = NULL;
    assert_status(sm_inverse_create(m, &o, &inv, why, sizeof why), SM_OK);
    const size_t nq = sm_inverse_nq(inv), nt = sm_inverse_n_torques(inv), nf = sm_inverse_n_forces(inv);
    assert_int_equal(nq, 12);
    assert_int_equal(nt, 9); /* 8 joints (toe_b locked throughout) and tau0 */
    assert_int_equal(sm_inverse_clock(inv), 11);
    assert_string_equal(sm_inverse_q_name(inv, 11), "clock");

    sm_workspace *ws = NULL;
    sm_solver_options so;
    sm_solver_options_default(&so);
    assert_status(sm_workspace_create(m, &so, &ws), SM_OK);
    static walk_log w;
    w.n = 0;
    const sm_observer obs = {.dt = 0.002, .sample = walk_log_sample, .ctx = &w};
    m->guess(x, p, m->data);
    long done = 0;
    assert_status(sm_walk(ws, p, x, 1, &obs, NULL, NULL, &done), SM_OK);
    sm_workspace_free(ws);

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
        for (size_t j = 0; j < sizeof pairs / sizeof pairs[0]; j++) {
            const double mine = tau[tau_index(inv, pairs[j][0])], ctl = s[sample_index(m, pairs[j][1])];
            if (strcmp(name, "ss1") == 0) worst_tau = fmax(worst_tau, fabs(mine - ctl));
            n_ctl += ctl * ctl;
        }
        for (size_t k = 0; k < nt; k++) n_inv += tau[k] * tau[k];
        if (strcmp(name, "ss1") == 0) {
            assert_true(fabs(tau[tau_index(inv, "toe_b.torque")]) == 0.0); /* locked: the lock's reaction */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inverse_returns_the_controller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
