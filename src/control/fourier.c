/* Fourier series of the phase variable (control.h, sm_fourier).  The
 * harmonics come from one cosine and sine by the angle-addition recurrence
 * (cos, sin of (k+1)w from those of kw and w): one libm call pair instead
 * of one per harmonic, accurate to a few ulps for the dozen harmonics a
 * reference has. */
#include <math.h>

#include "stridemap/control.h"

void sm_fourier(const double *a, size_t K, double period, double s, double out[3])
{
    const double w = 2.0 * M_PI / period, c1 = cos(w * s), s1 = sin(w * s);
    double h = a[0], d = 0.0, dd = 0.0, ck = c1, sk = s1;
    for (size_t k = 1; k <= K; k++) {
        const double ak = a[2 * k - 1], bk = a[2 * k], wk = w * (double)k;
        h += ak * ck + bk * sk;
        d += wk * (bk * ck - ak * sk);
        dd -= wk * wk * (ak * ck + bk * sk);
        const double cn = ck * c1 - sk * s1;
        sk = sk * c1 + ck * s1;
        ck = cn;
    }
    out[0] = h;
    out[1] = d;
    out[2] = dd;
}
