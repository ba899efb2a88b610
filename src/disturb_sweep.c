/* The disturbance search over a grid of parameters: the sweep task of
 * disturb.h (sm_disturb_sweep), one row per point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stridemap/disturb.h"
#include "sweep_internal.h"

#define N_SIDE_COLS 8

struct sm_disturb_sweep {
    sm_sweep_config c; /* the model, fixed parameters, grid, solver, Newton options and guess */
    size_t param;
    double from, to;
    sm_disturb_options o;
    long total;
    size_t n_cols;
    sm_sweep_task task;
};

static size_t task_header(void *ctx, char *buf, size_t len);
static size_t task_signature(void *ctx, char *buf, size_t len);
static bool task_load_row(void *ctx, const char *line, size_t len, long *index);
static size_t task_point(void *ctx, sm_workspace *ws, long idx, long unit_first, char *buf, size_t len, bool *failed);

sm_status sm_disturb_sweep_create(const sm_sweep_config *c, size_t param, double from, double to,
                                  const sm_disturb_options *o, sm_disturb_sweep **out, char *why, size_t why_len)
{
    *out = NULL;
    const sm_model *m = c->model;
    sm_status st = sm_disturb_options_check(o, why, why_len);
    if (st != SM_OK) return st;
    if (!sm_param_is_disturbance(m, param)) {
        snprintf(why, why_len, "%s is not a disturbance of model %s", param < m->n_params ? m->params[param].name : "?",
                 m->name);
        return SM_BAD_PARAM;
    }
    for (size_t k = 0; k < c->grid.n_axes; k++)
        if (c->grid.axis[k].param == param) {
            snprintf(why, why_len, "sm_sweep_config.grid: the disturbance %s cannot be an axis (it is searched)",
                     m->params[param].name);
            return SM_BAD_OPTION;
        }
    /* The trials compare with one section state: a period-1 gait's. */
    if (c->newton.period != 1) {
        snprintf(why, why_len, "sm_newton_options.period must be 1 for a disturbance search, not %d",
                 c->newton.period);
        return SM_BAD_OPTION;
    }
    if (!isfinite(from) || !isfinite(to) || !(from <= 0 && 0 <= to && from < to)) {
        snprintf(why, why_len, "a disturbance range needs from <= 0 <= to and from < to, not from %g, to %g", from, to);
        return SM_BAD_OPTION;
    }
    const sm_param_def *d = &m->params[param];
    if (c->params[param] + from < d->min || c->params[param] + to > d->max) {
        snprintf(why, why_len, "%s goes from %g to %g here, outside its range [%g, %g]", d->name,
                 c->params[param] + from, c->params[param] + to, d->min, d->max);
        return SM_BAD_PARAM;
    }
    sm_disturb_sweep *s = calloc(1, sizeof *s);
    if (!s) return SM_NO_MEMORY;
    s->c = *c;
    s->c.task = NULL;
    s->param = param;
    s->from = from;
    s->to = to;
    s->o = *o;
    s->total = sm_sweep_grid_points(&c->grid);
    s->n_cols = 1 + c->grid.n_axes + 4 + 2 * N_SIDE_COLS + 2 + m->n_state + 1;
    s->task = (sm_sweep_task){s, task_header, task_signature, task_load_row, task_point};
    *out = s;
    return SM_OK;
}

void sm_disturb_sweep_free(sm_disturb_sweep *s) { free(s); }

const sm_sweep_task *sm_disturb_sweep_task(sm_disturb_sweep *s) { return &s->task; }

/* ",NAME" as one RFC 4180 field (names come from model files). */
static void put_field(sweep_out *o, const char *prefix, const char *name)
{
    if (!strpbrk(name, ",\"\r\n") && !strpbrk(prefix, ",\"\r\n")) {
        sweep_put(o, ",%s%s", prefix, name);
        return;
    }
    sweep_put(o, ",\"");
    for (int pass = 0; pass < 2; pass++)
        for (const char *p = pass ? name : prefix; *p; p++) sweep_put(o, *p == '"' ? "\"\"" : "%c", *p);
    sweep_put(o, "\"");
}

static size_t task_header(void *ctx, char *buf, size_t len)
{
    const sm_disturb_sweep *s = ctx;
    const sm_model *m = s->c.model;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "index");
    for (size_t k = 0; k < s->c.grid.n_axes; k++) put_field(&o, "", s->c.grid.axis[k].name);
    sweep_put(&o, ",outcome,status,max_abs_eig,stable");
    static const char *const side_cols[N_SIDE_COLS] = {"survives", "fails",       "width",          "failure",
                                                       "failure_strides", "return_strides", "bisections", "strides"};
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < N_SIDE_COLS; k++) sweep_put(&o, ",%s_%s", side ? "pos" : "neg", side_cols[k]);
    sweep_put(&o, ",gsn,gsn_reason");
    for (size_t k = 0; k < m->n_state; k++) put_field(&o, "x_", m->state_names[k]);
    sweep_put(&o, ",wall_s\n");
    return o.ok ? o.pos : 0;
}

static size_t task_signature(void *ctx, char *buf, size_t len)
{
    const sm_disturb_sweep *s = ctx;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "disturb.param\t%s\ndisturb.from\t%.17g\ndisturb.to\t%.17g\n", s->c.model->params[s->param].name,
              s->from, s->to);
    sweep_put(&o, "disturb.max_strides\t%ld\ndisturb.return_tol\t%.17g\ndisturb.bisect_tol\t%.17g\n", s->o.max_strides,
              s->o.return_tol, s->o.bisect_tol);
    sweep_put(&o, "disturb.max_bisections\t%d\ndisturb.scan_points\t%d\n", s->o.max_bisections, s->o.scan_points);
    /* how a point's gait is found: from the guess, whatever its neighbours found */
    sweep_put(&o, "disturb.seed\tguess\n");
    return o.ok ? o.pos : 0;
}

static bool task_load_row(void *ctx, const char *line, size_t len, long *index)
{
    const sm_disturb_sweep *s = ctx;
    if (sweep_csv_fields(line, len) != s->n_cols) return false;
    char num[32];
    const char *comma = memchr(line, ',', len);
    const size_t n = comma ? (size_t)(comma - line) : 0;
    if (n == 0 || n >= sizeof num) return false;
    memcpy(num, line, n);
    num[n] = '\0';
    char *e;
    const long idx = strtol(num, &e, 10);
    if (*e || idx < 0 || idx >= s->total) return false;
    *index = idx;
    return true;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void put_num(sweep_out *o, double v) { sweep_put(o, ",%.17g", v); }

/* Empty fields say "does not apply": no side searched, no failure, no reason. */
static void put_side(sweep_out *o, const sm_disturb_side *d)
{
    if (!d->searched) {
        sweep_put(o, ",nan,nan,nan,,,,,");
        return;
    }
    put_num(o, d->survives);
    put_num(o, d->fails);
    put_num(o, d->width);
    if (d->failure == SM_OK)
        sweep_put(o, ",,");
    else
        sweep_put(o, ",%s,%ld", sm_status_name(d->failure), d->failure_strides);
    sweep_put(o, ",%ld,%d,%ld", d->return_strides, d->bisections, d->strides);
}

static size_t task_point(void *ctx, sm_workspace *ws, long idx, long unit_first, char *buf, size_t len, bool *failed)
{
    (void)unit_first; /* every point stands alone: its gait from the guess, as 'disturb' finds it */
    const sm_disturb_sweep *s = ctx;
    const sm_model *m = s->c.model;
    const double t0 = now_seconds();
    /* sm_sweep_point holds SM_MAX_STATE^2 Jacobians: too large for a worker's stack */
    sm_sweep_point *pt = calloc(1, sizeof *pt);
    if (!pt) return 0;
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    memcpy(p, s->c.params, m->n_params * sizeof *p);
    sm_sweep_grid_values(&s->c.grid, idx, pt->values);
    for (size_t k = 0; k < s->c.grid.n_axes; k++) p[s->c.grid.axis[k].param] = pt->values[k];
    pt->index = idx;
    sm_fixed_result *r = &pt->r;
    char why[256];
    sm_disturb_side neg = {0}, pos = {0};
    sm_gsn_result g = {.status = SM_NOT_CONVERGED, .gsn = NAN, .why = SM_GSN_FAILED};
    bool searched = false;
    if (sm_model_check_params(m, p, why, sizeof why) != SM_OK) {
        /* a corner of the grid the model does not admit: a row that says so */
        r->status = SM_BAD_PARAM;
        r->stride_status = SM_OK;
        r->max_abs_eig = NAN;
        for (size_t i = 0; i < m->n_state; i++) r->x[i] = NAN;
    } else {
        if (s->c.have_guess)
            memcpy(x0, s->c.guess, m->n_state * sizeof *x0);
        else
            m->guess(x0, p, m->data);
        sm_fixed_point(ws, p, x0, &s->c.newton, r);
        if (r->converged && r->status == SM_OK) {
            searched = true;
            const sm_status st =
                sm_disturb_search(ws, p, s->param, r->x, s->from, s->to, &s->o, &neg, &pos, why, sizeof why);
            if (st != SM_OK) {
                /* the solver could not be set up for a trial: no answer at this point */
                searched = false;
                r->status = st;
                memset(&neg, 0, sizeof neg);
                memset(&pos, 0, sizeof pos);
            } else {
                sm_gsn_options go;
                sm_gsn_options_default(&go);
                sm_gsn(ws, p, &r->gait, s->param, &go, &g);
            }
        }
    }
    const bool have_eig = r->converged && r->status == SM_OK;
    *failed = !searched;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "%ld", idx);
    for (size_t k = 0; k < s->c.grid.n_axes; k++) put_num(&o, pt->values[k]);
    sweep_put(&o, ",%s,%s", sm_sweep_outcome_name(sm_sweep_point_outcome(pt)), sm_status_name(r->status));
    put_num(&o, have_eig ? r->max_abs_eig : NAN);
    sweep_put(&o, ",%d", have_eig && r->stable ? 1 : 0);
    put_side(&o, &neg);
    put_side(&o, &pos);
    const bool gsn_defined = searched && g.status == SM_OK && isfinite(g.gsn);
    put_num(&o, gsn_defined ? g.gsn : NAN);
    sweep_put(&o, ",%s", searched && !gsn_defined ? sm_gsn_why_name(g.why) : "");
    for (size_t k = 0; k < m->n_state; k++) put_num(&o, r->x[k]);
    sweep_put(&o, ",%.6f\n", now_seconds() - t0);
    free(pt);
    return o.ok ? o.pos : 0;
}
