/* milnor_search.h — the Milnor-matrix search of one product Sq(R)·Sq(S) and the seqno index,
 * written once for the CPU (algebra/milnor.c) and the GPU (algebra/milnor_cuda.cu): every
 * function is `static inline` and, under nvcc, __host__ __device__ (MILNOR_HD). Plain C11 and
 * CUDA C++ both compile it; it includes nothing but milnor.h, so the kernel knows nothing of
 * StarPU.
 *
 * Maths: Sq(R)·Sq(S) = sum over Milnor matrices X with odd coefficient of Sq(T(X)); the
 * coefficient is odd iff the entries on each anti-diagonal n = i + j have no binary carry
 * (pairwise disjoint bits), and then t_n = OR of those entries (docs/algorithms.md §2.1, §2.2).
 *
 * Layout: the search state (mm_search, about 1 KB) lives on the caller's stack (a GPU thread's
 * local memory); index tables are the seqno table g[e * MILNOR_MAX_LEN + h] of milnor_basis.
 */
#ifndef EXTFLOW_MILNOR_SEARCH_H
#define EXTFLOW_MILNOR_SEARCH_H
#include "algebra/milnor.h"

#ifdef __CUDACC__
#define MILNOR_HD __host__ __device__
#else
#define MILNOR_HD
#endif

#define MM_SIDE (MILNOR_MAX_LEN + 1)    /* Milnor matrix side: row/column 0 plus 10 slots */

/* |xi_{h+1}| = 2^{h+1} - 1 without a table (a table would need a __constant__ copy). */
MILNOR_HD static inline uint32_t mm_xi_degree(int h) { return (2u << h) - 1; }

/* Index of the element with entries t[0..len) (trimmed) in degree d of the whole algebra,
 * from the seqno table g (rank = sum over the non-zero slots, top down, of g differences). */
MILNOR_HD static inline uint32_t milnor_seqno_index(const uint32_t *g, deg_t d, const uint32_t *t,
                                                    uint32_t len)
{
    uint32_t cur = (uint32_t)d, rank = 0;
    for (int h = (int)len - 1; h >= 1; --h) {
        if (!t[h]) continue;
        uint32_t below = cur - t[h] * mm_xi_degree(h);
        rank += g[cur * MILNOR_MAX_LEN + h] - g[below * MILNOR_MAX_LEN + h];
        cur = below;
    }
    return rank;
}

/* Milnor matrices X are enumerated depth first over their interior entries x_ij (i, j >= 1;
 * the "cells"), each new entry taking only values with no bit in common with the entries
 * already placed on its anti-diagonal (next such value: ((x|mask)+1)&~mask). Once the last
 * cell of row i is placed, x_i0 (the rest of r_i) is placed on diagonal i; once the last
 * cell of column j is placed, x_0j (the rest of s_j) on diagonal j; each under the same
 * no-common-bit rule. So every leaf is a matrix whose multinomials
 * are all odd, and T is read off the diagonal masks. Entries that cannot be non-zero
 * (2^j > r_i or s_j = 0) are not cells; rows and columns without cells have their x_i0 = r_i,
 * x_0j = s_j placed before the search. No allocation: the state lives on the stack. */

enum { ROW_END = 1, COL_END = 2 };

typedef struct mm_cell {
    uint8_t i, j, n;                /* row, column, anti-diagonal i + j */
    uint8_t ends;                   /* ROW_END / COL_END: x_i0 / x_0j is placed after it */
} mm_cell;

typedef struct mm_search {
    uint32_t rem[MM_SIDE];          /* r_i minus the weight placed in row i */
    uint32_t col[MM_SIDE];          /* s_j minus the entries placed in column j */
    uint32_t mask[2 * MM_SIDE];     /* OR (= sum) of the entries placed on anti-diagonal n */
    uint32_t val[MILNOR_MAX_LEN * MILNOR_MAX_LEN];   /* current value of each cell */
    mm_cell cell[MILNOR_MAX_LEN * MILNOR_MAX_LEN];
    int ncells;                     /* -1 once the search is over */
    int ndiag;                      /* len R + len S */
    int k;                          /* current cell; -1 before the first matrix */
    uint32_t part, nparts;          /* mm_split: this search visits part `part` of `nparts` */
    uint32_t first_ord;             /* values the first cell has taken so far */
    int phase;                      /* mm_step: MM_ENDS or MM_ADVANCE next at cell k */
} mm_search;

/* Places an entry x on diagonal n; 0 (and nothing placed) if it shares a bit with it. */
MILNOR_HD static inline int mm_fix(mm_search *s, int n, uint32_t x)
{
    if (s->mask[n] & x) return 0;
    s->mask[n] |= x;
    return 1;
}

/* Places the remainders that cell c completes; 0 (nothing placed) on a clash. Inside a row,
 * x_i0 mod 2^{j+1} is already known (later cells weigh 2^{j+1} and more): test those bits. */
MILNOR_HD static inline int mm_place_ends(mm_search *s, mm_cell c)
{
    if (!(c.ends & ROW_END)) {
        if (s->rem[c.i] & s->mask[c.i] & ((2u << c.j) - 1)) return 0;
    } else if (!mm_fix(s, c.i, s->rem[c.i]))
        return 0;
    if ((c.ends & COL_END) && !mm_fix(s, c.j, s->col[c.j])) {
        if (c.ends & ROW_END) s->mask[c.i] ^= s->rem[c.i];
        return 0;
    }
    return 1;
}

MILNOR_HD static inline void mm_remove_ends(mm_search *s, mm_cell c)
{
    if (c.ends & COL_END) s->mask[c.j] ^= s->col[c.j];
    if (c.ends & ROW_END) s->mask[c.i] ^= s->rem[c.i];
}

/* Sets up the cells, their end flags and the fixed entries; 0 if the product is zero
 * already. Cells go column by column (j ascending, then i), so that each column's x_0j is
 * placed early and the known low bits of every x_i0 grow with j. */
MILNOR_HD static inline int mm_setup(mm_search *s, const milnor_elt *R, const milnor_elt *S)
{
    int m = (int)R->len, n = (int)S->len, last_in_row[MM_SIDE];
    s->ncells = 0;
    s->k = -1;
    s->part = 0;
    s->nparts = 1;
    s->first_ord = 0;
    s->ndiag = m + n;
    for (int n = 0; n < 2 * MM_SIDE; ++n) s->mask[n] = 0;
    for (int i = 1; i <= m; ++i) {
        s->rem[i] = R->r[i - 1];
        last_in_row[i] = -1;
    }
    for (int j = 1; j <= n; ++j) {
        int first = s->ncells;
        s->col[j] = S->r[j - 1];
        for (int i = 1; i <= m && s->col[j]; ++i)
            if (s->rem[i] >> j) {
                last_in_row[i] = s->ncells;
                mm_cell nc;
                nc.i = (uint8_t)i;
                nc.j = (uint8_t)j;
                nc.n = (uint8_t)(i + j);
                nc.ends = 0;
                s->cell[s->ncells++] = nc;
            }
        if (s->ncells > first) s->cell[s->ncells - 1].ends = COL_END;
        else if (!mm_fix(s, j, s->col[j])) return 0;
    }
    for (int i = 1; i <= m; ++i) {
        if (last_in_row[i] >= 0) s->cell[last_in_row[i]].ends |= ROW_END;
        else if (!mm_fix(s, i, s->rem[i])) return 0;
    }
    return 1;
}

/* T of the complete matrix at a leaf: t_n = mask of diagonal n. Returns its length. */
MILNOR_HD static inline int mm_leaf(const mm_search *s, uint32_t *t)
{
    int len = 0;
    for (int n = 1; n <= s->ndiag; ++n)
        if ((t[n - 1] = s->mask[n])) len = n;
    return len;
}

/* Gives cell k its next admissible value in place of its current one (row, column and
 * diagonal updated); 0, with the cell cleared to 0, when it has none. */
MILNOR_HD static inline int mm_next_value(mm_search *s, int k)
{
    const mm_cell c = s->cell[k];
    uint32_t x = s->val[k], m;
    s->rem[c.i] += x << c.j;
    s->col[c.j] += x;
    m = s->mask[c.n] ^= x;
    x = ((x | m) + 1) & ~m;
    if ((x << c.j) <= s->rem[c.i] && x <= s->col[c.j]) {
        s->rem[c.i] -= x << c.j;
        s->col[c.j] -= x;
        s->mask[c.n] |= x;
        s->val[k] = x;
        return 1;
    }
    s->val[k] = 0;
    return 0;
}

/* Gives cell *k its next admissible value, backtracking to earlier cells when it has none;
 * 0 when the search is over. */
MILNOR_HD static inline int mm_advance(mm_search *s, int *k)
{
    for (;;) {
        if (mm_next_value(s, *k)) return 1;
        if (*k == 0) return 0;
        mm_remove_ends(s, s->cell[--*k]);
    }
}

/* Advances the search to the next valid matrix and writes its T into t; returns the length
 * of T, or -1 when there is none left. */
/* Splits one product's search into nparts disjoint parts (after mm_setup, before mm_next):
 * part p keeps the subtrees under the values of the first cell whose rank (0, 1, 2, ... in
 * the order the search takes them) is p mod nparts; a product without cells is part 0's. The
 * parts together visit each matrix exactly once, so GPU threads can share a long product. */
MILNOR_HD static inline void mm_split(mm_search *s, uint32_t part, uint32_t nparts)
{
    s->part = part;
    s->nparts = nparts ? nparts : 1;
}

MILNOR_HD static inline int mm_next(mm_search *s, uint32_t *t)
{
    int k = s->k;
    if (s->ncells < 0) return -1;
    if (k < 0) {                                    /* first call */
        if (s->ncells == 0) {
            s->ncells = -1;                         /* the only matrix */
            return s->part == 0 ? mm_leaf(s, t) : -1;
        }
        s->val[k = 0] = 0;
    } else {                                        /* resume after the leaf at cell k */
        mm_remove_ends(s, s->cell[k]);
        goto advance;
    }
    for (;;) {
        /* each arrival here with k == 0 is a new value of the first cell */
        if (k == 0 && s->nparts > 1 && s->first_ord++ % s->nparts != s->part) goto advance;
        if (!mm_place_ends(s, s->cell[k])) goto advance;
        if (k + 1 < s->ncells) {
            s->val[++k] = 0;
            continue;
        }
        s->k = k;
        return mm_leaf(s, t);
    advance:
        if (!mm_advance(s, &k)) {
            s->ncells = -1;
            return -1;
        }
    }
}

/* The same search one elementary step at a time, for GPU warps whose threads run different
 * searches: every call does one of two short things at cell k, so threads in the same call
 * stay together (mm_next's loops run to the next leaf, a different number of steps for
 * each thread). MM_ENDS: the value just given to cell k is in place; place what it completes
 * and go to cell k + 1 (value 0), or at the last cell report the leaf; MM_ADVANCE: give cell k
 * its next value, or clear it and go back to cell k - 1. After mm_setup and mm_split; returns
 * the length of T (in t) at a leaf, MM_STEP_ON when this step found none, -1 when the search
 * is over. The leaves, in order, are mm_next's. */
enum { MM_ENDS = 0, MM_ADVANCE = 1, MM_STEP_ON = -2 };

MILNOR_HD static inline int mm_step(mm_search *s, uint32_t *t)
{
    int k = s->k;
    if (s->ncells <= 0) {                           /* no cells: one matrix, part 0's */
        const int first = s->ncells == 0 && s->part == 0;
        s->ncells = -1;
        return first ? mm_leaf(s, t) : -1;
    }
    if (k < 0) {                                    /* first call */
        s->val[k = s->k = 0] = 0;
        s->phase = MM_ENDS;
    }
    const mm_cell c = s->cell[k];
    if (s->phase == MM_ENDS) {
        /* each arrival here with k == 0 is a new value of the first cell */
        if ((k == 0 && s->nparts > 1 && s->first_ord++ % s->nparts != s->part) || !mm_place_ends(s, c)) {
            s->phase = MM_ADVANCE;
            return MM_STEP_ON;
        }
        if (k + 1 < s->ncells) {
            s->val[s->k = k + 1] = 0;
            return MM_STEP_ON;
        }
        const int len = mm_leaf(s, t);
        mm_remove_ends(s, c);
        s->phase = MM_ADVANCE;
        return len;
    }
    if (mm_next_value(s, k)) {                      /* MM_ADVANCE */
        s->phase = MM_ENDS;
        return MM_STEP_ON;
    }
    if (k == 0) {
        s->ncells = -1;
        return -1;
    }
    s->k = k - 1;
    mm_remove_ends(s, s->cell[k - 1]);
    return MM_STEP_ON;
}

#endif
