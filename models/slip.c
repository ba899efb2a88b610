/* slip: bipedal spring-mass walking.
 *
 * Geyer, Seyfarth & Blickhan (2006), "Compliant leg behaviour explains basic
 * dynamics of walking and running", Proc. R. Soc. B 273:2861-2867.
 *
 * A point mass m on two massless linear springs of rest length L0 and
 * stiffness k, on level ground, gravity g.  The swing leg is held at the
 * angle of attack alpha0 (from the ground, in front of the body) until its
 * foot touches down.  Lossless: the total energy E is conserved, and a
 * parameter.
 *
 * State (x, y, vx, vy, xf): the mass relative to the stance foot (in double
 * support, the trailing foot), its velocity, and xf the leading foot's
 * position relative to the trailing foot (used in double support only).
 *
 * Phases and events (one step, apex to apex):
 *   single_down: from the apex until the swing foot reaches the ground,
 *     y = L0 sin(alpha0) falling -> touch-down, xf := x + L0 cos(alpha0);
 *   double: both springs push,
 *     a = (k/m)(L0/L1 - 1)(x, y) + (k/m)(L0/L2 - 1)(x - xf, y) - (0, g),
 *     L1 = |(x, y)|, L2 = |(x - xf, y)|; toe-off when the trailing spring
 *     is back at rest length, L1 = L0 rising (its force is then zero), and
 *     the coordinates move to the new stance foot, x := x - xf;
 *   single_up: a = (k/m)(L0/L - 1)(x, y) - (0, g) until the apex, vy = 0
 *     falling: the Poincare section.
 * Event order: a stance leg that leaves the ground in single support
 * (flight: running, not walking), a leading leg that leaves before the
 * trailing one, or a touch-down before the apex end the stride with
 * event_order; the body sinking to y = L0/4 or moving backwards is a fall,
 * and in double support (the trailing leg never unloads) no_toeoff.
 *
 * Section: apex, vy = 0.  Free coordinates (x, y, vx); the energy
 * E = m (vx^2 + vy^2)/2 + m g y + k (L0 - L)^2 / 2 is the model's invariant,
 * so the gaits form a family in E and one multiplier is exactly 1.
 *
 * With the defaults (m 80 kg, L0 1 m, k 20 kN/m, alpha0 69 deg) symmetric
 * walking gaits exist for E from below 810 J to about 848 J and are stable
 * from about 835 J up; E = 840 J is the default.
 *
 * Ground reaction on the stance (trailing) foot: the spring's force
 * k (L0 - L1) (x, y) / L1, as (along the ground, normal). */
#include <math.h>

#include "models.h"

enum { X, Y, VX, VY, XF };
enum { M, L0, K, ALPHA0, G, E, ATTACK_ERROR };
enum { SINGLE_DOWN, DOUBLE, SINGLE_UP };

/* The angle of attack of this stride's touch-down. */
static double attack(const double *p) { return p[ALPHA0] + p[ATTACK_ERROR]; }

static double spring(const double *p, double dx, double dy) { return p[K] / p[M] * (p[L0] / hypot(dx, dy) - 1.0); }

static int rhs_single(double t, const double *x, double *xd, const double *p, const void *data)
{
    const double s = spring(p, x[X], x[Y]);
    xd[X] = x[VX], xd[Y] = x[VY];
    xd[VX] = s * x[X];
    xd[VY] = s * x[Y] - p[G];
    xd[XF] = 0.0;
    return 0;
}

static int rhs_double(double t, const double *x, double *xd, const double *p, const void *data)
{
    const double s1 = spring(p, x[X], x[Y]), s2 = spring(p, x[X] - x[XF], x[Y]);
    xd[X] = x[VX], xd[Y] = x[VY];
    xd[VX] = s1 * x[X] + s2 * (x[X] - x[XF]);
    xd[VY] = (s1 + s2) * x[Y] - p[G];
    xd[XF] = 0.0;
    return 0;
}

static double swing_foot_height(double t, const double *x, const double *p, const void *data)
{
    return x[Y] - p[L0] * sin(attack(p));
}

static double stance_stretch(double t, const double *x, const double *p, const void *data)
{
    return hypot(x[X], x[Y]) - p[L0];
}

static double leading_stretch(double t, const double *x, const double *p, const void *data)
{
    return hypot(x[X] - x[XF], x[Y]) - p[L0];
}

static double vertical_speed(double t, const double *x, const double *p, const void *data) { return x[VY]; }
static double forward_speed(double t, const double *x, const double *p, const void *data) { return x[VX]; }
static double sunk(double t, const double *x, const double *p, const void *data) { return x[Y] - 0.25 * p[L0]; }

static int touch_down(const double *xm, double *xp, const double *p, const void *data)
{
    for (int i = 0; i < 5; i++) xp[i] = xm[i];
    xp[XF] = xm[X] + p[L0] * cos(attack(p));
    return 0;
}

static int toe_off(const double *xm, double *xp, const double *p, const void *data)
{
    for (int i = 0; i < 5; i++) xp[i] = xm[i];
    xp[X] = xm[X] - xm[XF];
    return 0;
}

static double energy(const double *x, const double *p, const void *data)
{
    const double d = p[L0] - hypot(x[X], x[Y]);
    return 0.5 * p[M] * (x[VX] * x[VX] + x[VY] * x[VY]) + p[M] * p[G] * x[Y] + 0.5 * p[K] * d * d;
}

static double kinetic(const double *x, const double *p, const void *data)
{
    return 0.5 * p[M] * (x[VX] * x[VX] + x[VY] * x[VY]);
}

/* Gravity plus the stance spring (the one the section is on). */
static double potential(const double *x, const double *p, const void *data)
{
    return energy(x, p, data) - kinetic(x, p, data);
}

static void lift(double *x, const double *p, const void *data)
{
    x[VY] = 0.0;
    x[XF] = 0.0;
}

/* At the apex the stance leg is vertical and compressed by a little over
 * half its static deflection; the forward speed follows from the energy. */
static void guess(double *x, const double *p, const void *data)
{
    x[X] = 0.0;
    x[Y] = p[L0] - 0.6 * p[M] * p[G] / p[K];
    const double d = p[L0] - x[Y];
    const double ke = p[E] - p[M] * p[G] * x[Y] - 0.5 * p[K] * d * d;
    x[VX] = ke > 0 ? sqrt(2 * ke / p[M]) : 0.1;
    lift(x, p, data);
}

static void search_box(const double *p, const void *data, double *lo, double *hi)
{
    lo[0] = -0.1 * p[L0], hi[0] = 0.1 * p[L0];
    lo[1] = 0.9 * p[L0], hi[1] = p[L0];
    lo[2] = 0.1, hi[2] = 3.0;
}

static double time_limit(const double *p, const void *data) { return 10.0 * sqrt(p[L0] / p[G]); }

/* xf still holds the distance between the feet set at this step's
 * touch-down when the apex ends the step. */
static double step_length(const double *x, const double *p, const void *data) { return x[XF]; }

static void ground_reaction(double t, size_t phase, const double *x, const double *p, const void *data,
                            double R[2])
{
    const double s = p[M] * spring(p, x[X], x[Y]);
    R[0] = s * x[X];
    R[1] = s * x[Y];
}

static void momentum(const double *x, const double *p, const void *data, double P[2])
{
    P[0] = p[M] * x[VX];
    P[1] = p[M] * x[VY];
}

static double weight(const double *p, const void *data) { return p[M] * p[G]; }

static const sm_event single_down_events[] = {
    {.name = "touchdown", .value = swing_foot_height, .direction = -1, .outcome = SM_EVENT_TO_PHASE,
     .next_phase = DOUBLE, .reset = touch_down},
    {.name = "stance_liftoff", .value = stance_stretch, .direction = +1, .outcome = SM_EVENT_FAIL,
     .failure = SM_EVENT_ORDER},
    {.name = "sunk", .value = sunk, .direction = -1, .outcome = SM_EVENT_FAIL, .failure = SM_FELL_FORWARD},
    {.name = "moving_back", .value = forward_speed, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_BACKWARD},
};

static const sm_event double_events[] = {
    {.name = "toeoff", .value = stance_stretch, .direction = +1, .outcome = SM_EVENT_TO_PHASE,
     .next_phase = SINGLE_UP, .reset = toe_off},
    {.name = "leading_liftoff", .value = leading_stretch, .direction = +1, .outcome = SM_EVENT_FAIL,
     .failure = SM_EVENT_ORDER},
    {.name = "sunk", .value = sunk, .direction = -1, .outcome = SM_EVENT_FAIL, .failure = SM_NO_TOEOFF},
    {.name = "moving_back", .value = forward_speed, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_NO_TOEOFF},
};

static const sm_event single_up_events[] = {
    {.name = "apex", .value = vertical_speed, .direction = -1, .outcome = SM_EVENT_SECTION},
    {.name = "touchdown_before_apex", .value = swing_foot_height, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_EVENT_ORDER},
    {.name = "stance_liftoff", .value = stance_stretch, .direction = +1, .outcome = SM_EVENT_FAIL,
     .failure = SM_EVENT_ORDER},
    {.name = "moving_back", .value = forward_speed, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_BACKWARD},
};

static const sm_phase phases[] = {
    {.name = "single_down", .rhs = rhs_single, .n_events = 4, .events = single_down_events},
    {.name = "double", .rhs = rhs_double, .n_events = 4, .events = double_events},
    {.name = "single_up", .rhs = rhs_single, .n_events = 4, .events = single_up_events},
};

static const char *const state_names[] = {"x", "y", "vx", "vy", "xf"};
static const size_t free_index[] = {X, Y, VX};

static const sm_param_def params[] = {
    {"m", 80.0, 1e-3, 1e4, "kg", "body mass", 0},
    {"L0", 1.0, 1e-3, 1e2, "m", "rest length of each leg spring", 0},
    {"k", 20000.0, 1.0, 1e8, "N/m", "stiffness of each leg spring", 0},
    {"alpha0", 1.2042771838760873, 0.1, 1.5, "rad", "angle of attack of the swing leg, from the ground (69 deg)", 0},
    {"g", 9.81, 1e-3, 1e3, "m/s^2", "gravitational acceleration", 0},
    {"E", 840.0, 1e-3, 1e7, "J", "total energy of the walker (kinetic + gravitational + spring)", 0},
    {"attack_error", 0.0, -0.2, 0.2, "rad", "this stride's angle of attack this much steeper", SM_PARAM_DISTURBANCE},
};

const sm_model sm_model_slip = {
    .name = "slip",
    .title = "Bipedal spring-mass walking (point mass on two linear springs)",
    .reference = "Geyer, Seyfarth & Blickhan (2006), Proc. R. Soc. B 273:2861-2867",
    .n_state = 5,
    .state_names = state_names,
    .n_params = 7,
    .params = params,
    .n_phases = 3,
    .phases = phases,
    .start_phase = SINGLE_DOWN,
    .n_free = 3,
    .free_index = free_index,
    .lift = lift,
    .guess = guess,
    .search_box = search_box,
    .time_limit = time_limit,
    .kinetic_energy = kinetic,
    .potential_energy = potential,
    .step_length = step_length,
    .ground_reaction = ground_reaction,
    .momentum = momentum,
    .weight = weight,
    .invariant = energy,
    .invariant_param = E,
};
