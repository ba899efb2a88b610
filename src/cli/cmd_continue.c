/* stridemap continue: follow a gait as one parameter moves (continuation.h). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap continue MODEL --param NAME [--from A] [--to B] [--step H]\n"
    "                          [--step-min H] [--step-max H] [--max-points K] [--period N]\n"
    "                          [--switch] [--max-period N] [--amplitude A] [--weight W]\n"
    "                          [--no-locate] [--set NAME=VALUE]... [--guess v1,v2,...]\n"
    "                          [--out FILE] [--sidecar FILE] [--tol T] [--fd-step H]\n"
    "                          [--rtol R] [--atol A] [--method M] [--tmax T]\n"
    "\n"
    "Follows a gait of MODEL (a fixed point of the stride map P^N) as the parameter\n"
    "NAME moves from A to B by pseudo-arclength continuation, round folds, until\n"
    "NAME leaves [min(A,B), max(A,B)], after K points, or where no gait can be\n"
    "found ahead, saying which and where.\n"
    "\n"
    "Along the branch it watches the multipliers (eigenvalues of dP^N/dx) and\n"
    "locates to --locate-tol in the arclength, with AUTO's labels:\n"
    "  LP  fold: through +1, the branch turning back  PD  period doubling: through -1\n"
    "  BP  through +1, the branch going on: another branch crosses it\n"
    "  NS  Neimark-Sacker: a complex pair through the unit circle\n"
    "  EP  end point                               MX  no gait (failure)\n"
    "\n"
    "  --param NAME      the parameter to continue (see 'stridemap params MODEL')\n"
    "  --from A          start value (default: its --set or default value; not both)\n"
    "  --to B            end value (default: the parameter's upper limit)\n"
    "  --step H          first arclength step (default 1e-3); the arclength is measured\n"
    "                    in (free coordinates, W x parameter)\n"
    "  --step-min H      give up when the step shrinks below H (default 1e-8)\n"
    "  --step-max H      largest step (default: 0.02 or W |B - A| / 20, the larger)\n"
    "                    (given together: --step-min <= --step <= --step-max)\n"
    "  --max-points K    points per branch (default 500)\n"
    "  --period N        continue period-N gaits, fixed points of P^N (default 1)\n"
    "  --switch          switch to the period-doubled branch at every PD\n"
    "  --max-period N    switch only while the new period is <= N (default 16)\n"
    "  --amplitude A     first period-2N point's distance from the PD (default 1e-3 x\n"
    "                    the state's size; 2.5 A and 0.4 A are tried if A fails)\n"
    "  --weight W        the parameter's weight in the arclength (default 1)\n"
    "  --no-locate       do not detect bifurcations (faster)\n"
    "  --locate-tol S    bracket in arclength at which a bifurcation counts as located\n"
    "                    (default 1e-10)\n"
    "  --guess LIST      starting state, all state variables (default: the model's guess)\n"
    "  --out FILE        CSV output (default: standard output)\n"
    "  --sidecar FILE    JSON sidecar (default: FILE with .csv replaced by .json when\n"
    "                    --out is given; none otherwise)\n"
    "  --tol T           a point is on the branch when max|P^N(x)-x| <= T (default 1e-10;\n"
    "                    a model with a conserved quantity needs T above about 10 rtol)\n"
    "  --corrector-iter K  corrector iterations per step before it is shortened (default 8;\n"
    "                    the switch to a doubled branch gets 4K)\n"
    "  --max-iter K      Newton iterations at the start point (default 30)\n"
    "  --fd-step H       corrector's difference step (default sqrt(rtol)); also the\n"
    "                    stability Jacobian's (default 0.01 rtol^(1/5), Richardson)\n"

    "  --rtol, --atol, --method, --max-order, --tmax, --max-step, --newton-update,\n"
    "  --jacobian (corrector), --two-step: as in 'fixed --help'\n"
    "\n"
    "CSV: one row per point,\n"
    "  branch,period,NAME,type,<state names...>,eig1_re,eig1_im,...,max_abs_eig,stable,\n"
    "  step_period,step_length,speed,impact_energy_loss,iterations,residual,arclength,status\n"
    "type is a label above or empty; branch 0 is the first branch, 1, 2, ... the\n"
    "switched ones (the sidecar says where each starts).  A summary goes to stderr.\n"
    "\n"
    "exit status: 0 the first branch was followed, 1 no gait at the start,\n"
    "64 bad usage, 65 bad values, 73/74 output file errors.\n"
    "\n"
    "examples:\n"
    "  stridemap continue logistic --param r --from 2.5 --to 3.6 --switch\n"
    "  stridemap continue simplest --param gamma --from 0.0001 --to 0.0195 \\\n"
    "      --guess 0.045,-0.047,0,0 --switch --max-period 4 --out branch.csv\n";

enum {
    OPT_PARAM = 2000,
    OPT_FROM,
    OPT_TO,
    OPT_STEP,
    OPT_STEP_MIN,
    OPT_STEP_MAX,
    OPT_MAX_POINTS,
    OPT_SWITCH,
    OPT_MAX_PERIOD,
    OPT_AMPLITUDE,
    OPT_WEIGHT,
    OPT_NO_LOCATE,
    OPT_LOCATE_TOL,
    OPT_SIDECAR,
    OPT_CORRECTOR_ITER,
};

typedef struct {
    const char *param, *out, *sidecar;
    bool have_from, have_to, do_switch, no_locate, have_step, have_step_min, have_step_max;
    double from, to, step, step_min, step_max, amplitude, weight, locate_tol;
    long max_points, max_period, corrector_iter;
} cont_settings;

static int positive(cli_run *run, const char *name, const char *arg, double *out)
{
    if (!cli_parse_double(arg, out) || !(*out > 0) || !isfinite(*out))
        return cli_fail(run, EX_DATAERR, "--%s takes a positive number, not '%s'", name, arg);
    return 0;
}

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    cont_settings *s = ctx;
    switch (opt) {
    case OPT_GUESS:
        run->state_option = "--guess";
        run->state_text = arg;
        return 0;
    case OPT_PARAM: s->param = arg; return 0;
    case OPT_OUT: s->out = arg; return 0;
    case OPT_SIDECAR: s->sidecar = arg; return 0;
    case OPT_FROM:
        s->have_from = true;
        if (!cli_parse_double(arg, &s->from) || !isfinite(s->from))
            return cli_fail(run, EX_DATAERR, "--from takes a number, not '%s'", arg);
        return 0;
    case OPT_TO:
        s->have_to = true;
        if (!cli_parse_double(arg, &s->to) || !isfinite(s->to))
            return cli_fail(run, EX_DATAERR, "--to takes a number, not '%s'", arg);
        return 0;
    case OPT_STEP: s->have_step = true; return positive(run, "step", arg, &s->step);
    case OPT_STEP_MIN: s->have_step_min = true; return positive(run, "step-min", arg, &s->step_min);
    case OPT_STEP_MAX: s->have_step_max = true; return positive(run, "step-max", arg, &s->step_max);
    case OPT_AMPLITUDE: return positive(run, "amplitude", arg, &s->amplitude);
    case OPT_WEIGHT: return positive(run, "weight", arg, &s->weight);
    case OPT_LOCATE_TOL: return positive(run, "locate-tol", arg, &s->locate_tol);
    case OPT_MAX_POINTS:
        if (!cli_parse_long(arg, 1, 10000000, &s->max_points))
            return cli_fail(run, EX_DATAERR, "--max-points takes a whole number from 1 to 1e7, not '%s'", arg);
        return 0;
    case OPT_MAX_PERIOD:
        if (!cli_parse_long(arg, 1, 1024, &s->max_period))
            return cli_fail(run, EX_DATAERR, "--max-period takes a whole number from 1 to 1024, not '%s'", arg);
        return 0;
    case OPT_CORRECTOR_ITER:
        if (!cli_parse_long(arg, 1, 1000, &s->corrector_iter))
            return cli_fail(run, EX_DATAERR, "--corrector-iter takes a whole number from 1 to 1000, not '%s'", arg);
        return 0;
    case OPT_SWITCH: s->do_switch = true; return 0;
    case OPT_NO_LOCATE: s->no_locate = true; return 0;
    default: return 1;
    }
}

/* Where the points and branches go. */
typedef struct {
    FILE *f;
    const sm_model *m;
    const char *param;
    json_t *branches;
} sink;

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.15g", v);
    else
        fputs(",", f);
}

static int write_point(void *ctx, int branch, const sm_cont_point *pt)
{
    sink *s = ctx;
    FILE *f = s->f;
    fprintf(f, "%d,%d,%.15g,%s", branch, pt->period, pt->mu, sm_point_label(pt->type));
    for (size_t i = 0; i < pt->n_state; i++) num(f, pt->x[i]);
    const bool have_eig = pt->status == SM_OK || pt->type != SM_POINT_MX;
    for (size_t k = 0; k < pt->n_free; k++) {
        num(f, have_eig ? pt->eig_re[k] : NAN);
        num(f, have_eig ? pt->eig_im[k] : NAN);
    }
    num(f, have_eig ? pt->max_abs_eig : NAN);
    fprintf(f, ",%d", pt->type == SM_POINT_MX ? 0 : pt->stable);
    num(f, pt->metrics.period);
    num(f, pt->metrics.step_length);
    num(f, pt->metrics.speed);
    num(f, pt->metrics.impact_energy_loss);
    fprintf(f, ",%d", pt->iterations);
    num(f, pt->residual);
    num(f, pt->arclength);
    fprintf(f, ",%s\n", sm_status_name(pt->status));
    return ferror(f) ? 1 : 0;
}

static json_t *point_json(const sm_model *m, const sm_cont_point *pt)
{
    json_t *x = json_array();
    for (size_t i = 0; i < pt->n_state; i++) json_array_append_new(x, cli_json_number(pt->x[i]));
    json_t *p = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:b}", "type", sm_point_label(pt->type), "period",
                          pt->period, "value", cli_json_number(pt->mu), "state", x, "eigenvalues",
                          cli_eigenvalues_json(pt->n_free, pt->eig_re, pt->eig_im), "max_abs_eigenvalue",
                          cli_json_number(pt->max_abs_eig), "stable", pt->stable);
    cli_json_metrics(p, &pt->metrics, 1); /* step_period */
    json_object_set_new(p, "status", json_string(sm_status_name(pt->status)));
    (void)m;
    return p;
}

/* A branch's summary on stderr and its entry in the sidecar. */
static void write_branch(void *ctx, const sm_cont_branch *b)
{
    sink *s = ctx;
    const sm_cont_result *res = b->r;
    char msg[512];
    fprintf(stderr, "branch %d (period %d) from %s = %.10g: %d points, stopped (%s) at %s = %.10g%s%s%s%s\n", b->index,
            b->o->period, s->param, b->start_mu, res->n_points, sm_cont_stop_name(res->stop), s->param,
            res->stop_mu, res->status != SM_OK ? ": " : "",
            res->status != SM_OK ? cli_strerror(res->status, msg, sizeof msg) : "",
            res->stride_status != SM_OK ? "; last failed stride: " : "",
            res->stride_status != SM_OK ? sm_status_name(res->stride_status) : "");
    json_t *specials = json_array();
    for (int k = 0; k < res->n_special && k < SM_CONT_MAX_SPECIAL; k++) {
        const sm_cont_point *sp = &res->special[k];
        fprintf(stderr, "  %s at %s = %.12g (max |multiplier| %.6f)\n", sm_point_label(sp->type), s->param,
                sp->mu, sp->max_abs_eig);
        json_array_append_new(specials, point_json(s->m, sp));
    }
    json_array_append_new(
        s->branches,
        json_pack("{s:i, s:i, s:i, s:o, s:o, s:s, s:s, s:s, s:o, s:i, s:I, s:o}", "branch", b->index, "period",
                  b->o->period, "parent", b->parent, "parent_pd", cli_json_number(b->parent_pd), "start",
                  cli_json_number(b->start_mu), "stop", sm_cont_stop_name(res->stop), "status", sm_status_name(res->status),
                  "stride_status", sm_status_name(res->stride_status), "stop_value", cli_json_number(res->stop_mu),
                  "points", res->n_points, "stride_evaluations", (json_int_t)res->stride_evals, "special",
                  specials));
}

static void switch_failed(void *ctx, int branch, const sm_cont_point *pd, sm_status st)
{
    sink *s = ctx;
    (void)branch;
    char msg[512];
    fprintf(stderr, "  could not switch to period %d at %s = %.10g: %s\n", 2 * pd->period, s->param, pd->mu,
            cli_strerror(st, msg, sizeof msg));
}


int cmd_continue(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "continue");
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"param", required_argument, 0, OPT_PARAM},
                                         {"from", required_argument, 0, OPT_FROM},
                                         {"to", required_argument, 0, OPT_TO},
                                         {"step", required_argument, 0, OPT_STEP},
                                         {"step-min", required_argument, 0, OPT_STEP_MIN},
                                         {"step-max", required_argument, 0, OPT_STEP_MAX},
                                         {"max-points", required_argument, 0, OPT_MAX_POINTS},
                                         {"switch", no_argument, 0, OPT_SWITCH},
                                         {"max-period", required_argument, 0, OPT_MAX_PERIOD},
                                         {"amplitude", required_argument, 0, OPT_AMPLITUDE},
                                         {"weight", required_argument, 0, OPT_WEIGHT},
                                         {"no-locate", no_argument, 0, OPT_NO_LOCATE},
                                         {"locate-tol", required_argument, 0, OPT_LOCATE_TOL},
                                         {"sidecar", required_argument, 0, OPT_SIDECAR},
                                         {"corrector-iter", required_argument, 0, OPT_CORRECTOR_ITER},
                                         {"guess", required_argument, 0, OPT_GUESS},
                                         {"period", required_argument, 0, OPT_PERIOD},
                                         {"two-step", no_argument, 0, OPT_TWO_STEP},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"max-iter", required_argument, 0, OPT_MAX_ITER},
                                         {"fd-step", required_argument, 0, OPT_FD_STEP},
                                         {"newton-update", required_argument, 0, OPT_NEWTON_UPDATE},
                                         {"jacobian", required_argument, 0, OPT_JACOBIAN},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {0, 0, 0, 0}};
    cont_settings s = {.step = 1e-3, .step_min = 1e-8, .step_max = 0.0, .weight = 1.0,
                       .locate_tol = 1e-10, .max_points = 500, .max_period = 16, .corrector_iter = 8};
    int rc = cli_parse(&run, argc, argv, opts, help, own_option, &s, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;
    if (!s.param) return cli_fail(&run, EX_USAGE, "which parameter? add --param NAME (see 'stridemap params %s')", m->name);
    const int ip = sm_model_param_index(m, s.param);
    if (ip < 0)
        return cli_fail(&run, EX_USAGE, "model '%s' has no parameter '%s' (see 'stridemap params %s')", m->name,
                        s.param, m->name);
    if (m->params[ip].flags & SM_PARAM_INTEGER)
        return cli_fail(&run, EX_DATAERR, "parameter '%s' of model '%s' is a whole number; continuation needs a real one",
                        s.param, m->name);
    char why[512];
    for (size_t k = 0; k < run.n_sets; k++) {
        const size_t len = strlen(s.param);
        if (s.have_from && strncmp(run.sets[k], s.param, len) == 0 && run.sets[k][len] == '=')
            return cli_fail(&run, EX_USAGE,
                            "--set %s and --from both give the start of the continued parameter '%s'; keep one",
                            run.sets[k], s.param);
    }
    if (s.have_from) {
        if (sm_model_check_param(m, (size_t)ip, s.from, why, sizeof why) != SM_OK)
            return cli_fail(&run, EX_DATAERR, "--from: %s", why);
        run.params[ip] = s.from;
    }
    const double from = run.params[ip];
    const double to = s.have_to ? s.to : m->params[ip].max;
    if (sm_model_check_param(m, (size_t)ip, to, why, sizeof why) != SM_OK)
        return cli_fail(&run, EX_DATAERR, "--to: %s", why);
    if (to == from) return cli_fail(&run, EX_DATAERR, "--from and --to are both %g; give two different values", from);

    sm_cont_options oc;
    sm_cont_options *o = &oc;
    sm_cont_options_default(o, m, (size_t)ip);
    o->lo = fmin(from, to);
    o->hi = fmax(from, to);
    o->direction = to > from ? +1 : -1;
    o->period = run.newton.period;
    o->weight = s.weight;
    const sm_cont_steps steps = {.step = s.step, .step_min = s.step_min, .step_max = s.step_max,
                                 .have_step = s.have_step, .have_step_min = s.have_step_min,
                                 .have_step_max = s.have_step_max};
    if (sm_cont_steps_apply(&steps, from, to, o, why, sizeof why) != SM_OK) return cli_fail(&run, EX_USAGE, "%s", why);
    o->max_points = (int)s.max_points;
    o->tol = run.newton.tol;
    o->max_iter = (int)s.corrector_iter;
    o->fd_step = run.newton.fd_step;
    o->locate = !s.no_locate;
    o->locate_tol = s.locate_tol;
    o->start = run.newton;
    o->update = run.newton.update;
    if (sm_cont_options_check(o, m, why, sizeof why) != SM_OK) return cli_fail(&run, EX_DATAERR, "%s", why);
    if (!run.have_x0) m->guess(run.x0, run.params, m->data);

    FILE *f = stdout;
    if (s.out && strcmp(s.out, "-") != 0 && !(f = fopen(s.out, "w")))
        return cli_fail(&run, EX_CANTCREAT, "cannot create '%s'; check the folder exists and is writable", s.out);
    char sidecar[4096] = "";
    if (s.sidecar)
        snprintf(sidecar, sizeof sidecar, "%s", s.sidecar);
    else
        cli_sidecar_path(s.out, sidecar, sizeof sidecar);
    /* Opened before the work, so that an unwritable place fails at once. */
    FILE *sc = NULL;
    if (sidecar[0] && !(sc = fopen(sidecar, "w"))) {
        if (f != stdout) fclose(f);
        return cli_fail(&run, EX_CANTCREAT, "cannot create the sidecar '%s'; check the folder exists and is writable",
                        sidecar);
    }

    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &run.solver, &ws);
    if (st != SM_OK) {
        if (f != stdout) fclose(f);
        if (sc) fclose(sc);
        return cli_fail(&run, EX_SOFTWARE, "cannot set up the integrator: %s", sm_strerror(st));
    }

    fprintf(f, "branch,period,%s,type", s.param);
    for (size_t i = 0; i < m->n_state; i++) fprintf(f, ",%s", m->state_names[i]);
    for (size_t k = 0; k < m->n_free; k++) fprintf(f, ",eig%zu_re,eig%zu_im", k + 1, k + 1);
    fputs(",max_abs_eig,stable,step_period,step_length,speed,impact_energy_loss,iterations,residual,"
          "arclength,status\n",
          f);

    json_t *branches = json_array();
    if (!branches) {
        sm_workspace_free(ws);
        if (f != stdout) fclose(f);
        if (sc) fclose(sc);
        return cli_fail(&run, EX_OSERR, "out of memory");
    }
    sm_cont_tree_options t;
    sm_cont_tree_options_default(&t);
    t.do_switch = s.do_switch;
    t.max_period = (int)s.max_period;
    t.amplitude = s.amplitude;
    sink sk = {.f = f, .m = m, .param = s.param, .branches = branches};
    const sm_cont_tree_fns fns = {write_point, write_branch, switch_failed, &sk};
    sm_cont_tree_result tr;
    st = sm_cont_tree(ws, run.params, run.x0, o, &t, &fns, &tr);
    sm_workspace_free(ws);
    if (st == SM_NO_MEMORY) {
        json_decref(branches);
        if (f != stdout) fclose(f);
        if (sc) fclose(sc);
        return cli_fail(&run, EX_OSERR, "out of memory");
    }
    const int exit_code = tr.first_stop == SM_STOP_START_FAILED ? CLI_EXIT_NO_GAIT : 0;
    const double start_residual = tr.start_residual; /* where Newton got to at a failed start */

    int io_bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) io_bad |= fclose(f) != 0;
    if (io_bad) {
        json_decref(branches);
        if (sc) fclose(sc);
        return cli_fail(&run, EX_IOERR, "could not write the branch%s%s", s.out ? " to " : "", s.out ? s.out : "");
    }
    if (sc) {
        json_t *cmdline = json_array(), *params = json_object();
        json_array_append_new(cmdline, json_string("stridemap"));
        for (int i = 0; i < argc; i++) json_array_append_new(cmdline, json_string(argv[i]));
        for (size_t i = 0; i < m->n_params; i++) json_object_set_new(params, m->params[i].name, cli_json_number(run.params[i]));
        json_t *doc = json_pack(
            "{s:o, s:s, s:o, s:s, s:o, s:o, s:i, s:o, s:s}", "command_line", cmdline, "model", m->name, "params",
            params, "param", s.param, "from", cli_json_number(from), "to", cli_json_number(to), "period", o->period, "branches", branches,
            "version", STRIDEMAP_VERSION);
        json_object_set_new(
            doc, "continuation",
            json_pack("{s:f, s:f, s:f, s:i, s:f, s:i, s:f, s:f, s:b, s:f, s:b, s:i, s:f}", "step", o->h0,
                      "step_min", o->h_min, "step_max", o->h_max, "max_points", o->max_points, "tol", o->tol,
                      "max_iter", o->max_iter, "fd_step", o->fd_step > 0 ? o->fd_step : sqrt(run.solver.rtol),
                      "weight", o->weight, "locate", o->locate, "locate_tol", o->locate_tol, "switch",
                      s.do_switch, "max_period", (int)s.max_period, "amplitude", s.amplitude));
        json_object_set_new(json_object_get(doc, "continuation"), "newton_update",
                            json_string(o->update == SM_NEWTON_FULL ? "full" : "broyden"));
        json_object_set_new(doc, "solver", cli_solver_json(&run.solver));
        cli_json_schema(doc);
        json_object_set_new(doc, "state_names", json_array());
        for (size_t i = 0; i < m->n_state; i++)
            json_array_append_new(json_object_get(doc, "state_names"), json_string(m->state_names[i]));
        int bad = json_dumpf(doc, sc, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0;
        bad |= fputc('\n', sc) == EOF;
        bad |= fclose(sc) != 0;
        if (bad) {
            json_decref(doc);
            return cli_fail(&run, EX_IOERR, "could not write the sidecar '%s'", sidecar);
        }
        json_decref(doc);
    } else {
        json_decref(branches);
    }
    /* A residual that came close but not within --tol may be the
     * integrator's accuracy (a model with a conserved quantity meets its
     * energy equation only to about 10 rtol), not a bad guess. */
    if (exit_code && isfinite(start_residual) && start_residual > o->tol)
        cli_fail(&run, exit_code,
                 "no gait at the start (%s = %g) within --tol %g (Newton got to a residual of %.3g); give a --guess "
                 "near a gait, or, if that residual is the integrator's accuracy, a smaller --rtol and --atol",
                 s.param, from, o->tol, start_residual);
    else if (exit_code)
        cli_fail(&run, exit_code, "no gait at the start (%s = %g); give a --guess near a gait", s.param, from);
    return exit_code;
}
