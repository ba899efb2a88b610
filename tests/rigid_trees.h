/* The trees test_rigid.c and test_rigid_mujoco.c share: a 7-DOF planar biped
 * and a 12-DOF 3-D tree with every joint type (stridemap/rigid.h conventions). */
#ifndef STRIDEMAP_RIGID_TREES_H
#define STRIDEMAP_RIGID_TREES_H

#include <string.h>

#include "stridemap/rigid.h"

static void set_inertia(double *I, double a, double b, double c, double xy, double xz, double yz)
{
    double v[9] = {a, xy, xz, xy, b, yz, xz, yz, c};
    memcpy(I, v, sizeof v);
}

/* Torso hinged to the world at the hip, two legs of thigh, shank and foot:
 * seven hinges about y (the sagittal plane is x-z).  Inertias are full 3x3
 * (products of inertia too) and satisfy the triangle
 * inequality, so that MuJoCo accepts them unchanged; the legs differ. */
#define BIPED_N 7
static void biped(sm_rigid_body_def *b, sm_rigid_site_def *s)
{
    memset(b, 0, BIPED_N * sizeof *b);
    const char *names[BIPED_N] = {"torso", "thigh_r", "shank_r", "foot_r", "thigh_l", "shank_l", "foot_l"};
    int parent[BIPED_N] = {-1, 0, 1, 2, 0, 4, 5};
    double len[BIPED_N] = {0, 0, 0.45, 0.43, 0, 0.46, 0.42};
    double mass[BIPED_N] = {30, 7, 3.5, 1.2, 7.5, 3.2, 1.1};
    for (int i = 0; i < BIPED_N; i++) {
        b[i].name = names[i];
        b[i].parent = parent[i];
        b[i].joint = SM_RIGID_HINGE;
        b[i].quat[0] = 1;
        b[i].axis[1] = 1;
        b[i].mass = mass[i];
        b[i].pos[2] = -len[i];
        b[i].com[0] = 0.01 * i;
        b[i].com[2] = i == 0 ? 0.3 : -0.2 + 0.01 * i;
        set_inertia(b[i].inertia, 0.1 + 0.02 * i, 0.12 + 0.02 * i, 0.03 + 0.005 * i, 0.004, -0.002 * i, 0.003);
    }
    b[0].pos[2] = 1.0;
    b[3].com[0] = 0.06;
    b[6].com[0] = 0.05;
    s[0] = (sm_rigid_site_def){"toe_r", 3, {0.15, 0, -0.06}};
    s[1] = (sm_rigid_site_def){"heel_r", 3, {-0.05, 0, -0.06}};
    s[2] = (sm_rigid_site_def){"toe_l", 6, {0.14, 0, -0.05}};
    s[3] = (sm_rigid_site_def){"head", 0, {0.02, 0, 0.6}};
}

/* 12 DOF in 3-D: a free pelvis (6), a ball at the chest (3), a hinge, a slide
 * and a hinge about skew axes, and a fixed hand; tilted body frames. */
#define TREE_N 6
static void tree3d(sm_rigid_body_def *b, sm_rigid_site_def *s)
{
    memset(b, 0, TREE_N * sizeof *b);
    b[0] = (sm_rigid_body_def){"pelvis", -1, SM_RIGID_FREE, {0.1, -0.2, 1.0}, {0.9, 0.1, -0.2, 0.3}, {0, 0, 0},
                               10.0, {0.02, 0.01, -0.03}, {0}};
    set_inertia(b[0].inertia, 0.3, 0.25, 0.2, 0.02, -0.01, 0.03);
    b[1] = (sm_rigid_body_def){"chest", 0, SM_RIGID_BALL, {0.0, 0.05, 0.25}, {0.95, -0.1, 0.2, 0.05}, {0, 0, 0},
                               8.0, {0.0, 0.02, 0.2}, {0}};
    set_inertia(b[1].inertia, 0.2, 0.18, 0.1, -0.01, 0.02, 0.0);
    b[2] = (sm_rigid_body_def){"upper", 1, SM_RIGID_HINGE, {0.2, 0.1, 0.3}, {1, 0, 0, 0}, {1, 1, 0},
                               2.0, {0.1, 0.0, -0.05}, {0}};
    set_inertia(b[2].inertia, 0.02, 0.03, 0.025, 0.001, 0.002, -0.003);
    b[3] = (sm_rigid_body_def){"fore", 2, SM_RIGID_SLIDE, {0.25, 0.0, -0.1}, {0.8, 0.3, 0.3, -0.2}, {0, 0.3, 1},
                               1.5, {0.05, 0.05, 0.0}, {0}};
    set_inertia(b[3].inertia, 0.01, 0.012, 0.008, 0.0, 0.001, 0.0);
    b[4] = (sm_rigid_body_def){"wrist", 3, SM_RIGID_HINGE, {0.0, 0.2, 0.05}, {1, 0, 0, 0}, {0, 1, 0.2},
                               0.5, {0.0, 0.03, 0.01}, {0}};
    set_inertia(b[4].inertia, 0.002, 0.001, 0.0015, 0.0001, 0.0, 0.0002);
    b[5] = (sm_rigid_body_def){"hand", 4, SM_RIGID_FIXED, {0.02, 0.1, 0.0}, {0.7, 0.7, 0.1, 0}, {0, 0, 0},
                               0.4, {0.01, 0.04, 0.0}, {0}};
    set_inertia(b[5].inertia, 0.001, 0.0008, 0.0012, 0.0, 0.0001, 0.0);
    s[0] = (sm_rigid_site_def){"fingertip", 5, {0.03, 0.12, -0.01}};
    s[1] = (sm_rigid_site_def){"sternum", 1, {0.1, 0.0, 0.3}};
    s[2] = (sm_rigid_site_def){"hip", 0, {0.0, -0.1, -0.1}};
}

#endif
