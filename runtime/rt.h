/* rt.h — the runtime layer: StarPU start/stop and the resolution's task DAG.
 *
 * DAG. Each job (s, t) is a chain of StarPU tasks: plan (tag PLAN) → multiply chunks → reduce
 * → [multiply chunks →] finish (tag DONE, or EDGE for a stem-edge kernel job), whatever the
 * step's algorithm (stages/step.h), which also names the jobs it needs (step_algo.deps): the
 * standard step needs (s, t-1) and (s-1, t) or the edge kernel job there; Nassau's rows s >= 2
 * need (s, t-1) and (s-1, t-1) only. Dependencies between jobs are StarPU tag dependencies
 * declared before anything runs; the scheduler (STARPU_SCHED) only picks the order, and every
 * job's result is a function of its inputs alone, so outputs never depend on it. The codelets
 * continue a chain through c->next (step_next), which this layer supplies.
 */
#ifndef EXTFLOW_RT_H
#define EXTFLOW_RT_H
#include "stages/resolution.h"

typedef struct rt_progress {   /* progress itself: stages/progress.h, fed as steps finish */
    int verbose;                /* at the end: the share of multiply work each worker kind did */
    /* Limits (0: none). memory_budget: bytes the run keeps to; a bidegree is admitted (its plan
     * runs) only when the memory account's lasting kinds, the footprints of the bidegrees in
     * flight and its own predicted footprint fit in it, and always when nothing is in flight.
     * time_limit: seconds after which no bidegree is admitted; rt_resolve then returns 1. */
    uint64_t memory_budget;
    double time_limit;
    double start;               /* CLOCK_MONOTONIC seconds time_limit counts from (0: rt_resolve's start) */
    int admission_report;       /* at the end: the most bidegrees in flight, how often one waited */
} rt_progress;

/* Starts StarPU: CPU workers, and CUDA workers where StarPU was built with CUDA and a device
 * exists (then eager unless STARPU_SCHED is set). verbose: one line saying what started. */
int rt_init(int verbose, char *err, size_t errlen);
void rt_shutdown(void);
/* Runs every step of the region not already done; returns 0, 1 when it stopped at
 * progress->time_limit (what finished is in the stage files: a rerun resumes), or -1 (see
 * res->error). */
int rt_resolve(resolution *res, const rt_progress *progress);

#endif
