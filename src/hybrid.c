/* CVODE behind sm_hybrid_flow: one CVODE instance per workspace, root-finding
 * for events, guards applied here so CVODE only ever sees plain functions.
 * The library links CVODES, CVODE's superset with forward sensitivities
 * (sm_hybrid_flow_sens); without sensitivities it runs CVODE's code. */
#include "stridemap/hybrid.h"

#include <cvodes/cvodes.h>
#include <float.h>
#include <dlfcn.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_version.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "hybrid_internal.h"
#include "scratch.h"

#define SM_MAX_EVENTS 32
/* Adams' steps between two looks for stiffness. */
#define SM_STIFF_CHECK_STEPS 5000
/* The steps one CVode call may take: Adams stops every
 * SM_STIFF_CHECK_STEPS to look for stiffness (flow). */
static long steps_per_call(const sm_solver_options *o)
{
    return o->method == SM_METHOD_ADAMS && o->max_num_steps > SM_STIFF_CHECK_STEPS ? SM_STIFF_CHECK_STEPS
                                                                                   : o->max_num_steps;
}

/* A sampled controller under BDF: most steps between two fresh Jacobians
 * (CVODE's default is 51).  Each sample restarts CVODE at order 1 and
 * takes about a hundred steps to its next (biped12_3d_sampled at 1 ms and
 * rtol 1e-10), the held torques constant, so the Jacobian hardly moves; a
 * stale one costs Newton iterations, and CVODE renews it when Newton fails
 * to converge.  200 rather than 51: 31 % fewer right-hand sides a step
 * (bench/README.md), the same steps. */
#define SM_TICK_JAC_STEPS 200

struct sm_workspace {
    const sm_model *model;
    sm_solver_options opt;
    SUNContext ctx;
    void *cvode;
    N_Vector y;
    SUNNonlinearSolver nls;
    SUNMatrix A;
    SUNLinearSolver ls;
    sm_arkode *ark;            /* the ERK methods' integrator (hybrid_arkode.c), else NULL */

    /* What the callbacks need while CVode runs. */
    const double *p;
    const sm_phase *phase;
    size_t rooted_phase;       /* phase whose events CVODE currently watches */
    double t_start;            /* the flow's start, where the phase's event clock is 0 */
    sm_phase_failure fail;     /* why a callback failed in this flow, if one did */
    sm_event_found found;      /* how the event the last flow returned was found */

    sm_counters counters;
    char detail[256];

    struct {
        void *p;
        size_t cap;
        bool busy;
    } scratch[SM_SCRATCH_COUNT];

    /* Forward sensitivities, set up on first use (sm_hybrid_flow_sens). */
    N_Vector *yS;              /* [sens_cols] */
    int sens_cols;             /* columns CVODES was set up for; 0: none */
    bool sens_on;              /* CVODES carries them in the current flow */
    SUNNonlinearSolver nlsS;   /* Adams' fixed-point iteration for them */

    /* A sampled controller under BDF (jac_cb): the last Jacobian, taken
     * again by the first step after a tick of the clock. */
    SUNMatrix J_tick;          /* NULL unless the model has a clock and BDF */
    bool J_tick_valid;         /* J_tick holds a Jacobian of this phase */
    bool J_tick_reuse;         /* a tick restarted CVODE: its first Jacobian is J_tick */
    N_Vector ewt;              /* CVODE's error weights, for the difference quotients */
};

const char *sm_method_name(sm_method m)
{
    static const char *const names[] = {"adams", "bdf", "erk8", "erk5"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : NULL;
}

void sm_solver_options_default(sm_solver_options *o)
{
    o->rtol = 1e-12;
    o->atol = 1e-12;
    o->method = SM_METHOD_ADAMS;
    o->max_step = 0.0;
    o->t_max = 0.0;
    o->max_num_steps = 1000000;
    o->max_order = 0;
}

/* What each checked option is called in a message: the struct's fields,
 * which a C caller has (the CLI maps them to its flags). */
typedef struct {
    const char *rtol, *atol, *max_step, *t_max, *max_order, *max_num_steps;
} option_names;

static const option_names field_names = {"sm_solver_options.rtol",      "sm_solver_options.atol",
                                         "sm_solver_options.max_step",  "sm_solver_options.t_max",
                                         "sm_solver_options.max_order", "sm_solver_options.max_num_steps"};

static sm_status check_options(const sm_solver_options *o, const option_names *n, char *why, size_t why_len)
{
    if (!(o->rtol > 0 && o->rtol < 1)) {
        snprintf(why, why_len, "%s must be a number in (0, 1), not %g", n->rtol, o->rtol);
        return SM_BAD_OPTION;
    }
    if (!(o->atol > 0 && o->atol < 1)) {
        snprintf(why, why_len, "%s must be a number in (0, 1), not %g", n->atol, o->atol);
        return SM_BAD_OPTION;
    }
    if (!(o->max_step >= 0) || !isfinite(o->max_step)) {
        snprintf(why, why_len, "%s must be a finite number >= 0 (0: no limit), not %g", n->max_step, o->max_step);
        return SM_BAD_OPTION;
    }
    if (!(o->t_max >= 0) || !isfinite(o->t_max)) {
        snprintf(why, why_len, "%s must be a finite number >= 0 (0: the model's own), not %g", n->t_max,
                 o->t_max);
        return SM_BAD_OPTION;
    }
    if (!sm_method_name(o->method)) {
        snprintf(why, why_len, "sm_solver_options.method must be one of sm_method's values, not %d", (int)o->method);
        return SM_BAD_OPTION;
    }
    if (sm_arkode_method(o->method) && o->max_order != 0) {
        snprintf(why, why_len, "%s must be 0 for an explicit Runge-Kutta method (its table fixes the order), not %d",
                 n->max_order, o->max_order);
        return SM_BAD_OPTION;
    }
    const int order_cap = o->method == SM_METHOD_BDF ? 5 : 12;
    if (o->max_order < 0 || o->max_order > order_cap) {
        snprintf(why, why_len, "%s must be from 1 to %d for this method (0: the largest), not %d", n->max_order,
                 order_cap, o->max_order);
        return SM_BAD_OPTION;
    }
    if (o->max_num_steps < 1) {
        snprintf(why, why_len, "%s must be at least 1, not %ld", n->max_num_steps, (long)o->max_num_steps);
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

sm_status sm_solver_options_check(const sm_solver_options *o, char *why, size_t why_len)
{
    return check_options(o, &field_names, why, why_len);
}

static int rhs_cb(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    sm_workspace *ws = user;
    if (!ws->fail.fatal) ws->counters.rhs_evals++;
    return sm_phase_rhs(ws->model, ws->phase, ws->p, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), &ws->fail);
}

static int root_cb(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    sm_workspace *ws = user;
    if (sm_phase_events(ws->model, ws->phase, ws->p, ws->t_start, t, N_VGetArrayPointer(y), g)) return 0;
    ws->fail.status = SM_NONFINITE;
    return -1;
}

/* The Newton matrix's Jacobian for a sampled controller under BDF: CVODE's
 * own difference quotients (cvLsDenseDQJac's increments, so a Jacobian
 * taken here is the one CVODE would take), kept; the first one after a
 * tick of the clock is the kept one.  A tick changes only the held torques,
 * which enter the right-hand side linearly and do not move the state, and
 * CVODE's restart at a tick would otherwise difference all n columns again
 * at every sample (about 1 in 40 of its right-hand sides at a sample each
 * millisecond on biped12_3d_sampled; bench/README.md).  A stale Jacobian
 * only slows Newton's convergence, and CVODE asks for a fresh one
 * (CV_FAIL_BAD_J) when it fails to converge. */
static int jac_cb(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector tmp1, N_Vector tmp2,
                  N_Vector tmp3)
{
    (void)tmp2;
    (void)tmp3;
    sm_workspace *ws = user;
    if (ws->J_tick_reuse && ws->J_tick_valid) {
        ws->J_tick_reuse = false;
        return SUNMatCopy(ws->J_tick, J) == SUNMAT_SUCCESS ? 0 : -1;
    }
    ws->J_tick_reuse = false;
    const sunindextype n = (sunindextype)ws->model->n_state;
    double h = 0.0;
    if (CVodeGetErrWeights(ws->cvode, ws->ewt) != CV_SUCCESS || CVodeGetCurrentStep(ws->cvode, &h) != CV_SUCCESS)
        return -1;
    const double *ewt = N_VGetArrayPointer(ws->ewt), *f0 = N_VGetArrayPointer(fy);
    double *x = N_VGetArrayPointer(y);
    const double srur = sqrt(DBL_EPSILON), fnorm = N_VWrmsNorm(fy, ws->ewt);
    const double min_inc = fnorm != 0.0 ? 1000.0 * fabs(h) * DBL_EPSILON * (double)n * fnorm : 1.0;
    for (sunindextype j = 0; j < n; j++) {
        const double xj = x[j], inc = fmax(srur * fabs(xj), min_inc / ewt[j]);
        x[j] += inc;
        const int r = rhs_cb(t, y, tmp1, user);
        x[j] = xj;
        if (r != 0) return r;
        const double *f1 = N_VGetArrayPointer(tmp1);
        double *col = SUNDenseMatrix_Column(J, j);
        for (sunindextype i = 0; i < n; i++) col[i] = (f1[i] - f0[i]) / inc;
    }
    if (SUNMatCopy(J, ws->J_tick) != SUNMAT_SUCCESS) return -1;
    ws->J_tick_valid = true;
    return 0;
}

static void error_cb(int code, const char *module, const char *function, char *msg, void *user)
{
    sm_workspace *ws = user;
    if (code > 0) return; /* warnings are not failures */
    snprintf(ws->detail, sizeof ws->detail, "%s/%s: %s", module, function, msg);
}

void sm_workspace_free(sm_workspace *ws)
{
    if (!ws) return;
    sm_arkode_free(ws->ark);
    if (ws->cvode) CVodeFree(&ws->cvode);
    if (ws->yS) N_VDestroyVectorArray(ws->yS, ws->sens_cols);
    if (ws->nlsS) SUNNonlinSolFree(ws->nlsS);
    if (ws->J_tick) SUNMatDestroy(ws->J_tick);
    if (ws->ewt) N_VDestroy(ws->ewt);
    if (ws->nls) SUNNonlinSolFree(ws->nls);
    if (ws->ls) SUNLinSolFree(ws->ls);
    if (ws->A) SUNMatDestroy(ws->A);
    if (ws->y) N_VDestroy(ws->y);
    if (ws->ctx) SUNContext_Free(&ws->ctx);
    for (int k = 0; k < SM_SCRATCH_COUNT; k++) free(ws->scratch[k].p);
    free(ws);
}

void *sm_scratch_take(sm_workspace *ws, sm_scratch_slot k, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (ws->scratch[k].busy) return malloc(bytes);
    if (ws->scratch[k].cap < bytes) {
        /* The old contents are not kept, so no realloc's copy. */
        free(ws->scratch[k].p);
        ws->scratch[k].p = malloc(bytes);
        ws->scratch[k].cap = ws->scratch[k].p ? bytes : 0;
        if (!ws->scratch[k].p) return NULL;
    }
    ws->scratch[k].busy = true;
    return ws->scratch[k].p;
}

void sm_scratch_give(sm_workspace *ws, sm_scratch_slot k, void *p)
{
    if (p && p == ws->scratch[k].p && ws->scratch[k].busy)
        ws->scratch[k].busy = false;
    else
        free(p);
}

sm_status sm_workspace_create(const sm_model *m, const sm_solver_options *o, sm_workspace **out)
{
    char why[256];
    return sm_workspace_create_ex(m, o, out, why, sizeof why);
}

sm_status sm_workspace_create_ex(const sm_model *m, const sm_solver_options *o, sm_workspace **out, char *why,
                                 size_t why_len)
{
    *out = NULL;
    if (why_len) why[0] = '\0';
    if (sm_model_validate(m, why, why_len) != SM_OK) return SM_BAD_OPTION;
    for (size_t ph = 0; ph < m->n_phases; ph++)
        if (m->phases[ph].n_events > SM_MAX_EVENTS) {
            snprintf(why, why_len, "model '%s': phase '%s' has %zu events, more than the %d a phase may have", m->name,
                     m->phases[ph].name ? m->phases[ph].name : "", m->phases[ph].n_events, SM_MAX_EVENTS);
            return SM_BAD_OPTION;
        }
    sm_solver_options opt;
    if (o)
        opt = *o;
    else
        sm_solver_options_default(&opt);
    if (check_options(&opt, &field_names, why, why_len) != SM_OK) return SM_BAD_OPTION;
    if (m->clock_period && sm_arkode_method(opt.method)) {
        /* ARKODE's path finds no stop times of a clock (hybrid_arkode.c) */
        snprintf(why, why_len, "model '%s' has a sampled controller, which sm_solver_options.method %s does not "
                 "integrate: use adams or bdf", m->name, sm_method_name(opt.method));
        return SM_BAD_OPTION;
    }

    sm_workspace *ws = calloc(1, sizeof *ws);
    if (!ws) {
        snprintf(why, why_len, "out of memory for the workspace of model '%s'", m->name);
        return SM_NO_MEMORY;
    }
    ws->model = m;
    ws->opt = opt;
    ws->rooted_phase = (size_t)-1;
    ws->phase = &m->phases[m->start_phase];

    sunindextype n = (sunindextype)m->n_state;
    int bad = SUNContext_Create(NULL, &ws->ctx);
    if (!bad) bad = !(ws->y = N_VNew_Serial(n, ws->ctx));
    if (!bad) bad = !(ws->cvode = CVodeCreate(opt.method == SM_METHOD_BDF ? CV_BDF : CV_ADAMS, ws->ctx));
    if (!bad) bad = CVodeSetErrHandlerFn(ws->cvode, error_cb, ws);
    /* Fused vector operations (one loop for CVODE's N_VScaleAddMulti and
     * friends; CVODE's clones of y inherit it): 3-5 % fewer instructions per
     * stride on the closed-form walkers, the same steps and gaits
     * (bench/README.md). */
    if (!bad) bad = N_VEnableFusedOps_Serial(ws->y, SUNTRUE);
    if (!bad) {
        N_VConst(0.0, ws->y);
        bad = CVodeInit(ws->cvode, rhs_cb, 0.0, ws->y);
    }
    if (!bad) bad = CVodeSetUserData(ws->cvode, ws);
    if (!bad) bad = CVodeSStolerances(ws->cvode, opt.rtol, opt.atol);
    if (!bad) bad = CVodeSetMaxNumSteps(ws->cvode, steps_per_call(&opt));
    if (!bad && opt.max_step > 0) bad = CVodeSetMaxStep(ws->cvode, opt.max_step);
    if (!bad && opt.max_order > 0) bad = CVodeSetMaxOrd(ws->cvode, opt.max_order);
    if (!bad) bad = CVodeSetNoInactiveRootWarn(ws->cvode);
    if (!bad && opt.method == SM_METHOD_ADAMS) {
        /* Adams on a non-stiff walker: fixed-point iteration needs no Jacobian. */
        bad = !(ws->nls = SUNNonlinSol_FixedPoint(ws->y, 0, ws->ctx));
        if (!bad) bad = CVodeSetNonlinearSolver(ws->cvode, ws->nls);
    } else if (!bad) {
        bad = !(ws->A = SUNDenseMatrix(n, n, ws->ctx));
        if (!bad) bad = !(ws->ls = SUNLinSol_Dense(ws->y, ws->A, ws->ctx));
        if (!bad) bad = CVodeSetLinearSolver(ws->cvode, ws->ls, ws->A);
        if (!bad && m->clock_period) {
            bad = !(ws->J_tick = SUNDenseMatrix(n, n, ws->ctx)) || !(ws->ewt = N_VClone(ws->y));
            if (!bad) bad = CVodeSetJacFn(ws->cvode, jac_cb);
            if (!bad) bad = CVodeSetJacEvalFrequency(ws->cvode, SM_TICK_JAC_STEPS);
        }
    }
    if (!bad && sm_arkode_method(opt.method))
        bad = sm_arkode_create(m, &opt, ws->ctx, &ws->counters, ws->detail, sizeof ws->detail, &ws->ark) != SM_OK;
    if (bad) {
        /* CVODE's error handler has said why, if it was CVODE */
        if (ws->detail[0])
            snprintf(why, why_len, "cannot set up the integrator for model '%s': %s", m->name, ws->detail);
        else
            snprintf(why, why_len, "cannot set up the integrator for model '%s' (%zu states): out of memory",
                     m->name, m->n_state);
        sm_workspace_free(ws);
        return SM_NO_MEMORY;
    }
    *out = ws;
    return SM_OK;
}

const sm_model *sm_workspace_model(const sm_workspace *ws) { return ws->model; }
sm_event_found sm_hybrid_event_found(const sm_workspace *ws) { return ws->found; }
const sm_solver_options *sm_workspace_options(const sm_workspace *ws) { return &ws->opt; }
const char *sm_workspace_detail(const sm_workspace *ws) { return ws->detail; }
void sm_workspace_counters(const sm_workspace *ws, sm_counters *c) { *c = ws->counters; }
void sm_workspace_reset_counters(sm_workspace *ws) { memset(&ws->counters, 0, sizeof ws->counters); }

static sm_status watch_events_of(sm_workspace *ws, size_t phase)
{
    if (ws->rooted_phase == phase) return SM_OK;
    const sm_phase *P = &ws->model->phases[phase];
    int dir[SM_MAX_EVENTS];
    for (size_t e = 0; e < P->n_events; e++) dir[e] = P->events[e].direction;
    if (CVodeRootInit(ws->cvode, (int)P->n_events, root_cb) != CV_SUCCESS ||
        CVodeSetRootDirection(ws->cvode, dir) != CV_SUCCESS)
        return SM_INTEGRATOR_FAILED;
    ws->rooted_phase = phase;
    return SM_OK;
}

static sm_status failure_status(sm_workspace *ws, int flag)
{
    switch (flag) {
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
    case CV_RTFUNC_FAIL:
        return ws->fail.status != SM_OK ? ws->fail.status : SM_RHS_FAILED;
    case CV_MEM_FAIL:
        return SM_NO_MEMORY;
    default:
        /* A model failure that CVODE met inside its nonlinear solver ends as
         * a convergence or error-test failure; the callback knows why. */
        return ws->fail.status != SM_OK ? ws->fail.status : SM_INTEGRATOR_FAILED;
    }
}

/* CVODE's counters restart at every CVodeReInit: bank them first. */
static void add_steps(sm_workspace *ws)
{
    long nst = 0, nge = 0;
    CVodeGetNumSteps(ws->cvode, &nst);
    CVodeGetNumGEvals(ws->cvode, &nge);
    ws->counters.steps += nst;
    ws->counters.root_evals += nge;
}

static void add_cvode_counters(sm_workspace *ws)
{
    add_steps(ws);
    ws->counters.flows++;
}

/* The sensitivity right-hand side for all columns at once:
 * ySdot_j = df/dx(t, y) yS_j.  With the phase's jac that is exact; without
 * it, a central difference quotient of f along yS_j, the step scaled so
 * that the state moves by cbrt(eps) max(1, |y|) (truncation and rounding
 * both about eps^(2/3) relative, 1e-11).  Our own quotient, not CVODES's
 * internal one, because these are sensitivities to initial conditions
 * (there is no parameter array p for CVODES to perturb) and because its
 * step, sqrt(rtol), would tie their accuracy to the tolerance. */
static int sens_rhs_cb(int ns, sunrealtype t, N_Vector y, N_Vector ydot, N_Vector *yS, N_Vector *ySdot,
                       void *user, N_Vector tmp1, N_Vector tmp2)
{
    (void)ydot;
    sm_workspace *ws = user;
    if (ws->fail.fatal) return -1;
    const size_t n = ws->model->n_state;
    const double *x = N_VGetArrayPointer(y);
    const sm_phase *P = ws->phase;
    if (P->jac) {
        double J[SM_MAX_STATE * SM_MAX_STATE];
        int r = P->jac(t, x, J, ws->p, ws->model->data);
        if (r != 0) return r < 0 ? -1 : 1;
        for (int k = 0; k < ns; k++) {
            const double *s = N_VGetArrayPointer(yS[k]);
            double *d = N_VGetArrayPointer(ySdot[k]);
            for (size_t i = 0; i < n; i++) {
                double acc = 0.0;
                for (size_t j = 0; j < n; j++) acc += J[i * n + j] * s[j];
                d[i] = acc;
            }
        }
        return 0;
    }
    double *xp = N_VGetArrayPointer(tmp1), *fm = N_VGetArrayPointer(tmp2);
    double ymax = 1.0;
    for (size_t i = 0; i < n; i++) ymax = fmax(ymax, fabs(x[i]));
    const double delta = cbrt(DBL_EPSILON) * ymax;
    for (int k = 0; k < ns; k++) {
        const double *s = N_VGetArrayPointer(yS[k]);
        double *d = N_VGetArrayPointer(ySdot[k]);
        double smax = 0.0;
        for (size_t i = 0; i < n; i++) smax = fmax(smax, fabs(s[i]));
        if (!(smax > 0)) {
            memset(d, 0, n * sizeof *d);
            continue;
        }
        const double sigma = delta / smax;
        for (size_t i = 0; i < n; i++) xp[i] = x[i] - sigma * s[i];
        int r = P->rhs(t, xp, fm, ws->p, ws->model->data);
        if (r == 0) {
            for (size_t i = 0; i < n; i++) xp[i] = x[i] + sigma * s[i];
            r = P->rhs(t, xp, d, ws->p, ws->model->data);
        }
        ws->counters.rhs_evals += 2;
        if (r != 0) return r < 0 ? -1 : 1;
        for (size_t i = 0; i < n; i++) {
            d[i] = (d[i] - fm[i]) / (2 * sigma);
            if (!isfinite(d[i])) return 1;
        }
    }
    return 0;
}

/* CVODES set up for ncols sensitivity columns: once per workspace (again
 * only if the column count changes), so strides allocate nothing. */
static sm_status sens_setup(sm_workspace *ws, size_t ncols)
{
    if (ws->sens_cols == (int)ncols) return SM_OK;
    if (ws->yS) {
        CVodeSensFree(ws->cvode);
        N_VDestroyVectorArray(ws->yS, ws->sens_cols);
        ws->yS = NULL;
        ws->sens_cols = 0;
    }
    if (ws->nlsS) {
        SUNNonlinSolFree(ws->nlsS);
        ws->nlsS = NULL;
    }
    ws->yS = N_VCloneVectorArray((int)ncols, ws->y);
    if (!ws->yS) return SM_NO_MEMORY;
    ws->sens_cols = (int)ncols;
    for (size_t j = 0; j < ncols; j++) N_VConst(0.0, ws->yS[j]);
    /* Staggered: the state's corrector converges first, then the
     * sensitivities', each step; the error test covers both. */
    int bad = CVodeSensInit(ws->cvode, (int)ncols, CV_STAGGERED, sens_rhs_cb, ws->yS);
    if (!bad) bad = CVodeSensEEtolerances(ws->cvode);
    if (!bad) bad = CVodeSetSensErrCon(ws->cvode, SUNTRUE);
    if (!bad && ws->opt.method == SM_METHOD_ADAMS) {
        /* As for the state: Adams iterates to a fixed point, no Jacobian. */
        bad = !(ws->nlsS = SUNNonlinSol_FixedPointSens((int)ncols, ws->y, 0, ws->ctx));
        if (!bad) bad = CVodeSetNonlinearSolverSensStg(ws->cvode, ws->nlsS);
    }
    if (!bad) bad = CVodeSensToggleOff(ws->cvode);
    ws->sens_on = false;
    return bad ? SM_INTEGRATOR_FAILED : SM_OK;
}

/* The first tick of the model's clock (model.h, clock_period) after t,
 * as its index k (the tick is k period, never summed up, so every stride
 * ticks at the same instants); INFINITY without a clock. */
static double next_tick(const sm_model *m, const double *p, double t, long *k)
{
    const double period = m->clock_period ? m->clock_period(p, m->data) : 0.0;
    if (!(period > 0) || !isfinite(period)) return INFINITY;
    *k = (long)floor(t / period) + 1;
    while (!((double)*k * period > t)) (*k)++;
    return (double)*k * period;
}

/* A tick at t: the state y replaced by the clock's reset, the
 * sensitivities carried through the reset's Jacobian DR (central
 * differences, as the saltation's where a model gives none: a tick's time
 * does not move with the start, so S+ = DR S- with no time-shift term),
 * CVODE restarted there with its stop time at t_stop. */
static sm_status clock_tick(sm_workspace *ws, const double *p, size_t phase, double t, bool sens, double t_stop)
{
    const sm_model *m = ws->model;
    const size_t n = m->n_state;
    double *y = N_VGetArrayPointer(ws->y);
    double xp[SM_MAX_STATE];
    if (sens) {
        double ts = t, DR[SM_MAX_STATE * SM_MAX_STATE], yy[SM_MAX_STATE], up[SM_MAX_STATE], dn[SM_MAX_STATE];
        if (CVodeGetSens(ws->cvode, &ts, ws->yS) != CV_SUCCESS) return SM_INTEGRATOR_FAILED;
        memcpy(yy, y, n * sizeof *yy);
        for (size_t j = 0; j < n; j++) {
            const double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(y[j]));
            yy[j] = y[j] + h;
            int r = m->clock_reset(phase, yy, up, p, m->data);
            yy[j] = y[j] - h;
            if (r == 0) r = m->clock_reset(phase, yy, dn, p, m->data);
            yy[j] = y[j];
            if (r != 0) return r < 0 ? sm_callback_status(r) : SM_RHS_FAILED;
            for (size_t i = 0; i < n; i++) DR[i * n + j] = (up[i] - dn[i]) / (2 * h);
        }
        for (int k = 0; k < ws->sens_cols; k++) {
            double *col = N_VGetArrayPointer(ws->yS[k]);
            for (size_t i = 0; i < n; i++) {
                double acc = 0.0;
                for (size_t j = 0; j < n; j++) acc += DR[i * n + j] * col[j];
                xp[i] = acc;
            }
            memcpy(col, xp, n * sizeof *col);
        }
    }
    const int r = m->clock_reset(phase, y, xp, p, m->data);
    if (r != 0) return r < 0 ? sm_callback_status(r) : SM_RHS_FAILED;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(xp[i])) return SM_NONFINITE;
    memcpy(y, xp, n * sizeof *y);
    add_steps(ws); /* CVodeReInit restarts CVODE's counters */
    ws->J_tick_reuse = true; /* jac_cb: the state has not moved, only the held torques */
    if (CVodeReInit(ws->cvode, t, ws->y) != CV_SUCCESS || CVodeSetStopTime(ws->cvode, t_stop) != CV_SUCCESS ||
        (sens && CVodeSensReInit(ws->cvode, CV_STAGGERED, ws->yS) != CV_SUCCESS))
        return SM_INTEGRATOR_FAILED;
    return SM_OK;
}

/* The event a tick of the clock sets off, if any: the phase's event
 * functions taken at y_minus and at y, the states just before and after
 * the tick's reset (the new held values), at its instant t.  A function
 * that reads the held values (a contact force) jumps there, and CVODE's
 * root finder, which watches continuous crossings only, would not see it
 * cross; a jump from strictly one side of zero to the other side or onto
 * zero, in the event's direction, is the crossing instead, and counts as
 * the root finder's would (its guard at y, earlier entries winning ties).
 * A function already at zero before the tick is one CVODE has set aside,
 * not a crossing.  The functions before the tick are taken only when one
 * after it is on the far side of zero (mostly none is: a tick then costs
 * one evaluation, not two).  *e is the event's index, n_events when none
 * counts; *on_zero says whether its function landed exactly on zero. */
static sm_status tick_event(sm_workspace *ws, const double *p, const sm_phase *P, double t, const double *y_minus,
                            const double *y, size_t *e, bool *on_zero)
{
    const size_t ne = P->n_events;
    double g[SM_MAX_EVENTS], gm[SM_MAX_EVENTS];
    int found[SM_MAX_EVENTS];
    *e = ne;
    *on_zero = false;
    ws->counters.root_evals++;
    if (!sm_phase_events(ws->model, P, p, ws->t_start, t, y, g)) return SM_NONFINITE;
    bool beyond = false;
    for (size_t i = 0; i < ne; i++) {
        const int dir = P->events[i].direction;
        beyond |= (dir <= 0 && g[i] <= 0) || (dir >= 0 && g[i] >= 0);
    }
    if (!beyond) return SM_OK;
    ws->counters.root_evals++;
    if (!sm_phase_events(ws->model, P, p, ws->t_start, t, y_minus, gm)) return SM_NONFINITE;
    for (size_t i = 0; i < ne; i++) {
        const int dir = P->events[i].direction;
        const bool down = gm[i] > 0 && g[i] <= 0, up = gm[i] < 0 && g[i] >= 0;
        found[i] = (down && dir <= 0) ? -1 : (up && dir >= 0) ? 1 : 0;
    }
    *e = sm_phase_counting_event(ws->model, P, p, ws->t_start, t, y, found);
    *on_zero = *e < ne && g[*e] == 0.0;
    return SM_OK;
}

/* CVode(tout, CV_NORMAL) made of single steps, each shown to the
 * observer (each_step): the same returns (a root, the stop time t_stop, a
 * failure, tout, CV_TOO_MUCH_WORK after as many steps as one call may
 * take), or OBSERVER_REFUSED.  tout is made a stop time, so that no step
 * passes it: a step beyond it would report a root after tout before the
 * sample at tout (CV_NORMAL looks for roots only up to tout). */
#define OBSERVER_REFUSED 99
static int steps_to(sm_workspace *ws, const sm_observer *obs, size_t phase, double tout, double t_stop, double *tret)
{
    const bool clip = tout < t_stop;
    if (clip && CVodeSetStopTime(ws->cvode, tout) != CV_SUCCESS) return CV_ILL_INPUT;
    int flag = CV_TOO_MUCH_WORK;
    for (long k = 0, most = steps_per_call(&ws->opt); k < most; k++) {
        flag = CVode(ws->cvode, tout, ws->y, tret, CV_ONE_STEP);
        if (flag != CV_SUCCESS) break;
        if (obs->sample(obs->ctx, *tret, phase, N_VGetArrayPointer(ws->y)) != 0) {
            flag = OBSERVER_REFUSED;
            break;
        }
    }
    if (clip && flag == CV_TSTOP_RETURN) flag = CV_SUCCESS; /* at tout */
    if (clip && CVodeSetStopTime(ws->cvode, t_stop) != CV_SUCCESS) return CV_ILL_INPUT;
    return flag;
}

static sm_status flow(sm_workspace *ws, const double *p, size_t phase, double *t, double *x, double *S,
                      size_t ncols, double t_end, const sm_observer *obs, size_t *event)
{
    const sm_model *m = ws->model;
    const sm_phase *P = &m->phases[phase];
    ws->found = SM_FOUND_BY_ROOT;
    if (!(t_end > *t)) return SM_NO_HEELSTRIKE;
    if (ws->ark) return sm_arkode_flow(ws->ark, p, phase, t, x, t_end, obs, event);

    ws->p = p;
    ws->phase = P;
    ws->t_start = *t;
    ws->J_tick_valid = ws->J_tick_reuse = false; /* another phase, another Jacobian */
    ws->fail.status = SM_OK;
    ws->fail.fatal = false;
    ws->detail[0] = '\0';
    double *y = N_VGetArrayPointer(ws->y);
    memcpy(y, x, m->n_state * sizeof *y);
    long k_tick = 0;
    double t_tick = next_tick(m, p, *t, &k_tick);
    double t_stop = fmin(t_end, t_tick);

    if (CVodeReInit(ws->cvode, *t, ws->y) != CV_SUCCESS || watch_events_of(ws, phase) != SM_OK ||
        CVodeSetStopTime(ws->cvode, t_stop) != CV_SUCCESS)
        return SM_INTEGRATOR_FAILED;
    if (S) {
        for (size_t j = 0; j < ncols; j++)
            memcpy(N_VGetArrayPointer(ws->yS[j]), S + j * m->n_state, m->n_state * sizeof *S);
        if (CVodeSensReInit(ws->cvode, CV_STAGGERED, ws->yS) != CV_SUCCESS) return SM_INTEGRATOR_FAILED;
        ws->sens_on = true;
    } else if (ws->sens_on) {
        if (CVodeSensToggleOff(ws->cvode) != CV_SUCCESS) return SM_INTEGRATOR_FAILED;
        ws->sens_on = false;
    }

    const bool sampling = obs && obs->sample && obs->dt > 0, each_step = obs && obs->sample && obs->each_step;
    double t_sample = *t;
    sm_status st = SM_NO_HEELSTRIKE;
    int rootsfound[SM_MAX_EVENTS];
    for (;;) {
        double tout = t_end, tret = *t;
        if (sampling) {
            t_sample += obs->dt;
            if (t_sample < t_end) tout = t_sample;
        }
        int flag = each_step ? steps_to(ws, obs, phase, tout, t_stop, &tret) : CVode(ws->cvode, tout, ws->y, &tret, CV_NORMAL);
        if (flag == OBSERVER_REFUSED) {
            st = SM_IO_ERROR;
            *t = tret;
            break;
        }
        if (flag == CV_ROOT_RETURN) {
            if (sampling) t_sample -= obs->dt; /* the sample at tout is still due */
            CVodeGetRootInfo(ws->cvode, rootsfound);
            const size_t e = sm_phase_counting_event(m, P, p, ws->t_start, tret, y, rootsfound);
            if (e == P->n_events) {
                /* A crossing that does not count (the start of a step, a
                 * scuff).  Restart CVODE there: its initial root check then
                 * sets that function aside until it leaves zero, whereas
                 * stepping on from a root a hair after t0 (every step starts
                 * on the heel-strike surface) can end in CVODE's "root found
                 * at and very near t" failure. */
                add_steps(ws);
                /* The sensitivities at the crossing come from CVODES's
                 * history, which CVodeReInit clears: take them first. */
                double ts = tret;
                if ((S && CVodeGetSens(ws->cvode, &ts, ws->yS) != CV_SUCCESS) ||
                    CVodeReInit(ws->cvode, tret, ws->y) != CV_SUCCESS ||
                    CVodeSetStopTime(ws->cvode, t_stop) != CV_SUCCESS ||
                    (S && CVodeSensReInit(ws->cvode, CV_STAGGERED, ws->yS) != CV_SUCCESS)) {
                    st = SM_INTEGRATOR_FAILED;
                    *t = tret;
                    break;
                }
                continue;
            }
            *event = e;
            st = SM_OK;
            *t = tret;
            break;
        }
        if (flag == CV_TOO_MUCH_WORK && ws->opt.method == SM_METHOD_ADAMS) {
            /* Adams checks in every SM_STIFF_CHECK_STEPS steps.  On a stiff
             * phase its fixed-point iteration diverges unless the step is
             * tiny, so it fails to converge on a large share of its steps
             * (about a third on a knee damper of 1e6 N m s, none on the
             * walkers' own gaits): stop in milliseconds, not minutes. */
            long nst = 0, ncfn = 0;
            CVodeGetNumSteps(ws->cvode, &nst);
            CVodeGetNumNonlinSolvConvFails(ws->cvode, &ncfn);
            if (10 * ncfn >= nst && ws->fail.status == SM_OK) {
                st = SM_STIFF;
                *t = tret;
                break;
            }
            if (nst < ws->opt.max_num_steps) {
                if (sampling) t_sample -= obs->dt; /* the sample at tout is still due */
                continue;
            }
        }
        if (flag < 0) {
            st = failure_status(ws, flag);
            *t = tret;
            break;
        }
        *t = tret;
        if (tret == t_tick && t_tick < t_end) {
            /* a tick of the model's clock (its stop time), before any
             * sample due there: the sample then sees the held torques it
             * holds from now on, as at a phase's start */
            t_tick = (double)++k_tick * m->clock_period(p, m->data);
            t_stop = fmin(t_end, t_tick);
            double y_minus[SM_MAX_STATE];
            memcpy(y_minus, y, m->n_state * sizeof *y);
            if ((st = clock_tick(ws, p, phase, tret, S != NULL, t_stop)) != SM_OK) break;
            size_t e;
            bool on_zero;
            if ((st = tick_event(ws, p, P, tret, y_minus, y, &e, &on_zero)) != SM_OK) break;
            if (e < P->n_events) {
                *event = e;
                ws->found = on_zero ? SM_FOUND_AT_TICK_ON_ZERO : SM_FOUND_AT_TICK;
                st = SM_OK;
                break;
            }
            st = SM_NO_HEELSTRIKE;
            /* the sample at tout is still due, unless it falls within
             * round-off of the tick (CVODE cannot step that far): then
             * it is taken here */
            if (sampling && tout - tret > 64 * DBL_EPSILON * fmax(1.0, fabs(tret))) {
                t_sample -= obs->dt;
                continue;
            }
        }
        if (sampling && tret < t_end && obs->sample(obs->ctx, tret, phase, y) != 0) {
            st = SM_IO_ERROR;
            break;
        }
        if (tret >= t_end) {
            st = SM_NO_HEELSTRIKE;
            break;
        }
    }
    memcpy(x, y, m->n_state * sizeof *y);
    if (S) {
        double ts = *t;
        if (CVodeGetSens(ws->cvode, &ts, ws->yS) != CV_SUCCESS && st == SM_OK) st = SM_INTEGRATOR_FAILED;
        for (size_t j = 0; j < ncols; j++)
            memcpy(S + j * m->n_state, N_VGetArrayPointer(ws->yS[j]), m->n_state * sizeof *S);
    }
    add_cvode_counters(ws);
    return st;
}

sm_status sm_hybrid_flow(sm_workspace *ws, const double *p, size_t phase, double *t, double *x,
                         double t_end, const sm_observer *obs, size_t *event)
{
    return flow(ws, p, phase, t, x, NULL, 0, t_end, obs, event);
}

sm_status sm_hybrid_flow_sens(sm_workspace *ws, const double *p, size_t phase, double *t, double *x, double *S,
                              size_t ncols, double t_end, size_t *event)
{
    if (ncols == 0 || ncols > SM_MAX_STATE) return SM_BAD_OPTION;
    /* ARKODE's explicit pairs carry no sensitivities, and CVODES's would be
     * the derivative of another map than the one the stride integrates. */
    if (ws->ark) return SM_NO_EXACT_JACOBIAN;
    const sm_status st = sens_setup(ws, ncols);
    if (st != SM_OK) return st;
    return flow(ws, p, phase, t, x, S, ncols, t_end, NULL, event);
}

void sm_sundials_runtime(char *version, size_t version_len, char *path, size_t path_len)
{
    if (version_len > 0 && SUNDIALSGetVersion(version, (int)version_len) != 0) version[0] = '\0';
    if (path_len == 0) return;
    /* The loader's answer, not the build's: an rpath that missed, or an
     * LD_LIBRARY_PATH, shows here. */
    Dl_info info;
    /* ISO C has no function-to-object pointer cast; POSIX's dladdr needs
     * one, so the address goes through a union */
    union {
        void *(*fn)(int, SUNContext);
        void *obj;
    } addr = {.fn = CVodeCreate};
    if (dladdr(addr.obj, &info) != 0 && info.dli_fname)
        snprintf(path, path_len, "%s", info.dli_fname);
    else
        path[0] = '\0';
}
