/* stridemap: periodic gaits of walking models by Poincare maps. */
#ifndef STRIDEMAP_H
#define STRIDEMAP_H

#include "stridemap/continuation.h"
#include "stridemap/control.h"
#include "stridemap/disturb.h"
#include "stridemap/poincare.h"
#include "stridemap/fixedpoint.h"
#include "stridemap/gait.h"
#include "stridemap/hybrid.h"
#include "stridemap/hzd.h"
#include "stridemap/inverse.h"
#include "stridemap/model.h"
#include "stridemap/orbit.h"
#include "stridemap/registry.h"
#include "stridemap/search.h"
#include "stridemap/status.h"
#include "stridemap/stride.h"
#include "stridemap/sweep.h"
#include "stridemap/basin.h"
#include "stridemap/version.h"

#endif
