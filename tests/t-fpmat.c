/* t-fpmat.c — TAP tests of the F_p matrices (algebra/fpmat.c) for p = 3, 5, 7, 11 and 127 (the
 * largest p the byte layout allows), on random matrices of many shapes and ranks: the RREF
 * byte for byte against a plain Gauss-Jordan on ints written here, the row space kept, the
 * kernel from [A | 0 | I] (K·A = 0, K of full rank, rank + nullity = rows) and the
 * quasi-inverse (QI(x·A)·A = x·A); and the table method (fpmat_rref_m4rm, what fpmat_rref runs)
 * against the Gauss-Jordan (fpmat_rref_naive) at every panel width, on the edge sizes and on
 * staircase-like sparse matrices as a resolution reduces, up to 700 rows; and
 * fpmat_rref_split (the kernel's part only) and fpmat_rref_split_unsorted (the same, rows left in
 * place) against the same RREF. Env: SEED (default
 * time). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/fpmat.h"
#include "tests/rng.h"
#include "tests/tap.h"

/* ---------------------------------------------------------------- the reference, on ints */

typedef struct imat { uint32_t p, rows, cols; int *a; } imat;

static int *ient(const imat *m, uint32_t i, uint32_t c) { return &m->a[(size_t)i * m->cols + c]; }

static imat imat_from(const fpmat *m)
{
    imat r = { m->p, m->rows, m->cols, calloc((size_t)m->rows * m->cols + 1, sizeof(int)) };
    for (uint32_t i = 0; i < m->rows; ++i)
        for (uint32_t c = 0; c < m->cols; ++c) *ient(&r, i, c) = (int)fpmat_get(m, i, c);
    return r;
}

/* Textbook Gauss-Jordan mod p: returns the rank; m in RREF. */
static uint32_t naive_rref(imat *m)
{
    int p = (int)m->p;
    uint32_t rank = 0;
    for (uint32_t c = 0; c < m->cols && rank < m->rows; ++c) {
        uint32_t r = rank;
        while (r < m->rows && *ient(m, r, c) == 0) ++r;
        if (r == m->rows) continue;
        for (uint32_t k = 0; k < m->cols; ++k) {
            int t = *ient(m, r, k);
            *ient(m, r, k) = *ient(m, rank, k);
            *ient(m, rank, k) = t;
        }
        int inv = 1;
        while (inv * *ient(m, rank, c) % p != 1) ++inv;
        for (uint32_t k = 0; k < m->cols; ++k) *ient(m, rank, k) = *ient(m, rank, k) * inv % p;
        for (uint32_t i = 0; i < m->rows; ++i) {
            int f = *ient(m, i, c);
            if (i == rank || f == 0) continue;
            for (uint32_t k = 0; k < m->cols; ++k)
                *ient(m, i, k) = ((*ient(m, i, k) - f * *ient(m, rank, k)) % p + p) % p;
        }
        ++rank;
    }
    return rank;
}

/* x (len rows) times m: out (m->cols entries). */
static void vec_times(const fpmat *m, const uint8_t *x, uint32_t *out)
{
    for (uint32_t c = 0; c < m->cols; ++c) out[c] = 0;
    for (uint32_t i = 0; i < m->rows; ++i)
        for (uint32_t c = 0; c < m->cols; ++c) out[c] = (out[c] + x[i] * fpmat_get(m, i, c)) % m->p;
}

/* ---------------------------------------------------------------- random matrices */

/* kind 0: uniform; 1: sparse (about 1 in 8 non-zero); 2: product of rows x k and k x cols,
 * k small (rank at most k); 3: rows repeated as combinations of a few others. */
static void fill_random(fpmat *m, int kind)
{
    uint32_t p = m->p;
    if (kind == 2) {
        uint32_t k = (uint32_t)(rng_next() % 8 + 1);
        uint8_t *b = malloc((size_t)m->rows * k + 1), *c = malloc((size_t)k * m->cols + 1);
        for (size_t i = 0; i < (size_t)m->rows * k; ++i) b[i] = (uint8_t)(rng_next() % p);
        for (size_t i = 0; i < (size_t)k * m->cols; ++i) c[i] = (uint8_t)(rng_next() % p);
        for (uint32_t i = 0; i < m->rows; ++i)
            for (uint32_t j = 0; j < m->cols; ++j) {
                uint32_t s = 0;
                for (uint32_t l = 0; l < k; ++l) s += (uint32_t)b[i * k + l] * c[l * m->cols + j];
                fpmat_set(m, i, j, s % p);
            }
        free(b);
        free(c);
        return;
    }
    for (uint32_t i = 0; i < m->rows; ++i)
        for (uint32_t j = 0; j < m->cols; ++j)
            fpmat_set(m, i, j, kind == 1 && rng_next() % 8 ? 0 : (uint32_t)(rng_next() % p));
    if (kind == 3 && m->rows > 2)
        for (uint32_t i = m->rows / 2; i < m->rows; ++i) {
            memset(fpmat_row(m, i), 0, m->cols);
            for (int t = 0; t < 3; ++t)
                fpvec_addmul(fpmat_row(m, i), fpmat_row(m, (uint32_t)(rng_next() % (m->rows / 2))),
                             (uint32_t)(rng_next() % p), m->cols, p);
        }
}

/* ---------------------------------------------------------------- checks */

typedef struct tally { int rref, span, kernel, qi, pad; long cases; } tally;

static void check_one(uint32_t p, uint32_t rows, uint32_t cols, int kind, tally *t)
{
    fpmat a, r;
    fpmat_init(&a, p, rows, cols);
    fill_random(&a, kind);
    fpmat_copy(&r, &a);
    int32_t *piv = malloc((cols + 1) * sizeof *piv);
    int rank = fpmat_rref(&r, piv);

    /* RREF against the reference, byte for byte, and the pivots */
    imat ref = imat_from(&a);
    uint32_t rrank = naive_rref(&ref);
    int good = rank == (int)rrank;
    for (uint32_t i = 0; good && i < rows; ++i)
        for (uint32_t c = 0; c < cols; ++c)
            if ((int)fpmat_get(&r, i, c) != *ient(&ref, i, c)) { good = 0; break; }
    uint32_t k = 0;                          /* pivots[c]: the reference's pivot columns, in order */
    for (uint32_t c = 0; good && c < cols; ++c) {
        int is_pivot = k < rrank && *ient(&ref, k, c) != 0;
        for (uint32_t b = 0; is_pivot && b < c; ++b) is_pivot = *ient(&ref, k, b) == 0;
        if (is_pivot != (piv[c] >= 0) || (is_pivot && (uint32_t)piv[c] != k)) good = 0;
        k += is_pivot;
    }
    good &= k == rrank;
    t->rref += !good;

    /* row space: every row of A reduces to zero against the RREF's pivot rows, and the pivot
     * rows are rank independent rows (the RREF has rank non-zero rows) */
    int span = 1;
    uint8_t *v = malloc(cols + 64);
    for (uint32_t i = 0; span && i < rows; ++i) {
        memcpy(v, fpmat_row(&a, i), cols);
        for (uint32_t c = 0; c < cols; ++c)
            if (piv[c] >= 0 && v[c]) fpvec_addmul(v, fpmat_row(&r, (uint32_t)piv[c]), p - v[c], cols, p);
        for (uint32_t c = 0; c < cols; ++c) span &= v[c] == 0;
    }
    for (uint32_t i = (uint32_t)rank; span && i < rows; ++i)
        for (uint32_t c = 0; c < cols; ++c) span &= fpmat_get(&r, i, c) == 0;
    for (uint32_t i = 0; i < rows; ++i)         /* padding stays zero */
        for (uint32_t c = cols; c < r.stride; ++c) t->pad += fpmat_row(&r, i)[c] != 0;
    t->span += !span;

    /* kernel and quasi-inverse from [A | 0 | I] */
    fpmat aug, ker;
    fpqi qi;
    fpmat_augment_identity(&aug, &a);
    int32_t *apiv = malloc((aug.cols + 1) * sizeof *apiv);
    int arank = fpmat_rref(&aug, apiv);
    int kgood = fpmat_kernel_from_rref(&aug, cols, (uint32_t)arank, apiv, &ker) == 0;
    kgood &= ker.rows + (uint32_t)rank == rows;                   /* rank + nullity = rows */
    uint32_t *img = malloc((cols + 1) * sizeof *img);
    for (uint32_t k = 0; kgood && k < ker.rows; ++k) {            /* K·A = 0 */
        vec_times(&a, fpmat_row(&ker, k), img);
        for (uint32_t c = 0; c < cols; ++c) kgood &= img[c] == 0;
    }
    if (kgood && ker.rows) {                                      /* K has full rank */
        fpmat kc;
        fpmat_copy(&kc, &ker);
        kgood &= fpmat_rref(&kc, NULL) == (int)ker.rows;
        fpmat_clear(&kc);
    }
    t->kernel += !kgood;

    int qgood = fpmat_quasi_inverse_from_rref(&aug, cols, (uint32_t)arank, apiv, &qi) == 0 &&
                qi.preimage.rows == (uint32_t)rank;
    uint8_t *x = malloc(rows + 1), *x2 = calloc(rows + 1, 1), *y = malloc(cols + 1);
    uint32_t *img2 = malloc((cols + 1) * sizeof *img2);
    for (int trial = 0; qgood && trial < 3; ++trial) {
        for (uint32_t i = 0; i < rows; ++i) x[i] = (uint8_t)(rng_next() % p);
        vec_times(&a, x, img);
        for (uint32_t c = 0; c < cols; ++c) y[c] = (uint8_t)img[c];
        memset(x2, 0, rows + 1);
        fpqi_apply(&qi, y, x2);
        vec_times(&a, x2, img2);
        qgood &= memcmp(img, img2, cols * sizeof *img) == 0;
    }
    t->qi += !qgood;
    t->cases++;

    free(x); free(x2); free(y); free(img); free(img2); free(v); free(piv); free(apiv); free(ref.a);
    fpqi_clear(&qi);
    fpmat_clear(&ker);
    fpmat_clear(&aug);
    fpmat_clear(&a);
    fpmat_clear(&r);
}

/* A matrix like those a resolution reduces (docs/algorithms.md §10): rows x cols, each row a
 * few non-zero entries near its place on a staircase and a few anywhere, the last rows sums
 * of earlier ones (rank about rows / 2), and [A | 0 | I] of it when augment. */
static void fill_staircase(fpmat *m, uint32_t per_row)
{
    uint32_t p = m->p;
    for (uint32_t i = 0; i < m->rows; ++i) {
        if (!m->cols) break;
        uint32_t at = (uint32_t)((uint64_t)i * m->cols / (m->rows ? m->rows : 1));
        for (uint32_t e = 0; e < per_row; ++e) {
            uint32_t c = e % 2 ? (uint32_t)(rng_next() % m->cols) : (at + (uint32_t)(rng_next() % 16)) % m->cols;
            fpmat_set(m, i, c, (uint32_t)(1 + rng_next() % (p - 1)));
        }
    }
    for (uint32_t i = m->rows / 2; i < m->rows && i > 1; i += 2) {
        memset(fpmat_row(m, i), 0, m->cols);
        for (int t = 0; t < 2; ++t)
            fpvec_addmul(fpmat_row(m, i), fpmat_row(m, (uint32_t)(rng_next() % i)), (uint32_t)(1 + rng_next() % (p - 1)),
                         m->cols, p);
    }
}

/* fpmat_rref_naive against fpmat_rref_m4rm_tuned at every panel width k (and the default):
 * returns the number of (matrix, k) pairs that differ in rank, bytes or pivots. */
static int methods_differ(const fpmat *a)
{
    fpmat ref;
    fpmat_copy(&ref, a);
    int32_t *rp = malloc((a->cols + 1) * sizeof *rp), *pv = malloc((a->cols + 1) * sizeof *pv);
    int rank = fpmat_rref_naive(&ref, rp), bad = 0;
    for (int k = 0; k <= 8; ++k) {
        fpmat w;
        fpmat_copy(&w, a);
        int r = k ? fpmat_rref_m4rm_tuned(&w, pv, k) : fpmat_rref_with(&w, pv, FP_RREF_OWN);
        bad += r != rank || !fpmat_equal(&w, &ref) || memcmp(pv, rp, a->cols * sizeof *pv) != 0;
        for (uint32_t i = 0; i < w.rows; ++i)
            for (uint32_t c = w.cols; c < w.stride; ++c) bad += fpmat_row(&w, i)[c] != 0;
        fpmat_clear(&w);
    }
    free(rp);
    free(pv);
    fpmat_clear(&ref);
    return bad;
}

/* fpmat_rref_split(a, split) against the RREF: the same rank and pivots, the rows with a pivot
 * at or right of split equal to the RREF's (the kernel's part), zero rows below the rank, each
 * row above a pivot row (its pivot 1, zero left of it), and the row space kept (the RREF of the
 * result is the RREF). Returns 1 where any of it fails. */
static int split_differs(const fpmat *a, uint32_t split)
{
    fpmat ref, w;
    fpmat_copy(&ref, a);
    fpmat_copy(&w, a);
    int32_t *rp = malloc((a->cols + 1) * sizeof *rp), *pv = malloc((a->cols + 1) * sizeof *pv);
    int rank = fpmat_rref_naive(&ref, rp), r = fpmat_rref_split(&w, split, pv), bad = r != rank;
    bad |= memcmp(pv, rp, a->cols * sizeof *pv) != 0;
    for (uint32_t c = 0; !bad && c < a->cols; ++c) {
        if (pv[c] < 0) continue;
        const uint8_t *row = fpmat_row(&w, (uint32_t)pv[c]);
        for (uint32_t e = 0; e < c; ++e) bad |= row[e] != 0;
        bad |= row[c] != 1;
        if (c >= split) bad |= memcmp(row, fpmat_row(&ref, (uint32_t)pv[c]), a->cols) != 0;
    }
    for (uint32_t i = (uint32_t)(rank > 0 ? rank : 0); !bad && i < a->rows; ++i)
        for (uint32_t c = 0; c < a->stride; ++c) bad |= fpmat_row(&w, i)[c] != 0;
    /* the unsorted form: the same rows where pivot_rows points, zero rows elsewhere, and the
     * same kernel read through either (split a multiple of 64: I's first column of some A) */
    fpmat u;
    fpmat_copy(&u, a);
    int32_t *uv = malloc((a->cols + 1) * sizeof *uv);
    char *pointed = calloc(a->rows + 1, 1);
    bad |= fpmat_rref_split_unsorted(&u, split, uv) != rank;
    for (uint32_t c = 0; !bad && c < a->cols; ++c) {
        bad |= (uv[c] >= 0) != (pv[c] >= 0);
        if (uv[c] < 0 || bad) continue;
        bad |= pointed[uv[c]] || memcmp(fpmat_row(&u, (uint32_t)uv[c]), fpmat_row(&w, (uint32_t)pv[c]), u.stride) != 0;
        pointed[uv[c]] = 1;
    }
    for (uint32_t i = 0; !bad && i < a->rows; ++i)
        for (uint32_t c = 0; !pointed[i] && c < a->stride; ++c) bad |= fpmat_row(&u, i)[c] != 0;
    if (!bad && split % 64 == 0 && split <= a->cols) {
        fpmat ks = { 0 }, ku = { 0 };
        bad |= fpmat_kernel_from_rref(&w, split, (uint32_t)rank, pv, &ks) != 0 ||
               fpmat_kernel_from_rref(&u, split, (uint32_t)rank, uv, &ku) != 0 || !fpmat_equal(&ks, &ku);
        fpmat_clear(&ks);
        fpmat_clear(&ku);
    }
    free(pointed);
    free(uv);
    fpmat_clear(&u);
    fpmat_rref_naive(&w, NULL);
    bad |= !fpmat_equal(&w, &ref);
    free(rp);
    free(pv);
    fpmat_clear(&ref);
    fpmat_clear(&w);
    return bad;
}

int main(void)
{
    rng_seed_from_env();
    static const uint32_t primes[] = { 3, 5, 7, 11, 127 };
    static const uint32_t sizes[] = { 0, 1, 2, 31, 32, 33, 63, 64, 65, 97, 130 };
    const size_t ns = sizeof sizes / sizeof *sizes;
    plan_lazy();
    for (size_t k = 0; k < sizeof primes / sizeof *primes; ++k) {
        uint32_t p = primes[k];
        tally t = { 0 };
        for (size_t i = 0; i < ns; ++i)
            for (size_t j = 0; j < ns; ++j)
                check_one(p, sizes[i], sizes[j], (int)((i + j) % 4), &t);
        for (int trial = 0; trial < 40; ++trial)                    /* random shapes up to 300 */
            check_one(p, (uint32_t)(rng_next() % 300), (uint32_t)(rng_next() % 300), trial % 4, &t);
        ok(t.rref == 0, "p=%u: RREF and pivots equal plain Gauss-Jordan on %ld matrices", p, t.cases);
        ok(t.span == 0 && t.pad == 0, "p=%u: row space kept, zero rows below the rank, padding zero", p);
        ok(t.kernel == 0, "p=%u: kernel from [A | 0 | I]: K·A = 0, K of full rank, rank + nullity = rows", p);
        ok(t.qi == 0, "p=%u: quasi-inverse: QI(x·A)·A = x·A", p);
    }
    /* the table method (fpmat_m4rm.c) against the Gauss-Jordan it replaced, panel widths 1 to 8:
     * uniform, sparse, low-rank and repeated rows at the edge sizes, and staircase matrices and
     * their [A | 0 | I] up to 700 rows (many panels; tables and pivot-by-pivot clearing) */
    static const uint32_t mprimes[] = { 3, 5, 7, 13, 127 };
    for (size_t k = 0; k < sizeof mprimes / sizeof *mprimes; ++k) {
        uint32_t p = mprimes[k];
        long cases = 0, bad = 0, scases = 0, sbad = 0;
        for (size_t i = 0; i < ns; ++i)
            for (size_t j = 0; j < ns; ++j) {
                fpmat a;
                fpmat_init(&a, p, sizes[i], sizes[j]);
                fill_random(&a, (int)((i + 2 * j) % 4));
                bad += methods_differ(&a) != 0;
                ++cases;
                sbad += split_differs(&a, sizes[j] / 2) + split_differs(&a, 0);
                scases += 2;
                fpmat_clear(&a);
            }
        for (int trial = 0; trial < 12; ++trial) {
            uint32_t rows = (uint32_t)(rng_next() % 700), cols = (uint32_t)(rng_next() % 700);
            fpmat a, aug;
            fpmat_init(&a, p, rows, cols);
            if (trial % 3 == 2) fill_random(&a, trial % 4);
            else fill_staircase(&a, 1 + (uint32_t)(rng_next() % 12));
            bad += methods_differ(&a) != 0;
            fpmat_augment_identity(&aug, &a);
            bad += methods_differ(&aug) != 0;
            cases += 2;
            sbad += split_differs(&aug, fpmat_segment_start(cols)) + split_differs(&a, cols) +
                    split_differs(&aug, (uint32_t)(rng_next() % (aug.cols + 1)));
            scases += 3;
            fpmat_clear(&aug);
            fpmat_clear(&a);
        }
        ok(bad == 0, "p=%u: the table method (k = 1..8 and the default) gives the Gauss-Jordan's RREF and pivots "
           "byte for byte on %ld matrices (%ld differ)", p, cases, bad);
        ok(sbad == 0, "p=%u: fpmat_rref_split (split at I's start, at the end, anywhere): the RREF's rank, pivots "
           "and rows from split on, echelon rows above, the row space kept; fpmat_rref_split_unsorted: the same rows "
           "through its pivot rows, the same kernel, on %ld matrices (%ld differ)", p, scases,
           sbad);
    }
    fpmat m;
    ok(fpmat_init(&m, 2, 3, 3) == -1 && fpmat_init(&m, 9, 3, 3) == -1 && fpmat_init(&m, 131, 3, 3) == -1,
       "p = 2, 9 and 131 are refused");
    int inv_ok = 1;
    for (uint32_t p = 3; p < 128; p += 2) {
        int prime = 1;
        for (uint32_t d = 3; d * d <= p; d += 2) prime &= p % d != 0;
        for (uint32_t a = 1; prime && a < p; ++a) inv_ok &= fp_inverse(a, p) * a % p == 1;
    }
    ok(inv_ok, "fp_inverse for every odd prime below 128");
    /* fpvec_addmul (a byte shuffle below 16, one product at a time above) against dst + c·src mod p
     * entry by entry, at every multiplier and lengths around the 32-byte blocks */
    long vbad = 0, vcases = 0;
    static const uint32_t vp[] = { 3, 5, 7, 11, 13, 17, 31, 127 };
    for (size_t pi = 0; pi < sizeof vp / sizeof *vp; ++pi)
        for (uint32_t c = 0; c < vp[pi]; ++c)
            for (size_t n = 0; n < 100; n += 1 + n / 8) {
                uint8_t src[128], dst[128], want[128];
                for (size_t k = 0; k < sizeof dst; ++k) {
                    src[k] = (uint8_t)(rng_next() % vp[pi]);
                    dst[k] = want[k] = (uint8_t)(rng_next() % vp[pi]);
                }
                for (size_t k = 0; k < n; ++k) want[k] = (uint8_t)((want[k] + c * src[k]) % vp[pi]);
                fpvec_addmul(dst, src, c, n, vp[pi]);
                vbad += memcmp(dst, want, sizeof dst) != 0;
                vcases++;
            }
    ok(vbad == 0, "fpvec_addmul equals dst + c·src mod p entry by entry (p = 3 .. 127, every c, %ld vectors, %ld differ)",
       vcases, vbad);
    return done_testing();
}
