/* A finished basin's measures: how much of the plane converges, and how far
 * from the gait the nearest cell that does not lies along each axis. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stridemap/basin.h"
#include "sweep_internal.h"

void sm_basin_measure(const sm_sweep_grid *plane, const unsigned char *outcome, const double *gait,
                      sm_basin_measures *m)
{
    memset(m, 0, sizeof *m);
    const sm_sweep_axis *a = plane->axis;
    m->cells = a[0].n * a[1].n;
    for (long i = 0; i < m->cells; i++) {
        switch ((sm_basin_outcome)outcome[i]) {
        case SM_BASIN_CONVERGED: m->converged++; break;
        case SM_BASIN_FELL: m->fell++; break;
        case SM_BASIN_UNDECIDED: m->undecided++; break;
        default: m->failed++; break;
        }
    }
    m->area_fraction = m->cells ? (double)m->converged / (double)m->cells : NAN;
    m->gait_cell = -1;
    long gi[2];
    m->gait_inside = true;
    for (size_t k = 0; k < 2; k++) {
        const double h = (a[k].hi - a[k].lo) / (double)(a[k].n - 1);
        const double u = (gait[k] - a[k].lo) / h;
        m->gait_inside &= u > -0.5 && u < (double)a[k].n - 0.5;
        gi[k] = m->gait_inside ? lround(u) : 0;
        m->reach_below[k] = m->reach_above[k] = NAN;
    }
    if (!m->gait_inside) return;
    m->gait_cell = gi[0] + a[0].n * gi[1];
    const long stride[2] = {1, a[0].n};
    for (size_t k = 0; k < 2; k++) {
        /* Along the gait cell's line: below, the cells whose centres are at or
         * below the gait, nearest first; above, those at or above it. */
        const long base = m->gait_cell - gi[k] * stride[k];
        m->reach_below[k] = m->reach_above[k] = INFINITY;
        for (long i = a[k].n - 1; i >= 0; i--) {
            const double v = sm_sweep_axis_value(&a[k], i);
            if (v <= gait[k] && outcome[base + i * stride[k]] != SM_BASIN_CONVERGED) {
                m->reach_below[k] = gait[k] - v;
                break;
            }
        }
        for (long i = 0; i < a[k].n; i++) {
            const double v = sm_sweep_axis_value(&a[k], i);
            if (v >= gait[k] && outcome[base + i * stride[k]] != SM_BASIN_CONVERGED) {
                m->reach_above[k] = v - gait[k];
                break;
            }
        }
    }
}

sm_status sm_basin_measure_file(const char *csv_path, const sm_sweep_grid *plane, const double *gait,
                                sm_basin_measures *m, char *why, size_t why_len)
{
    size_t len = 0;
    char *buf = sweep_read_file(csv_path, &len);
    if (!buf) {
        snprintf(why, why_len, "cannot read '%s': %s", csv_path, strerror(errno));
        return SM_IO_ERROR;
    }
    const long cells = plane->axis[0].n * plane->axis[1].n;
    unsigned char *outcome = malloc((size_t)cells);
    if (!outcome) {
        free(buf);
        return SM_NO_MEMORY;
    }
    memset(outcome, 0xff, (size_t)cells);
    sm_status st = SM_OK;
    const size_t hl = sweep_csv_header_len(buf, len);
    for (char *p = buf + hl; hl > 0 && p < buf + len && st == SM_OK;) {
        char *e = memchr(p, '\n', (size_t)(buf + len - p));
        if (!e) break;
        *e = '\0';
        char *f = p, *end;
        const long idx = strtol(f, &end, 10);
        /* index, the two coordinates, then the outcome */
        for (int k = 0; k < 3 && end; k++) end = strchr(end + (k > 0), ',');
        int outc = -1;
        for (int k = 0; end && k < 4; k++) {
            const char *n = sm_basin_outcome_name((sm_basin_outcome)k);
            const size_t nl = strlen(n);
            if (strncmp(end + 1, n, nl) == 0 && end[1 + nl] == ',') outc = k;
        }
        if (idx < 0 || idx >= cells || outc < 0) {
            snprintf(why, why_len, "'%s': a row that is not one of this plane's cells: '%.60s'", csv_path, p);
            st = SM_BAD_DATA;
        } else {
            outcome[idx] = (unsigned char)outc;
        }
        p = e + 1;
    }
    for (long i = 0; i < cells && st == SM_OK; i++)
        if (outcome[i] == 0xff) {
            snprintf(why, why_len, "'%s' has no row for cell %ld (of %ld)", csv_path, i, cells);
            st = SM_BAD_DATA;
        }
    if (st == SM_OK) sm_basin_measure(plane, outcome, gait, m);
    free(outcome);
    free(buf);
    return st;
}
