/* The flat interface's sweeps: sweep.h's driver, polled, then merged. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_internal.h"

struct sm_ffi_sweep {
    sm_ffi_model *h;
    sm_sweep_config c;
    sm_sweep *s;
    volatile sig_atomic_t stop;
    long total;
    char dir[1024];
};

static int fail_free(sm_ffi_sweep *w, int st)
{
    sm_sweep_free(w->s);
    free(w);
    return st;
}

int sm_ffi_sweep_start(sm_ffi_model *h, size_t n_axes, const char *const *specs, const char *dir,
                       const double *guess, int jobs, int resume, sm_ffi_sweep **out)
{
    *out = NULL;
    sm_ffi_sweep *w = calloc(1, sizeof *w);
    if (!w) return ffi_fail(h, SM_NO_MEMORY, "out of memory");
    w->h = h;
    if (snprintf(w->dir, sizeof w->dir, "%s", dir) >= (int)sizeof w->dir)
        return fail_free(w, ffi_fail(h, SM_BAD_OPTION, "the sweep directory's path is too long"));
    sm_sweep_config *c = &w->c;
    sm_sweep_config_default(c, h->m);
    int st = ffi_settings(h, &c->solver, &c->newton);
    if (st != SM_OK) return fail_free(w, st);
    memcpy(c->params, h->params, sizeof c->params);
    if (guess) {
        c->have_guess = true;
        if ((st = ffi_start_state(h, guess, c->guess)) != SM_OK) return fail_free(w, st);
    }
    if (n_axes == 0) return fail_free(w, ffi_fail(h, SM_BAD_OPTION, "a sweep needs at least one axis in its grid"));
    for (size_t i = 0; i < n_axes; i++) {
        sm_sweep_axis a;
        st = sm_sweep_axis_parse(h->m, specs[i], &a, h->why, sizeof h->why);
        if (st == SM_OK) st = sm_sweep_grid_add(&c->grid, &a, h->why, sizeof h->why);
        if (st != SM_OK) return fail_free(w, st);
    }
    c->jobs = jobs;
    c->stop = &w->stop;
    w->total = sm_sweep_grid_points(&c->grid);
    st = sm_sweep_open(c, w->dir, "local", resume != 0, &w->s, h->why, sizeof h->why);
    if (st == SM_OK) st = sm_sweep_start(w->s, h->why, sizeof h->why);
    if (st != SM_OK) return fail_free(w, st);
    *out = w;
    return SM_OK;
}

int sm_ffi_sweep_poll(sm_ffi_sweep *w, long *done, long *total)
{
    sm_sweep_stats st;
    sm_sweep_stats_get(w->s, &st);
    if (done) *done = st.loaded + st.written;
    if (total) *total = st.total;
    return st.finished;
}

void sm_ffi_sweep_stop(sm_ffi_sweep *w) { w->stop = 1; }

int sm_ffi_sweep_finish(sm_ffi_sweep *w, int *complete)
{
    sm_ffi_model *h = w->h;
    h->why[0] = '\0';
    *complete = 0;
    int st = sm_sweep_wait(w->s, h->why, sizeof h->why);
    sm_sweep_stats stats;
    sm_sweep_stats_get(w->s, &stats);
    if (st == SM_OK && !w->stop && !stats.stopped && stats.loaded + stats.written == stats.owned) {
        char path[1100];
        long rows = 0, missing = 0;
        snprintf(path, sizeof path, "%s/sweep.csv", w->dir);
        st = sm_sweep_merge(w->dir, path, w->total, &rows, &missing, h->why, sizeof h->why);
        *complete = st == SM_OK && missing == 0;
    }
    /* The part file stays locked until the merge is written. */
    sm_sweep_free(w->s);
    free(w);
    return st;
}
