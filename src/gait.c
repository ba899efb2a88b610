#include "stridemap/gait.h"

#include <math.h>
#include <string.h>

#include "stridemap/poincare.h"

static sm_status analyse(sm_workspace *ws, const double *p, double h, bool exact, sm_gait *g, long *evals)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t n = g->n_free;
    g->max_abs_eig = NAN;
    g->stable = false;
    g->trivial_index = -1;
    double z[SM_MAX_STATE];
    sm_model_free(m, g->x, z);
    /* The exact Jacobian is one stride with sensitivities against 4 N n
     * strides of Richardson's differences, and is not limited by their
     * truncation and noise (about 1e-7); where it cannot be had (a method
     * without sensitivities, a grazing event, a stride that fails with
     * them) the differences still judge the gait. */
    sm_status st = SM_NO_EXACT_JACOBIAN;
    g->jacobian_exact = false;
    if (exact) {
        st = sm_map_jacobian_exact(ws, p, g->period, z, NULL, g->jacobian, evals);
        g->jacobian_exact = st == SM_OK;
    }
    if (st != SM_OK) st = sm_stability_jacobian(ws, p, g->period, z, h, g->jacobian, evals);
    if (st == SM_OK) st = sm_eigenvalues(n, g->jacobian, g->eig_re, g->eig_im);
    if (st != SM_OK) return st;
    /* A conserved quantity, or a family the model declares, makes one
     * multiplier exactly 1 (moving along the family of gaits); stability is
     * judged on the others. */
    if (m->invariant || m->family_condition) {
        double best = INFINITY;
        for (size_t i = 0; i < n; i++) {
            const double d = hypot(g->eig_re[i] - 1.0, g->eig_im[i]);
            if (d < best) best = d, g->trivial_index = (int)i;
        }
    }
    g->max_abs_eig = 0.0;
    for (size_t i = 0; i < n; i++)
        if ((int)i != g->trivial_index) g->max_abs_eig = fmax(g->max_abs_eig, hypot(g->eig_re[i], g->eig_im[i]));
    g->stable = g->max_abs_eig < 1.0;
    return SM_OK;
}

sm_status sm_gait_analyse(sm_workspace *ws, const double *p, double h, sm_gait *g, long *evals)
{
    return analyse(ws, p, h, true, g, evals);
}

sm_status sm_gait_analyse_fd(sm_workspace *ws, const double *p, double h, sm_gait *g, long *evals)
{
    return analyse(ws, p, h, false, g, evals);
}

int sm_gait_orbit(sm_workspace *ws, const double *p, const double *x, int period, double *orbit)
{
    const size_t ns = sm_workspace_model(ws)->n_state;
    memcpy(orbit, x, ns * sizeof *x);
    for (int k = 1; k < period; k++)
        if (sm_stride(ws, p, &orbit[(size_t)(k - 1) * ns], &orbit[(size_t)k * ns], NULL, NULL) != SM_OK) return k;
    return period;
}

bool sm_gait_extra_measures(sm_workspace *ws, const double *p, const sm_gait *g, double *values)
{
    const sm_model *m = sm_workspace_model(ws);
    if (!m->extra_measures || m->n_extra == 0 || m->n_extra > SM_MAX_EXTRA) return false;
    for (size_t i = 0; i < m->n_extra; i++) values[i] = NAN;
    m->extra_measures(ws, p, g->x, values);
    for (size_t i = 0; i < m->n_extra; i++)
        if (!isnan(values[i])) return true;
    return false;
}

static double extra_named(const sm_model *m, const double *extra, const char *name)
{
    for (size_t i = 0; extra && m->extra_names && i < m->n_extra; i++)
        if (strcmp(m->extra_names[i], name) == 0) return extra[i];
    return NAN;
}

void sm_gait_contact_checks(const sm_model *m, const double *p, const sm_step_metrics *mt, const double *extra,
                            double mu, sm_contact_checks *out)
{
    memset(out, 0, sizeof *out);
    const double declared = m->friction_coefficient ? m->friction_coefficient(p, m->data) : NAN;
    out->mu = !isnan(mu) ? mu : !isnan(declared) ? declared : 1.0;
    out->mu_from = !isnan(mu) ? "option" : !isnan(declared) ? "model" : "default";
    const double point = extra_named(m, extra, "min_normal_force");
    const double foot = extra_named(m, extra, "max_foot_friction_ratio");
    out->per_point = !isnan(point) && !isnan(foot);
    out->min_normal_force = out->per_point ? point : mt->min_normal_force;
    out->max_friction_ratio = out->per_point ? foot : mt->max_friction_ratio;
    out->known = !isnan(out->min_normal_force);
    if (!out->known) return;
    const double rounding = -1e-9 * fabs(m->weight ? m->weight(p, m->data) : 1.0);
    /* a contact that slides sits on its friction cone, |F_t| = mu F_n, to
     * rounding: friction holds there as the model says */
    const double cone = out->mu * (1 + 1e-9);
    out->unilateral = out->min_normal_force >= rounding;
    out->no_slip = out->unilateral && out->max_friction_ratio <= cone;
    const double foot_normal = extra_named(m, extra, "min_foot_normal_force");
    out->per_foot.known = out->per_point && !isnan(foot_normal);
    if (!out->per_foot.known) return;
    out->per_foot.min_normal_force = foot_normal;
    out->per_foot.max_friction_ratio = foot;
    out->per_foot.unilateral = foot_normal >= rounding;
    out->per_foot.no_slip = out->per_foot.unilateral && foot <= cone;
}
