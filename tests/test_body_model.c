/* A body-walker file as an sm_model (src/body/): the five model files of
 * models/ give the gaits they gave on the retired linkage engine (the
 * compass against the closed-form compass walker too), built in C and read
 * from their files; double support holding its pins; a phase with dependent
 * contacts refused at its line; a callback's own status ending the stride. */
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "cli_run.h"
#include "src_path.h"
#include "body_files.h"
#include "body_solve.h"
#include "../src/body/body_model.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"


static void solve(const sm_model *m, const double *p, const double *x0, sm_fixed_result *r)
{
    /* the multipliers below are compared to 1e-9: at rtol 1e-13 the
     * integration noise in them is still 1e-9 (the kneed walker's move by
     * 2.4e-9 from rtol 1e-12 to 1e-13) */
    sm_newton_options no;
    sm_workspace *ws = body_solve_setup(m, 1e-14, &no);
    /* the linkage's multipliers are from this stencil too: compared with
     * the finite-difference ones, the exact ones beside them */
    no.check_fd = true;
    assert_status(sm_fixed_point(ws, p, x0, &no, r), SM_OK);
    assert_status(r->fd_check_status, SM_OK);
    sm_workspace_free(ws);
}

static const sm_model *open_ok(const char *rel)
{
    const sm_model *m = NULL;
    char why[512] = "";
    const sm_status st = sm_registry_open(src_path(rel), &m, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", rel, why);
    return m;
}

static const sm_model *create_ok(body_file *f)
{
    const sm_model *m = NULL;
    char why[512] = "";
    const sm_status st = body_model_create(f, &m, why, sizeof why);
    if (st != SM_OK) fail_msg("body_model_create: %s", why);
    return m;
}

/* The gait a model file gave on the linkage engine (src/linkage/, retired
 * with issue 11; its equations by recursive Newton-Euler sweeps and H = M
 * impacts, an independent derivation checked against the closed-form
 * compass and kneed walkers), solved as solve() does: rtol 1e-14, Newton to
 * 1e-12, central differences of step 1e-2.  Commit 8d1c921 compared these
 * files with the linkage engine live.  x: the linkage's state (stance,
 * swing or thigh, [shank,] rates), absolute angles from the slope normal;
 * lock: the stance knee's smallest locking torque (NaN: none). */
typedef struct {
    size_t n_free;
    double x[6], eig_re[4], eig_im[4];
    double period, step, loss, impulse, min_normal, friction, lock;
} linkage_gait;

static const linkage_gait ROUND_SPRING = {
    3, {0.323957088474607, -0.323957088474607, -1.31431145027485, -0.505595545051887},
    {0.251330246294146, 0.251330246294146, 0.147773438640326}, {0.519709837045815, -0.519709837045815, 0},
    0.663653450994577, 0.509312474433859, 6.40722796186181, 15.2006263632651, 132.910901024207, 0.229931686230577,
    NAN};
static const linkage_gait MCGEER = {
    4, {0.191922961543288, -0.35820542532017, -0.35820542532017, -1.10553757378147, 0.105450279631931, -2.15730643073621},
    {-0.457804548862282, 0.446213073682239, -0.173641839869304, 2.33520683858383e-06}, {0, 0, 0, 0},
    0.712457466196241, 0.327060206348672, 0.805541977142446, 2.45959278478076, 50.9389645847135, 0.210699182494121,
    0.1948423434052886};
static const linkage_gait HSU = {
    4, {0.239641996533493, -0.239641996533493, -0.239641996533493, -1.13381658644773, -0.108729338481363,
        -0.108729338481363},
    {0.548181613470111, 0.548181613470111, 0.107744880159756, 0}, {0.498570281666666, -0.498570281666666, 0, 0},
    0.545846142695887, 0.47470973767931, 0.374756965134598, 1.0000767261136, 10.703707702661, 0.257673618665208,
    -0.09395112647285929};
static const linkage_gait LOCKED = {
    3, {0.2046594657732, -0.370941929550083, -1.13874810323167, -0.429677745012809},
    {-1.01453140940781, 0.372467873676493, -0.0663430221947391}, {0, 0, 0},
    0.751321306550333, 0.341793518132834, 0.842084490225481, 2.77468319854116, 51.1979717525454, 0.218020739782261,
    0.1862955984210359};

/* A body gait against the linkage's: the fixed point (mapped to the
 * linkage's state by the caller) to 1e-10; the finite-difference
 * multipliers to eig_tol (the integration noise in them, see solve()), the
 * exact ones to the stencil's truncation; the step's measures to 1e-10,
 * energies and forces to 1e-9 and 1e-8 (sampled alike). */
static void same_gait(const sm_fixed_result *rb, const double *mapped, size_t n, const linkage_gait *l,
                      double eig_tol)
{
    for (size_t i = 0; i < n; i++) assert_close(mapped[i], l->x[i], 1e-10);
    assert_int_equal(rb->n_free, l->n_free);
    for (size_t i = 0; i < rb->n_free; i++) {
        assert_close(rb->eig_fd_re[i], l->eig_re[i], eig_tol);
        assert_close(fabs(rb->eig_fd_im[i]), fabs(l->eig_im[i]), eig_tol);
        /* The exact multipliers differ from the stencil's by its
         * truncation at h = 1e-2 (up to 6.4e-5 here). */
        assert_close(rb->eig_re[i], l->eig_re[i], 2e-4);
        assert_close(fabs(rb->eig_im[i]), fabs(l->eig_im[i]), 2e-4);
    }
    assert_close(rb->metrics.period, l->period, 1e-10);
    assert_close(rb->metrics.step_length, l->step, 1e-10);
    assert_close(rb->metrics.impact_energy_loss, l->loss, 1e-9);
    assert_close(rb->metrics.heelstrike_impulse, l->impulse, 1e-9);
    assert_close(rb->metrics.min_normal_force, l->min_normal, 1e-8);
    assert_close(rb->metrics.max_friction_ratio, l->friction, 1e-9);
}

/* The linkage's state from a kneed body state: absolute thigh angles and
 * knee flexions (thigh minus shank). */
static void kneed_mapped(const double *x, double *out)
{
    const double m[6] = {x[2], x[4], x[4] - x[5], x[8], x[10], x[10] - x[11]};
    memcpy(out, m, sizeof m);
}

/* A body walker's state x in its full formulation's layout (the base's
 * slides and rates first): x itself, or for a file that integrates the
 * joints alone (integrate: reduced) the joints with the base its stance
 * contact puts under them. */
static const double *full_state(const body_model *bm, const double *p, const double *x, double *buf)
{
    if (!bm->reduced) return x;
    assert_status(body_expand_at(bm, p, x, buf), SM_OK);
    return buf;
}

static void gait_of(const sm_model *m, sm_fixed_result *r, double *p)
{
    double x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    solve(m, p, x, r);
}

/* The compass as bodies gives the closed-form walker's gait: fixed point,
 * multipliers, period, step length. */
static void check_compass(const sm_model *b)
{
    const sm_model *c = test_model("compass");
    double pb[SM_MAX_PARAMS], pc[SM_MAX_PARAMS];
    static sm_fixed_result rb, rc;
    gait_of(b, &rb, pb);
    gait_of(c, &rc, pc);
    /* (hip.x, hip.z, leg_a, leg_b, rates) against the closed form's angles
     * from the vertical, positive the other way (th = gamma - angle) */
    const double gamma = pc[sm_model_param_index(c, "gamma")];
    double xf[SM_MAX_STATE];
    const double *x = full_state(b->data, pb, rb.x, xf);
    assert_close(rc.x[0], gamma - x[2], 1e-10);
    assert_close(rc.x[1], gamma - x[3], 1e-10);
    assert_close(rc.x[2], -x[6], 1e-10);
    assert_close(rc.x[3], -x[7], 1e-10);
    /* the lift puts the hip a leg's length above the stance foot */
    assert_close(x[1], cos(x[2]), 1e-12);
    assert_int_equal(rb.n_free, rc.n_free);
    for (size_t i = 0; i < rb.n_free; i++) {
        assert_close(rb.eig_re[i], rc.eig_re[i], 1e-9);
        assert_close(fabs(rb.eig_im[i]), fabs(rc.eig_im[i]), 1e-9);
    }
    assert_close(rb.metrics.period, rc.metrics.period, 1e-10);
    assert_close(rb.metrics.step_length, rc.metrics.step_length, 1e-10);
    assert_true(rb.stable);

    /* the ground measures: the stance pin carries the whole reaction in
     * single support, and the integration keeps it on its anchor */
    assert_string_equal(b->extra_group, "ground");
    sm_workspace *ws = test_workspace(b, 1e-12, SM_METHOD_ADAMS);
    double g[SM_MAX_EXTRA];
    assert_status(b->extra_measures(ws, pb, rb.x, g), SM_OK);
    sm_workspace_free(ws);
    assert_close(g[0], rb.metrics.min_normal_force, 1e-3 * rb.metrics.min_normal_force);
    assert_true(g[0] > 0 && g[1] > g[0]);
    assert_close(g[2], rb.metrics.max_friction_ratio, 1e-3 * rb.metrics.max_friction_ratio);
    print_message("compass: pin drift over a stride at rtol 1e-12: %.3g m\n", g[4]);
    assert_true(g[4] < 1e-9);
    assert_true(isnan(g[3])); /* no lock */
    assert_true(isnan(g[5])); /* never two feet down: no centre of pressure between them */
    /* foot_b never carries in this phase graph: only foot_a has its own;
     * then the heel-strike's impulse on foot_a */
    assert_int_equal(b->n_extra, 12);
    assert_string_equal(b->extra_names[10], "foot_a.min_normal_force");
    assert_close(g[10], g[0], 0);
    assert_string_equal(b->extra_names[11], "heelstrike.foot_a.impulse");
    /* one foot, one point: the foot's friction ratio and normal force are
     * the point's */
    assert_string_equal(b->extra_names[8], "max_foot_friction_ratio");
    assert_close(g[8], g[2], 0);
    assert_string_equal(b->extra_names[9], "min_foot_normal_force");
    assert_close(g[9], g[0], 0);
    b->release(b);
}

/* A parameter other than its default reaches the dynamics (the per-call
 * copy of the rigid model): the gait at a steeper slope with lighter legs
 * is the closed-form walker's. */
static void test_compass_other_slope(void **state)
{
    const sm_model *b = open_ok("models/compass.yaml");
    const sm_model *c = test_model("compass");
    double pb[SM_MAX_PARAMS], pc[SM_MAX_PARAMS];
    sm_model_default_params(b, pb);
    sm_model_default_params(c, pc);
    set_param(b, pb, "slope", 0.06);
    set_param(c, pc, "gamma", 0.06);
    set_param(b, pb, "bodies.leg_a.mass", 4.5);
    set_param(c, pc, "m", 4.5);
    double xb[SM_MAX_STATE], xc[SM_MAX_STATE];
    b->guess(xb, pb, b->data);
    c->guess(xc, pc, c->data);
    static sm_fixed_result rb, rc;
    solve(b, pb, xb, &rb);
    solve(c, pc, xc, &rc);
    double xf[SM_MAX_STATE];
    const double *x = full_state(b->data, pb, rb.x, xf);
    assert_close(rc.x[0], 0.06 - x[2], 1e-10);
    assert_close(rc.x[1], 0.06 - x[3], 1e-10);
    assert_close(rc.x[2], -x[6], 1e-10);
    assert_close(rc.x[3], -x[7], 1e-10);
    assert_close(rb.metrics.period, rc.metrics.period, 1e-10);
    b->release(b);
}

/* Round feet rolling on the ground and a hip spring and damper. */
static void check_round_feet_spring(const sm_model *b)
{
    double pb[SM_MAX_PARAMS];
    static sm_fixed_result rb;
    gait_of(b, &rb, pb);
    double xf[SM_MAX_STATE];
    const double *x = full_state(b->data, pb, rb.x, xf);
    const double mapped[4] = {x[2], x[3], x[6], x[7]};
    /* the multipliers to the integration noise in them: 1.5e-11 apart for
     * the walker built in C, 1.1e-10 for the file's (the same numbers, a
     * different guess, so Newton ends a hair elsewhere) */
    same_gait(&rb, mapped, 4, &ROUND_SPRING, 2e-10);
    /* the disk's centre is a radius above the ground at the section */
    assert_close(x[1], 0.2 + 0.8 * cos(x[2]), 1e-12);
    b->release(b);
}

/* The stance knee's smallest locking torque, from the locks' forces. */
static double ground_lock(const sm_model *b, const double *p, const double *x)
{
    sm_workspace *ws = test_workspace(b, 1e-12, SM_METHOD_ADAMS);
    double g[SM_MAX_EXTRA];
    assert_status(b->extra_measures(ws, p, x, g), SM_OK);
    sm_workspace_free(ws);
    assert_string_equal(b->extra_names[3], "min_lock_torque");
    print_message("%s: drift off the contacts over a phase: %.3g m\n", b->name, g[4]);
    assert_true(g[4] < 1e-9);
    assert_true(g[0] > 0);
    return g[3];
}

/* McGeer's kneed walker: knee locks, a knee-strike impact, two phases. */
static void check_kneed(const sm_model *b)
{
    double pb[SM_MAX_PARAMS], mapped[6], xf[SM_MAX_STATE];
    static sm_fixed_result rb;
    gait_of(b, &rb, pb);
    const double *x = full_state(b->data, pb, rb.x, xf);
    kneed_mapped(x, mapped);
    assert_close(x[3], 0.0, 1e-12);
    assert_close(x[5], 0.0, 1e-12);
    /* The multipliers differ by up to 1.4e-10 for the walker built in C and
     * 5.5e-10 for the file's (0.4462130742 here), a difference that shrinks
     * with the tolerance: 1.2e-9 at rtol 1e-13, where each model's own
     * multipliers still move by 2.4e-9 from rtol 1e-12. */
    same_gait(&rb, mapped, 6, &MCGEER, 1e-9);
    /* Garcia's Table 2.1 smallest stance-knee locking torque */
    assert_close(ground_lock(b, pb, rb.x), MCGEER.lock, 1e-6);
    b->release(b);
}

/* Hsu Chen's kneed walker: point feet, the stance knee locked by
 * assumption, the new swing knee held through the heel-strike impact
 * (impact: [foot_a, knee_a, knee_b]) and released after it. */
static void check_hsu(const sm_model *b)
{
    double pb[SM_MAX_PARAMS], mapped[6], xf[SM_MAX_STATE];
    static sm_fixed_result rb;
    gait_of(b, &rb, pb);
    const double *x = full_state(b->data, pb, rb.x, xf);
    kneed_mapped(x, mapped);
    /* the held knee: the trailing leg leaves straight, its flexion rate 0 */
    assert_close(x[11], 0.0, 1e-12);
    /* the published gait (models/kneed_hsu.yaml's header, Chen 2007) */
    assert_close(x[2], 0.2396419965, 1e-9);
    assert_close(x[8], -1.1338165864, 1e-9);
    assert_close(x[10], -0.1087293385, 1e-9);
    /* The held knee makes one multiplier zero (to the finite differences:
     * 3e-15 here); the others agree to 1e-10 (9.8e-11 at most). */
    /* The linkage evaluated the stride's first sample as if the held knee
     * were still locked (its rate is zero there); the stride starts in
     * knee_free, whose ground force at t = 0 tilts more, and that sample
     * now sets the largest friction ratio. */
    linkage_gait hsu = HSU;
    double R[2];
    b->ground_reaction(0.0, 0, rb.x, pb, b->data, R);
    hsu.friction = fmax(HSU.friction, fabs(R[0] / R[1]));
    print_message("hsu: |F_t/F_n| at the start in knee_free %.10g, the linkage's largest %.10g\n",
                  fabs(R[0] / R[1]), HSU.friction);
    same_gait(&rb, mapped, 6, &hsu, 1e-9);
    assert_close(rb.eig_re[rb.n_free - 1], 0.0, 1e-9);
    /* the stance knee's smallest locking torque, negative (Chen's knee is
     * locked by assumption, so no knee_unlocked ends the stride) */
    const double lock = ground_lock(b, pb, rb.x);
    print_message("hsu: period %.12g s, step %.12g m, min lock torque %.10g N m\n", rb.metrics.period,
                  rb.metrics.step_length, lock);
    assert_close(lock, HSU.lock, 1e-6);
    assert_true(lock < -0.09);
    b->release(b);
}

/* The stance knee's (knee_a's) smallest locking torque over a stride,
 * sampled: with both knees locked in every phase the ground measures'
 * min_lock_torque is the swing knee's too. */
typedef struct {
    const body_model *bm;
    const double *p;
    double min;
    size_t phase; /* of the last sample */
} knee_watch;

static int watch_knee(void *ctx, double t, size_t phase, const double *x)
{
    knee_watch *w = ctx;
    double xf[SM_MAX_STATE];
    x = full_state(w->bm, w->p, x, xf); /* the full saddle-point solve's forces */
    BODY_EVAL_MEM(mem, w->bm);
    body_eval e;
    assert_status(body_eval_init(&e, w->bm, w->p, mem, NULL, 0), SM_OK);
    double lambda[SM_RIGID_MAX_ROWS];
    sm_contact c[BODY_MAX_CONTACTS];
    size_t nc = 0;
    assert_status(body_phase_solve(&e, phase, x, NULL, lambda, c, &nc), SM_OK);
    int knee_a = -1;
    for (size_t k = 0; k < w->bm->f->n_contacts; k++)
        if (strcmp(w->bm->f->contacts[k].name, "knee_a") == 0) knee_a = (int)k;
    const int slot = body_phase_contact_slot(w->bm->f, phase, knee_a);
    assert_true(slot >= 0);
    double n, tan;
    body_contact_force(&e, c, nc, lambda, (size_t)slot, &n, &tan);
    w->min = fmin(w->min, n);
    w->phase = phase;
    return 0;
}

/* McGeer's walker with its knees locked throughout: one phase, both locks. */
static void check_kneed_locked(const sm_model *b)
{
    double pb[SM_MAX_PARAMS];
    static sm_fixed_result rb;
    gait_of(b, &rb, pb);
    /* (stance, swing, rates) from the absolute thigh angles */
    double xf[SM_MAX_STATE];
    const double *x = full_state(b->data, pb, rb.x, xf);
    const double mapped[4] = {x[2], x[4], x[8], x[10]};
    for (size_t i = 0; i < 2; i++) {
        assert_close(x[3 + 2 * i], 0.0, 1e-12);
        assert_close(x[9 + 2 * i], 0.0, 1e-12);
    }
    same_gait(&rb, mapped, 4, &LOCKED, 1e-9);
    assert_true(rb.eig_re[0] < -1.0); /* period doubling: the knees make the walker stable */
    /* knees locked in every phase are straight legs: the mid-stance scuff
     * is no clearance, as the linkage engine held (its last value) */
    assert_close(rb.metrics.min_foot_clearance, 6.642330345102421e-05, 1e-9);
    sm_workspace *ws = test_workspace(b, 1e-12, SM_METHOD_ADAMS);
    knee_watch w = {.bm = b->data, .p = pb, .min = INFINITY};
    const sm_observer obs = {.dt = rb.metrics.period / 20000, .sample = watch_knee, .ctx = &w};
    double y[SM_MAX_STATE];
    assert_status(watch_knee(&w, 0, 0, rb.x), 0); /* the samples start after t = 0 */
    assert_status(sm_stride(ws, pb, rb.x, y, NULL, &obs), SM_OK);
    sm_workspace_free(ws);
    print_message("locked: period %.12g s, step %.12g m, stance knee's min lock torque %.10g N m\n",
                  rb.metrics.period, rb.metrics.step_length, w.min);
    assert_close(w.min, LOCKED.lock, 1e-6);
    assert_true(w.min > 0.18);
    b->release(b);
}

/* The gap of contact name of a body walker at x. */
static double gap_of(const sm_model *m, const double *p, const double *x, const char *name)
{
    const body_model *bm = m->data;
    double xf[SM_MAX_STATE];
    x = full_state(bm, p, x, xf);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_status(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    assert_status(sm_rigid_forward(e.m, e.d, x, x + bm->nq), SM_OK);
    for (size_t k = 0; k < bm->f->n_contacts; k++)
        if (strcmp(bm->f->contacts[k].name, name) == 0) {
            sm_contact c;
            body_contact_at(&e, k, NULL, &c);
            return sm_contact_gap(e.m, e.d, x, &c, NULL);
        }
    fail_msg("no contact %s", name);
    return NAN;
}

/* McGeer's walker fails the way its header says: with the disk's centre
 * 0.03 m ahead of the leg axis (below ~0.045 m) the stance knee's locking
 * torque is negative from the start of the step, knee_unlocked; on level
 * ground the swing disk touches down before heel-strike may count, scuffed,
 * with its lowest point on the ground. */
static void test_kneed_failures(void **state)
{
    const sm_model *b = open_ok("models/kneed_mcgeer.yaml");
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(b, p);
    b->guess(x, p, b->data);
    set_param(b, p, "sites.disk_a.pos.x", 0.03);
    b->lift(x, p, b->data);
    sm_workspace *ws = test_workspace(b, 1e-12, SM_METHOD_ADAMS);
    assert_status(sm_stride(ws, p, x, y, NULL, NULL), SM_KNEE_UNLOCKED);
    /* the stop would have to pull the stance knee straight from the start */
    knee_watch w = {.bm = b->data, .p = p, .min = INFINITY};
    assert_status(watch_knee(&w, 0, 0, x), 0);
    print_message("kneed, disk 0.03 m ahead: knee_unlocked; the stance knee's torque at the start %.3g N m\n", w.min);
    assert_true(w.min < 0);
    /* the default gait's stays positive (Garcia's Table 2.1: 0.353 N m) */
    sm_model_default_params(b, p);
    b->guess(x, p, b->data);
    w.min = INFINITY;
    assert_status(watch_knee(&w, 0, 0, x), 0);
    assert_true(w.min > 0);

    sm_model_default_params(b, p);
    set_param(b, p, "slope", 0.0);
    b->guess(x, p, b->data);
    b->lift(x, p, b->data);
    /* walking on, it slows down until a stride scuffs */
    sm_status st = SM_OK;
    int k = 0;
    for (; k < 50 && st == SM_OK; k++) {
        st = sm_stride(ws, p, x, y, NULL, NULL);
        if (st == SM_OK) memcpy(x, y, sizeof x);
    }
    print_message("kneed on level ground: stride %d ends %s\n", k, sm_status_name(st));
    assert_status(st, SM_SCUFFED);
    assert_close(gap_of(b, p, y, "disk_b"), 0.0, 1e-9);
    sm_workspace_free(ws);
    b->release(b);
}

/* The gait of a model file at tolerance rtol, Newton's (and the stability
 * Jacobian's) finite-difference step h. */
static sm_status file_gait(const char *rel, double rtol, double h, bool central, sm_fixed_result *r)
{
    const sm_model *m = open_ok(rel);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, rtol, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.fd_step = h;
    no.central = central;
    const sm_status st = sm_fixed_point(ws, p, x0, &no, r);
    sm_workspace_free(ws);
    m->release(m);
    return st;
}

/* The multipliers of a kneed gait, by central differences of one fixed step
 * h, converge as the integration tolerance goes from 1e-10 to 1e-13: the
 * integrator's error in P, divided by h, is all that changes.  Newton with
 * that step converges at every tolerance, as it does with forward
 * differences of 1e-5 (a knee locking at once for one sign of the step
 * would stop both: Chen's walker starts every step with its swing knee
 * straight at rate zero). */
static void check_multipliers_converge(const char *rel)
{
    const double h = 1e-2;
    static sm_fixed_result r[4];
    for (int k = 0; k < 4; k++) {
        const double rtol = pow(10.0, -10 - k);
        if (file_gait(rel, rtol, h, true, &r[k]) != SM_OK)
            fail_msg("%s: no gait at rtol %g with fd_step %g (%s)", rel, rtol, h, sm_status_name(r[k].status));
        static sm_fixed_result f;
        if (file_gait(rel, rtol, 1e-5, false, &f) != SM_OK)
            fail_msg("%s: no gait at rtol %g with fd_step 1e-5 (%s)", rel, rtol, sm_status_name(f.status));
    }
    double d[3];
    for (int k = 0; k < 3; k++) {
        d[k] = 0;
        for (size_t i = 0; i < r[k].n_free; i++)
            d[k] = fmax(d[k], hypot(r[k].eig_re[i] - r[k + 1].eig_re[i], r[k].eig_im[i] - r[k + 1].eig_im[i]));
    }
    print_message("%s: multipliers move by %.2g, %.2g, %.2g from rtol 1e-10 to 1e-13\n", rel, d[0], d[1], d[2]);
    assert_true(d[2] < d[0]);
    assert_true(d[2] <= 2e-8);
}

static void test_kneed_multipliers_converge(void **state)
{
    check_multipliers_converge("models/kneed_hsu.yaml");
    check_multipliers_converge("models/kneed_mcgeer.yaml");
}

static void test_compass_built(void **state) { check_compass(create_ok(bf_compass())); }
static void test_round_feet_spring_built(void **state) { check_round_feet_spring(create_ok(bf_compass_round_spring())); }
static void test_kneed_built(void **state) { check_kneed(create_ok(bf_kneed_mcgeer())); }

/* The same through the files of models/ (the loader's), as the program
 * opens them. */
static void test_compass_file(void **state) { check_compass(open_ok("models/compass.yaml")); }
static void test_round_feet_spring_file(void **state)
{
    check_round_feet_spring(open_ok("models/compass_round_spring.yaml"));
}
static void test_kneed_file(void **state) { check_kneed(open_ok("models/kneed_mcgeer.yaml")); }
static void test_hsu_file(void **state) { check_hsu(open_ok("models/kneed_hsu.yaml")); }
static void test_kneed_locked_file(void **state) { check_kneed_locked(open_ok("models/kneed_mcgeer_locked.yaml")); }

/* Ten strides of a model in double support (both pins holding through three
 * phases, tests/data/body_models/double_support.yaml), stride after stride
 * as simulate runs them: the pinned feet stay where the first section put
 * them, to 1e-9 m, at every event. */
typedef struct {
    const sm_rigid_model *rm;
    sm_rigid_data *d;
    size_t nq, foot[2];
    double anchor[2][3], drift;
    int events;
} pin_watch;

static void feet_at(pin_watch *w, const double *x, double pos[2][3])
{
    assert_status(sm_rigid_forward(w->rm, w->d, x, x + w->nq), SM_OK);
    for (int k = 0; k < 2; k++) sm_rigid_site_pos(w->rm, w->d, w->foot[k], pos[k]);
}

static int watch_pins(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    pin_watch *w = ctx;
    double pos[2][3];
    feet_at(w, xm, pos);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) w->drift = fmax(w->drift, fabs(pos[k][i] - w->anchor[k][i]));
    w->events++;
    return 0;
}

static void test_double_support_pins_hold(void **state)
{
    const sm_model *m = open_ok("tests/data/body_models/double_support.yaml");
    pin_watch w = {.rm = body_model_rigid(m), .nq = body_model_file(m)->nq};
    assert_non_null(w.rm);
    w.d = sm_rigid_data_create(w.rm);
    w.foot[0] = (size_t)sm_rigid_site_index(w.rm, "foot_a");
    w.foot[1] = (size_t)sm_rigid_site_index(w.rm, "foot_b");
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    feet_at(&w, x, w.anchor);
    assert_close(w.anchor[0][0], 0.0, 1e-14); /* the origin */
    assert_close(w.anchor[0][2], 0.0, 1e-14);
    assert_close(w.anchor[1][2], 0.0, 1e-14);
    sm_workspace *ws = test_workspace(m, 1e-10, SM_METHOD_ADAMS);
    sm_observer obs = {.event = watch_pins, .ctx = &w};
    for (int k = 0; k < 10; k++) {
        assert_status(sm_stride(ws, p, x, y, NULL, &obs), SM_OK);
        memcpy(x, y, sizeof x);
    }
    print_message("double support: pins' largest drift over 10 strides (%d events): %.3g m\n", w.events, w.drift);
    assert_int_equal(w.events, 30);
    assert_true(w.drift < 1e-9);

    /* both feet carry through the stride, so the centre of pressure stays
     * between them: inside by at most half their spacing */
    double g[SM_MAX_EXTRA];
    assert_true(m->n_extra >= 12);
    assert_status(m->extra_measures(ws, p, x, g), SM_OK);
    assert_string_equal(m->extra_names[5], "cop_margin");
    assert_string_equal(m->extra_names[10], "foot_a.min_normal_force");
    assert_string_equal(m->extra_names[11], "foot_b.min_normal_force");
    assert_true(g[10] > 0 && g[11] > 0);
    assert_close(fmin(g[10], g[11]), g[0], 0);
    /* one point per foot: each foot's friction ratio and normal force are
     * its point's */
    assert_string_equal(m->extra_names[8], "max_foot_friction_ratio");
    assert_true(g[2] > 0);
    assert_close(g[8], g[2], 1e-15);
    assert_string_equal(m->extra_names[9], "min_foot_normal_force");
    assert_close(g[9], g[0], 0);
    const double spacing = fabs(w.anchor[1][0] - w.anchor[0][0]);
    print_message("double support: centre of pressure inside the feet by %.4g m of %.4g m\n", g[5], spacing);
    assert_true(g[5] > 0 && g[5] <= 0.5 * spacing);
    sm_workspace_free(ws);
    sm_rigid_data_free(w.d);
    m->release(m);
}

/* The step length is measured between ground contacts: a lock listed first
 * among the touching contacts (a knee held straight on the section) is not
 * a foot. */
static void test_step_length_skips_locks(void **state)
{
    const sm_model *a = create_ok(bf_kneed_mcgeer());
    body_file *f = bf_kneed_mcgeer();
    const int t[4] = {f->touching[2], f->touching[3], f->touching[0], f->touching[1]};
    memcpy(f->touching, t, sizeof t);
    const sm_model *b = create_ok(f);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(a, p);
    a->guess(x, p, a->data);
    const double len = a->step_length(x, p, a->data);
    assert_true(len < -0.2); /* the trailing foot is behind the origin on the section */
    assert_close(b->step_length(x, p, b->data), len, 1e-15);
    a->release(a);
    b->release(b);
}

/* Two pins on one site constrain the same point twice: refused at the
 * phase's line, not as a failed stride. */
static void test_dependent_contacts_refused(void **state)
{
    body_file *f = bf_compass();
    const int again = bf_pin(f, "foot_a_again", f->contacts[0].site);
    f->phases[0].contacts[f->phases[0].n_contacts++] = again;
    const sm_model *m = NULL;
    char why[512] = "";
    assert_status(body_model_create(f, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    assert_null(m);
    assert_non_null(strstr(why, "tests/data/body_models/test.yaml:20:5: phase 'swing'"));
    assert_non_null(strstr(why, "dependent"));
}

/* A model's rhs that returns SM_CALLBACK_STATUS(s) ends the stride with s
 * (model.h); other negative values stay rhs_failed. */
static int rhs_status;
static int status_rhs(double t, const double *x, double *xd, const double *p, const void *data)
{
    xd[0] = 1;
    return t > 0.5 ? rhs_status : 0;
}
static double never(double t, const double *x, const double *p, const void *data) { return 1.0; }
static void lift_none(double *x, const double *p, const void *data) {}
static void guess_zero(double *x, const double *p, const void *data) { x[0] = 0; }
static double limit_one(const double *p, const void *data) { return 1.0; }

static void test_callback_status(void **state)
{
    static const char *const names[] = {"x"};
    static const size_t free_index[] = {0};
    static const sm_event ev = {.name = "end", .value = never, .outcome = SM_EVENT_SECTION};
    static const sm_phase ph = {.name = "run", .rhs = status_rhs, .n_events = 1, .events = &ev};
    static const sm_model m = {.name = "status_toy", .n_state = 1, .state_names = names, .n_phases = 1,
                               .phases = &ph, .n_free = 1, .free_index = free_index, .lift = lift_none,
                               .guess = guess_zero, .time_limit = limit_one};
    sm_workspace *ws = test_workspace(&m, 1e-8, SM_METHOD_ADAMS);
    const double x0[1] = {0};
    double y[1];
    rhs_status = SM_CALLBACK_STATUS(SM_SINGULAR_CONSTRAINTS);
    assert_status(sm_stride(ws, NULL, x0, y, NULL, NULL), SM_SINGULAR_CONSTRAINTS);
    for (int r = -1; r > -20; r--) {
        rhs_status = r;
        assert_status(sm_stride(ws, NULL, x0, y, NULL, NULL), SM_RHS_FAILED);
    }
    sm_workspace_free(ws);
}

/* The program refuses such a file in one line at the phase's contacts, with
 * exit 65 (EX_DATAERR). */
static void cli_refuses_dependent_contacts(void **state)
{
    cli_result *r = cli_run("fixed", SM_SOURCE_DIR "/tests/data/body_models/dependent.yaml", NULL);
    cli_expect_error(r, 65, "tests/data/body_models/dependent.yaml:33:5: phase 'swing': its contacts are dependent");
}

/* fixed, simulate and continue over the slope take a body file as any model. */
static void cli_runs_the_compass_file(void **state)
{
    const char *file = SM_SOURCE_DIR "/models/compass.yaml";
    cli_result *r = cli_run("fixed", file, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "leg_a=0.2710286"));
    assert_non_null(strstr(r->out, "stable       yes"));
    assert_non_null(strstr(r->out, "largest drift off the contacts over a phase"));
    r = cli_run("fixed", file, "--json", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"ground\""));
    assert_non_null(strstr(r->out, "\"min_normal_force\""));
    r = cli_run("simulate", file, "--steps", "10", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "step 9:"));
    r = cli_run("continue", file, "--param", "slope", "--to", "0.06", NULL);
    assert_int_equal(r->status, 0);
    assert_true(cli_count_lines(r->out) > 3);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_body_model PATH-TO-STRIDEMAP\n");
        return 2;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compass_built),
        cmocka_unit_test(test_compass_other_slope),
        cmocka_unit_test(test_round_feet_spring_built),
        cmocka_unit_test(test_kneed_built),
        cmocka_unit_test(test_compass_file),
        cmocka_unit_test(test_round_feet_spring_file),
        cmocka_unit_test(test_kneed_file),
        cmocka_unit_test(test_hsu_file),
        cmocka_unit_test(test_kneed_locked_file),
        cmocka_unit_test(test_kneed_failures),
        cmocka_unit_test(test_kneed_multipliers_converge),
        cmocka_unit_test(test_double_support_pins_hold),
        cmocka_unit_test(test_step_length_skips_locks),
        cmocka_unit_test(test_dependent_contacts_refused),
        cmocka_unit_test(test_callback_status),
        cmocka_unit_test(cli_refuses_dependent_contacts),
        cmocka_unit_test(cli_runs_the_compass_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
