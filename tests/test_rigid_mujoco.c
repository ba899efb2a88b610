/* The rigid-body core against MuJoCo 2.2.2 (Debian libmujoco-dev), an
 * independent implementation of the same quantities, on the same trees
 * written as MJCF: M (mj_fullM after mj_kinematics, mj_comPos, mj_crb), the
 * bias C v + G (mj_rne with flg_acc = 0 after mj_comVel), site positions and
 * Jacobians (mj_jacSite) and J̇v (qacc = 0, mj_rnePostConstraint,
 * mj_objectAcceleration, gravity added back: MuJoCo's recursion accelerates
 * the world by −g), at 100 random states per tree; see
 * /work/shared/notes/mujoco-2.2.2.md.
 *
 * Conventions that differ: MuJoCo's free joint holds the world position and
 * orientation of the body and its world linear velocity, ours the position in
 * the frame pos/quat place and the velocity in that frame, so
 *     qpos = (pos + R₀ q_t, quat₀ ⊗ q_r),  qvel = T v with T = diag(R₀, 1₃)
 * and M = Tᵀ M_mj T, bias = Tᵀ bias_mj, J = J_mj T.
 * Built without MuJoCo the program exits 77 (meson: skipped). */
#include "test_util.h"

#include <stdlib.h>
#include <unistd.h>

#include "stridemap/rigid.h"

#ifdef SM_HAVE_MUJOCO
#include <dirent.h>

#include "../src/body/body_model.h"
#include "rigid_mjcf.h"
#include "rigid_trees.h"

#define TEST_RNG_SEED 0x2545f4914f6cdd1dull
#include "test_rng.h"

/* MuJoCo's default handlers print and call exit(); these fail the test instead. */
static void on_mj_error(const char *msg) { fail_msg("MuJoCo error: %s", msg); }
static void on_mj_warning(const char *msg) { fail_msg("MuJoCo warning: %s", msg); }

static mjModel *load_mjcf(const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns,
                          const double *g)
{
    char err[500] = "";
    mjModel *m = rigid_mjcf_load(b, nb, s, ns, g, err, sizeof err);
    if (!m) fail_msg("%s", err);
    return m;
}

static void quat_mul(const double *a, const double *b, double *c)
{
    c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static double max_abs(const double *x, size_t n)
{
    double a = 0.0;
    for (size_t i = 0; i < n; i++) a = fmax(a, fabs(x[i]));
    return a;
}

static void cross_check(const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns, bool planar,
                        double *worst)
{
    const double g[3] = {0.4, -0.3, -9.81};
    sm_rigid_model *rm = NULL;
    char msg[200];
    assert_status(sm_rigid_model_create(b, nb, s, ns, g, &rm, msg, sizeof msg), SM_OK);
    assert_int_equal(sm_rigid_use_planar(rm, planar), planar);
    sm_rigid_data *rd = sm_rigid_data_create(rm);
    mjModel *mm = load_mjcf(b, nb, s, ns, g);
    mjData *md = mj_makeData(mm);
    size_t nq = sm_rigid_nq(rm), nv = sm_rigid_nv(rm);
    assert_int_equal(mm->nq, (int)nq);
    assert_int_equal(mm->nv, (int)nv);

    /* our dof index -> MuJoCo's, and T (ours -> MuJoCo's velocities, in our order) */
    size_t *perm = calloc(nv, sizeof *perm);
    double *T = calloc(nv * nv, sizeof *T);
    for (size_t i = 0; i < nv; i++) T[i * nv + i] = 1.0;
    for (size_t i = 0; i < nb; i++) {
        if (b[i].joint == SM_RIGID_FIXED) continue;
        int id = mj_name2id(mm, mjOBJ_BODY, b[i].name);
        assert_true(id > 0);
        int j = mm->body_jntadr[id];
        size_t va = sm_rigid_body_vadr(rm, i), n = b[i].joint == SM_RIGID_FREE ? 6 : b[i].joint == SM_RIGID_BALL ? 3 : 1;
        for (size_t k = 0; k < n; k++) perm[va + k] = (size_t)mm->jnt_dofadr[j] + k;
        if (b[i].joint == SM_RIGID_FREE) {
            double R0[9], qn[4], nn = 0;
            for (int k = 0; k < 4; k++) nn += b[i].quat[k] * b[i].quat[k];
            for (int k = 0; k < 4; k++) qn[k] = b[i].quat[k] / sqrt(nn);
            mju_quat2Mat(R0, qn);
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) T[(va + r) * nv + va + c] = R0[3 * r + c];
        }
    }

    double *q = malloc(nq * sizeof *q), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    double *M = malloc(nv * nv * sizeof *M), *Mmj = malloc(nv * nv * sizeof *Mmj), *Mp = malloc(nv * nv * sizeof *Mp);
    double *bias = malloc(nv * sizeof *bias), *bmj = malloc(nv * sizeof *bmj);
    double *J = malloc(3 * nv * sizeof *J), *Jr = malloc(3 * nv * sizeof *Jr);
    double *Jm = malloc(3 * nv * sizeof *Jm), *Jmr = malloc(3 * nv * sizeof *Jmr);
    for (int trial = 0; trial < 100; trial++) {
        sm_rigid_q_neutral(rm, q);
        for (size_t i = 0; i < nv; i++) w[i] = urand(-1.5, 1.5);
        sm_rigid_integrate_q(rm, q, w, 1.0, q);
        for (size_t i = 0; i < nv; i++) v[i] = urand(-2.0, 2.0);
        /* MuJoCo's qpos and qvel */
        for (size_t i = 0; i < nb; i++) {
            if (b[i].joint == SM_RIGID_FIXED) continue;
            int j = mm->body_jntadr[mj_name2id(mm, mjOBJ_BODY, b[i].name)];
            size_t qa = sm_rigid_body_qadr(rm, i);
            double *qp = md->qpos + mm->jnt_qposadr[j];
            if (b[i].joint == SM_RIGID_FREE) {
                size_t va = sm_rigid_body_vadr(rm, i);
                for (int r = 0; r < 3; r++) {
                    qp[r] = b[i].pos[r];
                    for (int c = 0; c < 3; c++) qp[r] += T[(va + r) * nv + va + c] * q[qa + c];
                }
                double qn[4], nn = 0;
                for (int k = 0; k < 4; k++) nn += b[i].quat[k] * b[i].quat[k];
                for (int k = 0; k < 4; k++) qn[k] = b[i].quat[k] / sqrt(nn);
                quat_mul(qn, q + qa + 3, qp + 3);
            } else {
                size_t n = b[i].joint == SM_RIGID_BALL ? 4 : 1;
                for (size_t k = 0; k < n; k++) qp[k] = q[qa + k];
            }
        }
        for (size_t i = 0; i < nv; i++) {
            double t = 0.0;
            for (size_t k = 0; k < nv; k++) t += T[i * nv + k] * v[k];
            md->qvel[perm[i]] = t;
        }

        assert_status(sm_rigid_forward(rm, rd, q, v), SM_OK);
        sm_rigid_mass(rm, rd, M);
        sm_rigid_bias(rm, rd, bias);
        mjcf_mass_bias(mm, md, Mmj, bmj);

        /* Mp = Tᵀ M_mj T in our order */
        for (size_t i = 0; i < nv; i++)
            for (size_t j = 0; j < nv; j++) {
                double t = 0.0;
                for (size_t a = 0; a < nv; a++)
                    for (size_t c = 0; c < nv; c++)
                        if (T[a * nv + i] != 0.0 && T[c * nv + j] != 0.0)
                            t += T[a * nv + i] * Mmj[perm[a] * nv + perm[c]] * T[c * nv + j];
                Mp[i * nv + j] = t;
            }
        double sM = max_abs(Mp, nv * nv), e = 0.0;
        for (size_t i = 0; i < nv * nv; i++) e = fmax(e, fabs(M[i] - Mp[i]) / sM);
        worst[0] = fmax(worst[0], e);
        assert_true(e <= 1e-12);
        double sb = 0.0;
        e = 0.0;
        for (size_t i = 0; i < nv; i++) {
            double t = 0.0;
            for (size_t a = 0; a < nv; a++) t += T[a * nv + i] * bmj[perm[a]];
            sb = fmax(sb, fabs(t));
            w[i] = t;
        }
        for (size_t i = 0; i < nv; i++) e = fmax(e, fabs(bias[i] - w[i]) / sb);
        worst[1] = fmax(worst[1], e);
        assert_true(e <= 1e-12);

        for (size_t site = 0; site < ns; site++) {
            int sid = mj_name2id(mm, mjOBJ_SITE, s[site].name);
            assert_true(sid >= 0);
            double p[3];
            sm_rigid_site_pos(rm, rd, site, p);
            for (int k = 0; k < 3; k++) assert_close(p[k], md->site_xpos[3 * sid + k], 1e-13);
            sm_rigid_site_jac(rm, rd, site, J, Jr);
            mj_jacSite(mm, md, Jm, Jmr, sid);
            double sj = 0.0;
            e = 0.0;
            for (int r = 0; r < 3; r++)
                for (size_t c = 0; c < nv; c++) {
                    double tp = 0.0, tr = 0.0;
                    for (size_t a = 0; a < nv; a++) {
                        tp += Jm[r * nv + perm[a]] * T[a * nv + c];
                        tr += Jmr[r * nv + perm[a]] * T[a * nv + c];
                    }
                    sj = fmax(sj, fmax(fabs(tp), fabs(tr)));
                    e = fmax(e, fmax(fabs(tp - J[r * nv + c]), fabs(tr - Jr[r * nv + c])));
                }
            worst[2] = fmax(worst[2], e / sj);
            assert_true(e <= 1e-12 * sj);
        }

        /* J̇v: MuJoCo's site acceleration at qacc = 0 */
        mju_zero(md->qacc, mm->nv);
        mj_rnePostConstraint(mm, md);
        for (size_t site = 0; site < ns; site++) {
            int sid = mj_name2id(mm, mjOBJ_SITE, s[site].name);
            double res[6], acc[3];
            mj_objectAcceleration(mm, md, mjOBJ_SITE, sid, res, 0);
            sm_rigid_site_jdotv(rm, rd, site, acc);
            double sa = fmax(1.0, max_abs(acc, 3));
            e = 0.0;
            for (int k = 0; k < 3; k++) e = fmax(e, fabs(acc[k] - (res[3 + k] + g[k])));
            worst[3] = fmax(worst[3], e / sa);
            assert_true(e <= 1e-12 * sa);
        }
    }
    free(perm);
    free(T);
    free(q);
    free(v);
    free(w);
    free(M);
    free(Mmj);
    free(Mp);
    free(bias);
    free(bmj);
    free(J);
    free(Jr);
    free(Jm);
    free(Jmr);
    mj_deleteData(md);
    mj_deleteModel(mm);
    sm_rigid_data_free(rd);
    sm_rigid_model_free(rm);
}

static void report(const char *what, const double *worst)
{
    print_message("%s: worst relative differences M %.2g, bias %.2g, Jacobians %.2g, J̇v %.2g\n", what, worst[0],
                  worst[1], worst[2], worst[3]);
}

static void test_biped_against_mujoco(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N];
    sm_rigid_site_def s[4];
    biped(b, s);
    double worst[4] = {0, 0, 0, 0};
    cross_check(b, BIPED_N, s, 4, true, worst);
    report("7-DOF biped, planar path", worst);
    memset(worst, 0, sizeof worst);
    cross_check(b, BIPED_N, s, 4, false, worst);
    report("7-DOF biped, 3-D sweeps", worst);
}

static void test_tree3d_against_mujoco(void **state)
{
    (void)state;
    sm_rigid_body_def b[TREE_N];
    sm_rigid_site_def s[3];
    tree3d(b, s);
    double worst[4] = {0, 0, 0, 0};
    cross_check(b, TREE_N, s, 3, false, worst);
    report("12-DOF 3-D tree", worst);
}

/* MuJoCo refuses a moving body without mass or with an inertia that is not
 * a 3-D one (a point mass, a massless slide, a planar link's zero
 * out-of-plane moments; notes/mujoco-2.2.2.md trap 3).  Both sides get the
 * same completed tree, so the comparison still checks every sweep on the
 * file's topology, frames, axes and numbers. */
static void complete_for_mujoco(sm_rigid_body_def *b)
{
    if (b->joint == SM_RIGID_FIXED) return;
    b->mass += 0.125;
    /* a + s + b + s >= c + s for s >= c: the triangle inequality MuJoCo checks */
    const double s = fmax(b->inertia[0], fmax(b->inertia[4], b->inertia[8])) + 0.01;
    for (int k = 0; k < 3; k++) b->inertia[4 * k] += s * (1.0 + 0.1 * k);
}

static bool is_body_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[512];
    bool yes = false;
    while (!yes && fgets(line, sizeof line, f)) yes = strncmp(line, "bodies:", 7) == 0;
    fclose(f);
    return yes;
}

/* Every walker the project ships as a tree of rigid bodies (models/ *.yaml
 * with a top-level bodies: key): the tree the file describes, at its
 * default parameters, against MuJoCo, on the planar path where it applies
 * and on the 3-D sweeps. */
static void test_model_files_against_mujoco(void **state)
{
    (void)state;
    size_t checked = 0;
    DIR *dir = opendir(SM_SOURCE_DIR "/models");
    assert_non_null(dir);
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/models/%s", SM_SOURCE_DIR, e->d_name);
        if (!is_body_file(path)) continue;
        body_file *f = NULL;
        char why[512] = "";
        if (body_file_load(path, &f, why, sizeof why) != SM_OK) fail_msg("%s", why);
        double p[SM_MAX_PARAMS];
        for (size_t k = 0; k < f->n_params; k++) p[k] = f->params[k].value;
        sm_rigid_body_def b[BODY_MAX_BODIES];
        sm_rigid_site_def s[BODY_MAX_SITES];
        for (size_t i = 0; i < f->n_bodies; i++) {
            body_def_at(f, i, p, &b[i]);
            complete_for_mujoco(&b[i]);
        }
        for (size_t i = 0; i < f->n_sites; i++) {
            s[i] = (sm_rigid_site_def){.name = f->sites[i].name, .body = f->sites[i].body};
            body_site_at(f, i, p, s[i].pos);
        }
        double worst[4] = {0, 0, 0, 0};
        sm_rigid_model *rm = NULL;
        double g0[3] = {0, 0, -9.81};
        assert_status(sm_rigid_model_create(b, f->n_bodies, s, f->n_sites, g0, &rm, why, sizeof why), SM_OK);
        const bool planar = sm_rigid_is_planar(rm);
        sm_rigid_model_free(rm);
        if (planar) {
            cross_check(b, f->n_bodies, s, f->n_sites, true, worst);
            report(e->d_name, worst);
            memset(worst, 0, sizeof worst);
        }
        cross_check(b, f->n_bodies, s, f->n_sites, false, worst);
        report(e->d_name, worst);
        body_file_free(f);
        checked++;
    }
    closedir(dir);
    print_message("%zu model files checked against MuJoCo\n", checked);
    assert_true(checked >= 8);
}

int main(void)
{
    mju_user_error = on_mj_error;
    mju_user_warning = on_mj_warning;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_biped_against_mujoco),
        cmocka_unit_test(test_tree3d_against_mujoco),
        cmocka_unit_test(test_model_files_against_mujoco),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    puts("test_rigid_mujoco: built without MuJoCo (install libmujoco-dev: scripts/setup.sh), skipped");
    return 77;
}
#endif
