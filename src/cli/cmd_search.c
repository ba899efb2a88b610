#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stridemap/search.h"

static const char help[] =
    "usage: stridemap search MODEL [--set NAME=VALUE]... [--period N] [--starts K]\n"
    "                        [--box LO:HI,LO:HI,...] [--rtol R] [--atol A] [--tol T] [--json]\n"
    "\n"
    "Finds the gaits of MODEL without a guess: Newton from K starts (default 64 N)\n"
    "spread evenly (a Halton sequence) over a box of the section's free\n"
    "coordinates, duplicates dropped.  The model supplies the box; --box gives\n"
    "one LO:HI per free coordinate, in the order 'stridemap params' lists them.\n"
    "A period-N search also lists shorter cycles it lands on, at their own\n"
    "period.  Each gait comes with its stability and step measures.\n"
    "\n"
    "exit status: 0 at least one gait found, 1 none, 64 bad usage, 65 bad values.\n"
    "\n"
    "example:\n"
    "  stridemap search simplest --set gamma=0.009\n";

typedef struct {
    sm_search_options opt;
    const char *box;
    long starts;
} search_settings;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    search_settings *s = ctx;
    switch (opt) {
    case OPT_STARTS:
        if (!cli_parse_long(arg, 1, 1000000, &s->starts))
            return cli_fail(run, EX_DATAERR, "--starts takes a whole number from 1 to 1000000, not '%s'", arg);
        return 0;
    case OPT_BOX:
        s->box = arg;
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
    if (k != m->n_free)
        return cli_fail(run, EX_DATAERR, "--box needs %zu ranges LO:HI, one per free coordinate, not '%s'",
                        m->n_free, text);
    return 0;
}

int cmd_search(int argc, char **argv)
{
    cli_run run;
    cli_run_init(&run, "search");
    /* Newton from a poor start should give up early: there are many starts. */
    run.newton.max_iter = 20;
    run.newton.max_backtracks = 8;
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"period", required_argument, 0, OPT_PERIOD},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"max-iter", required_argument, 0, OPT_MAX_ITER},
                                         {"starts", required_argument, 0, OPT_STARTS},
                                         {"box", required_argument, 0, OPT_BOX},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {0, 0, 0, 0}};
    search_settings set = {.starts = 0};
    int rc = cli_parse(&run, argc, argv, opts, help, own_option, &set, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;
    sm_search_options_default(m, run.params, &set.opt);
    /* Longer cycles fall more often on the way: more starts by default. */
    set.opt.starts = set.starts ? (size_t)set.starts : set.opt.starts * (size_t)run.newton.period;
    if (set.box && (rc = parse_box(&run, set.box, &set.opt))) return rc;
    char why[256];
    if (sm_search_options_check(m, &set.opt, why, sizeof why) != SM_OK) return cli_fail(&run, EX_DATAERR, "%s", why);

    enum { CAP = 64 };
    sm_fixed_result *found = calloc(CAP, sizeof *found);
    int shortest[CAP];
    size_t n = 0, failed = 0;
    sm_workspace *ws = NULL;
    sm_status st = found ? sm_workspace_create(m, &run.solver, &ws) : SM_NO_MEMORY;
    if (st == SM_OK) st = sm_search(ws, run.params, &run.newton, &set.opt, found, shortest, CAP, &n, &failed);
    sm_workspace_free(ws);
    if (st != SM_OK) {
        free(found);
        return cli_fail(&run, EX_SOFTWARE, "search failed: %s", sm_strerror(st));
    }

    if (run.json) {
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++) {
            const sm_fixed_result *r = &found[i];
            json_t *x = json_array(), *eig = json_array();
            for (size_t k = 0; k < m->n_state; k++) json_array_append_new(x, cli_json_number(r->x[k]));
            for (size_t k = 0; k < r->n_free; k++)
                json_array_append_new(eig, json_pack("[o, o]", cli_json_number(r->eig_re[k]), cli_json_number(r->eig_im[k])));
            json_array_append_new(list, json_pack("{s:i, s:o, s:o, s:o, s:b, s:o, s:o, s:o}", "period", shortest[i],
                                                  "fixed_point", x, "eigenvalues", eig, "max_abs_eigenvalue",
                                                  cli_json_number(r->max_abs_eig), "stable", r->stable, "step_period",
                                                  cli_json_number(r->metrics.period), "step_length",
                                                  cli_json_number(r->metrics.step_length), "speed", cli_json_number(r->metrics.speed)));
        }
        json_t *names = json_array();
        for (size_t k = 0; k < m->n_state; k++) json_array_append_new(names, json_string(m->state_names[k]));
        json_t *doc = json_pack("{s:s, s:i, s:I, s:I, s:o, s:o}", "model", m->name, "period", run.newton.period,
                                "starts", (json_int_t)set.opt.starts, "starts_without_gait", (json_int_t)failed,
                                "state_names", names, "gaits", list);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        printf("model %s, ", m->name);
        cli_print_params(stdout, m, run.params);
        printf("\n%zu distinct gait%s from %zu starts (%zu found none)\n", n, n == 1 ? "" : "s", set.opt.starts,
               failed);
        for (size_t i = 0; i < n; i++) {
            const sm_fixed_result *r = &found[i];
            printf("gait %zu: period %d, %s (max |eigenvalue| %.6g), step period %.8g, length %.8g, speed %.8g\n  ",
                   i + 1, shortest[i], r->stable ? "stable" : "unstable", r->max_abs_eig, r->metrics.period,
                   r->metrics.step_length, r->metrics.speed);
            for (size_t k = 0; k < m->n_state; k++) printf(" %s=%.12g", m->state_names[k], r->x[k]);
            printf("\n");
        }
    }
    free(found);
    if (fflush(stdout) != 0) return cli_fail(&run, EX_IOERR, "could not write the result");
    return n > 0 ? 0 : CLI_EXIT_NO_GAIT;
}
