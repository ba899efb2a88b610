/* Joint springs, dampers and constant torques (docs/body-walkers.md
 * "Forces"; the seed's eq. 2.14 form): each acts on a scalar s = Σ a_i q_i of
 * 1-DOF coordinates, so its generalized force is the gradient of s times the
 * scalar force, τ_i += −a_i (k (s − rest) + c ṡ − torque), with potential
 * ½ k (s − rest)² and power ṡ (−c ṡ + torque) from the rest. */
#include "rigid_internal.h"
#include "stridemap/rigid_contact.h"

/* A body's first link (model.c's first_link), here so that a right-hand
 * side's springs make no call per coordinate. */
static inline size_t link_of(const sm_rigid_model *m, size_t body)
{
    const size_t L = m->body_link[body];
    return (L > 0 && m->kind[L - 1] == LINK_TRANS && m->parent[L] == (int)(L - 1)) ? L - 1 : L;
}

static void scalar(const sm_rigid_model *m, const sm_rigid_spring *s, const double *q, const double *v,
                   double *val, double *rate)
{
    double a = 0.0, b = 0.0;
    size_t n = s->n < 8 ? s->n : 8;
    for (size_t i = 0; i < n; i++) {
        const size_t L = link_of(m, s->body[i]);
        if (q) a += s->coef[i] * q[m->qadr[L]];
        if (v) b += s->coef[i] * v[m->vadr[L]];
    }
    *val = a;
    *rate = b;
}

void sm_rigid_spring_forces(const sm_rigid_model *m, const sm_rigid_spring *s, size_t ns, const double *q,
                            const double *v, double *tau)
{
    for (size_t k = 0; k < ns; k++) {
        double x, xd;
        scalar(m, &s[k], q, v, &x, &xd);
        double f = s[k].stiffness * (x - s[k].rest) + s[k].damping * xd - s[k].torque;
        size_t n = s[k].n < 8 ? s[k].n : 8;
        for (size_t i = 0; i < n; i++) tau[m->vadr[link_of(m, s[k].body[i])]] -= s[k].coef[i] * f;
    }
}

double sm_rigid_spring_energy(const sm_rigid_model *m, const sm_rigid_spring *s, size_t ns, const double *q)
{
    double e = 0.0;
    for (size_t k = 0; k < ns; k++) {
        double x, xd;
        scalar(m, &s[k], q, NULL, &x, &xd);
        e += 0.5 * s[k].stiffness * (x - s[k].rest) * (x - s[k].rest);
    }
    return e;
}

double sm_rigid_spring_power(const sm_rigid_model *m, const sm_rigid_spring *s, size_t ns, const double *q,
                             const double *v)
{
    (void)q;
    double p = 0.0;
    for (size_t k = 0; k < ns; k++) {
        double x, xd;
        scalar(m, &s[k], NULL, v, &x, &xd);
        p += xd * (-s[k].damping * xd + s[k].torque);
    }
    return p;
}
