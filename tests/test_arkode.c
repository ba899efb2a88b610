/* ARKODE's explicit Runge-Kutta pairs (SM_METHOD_ERK8, SM_METHOD_ERK5)
 * against CVODE: two independent integrators must find the same gaits, the
 * same falls and the same events, and the rimless wheel's closed form. */
#include <jansson.h>

#include "cli_run.h"
#include "src_path.h"

static const sm_method erk_methods[] = {SM_METHOD_ERK8, SM_METHOD_ERK5};

static const sm_model *open_model(const char *name)
{
    if (!strchr(name, '/')) return test_model(name);
    const sm_model *m = NULL;
    char why[512] = "";
    if (sm_registry_open(src_path(name), &m, why, sizeof why) != SM_OK) fail_msg("%s: %s", name, why);
    return m;
}

static void close_model(const char *name, const sm_model *m)
{
    if (strchr(name, '/')) sm_registry_close(m);
}

static void gait_with(const sm_model *m, const double *p, sm_method method, double tol, sm_fixed_result *r)
{
    sm_workspace *ws = test_workspace(m, tol, method);
    sm_newton_options no;
    sm_newton_options_default(&no);
    double x0[SM_MAX_STATE];
    m->guess(x0, p, m->data);
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    assert_true(r->converged);
    sm_workspace_free(ws);
}

/* Every multiplier of a has one of b within tol (a complex pair may come in
 * either order). */
static void assert_same_multipliers(const sm_fixed_result *a, const sm_fixed_result *b, double tol)
{
    for (size_t i = 0; i < a->n_free; i++) {
        double best = INFINITY;
        for (size_t j = 0; j < b->n_free; j++)
            best = fmin(best, hypot(a->eig_re[i] - b->eig_re[j], a->eig_im[i] - b->eig_im[j]));
        if (!(best <= tol))
            fail_msg("multiplier %zu (%.12g%+.12gi) is %.3g from the other method's", i, a->eig_re[i], a->eig_im[i],
                     best);
    }
}

/* At rtol = atol = 1e-10 both methods' gaits are within a few 1e-10 of the
 * true one, so they agree to 1e-8; the multipliers (central differences,
 * Richardson-extrapolated) to 1e-6. */
static void test_gaits_agree_with_cvode(void **state)
{
    (void)state;
    static const char *const names[] = {"simplest", "compass", "rimless", "slip", "models/compass.yaml",
                                        "models/kneed_mcgeer.yaml"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const sm_model *m = open_model(names[k]);
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        sm_fixed_result ref, r;
        gait_with(m, p, SM_METHOD_ADAMS, 1e-10, &ref);
        for (size_t j = 0; j < sizeof erk_methods / sizeof erk_methods[0]; j++) {
            gait_with(m, p, erk_methods[j], 1e-10, &r);
            double d = 0;
            for (size_t i = 0; i < m->n_state; i++) d = fmax(d, fabs(r.x[i] - ref.x[i]));
            print_message("%-26s %s: max |x - x_cvode| = %.2e\n", names[k], sm_method_name(erk_methods[j]), d);
            for (size_t i = 0; i < m->n_state; i++) assert_close(r.x[i], ref.x[i], 1e-8);
            assert_int_equal(r.n_free, ref.n_free);
            assert_same_multipliers(&r, &ref, 1e-6);
            assert_true(r.stable == ref.stable);
        }
        close_model(names[k], m);
    }
}

/* McGeer's rimless wheel in closed form (models/rimless.c):
 *   theta_dot* = -cot(2 alpha) sqrt(4 (g/l) sin(alpha) sin(gamma)),
 *   multiplier cos^2(2 alpha), alpha = pi / n. */
static void test_rimless_closed_form(void **state)
{
    (void)state;
    const sm_model *m = test_model("rimless");
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const double alpha = M_PI / p[0], gl = p[2] / p[3];
    const double thd = -sqrt(4.0 * gl * sin(alpha) * sin(p[1])) / tan(2.0 * alpha);
    const double lambda = pow(cos(2.0 * alpha), 2);
    for (size_t j = 0; j < sizeof erk_methods / sizeof erk_methods[0]; j++) {
        sm_fixed_result r;
        gait_with(m, p, erk_methods[j], 0, &r);
        assert_close(r.x[0], alpha, 1e-15);
        assert_close(r.x[1], thd, 1e-9);
        assert_close(r.eig_re[0], lambda, 1e-7);
    }
}

/* The starts of test_stride.c's test_falls: each fall ends with the same
 * status and state under both integrators. */
static void test_falls_alike(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    const double starts[][2] = {{0.2, -0.01}, {0.2, -1.5}, {0.2, -1.0}, {0.2, -3.0}, {0.2, 0.1}};
    const sm_status want[] = {SM_FELL_BACKWARD, SM_FELL_FORWARD, SM_FELL_FORWARD, SM_FELL_FORWARD, SM_FELL_BACKWARD};
    sm_workspace *wa = test_workspace(m, 0, SM_METHOD_ADAMS);
    for (size_t j = 0; j < sizeof erk_methods / sizeof erk_methods[0]; j++) {
        sm_workspace *we = test_workspace(m, 0, erk_methods[j]);
        for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
            double x[4], ya[4], ye[4];
            simplest_on_section(starts[k][0], starts[k][1], x);
            assert_status(sm_stride(wa, p, x, ya, NULL, NULL), want[k]);
            assert_status(sm_stride(we, p, x, ye, NULL, NULL), want[k]);
            for (int i = 0; i < 4; i++) assert_close(ye[i], ya[i], 1e-7);
        }
        sm_workspace_free(we);
    }
    sm_workspace_free(wa);
}

typedef struct {
    double t[4096];
    double x[4096][4];
    size_t n;
    double t_event, x_minus[4];
    int events;
} trace;

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    trace *tr = ctx;
    if (tr->n == sizeof tr->t / sizeof tr->t[0]) return 1;
    tr->t[tr->n] = t;
    memcpy(tr->x[tr->n], x, sizeof tr->x[0]);
    tr->n++;
    return 0;
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *x_minus, const double *x_plus)
{
    (void)phase, (void)name, (void)x_plus;
    trace *tr = ctx;
    tr->t_event = t;
    memcpy(tr->x_minus, x_minus, sizeof tr->x_minus);
    tr->events++;
    return 0;
}

static void stride_traced(sm_method method, double tol, const double *x, double dt, trace *tr)
{
    const sm_model *m = test_model("simplest");
    const double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    sm_workspace *ws = test_workspace(m, tol, method);
    sm_observer obs = {.dt = dt, .sample = on_sample, .event = on_event, .ctx = tr};
    double y[4];
    memset(tr, 0, sizeof *tr);
    assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
    assert_int_equal(tr->events, 1);
    sm_workspace_free(ws);
}

/* One stride of the simplest walker from Garcia's gait, sampled every 0.01:
 * the samples come in time order, one per dt before heel-strike, on the
 * trajectory CVODE computes at 1e-13; heel-strike's time and state are
 * CVODE's to 1e-10 with the 8th-order pair (measured 1.1e-11), 1e-9 with the
 * 5th (2.5e-10).  ARKODE's root on its dense output, as it reports it, is
 * 1.6e-9 off in time with the 8th-order pair at rtol 1e-10. */
static void test_events_and_samples(void **state)
{
    (void)state;
    double x[4];
    simplest_on_section(GARCIA_STABLE_THETA, GARCIA_STABLE_THETA_DOT, x);
    static trace ref, tr;
    stride_traced(SM_METHOD_ADAMS, 1e-13, x, 0.01, &ref);
    for (size_t j = 0; j < sizeof erk_methods / sizeof erk_methods[0]; j++) {
        stride_traced(erk_methods[j], 1e-10, x, 0.01, &tr);
        assert_int_equal(tr.n, (size_t)floor(tr.t_event / 0.01));
        assert_int_equal(tr.n, ref.n);
        for (size_t i = 0; i < tr.n; i++) {
            if (i > 0) assert_true(tr.t[i] > tr.t[i - 1]);
            assert_close(tr.t[i], ref.t[i], 1e-12);
            for (int c = 0; c < 4; c++) assert_close(tr.x[i][c], ref.x[i][c], 1e-8);
        }
        assert_true(tr.t[tr.n - 1] < tr.t_event);
        print_message("%s: heel-strike %.2e off CVODE's at 1e-13 in time\n", sm_method_name(erk_methods[j]),
                      tr.t_event - ref.t_event);
        const double tol = erk_methods[j] == SM_METHOD_ERK8 ? 1e-10 : 1e-9;
        assert_close(tr.t_event, ref.t_event, tol);
        for (int c = 0; c < 4; c++) assert_close(tr.x_minus[c], ref.x_minus[c], tol);
        /* on the heel-strike surface phi = 2 theta */
        assert_close(tr.x_minus[2], 2 * tr.x_minus[0], 1e-12);
    }
}

/* A knee damper of 1e6 N m s makes the stance phase stiff: an explicit pair
 * is then held at its stability limit and ends the stride as SM_STIFF, as
 * Adams does (test_cli.c), after 5000 steps (erk5 took 317,450 steps to the
 * fall BDF finds in 532 before the check counted failures from 1 %).
 * At rtol 1e-10: at the 1e-12 default erk8's error test fails repeatedly
 * near h = 1e-9 before 5000 steps are taken (integrator_failed, whose
 * message also says to use BDF). */
static void test_stiff_phase_stops(void **state)
{
    (void)state;
    const char *name = "models/compass_round_spring.yaml";
    const sm_model *m = open_model(name);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const int k = sm_model_param_index(m, "forces.hip_spring.damping");
    assert_true(k >= 0);
    p[k] = 1e6;
    m->guess(x, p, m->data);
    for (size_t j = 0; j < sizeof erk_methods / sizeof erk_methods[0]; j++) {
        sm_workspace *ws = test_workspace(m, 1e-10, erk_methods[j]);
        assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_STIFF);
        sm_counters c;
        sm_workspace_counters(ws, &c);
        assert_true(c.steps <= 5000);
        sm_workspace_free(ws);
    }
    close_model(name, m);
}

static void test_options(void **state)
{
    (void)state;
    sm_solver_options o;
    sm_solver_options_default(&o);
    char why[256];
    o.method = SM_METHOD_ERK8;
    assert_status(sm_solver_options_check(&o, why, sizeof why), SM_OK);
    o.max_order = 5;
    assert_status(sm_solver_options_check(&o, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_solver_options.max_order"));
    o.max_order = 0;
    o.method = (sm_method)99;
    assert_status(sm_solver_options_check(&o, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_solver_options.method"));
    assert_string_equal(sm_method_name(SM_METHOD_ERK8), "erk8");
    assert_string_equal(sm_method_name(SM_METHOD_ERK5), "erk5");
    assert_null(sm_method_name((sm_method)99));
}

static void cli_erk8_finds_garcias_gait(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--set", "gamma=0.009", "--method", "erk8", "--json", NULL);
    assert_int_equal(r->status, 0);
    json_error_t err;
    json_t *doc = json_loads(r->out, 0, &err);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "solver"), "method")), "erk8");
    json_t *fp = json_object_get(doc, "fixed_point");
    assert_close(json_real_value(json_array_get(fp, 0)), GARCIA_STABLE_THETA, 1e-9);
    assert_close(json_real_value(json_array_get(fp, 1)), GARCIA_STABLE_THETA_DOT, 1e-9);
    json_decref(doc);
}

static void cli_refuses_bad_methods(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", "simplest", "--method", "erk6", NULL);
    cli_expect_error(r, 65, "--method");
    assert_non_null(strstr(r->err, "erk8"));
    r = cli_run("fixed", "simplest", "--method", "erk5", "--max-order", "4", NULL);
    cli_expect_error(r, 65, "--max-order");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_arkode PATH_TO_STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaits_agree_with_cvode),
        cmocka_unit_test(test_rimless_closed_form),
        cmocka_unit_test(test_falls_alike),
        cmocka_unit_test(test_events_and_samples),
        cmocka_unit_test(test_stiff_phase_stops),
        cmocka_unit_test(test_options),
        cmocka_unit_test(cli_erk8_finds_garcias_gait),
        cmocka_unit_test(cli_refuses_bad_methods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
