/* stridemap basin: the basin of attraction of a gait on a plane of the
 * section, run as a sweep whose points are cells (basin.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep_cli.h"

static const char help[] =
    "usage: stridemap basin MODEL --plane NAME=LO:HI:N,NAME=LO:HI:N --out DIR\n"
    "                       [--set NAME=VALUE]... [--fix NAME=VALUE]... [--max-strides K]\n"
    "                       [--return-tol T] [--no-cell-map] [--guess v1,v2,...] [--period N]\n"
    "                       [--jobs N] [--shard K/N] [--segment S] [--resume] [--progress | -q]\n"
    "                       [solver and Newton options of 'fixed']\n"
    "\n"
    "Finds the gait (as 'fixed' does: --guess, --period pick it), then walks strides\n"
    "from the centre of every cell of a grid on the Poincare section until the state\n"
    "comes within --return-tol of a point of the gait's orbit (converged), the walker\n"
    "falls (the status says which way), the solver fails, or K strides are done\n"
    "(undecided).  NAME are free coordinates of the section ('stridemap params MODEL'\n"
    "lists them); the others are held at the gait's values, or at --fix.  Runs as a\n"
    "sweep: threads, shards, MPI ranks, --resume and 'stridemap merge' as there, with\n"
    "the same rows however it is run.\n"
    "\n"
    "  --plane A=LO:HI:N,B=LO:HI:N  the grid: N cells along each free coordinate (N >= 2),\n"
    "                    cell centres from LO to HI, A varying fastest (a grid line is\n"
    "                    one unit of work)\n"
    "  --fix NAME=VALUE  a free coordinate off the plane (default: the gait's value)\n"
    "  --max-strides K   strides before a cell is undecided (default 100)\n"
    "  --return-tol T    converged when max |z - z*| <= T over the free coordinates, z* a\n"
    "                    point of the gait's orbit (default 1e-6)\n"
    "  --no-cell-map     walk every cell to its end; by default a walk that enters a cell\n"
    "                    an earlier walk of its own grid line passed through takes that\n"
    "                    walk's outcome (and adds the strides it had left): faster, and\n"
    "                    off only where a state's fate differs from another's in the same\n"
    "                    cell, near the basin's edge.  Used only when the plane spans\n"
    "                    every free coordinate.\n"
    "  --out DIR, --jobs, --shard, --segment, --resume, --progress, -q   as in 'sweep'\n"
    "  --guess, --period, --two-step, --rtol, --atol, --method, --max-order, --tol,\n"
    "  --max-iter, --fd-step, --central, --newton-update, --jacobian, --tmax, --max-step\n"
    "                    as in 'fixed' (the solver options apply to every stride)\n"
    "\n"
    "Writes DIR/part-TAG.csv (a row per cell as it is done), DIR/part-TAG.json, and\n"
    "at the end DIR/basin.csv (sorted by index) and DIR/basin.json with the gait and\n"
    "the measures, which are also printed: the fraction of the plane that converges,\n"
    "and along each axis through the gait the distance to the nearest cell that\n"
    "does not (below and above; inf: none up to the plane's edge).\n"
    "Columns: index, A, B, outcome (converged, fell, undecided, failed), status\n"
    "(the stride's: fell_backward, fell_forward, ...; ok otherwise), strides (to\n"
    "converge, before the fall, or K), mapped_from (the cell whose walk it met,\n"
    "-1: none), orbit_point (of a period-N orbit), distance (from the orbit at the\n"
    "last state), wall_s.  Plot: scripts/plot_basin.py DIR/basin.csv basin.png\n"
    "\n"
    "exit status: 0 every cell done, 1 no gait found, 64 bad usage, 65 bad values,\n"
    "73 DIR not writable or holding another run, 74 write error, 130/143 interrupted\n"
    "(as 'sweep').\n"
    "\n"
    "example:\n"
    "  stridemap basin simplest --set gamma=0.009 --plane theta=0.15:0.25:41,theta_dot=-0.3:-0.1:41 \\\n"
    "      --out basin-simplest\n";

enum { OPT_PLANE = 2000, OPT_FIX, OPT_MAX_STRIDES, OPT_RETURN_TOL, OPT_NO_CELL_MAP };

#define BASIN_MAX_FIX 64

typedef struct {
    const char *plane;
    const char *fix[BASIN_MAX_FIX];
    size_t n_fix;
    long max_strides;
    double return_tol;
    bool no_cell_map;
    sweep_run_opts run;
} basin_opts;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    basin_opts *o = ctx;
    switch (opt) {
    case OPT_PLANE:
        if (o->plane) return cli_fail(run, EX_USAGE, "one --plane A=LO:HI:N,B=LO:HI:N, not two");
        o->plane = arg;
        return 0;
    case OPT_FIX:
        if (o->n_fix == BASIN_MAX_FIX) return cli_fail(run, EX_USAGE, "at most %d --fix", BASIN_MAX_FIX);
        o->fix[o->n_fix++] = arg;
        return 0;
    case OPT_MAX_STRIDES:
        if (!cli_parse_long(arg, 1, 100000000L, &o->max_strides))
            return cli_fail(run, EX_DATAERR, "--max-strides takes a whole number from 1 to 100000000, not '%s'", arg);
        return 0;
    case OPT_RETURN_TOL:
        if (!cli_parse_double(arg, &o->return_tol) || !(o->return_tol > 0) || !isfinite(o->return_tol))
            return cli_fail(run, EX_DATAERR, "--return-tol takes a positive number, not '%s'", arg);
        return 0;
    case OPT_NO_CELL_MAP:
        o->no_cell_map = true;
        return 0;
    default:
        return sweep_run_option(run, opt, arg, &o->run);
    }
}

/* The gait, the basin's settings and the plane's gait point: the sidecar's
 * keys that join the sweep's signature. */
static json_t *basin_json(const sm_model *m, const sm_basin_config *bc, const sm_basin *b, const sm_fixed_result *r)
{
    json_t *fix = json_object(), *x = json_array(), *free_names = json_array();
    for (size_t k = 0; k < m->n_free; k++) {
        const char *name = m->state_names[m->free_index[k]];
        json_array_append_new(free_names, json_string(name));
        if (!isnan(bc->fix[k])) json_object_set_new(fix, name, cli_json_number(bc->fix[k]));
    }
    for (size_t i = 0; i < m->n_state; i++) json_array_append_new(x, cli_json_number(r->x[i]));
    double v[2];
    sm_basin_gait_plane(b, v);
    json_t *gait = json_pack("{s:i, s:o, s:o, s:o, s:b}", "period", r->period, "fixed_point", x, "eigenvalues",
                             cli_eigenvalues_json(m->n_free, r->eig_re, r->eig_im), "max_abs_eigenvalue",
                             cli_json_number(r->max_abs_eig), "stable", r->stable);
    return json_pack("{s:s, s:{s:I, s:o, s:b, s:b, s:o, s:o}, s:o, s:[o, o]}", "kind", "basin", "basin",
                     "max_strides", (json_int_t)bc->max_strides, "return_tol", cli_json_number(bc->tol), "cell_map",
                     bc->cell_map, "cell_map_used", sm_basin_cell_map_used(b), "fix", fix, "free_coordinates",
                     free_names, "gait", gait, "gait_plane", cli_json_number(v[0]), cli_json_number(v[1]));
}

int basin_measures_json(const cli_run *run, const char *csv_path, json_t *doc)
{
    sm_sweep_grid plane = {0};
    json_t *grid = json_object_get(doc, "grid"), *gp = json_object_get(doc, "gait_plane");
    double gait[2] = {NAN, NAN};
    for (size_t k = 0; k < 2 && json_array_size(grid) == 2; k++) {
        json_t *a = json_array_get(grid, k);
        plane.axis[k].lo = json_number_value(json_object_get(a, "lo"));
        plane.axis[k].hi = json_number_value(json_object_get(a, "hi"));
        plane.axis[k].n = (long)json_integer_value(json_object_get(a, "n"));
        gait[k] = json_number_value(json_array_get(gp, k));
        plane.n_axes++;
    }
    if (plane.n_axes != 2 || plane.axis[0].n < 2 || plane.axis[1].n < 2)
        return cli_fail(run, EX_DATAERR, "%s: the sidecar's grid is not a plane of two axes", csv_path);
    sm_basin_measures ms;
    char why[1024];
    sm_status st = sm_basin_measure_file(csv_path, &plane, gait, &ms, why, sizeof why);
    if (st != SM_OK) return cli_fail(run, cli_exit_code(st, EX_NOINPUT), "%s", why);
    json_t *names = json_array();
    for (size_t k = 0; k < 2; k++)
        json_array_append_new(names, json_string(json_string_value(json_object_get(json_array_get(grid, k), "name"))));
    /* JSON has no infinity: a reach past the plane's edge is the string "beyond_plane". */
    json_t *below = json_array(), *above = json_array();
    for (size_t k = 0; k < 2; k++) {
        json_array_append_new(below, isinf(ms.reach_below[k]) ? json_string("beyond_plane")
                                                              : cli_json_number(ms.reach_below[k]));
        json_array_append_new(above, isinf(ms.reach_above[k]) ? json_string("beyond_plane")
                                                              : cli_json_number(ms.reach_above[k]));
    }
    json_object_set_new(doc, "measures",
                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:b, s:I, s:o, s:o, s:o}", "cells",
                                  (json_int_t)ms.cells, "converged", (json_int_t)ms.converged, "fell",
                                  (json_int_t)ms.fell, "undecided", (json_int_t)ms.undecided, "failed",
                                  (json_int_t)ms.failed, "area_fraction", cli_json_number(ms.area_fraction),
                                  "gait_inside", ms.gait_inside, "gait_cell", (json_int_t)ms.gait_cell, "axes", names,
                                  "reach_below", below, "reach_above", above));
    return 0;
}

static void print_reach(FILE *f, const json_t *v)
{
    if (json_is_string(v))
        fputs("past the edge", f);
    else if (json_is_number(v))
        fprintf(f, "%.6g", json_number_value(v));
    else
        fputs("-", f);
}

void basin_print(FILE *f, const json_t *doc)
{
    const json_t *ms = json_object_get(doc, "measures"), *gait = json_object_get(doc, "gait");
    const json_t *grid = json_object_get(doc, "grid");
    fprintf(f, "basin        %s, plane %s x %s, %lld x %lld cells\n", json_string_value(json_object_get(doc, "model")),
            json_string_value(json_object_get(json_array_get(grid, 0), "name")),
            json_string_value(json_object_get(json_array_get(grid, 1), "name")),
            (long long)json_integer_value(json_object_get(json_array_get(grid, 0), "n")),
            (long long)json_integer_value(json_object_get(json_array_get(grid, 1), "n")));
    const json_t *gp = json_object_get(doc, "gait_plane");
    fprintf(f, "gait         %.12g, %.12g on the plane (period %lld, max |eigenvalue| %.9g, %s)\n",
            json_number_value(json_array_get(gp, 0)), json_number_value(json_array_get(gp, 1)),
            (long long)json_integer_value(json_object_get(gait, "period")),
            json_number_value(json_object_get(gait, "max_abs_eigenvalue")),
            json_is_true(json_object_get(gait, "stable")) ? "stable" : "unstable");
    if (!ms) return;
    const long long cells = json_integer_value(json_object_get(ms, "cells"));
    const long long conv = json_integer_value(json_object_get(ms, "converged"));
    fprintf(f, "cells        %lld: %lld converged, %lld fell, %lld undecided, %lld failed\n", cells, conv,
            (long long)json_integer_value(json_object_get(ms, "fell")),
            (long long)json_integer_value(json_object_get(ms, "undecided")),
            (long long)json_integer_value(json_object_get(ms, "failed")));
    fprintf(f, "area         %.6g of the plane converges\n", json_number_value(json_object_get(ms, "area_fraction")));
    if (!json_is_true(json_object_get(ms, "gait_inside"))) {
        fputs("reach        the gait is not on the plane\n", f);
        return;
    }
    fputs("reach        from the gait to the nearest cell that does not converge:", f);
    for (size_t k = 0; k < 2; k++) {
        fprintf(f, "%s %s ", k ? ";" : "", json_string_value(json_array_get(json_object_get(ms, "axes"), k)));
        print_reach(f, json_array_get(json_object_get(ms, "reach_below"), k));
        fputs(" below, ", f);
        print_reach(f, json_array_get(json_object_get(ms, "reach_above"), k));
        fputs(" above", f);
    }
    fputc('\n', f);
}

static int after_merge(const cli_run *run, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/basin.json", dir);
    json_t *doc = json_load_file(path, 0, NULL);
    if (!doc) return cli_fail(run, EX_NOINPUT, "cannot read '%s'", path);
    basin_print(stdout, doc);
    json_decref(doc);
    return fflush(stdout) == 0 ? 0 : cli_fail(run, EX_IOERR, "could not write the measures");
}

int cmd_basin(int argc, char **argv)
{
    char **args = sweep_quiet_args(argc, argv);
    if (!args) return EX_OSERR;
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "basin");
    basin_opts o = {.max_strides = SM_BASIN_DEFAULT_MAX_STRIDES,
                    .return_tol = SM_BASIN_DEFAULT_TOL,
                    .run = {.jobs = 0, .shard_k = 0, .shard_n = 1}};
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"plane", required_argument, 0, OPT_PLANE},
                                         {"fix", required_argument, 0, OPT_FIX},
                                         {"max-strides", required_argument, 0, OPT_MAX_STRIDES},
                                         {"return-tol", required_argument, 0, OPT_RETURN_TOL},
                                         {"no-cell-map", no_argument, 0, OPT_NO_CELL_MAP},
                                         SWEEP_RUN_OPTIONS,
                                         CLI_NEWTON_OPTIONS,
                                         {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, args, opts, help, own_option, &o, false);
    free(args);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;

    sm_basin_config bc;
    sm_basin_config_default(&bc, m);
    memcpy(bc.params, run.params, sizeof bc.params);
    bc.max_strides = o.max_strides;
    bc.tol = o.return_tol;
    bc.cell_map = !o.no_cell_map;
    if (!o.plane) return cli_fail(&run, EX_USAGE, "which plane? give --plane A=LO:HI:N,B=LO:HI:N");
    const char *comma = strchr(o.plane, ',');
    if (!comma || strchr(comma + 1, ','))
        return cli_fail(&run, EX_USAGE, "--plane takes two axes A=LO:HI:N,B=LO:HI:N, not '%s'", o.plane);
    char first[512], why[1024];
    snprintf(first, sizeof first, "%.*s", (int)(comma - o.plane), o.plane);
    const char *specs[2] = {first, comma + 1};
    for (size_t k = 0; k < 2; k++) {
        sm_sweep_axis a;
        sm_status st = sm_basin_axis_parse(m, specs[k], &a, why, sizeof why);
        if (st != SM_OK) return cli_fail(&run, st == SM_UNKNOWN_PARAM ? EX_USAGE : EX_DATAERR, "%s", why);
        bc.plane.axis[bc.plane.n_axes++] = a;
    }
    if (bc.plane.axis[0].param == bc.plane.axis[1].param)
        return cli_fail(&run, EX_USAGE, "--plane names '%s' twice; give two different free coordinates",
                        bc.plane.axis[0].name);
    for (size_t i = 0; i < o.n_fix; i++) {
        sm_status st = sm_basin_fix_parse(&bc, o.fix[i], why, sizeof why);
        if (st != SM_OK) return cli_fail(&run, st == SM_UNKNOWN_PARAM ? EX_USAGE : EX_DATAERR, "%s", why);
    }
    if (!o.run.out) return cli_fail(&run, EX_USAGE, "where to? give --out DIR");

    /* The gait first, as 'fixed' finds it. */
    if (!run.have_x0) m->guess(run.x0, run.params, m->data);
    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &run.solver, &ws);
    if (st != SM_OK) return cli_fail(&run, EX_SOFTWARE, "cannot set up the integrator: %s", sm_strerror(st));
    sm_fixed_result *r = malloc(sizeof *r);
    if (!r) {
        sm_workspace_free(ws);
        return EX_OSERR;
    }
    sm_fixed_point(ws, run.params, run.x0, &run.newton, r);
    if (!r->converged) {
        sm_workspace_free(ws);
        rc = cli_fail(&run, CLI_EXIT_NO_GAIT, "no gait found, so no basin: %s%s%s (try --guess or --period)",
                      sm_strerror(r->status), r->stride_status != SM_OK ? "; last failed stride: " : "",
                      r->stride_status != SM_OK ? sm_status_name(r->stride_status) : "");
        free(r);
        return rc;
    }
    sm_basin *b = NULL;
    st = sm_basin_create(&bc, &r->gait, ws, &b, why, sizeof why);
    sm_workspace_free(ws);
    if (st != SM_OK) {
        free(r);
        return cli_fail(&run, cli_exit_code(st, EX_IOERR), "%s", why);
    }

    sm_sweep_config c;
    sweep_config_from_run(&run, &c);
    c.grid = bc.plane;
    c.task = sm_basin_task(b);
    json_t *extra = basin_json(m, &bc, b, r);
    free(r);
    static const sweep_words words = {"basin", "cells", "not converged", "rows_not_converged", after_merge};
    rc = sweep_run(&run, &c, &o.run, &words, extra, argc, argv);
    json_decref(extra);
    sm_basin_free(b);
    return rc;
}
