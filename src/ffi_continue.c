/* The flat interface's continuation: 'stridemap continue' into tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ffi_internal.h"

const char *sm_ffi_point_type(int code)
{
    return code >= SM_POINT_REGULAR && code <= SM_POINT_MX ? sm_point_label((sm_point_type)code) : NULL;
}

const char *sm_ffi_stop_name(int code)
{
    return code >= SM_STOP_BOUND && code <= SM_STOP_CALLBACK ? sm_cont_stop_name((sm_cont_stop)code) : NULL;
}

typedef struct {
    sm_ffi_table *points, *branches;
    bool no_memory;
} sink;

static int on_point(void *ctx, int branch, const sm_cont_point *pt)
{
    sink *s = ctx;
    double *r = ffi_table_row(s->points);
    if (!r) {
        s->no_memory = true;
        return 1;
    }
    size_t j = 0;
    r[j++] = branch;
    r[j++] = pt->period;
    r[j++] = pt->mu;
    r[j++] = pt->type;
    for (size_t i = 0; i < pt->n_state; i++) r[j++] = pt->x[i];
    /* As the program's CSV: no multipliers at a point without a gait. */
    const bool have_eig = pt->status == SM_OK || pt->type != SM_POINT_MX;
    for (size_t k = 0; k < pt->n_free; k++) {
        r[j++] = have_eig ? pt->eig_re[k] : NAN;
        r[j++] = have_eig ? pt->eig_im[k] : NAN;
    }
    r[j++] = have_eig ? pt->max_abs_eig : NAN;
    r[j++] = pt->type == SM_POINT_MX ? 0 : pt->stable;
    r[j++] = pt->metrics.period;
    r[j++] = pt->metrics.step_length;
    r[j++] = pt->metrics.speed;
    r[j++] = pt->metrics.impact_energy_loss;
    r[j++] = pt->iterations;
    r[j++] = pt->residual;
    r[j++] = pt->arclength;
    r[j++] = pt->status;
    return 0;
}

static void on_branch(void *ctx, const sm_cont_branch *b)
{
    sink *s = ctx;
    double *r = ffi_table_row(s->branches);
    if (!r) {
        s->no_memory = true;
        return;
    }
    const double v[] = {b->index, b->o->period, b->parent, b->parent_pd, b->start_mu, b->r->stop,
                        b->r->status, b->r->stride_status, b->r->stop_mu, b->r->n_points,
                        (double)b->r->stride_evals};
    memcpy(r, v, sizeof v);
}

static const char *const branch_columns[] = {"branch", "period", "parent", "parent_pd", "start", "stop", "status",
                                             "stride_status", "stop_value", "points", "stride_evaluations"};
#define N_BRANCH_COLUMNS (sizeof branch_columns / sizeof *branch_columns)

/* The columns of 'stridemap continue's CSV. */
static sm_ffi_table *points_table(const sm_model *m, const char *param)
{
    const size_t cols = 4 + m->n_state + 2 * m->n_free + 10;
    sm_ffi_table *t = ffi_table_new(cols, 64);
    if (!t) return NULL;
    char name[64];
    size_t j = 0;
    bool ok = ffi_table_name(t, j++, "branch") && ffi_table_name(t, j++, "period") &&
              ffi_table_name(t, j++, param) && ffi_table_name(t, j++, "type");
    for (size_t i = 0; ok && i < m->n_state; i++) ok = ffi_table_name(t, j++, m->state_names[i]);
    for (size_t k = 0; ok && k < m->n_free; k++) {
        snprintf(name, sizeof name, "eig%zu_re", k + 1);
        ok = ffi_table_name(t, j++, name);
        snprintf(name, sizeof name, "eig%zu_im", k + 1);
        ok = ok && ffi_table_name(t, j++, name);
    }
    static const char *const tail[] = {"max_abs_eig", "stable",     "step_period", "step_length", "speed",
                                       "impact_energy_loss", "iterations", "residual", "arclength", "status"};
    for (size_t i = 0; ok && i < 10; i++) ok = ffi_table_name(t, j++, tail[i]);
    if (!ok) {
        sm_ffi_table_free(t);
        return NULL;
    }
    return t;
}

/* The library's message in the handle's words: its settings are the
 * fields of sm_cont_steps by their bare names. */
static char *settings_text(char *text)
{
    static const char prefix[] = "sm_cont_steps.";
    char *o = text;
    for (const char *t = text; *t;)
        if (strncmp(t, prefix, sizeof prefix - 1) == 0) t += sizeof prefix - 1;
        else *o++ = *t++;
    *o = '\0';
    return text;
}

/* The continuation's options from the handle's settings, as the stridemap
 * program makes them from its flags (cmd_continue.c). */
static int options(sm_ffi_model *h, size_t ip, double from, double to, const sm_newton_options *newton,
                   sm_cont_options *o)
{
    const ffi_cont_settings *s = &h->cont;
    sm_cont_options_default(o, h->m, ip);
    o->lo = fmin(from, to);
    o->hi = fmax(from, to);
    o->direction = to > from ? +1 : -1;
    o->period = newton->period;
    o->weight = s->weight;
    const sm_cont_steps steps = {.step = s->step, .step_min = s->step_min, .step_max = s->step_max,
                                 .have_step = s->have_step, .have_step_min = s->have_step_min,
                                 .have_step_max = s->have_step_max};
    char why[512];
    if (sm_cont_steps_apply(&steps, from, to, o, why, sizeof why) != SM_OK)
        return ffi_fail(h, SM_BAD_OPTION, "%s", settings_text(why));
    o->max_points = (int)s->max_points;
    o->tol = newton->tol;
    o->max_iter = (int)s->corrector_iter;
    o->fd_step = newton->fd_step;
    o->locate = s->locate;
    o->locate_tol = s->locate_tol;
    o->start = *newton;
    o->update = newton->update;
    return sm_cont_options_check(o, h->m, h->why, sizeof h->why);
}

int sm_ffi_continue(sm_ffi_model *h, const char *param, double from, double to, const double *guess,
                    sm_ffi_table **points, sm_ffi_table **branches)
{
    *points = *branches = NULL;
    const sm_model *m = h->m;
    h->why[0] = '\0';
    const int ip = sm_model_param_index(m, param);
    if (ip < 0)
        return ffi_fail(h, SM_UNKNOWN_PARAM, "model '%s' has no parameter '%s' (see the parameters of model %s)",
                        m->name, param, m->name);
    if (m->params[ip].flags & SM_PARAM_INTEGER)
        return ffi_fail(h, SM_BAD_PARAM, "parameter '%s' of model '%s' is a whole number; continuation needs a real one",
                        param, m->name);
    double p[SM_MAX_PARAMS];
    memcpy(p, h->params, m->n_params * sizeof *p);
    if (isnan(from)) from = p[ip];
    if (isnan(to)) to = m->params[ip].max;
    char why[512];
    if (sm_model_check_param(m, (size_t)ip, from, why, sizeof why) != SM_OK)
        return ffi_fail(h, SM_BAD_PARAM, "start of '%s': %s", param, why);
    if (sm_model_check_param(m, (size_t)ip, to, why, sizeof why) != SM_OK)
        return ffi_fail(h, SM_BAD_PARAM, "end of '%s': %s", param, why);
    if (to == from)
        return ffi_fail(h, SM_BAD_OPTION, "the start and end of '%s' are both %g; give two different values", param,
                        from);
    const double held = h->params[ip];
    h->params[ip] = from;
    sm_solver_options solver;
    sm_newton_options newton;
    sm_cont_options o;
    double x[SM_MAX_STATE];
    int st = ffi_settings(h, &solver, &newton);
    if (st == SM_OK) st = ffi_start_state(h, guess, x);
    memcpy(p, h->params, m->n_params * sizeof *p);
    h->params[ip] = held;
    if (st == SM_OK) st = options(h, (size_t)ip, from, to, &newton, &o);
    if (st != SM_OK) return st;

    sink s = {.points = points_table(m, param), .branches = ffi_table_new(N_BRANCH_COLUMNS, 4)};
    for (size_t j = 0; s.branches && j < N_BRANCH_COLUMNS; j++)
        if (!ffi_table_name(s.branches, j, branch_columns[j])) s.no_memory = true;
    sm_workspace *ws = NULL;
    if (!s.points || !s.branches || s.no_memory) st = ffi_fail(h, SM_NO_MEMORY, "out of memory");
    if (st == SM_OK) st = sm_workspace_create_ex(m, &solver, &ws, h->why, sizeof h->why);
    if (st != SM_OK) {
        sm_ffi_table_free(s.points);
        sm_ffi_table_free(s.branches);
        return st;
    }
    sm_cont_tree_options t;
    sm_cont_tree_options_default(&t);
    t.do_switch = h->cont.do_switch;
    t.max_period = (int)h->cont.max_period;
    t.amplitude = h->cont.amplitude;
    const sm_cont_tree_fns fns = {.point = on_point, .branch = on_branch, .ctx = &s};
    sm_cont_tree_result tr;
    st = sm_cont_tree(ws, p, x, &o, &t, &fns, &tr);
    sm_workspace_free(ws);
    if (st == SM_NO_MEMORY || s.no_memory) st = ffi_fail(h, SM_NO_MEMORY, "out of memory");
    if (st != SM_OK && (sm_status_kind(st) == SM_KIND_INPUT || st == SM_NO_MEMORY)) {
        sm_ffi_table_free(s.points);
        sm_ffi_table_free(s.branches);
        return st;
    }
    *points = s.points;
    *branches = s.branches;
    return st;
}
