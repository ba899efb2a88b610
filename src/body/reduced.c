/* integrate: reduced (docs/body-walkers.md "Reduced coordinates"): a planar
 * walker whose floating base is two slides (x along the slope, z normal
 * to it) and whose every phase holds one stance contact (the section's
 * origin, a pin or a roll) integrates only its joints q_i and their rates
 * v_i.  The base follows from the stance contact without iteration, since
 * the slides translate the whole tree with unit axes:
 *     pin:  base = −(the site at base 0), the site at the origin;
 *     roll: base_z = r − (the disk centre at base 0)_z, and the rolling
 *           condition ċ_x = r ω_y integrates to c_x = r φ_y (φ_y the
 *           disk's angle about y), so the base's x is continuous over a
 *           stride and its rate is the true one;
 * and the base's rates from the contact's rows, J_d v_d = −J_i v_i.  Every
 * callback expands the engine's state this way and runs on the full state,
 * so events, impacts, the section and the measures are the full model's.
 * The right-hand side needs no expansion: it keeps the full constrained
 * solve on the base at rest at the origin (phase.c) and returns the
 * joints' rows, since on flat ground under uniform gravity neither where
 * the base is nor a uniform velocity of the whole walker changes M, the
 * bias, the contact rows or J̇v (hence no slides, no forces on the base).  The base is dropped from
 * the error test and from the integrator's vectors: 6 states instead of 8
 * for the compass, 8 instead of 12 for a kneed walker.
 *
 * So is a joint that one lock holds in every phase and through every
 * impact (a stance knee; both knees of a straight-legged walker): its rate
 * is zero throughout and the section's projection puts it at the lock's
 * value, so it is that constant in the expansion, and CVODE does not carry
 * it (4 states instead of 8 for kneed_mcgeer_locked.yaml). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../dense.h"
#include "body_model.h"

#define BASE 2 /* the base's two slides: q[0] along x, q[1] along z */

static bool unit(const double *a, int k)
{
    const double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return n > 0 && fabs(a[k] / n - 1.0) < 1e-15 && a[(k + 1) % 3] == 0 && a[(k + 2) % 3] == 0;
}

static bool no_turn(const double *quat) { return quat[0] == 1 && quat[1] == 0 && quat[2] == 0 && quat[3] == 0; }

/* Why the file's walker cannot integrate reduced, or NULL. */
static const char *not_reducible(const body_model *bm)
{
    const body_file *f = bm->f;
    if (!bm->planar) return "the walker is not planar";
    if (f->n_bodies < 3 || f->bodies[0].joint != SM_RIGID_SLIDE || f->bodies[0].parent != -1 ||
        !unit(f->bodies[0].axis, 0) || !no_turn(f->bodies[0].quat) || f->bodies[1].joint != SM_RIGID_SLIDE ||
        f->bodies[1].parent != 0 || !unit(f->bodies[1].axis, 2) || !no_turn(f->bodies[1].quat))
        return "the first two bodies must be the base's slides, along [1, 0, 0] from the world and [0, 0, 1] on it";
    for (size_t i = 2; i < f->n_bodies; i++)
        if (f->bodies[i].joint != SM_RIGID_HINGE && f->bodies[i].joint != SM_RIGID_FIXED)
            return "every body after the base's slides must hang on a hinge (or be fixed)";
    if (f->nq != f->nv) return "every coordinate must be its own rate";
    if (f->origin < 0) return "the section names no origin contact (the stance contact)";
    const body_contact *s = &f->contacts[f->origin];
    if (s->kind != SM_CONTACT_PIN && s->kind != SM_CONTACT_ROLL) return "the section's origin must be a pin or a roll";
    if (s->kind == SM_CONTACT_PIN && s->rows) return "the stance pin must hold all its rows";
    for (size_t ph = 0; ph < f->n_phases; ph++)
        if (body_phase_contact_slot(f, ph, f->origin) < 0) return "every phase must hold the section's origin contact";
    /* a sliding contact's friction and a force on a slide read the base's
     * velocity, which the right-hand side leaves at zero */
    for (size_t k = 0; k < f->n_contacts; k++)
        if (f->contacts[k].kind == SM_CONTACT_SLIDE) return "no sliding contact";
    for (size_t i = 0; i < f->n_forces; i++)
        for (size_t k = 0; k < f->forces[i].n; k++)
            if (f->forces[i].body[k] < BASE) return "no force on the base's slides";
    for (size_t k = 0; k < f->n_free; k++)
        if (f->free_index[k] % f->nq < BASE) return "the section's free list names a slide of the base";
    /* the reduced equations take no controller's torques yet */
    if (f->ctrl.kind != BODY_CTRL_NONE) return "no controller";
    return NULL;
}

/* The lock on joint i (coordinate BASE + i) in every phase and in every
 * impact that names its contacts, or -1.  A free coordinate is never
 * held: the section moves it. */
static int held_lock(const body_model *bm, size_t i)
{
    const body_file *f = bm->f;
    for (size_t k = 0; k < f->n_free; k++)
        if (f->free_index[k] % f->nq == BASE + i) return -1;
    for (size_t c = 0; c < f->n_contacts; c++) {
        const body_contact *bc = &f->contacts[c];
        if (bc->kind != SM_CONTACT_LOCK || sm_rigid_body_qadr(bm->tmpl, (size_t)bc->body) != BASE + i) continue;
        /* at: here holds the joint where a phase begins: no value to put it at */
        if (bc->hold) return -1;
        bool every = true;
        for (size_t ph = 0; every && ph < f->n_phases; ph++) {
            every &= body_phase_contact_slot(f, ph, (int)c) >= 0;
            for (size_t e = 0; every && e < f->phases[ph].n_events; e++) {
                const body_event *E = &f->phases[ph].events[e];
                if (!E->impact || !E->n_impact) continue;
                bool named = false;
                for (size_t j = 0; j < E->n_impact; j++) named |= E->impact_contacts[j] == (int)c;
                every &= named;
            }
        }
        if (every) return (int)c;
    }
    return -1;
}

static void find_held(body_model *bm)
{
    bm->n_held = 0;
    for (size_t i = 0; i < bm->nq - BASE; i++)
        if ((bm->held[i] = held_lock(bm, i)) >= 0) {
            bm->held_joint[bm->n_held++] = (unsigned char)i;
            bm->held_at0[i] = bm->contacts0[bm->held[i]].at;
        }
}

sm_status body_reduced_setup(body_model *bm, char *why, size_t why_len)
{
    const body_file *f = bm->f;
    if (!f->reduced) return SM_OK;
    const char *no = not_reducible(bm);
    if (no) {
        snprintf(why, why_len, "%s:%d:%d: integrate: reduced needs %s: %s; or write integrate: full", f->path,
                 f->integrate_pos.line, f->integrate_pos.col,
                 "a planar walker on two base slides whose every phase holds the section's origin", no);
        return SM_BAD_MODEL_FILE;
    }
    const size_t nq = bm->nq, ni = nq - BASE;
    if (f->contacts[f->origin].kind == SM_CONTACT_ROLL) {
        /* the disk's angle is linear in the hinges (a planar tree's angles
         * add): its coefficients once here, not the 3-D poses per call */
        BODY_EVAL_MEM(mem, bm);
        body_eval e;
        if (body_eval_init(&e, bm, bm->defaults, mem, why, why_len) != SM_OK) return SM_BAD_MODEL_FILE;
        const size_t body = (size_t)f->sites[f->contacts[f->origin].site].body;
        double q[SM_MAX_STATE] = {0}, v[SM_MAX_STATE] = {0}, R[9];
        sm_rigid_forward(e.m, e.d, q, v);
        sm_rigid_body_state(e.m, e.d, body, R, NULL, NULL, NULL);
        bm->roll_phi0 = atan2(R[2], R[0]);
        for (size_t j = 0; j < nq; j++) {
            q[j] = 0.5;
            sm_rigid_forward(e.m, e.d, q, v);
            sm_rigid_body_state(e.m, e.d, body, R, NULL, NULL, NULL);
            bm->roll_coef[j] = (atan2(R[2], R[0]) - bm->roll_phi0) / 0.5;
            q[j] = 0.0;
        }
    }
    bm->reduced = true;
    bm->pinned_data_words = sm_rigid_pinned_data_bytes(bm->tmpl) / sizeof(max_align_t) + 1;
    bm->pinned_ok = sm_rigid_pinned_plan_init(bm->tmpl, (size_t)f->contacts[f->origin].site, &bm->pinned);
    /* the plan's hinges are the joints after the slides, in order */
    bm->pinned_ok &= bm->pinned.n == ni;
    for (size_t i = 0; bm->pinned_ok && i < ni; i++) bm->pinned_ok &= bm->pinned.vadr[i] == BASE + i;
    for (size_t k = 0; bm->pinned_ok && k < f->n_contacts; k++)
        if (f->contacts[k].kind == SM_CONTACT_LOCK)
            for (size_t i = 0; i < bm->pinned.n; i++)
                if (bm->pinned.vadr[i] == sm_rigid_body_vadr(bm->tmpl, (size_t)f->contacts[k].body))
                    bm->lock_hinge[k] = (unsigned char)i;
    for (size_t ph = 0; bm->pinned_ok && ph < f->n_phases; ph++) {
        bool locked[SM_RIGID_MAX_V] = {false};
        for (size_t k = 0; k < f->phases[ph].n_contacts; k++) {
            const body_contact *bc = &f->contacts[f->phases[ph].contacts[k]];
            if (bc->kind == SM_CONTACT_LOCK) locked[sm_rigid_body_vadr(bm->tmpl, (size_t)bc->body)] = true;
        }
        bm->pinned_nfree[ph] = 0;
        for (size_t i = 0; i < bm->pinned.n; i++) {
            bm->pinned_locked[ph][i] = locked[bm->pinned.vadr[i]];
            if (!locked[bm->pinned.vadr[i]]) bm->pinned_free[ph][bm->pinned_nfree[ph]++] = (unsigned char)i;
        }
    }
    bm->events_read_base_rates = false;
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t k = 0; k < f->phases[ph].n_events; k++) {
            const body_event *E = &f->phases[ph].events[k];
            bm->events_read_base_rates |= E->when == BODY_WHEN_RATE && E->target < BASE;
        }
    for (size_t ph = 0; ph < f->n_phases; ph++) {
        bool direct = true;
        for (size_t k = 0; k < f->phases[ph].n_contacts; k++) {
            const int ck = f->phases[ph].contacts[k];
            direct &= ck == f->origin || f->contacts[ck].kind == SM_CONTACT_LOCK;
        }
        bm->reduced_direct[ph] = direct;
    }
    for (size_t k = 0; k < f->n_forces; k++) /* the loader allows only bodies of 1-DOF joints */
        for (size_t i = 0; i < f->forces[k].n && i < 8; i++)
            bm->spring_ri[k][i] = (unsigned char)(sm_rigid_body_qadr(bm->tmpl, (size_t)f->forces[k].body[i]) - BASE);
    find_held(bm);
    size_t nk = 0, at[BODY_MAX_COORDS];
    for (size_t i = 0; i < ni; i++)
        if (bm->held[i] < 0) {
            at[i] = nk;
            bm->kept[nk++] = (unsigned char)i;
        }
    bm->n_reduced = 2 * nk;
    for (size_t k = 0; k < nk; k++) {
        bm->reduced_names[k] = bm->state_names[BASE + bm->kept[k]];
        bm->reduced_names[nk + k] = bm->state_names[nq + BASE + bm->kept[k]];
    }
    for (size_t k = 0; k < f->n_free; k++) { /* find_held keeps every free joint */
        const size_t j = f->free_index[k];
        bm->reduced_free[k] = j < nq ? at[j - BASE] : nk + at[j - nq - BASE];
    }
    return SM_OK;
}

void body_reduce(const body_model *bm, const double *xf, double *xr)
{
    const size_t nq = bm->nq, nk = bm->n_reduced / 2;
    for (size_t k = 0; k < nk; k++) {
        xr[k] = xf[BASE + bm->kept[k]];
        xr[nk + k] = xf[nq + BASE + bm->kept[k]];
    }
}

/* The joints of xf from xr, the held ones at at[joint] (read for those
 * alone) and at rest. */
static void put_joints(const body_model *bm, const double *at, const double *xr, double *xf)
{
    const size_t nq = bm->nq, nk = bm->n_reduced / 2;
    if (!bm->n_held) { /* the state is every joint */
        memcpy(xf + BASE, xr, nk * sizeof *xf);
        memcpy(xf + nq + BASE, xr + nk, nk * sizeof *xf);
        return;
    }
    for (size_t h = 0; h < bm->n_held; h++) {
        const size_t i = bm->held_joint[h];
        xf[BASE + i] = at[i];
        xf[nq + BASE + i] = 0.0;
    }
    for (size_t k = 0; k < nk; k++) {
        xf[BASE + bm->kept[k]] = xr[k];
        xf[nq + BASE + bm->kept[k]] = xr[nk + k];
    }
}

/* The held joints' lock values at p (the defaults' kept in the model). */
static const double *held_at(const body_model *bm, const double *p, bool at_defaults, double *buf)
{
    if (at_defaults) return bm->held_at0;
    for (size_t h = 0; h < bm->n_held; h++) {
        const size_t i = bm->held_joint[h];
        buf[i] = body_num_eval(&bm->f->contacts[bm->held[i]].at, p);
    }
    return buf;
}

void body_unreduce(const body_model *bm, const double *p, const double *xr, double *xf)
{
    double buf[BODY_MAX_COORDS];
    put_joints(bm, held_at(bm, p, false, buf), xr, xf);
}

/* The stance contact as a rigid-core contact, without the anchor that
 * body_contact_at finds by a site position (only the projection reads it). */
static void stance_contact(const body_eval *e, sm_contact *c) { body_contact_shape(e, (size_t)e->bm->f->origin, c); }

static sm_status expand(const body_eval *e, const double *xr, double *xf, bool rates)
{
    const body_model *bm = e->bm;
    const size_t nq = bm->nq, nv = bm->nv;
    double *q = xf, *v = xf + nq;
    q[0] = q[1] = v[0] = v[1] = 0.0;
    double buf[BODY_MAX_COORDS];
    put_joints(bm, bm->n_held ? held_at(bm, e->p, e->at_defaults, buf) : NULL, xr, xf);
    /* positions for the events: the pinned sweep (no link velocities, which
     * no event reads; the finiteness check on the joints as the full one's) */
    double sum = 0.0;
    for (size_t i = 0; !rates && bm->pinned_ok && i < bm->n_reduced; i++) sum += xr[i];
    if (!rates && bm->pinned_ok && !isfinite(sum)) return SM_BAD_STATE;
    if (rates || !bm->pinned_ok || !sm_rigid_pinned_forward(e->m, e->d, q + BASE, v + BASE)) {
        const sm_status st = sm_rigid_forward(e->m, e->d, q, v);
        if (st != SM_OK) return st;
    }
    const body_contact *sc = &bm->f->contacts[bm->f->origin];
    double pos[3];
    sm_rigid_site_pos(e->m, e->d, (size_t)sc->site, pos);
    if (sc->kind == SM_CONTACT_ROLL) {
        const double r = body_origin_radius(e);
        double phi = bm->roll_phi0;
        for (size_t j = BASE; j < nq; j++) phi += bm->roll_coef[j] * q[j];
        q[0] = r * phi - pos[0];
        q[1] = r - pos[2];
    } else {
        q[0] = -pos[0];
        q[1] = -pos[2];
    }
    if (!rates) {
        sm_rigid_translate(e->m, e->d, (const double[3]){q[0], 0.0, q[1]});
        return SM_OK;
    }
    /* the rows depend on q alone, and the slides only translate: J at base 0 */
    sm_contact c;
    stance_contact(e, &c);
    double J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V], Jdv[SM_RIGID_MAX_ROWS];
    if (sm_contact_jacobian(e->m, e->d, &c, 1, J, Jdv, NULL) != BASE) return SM_BAD_STATE;
    sm_rigid_translate(e->m, e->d, (const double[3]){q[0], 0.0, q[1]});
    double b[BASE];
    for (size_t r = 0; r < BASE; r++) b[r] = -sm_dense_dot(J + r * nv + BASE, v + BASE, nv - BASE);
    /* J_d is the identity for a pin, and for a roll's rows too; solved all
     * the same, by Cramer's rule (LAPACK's call cost more than the solve) */
    const double a = J[0], bb = J[1], c2 = J[nv], d = J[nv + 1], det = a * d - bb * c2;
    if (!(fabs(det) > 1e-12)) return SM_SINGULAR_CONSTRAINTS;
    v[0] = (d * b[0] - bb * b[1]) / det;
    v[1] = (a * b[1] - c2 * b[0]) / det;
    return SM_OK;
}

sm_status body_expand(const body_eval *e, const double *xr, double *xf) { return expand(e, xr, xf, true); }

sm_status body_expand_positions(const body_eval *e, const double *xr, double *xf)
{
    return expand(e, xr, xf, false);
}

sm_status body_expand_at(const body_model *bm, const double *p, const double *xr, double *xf)
{
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    const sm_status st = body_eval_init(&e, bm, p, mem, NULL, 0);
    return st != SM_OK ? st : body_expand(&e, xr, xf);
}

/* Solves A x = b in place (x in b) for A symmetric positive definite, its
 * lower triangle read and overwritten by the Cholesky factor; false when
 * a pivot is not positive. */
static bool spd_solve(double *A, size_t nf, double *b)
{
    if (nf == 2) { /* the compass's two legs: Cramer's rule, a third of the factor's cost */
        const double det = A[0] * A[3] - A[2] * A[2];
        if (!(A[0] > 0 && det > 0)) return false;
        const double x0 = (A[3] * b[0] - A[2] * b[1]) / det;
        b[1] = (A[0] * b[1] - A[2] * b[0]) / det;
        b[0] = x0;
        return true;
    }
    for (size_t j = 0; j < nf; j++) {
        double s = A[j * nf + j];
        for (size_t k = 0; k < j; k++) s -= A[j * nf + k] * A[j * nf + k];
        if (!(s > 0)) return false;
        const double l = sqrt(s);
        A[j * nf + j] = l;
        for (size_t i = j + 1; i < nf; i++) {
            double t = A[i * nf + j];
            for (size_t k = 0; k < j; k++) t -= A[i * nf + k] * A[j * nf + k];
            A[i * nf + j] = t / l;
        }
    }
    for (size_t i = 0; i < nf; i++) {
        double s = b[i];
        for (size_t k = 0; k < i; k++) s -= A[i * nf + k] * b[k];
        b[i] = s / A[i * nf + i];
    }
    for (size_t i = nf; i-- > 0;) {
        double s = b[i];
        for (size_t k = i + 1; k < nf; k++) s -= A[k * nf + i] * b[k];
        b[i] = s / A[i * nf + i];
    }
    return true;
}

/* A direct phase's contacts, the stance contact and locks, without the
 * anchors (only the projection reads them); their number. */
static size_t direct_contacts(const body_eval *e, size_t ph, sm_contact *cs)
{
    const body_phase *P = &e->bm->f->phases[ph];
    for (size_t k = 0; k < P->n_contacts; k++) body_contact_shape(e, (size_t)P->contacts[k], &cs[k]);
    return P->n_contacts;
}

/* Phase ph's right-hand side by the reduced equations when its contacts
 * are the stance contact and locks (else the full solve's rows): with the
 * stance rows J = [J_d J_F] (J_d on the slides, J_F on the unlocked
 * joints F; the locked joints' accelerations are zero), the slides'
 * accelerations a_d = −G a_F − g, G = J_d⁻¹ J_F, g = J_d⁻¹ J̇v, so that
 * a = Φ a_F + ψ, Φ = [−G; I; 0], ψ = [−g; 0; 0], and Φᵀ Jᵀ = 0 removes the
 * contact forces:
 *     Φᵀ M Φ a_F = Φᵀ (τ − C v − G_grav − M ψ),
 * nF × nF symmetric positive definite, by Cholesky.  The same accelerations
 * as the saddle-point solve, without its Schur complement over the rows. */
sm_status body_reduced_accel(const body_eval *e, size_t ph, const double *xf, bool swept, double *vdot,
                             double *lambda, sm_contact *cs, size_t *ncs)
{
    const body_model *bm = e->bm;
    if (!bm->reduced_direct[ph])
        return swept ? body_phase_solve_swept(e, ph, xf, vdot, lambda, cs, ncs)
                     : body_phase_solve(e, ph, xf, vdot, lambda, cs, ncs);
    const size_t nq = bm->nq, nv = bm->nv;
    if (!swept) {
        const sm_status st = sm_rigid_forward(e->m, e->d, xf, xf + nq);
        if (st != SM_OK) return st;
    }
    double M[SM_RIGID_MAX_V * SM_RIGID_MAX_V], u[SM_RIGID_MAX_V], tau[SM_RIGID_MAX_V];
    sm_rigid_mass_bias(e->m, e->d, M, u);
    body_spring_forces(e, ph, xf, xf + nq, tau);
    for (size_t i = 0; i < nv; i++) u[i] = tau[i] - u[i];
    sm_contact c;
    stance_contact(e, &c);
    double J[BASE * SM_RIGID_MAX_V], jdv[BASE];
    if (sm_contact_jacobian(e->m, e->d, &c, 1, J, jdv, NULL) != BASE) return SM_BAD_STATE;
    bool locked[SM_RIGID_MAX_V] = {false};
    const body_phase *P = &bm->f->phases[ph];
    for (size_t k = 0; k < P->n_contacts; k++) {
        const body_contact *bc = &bm->f->contacts[P->contacts[k]];
        if (bc->kind == SM_CONTACT_LOCK) locked[sm_rigid_body_vadr(e->m, (size_t)bc->body)] = true;
    }
    size_t F[SM_RIGID_MAX_V], nf = 0;
    for (size_t i = BASE; i < nv; i++)
        if (!locked[i]) F[nf++] = i;
    const double det = J[0] * J[nv + 1] - J[1] * J[nv];
    if (!(fabs(det) > 1e-12)) return SM_SINGULAR_CONSTRAINTS;
    const double Di[4] = {J[nv + 1] / det, -J[1] / det, -J[nv] / det, J[0] / det};
    double G[BASE * SM_RIGID_MAX_V], g[BASE];
    for (size_t r = 0; r < BASE; r++) {
        g[r] = Di[2 * r] * jdv[0] + Di[2 * r + 1] * jdv[1];
        for (size_t f = 0; f < nf; f++) G[r * nf + f] = Di[2 * r] * J[F[f]] + Di[2 * r + 1] * J[nv + F[f]];
    }
    /* W = M Φ on the rows d and F, y = u − M ψ on the same rows */
    size_t rowsel[SM_RIGID_MAX_V], nr = 0;
    rowsel[nr++] = 0;
    rowsel[nr++] = 1;
    for (size_t f = 0; f < nf; f++) rowsel[nr++] = F[f];
    double W[SM_RIGID_MAX_V * SM_RIGID_MAX_V], y[SM_RIGID_MAX_V];
    for (size_t r = 0; r < nr; r++) {
        const double *Mr = M + rowsel[r] * nv;
        for (size_t f = 0; f < nf; f++) W[r * nf + f] = Mr[F[f]] - Mr[0] * G[f] - Mr[1] * G[nf + f];
        y[r] = u[rowsel[r]] + Mr[0] * g[0] + Mr[1] * g[1];
    }
    double A[SM_RIGID_MAX_V * SM_RIGID_MAX_V], b[SM_RIGID_MAX_V];
    for (size_t i = 0; i < nf; i++) {
        b[i] = y[BASE + i] - G[i] * y[0] - G[nf + i] * y[1];
        for (size_t j = 0; j <= i; j++) A[i * nf + j] = W[(BASE + i) * nf + j] - G[i] * W[j] - G[nf + i] * W[nf + j];
    }
    if (!spd_solve(A, nf, b)) return SM_SINGULAR_CONSTRAINTS;
    memset(vdot, 0, nv * sizeof *vdot);
    for (size_t f = 0; f < nf; f++) vdot[F[f]] = b[f];
    for (size_t r = 0; r < BASE; r++) {
        double s = -g[r];
        for (size_t f = 0; f < nf; f++) s -= G[r * nf + f] * b[f];
        vdot[r] = s;
    }
    if (!lambda && !cs) return SM_OK;
    /* the forces, in the saddle-point solve's rows (phase order): Jᵀλ =
     * M a − u, whose slide rows hold the stance rows alone, J_dᵀ λ_s =
     * (M a − u)_d, and each lock's row is its coordinate's remainder */
    double r[SM_RIGID_MAX_V];
    for (size_t i = 0; i < nv; i++) r[i] = sm_dense_dot(M + i * nv, vdot, nv) - u[i];
    const double ls[BASE] = {Di[0] * r[0] + Di[2] * r[1], Di[1] * r[0] + Di[3] * r[1]};
    sm_contact local[BODY_MAX_CONTACTS];
    if (!cs) cs = local;
    const size_t n = direct_contacts(e, ph, cs);
    if (ncs) *ncs = n;
    if (!lambda) return SM_OK;
    for (size_t k = 0, row = 0; k < n; k++) {
        if (P->contacts[k] == bm->f->origin) {
            lambda[row++] = ls[0];
            lambda[row++] = ls[1];
        } else { /* a lock */
            const size_t i = sm_rigid_body_vadr(e->m, cs[k].body);
            lambda[row++] = r[i] - J[i] * ls[0] - J[nv + i] * ls[1];
        }
    }
    return SM_OK;
}

/* M_r q̈ = rhs (τ − b_r) over the phase's free hinges, both in the plan's
 * order; qdd (which may be rhs) the locked ones 0.  With scratch, M is the
 * caller's to lose. */
static sm_status free_solve(const body_model *bm, size_t ph, double *M, bool scratch, const double *rhs, double *qdd)
{
    const size_t n = bm->pinned.n;
    const unsigned char *F = bm->pinned_free[ph];
    const size_t nf = bm->pinned_nfree[ph];
    double A[nf * nf], b[SM_RIGID_MAX_V];
    if (nf == n) { /* no lock */
        if (!scratch) memcpy(A, M, n * n * sizeof *A);
        if (qdd != rhs) memcpy(qdd, rhs, n * sizeof *qdd);
        return spd_solve(scratch ? M : A, n, qdd) ? SM_OK : SM_SINGULAR_CONSTRAINTS;
    }
    for (size_t i = 0; i < nf; i++) {
        b[i] = rhs[F[i]];
        for (size_t j = 0; j <= i; j++) A[i * nf + j] = M[F[i] * n + F[j]];
    }
    if (!spd_solve(A, nf, b)) return SM_SINGULAR_CONSTRAINTS;
    memset(qdd, 0, n * sizeof *qdd);
    for (size_t i = 0; i < nf; i++) qdd[F[i]] = b[i];
    return SM_OK;
}

/* The pinned path in a direct phase: the hinges' accelerations qdd (plan
 * order, the locked ones 0), and if M, bias, tau and force are not NULL
 * what the forces need. */
static sm_status pinned_solve(const body_eval *e, size_t ph, const double *xf, bool swept, double *qdd, double *M,
                              double *bias, double *tau, double *force, bool *applied)
{
    *applied = false;
    const body_model *bm = e->bm;
    const size_t nq = bm->nq, n = bm->pinned.n;
    if (!swept) {
        /* the hinges are the coordinates after the slides, in the plan's
         * order (body_reduced_setup); the slides' never enter */
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) sum += xf[BASE + i] + xf[nq + BASE + i];
        if (!isfinite(sum)) return SM_BAD_STATE;
        if (!sm_rigid_pinned_forward(e->m, e->d, xf + BASE, xf + nq + BASE)) return SM_OK;
    }
    const double radius = body_origin_radius(e);
    /* sized to the walker: a 48 x 48 frame cost the stack probes of 18 KB a call */
    double Ml[n * n], bl[SM_RIGID_MAX_V], tl[SM_RIGID_MAX_V];
    if (!M) {
        M = Ml;
        bias = bl;
        tau = tl;
    }
    /* false only with the planar sweeps switched off (tests): the full solve */
    if (!sm_rigid_pinned_dynamics(e->m, e->d, &bm->pinned, radius, bm->pinned_locked[ph], M, bias, force)) return SM_OK;
    *applied = true;
    body_spring_forces(e, ph, xf, xf + nq, tau);
    /* the plan's order is the coordinates' after the slides (body_reduced_setup) */
    double rhs[SM_RIGID_MAX_V];
    for (size_t i = 0; i < n; i++) rhs[i] = tau[BASE + i] - bias[i];
    return free_solve(bm, ph, M, false, rhs, qdd);
}

/* The right-hand side at the defaults in a direct phase (the integrator's
 * every call): the pinned sweep and dynamics on a data block of their own,
 * the template model, no expansion of the state. */
static sm_status lean_rhs(const body_model *bm, size_t ph, const double *x, double *xd, bool *done)
{
    *done = false;
    const size_t n = bm->pinned.n, nk = bm->n_reduced / 2;
    double sum = 0.0;
    for (size_t i = 0; i < 2 * nk; i++) sum += x[i];
    if (!isfinite(sum)) return SM_BAD_STATE;
    /* every joint (plan order = the coordinates after the slides): the
     * state itself, or with the held ones put in at their locks' values,
     * at rest */
    const double *q = x, *v = x + n;
    double qb[SM_RIGID_MAX_V], vb[SM_RIGID_MAX_V];
    if (bm->n_held) {
        for (size_t h = 0; h < bm->n_held; h++) {
            const size_t i = bm->held_joint[h];
            qb[i] = bm->held_at0[i];
            vb[i] = 0.0;
        }
        for (size_t k = 0; k < nk; k++) {
            qb[bm->kept[k]] = x[k];
            vb[bm->kept[k]] = x[nk + k];
        }
        q = qb;
        v = vb;
    }
    double M[n * n], bias[SM_RIGID_MAX_V], qdd[SM_RIGID_MAX_V];
    if (!sm_rigid_pinned_terms(bm->tmpl, &bm->pinned, q, v, bm->origin_radius0, bm->pinned_locked[ph], M, bias))
        return SM_OK;
    *done = true;
    /* τ − b_r in the plan's order (the joints'), the springs' torques
     * added where they act, then solved in place */
    double *r = bm->n_held ? qdd : xd + nk;
    for (size_t i = 0; i < n; i++) r[i] = -bias[i];
    for (size_t k = 0; k < bm->f->n_forces; k++) {
        if (bm->f->forces[k].phases_off >> ph & 1u) continue;
        /* sm_rigid_spring_forces on the joints' own indices */
        const sm_rigid_spring *sp = &bm->springs0[k];
        const unsigned char *ri = bm->spring_ri[k];
        const size_t m = sp->n < 8 ? sp->n : 8;
        double val = 0.0, rate = 0.0;
        for (size_t i = 0; i < m; i++) {
            val += sp->coef[i] * q[ri[i]];
            rate += sp->coef[i] * v[ri[i]];
        }
        const double f = sp->stiffness * (val - sp->rest) + sp->damping * rate - sp->torque;
        for (size_t i = 0; i < m; i++) r[ri[i]] -= sp->coef[i] * f;
    }
    for (size_t k = 0; k < nk; k++) xd[k] = x[nk + k];
    const sm_status st = free_solve(bm, ph, M, true, r, r);
    if (!bm->n_held) return st;
    for (size_t k = 0; k < nk; k++) xd[nk + k] = qdd[bm->kept[k]];
    return st;
}

sm_status body_reduced_rhs(const body_model *bm, size_t ph, const double *p, const double *x, double *xd)
{
    const size_t nk = bm->n_reduced / 2;
    if (bm->pinned_ok && bm->reduced_direct[ph] && memcmp(p, bm->defaults, bm->f->n_params * sizeof *p) == 0) {
        bool done;
        const sm_status st = lean_rhs(bm, ph, x, xd, &done);
        if (st != SM_OK || done) return st;
    }
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    const sm_status st = body_eval_init(&e, bm, p, mem, NULL, 0);
    if (st != SM_OK) return SM_BAD_PARAM;
    /* the joints' rows on the base at rest at the origin: M, the bias, the
     * rows and J̇v do not depend on where the base is, nor on its velocity
     * (a uniform boost of a walker on flat ground changes no acceleration) */
    double xf[SM_MAX_STATE], qdd[SM_RIGID_MAX_V];
    xf[0] = xf[1] = xf[bm->nq] = xf[bm->nq + 1] = 0.0;
    body_unreduce(bm, p, x, xf);
    const sm_status sa = body_reduced_joint_accel(&e, ph, xf, qdd);
    for (size_t k = 0; k < nk; k++) {
        xd[k] = x[nk + k];
        xd[nk + k] = qdd[bm->kept[k]];
    }
    return sa;
}

static bool pinned_applies(const body_eval *e, size_t ph)
{
    return e->bm->pinned_ok && e->bm->reduced_direct[ph];
}

sm_status body_reduced_joint_accel(const body_eval *e, size_t ph, const double *xf, double *qdd)
{
    const body_model *bm = e->bm;
    const size_t ni = bm->nv - BASE;
    if (!pinned_applies(e, ph)) {
        double vdot[SM_RIGID_MAX_V];
        const sm_status st = body_reduced_accel(e, ph, xf, false, vdot, NULL, NULL, NULL);
        memcpy(qdd, vdot + BASE, ni * sizeof *qdd);
        return st;
    }
    bool applied;
    const sm_status st = pinned_solve(e, ph, xf, false, qdd, NULL, NULL, NULL, NULL, &applied);
    if (st == SM_OK && !applied) {
        double vdot[SM_RIGID_MAX_V];
        const sm_status s2 = body_reduced_accel(e, ph, xf, false, vdot, NULL, NULL, NULL);
        memcpy(qdd, vdot + BASE, ni * sizeof *qdd);
        return s2;
    }
    return st;
}

/* The contact forces in the saddle-point solve's rows: the stance rows
 * take the whole walker's Σ m (ẍ − g) (the slides' rows of Jᵀλ, J_d = I),
 * a lock's row its hinge's remainder (M_r q̈ + b_r − τ)_i, since Φᵀ
 * removes the stance rows and keeps a lock's unit row. */
sm_status body_reduced_forces(const body_eval *e, size_t ph, const double *xf, bool swept, double *lambda,
                              sm_contact *cs, size_t *ncs)
{
    const body_model *bm = e->bm;
    if (!pinned_applies(e, ph)) {
        double vdot[SM_RIGID_MAX_V];
        return body_reduced_accel(e, ph, xf, swept, vdot, lambda, cs, ncs);
    }
    const size_t n = bm->pinned.n;
    /* the whole sweep: a caller reads the links' velocities after it */
    if (!swept) {
        const sm_status sw = sm_rigid_forward(e->m, e->d, xf, xf + bm->nq);
        if (sw != SM_OK) return sw;
    }
    double M[n * n], bias[SM_RIGID_MAX_V], tau[SM_RIGID_MAX_V];
    double force[3 * (SM_RIGID_MAX_V + 1)], a[SM_RIGID_MAX_V];
    bool applied;
    const sm_status st = pinned_solve(e, ph, xf, true, a, M, bias, tau, force, &applied);
    if (st == SM_OK && !applied) {
        double vdot[SM_RIGID_MAX_V];
        return body_reduced_accel(e, ph, xf, true, vdot, lambda, cs, ncs);
    }
    if (st != SM_OK) return st;
    double Fx = force[0], Fz = force[2];
    for (size_t j = 0; j < n; j++) {
        Fx += a[j] * force[3 * (j + 1)];
        Fz += a[j] * force[3 * (j + 1) + 2];
    }
    sm_contact local[BODY_MAX_CONTACTS];
    if (!cs) cs = local;
    const size_t nc = direct_contacts(e, ph, cs);
    if (ncs) *ncs = nc;
    if (!lambda) return SM_OK;
    const body_phase *P = &bm->f->phases[ph];
    for (size_t k = 0, row = 0; k < nc; k++) {
        if (cs[k].kind != SM_CONTACT_LOCK) {
            lambda[row++] = Fx;
            lambda[row++] = Fz;
            continue;
        }
        const size_t i = bm->lock_hinge[P->contacts[k]];
        double r = bias[i] - tau[bm->pinned.vadr[i]];
        /* the locked columns are unset (zero accelerations) */
        for (size_t t = 0; t < bm->pinned_nfree[ph]; t++) {
            const size_t j = bm->pinned_free[ph][t];
            r += M[i * n + j] * a[j];
        }
        lambda[row++] = r;
    }
    return SM_OK;
}
