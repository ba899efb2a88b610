#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: stridemap fixed MODEL [--set NAME=VALUE]... [--guess v1,v2,...] [--period N] [--two-step]\n"
    "                       [--rtol R] [--atol A] [--method adams|bdf|erk8|erk5] [--max-order Q] [--tol T]\n"
    "                       [--max-iter K] [--fd-step H] [--central] [--newton-update U]\n"
    "                       [--jacobian fd|exact] [--tmax T]\n"
    "                       [--max-step H] [--json]\n"
    "\n"
    "Finds a gait of MODEL: a fixed point x* = P^N(x*) of the stride map P, by\n"
    "Newton-Raphson in the free coordinates of the Poincare section, and tells\n"
    "whether it is stable from the eigenvalues of dP^N/dx (all inside the unit\n"
    "circle means stable).  Finds unstable gaits as well as stable ones.\n"
    "\n"
    "  --set NAME=VALUE  change a parameter (see 'stridemap params MODEL')\n"
    "  --guess LIST      starting state, all state variables in order, comma-separated;\n"
    "                    its free coordinates are used (default: the model's guess)\n"
    "  --period N        look for a period-N gait, a fixed point of P^N (default 1)\n"
    "  --two-step        Coleman's two-step map (a right step, then a left one, with no\n"
    "                    mirror between) instead of the mirrored one-step map, for\n"
    "                    comparison: its multipliers are the squares of the one-step\n"
    "                    map's.  It is P^2 (with --period N: P^2N)\n"
    "  --rtol, --atol    integration tolerances (default 1e-12 each)\n"
    "  --method          CVODE's 'adams' (default) or 'bdf' (the default for a model\n"
    "                    with a controller, whose equations are stiff), or ARKODE's explicit\n"
    "                    Runge-Kutta pairs 'erk8' (Fehlberg 8(7)) or 'erk5' (Dormand-Prince\n"
    "                    5(4)); README.md says when to pick which.  A sampled controller\n"
    "                    (sampling: in a model file) needs adams or bdf\n"
    "  --max-order Q     cap the method's order (default: 12 Adams, 5 BDF; not for erk)\n"
    "  --tol T           Newton stops when max|P^N(x)-x| <= T (default 1e-10)\n"
    "  --max-iter K      Newton iterations (default 30)\n"
    "  --fd-step H       finite-difference step (default: sqrt(rtol) for Newton's Jacobian,\n"
    "                    0.01 rtol^(1/5) for the stability Jacobian, which is\n"
    "                    Richardson-extrapolated from central differences at H and H/2)\n"
    "  --central         central differences during Newton (default forward)\n"
    "  --newton-update U how Newton's Jacobian follows its steps: 'broyden' (default:\n"
    "                    differenced until a whole step halves the residual, then\n"
    "                    rank-one updates, differenced anew only where an update fails\n"
    "                    to halve it) or 'full' (differenced at every iteration)\n"
    "  --jacobian KIND   Newton's Jacobian: 'fd', finite differences (default), or 'exact',\n"
    "                    from sensitivities through each phase and the saltation at each\n"
    "                    event.  The eigenvalues use the exact Jacobian where the model\n"
    "                    allows, whatever KIND; the finite-difference ones (Richardson,\n"
    "                    see --fd-step) are shown beside them as a cross-check\n"
    "  --tmax T          stride time limit (default: the model's)\n"
    "  --max-step H      largest integration step (default: no limit)\n"
    "  --mu MU           friction coefficient for the no-slip check (default: the\n"
    "                    model's contacts' own, else 1)\n"
    "  --json            one JSON object on stdout\n"
    "  --gsn             the gait sensitivity norm of each disturbance the model declares\n"
    "                    in the text too (it costs strides of its own; the JSON has it\n"
    "                    unless --no-gsn)\n"
    "  --no-gsn          leave the gait sensitivity norm out of the JSON\n"
    "\n"
    "exit status: 0 gait found, 1 no gait found, 64 bad usage, 65 bad values.\n"
    "\n"
    "examples:\n"
    "  stridemap fixed simplest --set gamma=0.009 --json\n"
    "  stridemap fixed simplest --guess 0.19,-0.2,0.38,-0.01   # the unstable gait\n"
    "  stridemap fixed simplest --set gamma=0.016 --period 2\n";

static json_t *vector(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, cli_json_number(v[i]));
    return a;
}

/* The contact checks (seed 000, eqs. 25-26) and the numbers they judged. */
static json_t *contact_json(const sm_contact_checks *ck)
{
    if (!ck->known) return json_null();
    json_t *foot = ck->per_foot.known
                       ? json_pack("{s:b, s:b, s:o, s:o}", "unilateral", ck->per_foot.unilateral, "no_slip",
                                   ck->per_foot.no_slip, "min_normal_force",
                                   cli_json_number(ck->per_foot.min_normal_force), "max_friction_ratio",
                                   cli_json_number(ck->per_foot.max_friction_ratio))
                       : json_null();
    return json_pack("{s:b, s:b, s:f, s:s, s:o, s:o, s:s, s:o}", "unilateral", ck->unilateral, "no_slip",
                     ck->no_slip, "mu", ck->mu, "mu_from", ck->mu_from, "min_normal_force",
                     cli_json_number(ck->min_normal_force), "max_friction_ratio",
                     cli_json_number(ck->max_friction_ratio), "judged",
                     ck->per_point ? "each contact point, each foot" : "the stance foot", "per_foot", foot);
}

/* The model family's own measures of a converged gait (sm_model.extra_measures). */
static bool extra_measures(const cli_run *run, const sm_fixed_result *r, sm_workspace *ws, double *v)
{
    return r->converged && sm_gait_extra_measures(ws, run->params, &r->gait, v);
}

/* The N states of a period-N gait, each just after its heel-strike. */
static json_t *orbit_json(const cli_run *run, const sm_fixed_result *r, sm_workspace *ws)
{
    const sm_model *m = run->model;
    const int n = r->converged ? run->newton.period : 1;
    double *orbit = malloc((size_t)n * m->n_state * sizeof *orbit);
    json_t *a = json_array();
    if (!orbit) {
        json_array_append_new(a, vector(r->x, m->n_state));
        return a;
    }
    const int got = sm_gait_orbit(ws, run->params, r->x, n, orbit);
    for (int k = 0; k < got; k++) json_array_append_new(a, vector(&orbit[(size_t)k * m->n_state], m->n_state));
    free(orbit);
    return a;
}

/* The HZD restricted map beside the full map's values at the gait
 * (include/stridemap/hzd.h); false where it does not apply. */
#define RESTRICTED_TOL 1e-11
static bool restricted_map(const cli_run *run, const sm_fixed_result *r, sm_restricted_map *rm, double *zeta_full)
{
    *zeta_full = NAN;
    if (!sm_hzd_applies(run->model) || sm_hzd_restricted_map(run->model, run->params, RESTRICTED_TOL, rm) != SM_OK)
        return false;
    if (r->converged) sm_hzd_zeta(run->model, run->params, r->x, zeta_full);
    return true;
}

static json_t *restricted_json(const cli_run *run, const sm_fixed_result *r)
{
    sm_restricted_map rm;
    double zf;
    if (!restricted_map(run, r, &rm, &zf)) return NULL;
    const bool have_eig = r->converged && r->status == SM_OK && r->n_free > 0;
    json_t *full = json_object();
    json_object_set_new(full, "zeta_plus", cli_json_number(zf));
    json_object_set_new(full, "zeta_minus", cli_json_number(zf - rm.v_minus));
    json_object_set_new(full, "multiplier", have_eig ? cli_json_number(r->eig_re[0]) : json_null());
    json_t *o = json_object();
    json_object_set_new(o, "zeta_star", cli_json_number(rm.zeta_star));
    json_object_set_new(o, "zeta_plus", cli_json_number(rm.zeta_plus));
    json_object_set_new(o, "multiplier", cli_json_number(rm.multiplier));
    json_object_set_new(o, "delta", cli_json_number(rm.delta));
    json_object_set_new(o, "v_minus", cli_json_number(rm.v_minus));
    json_object_set_new(o, "v_max", cli_json_number(rm.v_max));
    json_object_set_new(o, "exists", json_boolean(rm.exists));
    json_object_set_new(o, "invariance", cli_json_number(rm.invariance));
    json_object_set_new(o, "quadrature_tol", cli_json_number(RESTRICTED_TOL));
    json_object_set_new(o, "full_map", full);
    return o;
}

/* The gait sensitivity norm costs strides of its own (0.6 of the rest of a simplest
 * walker's 'fixed'): in the JSON, the full record, unless --no-gsn; in the
 * text only with --gsn. */
enum { OPT_GSN = 2000, OPT_NO_GSN };

/* The gait sensitivity norm to each of the model's disturbances (default
 * indicators), for a converged stable period-1 gait; false where none. */
static bool gait_sensitivity(const cli_run *run, const sm_fixed_result *r, sm_workspace *ws, size_t *n,
                             size_t *param, sm_gsn_result *g, sm_gsn_options *go)
{
    const sm_model *m = run->model;
    *n = 0;
    if (run->gsn < 0 || (run->gsn == 0 && !run->json)) return false;
    if (!r->converged || r->status != SM_OK || run->newton.period != 1) return false;
    for (size_t i = 0; i < m->n_params && *n < SM_MAX_STATE; i++)
        if (sm_param_is_disturbance(m, i)) param[(*n)++] = i;
    if (!*n) return false;
    sm_gsn_options_default(go);
    sm_gsn_all(ws, run->params, &r->gait, go, *n, param, g);
    return true;
}

static json_t *gsn_json(const cli_run *run, const sm_fixed_result *r, sm_workspace *ws)
{
    size_t n, param[SM_MAX_STATE];
    sm_gsn_result g[SM_MAX_STATE];
    sm_gsn_options go;
    if (!gait_sensitivity(run, r, ws, &n, param, g, &go)) return NULL;
    json_t *ind = json_array(), *per = json_object();
    for (size_t i = 0; i < go.n_indicators; i++)
        json_array_append_new(ind, json_string(sm_metric_fields[go.indicator[i]].output));
    for (size_t k = 0; k < n; k++) {
        json_t *o = json_object(), *each = json_object();
        const bool ok = g[k].status == SM_OK;
        json_object_set_new(o, "gsn", ok ? cli_json_number(g[k].gsn) : json_null());
        for (size_t i = 0; i < go.n_indicators; i++)
            json_object_set_new(each, sm_metric_fields[go.indicator[i]].output,
                                ok ? cli_json_number(g[k].per_indicator[i]) : json_null());
        json_object_set_new(o, "per_indicator", each);
        json_object_set_new(o, "unit", json_string(run->model->params[param[k]].unit));
        json_object_set_new(o, "status", json_string(sm_status_name(g[k].status)));
        json_object_set_new(o, "reason", ok && isfinite(g[k].gsn) ? json_null() : json_string(sm_gsn_why_name(g[k].why)));
        json_object_set_new(per, run->model->params[param[k]].name, o);
    }
    json_t *doc = json_object();
    json_object_set_new(doc, "indicators", ind);
    json_object_set_new(doc, "disturbances", per);
    return doc;
}

static json_t *result_json(const cli_run *run, const sm_fixed_result *r, sm_workspace *ws)
{
    json_t *orbit = orbit_json(run, r, ws);
    const sm_model *m = run->model;
    json_t *params = json_object(), *names = json_array(), *free_names = json_array();
    for (size_t i = 0; i < m->n_params; i++) json_object_set_new(params, m->params[i].name, cli_json_number(run->params[i]));
    for (size_t i = 0; i < m->n_state; i++) json_array_append_new(names, json_string(m->state_names[i]));
    for (size_t k = 0; k < m->n_free; k++)
        json_array_append_new(free_names, json_string(m->state_names[m->free_index[k]]));

    json_t *jac = json_array();
    const bool have_eig = r->converged && r->status == SM_OK;
    json_t *eig = cli_eigenvalues_json(have_eig ? r->n_free : 0, r->eig_re, r->eig_im);
    for (size_t i = 0; have_eig && i < r->n_free; i++)
        json_array_append_new(jac, vector(&r->jacobian[i * r->n_free], r->n_free));
    json_t *doc = json_object();
    cli_json_schema(doc);
    json_object_set_new(doc, "model", json_string(m->name));
    json_object_set_new(doc, "params", params);
    json_object_set_new(doc, "period", json_integer(run->newton.period));
    json_object_set_new(doc, "two_step", json_boolean(run->two_step));
    json_object_set_new(doc, "minimal_period", r->converged ? json_integer(r->minimal_period) : json_null());
    json_object_set_new(doc, "family", r->family ? json_string(r->family) : json_null());
    json_object_set_new(doc, "status", json_string(sm_status_name(r->status)));
    char msg[512];
    json_object_set_new(doc, "message", json_string(cli_strerror(r->status, msg, sizeof msg)));
    json_object_set_new(doc, "stride_status", json_string(sm_status_name(r->stride_status)));
    json_object_set_new(doc, "converged", json_boolean(r->converged));
    json_object_set_new(doc, "iterations", json_integer(r->iterations));
    json_object_set_new(doc, "residual", cli_json_number(r->residual));
    json_object_set_new(doc, "stride_evaluations", json_integer(r->stride_evals));
    json_object_set_new(doc, "newton_stride_evaluations", json_integer(r->newton_evals));
    json_object_set_new(doc, "invariant_drift", cli_json_number(r->invariant_drift));
    json_object_set_new(doc, "state_names", names);
    json_object_set_new(doc, "free_coordinates", free_names);
    json_object_set_new(doc, "fixed_point", vector(r->x, m->n_state));
    json_object_set_new(doc, "orbit", orbit);
    json_object_set_new(doc, "jacobian", jac);
    json_object_set_new(doc, "eigenvalues", eig);
    json_object_set_new(doc, "jacobian_method",
                        have_eig ? json_string(r->jacobian_exact ? "exact" : "finite_differences") : json_null());
    const bool have_fd = have_eig && r->jacobian_exact && r->fd_check_status == SM_OK;
    json_object_set_new(doc, "eigenvalues_fd", cli_eigenvalues_json(have_fd ? r->n_free : 0, r->eig_fd_re, r->eig_fd_im));
    int modes[SM_MAX_STATE];
    if (have_eig && sm_gait_modes(m, &r->gait, modes, NULL) == SM_OK) {
        json_t *mj = json_array();
        for (size_t i = 0; i < r->n_free; i++) json_array_append_new(mj, json_string(sm_mode_name(modes[i])));
        json_object_set_new(doc, "modes", mj);
        json_t *fm = json_array();
        for (size_t k = 0; k < r->n_free; k++) json_array_append_new(fm, json_string(sm_mode_name(m->free_mode[k])));
        json_object_set_new(doc, "free_modes", fm);
    }
    double mag[SM_MAX_STATE * SM_MAX_STATE];
    if (have_eig && sm_gait_eigenvectors(&r->gait, mag) == SM_OK) {
        json_t *ev = json_array();
        for (size_t i = 0; i < r->n_free; i++) json_array_append_new(ev, vector(&mag[i * r->n_free], r->n_free));
        json_object_set_new(doc, "eigenvectors", ev);
    }
    json_object_set_new(doc, "max_abs_eigenvalue", have_eig ? cli_json_number(r->max_abs_eig) : json_null());
    cli_json_trivial(doc, r->eig_re, r->eig_im, have_eig ? r->trivial_index : -1, false);
    json_object_set_new(doc, "stable", json_boolean(have_eig && r->stable));
    cli_json_metrics(doc, &r->metrics, sm_metric_field_count);
    double extra[SM_MAX_EXTRA];
    const bool have_extra = extra_measures(run, r, ws, extra);
    sm_contact_checks ck;
    sm_gait_contact_checks(m, run->params, &r->metrics, have_extra ? extra : NULL, run->mu, &ck);
    json_object_set_new(doc, "contact", contact_json(&ck));
    if (have_extra) {
        json_t *group = json_object();
        for (size_t i = 0; i < m->n_extra; i++) json_object_set_new(group, m->extra_names[i], cli_json_number(extra[i]));
        json_object_set_new(doc, m->extra_group, group);
    }
    json_t *restricted = restricted_json(run, r);
    if (restricted) json_object_set_new(doc, "restricted_map", restricted);
    json_t *gsn = gsn_json(run, r, ws);
    if (gsn) json_object_set_new(doc, "gait_sensitivity", gsn);
    json_t *solver = cli_solver_json(&run->solver);
    json_t *newton = json_pack("{s:f, s:f, s:f, s:b, s:i, s:s}", "newton_tol", run->newton.tol, "fd_step",
                               sm_newton_fd_step(run->newton.fd_step, run->newton.central, run->solver.rtol),
                               "stability_fd_step", sm_stability_fd_step(run->newton.fd_step, run->solver.rtol),
                               "central_differences", run->newton.central, "max_iter", run->newton.max_iter,
                               "newton_jacobian", run->newton.jacobian == SM_JACOBIAN_EXACT ? "exact" : "fd");
    json_object_set_new(newton, "newton_update",
                        json_string(run->newton.update == SM_NEWTON_FULL ? "full" : "broyden"));
    json_object_update(solver, newton);
    json_decref(newton);
    json_object_set_new(solver, "method_from",
                        json_string(run->method_given ? "option" : run->method_auto ? "controller" : "default"));
    json_object_set_new(doc, "solver", solver);
    json_object_set_new(doc, "version", json_string(STRIDEMAP_VERSION));
    return doc;
}

static void print_text(const cli_run *run, const sm_fixed_result *r, sm_workspace *ws)
{
    const sm_model *m = run->model;
    printf("model        %s (%s)\n", m->name, m->title);
    printf("params       ");
    cli_print_params(stdout, m, run->params);
    printf("\nperiod       %d%s\n", run->newton.period, run->two_step ? " (--two-step: two steps, no mirror between)" : "");
    char msg[512];
    printf("status       %s: %s\n", sm_status_name(r->status), cli_strerror(r->status, msg, sizeof msg));
    printf("newton       %d iterations, %ld strides, residual %.3g\n", r->iterations, r->stride_evals,
           r->residual);
    if (r->family) printf("family       %s\n", r->family);
    if (r->converged && r->minimal_period < run->newton.period)
        printf("note         this period-%d fixed point is a period-%d gait\n", run->newton.period,
               r->minimal_period);
    printf("%-12s", r->converged ? "fixed point" : "last iterate");
    for (size_t i = 0; i < m->n_state; i++) printf(" %s=%.12g", m->state_names[i], r->x[i]);
    printf("\n");
    if (!r->converged || r->status != SM_OK) return;
    printf("eigenvalues ");
    for (size_t i = 0; i < r->n_free; i++)
        printf(" %.9g%+.9gi", r->eig_re[i], r->eig_im[i]);
    printf(" (%s)\n", r->jacobian_exact ? "exact Jacobian" : "finite differences");
    if (r->jacobian_exact && r->fd_check_status == SM_OK) {
        printf("eigen (fd)  ");
        for (size_t i = 0; i < r->n_free; i++) printf(" %.9g%+.9gi", r->eig_fd_re[i], r->eig_fd_im[i]);
        printf(" (finite differences, a cross-check)\n");
    }
    int modes[SM_MAX_STATE];
    if (sm_gait_modes(m, &r->gait, modes, NULL) == SM_OK) {
        printf("modes       ");
        for (size_t i = 0; i < r->n_free; i++) printf(" %s", sm_mode_name(modes[i]));
        printf("\n");
    }
    printf("stable       %s (max |eigenvalue| = %.9g)\n", r->stable ? "yes" : "no", r->max_abs_eig);
    if (r->trivial_index >= 0 && m->invariant)
        printf("note         the multiplier %.9g is 1 by conservation of %s (drift over the gait %.2g); "
               "stability is judged on the others\n",
               r->eig_re[r->trivial_index], m->params[m->invariant_param].name, r->invariant_drift);
    else if (r->trivial_index >= 0)
        printf("note         the multiplier %.9g is 1 along the model's family of gaits (one member picked by "
               "its family condition); stability is judged on the others\n",
               r->eig_re[r->trivial_index]);
    const sm_step_metrics *mt = &r->metrics;
    printf("step         period %.10g, length %.10g, speed %.10g\n", mt->period, mt->step_length, mt->speed);
    printf("energy       lost at impact %.6g, heel-strike impulse %.6g, cost of transport %.6g\n",
           mt->impact_energy_loss, mt->heelstrike_impulse, mt->cost_of_transport);
    if (!isnan(mt->min_foot_clearance) || !isnan(mt->max_foot_clearance))
        printf("clearance    swing foot min %.6g, max %.6g (outside the scuff window)\n", mt->min_foot_clearance,
               mt->max_foot_clearance);
    double extra[SM_MAX_EXTRA];
    const bool have_extra = extra_measures(run, r, ws, extra);
    sm_contact_checks ck;
    sm_gait_contact_checks(m, run->params, mt, have_extra ? extra : NULL, run->mu, &ck);
    if (ck.known) {
        printf("contact      min normal force %.6g, max |Ft/Fn| %.6g (%s)\n", ck.min_normal_force,
               ck.max_friction_ratio, ck.per_point ? "of a contact point; of a foot" : "of the stance foot");
        if (ck.per_foot.known)
            printf("per foot     min normal force %.6g, max |Ft/Fn| %.6g (seed 000 eqs. 25-26: %s)\n",
                   ck.per_foot.min_normal_force, ck.per_foot.max_friction_ratio,
                   ck.per_foot.no_slip ? "hold" : "fail");
        if (!ck.unilateral)
            printf("warning      %s would have to be pulled: the gait needs a bilateral contact\n",
                   ck.per_point ? "a contact point" : "the stance foot");
        else if (!ck.no_slip)
            printf("warning      the gait needs more friction than mu = %g (%s): it would slip\n", ck.mu, ck.mu_from);
    }
    if (have_extra) {
        printf("%-12s", m->extra_group);
        for (size_t i = 0; i < m->n_extra; i++) printf("%s %s %.6g", i ? "," : "", m->extra_labels[i], extra[i]);
        printf("\n");
    }
    size_t ng, gp[SM_MAX_STATE];
    sm_gsn_result g[SM_MAX_STATE];
    sm_gsn_options go;
    if (gait_sensitivity(run, r, ws, &ng, gp, g, &go)) {
        printf("gsn         ");
        for (size_t k = 0; k < ng; k++) {
            if (g[k].status == SM_OK && isfinite(g[k].gsn))
                printf("%s %s %.6g", k ? "," : "", m->params[gp[k]].name, g[k].gsn);
            else
                printf("%s %s - (%s)", k ? "," : "", m->params[gp[k]].name, sm_gsn_why_name(g[k].why));
        }
        printf(" (gait sensitivity norm per unit disturbance; indicators step length, step time)\n");
    }
    sm_restricted_map rm;
    double zf;
    if (restricted_map(run, r, &rm, &zf)) {
        printf("restricted   zeta* %.10g (after impact %.10g), multiplier delta^2 %.10g; full map: zeta %.10g, "
               "multiplier %.10g\n", rm.zeta_star, rm.zeta_plus, rm.multiplier, zf - rm.v_minus, r->eig_re[0]);
        if (rm.invariance > 1e-6)
            printf("note         the zero dynamics is not impact invariant (the impact leaves |y| or |dy/dtheta| "
                   "%.3g): the restricted map approximates the full one\n", rm.invariance);
    }
}

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    (void)ctx;
    if (opt == OPT_GSN || opt == OPT_NO_GSN) {
        run->gsn = opt == OPT_GSN ? 1 : -1;
        return 0;
    }
    if (opt == OPT_MU) {
        if (!cli_parse_double(arg, &run->mu) || !(run->mu >= 0) || !isfinite(run->mu))
            return cli_fail(run, EX_DATAERR, "--mu takes a friction coefficient >= 0, not '%s'", arg);
        return 0;
    }
    if (opt != OPT_GUESS) return 1;
    run->state_option = "--guess";
    run->state_text = arg;
    return 0;
}

int cmd_fixed(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "fixed");
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"guess", required_argument, 0, OPT_GUESS},
                                         CLI_NEWTON_OPTIONS,
                                         {"mu", required_argument, 0, OPT_MU},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"gsn", no_argument, 0, OPT_GSN},
                                         {"no-gsn", no_argument, 0, OPT_NO_GSN},
                                         {0, 0, 0, 0}};
    int rc = cli_parse(&run, argc, argv, opts, help, own_option, NULL, false);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    const sm_model *m = run.model;
    if (!run.have_x0) m->guess(run.x0, run.params, m->data);
    /* the exact multipliers are reported with the differences' beside them */
    run.newton.check_fd = true;

    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(m, &run.solver, &ws);
    if (st != SM_OK) return cli_fail(&run, EX_SOFTWARE, "cannot set up the integrator: %s", sm_strerror(st));
    sm_fixed_result r;
    sm_fixed_point(ws, run.params, run.x0, &run.newton, &r);

    if (run.json) {
        json_t *doc = result_json(&run, &r, ws);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        print_text(&run, &r, ws);
    }
    sm_workspace_free(ws);
    if (fflush(stdout) != 0) return cli_fail(&run, EX_IOERR, "could not write the result");
    if (!r.converged) {
        /* A stride the solver could not integrate (stiff, failed) needs its
         * remedy said; a walker's failure (a fall) is its name alone. */
        const bool solver_stride = sm_status_kind(r.stride_status) == SM_KIND_SOLVER;
        cli_fail(&run, CLI_EXIT_NO_GAIT, "no gait found: %s%s%s%s%s%s", sm_strerror(r.status),
                 r.stride_status != SM_OK ? "; last failed stride: " : "",
                 r.stride_status != SM_OK ? sm_status_name(r.stride_status) : "", solver_stride ? " (" : "",
                 solver_stride ? sm_strerror(r.stride_status) : "", solver_stride ? ")" : "");
        return CLI_EXIT_NO_GAIT;
    }
    if (r.status != SM_OK)
        cli_fail(&run, CLI_EXIT_NO_GAIT, "gait found but its stability could not be computed: %s",
                 sm_strerror(r.status));
    return cli_exit_code(r.status, EX_IOERR);
}
