/* A sweep's JSON sidecars and the merging of its parts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sweep_cli.h"

/* The settings that decide every row: equal signatures, equal rows. */
static json_t *signature(const cli_run *run, const sm_sweep_config *c)
{
    const sm_model *m = c->model;
    json_t *params = json_object(), *grid = json_array();
    for (size_t i = 0; i < m->n_params; i++) {
        bool swept = false;
        for (size_t k = 0; !c->task && k < c->grid.n_axes; k++) swept |= c->grid.axis[k].param == i;
        if (!swept) json_object_set_new(params, m->params[i].name, cli_json_number(c->params[i]));
    }
    for (size_t k = 0; k < c->grid.n_axes; k++) {
        const sm_sweep_axis *a = &c->grid.axis[k];
        json_array_append_new(grid, json_pack("{s:s, s:o, s:o, s:I}", "name", a->name, "lo", cli_json_number(a->lo),
                                              "hi", cli_json_number(a->hi), "n", (json_int_t)a->n));
    }
    (void)run;
    json_t *guess = json_null();
    if (c->have_guess) {
        guess = json_array();
        for (size_t i = 0; i < m->n_state; i++) json_array_append_new(guess, cli_json_number(c->guess[i]));
    }
    return json_pack(
        "{s:s, s:o, s:o, s:o, s:i, s:o, s:{s:o, s:i, s:o, s:b, s:s}}", "model", m->name,
        "fixed_params", params, "grid", grid, "guess", guess, "period", c->newton.period, "solver",
        cli_solver_json(&c->solver), "newton", "tol", cli_json_number(c->newton.tol), "max_iter", c->newton.max_iter,
        "fd_step", cli_json_number(c->newton.fd_step > 0 ? c->newton.fd_step : sqrt(c->solver.rtol)), "central",
        c->newton.central, "update", c->newton.update == SM_NEWTON_FULL ? "full" : "broyden");
}

json_t *sweep_sidecar(const cli_run *run, const sm_sweep_config *c, int argc, char **argv, const char *tag,
                      bool resume, json_t *extra)
{
    json_t *doc = signature(run, c);
    if (extra) json_object_update(doc, extra);
    if (c->segment > 0 && c->segment < c->grid.axis[0].n) /* only a real cut changes the rows */
        json_object_set_new(doc, "segment", json_integer(c->segment));
    char *sig = json_dumps(doc, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_object_set_new(doc, "signature", json_string(sig ? sig : ""));
    free(sig);
    json_object_set_new(doc, "points", json_integer(sm_sweep_grid_points(&c->grid)));
    json_object_set_new(doc, "lines", json_integer(sm_sweep_grid_lines(&c->grid)));
    json_t *cmd = json_array();
    json_array_append_new(cmd, json_string("stridemap"));
    for (int i = 0; i < argc; i++) json_array_append_new(cmd, json_string(argv[i]));
    json_t *part = json_object();
    json_object_set_new(part, "tag", json_string(tag));
    json_object_set_new(part, "command", cmd);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object_set_new(part, "host", json_string(host));
    char when[64];
    time_t t = time(NULL);
    struct tm tmv;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tmv));
    json_object_set_new(part, "started", json_string(when));
    json_object_set_new(part, "jobs", json_integer(c->jobs));
    json_object_set_new(part, "shard", json_pack("[I, I]", (json_int_t)c->shard_k, (json_int_t)c->shard_n));
    json_object_set_new(part, "resume", json_boolean(resume));
    static const char *const slurm_vars[] = {"SLURM_JOB_ID",        "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
                                             "SLURM_ARRAY_TASK_COUNT", "SLURM_PROCID",    "SLURM_NTASKS",
                                             "SLURM_CPUS_PER_TASK", "SLURM_JOB_NODELIST", "SLURM_CLUSTER_NAME"};
    json_t *slurm = json_object();
    for (size_t i = 0; i < sizeof slurm_vars / sizeof slurm_vars[0]; i++) {
        const char *v = getenv(slurm_vars[i]);
        if (v) json_object_set_new(slurm, slurm_vars[i], json_string(v));
    }
    json_object_set_new(part, "slurm", slurm);
    json_object_set_new(doc, "run", part);
    json_object_set_new(doc, "version", json_string(STRIDEMAP_VERSION));
    cli_json_schema(doc); /* after the signature: not a setting that decides rows */
    return doc;
}

/* The first signature key whose value differs, for the message; in key. */
static const char *first_difference(const char *a, const char *b, char key[static 64])
{
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
    snprintf(key, 64, "settings");
    const char *k;
    json_t *v;
    for (int pass = 0; ja && jb && pass < 2; pass++) {
        json_t *x = pass ? jb : ja, *y = pass ? ja : jb;
        bool found = false;
        json_object_foreach(x, k, v) {
            if (!json_equal(v, json_object_get(y, k))) {
                snprintf(key, 64, "%s", k);
                found = true;
                break;
            }
        }
        if (found) break;
    }
    json_decref(ja);
    json_decref(jb);
    return key;
}

int sweep_check_sidecars(const cli_run *run, const char *dir, json_t *sidecar)
{
    size_t n = 0;
    char **names = sm_sweep_list_parts(dir, ".json", &n);
    const char *mine = json_string_value(json_object_get(sidecar, "signature"));
    int rc = 0;
    char key[64];
    for (size_t i = 0; names && i < n && !rc; i++) {
        json_t *doc = json_load_file(names[i], 0, NULL);
        const char *theirs = json_string_value(json_object_get(doc, "signature"));
        const char *model = json_string_value(json_object_get(doc, "model"));
        const char *my_model = json_string_value(json_object_get(sidecar, "model"));
        /* Another model has other parameters too: name the model, the cause. */
        if (doc && theirs && model && my_model && strcmp(model, my_model) != 0)
            rc = cli_fail(run, EX_CANTCREAT,
                          "'%s' holds a sweep of another model ('%s', not '%s'; see %s); use another --out", dir,
                          model, my_model, names[i]);
        else if (doc && theirs && strcmp(theirs, mine) != 0)
            rc = cli_fail(run, EX_CANTCREAT, "'%s' holds another sweep ('%s' differs, see %s); use another --out",
                          dir, first_difference(theirs, mine, key), names[i]);
        json_decref(doc);
    }
    sm_sweep_free_list(names, n);
    return rc;
}

/* Writes doc to path through a temporary file.  0, or EX_CANTCREAT with
 * the reason in why (printed instead when why is NULL). */
static int write_json(const cli_run *run, const char *path, json_t *doc, char *why, size_t why_len)
{
    char tmp[4200], msg[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    errno = 0;
    int bad = json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(msg, sizeof msg, "cannot write '%s': %s", path, errno ? strerror(errno) : "write error");
        unlink(tmp);
        if (!why) return cli_fail(run, EX_CANTCREAT, "%s", msg);
        snprintf(why, why_len, "%s", msg);
        return EX_CANTCREAT;
    }
    return 0;
}

int sweep_write_sidecar(const cli_run *run, const char *dir, const char *tag, json_t *sidecar, char *why,
                        size_t why_len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/part-%s.json", dir, tag);
    return write_json(run, path, sidecar, why, why_len);
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    long n;
    return v && cli_parse_long(v, 0, 1L << 30, &n) ? n : dflt;
}

long sweep_launcher_ranks(void)
{
    /* OpenMPI's mpirun; MPICH/Hydra and srun --mpi=pmi2; PMIx (srun --mpi=pmix). */
    long size = env_long("OMPI_COMM_WORLD_SIZE", 0);
    if (size < 1) size = env_long("PMI_SIZE", 0);
    if (size < 1 && getenv("PMIX_RANK")) size = env_long("SLURM_STEP_NUM_TASKS", 0);
    static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        long r = env_long(ranks[i], 0);
        if (r + 1 > size) size = r + 1;
    }
    return size < 1 ? 1 : size;
}

int sweep_refuse_lone_ranks(const cli_run *run, long ranks, const char *why)
{
    return cli_fail(run, EX_UNAVAILABLE,
                    "started as one of %ld MPI ranks, but %s, so every rank would compute every point: "
                    "rebuild with MPI (apt-get install libopenmpi-dev openmpi-bin; meson setup build "
                    "-Dmpi=enabled) and launch with its mpirun, or run one process (--jobs N, or --shard K/N "
                    "per job)",
                    ranks, why);
}

int cli_merge_dir(const cli_run *run, const char *dir, bool quiet)
{
    size_t n = 0;
    char **names = sm_sweep_list_parts(dir, ".json", &n);
    if (!names) return cli_fail(run, EX_NOINPUT, "cannot read directory '%s': %s", dir, strerror(errno));
    if (n == 0) {
        sm_sweep_free_list(names, n);
        return cli_fail(run, EX_NOINPUT, "'%s' holds no sweep (no part-*.json)", dir);
    }
    json_t *merged = NULL, *parts = json_array();
    const char *sig = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        json_error_t err;
        json_t *doc = json_load_file(names[i], 0, &err);
        if (!doc) {
            rc = cli_fail(run, EX_DATAERR, "%s: %s", names[i], err.text);
            break;
        }
        const char *s = json_string_value(json_object_get(doc, "signature"));
        if (!merged) {
            merged = json_deep_copy(doc);
            json_object_del(merged, "run");
            json_object_del(merged, "rows_written");
            json_object_del(merged, "rows_without_gait");
            json_object_del(merged, "rows_not_converged");
            json_object_del(merged, "seconds");
            json_object_del(merged, "complete");
            sig = json_string_value(json_object_get(merged, "signature"));
        } else if (!s || !sig || strcmp(s, sig) != 0) {
            rc = cli_fail(run, EX_DATAERR, "%s belongs to another sweep than %s", names[i], names[0]);
        }
        json_t *part = json_deep_copy(json_object_get(doc, "run"));
        if (!part) part = json_object();
        static const char *const keys[] = {"rows_written", "rows_without_gait", "seconds", "complete",
                                           "rows_not_converged"};
        for (size_t k = 0; k < 5; k++)
            if (json_object_get(doc, keys[k])) json_object_set(part, keys[k], json_object_get(doc, keys[k]));
        json_array_append_new(parts, part);
        json_decref(doc);
    }
    sm_sweep_free_list(names, n);
    long total = merged ? (long)json_integer_value(json_object_get(merged, "points")) : 0;
    /* A basin is a sweep of cells (cmd_basin.c): its own file names, and its measures. */
    const char *kind = json_string_value(json_object_get(merged, "kind"));
    const bool basin = kind && strcmp(kind, "basin") == 0;
    const char *base = basin ? "basin" : "sweep";
    long rows = 0, missing = 0;
    char out[4096], why[1024];
    snprintf(out, sizeof out, "%s/%s.csv", dir, base);
    if (!rc) {
        sm_status st = sm_sweep_merge(dir, out, total, &rows, &missing, why, sizeof why);
        if (st != SM_OK) rc = cli_fail(run, cli_exit_code(st, EX_IOERR), "%s", why);
    }
    if (!rc && basin && missing == 0) rc = basin_measures_json(run, out, merged);
    if (!rc) {
        json_object_set_new(merged, "parts", parts);
        parts = NULL;
        json_object_set_new(merged, "rows", json_integer(rows));
        json_object_set_new(merged, "missing", json_integer(missing));
        cli_json_schema(merged); /* this stridemap's, whichever wrote the parts */
        snprintf(out, sizeof out, "%s/%s.json", dir, base);
        rc = write_json(run, out, merged, NULL, 0);
    }
    json_decref(parts);
    if (rc) {
        json_decref(merged);
        return rc;
    }
    if (missing > 0) {
        json_decref(merged);
        return cli_fail(run, CLI_EXIT_NO_GAIT,
                        "%ld of %ld points have no row yet; %s/%s.csv holds the other %ld (run the missing "
                        "shards, or the %s with --resume)",
                        missing, total, dir, base, rows, base);
    }
    if (!quiet) fprintf(stderr, "stridemap %s: %ld rows in %s/%s.csv\n", run->cmd, rows, dir, base);
    if (!quiet && basin) basin_print(stdout, merged);
    json_decref(merged);
    return 0;
}
