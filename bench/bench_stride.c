/* bench_stride: what one stride and one gait cost in stridemap, against the
 * floor set by a bare CVODE loop on the same ODE with the same settings.
 *
 *   bench_stride [--quick] [--json] [--tol T] [--profile engine|floor|floor4 N]
 *
 * The simplest walker at gamma = 0.009 with the library's default solver
 * options (Adams, fixed-point nonlinear solver, rtol = atol = 1e-12 since issue 12, 1e-10 before):
 *
 *   engine   sm_stride from the fixed point, many times; best of several runs
 *   floor    CVODE alone: CVodeReInit at the same start, one root function
 *            phi - 2 theta (in the model's direction, rising), CVode until
 *            a root with theta < 0
 *   floor4   the floor watching the model's four event functions, so that
 *            the engine/floor4 ratio is the wrapper's own cost
 *   gait     sm_fixed_point from the model's guess with default options,
 *            checked against a reference at rtol = atol = 1e-13, Newton 1e-13
 *   rimless  sm_stride of the rimless wheel (defaults) from its fixed point
 *
 * Times are wall-clock (CLOCK_MONOTONIC), the best of N runs: the machine is
 * shared and noisy, and the minimum is the least disturbed estimate.
 * --tol T sets rtol = atol = T for every path but the reference (default
 * the library's, 1e-12; 1e-10 before issue 12); --profile runs N strides of one path and nothing
 * else (for callgrind). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, M_PI_2 (meson passes it too) */
#endif

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <time.h>

#include "stridemap/stridemap.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, sm_status st)
{
    fprintf(stderr, "bench_stride: %s: %s (%s)\n", what, sm_status_name(st), sm_strerror(st));
    exit(1);
}

/* ---- the bare CVODE loop ------------------------------------------------ */

typedef struct {
    double gamma;
    long rhs_evals;
} floor_data;

static int floor_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    (void)t;
    floor_data *d = user;
    d->rhs_evals++;
    const double *x = N_VGetArrayPointer(y);
    double *xd = N_VGetArrayPointer(ydot);
    const double s = sin(x[0] - d->gamma), c = cos(x[0] - d->gamma);
    xd[0] = x[1];
    xd[1] = s;
    xd[2] = x[3];
    xd[3] = s + sin(x[2]) * (x[1] * x[1] - c);
    return 0;
}

static int floor_root1(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    (void)t, (void)user;
    const double *x = N_VGetArrayPointer(y);
    g[0] = x[2] - 2.0 * x[0];
    return 0;
}

/* The model's four event functions, written out as the model has them. */
static int floor_root4(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    (void)t;
    const floor_data *d = user;
    const double *x = N_VGetArrayPointer(y);
    g[0] = x[2] - 2.0 * x[0];
    g[1] = x[1];
    g[2] = x[0] - d->gamma + M_PI_2;
    g[3] = x[0] - d->gamma - M_PI_2;
    return 0;
}

typedef struct {
    SUNContext ctx;
    void *cv;
    N_Vector y;
    SUNNonlinearSolver nls;
    floor_data data;
    long steps;
} bare_cvode;

/* dir[4]: the crossing directions of the model's four events (the floor
 * takes them from the model so that both stop at the same crossings). */
static void bare_init(bare_cvode *b, double gamma, double rtol, double atol, int n_roots, const int *dir)
{
    memset(b, 0, sizeof *b);
    b->data.gamma = gamma;
    int bad = SUNContext_Create(NULL, &b->ctx);
    if (!bad) bad = !(b->y = N_VNew_Serial(4, b->ctx));
    if (!bad) bad = !(b->cv = CVodeCreate(CV_ADAMS, b->ctx));
    if (!bad) {
        N_VConst(0.0, b->y);
        bad = CVodeInit(b->cv, floor_rhs, 0.0, b->y);
    }
    if (!bad) bad = CVodeSetUserData(b->cv, &b->data);
    if (!bad) bad = CVodeSStolerances(b->cv, rtol, atol);
    if (!bad) bad = CVodeSetMaxNumSteps(b->cv, 1000000);
    if (!bad) bad = CVodeSetNoInactiveRootWarn(b->cv);
    if (!bad) bad = !(b->nls = SUNNonlinSol_FixedPoint(b->y, 0, b->ctx));
    if (!bad) bad = CVodeSetNonlinearSolver(b->cv, b->nls);
    if (!bad) {
        int d[4] = {dir[0], dir[1], dir[2], dir[3]};
        bad = n_roots == 1 ? CVodeRootInit(b->cv, 1, floor_root1) : CVodeRootInit(b->cv, 4, floor_root4);
        if (!bad) bad = CVodeSetRootDirection(b->cv, d);
    }
    if (bad) {
        fprintf(stderr, "bench_stride: could not set up the bare CVODE loop\n");
        exit(1);
    }
}

static void bare_free(bare_cvode *b)
{
    CVodeFree(&b->cv);
    SUNNonlinSolFree(b->nls);
    N_VDestroy(b->y);
    SUNContext_Free(&b->ctx);
}

/* One stride of the floor from x0: integrate to the heel-strike (theta < 0)
 * and return the state just before it in x_minus; *t_hs its time. */
static int bare_stride(bare_cvode *b, const double *x0, double *x_minus, double *t_hs)
{
    double *y = N_VGetArrayPointer(b->y);
    memcpy(y, x0, 4 * sizeof *y);
    if (CVodeReInit(b->cv, 0.0, b->y) != CV_SUCCESS) return -1;
    double t = 0.0;
    for (;;) {
        int flag = CVode(b->cv, 20.0, b->y, &t, CV_NORMAL);
        if (flag == CV_ROOT_RETURN) {
            int found[4] = {0, 0, 0, 0};
            CVodeGetRootInfo(b->cv, found);
            if (found[0] && y[0] < 0.0) break;
            continue;
        }
        if (flag < 0 || t >= 20.0) return -1;
    }
    long nst = 0;
    CVodeGetNumSteps(b->cv, &nst);
    b->steps += nst;
    memcpy(x_minus, y, 4 * sizeof *y);
    *t_hs = t;
    return 0;
}

/* ---- measurements -------------------------------------------------------- */

typedef struct {
    double us_per_stride;
    double rhs_per_stride;
    double steps_per_stride;
    double root_per_stride;
} stride_cost;

/* Wall-clock microseconds per stride of one batch. */
static double engine_batch_us(sm_workspace *ws, const double *p, const double *x0, int batch)
{
    double xo[SM_MAX_STATE];
    const double t0 = now_s();
    for (int i = 0; i < batch; i++) {
        sm_status st = sm_stride(ws, p, x0, xo, NULL, NULL);
        if (st != SM_OK) die("sm_stride", st);
    }
    return 1e6 * (now_s() - t0) / batch;
}

static double floor_batch_us(bare_cvode *b, const double *x0, int batch)
{
    double xm[4], th;
    const double t0 = now_s();
    for (int i = 0; i < batch; i++)
        if (bare_stride(b, x0, xm, &th) != 0) {
            fprintf(stderr, "bench_stride: the bare CVODE loop failed\n");
            exit(1);
        }
    return 1e6 * (now_s() - t0) / batch;
}

/* Work per stride (not timed). */
static stride_cost engine_counts(sm_workspace *ws, const double *p, const double *x0, int n)
{
    double xo[SM_MAX_STATE];
    stride_cost c = {INFINITY, 0, 0, 0};
    sm_counters k;
    sm_workspace_reset_counters(ws);
    for (int i = 0; i < n; i++) sm_stride(ws, p, x0, xo, NULL, NULL);
    sm_workspace_counters(ws, &k);
    c.rhs_per_stride = (double)k.rhs_evals / n;
    c.steps_per_stride = (double)k.steps / n;
    c.root_per_stride = (double)k.root_evals / n;
    return c;
}

static stride_cost floor_counts(bare_cvode *b, const double *x0, int n)
{
    double xm[4], th;
    stride_cost c = {INFINITY, 0, 0, 0};
    b->data.rhs_evals = 0;
    b->steps = 0;
    long nge_total = 0;
    for (int i = 0; i < n; i++) {
        bare_stride(b, x0, xm, &th);
        long nge = 0;
        CVodeGetNumGEvals(b->cv, &nge);
        nge_total += nge;
    }
    c.rhs_per_stride = (double)b->data.rhs_evals / n;
    c.steps_per_stride = (double)b->steps / n;
    c.root_per_stride = (double)nge_total / n;
    return c;
}

static double min_d(double a, double b) { return b < a ? b : a; }

typedef struct {
    double ms_per_fp;
    long stride_evals;
    int iterations;
    double residual;
    sm_fixed_result r;
} fp_cost;

static fp_cost time_fixed_point(sm_workspace *ws, const double *p, const double *guess,
                                const sm_newton_options *o, int batch, int reps)
{
    fp_cost c;
    c.ms_per_fp = INFINITY;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (int i = 0; i < batch; i++) {
            sm_status st = sm_fixed_point(ws, p, guess, o, &c.r);
            if (st != SM_OK) die("sm_fixed_point", st);
        }
        double ms = 1e3 * (now_s() - t0) / batch;
        if (ms < c.ms_per_fp) c.ms_per_fp = ms;
    }
    c.stride_evals = c.r.stride_evals;
    c.iterations = c.r.iterations;
    c.residual = c.r.residual;
    return c;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_stride [--quick] [--json] [--tol T] [--profile engine|floor|floor4 N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    bool quick = false, json = false;
    const char *profile = NULL;
    long profile_n = 0;
    double tol = 0.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--tol") == 0 && i + 1 < argc) {
            tol = strtod(argv[++i], NULL);
            if (!(tol > 0 && tol < 1)) usage();
        } else if (strcmp(argv[i], "--profile") == 0 && i + 2 < argc) {
            profile = argv[i + 1];
            profile_n = strtol(argv[i + 2], NULL, 10);
            i += 2;
            if (profile_n < 1) usage();
        } else {
            usage();
        }
    }
    const int stride_batch = 20, stride_reps = quick ? 50 : 500;
    const int fp_batch = 1, fp_reps = quick ? 20 : 200;

    /* The simplest walker at gamma = 0.009, library defaults. */
    const sm_model *m = sm_registry_find("simplest");
    if (!m) die("simplest", SM_UNKNOWN_MODEL);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    const double gamma = 0.009;
    p[sm_model_param_index(m, "gamma")] = gamma;

    sm_solver_options so;
    sm_solver_options_default(&so);
    if (tol > 0) so.rtol = so.atol = tol;
    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &so, &ws);
    if (st != SM_OK) die("sm_workspace_create", st);

    sm_newton_options no;
    sm_newton_options_default(&no);
    double guess[SM_MAX_STATE];
    m->guess(guess, p, m->data);

    /* The floor mirrors the model's events: heel-strike, rolled back, hip
     * down in front, hip down behind, with the model's directions. */
    const sm_phase *swing = &m->phases[m->start_phase];
    if (swing->n_events != 4 || strcmp(swing->events[0].name, "heelstrike") != 0) {
        fprintf(stderr, "bench_stride: the simplest model's events are not what the floor mirrors\n");
        return 1;
    }
    int dir[4];
    for (size_t e = 0; e < 4; e++) dir[e] = swing->events[e].direction;

    sm_fixed_result fp;
    st = sm_fixed_point(ws, p, guess, &no, &fp);
    if (st != SM_OK) die("sm_fixed_point", st);
    double x0[SM_MAX_STATE];
    memcpy(x0, fp.x, m->n_state * sizeof *x0);

    if (profile) {
        double xo[SM_MAX_STATE], xm[4], th;
        if (strcmp(profile, "engine") == 0) {
            for (long i = 0; i < profile_n; i++) sm_stride(ws, p, x0, xo, NULL, NULL);
        } else if (strcmp(profile, "floor") == 0 || strcmp(profile, "floor4") == 0) {
            bare_cvode b;
            bare_init(&b, gamma, so.rtol, so.atol, strcmp(profile, "floor") == 0 ? 1 : 4, dir);
            for (long i = 0; i < profile_n; i++) bare_stride(&b, x0, xm, &th);
            bare_free(&b);
        } else {
            usage();
        }
        sm_workspace_free(ws);
        return 0;
    }

    /* Reference gait: tight tolerances everywhere. */
    sm_solver_options so_ref = so;
    so_ref.rtol = so_ref.atol = 1e-13;
    sm_workspace *ws_ref = NULL;
    st = sm_workspace_create(m, &so_ref, &ws_ref);
    if (st != SM_OK) die("sm_workspace_create (reference)", st);
    sm_newton_options no_ref = no;
    no_ref.tol = 1e-13;
    sm_fixed_result ref;
    st = sm_fixed_point(ws_ref, p, x0, &no_ref, &ref);
    if (st != SM_OK) die("sm_fixed_point (reference)", st);

    /* Sanity: the floor reaches the same heel-strike as the engine. */
    bare_cvode b1, b4;
    bare_init(&b1, gamma, so.rtol, so.atol, 1, dir);
    bare_init(&b4, gamma, so.rtol, so.atol, 4, dir);
    double xm[4], t_hs;
    if (bare_stride(&b1, x0, xm, &t_hs) != 0) {
        fprintf(stderr, "bench_stride: the bare CVODE loop failed\n");
        return 1;
    }
    sm_step_metrics mt;
    double xo[SM_MAX_STATE];
    st = sm_stride(ws, p, x0, xo, &mt, NULL);
    if (st != SM_OK) die("sm_stride", st);
    const double period_diff = fabs(mt.period - t_hs);

    /* Short batches, round-robin over the three paths, best of many: on a
     * shared machine a quiet window of a few milliseconds comes often, a
     * quiet second rarely, and each path gets the same chances. */
    stride_cost eng = engine_counts(ws, p, x0, 20);
    stride_cost flo = floor_counts(&b1, x0, 20);
    stride_cost flo4 = floor_counts(&b4, x0, 20);
    for (int r = 0; r < stride_reps; r++) {
        eng.us_per_stride = min_d(eng.us_per_stride, engine_batch_us(ws, p, x0, stride_batch));
        flo.us_per_stride = min_d(flo.us_per_stride, floor_batch_us(&b1, x0, stride_batch));
        flo4.us_per_stride = min_d(flo4.us_per_stride, floor_batch_us(&b4, x0, stride_batch));
    }

    fp_cost fc = time_fixed_point(ws, p, guess, &no, fp_batch, fp_reps);
    double err_th = fabs(fc.r.x[0] - ref.x[0]), err_thd = fabs(fc.r.x[1] - ref.x[1]);
    double fp_err = fmax(err_th, err_thd);

    /* The same gait with Newton's tolerance at 1e-9 (the project's bar). */
    sm_newton_options no9 = no;
    no9.tol = 1e-9;
    fp_cost fc9 = time_fixed_point(ws, p, guess, &no9, fp_batch, fp_reps);
    double fp9_err = fmax(fabs(fc9.r.x[0] - ref.x[0]), fabs(fc9.r.x[1] - ref.x[1]));

    /* Rimless wheel, default parameters, from its fixed point. */
    const sm_model *rm = sm_registry_find("rimless");
    if (!rm) die("rimless", SM_UNKNOWN_MODEL);
    double rp[SM_MAX_PARAMS], rguess[SM_MAX_STATE];
    sm_model_default_params(rm, rp);
    rm->guess(rguess, rp, rm->data);
    sm_workspace *rws = NULL;
    st = sm_workspace_create(rm, &so, &rws);
    if (st != SM_OK) die("sm_workspace_create (rimless)", st);
    sm_fixed_result rfp;
    st = sm_fixed_point(rws, rp, rguess, &no, &rfp);
    if (st != SM_OK) die("sm_fixed_point (rimless)", st);
    stride_cost rim = engine_counts(rws, rp, rfp.x, 20);
    for (int r = 0; r < stride_reps; r++)
        rim.us_per_stride = min_d(rim.us_per_stride, engine_batch_us(rws, rp, rfp.x, stride_batch));

    const double ratio = eng.us_per_stride / flo.us_per_stride;
    const double ratio4 = eng.us_per_stride / flo4.us_per_stride;

    if (json) {
        printf("{\n");
        printf("  \"model\": \"simplest\", \"gamma\": %.17g, \"rtol\": %.3g, \"atol\": %.3g,\n", gamma, so.rtol,
               so.atol);
        printf("  \"timing\": \"best of %d runs of %d strides, %d runs of %d fixed points\",\n", stride_reps,
               stride_batch, fp_reps, fp_batch);
        printf("  \"engine\": {\"us_per_stride\": %.4g, \"rhs_per_stride\": %.6g, \"steps_per_stride\": %.6g, "
               "\"root_evals_per_stride\": %.6g},\n",
               eng.us_per_stride, eng.rhs_per_stride, eng.steps_per_stride, eng.root_per_stride);
        printf("  \"floor\": {\"us_per_stride\": %.4g, \"rhs_per_stride\": %.6g, \"steps_per_stride\": %.6g, "
               "\"root_evals_per_stride\": %.6g},\n",
               flo.us_per_stride, flo.rhs_per_stride, flo.steps_per_stride, flo.root_per_stride);
        printf("  \"floor4\": {\"us_per_stride\": %.4g, \"rhs_per_stride\": %.6g, \"steps_per_stride\": %.6g, "
               "\"root_evals_per_stride\": %.6g},\n",
               flo4.us_per_stride, flo4.rhs_per_stride, flo4.steps_per_stride, flo4.root_per_stride);
        printf("  \"engine_over_floor\": %.4g, \"engine_over_floor4\": %.4g, \"period_diff\": %.3g,\n", ratio,
               ratio4, period_diff);
        printf("  \"fixed_point\": {\"ms\": %.4g, \"strides\": %ld, \"iterations\": %d, \"residual\": %.3g, "
               "\"theta\": %.17g, \"theta_dot\": %.17g, \"error\": %.3g, \"max_abs_eig\": %.6g},\n",
               fc.ms_per_fp, fc.stride_evals, fc.iterations, fc.residual, fc.r.x[0], fc.r.x[1], fp_err,
               fc.r.max_abs_eig);
        printf("  \"fixed_point_tol_1e-9\": {\"ms\": %.4g, \"strides\": %ld, \"iterations\": %d, \"error\": %.3g},\n",
               fc9.ms_per_fp, fc9.stride_evals, fc9.iterations, fp9_err);
        printf("  \"reference\": {\"theta\": %.17g, \"theta_dot\": %.17g, \"residual\": %.3g, \"period\": %.17g},\n",
               ref.x[0], ref.x[1], ref.residual, ref.metrics.period);
        printf("  \"rimless\": {\"us_per_stride\": %.4g, \"rhs_per_stride\": %.6g, \"steps_per_stride\": %.6g}\n",
               rim.us_per_stride, rim.rhs_per_stride, rim.steps_per_stride);
        printf("}\n");
    } else {
        printf("simplest walker, gamma = %g, rtol = atol = %g, Adams + fixed-point NLS\n", gamma, so.rtol);
        printf("times: best of %d runs x %d strides; fixed points best of %d runs x %d\n\n", stride_reps,
               stride_batch, fp_reps, fp_batch);
        printf("%-34s %10s %10s %10s %10s\n", "per stride", "us", "RHS evals", "steps", "root evals");
        printf("%-34s %10.2f %10.1f %10.1f %10.1f\n", "stridemap sm_stride", eng.us_per_stride, eng.rhs_per_stride,
               eng.steps_per_stride, eng.root_per_stride);
        printf("%-34s %10.2f %10.1f %10.1f %10.1f\n", "bare CVODE, 1 root fn (floor)", flo.us_per_stride,
               flo.rhs_per_stride, flo.steps_per_stride, flo.root_per_stride);
        printf("%-34s %10.2f %10.1f %10.1f %10.1f\n", "bare CVODE, the model's 4 root fns", flo4.us_per_stride,
               flo4.rhs_per_stride, flo4.steps_per_stride, flo4.root_per_stride);
        printf("%-34s %10.2f %10.1f %10.1f %10s\n", "rimless wheel sm_stride (defaults)", rim.us_per_stride,
               rim.rhs_per_stride, rim.steps_per_stride, "");
        printf("\n%-34s %10.3f   (goal <= 1.30)\n", "engine / floor", ratio);
        printf("%-34s %10.3f\n", "engine / floor with 4 root fns", ratio4);
        printf("%-34s %10.2g\n", "|period engine - period floor|", period_diff);
        printf("\n%-34s %10s %10s %6s %10s %10s\n", "fixed point (guess 0.2, -0.2)", "ms", "strides", "iters",
               "residual", "error");
        printf("%-34s %10.3f %10ld %6d %10.2g %10.2g\n", "sm_fixed_point, Newton tol 1e-10", fc.ms_per_fp,
               fc.stride_evals, fc.iterations, fc.residual, fp_err);
        printf("%-34s %10.3f %10ld %6d %10.2g %10.2g\n", "sm_fixed_point, Newton tol 1e-9", fc9.ms_per_fp,
               fc9.stride_evals, fc9.iterations, fc9.r.residual, fp9_err);
        printf("strides include the %zu of the final central-difference Jacobian (stability)\n", 2 * fc.r.n_free);
        printf("\nerror = max(|theta - ref|, |theta_dot - ref|), reference at rtol = atol = 1e-13, Newton 1e-13:\n");
        printf("  reference  theta = %.15f  theta_dot = %.15f  (residual %.2g, period %.12f)\n", ref.x[0], ref.x[1],
               ref.residual, ref.metrics.period);
        printf("  tol 1e-10  theta = %.15f  theta_dot = %.15f  |lambda|max = %.6f\n", fc.r.x[0], fc.r.x[1],
               fc.r.max_abs_eig);
        printf("  eigenvalues: ");
        for (size_t i = 0; i < fc.r.n_free; i++) printf("%s%.6f%+.6fi", i ? ", " : "", fc.r.eig_re[i], fc.r.eig_im[i]);
        printf("\n");
    }

    bare_free(&b1);
    bare_free(&b4);
    sm_workspace_free(rws);
    sm_workspace_free(ws_ref);
    sm_workspace_free(ws);
    return 0;
}
