/* clock.h — the one way to read a clock, in seconds (double) or nanoseconds.
 *
 * CLOCK_MONOTONIC for intervals and deadlines (--time-limit, progress, statistics);
 * CLOCK_REALTIME where two processes of one host compare their readings (an exchange's latency
 * between MPI ranks); CLOCK_THREAD_CPUTIME_ID for the CPU time of the calling thread. */
#ifndef EXTFLOW_CLOCK_H
#define EXTFLOW_CLOCK_H
#include <stdint.h>
#include <time.h>

static inline double clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Seconds of CLOCK_MONOTONIC. */
static inline double clock_now(void) { return clock_seconds(CLOCK_MONOTONIC); }

#endif
