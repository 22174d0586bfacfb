/* milnor_p_cuda.cu — the batched odd-p Milnor product on a CUDA GPU (see milnor_p_cuda.h). The
 * search is milnor_p_search.h's, compiled for the device and the host alike. */
#include "algebra/milnor_p_cuda.h"
#include "algebra/milnor_p_search.h"
#include "algebra/cuda_host.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256

/* row[col] = (row[col] + c) mod p, by compare-and-swap on the aligned word holding the byte. */
__device__ static inline void add_mod_p(uint8_t *row, uint32_t col, uint32_t c, uint32_t p)
{
    unsigned int *word = (unsigned int *)(row + (col & ~3u));
    const unsigned int shift = (col & 3u) * 8;
    unsigned int old = *word, seen;
    do {
        seen = old;
        unsigned int b = (seen >> shift & 0xffu) + c;
        if (b >= p) b -= p;
        old = atomicCAS(word, seen, (seen & ~(0xffu << shift)) | b << shift);
    } while (old != seen);
}

/* Job j gets threads_per_job threads; its items (term k, part q), k < n_terms, q < nparts, are
 * dealt to them in turn; item (k, q) runs part q of the search of X_j·Y_k. */
__global__ static void mul_p_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs,
                                    const milnor_p_term *terms, uint8_t *rows, uint32_t stride,
                                    uint32_t threads_per_job, uint32_t nparts)
{
    const uint64_t gid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t job_no = gid / threads_per_job;
    const uint32_t sub = (uint32_t)(gid % threads_per_job);
    if (job_no >= njobs) return;
    mps_tables T;
    mps_tables_of_flat(&T, flat);
    const milnor_row_job job = jobs[job_no];
    const milnor_p_elt *X = mpf_elt(flat, job.r_deg, job.r_idx);
    uint8_t *row = rows + job_no * stride;
    const uint32_t nitems = job.n_terms * nparts;
    for (uint32_t item = sub; item < nitems; item += threads_per_job) {
        const milnor_p_term tm = terms[job.first_term + item / nparts];
        mps_search s;
        mps_term t;
        mps_start(&s, &T, X, mpf_elt(flat, tm.s_deg, tm.s_idx), item % nparts, nparts);
        while (mps_next(&s, &t)) add_mod_p(row, tm.col_offset + t.index, t.c * tm.coef % T.p, T.p);
    }
}

/* The mapping when the caller gives none: EXTFLOW_GPU_P_SPLIT (read once), else the defaults. */
static milnor_p_cuda_cfg the_default_cfg = { MILNOR_P_CUDA_THREADS_PER_JOB, MILNOR_P_CUDA_PARTS };
static pthread_once_t default_cfg_once = PTHREAD_ONCE_INIT;

static void read_default_cfg(void)
{
    cuda_split_from_env("EXTFLOW_GPU_P_SPLIT", BLOCK, &the_default_cfg.threads_per_job, &the_default_cfg.nparts);
}

extern "C" int milnor_p_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                       const milnor_p_term *terms, uint8_t *rows, uint32_t stride,
                                       const milnor_p_cuda_cfg *cfg, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    pthread_once(&default_cfg_once, read_default_cfg);      /* CUDA workers call this at once */
    const milnor_p_cuda_cfg c = cfg ? *cfg : the_default_cfg;
    if (njobs == 0) return 0;
    if (c.threads_per_job < 1 || c.threads_per_job > BLOCK || BLOCK % c.threads_per_job || c.nparts < 1 || stride % 4)
        return (int)cudaErrorInvalidValue;
    const uint64_t blocks = ((uint64_t)njobs * c.threads_per_job + BLOCK - 1) / BLOCK;
    if (blocks > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(rows, 0, (size_t)njobs * stride, st);
    if (e != cudaSuccess) return (int)e;
    mul_p_kernel<<<(uint32_t)blocks, BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms, rows, stride, c.threads_per_job,
                                                      c.nparts);
    return (int)cudaGetLastError();
}

extern "C" int milnor_p_mul_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                                            uint32_t njobs, const milnor_p_term *terms, size_t nterms, uint8_t *rows,
                                            uint32_t stride, const milnor_p_cuda_cfg *cfg, double *kernel_ms,
                                            char *err, size_t errlen)
{
    auto run = [&](const uint32_t *d_flat, const milnor_row_job *d_jobs, const milnor_p_term *d_terms, uint8_t *d_rows) {
        return milnor_p_mul_batch_cuda(d_flat, d_jobs, njobs, d_terms, d_rows, stride, cfg, NULL);
    };
    return cuda_host_round_trip(flat, flat_words, jobs, njobs, terms, nterms, rows, (size_t)njobs * stride, false, run,
                                kernel_ms, err, errlen);
}

static __thread flat_cache verify_cache;    /* the basis's host copy, per CUDA worker */
static __thread milnor_p_elt *view_elts[MILNOR_P_MAX_DEGREE + 1];
static __thread uint32_t view_dim[MILNOR_P_MAX_DEGREE + 1];

extern "C" long milnor_p_mul_batch_cuda_verify(const uint32_t *flat_basis, const milnor_row_job *jobs,
                                               uint32_t njobs, const milnor_p_term *terms, size_t nterms,
                                               const uint8_t *rows, uint32_t stride, void *stream)
{
    auto cpu = [&](const uint32_t *flat, size_t words, const milnor_row_job *h_jobs, const milnor_p_term *h_terms,
                   uint8_t *out) {
        milnor_p_basis view;
        if (milnor_p_flat_view(flat, words, &view, view_elts, view_dim) < 0) return -1;
        milnor_p_mul_batch(&view, h_jobs, njobs, h_terms, out, stride);
        return 0;
    };
    return cuda_verify_rows(&verify_cache, flat_basis, MILNOR_P_FLAT_HEADER, 3, jobs, njobs, terms, nterms, rows, njobs,
                            stride, stream, cpu);
}
