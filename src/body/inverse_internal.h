/* Shared by inverse.c and playback.c: the moments' generalized forces.
 * Private to the library. */
#ifndef STRIDEMAP_BODY_INVERSE_INTERNAL_H
#define STRIDEMAP_BODY_INVERSE_INTERNAL_H

#include "body_model.h"
#include "stridemap/inverse.h"

/* The body model the inverse dynamics was made for. */
const body_model *sm_inverse_body(const sm_inverse *inv);

/* gf[nv] = Sᵀ tau for the moments tau[n_torques] at e's forward sweep
 * (the ground moment's column reads it); coordinates a lock of the contact
 * set c holds get no moment. */
void sm_inverse_generalized(const sm_inverse *inv, const body_eval *e, const sm_contact *c, size_t nc,
                            const double *tau, double *gf);

#endif
