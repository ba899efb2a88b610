/* The controller: section of a model file (docs/body-walkers.md): the
 * actuators, the phase variable, the outputs (virtual constraints), the
 * kind of feedback, its gains and the torque limit.  Every number is a
 * body_num, so a literal coefficient is a dotted parameter
 * (controller.outputs.NAME.a2) and a named one is the file's parameter.
 * The phase variable's monotonicity is checked while the walker walks: the
 * loader adds to every phase an event failing the stride with
 * phase_not_monotone when dθ/dt, oriented from start to end, falls
 * through zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_internal.h"
#include "stridemap/control.h"

/* The q index of a 1-DOF body's coordinate. */
static int body_q(const bl_ctx *c, int b)
{
    for (size_t i = 0; i < c->f->nq; i++)
        if (c->q_body[i] == b) return (int)i;
    return -1;
}

/* on: {COORD: coefficient, ...} over 1-DOF coordinates, as v indices;
 * numbers either literal doubles (coef) or body_nums (num, named
 * base.on.COORD). */
static bool read_on(bl_ctx *c, const yaml_node_t *on, const char *what, const char *base, size_t *n, int *v,
                    double *coef, body_num *num)
{
    body_controller *k = &c->f->ctrl;
    if (!bl_want(c, on, YAML_MAPPING_NODE, "on (coordinate: coefficient, ...)")) return false;
    if (bl_len(on) == 0 || bl_len(on) > 8)
        return bl_fail_at(c, on->start_mark, "%s acts on %zu coordinates; give 1 to 8", what, bl_len(on));
    *n = 0;
    for (yaml_node_pair_t *p = on->data.mapping.pairs.start; p < on->data.mapping.pairs.top; p++) {
        yaml_node_t *key = bl_node(c, p->key);
        int b;
        if (!bl_one_dof(c, key, what, &b)) return false;
        const int qi = body_q(c, b), vi = bl_q_to_v(c, qi);
        for (size_t i = 0; i < *n; i++)
            if (v[i] == vi) return bl_fail_at(c, key->start_mark, "%s names '%s' twice; keep one", what, bl_scalar(key));
        v[*n] = vi;
        k->q_of[vi] = qi;
        if (coef) {
            if (!bl_number(c, bl_node(c, p->value), "a coefficient", &coef[*n])) return false;
        } else {
            char pname[200];
            snprintf(pname, sizeof pname, "%s.on.%s", base, bl_scalar(key));
            if (!bl_num(c, bl_node(c, p->value), pname, -1e6, 1e6, "", "controller coefficient", &num[*n]))
                return false;
        }
        (*n)++;
    }
    return true;
}

/* row: [h_1, ..., h_nq]: an output's row of H over every coordinate (each
 * a 1-DOF one where it is not zero). */
static bool read_row(bl_ctx *c, const yaml_node_t *row, const char *base, size_t *n, int *v, body_num *num)
{
    body_controller *k = &c->f->ctrl;
    if (!bl_want(c, row, YAML_SEQUENCE_NODE, "row (one coefficient per coordinate)")) return false;
    if (bl_len(row) != c->f->nq)
        return bl_fail_at(c, row->start_mark, "%s: row has %zu entries but the walker has %zu coordinates; give one "
                          "per coordinate, in state order, or write on: {COORD: coefficient}", base, bl_len(row), c->f->nq);
    *n = 0;
    for (size_t i = 0; i < c->f->nq; i++) {
        yaml_node_t *x = bl_item(c, row, i);
        double val;
        const char *s = bl_scalar(x);
        if (s && sscanf(s, "%lf", &val) == 1 && val == 0.0 && strspn(s, "0.+-eE ") == strlen(s)) continue;
        const int b = c->q_body[i];
        const sm_rigid_joint j = c->f->bodies[b].joint;
        if (j != SM_RIGID_HINGE && j != SM_RIGID_SLIDE)
            return bl_fail_at(c, x->start_mark, "%s: coordinate '%s' is not a 1-DOF (hinge or slide) one; its entry "
                              "must be 0", base, c->f->q_names[i]);
        if (*n >= 8) return bl_fail_at(c, x->start_mark, "%s: more than 8 coordinates in one output; use fewer", base);
        const int vi = bl_q_to_v(c, (int)i);
        v[*n] = vi;
        k->q_of[vi] = (int)i;
        char pname[200];
        snprintf(pname, sizeof pname, "%s.on.%s", base, c->f->q_names[i]);
        if (!bl_num(c, x, pname, -1e6, 1e6, "", "controller coefficient", &num[*n])) return false;
        (*n)++;
    }
    if (*n == 0) return bl_fail_at(c, row->start_mark, "%s: the row is zero; an output must read a coordinate", base);
    return true;
}

static bool read_actuator(bl_ctx *c, const yaml_node_t *n)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"name", "on", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "an actuator")) return false;
    yaml_node_t *x = bl_need(c, n, "name", "an actuator");
    const char *name;
    if (!x || !bl_name(c, x, "an actuator's name", &name)) return false;
    char what[96];
    snprintf(what, sizeof what, "actuator '%s'", name);
    if (!bl_keys(c, n, what, keys)) return false;
    for (size_t i = 0; i < k->n_act; i++)
        if (strcmp(k->act_name[i], name) == 0) return bl_fail_at(c, x->start_mark, "two actuators are called '%s'; rename one", name);
    if (k->n_act >= BODY_MAX_ACT) return bl_fail_at(c, x->start_mark, "more than %d actuators; use fewer", BODY_MAX_ACT);
    const size_t j = k->n_act;
    if (!(k->act_name[j] = strdup(name))) return bl_no_memory(c);
    k->n_act++;
    yaml_node_t *on = bl_need(c, n, "on", what);
    return on && read_on(c, on, what, NULL, &k->act_n[j], k->act_v[j], k->act_coef[j], NULL);
}

/* The reference kinds, by their key in an output (sm_basis order). */
static const char *const basis_keys[] = {"poly", "bezier", "spline", "fourier"};

/* a: the list of an output's numbers, each the parameter base.PREFIXm
 * (Fourier: c0, c1, s1, c2, ...: the cosine and sine coefficients). */
static bool read_coefficients(bl_ctx *c, const yaml_node_t *a, const char *what, const char *base, size_t o)
{
    body_controller *k = &c->f->ctrl;
    if (!a || !bl_want(c, a, YAML_SEQUENCE_NODE, "the output's coefficients (a list)")) return false;
    const size_t na = bl_len(a);
    if (na == 0 || na > BODY_MAX_COEF)
        return bl_fail_at(c, a->start_mark, "%s has %zu coefficients; give 1 to %d", what, na, BODY_MAX_COEF);
    k->degree[o] = na - 1;
    for (size_t m = 0; m < na; m++) {
        char pname[200];
        if (k->basis == SM_BASIS_FOURIER)
            snprintf(pname, sizeof pname, "%s.%c%zu", base, m == 0 || m % 2 ? 'c' : 's', (m + 1) / 2);
        else
            snprintf(pname, sizeof pname, "%s.a%zu", base, m);
        if (!bl_num(c, bl_item(c, a, m), pname, -1e6, 1e6, "", "output coefficient", &k->a[o][m])) return false;
    }
    return true;
}

/* spline: {knots: [s_0, ...], values: [h_0, ...]}: knots plain increasing
 * numbers, values parameters. */
static bool read_spline(bl_ctx *c, const yaml_node_t *n, const char *what, const char *base, size_t o)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"knots", "values", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "spline (knots: [...], values: [...])") || !bl_keys(c, n, what, keys))
        return false;
    yaml_node_t *kn = bl_need(c, n, "knots", what), *vals = bl_need(c, n, "values", what);
    if (!kn || !vals || !bl_want(c, kn, YAML_SEQUENCE_NODE, "knots (a list)")) return false;
    if (!read_coefficients(c, vals, what, base, o)) return false;
    const size_t nk = bl_len(kn), nv = k->degree[o] + 1;
    if (nk != nv || nk < 2)
        return bl_fail_at(c, kn->start_mark, "%s has %zu knots and %zu values; give one value per knot, at least 2",
                          what, nk, nv);
    for (size_t m = 0; m < nk; m++) {
        yaml_node_t *x = bl_item(c, kn, m);
        if (!bl_number(c, x, "a knot", &k->knots[o][m])) return false;
        if (m > 0 && !(k->knots[o][m] > k->knots[o][m - 1]))
            return bl_fail_at(c, x->start_mark, "%s: knot %zu (%g) is not above the one before (%g); the knots must "
                              "increase", what, m, k->knots[o][m], k->knots[o][m - 1]);
    }
    return true;
}

/* fourier: {period: P, coefficients: [c0, c1, s1, ...]}: an odd count. */
static bool read_fourier(bl_ctx *c, const yaml_node_t *n, const char *what, const char *base, size_t o)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"period", "coefficients", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "fourier (period: P, coefficients: [...])") || !bl_keys(c, n, what, keys))
        return false;
    yaml_node_t *per = bl_need(c, n, "period", what), *a = bl_need(c, n, "coefficients", what);
    char pname[200];
    snprintf(pname, sizeof pname, "%s.period", base);
    if (!per || !a || !bl_num(c, per, pname, 1e-6, 1e6, "", "period of the Fourier series in s", &k->period[o]))
        return false;
    if (!read_coefficients(c, a, what, base, o)) return false;
    if (k->degree[o] % 2)
        return bl_fail_at(c, a->start_mark, "%s has %zu Fourier coefficients; give an odd number: c0, then a cosine "
                          "and a sine per harmonic (c1, s1, c2, s2, ...)", what, k->degree[o] + 1);
    return true;
}

/* phases: [PHASE, ...] (pd): the phases in which output i's feedback
 * acts; the others leave its coordinate to the rest (a double support
 * with fewer degrees of freedom than outputs). */
static bool read_output_phases(bl_ctx *c, const yaml_node_t *n, const char *what, size_t i)
{
    body_controller *k = &c->f->ctrl;
    k->out_phases[i] = ~0u;
    yaml_node_t *key = NULL, *x = bl_get(c, n, "phases", &key);
    if (!x) return true;
    if (k->kind != BODY_CTRL_PD)
        return bl_fail_at(c, key->start_mark, "%s: phases: switches the pd law's feedback; input-output "
                          "linearisation needs every output in every phase; drop phases: or use kind: pd", what);
    return bl_phase_mask(c, x, what, "its feedback acts in", &k->out_phases[i]);
}

static bool read_output(bl_ctx *c, const yaml_node_t *n, size_t *expected)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"name", "on", "row", "poly", "bezier", "spline", "fourier", "phases", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "an output")) return false;
    yaml_node_t *x = bl_need(c, n, "name", "an output");
    const char *name;
    if (!x || !bl_name(c, x, "an output's name", &name)) return false;
    char what[96], base[160];
    snprintf(what, sizeof what, "output '%s'", name);
    snprintf(base, sizeof base, "controller.outputs.%s", name);
    if (!bl_keys(c, n, what, keys)) return false;
    for (size_t i = 0; i < k->n_out; i++)
        if (strcmp(k->out_name[i], name) == 0) return bl_fail_at(c, x->start_mark, "two outputs are called '%s'; rename one", name);
    if (k->n_out >= BODY_MAX_ACT) return bl_fail_at(c, x->start_mark, "more than %d outputs; use fewer", BODY_MAX_ACT);
    const size_t i = k->n_out;
    if (!(k->out_name[i] = strdup(name))) return bl_no_memory(c);
    k->n_out++;
    yaml_node_t *on = bl_get(c, n, "on", NULL), *row = bl_get(c, n, "row", NULL);
    if (on && row) return bl_fail_at(c, row->start_mark, "%s gives both on: and row:; keep one", what);
    if (!on && !row) return bl_fail_at(c, n->start_mark, "%s has no on: {COORD: coefficient} (or row: [...]); add it", what);
    if (on ? !read_on(c, on, what, base, &k->out_n[i], k->out_v[i], NULL, k->out_coef[i])
           : !read_row(c, row, base, &k->out_n[i], k->out_v[i], k->out_coef[i]))
        return false;
    if (!read_output_phases(c, n, what, i)) return false;
    const char *basis_key = basis_keys[k->basis];
    for (size_t b = 0; b < sizeof basis_keys / sizeof *basis_keys; b++)
        if ((int)b != k->basis && (x = bl_get(c, n, basis_keys[b], NULL)))
            return bl_fail_at(c, x->start_mark, "%s gives %s: but the first output gives %s:; every output uses one "
                              "kind of reference", what, basis_keys[b], basis_key);
    yaml_node_t *a = bl_need(c, n, basis_key, what);
    if (!a) return false;
    if (k->basis == SM_BASIS_SPLINE) return read_spline(c, a, what, base, i);
    if (k->basis == SM_BASIS_FOURIER) return read_fourier(c, a, what, base, i);
    if (!read_coefficients(c, a, what, base, i)) return false;
    const size_t na = k->degree[i] + 1;
    if (k->basis == SM_BASIS_BEZIER && *expected && na != *expected)
        return bl_fail_at(c, a->start_mark, "%s has %zu Bezier coefficients but degree %zu needs %zu; every output has "
                          "degree + 1", what, na, *expected - 1, *expected);
    if (k->basis == SM_BASIS_BEZIER) *expected = na;
    return true;
}

/* sampling: {period: DT}: the torques recomputed every DT of the step's
 * clock and held (the held torques join the state). */
static bool read_sampling(bl_ctx *c, const yaml_node_t *n)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"period", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "sampling (period: DT)") || !bl_keys(c, n, "sampling", keys)) return false;
    yaml_node_t *x = bl_need(c, n, "period", "sampling");
    if (!x) return false;
    /* a literal is held to the parameter's range, above 0, here and
     * under --set; a name or an expression is checked at the defaults */
    if (!bl_num(c, x, "controller.sampling.period", 1e-9, 1e3, "s", "time between the controller's samples",
                &k->sample_period))
        return false;
    double p[SM_MAX_PARAMS];
    for (size_t i = 0; i < c->f->n_params; i++) p[i] = c->f->params[i].value;
    const double dt = body_num_eval(&k->sample_period, p);
    if (!(dt > 0))
        return bl_fail_at(c, x->start_mark, "sampling period is %g; give a positive time (s)", dt);
    k->sampled = true;
    return true;
}

/* integrators: [{name, output, gain, leak, at_impact, start}]: z' = y −
 * leak z on the output named, the law's integral term gain z. */
static bool read_integrator(bl_ctx *c, const yaml_node_t *n)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"name", "output", "gain", "leak", "at_impact", "start", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "an integrator")) return false;
    yaml_node_t *x = bl_need(c, n, "name", "an integrator");
    const char *name;
    if (!x || !bl_name(c, x, "an integrator's name", &name)) return false;
    char what[96], base[160];
    snprintf(what, sizeof what, "integrator '%s'", name);
    snprintf(base, sizeof base, "controller.integrators.%s", name);
    if (!bl_keys(c, n, what, keys)) return false;
    for (size_t i = 0; i < c->f->nq + c->f->nv; i++) {
        const char *other = i < c->f->nq ? c->f->q_names[i] : c->f->v_names[i - c->f->nq];
        if (other && strcmp(other, name) == 0)
            return bl_fail_at(c, x->start_mark, "%s has a coordinate's name; rename it", what);
    }
    for (size_t i = 0; i < k->n_int; i++)
        if (strcmp(k->int_name[i], name) == 0) return bl_fail_at(c, x->start_mark, "two integrators are called '%s'; rename one", name);
    if (k->n_int >= BODY_MAX_ACT) return bl_fail_at(c, x->start_mark, "more than %d integrators; use fewer", BODY_MAX_ACT);
    const size_t i = k->n_int;
    if (!(k->int_name[i] = strdup(name))) return bl_no_memory(c);
    k->n_int++;
    yaml_node_t *o = bl_need(c, n, "output", what);
    if (!o) return false;
    const char *out = bl_scalar(o);
    k->int_out[i] = -1;
    for (size_t j = 0; out && j < k->n_out; j++)
        if (strcmp(k->out_name[j], out) == 0) k->int_out[i] = (int)j;
    if (k->int_out[i] < 0) return bl_fail_at(c, o->start_mark, "%s integrates '%s', which is no output; name one of "
                                             "the controller's outputs", what, out ? out : "?");
    for (size_t j = 0; j < i; j++)
        if (k->int_out[j] == k->int_out[i])
            return bl_fail_at(c, o->start_mark, "two integrators integrate output '%s'; keep one", out);
    char pname[200];
    snprintf(pname, sizeof pname, "%s.gain", base);
    if (!(x = bl_need(c, n, "gain", what)) || !bl_num(c, x, pname, -1e12, 1e12, "", "integral gain", &k->int_gain[i]))
        return false;
    k->int_leak[i] = (body_num){-1, NULL};
    snprintf(pname, sizeof pname, "%s.leak", base);
    if ((x = bl_get(c, n, "leak", NULL)) && !bl_num(c, x, pname, 0, 1e9, "1/s", "integrator's leak rate", &k->int_leak[i]))
        return false;
    yaml_node_t *e = bl_need(c, n, "at_impact", what);
    const char *w = e ? bl_scalar(e) : NULL;
    if (!e) return false;
    if (w && strcmp(w, "keep") == 0) k->int_keep[i] = true;
    else if (w && strcmp(w, "zero") == 0) k->int_keep[i] = false;
    else return bl_fail_at(c, e->start_mark, "at_impact must be keep or zero, not '%s'", w ? w : "?");
    return true;
}

/* The controller's state after the walker's in the file's guess and
 * section: the integrators kept through impacts are free there (their
 * start: the guess), the held torques and the zeroed integrators follow
 * from the rest (src/body/section.c). */
static bool add_state(bl_ctx *c, const yaml_node_t *ints)
{
    body_file *f = c->f;
    const body_controller *k = &f->ctrl;
    const size_t at = f->nq + f->nv + body_ctrl_nheld(k);
    for (size_t i = 0; i < k->n_int; i++) {
        yaml_node_t *n = bl_item(c, ints, i), *x = bl_get(c, n, "start", NULL);
        f->guess[at + i] = 0.0;
        if (x && !bl_number(c, x, "an integrator's start", &f->guess[at + i])) return false;
        if (k->int_keep[i]) f->free_index[f->n_free++] = at + i;
    }
    return true;
}

/* The event every phase gets: dθ/dt falls through zero (events.c). */
static bool add_monotone_events(bl_ctx *c, yaml_mark_t at)
{
    for (size_t ph = 0; ph < c->f->n_phases; ph++) {
        body_phase *P = &c->f->phases[ph];
        if (P->n_events >= BODY_MAX_EVENTS)
            return bl_fail_at(c, at, "phase '%s' has %d events, and the controller adds one (phase_not_monotone); "
                              "use fewer", P->name, BODY_MAX_EVENTS);
        body_event *e = &P->events[P->n_events];
        memset(e, 0, sizeof *e);
        if (!(e->name = strdup("phase_not_monotone"))) return bl_no_memory(c);
        P->n_events++;
        e->at_pos = bl_pos(at);
        e->when = BODY_WHEN_PHASE_RATE;
        e->value = (body_num){-1, NULL};
        e->direction = -1;
        e->outcome = SM_EVENT_FAIL;
        e->failure = SM_PHASE_NOT_MONOTONE;
    }
    return true;
}

/* feedforward: {knots: [s_0, ...], torques: {ACTUATOR: [u_0, ...], ...}}:
 * per actuator a natural cubic spline in s added to the pd law's torque
 * (the knots plain increasing numbers shared by every actuator, the
 * torques parameters controller.feedforward.ACTUATOR.aK). */
/* feedforward: phases: {ACTUATOR: [PHASE, ...]}: the phases in which an
 * actuator's feedforward is added (absent, every phase), for a feedforward
 * that stands for part of a feedback which an output's phases: switch off. */
static bool read_feedforward_phases(bl_ctx *c, const yaml_node_t *n)
{
    body_controller *k = &c->f->ctrl;
    if (!bl_want(c, n, YAML_MAPPING_NODE, "feedforward: phases (ACTUATOR: [PHASE, ...], ...)")) return false;
    bool seen[BODY_MAX_ACT] = {false};
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *key = bl_node(c, p->key);
        const char *name = bl_scalar(key);
        size_t j = k->n_act;
        for (size_t i = 0; name && i < k->n_act; i++)
            if (strcmp(k->act_name[i], name) == 0) j = i;
        if (j == k->n_act || !k->ff_has[j])
            return bl_fail_at(c, key->start_mark, "feedforward: phases: names '%s', which has no feedforward "
                              "torques; name an actuator of torques:", name ? name : "?");
        if (seen[j])
            return bl_fail_at(c, key->start_mark, "feedforward: phases: names '%s' twice; keep one", name);
        char what[96];
        snprintf(what, sizeof what, "feedforward of '%s'", name);
        unsigned on;
        if (!bl_phase_mask(c, bl_node(c, p->value), what, "it is added in", &on)) return false;
        seen[j] = true;
        k->ff_phases_off[j] = ~on;
    }
    return true;
}

static bool read_feedforward(bl_ctx *c, const yaml_node_t *n)
{
    body_controller *k = &c->f->ctrl;
    static const char *const keys[] = {"knots", "torques", "phases", NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "feedforward (knots: [...], torques: {ACTUATOR: [...]})") ||
        !bl_keys(c, n, "feedforward", keys))
        return false;
    if (k->kind != BODY_CTRL_PD)
        return bl_fail_at(c, n->start_mark, "feedforward is a term of the pd law; io_linearisation computes its "
                          "torques from the model; drop feedforward: or use kind: pd");
    yaml_node_t *kn = bl_need(c, n, "knots", "feedforward"), *tq = bl_need(c, n, "torques", "feedforward");
    if (!kn || !tq || !bl_want(c, kn, YAML_SEQUENCE_NODE, "knots (a list)") ||
        !bl_want(c, tq, YAML_MAPPING_NODE, "torques (ACTUATOR: [u_0, ...], ...)"))
        return false;
    const size_t nk = bl_len(kn);
    if (nk < 2 || nk > BODY_MAX_COEF)
        return bl_fail_at(c, kn->start_mark, "feedforward has %zu knots; give 2 to %d", nk, BODY_MAX_COEF);
    k->ff_n = nk;
    for (size_t m = 0; m < nk; m++) {
        yaml_node_t *x = bl_item(c, kn, m);
        if (!bl_number(c, x, "a knot", &k->ff_knots[m])) return false;
        if (m > 0 && !(k->ff_knots[m] > k->ff_knots[m - 1]))
            return bl_fail_at(c, x->start_mark, "feedforward: knot %zu (%g) is not above the one before (%g); the "
                              "knots must increase", m, k->ff_knots[m], k->ff_knots[m - 1]);
    }
    for (yaml_node_pair_t *p = tq->data.mapping.pairs.start; p < tq->data.mapping.pairs.top; p++) {
        yaml_node_t *key = bl_node(c, p->key), *vals = bl_node(c, p->value);
        const char *name = bl_scalar(key);
        size_t j = k->n_act;
        for (size_t i = 0; name && i < k->n_act; i++)
            if (strcmp(k->act_name[i], name) == 0) j = i;
        if (j == k->n_act)
            return bl_fail_at(c, key->start_mark, "feedforward names '%s', which is no actuator; name one of the "
                              "controller's actuators", name ? name : "?");
        if (k->ff_has[j]) return bl_fail_at(c, key->start_mark, "feedforward names '%s' twice; keep one", name);
        if (!bl_want(c, vals, YAML_SEQUENCE_NODE, "the actuator's feedforward torques (a list)")) return false;
        if (bl_len(vals) != nk)
            return bl_fail_at(c, vals->start_mark, "feedforward of '%s' has %zu torques and %zu knots; give one "
                              "torque per knot", name, bl_len(vals), nk);
        for (size_t m = 0; m < nk; m++) {
            char pname[200];
            snprintf(pname, sizeof pname, "controller.feedforward.%s.a%zu", name, m);
            if (!bl_num(c, bl_item(c, vals, m), pname, -1e9, 1e9, "N m", "feedforward torque", &k->ff[j][m]))
                return false;
        }
        k->ff_has[j] = true;
    }
    yaml_node_t *ph = bl_get(c, n, "phases", NULL);
    return !ph || read_feedforward_phases(c, ph);
}

bool bl_read_controller(bl_ctx *c)
{
    body_controller *k = &c->f->ctrl;
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < BODY_MAX_COORDS; i++) k->q_of[i] = -1;
    yaml_node_t *key = NULL, *n = bl_get(c, c->root, "controller", &key);
    if (!n) return true;
    static const char *const keys[] = {"kind",         "actuators", "phase",    "degree",      "outputs",
                                       "gains",        "torque_limit", "sampling", "integrators", "feedforward",
                                       NULL};
    if (!bl_want(c, n, YAML_MAPPING_NODE, "controller") || !bl_keys(c, n, "the controller", keys)) return false;
    k->at_pos = bl_pos(key->start_mark);
    yaml_node_t *x = bl_need(c, n, "kind", "the controller");
    const char *kind = x ? bl_scalar(x) : NULL;
    if (!x) return false;
    if (kind && strcmp(kind, "io_linearisation") == 0) k->kind = BODY_CTRL_IO;
    else if (kind && strcmp(kind, "pd") == 0) k->kind = BODY_CTRL_PD;
    else return bl_fail_at(c, x->start_mark, "unknown controller kind '%s'; use io_linearisation or pd", kind ? kind : "?");

    yaml_node_t *acts = bl_need(c, n, "actuators", "the controller");
    if (!acts || !bl_want(c, acts, YAML_SEQUENCE_NODE, "actuators")) return false;
    if (bl_len(acts) == 0) return bl_fail_at(c, acts->start_mark, "actuators is empty; list the controller's torques");
    for (size_t i = 0; i < bl_len(acts); i++)
        if (!read_actuator(c, bl_item(c, acts, i))) return false;

    yaml_node_t *ph = bl_need(c, n, "phase", "the controller");
    static const char *const pkeys[] = {"on", "start", "end", NULL};
    if (!ph || !bl_want(c, ph, YAML_MAPPING_NODE, "phase") || !bl_keys(c, ph, "the phase variable", pkeys)) return false;
    if (!(x = bl_need(c, ph, "on", "the phase variable")) ||
        !read_on(c, x, "the phase variable", "controller.phase", &k->phase_n, k->phase_v, NULL, k->phase_coef))
        return false;
    if (!(x = bl_need(c, ph, "start", "the phase variable")) ||
        !bl_num(c, x, "controller.phase.start", -1e6, 1e6, "", "phase variable at the step's start", &k->theta_plus))
        return false;
    yaml_node_t *end = bl_need(c, ph, "end", "the phase variable");
    if (!end || !bl_num(c, end, "controller.phase.end", -1e6, 1e6, "", "phase variable at the step's end", &k->theta_minus))
        return false;
    double th[2] = {0, 0};
    {
        double p[SM_MAX_PARAMS];
        for (size_t i = 0; i < c->f->n_params; i++) p[i] = c->f->params[i].value;
        th[0] = body_num_eval(&k->theta_plus, p);
        th[1] = body_num_eval(&k->theta_minus, p);
    }
    if (!(th[1] != th[0]))
        return bl_fail_at(c, end->start_mark, "the phase variable's end equals its start (%g); s = (theta - start)/(end - "
                          "start) needs them apart", th[0]);

    size_t expected = 0;
    if ((x = bl_get(c, n, "degree", NULL))) {
        double d;
        if (!bl_number(c, x, "degree", &d)) return false;
        if (!(d >= 1 && d < BODY_MAX_COEF && d == (double)(size_t)d))
            return bl_fail_at(c, x->start_mark, "degree must be a whole number from 1 to %d, not %g", BODY_MAX_COEF - 1, d);
        expected = (size_t)d + 1;
    }
    yaml_node_t *okey = NULL, *outs = bl_get(c, n, "outputs", &okey);
    if (!outs) return bl_fail_at(c, n->start_mark, "the controller has no 'outputs:'; add it");
    if (!bl_want(c, outs, YAML_SEQUENCE_NODE, "outputs")) return false;
    k->outputs_pos = bl_pos(okey->start_mark);
    if (bl_len(outs) != k->n_act)
        return bl_fail_at(c, okey->start_mark, "the controller has %zu outputs and %zu actuators; give one output per "
                          "actuator", bl_len(outs), k->n_act);
    for (size_t i = 0; i < bl_len(outs); i++) {
        yaml_node_t *o = bl_item(c, outs, i);
        if (i == 0) {
            /* the first output's kind of reference is every output's */
            k->basis = SM_BASIS_POLY;
            for (size_t b = 1; b < sizeof basis_keys / sizeof *basis_keys; b++)
                if (o->type == YAML_MAPPING_NODE && bl_get(c, o, basis_keys[b], NULL)) k->basis = (int)b;
            if (k->basis != SM_BASIS_BEZIER && expected)
                return bl_fail_at(c, x->start_mark, "degree: is for Bezier outputs; a %s: reference has the length of "
                                  "its list", basis_keys[k->basis]);
        }
        if (!read_output(c, o, &expected)) return false;
    }

    static const char *const gkeys[] = {"kp", "kd", "epsilon", NULL};
    yaml_node_t *g = bl_need(c, n, "gains", "the controller");
    if (!g || !bl_want(c, g, YAML_MAPPING_NODE, "gains") || !bl_keys(c, g, "the gains", gkeys)) return false;
    k->kp = k->kd = (body_num){-1, NULL};
    k->epsilon = (body_num){-1, NULL};
    if (!(x = bl_need(c, g, "kp", "the gains")) || !bl_num(c, x, "controller.gains.kp", 0, 1e12, "", "proportional gain", &k->kp))
        return false;
    if (!(x = bl_need(c, g, "kd", "the gains")) || !bl_num(c, x, "controller.gains.kd", 0, 1e12, "", "derivative gain", &k->kd))
        return false;
    if ((x = bl_get(c, g, "epsilon", NULL))) {
        if (k->kind != BODY_CTRL_IO)
            return bl_fail_at(c, x->start_mark, "epsilon scales input-output linearisation's gains; a pd controller has none");
        if (!bl_num(c, x, "controller.gains.epsilon", 1e-9, 1e3, "s", "time scale of the outputs' decay", &k->epsilon))
            return false;
    } else if (k->kind == BODY_CTRL_IO) {
        return bl_fail_at(c, g->start_mark, "io_linearisation needs gains: epsilon (the outputs' time scale, e.g. 0.1)");
    }

    if ((x = bl_get(c, n, "torque_limit", NULL))) {
        static const char *const tkeys[] = {"value", "on_exceed", NULL};
        if (!bl_want(c, x, YAML_MAPPING_NODE, "torque_limit") || !bl_keys(c, x, "torque_limit", tkeys)) return false;
        yaml_node_t *v = bl_need(c, x, "value", "torque_limit");
        if (!v || !bl_num(c, v, "controller.torque_limit", 0, 1e9, "N m", "largest |torque| of an actuator", &k->limit))
            return false;
        k->has_limit = true;
        yaml_node_t *e = bl_need(c, x, "on_exceed", "torque_limit");
        const char *w = e ? bl_scalar(e) : NULL;
        if (!e) return false;
        if (w && strcmp(w, "fail") == 0) k->saturate = false;
        else if (w && strcmp(w, "saturate") == 0) k->saturate = true;
        else return bl_fail_at(c, e->start_mark, "on_exceed must be fail or saturate, not '%s'", w ? w : "?");
    }
    if ((x = bl_get(c, n, "sampling", NULL)) && !read_sampling(c, x)) return false;
    if ((x = bl_get(c, n, "feedforward", NULL)) && !read_feedforward(c, x)) return false;
    yaml_node_t *ints = bl_get(c, n, "integrators", NULL);
    if (ints) {
        if (!bl_want(c, ints, YAML_SEQUENCE_NODE, "integrators (a list)")) return false;
        for (size_t i = 0; i < bl_len(ints); i++)
            if (!read_integrator(c, bl_item(c, ints, i))) return false;
        if (!add_state(c, ints)) return false;
    }
    return add_monotone_events(c, key->start_mark);
}
