/* Shared by the linkage loader, dynamics and model assembly. */
#ifndef STRIDEMAP_LINKAGE_INTERNAL_H
#define STRIDEMAP_LINKAGE_INTERNAL_H

#include "stridemap/linkage.h"

#define LK_MAX_DOF 3    /* chain bodies */
#define LK_MAX_ANGLES 4 /* angles in a state: with phases: [knee_free], the stance knee's bend too */

struct sm_linkage {
    sm_model model;
    char *name, *title, *reference, *path;

    size_t n_links;            /* per leg: 1 (straight) or 2 (thigh, shank) */
    bool use_gyration[SM_LINKAGE_MAX_LINKS];
    size_t n_dof;              /* angles (= rates) in the state: 2 (straight or locked knees),
                                  3 (knee free, then locked), 4 (phases: [knee_free]: stance,
                                  thigh, shank, the stance knee's bend; the bend's rate is 0) */
    bool assume_locked;        /* no stance-knee locking check */
    bool knee_locked;          /* knees always locked: the straight-legged phase sequence */
    bool knee_never_locks;     /* phases: [knee_free]: no knee-strike, heel-strike from knee free */
    bool hs_knee_locked;       /* the new swing knee stays locked through heel-strike */

    size_t n_params;
    sm_param_def params[SM_MAX_PARAMS];
    size_t param_offset[SM_MAX_PARAMS]; /* byte offset into sm_linkage_values */
    char *param_names[SM_MAX_PARAMS];
    sm_linkage_values defaults;          /* fields without a parameter keep these */

    const char *state_names[2 * LK_MAX_ANGLES];
    size_t free_index[2 * LK_MAX_ANGLES];
    double guess[2 * LK_MAX_ANGLES];
    bool have_guess;
    double time_limit;

    sm_phase phases[2];
    sm_event events[2][8];
};

/* Builds lk->model from the fields the loader filled. */
void lk_build_model(sm_linkage *lk);

#endif
