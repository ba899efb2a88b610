#include "stridemap/stride.h"

#include <math.h>
#include <string.h>

static bool all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

sm_status sm_stride(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                    sm_step_metrics *metrics, const sm_observer *obs)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t n = m->n_state;
    sm_step_metrics local;
    sm_step_metrics *mt = metrics ? metrics : &local;
    mt->period = NAN;
    mt->step_length = NAN;
    mt->speed = NAN;
    mt->impact_energy_loss = m->kinetic_energy ? 0.0 : NAN;
    mt->n_events = 0;

    memmove(x_out, x_in, n * sizeof *x_out);
    if (!all_finite(x_in, n)) return SM_BAD_STATE;

    if (m->map) {
        double period = 1.0;
        if (m->map(x_in, x_out, &period, p, m->data) < 0) return SM_RHS_FAILED;
        if (!all_finite(x_out, n)) return SM_NONFINITE;
        mt->period = period;
        mt->n_events = 1;
        return SM_OK;
    }

    const double tlim = sm_workspace_options(ws)->t_max;
    const double t_end = tlim > 0 ? tlim : m->time_limit(p, m->data);
    double x[SM_MAX_STATE], x_plus[SM_MAX_STATE];
    memcpy(x, x_in, n * sizeof *x);
    double t = 0.0;
    size_t phase = m->start_phase;

    while (mt->n_events < SM_MAX_EVENTS_PER_STRIDE) {
        size_t e = 0;
        sm_status st = sm_hybrid_flow(ws, p, phase, &t, x, t_end, obs, &e);
        if (st != SM_OK) {
            memcpy(x_out, x, n * sizeof *x);
            return st;
        }
        const sm_event *ev = &m->phases[phase].events[e];
        mt->n_events++;
        if (ev->outcome == SM_EVENT_FAIL) {
            memcpy(x_out, x, n * sizeof *x);
            if (obs && obs->event && obs->event(obs->ctx, t, phase, ev->name, x, x) != 0)
                return SM_IO_ERROR;
            return ev->failure;
        }
        if (ev->reset) {
            if (ev->reset(x, x_plus, p, m->data) < 0) {
                memcpy(x_out, x, n * sizeof *x);
                return SM_RHS_FAILED;
            }
            if (!all_finite(x_plus, n)) {
                memcpy(x_out, x_plus, n * sizeof *x);
                return SM_NONFINITE;
            }
        } else {
            memcpy(x_plus, x, n * sizeof *x);
        }
        if (m->kinetic_energy)
            mt->impact_energy_loss += m->kinetic_energy(x, p, m->data) - m->kinetic_energy(x_plus, p, m->data);
        if (obs && obs->event && obs->event(obs->ctx, t, phase, ev->name, x, x_plus) != 0) {
            memcpy(x_out, x_plus, n * sizeof *x);
            return SM_IO_ERROR;
        }
        if (ev->outcome == SM_EVENT_SECTION) {
            mt->period = t;
            if (m->step_length) mt->step_length = m->step_length(x, p, m->data);
            mt->speed = mt->step_length / mt->period;
            memcpy(x_out, x_plus, n * sizeof *x);
            return SM_OK;
        }
        memcpy(x, x_plus, n * sizeof *x);
        phase = ev->next_phase;
    }
    memcpy(x_out, x, n * sizeof *x);
    return SM_EVENT_ORDER;
}
