/* Body-walker model files (src/body/load.c, docs/body-walkers.md): the
 * files of models/ read into body_file with the counts, names and
 * indices the format defines; expressions against values worked by hand;
 * every refused file of tests/data/body_bad/ at its line and column; the
 * fuzzer's corpus (tests/fuzz/fuzz_body.c). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "src_path.h"
#include "body_check.h"
#include "body_def.h"
#include "expr.h"
#include "stridemap/rigid.h"
#include "stridemap/registry.h"


static const char *write_tmp(const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/stridemap_test_body_load_%d.yaml", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static body_file *body_ok(const char *path)
{
    body_file *f = NULL;
    char why[2048] = "";
    const sm_status st = body_file_load(path, &f, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", path, why);
    assert_non_null(f);
    return f;
}

static int param(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0) return (int)i;
    fail_msg("no parameter %s", name);
    return -1;
}

static int qi(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->nq; i++)
        if (strcmp(f->q_names[i], name) == 0) return (int)i;
    fail_msg("no coordinate %s", name);
    return -1;
}

static void defaults(const body_file *f, double *p)
{
    for (size_t i = 0; i < f->n_params; i++) p[i] = f->params[i].value;
}

static void assert_names(char *const *names, size_t n, const char *const *want, size_t nw)
{
    assert_int_equal(n, nw);
    for (size_t i = 0; i < n; i++) assert_string_equal(names[i], want[i]);
}

static void test_compass(void **state)
{
    body_file *f = body_ok(src_path("models/compass.yaml"));
    assert_string_equal(f->name, "compass_file");
    assert_int_equal(f->n_bodies, 4);
    static const char *const q[] = {"hip_x", "hip_z", "leg_a", "leg_b"};
    static const char *const v[] = {"hip_x_dot", "hip_z_dot", "leg_a_dot", "leg_b_dot"};
    assert_names(f->q_names, f->nq, q, 4);
    assert_names(f->v_names, f->nv, v, 4);
    assert_int_equal(f->bodies[2].joint, SM_RIGID_HINGE);
    assert_int_equal(f->bodies[2].parent, 1);
    assert_true(f->bodies[2].axis[1] == -1);
    assert_int_equal(f->n_sites, 3);
    assert_int_equal(f->n_contacts, 2);
    assert_int_equal(f->contacts[1].kind, SM_CONTACT_PIN);
    assert_int_equal(f->contacts[1].site, 2);
    assert_int_equal(f->n_phases, 1);
    assert_int_equal(f->phases[0].n_contacts, 1);
    assert_int_equal(f->phases[0].n_events, 4); /* the file's 3 and its push's (added last) */
    assert_int_equal(f->phases[0].events[3].when, BODY_WHEN_PUSH);
    assert_int_equal(f->phases[0].events[3].next_phase, 0);
    const body_event *hs = &f->phases[0].events[0];
    assert_int_equal(hs->when, BODY_WHEN_GAP);
    assert_int_equal(hs->target, 1);
    assert_int_equal(hs->direction, 0);
    assert_int_equal(hs->n_guards, 2);
    assert_true(hs->impact && hs->relabel);
    assert_int_equal(hs->outcome, SM_EVENT_SECTION);
    assert_int_equal(f->phases[0].events[1].failure, SM_FELL_BACKWARD);
    assert_int_equal(f->phases[0].events[1].when, BODY_WHEN_RATE);
    assert_int_equal(f->phases[0].events[1].direction, 1);
    assert_int_equal(f->phases[0].events[2].failure, SM_FELL_FORWARD);
    /* the section: after heel-strike; free leg_a, leg_a_dot, leg_b_dot */
    assert_int_equal(f->section_event_phase, 0);
    assert_int_equal(f->section_event, 0);
    assert_int_equal(f->n_touching, 2);
    assert_int_equal(f->origin, 0);
    assert_int_equal(f->n_free, 3);
    assert_int_equal(f->free_index[0], 2);
    assert_int_equal(f->free_index[1], 4 + 2);
    assert_int_equal(f->free_index[2], 4 + 3);
    /* the swap of the legs, for positions and rates alike */
    const int perm[4] = {0, 1, 3, 2};
    assert_true(f->has_relabel);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(f->qperm[i], perm[i]);
        assert_int_equal(f->vperm[i], perm[i]);
        assert_true(f->qsign[i] == 1 && f->vsign[i] == 1);
    }
    /* literal numbers are parameters by dotted path; leg_b shares leg_a's */
    double p[SM_MAX_PARAMS];
    defaults(f, p);
    const int m = param(f, "bodies.leg_a.mass");
    assert_close(p[m], 5, 0);
    assert_close(p[param(f, "bodies.hip_z.mass")], 10, 0);
    assert_close(p[param(f, "sites.foot_a.pos.z")], -1, 0);
    assert_close(body_num_eval(&f->gravity, p), 9.81, 0);
    assert_close(body_num_eval(&f->slope, p), M_PI / 60, 1e-16);
    assert_int_equal(f->bodies[3].mass.param, m);
    p[m] = 7.5;
    assert_close(body_num_eval(&f->bodies[3].mass, p), 7.5, 0);
    /* the heel-strike guard: 2 % of the leg, -0.02 * foot z */
    assert_close(body_num_eval(&hs->guards[0].value, p), 0.02, 1e-17);
    p[param(f, "sites.foot_a.pos.z")] = -0.5;
    assert_close(body_num_eval(&hs->guards[0].value, p), 0.01, 1e-17);
    /* absent fields are zero, not parameters */
    assert_int_equal(f->bodies[0].mass.param, -1);
    assert_null(f->bodies[0].mass.expr);
    assert_close(body_num_eval(&f->bodies[0].mass, p), 0, 0);
    assert_close(f->guess[qi(f, "leg_a")], 0.271, 0);
    assert_close(f->guess[4 + qi(f, "leg_a")], -1.092, 0);
    assert_close(f->time_limit, 10, 0);
    assert_int_equal(f->clearance_contact, 1);
    assert_int_equal(f->hip_site, 0);
    body_file_free(f);
}

static void test_compass_round_spring(void **state)
{
    body_file *f = body_ok(src_path("models/compass_round_spring.yaml"));
    assert_int_equal(f->nq, 4);
    assert_int_equal(f->nv, 4);
    assert_int_equal(f->n_contacts, 2);
    assert_int_equal(f->contacts[0].kind, SM_CONTACT_ROLL);
    double p[SM_MAX_PARAMS];
    defaults(f, p);
    assert_close(body_num_eval(&f->contacts[1].radius, p), 0.2, 0);
    assert_int_equal(f->n_forces, 1);
    const body_force *s = &f->forces[0];
    assert_int_equal(s->n, 2);
    assert_int_equal(s->body[0], 3); /* leg_b, +1: s = swing - stance */
    assert_close(s->coef[0], 1, 0);
    assert_int_equal(s->body[1], 2);
    assert_close(s->coef[1], -1, 0);
    assert_close(p[param(f, "forces.hip_spring.stiffness")], 5, 0);
    assert_close(p[param(f, "forces.hip_spring.damping")], 0.05, 0);
    assert_close(body_num_eval(&s->rest, p), 0, 0);
    /* 2 % of the leg: (0.2 + 0.8) * 0.02 */
    assert_close(body_num_eval(&f->phases[0].events[0].guards[0].value, p), 0.02, 1e-17);
    assert_int_equal(f->n_free, 3);
    body_file_free(f);
}

static void test_kneed_mcgeer(void **state)
{
    body_file *f = body_ok(src_path("models/kneed_mcgeer.yaml"));
    assert_int_equal(f->n_bodies, 6);
    static const char *const q[] = {"hip_x", "hip_z", "thigh_a", "shank_a", "thigh_b", "shank_b"};
    assert_names(f->q_names, f->nq, q, 6);
    assert_int_equal(f->nv, 6);
    assert_int_equal(f->bodies[3].parent, 2);
    assert_int_equal(f->n_contacts, 4);
    assert_int_equal(f->contacts[2].kind, SM_CONTACT_LOCK);
    assert_int_equal(f->contacts[2].body, 3);
    assert_int_equal(f->contacts[3].body, 5);
    assert_int_equal(f->n_phases, 2);
    assert_int_equal(f->phases[0].n_contacts, 2);
    assert_int_equal(f->phases[1].n_contacts, 3);
    assert_int_equal(f->phases[0].n_events, 7); /* the file's 6 and 5, and the push's event in each */
    assert_int_equal(f->phases[1].n_events, 6);
    assert_int_equal(f->phases[1].events[5].when, BODY_WHEN_PUSH);
    assert_int_equal(f->phases[1].events[5].next_phase, 1);
    assert_int_equal(f->phases[0].events[0].outcome, SM_EVENT_TO_PHASE);
    assert_int_equal(f->phases[0].events[0].next_phase, 1);
    assert_int_equal(f->phases[0].events[1].failure, SM_EVENT_ORDER);
    assert_int_equal(f->phases[0].events[2].failure, SM_SCUFFED);
    assert_int_equal(f->phases[0].events[5].when, BODY_WHEN_FORCE);
    assert_int_equal(f->phases[0].events[5].failure, SM_KNEE_UNLOCKED);
    assert_int_equal(f->section_event_phase, 1);
    assert_int_equal(f->section_event, 0);
    assert_int_equal(f->n_touching, 4);
    assert_int_equal(f->n_free, 4);
    const size_t fi[4] = {2, 6 + 2, 6 + 4, 6 + 5};
    for (int i = 0; i < 4; i++) assert_int_equal(f->free_index[i], fi[i]);
    const int perm[6] = {0, 1, 4, 5, 2, 3};
    for (int i = 0; i < 6; i++) assert_int_equal(f->qperm[i], perm[i]);
    double p[SM_MAX_PARAMS];
    defaults(f, p);
    /* inertia: m r^2 of Garcia's Table 2.1 (thigh) */
    assert_close(body_num_eval(&f->bodies[2].inertia[1], p), 2.3451 * 0.0992 * 0.0992, 1e-16);
    assert_close(body_num_eval(&f->bodies[4].inertia[1], p), 2.3451 * 0.0992 * 0.0992, 1e-16);
    assert_close(body_num_eval(&f->bodies[5].inertia[1], p), 0.4 * 0.1 * 0.1, 1e-17);
    assert_close(body_num_eval(&f->bodies[5].pos[2], p), -0.35, 0);
    assert_string_equal(f->params[param(f, "thigh_gyration")].unit, "m");
    /* the guard is 2 % of the 0.8 m leg */
    assert_close(body_num_eval(&f->phases[1].events[0].guards[0].value, p), 0.016, 1e-17);
    /* the old linkage format's shank_dot -2.15730642975 as the knee's flexion rate */
    assert_close(f->guess[6 + 5], 0.10545027942 + 2.15730642975, 1e-11);
    body_file_free(f);
}

/* Chen's heel-strike: the impulse acts on a list of contacts (the new
 * stance foot and both knees held), not on the next phase's set, which
 * releases the new swing knee; the other events keep impact: true. */
static void test_impact_list(void **state)
{
    body_file *f = body_ok(src_path("models/kneed_hsu.yaml"));
    assert_int_equal(f->n_phases, 2);
    const body_event *hs = &f->phases[1].events[0];
    assert_string_equal(hs->name, "heelstrike");
    assert_true(hs->impact && hs->relabel);
    assert_int_equal(hs->n_impact, 3);
    static const char *const names[] = {"foot_a", "knee_a", "knee_b"};
    for (size_t i = 0; i < 3; i++) assert_string_equal(f->contacts[hs->impact_contacts[i]].name, names[i]);
    /* the next phase (knee_free) keeps only the stance knee locked */
    assert_int_equal(f->phases[0].n_contacts, 2);
    const body_event *ks = &f->phases[0].events[0];
    assert_true(ks->impact);
    assert_int_equal(ks->n_impact, 0);
    /* the stance knee is locked by assumption: no knee_unlocked event */
    for (size_t ph = 0; ph < f->n_phases; ph++)
        for (size_t i = 0; i < f->phases[ph].n_events; i++)
            assert_int_not_equal(f->phases[ph].events[i].failure, SM_KNEE_UNLOCKED);
    body_file_free(f);
}

/* Expressions: precedence, associativity and functions against the values
 * worked out by hand. */
static void test_expressions(void **state)
{
    const char *const names[] = {"a", "b", "leg.len"};
    const double p[] = {3, -2, 0.8};
    struct {
        const char *text;
        double want;
    } cases[] = {
        {"1 + 2 * 3", 7},
        {"(1 + 2) * 3", 9},
        {"-2^2", -4},
        {"2^3^2", 512},
        {"a - b - 1", 4},
        {"a / b / 3", -0.5},
        {"-leg.len/2", -0.4},
        {"sqrt(a*a + b*b)", sqrt(13)},
        {"atan2(1, -1)", 3 * M_PI / 4},
        {"2 * pi", 2 * M_PI},
        {"sin(pi/6) + cos(0) + tan(0)", 1.5},
        {"--a", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        body_num n;
        body_expr *list = NULL;
        char err[200];
        size_t off;
        if (body_num_compile(cases[i].text, names, 3, &n, &list, err, sizeof err, &off) != 0)
            fail_msg("%s: %s", cases[i].text, err);
        if (fabs(body_num_eval(&n, p) - cases[i].want) > 1e-15)
            fail_msg("%s = %.17g, want %.17g", cases[i].text, body_num_eval(&n, p), cases[i].want);
        body_expr_free_list(list);
    }
    /* a lone name is the parameter itself, no program */
    body_num n;
    body_expr *list = NULL;
    char err[200];
    size_t off = 99;
    assert_int_equal(body_num_compile("b", names, 3, &n, &list, err, sizeof err, &off), 0);
    assert_int_equal(n.param, 1);
    assert_null(list);
    /* an unknown name: its offset and the name */
    assert_int_equal(body_num_compile("2 * leg_lenght", names, 3, &n, &list, err, sizeof err, &off), -1);
    assert_int_equal(off, 4);
    assert_non_null(strstr(err, "'leg_lenght'"));
    assert_int_equal(body_num_compile("(((1)", names, 3, &n, &list, err, sizeof err, &off), -1);
    assert_int_equal(body_num_compile("1 +", names, 3, &n, &list, err, sizeof err, &off), -1);
    assert_int_equal(body_num_compile("atan2(1)", names, 3, &n, &list, err, sizeof err, &off), -1);
    assert_null(list);
}

/* A file's field -leg_length/2 follows the parameter; joint: planar makes
 * NAME.x, NAME.z and NAME. */
static void test_expression_in_file(void **state)
{
    const char *path = write_tmp(
        "gravity: 9.81\n"
        "slope: 0\n"
        "parameters:\n"
        "  leg_length: {value: 1.2, min: 0.1, max: 3, unit: m, description: hip to foot}\n"
        "  spare: 2\n"
        "bodies:\n"
        "  - {name: torso, parent: world, joint: planar, mass: 3, inertia: [0, 0.1, 0]}\n"
        "  - {name: leg, parent: torso, joint: hinge, axis: [0, 1, 0], mass: 1, com: [0, 0, -leg_length/2]}\n"
        "sites:\n"
        "  - {name: foot, body: leg, pos: [0, 0, -leg_length]}\n"
        "contacts:\n"
        "  - {name: foot, type: pin, site: foot}\n"
        "phases:\n"
        "  - name: stand\n"
        "    contacts: [foot]\n"
        "    events:\n"
        "      - {name: up, when: {coord: leg, value: 0.5, crosses: up}, then: section}\n"
        "section: {after: up, touching: [foot], origin: foot, free: [torso, leg, torso_dot, leg_dot]}\n");
    body_file *f = body_ok(path);
    unlink(path);
    static const char *const q[] = {"torso.x", "torso.z", "torso", "leg"};
    static const char *const v[] = {"torso.x_dot", "torso.z_dot", "torso_dot", "leg_dot"};
    assert_names(f->q_names, f->nq, q, 4);
    assert_names(f->v_names, f->nv, v, 4);
    assert_int_equal(f->n_bodies, 4);
    assert_string_equal(f->bodies[0].name, "torso.x");
    assert_int_equal(f->bodies[0].joint, SM_RIGID_SLIDE);
    assert_true(f->bodies[0].axis[0] == 1);
    assert_true(f->bodies[1].axis[2] == 1 && f->bodies[1].parent == 0);
    assert_true(f->bodies[2].axis[1] == 1 && f->bodies[2].parent == 1);
    assert_int_equal(f->bodies[3].parent, 2);
    const int L = param(f, "leg_length");
    assert_close(f->params[L].min, 0.1, 0);
    assert_close(f->params[L].max, 3, 0);
    assert_true(isinf(f->params[param(f, "spare")].max));
    double p[SM_MAX_PARAMS];
    defaults(f, p);
    assert_close(body_num_eval(&f->bodies[3].com[2], p), -0.6, 1e-16);
    p[L] = 0.9;
    assert_close(body_num_eval(&f->bodies[3].com[2], p), -0.45, 1e-16);
    assert_close(body_num_eval(&f->sites[0].pos[2], p), -0.9, 0);
    assert_close(body_num_eval(&f->phases[0].events[0].value, p), 0.5, 0);
    assert_int_equal(param(f, "phases.stand.up.value"), (int)f->phases[0].events[0].value.param);
    assert_close(p[param(f, "bodies.torso.mass")], 3, 0);
    body_file_free(f);
}

/* Every file of tests/data/body_bad/ has one defect: refused with
 * SM_BAD_MODEL_FILE (SM_NO_MEMORY never), one line "path:LINE:COL: ..." at
 * the offending key or value (positions counted in the files by hand; 0:
 * libyaml's own syntax error, position not pinned) and words naming it. */
static void test_bad_files(void **state)
{
    static const struct {
        const char *file;
        int line, col;
        const char *says;
    } cases[] = {
        {"unknown_key", 12, 5, "unknown key 'masss'"},
        {"wrong_type", 20, 8, "must be a list"},
        {"contact_no_site", 26, 37, "names no site ('toe_b')"},
        {"parent_missing", 15, 13, "which is no body"},
        {"parent_later", 9, 13, "comes later"},
        {"no_way_out", 40, 5, "no way out"},
        {"loop_no_way_out", 28, 5, "no way out"},
        {"then_unknown", 39, 15, "names no phase"},
        {"fail_unknown", 39, 15, "no walker status"},
        {"relabel_twice", 40, 43, "swapped twice"},
        {"relabel_kinds", 40, 18, "different kinds"},
        {"relabel_self", 40, 26, "with itself"},
        {"after_not_section", 42, 10, "does not end the stride"},
        {"after_unknown", 42, 10, "names no event"},
        {"free_unknown", 45, 17, "is no coordinate or rate"},
        {"count_q", 45, 3, "2 positions are not free but touching and origin give 3 equations"},
        {"count_v", 45, 3, "3 rates are not free but the contacts of phase 'swing' give 2"},
        {"unknown_param", 18, 17, "unknown name 'leg_mass'"},
        {"event_force_absent", 38, 23, "does not have"},
        {"guard_force_absent", 33, 61, "does not have"},
        {"no_relabel_table", 35, 18, "no relabel: table"},
        {"mass_negative", 12, 11, "bodies.leg_a.mass must lie in [0, 1e+06], not -5"},
        {"radius_zero", 26, 54, "contacts.foot_b.radius must lie in"},
        {"guess_unknown", 46, 9, "is no coordinate or rate"},
        {"inertia_count", 14, 14, "3 entries"},
        {"second_document", 46, 1, "a second YAML document"},
        {"alias", 5, 13, "an alias"},
        {"syntax", 0, 0, "not valid YAML"},
        {"outcome_both", 37, 9, "one outcome"},
        {"joint_unknown", 10, 12, "unknown joint 'hnige'"},
        {"lock_ball", 11, 37, "not a 1-DOF"},
        {"force_ball", 8, 25, "not a 1-DOF"},
        {"relabel_ball_hinge", 14, 18, "different kinds"},
        {"too_many_coords", 4, 1, "more than 64 entries"},
        {"too_many_rows", 48, 5, "38 constraint rows, more than 36"},
        {"too_many_bodies", 18, 12, "more than 40 bodies"},
        {"impact_unknown", 34, 26, "the impact of event 'heelstrike' names no contact ('toe_b')"},
        {"impact_twice", 34, 26, "lists contact 'foot_a' twice in impact"},
        {"impact_empty", 34, 17, "impact: [] names no contact"},
        {"strike_on_fail", 40, 15, "impact, relabel and strike do nothing there"},
        {"strike_not_bool", 36, 17, "strike must be true or false"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char rel[200], path[1100];
        snprintf(rel, sizeof rel, "tests/data/body_bad/%s.yaml", cases[i].file);
        snprintf(path, sizeof path, "%s", src_path(rel));
        body_file *f = NULL;
        char why[2048] = "";
        const sm_status st = body_file_load(path, &f, why, sizeof why);
        if (st != SM_BAD_MODEL_FILE || f) fail_msg("%s: status %s: %s", cases[i].file, sm_status_name(st), why);
        if (strchr(why, '\n')) fail_msg("%s: more than one line: %s", cases[i].file, why);
        char want[1300];
        if (cases[i].line > 0) snprintf(want, sizeof want, "%s:%d:%d: ", path, cases[i].line, cases[i].col);
        else snprintf(want, sizeof want, "%s:", path);
        if (strncmp(why, want, strlen(want)) != 0) fail_msg("%s: want \"%s...\", got: %s", cases[i].file, want, why);
        if (cases[i].line == 0) {
            int l, c;
            if (sscanf(why + strlen(want), "%d:%d: ", &l, &c) != 2) fail_msg("%s: no line:col: %s", cases[i].file, why);
        }
        if (!strstr(why, cases[i].says)) fail_msg("%s: want \"%s\" in: %s", cases[i].file, cases[i].says, why);
    }
}

/* The registry reads a model file with this loader: its errors at
 * file:line:column come back through sm_registry_open. */
static void test_registry_dispatch(void **state)
{
    const char *path = src_path("tests/data/body_bad/unknown_key.yaml");
    const sm_model *m = NULL;
    char why[2048] = "";
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_BAD_MODEL_FILE);
    assert_null(m);
    char want[1200];
    snprintf(want, sizeof want, "%s:12:5: unknown key 'masss'", path);
    if (strncmp(why, want, strlen(want)) != 0) fail_msg("got: %s", why);
    assert_status(sm_registry_open(src_path("models/compass.yaml"), &m, why, sizeof why), SM_OK);
    sm_registry_close(m);
}

/* The fuzzer's kept corpus (tests/fuzz/fuzz_body.c): every file loads or is
 * refused with one line, and every file that loads is consistent
 * (tests/body_check.h). */
static int corpus_file(const struct dirent *e) { return e->d_name[0] != '.'; }

static void test_fuzz_corpus(void **state)
{
    struct dirent **names = NULL;
    const int n = scandir(src_path("tests/data/body_corpus"), &names, corpus_file, alphasort);
    assert_true(n > 30);
    int loaded = 0;
    for (int i = 0; i < n; i++) {
        char rel[600];
        snprintf(rel, sizeof rel, "tests/data/body_corpus/%s", names[i]->d_name);
        free(names[i]);
        body_file *f = NULL;
        char why[1024] = "";
        const sm_status st = body_file_load(src_path(rel), &f, why, sizeof why);
        if (st != SM_OK) {
            if (f || strchr(why, '\n') || !why[0] || st != SM_BAD_MODEL_FILE)
                fail_msg("%s: %s: %s", rel, sm_status_name(st), why);
            continue;
        }
        loaded++;
        if (!body_file_consistent(f)) fail_msg("%s loads but is not consistent", rel);
        body_file_free(f);
    }
    free(names);
    assert_true(loaded >= 3);
}

/* A pin's rows (docs/body-walkers.md "Contacts"): the file of a foot on its
 * toe line loads, the masked pin counting 2 rows in the section's lift
 * (with 3 the lift's rate count would be short by one, as rows_count.yaml
 * shows), and a bad list is one line at its place. */
static void test_pin_rows(void **state)
{
    (void)state;
    body_file *f = NULL;
    char why[2048] = "";
    const char *path = src_path("tests/data/biped3d/toe_line.yaml");
    if (body_file_load(path, &f, why, sizeof why) != SM_OK) fail_msg("%s", why);
    assert_int_equal(f->n_contacts, 2);
    assert_int_equal(f->contacts[0].rows, 0);
    assert_int_equal(f->contacts[1].rows, SM_ROW_X | SM_ROW_Z);
    body_file_free(f);
    const sm_model *m = NULL;
    assert_status(sm_registry_open(path, &m, why, sizeof why), SM_OK);
    sm_registry_close(m);
    static const struct {
        const char *file;
        int line, col;
        const char *says;
    } cases[] = {
        {"rows_count", 34, 3, "5 rates are not free but the contacts of phase 'rocking' give 6"},
        {"rows_empty", 24, 49, "pin 'toe_r' has no rows"},
        {"rows_word", 24, 53, "row 'w' is none of x, y, z"},
        {"rows_twice", 24, 56, "lists row 'z' twice"},
        {"rows_slide", 24, 54, "unknown key 'rows' in slide contact"},
        {"rows_planar_y", 27, 51, "holds only y, which a planar model does not have"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char rel[200], p2[1100], want[1300];
        snprintf(rel, sizeof rel, "tests/data/biped3d/%s.yaml", cases[i].file);
        snprintf(p2, sizeof p2, "%s", src_path(rel));
        f = NULL;
        why[0] = 0;
        const sm_status st = body_file_load(p2, &f, why, sizeof why);
        if (st != SM_BAD_MODEL_FILE || f) fail_msg("%s: status %s: %s", cases[i].file, sm_status_name(st), why);
        snprintf(want, sizeof want, "%s:%d:%d: ", p2, cases[i].line, cases[i].col);
        if (strncmp(why, want, strlen(want)) != 0) fail_msg("%s: want \"%s...\", got: %s", cases[i].file, want, why);
        if (!strstr(why, cases[i].says) || strchr(why, '\n')) fail_msg("%s: want \"%s\" in: %s", cases[i].file, cases[i].says, why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compass),
        cmocka_unit_test(test_compass_round_spring),
        cmocka_unit_test(test_kneed_mcgeer),
        cmocka_unit_test(test_impact_list),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_expression_in_file),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_registry_dispatch),
        cmocka_unit_test(test_fuzz_corpus),
        cmocka_unit_test(test_pin_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
