/* A kinematic tree of rigid bodies in 3-D and its dynamics: the mass matrix
 * M(q), the bias forces C(q, v)v + G(q), site positions, site Jacobians and
 * J̇(q, v)v, all exact (recursive sweeps, no finite differences).
 *
 * Reference: R. Featherstone, Rigid Body Dynamics Algorithms, Springer 2008
 * (spatial algebra ch. 2, RNEA §5.3, CRBA §6.2).  The split into a const
 * sm_rigid_model and a mutable sm_rigid_data follows MuJoCo's mjModel/mjData:
 * the data is created once per model and no evaluation allocates.
 *
 * Conventions (the same as MuJoCo's, so that the two can be compared):
 * - Bodies are listed parents first: body i has parent < i, or -1 for the world.
 * - A body's frame at q = 0 sits at `pos` in its parent's frame, rotated by the
 *   unit quaternion `quat` (w, x, y, z).  The joint then moves the body in that
 *   frame, about/along `axis` given in the body's own frame:
 *     hinge: rotation by q about axis through the body origin;  nq = nv = 1
 *     slide: translation by q along axis;                         nq = nv = 1
 *     ball:  rotation by the unit quaternion q[0..3] (w, x, y, z); nq = 4, nv = 3,
 *            v = angular velocity relative to the parent, in the body's frame;
 *     free:  q = position of the body origin (3, in the frame `pos`/`quat` define
 *            in the parent) then a unit quaternion (4); v = the derivative of that
 *            position (3, same frame) then the angular velocity in the body's frame
 *            (3); nq = 7, nv = 6;
 *     fixed: no coordinates.
 *   Quaternions in q are normalised before use, so a slightly drifted q is harmless;
 *   sm_rigid_integrate_q steps positions along a velocity on the right manifold.
 * - Inertia: the full 3x3 tensor about the centre of mass, in the body's frame;
 *   it must be symmetric positive semi-definite (a planar model may leave the
 *   out-of-plane moments zero).
 * - Gravity is a vector in the world frame, e.g. {0, 0, -9.81}.
 * - Generalised forces are ordered as v.  M v̇ + bias = τ with bias = C(q, v)v + G(q).
 */
#ifndef STRIDEMAP_RIGID_H
#define STRIDEMAP_RIGID_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/status.h"

typedef enum {
    SM_RIGID_FIXED,
    SM_RIGID_HINGE,
    SM_RIGID_SLIDE,
    SM_RIGID_BALL,
    SM_RIGID_FREE,
} sm_rigid_joint;

typedef struct {
    const char *name;
    int parent; /* index of an earlier body, or -1 for the world */
    sm_rigid_joint joint;
    double pos[3];      /* body origin in the parent's frame at q = 0 */
    double quat[4];     /* body orientation in the parent's frame at q = 0 (w, x, y, z); need not be unit */
    double axis[3];     /* hinge/slide axis in the body's frame; need not be unit */
    double mass;
    double com[3];      /* centre of mass in the body's frame */
    double inertia[9];  /* about the centre of mass, body frame, row-major */
} sm_rigid_body_def;

typedef struct {
    const char *name;
    int body;
    double pos[3]; /* in the body's frame */
} sm_rigid_site_def;

typedef struct sm_rigid_model sm_rigid_model;
typedef struct sm_rigid_data sm_rigid_data;

/* Builds and validates a tree.  On a bad tree returns SM_BAD_PARAM and writes a
 * one-line message naming the body or site into msg (if msg is not NULL);
 * SM_NO_MEMORY if allocation fails.  The definitions are copied (names too). */
sm_status sm_rigid_model_create(const sm_rigid_body_def *bodies, size_t nbody,
                                const sm_rigid_site_def *sites, size_t nsite,
                                const double gravity[3], sm_rigid_model **out,
                                char *msg, size_t msglen);
void sm_rigid_model_free(sm_rigid_model *m);

size_t sm_rigid_nq(const sm_rigid_model *m);
size_t sm_rigid_nv(const sm_rigid_model *m);
size_t sm_rigid_nbody(const sm_rigid_model *m);
size_t sm_rigid_nsite(const sm_rigid_model *m);
/* Index of the site or body with this name, or -1. */
int sm_rigid_site_index(const sm_rigid_model *m, const char *name);
int sm_rigid_body_index(const sm_rigid_model *m, const char *name);
/* Offsets of a body's joint in q and v. */
size_t sm_rigid_body_qadr(const sm_rigid_model *m, size_t body);
size_t sm_rigid_body_vadr(const sm_rigid_model *m, size_t body);

/* Writes the q of the reference pose (zeros, identity quaternions) into q[nq]. */
void sm_rigid_q_neutral(const sm_rigid_model *m, double *q);
/* qout = q "+" h v: slides and hinges add, quaternions turn by exp(h ω / 2)
 * (ω in the body's frame).  qout may alias q. */
void sm_rigid_integrate_q(const sm_rigid_model *m, const double *q, const double *v, double h,
                          double *qout);

/* qdot[nq] = the time derivative of q for the velocity v (hinges, slides and
 * translations: v itself; quaternions: ½ q ⊗ (0, ω) with ω in the body frame). */
void sm_rigid_qdot(const sm_rigid_model *m, const double *q, const double *v, double *qdot);

/* A tree whose joints are all hinges about axes parallel in the reference pose
 * (and slides across them; fixed joints anywhere) moves in parallel planes and
 * takes a planar fast path with the same results (to round-off).  It is chosen
 * at creation; sm_rigid_use_planar(m, false) forces the 3-D sweeps (returns
 * whether the fast path is in use; data made for m stays valid). */
bool sm_rigid_is_planar(const sm_rigid_model *m);
bool sm_rigid_use_planar(sm_rigid_model *m, bool on);

sm_rigid_data *sm_rigid_data_create(const sm_rigid_model *m);
void sm_rigid_data_free(sm_rigid_data *d);

/* The forward sweep every quantity below reads: body poses, velocities and the
 * velocity-product accelerations.  Call it once per (q, v); SM_BAD_STATE if
 * q or v holds a non-finite value or a zero quaternion. */
sm_status sm_rigid_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *q, const double *v);

/* Moves the last forward sweep's tree by the world offset dx, velocities
 * unchanged: the sweep at a state whose root translation differs by dx,
 * without another sweep (reduced coordinates, src/body/reduced.c). */
void sm_rigid_translate(const sm_rigid_model *m, sm_rigid_data *d, const double dx[3]);

/* M(q), nv x nv row-major, by the composite-rigid-body algorithm. */
void sm_rigid_mass(const sm_rigid_model *m, sm_rigid_data *d, double *M);
/* C(q, v)v + G(q), nv, by recursive Newton-Euler with the base accelerated by -g. */
void sm_rigid_bias(const sm_rigid_model *m, sm_rigid_data *d, double *bias);

/* Both at once (the planar path shares one pass over the links). */
void sm_rigid_mass_bias(const sm_rigid_model *m, sm_rigid_data *d, double *M, double *bias);

/* World position of a site. */
void sm_rigid_site_pos(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double pos[3]);
/* Translational (jacp) and rotational (jacr) Jacobians of a site in the world
 * frame, each 3 x nv row-major; either may be NULL. */
void sm_rigid_site_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double *jacp,
                       double *jacr);
/* J̇(q, v)v of a site: its world acceleration when v̇ = 0, without gravity. */
void sm_rigid_site_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double acc[3]);

/* A body's orientation in the world (R maps body-frame vectors to the world,
 * row-major), the world position and velocity of its centre of mass and its
 * angular velocity (world frame); any output may be NULL. */
void sm_rigid_body_state(const sm_rigid_model *m, const sm_rigid_data *d, size_t body, double R[9],
                         double pcom[3], double vcom[3], double omega[3]);

#endif
