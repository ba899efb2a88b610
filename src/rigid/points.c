/* Points fixed on links (sites, centres of mass, a disk's contact point):
 * world position, Jacobians and motion at v̇ = 0.
 *
 * A joint column S_c of link j (link coordinates, [ω; v] with v the velocity of
 * the point at j's origin) moves a point at world x by
 *     jacr = R_j ω,   jacp = R_j v + (R_j ω) × (x − p_j).
 * At v̇ = 0 without gravity, from the spatial acceleration a⁰ = [ω̇; v̇_O] and
 * velocity [ω; v_O] of the link (Featherstone 2008, §2.11),
 *     ẍ = R (v̇_O + ω̇ × u + ω × (v_O + ω × u)),   α = R ω̇,
 * u the point in link coordinates (the angular part of a spatial acceleration
 * is the classical one).  On the planar path every ω is along n and ω̇ = 0
 * at v̇ = 0 (θ̈ = Σ s_k q̈_k). */
#include <string.h>

#include "rigid_internal.h"

void sm_rigid_point_pos(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u, double x[3])
{
    sm_rigid_poses(m, d);
    m3_mul_v(d->R + 9 * L, u, x);
    for (int k = 0; k < 3; k++) x[k] += d->p[3 * L + k];
}

void sm_rigid_point_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                        double *jacp, double *jacr)
{
    if (m->use_planar) {
        double img[3];
        sm_rigid_planar_image(m, L, u, img);
        sm_rigid_planar_point_jac(m, d, L, img, jacp, jacr);
        return;
    }
    size_t nv = m->nv;
    if (jacp) memset(jacp, 0, 3 * nv * sizeof *jacp);
    if (jacr) memset(jacr, 0, 3 * nv * sizeof *jacr);
    double x[3];
    sm_rigid_point_pos(m, d, L, u, x);
    for (int j = (int)L; j >= 0; j = m->parent[j]) {
        const double *S = m->S + 18 * j, *Rj = d->R + 9 * j, *pj = d->p + 3 * j;
        double dx[3] = {x[0] - pj[0], x[1] - pj[1], x[2] - pj[2]};
        for (size_t c = 0; c < m->nd[j]; c++) {
            double wl[3] = {S[c], S[3 + c], S[6 + c]}, vl[3] = {S[9 + c], S[12 + c], S[15 + c]};
            double w[3], vw[3], t[3];
            m3_mul_v(Rj, wl, w);
            m3_mul_v(Rj, vl, vw);
            v3_cross(w, dx, t);
            size_t col = m->vadr[j] + c;
            for (int k = 0; k < 3; k++) {
                if (jacp) jacp[k * nv + col] = vw[k] + t[k];
                if (jacr) jacr[k * nv + col] = w[k];
            }
        }
    }
}

void sm_rigid_point_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                          double acc[3], double alpha[3])
{
    if (m->use_planar) {
        double img[3];
        sm_rigid_planar_image(m, L, u, img);
        if (acc) sm_rigid_planar_point_jdotv(m, d, L, img, acc);
        if (alpha) alpha[0] = alpha[1] = alpha[2] = 0.0;
        return;
    }
    sm_rigid_poses(m, d);
    const double *v = d->v + 6 * L, *a = d->a0 + 6 * L;
    if (acc) {
        double ws[3], vs[3], as[3], wv[3], al[3];
        v3_cross(v, u, ws);
        for (int k = 0; k < 3; k++) vs[k] = v[3 + k] + ws[k];
        v3_cross(a, u, as);
        v3_cross(v, vs, wv);
        for (int k = 0; k < 3; k++) al[k] = a[3 + k] + as[k] + wv[k];
        m3_mul_v(d->R + 9 * L, al, acc);
    }
    if (alpha) m3_mul_v(d->R + 9 * L, a, alpha);
}
