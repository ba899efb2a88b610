/* A MuJoCo model file (MJCF, or URDF, which MuJoCo 2.2.2 reads too) as the
 * bodies and sites of the rigid-body core (rigid.h) and of a body-walker model
 * file (docs/body-walkers.md), which the user then completes with contacts,
 * phases and the section.
 *
 * MuJoCo reads and compiles the file; the conversion then takes MuJoCo's
 * compiled tree, so that M, the bias forces and the site Jacobians of the
 * imported bodies are MuJoCo's own (MuJoCo stays an independent check):
 * - a joint whose anchor is not the body origin: the body frame moves to the
 *   anchor (centre of mass, sites and children move with it);
 * - several joints in one body: a chain of massless bodies, one per joint,
 *   named after the joints (or BODY_j1, BODY_j2, ...), the last one the body;
 * - a joint's reference angle or offset (MuJoCo's ref) is folded into the body
 *   frame, so that q is MuJoCo's qpos;
 * - a free body sits at the world origin with the identity orientation, so
 *   that its 7 coordinates are MuJoCo's (world position, world quaternion);
 * - inertia = R(iquat) diag(body_inertia) R(iquat)ᵀ about body_ipos.
 * Masses and inertias are MuJoCo's compiled values, never changed here; the
 * file's own <inertial> values are read as well (a small XML reader) and every
 * body whose mass or inertia MuJoCo's compiler changed (balanceinertia,
 * boundmass, boundinertia, inertiafromgeom) or computed from geoms, and every
 * body fused away (fusestatic), is a warning naming the body and both values;
 * so is a fullinertia that MuJoCo's principal axes give back only to ~1e-8
 * (MuJoCo keeps inertias as principal moments and axes).
 * What the format cannot hold (joint limits, armature, friction loss,
 * actuators, tendons, equality constraints, geom contacts, fluid forces) is a
 * warning too; springs and dampers of hinges and slides become `forces:`.
 *
 * The library never prints: warnings are returned as lines, the YAML goes to
 * the caller's stream. */
#ifndef STRIDEMAP_IMPORT_H
#define STRIDEMAP_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stridemap/rigid.h"
#include "stridemap/status.h"

/* A spring-damper on one 1-DOF coordinate: tau -= stiffness (q - rest) + damping q̇. */
typedef struct {
    char *name;
    int body; /* the body whose hinge or slide it acts on */
    double stiffness, damping, rest;
} sm_import_spring;

typedef struct {
    char *name;                /* MuJoCo's model name, or the file name without its extension */
    sm_rigid_body_def *bodies; /* parents first; names owned (char * cast) */
    size_t nbody;
    char **joint_names;        /* per body: MuJoCo's name of its joint (NULL: none or unnamed) */
    sm_rigid_site_def *sites;  /* names owned */
    size_t nsite;
    double gravity[3];         /* world frame */
    sm_import_spring *springs;
    size_t nspring;
    double *qpos0;             /* MuJoCo's reference pose, in the bodies' coordinates (nq) */
    size_t nq;
    char **warnings;           /* one line each, no newline */
    size_t nwarn;
} sm_import;

/* Whether this build can read MJCF and URDF (it was built with MuJoCo's
 * header).  MuJoCo itself is opened by each sm_import_mjcf call and closed
 * after it (nothing links libmujoco): the file is $STRIDEMAP_MUJOCO_LIB if
 * set, else libmujoco.so.2.2.2, and it must be MuJoCo 2.2.2. */
bool sm_import_available(void);

/* Reads path with MuJoCo and converts it.  SM_IO_ERROR when the file cannot be
 * read (missing, a directory); SM_BAD_DATA when MuJoCo refuses it or the tree
 * cannot be converted (why: MuJoCo's message on one line); SM_UNAVAILABLE in a
 * build without MuJoCo, or when MuJoCo cannot be loaded (why: the loader's
 * message and what to install); SM_NO_MEMORY.  MuJoCo's error and warning handlers are
 * replaced during the call (MuJoCo's own print and exit) and restored after;
 * the call is not thread-safe, as MuJoCo's handlers are process-global.
 * *out is for sm_import_free. */
sm_status sm_import_mjcf(const char *path, sm_import **out, char *why, size_t why_len);
void sm_import_free(sm_import *imp);

/* Writes the bodies, sites, gravity, slope and forces of a body-walker model
 * file (docs/body-walkers.md) to out, the warnings as comments at the top and
 * the coordinates and MuJoCo's reference pose as a commented guess; source is
 * the file named in the header (may be NULL).  SM_BAD_DATA if the gravity has
 * a y component (the format's gravity lies in the x-z plane); SM_IO_ERROR if
 * writing fails. */
sm_status sm_import_write_yaml(const sm_import *imp, const char *source, FILE *out, char *why, size_t why_len);

#endif
