/* bench_sampled: steps of a walker walked from its guess, each step's end
 * the next one's start, with the wall time and the integrator's work per
 * step; made for the sampled controllers (bench/README.md, "A sampled
 * controller"), where each sample restarts the integrator, but any model
 * file or built-in name runs.
 *
 *   build/bench/bench_sampled [--tol T] [--method adams|bdf|erk5|erk8] MODEL STEPS [NAME=VALUE]...
 *
 * One line per step: its status, wall time, CVODE's steps, right-hand
 * sides, event-function evaluations and flows (a flow is a phase, or a
 * stretch between two samples), and max |x_k+1 - x_k| over the state (0 at
 * a gait).  Speed is measured here, never asserted in a test. */
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

static int usage(void)
{
    fprintf(stderr, "usage: bench_sampled [--tol T] [--method adams|bdf|erk5|erk8] MODEL STEPS [NAME=VALUE]...\n");
    return 64;
}

int main(int argc, char **argv)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    int a = 1;
    for (; a + 1 < argc && argv[a][0] == '-' && argv[a][1] == '-'; a += 2) {
        if (strcmp(argv[a], "--tol") == 0) {
            o.rtol = o.atol = atof(argv[a + 1]);
        } else if (strcmp(argv[a], "--method") == 0) {
            int m = 0;
            while (sm_method_name((sm_method)m) && strcmp(sm_method_name((sm_method)m), argv[a + 1]) != 0) m++;
            if (!sm_method_name((sm_method)m)) return usage();
            o.method = (sm_method)m;
        } else {
            return usage();
        }
    }
    if (argc - a < 2) return usage();
    const char *path = argv[a];
    const long steps = atol(argv[a + 1]);
    char why[512] = "";
    const sm_model *m;
    if (sm_registry_open(path, &m, why, sizeof why) != SM_OK) {
        fprintf(stderr, "bench_sampled: %s: %s\n", path, why);
        return 66;
    }
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    for (int i = a + 2; i < argc; i++) {
        char name[128];
        const char *eq = strchr(argv[i], '=');
        const int k = eq && (size_t)(eq - argv[i]) < sizeof name
                          ? sm_model_param_index(m, (snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]), name))
                          : -1;
        if (k < 0) {
            fprintf(stderr, "bench_sampled: %s: no such parameter NAME=VALUE\n", argv[i]);
            return 64;
        }
        p[k] = atof(eq + 1);
    }
    m->guess(x, p, m->data);
    sm_workspace *ws;
    if (sm_workspace_create_ex(m, &o, &ws, why, sizeof why) != SM_OK) {
        fprintf(stderr, "bench_sampled: %s\n", why);
        return 64;
    }
    int rc = 0;
    for (long s = 0; s < steps; s++) {
        sm_workspace_reset_counters(ws);
        const double t0 = now_s();
        const sm_status st = sm_stride(ws, p, x, y, NULL, NULL);
        const double secs = now_s() - t0;
        sm_counters c;
        sm_workspace_counters(ws, &c);
        double dx = 0.0;
        for (size_t i = 0; i < m->n_state; i++) dx = fmax(dx, fabs(y[i] - x[i]));
        printf("step %ld: %s, %.3f s, %ld steps, %ld rhs, %ld root evaluations, %ld flows, max|dx| %.3e\n", s,
               sm_status_name(st), secs, c.steps, c.rhs_evals, c.root_evals, c.flows, dx);
        fflush(stdout);
        if (st != SM_OK) {
            rc = 1;
            break;
        }
        memcpy(x, y, m->n_state * sizeof *x);
    }
    sm_workspace_free(ws);
    sm_registry_close(m);
    return rc;
}
