/* Garcia's 3-D disk-foot walker (models/garcia3d.yaml) and its mirrored
 * stride function (seed 003 §2.3.1, §2.5.4, §2.7).
 *
 * - Planar reduction (seed §2.5.4): with no hip spacing, no lean and the
 *   2-D file's masses (leg_iyy = 0: its legs are point masses), the 3-D
 *   gait is models/compass_round_spring.yaml's to 1e-8, the 3-D Jacobian
 *   splits into a sagittal and a lateral block (y -> -y is a symmetry), the
 *   sagittal block's multipliers are the 2-D ones to 1e-6, and the lateral
 *   block holds the heading family's multiplier -1 (at w = 0 a walker
 *   tilted to the cross-slope gravity walks straight at any heading; the
 *   mirror turns heading h into -h, so one mirrored step maps the family's
 *   tangent to minus itself).
 * - Energy: over a periodic step the energy lost at heel-strike equals the
 *   potential released, M g sin(gamma) times the advance of the hip along
 *   the slope (the shape and height recur), to 1e-8 J.
 * - The mirror: the same walker stepping twice without the mirror (stance
 *   a, then stance b, no relabel: Coleman's two-step map) has the mirrored
 *   map's fixed point as its own, and the multipliers of its Jacobian are
 *   the squares of the mirrored one-step map's (F = S P with S the mirror
 *   and leg swap gives F^2 = (S P S) P, the two-step map).
 * - Lateral stability: hip spacing with near-point feet has a multiplier
 *   outside the unit circle, and its eigenvector is lateral (bank, heading)
 *   rather than sagittal.
 * - Through the program: `fixed --two-step` against `fixed` (squared
 *   multipliers), `continue` on a member of the 3-D wheel's family (heading
 *   held, lean by the closed form), the lateral measures (0 when planar,
 *   step width w / cos(lean)) and the eigenvectors of `fixed --json`. */
#include "test_util.h"
#include "src_path.h"
#include "cli_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "stridemap/fixedpoint.h"
#include "stridemap/poincare.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

/* The free coordinates of garcia3d, in the file's order. */
enum { F_YAW, F_ROLL, F_LEG_A, F_YAW_DOT, F_ROLL_DOT, F_LEG_A_DOT, F_LEG_B_DOT, N_FREE };
static const int sagittal[3] = {F_LEG_A, F_LEG_A_DOT, F_LEG_B_DOT};
static const int lateral[4] = {F_YAW, F_ROLL, F_YAW_DOT, F_ROLL_DOT};

static const sm_model *open_ok(const char *path)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    if (sm_registry_open(path, &m, why, sizeof why) != SM_OK) fail_msg("%s: %s", path, why);
    return m;
}

/* p2 the 2-D file's defaults; p3 garcia3d's with the 2-D file's spring and
 * damper, its point-mass legs, no spacing. */
static void planar_params(const sm_model *m2, double *p2, const sm_model *m3, double *p3)
{
    sm_model_default_params(m2, p2);
    sm_model_default_params(m3, p3);
    set_param(m3, p3, "forces.hip_spring.stiffness", p2[sm_model_param_index(m2, "forces.hip_spring.stiffness")]);
    set_param(m3, p3, "forces.hip_spring.damping", p2[sm_model_param_index(m2, "forces.hip_spring.damping")]);
    set_param(m3, p3, "leg_iyy", 0.0);
    set_param(m3, p3, "hip_width", 0.0);
}

static void newton_tight(sm_newton_options *no)
{
    sm_newton_options_default(no);
    no->tol = 1e-12;
    no->update = SM_NEWTON_FULL;
    no->central = true;
    no->fd_step = 1e-4;
}

static double state(const sm_model *m, const double *x, const char *name)
{
    const int i = sm_model_state_index(m, name);
    if (i < 0) fail_msg("no state %s", name);
    return x[i];
}

/* compass_round_spring's state by name at its section: the joints are its
 * (reduced) state; the hip, which it leaves out, sits on the stance disk
 * rolling without slipping with its contact point at x = 0, as the full
 * formulation's section puts it: disk centre (0, r), hip = centre +
 * l (−sin θ, cos θ) with θ = leg_a, l the centre's distance below the hip;
 * the disk turns with the leg (axis −y), so ċ_x = −r θ̇. */
static double planar_state(const sm_model *m2, const double *p2, const double *x2, const char *name)
{
    if (sm_model_state_index(m2, name) >= 0) return state(m2, x2, name);
    const double r = p2[sm_model_param_index(m2, "contacts.disk_a.radius")];
    const double l = -p2[sm_model_param_index(m2, "sites.disk_a.pos.z")];
    const double th = state(m2, x2, "leg_a"), w = state(m2, x2, "leg_a_dot");
    if (strcmp(name, "hip_x") == 0) return -l * sin(th);
    if (strcmp(name, "hip_z") == 0) return r + l * cos(th);
    if (strcmp(name, "hip_x_dot") == 0) return -(r + l * cos(th)) * w;
    if (strcmp(name, "hip_z_dot") == 0) return -l * sin(th) * w;
    fail_msg("no state %s", name);
    return NAN;
}

/* Eigenvalues of the k x k block of J (n x n) on rows and columns idx. */
static void block_eigs(const double *J, size_t n, const int *idx, size_t k, double *re, double *im)
{
    double B[SM_MAX_STATE * SM_MAX_STATE];
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++) B[i * k + j] = J[(size_t)idx[i] * n + (size_t)idx[j]];
    assert_status(sm_eigenvalues(k, B, re, im), SM_OK);
}

/* Every (re, im) of a within tol of some unused one of b (k each). */
static void assert_same_spectrum(const double *ar, const double *ai, const double *br, const double *bi, size_t k,
                                 double tol)
{
    bool used[SM_MAX_STATE] = {false};
    for (size_t i = 0; i < k; i++) {
        size_t best = k;
        double d = INFINITY;
        for (size_t j = 0; j < k; j++)
            if (!used[j] && hypot(ar[i] - br[j], ai[i] - bi[j]) < d) d = hypot(ar[i] - br[j], ai[i] - bi[j]), best = j;
        if (!(d <= tol * fmax(1.0, hypot(ar[i], ai[i]))))
            fail_msg("multiplier %.12g%+.12gi has no partner within %.1g (nearest %.3g away)", ar[i], ai[i], tol, d);
        used[best] = true;
    }
}

/* ---------------------------------------------------------------- planar */

static void planar_reduction(void **state_)
{
    (void)state_;
    const sm_model *m2 = open_ok(src_path("models/compass_round_spring.yaml"));
    const sm_model *m3 = open_ok(src_path("models/garcia3d.yaml"));
    double p2[SM_MAX_PARAMS], p3[SM_MAX_PARAMS], x2[SM_MAX_STATE], x3[SM_MAX_STATE] = {0};
    planar_params(m2, p2, m3, p3);
    assert_close(p3[sm_model_param_index(m3, "foot_radius")], p2[sm_model_param_index(m2, "contacts.disk_a.radius")],
                 0.0);
    assert_close(p3[sm_model_param_index(m3, "slope")], p2[sm_model_param_index(m2, "slope")], 0.0);

    sm_workspace *w2 = test_workspace(m2, 1e-12, SM_METHOD_ADAMS), *w3 = test_workspace(m3, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options no;
    newton_tight(&no);
    m2->guess(x2, p2, m2->data);
    sm_fixed_result *r2 = calloc(1, sizeof *r2), *r3 = calloc(1, sizeof *r3);
    assert_status(sm_fixed_point(w2, p2, x2, &no, r2), SM_OK);

    /* the 3-D guess is the 2-D gait, upright and heading downhill: Newton
     * must keep it there and agree */
    static const char *const common[] = {"hip_x", "hip_z", "leg_a", "leg_b", "hip_x_dot", "hip_z_dot", "leg_a_dot",
                                         "leg_b_dot"};
    for (size_t k = 0; k < 8; k++) x3[sm_model_state_index(m3, common[k])] = planar_state(m2, p2, r2->x, common[k]);
    assert_status(sm_fixed_point(w3, p3, x3, &no, r3), SM_OK);
    for (size_t k = 0; k < 8; k++)
        assert_close(state(m3, r3->x, common[k]), planar_state(m2, p2, r2->x, common[k]), 1e-8);
    static const char *const side[] = {"hip_y", "hip_yaw", "hip_roll", "hip_y_dot", "hip_yaw_dot", "hip_roll_dot"};
    for (size_t k = 0; k < 6; k++) assert_close(state(m3, r3->x, side[k]), 0.0, 1e-10);

    /* decoupled blocks: the lateral rows of a sagittal change and back */
    const double *J = r3->jacobian;
    double cross = 0.0, scale = 0.0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++) {
            cross = fmax(cross, fabs(J[(size_t)sagittal[i] * N_FREE + (size_t)lateral[j]]));
            cross = fmax(cross, fabs(J[(size_t)lateral[j] * N_FREE + (size_t)sagittal[i]]));
        }
    for (size_t i = 0; i < N_FREE * N_FREE; i++) scale = fmax(scale, fabs(J[i]));
    assert_true(cross <= 1e-6 * scale);

    double sr[3], si[3];
    block_eigs(J, N_FREE, sagittal, 3, sr, si);
    assert_same_spectrum(sr, si, r2->eig_re, r2->eig_im, 3, 1e-6);

    double lr[4], li[4], nearest = INFINITY;
    block_eigs(J, N_FREE, lateral, 4, lr, li);
    for (size_t i = 0; i < 4; i++) nearest = fmin(nearest, hypot(lr[i] + 1.0, li[i]));
    print_message("heading family multiplier off -1 by %.2g; sagittal multipliers %.9g%+.9gi %.9g\n", nearest,
                  sr[0], si[0], sr[2]);
    assert_true(nearest <= 1e-5);

    free(r2);
    free(r3);
    sm_workspace_free(w2);
    sm_workspace_free(w3);
    m2->release(m2);
    m3->release(m3);
}

/* ---------------------------------------------------------------- gait */

typedef struct {
    double x_minus[SM_MAX_STATE];
    int seen;
} strike_log;

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *x_minus, const double *x_plus)
{
    (void)t, (void)phase, (void)x_plus;
    strike_log *L = ctx;
    if (strcmp(name, "heelstrike") == 0) memcpy(L->x_minus, x_minus, sizeof L->x_minus), L->seen++;
    return 0;
}

static void default_gait(const sm_model *m, sm_workspace *ws, double *p, sm_fixed_result *r)
{
    sm_newton_options no;
    newton_tight(&no);
    double x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    assert_true(fabs(state(m, r->x, "hip_roll")) > 1e-3); /* a 3-D gait: it leans */
}

static void energy_balance(void **state_)
{
    (void)state_;
    const sm_model *m = open_ok(src_path("models/garcia3d.yaml"));
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], x1[SM_MAX_STATE];
    sm_fixed_result *r = calloc(1, sizeof *r);
    default_gait(m, ws, p, r);

    strike_log L = {.seen = 0};
    sm_observer obs = {.dt = 0, .sample = NULL, .event = on_event, .ctx = &L};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, r->x, x1, &mt, &obs), SM_OK);
    assert_int_equal(L.seen, 1);
    const double mass = 10 + 2 * p[sm_model_param_index(m, "leg_mass")];
    const double g = p[sm_model_param_index(m, "gravity")], gamma = p[sm_model_param_index(m, "slope")];
    /* the walker's shape and height recur (mirrored, legs swapped), so its
     * centre of mass advanced as the hip did */
    assert_close(state(m, L.x_minus, "hip_z"), state(m, r->x, "hip_z"), 1e-9);
    const double advance = state(m, L.x_minus, "hip_x") - state(m, r->x, "hip_x");
    const double released = mass * g * sin(gamma) * advance;
    print_message("energy lost %.12g J, potential released %.12g J (advance %.9g m)\n", mt.impact_energy_loss, released,
                  advance);
    assert_true(advance > 0.1);
    assert_close(mt.impact_energy_loss, released, 1e-8);
    free(r);
    sm_workspace_free(ws);
    m->release(m);
}

/* garcia3d.yaml up to its phases, then two steps without the mirror; with
 * family, the section picks the member of the heading family. */
static const char *two_step_file(bool family)
{
    static char path[256];
    FILE *in = fopen(src_path("models/garcia3d.yaml"), "r");
    assert_non_null(in);
    static char text[65536];
    const size_t len = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[len] = '\0';
    char *phases = strstr(text, "\nphases:");
    char *guess = strstr(text, "\nguess:");
    char *tail = strstr(text, "\ntime_limit:");
    assert_non_null(phases);
    assert_non_null(guess);
    assert_non_null(tail);
    snprintf(path, sizeof path, "/tmp/test_garcia3d_two_step_%ld.yaml", (long)getpid());
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fwrite(text, 1, (size_t)(phases - text), out);
    fputs("\nphases:\n"
          "  - name: swing_a\n"
          "    contacts: [disk_a]\n"
          "    events:\n"
          "      - name: strike_b\n"
          "        when: {gap: disk_b, crosses: either}\n"
          "        if: [{ahead: disk_b, of: disk_a, by: 0.02 * leg_length}, {ahead: hip, of: disk_a}]\n"
          "        impact: true\n"
          "        then: swing_b\n"
          "      - {name: rolled_back_a, when: {rate: leg_a, crosses: up}, fail: fell_backward}\n"
          "  - name: swing_b\n"
          "    contacts: [disk_b]\n"
          "    events:\n"
          "      - name: strike_a\n"
          "        when: {gap: disk_a, crosses: either}\n"
          "        if: [{ahead: disk_a, of: disk_b, by: 0.02 * leg_length}, {ahead: hip, of: disk_b}]\n"
          "        impact: true\n"
          "        then: section\n"
          "      - {name: rolled_back_b, when: {rate: leg_b, crosses: up}, fail: fell_backward}\n"
          "section:\n"
          "  after: strike_a\n"
          "  touching: [disk_a, disk_b]\n"
          "  origin: disk_a\n"
          "  free: [hip_yaw, hip_roll, leg_a, hip_yaw_dot, hip_roll_dot, leg_a_dot, leg_b_dot]",
          out);
    if (family) fputs("\n  family: {hip_yaw: 0}", out);
    /* the guess, not the measures: disk_b's clearance means nothing in swing_b */
    fwrite(guess, 1, (size_t)(tail - guess), out);
    fputs("\ntime_limit: 10\n", out);
    fclose(out);
    return path;
}

static void mirror_check(bool skew)
{
    const sm_model *m = open_ok(src_path("models/garcia3d.yaml"));
    const char *path2 = two_step_file(false);
    const sm_model *m2 = open_ok(path2);
    remove(path2);
    assert_int_equal(m2->n_free, N_FREE);
    sm_workspace *ws = test_workspace(m, 1e-14, SM_METHOD_ADAMS), *ws2 = test_workspace(m2, 1e-14, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS], z[N_FREE], Pz[N_FREE];
    sm_fixed_result *r = calloc(1, sizeof *r);
    default_gait(m, ws, p, r);
    if (skew) {
        /* legs whose mass lies off their plane and whose inertia tensors
         * are full: the mirror must turn leg a's into leg b's */
        set_param(m, p, "leg_ixy", 0.01);
        set_param(m, p, "leg_iyz", 0.005);
        set_param(m, p, "leg_ixz", 0.003);
        set_param(m, p, "leg_com_out", 0.02);
        set_param(m, p, "leg_com_fwd", 0.002);
        sm_newton_options no;
        newton_tight(&no);
        double x[SM_MAX_STATE];
        memcpy(x, r->x, sizeof x);
        assert_status(sm_fixed_point(ws, p, x, &no, r), SM_OK);
    }
    sm_model_free(m, r->x, z);

    /* the mirrored gait is a gait of the unmirrored two-step walker */
    assert_status(sm_poincare(ws2, p, 1, z, Pz, NULL, NULL), SM_OK);
    for (size_t i = 0; i < N_FREE; i++) assert_close(Pz[i], z[i], 1e-9);

    /* both Jacobians by the same differences, of a step where the
     * two-step map's multiplier of 679 leaves the others alone (1e-4: they
     * move by 1e-4, 1e-6: the integration error / h shows) */
    const double h = 1e-5;
    double J1[N_FREE * N_FREE], re1[N_FREE], im1[N_FREE];
    double J2[N_FREE * N_FREE], re2[N_FREE], im2[N_FREE], sq_re[N_FREE], sq_im[N_FREE];
    long evals = 0;
    assert_status(sm_stability_jacobian(ws, p, 1, z, h, J1, &evals), SM_OK);
    assert_status(sm_eigenvalues(N_FREE, J1, re1, im1), SM_OK);
    assert_status(sm_stability_jacobian(ws2, p, 1, z, h, J2, &evals), SM_OK);
    assert_status(sm_eigenvalues(N_FREE, J2, re2, im2), SM_OK);
    for (size_t i = 0; i < N_FREE; i++) {
        sq_re[i] = re1[i] * re1[i] - im1[i] * im1[i];
        sq_im[i] = 2 * re1[i] * im1[i];
    }
    print_message("largest: one mirrored step %.9g, two steps %.9g (its square %.9g)\n", re1[0], re2[0], sq_re[0]);
    assert_same_spectrum(re2, im2, sq_re, sq_im, N_FREE, 1e-6);
    free(r);
    sm_workspace_free(ws);
    sm_workspace_free(ws2);
    m->release(m);
    m2->release(m2);
}

static void mirror_two_step(void **state_)
{
    (void)state_;
    mirror_check(false);
    mirror_check(true);
}

/* With no hip spacing the two-step map has a family of gaits, one for each
 * heading b: the walker of the planar gait tilted about its heading until
 * gravity lies in its plane, tan(lean) = tan(gamma) sin(b), walking down
 * the effective slope sin(gamma') = sin(gamma) cos(b) under the same g
 * (gravity's other component is normal to that plane).  dP - I is singular
 * there; Newton with the family condition hip_yaw = b finds that member,
 * and its multiplier 1 is the trivial one. */
static void heading_family(void **state_)
{
    (void)state_;
    const sm_model *m2 = open_ok(src_path("models/compass_round_spring.yaml"));
    const char *path = two_step_file(true);
    const sm_model *m3 = open_ok(path);
    remove(path);
    assert_non_null(m3->family_condition);
    double p2[SM_MAX_PARAMS], p3[SM_MAX_PARAMS], x2[SM_MAX_STATE], x3[SM_MAX_STATE] = {0};
    planar_params(m2, p2, m3, p3);
    const double b = 0.2, gamma = p3[sm_model_param_index(m3, "slope")];
    set_param(m3, p3, "section.family.hip_yaw", b);

    sm_workspace *w2 = test_workspace(m2, 1e-12, SM_METHOD_ADAMS), *w3 = test_workspace(m3, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options no;
    newton_tight(&no);
    sm_fixed_result *r2 = calloc(1, sizeof *r2), *r3 = calloc(1, sizeof *r3);
    /* the guess: the planar gait heading downhill */
    m2->guess(x2, p2, m2->data);
    assert_status(sm_fixed_point(w2, p2, x2, &no, r2), SM_OK);
    static const char *const common[] = {"hip_x", "hip_z", "leg_a", "leg_b", "hip_x_dot", "hip_z_dot", "leg_a_dot",
                                         "leg_b_dot"};
    for (size_t k = 0; k < 8; k++) x3[sm_model_state_index(m3, common[k])] = planar_state(m2, p2, r2->x, common[k]);
    assert_status(sm_fixed_point(w3, p3, x3, &no, r3), SM_OK);

    /* the planar gait on the effective slope */
    set_param(m2, p2, "slope", asin(sin(gamma) * cos(b)));
    memcpy(x2, r2->x, sizeof x2);
    assert_status(sm_fixed_point(w2, p2, x2, &no, r2), SM_OK);
    assert_close(state(m3, r3->x, "hip_yaw"), b, 1e-12);
    assert_close(state(m3, r3->x, "hip_roll"), -atan(tan(gamma) * sin(b)), 1e-9);
    assert_close(state(m3, r3->x, "hip_yaw_dot"), 0.0, 1e-9);
    assert_close(state(m3, r3->x, "hip_roll_dot"), 0.0, 1e-9);
    static const char *const sag[] = {"leg_a", "leg_b", "leg_a_dot", "leg_b_dot"};
    for (size_t k = 0; k < 4; k++) assert_close(state(m3, r3->x, sag[k]), state(m2, r2->x, sag[k]), 1e-8);

    assert_true(r3->trivial_index >= 0);
    const double one = hypot(r3->eig_re[r3->trivial_index] - 1.0, r3->eig_im[r3->trivial_index]);
    print_message("heading %.2f: lean %.12g, family multiplier off 1 by %.2g\n", b, state(m3, r3->x, "hip_roll"), one);
    assert_true(one < 1e-6);
    free(r2);
    free(r3);
    sm_workspace_free(w2);
    sm_workspace_free(w3);
    m2->release(m2);
    m3->release(m3);
}

/* ---------------------------------------------------------------- rimless */

/* The 3-D rimless wheel (models/rimless3d.yaml) against the planar closed
 * form: after each impact the spin is eta times the spin before it,
 * eta = 1 - m l^2 (1 - cos 2 alpha) / (I + m l^2), and between impacts the
 * hub falls 2 l sin(alpha) sin(gamma), so the spin after impact is
 * eta sqrt(4 m g l sin(alpha) sin(gamma) / ((I + m l^2)(1 - eta^2))) and
 * the multiplier of the map is eta^2.  At heading b the member of the
 * family leans by atan(tan(gamma) sin(b)) and rolls as on the slope
 * asin(sin(gamma) cos(b)). */
static double wheel_spin(const sm_model *m, const double *p, double gamma, double *eta)
{
    const double mass = p[sm_model_param_index(m, "hub_mass")], l = p[sm_model_param_index(m, "spoke_length")];
    const double axial = p[sm_model_param_index(m, "hub_axial")], g = p[sm_model_param_index(m, "gravity")];
    const double alpha = M_PI / 8, J = axial + mass * l * l;
    *eta = 1 - mass * l * l * (1 - cos(2 * alpha)) / J;
    return *eta * sqrt(4 * mass * g * l * sin(alpha) * sin(gamma) / (J * (1 - *eta * *eta)));
}

static void rimless_wheel(void **state_)
{
    (void)state_;
    const sm_model *m = open_ok(src_path("models/rimless3d.yaml"));
    assert_int_equal(m->n_free, 5);
    sm_workspace *ws = test_workspace(m, 1e-13, SM_METHOD_ADAMS);
    sm_newton_options no;
    newton_tight(&no);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE], eta;
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_fixed_result *r = calloc(1, sizeof *r);
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    const double gamma = p[sm_model_param_index(m, "slope")];
    const double spin = wheel_spin(m, p, gamma, &eta);
    assert_close(state(m, r->x, "hub_dot"), -spin, 1e-9);
    static const char *const side[] = {"hub_yaw", "hub_roll", "hub_yaw_dot", "hub_roll_dot"};
    for (size_t k = 0; k < 4; k++) assert_close(state(m, r->x, side[k]), 0.0, 1e-10);

    /* the spin's row and column hold the sagittal multiplier alone */
    const size_t n = 5, s = 4;
    for (size_t k = 0; k < s; k++) {
        assert_close(r->jacobian[s * n + k], 0.0, 1e-7);
        assert_close(r->jacobian[k * n + s], 0.0, 1e-7);
    }
    print_message("rimless: sagittal multiplier %.12g, eta^2 %.12g; family multiplier %.12g\n", r->jacobian[s * n + s],
                  eta * eta, r->trivial_index >= 0 ? r->eig_re[r->trivial_index] : NAN);
    assert_close(r->jacobian[s * n + s], eta * eta, 1e-8);
    assert_true(r->trivial_index >= 0);
    assert_close(r->eig_re[r->trivial_index], 1.0, 1e-6);
    assert_close(r->eig_im[r->trivial_index], 0.0, 1e-6);
    /* the step is the chord between two tips on the slope, the landing one
     * ahead (the generic measure once took a tip in the air, -0.54 m) */
    const double l = p[sm_model_param_index(m, "spoke_length")], chord = 2 * l * sin(M_PI / 8);
    print_message("rimless: step %.12g, 2 l sin(pi/8) %.12g\n", r->metrics.step_length, chord);
    assert_close(r->metrics.step_length, chord, 1e-10);

    /* another member of the family */
    const double b = 0.3;
    set_param(m, p, "section.family.hub_yaw", b);
    memcpy(x0, r->x, sizeof x0);
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    assert_close(state(m, r->x, "hub_yaw"), b, 1e-12);
    assert_close(state(m, r->x, "hub_roll"), -atan(tan(gamma) * sin(b)), 1e-9);
    assert_close(state(m, r->x, "hub_dot"), -wheel_spin(m, p, asin(sin(gamma) * cos(b)), &eta), 1e-9);
    assert_close(r->eig_re[r->trivial_index], 1.0, 1e-6);
    /* the chord lies along the heading, in the slope's plane */
    assert_close(r->metrics.step_length, chord * cos(b), 1e-10);
    free(r);
    sm_workspace_free(ws);
    m->release(m);
}

/* Column col of a CSV header line (NULL-safe: -1 if absent). */
static int csv_column(const char *header, const char *col)
{
    int k = 0;
    const size_t len = strlen(col);
    for (const char *c = header; c && *c && *c != '\n'; k++) {
        if (strncmp(c, col, len) == 0 && (c[len] == ',' || c[len] == '\n')) return k;
        c = strpbrk(c, ",\n");
        if (!c || *c == '\n') break;
        c++;
    }
    return -1;
}

/* Field k of a CSV line as a number. */
static double csv_field(const char *line, int k)
{
    for (int i = 0; i < k && line; i++) line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
    return line ? strtod(line, NULL) : NAN;
}

/* Continuation keeps the family's condition: continued over the slope at
 * heading 0.3, the 3-D rimless wheel stays at that heading along the whole
 * branch and leans by the closed form atan(tan(gamma) sin(b)); the
 * family's multiplier 1 raises no fold (the old corrector, without the
 * row, drifted along the family and took the multiplier 1's crossings for
 * folds). */
static void cli_continue_family(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const double b = 0.3;
    cli_result *r = cli_run("continue", SM_SOURCE_DIR "/models/rimless3d.yaml", "--param", "slope", "--from", "0.1",
                            "--to", "0.14", "--set", "section.family.hub_yaw=0.3", "--tol", "1e-12", NULL);
    if (r->status != 0) fail_msg("status %d: %s", r->status, r->err);
    const char *header = strstr(r->out, "branch,period,");
    assert_non_null(header);
    const int c_slope = csv_column(header, "slope"), c_yaw = csv_column(header, "hub_yaw"),
              c_roll = csv_column(header, "hub_roll"), c_type = csv_column(header, "type");
    assert_true(c_slope >= 0 && c_yaw >= 0 && c_roll >= 0 && c_type == 3);
    int rows = 0;
    double last = 0.0;
    for (const char *line = strchr(header, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *row = line + 1;
        if (strncmp(row, "0,1,", 4) != 0) continue;
        const double gamma = csv_field(row, c_slope);
        assert_close(csv_field(row, c_yaw), b, 1e-9);
        assert_close(csv_field(row, c_roll), -atan(tan(gamma) * sin(b)), 1e-9);
        const char *type = strchr(strchr(strchr(row, ',') + 1, ',') + 1, ',') + 1;
        if (strncmp(type, "LP", 2) == 0 || strncmp(type, "PD", 2) == 0) fail_msg("a fold on the family: %.60s", row);
        last = gamma;
        rows++;
    }
    assert_true(rows >= 3);
    assert_close(last, 0.14, 1e-9);
}

/* `fixed --json` of MODEL with extra options; the document (owned). */
static json_t *fixed_json(const char *model, const char *extra)
{
    cli_result *r = extra ? cli_run("fixed", model, "--json", extra, NULL) : cli_run("fixed", model, "--json", NULL);
    if (r->status != 0) fail_msg("status %d: %s", r->status, r->err);
    json_error_t e;
    json_t *doc = json_loads(r->out, 0, &e);
    if (!doc) fail_msg("not JSON (%s): %.200s", e.text, r->out);
    return doc;
}

/* The user's view of the two-step map: `fixed --two-step` finds the same
 * gait as a fixed point of two steps with no mirror between, and its
 * multipliers are the squares of the mirrored one-step map's (seed eq.
 * 2.58: the two-step map is (I* f)^2), to 1e-6 of their size. */
static void cli_two_step(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *model = SM_SOURCE_DIR "/models/garcia3d.yaml";
    json_t *one = fixed_json(model, NULL), *two = fixed_json(model, "--two-step");
    assert_int_equal(json_integer_value(json_object_get(one, "period")), 1);
    assert_int_equal(json_integer_value(json_object_get(two, "period")), 2);
    assert_true(json_is_true(json_object_get(two, "two_step")));
    assert_true(json_is_false(json_object_get(one, "two_step")));
    assert_int_equal(json_integer_value(json_object_get(two, "minimal_period")), 1);
    json_t *e1 = json_object_get(one, "eigenvalues"), *e2 = json_object_get(two, "eigenvalues");
    const size_t n = json_array_size(e1);
    assert_int_equal(n, N_FREE);
    assert_int_equal(json_array_size(e2), n);
    double sq_re[N_FREE], sq_im[N_FREE], re2[N_FREE], im2[N_FREE];
    for (size_t i = 0; i < n; i++) {
        const double re = json_real_value(json_array_get(json_array_get(e1, i), 0));
        const double im = json_real_value(json_array_get(json_array_get(e1, i), 1));
        sq_re[i] = re * re - im * im;
        sq_im[i] = 2 * re * im;
        re2[i] = json_real_value(json_array_get(json_array_get(e2, i), 0));
        im2[i] = json_real_value(json_array_get(json_array_get(e2, i), 1));
    }
    /* (the largest, 679, to 1e-6 of itself) */
    assert_same_spectrum(re2, im2, sq_re, sq_im, n, 1e-6);
    /* the same gait */
    json_t *x1 = json_object_get(one, "fixed_point"), *x2 = json_object_get(two, "fixed_point");
    for (size_t i = 0; i < json_array_size(x1); i++)
        assert_close(json_real_value(json_array_get(x2, i)), json_real_value(json_array_get(x1, i)), 1e-8);
    json_decref(one);
    json_decref(two);
    /* --two-step doubles --period, whose bound it says */
    cli_result *r = cli_run("fixed", model, "--two-step", "--period", "1000", NULL);
    assert_int_equal(r->status, 65);
    assert_non_null(strstr(r->err, "--two-step doubles --period"));
}

static double ground_measure(json_t *doc, const char *name)
{
    json_t *v = json_object_get(json_object_get(doc, "ground"), name);
    if (!json_is_number(v)) fail_msg("no ground.%s", name);
    return json_number_value(v);
}

/* The lateral measures of `fixed`: with no hip spacing the gait is planar
 * (heading downhill, upright) and each is 0; with spacing w the feet are
 * w / cos(lean) apart across the heading (two parallel disks' lowest
 * points lie the same way from their centres, whatever their radius), and
 * a mirrored gait's heading drifts by nothing over a step although it
 * swings by twice its value at the section within it. */
static void cli_lateral_measures(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    const char *model = SM_SOURCE_DIR "/models/garcia3d.yaml";
    static const char *const names[] = {"step_width", "hip_sway", "heading_drift", "yaw_range", "roll_range"};
    cli_result *r = cli_run("fixed", model, "--json", "--set", "hip_width=0", "--set", "leg_iyy=0", NULL);
    if (r->status != 0) fail_msg("status %d: %s", r->status, r->err);
    json_t *doc = json_loads(r->out, 0, NULL);
    assert_non_null(doc);
    for (size_t k = 0; k < 5; k++) assert_close(ground_measure(doc, names[k]), 0.0, 1e-10);
    json_decref(doc);

    static const char *const widths[] = {"hip_width=0.02", "hip_width=0.05"};
    for (size_t k = 0; k < 2; k++) {
        r = cli_run("fixed", model, "--json", "--set", widths[k], NULL);
        if (r->status != 0) fail_msg("%s: status %d: %s", widths[k], r->status, r->err);
        doc = json_loads(r->out, 0, NULL);
        assert_non_null(doc);
        const double w = strtod(widths[k] + strlen("hip_width="), NULL);
        json_t *x = json_object_get(doc, "fixed_point");
        const double yaw = json_real_value(json_array_get(x, 3)), lean = json_real_value(json_array_get(x, 4));
        assert_true(fabs(lean) > 1e-3);
        print_message("w = %g: step width %.12g, w / cos(lean) %.12g\n", w, ground_measure(doc, "step_width"),
                      w / cos(lean));
        assert_close(ground_measure(doc, "step_width"), w / cos(lean), 1e-10);
        assert_close(ground_measure(doc, "heading_drift"), 0.0, 1e-9);
        /* the heading turns from yaw to -yaw within the step (the mirror brings it back) */
        assert_true(ground_measure(doc, "yaw_range") >= 2 * fabs(yaw) - 1e-9);
        assert_true(ground_measure(doc, "hip_sway") > 0.0);
        json_decref(doc);
    }
}

/* `fixed --json`'s eigenvectors: unit length, and the upright 3-D rimless
 * wheel's sagittal multiplier eta^2 (closed form, see rimless_wheel) moves
 * the spin alone (its row and column of the Jacobian are decoupled), so
 * its eigenvector is the spin's unit vector. */
static void cli_eigenvectors(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    json_t *doc = fixed_json(SM_SOURCE_DIR "/models/rimless3d.yaml", NULL);
    json_t *eig = json_object_get(doc, "eigenvalues"), *vec = json_object_get(doc, "eigenvectors");
    const size_t n = json_array_size(eig);
    assert_int_equal(n, 5);
    assert_int_equal(json_array_size(vec), n);
    const double alpha = M_PI / 8, eta = 1 - (1 - cos(2 * alpha)) / (0.2 + 1.0); /* m = l = 1, I = 0.2 */
    size_t k = n;
    for (size_t i = 0; i < n; i++) {
        double len = 0.0;
        for (size_t r = 0; r < n; r++) len += pow(json_real_value(json_array_get(json_array_get(vec, i), r)), 2);
        assert_close(len, 1.0, 1e-12);
        if (fabs(json_real_value(json_array_get(json_array_get(eig, i), 0)) - eta * eta) < 1e-6) k = i;
    }
    assert_true(k < n);
    for (size_t r = 0; r < n; r++)
        assert_close(json_real_value(json_array_get(json_array_get(vec, k), r)), r == 4 ? 1.0 : 0.0, 1e-6);
    json_t *fm = json_object_get(doc, "free_modes");
    assert_string_equal(json_string_value(json_array_get(fm, 4)), "sagittal");
    assert_string_equal(json_string_value(json_array_get(fm, 0)), "heading");
    json_decref(doc);
}

/* ---------------------------------------------------------------- lateral */

static void lateral_instability(void **state_)
{
    (void)state_;
    const sm_model *m = open_ok(src_path("models/garcia3d.yaml"));
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS];
    sm_fixed_result *r = calloc(1, sizeof *r);
    default_gait(m, ws, p, r);
    /* towards point feet by small steps of the foot radius, each gait the
     * next one's guess */
    sm_newton_options no;
    newton_tight(&no);
    no.tol = 1e-10; /* only the multipliers' signs of size matter here */
    double x[SM_MAX_STATE];
    for (double R = 0.18; R > 0.009; R -= 0.02) {
        memcpy(x, r->x, sizeof x);
        set_param(m, p, "foot_radius", R);
        assert_status(sm_fixed_point(ws, p, x, &no, r), SM_OK);
    }
    assert_close(p[sm_model_param_index(m, "foot_radius")], 0.02, 1e-12);
    assert_true(r->max_abs_eig > 1.0);
    assert_false(r->stable);
    /* the coordinates' kinds, from the joints' axes */
    static const int kinds[N_FREE] = {SM_MODE_HEADING, SM_MODE_LATERAL, SM_MODE_SAGITTAL, SM_MODE_HEADING,
                                      SM_MODE_LATERAL, SM_MODE_SAGITTAL, SM_MODE_SAGITTAL};
    assert_non_null(m->free_mode);
    for (size_t i = 0; i < N_FREE; i++) assert_int_equal(m->free_mode[i], kinds[i]);
    int mode[N_FREE];
    double share[N_FREE];
    assert_status(sm_gait_modes(m, &r->gait, mode, share), SM_OK);
    size_t outside = 0;
    for (size_t i = 0; i < N_FREE; i++) {
        if (hypot(r->eig_re[i], r->eig_im[i]) <= 1.0) continue;
        outside++;
        print_message("R = 0.02: multiplier %.6g%+.6gi, mode %s (%.3f of its eigenvector)\n", r->eig_re[i],
                      r->eig_im[i], sm_mode_name(mode[i]), share[i]);
    }
    assert_true(outside >= 1);
    /* the largest is a sideways fall: its eigenvector mostly bank */
    assert_int_equal(mode[0], SM_MODE_LATERAL);
    assert_true(share[0] > 0.5);
    /* and no sagittal multiplier is outside: the planar gait's are inside */
    for (size_t i = 0; i < N_FREE; i++)
        if (mode[i] == SM_MODE_SAGITTAL) assert_true(hypot(r->eig_re[i], r->eig_im[i]) < 1.0);
    free(r);
    sm_workspace_free(ws);
    m->release(m);
}

/* garcia3d.yaml with `from` replaced by `to`, opened: the loader's status
 * and message. */
static sm_status open_edited(const char *from, const char *to, char *why, size_t why_len)
{
    FILE *in = fopen(src_path("models/garcia3d.yaml"), "r");
    assert_non_null(in);
    static char text[65536];
    const size_t len = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[len] = '\0';
    char *at = strstr(text, from);
    if (!at) fail_msg("no '%s' in garcia3d.yaml", from);
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_garcia3d_edit_%ld.yaml", (long)getpid());
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fwrite(text, 1, (size_t)(at - text), out);
    fputs(to, out);
    fputs(at + strlen(from), out);
    fclose(out);
    const sm_model *m = NULL;
    const sm_status st = sm_registry_open(path, &m, why, why_len);
    remove(path);
    if (st == SM_OK) m->release(m);
    return st;
}

/* A bad family or shift is refused at its line, saying what to write. */
static void bad_family_and_shift(void **state_)
{
    (void)state_;
    static const struct {
        const char *from, *to, *says;
    } cases[] = {
        {"  free: [hip_yaw,", "  family: {nope: 0}\n  free: [hip_yaw,", "'nope' is no coordinate or rate"},
        {"  free: [hip_yaw,", "  family: {hip_yaw: 0, hip_roll: 0}\n  free: [hip_yaw,", "{NAME: VALUE}"},
        {"  free: [hip_yaw,", "  family: [hip_yaw]\n  free: [hip_yaw,", "section: family"},
        {"  - {negate: hip_roll}", "  - {negate: hip_roll}\n  - {shift: leg_a}", "{shift: NAME, by: NUMBER}"},
        {"  - {negate: hip_roll}", "  - {negate: hip_roll}\n  - {shift: leg_a, by: x1}", "must be a finite number"},
        {"  - {negate: hip_roll}", "  - {negate: hip_roll}\n  - {shift: leg_a, by: 1, negate: leg_b}",
         "alone in its entry"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char why[1024] = "";
        assert_status(open_edited(cases[k].from, cases[k].to, why, sizeof why), SM_BAD_MODEL_FILE);
        if (!strstr(why, cases[k].says)) fail_msg("case %zu: '%s' does not say '%s'", k, why, cases[k].says);
        assert_null(strchr(why, '\n'));
    }
    /* and a good family is taken, its value a parameter */
    char why[1024] = "";
    assert_status(open_edited("  free: [hip_yaw,", "  family: {hip_yaw: 0.1}\n  free: [hip_yaw,", why, sizeof why),
                  SM_OK);
}

/* The user's view: `stridemap fixed models/garcia3d.yaml --json` gives the 3-D gait,
 * its multipliers and the mode of each, the largest a lateral one. */
static void cli_modes(void **state_)
{
    (void)state_;
    if (!cli_exe) skip();
    cli_result *r = cli_run("fixed", SM_SOURCE_DIR "/models/garcia3d.yaml", "--json", NULL);
    if (r->status != 0) fail_msg("status %d: %s", r->status, r->err);
    const char *modes = strstr(r->out, "\"modes\"");
    if (!modes) fail_msg("no modes in: %.400s", r->out);
    assert_non_null(strstr(r->out, "\"stable\": false"));
    char first[32] = "";
    if (sscanf(modes, "\"modes\": [ \"%31[a-z]\"", first) != 1 && sscanf(modes, "\"modes\":[\"%31[a-z]\"", first) != 1)
        fail_msg("modes: %.80s", modes);
    assert_string_equal(first, "lateral");
    r = cli_run("fixed", SM_SOURCE_DIR "/models/garcia3d.yaml", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "modes        lateral "));
    /* a planar walker has none */
    r = cli_run("fixed", SM_SOURCE_DIR "/models/compass_round_spring.yaml", "--json", NULL);
    assert_int_equal(r->status, 0);
    assert_null(strstr(r->out, "\"modes\""));
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(planar_reduction),
        cmocka_unit_test(energy_balance),
        cmocka_unit_test(mirror_two_step),
        cmocka_unit_test(heading_family),
        cmocka_unit_test(rimless_wheel),
        cmocka_unit_test(lateral_instability),
        cmocka_unit_test(cli_modes),
        cmocka_unit_test(bad_family_and_shift),
        cmocka_unit_test(cli_continue_family),
        cmocka_unit_test(cli_two_step),
        cmocka_unit_test(cli_lateral_measures),
        cmocka_unit_test(cli_eigenvectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
