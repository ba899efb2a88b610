/* Families of gaits picked by a condition (sm_model.family_condition).
 *
 * A 3-D walker or wheel on a slope can roll or walk straight at any heading
 * near downhill, leaning so that the cross-slope part of gravity lies in
 * its plane: its gaits form a one-parameter family and dP - I is singular
 * along it (Garcia 1999, sec. 2.8.1, cause 4: "augment dg/dtheta to choose
 * only one particular solution from the family ... only allow solutions
 * which head straight downslope").  Newton solves the bordered system
 * [dP - I; dc/dz] dz = -[g; c], consistent and of full column rank where
 * the family is a regular one, by least squares.  Unlike an invariant, the
 * condition is not conserved by the flow, so P(z) is never projected onto
 * it: a gait whose heading drifts step by step is no fixed point. */
#ifndef STRIDEMAP_FAMILY_H
#define STRIDEMAP_FAMILY_H

#include <stddef.h>

#include "stridemap/model.h"

/* Rows Newton adds to the n_free of g = P(z) - z: the invariant's and the
 * family condition's (0, 1 or 2). */
size_t sm_extra_rows(const sm_model *m);

/* The row index of the family condition in g (n_free + 1 with an invariant,
 * else n_free). */
size_t sm_family_row(const sm_model *m);

/* family_condition(lift(z)). */
double sm_family_gap(const sm_model *m, const double *p, const double *z);

/* grad[n_free] = d sm_family_gap / dz by central differences of step h (no
 * strides: only the lift and the condition are evaluated). */
void sm_family_gradient(const sm_model *m, const double *p, const double *z, double h, double *grad);

#endif
