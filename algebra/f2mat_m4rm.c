/* f2mat_m4rm.c — our own RREF: Gauss-Jordan by the method of four Russians (docs/algorithms.md
 * §3.3), written for f2mat's layout. Thread-safe: no globals, all scratch memory is
 * allocated per call (one block), so many threads may reduce different matrices at once.
 *
 * Columns are processed in panels of up to K = k * G pivots (G groups of k):
 *  1. Pivot search on a 64-bit window [c, c+64) of the rows not yet pivoted: each row's
 *     window bits are extracted once, and plain elimination on those words (one 64-bit op
 *     per row and pivot) finds the next pivots in column order; rows are swapped so the
 *     panel's pivot rows sit at [rank, rank + np). The search stops at K pivots or when the
 *     window is exhausted (then the remaining rows are zero on it).
 *  2. The np panel rows are fully reduced among themselves (plain Gauss-Jordan on the full
 *     rows from the window's word on; they are zero before it).
 *  3. Every other row (above and below) reads its bits at the panel's pivot columns: k bits
 *     per group give G table indices. Since the panel rows are fully reduced, the row's
 *     reduction is the XOR of one combination per group.
 *  4. The 2^k XOR combinations of each group are built by doubling, then XORed into those
 *     rows, a block of rows by a column tile at a time so the tables' tile stays in L2.
 * XORs run from the window's word to the largest "last nonzero word" of the panel rows
 * (tracked per row), which skips the untouched part of the I block of [A | 0 | I].
 * The pivot rows end at the top in pivot-column order and the rows below are zero, so the
 * result is the canonical RREF with no final sort.
 */
#include "algebra/f2mat.h"
#include "algebra/memacct.h"

#include <stdlib.h>
#include <string.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#define M4RM_KMAX 8
#define M4RM_GMAX 8

/* dst ^= src[0] ^ ... ^ src[n-1] over len words (len a multiple of 4; 32-byte aligned). */
static void xor_sum(uint64_t *restrict dst, const uint64_t *const *src, int n, size_t len)
{
    while (n > 0) {
        int m = n > 4 ? 4 : n;
        const uint64_t *a = src[0], *b = src[m > 1], *c = src[m > 2 ? 2 : 0], *d = src[m > 3 ? 3 : 0];
#ifdef __AVX2__
#define LD(p, w) _mm256_load_si256((const __m256i *)((p) + (w)))
        switch (m) {
        case 1:
            for (size_t w = 0; w < len; w += 4)
                _mm256_store_si256((__m256i *)(dst + w), _mm256_xor_si256(LD(dst, w), LD(a, w)));
            break;
        case 2:
            for (size_t w = 0; w < len; w += 4)
                _mm256_store_si256((__m256i *)(dst + w),
                                   _mm256_xor_si256(LD(dst, w), _mm256_xor_si256(LD(a, w), LD(b, w))));
            break;
        case 3:
            for (size_t w = 0; w < len; w += 4)
                _mm256_store_si256((__m256i *)(dst + w),
                                   _mm256_xor_si256(_mm256_xor_si256(LD(dst, w), LD(a, w)),
                                                    _mm256_xor_si256(LD(b, w), LD(c, w))));
            break;
        default:
            for (size_t w = 0; w < len; w += 4)
                _mm256_store_si256((__m256i *)(dst + w),
                                   _mm256_xor_si256(_mm256_xor_si256(LD(dst, w), LD(a, w)),
                                                    _mm256_xor_si256(LD(b, w),
                                                                     _mm256_xor_si256(LD(c, w), LD(d, w)))));
            break;
        }
#undef LD
#else
        switch (m) {
        case 1: for (size_t w = 0; w < len; w++) dst[w] ^= a[w]; break;
        case 2: for (size_t w = 0; w < len; w++) dst[w] ^= a[w] ^ b[w]; break;
        case 3: for (size_t w = 0; w < len; w++) dst[w] ^= a[w] ^ b[w] ^ c[w]; break;
        default: for (size_t w = 0; w < len; w++) dst[w] ^= a[w] ^ b[w] ^ c[w] ^ d[w]; break;
        }
#endif
        src += m;
        n -= m;
    }
}

static void xor_one(uint64_t *restrict dst, const uint64_t *restrict src, size_t len)
{
    const uint64_t *p[1] = { src };
    xor_sum(dst, p, 1, len);
}

/* dst = a ^ b over len words (a multiple of 4; 32-byte aligned). */
static void xor_into(uint64_t *restrict dst, const uint64_t *restrict a, const uint64_t *restrict b,
                     size_t len)
{
#ifdef __AVX2__
    for (size_t w = 0; w < len; w += 4)
        _mm256_store_si256((__m256i *)(dst + w),
                           _mm256_xor_si256(_mm256_load_si256((const __m256i *)(a + w)),
                                            _mm256_load_si256((const __m256i *)(b + w))));
#else
    for (size_t w = 0; w < len; w++) dst[w] = a[w] ^ b[w];
#endif
}

/* Clears bit b from the n words v[] by XORing pw (which has bit b) where it is set; returns
 * the OR of the results. */
static uint64_t eliminate_window(uint64_t *v, uint32_t n, uint64_t pw, unsigned b)
{
    uint64_t acc = 0;
    uint32_t j = 0;
#ifdef __AVX2__
    const __m256i bit = _mm256_set1_epi64x((long long)((uint64_t)1 << b));
    const __m256i p = _mm256_set1_epi64x((long long)pw);
    __m256i a = _mm256_setzero_si256();
    for (; j + 4 <= n; j += 4) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(v + j));
        __m256i hit = _mm256_cmpeq_epi64(_mm256_and_si256(x, bit), bit);
        x = _mm256_xor_si256(x, _mm256_and_si256(hit, p));
        _mm256_storeu_si256((__m256i *)(v + j), x);
        a = _mm256_or_si256(a, x);
    }
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    acc = (uint64_t)_mm_cvtsi128_si64(h) | (uint64_t)_mm_extract_epi64(h, 1);
#endif
    for (; j < n; j++) {
        uint64_t x = v[j];
        x ^= (0 - (x >> b & 1)) & pw;
        v[j] = x;
        acc |= x;
    }
    return acc;
}

/* The 64 bits of row r at columns [c, c + 64); nw = words in use per row. */
static inline uint64_t window(const uint64_t *r, uint32_t c, size_t nw)
{
    size_t w = c >> 6;
    unsigned s = c & 63;
    if (!s) return r[w];
    uint64_t hi = w + 1 < nw ? r[w + 1] : 0;
    return r[w] >> s | hi << (64 - s);
}

/* Bits of x at the set bits of mask, packed to the bottom (lowest first). */
static inline unsigned gather_bits(uint64_t x, uint64_t mask)
{
#ifdef __BMI2__
    return (unsigned)_pext_u64(x, mask);
#else
    unsigned v = 0, n = 0;
    for (; mask; mask &= mask - 1, n++) v |= (unsigned)(x >> __builtin_ctzll(mask) & 1) << n;
    return v;
#endif
}

/* Default parameters, from a sweep with bench/f2mat_bench's shapes (docs/perf.md): k about
 * log2(rows) - 3 (2^k table entries per group against the rows they serve; larger for
 * narrow rows, where the per-panel costs of the pivot search dominate), 8 groups (64
 * pivots per pass over the matrix) once rows are many, narrow column tiles for long rows
 * (the tables' tile then stays in L2 while a row block streams through). */
static void choose_params(uint32_t rows, size_t nw, int *k, int *g, int *tile, int *rowblock)
{
    int lg = 0;
    while (lg < 30 && ((uint32_t)1 << (lg + 1)) <= rows) lg++;   /* floor(log2(rows)) */
    int kk = nw <= 16 ? lg - 1 : rows >= 768 ? lg - 2 : lg - 3;
    *k = kk > M4RM_KMAX ? M4RM_KMAX : kk < 2 ? 2 : kk;
    *g = rows >= 2048 ? 8 : 4;
    *tile = nw > 320 ? 16 : 64;
    *rowblock = 1024;
}

int f2mat_rref_m4rm_tuned(f2mat *m, int32_t *pivots, int k, int groups, int tile, int rowblock)
{
    const uint32_t rows = m->rows, cols = m->cols;
    if (pivots)
        for (uint32_t c = 0; c < cols; c++) pivots[c] = -1;
    if (!rows || !cols) return 0;
    if (rows > INT32_MAX) return -1;
    const size_t nw = f2vec_words(cols);
    {
        int dk, dg, dt, drb;
        choose_params(rows, nw, &dk, &dg, &dt, &drb);
        if (k <= 0) k = dk;
        if (groups <= 0) groups = dg;
        if (tile <= 0) tile = dt;
        if (rowblock <= 0) rowblock = drb;
    }
    if (k > M4RM_KMAX) k = M4RM_KMAX;
    if (groups > M4RM_GMAX) groups = M4RM_GMAX;
    const uint32_t RB = (uint32_t)rowblock;
    const size_t TW = ((size_t)tile + 3) & ~(size_t)3;
    const uint32_t K = (uint32_t)(k * groups);
    const size_t nent = (size_t)1 << k;

    /* scratch: tables | window words | row list | indices | hi | block offsets */
    size_t tab_bytes = (size_t)groups * nent * ((nw + 3) & ~(size_t)3) * sizeof(uint64_t);
    size_t offs_bytes = (size_t)RB * M4RM_GMAX * sizeof(size_t) + ((RB + 63) & ~(size_t)63);
    size_t win_bytes = ((size_t)rows * sizeof(uint64_t) + 63) & ~(size_t)63;
    size_t list_bytes = ((size_t)rows * sizeof(uint32_t) + 63) & ~(size_t)63;
    size_t idx_bytes = ((size_t)rows * (size_t)groups + 63) & ~(size_t)63;
    const size_t scratch_bytes = tab_bytes + win_bytes + 2 * list_bytes + idx_bytes + offs_bytes;
    char *scratch = aligned_alloc(64, scratch_bytes);
    if (!scratch) return -1;
    memacct_add(MEM_INFLIGHT, (int64_t)scratch_bytes);
    uint64_t *tab = (uint64_t *)scratch;
    uint64_t *win = (uint64_t *)(scratch + tab_bytes);
    uint32_t *list = (uint32_t *)(scratch + tab_bytes + win_bytes);
    uint8_t *idx = (uint8_t *)(scratch + tab_bytes + win_bytes + list_bytes);
    /* hi[j]: row j is zero from word hi[j] on (a multiple of 4, <= nw4). XORs of a panel
     * stop at the largest hi of its rows, which for [A | 0 | I] skips the identity columns
     * of rows not yet mixed in (about half the work of the A-part phase). */
    uint32_t *hi = (uint32_t *)(scratch + tab_bytes + win_bytes + list_bytes + idx_bytes);
    size_t *offs = (size_t *)(scratch + tab_bytes + win_bytes + 2 * list_bytes + idx_bytes);
    uint8_t *nsrc = (uint8_t *)(offs + (size_t)RB * M4RM_GMAX);

    const size_t stride = m->stride;
    uint64_t *const data = m->data;
#define ROW(i) (data + (size_t)(i) * stride)
    for (uint32_t j = 0; j < rows; j++) {
        const uint64_t *r = ROW(j);
        size_t w = nw;
        while (w && !r[w - 1]) w--;
        hi[j] = (uint32_t)((w + 3) & ~(size_t)3);
    }
    uint32_t rank = 0, c = 0;
    uint32_t pc[64];
    while (rank < rows && c < cols) {
        /* 1. pivot search on the window [c, c + 64) */
        const uint32_t nrem = rows - rank;
        uint64_t any = 0;
        for (uint32_t j = 0; j < nrem; j++) any |= win[j] = window(ROW(rank + j), c, nw);
        const size_t w0 = (c >> 6) & ~(size_t)3;   /* rows >= rank are zero before word c/64 */
        uint32_t np = 0;
        while (any && np < K) {
            unsigned b = (unsigned)__builtin_ctzll(any);
            uint32_t p = np;
            while (!(win[p] >> b & 1)) p++;
            if (p != np) {
                uint64_t t = win[p];
                win[p] = win[np];
                win[np] = t;
                uint64_t *x = ROW(rank + p), *y = ROW(rank + np);
                uint32_t hx = hi[rank + p], hy = hi[rank + np], h = hx > hy ? hx : hy;
                for (size_t w = w0; w < h; w++) { t = x[w]; x[w] = y[w]; y[w] = t; }
                hi[rank + p] = hy;
                hi[rank + np] = hx;
            }
            any = eliminate_window(win + np + 1, nrem - np - 1, win[np], b);
            pc[np++] = c + b;
        }
        if (np == 0) {
            c += 64;
            continue;
        }
        const uint32_t next_c = np == K && any ? pc[np - 1] + 1 : c + 64;

        /* 2. reduce the panel rows among themselves (forward, then backward) */
        size_t he = w0 + 4;   /* panel rows are zero from word he on */
        for (uint32_t i = 0; i < np; i++)
            if (hi[rank + i] > he) he = hi[rank + i];
        for (uint32_t i = 0; i < np; i++) hi[rank + i] = (uint32_t)he;
        const size_t len = he - w0;
        for (uint32_t i = 1; i < np; i++) {
            uint64_t *ri = ROW(rank + i);
            for (uint32_t s = 0; s < i; s++)
                if (ri[pc[s] >> 6] >> (pc[s] & 63) & 1) xor_one(ri + w0, ROW(rank + s) + w0, len);
        }
        for (uint32_t i = np; i-- > 1;) {
            const uint64_t *ri = ROW(rank + i);
            for (uint32_t s = 0; s < i; s++) {
                uint64_t *rs = ROW(rank + s);
                if (rs[pc[i] >> 6] >> (pc[i] & 63) & 1) xor_one(rs + w0, ri + w0, len);
            }
        }

        /* 3. table indices of every other row; rows with all-zero indices are skipped */
        const uint32_t ng = (np + (uint32_t)k - 1) / (uint32_t)k;
        uint64_t gmask[M4RM_GMAX];
        for (uint32_t g = 0; g < ng; g++) {
            gmask[g] = 0;
            for (uint32_t i = g * (uint32_t)k; i < np && i < (g + 1) * (uint32_t)k; i++)
                gmask[g] |= (uint64_t)1 << (pc[i] - c);
        }
        uint64_t allmask = 0;
        for (uint32_t g = 0; g < ng; g++) allmask |= gmask[g];
        uint32_t nlist = 0;
        for (uint32_t j = 0; j < rows; j++) {
            if (j == rank) {
                j += np - 1;
                continue;
            }
            uint64_t x = window(ROW(j), c, nw);
            if (!(x & allmask)) continue;
            uint8_t *ix = idx + (size_t)nlist * (size_t)groups;
            unsigned nz = 0;
            for (uint32_t g = 0; g < ng; g++) nz |= ix[g] = (uint8_t)gather_bits(x, gmask[g]);
            if (nz) {
                list[nlist++] = j;
                if (hi[j] < he) hi[j] = (uint32_t)he;
            }
        }

        /* 4. build the tables (entries over words [w0, he)), then apply them to the listed
         *    rows, block of RB rows by column tile of TW words, so a block's rows and the
         *    tables' tile stay in cache together. */
        const size_t TL = he - w0;
        for (uint32_t g = 0; g < ng && nlist; g++) {
            uint64_t *T = tab + (size_t)g * nent * TL;
            memset(T, 0, TL * sizeof(uint64_t));
            uint32_t kg = np - g * (uint32_t)k < (uint32_t)k ? np - g * (uint32_t)k : (uint32_t)k;
            for (uint32_t n = 0; n < kg; n++) {
                const uint64_t *src = ROW(rank + g * (uint32_t)k + n) + w0;
                size_t half = (size_t)1 << n;
                for (size_t e = 0; e < half; e++) xor_into(T + (half + e) * TL, T + e * TL, src, TL);
            }
        }
        for (uint32_t l0 = 0; l0 < nlist; l0 += RB) {
            const uint32_t l1 = nlist - l0 < RB ? nlist : l0 + RB;
            for (uint32_t l = l0; l < l1; l++) {
                const uint8_t *ix = idx + (size_t)l * (size_t)groups;
                size_t *o = offs + (size_t)(l - l0) * M4RM_GMAX;
                uint32_t ns = 0;
                for (uint32_t g = 0; g < ng; g++)
                    if (ix[g]) o[ns++] = ((size_t)g * nent + ix[g]) * TL;
                nsrc[l - l0] = (uint8_t)ns;
            }
            for (size_t t0 = 0; t0 < TL; t0 += TW) {
                const size_t tl = TL - t0 < TW ? TL - t0 : TW;
                for (uint32_t l = l0; l < l1; l++) {
                    const size_t *o = offs + (size_t)(l - l0) * M4RM_GMAX;
                    const uint64_t *src[M4RM_GMAX];
                    int ns = nsrc[l - l0];
                    for (int q = 0; q < ns; q++) src[q] = tab + o[q] + t0;
                    xor_sum(ROW(list[l]) + w0 + t0, src, ns, tl);
                }
            }
        }

        if (pivots)
            for (uint32_t i = 0; i < np; i++) pivots[pc[i]] = (int32_t)(rank + i);
        rank += np;
        c = next_c;
    }
#undef ROW
    free(scratch);
    memacct_add(MEM_INFLIGHT, -(int64_t)scratch_bytes);
    return (int)rank;
}

int f2mat_rref_m4rm(f2mat *m, int32_t *pivots) { return f2mat_rref_m4rm_tuned(m, pivots, 0, 0, 0, 0); }
