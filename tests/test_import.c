/* stridemap import (stridemap/import.h, src/import/): MJCF and URDF read by
 * MuJoCo 2.2.2 become rigid.h bodies and sites.  MuJoCo is the independent
 * check: the imported tree's M, bias forces C v + G, site positions and site
 * Jacobians equal MuJoCo's for the same file at 100 random states to 1e-12
 * relative, with q = MuJoCo's qpos and v = its qvel (the importer folds joint
 * anchors, reference angles and free-body frames into the bodies so that the
 * coordinates are the same).  The trees: the 7-DOF biped and the 12-DOF 3-D
 * tree of tests/rigid_trees.h (written as MJCF by tests/rigid_mjcf.h, their
 * own definitions being the truth for masses, frames and sites), and
 * tests/data/mjcf/: joints off their body's origin, ref, several joints in
 * one body, fullinertia, a rotated inertial frame, unnamed bodies and sites.
 * The YAML (docs/body-walkers.md) is read back with libyaml and must hold the
 * same numbers bit for bit.  Masses and inertias MuJoCo's compiler changed
 * (balanceinertia) or fused away (a URDF's fixed root) are warnings, a planar
 * inertia MuJoCo refuses is an error; and the program's exit codes.
 * MuJoCo is opened at run time (src/import/mujoco_dl.c): a library that
 * cannot be loaded (STRIDEMAP_MUJOCO_LIB) is exit 69 in one line, and the
 * program does not load MuJoCo to start.
 * Built without MuJoCo: the import says it is unavailable (69 from the
 * program), the rest is skipped. */
#include "cli_run.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "body_def.h" /* src/body/: the model-file loader, for the round trip */
#include "stridemap/import.h"
#include "stridemap/rigid.h"

#define DATA SM_SOURCE_DIR "/tests/data/mjcf/"

static void status_is_unavailable_of_kind_output(void **state)
{
    (void)state;
    assert_string_equal(sm_status_name(SM_UNAVAILABLE), "unavailable");
    /* the build, not the caller's data: the same file imports on a build with MuJoCo */
    assert_int_equal(sm_status_kind(SM_UNAVAILABLE), SM_KIND_OUTPUT);
    assert_non_null(strstr(sm_strerror(SM_UNAVAILABLE), "libmujoco-dev"));
}

#ifdef SM_HAVE_MUJOCO
#include "rigid_mjcf.h"
#include "rigid_trees.h"

static bool has_warning(const sm_import *imp, const char *a, const char *b, const char *c)
{
    for (size_t i = 0; i < imp->nwarn; i++)
        if (strstr(imp->warnings[i], a) && (!b || strstr(imp->warnings[i], b)) && (!c || strstr(imp->warnings[i], c)))
            return true;
    return false;
}


#include "test_rng.h"

static void on_mj_error(const char *msg) { fail_msg("MuJoCo error: %s", msg); }
static void on_mj_warning(const char *msg) { fail_msg("MuJoCo warning: %s", msg); }

static double max_abs(const double *x, size_t n)
{
    double a = 0.0;
    for (size_t i = 0; i < n; i++) a = fmax(a, fabs(x[i]));
    return a;
}

/* A tree of rigid_trees.h as an MJCF file (tests/rigid_mjcf.h's writer) at path. */
static void write_tree(const char *path, const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s,
                       size_t ns, const double *g)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "<mujoco model=\"tree\">\n<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n"
               "<option gravity=\"%.17g %.17g %.17g\"/>\n<worldbody>\n", g[0], g[1], g[2]);
    for (size_t i = 0; i < nb; i++)
        if (b[i].parent < 0) emit_body(f, b, nb, s, ns, i);
    fprintf(f, "</worldbody>\n</mujoco>\n");
    assert_int_equal(fclose(f), 0);
}

/* The imported tree against MuJoCo's model of the same file, q = qpos, v = qvel;
 * worst[0..2]: relative differences of M, bias, site Jacobians. */
static void against_mujoco(const char *path, const sm_import *imp, double *worst)
{
    char err[600] = "";
    mjModel *mm = mj_loadXML(path, NULL, err, sizeof err);
    if (!mm) fail_msg("%s", err);
    mjData *md = mj_makeData(mm);
    sm_rigid_model *rm = NULL;
    char msg[300];
    assert_status(sm_rigid_model_create(imp->bodies, imp->nbody, imp->sites, imp->nsite, imp->gravity, &rm, msg,
                                        sizeof msg),
                  SM_OK);
    sm_rigid_data *rd = sm_rigid_data_create(rm);
    const size_t nq = sm_rigid_nq(rm), nv = sm_rigid_nv(rm);
    assert_int_equal(mm->nq, (int)nq);
    assert_int_equal(mm->nv, (int)nv);
    assert_int_equal(imp->nq, nq);
    /* MuJoCo's sites on bodies, in order, are the imported ones */
    int *sid = calloc(imp->nsite + 1, sizeof *sid);
    size_t k = 0;
    for (int s = 0; s < mm->nsite; s++)
        if (mm->site_bodyid[s] != 0) sid[k++] = s;
    assert_int_equal(k, imp->nsite);
    for (int i = 0; i < 3; i++) assert_true(imp->gravity[i] == mm->opt.gravity[i]);

    double *q = malloc(nq * sizeof *q), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    double *M = malloc(nv * nv * sizeof *M), *Mm = malloc(nv * nv * sizeof *Mm);
    double *bias = malloc(nv * sizeof *bias), *bm = malloc(nv * sizeof *bm);
    double *J = malloc(3 * nv * sizeof *J), *Jr = malloc(3 * nv * sizeof *Jr);
    double *Jm = malloc(3 * nv * sizeof *Jm), *Jmr = malloc(3 * nv * sizeof *Jmr);
    for (int trial = 0; trial < 100; trial++) {
        /* around MuJoCo's reference pose, which the importer gives in our coordinates */
        for (size_t i = 0; i < nv; i++) w[i] = urand(-1.5, 1.5);
        sm_rigid_integrate_q(rm, imp->qpos0, w, 1.0, q);
        for (size_t i = 0; i < nv; i++) v[i] = urand(-2.0, 2.0);
        memcpy(md->qpos, q, nq * sizeof *q);
        memcpy(md->qvel, v, nv * sizeof *v);
        assert_status(sm_rigid_forward(rm, rd, q, v), SM_OK);
        sm_rigid_mass(rm, rd, M);
        sm_rigid_bias(rm, rd, bias);
        mjcf_mass_bias(mm, md, Mm, bm);
        double e = 0.0, sc = max_abs(Mm, nv * nv);
        for (size_t i = 0; i < nv * nv; i++) e = fmax(e, fabs(M[i] - Mm[i]) / sc);
        worst[0] = fmax(worst[0], e);
        assert_true(e <= 1e-12);
        e = 0.0, sc = max_abs(bm, nv);
        for (size_t i = 0; i < nv; i++) e = fmax(e, fabs(bias[i] - bm[i]) / sc);
        worst[1] = fmax(worst[1], e);
        assert_true(e <= 1e-12);
        for (size_t s = 0; s < imp->nsite; s++) {
            double p[3];
            sm_rigid_site_pos(rm, rd, s, p);
            for (int c = 0; c < 3; c++) assert_close(p[c], md->site_xpos[3 * sid[s] + c], 1e-13);
            sm_rigid_site_jac(rm, rd, s, J, Jr);
            mj_jacSite(mm, md, Jm, Jmr, sid[s]);
            sc = fmax(max_abs(Jm, 3 * nv), max_abs(Jmr, 3 * nv));
            e = 0.0;
            for (size_t i = 0; i < 3 * nv; i++) e = fmax(e, fmax(fabs(J[i] - Jm[i]), fabs(Jr[i] - Jmr[i])) / sc);
            worst[2] = fmax(worst[2], e);
            assert_true(e <= 1e-12);
        }
    }
    free(sid);
    free(q);
    free(v);
    free(w);
    free(M);
    free(Mm);
    free(bias);
    free(bm);
    free(J);
    free(Jr);
    free(Jm);
    free(Jmr);
    mj_deleteData(md);
    mj_deleteModel(mm);
    sm_rigid_data_free(rd);
    sm_rigid_model_free(rm);
}

/* ---- the YAML read back with libyaml ---- */

static yaml_node_t *get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static const char *str(yaml_node_t *n)
{
    assert_non_null(n);
    assert_int_equal(n->type, YAML_SCALAR_NODE);
    return (const char *)n->data.scalar.value;
}

static double num(yaml_node_t *n)
{
    char *end;
    const double v = strtod(str(n), &end);
    assert_true(*end == '\0');
    return v;
}

/* A list of numbers into v; returns its length. */
static size_t nums(yaml_document_t *d, yaml_node_t *n, double *v, size_t cap)
{
    assert_non_null(n);
    assert_int_equal(n->type, YAML_SEQUENCE_NODE);
    size_t k = 0;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        assert_true(k < cap);
        v[k++] = num(yaml_document_get_node(d, *i));
    }
    return k;
}

/* The YAML text's bodies, sites, gravity and forces hold imp's numbers exactly. */
static void yaml_holds(const char *text, const sm_import *imp)
{
    yaml_parser_t p;
    yaml_document_t d;
    assert_true(yaml_parser_initialize(&p));
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    if (!yaml_parser_load(&p, &d)) fail_msg("not YAML: %s at line %zu", p.problem, p.problem_mark.line + 1);
    yaml_node_t *root = yaml_document_get_root_node(&d);
    assert_non_null(root);
    assert_string_equal(str(get(&d, root, "name")), imp->name);
    const double g0 = num(get(&d, root, "gravity")), slope = num(get(&d, root, "slope"));
    assert_close(g0 * sin(slope), imp->gravity[0], 1e-15 * g0);
    assert_close(-g0 * cos(slope), imp->gravity[2], 1e-15 * g0);

    yaml_node_t *bodies = get(&d, root, "bodies");
    assert_non_null(bodies);
    assert_int_equal((size_t)(bodies->data.sequence.items.top - bodies->data.sequence.items.start), imp->nbody);
    static const char *const joint[] = {"fixed", "hinge", "slide", "ball", "free"};
    for (size_t i = 0; i < imp->nbody; i++) {
        const sm_rigid_body_def *b = &imp->bodies[i];
        yaml_node_t *n = yaml_document_get_node(&d, bodies->data.sequence.items.start[i]);
        assert_string_equal(str(get(&d, n, "name")), b->name);
        assert_string_equal(str(get(&d, n, "parent")), b->parent < 0 ? "world" : imp->bodies[b->parent].name);
        assert_string_equal(str(get(&d, n, "joint")), joint[b->joint]);
        double v[6] = {1, 0, 0, 0, 0, 0};
        assert_int_equal(nums(&d, get(&d, n, "pos"), v, 3), 3);
        assert_memory_equal(v, b->pos, sizeof b->pos);
        double quat[4] = {1, 0, 0, 0};
        if (get(&d, n, "quat")) assert_int_equal(nums(&d, get(&d, n, "quat"), quat, 4), 4);
        assert_memory_equal(quat, b->quat, sizeof quat);
        if (b->joint == SM_RIGID_HINGE || b->joint == SM_RIGID_SLIDE) {
            assert_int_equal(nums(&d, get(&d, n, "axis"), v, 3), 3);
            assert_memory_equal(v, b->axis, sizeof b->axis);
        }
        assert_true(num(get(&d, n, "mass")) == b->mass);
        assert_int_equal(nums(&d, get(&d, n, "com"), v, 3), 3);
        assert_memory_equal(v, b->com, sizeof b->com);
        memset(v, 0, sizeof v);
        const size_t ni = nums(&d, get(&d, n, "inertia"), v, 6);
        assert_true(ni == 3 || ni == 6);
        const double *I = b->inertia, want[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
        for (int c = 0; c < 6; c++) assert_true(v[c] == want[c]);
    }
    yaml_node_t *sites = get(&d, root, "sites");
    assert_non_null(sites);
    assert_int_equal((size_t)(sites->data.sequence.items.top - sites->data.sequence.items.start), imp->nsite);
    for (size_t i = 0; i < imp->nsite; i++) {
        yaml_node_t *n = yaml_document_get_node(&d, sites->data.sequence.items.start[i]);
        assert_string_equal(str(get(&d, n, "name")), imp->sites[i].name);
        assert_string_equal(str(get(&d, n, "body")), imp->bodies[imp->sites[i].body].name);
        double v[3];
        assert_int_equal(nums(&d, get(&d, n, "pos"), v, 3), 3);
        assert_memory_equal(v, imp->sites[i].pos, sizeof v);
    }
    yaml_node_t *forces = get(&d, root, "forces");
    assert_int_equal(forces ? (size_t)(forces->data.sequence.items.top - forces->data.sequence.items.start) : 0,
                     imp->nspring);
    for (size_t i = 0; i < imp->nspring; i++) {
        const sm_import_spring *s = &imp->springs[i];
        yaml_node_t *n = yaml_document_get_node(&d, forces->data.sequence.items.start[i]);
        assert_string_equal(str(get(&d, n, "name")), s->name);
        assert_true(num(get(&d, get(&d, n, "on"), imp->bodies[s->body].name)) == 1.0);
        assert_true(num(get(&d, n, "stiffness")) == s->stiffness);
        assert_true(num(get(&d, n, "damping")) == s->damping);
        assert_true(num(get(&d, n, "rest")) == s->rest);
    }
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
}

static char *yaml_of(const sm_import *imp)
{
    char *buf = NULL, why[300];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_status(sm_import_write_yaml(imp, "test", f, why, sizeof why), SM_OK);
    fclose(f);
    return buf;
}

static sm_import *import_ok(const char *path)
{
    sm_import *imp = NULL;
    char why[1200] = "";
    const sm_status st = sm_import_mjcf(path, &imp, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", sm_status_name(st), why);
    return imp;
}

static void report(const char *what, const double *worst)
{
    print_message("%s: worst relative differences from MuJoCo: M %.2g, bias %.2g, site Jacobians %.2g\n", what,
                  worst[0], worst[1], worst[2]);
}

/* The imported bodies are the tree that was written: same names, parents,
 * joints, frames, masses and sites (inertias through MuJoCo's principal axes). */
static void same_tree(const sm_import *imp, const sm_rigid_body_def *b, size_t nb, const sm_rigid_site_def *s,
                      size_t ns)
{
    assert_int_equal(imp->nbody, nb);
    assert_int_equal(imp->nsite, ns);
    for (size_t i = 0; i < nb; i++) {
        const sm_rigid_body_def *x = &imp->bodies[i];
        assert_string_equal(x->name, b[i].name);
        assert_int_equal(x->parent, b[i].parent);
        assert_int_equal(x->joint, b[i].joint);
        assert_true(x->mass == b[i].mass);
        double qn = 0;
        for (int k = 0; k < 4; k++) qn += b[i].quat[k] * b[i].quat[k];
        for (int k = 0; k < 3; k++) {
            assert_close(x->com[k], b[i].com[k], 1e-15);
            if (b[i].joint != SM_RIGID_FREE) assert_close(x->pos[k], b[i].pos[k], 1e-15);
        }
        if (b[i].joint != SM_RIGID_FREE)
            for (int k = 0; k < 4; k++) assert_close(x->quat[k], b[i].quat[k] / sqrt(qn), 1e-15);
        for (int k = 0; k < 9; k++) assert_close(x->inertia[k], b[i].inertia[k], 1e-14);
    }
    /* MuJoCo lists sites body by body */
    for (size_t i = 0; i < ns; i++) {
        size_t k = 0;
        while (k < ns && strcmp(imp->sites[k].name, s[i].name) != 0) k++;
        assert_true(k < ns);
        assert_int_equal(imp->sites[k].body, s[i].body);
        for (int c = 0; c < 3; c++) assert_close(imp->sites[k].pos[c], s[i].pos[c], 1e-15);
    }
}

static void biped_imports_as_written(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N];
    sm_rigid_site_def s[4];
    biped(b, s);
    const double g[3] = {0, 0, -9.81};
    char path[] = "/tmp/sm_import_biped_XXXXXX.xml";
    close(mkstemps(path, 4));
    write_tree(path, b, BIPED_N, s, 4, g);
    sm_import *imp = import_ok(path);
    same_tree(imp, b, BIPED_N, s, 4);
    assert_int_equal(imp->nwarn, 0);
    double worst[3] = {0};
    against_mujoco(path, imp, worst);
    report("7-DOF biped", worst);
    /* parallel hinges: the core's planar fast path, by itself */
    sm_rigid_model *rm = NULL;
    assert_status(sm_rigid_model_create(imp->bodies, imp->nbody, imp->sites, imp->nsite, imp->gravity, &rm, NULL, 0),
                  SM_OK);
    assert_true(sm_rigid_is_planar(rm));
    sm_rigid_model_free(rm);
    char *text = yaml_of(imp);
    yaml_holds(text, imp);
    assert_non_null(strstr(text, "gravity: 9.81\nslope: 0\n"));
    free(text);
    sm_import_free(imp);
    unlink(path);
}

static void tree3d_imports_as_written(void **state)
{
    (void)state;
    sm_rigid_body_def b[TREE_N];
    sm_rigid_site_def s[3];
    tree3d(b, s);
    const double g[3] = {0.4, 0, -9.81};
    char path[] = "/tmp/sm_import_tree_XXXXXX.xml";
    close(mkstemps(path, 4));
    write_tree(path, b, TREE_N, s, 3, g);
    sm_import *imp = import_ok(path);
    same_tree(imp, b, TREE_N, s, 3);
    /* the free pelvis at the origin, unrotated: its q is MuJoCo's world position and quaternion */
    for (int k = 0; k < 3; k++) assert_true(imp->bodies[0].pos[k] == 0.0);
    assert_true(imp->bodies[0].quat[0] == 1.0);
    for (int k = 0; k < 3; k++) assert_close(imp->qpos0[k], b[0].pos[k], 1e-15);
    double worst[3] = {0};
    against_mujoco(path, imp, worst);
    report("12-DOF 3-D tree", worst);
    char *text = yaml_of(imp);
    yaml_holds(text, imp);
    free(text);
    sm_import_free(imp);
    unlink(path);
}

/* Anchors off the origin, ref, a chain for several joints, fullinertia, a
 * rotated inertial frame, unnamed bodies and sites. */
static void offset_joints_match_mujoco(void **state)
{
    (void)state;
    sm_import *imp = import_ok(DATA "offset_joints.xml");
    /* torso: slide, slide, hinge -> two massless bodies named after their joints, then the body */
    static const char *const names[] = {"rootx", "rootz", "torso", "hip_flex", "thigh", "shank", "body4"};
    assert_int_equal(imp->nbody, 7);
    for (size_t i = 0; i < 7; i++) assert_string_equal(imp->bodies[i].name, names[i]);
    assert_true(imp->bodies[0].mass == 0 && imp->bodies[1].mass == 0 && imp->bodies[3].mass == 0);
    assert_true(imp->bodies[2].mass == 30 && imp->bodies[4].mass == 7);
    assert_int_equal(imp->nsite, 4);
    assert_string_equal(imp->sites[2].name, "site2");
    /* MuJoCo keeps a fullinertia to ~1e-9 only, and the import says by how much */
    assert_true(has_warning(imp, "body torso", "fullinertia", NULL));
    double worst[3] = {0};
    against_mujoco(DATA "offset_joints.xml", imp, worst);
    report("offset anchors, ref, joint chains, fullinertia", worst);
    char *text = yaml_of(imp);
    yaml_holds(text, imp);
    free(text);
    sm_import_free(imp);
}

static void springs_become_forces(void **state)
{
    (void)state;
    sm_import *imp = import_ok(DATA "springs.xml");
    assert_int_equal(imp->nspring, 2);
    assert_string_equal(imp->springs[0].name, "hinge_a");
    assert_string_equal(imp->bodies[imp->springs[0].body].name, "a");
    assert_true(imp->springs[0].stiffness == 5 && imp->springs[0].damping == 0.05 && imp->springs[0].rest == 0.1);
    assert_string_equal(imp->springs[1].name, "slide_b");
    assert_true(imp->springs[1].stiffness == 0 && imp->springs[1].damping == 3 && imp->springs[1].rest == 0);
    /* what the format cannot hold, one warning each */
    assert_true(has_warning(imp, "hinge_a", "limits [-1, 1]", NULL));
    assert_true(has_warning(imp, "slide_b", "armature 0.01", NULL));
    assert_true(has_warning(imp, "ball_c", "stiffness 2", NULL));
    assert_true(has_warning(imp, "1 actuators", NULL, NULL));
    for (size_t i = 0; i < imp->nwarn; i++) assert_null(strchr(imp->warnings[i], '\n'));
    char *text = yaml_of(imp);
    yaml_holds(text, imp);
    for (size_t i = 0; i < imp->nwarn; i++) {
        char line[700];
        snprintf(line, sizeof line, "# warning: %s\n", imp->warnings[i]);
        assert_non_null(strstr(text, line));
    }
    free(text);
    sm_import_free(imp);
}

/* A planar leg's inertia (out-of-plane moments 0): MuJoCo refuses it, and so
 * does the import, in one line; balanced by MuJoCo, it is a warning with both values. */
static void planar_inertia_refused_or_warned(void **state)
{
    (void)state;
    sm_import *imp = NULL;
    char why[1200];
    assert_status(sm_import_mjcf(DATA "planar_zero.xml", &imp, why, sizeof why), SM_BAD_DATA);
    assert_null(imp);
    assert_non_null(strstr(why, "planar_zero.xml"));
    assert_non_null(strstr(why, "A + B >= C"));
    assert_null(strchr(why, '\n'));

    imp = import_ok(DATA "planar_balanced.xml");
    assert_true(has_warning(imp, "body leg", "from [0 0 0.47]", "balanceinertia"));
    /* the model file holds MuJoCo's (changed) moments, and the warning says so */
    const double *I = imp->bodies[0].inertia;
    assert_false(I[0] == 0.0 && I[8] == 0.0 && I[4] == 0.47);
    sm_import_free(imp);
}

static void fused_root_is_a_warning(void **state)
{
    (void)state;
    sm_import *imp = import_ok(DATA "fused_root.urdf");
    /* the 12 kg base link, fixed to the world, is gone from MuJoCo's model */
    assert_int_equal(imp->nbody, 1);
    assert_string_equal(imp->bodies[0].name, "thigh");
    assert_true(has_warning(imp, "body base", "mass 12", "fused into the world"));
    double worst[3] = {0};
    against_mujoco(DATA "fused_root.urdf", imp, worst);
    sm_import_free(imp);
}

/* No <inertial>: MuJoCo's masses from geoms, each one said; a planar root of
 * three joints; limits, geom contacts and an actuator said too. */
static void geoms_only_warned_and_matching(void **state)
{
    (void)state;
    sm_import *imp = import_ok(DATA "geoms_only.xml");
    assert_true(has_warning(imp, "body torso", "computed by MuJoCo from its geoms", NULL));
    assert_true(has_warning(imp, "body thigh", "computed by MuJoCo from its geoms", NULL));
    assert_true(has_warning(imp, "body foot", "computed by MuJoCo from its geoms", NULL));
    assert_true(has_warning(imp, "thigh_joint", "limits", NULL));
    assert_true(has_warning(imp, "4 geoms with contacts", NULL, NULL));
    assert_true(has_warning(imp, "1 actuators", NULL, NULL));
    /* a capsule of radius r and length L at 1000 kg/m^3: m = 1000 pi r^2 (L + 4 r / 3) */
    assert_close(imp->bodies[2].mass, 1000 * M_PI * 0.05 * 0.05 * (0.4 + 4 * 0.05 / 3), 1e-12);
    assert_string_equal(imp->joint_names[2], "rooty");
    assert_int_equal(imp->nspring, 2); /* the joints' class damping */
    double worst[3] = {0};
    against_mujoco(DATA "geoms_only.xml", imp, worst);
    report("geoms only, planar root of three joints", worst);
    sm_import_free(imp);
}

static void unreadable_files(void **state)
{
    (void)state;
    sm_import *imp = NULL;
    char why[600];
    assert_status(sm_import_mjcf(DATA "no_such_file.xml", &imp, why, sizeof why), SM_IO_ERROR);
    assert_null(imp);
    assert_non_null(strstr(why, "no_such_file.xml"));
    assert_status(sm_import_mjcf(DATA, &imp, why, sizeof why), SM_IO_ERROR);
    /* not XML at all */
    char path[] = "/tmp/sm_import_junk_XXXXXX.xml";
    const int fd = mkstemps(path, 4);
    assert_true(write(fd, "not a model\n", 12) == 12);
    close(fd);
    assert_status(sm_import_mjcf(path, &imp, why, sizeof why), SM_BAD_DATA);
    assert_null(strchr(why, '\n'));
    unlink(path);
}

/* Gravity with a y component has no slope to stand for it: refused before anything is written. */
static void sideways_gravity_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/sm_import_gy_XXXXXX.xml";
    const int fd = mkstemps(path, 4);
    const char xml[] = "<mujoco><option gravity=\"0 1 -9.81\"/><worldbody><body name=\"a\"><joint type=\"hinge\"/>"
                       "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>\n";
    assert_true(write(fd, xml, sizeof xml - 1) == (ssize_t)(sizeof xml - 1));
    close(fd);
    sm_import *imp = import_ok(path);
    char *buf = NULL, why[400];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_status(sm_import_write_yaml(imp, path, f, why, sizeof why), SM_BAD_DATA);
    fclose(f);
    assert_int_equal(len, 0);
    assert_non_null(strstr(why, "y component"));
    free(buf);
    sm_import_free(imp);
    unlink(path);
}

/* ---- import -> model-file loader (src/body/load.c) ---- */

/* The imported YAML completed as a user would: pins on the first two sites,
 * one phase ended by the second touching down, the section, and the
 * commented guess taken as it stands.  The model must be planar: the lift
 * has two unknown coordinates (gap and origin of the first site) and two
 * unknown rates (its pin's two rows), the first two 1-DOF coordinates. */
static char *complete(const sm_import *imp, const char *text)
{
    assert_true(imp->nsite >= 2);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    /* the guess block uncommented */
    const char *g = strstr(text, "# guess:\n");
    assert_non_null(g);
    fwrite(text, 1, (size_t)(g - text), f);
    for (const char *l = g; *l; l = strchr(l, '\n') + 1) {
        assert_int_equal(strncmp(l, "# ", 2), 0);
        fwrite(l + 2, 1, (size_t)(strchr(l, '\n') + 1 - (l + 2)), f);
    }
    const char *s0 = imp->sites[0].name, *s1 = imp->sites[1].name;
    fprintf(f, "contacts:\n  - {name: c0, type: pin, site: %s}\n  - {name: c1, type: pin, site: %s}\n", s0, s1);
    fprintf(f, "phases:\n  - name: swing\n    contacts: [c0]\n    events:\n      - name: touchdown\n"
               "        when: {gap: c1}\n        impact: true\n        then: section\n");
    fprintf(f, "section:\n  after: touchdown\n  touching: [c0]\n  origin: c0\n  free: [");
    size_t fixed_q = 0, fixed_v = 0;
    bool first = true;
    for (size_t i = 0; i < imp->nbody; i++) {
        const sm_rigid_body_def *b = &imp->bodies[i];
        if (b->joint != SM_RIGID_HINGE && b->joint != SM_RIGID_SLIDE) continue;
        if (fixed_q < 2) fixed_q++;
        else fprintf(f, "%s%s", first ? "" : ", ", b->name), first = false;
        if (fixed_v < 2) fixed_v++;
        else fprintf(f, "%s%s_dot", first ? "" : ", ", b->name), first = false;
    }
    fprintf(f, "]\ntime_limit: 5\n");
    fclose(f);
    return out;
}

/* The loader reads back exactly the bodies, sites, gravity and springs the import gave. */
static void round_trip(const char *mjcf)
{
    sm_import *imp = import_ok(mjcf);
    char *text = yaml_of(imp), *full = complete(imp, text);
    char path[] = "/tmp/sm_import_round_XXXXXX.yaml";
    const int fd = mkstemps(path, 5);
    assert_true(write(fd, full, strlen(full)) == (ssize_t)strlen(full));
    close(fd);
    body_file *bf = NULL;
    char why[1200] = "";
    const sm_status st = body_file_load(path, &bf, why, sizeof why);
    if (st != SM_OK) fail_msg("%s\n%s", why, full);
    double p[SM_MAX_PARAMS];
    for (size_t i = 0; i < bf->n_params; i++) p[i] = bf->params[i].value;

    assert_int_equal(bf->n_bodies, imp->nbody);
    for (size_t i = 0; i < imp->nbody; i++) {
        const sm_rigid_body_def *b = &imp->bodies[i];
        const body_body *x = &bf->bodies[i];
        assert_string_equal(x->name, b->name);
        assert_int_equal(x->parent, b->parent);
        assert_int_equal(x->joint, b->joint);
        assert_memory_equal(x->quat, b->quat, sizeof b->quat);
        if (b->joint == SM_RIGID_HINGE || b->joint == SM_RIGID_SLIDE) assert_memory_equal(x->axis, b->axis, sizeof b->axis);
        assert_true(body_num_eval(&x->mass, p) == b->mass);
        for (int k = 0; k < 3; k++) {
            assert_true(body_num_eval(&x->pos[k], p) == b->pos[k]);
            assert_true(body_num_eval(&x->com[k], p) == b->com[k]);
        }
        const double *I = b->inertia, want[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
        for (int k = 0; k < 6; k++) assert_true(body_num_eval(&x->inertia[k], p) == want[k]);
    }
    assert_int_equal(bf->n_sites, imp->nsite);
    for (size_t i = 0; i < imp->nsite; i++) {
        assert_string_equal(bf->sites[i].name, imp->sites[i].name);
        assert_int_equal(bf->sites[i].body, imp->sites[i].body);
        for (int k = 0; k < 3; k++) assert_true(body_num_eval(&bf->sites[i].pos[k], p) == imp->sites[i].pos[k]);
    }
    const double g0 = body_num_eval(&bf->gravity, p), slope = body_num_eval(&bf->slope, p);
    assert_close(g0 * sin(slope), imp->gravity[0], 1e-15 * g0);
    assert_close(-g0 * cos(slope), imp->gravity[2], 1e-15 * g0);
    assert_int_equal(bf->n_forces, imp->nspring);
    for (size_t i = 0; i < imp->nspring; i++) {
        const body_force *x = &bf->forces[i];
        assert_string_equal(x->name, imp->springs[i].name);
        assert_int_equal(x->n, 1);
        assert_int_equal(x->body[0], imp->springs[i].body);
        assert_true(x->coef[0] == 1.0);
        assert_true(body_num_eval(&x->stiffness, p) == imp->springs[i].stiffness);
        assert_true(body_num_eval(&x->damping, p) == imp->springs[i].damping);
        assert_true(body_num_eval(&x->rest, p) == imp->springs[i].rest);
    }
    /* the commented guess is MuJoCo's reference pose, by the loader's coordinate names */
    assert_int_equal(bf->nq, imp->nq);
    for (size_t i = 0; i < imp->nq; i++) assert_true(bf->guess[i] == imp->qpos0[i]);
    body_file_free(bf);
    unlink(path);
    free(full);
    free(text);
    sm_import_free(imp);
}

static void loader_reads_back_the_import(void **state)
{
    (void)state;
    sm_rigid_body_def b[BIPED_N];
    sm_rigid_site_def s[4];
    biped(b, s);
    const double g[3] = {0.5, 0, -9.81};
    char path[] = "/tmp/sm_import_biped_XXXXXX.xml";
    close(mkstemps(path, 4));
    write_tree(path, b, BIPED_N, s, 4, g);
    round_trip(path);
    unlink(path);
    round_trip(DATA "planar_springs.xml");
}

/* ---- the program ---- */

static void cli_yaml_on_stdout_warnings_on_stderr(void **state)
{
    (void)state;
    cli_result *r = cli_run("import", DATA "springs.xml", NULL);
    assert_int_equal(r->status, 0);
    /* stdout is the model file and nothing else */
    sm_import *imp = import_ok(DATA "springs.xml");
    yaml_holds(r->out, imp);
    /* stderr: one line per warning */
    assert_int_equal(cli_count_lines(r->err), imp->nwarn);
    for (const char *l = r->err; *l; l = strchr(l, '\n') + 1)
        assert_int_equal(strncmp(l, "stridemap import: warning: ", 27), 0);
    char *stdout_copy = strdup(r->out);

    /* -o: the same text in a file, nothing on stdout */
    char out[] = "/tmp/sm_import_out_XXXXXX.yaml";
    close(mkstemps(out, 5));
    r = cli_run("import", DATA "springs.xml", "-o", out, NULL);
    assert_int_equal(r->status, 0);
    assert_string_equal(r->out, "");
    /* an ordinary file's mode, not the temporary file's 0600 */
    struct stat sb;
    assert_int_equal(stat(out, &sb), 0);
    const mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(sb.st_mode & 0777, 0666 & ~mask);
    char file[1 << 15];
    cli_slurp(out, file, sizeof file);
    assert_string_equal(file, stdout_copy);
    unlink(out);
    free(stdout_copy);
    sm_import_free(imp);
}

static void cli_exit_codes(void **state)
{
    (void)state;
    cli_expect_error(cli_run("import", DATA "no_such_file.xml", NULL), 66, "no_such_file.xml");
    cli_expect_error(cli_run("import", DATA "planar_zero.xml", NULL), 65, "A + B >= C");
    cli_expect_error(cli_run("import", NULL), 64, "which file?");
    cli_expect_error(cli_run("import", DATA "springs.xml", DATA "springs.xml", NULL), 64, "takes one file");
    cli_expect_error(cli_run("import", "--bogus", NULL), 64, "unknown option");
    cli_expect_error(cli_run("import", DATA "springs.xml", "-o", "/nonexistent/dir/m.yaml", NULL), 73,
                     "cannot create /nonexistent/dir/m.yaml");
    /* a directory where the file should go: 73, and no temporary file left beside it */
    char dir[] = "/tmp/sm_import_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cli_expect_error(cli_run("import", DATA "planar_springs.xml", "-o", dir, NULL), 73, "cannot create");
    DIR *d = opendir("/tmp");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, dir + 5, strlen(dir + 5)) == 0 && strstr(e->d_name, ".tmp"))
            fail_msg("left behind: /tmp/%s", e->d_name);
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
    cli_result *r = cli_run("import", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "usage: stridemap import FILE.xml"));
    r = cli_run("--help", NULL);
    assert_non_null(strstr(r->out, "import FILE.xml"));
}

/* ---- MuJoCo opened at run time, not linked ---- */

/* This process's environment plus extra. */
static char **env_with(const char *extra)
{
    static char *env[512];
    size_t n = 0;
    for (char **e = environ; *e && n < 510; e++)
        if (strncmp(*e, "STRIDEMAP_MUJOCO_LIB=", 21) != 0) env[n++] = *e;
    env[n++] = (char *)extra;
    env[n] = NULL;
    return env;
}

/* STRIDEMAP_MUJOCO_LIB names the file to open: one that is missing, or is
 * not MuJoCo, makes the import unavailable with the loader's words, never a
 * crash; a file that cannot be read is still that. */
static void missing_mujoco_is_unavailable(void **state)
{
    (void)state;
    sm_import *imp = NULL;
    char why[1200];
    assert_int_equal(setenv("STRIDEMAP_MUJOCO_LIB", "/nonexistent/libmujoco.so.2.2.2", 1), 0);
    assert_status(sm_import_mjcf(DATA "springs.xml", &imp, why, sizeof why), SM_UNAVAILABLE);
    assert_null(imp);
    assert_non_null(strstr(why, "/nonexistent/libmujoco.so.2.2.2: cannot open shared object file"));
    assert_non_null(strstr(why, "STRIDEMAP_MUJOCO_LIB"));
    assert_null(strchr(why, '\n'));
    assert_status(sm_import_mjcf(DATA "no_such_file.xml", &imp, why, sizeof why), SM_IO_ERROR);
    /* a shared object without MuJoCo's functions */
    assert_int_equal(setenv("STRIDEMAP_MUJOCO_LIB", "libm.so.6", 1), 0);
    assert_status(sm_import_mjcf(DATA "springs.xml", &imp, why, sizeof why), SM_UNAVAILABLE);
    assert_null(imp);
    assert_non_null(strstr(why, "undefined symbol: mj_version"));
    assert_int_equal(unsetenv("STRIDEMAP_MUJOCO_LIB"), 0);
    imp = import_ok(DATA "springs.xml");
    sm_import_free(imp);

    cli_result *r = cli_run_env(env_with("STRIDEMAP_MUJOCO_LIB=/nonexistent/libmujoco.so.2.2.2"), "import",
                                DATA "springs.xml", NULL);
    cli_expect_error(r, 69, "stridemap import: cannot import " DATA "springs.xml: cannot load MuJoCo: "
                            "/nonexistent/libmujoco.so.2.2.2: cannot open shared object file");
    assert_string_equal(r->out, "");
    r = cli_run("import", "--help", NULL);
    assert_non_null(strstr(r->out, "69 built\nwithout MuJoCo or MuJoCo cannot be loaded"));
    assert_non_null(strstr(r->out, "STRIDEMAP_MUJOCO_LIB"));
}

/* The program does not load MuJoCo to start (only `import` opens it): the
 * objects the dynamic loader maps for it, as ldd lists them, name no libmujoco. */
static void program_does_not_load_mujoco(void **state)
{
    (void)state;
    cli_result *r = cli_run_env(env_with("LD_TRACE_LOADED_OBJECTS=1"), "models", NULL);
    assert_int_equal(r->status, 0);
    /* the loader did list the objects */
    assert_non_null(strstr(r->out, "libc.so.6"));
    assert_non_null(strstr(r->out, "libsundials_cvode"));
    if (strstr(r->out, "mujoco")) fail_msg("the program loads MuJoCo at start:\n%s", r->out);
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : "stridemap";
    mju_user_error = on_mj_error;
    mju_user_warning = on_mj_warning;
    (void)rigid_mjcf_load; /* the header's loader; this test writes its own files */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_is_unavailable_of_kind_output),
        cmocka_unit_test(biped_imports_as_written),
        cmocka_unit_test(tree3d_imports_as_written),
        cmocka_unit_test(offset_joints_match_mujoco),
        cmocka_unit_test(springs_become_forces),
        cmocka_unit_test(planar_inertia_refused_or_warned),
        cmocka_unit_test(fused_root_is_a_warning),
        cmocka_unit_test(geoms_only_warned_and_matching),
        cmocka_unit_test(unreadable_files),
        cmocka_unit_test(sideways_gravity_refused),
        cmocka_unit_test(loader_reads_back_the_import),
        cmocka_unit_test(cli_yaml_on_stdout_warnings_on_stderr),
        cmocka_unit_test(cli_exit_codes),
        cmocka_unit_test(missing_mujoco_is_unavailable),
        cmocka_unit_test(program_does_not_load_mujoco),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
/* Without MuJoCo the import is unavailable, and says so. */
static void import_unavailable(void **state)
{
    (void)state;
    sm_import *imp = NULL;
    char why[600];
    assert_false(sm_import_available());
    assert_status(sm_import_mjcf(SM_SOURCE_DIR "/tests/data/mjcf/springs.xml", &imp, why, sizeof why),
                  SM_UNAVAILABLE);
    assert_null(imp);
    assert_non_null(strstr(why, "libmujoco-dev"));
    cli_expect_error(cli_run("import", SM_SOURCE_DIR "/tests/data/mjcf/springs.xml", NULL), 69,
                     "stridemap import needs MuJoCo: install libmujoco-dev and rebuild");
}

int main(int argc, char **argv)
{
    cli_exe = argc > 1 ? argv[1] : "stridemap";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_is_unavailable_of_kind_output),
        cmocka_unit_test(import_unavailable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
