/* cuda_host.cuh — (CUDA sources only) the synchronous host round trip that the tests and
 * benchmarks of the GPU multiplies use (milnor_mul_batch_cuda_host, pair_mul_mod4_batch_cuda_host):
 * the flat basis, jobs and terms copied to the device, rows_words words of rows there (copied
 * from the host rows, or poisoned with 0xa5 bytes when the launch must write every word), one
 * launch between two events, the rows copied back. Returns 0 or the first CUDA error, with
 * "call: message" in err; *kernel_ms gets the launch's time. */
#ifndef EXTFLOW_CUDA_HOST_CUH
#define EXTFLOW_CUDA_HOST_CUH
#include <cuda_runtime.h>
#include <stdio.h>
#include "algebra/milnor_sched.h"

/* The device arrays a launch reads and writes. */
struct cuda_host_arrays {
    const uint32_t *flat;
    const milnor_row_job *jobs;
    const milnor_term *terms;
    uint64_t *rows;
};

#define CUDA_HOST_CK(call)                                                                    \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));                   \
            rc = (int)e_;                                                                     \
            goto out;                                                                         \
        }                                                                                     \
    } while (0)

template <typename Launch>
static int cuda_host_round_trip(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                                uint32_t njobs, const milnor_term *terms, size_t nterms, uint64_t *rows,
                                size_t rows_words, bool rows_in, Launch launch, double *kernel_ms, char *err,
                                size_t errlen)
{
    int rc = 0;
    cuda_host_arrays d = {NULL, NULL, NULL, NULL};
    cudaEvent_t ev[2] = {NULL, NULL};
    size_t rows_bytes = rows_words * sizeof *rows;
    float ms = 0;
    CUDA_HOST_CK(cudaMalloc((void **)&d.flat, flat_words * sizeof *flat));
    CUDA_HOST_CK(cudaMalloc((void **)&d.jobs, (njobs ? njobs : 1) * sizeof *jobs));
    CUDA_HOST_CK(cudaMalloc((void **)&d.terms, (nterms ? nterms : 1) * sizeof *terms));
    CUDA_HOST_CK(cudaMalloc((void **)&d.rows, rows_bytes ? rows_bytes : 8));
    CUDA_HOST_CK(cudaMemcpy((void *)d.flat, flat, flat_words * sizeof *flat, cudaMemcpyHostToDevice));
    CUDA_HOST_CK(cudaMemcpy((void *)d.jobs, jobs, njobs * sizeof *jobs, cudaMemcpyHostToDevice));
    CUDA_HOST_CK(cudaMemcpy((void *)d.terms, terms, nterms * sizeof *terms, cudaMemcpyHostToDevice));
    if (rows_in) CUDA_HOST_CK(cudaMemcpy(d.rows, rows, rows_bytes, cudaMemcpyHostToDevice));
    else CUDA_HOST_CK(cudaMemset(d.rows, 0xa5, rows_bytes));
    CUDA_HOST_CK(cudaEventCreate(&ev[0]));
    CUDA_HOST_CK(cudaEventCreate(&ev[1]));
    CUDA_HOST_CK(cudaEventRecord(ev[0], 0));
    CUDA_HOST_CK((cudaError_t)launch(d));
    CUDA_HOST_CK(cudaEventRecord(ev[1], 0));
    CUDA_HOST_CK(cudaEventSynchronize(ev[1]));
    CUDA_HOST_CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    if (kernel_ms) *kernel_ms = ms;
    CUDA_HOST_CK(cudaMemcpy(rows, d.rows, rows_bytes, cudaMemcpyDeviceToHost));
out:
    for (int i = 0; i < 2; ++i)
        if (ev[i]) cudaEventDestroy(ev[i]);
    cudaFree((void *)d.flat);
    cudaFree((void *)d.jobs);
    cudaFree((void *)d.terms);
    cudaFree(d.rows);
    return rc;
}

#endif
