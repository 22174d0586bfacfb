/* t-milnor-p-cuda.c — the odd-p CUDA Milnor product (algebra/milnor_p_cuda.cu) against the
 * CPU's (milnor_p_mul_batch, i.e. milnor_p_mul_into) at p = 3, 5, 7: every product X·Y with
 * |X| + |Y| <= N in one batch, under several thread mappings; random batches shaped like a
 * differential's rows (generators' terms with coefficients 1..p-1 at column blocks, some
 * blocks shared so that products add up mod p); a bad mapping refused; an empty batch. Where
 * there is no CUDA device the whole test is skipped (1..0 # SKIP). Env: SEED. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor_cuda.h"
#include "algebra/milnor_p.h"
#include "algebra/milnor_p_cuda.h"
#include "tests/batch.h"

typedef struct pbatch {
    milnor_row_job *jobs;
    milnor_p_term *terms;
    uint32_t njobs, nterms, stride;
} pbatch;

static void pbatch_free(pbatch *b)
{
    free(b->jobs);
    free(b->terms);
    memset(b, 0, sizeof *b);
}

/* Every X of degree a times every Y of degree d - a, d <= N: a job per X with the terms Y at
 * blocks of dim[d] columns (coefficient 1), rows as wide as the widest. */
static void pbatch_all_pairs(const milnor_p_basis *A, deg_t N, pbatch *b)
{
    memset(b, 0, sizeof *b);
    size_t nj = 0, nt = 0, width = 0;
    for (deg_t d = 0; d <= N; ++d)
        for (deg_t a = 0; a <= d; ++a) {
            nj += A->dim[a];
            nt += A->dim[d - a];
            width = (size_t)A->dim[d - a] * A->dim[d] > width ? (size_t)A->dim[d - a] * A->dim[d] : width;
        }
    b->jobs = malloc((nj + 1) * sizeof *b->jobs);
    b->terms = malloc((nt + 1) * sizeof *b->terms);
    if (!b->jobs || !b->terms) bail("out of memory");
    for (deg_t d = 0; d <= N; ++d)
        for (deg_t a = 0; a <= d; ++a) {
            uint32_t first = b->nterms;
            for (uint32_t j = 0; j < A->dim[d - a]; ++j)
                b->terms[b->nterms++] = (milnor_p_term){ (uint32_t)(d - a), j, j * A->dim[d], 1 };
            for (uint32_t i = 0; i < A->dim[a]; ++i)
                b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)a, i, first, A->dim[d - a] };
        }
    b->stride = (uint32_t)((width + 63) & ~(size_t)63);
}

/* ngens generators, each with up to maxterms terms Y of one degree <= maxs (random
 * coefficients) at column blocks, a block shared by the next term one time in three; rows:
 * every X of one degree dr <= maxr (at most 64 of them) times each generator. */
static void pbatch_random(const milnor_p_basis *A, pbatch *b, uint32_t ngens, uint32_t maxterms, deg_t maxr, deg_t maxs)
{
    memset(b, 0, sizeof *b);
    deg_t dr = 1 + (deg_t)rnd((uint32_t)maxr);
    while (!A->dim[dr]) --dr;
    b->terms = malloc(((size_t)ngens * maxterms + 1) * sizeof *b->terms);
    b->jobs = malloc(((size_t)ngens * 64 + 1) * sizeof *b->jobs);
    if (!b->terms || !b->jobs) bail("out of memory");
    uint32_t cols = 0;
    for (uint32_t g = 0; g < ngens; ++g) {
        deg_t ds = (deg_t)rnd((uint32_t)maxs + 1);
        uint32_t first = b->nterms, n = A->dim[ds] ? rnd(maxterms + 1) : 0;
        for (uint32_t k = 0; k < n; ++k) {
            b->terms[b->nterms++] = (milnor_p_term){ (uint32_t)ds, rnd(A->dim[ds]), cols, 1 + rnd(A->p - 1) };
            if (rnd(3)) cols += A->dim[ds + dr];
        }
        cols += A->dim[ds + dr];
        uint32_t rows = A->dim[dr] < 64 ? A->dim[dr] : 64;
        for (uint32_t r = 0; r < rows; ++r)
            b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)dr, rows < A->dim[dr] ? rnd(A->dim[dr]) : r, first, n };
    }
    b->stride = ((cols + 1) + 63) & ~63u;
}

/* GPU rows against the CPU's: the first differing row, -1 if none, -2 on a CUDA failure. */
static long compare(const milnor_p_basis *A, const uint32_t *flat, size_t words, const pbatch *b,
                    const milnor_p_cuda_cfg *cfg, double *ms)
{
    size_t n = (size_t)b->njobs * b->stride;
    uint8_t *cpu = calloc(n + 1, 1), *gpu = malloc(n + 1);
    char err[256] = "";
    long bad = -2;
    if (!cpu || !gpu) bail("out of memory");
    milnor_p_mul_batch(A, b->jobs, b->njobs, b->terms, cpu, b->stride);
    if (milnor_p_mul_batch_cuda_host(flat, words, b->jobs, b->njobs, b->terms, b->nterms, gpu, b->stride, cfg, ms, err,
                                     sizeof err) == 0) {
        bad = -1;
        for (uint32_t i = 0; i < b->njobs && bad == -1; ++i)
            if (memcmp(cpu + (size_t)i * b->stride, gpu + (size_t)i * b->stride, b->stride)) bad = i;
    } else {
        diag("CUDA: %s", err);
    }
    free(cpu);
    free(gpu);
    return bad;
}

static const struct { uint32_t p; deg_t basis_n, all_n; } CASES[] = {
    { 3, 240, 64 }, { 5, 480, 128 }, { 7, 720, 150 },
};

int main(void)
{
    int ndev = milnor_cuda_device_count();
    if (ndev == 0) {
        printf("1..0 # SKIP no GPU\n");
        return 0;
    }
    seed_from_env();
    diag("%d CUDA device(s)", ndev);
    static const milnor_p_cuda_cfg cfgs[] = { {64, 4}, {32, 1}, {1, 1}, {128, 3}, {256, 16}, {8, 2} };
    const size_t ncfg = sizeof cfgs / sizeof *cfgs;
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; ++c) {
        milnor_p_basis A;
        if (milnor_p_basis_init(&A, CASES[c].p, CASES[c].basis_n) != 0) bail("milnor_p_basis_init");
        size_t words = milnor_p_flat_words(&A);
        uint32_t *flat = malloc(words * sizeof *flat);
        if (!flat || milnor_p_flat_write(&A, flat, words) != 0) bail("milnor_p_flat_write");
        pbatch b;
        double ms = 0;
        pbatch_all_pairs(&A, CASES[c].all_n, &b);
        for (size_t k = 0; k < ncfg; ++k)
            ok(compare(&A, flat, words, &b, &cfgs[k], &ms) == -1,
               "p=%u: all %u products of degree <= %d, %u threads/job, %u parts: GPU = CPU (%.2f ms)", A.p, b.nterms,
               (int)CASES[c].all_n, cfgs[k].threads_per_job, cfgs[k].nparts, ms);
        ok(compare(&A, flat, words, &b, NULL, &ms) == -1, "p=%u: the same with the default mapping", A.p);
        pbatch_free(&b);
        static const uint32_t shapes[][4] = {   /* ngens, maxterms, max |X|, max |Y| */
            {1, 1, 10, 10}, {1, 40, 40, 40}, {3, 64, 80, 80}, {40, 8, 120, 60}, {100, 30, 60, 120}, {12, 150, 100, 50},
        };
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i)
            for (int rep = 0; rep < 3; ++rep) {
                deg_t mr = (deg_t)shapes[i][2] * (deg_t)(A.p - 1) / 2, ms_ = (deg_t)shapes[i][3] * (deg_t)(A.p - 1) / 2;
                if (mr + ms_ > A.max_degree) mr = ms_ = A.max_degree / 2;
                pbatch_random(&A, &b, shapes[i][0], shapes[i][1], mr, ms_);
                const milnor_p_cuda_cfg *cfg = &cfgs[(i + (size_t)rep) % ncfg];
                long bad = compare(&A, flat, words, &b, cfg, &ms);
                ok(bad == -1, "p=%u: random batch %u gens x <= %u terms, |X| <= %d, |Y| <= %d, mapping %u/%u: %u rows "
                   "of %u bytes, GPU = CPU", A.p, shapes[i][0], shapes[i][1], (int)mr, (int)ms_, cfg->threads_per_job,
                   cfg->nparts, b.njobs, b.stride);
                if (bad >= 0) diag("row %ld differs", bad);
                pbatch_free(&b);
            }
        milnor_p_cuda_cfg wrong = { 96, 1 };
        pbatch_random(&A, &b, 2, 4, 10, 10);
        ok(compare(&A, flat, words, &b, &wrong, &ms) == -2, "p=%u: a mapping whose threads/job does not divide 256 is "
           "refused", A.p);
        pbatch_free(&b);
        b.stride = 64;
        ok(compare(&A, flat, words, &b, NULL, &ms) == -1, "p=%u: an empty batch launches nothing and succeeds", A.p);
        free(flat);
        milnor_p_basis_clear(&A);
    }
    return done_testing();
}
