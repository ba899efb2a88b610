/* The flat interface's model handle: opening, names, parameters, settings. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_internal.h"

int ffi_fail(sm_ffi_model *h, int st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->why, sizeof h->why, fmt, ap);
    va_end(ap);
    return st;
}

static void cont_defaults(ffi_cont_settings *c)
{
    /* The stridemap program's: cmd_continue.c. */
    *c = (ffi_cont_settings){.step = 1e-3, .step_min = 1e-8, .weight = 1.0, .locate_tol = 1e-10,
                             .max_points = 500, .max_period = 16, .corrector_iter = 8, .locate = true};
}

void sm_ffi_reset_options(sm_ffi_model *h)
{
    sm_solver_options_default(&h->solver);
    sm_newton_options_default(&h->newton);
    h->method_given = h->two_step = false;
    cont_defaults(&h->cont);
}

void sm_ffi_reset_params(sm_ffi_model *h) { sm_model_default_params(h->m, h->params); }

const char *sm_ffi_builtin(size_t i)
{
    const sm_model *m = sm_registry_at(i);
    return m ? m->name : NULL;
}

int sm_ffi_open(const char *name, sm_ffi_model **out, char *why, size_t why_len)
{
    *out = NULL;
    if (why_len) why[0] = '\0';
    sm_ffi_model *h = calloc(1, sizeof *h);
    if (!h) return SM_NO_MEMORY;
    const sm_status st = sm_registry_open(name ? name : "", &h->m, why, why_len);
    if (st != SM_OK) {
        free(h);
        return st;
    }
    sm_ffi_reset_params(h);
    sm_ffi_reset_options(h);
    *out = h;
    return SM_OK;
}

void sm_ffi_close(sm_ffi_model *h)
{
    if (!h) return;
    sm_registry_close(h->m);
    free(h);
}

const char *sm_ffi_message(const sm_ffi_model *h) { return h->why; }

const char *sm_ffi_model_text(const sm_ffi_model *h, const char *what)
{
    if (strcmp(what, "name") == 0) return h->m->name;
    if (strcmp(what, "title") == 0) return h->m->title;
    if (strcmp(what, "reference") == 0) return h->m->reference;
    return NULL;
}

size_t sm_ffi_n_state(const sm_ffi_model *h) { return h->m->n_state; }
const char *sm_ffi_state_name(const sm_ffi_model *h, size_t i)
{
    return i < h->m->n_state ? h->m->state_names[i] : NULL;
}
size_t sm_ffi_n_free(const sm_ffi_model *h) { return h->m->n_free; }
size_t sm_ffi_free_index(const sm_ffi_model *h, size_t k) { return k < h->m->n_free ? h->m->free_index[k] : 0; }
size_t sm_ffi_n_sample(const sm_ffi_model *h) { return h->m->n_sample; }
const char *sm_ffi_sample_name(const sm_ffi_model *h, size_t i)
{
    return i < h->m->n_sample ? h->m->sample_names[i] : NULL;
}
size_t sm_ffi_n_phases(const sm_ffi_model *h) { return h->m->n_phases; }
const char *sm_ffi_phase_name(const sm_ffi_model *h, size_t i)
{
    return i < h->m->n_phases ? h->m->phases[i].name : NULL;
}

size_t sm_ffi_n_events(const sm_ffi_model *h)
{
    size_t n = 0;
    for (size_t p = 0; p < h->m->n_phases; p++) n += h->m->phases[p].n_events;
    return n;
}

const char *sm_ffi_event_name(const sm_ffi_model *h, size_t id)
{
    for (size_t p = 0; p < h->m->n_phases; p++) {
        const sm_phase *P = &h->m->phases[p];
        if (id < P->n_events) return P->events[id].name;
        id -= P->n_events;
    }
    return NULL;
}

size_t sm_ffi_n_params(const sm_ffi_model *h) { return h->m->n_params; }

const char *sm_ffi_param(const sm_ffi_model *h, size_t i, double *def, double *min, double *max,
                         const char **unit, const char **description, int *integer)
{
    if (i >= h->m->n_params) return NULL;
    const sm_param_def *d = &h->m->params[i];
    if (def) *def = d->value;
    if (min) *min = d->min;
    if (max) *max = d->max;
    if (unit) *unit = d->unit;
    if (description) *description = d->description;
    if (integer) *integer = (d->flags & SM_PARAM_INTEGER) != 0;
    return d->name;
}

int sm_ffi_set_param(sm_ffi_model *h, const char *name, double value)
{
    h->why[0] = '\0';
    const int i = sm_model_param_index(h->m, name);
    if (i < 0)
        return ffi_fail(h, SM_UNKNOWN_PARAM, "model '%s' has no parameter '%s' (see the parameters of model %s)",
                        h->m->name, name, h->m->name);
    const sm_status st = sm_model_check_param(h->m, (size_t)i, value, h->why, sizeof h->why);
    if (st == SM_OK) h->params[i] = value;
    return st;
}

void sm_ffi_get_params(const sm_ffi_model *h, double *values)
{
    memcpy(values, h->params, h->m->n_params * sizeof *values);
}

void sm_ffi_guess(const sm_ffi_model *h, double *x) { h->m->guess(x, h->params, h->m->data); }

/* A number that must be a whole one within [lo, hi]. */
static int whole(sm_ffi_model *h, const char *name, double v, long lo, long hi, long *out)
{
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
        return ffi_fail(h, SM_BAD_OPTION, "%s takes a whole number from %ld to %ld, not %g", name, lo, hi, v);
    *out = (long)v;
    return SM_OK;
}

static int positive(sm_ffi_model *h, const char *name, double v, double *out)
{
    if (!(v > 0) || !isfinite(v)) return ffi_fail(h, SM_BAD_OPTION, "%s takes a positive number, not %g", name, v);
    *out = v;
    return SM_OK;
}

int sm_ffi_set_option(sm_ffi_model *h, const char *name, double v)
{
    h->why[0] = '\0';
    long n = 0;
    int st = SM_OK;
    ffi_cont_settings *c = &h->cont;
    /* Ranges the library's option checks do not hold are held here, as the
     * stridemap program holds them (args.c, cmd_continue.c). */
    if (strcmp(name, "rtol") == 0) h->solver.rtol = v;
    else if (strcmp(name, "atol") == 0) h->solver.atol = v;
    else if (strcmp(name, "max_step") == 0) h->solver.max_step = v;
    else if (strcmp(name, "t_max") == 0) h->solver.t_max = v;
    else if (strcmp(name, "max_order") == 0) {
        if ((st = whole(h, name, v, 0, 12, &n)) == SM_OK) h->solver.max_order = (int)n;
    } else if (strcmp(name, "period") == 0) {
        if ((st = whole(h, name, v, 1, 1024, &n)) == SM_OK) h->newton.period = (int)n;
    } else if (strcmp(name, "tol") == 0) h->newton.tol = v;
    else if (strcmp(name, "max_iter") == 0) {
        if ((st = whole(h, name, v, 0, 100000, &n)) == SM_OK) h->newton.max_iter = (int)n;
    } else if (strcmp(name, "fd_step") == 0) h->newton.fd_step = v;
    else if (strcmp(name, "central") == 0) h->newton.central = v != 0;
    else if (strcmp(name, "two_step") == 0) h->two_step = v != 0;
    else if (strcmp(name, "step") == 0) {
        c->have_step = true;
        st = positive(h, name, v, &c->step);
    } else if (strcmp(name, "step_min") == 0) {
        c->have_step_min = true;
        st = positive(h, name, v, &c->step_min);
    } else if (strcmp(name, "step_max") == 0) {
        c->have_step_max = true;
        st = positive(h, name, v, &c->step_max);
    } else if (strcmp(name, "weight") == 0) st = positive(h, name, v, &c->weight);
    else if (strcmp(name, "locate_tol") == 0) st = positive(h, name, v, &c->locate_tol);
    else if (strcmp(name, "amplitude") == 0) st = positive(h, name, v, &c->amplitude);
    else if (strcmp(name, "max_points") == 0) st = whole(h, name, v, 1, 10000000, &c->max_points);
    else if (strcmp(name, "max_period") == 0) st = whole(h, name, v, 1, 1024, &c->max_period);
    else if (strcmp(name, "corrector_iter") == 0) st = whole(h, name, v, 1, 1000, &c->corrector_iter);
    else if (strcmp(name, "locate") == 0) c->locate = v != 0;
    else if (strcmp(name, "switch") == 0) c->do_switch = v != 0;
    else return ffi_fail(h, SM_BAD_OPTION, "no setting called '%s'", name);
    return st;
}

int sm_ffi_set_option_text(sm_ffi_model *h, const char *name, const char *value)
{
    h->why[0] = '\0';
    if (strcmp(name, "method") == 0) {
        for (int k = SM_METHOD_ADAMS; sm_method_name((sm_method)k); k++)
            if (strcmp(value, sm_method_name((sm_method)k)) == 0) {
                h->solver.method = (sm_method)k;
                h->method_given = true;
                return SM_OK;
            }
        return ffi_fail(h, SM_BAD_OPTION, "method is 'adams', 'bdf', 'erk8' or 'erk5', not '%s'", value);
    }
    if (strcmp(name, "jacobian") == 0) {
        if (strcmp(value, "fd") == 0) h->newton.jacobian = SM_JACOBIAN_FD;
        else if (strcmp(value, "exact") == 0) h->newton.jacobian = SM_JACOBIAN_EXACT;
        else return ffi_fail(h, SM_BAD_OPTION, "jacobian is 'fd' or 'exact', not '%s'", value);
        return SM_OK;
    }
    if (strcmp(name, "newton_update") == 0) {
        if (strcmp(value, "broyden") == 0) h->newton.update = SM_NEWTON_BROYDEN;
        else if (strcmp(value, "full") == 0) h->newton.update = SM_NEWTON_FULL;
        else return ffi_fail(h, SM_BAD_OPTION, "newton_update is 'broyden' or 'full', not '%s'", value);
        return SM_OK;
    }
    return ffi_fail(h, SM_BAD_OPTION, "no setting called '%s' that takes a word", name);
}

int ffi_settings(sm_ffi_model *h, sm_solver_options *solver, sm_newton_options *newton)
{
    h->why[0] = '\0';
    sm_status st = sm_model_check_params(h->m, h->params, h->why, sizeof h->why);
    if (st != SM_OK) return st;
    *solver = h->solver;
    *newton = h->newton;
    if (h->m->stiff && !h->method_given) solver->method = SM_METHOD_BDF;
    if (h->two_step) {
        /* Coleman's two-step map is the mirrored map twice (args.c). */
        if (newton->period > 512)
            return ffi_fail(h, SM_BAD_OPTION, "two_step doubles the period: give a period of 512 or less, not %d",
                            newton->period);
        newton->period *= 2;
    }
    st = sm_solver_options_check(solver, h->why, sizeof h->why);
    if (st == SM_OK) st = sm_newton_options_check(newton, h->why, sizeof h->why);
    return st;
}

int ffi_start_state(sm_ffi_model *h, const double *guess, double *x)
{
    if (!guess) {
        sm_ffi_guess(h, x);
        return SM_OK;
    }
    for (size_t i = 0; i < h->m->n_state; i++) {
        if (!isfinite(guess[i]))
            return ffi_fail(h, SM_BAD_STATE, "the guess's %s is not a finite number", h->m->state_names[i]);
        x[i] = guess[i];
    }
    return SM_OK;
}
