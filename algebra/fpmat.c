/* fpmat.c — dense F_p matrices, one byte per entry, and their RREF, kernel and quasi-inverse.
 * See fpmat.h and docs/algorithms.md §10. */
#include "algebra/fpmat.h"

#include <stdlib.h>
#include <string.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

static int prime_ok(uint32_t p)
{
    if (p < 3 || p > FPMAT_MAX_PRIME || p % 2 == 0) return 0;
    for (uint32_t d = 3; d * d <= p; d += 2)
        if (p % d == 0) return 0;
    return 1;
}

/* fpmat_init's shape and storage, the entries left unset (the caller writes every byte). */
static int init_unset(fpmat *m, uint32_t p, uint32_t rows, uint32_t cols)
{
    memset(m, 0, sizeof *m);
    if (!prime_ok(p)) return -1;
    m->p = p;
    m->rows = rows;
    m->cols = cols;
    m->stride = (cols + 63) & ~63u;
    if (cols > UINT32_MAX - 63) return -1;
    size_t bytes = (size_t)rows * m->stride;
    m->data = aligned_alloc(64, bytes ? bytes : 64);
    if (!m->data) {
        memset(m, 0, sizeof *m);
        return -1;
    }
    return 0;
}

int fpmat_init(fpmat *m, uint32_t p, uint32_t rows, uint32_t cols)
{
    if (init_unset(m, p, rows, cols) != 0) return -1;
    memset(m->data, 0, (size_t)rows * m->stride);
    return 0;
}

void fpmat_clear(fpmat *m)
{
    free(m->data);
    memset(m, 0, sizeof *m);
}

int fpmat_copy(fpmat *dst, const fpmat *src)
{
    if (init_unset(dst, src->p, src->rows, src->cols) < 0) return -1;     /* every byte copied */
    memcpy(dst->data, src->data, (size_t)src->rows * src->stride);
    return 0;
}

int fpmat_equal(const fpmat *a, const fpmat *b)
{
    if (a->p != b->p || a->rows != b->rows || a->cols != b->cols) return 0;
    for (uint32_t i = 0; i < a->rows; ++i)
        if (memcmp(fpmat_row(a, i), fpmat_row(b, i), a->cols) != 0) return 0;
    return 1;
}

/* ---------------------------------------------------------------- row operations */

void fpvec_add(uint8_t *dst, const uint8_t *src, size_t n, uint32_t p)
{
    size_t k = 0;
#ifdef __AVX2__
    const __m256i pv = _mm256_set1_epi8((char)p);
    for (; k + 32 <= n; k += 32) {
        __m256i t = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)(dst + k)),
                                    _mm256_loadu_si256((const __m256i *)(src + k)));
        /* t < 2p <= 254; t - p wraps above t exactly when t < p */
        _mm256_storeu_si256((__m256i *)(dst + k), _mm256_min_epu8(t, _mm256_sub_epi8(t, pv)));
    }
#endif
    for (; k < n; ++k) {
        uint32_t t = (uint32_t)dst[k] + src[k];
        dst[k] = (uint8_t)(t >= p ? t - p : t);
    }
}

void fpvec_addmul(uint8_t *dst, const uint8_t *src, uint32_t c, size_t n, uint32_t p)
{
    if (c == 0) return;
    if (c == 1) { fpvec_add(dst, src, n, p); return; }
    size_t k = 0;
#ifdef __AVX2__
    if (p <= 16) {      /* c·y read from a 16-entry table by a byte shuffle (entries < p), then added */
        uint8_t t[16] = { 0 };
        for (uint32_t y = 0; y < p; ++y) t[y] = (uint8_t)(c * y % p);
        const __m256i tv = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
        const __m256i pv = _mm256_set1_epi8((char)p);
        for (; k + 32 <= n; k += 32) {
            __m256i m = _mm256_shuffle_epi8(tv, _mm256_loadu_si256((const __m256i *)(src + k)));
            __m256i u = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)(dst + k)), m);
            _mm256_storeu_si256((__m256i *)(dst + k), _mm256_min_epu8(u, _mm256_sub_epi8(u, pv)));
        }
    }
#endif
    for (; k < n; ++k) dst[k] = (uint8_t)((dst[k] + c * src[k]) % p);
}

/* ---------------------------------------------------------------- RREF */

static void swap_rows(uint8_t *a, uint8_t *b, size_t n)
{
    uint8_t tmp[256];
    for (size_t k = 0; k < n; k += sizeof tmp) {
        size_t len = n - k < sizeof tmp ? n - k : sizeof tmp;
        memcpy(tmp, a + k, len);
        memcpy(a + k, b + k, len);
        memcpy(b + k, tmp, len);
    }
}

int fpmat_rref(fpmat *m, int32_t *pivots) { return fpmat_rref_with(m, pivots, FP_RREF_AUTO); }

int fpmat_rref_with(fpmat *m, int32_t *pivots, enum fp_rref_method method)
{
    if (method == FP_RREF_NAIVE) return fpmat_rref_naive(m, pivots);
    return fpmat_rref_m4rm(m, pivots);
}

/* Gauss-Jordan, column by column. For each pivot the table mult holds c·(pivot row), c < p,
 * from the pivot's 32-byte block on (the pivot row is zero before its pivot), so that clearing
 * the pivot column of row i is one addition of mult[p - a_i]. */
int fpmat_rref_naive(fpmat *m, int32_t *pivots)
{
    const uint32_t p = m->p;
    const size_t stride = m->stride;
    uint8_t *mult = aligned_alloc(64, (size_t)p * (stride ? stride : 64));
    if (!mult) return -1;
    if (pivots)
        for (uint32_t c = 0; c < m->cols; ++c) pivots[c] = -1;
    uint32_t rank = 0;
    for (uint32_t c = 0; c < m->cols && rank < m->rows; ++c) {
        uint32_t r = rank;
        while (r < m->rows && fpmat_row(m, r)[c] == 0) ++r;
        if (r == m->rows) continue;
        size_t c0 = c & ~(size_t)31, len = stride - c0;
        uint8_t *prow = fpmat_row(m, rank);
        if (r != rank) swap_rows(prow + c0, fpmat_row(m, r) + c0, len);
        uint32_t inv = fp_inverse(prow[c], p);
        uint8_t *m1 = mult + stride, *row1 = prow + c0;
        for (size_t k = 0; k < len; ++k) row1[k] = (uint8_t)(row1[k] * inv % p);
        memcpy(m1 + c0, row1, len);
        for (uint32_t a = 2; a < p; ++a) {
            memcpy(mult + a * stride + c0, mult + (a - 1) * stride + c0, len);
            fpvec_add(mult + a * stride + c0, row1, len, p);
        }
        for (uint32_t i = 0; i < m->rows; ++i) {
            uint8_t *row = fpmat_row(m, i);
            uint32_t a = row[c];
            if (a == 0 || i == rank) continue;
            fpvec_add(row + c0, mult + (p - a) * stride + c0, len, p);
        }
        if (pivots) pivots[c] = (int32_t)rank;
        ++rank;
    }
    free(mult);
    return (int)rank;
}

/* ---------------------------------------------------------------- kernel and quasi-inverse */

int fpmat_augment_identity(fpmat *aug, const fpmat *a)
{
    uint32_t seg = fpmat_segment_start(a->cols);
    if (init_unset(aug, a->p, a->rows, seg + a->rows) < 0) return -1;
    for (uint32_t i = 0; i < a->rows; ++i) {            /* each byte written once */
        uint8_t *row = fpmat_row(aug, i);
        memcpy(row, fpmat_row(a, i), a->cols);
        memset(row + a->cols, 0, aug->stride - a->cols);
        row[seg + i] = 1;
    }
    return 0;
}

int fpmat_kernel_from_rref(const fpmat *aug, uint32_t a_cols, uint32_t rank, const int32_t *pivots,
                           fpmat *kernel)
{
    (void)rank;
    uint32_t seg = fpmat_segment_start(a_cols), src = aug->cols - seg, nullity = 0;
    for (uint32_t c = seg; c < aug->cols; ++c) nullity += pivots[c] >= 0;
    if (init_unset(kernel, aug->p, nullity, src) < 0) return -1;
    for (uint32_t c = seg, k = 0; c < aug->cols; ++c)
        if (pivots[c] >= 0) {       /* each byte written once */
            uint8_t *row = fpmat_row(kernel, k++);
            memcpy(row, fpmat_row(aug, (uint32_t)pivots[c]) + seg, src);
            memset(row + src, 0, kernel->stride - src);
        }
    return 0;
}

int fpmat_quasi_inverse_from_rref(const fpmat *aug, uint32_t a_cols, uint32_t rank, const int32_t *pivots,
                                  fpqi *qi)
{
    (void)rank;
    memset(qi, 0, sizeof *qi);
    uint32_t seg = fpmat_segment_start(a_cols), image = 0;
    for (uint32_t c = 0; c < a_cols; ++c) image += pivots[c] >= 0;
    qi->src_dim = aug->cols - seg;
    qi->tgt_dim = a_cols;
    qi->pivot_cols = malloc((image ? image : 1) * sizeof *qi->pivot_cols);
    if (!qi->pivot_cols || init_unset(&qi->preimage, aug->p, image, qi->src_dim) < 0) {
        fpqi_clear(qi);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t c = 0; c < a_cols; ++c) {
        if (pivots[c] < 0) continue;
        qi->pivot_cols[k] = (int32_t)c;
        uint8_t *row = fpmat_row(&qi->preimage, k);     /* each byte written once */
        memcpy(row, fpmat_row(aug, (uint32_t)pivots[c]) + seg, qi->src_dim);
        memset(row + qi->src_dim, 0, qi->preimage.stride - qi->src_dim);
        ++k;
    }
    return 0;
}

void fpqi_apply(const fpqi *qi, const uint8_t *y, uint8_t *x)
{
    for (uint32_t k = 0; k < qi->preimage.rows; ++k) {
        uint32_t c = y[qi->pivot_cols[k]];
        if (c) fpvec_addmul(x, fpmat_row(&qi->preimage, k), c, qi->src_dim, qi->preimage.p);
    }
}

void fpqi_clear(fpqi *qi)
{
    fpmat_clear(&qi->preimage);
    free(qi->pivot_cols);
    memset(qi, 0, sizeof *qi);
}
