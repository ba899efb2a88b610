/* The pd law's feedforward term and the nine-segment human under it
 * (models/human9.yaml, docs/body-walkers.md, controller: feedforward).
 * - feedforward: a block pushed by u(s) = c0 + c1 s along its own phase
 *   variable (the output vanishing identically, so the feedback adds
 *   nothing) against the closed form of m x'' = c0 + c1 x;
 * - bad feedforward definitions refused at their line;
 * - human9: with the gains at zero the torques are the file's feedforward
 *   splines at s of the state, against a natural cubic spline solved
 *   here by dense elimination (not the library's tridiagonal sweep);
 * - human9: its contact cases keep the paper's degrees of freedom (as
 *   human_hu9's, tests/test_seed_walkers.c), on states of its own step;
 * - human9: the step from the file's guess goes through the paper's
 *   sequence ss1, heel-strike, ds1, foot-flat, ds_flat, toe-off (what its
 *   header claims; it has no gait yet). */
#include <unistd.h>

#include "cli_run.h"
#include "hzd_checks.h"

#define HUMAN9 SM_SOURCE_DIR "/models/human9.yaml"

#define BLOCK SM_SOURCE_DIR "/tests/data/body_models/feedforward_block.yaml"

static void test_feedforward_block_closed_form(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(BLOCK);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], xo[SM_MAX_STATE];
    sm_model_default_params(m, p);
    const double mass = 2.0;
    for (int k = 0; k < 2; k++) {
        const double c0 = k ? 3.0 : 2.0, c1 = k ? 1.5 : 6.0;
        p[sm_model_param_index(m, "c0")] = c0;
        p[sm_model_param_index(m, "c1")] = c1;
        m->guess(x, p, m->data);
        sm_workspace *ws = hzd_workspace(m, 1e-12, SM_METHOD_BDF);
        sm_step_metrics mt;
        assert_status(sm_stride(ws, p, x, xo, &mt, NULL), SM_OK);
        const double w = sqrt(c1 / mass);
        assert_close(mt.period, acosh(1.0 + c1 / c0) / w, 1e-8);
        /* block_x_dot after block_x and block_z */
        assert_close(xo[2], sqrt(2.0 * (c0 + c1 / 2.0) / mass), 1e-8);
        sm_workspace_free(ws);
    }
    sm_registry_close(m);
}

/* ---- bad definitions ---------------------------------------------------------- */

static char tmp_dir[] = "/tmp/sm_test_human9XXXXXX";

/* The block's file with `from` replaced by `to`, opened: its status and
 * message. */
static void replace(char *text, size_t cap, const char *from, const char *to)
{
    char out[8192];
    char *at = strstr(text, from);
    if (!at) fail_msg("'%s' is not in the block's file", from);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    snprintf(text, cap, "%s", out);
}

static sm_status open_variant(const char *from, const char *to, char *why, size_t why_len)
{
    char out[8192], path[256];
    cli_slurp(BLOCK, out, sizeof out);
    replace(out, sizeof out, from, to);
    /* io_linearisation needs its time scale before it reaches feedforward */
    if (strstr(to, "io_linearisation")) replace(out, sizeof out, "kd: 10}", "kd: 10, epsilon: 0.1}");
    snprintf(path, sizeof path, "%s/variant.yaml", tmp_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
    const sm_model *m = NULL;
    const sm_status st = sm_registry_open(path, &m, why, why_len);
    if (m) sm_registry_close(m);
    return st;
}

static void expect_refused(const char *from, const char *to, const char *where, const char *needle)
{
    char why[1024] = "";
    assert_status(open_variant(from, to, why, sizeof why), SM_BAD_MODEL_FILE);
    print_message("%s\n", why);
    if (!strstr(why, where) || !strstr(why, needle)) fail_msg("expected '%s' and '%s' in: %s", where, needle, why);
}

static void test_feedforward_refused(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(tmp_dir));
    /* the block's feedforward: line 44, its knots 45, its torques 46 */
    expect_refused("torques: {push: [c0, c0 + c1 / 2, c0 + c1]}", "torques: {pull: [1, 2, 3]}", ":46:",
                   "'pull', which is no actuator");
    expect_refused("torques: {push: [c0, c0 + c1 / 2, c0 + c1]}", "torques: {push: [1, 2]}", ":46:",
                   "2 torques and 3 knots");
    expect_refused("knots: [0, 0.5, 1]", "knots: [0, 0.5, 0.5]", ":45:", "knot 2 (0.5) is not above");
    expect_refused("kind: pd", "kind: io_linearisation", ":45:", "feedforward is a term of the pd law");
    /* an output's phases: (its line, 42) */
    const char *out = "{name: x, on: {block_x: 1}, ";
    expect_refused(out, "{name: x, on: {block_x: 1}, phases: [walking], ", ":42:", "'walking', which is no phase");
    expect_refused(out, "{name: x, on: {block_x: 1}, phases: [pushed, pushed], ", ":42:", "'pushed' twice");
    expect_refused(out, "{name: x, on: {block_x: 1}, phases: [], ", ":42:", "names no phase");
    {
        char why[1024] = "";
        /* both changes in one variant: the kind, then the output's phases */
        char text[8192], path[256];
        cli_slurp(BLOCK, text, sizeof text);
        replace(text, sizeof text, "kind: pd", "kind: io_linearisation");
        replace(text, sizeof text, "kd: 10}", "kd: 10, epsilon: 0.1}");
        replace(text, sizeof text, out, "{name: x, on: {block_x: 1}, phases: [pushed], ");
        snprintf(path, sizeof path, "%s/variant.yaml", tmp_dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        const sm_model *m = NULL;
        assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
        print_message("%s\n", why);
        assert_non_null(strstr(why, ":42:"));
        assert_non_null(strstr(why, "switches the pd law's feedback"));
    }
    char path[256];
    snprintf(path, sizeof path, "%s/variant.yaml", tmp_dir);
    remove(path);
    rmdir(tmp_dir);
}

/* ---- human9 -------------------------------------------------------------------- */

/* The natural cubic spline through (k[i], v[i]), i < n, at s, by a dense
 * Gaussian elimination of the second derivatives' equations. */
static double dense_spline(const double *k, const double *v, size_t n, double s)
{
    double A[BODY_MAX_COEF][BODY_MAX_COEF + 1] = {{0}};
    A[0][0] = A[n - 1][n - 1] = 1.0;
    for (size_t i = 1; i + 1 < n; i++) {
        const double hl = k[i] - k[i - 1], hr = k[i + 1] - k[i];
        A[i][i - 1] = hl / 6.0;
        A[i][i] = (hl + hr) / 3.0;
        A[i][i + 1] = hr / 6.0;
        A[i][n] = (v[i + 1] - v[i]) / hr - (v[i] - v[i - 1]) / hl;
    }
    for (size_t c = 0; c < n; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c])) piv = r;
        for (size_t j = 0; j <= n; j++) {
            const double t = A[c][j];
            A[c][j] = A[piv][j];
            A[piv][j] = t;
        }
        for (size_t r = 0; r < n; r++) {
            if (r == c) continue;
            const double f = A[r][c] / A[c][c];
            for (size_t j = c; j <= n; j++) A[r][j] -= f * A[c][j];
        }
    }
    double M[BODY_MAX_COEF];
    for (size_t i = 0; i < n; i++) M[i] = A[i][n] / A[i][i];
    size_t i = 0;
    while (i + 2 < n && s > k[i + 1]) i++;
    const double h = k[i + 1] - k[i], a = (k[i + 1] - s) / h, b = (s - k[i]) / h;
    return a * v[i] + b * v[i + 1] + ((a * a * a - a) * M[i] + (b * b * b - b) * M[i + 1]) * h * h / 6.0;
}

/* States of the step from the guess: just after each event, by name. */
typedef struct {
    int n;
    char names[16][32];
    double x[16][SM_MAX_STATE];
    size_t n_state;
} event_log;

static int log_event(void *ctx, double t, size_t phase, const char *name, const double *x_minus, const double *x_plus)
{
    (void)t, (void)phase, (void)x_minus;
    event_log *l = ctx;
    if (l->n >= 16) return 0;
    snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
    memcpy(l->x[l->n], x_plus, l->n_state * sizeof *x_plus);
    l->n++;
    return 0;
}

static sm_status step_from_guess(const sm_model *m, const double *p, event_log *l)
{
    double x[SM_MAX_STATE], xo[SM_MAX_STATE];
    m->guess(x, p, m->data);
    memset(l, 0, sizeof *l);
    l->n_state = m->n_state;
    sm_workspace *ws = hzd_workspace(m, 1e-10, SM_METHOD_BDF);
    sm_observer obs = {.dt = 0, .sample = NULL, .event = log_event, .ctx = l};
    sm_step_metrics mt;
    const sm_status st = sm_stride(ws, p, x, xo, &mt, &obs);
    sm_workspace_free(ws);
    return st;
}

static const double *after(const event_log *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0) return l->x[i];
    fail_msg("no event '%s' in the step", name);
    return NULL;
}

static int phase_index(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_phases; i++)
        if (strcmp(f->phases[i].name, name) == 0) return (int)i;
    fail_msg("no phase '%s'", name);
    return -1;
}

static void test_human9_sequence(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(HUMAN9);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    event_log l;
    assert_status(step_from_guess(m, p, &l), SM_OK);
    static const char *const want[] = {"heelstrike", "foot_flat", "toeoff"};
    int k = 0;
    for (int i = 0; i < l.n; i++) {
        print_message("event %s\n", l.names[i]);
        if (k < 3 && strcmp(l.names[i], want[k]) == 0) k++;
    }
    assert_int_equal(k, 3);
    sm_registry_close(m);
}

static void test_human9_feedforward(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(HUMAN9);
    const body_model *bm = m->data;
    const body_file *f = bm->f;
    const body_controller *k = &f->ctrl;
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    event_log l;
    assert_status(step_from_guess(m, p, &l), SM_OK);
    p[sm_model_param_index(m, "kp")] = 0.0;
    p[sm_model_param_index(m, "kd")] = 0.0;
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    double x0[SM_MAX_STATE];
    m->guess(x0, p, m->data);
    const double *xs[] = {x0, after(&l, "heelstrike"), after(&l, "foot_flat")};
    const char *phases[] = {"ss1", "ds1", "ds_flat"};
    const double th0 = p[sm_model_param_index(m, "theta_start")], th1 = p[sm_model_param_index(m, "theta_end")];
    for (size_t c = 0; c < 3; c++) {
        const double *x = xs[c];
        /* theta = hat + thigh_a + shank_a / 2, as the file says */
        const double theta = x[2] + x[3] + 0.5 * x[4], s = (theta - th0) / (th1 - th0);
        double u[BODY_MAX_ACT];
        assert_status(body_control_torques(&e, (size_t)phase_index(f, phases[c]), x, u), SM_OK);
        for (size_t j = 0; j < k->n_act; j++) {
            double v[BODY_MAX_COEF];
            char name[160];
            for (size_t i = 0; i < k->ff_n; i++) {
                snprintf(name, sizeof name, "controller.feedforward.%s.a%zu", k->act_name[j], i);
                const int at = sm_model_param_index(m, name);
                assert_true(at >= 0);
                v[i] = p[at];
            }
            const double want = dense_spline(k->ff_knots, v, k->ff_n, s);
            print_message("%s s = %.4f %s: %.6f N m\n", phases[c], s, k->act_name[j], u[j]);
            assert_close(u[j], want, 1e-9 * (1.0 + fabs(want)));
        }
    }
    sm_registry_close(m);
}

/* Rank of a rows x n row-major matrix by elimination with full pivoting. */
static size_t rank_of(double *A, size_t rows, size_t n)
{
    size_t rank = 0;
    double scale = 0;
    for (size_t i = 0; i < rows * n; i++) scale = fmax(scale, fabs(A[i]));
    for (size_t r = 0; r < rows; r++) {
        size_t pi = r, pj = 0;
        double best = 0;
        for (size_t i = r; i < rows; i++)
            for (size_t j = 0; j < n; j++)
                if (fabs(A[i * n + j]) > best) best = fabs(A[i * n + j]), pi = i, pj = j;
        if (!(best > 1e-10 * scale)) break;
        for (size_t j = 0; j < n; j++) {
            const double t = A[r * n + j];
            A[r * n + j] = A[pi * n + j];
            A[pi * n + j] = t;
        }
        for (size_t i = r + 1; i < rows; i++) {
            const double q = A[i * n + pj] / A[r * n + pj];
            for (size_t j = 0; j < n; j++) A[i * n + j] -= q * A[r * n + j];
        }
        rank++;
    }
    return rank;
}

/* Seed 002's degrees of freedom per contact case (SS1 8, SS2 9, DS1 6,
 * DS2 8; DS3 7; ds_flat 5, ours), nv - rank of the phase's rows at a
 * state of the step on its contacts (11 rates: the hip's x and z, the
 * trunk, 8 joints). */
static void test_human9_dof(void **state)
{
    (void)state;
    const sm_model *m = hzd_open_file(HUMAN9);
    const body_model *bm = m->data;
    const body_file *f = bm->f;
    assert_int_equal(f->nv, 11);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    event_log l;
    assert_status(step_from_guess(m, p, &l), SM_OK);
    static const struct {
        const char *phase;
        int at; /* 0: the guess (ss1), 1: after heel-strike (ds1), 2: after foot-flat */
        size_t dof;
    } cases[] = {{"ss1", 0, 8}, {"ss2", 0, 9}, {"ds1", 1, 6}, {"ds2", 1, 8}, {"ds3", 1, 7}, {"ds_flat", 2, 5}};
    const double *xs[] = {x0, after(&l, "heelstrike"), after(&l, "foot_flat")};
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double *x = xs[cases[i].at];
        assert_status(sm_rigid_forward(e.m, e.d, x, x + f->nq), SM_OK);
        sm_contact c[BODY_MAX_CONTACTS];
        const size_t nc = body_phase_contacts(&e, (size_t)phase_index(f, cases[i].phase), x + f->nq, c);
        for (size_t k = 0; k < nc; k++)
            if (c[k].kind != SM_CONTACT_LOCK) assert_true(fabs(sm_contact_gap(e.m, e.d, x, &c[k], NULL)) < 1e-8);
        double J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V], jdv[SM_RIGID_MAX_ROWS];
        const size_t rows = sm_contact_jacobian(e.m, e.d, c, nc, J, jdv, NULL);
        const size_t dof = f->nv - rank_of(J, rows, f->nv);
        print_message("%s: %zu rows, %zu degrees of freedom (expected %zu)\n", cases[i].phase, rows, dof, cases[i].dof);
        assert_int_equal(dof, cases[i].dof);
    }
    sm_registry_close(m);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : "stridemap";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feedforward_block_closed_form),
        cmocka_unit_test(test_feedforward_refused),
        cmocka_unit_test(test_human9_sequence),
        cmocka_unit_test(test_human9_feedforward),
        cmocka_unit_test(test_human9_dof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
