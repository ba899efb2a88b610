/* A planar tree held at its stance contact, in its hinges' coordinates
 * (rigid_contact.h): the tree re-rooted at the contact, as a pinned chain
 * is written by hand, so that the reduced equations cost one pass over the
 * links instead of the full M, the contact rows and Φᵀ M Φ.
 *
 * With the contact point f at rest (a roll's lowest point has zero
 * velocity), hinge j moves a point x on link L at
 *     s_j ([j above L] perp(x − p_j) − [j above the contact] perp(f − p_j)),
 * the slides taking up whatever the contact asks.  So a hinge off the path
 * from the contact to the root turns its subtree about p_j at s_j q̇_j, as in
 * the tree; a hinge on the path turns the whole walker about f at s_j q̇_j
 * and everything outside its subtree (its subtree in the re-rooted tree)
 * back about p_j at −s_j q̇_j.  In the re-rooted coordinates φ (φ_0 the
 * whole walker about f, φ_a the set R_a about p_a, φ̇ = T q̇), the tree's
 * composite formula holds (Featherstone 2008, §6.2): for R_b ⊆ R_a,
 *     M_φ(a, b) = K_b + (p_b − p_a)·h_b,   b_φ(a) = T_a,
 * K, h, T of R_b about p_b, and 0 for disjoint sets; then M_r = Tᵀ M_φ T,
 * b_r = Tᵀ b_φ.  R_a of a path hinge is the whole walker less the subtree,
 * both about p_a.  At q̈ = 0 the anchor (the pin's site, the disk's centre)
 * has zero acceleration, the slides' share of every body's: the d'Alembert
 * forces take gravity shifted by the anchor's velocity-product
 * acceleration in the tree with the slides at rest. */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

/* Link L lies in the subtree of link a. */
static bool below(const sm_rigid_model *m, size_t L, size_t a)
{
    for (int j = (int)L; j >= 0; j = m->parent[j])
        if ((size_t)j == a) return true;
    return false;
}

static bool in_set(const sm_rigid_model *m, const sm_rigid_pinned_plan *plan, size_t i, size_t L)
{
    return below(m, L, plan->link[i]) != plan->on_path[i];
}

bool sm_rigid_pinned_plan_init(const sm_rigid_model *m, size_t site, sm_rigid_pinned_plan *plan)
{
    if (!m->planar || site >= m->nsite) return false;
    memset(plan, 0, sizeof *plan);
    plan->site = site;
    size_t roots = 0;
    for (size_t L = 0; L < m->nlink; L++) {
        const int P = m->parent[L];
        roots += P < 0;
        if (m->kind[L] == LINK_SLIDE) {
            /* the slides only translate the whole tree */
            if (P >= 0 && m->kind[P] != LINK_SLIDE) return false;
        } else if (m->kind[L] == LINK_HINGE) {
            if (plan->n == SM_RIGID_MAX_V) return false;
            plan->link[plan->n] = L;
            plan->vadr[plan->n] = m->vadr[L];
            plan->on_path[plan->n] = below(m, m->site_link[site], L);
            plan->n++;
        } else if (m->kind[L] != LINK_FIXED) {
            return false;
        }
    }
    if (roots != 1) return false;
    for (size_t L = 0; L < m->nlink; L++)
        if (m->parent[L] < 0) plan->root = L;
    /* the chain of one-child links from the root (the base's slides): those
     * of them without mass add nothing to the walker's sums, so the
     * composites may start below them, every later link in the subtree
     * (tree order) */
    plan->top = plan->root;
    for (;;) {
        const size_t T = plan->top;
        size_t kids = 0, kid = 0;
        for (size_t L = 0; L < m->nlink; L++)
            if (m->parent[L] == (int)T) kids++, kid = L;
        if (kids != 1 || kid != T + 1) break;
        plan->top = kid;
    }
    for (size_t a = 0; a < plan->n; a++) {
        /* a copy of the model keeps the axes, hence the signs */
        const double sg = m->pl_sgn[plan->link[a]];
        plan->sig[a] = plan->on_path[a] ? -sg : sg;
        plan->pi[a] = plan->on_path[a] ? sg : 0.0;
    }
    for (size_t a = 0; a < plan->n; a++)
        for (size_t b = 0; b < plan->n; b++) {
            bool b_in_a = true, a_in_b = true;
            for (size_t L = 0; L < m->nlink; L++) {
                const bool ia = in_set(m, plan, a, L), ib = in_set(m, plan, b, L);
                b_in_a &= !ib || ia;
                a_in_b &= !ia || ib;
            }
            plan->nest[a][b] = b_in_a ? 1 : a_in_b ? 2 : 0;
        }
    return true;
}

/* The sweep at the slides' zero (the reduced right-hand side's base at
 * rest at the origin): a slide then only offsets its child, so the pass
 * reads the hinges' own coordinates and skips the velocities, which the
 * pinned dynamics never reads (sm_rigid_planar_forward's pv). */
static inline void pinned_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *qh, const double *vh)
{
    size_t a = 0;
    for (size_t L = 0; L < m->nlink; L++) {
        const int P = m->parent[L];
        const double *rT = m->pl_rT + 3 * L;
        double *p = d->pp + 3 * L, *pa = d->pa + 2 * L;
        if (P < 0) {
            p[0] = rT[0];
            p[1] = rT[1];
            p[2] = rT[2];
            pa[0] = pa[1] = 0.0;
            d->th[L] = d->thd[L] = 0.0;
            d->cs[2 * L] = 1.0;
            d->cs[2 * L + 1] = 0.0;
        } else {
            const double cP = d->cs[2 * P], sP = d->cs[2 * P + 1], thdP = d->thd[P], *pP = d->pp + 3 * P;
            const double off[2] = {cP * rT[0] - sP * rT[1], sP * rT[0] + cP * rT[1]}, w2 = thdP * thdP;
            p[0] = pP[0] + off[0];
            p[1] = pP[1] + off[1];
            p[2] = pP[2] + rT[2];
            pa[0] = d->pa[2 * P] - w2 * off[0];
            pa[1] = d->pa[2 * P + 1] - w2 * off[1];
            d->th[L] = d->th[P];
            d->thd[L] = thdP;
            d->cs[2 * L] = cP;
            d->cs[2 * L + 1] = sP;
        }
        if (m->kind[L] == LINK_HINGE) {
            const double sg = m->pl_sgn[L];
            d->thd[L] += sg * vh[a];
            /* a hinge at zero (a knee at its lock) keeps its parent's
             * angle, cosine and sine, bit for bit, without a sincos */
            if (qh[a] != 0.0) {
                const double th = d->th[L] + sg * qh[a];
                d->th[L] = th;
                d->cs[2 * L] = cos(th);
                d->cs[2 * L + 1] = sin(th);
            }
            a++;
        }
    }
    d->poses_pending = true;
}

bool sm_rigid_pinned_forward(const sm_rigid_model *m, sm_rigid_data *d, const double *qh, const double *vh)
{
    if (!m->use_planar) return false;
    pinned_forward(m, d, qh, vh);
    return true;
}

/* A set's mass, h, K and T about its pivot. */
typedef struct {
    double m, h[2], K, T;
} set_sums;

/* A subtree's sums about its link's origin (planar.c's composites, packed:
 * the pinned path reads seven numbers a link, not a 36-double block). */
typedef struct {
    double m, h[2], K, F[2], T;
} comp;

static double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }

/* For the subtree below each link L, about p_L (x the centres of mass,
 * f = m (ẍ⁰ − g) their d'Alembert forces): m, h = Σ m (x − p_L),
 * K = Σ m |x − p_L|² + I_n, F = Σ f, T = Σ (x − p_L) × f; each link's own
 * terms first, then carried to the parent's origin by r = p_L − p_λ
 * (h += m r, K += 2 r·h + m |r|², T += r × F).  The links are in tree
 * order (a parent before its children), so one backward pass carries all. */
static void composites(const sm_rigid_model *m, const sm_rigid_data *d, size_t top, const double g[2],
                       comp *restrict C)
{
    const size_t n = m->nlink;
    const double *restrict pp = d->pp, *restrict cs = d->cs, *restrict pa = d->pa, *restrict thd = d->thd;
    for (size_t L = top; L < n; L++) {
        const double mass = m->mass[L], In = m->pl_In[L];
        if (mass == 0.0 && In == 0.0) { /* a massless link (a base's first slide) */
            C[L] = (comp){0};
            continue;
        }
        const double *u = m->pl_com + 3 * L, c = cs[2 * L], s = cs[2 * L + 1], w2 = thd[L] * thd[L];
        const double X0 = c * u[0] - s * u[1], X1 = s * u[0] + c * u[1];
        const double f0 = mass * (pa[2 * L] - w2 * X0 - g[0]), f1 = mass * (pa[2 * L + 1] - w2 * X1 - g[1]);
        C[L] = (comp){mass, {mass * X0, mass * X1}, mass * (X0 * X0 + X1 * X1) + In, {f0, f1}, X0 * f1 - X1 * f0};
    }
    for (size_t L = n; L-- > top + 1;) {
        const int P = m->parent[L];
        const comp *c = &C[L];
        comp *cp = &C[P];
        const double r0 = pp[3 * L] - pp[3 * P], r1 = pp[3 * L + 1] - pp[3 * P + 1];
        cp->m += c->m;
        cp->h[0] += c->h[0] + c->m * r0;
        cp->h[1] += c->h[1] + c->m * r1;
        cp->K += c->K + 2.0 * (r0 * c->h[0] + r1 * c->h[1]) + c->m * (r0 * r0 + r1 * r1);
        cp->F[0] += c->F[0];
        cp->F[1] += c->F[1];
        cp->T += c->T + r0 * c->F[1] - r1 * c->F[0];
    }
}

static inline void pinned_dynamics(const sm_rigid_model *m, const sm_rigid_data *d, const sm_rigid_pinned_plan *plan,
                                   double radius, const unsigned char *locked, double *M, double *bias, double *force)
{
    const size_t n = plan->n, SL = m->site_link[plan->site];
    const double *u = m->pl_site + 3 * plan->site, c = d->cs[2 * SL], s = d->cs[2 * SL + 1];
    const double *pL = d->pp + 3 * SL, *e1 = m->pl_e1, *e2 = m->pl_e2, *G = m->gravity;
    const double X[2] = {c * u[0] - s * u[1], s * u[0] + c * u[1]}, w2 = d->thd[SL] * d->thd[SL];
    /* the anchor's acceleration at v̇ = 0 joins gravity; f is the point at rest */
    const double g[2] = {G[0] * e1[0] + G[1] * e1[1] + G[2] * e1[2] + d->pa[2 * SL] - w2 * X[0],
                         G[0] * e2[0] + G[1] * e2[1] + G[2] * e2[2] + d->pa[2 * SL + 1] - w2 * X[1]};
    const double f[2] = {pL[0] + X[0] - radius * e1[2], pL[1] + X[1] - radius * e2[2]};
    comp Cs[m->nlink];
    /* the plan's chain above top as this model has it (a view at other
     * parameters may give a slide mass) */
    size_t top = plan->root;
    while (top < plan->top && m->mass[top] == 0.0 && m->pl_In[top] == 0.0) top++;
    composites(m, d, top, g, Cs);
    /* the whole walker about f, from the top's composite */
    const comp *C0 = &Cs[top];
    const double r0[2] = {d->pp[3 * top] - f[0], d->pp[3 * top + 1] - f[1]};
    const set_sums all = {C0->m,
                          {C0->h[0] + C0->m * r0[0], C0->h[1] + C0->m * r0[1]},
                          C0->K + 2.0 * dot2(r0, C0->h) + C0->m * dot2(r0, r0),
                          C0->T + r0[0] * C0->F[1] - r0[1] * C0->F[0]};
    const double *F = C0->F, *sig = plan->sig, *pi = plan->pi;
    set_sums R[SM_RIGID_MAX_V];
    double M0[SM_RIGID_MAX_V];
    /* the hinges whose rows are read: the free ones, and for the forces
     * the locks' too (a lock's torque is its row at the free columns) */
    size_t idx[SM_RIGID_MAX_V], nr = 0;
    for (size_t a = 0; a < n; a++)
        if (!locked || !locked[a] || force) idx[nr++] = a;
    for (size_t t = 0; t < nr; t++) {
        const size_t a = idx[t], L = plan->link[a];
        const comp *C = &Cs[L];
        const double *p = d->pp + 3 * L;
        set_sums *S = &R[a];
        if (!plan->on_path[a]) {
            *S = (set_sums){C->m, {C->h[0], C->h[1]}, C->K, C->T};
        } else {
            /* the whole walker about p_a less the subtree */
            const double r[2] = {f[0] - p[0], f[1] - p[1]};
            S->m = all.m - C->m;
            S->h[0] = all.h[0] + all.m * r[0] - C->h[0];
            S->h[1] = all.h[1] + all.m * r[1] - C->h[1];
            S->K = all.K + 2.0 * dot2(r, all.h) + all.m * dot2(r, r) - C->K;
            S->T = all.T + r[0] * F[1] - r[1] * F[0] - C->T;
        }
        const double D[2] = {p[0] - f[0], p[1] - f[1]};
        M0[a] = S->K + dot2(D, S->h);
    }
    if (force) {
        /* Σ m (ẍ − g) = F + Σ_j q̈_j Σ m ∂ẋ/∂q̇_j, a set turning about its
         * pivot carrying the momentum perp(h) per unit rate */
        for (int k = 0; k < 3; k++) force[k] = F[0] * e1[k] + F[1] * e2[k];
        for (size_t j = 0; j < n; j++) {
            double *fj = force + 3 * (j + 1);
            if (locked && locked[j]) { /* multiplies a zero acceleration */
                fj[0] = fj[1] = fj[2] = 0.0;
                continue;
            }
            const double P0 = -(sig[j] * R[j].h[1] + pi[j] * all.h[1]), P1 = sig[j] * R[j].h[0] + pi[j] * all.h[0];
            for (int k = 0; k < 3; k++) fj[k] = P0 * e1[k] + P1 * e2[k];
        }
    }
    for (size_t t = 0; t < nr; t++) {
        const size_t j = idx[t];
        bias[j] = sig[j] * R[j].T + pi[j] * all.T;
        const double sj = sig[j], pj = pi[j], *pj_pos = d->pp + 3 * plan->link[j];
        M[j * n + j] = sj * sj * R[j].K + 2.0 * sj * pj * M0[j] + pj * pj * all.K;
        for (size_t u = 0; u < t; u++) {
            const size_t k = idx[u];
            /* between two locked hinges: multiplies zero accelerations */
            if (locked && locked[j] && locked[k]) continue;
            double Mjk = 0.0;
            const unsigned char nk = plan->nest[j][k];
            if (nk) {
                /* b inside a: K_b + (p_b − p_a)·h_b */
                const size_t b = nk == 1 ? k : j;
                const double *pa = nk == 1 ? pj_pos : d->pp + 3 * plan->link[k], *pb = d->pp + 3 * plan->link[b];
                const double D[2] = {pb[0] - pa[0], pb[1] - pa[1]};
                Mjk = R[b].K + dot2(D, R[b].h);
            }
            const double e = sj * sig[k] * Mjk + sj * pi[k] * M0[j] + pj * sig[k] * M0[k] + pj * pi[k] * all.K;
            M[j * n + k] = e;
            M[k * n + j] = e;
        }
    }
}

bool sm_rigid_pinned_dynamics(const sm_rigid_model *m, sm_rigid_data *d, const sm_rigid_pinned_plan *plan,
                              double radius, const unsigned char *locked, double *M, double *bias, double *force)
{
    if (!m->use_planar) return false;
    pinned_dynamics(m, d, plan, radius, locked, M, bias, force);
    return true;
}

bool sm_rigid_pinned_terms(const sm_rigid_model *m, const sm_rigid_pinned_plan *plan, const double *qh,
                           const double *vh, double radius, const unsigned char *locked, double *M, double *bias)
{
    if (!m->use_planar) return false;
    /* the five arrays the two passes read, on this frame, and only those
     * set: no data block to lay out per call (sm_rigid_pinned_data_init),
     * and zeroing the whole struct cost a tenth of the sweep */
    const size_t nl = m->nlink ? m->nlink : 1;
    double blk[9 * nl];
    sm_rigid_data d;
    d.th = blk;
    d.thd = blk + nl;
    d.pp = blk + 2 * nl;
    d.pa = blk + 5 * nl;
    d.cs = blk + 7 * nl;
    pinned_forward(m, &d, qh, vh);
    pinned_dynamics(m, &d, plan, radius, locked, M, bias, NULL);
    return true;
}
