/* The sweep's pieces of the stridemap program: sidecars, merging, MPI. */
#ifndef STRIDEMAP_SWEEP_CLI_H
#define STRIDEMAP_SWEEP_CLI_H

#include <jansson.h>
#include <stdbool.h>

#include "cli.h"

/* The run's JSON sidecar: command line, model, parameters, grid, options,
 * version, host, SLURM ids, and "signature" (what must match to resume). */
json_t *sweep_sidecar(const cli_run *run, const sm_sweep_config *c, int argc, char **argv, const char *tag,
                      bool resume);

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
