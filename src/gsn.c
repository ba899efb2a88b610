/* The gait sensitivity norm (include/stridemap/disturb.h): B, C, D and the
 * first steps' response by differences of whole strides, the rest by the
 * gait's Jacobian and a discrete Lyapunov sum. */
#include <math.h>
#include <string.h>

#include "stridemap/disturb.h"
#include "stridemap/poincare.h"

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

/* One disturbance's response; C (n_ind x n_free) is computed on first
 * need into C and *have_C set, so that several disturbances share it. */
static sm_status gsn_one(sm_workspace *ws, const double *p, const sm_gait *g, size_t param, const sm_gsn_options *o,
                         double *C, bool *have_C, sm_gsn_result *r)
{
    const sm_model *m = sm_workspace_model(ws);
    memset(r, 0, sizeof *r);
    r->gsn = NAN;
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
    const double hd = h * fmax(1.0, fabs(p[param]));
    for (int k = 0; k < 2; k++)
        if ((r->status = run_pair(ws, p, param, g->x, k ? -hd : hd, o, &t[k], &r->strides)) != SM_OK) return r->status;
    for (size_t i = 0; i < ni; i++) {
        r->D[i] = central(t[0].e0[i], t[1].e0[i], hd);
        r->e1[i] = central(t[0].e1[i], t[1].e1[i], hd);
    }
    for (size_t i = 0; i < n; i++) r->B[i] = central(t[0].x1[i], t[1].x1[i], hd);
    for (size_t i = 0; i < nf; i++) r->b[i] = central(t[0].z2[i], t[1].z2[i], hd);

    /* the response decays only inside the unit circle, and a family's
     * multiplier 1 carries the walker to another gait for good */
    r->status = SM_OK;
    if (!g->stable || g->trivial_index >= 0 || !(g->max_abs_eig < 1)) return r->status;

    if (!*have_C) {
        if ((r->status = indicator_jacobian(ws, p, g, o, h, C, &r->strides)) != SM_OK) return r->status;
        *have_C = true;
    }
    double Q[SM_MAX_STATE * SM_MAX_STATE], X[SM_MAX_STATE * SM_MAX_STATE];
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < nf; j++) Q[i * nf + j] = r->b[i] * r->b[j];
    if ((r->status = sm_lyapunov_sum(nf, g->jacobian, Q, X)) != SM_OK) return r->status;
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
