/* Body-walker files: reading and checking the libyaml document's nodes (types,
 * keys, names, booleans, numbers), the messages at path:line:col that every
 * check of the loader gives, and numeric fields as parameters (a literal
 * number becomes a dotted parameter; a name or an expression refers to the
 * parameters declared before it). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "expr.h"
#include "load_internal.h"

/* ---- messages -------------------------------------------------------------- */

bool bl_fail_at(bl_ctx *c, yaml_mark_t m, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->st == SM_OK) {
        snprintf(c->why, c->why_len, "%s:%d:%d: %s", c->path, (int)m.line + 1, (int)m.column + 1, msg);
        c->st = SM_BAD_MODEL_FILE;
    }
    return false;
}

bool bl_no_memory(bl_ctx *c)
{
    if (c->st == SM_OK) {
        snprintf(c->why, c->why_len, "out of memory");
        c->st = SM_NO_MEMORY;
    }
    return false;
}

body_pos bl_pos(yaml_mark_t m) { return (body_pos){(int)m.line + 1, (int)m.column + 1}; }

/* ---- the document ---------------------------------------------------------- */

yaml_node_t *bl_node(bl_ctx *c, int id) { return id ? yaml_document_get_node(c->doc, id) : NULL; }

const char *bl_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

size_t bl_len(const yaml_node_t *n)
{
    if (n->type == YAML_SEQUENCE_NODE) return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (n->type == YAML_MAPPING_NODE) return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    return 0;
}

yaml_node_t *bl_item(bl_ctx *c, const yaml_node_t *seq, size_t i)
{
    return bl_node(c, seq->data.sequence.items.start[i]);
}

/* The value under key in map (and its key node, for positions); NULL if absent. */
yaml_node_t *bl_get(bl_ctx *c, const yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = bl_node(c, p->key);
        const char *s = bl_scalar(k);
        if (s && strcmp(s, key) == 0) {
            if (key_node) *key_node = k;
            return bl_node(c, p->value);
        }
    }
    return NULL;
}

static const char *type_word(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return "a single value";
    }
}

bool bl_want(bl_ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
    if (n->type == t) return true;
    const char *want = t == YAML_MAPPING_NODE ? "a mapping ({key: value, ...})"
                       : t == YAML_SEQUENCE_NODE ? "a list ([a, b, ...])"
                                                 : "a single value";
    return bl_fail_at(c, n->start_mark, "%s must be %s, not %s", what, want, type_word(n));
}

/* Every key of map among allowed (NULL-terminated), none twice. */
bool bl_keys(bl_ctx *c, const yaml_node_t *map, const char *what, const char *const *allowed)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = bl_node(c, p->key);
        const char *s = bl_scalar(k);
        if (!s) return bl_fail_at(c, k->start_mark, "a key of %s must be a word, not %s", what, type_word(k));
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++) ok = ok || strcmp(s, allowed[i]) == 0;
        if (!ok) {
            char list[400] = "";
            for (size_t i = 0; allowed[i]; i++) {
                const size_t n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", allowed[i]);
            }
            return bl_fail_at(c, k->start_mark, "unknown key '%s' in %s; fix its spelling or remove it (the keys are %s)",
                              s, what, list);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            const char *t = bl_scalar(bl_node(c, q->key));
            if (t && strcmp(t, s) == 0)
                return bl_fail_at(c, k->start_mark, "'%s' is given twice in %s; keep one", s, what);
        }
    }
    return true;
}

/* A required key's value, else an error at the mapping. */
yaml_node_t *bl_need(bl_ctx *c, const yaml_node_t *map, const char *key, const char *what)
{
    yaml_node_t *v = bl_get(c, map, key, NULL);
    if (!v) bl_fail_at(c, map->start_mark, "%s has no '%s'; add it", what, key);
    return v;
}

/* Names head CSV columns and parameter names and are read back by
 * expressions: letters, digits and '_', not starting with a digit. */
bool bl_name(bl_ctx *c, const yaml_node_t *n, const char *what, const char **out)
{
    const char *s = bl_scalar(n);
    if (!s) return bl_fail_at(c, n->start_mark, "%s must be a name, not %s", what, type_word(n));
    bool ok = (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_';
    for (const char *p = s; *p && ok; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (!ok || strlen(s) > 48)
        return bl_fail_at(c, n->start_mark,
                          "%s '%.60s' is not a name; use up to 48 letters, digits and '_', starting with a letter",
                          what, s);
    *out = s;
    return true;
}

bool bl_bool(bl_ctx *c, const yaml_node_t *n, const char *what, bool *out)
{
    const char *s = bl_scalar(n);
    if (s && strcmp(s, "true") == 0) *out = true;
    else if (s && strcmp(s, "false") == 0) *out = false;
    else return bl_fail_at(c, n->start_mark, "%s must be true or false", what);
    return true;
}

/* A plain number (not a parameter): quaternions, axes, coefficients, guesses. */
bool bl_number(bl_ctx *c, const yaml_node_t *n, const char *what, double *out)
{
    const char *s = bl_scalar(n);
    char *end = NULL;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || end == s || *end != '\0' || !isfinite(v))
        return bl_fail_at(c, n->start_mark, "%s must be a finite number%s", what,
                          s ? "" : ", not a list or a mapping");
    *out = v;
    return true;
}

bool bl_numbers(bl_ctx *c, const yaml_node_t *n, const char *what, size_t count, double *out)
{
    if (!bl_want(c, n, YAML_SEQUENCE_NODE, what)) return false;
    if (bl_len(n) != count)
        return bl_fail_at(c, n->start_mark, "%s needs %zu numbers, not %zu", what, count, bl_len(n));
    for (size_t i = 0; i < count; i++)
        if (!bl_number(c, bl_item(c, n, i), what, &out[i])) return false;
    return true;
}

/* ---- parameters ------------------------------------------------------------ */

int bl_param_index(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0) return (int)i;
    return -1;
}

/* A literal number becomes a parameter named after its place in the file;
 * a name parameters: already declares cannot be taken twice. */
bool bl_add_param(bl_ctx *c, yaml_mark_t at, const char *name, double value, double min, double max,
                  const char *unit, const char *desc)
{
    body_file *f = c->f;
    if (bl_param_index(f, name) >= 0)
        return bl_fail_at(c, at, "this number would be the parameter '%s', a name parameters: already declares; "
                          "write the name '%s' here, or rename the declared parameter", name, name);
    if (f->n_params >= SM_MAX_PARAMS)
        return bl_fail_at(c, at, "more than %d parameters; share values through parameters: (an expression or a "
                          "parameter's name is not a parameter itself)", SM_MAX_PARAMS);
    char *nm = strdup(name), *u = strdup(unit ? unit : ""), *d = strdup(desc ? desc : "");
    if (!nm || !u || !d) {
        free(nm);
        free(u);
        free(d);
        return bl_no_memory(c);
    }
    f->params[f->n_params++] = (sm_param_def){nm, value, min, max, u, d, 0};
    return true;
}

/* A numeric field: a literal number becomes the parameter pname (checked
 * against [min, max]); a parameter's name or an expression refers to the
 * parameters declared so far. */
bool bl_num(bl_ctx *c, const yaml_node_t *n, const char *pname, double min, double max, const char *unit,
            const char *desc, body_num *out)
{
    const char *s = bl_scalar(n);
    if (!s)
        return bl_fail_at(c, n->start_mark, "%s must be a number, a parameter's name or an expression, not %s", pname,
                          type_word(n));
    char *end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    if (end != s && *end == '\0') {
        if (!isfinite(v)) return bl_fail_at(c, n->start_mark, "%s must be a finite number, not %s", pname, s);
        if (v < min || v > max) {
            if (isinf(max)) return bl_fail_at(c, n->start_mark, "%s must be at least %g, not %g", pname, min, v);
            return bl_fail_at(c, n->start_mark, "%s must lie in [%g, %g], not %g", pname, min, max, v);
        }
        if (!bl_add_param(c, n->start_mark, pname, v, min, max, unit, desc)) return false;
        *out = (body_num){(int)c->f->n_params - 1, NULL};
        return true;
    }
    const char *names[SM_MAX_PARAMS];
    for (size_t i = 0; i < c->f->n_params; i++) names[i] = c->f->params[i].name;
    char err[256];
    size_t off = 0;
    const int r = body_num_compile(s, names, c->f->n_params, out, &c->f->exprs, err, sizeof err, &off);
    if (r == -2) return bl_no_memory(c);
    if (r == 0) return true;
    yaml_mark_t m = n->start_mark;
    if (n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
        n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
        m.column++;
    if (!strchr(s, '\n')) m.column += off;
    if (strncmp(err, "unknown name", 12) == 0) {
        char list[400] = "";
        for (size_t i = 0; i < c->f->n_params && strlen(list) < 300; i++) {
            const size_t k = strlen(list);
            snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names[i]);
        }
        if (strlen(list) >= 300) snprintf(list + strlen(list), sizeof list - strlen(list), ", ...");
        return bl_fail_at(c, m, "%s in %s; declare it under parameters: (before it is used) or use one of: %s%s", err,
                          pname, list[0] ? list : "(none yet)", "");
    }
    return bl_fail_at(c, m, "%s in the expression of %s ('%.80s'); write a number, a parameter's name or an "
                      "expression of + - * / ^, parentheses, sqrt sin cos tan atan2 pi", err, pname, s);
}

bool bl_vec(bl_ctx *c, const yaml_node_t *n, const char *base, double min, double max, const char *unit,
            const char *desc, body_num out[3])
{
    if (!bl_want(c, n, YAML_SEQUENCE_NODE, base)) return false;
    if (bl_len(n) != 3) return bl_fail_at(c, n->start_mark, "%s needs 3 entries [x, y, z], not %zu", base, bl_len(n));
    static const char *const comp[3] = {"x", "y", "z"};
    for (size_t i = 0; i < 3; i++) {
        char pn[160];
        snprintf(pn, sizeof pn, "%s.%s", base, comp[i]);
        if (!bl_num(c, bl_item(c, n, i), pn, min, max, unit, desc, &out[i])) return false;
    }
    return true;
}
