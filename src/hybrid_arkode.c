/* ARKODE's explicit Runge-Kutta pairs (ERKStep) behind sm_hybrid_flow.
 *
 * Same contract as the CVODE path in hybrid.c: events are ARKODE roots with
 * the model's directions, guards are applied here, a crossing that does not
 * count is stepped past, t_end is a stop time.  The integrator runs one step
 * at a time so that the start of the step that holds a root is known: ARKODE
 * finds the root on its dense output, whose error is larger than the step's
 * own (even a degree-5 Hermite interpolant under an 8th-order step left the
 * simplest walker's heel-strike 1.6e-9 off in time at rtol 1e-10, 1.1e-11
 * after refine_root), so the crossing is re-found on states computed by the
 * Runge-Kutta pair itself (refine_root), and the dense output that only
 * brackets it can be cubic. */
#include "hybrid_internal.h"

#include <arkode/arkode_erkstep.h>
#include <float.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SM_ARK_MAX_EVENTS 32
/* Steps between two looks for stiffness, as the Adams path does. */
#define SM_ARK_STIFF_CHECK_STEPS 5000

struct sm_arkode {
    const sm_model *model;
    sm_solver_options opt;
    void *erk;     /* the adaptive integrator, watching the phase's events */
    void *dense;   /* the same with the degree-5 dense output, for flows that are sampled */
    void *fixed;   /* one Runge-Kutta step of a given length, for refine_root */
    void *mem;     /* erk or dense: the one the current flow runs */
    N_Vector y;    /* the state it advances */
    N_Vector y0;   /* the state at the start of the last step taken */
    N_Vector yr;   /* refine_root's trial state */

    const double *p;
    const sm_phase *phase;
    size_t rooted_phase, dense_rooted_phase;
    double t_start;     /* the flow's start, where the phase's event clock is 0 */
    sm_phase_failure fail;
    sm_counters *counters;
    char *detail;
    size_t detail_len;
};

bool sm_arkode_method(sm_method m)
{
    return m == SM_METHOD_ERK8 || m == SM_METHOD_ERK5;
}

static ARKODE_ERKTableID table_of(sm_method m)
{
    return m == SM_METHOD_ERK5 ? ARKODE_DORMAND_PRINCE_7_4_5 : ARKODE_FEHLBERG_13_7_8;
}

static int rhs_cb(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    sm_arkode *a = user;
    if (!a->fail.fatal) a->counters->rhs_evals++;
    return sm_phase_rhs(a->model, a->phase, a->p, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), &a->fail);
}

static int events_at(const sm_arkode *a, double t, const double *x, double *g)
{
    return sm_phase_events(a->model, a->phase, a->p, a->t_start, t, x, g) ? 0 : -1;
}

static int root_cb(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    sm_arkode *a = user;
    a->counters->root_evals++;
    if (events_at(a, t, N_VGetArrayPointer(y), g) != 0) {
        a->fail.status = SM_NONFINITE;
        return -1;
    }
    return 0;
}

static void error_cb(int code, const char *module, const char *function, char *msg, void *user)
{
    sm_arkode *a = user;
    if (code > 0) return;
    snprintf(a->detail, a->detail_len, "%s/%s: %s", module, function, msg);
}

void sm_arkode_free(sm_arkode *a)
{
    if (!a) return;
    if (a->erk) ERKStepFree(&a->erk);
    if (a->fixed) ERKStepFree(&a->fixed);
    if (a->dense) ERKStepFree(&a->dense);
    if (a->y) N_VDestroy(a->y);
    if (a->y0) N_VDestroy(a->y0);
    if (a->yr) N_VDestroy(a->yr);
    free(a);
}

static int setup(sm_arkode *a, void *mem, bool adaptive, int degree)
{
    int bad = ERKStepSetErrHandlerFn(mem, error_cb, a);
    if (!bad) bad = ERKStepSetUserData(mem, a);
    if (!bad) bad = ERKStepSetTableNum(mem, table_of(a->opt.method));
    if (!bad) bad = ERKStepSStolerances(mem, a->opt.rtol, a->opt.atol);
    if (!bad && adaptive) {
        /* One step per ERKStepEvolve call (ARK_ONE_STEP): the flow counts
         * the steps against max_num_steps itself. */
        if (a->opt.max_step > 0) bad = ERKStepSetMaxStep(mem, a->opt.max_step);
        if (!bad) bad = ERKStepSetInterpolantDegree(mem, degree);
    }
    return bad;
}

sm_status sm_arkode_create(const sm_model *m, const sm_solver_options *o, SUNContext ctx, sm_counters *counters,
                           char *detail, size_t detail_len, sm_arkode **out)
{
    *out = NULL;
    sm_arkode *a = calloc(1, sizeof *a);
    if (!a) return SM_NO_MEMORY;
    a->model = m;
    a->opt = *o;
    a->counters = counters;
    a->detail = detail;
    a->detail_len = detail_len;
    a->rooted_phase = a->dense_rooted_phase = (size_t)-1;
    a->phase = &m->phases[m->start_phase];
    sunindextype n = (sunindextype)m->n_state;
    int bad = !(a->y = N_VNew_Serial(n, ctx)) || !(a->y0 = N_VNew_Serial(n, ctx)) || !(a->yr = N_VNew_Serial(n, ctx));
    /* ERKStep forms each stage with N_VLinearCombination, which without
     * fused operations falls back to one N_VLinearSum per term. */
    if (!bad) bad = N_VEnableFusedOps_Serial(a->y, SUNTRUE);
    if (!bad) {
        N_VConst(0.0, a->y);
        bad = !(a->erk = ERKStepCreate(rhs_cb, 0.0, a->y, ctx)) || !(a->dense = ERKStepCreate(rhs_cb, 0.0, a->y, ctx)) ||
              !(a->fixed = ERKStepCreate(rhs_cb, 0.0, a->y, ctx));
    }
    /* Events need no more than cubic dense output, since refine_root
     * re-finds them on the pair's steps: degree 5 (ARKODE's default for
     * these pairs) costs two RHS evaluations more at every interpolation,
     * 140 of 407 per stride of the simplest walker with erk8 at 1e-8.
     * Samples for an observer get degree 5. */
    if (!bad) bad = setup(a, a->erk, true, 3) || setup(a, a->dense, true, 5) || setup(a, a->fixed, false, 0);
    if (bad) {
        sm_arkode_free(a);
        return SM_NO_MEMORY;
    }
    *out = a;
    return SM_OK;
}

static sm_status watch_events_of(sm_arkode *a, size_t phase)
{
    size_t *rooted = a->mem == a->dense ? &a->dense_rooted_phase : &a->rooted_phase;
    if (*rooted == phase) return SM_OK;
    const sm_phase *P = &a->model->phases[phase];
    int dir[SM_ARK_MAX_EVENTS];
    for (size_t e = 0; e < P->n_events; e++) dir[e] = P->events[e].direction;
    if (ERKStepRootInit(a->mem, (int)P->n_events, root_cb) != ARK_SUCCESS ||
        (P->n_events > 0 && (ERKStepSetRootDirection(a->mem, dir) != ARK_SUCCESS ||
                             ERKStepSetNoInactiveRootWarn(a->mem) != ARK_SUCCESS)))
        return SM_INTEGRATOR_FAILED;
    *rooted = phase;
    return SM_OK;
}

static sm_status failure_status(const sm_arkode *a, int flag)
{
    switch (flag) {
    case ARK_MEM_FAIL:
        return SM_NO_MEMORY;
    default:
        /* A model failure ends as an RHS, root or error-test failure; the
         * callback knows why. */
        if (a->fail.status != SM_OK) return a->fail.status;
        return flag == ARK_RHSFUNC_FAIL || flag == ARK_UNREC_RHSFUNC_ERR || flag == ARK_RTFUNC_FAIL ||
                       flag == ARK_FIRST_RHSFUNC_ERR || flag == ARK_REPTD_RHSFUNC_ERR
                   ? SM_RHS_FAILED
                   : SM_INTEGRATOR_FAILED;
    }
}

/* Samples at t_s + k dt up to t_upto (excluded unless inclusive), never at
 * or past t_end, from ARKODE's dense output over the last step. */
static int emit_samples(sm_arkode *a, const sm_observer *obs, size_t phase, double *t_sample, double t_upto,
                        bool inclusive, double t_end)
{
    for (;;) {
        double ts = *t_sample + obs->dt;
        if (!(ts < t_end) || ts > t_upto || (!inclusive && ts == t_upto)) return 0;
        if (ERKStepGetDky(a->mem, ts, 0, a->yr) != ARK_SUCCESS) return -1;
        *t_sample = ts;
        if (obs->sample(obs->ctx, ts, phase, N_VGetArrayPointer(a->yr)) != 0) return 1;
    }
}

/* The state one Runge-Kutta step of the pair takes from (t0, y0) to tau, into
 * yr, and event e's value there: smooth in tau, and as accurate as the
 * adaptive step that crossed (tau - t0 is at most that step's length). */
static int step_to(sm_arkode *a, size_t e, double t0, double tau, double *g)
{
    if (!(tau > t0)) {
        N_VScale(1.0, a->y0, a->yr);
    } else {
        double tret = t0;
        if (ERKStepReInit(a->fixed, rhs_cb, t0, a->y0) != ARK_SUCCESS ||
            ERKStepSetFixedStep(a->fixed, tau - t0) != ARK_SUCCESS ||
            ERKStepSetStopTime(a->fixed, tau) != ARK_SUCCESS ||
            ERKStepEvolve(a->fixed, tau, a->yr, &tret, ARK_NORMAL) < 0)
            return -1;
    }
    double gv[SM_ARK_MAX_EVENTS];
    if (events_at(a, tau, N_VGetArrayPointer(a->yr), gv) != 0) return -1;
    *g = gv[e];
    return 0;
}

/* Event e's crossing in the last step [t0, t1], from ARKODE's estimate *t
 * on its dense output: secant iteration on g_e(step_to(tau)), its first
 * slope from the dense output.  On return (*t, y) is the crossing; if the
 * iteration fails they stay ARKODE's. */
static sm_status refine_root(sm_arkode *a, size_t e, double t0, double t1, double *t, double *y)
{
    const size_t n = a->model->n_state;
    const double h = t1 - t0, tiny = 8 * DBL_EPSILON * (fabs(t1) + h);
    double ta = *t, ga;
    if (step_to(a, e, t0, ta, &ga) != 0) return a->fail.status != SM_OK ? a->fail.status : SM_INTEGRATOR_FAILED;
    /* The slope from the dense output, a central difference over 1e-6 of the step. */
    double eps = 1e-6 * h, gp[SM_ARK_MAX_EVENTS], gm[SM_ARK_MAX_EVENTS];
    double tp = fmin(ta + eps, t1), tm = fmax(ta - eps, t0);
    if (!(tp > tm) || ERKStepGetDky(a->mem, tp, 0, a->yr) != ARK_SUCCESS)
        return SM_OK;
    if (events_at(a, tp, N_VGetArrayPointer(a->yr), gp) != 0 || ERKStepGetDky(a->mem, tm, 0, a->yr) != ARK_SUCCESS ||
        events_at(a, tm, N_VGetArrayPointer(a->yr), gm) != 0)
        return SM_OK;
    double slope = (gp[e] - gm[e]) / (tp - tm);
    if (!(slope != 0) || !isfinite(slope)) return SM_OK;
    double tb = ta - ga / slope, gb = ga;
    for (int it = 0; it < 8; it++) {
        if (!(tb >= t0 - h && tb <= t1 + h)) return SM_OK; /* not converging near the step: keep ARKODE's */
        if (step_to(a, e, t0, tb, &gb) != 0) return a->fail.status != SM_OK ? a->fail.status : SM_INTEGRATOR_FAILED;
        if (fabs(tb - ta) <= tiny || gb == 0 || gb == ga) break;
        double tc = tb - gb * (tb - ta) / (gb - ga);
        /* A correction below round-off of t: tb is the crossing, no
         * further step needed (saves one in two or three). */
        if (fabs(tc - tb) <= tiny) break;
        ta = tb;
        ga = gb;
        tb = tc;
    }
    *t = tb;
    memcpy(y, N_VGetArrayPointer(a->yr), n * sizeof *y);
    return SM_OK;
}

sm_status sm_arkode_flow(sm_arkode *a, const double *p, size_t phase, double *t, double *x, double t_end,
                         const sm_observer *obs, size_t *event)
{
    const sm_model *m = a->model;
    const sm_phase *P = &m->phases[phase];
    if (!(t_end > *t)) return SM_NO_HEELSTRIKE;

    a->p = p;
    a->phase = P;
    a->t_start = *t;
    a->fail.status = SM_OK;
    a->fail.fatal = false;
    a->detail[0] = '\0';
    double *y = N_VGetArrayPointer(a->y);
    double *y0 = N_VGetArrayPointer(a->y0);
    memcpy(y, x, m->n_state * sizeof *y);

    const bool sampling = obs && obs->sample && obs->dt > 0;
    a->mem = sampling ? a->dense : a->erk;
    if (ERKStepReInit(a->mem, rhs_cb, *t, a->y) != ARK_SUCCESS || watch_events_of(a, phase) != SM_OK ||
        ERKStepSetStopTime(a->mem, t_end) != ARK_SUCCESS)
        return SM_INTEGRATOR_FAILED;

    double t_sample = *t, t0 = *t;
    memcpy(y0, y, m->n_state * sizeof *y);
    long steps = 0, fails_seen = 0;
    sm_status st = SM_NO_HEELSTRIKE;
    int rootsfound[SM_ARK_MAX_EVENTS];
    for (;;) {
        double tret = *t;
        int flag = ERKStepEvolve(a->mem, t_end, a->y, &tret, ARK_ONE_STEP);
        if (flag < 0) {
            st = failure_status(a, flag);
            *t = tret;
            break;
        }
        if (sampling) {
            int r = emit_samples(a, obs, phase, &t_sample, tret, flag != ARK_ROOT_RETURN, t_end);
            if (r != 0) {
                st = r > 0 ? SM_IO_ERROR : SM_INTEGRATOR_FAILED;
                *t = tret;
                break;
            }
        }
        if (flag == ARK_ROOT_RETURN) {
            ERKStepGetRootInfo(a->mem, rootsfound);
            const size_t e = sm_phase_counting_event(m, P, p, a->t_start, tret, y, rootsfound);
            /* A crossing that does not count (a scuff): ARKODE's own state
             * is still at the end of the step, so step on from there. */
            if (e == P->n_events) continue;
            *event = e;
            *t = tret;
            double t1 = tret;
            ERKStepGetCurrentTime(a->mem, &t1);
            st = refine_root(a, e, t0, t1, t, y);
            break;
        }
        /* The end of a step: the next step starts here. */
        *t = t0 = tret;
        memcpy(y0, y, m->n_state * sizeof *y);
        if (flag == ARK_TSTOP_RETURN || tret >= t_end) {
            st = SM_NO_HEELSTRIKE;
            break;
        }
        if (++steps % SM_ARK_STIFF_CHECK_STEPS == 0) {
            /* An explicit pair on a stiff phase is held at its stability
             * limit, where the error test keeps failing: 1.4 % of the
             * steps with erk5, 23 % with erk8, on a knee damper of 1e6
             * N m s; at most 4 failures in a whole gait of any walker at
             * 1e-12.  Stop in milliseconds, not seconds. */
            long fails = 0;
            ERKStepGetNumErrTestFails(a->mem, &fails);
            if (100 * (fails - fails_seen) >= SM_ARK_STIFF_CHECK_STEPS && a->fail.status == SM_OK) {
                st = SM_STIFF;
                break;
            }
            fails_seen = fails;
        }
        if (steps >= a->opt.max_num_steps) {
            snprintf(a->detail, a->detail_len, "ARKODE/ERKStepEvolve: at t = %g, %ld steps taken before t_end = %g",
                     tret, steps, t_end);
            st = SM_INTEGRATOR_FAILED;
            break;
        }
    }
    memcpy(x, y, m->n_state * sizeof *y);
    long nst = 0;
    ERKStepGetNumSteps(a->mem, &nst);
    a->counters->steps += nst;
    a->counters->flows++;
    return st;
}
