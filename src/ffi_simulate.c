/* The flat interface's trajectories: 'stridemap simulate' into tables. */
#include <math.h>
#include <string.h>

#include "ffi_internal.h"

/* Samples per step kept at most, as the stridemap program bounds them. */
#define FFI_MAX_SAMPLES_PER_STEP 1000000

enum { KIND_START, KIND_SAMPLE, KIND_PRE, KIND_POST, KIND_FAIL, KIND_COUNT };
static const char *const kinds[KIND_COUNT] = {"start", "sample", "pre", "post", "fail"};

const char *sm_ffi_row_kind(int code) { return code >= 0 && code < KIND_COUNT ? kinds[code] : NULL; }

typedef struct {
    const sm_model *m;
    const double *p;
    sm_ffi_table *rows, *steps;
    size_t per_step; /* rows one step can add at most */
    double t0;
    long step;
    bool full, no_memory;
} sink;

/* Rows go into room reserved between steps: nothing is allocated while a
 * stride is integrated. */
static int row(sink *s, int kind, double t, size_t phase, long event, const double *x)
{
    if (!ffi_table_has_room(s->rows)) {
        s->full = true;
        return 1;
    }
    const sm_model *m = s->m;
    double *r = ffi_table_row(s->rows);
    r[0] = kind;
    r[1] = (double)s->step;
    r[2] = s->t0 + t;
    r[3] = (double)phase;
    r[4] = (double)event;
    memcpy(r + 5, x, m->n_state * sizeof *r);
    if (m->n_sample && m->sample(t, phase, x, s->p, m->data, r + 5 + m->n_state) != 0)
        for (size_t i = 0; i < m->n_sample; i++) r[5 + m->n_state + i] = NAN;
    return 0;
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    return row(ctx, KIND_SAMPLE, t, phase, -1, x);
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    sink *s = ctx;
    const sm_event *ev = NULL;
    long id = 0;
    for (size_t q = 0; q < s->m->n_phases && !ev; q++) {
        const sm_phase *P = &s->m->phases[q];
        for (size_t e = 0; e < P->n_events && !ev; e++)
            if (q == phase && strcmp(P->events[e].name, name) == 0) ev = &P->events[e];
            else id++;
    }
    if (!ev) id = -1;
    if (ev && ev->outcome == SM_EVENT_FAIL) return row(s, KIND_FAIL, t, phase, id, xm);
    const size_t next = ev && ev->outcome == SM_EVENT_TO_PHASE ? ev->next_phase : s->m->start_phase;
    return row(s, KIND_PRE, t, phase, id, xm) || row(s, KIND_POST, t, next, id, xp);
}

static int step_done(void *ctx, long k, const sm_step_metrics *mt)
{
    sink *s = ctx;
    double *r = ffi_table_row(s->steps);
    if (!r || !ffi_table_reserve(s->rows, s->per_step)) {
        s->no_memory = true;
        return 1;
    }
    r[0] = (double)k;
    for (size_t i = 0; i < sm_metric_field_count; i++) r[1 + i] = sm_metric_value(mt, i);
    s->t0 += mt->period;
    s->step = k + 1;
    return 0;
}

static sm_ffi_table *named(sm_ffi_table *t, size_t j, const char *name)
{
    if (t && !ffi_table_name(t, j, name)) {
        sm_ffi_table_free(t);
        return NULL;
    }
    return t;
}

int sm_ffi_simulate(sm_ffi_model *h, const double *x0, long steps, double dt, sm_ffi_table **rows,
                    sm_ffi_table **steps_out, long *done)
{
    *rows = *steps_out = NULL;
    *done = 0;
    const sm_model *m = h->m;
    sm_solver_options solver;
    sm_newton_options newton;
    double x[SM_MAX_STATE];
    int st = ffi_settings(h, &solver, &newton);
    if (st == SM_OK) st = ffi_start_state(h, x0, x);
    if (st != SM_OK) return st;
    if (steps < 1 || steps > 1000000)
        return ffi_fail(h, SM_BAD_OPTION, "steps takes a whole number from 1 to 1000000, not %ld", steps);
    const double t_limit = solver.t_max > 0 ? solver.t_max : m->time_limit(h->params, m->data);
    if (dt == 0.0) dt = t_limit / 2000.0;
    if (!(dt > 0) || !isfinite(dt)) return ffi_fail(h, SM_BAD_OPTION, "dt takes a positive number, not %g", dt);
    /* A dt below the clock's resolution never advances at all. */
    if (!(t_limit / dt <= FFI_MAX_SAMPLES_PER_STEP))
        return ffi_fail(h, SM_BAD_OPTION,
                        "dt %g would keep up to %.3g samples per step (step time limit %g / dt); the bound is %d: "
                        "give a dt of %.3g or more, or a smaller t_max",
                        dt, t_limit / dt, t_limit, FFI_MAX_SAMPLES_PER_STEP, t_limit / FFI_MAX_SAMPLES_PER_STEP);

    /* A phase samples every dt from its start, and every event that counts
     * adds two rows (at most SM_MAX_EVENTS_PER_STRIDE per stride). */
    const size_t per_step = (size_t)(t_limit / dt) + 3 * (SM_MAX_EVENTS_PER_STRIDE + 2);
    const size_t cols = 5 + m->n_state + m->n_sample;
    sink s = {.m = m, .p = h->params, .per_step = per_step};
    s.rows = ffi_table_new(cols, 1 + per_step);
    s.steps = ffi_table_new(1 + sm_metric_field_count, 16);
    static const char *const head[] = {"kind", "step", "time", "phase", "event"};
    for (size_t j = 0; j < 5; j++) s.rows = named(s.rows, j, head[j]);
    for (size_t i = 0; i < m->n_state; i++) s.rows = named(s.rows, 5 + i, m->state_names[i]);
    for (size_t i = 0; i < m->n_sample; i++) s.rows = named(s.rows, 5 + m->n_state + i, m->sample_names[i]);
    s.steps = named(s.steps, 0, "step");
    for (size_t i = 0; i < sm_metric_field_count; i++) s.steps = named(s.steps, 1 + i, sm_metric_fields[i].output);
    sm_workspace *ws = NULL;
    if (!s.rows || !s.steps) st = ffi_fail(h, SM_NO_MEMORY, "out of memory");
    if (st == SM_OK) st = sm_workspace_create_ex(m, &solver, &ws, h->why, sizeof h->why);
    if (st != SM_OK) {
        sm_ffi_table_free(s.rows);
        sm_ffi_table_free(s.steps);
        return st;
    }
    sm_observer obs = {.dt = dt, .sample = on_sample, .event = on_event, .ctx = &s};
    row(&s, KIND_START, 0.0, m->start_phase, -1, x);
    st = sm_walk(ws, h->params, x, steps, &obs, step_done, &s, done);
    if (st != SM_OK && st != SM_IO_ERROR)
        ffi_fail(h, st, "step %ld ended with %s: %s%s%s", *done, sm_status_name(st), sm_strerror(st),
                 sm_workspace_detail(ws)[0] ? " -- " : "", sm_workspace_detail(ws));
    sm_workspace_free(ws);
    if (s.no_memory || s.full) {
        sm_ffi_table_free(s.rows);
        sm_ffi_table_free(s.steps);
        return ffi_fail(h, SM_NO_MEMORY, s.no_memory ? "out of memory" : "a step gave more rows than it can");
    }
    *rows = s.rows;
    *steps_out = s.steps;
    return st;
}
