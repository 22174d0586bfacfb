/* t-milnor.c — TAP tests of the Milnor basis, its index, product and profiles (algebra/milnor.c).
 * Run from the repository root (as make test does). Env: EXTFLOW_TEST_REF (reference data,
 * default tests/ref), SEED (random tests; default time). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/milnor_search.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define VW 64                        /* words of a test vector: 4096 bits, dim A_d <= 4096 */
#define INDEX_DEG 130                /* index round trip through this degree */

static milnor_basis A;               /* the whole algebra through INDEX_DEG */

/* ---------------------------------------------------------------- helpers */

static milnor_elt sq1(uint32_t n)
{
    milnor_elt e;
    milnor_elt_set(&e, &n, 1);
    return e;
}

/* Parses "Sq(a,b,...)" at *s into e; advances *s. */
static void parse_elt(const char **s, milnor_elt *e)
{
    uint32_t r[MILNOR_MAX_LEN] = {0};
    int n = 0;
    const char *p = strchr(*s, '(') + 1;
    while (*p != ')') {
        char *end;
        r[n++] = (uint32_t)strtoul(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    milnor_elt_set(e, r, n);
    *s = p + 1;
}

/* "Sq(3) + Sq(0,1)" or "0" as a packed vector over the basis of degree d. */
static void parse_sum(const char *s, deg_t d, uint64_t *v)
{
    memset(v, 0, VW * sizeof *v);
    while ((s = strstr(s, "Sq("))) {
        milnor_elt e;
        parse_elt(&s, &e);
        if (e.degree != d) { v[VW - 1] ^= 1; continue; }   /* poison: wrong degree */
        uint32_t k = milnor_index(&A, &e);
        v[k >> 6] ^= 1ull << (k & 63);
    }
}

static int vec_eq(const uint64_t *a, const uint64_t *b)
{
    return memcmp(a, b, VW * sizeof *a) == 0;
}

static void product(const milnor_elt *R, const milnor_elt *S, uint64_t *v)
{
    memset(v, 0, VW * sizeof *v);
    milnor_mul_into(&A, R, S, v, 0);
}

/* v ^= x·S for x = sum of the basis elements of degree dx set in xv. */
static void product_left_vec(deg_t dx, const uint64_t *xv, const milnor_elt *S, uint64_t *v)
{
    for (uint32_t k = 0; k < A.dim[dx]; ++k)
        if (xv[k >> 6] >> (k & 63) & 1) milnor_mul_into(&A, &A.elts[dx][k], S, v, 0);
}

/* v ^= R·y for y = sum of the basis elements of degree dy set in yv. */
static void product_right_vec(const milnor_elt *R, deg_t dy, const uint64_t *yv, uint64_t *v)
{
    for (uint32_t k = 0; k < A.dim[dy]; ++k)
        if (yv[k >> 6] >> (k & 63) & 1) milnor_mul_into(&A, R, &A.elts[dy][k], v, 0);
}

static const milnor_elt *random_elt(deg_t d)
{
    return &A.elts[d][rng_next() % A.dim[d]];
}

/* ---------------------------------------------------------------- dimensions */

static void test_reference_dims(void)
{
    const char *ref = getenv("EXTFLOW_TEST_REF");
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/algebra_dim", ref ? ref : "tests/ref");
    FILE *f = fopen(path, "r");
    if (!f) {
        ok(0, "reference %s: cannot open (run from the repository root)", path);
        return;
    }
    int checked = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        int n;
        unsigned k;
        if (sscanf(line, "dim A_%d = %u", &n, &k) != 2 || n > INDEX_DEG) continue;
        ++checked;
        if (A.dim[n] != k) { ++bad; diag("dim A_%d: got %u, want %u", n, A.dim[n], k); }
    }
    fclose(f);
    ok(checked == 126 && bad == 0, "dims of A in degrees 0..125 match algebra_dim (%d lines)", checked);
}

static void test_first_degrees(void)
{
    static const char *want[] = {"Sq()", "Sq(1)", "Sq(2)", "Sq(3) Sq(0,1)", "Sq(4) Sq(1,1)",
        "Sq(5) Sq(2,1)", "Sq(6) Sq(3,1) Sq(0,2)", "Sq(7) Sq(4,1) Sq(1,2) Sq(0,0,1)",
        "Sq(8) Sq(5,1) Sq(2,2) Sq(1,0,1)", "Sq(9) Sq(6,1) Sq(3,2) Sq(0,3) Sq(2,0,1)",
        "Sq(10) Sq(7,1) Sq(4,2) Sq(1,3) Sq(3,0,1) Sq(0,1,1)"};
    int bad = 0;
    for (int d = 0; d <= 10; ++d) {
        char got[256] = "", buf[64];
        for (uint32_t k = 0; k < A.dim[d]; ++k) {
            if (k) strcat(got, " ");
            strcat(got, milnor_elt_format(&A.elts[d][k], buf, sizeof buf));
        }
        if (strcmp(got, want[d])) { ++bad; diag("degree %d: %s", d, got); }
    }
    ok(bad == 0, "basis order in degrees 0..10 as in docs/algorithms.md §1.2");
}

static deg_t profile_total(const milnor_profile *p, uint64_t *total, uint32_t *top_dim)
{
    milnor_basis B;
    deg_t top = milnor_profile_top_degree(p);
    if (milnor_basis_init(&B, top, p) < 0) return -1;
    *total = 0;
    for (deg_t d = 0; d <= top; ++d) *total += B.dim[d];
    *top_dim = B.dim[top];
    milnor_basis_clear(&B);
    return top;
}

static void test_an_dims(void)
{
    static const uint64_t want[] = {2, 8, 64, 1024};
    for (int n = 0; n <= 3; ++n) {
        milnor_profile p = milnor_profile_an(n);
        uint64_t total;
        uint32_t top_dim;
        deg_t top = profile_total(&p, &total, &top_dim);
        ok(total == want[n] && top_dim == 1, "A(%d): total dim %llu, top degree %d of dim %u",
           n, (unsigned long long)total, top, top_dim);
    }
}

/* ---------------------------------------------------------------- index */

static void test_index_roundtrip(void)
{
    int bad = 0;
    uint64_t count = 0;
    for (deg_t d = 0; d <= INDEX_DEG; ++d)
        for (uint32_t k = 0; k < A.dim[d]; ++k, ++count)
            if (milnor_index(&A, &A.elts[d][k]) != k) ++bad;
    ok(bad == 0, "milnor_index round trip on all %llu elements of degree <= %d",
       (unsigned long long)count, INDEX_DEG);
}

/* ---------------------------------------------------------------- products */

static void test_examples(void)
{
    static const char *table[][3] = {
        {"Sq(1)", "Sq(1)", "0"},
        {"Sq(1)", "Sq(2)", "Sq(3)"},
        {"Sq(2)", "Sq(1)", "Sq(3) + Sq(0,1)"},
        {"Sq(2)", "Sq(2)", "Sq(1,1)"},
        {"Sq(4)", "Sq(2)", "Sq(6) + Sq(3,1) + Sq(0,2)"},
        {"Sq(2)", "Sq(4)", "Sq(6) + Sq(3,1)"},
        {"Sq(4)", "Sq(4)", "Sq(2,2)"},
        {"Sq(3)", "Sq(2)", "0"},
        {"Sq(0,1)", "Sq(2)", "Sq(2,1)"},
        {"Sq(1,4)", "Sq(2,4)", "Sq(1,4,2) + Sq(3,3,0,1)"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; ++i) {
        const char *a = table[i][0], *b = table[i][1];
        milnor_elt R, S;
        uint64_t got[VW], want[VW];
        parse_elt(&a, &R);
        parse_elt(&b, &S);
        product(&R, &S, got);
        parse_sum(table[i][2], R.degree + S.degree, want);
        ok(vec_eq(got, want), "%s·%s = %s", table[i][0], table[i][1], table[i][2]);
    }
}

static void test_associativity(int n)
{
    int bad = 0;
    for (int it = 0; it < n; ++it) {
        deg_t da = (deg_t)(rng_next() % 41), db = (deg_t)(rng_next() % (41 - da)),
              dc = (deg_t)(rng_next() % (41 - da - db));
        const milnor_elt *a = random_elt(da), *b = random_elt(db), *c = random_elt(dc);
        uint64_t ab[VW], bc[VW], l[VW] = {0}, r[VW] = {0};
        product(a, b, ab);
        product(b, c, bc);
        product_left_vec(da + db, ab, c, l);
        product_right_vec(a, db + dc, bc, r);
        if (!vec_eq(l, r) && ++bad <= 5) {
            char x[64], y[64], z[64];
            diag("(ab)c != a(bc) for %s %s %s", milnor_elt_format(a, x, 64),
                 milnor_elt_format(b, y, 64), milnor_elt_format(c, z, 64));
        }
    }
    ok(bad == 0, "associativity on %d random triples of total degree <= 40", n);
}

/* binom(n, k) mod 2 by Lucas' theorem, digit by digit. */
static int binom2(int64_t n, int64_t k)
{
    if (k < 0 || n < 0 || k > n) return 0;
    for (; k; n >>= 1, k >>= 1)
        if ((k & 1) && !(n & 1)) return 0;
    return 1;
}

static void test_adem(void)
{
    int bad = 0, count = 0;
    for (int a = 1; a <= 30; ++a)
        for (int b = 1; a + b <= 30; ++b) {
            if (a >= 2 * b) continue;
            milnor_elt sa = sq1((uint32_t)a), sb = sq1((uint32_t)b);
            uint64_t l[VW], r[VW] = {0};
            product(&sa, &sb, l);
            for (int j = 0; j <= a / 2; ++j) {
                if (!binom2(b - 1 - j, a - 2 * j)) continue;
                milnor_elt x = sq1((uint32_t)(a + b - j)), y = sq1((uint32_t)j);
                milnor_mul_into(&A, &x, &y, r, 0);
            }
            ++count;
            if (!vec_eq(l, r)) { ++bad; diag("Adem relation fails for Sq^%d Sq^%d", a, b); }
        }
    ok(bad == 0, "Adem relations Sq^a Sq^b, a < 2b, a + b <= 30 (%d relations)", count);
}

/* Brute force: all Milnor matrices by nested search, coefficients by Lucas. */
typedef struct brute {
    uint32_t x[MILNOR_MAX_LEN + 1][MILNOR_MAX_LEN + 1];
    const milnor_elt *R, *S;
    uint64_t *out;
} brute;

/* multinomial(e_1..e_m) mod 2 = prod_k binom(e_1 + .. + e_k, e_k). */
static int multinomial2(const uint32_t *e, int m)
{
    int64_t s = 0;
    for (int k = 0; k < m; ++k) {
        s += e[k];
        if (!binom2(s, e[k])) return 0;
    }
    return 1;
}

static void brute_finish(brute *b)
{
    int rows = (int)b->R->len + 1, cols = (int)b->S->len + 1;
    for (int j = 1; j < cols; ++j) {
        int64_t free_part = b->S->r[j - 1];
        for (int i = 1; i < rows; ++i) free_part -= b->x[i][j];
        if (free_part < 0) return;
        b->x[0][j] = (uint32_t)free_part;
    }
    uint32_t t[2 * MILNOR_MAX_LEN + 2] = {0};
    int len = 0;
    for (int n = 1; n < rows + cols - 1; ++n) {
        uint32_t e[MILNOR_MAX_LEN + 1];
        int m = 0;
        for (int i = 0; i < rows; ++i)
            if (n - i >= 0 && n - i < cols) e[m++] = b->x[i][n - i];
        if (!multinomial2(e, m)) return;
        for (int k = 0; k < m; ++k) t[n - 1] += e[k];
        if (t[n - 1]) len = n;
    }
    milnor_elt T;
    milnor_elt_set(&T, t, len);
    uint32_t k = milnor_index(&A, &T);
    b->out[k >> 6] ^= 1ull << (k & 63);
}

/* Chooses x_ij for row i, column j onwards; rem = weight of row i still unassigned. */
static void brute_rec(brute *b, int i, int j, uint32_t rem)
{
    int rows = (int)b->R->len + 1, cols = (int)b->S->len + 1;
    if (i == rows) { brute_finish(b); return; }
    if (j == cols) {
        b->x[i][0] = rem;
        brute_rec(b, i + 1, 1, i + 1 < rows ? b->R->r[i] : 0);
        return;
    }
    for (uint32_t v = 0; v << j <= rem; ++v) {
        b->x[i][j] = v;
        brute_rec(b, i, j + 1, rem - (v << j));
    }
}

static void brute_product(const milnor_elt *R, const milnor_elt *S, uint64_t *v)
{
    brute b;
    memset(&b, 0, sizeof b);
    memset(v, 0, VW * sizeof *v);
    b.R = R;
    b.S = S;
    b.out = v;
    brute_rec(&b, 1, 1, R->len ? R->r[0] : 0);
}

static void test_brute_force(deg_t maxdeg)
{
    int bad = 0, count = 0;
    for (deg_t dr = 0; dr <= maxdeg; ++dr)
        for (deg_t ds = 0; dr + ds <= maxdeg; ++ds)
            for (uint32_t i = 0; i < A.dim[dr]; ++i)
                for (uint32_t k = 0; k < A.dim[ds]; ++k) {
                    const milnor_elt *R = &A.elts[dr][i], *S = &A.elts[ds][k];
                    uint64_t got[VW], want[VW];
                    product(R, S, got);
                    brute_product(R, S, want);
                    ++count;
                    if (!vec_eq(got, want) && ++bad <= 5) {
                        char x[64], y[64];
                        diag("%s·%s differs from brute force", milnor_elt_format(R, x, 64),
                             milnor_elt_format(S, y, 64));
                    }
                }
    ok(bad == 0, "matrix enumeration = brute-force formula on all %d products of degree <= %d",
       count, maxdeg);
}

/* Collects the terms of milnor_mul_each into a vector. */
static void emit_to_vec(const milnor_elt *T, void *ctx)
{
    uint64_t *v = ctx;
    uint32_t k = milnor_index(&A, T);
    v[k >> 6] ^= 1ull << (k & 63);
}

static void test_mul_each(deg_t maxdeg)
{
    int bad = 0;
    for (int it = 0; it < 2000; ++it) {
        deg_t dr = (deg_t)(rng_next() % (maxdeg + 1)), ds = (deg_t)(rng_next() % (maxdeg + 1 - dr));
        const milnor_elt *R = random_elt(dr), *S = random_elt(ds);
        uint64_t a[VW], b[VW] = {0};
        product(R, S, a);
        milnor_mul_each(R, S, emit_to_vec, b);
        bad += !vec_eq(a, b);
    }
    ok(bad == 0, "milnor_mul_each agrees with milnor_mul_into on 2000 random pairs");
}

#define BATCH_ROWS 300
#define BATCH_TERMS 6
#define BATCH_STRIDE 24              /* words: offsets < 1200 plus dim A_40 = 82 bits */

static void test_batch(void)
{
    static milnor_row_job jobs[BATCH_ROWS];
    static milnor_term terms[BATCH_ROWS * BATCH_TERMS];
    static uint64_t rows[BATCH_ROWS * BATCH_STRIDE], want[BATCH_ROWS * BATCH_STRIDE];
    uint32_t nt = 0;
    memset(rows, 0, sizeof rows);
    memset(want, 0, sizeof want);
    for (int i = 0; i < BATCH_ROWS; ++i) {
        milnor_row_job *j = &jobs[i];
        j->r_deg = (uint32_t)(rng_next() % 21);
        j->r_idx = (uint32_t)(rng_next() % A.dim[j->r_deg]);
        j->first_term = nt;
        j->n_terms = (uint32_t)(rng_next() % (BATCH_TERMS + 1));
        for (uint32_t k = 0; k < j->n_terms; ++k, ++nt) {
            milnor_term *t = &terms[nt];
            t->s_deg = (uint32_t)(rng_next() % 21);
            t->s_idx = (uint32_t)(rng_next() % A.dim[t->s_deg]);
            t->col_offset = (uint32_t)(rng_next() % 1200);
            milnor_mul_into(&A, &A.elts[j->r_deg][j->r_idx], &A.elts[t->s_deg][t->s_idx],
                            want + (size_t)i * BATCH_STRIDE, t->col_offset);
        }
    }
    milnor_mul_batch(&A, jobs, BATCH_ROWS, terms, rows, BATCH_STRIDE);
    ok(memcmp(rows, want, sizeof rows) == 0,
       "milnor_mul_batch = one-by-one milnor_mul_into (%d rows, %u terms)", BATCH_ROWS, nt);
}

/* milnor_mul_batch_simd's two vector paths, as batch functions (AVX-512: nothing done where
 * the CPU lacks it; batch_case does not call it there). */
static void batch_avx2(const milnor_basis *B, const milnor_row_job *jobs, size_t nj, const milnor_term *terms,
                       uint64_t *rows, size_t stride)
{
    if (milnor_mul_batch_simd(B, jobs, nj, terms, rows, stride, MILNOR_SIMD_AVX2) < 0) bail("AVX2 path refused");
}

static void batch_avx512(const milnor_basis *B, const milnor_row_job *jobs, size_t nj, const milnor_term *terms,
                         uint64_t *rows, size_t stride)
{
    milnor_mul_batch_simd(B, jobs, nj, terms, rows, stride, MILNOR_SIMD_AVX512);
}

static uint64_t path_bad[5];         /* batch_case's mismatches by path */

/* The batch entry points on one batch: milnor_mul_batch (dispatch), _halves (every
 * job with terms by R-halves), _search (every pair by the matrix search) and the dispatch
 * through each vector path (the AVX-512 one where the CPU has it) must give the same
 * bits as one-by-one milnor_mul_into. Jobs: nj rows, R of degree <= maxr (length >= minlen
 * where possible), 0..maxt terms of degree <= maxs at offsets < maxoff; runs of jobs share
 * one term list, as a resolution's do. Returns the number of mismatching paths. */
static int batch_case(const milnor_basis *B, uint32_t nj, deg_t maxr, uint32_t minlen,
                      uint32_t maxt, deg_t maxs, uint32_t maxoff, uint64_t *count)
{
    size_t stride = (maxoff + 4096 + 63) / 64;
    milnor_row_job *jobs = malloc(nj * sizeof *jobs);
    milnor_term *terms = malloc(((size_t)nj * maxt + 1) * sizeof *terms);
    uint64_t *want = calloc(nj * stride, sizeof *want), *got = malloc(nj * stride * sizeof *got);
    if (!jobs || !terms || !want || !got) bail("out of memory");
    uint32_t nt = 0, list_first = 0, list_n = 0;
    for (uint32_t i = 0; i < nj; ++i) {
        milnor_row_job *j = &jobs[i];
        if (maxr > B->max_degree) maxr = B->max_degree;
        for (int tries = 0; tries < 20; ++tries) {      /* prefer long R */
            j->r_deg = (uint32_t)(rng_next() % (uint64_t)(maxr + 1));
            j->r_idx = (uint32_t)(rng_next() % B->dim[j->r_deg]);
            if (B->elts[j->r_deg][j->r_idx].len >= minlen) break;
        }
        if (i == 0 || rng_next() % 4 == 0) {                 /* a new term list */
            list_first = nt;
            list_n = rng_next() % 8 == 0 ? 0 : (uint32_t)(rng_next() % (maxt + 1));
            for (uint32_t k = 0; k < list_n; ++k, ++nt) {
                milnor_term *t = &terms[nt];
                deg_t room = B->max_degree - (deg_t)j->r_deg;
                deg_t ds = (deg_t)(rng_next() % (uint64_t)((maxs < room ? maxs : room) + 1));
                t->s_deg = (uint32_t)ds;
                t->s_idx = (uint32_t)(rng_next() % B->dim[ds]);
                t->col_offset = (uint32_t)(rng_next() % maxoff);
            }
        }
        j->first_term = list_first;
        j->n_terms = list_n;
        for (uint32_t k = 0; k < list_n; ++k) {       /* the list was made for some R: recheck */
            milnor_term *t = &terms[list_first + k];
            if ((deg_t)(j->r_deg + t->s_deg) > B->max_degree) { j->r_deg = 0; j->r_idx = 0; }
        }
    }
    for (uint32_t i = 0; i < nj; ++i) {
        const milnor_row_job *j = &jobs[i];
        for (uint32_t k = 0; k < j->n_terms; ++k) {
            const milnor_term *t = &terms[j->first_term + k];
            milnor_mul_into(B, &B->elts[j->r_deg][j->r_idx], &B->elts[t->s_deg][t->s_idx],
                            want + i * stride, t->col_offset);
            ++*count;
        }
    }
    int bad = 0;
    void (*fns[])(const milnor_basis *, const milnor_row_job *, size_t, const milnor_term *,
                  uint64_t *, size_t) = {milnor_mul_batch, milnor_mul_batch_halves,
                                         milnor_mul_batch_search, batch_avx2, batch_avx512};
    for (int f = 0; f < 5; ++f) {
        if (f == 4 && !milnor_simd_supported(MILNOR_SIMD_AVX512)) break;
        memset(got, 0, nj * stride * sizeof *got);
        fns[f](B, jobs, nj, terms, got, stride);
        if (memcmp(got, want, nj * stride * sizeof *got)) {
            ++bad;
            ++path_bad[f];
            diag("batch path %d differs (maxr %d, maxt %u, maxs %d)", f, maxr, maxt, maxs);
        }
    }
    free(jobs);
    free(terms);
    free(want);
    free(got);
    return bad;
}

/* Term lists whose bounds lie within an earlier list's (subsets of its terms), between lists of
 * other bounds: a batch keeps the rows' choices listed under the looser bounds for them, and the
 * join must still hold each list to its own. Every path against the search, each job in its own
 * row and all jobs in one row (stride 0). */
static void test_nested_bounds(void)
{
    enum { NJ = 300, BIG = 40 };
    const size_t stride = (4000 + 4096 + 63) / 64;
    milnor_row_job *jobs = malloc(NJ * sizeof *jobs);
    milnor_term *terms = malloc((size_t)NJ * BIG * sizeof *terms);
    uint64_t *want = malloc(NJ * stride * 8), *got = malloc(NJ * stride * 8);
    if (!jobs || !terms || !want || !got) bail("out of memory");
    uint32_t nt = 0, big = 0, nbig = 0, first = 0, n = 0, kept = 0;
    for (uint32_t i = 0; i < NJ; ++i) {
        if (i % 5 == 0) {                           /* a new list */
            first = nt;
            if (i % 60 == 0) {                      /* a full list: the loosest bounds for a while */
                big = nt;
                nbig = n = BIG;
                for (uint32_t k = 0; k < BIG; ++k) {
                    deg_t ds = (deg_t)(1 + rng_next() % 40);
                    terms[nt++] = (milnor_term){(uint32_t)ds, (uint32_t)(rng_next() % A.dim[ds]),
                                                (uint32_t)(rng_next() % 4000)};
                }
            } else {                                /* a subset of it: bounds within its */
                n = 0;
                for (uint32_t k = 0; k < nbig; ++k)
                    if (rng_next() % 3 == 0) terms[nt++] = terms[big + k], ++n;
                kept += n > 0;
            }
        }
        deg_t dr = (deg_t)(20 + rng_next() % 41);   /* long R: several rows */
        jobs[i] = (milnor_row_job){(uint32_t)dr, (uint32_t)(rng_next() % A.dim[dr]), first, n};
    }
    void (*fns[])(const milnor_basis *, const milnor_row_job *, size_t, const milnor_term *, uint64_t *,
                  size_t) = {milnor_mul_batch, milnor_mul_batch_halves, batch_avx2, batch_avx512};
    int bad = 0;
    for (int one = 0; one < 2; ++one) {
        const size_t st = one ? 0 : stride, words = one ? stride : NJ * stride;
        memset(want, 0, words * 8);
        milnor_mul_batch_search(&A, jobs, NJ, terms, want, st);
        for (int f = 0; f < 4; ++f) {
            if (f == 3 && !milnor_simd_supported(MILNOR_SIMD_AVX512)) break;
            memset(got, 0, words * 8);
            fns[f](&A, jobs, NJ, terms, got, st);
            bad += memcmp(got, want, words * 8) != 0;
        }
    }
    ok(bad == 0 && kept > 0, "term lists within an earlier list's bounds (%u of them, %u terms): every path = the "
       "search, a row per job and one row", kept, nt);
    free(jobs);
    free(terms);
    free(want);
    free(got);
}

static void test_batch_paths(void)
{
    uint64_t count = 0;
    int bad = 0;
    /* many terms per job, all degrees up to 64 */
    for (deg_t d = 0; d <= 64; d += 4) bad += batch_case(&A, 40, d, 0, 200, 64, 3000, &count);
    /* long R (length >= 4: degree >= 26) against long S */
    bad += batch_case(&A, 60, INDEX_DEG - 40, 4, 120, 40, 2000, &count);
    bad += batch_case(&A, 60, 90, 3, 60, 40, 2000, &count);
    /* few terms (the search side of the dispatch), units and empty jobs */
    bad += batch_case(&A, 400, 60, 0, 3, 60, 500, &count);
    bad += batch_case(&A, 200, 2, 0, 40, 3, 500, &count);
    bad += batch_case(&A, 200, 40, 0, 40, 2, 500, &count);
    ok(bad == 0, "milnor_mul_batch = _halves = _search = one-by-one (%llu products)",
       (unsigned long long)count);

    /* every R of degree <= 60 against 100 terms of degrees 0..60 in one batch */
    {
        uint32_t nj = 0;
        for (deg_t d = 0; d <= 60; ++d) nj += A.dim[d];
        size_t stride = (100 * 64 + 4096 + 63) / 64;
        milnor_row_job *jobs = malloc(nj * sizeof *jobs);
        milnor_term terms[101];
        uint64_t *a = calloc((size_t)nj * stride, 8), *b = calloc((size_t)nj * stride, 8);
        if (!jobs || !a || !b) bail("out of memory");
        for (uint32_t k = 0; k < 100; ++k) {
            deg_t ds = (deg_t)(k % 61);
            terms[k] = (milnor_term){(uint32_t)ds, (uint32_t)(rng_next() % A.dim[ds]), k * 64};
        }
        terms[100] = (milnor_term){0, 0, 7};                /* the unit */
        nj = 0;
        for (deg_t d = 0; d <= 60; ++d)
            for (uint32_t i = 0; i < A.dim[d]; ++i)
                jobs[nj++] = (milnor_row_job){(uint32_t)d, i, 0, 101};
        milnor_mul_batch(&A, jobs, nj, terms, a, stride);
        milnor_mul_batch_search(&A, jobs, nj, terms, b, stride);
        int same = memcmp(a, b, (size_t)nj * stride * 8) == 0;
        memset(a, 0, (size_t)nj * stride * 8);
        milnor_mul_batch_halves(&A, jobs, nj, terms, a, stride);
        same &= memcmp(a, b, (size_t)nj * stride * 8) == 0;
        ok(same, "all %u R of degree <= 60 x 101 terms of degree 0..60: paths agree", nj);
        free(jobs);
        free(a);
        free(b);
    }

    /* a profile basis (hash index): A(2) */
    {
        milnor_profile p = milnor_profile_an(2);
        milnor_basis B;
        if (milnor_basis_init(&B, milnor_profile_top_degree(&p), &p) < 0) bail("init A(2)");
        uint64_t c2 = 0;
        int bad2 = 0;
        for (int it = 0; it < 10; ++it) bad2 += batch_case(&B, 50, 23, 0, 40, 23, 300, &c2);
        ok(bad2 == 0, "batch paths agree over A(2) (%llu products)", (unsigned long long)c2);
        /* its flat buffer (what a profile run hands StarPU): the view indexes and multiplies alike */
        size_t words = milnor_flat_words(&B);
        uint32_t *flat = malloc(words * sizeof *flat), vdim[24];
        milnor_elt *vel[24];
        milnor_basis V;
        if (!flat) bail("out of memory");
        ok(words > 0 && milnor_flat_write(&B, flat, words) == 0 && flat[0] == MILNOR_FLAT_MAGIC_PROFILE &&
           milnor_flat_view(flat, words, &V, vel, vdim) == 0, "A(2) flattens and is viewed (%zu words)", words);
        int bad_view = memcmp(&V.profile, &B.profile, sizeof B.profile) != 0;
        uint64_t pw[2], pv[2];
        for (deg_t d = 0; d <= 23; ++d)
            for (uint32_t i = 0; i < B.dim[d]; ++i) {
                bad_view += V.dim[d] != B.dim[d] || milnor_index(&V, &B.elts[d][i]) != i;
                for (deg_t e = 0; d + e <= 23; ++e)
                    for (uint32_t k = 0; k < B.dim[e]; ++k) {
                        memset(pw, 0, sizeof pw);
                        memset(pv, 0, sizeof pv);
                        milnor_mul_into(&B, &B.elts[d][i], &B.elts[e][k], pw, 0);
                        milnor_mul_into(&V, &V.elts[d][i], &V.elts[e][k], pv, 0);
                        bad_view += memcmp(pw, pv, sizeof pw) != 0;
                    }
            }
        ok(bad_view == 0, "the view of A(2)'s flat buffer: same profile, dims, indices and products");
        flat[MILNOR_FLAT_SEQNO_AT(23, flat[2]) + 3] ^= 1;   /* a table offset: no longer a power of two */
        ok(milnor_flat_view(flat, words, &V, vel, vdim) < 0, "a damaged profile buffer is refused");
        free(flat);
        milnor_basis_clear(&B);
    }
}

/* The halves' scratch kept across the jobs of one term list (the rows' choices per (i, r_i)):
 * long runs of jobs over one list of large terms, so that the kept rows fill their table and
 * their pool and are cleared between jobs, and long R whose halves pass the 4096 of the
 * dispatch: every path against the search. */
static void test_halves_scratch(void)
{
    const deg_t top = 320;
    milnor_basis B;
    if (milnor_basis_init(&B, top, NULL) < 0) bail("init A through 320");
    int bad = 0;
    uint64_t pairs = 0;
    /* run 0: R of degree <= 200, half of them Sq(r), against terms of degree 6..12 (many rows,
     * few choices each: the table fills); runs 1, 2: R of degree 140..180 and 180..220 against
     * terms of degree 70..140 and 50..100 (rows of thousands of choices: the pool fills, and
     * halves pass 4096) */
    for (int run = 0; run < 3; ++run) {
        const uint32_t nj = run ? 120 : 600, nt = 24;
        const deg_t rlo = run ? 100 + 40 * run : 0, rspan = run ? 40 : 200;
        const deg_t smaxdeg = run ? top - rlo - rspan : 12;
        uint32_t widest = 0;
        for (deg_t d = 0; d <= top; ++d)
            if (B.dim[d] > widest) widest = B.dim[d];
        size_t stride = (nt * 64 + widest + 63) / 64;
        milnor_row_job *jobs = malloc(nj * sizeof *jobs);
        milnor_term *terms = malloc(nt * sizeof *terms);
        uint64_t *want = calloc((size_t)nj * stride, 8), *got = malloc((size_t)nj * stride * 8);
        if (!jobs || !terms || !want || !got) bail("out of memory");
        for (uint32_t k = 0; k < nt; ++k) {
            deg_t ds = smaxdeg / 2 + (deg_t)(rng_next() % (uint64_t)(smaxdeg / 2 + 1));
            terms[k] = (milnor_term){(uint32_t)ds, (uint32_t)(rng_next() % B.dim[ds]), k * 64};
        }
        for (uint32_t i = 0; i < nj; ++i) {
            deg_t dr = rlo + (deg_t)(rng_next() % (uint64_t)(rspan + 1));
            uint32_t idx = run == 0 && i % 2 ? 0 : (uint32_t)(rng_next() % B.dim[dr]);   /* 0: Sq(dr) */
            jobs[i] = (milnor_row_job){(uint32_t)dr, idx, 0, nt};
        }
        milnor_mul_batch_search(&B, jobs, nj, terms, want, stride);
        pairs += (uint64_t)nj * nt;
        void (*fns[])(const milnor_basis *, const milnor_row_job *, size_t, const milnor_term *, uint64_t *,
                      size_t) = {milnor_mul_batch, milnor_mul_batch_halves, batch_avx2, batch_avx512};
        for (int f = 0; f < 4; ++f) {
            if (f == 3 && !milnor_simd_supported(MILNOR_SIMD_AVX512)) break;
            memset(got, 0, (size_t)nj * stride * 8);
            fns[f](&B, jobs, nj, terms, got, stride);
            if (memcmp(got, want, (size_t)nj * stride * 8)) {
                ++bad;
                diag("path %d differs from the search (R of degree %d..%d)", f, rlo, rlo + rspan);
            }
        }
        free(jobs);
        free(terms);
        free(want);
        free(got);
    }
    milnor_basis_clear(&B);
    ok(bad == 0, "long runs of jobs on one term list: the halves' kept rows, cleared as they fill, agree with "
                 "the search (%llu pairs)", (unsigned long long)pairs);
}

/* The two vector paths of the halves' test against each other and the one-by-one products, on
 * random batches whose term lists end anywhere in a group of 16 or 64 lanes (1..300 terms), long
 * R and S, and A(2) (hash index). (t-chunks.sh replays a run's captured chunks through both in
 * milnor_bench.) */
static void test_simd_paths(void)
{
    uint64_t count = 0;
    memset(path_bad, 0, sizeof path_bad);
    for (int it = 0; it < 12; ++it) {
        batch_case(&A, 30, 20 + 8 * it, (uint32_t)(it % 5), 1 + (uint32_t)(rng_next() % 300), 30 + 6 * it, 4000, &count);
        batch_case(&A, 60, 40, 0, 1 + (uint32_t)it * 11, 60, 2000, &count);
    }
    milnor_profile p = milnor_profile_an(2);
    milnor_basis B;
    if (milnor_basis_init(&B, milnor_profile_top_degree(&p), &p) < 0) bail("init A(2)");
    for (int it = 0; it < 4; ++it) batch_case(&B, 50, 23, 0, 150, 23, 300, &count);
    milnor_basis_clear(&B);
    ok(path_bad[3] == 0, "AVX2 path (milnor_mul_batch_simd) = one-by-one (%llu products)", (unsigned long long)count);
    if (milnor_simd_supported(MILNOR_SIMD_AVX512))
        ok(path_bad[4] == 0, "AVX-512 path = AVX2 path = one-by-one, bit for bit (%llu products)",
           (unsigned long long)count);
    else
        skip("this CPU has no AVX-512BW: the AVX-512 path is not run");
    ok(milnor_simd_default() == (getenv("EXTFLOW_MILNOR_SIMD") && !strcmp(getenv("EXTFLOW_MILNOR_SIMD"), "avx2")
                                     ? MILNOR_SIMD_AVX2
                                     : milnor_simd_supported(MILNOR_SIMD_AVX512) ? MILNOR_SIMD_AVX512
                                                                                 : MILNOR_SIMD_AVX2),
       "the default path: AVX-512 where supported unless EXTFLOW_MILNOR_SIMD=avx2 (here %s)",
       milnor_simd_default() == MILNOR_SIMD_AVX512 ? "AVX-512" : "AVX2");
}

/* ---------------------------------------------------------------- profiles */

static void test_nassau_sequence(void)
{
    static const int seq[][6] = {{0}, {1, 1}, {2, 1, 1}, {2, 2, 1}, {3, 2, 1, 1}, {3, 2, 2, 1},
        {3, 3, 2, 1}, {4, 3, 2, 1, 1}, {4, 3, 2, 2, 1}, {4, 3, 3, 2, 1}, {4, 4, 3, 2, 1},
        {5, 4, 3, 2, 1, 1}};           /* seq[k] = {len, h...} */
    static const deg_t top[] = {0, 1, 4, 6, 13, 19, 23, 38, 52, 64, 72, 103};
    milnor_profile p = milnor_profile_full();
    p.truncated = 1;
    int bad_seq = 0, bad_top = 0, bad_dim = 0;
    for (int k = 0; k < 12; ++k) {
        int same = p.len == seq[k][0];
        for (int i = 0; same && i < p.len; ++i) same = p.h[i] == seq[k][i + 1];
        bad_seq += !same;
        bad_top += milnor_profile_top_degree(&p) != top[k];
        uint64_t total;
        uint32_t top_dim;
        int hsum = 0;
        for (int i = 0; i < p.len; ++i) hsum += p.h[i];
        profile_total(&p, &total, &top_dim);
        bad_dim += !milnor_profile_is_valid(&p) || total != 1ull << hsum || top_dim != 1;
        milnor_profile_next_nassau(&p);
    }
    ok(bad_seq == 0, "next_nassau: [] [1] [1,1] [2,1] [2,1,1] ... [4,3,2,1] [4,3,2,1,1]");
    ok(bad_top == 0, "top_degree matches the table of Nassau's sequence");
    ok(bad_dim == 0, "Nassau profiles are valid, of dimension 2^sum(h), one top element");
}

static milnor_profile make_profile(int truncated, int len, const int *h)
{
    milnor_profile p = milnor_profile_full();
    p.truncated = truncated;
    p.len = len;
    for (int i = 0; i < len; ++i) p.h[i] = (uint8_t)h[i];
    return p;
}

static void test_profile_validity(void)
{
    int good = 1;
    for (int n = 0; n < 6; ++n) {
        milnor_profile p = milnor_profile_an(n);
        good &= milnor_profile_is_valid(&p);
    }
    milnor_profile full = milnor_profile_full();
    good &= milnor_profile_is_valid(&full);
    ok(good, "is_valid accepts A(0)..A(5) and A");
    static const int h12[] = {1, 2}, h2[] = {2}, h31[] = {3, 1}, h221[] = {2, 2, 1};
    milnor_profile p12 = make_profile(1, 2, h12), p2 = make_profile(1, 1, h2),
                   p31 = make_profile(1, 2, h31), p221 = make_profile(1, 3, h221);
    ok(!milnor_profile_is_valid(&p12) && !milnor_profile_is_valid(&p2) &&
       !milnor_profile_is_valid(&p31) && milnor_profile_is_valid(&p221),
       "is_valid rejects [1,2], [2], [3,1] (truncated), accepts [2,2,1]");
    milnor_profile a1 = milnor_profile_an(1);
    milnor_elt x = sq1(3), y = sq1(4);
    ok(milnor_profile_slot_max(&a1, 0) == 3 && milnor_profile_slot_max(&a1, 2) == 0 &&
       milnor_profile_slot_max(&full, 3) == UINT32_MAX && milnor_profile_contains(&a1, &x) &&
       !milnor_profile_contains(&a1, &y), "slot_max and contains on A(1) and A");
    static const int h210[] = {2, 1, 0}, h21[] = {2, 1};
    milnor_profile a1z = make_profile(1, 3, h210), a1u = make_profile(0, 2, h21), a2 = milnor_profile_an(2),
                   a1b = make_profile(1, 2, h21);
    ok(milnor_profile_equal(&a1, &a1b) && milnor_profile_equal(&a1, &a1z) && !milnor_profile_equal(&a1, &a1u) &&
       !milnor_profile_equal(&a1, &a2) && !milnor_profile_equal(&a1, &full) && milnor_profile_equal(&full, &full),
       "profile_equal: A(1) = [2,1] = [2,1,0] (truncated), not [2,1] untruncated, A(2) or A");
}

/* Products inside A(2): terms stay in A(2); the profile basis's index agrees with its list. */
static void test_profile_products(void)
{
    milnor_profile p = milnor_profile_an(2);
    milnor_basis B;
    if (milnor_basis_init(&B, milnor_profile_top_degree(&p), &p) < 0) bail("init A(2)");
    int bad = 0;
    for (deg_t d = 0; d <= B.max_degree; ++d)
        for (uint32_t k = 0; k < B.dim[d]; ++k) bad += milnor_index(&B, &B.elts[d][k]) != k;
    for (deg_t dr = 0; dr <= B.max_degree; ++dr)
        for (deg_t ds = 0; dr + ds <= B.max_degree; ++ds)
            for (uint32_t i = 0; i < B.dim[dr]; ++i)
                for (uint32_t k = 0; k < B.dim[ds]; ++k) {
                    const milnor_elt *R = &B.elts[dr][i], *S = &B.elts[ds][k];
                    uint64_t sub[VW] = {0}, full[VW], mapped[VW] = {0};
                    milnor_mul_into(&B, R, S, sub, 0);
                    product(R, S, full);
                    deg_t d = dr + ds;
                    for (uint32_t j = 0; j < B.dim[d]; ++j)       /* sub -> full basis */
                        if (sub[j >> 6] >> (j & 63) & 1) {
                            uint32_t f = milnor_index(&A, &B.elts[d][j]);
                            mapped[f >> 6] ^= 1ull << (f & 63);
                        }
                    bad += !vec_eq(mapped, full);
                }
    milnor_basis_clear(&B);
    ok(bad == 0, "A(2) basis: hash index round trip, products agree with those in A");
}

/* ---------------------------------------------------------------- split search (GPU) */

/* mm_split: for nparts = 2, 3, 8, 32 the parts of a product visit disjoint sets of matrices
 * whose union is the unsplit search's: same number of leaves, same XOR of T indices. */
static void test_split_search(int pairs)
{
    int bad = 0, split_useful = 0;
    static const uint32_t nparts[] = {2, 3, 8, 32};
    for (int n = 0; n < pairs; ++n) {
        deg_t dr = (deg_t)(1 + rng_next() % 60), ds = (deg_t)(1 + rng_next() % 40);
        const milnor_elt *R = random_elt(dr), *S = random_elt(ds);
        mm_search s;
        uint32_t t[2 * MM_SIDE];
        uint64_t leaves = 0, hash = 0;
        int len;
        if (!mm_setup(&s, R, S)) continue;
        while ((len = mm_next(&s, t)) >= 0) {
            ++leaves;
            hash ^= (uint64_t)milnor_seqno_index(A.seq_g, dr + ds, t, (uint32_t)len) * 0x9e3779b97f4a7c15ull;
        }
        for (size_t q = 0; q < sizeof nparts / sizeof *nparts; ++q) {
            uint64_t l2 = 0, h2 = 0, biggest = 0;
            for (uint32_t p = 0; p < nparts[q]; ++p) {
                uint64_t lp = 0;
                mm_setup(&s, R, S);
                mm_split(&s, p, nparts[q]);
                while ((len = mm_next(&s, t)) >= 0) {
                    ++lp;
                    h2 ^= (uint64_t)milnor_seqno_index(A.seq_g, dr + ds, t, (uint32_t)len) * 0x9e3779b97f4a7c15ull;
                }
                l2 += lp;
                if (lp > biggest) biggest = lp;
            }
            bad += l2 != leaves || h2 != hash;
            split_useful += leaves >= 16 && biggest < leaves;
        }
    }
    ok(bad == 0, "split search: the parts of %d random products together visit each matrix once", pairs);
    ok(split_useful > 0, "split search: some long products are shared between parts (%d cases)", split_useful);
}

/* milnor_count_dims (the algebra command's path, no element table) gives the dims of the
 * basis milnor_basis_init builds: all of A, and the profiles of Nassau's sequence (bounded
 * slots) up to the top degree and past it (dims 0 there). */
static void test_count_dims(void)
{
    uint32_t dim[INDEX_DEG + 1];
    int bad = milnor_count_dims(INDEX_DEG, NULL, dim) != 0;
    for (deg_t d = 0; d <= INDEX_DEG && !bad; ++d) bad += dim[d] != A.dim[d];
    milnor_profile p = { .truncated = 1, .len = 0 };
    for (int k = 0; k < 9 && !bad; ++k, milnor_profile_next_nassau(&p)) {
        milnor_basis B;
        deg_t top = milnor_profile_top_degree(&p) + 3;
        if (top > INDEX_DEG) top = INDEX_DEG;
        if (milnor_basis_init(&B, top, &p) < 0) bail("milnor_basis_init profile");
        bad += milnor_count_dims(top, &p, dim) != 0;
        for (deg_t d = 0; d <= top; ++d) bad += dim[d] != B.dim[d];
        milnor_basis_clear(&B);
    }
    ok(bad == 0, "milnor_count_dims equals the built bases' dims (A to degree %d, 9 Nassau profiles)", INDEX_DEG);
    uint32_t big[MILNOR_MAX_DEGREE + 1];
    ok(milnor_count_dims(MILNOR_MAX_DEGREE, NULL, big) == 0 && big[1000] == 44176121u &&
       big[MILNOR_MAX_DEGREE] == 3916110041u, "dims at degrees 1000 and 2046 (no table built)");
    ok(milnor_basis_bytes(1000, NULL) > ((uint64_t)200 << 30) && milnor_basis_bytes(60, NULL) < (1 << 20) &&
       milnor_count_dims(MILNOR_MAX_DEGREE + 1, NULL, big) == -1,
       "milnor_basis_bytes: degree 1000 needs > 200 GiB, degree 60 < 1 MiB; degree 2047 refused");
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    seed_from_env();
    if (milnor_basis_init(&A, INDEX_DEG, NULL) < 0) bail("milnor_basis_init failed");
    test_reference_dims();
    test_first_degrees();
    test_an_dims();
    test_count_dims();
    test_index_roundtrip();
    test_examples();
    test_associativity(20000);
    test_adem();
    test_brute_force(24);
    test_mul_each(40);
    test_batch();
    test_batch_paths();
    test_nested_bounds();
    test_simd_paths();
    test_halves_scratch();
    test_nassau_sequence();
    test_profile_validity();
    test_profile_products();
    test_split_search(3000);
    milnor_basis_clear(&A);
    return done_testing();
}
