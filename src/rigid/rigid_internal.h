/* The rigid-body core's private layout and its spatial algebra.
 *
 * Spatial vectors follow Featherstone (Rigid Body Dynamics Algorithms, 2008,
 * ch. 2) in Plücker coordinates of a link's frame: motion m = [ω; v] with v the
 * velocity of the body-fixed point at the frame origin, force f = [n; f] with n
 * the moment about that origin.  A parent-to-child transform is (E, r): E turns
 * parent coordinates into child coordinates and r is the child origin in
 * parent coordinates, so X m = [E ω; E(v − r × ω)] and Xᵀ f = [Eᵀn + r × Eᵀf; Eᵀf].
 *
 * A user body becomes one internal link, except a free joint, which becomes a
 * massless translation link (S = [0; 1₃]) carrying a ball link (S = [1₃; 0]):
 * every joint subspace S is then constant in its link's frame, so the joint
 * contributes no Ṡ term to the accelerations (Featherstone §4.4: c_J = 0). */
#ifndef STRIDEMAP_RIGID_INTERNAL_H
#define STRIDEMAP_RIGID_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/rigid.h"

typedef enum { LINK_FIXED, LINK_HINGE, LINK_SLIDE, LINK_BALL, LINK_TRANS } link_kind;

struct sm_rigid_model {
    size_t bytes; /* the whole block: this struct, its arrays and names (memory.c) */
    size_t nbody, nlink, nsite, nq, nv;
    double gravity[3];
    /* per link */
    int *parent;         /* link index or -1 */
    link_kind *kind;
    size_t *qadr, *vadr, *nd; /* nd: degrees of freedom of the link's joint */
    double *ET;          /* 9 per link: tree rotation, child from parent coordinates */
    double *rT;          /* 3 per link: tree offset in parent coordinates */
    double *S;           /* 18 per link: 6 x 3 motion subspace, row-major, nd columns used */
    double *I6;          /* 36 per link: spatial inertia about the link origin */
    double *mass, *com, *Icom; /* 1, 3, 9 per link (zero for a free joint's translation link) */
    /* per user body */
    size_t *body_link;
    char **body_name;
    /* per site */
    size_t *site_link;
    double *site_pos;
    char **site_name;
    /* The planar fast path (planar.c), when every joint is a hinge about axes
     * parallel in the reference pose or a slide across them.  World vectors
     * are split along the basis (e1, e2, n); body-frame constants are stored
     * as their reference-pose world images R0 u, which the motion only turns
     * about n by the link's angle θ. */
    bool planar, use_planar;
    double pl_e1[3], pl_e2[3], pl_n[3];
    double *pl_R0;   /* 9 per link: reference orientation, link to world */
    double *pl_sgn;  /* hinge: +1 or −1 (axis along or against n) */
    double *pl_rT;   /* 3 per link: R0_parent rT in (e1, e2, n) */
    double *pl_dir;  /* 2 per link: slide direction R0 axis in (e1, e2) */
    double *pl_com;  /* 3 per link: R0 com in (e1, e2, n) */
    double *pl_In;   /* moment of inertia about n through the centre of mass */
    double *pl_site; /* 3 per site: R0 s in (e1, e2, n) */
    double *pl_Rc;   /* 27 per link: n nᵀ R0, R0 − n nᵀ R0, [n]× R0, so that the
                        world rotation is the first + cos θ the second + sin θ the third */
    char *names;     /* the body and site names, each NUL-terminated */
};

struct sm_rigid_data {
    /* per link */
    double *E, *r;   /* 9, 3: parent-to-link transform at this q */
    double *R, *p;   /* 9, 3: link frame in the world (R: link to world) */
    double *v, *a0;  /* 6, 6: spatial velocity, acceleration at v̇ = 0 without gravity */
    double *f;       /* 6: RNEA forces */
    double *Ic;      /* 36: composite inertias */
    /* planar fast path, per link: angle from the reference pose, its rate, the
     * origin in (e1, e2, n), its in-plane velocity and acceleration at v̇ = 0,
     * and (cos θ, sin θ), so that each hinge costs one sincos per sweep */
    double *th, *thd, *pp, *pv, *pa, *cs;
    /* the planar sweep leaves R and p to sm_rigid_poses: the dynamics and
     * the contact rows read only the in-plane quantities above, and filling
     * the 3-D poses was 14 % of a compass stride */
    bool poses_pending;
};

/* 3-vectors and 3x3 row-major matrices. */
static inline void v3_cross(const double *a, const double *b, double *c)
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    c[0] = x;
    c[1] = y;
    c[2] = z;
}
static inline void m3_mul_v(const double *A, const double *x, double *y)
{
    double t[3];
    for (int i = 0; i < 3; i++) t[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
    for (int i = 0; i < 3; i++) y[i] = t[i];
}
static inline void m3t_mul_v(const double *A, const double *x, double *y)
{
    double t[3];
    for (int i = 0; i < 3; i++) t[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
    for (int i = 0; i < 3; i++) y[i] = t[i];
}
static inline void m3_mul(const double *A, const double *B, double *C)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    for (int i = 0; i < 9; i++) C[i] = t[i];
}
/* C = A Bᵀ */
static inline void m3_mul_bt(const double *A, const double *B, double *C)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
    for (int i = 0; i < 9; i++) C[i] = t[i];
}

/* The planar fast path (planar.c): detection at model creation (false and
 * nothing set when the tree is not planar) and its versions of the sweeps. */
bool sm_rigid_planar_setup(sm_rigid_model *m);
void sm_rigid_planar_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *q, const double *v);
void sm_rigid_planar_poses(const sm_rigid_model *m, sm_rigid_data *d);
void sm_rigid_planar_site_pos(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double pos[3]);
/* R and p of the last forward sweep, filled on first use after a planar one.
 * d is the caller's own (stack) data block, never shared, so completing it
 * behind a const pointer changes nothing another reader could see. */
static inline void sm_rigid_poses(const sm_rigid_model *m, const sm_rigid_data *d)
{
    if (d->poses_pending) sm_rigid_planar_poses(m, (sm_rigid_data *)d);
}
void sm_rigid_planar_mass(const sm_rigid_model *m, sm_rigid_data *d, double *M);
void sm_rigid_planar_bias(const sm_rigid_model *m, sm_rigid_data *d, double *bias);
/* Both on one pass over the links (the same numbers): the constrained solve
 * wants both at every call.  All three use d->Ic as scratch. */
void sm_rigid_planar_mass_bias(const sm_rigid_model *m, sm_rigid_data *d, double *M, double *bias);
/* The slots of the per-link composites in d->Ic (planar.c): the subtree's
 * mass, h, K, F, T and a slide's direction. */
enum { C_M, C_HX, C_HY, C_K, C_FX, C_FY, C_T, C_AX, C_AY };
void sm_rigid_planar_site_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double *jacp,
                              double *jacr);
void sm_rigid_planar_site_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, double acc[3]);
/* The world x and z rows of the Jacobian of the point at site + e (e a world
 * offset that does not turn with the link: a roll's lowest point). */
void sm_rigid_planar_site_xz(const sm_rigid_model *m, const sm_rigid_data *d, size_t site, const double e[3],
                             double *Jx, double *Jz);
/* The same for a point given by its reference image u (sm_rigid_planar_image) on link L. */
void sm_rigid_planar_image(const sm_rigid_model *m, size_t L, const double *u, double out[3]);
void sm_rigid_planar_point_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                               double *jacp, double *jacr);
void sm_rigid_planar_point_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                                 double acc[3]);

/* The one-block layout of a model (memory.c): with m NULL returns the bytes
 * a model of these sizes needs (namelen: the names with their NULs); else
 * points m's arrays into the block that starts at m and sets m->bytes. */
size_t sm_rigid_model_layout(sm_rigid_model *m, size_t nlink, size_t nbody, size_t nsite, size_t namelen);

/* A point fixed on link L at u (link coordinates): its world position,
 * Jacobians (3 x nv each, either may be NULL) and, at v̇ = 0 without gravity,
 * its acceleration and the link's angular acceleration (points.c). */
void sm_rigid_point_pos(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u, double x[3]);
void sm_rigid_point_jac(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                        double *jacp, double *jacr);
void sm_rigid_point_jdotv(const sm_rigid_model *m, const sm_rigid_data *d, size_t L, const double *u,
                          double acc[3], double alpha[3]);

/* Small dense solvers on caller memory (dense.c).  Cholesky in place
 * (lower factor), false when a pivot is not positive relative to the
 * largest diagonal; LU with complete pivoting in place, false when a pivot
 * falls below rtol times the largest entry (the rows are dependent). */
bool sm_rigid_chol(double *A, size_t n);
void sm_rigid_chol_solve(const double *L, size_t n, double *b);
/* The halves of chol_solve: b ← L⁻¹ b, and b ← L⁻ᵀ b. */
void sm_rigid_chol_forward(const double *L, size_t n, double *b);
void sm_rigid_chol_backward(const double *L, size_t n, double *b);
bool sm_rigid_lu(double *A, size_t n, size_t *rp, size_t *cp, double rtol);
void sm_rigid_lu_solve(const double *LU, size_t n, const size_t *rp, const size_t *cp, double *b);

/* The contact rows' Schur complement (constrained.c): Y (rows x nv) = M⁻¹ J̃ᵀ
 * by the Cholesky factor Lm of M, A = J Y (rows x rows) factored by
 * sm_rigid_lu; Jtil NULL means J.  SM_SINGULAR_CONSTRAINTS when dependent. */
sm_status sm_rigid_schur(const sm_rigid_model *m, const double *Lm, const double *J, const double *Jtil,
                         size_t rows, double *Y, double *A, size_t *rp, size_t *cp);

/* A body's spatial inertia about its link origin from its mass, centre of
 * mass c and inertia Ic about it (Featherstone 2008, eq. 2.63; model.c). */
void sm_rigid_spatial_inertia(double mass, const double *c, const double *Ic, double *I6);

/* Rotation matrix (body to parent) of the quaternion (w, x, y, z), normalised first. */
void sm_rigid_quat_to_mat(const double *q, double *R);

/* X m, Xᵀ f for the transform (E, r). */
static inline void sp_xmot(const double *E, const double *r, const double *m, double *out)
{
    double w[3], t[3], u[3];
    m3_mul_v(E, m, w);
    v3_cross(r, m, t);
    for (int k = 0; k < 3; k++) u[k] = m[3 + k] - t[k];
    m3_mul_v(E, u, out + 3);
    for (int k = 0; k < 3; k++) out[k] = w[k];
}
static inline void sp_xtforce(const double *E, const double *r, const double *f, double *out)
{
    double n[3], g[3], t[3];
    m3t_mul_v(E, f, n);
    m3t_mul_v(E, f + 3, g);
    v3_cross(r, g, t);
    for (int k = 0; k < 3; k++) {
        out[k] = n[k] + t[k];
        out[3 + k] = g[k];
    }
}
/* v × m (motion cross product) and v ×* f (force cross product). */
static inline void sp_crm(const double *v, const double *m, double *out)
{
    double a[3], b[3], c[3];
    v3_cross(v, m, a);
    v3_cross(v, m + 3, b);
    v3_cross(v + 3, m, c);
    for (int k = 0; k < 3; k++) {
        out[k] = a[k];
        out[3 + k] = b[k] + c[k];
    }
}
static inline void sp_crf(const double *v, const double *f, double *out)
{
    double a[3], b[3], c[3];
    v3_cross(v, f, a);
    v3_cross(v + 3, f + 3, b);
    v3_cross(v, f + 3, c);
    for (int k = 0; k < 3; k++) {
        out[k] = a[k] + b[k];
        out[3 + k] = c[k];
    }
}
static inline void m6_mul_v(const double *A, const double *x, double *y)
{
    for (int i = 0; i < 6; i++) {
        double s = 0.0;
        for (int j = 0; j < 6; j++) s += A[6 * i + j] * x[j];
        y[i] = s;
    }
}

#endif
