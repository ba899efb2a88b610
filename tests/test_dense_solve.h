/* A plain dense solve for tests (header-only), independent of the library's
 * factorisations, so that a test can set up a system the library solves
 * another way and compare. */
#ifndef STRIDEMAP_TEST_DENSE_SOLVE_H
#define STRIDEMAP_TEST_DENSE_SOLVE_H

#include <math.h>
#include <stddef.h>

/* Solves A x = b (A n x n row-major, destroyed; x into b) by Gaussian
 * elimination with partial pivoting. */
static inline void test_dense_solve(double *A, double *b, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        size_t p = k;
        for (size_t i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        if (p != k) {
            for (size_t j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
            double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
        for (size_t i = k + 1; i < n; i++) {
            double f = A[i * n + k] / A[k * n + k];
            for (size_t j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (size_t k = n; k-- > 0;) {
        double s = b[k];
        for (size_t j = k + 1; j < n; j++) s -= A[k * n + j] * b[j];
        b[k] = s / A[k * n + k];
    }
}

#endif
