/* What every build of the importer has: releasing an sm_import, warnings,
 * and the eigenvalues the inertia checks compare. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "import_internal.h"

void sm_import_free(sm_import *imp)
{
    if (!imp) return;
    for (size_t i = 0; i < imp->nbody; i++) {
        free((char *)imp->bodies[i].name);
        if (imp->joint_names) free(imp->joint_names[i]);
    }
    free(imp->joint_names);
    for (size_t i = 0; i < imp->nsite; i++) free((char *)imp->sites[i].name);
    for (size_t i = 0; i < imp->nspring; i++) free(imp->springs[i].name);
    for (size_t i = 0; i < imp->nwarn; i++) free(imp->warnings[i]);
    free(imp->bodies);
    free(imp->sites);
    free(imp->springs);
    free(imp->warnings);
    free(imp->qpos0);
    free(imp->name);
    free(imp);
}

bool import_warn(sm_import *imp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    const int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0) return false;
    char **w = realloc(imp->warnings, (imp->nwarn + 1) * sizeof *w);
    if (!w) {
        free(line);
        return false;
    }
    imp->warnings = w;
    imp->warnings[imp->nwarn++] = line;
    return true;
}

void import_eig3(const double I[9], double ev[3])
{
    double A[9];
    for (int k = 0; k < 9; k++) A[k] = I[k];
    for (int sweep = 0; sweep < 50; sweep++) {
        if (fabs(A[1]) + fabs(A[2]) + fabs(A[5]) < 1e-300) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                const double apq = A[3 * p + q];
                if (apq == 0.0) continue;
                const double th = 0.5 * atan2(2 * apq, A[3 * q + q] - A[3 * p + p]), c = cos(th), s = sin(th);
                for (int k = 0; k < 3; k++) {
                    const double akp = A[3 * k + p], akq = A[3 * k + q];
                    A[3 * k + p] = c * akp - s * akq;
                    A[3 * k + q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    const double apk = A[3 * p + k], aqk = A[3 * q + k];
                    A[3 * p + k] = c * apk - s * aqk;
                    A[3 * q + k] = s * apk + c * aqk;
                }
            }
    }
    for (int k = 0; k < 3; k++) ev[k] = A[4 * k];
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2 - a; b++)
            if (ev[b] > ev[b + 1]) {
                const double t = ev[b];
                ev[b] = ev[b + 1];
                ev[b + 1] = t;
            }
}
