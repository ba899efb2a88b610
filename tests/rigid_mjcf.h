/* A rigid tree (stridemap/rigid.h) written as MJCF for MuJoCo, shared by
 * test_rigid_mujoco.c and bench/bench_rigid.c.  Joints, frames, sites and
 * inertias map one to one (both use w-x-y-z quaternions, axes in the body
 * frame, inertia about the centre of mass). */
#ifndef STRIDEMAP_RIGID_MJCF_H
#define STRIDEMAP_RIGID_MJCF_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "stridemap/rigid.h"

/* Principal moments d and the unit quaternion of the principal axes of the
 * symmetric I, by cyclic Jacobi rotations to round-off.  MuJoCo's own
 * diagonalisation of fullinertia stops at ~1e-9 relative, too coarse for a
 * 1e-12 comparison, so the test hands it the principal frame. */
static void principal(const double *I, double *d, double *quat)
{
    double A[9], V[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(A, I, sizeof A);
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
        if (off < 1e-300) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                double apq = A[3 * p + q];
                if (apq == 0.0) continue;
                double th = 0.5 * atan2(2 * apq, A[3 * q + q] - A[3 * p + p]);
                double c = cos(th), s = sin(th);
                /* A = Gᵀ A G, V = V G with G the rotation in the (p, q) plane */
                for (int k = 0; k < 3; k++) {
                    double akp = A[3 * k + p], akq = A[3 * k + q];
                    A[3 * k + p] = c * akp - s * akq;
                    A[3 * k + q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = A[3 * p + k], aqk = A[3 * q + k];
                    A[3 * p + k] = c * apk - s * aqk;
                    A[3 * q + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = V[3 * k + p], vkq = V[3 * k + q];
                    V[3 * k + p] = c * vkp - s * vkq;
                    V[3 * k + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int k = 0; k < 3; k++) d[k] = A[4 * k];
    double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6])
               + V[2] * (V[3] * V[7] - V[4] * V[6]);
    if (det < 0)
        for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
    mju_mat2Quat(quat, V);
}

static void emit_body(FILE *f, const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns,
                      size_t i)
{
    const sm_rigid_body_def *x = &b[i];
    fprintf(f, "<body name=\"%s\" pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\">\n", x->name,
            x->pos[0], x->pos[1], x->pos[2], x->quat[0], x->quat[1], x->quat[2], x->quat[3]);
    static const char *type[] = {"", "hinge", "slide", "ball", ""};
    if (x->joint == SM_RIGID_FREE) fprintf(f, "<freejoint/>\n");
    else if (x->joint != SM_RIGID_FIXED)
        fprintf(f, "<joint type=\"%s\" axis=\"%.17g %.17g %.17g\"/>\n", type[x->joint], x->axis[0], x->axis[1],
                x->axis[2]);
    double d[3], iq[4];
    principal(x->inertia, d, iq);
    fprintf(f, "<inertial pos=\"%.17g %.17g %.17g\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\" "
               "quat=\"%.17g %.17g %.17g %.17g\"/>\n",
            x->com[0], x->com[1], x->com[2], x->mass, d[0], d[1], d[2], iq[0], iq[1], iq[2], iq[3]);
    for (size_t k = 0; k < ns; k++)
        if ((size_t)s[k].body == i)
            fprintf(f, "<site name=\"%s\" pos=\"%.17g %.17g %.17g\"/>\n", s[k].name, s[k].pos[0], s[k].pos[1],
                    s[k].pos[2]);
    for (size_t c = i + 1; c < nb; c++)
        if (b[c].parent == (int)i) emit_body(f, b, nb, s, ns, c);
    fprintf(f, "</body>\n");
}

/* MuJoCo's M (dense, nv x nv) and bias C v + G at md's qpos and qvel: the
 * sweeps mj_fullM and mj_rne (flg_acc = 0) need, in the order they need them
 * (notes/mujoco-2.2.2.md). */
static inline void mjcf_mass_bias(const mjModel *mm, mjData *md, double *M, double *bias)
{
    mj_kinematics(mm, md);
    mj_comPos(mm, md);
    mj_crb(mm, md);
    mj_fullM(mm, M, md->qM);
    mj_comVel(mm, md);
    mj_rne(mm, md, 0, bias);
}

/* The tree as an MJCF file loaded by MuJoCo; NULL and a message in err if it fails. */
static mjModel *rigid_mjcf_load(const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns,
                                const double *g, char *err, size_t errsz)
{
    char path[] = "/tmp/stridemap_rigid_XXXXXX.xml";
    int fd = mkstemps(path, 4);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errsz, "cannot create %s", path);
        if (fd >= 0) close(fd);
        return NULL;
    }
    fprintf(f, "<mujoco>\n<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n"
               "<option gravity=\"%.17g %.17g %.17g\"/>\n<worldbody>\n", g[0], g[1], g[2]);
    for (size_t i = 0; i < nb; i++)
        if (b[i].parent < 0) emit_body(f, b, nb, s, ns, i);
    fprintf(f, "</worldbody>\n</mujoco>\n");
    fclose(f);
    mjModel *m = mj_loadXML(path, NULL, err, (int)errsz);
    unlink(path);
    return m;
}

#endif
