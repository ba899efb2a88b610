/* The extra measures of a body walker (extra_group "ground"): over a stride
 * through the gait, the smallest and largest normal force of any ground
 * contact in use (the unilateral check F_n > 0), the largest |F_t| / F_n
 * (the friction check), the smallest torque of a lock held in every phase
 * (a stance knee, which must stay locked: Garcia's minimum locking torque;
 * a swing knee locked only after knee-strike is not one), and the
 * constraints' drift: how far the pins'
 * sites moved from where their phase began (and the other contacts' gaps)
 * by the end of each phase, before the section's projection removes it. */
#include <math.h>
#include <string.h>

#include "body_model.h"
#include "stridemap/hybrid.h"
#include "stridemap/stride.h"

enum { G_MIN_NORMAL, G_MAX_NORMAL, G_MAX_FRICTION, G_MIN_LOCK, G_DRIFT, G_COUNT };

static const char *const ground_names[G_COUNT] = {"min_normal_force", "max_normal_force", "max_friction_ratio",
                                                  "min_lock_torque", "constraint_drift"};
static const char *const ground_labels[G_COUNT] = {
    "smallest normal force of a ground contact", "largest normal force of a ground contact",
    "largest |F_t|/F_n of a ground contact", "smallest torque of a lock held through the stride",
    "largest drift off the contacts over a phase (m)"};

typedef struct {
    const body_model *bm;
    const double *p;
    double v[G_COUNT];
    size_t phase;
    double anchor[BODY_MAX_CONTACTS][3];
    sm_status failed;
} ground_watch;

/* The phase's pins' sites where the phase begins at x. */
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
        if (c->kind == SM_CONTACT_PIN) sm_rigid_site_pos(e.m, e.d, (size_t)c->site, w->anchor[i]);
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
        double d = fabs(sm_contact_gap(e.m, e.d, x, &c, NULL));
        if (c.kind == SM_CONTACT_PIN) {
            double pos[3];
            sm_rigid_site_pos(e.m, e.d, c.site, pos);
            d = fmax(d, hypot(hypot(pos[0] - w->anchor[i][0], pos[1] - w->anchor[i][1]), pos[2] - w->anchor[i][2]));
        }
        w->v[G_DRIFT] = fmax(w->v[G_DRIFT], d);
    }
}

/* Whether contact k is switched on in every phase. */
static bool in_every_phase(const body_file *f, int k)
{
    for (size_t ph = 0; ph < f->n_phases; ph++)
        if (body_phase_contact_slot(f, ph, k) < 0) return false;
    return true;
}

static int on_sample(void *ctx, double t, size_t phase, const double *x)
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
    }
    return 0;
}

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    ground_watch *w = ctx;
    on_sample(ctx, t, phase, xm);
    end_phase(w, xm);
    const sm_phase *P = &w->bm->model.phases[phase];
    for (size_t k = 0; k < P->n_events; k++)
        if (strcmp(P->events[k].name, name) == 0 && P->events[k].outcome == SM_EVENT_TO_PHASE) {
            start_phase(w, P->events[k].next_phase, xp);
            on_sample(ctx, t, P->events[k].next_phase, xp);
        }
    return 0;
}

static sm_status ground_extra(sm_workspace *ws, const double *p, const double *x, double *values)
{
    const sm_model *m = sm_workspace_model(ws);
    const body_model *bm = m->data;
    ground_watch w = {.bm = bm, .p = p, .v = {INFINITY, -INFINITY, 0, INFINITY, 0}};
    start_phase(&w, m->start_phase, x);
    on_sample(&w, 0, m->start_phase, x);
    sm_observer obs = {.dt = 1e-3 * m->time_limit(p, m->data), .sample = on_sample, .event = on_event, .ctx = &w};
    double y[SM_MAX_STATE];
    const sm_status st = sm_stride(ws, p, x, y, NULL, &obs);
    if (st != SM_OK) return st;
    for (int i = 0; i < G_COUNT; i++) values[i] = isfinite(w.v[i]) ? w.v[i] : NAN;
    return SM_OK;
}

void body_set_ground_measures(body_model *bm)
{
    sm_model *m = &bm->model;
    m->extra_group = "ground";
    m->n_extra = G_COUNT;
    m->extra_names = ground_names;
    m->extra_labels = ground_labels;
    m->extra_measures = ground_extra;
}
