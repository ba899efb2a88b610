/* Gaits without a guess: Newton from many starts spread over a box of the
 * section's free coordinates, duplicates dropped.
 *
 * The starts are the first points of a Halton sequence scaled to the box, so
 * a search is deterministic and a larger number of starts only adds points.  A gait
 * with a small basin needs many starts to be hit at all, and nothing tells in
 * advance how many: so the search can go on past its first starts while new
 * gaits keep appearing (max_starts), and it counts how many starts ended on
 * each gait, which says how narrowly each one was caught. */
#ifndef STRIDEMAP_SEARCH_H
#define STRIDEMAP_SEARCH_H

#include "stridemap/fixedpoint.h"

/* Where a search is, for a progress line. */
typedef struct {
    size_t done;     /* starts run so far */
    size_t planned;  /* starts it will run if no new gait turns up (grows when one does) */
    size_t max;      /* starts it will never go beyond */
    size_t found;    /* distinct gaits so far */
    size_t failed;   /* starts from which Newton found nothing */
} sm_search_progress;

typedef struct {
    size_t starts;            /* Newton runs at least, and the batch beyond them (default 256) */
    size_t max_starts;        /* at most; above starts, the search goes on while gaits turn up (default 4096) */
    double lo[SM_MAX_STATE];  /* box of the free coordinates */
    double hi[SM_MAX_STATE];
    double same;              /* two gaits closer than this (max norm, free coords) are one (default 1e-6) */
    /* Strides of the map searched, whose powers newton->period counts in
     * (a multiple of it): 2 for Coleman's two-step map of a mirrored walker,
     * 0 or 1 for the stride map.  A gait whose shortest period d is shorter
     * is reported as a fixed point of the searched map's smallest power
     * that it is one of, P^lcm(d, period_unit): its multipliers are that
     * map's, as a search of the two-step map promises. */
    int period_unit;
    /* Called after every start, may be NULL; a nonzero return ends the
     * search there (what was found is kept). */
    int (*progress)(void *ctx, const sm_search_progress *pr);
    void *progress_ctx;
} sm_search_options;

/* What a search found; the caller owns every array. */
typedef struct {
    sm_fixed_result *found;  /* [cap] distinct gaits, in the order first found */
    int *minimal_period;     /* [cap] each gait's shortest period (a divisor of the search's) */
    size_t *hits;            /* [cap] starts whose Newton ended on each gait */
    size_t cap;
    double *scratch;         /* [period * SM_MAX_STATE] the orbit of a converged start */
    size_t n_found;          /* out: gaits in found[] */
    size_t starts_run;       /* out: starts run */
    size_t failed;           /* out: starts from which Newton found nothing */
    bool full;               /* out: a gait beyond cap was dropped */
} sm_search_result;

/* Defaults, with the model's own box (or +-50 % around its guess if it has none). */
void sm_search_options_default(const sm_model *m, const double *p, sm_search_options *o);

/* Checks the box and counts; why gets a line. */
sm_status sm_search_options_check(const sm_model *m, const sm_search_options *o, char *why, size_t why_len);

/* Runs o->starts starts; then, while o->max_starts allows, goes on in
 * batches of o->starts for as long as the starts since the last new gait are
 * fewer than the starts it took to find it (so a gait first hit at start k
 * keeps the search going to 2k).  A start from which Newton on P^N fails
 * is tried on P^d for each d dividing N, shortest first (a very unstable
 * gait's basin is much wider for P than for P^N).  A period-N gait whose
 * orbit is a shorter cycle is reported at its shortest period d
 * (minimal_period), its multipliers those of P^lcm(d, period_unit)
 * (found[i].period); SM_BAD_OPTION if period_unit does not divide N. */
sm_status sm_search(sm_workspace *ws, const double *p, const sm_newton_options *newton,
                    const sm_search_options *o, sm_search_result *res);

#endif
