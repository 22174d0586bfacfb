/* cl_lift.c — the codelet of one target bidegree of a batch of chain-map lifts (stages/lift.h):
 * unpacks its cl_arg (the lift set and the bidegree) and calls lift_step, which loads or
 * computes every map's values there from the ones its tag dependencies finished. */
#include "codelets/codelets.h"
#include "stages/lift.h"

static void lift_step_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    const struct cl_lift_args *a = cl_arg;
    lift_step(a->set, a->i, a->t);
}

static struct starpu_perfmodel lift_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_lift_step_v1" };

struct starpu_codelet cl_lift_step = {
    .cpu_funcs = { lift_step_cpu }, .cpu_funcs_name = { "lift_step_cpu" },
    .nbuffers = 0, .model = &lift_model, .name = "lift_step",
};
