#include "stridemap/continuation.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "stridemap/family.h"

#include "dense.h"
#include "scratch.h"

/* All vectors of the branch live in scaled coordinates u = (z, w mu), so the
 * arclength is the Euclidean norm of u and w (o->weight) trades the
 * parameter against the state. */
#define MAXU (SM_MAX_STATE + 2) /* n + 1 unknowns; n + 2 equations with an invariant and a family */

const char *sm_point_label(sm_point_type t)
{
    switch (t) {
    case SM_POINT_EP: return "EP";
    case SM_POINT_LP: return "LP";
    case SM_POINT_PD: return "PD";
    case SM_POINT_NS: return "NS";
    case SM_POINT_MX: return "MX";
    case SM_POINT_BP: return "BP";
    default: return "";
    }
}

const char *sm_cont_stop_name(sm_cont_stop s)
{
    switch (s) {
    case SM_STOP_BOUND: return "bound";
    case SM_STOP_MAX_POINTS: return "max_points";
    case SM_STOP_START_FAILED: return "start_failed";
    case SM_STOP_FAILED: return "failed";
    case SM_STOP_CALLBACK: return "callback";
    }
    return "?";
}

void sm_cont_options_default(sm_cont_options *o, const sm_model *m, size_t param)
{
    memset(o, 0, sizeof *o);
    o->param = param;
    o->lo = param < m->n_params ? m->params[param].min : -INFINITY;
    o->hi = param < m->n_params ? m->params[param].max : INFINITY;
    o->direction = +1;
    o->period = 1;
    o->h0 = 1e-3;
    o->h_min = 1e-8;
    o->h_max = 0.05;
    o->max_points = 500;
    o->tol = 1e-10;
    o->max_iter = 8;
    o->fast_iter = 3;
    o->fd_step = 0.0;
    o->weight = 1.0;
    o->locate = true;
    o->locate_tol = 1e-10;
    o->central = true;
    sm_newton_options_default(&o->start);
    o->update = SM_NEWTON_BROYDEN;
}

sm_status sm_cont_options_check(const sm_cont_options *o, const sm_model *m, char *why, size_t why_len)
{
#define BAD(...) return snprintf(why, why_len, __VA_ARGS__), SM_BAD_OPTION
    if (o->param >= m->n_params) BAD("model '%s' has no parameter number %zu", m->name, o->param);
    if (!(o->lo <= o->hi) || isnan(o->lo) || isnan(o->hi)) BAD("the parameter bounds must satisfy lo <= hi");
    if (o->direction != 1 && o->direction != -1) BAD("the direction must be +1 or -1");
    if (o->period < 1 || o->period > 1024) BAD("sm_cont_options.period must be a whole number from 1 to 1024, not %d", o->period);
    if (!(o->h_min > 0 && o->h_min <= o->h0 && o->h0 <= o->h_max && isfinite(o->h_max)))
        BAD("the steps must satisfy 0 < h_min <= sm_cont_options.h0 <= h_max (got %g, %g, %g)", o->h_min, o->h0, o->h_max);
    if (o->max_points < 1) BAD("sm_cont_options.max_points must be at least 1, not %d", o->max_points);
    if (!(o->tol > 0) || !isfinite(o->tol)) BAD("sm_cont_options.tol must be a positive number, not %g", o->tol);
    if (o->max_iter < 1) BAD("the corrector needs at least one iteration");
    if (!(o->fd_step >= 0 && o->fd_step < 1)) BAD("sm_cont_options.fd_step must be in [0, 1) (0: sqrt(rtol)), not %g", o->fd_step);
    if (!(o->weight > 0) || !isfinite(o->weight)) BAD("sm_cont_options.weight must be a positive number, not %g", o->weight);
    if (!(o->locate_tol > 0)) BAD("the location tolerance must be positive, not %g", o->locate_tol);
    if (o->update != SM_NEWTON_BROYDEN && o->update != SM_NEWTON_FULL)
        BAD("sm_cont_options.update must be SM_NEWTON_BROYDEN or SM_NEWTON_FULL, not %d", (int)o->update);
#undef BAD
    return SM_OK;
}

/* ---- the branch's working context ---------------------------------------- */

typedef struct {
    sm_workspace *ws;
    const sm_model *m;
    const sm_cont_options *o;
    double p[SM_MAX_PARAMS];
    size_t n;      /* free coordinates */
    int period;    /* N of P^N */
    double h;      /* finite-difference step of the corrector's Jacobian */
    double h_stability; /* and of the stability Jacobian (sm_stability_jacobian) */
    double w;      /* parameter weight */
    long evals;
    sm_status stride_status;
    bool central;  /* central differences in the corrector */
    int max_iter;  /* corrector iterations */
    bool inv;      /* the model conserves a quantity: its gaits form families */
    bool fam;      /* the model declares a family of gaits and picks a member */
    size_t ne;     /* equations in F: n, plus the invariant's and the family's rows */
    bool broyden;  /* the corrector carries its Jacobian A by Broyden's updates */
    bool have_A;   /* A holds dF/du near the branch's latest point */
    double A[MAXU * MAXU]; /* [ne x (n+1)] */
} branch;

static void branch_init(branch *b, sm_workspace *ws, const double *p, const sm_cont_options *o, int period)
{
    memset(b, 0, sizeof *b);
    b->ws = ws;
    b->m = sm_workspace_model(ws);
    b->o = o;
    memcpy(b->p, p, b->m->n_params * sizeof *p);
    b->n = b->m->n_free;
    b->period = period;
    b->h = sm_newton_fd_step(o->fd_step, o->central, sm_workspace_options(ws)->rtol);
    b->h_stability = sm_stability_fd_step(o->fd_step, sm_workspace_options(ws)->rtol);
    b->w = o->weight;
    b->max_iter = o->max_iter;
    b->central = o->central;
    b->inv = b->m->invariant != NULL;
    b->fam = b->m->family_condition != NULL;
    b->ne = b->n + sm_extra_rows(b->m);
    b->broyden = o->update == SM_NEWTON_BROYDEN;
    b->have_A = false;
}

static double mu_of(const branch *b, const double *u) { return u[b->n] / b->w; }

/* F(u) = P^N(z; mu) - z, and for a model with a conserved quantity one more
 * equation, invariant(z) = its parameter, which picks one gait of the
 * family (as sm_fixed_point does), and for a model that declares a family
 * its condition, so that the branch stays on the member it started on
 * (the condition's value may be the continued parameter); F has b->ne
 * components. */
static sm_status residual(branch *b, const double *u, double *F, sm_step_metrics *mt)
{
    double Pz[SM_MAX_STATE];
    b->p[b->o->param] = mu_of(b, u);
    sm_status st = sm_poincare(b->ws, b->p, b->period, u, Pz, NULL, mt);
    b->evals += b->period;
    if (st != SM_OK) {
        b->stride_status = st;
        return st;
    }
    /* As in sm_fixed_point: the return is measured on the invariant's
     * level set, or the integrator's drift would floor the residual. */
    if (b->inv) {
        sm_invariant_project(b->m, b->p, Pz, b->h);
        F[b->n] = sm_invariant_gap(b->m, b->p, u);
    }
    if (b->fam) F[sm_family_row(b->m)] = sm_family_gap(b->m, b->p, u);
    for (size_t i = 0; i < b->n; i++) F[i] = Pz[i] - u[i];
    return SM_OK;
}

/* dF/dmu (scaled: per unit of w mu) by a one-sided difference, stepping
 * inward from the parameter's range and away from failures. */
static sm_status dF_dmu(branch *b, const double *u, const double *F, bool central, double *col)
{
    const sm_param_def *d = &b->m->params[b->o->param];
    const double mu = mu_of(b, u);
    double hm = b->h * fmax(1.0, fabs(mu));
    if (mu + hm > d->max) hm = -hm;
    double up[MAXU], Fp[MAXU], Fm[MAXU];
    memcpy(up, u, (b->n + 1) * sizeof *u);
    if (central && mu - hm >= d->min && mu + hm <= d->max) {
        up[b->n] = (mu + hm) * b->w;
        sm_status st = residual(b, up, Fp, NULL);
        up[b->n] = (mu - hm) * b->w;
        if (st == SM_OK) st = residual(b, up, Fm, NULL);
        if (st == SM_OK) {
            for (size_t i = 0; i < b->ne; i++) col[i] = (Fp[i] - Fm[i]) / (2 * hm * b->w);
            return SM_OK;
        }
    }
    up[b->n] = (mu + hm) * b->w;
    sm_status st = residual(b, up, Fp, NULL);
    if (st != SM_OK && mu - fabs(hm) >= d->min) {
        hm = -hm;
        up[b->n] = (mu + hm) * b->w;
        st = residual(b, up, Fp, NULL);
    }
    if (st != SM_OK) return st;
    for (size_t i = 0; i < b->ne; i++) col[i] = (Fp[i] - F[i]) / (hm * b->w);
    return SM_OK;
}

/* A[ne x (n+1)] = dF/du: forward (or central) differences in z, then mu. */
static sm_status jacobian_aug(branch *b, const double *u, const double *F, bool central, double *A)
{
    const size_t n = b->n;
    double J[SM_MAX_STATE * SM_MAX_STATE], Pz[SM_MAX_STATE], col[MAXU];
    for (size_t i = 0; i < n; i++) Pz[i] = F[i] + u[i];
    b->p[b->o->param] = mu_of(b, u);
    /* The start's Jacobian choice is the corrector's too (dF/dmu stays a
     * difference: the sensitivities are to the state, not the parameter). */
    sm_status st = b->o->start.jacobian == SM_JACOBIAN_EXACT
                       ? sm_map_jacobian_exact(b->ws, b->p, b->period, u, NULL, J, &b->evals)
                       : sm_map_jacobian(b->ws, b->p, b->period, u, Pz, b->h, central, J, &b->evals);
    if (st != SM_OK) return b->stride_status = st;
    st = dF_dmu(b, u, F, central, col);
    if (st != SM_OK) return st;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) A[i * (n + 1) + j] = J[i * n + j] - (i == j ? 1.0 : 0.0);
        A[i * (n + 1) + n] = col[i];
    }
    if (b->inv) {
        double grad[SM_MAX_STATE];
        sm_invariant_gradient(b->m, b->p, u, b->h, grad); /* no strides */
        for (size_t j = 0; j < n; j++) A[n * (n + 1) + j] = grad[j];
        A[n * (n + 1) + n] = col[n];
    }
    if (b->fam) {
        const size_t k = sm_family_row(b->m);
        double grad[SM_MAX_STATE];
        sm_family_gradient(b->m, b->p, u, b->h, grad); /* no strides */
        for (size_t j = 0; j < n; j++) A[k * (n + 1) + j] = grad[j];
        A[k * (n + 1) + n] = col[k];
    }
    return SM_OK;
}

/* Broyden's "good" update of A = dF/du after the step u -> ut (Dennis &
 * Schnabel 1996, sec. 8.1), as sm_fixed_point updates dP^N/dz. */
static void broyden_update_aug(branch *b, const double *u, const double *ut, const double *F, const double *Ft)
{
    const size_t m = b->n + 1;
    double s[MAXU], ss = 0.0;
    for (size_t j = 0; j < m; j++) {
        s[j] = ut[j] - u[j];
        ss += s[j] * s[j];
    }
    if (!(ss > 0)) return;
    for (size_t i = 0; i < b->ne; i++) {
        double As = 0.0;
        for (size_t j = 0; j < m; j++) As += b->A[i * m + j] * s[j];
        const double c = ((Ft[i] - F[i]) - As) / ss;
        for (size_t j = 0; j < m; j++) b->A[i * m + j] += c * s[j];
    }
}

/* du = the corrector's Newton step at u with Jacobian b->A and the plane
 * a . u = c (cons: its residual). */
static sm_status corrector_step(const branch *b, const double *a, double cons, const double *F, double *du)
{
    const size_t m = b->n + 1, ne = b->ne;
    double M[(MAXU + 1) * MAXU];
    for (size_t i = 0; i < ne; i++) {
        memcpy(&M[i * m], &b->A[i * m], m * sizeof *M);
        du[i] = -F[i];
    }
    memcpy(&M[ne * m], a, m * sizeof *a);
    du[ne] = -cons;
    /* With an invariant or a family one of the rows is redundant (the
     * family's multiplier 1): the consistent system is solved by least
     * squares. */
    return ne > b->n ? sm_dense_lstsq(ne + 1, m, M, du) : sm_dense_solve(m, M, du);
}

/* Newton on F(u) = 0, a . u = c from u (in place).  Fails if the iterate
 * strays further than `radius` from where it started.  With b->broyden the
 * Jacobian is the branch's last one, updated after each step; a step it
 * cannot make halve the residual gets a fresh difference Jacobian, and the
 * updates go on only after a whole step with a fresh one that halved it. */
static sm_status correct(branch *b, double *u, const double *a, double c, double radius, double *F,
                         int *iters, double *res)
{
    const size_t n = b->n, m = n + 1, ne = b->ne;
    double u0[MAXU], du[MAXU + 1], ut[MAXU], Ft[MAXU];
    memcpy(u0, u, m * sizeof *u);
    *iters = 0;
    sm_status st = residual(b, u, F, NULL);
    if (st != SM_OK) return st;
    double norm = sm_dense_max_abs(F, ne);
    for (;;) {
        const double cons = sm_dense_dot(a, u, m) - c;
        *res = norm;
        if (norm <= b->o->tol && fabs(cons) <= 1e-12 * (1.0 + fabs(c))) return SM_OK;
        if (*iters >= b->max_iter) return SM_NOT_CONVERGED;
        (*iters)++;
        bool fresh = false;
        double lambda = 1.0, tn = INFINITY;
        if (b->broyden && b->have_A) {
            st = corrector_step(b, a, cons, F, du);
            if (st == SM_OK) {
                for (size_t i = 0; i < m; i++) ut[i] = u[i] + du[i];
                st = residual(b, ut, Ft, NULL);
                if (st == SM_OK) tn = sm_dense_max_abs(Ft, ne);
            }
            /* (the plane holds after any whole step: its row is exact) */
            if (!(st == SM_OK && (tn <= 0.5 * norm || tn <= b->o->tol))) fresh = true;
        } else {
            fresh = true;
        }
        if (fresh) {
            st = jacobian_aug(b, u, F, b->central, b->A);
            if (st != SM_OK) return st;
            b->have_A = true;
            st = corrector_step(b, a, cons, F, du);
            if (st != SM_OK) return st;
            /* Halve a step that throws the walker into a fall or does not
             * reduce the residual (far from the branch, e.g. a long period's
             * first point, a full Newton step can overshoot).  The constraint
             * is linear and holds along the whole step once it holds at u. */
            sm_status first_st = SM_OK;
            lambda = 1.0, tn = INFINITY;
            for (int k = 0; k <= 8; k++, lambda *= 0.5) {
                for (size_t i = 0; i < m; i++) ut[i] = u[i] + lambda * du[i];
                st = residual(b, ut, Ft, NULL);
                if (k == 0) first_st = st;
                if (st != SM_OK) continue;
                tn = sm_dense_max_abs(Ft, ne);
                if (tn < norm || tn <= b->o->tol || fabs(cons) > 0) break; /* (a first step onto the plane is taken whole) */
            }
            if (st != SM_OK) return first_st != SM_OK ? first_st : st;
            if (!(tn < norm) && !(tn <= b->o->tol) && !(fabs(cons) > 0)) return SM_NOT_CONVERGED;
            if (!(lambda == 1.0 && tn <= 0.5 * norm)) b->have_A = false; /* far from the branch yet */
        }
        if (b->broyden && b->have_A) broyden_update_aug(b, u, ut, F, Ft);
        memcpy(u, ut, m * sizeof *u);
        memcpy(F, Ft, ne * sizeof *F);
        norm = tn;
        double dist[MAXU];
        for (size_t i = 0; i < m; i++) dist[i] = u[i] - u0[i];
        if (sm_dense_norm2(dist, m) > radius) return SM_NOT_CONVERGED;
    }
}

/* A converged point with its multipliers and test functions. */
typedef struct {
    double u[MAXU];
    double F[MAXU];
    double psi_lp, psi_pd;  /* det(J - I), det(J + I) */
    double psi_ns;          /* prod over pairs i < j of (lambda_i lambda_j - 1) */
    size_t trivial;         /* pt.trivial_index, or n if none */
    double gap;             /* distance from the nearest shorter period (INFINITY for N = 1) */
    sm_cont_point pt;
} node;

/* Multipliers, stability, metrics and test functions at a converged u. */
static sm_status analyse(branch *b, node *nd, int iters, double res)
{
    const size_t n = b->n;
    sm_cont_point *pt = &nd->pt;
    memset(pt, 0, sizeof *pt);
    pt->period = b->period;
    pt->n_state = b->m->n_state;
    pt->n_free = n;
    pt->mu = mu_of(b, nd->u);
    pt->iterations = iters;
    pt->residual = res;
    pt->minimal_period = b->period;
    pt->max_abs_eig = NAN;
    pt->trivial_index = -1;
    b->p[b->o->param] = pt->mu;
    /* Stride by stride round the orbit: the metrics of the first step, and
     * how far the orbit is from a shorter period (the gap to P^(N/q) for
     * every prime q dividing N; infinite for N = 1). */
    double zk[SM_MAX_STATE];
    sm_status st = SM_OK;
    memcpy(zk, nd->u, n * sizeof *zk);
    nd->gap = INFINITY;
    for (int k = 1; k <= b->period && st == SM_OK; k++) {
        st = sm_poincare(b->ws, b->p, 1, zk, zk, NULL, k == 1 ? &pt->metrics : NULL);
        b->evals++;
        if (st != SM_OK || k == b->period || b->period % k != 0) continue;
        bool prime_quotient = true;
        for (int q = 2; q * q <= b->period / k; q++) prime_quotient &= (b->period / k) % q != 0;
        if (!prime_quotient) continue;
        double g = 0.0;
        for (size_t i = 0; i < n; i++) g = fmax(g, fabs(zk[i] - nd->u[i]));
        nd->gap = fmin(nd->gap, g);
    }
    sm_model_lift(b->m, b->p, nd->u, pt->x);
    if (st == SM_OK) st = sm_gait_analyse(b->ws, b->p, b->h_stability, &pt->gait, &b->evals);
    if (st != SM_OK) {
        b->stride_status = st;
        return pt->status = st;
    }
    const double *J = pt->jacobian;
    /* The corrector's next Jacobian: this point's own dP^N/dz, the most
     * accurate there is, beside its last dF/dmu. */
    if (b->have_A)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) b->A[i * (n + 1) + j] = J[i * n + j] - (i == j ? 1.0 : 0.0);
    double I_minus[SM_MAX_STATE * SM_MAX_STATE], I_plus[SM_MAX_STATE * SM_MAX_STATE];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            I_minus[i * n + j] = J[i * n + j] - (i == j);
            I_plus[i * n + j] = J[i * n + j] + (i == j);
        }
    nd->psi_lp = sm_dense_det(n, I_minus);
    nd->psi_pd = sm_dense_det(n, I_plus);
    /* The multiplier 1 of a conserved quantity (sm_gait_analyse found it)
     * is left out of the test functions, as it is of stability. */
    const size_t trivial = pt->trivial_index < 0 ? n : (size_t)pt->trivial_index;
    if (b->inv || b->fam) {
        /* prod (lambda - 1) and prod (lambda + 1) over the others (complex
         * pairs give real products). */
        double lr = 1, li = 0, pr = 1, pi = 0;
        for (size_t k = 0; k < n; k++) {
            if (k == trivial) continue;
            const double er = pt->eig_re[k], ei = pt->eig_im[k];
            double t = lr * (er - 1) - li * ei;
            li = lr * ei + li * (er - 1), lr = t;
            t = pr * (er + 1) - pi * ei;
            pi = pr * ei + pi * (er + 1), pr = t;
        }
        nd->psi_lp = lr;
        nd->psi_pd = pr;
    }
    nd->trivial = trivial;
    /* The Neimark-Sacker test function is the determinant of the
     * bialternate product J (.) J - I (Kuznetsov 2004, sec. 10.2.2), the
     * product of lambda_i lambda_j - 1 over pairs: it changes sign where a
     * complex pair crosses the unit circle, and not where two real
     * multipliers outside it become a complex pair (their product goes on
     * above 1), which a count of complex multipliers outside the circle
     * would take for a crossing.  It also vanishes at a neutral saddle, a
     * real pair with lambda_i lambda_j = 1, which is no bifurcation:
     * ns_genuine() tells the two apart. */
    double complex prod = 1.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (i != trivial && j != trivial)
                prod *= CMPLX(pt->eig_re[i], pt->eig_im[i]) * CMPLX(pt->eig_re[j], pt->eig_im[j]) - 1.0;
    nd->psi_ns = creal(prod);
    pt->status = SM_OK;
    return SM_OK;
}

static double sgn(double v) { return (v > 0) - (v < 0); }

static double test_value(const node *nd, sm_point_type t)
{
    return t == SM_POINT_LP ? nd->psi_lp : t == SM_POINT_PD ? nd->psi_pd : nd->psi_ns;
}

/* Hermite's cubic between two nodes: the branch's tangents there, scaled to
 * advance one chord length along the chord per unit of sigma. */
typedef struct {
    const double *ua, *ub;
    double ma[MAXU], mb[MAXU];
} hermite;

/* The branch's point across the chord from na along the unit vector d, at
 * arclength s on it (L: the chord's length), predicted on the chord or, with
 * hc, on Hermite's cubic (which lies on the same plane d . u = d . ua + s):
 * near a branch point the plane also cuts the crossing branch, and a
 * predictor off by the chord's sagitta can be corrected onto either. */
static sm_status on_chord(branch *b, const node *na, const double *d, double L, double s, const hermite *hc,
                          node *t)
{
    const size_t m = b->n + 1;
    if (hc) {
        const double x = s / L, x2 = x * x, x3 = x2 * x;
        const double h00 = 2 * x3 - 3 * x2 + 1, h10 = x3 - 2 * x2 + x, h01 = -2 * x3 + 3 * x2, h11 = x3 - x2;
        for (size_t i = 0; i < m; i++) t->u[i] = h00 * hc->ua[i] + h10 * hc->ma[i] + h01 * hc->ub[i] + h11 * hc->mb[i];
    } else {
        for (size_t i = 0; i < m; i++) t->u[i] = na->u[i] + s * d[i];
    }
    int iters = 0;
    double res = 0.0;
    sm_status st = correct(b, t->u, d, sm_dense_dot(d, t->u, m), L, t->F, &iters, &res);
    return st == SM_OK ? analyse(b, t, iters, res) : st;
}

/* Whether the zero of psi_ns at nd is a complex pair on the unit circle
 * (a Neimark-Sacker point), not a real pair with product 1: the pair whose
 * product is nearest 1 must be complex conjugates. */
static bool ns_genuine(const node *nd)
{
    const sm_cont_point *pt = &nd->pt;
    const size_t n = pt->n_free;
    double best = INFINITY;
    bool complex_pair = false;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (i == nd->trivial || j == nd->trivial) continue;
            const double complex li = CMPLX(pt->eig_re[i], pt->eig_im[i]), lj = CMPLX(pt->eig_re[j], pt->eig_im[j]);
            const double d = cabs(li * lj - 1.0);
            if (d < best) best = d, complex_pair = pt->eig_im[i] != 0.0 && cabs(li - conj(lj)) <= 1e-6 * cabs(li);
        }
    return complex_pair;
}

/* The unit tangent of the branch at a converged node: the null vector of
 * dF/du, its state block the node's own stability Jacobian (no strides),
 * dF/dmu by central differences (two strides of P^N). */
static sm_status tangent_at(branch *b, const node *nd, double *t)
{
    const size_t n = b->n, m = n + 1;
    double A[MAXU * MAXU], col[MAXU];
    b->p[b->o->param] = mu_of(b, nd->u);
    sm_status st = dF_dmu(b, nd->u, nd->F, true, col);
    if (st != SM_OK) return st;
    const double *J = nd->pt.jacobian;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) A[i * m + j] = J[i * n + j] - (i == j ? 1.0 : 0.0);
        A[i * m + n] = col[i];
    }
    if (b->inv) {
        double grad[SM_MAX_STATE];
        sm_invariant_gradient(b->m, b->p, nd->u, b->h, grad);
        for (size_t j = 0; j < n; j++) A[n * m + j] = grad[j];
        A[n * m + n] = col[n];
    }
    if (b->fam) {
        const size_t k = sm_family_row(b->m);
        double grad[SM_MAX_STATE];
        sm_family_gradient(b->m, b->p, nd->u, b->h, grad);
        for (size_t j = 0; j < n; j++) A[k * m + j] = grad[j];
        A[k * m + n] = col[k];
    }
    const bool ok = b->ne > n ? sm_dense_null_vector_svd(b->ne, m, A, t) : sm_dense_null_vector(n, A, t);
    return ok ? SM_OK : SM_SINGULAR_JACOBIAN;
}

/* A real multiplier through +1 between na and nb is a fold only where the
 * branch turns back in the parameter: the tangent's mu component changes
 * sign (AUTO's fold test function).  Where it keeps its sign another branch
 * crosses this one (a branch point, e.g. the transcritical crossing of the
 * logistic map's x = 0 and x = 1 - 1/r at r = 1, or an HZD gait that an
 * output's multiplier leaves unchanged while another family of gaits passes
 * through it): det(J - I) vanishes there too, yet nothing folds.  Both
 * tangents are oriented along the chord from na to nb, as the branch was
 * followed.  SM_POINT_LP when the tangents cannot be had (the old
 * reading).  hc gets Hermite's cubic from the tangents, for locate(). */
static sm_point_type fold_or_branch_point(branch *b, const node *na, const node *nb, hermite *hc, bool *have_hc)
{
    const size_t m = b->n + 1;
    double ta[MAXU], tb[MAXU], d[MAXU];
    *have_hc = false;
    for (size_t i = 0; i < m; i++) d[i] = nb->u[i] - na->u[i];
    if (tangent_at(b, na, ta) != SM_OK || tangent_at(b, nb, tb) != SM_OK) return SM_POINT_LP;
    const double da = sm_dense_dot(ta, d, m), db = sm_dense_dot(tb, d, m);
    const double sa = sgn(da) * ta[b->n], sb = sgn(db) * tb[b->n];
    /* d . t is L cos(angle): a tangent far off the chord gives no cubic */
    const double L2 = sm_dense_dot(d, d, m);
    if (fabs(da) > 0.1 * sqrt(L2) && fabs(db) > 0.1 * sqrt(L2)) {
        hc->ua = na->u, hc->ub = nb->u;
        for (size_t i = 0; i < m; i++) hc->ma[i] = ta[i] * L2 / da, hc->mb[i] = tb[i] * L2 / db;
        *have_hc = true;
    }
    return sgn(sa) * sgn(sb) < 0 ? SM_POINT_LP : SM_POINT_BP;
}

/* Locates the zero of one test function between converged nodes a and b by
 * the Illinois method on the arclength along the chord, each trial point
 * corrected back onto the branch across the chord.  out gets the point. */
static sm_status locate(branch *b, const node *na, const node *nb, sm_point_type type, const hermite *hc,
                        node *out)
{
    const size_t m = b->n + 1;
    double d[MAXU];
    for (size_t i = 0; i < m; i++) d[i] = nb->u[i] - na->u[i];
    const double L = sm_dense_norm2(d, m);
    for (size_t i = 0; i < m; i++) d[i] /= L;
    double sa = 0.0, sb = L, fa = test_value(na, type), fb = test_value(nb, type);
    *out = fabs(fa) < fabs(fb) ? *na : *nb;
    int side = 0, failures = 0, failed = 0;
    double s_prev = NAN, f_best = INFINITY;
    sm_status st = SM_NOT_CONVERGED;
    for (int k = 0; k < 80; k++) {
        double s = (sa * fb - sb * fa) / (fb - fa);
        if (!(s > sa && s < sb)) s = 0.5 * (sa + sb);
        /* At a branch point the corrector is singular (both branches solve
         * it), and regula falsi's trial can land too near it to converge:
         * step back from it towards either end of the bracket instead, 0.1,
         * then 0.4, then 0.8 of the way. */
        if (failures > 0) {
            const double frac = failures <= 2 ? 0.1 : failures <= 4 ? 0.4 : 0.8;
            s = failures % 2 ? s - frac * (s - sa) : s + frac * (sb - s);
        }
        node t;
        if (on_chord(b, na, d, L, s, hc, &t) != SM_OK) {
            failures++;
            if (++failed > 6) break; /* keep the best point so far */
            continue;
        }
        failures = 0;
        double fs = test_value(&t, type);
        if (isnan(fs)) break;
        if (fabs(fs) <= f_best) *out = t, f_best = fabs(fs);
        st = SM_OK;
        if (fs == 0.0 || sb - sa < b->o->locate_tol || fabs(s - s_prev) < 1e-2 * b->o->locate_tol) break;
        s_prev = s;
        if (sgn(fs) == sgn(fb)) {
            sb = s, fb = fs;
            if (side == -1) fa *= 0.5;
            side = -1;
        } else {
            sa = s, fa = fs;
            if (side == +1) fb *= 0.5;
            side = +1;
        }
    }
    out->pt.type = type;
    if (type == SM_POINT_PD) sm_dense_real_eigvec(b->n, out->pt.jacobian, -1.0, out->pt.eigvec);
    if (type == SM_POINT_LP) sm_dense_real_eigvec(b->n, out->pt.jacobian, 1.0, out->pt.eigvec);
    return st;
}

/* ---- the continuation ------------------------------------------------------ */

typedef struct {
    sm_cont_fn cb;
    void *ctx;
    sm_cont_result *r;
    double arclength;
} emitter;

static int emit(emitter *e, sm_cont_point *pt)
{
    e->r->n_points++;
    if (pt->type == SM_POINT_LP || pt->type == SM_POINT_PD || pt->type == SM_POINT_NS || pt->type == SM_POINT_BP) {
        if (e->r->n_special < SM_CONT_MAX_SPECIAL) e->r->special[e->r->n_special] = *pt;
        e->r->n_special++;
    }
    return e->cb ? e->cb(e->ctx, pt) : 0;
}

/* Bits of the test functions (1 << type) that change sign from a to b. */
static unsigned sign_changes(const node *a, const node *b)
{
    static const sm_point_type types[3] = {SM_POINT_LP, SM_POINT_PD, SM_POINT_NS};
    unsigned c = 0;
    for (int i = 0; i < 3; i++)
        if (sgn(test_value(a, types[i])) * sgn(test_value(b, types[i])) < 0) c |= 1u << types[i];
    return c;
}

enum { MAX_SPECIAL_PER_STEP = 8, MAX_BISECT = 12 };

/* Bifurcations between na and nb appended to sp[k..]: a stretch where more
 * than one test function changes sign is halved (the point across the
 * chord's middle) until each change has a stretch of its own, so that one
 * event does not hide or displace another.  Returns the new count. */
static int find_in(branch *b, const node *na, const node *nb, int depth, node *sp, int k)
{
    const unsigned c = sign_changes(na, nb);
    if (!c) return k;
    if ((c & (c - 1)) && depth < MAX_BISECT) {
        const size_t m = b->n + 1;
        double d[MAXU] = {0}; /* (GCC cannot see that m >= 1) */
        for (size_t i = 0; i < m; i++) d[i] = nb->u[i] - na->u[i];
        const double L = sm_dense_norm2(d, m);
        for (size_t i = 0; i < m; i++) d[i] /= L;
        node mid;
        if (on_chord(b, na, d, L, 0.5 * L, NULL, &mid) == SM_OK) {
            k = find_in(b, na, &mid, depth + 1, sp, k);
            return find_in(b, &mid, nb, depth + 1, sp, k);
        }
    }
    static const sm_point_type types[3] = {SM_POINT_LP, SM_POINT_PD, SM_POINT_NS};
    for (int i = 0; i < 3 && k < MAX_SPECIAL_PER_STEP; i++) {
        if (!(c & (1u << types[i]))) continue;
        node *out = &sp[k];
        hermite hc;
        bool have_hc = false;
        const sm_point_type label = types[i] == SM_POINT_LP ? fold_or_branch_point(b, na, nb, &hc, &have_hc) : types[i];
        if (locate(b, na, nb, types[i], have_hc ? &hc : NULL, out) != SM_OK) {
            *out = *nb;
            out->pt.type = types[i];
            out->pt.status = SM_NOT_CONVERGED;
        }
        if (types[i] == SM_POINT_NS && !ns_genuine(out)) continue; /* a neutral saddle */
        out->pt.type = label;
        k++;
    }
    return k;
}

/* Bifurcations between two consecutive nodes, located and in branch order;
 * s_of gets each one's arclength from na. */
static int find_special(branch *b, const node *na, const node *nb, node *sp, double *s_of)
{
    const int k = find_in(b, na, nb, 0, sp, 0);
    for (int i = 0; i < k; i++) {
        double d[MAXU];
        for (size_t j = 0; j <= b->n; j++) d[j] = sp[i].u[j] - na->u[j];
        s_of[i] = sm_dense_norm2(d, b->n + 1);
    }
    /* Sort by arclength from na. */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && s_of[j] < s_of[j - 1]; j--) {
            node t = sp[j];
            sp[j] = sp[j - 1], sp[j - 1] = t;
            double s = s_of[j];
            s_of[j] = s_of[j - 1], s_of[j - 1] = s;
        }
    return k;
}

/* A branch being followed: everything sm_continue keeps between steps. */
struct sm_cont_state {
    branch b;
    const sm_cont_options *o;
    sm_cont_result *r;
    emitter e;
    node nodes[2];
    node *prev, *next;
    double t[MAXU];     /* the unit tangent (secant) at prev */
    double h;           /* the next arclength step */
    int computed;       /* regular points, the start included */
    long start_evals;   /* strides of the start's Newton */
    sm_cont_stop stop;
    sm_status why_stop; /* why the last step failed, SM_OK after a success */
    bool done;          /* the branch is closed (the callback stopped it, or sm_cont_finish ran) */
    /* The start's orbit has its full period N, so a point at a shorter one
     * is the orbit it doubled from.  A branch started on a shorter-period
     * orbit (a period-1 gait continued as P^2: --two-step) stays on it. */
    bool keep_off_shorter;
    /* The step in hand, between sm_cont_step and sm_cont_accept. */
    int iters;
    bool at_bound;
    double len;         /* its chord's length */
    node special[MAX_SPECIAL_PER_STEP];
    double s_of[MAX_SPECIAL_PER_STEP];
};

/* Below this distance from a shorter period an orbit has that period. */
static double shorter_tol(const sm_cont_options *o) { return fmax(1e3 * o->tol, 1e-8); }

/* How far nd's orbit is from the shorter period the branch keeps off. */
static double gap_of(const sm_cont_state *s, const node *nd) { return s->keep_off_shorter ? nd->gap : INFINITY; }

sm_cont_state *sm_cont_state_create(void) { return calloc(1, sizeof(sm_cont_state)); }

void sm_cont_state_free(sm_cont_state *s) { free(s); }

sm_status sm_cont_start(sm_cont_state *s, sm_workspace *ws, const double *p, const double *x_guess,
                        const sm_cont_options *o, sm_cont_fn cb, void *ctx, sm_cont_result *r)
{
    const sm_model *m = sm_workspace_model(ws);
    memset(r, 0, sizeof *r);
    r->stop = SM_STOP_START_FAILED;
    r->stop_mu = p[o->param < m->n_params ? o->param : 0];
    s->o = o;
    s->r = r;
    s->done = true;
    char why[200];
    if (sm_cont_options_check(o, m, why, sizeof why) != SM_OK) return r->status = SM_BAD_OPTION;

    branch *b = &s->b;
    branch_init(b, ws, p, o, o->period);
    const size_t n = b->n, mm = n + 1;
    s->e = (emitter){cb, ctx, r, 0.0};
    s->prev = &s->nodes[0];
    s->next = &s->nodes[1];
    node *prev = s->prev;
    memset(prev, 0, sizeof *prev);

    /* The start: Newton at fixed parameter. */
    sm_newton_options no = o->start;
    no.period = o->period;
    if (no.fd_step == 0) no.fd_step = o->fd_step;
    sm_fixed_result fr;
    sm_status st = sm_fixed_point(ws, p, x_guess, &no, &fr);
    s->start_evals = fr.stride_evals;
    r->stride_evals += fr.stride_evals;
    /* Converged means a residual within the tolerance, whatever Newton's
     * own account says. */
    if (st != SM_OK || !fr.converged || !(fr.residual <= no.tol)) {
        sm_cont_point *pt = &prev->pt;
        pt->type = SM_POINT_MX;
        pt->period = pt->minimal_period = o->period;
        pt->trivial_index = -1;
        pt->n_state = m->n_state;
        pt->n_free = n;
        pt->mu = p[o->param];
        memcpy(pt->x, fr.x, m->n_state * sizeof *fr.x);
        pt->max_abs_eig = NAN;
        pt->residual = fr.residual;
        pt->iterations = fr.iterations;
        pt->metrics = fr.metrics;
        pt->status = fr.status == SM_OK ? SM_NOT_CONVERGED : fr.status;
        for (size_t k = 0; k < n; k++) pt->eig_re[k] = pt->eig_im[k] = NAN;
        r->status = pt->status;
        r->stride_status = fr.stride_status;
        r->last = *pt;
        emit(&s->e, pt);
        return r->status;
    }
    sm_model_free(m, fr.x, prev->u);
    prev->u[n] = p[o->param] * b->w;
    st = residual(b, prev->u, prev->F, NULL);
    if (st == SM_OK) st = analyse(b, prev, fr.iterations, fr.residual);
    if (st != SM_OK) {
        r->status = st;
        r->stride_status = b->stride_status;
        return st;
    }
    prev->pt.type = SM_POINT_EP;

    /* The first tangent: the null vector of dF/du, pointing the asked way
     * (or along o's orientation hint, for a branch leaving a bifurcation). */
    double *t = s->t;
    {
        double A[MAXU * MAXU];
        st = jacobian_aug(b, prev->u, prev->F, true, A);
        if (st == SM_OK) {
            memcpy(b->A, A, b->ne * mm * sizeof *A);
            b->have_A = true;
        }
        if (st == SM_OK && !(b->inv ? sm_dense_null_vector_svd(b->ne, mm, A, t) : sm_dense_null_vector(n, A, t)))
            st = SM_SINGULAR_JACOBIAN;
        if (st != SM_OK) {
            r->status = st;
            r->stride_status = b->stride_status;
            r->last = prev->pt;
            emit(&s->e, &prev->pt);
            r->stop = SM_STOP_FAILED;
            return st;
        }
        double orient = t[n] * o->direction;
        if (sm_dense_norm2(o->orient, mm) > 0) orient = sm_dense_dot(t, o->orient, mm);
        if (orient < 0)
            for (size_t i = 0; i < mm; i++) t[i] = -t[i];
        memcpy(prev->pt.tangent, t, mm * sizeof *t);
    }
    r->stride_evals = b->evals + fr.stride_evals;

    /* The pending point is handed out once the next one is known, so the
     * last point can be marked EP. */
    s->keep_off_shorter = prev->gap >= shorter_tol(o);
    s->h = fmax(fmin(o->h0, 0.5 * gap_of(s, prev)), o->h_min);
    s->computed = 1;
    s->stop = SM_STOP_MAX_POINTS;
    s->why_stop = SM_OK;
    s->done = false;
    return SM_OK;
}

bool sm_cont_more(const sm_cont_state *s) { return !s->done && s->computed < s->o->max_points; }

sm_status sm_cont_step(sm_cont_state *s)
{
    const sm_cont_options *o = s->o;
    branch *b = &s->b;
    const size_t n = b->n, mm = n + 1;
    const double lo_s = o->lo * b->w, hi_s = o->hi * b->w;
    node *prev = s->prev, *next = s->next;
    double *t = s->t;
    for (;;) {
        /* Predict along the secant and correct across it.  A step that
         * leaves [lo, hi], predicted or corrected, is redone to land on the
         * bound exactly (the corrector then holds mu fixed). */
        double up[MAXU];
        const double h = s->h;
        const double radius = fmax(2.0 * h, 10 * o->h_min);
        int iters = 0;
        double res = INFINITY;
        bool at_bound = false;
        int side = 0; /* +1: the upper bound, -1: the lower */
        for (size_t i = 0; i < mm; i++) up[i] = prev->u[i] + h * t[i];
        sm_status st = SM_OK;
        if (up[n] > hi_s || up[n] < lo_s) {
            side = up[n] > hi_s ? +1 : -1;
        } else {
            memcpy(next->u, up, mm * sizeof *up);
            st = correct(b, next->u, t, sm_dense_dot(t, up, mm), radius, next->F, &iters, &res);
            if (st == SM_OK && (next->u[n] > hi_s || next->u[n] < lo_s)) side = next->u[n] > hi_s ? +1 : -1;
        }
        if (side != 0) {
            at_bound = true;
            const double bound = side > 0 ? hi_s : lo_s;
            const double hb = (bound - prev->u[n]) / t[n];
            if (!(hb > 0) || !isfinite(hb)) {
                st = SM_NOT_CONVERGED; /* heading away from that bound: a smaller step */
            } else {
                double a[MAXU] = {0};
                a[n] = 1.0;
                for (size_t i = 0; i < mm; i++) next->u[i] = prev->u[i] + hb * t[i];
                next->u[n] = bound;
                st = correct(b, next->u, a, bound, fmax(2.0 * hb, radius), next->F, &iters, &res);
            }
        }
        if (st == SM_OK) st = analyse(b, next, iters, res);
        double sec[MAXU], len = 0;
        if (st == SM_OK) {
            for (size_t i = 0; i < mm; i++) sec[i] = next->u[i] - prev->u[i];
            len = sm_dense_norm2(sec, mm);
            /* A corrector that went backwards or nowhere jumped branches. */
            if (!(len > 0) || sm_dense_dot(sec, t, mm) <= 0) st = SM_NOT_CONVERGED;
            /* ... or fell onto the shorter-period orbit it doubled from. */
            if (s->keep_off_shorter && next->gap < shorter_tol(o)) st = SM_NOT_CONVERGED;
        }
        if (st != SM_OK) {
            s->why_stop = st;
            s->h *= 0.5;
            if (s->h < o->h_min) {
                s->stop = SM_STOP_FAILED;
                return st;
            }
            continue;
        }
        s->computed++;
        s->e.arclength += len;
        for (size_t i = 0; i < mm; i++) t[i] = sec[i] / len;
        next->pt.arclength = s->e.arclength;
        memcpy(next->pt.tangent, t, mm * sizeof *t);
        s->iters = iters;
        s->at_bound = at_bound;
        s->len = len;
        return SM_OK;
    }
}

bool sm_cont_accept(sm_cont_state *s)
{
    const sm_cont_options *o = s->o;
    branch *b = &s->b;
    sm_cont_result *r = s->r;
    const size_t mm = b->n + 1;
    node *prev = s->prev, *next = s->next;
    int k = o->locate ? find_special(b, prev, next, s->special, s->s_of) : 0;
    if (emit(&s->e, &prev->pt)) {
        s->stop = SM_STOP_CALLBACK;
        r->last = prev->pt;
        r->stop_mu = prev->pt.mu;
        s->done = true;
        return false;
    }
    for (int i = 0; i < k; i++) {
        s->special[i].pt.arclength = s->e.arclength - s->len + s->s_of[i];
        memcpy(s->special[i].pt.tangent, s->t, mm * sizeof *s->t);
        if (emit(&s->e, &s->special[i].pt)) {
            s->stop = SM_STOP_CALLBACK;
            r->last = next->pt;
            r->stop_mu = next->pt.mu;
            s->done = true;
            return false;
        }
    }
    s->prev = next, s->next = prev;
    s->why_stop = SM_OK;
    if (s->at_bound) {
        s->stop = SM_STOP_BOUND;
        return false;
    }
    /* Adapt the step to Newton's effort. */
    /* (Broyden's updates converge superlinearly, not quadratically: from
     * the same predictor they take about two more, one-stride, iterations.) */
    if (s->iters <= o->fast_iter + (b->broyden ? 2 : 0))
        s->h = fmin(1.5 * s->h, o->h_max);
    else if (s->iters >= o->max_iter - 1)
        s->h = fmax(0.5 * s->h, o->h_min);
    /* A doubled orbit lies about gap/2 from the one it came from: a
     * longer step could land there. */
    s->h = fmax(fmin(s->h, 0.5 * gap_of(s, s->prev)), o->h_min);
    return true;
}

sm_status sm_cont_finish(sm_cont_state *s)
{
    sm_cont_result *r = s->r;
    if (!s->done) {
        /* The last good point closes the branch; a failure ahead is an MX. */
        node *prev = s->prev;
        prev->pt.type = SM_POINT_EP;
        r->last = prev->pt;
        r->stop_mu = prev->pt.mu;
        if (emit(&s->e, &prev->pt)) s->stop = SM_STOP_CALLBACK;
        if (s->stop == SM_STOP_FAILED) {
            sm_cont_point mx = prev->pt;
            mx.type = SM_POINT_MX;
            mx.status = s->why_stop == SM_OK ? SM_NOT_CONVERGED : s->why_stop;
            mx.stable = false;
            emit(&s->e, &mx);
            r->status = mx.status;
            r->stride_status = s->b.stride_status;
        }
        s->done = true;
    }
    r->stop = s->stop;
    r->stride_evals = s->b.evals + s->start_evals;
    return r->status;
}

sm_status sm_continue(sm_workspace *ws, const double *p, const double *x_guess, const sm_cont_options *o,
                      sm_cont_fn cb, void *ctx, sm_cont_result *r)
{
    /* The state (~130 KB) is the workspace's, kept between branches. */
    sm_cont_state *s = sm_scratch_take(ws, SM_SCRATCH_BRANCH, sizeof *s);
    if (!s) {
        memset(r, 0, sizeof *r);
        r->stop = SM_STOP_START_FAILED;
        return r->status = SM_NO_MEMORY;
    }
    memset(s, 0, sizeof *s);
    sm_status st = sm_cont_start(s, ws, p, x_guess, o, cb, ctx, r);
    if (st == SM_OK) {
        while (sm_cont_more(s) && sm_cont_step(s) == SM_OK && sm_cont_accept(s)) {
        }
        st = sm_cont_finish(s);
    }
    sm_scratch_give(ws, SM_SCRATCH_BRANCH, s);
    return st;
}

sm_status sm_cont_switch_pd(sm_workspace *ws, const double *p, const sm_cont_point *pd,
                            const sm_cont_options *o, double amplitude, double *x, double *mu,
                            sm_cont_options *next)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t n = m->n_free, mm = n + 1;
    *next = *o;
    next->period = 2 * pd->period;
    if (pd->type != SM_POINT_PD || next->period > 1024) return SM_BAD_OPTION;
    branch b;
    branch_init(&b, ws, p, next, next->period);
    /* Close to the PD the period-2N system is nearly singular in mu:
     * accurate Jacobians and patience, and a fresh Jacobian at every
     * iteration, here and in the new branch's start: an updated one's steps
     * can slide along the nearly singular direction. */
    b.central = true;
    b.broyden = false;
    next->start.update = SM_NEWTON_FULL;
    b.max_iter = 4 * o->max_iter;
    double z0[SM_MAX_STATE], scale = 0.0;
    sm_model_free(m, pd->x, z0);
    for (size_t k = 0; k < n; k++) scale = fmax(scale, fabs(z0[k]));
    if (!(amplitude > 0)) amplitude = 1e-3 * fmax(scale, 0.1);
    const double *v = pd->eigvec;
    if (!(sm_dense_norm2(v, n) > 0.5)) return SM_SINGULAR_JACOBIAN;
    /* Unknowns u = (z, w mu): P^2N(z) = z and v . z = v . z_pd + amplitude. */
    double u[MAXU], a[MAXU], F[MAXU];
    for (size_t k = 0; k < n; k++) u[k] = z0[k] + amplitude * v[k];
    u[n] = pd->mu * b.w;
    /* The constraint's normal a = (w, 0): w is v made orthogonal to the
     * period-N branch's direction in z, so that branch (u_pd + s T) stays
     * off the plane near the PD (it moves along v too), and a has no mu
     * part, so the new branch's bend mu - mu_pd ~ s^2 does not enter. */
    memcpy(a, v, n * sizeof *v);
    a[n] = 0.0;
    const double *T = pd->tangent;
    const double tz = sm_dense_norm2(T, n);
    if (tz > 1e-12) {
        const double vt = sm_dense_dot(v, T, n) / (tz * tz);
        for (size_t i = 0; i < n; i++) a[i] -= vt * T[i];
    }
    if (!(sm_dense_norm2(a, n) > 1e-3)) {
        /* v along the branch's z direction (always so in one dimension):
         * make (v, 0) orthogonal to T in (z, mu) instead. */
        memcpy(a, v, n * sizeof *v);
        a[n] = 0.0;
        const double vt = sm_dense_dot(a, T, mm);
        for (size_t i = 0; i < mm; i++) a[i] -= vt * T[i];
        if (!(sm_dense_norm2(a, mm) > 1e-9)) return SM_SINGULAR_JACOBIAN;
    }
    int iters = 0;
    double res = 0.0;
    /* The start u = u_pd + amplitude v lies on the constraint's plane. */
    sm_status st = correct(&b, u, a, sm_dense_dot(a, u, mm), 1e3 * amplitude + 1.0, F, &iters, &res);
    if (st != SM_OK) return st;
    /* It must be a true period-2N orbit, not the period-N point again. */
    double Pz[SM_MAX_STATE];
    b.p[o->param] = mu_of(&b, u);
    st = sm_poincare(ws, b.p, pd->period, u, Pz, NULL, NULL);
    if (st != SM_OK) return st;
    double gap = 0;
    for (size_t k = 0; k < n; k++) gap = fmax(gap, fabs(Pz[k] - u[k]));
    if (gap < 0.1 * amplitude) return SM_NOT_CONVERGED;
    *mu = mu_of(&b, u);
    sm_model_lift(m, b.p, u, x);
    /* Leave the bifurcation: on the new branch mu - mu_pd grows as the
     * amplitude squared, on whichever side it lies. */
    next->direction = *mu >= pd->mu ? +1 : -1;
    memset(next->orient, 0, sizeof next->orient);
    return SM_OK;
}
