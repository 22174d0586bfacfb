/* cl_lift.c — the codelets of one target bidegree of a batch of chain-map lifts (stages/lift.h):
 * plan → [multiply chunks (cl_milnor_mul) →] finish. cl_arg of both is the lift_step_ctx; each
 * calls its piece (lift_step_plan, lift_step_finish) and then the continuation the runtime put
 * in the context, so no codelet calls into runtime/. When the runtime keeps the multiply on the
 * plan's worker (small rows), the plan's task runs the rest of the step itself. */
#include "codelets/codelets.h"
#include "stages/lift.h"

static void lift_plan_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    lift_step_ctx *c = cl_arg;
    int ok = lift_step_plan(c->set, c->i, c->t, &c->plan) == 0;
    if (c->after_plan(c, ok)) return;       /* the multiply chunks and the finish task follow */
    if (ok) lift_plan_multiply(c->set, &c->plan);
    lift_step_finish(c->set, c->i, c->t, &c->plan);
    c->after_finish(c);
}

/* The task's buffers are the multiply chunks (R): row slices of c->plan.b.D, made valid in
 * main memory by StarPU. */
static void lift_finish_cpu(void *buffers[], void *cl_arg)
{
    lift_step_ctx *c = cl_arg;
    const char *why = cl_milnor_mul_failed();
    if (why) lift_fail(c->set, "%s", why);
    why = cl_rows_check(buffers, &c->plan.b.D);
    if (why) lift_fail(c->set, "internal error: lift step (%d, %d) was given %s", c->i, (int)c->t, why);
    lift_step_finish(c->set, c->i, c->t, &c->plan);
    c->after_finish(c);
}

static struct starpu_perfmodel plan_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_lift_plan_v1" };
static struct starpu_perfmodel finish_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_lift_finish_v1" };

struct starpu_codelet cl_lift_plan = {
    .cpu_funcs = { lift_plan_cpu }, .cpu_funcs_name = { "lift_plan_cpu" },
    .nbuffers = 0, .model = &plan_model, .name = "lift_plan",
};
struct starpu_codelet cl_lift_finish = {
    .cpu_funcs = { lift_finish_cpu }, .cpu_funcs_name = { "lift_finish_cpu" },
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .model = &finish_model, .name = "lift_finish",
};
