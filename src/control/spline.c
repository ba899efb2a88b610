/* Natural cubic splines through points (control.h, sm_spline).
 *
 * The second derivatives M_k at the knots solve the tridiagonal system
 *   h_{k-1} M_{k-1} + 2 (h_{k-1} + h_k) M_k + h_k M_{k+1}
 *       = 6 ((y_{k+1} − y_k)/h_k − (y_k − y_{k-1})/h_{k-1}),
 * M_0 = M_{n-1} = 0 (natural ends), by Thomas's elimination: diagonally
 * dominant, so no pivoting.  It is solved at every evaluation because the
 * values are parameters a caller may change between calls; n is at most
 * SM_CTRL_MAX_COEF, a few dozen flops, small beside the dynamics' solve. */
#include "stridemap/control.h"

void sm_spline(const double *knots, const double *values, size_t n, double s, double out[3])
{
    if (n > SM_CTRL_MAX_COEF) n = SM_CTRL_MAX_COEF;
    if (n < 2) {
        out[0] = n ? values[0] : 0.0;
        out[1] = out[2] = 0.0;
        return;
    }
    double M[SM_CTRL_MAX_COEF] = {0}, cp[SM_CTRL_MAX_COEF], dp[SM_CTRL_MAX_COEF];
    /* forward sweep over the interior unknowns M_1 .. M_{n-2} */
    for (size_t k = 1; k + 1 < n; k++) {
        const double hl = knots[k] - knots[k - 1], hr = knots[k + 1] - knots[k];
        const double rhs = 6.0 * ((values[k + 1] - values[k]) / hr - (values[k] - values[k - 1]) / hl);
        const double diag = 2.0 * (hl + hr) - (k > 1 ? hl * cp[k - 1] : 0.0);
        cp[k] = hr / diag;
        dp[k] = (rhs - (k > 1 ? hl * dp[k - 1] : 0.0)) / diag;
    }
    for (size_t k = n - 1; k-- > 1;) M[k] = dp[k] - (k + 2 < n ? cp[k] * M[k + 1] : 0.0);
    /* the piece that holds s; beyond the ends the end pieces continue */
    size_t k = 0;
    while (k + 2 < n && s > knots[k + 1]) k++;
    const double h = knots[k + 1] - knots[k];
    const double A = (knots[k + 1] - s) / h, B = (s - knots[k]) / h;
    out[0] = A * values[k] + B * values[k + 1] + ((A * A * A - A) * M[k] + (B * B * B - B) * M[k + 1]) * h * h / 6.0;
    out[1] = (values[k + 1] - values[k]) / h - (3.0 * A * A - 1.0) * h * M[k] / 6.0 +
             (3.0 * B * B - 1.0) * h * M[k + 1] / 6.0;
    out[2] = A * M[k] + B * M[k + 1];
}
