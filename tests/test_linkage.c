/* The linkage engine: model files, on-line dynamics, impacts, and the
 * compass gait from a file against the closed-form compass walker. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stridemap/linkage.h"
#include "test_util.h"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

static const char *src_path(const char *rel)
{
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", SM_SOURCE_DIR, rel);
    return buf[k];
}

static sm_linkage *load_ok(const char *rel)
{
    sm_linkage *lk = NULL;
    char why[2048] = "";
    sm_status st = sm_linkage_load(src_path(rel), &lk, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", rel, why);
    assert_non_null(lk);
    return lk;
}

static void set_param(const sm_model *m, double *p, const char *name, double v)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    p[i] = v;
}

/* ---- the compass cross-check ---------------------------------------------- */

static void solve(const sm_model *m, const double *p, const double *x0, sm_fixed_result *r)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.rtol = o.atol = 1e-13;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.tol = 1e-12;
    /* Same stencil in both models: only integration noise / h differs.  The
     * stability Jacobian is Richardson's (4 D(h/2) - D(h)) / 3, which weighs
     * the noise about 1.5 / h: h = 2e-3 keeps it near 1e-10 at rtol 1e-13. */
    no.fd_step = 2e-3;
    no.central = true;
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    sm_workspace_free(ws);
}

static void test_compass_file_matches_closed_form(void **state)
{
    const sm_model *c = test_model("compass");
    sm_linkage *lk = load_ok("models/compass.yaml");
    const sm_model *f = sm_linkage_model(lk);
    double pc[SM_MAX_PARAMS], pf[SM_MAX_PARAMS];
    sm_model_default_params(c, pc);
    sm_model_default_params(f, pf);
    const double gamma = pc[sm_model_param_index(c, "gamma")];
    assert_close(pf[sm_model_param_index(f, "slope")], gamma, 0);

    double xc[SM_MAX_STATE], xf[SM_MAX_STATE];
    c->guess(xc, pc, c->data);
    f->guess(xf, pf, f->data);
    static sm_fixed_result rc, rf;
    solve(c, pc, xc, &rc);
    solve(f, pf, xf, &rf);

    /* compass.c: angles from the vertical, positive forward: th = gamma - angle */
    assert_close(rc.x[0], gamma - rf.x[0], 1e-9);
    assert_close(rc.x[1], gamma - rf.x[1], 1e-9);
    assert_close(rc.x[2], -rf.x[2], 1e-9);
    assert_close(rc.x[3], -rf.x[3], 1e-9);
    assert_int_equal(rc.n_free, rf.n_free);
    for (size_t i = 0; i < rc.n_free; i++) {
        assert_close(rc.eig_re[i], rf.eig_re[i], 1e-9);
        assert_close(fabs(rc.eig_im[i]), fabs(rf.eig_im[i]), 1e-9);
    }
    assert_close(rc.metrics.period, rf.metrics.period, 1e-9);
    assert_close(rc.metrics.step_length, rf.metrics.step_length, 1e-9);
    assert_true(rf.stable);
    sm_linkage_free(lk);
}

/* ---- invariants ------------------------------------------------------------ */

/* KE from the links' velocities equals q'M q/2 with M from the sweeps. */
static void check_mass_matrix(sm_linkage *lk, const double *p, size_t phase, const double *x)
{
    double M[9], VG[3];
    size_t n = 0;
    assert_int_equal(sm_linkage_mass_matrix(lk, p, phase, x, M, VG, &n), 0);
    const size_t nd = sm_linkage_model(lk)->n_state / 2;
    double q[3]; /* relative rates */
    for (size_t i = 0; i < n; i++) q[i] = x[nd + i] - (i ? x[nd + i - 1] : 0.0);
    double T = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) T += 0.5 * q[i] * M[i * n + j] * q[j];
    assert_close(T, sm_linkage_kinetic(lk, p, x), 1e-12 * (1 + fabs(T)));
}

static void test_mass_matrix_is_kinetic_energy(void **state)
{
    const char *files[] = {"models/compass.yaml", "models/kneed_hsu.yaml", "models/kneed_mcgeer.yaml",
                           "models/kneed_mcgeer_locked.yaml"};
    for (size_t k = 0; k < 4; k++) {
        if (access(src_path(files[k]), R_OK) != 0) continue;
        sm_linkage *lk = load_ok(files[k]);
        const sm_model *m = sm_linkage_model(lk);
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        set_param(m, p, "foot.radius", 0.1);
        const double xs[2][6] = {{0.3, -0.2, -0.5, -1.1, 0.7, 2.0}, {-0.1, 0.4, 0.1, 0.3, -0.9, 1.5}};
        for (int s = 0; s < 2; s++) {
            double x[6];
            const size_t nd = m->n_state / 2;
            if (nd == 2) {
                x[0] = xs[s][0], x[1] = xs[s][1], x[2] = xs[s][3], x[3] = xs[s][4];
                check_mass_matrix(lk, p, 0, x);
            } else {
                memcpy(x, xs[s], sizeof x);
                check_mass_matrix(lk, p, 0, x);
                x[2] = x[1], x[5] = x[4];
                check_mass_matrix(lk, p, 1, x);
            }
        }
        sm_linkage_free(lk);
    }
}

/* A mass matrix that is not positive definite (a massless swing leg) is
 * refused with an error, which the engine reports as rhs_failed. */
static void test_singular_mass_matrix(void **state)
{
    sm_linkage *lk = load_ok("models/compass.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE], acc[3];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    assert_int_equal(sm_linkage_accel(lk, p, 0, x, acc), 0);
    set_param(m, p, "leg.mass", 0.0);
    assert_int_equal(sm_linkage_accel(lk, p, 0, x, acc), -1);
    sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_RHS_FAILED);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

typedef struct {
    const sm_model *m;
    const double *p;
    double e0, max_err;
    int n, samples;
    double pre[SM_MAX_STATE], post[SM_MAX_STATE], kpre[SM_MAX_STATE], kpost[SM_MAX_STATE];
    bool have_impact, have_knee;
} watch;

static int watch_sample(void *ctx, double t, size_t phase, const double *x)
{
    watch *w = ctx;
    const double e = w->m->kinetic_energy(x, w->p, w->m->data) + w->m->potential_energy(x, w->p, w->m->data);
    w->samples++;
    if (w->n++ == 0) w->e0 = e;
    if (fabs(e - w->e0) > w->max_err) w->max_err = fabs(e - w->e0);
    return 0;
}

static int watch_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    watch *w = ctx;
    w->n = 0; /* energy is conserved phase by phase */
    if (strcmp(name, "kneestrike") == 0) {
        memcpy(w->kpre, xm, w->m->n_state * sizeof *xm);
        memcpy(w->kpost, xp, w->m->n_state * sizeof *xp);
        w->have_knee = true;
    }
    if (strcmp(name, "heelstrike") == 0) {
        memcpy(w->pre, xm, w->m->n_state * sizeof *xm);
        memcpy(w->post, xp, w->m->n_state * sizeof *xp);
        w->have_impact = true;
    }
    return 0;
}

/* Energy conserved in the swing phase, angular momenta through heel-strike,
 * with point feet and with round feet. */
static void test_energy_and_momentum(void **state)
{
    sm_linkage *lk = load_ok("models/compass.yaml");
    const sm_model *m = sm_linkage_model(lk);
    const double radii[] = {0.0, 0.3};
    for (size_t k = 0; k < 2; k++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        set_param(m, p, "foot.radius", radii[k]);
        m->guess(x, p, m->data);
        sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
        watch w = {.m = m, .p = p};
        sm_observer obs = {.dt = 0.01, .sample = watch_sample, .event = watch_event, .ctx = &w};
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, y, &mt, &obs), SM_OK);
        assert_true(w.samples > 20);
        if (!(w.max_err < 1e-10 * fabs(w.e0))) fail_msg("energy drift %g of %g", w.max_err, w.e0);
        assert_true(w.have_impact);
        double hm[3], hp[3];
        size_t n = 0;
        assert_int_equal(sm_linkage_impact_momenta(lk, p, SM_LINKAGE_HEELSTRIKE, w.pre, w.post, hm, hp, &n), 0);
        assert_int_equal(n, 2);
        for (size_t i = 0; i < n; i++) assert_close(hm[i], hp[i], 1e-12 * (1 + fabs(hm[i])));
        /* the impact costs energy */
        assert_true(m->kinetic_energy(w.post, p, m->data) < m->kinetic_energy(w.pre, p, m->data));
        sm_workspace_free(ws);
    }
    sm_linkage_free(lk);
}

/* The kneed walker: energy in both phases, momenta through knee-strike and
 * heel-strike, with point and round feet. */
static void test_kneed_energy_and_momentum(void **state)
{
    /* The engine's default heel-strike (three momenta, the new swing knee
     * free): the fixture keeps it, the model file uses Chen's. */
    sm_linkage *lk = load_ok("tests/data/kneed_free_knee.yaml");
    const sm_model *m = sm_linkage_model(lk);
    const double radii[] = {0.0, 0.2};
    for (size_t k = 0; k < 2; k++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        set_param(m, p, "foot.radius", radii[k]);
        set_param(m, p, "thigh.inertia", 0.002);
        set_param(m, p, "shank.inertia", 0.0005);
        set_param(m, p, "thigh.com_offset", 0.005);
        m->guess(x, p, m->data);
        sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
        watch w = {.m = m, .p = p};
        sm_observer obs = {.dt = 0.005, .sample = watch_sample, .event = watch_event, .ctx = &w};
        sm_step_metrics mt;
        const sm_status st = sm_stride(ws, p, x, y, &mt, &obs);
        if (!(w.max_err < 1e-10 * fabs(w.e0) + 1e-12)) fail_msg("R=%g: energy drift %g of %g", radii[k], w.max_err, w.e0);
        if (!w.have_knee) fail_msg("R=%g: no knee-strike (%s)", radii[k], sm_status_name(st));
        double hm[3], hp[3];
        size_t n = 0;
        assert_int_equal(sm_linkage_impact_momenta(lk, p, SM_LINKAGE_KNEESTRIKE, w.kpre, w.kpost, hm, hp, &n), 0);
        assert_int_equal(n, 2);
        for (size_t i = 0; i < n; i++) assert_close(hm[i], hp[i], 1e-12 * (1 + fabs(hm[i])));
        if (st == SM_OK) {
            assert_true(w.have_impact);
            assert_int_equal(sm_linkage_impact_momenta(lk, p, SM_LINKAGE_HEELSTRIKE, w.pre, w.post, hm, hp, &n), 0);
            assert_int_equal(n, 3);
            for (size_t i = 0; i < n; i++) assert_close(hm[i], hp[i], 1e-12 * (1 + fabs(hm[i])));
        }
        sm_workspace_free(ws);
    }
    sm_linkage_free(lk);
}

/* Hsu Chen's kneed walker: Newton finds the stable gait from a rough start,
 * and the gait measures of the file model match the closed-form compass. */
static void test_kneed_hsu_gait(void **state)
{
    sm_linkage *lk = load_ok("models/kneed_hsu.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    double x0[SM_MAX_STATE];
    m->guess(x0, p, m->data); /* the file's rough start */
    sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x0, &no, &r), SM_OK);
    assert_true(r.stable);
    /* Chen's gait with the masses, as the independent closed form of
     * tests/kneed_closed_form.h finds it (tests/test_kneed_cross.c). */
    assert_close(r.x[0], 0.2396419965, 1e-8);
    assert_close(r.max_abs_eig, 0.741003599, 1e-5);
    /* the file assumes the stance knee locked: its torque is negative early
     * in the step (see models/kneed_hsu.yaml) */
    assert_true(sm_linkage_knee_lock_torque(lk, p, 0, r.x) < 0);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* McGeer's kneed walker with round feet: a stable gait whose stance knee
 * stays locked, with its Table 2.1 characteristics; a smaller foot offset
 * unlocks the knee and is reported as such. */
static void test_kneed_mcgeer_gait(void **state)
{
    sm_linkage *lk = load_ok("models/kneed_mcgeer.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const double x0[6] = {0.2, -0.35, -0.35, -1.1, 0.1, -2.0};
    sm_solver_options o;
    sm_solver_options_default(&o);
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x0, &no, &r), SM_OK);
    assert_true(r.stable);
    assert_close(r.max_abs_eig, 0.4577403, 1e-5);
    double lock = NAN, imp = NAN;
    assert_status(sm_linkage_knee_measures(m, &o, p, r.x, &lock, &imp), SM_OK);
    assert_close(lock, 0.194842, 1e-4);
    assert_close(imp, 0.0374573, 1e-5);
    assert_true(r.metrics.step_length > 0.3);

    set_param(m, p, "foot.offset", 0.0);
    double y[SM_MAX_STATE];
    assert_status(sm_stride(ws, p, r.x, y, NULL, NULL), SM_KNEE_UNLOCKED);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* ---- the start of a kneed step --------------------------------------------- */

/* The gait of a kneed model file at tolerance rtol, Newton's (and the
 * stability Jacobian's) finite-difference step h. */
static sm_status kneed_gait(const char *rel, double rtol, double h, bool central, sm_fixed_result *r)
{
    sm_linkage *lk = load_ok(rel);
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, rtol, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.fd_step = h;
    no.central = central;
    const sm_status st = sm_fixed_point(ws, p, x0, &no, r);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
    return st;
}

/* Every step starts with the swing knee straight; Chen's heel-strike
 * (kneed_hsu) leaves it with no relative rate, so a perturbation of either
 * leg rate, of either sign, decides whether it bends backwards.  The stride
 * map must still be continuous there: |P(z + d e_i) - P(z)| <= L |d| for
 * d of both signs on every free coordinate, L bounding the map's slope
 * (its Jacobian's entries are below 10 in both walkers).  A knee that
 * locked at once for one sign would swing straight-legged (a jump of
 * order 1 in P, |dP|/|d| ~ 1e4 at d = 1e-5). */
static void check_start_continuous(const char *rel)
{
    static sm_fixed_result r;
    assert_status(kneed_gait(rel, 1e-12, 0, false, &r), SM_OK);
    sm_linkage *lk = load_ok(rel);
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    const size_t nf = m->n_free;
    double z[SM_MAX_STATE], pz[SM_MAX_STATE];
    for (size_t k = 0; k < nf; k++) z[k] = r.x[m->free_index[k]];
    assert_status(sm_poincare(ws, p, 1, z, pz, NULL, NULL), SM_OK);
    const double L = 20.0;
    for (size_t i = 0; i < nf; i++)
        for (double d = 1e-4; d > 1e-7; d /= 10)
            for (int s = -1; s <= 1; s += 2) {
                double zz[SM_MAX_STATE], pzz[SM_MAX_STATE];
                memcpy(zz, z, sizeof zz);
                zz[i] += s * d;
                assert_status(sm_poincare(ws, p, 1, zz, pzz, NULL, NULL), SM_OK);
                double worst = 0;
                for (size_t k = 0; k < nf; k++) worst = fmax(worst, fabs(pzz[k] - pz[k]));
                if (!(worst <= L * d + 1e-9))
                    fail_msg("%s: %s %+g: |P(z + d) - P(z)| = %g > %g", rel, m->state_names[m->free_index[i]],
                             s * d, worst, L * d);
            }
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

static void test_kneed_start_continuous(void **state)
{
    check_start_continuous("models/kneed_hsu.yaml");
    check_start_continuous("models/kneed_mcgeer.yaml");
}

/* The multipliers of a kneed gait, by central differences of one fixed step
 * h, converge as the integration tolerance goes from 1e-10 to 1e-13: the
 * integrator's error in P, divided by h, is all that changes.  Newton with
 * that step converges at every tolerance, as it does with forward
 * differences of 1e-5 (a knee locking at once for one sign of the step
 * stopped both).  h = 1e-2 puts that error near 1e-9 at rtol 1e-12; the
 * stencil's own truncation error does not move with rtol. */
static void check_multipliers_converge(const char *rel)
{
    const double h = 1e-2;
    static sm_fixed_result r[4];
    for (int k = 0; k < 4; k++) {
        const double rtol = pow(10.0, -10 - k);
        if (kneed_gait(rel, rtol, h, true, &r[k]) != SM_OK)
            fail_msg("%s: no gait at rtol %g with fd_step %g (%s)", rel, rtol, h, sm_status_name(r[k].status));
        static sm_fixed_result f;
        if (kneed_gait(rel, rtol, 1e-5, false, &f) != SM_OK)
            fail_msg("%s: no gait at rtol %g with fd_step 1e-5 (%s)", rel, rtol, sm_status_name(f.status));
    }
    double d[3];
    for (int k = 0; k < 3; k++) {
        d[k] = 0;
        for (size_t i = 0; i < r[k].n_free; i++)
            d[k] = fmax(d[k], hypot(r[k].eig_re[i] - r[k + 1].eig_re[i], r[k].eig_im[i] - r[k + 1].eig_im[i]));
    }
    print_message("%s: multipliers move by %.2g, %.2g, %.2g from rtol 1e-10 to 1e-13\n", rel, d[0], d[1], d[2]);
    assert_true(d[2] < d[0]);
    assert_true(d[2] <= 2e-8);
}

static void test_kneed_multipliers_converge(void **state)
{
    check_multipliers_converge("models/kneed_hsu.yaml");
    check_multipliers_converge("models/kneed_mcgeer.yaml");
}

typedef struct {
    const sm_model *m;
    const double *p;
    double t_min, h_min; /* the lowest swing foot after the first 10 ms */
} foot_watch;

static int foot_sample(void *ctx, double t, size_t phase, const double *x)
{
    foot_watch *w = ctx;
    const double h = w->m->foot_clearance(x, w->p, w->m->data);
    if (t > 0.01 && h < w->h_min) w->h_min = h, w->t_min = t;
    return 0;
}

/* The kneed gaits clear the ground over the whole swing (sampled every
 * 0.1 ms, the last samples coming down to heel-strike), and a swing that
 * does not, its foot passing below the ground behind the stance foot, is
 * a scuff, not a step: from McGeer's gait with the swing shank turned
 * 2.5 rad/s faster the foot went 2.8 mm below the ground (4.6 mm when
 * the knee locked at once) and the stride was accepted. */
static void test_kneed_swing_clears_ground(void **state)
{
    const char *files[2] = {"models/kneed_hsu.yaml", "models/kneed_mcgeer.yaml"};
    for (int k = 0; k < 2; k++) {
        static sm_fixed_result r;
        assert_status(kneed_gait(files[k], 1e-10, 0, false, &r), SM_OK);
        assert_true(r.metrics.min_foot_clearance > 0);
        sm_linkage *lk = load_ok(files[k]);
        const sm_model *m = sm_linkage_model(lk);
        double p[SM_MAX_PARAMS], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
        foot_watch w = {.m = m, .p = p, .h_min = INFINITY};
        sm_observer obs = {.dt = 1e-4, .sample = foot_sample, .ctx = &w};
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, r.x, y, &mt, &obs), SM_OK);
        if (!(w.h_min > 0)) fail_msg("%s: swing foot %g m below the ground at t = %g", files[k], -w.h_min, w.t_min);
        assert_true(w.t_min > mt.period - 0.01); /* lowest just before heel-strike */

        if (k == 1) {
            double x[SM_MAX_STATE];
            memcpy(x, r.x, sizeof x);
            x[5] += 2.5; /* shank_dot */
            assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_SCUFFED);
            double h, ahead;
            sm_linkage_swing_foot(lk, p, y, &h, &ahead);
            assert_close(h, 0.0, 1e-9); /* where the foot went through the ground */
            assert_true(ahead < 0);     /* behind the stance foot: not a heel-strike */
        }
        sm_workspace_free(ws);
        sm_linkage_free(lk);
    }
}

typedef struct {
    const sm_model *m;
    const double *p;
    double c, tau, t_prev, pw_prev, work, e0, e_last, rel0, rel_last;
    bool started;
} work_watch;

static int work_sample(void *ctx, double t, size_t phase, const double *x)
{
    work_watch *w = ctx;
    const double rel = x[1] - x[0], wr = x[3] - x[2];
    const double pw = -w->c * wr * wr;
    const double e = w->m->kinetic_energy(x, w->p, w->m->data) + w->m->potential_energy(x, w->p, w->m->data);
    if (!w->started) {
        w->started = true;
        w->e0 = e;
        w->rel0 = rel;
    } else {
        w->work += 0.5 * (pw + w->pw_prev) * (t - w->t_prev);
    }
    w->t_prev = t;
    w->pw_prev = pw;
    w->e_last = e;
    w->rel_last = rel;
    return 0;
}

/* Round feet, hip spring, damper and torque: the energy change is the work
 * of the damper and the torque (the spring's energy is in the potential). */
static void test_spring_damper_work(void **state)
{
    sm_linkage *lk = load_ok("models/compass_round_spring.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    set_param(m, p, "hip.damping", 0.3);
    set_param(m, p, "hip.torque", 0.4);
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    work_watch w = {.m = m, .p = p, .c = 0.3, .tau = 0.4};
    sm_observer obs = {.dt = 1e-4, .sample = work_sample, .ctx = &w};
    double t = 0;
    size_t ev = 0;
    work_sample(&w, 0, 0, x);
    const sm_status st = sm_hybrid_flow(ws, p, 0, &t, x, 0.3, &obs, &ev);
    assert_true(st == SM_OK || st == SM_NO_HEELSTRIKE);
    work_sample(&w, t, 0, x);
    const double torque_work = w.tau * (w.rel_last - w.rel0);
    assert_true(fabs(w.work) > 1e-3);
    if (!(fabs(w.e_last - w.e0 - w.work - torque_work) < 1e-6 * (1 + fabs(w.work))))
        fail_msg("energy change %.12g, damper work %.12g, torque work %.12g", w.e_last - w.e0, w.work, torque_work);
    sm_workspace_free(ws);

    /* and it walks */
    sm_model_default_params(m, p);
    static sm_fixed_result r;
    ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    m->guess(x, p, m->data);
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_true(r.stable);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* Knees locked by the file: the straight-legged phase sequence with the
 * same legs; momenta through heel-strike and the gait. */
static void test_locked_knees(void **state)
{
    sm_linkage *lk = load_ok("models/kneed_mcgeer_locked.yaml");
    const sm_model *m = sm_linkage_model(lk);
    assert_int_equal(m->n_state, 4);
    assert_int_equal(m->n_phases, 1);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    watch w = {.m = m, .p = p};
    sm_observer obs = {.dt = 0.005, .sample = watch_sample, .event = watch_event, .ctx = &w};
    assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
    if (!(w.max_err < 1e-10 * fabs(w.e0) + 1e-12)) fail_msg("energy drift %g of %g", w.max_err, w.e0);
    double hm[3], hp[3];
    size_t n = 0;
    assert_int_equal(sm_linkage_impact_momenta(lk, p, SM_LINKAGE_HEELSTRIKE, w.pre, w.post, hm, hp, &n), 0);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) assert_close(hm[i], hp[i], 1e-12 * (1 + fabs(hm[i])));
    sm_workspace_free(ws);
    ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x, &no, &r), SM_OK);
    assert_false(r.stable);
    assert_close(r.max_abs_eig, 1.0145047, 1e-4);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* A tiny foot radius is a small perturbation of the point foot. */
static void test_zero_radius_is_point_foot(void **state)
{
    sm_linkage *lk = load_ok("models/compass.yaml");
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y0[SM_MAX_STATE], y1[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    assert_status(sm_stride(ws, p, x, y0, NULL, NULL), SM_OK);
    set_param(m, p, "foot.radius", 1e-9);
    double xr[SM_MAX_STATE];
    memcpy(xr, x, sizeof x);
    m->lift(xr, p, m->data);
    assert_status(sm_stride(ws, p, xr, y1, NULL, NULL), SM_OK);
    for (size_t i = 0; i < m->n_state; i++) assert_close(y0[i], y1[i], 1e-7);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
}

/* ---- model files ------------------------------------------------------------- */

static void test_registry_opens_files(void **state)
{
    const sm_model *m = NULL;
    char why[1024];
    assert_status(sm_registry_open(src_path("models/compass.yaml"), &m, why, sizeof why), SM_OK);
    assert_non_null(sm_linkage_of(m));
    assert_string_equal(m->name, "compass_file");
    assert_true(sm_model_param_index(m, "leg.mass") >= 0);
    assert_true(sm_model_param_index(m, "hip.mass") >= 0);
    assert_true(sm_model_param_index(m, "foot.radius") >= 0);
    char w2[512];
    assert_status(sm_model_validate(m, w2, sizeof w2), SM_OK);
    sm_registry_close(m);
    assert_null(sm_linkage_of(test_model("simplest")));
    sm_registry_close(test_model("simplest"));
    assert_status(sm_registry_open("/nonexistent/x.yaml", &m, why, sizeof why), SM_IO_ERROR);
    assert_null(m);
}

static const char *write_tmp(const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/stridemap_test_linkage_%d.yaml", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define GOOD_HEAD "gravity: 9.81\nslope: 0.05\nhip: {mass: 10}\n"

static void expect_error(const char *text, const char *where, const char *what)
{
    const char *path = write_tmp(text);
    sm_linkage *lk = NULL;
    char why[2048] = "";
    const sm_status st = sm_linkage_load(path, &lk, why, sizeof why);
    unlink(path);
    if (st != SM_BAD_MODEL_FILE || lk) fail_msg("status %s for:\n%s", sm_status_name(st), text);
    char want[512];
    snprintf(want, sizeof want, "%s:%s", path, where);
    if (!strstr(why, want)) fail_msg("'%s' lacks '%s'", why, want);
    if (!strstr(why, what)) fail_msg("'%s' lacks '%s'", why, what);
    assert_null(strchr(why, '\n'));
}

static void test_file_errors(void **state)
{
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5, colour: red}\n", "5:",
                 "colour");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, com: 0.5}\n", "5:", "mass");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: one, mass: 5, com: 0.5}\n", "5:", "length");
    expect_error(GOOD_HEAD "links:\n  - name: leg\n    length: 1\n    mass: -5\n    com: 0.5\n", "7:11:",
                 "mass must be zero or positive");
    expect_error(GOOD_HEAD "links:\n  - name: leg\n    length: 0\n    mass: 5\n    com: 0.5\n", "6:13:",
                 "length must be positive");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\nknee: {stop: true}\n", "6:",
                 "a knee is given but the leg has one link");
    expect_error("gravity: 9.81\nhip: {mass: 10}\nlinks:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n", "",
                 "slope");
    expect_error(GOOD_HEAD "links: 3\n", "4:", "links");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\nfoot: {radius: 2}\n", "6:",
                 "foot radius");
    expect_error("{{{{\n", "", "");
    expect_error("", "", "empty");
    /* names that would split a CSV header or a line (stridemap merge reads
     * the columns thigh.mass, ... back) */
    expect_error(GOOD_HEAD "links:\n  - {name: \"le,g\", length: 1, mass: 5, com: 0.5}\n", "5:12: ", "a comma");
    expect_error(GOOD_HEAD "links:\n  - {name: 'le\"g', length: 1, mass: 5, com: 0.5}\n", "5:12: ",
                 "a double quote");
    expect_error(GOOD_HEAD "links:\n  - name: \"le\\ng\"\n    length: 1\n    mass: 5\n    com: 0.5\n", "5:11: ",
                 "a line break");
    expect_error("name: \"my,walker\"\n" GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n",
                 "1:7: ", "the model's name contains a comma");
    /* a second document would be ignored */
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n---\nslope: 0.1\n", "6:1: ",
                 "a second YAML document");
}

/* One document, opened by an explicit '---', is fine; a directory is not a
 * model file (SM_IO_ERROR, as a file that cannot be opened: exit 66). */
static void test_file_document_and_directory(void **state)
{
    const char *path = write_tmp("---\n" GOOD_HEAD "links:\n  - {name: leg_1, length: 1, mass: 5, com: 0.5}\n");
    sm_linkage *lk = NULL;
    char why[2048] = "";
    assert_status(sm_linkage_load(path, &lk, why, sizeof why), SM_OK);
    unlink(path);
    assert_true(sm_model_param_index(sm_linkage_model(lk), "leg_1.mass") >= 0);
    sm_linkage_free(lk);

    char dir[] = "/tmp/stridemap_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_status(sm_linkage_load(dir, &lk, why, sizeof why), SM_IO_ERROR);
    assert_null(lk);
    rmdir(dir);
    if (!strstr(why, "is a directory")) fail_msg("'%s' does not say it is a directory", why);
    assert_non_null(strstr(why, dir));
    assert_null(strchr(why, '\n'));
}

/* ---- declared phase sequences (phases:) ------------------------------------- */

static char *read_text(const char *rel)
{
    FILE *f = fopen(src_path(rel), "rb");
    assert_non_null(f);
    static char buf[4][8192];
    static int k = 0;
    k = (k + 1) % 4;
    const size_t n = fread(buf[k], 1, sizeof buf[k] - 1, f);
    fclose(f);
    buf[k][n] = '\0';
    return buf[k];
}

/* Loads text (with every occurrence of cut removed, if given, and add
 * appended) from a temporary file. */
static sm_linkage *load_text(const char *text, const char *cut, const char *add)
{
    static char t[9000];
    snprintf(t, sizeof t, "%s", text);
    if (cut) {
        char *c = strstr(t, cut);
        if (!c) fail_msg("'%s' not in the file", cut);
        memmove(c, c + strlen(cut), strlen(c + strlen(cut)) + 1);
    }
    strncat(t, add, sizeof t - strlen(t) - 1);
    const char *path = write_tmp(t);
    sm_linkage *lk = NULL;
    char why[2048] = "";
    const sm_status st = sm_linkage_load(path, &lk, why, sizeof why);
    unlink(path);
    if (st != SM_OK) fail_msg("%s", why);
    return lk;
}

/* Two walkers give bit-identical strides (two steps) from the same state. */
static void same_strides(sm_linkage *a, sm_linkage *b)
{
    const sm_model *ma = sm_linkage_model(a), *mb = sm_linkage_model(b);
    assert_int_equal(ma->n_state, mb->n_state);
    assert_int_equal(ma->n_phases, mb->n_phases);
    assert_int_equal(ma->n_free, mb->n_free);
    for (size_t k = 0; k < ma->n_phases; k++) assert_string_equal(ma->phases[k].name, mb->phases[k].name);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], ya[SM_MAX_STATE], yb[SM_MAX_STATE];
    sm_model_default_params(ma, p);
    ma->guess(x, p, ma->data);
    sm_workspace *wa = test_workspace(ma, 1e-10, SM_METHOD_ADAMS), *wb = test_workspace(mb, 1e-10, SM_METHOD_ADAMS);
    for (int step = 0; step < 2; step++) {
        sm_step_metrics mta, mtb;
        assert_status(sm_stride(wa, p, x, ya, &mta, NULL), SM_OK);
        assert_status(sm_stride(wb, p, x, yb, &mtb, NULL), SM_OK);
        for (size_t i = 0; i < ma->n_state; i++)
            if (ya[i] != yb[i]) fail_msg("step %d, state %zu: %.17g != %.17g", step, i, ya[i], yb[i]);
        assert_true(mta.period == mtb.period);
        memcpy(x, ya, sizeof x);
    }
    sm_workspace_free(wa);
    sm_workspace_free(wb);
}

/* phases: [knee_free, knee_locked] is the default of kneed legs,
 * [knee_locked] is knee: {locked: true}, [swing] the default of straight
 * legs: declared, each gives the same walker, stride for stride. */
static void test_declared_phases_identical(void **state)
{
    const char *mcgeer = read_text("models/kneed_mcgeer.yaml");
    sm_linkage *a = load_ok("models/kneed_mcgeer.yaml");
    sm_linkage *b = load_text(mcgeer, NULL, "phases: [knee_free, knee_locked]\n");
    same_strides(a, b);
    sm_linkage_free(b);
    sm_linkage_free(a);

    const char *locked = read_text("models/kneed_mcgeer_locked.yaml");
    const char *line = "  locked: true      # both knees locked: the straight-legged phase sequence\n";
    a = load_ok("models/kneed_mcgeer_locked.yaml");
    b = load_text(locked, line, "phases: [knee_locked]\n");
    same_strides(a, b);
    sm_linkage_free(b);
    b = load_text(locked, NULL, "phases: [knee_locked]\n"); /* both: consistent */
    same_strides(a, b);
    sm_linkage_free(b);
    sm_linkage_free(a);

    a = load_ok("models/compass.yaml");
    b = load_text(read_text("models/compass.yaml"), NULL, "phases: [swing]\n");
    same_strides(a, b);
    sm_linkage_free(b);
    sm_linkage_free(a);
}

#define KNEED_LINKS                                                                                          \
    "links:\n  - {name: thigh, length: 0.5, mass: 1, com: 0.2}\n  - {name: shank, length: 0.5, mass: 0.5, com: " \
    "0.2}\n"

static void test_phase_errors(void **state)
{
    const char *leg = "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n";
    char t[1024];
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: [knee_free]\n", leg);
    expect_error(t, "6:10: ", "phase 'knee_free' needs a knee but the leg has one link");
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: [swing, hop]\n", leg);
    expect_error(t, "6:17: ", "unknown phase 'hop'");
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: []\n", leg);
    expect_error(t, "6:9: ", "phases is empty");
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: [swing, swing]\n", leg);
    expect_error(t, "6:17: ", "phase 'swing' cannot come here"); /* not ignored */
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: knee_free\n", leg);
    expect_error(t, "6:", "phases");
    expect_error(GOOD_HEAD KNEED_LINKS "knee:\n  stop: true\n  locked: true\nphases: [knee_free, knee_locked]\n",
                 "9:11: ", "conflicts with phases listing knee_free");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [swing]\n", "8:10: ",
                 "phase 'swing' is the step of straight legs");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [knee_locked, knee_free]\n", "8:23: ",
                 "phase 'knee_free' cannot come here");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [knee_free, knee_free]\n", "8:21: ",
                 "cannot come here");
    expect_error(GOOD_HEAD KNEED_LINKS "knee:\n  hold_at_heelstrike: true\nphases: [knee_free]\n", "8:23: ",
                 "phases: [knee_free] never locks it");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: false}\nphases: [knee_free, knee_locked]\n", "7:",
                 "set 'stop: true'");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [knee_free]\nguess: [0.2, -0.2, -0.2, 0, -1, 0, 0, 0]\n",
                 "9:", "guess: a full state of 4 or 6 numbers"); /* the bend is not guessed */
}

typedef struct {
    const sm_model *m;
    const double *p;
    double e0, max_err;
    int n, samples, impacts;
    double pre[3][SM_MAX_STATE], post[3][SM_MAX_STATE];
} nl_watch;

static int nl_sample(void *ctx, double t, size_t phase, const double *x)
{
    nl_watch *w = ctx;
    const double e = w->m->kinetic_energy(x, w->p, w->m->data) + w->m->potential_energy(x, w->p, w->m->data);
    w->samples++;
    if (w->n++ == 0) w->e0 = e;
    if (fabs(e - w->e0) > w->max_err) w->max_err = fabs(e - w->e0);
    return 0;
}

static int nl_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    nl_watch *w = ctx;
    w->n = 0;
    if (strcmp(name, "heelstrike") == 0 && w->impacts < 3) {
        memcpy(w->pre[w->impacts], xm, w->m->n_state * sizeof *xm);
        memcpy(w->post[w->impacts], xp, w->m->n_state * sizeof *xp);
        w->impacts++;
    }
    return 0;
}

/* Heel-strike from the knee-free phase: the three momenta (the walker about
 * the new contact point, the trailing leg about the hip, the trailing shank
 * about its knee) through it, the configuration unchanged by the renaming. */
static void check_free_heelstrike(sm_linkage *lk, const double *p, const double *xm, const double *xp)
{
    const sm_model *m = sm_linkage_model(lk);
    double hm[3], hp[3];
    size_t n = 0;
    assert_int_equal(sm_linkage_impact_momenta(lk, p, SM_LINKAGE_HEELSTRIKE, xm, xp, hm, hp, &n), 0);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        if (!(fabs(hm[i] - hp[i]) <= 1e-12 * (1 + fabs(hm[i]))))
            fail_msg("momentum %zu: %.17g before, %.17g after", i, hm[i], hp[i]);
    /* the new stance leg keeps the swing knee's bend, the trailing leg the
     * old stance leg's; the old stance foot is on the ground, behind */
    assert_close(xp[3], xm[1] - xm[2], 1e-15);
    assert_close(xp[1] - xp[2], xm[3], 1e-15);
    assert_true(xp[7] == 0.0);
    double hpre, apre, hpost, apost;
    sm_linkage_swing_foot(lk, p, xm, &hpre, &apre);
    sm_linkage_swing_foot(lk, p, xp, &hpost, &apost);
    assert_close(hpost, -hpre, 1e-12);
    assert_close(apost, -apre, 1e-12);
    assert_true(m->kinetic_energy(xp, p, m->data) <= m->kinetic_energy(xm, p, m->data));
}

/* phases: [knee_free]: energy in the phase, momenta through heel-strikes
 * with the knee bent (point and round feet), and a state of its own. */
static void test_knee_never_locks(void **state)
{
    sm_linkage *lk = load_ok("tests/data/kneed_never_locks.yaml");
    const sm_model *m = sm_linkage_model(lk);
    assert_int_equal(m->n_state, 8);
    assert_int_equal(m->n_phases, 1);
    assert_string_equal(m->phases[0].name, "knee_free");
    assert_string_equal(m->state_names[3], "stance_bend");
    const double radii[] = {0.0, 0.1};
    for (size_t k = 0; k < 2; k++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        set_param(m, p, "foot.radius", radii[k]);
        set_param(m, p, "foot.offset", radii[k] > 0 ? 0.01 : 0.0);
        m->guess(x, p, m->data);
        sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
        nl_watch w = {.m = m, .p = p};
        sm_observer obs = {.dt = 0.005, .sample = nl_sample, .event = nl_event, .ctx = &w};
        /* three steps, so that a stance leg with a bent knee strikes too */
        for (int step = 0; step < 3; step++) {
            w.n = 0;
            const sm_status st = sm_stride(ws, p, x, y, NULL, &obs);
            if (st != SM_OK) fail_msg("R=%g, step %d: %s", radii[k], step, sm_status_name(st));
            if (!(w.max_err < 1e-10 * fabs(w.e0) + 1e-12))
                fail_msg("R=%g: energy drift %g of %g", radii[k], w.max_err, w.e0);
            memcpy(x, y, sizeof x);
        }
        assert_int_equal(w.impacts, 3);
        for (int i = 0; i < 3; i++) {
            assert_true(fabs(w.pre[i][1] - w.pre[i][2]) > 1e-3); /* the swing knee is not straight */
            check_free_heelstrike(lk, p, w.pre[i], w.post[i]);
        }
        assert_true(fabs(w.pre[1][3]) > 1e-3 || fabs(w.pre[2][3]) > 1e-3); /* nor a stance knee */
        sm_workspace_free(ws);
    }
    /* deeply bent knees, moving every way */
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    set_param(m, p, "foot.radius", 0.1);
    set_param(m, p, "foot.offset", -0.02);
    const double xm[8] = {-0.2, 0.4, 0.1, 0.25, -1.3, 0.7, -2.1, 0};
    double xp[8];
    assert_int_equal(m->phases[0].events[0].reset(xm, xp, p, m->data), 0);
    check_free_heelstrike(lk, p, xm, xp);
    sm_linkage_free(lk);
}

/* The fuzzer's kept corpus (tests/fuzz/fuzz_linkage.c): every file loads or
 * is refused with one line, and every model that loads evaluates. */
static int corpus_file(const struct dirent *e) { return e->d_name[0] != '.'; }

static void test_fuzz_corpus(void **state)
{
    struct dirent **names = NULL;
    const int n = scandir(src_path("tests/data/linkage_corpus"), &names, corpus_file, alphasort);
    assert_true(n > 10);
    int loaded = 0;
    for (int i = 0; i < n; i++) {
        char rel[600];
        snprintf(rel, sizeof rel, "tests/data/linkage_corpus/%s", names[i]->d_name);
        free(names[i]);
        sm_linkage *lk = NULL;
        char why[1024];
        const sm_status st = sm_linkage_load(src_path(rel), &lk, why, sizeof why);
        if (st != SM_OK) {
            assert_null(lk);
            assert_null(strchr(why, '\n'));
            assert_true(strlen(why) > 0);
            continue;
        }
        loaded++;
        const sm_model *m = sm_linkage_model(lk);
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xd[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        m->guess(x, p, m->data);
        for (size_t k = 0; k < m->n_phases; k++) (void)m->phases[k].rhs(0.0, x, xd, p, m->data);
        (void)m->phases[m->n_phases - 1].events[0].reset(x, y, p, m->data);
        (void)m->kinetic_energy(x, p, m->data);
        sm_linkage_free(lk);
    }
    free(names);
    assert_true(loaded > 0);
}

/* ---- the program ------------------------------------------------------------ */

static const char *exe = NULL;

/* Runs `exe args` from the source tree; returns the exit status, output in out. */
static int run(const char *args, char *out, size_t len)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", SM_SOURCE_DIR, exe, args);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    const int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli_files(void **state)
{
    if (!exe) skip();
    static char out[1 << 16];
    assert_int_equal(run("fixed models/kneed_mcgeer.yaml --json", out, sizeof out), 0);
    assert_non_null(strstr(out, "\"min_lock_torque\""));
    assert_non_null(strstr(out, "\"heelstrike_impulse\""));
    assert_non_null(strstr(out, "\"min_foot_clearance\""));
    assert_non_null(strstr(out, "\"stable\": true"));
    assert_int_equal(run("fixed kneed_hsu --set thigh.mass=0.55", out, sizeof out), 0);
    /* a 1e-5 step in a leg rate no longer locks the knee for the swing */
    assert_int_equal(run("fixed kneed_hsu --fd-step 1e-5 --rtol 1e-12 --atol 1e-12", out, sizeof out), 0);
    assert_int_equal(run("params models/compass.yaml", out, sizeof out), 0);
    assert_non_null(strstr(out, "leg.mass"));
    assert_int_equal(run("models", out, sizeof out), 0);
    assert_non_null(strstr(out, "models/kneed_mcgeer.yaml"));
    /* a file error: file:line:col, one line, the data-error status */
    const char *bad = write_tmp(GOOD_HEAD "links:\n  - name: leg\n    length: 1\n    mass: -5\n    com: 0.5\n");
    char args[512];
    snprintf(args, sizeof args, "fixed %s", bad);
    assert_int_equal(run(args, out, sizeof out), 65);
    unlink(bad);
    assert_non_null(strstr(out, ":7:11: "));
    assert_non_null(strstr(out, "mass must be zero or positive"));
    assert_int_equal(run("fixed /nonexistent/walker.yaml", out, sizeof out), 66);
    char top[] = "/tmp/stridemap_dir_XXXXXX", dir[64];
    assert_non_null(mkdtemp(top));
    snprintf(dir, sizeof dir, "%s/walker.yaml", top);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(args, sizeof args, "fixed %s", dir);
    assert_int_equal(run(args, out, sizeof out), 66);
    rmdir(dir);
    rmdir(top);
    assert_non_null(strstr(out, "is a directory"));
    assert_int_equal(run("fixed models/compass.yaml --set leg.mass=-1", out, sizeof out), 65);
}

int main(int argc, char **argv)
{
    static char abs_exe[4096];
    if (argc > 1 && realpath(argv[1], abs_exe)) exe = abs_exe;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_opens_files),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_file_document_and_directory),
        cmocka_unit_test(test_fuzz_corpus),
        cmocka_unit_test(test_declared_phases_identical),
        cmocka_unit_test(test_phase_errors),
        cmocka_unit_test(test_knee_never_locks),
        cmocka_unit_test(test_mass_matrix_is_kinetic_energy),
        cmocka_unit_test(test_singular_mass_matrix),
        cmocka_unit_test(test_energy_and_momentum),
        cmocka_unit_test(test_kneed_energy_and_momentum),
        cmocka_unit_test(test_kneed_hsu_gait),
        cmocka_unit_test(test_kneed_mcgeer_gait),
        cmocka_unit_test(test_kneed_start_continuous),
        cmocka_unit_test(test_kneed_multipliers_converge),
        cmocka_unit_test(test_kneed_swing_clears_ground),
        cmocka_unit_test(test_spring_damper_work),
        cmocka_unit_test(test_locked_knees),
        cmocka_unit_test(test_zero_radius_is_point_foot),
        cmocka_unit_test(test_compass_file_matches_closed_form),
        cmocka_unit_test(test_cli_files),
    };
    return cmocka_run_group_tests_name("linkage", tests, NULL, NULL);
}
