/* A force's phases: (docs/body-walkers.md, forces:): a spring or damper
 * that acts only in the phases it lists, every phase without the key.
 * - a block slowed by a damper in both of its phases and one in the
 *   second alone (tests/data/body_models/damper_phases.yaml): its speed
 *   at the section and the step's time against the closed forms of each
 *   phase's damping (a damper on in the wrong phase, or in none, moves
 *   both), at two sets of parameters;
 * - the map's exact Jacobian (sensitivities through the two phases and
 *   the event between them) against the closed form, dv2/dv0 = 1, and
 *   the finite differences;
 * - the loader's refusals at the force's line (an unknown phase, one
 *   named twice, an empty list, no list), and the program's exit 65;
 * - integrate: reduced (src/body/reduced.c, its own loop over the forces):
 *   models/kneed_mcgeer.yaml with a hip damper in its knee_locked phase
 *   alone steps as the full formulation does, and differs from the same
 *   damper in every phase and from none;
 * - the same for a pd law's feedforward (feedforward: phases:): a block
 *   pushed by u(s) = c0 + c1 s in the second of its phases alone
 *   (tests/data/body_models/feedforward_phases.yaml), its speed at the
 *   section against the work of the push in that phase, and its refusals. */
#include <unistd.h>

#include "cli_run.h"
#include "hzd_checks.h"
#include "stridemap/poincare.h"

#define BLOCK SM_SOURCE_DIR "/tests/data/body_models/damper_phases.yaml"
#define PUSHED SM_SOURCE_DIR "/tests/data/body_models/feedforward_phases.yaml"

static void test_closed_form(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(BLOCK);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const double mass = 2.0, a = 1.0, b = 2.0;
    for (int k = 0; k < 2; k++) {
        const double c_all = k ? 0.5 : 1.0, c_late = k ? 4.0 : 3.0, v0 = k ? 6.0 : 5.0;
        p[sm_model_param_index(m, "c_all")] = c_all;
        p[sm_model_param_index(m, "c_late")] = c_late;
        m->guess(x, p, m->data);
        x[2] = v0; /* block_x_dot after block_x and block_z */
        sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, xo, &mt, NULL), SM_OK);
        const double v1 = v0 - c_all / mass * a, v2 = v1 - (c_all + c_late) / mass * (b - a);
        const double t = mass / c_all * log(v0 / v1) + mass / (c_all + c_late) * log(v1 / v2);
        print_message("c_all %g c_late %g: v2 %.12g (closed form %.12g), T %.12g (%.12g)\n", c_all, c_late, xo[2], v2,
                      mt.period, t);
        assert_close(xo[2], v2, 1e-8);
        assert_close(mt.period, t, 1e-8);
        sm_workspace_free(ws);
    }
    sm_registry_close(m);
}

static void test_exact_jacobian(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(BLOCK);
    assert_int_equal(m->n_free, 1);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], z[1], J[1], Jfd[1];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_model_free(m, x, z);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
    long evals = 0;
    assert_status(sm_map_jacobian_exact(ws, p, 1, z, NULL, J, &evals), SM_OK);
    assert_status(sm_stability_jacobian(ws, p, 1, z, sm_stability_fd_step(0, 1e-12), Jfd, &evals), SM_OK);
    print_message("dv2/dv0: exact %.12g, differences %.12g (closed form 1)\n", J[0], Jfd[0]);
    assert_close(J[0], 1.0, 1e-7);
    assert_close(Jfd[0], 1.0, 1e-7);
    sm_workspace_free(ws);
    sm_registry_close(m);
}

/* models/kneed_mcgeer.yaml with `extra` appended and its formulation
 * `integrate`, in the test's directory: one step from its guess, the free
 * coordinates z at its end and the step's time. */
static char red_dir[] = "/tmp/sm_test_force_phases_redXXXXXX";

static double mcgeer_step(const char *extra, const char *integrate, double *z, char names[][32], size_t *n)
{
    char path[300], line[1024];
    snprintf(path, sizeof path, "%s/mcgeer.yaml", red_dir);
    FILE *in = fopen(SM_SOURCE_DIR "/models/kneed_mcgeer.yaml", "r"), *f = fopen(path, "w");
    assert_non_null(in);
    assert_non_null(f);
    /* the file's own formulation gives way to the one asked for */
    while (fgets(line, sizeof line, in))
        if (strncmp(line, "integrate:", 10) != 0) fputs(line, f);
    fprintf(f, "%s%s\n", extra, integrate);
    fclose(in);
    fclose(f);
    const sm_model *m = hzd_open_file(path);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x, xo, &mt, NULL), SM_OK);
    sm_model_free(m, xo, z);
    for (size_t i = 0; i < m->n_free; i++) snprintf(names[i], 32, "%s", m->state_names[m->free_index[i]]);
    *n = m->n_free;
    sm_workspace_free(ws);
    sm_registry_close(m);
    remove(path);
    return mt.period;
}

static void test_reduced(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(red_dir));
    const char *late = "forces:\n  - {name: hip_damper, on: {thigh_b: 1, thigh_a: -1}, damping: 0.05, phases: [knee_locked]}\n";
    const char *every = "forces:\n  - {name: hip_damper, on: {thigh_b: 1, thigh_a: -1}, damping: 0.05}\n";
    double zf[SM_MAX_STATE], zr[SM_MAX_STATE], ze[SM_MAX_STATE], z0[SM_MAX_STATE];
    char nf[SM_MAX_STATE][32], nr[SM_MAX_STATE][32], ne[SM_MAX_STATE][32], n0[SM_MAX_STATE][32];
    size_t n, nn;
    const double Tf = mcgeer_step(late, "integrate: full", zf, nf, &n);
    const double Tr = mcgeer_step(late, "integrate: reduced", zr, nr, &nn);
    assert_int_equal(nn, n);
    const double Te = mcgeer_step(every, "integrate: reduced", ze, ne, &nn);
    const double T0 = mcgeer_step("", "integrate: reduced", z0, n0, &nn);
    double d_fr = fabs(Tf - Tr), d_e = fabs(Tr - Te), d_0 = fabs(Tr - T0);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(nf[i], nr[i]);
        d_fr = fmax(d_fr, fabs(zf[i] - zr[i]));
        d_e = fmax(d_e, fabs(zr[i] - ze[i]));
        d_0 = fmax(d_0, fabs(zr[i] - z0[i]));
    }
    print_message("knee_locked damper: full - reduced %.2e; reduced against the damper in every phase %.2e, against "
                  "none %.2e\n", d_fr, d_e, d_0);
    assert_true(d_fr < 1e-9);
    assert_true(d_e > 1e-5 && d_0 > 1e-5);
    rmdir(red_dir);
}

/* ---- refusals ------------------------------------------------------------------ */

static char tmp_dir[] = "/tmp/sm_test_force_phasesXXXXXX";

static void variant_of(const char *file, const char *from, const char *to, char *path, size_t cap)
{
    char text[8192], out[8192];
    cli_slurp(file, text, sizeof text);
    char *at = strstr(text, from);
    if (!at) fail_msg("'%s' is not in the block's file", from);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    snprintf(path, cap, "%s/variant.yaml", tmp_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
}

static void variant(const char *to, char *path, size_t cap) { variant_of(BLOCK, "phases: [drag]}", to, path, cap); }

static void expect_refused_in(const char *file, const char *from, const char *to, const char *where,
                              const char *needle)
{
    char path[256], why[1024] = "";
    variant_of(file, from, to, path, sizeof path);
    const sm_model *m = NULL;
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    print_message("%s\n", why);
    if (!strstr(why, where) || !strstr(why, needle)) fail_msg("expected '%s' and '%s' in: %s", where, needle, why);
}

static void expect_refused(const char *to, const char *where, const char *needle)
{
    expect_refused_in(BLOCK, "phases: [drag]}", to, where, needle);
}

static void test_refused(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(tmp_dir));
    /* the late damper: line 31, its phases' list at column 61 */
    expect_refused("phases: [dragging]}", ":31:", "force 'late': phases: names 'dragging', which is no phase");
    expect_refused("phases: [drag, drag]}", ":31:", "force 'late': phases: names 'drag' twice");
    expect_refused("phases: []}", ":31:61", "force 'late': phases: [] names no phase; list the phases it acts in");
    expect_refused("phases: drag}", ":31:61", "phases (a list of phase names)");
    char path[256];
    variant("phases: [coast, coast]}", path, sizeof path);
    cli_result *r = cli_run("simulate", path, "--steps", "1", NULL);
    cli_expect_error(r, 65, ":31:");
    /* the feedforward's phases: line 55, its actuator at column 14, the list at 20 */
    const char *ff = "phases: {push: [pushed]}";
    expect_refused_in(PUSHED, ff, "phases: {pull: [pushed]}", ":55:14", "names 'pull', which has no feedforward");
    expect_refused_in(PUSHED, ff, "phases: {push: [pushing]}", ":55:21", "feedforward of 'push': phases: names "
                      "'pushing', which is no phase");
    expect_refused_in(PUSHED, ff, "phases: {push: [pushed], push: [coast]}", ":55:30", "names 'push' twice");
    expect_refused_in(PUSHED, ff, "phases: {push: []}", ":55:20", "names no phase; list the phases it is added in");
    expect_refused_in(PUSHED, ff, "phases: [pushed]", ":55:13", "feedforward: phases (ACTUATOR: [PHASE, ...], ...)");
    remove(path);
    rmdir(tmp_dir);
}

/* The push in `pushed` alone: v(b)^2 = v0^2 + (2/m) (c0 (b - a) + c1
 * (b^2 - a^2) / 2), at two sets of parameters and starting speeds; in
 * `coast` the speed is the start's. */
static void test_feedforward_closed_form(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(PUSHED);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const double mass = 2.0, a = 0.5, b = 1.0;
    for (int k = 0; k < 2; k++) {
        const double c0 = k ? 3.0 : 2.0, c1 = k ? 1.5 : 6.0, v0 = k ? 0.5 : 1.0;
        p[sm_model_param_index(m, "c0")] = c0;
        p[sm_model_param_index(m, "c1")] = c1;
        m->guess(x, p, m->data);
        x[2] = v0;
        sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, xo, &mt, NULL), SM_OK);
        const double v = sqrt(v0 * v0 + 2.0 / mass * (c0 * (b - a) + c1 * (b * b - a * a) / 2.0));
        print_message("c0 %g c1 %g v0 %g: v(b) %.12g (closed form %.12g)\n", c0, c1, v0, xo[2], v);
        assert_close(xo[2], v, 1e-8);
        /* the coast at v0 takes a / v0, the push the rest: at most (b - a) / v0 */
        assert_true(mt.period > a / v0 && mt.period < b / v0);
        sm_workspace_free(ws);
    }
    sm_registry_close(m);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : "stridemap";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_exact_jacobian),
        cmocka_unit_test(test_reduced),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_feedforward_closed_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
