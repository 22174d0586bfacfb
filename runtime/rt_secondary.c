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

/* One cl_composite task per cell (s, t) with needs(ctx, s, t), the largest degrees first; waits
 * for all. 0, or -1 when StarPU refused a task (err set). */
static int composite_tasks(const resolution *res, int (*needs)(const void *, int, deg_t),
                           int (*cell)(void *, int, deg_t), void *ctx, char *err, size_t errlen)
{
    int rc = 0;
    for (deg_t t = res->max_t; t >= 0 && !rc; t--)
        for (int s = 2; s <= res->max_s && s <= t; s++) {
            if (!needs(ctx, s, t)) continue;
            struct cl_composite_args *args = malloc(sizeof *args);   /* freed by StarPU */
            int ret = -ENOMEM;
            if (args) {
                *args = (struct cl_composite_args){ cell, ctx, s, t };
                ret = starpu_task_insert(&cl_composite, STARPU_CL_ARGS, args, sizeof *args, STARPU_PRIORITY, (int)t,
                                         STARPU_NAME, "composite", 0);
            }
            if (ret != 0) {
                snprintf(err, errlen, "StarPU refused a composite task: %s", strerror(-ret));
                rc = -1;
                break;
            }
        }
    starpu_task_wait_for_all();
    return rc;
}

static int sec_needs(const void *ctx, int s, deg_t t) { return secondary_needs_composite(ctx, s, t); }
static int sec_cell(void *ctx, int s, deg_t t) { return secondary_composite_cell(ctx, s, t); }
static int prod_needs(const void *ctx, int s, deg_t t) { return sec_product_needs_composite(ctx, s, t); }
static int prod_cell(void *ctx, int s, deg_t t) { return sec_product_composite_cell(ctx, s, t); }

int rt_secondary(secondary *sec)
{
    const resolution *res = sec->res;
    double t0 = now();
    char err[200];
    if (composite_tasks(res, sec_needs, sec_cell, sec, err, sizeof err) != 0) lift_fail(&sec->set, "%s", err);
    sec->composite_seconds = now() - t0;
    if (secondary_failed(sec)) return -1;
    t0 = now();
    int rc = rt_lift(&sec->set);
    sec->homotopy_seconds = now() - t0;
    return rc;
}

static int prod_composites(sec_product *p)
{
    char err[200];
    if (composite_tasks(p->sec->res, prod_needs, prod_cell, p, err, sizeof err) != 0) {
        lift_fail(&p->hom, "%s", err);
        return -1;
    }
    return sec_product_failed(p) ? -1 : 0;
}

int rt_secondary_product(sec_product *p)
{
    return sec_product_run(p, rt_lift, prod_composites);
}
