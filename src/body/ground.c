/* The extra measures of a body walker (extra_group "ground"): over a stride
 * through the gait, the smallest and largest normal force of any ground
 * contact in use (the unilateral check F_n > 0), the largest |F_t| / F_n
 * (the friction check), the smallest torque of a lock held in every phase
 * (a stance knee, which must stay locked: Garcia's minimum locking torque;
 * a swing knee locked only after knee-strike is not one), the constraints'
 * drift (how far the pins' sites moved from where their phase began, and
 * the other contacts' gaps, by the end of each phase, before the section's
 * projection removes it), the centre of pressure's margin (planar: its
 * smallest distance inside the span of the ground contacts in use, where
 * two or more are; negative: outside, the walker would tip), each foot's
 * friction ratio and normal force (seed 000's checks, eqs. 25-26), and
 * each ground contact's own smallest normal force (NaN if it never
 * carries), and how far each slide contact's site slid while that slide
 * was in use: the path (the sum of |Δ| over its phases, seen from above)
 * and the signed displacement along x (the sum of Δx), both 0 on a stride
 * that never enters a phase using it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_model.h"
#include "stridemap/gait.h"
#include "stridemap/hybrid.h"
#include "stridemap/stride.h"

enum {
    G_MIN_NORMAL, G_MAX_NORMAL, G_MAX_FRICTION, G_MIN_LOCK, G_DRIFT, G_COP_MARGIN, G_MIN_IMPULSE, G_IMPACT_RESIDUAL,
    G_MAX_FOOT_FRICTION, G_MIN_FOOT_NORMAL, G_COUNT
};

static const char *const ground_names[G_COUNT] = {"min_normal_force", "max_normal_force",   "max_friction_ratio",
                                                  "min_lock_torque",  "constraint_drift",   "cop_margin",
                                                  "min_normal_impulse", "impact_residual",
                                                  "max_foot_friction_ratio", "min_foot_normal_force"};
static const char *const ground_labels[G_COUNT] = {
    "smallest normal force of a ground contact", "largest normal force of a ground contact",
    "largest |F_t|/F_n of a ground contact", "smallest torque of a lock held through the stride",
    "largest drift off the contacts over a phase (m)", "centre of pressure inside the contacts by at least (m)",
    "smallest normal impulse of a ground contact at an impact (N s)",
    "largest |J v+| after an impact (m/s, zero to round-off)",
    "largest |F_t|/F_n of a foot, its contacts summed (seed 000 eq. 26)",
    "smallest normal force of a foot, its contacts summed (seed 000 eq. 25)"};

typedef struct {
    const body_model *bm;
    const double *p;
    double v[SM_MAX_EXTRA];
    size_t phase;
    double anchor[BODY_MAX_CONTACTS][3];
} ground_watch;

/* The phase's pins' and slides' sites where the phase begins at x. */
static void start_phase(ground_watch *w, size_t ph, const double *x)
{
    const body_model *bm = w->bm;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    w->phase = ph;
    if (body_eval_init(&e, bm, w->p, mem, NULL, 0) != SM_OK || sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK)
        return;
    const body_phase *P = &bm->f->phases[ph];
    for (size_t i = 0; i < P->n_contacts; i++) {
        const body_contact *c = &bm->f->contacts[P->contacts[i]];
        if (c->kind == SM_CONTACT_PIN || c->kind == SM_CONTACT_SLIDE)
            sm_rigid_site_pos(e.m, e.d, (size_t)c->site, w->anchor[i]);
        if (c->hold) w->anchor[i][0] = x[sm_rigid_body_qadr(e.m, (size_t)c->body)];
    }
}

static void end_phase(ground_watch *w, const double *x)
{
    const body_model *bm = w->bm;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, w->p, mem, NULL, 0) != SM_OK || sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK)
        return;
    const body_phase *P = &bm->f->phases[w->phase];
    for (size_t i = 0; i < P->n_contacts; i++) {
        sm_contact c;
        body_contact_at(&e, (size_t)P->contacts[i], NULL, &c);
        if (bm->f->contacts[P->contacts[i]].hold) c.at = w->anchor[i][0];
        double d = fabs(sm_contact_gap(e.m, e.d, x, &c, NULL));
        if (c.kind == SM_CONTACT_PIN) {
            double pos[3];
            sm_rigid_site_pos(e.m, e.d, c.site, pos);
            d = fmax(d, hypot(hypot(pos[0] - w->anchor[i][0], pos[1] - w->anchor[i][1]), pos[2] - w->anchor[i][2]));
        }
        w->v[G_DRIFT] = fmax(w->v[G_DRIFT], d);
        /* A slide keeps its direction through a phase (the friction's sign
         * is the phase's; a stick event ends it), so |Δ| over the phase is
         * the path its site slid. */
        const int slot = bm->slide_slot[P->contacts[i]];
        if (slot >= 0) {
            double pos[3];
            sm_rigid_site_pos(e.m, e.d, c.site, pos);
            const double dx = pos[0] - w->anchor[i][0], dy = bm->planar ? 0.0 : pos[1] - w->anchor[i][1];
            w->v[G_COUNT + (size_t)slot] += hypot(dx, dy);
            w->v[G_COUNT + (size_t)slot + 1] += dx;
        }
    }
}

/* How far inside the ground contacts in use the centre of pressure lies,
 * where two or more are in use: along the span for a planar walker, inside
 * the support polygon seen from above for a 3-D one (support.c). */
static void cop_margin(ground_watch *w, const body_eval *e, const double *q, const sm_contact *c, size_t nc,
                       const double *lambda)
{
    double pt[BODY_MAX_CONTACTS][2], cop[3];
    size_t n = 0;
    for (size_t k = 0; k < nc; k++) {
        if (c[k].kind == SM_CONTACT_LOCK) continue;
        double point[3];
        sm_contact_gap(e->m, e->d, q, &c[k], point);
        pt[n][0] = point[0];
        pt[n++][1] = w->bm->planar ? 0.0 : point[1];
    }
    if (n < 2 || !sm_rigid_cop(e->m, e->d, c, nc, lambda, cop)) return;
    const double margin = body_support_margin((const double(*)[2])pt, n, cop);
    if (!isnan(margin)) w->v[G_COP_MARGIN] = fmin(w->v[G_COP_MARGIN], margin);
}

/* The body that carries body b rigidly in phase ph: b's parent while a
 * lock of the phase holds b's joint (a toe locked to its hindfoot is one
 * foot with it). */
static int rigid_root(const body_file *f, size_t ph, int b)
{
    for (bool held = true; held && f->bodies[b].parent >= 0;) {
        held = false;
        for (size_t i = 0; i < f->phases[ph].n_contacts && !held; i++) {
            const body_contact *k = &f->contacts[f->phases[ph].contacts[i]];
            held = k->kind == SM_CONTACT_LOCK && k->body == b;
        }
        if (held) b = f->bodies[b].parent;
    }
    return b;
}

/* The seed's checks are per foot (eqs. 25-26): a rigid foot on several
 * points has one tangential force whose split among them the model cannot
 * tell (a frictionless row on one point, all of it on another), so the
 * ratio read is the foot's: its contacts' forces summed, per body, with
 * the bodies a lock of the phase welds to it; and its normal force is
 * their sum, which pushes while the centre of pressure is anywhere under
 * the foot or beyond it (the per-point forces tell the two apart). */
static void foot_forces(ground_watch *w, const body_eval *e, size_t phase, const sm_contact *c, size_t nc,
                          const double *lambda)
{
    const body_file *f = w->bm->f;
    int body[BODY_MAX_CONTACTS];
    double F[BODY_MAX_CONTACTS][3];
    size_t nb = 0;
    for (size_t k = 0; k < nc; k++) {
        if (c[k].kind == SM_CONTACT_LOCK) continue;
        const int b = rigid_root(f, phase, f->sites[f->contacts[f->phases[phase].contacts[k]].site].body);
        double Fk[3];
        sm_contact_force(e->m, e->d, c, nc, lambda, k, Fk);
        size_t i = 0;
        while (i < nb && body[i] != b) i++;
        if (i == nb) {
            body[nb++] = b;
            F[i][0] = F[i][1] = F[i][2] = 0.0;
        }
        for (int j = 0; j < 3; j++) F[i][j] += Fk[j];
    }
    for (size_t i = 0; i < nb; i++) {
        const double tan = w->bm->planar ? fabs(F[i][0]) : hypot(F[i][0], F[i][1]);
        w->v[G_MIN_FOOT_NORMAL] = fmin(w->v[G_MIN_FOOT_NORMAL], F[i][2]);
        if (F[i][2] > 0) w->v[G_MAX_FOOT_FRICTION] = fmax(w->v[G_MAX_FOOT_FRICTION], tan / F[i][2]);
    }
}

/* Whether contact k is switched on in every phase. */
static bool in_every_phase(const body_file *f, int k)
{
    for (size_t ph = 0; ph < f->n_phases; ph++)
        if (body_phase_contact_slot(f, ph, k) < 0) return false;
    return true;
}

static int on_sample_full(void *ctx, double t, size_t phase, const double *x)
{
    ground_watch *w = ctx;
    const body_model *bm = w->bm;
    (void)t; /* forces follow from the state */
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, w->p, mem, NULL, 0) != SM_OK) return 0;
    double lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc = 0;
    if (body_phase_solve(&e, phase, x, NULL, lambda, c, &nc) != SM_OK) return 0;
    for (size_t k = 0; k < nc; k++) {
        double n, tan;
        body_contact_force(&e, c, nc, lambda, k, &n, &tan);
        if (c[k].kind == SM_CONTACT_LOCK) {
            if (in_every_phase(bm->f, bm->f->phases[phase].contacts[k])) w->v[G_MIN_LOCK] = fmin(w->v[G_MIN_LOCK], n);
            continue;
        }
        w->v[G_MIN_NORMAL] = fmin(w->v[G_MIN_NORMAL], n);
        w->v[G_MAX_NORMAL] = fmax(w->v[G_MAX_NORMAL], n);
        if (n > 0) w->v[G_MAX_FRICTION] = fmax(w->v[G_MAX_FRICTION], tan / n);
        const int slot = bm->ground_slot[bm->f->phases[phase].contacts[k]];
        if (slot >= 0) w->v[G_COUNT + slot] = fmin(w->v[G_COUNT + slot], n);
    }
    cop_margin(w, &e, x, c, nc, lambda);
    foot_forces(w, &e, phase, c, nc, lambda);
    double u[BODY_MAX_ACT];
    if (bm->torque_slot >= 0 && body_control_torques(&e, phase, x, u) == SM_OK)
        for (size_t j = 0; j < bm->f->ctrl.n_act; j++)
            w->v[G_COUNT + (size_t)bm->torque_slot + j] = fmax(w->v[G_COUNT + (size_t)bm->torque_slot + j], fabs(u[j]));
    return 0;
}

/* The impulses of event ev's impact from the state xm before it: each
 * contact's normal impulse (a lock's: its torque impulse), |J v⁺|. */
static void impact_measures(ground_watch *w, size_t ph, size_t ev, const double *xm)
{
    const body_model *bm = w->bm;
    const body_event *E = &bm->f->phases[ph].events[ev];
    if (!E->impact) return;
    double x[SM_MAX_STATE];
    if (E->relabel && bm->f->has_relabel)
        body_relabel(bm, xm, x);
    else
        memcpy(x, xm, bm->n_state * sizeof *x);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    body_impact imp;
    if (body_eval_init(&e, bm, w->p, mem, NULL, 0) != SM_OK || body_event_impact(&e, ph, ev, x, &imp) != SM_OK)
        return;
    w->v[G_IMPACT_RESIDUAL] = fmax(w->v[G_IMPACT_RESIDUAL], imp.residual);
    for (size_t i = 0; i < imp.nc; i++) {
        double F[3];
        sm_contact_force(e.m, e.d, imp.c, imp.nc, imp.Lambda, i, F);
        const bool lock = imp.c[i].kind == SM_CONTACT_LOCK;
        if (!lock) w->v[G_MIN_IMPULSE] = fmin(w->v[G_MIN_IMPULSE], F[2]);
        for (size_t j = 0; j < bm->n_impulse; j++) {
            const body_impulse_key *key = &bm->impulse_key[j];
            if (key->contact == imp.contact[i] &&
                strcmp(bm->f->phases[key->phase].events[key->event].name, E->name) == 0)
                w->v[G_COUNT + (size_t)key->slot] = lock ? F[0] : F[2];
        }
    }
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
{
    const ground_watch *w = ctx;
    BODY_FULL(w->bm, w->p, x, return 0);
    return on_sample_full(ctx, t, phase, x);
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    ground_watch *w = ctx;
    BODY_FULL(w->bm, w->p, xm, return 0);
    BODY_FULL(w->bm, w->p, xp, return 0);
    on_sample_full(ctx, t, phase, xm);
    end_phase(w, xm);
    const sm_phase *P = &w->bm->model.phases[phase];
    for (size_t k = 0; k < P->n_events; k++) {
        if (strcmp(P->events[k].name, name) != 0) continue;
        impact_measures(w, phase, k, xm);
        if (P->events[k].outcome == SM_EVENT_TO_PHASE) {
            start_phase(w, P->events[k].next_phase, xp);
            on_sample_full(ctx, t, P->events[k].next_phase, xp);
        }
    }
    return 0;
}

static sm_status ground_extra(sm_workspace *ws, const double *p, const double *x, double *values)
{
    const sm_model *m = sm_workspace_model(ws);
    const body_model *bm = m->data;
    ground_watch w = {.bm = bm, .p = p, .v = {INFINITY, -INFINITY, 0, INFINITY, 0, INFINITY, INFINITY, -INFINITY, 0, INFINITY}};
    for (size_t i = G_COUNT; i < m->n_extra; i++) w.v[i] = INFINITY;
    for (size_t j = 0; bm->torque_slot >= 0 && j < bm->f->ctrl.n_act; j++) w.v[G_COUNT + (size_t)bm->torque_slot + j] = 0.0;
    for (size_t k = 0; k < bm->f->n_contacts; k++)
        if (bm->slide_slot[k] >= 0) w.v[G_COUNT + (size_t)bm->slide_slot[k]] = w.v[G_COUNT + (size_t)bm->slide_slot[k] + 1] = 0.0;
    const double *x0 = x;
    BODY_FULL(bm, p, x0, return SM_BAD_STATE);
    start_phase(&w, m->start_phase, x0);
    on_sample_full(&w, 0, m->start_phase, x0);
    /* every internal step as well as the grid: a contact force's dip
     * right after an impact or a change of contacts can be over between two
     * samples (human_hu9's toe pulled 657 N for 0.32 ms, samples 0.5 ms
     * apart reading 30 N) */
    sm_observer obs = {.dt = 1e-3 * m->time_limit(p, m->data), .each_step = true, .sample = on_sample,
                       .event = on_event, .ctx = &w};
    double y[SM_MAX_STATE];
    const sm_status st = sm_stride(ws, p, x, y, NULL, &obs);
    if (st != SM_OK) return st;
    for (size_t i = 0; i < m->n_extra; i++) values[i] = isfinite(w.v[i]) ? w.v[i] : NAN;
    return SM_OK;
}

/* The contacts event ev of phase ph's impact acts on (its impact list, or
 * the phase it leads to), as file contact indices; their number. */
static size_t impact_set(const body_file *f, size_t ph, size_t ev, int *k)
{
    const body_event *E = &f->phases[ph].events[ev];
    if (!E->impact) return 0;
    if (E->n_impact) {
        for (size_t i = 0; i < E->n_impact; i++) k[i] = E->impact_contacts[i];
        return E->n_impact;
    }
    const size_t next = E->outcome == SM_EVENT_SECTION ? 0 : E->next_phase >= 0 ? (size_t)E->next_phase : 0;
    for (size_t i = 0; i < f->phases[next].n_contacts; i++) k[i] = f->phases[next].contacts[i];
    return f->phases[next].n_contacts;
}

/* Whether contact set[i] of event ev of phase ph's impact (set: its
 * impact_set) was met before: at an earlier event of the same name (an
 * event name two phases share reports its impulse once) or earlier in set. */
static bool impulse_seen(const body_file *f, size_t ph, size_t ev, const int *set, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (set[j] == set[i]) return true;
    const char *name = f->phases[ph].events[ev].name;
    for (size_t p = 0; p <= ph; p++)
        for (size_t e = 0; e < (p == ph ? ev : f->phases[p].n_events); e++) {
            if (strcmp(f->phases[p].events[e].name, name) != 0) continue;
            int earlier[BODY_MAX_CONTACTS];
            const size_t ne = impact_set(f, p, e, earlier);
            for (size_t j = 0; j < ne; j++)
                if (earlier[j] == set[i]) return true;
        }
    return false;
}

bool body_ground_used(const body_file *f, size_t k)
{
    if (f->contacts[k].kind == SM_CONTACT_LOCK) return false;
    for (size_t ph = 0; ph < f->n_phases; ph++)
        if (body_phase_contact_slot(f, ph, (int)k) >= 0) return true;
    return false;
}

/* Whether contact k is a slide some phase uses. */
static bool slide_used(const body_file *f, size_t k)
{
    return f->contacts[k].kind == SM_CONTACT_SLIDE && body_ground_used(f, k);
}

size_t body_ground_measure_count(const body_file *f)
{
    size_t n = G_COUNT;
    for (size_t k = 0; k < f->n_contacts; k++) n += body_ground_used(f, k);
    if (f->ctrl.kind != BODY_CTRL_NONE) n += f->ctrl.n_act;
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t ev = 0; ev < f->phases[ph].n_events; ev++) {
            int set[BODY_MAX_CONTACTS];
            const size_t ns = impact_set(f, ph, ev, set);
            for (size_t i = 0; i < ns; i++) n += !impulse_seen(f, ph, ev, set, i);
        }
    for (size_t k = 0; k < f->n_contacts; k++) n += 2 * slide_used(f, k);
    return n;
}

/* printf(fmt, a, b) in memory of its own (NULL: none); a format that
 * reads only a leaves b aside. */
static char *formatted(const char *fmt, const char *a, const char *b)
{
    const int len = snprintf(NULL, 0, fmt, a, b);
    char *s = len < 0 ? NULL : malloc((size_t)len + 1);
    if (s) snprintf(s, (size_t)len + 1, fmt, a, b);
    return s;
}

/* Measure *n, named and labelled from a and b, the walker owning both
 * strings (freed with it); then the next.  false: no memory. */
static bool add_measure(body_model *bm, size_t *n, const char *name_fmt, const char *label_fmt, const char *a,
                        const char *b)
{
    char *name = formatted(name_fmt, a, b), *label = formatted(label_fmt, a, b);
    bm->owned_extra[2 * (*n - G_COUNT)] = name;
    bm->owned_extra[2 * (*n - G_COUNT) + 1] = label;
    if (!name || !label) return false;
    bm->extra_names[*n] = name;
    bm->extra_labels[(*n)++] = label;
    return true;
}

/* The fixed measures, then NAME.min_normal_force for each ground contact
 * that some phase uses, ACTUATOR.max_torque for each of the controller's
 * torques, EVENT.CONTACT.impulse for each contact an impact acts on and
 * NAME.sliding_distance, NAME.sliding_displacement for each slide contact
 * that some phase uses (last, so that no earlier measure moves):
 * body_ground_measure_count of them, which the loader has checked against
 * SM_MAX_EXTRA (SM_BAD_MODEL_FILE if not, rather than drop any). */
sm_status body_set_ground_measures(body_model *bm)
{
    sm_model *m = &bm->model;
    const body_file *f = bm->f;
    if (body_ground_measure_count(f) > SM_MAX_EXTRA) return SM_BAD_MODEL_FILE;
    size_t n = 0;
    for (size_t i = 0; i < G_COUNT; i++) {
        bm->extra_names[n] = ground_names[i];
        bm->extra_labels[n++] = ground_labels[i];
    }
    for (size_t k = 0; k < f->n_contacts; k++) {
        bm->ground_slot[k] = -1;
        if (!body_ground_used(f, k)) continue;
        bm->ground_slot[k] = (int)(n - G_COUNT);
        if (!add_measure(bm, &n, "%s.min_normal_force", "smallest normal force of contact %s", f->contacts[k].name,
                         NULL))
            return SM_NO_MEMORY;
    }
    /* ACTUATOR.max_torque for each of the controller's torques */
    bm->torque_slot = -1;
    if (f->ctrl.kind != BODY_CTRL_NONE) {
        bm->torque_slot = (int)(n - G_COUNT);
        for (size_t j = 0; j < f->ctrl.n_act; j++)
            if (!add_measure(bm, &n, "%s.max_torque", "largest |torque| of actuator %s (N m)", f->ctrl.act_name[j],
                             NULL))
                return SM_NO_MEMORY;
    }
    /* EVENT.CONTACT.impulse for each contact an event's impact acts on */
    bm->n_impulse = 0;
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t ev = 0; ev < f->phases[ph].n_events; ev++) {
            int set[BODY_MAX_CONTACTS];
            const size_t ns = impact_set(f, ph, ev, set);
            const char *evname = f->phases[ph].events[ev].name;
            for (size_t i = 0; i < ns; i++) {
                if (impulse_seen(f, ph, ev, set, i)) continue;
                bm->impulse_key[bm->n_impulse++] = (body_impulse_key){ph, ev, set[i], (int)(n - G_COUNT)};
                if (!add_measure(bm, &n, "%s.%s.impulse", "%s impulse on %s (N s; a lock: N m s)", evname,
                                 f->contacts[set[i]].name))
                    return SM_NO_MEMORY;
            }
        }
    /* NAME.sliding_distance and NAME.sliding_displacement for each slide in use */
    for (size_t k = 0; k < f->n_contacts; k++) {
        bm->slide_slot[k] = -1;
        if (!slide_used(f, k)) continue;
        bm->slide_slot[k] = (int)(n - G_COUNT);
        if (!add_measure(bm, &n, "%s.sliding_distance", "path slid by the site of slide %s while in use (m)",
                         f->contacts[k].name, NULL) ||
            !add_measure(bm, &n, "%s.sliding_displacement",
                         "signed distance slid along x by the site of slide %s while in use (m)", f->contacts[k].name,
                         NULL))
            return SM_NO_MEMORY;
    }
    m->extra_group = "ground";
    m->n_extra = n;
    m->extra_names = bm->extra_names;
    m->extra_labels = bm->extra_labels;
    m->extra_measures = ground_extra;
    return SM_OK;
}
