/* OpenMPI reached at run time (dlopen), not linked: only a sweep started by
 * mpirun or srun needs it, and linking libmpi made every start of the
 * program map and relocate it and the six libraries under it (1.3 ms of a
 * 4.9 ms 'stridemap fixed', bench/README.md).  mpi.h is still included, for
 * the prototypes, MPI_Status and the integer constants.
 *
 * This ties the build to OpenMPI's ABI: there MPI_COMM_WORLD, MPI_LONG,
 * MPI_SUM ... are addresses of global objects in libmpi (MPI_COMM_WORLD is
 * &ompi_mpi_comm_world), so they are looked up with dlsym like the
 * functions.  MPICH and its derivatives use integer handles instead and
 * would need another table; mpi_dl_open refuses any library whose
 * MPI_Get_library_version does not say Open MPI. */
#ifndef STRIDEMAP_MPI_DL_H
#define STRIDEMAP_MPI_DL_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

/* The functions the sweep calls, typed by mpi.h's own declarations, and the
 * predefined handles it uses. */
typedef struct {
    void *handle;
    __typeof__(&MPI_Get_library_version) Get_library_version;
    __typeof__(&MPI_Init_thread) Init_thread;
    __typeof__(&MPI_Finalize) Finalize;
    __typeof__(&MPI_Comm_rank) Comm_rank;
    __typeof__(&MPI_Comm_size) Comm_size;
    __typeof__(&MPI_Send) Send;
    __typeof__(&MPI_Recv) Recv;
    __typeof__(&MPI_Iprobe) Iprobe;
    __typeof__(&MPI_Allreduce) Allreduce;
    __typeof__(&MPI_Reduce) Reduce;
    MPI_Comm comm_world;
    MPI_Datatype type_int, type_long;
    MPI_Op op_max, op_sum;
} mpi_dl;

/* The file opened: $STRIDEMAP_MPI_LIB if set (nothing else is tried then),
 * else the soname of Debian's OpenMPI 4 (libopenmpi3), else libmpi.so. */
#define MPI_DL_ENV "STRIDEMAP_MPI_LIB"
#define MPI_DL_SONAME "libmpi.so.40"

/* Opens OpenMPI and finds every function and handle; false (nothing left
 * open) with why on one line: the loader's message and what to install or
 * set.  Once open it stays loaded to the end of the process: MPI cannot be
 * initialised twice in one process, so there is nothing to close it for. */
bool mpi_dl_open(mpi_dl *m, char *why, size_t why_len);

#endif
