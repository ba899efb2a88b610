/* Sweeps: the same rows whatever the number of threads or shards, after an
 * interruption and a resume, and with a torn last line (grid specifications:
 * test_sweep_grid.c; the CSV's columns and rows: test_sweep_csv.c). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_read.h"
#include "sweep_dir.h"

/* ---- running sweeps ---- */

static void config(sm_sweep_config *c, const char *model, const char *g0, const char *g1)
{
    const sm_model *m = test_model(model);
    sm_sweep_config_default(c, m);
    char why[256];
    sm_sweep_axis a;
    assert_status(sm_sweep_axis_parse(m, g0, &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&c->grid, &a, why, sizeof why), SM_OK);
    if (g1) {
        assert_status(sm_sweep_axis_parse(m, g1, &a, why, sizeof why), SM_OK);
        assert_status(sm_sweep_grid_add(&c->grid, &a, why, sizeof why), SM_OK);
    }
    /* Looser than the defaults: these tests are about bookkeeping, not accuracy. */
    c->solver.rtol = c->solver.atol = 1e-8;
    c->newton.tol = 1e-8;
}

/* Runs a sweep into base_dir/name (fresh unless resume); returns the rows written. */
static long run_sweep(const sm_sweep_config *c, const char *name, const char *tag, bool resume)
{
    char why[512];
    sm_sweep *s = NULL;
    sm_status st = sm_sweep_open(c, dir(name), tag, resume, &s, why, sizeof why);
    if (st != SM_OK) print_error("open: %s\n", why);
    assert_status(st, SM_OK);
    assert_status(sm_sweep_start(s, why, sizeof why), SM_OK);
    assert_status(sm_sweep_wait(s, why, sizeof why), SM_OK);
    sm_sweep_stats stats;
    sm_sweep_stats_get(s, &stats);
    assert_true(stats.finished);
    sm_sweep_free(s);
    return stats.written;
}

/* Merges base_dir/name into its sweep.csv and returns its rows without the
 * wall_s column (rows_of; free() it). */
static char *merged(const char *name, long total)
{
    char why[512];
    const test_path d = in_dir(base_dir, name), out = in_dir(d.s, "sweep.csv");
    long rows = 0, missing = 0;
    sm_status st = sm_sweep_merge(d.s, out.s, total, &rows, &missing, why, sizeof why);
    if (st != SM_OK) print_error("merge: %s\n", why);
    assert_status(st, SM_OK);
    assert_int_equal(rows, total);
    assert_int_equal(missing, 0);
    return rows_of(d.s, "sweep.csv");
}

static void same_rows_with_1_2_and_4_threads_and_3_shards(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "simplest", "gamma=0.002:0.02:8", NULL);
    c.jobs = 1;
    assert_int_equal(run_sweep(&c, "t1", "local", false), 8);
    char *ref = merged("t1", 8);
    c.jobs = 4;
    assert_int_equal(run_sweep(&c, "t4", "local", false), 8);
    char *four = merged("t4", 8);
    assert_string_equal(ref, four);
    free(ref);
    free(four);

    config(&c, "rimless", "gamma=0.02:0.2:6", "n=5:9:5");
    c.jobs = 1;
    run_sweep(&c, "r1", "local", false);
    ref = merged("r1", 30);
    c.jobs = 2;
    run_sweep(&c, "r2", "local", false);
    char *two = merged("r2", 30);
    assert_string_equal(ref, two);
    c.jobs = 4;
    run_sweep(&c, "r4", "local", false);
    four = merged("r4", 30);
    assert_string_equal(ref, four);
    c.jobs = 2;
    c.shard_n = 3;
    long sum = 0;
    for (c.shard_k = 0; c.shard_k < 3; c.shard_k++) {
        char tag[32];
        snprintf(tag, sizeof tag, "shard-%ld-of-3", c.shard_k);
        sum += run_sweep(&c, "rs", tag, false);
    }
    assert_int_equal(sum, 30);
    char *shards = merged("rs", 30);
    assert_string_equal(ref, shards);
    free(ref);
    free(two);
    free(four);
    free(shards);
}

static void three_axes_give_the_same_rows_with_3_threads_and_5_shards(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "rimless", "gamma=0.05:0.2:4", "n=6:9:4");
    char why[256];
    sm_sweep_axis a;
    assert_status(sm_sweep_axis_parse(c.model, "l=0.5:1.5:3", &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(&c.grid, &a, why, sizeof why), SM_OK);
    assert_int_equal(sm_sweep_grid_lines(&c.grid), 12);
    c.jobs = 1;
    run_sweep(&c, "a1", "local", false);
    char *ref = merged("a1", 48);
    c.jobs = 3;
    run_sweep(&c, "a3", "local", false);
    char *three = merged("a3", 48);
    assert_string_equal(ref, three);
    c.jobs = 2;
    c.shard_n = 5;
    for (c.shard_k = 0; c.shard_k < 5; c.shard_k++) {
        char tag[32];
        snprintf(tag, sizeof tag, "shard-%ld-of-5", c.shard_k);
        run_sweep(&c, "a5", tag, false);
    }
    char *five = merged("a5", 48);
    assert_string_equal(ref, five);
    free(ref);
    free(three);
    free(five);
}

static void segments_give_the_same_rows_with_threads_shards_and_a_resume(void **state)
{
    (void)state;
    sm_sweep_config c;
    /* 10 points per line in segments of 4, 4 and 2: 3 units per line, 9 units. */
    config(&c, "rimless", "gamma=0.02:0.2:10", "n=6:8:3");
    c.segment = 4;
    c.jobs = 1;
    run_sweep(&c, "s1", "local", false);
    char *ref = merged("s1", 30);
    c.jobs = 4;
    run_sweep(&c, "s4", "local", false);
    char *four = merged("s4", 30);
    assert_string_equal(ref, four);
    c.jobs = 2;
    c.shard_n = 2;
    for (c.shard_k = 0; c.shard_k < 2; c.shard_k++)
        run_sweep(&c, "s2", c.shard_k ? "shard-1-of-2" : "shard-0-of-2", false);
    char *shards = merged("s2", 30);
    assert_string_equal(ref, shards);
    c.shard_n = 1;
    c.shard_k = 0;
    c.stop_after = 11;
    assert_int_equal(run_sweep(&c, "sr", "local", false), 11);
    c.stop_after = 0;
    assert_int_equal(run_sweep(&c, "sr", "local", true), 19);
    char *resumed = merged("sr", 30);
    assert_string_equal(ref, resumed);
    free(ref);
    free(four);
    free(shards);
    free(resumed);
}

static void an_interrupted_sweep_resumed_gives_the_same_rows(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "rimless", "gamma=0.02:0.2:6", "n=5:8:4");
    c.jobs = 2;
    run_sweep(&c, "whole", "local", false);
    char *ref = merged("whole", 24);

    c.stop_after = 7;
    assert_int_equal(run_sweep(&c, "cut", "local", false), 7);
    /* Without --resume the directory is refused. */
    char why[512];
    sm_sweep *s = NULL;
    assert_status(sm_sweep_open(&c, dir("cut"), "local", false, &s, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "resume = true"));
    assert_null(s);
    c.stop_after = 0;
    assert_int_equal(run_sweep(&c, "cut", "local", true), 24 - 7);
    char *resumed = merged("cut", 24);
    assert_string_equal(ref, resumed);
    /* A finished sweep resumed has nothing to do. */
    assert_int_equal(run_sweep(&c, "cut", "local", true), 0);
    free(resumed);
    free(ref);
}

static void a_torn_last_line_is_redone(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "simplest", "gamma=0.002:0.02:10", NULL);
    run_sweep(&c, "ref", "local", false);
    char *ref = merged("ref", 10);

    c.stop_after = 4;
    run_sweep(&c, "torn", "local", false);
    const test_path path = in_dir(dir("torn"), "part-local.csv");
    /* A crash in the middle of a row: half of the fifth row, no newline. */
    FILE *f = fopen(path.s, "a");
    assert_non_null(f);
    fputs("4,0.0099999999999999985,stable,ok,ok,1,1,0.61", f);
    fclose(f);
    c.stop_after = 0;
    assert_int_equal(run_sweep(&c, "torn", "local", true), 6);
    char *resumed = merged("torn", 10);
    assert_string_equal(ref, resumed);
    /* The part file itself is whole again: every line ends and has every column. */
    FILE *p = fopen(path.s, "r");
    char line[8192];
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        assert_non_null(strchr(line, '\n'));
        lines++;
    }
    fclose(p);
    assert_int_equal(lines, 11);
    free(resumed);
    free(ref);
}

/* Names from a model file may hold a comma, a quote or a line break: the
 * header quotes them, and resume and merge still find every column. */
static void odd_names_are_quoted_in_the_header_and_merge_reads_them(void **state)
{
    (void)state;
    sm_model m = *test_model("rimless");
    assert_int_equal(m.n_state, 2);
    static const char *const names[] = {"a,b", "say \"hi\"\nthere"};
    m.state_names = names;
    sm_sweep_config c;
    sm_sweep_config_default(&c, &m);
    char why[256];
    sm_sweep_axis a;
    assert_status(sm_sweep_axis_parse(&m, "gamma=0.05:0.2:3", &a, why, sizeof why), SM_OK);
    snprintf(a.name, sizeof a.name, "gam,ma");
    assert_status(sm_sweep_grid_add(&c.grid, &a, why, sizeof why), SM_OK);
    c.solver.rtol = c.solver.atol = 1e-8;
    c.newton.tol = 1e-8;

    char header[8192];
    size_t hl = sm_sweep_csv_header(&m, &c.grid, header, sizeof header);
    assert_true(hl > 0);
    assert_non_null(strstr(header, "index,\"gam,ma\",outcome,"));
    assert_non_null(strstr(header, ",\"x_a,b\",\"x_say \"\"hi\"\"\nthere\",seed,"));
    char fields[128][64];
    const char *end;
    size_t nf = rfc4180_record(header, fields, 128, &end);
    assert_int_equal(end - header, (long)hl);
    assert_string_equal(fields[1], "gam,ma");
    size_t xi = 0;
    while (xi < nf && strcmp(fields[xi], "seed") != 0) xi++;
    assert_true(xi >= 2 && xi < nf);
    assert_string_equal(fields[xi - 2], "x_a,b");
    assert_string_equal(fields[xi - 1], "x_say \"hi\"\nthere");

    /* Stopped after two rows and resumed: the own part file is read back. */
    c.stop_after = 2;
    run_sweep(&c, "odd", "local", false);
    c.stop_after = 0;
    assert_int_equal(run_sweep(&c, "odd", "local", true), 1);
    const test_path odd = in_dir(base_dir, "odd"), out = in_dir(odd.s, "sweep.csv");
    long rows = 0, missing = 0;
    sm_status st = sm_sweep_merge(odd.s, out.s, 3, &rows, &missing, why, sizeof why);
    if (st != SM_OK) print_error("merge: %s\n", why);
    assert_status(st, SM_OK);
    assert_int_equal(rows, 3);
    assert_int_equal(missing, 0);
    FILE *f = fopen(out.s, "r");
    assert_non_null(f);
    char text[16384];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    assert_memory_equal(text, header, hl);
    const char *p = text + hl;
    for (long i = 0; i < 3; i++) {
        assert_int_equal(rfc4180_record(p, fields, 128, &end), nf);
        assert_int_equal(strtol(fields[0], NULL, 10), i);
        assert_string_equal(fields[2], "stable"); /* outcome, after index and gamma */
        assert_string_equal(fields[3], "ok");
        p = end;
    }
    assert_int_equal(*p, '\0');
}

static void falls_are_rows_not_crashes(void **state)
{
    (void)state;
    sm_sweep_config c;
    /* A five-spoke wheel on a shallow slope stops and rolls back. */
    config(&c, "rimless", "gamma=0:0.2:5", "n=5:6:2");
    c.jobs = 2;
    assert_int_equal(run_sweep(&c, "falls", "local", false), 10);
    FILE *f = fopen(in_dir(dir("falls"), "part-local.csv").s, "r");
    char line[8192];
    int fell = 0, stable = 0;
    while (fgets(line, sizeof line, f)) {
        fell += strstr(line, ",fell,not_converged,fell_backward,") != NULL;
        stable += strstr(line, ",stable,ok,") != NULL;
    }
    fclose(f);
    assert_true(fell >= 1);
    assert_true(stable >= 1);
    assert_int_equal(fell + stable, 10);
}

static void an_unwritable_directory_is_refused_before_any_work(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "simplest", "gamma=0.002:0.02:10", NULL);
    char why[512];
    const test_path file = in_dir(base_dir, "a-file");
    FILE *f = fopen(file.s, "w");
    fclose(f);
    sm_sweep *s = NULL;
    assert_status(sm_sweep_open(&c, file.s, "local", false, &s, why, sizeof why), SM_IO_ERROR);
    assert_non_null(strstr(why, "not a directory"));
    assert_status(sm_sweep_open(&c, in_dir(file.s, "sub").s, "local", false, &s, why, sizeof why), SM_IO_ERROR);
    assert_null(s);
}

/* The "same sweep?" check is the library's own: a C caller that resumes
 * with another rtol, another shard's Newton tolerance or another fixed
 * parameter is refused, with the field that differs, before any row is
 * mixed in; the same settings resume. */
static void resuming_another_sweep_is_refused_by_the_library(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "rimless", "gamma=0.02:0.2:3", NULL);
    c.stop_after = 1;
    assert_int_equal(run_sweep(&c, "sig", "local", false), 1);
    char why[1024];
    const test_path sig = in_dir(base_dir, "sig"), path = in_dir(sig.s, "part-local.csv");
    FILE *f = fopen(path.s, "r");
    assert_non_null(f);
    char before[4096];
    const size_t n_before = fread(before, 1, sizeof before, f);
    fclose(f);
    c.stop_after = 0;
    sm_sweep *s = NULL;

    sm_sweep_config other = c;
    other.solver.rtol = 1e-9;
    assert_status(sm_sweep_open(&other, sig.s, "local", true, &s, why, sizeof why), SM_BAD_OPTION);
    assert_null(s);
    if (!strstr(why, "sm_sweep_config.solver.rtol")) fail_msg("does not name the field: %s", why);
    if (strstr(why, "--")) fail_msg("names a flag: %s", why);

    /* Another shard of DIR counts too. */
    other = c;
    other.newton.tol = 1e-9;
    assert_status(sm_sweep_open(&other, sig.s, "shard1", false, &s, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_sweep_config.newton.tol"));

    other = c;
    other.params[2] = 0.5 * c.params[2]; /* g, a fixed parameter (gamma is swept) */
    assert_status(sm_sweep_open(&other, sig.s, "local", true, &s, why, sizeof why), SM_BAD_OPTION);
    assert_non_null(strstr(why, "sm_sweep_config.params["));

    /* Nothing was added to the part file by the refusals. */
    f = fopen(path.s, "r");
    assert_non_null(f);
    char after[4096];
    const size_t n_after = fread(after, 1, sizeof after, f);
    fclose(f);
    assert_int_equal(n_after, n_before);
    assert_memory_equal(after, before, n_before);

    /* The same settings resume and finish it. */
    assert_int_equal(run_sweep(&c, "sig", "local", true), 2);
}

/* A sweep's points start from their neighbours' gaits and Jacobians, and
 * Newton carries the Jacobian by Broyden's updates: the compass map finds
 * at every point the outcome full Newton (no updates, no Jacobian seeds)
 * finds, its gaits within the Newton tolerance's reach, in fewer strides.
 * Both sweeps' stride counts are their own, read from their rows. */
static void seeded_broyden_sweep_finds_the_full_newton_rows_in_fewer_strides(void **state)
{
    (void)state;
    sm_sweep_config c;
    config(&c, "compass", "b=0.1:2:6", "mh=0.1:10:6");
    c.params[sm_model_param_index(c.model, "m")] = 1;
    c.params[sm_model_param_index(c.model, "a")] = 1;
    c.solver.rtol = c.solver.atol = 1e-10;
    c.newton.tol = 1e-10;
    c.newton.update = SM_NEWTON_FULL;
    run_sweep(&c, "full", "local", false);
    char *rows[2] = {merged("full", 36), NULL};
    c.newton.update = SM_NEWTON_BROYDEN;
    run_sweep(&c, "broyden", "local", false);
    rows[1] = merged("broyden", 36);
    char f[2][64][64];
    const char *at[2] = {rows[0], rows[1]};
    size_t nf = rfc4180_record(at[0], f[0], 64, &at[0]);
    rfc4180_record(at[1], f[1], 64, &at[1]);
    assert_true(nf <= 64);
    const int outcome = column(f[0], nf, "outcome"), evals = column(f[0], nf, "stride_evals");
    const int x0 = column(f[0], nf, "x_th_st");
    assert_true(outcome >= 0 && evals >= 0 && x0 >= 0);
    long strides[2] = {0, 0};
    double worst = 0.0;
    for (int i = 0; i < 36; i++) {
        for (int k = 0; k < 2; k++) {
            assert_int_equal(rfc4180_record(at[k], f[k], 64, &at[k]), nf);
            strides[k] += atol(f[k][evals]);
        }
        assert_string_equal(f[0][outcome], f[1][outcome]);
        if (strcmp(f[0][outcome], "stable") == 0 || strcmp(f[0][outcome], "unstable") == 0)
            for (int j = 0; j < 4; j++) worst = fmax(worst, fabs(atof(f[0][x0 + j]) - atof(f[1][x0 + j])));
    }
    print_message("36 compass points: %ld strides with full Newton, %ld seeded Broyden; gaits %.2g apart\n",
                  strides[0], strides[1], worst);
    assert_true(worst <= 1e-8);
    assert_true(strides[1] < strides[0]);
    free(rows[0]);
    free(rows[1]);
}

/* A standing "gait" is its own outcome, and a Newton that stalled near the
 * integration error is not converged even when some trial strides fell: a
 * sweep row must not call either a gait or a fall.  Run on the real
 * walkers, not on hand-made results. */
static void degenerate_and_stalled_points_are_named(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    double p[SM_MAX_PARAMS] = {0.009}, x[4] = {-0.19, 0.2, -0.38, 0.0};
    m->lift(x, p, m->data);
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    static sm_sweep_point pt;
    sm_fixed_point(ws, p, x, &no, &pt.r);
    assert_int_equal(sm_sweep_point_outcome(&pt), SM_OUTCOME_DEGENERATE);
    assert_string_equal(sm_sweep_outcome_name(SM_OUTCOME_DEGENERATE), "degenerate");
    sm_workspace_free(ws);

    const sm_model *c = test_model("compass");
    double pc[SM_MAX_PARAMS], xc[SM_MAX_STATE];
    sm_model_default_params(c, pc);
    c->guess(xc, pc, c->data);
    ws = test_workspace(c, 1e-3, SM_METHOD_ADAMS);
    no.update = SM_NEWTON_FULL; /* stalls here; Broyden's secants reach a fixed point of this coarse map */
    sm_fixed_point(ws, pc, xc, &no, &pt.r);
    assert_status(pt.r.status, SM_STALLED);
    assert_int_equal(sm_sweep_point_outcome(&pt), SM_OUTCOME_NOT_CONVERGED);
    sm_workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_rows_with_1_2_and_4_threads_and_3_shards),
        cmocka_unit_test(three_axes_give_the_same_rows_with_3_threads_and_5_shards),
        cmocka_unit_test(segments_give_the_same_rows_with_threads_shards_and_a_resume),
        cmocka_unit_test(an_interrupted_sweep_resumed_gives_the_same_rows),
        cmocka_unit_test(a_torn_last_line_is_redone),
        cmocka_unit_test(odd_names_are_quoted_in_the_header_and_merge_reads_them),
        cmocka_unit_test(falls_are_rows_not_crashes),
        cmocka_unit_test(degenerate_and_stalled_points_are_named),
        cmocka_unit_test(an_unwritable_directory_is_refused_before_any_work),
        cmocka_unit_test(resuming_another_sweep_is_refused_by_the_library),
        cmocka_unit_test(seeded_broyden_sweep_finds_the_full_newton_rows_in_fewer_strides),
    };
    return cmocka_run_group_tests_name("sweep", tests, sweep_dir_setup, sweep_dir_teardown);
}
