/* cl_step.c — codelets of a bidegree's chain: plan → (multiply chunks) → reduce → finish.
 * cl_arg of each is the step_ctx (stages/resolution.h); the plan codelet hands over to the
 * runtime to submit the rest of the chain (rt_submit_step_body). */
#include "codelets/codelets.h"
#include "runtime/rt.h"
#include "stages/resolution.h"

static void step_plan_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    step_ctx *c = cl_arg;
    int ok = !res_failed(c->res) && res_step_plan(c) == 0;
    rt_submit_step_body(c, ok);
}

static void step_reduce_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;      /* the chunks alias c->D, which StarPU has made valid in RAM */
    step_ctx *c = cl_arg;
    if (!c->nassau) {
        if (!res_failed(c->res)) res_step_reduce(c);
        return;
    }
    int phase2 = res_failed(c->res) ? 0 : res_nassau_reduce0(c);
    rt_submit_nassau_tail(c, phase2 == 1);
}

static void step_finish_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    step_ctx *c = cl_arg;
    if (c->nassau && c->n_new && !res_failed(c->res)) res_nassau_correct(c);
    if (!res_failed(c->res) && !c->kernel_only) res_step_finish(c);
    rt_step_done(c);
}

static struct starpu_perfmodel plan_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_step_plan_v1" };
static struct starpu_perfmodel reduce_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_step_reduce_v1" };
static struct starpu_perfmodel finish_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_step_finish_v1" };

struct starpu_codelet cl_step_plan = {
    .cpu_funcs = { step_plan_cpu }, .cpu_funcs_name = { "step_plan_cpu" },
    .nbuffers = 0, .model = &plan_model, .name = "step_plan",
};
struct starpu_codelet cl_step_reduce = {
    .cpu_funcs = { step_reduce_cpu }, .cpu_funcs_name = { "step_reduce_cpu" },
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .model = &reduce_model, .name = "step_reduce",
};
struct starpu_codelet cl_step_finish = {
    .cpu_funcs = { step_finish_cpu }, .cpu_funcs_name = { "step_finish_cpu" },
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .model = &finish_model, .name = "step_finish",
};
