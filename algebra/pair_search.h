/* pair_search.h — the mod-4 Milnor product Sq(R)·Sq(S) in B0 (pair_algebra.h), as a search
 * without recursion or callbacks, so that one text serves the GPU kernel
 * (algebra/pair_cuda.cu) and a CPU emulation of it (tests/t-pair-search.c). Every function is
 * `static inline` and, under nvcc, __host__ __device__ (MILNOR_HD, algebra/milnor_search.h);
 * it includes nothing but milnor.h and milnor_search.h, so it knows nothing of StarPU.
 *
 * Maths (pair_algebra.h, "Mod-4 coefficients"). Sq(R)·Sq(S) in B0 is the sum over Milnor
 * matrices X of c(X)·Sq(T(X)), t_n the sum of anti-diagonal n, c(X) the product over n of the
 * multinomials of the diagonals' entries, mod 4. By Kummer the 2-adic valuation of a
 * multinomial is the number of binary carries in adding its entries, so only matrices with at
 * most one carry in all count: one carry gives c = 2, none gives c = ±1, the sign the XOR of
 * odd_fact_sign over every entry and every t_n. The search is that of milnor_mul_mod4_each
 * (algebra/pair_algebra.c), the same cells in the same order, the same values for each cell
 * (first those adding no carry to their diagonal, ascending; then, while no carry has been
 * made, for each bit p of the diagonal's partial sum P with bit p+1 clear, the values with
 * bit p and no other bit of P nor bit p+1, ascending), the same tests when a row's or a
 * column's last cell places x_i0 or x_0j; so it emits the same (T, c), in the same order.
 * Its recursion becomes an explicit stack of cells (val, the carry bit each took, the carries
 * and sign before it), as mm_next does for the mod-2 search. pm4_split shares one product's
 * matrices among threads exactly as mm_split does: part p keeps the values of the first cell
 * whose rank is p mod nparts.
 *
 * Accumulation. A row holds Z/4 coefficients as two bit-planes: bit c of the ones plane and bit
 * c of the twos plane (twos_at words further on) are the coefficient's bits 0 and 1, the
 * layout of pair_elt's ones and twos. Adding c = c0 + 2 c1: flip ones, and when the old ones
 * bit was set (the carry) flip twos; flip twos again when c1. Flips commute, and the carry is
 * decided by the old value of one atomic XOR on the ones word, so concurrent adds in any
 * order leave exactly the Z/4 sum (pm4_add; plain XORs on the CPU).
 *
 * Layout: pm4_search (about 1.2 KB) lives on the caller's stack (a GPU thread's local memory).
 * Jobs, terms and the flat basis are milnor.h's (milnor_row_job, milnor_term, milnor_flat_*). */
#ifndef EXTFLOW_PAIR_SEARCH_H
#define EXTFLOW_PAIR_SEARCH_H
#include "algebra/milnor.h"
#include "algebra/milnor_search.h"

#define PM4_SIDE (MILNOR_MAX_LEN + 1)                   /* row/column 0 plus 10 slots */
#define PM4_CELLS (MILNOR_MAX_LEN * MILNOR_MAX_LEN)
#define PM4_NO_CARRY 0xffu                              /* bitp: the cell's value adds no carry */

enum { PM4_ROW_END = 1, PM4_COL_END = 2 };

typedef struct pm4_search {
    uint32_t rem[PM4_SIDE], col[PM4_SIDE];              /* what rows / columns have left */
    uint32_t dsum[2 * PM4_SIDE];                        /* partial sums of the diagonals */
    uint32_t val[PM4_CELLS];                            /* each cell's current value */
    uint8_t ci[PM4_CELLS], cj[PM4_CELLS], cends[PM4_CELLS];
    uint8_t bitp[PM4_CELLS];                            /* the carry's bit, or PM4_NO_CARRY */
    uint8_t saved[PM4_CELLS];                           /* carries | sign << 1 before the cell */
    int ncells;                                         /* -1 once the search is over */
    int ndiag, k;                                       /* k: current cell, -1 before the first */
    unsigned carries, sign;                             /* carries so far (<= 1); XOR of signs */
    uint32_t part, nparts, first_ord;                   /* pm4_split */
} pm4_search;

MILNOR_HD static inline int pm4_popcount(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

MILNOR_HD static inline int pm4_ctz(uint32_t x)         /* x != 0 */
{
#ifdef __CUDA_ARCH__
    return __ffs((int)x) - 1;
#else
    return __builtin_ctz(x);
#endif
}

/* (-1)^(number of factors 3 mod 4 in the odd part of m!): 0 for +1, 1 for -1 (pair_algebra.h). */
MILNOR_HD static inline unsigned pm4_odd_fact_sign(uint32_t m)
{
    unsigned e = 0;
    for (; m; m >>= 1) e += (m + 1) >> 2;
    return e & 1;
}

MILNOR_HD static inline unsigned pm4_carries(uint32_t p, uint32_t v)
{
    return (unsigned)(pm4_popcount(p) + pm4_popcount(v) - pm4_popcount(p + v));
}

/* Adds x to diagonal n; 0 (nothing added) if that makes two carries in all. */
MILNOR_HD static inline int pm4_place(pm4_search *s, int n, uint32_t x)
{
    unsigned c = pm4_carries(s->dsum[n], x);
    if (s->carries + c > 1) return 0;
    s->dsum[n] += x;
    s->carries += c;
    s->sign ^= pm4_odd_fact_sign(x);
    return 1;
}

/* Sets up the cells (column by column, as milnor_mul_mod4_each) and places the rows and
 * columns that have none; 0 if the product is 0 already. */
MILNOR_HD static inline int pm4_setup(pm4_search *s, const milnor_elt *R, const milnor_elt *S)
{
    int lr = (int)R->len, ls = (int)S->len, last_in_row[PM4_SIDE];
    s->ncells = 0;
    s->k = -1;
    s->ndiag = lr + ls;
    s->carries = s->sign = 0;
    s->part = 0;
    s->nparts = 1;
    s->first_ord = 0;
    for (int n = 0; n < 2 * PM4_SIDE; ++n) s->dsum[n] = 0;
    for (int i = 0; i < PM4_SIDE; ++i) s->rem[i] = s->col[i] = 0;
    for (int i = 1; i <= lr; ++i) {
        s->rem[i] = R->r[i - 1];
        last_in_row[i] = -1;
    }
    for (int j = 1; j <= ls; ++j) {
        int first = s->ncells;
        s->col[j] = S->r[j - 1];
        for (int i = 1; i <= lr && s->col[j]; ++i)
            if (s->rem[i] >> j) {
                last_in_row[i] = s->ncells;
                s->ci[s->ncells] = (uint8_t)i;
                s->cj[s->ncells] = (uint8_t)j;
                s->cends[s->ncells] = 0;
                s->ncells++;
            }
        if (s->ncells > first) s->cends[s->ncells - 1] = PM4_COL_END;
        else if (!pm4_place(s, j, s->col[j])) return 0;
    }
    for (int i = 1; i <= lr; ++i) {
        if (last_in_row[i] >= 0) s->cends[last_in_row[i]] |= PM4_ROW_END;
        else if (!pm4_place(s, i, s->rem[i])) return 0;
    }
    return 1;
}

/* After pm4_setup, before pm4_next: this search visits part `part` of `nparts` (see above). */
MILNOR_HD static inline void pm4_split(pm4_search *s, uint32_t part, uint32_t nparts)
{
    s->part = part;
    s->nparts = nparts ? nparts : 1;
}

/* Cell k takes the value v, which adds c carries to its diagonal. */
MILNOR_HD static inline void pm4_take(pm4_search *s, int k, uint32_t v, unsigned c)
{
    int i = s->ci[k], j = s->cj[k];
    s->val[k] = v;
    s->rem[i] -= v << j;
    s->col[j] -= v;
    s->dsum[i + j] += v;
    s->carries += c;
    s->sign ^= pm4_odd_fact_sign(v);
}

/* Cell k's first value: 0 (no carry). */
MILNOR_HD static inline void pm4_first(pm4_search *s, int k)
{
    s->saved[k] = (uint8_t)(s->carries | s->sign << 1);
    s->bitp[k] = PM4_NO_CARRY;
    s->val[k] = 0;
}

/* Places what cell k completes: x_i0 at a row's last cell (else the known low bits of x_i0,
 * rem mod 2^{j+1}, must not make the second carry), x_0j at a column's last cell. 0 if that
 * makes two carries: then nothing of it stays on the diagonals (carries and sign are restored
 * by pm4_advance from saved). */
MILNOR_HD static inline int pm4_ends(pm4_search *s, int k)
{
    int i = s->ci[k], j = s->cj[k], ends = s->cends[k];
    if (ends & PM4_ROW_END) {
        if (!pm4_place(s, i, s->rem[i])) return 0;
    } else {
        uint32_t m = (2u << j) - 1;
        if (s->carries + pm4_carries(s->dsum[i] & m, s->rem[i] & m) > 1) return 0;
    }
    if ((ends & PM4_COL_END) && !pm4_place(s, j, s->col[j])) {
        if (ends & PM4_ROW_END) s->dsum[i] -= s->rem[i];
        return 0;
    }
    return 1;
}

/* Takes back from the diagonals what pm4_ends placed for cell k. */
MILNOR_HD static inline void pm4_unends(pm4_search *s, int k)
{
    int i = s->ci[k], j = s->cj[k], ends = s->cends[k];
    if (ends & PM4_COL_END) s->dsum[j] -= s->col[j];
    if (ends & PM4_ROW_END) s->dsum[i] -= s->rem[i];
}

/* Takes back cell k's value and gives it the next one in the order above; 0 (the cell empty,
 * carries and sign as before it) when it has none left. */
MILNOR_HD static inline int pm4_advance(pm4_search *s, int k)
{
    int i = s->ci[k], j = s->cj[k];
    uint32_t v = s->val[k];
    s->rem[i] += v << j;
    s->col[j] += v;
    s->dsum[i + j] -= v;
    s->carries = s->saved[k] & 1u;
    s->sign = (unsigned)s->saved[k] >> 1;
    uint32_t P = s->dsum[i + j], lim = s->rem[i] >> j, rest;
    if (s->col[j] < lim) lim = s->col[j];
    if (s->bitp[k] == PM4_NO_CARRY) {
        v = ((v | P) + 1) & ~P;                         /* the next value with no carry */
        if (v <= lim) {
            pm4_take(s, k, v, 0);
            return 1;
        }
        if (s->carries) return 0;
        rest = P;                                       /* the carry values, from bit 0 */
    } else {
        int p = s->bitp[k];
        uint32_t bit = 1u << p, F = P | bit | (bit << 1);
        uint32_t y = (((v & ~bit) | F) + 1) & ~F;
        if ((y | bit) <= lim) {
            pm4_take(s, k, y | bit, 1);
            return 1;
        }
        rest = P & ~((2u << p) - 1);                    /* the bits of P above p */
    }
    for (; rest; rest &= rest - 1) {
        int p = pm4_ctz(rest);
        uint32_t bit = 1u << p;
        if ((P & (bit << 1)) || bit > lim) continue;
        s->bitp[k] = (uint8_t)p;
        pm4_take(s, k, bit, 1);
        return 1;
    }
    s->val[k] = 0;
    return 0;
}

/* T of the complete matrix into t[0..MILNOR_MAX_LEN) and its coefficient into *c; T's length,
 * or -1 if T needs a slot beyond MILNOR_MAX_LEN (beyond every degree a basis holds). */
MILNOR_HD static inline int pm4_leaf(const pm4_search *s, uint32_t *t, unsigned *c)
{
    unsigned sign = s->sign;
    int len = 0;
    for (int n = 1; n <= MILNOR_MAX_LEN; ++n) t[n - 1] = 0;
    for (int n = 1; n <= s->ndiag; ++n) {
        uint32_t x = s->dsum[n];
        if (!x) continue;
        if (n > MILNOR_MAX_LEN) return -1;
        t[n - 1] = x;
        len = n;
        sign ^= pm4_odd_fact_sign(x);
    }
    *c = s->carries ? 2u : (sign ? 3u : 1u);
    return len;
}

/* The next matrix with coefficient not 0 mod 4: T into t, the coefficient into *c; returns
 * T's length, or -1 when the search is over. */
MILNOR_HD static inline int pm4_next(pm4_search *s, uint32_t *t, unsigned *c)
{
    int k = s->k, len, advance;
    if (s->ncells < 0) return -1;
    if (k < 0) {                                        /* first call */
        if (s->ncells == 0) {
            s->ncells = -1;                             /* the only matrix */
            return s->part == 0 ? pm4_leaf(s, t, c) : -1;
        }
        pm4_first(s, k = 0);
        advance = 0;
    } else {                                            /* resume after the leaf at cell k */
        pm4_unends(s, k);
        advance = 1;
    }
    for (;;) {
        if (!advance) {
            /* each arrival here with k == 0 is a new value of the first cell */
            if ((k == 0 && s->nparts > 1 && s->first_ord++ % s->nparts != s->part) || !pm4_ends(s, k)) {
                advance = 1;
            } else if (k + 1 < s->ncells) {
                pm4_first(s, ++k);
                continue;
            } else {
                s->k = k;
                if ((len = pm4_leaf(s, t, c)) >= 0) return len;
                pm4_unends(s, k);
                advance = 1;
            }
        }
        while (!pm4_advance(s, k)) {
            if (k == 0) {
                s->ncells = -1;
                return -1;
            }
            pm4_unends(s, --k);
        }
        advance = 0;
    }
}

/* old ^ bit at *w, returning the old word: one atomic XOR on the GPU. */
MILNOR_HD static inline uint64_t pm4_xor(uint64_t *w, uint64_t bit)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)atomicXor((unsigned long long *)w, (unsigned long long)bit);
#else
    uint64_t old = *w;
    *w = old ^ bit;
    return old;
#endif
}

/* The coefficient at bit col of the row (ones plane at row, twos plane at row + twos_at) += c
 * in Z/4 (see Accumulation above). */
MILNOR_HD static inline void pm4_add(uint64_t *row, uint64_t twos_at, uint64_t col, unsigned c)
{
    uint64_t bit = 1ull << (col & 63), w = col >> 6;
    unsigned carry = 0;
    if (c & 1) carry = (pm4_xor(row + w, bit) & bit) != 0;
    if (carry ^ ((c >> 1) & 1)) pm4_xor(row + twos_at + w, bit);
}

/* One work item of a batch: part `part` of `nparts` of Sq(R)·Sq(S) for job's R and term tm's S,
 * added into row (that job's row) at tm.col_offset. flat is a whole algebra's flat basis
 * (milnor_flat_write) through degree |R| + |S|. The GPU kernel runs every item of every job;
 * the CPU emulation in tests/t-pair-search.c runs them one after the other. */
MILNOR_HD static inline void pm4_item(const uint32_t *flat, milnor_row_job job, milnor_term tm, uint64_t *row,
                                      uint64_t twos_at, uint32_t part, uint32_t nparts)
{
    const uint32_t md = flat[1], total = flat[2];
    const uint32_t *first = flat + MILNOR_FLAT_HEADER;
    const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md));
    const uint32_t *g = flat + MILNOR_FLAT_SEQNO_AT(md, total);
    const milnor_elt *R = &elts[first[job.r_deg] + job.r_idx];
    const milnor_elt *S = &elts[first[tm.s_deg] + tm.s_idx];
    const deg_t d = R->degree + S->degree;
    pm4_search s;
    uint32_t t[MILNOR_MAX_LEN];
    unsigned c;
    int len;
    if (!pm4_setup(&s, R, S)) return;
    pm4_split(&s, part, nparts);
    while ((len = pm4_next(&s, t, &c)) >= 0)
        pm4_add(row, twos_at, (uint64_t)tm.col_offset + milnor_seqno_index(g, d, t, (uint32_t)len), c);
}

#endif
