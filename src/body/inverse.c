/* Inverse dynamics of a planar body walker (stridemap/inverse.h): which
 * unknowns a model has, and their per-sample solve.
 *
 * The solve, with M = L Lᵀ and A = [Sᵀ | J̃ᵀ] the columns of the moments
 * and the forces: min ‖L⁻¹(A u − b)‖, b = M q̈ + C q̇ + G.  The forces'
 * columns L⁻¹J̃ᵀ = Q R (independent contacts: R invertible) take the
 * component of the equations along them exactly; the moments meet the rest,
 * Q₂ᵀ L⁻¹ Sᵀ τ ≈ Q₂ᵀ L⁻¹ b, by the minimum-norm least-squares solution
 * (LAPACK's dgelsd): least squares where the phase over-determines the
 * moments (a sliding toe's friction law), the smallest Σ τ² where it leaves
 * them free (double support); then R λ = Q₁ᵀ L⁻¹ (b − Sᵀτ).  For a model
 * with actuators the columns Sᵀ are B's, the same solve for u. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inverse_internal.h"

#define INV_MAX_TAU (SM_RIGID_MAX_V + 1)
#define INV_MAX_F (2 * BODY_MAX_CONTACTS)
_Static_assert(BODY_MAX_ACT <= INV_MAX_TAU, "an actuator's input is a moment column");

struct sm_inverse {
    const body_model *bm;
    sm_inverse_options o;
    size_t nq, nv;
    size_t n_joint, joint_v[SM_RIGID_MAX_V];
    const body_controller *act; /* the moments are its actuators' inputs; NULL: by coordinate */
    int tau0_site; /* -1: no ground moment */
    int clock_q;   /* -1: no controller clock */
    size_t n_tau, n_force;
    int force_col[BODY_MAX_CONTACTS]; /* each contact's first column, -1: in no phase */
    char *tau_name[INV_MAX_TAU], *force_name[INV_MAX_F];
};

static char *join(const char *a, const char *b)
{
    const size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s", a, b);
    return s;
}

void sm_inverse_free(sm_inverse *inv)
{
    if (!inv) return;
    for (size_t k = 0; k < inv->n_tau; k++) free(inv->tau_name[k]);
    for (size_t k = 0; k < inv->n_force; k++) free(inv->force_name[k]);
    free(inv);
}

/* A hinge with a hinge between it and the world is a joint: the base's own
 * turn (reached through slides only) and a first hinge on the world (a
 * pinned ankle) are not driven. */
static bool is_joint(const body_file *f, size_t b)
{
    if (f->bodies[b].joint != SM_RIGID_HINGE) return false;
    for (int a = f->bodies[b].parent; a >= 0; a = f->bodies[a].parent)
        if (f->bodies[a].joint == SM_RIGID_HINGE) return true;
    return false;
}

/* The controller's phase variable as a coordinate of its own: a slide on
 * the world that carries no body and no site.  Nothing else feels it (its
 * mass matrix row is its own, no contact holds it), so it is the step's
 * time and not part of the motion; -1 when the model has none. */
static int find_clock(const body_file *f, const sm_rigid_model *m)
{
    const body_controller *k = &f->ctrl;
    if (k->kind == BODY_CTRL_NONE || k->phase_n != 1) return -1;
    for (size_t b = 0; b < f->n_bodies; b++) {
        if (f->bodies[b].joint == SM_RIGID_FIXED || (int)sm_rigid_body_vadr(m, b) != k->phase_v[0]) continue;
        if (f->bodies[b].joint != SM_RIGID_SLIDE || f->bodies[b].parent >= 0) return -1;
        for (size_t c = 0; c < f->n_bodies; c++)
            if (f->bodies[c].parent == (int)b) return -1;
        for (size_t s = 0; s < f->n_sites; s++)
            if (f->sites[s].body == (int)b) return -1;
        return (int)sm_rigid_body_qadr(m, b);
    }
    return -1;
}

/* The moments: the controller's actuators, each named as `simulate` names
 * its torque (sample.c), so that a table of them reads as the model's own. */
static sm_status layout_actuators(sm_inverse *inv, const body_controller *k)
{
    inv->act = k;
    for (size_t j = 0; j < k->n_act; j++)
        if (!(inv->tau_name[inv->n_tau++] = join(k->act_name[j], ".torque"))) return SM_NO_MEMORY;
    return SM_OK;
}

static sm_status layout_joints(sm_inverse *inv, const body_file *f, const sm_rigid_model *m, char *why,
                               size_t why_len)
{
    for (size_t b = 0; b < f->n_bodies; b++) {
        if (!is_joint(f, b)) continue;
        const size_t iv = sm_rigid_body_vadr(m, b);
        inv->joint_v[inv->n_joint++] = iv;
        if (!(inv->tau_name[inv->n_tau++] = join(f->q_names[sm_rigid_body_qadr(m, b)], ".torque")))
            return SM_NO_MEMORY;
    }
    if (inv->o.ground_moment) {
        if (f->origin < 0 || f->contacts[f->origin].site < 0) {
            snprintf(why, why_len,
                     "%s: no section origin contact with a site to apply the ground moment to (set "
                     "sm_inverse_options.ground_moment = false)",
                     f->path);
            return SM_BAD_MODEL_FILE;
        }
        inv->tau0_site = f->contacts[f->origin].site;
        if (!(inv->tau_name[inv->n_tau++] = join("tau0", ""))) return SM_NO_MEMORY;
    }
    return SM_OK;
}

static sm_status layout(sm_inverse *inv, const body_file *f, const sm_rigid_model *m, char *why, size_t why_len)
{
    inv->tau0_site = -1;
    const bool actuated = f->ctrl.kind != BODY_CTRL_NONE && f->ctrl.n_act > 0 && !inv->o.by_coordinate;
    sm_status st = actuated ? layout_actuators(inv, &f->ctrl) : layout_joints(inv, f, m, why, why_len);
    if (st != SM_OK) return st;
    inv->clock_q = find_clock(f, m);
    bool used[BODY_MAX_CONTACTS] = {false};
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t i = 0; i < f->phases[ph].n_contacts; i++) used[f->phases[ph].contacts[i]] = true;
    for (size_t k = 0; k < f->n_contacts; k++) {
        inv->force_col[k] = -1;
        if (!used[k]) continue;
        inv->force_col[k] = (int)inv->n_force;
        const char *name = f->contacts[k].name;
        if (f->contacts[k].kind == SM_CONTACT_LOCK) {
            if (!(inv->force_name[inv->n_force++] = join(name, ".torque"))) return SM_NO_MEMORY;
        } else {
            if (!(inv->force_name[inv->n_force++] = join(name, ".fx"))) return SM_NO_MEMORY;
            if (!(inv->force_name[inv->n_force++] = join(name, ".fz"))) return SM_NO_MEMORY;
        }
    }
    return SM_OK;
}

sm_status sm_inverse_create(const sm_model *m, const sm_inverse_options *o, sm_inverse **out, char *why,
                            size_t why_len)
{
    *out = NULL;
    sm_status st = sm_inverse_options_check(o, why, why_len);
    if (st != SM_OK) return st;
    const body_file *f = body_model_file(m);
    if (!f) {
        snprintf(why, why_len, "model '%s' is not built from bodies: inverse dynamics needs a model file",
                 m->name);
        return SM_BAD_MODEL_FILE;
    }
    const body_model *bm = (const body_model *)(const void *)m;
    if (!bm->planar || bm->nq != bm->nv || bm->nv > SM_RIGID_MAX_V) {
        snprintf(why, why_len, "%s: inverse dynamics is for planar walkers (hinges and slides in one plane)",
                 f->path);
        return SM_BAD_MODEL_FILE;
    }
    sm_inverse *inv = calloc(1, sizeof *inv);
    if (!inv) return SM_NO_MEMORY;
    inv->bm = bm;
    inv->o = *o;
    inv->nq = bm->nq;
    inv->nv = bm->nv;
    st = layout(inv, f, bm->tmpl, why, why_len);
    if (st != SM_OK) {
        sm_inverse_free(inv);
        return st;
    }
    *out = inv;
    return SM_OK;
}

const body_model *sm_inverse_body(const sm_inverse *inv) { return inv->bm; }
size_t sm_inverse_nq(const sm_inverse *inv) { return inv->nq; }
size_t sm_inverse_nv(const sm_inverse *inv) { return inv->nv; }
const char *sm_inverse_q_name(const sm_inverse *inv, size_t i) { return inv->bm->f->q_names[i]; }
int sm_inverse_clock(const sm_inverse *inv) { return inv->clock_q; }
bool sm_inverse_by_actuator(const sm_inverse *inv) { return inv->act != NULL; }
size_t sm_inverse_n_phases(const sm_inverse *inv) { return inv->bm->f->n_phases; }
const char *sm_inverse_phase_name(const sm_inverse *inv, size_t ph) { return inv->bm->f->phases[ph].name; }
int sm_inverse_phase_index(const sm_inverse *inv, const char *name)
{
    for (size_t ph = 0; ph < inv->bm->f->n_phases; ph++)
        if (strcmp(inv->bm->f->phases[ph].name, name) == 0) return (int)ph;
    return -1;
}
size_t sm_inverse_n_torques(const sm_inverse *inv) { return inv->n_tau; }
const char *sm_inverse_torque_name(const sm_inverse *inv, size_t k) { return inv->tau_name[k]; }
size_t sm_inverse_n_forces(const sm_inverse *inv) { return inv->n_force; }
const char *sm_inverse_force_name(const sm_inverse *inv, size_t k) { return inv->force_name[k]; }

static void locked_coords(const sm_inverse *inv, const sm_contact *c, size_t nc, bool *locked)
{
    memset(locked, 0, inv->nv * sizeof *locked);
    for (size_t k = 0; k < nc; k++)
        if (c[k].kind == SM_CONTACT_LOCK) locked[sm_rigid_body_vadr(inv->bm->tmpl, c[k].body)] = true;
}

/* The ground moment's generalized force per unit τ₀: the turn about +y of
 * its body, the rotational Jacobian's y row at its site. */
static void tau0_column(const sm_inverse *inv, const body_eval *e, double *col)
{
    double jacr[3 * SM_RIGID_MAX_V];
    sm_rigid_site_jac(e->m, e->d, (size_t)inv->tau0_site, NULL, jacr);
    memcpy(col, jacr + inv->nv, inv->nv * sizeof *col);
}

/* S (nv x n_tau, row stride ld): each moment's generalized force per unit.
 * An actuator's column is B's whole, a lock's coordinate included: the
 * lock's reaction takes that part, as in the forward dynamics. */
static void input_columns(const sm_inverse *inv, const body_eval *e, const sm_contact *c, size_t nc, double *S,
                          size_t ld)
{
    for (size_t i = 0; i < inv->nv; i++) memset(S + i * ld, 0, inv->n_tau * sizeof *S);
    if (inv->act) {
        const body_controller *k = inv->act;
        for (size_t j = 0; j < k->n_act; j++)
            for (size_t i = 0; i < k->act_n[j]; i++) S[(size_t)k->act_v[j][i] * ld + j] += k->act_coef[j][i];
        return;
    }
    bool locked[SM_RIGID_MAX_V];
    locked_coords(inv, c, nc, locked);
    for (size_t j = 0; j < inv->n_joint; j++)
        if (!locked[inv->joint_v[j]]) S[inv->joint_v[j] * ld + j] = 1.0;
    if (inv->tau0_site >= 0) {
        double col[SM_RIGID_MAX_V];
        tau0_column(inv, e, col);
        for (size_t i = 0; i < inv->nv; i++) S[i * ld + inv->n_joint] = col[i];
    }
}

void sm_inverse_generalized(const sm_inverse *inv, const body_eval *e, const sm_contact *c, size_t nc,
                            const double *tau, double *gf)
{
    double S[SM_RIGID_MAX_V * INV_MAX_TAU];
    input_columns(inv, e, c, nc, S, inv->n_tau);
    for (size_t i = 0; i < inv->nv; i++) {
        gf[i] = 0;
        for (size_t j = 0; j < inv->n_tau; j++) gf[i] += S[i * inv->n_tau + j] * tau[j];
    }
}

/* A slide at rest has no velocity to take friction's sign from: it takes
 * the sign of the tangential acceleration a gives (the motion that starts). */
static void slide_signs(const body_eval *e, sm_contact *c, size_t nc, const double *v, const double *a)
{
    const size_t nv = e->bm->nv;
    for (size_t k = 0; k < nc; k++) {
        if (c[k].kind != SM_CONTACT_SLIDE) continue;
        double jac[3 * SM_RIGID_MAX_V], jdv[3], vt = 0, at;
        sm_rigid_site_jac(e->m, e->d, c[k].site, jac, NULL);
        for (size_t i = 0; i < nv; i++) vt += jac[i] * v[i];
        if (fabs(vt) > BODY_SLIDE_AT_REST) continue;
        sm_rigid_site_jdotv(e->m, e->d, c[k].site, jdv);
        at = jdv[0];
        for (size_t i = 0; i < nv; i++) at += jac[i] * a[i];
        c[k].slide_sign = at < 0 ? -1 : 1;
    }
}

/* J̃ (rows x nv): a slide's row carries its friction, J_n − μ s J_t. */
static size_t friction_rows(const body_eval *e, const sm_contact *c, size_t nc, double *Jtil)
{
    const size_t nv = e->bm->nv;
    double J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V], Jt[BODY_MAX_CONTACTS * SM_RIGID_MAX_V], jdv[SM_RIGID_MAX_ROWS];
    const size_t rows = sm_contact_jacobian(e->m, e->d, c, nc, J, jdv, Jt);
    memcpy(Jtil, J, rows * nv * sizeof *J);
    for (size_t k = 0, row = 0; k < nc; row += sm_contact_rows(e->m, &c[k]), k++) {
        if (c[k].kind != SM_CONTACT_SLIDE) continue;
        const double f = c[k].mu * (c[k].slide_sign < 0 ? -1.0 : 1.0);
        for (size_t i = 0; i < nv; i++) Jtil[row * nv + i] -= f * Jt[k * nv + i];
    }
    return rows;
}

sm_status sm_inverse_solve(const sm_inverse *inv, const double *p, size_t ph, const double *q, const double *v,
                           const double *a, double *tau, double *F, double *residual)
{
    const body_model *bm = inv->bm;
    const size_t nv = inv->nv, nt = inv->n_tau;
    if (ph >= bm->f->n_phases) return SM_BAD_STATE;
    for (size_t i = 0; i < nv; i++)
        if (!isfinite(q[i]) || !isfinite(v[i]) || !isfinite(a[i])) return SM_BAD_STATE;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    sm_status st = body_eval_init(&e, bm, p, mem, NULL, 0);
    if (st != SM_OK) return st;
    if ((st = sm_rigid_forward(e.m, e.d, q, v)) != SM_OK) return st;
    double M[SM_RIGID_MAX_V * SM_RIGID_MAX_V], b[SM_RIGID_MAX_V];
    sm_rigid_mass_bias(e.m, e.d, M, b);
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nv; j++) b[i] += M[i * nv + j] * a[j];
    sm_contact c[BODY_MAX_CONTACTS];
    const size_t nc = body_phase_contacts(&e, ph, v, c);
    slide_signs(&e, c, nc, v, a);
    double Jtil[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V];
    const size_t rows = friction_rows(&e, c, nc, Jtil);
    if (rows > nv) return SM_SINGULAR_CONSTRAINTS;

    /* columns: Aλ (nv x rows) = J̃ᵀ; C (nv x (nt + 1)) = [Sᵀ | b] */
    const size_t ncol = nt + 1;
    double Al[SM_RIGID_MAX_V * SM_RIGID_MAX_ROWS], C[SM_RIGID_MAX_V * (INV_MAX_TAU + 1)];
    for (size_t i = 0; i < nv; i++)
        for (size_t r = 0; r < rows; r++) Al[i * (rows ? rows : 1) + r] = Jtil[r * nv + i];
    input_columns(inv, &e, c, nc, C, ncol);
    for (size_t i = 0; i < nv; i++) C[i * ncol + nt] = b[i];

    /* into the metric of M⁻¹: L⁻¹ of every column */
    double L[SM_RIGID_MAX_V * SM_RIGID_MAX_V];
    memcpy(L, M, nv * nv * sizeof *L);
    const lapack_int n = (lapack_int)nv;
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, L, n) != 0) return SM_SINGULAR_CONSTRAINTS;
    if (LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, 'L', 'N', 'N', n, (lapack_int)ncol, L, n, C, (lapack_int)ncol) != 0)
        return SM_LAPACK_FAILED;
    double lam[SM_RIGID_MAX_ROWS] = {0};
    if (rows > 0) {
        const lapack_int nr = (lapack_int)rows;
        if (LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, 'L', 'N', 'N', n, nr, L, n, Al, nr) != 0) return SM_LAPACK_FAILED;
        double tq[SM_RIGID_MAX_ROWS];
        if (LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, n, nr, Al, nr, tq) != 0) return SM_LAPACK_FAILED;
        double big = 0;
        for (size_t r = 0; r < rows; r++) big = fmax(big, fabs(Al[r * rows + r]));
        for (size_t r = 0; r < rows; r++)
            if (!(fabs(Al[r * rows + r]) > 1e-10 * big)) return SM_SINGULAR_CONSTRAINTS;
        if (LAPACKE_dormqr(LAPACK_ROW_MAJOR, 'L', 'T', n, (lapack_int)ncol, nr, Al, nr, tq, C, (lapack_int)ncol) != 0)
            return SM_LAPACK_FAILED;
    }
    /* the moments: rows [rows, nv) of C, minimum-norm least squares */
    const size_t m2 = nv - rows;
    double t[INV_MAX_TAU] = {0};
    if (m2 > 0 && nt > 0) {
        double B[SM_RIGID_MAX_V * INV_MAX_TAU], y[SM_RIGID_MAX_V + INV_MAX_TAU] = {0}, sv[INV_MAX_TAU];
        for (size_t i = 0; i < m2; i++) {
            for (size_t j = 0; j < nt; j++) B[i * nt + j] = C[(rows + i) * ncol + j];
            y[i] = C[(rows + i) * ncol + nt];
        }
        lapack_int rank;
        if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int)m2, (lapack_int)nt, 1, B, (lapack_int)nt, y, 1, sv, 1e-12,
                           &rank) != 0)
            return SM_LAPACK_FAILED;
        memcpy(t, y, nt * sizeof *t);
    }
    /* the forces: R λ = (Qᵀ L⁻¹ b)₁ − (Qᵀ L⁻¹ Sᵀ)₁ τ */
    for (size_t r = 0; r < rows; r++) {
        double s = C[r * ncol + nt];
        for (size_t j = 0; j < nt; j++) s -= C[r * ncol + j] * t[j];
        lam[r] = s;
    }
    if (rows > 0 && LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, 'U', 'N', 'N', (lapack_int)rows, 1, Al, (lapack_int)rows, lam,
                                   1) != 0)
        return SM_LAPACK_FAILED;
    /* the misfit: Q orthogonal, so only the rows the moments did not meet */
    double r2 = 0;
    for (size_t i = rows; i < nv; i++) {
        double s = C[i * ncol + nt];
        for (size_t j = 0; j < nt; j++) s -= C[i * ncol + j] * t[j];
        r2 += s * s;
    }
    if (residual) *residual = sqrt(r2);
    if (tau) memcpy(tau, t, nt * sizeof *tau);
    if (F) {
        memset(F, 0, inv->n_force * sizeof *F);
        const body_phase *P = &bm->f->phases[ph];
        for (size_t k = 0; k < nc; k++) {
            double f3[3];
            sm_contact_force(e.m, e.d, c, nc, lam, k, f3);
            const int col = inv->force_col[P->contacts[k]];
            F[col] = f3[0];
            if (c[k].kind != SM_CONTACT_LOCK) F[col + 1] = f3[2];
        }
    }
    return SM_OK;
}

sm_status sm_inverse_run(const sm_inverse *inv, const double *p, size_t n, const double *t, const double *q,
                         const size_t *phase, double *v, double *a, double *tau, double *F, double *residual,
                         char *why, size_t why_len)
{
    const size_t nq = inv->nq, nv = inv->nv, w = 2 * (size_t)inv->o.half_window + 1;
    const body_file *f = inv->bm->f;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(t[i])) {
            snprintf(why, why_len, "sample %zu: the time is not a number", i);
            return SM_BAD_DATA;
        }
        if (i > 0 && !(t[i] > t[i - 1])) {
            snprintf(why, why_len, "sample %zu: time %.17g does not come after the previous sample's %.17g", i,
                     t[i], t[i - 1]);
            return SM_BAD_DATA;
        }
        if (phase[i] >= f->n_phases) {
            snprintf(why, why_len, "sample %zu: phase %zu is not one of the model's %zu", i, phase[i], f->n_phases);
            return SM_BAD_DATA;
        }
        for (size_t k = 0; k < nq; k++)
            if (!isfinite(q[i * nq + k])) {
                snprintf(why, why_len, "sample %zu: coordinate %s is not a number", i, f->q_names[k]);
                return SM_BAD_DATA;
            }
    }
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && phase[e] == phase[s]) e++;
        if (e - s < w) {
            snprintf(why, why_len,
                     "samples %zu to %zu (phase %s) are %zu, fewer than the differentiator's window of %zu "
                     "(2 sm_inverse_options.half_window + 1)",
                     s, e - 1, f->phases[phase[s]].name, e - s, w);
            return SM_BAD_DATA;
        }
        for (size_t k = 0; k < nv; k++) {
            const sm_status st =
                sm_inverse_differentiate(&inv->o, e - s, t + s, q + s * nq + k, nq, v + s * nv + k, a + s * nv + k);
            if (st != SM_OK) {
                snprintf(why, why_len, "samples %zu to %zu: the differentiator failed (%s)", s, e - 1,
                         sm_status_name(st));
                return st;
            }
        }
        s = e;
    }
    for (size_t i = 0; i < n; i++) {
        const sm_status st = sm_inverse_solve(inv, p, phase[i], q + i * nq, v + i * nv, a + i * nv,
                                              tau + i * inv->n_tau, F + i * inv->n_force, residual + i);
        if (st != SM_OK) {
            snprintf(why, why_len, "sample %zu (phase %s): %s", i, f->phases[phase[i]].name, sm_strerror(st));
            return st;
        }
    }
    return SM_OK;
}
