/* bare_fixed: the whole-process floor for 'stridemap fixed simplest'.
 *
 * The smallest honest C program that finds the simplest walker's gait at
 * gamma = 0.009 the way stridemap does, sharing no code with it: bare CVODE
 * (Adams, fixed-point nonlinear solver, rtol = atol = 1e-10, as stridemap's
 * defaults), one root function phi - 2 theta rising with theta < 0 for the
 * heel-strike, the impact map, and plain Newton on the free coordinates
 * (theta, theta_dot) with a forward-difference Jacobian (step sqrt(rtol))
 * from the model's own guess until max |P(z) - z| <= 1e-10.  It prints the
 * fixed point, the residual and the eigenvalues of its last Jacobian (2x2,
 * closed form: no LAPACK).  Links only SUNDIALS and libm, so timing it as a
 * process ('time bare_fixed') measures what start-up a program of this kind
 * needs; bench/README.md compares 'stridemap fixed simplest' against it.
 *
 *   bare_fixed [GAMMA]
 */
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

static double gamma_;

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    (void)t, (void)user;
    const double *x = N_VGetArrayPointer(y);
    double *xd = N_VGetArrayPointer(ydot);
    const double s = sin(x[0] - gamma_), c = cos(x[0] - gamma_);
    xd[0] = x[1];
    xd[1] = s;
    xd[2] = x[3];
    xd[3] = s + sin(x[2]) * (x[1] * x[1] - c);
    return 0;
}

static int heelstrike(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    (void)t, (void)user;
    const double *x = N_VGetArrayPointer(y);
    g[0] = x[2] - 2.0 * x[0];
    return 0;
}

static void *cv;
static N_Vector y;

/* P(z): from (theta, theta_dot) just after heel-strike to the same just
 * after the next one.  Returns -1 if the walker does not get there. */
static int stride(const double *z, double *zn)
{
    double *x = N_VGetArrayPointer(y);
    x[0] = z[0];
    x[1] = z[1];
    x[2] = 2.0 * z[0];
    x[3] = (1.0 - cos(2.0 * z[0])) * z[1];
    if (CVodeReInit(cv, 0.0, y) != CV_SUCCESS) return -1;
    double t = 0.0;
    for (;;) {
        int flag = CVode(cv, 20.0, y, &t, CV_NORMAL);
        if (flag == CV_ROOT_RETURN && x[0] < 0.0) break;
        if (flag < 0 || t >= 20.0) return -1;
    }
    zn[0] = -x[0];
    zn[1] = cos(2.0 * x[0]) * x[1];
    return 0;
}

int main(int argc, char **argv)
{
    gamma_ = argc > 1 ? atof(argv[1]) : 0.009;
    const double rtol = 1e-10, tol = 1e-10, h = sqrt(rtol);
    SUNContext ctx;
    if (SUNContext_Create(NULL, &ctx)) return 70;
    y = N_VNew_Serial(4, ctx);
    cv = CVodeCreate(CV_ADAMS, ctx);
    N_VConst(0.0, y);
    int dir = 1;
    SUNNonlinearSolver nls = SUNNonlinSol_FixedPoint(y, 0, ctx);
    if (!y || !cv || !nls || CVodeInit(cv, rhs, 0.0, y) || CVodeSStolerances(cv, rtol, rtol) ||
        CVodeSetMaxNumSteps(cv, 1000000) || CVodeSetNonlinearSolver(cv, nls) || CVodeRootInit(cv, 1, heelstrike) ||
        CVodeSetRootDirection(cv, &dir) || CVodeSetNoInactiveRootWarn(cv))
        return 70;

    /* The model's guess (models/simplest.c). */
    const double c = cbrt(gamma_);
    double z[2] = {0.97 * c, -0.97 * c * (1.08 - 0.43 * c)}, pz[2], r[2], J[2][2] = {{0}};
    int iter = 0, strides = 0;
    double res = INFINITY;
    for (; iter <= 30; iter++) {
        if (stride(z, pz)) return 1;
        strides++;
        r[0] = pz[0] - z[0];
        r[1] = pz[1] - z[1];
        res = fmax(fabs(r[0]), fabs(r[1]));
        if (res <= tol) break;
        for (int j = 0; j < 2; j++) { /* J = dP/dz - I, forward differences */
            double zj[2] = {z[0], z[1]}, pj[2];
            zj[j] += h;
            if (stride(zj, pj)) return 1;
            strides++;
            for (int i = 0; i < 2; i++) J[i][j] = (pj[i] - pz[i]) / h - (i == j);
        }
        const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
        z[0] -= (J[1][1] * r[0] - J[0][1] * r[1]) / det;
        z[1] -= (J[0][0] * r[1] - J[1][0] * r[0]) / det;
    }
    /* Multipliers: eigenvalues of dP/dz = J + I from the last Jacobian. */
    const double a = J[0][0] + 1.0, d = J[1][1] + 1.0, tr = a + d, dt = a * d - J[0][1] * J[1][0];
    const double disc = tr * tr / 4.0 - dt;
    printf("fixed point  theta=%.12g theta_dot=%.12g\n", z[0], z[1]);
    printf("newton       %d iterations, %d strides, residual %.3g\n", iter, strides, res);
    if (disc < 0)
        printf("eigenvalues  %.9g+-%.9gi\n", tr / 2.0, sqrt(-disc));
    else
        printf("eigenvalues  %.9g %.9g\n", tr / 2.0 + sqrt(disc), tr / 2.0 - sqrt(disc));
    CVodeFree(&cv);
    SUNNonlinSolFree(nls);
    N_VDestroy(y);
    SUNContext_Free(&ctx);
    return res <= tol ? 0 : 1;
}
