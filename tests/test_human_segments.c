/* The nine-segment human's segments from its height and mass
 * (models/human_hu9.yaml, models/human9.yaml; issue 15, item 1): every
 * segment's mass, length, centre of mass and inertia, and the feet's
 * heel, toe joint, toe tip and ankle height, are Winter's fractions
 * (Biomechanics and Motor Control of Human Movement, 2nd ed., 1990,
 * Table 3.1 and Fig. 3.1) of the parameters height and mass, with the
 * files' stated split of the foot; worked here from the table itself, at
 * the files' 1.75 m, 75 kg and at a body set to 1.6 m, 60 kg (what --set
 * does to the parameters).  The segments' masses add up to the body's.
 * The hindfoot's gyration is the files' rounded value, within 2e-4 of
 * Winter's (models/human_hu9.yaml's header). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "src_path.h"
#include "body_def.h"

/* Winter's Table 3.1: mass / M, length / H (Fig. 3.1), centre of mass
 * from the proximal end / length, radius of gyration about it / length */
typedef struct {
    double mass, length, com, gyration;
} winter_row;
static const winter_row HAT = {0.678, 0.818 - 0.530, 0.626, 0.496}; /* trochanter to shoulder, com above the hip */
static const winter_row THIGH = {0.100, 0.530 - 0.285, 0.433, 0.323};
static const winter_row LEG = {0.0465, 0.285 - 0.039, 0.433, 0.302};
/* foot: ankle to the second metatarsal head, the ankle 0.039 H above the
 * sole, the foot 0.152 H long */
static const winter_row FOOT = {0.0145, 0.0, 0.50, 0.475};
static const double ANKLE = 0.039, FOOT_LENGTH = 0.152;
/* the files' split (assumed, stated in their headers): the hindfoot 0.9
 * of the foot's mass, the toe 0.1 with its centre of mass at its middle
 * and gyration 0.3 of its length; heel, toe joint and toe of the foot's
 * length 55 : 155 : 56 */
static const double HIND = 0.9, TOE_COM = 0.5, TOE_GYR = 0.3, HEEL_F = 55.0 / 266, MTP_F = 155.0 / 266,
                    TOE_F = 56.0 / 266;
/* the hindfoot's gyration / H: the files' 0.08046 m at 1.75 m, Winter's
 * 0.475 of the ankle-to-toe-joint line with the ankle rounded to 0.0683 m
 * (checked against the exact line below) */
static const double HIND_GYR = 0.08046 / 1.75;

static const double TOL = 1e-14;

static int param(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0) return (int)i;
    fail_msg("%s: no parameter %s", f->path, name);
    return -1;
}

static const body_body *body(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_bodies; i++)
        if (strcmp(f->bodies[i].name, name) == 0) return &f->bodies[i];
    fail_msg("%s: no body %s", f->path, name);
    return NULL;
}

static const body_site *site(const body_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_sites; i++)
        if (strcmp(f->sites[i].name, name) == 0) return &f->sites[i];
    fail_msg("%s: no site %s", f->path, name);
    return NULL;
}

static void near(double got, double want, const char *what, const char *name)
{
    if (fabs(got - want) > TOL * fmax(1.0, fabs(want)))
        fail_msg("%s of %s: %.17g, Winter's fractions give %.17g", what, name, got, want);
}

/* one body: mass m, com (x, z), pos (x, z) in its parent, I_yy = m r^2 */
static void check_body(const body_file *f, const double *p, const char *name, double m, double cx, double cz,
                       double px, double pz, double r)
{
    const body_body *b = body(f, name);
    near(body_num_eval(&b->mass, p), m, "mass", name);
    near(body_num_eval(&b->com[0], p), cx, "com.x", name);
    near(body_num_eval(&b->com[2], p), cz, "com.z", name);
    near(body_num_eval(&b->pos[0], p), px, "pos.x", name);
    near(body_num_eval(&b->pos[2], p), pz, "pos.z", name);
    near(body_num_eval(&b->inertia[1], p), m * r * r, "inertia.iyy", name);
    for (int k = 0; k < 6; k++)
        if (k != 1) near(body_num_eval(&b->inertia[k], p), 0.0, "inertia (not iyy)", name);
}

static void check_site(const body_file *f, const double *p, const char *name, double x, double z)
{
    const body_site *s = site(f, name);
    near(body_num_eval(&s->pos[0], p), x, "pos.x", name);
    near(body_num_eval(&s->pos[2], p), z, "pos.z", name);
}

static void check_segments(const body_file *f, const double *p, double H, double M)
{
    near(p[param(f, "height")], H, "the parameter", "height");
    near(p[param(f, "mass")], M, "the parameter", "mass");
    const double lh = HAT.length * H;
    check_body(f, p, "hat", HAT.mass * M, 0, HAT.com * lh, 0, 0, HAT.gyration * lh);
    const double lt = THIGH.length * H, ll = LEG.length * H, ah = ANKLE * H, fl = FOOT_LENGTH * H;
    const double mtp = MTP_F * fl, toe = TOE_F * fl, heel = HEEL_F * fl;
    /* Winter's foot segment: the ankle to the toe joint; the files'
     * gyration its 0.475 to 1.7e-4 */
    const double lf = hypot(mtp, ah);
    assert_true(fabs(HIND_GYR * H / (FOOT.gyration * lf) - 1) < 2e-4);
    double total = HAT.mass * M;
    for (int leg = 0; leg < 2; leg++) {
        char n[32];
        const char x = leg ? 'b' : 'a';
        snprintf(n, sizeof n, "thigh_%c", x);
        check_body(f, p, n, THIGH.mass * M, 0, -THIGH.com * lt, 0, 0, THIGH.gyration * lt);
        snprintf(n, sizeof n, "shank_%c", x);
        check_body(f, p, n, LEG.mass * M, 0, -LEG.com * ll, 0, -lt, LEG.gyration * ll);
        snprintf(n, sizeof n, "foot_%c", x);
        check_body(f, p, n, HIND * FOOT.mass * M, FOOT.com * mtp, -FOOT.com * ah, 0, -ll, HIND_GYR * H);
        snprintf(n, sizeof n, "toe_%c", x);
        check_body(f, p, n, (1 - HIND) * FOOT.mass * M, TOE_COM * toe, 0, mtp, -ah, TOE_GYR * toe);
        snprintf(n, sizeof n, "heel_%c", x);
        check_site(f, p, n, -heel, -ah);
        snprintf(n, sizeof n, "tip_%c", x);
        check_site(f, p, n, toe, 0);
        total += (THIGH.mass + LEG.mass + FOOT.mass) * M;
    }
    /* the foot's length is Winter's, heel to tip */
    near(heel + mtp + toe, FOOT_LENGTH * H, "heel to toe tip", "foot");
    /* the segments carry the whole body (the clock's point aside) */
    double sum = 0;
    for (size_t i = 0; i < f->n_bodies; i++)
        if (strcmp(f->bodies[i].name, "clock") != 0) sum += body_num_eval(&f->bodies[i].mass, p);
    near(sum, M, "the segments' masses", "the body");
    near(total, M, "Winter's fractions", "the body");
}

static void check_file(const char *rel)
{
    body_file *f = NULL;
    char why[2048] = "";
    if (body_file_load(src_path(rel), &f, why, sizeof why) != SM_OK) fail_msg("%s: %s", rel, why);
    double p[SM_MAX_PARAMS];
    for (size_t i = 0; i < f->n_params; i++) p[i] = f->params[i].value;
    check_segments(f, p, 1.75, 75.0);
    p[param(f, "height")] = 1.6;
    p[param(f, "mass")] = 60.0;
    check_segments(f, p, 1.6, 60.0);
    body_file_free(f);
}

static void test_human_hu9(void **state)
{
    (void)state;
    check_file("models/human_hu9.yaml");
}

static void test_human9(void **state)
{
    (void)state;
    check_file("models/human9.yaml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_human_hu9),
        cmocka_unit_test(test_human9),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
