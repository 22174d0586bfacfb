/* cuda_host.h — host-side helpers the CUDA files of algebra/ share (CUDA C++ only: included by
 * the .cu files, never by C). Nothing here knows StarPU.
 *   cuda_split_from_env  a thread mapping "threads_per_job,parts" from the environment
 *   CK(call)            a CUDA call that, failing, writes "call: reason" into err (errlen),
 *                       sets rc and jumps to the caller's label `out`
 *   cuda_upload         cudaMalloc (at least 8 bytes) and a copy of host bytes to it
 *   cuda_timed          events around a launch on the default stream: its time in ms
 *   cuda_host_round_trip  the synchronous round trip of the multiplies' tests and benchmarks
 *   flat_cache_get      a host copy of a flat basis that lives on the device, kept per
 *                       calling thread (EXTFLOW_GPU_VERIFY recomputes chunks on the CPU) and
 *                       fetched again when the device buffer's address or header changes (a
 *                       later run's basis may reuse a freed one's address)
 *   cuda_verify_rows    EXTFLOW_GPU_VERIFY's check of a multiply task: its rows copied back and
 *                       compared with the CPU's */
#ifndef EXTFLOW_CUDA_HOST_H
#define EXTFLOW_CUDA_HOST_H
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/milnor.h"

/* "threads_per_job,parts" from environment variable `name` into *tpj, *parts when it is valid
 * (threads_per_job divides block, parts 1..1024); else they are left as they are. */
static inline void cuda_split_from_env(const char *name, uint32_t block, uint32_t *tpj, uint32_t *parts)
{
    const char *e = getenv(name);
    unsigned a, b;
    if (e && sscanf(e, "%u,%u", &a, &b) == 2 && a >= 1 && a <= block && block % a == 0 && b >= 1 && b <= 1024) {
        *tpj = a;
        *parts = b;
    }
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

template <class T>
static inline cudaError_t cuda_upload(T **dev, const T *host, size_t n)
{
    cudaError_t e = cudaMalloc((void **)dev, n * sizeof(T) > 8 ? n * sizeof(T) : 8);
    return e != cudaSuccess || n == 0 ? e : cudaMemcpy(*dev, host, n * sizeof(T), cudaMemcpyHostToDevice);
}

/* launch() (returning a CUDA error code) between two events on the default stream; *ms its time. */
template <class F>
static inline cudaError_t cuda_timed(F launch, double *ms)
{
    cudaEvent_t ev[2] = {NULL, NULL};
    float t = 0;
    cudaError_t e = cudaEventCreate(&ev[0]);
    if (e == cudaSuccess) e = cudaEventCreate(&ev[1]);
    if (e == cudaSuccess) e = cudaEventRecord(ev[0], 0);
    if (e == cudaSuccess) e = (cudaError_t)launch();
    if (e == cudaSuccess) e = cudaEventRecord(ev[1], 0);
    if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&t, ev[0], ev[1]);
    if (e == cudaSuccess && ms) *ms = t;
    for (int i = 0; i < 2; ++i)
        if (ev[i]) cudaEventDestroy(ev[i]);
    return e;
}

/* The synchronous host round trip of the tests and benchmarks of the GPU multiplies: the flat
 * basis, jobs and terms copied to the device, n_rows units of rows (Row: 64-bit words, or bytes
 * at an odd prime) there, copied from the host rows when rows_in, else poisoned with 0xa5 bytes
 * (the launch must write every entry); launch(d_flat, d_jobs, d_terms, d_rows) between two
 * events (*kernel_ms its time); the rows copied back. 0 or the first CUDA error, with
 * "call: message" in err. */
template <class Term, class Row, class Launch>
static int cuda_host_round_trip(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs, uint32_t njobs,
                                const Term *terms, size_t nterms, Row *rows, size_t n_rows, bool rows_in,
                                Launch launch, double *kernel_ms, char *err, size_t errlen)
{
    int rc = 0;
    uint32_t *d_flat = NULL;
    milnor_row_job *d_jobs = NULL;
    Term *d_terms = NULL;
    Row *d_rows = NULL;
    const size_t rows_bytes = n_rows * sizeof(Row);
    CK(cuda_upload(&d_flat, flat, flat_words));
    CK(cuda_upload(&d_jobs, jobs, njobs));
    CK(cuda_upload(&d_terms, terms, nterms));
    CK(cudaMalloc((void **)&d_rows, rows_bytes ? rows_bytes : 8));
    if (rows_in) CK(cudaMemcpy(d_rows, rows, rows_bytes, cudaMemcpyHostToDevice));
    else CK(cudaMemset(d_rows, 0xa5, rows_bytes));
    CK(cuda_timed([&] { return launch(d_flat, d_jobs, d_terms, d_rows); }, kernel_ms));
    CK(cudaMemcpy(rows, d_rows, rows_bytes, cudaMemcpyDeviceToHost));
out:
    cudaFree(d_flat);
    cudaFree(d_jobs);
    cudaFree(d_terms);
    cudaFree(d_rows);
    return rc;
}

typedef struct flat_cache {
    uint32_t *host;
    const uint32_t *src;
    size_t words;
} flat_cache;

/* The host copy of dev, a flat basis whose first head_words words are its header and whose
 * word words_at holds its size in words; NULL on a CUDA failure or out of memory. */
static inline const uint32_t *flat_cache_get(flat_cache *c, const uint32_t *dev, size_t head_words, size_t words_at)
{
    uint32_t head[64];
    if (head_words > 64 || cudaMemcpy(head, dev, head_words * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return NULL;
    if (c->src == dev && c->words == head[words_at] && c->host && !memcmp(head, c->host, head_words * 4))
        return c->host;
    free(c->host);
    c->src = NULL;
    c->words = head[words_at];
    c->host = (uint32_t *)malloc(c->words * 4 > head_words * 4 ? c->words * 4 : head_words * 4);
    if (!c->host || cudaMemcpy(c->host, dev, c->words * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return NULL;
    c->src = dev;
    return c->host;
}

/* EXTFLOW_GPU_VERIFY's check of one multiply task, once the work queued on `stream` is done:
 * the jobs, the terms and nrows rows of row_units units each (Row: 64-bit words, or bytes at an
 * odd prime) copied back from the device; cpu(flat, words, h_jobs, h_terms, cpu_rows) computes
 * the rows again on the host into zeroed ones (0, or -1 when it cannot), from the basis's host
 * copy in *cache (flat_cache_get: head_words words of header, its size in words at word
 * words_at). Returns the first row that differs, -1 when all agree, -2 when the check could not
 * run (out of memory, a CUDA failure). */
template <class Term, class Row, class Cpu>
static long cuda_verify_rows(flat_cache *cache, const uint32_t *flat_basis, size_t head_words, size_t words_at,
                             const milnor_row_job *jobs, uint32_t njobs, const Term *terms, size_t nterms,
                             const Row *rows, uint32_t nrows, size_t row_units, void *stream, Cpu cpu)
{
    long result = -2;
    const size_t n = (size_t)nrows * row_units;
    milnor_row_job *h_jobs = (milnor_row_job *)malloc((njobs ? njobs : 1) * sizeof *h_jobs);
    Term *h_terms = (Term *)malloc((nterms ? nterms : 1) * sizeof *h_terms);
    Row *gpu = (Row *)malloc((n ? n : 1) * sizeof *gpu), *cpu_rows = (Row *)calloc(n ? n : 1, sizeof *cpu_rows);
    const uint32_t *flat;
    if (!h_jobs || !h_terms || !gpu || !cpu_rows || cudaStreamSynchronize((cudaStream_t)stream) != cudaSuccess) goto out;
    if (!(flat = flat_cache_get(cache, flat_basis, head_words, words_at))) goto out;
    if (cudaMemcpy(h_jobs, jobs, njobs * sizeof *h_jobs, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(h_terms, terms, nterms * sizeof *h_terms, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(gpu, rows, n * sizeof *gpu, cudaMemcpyDeviceToHost) != cudaSuccess)
        goto out;
    if (cpu(flat, cache->words, h_jobs, h_terms, cpu_rows) != 0) goto out;
    result = -1;
    for (uint32_t i = 0; i < nrows && result == -1; ++i)
        if (memcmp(gpu + (size_t)i * row_units, cpu_rows + (size_t)i * row_units, row_units * sizeof *gpu) != 0)
            result = (long)i;
out:
    free(h_jobs);
    free(h_terms);
    free(gpu);
    free(cpu_rows);
    return result;
}

#endif
