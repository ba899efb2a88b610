/* The gait sensitivity norm (include/stridemap/disturb.h): B, C, D and the
 * first steps' response by differences of whole strides, the rest by the
 * gait's Jacobian and a discrete Lyapunov sum. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "stridemap/disturb.h"
#include "stridemap/poincare.h"

const char *sm_gsn_why_name(sm_gsn_why why)
{
    switch (why) {
    case SM_GSN_DEFINED: return "defined";
    case SM_GSN_UNSTABLE: return "unstable";
    case SM_GSN_FAMILY: return "family";
    case SM_GSN_FAILED: return "failed";
    }
    return "?";
}

void sm_gsn_options_default(sm_gsn_options *o)
{
    memset(o, 0, sizeof *o);
    o->n_indicators = 2;
    o->indicator[0] = 1; /* step_length */
    o->indicator[1] = 0; /* period: step_period */
    o->h = 0.0;
}

sm_status sm_lyapunov_sum(size_t n, const double *A, const double *Q, double *X)
{
    double Aj[SM_MAX_STATE * SM_MAX_STATE], T[SM_MAX_STATE * SM_MAX_STATE], U[SM_MAX_STATE * SM_MAX_STATE];
    memcpy(Aj, A, n * n * sizeof *A);
    memcpy(X, Q, n * n * sizeof *X);
    /* 2^j terms after j steps: 64 covers a spectral radius up to 1 - 1e-17 */
    for (int j = 0; j < 64; j++) {
        double amax = 0, xmax = 0;
        for (size_t i = 0; i < n * n; i++) amax = fmax(amax, fabs(Aj[i]));
        for (size_t i = 0; i < n * n; i++) xmax = fmax(xmax, fabs(X[i]));
        if (!isfinite(amax) || !isfinite(xmax)) return SM_NONFINITE;
        /* the rest of the sum is below A_j's square times X: rounding */
        if (amax * amax * (double)n * (double)n < 1e-18) return SM_OK;
        for (size_t r = 0; r < n; r++) /* T = A_j X */
            for (size_t c = 0; c < n; c++) {
                double s = 0;
                for (size_t k = 0; k < n; k++) s += Aj[r * n + k] * X[k * n + c];
                T[r * n + c] = s;
            }
        for (size_t r = 0; r < n; r++) /* X += T A_j^T */
            for (size_t c = 0; c < n; c++) {
                double s = 0;
                for (size_t k = 0; k < n; k++) s += T[r * n + k] * Aj[c * n + k];
                U[r * n + c] = s;
            }
        for (size_t i = 0; i < n * n; i++) X[i] += U[i];
        for (size_t r = 0; r < n; r++) /* A_j <- A_j^2 */
            for (size_t c = 0; c < n; c++) {
                double s = 0;
                for (size_t k = 0; k < n; k++) s += Aj[r * n + k] * Aj[k * n + c];
                T[r * n + c] = s;
            }
        memcpy(Aj, T, n * n * sizeof *T);
    }
    return SM_NONFINITE;
}

/* What a pair of strides from the gait gives at disturbance d: the
 * indicators of both and the free coordinates after the second. */
typedef struct {
    double e0[SM_GSN_MAX_INDICATORS], e1[SM_GSN_MAX_INDICATORS];
    double x1[SM_MAX_STATE], z2[SM_MAX_STATE];
} two_strides;

static void indicators(const sm_gsn_options *o, const sm_step_metrics *mt, double *e)
{
    for (size_t i = 0; i < o->n_indicators; i++) e[i] = sm_metric_value(mt, o->indicator[i]);
}

static sm_status run_pair(sm_workspace *ws, const double *p, size_t param, const double *x, double d,
                          const sm_gsn_options *o, two_strides *t, long *strides)
{
    const sm_model *m = sm_workspace_model(ws);
    sm_step_metrics mt;
    double x2[SM_MAX_STATE];
    sm_status st = sm_disturbed_stride(ws, p, param, d, x, t->x1, &mt);
    ++*strides;
    if (st != SM_OK) return st;
    indicators(o, &mt, t->e0);
    st = sm_stride(ws, p, t->x1, x2, &mt, NULL);
    ++*strides;
    if (st != SM_OK) return st;
    indicators(o, &mt, t->e1);
    sm_model_free(m, x2, t->z2);
    return SM_OK;
}

/* Central differences: one pair of strides per derivative, where
 * Richardson's extrapolation would take two (the GSN's cost in fixed). */
static double central(double up, double dn, double h) { return (up - dn) / (2.0 * h); }

/* The step that balances central differences' truncation, h^2 times the
 * third derivative (the simplest walker's slope input: 1e-5 relative at
 * h = 4e-5), against the integrator's noise rtol / h: 0.1 cbrt(rtol), 1e-5
 * at rtol 1e-12, where both are below 1e-6 relative. */
double sm_gsn_fd_step(double h, double rtol) { return h > 0 ? h : 0.1 * cbrt(rtol); }

/* C[n_ind x n_free] = d indicators / dz at the gait, by whole strides from
 * the lifted section states. */
static sm_status indicator_jacobian(sm_workspace *ws, const double *p, const sm_gait *g, const sm_gsn_options *o,
                                    double h, double *C, long *strides)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t nf = m->n_free, ni = o->n_indicators;
    double z[SM_MAX_STATE], x[SM_MAX_STATE], y[SM_MAX_STATE];
    double e[2][SM_GSN_MAX_INDICATORS];
    sm_model_free(m, g->x, z);
    static const double at[2] = {1.0, -1.0};
    for (size_t j = 0; j < nf; j++) {
        const double z0 = z[j], hj = h * fmax(1.0, fabs(z0));
        for (int k = 0; k < 2; k++) {
            z[j] = z0 + at[k] * hj;
            sm_model_lift(m, p, z, x);
            sm_step_metrics mt;
            const sm_status st = sm_stride(ws, p, x, y, &mt, NULL);
            ++*strides;
            if (st != SM_OK) return st;
            indicators(o, &mt, e[k]);
        }
        z[j] = z0;
        for (size_t i = 0; i < ni; i++) C[i * nf + j] = central(e[0][i], e[1][i], hj);
    }
    return SM_OK;
}

/* A family's gait: the right and left eigenvectors v, w (w.v = 1) of the
 * multiplier 1 (g->trivial_index), the part a = w.b of b along the family,
 * r->family_drift = |C v| |a| / |(e_0, e_1)|, and A - v w^T, b - a v in A, bt
 * (the map and the disturbance on the family's complement). */
static sm_status deflate(const sm_gait *g, const double *C, size_t ni, sm_gsn_result *r, double *A, double *bt)
{
    const size_t nf = g->n_free;
    double M[SM_MAX_STATE * SM_MAX_STATE], wr[SM_MAX_STATE], wi[SM_MAX_STATE];
    double vl[SM_MAX_STATE * SM_MAX_STATE], vr[SM_MAX_STATE * SM_MAX_STATE];
    memcpy(M, g->jacobian, nf * nf * sizeof *M);
    if (LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'V', 'V', (lapack_int)nf, M, (lapack_int)nf, wr, wi, vl, (lapack_int)nf, vr,
                      (lapack_int)nf) != 0)
        return SM_LAPACK_FAILED;
    size_t k = 0;
    double best = INFINITY;
    for (size_t i = 0; i < nf; i++) {
        const double d = hypot(wr[i] - 1.0, wi[i]);
        if (d < best) best = d, k = i;
    }
    if (wi[k] != 0.0) return SM_LAPACK_FAILED; /* a multiplier 1 is real */
    double v[SM_MAX_STATE], w[SM_MAX_STATE], wv = 0, a = 0;
    for (size_t i = 0; i < nf; i++) v[i] = vr[i * nf + k], w[i] = vl[i * nf + k];
    for (size_t i = 0; i < nf; i++) wv += w[i] * v[i];
    if (!(fabs(wv) > 1e-12)) return SM_LAPACK_FAILED;
    for (size_t i = 0; i < nf; i++) w[i] /= wv;
    for (size_t i = 0; i < nf; i++) a += w[i] * r->b[i];
    double cv = 0, e = 0;
    for (size_t j = 0; j < ni; j++) {
        double s = 0;
        for (size_t i = 0; i < nf; i++) s += C[j * nf + i] * v[i];
        if (isfinite(s)) cv += s * s;
        if (isfinite(r->D[j])) e += r->D[j] * r->D[j];
        if (isfinite(r->e1[j])) e += r->e1[j] * r->e1[j];
    }
    r->family_drift = sqrt(cv) * fabs(a) / (e > 0 ? sqrt(e) : 1.0);
    for (size_t i = 0; i < nf; i++) {
        bt[i] = r->b[i] - a * v[i];
        for (size_t j = 0; j < nf; j++) A[i * nf + j] -= v[i] * w[j];
    }
    return SM_OK;
}

/* One disturbance's response; C (n_ind x n_free) is computed on first
 * need into C and *have_C set, so that several disturbances share it. */
static sm_status gsn_one(sm_workspace *ws, const double *p, const sm_gait *g, size_t param, const sm_gsn_options *o,
                         double *C, bool *have_C, sm_gsn_result *r)
{
    const sm_model *m = sm_workspace_model(ws);
    memset(r, 0, sizeof *r);
    r->gsn = NAN;
    r->family_drift = NAN;
    r->why = SM_GSN_FAILED;
    for (size_t i = 0; i < SM_GSN_MAX_INDICATORS; i++) r->per_indicator[i] = NAN;
    r->status = SM_BAD_OPTION;
    if (g->period != 1 || !sm_param_is_disturbance(m, param) || o->n_indicators < 1 ||
        o->n_indicators > SM_GSN_MAX_INDICATORS)
        return r->status;
    for (size_t i = 0; i < o->n_indicators; i++)
        if (o->indicator[i] >= sm_metric_field_count) return r->status;
    const size_t n = m->n_state, nf = m->n_free, ni = o->n_indicators;
    const double h = sm_gsn_fd_step(o->h, sm_workspace_options(ws)->rtol);

    /* e_0, e_1, x_1 and z_2 against d, at +-h */
    two_strides t[2];
    double hd = h * fmax(1.0, fabs(p[param]));
    for (int k = 0; k < 2; k++)
        if ((r->status = run_pair(ws, p, param, g->x, k ? -hd : hd, o, &t[k], &r->strides)) != SM_OK) return r->status;
    /* A disturbance whose unit moves the state little (a push of 1 N s on a
     * 30 kg walker: B ~ 0.03) would move it by h B only, into the
     * integration's noise: step so that the state moves by h relative, as
     * the Jacobian's differences do, within the parameter's range. */
    double bmax = 0;
    for (size_t i = 0; i < n; i++)
        bmax = fmax(bmax, fabs(central(t[0].x1[i], t[1].x1[i], hd)) / fmax(1.0, fabs(g->x[i])));
    const sm_param_def *def = &m->params[param];
    const double room = fmin(p[param] - def->min, def->max - p[param]);
    if (bmax > 0 && bmax < 1 && isfinite(bmax)) {
        const double wider = fmin(hd / bmax, 0.5 * room);
        if (wider > hd) {
            hd = wider;
            for (int k = 0; k < 2; k++)
                if ((r->status = run_pair(ws, p, param, g->x, k ? -hd : hd, o, &t[k], &r->strides)) != SM_OK)
                    return r->status;
        }
    }
    r->why = SM_GSN_DEFINED;
    for (size_t i = 0; i < ni; i++) {
        r->D[i] = central(t[0].e0[i], t[1].e0[i], hd);
        r->e1[i] = central(t[0].e1[i], t[1].e1[i], hd);
    }
    for (size_t i = 0; i < n; i++) r->B[i] = central(t[0].x1[i], t[1].x1[i], hd);
    for (size_t i = 0; i < nf; i++) r->b[i] = central(t[0].z2[i], t[1].z2[i], hd);

    /* the response decays only inside the unit circle */
    r->status = SM_OK;
    if (!g->stable || !(g->max_abs_eig < 1)) {
        r->why = SM_GSN_UNSTABLE;
        return r->status;
    }
    if (!*have_C) {
        if ((r->status = indicator_jacobian(ws, p, g, o, h, C, &r->strides)) != SM_OK) {
            r->why = SM_GSN_FAILED;
            return r->status;
        }
        *have_C = true;
    }
    double A[SM_MAX_STATE * SM_MAX_STATE], bt[SM_MAX_STATE];
    memcpy(A, g->jacobian, nf * nf * sizeof *A);
    memcpy(bt, r->b, nf * sizeof *bt);
    if (g->trivial_index >= 0) {
        if ((r->status = deflate(g, C, ni, r, A, bt)) != SM_OK) {
            r->why = SM_GSN_FAILED;
            return r->status;
        }
        if (!(r->family_drift <= SM_GSN_FAMILY_TOL)) {
            r->why = SM_GSN_FAMILY;
            return r->status;
        }
    }
    double Q[SM_MAX_STATE * SM_MAX_STATE], X[SM_MAX_STATE * SM_MAX_STATE];
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < nf; j++) Q[i * nf + j] = bt[i] * bt[j];
    if ((r->status = sm_lyapunov_sum(nf, A, Q, X)) != SM_OK) {
        r->why = SM_GSN_FAILED;
        return r->status;
    }
    double total = 0;
    bool any = false;
    for (size_t i = 0; i < ni; i++) {
        const double *c = C + i * nf;
        double tail = 0;
        for (size_t a = 0; a < nf; a++)
            for (size_t b = 0; b < nf; b++) tail += c[a] * X[a * nf + b] * c[b];
        const double sq = r->D[i] * r->D[i] + r->e1[i] * r->e1[i] + tail;
        r->per_indicator[i] = sqrt(sq);
        /* an indicator the model does not measure (NaN) is left out */
        if (isfinite(sq)) total += sq, any = true;
    }
    r->gsn = any ? sqrt(total) : NAN;
    if (!any) r->why = SM_GSN_FAILED;
    return r->status;
}

sm_status sm_gsn(sm_workspace *ws, const double *p, const sm_gait *g, size_t param, const sm_gsn_options *o,
                 sm_gsn_result *r)
{
    double C[SM_GSN_MAX_INDICATORS * SM_MAX_STATE];
    bool have_C = false;
    return gsn_one(ws, p, g, param, o, C, &have_C, r);
}

sm_status sm_gsn_all(sm_workspace *ws, const double *p, const sm_gait *g, const sm_gsn_options *o, size_t n,
                     const size_t *param, sm_gsn_result *r)
{
    double C[SM_GSN_MAX_INDICATORS * SM_MAX_STATE];
    bool have_C = false;
    sm_status first = SM_OK;
    for (size_t k = 0; k < n; k++) {
        const sm_status st = gsn_one(ws, p, g, param[k], o, C, &have_C, &r[k]);
        if (first == SM_OK) first = st;
    }
    return first;
}
