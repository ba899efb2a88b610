/* Gait measures of a body walker, as the linkage reports them: energies
 * (the springs' in the potential), step length, swing-foot clearance,
 * ground reaction, momentum, weight. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "body_model.h"

#define BODY_EVAL_AT(e, bm, p, fail)                                                                         \
    BODY_EVAL_MEM(e##_mem, bm);                                                                               \
    body_eval e;                                                                                              \
    if (body_eval_init(&e, bm, p, e##_mem, NULL, 0) != SM_OK) fail

/* The kinetic energy, or the potential energy with the springs'. */
static double energy(const double *x, const double *p, const void *data, bool potential)
{
    const body_model *bm = data;
    BODY_FULL(bm, p, x, return NAN);
    BODY_EVAL_AT(e, bm, p, return NAN);
    if (sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK) return NAN;
    double K, U;
    sm_rigid_energy(e.m, e.d, x + bm->nq, &K, &U);
    return potential ? U + body_spring_energy(&e, x) : K;
}

static double kinetic(const double *x, const double *p, const void *data) { return energy(x, p, data, false); }
static double potential(const double *x, const double *p, const void *data) { return energy(x, p, data, true); }

static double contact_point_x(const body_eval *e, const double *q, int k)
{
    sm_contact c;
    double point[3];
    body_contact_at(e, (size_t)k, NULL, &c);
    sm_contact_gap(e->m, e->d, q, &c, point);
    return point[0];
}

/* Just before the section event, named as after it: the origin (the new
 * stance contact, the one that landed) less the touching ground contact
 * that is not the origin (a touching lock is a joint, not a foot).  The
 * section event's relabel renames and does not move the walker, so after
 * it the touching contacts are the feet that are on the ground, whereas
 * before it another site may be: a wheel's shift makes the landing spoke
 * (spoke_b before it) the origin and the stance spoke the trailing one
 * (spoke_c), and the trailing site before it is a tip in the air.  For a
 * relabel that swaps the legs this is the landing foot less the stance
 * foot, the same value either way. */
static double step_length(const double *x, const double *p, const void *data)
{
    const body_model *bm = data;
    BODY_FULL(bm, p, x, return NAN);
    const body_file *f = bm->f;
    double renamed[SM_MAX_STATE];
    if (f->has_relabel && f->section_event_phase >= 0 &&
        f->phases[f->section_event_phase].events[f->section_event].relabel) {
        body_relabel(bm, x, renamed);
        x = renamed;
    }
    BODY_EVAL_AT(e, bm, p, return NAN);
    if (f->origin < 0 || sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK) return NAN;
    for (size_t i = 0; i < f->n_touching; i++)
        if (f->touching[i] != f->origin && f->contacts[f->touching[i]].kind != SM_CONTACT_LOCK)
            return contact_point_x(&e, x, f->origin) - contact_point_x(&e, x, f->touching[i]);
    return NAN;
}

static double clearance(const double *x, const double *p, const void *data)
{
    const body_model *bm = data;
    BODY_FULL(bm, p, x, return NAN);
    BODY_EVAL_AT(e, bm, p, return NAN);
    if (sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK) return NAN;
    sm_contact c;
    body_contact_at(&e, (size_t)bm->f->clearance_contact, NULL, &c);
    return sm_contact_gap(e.m, e.d, x, &c, NULL);
}

/* Straight legs (no knee locks in the file, or locks that every phase
 * holds: knees that never bend) pass the swing foot below the ground at
 * mid-stance, the scuff every such model ignores, as the linkage's
 * straight legs did. */
static bool scuff_window(const double *x, const double *p, const void *data) { return clearance(x, p, data) < 0.0; }

static void ground_reaction(double t, size_t ph, const double *x, const double *p, const void *data, double R[2])
{
    const body_model *bm = data;
    BODY_FULL(bm, p, x, { R[0] = R[1] = NAN; return; });
    (void)t; /* the forces follow from the state and the phase alone */
    R[0] = R[1] = NAN;
    BODY_EVAL_AT(e, bm, p, return);
    double lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc = 0;
    if (body_phase_solve(&e, ph, x, NULL, lambda, c, &nc) != SM_OK) return;
    R[0] = R[1] = 0;
    for (size_t k = 0; k < nc; k++) {
        if (c[k].kind == SM_CONTACT_LOCK) continue;
        double F[3];
        sm_contact_force(e.m, e.d, c, nc, lambda, k, F);
        R[0] += F[0];
        R[1] += F[2];
    }
}

static void momentum(const double *x, const double *p, const void *data, double P[2])
{
    const body_model *bm = data;
    BODY_FULL(bm, p, x, { P[0] = P[1] = NAN; return; });
    P[0] = P[1] = NAN;
    BODY_EVAL_AT(e, bm, p, return);
    if (sm_rigid_forward(e.m, e.d, x, x + bm->nq) != SM_OK) return;
    P[0] = P[1] = 0;
    for (size_t i = 0; i < bm->f->n_bodies; i++) {
        double vcom[3];
        sm_rigid_body_state(e.m, e.d, i, NULL, NULL, vcom, NULL);
        const double m = body_num_eval(&bm->f->bodies[i].mass, p);
        P[0] += m * vcom[0];
        P[1] += m * vcom[2];
    }
}

/* The smallest mu a ground contact some phase uses declares (a pin's
 * optional mu:, a sliding contact's), leaving out mu 0: a contact made
 * frictionless (human9's front toe, flat_b) carries no tangential force
 * by construction and says nothing of the ground's coefficient. */
static double friction_coefficient(const double *p, const void *data)
{
    const body_model *bm = data;
    const body_file *f = bm->f;
    double mu = NAN;
    for (size_t k = 0; k < f->n_contacts; k++) {
        const body_contact *c = &f->contacts[k];
        if (!body_ground_used(f, k) || !(c->has_mu || c->kind == SM_CONTACT_SLIDE)) continue;
        const double mk = body_num_eval(&c->mu, p);
        if (mk > 0) mu = fmin(mu, mk);
    }
    return mu;
}

static double weight(const double *p, const void *data)
{
    const body_model *bm = data;
    double total = 0;
    for (size_t i = 0; i < bm->f->n_bodies; i++) total += body_num_eval(&bm->f->bodies[i].mass, p);
    return total * body_num_eval(&bm->f->gravity, p);
}

static double time_limit(const double *p, const void *data)
{
    const body_model *bm = data;
    (void)p; /* a file's limit is not a parameter */
    return bm->f->time_limit;
}

static bool check_params(const double *p, const void *data, char *why, size_t why_len)
{
    const body_model *bm = data;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, why, why_len) != SM_OK) return false;
    double total = 0;
    for (size_t i = 0; i < bm->f->n_bodies; i++) total += body_num_eval(&bm->f->bodies[i].mass, p);
    if (!(total > 0)) {
        snprintf(why, why_len, "the walker has no mass: give a body a positive mass");
        return false;
    }
    return true;
}

void body_set_measures(body_model *bm)
{
    sm_model *m = &bm->model;
    const body_file *f = bm->f;
    m->time_limit = time_limit;
    m->kinetic_energy = kinetic;
    m->potential_energy = potential;
    m->step_length = f->origin >= 0 && f->n_touching > 1 ? step_length : NULL;
    m->foot_clearance = f->clearance_contact >= 0 ? clearance : NULL;
    bool bends = false; /* some lock is released in some phase */
    for (size_t k = 0; k < f->n_contacts; k++)
        if (f->contacts[k].kind == SM_CONTACT_LOCK)
            for (size_t ph = 0; ph < f->n_phases; ph++) bends |= body_phase_contact_slot(f, ph, (int)k) < 0;
    m->in_scuff_window = m->foot_clearance && !bends ? scuff_window : NULL;
    m->ground_reaction = ground_reaction;
    m->momentum = momentum;
    m->weight = weight;
    m->friction_coefficient = friction_coefficient;
    m->check_params = check_params;
}
