/* The registry's door to model files (open.c). */
#ifndef STRIDEMAP_BODY_OPEN_H
#define STRIDEMAP_BODY_OPEN_H

#include <stddef.h>

#include "stridemap/model.h"
#include "stridemap/status.h"

/* Loads a body-walker file (docs/body-walkers.md) and builds its model. */
sm_status body_open(const char *path, const sm_model **out, char *why, size_t why_len);

#endif
