/* rt_secondary.c — submission of d2's tasks (see rt_secondary.h). */
#include "runtime/rt_secondary.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "codelets/codelets.h"
#include "runtime/rt_lift.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rt_secondary(secondary *sec)
{
    const resolution *res = sec->res;
    double t0 = now();
    for (deg_t t = res->max_t; t >= 0 && !secondary_failed(sec); t--)   /* the costly ones first */
        for (int s = 2; s <= res->max_s && s <= t; s++) {
            if (!secondary_needs_composite(sec, s, t)) continue;
            struct cl_composite_args *args = malloc(sizeof *args);   /* freed by StarPU */
            int ret = -ENOMEM;
            if (args) {
                *args = (struct cl_composite_args){ sec, s, t };
                ret = starpu_task_insert(&cl_composite, STARPU_CL_ARGS, args, sizeof *args, STARPU_PRIORITY, (int)t,
                                         STARPU_NAME, "composite", 0);
            }
            if (ret != 0) {
                lift_fail(&sec->set, "StarPU refused a composite task: %s", strerror(-ret));
                break;
            }
        }
    starpu_task_wait_for_all();
    sec->composite_seconds = now() - t0;
    if (secondary_failed(sec)) return -1;
    t0 = now();
    int rc = rt_lift(&sec->set);
    sec->homotopy_seconds = now() - t0;
    return rc;
}
