/* The fixed-point set-up the body-walker tests share (tests/test_body_model.c,
 * tests/test_body_reduced.c): a workspace at rtol = atol = rtol, and
 * Newton's options with the same stencil in every model (tolerance 1e-12,
 * central differences at step 1e-2), so that only the integration noise / h
 * differs between the models compared. */
#ifndef STRIDEMAP_TEST_BODY_SOLVE_H
#define STRIDEMAP_TEST_BODY_SOLVE_H

#include "test_util.h"
#include "stridemap/fixedpoint.h"

static inline sm_workspace *body_solve_setup(const sm_model *m, double rtol, sm_newton_options *no)
{
    sm_solver_options o;
    sm_solver_options_default(&o);
    o.rtol = o.atol = rtol;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &o, &ws), SM_OK);
    sm_newton_options_default(no);
    no->tol = 1e-12;
    no->fd_step = 1e-2;
    no->central = true;
    return ws;
}

#endif
