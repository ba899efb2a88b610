/* Small helpers shared by the CMocka tests (header-only, static functions).
 *
 * CMocka's assert_float_equal() casts to float, which is useless at the
 * 1e-9 level these tests work at, so assert_close() compares doubles and
 * prints both values and the difference when it fails. */
#ifndef STRIDEMAP_TEST_UTIL_H
#define STRIDEMAP_TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stridemap/stridemap.h"

/* |a - b| <= tol, NaN never passes. */
#define assert_close(a, b, tol) test_assert_close((a), (b), (tol), #a, #b, __FILE__, __LINE__)

static inline void test_assert_close(double a, double b, double tol, const char *sa, const char *sb,
                                     const char *file, int line)
{
    if (!(fabs(a - b) <= tol)) {
        print_error("%s = %.17g\n%s = %.17g\n|difference| = %.3g > tolerance %.3g\n", sa, a, sb, b,
                    fabs(a - b), tol);
        _fail(file, line);
    }
}

/* Two statuses, reported by name when they differ. */
#define assert_status(got, want) test_assert_status((got), (want), #got, __FILE__, __LINE__)

static inline void test_assert_status(sm_status got, sm_status want, const char *sgot, const char *file,
                                      int line)
{
    if (got != want) {
        print_error("%s is %s (%d), expected %s (%d)\n", sgot, sm_status_name(got), (int)got,
                    sm_status_name(want), (int)want);
        _fail(file, line);
    }
}

/* The registered model called name; fails the test if there is none. */
static inline const sm_model *test_model(const char *name)
{
    const sm_model *m = sm_registry_find(name);
    if (!m) fail_msg("model '%s' is not registered", name);
    return m;
}

/* A workspace with default solver options except rtol = atol = tol (0: defaults). */
static inline sm_workspace *test_workspace(const sm_model *m, double tol, sm_method method)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    if (tol > 0) o.rtol = o.atol = tol;
    o.method = method;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    assert_non_null(ws);
    return ws;
}

/* Published gaits of the simplest walking model at gamma = 0.009:
 * Garcia, Chatterjee, Ruina & Coleman (1998), J. Biomech. Eng. 120:281-288,
 * table of period-one gaits (stable "long" and unstable "short" gait). */
#define GARCIA_GAMMA 0.009
#define GARCIA_STABLE_THETA 0.20031090049483
#define GARCIA_STABLE_THETA_DOT (-0.19983247291764)
#define GARCIA_STABLE_EIG_RE (-0.19120868949940)
#define GARCIA_STABLE_EIG_IM 0.55633363687106
#define GARCIA_UNSTABLE_THETA 0.19393736960624
#define GARCIA_UNSTABLE_THETA_DOT (-0.20386692731962)

/* The simplest walker's section state (theta, theta_dot, phi, phi_dot) from
 * (theta, theta_dot), written out here from the paper rather than through
 * the model's lift: phi = 2 theta, phi_dot = (1 - cos 2 theta) theta_dot. */
static inline void simplest_on_section(double theta, double theta_dot, double x[4])
{
    x[0] = theta;
    x[1] = theta_dot;
    x[2] = 2.0 * theta;
    x[3] = (1.0 - cos(2.0 * theta)) * theta_dot;
}

#endif
