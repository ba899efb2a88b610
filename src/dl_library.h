/* A shared library opened at run time by dlopen, and a table of its symbols
 * written into the caller's struct: what MuJoCo (src/import/mujoco_dl.c)
 * and OpenMPI (src/cli/mpi_dl.c) are loaded by, so that neither is linked
 * into the program.  Private to stridemap. */
#ifndef STRIDEMAP_DL_LIBRARY_H
#define STRIDEMAP_DL_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *what;         /* "MuJoCo", "MPI": the messages' word for it */
    const char *env;          /* the environment variable that names another file */
    const char *soname;       /* the file opened when env is not set */
    const char *fallback;     /* then this one (the -dev package's link name) */
    const char *hint;         /* what to do when the soname cannot be loaded */
    const char *hint_chosen;  /* what to do when env's file cannot be */
    int flags;                /* dlopen's */
} sm_dl_library;

/* A symbol of the library and where its address goes: offset `at` in the
 * caller's struct (POSIX: a function's address from dlsym fits a void *). */
typedef struct {
    const char *name;
    size_t at;
} sm_dl_symbol;

/* Opens lib; *file gets the name that opened and *hint the hint that goes
 * with it.  NULL on failure, with why = "cannot load WHAT: ...; HINT". */
void *sm_dl_open(const sm_dl_library *lib, const char **file, const char **hint, char *why, size_t why_len);

/* Writes every symbol's address into out; false at the first one missing,
 * with why = "cannot load WHAT from FILE: ...; HINT". */
bool sm_dl_resolve(void *handle, const sm_dl_symbol *symbols, size_t n, void *out, const char *what,
                   const char *file, const char *hint, char *why, size_t why_len);

#endif
