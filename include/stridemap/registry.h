/* The built-in walkers, by name. */
#ifndef STRIDEMAP_REGISTRY_H
#define STRIDEMAP_REGISTRY_H

#include <stddef.h>

#include "stridemap/model.h"

/* Number of built-in models. */
size_t sm_registry_count(void);

/* The i-th model in listing order, or NULL past the end. */
const sm_model *sm_registry_at(size_t i);

/* The built-in model called name, or NULL. */
const sm_model *sm_registry_find(const char *name);

/* The directories searched for model files NAME.yaml, in order: each of
 * $STRIDEMAP_MODEL_PATH (colon-separated), ./models, and the installed
 * share/stridemap/models; then, for a tree installed with DESTDIR or moved,
 * its share/stridemap/models beside the program's bin/ or the library's
 * lib/.  dir(i) writes the i-th into buf and returns it, or returns NULL
 * past the last. */
const char *sm_registry_model_dir(size_t i, char *buf, size_t len);

/* Opens a model by name: a built-in walker, or a model file (a path ending
 * in .yaml or .yml, or a NAME found as NAME.yaml in the first model
 * directory that has it).  On failure *out is NULL and why says what to
 * change.  Release with sm_registry_close. */
sm_status sm_registry_open(const char *name, const sm_model **out, char *why, size_t why_len);

/* Releases a model from sm_registry_open through its release hook (a
 * built-in has none and is never freed); NULL is fine. */
void sm_registry_close(const sm_model *m);

#endif
