/* integrate: reduced (src/body/reduced.c): each of the five model files
 * integrated on its joints alone gives the gait and the multipliers of the
 * full formulation (the floating base integrated under the stance pin or
 * roll by the saddle-point solve); the base the expansion puts under the
 * joints moves at the rates it reports (the rolling condition's sign); the
 * reduced state, free list and sample columns; refused files. */
#include <string.h>
#include <unistd.h>

#include "body_solve.h"
#include "cli_run.h"
#include "src_path.h"
#include "../src/body/body_model.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/registry.h"

static const char *const FILES[] = {"compass", "compass_round_spring", "kneed_hsu", "kneed_mcgeer",
                                    "kneed_mcgeer_locked"};
/* the joints a lock holds in every phase, which the reduced state leaves
 * out: the kneed walkers' stance knee, both knees of the locked one */
static const size_t HELD[] = {0, 0, 1, 1, 2};

/* models/NAME.yaml with extra lines appended (a later key of the same
 * name would be a duplicate: only new keys), in /tmp. */
static const char *variant(const char *name, const char *extra)
{
    static char path[4][256];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "/tmp/stridemap_test_body_reduced_%d_%s_%d.yaml", (int)getpid(), name, k);
    char rel[128];
    snprintf(rel, sizeof rel, "models/%s.yaml", name);
    FILE *in = fopen(src_path(rel), "r"), *out = fopen(path[k], "w");
    if (!in || !out) fail_msg("cannot copy %s to %s", rel, path[k]);
    char line[1024];
    /* the file's own formulation, if it names one, gives way to extra's */
    while (fgets(line, sizeof line, in))
        if (strncmp(line, "integrate:", 10) != 0) fputs(line, out);
    fputs(extra, out);
    fclose(in);
    fclose(out);
    return path[k];
}

/* Removes every file variant() may have written. */
static int remove_variants(void **state)
{
    (void)state;
    for (size_t w = 0; w < sizeof FILES / sizeof FILES[0]; w++)
        for (int k = 0; k < 4; k++) {
            char path[256];
            snprintf(path, sizeof path, "/tmp/stridemap_test_body_reduced_%d_%s_%d.yaml", (int)getpid(), FILES[w], k);
            unlink(path);
        }
    return 0;
}

static const sm_model *open_ok(const char *path)
{
    const sm_model *m = NULL;
    char why[512] = "";
    if (sm_registry_open(path, &m, why, sizeof why) != SM_OK) fail_msg("%s: %s", path, why);
    return m;
}

/* models/NAME.yaml integrated on its joints, at its default parameters p
 * and its guess x. */
static const sm_model *reduced_at_guess(const char *name, double *p, double *x)
{
    const sm_model *m = open_ok(variant(name, "integrate: reduced\n"));
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    return m;
}

static void solve(const sm_model *m, sm_fixed_result *r, double *extra)
{
    /* tight enough that the two formulations' integration errors (1e-9 at
     * the default 1e-10) are below the comparison */
    sm_newton_options no;
    sm_workspace *ws = body_solve_setup(m, 1e-13, &no);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    assert_true(sm_gait_extra_measures(ws, p, &r->gait, extra));
    sm_workspace_free(ws);
}

/* The reduced and the full formulation of every file: the same gait to
 * 1e-9 (the joints and their rates, and the base the expansion puts under
 * them: its height and rates, and for a pin its x), the same multipliers
 * to 1e-7. */
static void test_same_gaits(void **state)
{
    (void)state;
    static sm_fixed_result rf, rr;
    for (size_t w = 0; w < sizeof FILES / sizeof FILES[0]; w++) {
        const sm_model *mf = open_ok(variant(FILES[w], "integrate: full\n")),
                       *mr = open_ok(variant(FILES[w], "integrate: reduced\n"));
        const body_model *bm = mr->data;
        assert_true(bm->reduced);
        assert_int_equal(mr->n_state + 4 + 2 * HELD[w], mf->n_state);
        assert_int_equal(mr->n_free, mf->n_free);
        double ef[SM_MAX_EXTRA], er[SM_MAX_EXTRA];
        solve(mf, &rf, ef);
        solve(mr, &rr, er);
        assert_int_equal(mr->n_extra, mf->n_extra);
        for (size_t i = 0; i < mr->n_extra; i++) {
            /* the stance contact cannot drift off in the reduced state */
            if (strcmp(mr->extra_names[i], "constraint_drift") == 0) continue;
            if (isnan(ef[i])) {
                assert_true(isnan(er[i]));
                continue;
            }
            /* extremes over the stride are read at each formulation's own
             * integrator steps (and a common grid): between two steps a
             * force's top is cut by up to about 1e-6 of itself; the rest
             * (impulses, at events) agree to 1e-7 */
            const char *name = mr->extra_names[i];
            const bool extreme = strncmp(name, "min_", 4) == 0 || strncmp(name, "max_", 4) == 0 ||
                                 strstr(name, ".min_") || strstr(name, ".max_") || strcmp(name, "cop_margin") == 0;
            assert_close(er[i], ef[i], (extreme ? 1e-5 : 1e-7) * (1 + fabs(ef[i])));
        }
        /* every joint, the held ones put back at their locks */
        const size_t nq = bm->nq;
        double p[SM_MAX_PARAMS], xf[SM_MAX_STATE];
        sm_model_default_params(mr, p);
        assert_status(body_expand_at(bm, p, rr.x, xf), SM_OK);
        for (size_t i = 2; i < nq; i++) {
            assert_close(xf[i], rf.x[i], 1e-9);
            assert_close(xf[nq + i], rf.x[nq + i], 1e-9);
        }
        const bool pin = bm->f->contacts[bm->f->origin].kind == SM_CONTACT_PIN;
        if (pin) assert_close(xf[0], rf.x[0], 1e-9);
        assert_close(xf[1], rf.x[1], 1e-9);
        assert_close(xf[nq], rf.x[nq], 1e-9);
        assert_close(xf[nq + 1], rf.x[nq + 1], 1e-9);
        for (size_t i = 0; i < mr->n_free; i++) {
            assert_close(rr.eig_re[i], rf.eig_re[i], 1e-7);
            assert_close(fabs(rr.eig_im[i]), fabs(rf.eig_im[i]), 1e-7);
        }
        assert_close(rr.metrics.period, rf.metrics.period, 1e-9);
        assert_close(rr.metrics.step_length, rf.metrics.step_length, 1e-9);
        /* the measures read the expanded state: energies across the
         * impacts, the momentum's jump, the stance contact's forces */
        assert_close(rr.metrics.impact_energy_loss, rf.metrics.impact_energy_loss, 1e-8);
        assert_close(rr.metrics.heelstrike_impulse, rf.metrics.heelstrike_impulse, 1e-8);
        assert_close(rr.metrics.min_normal_force, rf.metrics.min_normal_force, 1e-7);
        assert_close(rr.metrics.max_friction_ratio, rf.metrics.max_friction_ratio, 1e-9);
        assert_close(rr.metrics.min_foot_clearance, rf.metrics.min_foot_clearance, 1e-9);
        assert_close(rr.metrics.max_foot_clearance, rf.metrics.max_foot_clearance, 1e-9);
        sm_registry_close(mr);
        sm_registry_close(mf);
    }
}

/* Along the reduced flow the expanded base moves at the rates the
 * expansion gives it (central difference, step 1e-5: error 1e-10 x the
 * third derivative): holds the roll's c_x = r φ_y (the opposite sign is
 * off by 2 r ω, about 0.4 m/s) and the pin's base. */
static void test_base_rates(void **state)
{
    (void)state;
    for (size_t w = 0; w < sizeof FILES / sizeof FILES[0]; w++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xd[SM_MAX_STATE];
        const sm_model *m = reduced_at_guess(FILES[w], p, x);
        const body_model *bm = m->data;
        assert_int_equal(m->phases[0].rhs(0, x, xd, p, m->data), 0);
        const double h = 1e-5;
        double xp[SM_MAX_STATE], xm[SM_MAX_STATE], fp[SM_MAX_STATE], fm[SM_MAX_STATE], f0[SM_MAX_STATE];
        for (size_t i = 0; i < m->n_state; i++) {
            xp[i] = x[i] + h * xd[i];
            xm[i] = x[i] - h * xd[i];
        }
        assert_status(body_expand_at(bm, p, x, f0), SM_OK);
        assert_status(body_expand_at(bm, p, xp, fp), SM_OK);
        assert_status(body_expand_at(bm, p, xm, fm), SM_OK);
        for (size_t k = 0; k < 2; k++) {
            assert_true(fabs(f0[bm->nq + k]) > 0.1); /* the base moves */
            assert_close((fp[k] - fm[k]) / (2 * h), f0[bm->nq + k], 1e-8);
        }
        sm_registry_close(m);
    }
}

/* The reduced equations against the saddle-point solve, in every phase of
 * every file at the guess: the accelerations and the contact forces (the
 * stance contact's and the locks', which the force events read). */
static void test_reduced_solve(void **state)
{
    (void)state;
    for (size_t w = 0; w < sizeof FILES / sizeof FILES[0]; w++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xf[SM_MAX_STATE];
        const sm_model *m = reduced_at_guess(FILES[w], p, x);
        const body_model *bm = m->data;
        x[bm->n_reduced / 2] += 0.3; /* off the gait: every rate and force in play */
        BODY_EVAL_MEM(mem, bm);
        body_eval e;
        assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
        assert_status(body_expand(&e, x, xf), SM_OK);
        for (size_t ph = 0; ph < bm->f->n_phases; ph++) {
            assert_true(bm->reduced_direct[ph]);
            double a1[SM_RIGID_MAX_V], a2[SM_RIGID_MAX_V], l1[SM_RIGID_MAX_ROWS], l2[SM_RIGID_MAX_ROWS];
            sm_contact c1[BODY_MAX_CONTACTS], c2[BODY_MAX_CONTACTS];
            size_t n1 = 0, n2 = 0;
            assert_status(body_phase_solve(&e, ph, xf, a1, l1, c1, &n1), SM_OK);
            assert_status(body_reduced_accel(&e, ph, xf, false, a2, l2, c2, &n2), SM_OK);
            assert_int_equal(n1, n2);
            for (size_t i = 0; i < bm->nv; i++) assert_close(a2[i], a1[i], 1e-10 * (1 + fabs(a1[i])));
            const size_t rows = sm_contact_set_rows(e.m, c1, n1);
            assert_true(rows >= 2);
            for (size_t i = 0; i < rows; i++) assert_close(l2[i], l1[i], 1e-10 * (1 + fabs(l1[i])));
            /* on the expansion's sweep (the base at rest), as the events call it */
            assert_status(body_expand(&e, x, xf), SM_OK);
            assert_status(body_reduced_accel(&e, ph, xf, true, a2, l2, c2, &n2), SM_OK);
            for (size_t i = 0; i < bm->nv; i++) assert_close(a2[i], a1[i], 1e-10 * (1 + fabs(a1[i])));
            for (size_t i = 0; i < rows; i++) assert_close(l2[i], l1[i], 1e-10 * (1 + fabs(l1[i])));
        }
        sm_registry_close(m);
    }
}

/* The tree pinned at the stance contact (src/rigid/pinned.c) against the
 * full saddle-point solve (the floating base, the contact rows, the
 * Schur complement), in every phase of every file at random states: the
 * same joint accelerations to 1e-12, the locked joints' zero, and the
 * same contact forces (the stance contact's, the locks') to 1e-11.  Also at
 * other parameters (a copy of the rigid model) and with a spring. */
static void test_pinned_path(void **state)
{
    (void)state;
    unsigned seed = 12345u;
    for (size_t w = 0; w < sizeof FILES / sizeof FILES[0]; w++) {
        const sm_model *m = open_ok(variant(FILES[w], "integrate: reduced\n"));
        const body_model *bm = m->data;
        assert_true(bm->pinned_ok);
        const size_t ni = bm->n_reduced / 2, nj = bm->nv - 2;
        assert_int_equal(ni + HELD[w], nj);
        for (int trial = 0; trial < 20; trial++) {
            double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xf[SM_MAX_STATE];
            sm_model_default_params(m, p);
            m->guess(x, p, m->data);
            for (size_t i = 0; i < m->n_state; i++) {
                seed = seed * 1103515245u + 12345u;
                x[i] += ((double)(seed >> 8) / (double)(1u << 24) - 0.5) * (i < ni ? 0.6 : 3.0);
            }
            if (trial % 2) /* another parameter point: the rigid model is a copy */
                for (size_t k = 0; k < m->n_params; k++) p[k] *= 1.1;
            BODY_EVAL_MEM(mem, bm);
            body_eval e;
            assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
            xf[0] = xf[1] = xf[bm->nq] = xf[bm->nq + 1] = 0.0;
            body_unreduce(bm, p, x, xf);
            for (size_t ph = 0; ph < bm->f->n_phases; ph++) {
                double a1[SM_RIGID_MAX_V], a2[SM_RIGID_MAX_V];
                assert_status(body_phase_solve(&e, ph, xf, a1, NULL, NULL, NULL), SM_OK);
                assert_status(body_reduced_joint_accel(&e, ph, xf, a2), SM_OK);
                double scale = 1.0;
                for (size_t i = 0; i < nj; i++) scale = fmax(scale, fabs(a1[2 + i]));
                for (size_t i = 0; i < nj; i++) assert_close(a2[i], a1[2 + i], 1e-12 * scale);
                /* the integrator's call on the reduced state: at the
                 * defaults its own data block and the template; the
                 * held joints at rest at their locks */
                for (size_t i = 0; i < nj; i++)
                    if (bm->held[i] >= 0) {
                        assert_true(xf[2 + i] == 0.0 && xf[bm->nq + 2 + i] == 0.0);
                        assert_close(a1[2 + i], 0.0, 1e-12 * scale);
                    }
                double xd[SM_MAX_STATE];
                assert_status(body_reduced_rhs(bm, ph, p, x, xd), SM_OK);
                for (size_t i = 0; i < ni; i++) {
                    assert_true(xd[i] == x[ni + i]);
                    assert_close(xd[ni + i], a1[2 + bm->kept[i]], 1e-12 * scale);
                }
                /* the forces the force events read: the stance contact's
                 * and each lock's, in the saddle-point solve's rows */
                double l1[SM_RIGID_MAX_ROWS], l2[SM_RIGID_MAX_ROWS];
                sm_contact c1[BODY_MAX_CONTACTS], c2[BODY_MAX_CONTACTS];
                size_t n1 = 0, n2 = 0;
                assert_status(body_phase_solve(&e, ph, xf, a1, l1, c1, &n1), SM_OK);
                assert_status(body_reduced_forces(&e, ph, xf, true, l2, c2, &n2), SM_OK);
                assert_int_equal(n2, n1);
                const size_t rows = sm_contact_set_rows(e.m, c1, n1);
                assert_int_equal(sm_contact_set_rows(e.m, c2, n2), rows);
                double fscale = 1.0;
                for (size_t i = 0; i < rows; i++) fscale = fmax(fscale, fabs(l1[i]));
                for (size_t i = 0; i < rows; i++) assert_close(l2[i], l1[i], 1e-11 * fscale);
            }
        }
        sm_registry_close(m);
    }
}

/* The compass pinned at its stance foot against its closed form (Goswami,
 * Thuilot & Espiau 1998, with absolute leg angles θa (stance), θb; hip mass
 * mh, legs m with their mass b below the hip, length l, a = l − b, the leg
 * direction d(θ) = (sin θ, 0, −cos θ)):
 *     M = [(mh + m) l² + m a²,  −m l b cos Δ;  −m l b cos Δ,  m b²],  Δ = θa − θb,
 *     C q̇ = m l b sin Δ (−θ̇b², θ̇a²),
 *     G = −g·∂x/∂θ = ((mh l + m (2l − b)) g·d'(θa), −m b g·d'(θb)). */
static void pinned_compass_check(const sm_model *mo, const double *p)
{
    const body_model *bm = mo->data;
    double g[3];
    body_gravity_at(bm->f, p, g);
    const double mh = 10, m = 5, l = 1, b = 0.5, a = l - b;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    const double ta = 0.2, tb = -0.3, wa = -1.1, wb = 0.7, D = ta - tb;
    const double q[4] = {0, 0, ta, tb}, v[4] = {0, 0, wa, wb};
    assert_status(sm_rigid_forward(e.m, e.d, q, v), SM_OK);
    double M[4], bias[2];
    assert_true(sm_rigid_pinned_dynamics(e.m, e.d, &bm->pinned, 0.0, NULL, M, bias, NULL));
    const double M11 = (mh + m) * l * l + m * a * a, M12 = -m * l * b * cos(D), M22 = m * b * b;
    assert_close(M[0], M11, 1e-12 * M11);
    assert_close(M[1], M12, 1e-12 * M11);
    assert_close(M[2], M12, 1e-12 * M11);
    assert_close(M[3], M22, 1e-12 * M11);
    const double gda = g[0] * cos(ta) + g[2] * sin(ta), gdb = g[0] * cos(tb) + g[2] * sin(tb);
    const double b1 = -m * l * b * sin(D) * wb * wb + (mh * l + m * (2 * l - b)) * gda;
    const double b2 = m * l * b * sin(D) * wa * wa - m * b * gdb;
    assert_close(bias[0], b1, 1e-12 * (1 + fabs(b1)));
    assert_close(bias[1], b2, 1e-12 * (1 + fabs(b2)));
}

static void test_pinned_compass_closed_form(void **state)
{
    (void)state;
    const sm_model *mo = open_ok(variant("compass", "integrate: reduced\n"));
    double p[SM_MAX_PARAMS];
    sm_model_default_params(mo, p);
    pinned_compass_check(mo, p);
    sm_registry_close(mo);
}

/* The same with 4 of the hip's 10 kg on the base's first slide, which the
 * file leaves massless (mass: 0, a parameter): the pinned sums skip the
 * massless slides above the legs (plan.top), and must count this one. */
static void test_pinned_compass_massive_slide(void **state)
{
    (void)state;
    const char *path = variant("compass", "integrate: reduced\n");
    FILE *in = fopen(path, "r");
    char text[16384];
    const size_t len = in ? fread(text, 1, sizeof text - 1, in) : 0;
    if (in) fclose(in);
    text[len] = '\0';
    const char *line = "axis: [1, 0, 0]}", *at = strstr(text, line);
    if (!at) fail_msg("%s: no hip_x slide line", path);
    FILE *out = fopen(path, "w");
    if (!out) fail_msg("cannot write %s", path);
    fprintf(out, "%.*saxis: [1, 0, 0], mass: 0}%s", (int)(at - text), text, at + strlen(line));
    fclose(out);
    const sm_model *mo = open_ok(path);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(mo, p);
    const int ix = sm_model_param_index(mo, "bodies.hip_x.mass"), iz = sm_model_param_index(mo, "bodies.hip_z.mass");
    assert_true(ix >= 0 && iz >= 0);
    p[ix] = 4.0;
    p[iz] = 6.0;
    pinned_compass_check(mo, p);
    sm_registry_close(mo);
}

/* What the user sees: the joints' names and rates as the state, the free
 * list in that state, the base as the last four sample columns equal to
 * the expansion. */
static void test_reduced_state(void **state)
{
    (void)state;
    const sm_model *m = open_ok(variant("compass", "integrate: reduced\n"));
    static const char *const names[] = {"leg_a", "leg_b", "leg_a_dot", "leg_b_dot"};
    assert_int_equal(m->n_state, 4);
    for (size_t i = 0; i < 4; i++) assert_string_equal(m->state_names[i], names[i]);
    assert_int_equal(m->n_free, 3);
    assert_int_equal(m->free_index[0], 0);
    assert_int_equal(m->free_index[1], 2);
    assert_int_equal(m->free_index[2], 3);
    static const char *const base[] = {"hip_x", "hip_z", "hip_x_dot", "hip_z_dot"};
    const size_t n = m->n_sample;
    for (size_t i = 0; i < 4; i++) assert_string_equal(m->sample_names[n - 4 + i], base[i]);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xf[SM_MAX_STATE], s[SM_MAX_SAMPLE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    assert_int_equal(m->sample(0, 0, x, p, m->data, s), 0);
    assert_status(body_expand_at(m->data, p, x, xf), SM_OK);
    assert_close(s[n - 4], xf[0], 0);
    assert_close(s[n - 3], xf[1], 0);
    assert_close(s[n - 2], xf[4], 0);
    assert_close(s[n - 1], xf[5], 0);
    /* the foot is on the ground at the origin, the hip a leg above it */
    assert_close(hypot(xf[0], xf[1]), 1.0, 1e-12);
    sm_registry_close(m);

    /* both knees locked in its one phase: the thighs alone, the knees
     * straight (their locks' value) and at rest in the expansion */
    m = open_ok(variant("kneed_mcgeer_locked", "integrate: reduced\n"));
    static const char *const thighs[] = {"thigh_a", "thigh_b", "thigh_a_dot", "thigh_b_dot"};
    assert_int_equal(m->n_state, 4);
    for (size_t i = 0; i < 4; i++) assert_string_equal(m->state_names[i], thighs[i]);
    assert_int_equal(m->n_free, 3);
    assert_int_equal(m->free_index[0], 0);
    assert_int_equal(m->free_index[1], 2);
    assert_int_equal(m->free_index[2], 3);
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    x[0] += 0.1, x[3] -= 0.5;
    assert_status(body_expand_at(m->data, p, x, xf), SM_OK);
    const body_model *bm = m->data;
    const size_t nq = bm->nq;
    assert_int_equal(nq, 6);
    assert_true(xf[2] == x[0] && xf[4] == x[1] && xf[nq + 2] == x[2] && xf[nq + 4] == x[3]);
    assert_true(xf[3] == 0.0 && xf[5] == 0.0 && xf[nq + 3] == 0.0 && xf[nq + 5] == 0.0);
    double back[SM_MAX_STATE];
    body_reduce(bm, xf, back);
    for (size_t i = 0; i < 4; i++) assert_true(back[i] == x[i]);
    sm_registry_close(m);
}

/* A held joint follows its lock's value at p: kneed_mcgeer_locked.yaml
 * with its knees locked bent (at: 0.1, a parameter), at the defaults and
 * with contacts.knee_a.at = 0.25: the expansion puts the knees there at
 * rest, and the reduced right-hand side (the integrator's call, at the
 * defaults its own data block) gives the saddle-point solve's accelerations
 * of the full state. */
static void test_held_at_lock(void **state)
{
    (void)state;
    const char *path = variant("kneed_mcgeer_locked", "integrate: reduced\n");
    char text[16384];
    cli_slurp(path, text, sizeof text);
    static const char *const knees[] = {"coord: shank_a}", "coord: shank_b}"};
    char out[17000] = "";
    const char *from = text;
    for (size_t k = 0; k < 2; k++) {
        const char *at = strstr(from, knees[k]);
        assert_non_null(at);
        strncat(out, from, (size_t)(at - from) + strlen(knees[k]) - 1);
        strcat(out, ", at: 0.1}");
        from = at + strlen(knees[k]);
    }
    strcat(out, from);
    FILE *f = fopen(path, "w");
    fputs(out, f);
    fclose(f);
    const sm_model *m = open_ok(path);
    const body_model *bm = m->data;
    assert_int_equal(m->n_state, 4);
    const size_t nq = bm->nq;
    for (int trial = 0; trial < 2; trial++) {
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xf[SM_MAX_STATE], xd[SM_MAX_STATE], a[SM_RIGID_MAX_V];
        sm_model_default_params(m, p);
        const double at_a = trial ? 0.25 : 0.1;
        if (trial) p[sm_model_param_index(m, "contacts.knee_a.at")] = at_a;
        m->guess(x, p, m->data);
        x[2] += 0.3;
        assert_status(body_expand_at(bm, p, x, xf), SM_OK);
        assert_true(xf[3] == at_a && xf[5] == 0.1 && xf[nq + 3] == 0.0 && xf[nq + 5] == 0.0);
        BODY_EVAL_MEM(mem, bm);
        body_eval e;
        assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
        assert_status(body_phase_solve(&e, 0, xf, a, NULL, NULL, NULL), SM_OK);
        assert_status(body_reduced_rhs(bm, 0, p, x, xd), SM_OK);
        const double scale = 1 + fabs(a[2]) + fabs(a[4]);
        assert_close(xd[2], a[2], 1e-12 * scale);
        assert_close(xd[3], a[4], 1e-12 * scale);
        assert_close(a[3], 0.0, 1e-12 * scale);
        assert_close(a[5], 0.0, 1e-12 * scale);
    }
    sm_registry_close(m);
}

static void refused(const char *path, const char *needle)
{
    const sm_model *m = NULL;
    char why[512] = "";
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    if (!strstr(why, needle)) fail_msg("'%s' does not say '%s'", why, needle);
    cli_result *r = cli_run("fixed", path, NULL);
    cli_expect_error(r, 65, needle);
}

static void test_refused(void **state)
{
    (void)state;
    refused(variant("compass", "integrate: sideways\n"), "integrate must be 'full' or 'reduced'");
    /* a base rate among the free coordinates */
    const char *path = variant("compass", "integrate: reduced\n");
    char text[8192];
    cli_slurp(path, text, sizeof text);
    char *at = strstr(text, "free: [leg_a, leg_a_dot, leg_b_dot]");
    assert_non_null(at);
    memcpy(at, "free: [leg_a, hip_x_dot, leg_b_dot]", 35);
    FILE *out = fopen(path, "w");
    fputs(text, out);
    fclose(out);
    refused(path, "the section's free list names a slide of the base");
    /* the reduced equations would drop a controller's torques */
    refused(variant("three_link_hzd", "integrate: reduced\n"), "no controller");
}

/* The program on a reduced file: the state columns are the joints', the
 * base follows as sample columns. */
static void test_cli_simulate(void **state)
{
    (void)state;
    cli_result *r = cli_run("simulate", variant("compass", "integrate: reduced\n"), "--steps", "2", NULL);
    assert_int_equal(r->status, 0);
    const char *nl = strchr(r->out, '\n');
    assert_non_null(nl);
    char header[1024];
    snprintf(header, sizeof header, "%.*s", (int)(nl - r->out), r->out);
    assert_non_null(strstr(header, "leg_a,leg_b,leg_a_dot,leg_b_dot"));
    assert_non_null(strstr(header, "hip_x,hip_z,hip_x_dot,hip_z_dot"));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_body_reduced PATH-TO-STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduced_state), cmocka_unit_test(test_base_rates), cmocka_unit_test(test_reduced_solve), cmocka_unit_test(test_pinned_path),
        cmocka_unit_test(test_pinned_compass_closed_form),
        cmocka_unit_test(test_pinned_compass_massive_slide), cmocka_unit_test(test_held_at_lock),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_cli_simulate),  cmocka_unit_test(test_same_gaits),
    };
    return cmocka_run_group_tests(tests, NULL, remove_variants);
}
