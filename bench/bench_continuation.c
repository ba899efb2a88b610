/* bench_continuation: what following a branch, locating a bifurcation and
 * drawing an orbit diagram cost.
 *
 *   bench_continuation [--quick] [--json]
 *
 * branch    sm_continue of the simplest walker's gait from gamma = 0.004 to
 *           0.014 (period 1, no bifurcation inside), library defaults
 *           (rtol = atol = 1e-10, corrector tol 1e-10, central differences,
 *           h0 = 1e-3, h_max = 0.05): points per second, strides per point
 * locate    the same from 0.0145 to 0.0155, across the first period doubling
 *           (gamma = 0.01509), with and without locating it: the difference
 *           is the cost of one located bifurcation
 * switch    sm_cont_switch_pd at that PD: the first point of the period-2 branch
 * orbit     sm_orbit of the simplest walker at gamma = 0.016 (its period-2
 *           attractor), 2000 strides: strides per second
 * maps      the same branch and orbit measures for the logistic map (no ODE:
 *           the engine's own overhead)
 *
 * Wall-clock (CLOCK_MONOTONIC), best of N runs (the machine is shared). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stridemap/stridemap.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, sm_status st)
{
    fprintf(stderr, "bench_continuation: %s: %s (%s)\n", what, sm_status_name(st), sm_strerror(st));
    exit(1);
}

static sm_workspace *workspace(const char *name, const sm_model **m)
{
    *m = sm_registry_find(name);
    if (!*m) die(name, SM_UNKNOWN_MODEL);
    sm_workspace *ws = NULL;
    sm_status st = sm_workspace_create(*m, NULL, &ws);
    if (st != SM_OK) die("workspace", st);
    return ws;
}

typedef struct {
    double seconds;   /* best */
    int points;       /* handed to the callback */
    long strides;
    int special;
    double where;     /* first special point's parameter */
} cont_run;

static cont_run branch(const char *name, double from, double to, bool locate, int reps)
{
    const sm_model *m;
    sm_workspace *ws = workspace(name, &m);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    p[0] = from;
    m->guess(x, p, m->data);
    sm_cont_options o;
    sm_cont_options_default(&o, m, 0);
    o.lo = fmin(from, to);
    o.hi = fmax(from, to);
    o.direction = to > from ? 1 : -1;
    o.locate = locate;
    cont_run best = {.seconds = INFINITY};
    sm_cont_result *r = malloc(sizeof *r);
    for (int k = 0; k < reps; k++) {
        double t0 = now_s();
        sm_status st = sm_continue(ws, p, x, &o, NULL, NULL, r);
        double t = now_s() - t0;
        if (st != SM_OK || r->stop != SM_STOP_BOUND) die("sm_continue", st);
        if (t < best.seconds) best.seconds = t;
        best.points = r->n_points;
        best.strides = r->stride_evals;
        best.special = r->n_special;
        best.where = r->n_special ? r->special[0].mu : NAN;
    }
    free(r);
    sm_workspace_free(ws);
    return best;
}

/* The cost of switching at the simplest walker's first PD. */
static double switch_cost(int reps, long *strides)
{
    const sm_model *m;
    sm_workspace *ws = workspace("simplest", &m);
    double p[SM_MAX_PARAMS] = {0.0145}, x[4], mu;
    m->guess(x, p, m->data);
    sm_cont_options o, o2;
    sm_cont_options_default(&o, m, 0);
    o.lo = 0.0145;
    o.hi = 0.0155;
    sm_cont_result *r = malloc(sizeof *r);
    sm_status st = sm_continue(ws, p, x, &o, NULL, NULL, r);
    if (st != SM_OK || r->n_special < 1) die("continue to the PD", st);
    const sm_cont_point pd = r->special[0];
    free(r);
    double best = INFINITY;
    for (int k = 0; k < reps; k++) {
        sm_counters c0, c1;
        sm_workspace_counters(ws, &c0);
        double t0 = now_s();
        p[0] = pd.mu;
        st = sm_cont_switch_pd(ws, p, &pd, &o, 0, x, &mu, &o2);
        double t = now_s() - t0;
        sm_workspace_counters(ws, &c1);
        if (st != SM_OK) die("sm_cont_switch_pd", st);
        best = fmin(best, t);
        *strides = c1.flows - c0.flows; /* one phase per stride for this walker */
    }
    sm_workspace_free(ws);
    return best;
}

static double orbit_rate(const char *name, double value, int strides, int reps)
{
    const sm_model *m;
    sm_workspace *ws = workspace(name, &m);
    double p[SM_MAX_PARAMS], x[SM_MAX_STATE];
    sm_model_default_params(m, p);
    p[0] = value;
    m->guess(x, p, m->data);
    sm_newton_options no;
    sm_newton_options_default(&no);
    sm_fixed_result fr;
    if (sm_fixed_point(ws, p, x, &no, &fr) == SM_OK) memcpy(x, fr.x, m->n_state * sizeof *x);
    sm_orbit_options o;
    sm_orbit_options_default(&o);
    o.transient = 0;
    o.record = strides;
    sm_orbit_result r;
    double best = INFINITY;
    for (int k = 0; k < reps; k++) {
        double t0 = now_s();
        sm_status st = sm_orbit(ws, p, x, &o, NULL, NULL, &r);
        double t = now_s() - t0;
        if (st != SM_OK) die("sm_orbit", st);
        best = fmin(best, t);
    }
    sm_workspace_free(ws);
    return strides / best;
}

int main(int argc, char **argv)
{
    bool quick = false, json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--json") == 0)
            json = true;
        else {
            fprintf(stderr, "usage: bench_continuation [--quick] [--json]\n");
            return 64;
        }
    }
    const int reps = quick ? 1 : 5;
    cont_run b = branch("simplest", 0.004, 0.014, true, reps);
    cont_run with = branch("simplest", 0.0145, 0.0155, true, reps);
    cont_run without = branch("simplest", 0.0145, 0.0155, false, reps);
    long sw_strides = 0;
    double sw = switch_cost(reps, &sw_strides);
    double orbit = orbit_rate("simplest", 0.016, quick ? 200 : 2000, reps);
    cont_run lb = branch("logistic", 2.5, 2.99, true, reps);
    double lorbit = orbit_rate("logistic", 3.9, quick ? 20000 : 200000, reps);

    if (json) {
        printf("{\"branch\": {\"points\": %d, \"seconds\": %.6g, \"points_per_s\": %.6g, \"strides_per_point\": %.4g},\n"
               " \"locate\": {\"with_s\": %.6g, \"without_s\": %.6g, \"strides_with\": %ld, \"strides_without\": %ld,"
               " \"pd\": %.12g},\n"
               " \"switch\": {\"seconds\": %.6g, \"strides\": %ld},\n"
               " \"orbit_strides_per_s\": %.6g,\n"
               " \"logistic\": {\"points_per_s\": %.6g, \"orbit_steps_per_s\": %.6g}}\n",
               b.points, b.seconds, b.points / b.seconds, (double)b.strides / b.points, with.seconds,
               without.seconds, with.strides, without.strides, with.where, sw, sw_strides, orbit,
               lb.points / lb.seconds, lorbit);
        return 0;
    }
    printf("simplest walker, rtol = atol = 1e-10, best of %d\n", reps);
    printf("  branch gamma 0.004 -> 0.014   %3d points  %8.2f ms  %7.1f points/s  %5.1f strides/point\n", b.points,
           1e3 * b.seconds, b.points / b.seconds, (double)b.strides / b.points);
    printf("  0.0145 -> 0.0155, locating    %3d points  %8.2f ms  %5ld strides  (PD at %.10f)\n", with.points,
           1e3 * with.seconds, with.strides, with.where);
    printf("  0.0145 -> 0.0155, not        %3d points  %8.2f ms  %5ld strides\n", without.points,
           1e3 * without.seconds, without.strides);
    printf("  one located PD costs          %8.2f ms  %5ld strides\n", 1e3 * (with.seconds - without.seconds),
           with.strides - without.strides);
    printf("  switch to period 2 at the PD  %8.2f ms  %5ld strides\n", 1e3 * sw, sw_strides);
    printf("  orbit at gamma 0.016          %8.0f strides/s\n", orbit);
    printf("logistic map (no ODE)\n");
    printf("  branch r 2.5 -> 2.99          %3d points  %8.3f ms  %7.0f points/s\n", lb.points, 1e3 * lb.seconds,
           lb.points / lb.seconds);
    printf("  orbit at r 3.9                %8.3g steps/s\n", lorbit);
    return 0;
}
