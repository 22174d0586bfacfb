/* cl_composite.c — the codelet of d2's composites at one bidegree (stages/secondary.h): unpacks
 * its cl_arg and calls secondary_composite_cell. The cells are independent of each other. */
#include "codelets/codelets.h"
#include "stages/secondary.h"

static void composite_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    const struct cl_composite_args *a = cl_arg;
    secondary_composite_cell(a->sec, a->s, a->t);
}

static struct starpu_perfmodel composite_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_composite_v1" };

struct starpu_codelet cl_composite = {
    .cpu_funcs = { composite_cpu }, .cpu_funcs_name = { "composite_cpu" },
    .nbuffers = 0, .model = &composite_model, .name = "composite",
};
