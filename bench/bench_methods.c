/* bench_methods: every walker under each integrator (CVODE Adams, ARKODE's
 * erk8 and erk5) at several tolerances: µs per stride from the gait, RHS
 * evaluations and steps per stride, strides and ms per gait (Newton from the
 * model's guess, stability Jacobian and gait measures included), and the
 * gait's error against a reference (CVODE Adams at rtol = atol = 1e-13,
 * Newton tol 1e-12).  Newton's tol is the integration tolerance of the row
 * (at most 1e-10, at least 1e-12): a gait is converged as far as its strides
 * can tell.
 *
 *   build/bench/bench_methods [--quick] [--models A,B,..] [--methods adams,erk8,..] [--tols 1e-8,..]
 *   build/bench/bench_methods --profile MODEL METHOD TOL N
 *                               the gait from the guess, then N strides from it, nothing
 *                               else (for callgrind; N = -1: only open the model)
 *
 * Run from the top of the tree (the model files are opened by path).  Speed
 * is measured here, never asserted in a test. */
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

static sm_fixed_result result; /* large: not on the stack */

static const char *const all_models[] = {"simplest", "compass", "rimless", "slip", "models/compass.yaml",
                                         "models/kneed_hsu.yaml", "models/kneed_mcgeer.yaml"};

static int method_of(const char *name, sm_method *m)
{
    for (int k = 0; sm_method_name((sm_method)k); k++)
        if (strcmp(name, sm_method_name((sm_method)k)) == 0) {
            *m = (sm_method)k;
            return 0;
        }
    fprintf(stderr, "bench_methods: no method '%s'\n", name);
    return -1;
}

static sm_workspace *workspace(const sm_model *m, sm_method method, double tol)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.method = method;
    o.rtol = o.atol = tol;
    sm_workspace *ws = NULL;
    char why[256];
    if (sm_workspace_create_ex(m, &o, &ws, why, sizeof why) != SM_OK) {
        fprintf(stderr, "bench_methods: %s\n", why);
        exit(1);
    }
    return ws;
}

static sm_status gait(sm_workspace *ws, const double *p, const double *x0, double newton_tol)
{
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.tol = newton_tol;
    return sm_fixed_point(ws, p, x0, &no, &result);
}

static int split(char *s, const char **out, int cap)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok && n < cap; tok = strtok(NULL, ",")) out[n++] = tok;
    return n;
}

static int profile(const char *name, const char *method_name, double tol, long n)
{
    const sm_model *m;
    char why[512];
    sm_method method;
    if (method_of(method_name, &method) != 0) return 1;
    if (sm_registry_open(name, &m, why, sizeof why) != SM_OK) {
        fprintf(stderr, "bench_methods: %s: %s\n", name, why);
        return 1;
    }
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = workspace(m, method, tol);
    int bad = n >= 0 && gait(ws, p, x0, fmax(fmin(tol, 1e-10), 1e-12)) != SM_OK;
    memcpy(x, result.x, sizeof x);
    for (long i = 0; !bad && i < n; i++) sm_stride(ws, p, x, y, NULL, NULL);
    sm_workspace_free(ws);
    sm_registry_close(m);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "--profile") == 0) return profile(argv[2], argv[3], atof(argv[4]), atol(argv[5]));
    int quick = 0;
    const char *models[16], *methods[8], *tols[8];
    int n_models = (int)(sizeof all_models / sizeof all_models[0]), n_methods = 3, n_tols = 3;
    memcpy(models, all_models, sizeof all_models);
    methods[0] = "adams", methods[1] = "erk8", methods[2] = "erk5";
    tols[0] = "1e-8", tols[1] = "1e-10", tols[2] = "1e-12";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc)
            n_models = split(argv[++i], models, 16);
        else if (strcmp(argv[i], "--methods") == 0 && i + 1 < argc)
            n_methods = split(argv[++i], methods, 8);
        else if (strcmp(argv[i], "--tols") == 0 && i + 1 < argc)
            n_tols = split(argv[++i], tols, 8);
        else {
            fprintf(stderr, "usage: bench_methods [--quick] [--models A,B] [--methods adams,erk8,erk5] "
                            "[--tols 1e-8,1e-10] | --profile MODEL METHOD TOL N\n");
            return 64;
        }
    }
    const int rounds = quick ? 3 : 10, strides = quick ? 5 : 20, gaits = quick ? 2 : 5;
    printf("| model | method | tol | µs/stride | RHS/stride | steps/stride | strides/gait | ms/gait | error |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n_models; k++) {
        const sm_model *m;
        char why[512];
        if (sm_registry_open(models[k], &m, why, sizeof why) != SM_OK) {
            fprintf(stderr, "bench_methods: %s: %s (run from the top of the tree)\n", models[k], why);
            return 66;
        }
        double p[SM_MAX_PARAMS], x0[SM_MAX_STATE], ref[SM_MAX_STATE];
        sm_model_default_params(m, p);
        m->guess(x0, p, m->data);
        sm_workspace *ws = workspace(m, SM_METHOD_ADAMS, 1e-13);
        if (gait(ws, p, x0, 1e-12) != SM_OK) fprintf(stderr, "bench_methods: %s: reference gait not converged\n", models[k]);
        memcpy(ref, result.x, sizeof ref);
        sm_workspace_free(ws);
        for (int j = 0; j < n_methods; j++) {
            sm_method method;
            if (method_of(methods[j], &method) != 0) return 64;
            for (int t = 0; t < n_tols; t++) {
                const double tol = atof(tols[t]);
                ws = workspace(m, method, tol);
                double best_gait = INFINITY, best_stride = INFINITY, gx[SM_MAX_STATE], y[SM_MAX_STATE];
                sm_status st = SM_OK;
                long gait_strides = 0;
                for (int g = 0; g < gaits; g++) {
                    const double t0 = now_s();
                    st = gait(ws, p, x0, fmax(fmin(tol, 1e-10), 1e-12));
                    best_gait = fmin(best_gait, now_s() - t0);
                    gait_strides = result.stride_evals;
                }
                memcpy(gx, result.x, sizeof gx);
                double err = 0;
                for (size_t i = 0; i < m->n_state; i++) err = fmax(err, fabs(gx[i] - ref[i]));
                sm_counters c;
                for (int r = 0; r < rounds; r++) {
                    sm_workspace_reset_counters(ws);
                    const double t0 = now_s();
                    for (int s = 0; s < strides; s++) sm_stride(ws, p, gx, y, NULL, NULL);
                    best_stride = fmin(best_stride, (now_s() - t0) / strides);
                    sm_workspace_counters(ws, &c);
                }
                printf("| %s | %s | %s | %.1f | %ld | %ld | %ld | %.2f | %.1e%s |\n", models[k], methods[j], tols[t],
                       best_stride * 1e6, c.rhs_evals / strides, c.steps / strides, gait_strides, best_gait * 1e3, err,
                       st == SM_OK ? "" : " (not converged)");
                fflush(stdout);
                sm_workspace_free(ws);
            }
        }
        sm_registry_close(m);
    }
    return 0;
}
