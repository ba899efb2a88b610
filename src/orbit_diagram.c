#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stridemap/orbit.h"

#include "scratch.h"

bool sm_orbit_walker_outcome(sm_status st) { return sm_status_kind(st) == SM_KIND_WALKER; }

typedef struct {
    size_t n_state;
    sm_step_metrics *mts; /* [record] */
    double *xs;           /* [record x n_state] */
} record_buffer;

static int keep(void *ctx, int index, const double *x, const sm_step_metrics *mt)
{
    record_buffer *b = ctx;
    memcpy(&b->xs[(size_t)index * b->n_state], x, b->n_state * sizeof *x);
    b->mts[index] = *mt;
    return 0;
}

sm_status sm_orbit_diagram(sm_workspace *ws, const double *p_in, size_t param, double lo, double hi, long n,
                           const double *x0, const sm_newton_options *newton, const sm_orbit_options *o,
                           sm_orbit_value_fn cb, void *ctx, sm_orbit_diagram_result *res)
{
    const sm_model *m = sm_workspace_model(ws);
    memset(res, 0, sizeof *res);
    res->first_fall = NAN;
    char why[160];
    if (sm_orbit_options_check(o, why, sizeof why) != SM_OK) return res->status = SM_BAD_OPTION;
    /* One block: the metrics, then the states (sm_step_metrics' size is a
     * multiple of a double's alignment). */
    const size_t n_rec = (size_t)o->record;
    void *block = sm_scratch_take(ws, SM_SCRATCH_DIAGRAM,
                                  n_rec * (sizeof(sm_step_metrics) + m->n_state * sizeof(double)));
    if (!block) return res->status = SM_NO_MEMORY;
    record_buffer buf = {m->n_state, block, (double *)((sm_step_metrics *)block + n_rec)};
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    memcpy(p, p_in, m->n_params * sizeof *p);
    p[param] = lo;
    if (x0) {
        memcpy(x, x0, m->n_state * sizeof *x);
    } else {
        m->guess(x, p, m->data);
        sm_fixed_result fr;
        if (sm_fixed_point(ws, p, x, newton, &fr) == SM_OK && fr.converged) memcpy(x, fr.x, m->n_state * sizeof *x);
    }
    for (long k = 0; k < n; k++) {
        const double mu = n == 1 ? lo : lo + (hi - lo) * (double)k / (double)(n - 1);
        p[param] = mu;
        sm_orbit_result r;
        sm_orbit(ws, p, x, o, keep, &buf, &r);
        res->values++;
        res->total_steps += r.steps;
        sm_orbit_value v = {k, mu, &r, false, buf.xs, buf.mts};
        if (r.status != SM_OK) {
            v.fell = sm_orbit_walker_outcome(r.status);
            if (!v.fell)
                res->failures++;
            else if (res->falls++ == 0)
                res->first_fall = mu;
        } else {
            memcpy(x, r.x_good, m->n_state * sizeof *x);
        }
        if (cb && cb(ctx, &v) != 0) {
            res->status = SM_IO_ERROR;
            break;
        }
    }
    sm_scratch_give(ws, SM_SCRATCH_DIAGRAM, block);
    return res->status;
}
