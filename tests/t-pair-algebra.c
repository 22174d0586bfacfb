/* t-pair-algebra.c — TAP tests of the secondary Steenrod algebra's pieces (algebra/pair_algebra.c):
 * binomials and multinomials mod 4 against Pascal's triangle, the mod-4 Milnor product against
 * the mod-2 one and against the coproduct it is dual to (expanded naively), the search pruned
 * by carries against the naive enumeration, A(Sq R, Y_{k,l}) and the Y part of A(a, σ(b)σ(c)) on the
 * unit cases of Chua's formulas (values also asserted by sseq's own tests), and the A-action's
 * degree and linearity. Env: SEED (random tests; default time). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/pair_algebra.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 100
#define VW 64                         /* words of a test vector (dim A_d <= 4096 here) */

static milnor_basis A;

static milnor_elt elt(const uint32_t *r, int n)
{
    milnor_elt e;
    milnor_elt_set(&e, r, n);
    return e;
}

/* ---- binomials ---------------------------------------------------------------------------- */

#define PASCAL 300
static unsigned char pascal[PASCAL + 1][PASCAL + 1];   /* C(n, k) mod 4 */

static void test_binomials(void)
{
    for (int n = 0; n <= PASCAL; n++) {
        pascal[n][0] = 1;
        for (int k = 1; k <= n; k++) pascal[n][k] = (unsigned char)((pascal[n - 1][k - 1] + (k <= n - 1 ? pascal[n - 1][k] : 0)) & 3);
    }
    int bad = 0;
    for (int n = 0; n <= PASCAL; n++)
        for (int k = 0; k <= n + 2; k++) {
            unsigned want = k <= n ? pascal[n][k] : 0;
            if (binom_mod4((uint32_t)n, (uint32_t)k) != want) bad++;
        }
    ok(bad == 0, "binom_mod4 equals Pascal's triangle mod 4 for n <= %d (%d wrong)", PASCAL, bad);
    /* multinomials of random 2..5 parts with sum <= 300, as products along Pascal's triangle */
    bad = 0;
    for (int trial = 0; trial < 20000; trial++) {
        uint32_t x[5];
        int n = 2 + (int)(rng_next() % 4);
        uint32_t sum = 0;
        unsigned want = 1;
        for (int i = 0; i < n; i++) {
            x[i] = (uint32_t)(rng_next() % 61);
            sum += x[i];
            want = (want * pascal[sum][x[i]]) & 3;
        }
        if (multinomial_mod4(x, n) != want) bad++;
    }
    ok(bad == 0, "multinomial_mod4 on 20000 random tuples (%d wrong)", bad);
}

/* ---- the product in B0 ---------------------------------------------------------------------- */

typedef struct z4vec {
    deg_t d;
    unsigned char c[4096];
} z4vec;

static void add_z4(const milnor_elt *T, unsigned c, void *ctx)
{
    z4vec *v = ctx;
    uint32_t i = milnor_index(&A, T);
    v->c[i] = (unsigned char)((v->c[i] + c) & 3);
}

/* v = σ(R)σ(S) in B0 */
static void product_z4(const milnor_elt *R, const milnor_elt *S, z4vec *v)
{
    memset(v, 0, sizeof *v);
    v->d = R->degree + S->degree;
    milnor_mul_mod4_each(R, S, add_z4, v);
}


/* Naive Δ(ξ^T) over Z/4 for small T: terms (left exponents, right exponents, coefficient). */
#define CP_SLOTS 6
typedef struct cp_term { uint8_t l[CP_SLOTS], r[CP_SLOTS]; unsigned char c; } cp_term;
static cp_term cp[20000];
static int ncp;

static void cp_add(const cp_term *t, unsigned c)
{
    for (int i = 0; i < ncp; i++)
        if (!memcmp(cp[i].l, t->l, CP_SLOTS) && !memcmp(cp[i].r, t->r, CP_SLOTS)) {
            cp[i].c = (unsigned char)((cp[i].c + c) & 3);
            return;
        }
    if (ncp == (int)(sizeof cp / sizeof cp[0])) bail("coproduct table full");
    cp[ncp] = *t;
    cp[ncp++].c = (unsigned char)(c & 3);
}

static void coproduct_terms(const milnor_elt *T)
{
    static cp_term prev[20000];
    ncp = 1;
    memset(&cp[0], 0, sizeof cp[0]);
    cp[0].c = 1;
    for (uint32_t n = 1; n <= T->len; n++)
        for (uint32_t rep = 0; rep < T->r[n - 1]; rep++) {
            int np = ncp;
            memcpy(prev, cp, (size_t)np * sizeof *prev);
            ncp = 0;
            for (int p = 0; p < np; p++) {
                if (!prev[p].c) continue;
                for (uint32_t i = 0; i <= n; i++) {   /* ξ_{n-i}^{2^i} ⊗ ξ_i (ξ_0 = 1) */
                    cp_term t = prev[p];
                    if (n - i) t.l[n - i - 1] = (uint8_t)(t.l[n - i - 1] + (1u << i));
                    if (i) t.r[i - 1]++;
                    cp_add(&t, prev[p].c);
                }
            }
        }
}

static unsigned coproduct_coeff(const milnor_elt *R, const milnor_elt *S)
{
    for (int i = 0; i < ncp; i++) {
        int match = 1;
        for (int k = 0; k < CP_SLOTS && match; k++)
            match = cp[i].l[k] == (k < (int)R->len ? R->r[k] : 0) && cp[i].r[k] == (k < (int)S->len ? S->r[k] : 0);
        if (match) return cp[i].c;
    }
    return 0;
}

static void test_mod4_product(void)
{
    /* mod 2 it is the Milnor product */
    int bad = 0, pairs = 0;
    for (deg_t dr = 0; dr <= 24; dr++)
        for (deg_t ds = 0; dr + ds <= 24; ds++)
            for (uint32_t i = 0; i < A.dim[dr]; i++)
                for (uint32_t j = 0; j < A.dim[ds]; j++) {
                    z4vec v;
                    product_z4(&A.elts[dr][i], &A.elts[ds][j], &v);
                    uint64_t want[VW] = { 0 };
                    milnor_mul_into(&A, &A.elts[dr][i], &A.elts[ds][j], want, 0);
                    for (uint32_t k = 0; k < A.dim[dr + ds]; k++)
                        if ((v.c[k] & 1) != (want[k >> 6] >> (k & 63) & 1)) {
                            bad++;
                            break;
                        }
                    pairs++;
                }
    ok(bad == 0, "mod-4 product reduces to the Milnor product mod 2 (%d pairs of degree sum <= 24, %d wrong)", pairs, bad);

    /* a known even coefficient: Sq(1)Sq(1) = 2 Sq(2) in B0 (C(2,1) = 2) */
    uint32_t one = 1, two = 2;
    milnor_elt s1 = elt(&one, 1), s2 = elt(&two, 1);
    z4vec v;
    product_z4(&s1, &s1, &v);
    ok(v.c[milnor_index(&A, &s2)] == 2, "σSq(1)·σSq(1) = 2 Sq(2) in B0");
    /* Sq(2)Sq(2) = C(4,2) Sq(4) + Sq(1)Sq(1)-type term: coefficient of Sq(4) is 6 = 2 mod 4 */
    uint32_t four = 4;
    milnor_elt s4 = elt(&four, 1);
    product_z4(&s2, &s2, &v);
    ok(v.c[milnor_index(&A, &s4)] == 2, "σSq(2)·σSq(2) has 2 Sq(4) (C(4,2) = 6)");

    /* every coefficient, even ones included, against the coproduct it is dual to:
     * <σR·σS, Sq(T)> = coefficient of ξ^R ⊗ ξ^S in prod_n (sum_i ξ_{n-i}^{2^i} ⊗ ξ_i)^{t_n} */
    bad = 0;
    int checked = 0;
    for (deg_t d = 1; d <= 16; d++)
        for (uint32_t ti = 0; ti < A.dim[d]; ti++) {
            coproduct_terms(&A.elts[d][ti]);
            for (deg_t dr = 0; dr <= d; dr++)
                for (uint32_t i = 0; i < A.dim[dr]; i++)
                    for (uint32_t j = 0; j < A.dim[d - dr]; j++) {
                        const milnor_elt *R = &A.elts[dr][i], *S = &A.elts[d - dr][j];
                        z4vec pv;
                        product_z4(R, S, &pv);
                        if (pv.c[ti] != coproduct_coeff(R, S)) bad++;
                        checked++;
                    }
        }
    ok(bad == 0, "mod-4 coefficients equal the coproduct's, expanded naively (%d coefficients, degrees <= 16, %d wrong)",
       checked, bad);
}

/* The pruned search against the naive one: the same calls (T, c), counted per T and c. */
typedef struct call_count {
    uint32_t n[4096][4];                /* calls per target index and coefficient */
} call_count;

static void count_call(const milnor_elt *T, unsigned c, void *ctx)
{
    call_count *cc = ctx;
    cc->n[milnor_index(&A, T)][c & 3]++;
}

/* 1 if the two searches' calls for Sq(R)·Sq(S) differ; adds the naive one's count to *calls. */
static int pruned_differs(const milnor_elt *R, const milnor_elt *S, long *calls)
{
    static call_count fast, naive;
    uint32_t dim = A.dim[R->degree + S->degree];
    memset(fast.n, 0, (size_t)dim * sizeof fast.n[0]);
    memset(naive.n, 0, (size_t)dim * sizeof naive.n[0]);
    milnor_mul_mod4_each(R, S, count_call, &fast);
    milnor_mul_mod4_each_naive(R, S, count_call, &naive);
    for (uint32_t k = 0; k < dim; k++) *calls += naive.n[k][1] + naive.n[k][2] + naive.n[k][3];
    return memcmp(fast.n, naive.n, (size_t)dim * sizeof fast.n[0]) != 0;
}

#define MOD4_ALL 36                   /* every pair of degree sum <= this */
static void test_mod4_pruned(void)
{
    int bad = 0, pairs = 0;
    long calls = 0;
    for (deg_t dr = 0; dr <= MOD4_ALL; dr++)
        for (deg_t ds = 0; dr + ds <= MOD4_ALL; ds++)
            for (uint32_t i = 0; i < A.dim[dr]; i++)
                for (uint32_t j = 0; j < A.dim[ds]; j++) {
                    bad += pruned_differs(&A.elts[dr][i], &A.elts[ds][j], &calls);
                    pairs++;
                }
    ok(bad == 0 && calls > pairs, "pruned mod-4 search makes the naive one's calls (%d pairs of degree sum <= %d, "
       "%ld calls, %d differ)", pairs, MOD4_ALL, calls, bad);
    /* and on random pairs of larger degree */
    bad = 0;
    for (int trial = 0; trial < 3000; trial++) {
        deg_t dr = (deg_t)(rng_next() % 61), ds = (deg_t)(rng_next() % (MAXDEG - dr + 1));
        if (!A.dim[dr] || !A.dim[ds] || A.dim[dr + ds] > 4096) continue;
        bad += pruned_differs(&A.elts[dr][rng_next() % A.dim[dr]], &A.elts[ds][rng_next() % A.dim[ds]], &calls);
    }
    ok(bad == 0, "pruned mod-4 search equals the naive one on 3000 random pairs of degree sum <= %d (%d differ)",
       MAXDEG, bad);
}

/* ---- A(R, Y) and the Y part of A(a, σ(b)σ(c)) --------------------------------------------------- */

/* The vector over A_d of a single basis element, or of a sum given as a list. */
static int vec_is(const uint64_t *v, deg_t d, const milnor_elt *want, int nwant)
{
    uint64_t w[VW] = { 0 };
    for (int i = 0; i < nwant; i++) {
        uint32_t idx = milnor_index(&A, &want[i]);
        w[idx >> 6] ^= (uint64_t)1 << (idx & 63);
    }
    for (uint32_t k = 0; k < (A.dim[d] + 63) / 64; k++)
        if (v[k] != w[k]) return 0;
    return 1;
}

static void test_a_y(void)
{
    struct { uint32_t r[3]; int rn, k, l; uint32_t want[5]; int wn; } cases[] = {
        { { 1 }, 1, 0, 1, { 2 }, 1 },                  /* A(Sq(1), Y_{0,1}) = Sq(2) */
        { { 1 }, 1, 1, 2, { 0 }, -1 },                 /* A(Sq(1), Y_{1,2}) = 0 */
        { { 0, 1 }, 2, 0, 1, { 1, 1 }, 2 },            /* A(Sq(0,1), Y_{0,1}) = Sq(1,1) */
        { { 0, 2 }, 2, 1, 3, { 0, 0, 2 }, 3 },         /* A(Sq(0,2), Y_{1,3}) = Sq(0,0,2) */
        { { 1, 2 }, 2, 0, 1, { 2, 2 }, 2 },            /* A(Sq(1,2), Y_{0,1}) = Sq(2,2) */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        milnor_elt R = elt(cases[c].r, cases[c].rn);
        deg_t d = R.degree + (1 << cases[c].k) + (1 << cases[c].l) - 2;
        uint64_t v[VW] = { 0 };
        pair_a_y(&A, &R, cases[c].k, cases[c].l, v, 0);
        milnor_elt W = elt(cases[c].want, cases[c].wn < 0 ? 0 : cases[c].wn);
        char buf[64];
        ok(vec_is(v, d, &W, cases[c].wn < 0 ? 0 : 1), "A(%s, Y_{%d,%d}) %s", milnor_elt_format(&R, buf, sizeof buf),
           cases[c].k, cases[c].l, cases[c].wn < 0 ? "= 0" : "as expected");
    }
}

/* The planes Sq R sees (pair_y_seen): A(Sq R, Y_{k,l}) = 0 for every Sq R up to degree 100 and
 * every plane it does not see, and not 0 for some of the planes it sees. */
static void test_y_seen(void)
{
    long unseen = 0, zero = 0, seen = 0, nonzero = 0;
    for (deg_t d = 1; d <= MAXDEG; d++)
        for (uint32_t x = 0; x < A.dim[d]; x++) {
            int8_t lmax[PAIR_MAX_K];
            memset(lmax, -1, sizeof lmax);
            pair_y_seen(&A.elts[d][x], lmax);
            for (int k = 0; k < 7; k++)
                for (int l = k + 1; l < 7; l++) {
                    if (d + (1 << k) + (1 << l) - 2 > MAXDEG) continue;
                    uint64_t v[VW] = { 0 };
                    pair_a_y(&A, &A.elts[d][x], k, l, v, 0);
                    int nz = 0;
                    for (int w = 0; w < VW; w++) nz |= v[w] != 0;
                    if (l > lmax[k]) unseen++, zero += !nz;
                    else seen++, nonzero += nz;
                }
        }
    ok(unseen > 10000 && zero == unseen && nonzero > seen / 4, "A(Sq R, Y_{k,l}) = 0 on all %ld planes Sq R does "
       "not see (pair_y_seen; %ld are 0), non-zero on %ld of the %ld it sees", unseen, zero, nonzero, seen);
}

/* Y part of A(a, σ(b)σ(c)): the pair element of σ(b)σ(c) with its twos and ones dropped. */
static void test_a_sigma_y(void)
{
    struct { uint32_t a[5], b[5], c[5]; int an, bn, cn; uint32_t want[5]; int wn; } cases[] = {
        { { 1 }, { 1 }, { 1 }, 1, 1, 1, { 2 }, 1 },
        { { 0, 2 }, { 0, 2 }, { 0, 2 }, 2, 2, 2, { 0, 1, 2 }, 3 },
        { { 0, 0, 4 }, { 0, 0, 4 }, { 0, 0, 4 }, 3, 3, 3, { 0, 0, 3, 0, 2 }, 5 },
        { { 1 }, { 2, 1 }, { 0, 1 }, 1, 2, 2, { 0 }, -1 },
        { { 1 }, { 1 }, { 8 }, 1, 1, 1, { 6, 1 }, 2 },
        { { 1 }, { 2, 1 }, { 4 }, 1, 2, 1, { 0 }, -1 },
    };
    pair_ay_cache cache;
    if (pair_ay_cache_init(&cache) != 0) bail("out of memory");
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        milnor_elt a = elt(cases[t].a, cases[t].an), b = elt(cases[t].b, cases[t].bn), c = elt(cases[t].c, cases[t].cn);
        pair_elt P;
        if (pair_elt_init(&P, &A, b.degree + c.degree) != 0) bail("out of memory");
        pair_sigma_mul_add(&A, &P, &b, &c);
        memset(P.ones, 0, (size_t)(P.twos - P.ones) * 8 * 2);   /* ones and twos are adjacent */
        uint64_t v[VW] = { 0 };
        int rc = pair_a_mul_add(&A, &cache, &a, 1, &P, v, 0);
        deg_t d = a.degree + b.degree + c.degree - 1;
        milnor_elt W = elt(cases[t].want, cases[t].wn < 0 ? 0 : cases[t].wn);
        char ba[64], bb[64], bc[64];
        ok(rc == 0 && vec_is(v, d, &W, cases[t].wn < 0 ? 0 : 1), "Y part of A(%s, σ%s σ%s)",
           milnor_elt_format(&a, ba, sizeof ba), milnor_elt_format(&b, bb, sizeof bb), milnor_elt_format(&c, bc, sizeof bc));
        pair_elt_clear(&P);
    }
    /* the cache returns what pair_a_y computes, and hits on a second call */
    uint32_t r[2] = { 3, 1 };
    milnor_elt R = elt(r, 2);
    uint64_t direct[VW] = { 0 };
    pair_a_y(&A, &R, 0, 2, direct, 0);
    const uint64_t *c1 = pair_ay_cached(&cache, &A, &R, 0, 2), *c2 = pair_ay_cached(&cache, &A, &R, 0, 2);
    deg_t d = R.degree + 1 + 4 - 2;
    ok(c1 && c1 == c2 && !memcmp(c1, direct, ((A.dim[d] + 63) / 64) * 8), "A(R, Y) cache agrees with pair_a_y and hits");
    pair_ay_cache_clear(&cache);
}

/* Random bits in the first `bits` bits of v. */
static void random_bits(uint64_t *v, uint32_t bits)
{
    for (uint32_t w = 0; w < (bits + 63) / 64; w++) v[w] = rng_next() & rng_next();
    if (bits & 63) v[bits / 64] &= ((uint64_t)1 << (bits & 63)) - 1;
}

/* A sink into plain arrays (pair_a_mul_plan's jobs and terms). */
typedef struct test_sink {
    milnor_row_job jobs[4096];
    milnor_term terms[16384];
    size_t njobs, nterms;
} test_sink;
static size_t ts_nterms(void *ctx) { return ((test_sink *)ctx)->nterms; }
static int ts_term(void *ctx, milnor_term t)
{
    test_sink *k = ctx;
    if (k->nterms == sizeof k->terms / sizeof *k->terms) return -1;
    k->terms[k->nterms++] = t;
    return 0;
}
static int ts_job(void *ctx, milnor_row_job j)
{
    test_sink *k = ctx;
    if (k->njobs == sizeof k->jobs / sizeof *k->jobs) return -1;
    k->jobs[k->njobs++] = j;
    return 0;
}

/* pair_a_mul_add_many (one milnor_mul_batch for several pair elements), pair_a_mul_add_sets (two
 * sums a in one batch), and pair_a_mul_plan's
 * jobs multiplied into one row by the reference search (the codelet's grouped row), against
 * pair_a_mul_add_pairwise on each, on random pair elements (random twos and Y vectors of
 * random degrees) and random sums a, at random column offsets. */
static void test_a_mul_batched(void)
{
    static test_sink sink;
    milnor_sink to = { &sink, ts_nterms, ts_term, ts_job };
    int planned_bad = 0, sets_bad = 0;
    pair_ay_cache cache;
    if (pair_ay_cache_init(&cache) != 0) bail("out of memory");
    int bad = 0, nonzero = 0, trials = 300;
    for (int t = 0; t < trials; t++) {
        deg_t da = (deg_t)(1 + rng_next() % 24);
        uint32_t ne = 1 + (uint32_t)(rng_next() % 3);
        pair_elt P[3];
        const pair_elt *pe[3];
        uint64_t off[3];
        for (uint32_t i = 0; i < ne; i++) {
            deg_t d = (deg_t)(2 + rng_next() % 40);
            if (pair_elt_init(&P[i], &A, d) != 0) bail("out of memory");
            random_bits(P[i].twos, A.dim[d]);
            for (int k = 0; k < P[i].nk; k++)
                for (int l = k + 1; l < P[i].nl[k]; l++)
                    if (rng_next() % 2) random_bits(P[i].ys[k][l], P[i].ys_dim[k][l]);
            pe[i] = &P[i];
            off[i] = rng_next() % 300;
        }
        milnor_elt a[4];
        uint32_t n = 1 + (uint32_t)(rng_next() % 4);
        for (uint32_t i = 0; i < n; i++) a[i] = A.elts[da][rng_next() % A.dim[da]];
        uint64_t fast[VW + 8] = { 0 }, slow[VW + 8] = { 0 };
        int rc = pair_a_mul_add_many(&A, &cache, a, n, pe, off, ne, fast);
        for (uint32_t i = 0; i < ne; i++) rc |= pair_a_mul_add_pairwise(&A, &cache, a, n, &P[i], slow, off[i]);
        if (rc || memcmp(fast, slow, sizeof fast)) bad++;
        /* two sets in one batch (pair_a_mul_add_sets): a on the e_i at off, a2 at off2 */
        deg_t da2 = (deg_t)(1 + rng_next() % 24);
        milnor_elt a2[4];
        uint32_t n2 = 1 + (uint32_t)(rng_next() % 4);
        for (uint32_t i = 0; i < n2; i++) a2[i] = A.elts[da2][rng_next() % A.dim[da2]];
        uint64_t off2[3], sets_out[VW + 8] = { 0 }, sets_slow[VW + 8];
        for (uint32_t i = 0; i < ne; i++) off2[i] = rng_next() % 300;
        pair_a_set sets[2] = { { a, n, ne, pe, off }, { a2, n2, ne, pe, off2 } };
        memcpy(sets_slow, slow, sizeof slow);
        for (uint32_t i = 0; i < ne; i++) rc |= pair_a_mul_add_pairwise(&A, &cache, a2, n2, &P[i], sets_slow, off2[i]);
        rc |= pair_a_mul_add_sets(&A, &cache, sets, 2, sets_out);
        if (rc || memcmp(sets_out, sets_slow, sizeof sets_out)) sets_bad++;
        uint64_t planned[VW + 8] = { 0 };
        sink.njobs = sink.nterms = 0;
        if (pair_a_mul_plan(&A, &cache, a, n, pe, off, ne, &to) != 0) planned_bad++;
        else {
            milnor_mul_batch_search(&A, sink.jobs, sink.njobs, sink.terms, planned, 0);
            planned_bad += memcmp(planned, slow, sizeof planned) != 0;
        }
        for (int w = 0; w < VW + 8; w++)
            if (fast[w]) {
                nonzero++;
                break;
            }
        for (uint32_t i = 0; i < ne; i++) pair_elt_clear(&P[i]);
    }
    ok(bad == 0 && nonzero > trials / 2, "batched A(a, e) equals the pairwise one on %d random cases of 1-3 pair "
       "elements (%d non-zero, %d differ)", trials, nonzero, bad);
    ok(sets_bad == 0, "two sums a, a2 on the same pair elements at other offsets in one batch (pair_a_mul_add_sets) "
       "equal the pairwise ones on the same %d cases (%d differ)", trials, sets_bad);
    ok(planned_bad == 0, "A(a, e) planned as jobs (pair_a_mul_plan) and multiplied into one row by the reference "
       "search equals the pairwise one on the same %d cases (%d differ)", trials, planned_bad);
    pair_ay_cache_clear(&cache);
}

/* pair_sigma_mul_add_all against pair_sigma_mul_add on each pair: random left factors of one
 * degree, right factors of random degrees into 1-3 targets. */
static void test_sigma_batched(void)
{
    int bad = 0, ys = 0, trials = 300, reach_bad = 0, reach_out = 0;
    for (int t = 0; t < trials; t++) {
        deg_t db = (deg_t)(1 + rng_next() % 30);
        uint32_t nb = 1 + (uint32_t)(rng_next() % 5), nt = 1 + (uint32_t)(rng_next() % 3), nc = 0;
        milnor_elt b[5], c[12];
        pair_elt fast[3], slow[3], *target[12];
        for (uint32_t i = 0; i < nb; i++) b[i] = A.elts[db][rng_next() % A.dim[db]];
        for (uint32_t k = 0; k < nt; k++) {
            deg_t dc = (deg_t)(1 + rng_next() % 30);
            if (pair_elt_init(&fast[k], &A, db + dc) != 0 || pair_elt_init(&slow[k], &A, db + dc) != 0)
                bail("out of memory");
            for (uint32_t j = 0, m = 1 + (uint32_t)(rng_next() % 4); j < m; j++) {
                c[nc] = A.elts[dc][rng_next() % A.dim[dc]];
                target[nc++] = &fast[k];
                for (uint32_t i = 0; i < nb; i++) pair_sigma_mul_add(&A, &slow[k], &b[i], &c[nc - 1]);
            }
        }
        if (pair_sigma_mul_add_all(&A, b, nb, c, target, nc) != 0) bad++;
        /* the Y terms alone in random planes: fast's planes Y_{k,l} with l <= lmax[k], no other */
        int8_t lmax[PAIR_MAX_K];
        for (int k = 0; k < PAIR_MAX_K; k++) lmax[k] = (int8_t)(rng_next() % 8) - 1;
        pair_elt cut[3], *ctarget[12];
        for (uint32_t k = 0; k < nt; k++)
            if (pair_elt_init(&cut[k], &A, fast[k].degree) != 0) bail("out of memory");
        for (uint32_t j = 0; j < nc; j++) ctarget[j] = &cut[target[j] - fast];
        if (pair_sigma_y_add_all(&A, b, nb, c, ctarget, nc, lmax) != 0) reach_bad++;
        for (uint32_t k = 0; k < nt; k++) {
            for (int ya = 0; ya < fast[k].nk; ya++)
                for (int yb = ya + 1; yb < fast[k].nl[ya]; yb++) {
                    size_t w = (fast[k].ys_dim[ya][yb] + 63) / 64;
                    int in = yb <= lmax[ya];
                    for (size_t i = 0; i < w; i++) {
                        if (cut[k].ys[ya][yb][i] != (in ? fast[k].ys[ya][yb][i] : 0)) reach_bad++;
                        reach_out += !in && fast[k].ys[ya][yb][i];
                    }
                }
            pair_elt_clear(&cut[k]);
        }
        for (uint32_t k = 0; k < nt; k++) {
            if (memcmp(fast[k].mem, slow[k].mem, fast[k].words * sizeof *fast[k].mem)) bad++;
            size_t w0 = (size_t)(fast[k].ys[0][0] - fast[k].mem);
            for (size_t w = w0; w < fast[k].words; w++)
                if (fast[k].mem[w]) {
                    ys++;
                    break;
                }
            pair_elt_clear(&fast[k]);
            pair_elt_clear(&slow[k]);
        }
    }
    ok(bad == 0 && ys > trials / 2, "batched σ-products equal pair_sigma_mul_add pair by pair on %d random cases "
       "(%d targets with Y terms, %d differ)", trials, ys, bad);
    ok(reach_bad == 0 && reach_out > 0, "their Y terms alone in random planes (pair_sigma_y_add_all, l <= lmax[k]) "
       "are those planes of the whole, the others zero (%d words left out non-zero, %d differ)", reach_out, reach_bad);
}

/* σ(b)σ(c) + σ(b')σ(c') with bc + b'c' = 0 mod 2 has no odd part: finalize accepts it; a lone
 * product with an odd term is refused. */
static void test_finalize(void)
{
    uint32_t one = 1, two = 2;
    milnor_elt s1 = elt(&one, 1), s2 = elt(&two, 1);
    pair_elt P;
    if (pair_elt_init(&P, &A, 3) != 0) bail("out of memory");
    pair_sigma_mul_add(&A, &P, &s1, &s2);            /* Sq(1)Sq(2) = Sq(3) + Sq(0,1) */
    ok(pair_finalize(&P) == -1, "finalize refuses σSq(1)σSq(2) alone (odd terms)");
    pair_elt_clear(&P);
    /* Sq(1)Sq(1) = 0 mod 2: its pair element is 2 Sq(2) plus Y terms */
    if (pair_elt_init(&P, &A, 2) != 0) bail("out of memory");
    pair_sigma_mul_add(&A, &P, &s1, &s1);
    ok(pair_finalize(&P) == 0 && (P.twos[0] >> milnor_index(&A, &s2) & 1), "σSq(1)σSq(1) finalizes, twos = Sq(2)");
    ok(P.ys[0][1][0] & 1, "σSq(1)σSq(1) has the Y_{0,1} term (Y_{0,1}·1)");
    pair_elt_clear(&P);
    /* Sq(1)Sq(2) = Sq(3) and Sq(2)Sq(1) = Sq(3) + Sq(0,1): σSq(1)σSq(2) + σSq(2)σSq(1) +
     * σSq(0,1)σ(1) is 0 mod 2 */
    uint32_t r01[2] = { 0, 1 };
    milnor_elt q = elt(r01, 2), unit = elt(NULL, 0);
    if (pair_elt_init(&P, &A, 3) != 0) bail("out of memory");
    pair_sigma_mul_add(&A, &P, &s1, &s2);
    pair_sigma_mul_add(&A, &P, &s2, &s1);
    pair_sigma_mul_add(&A, &P, &q, &unit);
    ok(pair_finalize(&P) == 0, "σSq(1)σSq(2) + σSq(2)σSq(1) + σSq(0,1) finalizes");
    pair_elt_clear(&P);
}

int main(void)
{
    seed_from_env();
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("milnor_basis_init failed");
    test_binomials();
    test_mod4_product();
    test_mod4_pruned();
    test_a_y();
    test_y_seen();
    test_a_sigma_y();
    test_a_mul_batched();
    test_sigma_batched();
    test_finalize();
    milnor_basis_clear(&A);
    return done_testing();
}
