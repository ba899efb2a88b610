/* Forward simulation driven by a table of moments in time (stridemap/
 * inverse.h, sm_inverse_playback): the round trip of the inverse dynamics.
 * The phase's constrained dynamics with the moments as the only applied
 * forces, integrated by the hybrid engine as a one-phase model whose event
 * never fires.  The moments between samples: the not-a-knot cubic spline
 * (C², so the integrator meets no kink at the samples; O(h⁴) to the
 * moments' own curve, where a natural spline is O(h²) at the ends). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inverse_internal.h"

typedef struct {
    const sm_inverse *inv;
    const body_model *bm;
    size_t ph, n, nt;
    const double *t, *tau;
    double *m2; /* the spline's second derivatives, n x nt */
} playback;

/* m2[i * nt + j]: each column's spline through (t_i, tau_ij), not-a-knot
 * at both ends (the third derivative continuous at t_1 and t_{n-2}): a
 * banded system, kl = ku = 2. */
static sm_status spline(size_t n, size_t nt, const double *t, const double *tau, double *m2)
{
    const size_t kl = 2, ku = 2, ld = 2 * kl + ku + 1;
    double *ab = calloc(ld * n, sizeof *ab), *rhs = calloc(n * nt, sizeof *rhs);
    lapack_int *piv = calloc(n, sizeof *piv);
    sm_status st = SM_NO_MEMORY;
    if (!ab || !rhs || !piv) goto done;
#define AB(i, j) ab[(j) * ld + kl + ku + (i) - (j)]
    const double h0 = t[1] - t[0], h1 = t[2] - t[1];
    AB(0, 0) = h1;
    AB(0, 1) = -(h0 + h1);
    AB(0, 2) = h0;
    for (size_t i = 1; i + 1 < n; i++) {
        const double a = t[i] - t[i - 1], b = t[i + 1] - t[i];
        AB(i, i - 1) = a;
        AB(i, i) = 2 * (a + b);
        AB(i, i + 1) = b;
        for (size_t j = 0; j < nt; j++)
            rhs[j * n + i] = 6 * ((tau[(i + 1) * nt + j] - tau[i * nt + j]) / b -
                                  (tau[i * nt + j] - tau[(i - 1) * nt + j]) / a);
    }
    const double g0 = t[n - 2] - t[n - 3], g1 = t[n - 1] - t[n - 2];
    AB(n - 1, n - 3) = g1;
    AB(n - 1, n - 2) = -(g0 + g1);
    AB(n - 1, n - 1) = g0;
#undef AB
    st = SM_LAPACK_FAILED;
    if (LAPACKE_dgbsv(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)kl, (lapack_int)ku, (lapack_int)nt, ab,
                      (lapack_int)ld, piv, rhs, (lapack_int)n) != 0)
        goto done;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nt; j++) m2[i * nt + j] = rhs[j * n + i];
    st = SM_OK;
done:
    free(ab);
    free(rhs);
    free(piv);
    return st;
}

static void moments_at(const playback *pb, double s, double *tau)
{
    size_t lo = 0, hi = pb->n - 1;
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (pb->t[mid] <= s) lo = mid;
        else hi = mid;
    }
    const double h = pb->t[hi] - pb->t[lo], A = (pb->t[hi] - s) / h, B = 1 - A;
    for (size_t j = 0; j < pb->nt; j++)
        tau[j] = A * pb->tau[lo * pb->nt + j] + B * pb->tau[hi * pb->nt + j] +
                 ((A * A * A - A) * pb->m2[lo * pb->nt + j] + (B * B * B - B) * pb->m2[hi * pb->nt + j]) * h * h / 6;
}

static int rhs(double t, const double *x, double *xd, const double *p, const void *data)
{
    const playback *pb = data;
    const body_model *bm = pb->bm;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, NULL, 0) != SM_OK) return SM_CALLBACK_STATUS(SM_BAD_PARAM);
    const double *q = x, *v = x + bm->nq;
    sm_status st = sm_rigid_forward(e.m, e.d, q, v);
    if (st != SM_OK) return SM_CALLBACK_STATUS(st);
    sm_contact c[BODY_MAX_CONTACTS];
    const size_t nc = body_phase_contacts(&e, pb->ph, v, c);
    double tau[SM_RIGID_MAX_V + 1], gf[SM_RIGID_MAX_V], lam[SM_RIGID_MAX_ROWS];
    moments_at(pb, t, tau);
    sm_inverse_generalized(pb->inv, &e, c, nc, tau, gf);
    double *a = xd + bm->nq;
    st = sm_rigid_constrained_accel(e.m, e.d, c, nc, gf, a, lam, e.work);
    /* a slide at rest slides the way it accelerates (as body_phase_solve) */
    for (size_t k = 0; st == SM_OK && k < nc; k++) {
        if (c[k].kind != SM_CONTACT_SLIDE) continue;
        double jac[3 * SM_RIGID_MAX_V], jdv[3], vt = 0, at;
        sm_rigid_site_jac(e.m, e.d, c[k].site, jac, NULL);
        sm_rigid_site_jdotv(e.m, e.d, c[k].site, jdv);
        at = jdv[0];
        for (size_t i = 0; i < bm->nv; i++) {
            vt += jac[i] * v[i];
            at += jac[i] * a[i];
        }
        if (fabs(vt) > BODY_SLIDE_AT_REST || at * c[k].slide_sign >= 0) continue;
        c[k].slide_sign = -c[k].slide_sign;
        st = sm_rigid_constrained_accel(e.m, e.d, c, nc, gf, a, lam, e.work);
    }
    if (st != SM_OK) return SM_CALLBACK_STATUS(st);
    sm_rigid_qdot(e.m, q, v, xd);
    return 0;
}

static double never(double t, const double *x, const double *p, const void *data)
{
    (void)t, (void)x, (void)p, (void)data;
    return 1.0;
}
static void keep(double *x, const double *p, const void *data) { (void)x, (void)p, (void)data; }
static double no_limit(const double *p, const void *data)
{
    (void)p, (void)data;
    return INFINITY;
}

sm_status sm_inverse_playback(const sm_inverse *inv, const double *p, const sm_solver_options *so, size_t ph,
                              size_t n, const double *t, const double *tau, const double *x0, double *x,
                              size_t *done)
{
    const body_model *bm = sm_inverse_body(inv);
    const size_t ns = bm->nq + bm->nv, nt = sm_inverse_n_torques(inv);
    *done = 0;
    for (size_t i = 0; i < n * ns; i++) x[i] = NAN;
    if (ph >= bm->f->n_phases || n < 4 || nt == 0) return SM_BAD_DATA;
    for (size_t i = 1; i < n; i++)
        if (!(t[i] > t[i - 1])) return SM_BAD_DATA;
    playback pb = {.inv = inv, .bm = bm, .ph = ph, .n = n, .nt = nt, .t = t, .tau = tau};
    if (!(pb.m2 = malloc(n * nt * sizeof *pb.m2))) return SM_NO_MEMORY;
    sm_status st = spline(n, nt, t, tau, pb.m2);
    static const size_t free_index[1] = {0};
    const sm_event ev = {.name = "end", .value = never, .direction = 1, .outcome = SM_EVENT_SECTION};
    const sm_phase phase = {.name = bm->f->phases[ph].name, .rhs = rhs, .n_events = 1, .events = &ev};
    const sm_model model = {.name = "playback",
                            .title = "forward simulation of tabled moments",
                            .reference = "",
                            .n_state = ns,
                            .state_names = bm->state_names,
                            .n_params = bm->model.n_params,
                            .params = bm->model.params,
                            .n_phases = 1,
                            .phases = &phase,
                            .n_free = 1,
                            .free_index = free_index,
                            .lift = keep,
                            .guess = keep,
                            .time_limit = no_limit,
                            .data = &pb};
    sm_workspace *ws = NULL;
    char why[256];
    if (st == SM_OK) st = sm_workspace_create_ex(&model, so, &ws, why, sizeof why);
    double y[SM_MAX_STATE];
    memcpy(y, x0, ns * sizeof *y);
    if (st == SM_OK) {
        /* on the phase's contacts: data differentiated from samples is off
         * them by its errors, and the dynamics keeps the drift it starts with */
        BODY_EVAL_MEM(mem, bm);
        body_eval e;
        double drift;
        st = body_eval_init(&e, bm, p, mem, NULL, 0);
        if (st == SM_OK) st = body_project(&e, ph, y, &drift);
    }
    if (st == SM_OK) {
        memcpy(x, y, ns * sizeof *y);
        *done = 1;
    }
    double s = t[0];
    for (size_t i = 1; st == SM_OK && i < n; i++) {
        size_t event;
        st = sm_hybrid_flow(ws, p, 0, &s, y, t[i], NULL, &event);
        if (st == SM_NO_HEELSTRIKE) st = SM_OK; /* t[i] reached, as asked */
        else if (st == SM_OK) st = SM_EVENT_ORDER;
        if (st != SM_OK) break;
        memcpy(x + i * ns, y, ns * sizeof *y);
        *done = i + 1;
    }
    sm_workspace_free(ws);
    free(pb.m2);
    return st;
}
