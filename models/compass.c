/* compass: the compass-gait biped.
 *
 * Goswami, Thuilot & Espiau (1996), "Compass-like biped robot Part I:
 * stability and bifurcation of passive gaits", INRIA RR-2996; and (1998)
 * Int. J. Robot. Res. 17(12):1282-1301.
 *
 * Two straight legs of length l = a + b with point feet; each leg is a point
 * mass m at distance a from its foot (b from the hip); a point mass mh at
 * the hip; gravity g; a slope of angle gamma descending in the direction of
 * walking.
 *
 * Angle convention.  Both angles are measured from the vertical (gravity),
 * each as the direction from a leg's foot to the hip, positive when that
 * direction leans forward (downhill).  With the stance foot at the origin,
 * x forward and y up:
 *   hip        H = l (sin th_st, cos th_st)
 *   swing foot F = H - l (sin th_sw, cos th_sw)
 * At the start of a step the stance leg leans back (th_st < 0) and the
 * trailing swing leg forward (th_sw > 0); at heel-strike the other way round.
 * These are Goswami's theta_s and theta_ns.
 *
 * State (th_st, th_sw, dth_st, dth_sw).
 *
 * Swing phase, M(q) q'' + C(q, q') q' + G(q) = 0 (Lagrange):
 *   M = [ m a^2 + (m + mh) l^2      -m l b cos(th_st - th_sw) ]
 *       [ -m l b cos(th_st - th_sw)  m b^2                    ]
 *   C q' = [ -m l b sin(th_st - th_sw) dth_sw^2 ]
 *          [  m l b sin(th_st - th_sw) dth_st^2 ]
 *   G = [ -(m a + (m + mh) l) g sin th_st ]
 *       [  m b g sin th_sw                ]
 *
 * Heel-strike.  The swing foot's height above the slope is
 *   l (cos(th_st - gamma) - cos(th_sw - gamma))
 *     = -2 l sin((th_st + th_sw)/2 - gamma) sin((th_st - th_sw)/2),
 * zero when the legs coincide (the mid-stance scuff) or when they are
 * symmetric about the slope normal: th_st + th_sw = 2 gamma.  The event is
 * th_st + th_sw - 2 gamma crossing zero rising, with the stance leg past the
 * slope normal (th_st > gamma).  The surface is also crossed at the start of
 * every step (the guard rejects it) and near mid-stance, falling, as the
 * swing leg passes the stance leg (the direction rejects it).
 *
 * Impact: plastic, at the swing foot; the trailing foot leaves the ground
 * without impulse.  Angular momentum is conserved (1) for the whole walker
 * about the new contact point and (2) for the trailing leg about the hip.
 * The legs then swap: th_st+ = th_sw-, th_sw+ = th_st-, and the two
 * conservation laws give (dth_st+, dth_sw+) by a 2x2 solve built from the
 * masses' positions and velocity directions (no hand-inverted formula).
 *
 * Poincare section: just after heel-strike, where th_sw = 2 gamma - th_st.
 * Free coordinates (th_st, dth_st, dth_sw).
 *
 * Failures: the stance leg stops before passing the slope normal and rolls
 * back; the hip reaches the ground in front or behind.
 *
 * Disturbances (parameters applied to one stride by `stridemap disturb` and
 * the gait sensitivity norm, include/stridemap/disturb.h; nominal 0):
 *   step_down  h, m: the floor under the next footfall is h lower, normal to
 *     the slope (negative: higher).  Heel-strike is then the swing foot at
 *     height -h, l (cos(th_sw - gamma) - cos(th_st - gamma)) - h rising
 *     through 0 with the stance leg past the normal and the swing foot
 *     ahead of it (th_st > th_sw: not the scuffs before the legs pass); at
 *     h = 0 its zero set near heel-strike is th_st + th_sw = 2 gamma's.  The
 *     impact above is written for any foot position, so it serves as it
 *     is; afterwards the trailing foot is h above the new floor
 *     (th_st + th_sw != 2 gamma, off the section).
 *   push       P, N s: a horizontal impulse at the hip, forward, at
 *     mid-stance (th_st rising through gamma, the stance leg normal to the
 *     slope).  The pinned stance foot takes what the legs cannot: the
 *     generalised impulse is (l cos(th_st) P, 0), so
 *       (dth_st, dth_sw)+ = (dth_st, dth_sw)- + M(q)^-1 (l cos(th_st) P, 0).
 *     With P = 0 the event's function is a constant: no event.
 *   slope_step d, rad: the stride runs on the slope gamma + d (every use of
 *     gamma above, the section's included), the next on gamma.
 *
 * Gait measures in the slope's frame (x forward along the slope, y normal):
 * swing-foot height l (cos(th_st - gamma) - cos(th_sw - gamma)), negative
 * only in the mid-stance scuff window; ground reaction
 * R = sum m_i a_i + (2m + mh) g (0, 1) rotated into the slope's frame;
 * momentum sum m_i v_i; weight (2m + mh) g. */
#include <math.h>
#include <stdio.h>

#include "models.h"

enum { ST, SW, DST, DSW };
enum { M, MH, A, B, GAMMA, G, STEP_DOWN, PUSH, SLOPE_STEP };

static double leg(const double *p) { return p[A] + p[B]; }

/* The slope of this stride: gamma, or gamma + slope_step when disturbed. */
static double slope(const double *p) { return p[GAMMA] + p[SLOPE_STEP]; }

static void mass_matrix(const double *x, const double *p, double Mq[2][2])
{
    const double l = leg(p), c = cos(x[ST] - x[SW]);
    Mq[0][0] = p[M] * p[A] * p[A] + (p[M] + p[MH]) * l * l;
    Mq[0][1] = Mq[1][0] = -p[M] * l * p[B] * c;
    Mq[1][1] = p[M] * p[B] * p[B];
}

/* q'' from the swing-phase equations. */
static void accelerations(const double *x, const double *p, double qdd[2])
{
    const double l = leg(p), s = sin(x[ST] - x[SW]);
    double Mq[2][2];
    mass_matrix(x, p, Mq);
    const double f0 = p[M] * l * p[B] * s * x[DSW] * x[DSW] + (p[M] * p[A] + (p[M] + p[MH]) * l) * p[G] * sin(x[ST]);
    const double f1 = -p[M] * l * p[B] * s * x[DST] * x[DST] - p[M] * p[B] * p[G] * sin(x[SW]);
    const double det = Mq[0][0] * Mq[1][1] - Mq[0][1] * Mq[1][0];
    qdd[0] = (Mq[1][1] * f0 - Mq[0][1] * f1) / det;
    qdd[1] = (Mq[0][0] * f1 - Mq[1][0] * f0) / det;
}

static int rhs(double t, const double *x, double *xd, const double *p, const void *data)
{
    double qdd[2];
    accelerations(x, p, qdd);
    xd[ST] = x[DST];
    xd[SW] = x[DSW];
    xd[DST] = qdd[0];
    xd[DSW] = qdd[1];
    return 0;
}

/* Unit vector of a leg's direction (foot to hip) and its derivative per
 * unit angle: the velocity direction of points on that leg. */
static void dir(double th, double u[2]) { u[0] = sin(th), u[1] = cos(th); }
static void ddir(double th, double v[2]) { v[0] = cos(th), v[1] = -sin(th); }
static double cross(const double r[2], const double v[2]) { return r[0] * v[1] - r[1] * v[0]; }

/* Positions (stance foot at the origin) of the stance-leg mass, the hip and
 * the swing-leg mass, and the swing foot. */
static void positions(const double *x, const double *p, double r1[2], double h[2], double r2[2], double f[2])
{
    const double l = leg(p);
    double us[2], uw[2];
    dir(x[ST], us);
    dir(x[SW], uw);
    for (int k = 0; k < 2; k++) {
        r1[k] = p[A] * us[k];
        h[k] = l * us[k];
        r2[k] = h[k] - p[B] * uw[k];
        f[k] = h[k] - l * uw[k];
    }
}

/* Velocities of the same points, linear in the rates: v = Js dth_st + Jw dth_sw. */
static void velocity_parts(const double *x, const double *p, double js[3][2], double jw[3][2])
{
    const double l = leg(p);
    double es[2], ew[2];
    ddir(x[ST], es);
    ddir(x[SW], ew);
    for (int k = 0; k < 2; k++) {
        js[0][k] = p[A] * es[k], jw[0][k] = 0.0;    /* stance-leg mass */
        js[1][k] = l * es[k], jw[1][k] = 0.0;       /* hip */
        js[2][k] = l * es[k], jw[2][k] = -p[B] * ew[k]; /* swing-leg mass */
    }
}

static int heelstrike(const double *xm, double *xp, const double *p, const void *data)
{
    double r[3][2], f[2];
    positions(xm, p, r[0], r[1], r[2], f);
    const double mass[3] = {p[M], p[MH], p[M]};
    double js[3][2], jw[3][2], v[3][2];
    velocity_parts(xm, p, js, jw);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) v[i][k] = js[i][k] * xm[DST] + jw[i][k] * xm[DSW];

    /* Before: (1) all masses about the swing foot, (2) the old stance leg's
     * mass about the hip. */
    double L1 = 0.0, L2;
    for (int i = 0; i < 3; i++) {
        const double rel[2] = {r[i][0] - f[0], r[i][1] - f[1]};
        L1 += mass[i] * cross(rel, v[i]);
    }
    const double rh[2] = {r[0][0] - r[1][0], r[0][1] - r[1][1]};
    L2 = mass[0] * cross(rh, v[0]);

    /* After: the old swing leg stands at f; the old stance leg swings.  In
     * the new labels the old swing-leg mass is the stance-leg mass (point 0)
     * and the old stance-leg mass the swing-leg mass (point 2). */
    xp[ST] = xm[SW];
    xp[SW] = xm[ST];
    double ks[3][2], kw[3][2];
    velocity_parts(xp, p, ks, kw);
    const int old_of_new[3] = {2, 1, 0};
    double A11 = 0, A12 = 0, A21 = 0, A22 = 0;
    for (int i = 0; i < 3; i++) {
        const double *ri = r[old_of_new[i]];
        const double mi = mass[old_of_new[i]];
        const double rel[2] = {ri[0] - f[0], ri[1] - f[1]};
        A11 += mi * cross(rel, ks[i]);
        A12 += mi * cross(rel, kw[i]);
    }
    A21 = mass[0] * cross(rh, ks[2]);
    A22 = mass[0] * cross(rh, kw[2]);
    const double det = A11 * A22 - A12 * A21;
    if (det == 0.0) return -1;
    xp[DST] = (L1 * A22 - A12 * L2) / det;
    xp[DSW] = (A11 * L2 - A21 * L1) / det;
    return 0;
}

/* World (x forward, y up) to slope frame (along, normal). */
static void to_slope(const double w[2], double gamma, double s[2])
{
    s[0] = w[0] * cos(gamma) - w[1] * sin(gamma);
    s[1] = w[0] * sin(gamma) + w[1] * cos(gamma);
}

static double foot_clearance(const double *x, const double *p, const void *data)
{
    return leg(p) * (cos(x[ST] - slope(p)) - cos(x[SW] - slope(p)));
}

static bool in_scuff_window(const double *x, const double *p, const void *data)
{
    return foot_clearance(x, p, data) < 0.0;
}

static void momentum(const double *x, const double *p, const void *data, double P[2])
{
    double js[3][2], jw[3][2], w[2] = {0, 0};
    const double mass[3] = {p[M], p[MH], p[M]};
    velocity_parts(x, p, js, jw);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) w[k] += mass[i] * (js[i][k] * x[DST] + jw[i][k] * x[DSW]);
    to_slope(w, slope(p), P);
}

/* R = sum m_i a_i - (total mass) g_vector; a point at distance d along a leg
 * at angle th accelerates d th'' (cos th, -sin th) - d th'^2 (sin th, cos th). */
static void ground_reaction(double t, size_t phase, const double *x, const double *p, const void *data,
                            double R[2])
{
    double qdd[2];
    accelerations(x, p, qdd);
    const double l = leg(p);
    double es[2], ew[2], us[2], uw[2];
    ddir(x[ST], es), ddir(x[SW], ew), dir(x[ST], us), dir(x[SW], uw);
    double w[2];
    for (int k = 0; k < 2; k++) {
        const double a_st = qdd[0] * es[k] - x[DST] * x[DST] * us[k];
        const double a_sw = qdd[1] * ew[k] - x[DSW] * x[DSW] * uw[k];
        w[k] = p[M] * p[A] * a_st + p[MH] * l * a_st + p[M] * (l * a_st - p[B] * a_sw);
    }
    w[1] += (2 * p[M] + p[MH]) * p[G];
    to_slope(w, slope(p), R);
}

static double weight(const double *p, const void *data) { return (2 * p[M] + p[MH]) * p[G]; }

/* Near heel-strike l (cos(th_sw - gamma) - cos(th_st - gamma)) has the
 * sign of th_st + th_sw - 2 gamma, so both rise through 0 there. */
static double heelstrike_surface(double t, const double *x, const double *p, const void *data)
{
    if (p[STEP_DOWN] != 0.0) return -foot_clearance(x, p, data) - p[STEP_DOWN];
    return x[ST] + x[SW] - 2.0 * slope(p);
}

static bool stance_past_normal(double t, const double *x, const double *p, const void *data)
{
    return x[ST] > slope(p) && (p[STEP_DOWN] == 0.0 || x[ST] > x[SW]);
}

/* Mid-stance, where a push acts: the stance leg rising through the slope
 * normal; a constant (never crossed) without a push. */
static double mid_stance(double t, const double *x, const double *p, const void *data)
{
    return p[PUSH] != 0.0 ? x[ST] - slope(p) : 1.0;
}

static int push(const double *xm, double *xp, const double *p, const void *data)
{
    double Mq[2][2];
    mass_matrix(xm, p, Mq);
    const double q0 = leg(p) * cos(xm[ST]) * p[PUSH];
    const double det = Mq[0][0] * Mq[1][1] - Mq[0][1] * Mq[1][0];
    xp[ST] = xm[ST];
    xp[SW] = xm[SW];
    xp[DST] = xm[DST] + Mq[1][1] * q0 / det;
    xp[DSW] = xm[DSW] - Mq[1][0] * q0 / det;
    return 0;
}

static double stance_rate(double t, const double *x, const double *p, const void *data) { return x[DST]; }

static double hip_down_front(double t, const double *x, const double *p, const void *data)
{
    return M_PI_2 - (x[ST] - slope(p));
}

static double hip_down_behind(double t, const double *x, const double *p, const void *data)
{
    return M_PI_2 + (x[ST] - slope(p));
}

static void lift(double *x, const double *p, const void *data) { x[SW] = 2.0 * slope(p) - x[ST]; }

/* Near the gait Goswami et al. report for the default walker at 3 degrees. */
static void guess(double *x, const double *p, const void *data)
{
    x[ST] = -0.22;
    x[DST] = 1.1 * sqrt(p[G] / 9.81);
    x[DSW] = 0.4 * sqrt(p[G] / 9.81);
    lift(x, p, data);
}

static void search_box(const double *p, const void *data, double *lo, double *hi)
{
    const double w = sqrt(p[G] / leg(p));
    lo[0] = -0.45, hi[0] = -0.05;     /* th_st */
    lo[1] = 0.2 * w, hi[1] = 2.5 * w; /* dth_st */
    lo[2] = -1.0 * w, hi[2] = 2.0 * w; /* dth_sw */
}

static double time_limit(const double *p, const void *data) { return 20.0 * sqrt(leg(p) / p[G]); }

static double kinetic(const double *x, const double *p, const void *data)
{
    double Mq[2][2];
    mass_matrix(x, p, Mq);
    return 0.5 * (Mq[0][0] * x[DST] * x[DST] + 2 * Mq[0][1] * x[DST] * x[DSW] + Mq[1][1] * x[DSW] * x[DSW]);
}

static double potential(const double *x, const double *p, const void *data)
{
    return p[G] * ((p[M] * p[A] + (p[M] + p[MH]) * leg(p)) * cos(x[ST]) - p[M] * p[B] * cos(x[SW]));
}

/* Along the slope between the feet: the chord 2 l sin((th_st - th_sw)/2) on
 * a level floor, and still the distance along the ground on a stepped one. */
static double step_length(const double *x, const double *p, const void *data)
{
    return fabs(leg(p) * (sin(x[ST] - slope(p)) - sin(x[SW] - slope(p))));
}

/* A floor step on every stride would be a staircase, whose section lies on
 * the new floor: not this model's section.  It is a disturbance only. */
static bool check_params(const double *p, const void *data, char *why, size_t why_len)
{
    if (p[STEP_DOWN] == 0.0) return true;
    snprintf(why, why_len, "step_down acts on one step only; leave it 0 (a disturbance's analyses change it for one stride)");
    return false;
}

static const sm_event events[] = {
    {.name = "heelstrike", .value = heelstrike_surface, .direction = +1, .guard = stance_past_normal,
     .outcome = SM_EVENT_SECTION, .reset = heelstrike},
    {.name = "rolled_back", .value = stance_rate, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_BACKWARD},
    {.name = "hip_down_front", .value = hip_down_front, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_FORWARD},
    {.name = "hip_down_behind", .value = hip_down_behind, .direction = -1, .outcome = SM_EVENT_FAIL,
     .failure = SM_FELL_BACKWARD},
    {.name = "push", .value = mid_stance, .direction = +1, .outcome = SM_EVENT_TO_PHASE, .next_phase = 0,
     .reset = push},
};

static const sm_phase phases[] = {
    {.name = "swing", .rhs = rhs, .n_events = 5, .events = events},
};

static const char *const state_names[] = {"th_st", "th_sw", "dth_st", "dth_sw"};
static const size_t free_index[] = {ST, DST, DSW};

static const sm_param_def params[] = {
    {"m", 5.0, 1e-6, 1e6, "kg", "mass of each leg (a point mass on the leg)", 0},
    {"mh", 10.0, 0.0, 1e6, "kg", "hip mass", 0},
    {"a", 0.5, 1e-6, 1e3, "m", "distance from a foot to its leg's mass", 0},
    {"b", 0.5, 1e-6, 1e3, "m", "distance from a leg's mass to the hip", 0},
    {"gamma", 0.05235987755982988, -0.5, 0.5, "rad", "slope angle of the ramp (default 3 degrees)", 0},
    {"g", 9.81, 1e-3, 1e3, "m/s^2", "gravitational acceleration", 0},
    {"step_down", 0.0, -0.2, 0.2, "m", "the next footfall's floor this much lower (negative: higher)",
     SM_PARAM_DISTURBANCE},
    {"push", 0.0, -50.0, 50.0, "N s", "forward horizontal impulse at the hip at mid-stance",
     SM_PARAM_DISTURBANCE},
    {"slope_step", 0.0, -0.2, 0.2, "rad", "the slope of one step raised by this",
     SM_PARAM_DISTURBANCE},
};

const sm_model sm_model_compass = {
    .name = "compass",
    .title = "The compass-gait biped (point-mass legs and hip)",
    .reference = "Goswami, Thuilot & Espiau (1998), Int. J. Robot. Res. 17(12):1282-1301",
    .n_state = 4,
    .state_names = state_names,
    .n_params = 9,
    .params = params,
    .n_phases = 1,
    .phases = phases,
    .start_phase = 0,
    .n_free = 3,
    .free_index = free_index,
    .lift = lift,
    .guess = guess,
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
