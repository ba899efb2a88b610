/* Basins of attraction: a cell's walk, cell mapping within a unit of work,
 * and the sweep task that makes a basin a sweep (basin.h). */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stridemap/basin.h"
#include "stridemap/stride.h"
#include "sweep_internal.h"

#define BASIN_MAX_N 100000000L

/* Cells that one unit's walks may mark: at most half the slots, so that a
 * probe always ends (one table per worker, 2 MB). */
#define MEMO_SLOTS (1L << 16)

/* One mark: a walk passed through cell, to_go strides before its end. */
typedef struct {
    long gen;    /* the unit it belongs to (a slot of another generation is empty) */
    long cell;
    long to_go;
    long source; /* the cell whose walk it was */
    signed char outcome;
    short status;
} memo_slot;

/* A worker's memory of the unit it is walking (cell mapping). */
typedef struct {
    const sm_workspace *ws; /* the worker's: one memo per workspace */
    long gen;
    long unit_first, next;  /* the unit, and the next of its cells to walk */
    long n_marked;
    memo_slot *slot;        /* [MEMO_SLOTS] */
    long *path;             /* [max_strides + 1]: the cell entered at each stride, -1 off the plane */
} walk_memo;

struct sm_basin {
    sm_basin_config c;
    const sm_model *m;
    size_t ns, nf;
    int period;
    double *orbit_z;          /* [period * nf]: the orbit's free coordinates */
    double z_base[SM_MAX_STATE];
    long cells;
    bool map_used;
    pthread_mutex_t memo_mu;  /* guards the list of memos, not their contents */
    walk_memo **memos;        /* each its own allocation: a worker keeps its pointer */
    size_t n_memos, cap_memos;
    sm_sweep_task task;
};

static const char *const outcome_names[] = {"converged", "fell", "undecided", "failed"};

const char *sm_basin_outcome_name(sm_basin_outcome o)
{
    return (unsigned)o < 4 ? outcome_names[o] : "?";
}

void sm_basin_config_default(sm_basin_config *c, const sm_model *m)
{
    memset(c, 0, sizeof *c);
    c->model = m;
    sm_model_default_params(m, c->params);
    for (size_t k = 0; k < SM_MAX_STATE; k++) c->fix[k] = NAN;
    c->max_strides = SM_BASIN_DEFAULT_MAX_STRIDES;
    c->tol = SM_BASIN_DEFAULT_TOL;
    c->cell_map = true;
}

/* The index among the free coordinates of state name, or -1. */
static int free_coordinate(const sm_model *m, const char *name, size_t len)
{
    for (size_t k = 0; k < m->n_free; k++) {
        const char *s = m->state_names[m->free_index[k]];
        if (strlen(s) == len && strncmp(s, name, len) == 0) return (int)k;
    }
    return -1;
}

/* "the free coordinates: a, b, c" into buf. */
static const char *free_names(const sm_model *m, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < m->n_free && pos < len; k++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", k ? ", " : "", m->state_names[m->free_index[k]]);
    return buf;
}

sm_status sm_basin_axis_parse(const sm_model *m, const char *spec, sm_sweep_axis *a, char *why, size_t why_len)
{
    memset(a, 0, sizeof *a);
    char names[512];
    const char *eq = strchr(spec, '=');
    const char *c1 = eq ? strchr(eq + 1, ':') : NULL;
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!eq || eq == spec || !c1 || !c2 || strchr(c2 + 1, ':')) {
        snprintf(why, why_len, "sm_basin_config.plane takes NAME=LO:HI:N (e.g. theta=0.1:0.3:50), not '%s'", spec);
        return SM_BAD_PARAM;
    }
    const size_t nlen = (size_t)(eq - spec);
    const int k = free_coordinate(m, spec, nlen);
    if (k < 0 || nlen >= sizeof a->name) {
        snprintf(why, why_len, "sm_basin_config.plane: '%.*s' is not a free coordinate of model %s's section (%s)",
                 (int)nlen, spec, m->name, free_names(m, names, sizeof names));
        return SM_UNKNOWN_PARAM;
    }
    memcpy(a->name, spec, nlen);
    a->param = (size_t)k;
    if (!sweep_parse_number(eq + 1, (size_t)(c1 - eq - 1), &a->lo) ||
        !sweep_parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &a->hi)) {
        snprintf(why, why_len, "sm_basin_config.plane %s: LO and HI must be finite numbers in '%s'", a->name, spec);
        return SM_BAD_PARAM;
    }
    char *end = NULL;
    errno = 0;
    const long n = strtol(c2 + 1, &end, 10);
    if (end == c2 + 1 || *end != '\0' || errno == ERANGE || n < 2 || n > BASIN_MAX_N) {
        snprintf(why, why_len, "sm_basin_config.plane %s: N must be a whole number from 2 to %ld, not '%s'", a->name,
                 BASIN_MAX_N, c2 + 1);
        return SM_BAD_PARAM;
    }
    a->n = n;
    if (!(a->lo < a->hi)) {
        snprintf(why, why_len, "sm_basin_config.plane %s: LO %g must be below HI %g", a->name, a->lo, a->hi);
        return SM_BAD_PARAM;
    }
    return SM_OK;
}

sm_status sm_basin_fix_parse(sm_basin_config *c, const char *spec, char *why, size_t why_len)
{
    const sm_model *m = c->model;
    char names[512];
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) {
        snprintf(why, why_len, "sm_basin_config.fix takes NAME=VALUE (e.g. theta_dot_sw=-0.3), not '%s'", spec);
        return SM_BAD_PARAM;
    }
    const int k = free_coordinate(m, spec, (size_t)(eq - spec));
    if (k < 0) {
        snprintf(why, why_len, "sm_basin_config.fix: '%.*s' is not a free coordinate of model %s's section (%s)",
                 (int)(eq - spec), spec, m->name, free_names(m, names, sizeof names));
        return SM_UNKNOWN_PARAM;
    }
    double v;
    if (!sweep_parse_number(eq + 1, strlen(eq + 1), &v)) {
        snprintf(why, why_len, "sm_basin_config.fix %.*s: the value must be a finite number, not '%s'", (int)(eq - spec),
                 spec, eq + 1);
        return SM_BAD_PARAM;
    }
    c->fix[k] = v;
    return SM_OK;
}

static size_t task_header(void *ctx, char *buf, size_t len);
static size_t task_signature(void *ctx, char *buf, size_t len);
static bool task_load_row(void *ctx, const char *line, size_t len, long *index);
static size_t task_point(void *ctx, sm_workspace *ws, long idx, long unit_first, char *buf, size_t len, bool *failed);

sm_status sm_basin_create(const sm_basin_config *c, const sm_gait *g, sm_workspace *ws, sm_basin **out, char *why,
                          size_t why_len)
{
    *out = NULL;
    const sm_model *m = c->model;
    if (c->plane.n_axes != 2 || c->plane.axis[0].param == c->plane.axis[1].param) {
        snprintf(why, why_len, "sm_basin_config.plane needs two different free coordinates of the section");
        return SM_BAD_OPTION;
    }
    for (size_t k = 0; k < 2; k++)
        if (c->plane.axis[k].param >= m->n_free || c->plane.axis[k].n < 2) {
            snprintf(why, why_len, "sm_basin_config.plane: axis %zu is not a free coordinate with N >= 2", k);
            return SM_BAD_OPTION;
        }
    if (c->max_strides < 1 || c->max_strides > 100000000L) {
        snprintf(why, why_len, "sm_basin_config.max_strides must be from 1 to 100000000, not %ld", c->max_strides);
        return SM_BAD_OPTION;
    }
    if (!(c->tol > 0) || !isfinite(c->tol)) {
        snprintf(why, why_len, "sm_basin_config.tol must be a positive number, not %g", c->tol);
        return SM_BAD_OPTION;
    }
    for (size_t k = 0; k < 2; k++)
        if (!isnan(c->fix[c->plane.axis[k].param])) {
            snprintf(why, why_len, "sm_basin_config.fix: '%s' is an axis of the plane; fix only the others",
                     c->plane.axis[k].name);
            return SM_BAD_OPTION;
        }
    if (g->period < 1) {
        snprintf(why, why_len, "the gait has no period");
        return SM_BAD_OPTION;
    }
    sm_basin *b = calloc(1, sizeof *b);
    if (!b) return SM_NO_MEMORY;
    b->c = *c;
    b->m = m;
    b->ns = m->n_state;
    b->nf = m->n_free;
    b->period = g->period;
    b->cells = c->plane.axis[0].n * c->plane.axis[1].n;
    b->map_used = c->cell_map && m->n_free == 2;
    double *orbit = malloc((size_t)g->period * b->ns * sizeof *orbit);
    b->orbit_z = malloc((size_t)g->period * b->nf * sizeof *b->orbit_z);
    pthread_mutex_init(&b->memo_mu, NULL);
    if (!orbit || !b->orbit_z) {
        free(orbit);
        sm_basin_free(b);
        snprintf(why, why_len, "out of memory for a gait of period %d", g->period);
        return SM_NO_MEMORY;
    }
    const int got = sm_gait_orbit(ws, c->params, g->x, g->period, orbit);
    if (got != g->period) {
        free(orbit);
        sm_basin_free(b);
        snprintf(why, why_len, "a stride of the gait's orbit failed (stride %d of %d)", got + 1, g->period);
        return SM_NOT_CONVERGED;
    }
    for (int k = 0; k < g->period; k++) sm_model_free(m, &orbit[(size_t)k * b->ns], &b->orbit_z[(size_t)k * b->nf]);
    free(orbit);
    for (size_t k = 0; k < b->nf; k++) b->z_base[k] = isnan(c->fix[k]) ? b->orbit_z[k] : c->fix[k];
    b->task = (sm_sweep_task){b, task_header, task_signature, task_load_row, task_point};
    *out = b;
    return SM_OK;
}

void sm_basin_free(sm_basin *b)
{
    if (!b) return;
    free(b->orbit_z);
    for (size_t i = 0; i < b->n_memos; i++) {
        free(b->memos[i]->slot);
        free(b->memos[i]->path);
        free(b->memos[i]);
    }
    free(b->memos);
    pthread_mutex_destroy(&b->memo_mu);
    free(b);
}

long sm_basin_cells(const sm_basin *b) { return b->cells; }

bool sm_basin_cell_map_used(const sm_basin *b) { return b->map_used; }

void sm_basin_gait_plane(const sm_basin *b, double *v)
{
    for (size_t k = 0; k < 2; k++) v[k] = b->orbit_z[b->c.plane.axis[k].param];
}

void sm_basin_cell_state(const sm_basin *b, long idx, double *z)
{
    double v[2];
    sm_sweep_grid_values(&b->c.plane, idx, v);
    memcpy(z, b->z_base, b->nf * sizeof *z);
    for (size_t k = 0; k < 2; k++) z[b->c.plane.axis[k].param] = v[k];
}

/* Distance to the nearest orbit point and which one it is. */
static double orbit_distance(const sm_basin *b, const double *z, int *which)
{
    double best = INFINITY;
    *which = -1;
    for (int k = 0; k < b->period; k++) {
        const double *o = &b->orbit_z[(size_t)k * b->nf];
        double d = 0;
        for (size_t i = 0; i < b->nf; i++) d = fmax(d, fabs(z[i] - o[i]));
        if (d < best || *which < 0) {
            best = d;
            *which = k;
        }
    }
    return best;
}

/* The cell whose centre is nearest z on the plane, or -1 off the grid. */
static long cell_of(const sm_basin *b, const double *z)
{
    long idx = 0, stride = 1;
    for (size_t k = 0; k < 2; k++) {
        const sm_sweep_axis *a = &b->c.plane.axis[k];
        const double h = (a->hi - a->lo) / (double)(a->n - 1);
        const double u = (z[a->param] - a->lo) / h;
        if (!(u > -0.5 && u < (double)a->n - 0.5)) return -1;
        long i = lround(u);
        if (i < 0) i = 0;
        if (i >= a->n) i = a->n - 1;
        idx += i * stride;
        stride *= a->n;
    }
    return idx;
}

/* ---- cell mapping: what the unit's walks passed through ---- */

/* ws's memo (made on first use; NULL if there is no memory for one). */
static walk_memo *memo_for(sm_basin *b, const sm_workspace *ws)
{
    walk_memo *w = NULL;
    pthread_mutex_lock(&b->memo_mu);
    for (size_t i = 0; i < b->n_memos && !w; i++)
        if (b->memos[i]->ws == ws) w = b->memos[i];
    if (!w && b->n_memos == b->cap_memos) {
        const size_t cap = b->cap_memos ? 2 * b->cap_memos : 8;
        walk_memo **nm = realloc(b->memos, cap * sizeof *nm);
        if (nm) {
            b->memos = nm;
            b->cap_memos = cap;
        }
    }
    if (!w && b->n_memos < b->cap_memos) {
        w = malloc(sizeof *w);
        if (w) {
            *w = (walk_memo){ws, 0, -1, 0, 0, calloc(MEMO_SLOTS, sizeof(memo_slot)),
                             malloc((size_t)(b->c.max_strides + 1) * sizeof(long))};
            /* generation 0 is never a unit's: every slot starts empty */
        }
        if (w && w->slot && w->path) {
            b->memos[b->n_memos++] = w;
        } else {
            if (w) {
                free(w->slot);
                free(w->path);
            }
            free(w);
            w = NULL;
        }
    }
    pthread_mutex_unlock(&b->memo_mu);
    return w;
}

static memo_slot *memo_probe(walk_memo *w, long cell)
{
    size_t h = (size_t)((unsigned long long)cell * 0x9E3779B97F4A7C15ULL >> 48) & (MEMO_SLOTS - 1);
    for (;; h = (h + 1) & (MEMO_SLOTS - 1))
        if (w->slot[h].gen != w->gen || w->slot[h].cell == cell) return &w->slot[h];
}

static const memo_slot *memo_find(walk_memo *w, long cell)
{
    const memo_slot *sl = memo_probe(w, cell);
    return sl->gen == w->gen ? sl : NULL;
}

/* Marks the cells of a decided walk's path, the first mark of a cell kept. */
static void memo_mark(walk_memo *w, long n_path, const sm_basin_cell *cell, long self)
{
    for (long k = 0; k < n_path && w->n_marked < MEMO_SLOTS / 2; k++) {
        if (w->path[k] < 0) continue;
        memo_slot *sl = memo_probe(w, w->path[k]);
        if (sl->gen == w->gen) continue;
        *sl = (memo_slot){w->gen, w->path[k], cell->strides - k, cell->mapped_from >= 0 ? cell->mapped_from : self,
                          (signed char)cell->outcome, (short)cell->status};
        w->n_marked++;
    }
}

/* The walk from z0; with a memo, it stops in a cell an earlier walk of the
 * unit passed through on its way to an end (converged or fell), and its own
 * path is marked once it ends so. */
static void walk(const sm_basin *b, sm_workspace *ws, const double *z0, walk_memo *memo, long self,
                 sm_basin_cell *out)
{
    const sm_model *m = b->m;
    double x[SM_MAX_STATE], x_next[SM_MAX_STATE], z[SM_MAX_STATE];
    *out = (sm_basin_cell){SM_BASIN_UNDECIDED, SM_OK, 0, -1, -1, NAN};
    memcpy(z, z0, b->nf * sizeof *z);
    sm_model_lift(m, b->c.params, z, x);
    long n_path = 0;
    for (long s = 0;; s++) {
        int which;
        const double d = orbit_distance(b, z, &which);
        out->distance = d;
        out->strides = s;
        if (d <= b->c.tol) {
            out->outcome = SM_BASIN_CONVERGED;
            out->orbit_point = which;
            break;
        }
        if (memo) {
            const long j = cell_of(b, z);
            const memo_slot *sl = j >= 0 ? memo_find(memo, j) : NULL;
            if (sl && s + sl->to_go <= b->c.max_strides) {
                out->outcome = (sm_basin_outcome)sl->outcome;
                out->status = (sm_status)sl->status;
                out->strides = s + sl->to_go;
                out->mapped_from = sl->source;
                break;
            }
            memo->path[n_path++] = j;
        }
        if (s == b->c.max_strides) return; /* undecided: nothing to remember */
        const sm_status st = sm_stride(ws, b->c.params, x, x_next, NULL, NULL);
        if (st != SM_OK) {
            out->status = st;
            out->outcome = sm_status_kind(st) == SM_KIND_WALKER ? SM_BASIN_FELL : SM_BASIN_FAILED;
            out->distance = NAN;
            if (out->outcome == SM_BASIN_FAILED) return;
            break;
        }
        memcpy(x, x_next, b->ns * sizeof *x);
        sm_model_free(m, x, z);
    }
    if (memo) memo_mark(memo, n_path, out, self);
}

void sm_basin_walk(const sm_basin *b, sm_workspace *ws, const double *z, sm_basin_cell *out)
{
    walk(b, ws, z, NULL, -1, out);
}

void sm_basin_cell_run(sm_basin *b, sm_workspace *ws, long idx, long unit_first, sm_basin_cell *out)
{
    double z[SM_MAX_STATE];
    walk_memo *w = b->map_used ? memo_for(b, ws) : NULL;
    if (w && (w->unit_first != unit_first || w->next > idx)) {
        w->gen++;
        w->unit_first = w->next = unit_first;
        w->n_marked = 0;
    }
    /* Cells of the unit this worker has not walked (read back on resume) are
     * walked first, so the memo is the one an unbroken run had here. */
    for (; w && w->next < idx; w->next++) {
        sm_basin_cell_state(b, w->next, z);
        walk(b, ws, z, w, w->next, out);
    }
    sm_basin_cell_state(b, idx, z);
    walk(b, ws, z, w, idx, out);
    if (w) w->next = idx + 1;
}

const sm_sweep_task *sm_basin_task(sm_basin *b) { return &b->task; }

/* ---- the sweep task: rows ---- */

static size_t task_header(void *ctx, char *buf, size_t len)
{
    const sm_basin *b = ctx;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "index,%s,%s,outcome,status,strides,mapped_from,orbit_point,distance,wall_s\n",
              b->c.plane.axis[0].name, b->c.plane.axis[1].name);
    return o.ok ? o.pos : 0;
}

static size_t task_signature(void *ctx, char *buf, size_t len)
{
    const sm_basin *b = ctx;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "basin.max_strides\t%ld\nbasin.tol\t%.17g\nbasin.cell_map\t%d\n", b->c.max_strides, b->c.tol,
              b->c.cell_map);
    for (size_t k = 0; k < b->nf; k++) sweep_put(&o, "basin.fix[%zu]\t%.17g\n", k, b->c.fix[k]);
    return o.ok ? o.pos : 0;
}

static bool status_named(const char *s, size_t len, int *out)
{
    for (int k = 0; k < SM_STATUS_COUNT; k++) {
        const char *n = sm_status_name((sm_status)k);
        if (strlen(n) == len && strncmp(n, s, len) == 0) {
            *out = k;
            return true;
        }
    }
    return false;
}

static bool task_load_row(void *ctx, const char *line, size_t len, long *index)
{
    sm_basin *b = ctx;
    const char *f[10];
    size_t fl[10], n = 0;
    for (const char *p = line, *end = line + len; n < 10; n++) {
        const char *q = memchr(p, ',', (size_t)(end - p));
        f[n] = p;
        fl[n] = (size_t)((q ? q : end) - p);
        if (!q) {
            n++;
            break;
        }
        p = q + 1;
    }
    if (n != 10 || f[9] + fl[9] != line + len) return false;
    char num[32];
    char *e;
    if (fl[0] == 0 || fl[0] >= sizeof num || fl[5] == 0 || fl[5] >= sizeof num) return false;
    memcpy(num, f[0], fl[0]);
    num[fl[0]] = '\0';
    const long idx = strtol(num, &e, 10);
    if (*e || idx < 0 || idx >= b->cells) return false;
    memcpy(num, f[5], fl[5]);
    num[fl[5]] = '\0';
    const long strides = strtol(num, &e, 10);
    if (*e || strides < 0) return false;
    int outcome = -1, status;
    for (int k = 0; k < 4; k++)
        if (strlen(outcome_names[k]) == fl[3] && strncmp(outcome_names[k], f[3], fl[3]) == 0) outcome = k;
    if (outcome < 0 || !status_named(f[4], fl[4], &status)) return false;
    *index = idx;
    return true;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t task_point(void *ctx, sm_workspace *ws, long idx, long unit_first, char *buf, size_t len, bool *failed)
{
    sm_basin *b = ctx;
    const double t0 = now_seconds();
    sm_basin_cell cell;
    sm_basin_cell_run(b, ws, idx, unit_first, &cell);
    double v[2];
    sm_sweep_grid_values(&b->c.plane, idx, v);
    *failed = cell.outcome != SM_BASIN_CONVERGED;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "%ld,%.17g,%.17g,%s,%s,%ld,%ld,%d,%.17g,%.6f\n", idx, v[0], v[1], sm_basin_outcome_name(cell.outcome),
              sm_status_name(cell.status), cell.strides, cell.mapped_from, cell.orbit_point, cell.distance,
              now_seconds() - t0);
    return o.ok ? o.pos : 0;
}
