/* pair_cuda.cu — the batched mod-4 Milnor product on a CUDA GPU (see pair_cuda.h for the maths
 * and the data layout). Each work item is pm4_item (algebra/pair_search.h), the search that
 * tests/t-pair-search.c checks on the CPU against milnor_mul_mod4_each. */
#include "algebra/pair_cuda.h"
#include "algebra/pair_search.h"

#include "algebra/cuda_host.h"
#include <stdio.h>

/* Block size: several jobs per block when a job has fewer threads (threads_per_job divides it). */
#define BLOCK 256

/* Job j gets threads_per_job threads; its items (term k, part p), k < n_terms, p < nparts,
 * are dealt to them in turn, as in the mod-2 kernel (milnor_cuda.cu). */
__global__ static void mod4_batch_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs,
                                         const milnor_term *terms, uint64_t *rows, uint32_t stride,
                                         uint32_t twos_at, uint32_t threads_per_job, uint32_t nparts)
{
    uint64_t gid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t job_no = gid / threads_per_job;
    uint32_t sub = (uint32_t)(gid % threads_per_job);
    if (job_no >= njobs) return;
    const milnor_row_job job = jobs[job_no];
    uint64_t *row = rows + job_no * stride;
    const uint32_t nitems = job.n_terms * nparts;
    for (uint32_t item = sub; item < nitems; item += threads_per_job)
        pm4_item(flat, job, terms[job.first_term + item / nparts], row, twos_at, item % nparts, nparts);
}

extern "C" int pair_mul_mod4_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                        const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                                        uint32_t twos_at, const milnor_cuda_cfg *cfg, void *stream)
{
    milnor_cuda_cfg c = { PAIR_CUDA_THREADS_PER_JOB, PAIR_CUDA_PARTS, 0, 0 };  /* kernel, shared_bytes: unused here */
    if (cfg) c = *cfg;
    if (njobs == 0) return 0;
    if (c.threads_per_job < 1 || c.threads_per_job > BLOCK || BLOCK % c.threads_per_job || c.nparts < 1 ||
        c.nparts > 1024)
        return (int)cudaErrorInvalidValue;
    uint64_t blocks = ((uint64_t)njobs * c.threads_per_job + BLOCK - 1) / BLOCK;
    if (blocks > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    mod4_batch_kernel<<<(uint32_t)blocks, BLOCK, 0, (cudaStream_t)stream>>>(
        flat_basis, jobs, njobs, terms, rows, stride_words, twos_at, c.threads_per_job, c.nparts);
    return (int)cudaGetLastError();
}

extern "C" int pair_mul_mod4_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                                             uint32_t njobs, const milnor_term *terms, size_t nterms,
                                             uint64_t *rows, size_t rows_words, uint32_t stride_words,
                                             uint32_t twos_at, const milnor_cuda_cfg *cfg, double *kernel_ms,
                                             char *err, size_t errlen)
{
    auto run = [&](const uint32_t *d_flat, const milnor_row_job *d_jobs, const milnor_term *d_terms, uint64_t *d_rows) {
        return pair_mul_mod4_batch_cuda(d_flat, d_jobs, njobs, d_terms, d_rows, stride_words, twos_at, cfg, NULL);
    };
    return cuda_host_round_trip(flat, flat_words, jobs, njobs, terms, nterms, rows, rows_words, true, run, kernel_ms,
                                err, errlen);
}
