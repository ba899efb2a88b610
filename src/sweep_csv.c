/* The sweep's CSV: one column table, rows written whole, rows read back for
 * a resume, part files merged into one sorted table. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep_internal.h"

/* The gait measures come from stride.h's one table (sm_metric_fields), under
 * its output names, so a measure added there is a column here. */
#define N_METRICS sm_metric_field_count

static const char *const outcome_names[] = {"stable", "unstable", "fell", "not_converged",
                                            "no_stability", "degenerate"};
static const char *const seed_names[] = {"guess", "neighbour", "guess_retry"};

const char *sm_sweep_outcome_name(sm_sweep_outcome o) { return outcome_names[o]; }

sm_sweep_outcome sm_sweep_point_outcome(const sm_sweep_point *pt)
{
    const sm_fixed_result *r = &pt->r;
    if (r->converged && r->status == SM_OK) return r->stable ? SM_OUTCOME_STABLE : SM_OUTCOME_UNSTABLE;
    if (r->converged) return SM_OUTCOME_NO_STABILITY;
    if (r->status == SM_DEGENERATE_GAIT) return SM_OUTCOME_DEGENERATE;
    /* Stalled near the integration error: a gait may well be there, so the
     * strides that fell while Newton searched do not make it a fall. */
    if (r->status == SM_STALLED) return SM_OUTCOME_NOT_CONVERGED;
    if (sm_status_kind(r->status) == SM_KIND_WALKER || sm_status_kind(r->stride_status) == SM_KIND_WALKER)
        return SM_OUTCOME_FELL;
    return SM_OUTCOME_NOT_CONVERGED;
}

void sweep_put(sweep_out *o, const char *fmt, ...)
{
    if (!o->ok) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->len - o->pos) {
        o->ok = false;
        return;
    }
    o->pos += (size_t)n;
}

/* %.17g round-trips every double, so a row read back seeds exactly as the
 * point it came from did. */
static void put_num(sweep_out *o, double v) { sweep_put(o, ",%.17g", v); }

/* ",PREFIXNAME" as one RFC 4180 field: names come from model files, and a
 * comma, quote or line break in one would otherwise shift every column
 * after it. */
static void put_name(sweep_out *o, const char *prefix, const char *name)
{
    if (strpbrk(name, ",\"\r\n") == NULL) {
        sweep_put(o, ",%s%s", prefix, name);
        return;
    }
    sweep_put(o, ",\"%s", prefix);
    for (const char *c = name; *c; c++) {
        if (*c == '"')
            sweep_put(o, "\"\"");
        else
            sweep_put(o, "%c", *c);
    }
    sweep_put(o, "\"");
}

size_t sweep_csv_header_len(const char *buf, size_t len)
{
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '"') quoted = !quoted; /* a doubled quote toggles twice */
        else if (buf[i] == '\n' && !quoted) return i + 1;
    }
    return 0;
}

size_t sweep_csv_fields(const char *line, size_t len)
{
    size_t n = 1;
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '"') quoted = !quoted;
        else if (line[i] == ',' && !quoted) n++;
    }
    return n;
}

size_t sm_sweep_csv_header(const sm_model *m, const sm_sweep_grid *g, char *buf, size_t len)
{
    sweep_out o = {buf, len, 0, true};
    sweep_put(&o, "index");
    for (size_t k = 0; k < g->n_axes; k++) put_name(&o, "", g->axis[k].name);
    sweep_put(&o, ",outcome,status,stride_status,converged,stable,max_abs_eig");
    for (size_t k = 0; k < m->n_free; k++) sweep_put(&o, ",eig%zu_re,eig%zu_im", k + 1, k + 1);
    sweep_put(&o, ",iterations,residual,stride_evals");
    for (size_t k = 0; k < N_METRICS; k++) sweep_put(&o, ",%s", sm_metric_fields[k].output);
    for (size_t k = 0; k < m->n_state; k++) put_name(&o, "x_", m->state_names[k]);
    sweep_put(&o, ",seed,wall_s,trivial_eig\n");
    return o.ok ? o.pos : 0;
}

size_t sm_sweep_csv_row(const sm_model *m, const sm_sweep_grid *g, const sm_sweep_point *pt, char *buf,
                        size_t len)
{
    const sm_fixed_result *r = &pt->r;
    const bool have_eig = r->converged && r->status == SM_OK;
    sweep_out o = {buf, len, 0, true};
    sweep_put(&o, "%ld", pt->index);
    for (size_t k = 0; k < g->n_axes; k++) put_num(&o, pt->values[k]);
    sweep_put(&o, ",%s,%s,%s,%d,%d", sm_sweep_outcome_name(sm_sweep_point_outcome(pt)),
        sm_status_name(r->status), sm_status_name(r->stride_status), r->converged ? 1 : 0,
        have_eig && r->stable ? 1 : 0);
    put_num(&o, have_eig ? r->max_abs_eig : NAN);
    for (size_t k = 0; k < m->n_free; k++) {
        put_num(&o, have_eig ? r->eig_re[k] : NAN);
        put_num(&o, have_eig ? r->eig_im[k] : NAN);
    }
    sweep_put(&o, ",%d", r->iterations);
    put_num(&o, r->residual);
    sweep_put(&o, ",%ld", r->stride_evals);
    for (size_t k = 0; k < N_METRICS; k++) put_num(&o, r->converged ? sm_metric_value(&r->metrics, k) : NAN);
    for (size_t k = 0; k < m->n_state; k++) put_num(&o, r->x[k]);
    /* Which eigK is 1 by a conservation law (and so left out of max_abs_eig
     * and stable): K, or 0 for none.  Last, so older columns keep their places. */
    const int trivial = have_eig && r->trivial_index >= 0 ? r->trivial_index + 1 : 0;
    sweep_put(&o, ",%s,%.6f,%d\n", seed_names[pt->seed], pt->wall, trivial);
    return o.ok ? o.pos : 0;
}

void sweep_csv_layout(const sm_model *m, const sm_sweep_grid *g, sweep_layout *lay)
{
    lay->col_converged = 1 + g->n_axes + 3;
    lay->col_x = lay->col_converged + 3 + 2 * m->n_free + 3 + N_METRICS;
    lay->n_cols = lay->col_x + m->n_state + 3; /* the state, seed, wall_s, trivial_eig */
}

bool sweep_csv_parse_row(const sweep_layout *lay, size_t n_state, const char *line, size_t len,
                         long *index, bool *converged, double *x)
{
    size_t col = 0;
    const char *p = line, *end = line + len;
    while (p <= end) {
        const char *q = memchr(p, ',', (size_t)(end - p));
        if (!q) q = end;
        char field[64];
        size_t flen = (size_t)(q - p);
        bool wanted = col == 0 || col == lay->col_converged || (col >= lay->col_x && col < lay->col_x + n_state);
        if (wanted) {
            if (flen == 0 || flen >= sizeof field) return false;
            memcpy(field, p, flen);
            field[flen] = '\0';
            char *e = NULL;
            errno = 0;
            if (col == 0) {
                long v = strtol(field, &e, 10);
                if (*e || v < 0 || errno) return false;
                *index = v;
            } else if (col == lay->col_converged) {
                if (strcmp(field, "0") && strcmp(field, "1")) return false;
                *converged = field[0] == '1';
            } else {
                x[col - lay->col_x] = strtod(field, &e);
                if (*e) return false;
            }
        }
        col++;
        p = q + 1;
    }
    return col == lay->n_cols;
}

char *sweep_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            free(buf);
            buf = NULL;
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (!buf) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **sm_sweep_list_parts(const char *dir, const char *suffix, size_t *n)
{
    const size_t sl = strlen(suffix);
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    size_t cap = 16;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "part-", 5) != 0 || l < 6 + sl || strcmp(e->d_name + l - sl, suffix) != 0) continue;
        if (*n == cap) {
            char **nn = realloc(names, 2 * cap * sizeof *names);
            if (!nn) break;
            names = nn;
            cap *= 2;
        }
        size_t plen = strlen(dir) + l + 2;
        names[*n] = malloc(plen);
        if (!names[*n]) break;
        snprintf(names[*n], plen, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    if (names) qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

void sm_sweep_free_list(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
}

typedef struct {
    long index;
    const char *line;
    size_t len; /* with '\n' */
} merge_row;

static int cmp_row(const void *a, const void *b)
{
    const merge_row *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

sm_status sm_sweep_merge(const char *dir, const char *out_path, long total, long *rows, long *missing,
                         char *why, size_t why_len)
{
    *rows = *missing = 0;
    size_t n_parts = 0;
    char **parts = sm_sweep_list_parts(dir, ".csv", &n_parts);
    if (!parts) {
        snprintf(why, why_len, "cannot read directory '%s': %s", dir, strerror(errno));
        return SM_IO_ERROR;
    }
    sm_status st = SM_OK;
    char **bufs = calloc(n_parts ? n_parts : 1, sizeof *bufs);
    merge_row *row = NULL;
    size_t n_rows = 0, cap = 0;
    const char *header = NULL;
    size_t header_len = 0, n_cols = 0;
    FILE *out = NULL;
    char tmp[4096];
    tmp[0] = '\0';
    if (!bufs) {
        st = SM_NO_MEMORY;
        goto done;
    }
    if (n_parts == 0) {
        snprintf(why, why_len, "no part-*.csv files in '%s'", dir);
        st = SM_IO_ERROR;
        goto done;
    }
    for (size_t f = 0; f < n_parts; f++) {
        size_t len = 0;
        bufs[f] = sweep_read_file(parts[f], &len);
        if (!bufs[f]) {
            snprintf(why, why_len, "cannot read '%s': %s", parts[f], strerror(errno));
            st = SM_IO_ERROR;
            goto done;
        }
        size_t hl = sweep_csv_header_len(bufs[f], len);
        if (hl == 0) continue; /* empty, or a torn header */
        char *nl = bufs[f] + hl - 1;
        if (!header) {
            header = bufs[f];
            header_len = hl;
            n_cols = sweep_csv_fields(header, hl - 1);
        } else if (hl != header_len || memcmp(header, bufs[f], hl) != 0) {
            snprintf(why, why_len, "'%s' has another header than the other parts: not the same sweep",
                     parts[f]);
            st = SM_BAD_DATA;
            goto done;
        }
        for (char *p = nl + 1; p < bufs[f] + len;) {
            char *e = memchr(p, '\n', (size_t)(bufs[f] + len - p));
            if (!e) break; /* a torn last line */
            size_t cols = 1;
            for (char *c = p; c < e; c++) cols += *c == ',';
            char *ie = NULL;
            long idx = strtol(p, &ie, 10);
            if (cols == n_cols && ie != p && *ie == ',' && idx >= 0 && (total <= 0 || idx < total)) {
                if (n_rows == cap) {
                    size_t nc = cap ? 2 * cap : 1024;
                    merge_row *nr = realloc(row, nc * sizeof *row);
                    if (!nr) {
                        st = SM_NO_MEMORY;
                        goto done;
                    }
                    row = nr;
                    cap = nc;
                }
                row[n_rows++] = (merge_row){idx, p, (size_t)(e - p) + 1};
            }
            p = e + 1;
        }
    }
    if (!header) {
        snprintf(why, why_len, "the part files in '%s' hold no header", dir);
        st = SM_IO_ERROR;
        goto done;
    }
    if (row) qsort(row, n_rows, sizeof *row, cmp_row);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, (long)getpid());
    out = fopen(tmp, "w");
    if (!out) {
        snprintf(why, why_len, "cannot create '%s': %s", tmp, strerror(errno));
        st = SM_IO_ERROR;
        goto done;
    }
    fwrite(header, 1, header_len, out);
    long written = 0, prev = -1;
    for (size_t i = 0; i < n_rows; i++) {
        if (row[i].index == prev) continue;
        fwrite(row[i].line, 1, row[i].len, out);
        prev = row[i].index;
        written++;
    }
    if (fflush(out) != 0 || fsync(fileno(out)) != 0 || ferror(out)) {
        snprintf(why, why_len, "cannot write '%s': %s", tmp, strerror(errno));
        st = SM_IO_ERROR;
        goto done;
    }
    if (fclose(out) != 0) {
        out = NULL;
        snprintf(why, why_len, "cannot write '%s': %s", tmp, strerror(errno));
        st = SM_IO_ERROR;
        goto done;
    }
    out = NULL;
    if (rename(tmp, out_path) != 0) {
        snprintf(why, why_len, "cannot rename '%s' to '%s': %s", tmp, out_path, strerror(errno));
        st = SM_IO_ERROR;
        goto done;
    }
    tmp[0] = '\0';
    *rows = written;
    *missing = total > 0 ? total - written : 0;
done:
    if (out) fclose(out);
    if (tmp[0]) unlink(tmp);
    free(row);
    for (size_t f = 0; f < n_parts; f++) {
        if (bufs) free(bufs[f]);
        free(parts[f]);
    }
    free(bufs);
    free(parts);
    return st;
}
