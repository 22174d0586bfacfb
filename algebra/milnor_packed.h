/* milnor_packed.h — the Milnor-matrix search of milnor_search.h, one step a call (as mm_step),
 * with its whole state in a few 64-bit words, so that a GPU thread keeps it in registers
 * instead of ~1 KB of local memory. Every function is `static inline` and, under nvcc,
 * __host__ __device__ (MILNOR_HD); tests/t-milnor-packed.c runs it on the CPU against mm_step.
 *
 * Maths: as milnor_search.h (docs/algorithms.md §2.1, §2.2): Sq(R)·Sq(S) is the sum of Sq(T(X))
 * over the Milnor matrices X whose anti-diagonals have no binary carry; the search places the
 * interior cells (i, j), then each row's x_i0 and column's x_0j, under that rule. The cells,
 * their order, the steps and the leaves are mm_setup's and mm_step's, so the terms come out in
 * the same order.
 *
 * Layout: 16-bit fields, four to a word: rows r_1..r_8 (what is left of r_i) in rem[0..1], columns
 * s_1..s_8 in col[0..1], the anti-diagonals' masks 1..16 in mask[0..3], the cells' values in
 * val[0..1]; cell k's row i - 1, column j - 1 and end flags (ROW_END, COL_END) in byte k of
 * cells. Field x of a pair (lo, hi) is bits 16 (x & 3) of word x >> 2; every access picks the
 * word by comparisons, never by indexing an array, so nothing needs addressable memory.
 * Limits: R and S of length at most 8, at most PK_CELLS cells, entries below 2^16
 * (pk_setup returns PK_TOO_BIG otherwise, and the caller runs milnor_search.h's search):
 * at stems 100 and 120, products of more than 8 cells take 0.01% of the search steps of a
 * resolution's batches (docs/perf.md). */
#ifndef EXTFLOW_MILNOR_PACKED_H
#define EXTFLOW_MILNOR_PACKED_H
#include "algebra/milnor_search.h"

#define PK_CELLS 8
enum { PK_TOO_BIG = -1, PK_ZERO = 0, PK_READY = 1 };
enum { PK_AFTER_LEAF = 2 };         /* phase: the leaf's ends come off first (after MM_*) */

typedef struct pk_search {
    uint64_t rem0, rem1, col0, col1, mask0, mask1, mask2, mask3, val0, val1, cells;
    int32_t k;                      /* current cell; -1 before the first step */
    int32_t ncells;                 /* -1 once the search is over */
    int32_t ndiag, phase;           /* len R + len S; MM_ENDS, MM_ADVANCE or PK_AFTER_LEAF */
    uint32_t part, nparts, first_ord;
} pk_search;

MILNOR_HD static inline uint32_t pk_get2(uint64_t w0, uint64_t w1, uint32_t x)
{
    return (uint32_t)(((x >> 2) ? w1 : w0) >> (16 * (x & 3)) & 0xffff);
}

MILNOR_HD static inline void pk_set2(uint64_t *w0, uint64_t *w1, uint32_t x, uint32_t v)
{
    const uint32_t sh = 16 * (x & 3);
    const uint64_t clear = ~((uint64_t)0xffff << sh), put = (uint64_t)v << sh;
    if (x >> 2) *w1 = (*w1 & clear) | put;
    else *w0 = (*w0 & clear) | put;
}

/* Mask of anti-diagonal n (1..16). */
MILNOR_HD static inline uint32_t pk_mask(const pk_search *s, uint32_t n)
{
    const uint32_t x = n - 1, w = x >> 2, sh = 16 * (x & 3);
    const uint64_t word = w == 0 ? s->mask0 : w == 1 ? s->mask1 : w == 2 ? s->mask2 : s->mask3;
    return (uint32_t)(word >> sh & 0xffff);
}

/* mask of diagonal n ^= v (v within 16 bits). */
MILNOR_HD static inline void pk_mask_xor(pk_search *s, uint32_t n, uint32_t v)
{
    const uint32_t x = n - 1, w = x >> 2;
    const uint64_t d = (uint64_t)v << (16 * (x & 3));
    if (w == 0) s->mask0 ^= d;
    else if (w == 1) s->mask1 ^= d;
    else if (w == 2) s->mask2 ^= d;
    else s->mask3 ^= d;
}

MILNOR_HD static inline uint32_t pk_rem(const pk_search *s, uint32_t i) { return pk_get2(s->rem0, s->rem1, i - 1); }
MILNOR_HD static inline uint32_t pk_col(const pk_search *s, uint32_t j) { return pk_get2(s->col0, s->col1, j - 1); }
MILNOR_HD static inline uint32_t pk_val(const pk_search *s, int32_t k) { return pk_get2(s->val0, s->val1, (uint32_t)k); }
MILNOR_HD static inline uint32_t pk_cell(const pk_search *s, int32_t k) { return (uint32_t)(s->cells >> (8 * k) & 0xff); }
MILNOR_HD static inline uint32_t pk_cell_i(uint32_t c) { return (c & 7) + 1; }
MILNOR_HD static inline uint32_t pk_cell_j(uint32_t c) { return (c >> 3 & 7) + 1; }
MILNOR_HD static inline uint32_t pk_cell_ends(uint32_t c) { return c >> 6; }

/* Places x on diagonal n; 0 (nothing placed) when it shares a bit with it. */
MILNOR_HD static inline int pk_fix(pk_search *s, uint32_t n, uint32_t x)
{
    if (pk_mask(s, n) & x) return 0;
    pk_mask_xor(s, n, x);
    return 1;
}

/* mm_setup's cells and fixed entries in the packed layout: PK_READY, PK_ZERO (the product is
 * zero) or PK_TOO_BIG (beyond the limits above; nothing else is meaningful then). */
MILNOR_HD static inline int pk_setup(pk_search *s, const milnor_elt *R, const milnor_elt *S)
{
    const uint32_t m = R->len, n = S->len;
    if (m > 8 || n > 8) return PK_TOO_BIG;
    s->rem0 = s->rem1 = s->col0 = s->col1 = 0;
    s->mask0 = s->mask1 = s->mask2 = s->mask3 = s->val0 = s->val1 = s->cells = 0;
    s->k = -1;
    s->ncells = 0;
    s->ndiag = (int32_t)(m + n);
    s->phase = MM_ENDS;
    s->part = 0;
    s->nparts = 1;
    s->first_ord = 0;
    for (uint32_t i = 1; i <= m; ++i) {
        if (R->r[i - 1] >> 16) return PK_TOO_BIG;
        pk_set2(&s->rem0, &s->rem1, i - 1, R->r[i - 1]);
    }
    uint64_t lir = ~(uint64_t)0;            /* byte i - 1: row i's last cell, 0xff none */
    for (uint32_t j = 1; j <= n; ++j) {
        const uint32_t sj = S->r[j - 1];
        const int32_t first = s->ncells;
        if (sj >> 16) return PK_TOO_BIG;
        pk_set2(&s->col0, &s->col1, j - 1, sj);
        for (uint32_t i = 1; i <= m && sj; ++i)
            if (R->r[i - 1] >> j) {
                if (s->ncells == PK_CELLS) return PK_TOO_BIG;
                lir = (lir & ~((uint64_t)0xff << (8 * (i - 1)))) | (uint64_t)s->ncells << (8 * (i - 1));
                s->cells |= (uint64_t)((i - 1) | (j - 1) << 3) << (8 * s->ncells);
                s->ncells++;
            }
        if (s->ncells > first) s->cells |= (uint64_t)COL_END << (8 * (s->ncells - 1) + 6);
        else if (!pk_fix(s, j, sj)) return PK_ZERO;
    }
    for (uint32_t i = 1; i <= m; ++i) {
        const uint32_t l = (uint32_t)(lir >> (8 * (i - 1)) & 0xff);
        if (l != 0xff) s->cells |= (uint64_t)ROW_END << (8 * l + 6);
        else if (!pk_fix(s, i, R->r[i - 1])) return PK_ZERO;
    }
    return PK_READY;
}

MILNOR_HD static inline void pk_split(pk_search *s, uint32_t part, uint32_t nparts)
{
    s->part = part;
    s->nparts = nparts ? nparts : 1;
}

MILNOR_HD static inline int pk_place_ends(pk_search *s, uint32_t c)
{
    const uint32_t i = pk_cell_i(c), j = pk_cell_j(c), ends = pk_cell_ends(c), rem = pk_rem(s, i);
    if (!(ends & ROW_END)) {
        if (rem & pk_mask(s, i) & ((2u << j) - 1)) return 0;
    } else if (!pk_fix(s, i, rem))
        return 0;
    if ((ends & COL_END) && !pk_fix(s, j, pk_col(s, j))) {
        if (ends & ROW_END) pk_mask_xor(s, i, rem);
        return 0;
    }
    return 1;
}

MILNOR_HD static inline void pk_remove_ends(pk_search *s, uint32_t c)
{
    const uint32_t i = pk_cell_i(c), j = pk_cell_j(c), ends = pk_cell_ends(c);
    if (ends & COL_END) pk_mask_xor(s, j, pk_col(s, j));
    if (ends & ROW_END) pk_mask_xor(s, i, pk_rem(s, i));
}

/* The length of T at the leaf the search is at (T's entries are the masks: pk_mask). */
MILNOR_HD static inline int pk_leaf_len(const pk_search *s)
{
    int len = 0;
    for (int n = 1; n <= s->ndiag; ++n)
        if (pk_mask(s, (uint32_t)n)) len = n;
    return len;
}

/* milnor_seqno_index of the leaf's T (of length len) in degree d. */
MILNOR_HD static inline uint32_t pk_seqno_index(const pk_search *s, const uint32_t *g, deg_t d, int len)
{
    uint32_t cur = (uint32_t)d, rank = 0;
    for (int h = len - 1; h >= 1; --h) {
        const uint32_t th = pk_mask(s, (uint32_t)h + 1);
        if (!th) continue;
        const uint32_t below = cur - th * mm_xi_degree(h);
        rank += g[cur * MILNOR_MAX_LEN + h] - g[below * MILNOR_MAX_LEN + h];
        cur = below;
    }
    return rank;
}

/* mm_step on the packed state: the length of T at a leaf (its entries: pk_mask(s, 1..len),
 * valid until the next call), MM_STEP_ON when this step found none, -1 when the search is
 * over. The leaves come in mm_step's order; a step after a leaf also takes the leaf's ends
 * off, as mm_step does at the leaf itself: the same steps. */
MILNOR_HD static inline int pk_step(pk_search *s)
{
    int32_t k = s->k;
    if (s->ncells <= 0) {                           /* no cells: one matrix, part 0's */
        const int first = s->ncells == 0 && s->part == 0;
        s->ncells = -1;
        return first ? pk_leaf_len(s) : -1;
    }
    if (k < 0) {                                    /* first call: cell 0 at value 0 */
        k = s->k = 0;
        s->phase = MM_ENDS;
    }
    const uint32_t c = pk_cell(s, k), i = pk_cell_i(c), j = pk_cell_j(c), n = i + j;
    if (s->phase == PK_AFTER_LEAF) {               /* T was read: then advance, as mm_step */
        pk_remove_ends(s, c);
        s->phase = MM_ADVANCE;
    }
    if (s->phase == MM_ENDS) {
        if ((k == 0 && s->nparts > 1 && s->first_ord++ % s->nparts != s->part) || !pk_place_ends(s, c)) {
            s->phase = MM_ADVANCE;
            return MM_STEP_ON;
        }
        if (k + 1 < s->ncells) {
            s->k = k + 1;                           /* its value is 0 already */
            return MM_STEP_ON;
        }
        s->phase = PK_AFTER_LEAF;                   /* the caller reads T first */
        return pk_leaf_len(s);
    }
    uint32_t x = pk_val(s, k), rem = pk_rem(s, i) + (x << j), col = pk_col(s, j), m;
    col += x;
    pk_mask_xor(s, n, x);
    m = pk_mask(s, n);
    x = ((x | m) + 1) & ~m;
    if ((x << j) <= rem && x <= col) {
        pk_set2(&s->rem0, &s->rem1, i - 1, rem - (x << j));
        pk_set2(&s->col0, &s->col1, j - 1, col - x);
        pk_mask_xor(s, n, x);
        pk_set2(&s->val0, &s->val1, (uint32_t)k, x);
        s->phase = MM_ENDS;
        return MM_STEP_ON;
    }
    pk_set2(&s->rem0, &s->rem1, i - 1, rem);
    pk_set2(&s->col0, &s->col1, j - 1, col);
    pk_set2(&s->val0, &s->val1, (uint32_t)k, 0);
    if (k == 0) {
        s->ncells = -1;
        return -1;
    }
    s->k = k - 1;
    pk_remove_ends(s, pk_cell(s, k - 1));
    return MM_STEP_ON;
}

#endif
