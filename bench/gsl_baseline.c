/* gsl_baseline: the simplest walker done the plain way, on GSL alone.
 *
 *   gsl_baseline [--quick] [--json] [--tol T]
 *
 * An independent program (it shares no code with stridemap) that computes the
 * period-one gait of the simplest walking model (Garcia et al. 1998) at
 * gamma = 0.009 the way one would without stridemap:
 *
 *   ODE      theta'' = sin(theta - gamma)
 *            phi''   = sin(theta - gamma) + sin(phi) (theta_dot^2 - cos(theta - gamma))
 *            integrated with gsl_odeiv2's rkf45, abs = rel tolerance 1e-10.
 *   event    heel-strike where phi - 2 theta crosses 0 upwards with
 *            theta < 0.  The surface is also met at the start of the step
 *            (upwards, theta > 0) and near mid-stance where the swing foot
 *            scuffs (downwards, and on short-step gaits with theta already
 *            slightly < 0): theta < 0 rejects the first, the direction the
 *            second.  A sign change over an accepted step is located by the
 *            Illinois method on the length of one rkf45 step taken again
 *            from the step's start.
 *   reset    theta+ = -theta-, theta_dot+ = cos(2 theta-) theta_dot-,
 *            phi+ = -2 theta-, phi_dot+ = cos(2 theta-)(1 - cos(2 theta-)) theta_dot-
 *   section  free coordinates z = (theta, theta_dot); phi = 2 theta,
 *            phi_dot = (1 - cos 2 theta) theta_dot.
 *   gait     P(z) - z = 0 by gsl_multiroot_fsolver_hybrids (Powell's hybrid
 *            method, finite-difference Jacobian) from z = (0.2, -0.2) until
 *            the residual is below 1e-11.
 *   check    a reference gait with rk8pd at tolerance 1e-14; the stride-map
 *            Jacobian at the gait by central differences, and its
 *            eigenvalues in closed form.
 *
 * --tol T changes rkf45's tolerance (default 1e-10).  Times are wall-clock
 * (CLOCK_MONOTONIC), the best of several runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, M_PI_2 (meson passes it too) */
#endif

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multiroots.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define T_MAX 20.0 /* a stride takes about 3.9 */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double gamma;
    long rhs_evals;
    long strides;
    gsl_odeiv2_system sys;
    gsl_odeiv2_step *step;
    gsl_odeiv2_control *control;
    gsl_odeiv2_evolve *evolve;
} walker;

static int walker_rhs(double t, const double y[], double f[], void *params)
{
    (void)t;
    walker *w = params;
    w->rhs_evals++;
    const double s = sin(y[0] - w->gamma), c = cos(y[0] - w->gamma);
    f[0] = y[1];
    f[1] = s;
    f[2] = y[3];
    f[3] = s + sin(y[2]) * (y[1] * y[1] - c);
    return GSL_SUCCESS;
}

static void walker_init(walker *w, double gamma, const gsl_odeiv2_step_type *type, double tol)
{
    memset(w, 0, sizeof *w);
    w->gamma = gamma;
    w->sys.function = walker_rhs;
    w->sys.jacobian = NULL;
    w->sys.dimension = 4;
    w->sys.params = w;
    w->step = gsl_odeiv2_step_alloc(type, 4);
    w->control = gsl_odeiv2_control_y_new(tol, tol);
    w->evolve = gsl_odeiv2_evolve_alloc(4);
    if (!w->step || !w->control || !w->evolve) {
        fprintf(stderr, "gsl_baseline: out of memory\n");
        exit(1);
    }
}

static void walker_free(walker *w)
{
    gsl_odeiv2_evolve_free(w->evolve);
    gsl_odeiv2_control_free(w->control);
    gsl_odeiv2_step_free(w->step);
}

static double surface(const double y[4]) { return y[2] - 2.0 * y[0]; }

static void lift(const double z[2], double y[4])
{
    y[0] = z[0];
    y[1] = z[1];
    y[2] = 2.0 * z[0];
    y[3] = (1.0 - cos(2.0 * z[0])) * z[1];
}

/* The crossing of the surface inside the step from (t0, y0) of length H,
 * whose end values are g0 and gH (opposite signs): the Illinois variant of
 * regula falsi on the step length, each trial one rkf45 step from y0 (the
 * step never exceeds the accepted one, so its error stays within the
 * tolerance).  Returns the step length to the crossing and the state there. */
static int locate(walker *w, double t0, const double y0[4], double H, double g0, double gH, double *h_root,
                  double y_root[4])
{
    double dydt0[4], yerr[4], y[4];
    walker_rhs(t0, y0, dydt0, w);
    double a = 0.0, b = H, fa = g0, fb = gH;
    int side = 0;
    double h = b;
    memcpy(y_root, y0, sizeof y);
    for (int it = 0; it < 60; it++) {
        h = (a * fb - b * fa) / (fb - fa);
        if (!(h > a && h < b)) h = 0.5 * (a + b);
        memcpy(y, y0, sizeof y); /* step_apply advances y in place */
        int st = gsl_odeiv2_step_apply(w->step, t0, h, y, yerr, dydt0, NULL, &w->sys);
        if (st != GSL_SUCCESS) return st;
        memcpy(y_root, y, sizeof y);
        const double fh = surface(y);
        if (fh == 0.0 || fabs(b - a) < 1e-15 * (1.0 + t0) || fabs(fh) < 1e-15) break;
        if ((fh > 0) == (fa > 0)) {
            a = h;
            fa = fh;
            if (side == -1) fb *= 0.5;
            side = -1;
        } else {
            b = h;
            fb = fh;
            if (side == +1) fa *= 0.5;
            side = +1;
        }
    }
    *h_root = h;
    return GSL_SUCCESS;
}

/* One stride from the section state y_in to the section state after the
 * next heel-strike.  Returns 0, or -1 if no heel-strike came. */
static int stride(walker *w, const double y_in[4], double y_out[4], double *period)
{
    double y[4], y0[4];
    memcpy(y, y_in, sizeof y);
    gsl_odeiv2_step_reset(w->step);
    gsl_odeiv2_evolve_reset(w->evolve);
    double t = 0.0, h = 1e-3;
    double g_prev = surface(y);
    w->strides++;
    while (t < T_MAX) {
        const double t0 = t;
        memcpy(y0, y, sizeof y);
        int st = gsl_odeiv2_evolve_apply(w->evolve, w->control, w->step, &w->sys, &t, T_MAX, &h, y);
        if (st != GSL_SUCCESS) return -1;
        const double g = surface(y);
        /* An upward crossing; the stance leg only swings forwards (theta
         * falls), so one with theta >= 0 at the step's end is the start of
         * the step, not a heel-strike. */
        if (g_prev < 0.0 && g > 0.0 && y[0] < 0.0) {
            double hr, yr[4];
            if (locate(w, t0, y0, t - t0, g_prev, g, &hr, yr) != GSL_SUCCESS) return -1;
            if (yr[0] < 0.0) {
                const double c2 = cos(2.0 * yr[0]);
                y_out[0] = -yr[0];
                y_out[1] = c2 * yr[1];
                y_out[2] = -2.0 * yr[0];
                y_out[3] = c2 * (1.0 - c2) * yr[1];
                *period = t0 + hr;
                return 0;
            }
        }
        if (y[1] > 0.0) return -1; /* rolled back */
        g_prev = g;
    }
    return -1;
}

/* P(z) on the free coordinates. */
static int poincare(walker *w, const double z[2], double Pz[2], double *period)
{
    double y[4], yo[4], T = 0.0;
    lift(z, y);
    if (stride(w, y, yo, &T) != 0) return -1;
    Pz[0] = yo[0];
    Pz[1] = yo[1];
    if (period) *period = T;
    return 0;
}

static int residual_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    walker *w = params;
    const double z[2] = {gsl_vector_get(x, 0), gsl_vector_get(x, 1)};
    double Pz[2];
    if (poincare(w, z, Pz, NULL) != 0) return GSL_EBADFUNC;
    gsl_vector_set(f, 0, Pz[0] - z[0]);
    gsl_vector_set(f, 1, Pz[1] - z[1]);
    return GSL_SUCCESS;
}

/* J = dP/dz at z by central differences (4 strides, step 1e-5 as stridemap's
 * sqrt(rtol)), and its eigenvalues in closed form. */
static int stability(walker *w, const double z[2], double J[2][2], double ev_re[2], double ev_im[2])
{
    const double hfd = 1e-5;
    for (int j = 0; j < 2; j++) {
        double zp[2] = {z[0], z[1]}, zm[2] = {z[0], z[1]}, Pp[2], Pm[2];
        zp[j] += hfd;
        zm[j] -= hfd;
        if (poincare(w, zp, Pp, NULL) != 0 || poincare(w, zm, Pm, NULL) != 0) return -1;
        for (int i = 0; i < 2; i++) J[i][j] = (Pp[i] - Pm[i]) / (2.0 * hfd);
    }
    const double tr = J[0][0] + J[1][1], det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    const double disc = 0.25 * tr * tr - det;
    if (disc >= 0) {
        ev_re[0] = 0.5 * tr + sqrt(disc);
        ev_re[1] = 0.5 * tr - sqrt(disc);
        ev_im[0] = ev_im[1] = 0.0;
    } else {
        ev_re[0] = ev_re[1] = 0.5 * tr;
        ev_im[0] = sqrt(-disc);
        ev_im[1] = -ev_im[0];
    }
    return 0;
}

typedef struct {
    double z[2];
    double residual;
    int iterations;
    long strides;
    int status;
} gait;

static gait find_gait(walker *w, gsl_multiroot_fsolver *s, const double guess[2], double tol)
{
    gait g = {{NAN, NAN}, INFINITY, 0, 0, GSL_CONTINUE};
    gsl_multiroot_function F = {residual_f, 2, w};
    gsl_vector *x = gsl_vector_alloc(2);
    gsl_vector_set(x, 0, guess[0]);
    gsl_vector_set(x, 1, guess[1]);
    const long strides0 = w->strides;
    int st = gsl_multiroot_fsolver_set(s, &F, x);
    while (st == GSL_SUCCESS && g.iterations < 200) {
        g.iterations++;
        st = gsl_multiroot_fsolver_iterate(s);
        if (st != GSL_SUCCESS) break;
        st = gsl_multiroot_test_residual(s->f, tol);
        if (st == GSL_SUCCESS) break;
        st = GSL_SUCCESS;
    }
    g.status = st;
    g.z[0] = gsl_vector_get(s->x, 0);
    g.z[1] = gsl_vector_get(s->x, 1);
    g.residual = fmax(fabs(gsl_vector_get(s->f, 0)), fabs(gsl_vector_get(s->f, 1)));
    g.strides = w->strides - strides0;
    gsl_vector_free(x);
    return g;
}

int main(int argc, char **argv)
{
    bool quick = false, json = false;
    double tol = 1e-10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--tol") == 0 && i + 1 < argc) {
            tol = strtod(argv[++i], NULL);
            if (!(tol > 0 && tol < 1)) {
                fprintf(stderr, "gsl_baseline: --tol must be in (0, 1)\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: gsl_baseline [--quick] [--json] [--tol T]\n");
            return 2;
        }
    }
    gsl_set_error_handler_off();
    const double gamma = 0.009, root_tol = 1e-11;
    const double guess[2] = {0.2, -0.2};
    const int stride_batch = 20, stride_reps = quick ? 50 : 1000;
    const int fp_batch = 1, fp_reps = quick ? 20 : 300;

    walker w;
    walker_init(&w, gamma, gsl_odeiv2_step_rkf45, tol);
    gsl_multiroot_fsolver *s = gsl_multiroot_fsolver_alloc(gsl_multiroot_fsolver_hybrids, 2);

    /* The gait, timed: best of fp_reps runs of fp_batch solves (short runs,
     * best of many: on a shared machine short quiet windows come often). */
    gait g = find_gait(&w, s, guess, root_tol);
    if (g.status != GSL_SUCCESS) {
        fprintf(stderr, "gsl_baseline: hybrids did not converge: %s\n", gsl_strerror(g.status));
        return 1;
    }
    double ms_fp = INFINITY;
    for (int r = 0; r < fp_reps; r++) {
        const double t0 = now_s();
        for (int i = 0; i < fp_batch; i++) g = find_gait(&w, s, guess, root_tol);
        const double ms = 1e3 * (now_s() - t0) / fp_batch;
        if (ms < ms_fp) ms_fp = ms;
    }

    /* One stride from the gait, timed, and its RHS count. */
    double y_star[4], y_out[4], period = NAN;
    lift(g.z, y_star);
    double ms_stride = INFINITY;
    for (int r = 0; r < stride_reps; r++) {
        const double t0 = now_s();
        for (int i = 0; i < stride_batch; i++) stride(&w, y_star, y_out, &period);
        const double ms = 1e3 * (now_s() - t0) / stride_batch;
        if (ms < ms_stride) ms_stride = ms;
    }
    w.rhs_evals = 0;
    for (int i = 0; i < stride_batch; i++) stride(&w, y_star, y_out, &period);
    const double rhs_per_stride = (double)w.rhs_evals / stride_batch;

    /* The stride-map Jacobian at the gait and its eigenvalues; then the
     * whole job (gait, Jacobian, eigenvalues) timed as stridemap does it. */
    double J[2][2], ev_re[2], ev_im[2];
    if (stability(&w, g.z, J, ev_re, ev_im) != 0) {
        fprintf(stderr, "gsl_baseline: a stride failed near the gait\n");
        return 1;
    }
    double ms_fp_stab = INFINITY;
    for (int r = 0; r < fp_reps; r++) {
        const double t0 = now_s();
        for (int i = 0; i < fp_batch; i++) {
            gait gi = find_gait(&w, s, guess, root_tol);
            stability(&w, gi.z, J, ev_re, ev_im);
        }
        const double ms = 1e3 * (now_s() - t0) / fp_batch;
        if (ms < ms_fp_stab) ms_fp_stab = ms;
    }

    /* Reference gait: rk8pd at 1e-14, hybrids to a residual of 1e-13. */
    walker wr;
    walker_init(&wr, gamma, gsl_odeiv2_step_rk8pd, 1e-14);
    gsl_multiroot_fsolver *sr = gsl_multiroot_fsolver_alloc(gsl_multiroot_fsolver_hybrids, 2);
    gait ref = find_gait(&wr, sr, g.z, 1e-13);
    double ref_period = NAN, Pref[2];
    poincare(&wr, ref.z, Pref, &ref_period);
    const double err = fmax(fabs(g.z[0] - ref.z[0]), fabs(g.z[1] - ref.z[1]));

    if (json) {
        printf("{\n");
        printf("  \"model\": \"simplest\", \"gamma\": %.17g, \"stepper\": \"rkf45\", \"tol\": %.3g,\n", gamma, tol);
        printf("  \"ms_per_stride\": %.5g, \"rhs_per_stride\": %.6g,\n", ms_stride, rhs_per_stride);
        printf("  \"ms_per_fixed_point_and_jacobian\": %.5g,\n", ms_fp_stab);
        printf("  \"fixed_point\": {\"ms\": %.5g, \"strides\": %ld, \"iterations\": %d, \"residual\": %.3g, "
               "\"theta\": %.17g, \"theta_dot\": %.17g, \"error\": %.3g, \"period\": %.17g},\n",
               ms_fp, g.strides, g.iterations, g.residual, g.z[0], g.z[1], err, period);
        printf("  \"eigenvalues\": [[%.10g, %.10g], [%.10g, %.10g]],\n", ev_re[0], ev_im[0], ev_re[1], ev_im[1]);
        printf("  \"reference\": {\"theta\": %.17g, \"theta_dot\": %.17g, \"residual\": %.3g, \"status\": \"%s\", "
               "\"period\": %.17g}\n",
               ref.z[0], ref.z[1], ref.residual, gsl_strerror(ref.status), ref_period);
        printf("}\n");
    } else {
        printf("GSL baseline: simplest walker, gamma = %g, rkf45 at abs = rel = %g, hybrids to %g\n", gamma, tol,
               root_tol);
        printf("times: best of %d runs x %d strides; fixed points best of %d runs x %d\n\n", stride_reps,
               stride_batch, fp_reps, fp_batch);
        printf("%-28s %12.4f\n", "ms per stride", ms_stride);
        printf("%-28s %12.1f\n", "RHS evals per stride", rhs_per_stride);
        printf("%-28s %12.3f\n", "ms per fixed point", ms_fp);
        printf("%-28s %12ld   (%d hybrids iterations)\n", "strides per fixed point", g.strides, g.iterations);
        printf("%-28s %12.3f   (%ld + 4 strides, as stridemap's fixed point)\n", "ms with Jacobian, eigenvalues",
               ms_fp_stab, g.strides);
        printf("%-28s %12.2g\n", "residual max|P(z) - z|", g.residual);
        printf("%-28s %12.2g   (max abs, vs rk8pd at 1e-14)\n", "error of the fixed point", err);
        printf("\nfixed point  theta = %.15f  theta_dot = %.15f\n", g.z[0], g.z[1]);
        printf("reference    theta = %.15f  theta_dot = %.15f  (residual %.2g, %s)\n", ref.z[0], ref.z[1],
               ref.residual, gsl_strerror(ref.status));
        printf("step period  %.12f   (reference %.12f)\n", period, ref_period);
        printf("Jacobian     [[%.6f, %.6f], [%.6f, %.6f]]  (central differences, h = 1e-5)\n", J[0][0], J[0][1],
               J[1][0], J[1][1]);
        printf("eigenvalues  %.6f%+.6fi, %.6f%+.6fi   |lambda| = %.6f\n", ev_re[0], ev_im[0], ev_re[1], ev_im[1],
               hypot(ev_re[0], ev_im[0]));
    }

    gsl_multiroot_fsolver_free(sr);
    walker_free(&wr);
    gsl_multiroot_fsolver_free(s);
    walker_free(&w);
    return 0;
}
