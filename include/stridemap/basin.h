/* Basins of attraction of a gait on a plane of the Poincare section.
 *
 * The plane is a grid of two free coordinates of the section (the others
 * held at the gait's values, or at given ones); every grid point is a cell's
 * centre.  From each centre, lifted onto the section, strides are walked
 * until the state comes within tol of a point of the gait's orbit
 * (max-norm over the free coordinates: converged), a stride ends by the
 * walker's own motion (fell: the status says which way), the solver fails
 * (failed), or max_strides strides are done (undecided).  Schwab & Wisse
 * (2001) computed the simplest walker's basin this way.
 *
 * A basin runs as a sweep (sweep.h) whose point task is a cell: threads,
 * shards, MPI ranks, resume and merge are the sweep's, and so is the rule
 * that rows do not depend on how it is run.
 *
 * Cell mapping (after Hsu's simple cell mapping): the cells a walk passes
 * through on its way to converging or falling are marked with that end and
 * the strides left to it; a later walk of the same unit of work (grid line
 * or segment) that enters a marked cell stops there and takes the mark's
 * outcome, with strides = its own + the strides left.  Only the unit's own
 * walks mark, in the unit's order, and a worker that resumes a unit part-way
 * walks its finished cells again first, so the rows stay the same for any
 * number of threads, shards or ranks and across resumes.  The error it may
 * bring: a state is not the centre of its cell, so a walk that enters a cell
 * near the basin's edge may take the fate of another state in that cell,
 * and the stride count can differ by the strides between the two states.
 * It is used only when the plane spans every free coordinate (a state off a
 * plane through a larger section is in no cell). */
#ifndef STRIDEMAP_BASIN_H
#define STRIDEMAP_BASIN_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/gait.h"
#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/sweep.h"

typedef enum {
    SM_BASIN_CONVERGED, /* came within tol of the gait's orbit */
    SM_BASIN_FELL,      /* a stride ended by the walker's own motion (a status of kind walker) */
    SM_BASIN_UNDECIDED, /* neither within max_strides strides */
    SM_BASIN_FAILED     /* the solver could not go on (a status of kind solver) */
} sm_basin_outcome;

/* "converged", "fell", "undecided", "failed". */
const char *sm_basin_outcome_name(sm_basin_outcome o);

/* The default tolerance: far above the integration error at the default
 * rtol (1e-12) and below where the simplest walker's map stops being
 * linear about its gait (a 1e-6 offset decays by its multipliers to 1e-9). */
#define SM_BASIN_DEFAULT_TOL 1e-6
#define SM_BASIN_DEFAULT_MAX_STRIDES 100

typedef struct {
    const sm_model *model;
    double params[SM_MAX_PARAMS];
    sm_sweep_grid plane;        /* two axes; axis[k].param: the index into the free coordinates */
    double fix[SM_MAX_STATE];   /* [n_free] free coordinates off the plane; NaN: the gait's */
    long max_strides;           /* K >= 1 */
    double tol;                 /* > 0 */
    bool cell_map;              /* cell mapping (above); default true */
} sm_basin_config;

/* Defaults: model's parameters, no plane, nothing fixed, K and tol above, cell mapping on. */
void sm_basin_config_default(sm_basin_config *c, const sm_model *m);

/* Parses "NAME=LO:HI:N", NAME a free coordinate of the section (a state
 * name), into a plane axis (param: its index among the free coordinates). */
sm_status sm_basin_axis_parse(const sm_model *m, const char *spec, sm_sweep_axis *a, char *why, size_t why_len);

/* Parses "NAME=VALUE" for a free coordinate off the plane into c->fix. */
sm_status sm_basin_fix_parse(sm_basin_config *c, const char *spec, char *why, size_t why_len);

typedef struct sm_basin sm_basin;

/* One cell's fate. */
typedef struct {
    sm_basin_outcome outcome;
    sm_status status;  /* the stride status that ended it (SM_OK for converged and undecided) */
    long strides;      /* strides completed: to converge, before the fall, or max_strides */
    long mapped_from;  /* the cell whose walk it met by cell mapping, or -1 */
    int orbit_point;   /* converged: the point of the orbit it came to (0 .. N-1); else -1 */
    double distance;   /* max-norm distance from the nearest orbit point at the last section
                          state reached (NaN after a fall or failure) */
} sm_basin_cell;

/* A basin about gait g (a converged fixed point of P^g->period at c->params):
 * checks c (two distinct plane axes, K, tol), walks the gait's orbit with ws,
 * and keeps what the cells need.  NULL and a reason on failure. */
sm_status sm_basin_create(const sm_basin_config *c, const sm_gait *g, sm_workspace *ws, sm_basin **out, char *why,
                          size_t why_len);
void sm_basin_free(sm_basin *b);

/* The plane's cells: (axis 0 fastest, as in sweep.h). */
long sm_basin_cells(const sm_basin *b);

/* True when cell mapping is in use: asked for, and the plane spans the section. */
bool sm_basin_cell_map_used(const sm_basin *b);

/* The gait's coordinates on the plane (orbit point 0). */
void sm_basin_gait_plane(const sm_basin *b, double *v);

/* The free coordinates z[n_free] of cell idx's centre. */
void sm_basin_cell_state(const sm_basin *b, long idx, double *z);

/* Walks from the free coordinates z[n_free], without cell mapping. */
void sm_basin_walk(const sm_basin *b, sm_workspace *ws, const double *z, sm_basin_cell *out);

/* Cell idx of the unit of work that starts at unit_first: walks from its
 * centre with cell mapping (the marks of the unit's earlier walks, which ws
 * makes first if it has not: cells unit_first .. idx-1 are walked again),
 * and marks its own path for the cells after it.  The sweep task calls this;
 * a caller of its own goes through a unit's cells in order. */
void sm_basin_cell_run(sm_basin *b, sm_workspace *ws, long idx, long unit_first, sm_basin_cell *out);

/* The sweep task whose points are the cells (its grid: c->plane). */
const sm_sweep_task *sm_basin_task(sm_basin *b);

/* Measures of a finished basin. */
typedef struct {
    long cells, converged, fell, undecided, failed;
    double area_fraction;   /* converged / cells */
    bool gait_inside;       /* the gait's cell lies on the plane (else no distances) */
    long gait_cell;         /* the cell nearest the gait, or -1 */
    /* From the gait along axis k, below and above: the distance to the centre of
     * the nearest cell on the gait cell's line (the cells sharing the gait
     * cell's other index) whose centre lies at or below (above) the gait and
     * that does not converge; INFINITY when every such cell up to the plane's
     * edge converges (the basin reaches past it), NaN without the gait inside. */
    double reach_below[2], reach_above[2];
} sm_basin_measures;

/* Measures from outcome[cells] (sm_basin_outcome values, cell order) on the
 * plane, the gait at gait[2] on it. */
void sm_basin_measure(const sm_sweep_grid *plane, const unsigned char *outcome, const double *gait,
                      sm_basin_measures *m);

/* Reads the outcomes of a merged basin table (the task's CSV, every cell)
 * and measures them.  SM_IO_ERROR if it cannot be read, SM_BAD_DATA for a
 * row that is not the plane's or a cell without a row. */
sm_status sm_basin_measure_file(const char *csv_path, const sm_sweep_grid *plane, const double *gait,
                                sm_basin_measures *m, char *why, size_t why_len);

#endif
