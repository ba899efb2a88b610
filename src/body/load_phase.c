/* Body-walker files: phases and their events, the relabelling, the section
 * and the guess (docs/body-walkers.md), with the checks that tie them
 * together: every phase has a way to the section, the relabelling is a
 * permutation, the section's lift has as many equations as unknowns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_internal.h"

/* ---- phases ---------------------------------------------------------------- */

static int phase_index(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_phases; i++)
        if (strcmp(f->phases[i].name, name) == 0) return (int)i;
    return -1;
}

static bool in_phase(const body_phase *ph, int contact)
{
    for (size_t i = 0; i < ph->n_contacts; i++)
        if (ph->contacts[i] == contact) return true;
    return false;
}

static bool read_when(bl_ctx *c, const yaml_node_t *n, const body_phase *ph, body_event *e, const char *pbase)
{
    static const char *const keys[] = {"gap", "height", "coord", "rate", "force", "slip", "stick", "value", "crosses", NULL};
    static const char *const kinds[] = {"gap", "height", "coord", "rate", "force", "slip", "stick"};
    char what[128];
    snprintf(what, sizeof what, "the when: of event '%s'", e->name);
    if (!bl_want(c, n, YAML_MAPPING_NODE, what) || !bl_keys(c, n, what, keys)) return false;
    int kind = -1;
    yaml_node_t *t = NULL;
    for (int i = 0; i < 7; i++) {
        yaml_node_t *k = NULL, *v = bl_get(c, n, kinds[i], &k);
        if (!v) continue;
        if (kind >= 0)
            return bl_fail_at(c, k->start_mark, "event '%s' watches both %s and %s; an event watches one quantity: "
                              "split it into two events", e->name, kinds[kind], kinds[i]);
        kind = i;
        t = v;
    }
    if (kind < 0)
        return bl_fail_at(c, n->start_mark, "event '%s' watches nothing; give one of gap, height, coord, rate, force, "
                          "slip, stick", e->name);
    e->when = (body_when_kind)kind;
    switch (e->when) {
    case BODY_WHEN_GAP:
        if (!bl_contact_ref(c, t, what, &e->target)) return false;
        break;
    case BODY_WHEN_HEIGHT:
        if (!bl_site_ref(c, t, what, &e->target)) return false;
        break;
    case BODY_WHEN_COORD:
        if (!bl_coord_ref(c, t, what, &e->target)) return false;
        break;
    case BODY_WHEN_RATE:
        if (!bl_rate_ref(c, t, what, &e->target)) return false;
        break;
    default: {
        if (!bl_contact_ref(c, t, what, &e->target)) return false;
        const body_contact *k = &c->f->contacts[e->target];
        if (!in_phase(ph, e->target))
            return bl_fail_at(c, t->start_mark, "event '%s' watches the %s of contact '%s', which phase '%s' does not "
                              "have; add it to the phase's contacts or watch another", e->name, kinds[kind], k->name,
                              ph->name);
        if (e->when == BODY_WHEN_SLIP && !(k->kind == SM_CONTACT_PIN && k->has_mu))
            return bl_fail_at(c, t->start_mark, "slip needs a pin contact with mu; '%s' is not one (give it mu, or "
                              "watch a pin)", k->name);
        if (e->when == BODY_WHEN_STICK && k->kind != SM_CONTACT_SLIDE)
            return bl_fail_at(c, t->start_mark, "stick needs a slide contact; '%s' is not one", k->name);
    }
    }
    yaml_node_t *x;
    if ((x = bl_get(c, n, "value", NULL))) {
        char pn[200];
        snprintf(pn, sizeof pn, "%s.value", pbase);
        if (!bl_num(c, x, pn, -1e6, 1e6, "", "the level the event watches for", &e->value)) return false;
    }
    /* A slip is the friction ratio rising through mu: down would fire where a
     * pin held beyond its cone comes back inside it. */
    e->direction = e->when == BODY_WHEN_SLIP ? 1 : -1;
    if ((x = bl_get(c, n, "crosses", NULL))) {
        const char *s = bl_scalar(x);
        if (s && strcmp(s, "up") == 0) e->direction = 1;
        else if (s && strcmp(s, "down") == 0) e->direction = -1;
        else if (s && strcmp(s, "either") == 0) e->direction = 0;
        else return bl_fail_at(c, x->start_mark, "crosses must be up, down or either");
    }
    return true;
}

static bool read_guard(bl_ctx *c, const yaml_node_t *n, const body_phase *ph, body_event *e, const char *pbase,
                       size_t k)
{
    static const char *const keys[] = {"ahead", "behind", "of", "by", "coord", "rate", "force", "above", "below", NULL};
    char what[128];
    snprintf(what, sizeof what, "a guard (if:) of event '%s'", e->name);
    if (!bl_want(c, n, YAML_MAPPING_NODE, what) || !bl_keys(c, n, what, keys)) return false;
    body_guard *g = &e->guards[k];
    memset(g, 0, sizeof *g);
    g->value = (body_num){-1, NULL};
    char pn[200];
    yaml_node_t *x, *lvl = NULL;
    const char *lvl_key = NULL;
    if ((x = bl_get(c, n, "ahead", NULL)) || (x = bl_get(c, n, "behind", NULL))) {
        const bool ahead = bl_get(c, n, "ahead", NULL) != NULL;
        if (ahead && bl_get(c, n, "behind", NULL))
            return bl_fail_at(c, n->start_mark, "a guard says both ahead and behind; keep one");
        g->kind = ahead ? BODY_GUARD_AHEAD : BODY_GUARD_BEHIND;
        if (!bl_site_ref(c, x, what, &g->a)) return false;
        yaml_node_t *of = bl_need(c, n, "of", what);
        if (!of || !bl_site_ref(c, of, what, &g->b)) return false;
        lvl = bl_get(c, n, "by", NULL);
        lvl_key = "by";
        if (bl_get(c, n, "above", NULL) || bl_get(c, n, "below", NULL) || bl_get(c, n, "coord", NULL) ||
            bl_get(c, n, "rate", NULL) || bl_get(c, n, "force", NULL))
            return bl_fail_at(c, n->start_mark, "an ahead/behind guard takes only of: and by:; split the rest into "
                              "another guard");
    } else {
        int kind = -1;
        static const char *const kk[3] = {"coord", "rate", "force"};
        for (int i = 0; i < 3; i++)
            if ((x = bl_get(c, n, kk[i], NULL))) {
                if (kind >= 0) return bl_fail_at(c, n->start_mark, "a guard tests one quantity; split it");
                kind = i;
            }
        if (kind < 0)
            return bl_fail_at(c, n->start_mark, "a guard needs ahead, behind, coord, rate or force");
        x = bl_get(c, n, kk[kind], NULL);
        yaml_node_t *above = bl_get(c, n, "above", NULL), *below = bl_get(c, n, "below", NULL);
        if (!above == !below)
            return bl_fail_at(c, n->start_mark, "a %s guard needs one of above: or below:", kk[kind]);
        if (bl_get(c, n, "of", NULL) || bl_get(c, n, "by", NULL))
            return bl_fail_at(c, n->start_mark, "of: and by: belong to ahead/behind guards; remove them");
        bool ok = kind == 0 ? bl_coord_ref(c, x, what, &g->a)
                  : kind == 1 ? bl_rate_ref(c, x, what, &g->a)
                              : bl_contact_ref(c, x, what, &g->a);
        if (!ok) return false;
        if (kind == 2 && !in_phase(ph, g->a))
            return bl_fail_at(c, x->start_mark, "a guard of event '%s' tests the force of contact '%s', which phase '%s' "
                              "does not have; add it to the phase's contacts or test another", e->name,
                              c->f->contacts[g->a].name, ph->name);
        static const body_guard_kind gk[3][2] = {{BODY_GUARD_COORD_ABOVE, BODY_GUARD_COORD_BELOW},
                                                 {BODY_GUARD_RATE_ABOVE, BODY_GUARD_RATE_BELOW},
                                                 {BODY_GUARD_FORCE_ABOVE, BODY_GUARD_FORCE_BELOW}};
        g->kind = gk[kind][above ? 0 : 1];
        lvl = above ? above : below;
        lvl_key = above ? "above" : "below";
    }
    if (lvl) {
        snprintf(pn, sizeof pn, "%s.if%zu.%s", pbase, k + 1, lvl_key);
        if (!bl_num(c, lvl, pn, -1e6, 1e6, "", "a guard's threshold", &g->value)) return false;
    }
    return true;
}

/* impact: true (onto the next phase's contacts), false, or a list of the
 * contacts the impulse acts on, named as after the event's relabelling. */
static bool read_impact(bl_ctx *c, const yaml_node_t *x, body_event *e)
{
    if (x->type != YAML_SEQUENCE_NODE) return bl_bool(c, x, "impact", &e->impact);
    if (bl_len(x) == 0)
        return bl_fail_at(c, x->start_mark, "event '%s': impact: [] names no contact; list the contacts the impulse "
                          "acts on, or write impact: true", e->name);
    if (bl_len(x) > BODY_MAX_CONTACTS)
        return bl_fail_at(c, x->start_mark, "event '%s': more than %d contacts in impact; use fewer", e->name,
                          BODY_MAX_CONTACTS);
    char what[128];
    snprintf(what, sizeof what, "the impact of event '%s'", e->name);
    size_t rows = 0;
    for (size_t k = 0; k < bl_len(x); k++) {
        yaml_node_t *it = bl_item(c, x, k);
        int id;
        if (!bl_contact_ref(c, it, what, &id)) return false;
        for (size_t j = 0; j < e->n_impact; j++)
            if (e->impact_contacts[j] == id)
                return bl_fail_at(c, it->start_mark, "event '%s' lists contact '%s' twice in impact; keep one",
                                  e->name, c->f->contacts[id].name);
        e->impact_contacts[e->n_impact++] = id;
        rows += bl_contact_rows(c->f, id, bl_is_planar(c->f));
    }
    if (rows > SM_RIGID_MAX_ROWS)
        return bl_fail_at(c, x->start_mark, "event '%s': its impact has %zu constraint rows, more than %d; use fewer "
                          "contacts", e->name, rows, SM_RIGID_MAX_ROWS);
    e->impact = true;
    return true;
}

static bool read_event(bl_ctx *c, const yaml_node_t *n, body_phase *ph)
{
    static const char *const keys[] = {"name", "when", "if", "impact", "relabel", "strike", "then", "fail", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "an event")) return false;
    yaml_node_t *nk = NULL, *x = bl_get(c, n, "name", &nk);
    const char *name;
    if (!x) return bl_fail_at(c, n->start_mark, "an event of phase '%s' has no 'name'; add it", ph->name);
    if (!bl_name(c, x, "an event's name", &name)) return false;
    char what[128];
    snprintf(what, sizeof what, "event '%s'", name);
    if (!bl_keys(c, n, what, keys)) return false;
    for (size_t i = 0; i < ph->n_events; i++)
        if (strcmp(ph->events[i].name, name) == 0)
            return bl_fail_at(c, x->start_mark, "phase '%s' has two events called '%s'; rename one", ph->name, name);
    if (ph->n_events >= BODY_MAX_EVENTS)
        return bl_fail_at(c, x->start_mark, "phase '%s' has more than %d events; use fewer", ph->name, BODY_MAX_EVENTS);
    body_event *e = &ph->events[ph->n_events];
    memset(e, 0, sizeof *e);
    e->value = (body_num){-1, NULL};
    if (!(e->name = strdup(name))) return bl_no_memory(c);
    ph->n_events++;
    e->at_pos = bl_pos(nk->start_mark);
    char pbase[160];
    snprintf(pbase, sizeof pbase, "phases.%s.%s", ph->name, name);
    yaml_node_t *w = bl_need(c, n, "when", what);
    if (!w || !read_when(c, w, ph, e, pbase)) return false;
    if ((x = bl_get(c, n, "if", NULL))) {
        if (!bl_want(c, x, YAML_SEQUENCE_NODE, "if (a list of guards)")) return false;
        if (bl_len(x) > BODY_MAX_GUARDS)
            return bl_fail_at(c, x->start_mark, "event '%s' has more than %d guards; use fewer", name, BODY_MAX_GUARDS);
        for (size_t i = 0; i < bl_len(x); i++)
            if (!read_guard(c, bl_item(c, x, i), ph, e, pbase, i)) return false;
        e->n_guards = bl_len(x);
    }
    if ((x = bl_get(c, n, "impact", NULL)) && !read_impact(c, x, e)) return false;
    if ((x = bl_get(c, n, "relabel", NULL))) {
        if (!bl_bool(c, x, "relabel", &e->relabel)) return false;
        if (e->relabel && !bl_get(c, c->root, "relabel", NULL))
            return bl_fail_at(c, x->start_mark, "event '%s' relabels but the file has no relabel: table; add one (e.g. "
                              "relabel: [{swap: [leg_a, leg_b]}]) or remove 'relabel: true'", name);
    }
    if ((x = bl_get(c, n, "strike", NULL))) {
        bool strike;
        if (!bl_bool(c, x, "strike", &strike)) return false;
        e->strike = strike ? BODY_STRIKE_YES : BODY_STRIKE_NO;
    }
    yaml_node_t *then = bl_get(c, n, "then", NULL), *fail = bl_get(c, n, "fail", NULL);
    if (!then == !fail)
        return bl_fail_at(c, n->start_mark, "event '%s' needs one outcome: then: PHASE, then: section or fail: STATUS",
                          name);
    if (then) {
        const char *s = bl_scalar(then);
        if (s && strcmp(s, "section") == 0) {
            e->outcome = SM_EVENT_SECTION;
        } else {
            const int k = s ? phase_index(c->f, s) : -1;
            if (k < 0) {
                char list[300] = "";
                for (size_t i = 0; i < c->f->n_phases; i++) {
                    const size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", c->f->phases[i].name);
                }
                return bl_fail_at(c, then->start_mark, "then: '%s' names no phase; use section or one of: %s",
                                  s ? s : "?", list);
            }
            e->outcome = SM_EVENT_TO_PHASE;
            e->next_phase = k;
        }
    } else {
        const char *s = bl_scalar(fail);
        e->outcome = SM_EVENT_FAIL;
        bool found = false;
        for (int k = 0; s && k < SM_STATUS_COUNT && !found; k++)
            if (sm_status_kind((sm_status)k) == SM_KIND_WALKER && strcmp(sm_status_name((sm_status)k), s) == 0) {
                e->failure = (sm_status)k;
                found = true;
            }
        if (!found) {
            char list[300] = "";
            for (int k = 0; k < SM_STATUS_COUNT; k++)
                if (sm_status_kind((sm_status)k) == SM_KIND_WALKER) {
                    const size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", sm_status_name((sm_status)k));
                }
            return bl_fail_at(c, fail->start_mark, "fail: '%s' is no walker status; use one of: %s", s ? s : "?", list);
        }
        if (e->impact || e->relabel || e->strike == BODY_STRIKE_YES)
            return bl_fail_at(c, fail->start_mark, "event '%s' fails the stride; impact, relabel and strike do "
                              "nothing there: remove them", name);
    }
    return true;
}

/* Phase k reaches the section through then: edges. */
static bool reaches_section(const body_file *f, size_t k)
{
    bool seen[BODY_MAX_PHASES] = {false};
    size_t stack[BODY_MAX_PHASES], n = 0;
    stack[n++] = k;
    seen[k] = true;
    while (n > 0) {
        const body_phase *ph = &f->phases[stack[--n]];
        for (size_t i = 0; i < ph->n_events; i++) {
            const body_event *e = &ph->events[i];
            if (e->outcome == SM_EVENT_SECTION) return true;
            if (e->outcome == SM_EVENT_TO_PHASE && !seen[e->next_phase]) {
                seen[e->next_phase] = true;
                stack[n++] = (size_t)e->next_phase;
            }
        }
    }
    return false;
}

bool bl_read_phases(bl_ctx *c)
{
    body_file *f = c->f;
    yaml_node_t *all = bl_get(c, c->root, "phases", NULL);
    if (!all) return bl_fail_at(c, c->root->start_mark, "the file has no 'phases:'; add the phases of a stride");
    if (!bl_want(c, all, YAML_SEQUENCE_NODE, "phases")) return false;
    if (bl_len(all) == 0) return bl_fail_at(c, all->start_mark, "phases is empty; describe the phases of a stride");
    if (bl_len(all) > BODY_MAX_PHASES)
        return bl_fail_at(c, all->start_mark, "more than %d phases; use fewer", BODY_MAX_PHASES);
    static const char *const keys[] = {"name", "contacts", "events", NULL};
    /* names first: then: may name a later phase */
    for (size_t i = 0; i < bl_len(all); i++) {
        yaml_node_t *n = bl_item(c, all, i);
        if (!bl_want(c, n, YAML_MAPPING_NODE, "a phase")) return false;
        yaml_node_t *nk = NULL, *x = bl_get(c, n, "name", &nk);
        const char *name;
        if (!x) return bl_fail_at(c, n->start_mark, "a phase has no 'name'; add it");
        if (!bl_name(c, x, "a phase's name", &name)) return false;
        if (strcmp(name, "section") == 0)
            return bl_fail_at(c, x->start_mark, "a phase may not be called 'section' (then: section ends the stride); "
                              "rename it");
        if (phase_index(f, name) >= 0) return bl_fail_at(c, x->start_mark, "two phases are called '%s'; rename one", name);
        body_phase *ph = &f->phases[f->n_phases];
        memset(ph, 0, sizeof *ph);
        if (!(ph->name = strdup(name))) return bl_no_memory(c);
        f->n_phases++;
        ph->at_pos = bl_pos(nk->start_mark);
    }
    for (size_t i = 0; i < f->n_phases; i++) {
        yaml_node_t *n = bl_item(c, all, i);
        body_phase *ph = &f->phases[i];
        char what[96];
        snprintf(what, sizeof what, "phase '%s'", ph->name);
        if (!bl_keys(c, n, what, keys)) return false;
        yaml_node_t *ck = NULL, *cs = bl_get(c, n, "contacts", &ck);
        if (cs) {
            ph->contacts_pos = bl_pos(ck->start_mark);
            if (!bl_want(c, cs, YAML_SEQUENCE_NODE, "a phase's contacts")) return false;
            for (size_t k = 0; k < bl_len(cs); k++) {
                yaml_node_t *x = bl_item(c, cs, k);
                int id;
                if (!bl_contact_ref(c, x, what, &id)) return false;
                if (in_phase(ph, id))
                    return bl_fail_at(c, x->start_mark, "phase '%s' lists contact '%s' twice; keep one", ph->name,
                                      f->contacts[id].name);
                ph->contacts[ph->n_contacts++] = id;
            }
        } else {
            ph->contacts_pos = ph->at_pos;
        }
        size_t rows = 0;
        for (size_t k = 0; k < ph->n_contacts; k++) rows += bl_contact_rows(f, ph->contacts[k], bl_is_planar(f));
        if (rows > SM_RIGID_MAX_ROWS)
            return bl_fail_at(c, ck->start_mark, "phase '%s' has %zu constraint rows, more than %d; use fewer contacts",
                              ph->name, rows, SM_RIGID_MAX_ROWS);
        yaml_node_t *ev = bl_get(c, n, "events", NULL);
        if (ev) {
            if (!bl_want(c, ev, YAML_SEQUENCE_NODE, "a phase's events")) return false;
            for (size_t k = 0; k < bl_len(ev); k++)
                if (!read_event(c, bl_item(c, ev, k), ph)) return false;
        }
    }
    for (size_t i = 0; i < f->n_phases; i++)
        if (!reaches_section(f, i)) {
            yaml_mark_t m = {0};
            m.line = (size_t)f->phases[i].at_pos.line - 1;
            m.column = (size_t)f->phases[i].at_pos.col - 1;
            return bl_fail_at(c, m, "phase '%s' has no way out: none of its events leads (by then:) to the section; "
                              "add an event with then: section or then: a phase that gets there", f->phases[i].name);
        }
    return true;
}

/* ---- relabel ----------------------------------------------------------------- */

/* A relabel entry's name: one coordinate (q index, with its rate), or a
 * body with a ball or free joint (all its coordinates). */
typedef struct {
    int body;      /* >= 0: the whole joint of this ball/free body */
    int q, v;      /* else one coordinate and its rate (v -1: none) */
} rl_item;

static bool rl_resolve(bl_ctx *c, const yaml_node_t *n, rl_item *it)
{
    const char *s = bl_scalar(n);
    const int b = s ? bl_body_index(c->f, s) : -1;
    if (b >= 0 && (c->f->bodies[b].joint == SM_RIGID_BALL || c->f->bodies[b].joint == SM_RIGID_FREE)) {
        *it = (rl_item){b, -1, -1};
        return true;
    }
    it->body = -1;
    if (!bl_coord_ref(c, n, "relabel", &it->q)) return false;
    it->v = bl_q_to_v(c, it->q);
    if (it->v < 0)
        return bl_fail_at(c, n->start_mark, "relabel: '%s' is one component of a quaternion; swap or negate the whole "
                          "joint by its body's name (%s)", s, c->f->bodies[c->q_body[it->q]].name);
    return true;
}

static void q_range(const bl_ctx *c, int body, int *q0, int *nq, int *v0, int *nv)
{
    *q0 = *v0 = -1;
    *nq = *nv = 0;
    for (size_t i = 0; i < c->f->nq; i++)
        if (c->q_body[i] == body) {
            if (*q0 < 0) *q0 = (int)i;
            (*nq)++;
        }
    for (size_t i = 0; i < c->f->nv; i++)
        if (c->v_body[i] == body) {
            if (*v0 < 0) *v0 = (int)i;
            (*nv)++;
        }
}

static void swap_int(int *a, int *b)
{
    const int t = *a;
    *a = *b;
    *b = t;
}

/* The state index of the coordinate or rate named nm (q then v), or -1
 * after an error at node `at` naming what `what` may list. */
static int state_index(bl_ctx *c, const body_file *f, yaml_node_t *at, const char *what, const char *nm)
{
    for (size_t i = 0; nm && i < f->nq; i++)
        if (strcmp(f->q_names[i], nm) == 0) return (int)i;
    for (size_t i = 0; nm && i < f->nv; i++)
        if (strcmp(f->v_names[i], nm) == 0) return (int)(f->nq + i);
    char list[400] = "";
    for (size_t i = 0; i < f->nq + f->nv && strlen(list) < 300; i++) {
        const size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", i < f->nq ? f->q_names[i] : f->v_names[i - f->nq]);
    }
    bl_fail_at(c, at->start_mark, "%s: '%s' is no coordinate or rate; use names of the state: %s", what,
               nm ? nm : "?", list);
    return -1;
}

static void swap_dbl(double *a, double *b)
{
    const double t = *a;
    *a = *b;
    *b = t;
}

/* {shift: NAME, by: NUMBER}: after the permutation and signs, the hinge or
 * slide NAME moves by a constant: a rimless wheel's stance passes to the
 * next spoke, 2 pi / n on. */
static bool read_shift(bl_ctx *c, yaml_node_t *n, yaml_node_t *sh)
{
    yaml_node_t *by = bl_get(c, n, "by", NULL);
    if (!sh || !by || bl_get(c, n, "swap", NULL) || bl_get(c, n, "negate", NULL))
        return bl_fail_at(c, n->start_mark, "a relabel shift is {shift: NAME, by: NUMBER}, alone in its entry");
    rl_item a;
    if (!rl_resolve(c, sh, &a)) return false;
    if (a.body >= 0)
        return bl_fail_at(c, sh->start_mark, "relabel: shift '%s': only a hinge or slide coordinate can be shifted",
                          bl_scalar(sh));
    double v;
    if (!bl_number(c, by, "relabel: shift: by", &v)) return false;
    if (c->f->qshift[a.q] != 0)
        return bl_fail_at(c, sh->start_mark, "'%s' is shifted twice; give one shift with the sum", bl_scalar(sh));
    c->f->qshift[a.q] = v;
    return true;
}

bool bl_read_relabel(bl_ctx *c)
{
    body_file *f = c->f;
    for (size_t i = 0; i < BODY_MAX_COORDS; i++) {
        f->qperm[i] = f->vperm[i] = (int)i;
        f->qsign[i] = f->vsign[i] = 1;
        f->qshift[i] = 0;
    }
    yaml_node_t *all = bl_get(c, c->root, "relabel", NULL);
    if (!all) return true;
    if (!bl_want(c, all, YAML_SEQUENCE_NODE, "relabel (a list of {swap: [a, b]}, {negate: c} and {shift: c, by: x})")) return false;
    f->has_relabel = true;
    bool swapped_q[BODY_MAX_COORDS] = {false}, negated_q[BODY_MAX_COORDS] = {false};
    for (size_t k = 0; k < bl_len(all); k++) {
        yaml_node_t *n = bl_item(c, all, k);
        static const char *const keys[] = {"swap", "negate", "shift", "by", NULL};
        if (!bl_want(c, n, YAML_MAPPING_NODE, "a relabel entry") || !bl_keys(c, n, "a relabel entry", keys))
            return false;
        yaml_node_t *sh = bl_get(c, n, "shift", NULL);
        if (sh || bl_get(c, n, "by", NULL)) {
            if (!read_shift(c, n, sh)) return false;
            continue;
        }
        yaml_node_t *sw = bl_get(c, n, "swap", NULL), *ng = bl_get(c, n, "negate", NULL);
        if (!sw == !ng)
            return bl_fail_at(c, n->start_mark, "a relabel entry is {swap: [a, b]} or {negate: c}, one per entry");
        if (sw) {
            if (!bl_want(c, sw, YAML_SEQUENCE_NODE, "swap") ) return false;
            if (bl_len(sw) != 2) return bl_fail_at(c, sw->start_mark, "swap takes two names, [a, b], not %zu", bl_len(sw));
            rl_item a, b;
            yaml_node_t *na = bl_item(c, sw, 0), *nb = bl_item(c, sw, 1);
            if (!rl_resolve(c, na, &a) || !rl_resolve(c, nb, &b)) return false;
            int aq0, anq, av0, anv, bq0, bnq, bv0, bnv;
            if (a.body >= 0) q_range(c, a.body, &aq0, &anq, &av0, &anv);
            else aq0 = a.q, anq = 1, av0 = a.v, anv = 1;
            if (b.body >= 0) q_range(c, b.body, &bq0, &bnq, &bv0, &bnv);
            else bq0 = b.q, bnq = 1, bv0 = b.v, bnv = 1;
            const int ja = a.body >= 0 ? (int)f->bodies[a.body].joint : -1,
                      jb = b.body >= 0 ? (int)f->bodies[b.body].joint : -1;
            const int ka = a.body < 0 ? (int)f->bodies[c->q_body[a.q]].joint : ja,
                      kb = b.body < 0 ? (int)f->bodies[c->q_body[b.q]].joint : jb;
            if (ja != jb || (a.body < 0 && ka != kb))
                return bl_fail_at(c, sw->start_mark, "swap [%s, %s] exchanges coordinates of different kinds (%s and "
                                  "%s joints); a relabelling is a permutation of like coordinates: swap like with like",
                                  bl_scalar(na), bl_scalar(nb),
                                  ka == SM_RIGID_HINGE ? "hinge" : ka == SM_RIGID_SLIDE ? "slide" : ka == SM_RIGID_BALL ? "ball" : "free",
                                  kb == SM_RIGID_HINGE ? "hinge" : kb == SM_RIGID_SLIDE ? "slide" : kb == SM_RIGID_BALL ? "ball" : "free");
            if (aq0 == bq0)
                return bl_fail_at(c, nb->start_mark, "swap [%s, %s] swaps a coordinate with itself; name two "
                                  "different ones", bl_scalar(na), bl_scalar(nb));
            for (int side = 0; side < 2; side++) {
                const int q0 = side ? bq0 : aq0, nq = side ? bnq : anq;
                for (int i = 0; i < nq; i++)
                    if (swapped_q[q0 + i])
                        return bl_fail_at(c, (side ? nb : na)->start_mark, "'%s' is swapped twice; a relabelling is a "
                                          "permutation: swap each coordinate once", bl_scalar(side ? nb : na));
                for (int i = 0; i < nq; i++) swapped_q[q0 + i] = true;
            }
            for (int i = 0; i < anq; i++) {
                swap_int(&f->qperm[aq0 + i], &f->qperm[bq0 + i]);
                swap_dbl(&f->qsign[aq0 + i], &f->qsign[bq0 + i]);
            }
            for (int i = 0; i < anv; i++) {
                swap_int(&f->vperm[av0 + i], &f->vperm[bv0 + i]);
                swap_dbl(&f->vsign[av0 + i], &f->vsign[bv0 + i]);
            }
        } else {
            rl_item a;
            if (!rl_resolve(c, ng, &a)) return false;
            int q0, nq, v0, nv;
            if (a.body >= 0) q_range(c, a.body, &q0, &nq, &v0, &nv);
            else q0 = a.q, nq = 1, v0 = a.v, nv = 1;
            if (negated_q[q0])
                return bl_fail_at(c, ng->start_mark, "'%s' is negated twice, which undoes it; negate it once",
                                  bl_scalar(ng));
            for (int i = 0; i < nq; i++) negated_q[q0 + i] = true;
            if (a.body < 0) {
                f->qsign[q0] = -f->qsign[q0];
                f->vsign[v0] = -f->vsign[v0];
            } else {
                /* the mirror y -> -y: a rotation (w, x, y, z) becomes (w, -x, y, -z), an
                 * angular velocity (-wx, wy, -wz), a position (x, -y, z) */
                const bool free_joint = f->bodies[a.body].joint == SM_RIGID_FREE;
                const int qo = free_joint ? 3 : 0, vo = free_joint ? 3 : 0;
                if (free_joint) {
                    f->qsign[q0 + 1] = -f->qsign[q0 + 1];
                    f->vsign[v0 + 1] = -f->vsign[v0 + 1];
                }
                f->qsign[q0 + qo + 1] = -f->qsign[q0 + qo + 1];
                f->qsign[q0 + qo + 3] = -f->qsign[q0 + qo + 3];
                f->vsign[v0 + vo + 0] = -f->vsign[v0 + vo + 0];
                f->vsign[v0 + vo + 2] = -f->vsign[v0 + vo + 2];
            }
        }
    }
    return true;
}

/* ---- section ----------------------------------------------------------------- */

/* section: family: {NAME: VALUE}: one state component and its value, which
 * becomes the parameter section.family.NAME (a member of the family). */
static bool read_family(bl_ctx *c, yaml_node_t *x)
{
    body_file *f = c->f;
    if (!bl_want(c, x, YAML_MAPPING_NODE, "section: family ({coordinate: value})")) return false;
    if (x->data.mapping.pairs.top - x->data.mapping.pairs.start != 1)
        return bl_fail_at(c, x->start_mark, "section: family holds one coordinate and its value, {NAME: VALUE}");
    yaml_node_pair_t *pair = x->data.mapping.pairs.start;
    yaml_node_t *key = yaml_document_get_node(c->doc, pair->key), *val = yaml_document_get_node(c->doc, pair->value);
    const char *nm = bl_scalar(key);
    const int idx = state_index(c, f, key, "section: family", nm);
    if (idx < 0) return false;
    char pname[160];
    snprintf(pname, sizeof pname, "section.family.%s", nm);
    if (!bl_num(c, val, pname, -INFINITY, INFINITY, "", "the member of the family of gaits", &f->family_value))
        return false;
    f->has_family = true;
    f->family_state = (size_t)idx;
    return true;
}

bool bl_read_section(bl_ctx *c)
{
    body_file *f = c->f;
    yaml_node_t *sk = NULL, *s = bl_get(c, c->root, "section", &sk);
    if (!s) return bl_fail_at(c, c->root->start_mark, "the file has no 'section:'; add it (after, touching, origin, free)");
    static const char *const keys[] = {"after", "touching", "origin", "free", "family", NULL};
    if (!bl_want(c, s, YAML_MAPPING_NODE, "section") || !bl_keys(c, s, "section", keys)) return false;
    f->section_pos = bl_pos(sk->start_mark);
    yaml_node_t *x = bl_need(c, s, "after", "section");
    if (!x) return false;
    const char *after = bl_scalar(x);
    f->section_event_phase = f->section_event = -1;
    const char *other = NULL;
    for (size_t i = 0; after && i < f->n_phases && f->section_event < 0; i++)
        for (size_t k = 0; k < f->phases[i].n_events; k++) {
            const body_event *e = &f->phases[i].events[k];
            if (strcmp(e->name, after) != 0) continue;
            if (e->outcome == SM_EVENT_SECTION) {
                f->section_event_phase = (int)i;
                f->section_event = (int)k;
                break;
            }
            other = f->phases[i].name;
        }
    if (f->section_event < 0) {
        if (other)
            return bl_fail_at(c, x->start_mark, "section: after: '%s' (in phase '%s') does not end the stride; give "
                              "that event then: section, or name the event that has it", after, other);
        char list[300] = "";
        for (size_t i = 0; i < f->n_phases; i++)
            for (size_t k = 0; k < f->phases[i].n_events; k++)
                if (f->phases[i].events[k].outcome == SM_EVENT_SECTION) {
                    const size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", f->phases[i].events[k].name);
                }
        return bl_fail_at(c, x->start_mark, "section: after: '%s' names no event; name the event with then: section "
                          "(%s)", after ? after : "?", list);
    }
    if ((x = bl_get(c, s, "touching", NULL))) {
        if (!bl_want(c, x, YAML_SEQUENCE_NODE, "section: touching")) return false;
        if (bl_len(x) > BODY_MAX_CONTACTS) return bl_fail_at(c, x->start_mark, "too many contacts in touching");
        for (size_t k = 0; k < bl_len(x); k++) {
            int id;
            if (!bl_contact_ref(c, bl_item(c, x, k), "section: touching", &id)) return false;
            for (size_t j = 0; j < f->n_touching; j++)
                if (f->touching[j] == id)
                    return bl_fail_at(c, bl_item(c, x, k)->start_mark, "touching lists '%s' twice; keep one",
                                      f->contacts[id].name);
            if (f->contacts[id].hold)
                return bl_fail_at(c, bl_item(c, x, k)->start_mark, "touching lists the lock '%s', which holds its "
                                  "coordinate where it is (at: here), so gives no equation; make that coordinate free "
                                  "instead", f->contacts[id].name);
            f->touching[f->n_touching++] = id;
        }
    }
    f->origin = -1;
    if ((x = bl_get(c, s, "origin", NULL))) {
        if (!bl_contact_ref(c, x, "section: origin", &f->origin)) return false;
        if (f->contacts[f->origin].kind == SM_CONTACT_LOCK)
            return bl_fail_at(c, x->start_mark, "section: origin must be a ground contact (pin, slide, roll), not the "
                              "lock '%s'", f->contacts[f->origin].name);
    }
    yaml_node_t *fk = NULL, *fr = bl_get(c, s, "free", &fk);
    if (!fr) return bl_fail_at(c, s->start_mark, "section has no 'free'; list the free coordinates of the map");
    if (!bl_want(c, fr, YAML_SEQUENCE_NODE, "section: free")) return false;
    bool is_free[2 * BODY_MAX_COORDS] = {false};
    for (size_t k = 0; k < bl_len(fr); k++) {
        yaml_node_t *it = bl_item(c, fr, k);
        const char *nm = bl_scalar(it);
        const int idx = state_index(c, f, it, "section: free", nm);
        if (idx < 0) return false;
        if (is_free[idx]) return bl_fail_at(c, it->start_mark, "section: free lists '%s' twice; keep one", nm);
        is_free[idx] = true;
        f->free_index[f->n_free++] = (size_t)idx;
    }
    if (f->n_free == 0) return bl_fail_at(c, fr->start_mark, "section: free is empty; list the map's free coordinates");
    if ((x = bl_get(c, s, "family", NULL)) && !read_family(c, x)) return false;

    /* the lift: as many equations as unknowns, for positions and for rates */
    const bool planar = bl_is_planar(f);
    size_t unknown_q = 0, quats = 0;
    for (size_t i = 0; i < f->nq; i++) unknown_q += !is_free[i];
    for (size_t b = 0; b < f->n_bodies; b++) {
        if (f->bodies[b].joint != SM_RIGID_BALL && f->bodies[b].joint != SM_RIGID_FREE) continue;
        bool any = false;
        for (size_t i = 0; i < f->nq; i++) any = any || (c->q_body[i] == (int)b && !is_free[i]);
        quats += any; /* its unit length is one more equation */
    }
    const size_t eq_q = f->n_touching + (f->origin >= 0 ? (planar ? 1 : 2) : 0) + quats;
    yaml_mark_t fm = fk->start_mark;
    if (unknown_q != eq_q)
        return bl_fail_at(c, fm, "section: %zu positions are not free but touching%s give %zu equations (%zu gaps%s%s); "
                          "%s", unknown_q, f->origin >= 0 ? " and origin" : "", eq_q, f->n_touching,
                          f->origin >= 0 ? (planar ? ", 1 for the origin's x" : ", 2 for the origin's x and y") : "",
                          quats ? " and the unit quaternions" : "",
                          unknown_q > eq_q ? "free more positions or touch more contacts"
                                           : "free fewer positions or touch fewer contacts");
    size_t unknown_v = 0, rows = 0;
    for (size_t i = 0; i < f->nv; i++) unknown_v += !is_free[f->nq + i];
    const body_phase *p0 = &f->phases[0];
    for (size_t k = 0; k < p0->n_contacts; k++) rows += bl_contact_rows(f, p0->contacts[k], planar);
    if (unknown_v != rows)
        return bl_fail_at(c, fm, "section: %zu rates are not free but the contacts of phase '%s' give %zu velocity "
                          "constraints (%s model); %s", unknown_v, p0->name, rows, planar ? "a planar" : "a 3-D",
                          unknown_v > rows ? "free more rates" : "free fewer rates");
    return true;
}

/* ---- guess ------------------------------------------------------------------ */

bool bl_read_guess(bl_ctx *c)
{
    body_file *f = c->f;
    memset(f->guess, 0, sizeof f->guess);
    for (size_t b = 0; b < f->n_bodies; b++) {
        int q0 = -1;
        for (size_t i = 0; i < f->nq && q0 < 0; i++)
            if (c->q_body[i] == (int)b) q0 = (int)i;
        if (f->bodies[b].joint == SM_RIGID_BALL) f->guess[q0] = 1;
        if (f->bodies[b].joint == SM_RIGID_FREE) f->guess[q0 + 3] = 1;
    }
    yaml_node_t *g = bl_get(c, c->root, "guess", NULL);
    if (!g) return true;
    if (!bl_want(c, g, YAML_MAPPING_NODE, "guess (coordinate: value, ...)")) return false;
    bool set[2 * BODY_MAX_COORDS] = {false};
    for (yaml_node_pair_t *p = g->data.mapping.pairs.start; p < g->data.mapping.pairs.top; p++) {
        yaml_node_t *k = bl_node(c, p->key);
        const char *nm = bl_scalar(k);
        const int idx = state_index(c, f, k, "guess", nm);
        if (idx < 0) return false;
        if (set[idx]) return bl_fail_at(c, k->start_mark, "guess gives '%s' twice; keep one", nm);
        set[idx] = true;
        if (!bl_number(c, bl_node(c, p->value), "a guess", &f->guess[idx])) return false;
    }
    return true;
}

bool bl_phase_mask(bl_ctx *c, const yaml_node_t *x, const char *what, const char *empty_hint, unsigned *mask)
{
    if (!bl_want(c, x, YAML_SEQUENCE_NODE, "phases (a list of phase names)")) return false;
    if (bl_len(x) == 0)
        return bl_fail_at(c, x->start_mark, "%s: phases: [] names no phase; list the phases %s, or drop phases:", what,
                          empty_hint);
    *mask = 0;
    for (size_t j = 0; j < bl_len(x); j++) {
        yaml_node_t *it = bl_item(c, x, j);
        const char *name;
        if (!bl_name(c, it, "a phase's name", &name)) return false;
        size_t ph = 0;
        while (ph < c->f->n_phases && strcmp(c->f->phases[ph].name, name) != 0) ph++;
        if (ph == c->f->n_phases)
            return bl_fail_at(c, it->start_mark, "%s: phases: names '%s', which is no phase; name one of phases:", what,
                              name);
        if (*mask >> ph & 1u) return bl_fail_at(c, it->start_mark, "%s: phases: names '%s' twice; keep one", what, name);
        *mask |= 1u << ph;
    }
    return true;
}

/* The forces come before the phases in a file, so their phases: are read
 * here, once the phases are: the forces: list again, in the same order. */
bool bl_read_force_phases(bl_ctx *c)
{
    yaml_node_t *all = bl_get(c, c->root, "forces", NULL);
    for (size_t i = 0; i < c->f->n_forces; i++) {
        body_force *g = &c->f->forces[i];
        g->phases_off = 0;
        yaml_node_t *x = bl_get(c, bl_item(c, all, i), "phases", NULL);
        if (!x) continue;
        char what[96];
        snprintf(what, sizeof what, "force '%s'", g->name);
        unsigned on;
        if (!bl_phase_mask(c, x, what, "it acts in", &on)) return false;
        g->phases_off = ~on;
    }
    return true;
}
