/* The sweep's signature: what makes two runs on one directory the same
 * sweep (model, fixed parameters, grid, start guess, solver and Newton
 * options).  sm_sweep_open writes it beside its part file, DIR/part-TAG.sig,
 * and refuses a directory whose other signatures differ, so a caller that
 * resumes with another rtol cannot mix rows computed at two tolerances.  One
 * "key<TAB>value" line per setting; the key is the sm_sweep_config field. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep_internal.h"

size_t sweep_signature(const sm_sweep_config *c, char *buf, size_t len)
{
    const sm_model *m = c->model;
    sweep_out o = {buf, len, 0, len > 0};
    sweep_put(&o, "model\t%s\n", m->name);
    for (size_t i = 0; i < m->n_params; i++) {
        bool swept = false;
        for (size_t k = 0; !c->task && k < c->grid.n_axes; k++) swept |= c->grid.axis[k].param == i;
        if (!swept) sweep_put(&o, "params[%s]\t%.17g\n", m->params[i].name, c->params[i]);
    }
    for (size_t k = 0; k < c->grid.n_axes; k++) {
        const sm_sweep_axis *a = &c->grid.axis[k];
        sweep_put(&o, "grid.axis[%zu]\t%s=%.17g:%.17g:%ld\n", k, a->name, a->lo, a->hi, a->n);
    }
    sweep_put(&o, "have_guess\t%d\n", c->have_guess);
    for (size_t i = 0; c->have_guess && i < m->n_state; i++) sweep_put(&o, "guess[%zu]\t%.17g\n", i, c->guess[i]);
    const sm_solver_options *s = &c->solver;
    sweep_put(&o, "solver.rtol\t%.17g\nsolver.atol\t%.17g\nsolver.method\t%d\nsolver.max_step\t%.17g\n", s->rtol, s->atol,
         (int)s->method, s->max_step);
    sweep_put(&o, "solver.t_max\t%.17g\nsolver.max_num_steps\t%ld\nsolver.max_order\t%d\n", s->t_max, (long)s->max_num_steps,
         s->max_order);
    const sm_newton_options *n = &c->newton;
    sweep_put(&o, "newton.period\t%d\nnewton.tol\t%.17g\nnewton.max_iter\t%d\nnewton.fd_step\t%.17g\n", n->period, n->tol,
         n->max_iter, n->fd_step);
    sweep_put(&o, "newton.central\t%d\nnewton.max_backtracks\t%d\n", n->central, n->max_backtracks);
    sweep_put(&o, "newton.update\t%d\n", (int)n->update);
    /* only when not the default, so that sweeps begun before it resume */
    if (n->jacobian != SM_JACOBIAN_FD) sweep_put(&o, "newton.jacobian\t%d\n", (int)n->jacobian);
    if (c->task && o.ok) {
        const size_t t = c->task->signature(c->task->ctx, buf + o.pos, len - o.pos);
        o.ok = t > 0;
        o.pos += t;
    }
    return o.ok ? o.pos : 0;
}

/* The value of key in sig (up to its line's end), or NULL. */
static const char *find_key(const char *sig, const char *key, size_t key_len, size_t *value_len)
{
    for (const char *p = sig; *p;) {
        const char *e = strchr(p, '\n');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > key_len && memcmp(p, key, key_len) == 0 && p[key_len] == '\t') {
            *value_len = n - key_len - 1;
            return p + key_len + 1;
        }
        p += n + (e != NULL);
    }
    return NULL;
}

/* The first setting in which a and b differ, said as "FIELD is A there, B
 * here"; false if they are the same sweep. */
static bool first_difference(const char *there, const char *here, char *what, size_t what_len)
{
    for (int pass = 0; pass < 2; pass++) {
        const char *a = pass ? there : here, *b = pass ? here : there;
        for (const char *p = a; *p;) {
            const char *e = strchr(p, '\n');
            const size_t n = e ? (size_t)(e - p) : strlen(p);
            const char *tab = memchr(p, '\t', n);
            if (tab) {
                const size_t kl = (size_t)(tab - p), vl = n - kl - 1;
                size_t ol = 0;
                const char *other = find_key(b, p, kl, &ol);
                if (!other || ol != vl || memcmp(other, tab + 1, vl) != 0) {
                    const char *v_there = pass ? tab + 1 : other, *v_here = pass ? other : tab + 1;
                    const size_t l_there = pass ? vl : ol, l_here = pass ? ol : vl;
                    snprintf(what, what_len, "sm_sweep_config.%.*s is %.*s there, %.*s here", (int)kl, p,
                             v_there ? (int)l_there : 6, v_there ? v_there : "absent", v_here ? (int)l_here : 6,
                             v_here ? v_here : "absent");
                    return true;
                }
            }
            p += n + (e != NULL);
        }
    }
    return false;
}

sm_status sweep_signature_check(const char *dir, const char *sig, char *why, size_t why_len)
{
    size_t n = 0;
    char **sigs = sm_sweep_list_parts(dir, ".sig", &n);
    if (!sigs) {
        snprintf(why, why_len, "cannot read directory '%s': %s", dir, strerror(errno));
        return SM_IO_ERROR;
    }
    sm_status st = SM_OK;
    for (size_t i = 0; i < n && st == SM_OK; i++) {
        size_t len = 0;
        char *there = sweep_read_file(sigs[i], &len);
        char what[512];
        if (!there) {
            snprintf(why, why_len, "cannot read '%s': %s", sigs[i], strerror(errno));
            st = SM_IO_ERROR;
        } else if (first_difference(there, sig, what, sizeof what)) {
            snprintf(why, why_len, "'%s' holds another sweep (%s, in '%s'); use another directory", dir, what,
                     sigs[i]);
            st = SM_BAD_OPTION;
        }
        free(there);
    }
    sm_sweep_free_list(sigs, n);
    return st;
}

sm_status sweep_signature_write(const char *path, const char *sig, size_t len, char *why, size_t why_len)
{
    /* Written whole under another name and renamed: a reader never sees half. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    bool bad = !f;
    if (f) {
        bad |= fwrite(sig, 1, len, f) != len;
        bad |= fclose(f) != 0;
    }
    if (bad || rename(tmp, path) != 0) {
        snprintf(why, why_len, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
        return SM_IO_ERROR;
    }
    return SM_OK;
}
