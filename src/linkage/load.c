/* Model files: YAML read with libcyaml into a linkage, every number a named
 * parameter (dotted names: thigh.mass, hip.stiffness, foot.radius, ...).
 *
 * Errors say file:line:column, what is wrong and what to change.  libcyaml
 * reports its own errors (unknown key, missing field, wrong type) through its
 * log callback, which we capture; it names the offending key and its path
 * but not always the position, so the position is looked up with libyaml by
 * that path.  Our own checks (negative mass, zero length, a knee on a
 * one-link leg) look their positions up the same way.
 *
 * The file:
 *
 *   name: kneed_hsu            # optional: defaults to the file's base name
 *   title: ...                 # optional
 *   reference: ...             # optional
 *   gravity: 9.8               # m/s^2
 *   slope: 0.0503              # rad, downhill in the walking direction
 *   hip: {mass: 0.5, stiffness: 0, damping: 0, torque: 0, rest_angle: 0}
 *   links:                     # one leg, hip to foot: one link, or thigh and shank
 *     - {name: thigh, length: 0.5, mass: 0.5, com: 0.3, com_offset: 0, gyration: 0}
 *     - {name: shank, length: 0.5, mass: 0.05, com: 0.15}
 *   knee: {stop: true, stiffness: 0, damping: 0, torque: 0}  # two links only
 *                              # assume_locked: true skips the stance-knee check;
 *                              # locked: true locks both knees (a straight-legged step)
 *                              # hold_at_heelstrike: true keeps the new swing knee locked
 *                              # through heel-strike (Chen 2007): it leaves straight
 *   foot: {radius: 0, offset: 0}
 *   guess: [0.2, -0.2, -0.2, -1, 0.2, 0.2]   # a full state (linkage.h)
 *   time_limit: 5
 *   phases: [knee_free, knee_locked]   # optional: the phases of a step, in order
 *
 * phases declares the phase sequence; without it the sequence follows from
 * the legs (and knee: {locked: true}):
 *   [swing]                    straight legs (the only one, and their default)
 *   [knee_free, knee_locked]   knees: swing with the knee free, knee-strike at
 *                              the stop, swing locked, heel-strike (the default;
 *                              needs knee: {stop: true})
 *   [knee_locked]              knees locked all step, a straight-legged step
 *                              (the same as knee: {locked: true}; both may be given)
 *   [knee_free]                the knee never locks: no knee-strike, the swing
 *                              knee is free all step (no stop) and heel-strike
 *                              comes with it as it is, bent or not; the new
 *                              stance knee stays locked at that bend, so the
 *                              state gains stance_bend (linkage.h); guess still
 *                              takes 6 numbers (the stance knee straight)
 * An empty list, an unknown name, an order other than these (a phase listed
 * twice included), a knee phase on
 * one-link legs, swing on kneed legs, knee_free with knee: {locked: true} or
 * [knee_free] with hold_at_heelstrike are errors at the entry or key.
 *
 * A file holds one YAML document (a second, after '---', is an error, not
 * ignored).  The model's and the links' names may not contain a comma, a
 * double quote or a control character (a line break): link names head CSV
 * columns (thigh.mass).
 *
 * com is the distance of a link's centre of mass from its upper joint along
 * the link, com_offset its distance forward of the link's axis; gyration is
 * the radius of gyration about the centre of mass (or give inertia, in
 * kg m^2; neither: a point mass).  Hip torques act on the swing leg (and the
 * opposite on the stance leg): -stiffness (swing - stance - rest_angle)
 * - damping (swing_dot - stance_dot) + torque. */
#include <cyaml/cyaml.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "internal.h"

/* ---- the schema ---------------------------------------------------------- */

typedef struct {
    char *name;
    double length, mass, com;
    double *com_offset, *gyration, *inertia;
} y_link;

typedef struct {
    double *mass, *stiffness, *damping, *torque, *rest_angle;
} y_hip;

typedef struct {
    bool stop, assume_locked, locked, hold_at_heelstrike;
    double *stiffness, *damping, *torque;
} y_knee;

typedef struct {
    double *radius, *offset;
} y_foot;

typedef struct {
    char *name, *title, *reference;
    double gravity, slope;
    y_hip *hip;
    y_link *links;
    unsigned links_count;
    y_knee *knee;
    y_foot *foot;
    double *guess;
    unsigned guess_count;
    double *time_limit;
    char **phases;
    unsigned phases_count;
} y_model;

#define OPT (CYAML_FLAG_OPTIONAL)
#define OPT_FLOAT(key, type, member) CYAML_FIELD_FLOAT_PTR(key, OPT, type, member)

static const cyaml_schema_field_t link_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, y_link, name, 1, 31),
    CYAML_FIELD_FLOAT("length", CYAML_FLAG_DEFAULT, y_link, length),
    CYAML_FIELD_FLOAT("mass", CYAML_FLAG_DEFAULT, y_link, mass),
    CYAML_FIELD_FLOAT("com", CYAML_FLAG_DEFAULT, y_link, com),
    OPT_FLOAT("com_offset", y_link, com_offset),
    OPT_FLOAT("gyration", y_link, gyration),
    OPT_FLOAT("inertia", y_link, inertia),
    CYAML_FIELD_END};

static const cyaml_schema_value_t link_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_link, link_fields),
};

static const cyaml_schema_field_t hip_fields[] = {
    OPT_FLOAT("mass", y_hip, mass),       OPT_FLOAT("stiffness", y_hip, stiffness),
    OPT_FLOAT("damping", y_hip, damping), OPT_FLOAT("torque", y_hip, torque),
    OPT_FLOAT("rest_angle", y_hip, rest_angle), CYAML_FIELD_END};

static const cyaml_schema_field_t knee_fields[] = {
    CYAML_FIELD_BOOL("stop", OPT, y_knee, stop),
    CYAML_FIELD_BOOL("assume_locked", OPT, y_knee, assume_locked),
    CYAML_FIELD_BOOL("locked", OPT, y_knee, locked),
    CYAML_FIELD_BOOL("hold_at_heelstrike", OPT, y_knee, hold_at_heelstrike),
    OPT_FLOAT("stiffness", y_knee, stiffness),
    OPT_FLOAT("damping", y_knee, damping),
    OPT_FLOAT("torque", y_knee, torque),
    CYAML_FIELD_END};

static const cyaml_schema_field_t foot_fields[] = {
    OPT_FLOAT("radius", y_foot, radius), OPT_FLOAT("offset", y_foot, offset), CYAML_FIELD_END};

static const cyaml_schema_value_t float_entry = {
    CYAML_VALUE_FLOAT(CYAML_FLAG_DEFAULT, double),
};

static const cyaml_schema_value_t phase_entry = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, 63),
};

static const cyaml_schema_field_t model_fields[] = {
    CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER | OPT, y_model, name, 1, 63),
    CYAML_FIELD_STRING_PTR("title", CYAML_FLAG_POINTER | OPT, y_model, title, 0, 200),
    CYAML_FIELD_STRING_PTR("reference", CYAML_FLAG_POINTER | OPT, y_model, reference, 0, 300),
    CYAML_FIELD_FLOAT("gravity", CYAML_FLAG_DEFAULT, y_model, gravity),
    CYAML_FIELD_FLOAT("slope", CYAML_FLAG_DEFAULT, y_model, slope),
    CYAML_FIELD_MAPPING_PTR("hip", CYAML_FLAG_POINTER | OPT, y_model, hip, hip_fields),
    CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER, y_model, links, &link_schema, 1,
                         SM_LINKAGE_MAX_LINKS),
    CYAML_FIELD_MAPPING_PTR("knee", CYAML_FLAG_POINTER | OPT, y_model, knee, knee_fields),
    CYAML_FIELD_MAPPING_PTR("foot", CYAML_FLAG_POINTER | OPT, y_model, foot, foot_fields),
    CYAML_FIELD_SEQUENCE("guess", CYAML_FLAG_POINTER | OPT, y_model, guess, &float_entry, 4, 6),
    OPT_FLOAT("time_limit", y_model, time_limit),
    CYAML_FIELD_SEQUENCE("phases", CYAML_FLAG_POINTER | OPT, y_model, phases, &phase_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END};

static const cyaml_schema_value_t top_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, y_model, model_fields),
};

/* ---- positions in the file, by path -------------------------------------- */

/* A path into the document: keys, or "#N" for the N-th sequence entry. */
#define MAX_PATH 8
typedef struct {
    const char *tok[MAX_PATH];
    char buf[MAX_PATH][64];
    int n;
} y_path;

/* A libyaml event parser reading file; NULL (nothing to release) if the
 * file cannot be opened or the parser not made.  The caller deletes the
 * parser and closes the file. */
static FILE *open_parser(const char *file, yaml_parser_t *parser)
{
    FILE *f = fopen(file, "rb");
    if (!f) return NULL;
    if (!yaml_parser_initialize(parser)) {
        fclose(f);
        return NULL;
    }
    yaml_parser_set_input_file(parser, f);
    return f;
}

/* Finds the node at path (its key, if want_key and the last token is a
 * key); line and column are 1-based.  False if the path is not there. */
static bool find_mark(const char *file, const y_path *path, bool want_key, int *line, int *col)
{
    yaml_parser_t parser;
    FILE *f = open_parser(file, &parser);
    if (!f) return false;

    /* Stack of containers: kind, the index/key of the child being read. */
    struct {
        bool is_map, want_key;
        int index;
        char key[64];
    } st[32];
    int depth = 0;         /* containers open */
    int matched = 0;       /* leading containers whose child so far follows path */
    bool found = false;
    yaml_mark_t key_mark = {0};

    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) break;
        const yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        const bool node = t == YAML_SCALAR_EVENT || t == YAML_MAPPING_START_EVENT ||
                          t == YAML_SEQUENCE_START_EVENT || t == YAML_ALIAS_EVENT;
        if (node && depth > 0 && st[depth - 1].is_map && st[depth - 1].want_key) {
            /* a key */
            st[depth - 1].want_key = false;
            snprintf(st[depth - 1].key, sizeof st[depth - 1].key, "%s",
                     t == YAML_SCALAR_EVENT ? (const char *)ev.data.scalar.value : "");
            key_mark = ev.start_mark;
            if (want_key && matched == depth - 1 && depth == path->n &&
                strcmp(st[depth - 1].key, path->tok[depth - 1]) == 0) {
                *line = (int)ev.start_mark.line + 1;
                *col = (int)ev.start_mark.column + 1;
                found = true;
            }
            yaml_event_delete(&ev);
            if (found) break;
            continue;
        }
        if (node) {
            /* a value: does the path so far lead here? */
            bool on_path = matched == depth;
            if (on_path && depth > 0) {
                const char *want = path->tok[depth - 1];
                char here[64];
                if (st[depth - 1].is_map)
                    snprintf(here, sizeof here, "%s", st[depth - 1].key);
                else
                    snprintf(here, sizeof here, "#%d", st[depth - 1].index);
                on_path = depth <= path->n && strcmp(here, want) == 0;
            }
            if (on_path && depth == path->n) {
                yaml_mark_t mk = want_key && depth > 0 && st[depth - 1].is_map ? key_mark : ev.start_mark;
                *line = (int)mk.line + 1;
                *col = (int)mk.column + 1;
                found = true;
                yaml_event_delete(&ev);
                break;
            }
            if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
                if (depth >= 32) {
                    yaml_event_delete(&ev);
                    break;
                }
                if (on_path) matched = depth + 1;
                st[depth].is_map = t == YAML_MAPPING_START_EVENT;
                st[depth].want_key = true;
                st[depth].index = 0;
                st[depth].key[0] = '\0';
                depth++;
            } else if (depth > 0) {
                if (st[depth - 1].is_map) st[depth - 1].want_key = true;
                else st[depth - 1].index++;
            }
        } else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            if (depth > 0) depth--;
            if (matched > depth) matched = depth;
            if (depth > 0) {
                if (st[depth - 1].is_map) st[depth - 1].want_key = true;
                else st[depth - 1].index++;
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    return found;
}

static void path_push(y_path *p, const char *tok)
{
    if (p->n >= MAX_PATH) return;
    snprintf(p->buf[p->n], sizeof p->buf[p->n], "%s", tok);
    p->tok[p->n] = p->buf[p->n];
    p->n++;
}

static void path_push_index(y_path *p, unsigned i)
{
    char b[16];
    snprintf(b, sizeof b, "#%u", i);
    path_push(p, b);
}

/* "file:line:col: " for path (its parent if the path is absent). */
static void where(const char *file, const y_path *path, bool want_key, char *out, size_t len)
{
    int line = 0, col = 0;
    y_path p = *path;
    while (p.n >= 0) {
        if (find_mark(file, &p, want_key && p.n == path->n, &line, &col)) break;
        p.n--;
    }
    if (line > 0) snprintf(out, len, "%s:%d:%d: ", file, line, col);
    else snprintf(out, len, "%s: ", file);
}

/* ---- libcyaml's messages ------------------------------------------------- */

typedef struct {
    char first[520];   /* the first error line */
    y_path path;       /* from the backtrace, outermost first */
    bool have_first;
    int line, col;     /* if libcyaml or libyaml gave one */
} y_log;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r')) s[--n] = '\0';
}

static void log_fn(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
    y_log *lg = ctx;
    if (level < CYAML_LOG_ERROR) return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, args);
    trim(msg);
    const char *s = msg;
    if (strncmp(s, "Load: ", 6) == 0) s += 6;
    int line = 0, col = 0;
    const char *lp = strstr(s, "line: ");
    if (lp && sscanf(lp, "line: %d, column: %d", &line, &col) == 2 && lg->line == 0) {
        lg->line = line;
        lg->col = col;
    }
    if (strncmp(s, "Backtrace:", 10) == 0) return;
    const char *field = strstr(s, "in mapping field '");
    const char *entry = strstr(s, "in sequence entry '");
    if (field) {
        char key[64] = "";
        sscanf(field + 18, "%63[^']", key);
        /* the backtrace runs innermost first: insert at the front */
        if (lg->path.n < MAX_PATH) {
            for (int i = lg->path.n; i > 0; i--) memcpy(lg->path.buf[i], lg->path.buf[i - 1], 64);
            snprintf(lg->path.buf[0], 64, "%s", key);
            lg->path.n++;
            for (int i = 0; i < lg->path.n; i++) lg->path.tok[i] = lg->path.buf[i];
        }
        return;
    }
    if (entry) {
        unsigned idx = 0;
        sscanf(entry + 19, "%u", &idx);
        if (lg->path.n < MAX_PATH) {
            for (int i = lg->path.n; i > 0; i--) memcpy(lg->path.buf[i], lg->path.buf[i - 1], 64);
            snprintf(lg->path.buf[0], 64, "#%u", idx > 0 ? idx - 1 : 0); /* libcyaml counts from 1 */
            lg->path.n++;
            for (int i = 0; i < lg->path.n; i++) lg->path.tok[i] = lg->path.buf[i];
        }
        return;
    }
    if (strncmp(s, "  in ", 5) == 0 || strncmp(s, "in ", 3) == 0) return;
    if (!lg->have_first) {
        snprintf(lg->first, sizeof lg->first, "%s", s);
        lg->have_first = true;
    }
}

/* ---- the parameter table -------------------------------------------------- */

typedef struct {
    sm_linkage *lk;
    const char *file;
    char *why;
    size_t why_len;
    sm_status st;
} builder;

static bool add_param(builder *b, const char *name, size_t offset, double value, double min, double max,
                      const char *unit, const char *desc)
{
    sm_linkage *lk = b->lk;
    if (lk->n_params >= SM_MAX_PARAMS) return false;
    char *nm = strdup(name);
    if (!nm) {
        b->st = SM_NO_MEMORY;
        snprintf(b->why, b->why_len, "out of memory");
        return false;
    }
    const size_t k = lk->n_params++;
    lk->param_names[k] = nm;
    lk->params[k] = (sm_param_def){nm, value, min, max, unit, desc, 0};
    lk->param_offset[k] = offset;
    *(double *)((char *)&lk->defaults + offset) = value;
    return true;
}

#define VOFF(member) offsetof(sm_linkage_values, member)

/* Reports a bad value at path: "file:line:col: what; change". */
static bool bad_at(builder *b, const y_path *path, const char *fmt, ...)
{
    char pos[1200];
    where(b->file, path, false, pos, sizeof pos);
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->why, b->why_len, "%s%s", pos, msg);
    b->st = SM_BAD_MODEL_FILE;
    return false;
}

static bool check_finite(builder *b, const y_path *path, double v)
{
    if (isfinite(v)) return true;
    return bad_at(b, path, "%s must be a finite number", path->tok[path->n - 1]);
}

static const char *base_name(const char *path, char *out, size_t len)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(out, len, "%s", s);
    char *dot = strrchr(out, '.');
    if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0)) *dot = '\0';
    return out;
}

/* The declared phase sequence (phases:), checked against the legs and the
 * knee; sets lk->knee_locked or lk->knee_never_locks.  Without the key the
 * sequence follows from the structure (and knee: {locked: true}). */
static bool check_phases(builder *b, const y_model *y)
{
    sm_linkage *lk = b->lk;
    y_path path = {0};
    path_push(&path, "phases");
    int line = 0, col = 0;
    /* libcyaml gives an empty list as no list: look for the key */
    if (!y->phases && !find_mark(b->file, &path, true, &line, &col)) return true;
    const bool knee = y->links_count == 2;
    const char *hint = knee ? "[knee_free, knee_locked] (the default), [knee_locked] (a straight-legged step) "
                              "or [knee_free] (the knee never locks)"
                            : "[swing] (the default for straight legs)";
    if (y->phases_count == 0)
        return bad_at(b, &path, "phases is empty; list the phases of a step, %s, or remove the key", hint);
    bool has_free = false, has_locked = false, has_swing = false;
    for (unsigned i = 0; i < y->phases_count; i++) {
        const char *ph = y->phases[i];
        path.n = 1;
        path_push_index(&path, i);
        const bool is_swing = strcmp(ph, "swing") == 0, is_free = strcmp(ph, "knee_free") == 0,
                   is_locked = strcmp(ph, "knee_locked") == 0;
        if (!is_swing && !is_free && !is_locked)
            return bad_at(b, &path, "unknown phase '%s'; the phases are swing (straight legs), knee_free and "
                          "knee_locked (legs with knees): use %s", ph, hint);
        if (!knee && !is_swing)
            return bad_at(b, &path, "phase '%s' needs a knee but the leg has one link; use phases: [swing], or add "
                          "a second link (the shank) under links and a knee", ph);
        if (knee && is_swing)
            return bad_at(b, &path, "phase 'swing' is the step of straight legs; with knees use %s", hint);
        if ((is_free && (has_free || has_locked)) || (is_locked && has_locked) || (is_swing && has_swing))
            return bad_at(b, &path, "phase '%s' cannot come here: a step is one of %s", ph, hint);
        has_swing = has_swing || is_swing;
        has_free = has_free || is_free;
        has_locked = has_locked || is_locked;
    }
    if (!knee) return true;
    path.n = 0;
    path_push(&path, "knee");
    if (has_free && y->knee->locked) {
        path_push(&path, "locked");
        return bad_at(b, &path, "knee: {locked: true} conflicts with phases listing knee_free; remove "
                      "'locked: true' or declare phases: [knee_locked]");
    }
    if (has_free && has_locked && !y->knee->stop)
        return bad_at(b, &path, "phases [knee_free, knee_locked] end the swing at the knee's stop: set 'stop: "
                      "true' under knee (or declare phases: [knee_free] for a knee that never locks)");
    if (has_free && !has_locked) {
        if (y->knee->hold_at_heelstrike) {
            path_push(&path, "hold_at_heelstrike");
            return bad_at(b, &path, "hold_at_heelstrike locks the new swing knee, but phases: [knee_free] never "
                          "locks it; remove 'hold_at_heelstrike: true' or declare phases: [knee_free, knee_locked]");
        }
        lk->knee_never_locks = true;
    }
    if (has_locked && !has_free) lk->knee_locked = true;
    return true;
}

/* A name goes into CSV headers (link names: thigh.mass) and one-line
 * messages, which a comma, a double quote or a line break would split;
 * the character at fault, or NULL. */
static const char *bad_name_char(const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == ',') return "a comma";
        if (*c == '"') return "a double quote";
        if (*c == '\n' || *c == '\r') return "a line break";
        if (*c < 0x20 || *c == 0x7f) return "a control character";
    }
    return NULL;
}

static bool build(builder *b, const y_model *y)
{
    sm_linkage *lk = b->lk;
    y_path path = {0};
    char nm[128];

    if (y->name && bad_name_char(y->name)) {
        path_push(&path, "name");
        return bad_at(b, &path, "the model's name contains %s; use letters, digits, '_' and '-'",
                      bad_name_char(y->name));
    }
    lk->name = strdup(y->name ? y->name : base_name(b->file, nm, sizeof nm));
    lk->title = strdup(y->title ? y->title : "a planar walker read from a model file");
    lk->reference = strdup(y->reference ? y->reference : b->file);
    lk->path = strdup(b->file);
    if (!lk->name || !lk->title || !lk->reference || !lk->path) {
        b->st = SM_NO_MEMORY;
        snprintf(b->why, b->why_len, "out of memory");
        return false;
    }

    path.n = 0;
    path_push(&path, "gravity");
    if (!check_finite(b, &path, y->gravity)) return false;
    if (!(y->gravity > 0)) return bad_at(b, &path, "gravity must be positive (m/s^2), not %g", y->gravity);
    path.n = 0;
    path_push(&path, "slope");
    if (!check_finite(b, &path, y->slope)) return false;
    if (fabs(y->slope) >= 0.5)
        return bad_at(b, &path, "slope must be an angle in radians between -0.5 and 0.5, not %g", y->slope);
    if (!add_param(b, "gravity", VOFF(gravity), y->gravity, 1e-6, 1e4, "m/s^2", "gravitational acceleration") ||
        !add_param(b, "slope", VOFF(slope), y->slope, -0.5, 0.5, "rad", "slope angle of the ramp"))
        return false;

    /* links */
    lk->n_links = y->links_count;
    for (unsigned i = 0; i < y->links_count; i++) {
        const y_link *L = &y->links[i];
        path.n = 0;
        path_push(&path, "links");
        path_push_index(&path, i);
        const char *ln = L->name;
        for (unsigned j = 0; j < i; j++)
            if (strcmp(y->links[j].name, ln) == 0) {
                path_push(&path, "name");
                return bad_at(b, &path, "two links are called '%s'; give each link its own name", ln);
            }
        if (bad_name_char(ln)) {
            path_push(&path, "name");
            return bad_at(b, &path, "the link's name contains %s, which would split the CSV columns named "
                          "after it (NAME.mass, ...); use letters, digits and '_'", bad_name_char(ln));
        }
        if (strcmp(ln, "hip") == 0 || strcmp(ln, "knee") == 0 || strcmp(ln, "foot") == 0 ||
            strchr(ln, '.') || strchr(ln, '='))
            return bad_at(b, &path, "a link may not be called '%s'; choose another name (e.g. thigh, shank)", ln);
        struct {
            const char *key;
            double v;
        } nums[] = {{"length", L->length}, {"mass", L->mass}, {"com", L->com}};
        for (size_t k = 0; k < 3; k++) {
            path.n = 2;
            path_push(&path, nums[k].key);
            if (!check_finite(b, &path, nums[k].v)) return false;
        }
        path.n = 2;
        path_push(&path, "length");
        if (!(L->length > 0))
            return bad_at(b, &path, "link '%s': length must be positive (m), not %g", ln, L->length);
        path.n = 2;
        path_push(&path, "mass");
        if (L->mass < 0) return bad_at(b, &path, "link '%s': mass must be zero or positive (kg), not %g", ln, L->mass);
        double off = L->com_offset ? *L->com_offset : 0.0;
        if (L->gyration && L->inertia) {
            path.n = 2;
            path_push(&path, "inertia");
            return bad_at(b, &path, "link '%s': give gyration or inertia, not both", ln);
        }
        double inertia_v = L->gyration ? *L->gyration : L->inertia ? *L->inertia : 0.0;
        path.n = 2;
        path_push(&path, L->gyration ? "gyration" : "inertia");
        if (!check_finite(b, &path, inertia_v) || !isfinite(off)) return false;
        if (inertia_v < 0)
            return bad_at(b, &path, "link '%s': %s must be zero or positive, not %g", ln,
                          L->gyration ? "gyration" : "inertia", inertia_v);
        lk->use_gyration[i] = L->gyration != NULL;
        char pn[96];
        const size_t base = VOFF(link) + i * sizeof(((sm_linkage_values *)0)->link[0]);
#define LOFF(m) (base + offsetof(sm_linkage_values, link[0].m) - VOFF(link))
        snprintf(pn, sizeof pn, "%s.length", ln);
        if (!add_param(b, pn, LOFF(length), L->length, 1e-9, 1e3, "m", "link length (joint to joint)")) return false;
        snprintf(pn, sizeof pn, "%s.mass", ln);
        if (!add_param(b, pn, LOFF(mass), L->mass, 0, 1e6, "kg", "link mass")) return false;
        snprintf(pn, sizeof pn, "%s.com", ln);
        if (!add_param(b, pn, LOFF(com), L->com, -1e3, 1e3, "m",
                       "centre of mass: distance from the upper joint along the link"))
            return false;
        snprintf(pn, sizeof pn, "%s.com_offset", ln);
        if (!add_param(b, pn, LOFF(com_offset), off, -1e3, 1e3, "m",
                       "centre of mass: distance forward of the link's axis"))
            return false;
        if (L->gyration) {
            snprintf(pn, sizeof pn, "%s.gyration", ln);
            if (!add_param(b, pn, LOFF(gyration), inertia_v, 0, 1e3, "m",
                           "radius of gyration about the centre of mass"))
                return false;
        } else {
            snprintf(pn, sizeof pn, "%s.inertia", ln);
            if (!add_param(b, pn, LOFF(inertia), inertia_v, 0, 1e6, "kg m^2",
                           "moment of inertia about the centre of mass"))
                return false;
        }
#undef LOFF
    }

    /* hip */
    const y_hip *h = y->hip;
    const double hm = h && h->mass ? *h->mass : 0.0;
    path.n = 0;
    path_push(&path, "hip");
    path_push(&path, "mass");
    if (!check_finite(b, &path, hm)) return false;
    if (hm < 0) return bad_at(b, &path, "hip mass must be zero or positive (kg), not %g", hm);
    struct {
        const char *key, *unit, *desc;
        size_t off;
        const double *v;
        double min, max;
    } hips[] = {
        {"stiffness", "N m/rad", "hip torsional spring stiffness", VOFF(hip_stiffness), h ? h->stiffness : NULL, 0, 1e6},
        {"damping", "N m s/rad", "hip torsional damper", VOFF(hip_damping), h ? h->damping : NULL, 0, 1e6},
        {"torque", "N m", "constant hip torque on the swing leg", VOFF(hip_torque), h ? h->torque : NULL, -1e6, 1e6},
        {"rest_angle", "rad", "swing minus stance angle where the hip spring is relaxed", VOFF(hip_rest),
         h ? h->rest_angle : NULL, -3.2, 3.2},
    };
    if (!add_param(b, "hip.mass", VOFF(hip_mass), hm, 0, 1e6, "kg", "point mass at the hip")) return false;
    for (size_t k = 0; k < 4; k++) {
        const double v = hips[k].v ? *hips[k].v : 0.0;
        path.n = 1;
        path_push(&path, hips[k].key);
        if (!check_finite(b, &path, v)) return false;
        if (v < hips[k].min) return bad_at(b, &path, "hip %s must be at least %g, not %g", hips[k].key, hips[k].min, v);
        char pn[64];
        snprintf(pn, sizeof pn, "hip.%s", hips[k].key);
        if (!add_param(b, pn, hips[k].off, v, hips[k].min, hips[k].max, hips[k].unit, hips[k].desc))
            return false;
    }

    /* knee */
    if (y->knee && y->links_count < 2) {
        path.n = 0;
        path_push(&path, "knee");
        return bad_at(b, &path,
                      "a knee is given but the leg has one link; add a second link (the shank) under links "
                      "or remove the knee");
    }
    if (y->links_count == 2 && !y->knee) {
        path.n = 0;
        path_push(&path, "links");
        return bad_at(b, &path, "the leg has two links but no knee; add 'knee: {stop: true}'");
    }
    if (y->knee) {
        path.n = 0;
        path_push(&path, "knee");
        if (!y->knee->stop && !y->knee->locked && !y->phases_count) /* declared phases: check_phases */
            return bad_at(b, &path, "only knees with a stop are supported: set 'stop: true' (or 'locked: true')");
        lk->assume_locked = y->knee->assume_locked;
        lk->knee_locked = y->knee->locked;
        lk->hs_knee_locked = y->knee->hold_at_heelstrike;
        const double *kv[3] = {y->knee->stiffness, y->knee->damping, y->knee->torque};
        const char *kk[3] = {"stiffness", "damping", "torque"};
        const size_t ko[3] = {VOFF(knee_stiffness), VOFF(knee_damping), VOFF(knee_torque)};
        const char *ku[3] = {"N m/rad", "N m s/rad", "N m"};
        const char *kd[3] = {"swing knee torsional spring (relaxed straight)", "swing knee damper",
                             "constant swing-knee torque (extending)"};
        for (size_t k = 0; k < 3; k++) {
            const double v = kv[k] ? *kv[k] : 0.0;
            path.n = 1;
            path_push(&path, kk[k]);
            if (!check_finite(b, &path, v)) return false;
            if (k < 2 && v < 0) return bad_at(b, &path, "knee %s must be zero or positive, not %g", kk[k], v);
            char pn[64];
            snprintf(pn, sizeof pn, "knee.%s", kk[k]);
            if (!add_param(b, pn, ko[k], v, k < 2 ? 0 : -1e6, 1e6, ku[k], kd[k])) return false;
        }
    }

    if (!check_phases(b, y)) return false;

    /* foot */
    double R = y->foot && y->foot->radius ? *y->foot->radius : 0.0;
    double fo = y->foot && y->foot->offset ? *y->foot->offset : 0.0;
    path.n = 0;
    path_push(&path, "foot");
    path_push(&path, "radius");
    if (!check_finite(b, &path, R)) return false;
    const double shank_len = y->links[y->links_count - 1].length;
    if (R < 0 || R >= shank_len)
        return bad_at(b, &path, "foot radius must be at least 0 and less than the lowest link's length %g, not %g",
                      shank_len, R);
    path.n = 1;
    path_push(&path, "offset");
    if (!check_finite(b, &path, fo)) return false;
    if (!add_param(b, "foot.radius", VOFF(foot_radius), R, 0, 1e3, "m", "radius of the circular foot (0: point)") ||
        !add_param(b, "foot.offset", VOFF(foot_offset), fo, -1e3, 1e3, "m",
                   "forward offset of the foot's centre from the leg axis"))
        return false;

    lk->n_dof = lk->n_links == 2 && !lk->knee_locked ? (lk->knee_never_locks ? 4 : 3) : 2;

    /* guess and time limit */
    if (y->guess) {
        path.n = 0;
        path_push(&path, "guess");
        /* phases: [knee_free]: the stance knee starts straight (bend 0) */
        const size_t na = lk->n_dof == 4 ? 3 : lk->n_dof;
        if (y->guess_count != 2 * na)
            return bad_at(b, &path, "guess needs %zu numbers (a full state: %s), not %u", 2 * na,
                          na == 2 ? "stance, swing and their rates" : "stance, thigh, shank and their rates",
                          y->guess_count);
        for (unsigned i = 0; i < y->guess_count; i++)
            if (!isfinite(y->guess[i])) return bad_at(b, &path, "guess: entry %u is not a finite number", i + 1);
        for (size_t i = 0; i < 2 * lk->n_dof; i++) {
            const size_t half = i < lk->n_dof ? i : i - lk->n_dof;
            lk->guess[i] = half < na ? y->guess[i < lk->n_dof ? half : na + half] : 0.0;
        }
        lk->have_guess = true;
    }
    lk->time_limit = 10.0;
    if (y->time_limit) {
        path.n = 0;
        path_push(&path, "time_limit");
        if (!(*y->time_limit > 0) || !isfinite(*y->time_limit))
            return bad_at(b, &path, "time_limit must be a positive number of seconds, not %g", *y->time_limit);
        lk->time_limit = *y->time_limit;
    }
    return true;
}

static bool has_suffix(const char *s, const char *suf)
{
    const size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* One line: control characters (a multi-line value echoed back) become spaces. */
static sm_status one_line(sm_status st, char *why)
{
    for (unsigned char *c = (unsigned char *)why; *c; c++)
        if (*c < 0x20 || *c == 0x7f) *c = ' ';
    return st;
}

static sm_status load(const char *path, sm_linkage **out, char *why, size_t why_len);

sm_status sm_linkage_load(const char *path, sm_linkage **out, char *why, size_t why_len)
{
    if (why_len > 0) why[0] = '\0';
    const sm_status st = load(path, out, why, why_len);
    return st == SM_OK ? st : one_line(st, why);
}

/* The position of a second YAML document in the file (libcyaml reads the
 * first and ignores the rest); false if there is none. */
static bool second_document(const char *file, int *line, int *col)
{
    yaml_parser_t parser;
    FILE *f = open_parser(file, &parser);
    if (!f) return false;
    int docs = 0;
    bool found = false;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) break;
        const yaml_event_type_t t = ev.type;
        if (t == YAML_DOCUMENT_START_EVENT && ++docs == 2) {
            *line = (int)ev.start_mark.line + 1;
            *col = (int)ev.start_mark.column + 1;
            found = true;
        }
        yaml_event_delete(&ev);
        if (found || t == YAML_STREAM_END_EVENT) break;
    }
    yaml_parser_delete(&parser);
    fclose(f);
    return found;
}

static sm_status load(const char *path, sm_linkage **out, char *why, size_t why_len)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(why, why_len, "%s: is a directory, not a model file; give the path of a .yaml file", path);
        return SM_IO_ERROR;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_len, "%s: cannot open the model file: %s", path, strerror(errno));
        return SM_IO_ERROR;
    }
    fclose(f);

    y_log lg;
    memset(&lg, 0, sizeof lg);
    const cyaml_config_t cfg = {
        .log_fn = log_fn,
        .log_ctx = &lg,
        .mem_fn = cyaml_mem,
        .log_level = CYAML_LOG_ERROR,
        .flags = CYAML_CFG_NO_ALIAS,
    };
    y_model *y = NULL;
    cyaml_err_t err = cyaml_load_file(path, &cfg, &top_schema, (cyaml_data_t **)&y, NULL);
    if (err != CYAML_OK) {
        char pos[1200];
        if (lg.line > 0) snprintf(pos, sizeof pos, "%s:%d:%d: ", path, lg.line, lg.col);
        else where(path, &lg.path, true, pos, sizeof pos);
        const char *what = lg.have_first ? lg.first : cyaml_strerror(err);
        const char *hint = "";
        if (strstr(what, "Unexpected key"))
            hint = " (remove it or fix its spelling; see the keys in an existing models/*.yaml)";
        else if (strstr(what, "Missing required"))
            hint = " (add it)";
        else if (strstr(what, "entries"))
            hint = " (links: one or two; guess: a full state of 4 or 6 numbers)";
        else if (strstr(what, "Invalid") || strstr(what, "Expected"))
            hint = " (give a value of the right type: a number, a name, a list or a mapping)";
        char at[200] = "";
        int depth = lg.path.n;
        /* a missing field's backtrace ends in the field read before it */
        if (strstr(what, "Missing required") && depth > 0 && lg.path.tok[depth - 1][0] != '#') depth--;
        /* a sequence of the wrong length: the sequence, not an entry */
        if ((strstr(what, "Insufficient entries") || strstr(what, "Excessive entries")) && depth > 0 &&
            lg.path.tok[depth - 1][0] == '#')
            depth--;
        for (int i = 0; i < depth && strlen(at) < 150; i++) {
            const char *t = lg.path.tok[i];
            const size_t k = strlen(at);
            if (t[0] == '#') snprintf(at + k, sizeof at - k, "[%d]", atoi(t + 1));
            else snprintf(at + k, sizeof at - k, "%s%s", k ? "." : "", t);
        }
        if (at[0]) snprintf(why, why_len, "%s%s (at %s)%s", pos, what, at, hint);
        else snprintf(why, why_len, "%s%s%s", pos, what, hint);
        if (y) cyaml_free(&cfg, &top_schema, y, 0);
        return SM_BAD_MODEL_FILE;
    }
    if (!y) {
        snprintf(why, why_len, "%s: the file is empty; describe a walker (see models/compass.yaml)", path);
        return SM_BAD_MODEL_FILE;
    }
    int line2 = 0, col2 = 0;
    if (second_document(path, &line2, &col2)) {
        cyaml_free(&cfg, &top_schema, y, 0);
        snprintf(why, why_len, "%s:%d:%d: a second YAML document; a model file describes one walker: remove "
                 "it (from this '---' on) or put it in a file of its own", path, line2, col2);
        return SM_BAD_MODEL_FILE;
    }

    sm_linkage *lk = calloc(1, sizeof *lk);
    if (!lk) {
        cyaml_free(&cfg, &top_schema, y, 0);
        snprintf(why, why_len, "out of memory");
        return SM_NO_MEMORY;
    }
    builder b = {lk, path, why, why_len, SM_OK};
    const bool ok = build(&b, y);
    cyaml_free(&cfg, &top_schema, y, 0);
    if (!ok) {
        sm_linkage_free(lk);
        return b.st == SM_OK ? SM_BAD_MODEL_FILE : b.st;
    }
    (void)has_suffix;
    lk_build_model(lk);
    *out = lk;
    return SM_OK;
}

void sm_linkage_free(sm_linkage *lk)
{
    if (!lk) return;
    for (size_t k = 0; k < lk->n_params; k++) free(lk->param_names[k]);
    free(lk->name);
    free(lk->title);
    free(lk->reference);
    free(lk->path);
    free(lk);
}

const sm_model *sm_linkage_model(const sm_linkage *lk) { return &lk->model; }

bool sm_linkage_has_knee(const sm_linkage *lk) { return lk->n_links == 2; }

void sm_linkage_values_from(const sm_linkage *lk, const double *p, sm_linkage_values *v)
{
    *v = lk->defaults;
    for (size_t k = 0; k < lk->n_params; k++) *(double *)((char *)v + lk->param_offset[k]) = p[k];
}
