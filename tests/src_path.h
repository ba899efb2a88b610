/* Files of the source tree from a test (header-only): src_path("models/x.yaml"),
 * and a parameter of an opened model set by name. */
#ifndef STRIDEMAP_TEST_SRC_PATH_H
#define STRIDEMAP_TEST_SRC_PATH_H

#include <stdio.h>

#include "stridemap/model.h"
#include "test_util.h"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

/* Four rotating buffers, so that a call may take two or three paths. */
static inline const char *src_path(const char *rel)
{
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", SM_SOURCE_DIR, rel);
    return buf[k];
}

static inline void set_param(const sm_model *m, double *p, const char *name, double v)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    p[i] = v;
}

#endif
