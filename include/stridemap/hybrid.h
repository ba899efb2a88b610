/* Phase-by-phase integration of a hybrid walker on SUNDIALS CVODE.
 *
 * This is the only module that includes SUNDIALS.  A workspace owns every
 * mutable thing a computation needs (CVODE memory, vectors, solvers, counters,
 * the last integrator message), so one workspace per thread is all the
 * thread-safety the library needs.  CVODE is created once per workspace and
 * re-initialised (CVodeReInit) at the start of each phase. */
#ifndef STRIDEMAP_HYBRID_H
#define STRIDEMAP_HYBRID_H

#include <stddef.h>

#include "stridemap/model.h"
#include "stridemap/status.h"

/* CVODE's Adams-Moulton or BDF, or one of ARKODE's explicit Runge-Kutta
 * pairs (ERKStep, adaptive): ERK8 is Fehlberg's 8(7) pair (13 stages,
 * ARKODE_FEHLBERG_13_7_8), ERK5 Dormand and Prince's 5(4) pair (7 stages).
 * The ERK methods have no order to cap (max_order must be 0).  (Verner's
 * 6(5) pair, ARKODE_VERNER_8_5_6, is not offered: ERKStep in SUNDIALS 6.4.1
 * integrates with it at order 3, bench/README.md.) */
typedef enum { SM_METHOD_ADAMS, SM_METHOD_BDF, SM_METHOD_ERK8, SM_METHOD_ERK5 } sm_method;

/* "adams", "bdf", "erk8", "erk5"; NULL for a value outside sm_method. */
const char *sm_method_name(sm_method m);

typedef struct {
    double rtol;          /* relative tolerance (default 1e-12) */
    double atol;          /* absolute tolerance (default 1e-12) */
    sm_method method;     /* Adams-Moulton (default), BDF or an explicit Runge-Kutta pair */
    double max_step;      /* largest internal step; 0 means no limit */
    double t_max;         /* stride time limit; 0 means the model's own */
    long max_num_steps;   /* internal steps allowed per phase */
    int max_order;        /* largest method order; 0 means CVODE's (12 Adams, 5 BDF) */
} sm_solver_options;

/* Fills o with the defaults above. */
void sm_solver_options_default(sm_solver_options *o);

/* Checks the options; why gets a line naming the bad one. */
sm_status sm_solver_options_check(const sm_solver_options *o, char *why, size_t why_len);

typedef struct sm_workspace sm_workspace;

/* Cumulative work counters of a workspace. */
typedef struct {
    long rhs_evals;   /* right-hand-side evaluations */
    long steps;       /* accepted internal steps */
    long root_evals;  /* event-function evaluations (all events of a phase at once) */
    long flows;       /* phases integrated */
} sm_counters;

/* Something that wants to see the trajectory: `sample` every dt time units
 * inside phases, `event` at every event that counts (called by the stride).
 * A non-zero return from either stops the computation with SM_IO_ERROR.
 * each_step: `sample` also at every internal step of CVODE (not ARKODE's),
 * in time order with the grid: what the integrator resolves, a grid can
 * step over (a contact force's dip of a fraction of a millisecond after an
 * impact, between samples a millisecond apart). */
typedef struct {
    double dt;
    bool each_step;
    int (*sample)(void *ctx, double t, size_t phase, const double *x);
    int (*event)(void *ctx, double t, size_t phase, const char *name, const double *x_minus,
                 const double *x_plus);
    void *ctx;
} sm_observer;

/* Creates a workspace for model m (which must outlive it). */
sm_status sm_workspace_create(const sm_model *m, const sm_solver_options *o, sm_workspace **out);

/* As sm_workspace_create; on failure why says what to change, naming the
 * model's or sm_solver_options' field and its value (never a CLI flag). */
sm_status sm_workspace_create_ex(const sm_model *m, const sm_solver_options *o, sm_workspace **out, char *why,
                                 size_t why_len);

/* Frees a workspace; NULL is fine. */
void sm_workspace_free(sm_workspace *ws);

const sm_model *sm_workspace_model(const sm_workspace *ws);
const sm_solver_options *sm_workspace_options(const sm_workspace *ws);

/* The integrator's own words about its last failure ("" if none). */
const char *sm_workspace_detail(const sm_workspace *ws);

void sm_workspace_counters(const sm_workspace *ws, sm_counters *c);
void sm_workspace_reset_counters(sm_workspace *ws);

/* Integrates `phase` from (*t, x[n_state]) until an event of that phase
 * crosses zero in its direction and passes its guard, or until t_end.  A
 * crossing is found by CVODE's root finder, or at a tick of the model's
 * clock (model.h, clock_reset) where the reset makes the function jump
 * across zero: then *t is the tick and x the state after its reset.
 * On SM_OK, *event is the event's index in the phase and (*t, x) is the
 * state at the crossing.  At t_end it returns SM_NO_HEELSTRIKE with (*t, x)
 * there.  Integrator and model failures come back as their statuses. */
sm_status sm_hybrid_flow(sm_workspace *ws, const double *p, size_t phase, double *t, double *x,
                         double t_end, const sm_observer *obs, size_t *event);

/* sm_hybrid_flow that also carries the sensitivities S = dx(t)/dx(t0)·S0
 * (CVODES forward sensitivities, in the error test like the state):
 * S[ncols x n_state] holds ncols columns of n_state (column j at
 * S + j n_state), S0 on entry, S at the event (or where the flow ended) on
 * return.  The sensitivity right-hand side is the phase's jac times S, or
 * central difference quotients of its rhs along each column.  No observer:
 * this is for Jacobians, not trajectories.  SM_NO_EXACT_JACOBIAN where the
 * workspace's method cannot carry sensitivities. */
sm_status sm_hybrid_flow_sens(sm_workspace *ws, const double *p, size_t phase, double *t, double *x, double *S,
                              size_t ncols, double t_end, size_t *event);

/* The SUNDIALS this process runs: its version string (SUNDIALSGetVersion)
 * and the file the loader took CVODE from ("" if it cannot say), so a
 * program can report which build it really uses. */
void sm_sundials_runtime(char *version, size_t version_len, char *path, size_t path_len);

#endif
