/* Kinetic and potential energy, body by body (never through M, so that a
 * test of M against the energy is not circular):
 *     T = Σ ½ m_i |v_ci|² + ½ ω_iᵀ (R_i I_i R_iᵀ) ω_i,    V = −Σ m_i g·p_ci,
 * with v_ci the velocity of the centre of mass and ω_i the angular velocity
 * (world frame); V is zero for all mass at the world origin. */
#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

void sm_rigid_energy(const sm_rigid_model *m, sm_rigid_data *d, const double *v, double *kinetic,
                     double *potential)
{
    (void)v; /* the velocities are those of the last forward sweep */
    double T = 0.0, V = 0.0;
    for (size_t b = 0; b < m->nbody; b++) {
        size_t L = m->body_link[b];
        double R[9], p[3], vc[3], w[3], wb[3], Iw[3];
        sm_rigid_body_state(m, d, b, R, p, vc, w);
        double mass = m->mass[L];
        m3t_mul_v(R, w, wb);
        m3_mul_v(m->Icom + 9 * L, wb, Iw);
        T += 0.5 * mass * (vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2])
           + 0.5 * (wb[0] * Iw[0] + wb[1] * Iw[1] + wb[2] * Iw[2]);
        V -= mass * (m->gravity[0] * p[0] + m->gravity[1] * p[1] + m->gravity[2] * p[2]);
    }
    if (kinetic) *kinetic = T;
    if (potential) *potential = V;
}
