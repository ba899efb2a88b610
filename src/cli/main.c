/* stridemap: find the periodic gaits of walking models and their stability. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stridemap/hybrid.h"

/* Weak: a build whose LAPACK is not OpenBLAS has none of these. */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern char *openblas_get_config(void) __attribute__((weak));

/* One OpenBLAS thread: stridemap gives it 2x2 to 6x6 eigenvalue problems,
 * which a pool of one thread per core cannot speed up, and `sweep` runs its
 * own threads.  OpenBLAS sizes its pool from OPENBLAS_NUM_THREADS in its own
 * constructor.  Linked statically into this program (meson.build) that
 * constructor has the default priority, so this one (101) runs first and
 * sets the variable before OpenBLAS reads it; a shared OpenBLAS has started
 * before any constructor here, and is told instead.  A value the user set
 * is kept. */
__attribute__((constructor(101))) static void one_blas_thread(void)
{
    if (getenv("OPENBLAS_NUM_THREADS")) return;
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
#ifndef SM_CLI_STATIC_BLAS
    /* Not before a static OpenBLAS's own start: either call would start it,
     * with a pool sized before it reads the variable. */
    if (openblas_get_num_threads && openblas_set_num_threads && openblas_get_num_threads() > 1)
        openblas_set_num_threads(1);
#endif
}

/* The libraries a run really uses, as the loader and the libraries say, next
 * to what the build asked for: a slow run can be told from a slow build. */
static void print_version(void)
{
    char version[64], path[4096];
    sm_sundials_runtime(version, sizeof version, path, sizeof path);
    printf("stridemap %s\n", STRIDEMAP_VERSION);
    printf("sundials  %s %s: %s\n", version, SM_SUNDIALS_BUILD, path[0] ? path : "(the loader cannot say which file)");
    if (openblas_get_num_threads) {
        const int n = openblas_get_num_threads();
        printf("openblas  %d thread%s, %s\n", n, n == 1 ? "" : "s", openblas_get_config ? openblas_get_config() : "");
    } else {
        printf("openblas  not linked (LAPACKE from another LAPACK)\n");
    }
}

static const char usage[] =
    "usage: stridemap COMMAND [options]\n"
    "\n"
    "Periodic gaits of walking models by Poincare maps (McGeer's method).\n"
    "\n"
    "commands:\n"
    "  models                 list the walkers\n"
    "  params MODEL           list a walker's parameters with defaults, ranges and units\n"
    "  simulate MODEL         integrate steps and write the trajectory as CSV\n"
    "  fixed MODEL            find a gait (fixed point of the stride map) and its stability\n"
    "  continue MODEL         follow a gait as a parameter changes: folds, period doublings\n"
    "  orbit MODEL            the orbit diagram: iterate the stride map over a parameter range\n"
    "  search MODEL           find every gait in a box of starting states, no guess needed\n"
    "  sweep MODEL            gaits and stability over a grid of parameters (threads, shards, MPI)\n"
    "  merge DIR              join the parts of a sweep into DIR/sweep.csv\n"
    "  basin MODEL            a gait's basin of attraction on a plane of the section (as a sweep)\n"
    "  import FILE.xml        an MJCF or URDF body tree as a body-walker model file (MuJoCo)\n"
    "  inverse MODEL DATA.csv joint moments and ground forces from a motion (inverse dynamics)\n"
    "  disturb MODEL          the largest one-step disturbance (floor step, push, slope) a gait survives\n"
    "  --version              this version, and the SUNDIALS and OpenBLAS it runs with\n"
    "\n"
    "Each command takes --help.  Example:\n"
    "  stridemap fixed simplest --set gamma=0.009 --json\n"
    "\n"
    "exit status: 0 success, 1 no gait found or the walker fell, 64 bad usage,\n"
    "65 bad data (NaN, out of range, malformed state), 73/74 output file errors.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EX_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        print_version();
        return 0;
    }
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {
        {"models", cmd_models},
        {"params", cmd_params},
        {"simulate", cmd_simulate},
        {"fixed", cmd_fixed},
        {"continue", cmd_continue},
        {"orbit", cmd_orbit},
        {"search", cmd_search},
        {"sweep", cmd_sweep},
        {"merge", cmd_merge},
        {"import", cmd_import},
        {"inverse", cmd_inverse},
        {"basin", cmd_basin},
        {"disturb", cmd_disturb},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "stridemap: unknown command '%s' (see 'stridemap --help')\n", cmd);
    return EX_USAGE;
}
