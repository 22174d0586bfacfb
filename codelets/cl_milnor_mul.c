/* cl_milnor_mul.c — the Milnor-multiply codelet: one chunk of rows of a differential's matrix. */
#include "codelets/codelets.h"

static void milnor_mul_cpu(void *buffers[], void *cl_arg)
{
    struct cl_milnor_mul_args *a = cl_arg;
    const milnor_row_job *jobs = (const milnor_row_job *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const milnor_term *terms = (const milnor_term *)STARPU_VECTOR_GET_PTR(buffers[1]);
    uint64_t *rows = (uint64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    uint32_t nrows = STARPU_VECTOR_GET_NX(buffers[2]) / a->stride;
    milnor_mul_batch(a->A, jobs + a->row0, nrows, terms, rows, a->stride);
}

static struct starpu_perfmodel milnor_mul_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "extflow_milnor_mul_v1",
};

struct starpu_codelet cl_milnor_mul = {
    .cpu_funcs = { milnor_mul_cpu },
    .cpu_funcs_name = { "milnor_mul_cpu" },
    .nbuffers = 3,
    .modes = { STARPU_R, STARPU_R, STARPU_W },
    .model = &milnor_mul_model,
    .name = "milnor_mul",
};
