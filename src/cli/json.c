/* The program's one output vocabulary: the solver object, a gait's
 * multipliers and measures, and where a sidecar goes, built the same way by
 * every command that writes them.  One key per meaning: "t_max" for the
 * stride time limit, "step_period" for a step's duration (the metric
 * table's output name), "period" only for N of P^N. */
#include <math.h>
#include <string.h>

#include "cli.h"

void cli_json_schema(json_t *doc) { json_object_set_new(doc, "schema", json_string(CLI_OUTPUT_SCHEMA)); }

json_t *cli_json_number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *cli_solver_json(const sm_solver_options *o)
{
    return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o}", "method", sm_method_name(o->method),
                     "max_order", o->max_order, "rtol", cli_json_number(o->rtol), "atol", cli_json_number(o->atol),
                     "max_step", cli_json_number(o->max_step), "t_max", cli_json_number(o->t_max));
}

json_t *cli_eigenvalues_json(size_t n, const double *re, const double *im)
{
    json_t *eig = json_array();
    for (size_t k = 0; k < n; k++) json_array_append_new(eig, json_pack("[o, o]", cli_json_number(re[k]), cli_json_number(im[k])));
    return eig;
}

void cli_json_trivial(json_t *doc, const double *re, const double *im, int trivial_index, bool null_note)
{
    /* A conservation law or a family of gaits pins one multiplier at 1; it is
     * reported, not judged. */
    if (trivial_index >= 0) {
        json_object_set_new(doc, "trivial_multiplier",
                            json_pack("[o, o]", cli_json_number(re[trivial_index]), cli_json_number(im[trivial_index])));
        json_object_set_new(doc, "stability_note",
                            json_string("one multiplier is 1 because the model's gaits form a family (a "
                                        "conserved quantity, or a family condition picks one member); "
                                        "stability is judged on the others"));
    } else {
        json_object_set_new(doc, "trivial_multiplier", json_null());
        if (null_note) json_object_set_new(doc, "stability_note", json_null());
    }
}

void cli_json_metrics(json_t *doc, const sm_step_metrics *mt, size_t n)
{
    for (size_t i = 0; i < n && i < sm_metric_field_count; i++)
        json_object_set_new(doc, sm_metric_fields[i].output, cli_json_number(sm_metric_value(mt, i)));
}

void cli_sidecar_path(const char *out, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!out || strcmp(out, "-") == 0) return;
    size_t n = strlen(out);
    if (n > 4 && strcmp(out + n - 4, ".csv") == 0)
        snprintf(buf, len, "%.*s.json", (int)(n - 4), out);
    else
        snprintf(buf, len, "%s.json", out);
}
