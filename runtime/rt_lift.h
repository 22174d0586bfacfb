/* rt_lift.h — the task DAG of a batch of chain-map lifts (stages/lift.h) on StarPU.
 *
 * DAG. One task (cl_lift_step) per target bidegree (i, t) where some map of the set has a step,
 * tagged LIFT(i, t), depending on LIFT(i-1, t-1) and LIFT(i, t-1) where those exist
 * (lift_deps): step (i, t) reads row i-1 below degree t, which the two edges order
 * transitively. Tags are declared before the tasks run; the result of every step is a
 * function of its inputs alone, so the scheduler changes the order of work, never a bit.
 * StarPU must be started (rt_init). */
#ifndef EXTFLOW_RT_LIFT_H
#define EXTFLOW_RT_LIFT_H
#include "stages/lift.h"

/* Runs every step of the set; 0, or -1 (set->error says why). */
int rt_lift(lift_set *set);

#endif
