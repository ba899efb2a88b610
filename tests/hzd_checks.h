/* Helpers shared by the HZD walkers' tests (tests/test_three_link_hzd.c,
 * tests/test_five_link.c): opening a body file, a workspace at one
 * tolerance and method, and the energy balance E(T) - E(0) - work of the controller's
 * torques, integrated by classical RK4 so that CVODE plays no part. */
#ifndef STRIDEMAP_TEST_HZD_CHECKS_H
#define STRIDEMAP_TEST_HZD_CHECKS_H

#include "test_util.h"
#include "../src/body/body_model.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

static inline const sm_model *hzd_open_file(const char *path)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    const sm_status st = sm_registry_open(path, &m, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", path, why);
    return m;
}

static inline sm_workspace *hzd_workspace(const sm_model *m, double rtol, sm_method method)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.rtol = o.atol = rtol;
    o.method = method;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    return ws;
}

/* E(T) − E(0) − ∫ u·Bᵀv dt over T by classical RK4 at step h on the
 * phase's equations (CVODE plays no part); *moved = E(T) − E(0). */
static inline double hzd_energy_balance(const sm_model *m, const double *p, const double *x0, double T, double h,
                                        double *moved)
{
    const size_t n = m->n_state;
    const body_model *bm = m->data;
    const body_file *f = body_model_file(m);
    double x[SM_MAX_STATE], k[4][SM_MAX_STATE + 1], s[SM_MAX_STATE + 1];
    memcpy(x, x0, n * sizeof *x);
    double W = 0.0;
    const double E0 = m->kinetic_energy(x, p, m->data) + m->potential_energy(x, p, m->data);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    const int steps = (int)lround(T / h);
    for (int it = 0; it < steps; it++) {
        for (int st = 0; st < 4; st++) {
            const double c = st == 0 ? 0.0 : st == 3 ? 1.0 : 0.5;
            for (size_t i = 0; i < n; i++) s[i] = x[i] + (st ? c * h * k[st - 1][i] : 0.0);
            assert_int_equal(m->phases[0].rhs(0.0, s, k[st], p, m->data), 0);
            double u[BODY_MAX_ACT] = {0};
            k[st][n] = 0.0;
            if (f->ctrl.kind != BODY_CTRL_NONE) {
                assert_status(body_control_torques(&e, 0, s, u), SM_OK);
                k[st][n] = body_control_power(f, u, s + bm->nq);
            }
        }
        for (size_t i = 0; i <= n; i++) {
            const double dx = h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
            if (i < n) x[i] += dx;
            else W += dx;
        }
    }
    const double E1 = m->kinetic_energy(x, p, m->data) + m->potential_energy(x, p, m->data);
    *moved = E1 - E0;
    return E1 - E0 - W;
}

#endif
