/* The controller of a body walker inside its phases' dynamics
 * (docs/body-walkers.md, controller:; the laws in src/control/).
 *
 * The constrained dynamics are affine in the applied forces, so with the
 * actuators' input matrix B the accelerations are q̈ = a + K u: a from the
 * phase's solve with the passive forces alone, K's column j from the solve
 * with B e_j added, minus a.  The virtual constraints are written over the
 * walker's rates (the controller reads only 1-DOF coordinates, whose q and
 * v match one to one), so J_y multiplies q̈ directly. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "body_model.h"

void body_control_vc(const body_file *f, const double *p, sm_vc *vc)
{
    const body_controller *k = &f->ctrl;
    memset(vc, 0, sizeof *vc);
    vc->nq = f->nv;
    vc->ny = k->n_out;
    for (size_t i = 0; i < k->phase_n; i++) vc->c[k->phase_v[i]] = body_num_eval(&k->phase_coef[i], p);
    vc->theta_plus = body_num_eval(&k->theta_plus, p);
    vc->theta_minus = body_num_eval(&k->theta_minus, p);
    vc->basis = (sm_basis)k->basis;
    for (size_t o = 0; o < k->n_out; o++) {
        for (size_t i = 0; i < k->out_n[o]; i++) vc->H[o][k->out_v[o][i]] = body_num_eval(&k->out_coef[o][i], p);
        vc->degree[o] = k->degree[o];
        for (size_t m = 0; m <= k->degree[o]; m++) vc->a[o][m] = body_num_eval(&k->a[o][m], p);
        if (vc->basis == SM_BASIS_SPLINE) memcpy(vc->knots[o], k->knots[o], (k->degree[o] + 1) * sizeof *k->knots[o]);
        if (vc->basis == SM_BASIS_FOURIER) vc->period[o] = body_num_eval(&k->period[o], p);
    }
}

void body_control_q_on_v(const body_file *f, const double *q, double *qv)
{
    for (size_t i = 0; i < f->nv; i++) qv[i] = f->ctrl.q_of[i] >= 0 ? q[f->ctrl.q_of[i]] : 0.0;
}

double body_control_phase_rate(const body_file *f, const double *p, const double *v)
{
    const body_controller *k = &f->ctrl;
    double rate = 0.0;
    for (size_t i = 0; i < k->phase_n; i++) rate += body_num_eval(&k->phase_coef[i], p) * v[k->phase_v[i]];
    const double span = body_num_eval(&k->theta_minus, p) - body_num_eval(&k->theta_plus, p);
    return span > 0 ? rate : -rate;
}

/* tau += B u */
static void add_input(const body_controller *k, const double *u, double *tau)
{
    for (size_t j = 0; j < k->n_act; j++)
        for (size_t i = 0; i < k->act_n[j]; i++) tau[k->act_v[j][i]] += k->act_coef[j][i] * u[j];
}

sm_status body_control_law(const body_eval *e, size_t ph, const sm_contact *c, size_t nc, const double *q, const double *v,
                           const double *zi, const double *tau, double *u)
{
    const body_file *f = e->bm->f;
    const body_controller *k = &f->ctrl;
    const size_t nv = e->bm->nv, nu = k->n_act;
    sm_vc vc;
    sm_vc_value val;
    double qv[SM_CTRL_MAX_Q];
    body_control_vc(f, e->p, &vc);
    body_control_q_on_v(f, q, qv);
    sm_vc_eval(&vc, qv, v, &val);
    for (size_t i = 0; zi && i < k->n_int; i++) val.iz[k->int_out[i]] += body_num_eval(&k->int_gain[i], e->p) * zi[i];
    const double kp = body_num_eval(&k->kp, e->p), kd = body_num_eval(&k->kd, e->p);
    if (k->kind == BODY_CTRL_PD) {
        /* an output whose feedback is off in this phase (its phases:) */
        for (size_t o = 0; o < k->n_out; o++)
            if (!(k->out_phases[o] >> ph & 1u)) val.y[o] = val.dy[o] = val.iz[o] = 0.0;
        double B[SM_RIGID_MAX_V * SM_CTRL_MAX_Y] = {0};
        for (size_t j = 0; j < nu; j++)
            for (size_t i = 0; i < k->act_n[j]; i++) B[(size_t)k->act_v[j][i] * nu + j] = k->act_coef[j][i];
        const sm_status st = sm_ctrl_pd(&vc, &val, B, nu, kp, kd, u);
        if (st != SM_OK) return st;
        /* the torques that drive the reference motion itself, so that
         * the feedback only corrects departures from it */
        for (size_t j = 0; k->ff_n && j < nu; j++) {
            if (!k->ff_has[j] || k->ff_phases_off[j] >> ph & 1u) continue;
            double vals[BODY_MAX_COEF], h[3];
            for (size_t m = 0; m < k->ff_n; m++) vals[m] = body_num_eval(&k->ff[j][m], e->p);
            sm_spline(k->ff_knots, vals, k->ff_n, val.s, h);
            u[j] += h[0];
        }
    } else {
        double a[SM_RIGID_MAX_V], acc[SM_RIGID_MAX_V], K[SM_RIGID_MAX_V * SM_CTRL_MAX_Y], t1[SM_RIGID_MAX_V];
        sm_status st = sm_rigid_constrained_accel(e->m, e->d, c, nc, tau, a, NULL, e->work);
        if (st != SM_OK) return st;
        for (size_t j = 0; j < nu; j++) {
            double unit[SM_CTRL_MAX_Y] = {0};
            unit[j] = 1.0;
            memcpy(t1, tau, nv * sizeof *t1);
            add_input(k, unit, t1);
            if ((st = sm_rigid_constrained_accel(e->m, e->d, c, nc, t1, acc, NULL, e->work)) != SM_OK) return st;
            for (size_t i = 0; i < nv; i++) K[i * nu + j] = acc[i] - a[i];
        }
        st = sm_ctrl_io_linearise(&vc, &val, a, K, nu, kp, kd, body_num_eval(&k->epsilon, e->p), u);
        if (st != SM_OK) return st;
    }
    if (k->has_limit) {
        double sat[SM_CTRL_MAX_Y];
        memcpy(sat, u, nu * sizeof *u);
        if (sm_ctrl_saturate(sat, nu, body_num_eval(&k->limit, e->p))) {
            if (!k->saturate) return SM_TORQUE_LIMIT;
            memcpy(u, sat, nu * sizeof *u);
        }
    }
    return SM_OK;
}

sm_status body_control_add(const body_eval *e, size_t ph, const sm_contact *c, size_t nc, const double *q, const double *v,
                           const double *z, double *tau, double *u_out)
{
    const body_controller *k = &e->bm->f->ctrl;
    double u[SM_CTRL_MAX_Y];
    if (k->sampled) {
        /* between samples the torques are the held ones, whatever the state */
        memcpy(u, z, k->n_act * sizeof *u);
    } else {
        const sm_status st = body_control_law(e, ph, c, nc, q, v, k->n_int ? z : NULL, tau, u);
        if (st != SM_OK) return st;
    }
    add_input(k, u, tau);
    if (u_out) memcpy(u_out, u, k->n_act * sizeof *u);
    return SM_OK;
}

/* What a control law reads at state x of phase ph: the kinematics, the
 * phase's contacts c[*nc] and the springs' generalised forces tau. */
static sm_status law_inputs(const body_eval *e, size_t ph, const double *x, sm_contact *c, size_t *nc, double *tau)
{
    const body_model *bm = e->bm;
    sm_status st = sm_rigid_forward(e->m, e->d, x, x + bm->nq);
    if (st != SM_OK) return st;
    *nc = body_phase_contacts(e, ph, x + bm->nq, c);
    body_spring_forces(e, ph, x, x + bm->nq, tau);
    return SM_OK;
}

sm_status body_control_torques(const body_eval *e, size_t ph, const double *x, double *u)
{
    const body_model *bm = e->bm;
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc;
    double tau[SM_RIGID_MAX_V];
    sm_status st = law_inputs(e, ph, x, c, &nc, tau);
    if (st != SM_OK) return st;
    return body_control_add(e, ph, c, nc, x, x + bm->nq, x + bm->nq + bm->nv, tau, u);
}

sm_status body_control_law_at(const body_eval *e, size_t ph, const double *x, double *u)
{
    const body_model *bm = e->bm;
    const body_controller *k = &bm->f->ctrl;
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc;
    double tau[SM_RIGID_MAX_V];
    sm_status st = law_inputs(e, ph, x, c, &nc, tau);
    if (st != SM_OK) return st;
    const double *zi = k->n_int ? x + bm->nq + bm->nv + body_ctrl_nheld(k) : NULL;
    return body_control_law(e, ph, c, nc, x, x + bm->nq, zi, tau, u);
}

void body_control_state_rate(const body_model *bm, const double *p, const double *x, double *zdot)
{
    const body_file *f = bm->f;
    const body_controller *k = &f->ctrl;
    const size_t nh = body_ctrl_nheld(k);
    for (size_t j = 0; j < nh; j++) zdot[j] = 0.0;
    if (!k->n_int) return;
    sm_vc vc;
    sm_vc_value val;
    double qv[SM_CTRL_MAX_Q];
    body_control_vc(f, p, &vc);
    body_control_q_on_v(f, x, qv);
    sm_vc_eval(&vc, qv, x + bm->nq, &val);
    const double *zi = x + bm->nq + bm->nv + nh;
    for (size_t i = 0; i < k->n_int; i++)
        zdot[nh + i] = val.y[k->int_out[i]] - body_num_eval(&k->int_leak[i], p) * zi[i];
}

sm_status body_control_impact(const body_eval *e, size_t ph, bool section, double *x)
{
    const body_model *bm = e->bm;
    const body_controller *k = &bm->f->ctrl;
    double *z = x + bm->nq + bm->nv;
    const size_t nh = body_ctrl_nheld(k);
    for (size_t i = 0; i < k->n_int; i++)
        if (!k->int_keep[i]) z[nh + i] = 0.0;
    /* the step's clock restarts at the section, on a sample */
    if (!section || !k->sampled) return SM_OK;
    return body_control_law_at(e, ph, x, z);
}

double body_control_clock_period(const double *p, const void *data)
{
    const body_model *bm = data;
    return body_num_eval(&bm->f->ctrl.sample_period, p);
}

int body_control_clock_reset(size_t phase, const double *xm, double *xp, const double *p, const void *data)
{
    const body_model *bm = data;
    memcpy(xp, xm, bm->n_state * sizeof *xp);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    sm_status st = body_eval_init(&e, bm, p, mem, NULL, 0);
    if (st == SM_OK) st = body_control_law_at(&e, phase, xm, xp + bm->nq + bm->nv);
    return st == SM_OK ? 0 : SM_CALLBACK_STATUS(st);
}

double body_control_power(const body_file *f, const double *u, const double *v)
{
    const body_controller *k = &f->ctrl;
    double P = 0.0;
    for (size_t j = 0; j < k->n_act; j++)
        for (size_t i = 0; i < k->act_n[j]; i++) P += u[j] * k->act_coef[j][i] * v[k->act_v[j][i]];
    return P;
}

sm_status body_control_check(const body_model *bm, char *why, size_t why_len)
{
    const body_file *f = bm->f;
    if (f->ctrl.kind == BODY_CTRL_NONE) return SM_OK;
    double x[SM_MAX_STATE], u[BODY_MAX_ACT];
    body_guess(x, bm->defaults, bm);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, bm->defaults, mem, NULL, 0) != SM_OK) return SM_OK; /* check_phases says why */
    for (size_t ph = 0; ph < f->n_phases; ph++) {
        if (body_control_law_at(&e, ph, x, u) != SM_SINGULAR_DECOUPLING) continue;
        snprintf(why, why_len,
                 "%s:%d:%d: the controller's decoupling matrix L_g L_f y is singular at the guess in phase '%s': "
                 "its actuators cannot drive every output; change the outputs' coordinates or the actuators",
                 f->path, f->ctrl.outputs_pos.line, f->ctrl.outputs_pos.col, f->phases[ph].name);
        return SM_BAD_MODEL_FILE;
    }
    return SM_OK;
}

sm_status body_control_state_setup(body_model *bm, char *why, size_t why_len)
{
    const body_file *f = bm->f;
    const body_controller *k = &f->ctrl;
    const size_t nh = body_ctrl_nheld(k), at = bm->nq + bm->nv;
    for (size_t j = 0; j < nh; j++) {
        const size_t len = strlen(k->act_name[j]) + 6;
        char *s = malloc(len);
        if (!s) {
            snprintf(why, why_len, "%s: out of memory for the state's names", f->path);
            return SM_NO_MEMORY;
        }
        snprintf(s, len, "%s.held", k->act_name[j]);
        bm->owned_names[at + j] = s;
        bm->state_names[at + j] = s;
    }
    for (size_t i = 0; i < k->n_int; i++) bm->state_names[at + nh + i] = k->int_name[i];
    if (k->sampled) {
        bm->model.clock_period = body_control_clock_period;
        bm->model.clock_reset = body_control_clock_reset;
    }
    return SM_OK;
}