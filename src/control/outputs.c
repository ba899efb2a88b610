/* Virtual constraints y = H q − h_d(θ) and the terms of ÿ (control.h).
 * A Bézier, spline or Fourier h_d lives in s: d/dθ = (1/(θ⁻ − θ⁺)) d/ds. */
#include <math.h>

#include "stridemap/control.h"

void sm_vc_desired(const sm_vc *vc, size_t i, double theta, double out[3])
{
    if (vc->basis == SM_BASIS_POLY) {
        sm_poly(vc->a[i], vc->degree[i], theta, out);
        return;
    }
    const double span = vc->theta_minus - vc->theta_plus;
    const double s = (theta - vc->theta_plus) / span;
    if (vc->basis == SM_BASIS_SPLINE)
        sm_spline(vc->knots[i], vc->a[i], vc->degree[i] + 1, s, out);
    else if (vc->basis == SM_BASIS_FOURIER)
        sm_fourier(vc->a[i], vc->degree[i] / 2, vc->period[i], s, out);
    else
        sm_bezier(vc->a[i], vc->degree[i], s, out);
    out[1] /= span;
    out[2] /= span * span;
}

void sm_vc_eval(const sm_vc *vc, const double *q, const double *v, sm_vc_value *out)
{
    const size_t nq = vc->nq;
    double th = 0.0, thd = 0.0;
    for (size_t k = 0; k < nq; k++) {
        th += vc->c[k] * q[k];
        thd += vc->c[k] * v[k];
    }
    out->theta = th;
    out->theta_dot = thd;
    out->s = (th - vc->theta_plus) / (vc->theta_minus - vc->theta_plus);
    for (size_t i = 0; i < vc->ny; i++) {
        double h[3];
        sm_vc_desired(vc, i, th, h);
        double y = -h[0], dy = 0.0;
        for (size_t k = 0; k < nq; k++) {
            const double J = vc->H[i][k] - h[1] * vc->c[k];
            out->J[i][k] = J;
            y += vc->H[i][k] * q[k];
            dy += J * v[k];
        }
        out->y[i] = y;
        out->dy[i] = dy;
        out->b[i] = -h[2] * thd * thd;
        out->iz[i] = 0.0;
    }
}
