/* The importer in a build without MuJoCo: it says so. */
#include <stdio.h>

#include "stridemap/import.h"

bool sm_import_available(void) { return false; }

sm_status sm_import_mjcf(const char *path, sm_import **out, char *why, size_t why_len)
{
    *out = NULL;
    if (why && why_len)
        snprintf(why, why_len, "cannot read %s: %s", path, sm_strerror(SM_UNAVAILABLE));
    return SM_UNAVAILABLE;
}
