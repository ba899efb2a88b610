/* Kinetic friction on a slide that starts at rest (src/body/eval.c): with no
 * sliding velocity to take its sign from, friction must oppose the motion
 * that starts.  A block on a slope steeper than atan(mu), released from
 * rest, slides downhill with the closed-form a = g (sin γ − μ cos γ); with
 * friction the wrong way it would accelerate at g (sin γ + μ cos γ).  The
 * same block on the mirrored slope checks the other sign.
 *
 * The block held by a pin beyond its cone slips at once and slides down to
 * x = -1 in the closed-form time, neither stick of its slide firing (a
 * slide that starts at rest is not one that came back to rest).
 *
 * The block thrown uphill slides to rest and back down past its start: the
 * ground group's sliding distance and displacement of its slide contact
 * (src/body/ground.c) against the closed forms of the two legs. */
#include "test_util.h"

#include "../src/body/body_model.h"
#include "stridemap/registry.h"

/* tests/data/friction/NAME, opened or the test fails saying why */
static const sm_model *open_friction(const char *name)
{
    char path[512], why[1024] = "";
    snprintf(path, sizeof path, "%s/tests/data/friction/%s", SM_SOURCE_DIR, name);
    const sm_model *m = NULL;
    if (sm_registry_open(path, &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    return m;
}

static void accel_from_rest(double slope, double *ax, double *az)
{
    const sm_model *m = open_friction("block.yaml");
    const body_model *bm = (const body_model *)(const void *)m;
    double p[SM_MAX_PARAMS];
    memcpy(p, bm->defaults, sizeof p);
    const int k = sm_model_param_index(m, "slope");
    assert_true(k >= 0);
    p[k] = slope;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    const double x[4] = {0, 0, 0, 0};
    double vdot[2], lambda[1];
    assert_status(body_phase_solve(&e, 0, x, vdot, lambda, NULL, NULL), SM_OK);
    *ax = vdot[0];
    *az = vdot[1];
    sm_registry_close(m);
}

static void test_slides_downhill_from_rest(void **state)
{
    (void)state;
    const double g = 9.81, mu = 0.2, gamma = 0.3;
    const double a = g * (sin(gamma) - mu * cos(gamma));
    double ax, az;
    accel_from_rest(-gamma, &ax, &az); /* downhill is -x */
    assert_close(ax, -a, 1e-12);
    assert_close(az, 0.0, 1e-12);
    accel_from_rest(gamma, &ax, &az); /* downhill is +x */
    assert_close(ax, a, 1e-12);
    assert_close(az, 0.0, 1e-12);
}

typedef struct {
    const char *name[8];
    double t[8];
    size_t n;
} event_log;

static int log_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)phase, (void)xm, (void)xp;
    event_log *l = ctx;
    if (l->n < 8) l->name[l->n] = name, l->t[l->n] = t;
    l->n++;
    return 0;
}

/* tan 0.3 = 0.309 > mu = 0.2: the pin slips within 1e-9 s (the start ramp
 * of slip events), then the block slides from rest to x = -1 at
 * a = g (sin 0.3 - mu cos 0.3), in t = sqrt(2 / a) after it.  The step's
 * max_friction_ratio is the slide's mu: the pinned block's tan 0.3 lasts
 * those 1e-9 s only, a phase the walker is never in (src/stride.c leaves
 * out a phase left within 2e-9 s). */
static void test_slips_at_once_then_slides(void **state)
{
    (void)state;
    const sm_model *m = open_friction("slip_slide.yaml");
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    event_log l = {.n = 0};
    sm_observer obs = {.dt = 0.1, .event = log_event, .ctx = &l};
    sm_step_metrics mt;
    assert_status(sm_stride_measured(ws, p, x0, y, &mt, &obs, obs.dt), SM_OK);
    const double g = 9.81, mu = 0.2, gamma = 0.3, a = g * (sin(gamma) - mu * cos(gamma));
    print_message("slip_slide: %zu events, %s at %.3g s, %s at %.15g s (closed form %.15g after the slip); "
                  "max_friction_ratio %.15g, tan 0.3 %.15g\n",
                  l.n, l.n > 0 ? l.name[0] : "-", l.n > 0 ? l.t[0] : NAN, l.n > 1 ? l.name[1] : "-",
                  l.n > 1 ? l.t[1] : NAN, sqrt(2 / a), mt.max_friction_ratio, tan(gamma));
    assert_int_equal(l.n, 2);
    assert_string_equal(l.name[0], "slips");
    assert_true(l.t[0] > 0 && l.t[0] <= 1.5e-9);
    assert_string_equal(l.name[1], "far");
    assert_close(l.t[1] - l.t[0], sqrt(2 / a), 1e-9);
    assert_close(mt.max_friction_ratio, mu, 1e-9);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

static double extra(const sm_model *m, const double *values, const char *name)
{
    for (size_t i = 0; i < m->n_extra; i++)
        if (strcmp(m->extra_names[i], name) == 0) return values[i];
    fail_msg("no measure %s", name);
    return NAN;
}

/* Thrown uphill at v0 = 2 m/s, the block slides up d = v0^2 / (2 g (sin 0.3
 * + mu cos 0.3)) to rest, slips at once and slides down to x = -0.5 on the
 * same slide: the path d + (d + 0.5), the signed displacement -0.5.  The
 * pin is no slide and gets no sliding measure.  The up leg's end is the
 * stick event's, found by the integrator, so the tolerance is its. */
static void test_sliding_distance_up_and_back(void **state)
{
    (void)state;
    const sm_model *m = open_friction("slide_back.yaml");
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE], v[SM_MAX_EXTRA];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    assert_status(m->extra_measures(ws, p, x0, v), SM_OK);
    const double g = 9.81, mu = 0.2, gamma = 0.3, v0 = 2.0;
    const double d = v0 * v0 / (2 * g * (sin(gamma) + mu * cos(gamma)));
    const double path = extra(m, v, "bottom.sliding_distance"), net = extra(m, v, "bottom.sliding_displacement");
    print_message("slide_back: sliding_distance %.15g (closed form %.15g), sliding_displacement %.15g (-0.5)\n", path,
                  2 * d + 0.5, net);
    assert_close(path, 2 * d + 0.5, 1e-9);
    assert_close(net, -0.5, 1e-9);
    for (size_t i = 0; i < m->n_extra; i++) assert_null(strstr(m->extra_names[i], "pin.sliding"));
    sm_workspace_free(ws);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slides_downhill_from_rest),
        cmocka_unit_test(test_slips_at_once_then_slides),
        cmocka_unit_test(test_sliding_distance_up_and_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
