/* cl_composite.c — the codelet of the composites at one bidegree (d2's, stages/secondary.h, or a
 * secondary product's): unpacks its cl_arg and calls its cell function. Cells are independent. */
#include "codelets/codelets.h"

static void composite_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    const struct cl_composite_args *a = cl_arg;
    a->cell(a->ctx, a->s, a->t);
}

static struct starpu_perfmodel composite_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_composite_v1" };

struct starpu_codelet cl_composite = {
    .cpu_funcs = { composite_cpu }, .cpu_funcs_name = { "composite_cpu" },
    .nbuffers = 0, .model = &composite_model, .name = "composite",
};
