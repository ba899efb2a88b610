#include <jansson.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap models [--json]\n"
    "\n"
    "Lists the built-in walkers: name, state size, free coordinates on the\n"
    "Poincare section, and the reference each one reproduces.\n"
    "\n"
    "example:\n"
    "  stridemap models\n";

int cmd_models(int argc, char **argv)
{
    cli_run run;
    cli_run_init(&run, "models");
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"help", no_argument, 0, OPT_HELP}, {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, argv, opts, help, NULL, NULL, true);
    if (rc) return rc == CLI_DONE ? 0 : rc;

    if (run.json) {
        json_t *list = json_array();
        for (size_t i = 0; i < sm_registry_count(); i++) {
            const sm_model *m = sm_registry_at(i);
            json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:I, s:I}", "name", m->name, "title",
                                                  m->title, "reference", m->reference, "n_state",
                                                  (json_int_t)m->n_state, "n_free", (json_int_t)m->n_free));
        }
        json_dumpf(list, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(list);
        return 0;
    }
    printf("%-10s %-6s %-5s %s\n", "model", "state", "free", "description");
    for (size_t i = 0; i < sm_registry_count(); i++) {
        const sm_model *m = sm_registry_at(i);
        printf("%-10s %-6zu %-5zu %s\n%-24s %s\n", m->name, m->n_state, m->n_free, m->title, "",
               m->reference);
    }
    return 0;
}
