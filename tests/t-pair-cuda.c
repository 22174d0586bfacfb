/* t-pair-cuda.c — the CUDA mod-4 Milnor product (algebra/pair_cuda.h) against the CPU's
 * pair_mul_mod4_batch, bit for bit on both planes: every pair of basis elements up to a degree
 * (each product in its own columns), random batches from random starting rows, every job
 * into one row (the atomic carries under contention), several thread mappings. The argument
 * checks run everywhere; the GPU tests are skipped where there is no device (as in
 * t-milnor-cuda.c). The search itself is checked on the CPU by t-pair-search.c.
 * Env: SEED (random batches; default time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/milnor_cuda.h"
#include "algebra/pair_algebra.h"
#include "algebra/pair_cuda.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 100
#define ALL_PAIRS_DEG 40

/* GPU rows vs pair_mul_mod4_batch from the same starting rows (random when random_start);
 * returns -1 if equal, the first differing word, or -2 on a CUDA failure. */
static long compare_gpu(const milnor_basis *A, const uint32_t *flat, size_t flat_words, const batch *b,
                        int random_start, const milnor_cuda_cfg *cfg, double *ms)
{
    uint64_t *gpu, *cpu = batch_mod4_rows(A, b, random_start, &gpu);
    char err[256] = "";
    long bad = -2;
    if (pair_mul_mod4_batch_cuda_host(flat, flat_words, b->jobs, b->njobs, b->terms, b->nterms, gpu, b->words,
                                      b->stride, b->twos_at, cfg, ms, err, sizeof err) == 0) {
        bad = -1;
        for (size_t w = 0; w < b->words && bad == -1; ++w)
            if (cpu[w] != gpu[w]) bad = (long)w;
    } else
        diag("CUDA: %s", err);
    free(cpu);
    free(gpu);
    return bad;
}

int main(void)
{
    seed_from_env();

    /* argument checks, before any device is touched */
    static const milnor_cuda_cfg bad_cfgs[] = { {96, 1, 0, 0}, {0, 1, 0, 0}, {512, 1, 0, 0}, {32, 0, 0, 0}, {32, 1025, 0, 0} };
    int refused = 1;
    for (size_t c = 0; c < sizeof bad_cfgs / sizeof *bad_cfgs; ++c)
        refused &= pair_mul_mod4_batch_cuda(NULL, NULL, 1, NULL, NULL, 0, 0, &bad_cfgs[c], NULL) != 0;
    ok(refused, "mappings with threads/job not dividing 256, or parts not in 1..1024, are refused");
    ok(pair_mul_mod4_batch_cuda(NULL, NULL, 0, NULL, NULL, 0, 0, NULL, NULL) == 0,
       "an empty batch launches nothing and succeeds");

    int ndev = milnor_cuda_device_count();
    if (ndev == 0) {
        printf("ok %d # SKIP no CUDA device here\n", ++tap_count);
        return done_testing();
    }
    diag("%d CUDA device(s)", ndev);
    milnor_basis A;
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("milnor_basis_init");
    size_t words;
    uint32_t *flat = flat_basis(&A, &words);
    batch b;
    double ms = 0;
    {   /* every product in its own columns */
        uint32_t width = batch_all_pairs(&A, &b, ALL_PAIRS_DEG, 1);
        b.twos_at = (width + 63) / 64;
        b.stride = 2 * b.twos_at;
        b.words = (size_t)b.njobs * b.stride;
    }
    static const milnor_cuda_cfg cfgs[] = { {128, 4, 0, 0}, {32, 1, 0, 0}, {1, 1, 0, 0}, {64, 3, 0, 0}, {128, 8, 0, 0},
                                            {256, 32, 0, 0} };
    for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; ++c)
        ok(compare_gpu(&A, flat, words, &b, c % 2, &cfgs[c], &ms) == -1,
           "all %zu products of degree <= %d, each in its own columns, %s start, %u threads/job, %u parts: "
           "GPU = CPU on both planes (%.2f ms)", b.nterms, ALL_PAIRS_DEG, c % 2 ? "random" : "zero",
           cfgs[c].threads_per_job, cfgs[c].nparts, ms);
    batch_free(&b);
    ok(compare_gpu(&A, flat, words, &b, 0, NULL, &ms) == -1, "an empty batch through the host path");

    static const uint32_t shapes[][4] = {   /* ngens, maxterms, max |R|, max |S| */
        {1, 1, 5, 5}, {1, 33, 20, 20}, {3, 64, 40, 40}, {50, 8, 60, 30}, {200, 40, 30, 60}, {17, 200, 70, 25},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i)
        for (int rep = 0; rep < 4; ++rep) {
            int one_row = rep >= 2;
            batch_random_mod4(&A, &b, shapes[i][0], shapes[i][1], (deg_t)shapes[i][2], (deg_t)shapes[i][3], one_row,
                              0, 1);
            const milnor_cuda_cfg *cfg = &cfgs[(i + (size_t)rep) % (sizeof cfgs / sizeof *cfgs)];
            long bad = compare_gpu(&A, flat, words, &b, 1, cfg, &ms);
            ok(bad == -1, "random batch %u gens x <= %u terms, |R| <= %u, |S| <= %u, %s, mapping %u/%u: "
               "%u jobs, GPU = CPU from random rows",
               shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], one_row ? "all into one row" : "a row each",
               cfg->threads_per_job, cfg->nparts, b.njobs);
            if (bad >= 0) diag("word %ld differs", bad);
            batch_free(&b);
        }

    {   /* contention: 4096 jobs add the same products into one row */
        batch c = { 0 };
        c.jobs = malloc(4096 * sizeof *c.jobs);
        c.terms = malloc(3 * sizeof *c.terms);
        if (!c.jobs || !c.terms) bail("out of memory");
        for (uint32_t k = 0; k < 3; ++k) c.terms[k] = (milnor_term){ 20, rnd(A.dim[20]), 0 };
        for (uint32_t j = 0; j < 4096; ++j) c.jobs[j] = (milnor_row_job){ 25, rnd(4) % A.dim[25], 0, 3 };
        c.njobs = 4096;
        c.nterms = 3;
        c.twos_at = (A.dim[45] + 63) / 64;
        c.words = 2 * (size_t)c.twos_at;
        ok(compare_gpu(&A, flat, words, &c, 1, &cfgs[1], &ms) == -1,
           "4096 jobs x 3 terms into one row (atomic carries under contention): GPU = CPU");
        batch_free(&c);
    }
    free(flat);
    milnor_basis_clear(&A);
    return done_testing();
}
