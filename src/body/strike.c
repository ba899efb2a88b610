/* Which event of a body walker is the swing foot's strike on the ground
 * (sm_event.strike: the stride's heelstrike_impulse is the momentum jump
 * there), told from what the event does wherever the file does not say
 * (an event's strike: true or false), whatever the event is called.
 *
 * A strike is a plastic impact after which a limb stands on the ground that
 * did not stand on it before.  The limbs are the subtrees of the body tree
 * below the deepest body above every ground contact (a biped's hip or
 * trunk: one limb a leg, its toe and heel both on it).  Ground contacts are
 * pins, slides and rolls; a lock holds a joint, so a knee-strike stands no
 * new limb on the ground, nor does a foot laid flat on the heel it already
 * stands on.  A wheel whose spokes are sites of one body has one limb and so
 * no strike: the section event, which is its strike, stands for it
 * (stride.c).  An event that relabels names the contacts of its impulse as
 * after the swap (docs/body-walkers.md), so the limbs that stood before are
 * carried through the relabel, by a coordinate of theirs, before the two are
 * compared. */
#include "body_model.h"

/* Coordinates of a joint (load.c's name_coords). */
static int joint_coords(sm_rigid_joint j)
{
    switch (j) {
    case SM_RIGID_HINGE:
    case SM_RIGID_SLIDE: return 1;
    case SM_RIGID_BALL: return 4;
    case SM_RIGID_FREE: return 7;
    default: return 0;
    }
}

static bool on_ground(const body_contact *k)
{
    return k->kind == SM_CONTACT_PIN || k->kind == SM_CONTACT_SLIDE || k->kind == SM_CONTACT_ROLL;
}

static int contact_body(const body_file *f, int k) { return f->sites[f->contacts[k].site].body; }

static bool below(const body_file *f, int b, int top)
{
    for (; b >= 0; b = f->bodies[b].parent)
        if (b == top) return true;
    return false;
}

/* The deepest body above (or at) every ground contact's body; -1: the world. */
static int hip_of(const body_file *f)
{
    int a = -2;
    for (size_t k = 0; k < f->n_contacts; k++) {
        if (!on_ground(&f->contacts[k])) continue;
        const int b = contact_body(f, (int)k);
        if (a == -2) a = b;
        while (a >= 0 && !below(f, b, a)) a = f->bodies[a].parent;
    }
    return a == -2 ? -1 : a;
}

/* The limb of body b below hip: the child of hip it hangs from (hip itself
 * for hip). */
static int limb_of(const body_file *f, int hip, int b)
{
    while (b >= 0 && b != hip && f->bodies[b].parent != hip) b = f->bodies[b].parent;
    return b;
}

/* The limb that limb is called after the relabel: the one holding the
 * coordinate its first coordinate goes to (q'[i] = q[qperm[i]]). */
static int relabelled(const body_file *f, int hip, int limb)
{
    int qbody[BODY_MAX_COORDS], first = -1;
    size_t nq = 0;
    for (size_t i = 0; i < f->n_bodies; i++)
        for (int k = 0; k < joint_coords(f->bodies[i].joint) && nq < BODY_MAX_COORDS; k++) {
            if (first < 0 && below(f, (int)i, limb)) first = (int)nq;
            qbody[nq++] = (int)i;
        }
    if (!f->has_relabel || first < 0 || nq != f->nq) return limb;
    for (size_t i = 0; i < nq; i++)
        if (f->qperm[i] == first) return limb_of(f, hip, qbody[i]);
    return limb;
}

bool body_event_strikes(const body_file *f, size_t ph, size_t ev)
{
    const body_event *E = &f->phases[ph].events[ev];
    if (E->strike != BODY_STRIKE_INFER) return E->strike == BODY_STRIKE_YES;
    if (!E->impact || E->outcome == SM_EVENT_FAIL) return false;
    /* the impulse's contacts: the event's list, else the next phase's (at
     * the section phase 0's, onto which the state is projected) */
    const body_phase *next = &f->phases[E->outcome == SM_EVENT_SECTION ? 0 : E->next_phase];
    const size_t n = E->n_impact ? E->n_impact : next->n_contacts;
    const int *onto = E->n_impact ? E->impact_contacts : next->contacts;
    const int hip = hip_of(f);
    bool stood[BODY_MAX_BODIES + 1] = {false}; /* [limb + 1]: the world is -1 */
    const body_phase *P = &f->phases[ph];
    for (size_t i = 0; i < P->n_contacts; i++) {
        if (!on_ground(&f->contacts[P->contacts[i]])) continue;
        int limb = limb_of(f, hip, contact_body(f, P->contacts[i]));
        if (E->relabel) limb = relabelled(f, hip, limb);
        stood[limb + 1] = true;
    }
    for (size_t i = 0; i < n; i++)
        if (on_ground(&f->contacts[onto[i]]) && !stood[limb_of(f, hip, contact_body(f, onto[i])) + 1]) return true;
    return false;
}
