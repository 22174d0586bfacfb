/* bench.h — what the benchmarks share: the clock (algebra/clock.h: clock_now for wall time,
 * clock_seconds(CLOCK_PROCESS_CPUTIME_ID) for CPU time) and a xorshift64 generator on a state
 * each benchmark seeds itself, so that its inputs stay the same from run to run; and a test
 * of a name against a comma-separated list (a benchmark's selection from the environment). */
#ifndef EXTFLOW_BENCH_H
#define EXTFLOW_BENCH_H
#include <stdint.h>
#include <string.h>
#include "algebra/clock.h"

/* xorshift64 (Marsaglia's 13, 7, 17): the next state, which is also the value. */
static inline uint64_t bench_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* 1 if word is one of the comma-separated words of list. */
static inline int bench_word_in(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0) return 1;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

#endif
