/* The linkage engine's dynamics (src/linkage/dynamics.c): the mass matrix
 * against the kinetic energy, a singular one refused, energy conserved in
 * each phase and angular momenta through knee-strike and heel-strike (point
 * and round feet, locked and never-locking knees), and the work of springs,
 * dampers and torques. */
#include "linkage_util.h"

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
    const char *files[] = {"tests/data/linkage_models/compass.yaml", "tests/data/linkage_models/kneed_hsu.yaml", "tests/data/linkage_models/kneed_mcgeer.yaml",
                           "tests/data/linkage_models/kneed_mcgeer_locked.yaml"};
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
    sm_linkage *lk = load_ok("tests/data/linkage_models/compass.yaml");
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
    sm_linkage *lk = load_ok("tests/data/linkage_models/compass.yaml");
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

/* Knees locked by the file: the straight-legged phase sequence with the
 * same legs; momenta through heel-strike and the gait. */
static void test_locked_knees(void **state)
{
    sm_linkage *lk = load_ok("tests/data/linkage_models/kneed_mcgeer_locked.yaml");
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
    sm_linkage *lk = load_ok("tests/data/linkage_models/compass_round_spring.yaml");
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

/* The energy as watch keeps it, and the first three heel-strikes. */
typedef struct {
    watch energy;
    int impacts;
    double pre[3][SM_MAX_STATE], post[3][SM_MAX_STATE];
} nl_watch;

static int nl_sample(void *ctx, double t, size_t phase, const double *x)
{
    nl_watch *w = ctx;
    return watch_sample(&w->energy, t, phase, x);
}

static int nl_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    nl_watch *w = ctx;
    w->energy.n = 0;
    if (strcmp(name, "heelstrike") == 0 && w->impacts < 3) {
        memcpy(w->pre[w->impacts], xm, w->energy.m->n_state * sizeof *xm);
        memcpy(w->post[w->impacts], xp, w->energy.m->n_state * sizeof *xp);
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
        nl_watch w = {.energy = {.m = m, .p = p}};
        sm_observer obs = {.dt = 0.005, .sample = nl_sample, .event = nl_event, .ctx = &w};
        /* three steps, so that a stance leg with a bent knee strikes too */
        for (int step = 0; step < 3; step++) {
            w.energy.n = 0;
            const sm_status st = sm_stride(ws, p, x, y, NULL, &obs);
            if (st != SM_OK) fail_msg("R=%g, step %d: %s", radii[k], step, sm_status_name(st));
            if (!(w.energy.max_err < 1e-10 * fabs(w.energy.e0) + 1e-12))
                fail_msg("R=%g: energy drift %g of %g", radii[k], w.energy.max_err, w.energy.e0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mass_matrix_is_kinetic_energy),
        cmocka_unit_test(test_singular_mass_matrix),
        cmocka_unit_test(test_energy_and_momentum),
        cmocka_unit_test(test_kneed_energy_and_momentum),
        cmocka_unit_test(test_knee_never_locks),
        cmocka_unit_test(test_spring_damper_work),
        cmocka_unit_test(test_locked_knees),
    };
    return cmocka_run_group_tests_name("linkage_dynamics", tests, NULL, NULL);
}
