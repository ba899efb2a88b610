/* The rigid-body core (src/rigid/): ns per evaluation of M, C v + G, two site
 * Jacobians and two J̇v at one random state, for the 7-DOF planar biped and the
 * 12-DOF 3-D tree of tests/rigid_trees.h (the biped by the planar fast path
 * and by the 3-D sweeps), beside MuJoCo's time for the same
 * quantities when it is installed (mj_kinematics, mj_comPos, mj_crb, mj_fullM,
 * mj_comVel, mj_rne, two mj_jacSite, mj_rnePostConstraint, two
 * mj_objectAcceleration).  Best of 5 runs of 100000. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rigid_trees.h"
#include "stridemap/rigid.h"
#ifdef SM_HAVE_MUJOCO
#include "rigid_mjcf.h"
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static volatile double sink;
enum { RUNS = 5, N = 100000 };

static void bench(const char *what, const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s, size_t ns,
                  bool planar)
{
    const double g[3] = {0, 0, -9.81};
    sm_rigid_model *m = NULL;
    char msg[200];
    if (sm_rigid_model_create(b, nb, s, ns, g, &m, msg, sizeof msg) != SM_OK) {
        fprintf(stderr, "bench_rigid: %s\n", msg);
        exit(70);
    }
    sm_rigid_use_planar(m, planar);
    sm_rigid_data *d = sm_rigid_data_create(m);
    size_t nq = sm_rigid_nq(m), nv = sm_rigid_nv(m);
    double *q = malloc(nq * sizeof *q), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    double *M = malloc(nv * nv * sizeof *M), *c = malloc(nv * sizeof *c), *J = malloc(6 * nv * sizeof *J);
    sm_rigid_q_neutral(m, q);
    for (size_t i = 0; i < nv; i++) w[i] = 0.3 * sin(1.0 + i), v[i] = cos(2.0 * i);
    sm_rigid_integrate_q(m, q, w, 1.0, q);
    double best = INFINITY;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (int k = 0; k < N; k++) {
            double a[3], a2[3];
            sm_rigid_forward(m, d, q, v);
            sm_rigid_mass(m, d, M);
            sm_rigid_bias(m, d, c);
            sm_rigid_site_jac(m, d, 0, J, NULL);
            sm_rigid_site_jac(m, d, 1, J + 3 * nv, NULL);
            sm_rigid_site_jdotv(m, d, 0, a);
            sm_rigid_site_jdotv(m, d, 1, a2);
            sink = M[nv * nv - 1] + c[0] + J[0] + a[0] + a2[2];
        }
        best = fmin(best, (now() - t0) / N * 1e9);
    }
    printf("%-20s %3zu DOF  stridemap %7.0f ns", what, nv, best);
#ifdef SM_HAVE_MUJOCO
    char err[500] = "";
    mjModel *mm = rigid_mjcf_load(b, nb, s, ns, g, err, sizeof err);
    if (!mm) {
        printf("  MuJoCo: %s\n", err);
    } else {
        mjData *md = mj_makeData(mm);
        for (int i = 0; i < mm->nq; i++) md->qpos[i] = mm->qpos0[i] + 0.01 * i;
        for (int j = 0; j < mm->njnt; j++) {
            int t = mm->jnt_type[j], a = mm->jnt_qposadr[j];
            if (t == mjJNT_FREE) mju_normalize4(md->qpos + a + 3);
            if (t == mjJNT_BALL) mju_normalize4(md->qpos + a);
        }
        for (int i = 0; i < mm->nv; i++) md->qvel[i] = cos(2.0 * i);
        double *Mm = malloc(nv * nv * sizeof *Mm), *cm = malloc(nv * sizeof *cm), *Jm = malloc(6 * nv * sizeof *Jm);
        double bestm = INFINITY;
        for (int r = 0; r < RUNS; r++) {
            double t0 = now();
            for (int k = 0; k < N; k++) {
                double a[6], a2[6];
                mjcf_mass_bias(mm, md, Mm, cm);
                mj_jacSite(mm, md, Jm, NULL, 0);
                mj_jacSite(mm, md, Jm + 3 * nv, NULL, 1);
                mju_zero(md->qacc, mm->nv);
                mj_rnePostConstraint(mm, md);
                mj_objectAcceleration(mm, md, mjOBJ_SITE, 0, a, 0);
                mj_objectAcceleration(mm, md, mjOBJ_SITE, 1, a2, 0);
                sink = Mm[nv * nv - 1] + cm[0] + Jm[0] + a[3] + a2[5];
            }
            bestm = fmin(bestm, (now() - t0) / N * 1e9);
        }
        printf("   MuJoCo %7.0f ns   ratio %.2f\n", bestm, best / bestm);
        free(Mm);
        free(cm);
        free(Jm);
        mj_deleteData(md);
        mj_deleteModel(mm);
    }
#else
    printf("   (MuJoCo not installed)\n");
#endif
    free(q);
    free(v);
    free(w);
    free(M);
    free(c);
    free(J);
    sm_rigid_data_free(d);
    sm_rigid_model_free(m);
}

int main(void)
{
    sm_rigid_body_def b[8];
    sm_rigid_site_def s[8];
    biped(b, s);
    bench("biped, planar path", b, BIPED_N, s, 4, true);
    bench("biped, 3-D sweeps", b, BIPED_N, s, 4, false);
    tree3d(b, s);
    bench("3-D tree", b, TREE_N, s, 3, true);
    return 0;
}
