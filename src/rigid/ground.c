/* Ground forces as gait measures (seed 000, eqs. 24–26).
 *
 * A contact's force on the walker from the λ of the solve: PIN and ROLL
 * carry their world components (y = 0 on a planar tree; a pin's rows not
 * held, 0), SLIDE its normal
 * force with the friction −μ s F_n along x, LOCK its torque in F[0].
 *
 * Centre of pressure (eq. 24): p_cop = Σ F_z,i p_i / Σ F_z,i over the
 * ground contacts' points.
 *
 * Zero-moment point from the motion alone (Vukobratović & Borovac 2004,
 * "Zero-moment point — thirty five years of its life", Int. J. Humanoid
 * Robotics 1(1)): the ground must supply
 *     F = Σ m_i (a_i − g),   N_O = Σ p_i × m_i (a_i − g) + I_i ω̇_i + ω_i × I_i ω_i
 * (about the world origin; a_i, ω̇_i from v̇ through each body's Jacobians
 * and J̇v), and the point p = (x, y, 0) about which N has no horizontal part
 * is x = −N_O,y / F_z, y = N_O,x / F_z.  When every external force but
 * gravity acts at ground points this is the CoP (a conservation law, not a
 * definition: the tests hold the two to each other). */
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

void sm_contact_force(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, size_t nc,
                      const double *lambda, size_t k, double F[3])
{
    (void)d;
    size_t row = 0;
    for (size_t i = 0; i < k && i < nc; i++) row += sm_contact_rows(m, &c[i]);
    F[0] = F[1] = F[2] = 0.0;
    if (k >= nc) return;
    const double *l = lambda + row;
    switch (c[k].kind) {
    case SM_CONTACT_PIN: {
        /* a row not held carries no force */
        const unsigned mask = sm_contact_pin_rows(m, &c[k]);
        for (int i = 0, r = 0; i < 3; i++)
            if (mask & (1u << i)) F[i] = l[r++];
        break;
    }
    case SM_CONTACT_ROLL:
        if (m->planar) {
            F[0] = l[0];
            F[2] = l[1];
        } else {
            memcpy(F, l, 3 * sizeof *F);
        }
        break;
    case SM_CONTACT_SLIDE:
        F[0] = -c[k].mu * (c[k].slide_sign < 0 ? -1.0 : 1.0) * l[0];
        F[2] = l[0];
        break;
    case SM_CONTACT_LOCK: F[0] = l[0]; break;
    }
}

bool sm_rigid_cop(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, size_t nc,
                  const double *lambda, double cop[3])
{
    double fz = 0.0, s[3] = {0, 0, 0};
    for (size_t k = 0; k < nc; k++) {
        if (c[k].kind == SM_CONTACT_LOCK) continue;
        double F[3], p[3];
        sm_contact_force(m, d, c, nc, lambda, k, F);
        sm_contact_gap(m, d, NULL, &c[k], p);
        fz += F[2];
        for (int i = 0; i < 3; i++) s[i] += F[2] * p[i];
    }
    if (!(fz > 0.0)) return false;
    for (int i = 0; i < 3; i++) cop[i] = s[i] / fz;
    return true;
}

bool sm_rigid_zmp(const sm_rigid_model *m, sm_rigid_data *d, const double *v, const double *vdot,
                  double zmp[3])
{
    (void)v; /* the velocities are those of the last forward sweep */
    size_t nv = m->nv;
    double jp[3 * SM_RIGID_MAX_V], jr[3 * SM_RIGID_MAX_V];
    double F[3] = {0, 0, 0}, N[3] = {0, 0, 0};
    const double *g = m->gravity;
    if (nv > SM_RIGID_MAX_V) return false;
    for (size_t b = 0; b < m->nbody; b++) {
        size_t L = m->body_link[b];
        const double *c = m->com + 3 * L;
        double R[9], p[3], w[3], a[3], al[3];
        sm_rigid_body_state(m, d, b, R, p, NULL, w);
        sm_rigid_point_jac(m, d, L, c, jp, jr);
        sm_rigid_point_jdotv(m, d, L, c, a, al);
        for (int i = 0; i < 3; i++)
            for (size_t k = 0; k < nv; k++) {
                a[i] += jp[i * nv + k] * vdot[k];
                al[i] += jr[i * nv + k] * vdot[k];
            }
        double f[3], t[3], wb[3], ab[3], Iw[3], Ia[3], h[3], gyro[3];
        for (int i = 0; i < 3; i++) f[i] = m->mass[L] * (a[i] - g[i]);
        v3_cross(p, f, t);
        /* I ω̇ + ω × I ω in body axes, turned to the world */
        m3t_mul_v(R, w, wb);
        m3t_mul_v(R, al, ab);
        m3_mul_v(m->Icom + 9 * L, wb, Iw);
        m3_mul_v(m->Icom + 9 * L, ab, Ia);
        v3_cross(wb, Iw, gyro);
        for (int i = 0; i < 3; i++) h[i] = Ia[i] + gyro[i];
        m3_mul_v(R, h, h);
        for (int i = 0; i < 3; i++) {
            F[i] += f[i];
            N[i] += t[i] + h[i];
        }
    }
    if (!(F[2] > 0.0)) return false;
    zmp[0] = -N[1] / F[2];
    zmp[1] = N[0] / F[2];
    zmp[2] = 0.0;
    return true;
}
