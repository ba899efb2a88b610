/* Which kind of motion each free coordinate of a 3-D body walker is, so
 * that a multiplier's eigenvector can say whether the walker fails in its
 * sagittal plane, sideways or in heading (sm_gait_modes).  With the world's
 * y to the walker's left, the mirror y -> -y keeps hinges about y and slides
 * along x and z (sagittal) and reverses hinges about x and z and slides
 * along y (lateral); a hinge about the ground's normal z reached through
 * slides alone turns the whole walker: its heading.  Read from the joints'
 * axes at q = 0, so only for trees of hinges and slides whose bodies are not
 * rotated at q = 0 (every file of models/ in 3-D); other trees get none. */
#include <math.h>

#include "body_model.h"

static int joint_mode(const body_file *f, size_t b)
{
    const body_body *B = &f->bodies[b];
    const double ax = fabs(B->axis[0]), ay = fabs(B->axis[1]), az = fabs(B->axis[2]);
    const bool along_y = ay >= ax && ay >= az;
    if (B->joint == SM_RIGID_SLIDE) return along_y ? SM_MODE_LATERAL : SM_MODE_SAGITTAL;
    if (along_y) return SM_MODE_SAGITTAL;
    bool through_slides = az > ax;
    for (int a = B->parent; a >= 0 && through_slides; a = f->bodies[a].parent)
        through_slides = f->bodies[a].joint == SM_RIGID_SLIDE || f->bodies[a].joint == SM_RIGID_FIXED;
    return through_slides ? SM_MODE_HEADING : SM_MODE_LATERAL;
}

void body_set_modes(body_model *bm)
{
    const body_file *f = bm->f;
    bm->model.free_mode = NULL;
    if (bm->planar) return;
    int q_mode[BODY_MAX_COORDS];
    size_t q = 0;
    for (size_t b = 0; b < f->n_bodies; b++) {
        const body_body *B = &f->bodies[b];
        if (B->joint == SM_RIGID_FIXED) continue;
        if (B->joint != SM_RIGID_HINGE && B->joint != SM_RIGID_SLIDE) return;
        if (B->quat[0] != 1.0) return;
        q_mode[q++] = joint_mode(f, b);
    }
    if (q != f->nq || f->nv != f->nq) return;
    for (size_t k = 0; k < f->n_free; k++) {
        const size_t i = f->free_index[k];
        /* a controller's integrator is no motion of the walker's */
        bm->free_mode[k] = i >= f->nq + f->nv ? SM_MODE_SAGITTAL : q_mode[i < f->nq ? i : i - f->nq];
    }
    bm->model.free_mode = bm->free_mode;
}

void body_lateral_coords(const body_file *f, int *yaw, int *roll)
{
    *yaw = *roll = -1;
    int q = 0;
    for (size_t b = 0; b < f->n_bodies; b++) {
        const body_body *B = &f->bodies[b];
        if (B->joint == SM_RIGID_FIXED) continue;
        if (B->joint != SM_RIGID_HINGE && B->joint != SM_RIGID_SLIDE) return;
        if (B->joint == SM_RIGID_HINGE && B->quat[0] == 1.0) {
            const int mode = joint_mode(f, b);
            const bool about_x = fabs(B->axis[0]) >= fabs(B->axis[1]) && fabs(B->axis[0]) >= fabs(B->axis[2]);
            if (mode == SM_MODE_HEADING && *yaw < 0) *yaw = q;
            if (mode == SM_MODE_LATERAL && about_x && *roll < 0) *roll = q;
        }
        q++;
    }
}
