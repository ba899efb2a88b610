/* Body-walker model files (docs/body-walkers.md) read into a body_file.
 *
 * The format has fields that are a number or a name or an expression, a
 * joint that is a word or a mapping, parameters that are a number or a
 * mapping, and a guess keyed by coordinate names: shapes a libcyaml schema
 * cannot say.  So the file is read as a libyaml document (the same library
 * libcyaml stands on), whose every node carries its line and column, and the
 * schema is checked by the loader: unknown keys, wrong types and every
 * cross-reference are errors "path:line:col: what is wrong; what to change"
 * at the offending key or value.  This file is the driver (the top level,
 * parameters, bodies, sites, contacts, forces); load_yaml.c reads the nodes
 * and numbers, load_names.c resolves names, load_phase.c reads the phases,
 * relabelling, section and guess, and the checks that need the whole file
 * (reachability of the section, the counts of the section's lift, the
 * relabelling being a permutation) run once their parts are read
 * (load_phase.c, load_check.c).
 *
 * Where docs/body-walkers.md leaves a choice, this loader reads:
 * - names (model parts, parameters) are letters, digits and '_', not
 *   starting with a digit: they become parts of dotted parameter names and
 *   are read back by expressions, where '-' or '.' would mislead;
 * - an optional field left out (mass, com, pos, inertia, rest, at, by,
 *   value) is zero and no parameter; only a number written in the file is;
 *   expressions may name the dotted parameters defined before them
 *   (mass: bodies.leg_a.mass keeps two legs alike);
 * - literal event levels and guard thresholds are parameters too:
 *   phases.PHASE.EVENT.value, phases.PHASE.EVENT.ifK.by (.above, .below),
 *   K counting the guards from 1;
 * - joint: planar puts pos on NAME.x and quat on NAME (the hinge), whose
 *   axis is the body's axis if given, else [0, 1, 0];
 * - rate: and a rate guard take a coordinate's name (leg_a) or a rate's
 *   (leg_a_dot); relabel takes 1-DOF and free-position coordinates one by
 *   one and ball/free joints whole by their body's name (negate: the mirror
 *   y -> -y of the joint);
 * - every phase, not only the first, must have a way to the section; an
 *   event that fails the stride takes no impact or relabel;
 * - a pin's rows (x, y, z) are read as a set: the order written does not
 *   change the order of the constraint rows (always x, y, z); a planar
 *   model drops y from it;
 * - the section's origin is optional (no origin equations without it); a
 *   ball or free joint with a position not free adds its unit length as
 *   one more equation of the lift; free keeps the order written. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "expr.h"
#include "load_internal.h"

/* ---- parameters ------------------------------------------------------------ */

static bool read_parameters(bl_ctx *c, const yaml_node_t *n)
{
    if (!bl_want(c, n, YAML_MAPPING_NODE, "parameters")) return false;
    static const char *const keys[] = {"value", "min", "max", "unit", "description", NULL};
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = bl_node(c, p->key), *v = bl_node(c, p->value);
        const char *name;
        if (!bl_name(c, k, "a parameter's name", &name)) return false;
        if (bl_param_index(c->f, name) >= 0)
            return bl_fail_at(c, k->start_mark, "parameter '%s' is declared twice; keep one", name);
        double value, min = -INFINITY, max = INFINITY;
        const char *unit = "", *desc = "";
        if (v->type == YAML_MAPPING_NODE) {
            char what[96];
            snprintf(what, sizeof what, "parameter '%s'", name);
            if (!bl_keys(c, v, what, keys)) return false;
            yaml_node_t *x = bl_need(c, v, "value", what);
            if (!x || !bl_number(c, x, "a parameter's value", &value)) return false;
            if ((x = bl_get(c, v, "min", NULL)) && !bl_number(c, x, "min", &min)) return false;
            if ((x = bl_get(c, v, "max", NULL)) && !bl_number(c, x, "max", &max)) return false;
            if ((x = bl_get(c, v, "unit", NULL)) && !(unit = bl_scalar(x)))
                return bl_fail_at(c, x->start_mark, "unit must be a word such as m or kg");
            if ((x = bl_get(c, v, "description", NULL)) && !(desc = bl_scalar(x)))
                return bl_fail_at(c, x->start_mark, "description must be one line of text");
            if (!(min <= max)) return bl_fail_at(c, v->start_mark, "parameter '%s': min %g exceeds max %g", name, min, max);
            if (value < min || value > max)
                return bl_fail_at(c, bl_get(c, v, "value", NULL)->start_mark,
                                  "parameter '%s': value %g lies outside [min, max] = [%g, %g]", name, value, min, max);
        } else if (!bl_number(c, v, "a parameter (a number, or {value: ..., min: ..., max: ...})", &value)) {
            return false;
        }
        if (!bl_add_param(c, k->start_mark, name, value, min, max, unit, desc)) return false;
    }
    return true;
}

/* ---- bodies ---------------------------------------------------------------- */

static bool new_body(bl_ctx *c, yaml_mark_t at, const char *name, body_body **out)
{
    if (c->f->n_bodies >= BODY_MAX_BODIES)
        return bl_fail_at(c, at, "more than %d bodies (a planar joint counts 3); merge bodies or use fewer",
                          BODY_MAX_BODIES);
    body_body *b = &c->f->bodies[c->f->n_bodies];
    memset(b, 0, sizeof *b);
    b->parent = -1;
    b->quat[0] = 1;
    for (size_t i = 0; i < 3; i++) b->pos[i] = b->com[i] = (body_num){-1, NULL};
    for (size_t i = 0; i < 6; i++) b->inertia[i] = (body_num){-1, NULL};
    b->mass = (body_num){-1, NULL};
    if (!(b->name = strdup(name))) return bl_no_memory(c);
    c->f->n_bodies++;
    *out = b;
    return true;
}

static bool read_joint(bl_ctx *c, const yaml_node_t *n, const yaml_node_t *body, const char *name, int *type,
                       double axis[3], bool *has_axis)
{
    static const char *const words[] = {"fixed", "hinge", "slide", "ball", "free", "planar"};
    const yaml_node_t *t = n;
    if (n->type == YAML_MAPPING_NODE) {
        static const char *const keys[] = {"type", "axis", NULL};
        char what[96];
        snprintf(what, sizeof what, "the joint of body '%s'", name);
        if (!bl_keys(c, n, what, keys) || !(t = bl_need(c, n, "type", what))) return false;
        yaml_node_t *ax = bl_get(c, n, "axis", NULL);
        if (ax) {
            if (bl_get(c, body, "axis", NULL))
                return bl_fail_at(c, ax->start_mark, "body '%s' gives its axis twice (in the body and in the joint); "
                                  "keep one", name);
            if (!bl_numbers(c, ax, "a joint's axis", 3, axis)) return false;
            *has_axis = true;
        }
    }
    const char *s = bl_scalar(t);
    for (int i = 0; s && i < 6; i++)
        if (strcmp(s, words[i]) == 0) {
            *type = i;
            return true;
        }
    return bl_fail_at(c, t->start_mark, "unknown joint '%s' of body '%s'; use fixed, hinge, slide, ball, free or planar",
                      s ? s : "(not a word)", name);
}

static bool read_body(bl_ctx *c, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "parent", "joint", "pos", "quat", "axis", "mass", "com", "inertia", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "a body")) return false;
    yaml_node_t *x = bl_need(c, n, "name", "a body");
    const char *name;
    if (!x || !bl_name(c, x, "a body's name", &name)) return false;
    char what[96];
    snprintf(what, sizeof what, "body '%s'", name);
    if (!bl_keys(c, n, what, keys)) return false;
    if (bl_body_index(c->f, name) >= 0)
        return bl_fail_at(c, x->start_mark, "two bodies are called '%s'; rename one", name);

    int parent = -1;
    yaml_node_t *pk = NULL, *pv = bl_get(c, n, "parent", &pk);
    if (!pv) return bl_fail_at(c, n->start_mark, "body '%s' has no parent; add 'parent: world' or an earlier body", name);
    const char *pn = bl_scalar(pv);
    if (!pn) return bl_fail_at(c, pv->start_mark, "the parent of body '%s' must be a body's name or world", name);
    if (strcmp(pn, "world") != 0) {
        parent = bl_body_index(c->f, pn);
        if (parent < 0) {
            /* later in the file, or nowhere */
            yaml_node_t *all = bl_get(c, c->root, "bodies", NULL);
            for (size_t i = 0; all && i < bl_len(all); i++) {
                const char *o = bl_scalar(bl_get(c, bl_item(c, all, i), "name", NULL));
                if (o && strcmp(o, pn) == 0)
                    return bl_fail_at(c, pv->start_mark, "the parent '%s' of body '%s' comes later in bodies; list "
                                      "parents before their children", pn, name);
            }
            return bl_fail_at(c, pv->start_mark, "body '%s' has parent '%s', which is no body; use world or the name "
                              "of an earlier body", name, pn);
        }
    }

    int type = 1;
    double axis[3] = {0, 0, 0};
    bool has_axis = false;
    yaml_node_t *jv = bl_get(c, n, "joint", NULL);
    if (!jv) return bl_fail_at(c, n->start_mark, "body '%s' has no joint; add joint: fixed, hinge, slide, ball, free or planar", name);
    if (!read_joint(c, jv, n, name, &type, axis, &has_axis)) return false;
    if ((x = bl_get(c, n, "axis", NULL))) {
        if (!bl_numbers(c, x, "a joint's axis", 3, axis)) return false;
        has_axis = true;
    }
    const bool one_dof = type == 1 || type == 2;
    if (has_axis && !one_dof && type != 5)
        return bl_fail_at(c, (x ? x : jv)->start_mark, "body '%s': only hinge, slide and planar joints take an axis; "
                          "remove it", name);
    if (one_dof && !has_axis)
        return bl_fail_at(c, jv->start_mark, "body '%s': a %s needs an axis; add axis: [x, y, z] (e.g. [0, 1, 0])",
                          name, type == 1 ? "hinge" : "slide");
    if (has_axis && !(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2] > 0))
        return bl_fail_at(c, (x ? x : jv)->start_mark, "body '%s': the axis is zero; give a direction", name);
    double quat[4] = {1, 0, 0, 0};
    if ((x = bl_get(c, n, "quat", NULL))) {
        if (!bl_numbers(c, x, "quat", 4, quat)) return false;
        if (!(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3] > 0))
            return bl_fail_at(c, x->start_mark, "body '%s': quat is zero; give a rotation (w, x, y, z), e.g. [1, 0, 0, 0]",
                              name);
    }

    char pname[160];
    body_body *b = NULL;
    yaml_mark_t at = bl_get(c, n, "name", NULL)->start_mark;
    body_pos bpos = bl_pos(at);
    (void)bpos;
    if (type == 5) {
        /* planar: slide x and slide z (massless), then the hinge itself */
        char sub[64];
        snprintf(sub, sizeof sub, "%s.x", name);
        if (!new_body(c, at, sub, &b)) return false;
        b->parent = parent;
        b->joint = SM_RIGID_SLIDE;
        b->axis[0] = 1;
        if ((x = bl_get(c, n, "pos", NULL))) {
            snprintf(pname, sizeof pname, "bodies.%s.pos", name);
            if (!bl_vec(c, x, pname, -1e3, 1e3, "m", "body origin in the parent's frame", b->pos)) return false;
        }
        const int bx = (int)c->f->n_bodies - 1;
        snprintf(sub, sizeof sub, "%s.z", name);
        if (!new_body(c, at, sub, &b)) return false;
        b->parent = bx;
        b->joint = SM_RIGID_SLIDE;
        b->axis[2] = 1;
        parent = bx + 1;
        if (!new_body(c, at, name, &b)) return false;
        b->parent = parent;
        b->joint = SM_RIGID_HINGE;
        if (has_axis) memcpy(b->axis, axis, sizeof axis);
        else b->axis[1] = 1;
    } else {
        if (!new_body(c, at, name, &b)) return false;
        b->parent = parent;
        static const sm_rigid_joint map[] = {SM_RIGID_FIXED, SM_RIGID_HINGE, SM_RIGID_SLIDE, SM_RIGID_BALL,
                                             SM_RIGID_FREE};
        b->joint = map[type];
        memcpy(b->axis, axis, sizeof axis);
        if ((x = bl_get(c, n, "pos", NULL))) {
            snprintf(pname, sizeof pname, "bodies.%s.pos", name);
            if (!bl_vec(c, x, pname, -1e3, 1e3, "m", "body origin in the parent's frame", b->pos)) return false;
        }
    }
    memcpy(b->quat, quat, sizeof quat);
    if ((x = bl_get(c, n, "mass", NULL))) {
        snprintf(pname, sizeof pname, "bodies.%s.mass", name);
        if (!bl_num(c, x, pname, 0, 1e6, "kg", "body mass", &b->mass)) return false;
    }
    if ((x = bl_get(c, n, "com", NULL))) {
        snprintf(pname, sizeof pname, "bodies.%s.com", name);
        if (!bl_vec(c, x, pname, -1e3, 1e3, "m", "centre of mass in the body's frame", b->com)) return false;
    }
    if ((x = bl_get(c, n, "inertia", NULL))) {
        if (!bl_want(c, x, YAML_SEQUENCE_NODE, "inertia")) return false;
        const size_t k = bl_len(x);
        if (k != 3 && k != 6)
            return bl_fail_at(c, x->start_mark, "body '%s': inertia needs 3 entries [ixx, iyy, izz] or 6 [ixx, iyy, "
                              "izz, ixy, ixz, iyz], not %zu", name, k);
        static const char *const comp[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
        for (size_t i = 0; i < k; i++) {
            snprintf(pname, sizeof pname, "bodies.%s.inertia.%s", name, comp[i]);
            if (!bl_num(c, bl_item(c, x, i), pname, i < 3 ? 0 : -1e6, 1e6, "kg m^2",
                        i < 3 ? "moment of inertia about the centre of mass" : "product of inertia",
                        &b->inertia[i]))
                return false;
        }
    }
    return true;
}

/* Coordinates in tree order, named as docs/body-walkers.md "Coordinates". */
static bool name_coords(bl_ctx *c, yaml_mark_t at)
{
    body_file *f = c->f;
    static const char *const qb[4] = {"qw", "qx", "qy", "qz"}, *const wb[3] = {"wx", "wy", "wz"},
                             *const pb[3] = {"x", "y", "z"}, *const vb[3] = {"vx", "vy", "vz"};
    for (size_t i = 0; i < f->n_bodies; i++) {
        const body_body *b = &f->bodies[i];
        const char *qn[7], *vn[6];
        char qs[7][80], vs[6][80];
        size_t nq = 0, nv = 0;
        switch (b->joint) {
        case SM_RIGID_HINGE:
        case SM_RIGID_SLIDE:
            snprintf(qs[nq++], 80, "%s", b->name);
            snprintf(vs[nv++], 80, "%s_dot", b->name);
            break;
        case SM_RIGID_FREE:
            for (size_t k = 0; k < 3; k++) {
                snprintf(qs[nq++], 80, "%s.%s", b->name, pb[k]);
                snprintf(vs[nv++], 80, "%s.%s", b->name, vb[k]);
            }
            /* fall through */
        case SM_RIGID_BALL:
            for (size_t k = 0; k < 4; k++) snprintf(qs[nq++], 80, "%s.%s", b->name, qb[k]);
            for (size_t k = 0; k < 3; k++) snprintf(vs[nv++], 80, "%s.%s", b->name, wb[k]);
            break;
        default: break;
        }
        if (f->nq + nq > BODY_MAX_COORDS || f->nv + nv > BODY_MAX_COORDS)
            return bl_fail_at(c, at, "more than %d coordinates; use fewer joints (a ball has 4, a free joint 7)",
                              BODY_MAX_COORDS);
        if (f->nq + nq + f->nv + nv > SM_MAX_STATE)
            return bl_fail_at(c, at, "the state (coordinates and rates) would have more than %d entries; use fewer "
                              "joints (a ball adds 4 + 3, a free joint 7 + 6)", SM_MAX_STATE);
        for (size_t k = 0; k < nq; k++) qn[k] = qs[k];
        for (size_t k = 0; k < nv; k++) vn[k] = vs[k];
        for (size_t k = 0; k < nq; k++) {
            c->q_body[f->nq] = (int)i;
            if (!(f->q_names[f->nq++] = strdup(qn[k]))) return bl_no_memory(c);
        }
        for (size_t k = 0; k < nv; k++) {
            c->v_body[f->nv] = (int)i;
            if (!(f->v_names[f->nv++] = strdup(vn[k]))) return bl_no_memory(c);
        }
    }
    return true;
}

/* ---- sites, contacts, forces --------------------------------------------- */

static bool read_site(bl_ctx *c, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "body", "pos", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "a site")) return false;
    yaml_node_t *x = bl_need(c, n, "name", "a site");
    const char *name;
    if (!x || !bl_name(c, x, "a site's name", &name)) return false;
    char what[96];
    snprintf(what, sizeof what, "site '%s'", name);
    if (!bl_keys(c, n, what, keys)) return false;
    if (bl_site_index(c->f, name) >= 0) return bl_fail_at(c, x->start_mark, "two sites are called '%s'; rename one", name);
    if (c->f->n_sites >= BODY_MAX_SITES)
        return bl_fail_at(c, x->start_mark, "more than %d sites; use fewer", BODY_MAX_SITES);
    body_site *s = &c->f->sites[c->f->n_sites];
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < 3; i++) s->pos[i] = (body_num){-1, NULL};
    if (!(s->name = strdup(name))) return bl_no_memory(c);
    c->f->n_sites++;
    if (!(x = bl_need(c, n, "body", what))) return false;
    const char *bn = bl_scalar(x);
    s->body = bn ? bl_body_index(c->f, bn) : -1;
    if (s->body < 0) {
        char list[320];
        bl_list_names(list, sizeof list, (const char *const *)&c->f->bodies[0].name, c->f->n_bodies, sizeof(body_body));
        return bl_fail_at(c, x->start_mark, "site '%s' is on body '%s', which is no body; use one of: %s", name,
                          bn ? bn : "?", list);
    }
    if ((x = bl_get(c, n, "pos", NULL))) {
        char pname[160];
        snprintf(pname, sizeof pname, "sites.%s.pos", name);
        if (!bl_vec(c, x, pname, -1e3, 1e3, "m", "site position in its body's frame", s->pos)) return false;
    }
    return true;
}

/* A pin's rows: a non-empty list of x, y, z, each once; a planar model
 * has no y row, so a list of y alone holds nothing there. */
static bool read_rows(bl_ctx *c, const yaml_node_t *x, const char *name, unsigned *rows)
{
    if (!bl_want(c, x, YAML_SEQUENCE_NODE, "rows (a list of x, y, z)")) return false;
    if (bl_len(x) == 0)
        return bl_fail_at(c, x->start_mark, "pin '%s' has no rows; list some of x, y, z or leave rows out (all)", name);
    *rows = 0;
    for (size_t i = 0; i < bl_len(x); i++) {
        yaml_node_t *it = bl_item(c, x, i);
        const char *w = bl_scalar(it);
        unsigned bit = 0;
        if (w && strcmp(w, "x") == 0) bit = SM_ROW_X;
        if (w && strcmp(w, "y") == 0) bit = SM_ROW_Y;
        if (w && strcmp(w, "z") == 0) bit = SM_ROW_Z;
        if (!bit)
            return bl_fail_at(c, it->start_mark, "pin '%s': row '%s' is none of x, y, z; use those", name, w ? w : "?");
        if (*rows & bit) return bl_fail_at(c, it->start_mark, "pin '%s' lists row '%s' twice; keep one", name, w);
        *rows |= bit;
    }
    if (*rows == SM_ROW_Y && bl_is_planar(c->f))
        return bl_fail_at(c, x->start_mark, "pin '%s' holds only y, which a planar model does not have; add x or z",
                          name);
    return true;
}

static bool read_contact(bl_ctx *c, const yaml_node_t *n)
{
    if (!bl_want(c, n, YAML_MAPPING_NODE, "a contact")) return false;
    yaml_node_t *nk = NULL, *x = bl_get(c, n, "name", &nk);
    const char *name;
    if (!x) return bl_fail_at(c, n->start_mark, "a contact has no 'name'; add it");
    if (!bl_name(c, x, "a contact's name", &name)) return false;
    char what[96];
    snprintf(what, sizeof what, "contact '%s'", name);
    if (bl_contact_index(c->f, name) >= 0)
        return bl_fail_at(c, x->start_mark, "two contacts are called '%s'; rename one", name);
    if (c->f->n_contacts >= BODY_MAX_CONTACTS)
        return bl_fail_at(c, x->start_mark, "more than %d contacts; use fewer", BODY_MAX_CONTACTS);
    yaml_node_t *t = bl_need(c, n, "type", what);
    if (!t) return false;
    const char *ts = bl_scalar(t);
    static const char *const types[] = {"pin", "slide", "roll", "lock"};
    static const char *const keys[4][6] = {{"name", "type", "site", "mu", "rows", NULL},
                                           {"name", "type", "site", "mu", NULL},
                                           {"name", "type", "site", "radius", "axis", NULL},
                                           {"name", "type", "coord", "at", NULL}};
    int kind = -1;
    for (int i = 0; ts && i < 4; i++)
        if (strcmp(ts, types[i]) == 0) kind = i;
    if (kind < 0)
        return bl_fail_at(c, t->start_mark, "contact '%s' has type '%s'; use pin, slide, roll or lock", name,
                          ts ? ts : "?");
    char what2[128];
    snprintf(what2, sizeof what2, "%s contact '%s'", types[kind], name);
    if (!bl_keys(c, n, what2, keys[kind])) return false;
    body_contact *k = &c->f->contacts[c->f->n_contacts];
    memset(k, 0, sizeof *k);
    k->radius = k->mu = k->at = (body_num){-1, NULL};
    k->site = k->body = -1;
    if (!(k->name = strdup(name))) return bl_no_memory(c);
    c->f->n_contacts++;
    k->at_pos = bl_pos(nk->start_mark);
    static const sm_contact_kind kinds[] = {SM_CONTACT_PIN, SM_CONTACT_SLIDE, SM_CONTACT_ROLL, SM_CONTACT_LOCK};
    k->kind = kinds[kind];
    char pname[160];
    if (kind < 3) {
        if (!(x = bl_need(c, n, "site", what)) || !bl_site_ref(c, x, what, &k->site)) return false;
    } else {
        if (!(x = bl_need(c, n, "coord", what)) || !bl_one_dof(c, x, "a lock", &k->body)) return false;
        if ((x = bl_get(c, n, "at", NULL)) && bl_scalar(x) && strcmp(bl_scalar(x), "here") == 0) {
            /* a control constraint that stops the joint where it is: no
             * value for the section's projection to move it to */
            k->hold = true;
        } else if (x) {
            snprintf(pname, sizeof pname, "contacts.%s.at", name);
            if (!bl_num(c, x, pname, -1e3, 1e3, "", "the coordinate the lock holds", &k->at)) return false;
        }
    }
    if (kind == 0 && (x = bl_get(c, n, "rows", NULL)) && !read_rows(c, x, name, &k->rows)) return false;
    if (kind == 1 && !bl_get(c, n, "mu", NULL))
        return bl_fail_at(c, n->start_mark, "slide contact '%s' has no 'mu' (kinetic friction); add it", name);
    if ((x = bl_get(c, n, "mu", NULL))) {
        snprintf(pname, sizeof pname, "contacts.%s.mu", name);
        if (!bl_num(c, x, pname, 0, 1e3, "", kind == 1 ? "kinetic friction coefficient" : "static friction coefficient",
                    &k->mu))
            return false;
        k->has_mu = true;
    }
    if (kind == 2) {
        if (!(x = bl_need(c, n, "radius", what))) return false;
        snprintf(pname, sizeof pname, "contacts.%s.radius", name);
        if (!bl_num(c, x, pname, 1e-9, 1e3, "m", "disk radius", &k->radius)) return false;
        k->axis[1] = 1;
        if ((x = bl_get(c, n, "axis", NULL)) && !bl_numbers(c, x, "a disk's axis", 3, k->axis)) return false;
        if (!(k->axis[0] * k->axis[0] + k->axis[1] * k->axis[1] + k->axis[2] * k->axis[2] > 0))
            return bl_fail_at(c, x->start_mark, "contact '%s': the disk's axis is zero; give a direction", name);
    }
    return true;
}

static bool read_force(bl_ctx *c, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "on", "stiffness", "damping", "rest", "torque", "phases", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "a force")) return false;
    yaml_node_t *x = bl_need(c, n, "name", "a force");
    const char *name;
    if (!x || !bl_name(c, x, "a force's name", &name)) return false;
    char what[96];
    snprintf(what, sizeof what, "force '%s'", name);
    if (!bl_keys(c, n, what, keys)) return false;
    for (size_t i = 0; i < c->f->n_forces; i++)
        if (strcmp(c->f->forces[i].name, name) == 0)
            return bl_fail_at(c, x->start_mark, "two forces are called '%s'; rename one", name);
    if (c->f->n_forces >= BODY_MAX_FORCES)
        return bl_fail_at(c, x->start_mark, "more than %d forces; use fewer", BODY_MAX_FORCES);
    body_force *g = &c->f->forces[c->f->n_forces];
    memset(g, 0, sizeof *g);
    g->stiffness = g->damping = g->rest = g->torque = (body_num){-1, NULL};
    if (!(g->name = strdup(name))) return bl_no_memory(c);
    c->f->n_forces++;
    yaml_node_t *on = bl_need(c, n, "on", what);
    if (!on || !bl_want(c, on, YAML_MAPPING_NODE, "on (coordinate: coefficient, ...)")) return false;
    if (bl_len(on) == 0 || bl_len(on) > 8)
        return bl_fail_at(c, on->start_mark, "force '%s' acts on %zu coordinates; give 1 to 8", name, bl_len(on));
    for (yaml_node_pair_t *p = on->data.mapping.pairs.start; p < on->data.mapping.pairs.top; p++) {
        yaml_node_t *k = bl_node(c, p->key);
        int b;
        if (!bl_one_dof(c, k, "a force term", &b)) return false;
        for (size_t i = 0; i < g->n; i++)
            if (g->body[i] == b) return bl_fail_at(c, k->start_mark, "force '%s' names '%s' twice; keep one", name, bl_scalar(k));
        g->body[g->n] = b;
        if (!bl_number(c, bl_node(c, p->value), "a force's coefficient", &g->coef[g->n])) return false;
        g->n++;
    }
    struct {
        const char *key, *unit, *desc;
        double min;
        body_num *out;
    } f[] = {{"stiffness", "N m/rad", "spring stiffness", 0, &g->stiffness},
             {"damping", "N m s/rad", "damper", 0, &g->damping},
             {"rest", "rad", "where the spring is relaxed", -1e3, &g->rest},
             {"torque", "N m", "constant torque", -1e6, &g->torque}};
    for (size_t i = 0; i < 4; i++) {
        if (!(x = bl_get(c, n, f[i].key, NULL))) continue;
        char pname[160];
        snprintf(pname, sizeof pname, "forces.%s.%s", name, f[i].key);
        if (!bl_num(c, x, pname, f[i].min, 1e6, f[i].unit, f[i].desc, f[i].out)) return false;
    }
    return true;
}

/* ---- the top level --------------------------------------------------------- */

static bool each(bl_ctx *c, const char *key, bool need, bool (*fn)(bl_ctx *, const yaml_node_t *))
{
    yaml_node_t *n = bl_get(c, c->root, key, NULL);
    if (!n) return need ? bl_fail_at(c, c->root->start_mark, "the file has no '%s:'; add it", key) : true;
    if (!bl_want(c, n, YAML_SEQUENCE_NODE, key)) return false;
    for (size_t i = 0; i < bl_len(n); i++)
        if (!fn(c, bl_item(c, n, i))) return false;
    return true;
}

static bool text_field(bl_ctx *c, const char *key, char **out)
{
    yaml_node_t *n = bl_get(c, c->root, key, NULL);
    if (!n) return true;
    const char *s = bl_scalar(n);
    if (!s) return bl_fail_at(c, n->start_mark, "%s must be one line of text", key);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (*p == ',' && strcmp(key, "name") == 0) || (*p == '"' && strcmp(key, "name") == 0))
            return bl_fail_at(c, n->start_mark, "%s holds a line break, a control character%s; write it on one line",
                              key, strcmp(key, "name") == 0 ? ", a comma or a double quote" : "");
    if (!(*out = strdup(s))) return bl_no_memory(c);
    return true;
}

static bool read_top(bl_ctx *c)
{
    static const char *const keys[] = {"name", "title", "reference", "gravity", "slope", "parameters", "bodies",
                                       "sites", "contacts", "forces", "phases", "relabel", "section", "guess",
                                       "time_limit", "measures", "controller", "integrate", "disturbances", NULL};
    body_file *f = c->f;
    if (!bl_want(c, c->root, YAML_MAPPING_NODE, "the file's top level")) return false;
    if (!bl_keys(c, c->root, "the top level", keys)) return false;
    if (!text_field(c, "name", &f->name) || !text_field(c, "title", &f->title) ||
        !text_field(c, "reference", &f->reference))
        return false;
    if (!f->name) {
        const char *s = strrchr(c->path, '/');
        s = s ? s + 1 : c->path;
        if (!(f->name = strdup(s))) return bl_no_memory(c);
        char *dot = strrchr(f->name, '.');
        if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0)) *dot = '\0';
    }
    if (!f->title && !(f->title = strdup(f->name))) return bl_no_memory(c);
    if (!f->reference && !(f->reference = strdup(""))) return bl_no_memory(c);

    yaml_node_t *x;
    if ((x = bl_get(c, c->root, "parameters", NULL)) && !read_parameters(c, x)) return false;
    if (!(x = bl_get(c, c->root, "gravity", NULL)))
        return bl_fail_at(c, c->root->start_mark, "the file has no 'gravity:'; add it (m/s^2, e.g. 9.81)");
    if (!bl_num(c, x, "gravity", 0, 1e3, "m/s^2", "gravitational acceleration", &f->gravity)) return false;
    if (!(x = bl_get(c, c->root, "slope", NULL)))
        return bl_fail_at(c, c->root->start_mark, "the file has no 'slope:'; add it (rad, downhill, e.g. 0.01)");
    if (!bl_num(c, x, "slope", -1.5, 1.5, "rad", "ground slope, downhill in the walking direction", &f->slope))
        return false;

    yaml_node_t *bk = NULL, *bodies = bl_get(c, c->root, "bodies", &bk);
    if (!bodies) return bl_fail_at(c, c->root->start_mark, "the file has no 'bodies:'; add it");
    if (!each(c, "bodies", true, read_body)) return false;
    if (f->n_bodies == 0) return bl_fail_at(c, bodies->start_mark, "bodies is empty; describe the walker's bodies");
    if (!name_coords(c, bk->start_mark)) return false;
    if (!each(c, "sites", false, read_site) || !each(c, "contacts", false, read_contact) ||
        !each(c, "forces", false, read_force))
        return false;
    if (!bl_read_phases(c) || !bl_read_force_phases(c) || !bl_read_relabel(c) || !bl_read_section(c) || !bl_read_guess(c)) return false;
    if (!bl_read_controller(c)) return false;
    if (!bl_read_disturbances(c)) return false;

    f->time_limit = 10;
    if ((x = bl_get(c, c->root, "time_limit", NULL))) {
        if (!bl_number(c, x, "time_limit", &f->time_limit)) return false;
        if (!(f->time_limit > 0))
            return bl_fail_at(c, x->start_mark, "time_limit must be a positive number of seconds, not %g", f->time_limit);
    }
    f->clearance_contact = f->hip_site = -1;
    if ((x = bl_get(c, c->root, "measures", NULL))) {
        static const char *const mk[] = {"clearance", "hip", NULL};
        if (!bl_want(c, x, YAML_MAPPING_NODE, "measures") || !bl_keys(c, x, "measures", mk)) return false;
        yaml_node_t *y;
        if ((y = bl_get(c, x, "clearance", NULL)) && !bl_contact_ref(c, y, "measures: clearance", &f->clearance_contact))
            return false;
        if ((y = bl_get(c, x, "hip", NULL)) && !bl_site_ref(c, y, "measures: hip", &f->hip_site)) return false;
    }
    if ((x = bl_get(c, c->root, "integrate", NULL))) {
        const char *s = x->type == YAML_SCALAR_NODE ? (const char *)x->data.scalar.value : "";
        f->integrate_pos = bl_pos(x->start_mark);
        if (strcmp(s, "reduced") == 0) f->reduced = true;
        else if (strcmp(s, "full") != 0)
            return bl_fail_at(c, x->start_mark, "integrate must be 'full' or 'reduced', not '%s'", s);
    }
    return bl_check(c);
}

/* Aliases (which could make a loop of nodes) and a second document are
 * refused: a file holds one walker, written out. */
static bool scan_events(bl_ctx *c)
{
    yaml_parser_t parser;
    FILE *fp = fopen(c->path, "rb");
    if (!fp || !yaml_parser_initialize(&parser)) {
        if (fp) fclose(fp);
        return bl_no_memory(c);
    }
    yaml_parser_set_input_file(&parser, fp);
    int docs = 0;
    bool ok = true;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            yaml_mark_t m = parser.problem_mark;
            ok = bl_fail_at(c, m, "not valid YAML: %s%s%s; fix the syntax", parser.problem ? parser.problem : "error",
                            parser.context ? " " : "", parser.context ? parser.context : "");
            break;
        }
        const yaml_event_type_t t = ev.type;
        if (t == YAML_ALIAS_EVENT)
            ok = bl_fail_at(c, ev.start_mark, "an alias (*name); write the value out (aliases are not read)");
        else if (t == YAML_DOCUMENT_START_EVENT && ++docs == 2)
            ok = bl_fail_at(c, ev.start_mark, "a second YAML document; a model file describes one walker: remove it "
                            "(from this '---' on) or put it in a file of its own");
        yaml_event_delete(&ev);
        if (!ok || t == YAML_STREAM_END_EVENT) break;
    }
    yaml_parser_delete(&parser);
    fclose(fp);
    return ok;
}

void body_file_free(body_file *f)
{
    if (!f) return;
    free(f->name);
    free(f->title);
    free(f->reference);
    free(f->path);
    for (size_t i = 0; i < f->n_params; i++) {
        free((char *)f->params[i].name);
        free((char *)f->params[i].unit);
        free((char *)f->params[i].description);
    }
    body_expr_free_list(f->exprs);
    for (size_t i = 0; i < f->n_bodies; i++) free(f->bodies[i].name);
    for (size_t i = 0; i < f->n_sites; i++) free(f->sites[i].name);
    for (size_t i = 0; i < f->n_contacts; i++) free(f->contacts[i].name);
    for (size_t i = 0; i < f->n_forces; i++) free(f->forces[i].name);
    for (size_t i = 0; i < f->n_phases; i++) {
        free(f->phases[i].name);
        for (size_t k = 0; k < f->phases[i].n_events; k++) free(f->phases[i].events[k].name);
    }
    for (size_t i = 0; i < f->ctrl.n_act; i++) free(f->ctrl.act_name[i]);
    for (size_t i = 0; i < f->ctrl.n_out; i++) free(f->ctrl.out_name[i]);
    for (size_t i = 0; i < f->ctrl.n_int; i++) free(f->ctrl.int_name[i]);
    for (size_t i = 0; i < f->nq; i++) free(f->q_names[i]);
    for (size_t i = 0; i < f->nv; i++) free(f->v_names[i]);
    free(f);
}

sm_status body_file_load(const char *path, body_file **out, char *why, size_t why_len)
{
    *out = NULL;
    if (why_len > 0) why[0] = '\0';
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(why, why_len, "%s: is a directory, not a model file; give the path of a .yaml file", path);
        return SM_IO_ERROR;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, why_len, "%s: cannot open the model file: %s", path, strerror(errno));
        return SM_IO_ERROR;
    }
    fclose(fp);
    bl_ctx *c = calloc(1, sizeof *c);
    body_file *f = calloc(1, sizeof *f);
    if (!c || !f) {
        free(c);
        free(f);
        snprintf(why, why_len, "out of memory");
        return SM_NO_MEMORY;
    }
    c->path = path;
    c->why = why;
    c->why_len = why_len;
    c->f = f;
    bool ok = scan_events(c);
    yaml_document_t doc;
    bool have_doc = false;
    if (ok) {
        yaml_parser_t parser;
        fp = fopen(path, "rb");
        if (fp && yaml_parser_initialize(&parser)) {
            yaml_parser_set_input_file(&parser, fp);
            if (yaml_parser_load(&parser, &doc)) have_doc = true;
            else ok = bl_fail_at(c, parser.problem_mark, "not valid YAML: %s; fix the syntax",
                                 parser.problem ? parser.problem : "error");
            yaml_parser_delete(&parser);
        } else {
            ok = bl_no_memory(c);
        }
        if (fp) fclose(fp);
    }
    if (ok) {
        c->doc = &doc;
        c->root = yaml_document_get_root_node(&doc);
        if (!c->root) {
            snprintf(why, why_len, "%s: the file is empty; describe a walker (see models/compass.yaml)", path);
            c->st = SM_BAD_MODEL_FILE;
            ok = false;
        } else {
            ok = read_top(c) && (f->path = strdup(path)) != NULL;
            if (ok == false && c->st == SM_OK) bl_no_memory(c);
        }
    }
    if (have_doc) yaml_document_delete(&doc);
    sm_status st = c->st;
    free(c);
    if (!ok) {
        body_file_free(f);
        for (unsigned char *p = (unsigned char *)why; *p; p++)
            if (*p < 0x20 || *p == 0x7f) *p = ' ';
        return st == SM_OK ? SM_BAD_MODEL_FILE : st;
    }
    *out = f;
    return SM_OK;
}
