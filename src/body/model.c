/* A body_file as an sm_model (docs/body-walkers.md): the rigid template
 * built once from the default parameters, the state (q, v) named from the
 * file, the phase graph with per-(phase, event) callbacks, the section,
 * the measures and the release of everything. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_model.h"

static void release(const sm_model *m)
{
    body_model *bm = (body_model *)(void *)m;
    for (size_t i = 0; i < 2 * BODY_MAX_COORDS; i++) free(bm->owned_names[i]);
    for (size_t i = 0; i < 2 * SM_MAX_EXTRA; i++) free(bm->owned_extra[i]);
    body_free_samples(bm);
    sm_rigid_model_free(bm->tmpl);
    body_file_free(bm->f);
    free(bm);
}

const sm_rigid_model *body_model_rigid(const sm_model *m)
{
    return m && m->release == release ? ((const body_model *)(const void *)m)->tmpl : NULL;
}

const body_file *body_model_file(const sm_model *m)
{
    return m && m->release == release ? ((const body_model *)(const void *)m)->f : NULL;
}

static sm_status fail(body_model *bm, sm_status st, char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static sm_status fail(body_model *bm, sm_status st, char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    release(&bm->model);
    return st;
}

static sm_status build_template(body_model *bm, char *why, size_t why_len)
{
    const body_file *f = bm->f;
    static_assert(BODY_MAX_BODIES <= 64 && BODY_MAX_SITES <= 64, "definitions on the stack");
    sm_rigid_body_def defs[BODY_MAX_BODIES];
    sm_rigid_site_def sites[BODY_MAX_SITES];
    for (size_t i = 0; i < f->n_bodies; i++) {
        body_def_at(f, i, bm->defaults, &defs[i]);
        bm->def0[i] = defs[i];
    }
    for (size_t i = 0; i < f->n_sites; i++) {
        sites[i].name = f->sites[i].name;
        sites[i].body = f->sites[i].body;
        body_site_at(f, i, bm->defaults, sites[i].pos);
        memcpy(bm->site0[i], sites[i].pos, sizeof bm->site0[i]);
    }
    double g[3];
    body_gravity_at(f, bm->defaults, g);
    memcpy(bm->gravity0, g, sizeof g);
    body_eval_plan(bm);
    char msg[200] = "";
    const sm_status st = sm_rigid_model_create(defs, f->n_bodies, sites, f->n_sites, g, &bm->tmpl, msg, sizeof msg);
    if (st == SM_NO_MEMORY) {
        snprintf(why, why_len, "%s: out of memory for its bodies", f->path);
        return st;
    }
    if (st != SM_OK) {
        snprintf(why, why_len, "%s: %s", f->path, msg);
        return SM_BAD_MODEL_FILE;
    }
    return SM_OK;
}

static sm_status name_state(body_model *bm, char *why, size_t why_len)
{
    const body_file *f = bm->f;
    for (size_t i = 0; i < bm->nq; i++) bm->state_names[i] = f->q_names[i];
    for (size_t i = 0; i < bm->nv; i++) {
        if (f->v_names[i]) {
            bm->state_names[bm->nq + i] = f->v_names[i];
            continue;
        }
        /* a rate is named after its coordinate where both are one number */
        const char *q = i < bm->nq ? f->q_names[i] : "v";
        const size_t len = strlen(q) + 5;
        char *s = malloc(len);
        if (!s) {
            snprintf(why, why_len, "%s: out of memory for the state's names", f->path);
            return SM_NO_MEMORY;
        }
        snprintf(s, len, "%s_dot", q);
        bm->owned_names[bm->nq + i] = s;
        bm->state_names[bm->nq + i] = s;
    }
    return SM_OK;
}

static void build_phases(body_model *bm)
{
    const body_file *f = bm->f;
    for (size_t ph = 0; ph < f->n_phases; ph++) {
        const body_phase *P = &f->phases[ph];
        for (size_t k = 0; k < P->n_events; k++) {
            const body_event *E = &P->events[k];
            const bool resets = E->impact || E->relabel || E->outcome == SM_EVENT_SECTION || E->when == BODY_WHEN_PUSH;
            bm->events[ph][k] = (sm_event){
                .name = E->name,
                .value = body_event_value_fn(ph, k),
                .direction = E->direction,
                .guard = E->n_guards ? body_event_guard_fn(ph, k) : NULL,
                .outcome = E->outcome,
                .next_phase = E->outcome == SM_EVENT_TO_PHASE ? (size_t)E->next_phase : 0,
                .reset = resets && E->outcome != SM_EVENT_FAIL ? body_event_reset_fn(ph, k) : NULL,
                .failure = E->failure,
                .strike = body_event_strikes(f, ph, k),
            };
        }
        bm->phases[ph] = (sm_phase){.name = P->name, .rhs = body_phase_rhs_fn(ph), .n_events = P->n_events,
                                    .events = bm->events[ph], .events_all = body_phase_events_fn(ph)};
    }
}

/* Dependent contacts make every solve of the phase singular: refused here,
 * at the file's line, rather than as a failed stride later. */
static sm_status check_phases(body_model *bm, char *why, size_t why_len)
{
    const body_file *f = bm->f;
    double x[SM_MAX_STATE];
    body_guess_full(bm, x, bm->defaults);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    sm_status st = body_eval_init(&e, bm, bm->defaults, mem, why, why_len);
    if (st != SM_OK) return SM_BAD_MODEL_FILE;
    for (size_t ph = 0; ph < f->n_phases; ph++) {
        const body_phase *P = &f->phases[ph];
        sm_contact c[BODY_MAX_CONTACTS];
        if (sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK) {
            snprintf(why, why_len, "%s:%d:%d: the guess is not a finite state: give every coordinate a number",
                     f->path, f->section_pos.line, f->section_pos.col);
            return SM_BAD_MODEL_FILE;
        }
        const size_t nc = body_phase_contacts(&e, ph, x + bm->nq, c);
        const size_t rows = sm_contact_set_rows(e.m, c, nc);
        if (rows > SM_RIGID_MAX_ROWS || rows > bm->nv) {
            snprintf(why, why_len,
                     "%s:%d:%d: phase '%s' holds %zu constraint rows, more than the walker's %zu rates: remove a contact",
                     f->path, P->contacts_pos.line, P->contacts_pos.col, P->name, rows, bm->nv);
            return SM_BAD_MODEL_FILE;
        }
        st = body_phase_solve(&e, ph, x, NULL, NULL, NULL, NULL);
        if (st == SM_SINGULAR_CONSTRAINTS) {
            snprintf(why, why_len,
                     "%s:%d:%d: phase '%s': its contacts are dependent (one constrains what the others already "
                     "hold): remove one",
                     f->path, P->contacts_pos.line, P->contacts_pos.col, P->name);
            return SM_BAD_MODEL_FILE;
        }
    }
    return SM_OK;
}

sm_status body_model_create(body_file *f, const sm_model **out, char *why, size_t why_len)
{
    *out = NULL;
    body_model *bm = calloc(1, sizeof *bm);
    if (!bm) {
        snprintf(why, why_len, "%s: out of memory for the model", f->path);
        body_file_free(f);
        return SM_NO_MEMORY;
    }
    bm->f = f;
    bm->model.release = release; /* fail() frees through it */
    bm->nq = f->nq;
    bm->nv = f->nv;
    bm->n_state = f->nq + f->nv + body_ctrl_nz(&f->ctrl);
    if (bm->n_state > SM_MAX_STATE || bm->nv > SM_RIGID_MAX_V)
        return fail(bm, SM_BAD_MODEL_FILE, why, why_len,
                    "%s: the walker has %zu coordinates, %zu rates and %zu controller states, more than the %d states "
                    "(%d rates) a model may have: remove bodies",
                    f->path, f->nq, f->nv, body_ctrl_nz(&f->ctrl), SM_MAX_STATE, SM_RIGID_MAX_V);
    for (size_t i = 0; i < f->n_params; i++) bm->defaults[i] = f->params[i].value;

    sm_status st = build_template(bm, why, why_len);
    if (st != SM_OK) {
        release(&bm->model);
        return st;
    }
    if (sm_rigid_nq(bm->tmpl) != f->nq || sm_rigid_nv(bm->tmpl) != f->nv)
        return fail(bm, SM_BAD_MODEL_FILE, why, why_len, "%s: the coordinates do not match the bodies' joints",
                    f->path);
    bm->planar = sm_rigid_is_planar(bm->tmpl);
    bm->model_bytes = sm_rigid_model_bytes(bm->tmpl);
    bm->data_bytes = sm_rigid_data_bytes(bm->tmpl);
    bm->work_doubles = sm_rigid_contact_work_size(bm->tmpl, SM_RIGID_MAX_ROWS);
    bm->scratch_words = body_eval_words(bm);
    if ((st = name_state(bm, why, why_len)) != SM_OK || (st = body_control_state_setup(bm, why, why_len)) != SM_OK) {
        release(&bm->model);
        return st;
    }
    if ((st = body_reduced_setup(bm, why, why_len)) != SM_OK) {
        release(&bm->model);
        return st;
    }
    build_phases(bm);
    bm->section_phase = 0;
    for (size_t k = 0; k < f->n_free; k++) bm->free_index[k] = f->free_index[k];

    sm_model *m = &bm->model;
    m->name = f->name;
    m->title = f->title;
    m->reference = f->reference;
    m->n_state = bm->reduced ? bm->n_reduced : bm->n_state;
    m->state_names = bm->reduced ? bm->reduced_names : bm->state_names;
    m->n_params = f->n_params;
    m->params = f->params;
    m->n_phases = f->n_phases;
    m->phases = bm->phases;
    m->start_phase = 0;
    m->n_free = f->n_free;
    m->free_index = bm->reduced ? bm->reduced_free : bm->free_index;
    m->lift = body_lift;
    m->guess = body_guess;
    body_set_measures(bm);
    m->stiff = f->ctrl.kind != BODY_CTRL_NONE;
    body_set_family(bm);
    body_set_modes(bm);
    /* Every per-step measure is reported or the file is refused: none dropped. */
    const size_t n_extra = body_ground_measure_count(f) + body_lateral_measure_count(bm);
    if (n_extra > SM_MAX_EXTRA)
        return fail(bm, SM_BAD_MODEL_FILE, why, why_len,
                    "%s: the walker's contacts, actuators and impacts give %zu per-step measures (the ground "
                    "group), more than the %d a model may have: name fewer contacts in its impacts",
                    f->path, n_extra, SM_MAX_EXTRA);
    if ((st = body_set_ground_measures(bm)) != SM_OK || (st = body_set_lateral_measures(bm)) != SM_OK ||
        (st = body_set_samples(bm)) != SM_OK) {
        snprintf(why, why_len, "%s: %s for the measures' names", f->path,
                 st == SM_NO_MEMORY ? "out of memory" : "too many");
        release(m);
        return st;
    }
    m->data = bm;

    if ((st = check_phases(bm, why, why_len)) != SM_OK || (st = body_control_check(bm, why, why_len)) != SM_OK) {
        release(m);
        return st;
    }
    char msg[256];
    if (sm_model_validate(m, msg, sizeof msg) != SM_OK)
        return fail(bm, SM_BAD_MODEL_FILE, why, why_len, "%s: %s", f->path, msg);
    *out = m;
    return SM_OK;
}
