/* One status list for the whole library.
 *
 * Every public function reports what happened through an sm_status; the
 * library never prints and never aborts.  The X-macro keeps the enum, the
 * stable machine name (used in JSON and CSV), the kind (sm_kind)
 * and the one-line message in one place so they cannot drift apart. */
#ifndef STRIDEMAP_STATUS_H
#define STRIDEMAP_STATUS_H

#define SM_STATUS_LIST(X) \
    X(SM_OK, "ok", SM_KIND_OK, \
      "success") \
    X(SM_FELL_BACKWARD, "fell_backward", SM_KIND_WALKER, \
      "the walker fell backwards: the stance leg never passed vertical") \
    X(SM_FELL_FORWARD, "fell_forward", SM_KIND_WALKER, \
      "the walker fell forwards: the hip reached the ground before heel-strike") \
    X(SM_NO_HEELSTRIKE, "no_heelstrike", SM_KIND_WALKER, \
      "no heel-strike within the stride time limit (raise sm_solver_options.t_max or change the start)") \
    X(SM_EVENT_ORDER, "event_order", SM_KIND_WALKER, \
      "events happened in an order the model does not allow") \
    X(SM_SCUFFED, "scuffed", SM_KIND_WALKER, \
      "the swing foot came up through the ground: a scuff, not a heel-strike") \
    X(SM_NO_TOEOFF, "no_toeoff", SM_KIND_WALKER, \
      "double support never ended: the trailing leg did not leave the ground") \
    X(SM_INTEGRATOR_FAILED, "integrator_failed", SM_KIND_SOLVER, \
      "the ODE integrator failed (try looser sm_solver_options.rtol/sm_solver_options.atol or sm_solver_options.method = SM_METHOD_BDF)") \
    X(SM_RHS_FAILED, "rhs_failed", SM_KIND_SOLVER, \
      "the model's equations of motion reported an error") \
    X(SM_NONFINITE, "nonfinite", SM_KIND_SOLVER, \
      "a state or derivative became NaN or infinite") \
    X(SM_NOT_CONVERGED, "not_converged", SM_KIND_SOLVER, \
      "Newton's method did not converge: no step lowered the residual, or the iterations ran out (try another starting guess x0; more sm_newton_options.max_iter only if the residual was still falling)") \
    X(SM_STALLED, "stalled", SM_KIND_SOLVER, \
      "Newton's method stalled near the integration error: the stride map is too noisy at these tolerances to bring the residual below sm_newton_options.tol (tighten sm_solver_options.rtol/sm_solver_options.atol, or use sm_newton_options.central or another sm_newton_options.fd_step)") \
    X(SM_DEGENERATE_GAIT, "degenerate_gait", SM_KIND_SOLVER, \
      "the fixed point is not a gait: its step has zero length or takes no time (standing with the legs together); try another starting guess x0") \
    X(SM_STIFF, "stiff", SM_KIND_SOLVER, \
      "the equations are stiff: Adams' fixed-point iteration keeps failing at tiny steps (use sm_solver_options.method = SM_METHOD_BDF)") \
    X(SM_SINGULAR_JACOBIAN, "singular_jacobian", SM_KIND_SOLVER, \
      "the Jacobian of P(x)-x is singular: a fold or a family of gaits is near") \
    X(SM_LAPACK_FAILED, "lapack_failed", SM_KIND_SOLVER, \
      "a LAPACK routine failed") \
    X(SM_UNKNOWN_MODEL, "unknown_model", SM_KIND_INPUT, \
      "no such model (see sm_registry_count and sm_registry_at)") \
    X(SM_UNKNOWN_PARAM, "unknown_param", SM_KIND_INPUT, \
      "no such parameter (see sm_model.params)") \
    X(SM_BAD_PARAM, "bad_param", SM_KIND_INPUT, \
      "a parameter value is not finite or is out of its range") \
    X(SM_BAD_STATE, "bad_state", SM_KIND_INPUT, \
      "a state value is not finite or has the wrong length") \
    X(SM_BAD_OPTION, "bad_option", SM_KIND_INPUT, \
      "an option value is out of range") \
    X(SM_NO_MEMORY, "no_memory", SM_KIND_OUTPUT, \
      "out of memory") \
    X(SM_IO_ERROR, "io_error", SM_KIND_OUTPUT, \
      "could not write the output") \
    X(SM_BAD_MODEL_FILE, "bad_model_file", SM_KIND_INPUT, \
      "the model file is not a valid walker (see the message)") \
    X(SM_KNEE_UNLOCKED, "knee_unlocked", SM_KIND_WALKER, \
      "the stance knee unlocked: its locking torque went negative") \
    X(SM_BAD_DATA, "bad_data", SM_KIND_INPUT, \
      "an input file holds other data than the call expects (see the message)") \
    X(SM_SINGULAR_CONSTRAINTS, "singular_constraints", SM_KIND_WALKER, \
      "the contacts of a phase are dependent (e.g. two pins on one rigid foot in a planar model: use a pin and a slide)") \
    X(SM_UNAVAILABLE, "unavailable", SM_KIND_OUTPUT, \
      "this library was built without MuJoCo, which reading MJCF and URDF files needs (install the Debian package libmujoco-dev and rebuild)") \
    X(SM_NO_EXACT_JACOBIAN, "no_exact_jacobian", SM_KIND_SOLVER, \
      "no exact stride-map Jacobian here: the integration method carries no sensitivities, or an event is met tangentially or lands exactly on zero at a sample (use finite differences)") \
    X(SM_SINGULAR_DECOUPLING, "singular_decoupling", SM_KIND_WALKER, \
      "the controller's decoupling matrix L_g L_f y is singular: its outputs cannot all be driven by its actuators here (change the outputs' rows or the actuators)") \
    X(SM_TORQUE_LIMIT, "torque_limit", SM_KIND_WALKER, \
      "a controller torque exceeded its declared limit (raise the limit, or let the controller saturate)") \
    X(SM_PHASE_NOT_MONOTONE, "phase_not_monotone", SM_KIND_WALKER, \
      "the controller's phase variable stopped moving toward the step's end: it is not monotone over the step (choose another phase variable or gait)") \
    X(SM_NOT_RETURNED, "not_returned", SM_KIND_WALKER, \
      "the walker neither fell nor came back to the gait within sm_disturb_options.max_strides strides")

/* What a status says went wrong, which decides how it is reported: the
 * walker's own motion (fell, scuffed: a result, not an error), the numerics
 * (the solver or Newton gave up), the caller's input (names, values,
 * files), or the output (memory, writing; a part left out of this build,
 * which the same input on another build would pass). */
typedef enum { SM_KIND_OK, SM_KIND_WALKER, SM_KIND_SOLVER, SM_KIND_INPUT, SM_KIND_OUTPUT } sm_kind;

typedef enum {
#define SM_STATUS_ENUM(code, name, kind, msg) code,
    SM_STATUS_LIST(SM_STATUS_ENUM)
#undef SM_STATUS_ENUM
    SM_STATUS_COUNT
} sm_status;

/* Stable snake_case name of a status, e.g. "fell_backward". */
const char *sm_status_name(sm_status s);

/* One-line human message for a status, in the library's terms (struct
 * fields such as sm_solver_options.rtol). */
const char *sm_strerror(sm_status s);

/* What kind of failure a status is (SM_KIND_INPUT for an unknown status). */
sm_kind sm_status_kind(sm_status s);

#endif
