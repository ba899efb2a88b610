#include <jansson.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap params MODEL [--json]\n"
    "\n"
    "Lists MODEL's parameters with default, admissible range, unit and meaning,\n"
    "and its state variables.  Any parameter can be changed with --set NAME=VALUE\n"
    "in 'simulate' and 'fixed'.  A parameter marked 'disturbance' acts on one step in\n"
    "'stridemap disturb' and the gait sensitivity norm ('fixed'); set, it acts on every step.\n"
    "\n"
    "example:\n"
    "  stridemap params rimless\n";

/* Columns as wide as their widest entry: file models have long dotted names. */
static void print_table(const sm_model *m)
{
    enum { W = 96 };
    char value[SM_MAX_PARAMS][32], range[SM_MAX_PARAMS][W];
    int wn = (int)strlen("parameter"), wv = (int)strlen("default"), wr = (int)strlen("range"), wu = (int)strlen("unit");
    for (size_t i = 0; i < m->n_params; i++) {
        const sm_param_def *d = &m->params[i];
        char lo[32], hi[32];
        cli_format_double(d->value, value[i]);
        snprintf(range[i], W, "[%s, %s]%s%s", cli_format_double(d->min, lo), cli_format_double(d->max, hi),
                 (d->flags & SM_PARAM_INTEGER) ? " integer" : "",
                 (d->flags & SM_PARAM_DISTURBANCE) ? " disturbance" : "");
        wn = wn > (int)strlen(d->name) ? wn : (int)strlen(d->name);
        wv = wv > (int)strlen(value[i]) ? wv : (int)strlen(value[i]);
        wr = wr > (int)strlen(range[i]) ? wr : (int)strlen(range[i]);
        wu = wu > (int)strlen(d->unit) ? wu : (int)strlen(d->unit);
    }
    printf("%s: %s\n%s\n\n", m->name, m->title, m->reference);
    printf("%-*s %-*s %-*s %-*s %s\n", wn, "parameter", wv, "default", wr, "range", wu, "unit", "description");
    for (size_t i = 0; i < m->n_params; i++) {
        const sm_param_def *d = &m->params[i];
        printf("%-*s %-*s %-*s %-*s %s\n", wn, d->name, wv, value[i], wr, range[i], wu, d->unit, d->description);
    }
    printf("\nstate: ");
    for (size_t i = 0; i < m->n_state; i++) printf("%s%s", i ? ", " : "", m->state_names[i]);
    printf("\nfree on the section: ");
    for (size_t k = 0; k < m->n_free; k++) printf("%s%s", k ? ", " : "", m->state_names[m->free_index[k]]);
    printf("\n");
}

int cmd_params(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "params");
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"help", no_argument, 0, OPT_HELP}, {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, argv, opts, help, NULL, NULL, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;

    if (run.json) {
        json_t *params = json_array(), *states = json_array();
        for (size_t i = 0; i < m->n_params; i++) {
            const sm_param_def *d = &m->params[i];
            json_array_append_new(params, json_pack("{s:s, s:f, s:f, s:f, s:s, s:s, s:b, s:b}", "name", d->name,
                                                    "default", d->value, "min", d->min, "max", d->max,
                                                    "unit", d->unit, "description", d->description,
                                                    "integer", (d->flags & SM_PARAM_INTEGER) != 0,
                                                    "disturbance", (d->flags & SM_PARAM_DISTURBANCE) != 0));
        }
        for (size_t i = 0; i < m->n_state; i++) json_array_append_new(states, json_string(m->state_names[i]));
        json_t *doc = json_pack("{s:s, s:o, s:o}", "model", m->name, "params", params, "state_names", states);
        cli_json_schema(doc);
        json_dumpf(doc, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        print_table(m);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) return cli_fail(&run, EX_IOERR, "could not write the list");
    return 0;
}
