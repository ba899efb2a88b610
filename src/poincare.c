/* The stride map in the section's free coordinates and its derivatives:
 * P^N(z), finite-difference Jacobians for Newton, and the stability
 * Jacobian (Garcia 1999, ch. 2.8-2.9).  Below the fixed-point and gait
 * layers, which both use it. */
#include "stridemap/poincare.h"

#include <float.h>
#include <math.h>
#include <string.h>

sm_status sm_poincare(sm_workspace *ws, const double *p, int period, const double *z, double *z_out,
                      double *x_end, sm_step_metrics *metrics)
{
    const sm_model *m = sm_workspace_model(ws);
    double x[SM_MAX_STATE];
    sm_model_lift(m, p, z, x);
    for (int k = 0; k < period; k++) {
        sm_status st = sm_stride(ws, p, x, x, k == 0 ? metrics : NULL, NULL);
        if (st != SM_OK) return st;
    }
    sm_model_free(m, x, z_out);
    if (x_end) memcpy(x_end, x, m->n_state * sizeof *x);
    return SM_OK;
}

sm_status sm_map_jacobian(sm_workspace *ws, const double *p, int period, const double *z,
                          const double *Pz, double h, bool central, double *J, long *evals)
{
    const size_t n = sm_workspace_model(ws)->n_free;
    double zp[SM_MAX_STATE], fp[SM_MAX_STATE], fm[SM_MAX_STATE], f0[SM_MAX_STATE];
    if (!central && !Pz) {
        sm_status st = sm_poincare(ws, p, period, z, f0, NULL, NULL);
        *evals += period;
        if (st != SM_OK) return st;
        Pz = f0;
    }
    for (size_t j = 0; j < n; j++) {
        memcpy(zp, z, n * sizeof *z);
        zp[j] = z[j] + h;
        sm_status st = sm_poincare(ws, p, period, zp, fp, NULL, NULL);
        *evals += period;
        double span = h;
        if (central || st != SM_OK) {
            /* Central differences, or a one-sided step away from a failure. */
            zp[j] = z[j] - h;
            sm_status sm = sm_poincare(ws, p, period, zp, fm, NULL, NULL);
            *evals += period;
            if (st == SM_OK && sm == SM_OK) {
                span = 2 * h;
            } else if (sm == SM_OK && Pz) {
                memcpy(fp, Pz, n * sizeof *fp);
                span = h;
            } else {
                return st != SM_OK ? st : sm;
            }
        } else {
            memcpy(fm, Pz, n * sizeof *fm);
        }
        for (size_t i = 0; i < n; i++) J[i * n + j] = (fp[i] - fm[i]) / span;
    }
    return SM_OK;
}

double sm_newton_fd_step(double fd_step, bool central, double rtol)
{
    /* sqrt(rtol) for central differences too: the walkers' maps curve so
     * much (about 2000 h^2 for the simplest walker) that cbrt(rtol), the
     * textbook balance, makes Newton's Jacobian 1e-4 off and the
     * continuation's branch switching miss. */
    (void)central;
    return fd_step > 0 ? fd_step : sqrt(rtol);
}

double sm_stability_fd_step(double fd_step, double rtol)
{
    return fd_step > 0 ? fd_step : 0.01 * pow(rtol, 0.2);
}

/* dP/dz of one stride at z: Richardson's extrapolation, or Newton's
 * stencil where strides h away fail. */
static sm_status stride_jacobian(sm_workspace *ws, const double *p, const double *z, double h, double *J,
                                 long *evals)
{
    /* Central differences err by c h^2 + noise/h; the walkers' maps have
     * large c (about 2000 for the simplest walker), so at a step small
     * enough to hide c the integrator's noise shows.  Richardson's
     * (4 D(h/2) - D(h)) / 3 cancels the h^2 term and lets h stay large. */
    const size_t n = sm_workspace_model(ws)->n_free;
    double coarse[SM_MAX_STATE * SM_MAX_STATE];
    sm_status st = sm_map_jacobian(ws, p, 1, z, NULL, h, true, coarse, evals);
    if (st == SM_OK) st = sm_map_jacobian(ws, p, 1, z, NULL, h / 2, true, J, evals);
    if (st == SM_OK) {
        for (size_t i = 0; i < n * n; i++) J[i] = (4 * J[i] - coarse[i]) / 3;
        return SM_OK;
    }
    /* A stride h away fails (the gait is near the edge of its existence):
     * Newton's smaller stencil still sees the gait's own neighbourhood. */
    const double h_near = sm_newton_fd_step(0, true, sm_workspace_options(ws)->rtol);
    if (h_near >= h) return st;
    return sm_map_jacobian(ws, p, 1, z, NULL, h_near, true, J, evals);
}

sm_status sm_stability_jacobian(sm_workspace *ws, const double *p, int period, const double *z, double h,
                                double *J, long *evals)
{
    /* dP^N/dz is the product of the strides' Jacobians round the orbit
     * (the chain rule): differences of P^N itself would see its curvature,
     * which grows with N (at period 8 the simplest walker's multipliers
     * moved by 0.4 between rtol 1e-12 and 1e-13), while each stride's
     * stays that of one step.  The cost is the same, 4 N n_free strides. */
    const size_t n = sm_workspace_model(ws)->n_free;
    double zk[SM_MAX_STATE], Jk[SM_MAX_STATE * SM_MAX_STATE], prod[SM_MAX_STATE * SM_MAX_STATE];
    memcpy(zk, z, n * sizeof *zk);
    for (int k = 0; k < period; k++) {
        sm_status st = stride_jacobian(ws, p, zk, h, k == 0 ? J : Jk, evals);
        if (st != SM_OK) return st;
        if (k > 0) {
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                    double s = 0.0;
                    for (size_t l = 0; l < n; l++) s += Jk[i * n + l] * J[l * n + j];
                    prod[i * n + j] = s;
                }
            memcpy(J, prod, n * n * sizeof *J);
        }
        if (k + 1 < period) {
            st = sm_poincare(ws, p, 1, zk, zk, NULL, NULL);
            (*evals)++;
            if (st != SM_OK) return st;
        }
    }
    return SM_OK;
}


sm_status sm_map_jacobian_exact(sm_workspace *ws, const double *p, int period, const double *z, double *z_out,
                                double *J, long *evals)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t n = m->n_free, ns = m->n_state;
    double zo[SM_MAX_STATE];
    if (m->map) {
        /* A plain map is the stride itself, with nothing to integrate:
         * central differences of it, at the step that balances truncation
         * and rounding (about 1e-10 for maps of order 1). */
        sm_status st = sm_poincare(ws, p, period, z, z_out ? z_out : zo, NULL, NULL);
        *evals += period;
        if (st == SM_OK) st = sm_map_jacobian(ws, p, period, z, NULL, cbrt(DBL_EPSILON), true, J, evals);
        return st;
    }
    /* dP^N/dz = (free rows of) S_N ... S_1 dlift/dz: the strides carry the
     * columns of dlift/dz as their sensitivities.  The lift is algebraic
     * (for a body file, Newton on the contacts' gaps), so central
     * differences of it are cheap and accurate to about 1e-10. */
    double x[SM_MAX_STATE], S[SM_MAX_STATE * SM_MAX_STATE], xp[SM_MAX_STATE], xm[SM_MAX_STATE];
    double zp[SM_MAX_STATE];
    memcpy(zp, z, n * sizeof *zp);
    for (size_t j = 0; j < n; j++) {
        const double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(z[j]));
        zp[j] = z[j] + h;
        sm_model_lift(m, p, zp, xp);
        zp[j] = z[j] - h;
        sm_model_lift(m, p, zp, xm);
        zp[j] = z[j];
        for (size_t i = 0; i < ns; i++) S[j * ns + i] = (xp[i] - xm[i]) / (2 * h);
    }
    sm_model_lift(m, p, z, x);
    for (int k = 0; k < period; k++) {
        sm_status st = sm_stride_sens(ws, p, x, x, S, n, NULL);
        (*evals)++;
        if (st != SM_OK) return st;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) J[i * n + j] = S[j * ns + m->free_index[i]];
    if (z_out) sm_model_free(m, x, z_out);
    return SM_OK;
}
