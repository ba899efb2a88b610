#include <math.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap simulate MODEL [--set NAME=VALUE]... [--x0 v1,v2,...] [--steps N]\n"
    "                          [--dt DT] [--out FILE] [--rtol R] [--atol A]\n"
    "                          [--method adams|bdf|erk8|erk5] [--max-order Q] [--tmax T] [--max-step H]\n"
    "\n"
    "Integrates N steps (default 10) of MODEL from --x0 (all state variables in\n"
    "order; default: the model's guess, which need not be a gait) and writes the\n"
    "trajectory as CSV to FILE (default: standard output).  One row per sample\n"
    "every DT time units (default: the model's time limit / 2000; at most\n"
    "1000000 samples per step: DT >= the step time limit / 1e6, see --tmax) and\n"
    "a row before and after every event:\n"
    "  kind,step,time,phase,event,<state names...>[,<sample measures...>]\n"
    "where kind is start, sample, pre (just before an event), post (just after\n"
    "its reset) or fail.  A model that reports measures per sample (a walker\n"
    "built from bodies: each contact's ground force) adds them as columns after\n"
    "the state, NaN where one does not apply.  time runs on across steps.  A one-line summary per step\n"
    "(period, length, speed and the other gait measures) goes to standard error;\n"
    "its sampled measures (clearance, ground forces) come from 1000 samples over\n"
    "the step, as in 'fixed', whatever DT is.  If the walker falls, every\n"
    "row up to the fall is kept, the failure is reported, and the exit status is 1.\n"
    "\n"
    "example:\n"
    "  stridemap simulate simplest --set gamma=0.009 --steps 5 --out walk.csv\n";

typedef struct {
    FILE *f;
    const sm_model *m;
    const double *p;
    double t0;
    long step;
} csv_sink;

static void row(csv_sink *s, const char *kind, double t, size_t phase, const char *event, const double *x)
{
    const sm_model *m = s->m;
    fprintf(s->f, "%s,%ld,%.12g,%s,%s", kind, s->step, s->t0 + t, m->phases[phase].name, event);
    for (size_t i = 0; i < m->n_state; i++) fprintf(s->f, ",%.15g", x[i]);
    if (m->n_sample) {
        double v[SM_MAX_SAMPLE];
        if (m->sample(t, phase, x, s->p, m->data, v) != 0)
            for (size_t i = 0; i < m->n_sample; i++) v[i] = NAN;
        for (size_t i = 0; i < m->n_sample; i++) fprintf(s->f, ",%.15g", v[i]);
    }
    fputc('\n', s->f);
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    csv_sink *s = ctx;
    row(s, "sample", t, phase, "", x);
    return ferror(s->f);
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    csv_sink *s = ctx;
    const sm_event *ev = NULL;
    const sm_phase *P = &s->m->phases[phase];
    for (size_t e = 0; e < P->n_events; e++)
        if (strcmp(P->events[e].name, name) == 0) ev = &P->events[e];
    if (ev && ev->outcome == SM_EVENT_FAIL) {
        row(s, "fail", t, phase, name, xm);
    } else {
        row(s, "pre", t, phase, name, xm);
        size_t next = ev && ev->outcome == SM_EVENT_TO_PHASE ? ev->next_phase : s->m->start_phase;
        row(s, "post", t, next, name, xp);
    }
    return ferror(s->f);
}

/* A step's one-line summary; the next step's rows carry its number and time. */
static int step_done(void *ctx, long k, const sm_step_metrics *mt)
{
    csv_sink *s = ctx;
    fprintf(stderr, "step %ld:", k);
    for (size_t i = 0; i < sm_metric_field_count; i++)
        fprintf(stderr, " %s %.10g", sm_metric_fields[i].name, sm_metric_value(mt, i));
    fputc('\n', stderr);
    s->t0 += mt->period;
    s->step = k + 1;
    return 0;
}

/* Samples per step that simulate will write at most (see --help). */
#define SIM_MAX_SAMPLES_PER_STEP 1000000

typedef struct {
    long steps;
    double dt;
    const char *out;
} sim_settings;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    sim_settings *set = ctx;
    switch (opt) {
    case OPT_X0:
        run->state_option = "--x0";
        run->state_text = arg;
        return 0;
    case OPT_STEPS:
        if (!cli_parse_long(arg, 1, 1000000, &set->steps))
            return cli_fail(run, EX_DATAERR, "--steps takes a whole number from 1 to 1000000, not '%s'", arg);
        return 0;
    case OPT_DT:
        if (!cli_parse_double(arg, &set->dt) || !(set->dt > 0) || !isfinite(set->dt))
            return cli_fail(run, EX_DATAERR, "--dt takes a positive number, not '%s'", arg);
        return 0;
    case OPT_OUT:
        set->out = arg;
        return 0;
    default:
        return 1;
    }
}

int cmd_simulate(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "simulate");
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"x0", required_argument, 0, OPT_X0},
                                         {"steps", required_argument, 0, OPT_STEPS},
                                         {"dt", required_argument, 0, OPT_DT},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {0, 0, 0, 0}};
    sim_settings set = {.steps = 10};
    int rc = cli_parse(&run, argc, argv, opts, help, own_option, &set, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const char *out = set.out;
    double dt = set.dt;
    const long steps = set.steps;
    const sm_model *m = run.model;
    if (!run.have_x0) m->guess(run.x0, run.params, m->data);
    const double t_limit = run.solver.t_max > 0 ? run.solver.t_max : m->time_limit(run.params, m->data);
    if (dt == 0.0) dt = t_limit / 2000.0;
    /* A step may last up to its time limit: more samples than this per step
     * is a file nobody reads, and a dt below the clock's resolution never
     * advances at all. */
    if (!(t_limit / dt <= SIM_MAX_SAMPLES_PER_STEP))
        return cli_fail(&run, EX_DATAERR,
                        "--dt %g would write up to %.3g samples per step (step time limit %g / dt); the bound is "
                        "%d: give --dt %.3g or more, or a smaller --tmax",
                        dt, t_limit / dt, t_limit, SIM_MAX_SAMPLES_PER_STEP, t_limit / SIM_MAX_SAMPLES_PER_STEP);

    FILE *f = stdout;
    if (out && strcmp(out, "-") != 0 && !(f = fopen(out, "w")))
        return cli_fail(&run, EX_CANTCREAT, "cannot create '%s'; check the folder exists and is writable", out);

    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &run.solver, &ws);
    if (st != SM_OK) {
        if (f != stdout) fclose(f);
        return cli_fail(&run, EX_SOFTWARE, "cannot set up the integrator: %s", sm_strerror(st));
    }
    csv_sink sink = {.f = f, .m = m, .p = run.params};
    sm_observer obs = {.dt = dt, .sample = on_sample, .event = on_event, .ctx = &sink};

    fprintf(f, "kind,step,time,phase,event");
    for (size_t i = 0; i < m->n_state; i++) fprintf(f, ",%s", m->state_names[i]);
    for (size_t i = 0; i < m->n_sample; i++) fprintf(f, ",%s", m->sample_names[i]);
    fputc('\n', f);
    row(&sink, "start", 0.0, m->start_phase, "", run.x0);

    double x[SM_MAX_STATE];
    memcpy(x, run.x0, m->n_state * sizeof *x);
    long done = 0;
    st = sm_walk(ws, run.params, x, steps, &obs, step_done, &sink, &done);
    sink.step = done;
    const char *detail = sm_workspace_detail(ws);
    char detail_copy[256];
    snprintf(detail_copy, sizeof detail_copy, "%s", detail);
    sm_workspace_free(ws);

    int io_bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) io_bad |= fclose(f) != 0;
    if (io_bad || st == SM_IO_ERROR)
        return cli_fail(&run, EX_IOERR, "could not write the trajectory%s%s", out ? " to " : "", out ? out : "");
    if (st != SM_OK) {
        cli_fail(&run, CLI_EXIT_NO_GAIT, "step %ld ended with %s: %s%s%s", sink.step, sm_status_name(st),
                 sm_strerror(st), detail_copy[0] ? " -- " : "", detail_copy);
        return CLI_EXIT_NO_GAIT;
    }
    return 0;
}
