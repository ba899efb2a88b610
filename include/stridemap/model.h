/* The read-only description of a walker.
 *
 * A model is data: its state, its named parameters and its phase graph.  Each
 * phase is an ODE with events; each event says which way its function must
 * cross zero, when a crossing counts (the guard), and what follows: another
 * phase through a reset map, the end of the stride on the Poincare section,
 * or a failure status.  Model files know nothing of CVODE: they fill plain
 * double arrays and return 0 (ok), >0 (recoverable, e.g. step too large) or
 * <0 (fatal), as SUNDIALS callbacks do.  Everything that changes during a
 * computation lives in the workspace (hybrid.h), never here. */
#ifndef STRIDEMAP_MODEL_H
#define STRIDEMAP_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/status.h"

typedef struct sm_workspace sm_workspace; /* hybrid.h */

/* Upper bounds that let the engine keep its scratch on the stack. */
#define SM_MAX_STATE 64
#define SM_MAX_PARAMS 256
#define SM_MAX_SAMPLE 64 /* per-sample measures (sm_model.n_sample) */
/* Per-step measures (sm_model.n_extra; callers size values[] by it).  A
 * model with more is refused (sm_model_validate; a body file by its loader),
 * never cut short.  Was 32 until biped12_3d needed 45: a program built with
 * the old value breaks on such a model, so a change needs the next MINOR's
 * soname (README, Versions). */
#define SM_MAX_EXTRA 64

/* Every callback gets the parameter values p[n_params] and the model's own
 * `data` (NULL for closed-form walkers; the loaded bodies of a walker read
 * from a file), so one set of functions can serve many loaded models. */

/* xdot[n_state] = f(t, x[n_state]; p[n_params]). */
typedef int (*sm_rhs_fn)(double t, const double *x, double *xdot, const double *p, const void *data);

/* Scalar event function; the event happens where it crosses zero.  Its t
 * (and a guard's, a gradient's, an events_all hook's) is the time since the
 * phase began, where the integrator cannot see a crossing: a function can
 * tell a phase's start by it.  The rhs's t is the stride's. */
typedef double (*sm_event_fn)(double t, const double *x, const double *p, const void *data);

/* True when a crossing is a real event (e.g. "stance leg past vertical"). */
typedef bool (*sm_guard_fn)(double t, const double *x, const double *p, const void *data);

/* x_plus[n_state] from x_minus[n_state] across an impact or a relabelling.
 * An impact has no smaller step to retry, so >0 ends the stride as <0 does
 * (SM_RHS_FAILED). */
typedef int (*sm_reset_fn)(const double *x_minus, double *x_plus, const double *p, const void *data);

/* A model whose callbacks can say why they failed (a rigid-body walker's
 * singular_constraints) returns SM_CALLBACK_STATUS(s) from its rhs or reset
 * to end the stride with status s; any other negative value stays
 * SM_RHS_FAILED. */
#define SM_CALLBACK_STATUS_BASE (-1000)
#define SM_CALLBACK_STATUS(s) (SM_CALLBACK_STATUS_BASE - (int)(s))
static inline sm_status sm_callback_status(int r)
{
    const int s = SM_CALLBACK_STATUS_BASE - r;
    return s > 0 && s < (int)SM_STATUS_COUNT ? (sm_status)s : SM_RHS_FAILED;
}

/* Scalar function of the state, e.g. an energy or a step length. */
/* Kinds of motion of a 3-D walker's coordinates: in its sagittal plane,
 * sideways (lean, lateral sway: odd under the mirror y -> -y), and its
 * heading (a turn about the ground's normal). */
typedef enum { SM_MODE_SAGITTAL, SM_MODE_LATERAL, SM_MODE_HEADING, SM_MODE_COUNT } sm_mode;

typedef double (*sm_state_scalar_fn)(const double *x, const double *p, const void *data);

/* A whole stride in closed form, for models that are plain discrete maps
 * (x_out = F(x_in)): no phases are integrated.  *period may be set to the
 * map's notion of a step duration (1 if it has none).  Non-zero returns end
 * the stride with SM_RHS_FAILED, x_out left at x_in. */
typedef int (*sm_map_fn)(const double *x_in, double *x_out, double *period, const double *p,
                         const void *data);

/* Optional derivatives for the exact stride-map Jacobian (poincare.h,
 * sm_map_jacobian_exact); where a model leaves them NULL the engine uses
 * difference quotients instead.  All matrices are row-major.
 *
 * J[n_state x n_state] = df/dx at (t, x): 0, or as sm_rhs_fn. */
typedef int (*sm_jac_fn)(double t, const double *x, double *J, const double *p, const void *data);

/* grad[n_state] = dg/dx of an event function at (t, x); returns dg/dt. */
typedef double (*sm_event_grad_fn)(double t, const double *x, const double *p, const void *data,
                                   double *grad);

/* DR[n_state x n_state] = d x_plus / d x_minus of a reset: 0, or as sm_reset_fn. */
typedef int (*sm_reset_jac_fn)(const double *x_minus, double *DR, const double *p, const void *data);

typedef enum {
    SM_EVENT_TO_PHASE, /* continue in next_phase after reset */
    SM_EVENT_SECTION,  /* apply reset and end the stride on the section */
    SM_EVENT_FAIL      /* end the stride with status `failure` */
} sm_event_outcome;

typedef struct {
    const char *name;         /* "heelstrike", "fall_backward", ... */
    sm_event_fn value;        /* event where value(t,x,p) crosses 0 */
    int direction;            /* +1 rising only, -1 falling only, 0 either */
    sm_guard_fn guard;        /* NULL: every crossing counts */
    sm_event_outcome outcome;
    size_t next_phase;        /* SM_EVENT_TO_PHASE only */
    sm_reset_fn reset;        /* NULL: state unchanged */
    sm_status failure;        /* SM_EVENT_FAIL only */
    sm_event_grad_fn gradient;      /* optional: dg/dx (central differences if NULL) */
    sm_reset_jac_fn reset_jacobian; /* optional: dR/dx (central differences if NULL) */
    /* The swing foot (leg, spoke) strikes the ground here: the stride's
     * heelstrike_impulse is the momentum jump across this event's reset.
     * A model that marks none has its strike at the section event. */
    bool strike;
} sm_event;

/* Every event function of a phase at one (t, x): g[n_events], each equal to
 * what the event's own value function gives there (NaN where it cannot be
 * evaluated). */
typedef void (*sm_events_fn)(double t, const double *x, const double *p, const void *data, double *g);

typedef struct {
    const char *name;
    sm_rhs_fn rhs;
    size_t n_events;
    const sm_event *events;   /* [n_events], earlier entries win ties */
    /* Optional: the engine's root finder asks for all the phase's events at
     * once, through this when set (the events' value functions must still
     * be set, for everyone else), so that a model can share the work they
     * have in common, e.g. one forward sweep of a rigid-body tree. */
    sm_events_fn events_all;
    /* Optional: df/dx, for an exact sensitivity right-hand side J s;
     * without it the engine takes central difference quotients of rhs. */
    sm_jac_fn jac;
} sm_phase;

/* A parameter: the value is the default, [min, max] the admissible range. */
#define SM_PARAM_INTEGER 1u
/* A disturbance (include/stridemap/disturb.h): a parameter whose nominal
 * value is 0 and that stridemap's disturbance analyses change for one
 * stride only (a floor step at the next heel-strike, a push, a slope
 * change); set for every stride it acts on every stride. */
#define SM_PARAM_DISTURBANCE 2u
typedef struct {
    const char *name;
    double value;
    double min, max;
    const char *unit;
    const char *description;
    unsigned flags;
} sm_param_def;

typedef struct sm_model {
    const char *name;         /* registry key, e.g. "simplest" */
    const char *title;        /* one line */
    const char *reference;    /* literature reference */

    size_t n_state;
    const char *const *state_names;   /* [n_state] */
    size_t n_params;
    const sm_param_def *params;       /* [n_params] */

    size_t n_phases;
    const sm_phase *phases;           /* [n_phases]; none for a map model */
    size_t start_phase;               /* the phase a stride starts in */
    sm_map_fn map;                    /* set instead of phases for a plain discrete map */

    /* The Poincare section: which state components are free on it, and how
     * the others follow from them.  lift() receives x with the free
     * components set and fills the rest so that x lies on the section. */
    size_t n_free;
    const size_t *free_index;         /* [n_free] into the state */
    void (*lift)(double *x, const double *p, const void *data);

    void (*guess)(double *x, const double *p, const void *data); /* a starting full state */
    /* Optional: the name of the family a gait x (first step step_period
     * long) belongs to, for models with more than one (Garcia's long- and
     * short-period gaits); a static string. */
    const char *(*gait_family)(const double *x, double step_period, const double *p, const void *data);
    double (*time_limit)(const double *p, const void *data);     /* default stride time limit */

    /* Optional: may be NULL.  Energies are per the model's own units. */
    sm_state_scalar_fn kinetic_energy;
    sm_state_scalar_fn potential_energy;
    sm_state_scalar_fn step_length;   /* evaluated just before the section event */

    /* Optional gait measures (NULL: not reported).  Forces and momenta are in
     * the slope's frame: [0] along the slope (forward), [1] normal to it. */
    sm_state_scalar_fn foot_clearance;  /* swing-foot height above the ground */
    /* True where the swing foot may pass below the ground without it
     * counting, e.g. the mid-stance scuff of straight legs. */
    bool (*in_scuff_window)(const double *x, const double *p, const void *data);
    /* Ground reaction on the stance foot (needs the accelerations), for the
     * state x in phase `phase`. */
    void (*ground_reaction)(double t, size_t phase, const double *x, const double *p, const void *data,
                            double R[2]);
    /* Total linear momentum: its jump at heel-strike is the impulse. */
    void (*momentum)(const double *x, const double *p, const void *data, double P[2]);
    /* Total weight (mass times g), in the units the energies use per length. */
    double (*weight)(const double *p, const void *data);
    /* Optional: the friction coefficient the model's own ground contacts
     * declare (the smallest positive one, where they differ), NaN where none
     * does: the contact checks' mu unless the caller gives one. */
    double (*friction_coefficient)(const double *p, const void *data);

    /* Optional measures a model family adds to a gait (e.g. a kneed walker's
     * knee torques): n_extra values under the group name extra_group, each
     * with a key extra_names[i] and a phrase extra_labels[i] for text.
     * extra_measures() fills values[n_extra] for the gait through the
     * section state x (with ws's model and solver options) (NaN where a measure does not apply) and returns 0,
     * or the status of a stride that failed.  The engine never calls it;
     * sm_gait_extra_measures() does, for whoever reports a gait. */
    const char *extra_group;
    size_t n_extra;
    const char *const *extra_names;   /* [n_extra] */
    const char *const *extra_labels;  /* [n_extra] */
    sm_status (*extra_measures)(sm_workspace *ws, const double *p, const double *x, double *values);

    /* Optional quantities a family reports at every sample of a trajectory
     * (e.g. each contact's ground force, the centre of pressure): n_sample
     * values named sample_names[i] for the state x in phase `phase`, NaN
     * where one does not apply (the force of a contact the phase does not
     * hold).  simulate writes them as columns after the state.  Returns 0,
     * or non-zero when the state cannot be evaluated (the values are NaN). */
    size_t n_sample;
    const char *const *sample_names;  /* [n_sample] */
    int (*sample)(double t, size_t phase, const double *x, const double *p, const void *data, double *values);

    /* Optional: a quantity the flow conserves (e.g. the total energy of a
     * lossless walker).  Its level sets make the gaits a family, so Newton
     * adds the equation invariant(x) = p[invariant_param], and the multiplier
     * that is 1 along the family is reported but not judged. */
    sm_state_scalar_fn invariant;
    size_t invariant_param;

    /* Optional: the gaits form a one-parameter family that no conserved
     * quantity labels (a 3-D wheel's or walker's heading on a slope), so
     * dP - I is singular along it.  Newton adds the condition
     * family_condition(x) = 0 on the section state, which picks one member
     * (src/family.c), and the multiplier that is 1 along the family is
     * reported but not judged. */
    sm_state_scalar_fn family_condition;

    /* Optional: the kind of motion of each free coordinate, free_mode[n_free]
     * (sm_mode), by which a multiplier's eigenvector names its mode
     * (sm_gait_modes); NULL where there is no such split (planar walkers). */
    const int *free_mode;

    /* Optional: where to look for gaits without a guess, a box of the free
     * coordinates lo[n_free], hi[n_free] (stridemap search). */
    void (*search_box)(const double *p, const void *data, double *lo, double *hi);

    /* Optional cross-parameter check; fills why and returns false if bad. */
    bool (*check_params)(const double *p, const void *data, char *why, size_t why_len);

    const void *data;                 /* handed to every callback */

    /* Optional: frees a model that owns memory (one built from a file);
     * sm_registry_close calls it, so the registry needs to know no model
     * family.  NULL for a static model.  m is invalid afterwards. */
    void (*release)(const struct sm_model *m);

    /* A closed-loop walker (a controller driving fast-decaying outputs):
     * stiff equations, for which a program should pick BDF unless told
     * otherwise (sm_solver_options.method). */
    bool stiff;

    /* Optional: a sampled-data controller (zero-order hold).  The stride's
     * clock starts at 0 on the section; at every t = k clock_period(p),
     * k >= 1, before the stride ends, the engine stops the integration
     * exactly there (a stop time, not a root) and replaces the state by
     * clock_reset's (the held torques recomputed from the state), in the
     * phase it is in, then goes on in the same phase.  An event function
     * that reads the held values may jump there: one that the reset takes
     * from strictly one side of zero to the other or onto zero, in its
     * direction and with its guard holding, counts at the tick as a root
     * would (the state it sees is the one after the reset).  The tick's
     * Jacobian, for the sensitivities, is by central differences, and an
     * event it sets off is a time-triggered switch (S+ = DR S-).  NULL, or
     * a period <= 0: no clock. */
    double (*clock_period)(const double *p, const void *data);
    int (*clock_reset)(size_t phase, const double *x_minus, double *x_plus, const double *p, const void *data);
} sm_model;

/* Index of the named parameter, or -1. */
int sm_model_param_index(const sm_model *m, const char *name);

/* Index of the named state component, or -1. */
int sm_model_state_index(const sm_model *m, const char *name);

/* p[n_params] = the model's defaults. */
void sm_model_default_params(const sm_model *m, double *p);

/* Checks one value against its parameter's range and kind; why gets a line. */
sm_status sm_model_check_param(const sm_model *m, size_t i, double v, char *why, size_t why_len);

/* Checks every value and the model's cross-parameter rules. */
sm_status sm_model_check_params(const sm_model *m, const double *p, char *why, size_t why_len);

/* Checks that a model descriptor is self-consistent (sizes, indices). */
sm_status sm_model_validate(const sm_model *m, char *why, size_t why_len);

/* z[n_free] = the free coordinates of the state x[n_state]. */
void sm_model_free(const sm_model *m, const double *x, double *z);

/* x[n_state] = the section state with free coordinates z[n_free]: the
 * other components from the model's lift. */
void sm_model_lift(const sm_model *m, const double *p, const double *z, double *x);

/* Full section state from any state: keeps the free components, lifts. */
void sm_model_to_section(const sm_model *m, const double *p, const double *x, double *x_section);

#endif
