/* Reproducible random numbers for tests (xorshift64, header-only): each test
 * file gets its own stream, seeded by TEST_RNG_SEED if it defines one
 * before including this. */
#ifndef STRIDEMAP_TEST_RNG_H
#define STRIDEMAP_TEST_RNG_H

#include <stdint.h>

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ull
#endif

static uint64_t rng_state = TEST_RNG_SEED;

/* Uniform in [lo, hi). */
static inline double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * ((double)(rng_state >> 11) / 9007199254740992.0);
}

#endif
