/* batch.h — what the Milnor-product tests share: the seeded generator of tests/rng.h, batches
 * of row jobs and terms (milnor_row_job, milnor_term) with their common builders, the flat
 * basis, and the CPU's reference rows. Header-only (static inline), like tap.h.
 * Used by t-milnor.c, t-pair-algebra.c, t-milnor-cuda.c, t-pair-cuda.c, t-pair-search.c and
 * t-milnor-sched.c; each keeps its own batch shapes and checks. */
#ifndef EXTFLOW_TESTS_BATCH_H
#define EXTFLOW_TESTS_BATCH_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/pair_algebra.h"
#include "tests/rng.h"
#include "tests/tap.h"

/* The seed from SEED (tests/rng.h) and a lazy plan. */
static inline void seed_from_env(void)
{
    rng_seed_from_env();
    plan_lazy();
}

typedef struct batch {
    milnor_row_job *jobs;
    milnor_term *terms;
    uint32_t njobs, stride;         /* stride: words per row (mod 4: 0 puts every job into one row) */
    uint32_t twos_at;               /* mod 4: where a row's twos plane starts */
    size_t nterms, words;           /* words: of the mod-4 rows */
} batch;

static inline void batch_free(batch *b)
{
    free(b->jobs);
    free(b->terms);
    memset(b, 0, sizeof *b);
}

/* Every product of degree <= D: one row per (R, degree of S), all S of that degree as terms;
 * own_columns puts product k at its own column block k·dim A_{|R|+|S|}, else all at column 0.
 * Returns the widest row, in columns. The caller sets the stride. */
static inline uint32_t batch_all_pairs(const milnor_basis *A, batch *b, deg_t D, int own_columns)
{
    memset(b, 0, sizeof *b);
    size_t nj = 0, nt = 0;
    uint32_t width = 0;
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds) {
            uint32_t w = (own_columns ? A->dim[ds] : 1) * A->dim[dr + ds];
            nj += A->dim[dr];
            nt += A->dim[ds];
            if (w > width) width = w;
        }
    b->jobs = malloc(nj * sizeof *b->jobs);
    b->terms = malloc(nt * sizeof *b->terms);
    if (!b->jobs || !b->terms) bail("out of memory");
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds) {
            uint32_t first = (uint32_t)b->nterms;
            for (uint32_t k = 0; k < A->dim[ds]; ++k)
                b->terms[b->nterms++] = (milnor_term){ (uint32_t)ds, k, own_columns ? k * A->dim[dr + ds] : 0 };
            for (uint32_t i = 0; i < A->dim[dr]; ++i)
                b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)dr, i, first, A->dim[ds] };
        }
    return width;
}

/* The jobs: R of degree dr times each of the ngens term lists (gfirst[g], gcount[g]). With
 * random_rows 0, every R of the degree when there are at most 64, else 64 random R; otherwise
 * 1 + rnd(random_rows) random R. */
static inline void batch_rows(const milnor_basis *A, batch *b, deg_t dr, uint32_t ngens, const uint32_t *gfirst,
                              const uint32_t *gcount, uint32_t random_rows)
{
    uint32_t nr = random_rows ? 1 + rnd(random_rows) : A->dim[dr] < 64 ? A->dim[dr] : 64;
    int every = !random_rows && nr == A->dim[dr];
    b->jobs = malloc((size_t)nr * ngens * sizeof *b->jobs);
    if (!b->jobs) bail("out of memory");
    for (uint32_t g = 0; g < ngens; ++g)
        for (uint32_t i = 0; i < nr; ++i)
            b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)dr, every ? i : rnd(A->dim[dr]), gfirst[g], gcount[g] };
}

/* Mod 4: ngens term lists of <= maxterms random S (|S| <= maxs) at random, possibly
 * overlapping, column blocks of one plane; jobs: R of one random degree <= maxr times each list
 * (batch_rows's random_rows); up to pad spare words after each plane; one_row: stride 0. */
static inline void batch_random_mod4(const milnor_basis *A, batch *b, uint32_t ngens, uint32_t maxterms, deg_t maxr,
                                     deg_t maxs, int one_row, uint32_t random_rows, uint32_t pad)
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
            uint32_t at = rnd(2) ? cols : rnd(cols + 1);            /* blocks may overlap */
            b->terms[b->nterms++] = (milnor_term){ (uint32_t)ds, rnd(A->dim[ds]), at };
            if (at + A->dim[dr + ds] > cols) cols = at + A->dim[dr + ds];
        }
    }
    batch_rows(A, b, dr, ngens, gfirst, gcount, random_rows);
    b->twos_at = (cols + 63) / 64 + rnd(pad + 1);
    b->stride = one_row ? 0 : 2 * b->twos_at + rnd(pad + 1);
    b->words = one_row ? 2 * (size_t)b->twos_at : (size_t)b->njobs * b->stride;
    free(gfirst);
    free(gcount);
}

/* The basis flattened for the GPU (and its host emulations); *words its length. */
static inline uint32_t *flat_basis(const milnor_basis *A, size_t *words)
{
    *words = milnor_flat_words(A);
    uint32_t *flat = malloc(*words * sizeof *flat);
    if (!flat || milnor_flat_write(A, flat, *words) != 0) bail("milnor_flat_write");
    return flat;
}

/* n zeroed row words and a spare one. */
static inline uint64_t *rows_alloc(size_t n)
{
    uint64_t *rows = calloc(n + 1, sizeof *rows);
    if (!rows) bail("out of memory");
    return rows;
}

/* Mod 2: the CPU's reference search's rows of the batch (njobs x stride words). */
static inline uint64_t *batch_search_rows(const milnor_basis *A, const batch *b)
{
    uint64_t *ref = rows_alloc((size_t)b->njobs * b->stride);
    milnor_mul_batch_search(A, b->jobs, b->njobs, b->terms, ref, b->stride);
    return ref;
}

/* The first of njobs rows of stride words where x and y differ, or -1. */
static inline long first_diff_row(const uint64_t *x, const uint64_t *y, uint32_t njobs, uint32_t stride)
{
    for (uint32_t i = 0; i < njobs; ++i)
        if (memcmp(x + (size_t)i * stride, y + (size_t)i * stride, stride * sizeof *x)) return (long)i;
    return -1;
}

/* Mod 4: pair_mul_mod4_batch's rows of the batch from random starting words (zero without
 * random_start); *start gets a copy of the starting words, for the path under test. */
static inline uint64_t *batch_mod4_rows(const milnor_basis *A, const batch *b, int random_start, uint64_t **start)
{
    uint64_t *ref = rows_alloc(b->words);
    *start = rows_alloc(b->words);
    if (random_start)
        for (size_t w = 0; w < b->words; ++w) ref[w] = rnd_word();
    memcpy(*start, ref, b->words * sizeof *ref);
    pair_mul_mod4_batch(A, b->jobs, b->njobs, b->terms, ref, b->stride, b->twos_at);
    return ref;
}

#endif
