/* The flat interface's fixed points: Newton, the analysis 'stridemap fixed'
 * reports, and its values by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_internal.h"

struct sm_ffi_gait {
    sm_fixed_result r;
    int period;
    int n_orbit;
    double *orbit; /* [n_orbit * n_state] */
    const sm_model *m;
    bool have_extra;
    double extra[SM_MAX_EXTRA];
    char extra_names[SM_MAX_EXTRA][160];
};

/* Eigenvalues, the Jacobian and the verdict exist only for an analysed gait. */
static bool have_eig(const sm_ffi_gait *g) { return g->r.converged && g->r.status == SM_OK; }

int sm_ffi_fixed(sm_ffi_model *h, const double *guess, sm_ffi_gait **out)
{
    *out = NULL;
    sm_solver_options solver;
    sm_newton_options newton;
    double x0[SM_MAX_STATE];
    int st = ffi_settings(h, &solver, &newton);
    if (st == SM_OK) st = ffi_start_state(h, guess, x0);
    if (st != SM_OK) return st;
    /* The exact multipliers come with the differences' beside them, as the
     * program reports them. */
    newton.check_fd = true;
    sm_workspace *ws = NULL;
    st = sm_workspace_create_ex(h->m, &solver, &ws, h->why, sizeof h->why);
    if (st != SM_OK) return st;
    sm_ffi_gait *g = calloc(1, sizeof *g);
    const int n = newton.period;
    double *orbit = g ? malloc((size_t)n * h->m->n_state * sizeof *orbit) : NULL;
    if (!orbit) {
        free(g);
        sm_workspace_free(ws);
        return ffi_fail(h, SM_NO_MEMORY, "out of memory");
    }
    g->m = h->m;
    g->period = n;
    g->orbit = orbit;
    sm_fixed_point(ws, h->params, x0, &newton, &g->r);
    g->n_orbit = sm_gait_orbit(ws, h->params, g->r.x, g->r.converged ? n : 1, orbit);
    g->have_extra = g->r.converged && sm_gait_extra_measures(ws, h->params, &g->r.gait, g->extra);
    for (size_t i = 0; g->have_extra && i < h->m->n_extra; i++)
        snprintf(g->extra_names[i], sizeof g->extra_names[i], "%s.%s", h->m->extra_group, h->m->extra_names[i]);
    sm_workspace_free(ws);
    *out = g;
    return g->r.status;
}

void sm_ffi_gait_free(sm_ffi_gait *g)
{
    if (!g) return;
    free(g->orbit);
    free(g);
}

int sm_ffi_gait_status(const sm_ffi_gait *g) { return g->r.status; }
int sm_ffi_gait_stride_status(const sm_ffi_gait *g) { return g->r.stride_status; }
int sm_ffi_gait_period(const sm_ffi_gait *g) { return g->period; }
const char *sm_ffi_gait_family(const sm_ffi_gait *g) { return g->r.family; }

const char *sm_ffi_gait_jacobian_method(const sm_ffi_gait *g)
{
    return have_eig(g) ? (g->r.jacobian_exact ? "exact" : "finite_differences") : NULL;
}

void sm_ffi_gait_x(const sm_ffi_gait *g, double *x) { memcpy(x, g->r.x, g->m->n_state * sizeof *x); }

size_t sm_ffi_gait_jacobian(const sm_ffi_gait *g, double *J)
{
    if (!have_eig(g)) return 0;
    memcpy(J, g->r.jacobian, g->r.n_free * g->r.n_free * sizeof *J);
    return g->r.n_free;
}

size_t sm_ffi_gait_eigenvalues(const sm_ffi_gait *g, int fd, double *re, double *im)
{
    const sm_fixed_result *r = &g->r;
    if (!have_eig(g) || (fd && !(r->jacobian_exact && r->fd_check_status == SM_OK))) return 0;
    memcpy(re, fd ? r->eig_fd_re : r->eig_re, r->n_free * sizeof *re);
    memcpy(im, fd ? r->eig_fd_im : r->eig_im, r->n_free * sizeof *im);
    return r->n_free;
}

int sm_ffi_gait_orbit(const sm_ffi_gait *g, double *orbit)
{
    memcpy(orbit, g->orbit, (size_t)g->n_orbit * g->m->n_state * sizeof *orbit);
    return g->n_orbit;
}

static const char *const account[] = {"converged", "iterations", "residual", "stride_evaluations",
                                      "newton_stride_evaluations", "minimal_period", "invariant_drift",
                                      "max_abs_eigenvalue", "stable", "trivial_index"};

static double account_value(const sm_ffi_gait *g, size_t i)
{
    const sm_fixed_result *r = &g->r;
    const bool eig = have_eig(g);
    switch (i) {
    case 0: return r->converged;
    case 1: return r->iterations;
    case 2: return r->residual;
    case 3: return (double)r->stride_evals;
    case 4: return (double)r->newton_evals;
    case 5: return r->converged ? r->minimal_period : NAN;
    case 6: return r->invariant_drift;
    case 7: return eig ? r->max_abs_eig : NAN;
    case 8: return eig && r->stable;
    default: return eig ? r->trivial_index : -1;
    }
}

const char *sm_ffi_gait_value(const sm_ffi_gait *g, int group, size_t i, double *value)
{
    if (group == 0) {
        if (i >= sizeof account / sizeof *account) return NULL;
        *value = account_value(g, i);
        return account[i];
    }
    if (group != 1) return NULL;
    if (i < sm_metric_field_count) {
        *value = sm_metric_value(&g->r.metrics, i);
        return sm_metric_fields[i].output;
    }
    i -= sm_metric_field_count;
    if (!g->have_extra || i >= g->m->n_extra) return NULL;
    *value = g->extra[i];
    return g->extra_names[i];
}
