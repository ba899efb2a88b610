/* Gaits of 3-D walkers without a guess (search.h on models/garcia3d.yaml
 * and models/rimless3d.yaml).
 *
 * - garcia3d: a search of the mirrored one-step map over the model's box
 *   finds the gait Newton finds from the file's guess.
 * - Coleman's two-step map (P^2, period_unit 2): the same gait, reported as
 *   a fixed point of two steps whose multipliers are the squares of the
 *   one-step map's (seed 003 eq. 2.58: the two-step map is (I* f)^2), also
 *   when the search is for period 2 of the two-step map (P^4): a gait of
 *   one mirrored step is a fixed point of the two-step map, not a period-2
 *   orbit of it.  From the model's box, where two strides from most starts
 *   fall (the two-step multiplier is 679), Newton on P finds it.
 * - rimless3d: its gaits are a family in heading; the search keeps the
 *   family's condition and finds one gait, the member at the heading b the
 *   parameter names, leaning by the closed form -atan(tan(gamma) sin(b))
 *   and spinning as the planar wheel on the slope asin(sin(gamma) cos(b)),
 *   with the family's multiplier 1 as the trivial one.
 * - Through the program: `search --two-step --json` says so, with period 2,
 *   minimal_period 1 and the squared multiplier of `fixed`. */
#include "test_util.h"
#include "src_path.h"
#include "cli_run.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "stridemap/search.h"

enum { CAP = 8 };

typedef struct {
    sm_fixed_result found[CAP];
    int period[CAP];
    size_t hits[CAP];
    double scratch[4 * SM_MAX_STATE];
    sm_search_result res;
} search_out;

static sm_search_result *out_init(search_out *o)
{
    memset(o, 0, sizeof *o);
    o->res = (sm_search_result){
        .found = o->found, .minimal_period = o->period, .hits = o->hits, .cap = CAP, .scratch = o->scratch};
    return &o->res;
}

static const sm_model *open_ok(const char *path)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(path, &m, why, sizeof why) != SM_OK) fail_msg("%s: %s", path, why);
    return m;
}

static double state(const sm_model *m, const double *x, const char *name)
{
    const int i = sm_model_state_index(m, name);
    if (i < 0) fail_msg("no state %s", name);
    return x[i];
}

/* Every start counted once: on a gait, or as a failure. */
static void assert_counts_add_up(const sm_search_result *r)
{
    size_t hits = 0;
    for (size_t i = 0; i < r->n_found; i++) hits += r->hits[i];
    assert_int_equal(hits + r->failed, r->starts_run);
}

/* Every (re, im) of a within tol (relative to its size) of some unused one
 * of b (k each). */
static void assert_same_spectrum(const double *ar, const double *ai, const double *br, const double *bi, size_t k,
                                 double tol)
{
    bool used[SM_MAX_STATE] = {false};
    for (size_t i = 0; i < k; i++) {
        size_t best = k;
        double d = INFINITY;
        for (size_t j = 0; j < k; j++)
            if (!used[j] && hypot(ar[i] - br[j], ai[i] - bi[j]) < d) d = hypot(ar[i] - br[j], ai[i] - bi[j]), best = j;
        if (!(d <= tol * fmax(1.0, hypot(ar[i], ai[i]))))
            fail_msg("multiplier %.12g%+.12gi has no partner within %.1g (nearest %.3g away)", ar[i], ai[i], tol, d);
        used[best] = true;
    }
}

static void search_newton(sm_newton_options *nw, int period)
{
    sm_newton_options_default(nw);
    nw->max_iter = 20; /* as the program's search */
    nw->max_backtracks = 8;
    nw->period = period;
}

/* garcia3d's gait from the file's guess, by Newton alone. */
static void known_gait(const sm_model *m, sm_workspace *ws, double *p, sm_fixed_result *r)
{
    sm_newton_options nw;
    sm_newton_options_default(&nw);
    double x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    assert_status(sm_fixed_point(ws, p, x0, &nw, r), SM_OK);
    assert_true(r->converged);
}

/* The one found gait is the known one (free coordinates to 1e-8). */
static void assert_the_gait(const sm_model *m, const sm_search_result *res, const sm_fixed_result *want)
{
    assert_int_equal(res->n_found, 1);
    assert_counts_add_up(res);
    for (size_t k = 0; k < m->n_free; k++)
        assert_close(res->found[0].x[m->free_index[k]], want->x[m->free_index[k]], 1e-8);
    assert_int_equal(res->minimal_period[0], 1);
}

static void garcia3d_one_and_two_steps(void **state_)
{
    (void)state_;
    const sm_model *m = open_ok(src_path("models/garcia3d.yaml"));
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS];
    sm_fixed_result *one = calloc(1, sizeof *one);
    known_gait(m, ws, p, one);
    double sq_re[SM_MAX_STATE], sq_im[SM_MAX_STATE];
    for (size_t i = 0; i < m->n_free; i++) {
        sq_re[i] = one->eig_re[i] * one->eig_re[i] - one->eig_im[i] * one->eig_im[i];
        sq_im[i] = 2 * one->eig_re[i] * one->eig_im[i];
    }

    search_out *o = calloc(1, sizeof *o);
    sm_newton_options nw;
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    so.starts = so.max_starts = 8;

    /* the mirrored one-step map */
    search_newton(&nw, 1);
    sm_search_result *res = out_init(o);
    assert_status(sm_search(ws, p, &nw, &so, res), SM_OK);
    assert_the_gait(m, res, one);
    assert_int_equal(res->found[0].period, 1);
    assert_close(res->found[0].max_abs_eig, one->max_abs_eig, 1e-6 * one->max_abs_eig);
    print_message("one step: %zu of 8 starts on the gait, max |multiplier| %.9g\n", res->hits[0],
                  res->found[0].max_abs_eig);

    /* the two-step map over the same box */
    search_newton(&nw, 2);
    so.period_unit = 2;
    res = out_init(o);
    assert_status(sm_search(ws, p, &nw, &so, res), SM_OK);
    assert_the_gait(m, res, one);
    assert_int_equal(res->found[0].period, 2);
    assert_same_spectrum(res->found[0].eig_re, res->found[0].eig_im, sq_re, sq_im, m->n_free, 1e-6);
    print_message("two steps: %zu of 8 starts on the gait, max |multiplier| %.9g = %.9g^2\n", res->hits[0],
                  res->found[0].max_abs_eig, one->max_abs_eig);

    /* period 2 of the two-step map, near the gait: still one fixed point of
     * the two-step map, not a period-2 orbit of it */
    search_newton(&nw, 4);
    const double h = 1e-3;
    for (size_t k = 0; k < m->n_free; k++) {
        so.lo[k] = one->x[m->free_index[k]] - h;
        so.hi[k] = one->x[m->free_index[k]] + h;
    }
    so.starts = so.max_starts = 3;
    res = out_init(o);
    assert_status(sm_search(ws, p, &nw, &so, res), SM_OK);
    assert_the_gait(m, res, one);
    assert_int_equal(res->found[0].period, 2);
    assert_same_spectrum(res->found[0].eig_re, res->found[0].eig_im, sq_re, sq_im, m->n_free, 1e-6);

    /* a period_unit that does not divide the period is refused */
    search_newton(&nw, 3);
    assert_status(sm_search(ws, p, &nw, &so, out_init(o)), SM_BAD_OPTION);
    free(o);
    free(one);
    sm_workspace_free(ws);
    m->release(m);
}

/* The planar wheel's spin after impact on the slope gamma:
 * eta sqrt(4 m g l sin(alpha) sin(gamma) / ((I + m l^2)(1 - eta^2))),
 * eta = 1 - m l^2 (1 - cos 2 alpha) / (I + m l^2), alpha = pi / 8
 * (models/rimless3d.yaml; tests/test_garcia3d.c). */
static double wheel_spin(const sm_model *m, const double *p, double gamma)
{
    const double mass = p[sm_model_param_index(m, "hub_mass")], l = p[sm_model_param_index(m, "spoke_length")];
    const double axial = p[sm_model_param_index(m, "hub_axial")], g = p[sm_model_param_index(m, "gravity")];
    const double alpha = M_PI / 8, J = axial + mass * l * l;
    const double eta = 1 - mass * l * l * (1 - cos(2 * alpha)) / J;
    return eta * sqrt(4 * mass * g * l * sin(alpha) * sin(gamma) / (J * (1 - eta * eta)));
}

static void rimless3d_family_member(void **state_)
{
    (void)state_;
    const sm_model *m = open_ok(src_path("models/rimless3d.yaml"));
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    /* outside the box's headings (the guess's, 0 +- 0.1): the condition,
     * not the starts, picks the member */
    const double b = 0.25, gamma = p[sm_model_param_index(m, "slope")];
    set_param(m, p, "section.family.hub_yaw", b);
    sm_newton_options nw;
    search_newton(&nw, 1);
    sm_search_options so;
    sm_search_options_default(m, p, &so);
    so.starts = so.max_starts = 16;
    search_out *o = calloc(1, sizeof *o);
    sm_search_result *res = out_init(o);
    assert_status(sm_search(ws, p, &nw, &so, res), SM_OK);
    assert_int_equal(res->n_found, 1);
    assert_counts_add_up(res);
    assert_true(res->hits[0] >= 8);
    const sm_fixed_result *r = &res->found[0];
    assert_close(state(m, r->x, "hub_yaw"), b, 1e-10);
    assert_close(state(m, r->x, "hub_roll"), -atan(tan(gamma) * sin(b)), 1e-9);
    assert_close(state(m, r->x, "hub_dot"), -wheel_spin(m, p, asin(sin(gamma) * cos(b))), 1e-9);
    assert_true(r->trivial_index >= 0);
    assert_close(r->eig_re[r->trivial_index], 1.0, 1e-6);
    print_message("rimless3d at heading %.2f: found by %zu of 16 starts, lean %.12g\n", b, res->hits[0],
                  state(m, r->x, "hub_roll"));
    free(o);
    sm_workspace_free(ws);
    m->release(m);
}

static json_t *run_json(cli_result *r)
{
    if (r->status != 0) fail_msg("status %d: %s", r->status, r->err);
    json_error_t e;
    json_t *doc = json_loads(r->out, 0, &e);
    if (!doc) fail_msg("not JSON (%s): %.200s", e.text, r->out);
    return doc;
}

/* The user's view: `search --two-step` lists the gait as `fixed --two-step`
 * finds it, a fixed point of two steps, with its squared multiplier. */
static void cli_two_step_search(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *model = SM_SOURCE_DIR "/models/garcia3d.yaml";
    json_t *fixed = run_json(cli_run("fixed", model, "--json", NULL));
    json_t *found = run_json(cli_run("search", model, "--two-step", "--starts", "8", "--max-starts", "8", "--json", NULL));
    assert_true(json_is_true(json_object_get(found, "two_step")));
    assert_int_equal(json_integer_value(json_object_get(found, "period")), 2);
    json_t *gaits = json_object_get(found, "gaits");
    assert_int_equal(json_array_size(gaits), 1);
    json_t *g = json_array_get(gaits, 0);
    assert_int_equal(json_integer_value(json_object_get(g, "period")), 2);
    assert_int_equal(json_integer_value(json_object_get(g, "minimal_period")), 1);
    const double lam = json_real_value(json_object_get(fixed, "max_abs_eigenvalue"));
    assert_close(json_real_value(json_object_get(g, "max_abs_eigenvalue")), lam * lam, 1e-6 * lam * lam);
    json_t *x1 = json_object_get(fixed, "fixed_point"), *x2 = json_object_get(g, "fixed_point");
    for (size_t i = 0; i < json_array_size(x1); i++)
        assert_close(json_real_value(json_array_get(x2, i)), json_real_value(json_array_get(x1, i)), 1e-8);
    /* the text says so too (two starts in a box about the gait: cheap) */
    char box[512] = "";
    for (size_t k = 0; k < json_array_size(json_object_get(fixed, "free_coordinates")); k++) {
        const char *name = json_string_value(json_array_get(json_object_get(fixed, "free_coordinates"), k));
        json_t *names = json_object_get(fixed, "state_names");
        for (size_t i = 0; i < json_array_size(names); i++)
            if (strcmp(json_string_value(json_array_get(names, i)), name) == 0) {
                const double v = json_real_value(json_array_get(x1, i));
                snprintf(box + strlen(box), sizeof box - strlen(box), "%s%.12g:%.12g", k ? "," : "", v - 1e-4,
                         v + 1e-4);
            }
    }
    json_decref(fixed);
    json_decref(found);
    cli_result *r = cli_run("search", model, "--two-step", "--starts", "2", "--max-starts", "2", "--box", box, NULL);
    if (r->status != 0) fail_msg("status %d: %s", r->status, r->err);
    assert_non_null(strstr(r->out, "gait 1: period 2 (1 step mirrored), unstable"));
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rimless3d_family_member),
        cmocka_unit_test(garcia3d_one_and_two_steps),
        cmocka_unit_test(cli_two_step_search),
    };
    return cmocka_run_group_tests_name("search3d", tests, NULL, NULL);
}
