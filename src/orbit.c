#include "stridemap/orbit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

void sm_orbit_options_default(sm_orbit_options *o)
{
    o->transient = 200;
    o->record = 64;
    o->max_period = 32;
    o->period_tol = 1e-6;
}

sm_status sm_orbit_options_check(const sm_orbit_options *o, char *why, size_t why_len)
{
    if (o->transient < 0 || o->transient > 100000000) {
        snprintf(why, why_len, "sm_orbit_options.transient must be a whole number from 0 to 1e8, not %d", o->transient);
        return SM_BAD_OPTION;
    }
    if (o->record < 1 || o->record > 1000000) {
        snprintf(why, why_len, "sm_orbit_options.record must be a whole number from 1 to 1e6, not %d", o->record);
        return SM_BAD_OPTION;
    }
    if (o->max_period < 0) {
        snprintf(why, why_len, "the longest period looked for must be >= 0, not %d", o->max_period);
        return SM_BAD_OPTION;
    }
    if (!(o->period_tol >= 0) || !isfinite(o->period_tol)) {
        snprintf(why, why_len, "the period tolerance must be a finite number >= 0, not %g", o->period_tol);
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

/* Smallest k with rec (record x n, the free coordinates) k-periodic. */
static int find_period(const double *rec, int len, size_t n, int max_period, double tol)
{
    for (int k = 1; k <= max_period && 2 * k <= len; k++) {
        bool ok = true;
        for (int i = 0; ok && i + k < len; i++)
            for (size_t j = 0; ok && j < n; j++)
                ok = fabs(rec[(size_t)(i + k) * n + j] - rec[(size_t)i * n + j]) <= tol;
        if (ok) return k;
    }
    return 0;
}

sm_status sm_orbit(sm_workspace *ws, const double *p, const double *x0, const sm_orbit_options *o,
                   sm_orbit_fn cb, void *ctx, sm_orbit_result *r)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t ns = m->n_state, nf = m->n_free;
    memset(r, 0, sizeof *r);
    memcpy(r->x, x0, ns * sizeof *x0);
    memcpy(r->x_good, x0, ns * sizeof *x0);
    char why[160];
    if (sm_orbit_options_check(o, why, sizeof why) != SM_OK) return r->status = SM_BAD_OPTION;
    double *rec = sm_scratch_take(ws, SM_SCRATCH_ORBIT, (size_t)o->record * nf * sizeof *rec);
    if (!rec) return r->status = SM_NO_MEMORY;

    double x[SM_MAX_STATE];
    memcpy(x, x0, ns * sizeof *x);
    const long total = (long)o->transient + o->record;
    sm_status st = SM_OK;
    for (long k = 0; k < total; k++) {
        sm_step_metrics mt;
        st = sm_stride(ws, p, x, x, &mt, NULL);
        memcpy(r->x, x, ns * sizeof *x);
        if (st != SM_OK) break;
        r->steps++;
        memcpy(r->x_good, x, ns * sizeof *x);
        if (k >= o->transient) {
            sm_model_free(m, x, &rec[(size_t)r->recorded * nf]);
            if (cb && cb(ctx, r->recorded, x, &mt) != 0) {
                st = SM_IO_ERROR;
                break;
            }
            r->recorded++;
        }
    }
    if (st == SM_OK) r->period = find_period(rec, r->recorded, nf, o->max_period, o->period_tol);
    sm_scratch_give(ws, SM_SCRATCH_ORBIT, rec);
    return r->status = st;
}
