/* The walkers of the seeds as model files (issue 11): the five-link walker
 * with a trunk of Zanchi & Cecic (1993, seed 004, models/five_link_trunk.yaml)
 * against the seed's closed-form appendix, I(theta), B theta'^2 and M_G.
 *
 * Seed 004's appendix (tests/seed004.h, its typos read from the seed's own
 * Lagrangian) is checked against that Lagrangian of eqs. 1-7, worked there
 * from the centres of mass, then against the library's M(q)
 * and bias forces of the model file mapped to the seed's absolute angles.
 *
 * The forces per sample (src/body/sample.c) that simulate writes: the
 * columns, NaN where a phase does not hold a contact; a frame standing on
 * two pins carries its weight with the centre of pressure (from the
 * forces) at the zero-moment point (from the motion) under the centre of
 * mass; along a simulated walk, Newton's law for the whole body, sum of
 * the contact forces = m a_com - m g, with a_com from the accelerations
 * (J v' + J'v at each body's centre of mass), and the pins held. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body_model.h"
#include "cli_run.h"
#include "csv_read.h"
#include "seed004.h"
#include "src_path.h"
#include "stridemap/registry.h"
#include "stridemap/rigid.h"

/* ---- the model file ---------------------------------------------------------- */

static const sm_model *open_ok(const char *rel)
{
    const sm_model *m = NULL;
    char why[1024] = "";
    const sm_status st = sm_registry_open(src_path(rel), &m, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", rel, why);
    assert_non_null(m);
    return m;
}

static double pval(const sm_model *m, const char *name)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    return m->params[i].value;
}

static seed004 seed_of_file(const sm_model *m)
{
    seed004 s = {.g = pval(m, "gravity")};
    const double ms = pval(m, "shank_mass"), mt = pval(m, "thigh_mass"), mk = pval(m, "trunk_mass");
    const double rs = pval(m, "shank_gyration"), rt = pval(m, "thigh_gyration"), rk = pval(m, "trunk_gyration");
    /* links 1, 5: shanks; 2, 4: thighs; 3: the trunk */
    s.M[1] = s.M[5] = ms, s.M[2] = s.M[4] = mt, s.M[3] = mk;
    s.I[1] = s.I[5] = ms * rs * rs, s.I[2] = s.I[4] = mt * rt * rt, s.I[3] = mk * rk * rk;
    s.l1 = pval(m, "shank_length"), s.l2 = s.l4 = pval(m, "thigh_length");
    s.a1 = s.l1 - pval(m, "shank_com"); /* from the stance foot up */
    s.a2 = s.l2 - pval(m, "thigh_com"); /* from the stance knee up */
    s.a3 = pval(m, "trunk_com");
    s.b4 = pval(m, "thigh_com"), s.b5 = pval(m, "shank_com");
    return s;
}

/* The appendix (as read) is the seed's own Lagrangian. */
static void test_appendix_is_the_lagrangian(void **state)
{
    (void)state;
    const sm_model *m = open_ok("models/five_link_trunk.yaml");
    const seed004 s = seed_of_file(m);
    srand(4);
    seed004_appendix_is_lagrangian(&s, 100, 100, 1000);
    sm_registry_close(m);
}

/* Our M(q) and C(q, v)v, G(q) of the file with foot_a pinned at the origin,
 * in the seed's absolute angles: q = q(theta) (the hip at l1 u(theta1) +
 * l2 u(theta2), u = (sin, cos); the joints' angles differences of theta),
 * qdot = Phi theta', Phi = dq/dtheta; the pinned system's
 * I = Phi^T M Phi, B theta'^2 = Phi^T (C(q, Phi theta') + M Phi' theta'),
 * M_G = Phi^T G. */
static void test_five_link_is_seed_004(void **state)
{
    (void)state;
    const sm_model *m = open_ok("models/five_link_trunk.yaml");
    const sm_rigid_model *rm = body_model_rigid(m);
    int foot;
    sm_rigid_data *d = seed004_rigid_data(rm, &foot);
    const seed004 s = seed_of_file(m);
    srand(40);
    double worst = 0;
    for (int n = 0; n < 100; n++) {
        double th[5], thd[5];
        for (int k = 0; k < 5; k++) th[k] = seed004_urand(-1.5, 1.5), thd[k] = seed004_urand(-3, 3);
        /* q = (trunk.x, trunk.z, trunk, thigh_a, shank_a, thigh_b, shank_b) */
        double Phi[7][5] = {{0}};
        Phi[0][0] = s.l1 * cos(th[0]), Phi[0][1] = s.l2 * cos(th[1]);
        Phi[1][0] = -s.l1 * sin(th[0]), Phi[1][1] = -s.l2 * sin(th[1]);
        Phi[2][2] = 1;
        Phi[3][1] = 1, Phi[3][2] = -1;
        Phi[4][0] = 1, Phi[4][1] = -1;
        Phi[5][3] = 1, Phi[5][2] = -1;
        Phi[6][4] = 1, Phi[6][3] = -1;
        const double q[7] = {s.l1 * sin(th[0]) + s.l2 * sin(th[1]), s.l1 * cos(th[0]) + s.l2 * cos(th[1]), th[2],
                             th[1] - th[2], th[0] - th[1], th[3] - th[2], th[4] - th[3]};
        worst = fmax(worst, seed004_rigid_is_appendix(rm, d, foot, &s, th, thd, Phi, q, 100, 1000));
    }
    print_message("five-link vs seed 004: largest difference %.3g of the scale\n", worst);
    sm_rigid_data_free(d);
    sm_registry_close(m);
}


/* ---- forces per sample ------------------------------------------------------- */

/* The walker's bodies with a site at each centre of mass, for the whole
 * body's momentum rate from v' alone. */
typedef struct {
    sm_rigid_model *rm;
    sm_rigid_data *d;
    double mass[BODY_MAX_BODIES], total, g[3];
    size_t n;
} com_model;

static com_model com_model_of(const sm_model *m, const double *p)
{
    const body_file *f = body_model_file(m);
    assert_non_null(f);
    com_model c = {.n = f->n_bodies};
    sm_rigid_body_def defs[BODY_MAX_BODIES];
    sm_rigid_site_def sites[BODY_MAX_BODIES];
    for (size_t i = 0; i < f->n_bodies; i++) {
        body_def_at(f, i, p, &defs[i]);
        sites[i] = (sm_rigid_site_def){.name = defs[i].name, .body = (int)i};
        memcpy(sites[i].pos, defs[i].com, sizeof sites[i].pos);
        c.mass[i] = defs[i].mass;
        c.total += defs[i].mass;
    }
    body_gravity_at(f, p, c.g);
    char msg[200] = "";
    if (sm_rigid_model_create(defs, f->n_bodies, sites, f->n_bodies, c.g, &c.rm, msg, sizeof msg) != SM_OK)
        fail_msg("%s", msg);
    c.d = sm_rigid_data_create(c.rm);
    assert_non_null(c.d);
    return c;
}

static void com_model_free(com_model *c)
{
    sm_rigid_data_free(c->d);
    sm_rigid_model_free(c->rm);
}

/* m a_com - m g at state x of phase ph, v' from the phase's rhs. */
static void momentum_rate_less_weight(const sm_model *m, com_model *c, size_t ph, const double *x, const double *p,
                                      double out[3])
{
    const size_t nq = sm_rigid_nq(c->rm), nv = sm_rigid_nv(c->rm);
    double xd[SM_MAX_STATE];
    assert_int_equal(m->phases[ph].rhs(0, x, xd, p, m->data), 0);
    assert_int_equal(sm_rigid_forward(c->rm, c->d, x, x + nq), SM_OK);
    for (int i = 0; i < 3; i++) out[i] = -c->total * c->g[i];
    for (size_t b = 0; b < c->n; b++) {
        if (c->mass[b] == 0) continue;
        double jac[3 * SM_RIGID_MAX_V], a[3];
        sm_rigid_site_jac(c->rm, c->d, b, jac, NULL);
        sm_rigid_site_jdotv(c->rm, c->d, b, a);
        for (int i = 0; i < 3; i++) {
            for (size_t k = 0; k < nv; k++) a[i] += jac[i * nv + k] * xd[nq + k];
            out[i] += c->mass[b] * a[i];
        }
    }
}

static double num(const char *field) { return strcmp(field, "nan") == 0 ? NAN : strtod(field, NULL); }

/* The sample columns of a planar walker, in order. */
static void expect_sample_names(const sm_model *m, const char *const *want, size_t n)
{
    assert_int_equal(m->n_sample, n);
    for (size_t i = 0; i < n; i++) assert_string_equal(m->sample_names[i], want[i]);
}

static void test_standing_frame(void **state)
{
    (void)state;
    const sm_model *m = open_ok("tests/data/seed_walkers/standing.yaml");
    static const char *const names[] = {"foot_a.fx", "foot_a.fz", "foot_b.fx", "foot_b.fz", "cop.x", "zmp.x"};
    expect_sample_names(m, names, 6);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE], v[6];
    sm_model_default_params(m, p);
    m->guess(x, p, m->data);
    assert_int_equal(m->sample(0, 0, x, p, m->data, v), 0);
    const double weight = 16 * 9.81, com_x = -sin(0.3) * (1 - (10 * 0.4 - 6 * 0.3) / 16.0);
    print_message("standing: sum fz %.15g N, cop %.15g, zmp %.15g, com %.15g\n", v[1] + v[3], v[4], v[5], com_x);
    assert_true(fabs(v[1] + v[3] - weight) < 1e-9 * weight);
    assert_true(fabs(v[0] + v[2]) < 1e-9 * weight);
    assert_true(fabs(v[4] - com_x) < 1e-12);
    assert_true(fabs(v[5] - com_x) < 1e-12);
    sm_registry_close(m);
}

/* Along `stridemap simulate FILE --steps 1`: the columns after the state,
 * NaN exactly where the row's phase does not hold the contact, Newton's law
 * for the whole body to 1e-8 of the weight at every row, each pin where
 * its phase began, each slide on the ground and each lock's coordinate
 * where its phase began, to 1e-9 (m, rad); with cop_is_zmp (no moment from
 * the ground) the CoP at the ZMP.  Returns the phases seen, as a bit set,
 * and keeps one sample state of each phase in x_of (if not NULL). */
static unsigned check_walk_csv(const char *rel, bool cop_is_zmp, double *worst, double (*x_of)[SM_MAX_STATE])
{
    const sm_model *m = open_ok(rel);
    const body_file *f = body_model_file(m);
    const sm_rigid_model *rm = body_model_rigid(m);
    sm_rigid_data *rd = sm_rigid_data_create(rm);
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    com_model cm = com_model_of(m, p);
    /* rtol 1e-10: the files' guesses walk their first step on a knife
     * edge (the five-link walker's foot clears the ground by 1e-15), so
     * its ending (heel-strike or scuff) changes with the tolerance */
    cli_result *r = cli_run("simulate", src_path(rel), "--steps", "1", "--rtol", "1e-10", "--atol", "1e-10", NULL);
    if (r->status != 0) fail_msg("simulate %s: exit %d: %s", rel, r->status, r->err);
    static char fields[256][64];
    const char *s = r->out;
    const size_t nh = rfc4180_record(s, fields, 256, &s);
    const size_t ns = m->n_state, first = 5 + ns;
    assert_int_equal(nh, first + m->n_sample);
    int col[BODY_MAX_CONTACTS];
    for (size_t k = 0; k < f->n_contacts; k++) {
        const bool lock = f->contacts[k].kind == SM_CONTACT_LOCK;
        char name[80], name_z[80];
        snprintf(name, sizeof name, "%s.%s", f->contacts[k].name, lock ? "torque" : "fx");
        snprintf(name_z, sizeof name_z, "%s.fz", f->contacts[k].name);
        col[k] = column(fields, nh, name);
        if (!(col[k] >= (int)first && (lock || column(fields, nh, name_z) == col[k] + 1)))
            fail_msg("%s: no column %s after the state", rel, name);
    }
    const int cop = column(fields, nh, "cop.x"), zmp = column(fields, nh, "zmp.x");
    assert_int_equal(zmp, cop + 1);
    assert_int_equal(zmp, (int)nh - 1);
    unsigned seen = 0;
    size_t rows = 0, last_phase = SIZE_MAX;
    double anchor[BODY_MAX_CONTACTS][3];
    while (*s) {
        const size_t n = rfc4180_record(s, fields, 256, &s);
        if (n != nh || strcmp(fields[0], "sample") != 0) continue;
        size_t ph = SIZE_MAX;
        for (size_t i = 0; i < f->n_phases; i++)
            if (strcmp(fields[3], f->phases[i].name) == 0) ph = i;
        assert_true(ph < f->n_phases);
        double x[SM_MAX_STATE];
        for (size_t i = 0; i < ns; i++) x[i] = num(fields[5 + i]);
        if (x_of && !(seen & 1u << ph)) memcpy(x_of[ph], x, sizeof x_of[ph]);
        seen |= 1u << ph;
        assert_int_equal(sm_rigid_forward(rm, rd, x, x + f->nq), SM_OK);
        double sum[3] = {0, 0, 0};
        for (size_t k = 0; k < f->n_contacts; k++) {
            const body_contact *bc = &f->contacts[k];
            const bool lock = bc->kind == SM_CONTACT_LOCK;
            const bool held = body_phase_contact_slot(f, ph, (int)k) >= 0;
            const double Fx = num(fields[col[k]]), Fz = lock ? 0 : num(fields[col[k] + 1]);
            if (!held) {
                if (!(isnan(Fx) && (lock || isnan(Fz)))) fail_msg("%s: %s has a force in %s", rel, bc->name, fields[3]);
                continue;
            }
            assert_true(isfinite(Fx) && isfinite(Fz));
            double pos[3] = {0, 0, 0}, drift;
            if (lock) {
                pos[0] = x[sm_rigid_body_qadr(rm, (size_t)bc->body)];
            } else {
                sum[0] += Fx, sum[2] += Fz;
                sm_rigid_site_pos(rm, rd, (size_t)bc->site, pos);
            }
            if (ph != last_phase) memcpy(anchor[k], pos, sizeof pos);
            if (bc->kind == SM_CONTACT_SLIDE)
                drift = fabs(pos[2]);
            else
                drift = hypot(pos[0] - anchor[k][0], pos[2] - anchor[k][2]);
            if (!(drift < 1e-9)) fail_msg("%s: %s drifted %.3g in %s at t = %s", rel, bc->name, drift, fields[3], fields[2]);
        }
        last_phase = ph;
        double want[3];
        momentum_rate_less_weight(m, &cm, ph, x, p, want);
        const double weight = cm.total * hypot(cm.g[0], cm.g[2]);
        for (int i = 0; i < 3; i += 2) {
            const double d = fabs(sum[i] - want[i]) / weight;
            *worst = fmax(*worst, d);
            if (!(d < 1e-8))
                fail_msg("%s at t = %s: sum of forces[%d] %.15g, m a - m g %.15g", rel, fields[2], i, sum[i], want[i]);
        }
        const double c = num(fields[cop]), z = num(fields[zmp]);
        if (cop_is_zmp && !(fabs(c - z) < 1e-9)) fail_msg("%s at t = %s: cop %.15g, zmp %.15g", rel, fields[2], c, z);
        rows++;
    }
    assert_true(rows > 10);
    com_model_free(&cm);
    sm_rigid_data_free(rd);
    sm_registry_close(m);
    return seen;
}

static void test_five_link_walk(void **state)
{
    (void)state;
    static const char *const names[] = {"foot_a.fx", "foot_a.fz", "foot_b.fx", "foot_b.fz", "cop.x", "zmp.x"};
    const sm_model *m = open_ok("models/five_link_trunk.yaml");
    expect_sample_names(m, names, 6);
    sm_registry_close(m);
    double worst = 0;
    const unsigned seen = check_walk_csv("models/five_link_trunk.yaml", true, &worst, NULL);
    print_message("five-link walk: Newton's law to %.3g of the weight\n", worst);
    assert_int_equal(seen, 3u); /* single and double support */
}

/* ---- seed 002: the nine-segment human ----------------------------------------- */

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
            const double f = A[i * n + pj] / A[r * n + pj];
            for (size_t j = 0; j < n; j++) A[i * n + j] -= f * A[r * n + j];
        }
        rank++;
    }
    return rank;
}

/* The walk of the human file: Newton's law, the constraints held, and the
 * phases single support, heel-strike, double support, foot-flat, the hind
 * toe sliding. */
static void test_human_walk(void **state)
{
    (void)state;
    double worst = 0;
    const unsigned seen = check_walk_csv("models/human_hu9.yaml", false, &worst, NULL);
    print_message("human walk: Newton's law to %.3g of the weight\n", worst);
    const sm_model *m = open_ok("models/human_hu9.yaml");
    const body_file *f = body_model_file(m);
    int ss1 = -1, ds1 = -1;
    for (size_t i = 0; i < f->n_phases; i++) {
        if (strcmp(f->phases[i].name, "ss1") == 0) ss1 = (int)i;
        if (strcmp(f->phases[i].name, "ds1") == 0) ds1 = (int)i;
    }
    assert_true(ss1 >= 0 && ds1 >= 0);
    assert_true(seen & 1u << ss1);
    assert_true(seen & 1u << ds1);
    /* at foot-flat the hind toe is beyond its cone (|F_t|/F_n 0.99, mu 0.6)
     * and slips at once: the samples of the front foot flat are ds_flat3's */
    for (size_t i = 0; i < f->n_phases; i++)
        if (strcmp(f->phases[i].name, "ds_flat3") == 0) assert_true(seen & 1u << i);
    sm_registry_close(m);
}

/* Seed 002 states the degrees of freedom of its contact cases in its own
 * coordinates (8 segment angles, and x_t, x_h where a foot slides): SS1 8,
 * SS2 9, DS1 6, DS2 8 (DS3, omitted there, has one sliding and one fixed
 * foot: 7).  Ours: 11 rates (the HAT's x, z and angle; 8 joints), the
 * swing toe held by a lock in every phase as the paper's one-segment swing
 * foot; nv - rank of the phase's rows at a state on its contacts. */
static void test_human_dof(void **state)
{
    (void)state;
    double x_of[BODY_MAX_PHASES][SM_MAX_STATE];
    double worst = 0;
    const unsigned seen = check_walk_csv("models/human_hu9.yaml", false, &worst, x_of);
    const sm_model *m = open_ok("models/human_hu9.yaml");
    const body_model *bm = m->data;
    const body_file *f = bm->f;
    assert_int_equal(f->nv, 11);
    static const struct {
        const char *phase, *state_of; /* the phase whose sample puts its feet on the ground */
        size_t dof;
    } cases[] = {{"ss1", "ss1", 8}, {"ss2", "ss1", 9}, {"ds1", "ds1", 6}, {"ds2", "ds1", 8}, {"ds3", "ds1", 7},
                 /* ours, not the paper's: the front foot flat, the hind toe
                  * pinned or sliding (the walk's samples are ds_flat3's) */
                 {"ds_flat", "ds_flat3", 5}, {"ds_flat3", "ds_flat3", 6}};
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_int_equal(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int ph = -1, at = -1;
        for (size_t k = 0; k < f->n_phases; k++) {
            if (strcmp(f->phases[k].name, cases[i].phase) == 0) ph = (int)k;
            if (strcmp(f->phases[k].name, cases[i].state_of) == 0) at = (int)k;
        }
        assert_true(ph >= 0 && at >= 0 && (seen & 1u << at));
        const double *x = x_of[at];
        assert_int_equal(sm_rigid_forward(e.m, e.d, x, x + f->nq), SM_OK);
        sm_contact c[BODY_MAX_CONTACTS];
        const size_t nc = body_phase_contacts(&e, (size_t)ph, x + f->nq, c);
        /* the state is on the phase's contacts: every ground point at z = 0 */
        for (size_t k = 0; k < nc; k++)
            if (c[k].kind != SM_CONTACT_LOCK) assert_true(fabs(sm_contact_gap(e.m, e.d, x, &c[k], NULL)) < 1e-9);
        double J[SM_RIGID_MAX_ROWS * SM_RIGID_MAX_V], jdv[SM_RIGID_MAX_ROWS];
        const size_t rows = sm_contact_jacobian(e.m, e.d, c, nc, J, jdv, NULL);
        const size_t dof = f->nv - rank_of(J, rows, f->nv);
        print_message("%s: %zu rows, %zu degrees of freedom (expected %zu)\n", cases[i].phase, rows, dof, cases[i].dof);
        assert_int_equal(dof, cases[i].dof);
    }
    sm_registry_close(m);
}

/* Issue 15's checks on the human's simulated step, from `stridemap simulate
 * models/human_hu9.yaml --steps 1`: at the heel-strike (ss1 -> ds1) the
 * configuration is unchanged, the new contacts (heel_b's pin, with tip_a's
 * pin and the swing toe's lock) are at rest after it to round-off, and the
 * kinetic energy lost equals ½ Δvᵀ M Δv (Kelvin's theorem for a plastic
 * impact), so it is not negative; then through double support (ds1, up to
 * foot-flat) both pins stay where the impact left them, to 1e-9 m (the
 * seed's DS1 drift over a step), at every row, the event's pre row too. */
static void test_human_heelstrike_ds1(void **state)
{
    (void)state;
    const sm_model *m = open_ok("models/human_hu9.yaml");
    const body_file *f = body_model_file(m);
    const sm_rigid_model *rm = body_model_rigid(m);
    sm_rigid_data *rd = sm_rigid_data_create(rm);
    const size_t nq = f->nq, nv = f->nv;
    assert_int_equal(nq, 11);
    assert_int_equal(nv, 11);
    cli_result *r = cli_run("simulate", src_path("models/human_hu9.yaml"), "--steps", "1", "--rtol", "1e-10", "--atol",
                            "1e-10", NULL);
    if (r->status != 0) fail_msg("simulate: exit %d: %s", r->status, r->err);
    static char fields[256][64];
    const char *s = r->out;
    const size_t nh = rfc4180_record(s, fields, 256, &s);
    assert_int_equal(column(fields, nh, "hat.x"), 5);
    const int tip = sm_rigid_site_index(rm, "tip_a"), heel = sm_rigid_site_index(rm, "heel_b");
    const int toe_b = sm_rigid_body_index(rm, "toe_b");
    assert_true(tip >= 0 && heel >= 0 && toe_b >= 0);
    double pre[SM_MAX_STATE], post[SM_MAX_STATE], anchor[2][3], worst = 0;
    int have = 0;
    size_t ds1_rows = 0;
    while (*s) {
        const size_t n = rfc4180_record(s, fields, 256, &s);
        if (n != nh) continue;
        double x[SM_MAX_STATE];
        for (size_t i = 0; i < nq + nv; i++) x[i] = num(fields[5 + i]);
        const bool strike = strcmp(fields[4], "heelstrike") == 0;
        if (strike && strcmp(fields[0], "pre") == 0) memcpy(pre, x, sizeof pre), have |= 1;
        if (strike && strcmp(fields[0], "post") == 0) {
            memcpy(post, x, sizeof post), have |= 2;
            assert_int_equal(sm_rigid_forward(rm, rd, x, x + nq), SM_OK);
            sm_rigid_site_pos(rm, rd, (size_t)tip, anchor[0]);
            sm_rigid_site_pos(rm, rd, (size_t)heel, anchor[1]);
            continue;
        }
        if (!(have & 2) || strcmp(fields[3], "ds1") != 0 || strcmp(fields[0], "post") == 0) continue;
        assert_int_equal(sm_rigid_forward(rm, rd, x, x + nq), SM_OK);
        for (int k = 0; k < 2; k++) {
            double pos[3];
            sm_rigid_site_pos(rm, rd, (size_t)(k ? heel : tip), pos);
            worst = fmax(worst, hypot(pos[0] - anchor[k][0], pos[2] - anchor[k][2]));
        }
        ds1_rows++;
    }
    assert_int_equal(have, 3);
    print_message("ds1: %zu rows, pins within %.3g m of where the heel-strike left them\n", ds1_rows, worst);
    assert_true(ds1_rows > 10);
    assert_true(worst < 1e-9);
    for (size_t i = 0; i < nq; i++) assert_true(pre[i] == post[i]);
    assert_true(fabs(anchor[1][2]) < 1e-9); /* the heel struck the ground */

    double vel[2][2][3], J[3 * SM_RIGID_MAX_V];
    for (int k = 0; k < 2; k++) {
        const double *x = k ? post : pre;
        assert_int_equal(sm_rigid_forward(rm, rd, x, x + nq), SM_OK);
        for (int site = 0; site < 2; site++) {
            sm_rigid_site_jac(rm, rd, (size_t)(site ? heel : tip), J, NULL);
            for (int i = 0; i < 3; i++) {
                vel[k][site][i] = 0;
                for (size_t j = 0; j < nv; j++) vel[k][site][i] += J[i * nv + j] * x[nq + j];
            }
        }
    }
    const double before = hypot(vel[0][1][0], vel[0][1][2]);
    const double after = fmax(fmax(fabs(vel[1][0][0]), fabs(vel[1][0][2])),
                              fmax(fmax(fabs(vel[1][1][0]), fabs(vel[1][1][2])),
                                   fabs(post[nq + sm_rigid_body_vadr(rm, (size_t)toe_b)])));
    print_message("heel-strike: heel moving at %.3g m/s before, held rows at most %.3g after\n", before, after);
    assert_true(after < 1e-12);
    assert_true(before > 1e3 * after);

    static double M[SM_RIGID_MAX_V * SM_RIGID_MAX_V];
    assert_int_equal(sm_rigid_forward(rm, rd, pre, pre + nq), SM_OK);
    sm_rigid_mass(rm, rd, M);
    double T[2] = {0, 0}, kelvin = 0;
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nv; j++) {
            const double dvi = post[nq + i] - pre[nq + i], dvj = post[nq + j] - pre[nq + j];
            T[0] += 0.5 * pre[nq + i] * M[i * nv + j] * pre[nq + j];
            T[1] += 0.5 * post[nq + i] * M[i * nv + j] * post[nq + j];
            kelvin += 0.5 * dvi * M[i * nv + j] * dvj;
        }
    print_message("heel-strike: T %.12g -> %.12g J, lost %.6g J, 1/2 dv'M dv %.6g J\n", T[0], T[1], T[0] - T[1],
                  kelvin);
    assert_true(T[0] - T[1] >= 0.0);
    assert_true(fabs((T[0] - T[1]) - kelvin) < 1e-9 * T[0]);

    /* The step's summary names the heel-strike's momentum jump, not that of
     * the toe-off that ends the stride (2e-5 N s before). */
    double p[SM_MAX_PARAMS], mom[2][2];
    sm_model_default_params(m, p);
    m->momentum(pre, p, m->data, mom[0]);
    m->momentum(post, p, m->data, mom[1]);
    const double jump = hypot(mom[1][0] - mom[0][0], mom[1][1] - mom[0][1]);
    const char *h = strstr(r->err, "heelstrike_impulse ");
    assert_non_null(h);
    const double reported = strtod(h + strlen("heelstrike_impulse "), NULL);
    print_message("heel-strike: momentum jump %.10g N s, summary %.10g\n", jump, reported);
    assert_true(jump > 1.0);
    assert_true(fabs(reported - jump) < 1e-6 * jump);
    sm_rigid_data_free(rd);
    sm_registry_close(m);
}

/* The human's steps (`stridemap simulate models/human_hu9.yaml --steps 3`,
 * issue 15, item 1), against Coulomb's law and the ground's
 * one-sidedness: every ground contact a row's phase holds pushes on the
 * ground (F_n >= 0; zero to round-off at the fail row and at toe-off,
 * where a normal force falls through zero), a pin's force stays in its
 * cone (|F_t| <= mu F_n) except at its phase's start and the slip that
 * follows within 1e-9 s (the force ramp of src/body/events.c: a pin beyond
 * its cone when its phase begins slips at once), and a slide's force is on
 * it (|F_t| = mu F_n).  Before the file watched the stance toe's normal
 * force in single support, the first step's toe pulled the ground from its
 * first instant (-2.75 N, 21 us in ss2) and the second's, slipping after
 * toe-off, down to -657 N for 0.32 ms between the summary's samples; now
 * the first step walks on a pressing toe and the second ends where the
 * toe would lift (toe_lifts, event_order), within 1e-5 s of its start.
 * The first summary's max_friction_ratio is mu, the slide's: the pin's
 * ratio at its slip 1e-9 s in (above mu) is left out with the phase
 * (src/stride.c).  A stick closes a slide that came back to rest: no
 * stick within 1e-8 s of the slip that began the slide. */
static void test_human_steps_friction(void **state)
{
    (void)state;
    const sm_model *m = open_ok("models/human_hu9.yaml");
    const body_model *bm = m->data;
    const body_file *f = bm->f;
    double p[SM_MAX_PARAMS];
    sm_model_default_params(m, p);
    BODY_EVAL_MEM(mem, bm);
    body_eval e;
    assert_int_equal(body_eval_init(&e, bm, p, mem, NULL, 0), SM_OK);
    double mu[BODY_MAX_CONTACTS];
    for (size_t k = 0; k < f->n_contacts; k++) {
        sm_contact c;
        body_contact_shape(&e, k, &c);
        mu[k] = c.mu;
    }
    const double weight = m->weight(p, m->data);
    cli_result *r = cli_run("simulate", src_path("models/human_hu9.yaml"), "--steps", "3", "--rtol", "1e-10", "--atol",
                            "1e-10", NULL);
    static char fields[256][64];
    const char *s = r->out;
    const size_t nh = rfc4180_record(s, fields, 256, &s);
    int col[BODY_MAX_CONTACTS];
    for (size_t k = 0; k < f->n_contacts; k++) {
        char name[80];
        snprintf(name, sizeof name, "%s.fx", f->contacts[k].name);
        col[k] = f->contacts[k].kind == SM_CONTACT_LOCK ? -1 : column(fields, nh, name);
        if (f->contacts[k].kind != SM_CONTACT_LOCK) assert_true(col[k] > 0);
    }
    double phase_start = 0, slide_start = -1, step_start = 0, worst_pin = 0, worst_slide = 0, least = INFINITY;
    double at_once = NAN, failed_after = NAN;
    size_t beyond = 0, sticks = 0, rows = 0;
    int failed_step = -1;
    while (*s) {
        const size_t n = rfc4180_record(s, fields, 256, &s);
        if (n != nh) continue;
        const double t = num(fields[2]);
        const int step = atoi(fields[1]);
        const bool pre = strcmp(fields[0], "pre") == 0, post = strcmp(fields[0], "post") == 0;
        const bool fail = strcmp(fields[0], "fail") == 0;
        if (post && strcmp(fields[4], "toeoff") == 0) step_start = t;
        if (fail) {
            failed_step = step;
            failed_after = t - step_start;
            assert_string_equal(fields[3], "ss2");
            assert_string_equal(fields[4], "toe_lifts");
        }
        if (pre && strstr(fields[4], "sticks")) {
            sticks++;
            assert_true(slide_start >= 0);
            if (!(t - slide_start > 1e-8))
                fail_msg("%s sticks %.3g s after the slip that began its slide (t = %s)", fields[4], t - slide_start,
                         fields[2]);
        }
        if (post) phase_start = t;
        if (post && strstr(fields[4], "slips")) slide_start = t;
        double Ft = 0, Fn = 0;
        for (size_t k = 0; k < f->n_contacts; k++) {
            if (col[k] < 0 || isnan(num(fields[col[k]]))) continue;
            const double fx = num(fields[col[k]]), fz = num(fields[col[k] + 1]);
            Ft += fx, Fn += fz;
            least = fmin(least, fz);
            if (!(fz > -1e-9 * weight))
                fail_msg("%s pulls the ground in %s: F_n %.6g N at t = %s (%s %s)", f->contacts[k].name, fields[3], fz,
                         fields[2], fields[0], fields[4]);
            if (f->contacts[k].kind == SM_CONTACT_SLIDE) {
                if (fz > 1e-9 * weight) worst_slide = fmax(worst_slide, fabs(fabs(fx) - mu[k] * fz) / fz);
                continue;
            }
            if (fz > 0 && fabs(fx) <= mu[k] * fz * (1 + 1e-9)) {
                worst_pin = fmax(worst_pin, fabs(fx) / fz / mu[k]);
                continue;
            }
            beyond++;
            if (!(t - phase_start < 1.5e-9))
                fail_msg("%s beyond its cone %.3g s into %s: F_t %.6g N, F_n %.6g N (t = %s)", f->contacts[k].name,
                         t - phase_start, fields[3], fx, fz, fields[2]);
        }
        if (pre && step == 0 && strcmp(fields[4], "toe_slips") == 0 && t - phase_start < 1.5e-9 && isnan(at_once))
            at_once = fabs(Ft) / Fn;
        rows++;
    }
    print_message("steps: %zu rows, normal forces >= %.6g N; pins at most %.13g of their cones but %zu rows at a "
                  "phase's start; slides on theirs to %.3g; %zu sticks; the second step failed %.3g s in\n",
                  rows, least, worst_pin, beyond, worst_slide, sticks, failed_after);
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "event_order"));
    assert_int_equal(failed_step, 1);
    assert_true(failed_after > 0 && failed_after < 1e-5);
    assert_true(worst_slide < 1e-9);
    assert_true(beyond > 0 && sticks >= 1);
    const char *line = strstr(r->err, "step 0:");
    assert_non_null(line);
    const char *h = strstr(line, "max_friction_ratio ");
    assert_non_null(h);
    const double reported = strtod(h + strlen("max_friction_ratio "), NULL);
    print_message("step 1: max_friction_ratio %.10g (mu), the toe at its slip 1e-9 s in %.10g (left out)\n", reported,
                  at_once);
    assert_true(at_once > mu[0]);
    assert_true(fabs(reported - mu[0]) < 1e-6 * mu[0]);
    const char *fmin_at = strstr(line, "min_normal_force ");
    assert_non_null(fmin_at);
    const double fmin_reported = strtod(fmin_at + strlen("min_normal_force "), NULL);
    print_message("step 1: min_normal_force %.10g N\n", fmin_reported);
    assert_true(fmin_reported > 0);
    sm_registry_close(m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_seed_walkers PATH_TO_STRIDEMAP\n");
        return 1;
    }
    cli_exe = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appendix_is_the_lagrangian),
        cmocka_unit_test(test_five_link_is_seed_004),
        cmocka_unit_test(test_standing_frame),
        cmocka_unit_test(test_five_link_walk),
        cmocka_unit_test(test_human_walk),
        cmocka_unit_test(test_human_dof),
        cmocka_unit_test(test_human_heelstrike_ds1),
        cmocka_unit_test(test_human_steps_friction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
