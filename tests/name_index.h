/* Columns by name, for the inverse-dynamics tests (header-only): a model's
 * per-sample quantity (simulate's columns) and an inverse's moment. */
#ifndef STRIDEMAP_TEST_NAME_INDEX_H
#define STRIDEMAP_TEST_NAME_INDEX_H

#include <string.h>

#include "stridemap/inverse.h"
#include "test_util.h"

static inline int sample_index(const sm_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_sample; i++)
        if (strcmp(m->sample_names[i], name) == 0) return (int)i;
    fail_msg("no sample column %s", name);
    return -1;
}

static inline int tau_index(const sm_inverse *inv, const char *name)
{
    for (size_t k = 0; k < sm_inverse_n_torques(inv); k++)
        if (strcmp(sm_inverse_torque_name(inv, k), name) == 0) return (int)k;
    fail_msg("no moment %s", name);
    return -1;
}

#endif
