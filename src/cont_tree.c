#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stridemap/continuation.h"

void sm_cont_tree_options_default(sm_cont_tree_options *t)
{
    t->do_switch = false;
    t->max_period = 16;
    t->amplitude = 0.0;
    t->max_branches = 256;
}

/* One branch to follow: a start and its options. */
typedef struct {
    double mu;
    double x[SM_MAX_STATE];
    sm_cont_options o;
    int parent;
    double parent_pd;
} job;

typedef struct {
    const sm_cont_tree_fns *fns;
    int branch;
} point_relay;

static int relay(void *ctx, const sm_cont_point *pt)
{
    point_relay *r = ctx;
    return r->fns->point ? r->fns->point(r->fns->ctx, r->branch, pt) : 0;
}

sm_status sm_cont_tree(sm_workspace *ws, const double *p_in, const double *x_guess, const sm_cont_options *o,
                       const sm_cont_tree_options *t, const sm_cont_tree_fns *fns, sm_cont_tree_result *res)
{
    const sm_model *m = sm_workspace_model(ws);
    memset(res, 0, sizeof *res);
    res->start_residual = NAN;
    res->first_stop = SM_STOP_START_FAILED;
    const int max_branches = t->max_branches > 0 ? t->max_branches : 1;
    job *queue = malloc((size_t)max_branches * sizeof *queue);
    sm_cont_result *r = malloc(sizeof *r);
    if (!queue || !r) {
        free(queue), free(r);
        return res->status = SM_NO_MEMORY;
    }
    const size_t ip = o->param;
    queue[0] = (job){.mu = p_in[ip], .o = *o, .parent = -1, .parent_pd = NAN};
    memcpy(queue[0].x, x_guess, m->n_state * sizeof *x_guess);
    int n_jobs = 1;
    for (int b = 0; b < n_jobs; b++) {
        job *jb = &queue[b];
        double p[SM_MAX_PARAMS];
        memcpy(p, p_in, m->n_params * sizeof *p);
        p[ip] = jb->mu;
        point_relay pr = {fns, b};
        sm_continue(ws, p, jb->x, &jb->o, relay, &pr, r);
        res->n_branches = b + 1;
        if (fns->branch) {
            const sm_cont_branch info = {b, jb->parent, jb->parent_pd, jb->mu, &jb->o, r};
            fns->branch(fns->ctx, &info);
        }
        if (b == 0) {
            res->status = r->status;
            res->first_stop = r->stop;
            if (r->stop == SM_STOP_START_FAILED) res->start_residual = r->last.residual;
        }
        if (r->stop == SM_STOP_CALLBACK) {
            res->stopped = true;
            break;
        }
        if (!t->do_switch) continue;
        for (int k = 0; k < r->n_special && k < SM_CONT_MAX_SPECIAL; k++) {
            const sm_cont_point *sp = &r->special[k];
            if (sp->type != SM_POINT_PD || 2 * sp->period > t->max_period || n_jobs >= max_branches) continue;
            job *nj = &queue[n_jobs];
            p[ip] = sp->mu;
            /* The amplitude asked for (or 1e-3 of the state's size), then
             * 2.5 and 0.4 times it: a switch can fail for one amplitude (a
             * stride that falls, a solver failure). */
            double z[SM_MAX_STATE], scale = 0.0;
            sm_model_free(m, sp->x, z);
            for (size_t i = 0; i < m->n_free; i++) scale = fmax(scale, fabs(z[i]));
            const double a0 = t->amplitude > 0 ? t->amplitude : 1e-3 * fmax(scale, 0.1);
            const double tries[3] = {a0, 2.5 * a0, 0.4 * a0};
            sm_status st = SM_NOT_CONVERGED;
            for (int i = 0; i < 3; i++) {
                double x[SM_MAX_STATE], mu;
                sm_cont_options o2;
                if (sm_cont_switch_pd(ws, p, sp, &jb->o, tries[i], x, &mu, &o2) != SM_OK) continue;
                /* The new branch is born at the PD (mu - mu_pd grows as the
                 * amplitude squared), but the period-2N plane can also cut
                 * it far away, where the corrector may land: keep the
                 * switch nearest the PD. */
                if (st == SM_OK && !(fabs(mu - sp->mu) < fabs(nj->mu - sp->mu))) continue;
                memcpy(nj->x, x, sizeof nj->x);
                nj->mu = mu;
                nj->o = o2;
                st = SM_OK;
            }
            if (st != SM_OK) {
                if (fns->switch_failed) fns->switch_failed(fns->ctx, b, sp, st);
                continue;
            }
            nj->parent = b;
            nj->parent_pd = sp->mu;
            n_jobs++;
        }
    }
    free(queue);
    free(r);
    return res->status;
}
