/* An sm_import as the bodies and sites of a body-walker model file
 * (docs/body-walkers.md).  Numbers are written in the shortest form that
 * reads back to the same double, so the file holds MuJoCo's values exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

const char *import_num(double v, char buf[static 32])
{
    if (v == 0.0) return strcpy(buf, "0"); /* no -0 */
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* 30, not 3e+01: the same digits without an exponent where that is short */
    const double a = fabs(v);
    if (a >= 1e-4 && a < 1e15) {
        const int decimals = digits - 1 - (int)floor(log10(a));
        char fixed[40];
        snprintf(fixed, sizeof fixed, "%.*f", decimals > 0 ? decimals : 0, v);
        if (strtod(fixed, NULL) == v && strlen(fixed) < 32) strcpy(buf, fixed);
    } else {
        snprintf(buf, 32, "%.*g", digits, v);
    }
    return buf;
}

static void vec(FILE *f, const double *v, size_t n)
{
    char b[32];
    fputc('[', f);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? ", " : "", import_num(v[i], b));
    fputc(']', f);
}

/* A name as a YAML scalar: plain when it is a simple identifier, else quoted. */
static void name(FILE *f, const char *s)
{
    bool plain = *s && (s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'));
    for (const char *c = s; plain && *c; c++)
        plain = *c == '_' || *c == '-' || *c == '.' || (*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'Z') ||
                (*c >= 'a' && *c <= 'z');
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') fputc('\\', f);
        if ((unsigned char)*c < 0x20) fprintf(f, "\\x%02x", (unsigned char)*c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

static bool is_zero(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0) return false;
    return true;
}

/* The coordinate names of body b (docs/body-walkers.md, "Coordinates"), q then v. */
static void coords(FILE *f, const sm_rigid_body_def *b, const double *q0, size_t *qi)
{
    static const char *const free_q[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    static const char *const free_v[] = {"vx", "vy", "vz", "wx", "wy", "wz"};
    char v[32];
    switch (b->joint) {
    case SM_RIGID_HINGE:
    case SM_RIGID_SLIDE:
        fputs("#   ", f), name(f, b->name), fprintf(f, ": %s\n", import_num(q0[(*qi)++], v));
        fputs("#   ", f), name(f, b->name), fputs("_dot: 0\n", f);
        break;
    case SM_RIGID_BALL:
    case SM_RIGID_FREE: {
        const bool fr = b->joint == SM_RIGID_FREE;
        for (int k = fr ? 0 : 3; k < 7; k++) {
            char n[512];
            snprintf(n, sizeof n, "%s.%s", b->name, free_q[k]);
            fputs("#   ", f), name(f, n), fprintf(f, ": %s\n", import_num(q0[(*qi)++], v));
        }
        for (int k = fr ? 0 : 3; k < 6; k++) {
            char n[512];
            snprintf(n, sizeof n, "%s.%s", b->name, free_v[k]);
            fputs("#   ", f), name(f, n), fputs(": 0\n", f);
        }
        break;
    }
    case SM_RIGID_FIXED:
        break;
    }
}

sm_status sm_import_write_yaml(const sm_import *imp, const char *source, FILE *f, char *why, size_t why_len)
{
    char b1[32], b2[32];
    const double *g = imp->gravity;
    if (g[1] != 0.0) {
        if (why && why_len)
            snprintf(why, why_len,
                     "gravity (%s, %s, %s) has a y component: a model file's gravity is g0 (sin slope, 0, -cos slope); "
                     "turn the model so that y is horizontal",
                     import_num(g[0], b1), import_num(g[1], b2), import_num(g[2], (char[32]){0}));
        return SM_BAD_DATA;
    }
    static const char *const joint[] = {"fixed", "hinge", "slide", "ball", "free"};
    const char *src = source ? source : "a MuJoCo model";

    fprintf(f, "# Imported by stridemap from %s (MuJoCo's compiled model; docs/body-walkers.md).\n", src);
    fputs("# Bodies, sites, gravity and springs only: add contacts, phases, section and guess.\n", f);
    for (size_t i = 0; i < imp->nwarn; i++) fprintf(f, "# warning: %s\n", imp->warnings[i]);
    fputs("name: ", f), name(f, imp->name), fputc('\n', f);
    fputs("title: ", f), name(f, imp->name), fputc('\n', f);
    fputs("reference: ", f), name(f, src), fputc('\n', f);
    fprintf(f, "gravity: %s\nslope: %s\n", import_num(hypot(g[0], g[2]), b1),
            import_num(g[0] == 0.0 && g[2] == 0.0 ? 0.0 : atan2(g[0], -g[2]), b2));

    fputs("bodies:\n", f);
    for (size_t i = 0; i < imp->nbody; i++) {
        const sm_rigid_body_def *b = &imp->bodies[i];
        fputs("  - name: ", f), name(f, b->name), fputc('\n', f);
        fputs("    parent: ", f), name(f, b->parent < 0 ? "world" : imp->bodies[b->parent].name), fputc('\n', f);
        fprintf(f, "    joint: %s", joint[b->joint]);
        const char *jn = imp->joint_names ? imp->joint_names[i] : NULL;
        if (jn && strcmp(jn, b->name) != 0) fprintf(f, "   # MuJoCo's joint %s", jn);
        fputc('\n', f);
        fputs("    pos: ", f), vec(f, b->pos, 3), fputc('\n', f);
        if (!(b->quat[0] == 1.0 && is_zero(b->quat + 1, 3))) fputs("    quat: ", f), vec(f, b->quat, 4), fputc('\n', f);
        if (b->joint == SM_RIGID_HINGE || b->joint == SM_RIGID_SLIDE)
            fputs("    axis: ", f), vec(f, b->axis, 3), fputc('\n', f);
        fprintf(f, "    mass: %s\n", import_num(b->mass, b1));
        fputs("    com: ", f), vec(f, b->com, 3), fputc('\n', f);
        const double *I = b->inertia, in[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
        fputs("    inertia: ", f), vec(f, in, is_zero(in + 3, 3) ? 3 : 6), fputc('\n', f);
    }
    fputs(imp->nsite ? "sites:\n" : "sites: []\n", f);
    for (size_t i = 0; i < imp->nsite; i++) {
        const sm_rigid_site_def *s = &imp->sites[i];
        fputs("  - {name: ", f), name(f, s->name), fputs(", body: ", f), name(f, imp->bodies[s->body].name);
        fputs(", pos: ", f), vec(f, s->pos, 3), fputs("}\n", f);
    }
    if (imp->nspring) fputs("forces:\n", f);
    for (size_t i = 0; i < imp->nspring; i++) {
        const sm_import_spring *s = &imp->springs[i];
        fputs("  - name: ", f), name(f, s->name), fputc('\n', f);
        fputs("    on: {", f), name(f, imp->bodies[s->body].name), fputs(": 1}\n", f);
        fprintf(f, "    stiffness: %s\n", import_num(s->stiffness, b1));
        fprintf(f, "    damping: %s\n", import_num(s->damping, b1));
        fprintf(f, "    rest: %s\n", import_num(s->rest, b1));
    }
    fputs("# The coordinates, at MuJoCo's reference pose (qpos0), as a start for guess:\n# guess:\n", f);
    size_t qi = 0;
    for (size_t i = 0; i < imp->nbody && imp->qpos0; i++) coords(f, &imp->bodies[i], imp->qpos0, &qi);
    if (fflush(f) != 0 || ferror(f)) {
        if (why && why_len) snprintf(why, why_len, "could not write the model file");
        return SM_IO_ERROR;
    }
    return SM_OK;
}
