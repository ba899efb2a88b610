/* The registry's door to body-walker files (open.c). */
#ifndef STRIDEMAP_BODY_OPEN_H
#define STRIDEMAP_BODY_OPEN_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/model.h"
#include "stridemap/status.h"

/* True if the YAML file's top level has a bodies: key (docs/body-walkers.md);
 * false for the linkage format and for anything unreadable (which the
 * linkage loader then reports). */
bool body_file_is_body(const char *path);

/* Loads a body-walker file and builds its model. */
sm_status body_open(const char *path, const sm_model **out, char *why, size_t why_len);

#endif
