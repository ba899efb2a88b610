/* Shared by the body-walker model's files (model.c assembly, eval.c the
 * per-call rigid model, phase.c, events.c, section.c, measures.c): the
 * sm_model built from a body_file.  Private to the library. */
#ifndef STRIDEMAP_BODY_MODEL_H
#define STRIDEMAP_BODY_MODEL_H

#include <stddef.h>

#include "body_def.h"
#include "stridemap/gait.h"

/* The parameters a definition's numbers read: idx[n] when each is a lone
 * parameter or a constant, or every one (any_expr). */
typedef struct {
    bool any_expr;
    unsigned char n;
    short idx[13];
} body_deps;

typedef struct {
    size_t phase, event;
    int contact, slot;
} body_impulse_key;

typedef struct {
    sm_model model;
    body_file *f;
    sm_rigid_model *tmpl;            /* built once from the default parameters */
    double defaults[SM_MAX_PARAMS];
    /* the template's numbers, so that a copy at other p re-sets only the
     * bodies and sites whose numbers changed (each set re-plans the tree) */
    sm_rigid_body_def def0[BODY_MAX_BODIES];
    double site0[BODY_MAX_SITES][3], gravity0[3];
    /* which parameters each body, site and the gravity read, so that a copy
     * at other p evaluates only the definitions a changed parameter can
     * move (an expression counts as reading every parameter) */
    body_deps body_dep[BODY_MAX_BODIES], site_dep[BODY_MAX_SITES], gravity_dep;
    size_t nq, nv, n_state;
    bool planar;
    size_t scratch_words;            /* max_align_t units of a body_eval's memory */
    size_t model_bytes, data_bytes, work_doubles;
    const char *state_names[2 * BODY_MAX_COORDS];
    char *owned_names[2 * BODY_MAX_COORDS]; /* the rates' names made here */
    size_t free_index[2 * BODY_MAX_COORDS];
    int free_mode[2 * BODY_MAX_COORDS];     /* modes.c: each free coordinate's sm_mode */
    sm_phase phases[BODY_MAX_PHASES];
    sm_event events[BODY_MAX_PHASES][BODY_MAX_EVENTS];
    int section_phase;               /* the phase the section's stride starts in: 0 */
    /* the extra measures (ground.c): names, and each contact's slot among
     * the per-contact ones (-1: none) */
    const char *extra_names[SM_MAX_EXTRA], *extra_labels[SM_MAX_EXTRA];
    char *owned_extra[2 * SM_MAX_EXTRA];
    int ground_slot[BODY_MAX_CONTACTS];
    /* the impulse measures: (phase, event, contact) and its slot */
    size_t n_impulse;
    body_impulse_key impulse_key[SM_MAX_EXTRA];
    /* the controller's torque peaks: ACTUATOR.max_torque from this slot
     * among the per-contact ones on (-1: none) */
    int torque_slot;
    /* each slide contact's CONTACT.sliding_distance slot among the
     * per-contact ones, its sliding_displacement the next (-1: none) */
    int slide_slot[BODY_MAX_CONTACTS];
    /* the per-sample columns (sample.c): names, each contact's first
     * column (-1: none), the first of cop and zmp */
    const char *sample_names[SM_MAX_SAMPLE];
    char *owned_sample[SM_MAX_SAMPLE];
    int sample_col[BODY_MAX_CONTACTS];
    size_t sample_cop;
    /* the controller's columns: each actuator's torque, then each output's
     * y (-1: none) */
    int sample_ctrl;
    /* integrate: reduced (reduced.c): the engine's state is the joints'
     * (n_reduced: the coordinates after the base's two slides that no lock
     * holds in every phase, then their rates), named and freed as the
     * file's */
    bool reduced;
    size_t n_reduced;
    /* the joints (coordinate − 2) the state keeps, in order, and for each
     * joint the lock that holds it in every phase and impact (a contact
     * index: the joint stays at the lock's value, its rate zero), or -1 */
    unsigned char kept[BODY_MAX_COORDS];
    int held[BODY_MAX_COORDS];
    size_t n_held;
    unsigned char held_joint[BODY_MAX_COORDS]; /* the held joints, in order */
    double held_at0[BODY_MAX_COORDS];         /* each held joint's value at the defaults */
    const char *reduced_names[2 * BODY_MAX_COORDS];
    size_t reduced_free[2 * BODY_MAX_COORDS];
    size_t sample_base;              /* reduced: the base's four columns */
    bool reduced_direct[BODY_MAX_PHASES]; /* the phase holds the stance contact and locks only */
    double roll_phi0, roll_coef[BODY_MAX_COORDS]; /* a stance disk's angle about y, linear in q */
    bool events_read_base_rates;     /* some event is a base rate's crossing */
    /* the lateral measures (lateral.c): their first slot among the extra
     * ones (-1: none), the heading and lean coordinates (q indices, -1:
     * none), and the ground measures' hook they extend */
    int lateral_slot, lat_yaw, lat_roll;
    sm_status (*ground_extra)(sm_workspace *ws, const double *p, const double *x, double *values);
    /* the tree re-rooted at the stance contact (rigid_contact.h), when the
     * rigid core can write it: the right-hand side's direct phases */
    bool pinned_ok;
    sm_rigid_pinned_plan pinned;
    unsigned char pinned_free[BODY_MAX_PHASES][SM_RIGID_MAX_V]; /* each phase's unlocked hinges (plan order) */
    size_t pinned_nfree[BODY_MAX_PHASES];
    unsigned char pinned_locked[BODY_MAX_PHASES][SM_RIGID_MAX_V]; /* 1: the phase locks the hinge (plan order) */
    unsigned char lock_hinge[BODY_MAX_CONTACTS]; /* a lock contact's hinge (plan order) */
    /* the springs, the contacts and the stance contact's radius at the
     * defaults, so that a call there evaluates none of their numbers (eval.c) */
    sm_rigid_spring springs0[BODY_MAX_FORCES];
    sm_contact contacts0[BODY_MAX_CONTACTS]; /* each contact's shape, without a pin's anchor */
    double event_level0[BODY_MAX_PHASES][BODY_MAX_EVENTS]; /* each event's level */
    double origin_radius0;
    size_t pinned_data_words; /* max_align_t units of the pinned path's data block */
    unsigned char spring_ri[BODY_MAX_FORCES][8]; /* reduced: each spring's joints among the state's */
} body_model;

/* Everything one callback needs at parameters p, in caller (stack) memory:
 * the rigid model (the template itself when p are the defaults, else a
 * copy with p's masses, lengths and gravity), its data and the contact
 * work array.  No malloc, no shared mutable state: models are shared by
 * the threads of a sweep. */
typedef struct {
    const body_model *bm;
    const double *p;
    const sm_rigid_model *m;
    sm_rigid_data *d;
    double *work;
    bool at_defaults; /* p are the model's defaults */
} body_eval;

/* Declares the memory of a body_eval in the calling function's frame. */
#define BODY_EVAL_MEM(name, bm) max_align_t name[(bm)->scratch_words]

/* SM_BAD_PARAM (why filled if not NULL) when p gives a body a negative mass
 * or inertia. */
sm_status body_eval_init(body_eval *e, const body_model *bm, const double *p, void *mem, char *why,
                         size_t why_len);

/* The file's definitions evaluated at p (the template is built from them at
 * the defaults; body_eval_init sets a copy from them at other p). */
void body_def_at(const body_file *f, size_t i, const double *p, sm_rigid_body_def *def);
void body_gravity_at(const body_file *f, const double *p, double g[3]);
void body_site_at(const body_file *f, size_t i, const double *p, double pos[3]);
/* Fills bm's body_dep, site_dep and gravity_dep from its file. */
void body_eval_plan(body_model *bm);
/* The max_align_t words of a body_eval's memory (scratch_words). */
size_t body_eval_words(const body_model *bm);

/* A slide whose sliding speed is at most this (m/s) is at rest: friction
 * takes its sign from the motion that starts (body_phase_solve). */
#define BODY_SLIDE_AT_REST 1e-12

/* The rigid-core contacts of phase ph at p (slides take their sign from the
 * state in e's last forward sweep; pins are anchored where their sites are,
 * on the ground).  Returns their number. */
size_t body_phase_contacts(const body_eval *e, size_t ph, const double *v, sm_contact *c);
/* One contact of the file as a rigid-core contact at p. */
void body_contact_at(const body_eval *e, size_t k, const double *v, sm_contact *c);
/* The same without a pin's anchor (a site position): for what reads the
 * contact's shape alone, a gap or a friction coefficient. */
void body_contact_shape(const body_eval *e, size_t k, sm_contact *c);

/* The radius of the section's origin contact at e's p (0 unless a roll). */
double body_origin_radius(const body_eval *e);

/* Applied generalized forces tau[nv] of the file's springs that act in
 * phase ph (their phases:) at (q, v). */
void body_spring_forces(const body_eval *e, size_t ph, const double *q, const double *v, double *tau);
/* Every spring's energy, whatever the phases it acts in (a measure reads
 * no phase). */
double body_spring_energy(const body_eval *e, const double *q);

/* The constrained solve of phase ph at x (forward sweep included): vdot
 * and lambda (either may be NULL); c/nc receive the contact set if not
 * NULL, its pins without anchors (the projection takes its contacts from
 * body_phase_contacts).  The library status of the solve. */
sm_status body_phase_solve(const body_eval *e, size_t ph, const double *x, double *vdot, double *lambda,
                           sm_contact *c, size_t *nc);

/* The same on e's forward sweep, already at x. */
sm_status body_phase_solve_swept(const body_eval *e, size_t ph, const double *x, double *vdot, double *lambda,
                                 sm_contact *c, size_t *nc);

/* Index of contact k in phase ph's list, or -1. */
int body_phase_contact_slot(const body_file *f, size_t ph, int k);
/* Row offset of slot i in phase ph's constraint rows. */
size_t body_phase_row_of(const body_eval *e, const sm_contact *c, size_t slot);

/* The leg swap of the file on a full state (y may not alias x). */
void body_relabel(const body_model *bm, const double *x, double *y);

/* family.c: the model's family condition from the file's section: family. */
void body_set_family(body_model *bm);

/* modes.c: the kind of motion (sm_mode) of each free coordinate, from the
 * joints' axes, for a 3-D tree of hinges and slides; none otherwise. */
void body_set_modes(body_model *bm);

/* What an event's plastic impact did: the contacts it acted on (the file's
 * indices and as rigid-core contacts), the impulses Λ in their rows, the
 * kinetic energy lost and |J v⁺|∞. */
typedef struct {
    size_t nc;
    int contact[BODY_MAX_CONTACTS];
    sm_contact c[BODY_MAX_CONTACTS];
    double Lambda[SM_RIGID_MAX_ROWS];
    double lost, residual;
} body_impact;

/* The impact of event ev of phase ph on the state x (already relabelled
 * when the event relabels), x's rates replaced by the rates after it;
 * e's forward sweep is left at the state before. */
sm_status body_event_impact(const body_eval *e, size_t ph, size_t ev, double *x, body_impact *out);

/* A push (push.c): its event's value at e's forward sweep (the site's x
 * less its contact point's; 1, never crossed, where p holds no push), its
 * direction u[3] at p, and the push applied to the full state x in phase
 * ph (x's rates replaced; out gets the contacts' impulses). */
double body_push_value(const body_eval *e, size_t k, const double *p);
void body_push_direction(const body_file *f, size_t k, const double *p, double u[3]);
sm_status body_push_apply(const body_eval *e, size_t ph, size_t k, double *x, body_impact *out);

/* strike.c: event ev of phase ph is the swing foot's strike on the ground
 * (sm_event.strike), as the file says or else as its impact shows. */
bool body_event_strikes(const body_file *f, size_t ph, size_t ev);

/* The per-(phase, event) callbacks (events.c) and the rhs of each phase (phase.c). */
sm_event_fn body_event_value_fn(size_t ph, size_t ev);
sm_guard_fn body_event_guard_fn(size_t ph, size_t ev);
sm_reset_fn body_event_reset_fn(size_t ph, size_t ev);
sm_rhs_fn body_phase_rhs_fn(size_t ph);
/* All the events of phase ph at once, on one forward sweep (events.c). */
sm_events_fn body_phase_events_fn(size_t ph);

/* Section (section.c). */
void body_lift(double *x, const double *p, const void *data);
void body_guess(double *x, const double *p, const void *data);
/* The file's guess lifted, as a full state (either mode). */
void body_guess_full(const body_model *bm, double *x, const double *p);
/* Projects x onto the constraints of phase ph (pins anchored where their
 * sites are, on the ground); *drift the largest violation before. */
sm_status body_project(const body_eval *e, size_t ph, double *x, double *drift);

/* Measures (measures.c): fills the model's measure hooks; ground.c the
 * extra ones (ground forces, constraint drift). */
void body_set_measures(body_model *bm);
sm_status body_set_ground_measures(body_model *bm);
/* How many extra measures body_set_ground_measures gives f's walker. */
size_t body_ground_measure_count(const body_file *f);
/* Whether contact k is a ground contact (not a lock) some phase uses. */
bool body_ground_used(const body_file *f, size_t k);
/* support.c: the signed distance of cop (x, y) inside the convex hull of
 * points[0..n) seen from above (along the segment where they lie on one
 * line); NaN for fewer than two distinct points. */
double body_support_margin(const double (*points)[2], size_t n, const double cop[2]);
/* lateral.c: step width, hip sway, heading drift, yaw and roll ranges of a
 * 3-D walker, after the ground measures (call after them). */
sm_status body_set_lateral_measures(body_model *bm);
/* How many body_set_lateral_measures adds: 5 for a 3-D walker, none for a planar one. */
size_t body_lateral_measure_count(const body_model *bm);
/* modes.c: the heading coordinate (a hinge about the normal reached through
 * slides) and the lean (the first other hinge about x), as q indices (-1:
 * none). */
void body_lateral_coords(const body_file *f, int *yaw, int *roll);

/* The per-sample contact forces, CoP and ZMP (sample.c): fills the
 * model's sample hooks; the names it made are freed by body_free_samples. */
sm_status body_set_samples(body_model *bm);
void body_free_samples(body_model *bm);

/* A contact's normal force (pin/slide/roll: world z; lock: the torque) and
 * its tangential magnitude, from the solve's lambda. */
void body_contact_force(const body_eval *e, const sm_contact *c, size_t nc, const double *lambda, size_t slot,
                        double *normal, double *tangential);

/* The controller (control.c): its virtual constraints at p, over the
 * walker's rates (q gathered onto them by body_control_q_on_v); dθ/dt
 * oriented to grow from the step's start to its end; the torques u[n_act]
 * added to tau as B u (e swept at (q, v), c the phase's contacts; u_out
 * may be NULL); the torques at x in phase ph; their power u·Bᵀv. */
#include "stridemap/control.h"
void body_control_vc(const body_file *f, const double *p, sm_vc *vc);
void body_control_q_on_v(const body_file *f, const double *q, double *qv);
double body_control_phase_rate(const body_file *f, const double *p, const double *v);
sm_status body_control_add(const body_eval *e, size_t ph, const sm_contact *c, size_t nc, const double *q, const double *v,
                           const double *z, double *tau, double *u_out);
sm_status body_control_torques(const body_eval *e, size_t ph, const double *x, double *u);
/* The controller's state (body_def.h: held torques, integrators) after
 * the walker's q and v in the state.  The law's torques u at (q, v) over
 * the contacts c (e swept there) with the passive forces tau, the
 * integrators zi (NULL: none), saturated or SM_TORQUE_LIMIT; the same at
 * the state x in phase ph (what a sample holds); the state's rates
 * (held: 0, integrators: y − leak z); at an impact the integrators the
 * file zeroes, and at the section (a sample: the step's clock restarts)
 * the held torques; the clock's hooks (model.h). */
sm_status body_control_law(const body_eval *e, size_t ph, const sm_contact *c, size_t nc, const double *q, const double *v,
                           const double *zi, const double *tau, double *u);
sm_status body_control_law_at(const body_eval *e, size_t ph, const double *x, double *u);
void body_control_state_rate(const body_model *bm, const double *p, const double *x, double *zdot);
sm_status body_control_impact(const body_eval *e, size_t ph, bool section, double *x);
double body_control_clock_period(const double *p, const void *data);
int body_control_clock_reset(size_t phase, const double *xm, double *xp, const double *p, const void *data);
/* Names the controller's state and appends it to the model's (model.c). */
sm_status body_control_state_setup(body_model *bm, char *why, size_t why_len);
/* SM_BAD_MODEL_FILE with "path:line:col: ..." when the decoupling matrix is
 * singular at the guess in some phase. */
sm_status body_control_check(const body_model *bm, char *why, size_t why_len);
double body_control_power(const body_file *f, const double *u, const double *v);
/* Reduced coordinates (reduced.c).  Setup checks the file's integrate:
 * key and fills the reduced names and free list (SM_BAD_MODEL_FILE with
 * why).  body_expand fills the full state xf from the reduced xr (the
 * base from the stance contact; e's forward sweep is left at base 0),
 * body_reduce drops the base and the held joints.  body_expand leaves e's forward sweep at
 * xf's positions with the base at rest, which is xf's sweep for all that
 * does not read the base's velocity from it (everything but energies and
 * momenta: the accelerations, rows, J̇v, forces, gaps and positions). */
sm_status body_reduced_setup(body_model *bm, char *why, size_t why_len);
sm_status body_expand(const body_eval *e, const double *xr, double *xf);
sm_status body_expand_at(const body_model *bm, const double *p, const double *xr, double *xf);
/* The same with the base's rates left at zero (no contact rows): for the
 * event functions, which read no base rate unless events_read_base_rates. */
sm_status body_expand_positions(const body_eval *e, const double *xr, double *xf);
void body_reduce(const body_model *bm, const double *xf, double *xr);
/* body_phase_solve by the reduced equations (the full solve where the
 * phase holds more than the stance contact and locks): the accelerations
 * vdot[nv] at the full state xf in phase ph, and if not NULL the forces in
 * the full solve's rows and the phase's contacts (without anchors).
 * swept: e's forward sweep is at xf already (body_expand's will do). */
sm_status body_reduced_accel(const body_eval *e, size_t ph, const double *xf, bool swept, double *vdot,
                             double *lambda, sm_contact *c, size_t *nc);
/* The joints of xf from the reduced xr, the held ones at their locks'
 * values at p with zero rates; the base's entries untouched. */
void body_unreduce(const body_model *bm, const double *p, const double *xr, double *xf);
/* The joints' accelerations qdd[nv − 2] (locked ones 0) at the full state
 * xf (base at rest) in phase ph: by the tree pinned at the stance contact
 * where the phase holds it and locks only (sm_rigid_pinned_dynamics), else
 * by body_reduced_accel.  The right-hand side's; no forces. */
sm_status body_reduced_joint_accel(const body_eval *e, size_t ph, const double *xf, double *qdd);
/* Phase ph's right-hand side xd of the reduced state x at p (phase.c):
 * the joints' rates and body_reduced_joint_accel's accelerations, by the
 * pinned path on its own data block at the defaults. */
sm_status body_reduced_rhs(const body_model *bm, size_t ph, const double *p, const double *x, double *xd);
/* body_reduced_accel's forces and contacts (the force events'), by the
 * pinned path where it applies. */
sm_status body_reduced_forces(const body_eval *e, size_t ph, const double *xf, bool swept, double *lambda,
                              sm_contact *cs, size_t *ncs);

/* A callback's state x as a full state: in reduced mode x is expanded into
 * a local full state (on failure the statement `fail` runs). */
#define BODY_FULL(bm, p, x, fail)                                                       \
    double x##_full[SM_MAX_STATE];                                                      \
    if ((bm)->reduced) {                                                                \
        if (body_expand_at(bm, p, x, x##_full) != SM_OK) fail;                          \
        x = x##_full;                                                                   \
    }

/* The rigid template of a body model (tests: site positions, drift), or
 * NULL if m is not one. */
const sm_rigid_model *body_model_rigid(const sm_model *m);
const body_file *body_model_file(const sm_model *m);

#endif
