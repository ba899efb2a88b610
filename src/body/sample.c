/* The quantities a body walker reports at every sample of a trajectory
 * (sm_model.sample, written by simulate as columns after the state): each
 * contact's force on the walker in the world frame (NAME.fx, NAME.fz, and
 * NAME.fy in 3-D; a lock's NAME.torque), NaN where the sample's phase does
 * not hold the contact; the centre of pressure of the ground contacts in
 * use (cop.x, cop.y in 3-D) and the zero-moment point from the whole-body
 * motion (zmp.x, zmp.y), NaN where the ground does not push up.  The CoP
 * comes from the contact forces and the ZMP from the accelerations alone,
 * so where all external forces are ground contacts the two columns check
 * each other.  A walker with a controller adds each actuator's torque
 * (ACTUATOR.torque) and each output (OUTPUT.y). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_model.h"

static int body_sample(double t, size_t phase, const double *x, const double *p, const void *data, double *values)
{
    (void)t; /* the forces follow from the state */
    const body_model *bm = data;
    const body_file *f = bm->f;
    const sm_model *m = &bm->model;
    for (size_t i = 0; i < m->n_sample; i++) values[i] = NAN;
    if (phase >= f->n_phases) return 1;
    BODY_FULL(bm, p, x, return 1);
    if (bm->reduced) {
        /* the base the expansion put under the joints, beside the state */
        const double base[4] = {x[0], x[1], x[bm->nq], x[bm->nq + 1]};
        memcpy(values + bm->sample_base, base, sizeof base);
    }
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, NULL, 0) != SM_OK) return 1;
    double vdot[SM_RIGID_MAX_V], lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc = 0;
    if (body_phase_solve(&e, phase, x, vdot, lambda, c, &nc) != SM_OK) return 1;
    const body_phase *P = &f->phases[phase];
    for (size_t k = 0; k < nc; k++) {
        const int col = bm->sample_col[P->contacts[k]];
        if (col < 0) continue;
        double F[3];
        sm_contact_force(e.m, e.d, c, nc, lambda, k, F);
        if (c[k].kind == SM_CONTACT_LOCK) {
            values[col] = F[0];
        } else if (bm->planar) {
            values[col] = F[0];
            values[col + 1] = F[2];
        } else {
            for (int i = 0; i < 3; i++) values[col + i] = F[i];
        }
    }
    const size_t dim = bm->planar ? 1 : 2;
    double cop[3], zmp[3];
    if (sm_rigid_cop(e.m, e.d, c, nc, lambda, cop))
        for (size_t i = 0; i < dim; i++) values[bm->sample_cop + i] = cop[i];
    if (sm_rigid_zmp(e.m, e.d, x + bm->nq, vdot, zmp))
        for (size_t i = 0; i < dim; i++) values[bm->sample_cop + dim + i] = zmp[i];
    if (bm->sample_ctrl >= 0) {
        double u[BODY_MAX_ACT], qv[SM_CTRL_MAX_Q];
        const size_t at = (size_t)bm->sample_ctrl, nu = f->ctrl.n_act;
        if (body_control_torques(&e, phase, x, u) == SM_OK)
            for (size_t j = 0; j < nu; j++) values[at + j] = u[j];
        sm_vc vc;
        sm_vc_value val;
        body_control_vc(f, p, &vc);
        body_control_q_on_v(f, x, qv);
        sm_vc_eval(&vc, qv, x + bm->nq, &val);
        for (size_t i = 0; i < f->ctrl.n_out; i++) values[at + nu + i] = val.y[i];
    }
    return 0;
}

static bool add_name(body_model *bm, size_t *n, const char *a, const char *b)
{
    const size_t len = strlen(a) + strlen(b) + 2;
    char *s = malloc(len);
    if (!s) return false;
    snprintf(s, len, "%s.%s", a, b);
    bm->owned_sample[*n] = s;
    bm->sample_names[(*n)++] = s;
    return true;
}

sm_status body_set_samples(body_model *bm)
{
    const body_file *f = bm->f;
    const bool planar = bm->planar;
    static const char *const planar_axes[] = {"fx", "fz"}, *const axes[] = {"fx", "fy", "fz"};
    size_t n = 0;
    const size_t tail = planar ? 2 : 4; /* cop and zmp */
    for (size_t k = 0; k < f->n_contacts; k++) {
        bm->sample_col[k] = -1;
        const bool lock = f->contacts[k].kind == SM_CONTACT_LOCK;
        const size_t width = lock ? 1 : planar ? 2 : 3;
        /* a walker with more contacts than columns reports the first ones */
        if (n + width + tail > SM_MAX_SAMPLE) continue;
        bm->sample_col[k] = (int)n;
        for (size_t i = 0; i < width; i++)
            if (!add_name(bm, &n, f->contacts[k].name, lock ? "torque" : planar ? planar_axes[i] : axes[i]))
                return SM_NO_MEMORY;
    }
    bm->sample_cop = n;
    static const char *const tails[] = {"cop.x", "zmp.x"}, *const tails3[] = {"cop.x", "cop.y", "zmp.x", "zmp.y"};
    for (size_t i = 0; i < tail; i++) bm->sample_names[n++] = planar ? tails[i] : tails3[i];
    bm->sample_ctrl = -1;
    if (f->ctrl.kind != BODY_CTRL_NONE && n + f->ctrl.n_act + f->ctrl.n_out <= SM_MAX_SAMPLE) {
        bm->sample_ctrl = (int)n;
        for (size_t j = 0; j < f->ctrl.n_act; j++)
            if (!add_name(bm, &n, f->ctrl.act_name[j], "torque")) return SM_NO_MEMORY;
        for (size_t i = 0; i < f->ctrl.n_out; i++)
            if (!add_name(bm, &n, f->ctrl.out_name[i], "y")) return SM_NO_MEMORY;
    }
    if (bm->reduced && n + 4 <= SM_MAX_SAMPLE) {
        bm->sample_base = n;
        for (size_t i = 0; i < 2; i++) bm->sample_names[n++] = bm->state_names[i];
        for (size_t i = 0; i < 2; i++) bm->sample_names[n++] = bm->state_names[bm->nq + i];
    }
    bm->model.n_sample = n;
    bm->model.sample_names = bm->sample_names;
    bm->model.sample = body_sample;
    return SM_OK;
}

void body_free_samples(body_model *bm)
{
    for (size_t i = 0; i < SM_MAX_SAMPLE; i++) free(bm->owned_sample[i]);
}
