/* Small dense factorisations on caller memory for the contact solves.
 *
 * M is symmetric positive definite: Cholesky (Golub & Van Loan, Matrix
 * Computations, 4th ed., Alg. 4.2.1).  The contact systems J M⁻¹ J̃ᵀ are
 * unsymmetric with sliding friction and singular when the contacts are
 * dependent: LU with complete pivoting (ibid., §3.4.8), whose pivots reveal
 * the rank, judged against a relative tolerance since round-off leaves a
 * dependent row at ~1e-16 of the rest rather than at zero.  LAPACKE's
 * row-major drivers allocate a transposed copy, and dgetrf tests pivots only
 * against exact zero, so neither fits here. */
#include <math.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

bool sm_rigid_chol(double *A, size_t n)
{
    double dmax = 0.0;
    for (size_t i = 0; i < n; i++) dmax = fmax(dmax, fabs(A[i * n + i]));
    double tol = 1e-14 * dmax;
    for (size_t j = 0; j < n; j++) {
        double s = A[j * n + j];
        for (size_t k = 0; k < j; k++) s -= A[j * n + k] * A[j * n + k];
        if (!(s > tol)) return false;
        double l = sqrt(s);
        A[j * n + j] = l;
        for (size_t i = j + 1; i < n; i++) {
            double t = A[i * n + j];
            for (size_t k = 0; k < j; k++) t -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = t / l;
        }
    }
    return true;
}

void sm_rigid_chol_forward(const double *L, size_t n, double *b)
{
    for (size_t i = 0; i < n; i++) {
        double s = b[i];
        for (size_t k = 0; k < i; k++) s -= L[i * n + k] * b[k];
        b[i] = s / L[i * n + i];
    }
}

void sm_rigid_chol_backward(const double *L, size_t n, double *b)
{
    for (size_t i = n; i-- > 0;) {
        double s = b[i];
        for (size_t k = i + 1; k < n; k++) s -= L[k * n + i] * b[k];
        b[i] = s / L[i * n + i];
    }
}

void sm_rigid_chol_solve(const double *L, size_t n, double *b)
{
    sm_rigid_chol_forward(L, n, b);
    sm_rigid_chol_backward(L, n, b);
}

bool sm_rigid_lu(double *A, size_t n, size_t *rp, size_t *cp, double rtol)
{
    double amax = 0.0;
    for (size_t i = 0; i < n * n; i++) amax = fmax(amax, fabs(A[i]));
    if (!(amax > 0.0) && n > 0) return false;
    for (size_t i = 0; i < n; i++) rp[i] = cp[i] = i;
    for (size_t k = 0; k < n; k++) {
        size_t pi = k, pj = k;
        double best = -1.0;
        for (size_t i = k; i < n; i++)
            for (size_t j = k; j < n; j++)
                if (fabs(A[i * n + j]) > best) best = fabs(A[i * n + j]), pi = i, pj = j;
        if (!(best > rtol * amax)) return false;
        if (pi != k) {
            for (size_t j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[pi * n + j];
                A[pi * n + j] = t;
            }
            size_t t = rp[k];
            rp[k] = rp[pi];
            rp[pi] = t;
        }
        if (pj != k) {
            for (size_t i = 0; i < n; i++) {
                double t = A[i * n + k];
                A[i * n + k] = A[i * n + pj];
                A[i * n + pj] = t;
            }
            size_t t = cp[k];
            cp[k] = cp[pj];
            cp[pj] = t;
        }
        double p = A[k * n + k];
        for (size_t i = k + 1; i < n; i++) {
            double l = A[i * n + k] / p;
            A[i * n + k] = l;
            for (size_t j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return true;
}

/* P A Q = L U: solve L U y = P b, then x = Q y; b is overwritten by x.
 * These are systems of contact rows, n ≤ SM_RIGID_MAX_ROWS. */
void sm_rigid_lu_solve(const double *LU, size_t n, const size_t *rp, const size_t *cp, double *b)
{
    double y[SM_RIGID_MAX_ROWS];
    for (size_t i = 0; i < n; i++) y[i] = b[rp[i]];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i; k++) y[i] -= LU[i * n + k] * y[k];
    for (size_t i = n; i-- > 0;) {
        for (size_t k = i + 1; k < n; k++) y[i] -= LU[i * n + k] * y[k];
        y[i] /= LU[i * n + i];
    }
    for (size_t i = 0; i < n; i++) b[cp[i]] = y[i];
}
