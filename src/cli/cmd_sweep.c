/* stridemap sweep: the gait and its stability over a grid of parameters. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep_cli.h"

static const char help[] =
    "usage: stridemap sweep MODEL --grid NAME=LO:HI:N [--grid NAME=LO:HI:N]... --out DIR\n"
    "                       [--set NAME=VALUE]... [--period N] [--two-step] [--jobs N] [--shard K/N]\n"
    "                       [--guess v1,v2,...] [--segment S] [--resume] [--progress | -q]\n"
    "                       [solver and Newton options of 'fixed']\n"
    "\n"
    "Finds the gait (a fixed point of the stride map) and its stability at every\n"
    "point of a grid of parameters.  Each point starts from the last converged\n"
    "point before it on its grid line (along the first --grid axis); the first\n"
    "point of each line from the first point of the line before.  The order does\n"
    "not depend on threads, shards or MPI ranks, so neither do the rows.\n"
    "\n"
    "  --grid NAME=LO:HI:N  sweep parameter NAME over N evenly spaced values (repeatable;\n"
    "                    the first axis varies fastest)\n"
    "  --out DIR         write DIR/part-TAG.csv (a row per point, as soon as it is done),\n"
    "                    DIR/part-TAG.json (the run), and at the end DIR/sweep.csv (all rows,\n"
    "                    sorted by index) with DIR/sweep.json\n"
    "  --set NAME=VALUE  fix a parameter that is not swept\n"
    "  --guess LIST      start points that have no converged neighbour from this full\n"
    "                    state (as in 'fixed'; default: the model's guess at each point)\n"
    "  --jobs N          worker threads (default: SLURM_CPUS_PER_TASK, else every core)\n"
    "  --segment S       cut each grid line into units of work of S points, each seeded\n"
    "                    like a line from its own first point (more units for many cores;\n"
    "                    default: whole lines)\n"
    "  --shard K/N       compute only grid lines l with l % N == K (0 <= K < N), e.g. one\n"
    "                    task of a SLURM job array; join the parts with 'stridemap merge DIR'\n"
    "  --resume          keep every row already in DIR and compute only what is missing\n"
    "                    (a torn last line is redone)\n"
    "  --progress        a progress line on stderr even when it is not a terminal\n"
    "  -q, --quiet       no progress line\n"
    "  --period, --two-step, --rtol, --atol, --method, --max-order, --tol, --max-iter, --fd-step,\n"
    "  --central, --newton-update, --jacobian, --tmax, --max-step   as in 'stridemap fixed'\n"
    "\n"
    "Columns: index, the swept parameters, outcome (stable, unstable, fell,\n"
    "not_converged, no_stability, degenerate), status, stride_status, converged, stable,\n"
    "max_abs_eig, eigK_re, eigK_im, iterations, residual, stride_evals, the gait\n"
    "measures, x_STATE (the fixed point), seed (neighbour, guess, guess_retry), wall_s,\n"
    "trivial_eig (K of the eigK that is 1 by a conservation law, e.g. slip's energy,\n"
    "or along a family the model picks a member of, e.g. rimless3d's heading, and so\n"
    "left out of max_abs_eig and stable; 0 for none).\n"
    "\n"
    "SIGINT or SIGTERM stops after the points in progress; every finished row is\n"
    "kept.  Run the same command with --resume to finish.\n"
    "\n"
    "exit status: 0 every point done, 64 bad usage, 65 bad values, 73 DIR not\n"
    "writable, holds another sweep, or another run is writing the same part file\n"
    "now, 69 started by mpirun/srun as one of several ranks but built without MPI\n"
    "(rebuild with MPI) or without a loadable OpenMPI (STRIDEMAP_MPI_LIB names its\n"
    "libmpi.so.40), 74 write error, 130/143 interrupted.\n"
    "\n"
    "examples:\n"
    "  stridemap sweep simplest --grid gamma=0.001:0.015:50 --out sweep-gamma\n"
    "  stridemap sweep compass --set m=1 --set a=1 --grid b=0.1:2:50 --grid mh=0.1:10:50 \\\n"
    "      --jobs 8 --out compass-map\n";

enum { OPT_GRID = 2000 };

typedef struct {
    const char *grids[SM_SWEEP_MAX_AXES + 1];
    size_t n_grids;
    sweep_run_opts run;
} sweep_opts;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    sweep_opts *o = ctx;
    if (opt == OPT_GRID) {
        if (o->n_grids == SM_SWEEP_MAX_AXES)
            return cli_fail(run, EX_USAGE, "at most %d --grid axes", SM_SWEEP_MAX_AXES);
        o->grids[o->n_grids++] = arg;
        return 0;
    }
    return sweep_run_option(run, opt, arg, &o->run);
}

int cmd_sweep(int argc, char **argv)
{
    char **args = sweep_quiet_args(argc, argv);
    if (!args) return EX_OSERR;

    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "sweep");
    sweep_opts o = {.run = {.jobs = 0, .shard_k = 0, .shard_n = 1}};
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"grid", required_argument, 0, OPT_GRID},
                                         SWEEP_RUN_OPTIONS,
                                         CLI_NEWTON_OPTIONS,
                                         {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, args, opts, help, own_option, &o, false);
    if (rc) {
        free(args);
        return rc == CLI_DONE ? 0 : rc;
    }
    free(args);
    const sm_model *m = run.model;

    sm_sweep_config c;
    sweep_config_from_run(&run, &c);
    if (o.n_grids == 0)
        return cli_fail(&run, EX_USAGE, "which parameters? give at least one --grid NAME=LO:HI:N");
    char why[1024];
    for (size_t i = 0; i < o.n_grids; i++) {
        sm_sweep_axis a;
        sm_status st = sm_sweep_axis_parse(m, o.grids[i], &a, why, sizeof why);
        if (st == SM_OK) st = sm_sweep_grid_add(&c.grid, &a, why, sizeof why);
        if (st != SM_OK) return cli_fail(&run, cli_exit_code(st, EX_IOERR), "%s", why);
        for (size_t k = 0; k < run.n_sets; k++) {
            size_t len = strlen(a.name);
            if (strncmp(run.sets[k], a.name, len) == 0 && run.sets[k][len] == '=')
                return cli_fail(&run, EX_USAGE, "'%s' is both fixed (--set) and swept (--grid); choose one",
                                a.name);
        }
    }
    static const sweep_words words = {"sweep", "points", "without a gait", "rows_without_gait", NULL};
    return sweep_run(&run, &c, &o.run, &words, NULL, argc, argv);
}
