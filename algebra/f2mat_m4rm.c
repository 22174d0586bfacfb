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
 * result is the canonical RREF with no final sort. Each phase is a function below over the
 * reduction's state (m4rm: parameters, scratch, matrix) and the panel's (m4rm_panel).
 *
 * With a team (algebra/team.h; f2mat_rref_m4rm_team) the passes over all rows are loops whose
 * items the team's members share: phase 1's window reads (chunks of M4RM_SCAN rows), phase 3's
 * listing (the same chunks, each listing into its own stretch of the list, closed up after in
 * row order) and phase 4's XORs (blocks of RB listed rows, each with its own stretch of the
 * offsets); the pivot search on the windows, phase 2 and the tables stay with the owner. Each
 * item writes its own rows and scratch only, so the result is the same whoever runs it.
 */
#include "algebra/f2mat.h"
#include "algebra/memacct.h"
#include "algebra/team.h"

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

/* One reduction's parameters, scratch (one block) and matrix. */
typedef struct m4rm {
    uint64_t *data;             /* the matrix: rows of stride words, nw of them in use */
    size_t stride, nw;
    uint32_t rows;
    uint32_t pcols;             /* pivots are sought in columns [0, pcols) only */
    int echelon;                /* rows above a panel left alone: a row echelon form, not reduced */
    int k, groups;              /* k pivots per group, G groups: K = k G pivots per panel */
    uint32_t K, RB;             /* RB: rows per block of phase 4 */
    size_t TW, nent;            /* words per column tile of phase 4; 2^k table entries */
    char *scratch;              /* tables | window words | row list | indices | hi | block offsets */
    size_t scratch_bytes;
    uint64_t *tab, *win;
    uint32_t *list, *hi;        /* hi[j]: row j is zero from word hi[j] on (a multiple of 4):
                                 * XORs of a panel stop at the largest hi of its rows, which for
                                 * [A | 0 | I] skips the identity columns of rows not yet mixed
                                 * in (about half the work of the A-part phase) */
    uint8_t *idx, *nsrc;
    size_t *offs;
    team *tm;                   /* who shares the loops over rows (NULL: this thread alone) */
    uint64_t *chunk_any;        /* per chunk of M4RM_SCAN rows: phase 1's OR of its windows */
    uint32_t *chunk_n;          /* and phase 3's count of rows listed */
} m4rm;

/* Rows per item of the scans of phases 1 and 3 (a team's loop over them). */
#define M4RM_SCAN 4096u

/* One panel: up to K pivots found in the window [c, c + 64). */
typedef struct m4rm_panel {
    uint32_t c, np, next_c;     /* window, pivots found, where the next panel's window starts */
    uint64_t lim;               /* the window's bits below pcols */
    uint32_t pc[64];            /* the pivots' columns, increasing */
    size_t w0, he;              /* its XORs span words [w0, he) */
    uint32_t ng;                /* groups in use */
    uint64_t gmask[M4RM_GMAX];  /* each group's pivot columns, as bits of the window */
    uint32_t nlist;             /* rows phase 3 listed for phase 4 */
} m4rm_panel;

/* Row i, through the function's own copies of data and stride: the rows are uint64_t, as
 * size_t is, so a store to a row could change w->stride as far as the compiler knows. */
#define ROW(w, i) (data + (size_t)(i) * stride)
#define MATRIX(w) uint64_t *const data = (w)->data; const size_t stride = (w)->stride

/* The parameters (k, groups, tile, rowblock: 0 = default) and the scratch; -1 out of memory. */
static int m4rm_setup(m4rm *w, f2mat *m, int k, int groups, int tile, int rowblock)
{
    *w = (m4rm){ .data = m->data, .stride = m->stride, .nw = f2vec_words(m->cols), .rows = m->rows };
    int dk, dg, dt, drb;
    choose_params(w->rows, w->nw, &dk, &dg, &dt, &drb);
    w->k = k <= 0 ? dk : k > M4RM_KMAX ? M4RM_KMAX : k;
    w->groups = groups <= 0 ? dg : groups > M4RM_GMAX ? M4RM_GMAX : groups;
    w->RB = (uint32_t)(rowblock <= 0 ? drb : rowblock);
    w->TW = ((size_t)(tile <= 0 ? dt : tile) + 3) & ~(size_t)3;
    w->K = (uint32_t)(w->k * w->groups);
    w->nent = (size_t)1 << w->k;
    const uint32_t rows = w->rows;
    size_t tab_bytes = (size_t)w->groups * w->nent * ((w->nw + 3) & ~(size_t)3) * sizeof(uint64_t);
    size_t offs_bytes = (size_t)rows * M4RM_GMAX * sizeof(size_t) + (((size_t)rows + 63) & ~(size_t)63);
    size_t win_bytes = ((size_t)rows * sizeof(uint64_t) + 63) & ~(size_t)63;
    size_t list_bytes = ((size_t)rows * sizeof(uint32_t) + 63) & ~(size_t)63;
    size_t idx_bytes = ((size_t)rows * (size_t)w->groups + 63) & ~(size_t)63;
    size_t chunks = ((size_t)rows + M4RM_SCAN - 1) / M4RM_SCAN, chunk_bytes = (chunks * 12 + 63) & ~(size_t)63;
    w->scratch_bytes = tab_bytes + win_bytes + 2 * list_bytes + idx_bytes + offs_bytes + chunk_bytes;
    if (!(w->scratch = aligned_alloc(64, w->scratch_bytes))) return -1;
    memacct_add(MEM_INFLIGHT, (int64_t)w->scratch_bytes);
    char *at = w->scratch;
    w->tab = (uint64_t *)at, at += tab_bytes;
    w->win = (uint64_t *)at, at += win_bytes;
    w->list = (uint32_t *)at, at += list_bytes;
    w->idx = (uint8_t *)at, at += idx_bytes;
    w->hi = (uint32_t *)at, at += list_bytes;
    w->offs = (size_t *)at;
    w->nsrc = (uint8_t *)(w->offs + (size_t)rows * M4RM_GMAX);
    at = (char *)w->nsrc + (((size_t)rows + 63) & ~(size_t)63);
    w->chunk_any = (uint64_t *)at;
    w->chunk_n = (uint32_t *)(w->chunk_any + chunks);
    MATRIX(w);
    for (uint32_t j = 0; j < rows; j++) {
        const uint64_t *r = ROW(w, j);
        size_t n = w->nw;
        while (n && !r[n - 1]) n--;
        w->hi[j] = (uint32_t)((n + 3) & ~(size_t)3);
    }
    return 0;
}

static void m4rm_free(m4rm *w)
{
    free(w->scratch);
    memacct_add(MEM_INFLIGHT, -(int64_t)w->scratch_bytes);
}

/* What a scan's items read: the reduction, its panel and the rank so far. */
typedef struct m4rm_scan {
    m4rm *w;
    m4rm_panel *p;
    uint32_t rank;
} m4rm_scan;

/* Phase 1's item k: the windows of rows rank + k M4RM_SCAN .. (at most M4RM_SCAN of them). */
static void window_chunk(void *arg, uint32_t k)
{
    const m4rm_scan *a = arg;
    m4rm *w = a->w;
    MATRIX(w);
    const uint32_t j0 = k * M4RM_SCAN, nrem = w->rows - a->rank, j1 = nrem - j0 < M4RM_SCAN ? nrem : j0 + M4RM_SCAN;
    const uint32_t c = a->p->c, rank = a->rank;
    const size_t nw = w->nw;
    uint64_t *win = w->win, any = 0;
    const uint64_t lim = a->p->lim;
    for (uint32_t j = j0; j < j1; j++) any |= win[j] = window(ROW(w, rank + j), c, nw) & lim;
    w->chunk_any[k] = any;
}

/* 1. Pivot search on the window [p->c, p->c + 64) of rows rank..: the panel's pivot rows end
 * at [rank, rank + np) in column order; returns np (0: the window is zero below rank). */
static uint32_t find_pivots(m4rm *w, uint32_t rank, m4rm_panel *p)
{
    MATRIX(w);
    const uint32_t nrem = w->rows - rank, c = p->c;
    uint64_t *win = w->win, any = 0;
    m4rm_scan a = { w, p, rank };
    uint32_t chunks = (nrem + M4RM_SCAN - 1) / M4RM_SCAN;
    p->lim = w->pcols - c >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (w->pcols - c)) - 1;
    team_for(chunks > 1 ? w->tm : NULL, chunks, window_chunk, &a);
    for (uint32_t k = 0; k < chunks; k++) any |= w->chunk_any[k];
    p->w0 = (c >> 6) & ~(size_t)3;   /* rows >= rank are zero before word c/64 */
    uint32_t np = 0;
    while (any && np < w->K) {
        unsigned b = (unsigned)__builtin_ctzll(any);
        uint32_t q = np;
        while (!(win[q] >> b & 1)) q++;
        if (q != np) {
            uint64_t t = win[q];
            win[q] = win[np];
            win[np] = t;
            uint64_t *x = ROW(w, rank + q), *y = ROW(w, rank + np);
            uint32_t hx = w->hi[rank + q], hy = w->hi[rank + np], h = hx > hy ? hx : hy;
            for (size_t i = p->w0; i < h; i++) { t = x[i]; x[i] = y[i]; y[i] = t; }
            w->hi[rank + q] = hy;
            w->hi[rank + np] = hx;
        }
        any = eliminate_window(win + np + 1, nrem - np - 1, win[np], b);
        p->pc[np++] = c + b;
    }
    p->np = np;
    p->next_c = np == w->K && any ? p->pc[np - 1] + 1 : c + 64;
    return np;
}

/* 2. The panel rows reduced among themselves (forward, then backward). */
static void reduce_panel(m4rm *w, uint32_t rank, m4rm_panel *p)
{
    MATRIX(w);
    const uint32_t np = p->np;
    const size_t w0 = p->w0;
    size_t he = w0 + 4;   /* panel rows are zero from word he on */
    for (uint32_t i = 0; i < np; i++)
        if (w->hi[rank + i] > he) he = w->hi[rank + i];
    for (uint32_t i = 0; i < np; i++) w->hi[rank + i] = (uint32_t)he;
    p->he = he;
    const size_t len = he - w0;
    for (uint32_t i = 1; i < np; i++) {
        uint64_t *ri = ROW(w, rank + i);
        for (uint32_t s = 0; s < i; s++)
            if (ri[p->pc[s] >> 6] >> (p->pc[s] & 63) & 1) xor_one(ri + w0, ROW(w, rank + s) + w0, len);
    }
    for (uint32_t i = np; i-- > 1;) {
        const uint64_t *ri = ROW(w, rank + i);
        for (uint32_t s = 0; s < i; s++) {
            uint64_t *rs = ROW(w, rank + s);
            if (rs[p->pc[i] >> 6] >> (p->pc[i] & 63) & 1) xor_one(rs + w0, ri + w0, len);
        }
    }
}

/* Phase 3's item q: rows q M4RM_SCAN .. (at most M4RM_SCAN; the panel's rows skipped), listed
 * from list[q M4RM_SCAN] on (their indices at the same place of idx), their count in
 * chunk_n[q]; list_rows closes the gaps. */
static void list_chunk(void *arg, uint32_t q)
{
    const m4rm_scan *a = arg;
    m4rm *w = a->w;
    const m4rm_panel *p = a->p;
    MATRIX(w);
    uint64_t allmask = 0;
    for (uint32_t g = 0; g < p->ng; g++) allmask |= p->gmask[g];
    const size_t nw = w->nw, groups = (size_t)w->groups;
    const uint32_t rows = w->rows, rank = a->rank, np = p->np, j0 = q * M4RM_SCAN;
    const uint32_t j1 = rows - j0 < M4RM_SCAN ? rows : j0 + M4RM_SCAN;
    uint32_t *const hi = w->hi, *const list = w->list + j0;
    uint8_t *const idx = w->idx + (size_t)j0 * groups;
    uint32_t n = 0;
    for (uint32_t j = w->echelon && j0 < rank + np ? rank + np : j0; j < j1; j++) {
        if (j >= rank && j < rank + np) continue;
        uint64_t x = window(ROW(w, j), p->c, nw);
        if (!(x & allmask)) continue;
        uint8_t *ix = idx + (size_t)n * groups;
        unsigned nz = 0;
        for (uint32_t g = 0; g < p->ng; g++) nz |= ix[g] = (uint8_t)gather_bits(x, p->gmask[g]);
        if (nz) {
            list[n++] = j;
            if (hi[j] < p->he) hi[j] = (uint32_t)p->he;
        }
    }
    w->chunk_n[q] = n;
}

/* 3. Every other row's table indices (k bits per group at the panel's pivot columns); the rows
 * with an index other than zero are listed for phase 4, in increasing order. */
static void list_rows(m4rm *w, uint32_t rank, m4rm_panel *p)
{
    const uint32_t k = (uint32_t)w->k, np = p->np;
    p->ng = (np + k - 1) / k;
    for (uint32_t g = 0; g < p->ng; g++) {
        p->gmask[g] = 0;
        for (uint32_t i = g * k; i < np && i < (g + 1) * k; i++) p->gmask[g] |= (uint64_t)1 << (p->pc[i] - p->c);
    }
    m4rm_scan a = { w, p, rank };
    const uint32_t chunks = (w->rows + M4RM_SCAN - 1) / M4RM_SCAN;
    const size_t groups = (size_t)w->groups;
    team_for(chunks > 1 ? w->tm : NULL, chunks, list_chunk, &a);
    uint32_t nlist = w->chunk_n[0];
    for (uint32_t q = 1; q < chunks; q++) {
        const uint32_t n = w->chunk_n[q], j0 = q * M4RM_SCAN;
        memmove(w->list + nlist, w->list + j0, n * sizeof *w->list);
        memmove(w->idx + (size_t)nlist * groups, w->idx + (size_t)j0 * groups, n * groups);
        nlist += n;
    }
    p->nlist = nlist;
}

/* 4. The 2^k combinations of each group's panel rows (over words [w0, he)), by doubling
 * (build_tables); then XORed into the listed rows, a block of RB rows by a column tile of TW
 * words at a time, so that a block's rows and the tables' tile stay in cache together
 * (apply_block: one block, an item of a team's loop: blocks write disjoint rows). Not inlined:
 * inlined into the panel loop, the inner loops lost registers (1-3.5% more instructions,
 * callgrind). */
static __attribute__((noinline)) void build_tables(m4rm *w, uint32_t rank, const m4rm_panel *p)
{
    MATRIX(w);
    const size_t w0 = p->w0, TL = p->he - w0, nent = w->nent;
    const uint32_t k = (uint32_t)w->k, np = p->np;
    for (uint32_t g = 0; g < p->ng && p->nlist; g++) {
        uint64_t *T = w->tab + (size_t)g * nent * TL;
        memset(T, 0, TL * sizeof(uint64_t));
        uint32_t kg = np - g * k < k ? np - g * k : k;
        for (uint32_t n = 0; n < kg; n++) {
            const uint64_t *src = ROW(w, rank + g * k + n) + w0;
            size_t half = (size_t)1 << n;
            for (size_t e = 0; e < half; e++) xor_into(T + (half + e) * TL, T + e * TL, src, TL);
        }
    }
}

/* What apply_block reads: the reduction and its panel. */
typedef struct m4rm_apply {
    m4rm *w;
    const m4rm_panel *p;
} m4rm_apply;

static __attribute__((noinline)) void apply_block(void *arg, uint32_t block)
{
    const m4rm_apply *a = arg;
    m4rm *w = a->w;
    const m4rm_panel *p = a->p;
    MATRIX(w);
    /* the state in locals: the XOR calls could otherwise change it as far as the compiler knows */
    const size_t w0 = p->w0, TL = p->he - w0, nent = w->nent, TW = w->TW, groups = (size_t)w->groups;
    const uint32_t nlist = p->nlist, RB = w->RB;
    const uint64_t *const tab = w->tab;
    const uint32_t *const list = w->list;
    const uint8_t *const idx = w->idx;
    const uint32_t l0 = block * RB, l1 = nlist - l0 < RB ? nlist : l0 + RB;
    uint8_t *const nsrc = w->nsrc + l0;
    size_t *const offs = w->offs + (size_t)l0 * M4RM_GMAX;
    for (uint32_t l = l0; l < l1; l++) {
        const uint8_t *ix = idx + (size_t)l * groups;
        size_t *o = offs + (size_t)(l - l0) * M4RM_GMAX;
        uint32_t ns = 0;
        for (uint32_t g = 0; g < p->ng; g++)
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
            xor_sum(ROW(w, list[l]) + w0 + t0, src, ns, tl);
        }
    }
}

static void apply_tables(m4rm *w, uint32_t rank, const m4rm_panel *p)
{
    if (!p->nlist) return;
    build_tables(w, rank, p);
    m4rm_apply a = { w, p };
    uint32_t blocks = (p->nlist + w->RB - 1) / w->RB;
    team_for(blocks > 1 ? w->tm : NULL, blocks, apply_block, &a);
}

/* pcols: pivots in columns [0, pcols) only (m->cols for a whole RREF); echelon: the rows above
 * each panel are not reduced */
static int rref_m4rm(f2mat *m, uint32_t pcols, int echelon, int32_t *pivots, int k, int groups, int tile,
                     int rowblock, team *tm)
{
    const uint32_t rows = m->rows, cols = pcols < m->cols ? pcols : m->cols;
    if (pivots)
        for (uint32_t c = 0; c < cols; c++) pivots[c] = -1;
    if (!rows || !cols) return 0;
    if (rows > INT32_MAX) return -1;
    m4rm w;
    if (m4rm_setup(&w, m, k, groups, tile, rowblock) != 0) return -1;
    w.tm = tm;
    w.pcols = cols;
    w.echelon = echelon;
    uint32_t rank = 0, c = 0;
    while (rank < rows && c < cols) {
        m4rm_panel p = { .c = c };
        if (!find_pivots(&w, rank, &p)) {
            c += 64;
            continue;
        }
        reduce_panel(&w, rank, &p);
        list_rows(&w, rank, &p);
        apply_tables(&w, rank, &p);
        if (pivots)
            for (uint32_t i = 0; i < p.np; i++) pivots[p.pc[i]] = (int32_t)(rank + i);
        rank += p.np;
        c = p.next_c;
    }
    m4rm_free(&w);
    return (int)rank;
}
#undef ROW
#undef MATRIX

int f2mat_rref_m4rm_tuned(f2mat *m, int32_t *pivots, int k, int groups, int tile, int rowblock)
{
    return rref_m4rm(m, m->cols, 0, pivots, k, groups, tile, rowblock, NULL);
}

int f2mat_rref_m4rm(f2mat *m, int32_t *pivots) { return rref_m4rm(m, m->cols, 0, pivots, 0, 0, 0, 0, NULL); }

int f2mat_rref_m4rm_team(f2mat *m, int32_t *pivots, team *tm)
{
    return rref_m4rm(m, m->cols, 0, pivots, 0, 0, 0, 0, tm);
}

int f2mat_rref_prefix(f2mat *m, uint32_t pcols, int32_t *pivots)
{
    return rref_m4rm(m, pcols, 0, pivots, 0, 0, 0, 0, NULL);
}

int f2mat_echelon_prefix(f2mat *m, uint32_t pcols, int32_t *pivots)
{
    return rref_m4rm(m, pcols, 1, pivots, 0, 0, 0, 0, NULL);
}
