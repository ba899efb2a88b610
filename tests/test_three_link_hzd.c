/* The three-link HZD walker (models/three_link_hzd.yaml) and controllers in
 * body files (docs/body-walkers.md, controller:): the outputs held at zero
 * along a step started on the zero dynamics; energy conserved without
 * torques and changed by the torques' work with them (integrated alongside
 * by a fine fourth-order Runge-Kutta, independent of CVODE); bad controller
 * definitions refused at their line, at run time with their statuses; the
 * program's exit codes; continuation in a controller coefficient. */
#include "cli_run.h"
#include "hzd_checks.h"
#include "src_path.h"
#include "../src/body/body_model.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/hzd.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

#define MODEL "models/three_link_hzd.yaml"

/* A copy of the model file at path with every `from` replaced by `to`
 * (each must occur). */
static const char *variant(const char *name, const char *const *from, const char *const *to, size_t n)
{
    static char path[4][256];
    static int k = 0;
    k = (k + 1) % 4;
    char text[16384];
    cli_slurp(src_path(MODEL), text, sizeof text);
    for (size_t i = 0; i < n; i++) {
        char *at = strstr(text, from[i]);
        if (!at) fail_msg("variant %s: '%s' is not in the model file", name, from[i]);
        char out[16384];
        snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to[i], at + strlen(from[i]));
        memcpy(text, out, sizeof text);
    }
    snprintf(path[k], sizeof path[k], "/tmp/stridemap_test_hzd_%d_%s.yaml", (int)getpid(), name);
    FILE *f = fopen(path[k], "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path[k];
}

/* A state on the zero dynamics at the step's start: theta1 = start, the
 * other angles and rates from h_d, the stance foot at the origin, the hip's
 * rates from the pin; theta1_dot = w. */
static void zero_dynamics_state(const sm_model *m, const double *p, double w, double *x)
{
    const body_file *f = body_model_file(m);
    sm_vc vc;
    body_control_vc(f, p, &vc);
    const double r = p[sm_model_param_index(m, "r")], th = vc.theta_plus;
    double h1[3], h2[3];
    sm_vc_desired(&vc, 0, th, h1);
    sm_vc_desired(&vc, 1, th, h2);
    const double q[5] = {r * sin(th), r * cos(th), th, h2[0], h1[0]};
    const double v[5] = {r * cos(th) * w, -r * sin(th) * w, w, h2[1] * w, h1[1] * w};
    memcpy(x, q, sizeof q);
    memcpy(x + 5, v, sizeof v);
}

typedef struct {
    const sm_model *m;
    const double *p;
    double max_y;
    int samples;
} y_watch;

static void watch_y(y_watch *w, const double *x)
{
    const body_file *f = body_model_file(w->m);
    sm_vc vc;
    sm_vc_value val;
    double qv[SM_CTRL_MAX_Q];
    body_control_vc(f, w->p, &vc);
    body_control_q_on_v(f, x, qv);
    sm_vc_eval(&vc, qv, x + 5, &val);
    for (size_t i = 0; i < vc.ny; i++) w->max_y = fmax(w->max_y, fabs(val.y[i]));
    w->samples++;
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    (void)t;
    (void)phase;
    watch_y(ctx, x);
    return 0;
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)t;
    (void)phase;
    (void)name;
    (void)xp;
    watch_y(ctx, xm); /* just before the impact; after it the torso output jumps (below) */
    return 0;
}

static void test_outputs_stay_zero_on_the_zero_dynamics(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    zero_dynamics_state(m, p, 1.2, x);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_ADAMS);
    y_watch w = {.m = m, .p = p};
    watch_y(&w, x);
    assert_true(w.max_y < 1e-15);
    sm_observer obs = {.dt = 1e-3, .sample = on_sample, .event = on_event, .ctx = &w};
    assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
    assert_true(w.samples > 500);
    if (!(w.max_y < 1e-8)) fail_msg("max |y| along the step = %g", w.max_y);
    /* the torso output is not impact invariant with these coefficients:
     * theta3 keeps its value while h_d,1 goes from theta1d to -theta1d, so
     * y1 jumps by the odd part of h_d,1, 2 (a11 d + a31 d^3) */
    const double d = p[sm_model_param_index(m, "theta1d")];
    const double jump = 2 * (p[sm_model_param_index(m, "a11")] * d + p[sm_model_param_index(m, "a31")] * d * d * d);
    y_watch after = {.m = m, .p = p};
    watch_y(&after, y);
    assert_close(after.max_y, fabs(jump), 1e-6);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* The swing foot's height r (cos theta1 - cos theta2) along a step on the
 * zero dynamics, against where y2 = 0 makes the legs pass each other:
 * 2 theta1 = (a02 + a12 theta1 + a22 theta1^2 + a32 theta1^3)(theta1^2 - theta1d^2),
 * solved here by bisection.  Straight legs keep the foot above the ground
 * only while |theta2| > |theta1|, so with the a02 = -2.27 (legs
 * passing at theta1 = 0.1253) the foot is below the ground from there to
 * the impact, and with a02 = 0 (passing at mid-stance) it never is
 * (models/three_link_hzd.yaml's header, results/README.md). */
typedef struct {
    double r, d, th_c;
    bool crossing_late; /* the legs pass after mid-stance: below the ground from there */
    int samples, wrong;
    double lowest;
} foot_watch;

static int on_foot(void *ctx, double t, size_t phase, const double *x)
{
    (void)t;
    (void)phase;
    foot_watch *w = ctx;
    const double th1 = x[2], h = x[1] - w->r * cos(x[3]);
    w->samples++;
    w->lowest = fmin(w->lowest, h);
    const bool past = w->crossing_late && th1 > w->th_c;
    if (th1 > -w->d + 1e-4 && th1 < w->d - 1e-4 && fabs(th1 - w->th_c) > 1e-4 && (h < 0) != past) w->wrong++;
    return 0;
}

static double legs_pass(const double *c, double d)
{
    double lo = 0.0, hi = d; /* 2 theta - factor (theta^2 - d^2): a02 d^2 <= 0 at 0, 2 d > 0 at d */
    for (int k = 0; k < 100; k++) {
        const double x = 0.5 * (lo + hi), g = 2 * x - (c[0] + c[1] * x + c[2] * x * x + c[3] * x * x * x) * (x * x - d * d);
        if (g < 0) lo = x;
        else hi = x;
    }
    return 0.5 * (lo + hi);
}

static void test_swing_foot_below_the_ground_where_the_legs_pass(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_ADAMS);
    for (int k = 0; k < 2; k++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        if (k == 1) set_param(m, p, "a02", 0.0);
        const double c[4] = {p[sm_model_param_index(m, "a02")], p[sm_model_param_index(m, "a12")],
                             p[sm_model_param_index(m, "a22")], p[sm_model_param_index(m, "a32")]};
        foot_watch w = {.r = p[sm_model_param_index(m, "r")], .d = p[sm_model_param_index(m, "theta1d")],
                        .lowest = INFINITY};
        w.th_c = legs_pass(c, w.d);
        w.crossing_late = k == 0;
        zero_dynamics_state(m, p, 1.2, x);
        sm_observer obs = {.dt = 1e-3, .sample = on_foot, .ctx = &w};
        assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
        assert_true(w.samples > 500);
        assert_int_equal(w.wrong, 0);
        if (k == 0) {
            assert_close(w.th_c, 0.1253, 1e-4);
            assert_true(w.lowest < -0.02);
        } else {
            assert_close(w.th_c, 0.0, 1e-15);
            assert_true(w.lowest > -1e-9);
        }
    }
    sm_workspace_free(ws);
    sm_registry_close(m);
}

static void test_energy_and_the_torques_work(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], moved;
    sm_model_default_params(m, p);
    /* off the zero dynamics, so that the torques work hard */
    zero_dynamics_state(m, p, 0.93, x);
    x[4] += 0.05;
    x[9] -= 0.3;
    const double miss = hzd_energy_balance(m, p, x, 0.5, 1e-4, &moved);
    assert_true(fabs(moved) > 1.0); /* the torques do move the energy */
    if (!(fabs(miss) < 1e-8)) fail_msg("E(T) - E(0) - work = %g (energy moved by %g)", miss, moved);
    sm_registry_close(m);

    /* PD with zero gains: no torque, the energy stays */
    const char *from[] = {"kind: io_linearisation", "gains: {kp: 1, kd: 2, epsilon: epsilon}"};
    const char *to[] = {"kind: pd", "gains: {kp: 0, kd: 0}"};
    m = hzd_open_file(variant("passive", from, to, 2));
    sm_model_default_params(m, p);
    const double miss0 = hzd_energy_balance(m, p, x, 0.5, 1e-4, &moved);
    if (!(fabs(miss0) < 1e-8) || !(fabs(moved) < 1e-8)) fail_msg("passive: energy moved by %g (miss %g)", moved, miss0);
    sm_registry_close(m);
}

static void test_gait_and_torque_peaks(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_workspace *ws = hzd_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.stable);
    /* the gait ends where y2 = 0 meets theta2 = -theta1: at theta1d, up to
     * what is left of the torso output's jump after the step */
    const double d = p[sm_model_param_index(m, "theta1d")];
    assert_close(r.x[2], -d, 1e-3);
    assert_close(r.x[3], d, 1e-3);
    double values[SM_MAX_EXTRA];
    assert_true(sm_gait_extra_measures(ws, p, &r.gait, values));
    int found = 0;
    for (size_t i = 0; i < m->n_extra; i++)
        if (strstr(m->extra_names[i], ".max_torque")) {
            assert_true(values[i] > 0 && isfinite(values[i]));
            found++;
        }
    assert_int_equal(found, 2);
    const double io = r.eig_re[0];
    sm_workspace_free(ws);
    sm_registry_close(m);

    /* PD without the model tends to the same zero dynamics as its gains
     * grow: at kp = 1e4 a stable gait whose multiplier is near IO's */
    const char *from[] = {"kind: io_linearisation", "gains: {kp: 1, kd: 2, epsilon: epsilon}"};
    const char *to[] = {"kind: pd", "gains: {kp: 10000, kd: 300}"};
    m = hzd_open_file(variant("pd", from, to, 2));
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.method = SM_METHOD_BDF; /* stiff at these gains, as m->stiff says */
    assert_true(m->stiff);
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.stable);
    assert_close(r.eig_re[0], io, 0.01);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* A file refused at load: SM_BAD_MODEL_FILE, one line naming the file at
 * line:col, with the words that say what is wrong. */
static void expect_refused(const char *path, int line, const char *words)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    assert_null(strchr(why, '\n'));
    char at[320];
    snprintf(at, sizeof at, "%s:%d:", path, line);
    if (!strstr(why, at) || !strstr(why, words)) fail_msg("expected '%s' and '%s' in: %s", at, words, why);
    cli_result *r = cli_run("fixed", path, NULL);
    cli_expect_error(r, 65, words);
}

static int line_of(const char *needle)
{
    char text[16384];
    cli_slurp(src_path(MODEL), text, sizeof text);
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *s = text; s < at; s++) line += *s == '\n';
    return line;
}

static void test_bad_definitions_refused(void **state)
{
    (void)state;
    {   /* Bézier outputs of different degrees */
        const char *from[] = {"poly: [a01, a11, a21, a31]",
                              "poly: [-theta1d^2 * a02, -1 - theta1d^2 * a12, a02 - theta1d^2 * a22, a12 - theta1d^2 * a32, a22, a32]"};
        const char *to[] = {"bezier: [0.5, 0.5, 0.5, 0.5]", "bezier: [0, 0, 0]"};
        expect_refused(variant("bezier_count", from, to, 2), line_of("poly: [-theta1d^2"), "Bezier coefficients");
    }
    {   /* an output row of the wrong length */
        const char *from[] = {"on: {torso: 1}, poly"};
        const char *to[] = {"row: [0, 0, 0, 0, 1, 0], poly"};
        expect_refused(variant("row_length", from, to, 1), line_of("on: {torso: 1}, poly"), "row has 6 entries");
    }
    {   /* two actuators alike: L_g L_f y singular */
        const char *from[] = {"on: {leg_b: -1, torso: 1}"};
        const char *to[] = {"on: {leg_a: -1, torso: 1}"};
        expect_refused(variant("singular", from, to, 1), line_of("  outputs:") , "decoupling matrix");
    }
    {   /* more outputs than actuators */
        const char *from[] = {"    - {name: torso_leg_b, on: {leg_b: -1, torso: 1}}\n"};
        const char *to[] = {""};
        expect_refused(variant("count", from, to, 1), line_of("  outputs:") - 1, "one output per actuator");
    }
    {   /* a declared Bezier degree the lists do not have */
        const char *from[] = {"poly: [a01, a11, a21, a31]",
                              "poly: [-theta1d^2 * a02, -1 - theta1d^2 * a12, a02 - theta1d^2 * a22, a12 - theta1d^2 * a32, a22, a32]",
                              "  outputs:\n"};
        const char *to[] = {"bezier: [0.5, 0.5, 0.5, 0.5]", "bezier: [0, 0, 0, 0]", "  degree: 4\n  outputs:\n"};
        expect_refused(variant("degree", from, to, 3), line_of("poly: [a01, a11, a21, a31]") + 1, "degree 4 needs 5");
    }
    {   /* a phase variable that starts where it ends */
        const char *from[] = {"start: -theta1d, end: theta1d"};
        const char *to[] = {"start: theta1d, end: theta1d"};
        expect_refused(variant("span", from, to, 1), line_of("start: -theta1d, end: theta1d"), "end equals its start");
    }
    {   /* an unknown kind */
        const char *from[] = {"kind: io_linearisation"};
        const char *to[] = {"kind: lqr"};
        expect_refused(variant("kind", from, to, 1), line_of("kind: io_linearisation"), "unknown controller kind");
    }
}

/* The three-link walker's point masses written out (the model): the
 * stance foot at f, the hip at f + r (sin t1, cos t1), the legs' masses at
 * the hip − r/2 (sin ti, cos ti), the torso's at the hip + L (sin t3, cos
 * t3).  Angular momentum about the point o (y component, z vx − x vz) and
 * gravity's torque about it, for angles t[3] and rates w[3]. */
typedef struct {
    double m, Mh, Mt, r, L, g;
} three_link;

static three_link three_link_at(const sm_model *m, const double *p)
{
    return (three_link){p[sm_model_param_index(m, "m")], p[sm_model_param_index(m, "Mh")],
                        p[sm_model_param_index(m, "Mt")], p[sm_model_param_index(m, "r")],
                        p[sm_model_param_index(m, "L")], 9.8};
}

static void three_link_about(const three_link *k, const double f[2], const double *t, const double *w,
                             const double o[2], double *sigma, double *torque)
{
    const double hx = f[0] + k->r * sin(t[0]), hz = f[1] + k->r * cos(t[0]);
    const double hvx = k->r * cos(t[0]) * w[0], hvz = -k->r * sin(t[0]) * w[0];
    double pos[4][2] = {{hx, hz}}, vel[4][2] = {{hvx, hvz}};
    const double mass[4] = {k->Mh, k->m, k->m, k->Mt};
    for (int i = 0; i < 2; i++) {
        pos[1 + i][0] = hx - 0.5 * k->r * sin(t[i]);
        pos[1 + i][1] = hz - 0.5 * k->r * cos(t[i]);
        vel[1 + i][0] = hvx - 0.5 * k->r * cos(t[i]) * w[i];
        vel[1 + i][1] = hvz + 0.5 * k->r * sin(t[i]) * w[i];
    }
    pos[3][0] = hx + k->L * sin(t[2]);
    pos[3][1] = hz + k->L * cos(t[2]);
    vel[3][0] = hvx + k->L * cos(t[2]) * w[2];
    vel[3][1] = hvz - k->L * sin(t[2]) * w[2];
    double L = 0, T = 0;
    for (int i = 0; i < 4; i++) {
        const double rx = pos[i][0] - o[0], rz = pos[i][1] - o[1];
        L += mass[i] * (rz * vel[i][0] - rx * vel[i][1]);
        T += mass[i] * rx * k->g;
    }
    *sigma = L;
    if (torque) *torque = T;
}

/* The zero dynamics written out: theta2 = h_d,2(theta1), theta3 =
 * h_d,1(theta1) with the polynomials, rates for theta1_dot = 1. */
static void three_link_zd(const sm_model *m, const double *p, double th, double *t, double *w)
{
    const double d = p[sm_model_param_index(m, "theta1d")];
    const double a1[4] = {p[sm_model_param_index(m, "a01")], p[sm_model_param_index(m, "a11")],
                          p[sm_model_param_index(m, "a21")], p[sm_model_param_index(m, "a31")]};
    const double a2[4] = {p[sm_model_param_index(m, "a02")], p[sm_model_param_index(m, "a12")],
                          p[sm_model_param_index(m, "a22")], p[sm_model_param_index(m, "a32")]};
    const double P = a2[0] + th * (a2[1] + th * (a2[2] + th * a2[3]));
    const double dP = a2[1] + th * (2 * a2[2] + th * 3 * a2[3]);
    t[0] = th;
    w[0] = 1;
    t[1] = -th + P * (th * th - d * d);
    w[1] = -1 + dP * (th * th - d * d) + 2 * th * P;
    t[2] = a1[0] + th * (a1[1] + th * (a1[2] + th * a1[3]));
    w[2] = a1[1] + th * (2 * a1[2] + th * 3 * a1[3]);
}

/* The restricted map's pieces against the point masses written out: zeta
 * of the gait's section state; V(theta-) by a fine Simpson rule on
 * kappa1 kappa2; delta as the angular momentum about the swing foot (where
 * the plastic impulse acts, so it is conserved through the impact) over
 * that about the stance foot, just before the impact. */
static void test_restricted_map_by_hand(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const three_link k = three_link_at(m, p);
    m->guess(x, p, m->data);
    double zeta, sigma;
    assert_status(sm_hzd_zeta(m, p, x, &zeta), SM_OK);
    const double foot[2] = {x[0] - k.r * sin(x[2]), x[1] - k.r * cos(x[2])};
    three_link_about(&k, foot, x + 2, x + 7, foot, &sigma, NULL);
    assert_close(zeta, 0.5 * sigma * sigma, 1e-10 * zeta);

    sm_restricted_map rm;
    assert_status(sm_hzd_restricted_map(m, p, 1e-11, &rm), SM_OK);
    const double d = p[sm_model_param_index(m, "theta1d")], origin[2] = {0, 0};
    const int n = 4000; /* Simpson's error ~ (2d/n)^4: below 1e-12 of V */
    double V = 0;
    for (int i = 0; i <= n; i++) {
        const double th = -d + 2 * d * i / n;
        double t[3], w[3], k1, k2;
        three_link_zd(m, p, th, t, w);
        three_link_about(&k, origin, t, w, origin, &k1, &k2);
        V -= (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * k1 * k2 * (2 * d / n) / 3;
    }
    assert_close(rm.v_minus, V, 1e-9 * fabs(V));
    double t[3], w[3], s_stance, s_swing;
    three_link_zd(m, p, d, t, w);
    const double swing[2] = {k.r * (sin(t[0]) - sin(t[1])), k.r * (cos(t[0]) - cos(t[1]))};
    three_link_about(&k, origin, t, w, origin, &s_stance, NULL);
    three_link_about(&k, origin, t, w, swing, &s_swing, NULL);
    assert_close(rm.delta, s_swing / s_stance, 1e-12);
    assert_close(rm.multiplier, rm.delta * rm.delta, 1e-15);
    assert_close(rm.zeta_star, -V / (1 - rm.delta * rm.delta), 1e-9 * rm.zeta_star);
    sm_registry_close(m);
}

/* An impact-invariant design: the torso's output made even in theta1
 * (a11 = a31 = 0, so y1 = 0 survives the swap) and a01 = 0.8, then a21 and
 * a12 by Newton on the outputs' rates after the impact from the zero
 * dynamics (dy_plus = 0).  There the restricted map is the full map's
 * restriction: the full map's dominant multiplier is delta^2 and its gait
 * carries zeta* (Westervelt et al. 2007, Theorem 5.3). */
static void test_restricted_map_is_the_full_maps_restriction(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    assert_true(sm_hzd_applies(m));
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    set_param(m, p, "a11", 0);
    set_param(m, p, "a31", 0);
    set_param(m, p, "a01", 0.8);
    const int u[2] = {sm_model_param_index(m, "a21"), sm_model_param_index(m, "a12")};
    sm_restricted_map rm;
    for (int it = 0; it < 12; it++) {
        assert_status(sm_hzd_restricted_map(m, p, 1e-9, &rm), SM_OK);
        if (rm.invariance < 1e-13) break;
        double J[2][2];
        for (int k = 0; k < 2; k++) {
            const double keep = p[u[k]], h = 1e-6;
            sm_restricted_map r2;
            p[u[k]] = keep + h;
            assert_status(sm_hzd_restricted_map(m, p, 1e-9, &r2), SM_OK);
            p[u[k]] = keep;
            for (int i = 0; i < 2; i++) J[i][k] = (r2.dy_plus[i] - rm.dy_plus[i]) / h;
        }
        const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
        p[u[0]] -= (J[1][1] * rm.dy_plus[0] - J[0][1] * rm.dy_plus[1]) / det;
        p[u[1]] -= (J[0][0] * rm.dy_plus[1] - J[1][0] * rm.dy_plus[0]) / det;
    }
    assert_status(sm_hzd_restricted_map(m, p, 1e-12, &rm), SM_OK);
    assert_true(rm.invariance < 1e-12);
    assert_true(rm.exists);
    assert_true(rm.multiplier > 0 && rm.multiplier < 1);

    double x[SM_MAX_STATE];
    m->guess(x, p, m->data);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.tol = 1e-11;
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_close(r.eig_re[0], rm.multiplier, 1e-6);
    assert_close(r.eig_im[0], 0.0, 0.0);
    /* the other multipliers are the outputs' decay over a step, e^(-t/eps) */
    assert_true(fabs(r.eig_re[1]) < 0.05);
    double zeta;
    assert_status(sm_hzd_zeta(m, p, r.x, &zeta), SM_OK);
    /* the section is just after the impact: zeta+ = delta^2 zeta* */
    if (!(fabs(zeta - rm.zeta_plus) <= 1e-8 * rm.zeta_plus))
        fail_msg("full map zeta+ %.15g, restricted %.15g (relative %.3g)", zeta, rm.zeta_plus,
                 fabs(zeta - rm.zeta_plus) / rm.zeta_plus);
    if (!(fabs(zeta - rm.v_minus - rm.zeta_star) <= 1e-8 * rm.zeta_star))
        fail_msg("full map zeta- %.15g, zeta* %.15g", zeta - rm.v_minus, rm.zeta_star);
    sm_workspace_free(ws);

    /* the book's coefficients are not invariant: the restricted map is then
     * only near the full one, and says so */
    sm_model_default_params(m, p);
    assert_status(sm_hzd_restricted_map(m, p, 1e-9, &rm), SM_OK);
    assert_true(rm.invariance > 0.1);
    sm_registry_close(m);
}

static sm_status stride_from(const sm_model *m, const double *p, const double *x0)
{
    sm_workspace *ws = hzd_workspace(m, 1e-10, SM_METHOD_ADAMS);
    double y[SM_MAX_STATE];
    const sm_status st = sm_stride(ws, p, x0, y, NULL, NULL);
    sm_workspace_free(ws);
    return st;
}

static void test_run_time_statuses(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(src_path(MODEL));
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    /* too slow to carry the stance leg past vertical: theta1 turns back */
    zero_dynamics_state(m, p, 0.3, x);
    assert_status(stride_from(m, p, x), SM_PHASE_NOT_MONOTONE);
    sm_registry_close(m);
    /* the gait needs about 50 N m: a limit of 20 fails, or saturates */
    const char *from[] = {"  gains: {kp: 1, kd: 2, epsilon: epsilon}\n"};
    const char *fail[] = {"  gains: {kp: 1, kd: 2, epsilon: epsilon}\n  torque_limit: {value: 20, on_exceed: fail}\n"};
    m = hzd_open_file(variant("limit", from, fail, 1));
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    assert_status(stride_from(m, p, x), SM_TORQUE_LIMIT);
    sm_registry_close(m);
    const char *sat[] = {"  gains: {kp: 1, kd: 2, epsilon: epsilon}\n  torque_limit: {value: 45, on_exceed: saturate}\n"};
    m = hzd_open_file(variant("saturate", from, sat, 1));
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_workspace *ws = hzd_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_gait g = {.period = 1, .n_state = m->n_state, .n_free = m->n_free};
    memcpy(g.x, x, m->n_state * sizeof *x);
    double values[SM_MAX_EXTRA];
    assert_true(sm_gait_extra_measures(ws, p, &g, values));
    for (size_t i = 0; i < m->n_extra; i++)
        if (strstr(m->extra_names[i], ".max_torque")) assert_true(values[i] <= 45.0);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

static void test_cli_fixed_and_continue(void **state)
{
    (void)state;
    cli_result *r = cli_run("fixed", src_path(MODEL), "--json", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"torso_leg_a.max_torque\""));
    assert_non_null(strstr(r->out, "\"restricted_map\""));
    assert_non_null(strstr(r->out, "\"zeta_star\""));
    /* a controller makes the equations stiff: BDF unless told otherwise */
    assert_non_null(strstr(r->out, "\"method\": \"bdf\""));
    assert_non_null(strstr(r->out, "\"method_from\": \"controller\""));
    r = cli_run("fixed", src_path(MODEL), "--json", "--method", "adams", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"method\": \"adams\""));
    assert_non_null(strstr(r->out, "\"method_from\": \"option\""));
    /* simulate's columns: each actuator's torque and each output's y; the
     * section state carries the torso output's jump, 2 (a11 d + a31 d^3),
     * decayed by the next impact */
    r = cli_run("simulate", src_path(MODEL), "--steps", "1", "--dt", "0.05", NULL);
    assert_int_equal(r->status, 0);
    const char *head = r->out, *eol = strchr(head, '\n');
    assert_non_null(eol);
    int col_y = -1, ncol = 0, seen = 0;
    for (const char *c = head; c < eol; c++) {
        if (c == head || c[-1] == ',') {
            if (strncmp(c, "torso.y,", 8) == 0) col_y = ncol;
            ncol++;
        }
    }
    assert_true(col_y > 0);
    assert_non_null(strstr(head, "torso_leg_a.torque,torso_leg_b.torque,torso.y,swing.y"));
    const double d = 0.392699081698724, jump = 2 * (0.073 * d - 0.819 * d * d * d);
    for (const char *row = eol + 1; *row; row = strchr(row, '\n') + 1) {
        const char *c = row;
        for (int k = 0; k < col_y; k++) c = strchr(c, ',') + 1;
        const double y = strtod(c, NULL);
        if (strncmp(row, "start,", 6) == 0) {
            assert_close(y, jump, 1e-4);
            seen++;
        }
        if (strncmp(row, "pre,", 4) == 0) {
            assert_true(fabs(y) < 1e-4);
            seen++;
        }
        if (!strchr(row, '\n')) break;
    }
    assert_int_equal(seen, 2);
    r = cli_run("continue", src_path(MODEL), "--param", "a01", "--to", "0.53", "--step", "0.01", NULL);
    assert_int_equal(r->status, 0);
    assert_true(cli_count_lines(r->out) >= 4);
    assert_non_null(strstr(r->out, "0.53,EP"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STRIDEMAP_BINARY\n", argv[0]);
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_stay_zero_on_the_zero_dynamics),
        cmocka_unit_test(test_energy_and_the_torques_work),
        cmocka_unit_test(test_swing_foot_below_the_ground_where_the_legs_pass),
        cmocka_unit_test(test_gait_and_torque_peaks),
        cmocka_unit_test(test_restricted_map_by_hand),
        cmocka_unit_test(test_restricted_map_is_the_full_maps_restriction),
        cmocka_unit_test(test_bad_definitions_refused),
        cmocka_unit_test(test_run_time_statuses),
        cmocka_unit_test(test_cli_fixed_and_continue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
