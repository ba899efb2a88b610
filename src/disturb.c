/* The largest one-step disturbance a gait survives: trials and the
 * bisection of include/stridemap/disturb.h. */
#include "stridemap/disturb.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool sm_param_is_disturbance(const sm_model *m, size_t i)
{
    return i < m->n_params && (m->params[i].flags & SM_PARAM_DISTURBANCE) != 0;
}

size_t sm_disturb_count(const sm_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_params; i++) n += sm_param_is_disturbance(m, i);
    return n;
}

sm_status sm_disturbed_stride(sm_workspace *ws, const double *p, size_t param, double d, const double *x_in,
                              double *x_out, sm_step_metrics *metrics)
{
    const sm_model *m = sm_workspace_model(ws);
    double q[SM_MAX_PARAMS];
    memcpy(q, p, m->n_params * sizeof *q);
    q[param] += d;
    return sm_stride(ws, q, x_in, x_out, metrics, NULL);
}

void sm_disturb_options_default(sm_disturb_options *o)
{
    o->max_strides = 100;
    o->return_tol = 1e-6;
    o->bisect_tol = 0.0;
    o->max_bisections = 60;
    o->scan_points = 20;
}

sm_status sm_disturb_options_check(const sm_disturb_options *o, char *why, size_t why_len)
{
    if (o->max_strides < 1) {
        snprintf(why, why_len, "sm_disturb_options.max_strides must be at least 1, not %ld", o->max_strides);
        return SM_BAD_OPTION;
    }
    if (!(o->return_tol > 0) || !isfinite(o->return_tol)) {
        snprintf(why, why_len, "sm_disturb_options.return_tol must be a positive number, not %g", o->return_tol);
        return SM_BAD_OPTION;
    }
    if (!(o->bisect_tol >= 0) || !isfinite(o->bisect_tol)) {
        snprintf(why, why_len, "sm_disturb_options.bisect_tol must be 0 or positive, not %g", o->bisect_tol);
        return SM_BAD_OPTION;
    }
    if (o->scan_points < 1 || o->scan_points > 100000) {
        snprintf(why, why_len, "sm_disturb_options.scan_points must be in [1, 100000], not %d", o->scan_points);
        return SM_BAD_OPTION;
    }
    if (o->max_bisections < 1 || o->max_bisections > 200) {
        snprintf(why, why_len, "sm_disturb_options.max_bisections must be in [1, 200], not %d", o->max_bisections);
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

/* In the section's free coordinates: the others need not come back (a
 * walker's position along the ground grows by a step each stride). */
static double distance(const sm_model *m, const double *x, const double *y)
{
    double d = 0;
    for (size_t k = 0; k < m->n_free; k++) d = fmax(d, fabs(x[m->free_index[k]] - y[m->free_index[k]]));
    return isnan(d) ? INFINITY : d;
}

sm_status sm_disturb_try(sm_workspace *ws, const double *p, size_t param, const double *x_star, double d,
                         const sm_disturb_options *o, long *strides)
{
    const sm_model *m = sm_workspace_model(ws);
    double x[SM_MAX_STATE];
    sm_status st = sm_disturbed_stride(ws, p, param, d, x_star, x, NULL);
    long k = 1;
    while (st == SM_OK) {
        /* the disturbed stride may end off the section (a floor step's
         * trailing foot): judged from the first nominal stride on */
        if (k >= 2 && distance(m, x, x_star) <= o->return_tol) break;
        if (k >= o->max_strides) {
            st = SM_NOT_RETURNED;
            break;
        }
        st = sm_stride(ws, p, x, x, NULL, NULL);
        k++;
    }
    *strides = k;
    return st;
}

/* A trial the solver gave up on (a state thrown far off) has not come back
 * either; only the caller's input or the output ends the search. */
static bool aborts(sm_status st)
{
    const sm_kind k = sm_status_kind(st);
    return k == SM_KIND_INPUT || k == SM_KIND_OUTPUT;
}

/* Scans (0, end] outward on scan_points equal steps to the first trial
 * that does not survive, then bisects between it and the step before:
 * survives is the last survivor, fails the last failure.  A walker's
 * survivors need not be an interval (a compass walker survives a step
 * down of 17 mm but not 15), and bisecting (0, end] at once could land on
 * the edge of a far island; the scan finds the first edge out from the
 * gait at its resolution. */
static sm_status search_side(sm_workspace *ws, const double *p, size_t param, const double *x_star, double end,
                             double tol, const sm_disturb_options *o, sm_disturb_side *s)
{
    memset(s, 0, sizeof *s);
    s->searched = true;
    long k = 0;
    double lo = 0, hi = end;
    /* the gait itself comes back at once, judged after one nominal stride */
    s->return_strides = 2;
    sm_status st = SM_OK;
    for (int j = 1; j <= o->scan_points; j++) {
        const double d = j == o->scan_points ? end : end * j / o->scan_points;
        st = sm_disturb_try(ws, p, param, x_star, d, o, &k);
        s->strides += k;
        if (aborts(st)) return st;
        if (st != SM_OK) {
            hi = d, s->failure = st, s->failure_strides = k;
            break;
        }
        lo = d, s->return_strides = k;
    }
    if (st == SM_OK) {
        s->survives = end, s->fails = NAN, s->width = 0, s->failure = SM_OK;
        return SM_OK;
    }
    while (fabs(hi - lo) > tol && s->bisections < o->max_bisections) {
        const double mid = 0.5 * (lo + hi);
        st = sm_disturb_try(ws, p, param, x_star, mid, o, &k);
        s->strides += k;
        s->bisections++;
        if (aborts(st)) return st;
        if (st == SM_OK) {
            lo = mid, s->return_strides = k;
        } else {
            hi = mid, s->failure = st, s->failure_strides = k;
        }
    }
    s->survives = lo, s->fails = hi, s->width = fabs(hi - lo);
    return SM_OK;
}

sm_status sm_disturb_search(sm_workspace *ws, const double *p, size_t param, const double *x_star, double from,
                            double to, const sm_disturb_options *o, sm_disturb_side *neg, sm_disturb_side *pos,
                            char *why, size_t why_len)
{
    const sm_model *m = sm_workspace_model(ws);
    memset(neg, 0, sizeof *neg);
    memset(pos, 0, sizeof *pos);
    sm_status st = sm_disturb_options_check(o, why, why_len);
    if (st != SM_OK) return st;
    if (!sm_param_is_disturbance(m, param)) {
        snprintf(why, why_len, "%s is not a disturbance of model %s", param < m->n_params ? m->params[param].name : "?",
                 m->name);
        return SM_BAD_PARAM;
    }
    if (!isfinite(from) || !isfinite(to) || !(from <= 0 && 0 <= to && from < to)) {
        snprintf(why, why_len, "a disturbance range needs from <= 0 <= to and from < to, not from %g, to %g", from, to);
        return SM_BAD_OPTION;
    }
    const sm_param_def *d = &m->params[param];
    if (p[param] + from < d->min || p[param] + to > d->max) {
        snprintf(why, why_len, "%s goes from %g to %g here, outside its range [%g, %g]", d->name, p[param] + from,
                 p[param] + to, d->min, d->max);
        return SM_BAD_PARAM;
    }
    const double tol = o->bisect_tol > 0 ? o->bisect_tol : 1e-6 * fmax(fabs(from), fabs(to));
    if (from < 0 && (st = search_side(ws, p, param, x_star, from, tol, o, neg)) != SM_OK) return st;
    if (to > 0 && (st = search_side(ws, p, param, x_star, to, tol, o, pos)) != SM_OK) return st;
    return SM_OK;
}
