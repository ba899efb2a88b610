/* Event functions run on the phase's clock (model.h, hybrid_internal.h):
 * their t is the time since the phase began, the rhs's the stride's.  A
 * toy of two timed phases, each ending when its own clock reaches its
 * length: the stride lasts T1 + T2, whichever is longer, and a flow of the
 * second phase started at any t0 ends at t0 + T2.  On the stride's time
 * the second phase (T2 < T1) began past its level and never ended. */
#include "test_util.h"

enum { P_T1, P_T2, P_LIMIT, P_N };

/* state: c, the stride's time as the rhs sees it (c' = 1, c = t) */
static int rhs(double t, const double *x, double *xd, const double *p, const void *d)
{
    (void)x, (void)p, (void)d;
    xd[0] = 1.0;
    return t >= 0 ? 0 : -1;
}

static double first_done(double t, const double *x, const double *p, const void *d)
{
    (void)x, (void)d;
    return t - p[P_T1];
}

static double second_done(double t, const double *x, const double *p, const void *d)
{
    (void)x, (void)d;
    return t - p[P_T2];
}

/* the section: the stride's clock back to 0 */
static int restart(const double *xm, double *xp, const double *p, const void *d)
{
    (void)xm, (void)p, (void)d;
    xp[0] = 0.0;
    return 0;
}

static const sm_event first_events[] = {
    {.name = "first_done", .value = first_done, .direction = 1, .outcome = SM_EVENT_TO_PHASE, .next_phase = 1}};
static const sm_event second_events[] = {
    {.name = "second_done", .value = second_done, .direction = 1, .outcome = SM_EVENT_SECTION, .reset = restart}};
static const sm_phase phases[] = {{.name = "first", .rhs = rhs, .n_events = 1, .events = first_events},
                                  {.name = "second", .rhs = rhs, .n_events = 1, .events = second_events}};

static void lift(double *x, const double *p, const void *d)
{
    (void)p, (void)d;
    x[0] = 0.0;
}
static double limit(const double *p, const void *d)
{
    (void)d;
    return p[P_LIMIT];
}

static const char *const names[] = {"c"};
static const size_t free_index[] = {0};
static const sm_param_def params[] = {
    {"T1", 0.3, 0.01, 1, "s", "the first phase's length", 0},
    {"T2", 0.2, 0.01, 1, "s", "the second phase's length", 0},
    {"limit", 2, 0, 10, "s", "time limit", 0},
};
static const sm_model toy = {.name = "two_clocks",
                             .title = "two phases timed by their own clocks",
                             .reference = "test",
                             .n_state = 1,
                             .state_names = names,
                             .n_params = P_N,
                             .params = params,
                             .n_phases = 2,
                             .phases = phases,
                             .n_free = 1,
                             .free_index = free_index,
                             .lift = lift,
                             .guess = lift,
                             .time_limit = limit};

static void check_stride(double T1, double T2, sm_method method)
{
    double p[P_N];
    sm_model_default_params(&toy, p);
    p[P_T1] = T1, p[P_T2] = T2;
    sm_workspace *ws = test_workspace(&toy, 1e-12, method);
    double x[1] = {0.0}, y[1];
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, y, &mt, NULL), SM_OK);
    print_message("T1 = %g, T2 = %g (%s): period %.15g\n", T1, T2, sm_method_name(method), mt.period);
    assert_close(mt.period, T1 + T2, 1e-12);
    assert_int_equal(mt.n_events, 2);
    sm_workspace_free(ws);
}

static void test_stride_lasts_both_phases(void **state)
{
    (void)state;
    check_stride(0.3, 0.2, SM_METHOD_ADAMS);
    check_stride(0.2, 0.3, SM_METHOD_BDF);
    check_stride(0.45, 0.15, SM_METHOD_ERK8);
}

/* A flow of the second phase from t0 ends T2 later, its state (the rhs's
 * time) at t0 + T2. */
static void test_flow_from_any_start(void **state)
{
    (void)state;
    double p[P_N];
    sm_model_default_params(&toy, p);
    static const sm_method methods[] = {SM_METHOD_ADAMS, SM_METHOD_ERK5};
    for (size_t k = 0; k < 2; k++) {
        sm_workspace *ws = test_workspace(&toy, 1e-12, methods[k]);
        static const double starts[] = {0.0, 0.37, 1.1};
        for (size_t s = 0; s < 3; s++) {
            double t = starts[s], x[1] = {starts[s]};
            size_t e = 99;
            assert_status(sm_hybrid_flow(ws, p, 1, &t, x, 2.0, NULL, &e), SM_OK);
            assert_int_equal(e, 0);
            assert_close(t, starts[s] + p[P_T2], 1e-12);
            assert_close(x[0], t, 1e-12);
        }
        sm_workspace_free(ws);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stride_lasts_both_phases),
        cmocka_unit_test(test_flow_from_any_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
