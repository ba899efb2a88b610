/* Gaits with eigenvalues: finite-difference against exact stride-map
 * Jacobians, per model, at a few tolerances (bench/README.md, "Exact
 * Jacobians").
 *
 *   bench_exact [--quick] [--tol T]...   (T repeatable; default 1e-10 1e-11 1e-12)
 *
 * For each model and tolerance: strides and CPU ms of one gait with its
 * eigenvalues, three ways --
 *   fd     Newton with forward differences, eigenvalues from Richardson
 *          central differences (the project's way before exact Jacobians);
 *   exact  the same Newton, eigenvalues from the exact Jacobian (today's
 *          default);
 *   newton the exact Jacobian in Newton too;
 * and the error of the fixed point and of the eigenvalues against a
 * reference computed here at rtol = atol = 1e-13 with exact Jacobians and
 * Newton tol 1e-13.  Times are CPU time, best of R runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stridemap/stridemap.h"

typedef struct {
    const char *name;
    const char *param;
    double value;
} bench_model;

static const bench_model models[] = {
    {"simplest", "gamma", 0.009},
    {"compass", NULL, 0},
    {"rimless", NULL, 0},
    {"models/kneed_mcgeer.yaml", NULL, 0},
};

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

typedef struct {
    double ms;
    long strides;
    sm_fixed_result r;
} run_out;

/* One gait the given way: kind 0 fd, 1 exact eigenvalues, 2 exact Newton. */
static int gait(const sm_model *m, const double *p, double tol, double newton_tol, int kind, int reps,
                run_out *o)
{
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.rtol = so.atol = tol;
    sm_workspace *ws = NULL;
    if (sm_workspace_create(m, &so, &ws) != SM_OK) return -1;
    sm_newton_options no;
    sm_newton_options_default(&no);
    if (newton_tol > 0) no.tol = newton_tol;
    if (kind == 2) no.jacobian = SM_JACOBIAN_EXACT;
    double x[SM_MAX_STATE];
    m->guess(x, p, m->data);
    /* fd: sm_fixed_point's analysis is the exact one, so its time (the
     * best of R, alone) is taken out and the differences' put in. */
    double t_fp = INFINITY, t_ex = INFINITY, t_fd = INFINITY;
    long ev_ex = 0, ev_fd = 0;
    for (int k = 0; k < reps; k++) {
        double t0 = cpu_ms();
        if (sm_fixed_point(ws, p, x, &no, &o->r) != SM_OK) {
            sm_workspace_free(ws);
            return -1;
        }
        t_fp = fmin(t_fp, cpu_ms() - t0);
        o->strides = o->r.stride_evals;
        if (kind != 0) continue;
        sm_gait g = o->r.gait;
        ev_ex = ev_fd = 0;
        t0 = cpu_ms();
        sm_gait_analyse(ws, p, sm_stability_fd_step(0, tol), &g, &ev_ex);
        t_ex = fmin(t_ex, cpu_ms() - t0);
        t0 = cpu_ms();
        sm_gait_analyse_fd(ws, p, sm_stability_fd_step(0, tol), &g, &ev_fd);
        t_fd = fmin(t_fd, cpu_ms() - t0);
        o->r.gait = g;
    }
    o->ms = kind == 0 ? t_fp - t_ex + t_fd : t_fp;
    if (kind == 0) o->strides += ev_fd - ev_ex;
    sm_workspace_free(ws);
    return 0;
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

int main(int argc, char **argv)
{
    int reps = 20;
    double tols[8];
    size_t nt = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            reps = 3;
        else if (strcmp(argv[i], "--tol") == 0 && i + 1 < argc && nt < 8)
            tols[nt++] = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_exact [--quick] [--tol T]...\n");
            return 64;
        }
    }
    if (nt == 0) tols[nt++] = 1e-10, tols[nt++] = 1e-11, tols[nt++] = 1e-12;
    static const char *const way[] = {"fd", "exact", "newton"};
    printf("%-26s %-7s %-6s %7s %9s %11s %11s\n", "model", "tol", "way", "strides", "ms", "x error", "eig error");
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        const sm_model *m = NULL;
        char why[256], path[512];
        const char *name = models[k].name;
        if (strchr(name, '/')) {
            snprintf(path, sizeof path, "%s/%s", SM_SOURCE_DIR, name);
            name = path;
        }
        if (sm_registry_open(name, &m, why, sizeof why) != SM_OK) {
            fprintf(stderr, "%s: %s\n", models[k].name, why);
            return 66;
        }
        double p[SM_MAX_PARAMS];
        sm_model_default_params(m, p);
        if (models[k].param) p[sm_model_param_index(m, models[k].param)] = models[k].value;
        static run_out ref, o;
        if (gait(m, p, 1e-13, 1e-13, 1, 1, &ref) != 0) {
            fprintf(stderr, "%s: no reference gait\n", models[k].name);
            return 1;
        }
        for (size_t t = 0; t < nt; t++)
            for (int w = 0; w < 3; w++) {
                if (gait(m, p, tols[t], 0, w, reps, &o) != 0) {
                    printf("%-26s %-7.0e %-6s failed\n", m->name, tols[t], way[w]);
                    continue;
                }
                double de = 0;
                for (size_t i = 0; i < m->n_free; i++)
                    de = fmax(de, hypot(o.r.eig_re[i] - ref.r.eig_re[i], o.r.eig_im[i] - ref.r.eig_im[i]));
                printf("%-26s %-7.0e %-6s %7ld %9.3f %11.2e %11.2e\n", m->name, tols[t], way[w], o.strides, o.ms,
                       max_diff(o.r.x, ref.r.x, m->n_state), de);
            }
        sm_registry_close(m);
    }
    return 0;
}
