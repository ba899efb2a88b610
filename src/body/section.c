/* The Poincare section of a body walker: the lift (positions by Newton on
 * the touching contacts' gaps and the origin, rates from the start phase's
 * velocity rows), the guess and the projection at the section. */
#include <math.h>
#include <string.h>

#include "../dense.h"
#include "body_model.h"

#define LIFT_MAX_EQ (BODY_MAX_CONTACTS + 2)

/* The section's position equations at q: the touching contacts' gaps and
 * the origin contact's x (and y in 3-D).  Returns their number; false in
 * *ok if the forward sweep failed. */
static size_t section_residual(const body_eval *e, const double *q, const double *v, double *r, bool *ok)
{
    const body_file *f = e->bm->f;
    *ok = sm_rigid_forward(e->m, e->d, q, v) == SM_OK;
    if (!*ok) return 0;
    size_t n = 0;
    for (size_t i = 0; i < f->n_touching; i++) {
        sm_contact c;
        body_contact_at(e, (size_t)f->touching[i], NULL, &c);
        r[n++] = sm_contact_gap(e->m, e->d, q, &c, NULL);
    }
    if (f->origin >= 0) {
        sm_contact c;
        double point[3];
        body_contact_at(e, (size_t)f->origin, NULL, &c);
        sm_contact_gap(e->m, e->d, q, &c, point);
        r[n++] = point[0];
        if (!e->bm->planar) r[n++] = point[1];
    }
    return n;
}

/* A x = b for rows x cols A: square, least squares (more equations) or
 * the least-norm solution (fewer); the solution in b[0..cols). */
static sm_status solve_any(size_t rows, size_t cols, const double *A, double *b)
{
    if (rows == cols) return sm_dense_solve(rows, A, b);
    if (rows > cols) return sm_dense_lstsq(rows, cols, A, b);
    /* x = Aᵀ (A Aᵀ)⁻¹ b */
    double AAt[LIFT_MAX_EQ * LIFT_MAX_EQ];
    if (rows > LIFT_MAX_EQ) return SM_BAD_STATE;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < rows; j++) AAt[i * rows + j] = sm_dense_dot(A + i * cols, A + j * cols, cols);
    const sm_status st = sm_dense_solve(rows, AAt, b);
    if (st != SM_OK) return st;
    double x[2 * BODY_MAX_COORDS];
    for (size_t k = 0; k < cols; k++) {
        x[k] = 0;
        for (size_t i = 0; i < rows; i++) x[k] += A[i * cols + k] * b[i];
    }
    memcpy(b, x, cols * sizeof *x);
    return SM_OK;
}

static void lift_positions(const body_eval *e, double *x, const bool *is_free)
{
    const body_model *bm = e->bm;
    const body_file *f = bm->f;
    double *q = x, *v = x + bm->nq;
    size_t U[BODY_MAX_COORDS], nu = 0;
    for (size_t i = 0; i < bm->nq; i++)
        if (!is_free[i]) {
            U[nu++] = i;
            q[i] = f->guess[i];
        }
    if (nu == 0) return;
    double r[LIFT_MAX_EQ], rp[LIFT_MAX_EQ], rm[LIFT_MAX_EQ];
    double A[LIFT_MAX_EQ * BODY_MAX_COORDS], b[LIFT_MAX_EQ + BODY_MAX_COORDS];
    for (int it = 0; it < 50; it++) {
        bool ok;
        const size_t neq = section_residual(e, q, v, r, &ok);
        if (!ok || neq == 0) return;
        /* central differences: the root itself does not depend on the
         * Jacobian's accuracy, and every kind of coordinate is handled */
        for (size_t j = 0; j < nu; j++) {
            const double h = 1e-6, q0 = q[U[j]];
            q[U[j]] = q0 + h;
            section_residual(e, q, v, rp, &ok);
            q[U[j]] = q0 - h;
            section_residual(e, q, v, rm, &ok);
            q[U[j]] = q0;
            for (size_t i = 0; i < neq; i++) A[i * nu + j] = (rp[i] - rm[i]) / (2 * h);
        }
        memcpy(b, r, neq * sizeof *r);
        if (solve_any(neq, nu, A, b) != SM_OK) return;
        double step = 0;
        for (size_t j = 0; j < nu; j++) {
            q[U[j]] -= b[j];
            step = fmax(step, fabs(b[j]));
        }
        if (!(step > 1e-15)) break;
    }
}

/* J_dep v_dep = −J_free v_free over the start phase's velocity rows. */
static void lift_rates(const body_eval *e, double *x, const bool *is_free)
{
    const body_model *bm = e->bm;
    const size_t nq = bm->nq, nv = bm->nv;
    double *q = x, *v = x + nq;
    size_t W[BODY_MAX_COORDS], nw = 0;
    for (size_t i = 0; i < nv; i++)
        if (!is_free[nq + i]) {
            W[nw++] = i;
            v[i] = 0.0;
        }
    if (nw == 0 || sm_rigid_forward(e->m, e->d, q, v) != SM_OK) return;
    sm_contact c[BODY_MAX_CONTACTS];
    const size_t nc = body_phase_contacts(e, (size_t)bm->section_phase, v, c);
    double J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V], Jdv[SM_RIGID_MAX_ROWS];
    const size_t rows = sm_contact_jacobian(e->m, e->d, c, nc, J, Jdv, NULL);
    if (rows == 0 || rows > LIFT_MAX_EQ) return;
    double A[LIFT_MAX_EQ * BODY_MAX_COORDS], b[LIFT_MAX_EQ + BODY_MAX_COORDS];
    for (size_t i = 0; i < rows; i++) {
        b[i] = -sm_dense_dot(J + i * nv, v, nv); /* the dependent rates are zero here */
        for (size_t k = 0; k < nw; k++) A[i * nw + k] = J[i * nv + W[k]];
    }
    if (solve_any(rows, nw, A, b) != SM_OK) return;
    for (size_t k = 0; k < nw; k++) v[W[k]] = b[k];
}

/* The lift on a full state x (free components set). */
static void lift_full(const body_model *bm, double *x, const double *p)
{
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, NULL, 0) != SM_OK) return;
    bool is_free[2 * BODY_MAX_COORDS] = {false};
    for (size_t k = 0; k < bm->f->n_free; k++) is_free[bm->free_index[k]] = true;
    lift_positions(&e, x, is_free);
    lift_rates(&e, x, is_free);
    /* the controller's state as the section event leaves it: integrators
     * zeroed at impacts, the held torques sampled (the clock starts) */
    if (bm->n_state > bm->nq + bm->nv) body_control_impact(&e, (size_t)bm->section_phase, true, x);
}

/* Reduced: the full lift from the file's guess for the base, then the
 * joints of its result (the base the lift found is the expansion's, up to
 * a rolling foot's offset along x, which nothing downstream reads). */
void body_lift(double *x, const double *p, const void *data)
{
    const body_model *bm = data;
    if (!bm->reduced) {
        lift_full(bm, x, p);
        return;
    }
    double xf[SM_MAX_STATE];
    memcpy(xf, bm->f->guess, bm->n_state * sizeof *xf);
    body_unreduce(bm, p, x, xf);
    lift_full(bm, xf, p);
    body_reduce(bm, xf, x);
}

void body_guess_full(const body_model *bm, double *x, const double *p)
{
    memcpy(x, bm->f->guess, bm->n_state * sizeof *x);
    lift_full(bm, x, p);
}

void body_guess(double *x, const double *p, const void *data)
{
    const body_model *bm = data;
    if (!bm->reduced) {
        body_guess_full(bm, x, p);
        return;
    }
    double xf[SM_MAX_STATE];
    body_guess_full(bm, xf, p);
    body_reduce(bm, xf, x);
}

sm_status body_project(const body_eval *e, size_t ph, double *x, double *drift)
{
    const body_model *bm = e->bm;
    double *q = x, *v = x + bm->nq;
    sm_status st = sm_rigid_forward(e->m, e->d, q, v);
    if (st != SM_OK) return st;
    sm_contact c[BODY_MAX_CONTACTS];
    const size_t nc = body_phase_contacts(e, ph, v, c);
    *drift = 0;
    if (nc == 0) return SM_OK;
    /* a lock at: here holds the value it has: nothing to restore */
    for (size_t i = 0; i < nc; i++)
        if (bm->f->contacts[bm->f->phases[ph].contacts[i]].hold) c[i].at = q[sm_rigid_body_qadr(e->m, c[i].body)];
    return sm_rigid_project(e->m, e->d, c, nc, 1e-13, q, v, drift, e->work);
}
