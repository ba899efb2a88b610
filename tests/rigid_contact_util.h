/* Helpers the contact tests share: planar trees built body by body, and a
 * fixed-step RK4 of the constrained dynamics (q, v) with optional joint
 * forces and the work they do, on stack memory only. */
#ifndef STRIDEMAP_RIGID_CONTACT_UTIL_H
#define STRIDEMAP_RIGID_CONTACT_UTIL_H

#include "test_util.h"

#include "stridemap/rigid.h"
#include "stridemap/rigid_contact.h"

#define WORK_DOUBLES 8192

#define TEST_RNG_SEED 0x2545f4914f6cdd1dull
#include "test_rng.h"

/* A body with a 1-DOF joint along/about axis (x, y or z: 0, 1, 2). */
static inline sm_rigid_body_def body1(const char *name, int parent, sm_rigid_joint j, int axis, double px, double pz,
                               double mass, double cx, double cz, double iyy)
{
    sm_rigid_body_def b;
    memset(&b, 0, sizeof b);
    b.name = name;
    b.parent = parent;
    b.joint = j;
    b.quat[0] = 1.0;
    b.axis[axis] = 1.0;
    b.pos[0] = px;
    b.pos[2] = pz;
    b.mass = mass;
    b.com[0] = cx;
    b.com[2] = cz;
    /* a planar body: the sagittal moment, the others a valid 3-D tensor */
    b.inertia[0] = iyy;
    b.inertia[4] = iyy;
    b.inertia[8] = iyy * 1e-3;
    return b;
}

/* Three bodies: massless slides along x and z, then a hinge about y carrying
 * the mass: a planar floating base (docs/body-walkers.md, joint: planar). */
static inline size_t planar_base(sm_rigid_body_def *b, const char *name, double mass, double iyy)
{
    b[0] = body1("base.x", -1, SM_RIGID_SLIDE, 0, 0, 0, 0, 0, 0, 0);
    b[1] = body1("base.z", 0, SM_RIGID_SLIDE, 2, 0, 0, 0, 0, 0, 0);
    b[2] = body1(name, 1, SM_RIGID_HINGE, 1, 0, 0, mass, 0, 0, iyy);
    return 3;
}

static sm_rigid_model *make_model(const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns)
{
    sm_rigid_model *m = NULL;
    char msg[200];
    sm_status st = sm_rigid_model_create(b, nb, s, ns, (double[3]){0, 0, -9.81}, &m, msg, sizeof msg);
    if (st != SM_OK) fail_msg("model: %s", msg);
    return m;
}

/* A free pelvis (its origin height z0, its centre of mass cx ahead of it)
 * with two ball-jointed legs and a hinged knee on one: nv = 13. */
static inline sm_rigid_model *spatial_biped(double z0, double cx)
{
    sm_rigid_body_def b[4] = {
        {"pelvis", -1, SM_RIGID_FREE, {0, 0, z0}, {1, 0, 0, 0}, {0, 0, 0}, 15, {cx, 0, 0.1},
         {0.3, 0.01, 0, 0.01, 0.25, 0.02, 0, 0.02, 0.2}},
        {"leg_a", 0, SM_RIGID_BALL, {0, 0.1, 0}, {1, 0, 0, 0}, {0, 0, 0}, 6, {0, 0, -0.45},
         {0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.01}},
        {"leg_b", 0, SM_RIGID_BALL, {0, -0.1, 0}, {1, 0, 0, 0}, {0, 0, 0}, 5, {0.01, 0, -0.2},
         {0.06, 0, 0, 0, 0.05, 0, 0, 0, 0.01}},
        {"shank_b", 2, SM_RIGID_HINGE, {0, 0, -0.45}, {1, 0, 0, 0}, {0, 1, 0}, 3, {0, 0, -0.2},
         {0.04, 0, 0, 0, 0.04, 0, 0, 0, 0.005}},
    };
    sm_rigid_site_def s[2] = {{"foot_a", 1, {0, 0, -0.9}}, {"foot_b", 3, {0, 0, -0.45}}};
    return make_model(b, 4, s, 2);
}

typedef struct {
    const sm_rigid_model *m;
    sm_rigid_data *d;
    const sm_contact *c;
    size_t nc;
    const sm_rigid_spring *s;
    size_t ns;
    double *work;
    sm_status st;
} sys;

/* y = (q, v, W): W the work of the springs' dampers and torques. */
static inline void deriv(sys *S, const double *y, double *yd)
{
    size_t nq = sm_rigid_nq(S->m), nv = sm_rigid_nv(S->m);
    const double *q = y, *v = y + nq;
    double tau[SM_RIGID_MAX_V] = {0};
    sm_status st = sm_rigid_forward(S->m, S->d, q, v);
    if (st == SM_OK) {
        sm_rigid_spring_forces(S->m, S->s, S->ns, q, v, tau);
        st = sm_rigid_constrained_accel(S->m, S->d, S->c, S->nc, tau, yd + nq, NULL, S->work);
    }
    if (st != SM_OK && S->st == SM_OK) S->st = st;
    sm_rigid_qdot(S->m, q, v, yd);
    yd[nq + nv] = sm_rigid_spring_power(S->m, S->s, S->ns, q, v);
}

static inline void rk4(sys *S, double *y, double h)
{
    size_t n = sm_rigid_nq(S->m) + sm_rigid_nv(S->m) + 1;
    double k1[128], k2[128], k3[128], k4[128], t[128];
    deriv(S, y, k1);
    for (size_t i = 0; i < n; i++) t[i] = y[i] + 0.5 * h * k1[i];
    deriv(S, t, k2);
    for (size_t i = 0; i < n; i++) t[i] = y[i] + 0.5 * h * k2[i];
    deriv(S, t, k3);
    for (size_t i = 0; i < n; i++) t[i] = y[i] + h * k3[i];
    deriv(S, t, k4);
    for (size_t i = 0; i < n; i++) y[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

/* Total mechanical energy: kinetic + gravity + springs. */
static inline double total_energy(sys *S, const double *q, const double *v)
{
    double T, V;
    assert_status(sm_rigid_forward(S->m, S->d, q, v), SM_OK);
    sm_rigid_energy(S->m, S->d, v, &T, &V);
    return T + V + sm_rigid_spring_energy(S->m, S->s, S->ns, q);
}

#endif
