/* Controllers with a state and a clock, and references of s, in body files
 * (docs/body-walkers.md, controller:), on variants of the three-link HZD
 * walker (models/three_link_hzd.yaml):
 * - an integrator that does not act (gain 0) leaves the gait as it was,
 *   its multiplier is exp(-leak T) and its value on the gait the
 *   variation-of-constants integral of the output along the step, by
 *   quadrature; one that acts, without a leak, makes the output's integral
 *   over the step vanish at the gait;
 * - a sampled controller's torques change only at multiples of its period,
 *   and its gait tends to the continuous one as O(dt) (zero-order hold: a
 *   delay of dt/2), the ratio between halvings measured;
 * - the same sweep of a sampled walker gives the same rows on 1 and 2
 *   threads; the exact Jacobian of a sampled map agrees with central
 *   differences; models/five_link_sampled.yaml's stride moves five_link's
 *   gait by O(dt);
 * - spline and Fourier references read from the file against closed forms;
 * - bad definitions refused at their line, exit status 65. */
#include "cli_run.h"
#include "hzd_checks.h"
#include "src_path.h"
#include "sweep_harness.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/poincare.h"

#define MODEL "models/three_link_hzd.yaml"
#define GAINS "  gains: {kp: 1, kd: 2, epsilon: epsilon}\n"

/* A copy of the model file with `from` replaced by `to` (which must occur
 * once at least; the first is replaced). */
static const char *variant(const char *name, const char *from, const char *to)
{
    static char path[4][320];
    static int k = 0;
    k = (k + 1) % 4;
    char text[16384], out[16384];
    cli_slurp(src_path(MODEL), text, sizeof text);
    char *at = strstr(text, from);
    if (!at) fail_msg("variant %s: '%s' is not in the model file", name, from);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    snprintf(path[k], sizeof path[k], "%s/%s.yaml", base_dir, name);
    FILE *f = fopen(path[k], "w");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
    return path[k];
}

/* The controller with `extra` added after its gains. */
static const char *with_controller(const char *name, const char *extra)
{
    char to[2048];
    snprintf(to, sizeof to, "%s%s", GAINS, extra);
    return variant(name, GAINS, to);
}

/* The line of the first `needle` in the file at path. */
static int line_in(const char *path, const char *needle)
{
    char text[16384];
    cli_slurp(path, text, sizeof text);
    const char *at = strstr(text, needle);
    if (!at) fail_msg("'%s' is not in %s", needle, path);
    int line = 1;
    for (const char *s = text; s < at; s++) line += *s == '\n';
    return line;
}

/* The gait of the model at path from the model's guess, at its defaults. */
static void gait_of(const char *path, const sm_model **m, sm_workspace **ws, double *p, sm_fixed_result *r)
{
    *m = hzd_open_file(path);
    sm_model_default_params(*m, p);
    double x[SM_MAX_STATE];
    (*m)->guess(x, p, (*m)->data);
    *ws = hzd_workspace(*m, 1e-12, SM_METHOD_BDF);
    sm_newton_options no;
    sm_newton_options_default(&no);
    assert_status(sm_fixed_point(*ws, p, x, &no, r), SM_OK);
}

/* Samples of an output's y along one stride: t[n], y[n], the start and the
 * state just before the section event included. */
typedef struct {
    const sm_model *m;
    const double *p;
    size_t out, n, cap;
    double *t, *y;
} y_trace;

static void trace_add(y_trace *w, double t, const double *x)
{
    const body_file *f = body_model_file(w->m);
    sm_vc vc;
    sm_vc_value val;
    double qv[SM_CTRL_MAX_Q];
    body_control_vc(f, w->p, &vc);
    body_control_q_on_v(f, x, qv);
    const body_model *bm = w->m->data;
    sm_vc_eval(&vc, qv, x + bm->nq, &val);
    assert_true(w->n < w->cap);
    w->t[w->n] = t;
    w->y[w->n++] = val.y[w->out];
}

static int trace_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    trace_add(ctx, t, x);
    return 0;
}

static int trace_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)phase, (void)xp;
    if (strcmp(name, "heelstrike") == 0) trace_add(ctx, t, xm);
    return 0;
}

/* ∫₀ᵀ exp(−leak (T − t)) y dt by the trapezoid rule on the trace. */
static double weighted_integral(const y_trace *w, double leak)
{
    const double T = w->t[w->n - 1];
    double s = 0.0;
    for (size_t i = 1; i < w->n; i++) {
        const double a = exp(-leak * (T - w->t[i - 1])) * w->y[i - 1], b = exp(-leak * (T - w->t[i])) * w->y[i];
        s += 0.5 * (a + b) * (w->t[i] - w->t[i - 1]);
    }
    return s;
}

static void trace_stride(sm_workspace *ws, const sm_model *m, const double *p, const double *x, size_t out,
                         double dt, y_trace *w)
{
    w->m = m;
    w->p = p;
    w->out = out;
    w->n = 0;
    trace_add(w, 0.0, x);
    sm_observer obs = {.dt = dt, .sample = trace_sample, .event = trace_event, .ctx = w};
    double xo[SM_MAX_STATE];
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, xo, &mt, &obs), SM_OK);
    assert_close(w->t[w->n - 1], mt.period, 0.0);
}

/* An integrator of the torso output that does not act (gain 0) with leak
 * λ: the walker's gait is the controller's without it; the integrator's
 * row of the Jacobian is exp(−λT) on its own column (it reads nothing
 * else back), so that is a multiplier; and over the period it satisfies
 * z(T) = e^{−λT} z(0) + ∫₀ᵀ e^{−λ(T−t)} y dt, so at the gait
 * z* = ∫₀ᵀ e^{−λ(T−t)} y dt / (1 − e^{−λT}), y by quadrature along the
 * step. */
static void test_integrator_that_does_not_act(void **state)
{
    (void)state;
    const double leak = 1.0;
    const sm_model *m0, *m;
    sm_workspace *ws0, *ws;
    double p0[SM_MAX_PARAMS], p[SM_MAX_PARAMS];
    static sm_fixed_result r0, r;
    gait_of(src_path(MODEL), &m0, &ws0, p0, &r0);
    gait_of(with_controller("monitor", "  integrators: [{name: torso_i, output: torso, gain: 0, leak: 1, at_impact: "
                                       "keep}]\n"),
            &m, &ws, p, &r);
    assert_int_equal(m->n_state, m0->n_state + 1);
    assert_int_equal(m->n_free, m0->n_free + 1);
    const size_t iz = (size_t)sm_model_state_index(m, "torso_i");
    assert_int_equal(iz, m0->n_state);
    for (size_t i = 0; i < m0->n_state; i++) assert_close(r.x[i], r0.x[i], 1e-8);
    const double T = r.metrics.period, want = exp(-leak * T);
    double best = INFINITY;
    for (size_t k = 0; k < m->n_free; k++) best = fmin(best, hypot(r.eig_re[k] - want, r.eig_im[k]));
    assert_true(best < 1e-8);

    static double t[40000], y[40000];
    y_trace w = {.cap = 40000, .t = t, .y = y};
    trace_stride(ws, m, p, r.x, 0, T / 20000, &w);
    const double zstar = weighted_integral(&w, leak) / (1 - exp(-leak * T));
    assert_true(fabs(zstar) > 1e-3); /* the torso output is not zero: its jump at impact decays */
    assert_close(r.x[iz], zstar, 1e-8);
    sm_workspace_free(ws0);
    sm_workspace_free(ws);
    sm_registry_close(m0);
    sm_registry_close(m);
}

/* Integral action without a leak: ż = y, so a periodic z needs
 * ∫₀ᵀ y dt = 0 over the step; the integrator changes the gait (its state
 * is part of the fixed point and the multipliers) and stays stable. */
static void test_integrator_that_acts(void **state)
{
    (void)state;
    const sm_model *m;
    sm_workspace *ws;
    double p[SM_MAX_PARAMS];
    static sm_fixed_result r;
    gait_of(with_controller("integral", "  integrators: [{name: torso_i, output: torso, gain: 0.5, at_impact: keep}]\n"),
            &m, &ws, p, &r);
    assert_true(r.stable);
    const size_t iz = (size_t)sm_model_state_index(m, "torso_i");
    assert_true(fabs(r.x[iz]) > 1e-4);
    static double t[40000], y[40000];
    y_trace w = {.cap = 40000, .t = t, .y = y};
    trace_stride(ws, m, p, r.x, 0, r.metrics.period / 20000, &w);
    double area = 0.0, abs_area = 0.0;
    for (size_t i = 1; i < w.n; i++) {
        area += 0.5 * (y[i] + y[i - 1]) * (t[i] - t[i - 1]);
        abs_area += 0.5 * (fabs(y[i]) + fabs(y[i - 1])) * (t[i] - t[i - 1]);
    }
    assert_true(abs_area > 1e-3);
    assert_true(fabs(area) < 1e-8);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* Held torques change only across multiples of the period. */
typedef struct {
    const sm_model *m;
    double dt, t_prev, held_prev[2];
    int changes, bad;
} hold_watch;

static int hold_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)phase;
    hold_watch *h = ctx;
    const body_model *bm = h->m->data;
    const double *held = x + bm->nq + bm->nv;
    const bool changed = held[0] != h->held_prev[0] || held[1] != h->held_prev[1];
    /* the first tick k dt after the previous sample, as the engine
     * computes its ticks */
    double k = floor(h->t_prev / h->dt) + 1;
    while (!(k * h->dt > h->t_prev)) k++;
    const bool tick_between = k * h->dt <= t;
    h->changes += changed;
    h->bad += changed && !tick_between;
    h->t_prev = t;
    memcpy(h->held_prev, held, sizeof h->held_prev);
    return 0;
}

/* Zero-order hold at dt delays the torques by dt/2 on average: the gait
 * moves by O(dt).  The distance of the sampled gait from the continuous
 * one (max over the walker's state) halves with dt: measured 5.80e-2,
 * 3.13e-2, 1.63e-2 at 0.02, 0.01, 0.005 s, ratios 1.85 and 1.91 (the
 * next term O(dt²)). */
static void test_sampled_tends_to_continuous_as_dt(void **state)
{
    (void)state;
    const sm_model *m0;
    sm_workspace *ws0;
    double p0[SM_MAX_PARAMS];
    static sm_fixed_result r0, r;
    gait_of(src_path(MODEL), &m0, &ws0, p0, &r0);
    const double dts[3] = {0.02, 0.01, 0.005};
    double d[3];
    for (int k = 0; k < 3; k++) {
        char extra[96], name[32];
        snprintf(extra, sizeof extra, "  sampling: {period: %g}\n", dts[k]);
        snprintf(name, sizeof name, "sampled%d", k);
        const sm_model *m = hzd_open_file(with_controller(name, extra));
        assert_int_equal(m->n_state, m0->n_state + 2);
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
        sm_model_default_params(m, p);
        memcpy(x, r0.x, m0->n_state * sizeof *x);
        sm_model_to_section(m, p, x, x);
        sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
        sm_newton_options no;
        sm_newton_options_default(&no);
        assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
        d[k] = 0.0;
        for (size_t i = 0; i < m0->n_state; i++) d[k] = fmax(d[k], fabs(r.x[i] - r0.x[i]));
        /* on the section the clock starts: the held torques are the law's there */
        double u[2];
        const body_model *bm = m->data;
        BODY_EVAL_MEM(mem, bm);
        body_eval e;
        assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
        assert_status(body_control_law_at(&e, 0, r.x, u), SM_OK);
        assert_close(r.x[bm->nq + bm->nv], u[0], 1e-9);
        assert_close(r.x[bm->nq + bm->nv + 1], u[1], 1e-9);
        /* the exact Jacobian (sensitivities through every sample's reset)
         * against central differences of the map on the gait's side of
         * the kinks (the heel-strike moves by about 30 h, far from a
         * sample instant) */
        double z[SM_MAX_STATE], Je[SM_MAX_STATE * SM_MAX_STATE], Jd[SM_MAX_STATE * SM_MAX_STATE];
        long evals = 0;
        sm_model_free(m, r.x, z);
        assert_status(sm_map_jacobian_exact(ws, p, 1, z, NULL, Je, &evals), SM_OK);
        assert_status(sm_map_jacobian(ws, p, 1, z, NULL, 1e-6, true, Jd, &evals), SM_OK);
        double big = 1.0, diff = 0.0;
        for (size_t i = 0; i < m->n_free * m->n_free; i++) {
            big = fmax(big, fabs(Jd[i]));
            diff = fmax(diff, fabs(Je[i] - Jd[i]));
        }
        print_message("dt %g: exact vs central-difference Jacobian %.2e of %.2e\n", dts[k], diff, big);
        assert_true(diff < 3e-5 * big); /* measured 7e-6, 3e-6, 1e-6 of the largest entry */
        hold_watch h = {.m = m, .dt = dts[k], .t_prev = 0.0};
        memcpy(h.held_prev, r.x + bm->nq + bm->nv, sizeof h.held_prev);
        sm_observer obs = {.dt = dts[k] / 7, .sample = hold_sample};
        obs.ctx = &h;
        double xo[SM_MAX_STATE];
        assert_status(sm_stride(ws, p, r.x, xo, NULL, &obs), SM_OK);
        assert_int_equal(h.bad, 0);
        assert_true(h.changes >= (int)(0.9 * r.metrics.period / dts[k]));
        sm_workspace_free(ws);
        sm_registry_close(m);
    }
    print_message("sampled gaits' distance from the continuous one: %.3e %.3e %.3e (ratios %.3f %.3f)\n", d[0], d[1],
                  d[2], d[0] / d[1], d[1] / d[2]);
    assert_true(d[2] < 4 * dts[2]); /* about 3.3 dt over the state (rates in rad/s) */
    assert_in_range((long)lround(100 * d[0] / d[1]), 170, 230);
    assert_in_range((long)lround(100 * d[1] / d[2]), 170, 230);
    sm_workspace_free(ws0);
    sm_registry_close(m0);
}

/* models/five_link_sampled.yaml is five_link.yaml sampled every dt: one
 * stride from five_link's gait lands O(dt) from it, half as far at half
 * the period, and the file names its held torques after the actuators. */
static void test_five_link_sampled_file(void **state)
{
    (void)state;
    const sm_model *mc, *ms;
    sm_workspace *wc;
    double pc[SM_MAX_PARAMS], ps[SM_MAX_PARAMS];
    static sm_fixed_result rc;
    gait_of(src_path("models/five_link.yaml"), &mc, &wc, pc, &rc);
    ms = hzd_open_file(src_path("models/five_link_sampled.yaml"));
    assert_int_equal(ms->n_state, mc->n_state + 4);
    assert_int_equal(sm_model_state_index(ms, "hip_a.held"), (int)mc->n_state);
    assert_int_equal(sm_model_state_index(ms, "knee_b.held"), (int)mc->n_state + 3);
    assert_int_equal(ms->n_free, mc->n_free);
    sm_model_default_params(ms, ps);
    const int idt = sm_model_param_index(ms, "dt");
    assert_true(idt >= 0);
    sm_workspace *ws = hzd_workspace(ms, 1e-12, SM_METHOD_BDF);
    double d[2];
    for (int k = 0; k < 2; k++) {
        ps[idt] = k == 0 ? 0.002 : 0.001;
        double x[SM_MAX_STATE], xo[SM_MAX_STATE];
        memcpy(x, rc.x, mc->n_state * sizeof *x);
        sm_model_to_section(ms, ps, x, x);
        assert_status(sm_stride(ws, ps, x, xo, NULL, NULL), SM_OK);
        /* on the section's free coordinates (the hip's x moves on by the step) */
        double z0[SM_MAX_STATE], z1[SM_MAX_STATE];
        sm_model_free(ms, x, z0);
        sm_model_free(ms, xo, z1);
        d[k] = 0.0;
        for (size_t i = 0; i < ms->n_free; i++) d[k] = fmax(d[k], fabs(z1[i] - z0[i]));
    }
    print_message("five_link_sampled: one stride from five_link's gait moves %.3e at 2 ms, %.3e at 1 ms\n", d[0], d[1]);
    assert_true(d[0] < 0.05);
    assert_in_range((long)lround(100 * d[0] / d[1]), 170, 230);
    sm_workspace_free(ws);
    sm_workspace_free(wc);
    sm_registry_close(ms);
    sm_registry_close(mc);
}

/* A sampled walker's map is deterministic: the same sweep on one thread
 * and on two gives the same rows, bit for bit. */
static void test_sampled_sweep_same_on_one_and_two_threads(void **state)
{
    (void)state;
    const char *path = with_controller("sweep", "  sampling: {period: 0.01}\n");
    const char *d1 = dir("jobs1"), *d2 = dir("jobs2");
    const char *grid1 = "epsilon=0.09:0.1:2", *grid2 = "controller.sampling.period=0.008:0.01:2";
    cli_result *r = cli_run("sweep", path, "--grid", grid1, "--grid", grid2, "--jobs", "1", "--out", d1, "-q", NULL);
    assert_int_equal(r->status, 0);
    r = cli_run("sweep", path, "--grid", grid1, "--grid", grid2, "--jobs", "2", "--out", d2, "-q", NULL);
    assert_int_equal(r->status, 0);
    char *a = rows_of(d1, "sweep.csv");
    assert_int_equal(cli_count_lines(a), 5);
    assert_null(strstr(a, "not_converged"));
    assert_rows(a, d2, "sweep.csv");
    free(a);
}

/* The spline through (0, v0), (1/2, v1), (1, v0) is v0 + (v1 − v0)(3s −
 * 4s³) on [0, 1/2] (test_control.c); the Fourier series of period 2 with
 * c0, c1, s1 is c0 + c1 cos(πs) + s1 sin(πs).  The file's outputs at a
 * state are the coordinates less these. */
static void test_spline_and_fourier_references_from_a_file(void **state)
{
    (void)state;
    const char *path = variant("refs", "poly: [a01, a11, a21, a31]", "spline: {knots: [0, 0.5, 1], values: [0.4, 0.7, 0.4]}");
    /* every output one kind: the second as a spline too */
    char text[16384];
    cli_slurp(path, text, sizeof text);
    const char *swing = "poly: [-theta1d^2 * a02, -1 - theta1d^2 * a12, a02 - theta1d^2 * a22, a12 - theta1d^2 * a32, a22, a32]";
    char *at = strstr(text, swing);
    assert_non_null(at);
    char out[16384];
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, "spline: {knots: [0, 1], values: [0.4, -0.4]}",
             at + strlen(swing));
    FILE *f = fopen(path, "w");
    fputs(out, f);
    fclose(f);
    const sm_model *m = hzd_open_file(path);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    assert_true(sm_model_param_index(m, "controller.outputs.torso.a1") >= 0);
    const body_file *bf = body_model_file(m);
    sm_vc vc;
    sm_vc_value val;
    double qv[SM_CTRL_MAX_Q];
    body_control_vc(bf, p, &vc);
    const double th1d = p[sm_model_param_index(m, "theta1d")];
    for (double s = 0.05; s < 0.5; s += 0.1) {
        m->guess(x, p, m->data);
        x[2] = -th1d + 2 * th1d * s; /* leg_a: the phase variable */
        body_control_q_on_v(bf, x, qv);
        sm_vc_eval(&vc, qv, x + 5, &val);
        assert_close(val.s, s, 1e-14);
        assert_close(val.y[0], x[4] - (0.4 + 0.3 * (3 * s - 4 * s * s * s)), 1e-13);
        assert_close(val.y[1], x[3] - (0.4 - 0.8 * s), 1e-13);
    }
    sm_registry_close(m);

    path = variant("fourier", "poly: [a01, a11, a21, a31]", "fourier: {period: 2, coefficients: [0.4, 0.1, -0.2]}");
    cli_slurp(path, text, sizeof text);
    at = strstr(text, swing);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, "fourier: {period: 2, coefficients: [0, 0.4, 0]}",
             at + strlen(swing));
    f = fopen(path, "w");
    fputs(out, f);
    fclose(f);
    m = hzd_open_file(path);
    sm_model_default_params(m, p);
    bf = body_model_file(m);
    body_control_vc(bf, p, &vc);
    for (double s = 0.05; s < 1.0; s += 0.1) {
        m->guess(x, p, m->data);
        x[2] = -th1d + 2 * th1d * s;
        body_control_q_on_v(bf, x, qv);
        sm_vc_eval(&vc, qv, x + 5, &val);
        assert_close(val.y[0], x[4] - (0.4 + 0.1 * cos(M_PI * s) - 0.2 * sin(M_PI * s)), 1e-13);
        assert_close(val.y[1], x[3] - 0.4 * cos(M_PI * s), 1e-13);
    }
    sm_registry_close(m);
    /* each coefficient is a parameter, as `params` lists them */
    cli_result *r = cli_run("params", path, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "controller.outputs.torso.c0"));
    assert_non_null(strstr(r->out, "controller.outputs.torso.c1"));
    assert_non_null(strstr(r->out, "controller.outputs.torso.s1"));
    assert_non_null(strstr(r->out, "controller.outputs.torso.period"));
}

/* Refused at load: SM_BAD_MODEL_FILE naming path:line, one line with the
 * words; the program exits 65 with them. */
static void expect_refused(const char *path, const char *at_text, const char *words)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    assert_null(strchr(why, '\n'));
    char at[400];
    snprintf(at, sizeof at, "%s:%d:", path, line_in(path, at_text));
    if (!strstr(why, at) || !strstr(why, words)) fail_msg("expected '%s' and '%s' in: %s", at, words, why);
    cli_result *r = cli_run("fixed", path, NULL);
    cli_expect_error(r, 65, words);
}

static void test_bad_definitions_refused(void **state)
{
    (void)state;
    expect_refused(with_controller("dt0", "  sampling: {period: 0}\n"), "period: 0", "controller.sampling.period");
    expect_refused(with_controller("dtneg", "  sampling: {period: -0.01}\n"), "period: -0.01",
                   "controller.sampling.period");
    expect_refused(variant("fourier_even", "poly: [a01, a11, a21, a31]", "fourier: {period: 1, coefficients: [0.5, 0.1]}"),
                   "coefficients: [0.5", "give an odd number");
    expect_refused(variant("knots", "poly: [a01, a11, a21, a31]",
                           "spline: {knots: [0, 0.6, 0.5, 1], values: [0.5, 0.5, 0.5, 0.5]}"),
                   "spline: {knots", "the knots must increase");
    expect_refused(variant("knot_count", "poly: [a01, a11, a21, a31]",
                           "spline: {knots: [0, 0.5, 1], values: [0.5, 0.5, 0.5, 0.5]}"),
                   "spline: {knots", "one value per knot");
    expect_refused(with_controller("int_out", "  integrators: [{name: zi, output: knee, gain: 1, at_impact: keep}]\n"),
                   "integrators:", "which is no output");
    expect_refused(with_controller("int_reset", "  integrators: [{name: zi, output: torso, gain: 1, at_impact: hold}]\n"),
                   "integrators:", "at_impact must be keep or zero");
    /* the explicit pairs find no stop times */
    cli_result *r = cli_run("fixed", with_controller("erk", "  sampling: {period: 0.01}\n"), "--method", "erk5", NULL);
    cli_expect_error(r, 64, "sampled controller");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDEMAP_EXE\n", argv[0]);
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_definitions_refused),
        cmocka_unit_test(test_spline_and_fourier_references_from_a_file),
        cmocka_unit_test(test_integrator_that_does_not_act),
        cmocka_unit_test(test_integrator_that_acts),
        cmocka_unit_test(test_sampled_tends_to_continuous_as_dt),
        cmocka_unit_test(test_sampled_sweep_same_on_one_and_two_threads),
        cmocka_unit_test(test_five_link_sampled_file),
    };
    return cmocka_run_group_tests(tests, sweep_dir_setup, sweep_dir_teardown);
}
