#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stridemap/search.h"

static const char help[] =
    "usage: stridemap search MODEL [--set NAME=VALUE]... [--period N] [--two-step] [--starts K]\n"
    "                        [--max-starts M] [--box LO:HI,LO:HI,...] [--rtol R] [--atol A]\n"
    "                        [--tol T] [--max-iter I] [--jacobian fd|exact] [--progress | -q]\n"
    "                        [--json]\n"
    "\n"
    "Finds the gaits of MODEL without a guess: Newton from starts spread evenly\n"
    "(a Halton sequence) over a box of the section's free coordinates,\n"
    "duplicates dropped.  The model supplies the box; --box gives one LO:HI per\n"
    "free coordinate, in the order 'stridemap params' lists them.  A period-N\n"
    "search also lists shorter cycles it lands on, at their own period.  Each\n"
    "gait comes with its stability, step measures, and how many starts found it\n"
    "(a gait found by few starts has a small basin: others like it may be missed).\n"
    "\n"
    "  --starts K      at least K starts (default 256, or 64 N if more)\n"
    "  --max-starts M  at most M (default 16 K): after K, the search goes on in\n"
    "                  batches of K until as many starts have found nothing new as\n"
    "                  it took to find the last new gait\n"
    "  --progress      a progress line on stderr even when it is not a terminal\n"
    "  -q, --quiet     no progress line\n"
    "  --jacobian KIND Newton's Jacobian, 'fd' (default) or 'exact', as in 'stridemap fixed'\n"
    "  --two-step      Coleman's two-step map instead of the mirrored one-step map\n"
    "                  (as in 'stridemap fixed'): doubles the period; a gait is then a\n"
    "                  fixed point of two steps (period 2, also when one mirrored step\n"
    "                  repeats it, as 'minimal_period' 1 says), with the two-step\n"
    "                  map's multipliers\n"
    "\n"
    "A start from which Newton fails on P^N is tried again on P^d for each d\n"
    "dividing N, shortest first: a gait of P^d is one of P^N, and a very\n"
    "unstable one is found from much farther off by the shorter map.\n"
    "\n"
    "A search that could take more than 1e7 strides (starts x strides per start:\n"
    "the Newton runs on P^N and each P^d, which grow with --max-iter) is refused:\n"
    "lower --starts, --period or --max-iter.  The default --max-starts is cut to\n"
    "that bound.\n"
    "\n"
    "exit status: 0 at least one gait found, 1 none, 64 bad usage, 65 bad values.\n"
    "\n"
    "example:\n"
    "  stridemap search simplest --set gamma=0.009\n";

/* The most strides a search may plan on: about half an hour of the simplest
 * walker's 170 us strides if every Newton run went its full length. */
#define SEARCH_MAX_STRIDES 1e7

enum { OPT_MAX_STARTS = 2200, OPT_PROGRESS, OPT_QUIET };

typedef struct {
    sm_search_options opt;
    const char *box;
    long starts, max_starts;
    bool progress, quiet;
} search_settings;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    search_settings *s = ctx;
    switch (opt) {
    case OPT_STARTS:
        if (!cli_parse_long(arg, 1, 1000000, &s->starts))
            return cli_fail(run, EX_DATAERR, "--starts takes a whole number from 1 to 1000000, not '%s'", arg);
        return 0;
    case OPT_MAX_STARTS:
        if (!cli_parse_long(arg, 1, 100000000, &s->max_starts))
            return cli_fail(run, EX_DATAERR, "--max-starts takes a whole number from 1 to 100000000, not '%s'", arg);
        return 0;
    case OPT_BOX:
        s->box = arg;
        return 0;
    case OPT_PROGRESS:
        s->progress = true;
        return 0;
    case OPT_QUIET:
        s->quiet = true;
        return 0;
    default:
        return 1;
    }
}

static int parse_box(cli_run *run, const char *text, sm_search_options *o)
{
    const sm_model *m = run->model;
    char buf[2048];
    if (strlen(text) >= sizeof buf) return cli_fail(run, EX_DATAERR, "--box is too long");
    strcpy(buf, text);
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++) {
        char *colon = strchr(tok + (tok[0] == '-'), ':');
        if (k >= m->n_free || !colon) break;
        *colon = '\0';
        if (!cli_parse_double(tok, &o->lo[k]) || !cli_parse_double(colon + 1, &o->hi[k])) break;
    }
    size_t ranges = 1;
    for (const char *c = text; *c; c++) ranges += *c == ',';
    if (k != m->n_free || ranges != m->n_free)
        return cli_fail(run, EX_DATAERR, "--box needs %zu ranges LO:HI, one per free coordinate, not '%s'",
                        m->n_free, text);
    return 0;
}

/* Strides one start may take at most: each Newton iteration evaluates P^N at
 * the iterate and once per free coordinate for the Jacobian; a converged run
 * adds a measured stride and a central-difference Jacobian; a start that
 * fails on P^N is tried on P^d for every d dividing N (sm_search), so the
 * periods add up to the sum of N's divisors. */
static double strides_per_start(const cli_run *run)
{
    const double n = (double)run->model->n_free;
    double periods = 0;
    for (int d = 1; d <= run->newton.period; d++)
        if (run->newton.period % d == 0) periods += d;
    return periods * ((double)run->newton.max_iter * (n + 1) + 2 * n + 1);
}

typedef struct {
    bool tty;
    double t0, last;
} progress_line;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void print_progress(const progress_line *pl, const sm_search_progress *pr, bool last)
{
    fprintf(stderr, "%ssearch: %zu/%zu starts (at most %zu), %zu gait%s, %zu starts without one, %.0f s%s",
            pl->tty ? "\r" : "", pr->done, pr->planned, pr->max, pr->found, pr->found == 1 ? "" : "s", pr->failed,
            now_seconds() - pl->t0, pl->tty && !last ? "\033[K" : "\n");
    fflush(stderr);
}

static int on_progress(void *ctx, const sm_search_progress *pr)
{
    progress_line *pl = ctx;
    const double t = now_seconds();
    if (t - pl->last >= (pl->tty ? 0.5 : 5.0)) {
        print_progress(pl, pr, false);
        pl->last = t;
    }
    return 0;
}

static json_t *gait_json(const cli_run *run, const sm_fixed_result *r, int period, size_t hits)
{
    const sm_model *m = run->model;
    json_t *x = json_array();
    for (size_t k = 0; k < m->n_state; k++) json_array_append_new(x, cli_json_number(r->x[k]));
    json_t *g = json_pack("{s:i, s:i, s:o, s:o, s:o, s:b}", "period", r->period, "minimal_period", period,
                          "fixed_point", x, "eigenvalues",
                          cli_eigenvalues_json(r->n_free, r->eig_re, r->eig_im), "max_abs_eigenvalue",
                          cli_json_number(r->max_abs_eig), "stable", r->stable);
    /* The table's first three: step_period, step_length, speed. */
    cli_json_metrics(g, &r->metrics, 3);
    json_object_set_new(g, "starts_found", json_integer((json_int_t)hits));
    cli_json_trivial(g, r->eig_re, r->eig_im, r->trivial_index, true);
    return g;
}

int cmd_search(int argc, char **argv)
{
    /* -q is the one short option of its own; the shared parser knows "hs:". */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) return EX_OSERR;
    for (int i = 0; i < argc; i++) args[i] = strcmp(argv[i], "-q") == 0 ? "--quiet" : argv[i];

    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "search");
    /* Newton from a poor start should give up early: there are many starts. */
    run.newton.max_iter = 20;
    run.newton.max_backtracks = 8;
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"period", required_argument, 0, OPT_PERIOD},
                                         {"two-step", no_argument, 0, OPT_TWO_STEP},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"max-iter", required_argument, 0, OPT_MAX_ITER},
                                         {"jacobian", required_argument, 0, OPT_JACOBIAN},
                                         {"starts", required_argument, 0, OPT_STARTS},
                                         {"max-starts", required_argument, 0, OPT_MAX_STARTS},
                                         {"box", required_argument, 0, OPT_BOX},
                                         {"progress", no_argument, 0, OPT_PROGRESS},
                                         {"quiet", no_argument, 0, OPT_QUIET},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {0, 0, 0, 0}};
    search_settings set = {.starts = 0};
    int rc = cli_parse(&run, argc, args, opts, help, own_option, &set, false);
    free(args);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;
    sm_search_options_default(m, run.params, &set.opt);
    set.opt.period_unit = run.two_step ? 2 : 1;
    /* Longer cycles fall more often on the way: more starts by default. */
    const size_t by_period = 64 * (size_t)run.newton.period;
    set.opt.starts = set.starts ? (size_t)set.starts : by_period > set.opt.starts ? by_period : set.opt.starts;
    if (set.box && (rc = parse_box(&run, set.box, &set.opt))) return rc;
    const double per_start = strides_per_start(&run);
    if ((double)set.opt.starts * per_start > SEARCH_MAX_STRIDES)
        return cli_fail(&run, EX_USAGE,
                        "%zu starts x up to %.0f strides each (period %d, --max-iter %d) could take %.3g strides, "
                        "above the bound of %.0e: lower --starts, --period or --max-iter",
                        set.opt.starts, per_start, run.newton.period, run.newton.max_iter,
                        (double)set.opt.starts * per_start, SEARCH_MAX_STRIDES);
    if (set.max_starts) {
        if ((size_t)set.max_starts < set.opt.starts)
            return cli_fail(&run, EX_USAGE, "--max-starts %ld is below --starts %zu; raise it or lower --starts",
                            set.max_starts, set.opt.starts);
        if ((double)set.max_starts * per_start > SEARCH_MAX_STRIDES)
            return cli_fail(&run, EX_USAGE,
                            "--max-starts %ld x up to %.0f strides each could take %.3g strides, above the bound "
                            "of %.0e: lower --max-starts, --period or --max-iter",
                            set.max_starts, per_start, (double)set.max_starts * per_start, SEARCH_MAX_STRIDES);
        set.opt.max_starts = (size_t)set.max_starts;
    } else {
        const double budget = floor(SEARCH_MAX_STRIDES / per_start);
        set.opt.max_starts = (size_t)fmin(16.0 * (double)set.opt.starts, fmax(budget, (double)set.opt.starts));
    }
    char why[256];
    if (sm_search_options_check(m, &set.opt, why, sizeof why) != SM_OK) return cli_fail(&run, EX_DATAERR, "%s", why);

    progress_line pl = {.tty = isatty(STDERR_FILENO), .t0 = now_seconds()};
    pl.last = pl.t0;
    const bool show = !set.quiet && (set.progress || pl.tty);
    if (show) {
        set.opt.progress = on_progress;
        set.opt.progress_ctx = &pl;
    }

    enum { CAP = 64 };
    sm_search_result res = {.cap = CAP};
    res.found = calloc(CAP, sizeof *res.found);
    res.minimal_period = calloc(CAP, sizeof *res.minimal_period);
    res.hits = calloc(CAP, sizeof *res.hits);
    res.scratch = calloc((size_t)run.newton.period * SM_MAX_STATE, sizeof *res.scratch);
    sm_workspace *ws = NULL;
    sm_status st = res.found && res.minimal_period && res.hits && res.scratch
                       ? sm_workspace_create(m, &run.solver, &ws)
                       : SM_NO_MEMORY;
    if (st == SM_OK) st = sm_search(ws, run.params, &run.newton, &set.opt, &res);
    sm_workspace_free(ws);
    if (show && st == SM_OK) {
        sm_search_progress last = {.done = res.starts_run, .planned = res.starts_run, .max = set.opt.max_starts,
                                   .found = res.n_found, .failed = res.failed};
        print_progress(&pl, &last, true);
    }
    const size_t n = res.n_found;
    if (st != SM_OK) {
        rc = cli_fail(&run, EX_SOFTWARE, "search failed: %s", sm_strerror(st));
    } else if (run.json) {
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(list, gait_json(&run, &res.found[i], res.minimal_period[i], res.hits[i]));
        json_t *names = json_array(), *params = json_object();
        for (size_t k = 0; k < m->n_state; k++) json_array_append_new(names, json_string(m->state_names[k]));
        for (size_t i = 0; i < m->n_params; i++)
            json_object_set_new(params, m->params[i].name, cli_json_number(run.params[i]));
        json_t *doc = json_pack("{s:s, s:o, s:i, s:b, s:I, s:I, s:I, s:I, s:b, s:o, s:o, s:s}", "model", m->name,
                                "params", params, "period", run.newton.period, "two_step", run.two_step,
                                "starts", (json_int_t)res.starts_run,
                                "min_starts", (json_int_t)set.opt.starts, "max_starts",
                                (json_int_t)set.opt.max_starts, "starts_without_gait", (json_int_t)res.failed,
                                "gaits_dropped", res.full, "state_names", names, "gaits", list, "version",
                                STRIDEMAP_VERSION);
        cli_json_schema(doc);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        printf("model %s, ", m->name);
        cli_print_params(stdout, m, run.params);
        printf("\n%zu distinct gait%s from %zu starts (%zu found none)\n", n, n == 1 ? "" : "s", res.starts_run,
               res.failed);
        for (size_t i = 0; i < n; i++) {
            const sm_fixed_result *r = &res.found[i];
            char shortest[48] = "";
            if (res.minimal_period[i] != r->period)
                snprintf(shortest, sizeof shortest, " (%d step%s mirrored)", res.minimal_period[i],
                         res.minimal_period[i] == 1 ? "" : "s");
            printf("gait %zu: period %d%s, %s (max |eigenvalue| %.6g), step period %.8g, length %.8g, speed %.8g, "
                   "found by %zu start%s\n  ",
                   i + 1, r->period, shortest, r->stable ? "stable" : "unstable", r->max_abs_eig, r->metrics.period,
                   r->metrics.step_length, r->metrics.speed, res.hits[i], res.hits[i] == 1 ? "" : "s");
            for (size_t k = 0; k < m->n_state; k++) printf(" %s=%.12g", m->state_names[k], r->x[k]);
            printf("\n");
        }
        if (res.full) printf("more than %d gaits: the rest were dropped\n", CAP);
    }
    free(res.found);
    free(res.minimal_period);
    free(res.hits);
    free(res.scratch);
    if (rc) return rc;
    if (fflush(stdout) != 0 || ferror(stdout)) return cli_fail(&run, EX_IOERR, "could not write the result");
    return n > 0 ? 0 : CLI_EXIT_NO_GAIT;
}
