/* The built-in walkers, by name. */
#ifndef STRIDEMAP_REGISTRY_H
#define STRIDEMAP_REGISTRY_H

#include <stddef.h>

#include "stridemap/model.h"

/* Number of built-in models. */
size_t sm_registry_count(void);

/* The i-th model in listing order, or NULL past the end. */
const sm_model *sm_registry_at(size_t i);

/* The model called name, or NULL. */
const sm_model *sm_registry_find(const char *name);

#endif
