/* A body file's family of gaits (section: family: {NAME: VALUE}): the
 * condition x[NAME] - VALUE = 0 that picks one member for Newton
 * (include/stridemap/family.h).  VALUE is a parameter, so --set moves
 * along the family and continue follows it. */
#include "body_model.h"

static double family_gap(const double *x, const double *p, const void *data)
{
    const body_model *bm = data;
    return x[bm->f->family_state] - body_num_eval(&bm->f->family_value, p);
}

void body_set_family(body_model *bm)
{
    bm->model.family_condition = bm->f->has_family ? family_gap : NULL;
}
