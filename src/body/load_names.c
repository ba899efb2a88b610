/* Body-walker files: names resolved to the parts they name (bodies, sites,
 * contacts, coordinates and rates, 1-DOF joints), with an error at the
 * name's line and column listing the names there are. */
#include <stdio.h>
#include <string.h>

#include "load_internal.h"

int bl_body_index(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_bodies; i++)
        if (strcmp(f->bodies[i].name, name) == 0) return (int)i;
    return -1;
}

int bl_site_index(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_sites; i++)
        if (strcmp(f->sites[i].name, name) == 0) return (int)i;
    return -1;
}

int bl_contact_index(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_contacts; i++)
        if (strcmp(f->contacts[i].name, name) == 0) return (int)i;
    return -1;
}

/* The names there are, for a message: cut short so a message about a long
 * file stays one readable line. */
void bl_list_names(char *out, size_t len, const char *const *names, size_t n, size_t stride)
{
    out[0] = '\0';
    for (size_t i = 0; i < n && strlen(out) < 250; i++) {
        const size_t k = strlen(out);
        snprintf(out + k, len - k, "%s%s", i ? ", " : "", *(const char *const *)((const char *)names + i * stride));
    }
    if (strlen(out) >= 250) snprintf(out + strlen(out), len - strlen(out), ", ...");
    if (!out[0]) snprintf(out, len, "(none)");
}

bool bl_site_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out)
{
    const char *s = bl_scalar(n);
    if (s && (*out = bl_site_index(c->f, s)) >= 0) return true;
    char list[320];
    bl_list_names(list, sizeof list, (const char *const *)&c->f->sites[0].name, c->f->n_sites, sizeof(body_site));
    return bl_fail_at(c, n->start_mark, "%s names no site ('%s'); define it under sites: or use one of: %s", what,
                      s ? s : "?", list);
}

bool bl_contact_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out)
{
    const char *s = bl_scalar(n);
    if (s && (*out = bl_contact_index(c->f, s)) >= 0) return true;
    char list[320];
    bl_list_names(list, sizeof list, (const char *const *)&c->f->contacts[0].name, c->f->n_contacts,
               sizeof(body_contact));
    return bl_fail_at(c, n->start_mark, "%s names no contact ('%s'); define it under contacts: or use one of: %s", what,
                      s ? s : "?", list);
}

/* A coordinate's q index (-1: unknown name, with the error). */
bool bl_coord_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out)
{
    const char *s = bl_scalar(n);
    for (size_t i = 0; s && i < c->f->nq; i++)
        if (strcmp(c->f->q_names[i], s) == 0) {
            *out = (int)i;
            return true;
        }
    char list[320];
    bl_list_names(list, sizeof list, (const char *const *)c->f->q_names, c->f->nq, sizeof(char *));
    return bl_fail_at(c, n->start_mark, "%s names no coordinate ('%s'); the coordinates are: %s", what, s ? s : "?",
                      list);
}

/* The v index moving q coordinate i (-1 for a quaternion's components). */
int bl_q_to_v(const bl_ctx *c, int i)
{
    const int b = c->q_body[i];
    size_t q0 = 0, v0 = 0;
    while (c->q_body[q0] != b) q0++;
    while (c->v_body[v0] != b) v0++;
    const size_t k = (size_t)i - q0;
    switch (c->f->bodies[b].joint) {
    case SM_RIGID_HINGE:
    case SM_RIGID_SLIDE: return (int)v0;
    case SM_RIGID_FREE: return k < 3 ? (int)(v0 + k) : -1;
    default: return -1;
    }
}

/* A rate: a rate's name (leg_a_dot, hip.wx) or a coordinate's (leg_a). */
bool bl_rate_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out)
{
    const char *s = bl_scalar(n);
    for (size_t i = 0; s && i < c->f->nv; i++)
        if (strcmp(c->f->v_names[i], s) == 0) {
            *out = (int)i;
            return true;
        }
    int q;
    if (!bl_coord_ref(c, n, what, &q)) return false;
    if ((*out = bl_q_to_v(c, q)) >= 0) return true;
    return bl_fail_at(c, n->start_mark, "%s: '%s' is a quaternion component, which has no rate of its own; name an "
                      "angular rate (.wx, .wy, .wz)", what, s);
}

/* The body whose 1-DOF joint the name is (a lock, a force term). */
bool bl_one_dof(bl_ctx *c, const yaml_node_t *n, const char *what, int *body)
{
    const char *s = bl_scalar(n);
    const int b = s ? bl_body_index(c->f, s) : -1;
    if (b >= 0 && (c->f->bodies[b].joint == SM_RIGID_HINGE || c->f->bodies[b].joint == SM_RIGID_SLIDE)) {
        *body = b;
        return true;
    }
    if (b >= 0)
        return bl_fail_at(c, n->start_mark, "%s: body '%s' has a %s joint, not a 1-DOF one (hinge or slide); name a "
                          "hinge or slide coordinate", what, s,
                          c->f->bodies[b].joint == SM_RIGID_BALL ? "ball" : c->f->bodies[b].joint == SM_RIGID_FREE ? "free" : "fixed");
    int q;
    if (!bl_coord_ref(c, n, what, &q)) return false;
    return bl_fail_at(c, n->start_mark, "%s: '%s' is a coordinate of the %s joint of body '%s', not a 1-DOF (hinge or "
                      "slide) coordinate; name a hinge or slide coordinate", what, s,
                      c->f->bodies[c->q_body[q]].joint == SM_RIGID_BALL ? "ball" : "free",
                      c->f->bodies[c->q_body[q]].name);
}
