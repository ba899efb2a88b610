/* Basins of attraction (basin.h): the cell at the gait, its neighbours by
 * the gait's multipliers, a fall whose direction the equations of motion
 * decide, cell mapping against walking every cell, a period-2 orbit, and the
 * measures on planes whose answers are known.  Threads, shards, resume and
 * MPI are the sweep's: tests/test_cli_basin.c runs them through the program. */
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

typedef struct {
    const sm_model *m;
    sm_workspace *ws;
    sm_fixed_result r;
    double p[SM_MAX_PARAMS];
} gait_fixture;

/* The simplest walker's gait at gamma, of period N. */
static void find_gait(gait_fixture *f, double gamma, int period)
{
    f->m = test_model("simplest");
    sm_model_default_params(f->m, f->p);
    f->p[0] = gamma;
    sm_solver_options so;
    sm_solver_options_default(&so);
    so.rtol = so.atol = 1e-10;
    assert_status(sm_workspace_create(f->m, &so, &f->ws), SM_OK);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.period = period;
    no.tol = 1e-9;
    double x0[SM_MAX_STATE];
    f->m->guess(x0, f->p, f->m->data);
    sm_fixed_point(f->ws, f->p, x0, &no, &f->r);
    assert_true(f->r.converged);
}

/* A plane of n x n cells centred on the gait's (theta, theta_dot), half-width h. */
static sm_basin *plane_about(gait_fixture *f, double h, long n, bool cell_map, long max_strides)
{
    sm_basin_config c;
    sm_basin_config_default(&c, f->m);
    memcpy(c.params, f->p, sizeof c.params);
    char spec[2][128], why[256];
    snprintf(spec[0], sizeof spec[0], "theta=%.17g:%.17g:%ld", f->r.x[0] - h, f->r.x[0] + h, n);
    snprintf(spec[1], sizeof spec[1], "theta_dot=%.17g:%.17g:%ld", f->r.x[1] - h, f->r.x[1] + h, n);
    for (size_t k = 0; k < 2; k++) {
        assert_status(sm_basin_axis_parse(f->m, spec[k], &c.plane.axis[k], why, sizeof why), SM_OK);
        c.plane.n_axes++;
    }
    c.cell_map = cell_map;
    c.max_strides = max_strides;
    sm_basin *b = NULL;
    sm_status st = sm_basin_create(&c, &f->r.gait, f->ws, &b, why, sizeof why);
    if (st != SM_OK) print_error("%s\n", why);
    assert_status(st, SM_OK);
    return b;
}

/* Every cell of b in order, line by line (a unit of work per line). */
static void run_all(sm_basin *b, gait_fixture *f, sm_basin_cell *cells, long n0)
{
    for (long i = 0; i < sm_basin_cells(b); i++) sm_basin_cell_run(b, f->ws, i, i - i % n0, &cells[i]);
}

static void the_gait_cell_converges_at_once_and_its_neighbours_by_the_multipliers(void **state)
{
    (void)state;
    gait_fixture f;
    find_gait(&f, 0.009, 1);
    const double h = 1e-3;
    sm_basin *b = plane_about(&f, h, 3, false, 200);
    sm_basin_cell cells[9];
    run_all(b, &f, cells, 3);
    /* The centre is the gait itself: within tol before any stride. */
    assert_int_equal(cells[4].outcome, SM_BASIN_CONVERGED);
    assert_int_equal(cells[4].strides, 0);
    assert_int_equal(cells[4].orbit_point, 0);
    assert_true(cells[4].distance <= 1e-12);
    /* A start 1e-3 off decays like rho^k (rho = max |multiplier| = 0.589, a
     * complex pair: the distance shrinks by rho per stride up to the
     * eigenvectors' conditioning), so it comes within 1e-6 after about
     * log(1e-6/1e-3)/log(rho) = 13 strides. */
    const double rho = f.r.max_abs_eig;
    assert_close(rho, 0.589113185, 1e-6); /* README's, from Garcia's gait */
    const double k_lin = log(1e-6 / h) / log(rho);
    for (int i = 0; i < 9; i++) {
        if (i == 4) continue;
        assert_int_equal(cells[i].outcome, SM_BASIN_CONVERGED);
        assert_status(cells[i].status, SM_OK);
        assert_true(cells[i].distance <= 1e-6);
        assert_true(cells[i].strides >= k_lin - 4 && cells[i].strides <= k_lin + 6);
        assert_int_equal(cells[i].mapped_from, -1);
    }
    sm_basin_free(b);
    sm_workspace_free(f.ws);
}

/* theta_dot > 0 with theta > gamma: theta'' = sin(theta - gamma) > 0, so theta
 * grows without turning back until the hip reaches the ground behind. */
static void a_stance_leg_swinging_uphill_falls_backward_in_the_first_stride(void **state)
{
    (void)state;
    gait_fixture f;
    find_gait(&f, 0.009, 1);
    sm_basin *b = plane_about(&f, 1e-3, 3, true, 100);
    double z[SM_MAX_STATE] = {0.2, 0.1};
    sm_basin_cell cell;
    sm_basin_walk(b, f.ws, z, &cell);
    assert_int_equal(cell.outcome, SM_BASIN_FELL);
    assert_status(cell.status, SM_FELL_BACKWARD);
    assert_int_equal(cell.strides, 0);
    assert_true(isnan(cell.distance));
    sm_basin_free(b);
    sm_workspace_free(f.ws);
}

/* Cell mapping takes the fate of an earlier walk of the same line that passed
 * through the cell; walking every cell to its end is the reference.  The
 * documented difference: a mapped cell may differ where another state of its
 * cell has another fate (near the basin's edge), and its stride count by the
 * strides between the two states.  Asserted: only mapped cells differ, at
 * most 1 % of them, and their stride counts by at most 8. */
static void cell_mapping_gives_the_outcomes_of_walking_every_cell(void **state)
{
    (void)state;
    gait_fixture f;
    find_gait(&f, 0.009, 1);
    const long n = 15;
    sm_basin *walked = plane_about(&f, 0.03, n, false, 100), *mapped = plane_about(&f, 0.03, n, true, 100);
    assert_true(sm_basin_cell_map_used(mapped));
    assert_false(sm_basin_cell_map_used(walked));
    sm_basin_cell *a = calloc((size_t)(n * n), sizeof *a), *c = calloc((size_t)(n * n), sizeof *c);
    run_all(walked, &f, a, n);
    run_all(mapped, &f, c, n);
    long n_mapped = 0, n_conv = 0, n_fell = 0, n_diff = 0;
    for (long i = 0; i < n * n; i++) {
        n_conv += a[i].outcome == SM_BASIN_CONVERGED;
        n_fell += a[i].outcome == SM_BASIN_FELL;
        assert_int_equal(a[i].mapped_from, -1);
        if (c[i].mapped_from < 0) {
            /* walked to its end: the same walk */
            assert_int_equal(c[i].outcome, a[i].outcome);
            assert_int_equal(c[i].strides, a[i].strides);
            assert_status(c[i].status, a[i].status);
            continue;
        }
        n_mapped++;
        /* an earlier cell of its own line */
        assert_true(c[i].mapped_from < i && c[i].mapped_from >= i - i % n);
        if (c[i].outcome != a[i].outcome) {
            n_diff++;
            continue;
        }
        if (a[i].outcome == SM_BASIN_FELL) assert_status(c[i].status, a[i].status);
        assert_true(labs(c[i].strides - a[i].strides) <= 8);
    }
    /* The plane holds both outcomes, and mapping was used. */
    assert_true(n_conv > 0 && n_fell > 0);
    assert_true(n_mapped >= 5);
    assert_true(n_diff <= n * n / 100);
    free(a);
    free(c);
    sm_basin_free(walked);
    sm_basin_free(mapped);
    sm_workspace_free(f.ws);
}

/* A worker that meets a unit part-way (a resume) walks its earlier cells
 * first: the same marks, the same fate as going through the unit in order. */
static void a_unit_resumed_part_way_maps_as_an_unbroken_one(void **state)
{
    (void)state;
    gait_fixture f;
    find_gait(&f, 0.009, 1);
    const long n = 15;
    sm_basin *whole = plane_about(&f, 0.03, n, true, 100), *resumed = plane_about(&f, 0.03, n, true, 100);
    sm_basin_cell *a = calloc((size_t)(n * n), sizeof *a);
    run_all(whole, &f, a, n);
    long checked = 0;
    for (long i = 0; i < n * n; i++) {
        if (a[i].mapped_from < 0 || a[i].mapped_from == i - i % n) continue;
        /* start the unit at the cell after the one whose walk made the mark */
        sm_basin_cell c;
        sm_basin_cell_run(resumed, f.ws, i, i - i % n, &c);
        assert_int_equal(c.mapped_from, a[i].mapped_from);
        assert_int_equal(c.outcome, a[i].outcome);
        assert_int_equal(c.strides, a[i].strides);
        checked++;
    }
    assert_true(checked > 0);
    free(a);
    sm_basin_free(whole);
    sm_basin_free(resumed);
    sm_workspace_free(f.ws);
}

/* The period-2 gait at gamma = 0.016: its second point is a point of the
 * orbit too, reached in 0 strides. */
static void a_period_two_orbit_is_reached_at_either_point(void **state)
{
    (void)state;
    gait_fixture f;
    find_gait(&f, 0.016, 2);
    assert_int_equal(f.r.minimal_period, 2);
    sm_basin *b = plane_about(&f, 1e-3, 3, true, 100);
    double x1[SM_MAX_STATE], z[SM_MAX_STATE];
    assert_status(sm_stride(f.ws, f.p, f.r.x, x1, NULL, NULL), SM_OK);
    sm_model_free(f.m, x1, z);
    sm_basin_cell cell;
    sm_basin_walk(b, f.ws, z, &cell);
    assert_int_equal(cell.outcome, SM_BASIN_CONVERGED);
    assert_int_equal(cell.strides, 0);
    assert_int_equal(cell.orbit_point, 1);
    sm_basin_free(b);
    sm_workspace_free(f.ws);
}

/* ---- measures ---- */

static sm_sweep_grid unit_plane(long n0, long n1)
{
    sm_sweep_grid g = {0};
    g.n_axes = 2;
    g.axis[0] = (sm_sweep_axis){.name = "a", .lo = 0, .hi = 1, .n = n0};
    g.axis[1] = (sm_sweep_axis){.name = "b", .lo = 0, .hi = 1, .n = n1};
    return g;
}

/* A plus sign of converging cells on a 5 x 5 plane of spacing 1/4, the gait
 * at (0.5, 0.5): 9 cells, 9/25 of the plane; along a, cells from 0 to 1
 * converge but the row above and below does not matter; along b likewise. */
static void measures_of_a_plus_sign(void **state)
{
    (void)state;
    sm_sweep_grid g = unit_plane(5, 5);
    unsigned char o[25];
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 5; i++) o[i + 5 * j] = (i == 2 || j == 2) ? SM_BASIN_CONVERGED : SM_BASIN_FELL;
    o[0] = SM_BASIN_UNDECIDED;
    const double gait[2] = {0.5, 0.5};
    sm_basin_measures m;
    sm_basin_measure(&g, o, gait, &m);
    assert_int_equal(m.cells, 25);
    assert_int_equal(m.converged, 9);
    assert_int_equal(m.fell, 15);
    assert_int_equal(m.undecided, 1);
    assert_close(m.area_fraction, 9.0 / 25.0, 1e-15);
    assert_true(m.gait_inside);
    assert_int_equal(m.gait_cell, 12);
    for (int k = 0; k < 2; k++) {
        assert_true(isinf(m.reach_below[k]) && isinf(m.reach_above[k])); /* the arms reach the edges */
    }
    /* Cut the arm along a at a = 0.25 and along b at b = 1: distances 0.25 and 0.5. */
    o[1 + 5 * 2] = SM_BASIN_FELL;
    o[2 + 5 * 4] = SM_BASIN_FAILED;
    sm_basin_measure(&g, o, gait, &m);
    assert_close(m.reach_below[0], 0.25, 1e-15);
    assert_true(isinf(m.reach_above[0]));
    assert_true(isinf(m.reach_below[1]));
    assert_close(m.reach_above[1], 0.5, 1e-15);
    assert_int_equal(m.failed, 1);
}

/* A gait between cell centres: the nearest non-converging cell on each side
 * is measured from the gait, not from the gait's cell. */
static void measures_from_a_gait_between_centres(void **state)
{
    (void)state;
    sm_sweep_grid g = unit_plane(5, 3);
    unsigned char o[15];
    memset(o, SM_BASIN_CONVERGED, sizeof o);
    o[0 + 5 * 1] = SM_BASIN_FELL; /* a = 0 on the gait's line */
    const double gait[2] = {0.3, 0.5};
    sm_basin_measures m;
    sm_basin_measure(&g, o, gait, &m);
    assert_int_equal(m.gait_cell, 1 + 5 * 1);
    assert_close(m.reach_below[0], 0.3, 1e-15);
    assert_true(isinf(m.reach_above[0]));
    /* The gait off the plane: no distances. */
    const double away[2] = {2.0, 0.5};
    sm_basin_measure(&g, o, away, &m);
    assert_false(m.gait_inside);
    assert_true(isnan(m.reach_below[0]) && isnan(m.reach_above[1]));
    assert_close(m.area_fraction, 14.0 / 15.0, 1e-15);
}

static void bad_planes_are_refused_with_one_line(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_sweep_axis a;
    char why[256];
    assert_status(sm_basin_axis_parse(m, "phi=0:1:3", &a, why, sizeof why), SM_UNKNOWN_PARAM); /* lifted, not free */
    assert_non_null(strstr(why, "theta, theta_dot"));
    assert_status(sm_basin_axis_parse(m, "theta=1:0:3", &a, why, sizeof why), SM_BAD_PARAM);
    assert_status(sm_basin_axis_parse(m, "theta=0:1:1", &a, why, sizeof why), SM_BAD_PARAM);
    assert_status(sm_basin_axis_parse(m, "theta=0:x:4", &a, why, sizeof why), SM_BAD_PARAM);
    assert_status(sm_basin_axis_parse(m, "theta=0:1", &a, why, sizeof why), SM_BAD_PARAM);
    assert_status(sm_basin_axis_parse(m, "theta=0:1:4", &a, why, sizeof why), SM_OK);
    assert_int_equal(a.param, 0);
    sm_basin_config c;
    sm_basin_config_default(&c, m);
    assert_status(sm_basin_fix_parse(&c, "theta_dot=-0.2", why, sizeof why), SM_OK);
    assert_close(c.fix[1], -0.2, 0);
    assert_status(sm_basin_fix_parse(&c, "gamma=1", why, sizeof why), SM_UNKNOWN_PARAM);
    assert_status(sm_basin_fix_parse(&c, "theta=nan", why, sizeof why), SM_BAD_PARAM);
    /* A fixed coordinate that is also an axis. */
    gait_fixture f;
    find_gait(&f, 0.009, 1);
    c.plane.n_axes = 2;
    assert_status(sm_basin_axis_parse(m, "theta=0.1:0.3:3", &c.plane.axis[0], why, sizeof why), SM_OK);
    assert_status(sm_basin_axis_parse(m, "theta_dot=-0.3:-0.1:3", &c.plane.axis[1], why, sizeof why), SM_OK);
    sm_basin *b = NULL;
    assert_status(sm_basin_create(&c, &f.r.gait, f.ws, &b, why, sizeof why), SM_BAD_OPTION);
    assert_null(b);
    assert_non_null(strstr(why, "sm_basin_config.fix"));
    sm_workspace_free(f.ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_gait_cell_converges_at_once_and_its_neighbours_by_the_multipliers),
        cmocka_unit_test(a_stance_leg_swinging_uphill_falls_backward_in_the_first_stride),
        cmocka_unit_test(cell_mapping_gives_the_outcomes_of_walking_every_cell),
        cmocka_unit_test(a_unit_resumed_part_way_maps_as_an_unbroken_one),
        cmocka_unit_test(a_period_two_orbit_is_reached_at_either_point),
        cmocka_unit_test(measures_of_a_plus_sign),
        cmocka_unit_test(measures_from_a_gait_between_centres),
        cmocka_unit_test(bad_planes_are_refused_with_one_line),
    };
    return cmocka_run_group_tests_name("basin", tests, NULL, NULL);
}
