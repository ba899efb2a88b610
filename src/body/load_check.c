/* Body-walker files: the model's shape as the section's counts need it. */
#include <math.h>

#include "load_internal.h"

static void quat_rot(const double q[4], double R[9])
{
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                         2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 9; i++) R[i] = r[i];
}

/* Planar (docs/body-walkers.md "Frames"): no ball or free joint, every
 * hinge axis along +-y and every slide in x-z, in the world at the
 * reference pose (hinges about y keep y where it is, so the reference pose
 * decides it for every pose). */
bool bl_is_planar(const body_file *f)
{
    double R[BODY_MAX_BODIES][9];
    for (size_t i = 0; i < f->n_bodies; i++) {
        const body_body *b = &f->bodies[i];
        double L[9];
        quat_rot(b->quat, L);
        if (b->parent < 0) {
            for (int k = 0; k < 9; k++) R[i][k] = L[k];
        } else {
            const double *P = R[b->parent];
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 3; k++)
                    R[i][3 * r + k] = P[3 * r] * L[k] + P[3 * r + 1] * L[3 + k] + P[3 * r + 2] * L[6 + k];
        }
        if (b->joint == SM_RIGID_BALL || b->joint == SM_RIGID_FREE) return false;
        if (b->joint != SM_RIGID_HINGE && b->joint != SM_RIGID_SLIDE) continue;
        double a[3];
        for (int r = 0; r < 3; r++) a[r] = R[i][3 * r] * b->axis[0] + R[i][3 * r + 1] * b->axis[1] + R[i][3 * r + 2] * b->axis[2];
        const double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (b->joint == SM_RIGID_HINGE && (fabs(a[0]) > 1e-12 * n || fabs(a[2]) > 1e-12 * n)) return false;
        if (b->joint == SM_RIGID_SLIDE && fabs(a[1]) > 1e-12 * n) return false;
    }
    return true;
}

/* Constraint rows, as rigid_contact.h counts them. */
size_t bl_contact_rows(const body_file *f, int contact, bool planar)
{
    switch (f->contacts[contact].kind) {
    case SM_CONTACT_PIN: {
        unsigned r = f->contacts[contact].rows ? f->contacts[contact].rows : SM_ROW_X | SM_ROW_Y | SM_ROW_Z;
        if (planar) r &= ~SM_ROW_Y;
        return (size_t)((r & 1u) + ((r >> 1) & 1u) + ((r >> 2) & 1u));
    }
    case SM_CONTACT_ROLL: return planar ? 2 : 3;
    default: return 1;
    }
}

bool bl_check(bl_ctx *c)
{
    (void)c;
    return true;
}
