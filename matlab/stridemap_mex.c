/* The MEX gateway from MATLAB and GNU Octave to libstridemap.
 *
 *   out = stridemap_mex(command, model, opts)
 *
 * command: 'fixed', 'simulate', 'continue', 'params' or 'models'; model: a
 * built-in walker's name or a model file's path; opts: a struct (or []) whose
 * fields are the program's options with '_' for '-' (rtol, guess, set.gamma,
 * ...).  The result is a struct with the fields of the program's output
 * (`stridemap fixed --json`; the CSV columns of simulate and continue), so a
 * script written against one reads the other.  The .m wrappers in this
 * folder are the documented entry points.
 *
 * Written to the MATLAB MEX API only (mex.h), so the same source builds with
 * MATLAB's `mex` and Octave's `mkoctfile --mex`.  A bad input is an error
 * whose identifier is stridemap:STATUS (the library's status name); a walker
 * that falls is a result whose status says so, not an error.  mexErrMsg*
 * does not return, so every error is staged in a buffer and raised only after
 * the model and workspace are released. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mex.h"
#include "stridemap/stridemap.h"

typedef struct {
    char id[64];
    char msg[1024];
    bool failed;
} gw_error;

/* The library's message in this interface's words: the fields of
 * sm_cont_steps are the opts fields of the same names. */
static char *opts_text(char *text)
{
    static const char lib[] = "sm_cont_steps.", ours[] = "opts.";
    char *o = text;
    for (const char *t = text; *t;)
        if (strncmp(t, lib, sizeof lib - 1) == 0) {
            memcpy(o, ours, sizeof ours - 1);
            o += sizeof ours - 1;
            t += sizeof lib - 1;
        } else {
            *o++ = *t++;
        }
    *o = '\0';
    return text;
}

static void gw_fail(gw_error *e, sm_status st, const char *fmt, ...)
{
    if (e->failed) return;
    e->failed = true;
    snprintf(e->id, sizeof e->id, "stridemap:%s", sm_status_name(st));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

/* ---- reading opts ---- */

static const mxArray *opt_field(const mxArray *opts, const char *name)
{
    if (!opts || !mxIsStruct(opts) || mxGetNumberOfElements(opts) < 1) return NULL;
    return mxGetField(opts, 0, name);
}

static bool opt_double(const mxArray *opts, const char *name, double *out, gw_error *e)
{
    const mxArray *f = opt_field(opts, name);
    if (!f) return false;
    if (!mxIsDouble(f) || mxIsComplex(f) || mxGetNumberOfElements(f) != 1) {
        gw_fail(e, SM_BAD_OPTION, "opts.%s must be a real number", name);
        return false;
    }
    *out = mxGetScalar(f);
    return true;
}

static bool opt_int(const mxArray *opts, const char *name, long lo, long hi, int *out, gw_error *e)
{
    double v;
    if (!opt_double(opts, name, &v, e)) return false;
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v)) {
        gw_fail(e, SM_BAD_OPTION, "opts.%s must be a whole number from %ld to %ld, not %g", name, lo, hi, v);
        return false;
    }
    *out = (int)v;
    return true;
}

static bool opt_bool(const mxArray *opts, const char *name, bool *out, gw_error *e)
{
    const mxArray *f = opt_field(opts, name);
    if (!f) return false;
    if (!(mxIsLogical(f) || mxIsDouble(f)) || mxGetNumberOfElements(f) != 1) {
        gw_fail(e, SM_BAD_OPTION, "opts.%s must be true or false", name);
        return false;
    }
    *out = mxGetScalar(f) != 0.0;
    return true;
}

/* A string option into buf; false when absent. */
static bool opt_string(const mxArray *opts, const char *name, char *buf, size_t len, gw_error *e)
{
    const mxArray *f = opt_field(opts, name);
    if (!f) return false;
    if (!mxIsChar(f) || mxGetString(f, buf, (mwSize)len) != 0) {
        gw_fail(e, SM_BAD_OPTION, "opts.%s must be a short string", name);
        return false;
    }
    return true;
}

static bool opt_state(const mxArray *opts, const char *name, const sm_model *m, double *x, gw_error *e)
{
    const mxArray *f = opt_field(opts, name);
    if (!f) return false;
    if (!mxIsDouble(f) || mxIsComplex(f) || mxGetNumberOfElements(f) != m->n_state) {
        gw_fail(e, SM_BAD_STATE, "opts.%s must be a real vector of %zu numbers (model '%s')", name, m->n_state,
                m->name);
        return false;
    }
    const double *v = mxGetPr(f);
    for (size_t i = 0; i < m->n_state; i++) {
        if (!isfinite(v[i])) {
            gw_fail(e, SM_BAD_STATE, "opts.%s(%zu) is not finite", name, i + 1);
            return false;
        }
        x[i] = v[i];
    }
    return true;
}

/* Everything a command needs: the model, its parameters, the options. */
typedef struct {
    const sm_model *m;
    double p[SM_MAX_PARAMS];
    double x0[SM_MAX_STATE];
    bool have_x0;
    sm_solver_options solver;
    sm_newton_options newton;
    double mu; /* friction coefficient of the no-slip check */
} gw_run;

static const struct {
    const char *name;
    sm_method method;
} methods[] = {{"adams", SM_METHOD_ADAMS}, {"bdf", SM_METHOD_BDF}, {"erk8", SM_METHOD_ERK8}, {"erk5", SM_METHOD_ERK5}};

/* A parameter's name as a struct field: the characters MATLAB does not
 * allow in one become '_' ("bodies.hip_z.mass" is bodies_hip_z_mass, as
 * jsondecode and matlab.lang.makeValidName spell it). */
static void field_name(const char *name, char *buf, size_t len)
{
    size_t k = 0;
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')) && k + 1 < len) buf[k++] = 'x';
    for (const char *c = name; *c && k + 1 < len; c++) {
        const bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
        buf[k++] = ok ? *c : '_';
    }
    buf[k] = '\0';
}

/* The parameter named `name` or spelt so as a field, or -1. */
static int param_index(const sm_model *m, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i >= 0) return i;
    char f[256];
    for (size_t k = 0; k < m->n_params; k++) {
        field_name(m->params[k].name, f, sizeof f);
        if (strcmp(f, name) == 0) return (int)k;
    }
    return -1;
}

static void read_params(gw_run *r, const mxArray *opts, gw_error *e)
{
    const sm_model *m = r->m;
    sm_model_default_params(m, r->p);
    const mxArray *set = opt_field(opts, "set");
    if (!set) return;
    if (!mxIsStruct(set) || mxGetNumberOfElements(set) != 1) {
        gw_fail(e, SM_BAD_OPTION, "opts.set must be a struct of parameter values, e.g. struct('gamma', 0.01)");
        return;
    }
    for (int k = 0; k < mxGetNumberOfFields(set); k++) {
        const char *name = mxGetFieldNameByNumber(set, k);
        const int i = param_index(m, name);
        if (i < 0) {
            gw_fail(e, SM_UNKNOWN_PARAM, "model '%s' has no parameter '%s' (see sm_params('%s'))", m->name, name,
                    m->name);
            return;
        }
        const mxArray *f = mxGetFieldByNumber(set, 0, k);
        if (!f || !mxIsDouble(f) || mxIsComplex(f) || mxGetNumberOfElements(f) != 1) {
            gw_fail(e, SM_BAD_PARAM, "opts.set.%s must be a real number", name);
            return;
        }
        char why[256];
        const double v = mxGetScalar(f);
        if (sm_model_check_param(m, (size_t)i, v, why, sizeof why) != SM_OK) {
            gw_fail(e, SM_BAD_PARAM, "%s", why);
            return;
        }
        r->p[i] = v;
    }
    char why[256];
    if (sm_model_check_params(m, r->p, why, sizeof why) != SM_OK) gw_fail(e, SM_BAD_PARAM, "%s", why);
}

/* The options the program's solver and Newton flags set, by the same names. */
static void read_options(gw_run *r, const mxArray *opts, const char *state_field, gw_error *e)
{
    sm_solver_options *s = &r->solver;
    sm_newton_options *n = &r->newton;
    sm_solver_options_default(s);
    sm_newton_options_default(n);
    char word[32];
    bool method_given = false;
    if (opt_string(opts, "method", word, sizeof word, e)) {
        size_t k = 0;
        while (k < sizeof methods / sizeof methods[0] && strcmp(methods[k].name, word) != 0) k++;
        if (k == sizeof methods / sizeof methods[0])
            gw_fail(e, SM_BAD_OPTION, "opts.method must be 'adams', 'bdf', 'erk8' or 'erk5', not '%s'", word);
        else
            s->method = methods[k].method;
        method_given = true;
    }
    /* a controller's equations are stiff: the program picks BDF for them too */
    if (r->m->stiff && !method_given) s->method = SM_METHOD_BDF;
    opt_double(opts, "rtol", &s->rtol, e);
    opt_double(opts, "atol", &s->atol, e);
    opt_double(opts, "max_step", &s->max_step, e);
    opt_double(opts, "tmax", &s->t_max, e);
    opt_int(opts, "max_order", 0, 12, &s->max_order, e);
    opt_int(opts, "period", 1, 1024, &n->period, e);
    opt_double(opts, "tol", &n->tol, e);
    opt_int(opts, "max_iter", 1, 100000, &n->max_iter, e);
    opt_double(opts, "fd_step", &n->fd_step, e);
    opt_bool(opts, "central", &n->central, e);
    r->mu = 1.0;
    if (opt_double(opts, "mu", &r->mu, e) && !(r->mu >= 0 && isfinite(r->mu)))
        gw_fail(e, SM_BAD_OPTION, "opts.mu must be a friction coefficient >= 0, not %g", r->mu);
    if (opt_string(opts, "newton_update", word, sizeof word, e)) {
        if (strcmp(word, "broyden") == 0)
            n->update = SM_NEWTON_BROYDEN;
        else if (strcmp(word, "full") == 0)
            n->update = SM_NEWTON_FULL;
        else
            gw_fail(e, SM_BAD_OPTION, "opts.newton_update must be 'broyden' or 'full', not '%s'", word);
    }
    if (opt_string(opts, "jacobian", word, sizeof word, e)) {
        if (strcmp(word, "fd") == 0)
            n->jacobian = SM_JACOBIAN_FD;
        else if (strcmp(word, "exact") == 0)
            n->jacobian = SM_JACOBIAN_EXACT;
        else
            gw_fail(e, SM_BAD_OPTION, "opts.jacobian must be 'fd' or 'exact', not '%s'", word);
    }
    if (state_field) r->have_x0 = opt_state(opts, state_field, r->m, r->x0, e);
    if (!r->have_x0) r->m->guess(r->x0, r->p, r->m->data);
    char why[256];
    if (!e->failed && (sm_solver_options_check(s, why, sizeof why) != SM_OK ||
                       sm_newton_options_check(n, why, sizeof why) != SM_OK))
        gw_fail(e, SM_BAD_OPTION, "%s", why);
}

/* ---- building results ---- */

static mxArray *num(double v) { return mxCreateDoubleScalar(v); }

static mxArray *row_vector(const double *v, size_t n)
{
    mxArray *a = mxCreateDoubleMatrix(1, (mwSize)n, mxREAL);
    double *d = mxGetPr(a);
    for (size_t i = 0; i < n; i++) d[i] = v[i];
    return a;
}

/* n x n from a row-major matrix (MATLAB's storage is by columns). */
static mxArray *matrix(const double *a, size_t rows, size_t cols)
{
    mxArray *o = mxCreateDoubleMatrix((mwSize)rows, (mwSize)cols, mxREAL);
    double *d = mxGetPr(o);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) d[j * rows + i] = a[i * cols + j];
    return o;
}

/* n x 2, [re im] per row: the JSON's list of pairs. */
static mxArray *pairs(size_t n, const double *re, const double *im)
{
    mxArray *o = mxCreateDoubleMatrix((mwSize)n, 2, mxREAL);
    double *d = mxGetPr(o);
    for (size_t i = 0; i < n; i++) {
        d[i] = re[i];
        d[n + i] = im[i];
    }
    return o;
}

static void set(mxArray *s, const char *name, mxArray *v)
{
    if (mxGetFieldNumber(s, name) < 0) mxAddField(s, name);
    mxSetField(s, 0, name, v);
}

static mxArray *names_cell(const char *const *names, const size_t *index, size_t n)
{
    mxArray *c = mxCreateCellMatrix(1, (mwSize)n);
    for (size_t i = 0; i < n; i++) mxSetCell(c, (mwIndex)i, mxCreateString(names[index ? index[i] : i]));
    return c;
}

static mxArray *params_struct(const sm_model *m, const double *p)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    char f[256];
    for (size_t i = 0; i < m->n_params; i++) {
        field_name(m->params[i].name, f, sizeof f);
        set(s, f, num(p[i]));
    }
    return s;
}

static mxArray *solver_struct(const sm_solver_options *o)
{
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    set(s, "method", mxCreateString(sm_method_name(o->method)));
    set(s, "max_order", num(o->max_order));
    set(s, "rtol", num(o->rtol));
    set(s, "atol", num(o->atol));
    set(s, "max_step", num(o->max_step));
    set(s, "t_max", num(o->t_max));
    return s;
}

static void set_metrics(mxArray *s, const sm_step_metrics *mt)
{
    for (size_t i = 0; i < sm_metric_field_count; i++) set(s, sm_metric_fields[i].output, num(sm_metric_value(mt, i)));
}

/* MATLAB field names: a letter, then letters, digits and '_'. */
static bool field_name_ok(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* ---- fixed ---- */

static mxArray *fixed_struct(const gw_run *r, const sm_fixed_result *f, sm_workspace *ws)
{
    const sm_model *m = r->m;
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    const bool have_eig = f->converged && f->status == SM_OK;
    set(s, "model", mxCreateString(m->name));
    set(s, "params", params_struct(m, r->p));
    set(s, "period", num(r->newton.period));
    set(s, "two_step", mxCreateLogicalScalar(false));
    set(s, "minimal_period", num(f->converged ? f->minimal_period : NAN));
    set(s, "family", mxCreateString(f->family ? f->family : ""));
    set(s, "status", mxCreateString(sm_status_name(f->status)));
    set(s, "message", mxCreateString(sm_strerror(f->status)));
    set(s, "stride_status", mxCreateString(sm_status_name(f->stride_status)));
    set(s, "converged", mxCreateLogicalScalar(f->converged));
    set(s, "iterations", num(f->iterations));
    set(s, "residual", num(f->residual));
    set(s, "stride_evaluations", num((double)f->stride_evals));
    set(s, "newton_stride_evaluations", num((double)f->newton_evals));
    set(s, "invariant_drift", num(f->invariant_drift));
    set(s, "state_names", names_cell(m->state_names, NULL, m->n_state));
    set(s, "free_coordinates", names_cell(m->state_names, m->free_index, m->n_free));
    set(s, "fixed_point", row_vector(f->x, m->n_state));
    /* the N states of a period-N gait, one row each */
    const int n = f->converged ? r->newton.period : 1;
    double *orbit = mxMalloc((size_t)n * m->n_state * sizeof *orbit);
    const int got = f->converged ? sm_gait_orbit(ws, r->p, f->x, n, orbit) : 0;
    if (!f->converged) memcpy(orbit, f->x, m->n_state * sizeof *orbit);
    set(s, "orbit", matrix(orbit, f->converged ? (size_t)got : 1, m->n_state));
    mxFree(orbit);
    set(s, "jacobian", matrix(f->jacobian, have_eig ? f->n_free : 0, have_eig ? f->n_free : 0));
    set(s, "eigenvalues", pairs(have_eig ? f->n_free : 0, f->eig_re, f->eig_im));
    set(s, "jacobian_method",
        mxCreateString(have_eig ? (f->jacobian_exact ? "exact" : "finite_differences") : ""));
    const bool have_fd = have_eig && f->jacobian_exact && f->fd_check_status == SM_OK;
    set(s, "eigenvalues_fd", pairs(have_fd ? f->n_free : 0, f->eig_fd_re, f->eig_fd_im));
    set(s, "max_abs_eigenvalue", num(have_eig ? f->max_abs_eig : NAN));
    const bool trivial = have_eig && f->trivial_index >= 0;
    set(s, "trivial_multiplier",
        trivial ? pairs(1, &f->eig_re[f->trivial_index], &f->eig_im[f->trivial_index]) : mxCreateDoubleMatrix(0, 0, mxREAL));
    int modes[SM_MAX_STATE];
    if (have_eig && sm_gait_modes(m, &f->gait, modes, NULL) == SM_OK) {
        mxArray *mc = mxCreateCellMatrix(1, (mwSize)f->n_free), *fc = mxCreateCellMatrix(1, (mwSize)f->n_free);
        for (size_t i = 0; i < f->n_free; i++) {
            mxSetCell(mc, (mwIndex)i, mxCreateString(sm_mode_name(modes[i])));
            mxSetCell(fc, (mwIndex)i, mxCreateString(sm_mode_name(m->free_mode[i])));
        }
        set(s, "modes", mc);
        set(s, "free_modes", fc);
    }
    double mag[SM_MAX_STATE * SM_MAX_STATE];
    if (have_eig && sm_gait_eigenvectors(&f->gait, mag) == SM_OK) set(s, "eigenvectors", matrix(mag, f->n_free, f->n_free));
    set(s, "stable", mxCreateLogicalScalar(have_eig && f->stable));
    set_metrics(s, &f->metrics);
    /* the stance foot pushed, not pulled (down to 1e-9 of the weight), and
     * not slipping at friction coefficient opts.mu, as the program judges */
    if (!isnan(f->metrics.min_normal_force)) {
        const double w = m->weight ? m->weight(r->p, m->data) : 1.0;
        const bool pushed = f->metrics.min_normal_force >= -1e-9 * fabs(w);
        mxArray *c = mxCreateStructMatrix(1, 1, 0, NULL);
        set(c, "unilateral", mxCreateLogicalScalar(pushed));
        set(c, "no_slip", mxCreateLogicalScalar(pushed && f->metrics.max_friction_ratio <= r->mu));
        set(c, "mu", num(r->mu));
        set(s, "contact", c);
    }
    double extra[SM_MAX_EXTRA];
    if (f->converged && field_name_ok(m->extra_group ? m->extra_group : "") &&
        sm_gait_extra_measures(ws, r->p, &f->gait, extra)) {
        mxArray *g = mxCreateStructMatrix(1, 1, 0, NULL);
        char name[256];
        for (size_t i = 0; i < m->n_extra; i++) {
            field_name(m->extra_names[i], name, sizeof name);
            set(g, name, num(extra[i]));
        }
        set(s, m->extra_group, g);
    }
    set(s, "solver", solver_struct(&r->solver));
    set(s, "version", mxCreateString(STRIDEMAP_VERSION));
    return s;
}

static mxArray *cmd_fixed(gw_run *r, gw_error *e)
{
    sm_workspace *ws = NULL;
    char why[256] = "";
    sm_status st = sm_workspace_create_ex(r->m, &r->solver, &ws, why, sizeof why);
    if (st != SM_OK) {
        gw_fail(e, st, "cannot set up the integrator: %s", why[0] ? why : sm_strerror(st));
        return NULL;
    }
    /* the exact multipliers come with the differences' beside them, as in the program */
    r->newton.check_fd = true;
    sm_fixed_result f;
    sm_fixed_point(ws, r->p, r->x0, &r->newton, &f);
    mxArray *out = fixed_struct(r, &f, ws);
    sm_workspace_free(ws);
    return out;
}

/* ---- simulate: the rows of `stridemap simulate`'s CSV ---- */

typedef struct {
    const sm_model *m;
    const double *p;
    size_t n, cap, width;  /* rows, capacity, numbers per row (state and samples) */
    const char **kind, **phase, **event;
    double *step, *time, *vals;
    double t0;
    long k;
    size_t n_steps;
    sm_step_metrics *metrics; /* [steps] */
    bool oom;
} sim_rows;

static void sim_row(sim_rows *s, const char *kind, double t, size_t phase, const char *event, const double *x)
{
    if (s->oom) return;
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 1024;
        const char **k = realloc(s->kind, cap * sizeof *k), **ph = k ? realloc(s->phase, cap * sizeof *ph) : NULL;
        if (k) s->kind = k;
        if (ph) s->phase = ph;
        const char **ev = ph ? realloc(s->event, cap * sizeof *ev) : NULL;
        if (ev) s->event = ev;
        double *st = ev ? realloc(s->step, cap * sizeof *st) : NULL;
        if (st) s->step = st;
        double *tm = st ? realloc(s->time, cap * sizeof *tm) : NULL;
        if (tm) s->time = tm;
        double *v = tm ? realloc(s->vals, cap * s->width * sizeof *v) : NULL;
        if (!v) {
            s->oom = true;
            return;
        }
        s->vals = v;
        s->cap = cap;
    }
    const sm_model *m = s->m;
    s->kind[s->n] = kind;
    s->phase[s->n] = m->phases[phase].name;
    s->event[s->n] = event;
    s->step[s->n] = (double)s->k;
    s->time[s->n] = s->t0 + t;
    double *v = &s->vals[s->n * s->width];
    memcpy(v, x, m->n_state * sizeof *v);
    if (m->n_sample && m->sample(t, phase, x, s->p, m->data, v + m->n_state) != 0)
        for (size_t i = 0; i < m->n_sample; i++) v[m->n_state + i] = NAN;
    s->n++;
}

static int sim_sample(void *ctx, double t, size_t phase, const double *x)
{
    sim_rows *s = ctx;
    sim_row(s, "sample", t, phase, "", x);
    return s->oom;
}

static int sim_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    sim_rows *s = ctx;
    const sm_phase *P = &s->m->phases[phase];
    const sm_event *ev = NULL;
    for (size_t k = 0; k < P->n_events; k++)
        if (strcmp(P->events[k].name, name) == 0) ev = &P->events[k];
    if (ev && ev->outcome == SM_EVENT_FAIL) {
        sim_row(s, "fail", t, phase, ev->name, xm);
    } else {
        sim_row(s, "pre", t, phase, ev ? ev->name : "", xm);
        const size_t next = ev && ev->outcome == SM_EVENT_TO_PHASE ? ev->next_phase : s->m->start_phase;
        sim_row(s, "post", t, next, ev ? ev->name : "", xp);
    }
    return s->oom;
}

static int sim_step(void *ctx, long k, const sm_step_metrics *mt)
{
    sim_rows *s = ctx;
    s->metrics[s->n_steps++] = *mt;
    s->t0 += mt->period;
    s->k = k + 1;
    return 0;
}

static mxArray *strings_column(const char **v, size_t n)
{
    mxArray *c = mxCreateCellMatrix((mwSize)n, 1);
    for (size_t i = 0; i < n; i++) mxSetCell(c, (mwIndex)i, mxCreateString(v[i]));
    return c;
}

static mxArray *column(const double *v, size_t n, size_t stride)
{
    mxArray *a = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
    double *d = mxGetPr(a);
    for (size_t i = 0; i < n; i++) d[i] = v[i * stride];
    return a;
}

static mxArray *cmd_simulate(gw_run *r, const mxArray *opts, gw_error *e)
{
    const sm_model *m = r->m;
    int steps = 10;
    double dt = 0.0;
    opt_int(opts, "steps", 1, 1000000, &steps, e);
    if (opt_double(opts, "dt", &dt, e) && !(dt > 0 && isfinite(dt)))
        gw_fail(e, SM_BAD_OPTION, "opts.dt must be a positive number, not %g", dt);
    if (e->failed) return NULL;
    const double t_limit = r->solver.t_max > 0 ? r->solver.t_max : m->time_limit(r->p, m->data);
    if (dt == 0.0) dt = t_limit / 2000.0;
    if (!(t_limit / dt <= 1e6)) {
        gw_fail(e, SM_BAD_OPTION, "opts.dt %g would sample up to %.3g times per step (step time limit %g / dt); "
                "give opts.dt %.3g or more", dt, t_limit / dt, t_limit, t_limit / 1e6);
        return NULL;
    }
    sm_workspace *ws = NULL;
    char why[256] = "";
    sm_status st = sm_workspace_create_ex(m, &r->solver, &ws, why, sizeof why);
    if (st != SM_OK) {
        gw_fail(e, st, "cannot set up the integrator: %s", why[0] ? why : sm_strerror(st));
        return NULL;
    }
    sim_rows rows = {.m = m, .p = r->p, .width = m->n_state + m->n_sample};
    rows.metrics = calloc((size_t)steps, sizeof *rows.metrics);
    double x[SM_MAX_STATE];
    memcpy(x, r->x0, m->n_state * sizeof *x);
    long done = 0;
    if (rows.metrics) {
        sim_row(&rows, "start", 0.0, m->start_phase, "", r->x0);
        const sm_observer obs = {.dt = dt, .sample = sim_sample, .event = sim_event, .ctx = &rows};
        st = sm_walk(ws, r->p, x, steps, &obs, sim_step, &rows, &done);
    }
    sm_workspace_free(ws);
    mxArray *s = NULL;
    if (!rows.metrics || rows.oom) {
        gw_fail(e, SM_NO_MEMORY, "out of memory after %zu rows", rows.n);
    } else {
        s = mxCreateStructMatrix(1, 1, 0, NULL);
        set(s, "model", mxCreateString(m->name));
        set(s, "params", params_struct(m, r->p));
        set(s, "status", mxCreateString(sm_status_name(st)));
        set(s, "message", mxCreateString(sm_strerror(st)));
        set(s, "steps", num((double)done));
        set(s, "kind", strings_column(rows.kind, rows.n));
        set(s, "step", column(rows.step, rows.n, 1));
        set(s, "time", column(rows.time, rows.n, 1));
        set(s, "phase", strings_column(rows.phase, rows.n));
        set(s, "event", strings_column(rows.event, rows.n));
        for (size_t i = 0; i < rows.width; i++) {
            const char *name = i < m->n_state ? m->state_names[i] : m->sample_names[i - m->n_state];
            if (field_name_ok(name) && mxGetFieldNumber(s, name) < 0) set(s, name, column(rows.vals + i, rows.n, rows.width));
        }
        set(s, "state_names", names_cell(m->state_names, NULL, m->n_state));
        /* every state column at once, for a script that does not know the names */
        mxArray *xs = mxCreateDoubleMatrix((mwSize)rows.n, (mwSize)m->n_state, mxREAL);
        double *d = mxGetPr(xs);
        for (size_t j = 0; j < m->n_state; j++)
            for (size_t i = 0; i < rows.n; i++) d[j * rows.n + i] = rows.vals[i * rows.width + j];
        set(s, "x", xs);
        /* one entry per completed step: what the program prints on stderr */
        mxArray *ms = mxCreateStructMatrix(1, 1, 0, NULL);
        for (size_t f = 0; f < sm_metric_field_count; f++) {
            mxArray *a = mxCreateDoubleMatrix(rows.n_steps, 1, mxREAL);
            for (size_t k = 0; k < rows.n_steps; k++) mxGetPr(a)[k] = sm_metric_value(&rows.metrics[k], f);
            set(ms, sm_metric_fields[f].output, a);
        }
        set(s, "step_metrics", ms);
    }
    free(rows.kind);
    free(rows.phase);
    free(rows.event);
    free(rows.step);
    free(rows.time);
    free(rows.vals);
    free(rows.metrics);
    return s;
}

/* ---- continue: the rows of `stridemap continue`'s CSV ---- */

typedef struct {
    size_t n, cap;
    sm_cont_point *pts;
    int *branch;
    bool oom;
} cont_rows;

static int cont_point(void *ctx, int branch, const sm_cont_point *pt)
{
    cont_rows *c = ctx;
    if (c->n == c->cap) {
        const size_t cap = c->cap ? 2 * c->cap : 256;
        sm_cont_point *p = realloc(c->pts, cap * sizeof *p);
        if (p) c->pts = p;
        int *b = p ? realloc(c->branch, cap * sizeof *b) : NULL;
        if (!b) {
            c->oom = true;
            return 1;
        }
        c->branch = b;
        c->cap = cap;
    }
    c->pts[c->n] = *pt;
    c->branch[c->n++] = branch;
    return 0;
}

static mxArray *cmd_continue(gw_run *r, const mxArray *opts, gw_error *e)
{
    const sm_model *m = r->m;
    char param[128];
    if (!opt_string(opts, "param", param, sizeof param, e)) {
        gw_fail(e, SM_BAD_OPTION, "which parameter? give opts.param (see sm_params('%s'))", m->name);
        return NULL;
    }
    const int ip = param_index(m, param);
    if (ip < 0) {
        gw_fail(e, SM_UNKNOWN_PARAM, "model '%s' has no parameter '%s'", m->name, param);
        return NULL;
    }
    char why[512];
    double from = r->p[ip], to = m->params[ip].max;
    if (opt_double(opts, "from", &from, e) && sm_model_check_param(m, (size_t)ip, from, why, sizeof why) != SM_OK)
        gw_fail(e, SM_BAD_PARAM, "opts.from: %s", why);
    if (opt_double(opts, "to", &to, e) && sm_model_check_param(m, (size_t)ip, to, why, sizeof why) != SM_OK)
        gw_fail(e, SM_BAD_PARAM, "opts.to: %s", why);
    if (!e->failed && to == from) gw_fail(e, SM_BAD_OPTION, "opts.from and opts.to are both %g", from);
    if (e->failed) return NULL;
    r->p[ip] = from;
    if (!r->have_x0) m->guess(r->x0, r->p, m->data);

    /* the program's step defaults, so that both follow the same points */
    double step = 1e-3, step_min = 1e-8, step_max = 0.0;
    int max_points = 500;
    const bool have_step = opt_double(opts, "step", &step, e);
    const bool have_min = opt_double(opts, "step_min", &step_min, e);
    const bool have_max = opt_double(opts, "step_max", &step_max, e);
    opt_int(opts, "max_points", 1, 10000000, &max_points, e);
    sm_cont_options o;
    sm_cont_options_default(&o, m, (size_t)ip);
    o.lo = fmin(from, to);
    o.hi = fmax(from, to);
    o.direction = to > from ? +1 : -1;
    o.period = r->newton.period;
    const sm_cont_steps steps = {.step = step, .step_min = step_min, .step_max = step_max,
                                 .have_step = have_step, .have_step_min = have_min, .have_step_max = have_max};
    if (!e->failed && sm_cont_steps_apply(&steps, from, to, &o, why, sizeof why) != SM_OK)
        gw_fail(e, SM_BAD_OPTION, "%s", opts_text(why));
    o.max_points = max_points;
    o.tol = r->newton.tol;
    o.fd_step = r->newton.fd_step;
    o.start = r->newton;
    o.update = r->newton.update;
    if (!e->failed && sm_cont_options_check(&o, m, why, sizeof why) != SM_OK) gw_fail(e, SM_BAD_OPTION, "%s", why);
    if (e->failed) return NULL;

    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create_ex(m, &r->solver, &ws, why, sizeof why);
    if (st != SM_OK) {
        gw_fail(e, st, "cannot set up the integrator: %s", why);
        return NULL;
    }
    sm_cont_tree_options t;
    sm_cont_tree_options_default(&t);
    cont_rows rows = {0};
    const sm_cont_tree_fns fns = {cont_point, NULL, NULL, &rows};
    sm_cont_tree_result tr;
    st = sm_cont_tree(ws, r->p, r->x0, &o, &t, &fns, &tr);
    sm_workspace_free(ws);
    mxArray *s = NULL;
    if (rows.oom || st == SM_NO_MEMORY) {
        gw_fail(e, SM_NO_MEMORY, "out of memory after %zu points", rows.n);
    } else {
        const size_t n = rows.n;
        s = mxCreateStructMatrix(1, 1, 0, NULL);
        set(s, "model", mxCreateString(m->name));
        set(s, "params", params_struct(m, r->p));
        set(s, "param", mxCreateString(param));
        set(s, "status", mxCreateString(sm_status_name(tr.status)));
        set(s, "message", mxCreateString(sm_strerror(tr.status)));
        set(s, "stop", mxCreateString(sm_cont_stop_name(tr.first_stop)));
        const size_t width = 5 + m->n_state + 2 * m->n_free + 8;
        double *v = mxCalloc(n ? n * width : 1, sizeof *v);
        const char **type = mxCalloc(n ? n : 1, sizeof *type), **status = mxCalloc(n ? n : 1, sizeof *status);
        for (size_t i = 0; i < n; i++) {
            const sm_cont_point *pt = &rows.pts[i];
            const bool have_eig = pt->status == SM_OK || pt->type != SM_POINT_MX;
            double *w = &v[i * width];
            size_t c = 0;
            w[c++] = rows.branch[i];
            w[c++] = pt->period;
            w[c++] = pt->mu;
            for (size_t j = 0; j < m->n_state; j++) w[c++] = pt->x[j];
            for (size_t k = 0; k < m->n_free; k++) {
                w[c++] = have_eig ? pt->eig_re[k] : NAN;
                w[c++] = have_eig ? pt->eig_im[k] : NAN;
            }
            w[c++] = have_eig ? pt->max_abs_eig : NAN;
            w[c++] = pt->type == SM_POINT_MX ? 0 : pt->stable;
            w[c++] = pt->metrics.period;
            w[c++] = pt->metrics.step_length;
            w[c++] = pt->metrics.speed;
            w[c++] = pt->metrics.impact_energy_loss;
            w[c++] = pt->iterations;
            w[c++] = pt->residual;
            w[c++] = pt->arclength;
            type[i] = sm_point_label(pt->type);
            status[i] = sm_status_name(pt->status);
        }
        size_t c = 0;
        set(s, "branch", column(v + c++, n, width));
        set(s, "period", column(v + c++, n, width));
        char f[256];
        field_name(m->params[ip].name, f, sizeof f);
        set(s, f, column(v + c, n, width));
        set(s, "value", column(v + c++, n, width));
        set(s, "type", strings_column(type, n));
        for (size_t j = 0; j < m->n_state; j++, c++)
            if (field_name_ok(m->state_names[j]) && mxGetFieldNumber(s, m->state_names[j]) < 0)
                set(s, m->state_names[j], column(v + c, n, width));
        char name[32];
        for (size_t k = 0; k < m->n_free; k++) {
            snprintf(name, sizeof name, "eig%zu_re", k + 1);
            set(s, name, column(v + c++, n, width));
            snprintf(name, sizeof name, "eig%zu_im", k + 1);
            set(s, name, column(v + c++, n, width));
        }
        static const char *const tail[] = {"max_abs_eig", "stable", "step_period", "step_length", "speed",
                                           "impact_energy_loss", "iterations", "residual", "arclength"};
        for (size_t k = 0; k < sizeof tail / sizeof tail[0]; k++) set(s, tail[k], column(v + c++, n, width));
        set(s, "point_status", strings_column(status, n));
        mxFree(v);
        mxFree(type);
        mxFree(status);
    }
    free(rows.pts);
    free(rows.branch);
    return s;
}

/* ---- params and models ---- */

static mxArray *cmd_params(const sm_model *m)
{
    static const char *const fields[] = {"name", "default", "min", "max", "unit", "description", "integer"};
    mxArray *ps = mxCreateStructMatrix((mwSize)m->n_params, 1, 7, (const char **)fields);
    for (size_t i = 0; i < m->n_params; i++) {
        const sm_param_def *d = &m->params[i];
        mxSetField(ps, (mwIndex)i, "name", mxCreateString(d->name));
        mxSetField(ps, (mwIndex)i, "default", num(d->value));
        mxSetField(ps, (mwIndex)i, "min", num(d->min));
        mxSetField(ps, (mwIndex)i, "max", num(d->max));
        mxSetField(ps, (mwIndex)i, "unit", mxCreateString(d->unit ? d->unit : ""));
        mxSetField(ps, (mwIndex)i, "description", mxCreateString(d->description ? d->description : ""));
        mxSetField(ps, (mwIndex)i, "integer", mxCreateLogicalScalar((d->flags & SM_PARAM_INTEGER) != 0));
    }
    mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
    set(s, "model", mxCreateString(m->name));
    set(s, "params", ps);
    set(s, "state_names", names_cell(m->state_names, NULL, m->n_state));
    return s;
}

static mxArray *cmd_models(void)
{
    static const char *const fields[] = {"name", "title", "reference"};
    const size_t n = sm_registry_count();
    mxArray *s = mxCreateStructMatrix((mwSize)n, 1, 3, (const char **)fields);
    for (size_t i = 0; i < n; i++) {
        const sm_model *m = sm_registry_at(i);
        mxSetField(s, (mwIndex)i, "name", mxCreateString(m->name));
        mxSetField(s, (mwIndex)i, "title", mxCreateString(m->title ? m->title : ""));
        mxSetField(s, (mwIndex)i, "reference", mxCreateString(m->reference ? m->reference : ""));
    }
    return s;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    char command[32], model[4096];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], command, sizeof command) != 0)
        mexErrMsgIdAndTxt("stridemap:bad_option",
                          "usage: stridemap_mex(command, model, opts); command is 'fixed', 'simulate', "
                          "'continue', 'params' or 'models'");
    if (strcmp(command, "models") == 0) {
        plhs[0] = cmd_models();
        return;
    }
    if (nrhs < 2 || !mxIsChar(prhs[1]) || mxGetString(prhs[1], model, sizeof model) != 0)
        mexErrMsgIdAndTxt("stridemap:bad_option", "stridemap_mex('%s', model, ...): model must be a name or a path",
                          command);
    const mxArray *opts = nrhs > 2 ? prhs[2] : NULL;
    if (opts && !mxIsStruct(opts) && !mxIsEmpty(opts))
        mexErrMsgIdAndTxt("stridemap:bad_option", "opts must be a struct (or [])");

    gw_error e = {0};
    gw_run r;
    memset(&r, 0, sizeof r);
    char why[512] = "";
    sm_status st = sm_registry_open(model, &r.m, why, sizeof why);
    if (st != SM_OK) {
        gw_fail(&e, st, "%s", why[0] ? why : sm_strerror(st));
        mexErrMsgIdAndTxt(e.id, "%s", e.msg);
    }

    mxArray *out = NULL;
    if (strcmp(command, "params") == 0) {
        out = cmd_params(r.m);
    } else if (strcmp(command, "fixed") == 0 || strcmp(command, "simulate") == 0 ||
               strcmp(command, "continue") == 0) {
        read_params(&r, opts, &e);
        const bool simulate = strcmp(command, "simulate") == 0;
        if (!e.failed) read_options(&r, opts, simulate ? "x0" : "guess", &e);
        if (e.failed)
            ;
        else if (simulate)
            out = cmd_simulate(&r, opts, &e);
        else if (command[0] == 'f')
            out = cmd_fixed(&r, &e);
        else
            out = cmd_continue(&r, opts, &e);
    } else {
        gw_fail(&e, SM_BAD_OPTION, "unknown command '%s': use 'fixed', 'simulate', 'continue', 'params' or 'models'",
                command);
    }
    sm_registry_close(r.m);
    if (e.failed) {
        if (out) mxDestroyArray(out);
        mexErrMsgIdAndTxt(e.id, "%s", e.msg);
    }
    plhs[0] = out;
}
