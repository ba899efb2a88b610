/* The closed-form walkers compiled into stridemap; registry.c lists them. */
#ifndef STRIDEMAP_MODELS_H
#define STRIDEMAP_MODELS_H

#include "stridemap/model.h"

extern const sm_model sm_model_compass;
extern const sm_model sm_model_rimless;
extern const sm_model sm_model_simplest;
extern const sm_model sm_model_slip;
extern const sm_model sm_model_logistic;
extern const sm_model sm_model_foldmap;
extern const sm_model sm_model_delayed_logistic;

#endif
