/* Events of a body walker: the when-kinds of docs/body-walkers.md, their
 * guards and resets (impact onto the next phase's contacts, relabelling,
 * the projection at the section).  sm_event has no per-event argument, so
 * each (phase, event) gets its own trampolines (a table of
 * BODY_MAX_PHASES x BODY_MAX_EVENTS). */
#include <math.h>
#include <string.h>

#include "body_model.h"

/* Every stride starts on the section, where the touching contacts' gaps
 * are zero: CVODE refuses a root at and very near its initial time, so the
 * position-like event functions start raised by a ramp that vanishes after
 * START_TAU, as the linkage's do (a crossing it causes is a real one or is
 * rejected by the guards), and the force-like ones by a ramp so large that
 * a force already negative at the start is a crossing (an unlocking knee).
 * The ramp is against the awaited direction: a value that starts at its
 * level and moves the awaited way crosses just after the start.  t is the
 * time since the phase began (model.h): the force ramp acts at every
 * phase's start (a contact the phase adds may start pulling, or start
 * beyond its friction cone: a slip), the position ramp in the phase a
 * stride starts in only (start_ramp).  A stick's ramp (event_at) is the
 * other way round, at every phase's start. */
#define START_TAU 1e-9

static double ramp(double t, double height) { return t < START_TAU ? height * (START_TAU - t) / START_TAU : 0.0; }

/* The position ramp of an event of phase ph: in the phase a stride starts
 * in.  A gap is exactly at its level only where the section's projection
 * put it; at a later phase's start a contact the last phase held is off by
 * the integration's drift (1e-13 m), more than a foot leaving at rest moves
 * within START_TAU: biped3d's heel after heel_off read as falling through. */
static double start_ramp(const body_model *bm, size_t ph, double t, double height)
{
    return ph == (size_t)bm->section_phase ? ramp(t, height) : 0.0;
}

/* The normal force and tangential magnitude of contact k in phase ph. */
static sm_status contact_force(const body_eval *e, size_t ph, int k, const double *x, double *normal,
                               double *tangential)
{
    double lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc = 0;
    const sm_status st = body_phase_solve(e, ph, x, NULL, lambda, c, &nc);
    if (st != SM_OK) return st;
    const int slot = body_phase_contact_slot(e->bm->f, ph, k);
    if (slot < 0) return SM_BAD_MODEL_FILE; /* the loader allows force events only on the phase's contacts */
    body_contact_force(e, c, nc, lambda, (size_t)slot, normal, tangential);
    return SM_OK;
}

static double site_x(const body_eval *e, int site)
{
    double pos[3];
    sm_rigid_site_pos(e->m, e->d, (size_t)site, pos);
    return pos[0];
}

/* The x-velocity of a site (the sliding velocity of a slide). */
static double site_xdot(const body_eval *e, int site, const double *v)
{
    double jac[3 * SM_RIGID_MAX_V];
    sm_rigid_site_jac(e->m, e->d, (size_t)site, jac, NULL);
    double s = 0;
    for (size_t i = 0; i < e->bm->nv; i++) s += jac[i] * v[i];
    return s;
}

/* What the events of one phase at one (t, x) share: the rigid model at p,
 * its forward sweep and the constrained solve, each done at most once. */
typedef struct {
    const body_model *bm;
    size_t ph;
    const double *x, *p;
    max_align_t *mem;
    body_eval e;
    int ready;               /* 0 not set up, 1 set up, -1 failed */
    bool swept, solved, solve_ok;
    double lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc;
} event_state;

static bool state_eval(event_state *s)
{
    if (!s->ready) s->ready = body_eval_init(&s->e, s->bm, s->p, s->mem, NULL, 0) == SM_OK ? 1 : -1;
    return s->ready > 0;
}

static bool state_swept(event_state *s)
{
    if (!state_eval(s)) return false;
    if (!s->swept) {
        if (sm_rigid_forward(s->e.m, s->e.d, s->x, s->x + s->bm->nq) != SM_OK) return false;
        s->swept = true;
    }
    return true;
}

/* The normal force and tangential magnitude of contact k in the phase. */
static bool state_force(event_state *s, int k, double *normal, double *tangential)
{
    if (!state_eval(s)) return false;
    if (!s->solved) {
        /* a gap or height event before it has swept at x already (McGeer's
         * walker: a second sweep was 4 % of its stride) */
        s->solve_ok = (s->bm->reduced ? body_reduced_forces(&s->e, s->ph, s->x, s->swept, s->lambda, s->c, &s->nc)
                       : s->swept     ? body_phase_solve_swept(&s->e, s->ph, s->x, NULL, s->lambda, s->c, &s->nc)
                                      : body_phase_solve(&s->e, s->ph, s->x, NULL, s->lambda, s->c, &s->nc)) == SM_OK;
        s->solved = true;
        s->swept = s->solve_ok; /* the solve's forward sweep is at x */
    }
    if (!s->solve_ok) return false;
    const int slot = body_phase_contact_slot(s->bm->f, s->ph, k);
    if (slot < 0) return false; /* the loader allows force events only on the phase's contacts */
    body_contact_force(&s->e, s->c, s->nc, s->lambda, (size_t)slot, normal, tangential);
    return true;
}

/* A floor step (load_disturb.c) lowers the ground under every contact the
 * phase does not hold on the ground: the gap an event waits for is -h. */
static double floor_step(const body_model *bm, size_t ph, int contact, const double *p)
{
    const body_file *f = bm->f;
    if (!f->has_floor_step || f->contacts[contact].kind == SM_CONTACT_LOCK) return 0.0;
    const double h = p[f->floor_step_param];
    if (h == 0.0) return 0.0;
    for (size_t i = 0; i < f->phases[ph].n_contacts; i++)
        if (f->phases[ph].contacts[i] == contact) return 0.0;
    return h;
}

static double event_at(event_state *s, size_t ev, double t)
{
    const body_model *bm = s->bm;
    const body_event *E = &bm->f->phases[s->ph].events[ev];
    const double level =
        s->ready > 0 && s->e.at_defaults ? bm->event_level0[s->ph][ev] : body_num_eval(&E->value, s->p);
    const double *q = s->x, *v = s->x + bm->nq;
    /* raised against the direction of the crossing it waits for */
    const double lift = E->direction > 0 ? -1e-6 : 1e-6;
    if (E->when == BODY_WHEN_COORD) return q[E->target] - level + start_ramp(bm, s->ph, t, lift);
    if (E->when == BODY_WHEN_RATE) return v[E->target] - level;
    if (E->when == BODY_WHEN_PHASE_RATE) return body_control_phase_rate(bm->f, s->p, v);
    if (E->when == BODY_WHEN_FORCE || E->when == BODY_WHEN_SLIP) {
        double n, tan;
        if (!state_force(s, E->target, &n, &tan)) return NAN;
        const double force_ramp = ramp(t, E->direction > 0 ? -1e9 : 1e9);
        if (E->when == BODY_WHEN_FORCE) return n - level + force_ramp;
        sm_contact c;
        body_contact_shape(&s->e, (size_t)E->target, &c);
        return tan - c.mu * n - level + force_ramp;
    }
    if (!state_swept(s)) return NAN;
    switch (E->when) {
    case BODY_WHEN_PUSH:
        return body_push_value(&s->e, (size_t)E->target, s->p);
    case BODY_WHEN_GAP: {
        sm_contact c;
        body_contact_shape(&s->e, (size_t)E->target, &c);
        return sm_contact_gap(s->e.m, s->e.d, q, &c, NULL) - level + floor_step(bm, s->ph, E->target, s->p) +
               start_ramp(bm, s->ph, t, lift);
    }
    case BODY_WHEN_HEIGHT: {
        double pos[3];
        sm_rigid_site_pos(s->e.m, s->e.d, (size_t)E->target, pos);
        return pos[2] - level + start_ramp(bm, s->ph, t, lift);
    }
    case BODY_WHEN_STICK:
        /* A slide a slip leaves at rest starts either way; one that starts
         * the way its stick waits for (a backward start for a forward
         * slide's falling velocity) has not come back to rest, so the
         * ramp here is in the awaited direction, the reverse of the
         * others: that start stays short of zero, and a velocity leaving
         * zero the other way crosses the unawaited way, which CVODE's
         * root direction ignores. */
        return site_xdot(&s->e, bm->f->contacts[E->target].site, v) - level +
               ramp(t, E->direction > 0 ? 1e-6 : E->direction < 0 ? -1e-6 : 0.0);
    default:
        return NAN;
    }
}

/* Not an initializer: that would zero the contact and force arrays (1-2 KB)
 * at every root evaluation, which cost more than the events themselves. */
static bool state_start(event_state *s, const body_model *bm, size_t ph, const double *x, const double *p,
                        max_align_t *mem, double *xf)
{
    s->bm = bm;
    s->ph = ph;
    s->x = x;
    s->p = p;
    s->mem = mem;
    s->ready = 0;
    s->swept = s->solved = s->solve_ok = false;
    s->nc = 0;
    if (!bm->reduced) return true;
    if (bm->pinned_ok && bm->reduced_direct[ph] && !bm->events_read_base_rates &&
        memcmp(p, bm->defaults, bm->f->n_params * sizeof *p) == 0) {
        /* at the defaults in a direct phase the events read positions and
         * the pinned path's forces alone: its data block on the template */
        s->e = (body_eval){.bm = bm, .p = p, .m = bm->tmpl, .at_defaults = true};
        s->e.d = sm_rigid_pinned_data_init(bm->tmpl, mem, bm->pinned_data_words * sizeof *mem);
        if (s->e.d) {
            s->ready = 1;
            if (body_expand_positions(&s->e, x, xf) != SM_OK) return false;
            s->x = xf;
            s->swept = true;
            return true;
        }
    }
    /* the expansion's sweep serves the events (body_expand); gaps,
     * heights, coordinates, joint rates and forces need no base rate */
    if (!state_eval(s) ||
        (bm->events_read_base_rates ? body_expand(&s->e, x, xf) : body_expand_positions(&s->e, x, xf)) != SM_OK)
        return false;
    s->x = xf;
    s->swept = true;
    return true;
}

static double event_value(size_t ph, size_t ev, double t, const double *x, const double *p, const body_model *bm)
{
    BODY_EVAL_MEM(mem, bm);
    event_state s;
    double xf[SM_MAX_STATE];
    if (!state_start(&s, bm, ph, x, p, mem, xf)) return NAN;
    return event_at(&s, ev, t);
}

/* The root finder's call: every event of the phase on one sweep and one
 * solve (a kneed walker's phase watches up to a dozen). */
static void phase_events(size_t ph, double t, const double *x, const double *p, const body_model *bm, double *g)
{
    const size_t n = bm->f->phases[ph].n_events;
    BODY_EVAL_MEM(mem, bm);
    event_state s;
    double xf[SM_MAX_STATE];
    if (!state_start(&s, bm, ph, x, p, mem, xf)) {
        for (size_t ev = 0; ev < n; ev++) g[ev] = NAN;
        return;
    }
    for (size_t ev = 0; ev < n; ev++) g[ev] = event_at(&s, ev, t);
}

static bool guard_holds(const body_eval *e, size_t ph, const body_guard *g, const double *x, bool *swept)
{
    const double level = body_num_eval(&g->value, e->p);
    const body_model *bm = e->bm;
    switch (g->kind) {
    case BODY_GUARD_COORD_ABOVE: return x[g->a] > level;
    case BODY_GUARD_COORD_BELOW: return x[g->a] < level;
    case BODY_GUARD_RATE_ABOVE: return x[bm->nq + (size_t)g->a] > level;
    case BODY_GUARD_RATE_BELOW: return x[bm->nq + (size_t)g->a] < level;
    case BODY_GUARD_FORCE_ABOVE:
    case BODY_GUARD_FORCE_BELOW: {
        double n;
        if (contact_force(e, ph, g->a, x, &n, NULL) != SM_OK) return false;
        *swept = true;
        return g->kind == BODY_GUARD_FORCE_ABOVE ? n > level : n < level;
    }
    case BODY_GUARD_AHEAD:
    case BODY_GUARD_BEHIND: {
        if (!*swept && sm_rigid_forward(e->m, e->d, x, x + bm->nq) != SM_OK) return false;
        *swept = true;
        const double d = site_x(e, g->a) - site_x(e, g->b);
        return g->kind == BODY_GUARD_AHEAD ? d > level : d < -level;
    }
    }
    return false;
}

static bool event_guard(size_t ph, size_t ev, const double *x, const double *p, const body_model *bm)
{
    const body_event *E = &bm->f->phases[ph].events[ev];
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, NULL, 0) != SM_OK) return false;
    double xf[SM_MAX_STATE];
    if (bm->reduced) {
        if (body_expand(&e, x, xf) != SM_OK) return false;
        x = xf;
    }
    bool swept = bm->reduced; /* the expansion's sweep is at x */
    for (size_t i = 0; i < E->n_guards; i++) {
        if (!guard_holds(&e, ph, &E->guards[i], x, &swept)) return false;
        /* a force guard's solve leaves the forward sweep at x too */
    }
    return true;
}

void body_relabel(const body_model *bm, const double *x, double *y)
{
    const body_file *f = bm->f;
    const size_t nq = bm->nq;
    for (size_t i = 0; i < nq; i++) y[i] = f->qsign[i] * x[f->qperm[i]] + f->qshift[i];
    for (size_t i = 0; i < bm->nv; i++) y[nq + i] = f->vsign[i] * x[nq + (size_t)f->vperm[i]];
    for (size_t i = nq + bm->nv; i < bm->n_state; i++) y[i] = x[i];
}

/* impact: true and relabel: true: the impulse is applied after the
 * relabelling, onto the next phase's contacts (or the event's impact list)
 * as the file names them
 * (contacts are not renamed by a relabel, so the next phase's names hold
 * for the relabelled walker).  For a walker the relabelling maps to itself
 * (M(Rq) = R M(q) Rᵀ) that is the impact followed by the relabelling. */
sm_status body_event_impact(const body_eval *e, size_t ph, size_t ev, double *x, body_impact *out)
{
    const body_model *bm = e->bm;
    const body_event *E = &bm->f->phases[ph].events[ev];
    const bool section = E->outcome == SM_EVENT_SECTION;
    const size_t next = section ? (size_t)bm->section_phase : E->next_phase >= 0 ? (size_t)E->next_phase : 0;
    double *q = x, *v = x + bm->nq;
    sm_status st = sm_rigid_forward(e->m, e->d, q, v);
    if (st != SM_OK) return st;
    out->nc = E->n_impact;
    for (size_t i = 0; i < out->nc; i++) {
        out->contact[i] = E->impact_contacts[i];
        body_contact_at(e, (size_t)E->impact_contacts[i], v, &out->c[i]);
    }
    if (!out->nc) {
        out->nc = body_phase_contacts(e, next, v, out->c);
        for (size_t i = 0; i < out->nc; i++) out->contact[i] = bm->f->phases[next].contacts[i];
    }
    double vplus[SM_RIGID_MAX_V];
    st = sm_rigid_impact(e->m, e->d, out->c, out->nc, v, vplus, out->Lambda, &out->lost, &out->residual, e->work);
    if (st != SM_OK) return st;
    memcpy(v, vplus, bm->nv * sizeof *v);
    return SM_OK;
}

static int event_reset_full(size_t ph, size_t ev, const double *xm, double *xp, const double *p,
                            const body_model *bm)
{
    const body_file *f = bm->f;
    const body_event *E = &f->phases[ph].events[ev];
    const bool section = E->outcome == SM_EVENT_SECTION;
    if (E->relabel && f->has_relabel)
        body_relabel(bm, xm, xp);
    else
        memcpy(xp, xm, bm->n_state * sizeof *xp);
    if (!E->impact && !section && E->when != BODY_WHEN_PUSH) return 0;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    sm_status st = body_eval_init(&e, bm, p, mem, NULL, 0);
    if (st != SM_OK) return SM_CALLBACK_STATUS(st);
    if (E->when == BODY_WHEN_PUSH) {
        body_impact imp;
        st = body_push_apply(&e, ph, (size_t)E->target, xp, &imp);
        return st == SM_OK ? 0 : SM_CALLBACK_STATUS(st);
    }
    const size_t next = section ? (size_t)bm->section_phase : E->next_phase >= 0 ? (size_t)E->next_phase : 0;
    if (E->impact) {
        body_impact imp;
        if ((st = body_event_impact(&e, ph, ev, xp, &imp)) != SM_OK) return SM_CALLBACK_STATUS(st);
    }
    if (section && f->has_floor_step && p[f->floor_step_param] != 0.0) {
        /* the walker landed h lower: the new floor is the ground again */
        xp[f->floor_step_coord] += p[f->floor_step_param];
    }
    if (section) {
        /* the integration's drift off the constraints would otherwise
         * accumulate over strides (simulate) */
        double drift = 0;
        st = body_project(&e, next, xp, &drift);
        if (st != SM_OK) return SM_CALLBACK_STATUS(st);
    }
    if (bm->n_state > bm->nq + bm->nv && (st = body_control_impact(&e, next, section, xp)) != SM_OK)
        return SM_CALLBACK_STATUS(st);
    return 0;
}

static int event_reset(size_t ph, size_t ev, const double *xm, double *xp, const double *p, const body_model *bm)
{
    if (!bm->reduced) return event_reset_full(ph, ev, xm, xp, p, bm);
    double xf[SM_MAX_STATE];
    sm_status st = body_expand_at(bm, p, xm, xf);
    if (st != SM_OK) return SM_CALLBACK_STATUS(st);
    double yf[SM_MAX_STATE];
    const int r = event_reset_full(ph, ev, xf, yf, p, bm);
    if (r == 0) body_reduce(bm, yf, xp);
    return r;
}

#define BODY_EV(ph, ev)                                                                                         \
    static double value_##ph##_##ev(double t, const double *x, const double *p, const void *d)                  \
    {                                                                                                           \
        return event_value(ph, ev, t, x, p, d);                                                                 \
    }                                                                                                           \
    static bool guard_##ph##_##ev(double t, const double *x, const double *p, const void *d)                    \
    {                                                                                                           \
        (void)t;                                                                                                \
        return event_guard(ph, ev, x, p, d);                                                                    \
    }                                                                                                           \
    static int reset_##ph##_##ev(const double *xm, double *xp, const double *p, const void *d)                  \
    {                                                                                                           \
        return event_reset(ph, ev, xm, xp, p, d);                                                               \
    }
#define BODY_PHASE_EVS(ph)                                                                                      \
    BODY_EV(ph, 0) BODY_EV(ph, 1) BODY_EV(ph, 2) BODY_EV(ph, 3) BODY_EV(ph, 4) BODY_EV(ph, 5) BODY_EV(ph, 6)   \
    BODY_EV(ph, 7) BODY_EV(ph, 8) BODY_EV(ph, 9) BODY_EV(ph, 10) BODY_EV(ph, 11)
BODY_PHASE_EVS(0)
BODY_PHASE_EVS(1)
BODY_PHASE_EVS(2)
BODY_PHASE_EVS(3)
BODY_PHASE_EVS(4)
BODY_PHASE_EVS(5)
BODY_PHASE_EVS(6)
BODY_PHASE_EVS(7)
BODY_PHASE_EVS(8)
BODY_PHASE_EVS(9)
BODY_PHASE_EVS(10)
BODY_PHASE_EVS(11)

_Static_assert(BODY_MAX_PHASES == 12 && BODY_MAX_EVENTS == 12, "one set of trampolines per (phase, event)");

#define BODY_ROW(kind, ph)                                                                                      \
    {kind##_##ph##_0, kind##_##ph##_1, kind##_##ph##_2, kind##_##ph##_3, kind##_##ph##_4,  kind##_##ph##_5,     \
     kind##_##ph##_6, kind##_##ph##_7, kind##_##ph##_8, kind##_##ph##_9, kind##_##ph##_10, kind##_##ph##_11}
#define BODY_TABLE(kind)                                                                                        \
    {BODY_ROW(kind, 0), BODY_ROW(kind, 1), BODY_ROW(kind, 2), BODY_ROW(kind, 3), BODY_ROW(kind, 4),             \
     BODY_ROW(kind, 5), BODY_ROW(kind, 6), BODY_ROW(kind, 7), BODY_ROW(kind, 8), BODY_ROW(kind, 9),             \
     BODY_ROW(kind, 10), BODY_ROW(kind, 11)}

static const sm_event_fn value_table[BODY_MAX_PHASES][BODY_MAX_EVENTS] = BODY_TABLE(value);
static const sm_guard_fn guard_table[BODY_MAX_PHASES][BODY_MAX_EVENTS] = BODY_TABLE(guard);
static const sm_reset_fn reset_table[BODY_MAX_PHASES][BODY_MAX_EVENTS] = BODY_TABLE(reset);

sm_event_fn body_event_value_fn(size_t ph, size_t ev) { return value_table[ph][ev]; }
sm_guard_fn body_event_guard_fn(size_t ph, size_t ev) { return guard_table[ph][ev]; }
sm_reset_fn body_event_reset_fn(size_t ph, size_t ev) { return reset_table[ph][ev]; }

#define BODY_EVS_ALL(ph)                                                                                        \
    static void events_##ph(double t, const double *x, const double *p, const void *d, double *g)              \
    {                                                                                                           \
        phase_events(ph, t, x, p, d, g);                                                                        \
    }
BODY_EVS_ALL(0)
BODY_EVS_ALL(1)
BODY_EVS_ALL(2)
BODY_EVS_ALL(3)
BODY_EVS_ALL(4)
BODY_EVS_ALL(5)
BODY_EVS_ALL(6)
BODY_EVS_ALL(7)
BODY_EVS_ALL(8)
BODY_EVS_ALL(9)
BODY_EVS_ALL(10)
BODY_EVS_ALL(11)

static const sm_events_fn events_table[BODY_MAX_PHASES] = {events_0, events_1, events_2, events_3,
                                                           events_4, events_5, events_6, events_7,
                                                           events_8, events_9, events_10, events_11};

sm_events_fn body_phase_events_fn(size_t ph) { return events_table[ph]; }
