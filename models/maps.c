/* maps: plain discrete maps whose bifurcations are known exactly.
 *
 * They are "models" with a closed-form stride (sm_model.map), so the
 * continuation engine (continuation.h) can be checked against exact answers:
 * the same code follows them as follows a walker.  The state is the map's
 * variable(s), every component is free on the "section", and a step has
 * period 1.
 *
 * logistic:  x' = r x (1 - x),  r in [0, 4].
 *   Fixed point x* = 1 - 1/r, multiplier 2 - r: stable for 1 < r < 3,
 *   period doubling (multiplier -1) at r = 3 (x* = 2/3).  The period-2
 *   orbit x = ((r + 1) +- sqrt((r + 1)(r - 3))) / (2 r) has multiplier
 *   -r^2 + 2 r + 4, which is -1 at r = 1 + sqrt(6) = 3.449489742783178:
 *   the second period doubling.  The third is at r = 3.544090359551922...
 *   (a root of a polynomial; not closed form).  May (1976), Nature 261:459.
 *
 * foldmap:  x' = x + mu - x^2,  mu in [-1, 3].
 *   Fixed points x = +-sqrt(mu) exist for mu >= 0 and meet in a fold at
 *   mu = 0, x = 0 (multiplier 1 - 2x = +1).  On x = +sqrt(mu) the
 *   multiplier 1 - 2 sqrt(mu) is -1 at mu = 1 (x = 1): a period doubling.
 *   On x = -sqrt(mu) it is 1 + 2 sqrt(mu) > 1 (unstable).
 *
 * delayed_logistic:  x' = y,  y' = r y (1 - x),  r in [0, 3].
 *   Fixed point x = y = 1 - 1/r; Jacobian [[0, 1], [1 - r, 1]], trace 1,
 *   determinant r - 1, so for r > 5/4 the multipliers are a complex pair of
 *   modulus sqrt(r - 1): Neimark-Sacker at r = 2, where they are
 *   exp(+-i pi/3).  Maynard Smith (1968); Kuznetsov (2004), ex. 4.x. */
#include <math.h>

#include "models.h"

static const sm_phase map_phase[] = {{.name = "map"}};

static double one(const double *p, const void *data) { return 1.0; }

static void no_lift(double *x, const double *p, const void *data) {}

/* ---- logistic ------------------------------------------------------------ */

static int logistic_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    y[0] = p[0] * x[0] * (1.0 - x[0]);
    *period = 1.0;
    return 0;
}

static void logistic_guess(double *x, const double *p, const void *data)
{
    x[0] = p[0] > 1.0 ? 1.0 - 1.0 / p[0] : 0.0;
}

static const char *const x_names[] = {"x"};
static const size_t free_x[] = {0};

static const sm_param_def logistic_params[] = {
    {"r", 2.8, 0.0, 4.0, "1", "growth rate", 0},
};

const sm_model sm_model_logistic = {
    .name = "logistic",
    .title = "Logistic map x' = r x (1 - x) (test map: period doublings at 3 and 1 + sqrt 6)",
    .reference = "May (1976), Nature 261:459-467",
    .n_state = 1,
    .state_names = x_names,
    .n_params = 1,
    .params = logistic_params,
    .n_phases = 1,
    .phases = map_phase,
    .map = logistic_map,
    .n_free = 1,
    .free_index = free_x,
    .lift = no_lift,
    .guess = logistic_guess,
    .time_limit = one,
};

/* ---- foldmap ------------------------------------------------------------- */

static int fold_map(const double *x, double *y, double *period, const double *p, const void *data)
{
    y[0] = x[0] + p[0] - x[0] * x[0];
    *period = 1.0;
    return 0;
}

/* The stable branch x = +sqrt(mu). */
static void fold_guess(double *x, const double *p, const void *data) { x[0] = sqrt(fabs(p[0])); }

static const sm_param_def fold_params[] = {
    {"mu", 0.5, -1.0, 3.0, "1", "shift", 0},
};

const sm_model sm_model_foldmap = {
    .name = "foldmap",
    .title = "Map x' = x + mu - x^2 (test map: fold at mu = 0, period doubling at mu = 1)",
    .reference = "normal form of the fold of maps; Kuznetsov (2004), Elements of Applied Bifurcation Theory, ch. 4",
    .n_state = 1,
    .state_names = x_names,
    .n_params = 1,
    .params = fold_params,
    .n_phases = 1,
    .phases = map_phase,
    .map = fold_map,
    .n_free = 1,
    .free_index = free_x,
    .lift = no_lift,
    .guess = fold_guess,
    .time_limit = one,
};

/* ---- delayed logistic ---------------------------------------------------- */

static int delayed_logistic_map(const double *x, double *y, double *period, const double *p,
                                const void *data)
{
    const double xn = x[1], yn = p[0] * x[1] * (1.0 - x[0]);
    y[0] = xn;
    y[1] = yn;
    *period = 1.0;
    return 0;
}

static void delayed_logistic_guess(double *x, const double *p, const void *data)
{
    x[0] = x[1] = p[0] > 1.0 ? 1.0 - 1.0 / p[0] : 0.0;
}

static const char *const xy_names[] = {"x", "y"};
static const size_t free_xy[] = {0, 1};

static const sm_param_def delayed_logistic_params[] = {
    {"r", 1.5, 0.0, 3.0, "1", "growth rate", 0},
};

const sm_model sm_model_delayed_logistic = {
    .name = "delayed_logistic",
    .title = "Delayed logistic map x' = y, y' = r y (1 - x) (test map: Neimark-Sacker at r = 2)",
    .reference = "Maynard Smith (1968), Mathematical Ideas in Biology; Kuznetsov (2004), ch. 4",
    .n_state = 2,
    .state_names = xy_names,
    .n_params = 1,
    .params = delayed_logistic_params,
    .n_phases = 1,
    .phases = map_phase,
    .map = delayed_logistic_map,
    .n_free = 2,
    .free_index = free_xy,
    .lift = no_lift,
    .guess = delayed_logistic_guess,
    .time_limit = one,
};
