#include "dense.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "stridemap/fixedpoint.h"

double sm_dense_max_abs(const double *v, size_t n)
{
    double a = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i])) return INFINITY; /* fmax() would drop it */
        a = fmax(a, fabs(v[i]));
    }
    return a;
}

double sm_dense_norm2(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

double sm_dense_dot(const double *a, const double *b, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static sm_status lapack_status(lapack_int info, const double *x, size_t n)
{
    if (info > 0) return SM_SINGULAR_JACOBIAN;
    if (info < 0) return SM_LAPACK_FAILED;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return SM_SINGULAR_JACOBIAN;
    return SM_OK;
}

sm_status sm_dense_solve(size_t n, const double *A, double *b)
{
    double a[SM_DENSE_MAX * SM_DENSE_MAX];
    lapack_int ipiv[SM_DENSE_MAX];
    memcpy(a, A, n * n * sizeof *a);
    lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)n, 1, a, (lapack_int)n, ipiv, b, 1);
    return lapack_status(info, b, n);
}

sm_status sm_dense_lstsq(size_t rows, size_t cols, const double *A, double *b)
{
    double a[(SM_DENSE_MAX + 1) * SM_DENSE_MAX];
    memcpy(a, A, rows * cols * sizeof *a);
    lapack_int info = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', (lapack_int)rows, (lapack_int)cols, 1, a,
                                    (lapack_int)cols, b, 1);
    return lapack_status(info, b, cols);
}

double sm_dense_det(size_t n, const double *A)
{
    double a[SM_DENSE_MAX * SM_DENSE_MAX];
    memcpy(a, A, n * n * sizeof *a);
    double d = 1.0;
    for (size_t k = 0; k < n; k++) {
        size_t piv = k;
        for (size_t i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > fabs(a[piv * n + k])) piv = i;
        if (a[piv * n + k] == 0.0) return 0.0;
        if (piv != k) {
            for (size_t j = 0; j < n; j++) {
                double t = a[k * n + j];
                a[k * n + j] = a[piv * n + j];
                a[piv * n + j] = t;
            }
            d = -d;
        }
        d *= a[k * n + k];
        for (size_t i = k + 1; i < n; i++) {
            double f = a[i * n + k] / a[k * n + k];
            for (size_t j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j];
        }
    }
    return d;
}

/* t_j = (-1)^j det(A without column j), normalised. */
bool sm_dense_null_vector(size_t n, const double *A, double *t)
{
    double sub[SM_DENSE_MAX * SM_DENSE_MAX];
    for (size_t j = 0; j <= n; j++) {
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0, c = 0; k <= n; k++)
                if (k != j) sub[i * n + c++] = A[i * (n + 1) + k];
        t[j] = ((j % 2) ? -1.0 : 1.0) * sm_dense_det(n, sub);
    }
    double s = sm_dense_norm2(t, n + 1);
    if (!(s > 0) || !isfinite(s)) return false;
    for (size_t j = 0; j <= n; j++) t[j] /= s;
    return true;
}

bool sm_dense_null_vector_svd(size_t rows, size_t cols, const double *A, double *t)
{
    double a[(SM_DENSE_MAX + 1) * SM_DENSE_MAX], sv[SM_DENSE_MAX + 1], vt[SM_DENSE_MAX * SM_DENSE_MAX],
        superb[SM_DENSE_MAX + 1];
    memcpy(a, A, rows * cols * sizeof *a);
    if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', (lapack_int)rows, (lapack_int)cols, a, (lapack_int)cols, sv,
                       NULL, 1, vt, (lapack_int)cols, superb) != 0)
        return false;
    for (size_t j = 0; j < cols; j++) t[j] = vt[(cols - 1) * cols + j];
    return isfinite(sm_dense_norm2(t, cols)) && sm_dense_norm2(t, cols) > 0.5;
}

void sm_dense_real_eigvec(size_t n, const double *A, double target, double *v)
{
    double a[SM_MAX_STATE * SM_MAX_STATE], wr[SM_MAX_STATE], wi[SM_MAX_STATE], vr[SM_MAX_STATE * SM_MAX_STATE];
    memcpy(a, A, n * n * sizeof *a);
    memset(v, 0, n * sizeof *v);
    if (LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'V', (lapack_int)n, a, (lapack_int)n, wr, wi, NULL, 1, vr,
                      (lapack_int)n) != 0)
        return;
    size_t best = n;
    for (size_t k = 0; k < n; k++)
        if (wi[k] == 0.0 && (best == n || fabs(wr[k] - target) < fabs(wr[best] - target))) best = k;
    if (best == n) return;
    for (size_t i = 0; i < n; i++) v[i] = vr[i * n + best];
    double s = sm_dense_norm2(v, n);
    /* A fixed sign, so that branch switching goes the same way every run. */
    size_t big = 0;
    for (size_t i = 1; i < n; i++)
        if (fabs(v[i]) > fabs(v[big])) big = i;
    if (v[big] < 0) s = -s;
    for (size_t i = 0; i < n; i++) v[i] /= s;
}

sm_status sm_eigenvalues(size_t n, const double *A, double *re, double *im)
{
    double a[SM_MAX_STATE * SM_MAX_STATE];
    memcpy(a, A, n * n * sizeof *a);
    lapack_int info = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)n, a, (lapack_int)n, re, im,
                                    NULL, 1, NULL, 1);
    if (info != 0) return SM_LAPACK_FAILED;
    /* Insertion sort by decreasing modulus: n is tiny and the order must be
     * stable for users' scripts. */
    for (size_t i = 1; i < n; i++) {
        double r = re[i], m = im[i], mod = hypot(r, m);
        size_t k = i;
        while (k > 0 && hypot(re[k - 1], im[k - 1]) < mod) {
            re[k] = re[k - 1];
            im[k] = im[k - 1];
            k--;
        }
        re[k] = r;
        im[k] = m;
    }
    return SM_OK;
}

void sm_dense_central_gradient(size_t n, sm_dense_scalar_fn f, const void *ctx, const double *z, double h,
                               double *grad)
{
    double zp[SM_MAX_STATE];
    memcpy(zp, z, n * sizeof *z);
    for (size_t j = 0; j < n; j++) {
        zp[j] = z[j] + h;
        const double up = f(ctx, zp);
        zp[j] = z[j] - h;
        grad[j] = (up - f(ctx, zp)) / (2 * h);
        zp[j] = z[j];
    }
}
