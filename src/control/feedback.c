/* The feedback laws on virtual constraints (control.h): input-output
 * linearisation with ε-scaled gains, PD tracking through the static
 * decoupling H B, saturation.
 *
 * The decoupling matrix is ny × ny (ny at most SM_CTRL_MAX_Y), factored
 * by LAPACK's dgetrf; dgetrf only reports exact zero pivots, and a nearly
 * singular L_gL_f y would give huge torques instead, so a pivot below
 * DECOUPLING_TOL of the matrix's largest entry counts as singular. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "stridemap/control.h"

#define DECOUPLING_TOL 1e-12

/* Solves A x = b (n × n, column-major: LAPACKE's row-major _work calls
 * allocate a transposed copy; overwritten) in place of b; false if a
 * pivot falls below tol times A's largest entry. */
static bool lu_solve(double *A, size_t n, double *b, double tol)
{
    double big = 0.0;
    for (size_t i = 0; i < n * n; i++) big = fmax(big, fabs(A[i]));
    if (!(big > 0.0) || !isfinite(big)) return false;
    lapack_int ipiv[SM_CTRL_MAX_Y];
    const lapack_int N = (lapack_int)n;
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, N, N, A, N, ipiv) < 0) return false;
    for (size_t k = 0; k < n; k++)
        if (!(fabs(A[k * n + k]) >= tol * big)) return false;
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', N, 1, A, N, ipiv, b, N) == 0;
}

sm_status sm_ctrl_io_linearise(const sm_vc *vc, const sm_vc_value *val, const double *a, const double *K, size_t nu,
                               double kp, double kd, double eps, double *tau)
{
    const size_t ny = vc->ny, nq = vc->nq;
    if (nu != ny || ny == 0 || ny > SM_CTRL_MAX_Y || !(eps > 0.0)) return SM_BAD_PARAM;
    double L[SM_CTRL_MAX_Y * SM_CTRL_MAX_Y];
    for (size_t i = 0; i < ny; i++) {
        double drift = val->b[i];
        for (size_t k = 0; k < nq; k++) drift += val->J[i][k] * a[k];
        for (size_t j = 0; j < nu; j++) {
            double s = 0.0;
            for (size_t k = 0; k < nq; k++) s += val->J[i][k] * K[k * nu + j];
            L[i + j * ny] = s;
        }
        tau[i] = -(kd / eps) * val->dy[i] - (kp / (eps * eps)) * val->y[i] - val->iz[i] / (eps * eps * eps) - drift;
    }
    if (!lu_solve(L, ny, tau, DECOUPLING_TOL)) return SM_SINGULAR_DECOUPLING;
    for (size_t i = 0; i < nu; i++)
        if (!isfinite(tau[i])) return SM_SINGULAR_DECOUPLING;
    return SM_OK;
}

sm_status sm_ctrl_pd(const sm_vc *vc, const sm_vc_value *val, const double *B, size_t nu, double kp, double kd,
                     double *tau)
{
    const size_t ny = vc->ny, nq = vc->nq;
    if (nu != ny || ny == 0 || ny > SM_CTRL_MAX_Y) return SM_BAD_PARAM;
    double HB[SM_CTRL_MAX_Y * SM_CTRL_MAX_Y];
    for (size_t i = 0; i < ny; i++) {
        for (size_t j = 0; j < nu; j++) {
            double s = 0.0;
            for (size_t k = 0; k < nq; k++) s += vc->H[i][k] * B[k * nu + j];
            HB[i + j * ny] = s;
        }
        tau[i] = -kp * val->y[i] - kd * val->dy[i] - val->iz[i];
    }
    if (!lu_solve(HB, ny, tau, DECOUPLING_TOL)) return SM_SINGULAR_DECOUPLING;
    return SM_OK;
}

bool sm_ctrl_saturate(double *tau, size_t nu, double limit)
{
    bool over = false;
    for (size_t i = 0; i < nu; i++) {
        if (fabs(tau[i]) <= limit) continue;
        over = true;
        tau[i] = copysign(limit, tau[i]);
    }
    return over;
}
