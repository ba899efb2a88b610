/* A model and its data on caller memory: each is one block (the struct at
 * its start, then its arrays, then the names), so a copy of a model is a
 * memcpy and a shift of every internal pointer by the distance between the
 * blocks, and neither needs malloc.  A copy's masses, centres of mass,
 * inertias, body and site positions and gravity can be changed (how a model
 * file's parameters reach the core); its joints cannot, so the planar fast
 * path's choice stays valid and only its derived constants are redone. */
#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rigid_internal.h"

#define ALIGN alignof(max_align_t)

static size_t up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

static void *align_mem(void *mem) { return (void *)(((uintptr_t)mem + ALIGN - 1) / ALIGN * ALIGN); }

/* Hands out aligned pieces of a block; with base NULL it only measures. */
typedef struct {
    unsigned char *base;
    size_t off;
} carve;
static void *take(carve *c, size_t bytes)
{
    size_t at = up(c->off);
    c->off = at + (bytes ? bytes : 1);
    return c->base ? c->base + at : NULL;
}

size_t sm_rigid_model_layout(sm_rigid_model *m, size_t nlink, size_t nbody, size_t nsite, size_t namelen)
{
    carve c = {(unsigned char *)m, 0};
    sm_rigid_model tmp, *t = m ? m : &tmp;
    take(&c, sizeof *t);
    t->parent = take(&c, nlink * sizeof *t->parent);
    t->kind = take(&c, nlink * sizeof *t->kind);
    t->qadr = take(&c, nlink * sizeof *t->qadr);
    t->vadr = take(&c, nlink * sizeof *t->vadr);
    t->nd = take(&c, nlink * sizeof *t->nd);
    t->ET = take(&c, 9 * nlink * sizeof(double));
    t->rT = take(&c, 3 * nlink * sizeof(double));
    t->S = take(&c, 18 * nlink * sizeof(double));
    t->I6 = take(&c, 36 * nlink * sizeof(double));
    t->mass = take(&c, nlink * sizeof(double));
    t->com = take(&c, 3 * nlink * sizeof(double));
    t->Icom = take(&c, 9 * nlink * sizeof(double));
    t->body_link = take(&c, nbody * sizeof *t->body_link);
    t->body_name = take(&c, nbody * sizeof *t->body_name);
    t->site_link = take(&c, nsite * sizeof *t->site_link);
    t->site_pos = take(&c, 3 * nsite * sizeof(double));
    t->site_name = take(&c, nsite * sizeof *t->site_name);
    t->pl_R0 = take(&c, 9 * nlink * sizeof(double));
    t->pl_sgn = take(&c, nlink * sizeof(double));
    t->pl_rT = take(&c, 3 * nlink * sizeof(double));
    t->pl_dir = take(&c, 2 * nlink * sizeof(double));
    t->pl_com = take(&c, 3 * nlink * sizeof(double));
    t->pl_In = take(&c, nlink * sizeof(double));
    t->pl_site = take(&c, 3 * nsite * sizeof(double));
    t->pl_Rc = take(&c, 27 * nlink * sizeof(double));
    t->names = take(&c, namelen);
    size_t bytes = up(c.off);
    if (m) m->bytes = bytes;
    return bytes;
}

size_t sm_rigid_model_bytes(const sm_rigid_model *m) { return m->bytes + ALIGN; }

#define SHIFT(p, delta) ((p) = (void *)((uintptr_t)(p) + (delta)))

sm_rigid_model *sm_rigid_model_view(const sm_rigid_model *m, void *mem, size_t bytes)
{
    if (!m || !mem || bytes < sm_rigid_model_bytes(m)) return NULL;
    sm_rigid_model *c = align_mem(mem);
    *c = *m;
    return c;
}

sm_rigid_model *sm_rigid_model_copy(const sm_rigid_model *m, void *mem, size_t bytes)
{
    if (!m || !mem || bytes < sm_rigid_model_bytes(m)) return NULL;
    sm_rigid_model *c = align_mem(mem);
    memcpy(c, m, m->bytes);
    uintptr_t delta = (uintptr_t)c - (uintptr_t)m;
    SHIFT(c->parent, delta);
    SHIFT(c->kind, delta);
    SHIFT(c->qadr, delta);
    SHIFT(c->vadr, delta);
    SHIFT(c->nd, delta);
    SHIFT(c->ET, delta);
    SHIFT(c->rT, delta);
    SHIFT(c->S, delta);
    SHIFT(c->I6, delta);
    SHIFT(c->mass, delta);
    SHIFT(c->com, delta);
    SHIFT(c->Icom, delta);
    SHIFT(c->body_link, delta);
    SHIFT(c->body_name, delta);
    SHIFT(c->site_link, delta);
    SHIFT(c->site_pos, delta);
    SHIFT(c->site_name, delta);
    SHIFT(c->pl_R0, delta);
    SHIFT(c->pl_sgn, delta);
    SHIFT(c->pl_rT, delta);
    SHIFT(c->pl_dir, delta);
    SHIFT(c->pl_com, delta);
    SHIFT(c->pl_In, delta);
    SHIFT(c->pl_site, delta);
    SHIFT(c->pl_Rc, delta);
    SHIFT(c->names, delta);
    for (size_t i = 0; i < c->nbody; i++) SHIFT(c->body_name[i], delta);
    for (size_t i = 0; i < c->nsite; i++) SHIFT(c->site_name[i], delta);
    return c;
}

/* The planar constants derive from the masses and positions: redo them,
 * keeping a forced choice of the 3-D sweeps. */
static void replan(sm_rigid_model *m)
{
    bool use = m->use_planar;
    if (m->planar) {
        sm_rigid_planar_setup(m);
        m->use_planar = use;
    }
}

sm_status sm_rigid_body_set(sm_rigid_model *m, size_t body, const sm_rigid_body_def *def, char *msg,
                            size_t msglen)
{
    if (msg && msglen) msg[0] = '\0';
    if (body >= m->nbody) {
        if (msg && msglen) snprintf(msg, msglen, "body #%zu does not exist (0..%zu)", body, m->nbody ? m->nbody - 1 : 0);
        return SM_BAD_PARAM;
    }
    const double *I = def->inertia;
    bool finite = isfinite(def->mass);
    for (int k = 0; k < 9; k++) finite = finite && isfinite(I[k]);
    for (int k = 0; k < 3; k++) finite = finite && isfinite(def->com[k]) && isfinite(def->pos[k]);
    double s = fabs(I[0]) + fabs(I[4]) + fabs(I[8]), tol = 1e-12 * s;
    double m01 = I[0] * I[4] - I[1] * I[3], m02 = I[0] * I[8] - I[2] * I[6], m12 = I[4] * I[8] - I[5] * I[7];
    double det = I[0] * m12 - I[1] * (I[3] * I[8] - I[5] * I[6]) + I[2] * (I[3] * I[7] - I[4] * I[6]);
    bool psd = fabs(I[1] - I[3]) <= tol && fabs(I[2] - I[6]) <= tol && fabs(I[5] - I[7]) <= tol && I[0] >= -tol
            && I[4] >= -tol && I[8] >= -tol && m01 >= -tol * s && m02 >= -tol * s && m12 >= -tol * s
            && det >= -tol * s * s;
    if (!finite || def->mass < 0 || !psd) {
        if (msg && msglen)
            snprintf(msg, msglen, "body '%s': %s", m->body_name[body],
                     !finite ? "a mass, centre of mass, inertia or position is not finite"
                     : def->mass < 0 ? "mass is negative"
                                     : "inertia is not symmetric positive semi-definite");
        return SM_BAD_PARAM;
    }
    size_t L = m->body_link[body];
    /* a free joint's position belongs to its translation link */
    size_t Lp = (L > 0 && m->kind[L - 1] == LINK_TRANS && m->parent[L] == (int)(L - 1)) ? L - 1 : L;
    memcpy(m->rT + 3 * Lp, def->pos, 3 * sizeof(double));
    m->mass[L] = def->mass;
    memcpy(m->com + 3 * L, def->com, 3 * sizeof(double));
    memcpy(m->Icom + 9 * L, def->inertia, 9 * sizeof(double));
    sm_rigid_spatial_inertia(def->mass, def->com, def->inertia, m->I6 + 36 * L);
    replan(m);
    return SM_OK;
}

void sm_rigid_site_set(sm_rigid_model *m, size_t site, const double pos[3])
{
    if (site >= m->nsite) return;
    memcpy(m->site_pos + 3 * site, pos, 3 * sizeof(double));
    replan(m);
}

void sm_rigid_gravity_set(sm_rigid_model *m, const double g[3]) { memcpy(m->gravity, g, sizeof m->gravity); }

/* The data: the struct, then one array of doubles cut into its pieces. */
enum { DATA_DOUBLES = 9 + 3 + 9 + 3 + 6 + 6 + 6 + 36 + 1 + 1 + 3 + 2 + 2 + 2 };

size_t sm_rigid_data_bytes(const sm_rigid_model *m)
{
    size_t n = m->nlink ? m->nlink : 1;
    return up(sizeof(sm_rigid_data)) + n * DATA_DOUBLES * sizeof(double) + ALIGN;
}

sm_rigid_data *sm_rigid_data_init(const sm_rigid_model *m, void *mem, size_t bytes)
{
    if (!m || !mem || bytes < sm_rigid_data_bytes(m)) return NULL;
    size_t n = m->nlink ? m->nlink : 1;
    sm_rigid_data *d = align_mem(mem);
    /* not zeroed: the forward sweep writes every piece before anything
     * reads it (rigid.h), and a body walker's callbacks set up a data block
     * on the stack at every call, where zeroing its 2-3 KB cost as much as
     * the sweep itself */
    double *blk = (double *)((unsigned char *)d + up(sizeof *d));
    d->E = blk;
    d->r = d->E + 9 * n;
    d->R = d->r + 3 * n;
    d->p = d->R + 9 * n;
    d->v = d->p + 3 * n;
    d->a0 = d->v + 6 * n;
    d->f = d->a0 + 6 * n;
    d->Ic = d->f + 6 * n;
    d->th = d->Ic + 36 * n;
    d->thd = d->th + n;
    d->pp = d->thd + n;
    d->pv = d->pp + 3 * n;
    d->pa = d->pv + 2 * n;
    d->cs = d->pa + 2 * n;
    d->poses_pending = false;
    return d;
}

/* th, thd, pp (3), pa (2), cs (2) a link: what the pinned path reads. */
enum { PINNED_DOUBLES = 1 + 1 + 3 + 2 + 2 };

size_t sm_rigid_pinned_data_bytes(const sm_rigid_model *m)
{
    size_t n = m->nlink ? m->nlink : 1;
    return up(sizeof(sm_rigid_data)) + n * PINNED_DOUBLES * sizeof(double) + ALIGN;
}

sm_rigid_data *sm_rigid_pinned_data_init(const sm_rigid_model *m, void *mem, size_t bytes)
{
    if (!m || !m->use_planar || !mem || bytes < sm_rigid_pinned_data_bytes(m)) return NULL;
    size_t n = m->nlink ? m->nlink : 1;
    sm_rigid_data *d = align_mem(mem);
    double *blk = (double *)((unsigned char *)d + up(sizeof *d));
    d->E = d->r = d->R = d->p = d->v = d->a0 = d->f = d->Ic = d->pv = NULL;
    d->th = blk;
    d->thd = d->th + n;
    d->pp = d->thd + n;
    d->pa = d->pp + 3 * n;
    d->cs = d->pa + 2 * n;
    d->poses_pending = false;
    return d;
}
