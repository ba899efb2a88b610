#include "stridemap/search.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sm_search_options_default(const sm_model *m, const double *p, sm_search_options *o)
{
    memset(o, 0, sizeof *o);
    /* The simplest walker's short-period gait at gamma = 0.019-0.025 is
     * first hit between starts 65 and 80 of its box. */
    o->starts = 256;
    o->max_starts = 16 * 256;
    o->same = 1e-6;
    if (m->search_box) {
        m->search_box(p, m->data, o->lo, o->hi);
        return;
    }
    double x[SM_MAX_STATE];
    m->guess(x, p, m->data);
    for (size_t k = 0; k < m->n_free; k++) {
        const double v = x[m->free_index[k]], w = fmax(0.5 * fabs(v), 0.1);
        o->lo[k] = v - w;
        o->hi[k] = v + w;
    }
}

sm_status sm_search_options_check(const sm_model *m, const sm_search_options *o, char *why, size_t why_len)
{
    if (o->starts < 1 || o->starts > 1000000) {
        snprintf(why, why_len, "sm_search_options.starts must be from 1 to 1000000, not %zu", o->starts);
        return SM_BAD_OPTION;
    }
    if (o->max_starts > 100000000) {
        snprintf(why, why_len, "sm_search_options.max_starts must be at most 100000000, not %zu", o->max_starts);
        return SM_BAD_OPTION;
    }
    for (size_t k = 0; k < m->n_free; k++)
        if (!isfinite(o->lo[k]) || !isfinite(o->hi[k]) || !(o->lo[k] < o->hi[k])) {
            snprintf(why, why_len, "sm_search_options.lo/hi: %s needs LO < HI (finite), not %g:%g",
                     m->state_names[m->free_index[k]], o->lo[k], o->hi[k]);
            return SM_BAD_OPTION;
        }
    if (o->period_unit < 0 || o->period_unit > 1024) {
        snprintf(why, why_len, "sm_search_options.period_unit must be from 0 to 1024, not %d", o->period_unit);
        return SM_BAD_OPTION;
    }
    if (!(o->same > 0)) {
        snprintf(why, why_len, "the duplicate distance must be positive");
        return SM_BAD_OPTION;
    }
    return SM_OK;
}

/* The i-th element of the van der Corput sequence in base b. */
static double radical_inverse(size_t i, unsigned b)
{
    double f = 1.0, r = 0.0;
    for (; i > 0; i /= b) {
        f /= b;
        r += f * (double)(i % b);
    }
    return r;
}

static const unsigned primes[SM_MAX_STATE] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31,  37,  41,  43,  47,  53,
                                              59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};

static double distance(const sm_model *m, const double *x, const double *y)
{
    double d = 0.0;
    for (size_t k = 0; k < m->n_free; k++) d = fmax(d, fabs(x[m->free_index[k]] - y[m->free_index[k]]));
    return d;
}

/* The shortest d dividing N with P^d(x) = x, to the Newton tolerance scale;
 * orbit[period * SM_MAX_STATE] gets the N states. */
static int shortest_period(sm_workspace *ws, const double *p, const double *x, int period, double tol,
                           double *orbit)
{
    const sm_model *m = sm_workspace_model(ws);
    memcpy(orbit, x, m->n_state * sizeof *x);
    for (int k = 1; k < period; k++)
        if (sm_stride(ws, p, &orbit[(k - 1) * SM_MAX_STATE], &orbit[k * SM_MAX_STATE], NULL, NULL) != SM_OK)
            return period;
    for (int d = 1; d < period; d++)
        if (period % d == 0 && distance(m, &orbit[d * SM_MAX_STATE], x) <= tol) return d;
    return period;
}

static int lcm(int a, int b)
{
    int x = a, y = b;
    while (y) {
        const int t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* The starts a search runs if nothing new turns up after start last_new:
 * whole batches, until as many starts have found nothing new as it took to
 * find the last gait. */
static size_t planned_starts(const sm_search_options *o, size_t last_new)
{
    const size_t batch = o->starts, max = o->max_starts > o->starts ? o->max_starts : o->starts;
    size_t want = 2 * last_new > batch ? 2 * last_new : batch;
    want = (want + batch - 1) / batch * batch;
    return want < max ? want : max;
}

/* Newton on P^N from x, and where that fails on P^d for each d dividing
 * N, shortest first: a fixed point of P^d is one of P^N, and for a very
 * unstable gait Newton's basin on P^d is far wider (garcia3d's one-step
 * multiplier -26 is 679 over two steps: from most starts of its box P^2's
 * strides fall before Newton can take a step). */
static bool solve_from(sm_workspace *ws, const double *p, const double *x, const sm_newton_options *newton,
                       sm_fixed_result *r)
{
    if (sm_fixed_point(ws, p, x, newton, r) == SM_OK && r->converged) return true;
    for (int d = 1; d < newton->period; d++) {
        if (newton->period % d != 0) continue;
        sm_newton_options shorter = *newton;
        shorter.period = d;
        if (sm_fixed_point(ws, p, x, &shorter, r) == SM_OK && r->converged) return true;
    }
    return false;
}

sm_status sm_search(sm_workspace *ws, const double *p, const sm_newton_options *newton,
                    const sm_search_options *o, sm_search_result *res)
{
    const sm_model *m = sm_workspace_model(ws);
    char why[256];
    res->n_found = 0;
    res->starts_run = 0;
    res->failed = 0;
    res->full = false;
    sm_status st = sm_search_options_check(m, o, why, sizeof why);
    if (st != SM_OK) return st;
    st = sm_newton_options_check(newton, why, sizeof why);
    if (st != SM_OK) return st;
    const int unit = o->period_unit > 1 ? o->period_unit : 1;
    if (newton->period % unit != 0) return SM_BAD_OPTION; /* a power of P^unit is searched */

    const double same = fmax(o->same, 1e3 * newton->tol);
    double x[SM_MAX_STATE];
    sm_fixed_result r;
    sm_search_progress pr = {.planned = planned_starts(o, 0),
                             .max = o->max_starts > o->starts ? o->max_starts : o->starts};
    for (size_t i = 1; i <= pr.planned; i++) {
        double z[SM_MAX_STATE];
        for (size_t k = 0; k < m->n_free; k++) z[k] = o->lo[k] + (o->hi[k] - o->lo[k]) * radical_inverse(i, primes[k]);
        sm_model_lift(m, p, z, x);
        res->starts_run = i;
        if (!solve_from(ws, p, x, newton, &r)) {
            res->failed++;
        } else {
            const int d = shortest_period(ws, p, r.x, newton->period, same, res->scratch);
            size_t known = res->n_found;
            for (size_t j = 0; j < res->n_found && known == res->n_found; j++)
                for (int k = 0; k < newton->period; k++)
                    if (distance(m, &res->scratch[k * SM_MAX_STATE], res->found[j].x) <= same) {
                        known = j;
                        break;
                    }
            if (known < res->n_found) {
                res->hits[known]++;
            } else if (res->n_found == res->cap) {
                res->full = true;
            } else {
                const int power = lcm(d, unit);
                if (power != r.period) {
                    /* A shorter cycle: its stability is that of the searched
                     * map's least power it is a fixed point of, not P^N. */
                    sm_newton_options shorter = *newton;
                    shorter.period = power;
                    sm_fixed_result rd;
                    if (sm_fixed_point(ws, p, r.x, &shorter, &rd) == SM_OK) r = rd;
                }
                res->found[res->n_found] = r;
                res->minimal_period[res->n_found] = d;
                res->hits[res->n_found++] = 1;
                pr.planned = planned_starts(o, i);
            }
        }
        pr.done = i;
        pr.found = res->n_found;
        pr.failed = res->failed;
        if (o->progress && o->progress(o->progress_ctx, &pr) != 0) break;
    }
    return SM_OK;
}
