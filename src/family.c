#include "stridemap/family.h"

#include <string.h>

#include "dense.h"
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

typedef struct {
    const sm_model *m;
    const double *p;
} gap_ctx;

static double family_gap(const void *ctx, const double *z)
{
    const gap_ctx *c = ctx;
    return sm_family_gap(c->m, c->p, z);
}

void sm_family_gradient(const sm_model *m, const double *p, const double *z, double h, double *grad)
{
    const gap_ctx c = {m, p};
    sm_dense_central_gradient(m->n_free, family_gap, &c, z, h, grad);
}
