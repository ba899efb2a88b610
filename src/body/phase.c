/* The equations of motion of each phase: the forward sweep, the springs,
 * the constrained solve over the phase's contacts, x' = (qdot(q, v), vdot).
 * sm_rhs_fn has no phase argument, so each phase gets a trampoline. */
#include <string.h>

#include "body_model.h"

static int phase_rhs(size_t ph, const double *x, double *xd, const double *p, const body_model *bm)
{
    if (bm->reduced) {
        /* the joints alone (reduced.c) */
        const sm_status st = body_reduced_rhs(bm, ph, p, x, xd);
        return st == SM_OK ? 0 : SM_CALLBACK_STATUS(st);
    }
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    if (body_eval_init(&e, bm, p, mem, NULL, 0) != SM_OK) return SM_CALLBACK_STATUS(SM_BAD_PARAM);
    const sm_status st = body_phase_solve(&e, ph, x, xd + bm->nq, NULL, NULL, NULL);
    /* a singular constraint set ends the stride with its own status (model.h) */
    if (st != SM_OK) return SM_CALLBACK_STATUS(st);
    sm_rigid_qdot(e.m, x, x + bm->nq, xd);
    if (bm->n_state > bm->nq + bm->nv) body_control_state_rate(bm, p, x, xd + bm->nq + bm->nv);
    return 0;
}

#define BODY_RHS(ph)                                                                                \
    static int rhs_##ph(double t, const double *x, double *xd, const double *p, const void *data) \
    {                                                                                               \
        (void)t;                                                                                    \
        return phase_rhs(ph, x, xd, p, data);                                                       \
    }
BODY_RHS(0)
BODY_RHS(1)
BODY_RHS(2)
BODY_RHS(3)
BODY_RHS(4)
BODY_RHS(5)
BODY_RHS(6)
BODY_RHS(7)
BODY_RHS(8)
BODY_RHS(9)
BODY_RHS(10)
BODY_RHS(11)

_Static_assert(BODY_MAX_PHASES == 12, "one rhs trampoline per phase");

static const sm_rhs_fn rhs_table[BODY_MAX_PHASES] = {rhs_0, rhs_1, rhs_2, rhs_3, rhs_4,  rhs_5,
                                                     rhs_6, rhs_7, rhs_8, rhs_9, rhs_10, rhs_11};

sm_rhs_fn body_phase_rhs_fn(size_t ph) { return rhs_table[ph]; }
