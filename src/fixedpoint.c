#include "stridemap/fixedpoint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dense.h"
#include "stridemap/family.h"

void sm_newton_options_default(sm_newton_options *o)
{
    o->period = 1;
    o->tol = 1e-10;
    o->max_iter = 30;
    o->fd_step = 0.0;
    o->central = false;
    o->max_backtracks = 20;
    o->update = SM_NEWTON_BROYDEN;
    o->jacobian_guess = NULL;
    o->jacobian = SM_JACOBIAN_FD;
    o->check_fd = false;
}

sm_status sm_newton_options_check(const sm_newton_options *o, char *why, size_t why_len)
{
    if (o->period < 1 || o->period > 1024) {
        snprintf(why, why_len, "sm_newton_options.period must be a whole number from 1 to 1024, not %d", o->period);
        return SM_BAD_OPTION;
    }
    if (!(o->tol > 0) || !isfinite(o->tol)) {
        snprintf(why, why_len, "sm_newton_options.tol must be a positive number, not %g", o->tol);
        return SM_BAD_OPTION;
    }
    if (o->max_iter < 0) {
        snprintf(why, why_len, "sm_newton_options.max_iter must be >= 0, not %d", o->max_iter);
        return SM_BAD_OPTION;
    }
    if (!(o->fd_step >= 0 && o->fd_step < 1)) {
        snprintf(why, why_len, "sm_newton_options.fd_step must be in [0, 1) (0: the default for each difference scheme), not %g", o->fd_step);
        return SM_BAD_OPTION;
    }
    if (o->jacobian != SM_JACOBIAN_FD && o->jacobian != SM_JACOBIAN_EXACT) {
        snprintf(why, why_len, "sm_newton_options.jacobian must be SM_JACOBIAN_FD or SM_JACOBIAN_EXACT, not %d",
                 (int)o->jacobian);
        return SM_BAD_OPTION;
    }
    if (o->max_backtracks < 0) {
        snprintf(why, why_len, "the number of backtracking halvings must be >= 0");
        return SM_BAD_OPTION;
    }
    if (o->update != SM_NEWTON_BROYDEN && o->update != SM_NEWTON_FULL) {
        snprintf(why, why_len, "sm_newton_options.update must be SM_NEWTON_BROYDEN or SM_NEWTON_FULL, not %d", (int)o->update);
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

/* invariant(lift(z)) - its prescribed value, relative to that value's size
 * so that the row weighs like the others (an energy of 800 J would
 * otherwise leave a rounding residual of 1e-13 * 800). */
double sm_invariant_gap(const sm_model *m, const double *p, const double *z)
{
    double x[SM_MAX_STATE];
    sm_model_lift(m, p, z, x);
    const double target = p[m->invariant_param];
    return (m->invariant(x, p, m->data) - target) / fmax(1.0, fabs(target));
}

typedef struct {
    const sm_model *m;
    const double *p;
} invariant_ctx;

static double invariant_gap(const void *ctx, const double *z)
{
    const invariant_ctx *c = ctx;
    return sm_invariant_gap(c->m, c->p, z);
}

/* grad[n_free] = d invariant_gap / dz by central differences of step h (no
 * strides: only lift and the invariant are evaluated). */
void sm_invariant_gradient(const sm_model *m, const double *p, const double *z, double h, double *grad)
{
    const invariant_ctx c = {m, p};
    sm_dense_central_gradient(m->n_free, invariant_gap, &c, z, h, grad);
}

/* Moves z onto the invariant's level set along its gradient (a few scalar
 * Newton steps, no strides): a start with the wrong energy would walk off
 * to another member of the family, or fall. */
void sm_invariant_project(const sm_model *m, const double *p, double *z, double h)
{
    const size_t n = m->n_free;
    for (int it = 0; it < 8; it++) {
        const double c = sm_invariant_gap(m, p, z);
        if (fabs(c) <= 1e-15) return;
        double grad[SM_MAX_STATE], norm2 = 0.0;
        sm_invariant_gradient(m, p, z, h, grad);
        for (size_t j = 0; j < n; j++) norm2 += grad[j] * grad[j];
        if (!(norm2 > 0) || !isfinite(norm2)) return;
        for (size_t j = 0; j < n; j++) z[j] -= c * grad[j] / norm2;
    }
}

/* Solves (J - I) dz = -g in place of dz.  With an invariant the gaits form
 * a family and J - I is singular along it; the row grad(invariant) dz =
 * -g[n] picks the member, and the consistent (n+1) x n system is solved by
 * least squares. */
static sm_status newton_step(const sm_model *m, const double *p, const double *z, double h,
                             const double *J, const double *g, double *dz)
{
    const size_t n = m->n_free, rows = n + sm_extra_rows(m);
    double A[(SM_MAX_STATE + 2) * SM_MAX_STATE], b[SM_MAX_STATE + 2];
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) A[i * n + j] = J[i * n + j] - (i == j ? 1.0 : 0.0);
        b[i] = -g[i];
    }
    sm_status st;
    if (m->invariant) {
        sm_invariant_gradient(m, p, z, h, &A[n * n]);
        b[n] = -g[n];
    }
    if (m->family_condition) {
        const size_t k = sm_family_row(m);
        sm_family_gradient(m, p, z, h, &A[k * n]);
        b[k] = -g[k];
    }
    if (rows > n) {
        st = sm_dense_lstsq(rows, n, A, b);
    } else {
        st = sm_dense_solve(n, A, b);
    }
    memcpy(dz, b, n * sizeof *dz);
    return st;
}

/* g = P^N(z) - z; remembers a stride failure in r.  With an invariant,
 * P^N(z) is first moved back onto its level set: the exact map conserves
 * it, the integrated one drifts by its error, and that drift (reported as
 * r->invariant_drift) would otherwise be a floor under the residual, since
 * no point of the drifting map both returns to itself and keeps the level.
 * Pz stays the unprojected P^N(z), the base of forward differences. */
static sm_status residual_at(sm_workspace *ws, const double *p, int period, const double *z, double h,
                             double *Pz, double *g, sm_step_metrics *mt, sm_fixed_result *r)
{
    const size_t n = r->n_free;
    sm_status st = sm_poincare(ws, p, period, z, Pz, NULL, mt);
    r->stride_evals += period;
    if (st != SM_OK) {
        r->stride_status = st;
        return st;
    }
    const sm_model *m = sm_workspace_model(ws);
    double Qz[SM_MAX_STATE];
    memcpy(Qz, Pz, n * sizeof *Qz);
    if (m->invariant) {
        sm_invariant_project(m, p, Qz, h);
        g[n] = sm_invariant_gap(m, p, z);
    }
    if (m->family_condition) g[sm_family_row(m)] = sm_family_gap(m, p, z);
    for (size_t i = 0; i < n; i++) g[i] = Qz[i] - z[i];
    return SM_OK;
}

/* A residual this small may be the integration error of one stride. */
static double noise_level(const sm_workspace *ws, const double *z, size_t n)
{
    const sm_solver_options *so = sm_workspace_options(ws);
    return 1e3 * fmax(so->rtol, so->atol) * fmax(1.0, sm_dense_max_abs(z, n));
}

/* Newton's Jacobian of P^N at z (where P^N(z) = Pz): by differences
 * (forward from Pz, or central as o asks), or the exact one from one
 * sensitivity run of P^N; the one place it is made. */
static sm_status newton_jacobian(sm_workspace *ws, const double *p, const sm_newton_options *o, const double *z,
                                 const double *Pz, double h, double *J, sm_fixed_result *r)
{
    sm_status st = o->jacobian == SM_JACOBIAN_EXACT
                       ? sm_map_jacobian_exact(ws, p, o->period, z, NULL, J, &r->stride_evals)
                       : sm_map_jacobian(ws, p, o->period, z, Pz, h, o->central, J, &r->stride_evals);
    if (st != SM_OK) r->stride_status = st;
    return st;
}

/* Broyden's "good" rank-one update of J = dP^N/dz after the step z -> zt:
 * the least change to J that maps the step onto the change of P^N it
 * made (Dennis & Schnabel 1996, sec. 8.1). */
static void broyden_update(size_t n, const double *z, const double *zt, const double *Pz, const double *Pzt,
                           double *J)
{
    double s[SM_MAX_STATE], ss = 0.0;
    for (size_t j = 0; j < n; j++) {
        s[j] = zt[j] - z[j];
        ss += s[j] * s[j];
    }
    if (!(ss > 0)) return;
    for (size_t i = 0; i < n; i++) {
        double Js = 0.0;
        for (size_t j = 0; j < n; j++) Js += J[i * n + j] * s[j];
        const double c = ((Pzt[i] - Pz[i]) - Js) / ss;
        for (size_t j = 0; j < n; j++) J[i * n + j] += c * s[j];
    }
}

/* Every exit reports the point its residual belongs to. */
/* The trial point (zt, P^N(zt), its residual g and first step's metrics)
 * becomes Newton's current one. */
static void accept_trial(size_t n, size_t n_eq, const double *zt, const double *Pzt, const double *gt,
                         const sm_step_metrics *mtt, double *z, double *Pz, double *g, sm_step_metrics *mt)
{
    memcpy(z, zt, n * sizeof *z);
    memcpy(Pz, Pzt, n * sizeof *Pz);
    memcpy(g, gt, n_eq * sizeof *g);
    *mt = *mtt;
}

static sm_status give_up(const sm_model *m, const double *p, const double *z, sm_fixed_result *r,
                         sm_status why)
{
    sm_model_lift(m, p, z, r->x);
    r->newton_evals = r->stride_evals;
    return r->status = why;
}

/* The shortest d dividing N with P^d(x) = x to within `same` (max norm of
 * the free coordinates): a period-N fixed point may be a shorter gait.
 * x1 is P(x) when a stride from x was already taken (NULL if not). */
static int shortest_period(sm_workspace *ws, const double *p, const double *x, const double *x1, int period,
                           double same, long *evals)
{
    const sm_model *m = sm_workspace_model(ws);
    double y[SM_MAX_STATE];
    memcpy(y, x, m->n_state * sizeof *y);
    for (int d = 1; d < period; d++) {
        if (d == 1 && x1) {
            memcpy(y, x1, m->n_state * sizeof *y);
        } else {
            if (sm_stride(ws, p, y, y, NULL, NULL) != SM_OK) return period;
            (*evals)++;
        }
        if (period % d != 0) continue;
        double dist = 0.0;
        for (size_t k = 0; k < m->n_free; k++) dist = fmax(dist, fabs(y[m->free_index[k]] - x[m->free_index[k]]));
        if (dist <= same) return d;
    }
    return period;
}

/* A fixed point whose step takes no time or covers no ground is the walker
 * standing with its legs together on the heel-strike surface, not a gait.
 * "No time" is relative to the stride time limit; "no ground" is 1e-6 in the
 * model's length unit (a leg is of order 1 in every walker's units). */
static bool degenerate_step(const sm_workspace *ws, const double *p, const sm_step_metrics *mt)
{
    const sm_model *m = sm_workspace_model(ws);
    if (m->map) return false; /* a plain map has no steps to speak of */
    const double t_opt = sm_workspace_options(ws)->t_max;
    const double t_lim = t_opt > 0 ? t_opt : m->time_limit ? m->time_limit(p, m->data) : 1.0;
    if (!(mt->period > 1e-6 * t_lim)) return true;
    return isfinite(mt->step_length) && fabs(mt->step_length) < 1e-6;
}

sm_status sm_fixed_point(sm_workspace *ws, const double *p, const double *x_guess,
                         const sm_newton_options *o, sm_fixed_result *r)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t n = m->n_free;
    memset(r, 0, sizeof *r);
    r->n_state = m->n_state;
    r->n_free = n;
    r->residual = INFINITY;
    r->max_abs_eig = NAN;
    r->trivial_index = -1;
    r->period = o->period;
    r->minimal_period = o->period;
    r->invariant_drift = NAN;
    r->status = SM_NOT_CONVERGED;
    r->fd_check_status = SM_NOT_CONVERGED; /* not computed */
    for (size_t i = 0; i < SM_MAX_STATE; i++) r->eig_fd_re[i] = r->eig_fd_im[i] = NAN;

    char why[160];
    if (sm_newton_options_check(o, why, sizeof why) != SM_OK) return r->status = SM_BAD_OPTION;
    for (size_t i = 0; i < m->n_state; i++)
        if (!isfinite(x_guess[i])) return r->status = SM_BAD_STATE;

    const double rtol = sm_workspace_options(ws)->rtol;
    const double h = sm_newton_fd_step(o->fd_step, o->central, rtol);
    double z[SM_MAX_STATE], Pz[SM_MAX_STATE], g[SM_MAX_STATE + 2], dz[SM_MAX_STATE];
    double zt[SM_MAX_STATE], Pzt[SM_MAX_STATE], gt[SM_MAX_STATE + 2];
    const size_t n_eq = n + sm_extra_rows(m);
    sm_step_metrics mt, mtt;
    sm_model_free(m, x_guess, z);
    if (m->invariant) sm_invariant_project(m, p, z, h);
    sm_model_lift(m, p, z, r->x);

    if (residual_at(ws, p, o->period, z, h, Pz, g, &mt, r) != SM_OK) {
        r->newton_evals = r->stride_evals;
        return r->status;
    }
    double norm = sm_dense_max_abs(g, n_eq);
    r->residual = norm;

    /* J is dP^N/dz; `fresh` when it was just differenced at z, so that a
     * step it cannot make good is Newton's failure, not the update's. */
    double *J = r->jacobian;
    bool have_J = false, fresh = false;
    if (o->jacobian_guess) {
        for (size_t i = 0; i < n * n; i++)
            if (!isfinite(o->jacobian_guess[i])) return give_up(m, p, z, r, SM_BAD_OPTION);
        memcpy(J, o->jacobian_guess, n * n * sizeof *J);
        have_J = true;
    }
    while (norm > o->tol) {
        if (r->iterations >= o->max_iter) return give_up(m, p, z, r, SM_NOT_CONVERGED);
        r->iterations++;
        /* An exact Jacobian costs about what a Broyden miss does, and keeps
         * Newton quadratic: take it every iteration. */
        if (!have_J || o->update == SM_NEWTON_FULL || o->jacobian == SM_JACOBIAN_EXACT) {
            sm_status st = newton_jacobian(ws, p, o, z, Pz, h, J, r);
            if (st != SM_OK) return give_up(m, p, z, r, SM_NOT_CONVERGED);
            have_J = fresh = true;
        }
        double lambda = 1.0, trial = INFINITY;
        for (;;) {
            sm_status st = newton_step(m, p, z, h, J, g, dz);
            /* Backtrack until the residual falls: a full step from a poor
             * guess can land on a state that falls or walks off to another
             * gait.  An updated Jacobian gets one full step: one that fails
             * is cheaper to replace than to halve. */
            const int halvings = fresh ? o->max_backtracks : 0;
            lambda = 1.0, trial = INFINITY;
            for (int b = 0; st == SM_OK && b <= halvings; b++, lambda *= 0.5) {
                for (size_t i = 0; i < n; i++) zt[i] = z[i] + lambda * dz[i];
                if (residual_at(ws, p, o->period, zt, h, Pzt, gt, &mtt, r) != SM_OK) continue;
                trial = sm_dense_max_abs(gt, n_eq);
                if (trial < norm) break;
            }
            if (fresh) {
                if (st != SM_OK) return give_up(m, p, z, r, st);
                break;
            }
            /* An updated (or the caller's) Jacobian must halve the residual:
             * a step that does less may be heading for another gait, and is
             * dropped for full Newton's own from here. */
            if (st == SM_OK && trial <= 0.5 * norm) break;
            st = newton_jacobian(ws, p, o, z, Pz, h, J, r);
            if (st != SM_OK) return give_up(m, p, z, r, SM_NOT_CONVERGED);
            fresh = true;
        }
        /* No step lowers the residual, which is above tol: not converged.
         * Near the integrator's error level (1e3 tolerances: a stride's
         * global error) the map is too noisy for Newton to go further;
         * far from it Newton is lost (its steps fall, or lead uphill). */
        if (!(trial < norm)) {
            return give_up(m, p, z, r, norm <= noise_level(ws, z, n) ? SM_STALLED : SM_NOT_CONVERGED);
        }
        /* Far from the gait (a step halved, or one that did not halve the
         * residual) a secant would lead off to another fixed point, or to
         * standing: the updates take over only where Newton's own steps
         * are taken whole and work. */
        if (fresh && !(lambda == 1.0 && trial <= 0.5 * norm)) have_J = false;
        if (o->update == SM_NEWTON_BROYDEN && have_J) broyden_update(n, z, zt, Pz, Pzt, J);
        fresh = false;
        accept_trial(n, n_eq, zt, Pzt, gt, &mtt, z, Pz, g, &mt);
        r->residual = norm = trial;
    }
    /* Full Newton's last step lands far below tol (it converges
     * quadratically), Broyden's just below it; and the multipliers of a
     * point 1e-10 off the gait are up to 1e-7 off theirs (the maps curve by
     * about 2000).  So Broyden takes up to two more steps, one stride each,
     * towards tol / 100, each kept only where it lowers the residual. */
    for (int k = 0; o->update == SM_NEWTON_BROYDEN && have_J && k < 2 && norm > 1e-2 * o->tol &&
                    r->iterations < o->max_iter;
         k++) {
        if (newton_step(m, p, z, h, J, g, dz) != SM_OK) break;
        for (size_t i = 0; i < n; i++) zt[i] = z[i] + dz[i];
        if (residual_at(ws, p, o->period, zt, h, Pzt, gt, &mtt, r) != SM_OK) break;
        const double trial = sm_dense_max_abs(gt, n_eq);
        if (!(trial < norm)) break;
        r->iterations++;
        broyden_update(n, z, zt, Pz, Pzt, J);
        accept_trial(n, n_eq, zt, Pzt, gt, &mtt, z, Pz, g, &mt);
        r->residual = norm = trial;
    }
    r->newton_evals = r->stride_evals;

    sm_model_lift(m, p, z, r->x);
    r->metrics = mt;
    if (m->invariant) r->invariant_drift = sm_invariant_gap(m, p, Pz) - sm_invariant_gap(m, p, z);
    if (degenerate_step(ws, p, &mt)) return r->status = SM_DEGENERATE_GAIT;
    r->converged = true;
    r->status = SM_OK;
    if (m->gait_family) r->family = m->gait_family(r->x, mt.period, p, m->data);
    /* One more stride from the gait, sampled, for the measures that need the
     * whole trajectory (clearance, ground forces); its end is the orbit's
     * second state, where the period check starts. */
    double x_end[SM_MAX_STATE];
    bool have_end = false;
    if (isfinite(mt.period) && mt.period > 0) {
        sm_step_metrics measured;
        if (sm_stride_measured(ws, p, r->x, x_end, &measured, NULL, mt.period / SM_MEASURE_SAMPLES) == SM_OK) {
            r->metrics = measured;
            have_end = true;
        }
        r->stride_evals++;
    }
    r->minimal_period = shortest_period(ws, p, r->x, have_end ? x_end : NULL, o->period, fmax(1e-6, 1e3 * o->tol),
                                        &r->stride_evals);
    const double h_stab = sm_stability_fd_step(o->fd_step, rtol);
    sm_status st = sm_gait_analyse(ws, p, h_stab, &r->gait, &r->stride_evals);
    if (st == SM_OK && o->check_fd) {
        sm_gait fd = r->gait;
        r->fd_check_status = sm_gait_analyse_fd(ws, p, h_stab, &fd, &r->stride_evals);
        memcpy(r->eig_fd_re, fd.eig_re, sizeof r->eig_fd_re);
        memcpy(r->eig_fd_im, fd.eig_im, sizeof r->eig_fd_im);
    }
    if (st != SM_OK) {
        /* The gait stands; only its stability could not be computed. */
        r->stride_status = st;
        return r->status = st;
    }
    return SM_OK;
}
