/* Helpers shared by the linkage tests (header-only, static functions):
 * model files from the source tree, parameters by name, scratch files, and
 * the gait of a kneed model file. */
#ifndef STRIDEMAP_TEST_LINKAGE_UTIL_H
#define STRIDEMAP_TEST_LINKAGE_UTIL_H

#include <unistd.h>

#include "stridemap/linkage.h"
#include "test_util.h"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

static inline const char *src_path(const char *rel)
{
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", SM_SOURCE_DIR, rel);
    return buf[k];
}

static inline sm_linkage *load_ok(const char *rel)
{
    sm_linkage *lk = NULL;
    char why[2048] = "";
    sm_status st = sm_linkage_load(src_path(rel), &lk, why, sizeof why);
    if (st != SM_OK) fail_msg("%s: %s", rel, why);
    assert_non_null(lk);
    return lk;
}

static inline void set_param(const sm_model *m, double *p, const char *name, double v)
{
    const int i = sm_model_param_index(m, name);
    if (i < 0) fail_msg("no parameter %s", name);
    p[i] = v;
}

static inline const char *write_tmp(const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/stridemap_test_linkage_%d.yaml", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* The gait of a kneed model file at tolerance rtol, Newton's (and the
 * stability Jacobian's) finite-difference step h. */
static inline sm_status kneed_gait(const char *rel, double rtol, double h, bool central, sm_fixed_result *r)
{
    sm_linkage *lk = load_ok(rel);
    const sm_model *m = sm_linkage_model(lk);
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    m->guess(x0, p, m->data);
    sm_workspace *ws = test_workspace(m, rtol, SM_METHOD_ADAMS);
    sm_newton_options no;
    sm_newton_options_default(&no);
    no.fd_step = h;
    no.central = central;
    const sm_status st = sm_fixed_point(ws, p, x0, &no, r);
    sm_workspace_free(ws);
    sm_linkage_free(lk);
    return st;
}

#endif
