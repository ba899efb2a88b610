/* Body-walker files built in C (header-only, static functions), for the
 * tests of src/body/model.c: the compass gait of models/compass.yaml as a
 * tree of rigid bodies.  Every string is heap memory, as the loader's, so
 * body_file_free releases it. */
#ifndef STRIDEMAP_TEST_BODY_FILES_H
#define STRIDEMAP_TEST_BODY_FILES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/body/body_def.h"

static const body_num B0 = {.param = -1, .expr = NULL}; /* the value 0 */

static inline body_num bparam(int i) { return (body_num){.param = i, .expr = NULL}; }

static inline body_file *bf_new(const char *name)
{
    body_file *f = calloc(1, sizeof *f);
    f->name = strdup(name);
    f->title = strdup(name);
    f->reference = strdup("tests/body_files.h");
    f->path = strdup("tests/data/body_models/test.yaml");
    f->origin = -1;
    f->clearance_contact = -1;
    f->hip_site = -1;
    f->time_limit = 10;
    return f;
}

static inline int bf_param(body_file *f, const char *name, double v)
{
    f->params[f->n_params] = (sm_param_def){.name = strdup(name), .value = v, .min = -INFINITY, .max = INFINITY};
    return (int)f->n_params++;
}

static inline int bf_body(body_file *f, const char *name, int parent, sm_rigid_joint joint, double ax, double ay,
                          double az, body_num mass, body_num comz)
{
    body_body *b = &f->bodies[f->n_bodies];
    b->name = strdup(name);
    b->parent = parent;
    b->joint = joint;
    b->quat[0] = 1;
    b->axis[0] = ax, b->axis[1] = ay, b->axis[2] = az;
    for (int k = 0; k < 3; k++) b->pos[k] = b->com[k] = B0;
    b->com[2] = comz;
    b->mass = mass;
    for (int k = 0; k < 6; k++) b->inertia[k] = B0;
    if (joint != SM_RIGID_FIXED) f->q_names[f->nq++] = strdup(name), f->nv++;
    return (int)f->n_bodies++;
}

static inline int bf_site(body_file *f, const char *name, int body, body_num z)
{
    body_site *s = &f->sites[f->n_sites];
    s->name = strdup(name);
    s->body = body;
    s->pos[0] = s->pos[1] = B0;
    s->pos[2] = z;
    return (int)f->n_sites++;
}

static inline int bf_pin(body_file *f, const char *name, int site)
{
    body_contact *c = &f->contacts[f->n_contacts];
    c->name = strdup(name);
    c->kind = SM_CONTACT_PIN;
    c->site = site;
    c->body = -1;
    c->radius = c->mu = c->at = B0;
    return (int)f->n_contacts++;
}

static inline body_event *bf_event(body_phase *P, const char *name, body_when_kind when, int target, int direction)
{
    body_event *e = &P->events[P->n_events++];
    e->name = strdup(name);
    e->when = when;
    e->target = target;
    e->value = B0;
    e->direction = direction;
    e->next_phase = -1;
    return e;
}

/* models/compass.yaml as bodies: the hip slides in x and z (the hip mass),
 * each leg hangs from it on a hinge about -y, so that its angle is the
 * linkage's (from the slope normal, positive leaning back).  State
 * (hip.x, hip.z, leg_a, leg_b, and their rates); leg_a is the stance leg. */
static inline body_file *bf_compass(void)
{
    body_file *f = bf_new("compass_body_test");
    const int g = bf_param(f, "gravity", 9.81);
    const int slope = bf_param(f, "slope", 0.05235987755982988);
    const int mh = bf_param(f, "hip.mass", 10);
    const int ml = bf_param(f, "leg.mass", 5);
    const int com = bf_param(f, "leg.com.z", -0.5);
    const int len = bf_param(f, "leg.foot.z", -1.0);
    const int by = bf_param(f, "guard.ahead", 0.02);
    f->gravity = bparam(g);
    f->slope = bparam(slope);
    const int hx = bf_body(f, "hip.x", -1, SM_RIGID_SLIDE, 1, 0, 0, B0, B0);
    const int hz = bf_body(f, "hip.z", hx, SM_RIGID_SLIDE, 0, 0, 1, bparam(mh), B0);
    const int la = bf_body(f, "leg_a", hz, SM_RIGID_HINGE, 0, -1, 0, bparam(ml), bparam(com));
    const int lb = bf_body(f, "leg_b", hz, SM_RIGID_HINGE, 0, -1, 0, bparam(ml), bparam(com));
    const int fa = bf_site(f, "foot_a", la, bparam(len));
    const int fb = bf_site(f, "foot_b", lb, bparam(len));
    const int hip = bf_site(f, "hip", hz, B0);
    const int ca = bf_pin(f, "foot_a", fa);
    const int cb = bf_pin(f, "foot_b", fb);

    body_phase *P = &f->phases[f->n_phases++];
    P->name = strdup("swing");
    P->contacts[P->n_contacts++] = ca;
    P->at_pos = P->contacts_pos = (body_pos){20, 5};
    body_event *hs = bf_event(P, "heelstrike", BODY_WHEN_GAP, cb, 0);
    hs->guards[hs->n_guards++] = (body_guard){.kind = BODY_GUARD_AHEAD, .a = fb, .b = fa, .value = bparam(by)};
    hs->guards[hs->n_guards++] = (body_guard){.kind = BODY_GUARD_AHEAD, .a = hip, .b = fa, .value = B0};
    hs->outcome = SM_EVENT_SECTION;
    hs->impact = hs->relabel = true;
    body_event *rb = bf_event(P, "rolled_back", BODY_WHEN_RATE, 2, +1);
    rb->outcome = SM_EVENT_FAIL;
    rb->failure = SM_FELL_BACKWARD;
    body_event *hd = bf_event(P, "hip_down", BODY_WHEN_HEIGHT, hip, -1);
    hd->outcome = SM_EVENT_FAIL;
    hd->failure = SM_FELL_FORWARD;

    f->has_relabel = true;
    const int perm[4] = {0, 1, 3, 2};
    for (int i = 0; i < 4; i++) {
        f->qperm[i] = f->vperm[i] = perm[i];
        f->qsign[i] = f->vsign[i] = 1;
    }
    f->section_event_phase = 0;
    f->section_event = 0;
    f->touching[f->n_touching++] = ca;
    f->touching[f->n_touching++] = cb;
    f->origin = ca;
    f->free_index[f->n_free++] = 2; /* leg_a */
    f->free_index[f->n_free++] = 6; /* leg_a_dot */
    f->free_index[f->n_free++] = 7; /* leg_b_dot */
    const double guess[8] = {0, 1, 0.271, -0.271, 0, 0, -1.092, -0.377};
    memcpy(f->guess, guess, sizeof guess);
    f->clearance_contact = cb;
    f->hip_site = hip;
    return f;
}

static inline int bf_roll(body_file *f, const char *name, int site, body_num radius)
{
    const int k = bf_pin(f, name, site);
    f->contacts[k].kind = SM_CONTACT_ROLL;
    f->contacts[k].radius = radius;
    f->contacts[k].axis[1] = 1;
    return k;
}

static inline int bf_lock(body_file *f, const char *name, int body)
{
    const int k = bf_pin(f, name, -1);
    f->contacts[k].kind = SM_CONTACT_LOCK;
    f->contacts[k].body = body;
    return k;
}

/* models/compass_round_spring.yaml: the compass with disk feet of radius
 * 0.2 rolling on the ground and a hip spring and damper on swing - stance. */
static inline body_file *bf_compass_round_spring(void)
{
    body_file *f = bf_compass();
    const int disk = bf_param(f, "leg.disk.z", -0.8);
    const int radius = bf_param(f, "foot.radius", 0.2);
    const int k = bf_param(f, "hip.stiffness", 5);
    const int c = bf_param(f, "hip.damping", 0.05);
    /* the feet become disks: their centres R above the old points */
    f->sites[0].pos[2] = f->sites[1].pos[2] = bparam(disk);
    for (int i = 0; i < 2; i++) {
        f->contacts[i].kind = SM_CONTACT_ROLL;
        f->contacts[i].radius = bparam(radius);
        f->contacts[i].axis[1] = 1;
    }
    body_force *F = &f->forces[f->n_forces++];
    F->name = strdup("hip_spring");
    F->n = 2;
    F->body[0] = 3, F->coef[0] = 1;  /* leg_b */
    F->body[1] = 2, F->coef[1] = -1; /* leg_a */
    F->stiffness = bparam(k);
    F->damping = bparam(c);
    F->rest = F->torque = B0;
    const double guess[8] = {0, 1, 0.3239570883, -0.3239570883, 0, 0, -1.3143114496, -0.5055955450};
    memcpy(f->guess, guess, sizeof guess);
    return f;
}

/* models/kneed_mcgeer.yaml: thighs on hinges at the hip, shanks on hinges
 * about +y at the knees (knee = thigh - shank, the flexion: the locks'
 * torque is then positive when the stop holds the knee straight), disk feet
 * of radius 0.2 offset 0.05 forward, knee stops as locks.  Phases
 * knee_free [foot_a, knee_a] -> kneestrike (impact) -> knee_locked [foot_a,
 * knee_a, knee_b] -> heelstrike (impact, relabel) -> section.  State
 * (hip.x, hip.z, thigh_a, knee_a, thigh_b, knee_b, and rates). */
static inline body_file *bf_kneed_mcgeer(void)
{
    body_file *f = bf_new("kneed_body_test");
    const int g = bf_param(f, "gravity", 9.81);
    const int slope = bf_param(f, "slope", 0.03);
    const int mh = bf_param(f, "hip.mass", 0.773);
    const int mt = bf_param(f, "thigh.mass", 2.3451);
    const int ct = bf_param(f, "thigh.com.z", -0.091);
    const int it = bf_param(f, "thigh.iyy", 2.3451 * 0.0992 * 0.0992);
    const int lt = bf_param(f, "thigh.length.z", -0.35);
    const int ms = bf_param(f, "shank.mass", 0.4);
    const int cs = bf_param(f, "shank.com.z", -0.18);
    const int is = bf_param(f, "shank.iyy", 0.4 * 0.1 * 0.1);
    const int dz = bf_param(f, "shank.disk.z", -0.25);
    const int dx = bf_param(f, "shank.disk.x", 0.05);
    const int radius = bf_param(f, "foot.radius", 0.2);
    const int by = bf_param(f, "guard.ahead", 0.02 * 0.8);
    const int behind = bf_param(f, "guard.behind", -0.02 * 0.8);
    f->gravity = bparam(g);
    f->slope = bparam(slope);
    const int hx = bf_body(f, "hip.x", -1, SM_RIGID_SLIDE, 1, 0, 0, B0, B0);
    const int hz = bf_body(f, "hip.z", hx, SM_RIGID_SLIDE, 0, 0, 1, bparam(mh), B0);
    int thigh[2], shank[2], disk[2];
    const char *tn[2] = {"thigh_a", "thigh_b"}, *sn[2] = {"knee_a", "knee_b"}, *dn[2] = {"foot_a", "foot_b"};
    for (int l = 0; l < 2; l++) {
        thigh[l] = bf_body(f, tn[l], hz, SM_RIGID_HINGE, 0, -1, 0, bparam(mt), bparam(ct));
        f->bodies[thigh[l]].inertia[1] = bparam(it);
        shank[l] = bf_body(f, sn[l], thigh[l], SM_RIGID_HINGE, 0, 1, 0, bparam(ms), bparam(cs));
        f->bodies[shank[l]].inertia[1] = bparam(is);
        f->bodies[shank[l]].pos[2] = bparam(lt);
        disk[l] = bf_site(f, dn[l], shank[l], bparam(dz));
        f->sites[disk[l]].pos[0] = bparam(dx);
    }
    const int hip = bf_site(f, "hip", hz, B0);
    const int fa = bf_roll(f, "foot_a", disk[0], bparam(radius));
    const int fb = bf_roll(f, "foot_b", disk[1], bparam(radius));
    const int ka = bf_lock(f, "knee_a", shank[0]);
    const int kb = bf_lock(f, "knee_b", shank[1]);

    for (int ph = 0; ph < 2; ph++) {
        body_phase *P = &f->phases[f->n_phases++];
        P->name = strdup(ph == 0 ? "knee_free" : "knee_locked");
        P->contacts[P->n_contacts++] = fa;
        P->contacts[P->n_contacts++] = ka;
        if (ph == 1) P->contacts[P->n_contacts++] = kb;
        P->at_pos = P->contacts_pos = (body_pos){30 + 10 * ph, 5};
        if (ph == 0) {
            body_event *ks = bf_event(P, "kneestrike", BODY_WHEN_COORD, 5, -1);
            ks->outcome = SM_EVENT_TO_PHASE;
            ks->next_phase = 1;
            ks->impact = true;
        }
        body_event *hs = bf_event(P, ph == 0 ? "foot_down_knee_bent" : "heelstrike", BODY_WHEN_GAP, fb, -1);
        hs->guards[hs->n_guards++] = (body_guard){.kind = BODY_GUARD_AHEAD, .a = disk[1], .b = disk[0], .value = bparam(by)};
        hs->guards[hs->n_guards++] = (body_guard){.kind = BODY_GUARD_AHEAD, .a = hip, .b = disk[0], .value = B0};
        if (ph == 0) {
            hs->outcome = SM_EVENT_FAIL;
            hs->failure = SM_EVENT_ORDER;
        } else {
            hs->outcome = SM_EVENT_SECTION;
            hs->impact = hs->relabel = true;
        }
        body_event *sc = bf_event(P, "scuff", BODY_WHEN_GAP, fb, -1);
        sc->guards[sc->n_guards++] = (body_guard){.kind = BODY_GUARD_BEHIND, .a = disk[1], .b = disk[0], .value = bparam(behind)};
        sc->outcome = SM_EVENT_FAIL;
        sc->failure = SM_SCUFFED;
        body_event *rb = bf_event(P, "rolled_back", BODY_WHEN_RATE, 2, +1);
        rb->outcome = SM_EVENT_FAIL;
        rb->failure = SM_FELL_BACKWARD;
        body_event *hd = bf_event(P, "hip_down", BODY_WHEN_HEIGHT, hip, -1);
        hd->outcome = SM_EVENT_FAIL;
        hd->failure = SM_FELL_FORWARD;
        body_event *ku = bf_event(P, "stance_knee_unlocks", BODY_WHEN_FORCE, ka, -1);
        ku->outcome = SM_EVENT_FAIL;
        ku->failure = SM_KNEE_UNLOCKED;
    }
    f->has_relabel = true;
    const int perm[6] = {0, 1, 4, 5, 2, 3};
    for (int i = 0; i < 6; i++) {
        f->qperm[i] = f->vperm[i] = perm[i];
        f->qsign[i] = f->vsign[i] = 1;
    }
    f->section_event_phase = 1;
    f->section_event = 0;
    f->touching[f->n_touching++] = fa;
    f->touching[f->n_touching++] = fb;
    f->touching[f->n_touching++] = ka;
    f->touching[f->n_touching++] = kb;
    f->origin = fa;
    f->free_index[f->n_free++] = 2;  /* thigh_a */
    f->free_index[f->n_free++] = 8;  /* thigh_a_dot */
    f->free_index[f->n_free++] = 10; /* thigh_b_dot */
    f->free_index[f->n_free++] = 11; /* knee_b_dot */
    /* the linkage file's guess (stance, thigh, shank and their rates) */
    const double lg[6] = {0.19192296153, -0.35820542530, -0.35820542530, -1.10553757336, 0.10545027942, -2.15730642975};
    const double guess[12] = {0, 0.8, lg[0], 0, lg[1], lg[1] - lg[2], 0, 0, lg[3], 0, lg[4], lg[4] - lg[5]};
    memcpy(f->guess, guess, sizeof guess);
    f->clearance_contact = fb;
    f->hip_site = hip;
    return f;
}

#endif
