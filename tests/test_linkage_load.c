/* Model files (src/linkage/load.c): opened through the registry, errors
 * with file:line:column, one document, declared phase sequences, the
 * fuzzer's corpus, and the program reading files. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli_run.h"
#include "linkage_util.h"

static void test_registry_opens_files(void **state)
{
    const sm_model *m = NULL;
    char why[1024];
    assert_status(sm_registry_open(src_path("tests/data/linkage_models/compass.yaml"), &m, why, sizeof why), SM_OK);
    assert_non_null(sm_linkage_of(m));
    assert_string_equal(m->name, "compass_file");
    assert_true(sm_model_param_index(m, "leg.mass") >= 0);
    assert_true(sm_model_param_index(m, "hip.mass") >= 0);
    assert_true(sm_model_param_index(m, "foot.radius") >= 0);
    char w2[512];
    assert_status(sm_model_validate(m, w2, sizeof w2), SM_OK);
    sm_registry_close(m);
    assert_null(sm_linkage_of(test_model("simplest")));
    sm_registry_close(test_model("simplest"));
    assert_status(sm_registry_open("/nonexistent/x.yaml", &m, why, sizeof why), SM_IO_ERROR);
    assert_null(m);
}

#define GOOD_HEAD "gravity: 9.81\nslope: 0.05\nhip: {mass: 10}\n"

static void expect_error(const char *text, const char *where, const char *what)
{
    const char *path = write_tmp(text);
    sm_linkage *lk = NULL;
    char why[2048] = "";
    const sm_status st = sm_linkage_load(path, &lk, why, sizeof why);
    unlink(path);
    if (st != SM_BAD_MODEL_FILE || lk) fail_msg("status %s for:\n%s", sm_status_name(st), text);
    char want[512];
    snprintf(want, sizeof want, "%s:%s", path, where);
    if (!strstr(why, want)) fail_msg("'%s' lacks '%s'", why, want);
    if (!strstr(why, what)) fail_msg("'%s' lacks '%s'", why, what);
    assert_null(strchr(why, '\n'));
}

static void test_file_errors(void **state)
{
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5, colour: red}\n", "5:",
                 "colour");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, com: 0.5}\n", "5:", "mass");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: one, mass: 5, com: 0.5}\n", "5:", "length");
    expect_error(GOOD_HEAD "links:\n  - name: leg\n    length: 1\n    mass: -5\n    com: 0.5\n", "7:11:",
                 "mass must be zero or positive");
    expect_error(GOOD_HEAD "links:\n  - name: leg\n    length: 0\n    mass: 5\n    com: 0.5\n", "6:13:",
                 "length must be positive");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\nknee: {stop: true}\n", "6:",
                 "a knee is given but the leg has one link");
    expect_error("gravity: 9.81\nhip: {mass: 10}\nlinks:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n", "",
                 "slope");
    expect_error(GOOD_HEAD "links: 3\n", "4:", "links");
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\nfoot: {radius: 2}\n", "6:",
                 "foot radius");
    expect_error("{{{{\n", "", "");
    expect_error("", "", "empty");
    /* names that would split a CSV header or a line (stridemap merge reads
     * the columns thigh.mass, ... back) */
    expect_error(GOOD_HEAD "links:\n  - {name: \"le,g\", length: 1, mass: 5, com: 0.5}\n", "5:12: ", "a comma");
    expect_error(GOOD_HEAD "links:\n  - {name: 'le\"g', length: 1, mass: 5, com: 0.5}\n", "5:12: ",
                 "a double quote");
    expect_error(GOOD_HEAD "links:\n  - name: \"le\\ng\"\n    length: 1\n    mass: 5\n    com: 0.5\n", "5:11: ",
                 "a line break");
    expect_error("name: \"my,walker\"\n" GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n",
                 "1:7: ", "the model's name contains a comma");
    /* a second document would be ignored */
    expect_error(GOOD_HEAD "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n---\nslope: 0.1\n", "6:1: ",
                 "a second YAML document");
}

/* One document, opened by an explicit '---', is fine; a directory is not a
 * model file (SM_IO_ERROR, as a file that cannot be opened: exit 66). */
static void test_file_document_and_directory(void **state)
{
    const char *path = write_tmp("---\n" GOOD_HEAD "links:\n  - {name: leg_1, length: 1, mass: 5, com: 0.5}\n");
    sm_linkage *lk = NULL;
    char why[2048] = "";
    assert_status(sm_linkage_load(path, &lk, why, sizeof why), SM_OK);
    unlink(path);
    assert_true(sm_model_param_index(sm_linkage_model(lk), "leg_1.mass") >= 0);
    sm_linkage_free(lk);

    char dir[] = "/tmp/stridemap_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_status(sm_linkage_load(dir, &lk, why, sizeof why), SM_IO_ERROR);
    assert_null(lk);
    rmdir(dir);
    if (!strstr(why, "is a directory")) fail_msg("'%s' does not say it is a directory", why);
    assert_non_null(strstr(why, dir));
    assert_null(strchr(why, '\n'));
}

static char *read_text(const char *rel)
{
    FILE *f = fopen(src_path(rel), "rb");
    assert_non_null(f);
    static char buf[4][8192];
    static int k = 0;
    k = (k + 1) % 4;
    const size_t n = fread(buf[k], 1, sizeof buf[k] - 1, f);
    fclose(f);
    buf[k][n] = '\0';
    return buf[k];
}

/* Loads text (with every occurrence of cut removed, if given, and add
 * appended) from a temporary file. */
static sm_linkage *load_text(const char *text, const char *cut, const char *add)
{
    static char t[9000];
    snprintf(t, sizeof t, "%s", text);
    if (cut) {
        char *c = strstr(t, cut);
        if (!c) fail_msg("'%s' not in the file", cut);
        memmove(c, c + strlen(cut), strlen(c + strlen(cut)) + 1);
    }
    strncat(t, add, sizeof t - strlen(t) - 1);
    const char *path = write_tmp(t);
    sm_linkage *lk = NULL;
    char why[2048] = "";
    const sm_status st = sm_linkage_load(path, &lk, why, sizeof why);
    unlink(path);
    if (st != SM_OK) fail_msg("%s", why);
    return lk;
}

/* Two walkers give bit-identical strides (two steps) from the same state. */
static void same_strides(sm_linkage *a, sm_linkage *b)
{
    const sm_model *ma = sm_linkage_model(a), *mb = sm_linkage_model(b);
    assert_int_equal(ma->n_state, mb->n_state);
    assert_int_equal(ma->n_phases, mb->n_phases);
    assert_int_equal(ma->n_free, mb->n_free);
    for (size_t k = 0; k < ma->n_phases; k++) assert_string_equal(ma->phases[k].name, mb->phases[k].name);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], ya[SM_MAX_STATE], yb[SM_MAX_STATE];
    sm_model_default_params(ma, p);
    ma->guess(x, p, ma->data);
    sm_workspace *wa = test_workspace(ma, 1e-10, SM_METHOD_ADAMS), *wb = test_workspace(mb, 1e-10, SM_METHOD_ADAMS);
    for (int step = 0; step < 2; step++) {
        sm_step_metrics mta, mtb;
        assert_status(sm_stride(wa, p, x, ya, &mta, NULL), SM_OK);
        assert_status(sm_stride(wb, p, x, yb, &mtb, NULL), SM_OK);
        for (size_t i = 0; i < ma->n_state; i++)
            if (ya[i] != yb[i]) fail_msg("step %d, state %zu: %.17g != %.17g", step, i, ya[i], yb[i]);
        assert_true(mta.period == mtb.period);
        memcpy(x, ya, sizeof x);
    }
    sm_workspace_free(wa);
    sm_workspace_free(wb);
}

/* phases: [knee_free, knee_locked] is the default of kneed legs,
 * [knee_locked] is knee: {locked: true}, [swing] the default of straight
 * legs: declared, each gives the same walker, stride for stride. */
static void test_declared_phases_identical(void **state)
{
    const char *mcgeer = read_text("tests/data/linkage_models/kneed_mcgeer.yaml");
    sm_linkage *a = load_ok("tests/data/linkage_models/kneed_mcgeer.yaml");
    sm_linkage *b = load_text(mcgeer, NULL, "phases: [knee_free, knee_locked]\n");
    same_strides(a, b);
    sm_linkage_free(b);
    sm_linkage_free(a);

    const char *locked = read_text("tests/data/linkage_models/kneed_mcgeer_locked.yaml");
    const char *line = "  locked: true      # both knees locked: the straight-legged phase sequence\n";
    a = load_ok("tests/data/linkage_models/kneed_mcgeer_locked.yaml");
    b = load_text(locked, line, "phases: [knee_locked]\n");
    same_strides(a, b);
    sm_linkage_free(b);
    b = load_text(locked, NULL, "phases: [knee_locked]\n"); /* both: consistent */
    same_strides(a, b);
    sm_linkage_free(b);
    sm_linkage_free(a);

    a = load_ok("tests/data/linkage_models/compass.yaml");
    b = load_text(read_text("tests/data/linkage_models/compass.yaml"), NULL, "phases: [swing]\n");
    same_strides(a, b);
    sm_linkage_free(b);
    sm_linkage_free(a);
}

#define KNEED_LINKS                                                                                          \
    "links:\n  - {name: thigh, length: 0.5, mass: 1, com: 0.2}\n  - {name: shank, length: 0.5, mass: 0.5, com: " \
    "0.2}\n"

static void test_phase_errors(void **state)
{
    const char *leg = "links:\n  - {name: leg, length: 1, mass: 5, com: 0.5}\n";
    char t[1024];
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: [knee_free]\n", leg);
    expect_error(t, "6:10: ", "phase 'knee_free' needs a knee but the leg has one link");
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: [swing, hop]\n", leg);
    expect_error(t, "6:17: ", "unknown phase 'hop'");
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: []\n", leg);
    expect_error(t, "6:9: ", "phases is empty");
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: [swing, swing]\n", leg);
    expect_error(t, "6:17: ", "phase 'swing' cannot come here"); /* not ignored */
    snprintf(t, sizeof t, GOOD_HEAD "%sphases: knee_free\n", leg);
    expect_error(t, "6:", "phases");
    expect_error(GOOD_HEAD KNEED_LINKS "knee:\n  stop: true\n  locked: true\nphases: [knee_free, knee_locked]\n",
                 "9:11: ", "conflicts with phases listing knee_free");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [swing]\n", "8:10: ",
                 "phase 'swing' is the step of straight legs");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [knee_locked, knee_free]\n", "8:23: ",
                 "phase 'knee_free' cannot come here");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [knee_free, knee_free]\n", "8:21: ",
                 "cannot come here");
    expect_error(GOOD_HEAD KNEED_LINKS "knee:\n  hold_at_heelstrike: true\nphases: [knee_free]\n", "8:23: ",
                 "phases: [knee_free] never locks it");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: false}\nphases: [knee_free, knee_locked]\n", "7:",
                 "set 'stop: true'");
    expect_error(GOOD_HEAD KNEED_LINKS "knee: {stop: true}\nphases: [knee_free]\nguess: [0.2, -0.2, -0.2, 0, -1, 0, 0, 0]\n",
                 "9:", "guess: a full state of 4 or 6 numbers"); /* the bend is not guessed */
}

/* The fuzzer's kept corpus (tests/fuzz/fuzz_linkage.c): every file loads or
 * is refused with one line, and every model that loads evaluates. */
static int corpus_file(const struct dirent *e) { return e->d_name[0] != '.'; }

static void test_fuzz_corpus(void **state)
{
    struct dirent **names = NULL;
    const int n = scandir(src_path("tests/data/linkage_corpus"), &names, corpus_file, alphasort);
    assert_true(n > 10);
    int loaded = 0;
    for (int i = 0; i < n; i++) {
        char rel[600];
        snprintf(rel, sizeof rel, "tests/data/linkage_corpus/%s", names[i]->d_name);
        free(names[i]);
        sm_linkage *lk = NULL;
        char why[1024];
        const sm_status st = sm_linkage_load(src_path(rel), &lk, why, sizeof why);
        if (st != SM_OK) {
            assert_null(lk);
            assert_null(strchr(why, '\n'));
            assert_true(strlen(why) > 0);
            continue;
        }
        loaded++;
        const sm_model *m = sm_linkage_model(lk);
        double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xd[SM_MAX_STATE], y[SM_MAX_STATE];
        sm_model_default_params(m, p);
        m->guess(x, p, m->data);
        for (size_t k = 0; k < m->n_phases; k++) (void)m->phases[k].rhs(0.0, x, xd, p, m->data);
        (void)m->phases[m->n_phases - 1].events[0].reset(x, y, p, m->data);
        (void)m->kinetic_energy(x, p, m->data);
        sm_linkage_free(lk);
    }
    free(names);
    assert_true(loaded > 0);
}

/* ---- the program ------------------------------------------------------------ */

int main(int argc, char **argv)
{
    /* absolute: the program runs in the source tree */
    static char abs_exe[4096];
    if (argc > 1 && realpath(argv[1], abs_exe)) cli_exe = abs_exe;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_opens_files),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_file_document_and_directory),
        cmocka_unit_test(test_fuzz_corpus),
        cmocka_unit_test(test_declared_phases_identical),
        cmocka_unit_test(test_phase_errors),
    };
    return cmocka_run_group_tests_name("linkage_load", tests, NULL, NULL);
}
