/* The differentiator of the inverse dynamics (stridemap/inverse.h):
 * Savitzky–Golay's local least-squares polynomial on uneven samples.  The
 * paper says only "digital differentiation"; a local fit is exact on
 * polynomials up to its degree, smooths by its window, and keeps its order
 * at the ends of a run with a one-sided window, where central differences
 * would lose it. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stridemap/inverse.h"

#define MAX_HALF 25
#define MAX_DEGREE 10

void sm_inverse_options_default(sm_inverse_options *o)
{
    o->half_window = 3;
    o->degree = 4;
    o->ground_moment = true;
    o->by_coordinate = false;
}

sm_status sm_inverse_options_check(const sm_inverse_options *o, char *why, size_t why_len)
{
    if (o->half_window < 1 || o->half_window > MAX_HALF) {
        snprintf(why, why_len, "sm_inverse_options.half_window must be from 1 to %d, not %d", MAX_HALF,
                 o->half_window);
        return SM_BAD_OPTION;
    }
    const int top = 2 * o->half_window < MAX_DEGREE ? 2 * o->half_window : MAX_DEGREE;
    if (o->degree < 2 || o->degree > top) {
        snprintf(why, why_len,
                 "sm_inverse_options.degree must be from 2 (a second derivative) to %d (2 half_window, at "
                 "most %d), not %d",
                 top, MAX_DEGREE, o->degree);
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

sm_status sm_inverse_differentiate(const sm_inverse_options *o, size_t n, const double *t, const double *y,
                                   size_t stride, double *dy, double *ddy)
{
    char why[160];
    if (sm_inverse_options_check(o, why, sizeof why) != SM_OK) return SM_BAD_OPTION;
    const size_t w = 2 * (size_t)o->half_window + 1, nc = (size_t)o->degree + 1;
    if (n < w) return SM_BAD_DATA;
    for (size_t i = 1; i < n; i++)
        if (!(t[i] > t[i - 1])) return SM_BAD_DATA;
    for (size_t i = 0; i < n; i++) {
        size_t s = i < (size_t)o->half_window ? 0 : i - (size_t)o->half_window;
        if (s + w > n) s = n - w;
        /* u = (t − t_i) / h on the window's mean spacing h: the
         * Vandermonde matrix stays well scaled whatever the time unit */
        const double h = (t[s + w - 1] - t[s]) / (double)(w - 1);
        double V[(2 * MAX_HALF + 1) * (MAX_DEGREE + 1)], b[2 * MAX_HALF + 1];
        for (size_t j = 0; j < w; j++) {
            const double u = (t[s + j] - t[i]) / h;
            double pw = 1.0;
            for (size_t m = 0; m < nc; m++, pw *= u) V[j * nc + m] = pw;
            b[j] = y[(s + j) * stride];
        }
        if (LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', (lapack_int)w, (lapack_int)nc, 1, V, (lapack_int)nc, b, 1) != 0)
            return SM_LAPACK_FAILED;
        if (dy) dy[i * stride] = b[1] / h;
        if (ddy) ddy[i * stride] = 2.0 * b[2] / (h * h);
    }
    return SM_OK;
}
