/* OpenMPI by dlopen (mpi_dl.h). */
#include "mpi_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dl_library.h"

#define HINT "install the Debian package libopenmpi3 (libopenmpi-dev brings it)"

/* Everything but MPI_Get_library_version, which is looked up first to tell
 * OpenMPI from another MPI before its own symbol names are asked for. */
static const sm_dl_symbol symbols[] = {
#define SYM(field, name) {#name, offsetof(mpi_dl, field)}
    SYM(Init_thread, MPI_Init_thread), SYM(Finalize, MPI_Finalize),   SYM(Comm_rank, MPI_Comm_rank),
    SYM(Comm_size, MPI_Comm_size),     SYM(Send, MPI_Send),           SYM(Recv, MPI_Recv),
    SYM(Iprobe, MPI_Iprobe),           SYM(Allreduce, MPI_Allreduce), SYM(Reduce, MPI_Reduce),
    /* OpenMPI's predefined handles are these objects' addresses (mpi.h's
     * OMPI_PREDEFINED_GLOBAL) */
    SYM(comm_world, ompi_mpi_comm_world), SYM(type_int, ompi_mpi_int), SYM(type_long, ompi_mpi_long),
    SYM(op_max, ompi_mpi_op_max),        SYM(op_sum, ompi_mpi_op_sum),
#undef SYM
};

_Static_assert(sizeof(MPI_Comm) == sizeof(void *) && sizeof(MPI_Datatype) == sizeof(void *) &&
                   sizeof(MPI_Op) == sizeof(void *),
               "an MPI whose handles are not pointers (MPICH's are int): mpi_dl reads OpenMPI's ABI");

/* RTLD_GLOBAL: OpenMPI's components (openmpi3/mca_*.so, which it opens
 * itself) are not linked against libmpi and find its symbols in the global
 * scope. */
static const sm_dl_library library = {
    "MPI", MPI_DL_ENV, MPI_DL_SONAME, "libmpi.so",
    HINT, "set " MPI_DL_ENV " to the path of OpenMPI's " MPI_DL_SONAME ", or unset it", RTLD_NOW | RTLD_GLOBAL};

static const sm_dl_symbol version_symbol[] = {{"MPI_Get_library_version", offsetof(mpi_dl, Get_library_version)}};

static bool fail(mpi_dl *m)
{
    dlclose(m->handle);
    memset(m, 0, sizeof *m);
    return false;
}

bool mpi_dl_open(mpi_dl *m, char *why, size_t why_len)
{
    memset(m, 0, sizeof *m);
    const char *file, *hint;
    if (!(m->handle = sm_dl_open(&library, &file, &hint, why, why_len))) return false;
    if (!sm_dl_resolve(m->handle, version_symbol, 1, m, library.what, file, hint, why, why_len)) return fail(m);
    /* MPI-3 allows this call before MPI_Init. */
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    m->Get_library_version(version, &len);
    version[sizeof version - 1] = '\0';
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    if (strncmp(version, "Open MPI", 8) != 0) {
        if (why && why_len)
            snprintf(why, why_len, "cannot use MPI from %s: it is \"%.80s\", and this build speaks OpenMPI's ABI; %s",
                     file, version, hint);
        return fail(m);
    }
    /* the handles are pointers in OpenMPI */
    if (!sm_dl_resolve(m->handle, symbols, sizeof symbols / sizeof symbols[0], m, library.what, file, hint, why,
                       why_len))
        return fail(m);
    return true;
}
