#include "stridemap/stride.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid_internal.h"
#include "scratch.h"

const sm_metric_field sm_metric_fields[] = {
#define FIELD(name) {#name, offsetof(sm_step_metrics, name), #name}
    {"period", offsetof(sm_step_metrics, period), "step_period"},
    FIELD(step_length),
    FIELD(speed),
    FIELD(impact_energy_loss),
    FIELD(heelstrike_impulse),
    FIELD(cost_of_transport),
    FIELD(min_foot_clearance),
    FIELD(max_foot_clearance),
    FIELD(min_normal_force),
    FIELD(max_friction_ratio),
#undef FIELD
};
const size_t sm_metric_field_count = sizeof sm_metric_fields / sizeof sm_metric_fields[0];

double sm_metric_value(const sm_step_metrics *mt, size_t i)
{
    double v;
    memcpy(&v, (const char *)mt + sm_metric_fields[i].offset, sizeof v);
    return v;
}

static bool all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

/* True when the swing foot is moving up through the ground at an event that
 * would end the step: that crossing is the end of a mid-stance scuff, and a
 * model whose guards let it through would take a scuff for a heel-strike. */
static bool scuff_exit(const sm_model *m, const double *p, const sm_phase *P, double t, const double *x)
{
    if (!m->foot_clearance) return false;
    double xd[SM_MAX_STATE], a[SM_MAX_STATE], b[SM_MAX_STATE];
    if (P->rhs(t, x, xd, p, m->data) != 0) return false;
    const double eps = 1e-7;
    for (size_t i = 0; i < m->n_state; i++) a[i] = x[i] + eps * xd[i], b[i] = x[i] - eps * xd[i];
    return m->foot_clearance(a, p, m->data) - m->foot_clearance(b, p, m->data) > 0.0;
}

/* Central differences for the saltation's derivatives where a model gives
 * none: the step cbrt(eps) max(1, |x_i|) balances the O(h^2) truncation
 * against rounding eps/h, both about 1e-11 relative for functions of
 * order 1 (about 1e-10 for the rigid-body impacts), well below Newton's
 * and the multipliers' needs. */
static double cd_step(double v) { return cbrt(DBL_EPSILON) * fmax(1.0, fabs(v)); }

/* grad[n] = dg/dx at (t, x), and dg/dt returned; t on the phase's clock
 * (hybrid_internal.h), as the root finder saw the function. */
static double event_gradient(const sm_model *m, const sm_event *ev, const double *p, double t, const double *x,
                             double *grad)
{
    if (ev->gradient) return ev->gradient(t, x, p, m->data, grad);
    double y[SM_MAX_STATE];
    memcpy(y, x, m->n_state * sizeof *y);
    for (size_t i = 0; i < m->n_state; i++) {
        const double h = cd_step(x[i]);
        y[i] = x[i] + h;
        const double up = ev->value(t, y, p, m->data);
        y[i] = x[i] - h;
        grad[i] = (up - ev->value(t, y, p, m->data)) / (2 * h);
        y[i] = x[i];
    }
    const double ht = cd_step(t);
    return (ev->value(t + ht, x, p, m->data) - ev->value(t - ht, x, p, m->data)) / (2 * ht);
}

/* DR[n x n] = d reset / dx at x_minus (row-major): the model's, or central
 * differences.  Returns the reset's failure code, if any. */
static int reset_jacobian(const sm_model *m, const sm_event *ev, const double *p, const double *x, double *DR)
{
    const size_t n = m->n_state;
    if (!ev->reset) {
        for (size_t i = 0; i < n * n; i++) DR[i] = 0.0;
        for (size_t i = 0; i < n; i++) DR[i * n + i] = 1.0;
        return 0;
    }
    if (ev->reset_jacobian) return ev->reset_jacobian(x, DR, p, m->data);
    double y[SM_MAX_STATE], up[SM_MAX_STATE], dn[SM_MAX_STATE];
    memcpy(y, x, n * sizeof *y);
    for (size_t j = 0; j < n; j++) {
        const double h = cd_step(x[j]);
        y[j] = x[j] + h;
        int r = ev->reset(y, up, p, m->data);
        y[j] = x[j] - h;
        if (r == 0) r = ev->reset(y, dn, p, m->data);
        y[j] = x[j];
        if (r != 0) return r;
        for (size_t i = 0; i < n; i++) DR[i * n + j] = (up[i] - dn[i]) / (2 * h);
    }
    return 0;
}

/* The sensitivities across a counted event at (t, x_minus): the saltation
 *
 *   S+ = DR (I - f- grad(g)^T / (grad(g) . f- + dg/dt)) S-.
 *
 * Why: a start moved by dx0 meets the surface g = 0 at t + dt, where
 * g(x- + S- dx0 + f- dt) = 0 to first order, so
 * dt = -grad(g) . S- dx0 / (grad(g) . f- + dg/dt); the state it meets the
 * surface at is x- + (I - f- grad(g)^T / (...)) S- dx0, and the reset maps
 * that through DR.  At the section event this is exactly the derivative
 * of P, whose time of flight varies.  At an event inside the stride the
 * full saltation would add f+ dt (the new phase's flow over the time
 * shift), a component along the flow; the flow carries it along itself
 * through later phases, and the projection above annuls such components
 * at the next event, so dropping it changes no derivative of P.
 *
 * An event set off by a tick of a sampled controller's clock (its function
 * jumped across zero there, hybrid.c) happens at the tick whatever the
 * start nearby, dt = 0: then S+ = DR S-, a time-triggered switch's
 * saltation (the tick's own reset is in S- already).  timed says so. */
static sm_status saltation(const sm_model *m, const sm_phase *P, const sm_event *ev, const double *p, double t_start,
                           double t, const double *x, bool timed, double *S, size_t ncols)
{
    const size_t n = m->n_state;
    double f[SM_MAX_STATE], grad[SM_MAX_STATE], DR[SM_MAX_STATE * SM_MAX_STATE], col[SM_MAX_STATE];
    double gf = 1.0;
    int r;
    if (!timed) {
        r = P->rhs(t, x, f, p, m->data);
        if (r != 0) return r < 0 ? sm_callback_status(r) : SM_RHS_FAILED;
        gf = event_gradient(m, ev, p, t - t_start, x, grad);
        for (size_t i = 0; i < n; i++) gf += grad[i] * f[i];
        /* A tangential crossing has no derivative of its time. */
        if (!(fabs(gf) > 0) || !isfinite(gf)) return SM_NO_EXACT_JACOBIAN;
    }
    r = reset_jacobian(m, ev, p, x, DR);
    if (r != 0) return r < 0 ? sm_callback_status(r) : SM_RHS_FAILED;
    for (size_t j = 0; j < ncols; j++) {
        double *s = S + j * n;
        if (!timed) {
            double gs = 0.0;
            for (size_t i = 0; i < n; i++) gs += grad[i] * s[i];
            const double c = gs / gf;
            for (size_t i = 0; i < n; i++) s[i] -= f[i] * c;
        }
        for (size_t i = 0; i < n; i++) {
            double acc = 0.0;
            for (size_t k = 0; k < n; k++) acc += DR[i * n + k] * s[k];
            col[i] = acc;
        }
        memcpy(s, col, n * sizeof *s);
    }
    for (size_t i = 0; i < n * ncols; i++)
        if (!isfinite(S[i])) return SM_NONFINITE;
    return SM_OK;
}

/* sm_stride, carrying sensitivity columns S (n_state each) when S is set. */
static sm_status stride_run(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                            sm_step_metrics *metrics, const sm_observer *obs, double *S, size_t ncols)
{
    const sm_model *m = sm_workspace_model(ws);
    const size_t n = m->n_state;
    sm_step_metrics local;
    sm_step_metrics *mt = metrics ? metrics : &local;
    mt->period = NAN;
    mt->step_length = NAN;
    mt->speed = NAN;
    mt->impact_energy_loss = m->kinetic_energy ? 0.0 : NAN;
    mt->heelstrike_impulse = NAN;
    mt->cost_of_transport = NAN;
    mt->min_foot_clearance = NAN;
    mt->max_foot_clearance = NAN;
    mt->min_normal_force = NAN;
    mt->max_friction_ratio = NAN;
    mt->n_events = 0;
    bool strike_seen = false;

    memmove(x_out, x_in, n * sizeof *x_out);
    if (!all_finite(x_in, n)) return SM_BAD_STATE;

    if (m->map) {
        double period = 1.0, y[SM_MAX_STATE];
        /* As for a reset: a closed-form stride has no smaller step to retry,
         * so a recoverable (>0) return fails the stride like a fatal one. */
        if (m->map(x_in, y, &period, p, m->data) != 0) return SM_RHS_FAILED;
        memcpy(x_out, y, n * sizeof *y);
        if (!all_finite(x_out, n)) return SM_NONFINITE;
        mt->period = period;
        mt->n_events = 1;
        return SM_OK;
    }

    const double tlim = sm_workspace_options(ws)->t_max;
    const double t_end = tlim > 0 ? tlim : m->time_limit(p, m->data);
    double x[SM_MAX_STATE], x_plus[SM_MAX_STATE];
    memcpy(x, x_in, n * sizeof *x);
    double t = 0.0;
    size_t phase = m->start_phase;

    while (mt->n_events < SM_MAX_EVENTS_PER_STRIDE) {
        size_t e = 0;
        const double t_start = t;
        sm_status st = S ? sm_hybrid_flow_sens(ws, p, phase, &t, x, S, ncols, t_end, &e)
                         : sm_hybrid_flow(ws, p, phase, &t, x, t_end, obs, &e);
        if (st != SM_OK) {
            memcpy(x_out, x, n * sizeof *x);
            return st;
        }
        const sm_event *ev = &m->phases[phase].events[e];
        mt->n_events++;
        if (ev->outcome == SM_EVENT_FAIL) {
            memcpy(x_out, x, n * sizeof *x);
            if (obs && obs->event && obs->event(obs->ctx, t, phase, ev->name, x, x) != 0)
                return SM_IO_ERROR;
            return ev->failure;
        }
        if (S) {
            /* a function that landed exactly on zero at a tick: a start
             * moved one way crosses there, the other way later */
            const sm_event_found how = sm_hybrid_event_found(ws);
            st = how == SM_FOUND_AT_TICK_ON_ZERO
                     ? SM_NO_EXACT_JACOBIAN
                     : saltation(m, &m->phases[phase], ev, p, t_start, t, x, how == SM_FOUND_AT_TICK, S, ncols);
            if (st != SM_OK) {
                memcpy(x_out, x, n * sizeof *x);
                return st;
            }
        }
        if (ev->reset) {
            /* SUNDIALS' >0 asks for a smaller step, and an impact has none
             * to take: recoverable or fatal, the stride ends here. */
            const int r = ev->reset(x, x_plus, p, m->data);
            if (r != 0) {
                memcpy(x_out, x, n * sizeof *x);
                return r < 0 ? sm_callback_status(r) : SM_RHS_FAILED;
            }
            if (!all_finite(x_plus, n)) {
                memcpy(x_out, x_plus, n * sizeof *x);
                return SM_NONFINITE;
            }
        } else {
            memcpy(x_plus, x, n * sizeof *x);
        }
        if (m->kinetic_energy)
            mt->impact_energy_loss += m->kinetic_energy(x, p, m->data) - m->kinetic_energy(x_plus, p, m->data);
        /* A stride may end at another event (toe-off) with the strike inside
         * it; a model that marks no strike has it at the section. */
        if (m->momentum && (ev->strike || (ev->outcome == SM_EVENT_SECTION && !strike_seen))) {
            double before[2], after[2];
            m->momentum(x, p, m->data, before);
            m->momentum(x_plus, p, m->data, after);
            mt->heelstrike_impulse = hypot(after[0] - before[0], after[1] - before[1]);
            strike_seen |= ev->strike;
        }
        if (obs && obs->event && obs->event(obs->ctx, t, phase, ev->name, x, x_plus) != 0) {
            memcpy(x_out, x_plus, n * sizeof *x);
            return SM_IO_ERROR;
        }
        if (ev->outcome == SM_EVENT_SECTION && scuff_exit(m, p, &m->phases[phase], t, x)) {
            memcpy(x_out, x, n * sizeof *x);
            return SM_SCUFFED;
        }
        if (ev->outcome == SM_EVENT_SECTION) {
            mt->period = t;
            if (m->step_length) mt->step_length = m->step_length(x, p, m->data);
            mt->speed = mt->step_length / mt->period;
            if (m->weight)
                mt->cost_of_transport = mt->impact_energy_loss / (m->weight(p, m->data) * mt->step_length);
            memcpy(x_out, x_plus, n * sizeof *x);
            return SM_OK;
        }
        memcpy(x, x_plus, n * sizeof *x);
        phase = ev->next_phase;
    }
    memcpy(x_out, x, n * sizeof *x);
    return SM_EVENT_ORDER;
}

sm_status sm_stride(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                    sm_step_metrics *metrics, const sm_observer *obs)
{
    return stride_run(ws, p, x_in, x_out, metrics, obs, NULL, 0);
}

sm_status sm_stride_sens(sm_workspace *ws, const double *p, const double *x_in, double *x_out, double *S,
                         size_t ncols, sm_step_metrics *metrics)
{
    if (sm_workspace_model(ws)->map) return SM_NO_EXACT_JACOBIAN;
    return stride_run(ws, p, x_in, x_out, metrics, NULL, S, ncols);
}

/* What a measured stride collects from its samples. */
typedef struct {
    const sm_model *m;
    const double *p;
    const sm_observer *user;
    double *t, *h;           /* clearance samples, NaN inside the scuff window */
    size_t n, cap;
    double f[3], r_max;      /* last three normal forces, worst friction ratio */
    size_t nf, phase;
    double f_min;
    /* The forces of the states since the current phase began at t0, held
     * until it lasts longer than SM_MEASURE_INSTANT: a phase left at once
     * (a pin beyond its friction cone when its phase begins slips within
     * the events' 1e-9 s start ramp) is not a state the walker is in, and
     * its forces (a friction ratio of 21 there) are dropped. */
    double t0, held_f, held_r;
    bool held;
} measure_ctx;

#define SM_MEASURE_INSTANT 2e-9

static void measure_keep(measure_ctx *c, double f, double r)
{
    c->f_min = fmin(c->f_min, f);
    c->r_max = fmax(c->r_max, r);
    c->nf++;
}

/* The phase has lasted: what it held counts. */
static void measure_flush(measure_ctx *c)
{
    if (c->held) measure_keep(c, c->held_f, c->held_r);
    c->held = false;
}

/* The minimum of a parabola through three equally spaced samples whose
 * middle one is the smallest. */
static double parabola_min(double a, double b, double c)
{
    const double curv = a - 2 * b + c;
    return curv > 0 ? b - (c - a) * (c - a) / (8 * curv) : b;
}

static void measure_state(measure_ctx *c, double t, size_t phase, const double *x)
{
    const sm_model *m = c->m;
    if (m->foot_clearance && c->n < c->cap) {
        const bool hidden = m->in_scuff_window && m->in_scuff_window(x, c->p, m->data);
        c->t[c->n] = t;
        c->h[c->n++] = hidden ? NAN : m->foot_clearance(x, c->p, m->data);
    }
    if (m->ground_reaction) {
        double R[2];
        m->ground_reaction(t, phase, x, c->p, m->data, R);
        double lowest = R[1];
        const double ratio = R[1] > 0 ? fabs(R[0] / R[1]) : 0.0;
        c->f[0] = c->f[1], c->f[1] = c->f[2], c->f[2] = R[1];
        if (t <= c->t0 + SM_MEASURE_INSTANT) {
            c->held_f = c->held ? fmin(c->held_f, lowest) : lowest;
            c->held_r = c->held ? fmax(c->held_r, ratio) : ratio;
            c->held = true;
            return;
        }
        measure_flush(c);
        if (isfinite(c->f[0]) && c->f[1] <= c->f[0] && c->f[1] <= c->f[2])
            lowest = parabola_min(c->f[0], c->f[1], c->f[2]);
        measure_keep(c, lowest, ratio);
    }
}

static int measure_sample(void *ctx, double t, size_t phase, const double *x)
{
    measure_ctx *c = ctx;
    if (phase != c->phase) {
        /* A new phase: forces may jump, so no parabola across the switch. */
        c->phase = phase;
        c->f[0] = c->f[1] = c->f[2] = INFINITY;
    }
    measure_state(c, t, phase, x);
    return c->user && c->user->sample ? c->user->sample(c->user->ctx, t, phase, x) : 0;
}

/* The state just before an event belongs to the step too: extremes of
 * forces often sit exactly there. */
static int measure_event(void *ctx, double t, size_t phase, const char *name, const double *xm,
                         const double *xp)
{
    measure_ctx *c = ctx;
    if (t > c->t0 + SM_MEASURE_INSTANT) {
        measure_state(c, t, phase, xm);
        c->t0 = t;
    } else {
        /* The phase was left at once: the walker is in the phase it leads
         * to, from the event's state (xp), held in turn. */
        c->held = false;
        c->t0 = t;
        const sm_phase *P = &c->m->phases[phase];
        for (size_t k = 0; k < P->n_events; k++)
            if (strcmp(P->events[k].name, name) == 0 && P->events[k].outcome == SM_EVENT_TO_PHASE) {
                measure_state(c, t, P->events[k].next_phase, xp);
                break;
            }
    }
    /* The event's state is off the sampling grid: keep it out of the
     * three-point parabolas. */
    c->f[0] = c->f[1] = c->f[2] = INFINITY;
    return c->user && c->user->event ? c->user->event(c->user->ctx, t, phase, name, xm, xp) : 0;
}

/* Clearance extremes over the samples outside the scuff window and the
 * step's first and last 5 %, where the foot leaves and meets the ground. */
static void clearance_extremes(const measure_ctx *c, double period, sm_step_metrics *mt)
{
    /* The samples lie at k period / SM_MEASURE_SAMPLES, so the window's
     * edges fall on samples; a rounding margin keeps those samples in
     * whatever the last bits of period (on a gait whose foot is lowest
     * where the window opens, it used to move the minimum by a sample). */
    const double eps = 1e-9 * period;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < c->n; i++) {
        if (!(c->t[i] >= 0.05 * period - eps && c->t[i] <= 0.95 * period + eps) || isnan(c->h[i])) continue;
        double v = c->h[i];
        /* A parabola only through equally spaced samples: an event's state
         * (a knee-strike, where the foot's height has a kink) is not one. */
        if (i > 0 && i + 1 < c->n && !isnan(c->h[i - 1]) && !isnan(c->h[i + 1]) && v <= c->h[i - 1] &&
            v <= c->h[i + 1] && fabs((c->t[i + 1] - c->t[i]) - (c->t[i] - c->t[i - 1])) <= eps)
            v = parabola_min(c->h[i - 1], v, c->h[i + 1]);
        lo = fmin(lo, v);
        hi = fmax(hi, c->h[i]);
    }
    if (isfinite(lo)) mt->min_foot_clearance = lo;
    if (isfinite(hi)) mt->max_foot_clearance = hi;
}

sm_status sm_stride_measured(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                             sm_step_metrics *metrics, const sm_observer *obs, double dt)
{
    const sm_model *m = sm_workspace_model(ws);
    if (m->map || !(dt > 0)) return sm_stride(ws, p, x_in, x_out, metrics, obs);
    const double tlim = sm_workspace_options(ws)->t_max;
    const double t_end = tlim > 0 ? tlim : m->time_limit(p, m->data);
    measure_ctx c = {.m = m, .p = p, .user = obs, .f_min = INFINITY, .r_max = 0.0, .phase = m->start_phase};
    if (m->foot_clearance) {
        /* The count depends on dt and on p (the time limit), so the buffer
         * is the workspace's, grown to the largest stride asked for. */
        c.cap = (size_t)fmin(t_end / dt + 2, 2e6);
        c.t = sm_scratch_take(ws, SM_SCRATCH_SAMPLES, 2 * c.cap * sizeof *c.t);
        if (!c.t) return SM_NO_MEMORY;
        c.h = c.t + c.cap;
    }
    c.f[0] = c.f[1] = c.f[2] = INFINITY;
    measure_state(&c, 0.0, m->start_phase, x_in);
    sm_observer mine = {.dt = dt, .sample = measure_sample, .event = measure_event, .ctx = &c};
    sm_step_metrics local;
    sm_step_metrics *mt = metrics ? metrics : &local;
    sm_status st = sm_stride(ws, p, x_in, x_out, mt, &mine);
    measure_flush(&c);
    if (st == SM_OK) {
        if (m->foot_clearance) clearance_extremes(&c, mt->period, mt);
        if (m->ground_reaction && c.nf > 0) {
            mt->min_normal_force = c.f_min;
            mt->max_friction_ratio = c.r_max;
        }
    }
    sm_scratch_give(ws, SM_SCRATCH_SAMPLES, c.t);
    return st;
}

sm_status sm_stride_gait(sm_workspace *ws, const double *p, const double *x_in, double *x_out,
                         sm_step_metrics *metrics, const sm_observer *obs)
{
    const sm_model *m = sm_workspace_model(ws);
    double x0[SM_MAX_STATE], x_end[SM_MAX_STATE];
    memcpy(x0, x_in, m->n_state * sizeof *x0);
    sm_step_metrics local;
    sm_step_metrics *mt = metrics ? metrics : &local;
    sm_status st = sm_stride(ws, p, x0, x_out, mt, obs);
    if (st != SM_OK || m->map || !(isfinite(mt->period) && mt->period > 0)) return st;
    /* The same step again, sampled on the step's own clock: the period is
     * known only now. */
    sm_step_metrics measured;
    st = sm_stride_measured(ws, p, x0, x_end, &measured, NULL, mt->period / SM_MEASURE_SAMPLES);
    if (st == SM_OK) *mt = measured;
    return st;
}

sm_status sm_walk(sm_workspace *ws, const double *p, double *x, long steps, const sm_observer *obs,
                  sm_walk_fn cb, void *ctx, long *done)
{
    for (*done = 0; *done < steps; (*done)++) {
        sm_step_metrics mt;
        sm_status st = sm_stride_gait(ws, p, x, x, &mt, obs);
        if (st != SM_OK) return st;
        if (cb && cb(ctx, *done, &mt) != 0) {
            (*done)++;
            return SM_IO_ERROR;
        }
    }
    return SM_OK;
}
