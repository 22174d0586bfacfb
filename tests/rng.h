/* rng.h — the C tests' random numbers: Marsaglia's xorshift64 with the shifts 13, 7, 17 (a
 * full-period map on the non-zero 64-bit words), on one state per test program, `rng`.
 * rng_seed_from_env() takes the state from SEED (decimal; default: the time; never 0) and
 * prints it, so that SEED=n replays a run; a test with a fixed input sets `rng` itself.
 * Header-only (static inline), like tap.h. Each value is an F2-linear function of the seed:
 * a test that needs random F2 matrices of full rank uses splitmix64 instead (t-f2mat.c). */
#ifndef EXTFLOW_TESTS_RNG_H
#define EXTFLOW_TESTS_RNG_H
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "tests/tap.h"

static uint64_t rng;

/* The next state, which is also the value. */
static inline uint64_t rng_next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A number below n (0 when n is 0; the state advances either way). */
static inline uint32_t rnd(uint32_t n)
{
    rng_next();
    return n ? (uint32_t)(rng % n) : 0;
}

/* A random 64-bit word, from two draws of rnd. */
static inline uint64_t rnd_word(void)
{
    return (uint64_t)rnd(UINT32_MAX) << 32 | rnd(UINT32_MAX);
}

/* The state from SEED (default: the time; 0 becomes 1), printed as a diagnostic. */
static inline void rng_seed_from_env(void)
{
    const char *seed = getenv("SEED");
    rng = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL);
    if (!rng) rng = 1;
    diag("SEED=%llu", (unsigned long long)rng);
}

#endif
