/* The closed-form walkers compiled into stridemap, declared from the list in
 * models.def (registry.c lists them from the same file). */
#ifndef STRIDEMAP_MODELS_H
#define STRIDEMAP_MODELS_H

#include "stridemap/model.h"

#define SM_MODEL(name) extern const sm_model sm_model_##name;
#include "models.def"
#undef SM_MODEL

#endif
