/* A body file's push (load_disturb.c, docs/body-walkers.md "Disturbances"):
 * a horizontal impulse P at a site, at the moment the site passes over the
 * stance contact, applied with the phase's contacts held.
 *
 * The impulse u P at the site is the generalized impulse J_sᵀ u P (J_s the
 * site's translational Jacobian); the contacts the phase holds take what
 * they hold, as a plastic impact's do (src/rigid/impact.c):
 *     M (v⁺ − v⁻) = J_sᵀ u P + J_cᵀ Λ,   J_c v⁺ = 0,
 * solved as v' = v⁻ + M⁻¹ J_sᵀ u P, then the impact of the phase's contacts
 * on v'.  The contacts are bilateral here as in every impact of the engine:
 * a push that would lift the stance foot is held down by it.
 *
 * u is horizontal: perpendicular to this stride's gravity
 * g = g0 (sin s, 0, −cos s) in the x–z plane and forward,
 * u = (cos s, 0, sin s), so that a closed-form walker's "horizontal"
 * (compass.c: perpendicular to gravity) is the same push; or the walker's
 * left, u = (0, 1, 0). */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "body_model.h"

/* The x-position of a contact's point: its site (a disk's centre). */
static double contact_x(const body_eval *e, int contact)
{
    double pos[3];
    sm_rigid_site_pos(e->m, e->d, (size_t)e->bm->f->contacts[contact].site, pos);
    return pos[0];
}

double body_push_value(const body_eval *e, size_t k, const double *p)
{
    const body_file *f = e->bm->f;
    if (p[f->push[k].param] == 0.0) return 1.0; /* no push: never crossed */
    double pos[3];
    sm_rigid_site_pos(e->m, e->d, (size_t)f->push[k].site, pos);
    return pos[0] - contact_x(e, f->push[k].over);
}

void body_push_direction(const body_file *f, size_t k, const double *p, double u[3])
{
    if (f->push[k].sideways) {
        u[0] = 0, u[1] = 1, u[2] = 0;
        return;
    }
    double g[3];
    body_gravity_at(f, p, g);
    const double n = hypot(g[0], g[2]);
    u[0] = -g[2] / n, u[1] = 0, u[2] = g[0] / n;
}

sm_status body_push_apply(const body_eval *e, size_t ph, size_t k, double *x, body_impact *out)
{
    const body_model *bm = e->bm;
    const body_file *f = bm->f;
    const size_t nv = bm->nv;
    double *q = x, *v = x + bm->nq;
    sm_status st = sm_rigid_forward(e->m, e->d, q, v);
    if (st != SM_OK) return st;
    double u[3], jac[3 * SM_RIGID_MAX_V], M[SM_RIGID_MAX_V * SM_RIGID_MAX_V], dv[SM_RIGID_MAX_V];
    body_push_direction(f, k, e->p, u);
    const double P = e->p[f->push[k].param];
    sm_rigid_site_jac(e->m, e->d, (size_t)f->push[k].site, jac, NULL);
    for (size_t j = 0; j < nv; j++) dv[j] = (jac[j] * u[0] + jac[nv + j] * u[1] + jac[2 * nv + j] * u[2]) * P;
    sm_rigid_mass(e->m, e->d, M);
    if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', (lapack_int)nv, 1, M, (lapack_int)nv, dv, 1) != 0)
        return SM_SINGULAR_CONSTRAINTS;
    double vp[SM_RIGID_MAX_V];
    for (size_t j = 0; j < nv; j++) vp[j] = v[j] + dv[j];
    out->nc = body_phase_contacts(e, ph, vp, out->c);
    for (size_t i = 0; i < out->nc; i++) out->contact[i] = f->phases[ph].contacts[i];
    if (!out->nc) { /* in flight nothing holds the walker */
        memcpy(v, vp, nv * sizeof *v);
        out->lost = out->residual = 0;
        return SM_OK;
    }
    st = sm_rigid_impact(e->m, e->d, out->c, out->nc, vp, v, out->Lambda, &out->lost, &out->residual, e->work);
    return st;
}
