/* A body-walker model file as read (docs/body-walkers.md): plain data the
 * loader (load.c) fills and the model assembly (model.c) turns into an
 * sm_model on the rigid-body core.  Names are resolved to indices by the
 * loader, which also checks every cross-reference and reports file:line:column.
 *
 * Every numeric field is a body_num: the value of an expression of the
 * parameters p (a lone parameter in the common case).  body_num_eval gives it. */
#ifndef STRIDEMAP_BODY_DEF_H
#define STRIDEMAP_BODY_DEF_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/model.h"
#include "stridemap/rigid.h"
#include "stridemap/rigid_contact.h"
#include "stridemap/status.h"

#define BODY_MAX_BODIES 40
#define BODY_MAX_SITES 40
#define BODY_MAX_CONTACTS 24
#define BODY_MAX_FORCES 16
#define BODY_MAX_PHASES 12
#define BODY_MAX_EVENTS 12
#define BODY_MAX_GUARDS 6
#define BODY_MAX_COORDS 48
#define BODY_MAX_PUSHES 4

/* An expression compiled to a stack program (expr.c). */
typedef struct body_expr body_expr;
typedef struct {
    int param;        /* >= 0: the value is p[param] */
    body_expr *expr;  /* else: an expression of p (owned by the body_file) */
} body_num;
double body_num_eval(const body_num *n, const double *p);
/* An optional field left out of the file is param -1 with no expression,
 * and evaluates to 0. */

typedef struct {
    char *name;
    int parent;            /* body index or -1 */
    sm_rigid_joint joint;  /* planar already expanded into slide, slide, hinge */
    double quat[4], axis[3];
    body_num pos[3], mass, com[3], inertia[6]; /* ixx iyy izz ixy ixz iyz */
} body_body;

typedef struct {
    char *name;
    int body;
    body_num pos[3];
} body_site;

/* Where a definition sits in its file, for messages found after loading
 * (e.g. dependent constraints): "path:line:col". */
typedef struct {
    int line, col;
} body_pos;

typedef struct {
    char *name;
    body_pos at_pos;
    sm_contact_kind kind;
    int site;          /* PIN, SLIDE, ROLL */
    body_num radius;   /* ROLL */
    double axis[3];    /* ROLL */
    body_num mu;       /* SLIDE; PIN (optional, NaN-valued param absent: param = -1, expr = NULL) */
    bool has_mu;
    int body;          /* LOCK: the body whose 1-DOF coordinate is held */
    body_num at;       /* LOCK */
    bool hold;         /* LOCK, at: here: held where the phase begins (its rate row only) */
    unsigned rows;     /* PIN: SM_ROW_X | SM_ROW_Y | SM_ROW_Z held; 0 = all */
} body_contact;

typedef struct {
    char *name;
    size_t n;
    int body[8];
    double coef[8];
    body_num stiffness, damping, rest, torque;
    /* a bit per phase it does NOT act in (the complement of its phases:);
     * 0, every phase, is also what a zeroed force holds */
    unsigned phases_off;
} body_force;

/* The controller of the file (docs/body-walkers.md, controller:): torques
 * tau[n_act] entering as generalized forces B tau, B's column j the
 * coefficients act_coef[j] on the 1-DOF coordinates act_v[j]; outputs y = H q - h_d(theta) on theta = c.q (src/body/control.c). */
#define BODY_MAX_ACT 8
#define BODY_MAX_COEF 16
typedef enum { BODY_CTRL_NONE, BODY_CTRL_IO, BODY_CTRL_PD } body_ctrl_kind;
typedef struct {
    body_ctrl_kind kind;
    body_pos at_pos, outputs_pos;
    /* the file's 1-DOF coordinates the controller reads or drives, as
     * (q index, v index): q_of[v] the q index of rate v, -1 if none read */
    int q_of[BODY_MAX_COORDS];
    size_t n_act;
    char *act_name[BODY_MAX_ACT];
    size_t act_n[BODY_MAX_ACT];
    int act_v[BODY_MAX_ACT][8];   /* v indices */
    double act_coef[BODY_MAX_ACT][8];
    /* the phase variable theta = sum phase_coef * q[phase_q], from
     * theta_plus (start of the step) to theta_minus (its end) */
    size_t phase_n;
    int phase_v[8];                  /* v indices */
    body_num phase_coef[8], theta_plus, theta_minus;
    int basis;                /* sm_basis: h_d in theta (power series) or in s */
    size_t n_out;
    char *out_name[BODY_MAX_ACT];
    size_t out_n[BODY_MAX_ACT];
    int out_v[BODY_MAX_ACT][8];    /* v indices */
    body_num out_coef[BODY_MAX_ACT][8];
    /* pd: bit ph set when output o's feedback acts in phase ph (every
     * phase unless the output lists its phases) */
    unsigned out_phases[BODY_MAX_ACT];
    _Static_assert(BODY_MAX_PHASES <= 32, "out_phases holds a bit per phase");
    size_t degree[BODY_MAX_ACT];
    body_num a[BODY_MAX_ACT][BODY_MAX_COEF];
    double knots[BODY_MAX_ACT][BODY_MAX_COEF]; /* spline: in s, increasing (plain numbers) */
    body_num period[BODY_MAX_ACT];             /* fourier: in s */
    body_num kp, kd, epsilon;
    bool has_limit, saturate;
    body_num limit;
    /* sampling: the torques recomputed every sample_period of the step's
     * clock and held, one held torque per actuator in the state */
    bool sampled;
    body_num sample_period;
    /* integrators: z_i' = y_{int_out[i]} − leak_i z_i, the law's integral
     * term ki_i z_i on that output; at an impact kept or zeroed */
    size_t n_int;
    char *int_name[BODY_MAX_ACT];
    int int_out[BODY_MAX_ACT];
    body_num int_gain[BODY_MAX_ACT], int_leak[BODY_MAX_ACT];
    bool int_keep[BODY_MAX_ACT];
    /* feedforward (pd): u_j += ff_j(s), a natural cubic spline through
     * (ff_knots[k], ff[j][k]), k < ff_n; an actuator without one has
     * ff_has[j] false */
    size_t ff_n;
    double ff_knots[BODY_MAX_COEF];
    bool ff_has[BODY_MAX_ACT];
    /* a bit per phase actuator j's feedforward is NOT added in (the
     * complement of feedforward: phases: ACTUATOR:); 0: every phase */
    unsigned ff_phases_off[BODY_MAX_ACT];
    body_num ff[BODY_MAX_ACT][BODY_MAX_COEF];
} body_controller;

/* The controller's state after the walker's (q, v): the held torques
 * (sampled), then the integrators. */
static inline size_t body_ctrl_nheld(const body_controller *k) { return k->sampled ? k->n_act : 0; }
static inline size_t body_ctrl_nz(const body_controller *k) { return body_ctrl_nheld(k) + k->n_int; }

typedef enum {
    BODY_WHEN_GAP,    /* contact */
    BODY_WHEN_HEIGHT, /* site */
    BODY_WHEN_COORD,  /* coord (q index) */
    BODY_WHEN_RATE,   /* coord (v index) */
    BODY_WHEN_FORCE,  /* contact (must be in the phase) */
    BODY_WHEN_SLIP,   /* contact (pin with mu, in the phase) */
    BODY_WHEN_STICK,  /* contact (slide, in the phase) */
    BODY_WHEN_PHASE_RATE, /* the controller's dtheta/dt, oriented to grow over the step (added by the loader) */
    BODY_WHEN_PUSH,   /* push target (index into pushes): its site passes over its contact (added by the loader) */
} body_when_kind;

typedef enum {
    BODY_GUARD_AHEAD,  /* site a's x minus site b's x > value */
    BODY_GUARD_BEHIND, /* < -value */
    BODY_GUARD_COORD_ABOVE, BODY_GUARD_COORD_BELOW,
    BODY_GUARD_RATE_ABOVE, BODY_GUARD_RATE_BELOW,
    BODY_GUARD_FORCE_ABOVE, BODY_GUARD_FORCE_BELOW,
} body_guard_kind;

typedef struct {
    body_guard_kind kind;
    int a, b;          /* sites (AHEAD/BEHIND), coord index (COORD: q index, RATE: v index), contact (FORCE) */
    body_num value;
} body_guard;

typedef struct {
    char *name;
    body_pos at_pos;
    body_when_kind when;
    int target;        /* contact, site, or coordinate index as the kind says */
    body_num value;    /* COORD/RATE: the level */
    int direction;     /* +1 up, -1 down, 0 either */
    size_t n_guards;
    body_guard guards[BODY_MAX_GUARDS];
    sm_event_outcome outcome;
    int next_phase;    /* TO_PHASE */
    sm_status failure; /* FAIL */
    bool impact, relabel;
    /* impact: [CONTACT, ...]: the impulse acts on these contacts instead of
     * the next phase's (a joint held through the impact, then released) */
    size_t n_impact;
    int impact_contacts[BODY_MAX_CONTACTS];
    /* strike: the file's word on whether this is the swing foot's strike
     * (heelstrike_impulse); left out, strike.c tells from the impact */
    enum { BODY_STRIKE_INFER, BODY_STRIKE_YES, BODY_STRIKE_NO } strike;
} body_event;

typedef struct {
    char *name;
    body_pos at_pos, contacts_pos;
    size_t n_contacts;
    int contacts[BODY_MAX_CONTACTS];
    size_t n_events;
    body_event events[BODY_MAX_EVENTS];
} body_phase;

typedef struct {
    /* identity */
    char *name, *title, *reference, *path;
    /* parameters: every p index used by a body_num */
    size_t n_params;
    sm_param_def params[SM_MAX_PARAMS]; /* names owned (char * cast) */
    body_expr *exprs;                    /* the list of owned expressions */

    body_num gravity, slope;
    size_t n_bodies;
    body_body bodies[BODY_MAX_BODIES];
    size_t n_sites;
    body_site sites[BODY_MAX_SITES];
    size_t n_contacts;
    body_contact contacts[BODY_MAX_CONTACTS];
    size_t n_forces;
    body_force forces[BODY_MAX_FORCES];
    size_t n_phases;                     /* phase 0 starts a stride */
    body_phase phases[BODY_MAX_PHASES];

    /* coordinates: nq positions, nv rates, named as docs/body-walkers.md */
    size_t nq, nv;
    char *q_names[BODY_MAX_COORDS], *v_names[BODY_MAX_COORDS];

    /* relabel: q' [i] = sign[i] * q[perm[i]]; v the same with vperm/vsign
     * (identity when absent; a permutation, checked by the loader) */
    bool has_relabel;
    int qperm[BODY_MAX_COORDS], vperm[BODY_MAX_COORDS];
    double qsign[BODY_MAX_COORDS], vsign[BODY_MAX_COORDS];
    double qshift[BODY_MAX_COORDS];      /* then q'[i] += qshift[i] (shift:, a wheel's next spoke) */

    /* section */
    body_pos section_pos;
    int section_event_phase, section_event; /* the event that ends the stride */
    size_t n_touching;
    int touching[BODY_MAX_CONTACTS];
    int origin;                          /* contact */
    size_t n_free;
    size_t free_index[2 * BODY_MAX_COORDS]; /* into the state (q then v) */
    /* section: family: {NAME: VALUE}, the gaits' family picked by the
     * state component family_state = VALUE (src/body/family.c) */
    bool has_family;
    size_t family_state;
    body_num family_value;

    double guess[2 * BODY_MAX_COORDS];   /* full state */
    double time_limit;

    body_controller ctrl;                /* kind NONE: no controller */

    int clearance_contact;               /* -1: none */
    int hip_site;                        /* -1: none */

    /* integrate: reduced (reduced.c): only the joints are integrated, the
     * floating base follows from the stance contact */
    bool reduced;
    body_pos integrate_pos;

    /* disturbances: (load_disturb.c): a floor step, the parameter that
     * lowers the ground under the swing foot for a stride and the
     * coordinate that lifts the walker onto the new floor after it */
    bool has_floor_step;                 /* false: none (a file built in C leaves it so) */
    size_t floor_step_param;             /* the parameter */
    size_t floor_step_coord;             /* a position coordinate */
    /* a slope step: the parameter added to the slope for a stride */
    bool has_slope_step;
    size_t slope_step_param;
    /* pushes: a horizontal impulse at a site once its site passes over the
     * stance contact (src/body/push.c); each adds an event to every phase */
    size_t n_push;
    struct {
        size_t param;  /* the impulse, N s */
        int site;      /* where it acts */
        int over;      /* the contact whose point the site passes (the section's origin by default) */
        bool sideways; /* along y (the walker's left) instead of forward */
    } push[BODY_MAX_PUSHES];
} body_file;

/* Reads a file.  On a bad file: SM_BAD_MODEL_FILE and "path:line:col: what is
 * wrong and what to change" in why.  *out is heap memory for body_file_free. */
sm_status body_file_load(const char *path, body_file **out, char *why, size_t why_len);
void body_file_free(body_file *f);

/* Builds the sm_model (model.c); the model owns f from then on and frees it
 * in its release hook.  On failure it frees f too (src/body/open.c relies
 * on it). */
sm_status body_model_create(body_file *f, const sm_model **out, char *why, size_t why_len);

#endif
