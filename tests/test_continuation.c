/* Continuation, bifurcations and branch switching (continuation.h), held to
 * maps whose bifurcations are known exactly (models/maps.c), then to the
 * simplest walker's published gait. */
#include <stdbool.h>
#include <stdlib.h>

#include "test_util.h"

/* Every point of a run, kept for the checks. */
typedef struct {
    int n;
    sm_cont_point pts[2048];
} trace;

static int keep(void *ctx, const sm_cont_point *pt)
{
    trace *t = ctx;
    if (t->n < 2048) t->pts[t->n++] = *pt;
    return 0;
}

static int count_type(const trace *t, sm_point_type type)
{
    int k = 0;
    for (int i = 0; i < t->n; i++) k += t->pts[i].type == type;
    return k;
}

static const sm_cont_point *first_of(const trace *t, sm_point_type type)
{
    for (int i = 0; i < t->n; i++)
        if (t->pts[i].type == type) return &t->pts[i];
    fail_msg("no %s point on the branch", sm_point_label(type));
    return NULL;
}

/* Largest arclength step of run() (a parameter of a large scale needs more). */
static double run_h_max = 0.05;

/* rtol = atol of run()'s integrator (0: the default). */
static double run_rtol = 0;

/* run()'s corrector Jacobian (sm_cont_options.update). */
static sm_newton_update run_update = SM_NEWTON_BROYDEN;

/* Runs a continuation of model `name` in its parameter `param` from `from`
 * towards `to`. */
static sm_status run(const char *name, const char *param, double from, double to, int period,
                     const double *x0, trace *t, sm_cont_result *r, sm_cont_options *o_out)
{
    const sm_model *m = test_model(name);
    sm_workspace *ws = test_workspace(m, run_rtol, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const int ip = sm_model_param_index(m, param);
    assert_true(ip >= 0);
    p[ip] = from;
    sm_cont_options o;
    sm_cont_options_default(&o, m, (size_t)ip);
    o.lo = fmin(from, to);
    o.hi = fmax(from, to);
    o.direction = to >= from ? +1 : -1;
    o.period = period;
    o.h_max = run_h_max;
    o.update = run_update;
    o.start.update = run_update;
    double x[SM_MAX_STATE];
    if (x0)
        memcpy(x, x0, m->n_state * sizeof *x);
    else
        m->guess(x, p, m->data);
    t->n = 0;
    sm_status st = sm_continue(ws, p, x, &o, keep, t, r);
    if (o_out) *o_out = o;
    sm_workspace_free(ws);
    return st;
}

/* Logistic map: PD at r = 3 on the fixed point x* = 1 - 1/r, and the
 * branch follows x* exactly. */
static void test_logistic_first_period_doubling(void **state)
{
    static trace t;
    sm_cont_result r;
    assert_status(run("logistic", "r", 2.5, 3.3, 1, NULL, &t, &r, NULL), SM_OK);
    assert_int_equal(r.stop, SM_STOP_BOUND);
    assert_int_equal(count_type(&t, SM_POINT_PD), 1);
    assert_int_equal(count_type(&t, SM_POINT_LP), 0);
    assert_int_equal(count_type(&t, SM_POINT_NS), 0);
    const sm_cont_point *pd = first_of(&t, SM_POINT_PD);
    assert_close(pd->mu, 3.0, 1e-8);
    assert_close(pd->x[0], 2.0 / 3.0, 1e-8);
    assert_close(pd->eig_re[0], -1.0, 1e-7);
    assert_close(fabs(pd->eigvec[0]), 1.0, 1e-12);
    for (int i = 0; i < t.n; i++) {
        const sm_cont_point *q = &t.pts[i];
        assert_close(q->x[0], 1.0 - 1.0 / q->mu, 1e-9);
        assert_close(q->eig_re[0], 2.0 - q->mu, 1e-6);
        assert_true(q->stable == (q->mu < 3.0) || fabs(q->mu - 3.0) < 1e-6);
    }
    assert_int_equal(t.pts[0].type, SM_POINT_EP);
    assert_int_equal(t.pts[t.n - 1].type, SM_POINT_EP);
    assert_close(t.pts[t.n - 1].mu, 3.3, 1e-12);
    assert_close(t.pts[0].mu, 2.5, 1e-12);
}

/* Branch switching: r = 3 -> period 2 -> PD at 1 + sqrt 6 -> period 4 ->
 * PD at 3.5440903595519... */
static void test_logistic_switch_to_period_2_and_4(void **state)
{
    static trace t, t2, t4;
    sm_cont_result r, r2, r4;
    sm_cont_options o, o2, o4;
    const sm_model *m = test_model("logistic");
    assert_status(run("logistic", "r", 2.8, 3.2, 1, NULL, &t, &r, &o), SM_OK);
    const sm_cont_point *pd = first_of(&t, SM_POINT_PD);

    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {pd->mu}, x[1], mu;
    o.hi = 3.5;
    assert_status(sm_cont_switch_pd(ws, p, pd, &o, 0, x, &mu, &o2), SM_OK);
    assert_int_equal(o2.period, 2);
    assert_int_equal(o2.direction, +1);
    /* The period-2 orbit: x = ((r+1) +- sqrt((r+1)(r-3))) / (2r). */
    const double disc = sqrt((mu + 1) * (mu - 3));
    const double xa = ((mu + 1) + disc) / (2 * mu), xb = ((mu + 1) - disc) / (2 * mu);
    /* Near the PD the 2-cycle is ill-conditioned in r (multiplier ~ 1), so
     * only loosely: */
    if (!(fabs(x[0] - xa) < 1e-5 || fabs(x[0] - xb) < 1e-5)) fail_msg("x %.17g mu %.17g xa %.17g xb %.17g", x[0], mu, xa, xb);
    p[0] = mu;
    t2.n = 0;
    assert_status(sm_continue(ws, p, x, &o2, keep, &t2, &r2), SM_OK);
    assert_int_equal(r2.stop, SM_STOP_BOUND);
    const sm_cont_point *pd2 = first_of(&t2, SM_POINT_PD);
    assert_int_equal(pd2->period, 2);
    assert_close(pd2->mu, 1.0 + sqrt(6.0), 1e-8);
    for (int i = 0; i < t2.n; i++) {
        const double q = t2.pts[i].mu;
        /* multiplier of the 2-cycle: -r^2 + 2r + 4 */
        if (t2.pts[i].type != SM_POINT_EP) assert_close(t2.pts[i].eig_re[0], -q * q + 2 * q + 4, 1e-5);
    }

    o2.hi = 3.56;
    assert_status(sm_cont_switch_pd(ws, p, pd2, &o2, 0, x, &mu, &o4), SM_OK);
    assert_int_equal(o4.period, 4);
    p[0] = mu;
    t4.n = 0;
    assert_status(sm_continue(ws, p, x, &o4, keep, &t4, &r4), SM_OK);
    const sm_cont_point *pd4 = first_of(&t4, SM_POINT_PD);
    assert_close(pd4->mu, 3.5440903595519228, 1e-8);
    sm_workspace_free(ws);
}

/* foldmap x' = x + mu - x^2: from the unstable branch x = -sqrt(mu) round
 * the fold at mu = 0 onto x = +sqrt(mu) and on to its PD at mu = 1. */
/* Logistic map: the branches x = 1 - 1/r and x = 0 cross at r = 1, where
 * each one's multiplier (2 - r and r) passes through +1 while neither turns
 * in r (dx/dr = 1/r^2 and 0): a transcritical branch point, BP, not a fold.
 * (Before, any zero of det(J - I) was called LP.) */
static void test_transcritical_crossing_is_a_branch_point(void **state)
{
    static const double starts[2] = {-1.0, 0.0}; /* x at r = 0.5 on each branch */
    for (int k = 0; k < 2; k++) {
        static trace t;
        sm_cont_result r;
        assert_status(run("logistic", "r", 0.5, 1.5, 1, &starts[k], &t, &r, NULL), SM_OK);
        assert_int_equal(r.stop, SM_STOP_BOUND);
        assert_int_equal(count_type(&t, SM_POINT_LP), 0);
        assert_int_equal(count_type(&t, SM_POINT_BP), 1);
        assert_int_equal(r.n_special, 1);
        const sm_cont_point *bp = first_of(&t, SM_POINT_BP);
        assert_int_equal(r.special[0].type, SM_POINT_BP);
        /* The corrector is singular at a branch point (both branches solve
         * it), so a residual within tol 1e-10 places a point only to about
         * sqrt(tol) there; predicted on the chord the trials near r = 1
         * were corrected 3e-4 away. */
        assert_close(bp->mu, 1.0, 1e-6);
        assert_close(bp->x[0], 0.0, 1e-6);
        assert_close(bp->eig_re[0], 1.0, 1e-6);
        assert_close(fabs(bp->eigvec[0]), 1.0, 1e-12);
        for (int i = 0; i < t.n; i++) {
            if (t.pts[i].type == SM_POINT_BP) continue; /* (held above) */
            const double mu = t.pts[i].mu, want = k == 0 ? 1.0 - 1.0 / mu : 0.0;
            assert_close(t.pts[i].x[0], want, 1e-9);
            assert_close(t.pts[i].eig_re[0], k == 0 ? 2.0 - mu : mu, 1e-7);
        }
        assert_close(t.pts[t.n - 1].mu, 1.5, 1e-12);
    }
}

static void test_fold_and_back(void **state)
{
    static trace t;
    sm_cont_result r;
    const double x0[1] = {-sqrt(0.5)};
    /* Start decreasing mu; the bound is [-1, 1.5]. */
    const sm_model *m = test_model("foldmap");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {0.5};
    sm_cont_options o;
    sm_cont_options_default(&o, m, 0);
    o.lo = -1.0;
    o.hi = 1.5;
    o.direction = -1;
    t.n = 0;
    assert_status(sm_continue(ws, p, x0, &o, keep, &t, &r), SM_OK);
    sm_workspace_free(ws);
    assert_int_equal(r.stop, SM_STOP_BOUND);
    assert_int_equal(count_type(&t, SM_POINT_LP), 1);
    assert_int_equal(count_type(&t, SM_POINT_PD), 1);
    const sm_cont_point *lp = first_of(&t, SM_POINT_LP), *pd = first_of(&t, SM_POINT_PD);
    assert_close(lp->mu, 0.0, 1e-8);
    assert_close(lp->x[0], 0.0, 1e-6); /* x ~ sqrt(mu): the fold's x is sqrt-sensitive */
    assert_close(lp->eig_re[0], 1.0, 1e-6);
    assert_close(pd->mu, 1.0, 1e-8);
    assert_close(pd->x[0], 1.0, 1e-8);
    assert_true(lp < pd); /* the fold comes first */
    for (int i = 0; i < t.n; i++) assert_close(t.pts[i].x[0] * t.pts[i].x[0], t.pts[i].mu, 1e-9);
    /* It ends at the upper bound on the stable-then-flipped branch. */
    assert_close(t.pts[t.n - 1].mu, 1.5, 1e-12);
    assert_true(t.pts[t.n - 1].x[0] > 0);
}

/* Delayed logistic map: Neimark-Sacker at r = 2, multipliers exp(+-i pi/3). */
static void test_neimark_sacker(void **state)
{
    static trace t;
    sm_cont_result r;
    assert_status(run("delayed_logistic", "r", 1.5, 2.5, 1, NULL, &t, &r, NULL), SM_OK);
    assert_int_equal(count_type(&t, SM_POINT_NS), 1);
    assert_int_equal(count_type(&t, SM_POINT_PD), 0);
    assert_int_equal(count_type(&t, SM_POINT_LP), 0);
    const sm_cont_point *ns = first_of(&t, SM_POINT_NS);
    assert_close(ns->mu, 2.0, 1e-8);
    assert_close(ns->x[0], 0.5, 1e-8);
    assert_close(ns->eig_re[0], 0.5, 1e-6);
    assert_close(fabs(ns->eig_im[0]), sqrt(3.0) / 2.0, 1e-6);
    assert_close(ns->max_abs_eig, 1.0, 1e-8);
}

/* The corrector's Broyden updates (from the last point's Jacobian) and
 * full Newton find the same bifurcations, the exact ones of the test maps
 * and the simplest walker's PD, the updates in fewer strides (both runs'
 * own counts). */
static void test_broyden_corrector_finds_the_same_bifurcations_in_fewer_strides(void **state)
{
    (void)state;
    const struct {
        const char *model, *param;
        double from, to;
        sm_point_type type;
        double exact; /* NaN: none known */
    } cases[] = {{"logistic", "r", 2.5, 3.3, SM_POINT_PD, 3.0},
                 {"delayed_logistic", "r", 1.5, 2.5, SM_POINT_NS, 2.0},
                 {"simplest", "gamma", 0.0145, 0.0155, SM_POINT_PD, NAN}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static trace t[2];
        sm_cont_result r[2];
        double mu[2];
        for (int k = 0; k < 2; k++) {
            run_update = k ? SM_NEWTON_BROYDEN : SM_NEWTON_FULL;
            assert_status(run(cases[i].model, cases[i].param, cases[i].from, cases[i].to, 1, NULL, &t[k], &r[k], NULL),
                          SM_OK);
            assert_int_equal(r[k].stop, SM_STOP_BOUND);
            assert_int_equal(count_type(&t[k], cases[i].type), 1);
            mu[k] = first_of(&t[k], cases[i].type)->mu;
        }
        run_update = SM_NEWTON_BROYDEN;
        print_message("%-16s %s at %.12g (full Newton: %.12g); %d points and %ld strides, full %d and %ld\n",
                      cases[i].model, sm_point_label(cases[i].type), mu[1], mu[0], t[1].n, r[1].stride_evals, t[0].n,
                      r[0].stride_evals);
        if (!isnan(cases[i].exact)) assert_close(mu[1], cases[i].exact, 1e-8);
        assert_close(mu[1], mu[0], 1e-9);
        assert_true(r[1].stride_evals < r[0].stride_evals);
    }
}

/* The simplest walker from a small slope passes through gamma = 0.009 on
 * the published gait (Garcia et al. 1998). */
static void test_simplest_through_garcia_gait(void **state)
{
    static trace t;
    sm_cont_result r;
    assert_status(run("simplest", "gamma", 0.004, GARCIA_GAMMA, 1, NULL, &t, &r, NULL), SM_OK);
    assert_int_equal(r.stop, SM_STOP_BOUND);
    const sm_cont_point *end = &t.pts[t.n - 1];
    assert_int_equal(end->type, SM_POINT_EP);
    assert_close(end->mu, GARCIA_GAMMA, 1e-15);
    assert_close(end->x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(end->x[1], GARCIA_STABLE_THETA_DOT, 1e-8);
    assert_true(end->stable);
    assert_close(end->max_abs_eig, 0.589114, 1e-4);
    for (int i = 0; i < t.n; i++) assert_true(t.pts[i].stable);
    assert_int_equal(count_type(&t, SM_POINT_PD) + count_type(&t, SM_POINT_LP) + count_type(&t, SM_POINT_NS), 0);

    /* Long steps: a corrected point past the bound is redone onto it. */
    assert_status(run("simplest", "gamma", 0.004, 0.014, 1, NULL, &t, &r, NULL), SM_OK);
    assert_int_equal(r.stop, SM_STOP_BOUND);
    for (int i = 0; i < t.n; i++) assert_true(t.pts[i].mu >= 0.004 && t.pts[i].mu <= 0.014);
    assert_close(t.pts[t.n - 1].mu, 0.014, 0.0);
}

/* The simplest walker's gait loses stability by period doubling near
 * gamma = 0.015 (Garcia et al. 1998: stable for 0 < gamma < 0.015), and the
 * period-2 branch born there is a true 2-cycle, stable just past it. */
static void test_simplest_period_doubling_and_switch(void **state)
{
    static trace t, t2;
    sm_cont_result r, r2;
    sm_cont_options o, o2;
    assert_status(run("simplest", "gamma", 0.0145, 0.0155, 1, NULL, &t, &r, &o), SM_OK);
    assert_int_equal(count_type(&t, SM_POINT_PD), 1);
    const sm_cont_point *pd = first_of(&t, SM_POINT_PD);
    assert_true(pd->mu > 0.0150 && pd->mu < 0.0152);
    assert_close(pd->max_abs_eig, 1.0, 1e-6);
    assert_close(pd->eig_re[0], -1.0, 1e-6);

    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {pd->mu}, x[4], mu;
    assert_status(sm_cont_switch_pd(ws, p, pd, &o, 0, x, &mu, &o2), SM_OK);
    assert_int_equal(o2.period, 2);
    assert_int_equal(o2.direction, +1); /* supercritical: the 2-cycle lives past the PD */
    p[0] = mu;
    o2.max_points = 6;
    t2.n = 0;
    assert_status(sm_continue(ws, p, x, &o2, keep, &t2, &r2), SM_OK);
    assert_true(t2.n >= 6);
    for (int i = 0; i < t2.n; i++) {
        const sm_cont_point *q = &t2.pts[i];
        assert_int_equal(q->period, 2);
        assert_true(q->mu > pd->mu);
        assert_true(q->stable);
        /* a 2-cycle, not the period-1 gait counted twice */
        double y[4], z[4];
        p[0] = q->mu;
        memcpy(y, q->x, sizeof y);
        assert_status(sm_stride(ws, p, y, z, NULL, NULL), SM_OK);
        assert_true(fabs(z[0] - y[0]) > 1e-4);
    }
    sm_workspace_free(ws);
}

/* A map whose stride fails past mu = 0.8 (as a walker falls past some
 * slope): the branch stops there, says why, and ends EP then MX. */
static int failing_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    if (p[0] > 0.8) return -1;
    y[0] = x[0] + p[0] - x[0] * x[0];
    *period = 1.0;
    return 0;
}
static void failing_lift(double *x, const double *p, const void *data) {}
static void failing_guess(double *x, const double *p, const void *data) { x[0] = sqrt(fabs(p[0])); }
static double failing_time(const double *p, const void *data) { return 1.0; }

static void test_stops_where_the_stride_fails(void **state)
{
    static const char *const names[] = {"x"};
    static const size_t free_x[] = {0};
    static const sm_param_def params[] = {{"mu", 0.5, -1.0, 3.0, "1", "shift", 0}};
    static const sm_phase phase[] = {{.name = "map"}};
    static const sm_model m = {.name = "failing", .title = "t", .reference = "r", .n_state = 1, .state_names = names,
                               .n_params = 1, .params = params, .n_phases = 1, .phases = phase, .map = failing_map,
                               .n_free = 1, .free_index = free_x, .lift = failing_lift, .guess = failing_guess,
                               .time_limit = failing_time};
    sm_workspace *ws = test_workspace(&m, 0, SM_METHOD_ADAMS);
    static trace t;
    sm_cont_result r;
    double p[SM_MAX_PARAMS] = {0.5}, x[1] = {sqrt(0.5)};
    sm_cont_options o;
    sm_cont_options_default(&o, &m, 0);
    o.lo = 0.0;
    o.hi = 1.5;
    t.n = 0;
    assert_status(sm_continue(ws, p, x, &o, keep, &t, &r), SM_RHS_FAILED);
    assert_int_equal(r.stop, SM_STOP_FAILED);
    assert_status(r.stride_status, SM_RHS_FAILED);
    assert_true(r.stop_mu <= 0.8 && r.stop_mu > 0.8 - 1e-6);
    assert_int_equal(t.pts[t.n - 2].type, SM_POINT_EP);
    assert_int_equal(t.pts[t.n - 1].type, SM_POINT_MX);
    assert_status(t.pts[t.n - 1].status, SM_RHS_FAILED);
    for (int i = 0; i < t.n; i++) assert_true(t.pts[i].mu <= 0.8);
    sm_workspace_free(ws);
}

/* Two-dimensional test maps with a fixed point at x = y = mu and the
 * Jacobian [[0, 1], [-D, T]] there: multipliers lambda^2 - T lambda + D = 0,
 * real while T^2 >= 4 D, a complex pair of modulus sqrt(D) otherwise.
 *   mergemap: T = mu, D = 5/2.  PD (1 + T + D = 0) at mu = -3.5, where the
 *     multipliers are -1 and -2.5; the two real multipliers, both outside
 *     the unit circle, merge into a complex pair at mu = -sqrt(10) and stay
 *     at modulus sqrt(5/2) > 1: no Neimark-Sacker anywhere, and no neutral
 *     saddle (lambda1 lambda2 = D != 1).
 *   pdnsmap: T = -9/5, D = mu.  PD at mu = 4/5 (multipliers -1, -4/5), the
 *     real pair merges inside the circle at mu = 81/100, and the complex
 *     pair crosses the unit circle at mu = 1 (Neimark-Sacker, multipliers
 *     -9/10 +- i sqrt(19)/10). */
static int mergemap_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    const double mu = p[0], x1 = x[1], y1 = mu - 2.5 * (x[0] - mu) + mu * (x[1] - mu); /* y may be x */
    y[0] = x1;
    y[1] = y1;
    *period = 1.0;
    return 0;
}

static int pdnsmap_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    const double mu = p[0], x1 = x[1], y1 = mu - mu * (x[0] - mu) - 1.8 * (x[1] - mu);
    y[0] = x1;
    y[1] = y1;
    *period = 1.0;
    return 0;
}

/* x' = mu + 5/2 (x - mu), y' = mu + mu (y - mu): fixed point x = y = mu,
 * real multipliers 5/2 and mu.  Their product is 1 at mu = 2/5, a neutral
 * saddle: the NS test function vanishes there, but no complex pair is on
 * the circle, so it is no Neimark-Sacker point. */
static int saddle_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    const double mu = p[0], x1 = mu + 2.5 * (x[0] - mu), y1 = mu + mu * (x[1] - mu);
    y[0] = x1;
    y[1] = y1;
    *period = 1.0;
    return 0;
}

/* 1-D: x' = x + 10 (mu - x^2).  Fixed points x = +-sqrt(mu), multiplier
 * 1 - 20 x: a fold at mu = 0 (x = 0) and a PD at x = 1/10, mu = 1/100. */
static int foldpd_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    y[0] = x[0] + 10.0 * (p[0] - x[0] * x[0]);
    *period = 1.0;
    return 0;
}

static void diag_guess(double *x, const double *p, const void *data) { x[0] = x[1] = p[0]; }

#define TEST_MAP(NAME, MAP, NS, NAMES, FREE, GUESS)                                                                   \
    static const sm_param_def NAME##_params[] = {{"mu", 0.0, -10.0, 10.0, "1", "parameter", 0}};                   \
    static const sm_model NAME = {.name = #NAME, .title = "t", .reference = "r", .n_state = NS,                     \
                                  .state_names = NAMES, .n_params = 1, .params = NAME##_params, .n_phases = 1,      \
                                  .phases = map_phase, .map = MAP, .n_free = NS, .free_index = FREE,                \
                                  .lift = failing_lift, .guess = GUESS, .time_limit = failing_time}

static const sm_phase map_phase[] = {{.name = "map"}};
static const char *const xy_names[] = {"x", "y"};
static const size_t free_xy[] = {0, 1};
static const char *const x_name[] = {"x"};
static const size_t free_x0[] = {0};
TEST_MAP(mergemap, mergemap_map, 2, xy_names, free_xy, diag_guess);
TEST_MAP(pdnsmap, pdnsmap_map, 2, xy_names, free_xy, diag_guess);
TEST_MAP(foldpdmap, foldpd_map, 1, x_name, free_x0, failing_guess);
TEST_MAP(saddlemap, saddle_map, 2, xy_names, free_xy, diag_guess);

/* Follows model m's only parameter from `from` to `to` with first and
 * largest step h (h = 0: the defaults). */
static void run_map_in(const sm_model *m, double from, double lo, double hi, int direction, double h,
                       const double *x0, trace *t, sm_cont_result *r);
static void run_map(const sm_model *m, double from, double to, double h, const double *x0, trace *t,
                    sm_cont_result *r)
{
    run_map_in(m, from, fmin(from, to), fmax(from, to), to >= from ? +1 : -1, h, x0, t, r);
}

/* The same within [lo, hi], setting off towards `direction`. */
static void run_map_in(const sm_model *m, double from, double lo, double hi, int direction, double h,
                       const double *x0, trace *t, sm_cont_result *r)
{
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {from}, x[SM_MAX_STATE];
    sm_cont_options o;
    sm_cont_options_default(&o, m, 0);
    o.lo = lo;
    o.hi = hi;
    o.direction = direction;
    if (h > 0) o.h0 = o.h_max = h;
    if (x0)
        memcpy(x, x0, m->n_state * sizeof *x);
    else
        m->guess(x, p, m->data);
    t->n = 0;
    assert_status(sm_continue(ws, p, x, &o, keep, t, r), SM_OK);
    assert_int_equal(r->stop, SM_STOP_BOUND);
    sm_workspace_free(ws);
}

/* Two real multipliers outside the unit circle that become a complex pair
 * there are no Neimark-Sacker point, also when the same step crosses a PD
 * (one step from mu = -3.6 to -3.02 spans the PD at -3.5 and the merge at
 * -sqrt 10), and neither with short steps. */
static void test_real_pair_merging_outside_is_not_ns(void **state)
{
    static trace t;
    sm_cont_result r;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            run_map(&mergemap, -3.6, -2.5, 1.0, NULL, &t, &r);
        else
            run_map(&mergemap, -4.5, -2.0, 0, NULL, &t, &r);
        assert_int_equal(count_type(&t, SM_POINT_NS), 0);
        assert_int_equal(count_type(&t, SM_POINT_LP), 0);
        assert_int_equal(count_type(&t, SM_POINT_PD), 1);
        const sm_cont_point *pd = first_of(&t, SM_POINT_PD);
        assert_close(pd->mu, -3.5, 1e-8);
        assert_close(pd->eig_re[1], -1.0, 1e-7);
        assert_close(pd->eig_re[0], -2.5, 1e-7);
        /* past the merge: the complex pair of modulus sqrt(5/2) */
        const sm_cont_point *end = &t.pts[t.n - 1];
        assert_true(end->mu > -sqrt(10.0));
        assert_close(end->max_abs_eig, sqrt(2.5), 1e-7);
        assert_true(end->eig_im[0] != 0.0);
    }
}

/* A neutral saddle (real multipliers with product 1) is not labelled NS. */
static void test_neutral_saddle_is_not_ns(void **state)
{
    static trace t;
    sm_cont_result r;
    run_map(&saddlemap, 0.2, 0.6, 0, NULL, &t, &r);
    assert_int_equal(count_type(&t, SM_POINT_NS) + count_type(&t, SM_POINT_PD) + count_type(&t, SM_POINT_LP), 0);
    assert_close(t.pts[t.n - 1].mu, 0.6, 0);
    assert_close(t.pts[t.n - 1].eig_re[1], 0.6, 1e-8);
}

/* Two bifurcations in one step, each located to 1e-8: a PD at 4/5 and a
 * Neimark-Sacker at 1 (with the real pair merging at 81/100 between them),
 * and a fold at 0 followed by a PD at 1/100. */
static void test_two_bifurcations_in_one_step(void **state)
{
    static trace t;
    sm_cont_result r;
    /* one step of length 0.95 in (x, y, mu) goes from mu = 0.5 to 1.048 */
    run_map(&pdnsmap, 0.5, 1.2, 0.95, NULL, &t, &r);
    assert_int_equal(count_type(&t, SM_POINT_PD), 1);
    assert_int_equal(count_type(&t, SM_POINT_NS), 1);
    assert_int_equal(count_type(&t, SM_POINT_LP), 0);
    const sm_cont_point *pd = first_of(&t, SM_POINT_PD), *ns = first_of(&t, SM_POINT_NS);
    assert_true(pd < ns);
    assert_status(pd->status, SM_OK);
    assert_status(ns->status, SM_OK);
    assert_close(pd->mu, 0.8, 1e-8);
    assert_close(ns->mu, 1.0, 1e-8);
    assert_close(ns->x[0], 1.0, 1e-8);
    assert_close(ns->eig_re[0], -0.9, 1e-7);
    assert_close(fabs(ns->eig_im[0]), sqrt(19.0) / 10.0, 1e-7);
    assert_close(ns->max_abs_eig, 1.0, 1e-8);
    assert_true(t.pts[1].type == SM_POINT_PD && t.pts[2].type == SM_POINT_NS); /* both inside the first step */

    /* From the lower branch x = -sqrt(mu) at mu = 0.0025 round the fold: a
     * step of 0.2 spans the fold (0, 0) and the PD (0.1, 0.01). */
    const double x0[1] = {-0.05};
    run_map_in(&foldpdmap, 0.0025, -1.0, 0.05, -1, 0.2, x0, &t, &r);
    assert_int_equal(count_type(&t, SM_POINT_LP), 1);
    assert_int_equal(count_type(&t, SM_POINT_PD), 1);
    assert_int_equal(count_type(&t, SM_POINT_NS), 0);
    const sm_cont_point *lp = first_of(&t, SM_POINT_LP);
    pd = first_of(&t, SM_POINT_PD);
    assert_true(lp < pd);
    assert_close(lp->mu, 0.0, 1e-8);
    assert_close(pd->mu, 0.01, 1e-8);
    assert_close(pd->x[0], 0.1, 1e-8);
    assert_true(t.pts[1].type == SM_POINT_LP && t.pts[2].type == SM_POINT_PD);
}

/* Spring-mass walking in its energy E from 800 to 860 J (rtol = atol =
 * 1e-12, steps up to 4 J).  The multipliers besides the trivial 1: a
 * complex pair outside the circle splits on the real axis near 802.7, one
 * real multiplier comes in through -1 at 804.56 (PD) and goes out again at
 * 808.37 (PD); the two real ones merge into a complex pair outside the
 * circle near 809.8 (no bifurcation), and the pair comes in through the
 * circle at 834.91 (NS): stable from there until the apex reaches the rest
 * length of the leg (the stance leg would lift off, y* = L0) near 852.47,
 * where walking ends.  An independent reimplementation of this walker gives
 * the stable range 834.91-852.47 J. */
static void test_slip_energy_bifurcations(void **state)
{
    static trace t;
    sm_cont_result r;
    const sm_model *m = test_model("slip");
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const int ip = sm_model_param_index(m, "E");
    p[ip] = 800;
    m->guess(x, p, m->data);
    sm_cont_options o;
    sm_cont_options_default(&o, m, (size_t)ip);
    o.lo = 800;
    o.hi = 860;
    o.h_max = 4;
    t.n = 0;
    sm_continue(ws, p, x, &o, keep, &t, &r);
    sm_workspace_free(ws);
    assert_int_equal(r.stop, SM_STOP_FAILED);
    assert_status(r.stride_status, SM_EVENT_ORDER);
    assert_true(r.stop_mu > 852.45 && r.stop_mu < 852.48);
    assert_close(r.last.x[1], 1.0, 3e-5); /* the apex at the leg's rest length */
    assert_int_equal(count_type(&t, SM_POINT_LP), 0);
    assert_int_equal(count_type(&t, SM_POINT_PD), 2);
    assert_int_equal(count_type(&t, SM_POINT_NS), 1);
    const sm_cont_point *pd = first_of(&t, SM_POINT_PD), *ns = first_of(&t, SM_POINT_NS);
    assert_close(pd[0].mu, 804.558, 2e-3);
    int k = (int)(pd - t.pts) + 1;
    while (t.pts[k].type != SM_POINT_PD) k++;
    assert_close(t.pts[k].mu, 808.370, 2e-3);
    assert_close(ns->mu, 834.909, 2e-3);
    assert_close(ns->max_abs_eig, 1.0, 1e-6);
    for (int i = 0; i < t.n; i++) {
        const sm_cont_point *q = &t.pts[i];
        if (q->type == SM_POINT_MX) continue;
        assert_true(q->residual <= o.tol);
        if (q->type == SM_POINT_REGULAR || q->type == SM_POINT_EP) assert_true(q->stable == (q->mu > ns->mu));
    }
}

/* foldmap with an error of 2e-9 that always points away from the fixed
 * point, as a stride carries the integrator's error: |P(x) - x| >= 2e-9
 * everywhere, so no Newton step gets the residual below 2e-9. */
static int rippled_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    const double g = p[0] - x[0] * x[0];
    y[0] = x[0] + g + (g >= 0 ? 2e-9 : -2e-9);
    *period = 1.0;
    return 0;
}

/* A point counts as converged only with its residual within the
 * tolerance: with tol 1e-10 the rippled map has no gait at the start (MX,
 * stalled, the residual it got to), with tol 1e-8 every point of the
 * branch is within 1e-8. */
static void test_converged_means_residual_within_tol(void **state)
{
    TEST_MAP(rippled, rippled_map, 1, x_name, free_x0, failing_guess);
    /* rtol 1e-10: the ripple (2e-9) is within the noise a stride may have
     * there (1e3 rtol), so a Newton held up by it has stalled */
    sm_workspace *ws = test_workspace(&rippled, 1e-10, SM_METHOD_ADAMS);
    static trace t;
    sm_cont_result r;
    double p[SM_MAX_PARAMS] = {0.5}, x[1] = {0.7};
    sm_cont_options o;
    sm_cont_options_default(&o, &rippled, 0);
    o.lo = 0.3;
    o.hi = 0.9;
    t.n = 0;
    assert_true(sm_continue(ws, p, x, &o, keep, &t, &r) != SM_OK);
    assert_int_equal(r.stop, SM_STOP_START_FAILED);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.pts[0].type, SM_POINT_MX);
    /* stalled: Newton stopped at the map's own error, near the tolerance */
    assert_status(t.pts[0].status, SM_STALLED);
    assert_true(t.pts[0].residual > o.tol && t.pts[0].residual < 1e-7);

    o.tol = o.start.tol = 1e-8;
    t.n = 0;
    assert_status(sm_continue(ws, p, x, &o, keep, &t, &r), SM_OK);
    assert_int_equal(r.stop, SM_STOP_BOUND);
    assert_true(t.n > 3);
    for (int i = 0; i < t.n; i++) {
        assert_true(t.pts[i].residual <= o.tol);
        assert_close(t.pts[i].x[0], sqrt(t.pts[i].mu), 1e-7);
    }
    sm_workspace_free(ws);
}

/* A walker with a conserved quantity (SLIP walking: the energy E): its
 * gaits form families, one multiplier is 1, and the continuation adds the
 * energy equation and leaves that multiplier out of stability and the test
 * functions.  As the leg stiffness grows the gait loses stability through a
 * complex pair (NS); `stridemap fixed slip` agrees: stable at k = 21400
 * (max |lambda| 0.99929), unstable at 21445 (1.00071).  The energy equation
 * and the map agree only to the integration error (about 1e-9 at rtol
 * 1e-10), so the corrector's tolerance 1e-10 needs rtol 1e-12. */
static void test_slip_neimark_sacker_in_stiffness(void **state)
{
    static trace t;
    sm_cont_result r;
    sm_cont_options o;
    run_h_max = 50; /* k moves by 1000 */
    run_rtol = 1e-12;
    assert_status(run("slip", "k", 21000, 22000, 1, NULL, &t, &r, &o), SM_OK);
    run_h_max = 0.05;
    run_rtol = 0;
    assert_int_equal(r.stop, SM_STOP_BOUND);
    assert_int_equal(count_type(&t, SM_POINT_NS), 1);
    assert_int_equal(count_type(&t, SM_POINT_LP) + count_type(&t, SM_POINT_PD), 0);
    const sm_cont_point *ns = first_of(&t, SM_POINT_NS);
    assert_close(ns->mu, 21422.58, 0.05); /* to the finite-difference Jacobian's noise */
    assert_close(ns->max_abs_eig, 1.0, 1e-6);
    for (int i = 0; i < t.n; i++) {
        if (t.pts[i].type != SM_POINT_REGULAR && t.pts[i].type != SM_POINT_EP) continue;
        assert_true(t.pts[i].stable == (t.pts[i].mu < ns->mu));
        assert_true(t.pts[i].residual <= o.tol);
    }
}

/* The rimless wheel's gait exists only while it can vault over each spoke,
 * theta_dot*^2 > 2 (g/l) (1 - cos(alpha - gamma)) with theta_dot* =
 * -cot(2 alpha) sqrt(4 (g/l) sin(alpha) sin(gamma)), alpha = pi/n (McGeer
 * 1990): for n = 10 down to gamma = 0.033439064302763 (bisection on that
 * closed form).  Continued down the slope, the branch stops just above it,
 * saying the wheel fell backwards; how far above is set by the
 * finite-difference step (a perturbed stride stops vaulting first). */
static void test_rimless_stops_where_it_cannot_vault(void **state)
{
    static trace t;
    sm_cont_result r;
    assert_status(run("rimless", "gamma", 0.08, 0.0, 1, NULL, &t, &r, NULL), SM_FELL_BACKWARD);
    assert_int_equal(r.stop, SM_STOP_FAILED);
    assert_status(r.stride_status, SM_FELL_BACKWARD);
    const double gamma_min = 0.033439064302763;
    assert_true(r.stop_mu > gamma_min && r.stop_mu < gamma_min + 2e-6);
    assert_int_equal(t.pts[t.n - 1].type, SM_POINT_MX);
    assert_status(t.pts[t.n - 1].status, SM_FELL_BACKWARD);
    for (int i = 0; i < t.n - 1; i++) assert_true(t.pts[i].stable);
}

/* No gait at the start: one MX point saying why, and a stop. */
static void test_failed_start_says_why(void **state)
{
    static trace t;
    sm_cont_result r;
    /* A start that falls backwards: far too slow. */
    const double x0[4] = {0.2, -0.01, 0.4, 0.0};
    sm_status st = run("simplest", "gamma", 0.009, 0.012, 1, x0, &t, &r, NULL);
    assert_true(st != SM_OK);
    assert_int_equal(r.stop, SM_STOP_START_FAILED);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.pts[0].type, SM_POINT_MX);
    assert_true(t.pts[0].status != SM_OK);
    assert_status(r.stride_status, SM_FELL_BACKWARD);
    assert_close(t.pts[0].mu, 0.009, 0.0);
}

static void test_labels_and_options(void **state)
{
    assert_string_equal(sm_point_label(SM_POINT_EP), "EP");
    assert_string_equal(sm_point_label(SM_POINT_LP), "LP");
    assert_string_equal(sm_point_label(SM_POINT_PD), "PD");
    assert_string_equal(sm_point_label(SM_POINT_NS), "NS");
    assert_string_equal(sm_point_label(SM_POINT_MX), "MX");
    assert_string_equal(sm_point_label(SM_POINT_BP), "BP");
    assert_string_equal(sm_point_label(SM_POINT_REGULAR), "");
    assert_string_equal(sm_cont_stop_name(SM_STOP_BOUND), "bound");
    const sm_model *m = test_model("logistic");
    sm_cont_options o;
    char why[200];
    sm_cont_options_default(&o, m, 0);
    assert_status(sm_cont_options_check(&o, m, why, sizeof why), SM_OK);
    o.h0 = 0;
    assert_status(sm_cont_options_check(&o, m, why, sizeof why), SM_BAD_OPTION);
    sm_cont_options_default(&o, m, 3);
    assert_status(sm_cont_options_check(&o, m, why, sizeof why), SM_BAD_OPTION);
}

/* A logistic-map branch from r = lo to hi, from the model's guess. */
static void logistic_branch(const sm_model *m, double lo, double hi, double *p, double *x, sm_cont_options *o)
{
    sm_model_default_params(m, p);
    const int ip = sm_model_param_index(m, "r");
    assert_true(ip >= 0);
    p[ip] = lo;
    m->guess(x, p, m->data);
    sm_cont_options_default(o, m, (size_t)ip);
    o->lo = lo;
    o->hi = hi;
}

/* sm_continue in parts: a caller that takes three steps and closes the
 * branch gets the start, three points on the logistic map's fixed point
 * x = 1 - 1/r, and the last as EP. */
static void test_parts_drive_a_branch(void **state)
{
    (void)state;
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_cont_options o;
    logistic_branch(m, 2.5, 2.9, p, x, &o);
    static trace t;
    t.n = 0;
    sm_cont_result r;
    sm_cont_state *s = sm_cont_state_create();
    assert_non_null(s);
    assert_status(sm_cont_start(s, ws, p, x, &o, keep, &t, &r), SM_OK);
    assert_int_equal(t.n, 0); /* the start waits to know whether it is the last */
    for (int k = 0; k < 3; k++) {
        assert_true(sm_cont_more(s));
        assert_status(sm_cont_step(s), SM_OK);
        assert_true(sm_cont_accept(s));
    }
    assert_int_equal(t.n, 3);
    assert_status(sm_cont_finish(s), SM_OK);
    sm_cont_state_free(s);
    assert_int_equal(t.n, 4);
    assert_int_equal(r.n_points, 4);
    assert_int_equal(t.pts[0].type, SM_POINT_EP);
    assert_int_equal(t.pts[3].type, SM_POINT_EP);
    for (int k = 0; k < 4; k++) {
        assert_close(t.pts[k].x[0], 1 - 1 / t.pts[k].mu, 1e-9);
        assert_close(t.pts[k].eig_re[0], 2 - t.pts[k].mu, 1e-6);
        if (k) assert_true(t.pts[k].mu > t.pts[k - 1].mu);
    }
    assert_close(r.stop_mu, t.pts[3].mu, 0.0);
    sm_workspace_free(ws);
}

/* A callback may follow another branch on the same workspace: the inner
 * branch (r from 2.5 to 2.9) must not disturb the outer one (2.5 to 3.3,
 * through the PD at r = 3), whose state the workspace keeps. */
typedef struct {
    sm_workspace *ws;
    const sm_model *m;
    trace outer, inner;
    sm_cont_result inner_r;
    sm_status inner_st;
} nested_ctx;

static int keep_and_nest(void *ctx, const sm_cont_point *pt)
{
    nested_ctx *c = ctx;
    keep(&c->outer, pt);
    if (c->outer.n != 1) return 0;
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_cont_options o;
    logistic_branch(c->m, 2.5, 2.9, p, x, &o);
    c->inner.n = 0;
    c->inner_st = sm_continue(c->ws, p, x, &o, keep, &c->inner, &c->inner_r);
    return 0;
}

static void test_branch_inside_a_branch(void **state)
{
    (void)state;
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    static nested_ctx c;
    c = (nested_ctx){.ws = ws, .m = m};
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_cont_options o;
    logistic_branch(m, 2.5, 3.3, p, x, &o);
    sm_cont_result r;
    for (int round = 0; round < 2; round++) { /* the second with the workspace's state reused */
        c.outer.n = 0;
        assert_status(sm_continue(ws, p, x, &o, keep_and_nest, &c, &r), SM_OK);
        assert_status(c.inner_st, SM_OK);
        assert_int_equal(c.inner_r.stop, SM_STOP_BOUND);
        assert_close(c.inner.pts[c.inner.n - 1].mu, 2.9, 1e-12);
        for (int i = 0; i < c.inner.n; i++) assert_close(c.inner.pts[i].x[0], 1 - 1 / c.inner.pts[i].mu, 1e-9);
        assert_int_equal(r.stop, SM_STOP_BOUND);
        assert_int_equal(count_type(&c.outer, SM_POINT_PD), 1);
        assert_close(first_of(&c.outer, SM_POINT_PD)->mu, 3.0, 1e-8);
        assert_close(c.outer.pts[c.outer.n - 1].mu, 3.3, 1e-12);
        for (int i = 0; i < c.outer.n; i++) assert_close(c.outer.pts[i].x[0], 1 - 1 / c.outer.pts[i].mu, 1e-9);
    }
    sm_workspace_free(ws);
}

/* ---- the branch tree (sm_cont_tree) ---- */

typedef struct {
    int n_branches, points[8], period[8], parent[8];
    double parent_pd[8];
    int n_pd;
    double pd[16];
    double first_mu[8]; /* each branch's first point */
    double start_mu[8];
} tree_log;

static int tree_point(void *ctx, int branch, const sm_cont_point *pt)
{
    tree_log *l = ctx;
    if (branch < 8 && l->points[branch] == 0) l->first_mu[branch] = pt->mu;
    if (branch < 8) l->points[branch]++;
    if (pt->type == SM_POINT_PD && l->n_pd < 16) l->pd[l->n_pd++] = pt->mu;
    return 0;
}

static void tree_branch(void *ctx, const sm_cont_branch *b)
{
    tree_log *l = ctx;
    assert_int_equal(b->index, l->n_branches);
    if (b->index < 8) {
        l->period[b->index] = b->o->period;
        l->parent[b->index] = b->parent;
        l->parent_pd[b->index] = b->parent_pd;
        l->start_mu[b->index] = b->start_mu;
        assert_int_equal(b->r->n_points, l->points[b->index]);
    }
    l->n_branches++;
}

/* The tree from (p, x) with switching up to period 8, logged in l: four
 * branches, periods 1 to 8. */
static void cascade_tree(sm_workspace *ws, const double *p, const double *x, const sm_cont_options *o,
                         sm_cont_tree_options *t, tree_log *l, sm_cont_tree_result *res)
{
    sm_cont_tree_options_default(t);
    t->do_switch = true;
    t->max_period = 8;
    *l = (tree_log){0};
    const sm_cont_tree_fns fns = {tree_point, tree_branch, NULL, l};
    assert_status(sm_cont_tree(ws, p, x, o, t, &fns, res), SM_OK);
    assert_int_equal(res->n_branches, 4);
}

/* The logistic map's cascade: PDs at r = 3, 1 + sqrt 6 and 3.5440903596
 * (May 1976; Feigenbaum's r_3), each branch born at its parent's PD, and
 * with max_period 8 no period-16 branch. */
static void test_tree_follows_the_period_doubling_cascade(void **state)
{
    (void)state;
    const sm_model *m = test_model("logistic");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_cont_options o;
    logistic_branch(m, 2.8, 3.56, p, x, &o);
    o.h_max = 0.02;
    sm_cont_tree_options t;
    tree_log l;
    sm_cont_tree_result res;
    cascade_tree(ws, p, x, &o, &t, &l, &res);
    assert_int_equal(l.n_branches, 4);
    assert_false(res.stopped);
    assert_true(isnan(res.start_residual));
    const double r_pd[3] = {3.0, 1 + sqrt(6.0), 3.5440903596};
    for (int b = 0; b < 4; b++) {
        assert_int_equal(l.period[b], 1 << b);
        assert_int_equal(l.parent[b], b - 1);
        if (b == 0)
            assert_true(isnan(l.parent_pd[0]));
        else
            assert_close(l.parent_pd[b], r_pd[b - 1], 1e-8);
    }
    sm_workspace_free(ws);

    /* Without switching: one branch. */
    ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    t.do_switch = false;
    l = (tree_log){0};
    const sm_cont_tree_fns fns = {tree_point, tree_branch, NULL, &l};
    assert_status(sm_cont_tree(ws, p, x, &o, &t, &fns, &res), SM_OK);
    assert_int_equal(res.n_branches, 1);
    sm_workspace_free(ws);
}

/* The compass gait's cascade at rtol 1e-12 (Goswami, Thuilot & Espiau
 * 1998's doublings): each new branch starts at its parent's PD, so the
 * period-8 branch meets the 8 -> 16 doubling.  The period-8 plane of the
 * switch also cuts the branch far from the PD: the first amplitude that
 * converged used to start it at gamma 0.0940 (the PD is at 0.08748), past
 * the 8 -> 16 doubling at 0.08785, which was never found. */
static void test_compass_cascade_branches_start_at_their_pds(void **state)
{
    (void)state;
    const sm_model *m = test_model("compass");
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const int ip = sm_model_param_index(m, "gamma");
    assert_true(ip >= 0);
    sm_cont_options o;
    sm_cont_options_default(&o, m, (size_t)ip);
    o.lo = p[ip];
    o.hi = 0.1;
    o.direction = +1;
    o.tol = 1e-11;
    o.max_points = 60;
    m->guess(x, p, m->data);
    sm_cont_tree_options t;
    tree_log l;
    sm_cont_tree_result res;
    cascade_tree(ws, p, x, &o, &t, &l, &res);
    for (int b = 1; b < 4; b++) {
        print_message("period %d: parent PD at %.9f, start at %.9f, first point at %.9f\n", l.period[b],
                      l.parent_pd[b], l.start_mu[b], l.first_mu[b]);
        assert_true(fabs(l.first_mu[b] - l.parent_pd[b]) < 1e-3);
    }
    /* the 8 -> 16 doubling, on the period-8 branch */
    bool found = false;
    for (int k = 0; k < l.n_pd; k++) found |= fabs(l.pd[k] - 0.08785) < 1e-4;
    assert_true(found);
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_follows_the_period_doubling_cascade),
        cmocka_unit_test(test_compass_cascade_branches_start_at_their_pds),
        cmocka_unit_test(test_parts_drive_a_branch),
        cmocka_unit_test(test_branch_inside_a_branch),
        cmocka_unit_test(test_labels_and_options),
        cmocka_unit_test(test_logistic_first_period_doubling),
        cmocka_unit_test(test_logistic_switch_to_period_2_and_4),
        cmocka_unit_test(test_fold_and_back),
        cmocka_unit_test(test_transcritical_crossing_is_a_branch_point),
        cmocka_unit_test(test_neimark_sacker),
        cmocka_unit_test(test_broyden_corrector_finds_the_same_bifurcations_in_fewer_strides),
        cmocka_unit_test(test_real_pair_merging_outside_is_not_ns),
        cmocka_unit_test(test_two_bifurcations_in_one_step),
        cmocka_unit_test(test_neutral_saddle_is_not_ns),
        cmocka_unit_test(test_slip_energy_bifurcations),
        cmocka_unit_test(test_converged_means_residual_within_tol),
        cmocka_unit_test(test_simplest_through_garcia_gait),
        cmocka_unit_test(test_simplest_period_doubling_and_switch),
        cmocka_unit_test(test_slip_neimark_sacker_in_stiffness),
        cmocka_unit_test(test_stops_where_the_stride_fails),
        cmocka_unit_test(test_rimless_stops_where_it_cannot_vault),
        cmocka_unit_test(test_failed_start_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
