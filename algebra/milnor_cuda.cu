/* milnor_cuda.cu — the batched Milnor product on a CUDA GPU (see milnor_cuda.h). The search is
 * the CPU's own (milnor_search.h), compiled for the device. */
#include "algebra/milnor_cuda.h"
#include "algebra/milnor_search.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARP 32
#define BLOCK 128           /* 4 jobs per block */

__device__ static inline void flip_bit_atomic(unsigned long long *row, uint64_t bit)
{
    atomicXor(row + (bit >> 6), 1ull << (bit & 63));
}

__global__ static void mul_batch_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs,
                                        const milnor_term *terms, unsigned long long *rows,
                                        uint32_t stride)
{
    uint32_t job_no = (blockIdx.x * blockDim.x + threadIdx.x) / WARP, lane = threadIdx.x % WARP;
    if (job_no >= njobs) return;
    const uint32_t md = flat[1], total = flat[2];
    const uint32_t *first = flat + MILNOR_FLAT_HEADER;
    const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md));
    const uint32_t *g = flat + MILNOR_FLAT_SEQNO_AT(md, total);
    const milnor_row_job job = jobs[job_no];
    const milnor_elt R = elts[first[job.r_deg] + job.r_idx];
    unsigned long long *row = rows + (size_t)job_no * stride;
    for (uint32_t k = job.first_term + lane; k < job.first_term + job.n_terms; k += WARP) {
        const milnor_term tm = terms[k];
        const milnor_elt S = elts[first[tm.s_deg] + tm.s_idx];
        const deg_t d = R.degree + S.degree;
        if (R.len == 0 || S.len == 0) {            /* unit factor */
            const milnor_elt *X = R.len ? &R : &S;
            flip_bit_atomic(row, tm.col_offset + milnor_seqno_index(g, d, X->r, X->len));
            continue;
        }
        mm_search s;
        uint32_t t[2 * MM_SIDE];
        int len;
        if (!mm_setup(&s, &R, &S)) continue;
        while ((len = mm_next(&s, t)) >= 0)
            flip_bit_atomic(row, tm.col_offset + milnor_seqno_index(g, d, t, (uint32_t)len));
    }
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

extern "C" int milnor_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                     const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                                     void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (njobs == 0) return 0;
    if (njobs > (1u << 26)) return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(rows, 0, (size_t)njobs * stride_words * sizeof *rows, st);
    if (e != cudaSuccess) return (int)e;
    uint32_t blocks = (uint32_t)(((uint64_t)njobs * WARP + BLOCK - 1) / BLOCK);
    mul_batch_kernel<<<blocks, BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms,
                                               (unsigned long long *)rows, stride_words);
    return (int)cudaGetLastError();
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
                                          uint64_t *rows, uint32_t stride_words, double *kernel_ms,
                                          char *err, size_t errlen)
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
    CK((cudaError_t)milnor_mul_batch_cuda(d_flat, d_jobs, njobs, d_terms, d_rows, stride_words, NULL));
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
    if (verify_flat_src != flat_basis) {
        uint32_t head[MILNOR_FLAT_HEADER];
        if (cudaMemcpy(head, flat_basis, sizeof head, cudaMemcpyDeviceToHost) != cudaSuccess) goto out;
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
