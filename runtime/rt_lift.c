/* rt_lift.c — submission of a lift's DAG (see rt_lift.h). */
#include "runtime/rt_lift.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "codelets/codelets.h"
#include "runtime/rt_mul.h"
#include "runtime/rt_tags.h"

/* One run of rt_lift: what its tasks share, reached through lift_step_ctx.runtime. */
typedef struct lift_run {
    rt_mul *mul;                /* the target's flat basis and the chunking (rt_mul.h) */
    rt_mul own;                 /* mul when the caller gave none */
    int inline_given;           /* EXTFLOW_LIFT_INLINE_PAIRS is set: */
    uint64_t inline_pairs;      /* steps with fewer pairs multiply inline (0: none, every step
                                 * with products goes through the multiply codelet) */
} lift_run;

/* Does step c multiply on its plan's worker rather than through multiply tasks? By default
 * when its rows are one CPU chunk or less and no GPU would take them: the chain then only adds
 * tasks and handles (docs/perf.md, "Products through the multiply codelet"). */
static int multiply_inline(const lift_run *run, const row_build *b)
{
    uint64_t pairs;
    rt_chunking k = rt_mul_chunking(run->mul, b, &pairs);
    if (pairs == 0) return 1;
    if (run->inline_given) return pairs < run->inline_pairs;
    return !(run->mul->ncuda && (k.where & STARPU_CUDA)) && pairs <= k.pairs;
}

/* After plan: small rows, or a failed plan, are finished by the plan's task; otherwise the
 * multiply chunks, then the finish task, which reads them and carries LIFT(i, t). */
static int after_plan(lift_step_ctx *c, int planned_ok)
{
    lift_run *run = c->runtime;
    if (!planned_ok || multiply_inline(run, &c->plan.b)) {
        c->inline_rest = 1;
        return 0;
    }
    lift_set *set = c->set;         /* c may be freed as soon as the finish task is submitted */
    int i = c->i;
    deg_t t = c->t;
    rt_chunks k;
    char err[128];
    if (rt_mul_submit(run->mul, &c->plan.b, -1, -1, &k, err, sizeof err) != 0)
        lift_fail(set, "lift step (%d, %d): %s", i, (int)t, err);
    /* priority 1, above every plan (-t) and chunk (0): a step whose rows are multiplied finishes,
     * freeing them, before more steps are planned (peak RSS of products at stem 100: 254 MB
     * against 302 MB at -t; docs/perf.md) */
    int ret = starpu_task_insert(&cl_lift_finish, STARPU_DATA_MODE_ARRAY, k.descr, (int)k.n, STARPU_CL_ARGS_NFREE, c,
                                 sizeof *c, STARPU_TAG, tag_of(TAG_LIFT, i, t), STARPU_PRIORITY, 1,
                                 STARPU_NAME, "lift_finish", 0);
    if (ret != 0) {     /* c stays allocated: the chunk tasks may still write its rows */
        lift_fail(set, "StarPU refused a lift_finish task: %s", strerror(-ret));
        starpu_tag_notify_from_apps(tag_of(TAG_LIFT, i, t));   /* its dependents run (as no-ops) */
    }
    rt_chunks_release(&k);
    return 1;
}

static void after_finish(lift_step_ctx *c)
{
    if (c->inline_rest) starpu_tag_notify_from_apps(tag_of(TAG_LIFT, c->i, c->t));   /* no task carries it */
    free(c);
}

int rt_lift(lift_set *set) { return rt_lift_with(set, NULL); }

int rt_lift_with(lift_set *set, rt_mul *mul)
{
    const resolution *tgt = set->tgt;
    lift_run run;
    char err[128];
    run.mul = mul ? mul : &run.own;
    if (!mul && rt_mul_init(&run.own, &tgt->A, err, sizeof err) != 0) {
        lift_fail(set, "%s", err);
        return -1;
    }
    uint64_t cpu0, cuda0, cpu1, cuda1;
    cl_milnor_mul_stats(&cpu0, &cuda0);
    const char *ip = getenv("EXTFLOW_LIFT_INLINE_PAIRS");
    run.inline_given = ip && *ip;
    run.inline_pairs = run.inline_given ? strtoull(ip, NULL, 10) : 0;
    for (deg_t t = 0; t <= tgt->max_t && !lift_failed(set); t++)
        for (int i = 0; i <= tgt->max_s && i <= t; i++) {
            if (!lift_in_region(set, i, t)) continue;
            int di[2];
            deg_t dt[2];
            starpu_tag_t deps[2];
            int n = lift_deps(set, i, t, di, dt);
            for (int k = 0; k < n; k++) deps[k] = tag_of(TAG_LIFT, di[k], dt[k]);
            starpu_tag_t plan = tag_of(TAG_LIFT_PLAN, i, t);
            if (n) starpu_tag_declare_deps_array(plan, (unsigned)n, deps);
            lift_step_ctx *c = calloc(1, sizeof *c);   /* freed by after_finish */
            int ret = -ENOMEM;
            if (c) {
                *c = (lift_step_ctx){ .set = set, .i = i, .t = t, .after_plan = after_plan,
                                      .after_finish = after_finish, .runtime = &run };
                ret = starpu_task_insert(&cl_lift_plan, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_TAG, plan,
                                         STARPU_PRIORITY, -(int)t, STARPU_NAME, "lift_plan", 0);
            }
            if (ret != 0) {
                free(c);
                lift_fail(set, "StarPU refused a lift_plan task: %s", strerror(-ret));
                starpu_tag_notify_from_apps(tag_of(TAG_LIFT, i, t));   /* its dependents run (as no-ops) and the run ends */
            }
        }
    starpu_task_wait_for_all();
    for (deg_t t = 0; t <= tgt->max_t; t++)   /* tags are reused by the next lift of this process */
        for (int i = 0; i <= tgt->max_s && i <= t; i++)
            if (lift_in_region(set, i, t)) {
                starpu_tag_remove(tag_of(TAG_LIFT_PLAN, i, t));
                starpu_tag_remove(tag_of(TAG_LIFT, i, t));
            }
    if (!mul) rt_mul_clear(&run.own);
    cl_milnor_mul_stats(&cpu1, &cuda1);
    set->pairs_cuda += cuda1 - cuda0;   /* (other multiplies of the process would count too: none run beside) */
    (void)cpu1;
    return lift_flush(set);
}
