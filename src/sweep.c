/* The sweep driver: a pool of worker threads, one workspace each, taking
 * whole grid lines from a queue; a spine of line starts solved in order;
 * rows appended with one write() each.
 *
 * Durability: every row reaches the kernel with a single write() on an
 * O_APPEND descriptor as soon as its point is done, so it survives SIGINT,
 * SIGTERM and kill -9 of the process.  The file is fsync'ed every
 * SWEEP_FSYNC_SECONDS and at the end, which bounds what a crash of the
 * whole node (or a power cut) can take to the last few seconds of rows; a
 * row cut short by such a crash is found and redone on resume. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sweep_internal.h"

#define SWEEP_FSYNC_SECONDS 10.0
#define SWEEP_ROW_MAX 16384

struct sm_sweep {
    sm_sweep_config c;
    sweep_layout lay;
    long total, lines, n0;
    long seg_len, n_seg, units; /* a unit of work: segment seg of line l is unit l * n_seg + seg */
    size_t ns; /* n_state */
    size_t nj; /* n_free * n_free: a seed's Jacobian */

    /* Rows found in dir at open: read-only afterwards. */
    unsigned char *loaded, *loaded_conv; /* [total] */
    double *loaded_x;                    /* [total * ns] */

    /* The spines: the starts of every line's segments, one chain per segment
     * (chain 0 is the spine of line starts), each solved in line order.
     * Element c = seg * lines + l. */
    pthread_mutex_t *chain_mu;  /* [n_seg] */
    atomic_long *chain_n;       /* [n_seg]: chain points known */
    unsigned char *spine_have;  /* [n_seg * lines]: a converged seed exists after that point */
    double *spine_x;            /* [n_seg * lines * ns]: that seed */
    unsigned char *spine_J_state; /* [n_seg * lines]: its Jacobian's (seed_J_state) */
    long *spine_J_idx;          /* [n_seg * lines]: the point whose gait the seed is */
    double *spine_J;            /* [n_seg * lines * nj]: its Jacobian, when known */
    struct sweep_seed *seed_scratch; /* [n_seg]: one chain's seed at work (under its lock) */
    char **spine_row;           /* [n_seg * lines]: its row if it was not loaded (until written) */

    /* The line queue. */
    pthread_mutex_t q_mu;
    pthread_cond_t q_cv;
    long *queue;
    size_t q_head, q_tail, q_cap;
    bool q_closed;

    int fd;
    char path[1024];
    atomic_long written, failed, tickets;
    atomic_bool stopping;
    atomic_int running;
    _Atomic double last_sync;
    long owned, loaded_owned;

    pthread_t *threads;
    int n_threads;
    pthread_mutex_t err_mu;
    sm_status err;
    char err_why[2048];
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void sm_sweep_config_default(sm_sweep_config *c, const sm_model *m)
{
    memset(c, 0, sizeof *c);
    c->model = m;
    sm_model_default_params(m, c->params);
    sm_solver_options_default(&c->solver);
    sm_newton_options_default(&c->newton);
    c->jobs = 1;
    c->shard_k = 0;
    c->shard_n = 1;
}

static void set_error(sm_sweep *s, sm_status st, const char *what)
{
    pthread_mutex_lock(&s->err_mu);
    if (s->err == SM_OK) {
        s->err = st;
        snprintf(s->err_why, sizeof s->err_why, "%s", what);
    }
    pthread_mutex_unlock(&s->err_mu);
    atomic_store(&s->stopping, true);
    pthread_mutex_lock(&s->q_mu);
    pthread_cond_broadcast(&s->q_cv);
    pthread_mutex_unlock(&s->q_mu);
}

static bool stop_requested(sm_sweep *s)
{
    if (atomic_load(&s->stopping)) return true;
    if (s->c.stop && *s->c.stop) {
        atomic_store(&s->stopping, true);
        return true;
    }
    return false;
}

/* ---- seeds ---- */

/* A neighbouring gait as a point's start: its state, and its Jacobian
 * dP^N/dz (the one sm_fixed_point returned there) as Newton's first one.
 * A gait read back from a row has no Jacobian on file: it is computed
 * again when a point starts from it, as sm_fixed_point computed it, so a
 * resumed sweep starts every point as an unbroken one did. */
typedef enum { SEED_J_NONE, SEED_J_KNOWN, SEED_J_TO_COMPUTE } seed_J_state;

typedef struct sweep_seed {
    bool have;
    double x[SM_MAX_STATE];
    seed_J_state J_state;
    long J_idx; /* the point whose gait x is (for SEED_J_TO_COMPUTE) */
    double J[SM_MAX_STATE * SM_MAX_STATE];
} sweep_seed;

static void seed_from_result(const sm_sweep *s, sweep_seed *sd, const sm_fixed_result *r)
{
    sd->have = true;
    memcpy(sd->x, r->x, s->ns * sizeof *sd->x);
    sd->J_state = r->status == SM_OK ? SEED_J_KNOWN : SEED_J_NONE;
    if (sd->J_state == SEED_J_KNOWN) memcpy(sd->J, r->jacobian, s->nj * sizeof *sd->J);
}

static void seed_from_loaded(const sm_sweep *s, sweep_seed *sd, long idx)
{
    sd->have = true;
    memcpy(sd->x, &s->loaded_x[(size_t)idx * s->ns], s->ns * sizeof *sd->x);
    sd->J_state = SEED_J_TO_COMPUTE;
    sd->J_idx = idx;
}

static void seed_store(sm_sweep *s, size_t c, const sweep_seed *sd)
{
    s->spine_have[c] = sd->have;
    if (!sd->have) return;
    memcpy(&s->spine_x[c * s->ns], sd->x, s->ns * sizeof *sd->x);
    s->spine_J_state[c] = (unsigned char)sd->J_state;
    s->spine_J_idx[c] = sd->J_idx;
    if (sd->J_state == SEED_J_KNOWN) memcpy(&s->spine_J[c * s->nj], sd->J, s->nj * sizeof *sd->J);
}

static void seed_load(const sm_sweep *s, size_t c, sweep_seed *sd)
{
    sd->have = s->spine_have[c];
    if (!sd->have) return;
    memcpy(sd->x, &s->spine_x[c * s->ns], s->ns * sizeof *sd->x);
    sd->J_state = (seed_J_state)s->spine_J_state[c];
    sd->J_idx = s->spine_J_idx[c];
    if (sd->J_state == SEED_J_KNOWN) memcpy(sd->J, &s->spine_J[c * s->nj], s->nj * sizeof *sd->J);
}

/* The parameters of point idx. */
static void point_params(const sm_sweep *s, long idx, double *p, double *values)
{
    memcpy(p, s->c.params, s->c.model->n_params * sizeof *p);
    sm_sweep_grid_values(&s->c.grid, idx, values);
    for (size_t k = 0; k < s->c.grid.n_axes; k++) p[s->c.grid.axis[k].param] = values[k];
}

/* The seed's Jacobian, computed first if it came from a row read back;
 * NULL where the gait had none (its stability could not be computed). */
static const double *seed_jacobian(const sm_sweep *s, sm_workspace *ws, sweep_seed *sd)
{
    if (sd->J_state == SEED_J_TO_COMPUTE) {
        double p[SM_MAX_PARAMS], values[SM_SWEEP_MAX_AXES];
        point_params(s, sd->J_idx, p, values);
        static const sm_gait blank;
        sm_gait g = blank;
        g.period = g.minimal_period = s->c.newton.period;
        g.n_state = s->ns;
        g.n_free = s->c.model->n_free;
        memcpy(g.x, sd->x, s->ns * sizeof *g.x);
        long evals = 0;
        const double h = sm_stability_fd_step(s->c.newton.fd_step, s->c.solver.rtol);
        sd->J_state = sm_gait_analyse(ws, p, h, &g, &evals) == SM_OK ? SEED_J_KNOWN : SEED_J_NONE;
        if (sd->J_state == SEED_J_KNOWN) memcpy(sd->J, g.jacobian, s->nj * sizeof *sd->J);
    }
    return sd->J_state == SEED_J_KNOWN ? sd->J : NULL;
}

/* ---- solving one point ---- */

static void solve_point(sm_sweep *s, sm_workspace *ws, long idx, sweep_seed *seed, sm_sweep_point *pt)
{
    const sm_model *m = s->c.model;
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    memset(pt, 0, sizeof *pt);
    pt->index = idx;
    point_params(s, idx, p, pt->values);

    const double t0 = now_seconds();
    char why[256];
    if (sm_model_check_params(m, p, why, sizeof why) != SM_OK) {
        /* A corner of the grid the model does not admit: a row that says so. */
        pt->r.status = SM_BAD_PARAM;
        pt->r.stride_status = SM_OK;
        pt->r.residual = INFINITY;
        pt->r.max_abs_eig = NAN;
        pt->r.n_state = m->n_state;
        pt->r.n_free = m->n_free;
        for (size_t i = 0; i < m->n_state; i++) pt->r.x[i] = NAN;
        pt->seed = SM_SEED_GUESS;
        pt->wall = now_seconds() - t0;
        return;
    }
    const bool seeded = seed && seed->have;
    if (seeded) {
        pt->seed = SM_SEED_NEIGHBOUR;
        sm_newton_options no = s->c.newton;
        no.jacobian_guess = seed_jacobian(s, ws, seed);
        sm_fixed_point(ws, p, seed->x, &no, &pt->r);
    }
    if (!seeded || !pt->r.converged) {
        pt->seed = seeded ? SM_SEED_GUESS_RETRY : SM_SEED_GUESS;
        if (s->c.have_guess)
            memcpy(x0, s->c.guess, m->n_state * sizeof *x0);
        else
            m->guess(x0, p, m->data);
        sm_fixed_point(ws, p, x0, &s->c.newton, &pt->r);
    }
    pt->wall = now_seconds() - t0;
}

/* ---- writing rows ---- */

static void maybe_sync(sm_sweep *s)
{
    double t = now_seconds(), last = atomic_load(&s->last_sync);
    if (t - last < SWEEP_FSYNC_SECONDS) return;
    if (atomic_compare_exchange_strong(&s->last_sync, &last, t)) fsync(s->fd);
}

/* Writes one whole row; false if it was not written (stop, or an error). */
static bool write_row(sm_sweep *s, const char *row, size_t len, bool failed)
{
    if (s->c.stop_after > 0) {
        long ticket = atomic_fetch_add(&s->tickets, 1);
        if (ticket >= s->c.stop_after) {
            atomic_store(&s->stopping, true);
            return false;
        }
    }
    ssize_t n;
    do n = write(s->fd, row, len);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len) {
        char what[2048];
        snprintf(what, sizeof what, "cannot write '%s': %s", s->path,
                 n < 0 ? strerror(errno) : "short write (disk full?)");
        set_error(s, SM_IO_ERROR, what);
        return false;
    }
    atomic_fetch_add(&s->written, 1);
    if (failed) atomic_fetch_add(&s->failed, 1);
    maybe_sync(s);
    return true;
}

static size_t format_row(sm_sweep *s, const sm_sweep_point *pt, char *buf, size_t len)
{
    size_t n = sm_sweep_csv_row(s->c.model, &s->c.grid, pt, buf, len);
    if (n == 0) set_error(s, SM_IO_ERROR, "a row did not fit the row buffer");
    return n;
}

static bool is_failure(const sm_sweep_point *pt)
{
    sm_sweep_outcome o = sm_sweep_point_outcome(pt);
    return o != SM_OUTCOME_STABLE && o != SM_OUTCOME_UNSTABLE;
}

/* ---- the spine ---- */

/* The spine point whose seed spine point j starts from: the one before it
 * along the second axis, or at the start of a row the first point of the
 * previous row along the next axis that moved (never a jump across a whole
 * plane); -1 for the first. */
static long spine_predecessor(const sm_sweep *s, long j)
{
    long stride = 1, rest = j;
    for (size_t k = 1; k < s->c.grid.n_axes; k++) {
        const long n = s->c.grid.axis[k].n;
        if (rest % n > 0) return j - stride;
        rest /= n;
        stride *= n;
    }
    return -1;
}

/* Makes sure points 0..l of chain seg are known; false if stopped first.
 * A chain's first point starts from the previous chain's first point (seg_len
 * points before it on line 0), the others like the spine.  The lock is taken
 * for one point at a time, so a worker waiting for an early point goes on
 * as soon as that point is known, whoever solved it. */
static bool ensure_chain(sm_sweep *s, sm_workspace *ws, long seg, long l, sm_sweep_point *pt, char *row)
{
    if (seg > 0 && atomic_load(&s->chain_n[seg]) == 0 && !ensure_chain(s, ws, seg - 1, 0, pt, row)) return false;
    const size_t c0 = (size_t)(seg * s->lines);
    while (atomic_load(&s->chain_n[seg]) <= l) {
        pthread_mutex_lock(&s->chain_mu[seg]);
        const long j = atomic_load(&s->chain_n[seg]);
        if (j > l) {
            pthread_mutex_unlock(&s->chain_mu[seg]);
            break;
        }
        const long idx = j * s->n0 + seg * s->seg_len;
        const long from = spine_predecessor(s, j);
        /* The element whose seed this one takes, in the chain arrays. */
        const long fc = from >= 0 ? (long)c0 + from : seg > 0 ? (seg - 1) * s->lines : -1;
        /* The seed after this point: its own gait if it has one, else the one it was given. */
        sweep_seed *sd = &s->seed_scratch[seg];
        sd->have = false;
        if (fc >= 0) seed_load(s, (size_t)fc, sd);
        if (s->loaded[idx]) {
            if (s->loaded_conv[idx]) seed_from_loaded(s, sd, idx);
        } else {
            if (stop_requested(s)) {
                pthread_mutex_unlock(&s->chain_mu[seg]);
                return false;
            }
            solve_point(s, ws, idx, sd, pt);
            /* Kept until its unit is written; a line of another shard only needs the seed. */
            if (s->c.external_lines || sm_sweep_owns_line(&s->c, j)) {
                size_t n = format_row(s, pt, row, SWEEP_ROW_MAX);
                if (n == 0 || !(s->spine_row[c0 + (size_t)j] = strndup(row, n))) {
                    pthread_mutex_unlock(&s->chain_mu[seg]);
                    if (n) set_error(s, SM_NO_MEMORY, "out of memory");
                    return false;
                }
            }
            if (pt->r.converged) seed_from_result(s, sd, &pt->r);
        }
        seed_store(s, c0 + (size_t)j, sd);
        atomic_store(&s->chain_n[seg], j + 1);
        pthread_mutex_unlock(&s->chain_mu[seg]);
    }
    return true;
}

/* ---- lines ---- */

/* The first and one-past-last point index of unit u. */
static void unit_span(const sm_sweep *s, long u, long *first, long *end)
{
    const long l = u / s->n_seg, seg = u % s->n_seg;
    *first = l * s->n0 + seg * s->seg_len;
    *end = seg * s->seg_len + s->seg_len < s->n0 ? *first + s->seg_len : (l + 1) * s->n0;
}

long sm_sweep_units(const sm_sweep *s) { return s->units; }

bool sm_sweep_unit_done(const sm_sweep *s, long u)
{
    long first, end;
    unit_span(s, u, &first, &end);
    for (long i = first; i < end; i++)
        if (!s->loaded[i]) return false;
    return true;
}

/* A task's unit: its points in order, each on its own (sm_sweep_task). */
static void process_task_unit(sm_sweep *s, sm_workspace *ws, long u, char *row)
{
    const sm_sweep_task *t = s->c.task;
    long first, end;
    unit_span(s, u, &first, &end);
    for (long idx = first; idx < end; idx++) {
        if (s->loaded[idx]) continue;
        if (stop_requested(s)) return;
        bool failed = false;
        size_t n = t->point(t->ctx, ws, idx, first, row, SWEEP_ROW_MAX, &failed);
        if (n == 0) set_error(s, SM_IO_ERROR, "a row did not fit the row buffer");
        if (n == 0 || !write_row(s, row, n, failed)) return;
    }
}

static void process_unit(sm_sweep *s, sm_workspace *ws, long u, sm_sweep_point *pt, char *row, sweep_seed *carry)
{
    if (s->c.task) {
        process_task_unit(s, ws, u, row);
        return;
    }
    const long l = u / s->n_seg, seg = u % s->n_seg;
    if (!ensure_chain(s, ws, seg, l, pt, row)) return;
    const size_t c = (size_t)(seg * s->lines + l);
    long base, end;
    unit_span(s, u, &base, &end);
    seed_load(s, c, carry);
    if (!s->loaded[base]) {
        /* The chain point's row, solved earlier; failure as recorded there. */
        const char *r = s->spine_row[c];
        const char *oc = strchr(r, ',');
        for (size_t k = 0; oc && k < s->c.grid.n_axes; k++) oc = strchr(oc + 1, ',');
        bool failed = oc && strncmp(oc + 1, "stable,", 7) != 0 && strncmp(oc + 1, "unstable,", 9) != 0;
        bool ok = write_row(s, r, strlen(r), failed);
        free(s->spine_row[c]); /* only this worker has unit u */
        s->spine_row[c] = NULL;
        if (!ok) return;
    }
    for (long idx = base + 1; idx < end; idx++) {
        if (s->loaded[idx]) {
            if (s->loaded_conv[idx]) seed_from_loaded(s, carry, idx);
            continue;
        }
        if (stop_requested(s)) return;
        solve_point(s, ws, idx, carry, pt);
        size_t n = format_row(s, pt, row, SWEEP_ROW_MAX);
        if (n == 0 || !write_row(s, row, n, is_failure(pt))) return;
        if (pt->r.converged) seed_from_result(s, carry, &pt->r);
    }
}

static long pop_unit(sm_sweep *s)
{
    pthread_mutex_lock(&s->q_mu);
    while (s->q_head == s->q_tail && !s->q_closed && !atomic_load(&s->stopping))
        pthread_cond_wait(&s->q_cv, &s->q_mu);
    long l = -1;
    if (s->q_head != s->q_tail) l = s->queue[s->q_head++ % s->q_cap];
    pthread_mutex_unlock(&s->q_mu);
    return l;
}

void sm_sweep_push_unit(sm_sweep *s, long l)
{
    pthread_mutex_lock(&s->q_mu);
    if (s->q_tail - s->q_head < s->q_cap) {
        s->queue[s->q_tail++ % s->q_cap] = l;
        pthread_cond_signal(&s->q_cv);
    }
    pthread_mutex_unlock(&s->q_mu);
}

void sm_sweep_close_units(sm_sweep *s)
{
    pthread_mutex_lock(&s->q_mu);
    s->q_closed = true;
    pthread_cond_broadcast(&s->q_cv);
    pthread_mutex_unlock(&s->q_mu);
}

long sm_sweep_queued_units(sm_sweep *s)
{
    pthread_mutex_lock(&s->q_mu);
    long n = (long)(s->q_tail - s->q_head);
    pthread_mutex_unlock(&s->q_mu);
    return n;
}

static void *worker(void *arg)
{
    sm_sweep *s = arg;
    sm_workspace *ws = NULL;
    sm_sweep_point *pt = malloc(sizeof *pt);
    char *row = malloc(SWEEP_ROW_MAX);
    sweep_seed *carry = malloc(sizeof *carry);
    sm_status st = pt && row && carry ? sm_workspace_create(s->c.model, &s->c.solver, &ws) : SM_NO_MEMORY;
    if (st != SM_OK) {
        set_error(s, st, "cannot set up a worker's integrator");
    } else {
        for (long u; !stop_requested(s) && (u = pop_unit(s)) >= 0;) process_unit(s, ws, u, pt, row, carry);
    }
    sm_workspace_free(ws);
    free(pt);
    free(row);
    free(carry);
    if (atomic_fetch_sub(&s->running, 1) == 1) {
        /* The last worker out wakes nobody; waiters use join. */
    }
    return NULL;
}

/* ---- open, start, wait ---- */

static sm_status fail(char *why, size_t why_len, sm_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static sm_status fail(char *why, size_t why_len, sm_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return st;
}

/* Proves dir writable with room to spare before any work. */
static sm_status probe_dir(const char *dir, const char *tag, char *why, size_t why_len)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return fail(why, why_len, SM_IO_ERROR, "cannot create directory '%s': %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return fail(why, why_len, SM_IO_ERROR, "'%s' is not a directory", dir);
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.probe-%s-%ld", dir, tag, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return fail(why, why_len, SM_IO_ERROR, "cannot write in '%s': %s", dir, strerror(errno));
    static const char bytes[4096];
    int e = 0;
    /* About a megabyte: a sweep's rows for the next while, and proof the disk is not full. */
    int rc = posix_fallocate(fd, 0, 1 << 20);
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) e = rc;
    if (!e && write(fd, bytes, sizeof bytes) != (ssize_t)sizeof bytes) e = errno ? errno : ENOSPC;
    if (!e && fsync(fd) != 0) e = errno;
    close(fd);
    unlink(probe);
    if (e) return fail(why, why_len, SM_IO_ERROR, "cannot write in '%s': %s", dir, strerror(e));
    return SM_OK;
}

/* Reads the rows of one part file; for the own file, cuts a torn tail. */
static sm_status load_part(sm_sweep *s, const char *path, const char *header, size_t header_len,
                           bool own, char *why, size_t why_len)
{
    size_t len = 0;
    char *buf = sweep_read_file(path, &len);
    if (!buf) return fail(why, why_len, SM_IO_ERROR, "cannot read '%s': %s", path, strerror(errno));
    sm_status st = SM_OK;
    size_t good = 0; /* bytes up to the end of the last complete line */
    const size_t hl = sweep_csv_header_len(buf, len);
    if (hl > 0) {
        char *nl = buf + hl - 1;
        if (hl != header_len || memcmp(buf, header, hl) != 0) {
            st = fail(why, why_len, SM_BAD_OPTION,
                      "'%s' holds another sweep (other columns); use another directory", path);
            goto done;
        }
        good = hl;
        double x[SM_MAX_STATE];
        for (char *p = nl + 1; p < buf + len;) {
            char *e = memchr(p, '\n', (size_t)(buf + len - p));
            if (!e) break;
            long idx;
            bool conv;
            const sm_sweep_task *t = s->c.task;
            conv = false;
            if (t ? t->load_row(t->ctx, p, (size_t)(e - p), &idx) && idx >= 0 && idx < s->total && !s->loaded[idx]
                  : sweep_csv_parse_row(&s->lay, s->ns, p, (size_t)(e - p), &idx, &conv, x) && idx < s->total &&
                        !s->loaded[idx]) {
                s->loaded[idx] = 1;
                s->loaded_conv[idx] = conv;
                if (!t) memcpy(&s->loaded_x[(size_t)idx * s->ns], x, s->ns * sizeof *x);
            }
            p = e + 1;
            good = (size_t)(p - buf);
        }
    }
    if (own && good != len && truncate(path, (off_t)good) != 0)
        st = fail(why, why_len, SM_IO_ERROR, "cannot cut the torn last line of '%s': %s", path, strerror(errno));
done:
    free(buf);
    return st;
}

sm_status sm_sweep_open(const sm_sweep_config *c, const char *dir, const char *tag, bool resume,
                        sm_sweep **out, char *why, size_t why_len)
{
    *out = NULL;
    if (c->grid.n_axes == 0) return fail(why, why_len, SM_BAD_OPTION, "a sweep needs at least one axis in sm_sweep_config.grid");
    if (c->jobs < 1 || c->jobs > 1024)
        return fail(why, why_len, SM_BAD_OPTION, "sm_sweep_config.jobs must be from 1 to 1024");
    if (c->shard_n < 1 || c->shard_k < 0 || c->shard_k >= c->shard_n)
        return fail(why, why_len, SM_BAD_OPTION, "sm_sweep_config.shard_k/shard_n needs 0 <= K < N");
    sm_status st = probe_dir(dir, tag, why, why_len);
    if (st != SM_OK) return st;

    sm_sweep *s = calloc(1, sizeof *s);
    if (!s) return SM_NO_MEMORY;
    s->c = *c;
    s->fd = -1;
    s->ns = c->model->n_state;
    s->total = sm_sweep_grid_points(&c->grid);
    s->lines = sm_sweep_grid_lines(&c->grid);
    s->n0 = c->grid.axis[0].n;
    s->seg_len = c->segment > 0 && c->segment < s->n0 ? c->segment : s->n0;
    s->n_seg = (s->n0 + s->seg_len - 1) / s->seg_len;
    s->units = s->lines * s->n_seg;
    sweep_csv_layout(c->model, &c->grid, &s->lay);
    pthread_mutex_init(&s->q_mu, NULL);
    pthread_cond_init(&s->q_cv, NULL);
    pthread_mutex_init(&s->err_mu, NULL);
    atomic_init(&s->last_sync, now_seconds());
    s->loaded = calloc((size_t)s->total, 1);
    s->loaded_conv = calloc((size_t)s->total, 1);
    s->loaded_x = calloc((size_t)s->total * s->ns, sizeof(double));
    s->chain_mu = calloc((size_t)s->n_seg, sizeof *s->chain_mu);
    s->chain_n = calloc((size_t)s->n_seg, sizeof *s->chain_n);
    for (long k = 0; s->chain_mu && s->chain_n && k < s->n_seg; k++) {
        pthread_mutex_init(&s->chain_mu[k], NULL);
        atomic_init(&s->chain_n[k], 0);
    }
    s->spine_have = calloc((size_t)s->units, 1);
    s->spine_x = calloc((size_t)s->units * s->ns, sizeof(double));
    s->spine_row = calloc((size_t)s->units, sizeof(char *));
    s->nj = c->model->n_free * c->model->n_free;
    s->spine_J_state = calloc((size_t)s->units, 1);
    s->spine_J_idx = calloc((size_t)s->units, sizeof(long));
    s->spine_J = calloc((size_t)s->units * s->nj, sizeof(double));
    s->seed_scratch = calloc((size_t)s->n_seg, sizeof *s->seed_scratch);
    s->q_cap = (size_t)s->units + 1;
    s->queue = calloc(s->q_cap, sizeof(long));
    char header[SWEEP_ROW_MAX];
    size_t header_len = c->task ? c->task->header(c->task->ctx, header, sizeof header)
                                : sm_sweep_csv_header(c->model, &c->grid, header, sizeof header);
    if (!s->loaded || !s->loaded_conv || !s->loaded_x || !s->chain_mu || !s->chain_n || !s->spine_have ||
        !s->spine_x || !s->spine_row || !s->spine_J_state || !s->spine_J_idx || !s->spine_J || !s->seed_scratch ||
        !s->queue || header_len == 0) {
        sm_sweep_free(s);
        return fail(why, why_len, SM_NO_MEMORY, "out of memory for a grid of this size");
    }
    if (strlen(dir) + strlen(tag) + 16 > sizeof s->path) {
        sm_sweep_free(s);
        return fail(why, why_len, SM_BAD_OPTION, "the directory name '%s' is too long", dir);
    }
    snprintf(s->path, sizeof s->path, "%s/part-%s.csv", dir, tag);

    /* One writer per part file, for the whole run: a second run of the same
     * command (resuming or not) would compute the same points again
     * and interleave its rows with the first one's.  The lock is per part
     * file, not per directory, because the shards of a job array and the MPI
     * ranks share DIR with a part file each.  Taken before anything is read,
     * so the rows loaded to resume cannot grow behind our back. */
    s->fd = open(s->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (s->fd < 0) {
        fail(why, why_len, SM_IO_ERROR, "cannot open '%s': %s", s->path, strerror(errno));
        sm_sweep_free(s);
        return SM_IO_ERROR;
    }
    int lk;
    do lk = flock(s->fd, LOCK_EX | LOCK_NB);
    while (lk != 0 && errno == EINTR);
    /* Filesystems without flock (Lustre mounted without it, some FUSE) give
     * ENOLCK or ENOSYS: such a run goes on unguarded rather than not at all. */
    if (lk != 0 && errno != ENOLCK && errno != ENOSYS && errno != EOPNOTSUPP) {
        const int e = errno;
        sm_sweep_free(s);
        if (e == EWOULDBLOCK)
            return fail(why, why_len, SM_IO_ERROR,
                        "'%s' is in use: another sweep is writing '%s/part-%s.csv' now; wait for it to "
                        "end (then open it with resume = true if it stopped early), or use another directory",
                        dir, dir, tag);
        return fail(why, why_len, SM_IO_ERROR, "cannot lock '%s/part-%s.csv': %s", dir, tag, strerror(e));
    }
    struct stat sb;
    if (fstat(s->fd, &sb) != 0) {
        fail(why, why_len, SM_IO_ERROR, "cannot open '%s': %s", s->path, strerror(errno));
        sm_sweep_free(s);
        return SM_IO_ERROR;
    }
    if (sb.st_size > 0 && !resume) {
        sm_sweep_free(s);
        return fail(why, why_len, SM_BAD_OPTION,
                    "'%s' already exists: open it with resume = true to finish that sweep, or use another directory",
                    dir);
    }
    /* The same sweep, not just the same columns: another rtol or start
     * guess would mix rows of two computations. */
    /* on the heap: a model of SM_MAX_PARAMS parameters (human9 has 250)
     * and SM_MAX_STATE guesses writes tens of kilobytes */
    char *sig = malloc(SWEEP_SIG_MAX), sig_path[4200];
    const size_t sig_len = sig ? sweep_signature(c, sig, SWEEP_SIG_MAX) : 0;
    snprintf(sig_path, sizeof sig_path, "%s/part-%s.sig", dir, tag);
    if (sig_len == 0) {
        free(sig);
        sm_sweep_free(s);
        return fail(why, why_len, SM_BAD_OPTION, "the sweep's settings are too long to record");
    }
    sm_status sst = sweep_signature_check(dir, sig, why, why_len);
    if (sst == SM_OK) sst = sweep_signature_write(sig_path, sig, sig_len, why, why_len);
    free(sig);
    if (sst != SM_OK) {
        sm_sweep_free(s);
        return sst;
    }
    size_t n_parts = 0;
    char **parts = sm_sweep_list_parts(dir, ".csv", &n_parts);
    for (size_t i = 0; parts && i < n_parts; i++) {
        if (st == SM_OK)
            st = load_part(s, parts[i], header, header_len, strcmp(parts[i], s->path) == 0, why, why_len);
        free(parts[i]);
    }
    free(parts);
    if (st != SM_OK) {
        sm_sweep_free(s);
        return st;
    }

    if (fstat(s->fd, &sb) != 0) {
        fail(why, why_len, SM_IO_ERROR, "cannot open '%s': %s", s->path, strerror(errno));
        sm_sweep_free(s);
        return SM_IO_ERROR;
    }
    if (sb.st_size == 0 && write(s->fd, header, header_len) != (ssize_t)header_len) {
        fail(why, why_len, SM_IO_ERROR, "cannot write '%s': %s", s->path, strerror(errno));
        sm_sweep_free(s);
        return SM_IO_ERROR;
    }
    for (long l = 0; l < s->lines; l++) {
        if (!c->external_lines && !sm_sweep_owns_line(c, l)) continue;
        s->owned += s->n0;
        for (long i = 0; i < s->n0; i++) s->loaded_owned += s->loaded[l * s->n0 + i];
    }
    *out = s;
    return SM_OK;
}

sm_status sm_sweep_start(sm_sweep *s, char *why, size_t why_len)
{
    if (!s->c.external_lines) {
        for (long u = 0; u < s->units; u++)
            if (sm_sweep_owns_line(&s->c, u / s->n_seg) && !sm_sweep_unit_done(s, u)) sm_sweep_push_unit(s, u);
        sm_sweep_close_units(s);
    }
    s->threads = calloc((size_t)s->c.jobs, sizeof *s->threads);
    if (!s->threads) return fail(why, why_len, SM_NO_MEMORY, "out of memory");
    atomic_store(&s->running, s->c.jobs);
    for (int i = 0; i < s->c.jobs; i++) {
        if (pthread_create(&s->threads[i], NULL, worker, s) != 0) {
            atomic_fetch_sub(&s->running, s->c.jobs - i);
            set_error(s, SM_NO_MEMORY, "cannot start a worker thread");
            sm_sweep_close_units(s);
            break;
        }
        s->n_threads++;
    }
    return SM_OK;
}

void sm_sweep_stats_get(sm_sweep *s, sm_sweep_stats *st)
{
    st->total = s->total;
    st->owned = s->owned;
    st->loaded = s->loaded_owned;
    st->written = atomic_load(&s->written);
    st->failed = atomic_load(&s->failed);
    st->spine = s->chain_n ? atomic_load(&s->chain_n[0]) : 0;
    st->finished = atomic_load(&s->running) == 0;
    st->stopped = atomic_load(&s->stopping);
}

sm_status sm_sweep_wait(sm_sweep *s, char *why, size_t why_len)
{
    for (int i = 0; i < s->n_threads; i++) pthread_join(s->threads[i], NULL);
    s->n_threads = 0;
    if (s->fd >= 0 && fsync(s->fd) != 0 && errno != EINVAL && s->err == SM_OK) {
        s->err = SM_IO_ERROR;
        snprintf(s->err_why, sizeof s->err_why, "cannot write '%s': %s", s->path, strerror(errno));
    }
    if (s->err != SM_OK) snprintf(why, why_len, "%s", s->err_why);
    return s->err;
}

void sm_sweep_free(sm_sweep *s)
{
    if (!s) return;
    if (s->n_threads) {
        atomic_store(&s->stopping, true);
        sm_sweep_close_units(s);
        char why[8];
        sm_sweep_wait(s, why, sizeof why);
    }
    if (s->fd >= 0) close(s->fd);
    for (long u = 0; s->spine_row && u < s->units; u++) free(s->spine_row[u]);
    free(s->spine_row);
    free(s->spine_have);
    free(s->spine_x);
    free(s->spine_J_state);
    free(s->spine_J_idx);
    free(s->spine_J);
    free(s->seed_scratch);
    free(s->loaded);
    free(s->loaded_conv);
    free(s->loaded_x);
    free(s->queue);
    free(s->threads);
    for (long k = 0; s->chain_mu && k < s->n_seg; k++) pthread_mutex_destroy(&s->chain_mu[k]);
    free(s->chain_mu);
    free((void *)s->chain_n);
    pthread_mutex_destroy(&s->q_mu);
    pthread_cond_destroy(&s->q_cv);
    pthread_mutex_destroy(&s->err_mu);
    free(s);
}
