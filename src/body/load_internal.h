/* Shared by the body-file loader's sources.  load.c (the driver) and
 * load_phase.c read the file's sections with load_yaml.c and load_names.c;
 * load.c calls load_phase.c and load_check.c, never the other way. */
#ifndef STRIDEMAP_BODY_LOAD_INTERNAL_H
#define STRIDEMAP_BODY_LOAD_INTERNAL_H

#include <stdbool.h>
#include <yaml.h>

#include "body_def.h"

typedef struct {
    const char *path;
    yaml_document_t *doc;
    yaml_node_t *root;
    body_file *f;
    char *why;
    size_t why_len;
    sm_status st;
    int q_body[BODY_MAX_COORDS], v_body[BODY_MAX_COORDS]; /* the body each coordinate belongs to */
} bl_ctx;

/* load_yaml.c: the document's nodes, messages at path:line:col, parameters */
bool bl_fail_at(bl_ctx *c, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool bl_no_memory(bl_ctx *c);
body_pos bl_pos(yaml_mark_t m);

yaml_node_t *bl_node(bl_ctx *c, int id);
const char *bl_scalar(const yaml_node_t *n);
size_t bl_len(const yaml_node_t *n);
yaml_node_t *bl_item(bl_ctx *c, const yaml_node_t *seq, size_t i);
yaml_node_t *bl_get(bl_ctx *c, const yaml_node_t *map, const char *key, yaml_node_t **key_node);
yaml_node_t *bl_need(bl_ctx *c, const yaml_node_t *map, const char *key, const char *what);
bool bl_want(bl_ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *what);
bool bl_keys(bl_ctx *c, const yaml_node_t *map, const char *what, const char *const *allowed);
bool bl_name(bl_ctx *c, const yaml_node_t *n, const char *what, const char **out);
bool bl_bool(bl_ctx *c, const yaml_node_t *n, const char *what, bool *out);
bool bl_number(bl_ctx *c, const yaml_node_t *n, const char *what, double *out);
bool bl_numbers(bl_ctx *c, const yaml_node_t *n, const char *what, size_t count, double *out);
bool bl_num(bl_ctx *c, const yaml_node_t *n, const char *pname, double min, double max, const char *unit,
            const char *desc, body_num *out);
bool bl_vec(bl_ctx *c, const yaml_node_t *n, const char *base, double min, double max, const char *unit,
            const char *desc, body_num out[3]);

int bl_param_index(const body_file *f, const char *name);
bool bl_add_param(bl_ctx *c, yaml_mark_t at, const char *name, double value, double min, double max,
                  const char *unit, const char *desc);

/* load_disturb.c: the file's disturbances: section (after the coordinates) */
bool bl_read_disturbances(bl_ctx *c);

/* load_names.c: names of bodies, sites, contacts, coordinates and rates */
int bl_body_index(const body_file *f, const char *name);
int bl_site_index(const body_file *f, const char *name);
int bl_contact_index(const body_file *f, const char *name);
bool bl_site_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out);
bool bl_contact_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out);
bool bl_coord_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out);
bool bl_rate_ref(bl_ctx *c, const yaml_node_t *n, const char *what, int *out);
bool bl_one_dof(bl_ctx *c, const yaml_node_t *n, const char *what, int *body);
int bl_q_to_v(const bl_ctx *c, int q);
void bl_list_names(char *out, size_t len, const char *const *names, size_t n, size_t stride);

/* load_phase.c */
bool bl_read_phases(bl_ctx *c);
bool bl_read_relabel(bl_ctx *c);
bool bl_read_section(bl_ctx *c);
bool bl_read_guess(bl_ctx *c);
/* phases: [PHASE, ...] of `what` (after the phases): *mask a bit per phase
 * named; refused at its line: no list, an empty one, a name that is no
 * phase, a phase named twice. */
bool bl_phase_mask(bl_ctx *c, const yaml_node_t *x, const char *what, const char *empty_hint, unsigned *mask);
/* the forces' phases: (after the phases) */
bool bl_read_force_phases(bl_ctx *c);
/* load_control.c: the controller: section (after the phases: it adds an
 * event to each) */
bool bl_read_controller(bl_ctx *c);
/* load_check.c: what needs the whole file */
bool bl_check(bl_ctx *c);
bool bl_is_planar(const body_file *f);
size_t bl_contact_rows(const body_file *f, int contact, bool planar);

#endif
