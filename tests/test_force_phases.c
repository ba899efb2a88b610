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
 *   named twice, an empty list, no list), and the program's exit 65. */
#include <unistd.h>

#include "cli_run.h"
#include "hzd_checks.h"
#include "stridemap/poincare.h"

#define BLOCK SM_SOURCE_DIR "/tests/data/body_models/damper_phases.yaml"

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

/* ---- refusals ------------------------------------------------------------------ */

static char tmp_dir[] = "/tmp/sm_test_force_phasesXXXXXX";

static void variant(const char *to, char *path, size_t cap)
{
    char text[8192], out[8192];
    const char *from = "phases: [drag]}";
    cli_slurp(BLOCK, text, sizeof text);
    char *at = strstr(text, from);
    if (!at) fail_msg("'%s' is not in the block's file", from);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    snprintf(path, cap, "%s/variant.yaml", tmp_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
}

static void expect_refused(const char *to, const char *where, const char *needle)
{
    char path[256], why[1024] = "";
    variant(to, path, sizeof path);
    const sm_model *m = NULL;
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    print_message("%s\n", why);
    if (!strstr(why, where) || !strstr(why, needle)) fail_msg("expected '%s' and '%s' in: %s", where, needle, why);
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
    remove(path);
    rmdir(tmp_dir);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : "stridemap";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_exact_jacobian),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
