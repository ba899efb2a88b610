/* Sites (points fixed on bodies): world position, Jacobians and J̇v.
 *
 * A joint column S_c of link j (link coordinates, [ω; v] with v the velocity of
 * the point at j's origin) moves a site at world point x by
 *     jacr = R_j ω,   jacp = R_j v + (R_j ω) × (x − p_j).
 * J̇(q, v)v is the site's classical acceleration at v̇ = 0 without gravity.  From
 * the spatial acceleration a⁰ = [ω̇; v̇_O] and velocity [ω; v_O] of its link
 * (Featherstone 2008, §2.11: a spatial acceleration is not the classical one),
 *     a_site = R (v̇_O + ω̇ × s + ω × (v_O + ω × s)),  s the site in link coordinates. */
#include <string.h>

#include "rigid_internal.h"

void sm_rigid_site_pos(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double pos[3])
{
    size_t L = m->site_link[site];
    if (m->use_planar) {
        /* from the planar sweep alone (the events' gaps and heights at
         * every root evaluation): Rot_n(θ) turns the reference image in
         * the plane and keeps its n part */
        sm_rigid_planar_site_pos(m, d, site, pos);
        return;
    }
    sm_rigid_poses(m, d);
    m3_mul_v(d->R + 9 * L, m->site_pos + 3 * site, pos);
    for (int k = 0; k < 3; k++) pos[k] += d->p[3 * L + k];
}

void sm_rigid_site_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double *jacp,
                       double *jacr)
{
    if (m->use_planar) {
        sm_rigid_planar_site_jac(m, d, site, jacp, jacr);
        return;
    }
    sm_rigid_point_jac(m, d, m->site_link[site], m->site_pos + 3 * site, jacp, jacr);
}

/* Classical acceleration (or, with a = NULL, velocity) of the link-frame point s, in link coordinates. */
static void point_motion(const double *v, const double *a, const double *s, double *out)
{
    double ws[3], vs[3];
    v3_cross(v, s, ws);
    for (int k = 0; k < 3; k++) vs[k] = v[3 + k] + ws[k];
    if (!a) {
        memcpy(out, vs, sizeof vs);
        return;
    }
    double as[3], wv[3];
    v3_cross(a, s, as);
    v3_cross(v, vs, wv);
    for (int k = 0; k < 3; k++) out[k] = a[3 + k] + as[k] + wv[k];
}

void sm_rigid_site_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double acc[3])
{
    if (m->use_planar) {
        sm_rigid_planar_site_jdotv(m, d, site, acc);
        return;
    }
    size_t L = m->site_link[site];
    sm_rigid_poses(m, d);
    double al[3];
    point_motion(d->v + 6 * L, d->a0 + 6 * L, m->site_pos + 3 * site, al);
    m3_mul_v(d->R + 9 * L, al, acc);
}

void sm_rigid_body_state(const sm_rigid_model *m, const sm_rigid_data *d, size_t body, double R[9],
                         double pcom[3], double vcom[3], double omega[3])
{
    size_t L = m->body_link[body];
    sm_rigid_poses(m, d);
    const double *RL = d->R + 9 * L, *c = m->com + 3 * L;
    if (R) memcpy(R, RL, 9 * sizeof *R);
    if (pcom) {
        m3_mul_v(RL, c, pcom);
        for (int k = 0; k < 3; k++) pcom[k] += d->p[3 * L + k];
    }
    if (m->use_planar && (vcom || omega)) {
        /* in the plane: ṗ + θ̇ perp(c − p), with c − p = R com */
        double cw[3], a, b;
        m3_mul_v(RL, c, cw);
        a = cw[0] * m->pl_e1[0] + cw[1] * m->pl_e1[1] + cw[2] * m->pl_e1[2];
        b = cw[0] * m->pl_e2[0] + cw[1] * m->pl_e2[1] + cw[2] * m->pl_e2[2];
        double w = d->thd[L], v1 = d->pv[2 * L] - w * b, v2 = d->pv[2 * L + 1] + w * a;
        for (int k = 0; k < 3; k++) {
            if (vcom) vcom[k] = v1 * m->pl_e1[k] + v2 * m->pl_e2[k];
            if (omega) omega[k] = w * m->pl_n[k];
        }
        return;
    }
    if (vcom) {
        double vl[3];
        point_motion(d->v + 6 * L, NULL, c, vl);
        m3_mul_v(RL, vl, vcom);
    }
    if (omega) m3_mul_v(RL, d->v + 6 * L, omega);
}
