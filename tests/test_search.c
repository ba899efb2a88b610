/* Gaits without a guess (search.h): the simplest walker's two period-one
 * gaits at gamma = 0.009, 0.02 and 0.025, found from the model's own box. */
#include <math.h>
#include <string.h>

#include "stridemap/search.h"
#include "test_util.h"

typedef struct {
    sm_fixed_result found[8];
    int period[8];
    size_t hits[8];
    double scratch[SM_MAX_STATE];
    sm_search_result res;
} search_out;

static sm_search_result *out_init(search_out *o)
{
    memset(o, 0, sizeof *o);
    o->res = (sm_search_result){
        .found = o->found, .minimal_period = o->period, .hits = o->hits, .cap = 8, .scratch = o->scratch};
    return &o->res;
}

/* Every start is counted once: on a gait, or as a failure. */
static void assert_counts_add_up(const sm_search_result *r)
{
    size_t hits = 0;
    for (size_t i = 0; i < r->n_found; i++) {
        assert_true(r->hits[i] >= 1);
        hits += r->hits[i];
    }
    assert_int_equal(hits + r->failed, r->starts_run);
}

static void finds_both_published_gaits(void **state)
{
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_newton_options nw;
    sm_newton_options_default(&nw);
    nw.max_iter = 20;
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    so.starts = so.max_starts = 64;
    static search_out a, b;
    sm_search_result *r = out_init(&a);
    assert_status(sm_search(ws, p, &nw, &so, r), SM_OK);
    assert_int_equal(r->n_found, 2);
    assert_int_equal(r->starts_run, 64);
    assert_counts_add_up(r);
    const sm_fixed_result *found = r->found;
    int stable = found[0].stable ? 0 : 1, unstable = 1 - stable;
    assert_true(found[stable].stable && !found[unstable].stable);
    assert_close(found[stable].x[0], GARCIA_STABLE_THETA, 1e-8);
    assert_close(found[stable].x[1], GARCIA_STABLE_THETA_DOT, 1e-8);
    assert_close(found[unstable].x[0], GARCIA_UNSTABLE_THETA, 1e-8);
    assert_close(found[unstable].x[1], GARCIA_UNSTABLE_THETA_DOT, 1e-8);
    assert_int_equal(r->minimal_period[0], 1);
    assert_int_equal(r->minimal_period[1], 1);

    /* Deterministic: the same starts give the same gaits in the same order. */
    sm_search_result *r2 = out_init(&b);
    assert_status(sm_search(ws, p, &nw, &so, r2), SM_OK);
    assert_int_equal(r2->n_found, r->n_found);
    assert_int_equal(r2->failed, r->failed);
    for (size_t i = 0; i < r->n_found; i++) {
        assert_memory_equal(r2->found[i].x, found[i].x, 4 * sizeof(double));
        assert_int_equal(r2->hits[i], r->hits[i]);
    }
    sm_workspace_free(ws);
}

typedef struct {
    size_t last_new, calls, stop_at;
} watch;

static int watch_progress(void *ctx, const sm_search_progress *pr)
{
    watch *w = ctx;
    w->calls++;
    assert_int_equal(pr->done, w->calls);
    assert_true(pr->done <= pr->planned && pr->planned <= pr->max);
    static size_t seen;
    if (pr->done == 1) seen = 0;
    if (pr->found > seen) w->last_new = pr->done, seen = pr->found;
    return w->stop_at && pr->done == w->stop_at;
}

/* Past its first starts, a search runs on until as many starts have found
 * nothing new as it took to find the last gait, and no further. */
static void a_search_stops_when_gaits_stop_turning_up(void **state)
{
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_newton_options nw;
    sm_newton_options_default(&nw);
    nw.max_iter = 20;
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    /* The unstable gait is first hit between starts 33 and 40. */
    so.starts = 40;
    so.max_starts = 1000;
    watch w = {0};
    so.progress = watch_progress;
    so.progress_ctx = &w;
    static search_out a;
    sm_search_result *r = out_init(&a);
    assert_status(sm_search(ws, p, &nw, &so, r), SM_OK);
    assert_int_equal(r->n_found, 2);
    assert_true(2 * w.last_new > so.starts); /* late in the first batch: the search went on */
    assert_true(r->starts_run > so.starts);
    assert_int_equal(r->starts_run, (2 * w.last_new + so.starts - 1) / so.starts * so.starts);
    assert_int_equal(w.calls, r->starts_run);
    assert_counts_add_up(r);

    /* A progress callback that says stop ends the search there. */
    w = (watch){.stop_at = 3};
    r = out_init(&a);
    assert_status(sm_search(ws, p, &nw, &so, r), SM_OK);
    assert_int_equal(r->starts_run, 3);
    assert_counts_add_up(r);
    sm_workspace_free(ws);
}

/* At gamma = 0.02 and 0.025 the simplest walker has two period-one gaits,
 * a long-period one (Garcia et al. 1998: theta* near 0.97 gamma^(1/3)) and a
 * short-period one; Newton from two guesses finds each, independently of
 * the search, and the search with its defaults must find both. */
static void default_search_finds_long_and_short_gaits(void **state)
{
    const sm_model *m = test_model("simplest");
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    const double gammas[] = {0.02, 0.025};
    for (size_t gi = 0; gi < 2; gi++) {
        double p[SM_MAX_PARAMS] = {gammas[gi]};
        const double th = 0.97 * cbrt(p[0]);
        sm_newton_options nw;
        sm_newton_options_default(&nw);
        sm_fixed_result want[2];
        const double ratio[2] = {0.95, 1.0}; /* theta_dot / -theta: the long gait, the short one */
        for (int k = 0; k < 2; k++) {
            double x[4] = {th, -ratio[k] * th, 0, 0};
            m->lift(x, p, m->data);
            assert_status(sm_fixed_point(ws, p, x, &nw, &want[k]), SM_OK);
            assert_true(want[k].converged);
        }
        assert_true(want[0].metrics.period > 3.9 && want[1].metrics.period < 3.1);
        assert_close(want[0].x[0], th, 0.03 * th);

        nw.max_iter = 20;
        nw.max_backtracks = 8;
        sm_search_options so;
        sm_search_options_default(m, p, &so);
        static search_out a;
        sm_search_result *r = out_init(&a);
        assert_status(sm_search(ws, p, &nw, &so, r), SM_OK);
        assert_int_equal(r->n_found, 2);
        assert_counts_add_up(r);
        assert_true(r->starts_run >= so.starts && r->starts_run <= so.max_starts);
        for (int k = 0; k < 2; k++) {
            size_t j = fabs(r->found[0].x[0] - want[k].x[0]) < fabs(r->found[1].x[0] - want[k].x[0]) ? 0 : 1;
            assert_close(r->found[j].x[0], want[k].x[0], 1e-8);
            assert_close(r->found[j].x[1], want[k].x[1], 1e-8);
        }
    }
    sm_workspace_free(ws);
}

static void a_bad_box_is_refused(void **state)
{
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {GARCIA_GAMMA};
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    char why[256];
    so.lo[1] = so.hi[1];
    assert_status(sm_search_options_check(m, &so, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "theta_dot"));
    sm_search_options_default(m, p, &so);
    so.starts = 0;
    assert_status(sm_search_options_check(m, &so, why, sizeof why), SM_BAD_OPTION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_both_published_gaits),
        cmocka_unit_test(a_bad_box_is_refused),
        cmocka_unit_test(a_search_stops_when_gaits_stop_turning_up),
        cmocka_unit_test(default_search_finds_long_and_short_gaits),
    };
    return cmocka_run_group_tests_name("search", tests, NULL, NULL);
}
