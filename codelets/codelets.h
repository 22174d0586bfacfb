/* codelets.h — StarPU codelets of extflow: thin wrappers that unpack buffers and call plain
 * kernels (algebra/, stages/), which know nothing of StarPU.
 *
 *   cl_milnor_mul  rows of a packed F2 matrix = batched Milnor products (milnor_mul_batch).
 *                  Buffers: jobs (R, vector of milnor_row_job), terms (R, vector of
 *                  milnor_term), rows (W, vector of uint64 words, nrows x stride).
 *                  cl_arg: struct cl_milnor_mul_args. CPU implementation; CUDA comes later.
 *   cl_step_plan   marshals a bidegree's jobs and submits the rest of its chain (runtime/).
 *   cl_step_reduce RREF of [D | I]: image pivots and kernel. Buffers: the row chunks (R).
 *   cl_step_finish new generators, publication, stage file; its tag marks the step done.
 * Every codelet has a history-based perfmodel (files under $STARPU_HOME/.starpu/sampling).
 */
#ifndef EXTFLOW_CODELETS_H
#define EXTFLOW_CODELETS_H
#include <starpu.h>
#include "algebra/milnor.h"

struct cl_milnor_mul_args {
    const milnor_basis *A;      /* read-only tables, shared by all workers */
    uint32_t row0;              /* first job of this chunk */
    uint32_t stride;            /* words per output row */
};

extern struct starpu_codelet cl_milnor_mul;
extern struct starpu_codelet cl_step_plan;
extern struct starpu_codelet cl_step_reduce;
extern struct starpu_codelet cl_step_finish;

#endif
