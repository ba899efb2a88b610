/* bench_body: strides of a body walker from its gait, nothing else, for
 * callgrind's instruction counts (per stride: (N=30 run − N=10 run) / 20).
 * Until issue 11 retired the linkage engine it also timed each file against
 * its linkage twin; bench/README.md keeps those figures, bench_files the
 * per-stride times now.
 *
 *   build/bench/bench_body [--tol T] --profile FILE N [NAME=VALUE]
 *                                             N strides of FILE from its gait
 *                                             (at that parameter), nothing
 *                                             else (for callgrind); --tol
 *                                             sets rtol = atol (the default
 *                                             became 1e-12 after the linkage's
 *                                             figures, taken at 1e-10)
 *
 * Speed is measured here, never asserted in a test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stridemap/registry.h"
#include "stridemap/stridemap.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    const char *path;
    const sm_model *m;
    sm_workspace *ws;
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE], gait[SM_MAX_STATE];
    double best_stride_us, best_fp_ms;
    long strides_per_fp;
    sm_counters per_stride;
    sm_status status;
} walker;

static sm_fixed_result result; /* large: not on the stack */
static double tol = 0.0;       /* --tol: rtol = atol; 0 the library's default */

static int walker_open(walker *w, const char *path)
{
    char why[512] = "";
    memset(w, 0, sizeof *w);
    w->path = path;
    if (sm_registry_open(path, &w->m, why, sizeof why) != SM_OK) {
        fprintf(stderr, "bench_body: %s: %s (run from the top of the tree)\n", path, why);
        return -1;
    }
    sm_model_default_params(w->m, w->p);
    w->m->guess(w->x0, w->p, w->m->data);
    sm_solver_options o;
    sm_solver_options_default(&o);
    if (tol > 0) o.rtol = o.atol = tol;
    if (sm_workspace_create(w->m, &o, &w->ws) != SM_OK) return -1;
    w->best_stride_us = w->best_fp_ms = INFINITY;
    return 0;
}

static void walker_close(walker *w)
{
    sm_workspace_free(w->ws);
    sm_registry_close(w->m);
}

/* One fixed point from the guess (timed), then `strides` strides from it. */
static void walker_round(walker *w, int strides)
{
    sm_newton_options no;
    sm_newton_options_default(&no);
    double t0 = now_s();
    w->status = sm_fixed_point(w->ws, w->p, w->x0, &no, &result);
    const double fp = (now_s() - t0) * 1e3;
    if (fp < w->best_fp_ms) w->best_fp_ms = fp;
    w->strides_per_fp = result.stride_evals;
    memcpy(w->gait, result.x, w->m->n_state * sizeof *w->gait);
    double y[SM_MAX_STATE];
    sm_workspace_reset_counters(w->ws);
    t0 = now_s();
    for (int i = 0; i < strides; i++) sm_stride(w->ws, w->p, w->gait, y, NULL, NULL);
    const double us = (now_s() - t0) / strides * 1e6;
    if (us < w->best_stride_us) w->best_stride_us = us;
    sm_workspace_counters(w->ws, &w->per_stride);
    w->per_stride.rhs_evals /= strides;
    w->per_stride.root_evals /= strides;
    w->per_stride.steps /= strides;
}

static int profile(const char *path, long n, const char *set)
{
    walker w;
    if (walker_open(&w, path) != 0) return 1;
    if (set) {
        /* a parameter off its default: a body walker's callbacks then work
         * on a copy of the rigid model (src/body/eval.c) */
        char name[128];
        const char *eq = strchr(set, '=');
        const int i = eq && (size_t)(eq - set) < sizeof name
                          ? sm_model_param_index(w.m, (snprintf(name, sizeof name, "%.*s", (int)(eq - set), set), name))
                          : -1;
        if (i < 0) {
            fprintf(stderr, "bench_body: %s: no such parameter NAME=VALUE\n", set);
            return 64;
        }
        w.p[i] = atof(eq + 1);
    }
    walker_round(&w, 1);
    double y[SM_MAX_STATE];
    sm_workspace_reset_counters(w.ws);
    for (long i = 0; i < n; i++) sm_stride(w.ws, w.p, w.gait, y, NULL, NULL);
    sm_counters c;
    sm_workspace_counters(w.ws, &c);
    const double k = n > 0 ? 1.0 / (double)n : 0.0;
    printf("%s: %ld strides, status %s, %zu states; per stride %.1f steps, %.1f rhs, %.1f root evaluations\n",
           path, n, sm_status_name(w.status), w.m->n_state, k * (double)c.steps, k * (double)c.rhs_evals,
           k * (double)c.root_evals);
    walker_close(&w);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--tol") == 0) {
        tol = atof(argv[2]);
        argc -= 2;
        argv += 2;
    }
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--profile") == 0)
        return profile(argv[2], atol(argv[3]), argc == 5 ? argv[4] : NULL);
    fprintf(stderr, "usage: bench_body [--tol T] --profile FILE N [NAME=VALUE]   (per-stride times: bench_files)\n");
    return 64;
}
