/* The samples of a simulated walk, kept by an sm_observer (.sample =
 * walk_log_sample, .ctx = a walk_log): time, phase and the whole state of
 * each, up to WALK_LOG_ROWS of them.  Define WALK_LOG_ROWS and WALK_LOG_NX
 * (the state's length) before including. */
#ifndef WALK_LOG_H
#define WALK_LOG_H

#include <stddef.h>
#include <string.h>

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

#endif
