/* Grid specifications NAME=LO:HI:N and the numbering of grid points. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stridemap/sweep.h"
#include "sweep_internal.h"

#define SWEEP_MAX_N 100000000L     /* points on one axis */
#define SWEEP_MAX_POINTS 1000000000L /* points in the grid */

bool sweep_parse_number(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0' || errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

sm_status sm_sweep_axis_parse(const sm_model *m, const char *spec, sm_sweep_axis *a, char *why,
                              size_t why_len)
{
    memset(a, 0, sizeof *a);
    const char *eq = strchr(spec, '=');
    const char *c1 = eq ? strchr(eq + 1, ':') : NULL;
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!eq || eq == spec || !c1 || !c2 || strchr(c2 + 1, ':')) {
        snprintf(why, why_len, "sm_sweep_axis takes NAME=LO:HI:N (e.g. gamma=0.001:0.015:50), not '%s'", spec);
        return SM_BAD_PARAM;
    }
    size_t nlen = (size_t)(eq - spec);
    if (nlen >= sizeof a->name) {
        snprintf(why, why_len, "sm_sweep_axis: parameter name too long in '%s' (at most %zu characters)", spec,
                 sizeof a->name - 1);
        return SM_BAD_OPTION;
    }
    memcpy(a->name, spec, nlen);
    a->name[nlen] = '\0';
    int i = sm_model_param_index(m, a->name);
    if (i < 0) {
        snprintf(why, why_len, "sm_sweep_axis: model '%s' has no parameter '%s' (see the parameters of model %s)",
                 m->name, a->name, m->name);
        return SM_UNKNOWN_PARAM;
    }
    a->param = (size_t)i;
    if (!sweep_parse_number(eq + 1, (size_t)(c1 - eq - 1), &a->lo) ||
        !sweep_parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &a->hi)) {
        snprintf(why, why_len, "sm_sweep_axis %s: LO and HI must be finite numbers in '%s'", a->name, spec);
        return SM_BAD_PARAM;
    }
    char *end = NULL;
    errno = 0;
    long n = strtol(c2 + 1, &end, 10);
    if (end == c2 + 1 || *end != '\0' || errno == ERANGE || n < 1 || n > SWEEP_MAX_N) {
        snprintf(why, why_len, "sm_sweep_axis %s: N must be a whole number from 1 to %ld, not '%s'", a->name, SWEEP_MAX_N,
                 c2 + 1);
        return SM_BAD_PARAM;
    }
    a->n = n;
    if (a->lo > a->hi) {
        snprintf(why, why_len, "sm_sweep_axis %s: LO %g is above HI %g", a->name, a->lo, a->hi);
        return SM_BAD_PARAM;
    }
    if (n == 1 && a->lo != a->hi) {
        snprintf(why, why_len, "sm_sweep_axis %s: one point needs LO = HI (or hold it fixed: %s=VALUE)", a->name,
                 a->name);
        return SM_BAD_PARAM;
    }
    if (n > 1 && a->lo == a->hi) {
        snprintf(why, why_len, "sm_sweep_axis %s: %ld points need LO < HI", a->name, n);
        return SM_BAD_PARAM;
    }
    /* Every value, so that an integer parameter gets whole numbers only. */
    for (long k = 0; k < n; k++) {
        if (sm_model_check_param(m, a->param, sm_sweep_axis_value(a, k), why, why_len) != SM_OK)
            return SM_BAD_PARAM;
    }
    return SM_OK;
}

sm_status sm_sweep_grid_add(sm_sweep_grid *g, const sm_sweep_axis *a, char *why, size_t why_len)
{
    for (size_t k = 0; k < g->n_axes; k++)
        if (g->axis[k].param == a->param) {
            snprintf(why, why_len, "sm_sweep_axis: parameter '%s' is swept twice", a->name);
            return SM_BAD_OPTION;
        }
    if (g->n_axes == SM_SWEEP_MAX_AXES) {
        snprintf(why, why_len, "sm_sweep_axis: at most %d axes, not %d", SM_SWEEP_MAX_AXES, SM_SWEEP_MAX_AXES + 1);
        return SM_BAD_OPTION;
    }
    long total = sm_sweep_grid_points(g);
    if (total > 0 && a->n > SWEEP_MAX_POINTS / total) {
        snprintf(why, why_len,
                 "sm_sweep_axis: %ld x %ld points is more than a grid may have (at most %ld, the product of every N)",
                 total, a->n, SWEEP_MAX_POINTS);
        return SM_BAD_OPTION;
    }
    g->axis[g->n_axes++] = *a;
    return SM_OK;
}

long sm_sweep_grid_points(const sm_sweep_grid *g)
{
    long n = 1;
    for (size_t k = 0; k < g->n_axes; k++) n *= g->axis[k].n;
    return g->n_axes ? n : 0;
}

long sm_sweep_grid_lines(const sm_sweep_grid *g)
{
    return g->n_axes ? sm_sweep_grid_points(g) / g->axis[0].n : 0;
}

double sm_sweep_axis_value(const sm_sweep_axis *a, long i)
{
    if (a->n <= 1) return a->lo;
    if (i == a->n - 1) return a->hi;
    return a->lo + (a->hi - a->lo) * (double)i / (double)(a->n - 1);
}

void sm_sweep_grid_values(const sm_sweep_grid *g, long index, double *values)
{
    for (size_t k = 0; k < g->n_axes; k++) {
        values[k] = sm_sweep_axis_value(&g->axis[k], index % g->axis[k].n);
        index /= g->axis[k].n;
    }
}

bool sm_sweep_owns_line(const sm_sweep_config *c, long l)
{
    return c->shard_n <= 1 || l % c->shard_n == c->shard_k;
}
