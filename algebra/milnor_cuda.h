/* milnor_cuda.h — the batched Milnor product (milnor_mul_batch) on a CUDA GPU.
 *
 * Maths: row i of the output is the XOR over its terms k of Sq(R_i)·Sq(S_k), each product's
 * bit j at column terms[k].col_offset + j (milnor.h); the same bits as the CPU paths, in any
 * order of jobs, terms and search parts (XOR commutes).
 *
 * Data: the basis is a flat buffer (milnor_flat_write) already on the device; jobs, terms and
 * rows are device arrays in milnor.h's layouts; rows are njobs x stride packed 64-bit words,
 * written entirely by a launch (what they held before does not matter). Seven kernels:
 *
 *   atomic (EXTFLOW_GPU_KERNEL=atomic): rows zeroed by a memset, then
 *     threads_per_job threads per job, in job order, share its items (term k, part p): each
 *     runs part p of nparts of the Milnor-matrix search of Sq(R)·Sq(S_k) (milnor_search.h,
 *     mm_split), items dealt in turn; every term found is one 64-bit global atomic XOR.
 *   shared (EXTFLOW_GPU_KERNEL=shared): the jobs are first binned by an estimate of their cost, heaviest
 *     first (three small passes, scratch from the stream's memory pool); block x of 256
 *     threads then owns jobs x J .. x J + J - 1 of that order (J = 256 / threads_per_job,
 *     halved until J rows fit shared_bytes, 40 KiB by default), its threads draw the block's
 *     items (job, term, part) from a shared counter, XOR each term into the job's row in
 *     shared memory (32-bit shared atomics) and, at the end, store each word of the rows to
 *     global memory once. The heaviest blocks start first and each block's threads end
 *     together, so a launch ends on its light work. A row longer than shared_bytes sends the
 *     launch to the same scheduling with global atomics (after a memset).
 *   algebra/milnor_sched.h holds the cost model, binning, block layout and row packing; it is
 *   compiled for the host too, and tests/t-milnor-sched.c runs it against the CPU product.
 *   halves (EXTFLOW_GPU_KERNEL=halves): the CPU's method (R-halves, docs/algorithms.md §2.3)
 *     on the GPU: block x of 256 threads owns jobs 64 x .. 64 x + 63; one thread per job counts
 *     the job's R-halves under its terms' bounds, then round by round (as many jobs as a pool
 *     of shared_bytes, 40 KiB by default, holds) they are written to shared memory and all the
 *     block's threads test (half, term) pairs, each a few steps, XORing accepted terms into the
 *     rows in global memory (zeroed first) with 64-bit atomics. A job whose halves do not fit
 *     the pool runs the search (items (term, part), nparts parts) after the rounds. The
 *     enumeration, the test and the rounds are algebra/milnor_halves.h's, compiled for the
 *     host too (tests/t-milnor-halves.c: against a brute force and the CPU product).
 *   refill (EXTFLOW_GPU_KERNEL=refill): every item (job, term, part) of the launch in one
 *     queue (a scan of the jobs' item counts, CUB, in scratch from the stream's memory pool);
 *     as many blocks as the device holds at once; a thread advances its item by one term a
 *     turn (global 64-bit atomic XOR, rows zeroed first) and, once the item is over, takes the
 *     next in the same turn (a warp's threads that need one take consecutive items with one
 *     atomicAdd), so a warp's threads end together instead of waiting for its longest search.
 *     threads_per_job is ignored; nparts splits each product's search as in `atomic`.
 *   step (EXTFLOW_GPU_KERNEL=step): as refill, but a turn is one step of the search
 *     (mm_step: place a cell's value or advance it), not a whole term: a warp's threads
 *     also stay together between terms, where each runs a different number of steps.
 *   packed (EXTFLOW_GPU_KERNEL=packed): as step, with the search's state in a few 64-bit
 *     words (algebra/milnor_packed.h: at most 8 cells, entries below 2^16), which a thread
 *     keeps in registers, not ~1 KB of local memory; a product beyond those limits takes the
 *     step kernel's search.
 *   atomic-packed (the default; EXTFLOW_GPU_KERNEL=atomic-packed): atomic, each product's
 *     search that of milnor_packed.h where within its limits (atomic's own search beyond them).
 * Grid sizes are computed in 64 bits and checked.
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

/* Kernels (see above): 0 in a cfg means the default, EXTFLOW_GPU_KERNEL=atomic|shared|halves|refill|step|packed|atomic-packed
 * or else
 * MILNOR_CUDA_KERNEL_DEFAULT. */
enum { MILNOR_CUDA_KERNEL_ATOMIC = 1, MILNOR_CUDA_KERNEL_SHARED = 2, MILNOR_CUDA_KERNEL_HALVES = 3, MILNOR_CUDA_KERNEL_REFILL = 4,
       MILNOR_CUDA_KERNEL_STEP = 5, MILNOR_CUDA_KERNEL_PACKED = 6, MILNOR_CUDA_KERNEL_ATOMIC_PACKED = 7 };
#define MH_POOL_DEFAULT (40u << 10)     /* halves kernel: bytes of R-halves per block */
#define MILNOR_CUDA_KERNEL_DEFAULT MILNOR_CUDA_KERNEL_ATOMIC_PACKED   /* stem 130 on the H200 (perf.md) */

/* Thread mapping (see above); defaults measured in docs/perf.md. A shorter initializer
 * ({T, P}) leaves kernel and shared_bytes 0: the defaults. */
typedef struct milnor_cuda_cfg {
    uint32_t threads_per_job;       /* divides 256; shared kernel: 256 / this = jobs per block */
    uint32_t nparts;                /* parts each product's search is split into */
    uint32_t kernel;                /* MILNOR_CUDA_KERNEL_*, 0: the default */
    uint32_t shared_bytes;          /* shared kernel: bytes of rows per block (0: 40 KiB; fewer
                                       than one row's: rows in global memory, as `atomic`);
                                       halves kernel: bytes of halves per block (0: 40 KiB) */
} milnor_cuda_cfg;
#define MILNOR_CUDA_THREADS_PER_JOB 256    /* 256/1: stems 130 and 150 on the H200 (perf.md) */
#define MILNOR_CUDA_PARTS 1

/* As milnor_mul_batch_cuda with a given mapping (NULL: the default, or EXTFLOW_GPU_SPLIT=
 * "threads_per_job,parts"). */
int milnor_mul_batch_cuda_cfg(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                              const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                              const milnor_cuda_cfg *cfg, void *stream);

/* Launches the product of jobs[0..njobs) on stream (a cudaStream_t; NULL = default stream).
 * All pointers are device pointers. Asynchronous; returns 0 or a CUDA error code. */
int milnor_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                          const milnor_term *terms, uint64_t *rows, uint32_t stride_words, void *stream);

/* The XOR of all njobs products into the one row of row_words words at row (zeroed first): a
 * row_build's grouped row (stages/rowbuild.h). The atomic kernel, whatever the default. */
int milnor_mul_batch_cuda_row(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                              const milnor_term *terms, uint64_t *row, uint32_t row_words, void *stream);

/* Host arrays in, host rows out: copies to the device, launches, copies back, synchronously
 * (tests and benchmarks); one_row: as milnor_mul_batch_cuda_row (rows: one row of stride_words
 * words). flat is a host flat basis of flat_words words. On failure returns a CUDA error code
 * and writes a message into err. *kernel_ms gets the kernel's time (events). */
int milnor_mul_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                               uint32_t njobs, const milnor_term *terms, size_t nterms,
                               uint64_t *rows, uint32_t stride_words, int one_row, const milnor_cuda_cfg *cfg,
                               double *kernel_ms, char *err, size_t errlen);

/* EXTFLOW_GPU_VERIFY: recomputes on the CPU the rows a launch on stream produced (waits for
 * it) and compares (one_row: the one row of milnor_mul_batch_cuda_row). Returns -1 if all rows
 * agree, else the first differing row; a CUDA failure returns -2. The basis is copied back
 * once per calling thread. */
long milnor_mul_batch_cuda_verify(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                  const milnor_term *terms, size_t nterms, const uint64_t *rows,
                                  uint32_t stride_words, int one_row, void *stream);

#ifdef __cplusplus
}
#endif
#endif
