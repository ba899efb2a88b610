/* The small dense linear algebra of Newton, continuation and stability:
 * one place for the LAPACKE calls and the checks around them.  Matrices
 * are row-major and at most (SM_MAX_STATE + 2) x (SM_MAX_STATE + 1), so
 * every copy lives on the stack.  Private to the library. */
#ifndef STRIDEMAP_DENSE_H
#define STRIDEMAP_DENSE_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/model.h"
#include "stridemap/status.h"

#define SM_DENSE_MAX (SM_MAX_STATE + 1)

/* max |v_i|; INFINITY if any is NaN, so that a NaN residual never passes a tolerance. */
double sm_dense_max_abs(const double *v, size_t n);
double sm_dense_norm2(const double *v, size_t n);
double sm_dense_dot(const double *a, const double *b, size_t n);

/* Solves the n x n system A x = b in place of b (A is left as it was).
 * SM_SINGULAR_JACOBIAN for a singular A or a non-finite solution. */
sm_status sm_dense_solve(size_t n, const double *A, double *b);

/* Least-squares solution of the consistent rows x cols system A x = b
 * (rows >= cols), in its first cols entries of b[rows]. */
sm_status sm_dense_lstsq(size_t rows, size_t cols, const double *A, double *b);

/* Determinant of the n x n matrix A, by Gaussian elimination with partial pivoting. */
double sm_dense_det(size_t n, const double *A);

/* Unit null vector t[n+1] of the n x (n+1) matrix A by signed cofactors; false if A has none. */
bool sm_dense_null_vector(size_t n, const double *A, double *t);

/* Unit null vector t[cols] of the rows x cols matrix A (rank cols - 1): the
 * right singular vector of its smallest singular value. */
bool sm_dense_null_vector_svd(size_t rows, size_t cols, const double *A, double *t);

/* Unit eigenvector v[n] of A for its real eigenvalue nearest target, its
 * largest component positive; zeros if A has no real eigenvalue. */
void sm_dense_real_eigvec(size_t n, const double *A, double target, double *v);

/* A scalar function of the free coordinates z[n], with its context. */
typedef double (*sm_dense_scalar_fn)(const void *ctx, const double *z);

/* grad[n] = the central-difference gradient of f at z, step h. */
void sm_dense_central_gradient(size_t n, sm_dense_scalar_fn f, const void *ctx, const double *z, double h,
                               double *grad);

#endif
