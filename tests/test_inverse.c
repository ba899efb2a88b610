/* Inverse dynamics and its round trip (stridemap/inverse.h, seed 002 and
 * issue 15), on models/human_hu9.yaml.
 *
 * - The differentiator: exact on a quartic at uneven samples; its error
 *   falls as h^3 (second derivative) and h^4 (first) on a sine.
 * - Inverse of a forward simulation: the model file's walk is driven by its
 *   springs and dampers, whose moments are known in closed form from the
 *   file's parameters (hips, knees, ankles, the stance toe joint, and tau0,
 *   a spring on the stance toe's absolute angle).  At states along the
 *   walk, with the exact accelerations of the model's own right-hand side,
 *   the inverse dynamics must return those moments to 1e-8 where the phase
 *   determines them (ss1, and ss2 with its friction law, a sliding toe made
 *   by a backward boost of the whole walker, and ds2, the hind toe sliding
 *   back and the front heel forward, made by the least change of the rates);
 *   where double support leaves them free (ds1, ds3, ds_flat3, and ds_flat,
 *   the walk's ds_flat3 states with the hind toe held) it must meet the equations (residual at
 *   round-off) with moments no larger than the springs' (its least-norm
 *   choice).
 * - The round trip at g = 0: moments -> forward simulation (data) ->
 *   differentiator and inverse -> forward simulation again, which follows
 *   the data to the integration tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body_model.h"
#include "src_path.h"
#include "stridemap/inverse.h"
#include "stridemap/registry.h"
#include "test_util.h"
#include "name_index.h"

static const sm_model *open_hu9(void)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(src_path("models/human_hu9.yaml"), &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    return m;
}

static double pv(const sm_model *m, const double *p, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    return p[i];
}

static int qi(const sm_inverse *inv, const char *name)
{
    for (size_t i = 0; i < sm_inverse_nq(inv); i++)
        if (strcmp(sm_inverse_q_name(inv, i), name) == 0) return (int)i;
    fail_msg("no coordinate %s", name);
    return -1;
}

/* ---- the differentiator ------------------------------------------------ */

static void test_differentiator_exact_on_quartic(void **state)
{
    (void)state;
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    enum { N = 30 };
    double t[N], y[N], dy[N], ddy[N];
    for (int i = 0; i < N; i++) {
        t[i] = 0.01 * i + 0.003 * sin(1.7 * i); /* uneven, increasing */
        const double s = t[i];
        y[i] = 1 + 2 * s - 3 * s * s + 0.5 * s * s * s - 0.7 * s * s * s * s;
    }
    assert_status(sm_inverse_differentiate(&o, N, t, y, 1, dy, ddy), SM_OK);
    for (int i = 0; i < N; i++) {
        const double s = t[i];
        assert_close(dy[i], 2 - 6 * s + 1.5 * s * s - 2.8 * s * s * s, 1e-9);
        assert_close(ddy[i], -6 + 3 * s - 8.4 * s * s, 1e-7);
    }
}

static void max_errors(int n, double *e1, double *e2)
{
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    double t[200], y[200], dy[200], ddy[200];
    for (int i = 0; i < n; i++) {
        t[i] = (double)i / (n - 1);
        y[i] = sin(3 * t[i]);
    }
    assert_status(sm_inverse_differentiate(&o, (size_t)n, t, y, 1, dy, ddy), SM_OK);
    *e1 = *e2 = 0;
    for (int i = 0; i < n; i++) {
        *e1 = fmax(*e1, fabs(dy[i] - 3 * cos(3 * t[i])));
        *e2 = fmax(*e2, fabs(ddy[i] + 9 * sin(3 * t[i])));
    }
}

static void test_differentiator_order(void **state)
{
    (void)state;
    double a1, a2, b1, b2;
    max_errors(41, &a1, &a2);
    max_errors(81, &b1, &b2);
    /* degree 4: O(h^4) and O(h^3) at the ends, where the window is one-sided */
    assert_true(a1 / b1 > 0.8 * 16);
    assert_true(a2 / b2 > 0.8 * 8);
}

static void test_differentiator_refuses(void **state)
{
    (void)state;
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    double t[7] = {0, 1, 2, 3, 4, 5, 6}, y[7] = {0}, d[7];
    assert_status(sm_inverse_differentiate(&o, 6, t, y, 1, d, d), SM_BAD_DATA);
    t[3] = 2;
    assert_status(sm_inverse_differentiate(&o, 7, t, y, 1, d, d), SM_BAD_DATA);
    char why[200];
    o.degree = 1;
    assert_status(sm_inverse_options_check(&o, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_inverse_options.degree"));
}

/* ---- inverse of the model file's own walk ---------------------------------- */

#define WALK_LOG_ROWS 4000
#define WALK_LOG_NX (2 * 11)
#include "walk_log.h"

/* The springs' moments of models/human_hu9.yaml at x in the inverse's order. */
static void spring_moments(const sm_model *m, const double *p, const sm_inverse *inv, const double *x, double *tau)
{
    const size_t nq = sm_inverse_nq(inv);
    const double *q = x, *v = x + nq;
#define SPRING(joint, k, c, rest)                                                                         \
    tau[tau_index(inv, joint ".torque")] =                                                                \
        -(pv(m, p, k) * (q[qi(inv, joint)] - (rest)) + pv(m, p, c) * v[qi(inv, joint)])
    SPRING("thigh_a", "hip_stiffness", "hip_damping", 0);
    SPRING("thigh_b", "swing_hip_stiffness", "swing_hip_damping", pv(m, p, "swing_hip_rest"));
    SPRING("shank_a", "knee_stiffness", "knee_damping", 0);
    SPRING("shank_b", "swing_knee_stiffness", "swing_knee_damping", 0);
    SPRING("foot_a", "ankle_stiffness", "ankle_damping", 0);
    SPRING("foot_b", "swing_ankle_stiffness", "swing_ankle_damping", 0);
    SPRING("toe_a", "toe_stiffness", "toe_damping", 0);
#undef SPRING
    tau[tau_index(inv, "toe_b.torque")] = 0; /* locked in every phase: the lock's reaction */
    const char *chain[] = {"hat", "thigh_a", "shank_a", "foot_a", "toe_a"};
    double s = 0, sd = 0;
    for (int i = 0; i < 5; i++) {
        s += q[qi(inv, chain[i])];
        sd += v[qi(inv, chain[i])];
    }
    tau[tau_index(inv, "tau0")] = -(pv(m, p, "tau0_stiffness") * s + pv(m, p, "tau0_damping") * sd);
}

static void check_state(const sm_model *m, const double *p, const sm_inverse *inv, size_t ph, const double *x,
                        double *worst_square, double *worst_free_residual, bool *seen)
{
    const size_t nq = sm_inverse_nq(inv), nt = sm_inverse_n_torques(inv);
    double xd[2 * 11], tau[16], want[16], F[64], res;
    assert_int_equal(m->phases[ph].rhs(0.0, x, xd, p, m->data), 0);
    assert_status(sm_inverse_solve(inv, p, ph, x, x + nq, xd + nq, tau, F, &res), SM_OK);
    spring_moments(m, p, inv, x, want);
    const char *name = m->phases[ph].name;
    const bool square = strcmp(name, "ss1") == 0 || strcmp(name, "ss2") == 0 || strcmp(name, "ds2") == 0;
    if (square) {
        for (size_t k = 0; k < nt; k++) *worst_square = fmax(*worst_square, fabs(tau[k] - want[k]));
    } else {
        /* the springs' moments are one solution; the least-norm one is no larger */
        double n1 = 0, n2 = 0;
        for (size_t k = 0; k < nt; k++) {
            n1 += tau[k] * tau[k];
            n2 += want[k] * want[k];
        }
        assert_true(n1 <= n2 * (1 + 1e-12));
    }
    *worst_free_residual = fmax(*worst_free_residual, res);
    *seen = true;
}

/* y = x with the rates changed least (in Σ δv²) so that the hind toe tip
 * slides at vt and the front heel at vh along x, both on the ground, the
 * front toe still locked: a double support state of ds2 (vt < 0 < vh) or
 * ds3 (vh = 0); with flat, the front toe tip also held on the ground: ds_flat
 * (vt = vh = 0) or ds_flat3 (vt < 0 = vh). */
static void slide_feet(const sm_model *m, const double *x, double vt, double vh, bool flat, double *y)
{
    const sm_rigid_model *rm = body_model_rigid(m);
    assert_non_null(rm);
    const size_t nv = sm_rigid_nv(rm), nq = sm_rigid_nq(rm);
    sm_rigid_data *d = sm_rigid_data_create(rm);
    assert_status(sm_rigid_forward(rm, d, x, x + nq), SM_OK);
    double A[6][11] = {{0}}, jac[3 * 11], b[6];
    const int n = flat ? 6 : 5;
    sm_rigid_site_jac(rm, d, (size_t)sm_rigid_site_index(rm, "tip_a"), jac, NULL);
    memcpy(A[0], jac, nv * sizeof *jac);          /* x */
    memcpy(A[1], jac + 2 * nv, nv * sizeof *jac); /* z */
    sm_rigid_site_jac(rm, d, (size_t)sm_rigid_site_index(rm, "heel_b"), jac, NULL);
    memcpy(A[2], jac, nv * sizeof *jac);
    memcpy(A[3], jac + 2 * nv, nv * sizeof *jac);
    A[4][sm_rigid_body_vadr(rm, (size_t)sm_rigid_body_index(rm, "toe_b"))] = 1;
    sm_rigid_site_jac(rm, d, (size_t)sm_rigid_site_index(rm, "tip_b"), jac, NULL);
    memcpy(A[5], jac + 2 * nv, nv * sizeof *jac);
    const double want[6] = {vt, 0, vh, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        b[i] = want[i];
        for (size_t k = 0; k < nv; k++) b[i] -= A[i][k] * x[nq + k];
    }
    /* δv = Aᵀ (A Aᵀ)⁻¹ b, by Gauss-Jordan on the n x n */
    double G[6][7];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            G[i][j] = 0;
            for (size_t k = 0; k < nv; k++) G[i][j] += A[i][k] * A[j][k];
        }
        G[i][n] = b[i];
    }
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(G[r][c]) > fabs(G[p][c])) p = r;
        for (int j = 0; j <= n; j++) {
            const double t = G[c][j];
            G[c][j] = G[p][j];
            G[p][j] = t;
        }
        for (int r = 0; r < n; r++) {
            if (r == c) continue;
            const double f = G[r][c] / G[c][c];
            for (int j = c; j <= n; j++) G[r][j] -= f * G[c][j];
        }
    }
    memcpy(y, x, (nq + nv) * sizeof *y);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < nv; k++) y[nq + k] += A[i][k] * G[i][n] / G[i][i];
    sm_rigid_data_free(d);
}

static void test_inverse_returns_the_springs(void **state)
{
    (void)state;
    const sm_model *m = open_hu9();
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    sm_inverse *inv = NULL;
    char why[256];
    assert_status(sm_inverse_create(m, &o, &inv, why, sizeof why), SM_OK);
    assert_int_equal(sm_inverse_nq(inv), 11);
    assert_int_equal(sm_inverse_n_torques(inv), 9); /* 8 joints and tau0 */
    assert_int_equal(sm_inverse_clock(inv), -1); /* no controller, no clock */

    static walk_log w;
    walk_log_step(m, p, 0, 0.002, &w);

    double worst = 0, resid = 0;
    bool seen[8] = {false};
    const int ss2 = sm_inverse_phase_index(inv, "ss2"), ds2 = sm_inverse_phase_index(inv, "ds2"),
              ds3 = sm_inverse_phase_index(inv, "ds3"), ds_flat = sm_inverse_phase_index(inv, "ds_flat");
    for (size_t i = 0; i < w.n; i++) {
        check_state(m, p, inv, w.phase[i], w.x[i], &worst, &resid, &seen[w.phase[i]]);
        if (strcmp(m->phases[w.phase[i]].name, "ss1") == 0) {
            /* the same state with the whole walker moving back: the toe slides */
            double y[2 * 11];
            memcpy(y, w.x[i], sizeof y);
            y[11 + qi(inv, "hat.x")] -= 0.05;
            check_state(m, p, inv, (size_t)ss2, y, &worst, &resid, &seen[ss2]);
        }
        if (strcmp(m->phases[w.phase[i]].name, "ds1") == 0) {
            /* the hind toe sliding back, the front heel forward or held */
            double y[2 * 11];
            slide_feet(m, w.x[i], -0.03, 0.02, false, y);
            check_state(m, p, inv, (size_t)ds2, y, &worst, &resid, &seen[ds2]);
            slide_feet(m, w.x[i], -0.03, 0.0, false, y);
            check_state(m, p, inv, (size_t)ds3, y, &worst, &resid, &seen[ds3]);
        }
        if (strcmp(m->phases[w.phase[i]].name, "ds_flat3") == 0) {
            /* the walk slips at once at foot-flat: ds_flat's states are ds_flat3's with the hind toe held */
            double y[2 * 11];
            slide_feet(m, w.x[i], 0.0, 0.0, true, y);
            check_state(m, p, inv, (size_t)ds_flat, y, &worst, &resid, &seen[ds_flat]);
        }
    }
    print_message("inverse of the walk: %zu samples, moments within %.3g N m, residual %.3g\n", w.n, worst, resid);
    assert_true(worst <= 1e-8);
    assert_true(resid <= 1e-9);
    for (const char *const *ph = (const char *const[]){"ss1", "ss2", "ds1", "ds2", "ds3", "ds_flat", "ds_flat3", NULL};
         *ph; ph++)
        assert_true(seen[sm_inverse_phase_index(inv, *ph)]);
    sm_inverse_free(inv);
    sm_registry_close(m);
}

/* ---- the round trip at g = 0 ------------------------------------------------ */

static void test_round_trip_without_gravity(void **state)
{
    (void)state;
    const sm_model *m = open_hu9();
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    p[sm_model_param_index(m, "gravity")] = 0.0;
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    /* 9 samples, degree 6: the derivatives' error (O(h^5) at the ends of
     * the run, 1 ms apart) below the angles' tolerance */
    o.half_window = 4;
    o.degree = 6;
    sm_inverse *inv = NULL;
    char why[256];
    assert_status(sm_inverse_create(m, &o, &inv, why, sizeof why), SM_OK);
    const size_t nq = sm_inverse_nq(inv), nt = sm_inverse_n_torques(inv), ns = 2 * nq;
    const size_t ss1 = (size_t)sm_inverse_phase_index(inv, "ss1");
    enum { N = 301 };
    static double t[N], tau[N * 16], x[N * 22], q[N * 11], v[N * 11], a[N * 11], tauh[N * 16], F[N * 64],
        res[N], y[N * 22];
    size_t ph[N];
    for (size_t i = 0; i < N; i++) {
        t[i] = 0.001 * (double)i;
        ph[i] = ss1;
        for (size_t k = 0; k < nt; k++) 
            tau[i * nt + k] = 0.05 * sin(2 * M_PI * t[i] / 1.2 + (double)k) + 0.01 * (double)k;
    }
    m->guess(x0, p, m->data);
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.rtol = so.atol = 1e-12;
    size_t done;
    assert_status(sm_inverse_playback(inv, p, &so, ss1, N, t, tau, x0, x, &done), SM_OK);
    assert_int_equal(done, N);
    for (size_t i = 0; i < N; i++) memcpy(q + i * nq, x + i * ns, nq * sizeof *q);
    assert_status(sm_inverse_run(inv, p, N, t, q, ph, v, a, tauh, F, res, why, sizeof why), SM_OK);
    double dtau = 0;
    const int locked = tau_index(inv, "toe_b.torque");
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < nt; k++) {
            if ((int)k == locked) continue; /* the lock's reaction carries it */
            dtau = fmax(dtau, fabs(tauh[i * nt + k] - tau[i * nt + k]));
        }
    double x1[SM_MAX_STATE];
    memcpy(x1, q, nq * sizeof *x1);
    memcpy(x1 + nq, v, nq * sizeof *x1);
    assert_status(sm_inverse_playback(inv, p, &so, ss1, N, t, tauh, x1, y, &done), SM_OK);
    double dq = 0;
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < nq; k++) dq = fmax(dq, fabs(y[i * ns + k] - q[i * nq + k]));
    print_message("round trip at g = 0: moments within %.3g N m (differentiator), angles within %.3g\n", dtau, dq);
    assert_true(dtau < 1e-5);
    assert_true(dq < 2e-9);
    sm_inverse_free(inv);
    sm_registry_close(m);
}

/* sm_inverse_run refuses what the differentiator or the solve cannot use,
 * naming the sample (and the struct field for the window). */
static void test_run_refuses(void **state)
{
    (void)state;
    const sm_model *m = open_hu9();
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    sm_inverse_options o;
    sm_inverse_options_default(&o);
    sm_inverse *inv = NULL;
    char why[256];
    assert_status(sm_inverse_create(m, &o, &inv, why, sizeof why), SM_OK);
    enum { N = 10 };
    double t[N], q[N * 11] = {0}, v[N * 11], a[N * 11], tau[N * 16], F[N * 64], res[N];
    size_t ph[N];
    for (size_t i = 0; i < N; i++) {
        t[i] = 0.01 * (double)i;
        ph[i] = 0;
        q[i * 11 + 1] = 0.9;
    }
    ph[8] = ph[9] = 1; /* a run of two samples */
    assert_status(sm_inverse_run(inv, p, N, t, q, ph, v, a, tau, F, res, why, sizeof why), SM_BAD_DATA);
    assert_non_null(strstr(why, "samples 8 to 9"));
    assert_non_null(strstr(why, "sm_inverse_options.half_window"));
    ph[8] = ph[9] = 0;
    t[5] = t[4];
    assert_status(sm_inverse_run(inv, p, N, t, q, ph, v, a, tau, F, res, why, sizeof why), SM_BAD_DATA);
    assert_non_null(strstr(why, "sample 5: time"));
    t[5] = 0.05;
    q[3 * 11 + 4] = NAN;
    assert_status(sm_inverse_run(inv, p, N, t, q, ph, v, a, tau, F, res, why, sizeof why), SM_BAD_DATA);
    assert_non_null(strstr(why, "sample 3: coordinate shank_a"));
    q[3 * 11 + 4] = 0;
    ph[2] = 99;
    assert_status(sm_inverse_run(inv, p, N, t, q, ph, v, a, tau, F, res, why, sizeof why), SM_BAD_DATA);
    assert_non_null(strstr(why, "sample 2: phase 99"));
    ph[2] = 0;
    assert_status(sm_inverse_run(inv, p, N, t, q, ph, v, a, tau, F, res, why, sizeof why), SM_OK);
    sm_inverse_free(inv);
    /* a closed-form walker has no bodies to invert */
    const sm_model *simplest = NULL;
    assert_status(sm_registry_open("simplest", &simplest, why, sizeof why), SM_OK);
    assert_status(sm_inverse_create(simplest, &o, &inv, why, sizeof why), SM_BAD_MODEL_FILE);
    assert_null(inv);
    sm_registry_close(simplest);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_differentiator_exact_on_quartic),
        cmocka_unit_test(test_differentiator_order),
        cmocka_unit_test(test_differentiator_refuses),
        cmocka_unit_test(test_inverse_returns_the_springs),
        cmocka_unit_test(test_round_trip_without_gravity),
        cmocka_unit_test(test_run_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
