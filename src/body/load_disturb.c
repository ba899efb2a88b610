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
 * slope_step do. */
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
        } else {
            return bl_fail_at(c, kind->start_mark,
                              "disturbance kind '%s' is not known; the kinds: floor_step, slope_step", s ? s : "?");
        }
    }
    return true;
}
