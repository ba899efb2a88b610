/* One status list for the whole library.
 *
 * Every public function reports what happened through an sm_status; the
 * library never prints and never aborts.  The X-macro keeps the enum, the
 * stable machine name (used in JSON and CSV) and the one-line message in one
 * place so they cannot drift apart. */
#ifndef STRIDEMAP_STATUS_H
#define STRIDEMAP_STATUS_H

#define SM_STATUS_LIST(X)                                                              \
    X(SM_OK, "ok", "success")                                                          \
    X(SM_FELL_BACKWARD, "fell_backward",                                               \
      "the walker fell backwards: the stance leg never passed vertical")               \
    X(SM_FELL_FORWARD, "fell_forward",                                                 \
      "the walker fell forwards: the hip reached the ground before heel-strike")       \
    X(SM_NO_HEELSTRIKE, "no_heelstrike",                                               \
      "no heel-strike within the stride time limit (raise sm_solver_options.t_max or change the start)") \
    X(SM_EVENT_ORDER, "event_order", "events happened in an order the model does not allow") \
    X(SM_SCUFFED, "scuffed",                                                           \
      "the swing foot came up through the ground: a scuff, not a heel-strike")         \
    X(SM_NO_TOEOFF, "no_toeoff", "double support never ended: the trailing leg did not leave the ground") \
    X(SM_INTEGRATOR_FAILED, "integrator_failed",                                       \
      "the ODE integrator failed (try looser sm_solver_options.rtol/sm_solver_options.atol or sm_solver_options.method = SM_METHOD_BDF)")           \
    X(SM_RHS_FAILED, "rhs_failed", "the model's equations of motion reported an error") \
    X(SM_NONFINITE, "nonfinite", "a state or derivative became NaN or infinite")      \
    X(SM_NOT_CONVERGED, "not_converged",                                               \
      "Newton's method did not converge: no step lowered the residual, or the iterations ran out (try another starting guess x0; more sm_newton_options.max_iter only if the residual was still falling)") \
    X(SM_STALLED, "stalled",                                                           \
      "Newton's method stalled near the integration error: the stride map is too noisy at these tolerances to bring the residual below sm_newton_options.tol (tighten sm_solver_options.rtol/sm_solver_options.atol, or use sm_newton_options.central or another sm_newton_options.fd_step)") \
    X(SM_DEGENERATE_GAIT, "degenerate_gait",                                           \
      "the fixed point is not a gait: its step has zero length or takes no time (standing with the legs together); try another starting guess x0") \
    X(SM_STIFF, "stiff",                                                               \
      "the equations are stiff: Adams' fixed-point iteration keeps failing at tiny steps (use sm_solver_options.method = SM_METHOD_BDF)") \
    X(SM_SINGULAR_JACOBIAN, "singular_jacobian",                                       \
      "the Jacobian of P(x)-x is singular: a fold or a family of gaits is near")       \
    X(SM_LAPACK_FAILED, "lapack_failed", "a LAPACK routine failed")                     \
    X(SM_UNKNOWN_MODEL, "unknown_model", "no such model (see sm_registry_count and sm_registry_at)")     \
    X(SM_UNKNOWN_PARAM, "unknown_param", "no such parameter (see sm_model.params)") \
    X(SM_BAD_PARAM, "bad_param", "a parameter value is not finite or is out of its range") \
    X(SM_BAD_STATE, "bad_state", "a state value is not finite or has the wrong length")  \
    X(SM_BAD_OPTION, "bad_option", "an option value is out of range")                   \
    X(SM_NO_MEMORY, "no_memory", "out of memory")                                       \
    X(SM_IO_ERROR, "io_error", "could not write the output")                          \
    X(SM_BAD_MODEL_FILE, "bad_model_file", "the model file is not a valid walker (see the message)") \
    X(SM_KNEE_UNLOCKED, "knee_unlocked",                                               \
      "the stance knee unlocked: its locking torque went negative")

typedef enum {
#define SM_STATUS_ENUM(code, name, msg) code,
    SM_STATUS_LIST(SM_STATUS_ENUM)
#undef SM_STATUS_ENUM
    SM_STATUS_COUNT
} sm_status;

/* Stable snake_case name of a status, e.g. "fell_backward". */
const char *sm_status_name(sm_status s);

/* One-line human message for a status. */
const char *sm_strerror(sm_status s);

#endif
