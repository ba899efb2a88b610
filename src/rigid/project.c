/* Projection of a state onto a contact set's constraints (at the Poincaré
 * section and after impacts), in the metric of M so that a projection moves
 * the least kinetic-energy-weighted distance:
 *   positions, Gauss–Newton on the holonomic rows φ(q) = 0 (PIN: site −
 *   anchor; SLIDE: the site's height; ROLL: the gap; LOCK: q − at),
 *       q ← q ⊕ −M⁻¹J_hᵀ (J_h M⁻¹ J_hᵀ)⁻¹ φ(q),
 *   quadratic near the solution, until |φ|∞ < tol (20 steps at most);
 *   velocities, onto J v = 0 (every row, the rolling ones too),
 *       v ← v − M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁻¹ J v.
 * ⊕ is sm_rigid_integrate_q (quaternions stay unit).  The z row of a roll
 * is its gap's gradient (contact.c); its other rows are non-holonomic in
 * 3-D and have no position to restore. */
#include <math.h>
#include <string.h>

#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

/* φ of the holonomic rows and their row indices into the full J. */
static size_t holonomic(const sm_rigid_model *m, const sm_rigid_data *d, const double *q, const sm_contact *c,
                        size_t nc, double *phi, size_t *idx)
{
    size_t n = 0, row = 0;
    for (size_t k = 0; k < nc; k++) {
        size_t nr = sm_contact_rows(m, &c[k]);
        if (c[k].kind == SM_CONTACT_PIN) {
            double x[3];
            sm_rigid_site_pos(m, d, c[k].site, x);
            const unsigned mask = sm_contact_pin_rows(m, &c[k]);
            for (int i = 0, r = 0; i < 3; i++) {
                if (!(mask & (1u << i))) continue;
                phi[n] = x[i] - c[k].anchor[i];
                idx[n++] = row + (size_t)r++;
            }
        } else {
            phi[n] = sm_contact_gap(m, d, q, &c[k], NULL);
            idx[n++] = row + nr - 1; /* SLIDE, LOCK: the only row; ROLL: z, the last */
        }
        row += nr;
    }
    return n;
}

sm_status sm_rigid_project(const sm_rigid_model *m, sm_rigid_data *d, const sm_contact *c, size_t nc,
                           double tol, double *q, double *v, double *drift, double *work)
{
    size_t nv = m->nv, rows = sm_contact_set_rows(m, c, nc);
    if (nv > SM_RIGID_MAX_V || rows > SM_RIGID_MAX_ROWS) return SM_BAD_PARAM;
    double *M = work, *J = M + nv * nv, *Jh = J + rows * nv, *Y = Jh + rows * nv, *A = Y + rows * nv;
    size_t rp[SM_RIGID_MAX_ROWS], cp[SM_RIGID_MAX_ROWS], idx[SM_RIGID_MAX_ROWS];
    double phi[SM_RIGID_MAX_ROWS], step[SM_RIGID_MAX_V];
    double worst = 0.0;
    sm_status st;
    for (int it = 0;; it++) {
        if ((st = sm_rigid_forward(m, d, q, v)) != SM_OK) return st;
        size_t nh = holonomic(m, d, q, c, nc, phi, idx);
        double e = 0.0;
        for (size_t i = 0; i < nh; i++) e = fmax(e, fabs(phi[i]));
        if (it == 0) worst = e;
        if (e < tol) break;
        if (it == 20) {
            if (drift) *drift = worst;
            return SM_NOT_CONVERGED;
        }
        sm_rigid_mass(m, d, M);
        if (!sm_rigid_chol(M, nv)) return SM_SINGULAR_CONSTRAINTS;
        sm_contact_jacobian(m, d, c, nc, J, NULL, NULL);
        for (size_t i = 0; i < nh; i++) memcpy(Jh + i * nv, J + idx[i] * nv, nv * sizeof *Jh);
        if ((st = sm_rigid_schur(m, M, Jh, NULL, nh, Y, A, rp, cp)) != SM_OK) return st;
        sm_rigid_lu_solve(A, nh, rp, cp, phi);
        for (size_t k = 0; k < nv; k++) {
            double s = 0.0;
            for (size_t j = 0; j < nh; j++) s -= Y[j * nv + k] * phi[j];
            step[k] = s;
        }
        sm_rigid_integrate_q(m, q, step, 1.0, q);
    }
    sm_rigid_mass(m, d, M);
    if (!sm_rigid_chol(M, nv)) return SM_SINGULAR_CONSTRAINTS;
    sm_contact_jacobian(m, d, c, nc, J, NULL, NULL);
    double jv[SM_RIGID_MAX_ROWS];
    for (size_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * v[k];
        jv[i] = s;
        worst = fmax(worst, fabs(s));
    }
    if ((st = sm_rigid_schur(m, M, J, NULL, rows, Y, A, rp, cp)) != SM_OK) return st;
    sm_rigid_lu_solve(A, rows, rp, cp, jv);
    for (size_t k = 0; k < nv; k++)
        for (size_t j = 0; j < rows; j++) v[k] -= Y[j * nv + k] * jv[j];
    if (drift) *drift = worst;
    return sm_rigid_forward(m, d, q, v);
}
