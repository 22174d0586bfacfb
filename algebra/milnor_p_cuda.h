/* milnor_p_cuda.h — the batched odd-p Milnor product (milnor_p_mul_batch, milnor_p.h) on a
 * CUDA GPU.
 *
 * Maths: row i of the output is the sum mod p over its terms k of coef_k · (X_i · Y_k), the
 * product's entry j at byte col_offset_k + j; each product is milnor_p_search.h's search, the
 * same code the host runs (t-milnor-p checks it against milnor_p_mul_into), so the rows are
 * the CPU's byte for byte, in any order of jobs, terms and parts (addition mod p commutes).
 *
 * Data: the basis is the flat odd-p buffer (milnor_p_flat_write) already on the device; jobs
 * (milnor.h's milnor_row_job), terms (milnor_p_term) and rows are device arrays; rows are njobs
 * x stride bytes (stride a multiple of 4: fpmat's are of 64), zeroed by the launch. Job j gets
 * threads_per_job threads that share its items (term k, part q), dealt in turn: item (k, q)
 * runs part q of nparts of the search of X_j·Y_k, and adds each term's coefficient into its
 * byte by a compare-and-swap of the 32-bit word that holds it (no byte atomics on the device;
 * the word's other bytes are kept). Grid sizes are computed in 64 bits and checked.
 *
 * Nothing here knows StarPU: the codelet passes StarPU's per-worker stream as `stream`.
 * Compiled only where nvcc is (see Makefile); callers test EXTFLOW_HAVE_CUDA / STARPU_USE_CUDA. */
#ifndef EXTFLOW_MILNOR_P_CUDA_H
#define EXTFLOW_MILNOR_P_CUDA_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/milnor_p.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread mapping (above): threads per job (divides 256) and parts per product. NULL in the
 * calls below: EXTFLOW_GPU_P_SPLIT="threads_per_job,parts", else the defaults. */
typedef struct milnor_p_cuda_cfg {
    uint32_t threads_per_job, nparts;
} milnor_p_cuda_cfg;
#define MILNOR_P_CUDA_THREADS_PER_JOB 64   /* not yet measured on a GPU (bench/plans/gpu-oddp.plan) */
#define MILNOR_P_CUDA_PARTS 4

/* Launches the products of jobs[0..njobs) into rows on stream (a cudaStream_t; NULL = the
 * default stream). Device pointers; asynchronous; returns 0 or a CUDA error code. */
int milnor_p_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                            const milnor_p_term *terms, uint8_t *rows, uint32_t stride, const milnor_p_cuda_cfg *cfg,
                            void *stream);

/* Host arrays in, host rows out (tests and benchmarks): copies to the device, launches, copies
 * back, synchronously. flat: a host flat basis of flat_words words. On failure returns a CUDA
 * error code and writes a message into err. *kernel_ms (if not NULL) gets the launch's time. */
int milnor_p_mul_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs, uint32_t njobs,
                                 const milnor_p_term *terms, size_t nterms, uint8_t *rows, uint32_t stride,
                                 const milnor_p_cuda_cfg *cfg, double *kernel_ms, char *err, size_t errlen);

/* EXTFLOW_GPU_VERIFY: recomputes on the CPU (milnor_p_mul_batch over a host copy of the basis,
 * made once per calling thread) the rows a launch on stream produced (waits for it) and
 * compares. -1 if all rows agree, else the first differing row; -2 on a CUDA failure. */
long milnor_p_mul_batch_cuda_verify(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                    const milnor_p_term *terms, size_t nterms, const uint8_t *rows, uint32_t stride,
                                    void *stream);

#ifdef __cplusplus
}
#endif
#endif
