/* Per-workspace scratch for the buffers whose size is known only at a call
 * (samples per step, strides recorded, a branch's state), as MuJoCo keeps
 * them in mjData: each slot grows to the largest size asked and is kept, so
 * a workspace that repeats a computation allocates only on its first call.
 * A slot already taken (a callback re-entering the library on the same
 * workspace) falls back to a heap block of its own.  Private to the library. */
#ifndef STRIDEMAP_SCRATCH_H
#define STRIDEMAP_SCRATCH_H

#include <stddef.h>

#include "stridemap/hybrid.h"

typedef enum {
    SM_SCRATCH_SAMPLES,  /* sm_stride_measured: clearance samples */
    SM_SCRATCH_ORBIT,    /* sm_orbit: the recorded free coordinates */
    SM_SCRATCH_DIAGRAM,  /* sm_orbit_diagram: each value's recorded strides */
    SM_SCRATCH_BRANCH,   /* sm_continue: the branch's state */
    SM_SCRATCH_COUNT
} sm_scratch_slot;

/* At least `bytes` (aligned for double) from slot k, NULL if out of memory.
 * Its contents are whatever the last user left.  Give it back with
 * sm_scratch_give. */
void *sm_scratch_take(sm_workspace *ws, sm_scratch_slot k, size_t bytes);

/* Ends a sm_scratch_take; NULL is fine. */
void sm_scratch_give(sm_workspace *ws, sm_scratch_slot k, void *p);

#endif
