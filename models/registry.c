/* The list of built-in walkers.  Adding a walker: one file in models/, one
 * line here, one line in models/meson.build. */
#include "stridemap/registry.h"

#include <stdio.h>
#include <string.h>

#include "models.h"

static const sm_model *const builtin[] = {
    &sm_model_compass,
    &sm_model_rimless,
    &sm_model_simplest,
    &sm_model_logistic,
    &sm_model_foldmap,
    &sm_model_delayed_logistic,
};

size_t sm_registry_count(void) { return sizeof builtin / sizeof builtin[0]; }

const sm_model *sm_registry_at(size_t i) { return i < sm_registry_count() ? builtin[i] : NULL; }

const sm_model *sm_registry_find(const char *name)
{
    for (size_t i = 0; i < sm_registry_count(); i++)
        if (strcmp(builtin[i]->name, name) == 0) return builtin[i];
    return NULL;
}

sm_status sm_registry_open(const char *name, const sm_model **out, char *why, size_t why_len)
{
    *out = sm_registry_find(name);
    if (*out) return SM_OK;
    snprintf(why, why_len, "unknown model '%s' (see 'stridemap models')", name);
    return SM_UNKNOWN_MODEL;
}

void sm_registry_close(const sm_model *m)
{
    (void)m; /* built-ins are static */
}
