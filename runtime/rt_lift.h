/* rt_lift.h — the task DAG of a batch of chain-map lifts (stages/lift.h) on StarPU.
 *
 * DAG. Per target bidegree (i, t) where some map of the set has a step, a chain like a
 * resolution's step (rt.h):
 *
 *     lift_plan (tag LIFT_PLAN(i, t)) → [milnor_mul × chunks → lift_finish (tag LIFT(i, t))]
 *
 * lift_plan loads what a previous run left and puts the Milnor products of every map's
 * f_{i-1}(d z) there into one row_build (lift_step_plan); its continuation (after_plan) then
 * either submits the build's multiply chunks through rt_mul (the resolution's submission and
 * chunking: CPU workers, or the GPUs for builds of >= 2^18 pairs) and lift_finish, which reads
 * them (StarPU data dependencies), carries LIFT(i, t) and runs at priority 1 (above plans
 * and chunks: a multiplied step frees its rows before more are planned); or, for a build of
 * at most one CPU chunk that no GPU would take (most target bidegrees), lets the plan's task
 * multiply and finish the step itself and notifies LIFT(i, t) (no task carries it then).
 * EXTFLOW_LIFT_INLINE_PAIRS=N replaces that rule: inline exactly when the build has fewer
 * than N pairs (0: every build with products goes through the multiply tasks).
 * LIFT_PLAN(i, t) depends on LIFT(i-1, t-1) and LIFT(i, t-1) where those exist (lift_deps):
 * step (i, t) reads row i-1 below degree t, which the two edges order transitively. Tags are
 * declared before the tasks run; the result of every step is a function of its inputs alone
 * (the multiply's rows are the same wherever they are computed), so the scheduler, the worker
 * count and the inline rule change the order of work, never a bit. StarPU must be started
 * (rt_init). */
#ifndef EXTFLOW_RT_LIFT_H
#define EXTFLOW_RT_LIFT_H
#include "stages/lift.h"

/* Runs every step of the set; 0, or -1 (set->error says why). Registers the target's flat
 * Milnor basis for the run (rt_mul_init) and adds the pairs the CUDA workers multiplied to
 * set->pairs_cuda. */
int rt_lift(lift_set *set);
/* The same with the caller's flat basis of the target's algebra (rt_mul_init over set->tgt->A;
 * NULL: its own), which it keeps: d2 flattens the basis once for its composites and its lift. */
struct rt_mul;
int rt_lift_with(lift_set *set, struct rt_mul *mul);

#endif
