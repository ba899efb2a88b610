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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_distinct_snake_case),
        cmocka_unit_test(test_every_status_has_a_message),
        cmocka_unit_test(test_documented_names),
        cmocka_unit_test(test_out_of_range_status),
    };
    return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
