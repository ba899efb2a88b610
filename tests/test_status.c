/* The status table: names and messages (status.h). */
#include <ctype.h>
#include <stdbool.h>

#include "test_util.h"

/* snake_case: lower-case letters and digits in words joined by single '_',
 * starting with a letter, no leading, trailing or doubled '_'. */
static bool is_snake_case(const char *s)
{
    if (!s || !islower((unsigned char)s[0])) return false;
    for (const char *c = s; *c; c++) {
        if (*c == '_') {
            if (c[1] == '\0' || c[1] == '_') return false;
        } else if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c)) {
            return false;
        }
    }
    return true;
}

static void test_names_are_distinct_snake_case(void **state)
{
    (void)state;
    assert_true(SM_STATUS_COUNT > 1);
    for (int i = 0; i < SM_STATUS_COUNT; i++) {
        const char *name = sm_status_name((sm_status)i);
        assert_non_null(name);
        assert_true(strlen(name) > 0);
        if (!is_snake_case(name)) fail_msg("status %d has name '%s', not snake_case", i, name);
        assert_string_not_equal(name, "unknown_status");
        for (int j = 0; j < i; j++)
            if (strcmp(name, sm_status_name((sm_status)j)) == 0)
                fail_msg("statuses %d and %d share the name '%s'", j, i, name);
    }
}

static void test_every_status_has_a_message(void **state)
{
    (void)state;
    for (int i = 0; i < SM_STATUS_COUNT; i++) {
        const char *msg = sm_strerror((sm_status)i);
        assert_non_null(msg);
        if (strlen(msg) < 3) fail_msg("status %d has the message '%s'", i, msg);
        /* A message is prose, not just the machine name again. */
        if (i != SM_OK) assert_string_not_equal(msg, sm_status_name((sm_status)i));
    }
}

/* The names the header documents as stable (used in JSON and CSV). */
static void test_documented_names(void **state)
{
    (void)state;
    assert_string_equal(sm_status_name(SM_OK), "ok");
    assert_string_equal(sm_status_name(SM_FELL_BACKWARD), "fell_backward");
    assert_string_equal(sm_status_name(SM_FELL_FORWARD), "fell_forward");
    assert_string_equal(sm_status_name(SM_NOT_CONVERGED), "not_converged");
    assert_string_equal(sm_status_name(SM_BAD_PARAM), "bad_param");
}

static void test_out_of_range_status(void **state)
{
    (void)state;
    assert_string_equal(sm_status_name(SM_STATUS_COUNT), "unknown_status");
    assert_string_equal(sm_status_name((sm_status)(SM_STATUS_COUNT + 7)), "unknown_status");
    assert_string_equal(sm_status_name((sm_status)-1), "unknown_status");
    const char *msg = sm_strerror(SM_STATUS_COUNT);
    assert_non_null(msg);
    assert_true(strlen(msg) > 0);
    assert_non_null(sm_strerror((sm_status)-1));
}

/* The kind column: what went wrong decides how it is reported (issue 10). */
static void test_kinds(void **state)
{
    (void)state;
    static const struct {
        sm_status s;
        sm_kind k;
    } want[] = {
        {SM_OK, SM_KIND_OK},
        {SM_FELL_BACKWARD, SM_KIND_WALKER},
        {SM_FELL_FORWARD, SM_KIND_WALKER},
        {SM_NO_HEELSTRIKE, SM_KIND_WALKER},
        {SM_SCUFFED, SM_KIND_WALKER},
        {SM_KNEE_UNLOCKED, SM_KIND_WALKER},
        {SM_NO_TOEOFF, SM_KIND_WALKER},
        {SM_NOT_CONVERGED, SM_KIND_SOLVER},
        {SM_STALLED, SM_KIND_SOLVER},
        {SM_SINGULAR_JACOBIAN, SM_KIND_SOLVER},
        {SM_INTEGRATOR_FAILED, SM_KIND_SOLVER},
        {SM_STIFF, SM_KIND_SOLVER},
        {SM_NONFINITE, SM_KIND_SOLVER},
        {SM_BAD_PARAM, SM_KIND_INPUT},
        {SM_BAD_STATE, SM_KIND_INPUT},
        {SM_BAD_OPTION, SM_KIND_INPUT},
        {SM_BAD_DATA, SM_KIND_INPUT},
        {SM_UNKNOWN_MODEL, SM_KIND_INPUT},
        {SM_UNKNOWN_PARAM, SM_KIND_INPUT},
        {SM_BAD_MODEL_FILE, SM_KIND_INPUT},
        {SM_IO_ERROR, SM_KIND_OUTPUT},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (sm_status_kind(want[i].s) != want[i].k)
            fail_msg("%s has kind %d, not %d", sm_status_name(want[i].s), (int)sm_status_kind(want[i].s),
                     (int)want[i].k);
    /* Only success is ok; every status has one of the five kinds. */
    for (int i = 0; i < SM_STATUS_COUNT; i++) {
        const sm_kind k = sm_status_kind((sm_status)i);
        assert_true(k >= SM_KIND_OK && k <= SM_KIND_OUTPUT);
        assert_int_equal(k == SM_KIND_OK, i == SM_OK);
    }
}

/* The outcome labels follow the kind, the same in orbit diagrams and sweeps:
 * a stride the walker ended (a scuff too) is a fall, a stride the solver
 * gave up on (stiff too) is not. */
static void test_outcomes_follow_the_kind(void **state)
{
    (void)state;
    static sm_sweep_point pt;
    for (int i = 1; i < SM_STATUS_COUNT; i++) {
        const sm_status s = (sm_status)i;
        const bool walker = sm_status_kind(s) == SM_KIND_WALKER;
        if (sm_orbit_walker_outcome(s) != walker) fail_msg("orbit: %s", sm_status_name(s));
        memset(&pt, 0, sizeof pt);
        pt.r.status = SM_NOT_CONVERGED;
        pt.r.stride_status = s;
        const sm_sweep_outcome o = sm_sweep_point_outcome(&pt);
        if ((o == SM_OUTCOME_FELL) != walker) fail_msg("sweep: stride %s gave %s", sm_status_name(s), sm_sweep_outcome_name(o));
    }
    assert_true(sm_orbit_walker_outcome(SM_SCUFFED));
    assert_false(sm_orbit_walker_outcome(SM_STIFF));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_distinct_snake_case),
        cmocka_unit_test(test_every_status_has_a_message),
        cmocka_unit_test(test_documented_names),
        cmocka_unit_test(test_out_of_range_status),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_outcomes_follow_the_kind),
    };
    return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
