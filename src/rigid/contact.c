/* Contacts as constraint rows (docs/body-walkers.md "Contacts"): the rows J
 * and J̇v of each contact, and its gap.  The ground is z = 0, its normal n = z.
 *
 * PIN: the site's translational Jacobian rows (x, z planar; x, y, z in 3-D),
 * J̇v the site's acceleration at v̇ = 0.  A planar tree moves in x–z, where
 * the y row is identically zero and would make every set dependent.  A pin
 * may hold a subset of the rows (rows): a foot hinged along its toe line in
 * 3-D is a pin at one end of the line and the other end held in x and z
 * only, since that end's y velocity along the line is the first end's
 * (ω × r has no component along r): a second full pin would be dependent.
 * SLIDE: the z row; its tangential row (x) goes to Jt for the friction law.
 * LOCK: a unit row on the body's velocity index, J̇v = 0.
 * ROLL (a disk of radius r, centre x_c, world axis a): the material point at
 * the lowest point c = x_c + r d has zero velocity, where d points from the
 * centre to the ground along the disk's plane,
 *     d = −(n − (n·a)a) / |n − (n·a)a|     (planar: d = −z),
 * so J v = v_c + ω × (r d), and along the motion (d turns with the disk,
 * ȧ = ω × a)
 *     J̇v = ẍ⁰_c + α⁰ × (r d) + ω × (r ḋ),
 *     ḋ = −(u̇ − û (û·u̇)) / |u|,  u = n − (n·a)a,  u̇ = −(n·ȧ)a − (n·a)ȧ,
 * exactly (no differences).  The z row of a roll is the gradient of its gap
 * (the lowest point is where the rim's height is least, so moving the
 * material point along the rim changes the least height at second order
 * only): the projection treats it as holonomic. */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

unsigned sm_contact_pin_rows(const sm_rigid_model *m, const sm_contact *c)
{
    unsigned r = c->rows & (SM_ROW_X | SM_ROW_Y | SM_ROW_Z);
    if (!r) r = SM_ROW_X | SM_ROW_Y | SM_ROW_Z;
    return m->planar ? r & ~SM_ROW_Y : r;
}

size_t sm_contact_rows(const sm_rigid_model *m, const sm_contact *c)
{
    switch (c->kind) {
    case SM_CONTACT_PIN: {
        unsigned r = sm_contact_pin_rows(m, c);
        return (size_t)((r & 1u) + ((r >> 1) & 1u) + ((r >> 2) & 1u));
    }
    case SM_CONTACT_ROLL: return m->planar ? 2 : 3;
    case SM_CONTACT_SLIDE:
    case SM_CONTACT_LOCK: return 1;
    }
    return 0;
}

size_t sm_contact_set_rows(const sm_rigid_model *m, const sm_contact *c, size_t nc)
{
    size_t r = 0;
    for (size_t k = 0; k < nc; k++) r += sm_contact_rows(m, &c[k]);
    return r;
}

size_t sm_rigid_contact_work_size(const sm_rigid_model *m, size_t rows)
{
    size_t nv = m->nv;
    return nv * nv + 3 * rows * nv + rows * rows + 4 * nv + 4 * rows;
}

/* The disk's world axis a (unit) and the unit direction d to its lowest point. */
static void disk_frame(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, double a[3],
                       double dir[3], double *ulen)
{
    size_t L = m->site_link[c->site];
    double al = sqrt(c->axis[0] * c->axis[0] + c->axis[1] * c->axis[1] + c->axis[2] * c->axis[2]);
    double ab[3] = {c->axis[0] / al, c->axis[1] / al, c->axis[2] / al};
    if (m->planar) {
        /* the axis is along n and the lowest point straight down: the
         * callers read a only off the plane, so the 3-D pose is not needed */
        a[0] = a[1] = a[2] = 0.0;
        dir[0] = dir[1] = 0.0;
        dir[2] = -1.0;
        *ulen = 1.0;
        return;
    }
    sm_rigid_poses(m, d);
    m3_mul_v(d->R + 9 * L, ab, a);
    double u[3] = {-a[2] * a[0], -a[2] * a[1], 1.0 - a[2] * a[2]};
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    *ulen = l;
    if (!(l > 1e-300)) { /* the disk lies flat: no lowest point on the rim */
        dir[0] = dir[1] = 0.0;
        dir[2] = -1.0;
        return;
    }
    for (int k = 0; k < 3; k++) dir[k] = -u[k] / l;
}

static void contact_point(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, double x[3])
{
    sm_rigid_site_pos(m, d, c->site, x);
    if (c->kind == SM_CONTACT_ROLL) {
        double a[3], dir[3], l;
        disk_frame(m, d, c, a, dir, &l);
        for (int k = 0; k < 3; k++) x[k] += c->radius * dir[k];
    }
}

double sm_contact_gap(const sm_rigid_model *m, const sm_rigid_data *d, const double *q, const sm_contact *c,
                      double point[3])
{
    if (c->kind == SM_CONTACT_LOCK) {
        if (point) point[0] = point[1] = point[2] = 0.0;
        return q[sm_rigid_body_qadr(m, c->body)] - c->at;
    }
    double x[3];
    contact_point(m, d, c, x);
    if (point) memcpy(point, x, sizeof x);
    return x[2];
}

/* The world rows in mask (a planar tree's mask has no y). */
static size_t put_rows(const sm_rigid_model *m, unsigned mask, const double *jac, const double *acc, double *J,
                       double *Jdv)
{
    size_t nv = m->nv, n = 0;
    for (int k = 0; k < 3; k++) {
        if (!(mask & (1u << k))) continue;
        if (J) memcpy(J + n * nv, jac + k * nv, nv * sizeof *J);
        if (Jdv) Jdv[n] = acc[k];
        n++;
    }
    return n;
}

static size_t roll_rows(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, double *J,
                        double *Jdv)
{
    size_t nv = m->nv, L = m->site_link[c->site];
    if (m->use_planar) {
        /* the lowest point r straight below the centre (d = −z), its rows
         * from the in-plane columns; J̇v the centre's: α⁰ = 0 and ḋ = 0 */
        const double e[3] = {0.0, 0.0, -c->radius};
        double acc[3];
        if (J) sm_rigid_planar_site_xz(m, d, c->site, e, J, J + nv);
        if (Jdv) {
            sm_rigid_planar_site_jdotv(m, d, c->site, acc);
            Jdv[0] = acc[0];
            Jdv[1] = acc[2];
        }
        return 2;
    }
    double jp[3 * SM_RIGID_MAX_V], jr[3 * SM_RIGID_MAX_V];
    sm_rigid_site_jac(m, d, c->site, jp, jr);
    double a[3], dir[3], ul, e[3];
    disk_frame(m, d, c, a, dir, &ul);
    for (int k = 0; k < 3; k++) e[k] = c->radius * dir[k];
    /* v_c = v_x + ω × e, column by column */
    for (size_t j = 0; j < nv; j++) {
        double w[3] = {jr[j], jr[nv + j], jr[2 * nv + j]}, t[3];
        v3_cross(w, e, t);
        for (int k = 0; k < 3; k++) jp[k * nv + j] += t[k];
    }
    double acc[3];
    sm_rigid_site_jdotv(m, d, c->site, acc);
    if (!m->planar) {
        double alpha[3], u0[3] = {0, 0, 0}, w[3], t[3];
        sm_rigid_point_jdotv(m, d, L, u0, NULL, alpha);
        sm_rigid_poses(m, d);
        m3_mul_v(d->R + 9 * L, d->v + 6 * L, w);
        v3_cross(alpha, e, t);
        for (int k = 0; k < 3; k++) acc[k] += t[k];
        if (ul > 1e-300) {
            double ad[3], ud[3], uh[3], dd[3];
            v3_cross(w, a, ad);
            for (int k = 0; k < 3; k++) {
                ud[k] = -ad[2] * a[k] - a[2] * ad[k];
                uh[k] = -dir[k];
            }
            double s = uh[0] * ud[0] + uh[1] * ud[1] + uh[2] * ud[2];
            for (int k = 0; k < 3; k++) dd[k] = -c->radius * (ud[k] - uh[k] * s) / ul;
            v3_cross(w, dd, t);
            for (int k = 0; k < 3; k++) acc[k] += t[k];
        }
    }
    return put_rows(m, m->planar ? SM_ROW_X | SM_ROW_Z : SM_ROW_X | SM_ROW_Y | SM_ROW_Z, jp, acc, J, Jdv);
}

size_t sm_contact_jacobian(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, size_t nc,
                           double *J, double *Jdotv, double *Jt)
{
    size_t nv = m->nv, row = 0;
    double jp[3 * SM_RIGID_MAX_V], acc[3];
    if (nv > SM_RIGID_MAX_V) return 0; /* beyond the stack bounds the header promises */
    for (size_t i = 0; i < nc; i++) {
        const sm_contact *ci = &c[i];
        double *Ji = J ? J + row * nv : NULL, *Ai = Jdotv ? Jdotv + row : NULL;
        if (Jt) memset(Jt + i * nv, 0, nv * sizeof *Jt);
        switch (ci->kind) {
        case SM_CONTACT_PIN:
            if (m->use_planar && sm_contact_pin_rows(m, ci) == (SM_ROW_X | SM_ROW_Z)) {
                static const double none[3] = {0.0, 0.0, 0.0};
                if (Ji) sm_rigid_planar_site_xz(m, d, ci->site, none, Ji, Ji + nv);
                if (Ai) {
                    sm_rigid_planar_site_jdotv(m, d, ci->site, acc);
                    Ai[0] = acc[0];
                    Ai[1] = acc[2];
                }
                row += 2;
                break;
            }
            sm_rigid_site_jac(m, d, ci->site, jp, NULL);
            sm_rigid_site_jdotv(m, d, ci->site, acc);
            row += put_rows(m, sm_contact_pin_rows(m, ci), jp, acc, Ji, Ai);
            break;
        case SM_CONTACT_SLIDE:
            sm_rigid_site_jac(m, d, ci->site, jp, NULL);
            sm_rigid_site_jdotv(m, d, ci->site, acc);
            if (Ji) memcpy(Ji, jp + 2 * nv, nv * sizeof *Ji);
            if (Ai) *Ai = acc[2];
            if (Jt) memcpy(Jt + i * nv, jp, nv * sizeof *Jt);
            row += 1;
            break;
        case SM_CONTACT_ROLL: row += roll_rows(m, d, ci, Ji, Ai); break;
        case SM_CONTACT_LOCK:
            if (Ji) {
                memset(Ji, 0, nv * sizeof *Ji);
                Ji[sm_rigid_body_vadr(m, ci->body)] = 1.0;
            }
            if (Ai) *Ai = 0.0;
            row += 1;
            break;
        }
    }
    return row;
}
