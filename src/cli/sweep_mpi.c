/* 'stridemap sweep' across MPI ranks (built when MPI is found, or with -Dmpi=enabled).
 *
 * Dynamic load balancing by whole grid lines: rank 0 hands out the next line
 * that still has missing points to whichever rank asks, its own worker
 * threads included; a point near a fall can cost many times a plain one, so
 * no static split would be even.  Every rank runs its own worker threads
 * (--jobs) and writes its own DIR/part-rank-R-of-N.csv; rank 0 merges them at
 * the end.  Only the main thread of each rank calls MPI (MPI_THREAD_FUNNELED):
 * it keeps one line queued ahead of the workers so that they never wait for
 * a message, and piggybacks its row count on each request for rank 0's
 * progress line.  Every rank solves the spine (the first point of each line)
 * itself, so a line's rows do not depend on which rank gets it.
 *
 * libmpi is opened only here, when a launcher started the program
 * (mpi_dl.h): no other run loads it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_dl.h"
#include "sweep_cli.h"

/* MPI is one per process (MPI_Init once), so its table is too. */
static mpi_dl mpi_lib;

enum { TAG_REQUEST = 1, TAG_LINE = 2 };

int sweep_mpi_begin(const cli_run *run, sweep_mpi *mpi, bool sharded)
{
    (void)sharded; /* ranks and --shard are refused together by the caller */
    *mpi = (sweep_mpi){.rank = 0, .size = 1};
    /* Started by mpirun/srun?  A lone process stays a plain threaded run. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK") && !getenv("PMI_SIZE"))
        return 0;
    if (!mpi_lib.handle) {
        char why[768];
        if (!mpi_dl_open(&mpi_lib, why, sizeof why)) return cli_fail(run, EX_UNAVAILABLE, "%s", why);
    }
    int provided = 0;
    if (mpi_lib.Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return cli_fail(run, EX_OSERR, "MPI_Init_thread failed");
    mpi->initialised = true;
    mpi_lib.Comm_rank(mpi_lib.comm_world, &mpi->rank);
    mpi_lib.Comm_size(mpi_lib.comm_world, &mpi->size);
    /* Another MPI's launcher (MPICH's mpiexec for an OpenMPI build) starts
     * lone singletons that would each compute every point. */
    const long ranks = sweep_launcher_ranks();
    if (mpi->size == 1 && ranks > 1) {
        sweep_mpi_end(mpi);
        return sweep_refuse_lone_ranks(run, ranks, "the MPI library sees one rank (another MPI's launcher?)");
    }
    if (mpi->rank == 0) mpi->remote = calloc(2 * (size_t)mpi->size, sizeof *mpi->remote);
    return 0;
}

/* Rank 0: the next unit of work (a line, or a segment of one) with missing
 * points, or -1. */
static long next_line(sweep_mpi *mpi, sm_sweep *s, const sm_sweep_config *c, bool stopping)
{
    (void)c;
    if (stopping || !s) return -1; /* s is NULL once rank 0's own workers are done */
    const long units = sm_sweep_units(s);
    while (mpi->next_line < units && sm_sweep_unit_done(s, mpi->next_line)) mpi->next_line++;
    return mpi->next_line < units ? mpi->next_line++ : -1;
}

/* Rank 0: answers every request waiting; blocking waits for at least one. */
static void serve(sweep_mpi *mpi, sm_sweep *s, const sm_sweep_config *c, bool stopping, bool blocking)
{
    for (;;) {
        int flag = 0;
        MPI_Status status;
        if (blocking)
            flag = 1;
        else
            mpi_lib.Iprobe(MPI_ANY_SOURCE, TAG_REQUEST, mpi_lib.comm_world, &flag, &status);
        if (!flag) return;
        long msg[3];
        mpi_lib.Recv(msg, 3, mpi_lib.type_long, blocking ? MPI_ANY_SOURCE : status.MPI_SOURCE, TAG_REQUEST,
                     mpi_lib.comm_world, &status);
        if (mpi->remote && msg[1] >= 0) {
            mpi->remote[2 * status.MPI_SOURCE] = msg[1];
            mpi->remote[2 * status.MPI_SOURCE + 1] = msg[2];
        }
        if (msg[0] == 0) { /* a request for work */
            long l = next_line(mpi, s, c, stopping);
            mpi_lib.Send(&l, 1, mpi_lib.type_long, status.MPI_SOURCE, TAG_LINE, mpi_lib.comm_world);
            if (l < 0) mpi->closed++;
        } else { /* leaving early (stopped) */
            mpi->closed++;
        }
        if (blocking) return;
    }
}

void sweep_mpi_pump(sweep_mpi *mpi, sm_sweep *s, const sm_sweep_config *c, bool stopping)
{
    sm_sweep_stats st;
    sm_sweep_stats_get(s, &st);
    if (mpi->rank == 0) {
        serve(mpi, s, c, stopping, false);
        while (!mpi->exhausted && sm_sweep_queued_units(s) == 0) {
            long l = next_line(mpi, s, c, stopping);
            if (l < 0) {
                mpi->exhausted = true;
                sm_sweep_close_units(s);
            } else {
                sm_sweep_push_unit(s, l);
            }
        }
        struct timespec nap = {0, 1000 * 1000};
        nanosleep(&nap, NULL);
        return;
    }
    if (!mpi->exhausted && stopping) {
        long msg[3] = {1, st.written, st.failed};
        mpi_lib.Send(msg, 3, mpi_lib.type_long, 0, TAG_REQUEST, mpi_lib.comm_world);
        mpi->exhausted = true;
        sm_sweep_close_units(s);
    }
    if (!mpi->exhausted && sm_sweep_queued_units(s) == 0) {
        long msg[3] = {0, st.written, st.failed}, l = -1;
        mpi_lib.Send(msg, 3, mpi_lib.type_long, 0, TAG_REQUEST, mpi_lib.comm_world);
        mpi_lib.Recv(&l, 1, mpi_lib.type_long, 0, TAG_LINE, mpi_lib.comm_world, MPI_STATUS_IGNORE);
        if (l < 0) {
            mpi->exhausted = true;
            sm_sweep_close_units(s);
        } else {
            sm_sweep_push_unit(s, l);
        }
        return;
    }
    struct timespec nap = {0, 2 * 1000 * 1000};
    nanosleep(&nap, NULL);
}

void sweep_mpi_totals(const sweep_mpi *mpi, sm_sweep_stats *st)
{
    for (int r = 1; mpi->remote && r < mpi->size; r++) {
        st->written += mpi->remote[2 * r];
        st->failed += mpi->remote[2 * r + 1];
    }
}

int sweep_mpi_finish(sweep_mpi *mpi, int rc, const sm_sweep_stats *own)
{
    if (!mpi->initialised) return rc;
    if (mpi->rank == 0) {
        while (mpi->closed < mpi->size - 1) serve(mpi, NULL, NULL, true, true);
    } else if (!mpi->exhausted) {
        long msg[3] = {1, -1, -1};
        mpi_lib.Send(msg, 3, mpi_lib.type_long, 0, TAG_REQUEST, mpi_lib.comm_world);
        mpi->exhausted = true;
    }
    int worst = rc;
    mpi_lib.Allreduce(&rc, &worst, 1, mpi_lib.type_int, mpi_lib.op_max, mpi_lib.comm_world);
    long mine[2] = {own->written, own->failed}, all[2] = {0, 0};
    mpi_lib.Reduce(mine, all, 2, mpi_lib.type_long, mpi_lib.op_sum, 0, mpi_lib.comm_world);
    if (mpi->rank == 0 && mpi->remote) { /* the final counts, for the last progress line */
        for (int r = 1; r < mpi->size; r++) mpi->remote[2 * r] = mpi->remote[2 * r + 1] = 0;
        if (mpi->size > 1) {
            mpi->remote[2] = all[0] - mine[0];
            mpi->remote[3] = all[1] - mine[1];
        }
    }
    return worst;
}

void sweep_mpi_end(sweep_mpi *mpi)
{
    if (mpi->initialised) mpi_lib.Finalize();
    mpi->initialised = false;
    free(mpi->remote);
    mpi->remote = NULL;
}

void sweep_mpi_describe(const sweep_mpi *mpi, json_t *run_object)
{
    if (!mpi->initialised) return;
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    mpi_lib.Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    json_object_set_new(run_object, "mpi", json_pack("{s:i, s:i, s:s}", "rank", mpi->rank, "ranks", mpi->size,
                                                     "library", version));
}
