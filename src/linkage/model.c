/* A walker read from a file, as an sm_model: phases, events, section.
 *
 * Straight legs: one phase, "swing", ended by heel-strike.  The swing foot
 * of a straight-legged walker passes below the ground at mid-stance (the
 * scuff every such model ignores), so heel-strike is the swing foot's
 * height crossing zero in either direction, counted only when the hip is
 * ahead of the stance contact point (which rejects the start of the step)
 * and the swing foot is ahead of the stance foot by more than 2% of the leg
 * (which rejects the scuff, where the feet pass each other).
 *
 * Knees: "knee_free" (3 degrees of freedom) ends at knee-strike (the swing
 * knee straightening, falling through zero), then "knee_locked" (2) ends at
 * heel-strike (the swing foot coming down, with the guards above).  At the
 * start of the step the straight swing knee locks at once only if it is
 * pushed into its stop; one pulled into flexion stays free whatever the
 * sign of its rate (knee_strike_guard).  In both
 * the stance knee must stay locked: its locking torque falling through zero
 * (or negative from the start) ends the stride with SM_KNEE_UNLOCKED, unless
 * the file says knee: {assume_locked: true}; the swing foot reaching the ground
 * ahead of the stance foot before knee-strike ends it with SM_EVENT_ORDER,
 * and passing below the ground anywhere else (behind or beside the stance
 * foot, in either phase) with SM_SCUFFED.
 *
 * phases: [knee_free] (the knee never locks): one phase, "knee_free", ended
 * by heel-strike with the guards above, the swing knee bent or not; the new
 * stance knee stays locked at that bend (the state's stance_bend, rate 0).
 * Its section's free coordinates are the stance and thigh angles, the
 * stance bend and the three rates; lift() turns the trailing shank, from
 * straight, until its foot is on the ground.
 *
 * Both: the stance leg rolling back (its rate rising through zero) is
 * SM_FELL_BACKWARD; the hip reaching the slope is SM_FELL_FORWARD.
 *
 * Poincare section: just after heel-strike, with the trailing foot on the
 * ground; free coordinates: the stance angle and every rate.  lift() puts
 * the swing leg (straight, knee locked) where its foot touches the ground,
 * behind the stance foot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

int lk_impact(const sm_linkage *lk, const double *p, sm_linkage_impact kind, const double *xm, double *xp);
void lk_hip(const sm_linkage *lk, const double *p, const double *x, double hip[2]);
int lk_ground_reaction(const sm_linkage *lk, const double *p, size_t phase, const double *x, double R[2]);
void lk_momentum(const sm_linkage *lk, const double *p, const double *x, double P[2]);

static double leg_length(const sm_linkage *lk, const double *p)
{
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    return v.link[0].length + (lk->n_links == 2 ? v.link[1].length : 0.0);
}

static int rhs_phase(size_t phase, const double *x, double *xd, const double *p, const sm_linkage *lk)
{
    const size_t n = lk->n_dof;
    double acc[LK_MAX_ANGLES];
    if (sm_linkage_accel(lk, p, phase, x, acc) != 0) return -1;
    for (size_t i = 0; i < n; i++) {
        xd[i] = x[n + i];
        xd[n + i] = acc[i];
    }
    if (n == 3 && phase == 1) xd[2] = x[4]; /* the locked shank turns with the thigh */
    return 0;
}

static int rhs0(double t, const double *x, double *xd, const double *p, const void *data)
{
    return rhs_phase(0, x, xd, p, data);
}

static int rhs1(double t, const double *x, double *xd, const double *p, const void *data)
{
    return rhs_phase(1, x, xd, p, data);
}

static double foot_height(double t, const double *x, const double *p, const void *data)
{
    double h;
    sm_linkage_swing_foot(data, p, x, &h, NULL);
    return h;
}

/* Every step starts exactly on the heel-strike surface (the trailing foot on
 * the ground) and with the swing knee straight.  CVODE refuses a root at
 * and very near its initial time, so these event functions start raised by
 * a ramp that vanishes after START_TAU; a crossing it causes is a real one
 * or is rejected by the guards (knee_strike_guard below). */
#define START_TAU 1e-9

static double start_ramp(double t) { return t < START_TAU ? 1e-6 * (START_TAU - t) / START_TAU : 0.0; }

static double foot_event(double t, const double *x, const double *p, const void *data)
{
    return foot_height(t, x, p, data) + start_ramp(t);
}

static bool strike_guard(double t, const double *x, const double *p, const void *data)
{
    const sm_linkage *lk = data;
    double ahead, hip[2];
    sm_linkage_swing_foot(lk, p, x, NULL, &ahead);
    lk_hip(lk, p, x, hip);
    return hip[0] > 0 && ahead > 0.02 * leg_length(lk, p);
}

/* Knees that lock at a stop (phases [knee_free, knee_locked]) are there to
 * lift the swing foot: its passing below the ground anywhere but at
 * heel-strike is a scuff (SM_SCUFFED), not the mid-stance crossing that
 * straight legs ignore.  phases: [knee_free] (no stop) keeps the straight
 * legs' rule. */
static bool scuff_guard(double t, const double *x, const double *p, const void *data)
{
    return !strike_guard(t, x, p, data);
}

static double lock0(double t, const double *x, const double *p, const void *data);

static double knee_flexion(double t, const double *x, const double *p, const void *data)
{
    return x[1] - x[2] + start_ramp(t);
}

/* The swing knee's flexion acceleration with the knee free. */
static double knee_flexion_accel(const sm_linkage *lk, const double *p, const double *x)
{
    double acc[LK_MAX_ANGLES];
    if (sm_linkage_accel(lk, p, 0, x, acc) != 0) return NAN;
    return acc[1] - acc[2];
}

/* A knee-strike at the start of the step (the knee straight, its rate
 * bending it backwards, or at rest) locks the knee only if the knee is
 * pushed into its stop (flexion acceleration <= 0).  A knee pulled into
 * flexion stays free whatever the sign of its rate: with rate -r it
 * overshoots the stop by r^2 / (2a) for 2r/a seconds, which the step
 * ignores.  Deciding by the rate's sign would make the stride map jump
 * between a swing with the knee locked throughout and a kneed swing as the
 * rate passes through zero, which is where a walker whose heel-strike holds
 * the knee (knee: {hold_at_heelstrike: true}) starts every step; CVODE sees
 * such a short overshoot or not depending on its first step, so the jump
 * also moved with the tolerance.  Later crossings are real knee-strikes. */
static bool knee_strike_guard(double t, const double *x, const double *p, const void *data)
{
    return t > 2 * START_TAU || !(knee_flexion_accel(data, p, x) > 0);
}

static double stance_rate(double t, const double *x, const double *p, const void *data)
{
    const sm_linkage *lk = data;
    return x[lk->n_dof];
}

static double hip_height(double t, const double *x, const double *p, const void *data)
{
    double hip[2];
    lk_hip(data, p, x, hip);
    return hip[1];
}

/* The stance knee's locking torque; at the very start of the stride it is
 * raised by a ramp that vanishes after 1e-9 s, so a torque that is already
 * negative just after heel-strike is a crossing too. */
static double lock0(double t, const double *x, const double *p, const void *data)
{
    const double tau0 = 1e-9;
    const double ramp = t < tau0 ? 1e9 * (tau0 - t) / tau0 : 0.0;
    return sm_linkage_knee_lock_torque(data, p, 0, x) + ramp;
}

static double lock1(double t, const double *x, const double *p, const void *data)
{
    return sm_linkage_knee_lock_torque(data, p, 1, x);
}

static int heelstrike(const double *xm, double *xp, const double *p, const void *data)
{
    return lk_impact(data, p, SM_LINKAGE_HEELSTRIKE, xm, xp);
}

static int kneestrike(const double *xm, double *xp, const double *p, const void *data)
{
    return lk_impact(data, p, SM_LINKAGE_KNEESTRIKE, xm, xp);
}

/* phases: [knee_free]: keeps the swing thigh and turns the swing shank,
 * from straight, until its foot touches the ground; the stance knee's bend
 * does not change through a step (rate 0). */
static void lift_shank(double *x, const double *p, const void *data)
{
    double y[2 * LK_MAX_ANGLES];
    memcpy(y, x, sizeof y);
    double s = x[1];
    for (int it = 0; it < 50; it++) {
        y[2] = s;
        const double h = foot_height(0, y, p, data);
        const double e = 1e-7;
        y[2] = s + e;
        const double dh = (foot_height(0, y, p, data) - h) / e;
        if (!(fabs(dh) > 1e-300)) break;
        const double ds = -h / dh;
        s += ds;
        if (fabs(ds) < 1e-15) break;
    }
    x[2] = s;
    x[7] = 0.0;
}

/* Puts the (straight) swing leg where its foot touches the ground behind.
 * With locked knees (n_dof 2) the state has no shank angle. */
static void lift_straight(double *x, const double *p, const void *data)
{
    const sm_linkage *lk = data;
    double y[2 * LK_MAX_ANGLES];
    memcpy(y, x, sizeof(double) * 2 * lk->n_dof);
    double s = -x[0];
    for (int it = 0; it < 50; it++) {
        y[1] = s;
        if (lk->n_dof >= 3) y[2] = s;
        const double h = foot_height(0, y, p, data);
        const double e = 1e-7;
        y[1] = s + e;
        if (lk->n_dof >= 3) y[2] = s + e;
        const double dh = (foot_height(0, y, p, data) - h) / e;
        if (!(fabs(dh) > 1e-300)) break;
        const double ds = -h / dh;
        s += ds;
        if (fabs(ds) < 1e-15) break;
    }
    x[1] = s;
    if (lk->n_dof >= 3) x[2] = s;
}

static void lift(double *x, const double *p, const void *data)
{
    const sm_linkage *lk = data;
    if (lk->n_dof == 4) lift_shank(x, p, data);
    else lift_straight(x, p, data);
}

static void guess(double *x, const double *p, const void *data)
{
    const sm_linkage *lk = data;
    const size_t n = lk->n_dof;
    if (lk->have_guess) {
        memcpy(x, lk->guess, sizeof(double) * 2 * n);
    } else {
        memset(x, 0, sizeof(double) * 2 * n);
        x[0] = 0.2;
        x[n] = -1.0;
        x[n + 1] = n >= 3 ? 0.0 : -0.5;
    }
    lift_straight(x, p, data); /* the trailing leg starts straight */
}

static double time_limit(const double *p, const void *data)
{
    const sm_linkage *lk = data;
    return lk->time_limit;
}

static double kinetic(const double *x, const double *p, const void *data) { return sm_linkage_kinetic(data, p, x); }

static double potential(const double *x, const double *p, const void *data)
{
    return sm_linkage_potential(data, p, x);
}

static double step_length(const double *x, const double *p, const void *data)
{
    double ahead;
    sm_linkage_swing_foot(data, p, x, NULL, &ahead);
    return ahead;
}

static double clearance(const double *x, const double *p, const void *data) { return foot_height(0, x, p, data); }

/* Straight legs pass below the ground at mid-stance (the scuff every such
 * model ignores); knees lift the foot, so every sample counts. */
static bool scuff_window(const double *x, const double *p, const void *data)
{
    return clearance(x, p, data) < 0.0;
}

/* The phase a state belongs to: knee free unless the swing knee is straight
 * and turning with the thigh. */
static size_t phase_of(const sm_linkage *lk, const double *x)
{
    return lk->n_dof == 3 && x[1] == x[2] && x[4] == x[5] ? 1 : 0; /* n_dof 4: one phase */
}

static void ground_reaction(double t, const double *x, const double *p, const void *data, double R[2])
{
    const sm_linkage *lk = data;
    if (lk_ground_reaction(lk, p, phase_of(lk, x), x, R) != 0) R[0] = R[1] = NAN;
}

static void momentum(const double *x, const double *p, const void *data, double P[2]) { lk_momentum(data, p, x, P); }

static double weight(const double *p, const void *data)
{
    const sm_linkage *lk = data;
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    double total = v.hip_mass;
    for (size_t i = 0; i < lk->n_links; i++) total += 2 * v.link[i].mass;
    return total * v.gravity;
}

static bool check_params(const double *p, const void *data, char *why, size_t why_len)
{
    const sm_linkage *lk = data;
    sm_linkage_values v;
    sm_linkage_values_from(lk, p, &v);
    const double low = v.link[lk->n_links - 1].length;
    if (v.foot_radius >= low) {
        snprintf(why, why_len, "foot.radius (%g) must be less than the lowest link's length (%g)", v.foot_radius,
                 low);
        return false;
    }
    double total = v.hip_mass;
    for (size_t i = 0; i < lk->n_links; i++) total += v.link[i].mass;
    if (!(total > 0)) {
        snprintf(why, why_len, "the walker has no mass: give a link or the hip a positive mass");
        return false;
    }
    return true;
}

static const char *const names2[] = {"stance", "swing", "stance_dot", "swing_dot"};
static const char *const names3[] = {"stance", "thigh", "shank", "stance_dot", "thigh_dot", "shank_dot"};
static const char *const names4[] = {"stance", "thigh", "shank", "stance_bend",
                                     "stance_dot", "thigh_dot", "shank_dot", "stance_bend_dot"};

/* The model is a field of its linkage, so freeing the linkage frees it. */
static void release(const sm_model *m) { sm_linkage_free((sm_linkage *)m->data); }

void lk_build_model(sm_linkage *lk)
{
    sm_model *m = &lk->model;
    memset(m, 0, sizeof *m);
    const size_t n = lk->n_dof;
    m->name = lk->name;
    m->title = lk->title;
    m->reference = lk->reference;
    m->n_state = 2 * n;
    for (size_t i = 0; i < 2 * n; i++) lk->state_names[i] = n == 2 ? names2[i] : n == 3 ? names3[i] : names4[i];
    m->state_names = lk->state_names;
    m->n_params = lk->n_params;
    m->params = lk->params;

    const sm_event rolled = {.name = "rolled_back", .value = stance_rate, .direction = +1,
                             .outcome = SM_EVENT_FAIL, .failure = SM_FELL_BACKWARD};
    const sm_event hipdown = {.name = "hip_down", .value = hip_height, .direction = -1,
                              .outcome = SM_EVENT_FAIL, .failure = SM_FELL_FORWARD};
    const sm_event scuff = {.name = "scuff", .value = foot_event, .direction = -1, .guard = scuff_guard,
                            .outcome = SM_EVENT_FAIL, .failure = SM_SCUFFED};
    if (n == 2) {
        sm_event *e = lk->events[0];
        e[0] = (sm_event){.name = "heelstrike", .value = foot_event, .direction = 0, .guard = strike_guard,
                          .outcome = SM_EVENT_SECTION, .reset = heelstrike};
        e[1] = rolled;
        e[2] = hipdown;
        /* knees locked by the file: the stance knee must hold */
        e[3] = (sm_event){.name = "stance_knee_unlocks", .value = lock0, .direction = -1,
                          .outcome = SM_EVENT_FAIL, .failure = SM_KNEE_UNLOCKED};
        const bool check = lk->n_links == 2 && !lk->assume_locked;
        lk->phases[0] = (sm_phase){.name = "swing", .rhs = rhs0, .n_events = check ? 4 : 3, .events = e};
        m->n_phases = 1;
        lk->free_index[0] = 0;
        lk->free_index[1] = 2;
        lk->free_index[2] = 3;
        m->n_free = 3;
    } else if (n == 4) {
        /* phases: [knee_free]: no knee-strike; heel-strike with the swing
         * knee as it is (bent or not) */
        sm_event *e = lk->events[0];
        e[0] = (sm_event){.name = "heelstrike", .value = foot_event, .direction = -1, .guard = strike_guard,
                          .outcome = SM_EVENT_SECTION, .reset = heelstrike};
        e[1] = rolled;
        e[2] = hipdown;
        e[3] = (sm_event){.name = "stance_knee_unlocks", .value = lock0, .direction = -1,
                          .outcome = SM_EVENT_FAIL, .failure = SM_KNEE_UNLOCKED};
        lk->phases[0] = (sm_phase){.name = "knee_free", .rhs = rhs0, .n_events = lk->assume_locked ? 3 : 4,
                                   .events = e};
        m->n_phases = 1;
        /* free: stance, thigh, the stance bend and the three rates; lift
         * puts the shank's foot on the ground */
        const size_t fi[6] = {0, 1, 3, 4, 5, 6};
        memcpy(lk->free_index, fi, sizeof fi);
        m->n_free = 6;
    } else {
        sm_event *e = lk->events[0];
        e[0] = (sm_event){.name = "kneestrike", .value = knee_flexion, .direction = -1,
                          .guard = knee_strike_guard, .outcome = SM_EVENT_TO_PHASE, .next_phase = 1,
                          .reset = kneestrike};
        e[1] = (sm_event){.name = "foot_down_knee_bent", .value = foot_event, .direction = -1,
                          .guard = strike_guard, .outcome = SM_EVENT_FAIL, .failure = SM_EVENT_ORDER};
        e[2] = scuff;
        e[3] = rolled;
        e[4] = hipdown;
        e[5] = (sm_event){.name = "stance_knee_unlocks", .value = lock0, .direction = -1,
                          .outcome = SM_EVENT_FAIL, .failure = SM_KNEE_UNLOCKED};
        lk->phases[0] = (sm_phase){.name = "knee_free", .rhs = rhs0, .n_events = lk->assume_locked ? 5 : 6,
                                   .events = e};
        e = lk->events[1];
        e[0] = (sm_event){.name = "heelstrike", .value = foot_event, .direction = -1, .guard = strike_guard,
                          .outcome = SM_EVENT_SECTION, .reset = heelstrike};
        e[1] = scuff;
        e[2] = rolled;
        e[3] = hipdown;
        e[4] = (sm_event){.name = "stance_knee_unlocks", .value = lock1, .direction = -1,
                          .outcome = SM_EVENT_FAIL, .failure = SM_KNEE_UNLOCKED};
        lk->phases[1] = (sm_phase){.name = "knee_locked", .rhs = rhs1, .n_events = lk->assume_locked ? 4 : 5,
                                   .events = e};
        m->n_phases = 2;
        for (size_t i = 0; i < 4; i++) lk->free_index[i] = i == 0 ? 0 : 2 + i;
        m->n_free = 4;
    }
    m->phases = lk->phases;
    m->start_phase = 0;
    m->free_index = lk->free_index;
    m->lift = lift;
    m->guess = guess;
    m->time_limit = time_limit;
    m->kinetic_energy = kinetic;
    m->potential_energy = potential;
    m->step_length = step_length;
    m->foot_clearance = clearance;
    m->in_scuff_window = n == 2 ? scuff_window : NULL;
    m->ground_reaction = ground_reaction;
    m->momentum = momentum;
    m->weight = weight;
    m->check_params = check_params;
    sm_linkage_set_extra_measures(m);
    m->data = lk;
    m->release = release;
}

const sm_linkage *sm_linkage_of(const sm_model *m)
{
    if (!m || m->map || m->n_phases == 0 || !m->phases || m->phases[0].rhs != rhs0) return NULL;
    return m->data;
}
