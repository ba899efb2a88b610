/* The sweep's CSV (src/sweep_csv.c): one column per gait measure, rows that
 * round-trip the state, the outcome of a point, and names quoted as
 * RFC 4180 fields. */
#include <stdlib.h>

#include "csv_read.h"
#include "test_util.h"

/* g = the one axis spec of m, and its CSV header. */
static void one_axis_header(const sm_model *m, const char *spec, sm_sweep_grid *g, char *header, size_t len)
{
    sm_sweep_axis a;
    char why[256];
    assert_status(sm_sweep_axis_parse(m, spec, &a, why, sizeof why), SM_OK);
    assert_status(sm_sweep_grid_add(g, &a, why, sizeof why), SM_OK);
    assert_true(sm_sweep_csv_header(m, g, header, len) > 0);
}

static size_t commas(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == ',';
    return n;
}

static void every_gait_measure_is_a_column_and_rows_round_trip(void **state)
{
    (void)state;
    const sm_model *m = test_model("simplest");
    sm_sweep_grid g = {0};
    char header[8192], row[8192];
    one_axis_header(m, "gamma=0.005:0.01:2", &g, header, sizeof header);
    /* One table decides the measures: a field added to it is a column. */
    for (size_t k = 0; k < sm_metric_field_count; k++) {
        char col[80];
        const char *name = strcmp(sm_metric_fields[k].name, "period") == 0 ? "step_period" : sm_metric_fields[k].name;
        snprintf(col, sizeof col, ",%s,", name);
        if (!strstr(header, col)) print_error("no column %s in %s\n", name, header);
        assert_non_null(strstr(header, col));
    }
    assert_non_null(strstr(header, ",x_theta,x_theta_dot,x_phi,x_phi_dot,seed,wall_s,trivial_eig\n"));

    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    double p[SM_MAX_PARAMS] = {0.009}, x0[4];
    m->guess(x0, p, m->data);
    sm_sweep_point pt = {.index = 1, .values = {0.009}, .seed = SM_SEED_NEIGHBOUR, .wall = 0.25};
    assert_status(sm_fixed_point(ws, p, x0, &(sm_newton_options){1, 1e-10, 30, 0, false, 20, SM_NEWTON_BROYDEN, NULL, SM_JACOBIAN_FD, false}, &pt.r),
                  SM_OK);
    sm_workspace_free(ws);
    size_t n = sm_sweep_csv_row(m, &g, &pt, row, sizeof row);
    assert_true(n > 0 && row[n - 1] == '\n');
    assert_int_equal(commas(row), commas(header));
    assert_true(strncmp(row, "1,0.0089999999999999993,stable,ok,ok,1,1,", 41) == 0);
    /* The state comes back bit for bit: a row read by --resume seeds exactly. */
    const char *xs = row;
    for (size_t k = 0; k < commas(header) - 6; k++) xs = strchr(xs, ',') + 1;
    for (size_t i = 0; i < 4; i++) {
        char *end;
        double v = strtod(xs, &end);
        assert_true(v == pt.r.x[i]);
        xs = end + 1;
    }
    assert_non_null(strstr(row, ",neighbour,0.250000,0\n")); /* no conserved quantity: no trivial multiplier */
    assert_string_equal(sm_sweep_outcome_name(sm_sweep_point_outcome(&pt)), "stable");
    pt.r.converged = false;
    pt.r.status = SM_NOT_CONVERGED;
    pt.r.stride_status = SM_FELL_FORWARD;
    assert_int_equal(sm_sweep_point_outcome(&pt), SM_OUTCOME_FELL);
    pt.r.stride_status = SM_INTEGRATOR_FAILED;
    assert_int_equal(sm_sweep_point_outcome(&pt), SM_OUTCOME_NOT_CONVERGED);
    n = sm_sweep_csv_row(m, &g, &pt, row, sizeof row);
    assert_non_null(strstr(row, ",not_converged,not_converged,integrator_failed,0,0,nan,"));
    assert_int_equal(sm_sweep_csv_row(m, &g, &pt, row, 40), 0); /* too small: nothing, not half a row */
}

/* The fields of line, which must be one whole record. */
static size_t record_of(const char *line, char fields[][64])
{
    const char *end = NULL;
    const size_t n = rfc4180_record(line, fields, 128, &end);
    assert_true(n <= 128);
    assert_int_equal(*end, '\0');
    return n;
}

/* The outcome column, as the README defines it: stable and unstable gaits
 * (converged, eigenvalues judged), no_stability (converged, no eigenvalues),
 * degenerate (a fixed point that is no gait), fell (no gait: the walker
 * fell), not_converged (no gait for another reason, a stall near the
 * integration error included, whatever strides fell on the way). */
static void outcomes_follow_the_readme(void **state)
{
    (void)state;
    static const char *const names[] = {"stable", "unstable", "fell", "not_converged", "no_stability",
                                        "degenerate"};
    const sm_sweep_outcome codes[] = {SM_OUTCOME_STABLE,        SM_OUTCOME_UNSTABLE,     SM_OUTCOME_FELL,
                                      SM_OUTCOME_NOT_CONVERGED, SM_OUTCOME_NO_STABILITY, SM_OUTCOME_DEGENERATE};
    for (size_t k = 0; k < 6; k++) assert_string_equal(sm_sweep_outcome_name(codes[k]), names[k]);

    static const struct {
        bool converged;
        sm_status status, stride_status;
        bool stable;
        sm_sweep_outcome want;
    } cases[] = {
        {true, SM_OK, SM_OK, true, SM_OUTCOME_STABLE},
        {true, SM_OK, SM_FELL_FORWARD, true, SM_OUTCOME_STABLE}, /* a trial stride fell; the gait stands */
        {true, SM_OK, SM_OK, false, SM_OUTCOME_UNSTABLE},
        {true, SM_SINGULAR_JACOBIAN, SM_OK, false, SM_OUTCOME_NO_STABILITY},
        {false, SM_DEGENERATE_GAIT, SM_OK, false, SM_OUTCOME_DEGENERATE},
        {false, SM_NOT_CONVERGED, SM_FELL_BACKWARD, false, SM_OUTCOME_FELL},
        {false, SM_NOT_CONVERGED, SM_FELL_FORWARD, false, SM_OUTCOME_FELL},
        {false, SM_FELL_FORWARD, SM_FELL_FORWARD, false, SM_OUTCOME_FELL},
        {false, SM_FELL_BACKWARD, SM_OK, false, SM_OUTCOME_FELL},
        {false, SM_STALLED, SM_FELL_BACKWARD, false, SM_OUTCOME_NOT_CONVERGED},
        {false, SM_NOT_CONVERGED, SM_OK, false, SM_OUTCOME_NOT_CONVERGED},
        {false, SM_NOT_CONVERGED, SM_INTEGRATOR_FAILED, false, SM_OUTCOME_NOT_CONVERGED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static sm_sweep_point pt;
        memset(&pt, 0, sizeof pt);
        pt.r.converged = cases[i].converged;
        pt.r.status = cases[i].status;
        pt.r.stride_status = cases[i].stride_status;
        pt.r.stable = cases[i].stable;
        const sm_sweep_outcome got = sm_sweep_point_outcome(&pt);
        if (got != cases[i].want)
            fail_msg("case %zu (%s, %s): %s, expected %s", i, sm_status_name(cases[i].status),
                     sm_status_name(cases[i].stride_status), sm_sweep_outcome_name(got),
                     sm_sweep_outcome_name(cases[i].want));
    }
}

/* Names from model files may hold a comma, a quote or a line break: the
 * header quotes exactly those fields, and a CSV reader gets every name
 * back whole, so the columns of the rows stay in their places. */
static void odd_names_are_quoted_fields(void **state)
{
    (void)state;
    static const char *const odd_state[] = {"plain", "with,comma", "say \"hi\"", "two\nlines"};
    sm_model m = *test_model("compass"); /* four states, three free */
    m.state_names = odd_state;
    sm_sweep_grid g = {.n_axes = 2};
    g.axis[0] = (sm_sweep_axis){.name = "a,b", .param = 2, .lo = 0.4, .hi = 0.5, .n = 2};
    g.axis[1] = (sm_sweep_axis){.name = "mh", .param = 1, .lo = 9, .hi = 10, .n = 2};
    char header[4096];
    const size_t hn = sm_sweep_csv_header(&m, &g, header, sizeof header);
    assert_true(hn > 0 && header[hn - 1] == '\n');
    assert_int_equal(strlen(header), hn);
    assert_non_null(strstr(header, "index,\"a,b\",mh,outcome,"));
    assert_non_null(strstr(header, ",x_plain,\"x_with,comma\",\"x_say \"\"hi\"\"\",\"x_two\nlines\",seed,"));

    static char fields[128][64];
    const size_t nf = record_of(header, fields);
    assert_string_equal(fields[0], "index");
    assert_string_equal(fields[1], "a,b");
    assert_string_equal(fields[2], "mh");
    assert_string_equal(fields[3], "outcome");
    assert_string_equal(fields[nf - 7], "x_plain");
    assert_string_equal(fields[nf - 6], "x_with,comma");
    assert_string_equal(fields[nf - 5], "x_say \"hi\"");
    assert_string_equal(fields[nf - 4], "x_two\nlines");
    assert_string_equal(fields[nf - 3], "seed");
    assert_string_equal(fields[nf - 1], "trivial_eig");

    /* a row has as many fields, and its values in the header's places */
    static sm_sweep_point pt;
    memset(&pt, 0, sizeof pt);
    pt.index = 3;
    pt.values[0] = 0.5;
    pt.values[1] = 10;
    pt.r.status = SM_NOT_CONVERGED;
    pt.r.stride_status = SM_FELL_BACKWARD;
    pt.r.trivial_index = -1;
    const double x[4] = {0.25, -1.5, 1e-300, -0.0};
    memcpy(pt.r.x, x, sizeof x);
    pt.seed = SM_SEED_GUESS_RETRY;
    pt.wall = 1.5;
    char row[4096];
    assert_true(sm_sweep_csv_row(&m, &g, &pt, row, sizeof row) > 0);
    static char rf[128][64];
    assert_int_equal(record_of(row, rf), nf);
    assert_string_equal(rf[0], "3");
    assert_true(strtod(rf[1], NULL) == 0.5);
    assert_true(strtod(rf[2], NULL) == 10);
    assert_string_equal(rf[3], "fell");
    assert_string_equal(rf[4], "not_converged");
    assert_string_equal(rf[5], "fell_backward");
    assert_string_equal(rf[6], "0"); /* converged */
    assert_string_equal(rf[7], "0"); /* stable */
    for (size_t i = 0; i < 4; i++) assert_true(strtod(rf[nf - 7 + i], NULL) == x[i]);
    assert_string_equal(rf[nf - 3], "guess_retry");
    assert_string_equal(rf[nf - 2], "1.500000");
    assert_string_equal(rf[nf - 1], "0");
}

/* A point without a gait has no eigenvalues and no measures (nan), and a
 * gait with a trivial multiplier names it by its 1-based column. */
static void rows_say_nan_where_nothing_was_measured(void **state)
{
    (void)state;
    const sm_model *m = test_model("compass");
    sm_sweep_grid g = {.n_axes = 1};
    g.axis[0] = (sm_sweep_axis){.name = "gamma", .param = 4, .lo = 0.01, .hi = 0.02, .n = 2};
    char header[4096], row[4096];
    assert_true(sm_sweep_csv_header(m, &g, header, sizeof header) > 0);
    static char hf[128][64], rf[128][64];
    const size_t nf = record_of(header, hf);

    static sm_sweep_point pt;
    memset(&pt, 0, sizeof pt);
    pt.r.status = SM_NOT_CONVERGED;
    pt.r.stride_status = SM_OK;
    pt.r.trivial_index = 1; /* ignored without eigenvalues */
    pt.r.max_abs_eig = 0.5;
    pt.r.eig_re[0] = 0.5;
    pt.r.metrics.step_length = 0.3;
    assert_true(sm_sweep_csv_row(m, &g, &pt, row, sizeof row) > 0);
    assert_int_equal(record_of(row, rf), nf);
    for (size_t k = 0; k < nf; k++) {
        const bool measured = strcmp(hf[k], "max_abs_eig") == 0 || strncmp(hf[k], "eig", 3) == 0 ||
                              strcmp(hf[k], "step_length") == 0 || strcmp(hf[k], "step_period") == 0;
        if (measured && strcmp(rf[k], "nan") != 0) fail_msg("%s is '%s', not nan", hf[k], rf[k]);
    }
    assert_string_equal(rf[nf - 1], "0");

    /* converged and judged: the numbers, and the trivial multiplier's K */
    pt.r.converged = true;
    pt.r.status = SM_OK;
    pt.r.stable = true;
    pt.r.eig_re[1] = 1.0;
    assert_true(sm_sweep_csv_row(m, &g, &pt, row, sizeof row) > 0);
    assert_int_equal(record_of(row, rf), nf);
    for (size_t k = 0; k < nf; k++) {
        if (strcmp(hf[k], "max_abs_eig") == 0 || strcmp(hf[k], "eig1_re") == 0) assert_true(strtod(rf[k], NULL) == 0.5);
        if (strcmp(hf[k], "eig2_re") == 0) assert_true(strtod(rf[k], NULL) == 1.0);
        if (strcmp(hf[k], "step_length") == 0) assert_true(strtod(rf[k], NULL) == 0.3);
        if (strcmp(hf[k], "outcome") == 0) assert_string_equal(rf[k], "stable");
    }
    assert_string_equal(rf[nf - 1], "2");

    /* a buffer too small for the header gives nothing */
    assert_int_equal(sm_sweep_csv_header(m, &g, header, 20), 0);
}

/* Spring-mass walking conserves its energy, so its gaits form a family and
 * one multiplier is 1 along it (Geyer et al. 2006).  The row says which
 * eigK that is, and max_abs_eig is the largest of the others. */
static void the_trivial_multiplier_is_marked_in_its_row(void **state)
{
    (void)state;
    const sm_model *m = test_model("slip");
    sm_sweep_grid g = {0};
    char header[8192], row[8192];
    one_axis_header(m, "k=20000:20000:1", &g, header, sizeof header);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_newton_options opt;
    sm_newton_options_default(&opt);
    sm_workspace *ws = test_workspace(m, 0, SM_METHOD_ADAMS);
    sm_sweep_point pt = {.index = 0, .values = {20000}};
    assert_status(sm_fixed_point(ws, p, x0, &opt, &pt.r), SM_OK);
    sm_workspace_free(ws);
    assert_true(sm_sweep_csv_row(m, &g, &pt, row, sizeof row) > 0);

    static char hf[128][64], rf[128][64];
    const char *end;
    size_t nh = rfc4180_record(header, hf, 128, &end);
    assert_int_equal(rfc4180_record(row, rf, 128, &end), nh);
    int tc = column(hf, nh, "trivial_eig"), mc = column(hf, nh, "max_abs_eig");
    assert_int_equal(tc, (int)nh - 1); /* appended: the older columns keep their places */
    long k = strtol(rf[tc], NULL, 10);
    assert_true(k >= 1 && k <= (long)m->n_free);
    double others = 0;
    for (long j = 1; j <= (long)m->n_free; j++) {
        char re[32], im[32];
        snprintf(re, sizeof re, "eig%ld_re", j);
        snprintf(im, sizeof im, "eig%ld_im", j);
        double vr = strtod(rf[column(hf, nh, re)], NULL), vi = strtod(rf[column(hf, nh, im)], NULL);
        if (j == k) {
            assert_close(vr, 1.0, 1e-6);
            assert_close(vi, 0.0, 1e-12);
        } else {
            others = fmax(others, hypot(vr, vi));
        }
    }
    assert_close(strtod(rf[mc], NULL), others, 1e-12);
    assert_true(others < 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_gait_measure_is_a_column_and_rows_round_trip),
        cmocka_unit_test(outcomes_follow_the_readme),
        cmocka_unit_test(odd_names_are_quoted_fields),
        cmocka_unit_test(rows_say_nan_where_nothing_was_measured),
        cmocka_unit_test(the_trivial_multiplier_is_marked_in_its_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
