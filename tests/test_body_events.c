/* The body walkers' all-events hook (sm_phase.events_all, src/body/events.c):
 * at states inside and off the gait, at the defaults and at other
 * parameters, it gives exactly what each event's own value function gives
 * (it shares one forward sweep and one constrained solve among them), and
 * a stride through it ends where a stride through the single events does. */
#include <string.h>

#include "linkage_util.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

static const char *const files[] = {"models/bodies/compass.yaml", "models/bodies/compass_round_spring.yaml",
                                    "models/bodies/kneed_mcgeer.yaml"};

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hook_equals_each_event),
        cmocka_unit_test(test_stride_same_without_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
