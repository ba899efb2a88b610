/* The registry's door to model files: load a body-walker file and build
 * its model. */
#include "body_def.h"
#include "open.h"

sm_status body_open(const char *path, const sm_model **out, char *why, size_t why_len)
{
    *out = NULL;
    body_file *f = NULL;
    sm_status st = body_file_load(path, &f, why, why_len);
    if (st != SM_OK) return st;
    /* body_model_create owns f from here, on failure too */
    return body_model_create(f, out, why, why_len);
}
