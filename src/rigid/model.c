/* Building and validating a rigid-body tree (conventions in stridemap/rigid.h).
 *
 * Each body's spatial inertia about its link origin is formed once here
 * (Featherstone 2008, eq. 2.63):  I = [Ic + m c̃ c̃ᵀ, m c̃; m c̃ᵀ, m 1₃],
 * with c the centre of mass and c̃ its cross-product matrix. */
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

void sm_rigid_quat_to_mat(const double *q, double *R)
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y - w * z);
    R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);
    R[7] = 2 * (y * z + w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}

static sm_status fail(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg && msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return SM_BAD_PARAM;
}

static bool all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

/* A symmetric 3x3 is PSD iff all its principal minors are >= 0; a relative
 * tolerance keeps a rounded planar inertia (a zero eigenvalue) acceptable. */
static bool inertia_ok(const double *I)
{
    double s = fabs(I[0]) + fabs(I[4]) + fabs(I[8]) + 1e-300;
    double tol = 1e-12 * s;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            if (fabs(I[3 * i + j] - I[3 * j + i]) > tol) return false;
    if (I[0] < -tol || I[4] < -tol || I[8] < -tol) return false;
    double m01 = I[0] * I[4] - I[1] * I[3], m02 = I[0] * I[8] - I[2] * I[6], m12 = I[4] * I[8] - I[5] * I[7];
    if (m01 < -tol * s || m02 < -tol * s || m12 < -tol * s) return false;
    double det = I[0] * m12 - I[1] * (I[3] * I[8] - I[5] * I[6]) + I[2] * (I[3] * I[7] - I[4] * I[6]);
    return det >= -tol * s * s;
}

static const char *body_label(const sm_rigid_body_def *b, size_t i, char *buf, size_t n)
{
    if (b->name && b->name[0]) snprintf(buf, n, "'%s'", b->name);
    else snprintf(buf, n, "#%zu", i);
    return buf;
}

static sm_status validate(const sm_rigid_body_def *bodies, size_t nbody, const sm_rigid_site_def *sites,
                          size_t nsite, const double *gravity, char *msg, size_t msglen)
{
    char lb[96];
    if (!bodies && nbody) return fail(msg, msglen, "rigid tree: bodies is NULL");
    if (!sites && nsite) return fail(msg, msglen, "rigid tree: sites is NULL");
    if (!gravity || !all_finite(gravity, 3))
        return fail(msg, msglen, "rigid tree: gravity must be three finite numbers");
    for (size_t i = 0; i < nbody; i++) {
        const sm_rigid_body_def *b = &bodies[i];
        const char *l = body_label(b, i, lb, sizeof lb);
        if (b->parent < -1 || b->parent >= (int)i)
            return fail(msg, msglen,
                        "body %s: parent %d is not an earlier body (use -1 for the world, or list parents first)",
                        l, b->parent);
        if ((unsigned)b->joint > SM_RIGID_FREE) return fail(msg, msglen, "body %s: unknown joint type %d", l, (int)b->joint);
        if (!all_finite(b->pos, 3) || !all_finite(b->quat, 4) || !all_finite(b->axis, 3) || !all_finite(b->com, 3)
            || !all_finite(b->inertia, 9) || !isfinite(b->mass))
            return fail(msg, msglen, "body %s: a position, quaternion, axis, mass or inertia is not finite", l);
        if (b->quat[0] == 0 && b->quat[1] == 0 && b->quat[2] == 0 && b->quat[3] == 0)
            return fail(msg, msglen, "body %s: quat is zero (the identity is 1 0 0 0)", l);
        if ((b->joint == SM_RIGID_HINGE || b->joint == SM_RIGID_SLIDE)
            && b->axis[0] == 0 && b->axis[1] == 0 && b->axis[2] == 0)
            return fail(msg, msglen, "body %s: joint axis is zero (give a direction)", l);
        if (b->mass < 0) return fail(msg, msglen, "body %s: mass %g is negative", l, b->mass);
        if (!inertia_ok(b->inertia))
            return fail(msg, msglen, "body %s: inertia is not symmetric positive semi-definite", l);
        if (b->name && b->name[0])
            for (size_t j = 0; j < i; j++)
                if (bodies[j].name && strcmp(bodies[j].name, b->name) == 0)
                    return fail(msg, msglen, "body %s: name used twice", l);
    }
    for (size_t s = 0; s < nsite; s++) {
        const char *nm = sites[s].name ? sites[s].name : "";
        if (sites[s].body < 0 || (size_t)sites[s].body >= nbody)
            return fail(msg, msglen, "site '%s': body %d does not exist (0..%zu)", nm, sites[s].body,
                        nbody ? nbody - 1 : 0);
        if (!all_finite(sites[s].pos, 3)) return fail(msg, msglen, "site '%s': position is not finite", nm);
        if (nm[0])
            for (size_t j = 0; j < s; j++)
                if (sites[j].name && strcmp(sites[j].name, nm) == 0)
                    return fail(msg, msglen, "site '%s': name used twice", nm);
    }
    return SM_OK;
}

/* The model is one block (struct, arrays, names) so that a copy is a memcpy
 * and a fix-up of its pointers (memory.c). */
void sm_rigid_model_free(sm_rigid_model *m) { free(m); }

void sm_rigid_spatial_inertia(double mass, const double *c, const double *Ic, double *I6)
{
    /* c̃ c̃ᵀ = |c|² 1 − c cᵀ */
    double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    double cx[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            I6[6 * i + j] = Ic[3 * i + j] + mass * ((i == j ? cc : 0.0) - c[i] * c[j]);
            I6[6 * i + 3 + j] = mass * cx[3 * i + j];
            I6[6 * (3 + i) + j] = mass * cx[3 * j + i];
            I6[6 * (3 + i) + 3 + j] = i == j ? mass : 0.0;
        }
}

sm_status sm_rigid_model_create(const sm_rigid_body_def *bodies, size_t nbody,
                                const sm_rigid_site_def *sites, size_t nsite,
                                const double gravity[3], sm_rigid_model **out,
                                char *msg, size_t msglen)
{
    if (msg && msglen) msg[0] = '\0';
    if (!out) return fail(msg, msglen, "rigid tree: out is NULL");
    *out = NULL;
    sm_status st = validate(bodies, nbody, sites, nsite, gravity, msg, msglen);
    if (st != SM_OK) return st;

    size_t nlink = nbody;
    for (size_t i = 0; i < nbody; i++)
        if (bodies[i].joint == SM_RIGID_FREE) nlink++;
    size_t namelen = 0;
    for (size_t i = 0; i < nbody; i++) namelen += (bodies[i].name ? strlen(bodies[i].name) : 0) + 1;
    for (size_t i = 0; i < nsite; i++) namelen += (sites[i].name ? strlen(sites[i].name) : 0) + 1;
    size_t bytes = sm_rigid_model_layout(NULL, nlink, nbody, nsite, namelen);
    sm_rigid_model *m = calloc(1, bytes);
    if (!m) return SM_NO_MEMORY;
    sm_rigid_model_layout(m, nlink, nbody, nsite, namelen);
    m->nbody = nbody;
    m->nlink = nlink;
    m->nsite = nsite;
    char *pool = m->names;
    memcpy(m->gravity, gravity, sizeof m->gravity);

    size_t L = 0, nq = 0, nv = 0;
    for (size_t i = 0; i < nbody; i++) {
        const sm_rigid_body_def *b = &bodies[i];
        int par = b->parent < 0 ? -1 : (int)m->body_link[b->parent];
        double Rt[9];
        sm_rigid_quat_to_mat(b->quat, Rt);
        double ET[9] = {Rt[0], Rt[3], Rt[6], Rt[1], Rt[4], Rt[7], Rt[2], Rt[5], Rt[8]};
        if (b->joint == SM_RIGID_FREE) {
            /* the massless translation link, in the frame pos/quat define */
            m->parent[L] = par;
            m->kind[L] = LINK_TRANS;
            m->qadr[L] = nq;
            m->vadr[L] = nv;
            m->nd[L] = 3;
            memcpy(m->ET + 9 * L, ET, sizeof ET);
            memcpy(m->rT + 3 * L, b->pos, 3 * sizeof(double));
            for (int k = 0; k < 3; k++) m->S[18 * L + 3 * (3 + k) + k] = 1.0;
            nq += 3;
            nv += 3;
            par = (int)L;
            L++;
            m->ET[9 * L] = m->ET[9 * L + 4] = m->ET[9 * L + 8] = 1.0;
            m->kind[L] = LINK_BALL;
        } else {
            memcpy(m->ET + 9 * L, ET, sizeof ET);
            memcpy(m->rT + 3 * L, b->pos, 3 * sizeof(double));
            m->kind[L] = b->joint == SM_RIGID_HINGE ? LINK_HINGE
                       : b->joint == SM_RIGID_SLIDE ? LINK_SLIDE
                       : b->joint == SM_RIGID_BALL  ? LINK_BALL
                                                    : LINK_FIXED;
        }
        m->parent[L] = par;
        m->qadr[L] = nq;
        m->vadr[L] = nv;
        double *S = m->S + 18 * L;
        if (m->kind[L] == LINK_HINGE || m->kind[L] == LINK_SLIDE) {
            double a = sqrt(b->axis[0] * b->axis[0] + b->axis[1] * b->axis[1] + b->axis[2] * b->axis[2]);
            int off = m->kind[L] == LINK_HINGE ? 0 : 3;
            for (int k = 0; k < 3; k++) S[3 * (off + k)] = b->axis[k] / a;
            m->nd[L] = 1;
            nq += 1;
            nv += 1;
        } else if (m->kind[L] == LINK_BALL) {
            for (int k = 0; k < 3; k++) S[3 * k + k] = 1.0;
            m->nd[L] = 3;
            nq += 4;
            nv += 3;
        }
        m->mass[L] = b->mass;
        memcpy(m->com + 3 * L, b->com, 3 * sizeof(double));
        memcpy(m->Icom + 9 * L, b->inertia, 9 * sizeof(double));
        sm_rigid_spatial_inertia(b->mass, b->com, b->inertia, m->I6 + 36 * L);
        m->body_link[i] = L;
        m->body_name[i] = pool;
        pool = stpcpy(pool, b->name ? b->name : "") + 1;
        L++;
    }
    m->nq = nq;
    m->nv = nv;
    for (size_t s = 0; s < nsite; s++) {
        m->site_link[s] = m->body_link[sites[s].body];
        memcpy(m->site_pos + 3 * s, sites[s].pos, 3 * sizeof(double));
        m->site_name[s] = pool;
        pool = stpcpy(pool, sites[s].name ? sites[s].name : "") + 1;
    }
    sm_rigid_planar_setup(m);
    *out = m;
    return SM_OK;
}

bool sm_rigid_is_planar(const sm_rigid_model *m) { return m->planar; }

bool sm_rigid_use_planar(sm_rigid_model *m, bool on)
{
    m->use_planar = on && m->planar;
    return m->use_planar;
}

size_t sm_rigid_nq(const sm_rigid_model *m) { return m->nq; }
size_t sm_rigid_nv(const sm_rigid_model *m) { return m->nv; }
size_t sm_rigid_nbody(const sm_rigid_model *m) { return m->nbody; }
size_t sm_rigid_nsite(const sm_rigid_model *m) { return m->nsite; }

int sm_rigid_site_index(const sm_rigid_model *m, const char *name)
{
    for (size_t i = 0; name && i < m->nsite; i++)
        if (strcmp(m->site_name[i], name) == 0) return (int)i;
    return -1;
}

int sm_rigid_body_index(const sm_rigid_model *m, const char *name)
{
    for (size_t i = 0; name && i < m->nbody; i++)
        if (strcmp(m->body_name[i], name) == 0) return (int)i;
    return -1;
}

/* A free joint's first coordinates live on its translation link, one before the body's. */
static size_t first_link(const sm_rigid_model *m, size_t body)
{
    size_t L = m->body_link[body];
    return (L > 0 && m->kind[L - 1] == LINK_TRANS && m->parent[L] == (int)(L - 1)) ? L - 1 : L;
}

size_t sm_rigid_body_qadr(const sm_rigid_model *m, size_t body) { return m->qadr[first_link(m, body)]; }
size_t sm_rigid_body_vadr(const sm_rigid_model *m, size_t body) { return m->vadr[first_link(m, body)]; }

void sm_rigid_q_neutral(const sm_rigid_model *m, double *q)
{
    memset(q, 0, m->nq * sizeof *q);
    for (size_t L = 0; L < m->nlink; L++)
        if (m->kind[L] == LINK_BALL) q[m->qadr[L]] = 1.0;
}

void sm_rigid_integrate_q(const sm_rigid_model *m, const double *q, const double *v, double h, double *qout)
{
    for (size_t L = 0; L < m->nlink; L++) {
        size_t qa = m->qadr[L], va = m->vadr[L];
        switch (m->kind[L]) {
        case LINK_HINGE:
        case LINK_SLIDE: qout[qa] = q[qa] + h * v[va]; break;
        case LINK_TRANS:
            for (int k = 0; k < 3; k++) qout[qa + k] = q[qa + k] + h * v[va + k];
            break;
        case LINK_BALL: {
            /* q ⊗ exp(h ω / 2): ω is in the body frame, so it multiplies on the right */
            const double *w = v + va;
            double th = h * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
            double c = cos(0.5 * th), s = th > 0 ? sin(0.5 * th) / th * h : 0.5 * h;
            double e[4] = {c, s * w[0], s * w[1], s * w[2]};
            double a0 = q[qa], a1 = q[qa + 1], a2 = q[qa + 2], a3 = q[qa + 3];
            qout[qa] = a0 * e[0] - a1 * e[1] - a2 * e[2] - a3 * e[3];
            qout[qa + 1] = a0 * e[1] + a1 * e[0] + a2 * e[3] - a3 * e[2];
            qout[qa + 2] = a0 * e[2] - a1 * e[3] + a2 * e[0] + a3 * e[1];
            qout[qa + 3] = a0 * e[3] + a1 * e[2] - a2 * e[1] + a3 * e[0];
            break;
        }
        case LINK_FIXED: break;
        }
    }
}

sm_rigid_data *sm_rigid_data_create(const sm_rigid_model *m)
{
    size_t bytes = sm_rigid_data_bytes(m);
    void *mem = malloc(bytes);
    return mem ? sm_rigid_data_init(m, mem, bytes) : NULL;
}

void sm_rigid_data_free(sm_rigid_data *d) { free(d); }
