/* cl_composite.c — the finish of the composites at one bidegree (d2's, stages/secondary.h, or a
 * secondary product's): unpacks the batch's multiplied rows (one buffer per chunk, in order)
 * into the batch and calls its finish function. Cells are independent. */
#include "codelets/codelets.h"
#include "stages/secondary.h"

static void composite_cpu(void *buffers[], void *cl_arg)
{
    const struct cl_composite_args *a = cl_arg;
    sec_batch *b = a->batch;
    const char *why = cl_milnor_mul_failed();
    if (STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) != b->nchunks)
        why = "internal error: a composite's finish was not given one row per chunk";
    for (uint32_t k = 0; k < b->nchunks && !why; k++)
        b->chunk_row[k] = (const uint64_t *)STARPU_VECTOR_GET_PTR(buffers[k]);
    a->finish(a->ctx, b, why);
}

static struct starpu_perfmodel composite_model = { .type = STARPU_HISTORY_BASED, .symbol = "extflow_composite_v2" };

struct starpu_codelet cl_composite = {
    .cpu_funcs = { composite_cpu }, .cpu_funcs_name = { "composite_cpu" },
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .model = &composite_model, .name = "composite",
};
