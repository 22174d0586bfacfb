/* rt_lift.c — submission of a lift's DAG (see rt_lift.h). */
#include "runtime/rt_lift.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "codelets/codelets.h"

#define TAG_LIFT 9u     /* rt.c's tags use kinds 1..5 in the same top byte */

static starpu_tag_t lift_tag(int i, deg_t t)
{
    return ((starpu_tag_t)TAG_LIFT << 56) | ((starpu_tag_t)(uint32_t)i << 28) | (starpu_tag_t)(uint32_t)t;
}

int rt_lift(lift_set *set)
{
    const resolution *tgt = set->tgt;
    for (deg_t t = 0; t <= tgt->max_t && !lift_failed(set); t++)
        for (int i = 0; i <= tgt->max_s && i <= t; i++) {
            if (!lift_in_region(set, i, t)) continue;
            int di[2];
            deg_t dt[2];
            starpu_tag_t deps[2];
            int n = lift_deps(set, i, t, di, dt);
            for (int k = 0; k < n; k++) deps[k] = lift_tag(di[k], dt[k]);
            starpu_tag_t tag = lift_tag(i, t);
            if (n) starpu_tag_declare_deps_array(tag, (unsigned)n, deps);
            struct cl_lift_args *args = malloc(sizeof *args);   /* freed by StarPU */
            int ret = -ENOMEM;
            if (args) {
                *args = (struct cl_lift_args){ set, i, t };
                ret = starpu_task_insert(&cl_lift_step, STARPU_CL_ARGS, args, sizeof *args, STARPU_TAG, tag,
                                         STARPU_PRIORITY, -(int)t, STARPU_NAME, "lift_step", 0);
            }
            if (ret != 0) {
                lift_fail(set, "StarPU refused a lift_step task: %s", strerror(-ret));
                starpu_tag_notify_from_apps(tag);   /* its dependents run (as no-ops) and the run ends */
            }
        }
    starpu_task_wait_for_all();
    for (deg_t t = 0; t <= tgt->max_t; t++)   /* tags are reused by the next lift of this process */
        for (int i = 0; i <= tgt->max_s && i <= t; i++)
            if (lift_in_region(set, i, t)) starpu_tag_remove(lift_tag(i, t));
    return lift_flush(set);
}
