/* The lateral measures of a 3-D body walker, appended to its extra group
 * "ground" (ground.c) so that `fixed` reports them beside the forces:
 *   step_width     the two touching contacts' separation across the heading
 *                  (in the slope's plane, perpendicular to the heading
 *                  coordinate's direction) at the section: for two parallel
 *                  disk feet w apart on a hip axis leaning by phi it is
 *                  w / cos(phi) whatever the radius, since both disks' lowest
 *                  points lie the same way from their centres
 *   hip_sway       max - min of the hip site's cross-slope position (y) over
 *                  the step, before the mirror
 *   heading_drift  the heading coordinate after the step (mirror included)
 *                  less before it: 0 on a gait, a zig-zag's turn cancels
 *   yaw_range,     max - min of the heading coordinate and of the lean (the
 *   roll_range     first hinge about the walker's forward axis) over the step
 * The heading and lean coordinates are read from the joints' modes
 * (modes.c); without them the ranges are NaN and the width is taken across
 * the slope's x. */
#include <math.h>
#include <string.h>

#include "body_model.h"
#include "stridemap/hybrid.h"
#include "stridemap/stride.h"

enum { L_STEP_WIDTH, L_HIP_SWAY, L_HEADING_DRIFT, L_YAW_RANGE, L_ROLL_RANGE, L_COUNT };

static const char *const lateral_names[L_COUNT] = {"step_width", "hip_sway", "heading_drift", "yaw_range",
                                                   "roll_range"};
static const char *const lateral_labels[L_COUNT] = {
    "step width across the heading at the section (m)", "hip's sideways sway over the step (m)",
    "heading drift per step, mirror included (rad)", "heading's range over the step (rad)",
    "lean's range over the step (rad)"};

typedef struct {
    const body_model *bm;
    const double *p;
    double lo[3], hi[3]; /* hip y, yaw, roll */
} lateral_watch;

static void watch(lateral_watch *w, const double *x)
{
    const body_model *bm = w->bm;
    const double val[2] = {bm->lat_yaw >= 0 ? x[bm->lat_yaw] : NAN, bm->lat_roll >= 0 ? x[bm->lat_roll] : NAN};
    for (size_t k = 0; k < 2; k++) {
        w->lo[k + 1] = fmin(w->lo[k + 1], val[k]);
        w->hi[k + 1] = fmax(w->hi[k + 1], val[k]);
    }
    if (bm->f->hip_site < 0) return;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, w->p, mem, NULL, 0) != SM_OK || sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK)
        return;
    double pos[3];
    sm_rigid_site_pos(e.m, e.d, (size_t)bm->f->hip_site, pos);
    w->lo[0] = fmin(w->lo[0], pos[1]);
    w->hi[0] = fmax(w->hi[0], pos[1]);
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    lateral_watch *w = ctx;
    (void)t, (void)phase;
    BODY_FULL(w->bm, w->p, x, return 0);
    watch(w, x);
    return 0;
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)xp; /* after a relabel: the mirrored walker, another frame */
    (void)name;
    return on_sample(ctx, t, phase, xm);
}

/* The origin contact's and the other touching contact's separation across
 * the heading at x (full state); NaN if the section names no second one. */
static double step_width(const body_model *bm, const double *p, const double *x)
{
    const body_file *f = bm->f;
    int other = -1;
    for (size_t i = 0; i < f->n_touching && other < 0; i++)
        if (f->touching[i] != f->origin) other = f->touching[i];
    if (other < 0 || f->origin < 0) return NAN;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, NULL, 0) != SM_OK || sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK)
        return NAN;
    double a[3], b[3];
    sm_contact c;
    body_contact_at(&e, (size_t)f->origin, NULL, &c);
    sm_contact_gap(e.m, e.d, x, &c, a);
    body_contact_at(&e, (size_t)other, NULL, &c);
    sm_contact_gap(e.m, e.d, x, &c, b);
    const double psi = bm->lat_yaw >= 0 ? x[bm->lat_yaw] : 0.0;
    return fabs(-sin(psi) * (b[0] - a[0]) + cos(psi) * (b[1] - a[1]));
}

static sm_status lateral_extra(sm_workspace *ws, const double *p, const double *x, double *values)
{
    const sm_model *m = sm_workspace_model(ws);
    const body_model *bm = m->data;
    sm_status st = bm->ground_extra(ws, p, x, values);
    if (st != SM_OK) return st;
    lateral_watch w = {.bm = bm, .p = p};
    for (size_t k = 0; k < 3; k++) w.lo[k] = INFINITY, w.hi[k] = -INFINITY;
    const double *x0 = x;
    BODY_FULL(bm, p, x0, return SM_BAD_STATE);
    watch(&w, x0);
    sm_observer obs = {.dt = 1e-3 * m->time_limit(p, m->data), .sample = on_sample, .event = on_event, .ctx = &w};
    double y[SM_MAX_STATE];
    st = sm_stride(ws, p, x, y, NULL, &obs);
    if (st != SM_OK) return st;
    const double *y0 = y;
    BODY_FULL(bm, p, y0, return SM_BAD_STATE);
    double *v = &values[bm->lateral_slot];
    v[L_STEP_WIDTH] = step_width(bm, p, x0);
    v[L_HIP_SWAY] = w.hi[0] - w.lo[0];
    v[L_HEADING_DRIFT] = bm->lat_yaw >= 0 ? y0[bm->lat_yaw] - x0[bm->lat_yaw] : NAN;
    v[L_YAW_RANGE] = w.hi[1] - w.lo[1];
    v[L_ROLL_RANGE] = w.hi[2] - w.lo[2];
    for (size_t k = 0; k < L_COUNT; k++)
        if (!isfinite(v[k])) v[k] = NAN;
    return SM_OK;
}

size_t body_lateral_measure_count(const body_model *bm) { return bm->planar ? 0 : L_COUNT; }

sm_status body_set_lateral_measures(body_model *bm)
{
    sm_model *m = &bm->model;
    bm->lateral_slot = -1;
    if (bm->planar || !m->extra_measures) return SM_OK;
    if (m->n_extra + L_COUNT > SM_MAX_EXTRA) return SM_BAD_MODEL_FILE; /* the loader checked: never */
    body_lateral_coords(bm->f, &bm->lat_yaw, &bm->lat_roll);
    bm->lateral_slot = (int)m->n_extra;
    for (size_t k = 0; k < L_COUNT; k++) {
        bm->extra_names[m->n_extra + k] = lateral_names[k];
        bm->extra_labels[m->n_extra + k] = lateral_labels[k];
    }
    m->n_extra += L_COUNT;
    bm->ground_extra = m->extra_measures;
    m->extra_measures = lateral_extra;
    return SM_OK;
}
