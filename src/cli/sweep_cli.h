/* The sweep's pieces of the stridemap program: sidecars, merging, MPI. */
#ifndef STRIDEMAP_SWEEP_CLI_H
#define STRIDEMAP_SWEEP_CLI_H

#include <jansson.h>
#include <stdbool.h>

#include "cli.h"

/* The run's JSON sidecar: command line, model, parameters, grid, options,
 * version, host, SLURM ids, and "signature" (what must match to resume). */
json_t *sweep_sidecar(const cli_run *run, const sm_sweep_config *c, int argc, char **argv, const char *tag,
                      bool resume, json_t *extra);

/* The options every sweep-like command takes (sweep_run.c). */
typedef struct {
    const char *out;
    long jobs;
    long shard_k, shard_n;
    bool resume, progress, quiet;
    long stop_after;
    long segment;
} sweep_run_opts;

enum {
    OPT_SWEEP_JOBS = 2100,
    OPT_SWEEP_SHARD,
    OPT_SWEEP_RESUME,
    OPT_SWEEP_PROGRESS,
    OPT_SWEEP_QUIET,
    OPT_SWEEP_STOP_AFTER,
    OPT_SWEEP_SEGMENT
};
#define SWEEP_RUN_OPTIONS                                                                                  \
    {"out", required_argument, 0, OPT_OUT}, {"jobs", required_argument, 0, OPT_SWEEP_JOBS},               \
        {"shard", required_argument, 0, OPT_SWEEP_SHARD}, {"resume", no_argument, 0, OPT_SWEEP_RESUME},   \
        {"progress", no_argument, 0, OPT_SWEEP_PROGRESS}, {"quiet", no_argument, 0, OPT_SWEEP_QUIET},     \
        {"stop-after", required_argument, 0, OPT_SWEEP_STOP_AFTER},                                      \
        {"segment", required_argument, 0, OPT_SWEEP_SEGMENT}, {"guess", required_argument, 0, OPT_GUESS}

/* Takes one of SWEEP_RUN_OPTIONS (and --guess): 0 if taken, 1 if not one of them, or an exit code. */
int sweep_run_option(cli_run *run, int opt, const char *arg, sweep_run_opts *o);

/* c's defaults for run's model, with run's parameters, solver and Newton
 * options and --guess. */
void sweep_config_from_run(const cli_run *run, sm_sweep_config *c);

/* argv with -q spelled --quiet (the shared parser knows only "hs:"); free it, not its strings. */
char **sweep_quiet_args(int argc, char **argv);

/* How a command names its points in progress lines and its sidecar. */
typedef struct {
    const char *cmd;        /* "sweep" */
    const char *points;     /* "points" */
    const char *failed;     /* "without a gait" */
    const char *failed_key; /* the sidecar's count of them: "rows_without_gait" */
    int (*after_merge)(const cli_run *run, const char *dir); /* NULL, or what to do once merged */
} sweep_words;

/* Runs the sweep c into o->out: the parts, the sidecar (with extra's keys,
 * which join the signature), progress, signals, MPI, the merge.  Returns
 * the exit code. */
int sweep_run(cli_run *run, sm_sweep_config *c, const sweep_run_opts *o, const sweep_words *w, json_t *extra,
              int argc, char **argv);

/* Refuses a DIR whose part-*.json describe another sweep.  0 or an exit code. */
int sweep_check_sidecars(const cli_run *run, const char *dir, json_t *sidecar);

/* Writes DIR/part-TAG.json (through a temporary file).  0 or an exit code;
 * the reason is printed, or put in why when why is not NULL. */
int sweep_write_sidecar(const cli_run *run, const char *dir, const char *tag, json_t *sidecar, char *why,
                        size_t why_len);

/* Joins DIR/part-*.csv into DIR/sweep.csv and the sidecars into
 * DIR/sweep.json.  0 when every point has its row, 1 when some are missing,
 * or an exit code. */
int cli_merge_dir(const cli_run *run, const char *dir, bool quiet);

/* A merged basin (cmd_basin.c): its measures from csv_path into doc's
 * "measures" (doc: the merged sidecar, with "grid" and "gait_plane"); 0 or
 * an exit code. */
int basin_measures_json(const cli_run *run, const char *csv_path, json_t *doc);

/* The gait and the measures of a merged basin's sidecar, as text. */
void basin_print(FILE *f, const json_t *doc);

/* MPI, when built with MPI and run under mpirun; otherwise one rank, every
 * function does nothing, and a launch as several ranks is refused. */
typedef struct {
    int rank, size;
    long next_line;      /* rank 0: the next line to hand out */
    int closed;          /* rank 0: ranks told there is no more work */
    bool exhausted;      /* no more lines for this rank */
    bool initialised;
    long *remote;        /* rank 0: rows written and rows without a gait of each rank, as last reported */
} sweep_mpi;

int sweep_mpi_begin(const cli_run *run, sweep_mpi *mpi, bool sharded);
/* The number of ranks an MPI launcher (mpirun, mpiexec, srun) started, from
 * its environment (at least rank + 1 when only the rank is known); 1 when
 * not started by one. */
long sweep_launcher_ranks(void);
/* Refuses (EX_UNAVAILABLE, one line) a run that a launcher started as one
 * of ranks > 1 processes which cannot talk to each other. */
int sweep_refuse_lone_ranks(const cli_run *run, long ranks, const char *why);
/* Called by the main thread while the workers run: hands out and fetches lines. */
void sweep_mpi_pump(sweep_mpi *mpi, sm_sweep *s, const sm_sweep_config *c, bool stopping);
/* After the workers: rank 0 serves the others until all are done; every rank
 * gets the worst exit code of all.  Returns it. */
int sweep_mpi_finish(sweep_mpi *mpi, int rc, const sm_sweep_stats *own);
/* Rank 0: adds the other ranks' rows and failures, as far as it knows, to st. */
void sweep_mpi_totals(const sweep_mpi *mpi, sm_sweep_stats *st);
/* Adds the ranks and the MPI library's version to a sidecar's run object. */
void sweep_mpi_describe(const sweep_mpi *mpi, json_t *run_object);
void sweep_mpi_end(sweep_mpi *mpi);

#endif
