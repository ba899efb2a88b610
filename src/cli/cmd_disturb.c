#include <jansson.h>
#include <math.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap disturb MODEL --param NAME --from A --to B [--max-strides K] [--return-tol T]\n"
    "                         [--bisect-tol W] [--scan N] [--set NAME=VALUE]... [--guess v1,v2,...] [--rtol R]\n"
    "                         [--atol A] [--method M] [--tmax T] [--tol T] [Newton options] [--json]\n"
    "\n"
    "Finds MODEL's gait, then the largest one-step disturbance NAME of each sign\n"
    "in [A, B] that it survives: the disturbance acts on one stride, and the walker\n"
    "survives when it comes back to the gait within K strides without falling.\n"
    "Each sign is scanned outward from 0 to A and to B in N equal steps to the first\n"
    "that fails, then bisected between it and the step before (the disturbances a\n"
    "walker survives need not be an interval: a far island is not reported).  The\n"
    "answer is the bracket (the largest disturbance that survived, the smallest\n"
    "beyond it that did not), its width and the failure there (fell_forward,\n"
    "fell_backward, not_returned, ...).\n"
    "Also prints the gait sensitivity norm to NAME (step length and step time).\n"
    "A model's disturbances are listed by 'stridemap params MODEL'.  Over a grid of\n"
    "parameters, on threads, shards or MPI ranks and resumable: 'stridemap sweep\n"
    "MODEL --grid NAME=LO:HI:N --disturb NAME --from A --to B --out DIR'.\n"
    "\n"
    "  --param NAME      the disturbance (e.g. step_down, push, slope_step)\n"
    "  --from A --to B   the range searched, A <= 0 <= B, A < B (added to NAME's value)\n"
    "  --max-strides K   strides a trial may take, the disturbed one included (default 100)\n"
    "  --return-tol T    back at the gait when every free coordinate of the section is\n"
    "                    within T of the gait's (default 1e-6)\n"
    "  --bisect-tol W    stop bisecting at a bracket this narrow (default 1e-6 max(|A|, |B|))\n"
    "  --scan N          steps of the outward scan (default 20; 1: bisect at once)\n"
    "  --set, --guess, --rtol, --atol, --method, --max-order, --max-step, --tmax: as for 'fixed'\n"
    "  --tol, --max-iter, --fd-step, --central, --newton-update, --jacobian: Newton's\n"
    "                    options for the gait, as for 'fixed' (a period-1 gait)\n"
    "  --json            one JSON object on stdout\n"
    "\n"
    "exit status: 0 done, 1 no gait found, 64 bad usage (unknown disturbance, A > B),\n"
    "65 bad values.\n"
    "\n"
    "examples:\n"
    "  stridemap disturb simplest --param step_down --from -0.02 --to 0.02\n"
    "  stridemap disturb compass --param push --from -5 --to 5 --max-strides 50 --json\n";

enum { OPT_PARAM = 3000, OPT_FROM, OPT_TO, OPT_MAX_STRIDES, OPT_RETURN_TOL, OPT_BISECT_TOL, OPT_SCAN };

typedef struct {
    const char *param;
    bool have_from, have_to;
    double from, to;
    sm_disturb_options o;
} disturb_args;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    disturb_args *a = ctx;
    long k;
    switch (opt) {
    case OPT_GUESS:
        run->state_option = "--guess";
        run->state_text = arg;
        return 0;
    case OPT_PARAM:
        a->param = arg;
        return 0;
    case OPT_FROM:
    case OPT_TO: {
        double v;
        if (!cli_parse_double(arg, &v) || !isfinite(v))
            return cli_fail(run, EX_USAGE, "%s takes a number, not '%s'", opt == OPT_FROM ? "--from" : "--to", arg);
        if (opt == OPT_FROM) a->from = v, a->have_from = true;
        else a->to = v, a->have_to = true;
        return 0;
    }
    case OPT_MAX_STRIDES:
        if (!cli_parse_long(arg, 1, 100000000L, &k))
            return cli_fail(run, EX_USAGE, "--max-strides takes a whole number in [1, 1e8], not '%s'", arg);
        a->o.max_strides = k;
        return 0;
    case OPT_SCAN:
        if (!cli_parse_long(arg, 1, 100000, &k))
            return cli_fail(run, EX_USAGE, "--scan takes a whole number in [1, 100000], not '%s'", arg);
        a->o.scan_points = (int)k;
        return 0;
    case OPT_RETURN_TOL:
    case OPT_BISECT_TOL: {
        double v;
        if (!cli_parse_double(arg, &v) || !(v > 0) || !isfinite(v))
            return cli_fail(run, EX_USAGE, "%s takes a positive number, not '%s'",
                            opt == OPT_RETURN_TOL ? "--return-tol" : "--bisect-tol", arg);
        if (opt == OPT_RETURN_TOL) a->o.return_tol = v;
        else a->o.bisect_tol = v;
        return 0;
    }
    default:
        return 1;
    }
}

/* "a, b, c": the model's disturbances, for a message. */
static const char *disturbance_list(const sm_model *m, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m->n_params && o < len; i++)
        if (sm_param_is_disturbance(m, i)) {
            const int w = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", m->params[i].name);
            if (w > 0) o += (size_t)w;
        }
    return buf;
}

static json_t *side_json(const sm_disturb_side *s)
{
    if (!s->searched) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "survives", cli_json_number(s->survives));
    json_object_set_new(o, "fails", cli_json_number(s->fails));
    json_object_set_new(o, "width", cli_json_number(s->width));
    json_object_set_new(o, "failure", s->failure == SM_OK ? json_null() : json_string(sm_status_name(s->failure)));
    json_object_set_new(o, "failure_strides", s->failure == SM_OK ? json_null() : json_integer(s->failure_strides));
    json_object_set_new(o, "return_strides", json_integer(s->return_strides));
    json_object_set_new(o, "bisections", json_integer(s->bisections));
    json_object_set_new(o, "strides", json_integer(s->strides));
    return o;
}

static void side_text(const char *label, const sm_disturb_side *s, const char *unit)
{
    if (!s->searched) return;
    if (s->failure == SM_OK) {
        printf("%-12s survives the whole range: %.9g %s (back in %ld strides)\n", label, s->survives, unit,
               s->return_strides);
        return;
    }
    printf("%-12s survives %.9g %s (back in %ld strides), fails %.9g (%s after %ld strides), width %.3g\n", label,
           s->survives, unit, s->return_strides, s->fails, sm_status_name(s->failure), s->failure_strides, s->width);
}

int cmd_disturb(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "disturb");
    disturb_args a = {0};
    sm_disturb_options_default(&a.o);
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"param", required_argument, 0, OPT_PARAM},
                                         {"from", required_argument, 0, OPT_FROM},
                                         {"to", required_argument, 0, OPT_TO},
                                         {"max-strides", required_argument, 0, OPT_MAX_STRIDES},
                                         {"return-tol", required_argument, 0, OPT_RETURN_TOL},
                                         {"bisect-tol", required_argument, 0, OPT_BISECT_TOL},
                                         {"scan", required_argument, 0, OPT_SCAN},
                                         {"guess", required_argument, 0, OPT_GUESS},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"max-iter", required_argument, 0, OPT_MAX_ITER},
                                         {"fd-step", required_argument, 0, OPT_FD_STEP},
                                         {"central", no_argument, 0, OPT_CENTRAL},
                                         {"newton-update", required_argument, 0, OPT_NEWTON_UPDATE},
                                         {"jacobian", required_argument, 0, OPT_JACOBIAN},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, argv, opts, help, own_option, &a, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;
    char list[512];
    if (!a.param)
        return cli_fail(&run, EX_USAGE, "which disturbance? give --param NAME (%s has: %s)", m->name,
                        sm_disturb_count(m) ? disturbance_list(m, list, sizeof list) : "none");
    const int ip = sm_model_param_index(m, a.param);
    if (ip < 0 || !sm_param_is_disturbance(m, (size_t)ip))
        return cli_fail(&run, EX_USAGE, "'%s' is not a disturbance of %s; its disturbances: %s", a.param, m->name,
                        sm_disturb_count(m) ? disturbance_list(m, list, sizeof list) : "none");
    if (!a.have_from || !a.have_to) return cli_fail(&run, EX_USAGE, "give the range: --from A --to B, A <= 0 <= B");
    if (!(a.from < a.to)) return cli_fail(&run, EX_USAGE, "--from %g is not below --to %g; give A < B", a.from, a.to);
    if (!(a.from <= 0 && 0 <= a.to))
        return cli_fail(&run, EX_USAGE, "the range [%g, %g] must hold 0 (the gait itself); give A <= 0 <= B", a.from,
                        a.to);
    if (!run.have_x0) m->guess(run.x0, run.params, m->data);

    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &run.solver, &ws);
    if (st != SM_OK) return cli_fail(&run, EX_SOFTWARE, "cannot set up the integrator: %s", sm_strerror(st));
    sm_fixed_result r;
    sm_fixed_point(ws, run.params, run.x0, &run.newton, &r);
    if (!r.converged || r.status != SM_OK) {
        sm_workspace_free(ws);
        return cli_fail(&run, CLI_EXIT_NO_GAIT, "no gait found to disturb: %s", sm_strerror(r.status));
    }
    sm_disturb_side neg, pos;
    char why[512] = "";
    st = sm_disturb_search(ws, run.params, (size_t)ip, r.x, a.from, a.to, &a.o, &neg, &pos, why, sizeof why);
    if (st != SM_OK) {
        sm_workspace_free(ws);
        return cli_fail(&run, cli_exit_code(st, EX_IOERR), "%s", why[0] ? why : sm_strerror(st));
    }
    sm_gsn_options go;
    sm_gsn_options_default(&go);
    sm_gsn_result g;
    sm_gsn(ws, run.params, &r.gait, (size_t)ip, &go, &g);
    sm_workspace_free(ws);

    const sm_param_def *d = &m->params[ip];
    if (run.json) {
        json_t *doc = json_object(), *params = json_object(), *gait = json_object();
        cli_json_schema(doc);
        for (size_t i = 0; i < m->n_params; i++)
            json_object_set_new(params, m->params[i].name, cli_json_number(run.params[i]));
        json_object_set_new(doc, "model", json_string(m->name));
        json_object_set_new(doc, "params", params);
        json_object_set_new(doc, "disturbance", json_string(d->name));
        json_object_set_new(doc, "unit", json_string(d->unit));
        json_object_set_new(doc, "from", cli_json_number(a.from));
        json_object_set_new(doc, "to", cli_json_number(a.to));
        json_object_set_new(doc, "max_strides", json_integer(a.o.max_strides));
        json_object_set_new(doc, "return_tol", cli_json_number(a.o.return_tol));
        json_object_set_new(doc, "scan_points", json_integer(a.o.scan_points));
        json_object_set_new(doc, "bisect_tol",
                            cli_json_number(a.o.bisect_tol > 0 ? a.o.bisect_tol : 1e-6 * fmax(fabs(a.from), fabs(a.to))));
        json_t *x = json_array();
        for (size_t i = 0; i < m->n_state; i++) json_array_append_new(x, cli_json_number(r.x[i]));
        json_object_set_new(gait, "fixed_point", x);
        json_object_set_new(gait, "max_abs_eigenvalue", cli_json_number(r.max_abs_eig));
        json_object_set_new(gait, "stable", json_boolean(r.stable));
        cli_json_metrics(gait, &r.metrics, 3);
        json_object_set_new(doc, "gait", gait);
        json_object_set_new(doc, "gsn", g.status == SM_OK ? cli_json_number(g.gsn) : json_null());
        json_object_set_new(doc, "gsn_reason",
                            g.status == SM_OK && isfinite(g.gsn) ? json_null() : json_string(sm_gsn_why_name(g.why)));
        json_object_set_new(doc, "negative", side_json(&neg));
        json_object_set_new(doc, "positive", side_json(&pos));
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        printf("model        %s (%s)\n", m->name, m->title);
        printf("params       ");
        cli_print_params(stdout, m, run.params);
        printf("\ngait         max |eigenvalue| %.9g, %s\n", r.max_abs_eig, r.stable ? "stable" : "unstable");
        printf("disturbance  %s (%s): %s\n", d->name, d->unit, d->description);
        printf("trials       back within %g of the gait in at most %ld strides, no fall\n", a.o.return_tol,
               a.o.max_strides);
        side_text("negative", &neg, d->unit);
        side_text("positive", &pos, d->unit);
        if (g.status == SM_OK && isfinite(g.gsn))
            printf("gsn          %.9g (step length and step time)\n", g.gsn);
        else
            printf("gsn          - (%s)\n", sm_gsn_why_name(g.why));
    }
    if (fflush(stdout) != 0 || ferror(stdout)) return cli_fail(&run, EX_IOERR, "could not write the result");
    return 0;
}
