/* The model descriptor, its parameters and the registry (model.h, registry.h). */
#include <ctype.h>
#include <stdbool.h>

#include "test_util.h"

/* True when word occurs in s on its own, i.e. not inside a longer name. */
static bool names_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (const char *c = strstr(s, word); c; c = strstr(c + 1, word)) {
        bool left = c == s || !(isalnum((unsigned char)c[-1]) || c[-1] == '_');
        bool right = !(isalnum((unsigned char)c[n]) || c[n] == '_');
        if (left && right) return true;
    }
    return false;
}

static void test_registry_lookup(void **state)
{
    (void)state;
    const sm_model *rimless = sm_registry_find("rimless");
    const sm_model *simplest = sm_registry_find("simplest");
    assert_non_null(rimless);
    assert_non_null(simplest);
    assert_string_equal(rimless->name, "rimless");
    assert_string_equal(simplest->name, "simplest");
    assert_ptr_not_equal(rimless, simplest);
    assert_null(sm_registry_find("nosuch"));
    assert_null(sm_registry_find(""));
    assert_null(sm_registry_find("Simplest"));

    /* Listing order covers exactly the registered models. */
    size_t n = sm_registry_count();
    assert_true(n >= 2);
    bool saw_rimless = false, saw_simplest = false;
    for (size_t i = 0; i < n; i++) {
        const sm_model *m = sm_registry_at(i);
        assert_non_null(m);
        assert_ptr_equal(sm_registry_find(m->name), m);
        saw_rimless |= m == rimless;
        saw_simplest |= m == simplest;
    }
    assert_true(saw_rimless && saw_simplest);
    assert_null(sm_registry_at(n));
    assert_null(sm_registry_at(n + 100));
}

static void test_every_model_validates(void **state)
{
    (void)state;
    for (size_t i = 0; i < sm_registry_count(); i++) {
        const sm_model *m = sm_registry_at(i);
        char why[256] = "";
        sm_status s = sm_model_validate(m, why, sizeof why);
        if (s != SM_OK) fail_msg("model '%s' does not validate: %s", m->name, why);
        assert_non_null(m->title);
        assert_non_null(m->reference);
        /* Its own defaults pass its own checks, and lie in their ranges. */
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        s = sm_model_check_params(m, p, why, sizeof why);
        if (s != SM_OK) fail_msg("defaults of '%s' rejected: %s", m->name, why);
        for (size_t k = 0; k < m->n_params; k++) {
            assert_true(m->params[k].min <= p[k] && p[k] <= m->params[k].max);
            assert_int_equal(sm_model_param_index(m, m->params[k].name), (int)k);
        }
        for (size_t k = 0; k < m->n_state; k++)
            assert_int_equal(sm_model_state_index(m, m->state_names[k]), (int)k);
        /* The guess is finite and already on the section. */
        double x[SM_MAX_STATE], y[SM_MAX_STATE];
        m->guess(x, p, m->data);
        for (size_t k = 0; k < m->n_state; k++) assert_true(isfinite(x[k]));
        sm_model_to_section(m, p, x, y);
        for (size_t k = 0; k < m->n_state; k++) assert_close(y[k], x[k], 1e-15);
        assert_true(m->time_limit(p, m->data) > 0);
    }
}

/* Per-sample measures need names and a function to fill them: a model
 * declaring measures it cannot produce is refused, not printed as garbage. */
static void test_sample_measures_validated(void **state)
{
    (void)state;
    sm_model m = *sm_registry_at(0);
    char why[256] = "";
    m.n_sample = 2;
    assert_int_equal(sm_model_validate(&m, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "per-sample"));
    static const char *const names[] = {"a", "b"};
    m.sample_names = names;
    assert_int_equal(sm_model_validate(&m, why, sizeof why), SM_BAD_OPTION);
    m.n_sample = SM_MAX_SAMPLE + 1;
    assert_int_equal(sm_model_validate(&m, why, sizeof why), SM_BAD_OPTION);
}

static void test_param_index(void **state)
{
    (void)state;
    const sm_model *r = test_model("rimless");
    assert_int_equal(sm_model_param_index(r, "n"), 0);
    assert_int_equal(sm_model_param_index(r, "gamma"), 1);
    assert_int_equal(sm_model_param_index(r, "g"), 2);
    assert_int_equal(sm_model_param_index(r, "l"), 3);
    assert_int_equal(sm_model_param_index(r, "nosuch"), -1);
    assert_int_equal(sm_model_param_index(r, ""), -1);
    assert_int_equal(sm_model_param_index(r, "Gamma"), -1);

    const sm_model *s = test_model("simplest");
    assert_int_equal(sm_model_param_index(s, "gamma"), 0);
    assert_int_equal(sm_model_param_index(s, "n"), -1);
    assert_int_equal(sm_model_state_index(s, "theta"), 0);
    assert_int_equal(sm_model_state_index(s, "theta_dot"), 1);
    assert_int_equal(sm_model_state_index(s, "phi"), 2);
    assert_int_equal(sm_model_state_index(s, "phi_dot"), 3);
    assert_int_equal(sm_model_state_index(s, "psi"), -1);
}

/* A rejection with SM_BAD_PARAM whose message names the parameter. */
static void expect_rejected(const sm_model *m, const char *param, double v)
{
    int i = sm_model_param_index(m, param);
    assert_true(i >= 0);
    char why[256] = "";
    sm_status s = sm_model_check_param(m, (size_t)i, v, why, sizeof why);
    if (s != SM_BAD_PARAM)
        fail_msg("%s.%s = %g gave %s, expected bad_param", m->name, param, v, sm_status_name(s));
    if (!names_word(why, param)) fail_msg("message does not name '%s': \"%s\"", param, why);
}

static void expect_accepted(const sm_model *m, const char *param, double v)
{
    int i = sm_model_param_index(m, param);
    assert_true(i >= 0);
    char why[256] = "";
    sm_status s = sm_model_check_param(m, (size_t)i, v, why, sizeof why);
    if (s != SM_OK) fail_msg("%s.%s = %g rejected: %s", m->name, param, v, why);
}

static void test_check_param(void **state)
{
    (void)state;
    const sm_model *r = test_model("rimless");
    const sm_model *s = test_model("simplest");
    /* Not finite. */
    expect_rejected(r, "gamma", NAN);
    expect_rejected(r, "gamma", INFINITY);
    expect_rejected(r, "l", -INFINITY);
    expect_rejected(s, "gamma", NAN);
    expect_rejected(r, "n", NAN);
    expect_rejected(r, "n", INFINITY);
    /* Out of the documented ranges: n >= 5 (cos(2 pi/n) > 0), |gamma| <= 0.5. */
    expect_rejected(r, "n", 4);
    expect_rejected(r, "n", 2000);
    expect_rejected(r, "gamma", 0.7);
    expect_rejected(r, "g", 0.0);
    expect_rejected(r, "l", -1.0);
    expect_rejected(s, "gamma", -0.6);
    /* n counts spokes: a whole number. */
    expect_rejected(r, "n", 10.5);
    expect_rejected(r, "n", 6.000001);
    /* Good values pass. */
    expect_accepted(r, "n", 5);
    expect_accepted(r, "n", 12);
    expect_accepted(r, "gamma", 0.0);
    expect_accepted(r, "gamma", -0.1);
    expect_accepted(r, "g", 1.62);
    expect_accepted(s, "gamma", 0.009);
    expect_accepted(s, "gamma", 0.0);

    /* The whole vector: one bad value spoils it, and is named. */
    double p[SM_MAX_PARAMS];
    char why[256] = "";
    sm_model_default_params(r, p);
    p[sm_model_param_index(r, "n")] = 7.5;
    assert_status(sm_model_check_params(r, p, why, sizeof why), SM_BAD_PARAM);
    assert_true(names_word(why, "n"));
}

/* Lift onto the simplest walker's section: phi = 2 theta,
 * phi_dot = (1 - cos 2 theta) theta_dot (Garcia et al. 1998). */
static void test_simplest_lift(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    double x[4] = {0};
    m->guess(x, p, m->data);
    assert_true(x[0] > 0 && x[1] < 0); /* leaning uphill, rolling forward */
    assert_close(x[2], 2.0 * x[0], 1e-15);
    assert_close(x[3], (1.0 - cos(2.0 * x[0])) * x[1], 1e-15);

    /* lift fills phi, phi_dot over whatever was there. */
    double y[4] = {0.3, -0.25, 99.0, -99.0};
    m->lift(y, p, m->data);
    assert_close(y[0], 0.3, 0.0);
    assert_close(y[1], -0.25, 0.0);
    assert_close(y[2], 0.6, 1e-15);
    assert_close(y[3], (1.0 - cos(0.6)) * -0.25, 1e-15);

    /* to_section keeps the free components and lifts the rest. */
    double z[4] = {0.1, -0.15, 5.0, 5.0}, w[4];
    sm_model_to_section(m, p, z, w);
    assert_close(w[0], 0.1, 0.0);
    assert_close(w[1], -0.15, 0.0);
    assert_close(w[2], 0.2, 1e-15);
    assert_close(w[3], (1.0 - cos(0.2)) * -0.15, 1e-15);

    /* The rimless wheel's section: theta = alpha = pi / n. */
    const sm_model *r = test_model("rimless");
    sm_model_default_params(r, p);
    p[0] = 8;
    double q[2] = {7.0, -1.0};
    r->lift(q, p, r->data);
    assert_close(q[0], M_PI / 8, 1e-15);
    assert_close(q[1], -1.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_lookup),
        cmocka_unit_test(test_every_model_validates),
        cmocka_unit_test(test_param_index),
        cmocka_unit_test(test_sample_measures_validated),
        cmocka_unit_test(test_check_param),
        cmocka_unit_test(test_simplest_lift),
    };
    return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
