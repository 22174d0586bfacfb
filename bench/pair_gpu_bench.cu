/* pair_gpu_bench.cu — the mod-4 Milnor product's GPU kernel (algebra/pair_cuda.h) against the
 * CPU's pair_mul_mod4_batch, and against the mod-2 kernel (milnor_cuda.h) on the same pairs.
 * Usage: pair_gpu_bench [SEED [BATCHES]]
 * One launch holds BATCHES (default 64) random resolution-shaped batches: every R of a degree
 * 5..60 times 2..61 terms S of degrees 1..40 at scattered columns. Prints, per thread mapping
 * T/P (T threads per job, P parts per product; milnor_cuda.h), the kernel's time (median of 3,
 * cudaEvent) and ns per (job x term) pair; then the mod-2 kernel with the default mapping and
 * pair_mul_mod4_batch on one CPU thread; and checks every GPU result against the CPU's. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>

#include "algebra/milnor.h"
#include "algebra/milnor_cuda.h"
#include "algebra/pair_algebra.h"
#include "algebra/pair_cuda.h"
#include "bench/bench.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { return bench_xorshift(&rng); }

static double now(void) { return clock_now(); }

int main(int argc, char **argv)
{
    if (argc > 1) rng = strtoull(argv[1], NULL, 10) | 1;
    int nbatches = argc > 2 ? atoi(argv[2]) : 64;
    if (nbatches < 1 || nbatches > 100000) {
        fprintf(stderr, "usage: pair_gpu_bench [SEED [BATCHES]]\n");
        return 2;
    }
    int ndev = milnor_cuda_device_count();
    if (ndev == 0) {
        printf("pair_gpu_bench: no CUDA device here; nothing measured\n");
        return 0;
    }
    milnor_basis A;
    if (milnor_basis_init(&A, 100, NULL) < 0) return 1;
    size_t flat_words = milnor_flat_words(&A);
    std::vector<uint32_t> flat(flat_words);
    if (milnor_flat_write(&A, flat.data(), flat_words) != 0) return 1;

    std::vector<milnor_row_job> jobs;
    std::vector<milnor_term> terms;
    uint32_t cols = 0;
    for (int g = 0; g < nbatches; ++g) {
        deg_t dr = (deg_t)(5 + rnd() % 56);
        uint32_t nt = (uint32_t)(2 + rnd() % 60), first = (uint32_t)terms.size();
        for (uint32_t k = 0; k < nt; ++k) {
            deg_t ds = (deg_t)(1 + rnd() % 40);
            uint32_t off = (uint32_t)(rnd() % 2000);
            terms.push_back(milnor_term{(uint32_t)ds, (uint32_t)(rnd() % A.dim[ds]), off});
            cols = std::max(cols, off + A.dim[dr + ds]);
        }
        for (uint32_t i = 0; i < A.dim[dr]; ++i) jobs.push_back(milnor_row_job{(uint32_t)dr, i, first, nt});
    }
    uint32_t twos_at = (cols + 63) / 64, stride = 2 * twos_at;
    size_t words = jobs.size() * stride, pairs = 0;
    for (const milnor_row_job &j : jobs) pairs += j.n_terms;
    printf("%d batches: %zu jobs, %zu terms, %zu (job x term) pairs, rows of %u words\n", nbatches, jobs.size(),
           terms.size(), pairs, stride);

    std::vector<uint64_t> cpu(words, 0), gpu(words);
    double t0 = now();
    pair_mul_mod4_batch(&A, jobs.data(), jobs.size(), terms.data(), cpu.data(), stride, twos_at);
    double cpu_s = now() - t0;

    static const milnor_cuda_cfg cfgs[] = { {128, 4, 0, 0}, {32, 1, 0, 0}, {32, 4, 0, 0}, {64, 4, 0, 0}, {128, 8, 0, 0}, {256, 8, 0, 0} };
    char err[256];
    int bad = 0;
    for (const milnor_cuda_cfg &c : cfgs) {
        double ms[3];
        for (int rep = 0; rep < 3; ++rep) {
            std::fill(gpu.begin(), gpu.end(), 0);
            if (pair_mul_mod4_batch_cuda_host(flat.data(), flat_words, jobs.data(), (uint32_t)jobs.size(),
                                              terms.data(), terms.size(), gpu.data(), words, stride, twos_at, &c,
                                              &ms[rep], err, sizeof err) != 0) {
                fprintf(stderr, "pair_gpu_bench: %s\n", err);
                return 1;
            }
            if (gpu != cpu) bad = 1;
        }
        std::sort(ms, ms + 3);
        printf("gpu mod 4 %3u/%-2u  %9.3f ms  %8.2f ns/pair%s\n", c.threads_per_job, c.nparts, ms[1],
               1e6 * ms[1] / (double)pairs, gpu == cpu ? "" : "  DIFFERS FROM THE CPU");
    }
    {   /* the mod-2 kernel on the same pairs, rows of twos_at words */
        std::vector<uint64_t> rows2(jobs.size() * twos_at);
        double ms[3];
        for (int rep = 0; rep < 3; ++rep)
            if (milnor_mul_batch_cuda_host(flat.data(), flat_words, jobs.data(), (uint32_t)jobs.size(), terms.data(),
                                           terms.size(), rows2.data(), twos_at, 0, NULL, &ms[rep], err,
                                           sizeof err) != 0) {
                fprintf(stderr, "pair_gpu_bench: %s\n", err);
                return 1;
            }
        std::sort(ms, ms + 3);
        printf("gpu mod 2 default %9.3f ms  %8.2f ns/pair\n", ms[1], 1e6 * ms[1] / (double)pairs);
    }
    printf("cpu mod 4 1 thread %8.3f ms  %8.2f ns/pair\n", 1e3 * cpu_s, 1e9 * cpu_s / (double)pairs);
    printf("%s\n", bad ? "FAIL: a GPU result differs from pair_mul_mod4_batch" : "every GPU result = the CPU's");
    milnor_basis_clear(&A);
    return bad;
}
