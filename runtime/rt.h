/* rt.h — the runtime layer: StarPU start/stop and the resolution's task DAG.
 *
 * DAG (standard algorithm). Job (s, t) needs the module F_s below degree t — from job
 * (s, t-1) — and the kernel of d_{s-1} at (s-1, t) — from job (s-1, t) when that bidegree is
 * in the region, otherwise from a stem-edge kernel job at (s-1, t), which needs (s-1, t-1).
 * Each job is a chain of StarPU tasks: plan (tag PLAN) → multiply chunks → reduce → finish
 * (tag DONE, or EDGE for a kernel job). Dependencies between jobs are StarPU tag dependencies
 * declared before anything runs; the scheduler (STARPU_SCHED) only picks the order, and every
 * job's result is a function of its inputs alone, so outputs never depend on it.
 *
 * Nassau (rows s >= 2): the relaxed graph, (s, t) needs (s, t-1) and (s-1, t-1) only; its chain
 * is plan → multiply (zero-signature rows) → reduce → [multiply (other rows)] → finish.
 */
#ifndef EXTFLOW_RT_H
#define EXTFLOW_RT_H
#include "stages/resolution.h"

typedef struct rt_progress {   /* progress itself: stages/progress.h, fed by rt_step_done */
    int verbose;                /* at the end: the share of multiply work each worker kind did */
} rt_progress;

/* Starts StarPU: CPU workers, and CUDA workers where StarPU was built with CUDA and a device
 * exists (then eager unless STARPU_SCHED is set). verbose: one line saying what started. */
int rt_init(int verbose, char *err, size_t errlen);
void rt_shutdown(void);
/* Runs every step of the region not already done; returns 0, or -1 (see res->error). */
int rt_resolve(resolution *res, const rt_progress *progress);

/* Called from codelets (codelets/cl_step.c). */
void rt_submit_step_body(step_ctx *c, int planned_ok);
void rt_submit_nassau_tail(step_ctx *c, int phase2);
void rt_step_done(step_ctx *c);

#endif
