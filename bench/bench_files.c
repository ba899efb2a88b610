/* Walkers from model files (rigid bodies, docs/body-walkers.md): the cost of
 * one right-hand side of the compass file (the forward sweep, M, C v + G,
 * the pin's Jacobian and the constrained solve) against the closed-form
 * compass walker's at the same gait, and microseconds per stride and
 * milliseconds per fixed point for the files.  Run from the top of the
 * tree: build/bench/bench_files (best of 5). */
#include <stdio.h>
#include <time.h>

#include "stridemap/stridemap.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static volatile double sink;

/* ns per right-hand-side evaluation of phase 0, best of 5 runs of n. */
static double rhs_ns(const sm_model *m, const double *p, const double *x)
{
    double best = 1e30, xd[SM_MAX_STATE];
    const long n = 200000;
    for (int r = 0; r < 5; r++) {
        const double t0 = now();
        for (long i = 0; i < n; i++) {
            m->phases[0].rhs(0.0, x, xd, p, m->data);
            sink = xd[m->n_state - 1];
        }
        const double t = (now() - t0) / n * 1e9;
        if (t < best) best = t;
    }
    return best;
}

static void gait_cost(const char *name, const sm_model *m)
{
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_solver_options o;
    sm_solver_options_default(&o);
    sm_workspace *ws = NULL;
    if (sm_workspace_create(m, &o, &ws) != SM_OK) return;
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_fixed_result r;
    double best_fp = 1e30, best_stride = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = now();
        sm_fixed_point(ws, p, x, &no, &r);
        const double fp = (now() - t0) * 1e3;
        if (fp < best_fp) best_fp = fp;
        t0 = now();
        for (int i = 0; i < 20; i++) sm_stride(ws, p, r.x, y, NULL, NULL);
        const double st = (now() - t0) / 20 * 1e6;
        if (st < best_stride) best_stride = st;
    }
    sm_counters c;
    sm_workspace_reset_counters(ws);
    sm_stride(ws, p, r.x, y, NULL, NULL);
    sm_workspace_counters(ws, &c);
    printf("%-28s %-9s %8.1f us/stride  %6ld rhs/stride  %7.2f ms/fixed point (%ld strides)\n", name,
           sm_status_name(r.status), best_stride, c.rhs_evals, best_fp, r.stride_evals);
    sm_workspace_free(ws);
}

int main(void)
{
    char why[1024];
    const sm_model *f = NULL;
    if (sm_registry_open("models/compass.yaml", &f, why, sizeof why) != SM_OK) {
        fprintf(stderr, "bench_files: %s (run from the top of the tree)\n", why);
        return 1;
    }
    const sm_model *c = sm_registry_find("compass");
    double pf[SM_MAX_PARAMS], pc[SM_MAX_PARAMS], xf[SM_MAX_STATE], xc[SM_MAX_STATE];
    sm_model_default_params(f, pf);
    sm_model_default_params(c, pc);
    f->guess(xf, pf, f->data);
    c->guess(xc, pc, c->data);
    const double nf = rhs_ns(f, pf, xf), nc = rhs_ns(c, pc, xc);
    printf("one dynamics evaluation, compass gait: file (rigid bodies, pinned foot) %.0f ns, closed form %.0f ns, "
           "ratio %.1f\n",
           nf, nc, nf / nc);
    gait_cost("compass (closed form)", c);
    gait_cost("models/compass.yaml", f);
    sm_registry_close(f);
    const char *files[] = {"models/kneed_hsu.yaml", "models/kneed_mcgeer.yaml", "models/compass_round_spring.yaml",
                           "models/kneed_mcgeer_locked.yaml"};
    for (int i = 0; i < 4; i++) {
        const sm_model *m = NULL;
        if (sm_registry_open(files[i], &m, why, sizeof why) != SM_OK) {
            fprintf(stderr, "bench_files: %s\n", why);
            continue;
        }
        gait_cost(files[i], m);
        sm_registry_close(m);
    }
    return 0;
}
