/* Planar walkers described by a model file, with the equations of motion
 * computed on-line (Garcia 1999, ch. 2.3-2.5).
 *
 * A walker is two identical legs joined at a hip; each leg is one link
 * (straight leg) or two links, thigh and shank, joined by a knee with a stop
 * that keeps it from hyperextending.  A foot is a circular arc of radius R
 * (0: a point foot) whose centre sits R above the end of the leg, optionally
 * offset forward of the leg axis.  The stance knee is locked.
 *
 * Frame: x along the slope, pointing downhill (the walking direction), y
 * along the slope normal, up; gravity is g (sin gamma, -cos gamma).  Every
 * angle is the direction from a link's lower end to its upper end, measured
 * counter-clockwise from the slope normal: a stance leg leaning back (hip
 * uphill of the foot) has a positive angle, a swing leg whose foot is ahead
 * of the hip has a positive angle.
 *
 * State: the absolute angles then their rates,
 *   straight legs: (stance, swing, stance_dot, swing_dot),
 *   knees:         (stance, thigh, shank, stance_dot, thigh_dot, shank_dot),
 * with the swing knee locked (shank = thigh) after knee-strike; with
 * phases: [knee_free] (below) also the stance knee's bend, fixed in a step:
 *   (stance, thigh, shank, stance_bend, stance_dot, thigh_dot, shank_dot, 0),
 * where stance is the stance shank's angle and the stance thigh's is
 * stance + stance_bend.
 *
 * Dynamics (Garcia 2.3-2.4): relative joint coordinates q (q1 = stance angle,
 * q_i = angle of body i minus body i-1); a recursive Newton-Euler sweep
 * gives the joint torques for given accelerations.  One sweep with zero
 * accelerations and gravity (the base accelerated up by g) gives V + G; n
 * sweeps with unit accelerations, zero rates and no gravity give the columns
 * of M.  A rolling foot moves the base (the foot centre) by -R q1'' along
 * the slope and its torque balance is taken about the contact point (eqs.
 * 2.15-2.17).  M q'' = tau - V - G is solved by Cholesky (by hand: LAPACK's
 * dpotrf/dpotrs cost 3-4 times more for n <= 3, bench/README.md); an M that
 * is not positive definite is an error (rhs_failed).
 *
 * Impacts (2.5): plastic, angular momentum of the nested sub-chains (the
 * whole walker about the new contact point, the swing leg about the hip,
 * the swing shank about its knee) is conserved, and H = M: the rates after
 * the impact solve M(q+) q'+ = h-.  At heel-strike the new swing knee is
 * free (Garcia 2.5.3), or with knee: {hold_at_heelstrike: true} held locked
 * through the impact (Chen 2007): then only the first two momenta count and
 * the shank leaves turning with the thigh.
 *
 * Phases: straight legs: swing -> heel-strike (section).  Knees: knee free
 * -> knee-strike -> knee locked -> heel-strike (section).  A model file may
 * declare the sequence with a top-level key (src/linkage/load.c):
 *   phases: [swing]                    straight legs (their default)
 *   phases: [knee_free, knee_locked]   the default of knees
 *   phases: [knee_locked]              a straight-legged step with kneed legs
 *                                      (= knee: {locked: true})
 *   phases: [knee_free]                the knee never locks: knee free ->
 *                                      heel-strike (section), the swing knee
 *                                      bent or not at the impact; the three
 *                                      momenta above are conserved with the
 *                                      configuration as it is, and the new
 *                                      stance knee stays locked at its bend
 *                                      (the state's stance_bend). */
#ifndef STRIDEMAP_LINKAGE_H
#define STRIDEMAP_LINKAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "stridemap/hybrid.h"
#include "stridemap/model.h"
#include "stridemap/status.h"

/* Most links per leg (thigh and shank). */
#define SM_LINKAGE_MAX_LINKS 2

/* Every number of a walker; parameters (dotted names) write into it. */
typedef struct {
    double gravity, slope;
    double hip_mass, hip_stiffness, hip_damping, hip_torque, hip_rest;
    struct {
        double length, mass, com, com_offset, gyration, inertia;
    } link[SM_LINKAGE_MAX_LINKS];  /* [0] thigh (or whole leg), [1] shank */
    double knee_stiffness, knee_damping, knee_torque;
    double foot_radius, foot_offset;
} sm_linkage_values;

/* A walker read from a model file. */
typedef struct sm_linkage sm_linkage;

/* Reads a model file.  On failure *out is NULL and why says file:line:col:
 * what is wrong and what to change; the status is SM_BAD_MODEL_FILE, or
 * SM_IO_ERROR for a file that cannot be opened or is a directory. */
sm_status sm_linkage_load(const char *path, sm_linkage **out, char *why, size_t why_len);

/* Frees a walker from sm_linkage_load (and its model); NULL is fine. */
void sm_linkage_free(sm_linkage *lk);

/* The walker as a model for the engine; valid until sm_linkage_free. */
const sm_model *sm_linkage_model(const sm_linkage *lk);

/* The walker behind a model, or NULL if m was not read from a file. */
const sm_linkage *sm_linkage_of(const sm_model *m);

/* True if each leg has a knee. */
bool sm_linkage_has_knee(const sm_linkage *lk);

/* The values for parameter vector p[n_params]. */
void sm_linkage_values_from(const sm_linkage *lk, const double *p, sm_linkage_values *v);

/* Angular accelerations (absolute, one per angle of the state: 2, 3 or 4;
 * the stance bend's is 0) in a phase: 0 is the swing phase (straight legs)
 * or knee free; 1 is knee locked. */
int sm_linkage_accel(const sm_linkage *lk, const double *p, size_t phase, const double *x, double *acc);

/* M (relative coordinates, row-major [n x n]) and V + G ([n]) of a phase. */
int sm_linkage_mass_matrix(const sm_linkage *lk, const double *p, size_t phase, const double *x,
                           double *M, double *VG, size_t *n);

/* Impact kinds for sm_linkage_impact_momenta. */
typedef enum { SM_LINKAGE_HEELSTRIKE, SM_LINKAGE_KNEESTRIKE } sm_linkage_impact;

/* Angular momenta of the nested sub-chains of the post-impact chain about
 * the new contact point and the hinges, h[0..n-1]: from the state just
 * before the impact (h_pre) and just after it (h_post), each computed
 * directly from the links' velocities (not through M).  *n gets their count. */
int sm_linkage_impact_momenta(const sm_linkage *lk, const double *p, sm_linkage_impact kind,
                              const double *x_pre, const double *x_post, double *h_pre,
                              double *h_post, size_t *n);

/* Kinetic energy from the links' velocities (not through M), potential
 * energy (gravity and springs) of a state. */
double sm_linkage_kinetic(const sm_linkage *lk, const double *p, const double *x);
double sm_linkage_potential(const sm_linkage *lk, const double *p, const double *x);

/* Height of the swing foot's lowest point above the slope, and its distance
 * ahead of the stance contact point, in a state. */
void sm_linkage_swing_foot(const sm_linkage *lk, const double *p, const double *x, double *height,
                           double *ahead);

/* Torque the stop must supply to keep the stance knee locked (positive:
 * locked) in a phase; NaN for straight legs. */
double sm_linkage_knee_lock_torque(const sm_linkage *lk, const double *p, size_t phase, const double *x);

/* Angular impulse of the stop on the new stance knee through a heel-strike
 * from x_pre to x_post (positive: pushes it locked); NaN for straight legs. */
double sm_linkage_heelstrike_knee_impulse(const sm_linkage *lk, const double *p, const double *x_pre,
                                          const double *x_post);

/* Garcia's Table 2.1 knee characteristics of the step from the section
 * state x (a gait): the minimum stance-knee locking torque (sampled every
 * 1/1000 of the stride time limit and at every event) and the impulsive
 * torque on the new stance knee at heel-strike.  NaN for straight legs or a
 * model not read from a file; the stride's status if it fails. */
sm_status sm_linkage_knee_measures(const sm_model *m, const sm_solver_options *o, const double *p,
                                   const double *x, double *min_lock, double *hs_impulse);

/* Makes the knee measures above m's extra measures (group "knee"), so that
 * whoever reports a gait finds them through the model. */
void sm_linkage_set_extra_measures(sm_model *m);

#endif
