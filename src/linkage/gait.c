/* Garcia's Table 2.1 characteristics of a kneed gait that are not generic
 * gait measures: the minimum locking torque on the stance knee during the
 * step and the impulsive torque on the new stance knee at heel-strike. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "stridemap/hybrid.h"
#include "stridemap/stride.h"

typedef struct {
    const sm_linkage *lk;
    const double *p;
    double min_lock, impulse;
} knee_watch;

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    knee_watch *w = ctx;
    const double T = sm_linkage_knee_lock_torque(w->lk, w->p, phase, x);
    if (T < w->min_lock) w->min_lock = T;
    return 0;
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    knee_watch *w = ctx;
    on_sample(ctx, t, phase, xm);
    if (strcmp(name, "heelstrike") == 0) w->impulse = sm_linkage_heelstrike_knee_impulse(w->lk, w->p, xm, xp);
    return 0;
}

sm_status sm_linkage_knee_measures(const sm_model *m, const sm_solver_options *o, const double *p,
                                   const double *x, double *min_lock, double *hs_impulse)
{
    *min_lock = *hs_impulse = NAN;
    const sm_linkage *lk = sm_linkage_of(m);
    if (!lk || lk->n_links != 2) return SM_OK;
    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, o, &ws);
    if (st != SM_OK) return st;
    knee_watch w = {lk, p, INFINITY, NAN};
    /* the stance-knee check may end the stride: measure with it as data */
    sm_observer obs = {.dt = 1e-3 * m->time_limit(p, m->data), .sample = on_sample, .event = on_event, .ctx = &w};
    double y[SM_MAX_STATE];
    on_sample(&w, 0.0, m->start_phase, x);
    st = sm_stride(ws, p, x, y, NULL, &obs);
    sm_workspace_free(ws);
    if (st == SM_OK) {
        *min_lock = w.min_lock;
        *hs_impulse = w.impulse;
    }
    return st;
}

static const char *const knee_names[] = {"min_lock_torque", "heelstrike_impulse"};
static const char *const knee_labels[] = {"stance-knee locking torque min",
                                          "impulse on the new stance knee at heel-strike"};

static sm_status knee_extra(sm_workspace *ws, const double *p, const double *x, double *values)
{
    return sm_linkage_knee_measures(sm_workspace_model(ws), sm_workspace_options(ws), p, x, &values[0], &values[1]);
}

void sm_linkage_set_extra_measures(sm_model *m)
{
    m->extra_group = "knee";
    m->n_extra = 2;
    m->extra_names = knee_names;
    m->extra_labels = knee_labels;
    m->extra_measures = knee_extra;
}
