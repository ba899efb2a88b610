/* bench_models: every built-in walker's cost per stride and per gait, beside
 * a bare CVODE loop over the same model callbacks (the floor: the same
 * phases, events and resets, none of the engine's guards, checks, counters
 * or observers).
 *
 *   build/bench/bench_models [--quick]
 *
 * Speed is measured here, never asserted in a test. */
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <time.h>

#include "stridemap/stridemap.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    const sm_model *m;
    const double *p;
    const sm_phase *phase;
    long nfe;
} floor_ctx;

static int floor_rhs(sunrealtype t, N_Vector y, N_Vector yd, void *u)
{
    floor_ctx *c = u;
    c->nfe++;
    return c->phase->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yd), c->p, c->m->data);
}

static int floor_roots(sunrealtype t, N_Vector y, sunrealtype *g, void *u)
{
    floor_ctx *c = u;
    for (size_t e = 0; e < c->phase->n_events; e++) g[e] = c->phase->events[e].value(t, N_VGetArrayPointer(y), c->p, c->m->data);
    return 0;
}

typedef struct {
    floor_ctx c;
    SUNContext ctx;
    N_Vector y;
    void *cv;
    SUNNonlinearSolver nls;
} bare;

static void bare_init(bare *b, const sm_model *m, const double *p)
{
    memset(b, 0, sizeof *b);
    b->c.m = m, b->c.p = p, b->c.phase = &m->phases[m->start_phase];
    SUNContext_Create(NULL, &b->ctx);
    b->y = N_VNew_Serial((sunindextype)m->n_state, b->ctx);
    N_VConst(0.0, b->y);
    b->cv = CVodeCreate(CV_ADAMS, b->ctx);
    CVodeInit(b->cv, floor_rhs, 0.0, b->y);
    CVodeSetUserData(b->cv, &b->c);
    CVodeSStolerances(b->cv, 1e-10, 1e-10);
    CVodeSetMaxNumSteps(b->cv, 1000000);
    CVodeSetNoInactiveRootWarn(b->cv);
    b->nls = SUNNonlinSol_FixedPoint(b->y, 0, b->ctx);
    CVodeSetNonlinearSolver(b->cv, b->nls);
}

static void bare_free(bare *b)
{
    CVodeFree(&b->cv);
    SUNNonlinSolFree(b->nls);
    N_VDestroy(b->y);
    SUNContext_Free(&b->ctx);
}

/* One stride the plain way: each phase to its first counting root, resets
 * applied, until the section event. */
static void bare_stride(bare *b, const double *x0, double *x1)
{
    const sm_model *m = b->c.m;
    double *y = N_VGetArrayPointer(b->y), t = 0.0, tret;
    memcpy(y, x0, m->n_state * sizeof *y);
    size_t ph = m->start_phase;
    int roots[32];
    for (;;) {
        const sm_phase *P = b->c.phase = &m->phases[ph];
        int dir[32];
        for (size_t e = 0; e < P->n_events; e++) dir[e] = P->events[e].direction;
        CVodeReInit(b->cv, t, b->y);
        CVodeRootInit(b->cv, (int)P->n_events, floor_roots);
        CVodeSetRootDirection(b->cv, dir);
        CVodeSetStopTime(b->cv, 100.0);
        size_t e;
        for (;;) {
            CVode(b->cv, 100.0, b->y, &tret, CV_NORMAL);
            CVodeGetRootInfo(b->cv, roots);
            for (e = 0; e < P->n_events; e++)
                if (roots[e] && (!P->events[e].guard || P->events[e].guard(tret, y, b->c.p, m->data))) break;
            if (e < P->n_events) break;
        }
        t = tret;
        const sm_event *ev = &P->events[e];
        double xp[SM_MAX_STATE];
        if (ev->reset) {
            ev->reset(y, xp, b->c.p, m->data);
            memcpy(y, xp, m->n_state * sizeof *y);
        }
        if (ev->outcome == SM_EVENT_SECTION || ev->outcome == SM_EVENT_FAIL) break;
        ph = ev->next_phase;
    }
    memcpy(x1, y, m->n_state * sizeof *y);
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const int reps = quick ? 5 : 30, batch = 20;
    const char *names[] = {"rimless", "simplest", "compass", "slip"};
    printf("every walker at its defaults, rtol = atol = 1e-10, Adams; best of %d runs x %d strides\n\n", reps, batch);
    printf("%-9s %12s %12s %10s %10s %8s %13s %9s\n", "model", "engine us", "floor us", "ratio", "RHS/stride",
           "steps", "fixed pt ms", "strides");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const sm_model *m = sm_registry_find(names[k]);
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        m->guess(x, p, m->data);
        sm_workspace *ws = NULL;
        if (sm_workspace_create(m, NULL, &ws) != SM_OK) return 1;
        sm_newton_options o;
        sm_newton_options_default(&o);
        sm_fixed_result r;
        double best_fp = INFINITY;
        for (int i = 0; i < (quick ? 3 : 10); i++) {
            const double t0 = now_s();
            sm_fixed_point(ws, p, x, &o, &r);
            best_fp = fmin(best_fp, now_s() - t0);
        }
        if (!r.converged) {
            printf("%-9s no gait at the defaults (%s)\n", names[k], sm_status_name(r.status));
            continue;
        }
        bare b;
        bare_init(&b, m, p);
        double best_e = INFINITY, best_f = INFINITY;
        for (int i = 0; i < reps; i++) {
            double t0 = now_s();
            for (int j = 0; j < batch; j++) sm_stride(ws, p, r.x, y, NULL, NULL);
            best_e = fmin(best_e, (now_s() - t0) / batch);
            t0 = now_s();
            for (int j = 0; j < batch; j++) bare_stride(&b, r.x, y);
            best_f = fmin(best_f, (now_s() - t0) / batch);
        }
        sm_counters c;
        sm_workspace_reset_counters(ws);
        sm_stride(ws, p, r.x, y, NULL, NULL);
        sm_workspace_counters(ws, &c);
        printf("%-9s %12.2f %12.2f %10.3f %10ld %8ld %13.3f %9ld\n", names[k], 1e6 * best_e, 1e6 * best_f,
               best_e / best_f, c.rhs_evals, c.steps, 1e3 * best_fp, r.stride_evals);
        bare_free(&b);
        sm_workspace_free(ws);
    }
    printf("\nstrides per fixed point include the central-difference Jacobian for the eigenvalues and one\n"
           "sampled stride for the gait measures.\n");
    return 0;
}
