/* milnor_cuda.h — the batched Milnor product (milnor_mul_batch) on a CUDA GPU.
 *
 * Maths: row i of the output is the XOR over its terms k of Sq(R_i)·Sq(S_k), each product's
 * bit j at column terms[k].col_offset + j (milnor.h); the same bits as the CPU paths.
 *
 * Data: the basis is a flat buffer (milnor_flat_write) already on the device; jobs, terms and
 * rows are device arrays in milnor.h's layouts; rows are njobs x stride packed 64-bit words,
 * zeroed here then filled. Mapping: threads_per_job threads per job share its items (term k,
 * part p): each runs part p of nparts of the Milnor-matrix search of Sq(R)·Sq(S_k)
 * (milnor_search.h, mm_split), so long products are shared and a launch's latency is not that
 * of its longest product; bits are flipped with 64-bit atomic XOR (several items of a row can
 * hit one word). Grid size is computed in 64 bits and checked.
 *
 * Nothing here knows StarPU: the codelet passes StarPU's per-worker stream as `stream`.
 * Compiled only where nvcc is (see Makefile); callers test EXTFLOW_HAVE_CUDA. */
#ifndef EXTFLOW_MILNOR_CUDA_H
#define EXTFLOW_MILNOR_CUDA_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/milnor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when there is no driver or no device). */
int milnor_cuda_device_count(void);

/* Thread mapping (see above); defaults measured in docs/perf.md. */
typedef struct milnor_cuda_cfg {
    uint32_t threads_per_job;       /* divides 256 */
    uint32_t nparts;                /* parts each product's search is split into */
} milnor_cuda_cfg;
#define MILNOR_CUDA_THREADS_PER_JOB 128    /* 128/4: best measured over 16 streams (perf.md) */
#define MILNOR_CUDA_PARTS 4

/* As milnor_mul_batch_cuda with a given mapping (NULL: the default, or EXTFLOW_GPU_SPLIT=
 * "threads_per_job,parts"). */
int milnor_mul_batch_cuda_cfg(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                              const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                              const milnor_cuda_cfg *cfg, void *stream);

/* Launches the product of jobs[0..njobs) on stream (a cudaStream_t; NULL = default stream).
 * All pointers are device pointers. Asynchronous; returns 0 or a CUDA error code. */
int milnor_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                          const milnor_term *terms, uint64_t *rows, uint32_t stride_words, void *stream);

/* Host arrays in, host rows out: copies to the device, launches, copies back, synchronously
 * (tests and benchmarks). flat is a host flat basis of flat_words words. On failure returns a
 * CUDA error code and writes a message into err. *kernel_ms gets the kernel's time (events). */
int milnor_mul_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                               uint32_t njobs, const milnor_term *terms, size_t nterms,
                               uint64_t *rows, uint32_t stride_words, const milnor_cuda_cfg *cfg,
                               double *kernel_ms, char *err, size_t errlen);

/* EXTFLOW_GPU_VERIFY: recomputes on the CPU the rows a launch on stream produced (waits for
 * it) and compares. Returns -1 if all rows agree, else the first differing row; a CUDA failure
 * returns -2. The basis is copied back once per calling thread. */
long milnor_mul_batch_cuda_verify(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                  const milnor_term *terms, size_t nterms, const uint64_t *rows,
                                  uint32_t stride_words, void *stream);

#ifdef __cplusplus
}
#endif
#endif
