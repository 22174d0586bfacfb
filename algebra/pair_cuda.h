/* pair_cuda.h — the batched mod-4 Milnor product (pair_mul_mod4_batch) on a CUDA GPU: the
 * products in B0 that d2's composites and σ-products add into pair elements' ones and twos.
 *
 * Maths (pair_algebra.h, algebra/pair_search.h): for every job i and each of its terms k, the
 * product Sq(R_i)·Sq(S_k) in B0 = the free Z/4-module on the Milnor basis, whose structure
 * constants are Milnor's multinomial coefficients mod 4; its coefficient of the basis element
 * of index x (in degree |R_i| + |S_k|) is added in Z/4 at column terms[k].col_offset + x of
 * row i. The same sums as the CPU's pair_mul_mod4_batch (milnor_mul_mod4_each), exactly.
 *
 * Data: jobs and terms are milnor.h's milnor_row_job and milnor_term, the basis a whole
 * algebra's flat buffer (milnor_flat_write) through every degree |R_i| + |S_k|, all already on
 * the device. A row holds one Z/4 coefficient per column as two bit-planes of packed 64-bit
 * words (bit c%64 of word c/64): the ones plane (coefficient bit 0) at the row's first word,
 * the twos plane (bit 1) twos_at words further on: pair_elt's ones and twos, so a pair_elt's
 * allocation is a row with twos_at = twos - ones. Rows are stride_words apart (0: every job
 * adds into the one row at rows). Nothing is zeroed: the launch adds into what the rows hold
 * (zero them for the product alone), with 64-bit atomic XORs (pair_search.h, Accumulation);
 * the d2 result is the twos plane once the ones plane has cancelled (pair_finalize).
 *
 * What d2 needs of it: σ(b)σ(c) (pair_sigma_mul_add) is its Y terms, mod-2 products that go
 * through milnor_mul_batch / milnor_mul_batch_cuda already, plus this product into ones and
 * twos; A(a, e) (pair_a_mul_add) is mod 2 only. Many targets in one launch: lay their ones
 * planes end to end in a scratch row, then their twos planes in the same order (twos_at = the
 * ones planes' words), give each term its target's ones column, and add the planes back;
 * a product taken 3 times (-1 = 3 mod 4, stages/d2/secondary_product.c) is its term 3 times.
 *
 * Mapping: as the mod-2 kernel (milnor_cuda.h): threads_per_job threads per job share its
 * items (term k, part p), each running part p of nparts of the search (pm4_item); grid size
 * computed in 64 bits and checked. Nothing here knows StarPU: a codelet passes its stream.
 * Compiled only where nvcc is (see Makefile); callers test EXTFLOW_HAVE_CUDA. */
#ifndef EXTFLOW_PAIR_CUDA_H
#define EXTFLOW_PAIR_CUDA_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/milnor.h"
#include "algebra/milnor_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mapping when the caller gives none (milnor_cuda_cfg; not yet measured for mod 4). */
#define PAIR_CUDA_THREADS_PER_JOB 128
#define PAIR_CUDA_PARTS 4

/* Launches the mod-4 products of jobs[0..njobs) on stream (a cudaStream_t; NULL = default
 * stream) with the mapping cfg (NULL: the default above). All pointers are device pointers.
 * Asynchronous; returns 0 or a CUDA error code (cudaErrorInvalidValue for a bad mapping). */
int pair_mul_mod4_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                             const milnor_term *terms, uint64_t *rows, uint32_t stride_words, uint32_t twos_at,
                             const milnor_cuda_cfg *cfg, void *stream);

/* Host arrays in, host rows in and out (rows_words words: the rows' starting values, then the
 * sums): copies to the device, launches, copies back, synchronously (tests and benchmarks).
 * flat is a host flat basis of flat_words words. On failure returns a CUDA error code and
 * writes a message into err. *kernel_ms gets the kernel's time (events). */
int pair_mul_mod4_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                                  uint32_t njobs, const milnor_term *terms, size_t nterms, uint64_t *rows,
                                  size_t rows_words, uint32_t stride_words, uint32_t twos_at,
                                  const milnor_cuda_cfg *cfg, double *kernel_ms, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
