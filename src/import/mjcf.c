/* MJCF and URDF through MuJoCo 2.2.2: its compiled mjModel becomes the bodies
 * and sites of rigid.h (conventions in stridemap/import.h), and the file's own
 * <inertial> values are checked against what MuJoCo's compiler made of them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_internal.h"
#include "mujoco_dl.h"

/* MuJoCo as this process found it, for the length of one sm_import_mjcf
 * call; the code below calls it by MuJoCo's own names. */
static mujoco_dl mujoco;
#define mj_loadXML mujoco.loadXML
#define mj_deleteModel mujoco.deleteModel
#define mj_id2name mujoco.id2name
#define mj_name2id mujoco.name2id
#define mju_zero3 mujoco.zero3
#define mju_copy3 mujoco.copy3
#define mju_copy4 mujoco.copy4
#define mju_sub3 mujoco.sub3
#define mju_addTo3 mujoco.addTo3
#define mju_addToScl3 mujoco.addToScl3
#define mju_normalize4 mujoco.normalize4
#define mju_quat2Mat mujoco.quat2Mat
#define mju_rotVecMat mujoco.rotVecMat
#define mju_mulQuat mujoco.mulQuat
#define mju_axisAngle2Quat mujoco.axisAngle2Quat
#define mju_user_error (*mujoco.user_error)
#define mju_user_warning (*mujoco.user_warning)

/* A number in a message, as short as reads back exactly. */
#define N(x) import_num((x), (char[32]){0})

bool sm_import_available(void) { return true; }

/* MuJoCo's default handlers print and call exit(); these keep the first
 * message for the caller instead (process-global, as MuJoCo's are). */
static char first_error[512], first_warning[512];
static void on_error(const char *msg)
{
    if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s", msg);
}
static void on_warning(const char *msg)
{
    if (!first_warning[0]) snprintf(first_warning, sizeof first_warning, "%s", msg);
}

/* MuJoCo's messages span lines ("Error: ...\nObject name = ..., line = 3"): one line. */
static void one_line(char *s, size_t cap)
{
    char out[1024];
    size_t o = 0;
    for (const char *c = s; *c && o + 3 < sizeof out; c++) {
        if (*c == '\r') continue;
        if (*c != '\n') out[o++] = *c;
        else if (c[1] && c[1] != '\n') out[o++] = ';', out[o++] = ' ';
    }
    while (o && out[o - 1] == ' ') o--;
    out[o] = '\0';
    snprintf(s, cap, "%s", out);
}

static void mat_of_quat(const double *q, double *R)
{
    double n[4];
    mju_copy4(n, q);
    mju_normalize4(n);
    mju_quat2Mat(R, n);
}

static void rot(const double *quat, const double *v, double *out)
{
    double R[9];
    mat_of_quat(quat, R);
    mju_rotVecMat(out, v, R);
}

/* A name not yet taken among the first n bodies (or sites): s, else s_2, s_3, ... */
static char *unique(const char *s, const char *const *taken, size_t n)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s", s);
    for (int k = 2;; k++) {
        bool clash = false;
        for (size_t i = 0; i < n && !clash; i++) clash = strcmp(taken[i], buf) == 0;
        if (!clash) break;
        snprintf(buf, sizeof buf, "%.580s_%d", s, k);
    }
    return strdup(buf);
}

static const char *obj_name(const mjModel *m, int type, int id, char *buf, size_t len, const char *fallback)
{
    const char *n = mj_id2name(m, type, id);
    if (n && *n) return n;
    snprintf(buf, len, "%s%d", fallback, id);
    return buf;
}

static const char *joint_label(const mjModel *m, int j, char *buf, size_t len)
{
    const char *n = mj_id2name(m, mjOBJ_JOINT, j);
    char b[64];
    if (n && *n) snprintf(buf, len, "joint %s", n);
    else snprintf(buf, len, "the joint of body %s", obj_name(m, mjOBJ_BODY, m->jnt_bodyid[j], b, sizeof b, "body"));
    return buf;
}

/* ---- the file's own masses and inertias against MuJoCo's compiled ones ---- */

typedef struct {
    const char *name;  /* NULL: unnamed */
    int parent;        /* index in this list, -1: the world */
    bool inertial;     /* the file gives mass and inertia */
    bool full;         /* as fullinertia (body frame, about the centre of mass) */
    double tensor[9];
    double mass, moments[3]; /* principal moments, ascending */
} file_body;

static int parse_nums(const char *s, double *v, int n)
{
    int k = 0;
    for (char *end; s && k < n; s = end) {
        errno = 0;
        v[k] = strtod(s, &end);
        if (end == s) break;
        k++;
    }
    return k;
}

static double attr_num(const xml_elem *e, const char *key, double dflt)
{
    double v;
    return parse_nums(xml_attr(e, key), &v, 1) == 1 ? v : dflt;
}

static void principal_of(const double *full6, double *ev)
{
    const double *f = full6, I[9] = {f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]};
    import_eig3(I, ev);
}

/* The bodies the file declares, in document order (MuJoCo's body order when
 * nothing was fused), with their <inertial>; n = 0 if the file cannot be read. */
static size_t file_bodies(const xml_doc *doc, bool urdf, file_body *out, size_t cap)
{
    size_t n = 0;
    int *index = malloc(doc->n * sizeof *index);
    if (!index) return 0;
    for (size_t i = 0; i < doc->n; i++) {
        index[i] = -1;
        const xml_elem *e = &doc->e[i];
        if (strcmp(e->name, urdf ? "link" : "body") != 0 || n == cap) continue;
        if (urdf && (e->parent < 0 || strcmp(doc->e[e->parent].name, "robot") != 0)) continue;
        file_body *b = &out[n];
        memset(b, 0, sizeof *b);
        b->name = xml_attr(e, "name");
        b->parent = !urdf && e->parent >= 0 ? index[e->parent] : -1;
        index[i] = (int)n++;
        const int in = xml_child(doc, (int)i, "inertial");
        if (in < 0) continue;
        const xml_elem *ie = &doc->e[in];
        double d[6] = {0};
        if (urdf) {
            const int me = xml_child(doc, in, "mass"), te = xml_child(doc, in, "inertia");
            b->inertial = me >= 0;
            b->mass = me >= 0 ? attr_num(&doc->e[me], "value", 0) : 0;
            static const char *const k6[] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
            for (int k = 0; k < 6 && te >= 0; k++) d[k] = attr_num(&doc->e[te], k6[k], 0);
            principal_of(d, b->moments);
        } else {
            b->inertial = true;
            b->mass = attr_num(ie, "mass", 0);
            if (parse_nums(xml_attr(ie, "fullinertia"), d, 6) == 6) {
                principal_of(d, b->moments);
                const double t[9] = {d[0], d[3], d[4], d[3], d[1], d[5], d[4], d[5], d[2]};
                memcpy(b->tensor, t, sizeof t);
                b->full = true;
            } else {
                parse_nums(xml_attr(ie, "diaginertia"), d, 3);
                const double I[9] = {d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]};
                import_eig3(I, b->moments);
            }
        }
    }
    /* A URDF link's parent is the parent link of the joint whose child it is. */
    for (size_t i = 0; urdf && i < doc->n; i++) {
        if (strcmp(doc->e[i].name, "joint") != 0) continue;
        const int pe = xml_child(doc, (int)i, "parent"), ce = xml_child(doc, (int)i, "child");
        const char *pn = pe >= 0 ? xml_attr(&doc->e[pe], "link") : NULL, *cn = ce >= 0 ? xml_attr(&doc->e[ce], "link") : NULL;
        int p = -1, c = -1;
        for (size_t k = 0; k < n && pn && cn; k++) {
            if (out[k].name && strcmp(out[k].name, pn) == 0) p = (int)k;
            if (out[k].name && strcmp(out[k].name, cn) == 0) c = (int)k;
        }
        if (c >= 0) out[c].parent = p;
    }
    free(index);
    return n;
}

/* The compiler settings that can change a mass or an inertia, as the file sets them. */
static void compiler_settings(const xml_doc *doc, char *buf, size_t len)
{
    static const char *const keys[] = {"inertiafromgeom", "balanceinertia", "boundmass", "boundinertia",
                                       "fusestatic", "settotalmass"};
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < doc->n; i++) {
        if (strcmp(doc->e[i].name, "compiler") != 0) continue;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const char *v = xml_attr(&doc->e[i], keys[k]);
            if (v && o + 1 < len) o += (size_t)snprintf(buf + o, len - o, "%s%s=\"%s\"", o ? " " : "", keys[k], v);
        }
    }
}

static bool differs(double a, double b, double scale, double rel) { return fabs(a - b) > rel * scale + 1e-300; }

static bool check_inertias(const mjModel *m, const char *path, sm_import *imp)
{
    xml_doc doc;
    if (!xml_read(path, &doc))
        return import_warn(imp, "could not read the file's own <inertial> values, so MuJoCo's compiled masses and "
                                "inertias are not checked against them");
    const bool urdf = strcmp(doc.e[0].name, "robot") == 0;
    enum { CAP = 4096 };
    file_body *fb = calloc(CAP, sizeof *fb);
    bool ok = fb != NULL;
    const size_t n = ok ? file_bodies(&doc, urdf, fb, CAP) : 0;
    char settings[400], because[460];
    compiler_settings(&doc, settings, sizeof settings);
    snprintf(because, sizeof because, " (%s%s)",
             settings[0] ? "compiler: " : urdf ? "fusestatic, MuJoCo's default for URDF" : "MuJoCo's defaults", settings);
    for (size_t i = 0; ok && i < doc.n; i++)
        if (strcmp(doc.e[i].name, "include") == 0)
            ok = import_warn(imp, "the file includes %s: the masses and inertias of its bodies are MuJoCo's, not "
                                  "checked against the file's", xml_attr(&doc.e[i], "file") ? xml_attr(&doc.e[i], "file") : "another file");
    /* In document order a body's MuJoCo id is its place + 1, unless bodies were fused away. */
    const bool same_order = !urdf && n + 1 == (size_t)m->nbody;
    for (size_t k = 0; ok && k < n; k++) {
        const file_body *b = &fb[k];
        int id = b->name ? mj_name2id(m, mjOBJ_BODY, b->name) : same_order ? (int)k + 1 : -1;
        char label[300];
        if (b->name) snprintf(label, sizeof label, "body %s", b->name);
        else snprintf(label, sizeof label, "body %zu (unnamed)", k + 1);
        if (id < 0) {
            if (!b->name) continue; /* an unnamed body after a fusion: nothing to match it by */
            const file_body *p = b->parent >= 0 ? &fb[b->parent] : NULL;
            if (p && p->name)
                ok = import_warn(imp, "%s (mass %s) was fused into body %s by MuJoCo's compiler%s: "
                                      "its mass and inertia are part of %s's",
                                 label, N(b->mass), p->name, because, p->name);
            else
                ok = import_warn(imp, "%s (mass %s) was fused into the world by MuJoCo's compiler%s: "
                                      "its mass is gone and its sites are not imported (add fusestatic=\"false\" to "
                                      "<compiler> to keep it)",
                                 label, N(b->mass), because);
            continue;
        }
        double cm[3], I[9] = {0};
        for (int a = 0; a < 3; a++) I[4 * a] = m->body_inertia[3 * id + a];
        import_eig3(I, cm);
        const double mass = m->body_mass[id];
        if (!b->inertial) {
            if (mass > 0)
                ok = import_warn(imp, "%s: mass %s and principal moments [%s %s %s] computed by MuJoCo from "
                                      "its geoms (the file gives no <inertial>)",
                                 label, N(mass), N(cm[0]), N(cm[1]), N(cm[2]));
            continue;
        }
        if (differs(mass, b->mass, fabs(b->mass), 1e-12))
            ok = import_warn(imp, "%s: MuJoCo's compiler changed the mass from %s to %s%s; the model file "
                                  "holds MuJoCo's value",
                             label, N(b->mass), N(mass), because);
        /* MuJoCo diagonalises a full inertia only to ~1e-9 relative (see tests/rigid_mjcf.h). */
        const double scale = fmax(fabs(b->moments[2]), fabs(cm[2]));
        bool changed = false;
        for (int a = 0; a < 3; a++) changed |= differs(cm[a], b->moments[a], scale, 1e-8);
        if (ok && changed)
            ok = import_warn(imp, "%s: MuJoCo's compiler changed the principal moments of inertia from [%s %s "
                                  "%s] to [%s %s %s]%s; the model file holds MuJoCo's values",
                             label, N(b->moments[0]), N(b->moments[1]), N(b->moments[2]), N(cm[0]), N(cm[1]), N(cm[2]), because);
        if (ok && !changed && b->full) {
            /* MuJoCo keeps a fullinertia as principal moments and axes, found only to ~1e-9 */
            double R[9], e = 0, s = 0;
            mat_of_quat(m->body_iquat + 4 * id, R);
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    double t = 0;
                    for (int a = 0; a < 3; a++) t += R[3 * r + a] * m->body_inertia[3 * id + a] * R[3 * c + a];
                    e = fmax(e, fabs(t - b->tensor[3 * r + c]));
                    s = fmax(s, fabs(b->tensor[3 * r + c]));
                }
            if (e > 1e-12 * s)
                ok = import_warn(imp, "%s: MuJoCo's principal axes of the fullinertia give the file's tensor back "
                                      "only to %.2g relative; the model file holds MuJoCo's tensor",
                                 label, e / s);
        }
    }
    free(fb);
    xml_free(&doc);
    return ok;
}

/* ---- the conversion ---- */

static bool warn_unsupported(const mjModel *m, sm_import *imp)
{
    bool ok = true;
    char lb[300];
    for (int j = 0; ok && j < m->njnt; j++) {
        const int d = m->jnt_dofadr[j], t = m->jnt_type[j];
        if (m->jnt_limited[j])
            ok = import_warn(imp, "%s: limits [%s, %s] not imported (the format has no joint limits; a lock "
                                  "contact or an event can stand for a stop)",
                             joint_label(m, j, lb, sizeof lb), N(m->jnt_range[2 * j]), N(m->jnt_range[2 * j + 1]));
        if (ok && m->dof_armature[d] != 0)
            ok = import_warn(imp, "%s: armature %s not imported (MuJoCo adds it to M's diagonal; the format has no "
                                  "armature)",
                             joint_label(m, j, lb, sizeof lb), N(m->dof_armature[d]));
        if (ok && m->dof_frictionloss[d] != 0)
            ok = import_warn(imp, "%s: friction loss %s not imported", joint_label(m, j, lb, sizeof lb),
                             N(m->dof_frictionloss[d]));
        if (ok && (t == mjJNT_BALL || t == mjJNT_FREE) && (m->jnt_stiffness[j] != 0 || m->dof_damping[d] != 0))
            ok = import_warn(imp, "%s: stiffness %s and damping %s not imported (forces act on hinges and "
                                  "slides only)",
                             joint_label(m, j, lb, sizeof lb), N(m->jnt_stiffness[j]), N(m->dof_damping[d]));
    }
    int contacting = 0;
    for (int g = 0; g < m->ngeom; g++) contacting += m->geom_contype[g] || m->geom_conaffinity[g];
    if (ok && contacting)
        ok = import_warn(imp, "%d geoms with contacts not imported: declare the walker's contacts (pin, slide, roll) "
                              "on sites",
                         contacting);
    if (ok && m->nu) ok = import_warn(imp, "%d actuators not imported (constant torques go in forces:)", m->nu);
    if (ok && m->ntendon) ok = import_warn(imp, "%d tendons not imported", m->ntendon);
    if (ok && m->neq) ok = import_warn(imp, "%d equality constraints not imported", m->neq);
    if (ok && (m->opt.density != 0 || m->opt.viscosity != 0))
        ok = import_warn(imp, "fluid forces (density %s, viscosity %s) not imported", N(m->opt.density),
                         N(m->opt.viscosity));
    if (ok && (m->opt.disableflags & mjDSBL_GRAVITY))
        ok = import_warn(imp, "MuJoCo's gravity is disabled in the file: gravity 0 imported");
    for (int s = 0; ok && s < m->nsite; s++)
        if (m->site_bodyid[s] == 0) {
            char b[64];
            ok = import_warn(imp, "site %s is on the world, not on a body: not imported",
                             obj_name(m, mjOBJ_SITE, s, b, sizeof b, "site"));
        }
    for (int i = 1; ok && i < m->nbody; i++)
        if (m->body_mocapid[i] >= 0) {
            char b[64];
            ok = import_warn(imp, "body %s is a mocap body: imported as fixed to its parent",
                             obj_name(m, mjOBJ_BODY, i, b, sizeof b, "body"));
        }
    return ok;
}

/* Fills imp from m; false when out of memory. */
static bool convert(const mjModel *m, sm_import *imp)
{
    const size_t cap = (size_t)m->nbody + (size_t)m->njnt;
    imp->bodies = calloc(cap, sizeof *imp->bodies);
    imp->joint_names = calloc(cap, sizeof *imp->joint_names);
    imp->sites = calloc((size_t)m->nsite + 1, sizeof *imp->sites);
    imp->springs = calloc((size_t)m->njnt + 1, sizeof *imp->springs);
    imp->qpos0 = calloc((size_t)m->nq + 1, sizeof *imp->qpos0);
    int *last = calloc((size_t)m->nbody, sizeof *last), *jbody = calloc((size_t)m->njnt + 1, sizeof *jbody);
    double *shift = calloc(3 * (size_t)m->nbody, sizeof *shift);
    const char **taken = calloc(cap + (size_t)m->nsite + 1, sizeof *taken);
    bool ok = imp->bodies && imp->joint_names && imp->sites && imp->springs && imp->qpos0 && last && jbody && shift && taken;
    if (ok) {
        memcpy(imp->qpos0, m->qpos0, (size_t)m->nq * sizeof *imp->qpos0);
        imp->nq = (size_t)m->nq;
        mju_copy3(imp->gravity, m->opt.gravity);
        if (m->opt.disableflags & mjDSBL_GRAVITY) mju_zero3(imp->gravity);
        last[0] = -1;
    }
    for (int i = 1; ok && i < m->nbody; i++) {
        const int pid = m->body_parentid[i], nj = m->body_jntnum[i], ja = m->body_jntadr[i];
        char nb[64];
        const char *bname = obj_name(m, mjOBJ_BODY, i, nb, sizeof nb, "body");
        /* Points of the parent's MuJoCo frame are in our parent's frame less the parent's shift. */
        double base_pos[3], base_quat[4];
        mju_sub3(base_pos, m->body_pos + 3 * i, shift + 3 * pid);
        mju_copy4(base_quat, m->body_quat + 4 * i);
        int parent = last[pid];
        double prev_anchor[3] = {0, 0, 0};
        const bool is_free = nj == 1 && m->jnt_type[ja] == mjJNT_FREE;
        for (int k = 0; ok && k < (nj ? nj : 1); k++) {
            sm_rigid_body_def *b = &imp->bodies[imp->nbody];
            const int j = ja + k;
            b->parent = parent;
            b->quat[0] = 1;
            if (nj == 0) {
                b->joint = SM_RIGID_FIXED;
                mju_copy3(b->pos, base_pos);
                mju_copy4(b->quat, base_quat);
            } else if (is_free) {
                /* at the world origin, unrotated: q is MuJoCo's world position and quaternion */
                b->joint = SM_RIGID_FREE;
                jbody[j] = (int)imp->nbody;
            } else {
                const int t = m->jnt_type[j];
                b->joint = t == mjJNT_HINGE ? SM_RIGID_HINGE : t == mjJNT_SLIDE ? SM_RIGID_SLIDE : SM_RIGID_BALL;
                mju_copy3(b->axis, m->jnt_axis + 3 * j);
                double d[3];
                mju_sub3(d, m->jnt_pos + 3 * j, prev_anchor);
                mju_copy3(prev_anchor, m->jnt_pos + 3 * j);
                if (k == 0) {
                    rot(base_quat, d, b->pos);
                    mju_addTo3(b->pos, base_pos);
                    mju_copy4(b->quat, base_quat);
                } else {
                    mju_copy3(b->pos, d);
                }
                /* MuJoCo turns a hinge by qpos - ref and moves a slide by qpos - ref: fold ref into the frame */
                const double ref = m->qpos0[m->jnt_qposadr[j]];
                if (t == mjJNT_HINGE && ref != 0) {
                    double qr[4], out[4];
                    mju_axisAngle2Quat(qr, b->axis, -ref);
                    mju_mulQuat(out, b->quat, qr);
                    mju_copy4(b->quat, out);
                } else if (t == mjJNT_SLIDE && ref != 0) {
                    double a[3];
                    rot(b->quat, b->axis, a);
                    mju_addToScl3(b->pos, a, -ref);
                }
                jbody[j] = (int)imp->nbody;
            }
            const bool body_itself = k == (nj ? nj : 1) - 1;
            char jn[600];
            const char *jname = nj ? mj_id2name(m, mjOBJ_JOINT, j) : NULL;
            if (!body_itself) {
                if (jname && *jname) snprintf(jn, sizeof jn, "%s", jname);
                else snprintf(jn, sizeof jn, "%s_j%d", bname, k + 1);
            }
            b->name = unique(body_itself ? bname : jn, taken, imp->nbody);
            ok = b->name != NULL;
            if (ok && jname && *jname) ok = (imp->joint_names[imp->nbody] = strdup(jname)) != NULL;
            if (ok) taken[imp->nbody] = b->name;
            parent = (int)imp->nbody++;
        }
        if (!ok) break;
        last[i] = parent;
        if (!is_free) mju_copy3(shift + 3 * i, prev_anchor);
        sm_rigid_body_def *b = &imp->bodies[parent];
        b->mass = m->body_mass[i];
        mju_sub3(b->com, m->body_ipos + 3 * i, shift + 3 * i);
        double R[9];
        mat_of_quat(m->body_iquat + 4 * i, R);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double t = 0;
                for (int a = 0; a < 3; a++) t += R[3 * r + a] * m->body_inertia[3 * i + a] * R[3 * c + a];
                b->inertia[3 * r + c] = t;
            }
    }
    for (int s = 0; ok && s < m->nsite; s++) {
        const int bid = m->site_bodyid[s];
        if (bid == 0) continue;
        sm_rigid_site_def *d = &imp->sites[imp->nsite];
        char nb[64];
        d->body = last[bid];
        mju_sub3(d->pos, m->site_pos + 3 * s, shift + 3 * bid);
        d->name = unique(obj_name(m, mjOBJ_SITE, s, nb, sizeof nb, "site"), taken + cap, imp->nsite);
        ok = d->name != NULL;
        if (ok) taken[cap + imp->nsite++] = d->name;
    }
    for (int j = 0; ok && j < m->njnt; j++) {
        const int t = m->jnt_type[j], d = m->jnt_dofadr[j];
        if ((t != mjJNT_HINGE && t != mjJNT_SLIDE) || (m->jnt_stiffness[j] == 0 && m->dof_damping[d] == 0)) continue;
        sm_import_spring *sp = &imp->springs[imp->nspring];
        sp->body = jbody[j];
        sp->stiffness = m->jnt_stiffness[j];
        sp->damping = m->dof_damping[d];
        sp->rest = m->qpos_spring[m->jnt_qposadr[j]];
        const char *jname = mj_id2name(m, mjOBJ_JOINT, j);
        char buf[600];
        snprintf(buf, sizeof buf, "%s%s", jname && *jname ? jname : imp->bodies[sp->body].name,
                 jname && *jname ? "" : "_spring");
        sp->name = strdup(buf);
        ok = sp->name != NULL;
        if (ok) imp->nspring++;
    }
    free(last);
    free(jbody);
    free(shift);
    free(taken);
    return ok;
}

/* The registry key: MuJoCo's model name (first in its name buffer) unless it
 * is MuJoCo's default, else the file's name without extension; letters,
 * digits, '_' and '-' only. */
static char *model_name(const mjModel *m, const char *path)
{
    char *s;
    if (m->names[0] && strcmp(m->names, "MuJoCo Model") != 0) {
        s = strdup(m->names);
    } else {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strrchr(base, '.');
        s = strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
    }
    for (char *c = s; c && *c; c++)
        if (!(*c == '_' || *c == '-' || (*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z')))
            *c = '_';
    return s;
}

sm_status sm_import_mjcf(const char *path, sm_import **out, char *why, size_t why_len)
{
    *out = NULL;
    char msg[1024] = "";
    struct stat st;
    FILE *probe = fopen(path, "r");
    if (!probe || stat(path, &st) != 0 || S_ISDIR(st.st_mode)) {
        const int e = probe ? EISDIR : errno;
        if (probe) fclose(probe);
        if (why && why_len) snprintf(why, why_len, "cannot read %s: %s", path, strerror(e));
        return SM_IO_ERROR;
    }
    fclose(probe);
    if (!mujoco_dl_open(&mujoco, msg, sizeof msg)) {
        if (why && why_len) snprintf(why, why_len, "cannot import %s: %s", path, msg);
        return SM_UNAVAILABLE;
    }

    void (*old_error)(const char *) = mju_user_error, (*old_warning)(const char *) = mju_user_warning;
    mju_user_error = on_error;
    mju_user_warning = on_warning;
    first_error[0] = first_warning[0] = '\0';
    mjModel *m = mj_loadXML(path, NULL, msg, sizeof msg);
    mju_user_error = old_error;
    mju_user_warning = old_warning;
    if (!m || first_error[0]) {
        if (!msg[0]) snprintf(msg, sizeof msg, "%s", first_error[0] ? first_error : "MuJoCo could not load it");
        one_line(msg, sizeof msg);
        /* balanceinertia, which MuJoCo suggests, would change the moments a planar walker needs */
        const char *hint = strstr(msg, "A + B >= C") ? " (a planar body's out-of-plane moments may be any that "
                                                         "MuJoCo accepts, e.g. diaginertia=\"I I I\", and set to 0 in "
                                                         "the model file afterwards)"
                                                       : "";
        if (why && why_len) snprintf(why, why_len, "%s: MuJoCo refuses it: %s%s", path, msg, hint);
        if (m) mj_deleteModel(m);
        mujoco_dl_close(&mujoco);
        return SM_BAD_DATA;
    }
    sm_import *imp = calloc(1, sizeof *imp);
    bool ok = imp && (imp->name = model_name(m, path)) != NULL;
    if (ok && msg[0]) {
        one_line(msg, sizeof msg);
        ok = import_warn(imp, "MuJoCo: %s", msg);
    }
    if (ok && first_warning[0]) {
        one_line(first_warning, sizeof first_warning);
        ok = import_warn(imp, "MuJoCo: %s", first_warning);
    }
    ok = ok && convert(m, imp) && check_inertias(m, path, imp) && warn_unsupported(m, imp);
    mj_deleteModel(m);
    mujoco_dl_close(&mujoco);
    if (!ok) {
        sm_import_free(imp);
        if (why && why_len) snprintf(why, why_len, "out of memory importing %s", path);
        return SM_NO_MEMORY;
    }
    *out = imp;
    return SM_OK;
}
