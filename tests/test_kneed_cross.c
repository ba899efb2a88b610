/* The linkage engine's kneed walker against a closed form derived by hand
 * (tests/kneed_closed_form.h): accelerations and the stance knee's locking
 * torque in both phases, the knee-strike and heel-strike maps, and whole
 * strides, for tests/data/kneed_free_knee.yaml (the kneed walker with the
 * engine's default, free-knee heel-strike) with its own mass positions and with
 * the issue's (thigh centre 0.2 m above the knee, shank centre 0.35 m above
 * the foot: thigh.com = 0.3, shank.com = 0.15).
 *
 * The engine's heel-strike leaves the new swing knee free (Garcia 1999,
 * 2.5.3: the trailing shank's momentum about its knee is conserved too);
 * Chen's and Tedrake's hold it locked through the impact.  The engine is
 * checked against the first (KCF_HS_FREE); the second (KCF_HS_LOCKED) equals
 * the engine's heel-strike followed at once by its knee-strike, which is
 * checked too.  The last test answers the issue's question: with its mass
 * positions on slope asin(7.25/144), Chen's walker has a stable gait and the
 * engine's default does not; models/kneed_hsu.yaml is therefore Chen's
 * model (hold_at_heelstrike). */
#include <stdlib.h>

#include "kneed_closed_form.h"
#include "stridemap/linkage.h"
#include "test_util.h"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

#define MODEL_FILE SM_SOURCE_DIR "/tests/data/kneed_free_knee.yaml"

/* Angles from the slope normal of Tedrake's kneedCompassGait.m initial
 * condition (his angles from the vertical plus the slope). */
static const double TEDRAKE_X0[6] = {0.187700106303669, -0.288437140111164, -0.288437140111164,
                                     -1.101439041094875, -0.039885255927632, -0.039885255927632};

typedef struct {
    const sm_model *m;
    const sm_linkage *lk;
    double p[SM_MAX_PARAMS];
    kcf_params P;
} walker;

static double get(const sm_model *m, const double *p, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    return p[i];
}

static void set(const sm_model *m, double *p, const char *name, double v)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    p[i] = v;
}

/* The file's walker; issue: the issue's mass positions. */
static void open_walker(walker *w, bool issue)
{
    char why[2048] = "";
    w->m = NULL;
    sm_status st = sm_registry_open(MODEL_FILE, &w->m, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", MODEL_FILE, why);
    w->lk = sm_linkage_of(w->m);
    assert_non_null(w->lk);
    assert_true(sm_linkage_has_knee(w->lk));
    sm_model_default_params(w->m, w->p);
    if (issue) {
        set(w->m, w->p, "thigh.com", 0.3);
        set(w->m, w->p, "shank.com", 0.15);
    }
    /* the closed form has point feet and point masses on the link axes */
    const char *zero[] = {"foot.radius", "foot.offset", "thigh.inertia", "shank.inertia", "thigh.com_offset",
                          "shank.com_offset", "hip.stiffness", "hip.damping", "hip.torque", "knee.stiffness",
                          "knee.damping", "knee.torque"};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++) assert_true(get(w->m, w->p, zero[i]) == 0.0);
    w->P = (kcf_params){.g = get(w->m, w->p, "gravity"),
                        .gamma = get(w->m, w->p, "slope"),
                        .mh = get(w->m, w->p, "hip.mass"),
                        .mt = get(w->m, w->p, "thigh.mass"),
                        .ms = get(w->m, w->p, "shank.mass"),
                        .lt = get(w->m, w->p, "thigh.length"),
                        .ls = get(w->m, w->p, "shank.length"),
                        .ct = get(w->m, w->p, "thigh.com"),
                        .cs = get(w->m, w->p, "shank.com")};
}

static void close_walker(walker *w) { sm_registry_close(w->m); }

/* A reproducible uniform number in [lo, hi]. */
static double uniform(unsigned long long *s, double lo, double hi)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

static void random_state(unsigned long long *s, double *x)
{
    for (int i = 0; i < 3; i++) x[i] = uniform(s, -0.6, 0.6);
    for (int i = 3; i < 6; i++) x[i] = uniform(s, -4, 4);
}

static const sm_event *find_event(const sm_model *m, size_t phase, const char *name)
{
    for (size_t k = 0; k < m->phases[phase].n_events; k++)
        if (strcmp(m->phases[phase].events[k].name, name) == 0) return &m->phases[phase].events[k];
    fail_msg("phase %zu has no event %s", phase, name);
    return NULL;
}

/* ---- (a) accelerations and the stance knee's locking torque --------------- */

static void check_accel(bool issue)
{
    walker w;
    open_walker(&w, issue);
    unsigned long long seed = issue ? 7 : 11;
    double worst = 0, worst_t = 0;
    for (int k = 0; k < 200; k++) {
        double x[6], a[3], c[3];
        random_state(&seed, x);
        /* knee free */
        assert_int_equal(sm_linkage_accel(w.lk, w.p, 0, x, a), 0);
        assert_int_equal(kcf_accel(&w.P, 3, x, x + 3, c), 0);
        for (int i = 0; i < 3; i++) {
            assert_close(a[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst = fmax(worst, fabs(a[i] - c[i]) / (1 + fabs(c[i])));
        }
        /* knee locked */
        x[2] = x[1];
        x[5] = x[4];
        const double th[2] = {x[0], x[1]}, wr[2] = {x[3], x[4]};
        assert_int_equal(sm_linkage_accel(w.lk, w.p, 1, x, a), 0);
        assert_int_equal(kcf_accel(&w.P, 2, th, wr, c), 0);
        for (int i = 0; i < 2; i++) {
            assert_close(a[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst = fmax(worst, fabs(a[i] - c[i]) / (1 + fabs(c[i])));
        }
        assert_close(a[2], a[1], 0);
        /* the stance knee's locking torque in both phases */
        double Te, Tc = NAN;
        Te = sm_linkage_knee_lock_torque(w.lk, w.p, 1, x);
        assert_int_equal(kcf_stance_knee_torque(&w.P, 2, th, wr, &Tc), 0);
        assert_close(Te, Tc, 1e-12 * (1 + fabs(Tc)));
        worst_t = fmax(worst_t, fabs(Te - Tc) / (1 + fabs(Tc)));
        random_state(&seed, x);
        Te = sm_linkage_knee_lock_torque(w.lk, w.p, 0, x);
        assert_int_equal(kcf_stance_knee_torque(&w.P, 3, x, x + 3, &Tc), 0);
        assert_close(Te, Tc, 1e-12 * (1 + fabs(Tc)));
        worst_t = fmax(worst_t, fabs(Te - Tc) / (1 + fabs(Tc)));
    }
    print_message("accelerations (%s): worst |engine - closed form| / (1 + |a|) = %.2e over 400 states; "
                  "stance-knee locking torque %.2e\n",
                  issue ? "issue's mass positions" : "file's", worst, worst_t);
    close_walker(&w);
}

static void test_accel_file(void **state) { check_accel(false); }
static void test_accel_issue(void **state) { check_accel(true); }

/* The closed form itself: energy conserved along each phase. */
static void test_closed_form_energy(void **state)
{
    walker w;
    open_walker(&w, true);
    unsigned long long seed = 3;
    for (int n = 2; n <= 3; n++) {
        double x[6];
        random_state(&seed, x);
        for (int i = 3; i < 6; i++) x[i] *= 0.3;
        if (n == 2) x[2] = x[1], x[5] = x[4];
        const double e0 = kcf_energy(&w.P, n, x);
        for (int s = 0; s < 2000; s++) {
            double y[6];
            assert_int_equal(kcf_rk4(&w.P, n, x, 1e-4, y), 0);
            memcpy(x, y, sizeof x);
        }
        assert_close(kcf_energy(&w.P, n, x), e0, 1e-11 * (1 + fabs(e0)));
    }
    close_walker(&w);
}

/* ---- (b) impact maps -------------------------------------------------------- */

static void check_impacts(bool issue)
{
    walker w;
    open_walker(&w, issue);
    const sm_event *ks = find_event(w.m, 0, "kneestrike"), *hs = find_event(w.m, 1, "heelstrike");
    unsigned long long seed = issue ? 5 : 13;
    double worst_k = 0, worst_h = 0, worst_l = 0;
    for (int k = 0; k < 200; k++) {
        double x[6], a[6], c[6], e[6];
        random_state(&seed, x);
        x[2] = x[1] + uniform(&seed, -1e-3, 0); /* at knee-strike */
        assert_int_equal(ks->reset(x, a, w.p, w.m->data), 0);
        assert_int_equal(kcf_kneestrike(&w.P, x, c), 0);
        for (int i = 0; i < 6; i++) {
            assert_close(a[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst_k = fmax(worst_k, fabs(a[i] - c[i]) / (1 + fabs(c[i])));
        }
        /* heel-strike, both knees locked before it */
        random_state(&seed, x);
        x[2] = x[1];
        x[5] = x[4];
        assert_int_equal(hs->reset(x, a, w.p, w.m->data), 0);
        assert_int_equal(kcf_heelstrike(&w.P, KCF_HS_FREE, x, c), 0);
        for (int i = 0; i < 6; i++) {
            assert_close(a[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst_h = fmax(worst_h, fabs(a[i] - c[i]) / (1 + fabs(c[i])));
        }
        /* the locked variant = the engine's heel-strike, then its knee-strike */
        assert_int_equal(ks->reset(a, e, w.p, w.m->data), 0);
        assert_int_equal(kcf_heelstrike(&w.P, KCF_HS_LOCKED, x, c), 0);
        for (int i = 0; i < 6; i++) {
            assert_close(e[i], c[i], 1e-12 * (1 + fabs(c[i])));
            worst_l = fmax(worst_l, fabs(e[i] - c[i]) / (1 + fabs(c[i])));
        }
    }
    print_message("impacts (%s): knee-strike %.2e, heel-strike (free knee) %.2e, "
                  "heel-strike (locked) vs engine heel- then knee-strike %.2e\n",
                  issue ? "issue's mass positions" : "file's", worst_k, worst_h, worst_l);
    close_walker(&w);
}

static void test_impacts_file(void **state) { check_impacts(false); }
static void test_impacts_issue(void **state) { check_impacts(true); }

/* ---- (c) strides ------------------------------------------------------------ */

static void check_stride(walker *w, const double *x0, const char *what)
{
    sm_workspace *ws = test_workspace(w->m, 1e-12, SM_METHOD_ADAMS);
    double y[SM_MAX_STATE], z[6], T = 0;
    sm_step_metrics mt;
    assert_status(sm_stride(ws, w->p, x0, y, &mt, NULL), SM_OK);
    assert_int_equal(kcf_stride(&w->P, KCF_HS_FREE, x0, 2e-5, 5.0, z, &T), KCF_OK);
    double worst = fabs(mt.period - T);
    for (int i = 0; i < 6; i++) {
        assert_close(y[i], z[i], 1e-8 * (1 + fabs(z[i])));
        worst = fmax(worst, fabs(y[i] - z[i]));
    }
    assert_close(mt.period, T, 1e-8);
    print_message("stride from %s: max |engine - closed form| = %.2e (step time %.9f)\n", what, worst, T);
    sm_workspace_free(ws);
}

static void test_stride_file(void **state)
{
    walker w;
    open_walker(&w, false);
    double x[SM_MAX_STATE];
    w.m->guess(x, w.p, w.m->data);
    check_stride(&w, x, "the file's guess (file's values)");
    const double starts[2][4] = {{0.24, -1.15, 0.0, -3.5}, {0.22, -1.1, 0.1, -3.0}};
    for (int k = 0; k < 2; k++) {
        kcf_lift(starts[k][0], starts[k][1], starts[k][2], starts[k][3], x);
        check_stride(&w, x, "a nearby start (file's values)");
    }
    close_walker(&w);
}

static void test_stride_issue(void **state)
{
    walker w;
    open_walker(&w, true);
    double x[6];
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    check_stride(&w, x, "Tedrake's x0 (issue's values)");
    const double starts[2][4] = {{0.24, -1.1, 0.0, -2.0}, {0.23, -1.05, -0.04, -0.04}};
    for (int k = 0; k < 2; k++) {
        kcf_lift(starts[k][0], starts[k][1], starts[k][2], starts[k][3], x);
        check_stride(&w, x, "a nearby start (issue's values)");
    }
    close_walker(&w);
}

/* ---- the issue's question ---------------------------------------------------- */

/* With the issue's mass positions on slope asin(7.25/144): Chen's walker
 * (knee held locked through heel-strike) walks from Tedrake's initial
 * condition onto a stable gait, while the engine's walker (free knee at
 * heel-strike) puts its foot down before knee-strike on the fifth step. */
static void test_issue_gait(void **state)
{
    walker w;
    open_walker(&w, true);
    double x[6], y[6], T;
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    for (int s = 0; s < 100; s++) {
        assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, x, 1e-4, 5.0, y, &T), KCF_OK);
        memcpy(x, y, sizeof x);
    }
    assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, x, 1e-4, 5.0, y, &T), KCF_OK);
    for (int i = 0; i < 6; i++) assert_close(y[i], x[i], 1e-10);
    assert_close(x[0], 0.2396419965, 1e-8);
    assert_close(x[3], -1.1338165864, 1e-8);
    assert_close(x[4], -0.1087293385, 1e-8);
    assert_close(x[5], x[4], 0);
    /* its multipliers, on (stance, stance_dot, thigh_dot = shank_dot) */
    double J[9], re[3], im[3];
    const double z0[3] = {x[0], x[3], x[4]};
    for (int j = 0; j < 3; j++) {
        double zp[3], zm[3], a[6], b[6], yp[6], ym[6];
        memcpy(zp, z0, sizeof zp), memcpy(zm, z0, sizeof zm);
        zp[j] += 1e-6, zm[j] -= 1e-6;
        kcf_lift(zp[0], zp[1], zp[2], zp[2], a);
        kcf_lift(zm[0], zm[1], zm[2], zm[2], b);
        assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, a, 1e-4, 5.0, yp, &T), KCF_OK);
        assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, b, 1e-4, 5.0, ym, &T), KCF_OK);
        const int out[3] = {0, 3, 4};
        for (int i = 0; i < 3; i++) J[i * 3 + j] = (yp[out[i]] - ym[out[i]]) / 2e-6;
    }
    assert_status(sm_eigenvalues(3, J, re, im), SM_OK);
    const double rho = hypot(re[0], im[0]);
    print_message("Chen's heel-strike: gait stance=%.10f stance_dot=%.10f thigh_dot=shank_dot=%.10f, "
                  "step %.6f s, max |multiplier| %.4f\n",
                  x[0], x[3], x[4], T, rho);
    assert_close(rho, 0.7410, 2e-4);

    /* the engine's walker from the same start */
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    sm_workspace *ws = test_workspace(w.m, 1e-10, SM_METHOD_ADAMS);
    double xe[SM_MAX_STATE], ye[SM_MAX_STATE];
    memcpy(xe, x, sizeof x);
    for (int s = 0; s < 4; s++) {
        assert_status(sm_stride(ws, w.p, xe, ye, NULL, NULL), SM_OK);
        memcpy(xe, ye, sizeof x);
    }
    assert_status(sm_stride(ws, w.p, xe, ye, NULL, NULL), SM_EVENT_ORDER);
    sm_workspace_free(ws);
    close_walker(&w);
}

/* ---- knee: {hold_at_heelstrike: true}: Chen's heel-strike in the engine ------ */

/* kneed_hsu.yaml with the new swing knee held locked through heel-strike,
 * written to a temporary file; path gets its name. */
static void write_held_model(char *path, size_t len)
{
    FILE *in = fopen(MODEL_FILE, "r");
    assert_non_null(in);
    snprintf(path, len, "/tmp/kneed_held_XXXXXX.yaml");
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    assert_non_null(out);
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, in)) {
        fputs(line, out);
        if (strcmp(line, "  assume_locked: true\n") == 0) {
            fputs("  hold_at_heelstrike: true\n", out);
            found++;
        }
    }
    fclose(in);
    fclose(out);
    assert_int_equal(found, 1);
}

static void test_held_heelstrike(void **state)
{
    char path[64];
    write_held_model(path, sizeof path);
    walker w;
    char why[2048] = "";
    w.m = NULL;
    if (sm_registry_open(path, &w.m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    remove(path);
    w.lk = sm_linkage_of(w.m);
    sm_model_default_params(w.m, w.p);
    set(w.m, w.p, "thigh.com", 0.3);
    set(w.m, w.p, "shank.com", 0.15);
    w.P = (kcf_params){.g = 9.8, .gamma = get(w.m, w.p, "slope"), .mh = 0.5, .mt = 0.5, .ms = 0.05,
                       .lt = 0.5, .ls = 0.5, .ct = 0.3, .cs = 0.15};
    const sm_event *hs = find_event(w.m, 1, "heelstrike");
    unsigned long long seed = 17;
    for (int k = 0; k < 200; k++) {
        double x[6], a[6], c[6], hm[3], hp[3];
        size_t n = 0;
        random_state(&seed, x);
        x[2] = x[1];
        x[5] = x[4];
        assert_int_equal(hs->reset(x, a, w.p, w.m->data), 0);
        assert_int_equal(kcf_heelstrike(&w.P, KCF_HS_LOCKED, x, c), 0);
        for (int i = 0; i < 6; i++) assert_close(a[i], c[i], 1e-12 * (1 + fabs(c[i])));
        assert_int_equal(sm_linkage_impact_momenta(w.lk, w.p, SM_LINKAGE_HEELSTRIKE, x, a, hm, hp, &n), 0);
        assert_int_equal(n, 2);
        for (size_t i = 0; i < n; i++) assert_close(hm[i], hp[i], 1e-12 * (1 + fabs(hm[i])));
    }
    /* a stride, and Newton from Tedrake's start onto Chen's gait */
    double x[6], y[SM_MAX_STATE], z[6], T;
    for (int i = 0; i < 6; i++) x[i] = TEDRAKE_X0[i] + (i < 3 ? w.P.gamma : 0.0);
    sm_workspace *ws = test_workspace(w.m, 1e-12, SM_METHOD_ADAMS);
    sm_step_metrics mt;
    assert_status(sm_stride(ws, w.p, x, y, &mt, NULL), SM_OK);
    assert_int_equal(kcf_stride(&w.P, KCF_HS_LOCKED, x, 2e-5, 5.0, z, &T), KCF_OK);
    for (int i = 0; i < 6; i++) assert_close(y[i], z[i], 1e-8);
    assert_close(mt.period, T, 1e-8);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    assert_status(sm_fixed_point(ws, w.p, x, &no, &r), SM_OK);
    assert_true(r.stable);
    assert_close(r.x[0], 0.2396419965, 1e-8);
    assert_close(r.x[3], -1.1338165864, 1e-8);
    assert_close(r.x[4], -0.1087293385, 1e-8);
    assert_close(r.x[5], r.x[4], 1e-12);
    assert_close(r.max_abs_eig, 0.7410, 2e-4);
    sm_workspace_free(ws);
    close_walker(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form_energy), cmocka_unit_test(test_accel_file),
        cmocka_unit_test(test_accel_issue),        cmocka_unit_test(test_impacts_file),
        cmocka_unit_test(test_impacts_issue),      cmocka_unit_test(test_stride_file),
        cmocka_unit_test(test_stride_issue),       cmocka_unit_test(test_issue_gait),
        cmocka_unit_test(test_held_heelstrike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
