#include "stridemap/family.h"

#include <string.h>

#include "stridemap/stride.h"

size_t sm_extra_rows(const sm_model *m)
{
    return (m->invariant ? 1u : 0u) + (m->family_condition ? 1u : 0u);
}

size_t sm_family_row(const sm_model *m)
{
    return m->n_free + (m->invariant ? 1u : 0u);
}

double sm_family_gap(const sm_model *m, const double *p, const double *z)
{
    double x[SM_MAX_STATE];
    sm_model_lift(m, p, z, x);
    return m->family_condition(x, p, m->data);
}

void sm_family_gradient(const sm_model *m, const double *p, const double *z, double h, double *grad)
{
    const size_t n = m->n_free;
    double zp[SM_MAX_STATE];
    for (size_t j = 0; j < n; j++) {
        memcpy(zp, z, n * sizeof *z);
        zp[j] = z[j] + h;
        const double up = sm_family_gap(m, p, zp);
        zp[j] = z[j] - h;
        grad[j] = (up - sm_family_gap(m, p, zp)) / (2 * h);
    }
}
