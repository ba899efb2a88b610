/* The restricted Poincaré map of a body walker's HZD controller
 * (include/stridemap/hzd.h).
 *
 * The zero dynamics' configuration q(θ) solves y = H q − h_d(θ) = 0,
 * c·q = θ and the stance pin's position (the section's origin contact at
 * the ground's origin) by Newton; dq/dθ solves the same rows' Jacobian
 * [J_y; cᵀ; J_pin] dq/dθ = [0; 1; 0] (J_y = H − h_d' cᵀ).  κ₁(θ) is the
 * angular momentum about the foot of the motion q̇ = dq/dθ, κ₂ the gravity
 * torque about it, both from the rigid bodies (every body's m (r − p) × v
 * plus its spin R I Rᵀ ω).  δ comes from the file's own impact: the
 * pre-impact state (q(θ⁻), dq/dθ(θ⁻)) is relabelled and sent through the
 * section event's impulse, and σ⁺ measured about the new stance foot. */
#include <math.h>
#include <string.h>

#include "../dense.h"
#include "body_model.h"
#include "stridemap/hzd.h"

#define NEWTON_TOL 1e-13
#define NEWTON_MAX 40
#define SIMPSON_DEPTH 40

bool sm_hzd_applies(const sm_model *m)
{
    const body_file *f = body_model_file(m);
    if (!f || f->ctrl.kind != BODY_CTRL_IO || f->origin < 0 || f->section_event_phase < 0) return false;
    /* a controller with a state (held torques, integrators) has no zero
     * dynamics of the walker's coordinates alone */
    if (body_ctrl_nz(&f->ctrl)) return false;
    const body_model *bm = m->data;
    return bm->planar && bm->nq == bm->nv && f->ctrl.n_out + 3 == bm->nq &&
           f->contacts[f->origin].kind == SM_CONTACT_PIN;
}

typedef struct {
    const body_model *bm;
    const double *p;
    body_eval *e;
    sm_vc vc;
    size_t foot;        /* the stance foot's site */
    double g[3];
    double q[SM_MAX_STATE]; /* the last configuration solved: Newton's start */
    int evals;
} zd_ctx;

/* The rows [J_y; cᵀ; pin x; pin z] (nq × nq, row-major) and the residual at
 * q for θ (e's forward sweep set at q). */
static sm_status zd_rows(zd_ctx *z, const double *q, double theta, double *A, double *r)
{
    const size_t n = z->bm->nq, ny = z->vc.ny;
    double zero[SM_MAX_STATE] = {0};
    sm_status st = sm_rigid_forward(z->e->m, z->e->d, q, zero);
    if (st != SM_OK) return st;
    sm_vc_value val;
    sm_vc_eval(&z->vc, q, zero, &val);
    for (size_t i = 0; i < ny; i++) {
        memcpy(A + i * n, val.J[i], n * sizeof *A);
        r[i] = val.y[i];
    }
    memcpy(A + ny * n, z->vc.c, n * sizeof *A);
    r[ny] = val.theta - theta;
    double jac[3 * SM_RIGID_MAX_V], pos[3];
    sm_rigid_site_jac(z->e->m, z->e->d, z->foot, jac, NULL);
    sm_rigid_site_pos(z->e->m, z->e->d, z->foot, pos);
    memcpy(A + (ny + 1) * n, jac, n * sizeof *A);
    memcpy(A + (ny + 2) * n, jac + 2 * n, n * sizeof *A);
    r[ny + 1] = pos[0];
    r[ny + 2] = pos[2];
    return SM_OK;
}

/* A x = b in place of b (src/dense.c: LAPACK). */
static bool solve(const double *A, size_t n, double *b) { return sm_dense_solve(n, A, b) == SM_OK; }

/* q(θ) into z->q and dq/dθ into dq; e's forward sweep left at (q, dq). */
static sm_status zd_point(zd_ctx *z, double theta, double *dq)
{
    const size_t n = z->bm->nq, ny = z->vc.ny;
    double A[SM_MAX_STATE * SM_MAX_STATE], r[SM_MAX_STATE];
    bool done = false;
    for (int it = 0; it < NEWTON_MAX && !done; it++) {
        sm_status st = zd_rows(z, z->q, theta, A, r);
        if (st != SM_OK) return st;
        double big = 0;
        for (size_t i = 0; i < n; i++) big = fmax(big, fabs(r[i]));
        if (big < NEWTON_TOL) done = true;
        if (!solve(A, n, r)) return SM_NOT_CONVERGED;
        for (size_t i = 0; i < n; i++) z->q[i] -= r[i];
    }
    if (!done) return SM_NOT_CONVERGED;
    sm_status st = zd_rows(z, z->q, theta, A, r);
    if (st != SM_OK) return st;
    memset(dq, 0, n * sizeof *dq);
    dq[ny] = 1.0;
    if (!solve(A, n, dq)) return SM_NOT_CONVERGED;
    z->evals++;
    return sm_rigid_forward(z->e->m, z->e->d, z->q, dq);
}

/* The y-components of the angular momentum about the point o of the motion
 * at e's forward sweep, and of gravity's torque about it. */
static void about_point(const zd_ctx *z, const body_eval *e, const double o[3], double *sigma, double *torque)
{
    const body_file *f = z->bm->f;
    double L = 0.0, T = 0.0;
    for (size_t i = 0; i < f->n_bodies; i++) {
        sm_rigid_body_def def;
        body_def_at(f, i, z->p, &def);
        if (def.mass == 0.0 && def.inertia[0] == 0.0 && def.inertia[4] == 0.0 && def.inertia[8] == 0.0) continue;
        double R[9], pc[3], vc[3], w[3];
        sm_rigid_body_state(e->m, e->d, i, R, pc, vc, w);
        const double rx = pc[0] - o[0], rz = pc[2] - o[2];
        L += def.mass * (rz * vc[0] - rx * vc[2]);
        T += def.mass * (rz * z->g[0] - rx * z->g[2]);
        /* spin: (R I Rᵀ ω)_y */
        double wb[3], Iw[3];
        for (int a = 0; a < 3; a++) wb[a] = R[0 * 3 + a] * w[0] + R[1 * 3 + a] * w[1] + R[2 * 3 + a] * w[2];
        for (int a = 0; a < 3; a++) Iw[a] = def.inertia[a * 3 + 0] * wb[0] + def.inertia[a * 3 + 1] * wb[1] + def.inertia[a * 3 + 2] * wb[2];
        L += R[3] * Iw[0] + R[4] * Iw[1] + R[5] * Iw[2];
    }
    *sigma = L;
    if (torque) *torque = T;
}

/* κ₁ κ₂ at θ. */
static sm_status integrand(zd_ctx *z, double theta, double *out)
{
    double dq[SM_MAX_STATE], foot[3], k1, k2;
    const sm_status st = zd_point(z, theta, dq);
    if (st != SM_OK) return st;
    sm_rigid_site_pos(z->e->m, z->e->d, z->foot, foot);
    about_point(z, z->e, foot, &k1, &k2);
    *out = k1 * k2;
    return SM_OK;
}

/* Adaptive Simpson on [a, b] with f(a), f(m), f(b) known (Richardson's
 * correction on the finest pair); the integral into *sum. */
static sm_status simpson(zd_ctx *z, double a, double b, double fa, double fm, double fb, double whole, double tol,
                         int depth, double *sum)
{
    const double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    double flm, frm;
    sm_status st = integrand(z, lm, &flm);
    if (st == SM_OK) st = integrand(z, rm, &frm);
    if (st != SM_OK) return st;
    const double left = (m - a) / 6 * (fa + 4 * flm + fm), right = (b - m) / 6 * (fm + 4 * frm + fb);
    const double diff = left + right - whole;
    if (depth <= 0 || fabs(diff) <= 15 * tol) {
        *sum = left + right + diff / 15;
        return SM_OK;
    }
    double l, r;
    if ((st = simpson(z, a, m, fa, flm, fm, left, tol / 2, depth - 1, &l)) != SM_OK) return st;
    if ((st = simpson(z, m, b, fm, frm, fb, right, tol / 2, depth - 1, &r)) != SM_OK) return st;
    *sum = l + r;
    return SM_OK;
}

/* V(θ) = −∫_{θ⁺}^{θ} κ₁κ₂ on PANELS panels, each by adaptive Simpson:
 * V(θ⁻), and the largest V at the panels' ends (the barrier ζ⁺ must clear;
 * between two ends V is assumed not to rise further). */
#define PANELS 16
static sm_status potential(zd_ctx *z, double tol, double *v_minus, double *v_max)
{
    const double a = z->vc.theta_plus, b = z->vc.theta_minus, h = (b - a) / PANELS;
    double fa, V = 0.0, vmax = 0.0;
    sm_status st = integrand(z, a, &fa);
    for (int k = 0; st == SM_OK && k < PANELS; k++) {
        const double lo = a + k * h, hi = k + 1 == PANELS ? b : a + (k + 1) * h;
        double fm, fb, part = 0.0;
        if ((st = integrand(z, 0.5 * (lo + hi), &fm)) != SM_OK || (st = integrand(z, hi, &fb)) != SM_OK) break;
        st = simpson(z, lo, hi, fa, fm, fb, (hi - lo) / 6 * (fa + 4 * fm + fb), tol / PANELS, SIMPSON_DEPTH, &part);
        V -= part;
        vmax = fmax(vmax, V);
        fa = fb;
    }
    *v_minus = V;
    *v_max = vmax;
    return st;
}

static sm_status ctx_init(zd_ctx *z, const sm_model *m, const double *p, body_eval *e, void *mem)
{
    const body_model *bm = m->data;
    const body_file *f = bm->f;
    memset(z, 0, sizeof *z);
    z->bm = bm;
    z->p = p;
    z->e = e;
    sm_status st = body_eval_init(e, bm, p, mem, NULL, 0);
    if (st != SM_OK) return st;
    body_control_vc(f, p, &z->vc);
    z->foot = (size_t)f->contacts[f->origin].site;
    body_gravity_at(f, p, z->g);
    double x[SM_MAX_STATE];
    body_guess(x, p, bm);
    memcpy(z->q, x, bm->nq * sizeof *x);
    return SM_OK;
}

sm_status sm_hzd_zeta(const sm_model *m, const double *p, const double *x, double *zeta)
{
    *zeta = NAN;
    if (!sm_hzd_applies(m)) return SM_BAD_PARAM;
    const body_model *bm = m->data;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    zd_ctx z;
    sm_status st = ctx_init(&z, m, p, &e, mem);
    if (st == SM_OK) st = sm_rigid_forward(e.m, e.d, x, x + bm->nq);
    if (st != SM_OK) return st;
    double foot[3], sigma;
    sm_rigid_site_pos(e.m, e.d, z.foot, foot);
    about_point(&z, &e, foot, &sigma, NULL);
    *zeta = 0.5 * sigma * sigma;
    return SM_OK;
}

sm_status sm_hzd_restricted_map(const sm_model *m, const double *p, double tol, sm_restricted_map *out)
{
    memset(out, 0, sizeof *out);
    out->zeta_star = out->zeta_plus = out->delta = out->multiplier = NAN;
    if (!sm_hzd_applies(m)) return SM_BAD_PARAM;
    const body_model *bm = m->data;
    const body_file *f = bm->f;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    zd_ctx z;
    sm_status st = ctx_init(&z, m, p, &e, mem);
    if (st != SM_OK) return st;
    out->theta_plus = z.vc.theta_plus;
    out->theta_minus = z.vc.theta_minus;
    if ((st = potential(&z, tol, &out->v_minus, &out->v_max)) != SM_OK) return st;

    /* δ: the zero dynamics' state at θ⁻ with θ̇ = 1 through the impact */
    double x[SM_MAX_STATE], xr[SM_MAX_STATE], foot[3], s_minus, s_plus;
    if ((st = zd_point(&z, z.vc.theta_minus, x + bm->nq)) != SM_OK) return st;
    memcpy(x, z.q, bm->nq * sizeof *x);
    sm_rigid_site_pos(e.m, e.d, z.foot, foot);
    about_point(&z, &e, foot, &s_minus, NULL);
    const size_t ph = (size_t)f->section_event_phase, ev = (size_t)f->section_event;
    if (f->phases[ph].events[ev].relabel && f->has_relabel) body_relabel(bm, x, xr);
    else memcpy(xr, x, bm->n_state * sizeof *x);
    body_impact imp;
    if ((st = body_event_impact(&e, ph, ev, xr, &imp)) != SM_OK) return st;
    if ((st = sm_rigid_forward(e.m, e.d, xr, xr + bm->nq)) != SM_OK) return st;
    sm_rigid_site_pos(e.m, e.d, z.foot, foot);
    about_point(&z, &e, foot, &s_plus, NULL);
    out->delta = s_plus / s_minus;
    out->multiplier = out->delta * out->delta;

    sm_vc_value val;
    sm_vc_eval(&z.vc, xr, xr + bm->nq, &val);
    _Static_assert(SM_CTRL_MAX_Y <= sizeof out->dy_plus / sizeof out->dy_plus[0], "one dy_plus per output");
    for (size_t i = 0; i < z.vc.ny; i++) {
        out->dy_plus[i] = val.dy[i] / val.theta_dot;
        out->invariance = fmax(out->invariance, fmax(fabs(val.y[i]), fabs(out->dy_plus[i])));
    }

    if (out->multiplier < 1.0) {
        out->zeta_star = -out->v_minus / (1.0 - out->multiplier);
        out->zeta_plus = out->multiplier * out->zeta_star;
        out->exists = out->zeta_star > 0 && out->zeta_plus > out->v_max;
    }
    out->evaluations = z.evals;
    return SM_OK;
}
