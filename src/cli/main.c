/* stridemap: find the periodic gaits of walking models and their stability. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
    "  import FILE.xml        an MJCF or URDF body tree as a body-walker model file (MuJoCo)\n"
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
        printf("stridemap %s\n", STRIDEMAP_VERSION);
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
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "stridemap: unknown command '%s' (see 'stridemap --help')\n", cmd);
    return EX_USAGE;
}
