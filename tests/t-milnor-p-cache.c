/* t-milnor-p-cache.c — TAP tests of the odd-p product cache (algebra/milnor_p_cache.c) against
 * the product it keeps (milnor_p_sub_mul_into, itself checked by t-milnor-p): for p = 3 and 5,
 * over the whole algebra and over a sub-Hopf-algebra (no Q_0, r_1 = 0: y1_3's), random pairs
 * (X, Y) of B asked for several times each (the first request computes, the others read the kept
 * vector) with random coefficients added onto random rows (out[j] += c·(X·Y)_j, not a store);
 * the mapped form (entries moved by a column map, some dropped) against the product then moved;
 * rows of terms asked at once (milnor_p_cache_mul_terms, plain and mapped) against the terms one
 * by one;
 * budgets too small for the table and just past it (products computed, not kept,
 * the answers the same, the bytes held never past the budget); four threads asking for the same pairs at once while the
 * table grows; the kept values' packing (milnor_p_cache_pack) at p = 3, 5, 7, 11, 13 either side of
 * the 16-bit width's bound 2^(16 - b) (b the bits of p - 1: an index there is packed in 32 bits)
 * and at 2^24 - 1, odd and even counts, the words written and the entries read back against
 * the entries added one by one. Env: SEED (default time). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor_p.h"
#include "algebra/milnor_p_cache.h"
#include "tests/rng.h"
#include "tests/tap.h"

#define NPAIRS 1200
#define ASKS 3
#define NTHREADS 4

typedef struct pair { const milnor_p_elt *x, *y; uint32_t c; } pair;

/* NPAIRS random pairs of B with |X| + |Y| <= max (elements of a non-empty degree). */
static void random_pairs(const milnor_p_sub *B, deg_t max, pair *out)
{
    for (int k = 0; k < NPAIRS;) {
        deg_t dx = (deg_t)(rng_next() % (uint64_t)(max + 1)), dy = (deg_t)(rng_next() % (uint64_t)(max + 1 - dx));
        if (!B->dim[dx] || !B->dim[dy]) continue;
        out[k].x = milnor_p_sub_elt(B, dx, (uint32_t)(rng_next() % B->dim[dx]));
        out[k].y = milnor_p_sub_elt(B, dy, (uint32_t)(rng_next() % B->dim[dy]));
        out[k].c = 1 + (uint32_t)(rng_next() % (B->A->p - 1));
        ++k;
    }
}

/* Every pair asked ASKS times from pc (mapped through a random map when mapped), each answer
 * against milnor_p_sub_mul_into onto the same random start row. Returns the pairs that differed. */
static int check_pairs(milnor_p_cache *pc, const milnor_p_sub *B, const pair *pairs, int mapped)
{
    uint32_t p = B->A->p;
    int bad = 0;
    for (int ask = 0; ask < ASKS; ++ask)
        for (int k = 0; k < NPAIRS; ++k) {
            deg_t d = pairs[k].x->degree + pairs[k].y->degree;
            uint32_t n = B->dim[d], width = n + 3;
            uint8_t *got = malloc(width), *want = malloc(width), *prod = calloc(n ? n : 1, 1);
            uint32_t *map = malloc((n ? n : 1) * sizeof *map);
            if (!got || !want || !prod || !map) bail("out of memory");
            for (uint32_t j = 0; j < width; ++j) got[j] = want[j] = (uint8_t)(rng_next() % p);
            for (uint32_t j = 0; j < n; ++j) map[j] = rng_next() % 5 == 0 ? MILNOR_P_CACHE_DROP : (uint32_t)(rng_next() % width);
            int rw = milnor_p_sub_mul_into(B, pairs[k].x, pairs[k].y, pairs[k].c, prod);
            for (uint32_t j = 0; j < n; ++j) {
                uint32_t to = mapped ? map[j] : j;
                if (to != MILNOR_P_CACHE_DROP) want[to] = (uint8_t)((want[to] + prod[j]) % p);
            }
            int rg = mapped ? milnor_p_cache_mul_into_map(pc, pairs[k].x, pairs[k].y, pairs[k].c, got, map)
                            : milnor_p_cache_mul_into(pc, pairs[k].x, pairs[k].y, pairs[k].c, got);
            bad += rg != rw || memcmp(got, want, width) != 0;
            free(got), free(want), free(prod), free(map);
        }
    return bad;
}

/* Rows of random terms (X fixed, 1 to 40 terms c·Y at random columns of one row, some of them
 * repeated pairs, some with c = 0 or c >= p) asked at once (milnor_p_cache_mul_terms), plain and
 * mapped, against the terms' products one by one (milnor_p_sub_mul_into) added onto the same random
 * start row. Returns the rows that differed. */
static int check_terms(milnor_p_cache *pc, const milnor_p_sub *B, const pair *pairs, int mapped)
{
    uint32_t p = B->A->p;
    int bad = 0;
    for (int r = 0; r < NPAIRS / 4; ++r) {
        const milnor_p_elt *x = pairs[rng_next() % NPAIRS].x;
        size_t n = 1 + rng_next() % 40, width = 8;
        milnor_p_cache_term terms[40];
        for (size_t k = 0; k < n; ++k) {
            const milnor_p_elt *y;
            do y = pairs[rng_next() % NPAIRS].y;
            while (x->degree + y->degree > B->max_degree ||
                   (B->dim[x->degree + y->degree] == 0 && rng_next() % 8));      /* a few empty targets too */
            uint32_t c = rng_next() % 7 == 0 ? (uint32_t)(rng_next() % 3) * p : (uint32_t)(rng_next() % (2 * p));
            terms[k] = (milnor_p_cache_term){ width, y, c };
            width += B->dim[x->degree + y->degree] + rng_next() % 3;
        }
        uint8_t *got = malloc(width), *want = malloc(width), *prod = malloc(width);
        uint32_t *map = malloc(width * sizeof *map);
        if (!got || !want || !prod || !map) bail("out of memory");
        for (size_t j = 0; j < width; ++j) {
            got[j] = want[j] = (uint8_t)(rng_next() % p);
            map[j] = rng_next() % 5 == 0 ? MILNOR_P_CACHE_DROP : (uint32_t)(rng_next() % width);
        }
        int rw = 0;
        for (size_t k = 0; k < n && !rw; ++k) {
            uint32_t dim = B->dim[x->degree + terms[k].y->degree];
            memset(prod, 0, dim);
            rw = milnor_p_sub_mul_into(B, x, terms[k].y, terms[k].c % p, prod);
            for (uint32_t j = 0; j < dim; ++j) {
                uint64_t to = mapped ? map[terms[k].col + j] : terms[k].col + j;
                if (to != MILNOR_P_CACHE_DROP) want[to] = (uint8_t)((want[to] + prod[j]) % p);
            }
        }
        int rg = milnor_p_cache_mul_terms(pc, x, terms, n, got, mapped ? map : NULL);
        bad += rg != rw || (!rw && memcmp(got, want, width) != 0);
        free(got), free(want), free(prod), free(map);
    }
    return bad;
}

typedef struct worker { milnor_p_cache *pc; const milnor_p_sub *B; const pair *pairs; uint64_t seed; int bad; } worker;

static void *hammer(void *arg)
{
    worker *w = arg;
    uint32_t p = w->B->A->p;
    for (int round = 0; round < 4 * NPAIRS; ++round) {
        w->seed = w->seed * 6364136223846793005ull + 1442695040888963407ull;
        const pair *q = &w->pairs[(w->seed >> 33) % NPAIRS];
        uint32_t n = w->B->dim[q->x->degree + q->y->degree];
        uint8_t *got = calloc(n ? n : 1, 1), *want = calloc(n ? n : 1, 1);
        if (!got || !want) { w->bad++; free(got), free(want); continue; }
        int rw = milnor_p_sub_mul_into(w->B, q->x, q->y, q->c, want);
        int rg = milnor_p_cache_mul_into(w->pc, q->x, q->y, q->c, got);
        for (uint32_t j = 0; j < n; ++j) want[j] %= p;
        w->bad += rg != rw || (n && memcmp(got, want, n) != 0);
        free(got), free(want);
    }
    return NULL;
}

static void check_sub(const milnor_p_basis *A, const milnor_p_profile *pr, const char *name)
{
    milnor_p_sub B;
    if (milnor_p_sub_init(&B, A, pr) != 0) bail("milnor_p_sub_init failed");
    pair pairs[NPAIRS];
    random_pairs(&B, A->max_degree, pairs);
    uint64_t kept, misses, bytes;

    milnor_p_cache *pc = milnor_p_cache_new(&B, (uint64_t)64 << 20);
    if (!pc) bail("out of memory");
    int bad = check_pairs(pc, &B, pairs, 0);
    milnor_p_cache_stats(pc, &kept, &misses, &bytes);
    ok(bad == 0 && kept > 0 && misses <= NPAIRS && bytes <= (uint64_t)64 << 20,
       "p = %u, %s: %d pairs asked %d times each, every answer out[j] += c(X.Y)_j as the product gives "
       "(%d differ); %llu kept, %llu computed", A->p, name, NPAIRS, ASKS, bad, (unsigned long long)kept,
       (unsigned long long)misses);
    bad = check_pairs(pc, &B, pairs, 1);
    ok(bad == 0, "p = %u, %s: the mapped form (entries moved by a column map, a fifth dropped) as the product "
       "moved (%d differ)", A->p, name, bad);
    bad = check_terms(pc, &B, pairs, 0);
    ok(bad == 0, "p = %u, %s: %d rows of 1-40 terms asked at once (milnor_p_cache_mul_terms) as their products "
       "one by one (%d differ)", A->p, name, NPAIRS / 4, bad);
    bad = check_terms(pc, &B, pairs, 1);
    ok(bad == 0, "p = %u, %s: the same rows mapped (%d differ)", A->p, name, bad);
    milnor_p_cache_free(pc);

    static const uint64_t BUDGETS[] = { 2048, 96 << 10 };   /* below a table; a table and a few values */
    for (int b = 0; b < 2; ++b) {
        pc = milnor_p_cache_new(&B, BUDGETS[b]);
        if (!pc) bail("out of memory");
        bad = check_pairs(pc, &B, pairs, 0) + check_pairs(pc, &B, pairs, 1) + check_terms(pc, &B, pairs, 0) +
              check_terms(pc, &B, pairs, 1);
        milnor_p_cache_stats(pc, &kept, &misses, &bytes);
        ok(bad == 0 && bytes <= BUDGETS[b] && (b > 0 ? kept > 0 : misses > NPAIRS),
           "p = %u, %s: a %llu-byte budget: the same answers (%d differ), %llu bytes held, %llu kept, %llu products "
           "computed", A->p, name, (unsigned long long)BUDGETS[b], bad, (unsigned long long)bytes,
           (unsigned long long)kept, (unsigned long long)misses);
        milnor_p_cache_free(pc);
    }

    pc = milnor_p_cache_new(&B, (uint64_t)64 << 20);
    if (!pc) bail("out of memory");
    worker w[NTHREADS];
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; ++i) {
        w[i] = (worker){ pc, &B, pairs, rng_next() | 1, 0 };
        if (pthread_create(&th[i], NULL, hammer, &w[i]) != 0) bail("pthread_create failed");
    }
    bad = 0;
    for (int i = 0; i < NTHREADS; ++i) {
        pthread_join(th[i], NULL);
        bad += w[i].bad;
    }
    milnor_p_cache_stats(pc, &kept, &misses, &bytes);
    ok(bad == 0 && kept > 0 && kept <= NPAIRS, "p = %u, %s: %d threads asking for the same pairs at once while the "
       "table grows: every answer the product's (%d differ), %llu kept", A->p, name, NTHREADS, bad,
       (unsigned long long)kept);
    milnor_p_cache_free(pc);
    milnor_p_sub_clear(&B);
}

/* Packs n entries with largest index top (top itself, 0 and random others, random non-zero
 * coefficients) at p and reads them back onto a random row; 0 when the words written (a guard
 * after them untouched) and the row equal the naive sum. */
static int check_pack(const milnor_p_basis *A, uint32_t n, uint32_t top)
{
    uint32_t p = A->p, b = 0, *idx = malloc(n * sizeof *idx), *w = malloc((n + 3) * sizeof *w);
    uint8_t *coef = malloc(n), *got = malloc((size_t)top + 1), *want = malloc((size_t)top + 1);
    if (!idx || !w || !coef || !got || !want) bail("out of memory");
    while ((1u << b) < p) b++;          /* the bits of a coefficient 1..p-1 */
    uint32_t words = top < (1u << 16) >> b ? 1 + (n + 1) / 2 : 1 + n, c = 1 + (uint32_t)(rng_next() % (p - 1));
    for (uint32_t k = 0; k < n; k++) {
        idx[k] = k == 0 ? top : k == 1 ? 0 : (uint32_t)(rng_next() % ((uint64_t)top + 1));
        coef[k] = (uint8_t)(k == 0 ? p - 1 : 1 + rng_next() % (p - 1));
    }
    for (uint32_t j = 0; j <= top; j++) got[j] = want[j] = (uint8_t)(rng_next() % p);
    for (uint32_t k = 0; k < n; k++) want[idx[k]] = (uint8_t)((want[idx[k]] + c * coef[k]) % p);
    for (uint32_t k = 0; k < n + 3; k++) w[k] = 0xdeadbeef;
    milnor_p_cache_pack(p, n, idx, coef, top, w);
    milnor_p_cache_unpack_into(A, w, c, got);
    int bad = milnor_p_cache_packed_words(p, n, top) != words || w[words] != 0xdeadbeef ||
              (w[0] >> 1) != n || (w[0] & 1) != (words == 1 + n && top >= (1u << 16) >> b) ||
              memcmp(got, want, (size_t)top + 1) != 0;
    free(idx), free(w), free(coef), free(got), free(want);
    return bad;
}

int main(void)
{
    rng_seed_from_env();
    plan_lazy();
    static const struct { uint32_t p; deg_t n; } CASES[] = { { 3, 120 }, { 5, 240 } };
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; ++c) {
        milnor_p_basis A;
        if (milnor_p_basis_init(&A, CASES[c].p, CASES[c].n) != 0) bail("milnor_p_basis_init failed");
        milnor_p_profile pr = milnor_p_profile_full();
        check_sub(&A, &pr, "the whole algebra");
        pr.qmask = ~1u;
        pr.len = 1;
        pr.h[0] = 0;
        check_sub(&A, &pr, "no Q_0, no P(r_1 > 0)");
        milnor_p_basis_clear(&A);
    }
    static const uint32_t PRIMES[] = { 3, 5, 7, 11, 13 };
    for (size_t i = 0; i < sizeof PRIMES / sizeof *PRIMES; ++i) {
        milnor_p_basis A;
        if (milnor_p_basis_init(&A, PRIMES[i], 4) != 0) bail("milnor_p_basis_init failed");
        uint32_t b = 0, bad = 0, cases = 0;
        while ((1u << b) < PRIMES[i]) b++;
        const uint32_t lim = (1u << 16) >> b, TOPS[] = { 1, lim - 1, lim, lim + 1, (1u << 24) - 1 },
                       NS[] = { 2, 3, 7, 50, 1000 };
        for (size_t t = 0; t < sizeof TOPS / sizeof *TOPS; ++t)
            for (size_t k = 0; k < sizeof NS / sizeof *NS; ++k, ++cases) bad += check_pack(&A, NS[k], TOPS[t]);
        ok(bad == 0, "p = %u: values packed with largest index 1, 2^%u - 1 (16-bit entries), 2^%u, 2^%u + 1, "
           "2^24 - 1 (32-bit), 2-1000 entries: words and entries read back as added one by one (%u of %u differ)",
           PRIMES[i], 16 - b, 16 - b, 16 - b, bad, cases);
        milnor_p_basis_clear(&A);
    }
    done_testing();
    return tap_failed != 0;
}
