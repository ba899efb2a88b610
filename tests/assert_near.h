/* CMocka 1.1 in Debian 12 has no floating-point assertion; this one prints
 * both values and the tolerance when it fails.  Include after <cmocka.h>. */
#ifndef STRIDEMAP_TESTS_ASSERT_NEAR_H
#define STRIDEMAP_TESTS_ASSERT_NEAR_H

#include <math.h>

#define assert_near(actual, expected, tol)                                                       \
    do {                                                                                         \
        const double a_ = (actual), e_ = (expected), t_ = (tol);                                 \
        if (!(fabs(a_ - e_) <= t_)) {                                                            \
            print_error("%s = %.17g, expected %.17g within %g (off by %.3g)\n", #actual, a_, e_, \
                        t_, fabs(a_ - e_));                                                      \
            fail();                                                                              \
        }                                                                                        \
    } while (0)

#endif
