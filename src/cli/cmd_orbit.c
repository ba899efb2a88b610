/* stridemap orbit: the orbit diagram by simulation (orbit.h). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap orbit MODEL --param NAME=LO:HI:N [--transient K] [--record M]\n"
    "                       [--x0 v1,v2,...] [--set NAME=VALUE]... [--out FILE]\n"
    "                       [--sidecar FILE] [--period-tol E] [--rtol R] [--atol A]\n"
    "                       [--method adams|bdf|erk8|erk5] [--tmax T]\n"
    "\n"
    "The orbit diagram: at N values of the parameter NAME from LO to HI (LO <= HI;\n"
    "N = 1 needs LO = HI, as for sweep's --grid), iterates\n"
    "the stride map, drops the first K strides (default 200) and records the next\n"
    "M (default 64): the state after each and the step's period.  Each value\n"
    "starts from where the previous value's walk ended, so it follows an\n"
    "attractor as the parameter moves, stable or chaotic, which Newton-based\n"
    "continuation cannot.  If the walker falls, that is recorded, with after how\n"
    "many strides, and the next value starts again from the last attractor that\n"
    "did not fall.  The first value starts from --x0, or else from the gait Newton\n"
    "finds from the model's guess (the guess itself if Newton fails).\n"
    "\n"
    "CSV, one row per recorded stride and one per fall:\n"
    "  NAME,index,kind,<state names...>,step_period,step_length,speed,period,steps,status\n"
    "kind is 'visit', 'fell' (the walker fell, scuffed, ...) or 'failed' (the\n"
    "solver failed: integrator_failed, nonfinite, ...); period is the attractor's period found in the\n"
    "record (0: none up to 32, e.g. chaos); steps counts the strides walked at\n"
    "this value (for 'fell': before the fall).  A summary goes to stderr, and a\n"
    "JSON sidecar (command line, model, parameters, tolerances, version, and per\n"
    "value: status, strides, period) next to --out.\n"
    "\n"
    "exit status: 0 done (falls are results, not errors), 64 bad usage,\n"
    "65 bad values, 73/74 output file errors.\n"
    "\n"
    "example:\n"
    "  stridemap orbit simplest --param gamma=0.0135:0.0195:121 --out orbit.csv\n";

enum { OPT_PARAM = 2100, OPT_TRANSIENT, OPT_RECORD, OPT_SIDECAR, OPT_PERIOD_TOL };

typedef struct {
    const char *range, *out, *sidecar;
    sm_orbit_options oo;
} orbit_settings;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    orbit_settings *s = ctx;
    long v;
    switch (opt) {
    case OPT_X0:
        run->state_option = "--x0";
        run->state_text = arg;
        return 0;
    case OPT_PARAM: s->range = arg; return 0;
    case OPT_OUT: s->out = arg; return 0;
    case OPT_SIDECAR: s->sidecar = arg; return 0;
    case OPT_TRANSIENT:
        if (!cli_parse_long(arg, 0, 100000000, &v))
            return cli_fail(run, EX_DATAERR, "--transient takes a whole number from 0 to 1e8, not '%s'", arg);
        s->oo.transient = (int)v;
        return 0;
    case OPT_RECORD:
        if (!cli_parse_long(arg, 1, 1000000, &v))
            return cli_fail(run, EX_DATAERR, "--record takes a whole number from 1 to 1e6, not '%s'", arg);
        s->oo.record = (int)v;
        return 0;
    case OPT_PERIOD_TOL:
        if (!cli_parse_double(arg, &s->oo.period_tol) || !(s->oo.period_tol >= 0))
            return cli_fail(run, EX_DATAERR, "--period-tol takes a number >= 0, not '%s'", arg);
        return 0;
    default: return 1;
    }
}

/* NAME=LO:HI:N */
static int parse_range(cli_run *run, const char *text, char *name, size_t name_len, double *lo, double *hi,
                       long *n)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= name_len)
        return cli_fail(run, EX_USAGE, "--param takes NAME=LO:HI:N, e.g. gamma=0.0135:0.0195:121, not '%s'", text);
    memcpy(name, text, (size_t)(eq - text));
    name[eq - text] = '\0';
    char buf[256];
    if (strlen(eq + 1) >= sizeof buf) return cli_fail(run, EX_DATAERR, "--param value is too long");
    strcpy(buf, eq + 1);
    char *a = buf, *b = strchr(a, ':'), *c = b ? strchr(b + 1, ':') : NULL;
    if (!b || !c) return cli_fail(run, EX_USAGE, "--param takes NAME=LO:HI:N, not '%s'", text);
    *b++ = '\0';
    *c++ = '\0';
    if (!cli_parse_double(a, lo) || !cli_parse_double(b, hi) || !isfinite(*lo) || !isfinite(*hi))
        return cli_fail(run, EX_DATAERR, "--param %s: LO and HI must be numbers, not '%s' and '%s'", name, a, b);
    if (!cli_parse_long(c, 1, 10000000, n))
        return cli_fail(run, EX_DATAERR, "--param %s: N must be a whole number from 1 to 1e7, not '%s'", name, c);
    return 0;
}

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.15g", v);
    else
        fputs(",", f);
}

typedef struct {
    FILE *f;
    const sm_model *m;
    json_t *values;
} orbit_sink;

/* Writes one value's rows and its sidecar entry. */
static int write_value(void *ctx, const sm_orbit_value *v)
{
    orbit_sink *s = ctx;
    const sm_model *m = s->m;
    FILE *f = s->f;
    const sm_orbit_result *r = v->r;
    for (int i = 0; i < r->recorded; i++) {
        fprintf(f, "%.15g,%d,visit", v->mu, i);
        for (size_t j = 0; j < m->n_state; j++) num(f, v->xs[(size_t)i * m->n_state + j]);
        num(f, v->mts[i].period);
        num(f, v->mts[i].step_length);
        num(f, v->mts[i].speed);
        fprintf(f, ",%d,%ld,%s\n", r->period, r->steps, sm_status_name(r->status));
    }
    if (r->status != SM_OK) {
        fprintf(f, "%.15g,%d,%s", v->mu, -1, v->fell ? "fell" : "failed");
        for (size_t j = 0; j < m->n_state; j++) num(f, r->x[j]);
        fprintf(f, ",,,,0,%ld,%s\n", r->steps, sm_status_name(r->status));
    }
    json_array_append_new(s->values, json_pack("{s:f, s:s, s:I, s:i}", "value", v->mu, "status",
                                               sm_status_name(r->status), "steps", (json_int_t)r->steps,
                                               "period", r->period));
    return ferror(f) ? 1 : 0;
}

int cmd_orbit(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "orbit");
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"param", required_argument, 0, OPT_PARAM},
                                         {"transient", required_argument, 0, OPT_TRANSIENT},
                                         {"record", required_argument, 0, OPT_RECORD},
                                         {"period-tol", required_argument, 0, OPT_PERIOD_TOL},
                                         {"x0", required_argument, 0, OPT_X0},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {"sidecar", required_argument, 0, OPT_SIDECAR},
                                         {0, 0, 0, 0}};
    orbit_settings s = {0};
    sm_orbit_options_default(&s.oo);
    int rc = cli_parse(&run, argc, argv, opts, help, own_option, &s, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;
    if (!s.range) return cli_fail(&run, EX_USAGE, "which parameter? add --param NAME=LO:HI:N");
    char name[128];
    double lo, hi;
    long n;
    if ((rc = parse_range(&run, s.range, name, sizeof name, &lo, &hi, &n))) return rc;
    const int ip = sm_model_param_index(m, name);
    if (ip < 0)
        return cli_fail(&run, EX_USAGE, "model '%s' has no parameter '%s' (see 'stridemap params %s')", m->name, name,
                        m->name);
    char why[512];
    if (sm_model_check_param(m, (size_t)ip, lo, why, sizeof why) != SM_OK ||
        sm_model_check_param(m, (size_t)ip, hi, why, sizeof why) != SM_OK)
        return cli_fail(&run, EX_DATAERR, "--param: %s", why);
    /* The grid sweep's rules for a range (LO <= HI; one point needs LO = HI),
     * so that a range means the same in both commands. */
    sm_sweep_axis axis;
    sm_status ast = sm_sweep_axis_parse(m, s.range, &axis, why, sizeof why);
    if (ast != SM_OK) {
        /* The axis is --param here, not sweep's --grid. */
        const size_t axis_len = strlen("sm_sweep_axis");
        const bool grid = strncmp(why, "sm_sweep_axis", axis_len) == 0;
        return cli_fail(&run, cli_exit_code(ast, EX_IOERR), "%s%s", grid ? "--param" : "--param: ",
                        grid ? why + axis_len : why);
    }
    if (sm_orbit_options_check(&s.oo, why, sizeof why) != SM_OK) return cli_fail(&run, EX_DATAERR, "%s", why);
    for (long k = 0; k < n; k++) { /* e.g. a whole-number parameter between whole numbers */
        const double mu = n == 1 ? lo : lo + (hi - lo) * (double)k / (double)(n - 1);
        if (sm_model_check_param(m, (size_t)ip, mu, why, sizeof why) != SM_OK)
            return cli_fail(&run, EX_DATAERR, "--param: value %ld of the grid: %s", k + 1, why);
    }

    FILE *f = stdout;
    if (s.out && strcmp(s.out, "-") != 0 && !(f = fopen(s.out, "w")))
        return cli_fail(&run, EX_CANTCREAT, "cannot create '%s'; check the folder exists and is writable", s.out);
    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &run.solver, &ws);
    if (st != SM_OK) {
        if (f != stdout) fclose(f);
        return cli_fail(&run, EX_SOFTWARE, "cannot set up the integrator: %s", sm_strerror(st));
    }
    json_t *values = json_array();
    if (!values) {
        sm_workspace_free(ws);
        if (f != stdout) fclose(f);
        return cli_fail(&run, EX_OSERR, "out of memory");
    }

    fprintf(f, "%s,index,kind", name);
    for (size_t i = 0; i < m->n_state; i++) fprintf(f, ",%s", m->state_names[i]);
    fputs(",step_period,step_length,speed,period,steps,status\n", f);

    orbit_sink sink = {f, m, values};
    sm_orbit_diagram_result od;
    st = sm_orbit_diagram(ws, run.params, (size_t)ip, lo, hi, n, run.have_x0 ? run.x0 : NULL, &run.newton, &s.oo,
                          write_value, &sink, &od);
    sm_workspace_free(ws);
    if (st == SM_NO_MEMORY) {
        json_decref(values);
        if (f != stdout) fclose(f);
        return cli_fail(&run, EX_OSERR, "out of memory");
    }
    const long falls = od.falls, failures = od.failures, total_steps = od.total_steps;
    const double first_fall = od.first_fall;

    int io_bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) io_bad |= fclose(f) != 0;
    if (io_bad) {
        json_decref(values);
        return cli_fail(&run, EX_IOERR, "could not write the orbit diagram%s%s", s.out ? " to " : "", s.out ? s.out : "");
    }
    char sidecar[4096] = "";
    if (s.sidecar) {
        snprintf(sidecar, sizeof sidecar, "%s", s.sidecar);
    } else {
        cli_sidecar_path(s.out, sidecar, sizeof sidecar);
    }
    if (sidecar[0]) {
        json_t *cmdline = json_array(), *params = json_object(), *names = json_array();
        json_array_append_new(cmdline, json_string("stridemap"));
        for (int i = 0; i < argc; i++) json_array_append_new(cmdline, json_string(argv[i]));
        for (size_t i = 0; i < m->n_params; i++) json_object_set_new(params, m->params[i].name, json_real(run.params[i]));
        for (size_t i = 0; i < m->n_state; i++) json_array_append_new(names, json_string(m->state_names[i]));
        json_t *doc = json_pack(
            "{s:o, s:s, s:o, s:s, s:f, s:f, s:I, s:i, s:i, s:f, s:o, s:I, s:o, s:s}", "command_line", cmdline,
            "model", m->name, "params", params, "param", name, "lo", lo, "hi", hi, "n", (json_int_t)n, "transient",
            s.oo.transient, "record", s.oo.record, "period_tol", s.oo.period_tol, "state_names", names, "falls",
            (json_int_t)falls, "values", values, "version", STRIDEMAP_VERSION);
        json_object_set_new(doc, "solver_failures", json_integer(failures));
        json_object_set_new(doc, "first_fall", isfinite(first_fall) ? json_real(first_fall) : json_null());
        json_object_set_new(doc, "solver", cli_solver_json(&run.solver));
        cli_json_schema(doc);
        int bad = json_dump_file(doc, sidecar, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0;
        json_decref(doc);
        if (bad) return cli_fail(&run, EX_CANTCREAT, "cannot write the sidecar '%s'", sidecar);
    } else {
        json_decref(values);
    }
    /* The summary comes last: it says the run is done, and an error above
     * must stay the only line. */
    fprintf(stderr, "orbit: %ld values of %s in [%g, %g], %ld strides; ", n, name, lo, hi, total_steps);
    if (falls)
        fprintf(stderr, "the walker fell at %ld of them, first at %s = %.10g", falls, name, first_fall);
    else
        fprintf(stderr, "it never fell");
    if (failures)
        fprintf(stderr, "; the solver failed at %ld (kind 'failed': try other --rtol/--atol)", failures);
    fputc('\n', stderr);
    return 0;
}
