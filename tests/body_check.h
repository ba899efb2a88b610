/* What every body_file that loads must hold, whatever the file said: each
 * index inside its table, parents before children, the relabelling a
 * permutation with signs +-1, and every number evaluating (finite or not,
 * without a crash) at the default parameters.  Shared by the fuzzer
 * (tests/fuzz/fuzz_body.c) and tests/test_body_load.c's corpus run. */
#ifndef STRIDEMAP_TEST_BODY_CHECK_H
#define STRIDEMAP_TEST_BODY_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "body_def.h"

static inline bool body_num_ok(const body_num *n, const body_file *f, const double *p)
{
    if (n->param >= (int)f->n_params) return false;
    if (n->param < -1) return false;
    (void)body_num_eval(n, p);
    return true;
}

static inline bool body_perm_ok(const int *perm, const double *sign, size_t n)
{
    bool seen[BODY_MAX_COORDS] = {false};
    for (size_t i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= (int)n || seen[perm[i]]) return false;
        if (sign[i] != 1 && sign[i] != -1) return false;
        seen[perm[i]] = true;
    }
    return true;
}

static inline bool body_file_consistent(const body_file *f)
{
    double p[SM_MAX_PARAMS];
    if (f->n_params > SM_MAX_PARAMS || f->n_bodies == 0 || f->n_bodies > BODY_MAX_BODIES) return false;
    for (size_t i = 0; i < f->n_params; i++) p[i] = f->params[i].value;
    if (!body_num_ok(&f->gravity, f, p) || !body_num_ok(&f->slope, f, p)) return false;
    for (size_t i = 0; i < f->n_bodies; i++) {
        const body_body *b = &f->bodies[i];
        if (b->parent >= (int)i || b->parent < -1) return false;
        for (int k = 0; k < 3; k++)
            if (!body_num_ok(&b->pos[k], f, p) || !body_num_ok(&b->com[k], f, p)) return false;
        for (int k = 0; k < 6; k++)
            if (!body_num_ok(&b->inertia[k], f, p)) return false;
        if (!body_num_ok(&b->mass, f, p)) return false;
    }
    for (size_t i = 0; i < f->n_sites; i++) {
        if (f->sites[i].body < 0 || f->sites[i].body >= (int)f->n_bodies) return false;
        for (int k = 0; k < 3; k++)
            if (!body_num_ok(&f->sites[i].pos[k], f, p)) return false;
    }
    for (size_t i = 0; i < f->n_contacts; i++) {
        const body_contact *c = &f->contacts[i];
        if (c->kind == SM_CONTACT_LOCK) {
            if (c->body < 0 || c->body >= (int)f->n_bodies) return false;
            const sm_rigid_joint j = f->bodies[c->body].joint;
            if (j != SM_RIGID_HINGE && j != SM_RIGID_SLIDE) return false;
        } else if (c->site < 0 || c->site >= (int)f->n_sites) {
            return false;
        }
        if (!body_num_ok(&c->radius, f, p) || !body_num_ok(&c->mu, f, p) || !body_num_ok(&c->at, f, p)) return false;
    }
    for (size_t i = 0; i < f->n_forces; i++) {
        const body_force *g = &f->forces[i];
        if (g->n == 0 || g->n > 8) return false;
        for (size_t k = 0; k < g->n; k++) {
            if (g->body[k] < 0 || g->body[k] >= (int)f->n_bodies) return false;
            const sm_rigid_joint j = f->bodies[g->body[k]].joint;
            if (j != SM_RIGID_HINGE && j != SM_RIGID_SLIDE) return false;
        }
    }
    if (f->n_phases == 0 || f->n_phases > BODY_MAX_PHASES) return false;
    for (size_t i = 0; i < f->n_phases; i++) {
        const body_phase *ph = &f->phases[i];
        for (size_t k = 0; k < ph->n_contacts; k++)
            if (ph->contacts[k] < 0 || ph->contacts[k] >= (int)f->n_contacts) return false;
        for (size_t k = 0; k < ph->n_events; k++) {
            const body_event *e = &ph->events[k];
            const size_t n = e->when == BODY_WHEN_HEIGHT ? f->n_sites
                             : e->when == BODY_WHEN_COORD ? f->nq
                             : e->when == BODY_WHEN_RATE  ? f->nv
                                                          : f->n_contacts;
            if (e->target < 0 || e->target >= (int)n) return false;
            if (e->outcome == SM_EVENT_TO_PHASE && (e->next_phase < 0 || e->next_phase >= (int)f->n_phases)) return false;
            if (!body_num_ok(&e->value, f, p) || e->n_guards > BODY_MAX_GUARDS) return false;
            for (size_t g = 0; g < e->n_guards; g++)
                if (!body_num_ok(&e->guards[g].value, f, p)) return false;
            /* an impact list: distinct contacts of the file, only on an impact */
            if (e->n_impact > BODY_MAX_CONTACTS || (e->n_impact > 0 && !e->impact)) return false;
            for (size_t i = 0; i < e->n_impact; i++) {
                if (e->impact_contacts[i] < 0 || e->impact_contacts[i] >= (int)f->n_contacts) return false;
                for (size_t j = 0; j < i; j++)
                    if (e->impact_contacts[j] == e->impact_contacts[i]) return false;
            }
        }
    }
    if (f->nq > BODY_MAX_COORDS || f->nv > BODY_MAX_COORDS) return false;
    if (!body_perm_ok(f->qperm, f->qsign, f->nq) || !body_perm_ok(f->vperm, f->vsign, f->nv)) return false;
    if (f->section_event_phase < 0 || f->section_event_phase >= (int)f->n_phases) return false;
    const body_phase *sp = &f->phases[f->section_event_phase];
    if (f->section_event < 0 || f->section_event >= (int)sp->n_events ||
        sp->events[f->section_event].outcome != SM_EVENT_SECTION)
        return false;
    for (size_t i = 0; i < f->n_touching; i++)
        if (f->touching[i] < 0 || f->touching[i] >= (int)f->n_contacts) return false;
    if (f->origin >= (int)f->n_contacts) return false;
    if (f->n_free == 0) return false;
    for (size_t i = 0; i < f->n_free; i++)
        if (f->free_index[i] >= f->nq + f->nv) return false;
    if (!(f->time_limit > 0)) return false;
    return f->clearance_contact < (int)f->n_contacts && f->hip_site < (int)f->n_sites;
}

#endif
