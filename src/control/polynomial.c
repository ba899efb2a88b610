/* The desired-trajectory polynomials of virtual constraints.
 *
 * Bézier: h(s) = Σ a_k C(M,k) s^k (1−s)^(M−k).  Its derivatives are
 * Bézier polynomials of the coefficient differences (de Casteljau):
 * h' = M Σ (a_{k+1} − a_k) B_{k,M−1}, h'' = M(M−1) Σ Δ²a_k B_{k,M−2}, so
 * each is evaluated by de Casteljau's recurrence, which stays accurate on
 * [0, 1] where the expanded power form loses digits at high degree. */
#include <string.h>

#include "stridemap/control.h"

/* de Casteljau on b[n+1] (overwritten). */
static double casteljau(double *b, size_t n, double s)
{
    for (size_t r = 1; r <= n; r++)
        for (size_t k = 0; k + r <= n; k++) b[k] = (1.0 - s) * b[k] + s * b[k + 1];
    return b[0];
}

void sm_bezier(const double *a, size_t M, double s, double out[3])
{
    double b[SM_CTRL_MAX_COEF], d1[SM_CTRL_MAX_COEF], d2[SM_CTRL_MAX_COEF];
    if (M >= SM_CTRL_MAX_COEF) M = SM_CTRL_MAX_COEF - 1;
    memcpy(b, a, (M + 1) * sizeof *b);
    out[0] = casteljau(b, M, s);
    out[1] = out[2] = 0.0;
    if (M >= 1) {
        for (size_t k = 0; k < M; k++) d1[k] = a[k + 1] - a[k];
        if (M >= 2)
            for (size_t k = 0; k + 1 < M; k++) d2[k] = d1[k + 1] - d1[k];
        out[1] = (double)M * casteljau(d1, M - 1, s);
    }
    if (M >= 2) out[2] = (double)M * (double)(M - 1) * casteljau(d2, M - 2, s);
}

void sm_poly(const double *a, size_t M, double x, double out[3])
{
    double h = 0.0, d = 0.0, dd = 0.0;
    /* Horner on h, h' and h'' at once */
    for (size_t k = M + 1; k-- > 0;) {
        dd = dd * x + 2.0 * d;
        d = d * x + h;
        h = h * x + a[k];
    }
    out[0] = h;
    out[1] = d;
    out[2] = dd;
}
