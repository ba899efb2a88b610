/* The small dense linear algebra (src/dense.h, private): hand-computed answers. */
#include <stdbool.h>

#include "test_util.h"
#include "../src/dense.h"

static void test_det_by_hand(void **state)
{
    (void)state;
    /* Expansion along the first row: 2 (1*4 - 0*2) - 0 + 1 (3*2 - 1*1) ... written out:
     * | 2 0 1 |
     * | 3 1 0 | = 2 (1*4 - 0*2) - 0 (3*4 - 0*1) + 1 (3*2 - 1*1) = 8 + 5 = 13
     * | 1 2 4 | */
    const double A[9] = {2, 0, 1, 3, 1, 0, 1, 2, 4};
    assert_close(sm_dense_det(3, A), 13.0, 1e-13);
    /* A row swap is needed (zero pivot) and flips the sign: det [[0 1][1 0]] = -1. */
    const double P[4] = {0, 1, 1, 0};
    assert_close(sm_dense_det(2, P), -1.0, 0.0);
    const double S[4] = {1, 2, 2, 4};
    assert_close(sm_dense_det(2, S), 0.0, 0.0);
}

static void test_solve_and_singular(void **state)
{
    (void)state;
    /* x = (1, -2, 3) into A x = b. */
    const double A[9] = {2, 0, 1, 3, 1, 0, 1, 2, 4};
    double b[3] = {2 * 1 + 0 + 3, 3 - 2 + 0, 1 - 4 + 12};
    assert_status(sm_dense_solve(3, A, b), SM_OK);
    assert_close(b[0], 1.0, 1e-14);
    assert_close(b[1], -2.0, 1e-14);
    assert_close(b[2], 3.0, 1e-14);
    assert_close(A[0], 2.0, 0.0); /* A is left as it was */
    const double S[4] = {1, 2, 2, 4};
    double c[2] = {1, 1};
    assert_status(sm_dense_solve(2, S, c), SM_SINGULAR_JACOBIAN);
}

static void test_least_squares_of_a_consistent_system(void **state)
{
    (void)state;
    /* Three rows, two unknowns, the third row the sum of the first two:
     * consistent, x = (0.5, -1). */
    const double A[6] = {1, 1, 1, -1, 2, 0};
    double b[3] = {-0.5, 1.5, 1.0};
    assert_status(sm_dense_lstsq(3, 2, A, b), SM_OK);
    assert_close(b[0], 0.5, 1e-14);
    assert_close(b[1], -1.0, 1e-14);
}

static void test_null_vectors(void **state)
{
    (void)state;
    /* A = [[1 0 -1][0 1 -2]]: A t = 0 for t parallel to (1, 2, 1). */
    const double A[6] = {1, 0, -1, 0, 1, -2};
    const double s = 1 / sqrt(6.0);
    double t[3], u[3];
    assert_true(sm_dense_null_vector(2, A, t));
    assert_true(sm_dense_null_vector_svd(2, 3, A, u));
    for (int i = 0; i < 3; i++) {
        const double want = (i == 1 ? 2 : 1) * s;
        assert_close(fabs(t[i]), want, 1e-14);
        assert_close(fabs(u[i]), want, 1e-14);
    }
    assert_close(t[0] * t[1], 2 * s * s, 1e-14); /* one direction, not a mix of signs */
}

static void test_real_eigenvector_nearest_target(void **state)
{
    (void)state;
    /* [[0 1][1 0]]: eigenvalues -1 (vector (1,-1)) and +1 (vector (1,1));
     * the largest component is made positive, the first on a tie. */
    const double A[4] = {0, 1, 1, 0};
    double v[2];
    sm_dense_real_eigvec(2, A, -1.0, v);
    assert_close(fabs(v[0]), M_SQRT1_2, 1e-14);
    assert_close(v[0] + v[1], 0.0, 1e-14);
    sm_dense_real_eigvec(2, A, 1.0, v);
    assert_close(v[0], M_SQRT1_2, 1e-14);
    assert_close(v[1], M_SQRT1_2, 1e-14);
    /* A rotation has no real eigenvalue: zeros. */
    const double R[4] = {0, -1, 1, 0};
    sm_dense_real_eigvec(2, R, 1.0, v);
    assert_close(v[0], 0.0, 0.0);
    assert_close(v[1], 0.0, 0.0);
}

static void test_eigenvalues_by_decreasing_modulus(void **state)
{
    (void)state;
    /* Block diagonal: 0.5 and the pair 0 +- 2i (a rotation scaled by 2) and -3. */
    const double A[16] = {0.5, 0, 0, 0, 0, 0, -2, 0, 0, 2, 0, 0, 0, 0, 0, -3};
    double re[4], im[4];
    assert_status(sm_eigenvalues(4, A, re, im), SM_OK);
    assert_close(re[0], -3.0, 1e-14);
    assert_close(hypot(re[1], im[1]), 2.0, 1e-14);
    assert_close(hypot(re[2], im[2]), 2.0, 1e-14);
    assert_close(fabs(im[1]), 2.0, 1e-14);
    assert_close(re[3], 0.5, 1e-14);
}

static void test_max_abs_never_passes_nan(void **state)
{
    (void)state;
    const double v[3] = {1, -4, 2};
    assert_close(sm_dense_max_abs(v, 3), 4.0, 0.0);
    /* fmax() drops a NaN, so a NaN among finite components must be caught
     * on its own: a residual with a NaN is never within a tolerance. */
    const double w[3] = {1, NAN, 2};
    assert_true(isinf(sm_dense_max_abs(w, 3)));
    const double only[1] = {NAN};
    assert_true(isinf(sm_dense_max_abs(only, 1)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_det_by_hand),
        cmocka_unit_test(test_solve_and_singular),
        cmocka_unit_test(test_least_squares_of_a_consistent_system),
        cmocka_unit_test(test_null_vectors),
        cmocka_unit_test(test_real_eigenvector_nearest_target),
        cmocka_unit_test(test_eigenvalues_by_decreasing_modulus),
        cmocka_unit_test(test_max_abs_never_passes_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
