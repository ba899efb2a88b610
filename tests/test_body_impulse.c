/* The impulses a body walker reports per impact (src/body/ground.c:
 * EVENT.CONTACT.impulse, min_normal_impulse, impact_residual), against the
 * jump of the walker's total linear momentum across the same heel-strike
 * (the compass's trailing foot leaves without impulse, so the new stance
 * foot's impulse is the whole jump), and |J v⁺| at round-off; McGeer's
 * walker's impulse on the new stance knee is Garcia's impulsive knee torque,
 * the 0.037 N m s the retired linkage engine reported for this file. */
#include "test_util.h"
#include "src_path.h"

#include <string.h>

#include "stridemap/fixedpoint.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

typedef struct {
    const sm_model *m;
    const double *p;
    double before[2], after[2];
    int seen;
} jump_watch;

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)t, (void)phase;
    jump_watch *w = ctx;
    if (strcmp(name, "heelstrike") != 0) return 0;
    w->m->momentum(xm, w->p, w->m->data, w->before);
    w->m->momentum(xp, w->p, w->m->data, w->after);
    w->seen++;
    return 0;
}

static double extra(const sm_model *m, const double *values, const char *name)
{
    for (size_t i = 0; i < m->n_extra; i++)
        if (strcmp(m->extra_names[i], name) == 0) return values[i];
    fail_msg("no measure %s", name);
    return NAN;
}

/* The gait of a model file, its extra measures, and the momentum jump at
 * its heel-strike. */
static void gait_of(const char *rel, const sm_model **mo, double *values, jump_watch *w)
{
    char why[1024] = "";
    if (sm_registry_open(src_path(rel), mo, why, sizeof why) != SM_OK) fail_msg("%s", why);
    const sm_model *m = *mo;
    static double p[SM_MAX_PARAMS];
    double x0[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x0, &no, &r), SM_OK);
    assert_status(m->extra_measures(ws, p, r.x, values), SM_OK);
    *w = (jump_watch){.m = m, .p = p};
    sm_observer obs = {.dt = 1.0, .event = on_event, .ctx = w};
    assert_status(sm_stride(ws, p, r.x, y, NULL, &obs), SM_OK);
    assert_int_equal(w->seen, 1);
    sm_workspace_free(ws);
}

static void test_compass_impulse_is_the_momentum_jump(void **state)
{
    (void)state;
    const sm_model *m;
    double v[SM_MAX_EXTRA];
    jump_watch w;
    gait_of("models/compass.yaml", &m, v, &w);
    const double jump_normal = w.after[1] - w.before[1];
    print_message("compass: heel-strike normal impulse %.12g, momentum jump %.12g, |J v+| %.2g\n",
                  extra(m, v, "heelstrike.foot_a.impulse"), jump_normal, extra(m, v, "impact_residual"));
    assert_true(jump_normal > 0);
    assert_close(extra(m, v, "heelstrike.foot_a.impulse"), jump_normal, 1e-10);
    assert_close(extra(m, v, "min_normal_impulse"), jump_normal, 1e-10);
    assert_true(extra(m, v, "impact_residual") < 1e-12);
    sm_registry_close(m);
}

static void test_mcgeer_knee_impulse(void **state)
{
    (void)state;
    const sm_model *m;
    double v[SM_MAX_EXTRA];
    jump_watch w;
    gait_of("models/kneed_mcgeer.yaml", &m, v, &w);
    const double knee = extra(m, v, "heelstrike.knee_a.impulse");
    print_message("kneed_mcgeer: heel-strike impulse on the new stance knee %.10g N m s\n", knee);
    /* the linkage engine's angular-momentum impact gave 0.037 (its file
     * header, to the digits it printed) */
    assert_close(knee, 0.037, 5e-4);
    assert_true(extra(m, v, "impact_residual") < 1e-12);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compass_impulse_is_the_momentum_jump),
        cmocka_unit_test(test_mcgeer_knee_impulse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
