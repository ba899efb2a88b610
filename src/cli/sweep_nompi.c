/* The MPI hooks of 'stridemap sweep' in a build without MPI: one rank. */
#include "sweep_cli.h"

int sweep_mpi_begin(const cli_run *run, sweep_mpi *mpi, bool sharded)
{
    *mpi = (sweep_mpi){.rank = 0, .size = 1};
    /* Under mpirun each copy would take itself for the only process: the
     * same part file for all (refused by its lock, or with --resume every
     * point computed by every rank).  With --shard each has its own share
     * and part file (srun -n N of shards, where the cluster's srun sets PMI
     * variables by default). */
    const long ranks = sweep_launcher_ranks();
    if (ranks > 1 && !sharded) return sweep_refuse_lone_ranks(run, ranks, "this stridemap was built without MPI");
    return 0;
}

void sweep_mpi_pump(sweep_mpi *mpi, sm_sweep *s, const sm_sweep_config *c, bool stopping)
{
    (void)mpi, (void)s, (void)c, (void)stopping;
}

int sweep_mpi_finish(sweep_mpi *mpi, int rc, const sm_sweep_stats *own)
{
    (void)mpi, (void)own;
    return rc;
}

void sweep_mpi_end(sweep_mpi *mpi) { (void)mpi; }

void sweep_mpi_totals(const sweep_mpi *mpi, sm_sweep_stats *st) { (void)mpi, (void)st; }

void sweep_mpi_describe(const sweep_mpi *mpi, json_t *run_object) { (void)mpi, (void)run_object; }
