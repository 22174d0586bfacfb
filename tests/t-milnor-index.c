/* t-milnor-index.c — the index of a Milnor basis element by slots (seq_d, milnor.h;
 * docs/algorithms.md §1.3), which the batched product computes for every term it finds from a
 * part of the term Sq(S) and a part of the R-half (algebra/milnor.c, term_slots).
 * 1. Every element of every degree <= DEG: milnor_index_by_slots and milnor_index equal its
 *    position in the basis.
 * 2. The flat buffer carries seq_d: its view holds the same table and indexes alike.
 * 3. Random batches (long term lists: several 16-lane chunks and 64-lane groups; lists of long
 *    and of short S, so that the AVX-512 path's reads past the last slot are exercised), through the
 *    batch's AVX2 and AVX-512 paths (the latter where the CPU has it), against a reference that
 *    shares nothing with them: each product's terms from milnor_mul_each, each term's index
 *    found by binary search among its degree's elements sorted by their entries.
 * Env: SEED (the random batches; default the time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define DEG 200                     /* the basis: 648k elements */
#define NJOBS 1500                  /* random jobs */
#define NALL (NJOBS + 200)          /* and the sweep's */

static milnor_basis A;
static uint32_t *sorted[DEG + 1];   /* per degree: its indices sorted by entries (built on demand) */

static int cmp_entries(const void *a, const void *b, void *ctx)
{
    const milnor_elt *e = ctx;
    return memcmp(e[*(const uint32_t *)a].r, e[*(const uint32_t *)b].r, sizeof e->r);
}

/* The position of T among the elements of its degree, by binary search; UINT32_MAX if absent. */
static uint32_t naive_index(const milnor_elt *T)
{
    const deg_t d = T->degree;
    const milnor_elt *e = A.elts[d];
    if (!sorted[d]) {
        sorted[d] = malloc(A.dim[d] * sizeof **sorted);
        if (!sorted[d]) bail("out of memory");
        for (uint32_t i = 0; i < A.dim[d]; ++i) sorted[d][i] = i;
        qsort_r(sorted[d], A.dim[d], sizeof **sorted, cmp_entries, (void *)e);
    }
    uint32_t lo = 0, hi = A.dim[d];
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        const int c = memcmp(e[sorted[d][mid]].r, T->r, sizeof T->r);
        if (c == 0) return sorted[d][mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return UINT32_MAX;
}

typedef struct ref_ctx {
    uint64_t *row;
    uint32_t col;
    int bad, top;                   /* top: the highest slot seen in a term */
} ref_ctx;

static void ref_emit(const milnor_elt *T, void *ctx)
{
    ref_ctx *c = ctx;
    const uint32_t i = naive_index(T);
    if (i == UINT32_MAX) {
        c->bad = 1;
        return;
    }
    if ((int)T->len > c->top) c->top = (int)T->len;
    const uint64_t bit = (uint64_t)c->col + i;
    c->row[bit >> 6] ^= (uint64_t)1 << (bit & 63);
}

static void test_every_element(void)
{
    uint64_t n = 0, bad_slots = 0, bad_index = 0;
    for (deg_t d = 0; d <= DEG; ++d)
        for (uint32_t i = 0; i < A.dim[d]; ++i, ++n) {
            bad_slots += milnor_index_by_slots(&A, &A.elts[d][i]) != i;
            bad_index += milnor_index(&A, &A.elts[d][i]) != i;
        }
    ok(bad_slots == 0, "index by slots = position for all %llu elements of degree <= %d (%llu wrong)",
       (unsigned long long)n, DEG, (unsigned long long)bad_slots);
    ok(bad_index == 0, "milnor_index = position for the same elements (%llu wrong)", (unsigned long long)bad_index);
}

static void test_flat(void)
{
    const size_t words = milnor_flat_words(&A), rows = (size_t)DEG + 1;
    uint32_t *flat = malloc(words * sizeof *flat), dim[DEG + 1];
    milnor_elt *elts[DEG + 1];
    milnor_basis V;
    if (!flat) bail("out of memory");
    int good = milnor_flat_write(&A, flat, words) == 0 && milnor_flat_view(flat, words, &V, elts, dim) == 0 &&
               V.seq_d && !memcmp(V.seq_d, A.seq_d, rows * MILNOR_MAX_LEN * sizeof *A.seq_d);
    uint32_t bad = 0;
    for (deg_t d = 0; good && d <= DEG; d += 7)
        for (uint32_t i = 0; i < V.dim[d]; i += 1 + V.dim[d] / 50) bad += milnor_index_by_slots(&V, &V.elts[d][i]) != i;
    ok(good && bad == 0, "the flat buffer carries seq_d (%zu words): its view's table and indices are the basis's",
       words);
    ok(milnor_flat_view(flat, words - 1, &V, elts, dim) < 0, "a flat buffer one word short is refused");
    free(flat);
}

/* A random element of degree d, long ones preferred (the high slots are the index's): half the
 * time one of the last sixteenth of the degree, where the order puts the longest. */
static uint32_t long_elt(deg_t d)
{
    return rnd(2) ? A.dim[d] - 1 - rnd(1 + A.dim[d] / 16) : rnd(A.dim[d]);
}

static void test_random_batches(void)
{
    milnor_row_job *jobs = malloc(NALL * sizeof *jobs);
    milnor_term *terms = malloc((size_t)NALL * 160 * sizeof *terms);
    const size_t stride = (4096 + 15499 + 63) / 64;     /* offsets < 4096, dims <= 15499 */
    uint64_t *want = calloc((size_t)NALL * stride, sizeof *want), *got = malloc((size_t)NALL * stride * 8);
    if (!jobs || !terms || !want || !got) bail("out of memory");
    uint32_t nt = 0, first = 0, count = 0;
    deg_t rdeg = 0;
    for (uint32_t i = 0; i < NJOBS; ++i) {
        if (i == 0 || rnd(6) == 0) {                /* a new term list, for R of one degree */
            rdeg = (deg_t)rnd(rnd(3) ? 71 : 140);   /* S in a window of degrees, as in d(g): */
            const deg_t lo = (deg_t)rnd((uint32_t)(DEG - 24 - rdeg) + 1);    /* R's halves stay few */
            first = nt;
            count = 4 + rnd(rnd(4) ? 40 : 150);     /* some past 64: several AVX-512 groups */
            const int short_s = rnd(3) == 0;        /* S short: T as long as its half (the tail) */
            for (uint32_t k = 0; k < count; ++k) {
                const deg_t sd = lo + (deg_t)rnd(25);
                const uint32_t si = short_s ? rnd(1 + A.dim[sd] / 16) : long_elt(sd);
                terms[nt++] = (milnor_term){ (uint32_t)sd, si, rnd(4096) };
            }
        }
        const deg_t rd = rnd(3) ? rdeg : (deg_t)rnd((uint32_t)rdeg + 1);
        jobs[i] = (milnor_row_job){ (uint32_t)rd, long_elt(rd), first, count };
    }
    uint32_t nj = NJOBS;            /* then a sweep: the longest R of degrees 20, 27, .., 139, each */
    for (deg_t rd = 20; rd < 140; rd += 7)      /* with its own list of short S */
        for (uint32_t r = A.dim[rd] - 1 - A.dim[rd] / 16; r < A.dim[rd] && nj < NALL; r += 1 + A.dim[rd] / 64) {
            const deg_t lo = (deg_t)rnd((uint32_t)(DEG - 24 - rd) + 1);
            jobs[nj++] = (milnor_row_job){ (uint32_t)rd, r, nt, count = 8 + rnd(30) };
            for (uint32_t k = 0; k < count; ++k) {
                const deg_t sd = lo + (deg_t)rnd(25);
                terms[nt++] = (milnor_term){ (uint32_t)sd, rnd(1 + A.dim[sd] / 16), rnd(4096) };
            }
        }
    ref_ctx c = { NULL, 0, 0, 0 };
    uint64_t products = 0;
    for (uint32_t i = 0; i < nj; ++i) {
        c.row = want + i * stride;
        for (uint32_t k = 0; k < jobs[i].n_terms; ++k, ++products) {
            const milnor_term *tm = &terms[jobs[i].first_term + k];
            c.col = tm->col_offset;
            milnor_mul_each(&A.elts[jobs[i].r_deg][jobs[i].r_idx], &A.elts[tm->s_deg][tm->s_idx], ref_emit, &c);
        }
    }
    ok(!c.bad && c.top >= 7, "reference: %llu products, every term found by search, terms of up to %d slots",
       (unsigned long long)products, c.top);
    const milnor_simd paths[2] = { MILNOR_SIMD_AVX2, MILNOR_SIMD_AVX512 };
    for (int p = 0; p < 2; ++p) {
        if (!milnor_simd_supported(paths[p])) {
            skip("this CPU has no AVX-512BW");
            continue;
        }
        memset(got, 0, (size_t)nj * stride * 8);
        milnor_mul_batch_simd(&A, jobs, nj, terms, got, stride, paths[p]);
        ok(!memcmp(got, want, (size_t)nj * stride * 8), "%s path = the reference on %u jobs (%u terms)",
           p ? "AVX-512" : "AVX2", nj, nt);
    }
    memset(got, 0, (size_t)nj * stride * 8);
    milnor_mul_batch_halves(&A, jobs, nj, terms, got, stride);   /* every job by its halves */
    ok(!memcmp(got, want, (size_t)nj * stride * 8), "every job by its R-halves (%s path) = the reference",
       milnor_simd_default() == MILNOR_SIMD_AVX512 ? "AVX-512" : "AVX2");
    free(jobs);
    free(terms);
    free(want);
    free(got);
}

int main(void)
{
    seed_from_env();
    if (milnor_basis_init(&A, DEG, NULL) != 0) bail("cannot build the basis to degree 200");
    test_every_element();
    test_flat();
    test_random_batches();
    for (deg_t d = 0; d <= DEG; ++d) free(sorted[d]);
    milnor_basis_clear(&A);
    return done_testing();
}
