/* Continuation of an actuated walker in its controller's gain: a multiplier
 * through +1 that is no fold.
 *
 * With impact-invariant outputs the gait lives on the hybrid zero dynamics,
 * which the gain's time scale epsilon does not enter (the outputs are held
 * at zero whatever their decay rate; Westervelt et al. 2007, Theorem 5.3),
 * so the gait is the same at every epsilon: the branch is a straight line
 * in (z, epsilon) and never turns.  Its multipliers are the restricted map's
 * delta^2, the same all along, and the outputs' transverse ones, which grow
 * with epsilon; one passes through +1 near epsilon = 0.78.  There another
 * family of gaits (off the zero dynamics) crosses the HZD one: a branch
 * point.  The continuation called it LP (a fold) before. */
#include <stdbool.h>
#include <stdlib.h>

#include "src_path.h"
#include "stridemap/continuation.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/registry.h"

typedef struct {
    int n;
    sm_cont_point pts[256];
} trace;

static int keep(void *ctx, const sm_cont_point *pt)
{
    trace *t = ctx;
    if (t->n < 256) t->pts[t->n++] = *pt;
    return 0;
}

/* models/three_link_hzd.yaml's impact-invariant design (its header;
 * tests/test_three_link_hzd.c finds it), delta^2 = 0.65884284. */
static void invariant_design(const sm_model *m, double *p)
{
    sm_model_default_params(m, p);
    set_param(m, p, "a01", 0.8);
    set_param(m, p, "a11", 0);
    set_param(m, p, "a31", 0);
    set_param(m, p, "a21", -0.93332082096017);
    set_param(m, p, "a12", -1.70600832248951);
}

static void test_output_multiplier_through_one_is_a_branch_point(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(src_path("models/three_link_hzd.yaml"), &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    invariant_design(m, p);
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.rtol = so.atol = 1e-11;
    so.method = SM_METHOD_BDF;
    sm_workspace *ws = NULL;
    assert_status(sm_workspace_create(m, &so, &ws), SM_OK);

    /* The gait at the file's epsilon (0.1), from the file's guess. */
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result fr;
    assert_status(sm_fixed_point(ws, p, x, &no, &fr), SM_OK);
    const double delta2 = fr.eig_re[0];
    assert_close(delta2, 0.65884284, 1e-7);
    double z0[SM_MAX_STATE];
    sm_model_free(m, fr.x, z0);

    const int ip = sm_model_param_index(m, "epsilon");
    assert_true(ip >= 0);
    p[ip] = 0.7;
    sm_cont_options o;
    sm_cont_options_default(&o, m, (size_t)ip);
    o.lo = 0.7;
    o.hi = 0.9;
    o.h0 = 0.05;
    o.h_max = 0.1;
    o.tol = 1e-9; /* well above the strides' noise: near the BP the corrector is nearly singular */
    static trace t;
    sm_cont_result r;
    assert_status(sm_continue(ws, p, fr.x, &o, keep, &t, &r), SM_OK);
    assert_int_equal(r.stop, SM_STOP_BOUND);
    assert_int_equal(r.n_special, 1);
    const sm_cont_point *bp = &r.special[0];
    assert_int_equal(bp->type, SM_POINT_BP);
    assert_string_equal(sm_point_label(bp->type), "BP");

    /* The branch: epsilon only grows, the gait stays the one at 0.1, and
     * delta^2 stays a multiplier; the largest one crosses 1 once, at the BP. */
    int below = 0, above = 0;
    for (int i = 0; i < t.n; i++) {
        const sm_cont_point *pt = &t.pts[i];
        if (i > 0) assert_true(pt->mu > t.pts[i - 1].mu);
        if (pt->type == SM_POINT_BP) continue;
        double z[SM_MAX_STATE];
        sm_model_free(m, pt->x, z);
        for (size_t k = 0; k < m->n_free; k++) assert_close(z[k], z0[k], 1e-7 * fmax(1, fabs(z0[k])));
        bool has_delta2 = false;
        for (size_t k = 0; k < m->n_free; k++) has_delta2 |= fabs(pt->eig_re[k] - delta2) < 1e-6 && pt->eig_im[k] == 0;
        assert_true(has_delta2);
        if (pt->mu < bp->mu) below += pt->eig_re[0] < 1;
        else above += pt->eig_re[0] > 1;
    }
    assert_true(below >= 1 && above >= 1 && below + above == t.n - 1);
    /* At the BP the largest multiplier is 1, and the branch's direction
     * there is along epsilon alone. */
    assert_close(bp->eig_re[0], 1.0, 1e-5); /* (8e-4 where a trial that failed near the BP ended the search) */
    assert_close(bp->eig_im[0], 0.0, 0.0);
    assert_true(bp->mu > 0.75 && bp->mu < 0.825);
    assert_close(fabs(bp->tangent[m->n_free]), 1.0, 1e-6);
    print_message("BP at epsilon = %.9f, multiplier %.9f; %d points, %ld strides\n", bp->mu, bp->eig_re[0], t.n,
                  r.stride_evals);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_multiplier_through_one_is_a_branch_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
