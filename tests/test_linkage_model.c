/* The walker a model file becomes (src/linkage/model.c): the compass gait
 * from a file against the closed-form compass walker, a continuous stride
 * map at the start of a kneed step, a swing that clears the ground (or is a
 * scuff), and round feet that shrink to the point foot. */
#include "linkage_util.h"

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
    sm_linkage *lk = load_ok("tests/data/linkage_models/compass.yaml");
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
    check_start_continuous("tests/data/linkage_models/kneed_hsu.yaml");
    check_start_continuous("tests/data/linkage_models/kneed_mcgeer.yaml");
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
    const char *files[2] = {"tests/data/linkage_models/kneed_hsu.yaml", "tests/data/linkage_models/kneed_mcgeer.yaml"};
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

/* A tiny foot radius is a small perturbation of the point foot. */
static void test_zero_radius_is_point_foot(void **state)
{
    sm_linkage *lk = load_ok("tests/data/linkage_models/compass.yaml");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kneed_start_continuous),
        cmocka_unit_test(test_kneed_swing_clears_ground),
        cmocka_unit_test(test_zero_radius_is_point_foot),
        cmocka_unit_test(test_compass_file_matches_closed_form),
    };
    return cmocka_run_group_tests_name("linkage_model", tests, NULL, NULL);
}
