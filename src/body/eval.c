/* A body model at parameters p: the rigid model of the callback (the
 * template, or a stack copy when p differ from the defaults), its contacts,
 * springs and the constrained solve of a phase. */
#include <math.h>
#include <stdalign.h>
#include <string.h>

#include "body_model.h"

static size_t round_up(size_t bytes) { return (bytes + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t); }

void body_def_at(const body_file *f, size_t i, const double *p, sm_rigid_body_def *def)
{
    const body_body *b = &f->bodies[i];
    memset(def, 0, sizeof *def);
    def->name = b->name;
    def->parent = b->parent;
    def->joint = b->joint;
    memcpy(def->quat, b->quat, sizeof def->quat);
    memcpy(def->axis, b->axis, sizeof def->axis);
    for (int k = 0; k < 3; k++) {
        def->pos[k] = body_num_eval(&b->pos[k], p);
        def->com[k] = body_num_eval(&b->com[k], p);
    }
    def->mass = body_num_eval(&b->mass, p);
    double in[6];
    for (int k = 0; k < 6; k++) in[k] = body_num_eval(&b->inertia[k], p);
    /* ixx iyy izz ixy ixz iyz into the symmetric tensor */
    const double I[9] = {in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2]};
    memcpy(def->inertia, I, sizeof I);
}

void body_gravity_at(const body_file *f, const double *p, double g[3])
{
    const double g0 = body_num_eval(&f->gravity, p);
    /* a slope step (load_disturb.c) tilts this stride's gravity only */
    const double slope = body_num_eval(&f->slope, p) + (f->has_slope_step ? p[f->slope_step_param] : 0.0);
    g[0] = g0 * sin(slope);
    g[1] = 0.0;
    g[2] = -g0 * cos(slope);
}

void body_site_at(const body_file *f, size_t i, const double *p, double pos[3])
{
    for (int k = 0; k < 3; k++) pos[k] = body_num_eval(&f->sites[i].pos[k], p);
}

static void deps_add(body_deps *d, const body_num *nums, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (nums[k].param >= 0) {
            if (d->n < sizeof d->idx / sizeof d->idx[0]) d->idx[d->n++] = (short)nums[k].param;
            else d->any_expr = true;
        } else if (nums[k].expr) {
            d->any_expr = true;
        }
    }
}

static void springs_at_p(const body_file *f, const double *p, sm_rigid_spring *s);
static double origin_radius_at(const body_file *f, const double *p);
static void shape_at(const body_file *f, size_t k, const double *p, sm_contact *c);

void body_eval_plan(body_model *bm)
{
    const body_file *f = bm->f;
    for (size_t i = 0; i < f->n_bodies; i++) {
        const body_body *b = &f->bodies[i];
        body_deps *d = &bm->body_dep[i];
        *d = (body_deps){0};
        deps_add(d, b->pos, 3);
        deps_add(d, b->com, 3);
        deps_add(d, &b->mass, 1);
        deps_add(d, b->inertia, 6);
    }
    for (size_t i = 0; i < f->n_sites; i++) {
        bm->site_dep[i] = (body_deps){0};
        deps_add(&bm->site_dep[i], f->sites[i].pos, 3);
    }
    springs_at_p(f, bm->defaults, bm->springs0);
    for (size_t k = 0; k < f->n_contacts; k++) shape_at(f, k, bm->defaults, &bm->contacts0[k]);
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t k = 0; k < f->phases[ph].n_events; k++)
            bm->event_level0[ph][k] = body_num_eval(&f->phases[ph].events[k].value, bm->defaults);
    bm->origin_radius0 = origin_radius_at(f, bm->defaults);
    bm->gravity_dep = (body_deps){0};
    deps_add(&bm->gravity_dep, &f->gravity, 1);
    deps_add(&bm->gravity_dep, &f->slope, 1);
    if (f->has_slope_step) {
        const body_num d = {.param = (int)f->slope_step_param};
        deps_add(&bm->gravity_dep, &d, 1);
    }
}

static bool moved(const body_deps *d, const bool *changed)
{
    if (d->any_expr) return true;
    for (size_t k = 0; k < d->n; k++)
        if (changed[d->idx[k]]) return true;
    return false;
}

static bool same_numbers(const sm_rigid_body_def *a, const sm_rigid_body_def *b)
{
    return a->mass == b->mass && memcmp(a->pos, b->pos, sizeof a->pos) == 0 &&
           memcmp(a->com, b->com, sizeof a->com) == 0 && memcmp(a->inertia, b->inertia, sizeof a->inertia) == 0;
}

size_t body_eval_words(const body_model *bm)
{
    const size_t bytes = round_up(bm->model_bytes) + round_up(bm->data_bytes) + bm->work_doubles * sizeof(double);
    return bytes / sizeof(max_align_t) + 1;
}

sm_status body_eval_init(body_eval *e, const body_model *bm, const double *p, void *mem, char *why,
                         size_t why_len)
{
    unsigned char *at = mem;
    const body_file *f = bm->f;
    e->bm = bm;
    e->p = p;
    bool changed[SM_MAX_PARAMS];
    const bool any = memcmp(p, bm->defaults, f->n_params * sizeof *p) != 0;
    e->at_defaults = !any;
    for (size_t i = 0; any && i < f->n_params; i++) changed[i] = memcmp(&p[i], &bm->defaults[i], sizeof *p) != 0;
    e->m = bm->tmpl;
    if (any) {
        /* only what a changed parameter reads: evaluating every body's
         * numbers cost as much as the dynamics (continuation over a slope
         * changes none of them); the whole model is copied only when a
         * body or a site changes, a new gravity alone takes a view */
        sm_rigid_model *m = NULL;
        for (size_t i = 0; i < f->n_bodies; i++) {
            if (!moved(&bm->body_dep[i], changed)) continue;
            sm_rigid_body_def def;
            body_def_at(f, i, p, &def);
            if (same_numbers(&def, &bm->def0[i])) continue;
            if (!m && !(m = sm_rigid_model_copy(bm->tmpl, at, bm->model_bytes))) return SM_NO_MEMORY;
            const sm_status st = sm_rigid_body_set(m, i, &def, why, why_len);
            if (st != SM_OK) return st;
        }
        for (size_t i = 0; i < f->n_sites; i++) {
            if (!moved(&bm->site_dep[i], changed)) continue;
            double pos[3];
            body_site_at(f, i, p, pos);
            if (memcmp(pos, bm->site0[i], sizeof pos) == 0) continue;
            if (!m && !(m = sm_rigid_model_copy(bm->tmpl, at, bm->model_bytes))) return SM_NO_MEMORY;
            sm_rigid_site_set(m, i, pos);
        }
        if (moved(&bm->gravity_dep, changed)) {
            double g[3];
            body_gravity_at(f, p, g);
            if (memcmp(g, bm->gravity0, sizeof g) != 0) {
                if (!m && !(m = sm_rigid_model_view(bm->tmpl, at, bm->model_bytes))) return SM_NO_MEMORY;
                sm_rigid_gravity_set(m, g);
            }
        }
        if (m) e->m = m;
    }
    at += round_up(bm->model_bytes);
    e->d = sm_rigid_data_init(e->m, at, bm->data_bytes);
    if (!e->d) return SM_NO_MEMORY;
    at += round_up(bm->data_bytes);
    e->work = (double *)(void *)at;
    return SM_OK;
}

/* A slide's site velocity along x, and its acceleration along x for the
 * accelerations a (J a + J̇v), at the last forward sweep. */
static double slide_velocity(const body_eval *e, const sm_contact *c, const double *v)
{
    double jac[3 * SM_RIGID_MAX_V];
    sm_rigid_site_jac(e->m, e->d, c->site, jac, NULL);
    double vt = 0;
    for (size_t i = 0; i < e->bm->nv; i++) vt += jac[i] * v[i];
    return vt;
}

static double slide_accel(const body_eval *e, const sm_contact *c, const double *v, const double *a)
{
    (void)v;
    double jac[3 * SM_RIGID_MAX_V], jdv[3];
    sm_rigid_site_jac(e->m, e->d, c->site, jac, NULL);
    sm_rigid_site_jdotv(e->m, e->d, c->site, jdv);
    double at = jdv[0];
    for (size_t i = 0; i < e->bm->nv; i++) at += jac[i] * a[i];
    return at;
}

/* Contact k's shape at p: what it is, where, its numbers; no anchor. */
static void shape_at(const body_file *f, size_t k, const double *p, sm_contact *c)
{
    const body_contact *bc = &f->contacts[k];
    memset(c, 0, sizeof *c);
    c->kind = bc->kind;
    c->site = bc->site >= 0 ? (size_t)bc->site : 0;
    c->radius = bc->kind == SM_CONTACT_ROLL ? body_num_eval(&bc->radius, p) : 0.0;
    memcpy(c->axis, bc->axis, sizeof c->axis);
    c->mu = bc->has_mu || bc->kind == SM_CONTACT_SLIDE ? body_num_eval(&bc->mu, p) : 0.0;
    c->body = bc->body >= 0 ? (size_t)bc->body : 0;
    c->at = bc->kind == SM_CONTACT_LOCK ? body_num_eval(&bc->at, p) : 0.0;
    c->slide_sign = 1;
    c->rows = bc->rows;
}

static void contact_at(const body_eval *e, size_t k, const double *v, sm_contact *c, bool anchor)
{
    const body_contact *bc = &e->bm->f->contacts[k];
    if (e->at_defaults) *c = e->bm->contacts0[k];
    else shape_at(e->bm->f, k, e->p, c);
    if (bc->kind == SM_CONTACT_PIN && anchor) {
        /* held where it is, on the ground: only the section's projection
         * reads the anchor, so the solve (every RHS call) skips it */
        sm_rigid_site_pos(e->m, e->d, c->site, c->anchor);
        c->anchor[2] = 0.0;
    }
    if (bc->kind == SM_CONTACT_SLIDE && v) {
        /* the sign of the sliding velocity: it changes only where a stick
         * event ends the sliding phase (at rest: body_phase_solve) */
        c->slide_sign = slide_velocity(e, c, v) < 0 ? -1 : 1;
    }
}

void body_contact_at(const body_eval *e, size_t k, const double *v, sm_contact *c) { contact_at(e, k, v, c, true); }

void body_contact_shape(const body_eval *e, size_t k, sm_contact *c) { contact_at(e, k, NULL, c, false); }

static size_t phase_contacts(const body_eval *e, size_t ph, const double *v, sm_contact *c, bool anchor)
{
    const body_phase *P = &e->bm->f->phases[ph];
    for (size_t i = 0; i < P->n_contacts; i++) contact_at(e, (size_t)P->contacts[i], v, &c[i], anchor);
    return P->n_contacts;
}

size_t body_phase_contacts(const body_eval *e, size_t ph, const double *v, sm_contact *c)
{
    return phase_contacts(e, ph, v, c, true);
}

static void springs_at_p(const body_file *f, const double *p, sm_rigid_spring *s)
{
    for (size_t i = 0; i < f->n_forces; i++) {
        const body_force *bf = &f->forces[i];
        s[i].n = bf->n;
        for (size_t k = 0; k < bf->n; k++) {
            s[i].body[k] = (size_t)bf->body[k];
            s[i].coef[k] = bf->coef[k];
        }
        s[i].stiffness = body_num_eval(&bf->stiffness, p);
        s[i].damping = body_num_eval(&bf->damping, p);
        s[i].rest = body_num_eval(&bf->rest, p);
        s[i].torque = body_num_eval(&bf->torque, p);
    }
}

static void springs_at(const body_eval *e, sm_rigid_spring *s)
{
    const body_file *f = e->bm->f;
    if (e->at_defaults) memcpy(s, e->bm->springs0, f->n_forces * sizeof *s);
    else springs_at_p(f, e->p, s);
}

static double origin_radius_at(const body_file *f, const double *p)
{
    if (f->origin < 0 || f->contacts[f->origin].kind != SM_CONTACT_ROLL) return 0.0;
    return body_num_eval(&f->contacts[f->origin].radius, p);
}

double body_origin_radius(const body_eval *e)
{
    return e->at_defaults ? e->bm->origin_radius0 : origin_radius_at(e->bm->f, e->p);
}

void body_spring_forces(const body_eval *e, size_t ph, const double *q, const double *v, double *tau)
{
    memset(tau, 0, e->bm->nv * sizeof *tau);
    const body_file *f = e->bm->f;
    if (f->n_forces == 0) return;
    sm_rigid_spring s[BODY_MAX_FORCES];
    springs_at(e, s);
    size_t ns = 0;
    for (size_t i = 0; i < f->n_forces; i++)
        if (!(f->forces[i].phases_off >> ph & 1u)) s[ns++] = s[i];
    sm_rigid_spring_forces(e->m, s, ns, q, v, tau);
}

double body_spring_energy(const body_eval *e, const double *q)
{
    const size_t ns = e->bm->f->n_forces;
    if (ns == 0) return 0.0;
    sm_rigid_spring s[BODY_MAX_FORCES];
    springs_at(e, s);
    return sm_rigid_spring_energy(e->m, s, ns, q);
}

sm_status body_phase_solve_swept(const body_eval *e, size_t ph, const double *x, double *vdot, double *lambda,
                                 sm_contact *c, size_t *nc)
{
    const body_model *bm = e->bm;
    const double *q = x, *v = x + bm->nq;
    sm_contact local[BODY_MAX_CONTACTS];
    if (!c) c = local;
    const size_t n = phase_contacts(e, ph, v, c, false);
    if (nc) *nc = n;
    double tau[SM_RIGID_MAX_V], acc[SM_RIGID_MAX_V], lam[SM_RIGID_MAX_ROWS];
    double *a = vdot ? vdot : acc, *l = lambda ? lambda : lam;
    body_spring_forces(e, ph, q, v, tau);
    if (bm->f->ctrl.kind != BODY_CTRL_NONE) {
        const sm_status cs = body_control_add(e, ph, c, n, q, v, x + bm->nq + bm->nv, tau, NULL);
        if (cs != SM_OK) return cs;
    }
    sm_status st = sm_rigid_constrained_accel(e->m, e->d, c, n, tau, a, l, e->work);
    /* A slide at rest (the state a slip event leaves) has no velocity to
     * take friction's sign from: it slides the way it accelerates, so the
     * sign must agree with the tangential acceleration it produces
     * (friction opposing the motion that starts).  Where +1 does not, −1
     * does: the friction force then adds to the push instead of opposing it. */
    for (size_t k = 0; st == SM_OK && k < n; k++) {
        if (c[k].kind != SM_CONTACT_SLIDE || fabs(slide_velocity(e, &c[k], v)) > BODY_SLIDE_AT_REST) continue;
        if (slide_accel(e, &c[k], v, a) * c[k].slide_sign >= 0) continue;
        c[k].slide_sign = -c[k].slide_sign;
        st = sm_rigid_constrained_accel(e->m, e->d, c, n, tau, a, l, e->work);
    }
    return st;
}

sm_status body_phase_solve(const body_eval *e, size_t ph, const double *x, double *vdot, double *lambda,
                           sm_contact *c, size_t *nc)
{
    const sm_status st = sm_rigid_forward(e->m, e->d, x, x + e->bm->nq);
    if (st != SM_OK) return st;
    return body_phase_solve_swept(e, ph, x, vdot, lambda, c, nc);
}

int body_phase_contact_slot(const body_file *f, size_t ph, int k)
{
    const body_phase *P = &f->phases[ph];
    for (size_t i = 0; i < P->n_contacts; i++)
        if (P->contacts[i] == k) return (int)i;
    return -1;
}

size_t body_phase_row_of(const body_eval *e, const sm_contact *c, size_t slot)
{
    return sm_contact_set_rows(e->m, c, slot);
}

void body_contact_force(const body_eval *e, const sm_contact *c, size_t nc, const double *lambda, size_t slot,
                        double *normal, double *tangential)
{
    double F[3];
    sm_contact_force(e->m, e->d, c, nc, lambda, slot, F);
    if (c[slot].kind == SM_CONTACT_LOCK) {
        *normal = F[0];
        if (tangential) *tangential = 0.0;
        return;
    }
    *normal = F[2];
    if (tangential) *tangential = e->bm->planar ? fabs(F[0]) : hypot(F[0], F[1]);
}
