/* The time derivative of q for a velocity v: hinges, slides and a free
 * joint's translation take v itself; a unit quaternion q turned by the
 * body-frame angular velocity ω moves as q̇ = ½ q ⊗ (0, ω) (ω multiplies on
 * the right because it is expressed in the moving frame; e.g. Featherstone
 * 2008, §4.6, or any text on quaternion kinematics). */
#include "rigid_internal.h"

void sm_rigid_qdot(const sm_rigid_model *m, const double *q, const double *v, double *qdot)
{
    for (size_t L = 0; L < m->nlink; L++) {
        size_t qa = m->qadr[L], va = m->vadr[L];
        switch (m->kind[L]) {
        case LINK_HINGE:
        case LINK_SLIDE: qdot[qa] = v[va]; break;
        case LINK_TRANS:
            for (int k = 0; k < 3; k++) qdot[qa + k] = v[va + k];
            break;
        case LINK_BALL: {
            const double *w = v + va, *a = q + qa;
            double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
            qdot[qa] = 0.5 * (-a1 * w[0] - a2 * w[1] - a3 * w[2]);
            qdot[qa + 1] = 0.5 * (a0 * w[0] + a2 * w[2] - a3 * w[1]);
            qdot[qa + 2] = 0.5 * (a0 * w[1] - a1 * w[2] + a3 * w[0]);
            qdot[qa + 3] = 0.5 * (a0 * w[2] + a1 * w[1] - a2 * w[0]);
            break;
        }
        case LINK_FIXED: break;
        }
    }
}
