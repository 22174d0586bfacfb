/* milnor_cuda.cu — the batched Milnor product on a CUDA GPU (see milnor_cuda.h). The search is
 * the CPU's own (milnor_search.h), compiled for the device. */
#include "algebra/milnor_cuda.h"
#include "algebra/milnor_search.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


__device__ static inline void flip_bit_atomic(unsigned long long *row, uint64_t bit)
{
    atomicXor(row + (bit >> 6), 1ull << (bit & 63));
}

/* Block size: several jobs per block when a job has fewer threads (threads_per_job divides it). */
#define BLOCK 256

/* Job j gets threads_per_job threads; its items (term k, part p), k < n_terms, p < nparts,
 * are dealt to them in turn; item (k, p) runs part p of the search of Sq(R_j)·Sq(S_k). */
__global__ static void mul_batch_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs,
                                        const milnor_term *terms, unsigned long long *rows, uint32_t stride,
                                        uint32_t threads_per_job, uint32_t nparts)
{
    uint64_t gid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t job_no = gid / threads_per_job;
    uint32_t sub = (uint32_t)(gid % threads_per_job);
    if (job_no >= njobs) return;
    const uint32_t md = flat[1], total = flat[2];
    const uint32_t *first = flat + MILNOR_FLAT_HEADER;
    const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md));
    const uint32_t *g = flat + MILNOR_FLAT_SEQNO_AT(md, total);
    const milnor_row_job job = jobs[job_no];
    const milnor_elt R = elts[first[job.r_deg] + job.r_idx];
    unsigned long long *row = rows + job_no * stride;
    const uint32_t nitems = job.n_terms * nparts;
    for (uint32_t item = sub; item < nitems; item += threads_per_job) {
        const uint32_t part = item % nparts;
        const milnor_term tm = terms[job.first_term + item / nparts];
        const milnor_elt S = elts[first[tm.s_deg] + tm.s_idx];
        const deg_t d = R.degree + S.degree;
        if (R.len == 0 || S.len == 0) {            /* unit factor: one term, part 0's */
            const milnor_elt *X = R.len ? &R : &S;
            if (part == 0) flip_bit_atomic(row, tm.col_offset + milnor_seqno_index(g, d, X->r, X->len));
            continue;
        }
        mm_search s;
        uint32_t t[2 * MM_SIDE];
        int len;
        if (!mm_setup(&s, &R, &S)) continue;
        mm_split(&s, part, nparts);
        while ((len = mm_next(&s, t)) >= 0)
            flip_bit_atomic(row, tm.col_offset + milnor_seqno_index(g, d, t, (uint32_t)len));
    }
}

/* The configuration used when the caller gives none: EXTFLOW_GPU_SPLIT="threads_per_job,parts"
 * (read once), else the default measured in docs/perf.md. */
static milnor_cuda_cfg the_default_cfg = { MILNOR_CUDA_THREADS_PER_JOB, MILNOR_CUDA_PARTS };
static pthread_once_t default_cfg_once = PTHREAD_ONCE_INIT;

static void read_default_cfg(void)
{
    const char *e = getenv("EXTFLOW_GPU_SPLIT");
    unsigned a, b;
    if (e && sscanf(e, "%u,%u", &a, &b) == 2 && a >= 1 && a <= BLOCK && BLOCK % a == 0 && b >= 1 && b <= 1024) {
        the_default_cfg.threads_per_job = a;
        the_default_cfg.nparts = b;
    }
}

static milnor_cuda_cfg default_cfg(void)
{
    pthread_once(&default_cfg_once, read_default_cfg);     /* CUDA workers call this at once */
    return the_default_cfg;
}

extern "C" int milnor_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" int milnor_mul_batch_cuda_cfg(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                         const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                                         const milnor_cuda_cfg *cfg, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    milnor_cuda_cfg c = cfg ? *cfg : default_cfg();
    if (njobs == 0) return 0;
    if (c.threads_per_job < 1 || c.threads_per_job > BLOCK || BLOCK % c.threads_per_job || c.nparts < 1)
        return (int)cudaErrorInvalidValue;
    uint64_t blocks = ((uint64_t)njobs * c.threads_per_job + BLOCK - 1) / BLOCK;
    if (blocks > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(rows, 0, (size_t)njobs * stride_words * sizeof *rows, st);
    if (e != cudaSuccess) return (int)e;
    mul_batch_kernel<<<(uint32_t)blocks, BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms, (unsigned long long *)rows,
                                                         stride_words, c.threads_per_job, c.nparts);
    return (int)cudaGetLastError();
}

extern "C" int milnor_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                     const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                                     void *stream)
{
    return milnor_mul_batch_cuda_cfg(flat_basis, jobs, njobs, terms, rows, stride_words, NULL, stream);
}

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));                   \
            rc = (int)e_;                                                                     \
            goto out;                                                                         \
        }                                                                                     \
    } while (0)

extern "C" int milnor_mul_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                                          uint32_t njobs, const milnor_term *terms, size_t nterms,
                                          uint64_t *rows, uint32_t stride_words, const milnor_cuda_cfg *cfg,
                                          double *kernel_ms, char *err, size_t errlen)
{
    int rc = 0;
    uint32_t *d_flat = NULL;
    milnor_row_job *d_jobs = NULL;
    milnor_term *d_terms = NULL;
    uint64_t *d_rows = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    size_t rows_bytes = (size_t)njobs * stride_words * sizeof *rows;
    float ms = 0;
    CK(cudaMalloc((void **)&d_flat, flat_words * sizeof *flat));
    CK(cudaMalloc((void **)&d_jobs, (njobs ? njobs : 1) * sizeof *jobs));
    CK(cudaMalloc((void **)&d_terms, (nterms ? nterms : 1) * sizeof *terms));
    CK(cudaMalloc((void **)&d_rows, rows_bytes ? rows_bytes : 8));
    CK(cudaMemcpy(d_flat, flat, flat_words * sizeof *flat, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_jobs, jobs, njobs * sizeof *jobs, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_terms, terms, nterms * sizeof *terms, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_rows, 0xa5, rows_bytes));                   /* poison: the launch must zero */
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    CK(cudaEventRecord(ev[0], 0));
    CK((cudaError_t)milnor_mul_batch_cuda_cfg(d_flat, d_jobs, njobs, d_terms, d_rows, stride_words, cfg, NULL));
    CK(cudaEventRecord(ev[1], 0));
    CK(cudaEventSynchronize(ev[1]));
    CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    if (kernel_ms) *kernel_ms = ms;
    CK(cudaMemcpy(rows, d_rows, rows_bytes, cudaMemcpyDeviceToHost));
out:
    for (int i = 0; i < 2; ++i)
        if (ev[i]) cudaEventDestroy(ev[i]);
    cudaFree(d_flat);
    cudaFree(d_jobs);
    cudaFree(d_terms);
    cudaFree(d_rows);
    return rc;
}

/* The host copy of the basis for verification, per calling thread (a StarPU CUDA worker). */
static __thread uint32_t *verify_flat;
static __thread const uint32_t *verify_flat_src;
static __thread size_t verify_flat_words;

extern "C" long milnor_mul_batch_cuda_verify(const uint32_t *flat_basis, const milnor_row_job *jobs,
                                             uint32_t njobs, const milnor_term *terms, size_t nterms,
                                             const uint64_t *rows, uint32_t stride_words, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    long result = -2;
    size_t nwords = (size_t)njobs * stride_words;
    milnor_row_job *h_jobs = (milnor_row_job *)malloc((njobs ? njobs : 1) * sizeof *h_jobs);
    milnor_term *h_terms = (milnor_term *)malloc((nterms ? nterms : 1) * sizeof *h_terms);
    uint64_t *gpu = (uint64_t *)malloc((nwords ? nwords : 1) * sizeof *gpu);
    uint64_t *cpu = (uint64_t *)calloc(nwords ? nwords : 1, sizeof *cpu);
    static __thread milnor_elt *view_elts[MILNOR_MAX_DEGREE + 1];
    static __thread uint32_t view_dim[MILNOR_MAX_DEGREE + 1];
    milnor_basis view;
    if (!h_jobs || !h_terms || !gpu || !cpu) goto out;
    if (cudaStreamSynchronize(st) != cudaSuccess) goto out;
    uint32_t head[MILNOR_FLAT_HEADER];    /* a later run's basis may reuse the address: check */
    if (cudaMemcpy(head, flat_basis, sizeof head, cudaMemcpyDeviceToHost) != cudaSuccess) goto out;
    if (verify_flat_src != flat_basis || head[3] != verify_flat_words || head[1] != verify_flat[1]) {
        free(verify_flat);
        verify_flat_src = NULL;
        verify_flat_words = head[3];
        verify_flat = (uint32_t *)malloc(verify_flat_words * sizeof *verify_flat);
        if (!verify_flat ||
            cudaMemcpy(verify_flat, flat_basis, verify_flat_words * sizeof *verify_flat,
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            goto out;
        verify_flat_src = flat_basis;
    }
    if (cudaMemcpy(h_jobs, jobs, njobs * sizeof *h_jobs, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(h_terms, terms, nterms * sizeof *h_terms, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(gpu, rows, nwords * sizeof *gpu, cudaMemcpyDeviceToHost) != cudaSuccess)
        goto out;
    if (milnor_flat_view(verify_flat, verify_flat_words, &view, view_elts, view_dim) < 0) goto out;
    milnor_mul_batch_search(&view, h_jobs, njobs, h_terms, cpu, stride_words);
    result = -1;
    for (uint32_t i = 0; i < njobs && result == -1; ++i)
        if (memcmp(gpu + (size_t)i * stride_words, cpu + (size_t)i * stride_words,
                   stride_words * sizeof *gpu) != 0)
            result = (long)i;
out:
    free(h_jobs);
    free(h_terms);
    free(gpu);
    free(cpu);
    return result;
}
