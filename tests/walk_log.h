/* The samples of a simulated walk, kept by an sm_observer (.sample =
 * walk_log_sample, .ctx = a walk_log): time, phase and the whole state of
 * each, up to WALK_LOG_ROWS of them; walk_log_step fills one from a step of
 * a model's guess.  Define WALK_LOG_ROWS and WALK_LOG_NX (the state's
 * length) before including. */
#ifndef WALK_LOG_H
#define WALK_LOG_H

#include <stddef.h>
#include <string.h>

#include "stridemap/stride.h"
#include "test_util.h"

typedef struct {
    size_t n;
    double t[WALK_LOG_ROWS];
    size_t phase[WALK_LOG_ROWS];
    double x[WALK_LOG_ROWS][WALK_LOG_NX];
} walk_log;

static int walk_log_sample(void *ctx, double t, size_t phase, const double *x)
{
    walk_log *w = ctx;
    if (w->n < WALK_LOG_ROWS) {
        w->t[w->n] = t;
        w->phase[w->n] = phase;
        memcpy(w->x[w->n], x, sizeof w->x[0]);
        w->n++;
    }
    return 0;
}

/* One step of m from its guess at p, sampled every dt into w (emptied
 * first), at rtol = atol = tol, or the solver's defaults for tol 0. */
static void walk_log_step(const sm_model *m, const double *p, double tol, double dt, walk_log *w)
{
    sm_solver_options so;
    sm_solver_options_default(&so);
    if (tol > 0) so.rtol = so.atol = tol;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &so, &ws), SM_OK);
    w->n = 0;
    const sm_observer obs = {.dt = dt, .sample = walk_log_sample, .ctx = w};
    double x[SM_MAX_STATE];
    m->guess(x, p, m->data);
    long done = 0;
    assert_status(sm_walk(ws, p, x, 1, &obs, NULL, NULL, &done), SM_OK);
    sm_workspace_free(ws);
}

#endif
