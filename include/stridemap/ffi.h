/* A flat C interface for callers in other languages (Python's ctypes).
 *
 * The rest of the library speaks in structs (sm_model, sm_fixed_result,
 * sm_cont_point) whose layout a foreign caller would have to mirror and
 * keep in step.  Here every value crosses as an opaque handle, a scalar, a
 * name or a double array the caller owns and sizes from the handle's own
 * counts, so a binding needs no struct of the library.
 *
 * Every function that can fail returns an sm_status as int (status.h;
 * sm_status_name and sm_strerror name it); where a handle exists,
 * sm_ffi_message says what to change, naming the setting as it was given
 * (a parameter, an option name below).  A walker that falls, or Newton
 * that finds no gait, is a result with its status, not a failed call.
 * The library never prints.  A handle serves one thread at a time. */
#ifndef STRIDEMAP_FFI_H
#define STRIDEMAP_FFI_H

#include <stddef.h>

/* A model with its parameter values and solver, Newton and continuation
 * settings. */
typedef struct sm_ffi_model sm_ffi_model;
/* A fixed-point result. */
typedef struct sm_ffi_gait sm_ffi_gait;
/* Rows of doubles under named columns (trajectories, branches). */
typedef struct sm_ffi_table sm_ffi_table;
/* A parameter sweep under way. */
typedef struct sm_ffi_sweep sm_ffi_sweep;

/* ---- models */

/* The name of built-in walker i in listing order, NULL past the last
 * (model files: the directories of sm_registry_model_dir). */
const char *sm_ffi_builtin(size_t i);

/* Opens a built-in walker or a model file (registry.h: a name, NAME for
 * models/NAME.yaml, or a path), with its default parameters and the
 * library's default settings.  On failure *out is NULL and why says why. */
int sm_ffi_open(const char *name, sm_ffi_model **out, char *why, size_t why_len);
void sm_ffi_close(sm_ffi_model *h);

/* What the last failed call on h said ("" when it said nothing beyond its
 * status). */
const char *sm_ffi_message(const sm_ffi_model *h);

/* name, title, reference. */
const char *sm_ffi_model_text(const sm_ffi_model *h, const char *what);

size_t sm_ffi_n_state(const sm_ffi_model *h);
const char *sm_ffi_state_name(const sm_ffi_model *h, size_t i);
size_t sm_ffi_n_free(const sm_ffi_model *h);
/* Index into the state of free coordinate k. */
size_t sm_ffi_free_index(const sm_ffi_model *h, size_t k);
/* Per-sample measures a trajectory carries after the state (a body
 * walker's contact forces). */
size_t sm_ffi_n_sample(const sm_ffi_model *h);
const char *sm_ffi_sample_name(const sm_ffi_model *h, size_t i);
size_t sm_ffi_n_phases(const sm_ffi_model *h);
const char *sm_ffi_phase_name(const sm_ffi_model *h, size_t i);
/* Events of all phases numbered one after another, phase by phase. */
size_t sm_ffi_n_events(const sm_ffi_model *h);
const char *sm_ffi_event_name(const sm_ffi_model *h, size_t id);

/* ---- parameters */

size_t sm_ffi_n_params(const sm_ffi_model *h);
/* Parameter i: its name (NULL past the end), and where not NULL its
 * default, range, unit, meaning and whether it is a whole number. */
const char *sm_ffi_param(const sm_ffi_model *h, size_t i, double *def, double *min, double *max,
                         const char **unit, const char **description, int *integer);
/* Sets a parameter by name: SM_UNKNOWN_PARAM, or SM_BAD_PARAM for a value
 * out of its range. */
int sm_ffi_set_param(sm_ffi_model *h, const char *name, double value);
/* values[n_params]: the values in force. */
void sm_ffi_get_params(const sm_ffi_model *h, double *values);
/* Back to the model's defaults. */
void sm_ffi_reset_params(sm_ffi_model *h);
/* x[n_state]: the model's starting guess at the current parameters. */
void sm_ffi_guess(const sm_ffi_model *h, double *x);

/* ---- settings
 *
 * Numbers: rtol, atol, max_step, t_max, max_order (sm_solver_options);
 * period, tol, max_iter, fd_step, central, two_step (Coleman's two-step map:
 * the period doubled) (sm_newton_options); and for continuation: step,
 * step_min, step_max, max_points, corrector_iter, weight, locate,
 * locate_tol, switch, max_period, amplitude (sm_cont_options and
 * sm_cont_tree_options; unset steps get the stridemap program's defaults).
 * Words: method (adams, bdf, erk8, erk5; a model with a controller gets BDF
 * unless one is given), jacobian (fd, exact), newton_update (broyden, full).
 * SM_BAD_OPTION for an unknown name or word; ranges are checked when a
 * computation starts. */
int sm_ffi_set_option(sm_ffi_model *h, const char *name, double value);
int sm_ffi_set_option_text(sm_ffi_model *h, const char *name, const char *value);
/* Back to the defaults. */
void sm_ffi_reset_options(sm_ffi_model *h);

/* ---- fixed points */

/* Newton from guess[n_state] (NULL: the model's guess), then the gait's
 * Jacobian, multipliers (with the finite-difference ones beside exact
 * ones), orbit and measures, as 'stridemap fixed' computes them.  Returns
 * the result's status with *out set, or an input status (bad parameters or
 * settings) with *out NULL and the message in sm_ffi_message. */
int sm_ffi_fixed(sm_ffi_model *h, const double *guess, sm_ffi_gait **out);
void sm_ffi_gait_free(sm_ffi_gait *g);

/* Newton's status (SM_OK: converged and analysed), and the last failed
 * stride's. */
int sm_ffi_gait_status(const sm_ffi_gait *g);
int sm_ffi_gait_stride_status(const sm_ffi_gait *g);
/* N of P^N. */
int sm_ffi_gait_period(const sm_ffi_gait *g);
/* The gait family's name, or NULL. */
const char *sm_ffi_gait_family(const sm_ffi_gait *g);
/* "exact" or "finite_differences" for the Jacobian; NULL without one. */
const char *sm_ffi_gait_jacobian_method(const sm_ffi_gait *g);
/* x[n_state]: the fixed point (the last iterate if not converged). */
void sm_ffi_gait_x(const sm_ffi_gait *g, double *x);
/* J[n_free * n_free], row-major dP^N/dz; returns n_free, or 0 (J
 * untouched) when there is none. */
size_t sm_ffi_gait_jacobian(const sm_ffi_gait *g, double *J);
/* re[n_free], im[n_free]: the multipliers by decreasing modulus, the
 * Jacobian's (fd = 0) or the finite-difference cross-check's (fd = 1);
 * returns how many, 0 when there are none. */
size_t sm_ffi_gait_eigenvalues(const sm_ffi_gait *g, int fd, double *re, double *im);
/* orbit[period * n_state]: the states of the period-N gait; returns how
 * many states were filled. */
int sm_ffi_gait_orbit(const sm_ffi_gait *g, double *orbit);
/* Named numbers, i = 0, 1, ... until NULL: Newton's account (converged,
 * iterations, residual, stride_evaluations, newton_stride_evaluations,
 * minimal_period, invariant_drift, max_abs_eigenvalue, stable,
 * trivial_index) with group 0; the gait's measures (step_period,
 * step_length, ... as 'fixed --json' names them, then a model's own as
 * GROUP.NAME) with group 1.  NaN where a value is not known. */
const char *sm_ffi_gait_value(const sm_ffi_gait *g, int group, size_t i, double *value);

/* ---- tables */

size_t sm_ffi_table_rows(const sm_ffi_table *t);
size_t sm_ffi_table_cols(const sm_ffi_table *t);
const char *sm_ffi_table_column(const sm_ffi_table *t, size_t j);
/* out[rows * cols], row-major. */
void sm_ffi_table_copy(const sm_ffi_table *t, double *out);
void sm_ffi_table_free(sm_ffi_table *t);

/* ---- trajectories */

/* The words for a trajectory row's kind code: 0 start, 1 sample, 2 pre
 * (just before an event), 3 post (just after its reset), 4 fail; NULL
 * past them. */
const char *sm_ffi_row_kind(int code);

/* Walks up to `steps` steps from x0[n_state] (NULL: the model's guess),
 * sampling every dt (0: the stride time limit / 2000), as 'stridemap
 * simulate'.  *rows: columns kind, step, time, phase, event (codes: kind
 * above, phase index, event id of sm_ffi_event_name or -1), the state,
 * the per-sample measures; *steps_out: step and the gait measures of each
 * completed step.  Returns the walk's status (a fall is a result: both
 * tables are set and *done says how many steps were completed), or an
 * input status with the tables NULL. */
int sm_ffi_simulate(sm_ffi_model *h, const double *x0, long steps, double dt, sm_ffi_table **rows,
                    sm_ffi_table **steps_out, long *done);

/* ---- continuation */

/* Follows the gait through guess[n_state] (NULL: the model's guess) as
 * parameter `param` moves from `from` to `to` (NaN: its current value, and
 * its largest), with the period-doubled branches when the switch setting
 * is on, as 'stridemap continue'.  *points: the columns of its CSV with
 * type and status as codes (sm_ffi_point_type, sm_status_name); *branches:
 * branch, period, parent, parent_pd, start, stop (sm_ffi_stop_name code),
 * status, stride_status, stop_value, points, stride_evaluations.  Returns
 * the first branch's status (no gait at the start is a result too), or an
 * input status with the tables NULL. */
int sm_ffi_continue(sm_ffi_model *h, const char *param, double from, double to, const double *guess,
                    sm_ffi_table **points, sm_ffi_table **branches);
/* "", "EP", "LP", "PD", "NS", "MX" for a type code; NULL past them. */
const char *sm_ffi_point_type(int code);
/* "bound", "max_points", ... for a stop code; NULL past them. */
const char *sm_ffi_stop_name(int code);

/* ---- sweeps */

/* Starts a sweep over the grid specs[n_axes] ("NAME=LO:HI:N", the first
 * axis fastest) with the handle's parameters and settings into dir (as
 * 'stridemap sweep --out DIR', part tag "local"), from guess[n_state]
 * where no neighbour has converged (NULL: the model's guess), on `jobs`
 * threads; resume keeps the rows already in dir.  The handle must outlive
 * the sweep.  Returns SM_OK with *out set, or why not (sm_ffi_message). */
int sm_ffi_sweep_start(sm_ffi_model *h, size_t n_axes, const char *const *specs, const char *dir,
                       const double *guess, int jobs, int resume, sm_ffi_sweep **out);
/* Progress: 1 when every worker has stopped, else 0; done and total (may
 * be NULL) get the points with a row and the points in the grid. */
int sm_ffi_sweep_poll(sm_ffi_sweep *s, long *done, long *total);
/* Asks the workers to stop after the points in progress. */
void sm_ffi_sweep_stop(sm_ffi_sweep *s);
/* Waits for the workers, then, when every point has its row (*complete
 * = 1; 0 after a stop), joins the parts into dir/sweep.csv (sorted by
 * index).  Returns SM_OK or why not (a write failed: the message goes to
 * the model's sm_ffi_message).  Frees s. */
int sm_ffi_sweep_finish(sm_ffi_sweep *s, int *complete);

#endif
