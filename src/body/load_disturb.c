/* A body file's disturbances: section (docs/body-walkers.md):
 *
 *   disturbances:
 *     step_down: {kind: floor_step, height: hip_z, min: -0.05, max: 0.05}
 *
 * A floor_step is a parameter (nominal 0, SM_PARAM_DISTURBANCE, metres) by
 * which the ground under the swing foot is lower for a stride: every gap
 * event of a ground contact the phase does not hold waits for the gap to
 * reach -h instead of 0, and at the section the walker is raised by h
 * along `height`, the position coordinate that translates the whole
 * walker along the ground's normal (a floating base's z slide), so that
 * the new floor is the ground z = 0 again (src/body/events.c).
 *
 *   slope_step: {kind: slope_step, min: -0.02, max: 0.02}
 *
 * A slope_step is a parameter (nominal 0, rad) added to the file's slope
 * for a stride: gravity is tilted by it (src/body/eval.c), the ground stays
 * z = 0 of the walker's frame.  The state at the section after it is in the
 * frame of the floor the walker stands on, as every state is, so the next
 * stride (on the slope again) starts from it unchanged: the floor turns
 * back under the walker at the section, as simplest.c's and compass.c's
 * slope_step do.
 *
 *   push: {kind: push, site: hip, min: -20, max: 20}
 *
 * A push is a parameter (nominal 0, N s): a horizontal impulse at `site`
 * (forward, perpendicular to this stride's gravity in the sagittal plane,
 * or with `direction: left` along y) the moment the site passes over the
 * point of contact `over` (default the section's origin, the stance foot),
 * applied with the phase's contacts held (src/body/push.c).  Each push adds
 * an event of its own name to every phase; a file has at most
 * BODY_MAX_PUSHES. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load_internal.h"

static bool read_floor_step(bl_ctx *c, const yaml_node_t *k, const yaml_node_t *v, const char *name)
{
    body_file *f = c->f;
    static const char *const keys[] = {"kind", "height", "min", "max", "description", NULL};
    char what[96];
    snprintf(what, sizeof what, "disturbance '%s'", name);
    if (!bl_keys(c, v, what, keys)) return false;
    if (f->has_floor_step)
        return bl_fail_at(c, k->start_mark, "a second floor_step ('%s'); a file has one floor step", name);
    const yaml_node_t *x = bl_need(c, v, "height", what);
    int coord;
    if (!x || !bl_coord_ref(c, x, "height (the coordinate that lifts the walker onto the new floor)", &coord))
        return false;
    double min = -INFINITY, max = INFINITY;
    if ((x = bl_get(c, v, "min", NULL)) && !bl_number(c, x, "min", &min)) return false;
    if ((x = bl_get(c, v, "max", NULL)) && !bl_number(c, x, "max", &max)) return false;
    if (!(min <= 0 && 0 <= max))
        return bl_fail_at(c, v->start_mark, "disturbance '%s': [min, max] = [%g, %g] must hold 0", name, min, max);
    const char *desc = "the next footfall's floor this much lower (negative: higher)";
    if ((x = bl_get(c, v, "description", NULL)) && !(desc = bl_scalar(x)))
        return bl_fail_at(c, x->start_mark, "description must be one line of text");
    if (!bl_add_param(c, k->start_mark, name, 0.0, min, max, "m", desc)) return false;
    f->params[f->n_params - 1].flags |= SM_PARAM_DISTURBANCE;
    f->has_floor_step = true;
    f->floor_step_param = f->n_params - 1;
    f->floor_step_coord = (size_t)coord;
    return true;
}

static bool read_slope_step(bl_ctx *c, const yaml_node_t *k, const yaml_node_t *v, const char *name)
{
    body_file *f = c->f;
    static const char *const keys[] = {"kind", "min", "max", "description", NULL};
    char what[96];
    snprintf(what, sizeof what, "disturbance '%s'", name);
    if (!bl_keys(c, v, what, keys)) return false;
    if (f->has_slope_step)
        return bl_fail_at(c, k->start_mark, "a second slope_step ('%s'); a file has one slope step", name);
    const yaml_node_t *x;
    double min = -0.5, max = 0.5;
    if ((x = bl_get(c, v, "min", NULL)) && !bl_number(c, x, "min", &min)) return false;
    if ((x = bl_get(c, v, "max", NULL)) && !bl_number(c, x, "max", &max)) return false;
    if (!(min <= 0 && 0 <= max))
        return bl_fail_at(c, v->start_mark, "disturbance '%s': [min, max] = [%g, %g] must hold 0", name, min, max);
    const char *desc = "this stride's slope this much steeper";
    if ((x = bl_get(c, v, "description", NULL)) && !(desc = bl_scalar(x)))
        return bl_fail_at(c, x->start_mark, "description must be one line of text");
    if (!bl_add_param(c, k->start_mark, name, 0.0, min, max, "rad", desc)) return false;
    f->params[f->n_params - 1].flags |= SM_PARAM_DISTURBANCE;
    f->has_slope_step = true;
    f->slope_step_param = f->n_params - 1;
    return true;
}

/* The event a push adds to every phase: the site rising past the contact's
 * point in x, which re-enters the same phase with the push applied. */
static bool add_push_events(bl_ctx *c, yaml_mark_t at, const char *name, size_t k)
{
    body_file *f = c->f;
    for (size_t ph = 0; ph < f->n_phases; ph++) {
        body_phase *P = &f->phases[ph];
        for (size_t i = 0; i < P->n_events; i++)
            if (strcmp(P->events[i].name, name) == 0)
                return bl_fail_at(c, at, "disturbance '%s' has the name of an event of phase '%s'; rename one", name,
                                  P->name);
        if (P->n_events >= BODY_MAX_EVENTS)
            return bl_fail_at(c, at, "phase '%s' has %d events, and push '%s' adds one; use fewer", P->name,
                              BODY_MAX_EVENTS, name);
        body_event *e = &P->events[P->n_events];
        memset(e, 0, sizeof *e);
        if (!(e->name = strdup(name))) return bl_no_memory(c);
        P->n_events++;
        e->at_pos = bl_pos(at);
        e->when = BODY_WHEN_PUSH;
        e->target = (int)k;
        e->value = (body_num){-1, NULL};
        e->direction = +1;
        e->outcome = SM_EVENT_TO_PHASE;
        e->next_phase = (int)ph;
    }
    return true;
}

static bool read_push(bl_ctx *c, const yaml_node_t *k, const yaml_node_t *v, const char *name)
{
    body_file *f = c->f;
    static const char *const keys[] = {"kind", "site", "over", "direction", "min", "max", "description", NULL};
    char what[96];
    snprintf(what, sizeof what, "disturbance '%s'", name);
    if (!bl_keys(c, v, what, keys)) return false;
    if (f->n_push >= BODY_MAX_PUSHES)
        return bl_fail_at(c, k->start_mark, "a push more than %d ('%s'); remove one", BODY_MAX_PUSHES, name);
    const yaml_node_t *x = bl_need(c, v, "site", what);
    int site, over = f->origin;
    if (!x || !bl_site_ref(c, x, "site (where the push acts)", &site)) return false;
    if ((x = bl_get(c, v, "over", NULL)) && !bl_contact_ref(c, x, "over (the stance contact the site passes)", &over))
        return false;
    if (over < 0 || f->contacts[over].kind == SM_CONTACT_LOCK)
        return bl_fail_at(c, v->start_mark,
                          "disturbance '%s': give over: a ground contact (pin, slide, roll) the site passes over at "
                          "mid-stance (the section has no origin to default to)", name);
    bool sideways = false;
    if ((x = bl_get(c, v, "direction", NULL))) {
        const char *s = bl_scalar(x);
        if (s && strcmp(s, "left") == 0) sideways = true;
        else if (!s || strcmp(s, "forward") != 0)
            return bl_fail_at(c, x->start_mark, "direction must be forward or left, not '%s'", s ? s : "?");
        if (sideways && bl_is_planar(f))
            return bl_fail_at(c, x->start_mark, "direction: left needs a 3-D walker; this one is planar");
    }
    double min = -INFINITY, max = INFINITY;
    if ((x = bl_get(c, v, "min", NULL)) && !bl_number(c, x, "min", &min)) return false;
    if ((x = bl_get(c, v, "max", NULL)) && !bl_number(c, x, "max", &max)) return false;
    if (!(min <= 0 && 0 <= max))
        return bl_fail_at(c, v->start_mark, "disturbance '%s': [min, max] = [%g, %g] must hold 0", name, min, max);
    const char *desc = sideways ? "leftward impulse at mid-stance" : "forward horizontal impulse at mid-stance";
    if ((x = bl_get(c, v, "description", NULL)) && !(desc = bl_scalar(x)))
        return bl_fail_at(c, x->start_mark, "description must be one line of text");
    if (!bl_add_param(c, k->start_mark, name, 0.0, min, max, "N s", desc)) return false;
    f->params[f->n_params - 1].flags |= SM_PARAM_DISTURBANCE;
    const size_t i = f->n_push++;
    f->push[i].param = f->n_params - 1;
    f->push[i].site = site;
    f->push[i].over = over;
    f->push[i].sideways = sideways;
    return add_push_events(c, k->start_mark, name, i);
}

bool bl_read_disturbances(bl_ctx *c)
{
    const yaml_node_t *n = bl_get(c, c->root, "disturbances", NULL);
    if (!n) return true;
    if (!bl_want(c, n, YAML_MAPPING_NODE, "disturbances")) return false;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = bl_node(c, p->key), *v = bl_node(c, p->value);
        const char *name;
        if (!bl_name(c, k, "a disturbance's name", &name)) return false;
        if (!bl_want(c, v, YAML_MAPPING_NODE, "a disturbance ({kind: floor_step, height: COORD, ...})")) return false;
        const yaml_node_t *kind = bl_need(c, v, "kind", "a disturbance");
        if (!kind) return false;
        const char *s = bl_scalar(kind);
        if (s && strcmp(s, "floor_step") == 0) {
            if (!read_floor_step(c, k, v, name)) return false;
        } else if (s && strcmp(s, "slope_step") == 0) {
            if (!read_slope_step(c, k, v, name)) return false;
        } else if (s && strcmp(s, "push") == 0) {
            if (!read_push(c, k, v, name)) return false;
        } else {
            return bl_fail_at(c, kind->start_mark, "disturbance kind '%s' is not known; the kinds: floor_step, "
                              "slope_step, push", s ? s : "?");
        }
    }
    return true;
}
