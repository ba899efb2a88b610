/* The impulses a body walker reports per impact (src/body/ground.c:
 * EVENT.CONTACT.impulse, min_normal_impulse, impact_residual), against the
 * jump of the walker's total linear momentum across the same heel-strike
 * (the compass's trailing foot leaves without impulse, so the new stance
 * foot's impulse is the whole jump), and |J v⁺| at round-off; McGeer's
 * walker's impulse on the new stance knee is Garcia's impulsive knee torque,
 * the 0.037 N m s the retired linkage engine reported for this file.
 *
 * The stride's heelstrike_impulse is the momentum jump at the swing foot's
 * strike, which a file marks (strike:) or the loader tells from the impact
 * (src/body/strike.c), whatever the event is called: five_link_trunk's
 * heel-strike renamed 'touchdown' reports the jump measured across it here,
 * and the strike each walker's author called heelstrike is the one found. */
#include "test_util.h"
#include "src_path.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stridemap/fixedpoint.h"
#include "stridemap/registry.h"
#include "stridemap/stride.h"

typedef struct {
    const sm_model *m;
    const double *p;
    double before[2], after[2];
    int seen;
} jump_watch;

static int on_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)t, (void)phase;
    jump_watch *w = ctx;
    if (strcmp(name, "heelstrike") != 0) return 0;
    w->m->momentum(xm, w->p, w->m->data, w->before);
    w->m->momentum(xp, w->p, w->m->data, w->after);
    w->seen++;
    return 0;
}

static double extra(const sm_model *m, const double *values, const char *name)
{
    for (size_t i = 0; i < m->n_extra; i++)
        if (strcmp(m->extra_names[i], name) == 0) return values[i];
    fail_msg("no measure %s", name);
    return NAN;
}

/* The gait of a model file, its extra measures, and the momentum jump at
 * its heel-strike. */
static void gait_of(const char *rel, const sm_model **mo, double *values, jump_watch *w)
{
    char why[1024] = "";
    if (sm_registry_open(src_path(rel), mo, why, sizeof why) != SM_OK) fail_msg("%s", why);
    const sm_model *m = *mo;
    static double p[SM_MAX_PARAMS];
    double x0[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result r;
    assert_status(sm_fixed_point(ws, p, x0, &no, &r), SM_OK);
    assert_status(m->extra_measures(ws, p, r.x, values), SM_OK);
    *w = (jump_watch){.m = m, .p = p};
    sm_observer obs = {.dt = 1.0, .event = on_event, .ctx = w};
    assert_status(sm_stride(ws, p, r.x, y, NULL, &obs), SM_OK);
    assert_int_equal(w->seen, 1);
    sm_workspace_free(ws);
}

static void test_compass_impulse_is_the_momentum_jump(void **state)
{
    (void)state;
    const sm_model *m;
    double v[SM_MAX_EXTRA];
    jump_watch w;
    gait_of("models/compass.yaml", &m, v, &w);
    const double jump_normal = w.after[1] - w.before[1];
    print_message("compass: heel-strike normal impulse %.12g, momentum jump %.12g, |J v+| %.2g\n",
                  extra(m, v, "heelstrike.foot_a.impulse"), jump_normal, extra(m, v, "impact_residual"));
    assert_true(jump_normal > 0);
    assert_close(extra(m, v, "heelstrike.foot_a.impulse"), jump_normal, 1e-10);
    assert_close(extra(m, v, "min_normal_impulse"), jump_normal, 1e-10);
    assert_true(extra(m, v, "impact_residual") < 1e-12);
    sm_registry_close(m);
}

static void test_mcgeer_knee_impulse(void **state)
{
    (void)state;
    const sm_model *m;
    double v[SM_MAX_EXTRA];
    jump_watch w;
    gait_of("models/kneed_mcgeer.yaml", &m, v, &w);
    const double knee = extra(m, v, "heelstrike.knee_a.impulse");
    print_message("kneed_mcgeer: heel-strike impulse on the new stance knee %.10g N m s\n", knee);
    /* the linkage engine's angular-momentum impact gave 0.037 (its file
     * header, to the digits it printed) */
    assert_close(knee, 0.037, 5e-4);
    assert_true(extra(m, v, "impact_residual") < 1e-12);
    sm_registry_close(m);
}

/* |momentum jump| across every event of a stride, by name. */
typedef struct {
    const sm_model *m;
    const double *p;
    size_t n;
    char name[16][32];
    double jump[16];
} jumps;

static int on_each_event(void *ctx, double t, size_t phase, const char *name, const double *xm, const double *xp)
{
    (void)t, (void)phase;
    jumps *j = ctx;
    if (j->n >= 16) return 0;
    double before[2], after[2];
    j->m->momentum(xm, j->p, j->m->data, before);
    j->m->momentum(xp, j->p, j->m->data, after);
    snprintf(j->name[j->n], sizeof j->name[j->n], "%s", name);
    j->jump[j->n++] = hypot(after[0] - before[0], after[1] - before[1]);
    return 0;
}

static double jump_at(const jumps *j, const char *name)
{
    for (size_t i = 0; i < j->n; i++)
        if (strcmp(j->name[i], name) == 0) return j->jump[i];
    fail_msg("the stride had no event %s", name);
    return NAN;
}

/* models/five_link_trunk.yaml with `from` replaced by `to` (once each). */
static const char *five_link_trunk_with(const char *const *from, const char *const *to, size_t n)
{
    static char text[1 << 16], path[64];
    FILE *f = fopen(src_path("models/five_link_trunk.yaml"), "r");
    assert_non_null(f);
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    for (size_t i = 0; i < n; i++) {
        char *at = strstr(text, from[i]);
        assert_non_null(at);
        const size_t lf = strlen(from[i]), lt = strlen(to[i]);
        assert_true(strlen(text) - lf + lt < sizeof text);
        memmove(at + lt, at + lf, strlen(at + lf) + 1);
        memcpy(at, to[i], lt);
    }
    snprintf(path, sizeof path, "/tmp/sm_test_strikeXXXXXX.yaml");
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* One stride of a file from its guess: heelstrike_impulse and the jumps. */
static double stride_impulse(const char *path, jumps *j)
{
    const sm_model *m;
    char why[1024] = "";
    if (sm_registry_open(path, &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
    static double p[SM_MAX_PARAMS];
    double x0[SM_MAX_STATE], y[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, 1e-12, SM_METHOD_ADAMS);
    *j = (jumps){.m = m, .p = p};
    sm_observer obs = {.dt = 1.0, .event = on_each_event, .ctx = j};
    sm_step_metrics mt;
    assert_status(sm_stride(ws, p, x0, y, &mt, &obs), SM_OK);
    sm_workspace_free(ws);
    sm_registry_close(m);
    return mt.heelstrike_impulse;
}

/* Five-link trunk: a heel-strike onto the front foot (an impact), then a
 * toe-off that only relabels and ends the stride, with next to no jump.
 * Renamed, the strike is still the strike; strike: false leaves the
 * section's (toe-off's) jump. */
static void test_a_strike_by_any_name(void **state)
{
    (void)state;
    jumps j;
    const double named = stride_impulse(src_path("models/five_link_trunk.yaml"), &j);
    const double heel = jump_at(&j, "heelstrike"), toeoff = jump_at(&j, "toeoff");
    print_message("five_link_trunk: momentum jump %.10g N s at heel-strike, %.2g at toe-off\n", heel, toeoff);
    assert_true(heel > 1 && toeoff < 1e-6);
    assert_close(named, heel, 1e-12 * heel);

    const char *from[] = {"- name: heelstrike"}, *to[] = {"- name: touchdown"};
    const char *path = five_link_trunk_with(from, to, 1);
    const double renamed = stride_impulse(path, &j);
    unlink(path);
    assert_close(jump_at(&j, "touchdown"), heel, 1e-12 * heel);
    assert_close(renamed, heel, 1e-12 * heel);

    const char *from2[] = {"- name: heelstrike", "impact: true\n"},
               *to2[] = {"- name: touchdown", "impact: true\n        strike: false\n"};
    path = five_link_trunk_with(from2, to2, 2);
    const double unmarked = stride_impulse(path, &j);
    unlink(path);
    assert_close(unmarked, jump_at(&j, "toeoff"), 1e-15);
    assert_true(unmarked < 1e-6);
}

/* The strikes found in the files: the events their authors named
 * heelstrike (not a knee-strike, a foot laid flat, nor an impact at
 * toe-off), and none on a wheel whose spokes are one body. */
static void test_strikes_found_are_the_heel_strikes(void **state)
{
    (void)state;
    static const char *const files[][2] = {
        {"models/compass.yaml", "swing/heelstrike"},
        {"models/five_link_trunk.yaml", "single_support/heelstrike"},
        {"models/kneed_hsu.yaml", "knee_locked/heelstrike"},
        {"models/kneed_mcgeer.yaml", "knee_locked/heelstrike"},
        {"models/biped3d.yaml", "toe_rock/heelstrike"},
        {"models/human_hu9.yaml", "ss1/heelstrike ss2/heelstrike"},
        {"models/rimless3d.yaml", ""},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const sm_model *m;
        char why[1024] = "", found[256] = "";
        if (sm_registry_open(src_path(files[i][0]), &m, why, sizeof why) != SM_OK) fail_msg("%s", why);
        for (size_t ph = 0; ph < m->n_phases; ph++)
            for (size_t k = 0; k < m->phases[ph].n_events; k++)
                if (m->phases[ph].events[k].strike) {
                    const size_t l = strlen(found);
                    snprintf(found + l, sizeof found - l, "%s%s/%s", l ? " " : "", m->phases[ph].name,
                             m->phases[ph].events[k].name);
                }
        if (strcmp(found, files[i][1]) != 0) print_error("%s: strikes '%s'\n", files[i][0], found);
        assert_string_equal(found, files[i][1]);
        sm_registry_close(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compass_impulse_is_the_momentum_jump),
        cmocka_unit_test(test_mcgeer_knee_impulse),
        cmocka_unit_test(test_a_strike_by_any_name),
        cmocka_unit_test(test_strikes_found_are_the_heel_strikes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
