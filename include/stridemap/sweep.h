/* Parameter sweeps: the gait and its stability at every point of a grid.
 *
 * A grid has up to SM_SWEEP_MAX_AXES axes NAME=LO:HI:N (N evenly spaced
 * values from LO to HI).  Points are numbered with the first axis fastest:
 * index = i0 + n0 * (i1 + n1 * (i2 + ...)).  A "line" is the n0 points that
 * share i1, i2, ...; line l holds the indices l*n0 ... l*n0 + n0 - 1.
 *
 * Seeding (deterministic, independent of threads, shards and ranks): the
 * points with i0 = 0 form the "spine", solved in index order, each from its
 * neighbour before it along the second axis (at i1 = 0, along the next axis
 * that moved; if that neighbour did not converge, from its own seed); every
 * other point is solved from the last converged point before it on its own
 * line (its spine point first).  With no converged predecessor, or if
 * Newton fails from it, the model's own guess (or the configured one) is
 * used.  Lines are independent once their spine point is known, so they are
 * the unit of parallel work.  With config.segment = S, each line is cut into
 * segments of S points, each seeded like a line from its own spine (the
 * points i0 = k S: along the other axes as above, and the first of them
 * from the previous segment spine's first point), so that a grid with few
 * lines still gives many workers something to do.
 *
 * Output: DIR/part-TAG.csv, one CSV row per point, appended with one write()
 * per row in whatever order points finish; header names are quoted as
 * RFC 4180 asks when they hold a comma, a quote or a line break.  A point whose row is in any
 * part-*.csv of DIR is not computed again (config.resume).  sm_sweep_merge joins
 * the parts into one table sorted by index. */
#ifndef STRIDEMAP_SWEEP_H
#define STRIDEMAP_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "stridemap/fixedpoint.h"
#include "stridemap/hybrid.h"
#include "stridemap/model.h"

#define SM_SWEEP_MAX_AXES 8

typedef struct {
    char name[64];  /* the model parameter swept */
    size_t param;   /* its index in the model's parameter table */
    double lo, hi;  /* lo <= hi */
    long n;         /* >= 1; n == 1 needs lo == hi */
} sm_sweep_axis;

typedef struct {
    size_t n_axes;
    sm_sweep_axis axis[SM_SWEEP_MAX_AXES];
} sm_sweep_grid;

/* Parses "NAME=LO:HI:N" for model m; why gets one line on failure
 * (SM_UNKNOWN_PARAM for an unknown name, SM_BAD_OPTION otherwise). */
sm_status sm_sweep_axis_parse(const sm_model *m, const char *spec, sm_sweep_axis *a, char *why,
                              size_t why_len);

/* Appends an axis; refuses a parameter swept twice or too many axes. */
sm_status sm_sweep_grid_add(sm_sweep_grid *g, const sm_sweep_axis *a, char *why, size_t why_len);

/* Number of points (product of the n), and of lines (points / n0). */
long sm_sweep_grid_points(const sm_sweep_grid *g);
long sm_sweep_grid_lines(const sm_sweep_grid *g);

/* The i-th value of an axis: lo + (hi - lo) i / (n - 1). */
double sm_sweep_axis_value(const sm_sweep_axis *a, long i);

/* values[n_axes] at point index. */
void sm_sweep_grid_values(const sm_sweep_grid *g, long index, double *values);

/* What a row says about its point, coarsely (for maps and counts). */
typedef enum {
    SM_OUTCOME_STABLE,        /* converged, every |eigenvalue| < 1 */
    SM_OUTCOME_UNSTABLE,      /* converged, some |eigenvalue| >= 1 */
    SM_OUTCOME_FELL,          /* no gait: the last stride tried ended by the walker (a status of
                                 kind SM_KIND_WALKER: fell, scuffed, never struck, ...) */
    SM_OUTCOME_NOT_CONVERGED, /* no gait for another reason */
    SM_OUTCOME_NO_STABILITY,  /* converged, eigenvalues could not be computed */
    SM_OUTCOME_DEGENERATE     /* a fixed point that is no gait (a step of zero length or time) */
} sm_sweep_outcome;

const char *sm_sweep_outcome_name(sm_sweep_outcome o);

typedef enum { SM_SEED_GUESS, SM_SEED_NEIGHBOUR, SM_SEED_GUESS_RETRY } sm_sweep_seed;

/* One computed point. */
typedef struct {
    long index;
    double values[SM_SWEEP_MAX_AXES];
    sm_fixed_result r;
    sm_sweep_seed seed;
    double wall;      /* seconds spent on this point (the only column that varies between runs) */
} sm_sweep_point;

sm_sweep_outcome sm_sweep_point_outcome(const sm_sweep_point *pt);

/* The CSV header line (with '\n') for model m and grid g into buf; returns
 * its length, or 0 if it does not fit. */
size_t sm_sweep_csv_header(const sm_model *m, const sm_sweep_grid *g, char *buf, size_t len);

/* One CSV row (with '\n') into buf; returns its length, or 0 if it does not fit. */
size_t sm_sweep_csv_row(const sm_model *m, const sm_sweep_grid *g, const sm_sweep_point *pt, char *buf,
                        size_t len);

/* What a sweep computes at a point.  Without one (sm_sweep_config.task
 * NULL) it is the gait and its stability at the point's parameters, seeded
 * from its neighbours as above; a task puts its own computation and row in
 * its place (a basin cell: basin.h) and keeps the rest of the machinery:
 * threads, shards, MPI units, resume, merge.  A task's point may use what
 * the points before it in its own unit of work decided (computed by the
 * same worker just before, or read back from DIR when resuming), never
 * another unit's, so that its rows do not depend on how the sweep is run.
 * The axes of a task's grid are its own (axis.param is the task's index,
 * not a model parameter's).  point() runs on several worker threads at
 * once, each with its own workspace. */
typedef struct {
    void *ctx;
    /* The CSV header line with its '\n' into buf: its length, 0 if it does not fit. */
    size_t (*header)(void *ctx, char *buf, size_t len);
    /* The task's settings as signature lines "field\tvalue\n": their length, 0 if they do not fit. */
    size_t (*signature)(void *ctx, char *buf, size_t len);
    /* A complete row found in DIR (without its '\n'), before the workers start: its index in
     * *index; false if it is not a row of this task. */
    bool (*load_row)(void *ctx, const char *line, size_t len, long *index);
    /* Computes point idx of the unit that starts at unit_first and writes its row (with '\n')
     * into buf: its length, 0 if it does not fit; *failed counts it as a point without a result. */
    size_t (*point)(void *ctx, sm_workspace *ws, long idx, long unit_first, char *buf, size_t len, bool *failed);
} sm_sweep_task;

/* Everything a sweep needs. */
typedef struct {
    const sm_model *model;
    double params[SM_MAX_PARAMS];  /* the fixed values; swept ones are overwritten per point */
    sm_sweep_grid grid;
    sm_solver_options solver;
    sm_newton_options newton;
    bool have_guess;               /* start points without a converged neighbour from guess, */
    double guess[SM_MAX_STATE];    /* a full state, instead of the model's own guess */
    int jobs;                      /* worker threads (>= 1) */
    long shard_k, shard_n;         /* this process owns lines l with l % shard_n == shard_k */
    long segment;                  /* points per unit of work along the first axis (0: whole lines) */
    bool external_lines;           /* units come from sm_sweep_push_unit (MPI), not the shard rule */
    long stop_after;               /* testing aid: stop after this many new rows (0: never) */
    volatile sig_atomic_t *stop;   /* non-zero: finish the current points and stop (may be NULL) */
    const sm_sweep_task *task;     /* NULL: the gait at every point; else what the task computes */
} sm_sweep_config;

/* Fills defaults: one job, one shard, default solver and Newton options. */
void sm_sweep_config_default(sm_sweep_config *c, const sm_model *m);

typedef struct sm_sweep sm_sweep;

/* Counts for a progress line. */
typedef struct {
    long total;      /* points in the grid */
    long owned;      /* points this process is responsible for (total for MPI) */
    long loaded;     /* of those, rows already present in DIR */
    long written;    /* rows written by this run */
    long failed;     /* of those, rows without a gait */
    long spine;      /* spine points solved so far (seeds, written with their line) */
    bool finished;   /* every worker has stopped */
    bool stopped;    /* stopped early (signal, stop_after or an error) */
} sm_sweep_stats;

/* Prepares a sweep into dir: creates dir if missing, proves it writable
 * (a probe write with fsync, and room for about a megabyte), opens
 * dir/part-TAG.csv for appending and takes an exclusive flock on it (held
 * until sm_sweep_free; a part file another process holds is an error, so
 * two runs never write one file), reads every row already in
 * dir/part-*.csv (a torn last line of the own part file is cut off).
 * Without resume, an existing non-empty own part file is an error.  The
 * sweep's signature (model, fixed parameters, grid, guess, solver and
 * Newton options) goes to dir/part-TAG.sig; a dir/part-*.sig of other
 * settings is SM_BAD_OPTION, naming the sm_sweep_config field that differs,
 * so rows of two different computations never mix.  Nothing is computed
 * yet. */
sm_status sm_sweep_open(const sm_sweep_config *c, const char *dir, const char *tag, bool resume,
                        sm_sweep **out, char *why, size_t why_len);

/* Starts the worker threads (returns at once). */
sm_status sm_sweep_start(sm_sweep *s, char *why, size_t why_len);

/* Units of work: unit u is segment u % n_seg of line u / n_seg, where a
 * line is cut into segments of config.segment points (one segment per line
 * by default).  Their number: */
long sm_sweep_units(const sm_sweep *s);

/* With external_lines: hands unit u to the workers; close when there are no more. */
void sm_sweep_push_unit(sm_sweep *s, long u);
void sm_sweep_close_units(sm_sweep *s);
/* Units waiting for a worker (for prefetching in the MPI driver). */
long sm_sweep_queued_units(sm_sweep *s);

void sm_sweep_stats_get(sm_sweep *s, sm_sweep_stats *st);

/* Waits for the workers; SM_OK, or the first write error (why says). */
sm_status sm_sweep_wait(sm_sweep *s, char *why, size_t why_len);

/* True if this process owns line l (shard rule). */
bool sm_sweep_owns_line(const sm_sweep_config *c, long l);

/* True if every point of unit u already has a row in dir (after open). */
bool sm_sweep_unit_done(const sm_sweep *s, long u);

/* Frees the sweep and closes its file; NULL is fine. */
void sm_sweep_free(sm_sweep *s);

/* Joins dir/part-*.csv into out_path (written to a temporary file, then
 * renamed): one header, every complete row once, sorted by index.  *rows
 * gets the number of rows; *missing the points of 0..total-1 without one
 * (when total > 0). */
sm_status sm_sweep_merge(const char *dir, const char *out_path, long total, long *rows, long *missing,
                         char *why, size_t why_len);

/* DIR/part-*SUFFIX (e.g. ".csv", ".json"), full paths in sorted order, or
 * NULL if DIR cannot be read; free with sm_sweep_free_list. */
char **sm_sweep_list_parts(const char *dir, const char *suffix, size_t *n);
void sm_sweep_free_list(char **names, size_t n);

#endif
