/* simplest: the simplest walking model.
 *
 * Garcia, Chatterjee, Ruina & Coleman (1998), "The simplest walking model:
 * stability, complexity, and scaling", J. Biomech. Eng. 120:281-288; and
 * Garcia (1999), PhD thesis, ch. 2-3.
 *
 * Two massless legs of length l hinged at a hip of mass M, infinitesimal
 * point-mass feet, a slope of angle gamma.  Time is in units of sqrt(l/g),
 * so gamma is the only parameter.
 *
 * State (theta, theta_dot, phi, phi_dot):
 *   theta  stance-leg angle from the slope normal (positive: leaning uphill),
 *   phi    angle between the legs (swing leg at theta - phi from the normal).
 *
 * Equations of motion (one phase, "swing"):
 *   theta'' = sin(theta - gamma)
 *   phi''   = sin(theta - gamma) + sin(phi) (theta'^2 - cos(theta - gamma))
 *
 * Heel-strike: phi - 2 theta = 0, rising, with the stance leg past the slope
 * normal (theta < 0).  The same surface is crossed at the start of every
 * step (rising, theta > 0: the guard rejects it) and near mid-stance when the
 * swing leg passes the stance leg and its foot scuffs (falling: the direction
 * rejects it; on the short-step gait this happens with theta already < 0, so
 * the guard alone would not).
 * Plastic impact about the new contact point, then the legs swap:
 *   theta+ = -theta-,  theta_dot+ = cos(2 theta-) theta_dot-,
 *   phi+   = -2 theta-, phi_dot+  = cos(2 theta-) (1 - cos(2 theta-)) theta_dot-.
 *
 * Poincare section: just after heel-strike.  Free coordinates (theta,
 * theta_dot); there phi = 2 theta and phi_dot = (1 - cos 2 theta) theta_dot.
 *
 * Gaits: a stable long-period gait (step period about 3.8-4.0) and an
 * unstable short-period gait (about 3.0-3.1), both with theta* ~ gamma^(1/3).
 *
 * Failures: the stance leg stops and rolls back (theta_dot rises through 0);
 * the hip reaches the ground in front or behind (theta - gamma = -+ pi/2).
 *
 * Disturbances (parameters applied to one stride by `stridemap disturb` and
 * the gait sensitivity norm, include/stridemap/disturb.h; nominal 0):
 *   step_down   h, leg lengths: the floor under the next footfall is h lower
 *     (normal to the slope; negative: a step up).  Heel-strike is then the
 *     swing foot at height -h, cos(theta) - cos(theta - phi) + h falling
 *     through 0 with theta < 0 and the legs passed (phi < 0: not the
 *     mid-stance scuff); at h = 0 the same zero set as phi = 2 theta near
 *     heel-strike, so P(x, h) is smooth in h.  (On the short-period gait
 *     the scuff lasts past phi = 0 and a small step down can end it.)
 *     Impact at any leg angle phi- (angular momentum about the new foot; the
 *     massless swing leg keeps its foot's velocity across the leg):
 *       theta+ = theta- - phi-,  theta_dot+ = cos(phi-) theta_dot-,
 *       phi+ = -phi-,            phi_dot+ = cos(phi-) (1 - cos(phi-)) theta_dot-,
 *     which is the map above at phi- = 2 theta-.  The walker stands on the
 *     new floor afterwards, its trailing foot h above it: phi+ != 2 theta+,
 *     off the section, as it should be.
 *   push        P, sqrt(g l): a horizontal impulse per unit hip mass, forward,
 *     at mid-stance (theta falling through 0, the stance leg normal to the
 *     slope).  The leg takes the part along itself; with the horizontal
 *     (cos gamma, sin gamma) in the slope's frame and the hip moving along
 *     (-cos theta, -sin theta) per unit theta_dot,
 *       theta_dot+ = theta_dot- - P cos(theta - gamma),
 *       phi_dot+ = phi_dot- - P cos(theta - gamma) (1 - cos phi),
 *     the swing foot's velocity across its leg being kept as at impact.
 *     With P = 0 the event's function is a constant: no event, no restart.
 *   slope_step  d, rad: the stride runs on a slope gamma + d (every use of
 *     gamma above), the next on gamma again.
 *
 * Energies per M l^2 (g = l = 1): the feet carry no energy in the limit, so
 * E = theta_dot^2 / 2 + cos(theta - gamma) is conserved in the swing phase.
 *
 * Gait measures, in the slope's frame (x forward along the slope, y normal;
 * positive theta leans the stance leg back, so the hip is at
 * (-sin theta, cos theta) from the stance foot):
 *   swing-foot height  cos(theta) - cos(theta - phi), negative exactly where
 *     phi (phi - 2 theta) < 0: the mid-stance scuff window;
 *   ground reaction    the massless leg pushes along itself with
 *     T = cos(theta - gamma) - theta_dot^2, so R = T (-sin theta, cos theta);
 *   momentum           the hip's, theta_dot (-cos theta, -sin theta);
 *   weight             1 (M g). */
#include <math.h>
#include <stdio.h>

#include "models.h"

enum { TH, THD, PH, PHD };
enum { GAMMA, STEP_DOWN, PUSH, SLOPE_STEP };

/* The slope of this stride: gamma, or gamma + slope_step when disturbed. */
static double slope(const double *p) { return p[GAMMA] + p[SLOPE_STEP]; }

static int rhs(double t, const double *x, double *xd, const double *p, const void *data)
{
    (void)t;
    const double s = sin(x[TH] - slope(p)), c = cos(x[TH] - slope(p));
    xd[TH] = x[THD];
    xd[THD] = s;
    xd[PH] = x[PHD];
    xd[PHD] = s + sin(x[PH]) * (x[THD] * x[THD] - c);
    return 0;
}

/* df/dx, for the exact stride-map Jacobian. */
static int jac(double t, const double *x, double *J, const double *p, const void *data)
{
    (void)t;
    const double s = sin(x[TH] - slope(p)), c = cos(x[TH] - slope(p));
    const double sp = sin(x[PH]), cp = cos(x[PH]);
    const double rows[4][4] = {
        {0.0, 1.0, 0.0, 0.0},
        {c, 0.0, 0.0, 0.0},
        {0.0, 0.0, 0.0, 1.0},
        {c + sp * s, 2.0 * x[THD] * sp, cp * (x[THD] * x[THD] - c), 0.0},
    };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) J[4 * i + j] = rows[i][j];
    return 0;
}

/* Near heel-strike -(cos(theta) - cos(theta - phi)) has the sign of
 * phi - 2 theta, so both rise through 0 there. */
static double heelstrike_surface(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    if (p[STEP_DOWN] != 0.0) return cos(x[TH] - x[PH]) - cos(x[TH]) - p[STEP_DOWN];
    return x[PH] - 2.0 * x[TH];
}

/* On a stepped floor the foot meets its level also in the mid-stance scuff
 * (legs not yet passed, phi > 0): only a foot ahead of the stance leg
 * lands. */
static bool stance_past_vertical(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    return x[TH] < 0.0 && (p[STEP_DOWN] == 0.0 || x[PH] < 0.0);
}

static double stance_rate(double t, const double *x, const double *p, const void *data)
{
    (void)t, (void)p;
    return x[THD];
}

static double hip_height_front(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    return x[TH] - slope(p) + M_PI_2;
}

static double hip_height_behind(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    return x[TH] - slope(p) - M_PI_2;
}

static double heelstrike_gradient(double t, const double *x, const double *p, const void *data, double *grad)
{
    (void)t;
    grad[TH] = -2.0, grad[THD] = 0.0, grad[PH] = 1.0, grad[PHD] = 0.0;
    if (p[STEP_DOWN] != 0.0) {
        grad[TH] = -sin(x[TH] - x[PH]) + sin(x[TH]);
        grad[PH] = sin(x[TH] - x[PH]);
    }
    return 0.0;
}

/* d heelstrike / d x_minus of the impact onto a stepped floor (phi- free). */
static int stepped_jacobian(const double *xm, double *DR)
{
    const double c = cos(xm[PH]), s = sin(xm[PH]);
    for (int i = 0; i < 16; i++) DR[i] = 0.0;
    DR[4 * TH + TH] = 1.0;
    DR[4 * TH + PH] = -1.0;
    DR[4 * THD + THD] = c;
    DR[4 * THD + PH] = -s * xm[THD];
    DR[4 * PH + PH] = -1.0;
    DR[4 * PHD + THD] = c * (1.0 - c);
    DR[4 * PHD + PH] = (-s + 2.0 * c * s) * xm[THD];
    return 0;
}

/* Mid-stance, where a push acts: theta falling through 0; a constant
 * (never crossed) without one. */
static double mid_stance(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    return p[PUSH] != 0.0 ? -x[TH] : 1.0;
}

static int push(const double *xm, double *xp, const double *p, const void *data)
{
    const double dv = -p[PUSH] * cos(xm[TH] - slope(p));
    xp[TH] = xm[TH];
    xp[THD] = xm[THD] + dv;
    xp[PH] = xm[PH];
    xp[PHD] = xm[PHD] + dv * (1.0 - cos(xm[PH]));
    return 0;
}

/* d heelstrike / d x_minus: only theta and theta_dot enter the reset. */
static int heelstrike_jacobian(const double *xm, double *DR, const double *p, const void *data)
{
    if (p[STEP_DOWN] != 0.0) return stepped_jacobian(xm, DR);
    const double c2 = cos(2.0 * xm[TH]), dc2 = -2.0 * sin(2.0 * xm[TH]);
    for (int i = 0; i < 16; i++) DR[i] = 0.0;
    DR[4 * TH + TH] = -1.0;
    DR[4 * THD + TH] = dc2 * xm[THD];
    DR[4 * THD + THD] = c2;
    DR[4 * PH + TH] = -2.0;
    DR[4 * PHD + TH] = dc2 * (1.0 - 2.0 * c2) * xm[THD];
    DR[4 * PHD + THD] = c2 * (1.0 - c2);
    return 0;
}

static int heelstrike(const double *xm, double *xp, const double *p, const void *data)
{
    if (p[STEP_DOWN] != 0.0) {
        const double c = cos(xm[PH]);
        xp[TH] = xm[TH] - xm[PH];
        xp[THD] = c * xm[THD];
        xp[PH] = -xm[PH];
        xp[PHD] = c * (1.0 - c) * xm[THD];
        return 0;
    }
    const double c2 = cos(2.0 * xm[TH]);
    xp[TH] = -xm[TH];
    xp[THD] = c2 * xm[THD];
    xp[PH] = -2.0 * xm[TH];
    xp[PHD] = c2 * (1.0 - c2) * xm[THD];
    return 0;
}

static void lift(double *x, const double *p, const void *data)
{
    (void)p;
    x[PH] = 2.0 * x[TH];
    x[PHD] = (1.0 - cos(2.0 * x[TH])) * x[THD];
}

/* The long-period gait by Garcia's scaling, theta* ~ 0.97 gamma^(1/3), with
 * theta_dot* = -theta* (1.08 - 0.43 gamma^(1/3)), a fit to the computed
 * gaits for gamma = 1e-4 ... 0.03 (ratio -1.043 ... -0.938).  theta_dot =
 * -theta alone lies nearer the short-period gait once gamma > 0.017. */
static void guess(double *x, const double *p, const void *data)
{
    const double c = p[GAMMA] > 0 ? cbrt(p[GAMMA]) : cbrt(0.009);
    x[TH] = 0.97 * c;
    x[THD] = -x[TH] * (1.08 - 0.43 * c);
    lift(x, p, data);
}

/* Garcia et al. name the two period-one gaits by their step period: about
 * 3.8-4.0 for the long-period gait and 3.0-3.1 for the short-period one
 * (gamma up to 0.03), in units of sqrt(l/g). */
static const char *gait_family(const double *x, double step_period, const double *p, const void *data)
{
    return step_period > 3.45 ? "long-period" : "short-period";
}

/* +-30 % around Garcia's scaling theta ~ -theta_dot ~ gamma^(1/3): both
 * period-one gaits lie there, and wider starts mostly fall on the first step. */
static void search_box(const double *p, const void *data, double *lo, double *hi)
{
    const double th = p[GAMMA] > 0 ? 0.2 * cbrt(p[GAMMA] / 0.009) : 0.2;
    lo[0] = 0.7 * th, hi[0] = 1.3 * th;
    lo[1] = -1.3 * th, hi[1] = -0.7 * th;
}

static double time_limit(const double *p, const void *data)
{
    (void)p;
    return 20.0; /* the gaits take about 3.8 */
}

static double kinetic(const double *x, const double *p, const void *data)
{
    (void)p;
    return 0.5 * x[THD] * x[THD];
}

static double potential(const double *x, const double *p, const void *data) { return cos(x[TH] - slope(p)); }

/* Along the slope, from the stance foot to the swing foot: 2 |sin theta|
 * on a level floor, and still the distance along the ground on a stepped
 * one (the feet at different heights). */
static double step_length(const double *x, const double *p, const void *data)
{
    (void)p;
    return fabs(sin(x[TH] - x[PH]) - sin(x[TH]));
}

static double foot_clearance(const double *x, const double *p, const void *data)
{
    return cos(x[TH]) - cos(x[TH] - x[PH]);
}

static bool in_scuff_window(const double *x, const double *p, const void *data)
{
    return x[PH] * (x[PH] - 2.0 * x[TH]) < 0.0;
}

static void ground_reaction(double t, size_t phase, const double *x, const double *p, const void *data,
                            double R[2])
{
    const double T = cos(x[TH] - slope(p)) - x[THD] * x[THD];
    R[0] = -T * sin(x[TH]);
    R[1] = T * cos(x[TH]);
}

static void momentum(const double *x, const double *p, const void *data, double P[2])
{
    P[0] = -x[THD] * cos(x[TH]);
    P[1] = -x[THD] * sin(x[TH]);
}

static double weight(const double *p, const void *data) { return 1.0; }

/* A floor step on every stride would be a staircase, whose section lies on
 * the new floor: not this model's section.  It is a disturbance only. */
static bool check_params(const double *p, const void *data, char *why, size_t why_len)
{
    if (p[STEP_DOWN] == 0.0) return true;
    snprintf(why, why_len, "step_down acts on one step only; leave it 0 (a disturbance's analyses change it for one stride)");
    return false;
}

static const sm_event events[] = {
    {.name = "heelstrike", .value = heelstrike_surface, .direction = +1,
     .guard = stance_past_vertical, .outcome = SM_EVENT_SECTION, .reset = heelstrike,
     .gradient = heelstrike_gradient, .reset_jacobian = heelstrike_jacobian},
    {.name = "rolled_back", .value = stance_rate, .direction = +1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_BACKWARD},
    {.name = "hip_down_front", .value = hip_height_front, .direction = -1,
     .outcome = SM_EVENT_FAIL, .failure = SM_FELL_FORWARD},
    {.name = "hip_down_behind", .value = hip_height_behind, .direction = +1,
     .outcome = SM_EVENT_FAIL, .failure = SM_FELL_BACKWARD},
    {.name = "push", .value = mid_stance, .direction = +1, .outcome = SM_EVENT_TO_PHASE, .next_phase = 0,
     .reset = push},
};

static const sm_phase phases[] = {
    {.name = "swing", .rhs = rhs, .n_events = 5, .events = events, .jac = jac},
};

static const char *const state_names[] = {"theta", "theta_dot", "phi", "phi_dot"};
static const size_t free_index[] = {TH, THD};

static const sm_param_def params[] = {
    {"gamma", 0.009, -0.5, 0.5, "rad", "slope angle of the ramp", 0},
    {"step_down", 0.0, -0.2, 0.2, "l", "the next footfall's floor this much lower (negative: higher)",
     SM_PARAM_DISTURBANCE},
    {"push", 0.0, -0.5, 0.5, "sqrt(g l)", "forward horizontal hip velocity impulse at mid-stance",
     SM_PARAM_DISTURBANCE},
    {"slope_step", 0.0, -0.2, 0.2, "rad", "the slope of one step raised by this",
     SM_PARAM_DISTURBANCE},
};

const sm_model sm_model_simplest = {
    .name = "simplest",
    .title = "The simplest walking model (point-mass hip, massless legs)",
    .reference = "Garcia, Chatterjee, Ruina & Coleman (1998), J. Biomech. Eng. 120:281-288",
    .n_state = 4,
    .state_names = state_names,
    .n_params = 4,
    .params = params,
    .n_phases = 1,
    .phases = phases,
    .start_phase = 0,
    .n_free = 2,
    .free_index = free_index,
    .lift = lift,
    .guess = guess,
    .gait_family = gait_family,
    .search_box = search_box,
    .time_limit = time_limit,
    .kinetic_energy = kinetic,
    .potential_energy = potential,
    .step_length = step_length,
    .foot_clearance = foot_clearance,
    .in_scuff_window = in_scuff_window,
    .ground_reaction = ground_reaction,
    .momentum = momentum,
    .weight = weight,
    .check_params = check_params,
};
