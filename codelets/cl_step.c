/* cl_step.c — codelets of a bidegree's chain: plan → (multiply chunks) → reduce → [multiply
 * chunks →] finish. cl_arg of each is the step_ctx (stages/resolution.h); each calls its piece
 * of the step's algorithm (c->algo, stages/step.h) and then the continuation the runtime put in
 * c->next, which submits what follows: no codelet calls into runtime/ or knows the algorithm. */
#include "codelets/codelets.h"
#include "codelets/cl_profile.h"
#include "stages/step.h"

/* Nothing more is computed for this step: the run failed, or stopped taking work. */
static int step_void(step_ctx *c) { return res_check_writes(c->res) || c->next->cancelled(c); }

static void step_plan_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    step_ctx *c = cl_arg;
    if (!c->next->admit(c)) return;     /* deferred: the runtime plans it when there is room */
    uint64_t t0 = cl_profile_start();
    int ok = !step_void(c) && c->algo->plan(c) == 0;
    cl_profile_stop(PIECE_PLAN, t0, c->s, c->t);
    c->next->after_plan(c, ok);
}

/* The rows the multiply chunks just wrote are wrong if one of them failed: fail the run. */
static void check_multiply(step_ctx *c)
{
    const char *why = cl_milnor_mul_failed();
    if (why) res_fail(c->res, "%s", why);
}

const char *cl_rows_check(void *buffers[], const f2mat *D)
{
    unsigned n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
    const uint64_t *next = D->data;
    for (unsigned k = 0; k < n; k++) {
        if ((const uint64_t *)STARPU_VECTOR_GET_PTR(buffers[k]) != next) return "rows that are not its matrix's";
        next += STARPU_VECTOR_GET_NX(buffers[k]);
    }
    return n && next != D->data + (size_t)D->rows * D->stride ? "part of its matrix" : NULL;
}

/* The task's buffers are the multiply chunks (R): consecutive row slices of c->build.D, made
 * valid in main memory by StarPU. The reduce works on D, so it checks that they tile D exactly
 * (what StarPU handed it is what it reduces); a mismatch fails the run. */
static void check_rows(step_ctx *c, void *buffers[])
{
    const char *why = res_failed(c->res) ? NULL : cl_rows_check(buffers, &c->build.D);
    if (why) res_fail(c->res, "internal error: step (%d,%d) was given %s", c->s, c->t, why);
}

static void step_reduce_cpu(void *buffers[], void *cl_arg)
{
    step_ctx *c = cl_arg;
    uint64_t t0 = cl_profile_start();
    check_multiply(c);
    check_rows(c, buffers);
    int r = step_void(c) ? STEP_FINISH : c->algo->reduce(c);
    cl_profile_stop(PIECE_REDUCE, t0, c->s, c->t);
    c->next->after_reduce(c, r == STEP_MULTIPLY_AGAIN);
}

static void step_finish_cpu(void *buffers[], void *cl_arg)
{
    step_ctx *c = cl_arg;
    uint64_t t0 = cl_profile_start();
    check_multiply(c);
    check_rows(c, buffers);
    if (!step_void(c)) c->algo->finish(c);
    cl_profile_stop(PIECE_FINISH, t0, c->s, c->t);
    c->next->after_finish(c);
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
