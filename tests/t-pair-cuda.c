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
#include <time.h>

#include "algebra/milnor.h"
#include "algebra/milnor_cuda.h"
#include "algebra/pair_algebra.h"
#include "algebra/pair_cuda.h"
#include "tests/tap.h"

#define MAXDEG 100
#define ALL_PAIRS_DEG 40

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (uint32_t)(rng % n) : 0;
}

typedef struct batch {
    milnor_row_job *jobs;
    milnor_term *terms;
    uint32_t njobs, stride, twos_at;
    size_t nterms, words;
} batch;

static void batch_free(batch *b)
{
    free(b->jobs);
    free(b->terms);
    memset(b, 0, sizeof *b);
}

/* Every product of degree <= D: one row per (R, degree of S), the S of that degree as terms,
 * product k at its own column block k·dim A_{|R|+|S|}. */
static void batch_all_pairs(const milnor_basis *A, batch *b, deg_t D)
{
    memset(b, 0, sizeof *b);
    size_t nj = 0, nt = 0;
    uint32_t width = 0;
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds) {
            nj += A->dim[dr];
            nt += A->dim[ds];
            if (A->dim[ds] * A->dim[dr + ds] > width) width = A->dim[ds] * A->dim[dr + ds];
        }
    b->jobs = malloc(nj * sizeof *b->jobs);
    b->terms = malloc(nt * sizeof *b->terms);
    if (!b->jobs || !b->terms) bail("out of memory");
    b->twos_at = (width + 63) / 64;
    b->stride = 2 * b->twos_at;
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds) {
            uint32_t first = (uint32_t)b->nterms;
            for (uint32_t k = 0; k < A->dim[ds]; ++k)
                b->terms[b->nterms++] = (milnor_term){ (uint32_t)ds, k, k * A->dim[dr + ds] };
            for (uint32_t i = 0; i < A->dim[dr]; ++i)
                b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)dr, i, first, A->dim[ds] };
        }
    b->words = (size_t)b->njobs * b->stride;
}

/* ngens term lists of <= maxterms random S (|S| <= maxs) at random, possibly overlapping,
 * column blocks; jobs: random R of one degree <= maxr times each list; one_row: stride 0. */
static void batch_random(const milnor_basis *A, batch *b, uint32_t ngens, uint32_t maxterms, deg_t maxr,
                         deg_t maxs, int one_row)
{
    memset(b, 0, sizeof *b);
    uint32_t *gfirst = calloc(ngens, sizeof *gfirst), *gcount = calloc(ngens, sizeof *gcount);
    b->terms = malloc(((size_t)ngens * maxterms + 1) * sizeof *b->terms);
    deg_t dr = (deg_t)rnd((uint32_t)maxr + 1);
    uint32_t cols = 0;
    if (!gfirst || !gcount || !b->terms) bail("out of memory");
    for (uint32_t g = 0; g < ngens; ++g) {
        deg_t ds = (deg_t)rnd((uint32_t)maxs + 1);
        gfirst[g] = (uint32_t)b->nterms;
        gcount[g] = rnd(maxterms + 1);
        for (uint32_t k = 0; k < gcount[g]; ++k) {
            uint32_t at = rnd(2) ? cols : rnd(cols + 1);
            b->terms[b->nterms++] = (milnor_term){ (uint32_t)ds, rnd(A->dim[ds]), at };
            if (at + A->dim[dr + ds] > cols) cols = at + A->dim[dr + ds];
        }
    }
    uint32_t nr = A->dim[dr] < 64 ? A->dim[dr] : 64;
    b->jobs = malloc((size_t)nr * ngens * sizeof *b->jobs);
    if (!b->jobs) bail("out of memory");
    for (uint32_t g = 0; g < ngens; ++g)
        for (uint32_t i = 0; i < nr; ++i)
            b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)dr, nr == A->dim[dr] ? i : rnd(A->dim[dr]), gfirst[g],
                                                     gcount[g] };
    b->twos_at = (cols + 63) / 64 + rnd(2);
    b->stride = one_row ? 0 : 2 * b->twos_at + rnd(2);
    b->words = one_row ? 2 * (size_t)b->twos_at : (size_t)b->njobs * b->stride;
    free(gfirst);
    free(gcount);
}

/* GPU rows vs pair_mul_mod4_batch from the same starting rows (random when random_start);
 * returns -1 if equal, the first differing word, or -2 on a CUDA failure. */
static long compare_gpu(const milnor_basis *A, const uint32_t *flat, size_t flat_words, const batch *b,
                        int random_start, const milnor_cuda_cfg *cfg, double *ms)
{
    uint64_t *cpu = calloc(b->words + 1, sizeof *cpu), *gpu = calloc(b->words + 1, sizeof *gpu);
    char err[256] = "";
    long bad = -2;
    if (!cpu || !gpu) bail("out of memory");
    if (random_start)
        for (size_t w = 0; w < b->words; ++w) cpu[w] = (uint64_t)rnd(UINT32_MAX) << 32 | rnd(UINT32_MAX);
    memcpy(gpu, cpu, b->words * sizeof *cpu);
    pair_mul_mod4_batch(A, b->jobs, b->njobs, b->terms, cpu, b->stride, b->twos_at);
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
    const char *seed = getenv("SEED");
    rng = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL);
    if (!rng) rng = 1;
    plan_lazy();
    diag("SEED=%llu", (unsigned long long)rng);

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
    size_t words = milnor_flat_words(&A);
    uint32_t *flat = malloc(words * sizeof *flat);
    if (!flat || milnor_flat_write(&A, flat, words) != 0) bail("milnor_flat_write");
    batch b;
    double ms = 0;
    batch_all_pairs(&A, &b, ALL_PAIRS_DEG);
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
            batch_random(&A, &b, shapes[i][0], shapes[i][1], (deg_t)shapes[i][2], (deg_t)shapes[i][3], one_row);
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
