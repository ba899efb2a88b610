#include "stridemap/gait.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

const char *sm_mode_name(int mode)
{
    static const char *const names[SM_MODE_COUNT] = {"sagittal", "lateral", "heading"};
    return mode >= 0 && mode < SM_MODE_COUNT ? names[mode] : "?";
}

sm_status sm_gait_eigenvectors(const sm_gait *g, double *mag)
{
    const size_t n = g->n_free;
    double A[SM_MAX_STATE * SM_MAX_STATE], wr[SM_MAX_STATE], wi[SM_MAX_STATE], V[SM_MAX_STATE * SM_MAX_STATE];
    memcpy(A, g->jacobian, n * n * sizeof *A);
    const lapack_int info = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'V', (lapack_int)n, A, (lapack_int)n, wr, wi, NULL,
                                          (lapack_int)n, V, (lapack_int)n);
    if (info != 0) return SM_LAPACK_FAILED;
    for (size_t i = 0; i < n; i++) {
        /* dgeev's order is not the gait's (by decreasing modulus): match */
        size_t k = 0;
        for (size_t j = 1; j < n; j++)
            if (hypot(wr[j] - g->eig_re[i], wi[j] - g->eig_im[i]) < hypot(wr[k] - g->eig_re[i], wi[k] - g->eig_im[i]))
                k = j;
        /* a complex pair's vectors are columns c (real) and c + 1 (imaginary) */
        const bool pair = wi[k] != 0.0;
        const size_t c = pair && wi[k] < 0 && k > 0 ? k - 1 : k;
        double all = 0.0;
        for (size_t r = 0; r < n; r++) {
            double v2 = V[r * n + c] * V[r * n + c];
            if (pair && c + 1 < n) v2 += V[r * n + c + 1] * V[r * n + c + 1];
            mag[i * n + r] = v2;
            all += v2;
        }
        for (size_t r = 0; r < n; r++) mag[i * n + r] = all > 0 ? sqrt(mag[i * n + r] / all) : NAN;
    }
    return SM_OK;
}

sm_status sm_gait_modes(const sm_model *m, const sm_gait *g, int *mode, double *share)
{
    if (!m->free_mode) return SM_BAD_OPTION;
    const size_t n = g->n_free;
    double mag[SM_MAX_STATE * SM_MAX_STATE];
    const sm_status st = sm_gait_eigenvectors(g, mag);
    if (st != SM_OK) return st;
    for (size_t i = 0; i < n; i++) {
        double part[SM_MODE_COUNT] = {0}, all = 0.0;
        for (size_t r = 0; r < n; r++) {
            const double v2 = mag[i * n + r] * mag[i * n + r];
            const int kind = m->free_mode[r];
            if (kind >= 0 && kind < SM_MODE_COUNT) part[kind] += v2;
            all += v2;
        }
        int best = 0;
        for (int q = 1; q < SM_MODE_COUNT; q++)
            if (part[q] > part[best]) best = q;
        mode[i] = best;
        if (share) share[i] = all > 0 ? part[best] / all : NAN;
    }
    return SM_OK;
}
