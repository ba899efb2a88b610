#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The library names its own things (struct fields, its functions); a user
 * of this program knows flags and subcommands.  This one table says which
 * flag each library name is, so every library message reads as it always
 * has.  Phrases come before the fields they contain; one "%s" carries the
 * text between its two sides over. */
static const struct {
    const char *lib, *cli;
} lib_to_cli[] = {
    {"a sweep needs at least one axis in sm_sweep_config.grid", "a sweep needs at least one --grid"},
    {"sm_sweep_config.shard_k/shard_n", "--shard K/N"},
    {"(then open it with resume = true", "(then --resume"},
    {"open it with resume = true", "add --resume"},
    {"sm_solver_options.method = SM_METHOD_BDF", "--method bdf"},
    {"another starting guess x0", "another --guess"},
    {"(see the parameters of model %s)", "(see 'stridemap params %s')"},
    {"(see sm_registry_count and sm_registry_at)", "(see 'stridemap models')"},
    {"(see sm_model.params)", "(see 'stridemap params MODEL')"},
    {"(or hold it fixed: ", "(or use --set "},
    {"sm_search_options.lo/hi", "--box"},
    {"sm_sweep_axis", "--grid"},
    {"sm_solver_options.rtol", "--rtol"},
    {"sm_solver_options.atol", "--atol"},
    {"sm_solver_options.max_step", "--max-step"},
    {"sm_solver_options.t_max", "--tmax"},
    {"sm_solver_options.max_order", "--max-order"},
    {"sm_newton_options.period", "--period"},
    {"sm_newton_options.tol", "--tol"},
    {"sm_newton_options.max_iter", "--max-iter"},
    {"sm_newton_options.fd_step", "--fd-step"},
    {"sm_newton_options.central", "--central"},
    {"sm_newton_options.update", "--newton-update"},
    {"sm_newton_options.jacobian", "--jacobian"},
    {"sm_cont_options.period", "--period"},
    {"sm_cont_options.h0", "--step"},
    {"sm_cont_options.max_points", "--max-points"},
    {"sm_cont_options.tol", "--tol"},
    {"sm_cont_options.fd_step", "--fd-step"},
    {"sm_cont_options.weight", "--weight"},
    {"sm_orbit_options.transient", "--transient"},
    {"sm_orbit_options.record", "--record"},
    {"sm_search_options.starts", "--starts"},
    {"sm_search_options.max_starts", "--max-starts"},
    {"sm_sweep_config.jobs", "--jobs"},
    {"sm_inverse_options.half_window", "--half-window"},
    {"sm_inverse_options.degree", "--degree"},
    {"sm_basin_config.plane", "--plane"},
    {"sm_basin_config.fix", "--fix"},
    {"sm_basin_config.max_strides", "--max-strides"},
    {"sm_basin_config.tol", "--return-tol"},
    {"sm_disturb_options.max_strides", "--max-strides"},
    {"sm_disturb_options.return_tol", "--return-tol"},
    {"sm_disturb_options.bisect_tol", "--bisect-tol"},
    {"sm_disturb_options.scan_points", "--scan"},
    {"sm_cont_steps.step", "--step"},
    {"sm_cont_steps.step_min", "--step-min"},
    {"sm_cont_steps.step_max", "--step-max"},
};

static bool ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Length of text matched by pattern at t (0: none); hole and hole_len get
 * the text that stood for its "%s". */
static size_t match_lib(const char *pat, const char *t, const char **hole, size_t *hole_len)
{
    const char *pct = strstr(pat, "%s");
    const size_t pre = pct ? (size_t)(pct - pat) : strlen(pat);
    if (strncmp(t, pat, pre) != 0) return 0;
    size_t n = pre;
    *hole = t + pre;
    *hole_len = 0;
    if (pct) {
        const char *post = strstr(t + pre, pct + 2);
        if (!post || post == t + pre) return 0;
        *hole_len = (size_t)(post - (t + pre));
        n = pre + *hole_len + strlen(pct + 2);
    }
    /* A field is a whole name: sm_sweep_axis is not the start of sm_sweep_axis_parse. */
    if (ident_char(t[n - 1]) && ident_char(t[n])) return 0;
    return n;
}

const char *cli_lib_text(const char *text, char *out, size_t len)
{
    size_t o = 0;
    for (const char *t = text; *t && o + 1 < len;) {
        size_t k = 0, n = 0, hole_len = 0;
        const char *hole = NULL;
        for (; k < sizeof lib_to_cli / sizeof lib_to_cli[0]; k++)
            if ((n = match_lib(lib_to_cli[k].lib, t, &hole, &hole_len))) break;
        if (!n) {
            out[o++] = *t++;
            continue;
        }
        const char *cli = lib_to_cli[k].cli, *pct = strstr(cli, "%s");
        const int w = pct ? snprintf(out + o, len - o, "%.*s%.*s%s", (int)(pct - cli), cli, (int)hole_len, hole, pct + 2)
                          : snprintf(out + o, len - o, "%s", cli);
        o = w < 0 ? o : (o + (size_t)w < len ? o + (size_t)w : len - 1);
        t += n;
    }
    out[o < len ? o : len - 1] = '\0';
    return out;
}

const char *cli_strerror(sm_status s, char *buf, size_t len) { return cli_lib_text(sm_strerror(s), buf, len); }

int cli_fail(const cli_run *run, int code, const char *fmt, ...)
{
    /* Library messages come through here, in its own words: say them in flags. */
    char text[2048], said[2560];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "stridemap %s: %s\n", run && run->cmd ? run->cmd : "", cli_lib_text(text, said, sizeof said));
    return code;
}

int cli_exit_code(sm_status st, int io_code)
{
    switch (sm_status_kind(st)) {
    case SM_KIND_OK:
        return EX_OK;
    case SM_KIND_WALKER:
    case SM_KIND_SOLVER:
        return CLI_EXIT_NO_GAIT;
    case SM_KIND_OUTPUT:
        return st == SM_NO_MEMORY ? EX_OSERR : io_code;
    case SM_KIND_INPUT:
    default:
        /* Names and options are how the program was called; values and files
         * are the data it was given. */
        return st == SM_UNKNOWN_MODEL || st == SM_UNKNOWN_PARAM || st == SM_BAD_OPTION ? EX_USAGE : EX_DATAERR;
    }
}

static int bad_option(const cli_run *run, char **argv)
{
    const char *what = argv[optind - 1];
    if (optopt && optopt != '?')
        return cli_fail(run, EX_USAGE, "option '%s' needs a value (see 'stridemap %s --help')", what,
                        run->cmd);
    return cli_fail(run, EX_USAGE, "unknown option '%s' (see 'stridemap %s --help')", what, run->cmd);
}

void cli_run_release(cli_run *run)
{
    sm_registry_close(run->model);
    run->model = NULL;
}

static int take_model(cli_run *run, const char *name)
{
    char why[512];
    cli_run_release(run);
    sm_status st = sm_registry_open(name, &run->model, why, sizeof why);
    if (st != SM_OK) return cli_fail(run, cli_exit_code(st, EX_NOINPUT), "%s", why);
    sm_model_default_params(run->model, run->params);
    return 0;
}

bool cli_parse_double(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0') return false;
    /* strtod says ERANGE for a subnormal such as 1e-320 too: that is still
     * a finite number (strtod returns it); only an overflow is not. */
    if (errno == ERANGE && isinf(v)) return false;
    *out = v;
    return true;
}

const char *cli_format_double(double v, char buf[static 32])
{
    /* The shortest %.Ng that reads back to the same double: 0.009, not
     * 0.0089999999999999993. */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v || v != v) break;
    }
    return buf;
}

bool cli_parse_long(const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static int apply_set(cli_run *run, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return cli_fail(run, EX_USAGE, "--set takes NAME=VALUE, not '%s'", assignment);
    char name[128];
    size_t len = (size_t)(eq - assignment);
    if (len >= sizeof name) return cli_fail(run, EX_USAGE, "parameter name too long in '%s'", assignment);
    memcpy(name, assignment, len);
    name[len] = '\0';
    int i = sm_model_param_index(run->model, name);
    if (i < 0)
        return cli_fail(run, EX_USAGE, "model '%s' has no parameter '%s' (see 'stridemap params %s')",
                        run->model->name, name, run->model->name);
    double v;
    if (!cli_parse_double(eq + 1, &v))
        return cli_fail(run, EX_DATAERR, "--set %s: '%s' is not a number", name, eq + 1);
    char why[256];
    if (sm_model_check_param(run->model, (size_t)i, v, why, sizeof why) != SM_OK)
        return cli_fail(run, EX_DATAERR, "%s", why);
    run->params[i] = v;
    return 0;
}

static int parse_state(cli_run *run, const char *option, const char *text)
{
    const sm_model *m = run->model;
    char buf[4096];
    if (strlen(text) >= sizeof buf) return cli_fail(run, EX_DATAERR, "%s is too long", option);
    strcpy(buf, text);
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (n >= m->n_state) break;
        if (!cli_parse_double(tok, &v) || !isfinite(v))
            return cli_fail(run, EX_DATAERR, "%s: '%s' is not a finite number", option, tok);
        run->x0[n++] = v;
    }
    size_t commas = 0;
    for (const char *c = text; *c; c++) commas += *c == ',';
    if (n != m->n_state || commas + 1 != m->n_state) {
        char names[512] = "";
        for (size_t i = 0; i < m->n_state; i++) {
            strncat(names, m->state_names[i], sizeof names - strlen(names) - 2);
            if (i + 1 < m->n_state) strncat(names, ",", sizeof names - strlen(names) - 1);
        }
        return cli_fail(run, EX_DATAERR, "%s needs %zu comma-separated numbers (%s), got '%s'", option,
                        m->n_state, names, text);
    }
    run->have_x0 = true;
    return 0;
}

static int check_params(cli_run *run)
{
    char why[256];
    if (sm_model_check_params(run->model, run->params, why, sizeof why) != SM_OK)
        return cli_fail(run, EX_DATAERR, "%s", why);
    return 0;
}

static int number_option(cli_run *run, const char *name, const char *arg, double *out)
{
    if (!cli_parse_double(arg, out))
        return cli_fail(run, EX_DATAERR, "--%s: '%s' is not a number", name, arg);
    return 0;
}

static int common_option(cli_run *run, int opt, const char *arg)
{
    long v;
    switch (opt) {
    case OPT_SET:
        if (run->n_sets == sizeof run->sets / sizeof run->sets[0])
            return cli_fail(run, EX_USAGE, "too many --set options");
        run->sets[run->n_sets++] = arg;
        return 0;
    case OPT_RTOL:
        return number_option(run, "rtol", arg, &run->solver.rtol);
    case OPT_ATOL:
        return number_option(run, "atol", arg, &run->solver.atol);
    case OPT_MAX_STEP:
        return number_option(run, "max-step", arg, &run->solver.max_step);
    case OPT_TMAX:
        return number_option(run, "tmax", arg, &run->solver.t_max);
    case OPT_METHOD:
        for (int k = SM_METHOD_ADAMS; sm_method_name((sm_method)k); k++)
            if (strcmp(arg, sm_method_name((sm_method)k)) == 0) {
                run->solver.method = (sm_method)k;
                run->method_given = true;
                return 0;
            }
        return cli_fail(run, EX_DATAERR, "--method is 'adams', 'bdf', 'erk8' or 'erk5', not '%s'", arg);
    case OPT_TOL:
        return number_option(run, "tol", arg, &run->newton.tol);
    case OPT_FD_STEP:
        return number_option(run, "fd-step", arg, &run->newton.fd_step);
    case OPT_CENTRAL:
        run->newton.central = true;
        return 0;
    case OPT_NEWTON_UPDATE:
        if (strcmp(arg, "broyden") == 0)
            run->newton.update = SM_NEWTON_BROYDEN;
        else if (strcmp(arg, "full") == 0)
            run->newton.update = SM_NEWTON_FULL;
        else
            return cli_fail(run, EX_DATAERR, "--newton-update is 'broyden' or 'full', not '%s'", arg);
        return 0;
    case OPT_JACOBIAN:
        if (strcmp(arg, "fd") == 0)
            run->newton.jacobian = SM_JACOBIAN_FD;
        else if (strcmp(arg, "exact") == 0)
            run->newton.jacobian = SM_JACOBIAN_EXACT;
        else
            return cli_fail(run, EX_DATAERR, "--jacobian is 'fd' or 'exact', not '%s'", arg);
        return 0;
    case OPT_MAX_ORDER:
        if (!cli_parse_long(arg, 0, 12, &v))
            return cli_fail(run, EX_DATAERR, "--max-order takes a whole number from 0 to 12, not '%s'", arg);
        run->solver.max_order = (int)v;
        return 0;
    case OPT_MAX_ITER:
        if (!cli_parse_long(arg, 0, 100000, &v))
            return cli_fail(run, EX_DATAERR, "--max-iter takes a whole number from 0 to 100000, not '%s'", arg);
        run->newton.max_iter = (int)v;
        return 0;
    case OPT_PERIOD:
        if (!cli_parse_long(arg, 1, 1024, &v))
            return cli_fail(run, EX_DATAERR, "--period takes a whole number from 1 to 1024, not '%s'", arg);
        run->newton.period = (int)v;
        return 0;
    case OPT_TWO_STEP:
        run->two_step = true;
        return 0;
    default:
        return 1;
    }
}

void cli_print_params(FILE *f, const sm_model *m, const double *p)
{
    bool first = true;
    for (size_t i = 0; i < m->n_params; i++)
    {
        /* a disturbance left at its nominal 0 is no setting of the walker */
        if ((m->params[i].flags & SM_PARAM_DISTURBANCE) && p[i] == 0.0) continue;
        char value[32];
        fprintf(f, "%s%s = %s %s", first ? "" : ", ", m->params[i].name, cli_format_double(p[i], value),
                m->params[i].unit);
        first = false;
    }
}

void cli_run_init(cli_run *run, const char *cmd)
{
    memset(run, 0, sizeof *run);
    run->cmd = cmd;
    sm_solver_options_default(&run->solver);
    sm_newton_options_default(&run->newton);
    run->mu = NAN; /* the model's, else 1 */
}

static int finish(cli_run *run, int argc, char **argv)
{
    if (optind >= argc)
        return cli_fail(run, EX_USAGE, "which model? (see 'stridemap models' and 'stridemap %s --help')",
                        run->cmd);
    if (optind + 1 < argc)
        return cli_fail(run, EX_USAGE, "one model only; unexpected '%s'", argv[optind + 1]);
    int rc = take_model(run, argv[optind]);
    if (!rc && run->model->stiff && !run->method_given) {
        run->solver.method = SM_METHOD_BDF;
        run->method_auto = true;
    }
    if (!rc && run->model->clock_period && (run->solver.method == SM_METHOD_ERK8 || run->solver.method == SM_METHOD_ERK5))
        return cli_fail(run, EX_USAGE, "--method %s cannot integrate '%s': its sampled controller's instants are CVODE "
                        "stop times; use --method bdf or adams", sm_method_name(run->solver.method), run->model->name);
    for (size_t i = 0; !rc && i < run->n_sets; i++) rc = apply_set(run, run->sets[i]);
    if (!rc) rc = check_params(run);
    if (!rc && run->state_text) rc = parse_state(run, run->state_option, run->state_text);
    if (rc) return rc;
    /* Coleman's two-step map, a right step then a left one with no mirror
     * between, is the mirrored map twice: the left step is the mirror image
     * of the right one, F_L = S F_R S, so F_L F_R = (S F_R)(S F_R) = P^2
     * (docs/body-walkers.md).  For a walker without a mirror it is P^2 too. */
    if (run->two_step) {
        if (run->newton.period > 512)
            return cli_fail(run, EX_DATAERR, "--two-step doubles --period: give --period 512 or less, not %d",
                            run->newton.period);
        run->newton.period *= 2;
    }
    char why[256];
    if (sm_solver_options_check(&run->solver, why, sizeof why) != SM_OK ||
        sm_newton_options_check(&run->newton, why, sizeof why) != SM_OK)
        return cli_fail(run, EX_DATAERR, "%s", why);
    return 0;
}

int cli_parse(cli_run *run, int argc, char **argv, const struct option *opts, const char *help,
              cli_own_option_fn own, void *ctx, bool no_model)
{
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "hs:", opts, NULL)) != -1) {
        if (c == OPT_HELP) {
            fputs(help, stdout);
            return CLI_DONE;
        }
        if (c == '?' || c == ':') return bad_option(run, argv);
        if (c == OPT_JSON) {
            run->json = true;
            continue;
        }
        int rc = common_option(run, c, optarg);
        if (rc == 1 && own) rc = own(run, c, optarg, ctx);
        if (rc == 1) return bad_option(run, argv);
        if (rc) return rc;
    }
    if (no_model) {
        if (optind < argc)
            return cli_fail(run, EX_USAGE, "takes no arguments; unexpected '%s'", argv[optind]);
        return 0;
    }
    return finish(run, argc, argv);
}

