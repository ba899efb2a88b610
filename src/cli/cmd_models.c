#include <dirent.h>
#include <math.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int yaml_file(const struct dirent *e)
{
    const size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".yaml") == 0;
}

/* One row of the listing: what to type, and what it is. */
typedef struct {
    char name[1800];
    const char *file; /* NULL for a built-in */
    size_t n_state, n_free;
    char title[300], reference[300];
    bool loads;
} row;

static bool seen(const row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0) return true;
    return false;
}

/* Model files in every model directory (registry.h), by the name that opens
 * them (their path where an earlier directory or a built-in has the name);
 * a file that does not load shows why. */
static size_t list_files(row *rows, size_t n, size_t cap)
{
    char dir[1024];
    for (size_t d = 0; sm_registry_model_dir(d, dir, sizeof dir); d++) {
        struct dirent **names = NULL;
        const int k = scandir(dir, &names, yaml_file, alphasort);
        for (int i = 0; i < k; i++) {
            row *r = &rows[n];
            snprintf(r->name, sizeof r->name, "%.*s", (int)(strlen(names[i]->d_name) - 5), names[i]->d_name);
            char path[1700];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            if (n < cap && seen(rows, n, r->name)) {
                /* Shadowed by a built-in or an earlier directory: its path opens it. */
                snprintf(r->name, sizeof r->name, "%s", path);
            }
            if (n < cap && !seen(rows, n, r->name)) {
                const sm_model *m = NULL;
                r->loads = sm_registry_open(path, &m, r->reference, sizeof r->reference) == SM_OK;
                r->file = strdup(path);
                if (r->loads) {
                    r->n_state = m->n_state, r->n_free = m->n_free;
                    snprintf(r->title, sizeof r->title, "%s", m->title);
                    snprintf(r->reference, sizeof r->reference, "%s", m->reference);
                    sm_registry_close(m);
                }
                n++;
            }
            free(names[i]);
        }
        free(names);
    }
    return n;
}

static const char help[] =
    "usage: stridemap models [--json]\n"
    "\n"
    "Lists the built-in walkers and the model files NAME.yaml found in the\n"
    "directories of $STRIDEMAP_MODEL_PATH (colon-separated), ./models and the\n"
    "installed share/stridemap/models, in that order (an earlier NAME hides a\n"
    "later one): the name to type, state size, free coordinates on the Poincare\n"
    "section, the reference each one reproduces, and its file.\n"
    "\n"
    "example:\n"
    "  stridemap models\n";

int cmd_models(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "models");
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"help", no_argument, 0, OPT_HELP}, {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, argv, opts, help, NULL, NULL, true);
    if (rc) return rc == CLI_DONE ? 0 : rc;

    enum { CAP = 512 };
    row *rows = calloc(CAP, sizeof *rows);
    if (!rows) return cli_fail(&run, EX_OSERR, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < sm_registry_count() && n < CAP; i++, n++) {
        const sm_model *m = sm_registry_at(i);
        snprintf(rows[n].name, sizeof rows[n].name, "%s", m->name);
        rows[n].n_state = m->n_state, rows[n].n_free = m->n_free, rows[n].loads = true;
        snprintf(rows[n].title, sizeof rows[n].title, "%s", m->title);
        snprintf(rows[n].reference, sizeof rows[n].reference, "%s", m->reference);
    }
    n = list_files(rows, n, CAP);

    if (run.json) {
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++) {
            if (!rows[i].loads) continue;
            json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I}", "name", rows[i].name, "title", rows[i].title,
                                  "reference", rows[i].reference, "n_state", (json_int_t)rows[i].n_state,
                                  "n_free", (json_int_t)rows[i].n_free);
            if (rows[i].file) json_object_set_new(o, "file", json_string(rows[i].file));
            json_array_append_new(list, o);
        }
        json_dumpf(list, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(list);
    } else {
        int w = (int)strlen("model");
        for (size_t i = 0; i < n; i++) w = (int)fmax(w, (double)strlen(rows[i].name));
        printf("%-*s %-5s %-4s %s\n", w, "model", "state", "free", "description");
        for (size_t i = 0; i < n; i++) {
            const row *r = &rows[i];
            if (!r->loads) {
                printf("%-*s (%s does not load: %s)\n", w, r->name, r->file, r->reference);
                continue;
            }
            printf("%-*s %-5zu %-4zu %s\n", w, r->name, r->n_state, r->n_free, r->title);
            printf("%-*s %s%s%s\n", w + 11, "", r->reference, r->file ? "; file " : "", r->file ? r->file : "");
        }
    }
    for (size_t i = 0; i < n; i++) free((char *)rows[i].file);
    free(rows);
    if (fflush(stdout) != 0 || ferror(stdout)) return cli_fail(&run, EX_IOERR, "could not write the list");
    return 0;
}
