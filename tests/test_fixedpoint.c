/* Gaits as fixed points and their stability (fixedpoint.h). */
#include <stdbool.h>

#include "test_util.h"

/* ---- rimless wheel: closed form ----------------------------------------
 * McGeer (1990); Coleman, Chatterjee & Ruina (1997):
 *   theta_dot* = -cot(2 alpha) sqrt(4 (g/l) sin(alpha) sin(gamma)),
 *   multiplier lambda = cos^2(2 alpha),  alpha = pi / n.
 * A gait exists only if theta_dot*^2 > 2 (g/l) (1 - cos(alpha - gamma)),
 * i.e. the wheel can vault over each spoke; the cases below all can. */
static void check_rimless_gait(double n, double gamma, double g, double l)
{
    const sm_model *m = test_model("rimless");
    const double p[SM_MAX_PARAMS] = {n, gamma, g, l};
    char why[256];
    assert_status(sm_model_check_params(m, p, why, sizeof why), SM_OK);
    const double alpha = M_PI / n, gl = g / l;
    const double thd = -sqrt(4.0 * gl * sin(alpha) * sin(gamma)) / tan(2.0 * alpha);
    const double lambda = pow(cos(2.0 * alpha), 2);
    assert_true(thd * thd > 2.0 * gl * (1.0 - cos(alpha - gamma)));

    /* Tighter than the default tolerances (1e-10): with those the fixed point
     * is only good to ~2e-9 and the finite-difference multiplier to ~2e-9, so
     * rtol = atol = 1e-13 and a finite-difference step of 1e-5 (the default
     * would be sqrt(rtol) ~ 3e-7, too small for this noise level); measured
     * errors are then below 1e-10. */
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.rtol = so.atol = 1e-13;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &so, &ws), SM_OK);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.tol = 1e-12;
    no.fd_step = 1e-5;
    double x[2];
    m->guess(x, p, m->data);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.converged);
    assert_int_equal(r.n_free, 1);
    assert_int_equal(r.n_state, 2);
    assert_close(r.x[0], alpha, 1e-15);
    assert_close(r.x[1], thd, 1e-9);
    assert_close(r.eig_re[0], lambda, 1e-9);
    assert_close(r.eig_im[0], 0.0, 0.0);
    assert_close(r.max_abs_eig, lambda, 1e-9);
    assert_close(r.jacobian[0], lambda, 1e-9);
    assert_true(r.stable);
    assert_true(r.residual <= 1e-12);
    assert_close(r.metrics.step_length, 2.0 * l * sin(alpha), 1e-14);
    sm_workspace_free(ws);
}

static void test_rimless_default_gait(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    check_rimless_gait(p[0], p[1], p[2], p[3]);
}

static void test_rimless_other_gaits(void **state)
{
    (void)state;
    check_rimless_gait(6, 0.3, 9.81, 1.0);
    check_rimless_gait(16, 0.05, 1.0, 0.8);
    check_rimless_gait(20, 0.02, 9.81, 0.5);
    check_rimless_gait(8, 0.15, 3.7, 1.2);
}

/* P and dP/dz of the rimless wheel away from its gait, in closed form:
 *   P(v) = -cos(2 alpha) sqrt(v^2 + K),  P'(v) = -cos(2 alpha) v / sqrt(v^2 + K). */
static void test_rimless_poincare_and_jacobian(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double p[SM_MAX_PARAMS] = {10, 0.08, 9.81, 1.0};
    const double alpha = M_PI / 10, c = cos(2 * alpha), K = 4 * 9.81 * sin(alpha) * sin(0.08);
    const double v = -2.5;
    double Pv, x_end[2], P2v;
    sm_step_metrics mt;
    assert_status(sm_poincare(ws, p, 1, &v, &Pv, x_end, &mt), SM_OK);
    assert_close(Pv, -c * sqrt(v * v + K), 1e-9);
    assert_close(x_end[0], alpha, 1e-9);
    assert_close(x_end[1], Pv, 0.0);
    assert_true(mt.period > 0);
    assert_status(sm_poincare(ws, p, 2, &v, &P2v, NULL, NULL), SM_OK);
    assert_close(P2v, -c * sqrt(Pv * Pv + K), 1e-9);

    const double dP = -c * v / sqrt(v * v + K);
    double J;
    long evals = 0;
    assert_status(sm_map_jacobian(ws, p, 1, &v, NULL, 1e-5, true, &J, &evals), SM_OK);
    assert_int_equal(evals, 2);
    assert_close(J, dP, 1e-5);
    evals = 0;
    assert_status(sm_map_jacobian(ws, p, 1, &v, &Pv, 1e-5, false, &J, &evals), SM_OK);
    assert_int_equal(evals, 1); /* forward differences reuse P(v) */
    assert_close(J, dP, 1e-4);
    sm_workspace_free(ws);
}

/* ---- simplest walker: Garcia et al. (1998) ---------------------------- */

static void test_simplest_stable_gait(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.converged);
    assert_status(r.status, SM_OK);
    assert_close(r.x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(r.x[1], GARCIA_STABLE_THETA_DOT, 1e-8);
    assert_close(r.x[2], 2.0 * r.x[0], 1e-15);
    assert_true(r.stride_evals <= 40);
    assert_true(r.residual <= no.tol);
    /* Stable, with a complex pair of modulus < 1. */
    assert_true(r.stable);
    assert_true(fabs(r.eig_im[0]) > 0.1);
    assert_close(r.eig_im[1], -r.eig_im[0], 1e-15);
    assert_close(r.eig_re[1], r.eig_re[0], 1e-15);
    const double mod = hypot(r.eig_re[0], r.eig_im[0]);
    assert_true(mod < 1.0);
    assert_close(r.max_abs_eig, mod, 1e-15);
    /* Near the published pair; the published values themselves are off by
     * ~1e-3 (see test_simplest_oracle.c), so only loosely here. */
    assert_close(r.eig_re[0], GARCIA_STABLE_EIG_RE, 5e-3);
    assert_close(fabs(r.eig_im[0]), GARCIA_STABLE_EIG_IM, 5e-3);
    /* Metrics of the gait's step. */
    assert_true(r.metrics.period > 3.0 && r.metrics.period < 5.0);
    assert_close(r.metrics.step_length, 2.0 * sin(GARCIA_STABLE_THETA), 1e-8);
    print_message("stable gait (%.14f, %.14f), eigenvalues %.8f +- %.8fi, %ld strides\n", r.x[0], r.x[1],
                  r.eig_re[0], fabs(r.eig_im[0]), r.stride_evals);
    sm_workspace_free(ws);
}

static void check_unstable_gait(const sm_fixed_result *r)
{
    assert_true(r->converged);
    assert_close(r->x[0], GARCIA_UNSTABLE_THETA, 1e-8);
    assert_close(r->x[1], GARCIA_UNSTABLE_THETA_DOT, 1e-8);
    assert_false(r->stable);
    /* Two real eigenvalues, about 4.0 and 0.459 (Garcia et al. 1998). */
    assert_close(r->eig_im[0], 0.0, 0.0);
    assert_close(r->eig_im[1], 0.0, 0.0);
    assert_close(r->eig_re[0], 4.0, 0.01);
    assert_close(r->eig_re[1], 0.459, 0.002);
}

/* The second, unstable gait from (0.19, -0.2).  Its mid-stance scuff comes
 * with theta < 0 (see test_stride.c); the library once took it for the
 * heel-strike and Newton wandered off (regression test). */
static void test_simplest_unstable_gait(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    simplest_on_section(0.19, -0.2, x);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    check_unstable_gait(&r);
    print_message("unstable gait from (0.19, -0.2): (%.14f, %.14f), eigenvalues %.8f, %.8f, period %.8f, "
                  "%ld strides\n",
                  r.x[0], r.x[1], r.eig_re[0], r.eig_re[1], r.metrics.period, r.stride_evals);
    assert_true(r.metrics.period > 3.0);
    sm_workspace_free(ws);
}

/* P^2 has the period-1 gait as a fixed point, with the squared multipliers. */
static void test_period_two_finds_period_one_gait(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r1, r2;
    assert_status(sm_fixed_point(ws, p, x, &no, &r1), SM_OK);
    no.period = 2;
    assert_status(sm_fixed_point(ws, p, x, &no, &r2), SM_OK);
    assert_true(r2.converged);
    assert_close(r2.x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(r2.x[1], GARCIA_STABLE_THETA_DOT, 1e-8);
    /* It is a period-1 point: one stride already maps it to itself. */
    double z[2] = {r2.x[0], r2.x[1]}, Pz[2];
    assert_status(sm_poincare(ws, p, 1, z, Pz, NULL, NULL), SM_OK);
    assert_close(Pz[0], z[0], 1e-8);
    assert_close(Pz[1], z[1], 1e-8);
    /* (a + bi)^2 = a^2 - b^2 + 2abi. */
    const double a = r1.eig_re[0], b = fabs(r1.eig_im[0]);
    assert_close(r2.eig_re[0], a * a - b * b, 1e-5);
    assert_close(fabs(r2.eig_im[0]), fabs(2 * a * b), 1e-5);
    assert_close(r2.max_abs_eig, r1.max_abs_eig * r1.max_abs_eig, 1e-5);
    assert_true(r2.stable);
    /* The first step's metrics, not the two steps'. */
    assert_close(r2.metrics.period, r1.metrics.period, 1e-6);
    sm_workspace_free(ws);
}

static void test_hopeless_guesses(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    const double guesses[][2] = {{1.2, 3.0}, {0.05, -0.001}, {0.2, -0.01}, {0.2, -2.0}};
    const sm_status falls[] = {SM_FELL_BACKWARD, SM_FELL_BACKWARD, SM_FELL_BACKWARD, SM_FELL_FORWARD};
    for (size_t i = 0; i < 4; i++) {
        double x[4];
        simplest_on_section(guesses[i][0], guesses[i][1], x);
        sm_newton_options no;
        sm_newton_options_default(&no);
        sm_fixed_result r;
        assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_NOT_CONVERGED);
        assert_status(r.status, SM_NOT_CONVERGED);
        assert_false(r.converged);
        assert_false(r.stable);
        assert_status(r.stride_status, falls[i]);
        assert_true(r.stride_evals >= 1);
        assert_true(isnan(r.max_abs_eig));
        assert_true(!(r.residual <= no.tol));
        for (int k = 0; k < 4; k++) assert_true(isfinite(r.x[k]));
    }
    sm_workspace_free(ws);
}

/* With max_iter = 0 nothing moves: the guess comes back with its residual. */
static void test_zero_iterations(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    simplest_on_section(0.2, -0.2, x);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.max_iter = 0;
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_NOT_CONVERGED);
    assert_int_equal(r.iterations, 0);
    assert_int_equal(r.stride_evals, 1);
    assert_close(r.x[0], 0.2, 0.0);
    assert_close(r.x[1], -0.2, 0.0);
    double Pz[2];
    assert_status(sm_poincare(ws, p, 1, r.x, Pz, NULL, NULL), SM_OK);
    assert_close(r.residual, fmax(fabs(Pz[0] - 0.2), fabs(Pz[1] + 0.2)), 1e-12);
    sm_workspace_free(ws);
}

/* ---- what "converged" promises ------------------------------------------ */

/* Newton with the model's guess, integrator tolerance tol (0: default). */
static void solve_model(const char *name, const double *p_set, size_t n_set, const char *const *names,
                        double tol, sm_fixed_result *r)
{
    const sm_model *m = test_model(name);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    for (size_t i = 0; i < n_set; i++) p[sm_model_param_index(m, names[i])] = p_set[i];
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, tol, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_point(ws, p, x, &no, r);
    sm_workspace_free(ws);
}

/* At loose integration tolerances the stride map is too noisy for Newton to
 * reach 1e-10: that is "stalled", never "converged" with a large residual
 * (the compass at rtol 1e-3 used to report ok with residual 8.7e-5). */
static void test_converged_means_residual_below_tol(void **state)
{
    (void)state;
    const struct {
        const char *model;
        double rtol;
    } cases[] = {{"compass", 1e-3}, {"simplest", 1e-4}, {"slip", 1e-5}, {"compass", 0}, {"slip", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static sm_fixed_result r;
        solve_model(cases[i].model, NULL, 0, NULL, cases[i].rtol, &r);
        if (r.converged) {
            assert_true(r.residual <= 1e-10);
            assert_status(r.status, SM_OK);
        } else {
            assert_true(r.residual > 1e-10);
            assert_true(r.status == SM_STALLED || r.status == SM_NOT_CONVERGED);
        }
    }
    /* Full Newton's difference Jacobian (step sqrt(1e-3)) cannot get the
     * compass below tol at rtol 1e-3.  Broyden's secants may (it found a
     * fixed point of that map, 2e-4 from the true gait, residual 1e-11):
     * then its fresh residual is below tol; if not, it says why. */
    const sm_model *m = test_model("compass");
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-3, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.update = SM_NEWTON_FULL;
    static sm_fixed_result r;
    sm_fixed_point(ws, p, x, &no, &r);
    assert_status(r.status, SM_STALLED);
    assert_false(r.converged);
    no.update = SM_NEWTON_BROYDEN;
    sm_fixed_point(ws, p, x, &no, &r);
    double Pz[SM_MAX_STATE], z[SM_MAX_STATE], fresh = 0.0;
    sm_model_free(m, r.x, z);
    assert_status(sm_poincare(ws, p, 1, z, Pz, NULL, NULL), SM_OK);
    for (size_t i = 0; i < m->n_free; i++) fresh = fmax(fresh, fabs(Pz[i] - z[i]));
    print_message("compass at rtol 1e-3, Broyden: %s, residual %.3g (fresh %.3g)\n", sm_status_name(r.status),
                  r.residual, fresh);
    sm_workspace_free(ws);
    assert_close(fresh, r.residual, 0.0);
    if (r.converged) {
        assert_status(r.status, SM_OK);
        assert_true(fresh <= no.tol);
    } else {
        assert_true(r.status == SM_STALLED || r.status == SM_NOT_CONVERGED);
        assert_true(fresh > no.tol);
    }
}

/* Spring-mass walking conserves E exactly; the integrated map drifts by its
 * error.  Newton measures the return on the level set, so it converges below
 * tol at E = 800 ... 840 J (it used to stop at 1.4e-9 and call that
 * converged), and the drift is reported, of the order of the tolerance. */
static void test_conserved_quantity_gaits_converge(void **state)
{
    (void)state;
    const char *const names[] = {"E"};
    for (double E = 800; E <= 840; E += 10) {
        static sm_fixed_result r;
        solve_model("slip", &E, 1, names, 0, &r);
        assert_status(r.status, SM_OK);
        assert_true(r.residual <= 1e-10);
        assert_true(fabs(r.invariant_drift) < 1e-8);
        /* the gait keeps its energy: the invariant is the model's energy */
        const sm_model *m = test_model("slip");
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        p[sm_model_param_index(m, "E")] = E;
        assert_close(m->invariant(r.x, p, m->data), E, 1e-10 * E);
        assert_int_not_equal(r.trivial_index, -1);
        assert_close(r.eig_re[r.trivial_index], 1.0, 1e-7);
    }
}

/* Standing with the legs together (theta = 0) is a fixed point of the
 * simplest walker's map with a step of zero length and duration; it is not
 * a gait.  From (-0.19, 0.2) Newton used to converge there and say so. */
static void test_standing_is_not_a_gait(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    simplest_on_section(-0.19, 0.2, x);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_DEGENERATE_GAIT);
    assert_false(r.converged);
    assert_false(r.stable);
    assert_true(fabs(r.x[0]) < 1e-9);
    sm_workspace_free(ws);
}

/* The default guess follows the long-period gait over the whole slope
 * range (Garcia et al. 1998: theta* ~ 0.97 gamma^(1/3), step period near
 * 3.8-4.0); at gamma >= 0.018 it used to land on the short-period gait
 * (step period about 3.06).  Both gaits are told apart by name. */
static void test_default_guess_follows_the_long_gait(void **state)
{
    (void)state;
    const char *const names[] = {"gamma"};
    const double gammas[] = {1e-4, 1e-3, 0.009, 0.018, 0.019, 0.02, 0.025};
    for (size_t i = 0; i < sizeof gammas / sizeof *gammas; i++) {
        static sm_fixed_result r;
        solve_model("simplest", &gammas[i], 1, names, 0, &r);
        assert_status(r.status, SM_OK);
        assert_true(r.metrics.period > 3.8 && r.metrics.period < 4.0);
        assert_close(r.x[0] / cbrt(gammas[i]), 0.96, 0.015);
        assert_string_equal(r.family, "long-period");
    }
    /* the other gait at 0.009 is named too */
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    simplest_on_section(GARCIA_UNSTABLE_THETA, GARCIA_UNSTABLE_THETA_DOT, x);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_string_equal(r.family, "short-period");
    sm_workspace_free(ws);
}

/* A period-2 fixed point that is the period-1 gait says so; the limping
 * gait at gamma = 0.016 does not.  Strides are counted as strides: every
 * evaluation of P^2 integrates two (one phase each for this walker). */
static void test_minimal_period_and_stride_count(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.period = 2;
    static sm_fixed_result r;
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    sm_workspace_reset_counters(ws);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_int_equal(r.minimal_period, 1);
    sm_counters c;
    sm_workspace_counters(ws, &c);
    assert_int_equal(r.stride_evals, c.flows);
    p[0] = 0.016;
    m->guess(x, p, m->data);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_int_equal(r.minimal_period, 2);
    sm_workspace_free(ws);
}

/* ---- the finite-difference step ------------------------------------------ */

typedef struct {
    double re[SM_MAX_STATE], im[SM_MAX_STATE];
    size_t n;
    int trivial;
} multipliers;

static multipliers multipliers_at(const char *model, double rtol)
{
    static sm_fixed_result r;
    solve_model(model, NULL, 0, NULL, rtol, &r);
    assert_status(r.status, SM_OK);
    multipliers mu = {.n = r.n_free, .trivial = r.trivial_index};
    memcpy(mu.re, r.eig_re, sizeof mu.re);
    memcpy(mu.im, r.eig_im, sizeof mu.im);
    return mu;
}

static double multiplier_distance(const multipliers *a, const multipliers *b)
{
    double d = 0.0;
    for (size_t i = 0; i < a->n; i++) d = fmax(d, hypot(a->re[i] - b->re[i], fabs(a->im[i]) - fabs(b->im[i])));
    return d;
}

/* Tighter integration must not make the multipliers worse.  With the old
 * default step sqrt(rtol) at rtol 1e-12, spring-mass walking's trivial
 * multiplier read 0.9999987 and |lambda| was 5e-6 off; the simplest and
 * compass gaits move ten times closer to their rtol-1e-13 values from rtol
 * 1e-10 to 1e-12. */
static void test_multipliers_improve_as_tolerance_tightens(void **state)
{
    (void)state;
    const char *const models[] = {"simplest", "compass"};
    for (size_t k = 0; k < 2; k++) {
        const multipliers ref = multipliers_at(models[k], 1e-13);
        const multipliers loose = multipliers_at(models[k], 1e-10), tight = multipliers_at(models[k], 1e-12);
        const double d_loose = multiplier_distance(&loose, &ref), d_tight = multiplier_distance(&tight, &ref);
        assert_true(d_tight < d_loose);
        assert_true(d_tight < 3e-8);
    }
    /* Spring-mass walking's map is noisier at rtol 1e-12 than at 1e-11 or
     * 1e-13 (with either method), so here the bar is the old error: its
     * trivial multiplier at least six times nearer 1 than the old 1.3e-6. */
    const multipliers ref = multipliers_at("slip", 1e-13), tight = multipliers_at("slip", 1e-12);
    assert_close(tight.re[tight.trivial], 1.0, 2e-7);
    assert_close(ref.re[ref.trivial], 1.0, 1e-7);
    assert_true(multiplier_distance(&tight, &ref) < 1e-6);
}

/* The period-8 gait of the simplest walker between its 4 -> 8 and 8 -> 16
 * doublings (gamma = 0.01822): differences of P^8 itself saw P^8's
 * curvature, and its multipliers moved by 0.4 between rtol 1e-12 and 1e-13;
 * as a product of the eight strides' Jacobians they agree to 1e-6, and the
 * product is a product: for the period-1 gait taken as period 2 it is J^2. */
static void test_period_n_multipliers_settle(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {0.01822}, x[4];
    simplest_on_section(0.2594, -0.2496, x);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.period = 8;
    no.tol = 1e-11;
    static sm_fixed_result r[2];
    const double tols[2] = {1e-12, 1e-13};
    for (int k = 0; k < 2; k++) {
        sm_workspace *ws = test_workspace(m, tols[k], SM_METHOD_ADAMS);
        assert_status(sm_fixed_point(ws, p, x, &no, &r[k]), SM_OK);
        assert_int_equal(r[k].minimal_period, 8);
        sm_workspace_free(ws);
    }
    for (int i = 0; i < 2; i++) {
        assert_close(r[0].eig_re[i], r[1].eig_re[i], 1e-6);
        assert_close(r[0].eig_im[i], 0.0, 0.0);
    }
    assert_true(r[1].stable);
    assert_true(r[1].eig_re[0] < -0.1 && r[1].eig_re[0] > -0.11); /* on its way to -1 at the next doubling */

    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    p[0] = GARCIA_GAMMA;
    m->guess(x, p, m->data);
    no.period = 1;
    no.tol = 1e-10;
    static sm_fixed_result one;
    assert_status(sm_fixed_point(ws, p, x, &no, &one), SM_OK);
    double J2[4];
    long evals = 0;
    assert_status(sm_stability_jacobian(ws, p, 2, one.x, sm_stability_fd_step(0, 1e-10), J2, &evals), SM_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            assert_close(J2[i * 2 + j], one.jacobian[i * 2] * one.jacobian[j] + one.jacobian[i * 2 + 1] * one.jacobian[2 + j],
                         1e-6);
    sm_workspace_free(ws);
}

/* ---- eigenvalues of known matrices ------------------------------------ */

static void test_eigenvalues_known_matrices(void **state)
{
    (void)state;
    double re[3], im[3];
    /* Rotation-scaling: [[a, -b], [b, a]] has a +- bi. */
    const double R[4] = {0.3, -0.4, 0.4, 0.3};
    assert_status(sm_eigenvalues(2, R, re, im), SM_OK);
    assert_close(re[0], 0.3, 1e-14);
    assert_close(re[1], 0.3, 1e-14);
    assert_close(fabs(im[0]), 0.4, 1e-14);
    assert_close(im[1], -im[0], 1e-14);
    assert_close(R[1], -0.4, 0.0); /* the input is left alone */

    /* Upper triangular: the diagonal, by decreasing modulus. */
    const double T[9] = {0.5, 7.0, -3.0, 0.0, -2.0, 1.0, 0.0, 0.0, 1.25};
    assert_status(sm_eigenvalues(3, T, re, im), SM_OK);
    assert_close(re[0], -2.0, 1e-13);
    assert_close(re[1], 1.25, 1e-13);
    assert_close(re[2], 0.5, 1e-13);
    for (int i = 0; i < 3; i++) assert_close(im[i], 0.0, 1e-13);

    /* Lower triangular. */
    const double Lw[9] = {0.1, 0.0, 0.0, 5.0, -0.7, 0.0, 2.0, 3.0, 0.3};
    assert_status(sm_eigenvalues(3, Lw, re, im), SM_OK);
    assert_close(re[0], -0.7, 1e-13);
    assert_close(re[1], 0.3, 1e-13);
    assert_close(re[2], 0.1, 1e-13);

    /* A real eigenvalue 2 and a pair of modulus 0.5, then of modulus 1. */
    const double B[9] = {2.0, 0.0, 0.0, 0.0, 0.3, -0.4, 0.0, 0.4, 0.3};
    assert_status(sm_eigenvalues(3, B, re, im), SM_OK);
    assert_close(re[0], 2.0, 1e-14);
    assert_close(im[0], 0.0, 0.0);
    assert_close(hypot(re[1], im[1]), 0.5, 1e-14);
    assert_close(hypot(re[2], im[2]), 0.5, 1e-14);
    const double C[9] = {0.1, 0.0, 0.0, 0.0, 0.6, -0.8, 0.0, 0.8, 0.6};
    assert_status(sm_eigenvalues(3, C, re, im), SM_OK);
    assert_close(re[0], 0.6, 1e-14);
    assert_close(fabs(im[0]), 0.8, 1e-14);
    assert_close(im[1], -im[0], 1e-14);
    assert_close(re[2], 0.1, 1e-14);

    /* 1x1. */
    const double one = -3.5;
    assert_status(sm_eigenvalues(1, &one, re, im), SM_OK);
    assert_close(re[0], -3.5, 0.0);
}

/* ---- options ---------------------------------------------------------- */

static void expect_bad_newton(const sm_newton_options *o, const char *word)
{
    char why[256] = "";
    assert_status(sm_newton_options_check(o, why, sizeof why), SM_BAD_OPTION);
    if (!strstr(why, word)) fail_msg("message does not name %s: \"%s\"", word, why);
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, o, &r), SM_BAD_OPTION);
    assert_status(r.status, SM_BAD_OPTION);
    assert_false(r.converged);
    assert_int_equal(r.stride_evals, 0);
    sm_workspace_free(ws);
}

static void test_bad_newton_options(void **state)
{
    (void)state;
    sm_newton_options o;
    char why[256];
    sm_newton_options_default(&o);
    assert_status(sm_newton_options_check(&o, why, sizeof why), SM_OK);
    assert_int_equal(o.period, 1); /* the documented defaults */
    assert_close(o.tol, 1e-10, 0.0);
    assert_int_equal(o.max_iter, 30);

    const int periods[] = {0, -1, 100000};
    for (size_t i = 0; i < 3; i++) {
        sm_newton_options_default(&o);
        o.period = periods[i];
        expect_bad_newton(&o, "period");
    }
    const double tols[] = {0.0, -1e-10, NAN, INFINITY};
    for (size_t i = 0; i < 4; i++) {
        sm_newton_options_default(&o);
        o.tol = tols[i];
        expect_bad_newton(&o, "tol");
    }
    sm_newton_options_default(&o);
    o.max_iter = -1;
    expect_bad_newton(&o, "sm_newton_options.max_iter");
    sm_newton_options_default(&o);
    o.fd_step = -1e-6;
    expect_bad_newton(&o, "sm_newton_options.fd_step");
    sm_newton_options_default(&o);
    o.fd_step = NAN;
    expect_bad_newton(&o, "sm_newton_options.fd_step");
}

static void test_bad_guess(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    simplest_on_section(NAN, -0.2, x);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_BAD_STATE);
    assert_false(r.converged);
    simplest_on_section(0.2, -INFINITY, x);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_BAD_STATE);
    sm_workspace_free(ws);
}

/* Regression: when Newton gives up (iterations spent, a failed Jacobian
 * stride, a singular matrix) the result used to keep the guess in r.x with
 * the last iterate's residual.  fixedpoint.h: x is "the full section state
 * at the returned point" and residual belongs to that same point. */
static void test_residual_matches_returned_point(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    simplest_on_section(0.2, -0.2, x);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.max_iter = 1;
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_NOT_CONVERGED);
    assert_int_equal(r.iterations, 1);
    double Pz[2];
    assert_status(sm_poincare(ws, p, 1, r.x, Pz, NULL, NULL), SM_OK);
    const double actual = fmax(fabs(Pz[0] - r.x[0]), fabs(Pz[1] - r.x[1]));
    print_message("returned x = (%.10f, %.10f), reported residual %.3g, residual at x %.3g\n", r.x[0], r.x[1],
                  r.residual, actual);
    sm_workspace_free(ws); /* before asserting: a failed assertion leaves the test */
    assert_close(r.residual, actual, 1e-9);
}


/* ---- Broyden updates and seeded Jacobians ------------------------------- */

/* The gait of a closed-form walker from its guess (p_set: name=value pairs,
 * period N) with the update u and an optional first Jacobian. */
static void solve_with(const char *name, const char *set_name, double set_value, int period, sm_newton_update u,
                       const double *x0, const double *jacobian_guess, sm_fixed_result *r)
{
    const sm_model *m = test_model(name);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    if (set_name) p[sm_model_param_index(m, set_name)] = set_value;
    if (x0)
        memcpy(x, x0, m->n_state * sizeof *x);
    else
        m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.period = period;
    no.update = u;
    no.jacobian_guess = jacobian_guess;
    sm_fixed_point(ws, p, x, &no, r);
    sm_workspace_free(ws);
}

/* max |a - b| over the free coordinates of model name. */
static double free_distance(const char *name, const double *a, const double *b)
{
    const sm_model *m = test_model(name);
    double d = 0.0;
    for (size_t k = 0; k < m->n_free; k++) d = fmax(d, fabs(a[m->free_index[k]] - b[m->free_index[k]]));
    return d;
}

/* Broyden's Newton finds the gait full Newton finds, from the same guess,
 * on every closed-form walker and a period-2 gait, in no more strides, and
 * its residual is a fresh one below tol.  The stride counts are the two
 * methods' own, measured here side by side. */
static void test_broyden_finds_the_full_newton_gaits_in_fewer_strides(void **state)
{
    (void)state;
    const struct {
        const char *model, *set;
        double value;
        int period;
    } cases[] = {{"simplest", NULL, 0, 1},  {"compass", NULL, 0, 1}, {"rimless", NULL, 0, 1},
                 {"slip", "E", 840, 1},     {"simplest", "gamma", 0.016, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static sm_fixed_result full, broyden;
        solve_with(cases[i].model, cases[i].set, cases[i].value, cases[i].period, SM_NEWTON_FULL, NULL, NULL, &full);
        solve_with(cases[i].model, cases[i].set, cases[i].value, cases[i].period, SM_NEWTON_BROYDEN, NULL, NULL,
                   &broyden);
        const double d = free_distance(cases[i].model, full.x, broyden.x);
        print_message("%-8s period %d: full %d iterations, %ld Newton + %ld strides; Broyden %d, %ld + %ld; "
                      "gaits %.2g apart\n",
                      cases[i].model, cases[i].period, full.iterations, full.newton_evals,
                      full.stride_evals - full.newton_evals, broyden.iterations, broyden.newton_evals,
                      broyden.stride_evals - broyden.newton_evals, d);
        assert_status(full.status, SM_OK);
        assert_status(broyden.status, SM_OK);
        assert_true(broyden.residual <= 1e-10);
        assert_true(d <= 1e-9);
        assert_true(broyden.newton_evals <= full.newton_evals);
        assert_true(broyden.stride_evals <= full.stride_evals);
        assert_int_equal(broyden.minimal_period, full.minimal_period);
        for (size_t k = 0; k < full.n_free; k++) {
            assert_close(broyden.eig_re[k], full.eig_re[k], 1e-7);
            assert_close(fabs(broyden.eig_im[k]), fabs(full.eig_im[k]), 1e-7);
        }
    }
}

/* Far from the gait the secant is not to be trusted: on the compass with a
 * light hip (m = a = 1, b = 0.2, mh = 0.1, a corner of bench_sweep.sh's
 * map) Broyden's updates from the first step on led Newton to the walker
 * standing with its legs together, where a stride falls, and it gave up
 * (not_converged) where full Newton finds the gait.  The updates now take
 * over only after a whole Newton step that halved the residual. */
static void test_broyden_keeps_full_newtons_basin(void **state)
{
    (void)state;
    const sm_model *m = test_model("compass");
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    p[sm_model_param_index(m, "m")] = 1;
    p[sm_model_param_index(m, "a")] = 1;
    p[sm_model_param_index(m, "b")] = 0.2;
    p[sm_model_param_index(m, "mh")] = 0.1;
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    static sm_fixed_result full, broyden;
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.update = SM_NEWTON_FULL;
    sm_fixed_point(ws, p, x, &no, &full);
    no.update = SM_NEWTON_BROYDEN;
    sm_fixed_point(ws, p, x, &no, &broyden);
    sm_workspace_free(ws);
    print_message("full: %s, %ld strides; Broyden: %s, %ld strides, th_st %.6f\n", sm_status_name(full.status),
                  full.stride_evals, sm_status_name(broyden.status), broyden.stride_evals, broyden.x[0]);
    assert_status(full.status, SM_OK);
    assert_status(broyden.status, SM_OK);
    assert_true(free_distance("compass", full.x, broyden.x) <= 1e-9);
}

/* A neighbour's gait and Jacobian (the stability Jacobian sm_fixed_point
 * returned there) make a better start than its gait alone: one step of the
 * parameter on, Newton converges to the same gait in fewer strides. */
static void test_a_neighbours_jacobian_saves_strides(void **state)
{
    (void)state;
    const struct {
        const char *model, *param;
        double from, to;
    } cases[] = {{"simplest", "gamma", 0.009, 0.0095}, {"compass", "a", 0.5, 0.51}, {"slip", "E", 840, 838}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static sm_fixed_result there, bare, seeded, full;
        solve_with(cases[i].model, cases[i].param, cases[i].from, 1, SM_NEWTON_BROYDEN, NULL, NULL, &there);
        assert_status(there.status, SM_OK);
        solve_with(cases[i].model, cases[i].param, cases[i].to, 1, SM_NEWTON_BROYDEN, there.x, NULL, &bare);
        solve_with(cases[i].model, cases[i].param, cases[i].to, 1, SM_NEWTON_BROYDEN, there.x, there.jacobian,
                   &seeded);
        solve_with(cases[i].model, cases[i].param, cases[i].to, 1, SM_NEWTON_FULL, there.x, NULL, &full);
        print_message("%-8s %s %g -> %g: Newton strides full %ld, Broyden %ld, seeded %ld\n", cases[i].model,
                      cases[i].param, cases[i].from, cases[i].to, full.newton_evals, bare.newton_evals,
                      seeded.newton_evals);
        assert_status(bare.status, SM_OK);
        assert_status(seeded.status, SM_OK);
        assert_true(seeded.residual <= 1e-10);
        assert_true(free_distance(cases[i].model, seeded.x, bare.x) <= 1e-9);
        assert_true(seeded.newton_evals < bare.newton_evals);
        assert_true(bare.newton_evals <= full.newton_evals);
    }
}

/* A wrong first Jacobian misleads Broyden's steps, never its verdict:
 * converged is a fresh residual below tol at the returned point; anything
 * else is a named status with that point's own residual above tol. */
static void test_a_wrong_jacobian_guess_never_fakes_convergence(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double wrong[][4] = {
        {1, 0, 0, 1},       /* J - I singular */
        {0, 0, 0, 0},       /* a plain fixed-point iteration */
        {-40, 3, 7, 25},    /* nothing like the map */
        {0.9, 1.1, -2, 0.5} /* off in every entry */
    };
    for (int max_iter = 2; max_iter <= 30; max_iter += 28)
        for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
            sm_newton_options no;
            sm_newton_options_default(&no);
            no.max_iter = max_iter;
            no.jacobian_guess = wrong[i];
            static sm_fixed_result r;
            sm_fixed_point(ws, p, x, &no, &r);
            double z[2], Pz[2];
            sm_model_free(m, r.x, z);
            assert_status(sm_poincare(ws, p, 1, z, Pz, NULL, NULL), SM_OK);
            const double fresh = fmax(fabs(Pz[0] - z[0]), fabs(Pz[1] - z[1]));
            print_message("guess %zu, max_iter %d: %s after %d iterations, residual %.3g (fresh %.3g)\n", i,
                          max_iter, sm_status_name(r.status), r.iterations, r.residual, fresh);
            assert_close(fresh, r.residual, 0.0);
            if (r.converged) {
                assert_status(r.status, SM_OK);
                assert_true(fresh <= no.tol);
                assert_close(r.x[0], GARCIA_STABLE_THETA, 1e-8);
            } else {
                assert_true(r.status == SM_NOT_CONVERGED || r.status == SM_STALLED ||
                            r.status == SM_SINGULAR_JACOBIAN);
                assert_true(fresh > no.tol);
            }
            /* With room to iterate, a wrong start costs strides, not the gait. */
            if (max_iter == 30) assert_status(r.status, SM_OK);
        }
    /* A guess that is not a matrix of numbers is refused. */
    sm_newton_options no;
    sm_newton_options_default(&no);
    const double nan_guess[4] = {0.1, NAN, 0, 0};
    no.jacobian_guess = nan_guess;
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_BAD_OPTION);
    assert_false(r.converged);
    sm_workspace_free(ws);
}

/* sm_model_lift and sm_model_free on the rimless wheel, whose section is
 * theta = alpha = pi / n with theta_dot free: whatever x held before, the
 * lift puts the stance angle on the section and the free rate where asked. */
static void test_lift_and_free_are_inverse(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    p[0] = 8;
    const double z[1] = {-0.73};
    double x[2] = {NAN, NAN}, back[1] = {NAN};
    sm_model_lift(m, p, z, x);
    assert_close(x[0], M_PI / 8, 1e-15);
    assert_close(x[1], -0.73, 0.0);
    sm_model_free(m, x, back);
    assert_close(back[0], -0.73, 0.0);
    /* to_section keeps the free rate and moves the angle onto the section,
     * in place too. */
    double y[2] = {0.05, 1.5};
    sm_model_to_section(m, p, y, y);
    assert_close(y[0], M_PI / 8, 1e-15);
    assert_close(y[1], 1.5, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_residual_matches_returned_point),
        cmocka_unit_test(test_rimless_default_gait),
        cmocka_unit_test(test_rimless_other_gaits),
        cmocka_unit_test(test_rimless_poincare_and_jacobian),
        cmocka_unit_test(test_simplest_stable_gait),
        cmocka_unit_test(test_simplest_unstable_gait),
        cmocka_unit_test(test_period_two_finds_period_one_gait),
        cmocka_unit_test(test_hopeless_guesses),
        cmocka_unit_test(test_zero_iterations),
        cmocka_unit_test(test_eigenvalues_known_matrices),
        cmocka_unit_test(test_bad_newton_options),
        cmocka_unit_test(test_bad_guess),
        cmocka_unit_test(test_converged_means_residual_below_tol),
        cmocka_unit_test(test_conserved_quantity_gaits_converge),
        cmocka_unit_test(test_standing_is_not_a_gait),
        cmocka_unit_test(test_default_guess_follows_the_long_gait),
        cmocka_unit_test(test_minimal_period_and_stride_count),
        cmocka_unit_test(test_multipliers_improve_as_tolerance_tightens),
        cmocka_unit_test(test_period_n_multipliers_settle),
        cmocka_unit_test(test_lift_and_free_are_inverse),
        cmocka_unit_test(test_broyden_finds_the_full_newton_gaits_in_fewer_strides),
        cmocka_unit_test(test_broyden_keeps_full_newtons_basin),
        cmocka_unit_test(test_a_neighbours_jacobian_saves_strides),
        cmocka_unit_test(test_a_wrong_jacobian_guess_never_fakes_convergence),
    };
    return cmocka_run_group_tests_name("fixedpoint", tests, NULL, NULL);
}
