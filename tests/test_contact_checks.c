/* The contact checks of a gait (seed 000, eqs. 25-26) and the support
 * polygon's margin they rest on.
 *
 * The margin (src/body/support.c) against closed forms: the centre of a
 * square foot is half its width inside; a point beyond an edge is outside
 * by its distance to that edge's line; a toe line of two corners gives the
 * distance along it; a thin triangle (a toe line and the other foot's heel,
 * the 3-D biped's double stance) its inscribed distances.  The checks
 * (sm_gait_contact_checks) judge each contact point and each foot where
 * the model measures them: a walker whose total ground force pushes while
 * one toe corner pulls is not unilateral, which the stance-foot total
 * alone reported as passing. */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "src_path.h"
#include "body_model.h"
#include "stridemap/gait.h"
#include "stridemap/registry.h"

static void test_square_foot(void **state)
{
    (void)state;
    const double sq[4][2] = {{0.1, -0.03}, {-0.05, -0.03}, {0.1, 0.03}, {-0.05, 0.03}};
    const double centre[2] = {0.025, 0.0}, near_toe[2] = {0.09, 0.01}, beside[2] = {0.0, 0.05};
    assert_float_equal(body_support_margin(sq, 4, centre), 0.03, 1e-15);
    assert_float_equal(body_support_margin(sq, 4, near_toe), 0.01, 1e-15);
    assert_float_equal(body_support_margin(sq, 4, beside), -0.02, 1e-15);
}

static void test_toe_line(void **state)
{
    (void)state;
    /* two corners 0.055 m apart across the foot, a third on the same line */
    const double line[3][2] = {{0.2, 0.0275}, {0.2, -0.0275}, {0.2, 0.01}};
    const double mid[2] = {0.2, 0.0}, out[2] = {0.2, -0.04};
    assert_float_equal(body_support_margin(line, 2, mid), 0.0275, 1e-15);
    assert_float_equal(body_support_margin(line, 3, mid), 0.0275, 1e-15);
    assert_float_equal(body_support_margin(line, 3, out), -0.0125, 1e-15);
    const double one[1][2] = {{0, 0}}, same[2][2] = {{0.1, 0.1}, {0.1, 0.1}};
    assert_true(isnan(body_support_margin(one, 1, mid)));
    assert_true(isnan(body_support_margin(same, 2, mid)));
}

/* The signed distance of c to the line through a and b, positive on the
 * side where o lies. */
static double side(const double *a, const double *b, const double *o, const double *c)
{
    const double nx = -(b[1] - a[1]), ny = b[0] - a[0], len = hypot(nx, ny);
    const double d = (nx * (c[0] - a[0]) + ny * (c[1] - a[1])) / len;
    return (nx * (o[0] - a[0]) + ny * (o[1] - a[1])) > 0 ? d : -d;
}

static double triangle_margin(const double (*t)[2], const double *c)
{
    return fmin(side(t[0], t[1], t[2], c), fmin(side(t[1], t[2], t[0], c), side(t[2], t[0], t[1], c)));
}

static void test_double_stance_triangle(void **state)
{
    (void)state;
    /* the hind foot's toe corners and the front heel: a thin triangle */
    const double tri[3][2] = {{0, -0.0525}, {0, -0.1075}, {0.098, 0.08}};
    /* beyond the diagonal from the outer corner to the heel: outside */
    const double cop[2] = {0.05, -0.05};
    assert_true(side(tri[1], tri[2], tri[0], cop) < 0);
    assert_float_equal(body_support_margin(tri, 3, cop), triangle_margin(tri, cop), 1e-15);
    /* the centroid is inside by a third of the smallest height: twice the
     * area over the longest edge */
    const double g[2] = {0.098 / 3, (-0.0525 - 0.1075 + 0.08) / 3};
    const double area2 = 0.055 * 0.098, longest = hypot(0.098, 0.08 + 0.1075);
    assert_float_equal(body_support_margin(tri, 3, g), area2 / longest / 3, 1e-15);
    assert_float_equal(triangle_margin(tri, g), area2 / longest / 3, 1e-15);
}

/* A model reporting a body walker's ground measures by name. */
static const char *const names[] = {"min_normal_force", "max_friction_ratio", "max_foot_friction_ratio",
                                    "min_foot_normal_force"};
static double weight(const double *p, const void *data)
{
    (void)p, (void)data;
    return 294.3;
}

static void test_checks_judge_each_point(void **state)
{
    (void)state;
    sm_model m;
    memset(&m, 0, sizeof m);
    m.n_extra = 3;
    m.extra_names = names;
    m.weight = weight;
    sm_step_metrics mt;
    memset(&mt, 0, sizeof mt);
    mt.min_normal_force = 59.0; /* the total pushes */
    mt.max_friction_ratio = 0.35;
    sm_contact_checks ck;
    const double corner_pulls[3] = {-329.2, 55.7, 0.5};
    sm_gait_contact_checks(&m, NULL, &mt, corner_pulls, 0.7, &ck);
    assert_true(ck.known && ck.per_point);
    assert_false(ck.unilateral);
    assert_false(ck.no_slip);
    assert_float_equal(ck.min_normal_force, -329.2, 0);
    assert_false(ck.per_foot.known); /* no foot's normal force measured */
    /* the seed's check as written (each foot's sum) passes where a corner
     * pulls (biped12_3d's gait); the verdict stays the stricter one */
    m.n_extra = 4;
    const double foot_pushes[4] = {-329.2, 55.7, 0.5, 43.46};
    sm_gait_contact_checks(&m, NULL, &mt, foot_pushes, 0.7, &ck);
    assert_true(ck.per_foot.known && ck.per_foot.unilateral && ck.per_foot.no_slip);
    assert_float_equal(ck.per_foot.min_normal_force, 43.46, 0);
    assert_float_equal(ck.per_foot.max_friction_ratio, 0.5, 0);
    assert_false(ck.unilateral);
    const double foot_slips[4] = {12.0, 0.3, 0.75, 43.46}, foot_pulls[4] = {-329.2, 0.3, 0.5, -1.0};
    sm_gait_contact_checks(&m, NULL, &mt, foot_slips, 0.7, &ck);
    assert_true(ck.per_foot.unilateral && !ck.per_foot.no_slip && !ck.no_slip);
    sm_gait_contact_checks(&m, NULL, &mt, foot_pulls, 0.7, &ck);
    assert_false(ck.per_foot.unilateral || ck.per_foot.no_slip);
    m.n_extra = 3;
    /* every point pushes; the foot's ratio, not a frictionless point's
     * split (55.7), is judged against mu */
    const double pushing[3] = {12.0, 55.7, 0.5};
    sm_gait_contact_checks(&m, NULL, &mt, pushing, 0.7, &ck);
    assert_true(ck.unilateral && ck.no_slip);
    assert_float_equal(ck.max_friction_ratio, 0.5, 0);
    sm_gait_contact_checks(&m, NULL, &mt, pushing, 0.4, &ck);
    assert_true(ck.unilateral && !ck.no_slip);
    /* a sliding foot's ratio is mu to rounding (human9's toe at mu 0.35
     * read 0.35000000000000236): on the cone, not beyond it */
    const double on_cone[3] = {12.0, 0.35, 0.35000000000000236}, beyond[3] = {12.0, 0.35, 0.35 * (1 + 1e-8)};
    sm_gait_contact_checks(&m, NULL, &mt, on_cone, 0.35, &ck);
    assert_true(ck.no_slip);
    sm_gait_contact_checks(&m, NULL, &mt, beyond, 0.35, &ck);
    assert_false(ck.no_slip);
    /* a zero force passes to rounding of the weight, not beyond */
    const double grazing[3] = {-1e-9 * 294.3, 0.1, 0.1}, pulling[3] = {-2e-9 * 294.3, 0.1, 0.1};
    sm_gait_contact_checks(&m, NULL, &mt, grazing, 0.7, &ck);
    assert_true(ck.unilateral);
    sm_gait_contact_checks(&m, NULL, &mt, pulling, 0.7, &ck);
    assert_false(ck.unilateral);
    /* without the measures: the stance foot's, from the metrics */
    sm_gait_contact_checks(&m, NULL, &mt, NULL, 0.7, &ck);
    assert_true(ck.known && !ck.per_point && ck.unilateral && ck.no_slip);
    assert_float_equal(ck.min_normal_force, 59.0, 0);
    mt.min_normal_force = NAN;
    sm_gait_contact_checks(&m, NULL, &mt, NULL, 0.7, &ck);
    assert_false(ck.known);
}

static double declares_06(const double *p, const void *data)
{
    (void)p, (void)data;
    return 0.6;
}

/* mu: the caller's, else the model's contacts', else 1 */
static void test_checks_mu(void **state)
{
    (void)state;
    sm_model m;
    memset(&m, 0, sizeof m);
    m.n_extra = 3;
    m.extra_names = names;
    sm_step_metrics mt;
    memset(&mt, 0, sizeof mt);
    const double ratio_07[3] = {10.0, 0.7, 0.7};
    sm_contact_checks ck;
    sm_gait_contact_checks(&m, NULL, &mt, ratio_07, NAN, &ck);
    assert_float_equal(ck.mu, 1.0, 0);
    assert_string_equal(ck.mu_from, "default");
    assert_true(ck.no_slip);
    m.friction_coefficient = declares_06;
    sm_gait_contact_checks(&m, NULL, &mt, ratio_07, NAN, &ck);
    assert_float_equal(ck.mu, 0.6, 0);
    assert_string_equal(ck.mu_from, "model");
    assert_false(ck.no_slip);
    sm_gait_contact_checks(&m, NULL, &mt, ratio_07, 0.8, &ck);
    assert_string_equal(ck.mu_from, "option");
    assert_true(ck.no_slip);
}

/* human9's pins declare mu_toe and mu_heel (0.6 each): the smallest, as
 * --set moves it; the compass's pins declare none */
static void test_model_mu(void **state)
{
    (void)state;
    const sm_model *h = NULL, *c = NULL;
    char why[512] = "";
    assert_int_equal(sm_registry_open(src_path("models/human9.yaml"), &h, why, sizeof why), SM_OK);
    assert_int_equal(sm_registry_open(src_path("models/compass.yaml"), &c, why, sizeof why), SM_OK);
    double p[SM_MAX_PARAMS], q[SM_MAX_PARAMS];
    sm_model_default_params(h, p);
    assert_non_null(h->friction_coefficient);
    assert_float_equal(h->friction_coefficient(p, h->data), 0.6, 0);
    set_param(h, p, "mu_heel", 0.45);
    assert_float_equal(h->friction_coefficient(p, h->data), 0.45, 0);
    sm_model_default_params(c, q);
    assert_true(isnan(c->friction_coefficient(q, c->data)));
    sm_registry_close(h);
    sm_registry_close(c);
}

static double extra_of(const sm_model *m, const double *g, const char *name)
{
    for (size_t i = 0; i < m->n_extra; i++)
        if (strcmp(m->extra_names[i], name) == 0) return g[i];
    fail_msg("no measure %s", name);
    return NAN;
}

/* human9's front foot in foot-flat stands on its heel (friction mu_heel)
 * and its toe (frictionless, on the toe segment its lock welds to the
 * hindfoot): the heel alone reads a ratio past mu, the foot, as one rigid
 * body with both points, below it.  Grouped per body without the lock, the
 * foot read 0.90. */
static void test_human9_feet(void **state)
{
    (void)state;
    const sm_model *h = NULL;
    char why[512] = "";
    assert_int_equal(sm_registry_open(src_path("models/human9.yaml"), &h, why, sizeof why), SM_OK);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], g[SM_MAX_EXTRA];
    sm_model_default_params(h, p);
    h->guess(x, p, h->data);
    sm_workspace *ws = test_workspace(h, 1e-10, SM_METHOD_BDF);
    assert_int_equal(h->extra_measures(ws, p, x, g), SM_OK);
    const double point = extra_of(h, g, "max_friction_ratio"), foot = extra_of(h, g, "max_foot_friction_ratio");
    print_message("human9: largest |F_t|/F_n of a point %.4f, of a foot %.4f (mu 0.6)\n", point, foot);
    assert_true(point > 0.6);
    assert_true(foot < 0.6 && foot > 0.3);
    sm_workspace_free(ws);
    sm_registry_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_foot),
        cmocka_unit_test(test_toe_line),
        cmocka_unit_test(test_double_stance_triangle),
        cmocka_unit_test(test_checks_judge_each_point),
        cmocka_unit_test(test_checks_mu),
        cmocka_unit_test(test_model_mu),
        cmocka_unit_test(test_human9_feet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
