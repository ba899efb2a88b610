/* Continuation's step sizes from those a caller was given: one rule for the
 * program and the flat interface. */
#include <math.h>
#include <stdio.h>

#include "stridemap/continuation.h"

sm_status sm_cont_steps_apply(const sm_cont_steps *s, double from, double to, sm_cont_options *o, char *why,
                              size_t why_len)
{
    /* Steps given together must agree: which one should win is the caller's to say. */
    if (s->have_step_min && s->have_step_max && s->step_min > s->step_max)
        return snprintf(why, why_len,
                        "sm_cont_steps.step_min %g is larger than sm_cont_steps.step_max %g; make "
                        "sm_cont_steps.step_min <= sm_cont_steps.step_max",
                        s->step_min, s->step_max),
               SM_BAD_OPTION;
    if (s->have_step && s->have_step_min && s->step < s->step_min)
        return snprintf(why, why_len,
                        "sm_cont_steps.step %g is smaller than sm_cont_steps.step_min %g; make "
                        "sm_cont_steps.step_min <= sm_cont_steps.step",
                        s->step, s->step_min),
               SM_BAD_OPTION;
    if (s->have_step && s->have_step_max && s->step > s->step_max)
        return snprintf(why, why_len,
                        "sm_cont_steps.step %g is larger than sm_cont_steps.step_max %g; make "
                        "sm_cont_steps.step <= sm_cont_steps.step_max",
                        s->step, s->step_max),
               SM_BAD_OPTION;
    /* A default gives way to a step given; the largest step scales with the
     * span so a long continuation does not crawl. */
    o->h_max = s->have_step_max ? s->step_max
                                : fmax(fmax(0.02, o->weight * fabs(to - from) / 20.0),
                                       fmax(s->have_step ? s->step : 0.0, s->have_step_min ? s->step_min : 0.0));
    o->h0 = s->have_step ? s->step : fmin(fmax(s->step, s->have_step_min ? s->step_min : 0.0), o->h_max);
    o->h_min = s->have_step_min ? s->step_min : fmin(s->step_min, o->h0);
    return SM_OK;
}
