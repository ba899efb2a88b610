/* rimless: the rimless wheel.
 *
 * McGeer (1990), "Passive dynamic walking", Int. J. Robot. Res. 9(2):62-82;
 * Coleman, Chatterjee & Ruina (1997), Dynamics and Stability of Systems 12.
 *
 * A point mass at the hub on n massless spokes of length l, rolling down a
 * slope gamma under gravity g.  The half-angle between spokes is
 * alpha = pi / n.
 *
 * State (theta, theta_dot): stance-spoke angle from the slope normal,
 * positive uphill, and its rate (negative when rolling forward).
 *
 * Equation of motion (one phase, "stance"):
 *   theta'' = (g / l) sin(theta - gamma)
 *
 * Spoke strike: theta + alpha = 0, falling.  Plastic impact about the new
 * contact point, then the spokes swap:
 *   theta+ = -theta- (= alpha),  theta_dot+ = cos(2 alpha) theta_dot-.
 *
 * Poincare section: just after a strike.  Free coordinate theta_dot; there
 * theta = alpha.  Closed form of the gait and its one multiplier:
 *   theta_dot* = -cot(2 alpha) sqrt(4 (g/l) sin(alpha) sin(gamma)),
 *   lambda = cos^2(2 alpha).
 *
 * Energies, forces and momenta per unit hub mass:
 *   E = l^2 theta_dot^2 / 2 + g l cos(theta - gamma);
 *   the stance spoke pushes along itself with T = g cos(theta - gamma) - l theta_dot^2,
 *   so the ground reaction in the slope's frame (x forward, y normal) is
 *   T (-sin theta, cos theta); momentum l theta_dot (-cos theta, -sin theta);
 *   weight g.  A wheel has no swing foot.
 *
 * Disturbances (parameters applied to one stride by `stridemap disturb` and
 * the gait sensitivity norm, include/stridemap/disturb.h; nominal 0):
 *   step_down   h, m: the floor under the next spoke's tip is h lower
 *     (normal to the slope; negative: a step up).  The next spoke, at
 *     theta + 2 alpha from the normal about its own tip, has its tip at
 *     l (cos theta - cos(theta + 2 alpha)) above the old floor; the strike
 *     is that height falling through -h (the same zero set as theta = -alpha
 *     at h = 0; the height decreases monotonically while |theta + alpha| <
 *     pi/2).  The impact about the new tip keeps the angular momentum there,
 *     and the spokes are 2 alpha apart wherever it lands:
 *       theta+ = theta- + 2 alpha,  theta_dot+ = cos(2 alpha) theta_dot-,
 *     the level map above at theta- = -alpha.  The wheel then stands on the
 *     new floor with theta+ != alpha: off the section, so the next stride
 *     starts from the full state and the next strike (level again) puts it
 *     back.  step_length stays the level 2 l sin(alpha).
 *   slope_step  d, rad: the stride runs on a slope gamma + d (every use of
 *     gamma above), the next on gamma again.  The section theta = alpha is
 *     the same on both slopes (theta is measured from the normal of the
 *     slope the wheel stands on, and the strike's geometry does not involve
 *     gamma), so the state after the stride is on the section. */
#include <math.h>
#include <stdio.h>

#include "models.h"

enum { TH, THD };
enum { N, GAMMA, G, L, STEP_DOWN, SLOPE_STEP };

static double half_angle(const double *p) { return M_PI / p[N]; }

/* The slope of this stride: gamma, or gamma + slope_step when disturbed. */
static double slope(const double *p) { return p[GAMMA] + p[SLOPE_STEP]; }

static int rhs(double t, const double *x, double *xd, const double *p, const void *data)
{
    (void)t;
    xd[TH] = x[THD];
    xd[THD] = p[G] / p[L] * sin(x[TH] - slope(p));
    return 0;
}

/* df/dx, for the exact stride-map Jacobian. */
static int jac(double t, const double *x, double *J, const double *p, const void *data)
{
    (void)t;
    J[0] = 0.0, J[1] = 1.0;
    J[2] = p[G] / p[L] * cos(x[TH] - slope(p)), J[3] = 0.0;
    return 0;
}

static double next_spoke_gap(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    if (p[STEP_DOWN] != 0.0) return cos(x[TH]) - cos(x[TH] + 2.0 * half_angle(p)) + p[STEP_DOWN] / p[L];
    return x[TH] + half_angle(p);
}

static double stance_rate(double t, const double *x, const double *p, const void *data)
{
    (void)t, (void)p;
    return x[THD];
}

static double hub_height_behind(double t, const double *x, const double *p, const void *data)
{
    (void)t;
    return x[TH] - slope(p) - M_PI_2;
}

static double next_spoke_gap_gradient(double t, const double *x, const double *p, const void *data, double *grad)
{
    (void)t;
    grad[TH] = p[STEP_DOWN] != 0.0 ? sin(x[TH] + 2.0 * half_angle(p)) - sin(x[TH]) : 1.0;
    grad[THD] = 0.0;
    return 0.0;
}

static int strike_jacobian(const double *xm, double *DR, const double *p, const void *data)
{
    (void)xm;
    DR[0] = p[STEP_DOWN] != 0.0 ? 1.0 : -1.0, DR[1] = 0.0;
    DR[2] = 0.0, DR[3] = cos(2.0 * half_angle(p));
    return 0;
}

static int strike(const double *xm, double *xp, const double *p, const void *data)
{
    xp[TH] = p[STEP_DOWN] != 0.0 ? xm[TH] + 2.0 * half_angle(p) : -xm[TH];
    xp[THD] = cos(2.0 * half_angle(p)) * xm[THD];
    return 0;
}

static void lift(double *x, const double *p, const void *data) { x[TH] = half_angle(p); }

static void guess(double *x, const double *p, const void *data)
{
    x[THD] = -sqrt(p[G] / p[L]);
    lift(x, p, data);
}

static void search_box(const double *p, const void *data, double *lo, double *hi)
{
    lo[0] = -10.0 * sqrt(p[G] / p[L]), hi[0] = -0.01 * sqrt(p[G] / p[L]);
}

static double time_limit(const double *p, const void *data) { return 100.0 * sqrt(p[L] / p[G]); }

static double kinetic(const double *x, const double *p, const void *data)
{
    return 0.5 * p[L] * p[L] * x[THD] * x[THD];
}

static double potential(const double *x, const double *p, const void *data)
{
    return p[G] * p[L] * cos(x[TH] - slope(p));
}

static void ground_reaction(double t, size_t phase, const double *x, const double *p, const void *data,
                            double R[2])
{
    const double T = p[G] * cos(x[TH] - slope(p)) - p[L] * x[THD] * x[THD];
    R[0] = -T * sin(x[TH]);
    R[1] = T * cos(x[TH]);
}

static void momentum(const double *x, const double *p, const void *data, double P[2])
{
    P[0] = -p[L] * x[THD] * cos(x[TH]);
    P[1] = -p[L] * x[THD] * sin(x[TH]);
}

static double weight(const double *p, const void *data) { return p[G]; }

static double step_length(const double *x, const double *p, const void *data)
{
    (void)x;
    return 2.0 * p[L] * sin(half_angle(p));
}

static const sm_event events[] = {
    {.name = "spoke_strike", .value = next_spoke_gap, .direction = -1,
     .outcome = SM_EVENT_SECTION, .reset = strike, .gradient = next_spoke_gap_gradient,
     .reset_jacobian = strike_jacobian},
    {.name = "rolled_back", .value = stance_rate, .direction = +1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_BACKWARD},
    {.name = "hub_down_behind", .value = hub_height_behind, .direction = +1,
     .outcome = SM_EVENT_FAIL, .failure = SM_FELL_BACKWARD},
};

static const sm_phase phases[] = {
    {.name = "stance", .rhs = rhs, .n_events = 3, .events = events, .jac = jac},
};

static const char *const state_names[] = {"theta", "theta_dot"};
static const size_t free_index[] = {THD};

static const sm_param_def params[] = {
    {"n", 10, 5, 1000, "spokes", "number of spokes (at least 5, so that cos(2 pi/n) > 0)",
     SM_PARAM_INTEGER},
    {"gamma", 0.08, -0.5, 0.5, "rad", "slope angle of the ramp", 0},
    {"g", 9.81, 1e-3, 1e3, "m/s^2", "gravitational acceleration", 0},
    {"l", 1.0, 1e-3, 1e3, "m", "spoke length", 0},
    {"step_down", 0.0, -0.1, 0.1, "m", "the next spoke's floor this much lower (negative: higher)",
     SM_PARAM_DISTURBANCE},
    {"slope_step", 0.0, -0.1, 0.1, "rad", "this stride's slope this much steeper", SM_PARAM_DISTURBANCE},
};

const sm_model sm_model_rimless = {
    .name = "rimless",
    .title = "The rimless wheel (point mass on n massless spokes)",
    .reference = "McGeer (1990), Int. J. Robot. Res. 9(2):62-82",
    .n_state = 2,
    .state_names = state_names,
    .n_params = 6,
    .params = params,
    .n_phases = 1,
    .phases = phases,
    .start_phase = 0,
    .n_free = 1,
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
};
