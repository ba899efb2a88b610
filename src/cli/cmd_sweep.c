/* stridemap sweep: the gait and its stability over a grid of parameters,
 * or with --disturb the disturbance search at every point (disturb.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep_cli.h"

static const char help_start[] =
    "usage: stridemap sweep MODEL --grid NAME=LO:HI:N [--grid NAME=LO:HI:N]... --out DIR\n"
    "                       [--set NAME=VALUE]... [--period N] [--two-step] [--jobs N] [--shard K/N]\n"
    "                       [--guess v1,v2,...] [--segment S] [--resume] [--progress | -q]\n"
    "                       [solver and Newton options of 'fixed']\n"
    "       stridemap sweep MODEL --grid NAME=LO:HI:N... --disturb NAME --from A --to B --out DIR\n"
    "                       [--max-strides K] [--return-tol T] [--bisect-tol W] [--scan N] [...]\n"
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
    ;

/* Apart: one literal would pass the 4095 characters C requires compilers to take. */
static const char help_disturb[] =
    "With --disturb NAME --from A --to B, at every point: the gait found from the\n"
    "guess (--guess, else the model's; never from a neighbour, so a row is what\n"
    "'stridemap disturb MODEL --set ... --param NAME --from A --to B' finds at that\n"
    "point alone), then the largest disturbance NAME of each sign it survives and\n"
    "its gait sensitivity norm to NAME.  Every point is its own unit of work (so\n"
    "no --segment; --shard still splits grid lines).  --max-strides, --return-tol,\n"
    "--bisect-tol, --scan as in 'disturb'.  Columns: index, the swept parameters,\n"
    "outcome, status, max_abs_eig, stable, then for neg_ and pos_: survives, fails,\n"
    "width, failure, failure_strides, return_strides, bisections, strides (nan or\n"
    "empty where they do not apply), gsn, gsn_reason, x_STATE, wall_s.\n"
    "\n"
    ;

static const char help_end[] =
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
    "      --jobs 8 --out compass-map\n"
    "  stridemap sweep compass --grid b=0.3:0.6:7 --disturb step_down --from -0.03 --to 0.03 \\\n"
    "      --jobs 2 --out compass-step\n";

enum {
    OPT_GRID = 2000,
    OPT_DISTURB = 2200,
    OPT_D_FROM,
    OPT_D_TO,
    OPT_D_MAX_STRIDES,
    OPT_D_RETURN_TOL,
    OPT_D_BISECT_TOL,
    OPT_D_SCAN
};

typedef struct {
    const char *grids[SM_SWEEP_MAX_AXES + 1];
    size_t n_grids;
    sweep_run_opts run;
    const char *disturb;
    bool have_from, have_to, have_search_option;
    double from, to;
    sm_disturb_options d;
} sweep_opts;

/* --disturb's own options, as 'disturb' parses them. */
static int disturb_option(cli_run *run, int opt, const char *arg, sweep_opts *o)
{
    long k;
    double v;
    o->have_search_option = true;
    switch (opt) {
    case OPT_D_FROM:
    case OPT_D_TO:
        if (!cli_parse_double(arg, &v) || !isfinite(v))
            return cli_fail(run, EX_USAGE, "%s takes a number, not '%s'", opt == OPT_D_FROM ? "--from" : "--to", arg);
        if (opt == OPT_D_FROM) o->from = v, o->have_from = true;
        else o->to = v, o->have_to = true;
        return 0;
    case OPT_D_MAX_STRIDES:
        if (!cli_parse_long(arg, 1, 100000000L, &k))
            return cli_fail(run, EX_USAGE, "--max-strides takes a whole number in [1, 1e8], not '%s'", arg);
        o->d.max_strides = k;
        return 0;
    case OPT_D_SCAN:
        if (!cli_parse_long(arg, 1, 100000, &k))
            return cli_fail(run, EX_USAGE, "--scan takes a whole number in [1, 100000], not '%s'", arg);
        o->d.scan_points = (int)k;
        return 0;
    default: /* OPT_D_RETURN_TOL, OPT_D_BISECT_TOL */
        if (!cli_parse_double(arg, &v) || !(v > 0) || !isfinite(v))
            return cli_fail(run, EX_USAGE, "%s takes a positive number, not '%s'",
                            opt == OPT_D_RETURN_TOL ? "--return-tol" : "--bisect-tol", arg);
        if (opt == OPT_D_RETURN_TOL) o->d.return_tol = v;
        else o->d.bisect_tol = v;
        return 0;
    }
}

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    sweep_opts *o = ctx;
    if (opt == OPT_GRID) {
        if (o->n_grids == SM_SWEEP_MAX_AXES)
            return cli_fail(run, EX_USAGE, "at most %d --grid axes", SM_SWEEP_MAX_AXES);
        o->grids[o->n_grids++] = arg;
        return 0;
    }
    if (opt == OPT_DISTURB) {
        o->disturb = arg;
        return 0;
    }
    if (opt > OPT_DISTURB && opt <= OPT_D_SCAN) return disturb_option(run, opt, arg, o);
    return sweep_run_option(run, opt, arg, &o->run);
}

/* "a, b, c": the model's disturbances, for a message. */
static const char *disturbance_list(const sm_model *m, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m->n_params && n < len; i++)
        if (sm_param_is_disturbance(m, i)) {
            const int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", m->params[i].name);
            if (w > 0) n += (size_t)w;
        }
    return sm_disturb_count(m) ? buf : "none";
}

/* The disturbance search at every point of c's grid (sm_disturb_sweep). */
static int run_disturb(cli_run *run, sm_sweep_config *c, sweep_opts *o, int argc, char **argv)
{
    const sm_model *m = run->model;
    char list[512], why[1024];
    const int ip = sm_model_param_index(m, o->disturb);
    if (ip < 0 || !sm_param_is_disturbance(m, (size_t)ip))
        return cli_fail(run, EX_USAGE, "'%s' is not a disturbance of %s; its disturbances: %s", o->disturb, m->name,
                        disturbance_list(m, list, sizeof list));
    for (size_t k = 0; k < c->grid.n_axes; k++)
        if (c->grid.axis[k].param == (size_t)ip)
            return cli_fail(run, EX_USAGE, "the disturbance %s is searched, not swept; take it off --grid",
                            o->disturb);
    if (!o->have_from || !o->have_to) return cli_fail(run, EX_USAGE, "give the range: --from A --to B, A <= 0 <= B");
    if (!(o->from < o->to)) return cli_fail(run, EX_USAGE, "--from %g is not below --to %g; give A < B", o->from, o->to);
    if (!(o->from <= 0 && 0 <= o->to))
        return cli_fail(run, EX_USAGE, "the range [%g, %g] must hold 0 (the gait itself); give A <= 0 <= B", o->from,
                        o->to);
    if (c->newton.period != 1)
        return cli_fail(run, EX_USAGE, "--disturb searches about a period-1 gait; leave out --period and --two-step");
    if (o->run.segment)
        return cli_fail(run, EX_USAGE, "--segment does not apply to --disturb: every point is its own unit of work");
    sweep_run_opts ro = o->run;
    ro.segment = 1;
    sm_disturb_sweep *ds = NULL;
    sm_status st = sm_disturb_sweep_create(c, (size_t)ip, o->from, o->to, &o->d, &ds, why, sizeof why);
    if (st != SM_OK) return cli_fail(run, cli_exit_code(st, EX_IOERR), "%s", why);
    c->task = sm_disturb_sweep_task(ds);
    const sm_param_def *d = &m->params[ip];
    const double bisect = o->d.bisect_tol > 0 ? o->d.bisect_tol : 1e-6 * fmax(fabs(o->from), fabs(o->to));
    json_t *extra = json_pack("{s:s, s:{s:s, s:s, s:o, s:o, s:I, s:o, s:i, s:o, s:s}}", "kind", "disturb", "disturb",
                              "disturbance", d->name, "unit", d->unit, "from", cli_json_number(o->from), "to",
                              cli_json_number(o->to), "max_strides", (json_int_t)o->d.max_strides, "return_tol",
                              cli_json_number(o->d.return_tol), "scan_points", o->d.scan_points, "bisect_tol",
                              cli_json_number(bisect), "seed", "guess");
    /* A task's axes need not be parameters, so the sidecar lists every one as
     * fixed; these are, and only the others are fixed. */
    json_t *fixed = json_object();
    for (size_t i = 0; i < m->n_params; i++) {
        bool swept = false;
        for (size_t k = 0; k < c->grid.n_axes; k++) swept |= c->grid.axis[k].param == i;
        if (!swept) json_object_set_new(fixed, m->params[i].name, cli_json_number(c->params[i]));
    }
    json_object_set_new(extra, "fixed_params", fixed);
    static const sweep_words words = {"sweep", "points", "without a gait", "rows_without_gait", NULL};
    const int rc = sweep_run(run, c, &ro, &words, extra, argc, argv);
    json_decref(extra);
    sm_disturb_sweep_free(ds);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    char **args = sweep_quiet_args(argc, argv);
    if (!args) return EX_OSERR;

    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "sweep");
    sweep_opts o = {.run = {.jobs = 0, .shard_k = 0, .shard_n = 1}};
    sm_disturb_options_default(&o.d);
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"grid", required_argument, 0, OPT_GRID},
                                         {"disturb", required_argument, 0, OPT_DISTURB},
                                         {"from", required_argument, 0, OPT_D_FROM},
                                         {"to", required_argument, 0, OPT_D_TO},
                                         {"max-strides", required_argument, 0, OPT_D_MAX_STRIDES},
                                         {"return-tol", required_argument, 0, OPT_D_RETURN_TOL},
                                         {"bisect-tol", required_argument, 0, OPT_D_BISECT_TOL},
                                         {"scan", required_argument, 0, OPT_D_SCAN},
                                         SWEEP_RUN_OPTIONS,
                                         CLI_NEWTON_OPTIONS,
                                         {0, 0, 0, 0}};
    static char help[sizeof help_start + sizeof help_disturb + sizeof help_end];
    snprintf(help, sizeof help, "%s%s%s", help_start, help_disturb, help_end);
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
    if (o.disturb) return run_disturb(&run, &c, &o, argc, argv);
    if (o.have_search_option)
        return cli_fail(&run, EX_USAGE, "--from, --to, --max-strides, --return-tol, --bisect-tol and --scan "
                                        "belong to --disturb NAME; give it, or leave them out");
    static const sweep_words words = {"sweep", "points", "without a gait", "rows_without_gait", NULL};
    return sweep_run(&run, &c, &o.run, &words, NULL, argc, argv);
}
