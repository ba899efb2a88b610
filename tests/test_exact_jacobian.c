/* Exact stride-map Jacobians (sensitivities through every phase, the
 * saltation at every event) against two independent things: Richardson-
 * extrapolated central differences of the stride (sm_stability_jacobian,
 * the method the project used alone before) on every walker, and the
 * rimless wheel's closed-form multiplier cos^2(2 alpha).  Newton with the
 * exact Jacobian must converge quadratically, and the default settings
 * must reproduce the published and closed-form gaits (issue 12, item 5). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../src/dense.h"
#include "src_path.h"
#include "stridemap/stridemap.h"
#include "test_util.h"

typedef struct {
    const char *name;  /* a built-in name or a model file under models/ */
    const char *param; /* one parameter to set, or NULL */
    double value;
    int period;
} walker;

/* Every walker that has a gait from its own guess at its defaults (the
 * spring-mass walker's at the energy of README's example), a period-2
 * limping gait, and the test maps. */
static const walker walkers[] = {
    {"simplest", "gamma", GARCIA_GAMMA, 1},
    {"simplest", "gamma", 0.016, 2},
    {"compass", NULL, 0, 1},
    {"rimless", NULL, 0, 1},
    {"slip", "E", 840, 1},
    {"logistic", NULL, 0, 1},
    {"foldmap", NULL, 0, 1},
    {"delayed_logistic", NULL, 0, 1},
    {"models/compass.yaml", NULL, 0, 1},
    {"models/compass_round_spring.yaml", NULL, 0, 1},
    {"models/kneed_hsu.yaml", NULL, 0, 1},
    {"models/kneed_mcgeer.yaml", NULL, 0, 1},
    {"models/kneed_mcgeer_locked.yaml", NULL, 0, 1},
};

static const sm_model *open_walker(const walker *w)
{
    const sm_model *m = NULL;
    char why[512];
    const char *name = strchr(w->name, '/') ? src_path(w->name) : w->name;
    if (sm_registry_open(name, &m, why, sizeof why) != SM_OK) fail_msg("%s: %s", w->name, why);
    return m;
}

/* The walker's gait at default settings, or a failed test. */
static void gait_of(const walker *w, const sm_model *m, sm_workspace *ws, double *p, sm_fixed_result *r)
{
    sm_model_default_params(m, p);
    if (w->param) set_param(m, p, w->param, w->value);
    double x[SM_MAX_STATE];
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.period = w->period;
    const sm_status st = sm_fixed_point(ws, p, x, &no, r);
    if (st != SM_OK) fail_msg("%s: no gait (%s)", w->name, sm_status_name(st));
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* On every walker: exact and Richardson central-difference Jacobians of
 * P^N at the gait agree to 1e-6 (relative to the largest entry, at least
 * 1); the differences' own error is about 1e-7 at rtol 1e-10. */
static void test_exact_matches_differences(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof walkers / sizeof walkers[0]; k++) {
        const walker *w = &walkers[k];
        const sm_model *m = open_walker(w);
        sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
        double p[SM_MAX_PARAMS], z[SM_MAX_STATE], Pz[SM_MAX_STATE];
        static sm_fixed_result r;
        gait_of(w, m, ws, p, &r);
        sm_model_free(m, r.x, z);
        const size_t n = m->n_free;
        double Je[SM_MAX_STATE * SM_MAX_STATE], Jd[SM_MAX_STATE * SM_MAX_STATE];
        long evals = 0;
        assert_status(sm_map_jacobian_exact(ws, p, w->period, z, Pz, Je, &evals), SM_OK);
        /* One run of N strides; a map's central differences take 2 n N more. */
        assert_int_equal(evals, w->period * (m->map ? 1 + 2 * (long)n : 1));
        const double h = sm_stability_fd_step(0, sm_workspace_options(ws)->rtol);
        assert_status(sm_stability_jacobian(ws, p, w->period, z, h, Jd, &evals), SM_OK);
        const double scale = fmax(1.0, sm_dense_max_abs(Jd, n * n));
        const double d = max_abs_diff(Je, Jd, n * n);
        /* P^N(z) from the sensitivity run is the gait's return too, to the
         * integration error (its steps differ: the sensitivities are in
         * the error test). */
        const double ret = max_abs_diff(Pz, z, n);
        print_message("%-34s N=%d  |J_exact - J_fd| = %.2e (scale %.2g)  |P(z) - z| = %.1e\n", w->name, w->period,
                      d, scale, ret);
        assert_true(d <= 1e-6 * scale);
        assert_true(ret <= 1e-8);
        sm_workspace_free(ws);
        sm_registry_close(m);
    }
}

/* The rimless wheel's one multiplier is cos^2(2 alpha) for every slope
 * (McGeer 1990; models/rimless.c): at rtol = atol = 1e-13 the exact
 * Jacobian gives it to 1e-11, where differences of the stride stop near
 * 1e-8. */
static void test_rimless_multiplier(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    sm_workspace *ws = test_workspace(m, 1e-13, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const double gammas[] = {0.06, 0.08, 0.12};
    for (size_t k = 0; k < 3; k++) {
        set_param(m, p, "gamma", gammas[k]);
        const double alpha = M_PI / p[sm_model_param_index(m, "n")];
        const double g = p[sm_model_param_index(m, "g")], l = p[sm_model_param_index(m, "l")];
        const double z = -cos(2 * alpha) / sin(2 * alpha) * sqrt(4 * (g / l) * sin(alpha) * sin(gammas[k]));
        double J, Pz;
        long evals = 0;
        assert_status(sm_map_jacobian_exact(ws, p, 1, &z, &Pz, &J, &evals), SM_OK);
        const double lambda = cos(2 * alpha) * cos(2 * alpha);
        print_message("gamma %.2f: exact multiplier - cos^2(2 alpha) = %.2e\n", gammas[k], J - lambda);
        assert_close(J, lambda, 1e-11);
        assert_close(Pz, z, 1e-10);
    }
    sm_workspace_free(ws);
}

/* Newton with exact Jacobians on the compass gait from a guess 0.05 off:
 * the residual r_k squares each step, r_{k+1} <= C r_k^2 while r_{k+1} is
 * above the integrator's noise (1e-9; there the steps wander by 1e-10). */
static void test_newton_quadratic(void **state)
{
    (void)state;
    const sm_model *m = test_model("compass");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    const size_t n = m->n_free;
    double z[SM_MAX_STATE], Pz[SM_MAX_STATE], J[SM_MAX_STATE * SM_MAX_STATE], A[SM_MAX_STATE * SM_MAX_STATE];
    double b[SM_MAX_STATE], res[16];
    sm_model_free(m, x, z);
    int it = 0;
    for (; it < 12; it++) {
        long evals = 0;
        assert_status(sm_map_jacobian_exact(ws, p, 1, z, Pz, J, &evals), SM_OK);
        for (size_t i = 0; i < n; i++) b[i] = z[i] - Pz[i];
        res[it] = sm_dense_max_abs(b, n);
        print_message("newton %d: residual %.3e\n", it, res[it]);
        if (res[it] < 1e-9) break;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) A[i * n + j] = J[i * n + j] - (i == j ? 1.0 : 0.0);
        assert_status(sm_dense_solve(n, A, b), SM_OK);
        for (size_t i = 0; i < n; i++) z[i] += b[i];
    }
    assert_true(it < 12);
    int checked = 0;
    for (int k = 0; k + 1 <= it; k++) {
        if (res[k + 1] < 1e-9 || res[k] > 0.1) continue; /* noise, or too far */
        print_message("r_%d / r_%d^2 = %.3g\n", k + 1, k, res[k + 1] / (res[k] * res[k]));
        assert_true(res[k + 1] <= 10.0 * res[k] * res[k]);
        checked++;
    }
    assert_true(checked >= 2);
    sm_workspace_free(ws);
}

/* sm_fixed_point with the exact Jacobian finds the same gait as with
 * differences, in no more iterations, and with check_fd reports the
 * difference multipliers beside the exact ones (agreeing to 1e-6). */
static void test_fixed_point_exact_option(void **state)
{
    (void)state;
    const sm_model *m = test_model("compass");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result fd, ex;
    assert_status(sm_fixed_point(ws, p, x, &no, &fd), SM_OK);
    assert_int_equal(fd.fd_check_status, SM_NOT_CONVERGED); /* not asked for */
    no.jacobian = SM_JACOBIAN_EXACT;
    no.check_fd = true;
    assert_status(sm_fixed_point(ws, p, x, &no, &ex), SM_OK);
    assert_true(ex.iterations <= fd.iterations);
    assert_true(max_abs_diff(ex.x, fd.x, m->n_state) < 1e-9);
    assert_true(ex.jacobian_exact && fd.jacobian_exact);
    assert_status(ex.fd_check_status, SM_OK);
    for (size_t i = 0; i < m->n_free; i++) {
        assert_close(ex.eig_fd_re[i], ex.eig_re[i], 1e-6);
        assert_close(ex.eig_fd_im[i], ex.eig_im[i], 1e-6);
    }
    no.jacobian = (sm_jacobian_kind)7;
    char why[200];
    assert_status(sm_newton_options_check(&no, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_newton_options.jacobian"));
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* Issue 12, item 5: the default settings reproduce the simplest walker's
 * published gait at gamma = 0.009 (Garcia et al. 1998) to 1e-10 and its
 * multipliers, from the exact Jacobian, to 1e-9 of a reference computed
 * here at rtol = atol = 1e-13 and Newton tol 1e-13; and the rimless
 * wheel's closed-form gait and multiplier (models/rimless.c) to 1e-10.
 * At the old defaults (rtol 1e-10, Richardson multipliers) the simplest
 * walker's theta was 5.5e-10 off and its multipliers 1.4e-7. */
static void test_defaults_reproduce_published_gaits(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_newton_options no;
    sm_newton_options_default(&no);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    static sm_fixed_result r, ref;
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    sm_workspace_free(ws);
    print_message("simplest: theta - published %.2e, theta_dot - published %.2e\n", r.x[0] - GARCIA_STABLE_THETA,
                  r.x[1] - GARCIA_STABLE_THETA_DOT);
    assert_close(r.x[0], GARCIA_STABLE_THETA, 1e-10);
    assert_close(r.x[1], GARCIA_STABLE_THETA_DOT, 1e-10);
    assert_true(r.jacobian_exact);
    ws = test_workspace(m, 1e-13, SM_METHOD_ADAMS);
    no.tol = 1e-13;
    assert_status(sm_fixed_point(ws, p, x, &no, &ref), SM_OK);
    sm_workspace_free(ws);
    for (size_t i = 0; i < 2; i++) {
        print_message("multiplier %zu - reference: %.2e%+.2ei\n", i, r.eig_re[i] - ref.eig_re[i],
                      r.eig_im[i] - ref.eig_im[i]);
        assert_true(hypot(r.eig_re[i] - ref.eig_re[i], r.eig_im[i] - ref.eig_im[i]) <= 1e-9);
    }

    m = test_model("rimless");
    double pr[SM_MAX_PARAMS], xr[SM_MAX_STATE];
    sm_model_default_params(m, pr);
    m->guess(xr, pr, m->data);
    sm_newton_options_default(&no);
    ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    assert_status(sm_fixed_point(ws, pr, xr, &no, &r), SM_OK);
    sm_workspace_free(ws);
    const double alpha = M_PI / pr[sm_model_param_index(m, "n")];
    const double g = pr[sm_model_param_index(m, "g")], l = pr[sm_model_param_index(m, "l")];
    const double gamma = pr[sm_model_param_index(m, "gamma")];
    const double rate = -cos(2 * alpha) / sin(2 * alpha) * sqrt(4 * (g / l) * sin(alpha) * sin(gamma));
    print_message("rimless: rate - closed form %.2e, multiplier - cos^2(2 alpha) %.2e\n", r.x[1] - rate,
                  r.eig_re[0] - cos(2 * alpha) * cos(2 * alpha));
    assert_close(r.x[0], alpha, 1e-10);
    assert_close(r.x[1], rate, 1e-10);
    assert_close(r.eig_re[0], cos(2 * alpha) * cos(2 * alpha), 1e-10);
}

static int keep_last(void *ctx, const sm_cont_point *pt)
{
    *(sm_cont_point *)ctx = *pt;
    return 0;
}

/* Continuation with the exact Jacobian in its corrector (start.jacobian)
 * follows the same branch: the simplest walker's gait at gamma = 0.012,
 * reached from 0.009, agrees with the finite-difference corrector's to
 * 1e-9, and its multipliers (exact both ways) to 1e-8. */
static void test_continuation_exact_corrector(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA}, x[4];
    m->guess(x, p, m->data);
    static sm_cont_point last[2];
    for (int k = 0; k < 2; k++) {
        sm_cont_options o;
        sm_cont_options_default(&o, m, 0);
        o.lo = GARCIA_GAMMA;
        o.hi = 0.012;
        o.direction = +1;
        o.start.jacobian = k ? SM_JACOBIAN_EXACT : SM_JACOBIAN_FD;
        sm_cont_result r;
        assert_status(sm_continue(ws, p, x, &o, keep_last, &last[k], &r), SM_OK);
        assert_close(last[k].mu, 0.012, 1e-15);
        assert_true(last[k].jacobian_exact);
    }
    for (size_t i = 0; i < 4; i++) assert_close(last[1].x[i], last[0].x[i], 1e-9);
    for (size_t i = 0; i < 2; i++) {
        assert_close(last[1].eig_re[i], last[0].eig_re[i], 1e-8);
        assert_close(last[1].eig_im[i], last[0].eig_im[i], 1e-8);
    }
    sm_workspace_free(ws);
}

/* Spring-mass walking conserves energy, so the gait's family has the
 * multiplier 1 exactly (Geyer et al. 2006; models/slip.c): the exact
 * Jacobian gives it to 1e-9 (Richardson differences: 1.3e-7). */
static void test_slip_trivial_multiplier(void **state)
{
    (void)state;
    const sm_model *m = test_model("slip");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    set_param(m, p, "E", 840);
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.jacobian_exact);
    assert_true(r.trivial_index >= 0);
    print_message("slip: trivial multiplier - 1 = %.2e%+.2ei\n", r.eig_re[r.trivial_index] - 1,
                  r.eig_im[r.trivial_index]);
    assert_close(r.eig_re[r.trivial_index], 1.0, 1e-9);
    assert_close(r.eig_im[r.trivial_index], 0.0, 1e-9);
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_matches_differences),
        cmocka_unit_test(test_rimless_multiplier),
        cmocka_unit_test(test_newton_quadratic),
        cmocka_unit_test(test_fixed_point_exact_option),
        cmocka_unit_test(test_defaults_reproduce_published_gaits),
        cmocka_unit_test(test_continuation_exact_corrector),
        cmocka_unit_test(test_slip_trivial_multiplier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
