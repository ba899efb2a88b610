/* stridemap inverse: joint moments and ground forces from a motion
 * (stridemap/inverse.h), and optionally the forward simulation they drive. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stridemap/inverse.h"

static const char help[] =
    "usage: stridemap inverse MODEL DATA.csv [--phase NAME] [-o OUT.csv] [--set NAME=VALUE]...\n"
    "                         [--half-window K] [--degree D] [--by-coordinate] [--forward]\n"
    "                         [--rtol R] [--atol A]\n"
    "\n"
    "Inverse dynamics of a planar body walker (a model file, e.g.\n"
    "models/human_hu9.yaml) from its coordinates over time: per sample, the\n"
    "moments and each contact's force, from M q'' + C q' + G = S'tau +\n"
    "J'lambda in the sample's contact case.  The moments are the model's\n"
    "actuators' inputs u where its file has a controller (S' = B, each\n"
    "actuator's coefficients on its coordinates; columns named as 'stridemap\n"
    "simulate' names its torques: hip_a.torque, ..., tau0.torque for human9),\n"
    "else every joint's moment by coordinate and the fictitious ground moment\n"
    "tau0 on the stance toe (Hu et al.).  Least squares where the case\n"
    "over-determines them (a sliding toe's friction law; a motion that the\n"
    "actuators cannot make), the smallest sum of squared moments where double\n"
    "support leaves them free; the residual column says how far the data is\n"
    "from the case's equations with those moments (the error of the least\n"
    "squares).  The file's springs and controller law are not applied: the\n"
    "moments are the whole moments the joints (actuators) carry.\n"
    "\n"
    "DATA.csv: a header line, then one row per sample.  Columns: time (s,\n"
    "strictly increasing), every coordinate of the model by name (as\n"
    "'stridemap simulate' writes them: hat.x, hat.z, hat, thigh_a, ... for\n"
    "human_hu9, hip_x, hip_z, hat, ... for human9; the base's position carries\n"
    "the toe's and heel's sliding; a time-indexed controller's clock, such as\n"
    "human9's, is the time when its column is absent), and the contact\n"
    "case as a column 'phase' of phase names unless --phase names one for\n"
    "all rows.  Other columns are ignored; of a 'stridemap simulate' CSV\n"
    "(a column 'kind') only the start and sample rows are read.  The rates and\n"
    "accelerations come from a Savitzky-Golay differentiator: a polynomial of\n"
    "degree D fitted to the 2K+1 samples around each one (one-sided at the\n"
    "ends of each run of one phase, each run differentiated alone), exact for\n"
    "polynomials of degree D, error O(h^(D+1-r)) in the r-th derivative.\n"
    "\n"
    "  --phase NAME       the contact case of every row (e.g. ss1, ds1)\n"
    "  --half-window K    samples each side of the fit (default 3)\n"
    "  --degree D         the fitted polynomial's degree (default 4)\n"
    "  --by-coordinate    each joint's moment by coordinate and tau0, even where\n"
    "                     the model has actuators (the joints' net moments)\n"
    "  --forward          also integrate each run forward from its first sample\n"
    "                     (projected onto its contacts), driven by the computed\n"
    "                     moments (a cubic spline in time) and nothing else, and\n"
    "                     write the data's coordinates and the simulated ones\n"
    "                     (fwd.NAME) beside them; --rtol, --atol as elsewhere\n"
    "  -o, --out FILE     write FILE instead of stdout\n"
    "\n"
    "Output CSV: time, phase, each actuator's ACTUATOR.torque (N m; or each\n"
    "joint's COORDINATE.torque and tau0), each contact's CONTACT.fx and\n"
    "CONTACT.fz (N, on the walker; 0 where the row's case does not hold it; a\n"
    "lock's CONTACT.torque), residual.\n"
    "\n"
    "exit status: 0 written (a forward simulation that fails is a warning and\n"
    "NaN columns), 64 bad usage, 65 bad data (a missing column, a time that\n"
    "does not increase, a value that is not a number, a run of one phase\n"
    "shorter than the 2K+1 samples the differentiator needs, an unknown\n"
    "phase), 66 DATA.csv cannot be read, 73/74 the output cannot be written.\n"
    "\n"
    "example:\n"
    "  stridemap inverse models/human_hu9.yaml walk.csv --set gravity=0 --forward -o moments.csv\n"
    "  /usr/bin/python3 scripts/plot_inverse.py moments.csv moments.png\n"
    "  stridemap inverse human9 tests/data/human9_step.csv -o u.csv   # hip_a.torque, ...\n";

enum { OPT_PHASE = 2000, OPT_HALF_WINDOW, OPT_DEGREE, OPT_FORWARD, OPT_BY_COORDINATE };

typedef struct {
    const char *phase, *out;
    sm_inverse_options o;
    bool forward;
} inv_settings;

static int own_option(cli_run *run, int opt, const char *arg, void *ctx)
{
    inv_settings *s = ctx;
    long k;
    switch (opt) {
    case OPT_PHASE: s->phase = arg; return 0;
    case OPT_OUT: s->out = arg; return 0;
    case OPT_FORWARD: s->forward = true; return 0;
    case OPT_BY_COORDINATE: s->o.by_coordinate = true; return 0;
    case OPT_HALF_WINDOW:
        if (!cli_parse_long(arg, 1, 25, &k))
            return cli_fail(run, EX_USAGE, "--half-window takes a whole number from 1 to 25, not '%s'", arg);
        s->o.half_window = (int)k;
        return 0;
    case OPT_DEGREE:
        if (!cli_parse_long(arg, 2, 10, &k))
            return cli_fail(run, EX_USAGE, "--degree takes a whole number from 2 to 10, not '%s'", arg);
        s->o.degree = (int)k;
        return 0;
    default: return 1;
    }
}

/* ---- the data file ---------------------------------------------------------- */

typedef struct {
    size_t n, cap, nq;
    double *t, *q;
    size_t *phase;
    long *line;
} motion;

static void motion_free(motion *d)
{
    free(d->t);
    free(d->q);
    free(d->phase);
    free(d->line);
}

/* Splits line at commas in place (no quoting: names and numbers only). */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *s = line;; s++) {
        if (n < max) f[n] = s;
        n++;
        s = strchr(s, ',');
        if (!s) break;
        *s = '\0';
    }
    return n;
}

#define MAX_COLS 512

static int read_motion(const cli_run *run, const sm_inverse *inv, const char *path, int fixed_phase,
                       motion *d)
{
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail(run, EX_NOINPUT, "cannot read '%s': %s", path, strerror(errno));
    char *line = NULL, *fld[MAX_COLS];
    size_t cap = 0;
    int rc = 0;
    long ln = 1;
    const size_t nq = sm_inverse_nq(inv);
    int col_t = -1, col_phase = -1, col_kind = -1, col_q[64];
    if (getline(&line, &cap, f) < 0) {
        rc = cli_fail(run, EX_DATAERR, "%s is empty: expected a header line with time and the coordinates", path);
        goto done;
    }
    const size_t nh = split(line, fld, MAX_COLS);
    if (nh > MAX_COLS) {
        rc = cli_fail(run, EX_DATAERR, "%s has %zu columns; at most %d are read", path, nh, MAX_COLS);
        goto done;
    }
    for (size_t k = 0; k < nq; k++) col_q[k] = -1;
    for (size_t c = 0; c < nh; c++) {
        if (strcmp(fld[c], "time") == 0) col_t = (int)c;
        else if (strcmp(fld[c], "phase") == 0) col_phase = (int)c;
        else if (strcmp(fld[c], "kind") == 0) col_kind = (int)c;
        for (size_t k = 0; k < nq; k++)
            if (strcmp(fld[c], sm_inverse_q_name(inv, k)) == 0) col_q[k] = (int)c;
    }
    if (col_t < 0) {
        rc = cli_fail(run, EX_DATAERR, "%s has no column 'time' in its header (line 1)", path);
        goto done;
    }
    /* the controller's clock is the step's time unless the file gives it */
    const int clock = sm_inverse_clock(inv);
    for (size_t k = 0; k < nq; k++)
        if (col_q[k] < 0 && (int)k != clock) {
            rc = cli_fail(run, EX_DATAERR, "%s has no column '%s': give every coordinate of the model (see "
                          "'stridemap inverse --help')", path, sm_inverse_q_name(inv, k));
            goto done;
        }
    if (fixed_phase < 0 && col_phase < 0) {
        rc = cli_fail(run, EX_USAGE, "which contact case? %s has no column 'phase': give --phase NAME (e.g. %s)",
                      path, sm_inverse_phase_name(inv, 0));
        goto done;
    }
    d->nq = nq;
    while (getline(&line, &cap, f) >= 0) {
        ln++;
        if (line[strspn(line, " \t\r\n")] == '\0') continue;
        const size_t nf = split(line, fld, MAX_COLS);
        if (nf != nh) {
            rc = cli_fail(run, EX_DATAERR, "%s line %ld has %zu fields, the header %zu", path, ln, nf, nh);
            goto done;
        }
        if (col_kind >= 0 && strcmp(fld[col_kind], "sample") != 0 && strcmp(fld[col_kind], "start") != 0) continue;
        if (d->n == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 1024;
            double *t = realloc(d->t, d->cap * sizeof *t), *q = realloc(d->q, d->cap * nq * sizeof *q);
            size_t *ph = realloc(d->phase, d->cap * sizeof *ph);
            long *li = realloc(d->line, d->cap * sizeof *li);
            if (t) d->t = t;
            if (q) d->q = q;
            if (ph) d->phase = ph;
            if (li) d->line = li;
            if (!t || !q || !ph || !li) {
                rc = cli_fail(run, EX_OSERR, "out of memory reading %s", path);
                goto done;
            }
        }
        const size_t i = d->n;
        d->line[i] = ln;
        if (!cli_parse_double(fld[col_t], &d->t[i]) || !isfinite(d->t[i])) {
            rc = cli_fail(run, EX_DATAERR, "%s line %ld: time '%s' is not a number", path, ln, fld[col_t]);
            goto done;
        }
        if (i > 0 && !(d->t[i] > d->t[i - 1])) {
            rc = cli_fail(run, EX_DATAERR, "%s line %ld: time %s does not come after %.17g (line %ld); the "
                          "times must increase", path, ln, fld[col_t], d->t[i - 1], d->line[i - 1]);
            goto done;
        }
        for (size_t k = 0; k < nq; k++) {
            if (col_q[k] < 0) {
                d->q[i * nq + k] = d->t[i];
                continue;
            }
            const char *s = fld[col_q[k]];
            if (!cli_parse_double(s, &d->q[i * nq + k]) || !isfinite(d->q[i * nq + k])) {
                rc = cli_fail(run, EX_DATAERR, "%s line %ld: %s '%s' is not a number", path, ln,
                              sm_inverse_q_name(inv, k), s);
                goto done;
            }
        }
        int ph = fixed_phase;
        if (ph < 0 && (ph = sm_inverse_phase_index(inv, fld[col_phase])) < 0) {
            rc = cli_fail(run, EX_DATAERR, "%s line %ld: '%s' is not a phase of the model (e.g. %s)", path, ln,
                          fld[col_phase], sm_inverse_phase_name(inv, 0));
            goto done;
        }
        d->phase[i] = (size_t)ph;
        d->n++;
    }
    if (ferror(f)) rc = cli_fail(run, EX_NOINPUT, "cannot read '%s': %s", path, strerror(errno));
    else if (d->n == 0) rc = cli_fail(run, EX_DATAERR, "%s has a header but no samples", path);
done:
    free(line);
    fclose(f);
    return rc;
}

/* Runs of one phase shorter than the window, named by their lines. */
static int check_runs(const cli_run *run, const sm_inverse *inv, const sm_inverse_options *o, const char *path,
                      const motion *d)
{
    const size_t w = 2 * (size_t)o->half_window + 1;
    for (size_t s = 0, e; s < d->n; s = e) {
        for (e = s + 1; e < d->n && d->phase[e] == d->phase[s];) e++;
        if (e - s < w)
            return cli_fail(run, EX_DATAERR,
                            "%s lines %ld to %ld: %zu samples of phase %s, fewer than the %zu the differentiator "
                            "needs (2 --half-window + 1)",
                            path, d->line[s], d->line[e - 1], e - s, sm_inverse_phase_name(inv, d->phase[s]), w);
    }
    return 0;
}

/* ---- the command ------------------------------------------------------------ */

/* getopt_long moves the operands behind the options: this pass finds the
 * second one (DATA) so that the shared parser sees MODEL alone. */
static int take_data(int argc, char **argv, const struct option *opts, char **kept, const char **data)
{
    opterr = 0;
    optind = 1;
    while (getopt_long(argc, argv, "hs:o:", opts, NULL) != -1) {
    }
    int n = 0;
    *data = NULL;
    for (int i = 0; i < optind; i++) kept[n++] = argv[i];
    for (int i = optind; i < argc; i++) {
        if (i == optind + 1) *data = argv[i];
        else kept[n++] = argv[i];
    }
    kept[n] = NULL;
    return n;
}

typedef struct {
    double *v, *a, *tau, *F, *res, *fwd;
} outputs;

static void forward_runs(const cli_run *run, const sm_inverse *inv, const motion *d, const outputs *out)
{
    const size_t nq = d->nq, nv = sm_inverse_nv(inv), ns = nq + nv, nt = sm_inverse_n_torques(inv);
    double *x = malloc(d->n * ns * sizeof *x);
    for (size_t s = 0, e; s < d->n; s = e) {
        for (e = s + 1; e < d->n && d->phase[e] == d->phase[s];) e++;
        for (size_t i = s; i < e; i++)
            for (size_t k = 0; k < nq; k++) out->fwd[i * nq + k] = NAN;
        if (!x) continue;
        if (e - s < 4) {
            fprintf(stderr,
                    "stridemap inverse: warning: lines %ld to %ld (phase %s) are %zu samples, too few to simulate "
                    "forward (the moments' spline needs 4)\n",
                    d->line[s], d->line[e - 1], sm_inverse_phase_name(inv, d->phase[s]), e - s);
            continue;
        }
        double x0[SM_MAX_STATE];
        memcpy(x0, d->q + s * nq, nq * sizeof *x0);
        memcpy(x0 + nq, out->v + s * nv, nv * sizeof *x0);
        size_t done = 0;
        const sm_status st = sm_inverse_playback(inv, run->params, &run->solver, d->phase[s], e - s, d->t + s,
                                                 out->tau + s * nt, x0, x, &done);
        for (size_t i = 0; i < done; i++) memcpy(out->fwd + (s + i) * nq, x + i * ns, nq * sizeof *x);
        if (st != SM_OK) {
            char msg[256];
            fprintf(stderr,
                    "stridemap inverse: warning: the forward simulation of lines %ld to %ld (phase %s) stopped "
                    "at t = %.6g: %s\n",
                    d->line[s], d->line[e - 1], sm_inverse_phase_name(inv, d->phase[s]),
                    d->t[s + (done ? done - 1 : 0)], cli_strerror(st, msg, sizeof msg));
        }
    }
    if (!x) fprintf(stderr, "stridemap inverse: warning: out of memory for the forward simulation\n");
    free(x);
}

static int write_csv(const cli_run *run, const sm_inverse *inv, const motion *d, const outputs *o,
                     const char *path)
{
    FILE *f = stdout;
    if (path && strcmp(path, "-") != 0 && !(f = fopen(path, "w")))
        return cli_fail(run, EX_CANTCREAT, "cannot create '%s'; check the folder exists and is writable", path);
    const size_t nt = sm_inverse_n_torques(inv), nf = sm_inverse_n_forces(inv), nq = d->nq;
    fputs("time,phase", f);
    for (size_t k = 0; k < nt; k++) fprintf(f, ",%s", sm_inverse_torque_name(inv, k));
    for (size_t k = 0; k < nf; k++) fprintf(f, ",%s", sm_inverse_force_name(inv, k));
    fputs(",residual", f);
    if (o->fwd) {
        for (size_t k = 0; k < nq; k++) fprintf(f, ",%s", sm_inverse_q_name(inv, k));
        for (size_t k = 0; k < nq; k++) fprintf(f, ",fwd.%s", sm_inverse_q_name(inv, k));
    }
    fputc('\n', f);
    for (size_t i = 0; i < d->n; i++) {
        fprintf(f, "%.12g,%s", d->t[i], sm_inverse_phase_name(inv, d->phase[i]));
        for (size_t k = 0; k < nt; k++) fprintf(f, ",%.10g", o->tau[i * nt + k]);
        for (size_t k = 0; k < nf; k++) fprintf(f, ",%.10g", o->F[i * nf + k]);
        fprintf(f, ",%.3g", o->res[i]);
        if (o->fwd) {
            for (size_t k = 0; k < nq; k++) fprintf(f, ",%.12g", d->q[i * nq + k]);
            for (size_t k = 0; k < nq; k++) fprintf(f, ",%.12g", o->fwd[i * nq + k]);
        }
        fputc('\n', f);
    }
    int bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) bad |= fclose(f) != 0;
    if (bad) return cli_fail(run, EX_IOERR, "could not write the moments%s%s", path ? " to " : "", path ? path : "");
    return 0;
}

int cmd_inverse(int argc, char **argv)
{
    cli_run run CLI_RUN_RELEASED;
    cli_run_init(&run, "inverse");
    static const struct option opts[] = {CLI_SOLVER_OPTIONS,
                                         {"phase", required_argument, 0, OPT_PHASE},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {"half-window", required_argument, 0, OPT_HALF_WINDOW},
                                         {"degree", required_argument, 0, OPT_DEGREE},
                                         {"forward", no_argument, 0, OPT_FORWARD},
                                         {"by-coordinate", no_argument, 0, OPT_BY_COORDINATE},
                                         {0, 0, 0, 0}};
    inv_settings set = {0};
    sm_inverse_options_default(&set.o);
    char **kept = calloc((size_t)argc + 1, sizeof *kept);
    if (!kept) return cli_fail(&run, EX_OSERR, "out of memory");
    const char *data = NULL;
    const int nk = take_data(argc, argv, opts, kept, &data);
    /* -o is this command's short form of --out */
    for (int i = 1; i < nk; i++)
        if (strcmp(kept[i], "-o") == 0) kept[i] = "--out";
    int rc = cli_parse(&run, nk, kept, opts, help, own_option, &set, false);
    free(kept);
    if (rc) return rc == CLI_DONE ? 0 : rc;
    if (!data) return cli_fail(&run, EX_USAGE, "which motion? give MODEL DATA.csv (see 'stridemap inverse --help')");

    char why[512];
    sm_inverse *inv = NULL;
    sm_status st = sm_inverse_create(run.model, &set.o, &inv, why, sizeof why);
    if (st != SM_OK) {
        char text[512];
        return cli_fail(&run, cli_exit_code(st, EX_DATAERR), "%s", cli_lib_text(why, text, sizeof text));
    }
    int fixed = -1;
    if (set.phase && (fixed = sm_inverse_phase_index(inv, set.phase)) < 0) {
        rc = cli_fail(&run, EX_USAGE, "--phase %s is not a phase of the model (e.g. %s)", set.phase,
                      sm_inverse_phase_name(inv, 0));
        sm_inverse_free(inv);
        return rc;
    }
    motion d = {0};
    rc = read_motion(&run, inv, data, fixed, &d);
    if (!rc) rc = check_runs(&run, inv, &set.o, data, &d);
    const size_t nv = sm_inverse_nv(inv);
    outputs o = {0};
    if (!rc) {
        o.v = malloc(d.n * nv * sizeof *o.v);
        o.a = malloc(d.n * nv * sizeof *o.a);
        o.tau = malloc(d.n * sm_inverse_n_torques(inv) * sizeof *o.tau);
        o.F = malloc(d.n * (sm_inverse_n_forces(inv) + 1) * sizeof *o.F);
        o.res = malloc(d.n * sizeof *o.res);
        o.fwd = set.forward ? malloc(d.n * d.nq * sizeof *o.fwd) : NULL;
        if (!o.v || !o.a || !o.tau || !o.F || !o.res || (set.forward && !o.fwd))
            rc = cli_fail(&run, EX_OSERR, "out of memory for %zu samples", d.n);
    }
    if (!rc) {
        st = sm_inverse_run(inv, run.params, d.n, d.t, d.q, d.phase, o.v, o.a, o.tau, o.F, o.res, why, sizeof why);
        if (st != SM_OK) {
            char text[512];
            rc = cli_fail(&run, cli_exit_code(st, EX_DATAERR), "%s: %s", data, cli_lib_text(why, text, sizeof text));
        }
    }
    if (!rc && set.forward) forward_runs(&run, inv, &d, &o);
    if (!rc) rc = write_csv(&run, inv, &d, &o, set.out);
    free(o.v);
    free(o.a);
    free(o.tau);
    free(o.F);
    free(o.res);
    free(o.fwd);
    motion_free(&d);
    sm_inverse_free(inv);
    return rc;
}
