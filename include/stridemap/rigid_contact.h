/* Contacts on a rigid tree: the constrained dynamics, constraint projection,
 * plastic impacts by generalized impulse, joint springs and the ground forces.
 *
 * The ground is the world plane z = 0 (a slope tilts gravity instead, see
 * docs/body-walkers.md).  A planar tree (sm_rigid_is_planar) moves in the
 * x-z plane: its contacts have only in-plane rows.
 *
 * Constrained dynamics (the saddle-point system, Featherstone 2008 §8.1):
 *     [ M  Jᵀ ] [ v̇ ]   [ τ − (C v + G) ]
 *     [ J  0  ] [ −λ ] = [ −J̇ v         ]
 * where the rows of J are the contacts' rows; λ are the contact forces
 * (the ground's force on the walker, world components; for a lock, the
 * locking torque).  A sliding contact's friction −μ sign(v_t) F_n enters as
 * Mv̇ = … + (J_nᵀ − μ s J_tᵀ) λ_n, which makes the system unsymmetric; it is
 * solved by LU with pivoting (dense: the matrices are small).
 *
 * Plastic impact (seed 000, eqs. 27–35):
 *     [ M  −Jᵀ ] [ v⁺ ]   [ M v⁻ ]
 *     [ J   0  ] [ Λ  ] = [ 0    ]
 *
 * Nothing here allocates: callers pass the data (sm_rigid_data) after
 * sm_rigid_forward at the state, and a work array of
 * sm_rigid_contact_work_size() doubles. */
#ifndef STRIDEMAP_RIGID_CONTACT_H
#define STRIDEMAP_RIGID_CONTACT_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/rigid.h"
#include "stridemap/status.h"

/* Bounds that let callers keep every array on the stack. */
#define SM_RIGID_MAX_V 48    /* velocity coordinates */
#define SM_RIGID_MAX_ROWS 36 /* constraint rows of one contact set */

typedef enum {
    SM_CONTACT_PIN,   /* site held at anchor: 2 rows planar (x, z), 3 in 3-D */
    SM_CONTACT_SLIDE, /* site on the ground, sliding with kinetic friction: 1 row (z) */
    SM_CONTACT_ROLL,  /* disk rolling without slipping: 2 rows planar, 3 in 3-D */
    SM_CONTACT_LOCK,  /* a hinge/slide coordinate held: 1 row */
} sm_contact_kind;

typedef struct {
    sm_contact_kind kind;
    size_t site;      /* PIN, SLIDE: the touching point; ROLL: the disk's centre */
    double radius;    /* ROLL: the disk's radius */
    double axis[3];   /* ROLL: the disk's axis in the site's body frame */
    double mu;        /* SLIDE: kinetic friction; PIN: static friction (slip checks only) */
    int slide_sign;   /* SLIDE: sign of the sliding velocity along x for this phase (+1, −1) */
    size_t body;      /* LOCK: the body whose 1-DOF joint is held */
    double at;        /* LOCK: the held coordinate value */
    double anchor[3]; /* PIN: the world point the site is held at (position projection) */
    unsigned rows;    /* PIN: the world rows held, SM_ROW_X | SM_ROW_Y | SM_ROW_Z; 0 = all
                       * (a planar tree never has the y row) */
} sm_contact;

#define SM_ROW_X 1u
#define SM_ROW_Y 2u
#define SM_ROW_Z 4u

/* The rows a PIN holds, after the default (0: all) and the planar rule. */
unsigned sm_contact_pin_rows(const sm_rigid_model *m, const sm_contact *c);

/* Constraint rows of one contact, and of a set. */
size_t sm_contact_rows(const sm_rigid_model *m, const sm_contact *c);
size_t sm_contact_set_rows(const sm_rigid_model *m, const sm_contact *c, size_t nc);

/* Doubles of work the functions below need for nc contacts (or fewer). */
size_t sm_rigid_contact_work_size(const sm_rigid_model *m, size_t rows);

/* The gap of a contact: the height above the ground of its point (a disk's
 * lowest point), or q − at for a lock.  point (if not NULL) gets the world
 * position of the contact point (PIN/SLIDE: the site; ROLL: the lowest point). */
double sm_contact_gap(const sm_rigid_model *m, const sm_rigid_data *d, const double *q, const sm_contact *c,
                      double point[3]);

/* Velocity-level rows J (rows x nv, row-major) and J̇v (rows) of a contact
 * set, in the order of the contacts.  Returns the number of rows (0 for a
 * model with more than SM_RIGID_MAX_V velocities).  For
 * SLIDE also the tangential row along x goes to Jt (nc x nv, one row per
 * contact; zero rows for the others) when Jt is not NULL. */
size_t sm_contact_jacobian(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, size_t nc,
                           double *J, double *Jdotv, double *Jt);

/* Joint springs, dampers and constant torques (docs/body-walkers.md "Forces"):
 * on the scalar s = Σ a_i q_i of 1-DOF coordinates,
 *     τ_i += −a_i (k (s − rest) + c ṡ − torque),
 * energy ½ k (s − rest)² (the damper and torque do work, tracked by the
 * caller).  terms index bodies with 1-DOF joints. */
typedef struct {
    size_t n;
    size_t body[8];
    double coef[8];
    double stiffness, damping, rest, torque;
} sm_rigid_spring;
void sm_rigid_spring_forces(const sm_rigid_model *m, const sm_rigid_spring *s, size_t ns, const double *q,
                            const double *v, double *tau);
double sm_rigid_spring_energy(const sm_rigid_model *m, const sm_rigid_spring *s, size_t ns, const double *q);
/* Power delivered by the dampers and torques: Σ ṡ (−c ṡ + torque). */
double sm_rigid_spring_power(const sm_rigid_model *m, const sm_rigid_spring *s, size_t ns, const double *q,
                             const double *v);

/* Kinetic energy ½ vᵀ M v and potential energy −Σ m_i g·p_i (zero at the world origin),
 * summed body by body at the (q, v) of the last sm_rigid_forward (v must be that v). */
void sm_rigid_energy(const sm_rigid_model *m, sm_rigid_data *d, const double *v, double *kinetic,
                     double *potential);

/* The constrained accelerations vdot[nv] and forces lambda[rows] under the
 * applied generalized forces tau[nv] (NULL: none).  SM_SINGULAR_CONSTRAINTS
 * when the rows are dependent (or the system singular), vdot and lambda
 * then untouched.  With nc = 0 this is M v̇ = τ − bias. */
sm_status sm_rigid_constrained_accel(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c,
                                     size_t nc, const double *tau, double *vdot, double *lambda, double *work);

/* Plastic impact onto the contact set c at the state of the last forward
 * sweep: v_plus[nv], the impulses Lambda[rows], the kinetic energy lost (>= 0
 * up to round-off) and |J v⁺|∞.  SM_SINGULAR_CONSTRAINTS as above. */
sm_status sm_rigid_impact(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c, size_t nc,
                          const double *v_minus, double *v_plus, double *Lambda, double *energy_lost,
                          double *residual, double *work);

/* Projection onto the constraints of a contact set (used at the section and
 * after impacts): positions by Gauss–Newton steps in the metric of M
 * (q ← q ⊕ −M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹ φ(q), for the holonomic rows: PIN's anchor
 * rows, SLIDE's and ROLL's gap, LOCK's coordinate) until |φ| < tol, then
 * velocities v ← v − M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹ J v.  q, v updated in place (d is
 * left at the projected state); *drift gets the largest |φ| and |J v| before
 * projecting.  SM_SINGULAR_CONSTRAINTS when dependent, SM_NOT_CONVERGED
 * when 20 steps do not bring |φ| below tol. */
sm_status sm_rigid_project(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c, size_t nc,
                           double tol, double *q, double *v, double *drift, double *work);

/* The force of contact k of the set on the walker, in the world frame (a
 * lock: F[0] = the torque, the rest 0), from the lambda the solve gave. */
void sm_contact_force(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, size_t nc,
                      const double *lambda, size_t k, double F[3]);

/* Centre of pressure of the ground contacts of the set (seed 000, eq. 24):
 * Σ F_z,i p_i / Σ F_z,i over contact points.  false when Σ F_z <= 0. */
bool sm_rigid_cop(const sm_rigid_model *m, const sm_rigid_data *d, const sm_contact *c, size_t nc,
                  const double *lambda, double cop[3]);

/* Zero-moment point from the whole-body motion (v̇ from the solve): the point
 * on the ground about which the moment of gravity and inertia forces has no
 * horizontal component.  Equals the CoP when every force comes from ground
 * contacts.  v must be the v of the last sm_rigid_forward.  false when the
 * vertical force is <= 0. */
bool sm_rigid_zmp(const sm_rigid_model *m, sm_rigid_data *d, const double *v, const double *vdot,
                  double zmp[3]);

/* Memory for a model's data without malloc, e.g. on the stack. */
size_t sm_rigid_data_bytes(const sm_rigid_model *m);
sm_rigid_data *sm_rigid_data_init(const sm_rigid_model *m, void *mem, size_t bytes);

/* A copy of a model in caller memory whose masses, centres of mass,
 * inertias, body positions, site positions and gravity can be changed (the
 * joints, axes and orientations cannot): how a model file's parameters reach
 * the core without allocating.  sm_rigid_model_bytes is the size. */
size_t sm_rigid_model_bytes(const sm_rigid_model *m);
sm_rigid_model *sm_rigid_model_copy(const sm_rigid_model *m, void *mem, size_t bytes);
/* Sets a body's mass, com, inertia and pos (quat, axis, joint ignored);
 * SM_BAD_PARAM with a message for a negative mass or inertia. */
sm_status sm_rigid_body_set(sm_rigid_model *m, size_t body, const sm_rigid_body_def *def, char *msg,
                            size_t msglen);
void sm_rigid_site_set(sm_rigid_model *m, size_t site, const double pos[3]);
void sm_rigid_gravity_set(sm_rigid_model *m, const double g[3]);
/* A model in caller memory (sm_rigid_model_bytes(m) is enough) that shares
 * m's arrays, for a gravity of its own: only sm_rigid_gravity_set may change
 * it, it is never copied, and m must outlive it.  Copying the whole model
 * for a new slope cost a body walker's callback more than its sweep. */
sm_rigid_model *sm_rigid_model_view(const sm_rigid_model *m, void *mem, size_t bytes);

/* A planar tree of hinges on root slides held at one stance contact (a pin
 * at a site, or a disk of the given radius centred at the site rolling on
 * the ground), in the hinges' coordinates alone: the mass matrix M_r and
 * bias b_r of M_r q̈ + b_r = τ_hinges, with the slides following the
 * contact (Φᵀ M Φ and Φᵀ(C v + G + M ψ) of the saddle-point system, the
 * contact forces eliminated).  The plan is the tree re-rooted at the
 * contact, made once per model topology and site; false when the tree is
 * not planar with slides only above its hinges.  The hinges are in the
 * plan's order (vadr[i]); d holds the planar forward sweep (the slides'
 * rates are not read). */
typedef struct {
    size_t site, n, root;
    size_t top; /* the end of the chain of one-child links from the root */
    size_t link[SM_RIGID_MAX_V], vadr[SM_RIGID_MAX_V];
    bool on_path[SM_RIGID_MAX_V]; /* the hinge is between the contact and the root */
    /* φ̇_a = sig[a] q̇_a for the hinge's own set, φ̇_0 = Σ pi[a] q̇_a the
     * whole walker's turn about the contact */
    double sig[SM_RIGID_MAX_V], pi[SM_RIGID_MAX_V];
    /* nest[a][b]: 1 when the bodies hinge b turns in the re-rooted tree are
     * among those a turns, 2 the other way round, 0 when apart */
    unsigned char nest[SM_RIGID_MAX_V][SM_RIGID_MAX_V];
} sm_rigid_pinned_plan;

bool sm_rigid_pinned_plan_init(const sm_rigid_model *m, size_t site, sm_rigid_pinned_plan *plan);
/* M n x n row-major and bias n (n = plan->n); false if m's planar path is
 * off.  force, if not NULL, 3 (n + 1): the world force the contact exerts,
 * Σ m (ẍ − g) = force[0..2] + Σ_j q̈_j force[3(j+1)..] (the slides' rows of
 * the saddle-point system's Jᵀλ).  locked, if not NULL, n flags: the hinges
 * a lock holds (zero accelerations), whose entries among themselves are
 * left unset, their force columns zero, and without force their rows,
 * columns and bias too (a lock's torque reads its row at the free columns
 * and its bias). */
/* A data block for sm_rigid_pinned_forward and sm_rigid_pinned_dynamics
 * alone (the angles, rates, origins and their accelerations; nothing else
 * may read it): a right-hand side's block is a fifth of sm_rigid_data_init's.
 * NULL when bytes are fewer than sm_rigid_pinned_data_bytes(m) or m's
 * planar path is off (the pinned path is then off too). */
size_t sm_rigid_pinned_data_bytes(const sm_rigid_model *m);
sm_rigid_data *sm_rigid_pinned_data_init(const sm_rigid_model *m, void *mem, size_t bytes);
/* The planar forward sweep into d at the slides' zero for the pinned
 * dynamics alone: the hinges' coordinates qh and rates vh in the plan's
 * order (the tree's), the links' velocities left unset.  m must have a
 * plan (sm_rigid_pinned_plan_init true); false, d untouched, when its
 * planar path is off. */
bool sm_rigid_pinned_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *qh, const double *vh);
bool sm_rigid_pinned_dynamics(const sm_rigid_model *m, sm_rigid_data *d, const sm_rigid_pinned_plan *plan,
                              double radius, const unsigned char *locked, double *M, double *bias, double *force);
/* Both passes at once, on a data block of its own (qh, vh as in
 * sm_rigid_pinned_forward; M, bias, locked as in sm_rigid_pinned_dynamics,
 * without the force): a right-hand side's every call. */
bool sm_rigid_pinned_terms(const sm_rigid_model *m, const sm_rigid_pinned_plan *plan, const double *qh,
                           const double *vh, double radius, const unsigned char *locked, double *M, double *bias);

#endif
