#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int yaml_file(const struct dirent *e)
{
    const size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".yaml") == 0;
}

/* Model files in ./models/ (linkage.h), listed beside the built-ins by their
 * path, which is what to type; a file that does not load shows why. */
static void list_files(json_t *list)
{
    struct dirent **names = NULL;
    const int n = scandir("models", &names, yaml_file, alphasort);
    for (int i = 0; i < n; i++) {
        char path[600], why[1024];
        snprintf(path, sizeof path, "models/%s", names[i]->d_name);
        const sm_model *m = NULL;
        if (sm_registry_open(path, &m, why, sizeof why) == SM_OK) {
            if (list)
                json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "name", m->name, "file",
                                                      path, "title", m->title, "reference", m->reference,
                                                      "n_state", (json_int_t)m->n_state, "n_free",
                                                      (json_int_t)m->n_free));
            else
                printf("%-10s %-6zu %-5zu %s\n%-24s %s\n", path, m->n_state, m->n_free, m->title, "",
                       m->reference);
            sm_registry_close(m);
        } else if (!list) {
            printf("%-10s (does not load: %s)\n", path, why);
        }
        free(names[i]);
    }
    free(names);
}

static const char help[] =
    "usage: stridemap models [--json]\n"
    "\n"
    "Lists the built-in walkers and the model files in ./models/*.yaml (by\n"
    "path): name, state size, free coordinates on the Poincare section, and\n"
    "the reference each one reproduces.\n"
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
        list_files(list);
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
    list_files(NULL);
    return 0;
}
