#include "stridemap/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int sm_model_param_index(const sm_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_params; i++)
        if (strcmp(m->params[i].name, name) == 0) return (int)i;
    return -1;
}

int sm_model_state_index(const sm_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_state; i++)
        if (strcmp(m->state_names[i], name) == 0) return (int)i;
    return -1;
}

void sm_model_default_params(const sm_model *m, double *p)
{
    for (size_t i = 0; i < m->n_params; i++) p[i] = m->params[i].value;
}

sm_status sm_model_check_param(const sm_model *m, size_t i, double v, char *why, size_t why_len)
{
    const sm_param_def *d = &m->params[i];
    if (!isfinite(v)) {
        snprintf(why, why_len, "parameter '%s' of model '%s' must be a finite number", d->name, m->name);
        return SM_BAD_PARAM;
    }
    if (v < d->min || v > d->max) {
        snprintf(why, why_len, "parameter '%s' of model '%s' is %g; it must lie in [%g, %g] %s",
                 d->name, m->name, v, d->min, d->max, d->unit);
        return SM_BAD_PARAM;
    }
    if ((d->flags & SM_PARAM_INTEGER) && v != floor(v)) {
        snprintf(why, why_len, "parameter '%s' of model '%s' must be a whole number, not %g", d->name,
                 m->name, v);
        return SM_BAD_PARAM;
    }
    return SM_OK;
}

sm_status sm_model_check_params(const sm_model *m, const double *p, char *why, size_t why_len)
{
    for (size_t i = 0; i < m->n_params; i++) {
        sm_status s = sm_model_check_param(m, i, p[i], why, why_len);
        if (s != SM_OK) return s;
    }
    if (m->check_params && !m->check_params(p, m->data, why, why_len)) return SM_BAD_PARAM;
    return SM_OK;
}

sm_status sm_model_validate(const sm_model *m, char *why, size_t why_len)
{
    if (!m->name || m->n_state == 0 || m->n_state > SM_MAX_STATE || m->n_params > SM_MAX_PARAMS ||
        !m->state_names || (m->n_params && !m->params) ||
        (!m->map && (m->n_phases == 0 || !m->phases || m->start_phase >= m->n_phases)) ||
        m->n_free == 0 || m->n_free > m->n_state ||
        !m->free_index || !m->lift || !m->guess || !m->time_limit) {
        snprintf(why, why_len, "model '%s' is incomplete: sizes, phases, section or guess missing",
                 m->name ? m->name : "?");
        return SM_BAD_OPTION;
    }
    for (size_t k = 0; k < m->n_free; k++)
        if (m->free_index[k] >= m->n_state) {
            snprintf(why, why_len, "model '%s': free index %zu is outside the state", m->name, k);
            return SM_BAD_OPTION;
        }
    if (m->n_sample > SM_MAX_SAMPLE || (m->n_sample && (!m->sample || !m->sample_names))) {
        snprintf(why, why_len, "model '%s': %zu per-sample measures without names or function (at most %d)",
                 m->name, m->n_sample, SM_MAX_SAMPLE);
        return SM_BAD_OPTION;
    }
    if (m->n_extra > SM_MAX_EXTRA) {
        snprintf(why, why_len, "model '%s': %zu extra measures, more than the %d a model may have", m->name,
                 m->n_extra, SM_MAX_EXTRA);
        return SM_BAD_OPTION;
    }
    if (m->map) return SM_OK;
    bool has_section = false;
    for (size_t ph = 0; ph < m->n_phases; ph++) {
        const sm_phase *P = &m->phases[ph];
        if (!P->rhs || P->n_events == 0 || !P->events) {
            snprintf(why, why_len, "model '%s': phase %zu has no equations or no events", m->name, ph);
            return SM_BAD_OPTION;
        }
        for (size_t e = 0; e < P->n_events; e++) {
            const sm_event *E = &P->events[e];
            if (!E->value || (E->outcome == SM_EVENT_TO_PHASE && E->next_phase >= m->n_phases)) {
                snprintf(why, why_len, "model '%s': event '%s' is incomplete", m->name,
                         E->name ? E->name : "?");
                return SM_BAD_OPTION;
            }
            has_section |= E->outcome == SM_EVENT_SECTION;
        }
    }
    if (!has_section) {
        snprintf(why, why_len, "model '%s': no event ends the stride on the section", m->name);
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

void sm_model_free(const sm_model *m, const double *x, double *z)
{
    for (size_t k = 0; k < m->n_free; k++) z[k] = x[m->free_index[k]];
}

void sm_model_lift(const sm_model *m, const double *p, const double *z, double *x)
{
    memset(x, 0, m->n_state * sizeof *x);
    for (size_t k = 0; k < m->n_free; k++) x[m->free_index[k]] = z[k];
    m->lift(x, p, m->data);
}

void sm_model_to_section(const sm_model *m, const double *p, const double *x, double *x_section)
{
    /* Through z, so that x and x_section may be the same array. */
    double z[SM_MAX_STATE];
    sm_model_free(m, x, z);
    sm_model_lift(m, p, z, x_section);
}
