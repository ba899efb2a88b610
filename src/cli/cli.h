/* Shared pieces of the stridemap program: argument parsing, messages, exit
 * codes.  The library never prints; everything a user reads comes from here. */
#ifndef STRIDEMAP_CLI_H
#define STRIDEMAP_CLI_H

#include <stdbool.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <sysexits.h>

#include "stridemap/stridemap.h"

/* Exit status when a computation ran but found no gait (or the walker fell). */
#define CLI_EXIT_NO_GAIT 1

/* The one exit code for a library status, by its kind: 0 ok; 1 the walker
 * or the solver (a result: no gait); 64 a name or option the user gave,
 * 65 a bad value or file; 71 out of memory; io_code for an I/O error, which
 * depends on what was being done (66 reading, 73 creating, 74 writing). */
int cli_exit_code(sm_status st, int io_code);

/* Everything a subcommand learns from its arguments. */
typedef struct {
    const char *cmd;                  /* subcommand name, for messages */
    const sm_model *model;
    double params[SM_MAX_PARAMS];
    sm_solver_options solver;
    sm_newton_options newton;
    bool have_x0;
    double x0[SM_MAX_STATE];          /* --guess or --x0, full state */
    bool json;
    double mu;                        /* friction coefficient for contact checks */

    /* Held until the model is known: options may come before MODEL. */
    const char *sets[SM_MAX_PARAMS * 4];
    size_t n_sets;
    const char *state_option, *state_text;
    bool method_given;                /* --method was given */
    bool method_auto;                 /* BDF picked because the model is stiff (a controller) */
    bool two_step;                    /* --two-step: the period is doubled once the model is known */
    int gsn;                          /* fixed: 1 --gsn, -1 --no-gsn, 0 the JSON only */
} cli_run;

/* Fills defaults for a subcommand's run. */
void cli_run_init(cli_run *run, const char *cmd);

/* After option parsing: takes MODEL from the one positional argument,
 * applies --set, parses the state option, checks every setting.
 * Returns 0 or an exit code. */
int cli_finish(cli_run *run, int argc, char **argv);

/* The output vocabulary (json.c): one builder per object, one key per
 * meaning. */

/* The version of docs/output-schema.md every JSON output follows: it
 * changes when a documented key or column is removed, renamed or changes
 * meaning, not when one is added. */
#define CLI_OUTPUT_SCHEMA "stridemap-output/1"

/* Sets "schema": CLI_OUTPUT_SCHEMA in doc. */
void cli_json_schema(json_t *doc);

/* A JSON number, or null for NaN and infinities (JSON has neither). */
json_t *cli_json_number(double v);

/* {"method", "max_order", "rtol", "atol", "max_step", "t_max"}. */
json_t *cli_solver_json(const sm_solver_options *o);

/* [[re, im], ...] of n multipliers. */
json_t *cli_eigenvalues_json(size_t n, const double *re, const double *im);

/* Sets "trivial_multiplier" (and "stability_note") in doc: the multiplier a
 * conservation law pins at 1, or null; null_note: a null note too. */
void cli_json_trivial(json_t *doc, const double *re, const double *im, int trivial_index, bool null_note);

/* Sets the first n gait measures of mt in doc under their output names
 * (sm_metric_fields[i].output: "step_period", "step_length", ...). */
void cli_json_metrics(json_t *doc, const sm_step_metrics *mt, size_t n);

/* Where OUT's JSON sidecar goes: OUT with .csv replaced by .json (or .json
 * added); "" for no OUT or stdout ("-"). */
void cli_sidecar_path(const char *out, char *buf, size_t len);

/* Closes the model the run opened (frees a model file's walker); the run
 * keeps its settings but has no model afterwards. */
void cli_run_release(cli_run *run);

/* Declares a command's run released on every return from the command:
 * `cli_run run CLI_RUN_RELEASED;` then cli_run_init(&run, ...). */
#define CLI_RUN_RELEASED __attribute__((cleanup(cli_run_release)))

/* A library message (struct fields, sm_ names) in this program's words
 * (flags, subcommands), by the one table in args.c; returns out. */
const char *cli_lib_text(const char *text, char *out, size_t len);

/* sm_strerror(s) in this program's words; returns buf. */
const char *cli_strerror(sm_status s, char *buf, size_t len);

/* Prints "stridemap CMD: message" to stderr, library names turned into
 * flags (cli_lib_text), and returns code. */
int cli_fail(const cli_run *run, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));


/* Parses a whole double (subnormals too); false if text is not a number or
 * overflows. */
bool cli_parse_double(const char *text, double *out);

/* The shortest decimal form of v that reads back to v exactly; returns buf. */
const char *cli_format_double(double v, char buf[static 32]);

/* Parses a whole integer in [lo, hi]. */
bool cli_parse_long(const char *text, long lo, long hi, long *out);

/* getopt_long codes and table entries for the shared options. */
enum {
    OPT_SET = 's',
    OPT_HELP = 'h',
    OPT_RTOL = 1000,
    OPT_ATOL,
    OPT_METHOD,
    OPT_MAX_STEP,
    OPT_TMAX,
    OPT_TOL,
    OPT_MAX_ITER,
    OPT_FD_STEP,
    OPT_CENTRAL,
    OPT_PERIOD,
    OPT_JSON,
    OPT_GUESS,
    OPT_X0,
    OPT_STEPS,
    OPT_OUT,
    OPT_DT,
    OPT_MAX_ORDER,
    OPT_MU,
    OPT_STARTS,
    OPT_BOX,
    OPT_NEWTON_UPDATE,
    OPT_JACOBIAN,
    OPT_TWO_STEP,
};
#define CLI_SOLVER_OPTIONS                                                                        \
    {"set", required_argument, 0, OPT_SET}, {"rtol", required_argument, 0, OPT_RTOL},             \
        {"atol", required_argument, 0, OPT_ATOL}, {"method", required_argument, 0, OPT_METHOD},   \
        {"max-step", required_argument, 0, OPT_MAX_STEP}, {"tmax", required_argument, 0, OPT_TMAX}, \
        {"max-order", required_argument, 0, OPT_MAX_ORDER},                                       \
        {"help", no_argument, 0, OPT_HELP}

/* Newton's options, as 'fixed' takes them and every command that finds a
 * gait the same way ('sweep', 'basin'). */
#define CLI_NEWTON_OPTIONS                                                                          \
    {"period", required_argument, 0, OPT_PERIOD}, {"two-step", no_argument, 0, OPT_TWO_STEP},      \
        {"tol", required_argument, 0, OPT_TOL}, {"max-iter", required_argument, 0, OPT_MAX_ITER},   \
        {"fd-step", required_argument, 0, OPT_FD_STEP}, {"central", no_argument, 0, OPT_CENTRAL},   \
        {"newton-update", required_argument, 0, OPT_NEWTON_UPDATE},                                 \
        {"jacobian", required_argument, 0, OPT_JACOBIAN}

/* A subcommand's own options: return 0 if handled, 1 if not its option, or
 * an exit code >= 64 for a bad value. */
typedef int (*cli_own_option_fn)(cli_run *run, int opt, const char *arg, void *ctx);

/* Runs getopt_long over argv with opts: --help prints help, --json sets
 * run->json, the shared options are taken, the rest go to own (may be NULL).
 * Then takes MODEL unless no_model.  Returns 0 to go on, CLI_DONE after
 * --help, or an exit code. */
#define CLI_DONE (-1)
int cli_parse(cli_run *run, int argc, char **argv, const struct option *opts, const char *help,
              cli_own_option_fn own, void *ctx, bool no_model);

/* Writes `params` as "name = value unit" lines or a JSON-ready list (a
 * disturbance at its nominal 0 is left out). */
void cli_print_params(FILE *f, const sm_model *m, const double *p);

int cmd_models(int argc, char **argv);
int cmd_params(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_fixed(int argc, char **argv);
int cmd_continue(int argc, char **argv);
int cmd_orbit(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_inverse(int argc, char **argv);
int cmd_basin(int argc, char **argv);
int cmd_disturb(int argc, char **argv);

#endif
