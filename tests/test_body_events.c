/* The body walkers' all-events hook (sm_phase.events_all, src/body/events.c):
 * at states inside and off the gait, at the defaults and at other
 * parameters, it gives exactly what each event's own value function gives
 * (it shares one forward sweep and one constrained solve among them), and
 * a stride through it ends where a stride through the single events does. */
#include <string.h>

#include "src_path.h"
#include "../src/body/body_model.h"
#include "stridemap/registry.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/stride.h"

static const char *const files[] = {"models/compass.yaml", "models/compass_round_spring.yaml",
                                    "models/kneed_mcgeer.yaml"};

static const sm_model *open_ok(const char *rel)
{
    const sm_model *m = NULL;
    char why[512] = "";
    if (sm_registry_open(src_path(rel), &m, why, sizeof why) != SM_OK) fail_msg("%s: %s", rel, why);
    return m;
}

/* One value function at a time against the hook, bit for bit. */
static void check_same(const sm_model *m, const double *p, const double *x, double t)
{
    for (size_t ph = 0; ph < m->n_phases; ph++) {
        const sm_phase *P = &m->phases[ph];
        assert_non_null(P->events_all);
        double g[64];
        P->events_all(t, x, p, m->data, g);
        for (size_t e = 0; e < P->n_events; e++) {
            const double one = P->events[e].value(t, x, p, m->data);
            if (!(one == g[e] || (isnan(one) && isnan(g[e]))))
                fail_msg("phase %zu event %s at t=%g: alone %.17g, all at once %.17g", ph, P->events[e].name, t,
                         one, g[e]);
        }
    }
}

static void test_hook_equals_each_event(void **state)
{
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        const sm_model *m = open_ok(files[k]);
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
        sm_model_default_params(m, p);
        m->guess(x, p, m->data);
        for (int variant = 0; variant < 4; variant++) {
            double y[SM_MAX_STATE];
            memcpy(y, x, sizeof y);
            /* off the section: every coordinate and rate moved */
            for (size_t i = 0; i < m->n_state; i++) y[i] += 0.03 * variant * (i % 2 ? -1.0 : 1.0) * (1.0 + 0.1 * i);
            check_same(m, p, y, 0.0);
            check_same(m, p, y, 0.37);
        }
        /* a copy of the rigid model at other parameters */
        for (size_t i = 0; i < m->n_params; i++)
            if (m->params[i].max > m->params[i].value) p[i] += 0.1 * (m->params[i].max - m->params[i].value);
        check_same(m, p, x, 0.2);
        sm_registry_close(m);
    }
}

/* The engine through the hook and through the single events: the same
 * stride, and the same events found. */
static void test_stride_same_without_hook(void **state)
{
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        const sm_model *m = open_ok(files[k]);
        sm_model plain = *m;
        sm_phase phases[16];
        assert_true(m->n_phases <= 16);
        memcpy(phases, m->phases, m->n_phases * sizeof *phases);
        for (size_t ph = 0; ph < m->n_phases; ph++) phases[ph].events_all = NULL;
        plain.phases = phases;
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y1[SM_MAX_STATE], y2[SM_MAX_STATE];
        sm_model_default_params(m, p);
        m->guess(x, p, m->data);
        sm_solver_options o;
        sm_solver_options_default(&o);
        sm_workspace *w1 = NULL, *w2 = NULL;
        assert_status(sm_workspace_create(m, &o, &w1), SM_OK);
        assert_status(sm_workspace_create(&plain, &o, &w2), SM_OK);
        assert_status(sm_stride(w1, p, x, y1, NULL, NULL), SM_OK);
        assert_status(sm_stride(w2, p, x, y2, NULL, NULL), SM_OK);
        for (size_t i = 0; i < m->n_state; i++) assert_true(y1[i] == y2[i]);
        sm_counters c1, c2;
        sm_workspace_counters(w1, &c1);
        sm_workspace_counters(w2, &c2);
        assert_int_equal(c1.root_evals, c2.root_evals);
        assert_true(c1.root_evals > 0);
        sm_workspace_free(w1);
        sm_workspace_free(w2);
        sm_registry_close(m);
    }
}

static void set(const sm_model *m, double *p, const char *name, double v)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("%s has no parameter %s", m->name, name);
    p[i] = v;
}

/* Off its defaults a body walker's callbacks re-set only the bodies, sites
 * and gravity whose numbers read a changed parameter: a longer leg (a
 * site), its mass nearer the hip (leg_a's centre of mass, which leg_b's
 * reads), a heavier hip (a body's mass) and a steeper slope (the gravity)
 * give the closed-form compass walker's gait with the same numbers
 * (Goswami et al. 1998: a from the foot to the leg's mass, b on to the hip). */
static void check_closed_form(double gamma, double a, double bb, double mh)
{
    const sm_model *b = open_ok("models/compass.yaml");
    const sm_model *c = sm_registry_find("compass");
    double pb[SM_MAX_PARAMS], pc[SM_MAX_PARAMS];
    sm_model_default_params(b, pb);
    sm_model_default_params(c, pc);
    set(b, pb, "slope", gamma);
    set(b, pb, "sites.foot_a.pos.z", -(a + bb));
    set(b, pb, "bodies.leg_a.com.z", -bb);
    set(b, pb, "bodies.hip_z.mass", mh);
    set(c, pc, "gamma", gamma);
    set(c, pc, "a", a);
    set(c, pc, "b", bb);
    set(c, pc, "mh", mh);
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.rtol = o.atol = 1e-12;
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.tol = 1e-11;
    static sm_fixed_result rb, rc;
    double xc[SM_MAX_STATE], xb[SM_MAX_STATE], xs[SM_MAX_STATE];
    c->guess(xc, pc, c->data);
    sm_workspace *wc = NULL, *wb = NULL;
    assert_status(sm_workspace_create(c, &o, &wc), SM_OK);
    assert_status(sm_fixed_point(wc, pc, xc, &no, &rc), SM_OK);
    /* the body walker from the closed form's gait: leg_a = gamma - th_st
     * (by name: the file integrates the joints alone) */
    const int la = sm_model_state_index(b, "leg_a"), lb = sm_model_state_index(b, "leg_b"),
              wa = sm_model_state_index(b, "leg_a_dot"), wb_ = sm_model_state_index(b, "leg_b_dot");
    assert_true(la >= 0 && lb >= 0 && wa >= 0 && wb_ >= 0);
    b->guess(xb, pb, b->data);
    xb[la] = gamma - rc.x[0];
    xb[wa] = -rc.x[2];
    xb[wb_] = -rc.x[3];
    sm_model_to_section(b, pb, xb, xs);
    assert_status(sm_workspace_create(b, &o, &wb), SM_OK);
    assert_status(sm_fixed_point(wb, pb, xs, &no, &rb), SM_OK);
    assert_close(rb.x[la], gamma - rc.x[0], 1e-9);
    assert_close(rb.x[lb], gamma - rc.x[1], 1e-9);
    assert_close(rb.x[wa], -rc.x[2], 1e-9);
    assert_close(rb.x[wb_], -rc.x[3], 1e-9);
    assert_close(rb.metrics.period, rc.metrics.period, 1e-9);
    /* the hip a leg's length above the stance foot (the base the
     * expansion puts under the joints: hip_x, hip_z, leg_a, leg_b, rates) */
    double xf[SM_MAX_STATE];
    assert_status(body_expand_at(b->data, pb, rb.x, xf), SM_OK);
    assert_close(xf[1], (a + bb) * cos(xf[2]), 1e-12);
    sm_workspace_free(wc);
    sm_workspace_free(wb);
    sm_registry_close(b);
}

static void test_other_params_reach_every_definition(void **state) { check_closed_form(0.045, 0.65, 0.45, 12.0); }

/* The slope alone: the callbacks' model shares the template's bodies and
 * has a gravity of its own (sm_rigid_model_view). */
static void test_other_slope_alone(void **state) { check_closed_form(0.045, 0.5, 0.5, 10.0); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hook_equals_each_event),
        cmocka_unit_test(test_stride_same_without_hook),
        cmocka_unit_test(test_other_params_reach_every_definition),
        cmocka_unit_test(test_other_slope_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
