/* milnor_halves.h — the R-halves of a job's Milnor matrices, for the GPU's "halves" kernel
 * (algebra/milnor_cuda.cu): enumeration without recursion and the test of one half against one
 * term, written once for the device and the host (every function `static inline`, under nvcc
 * __host__ __device__ via MILNOR_HD), so tests/t-milnor-halves.c runs them on the CPU against
 * the reference search. Includes nothing but milnor_search.h (so nothing of StarPU).
 *
 * Maths (docs/algorithms.md §2.3; the CPU's milnor_mul_batch does the same with 16-bit lanes).
 * For a fixed Sq(R), a Milnor matrix X splits into its R-half (the entries x_ij, i >= 1) and
 * the free entries x_0j = s_j - cs_j, where cs_j = sum_{i>=1} x_ij. A half is kept when its
 * entries on each anti-diagonal n have pairwise disjoint bits; mk_n = their OR. The half gives
 * a matrix with odd coefficient for Sq(S) iff for every n: cs_n <= s_n and (s_n - cs_n) & mk_n
 * = 0, and then t_n = (s_n - cs_n) | mk_n. A job (one R, terms S_1..S_k) enumerates its halves
 * once, pruned by its terms: cs_j <= max_k s_j and sum_j cs_j (2^j - 1) <= max_k |S_k|; every
 * (half, term) pair is then a short test, the same few steps for every pair, which is what a
 * GPU's threads need (the search of milnor_search.h differs in length from product to product).
 *
 * Enumeration. Cells (i, j), i = 1..len R, j = 1..top_i (2^j <= r_i, j <= the last column any
 * term has) are filled row by row; x_i0 = what is left of r_i goes on diagonal i when row i is
 * done. A depth-first odometer with an explicit stack of at most MH_DEPTH cells (the cells that
 * were free when reached; beyond that, or beyond `cap` halves, the enumeration gives up and the
 * caller falls back to the search).
 *
 * Layout. A half is 32 16-bit words (64 bytes): cs[0] = nd (the last diagonal with mk_n != 0),
 * cs[1..10] the column sums, mk[1..20] the diagonal masks (mk[0] unused). Every entry is at most
 * MILNOR_MAX_DEGREE < 2^16. */
#ifndef EXTFLOW_MILNOR_HALVES_H
#define EXTFLOW_MILNOR_HALVES_H
#include "algebra/milnor_search.h"

#define MH_COLS MILNOR_MAX_LEN          /* columns j = 1..10 */
#define MH_DIAGS (2 * MILNOR_MAX_LEN)   /* diagonals n = 1..20 */
#define MH_DEPTH 48                     /* free cells on the enumeration's stack */

typedef struct mh_half {
    uint16_t cs[MH_COLS + 1];           /* cs[0]: nd */
    uint16_t mk[MH_DIAGS + 1];          /* mk[0]: unused */
} mh_half;

/* A job's bounds: smax[j] = max over its terms of s_j (j = 1..10; smax[0] = 0), *maxdeg = the
 * largest |S|. elts, first: the flat basis's element records and first-index table. */
MILNOR_HD static inline void mh_job_bounds(const milnor_elt *elts, const uint32_t *first, const milnor_row_job *job,
                                           const milnor_term *terms, uint32_t *smax, int32_t *maxdeg)
{
    for (int j = 0; j <= MH_COLS; ++j) smax[j] = 0;
    *maxdeg = 0;
    for (uint32_t k = 0; k < job->n_terms; ++k) {
        const milnor_term *tm = &terms[job->first_term + k];
        const milnor_elt *S = &elts[first[tm->s_deg] + tm->s_idx];
        if (S->degree > *maxdeg) *maxdeg = S->degree;
        for (uint32_t n = 0; n < S->len; ++n)
            if (S->r[n] > smax[n + 1]) smax[n + 1] = S->r[n];
    }
}

/* One free cell on the enumeration's stack: its place, its value, and r_i's rest on entry. */
typedef struct mh_frame {
    uint8_t i, j;
    uint16_t x, rem;
} mh_frame;

/* Writes the half held in cs/mk (diagonals 1..ndmax) to *out. */
MILNOR_HD static inline void mh_store(mh_half *out, const uint32_t *cs, const uint32_t *mk, int ndmax)
{
    int nd = ndmax;
    while (nd > 0 && !mk[nd]) --nd;
    out->cs[0] = (uint16_t)nd;
    for (int j = 1; j <= MH_COLS; ++j) out->cs[j] = (uint16_t)cs[j];
    out->mk[0] = 0;
    for (int n = 1; n <= MH_DIAGS; ++n) out->mk[n] = (uint16_t)mk[n];
}

/* The halves of R under the bounds (smax, maxdeg), in depth-first order, into out[0..) (NULL:
 * count only). Returns their number, or -1 when there are more than cap or the stack would
 * exceed MH_DEPTH. */
MILNOR_HD static inline int32_t mh_enum(const milnor_elt *R, const uint32_t *smax, int32_t maxdeg, mh_half *out,
                                        uint32_t cap)
{
    uint32_t r[MM_SIDE], cs[MH_COLS + 1], mk[MH_DIAGS + 1], rowend[MM_SIDE];
    int top[MM_SIDE];
    mh_frame f[MH_DEPTH];
    const int m = (int)R->len;
    int lastcol = 0, ndmax = 0;
    for (int j = 1; j <= MH_COLS; ++j) {
        cs[j] = 0;
        if (smax[j]) lastcol = j;
    }
    for (int n = 0; n <= MH_DIAGS; ++n) mk[n] = 0;
    for (int i = 1; i <= m; ++i) {
        r[i] = R->r[i - 1];
        int t = 0;
        while (t < lastcol && (r[i] >> (t + 1))) ++t;
        top[i] = t;
        if (i + t > ndmax) ndmax = i + t;
    }
    uint32_t count = 0;
    if (m == 0) {                                   /* Sq(0): the empty half */
        if (cap < 1) return -1;
        if (out) mh_store(out, cs, mk, 0);
        return 1;
    }
    int sp = 0, ended = 0, i = 1, j = 1;
    int32_t degleft = maxdeg;
    uint32_t rem = r[1];
    for (;;) {
        /* descend from cell (i, j) with rem left of r_i: skip cells that must be 0, push the
         * first free one at 0, end rows; stop at a clash or after a complete half */
        for (;; ++j) {
            if (rem & mk[i] & ((1u << j) - 1)) break;   /* x_i0's known low bits clash */
            if (j > top[i]) {
                if (mk[i] & rem) break;
                mk[i] |= rem;
                rowend[i] = rem;
                ended = i;
                if (i == m) {                       /* a complete half */
                    if (count == cap) return -1;
                    if (out) mh_store(&out[count], cs, mk, ndmax);
                    ++count;
                    break;
                }
                ++i;
                j = 0;                              /* the loop's ++j: column 1 of row i */
                rem = r[i];
                continue;
            }
            if ((rem >> j) && cs[j] < smax[j] && degleft >= (int32_t)((1u << j) - 1)) {
                if (sp == MH_DEPTH) return -1;
                f[sp].i = (uint8_t)i;
                f[sp].j = (uint8_t)j;
                f[sp].x = 0;
                f[sp].rem = (uint16_t)rem;
                ++sp;                               /* x_ij = 0 places nothing */
            }
        }
        /* back to the deepest cell with a next value */
        for (;;) {
            if (sp == 0) return (int32_t)count;
            mh_frame *fr = &f[sp - 1];
            while (ended >= fr->i) {                /* rows fr->i.. are undone */
                mk[ended] ^= rowend[ended];
                --ended;
            }
            const int n = fr->i + fr->j;
            const int32_t w = (int32_t)((1u << fr->j) - 1);
            uint32_t x = fr->x;
            mk[n] ^= x;
            cs[fr->j] -= x;
            degleft += (int32_t)x * w;
            uint32_t lim = (uint32_t)fr->rem >> fr->j;
            if (smax[fr->j] - cs[fr->j] < lim) lim = smax[fr->j] - cs[fr->j];
            if ((uint32_t)(degleft / w) < lim) lim = (uint32_t)(degleft / w);
            const uint32_t msk = mk[n];
            x = ((x | msk) + 1) & ~msk;
            if (x <= lim) {
                mk[n] |= x;
                cs[fr->j] += x;
                degleft -= (int32_t)x * w;
                fr->x = (uint16_t)x;
                i = fr->i;
                j = fr->j + 1;
                rem = (uint32_t)fr->rem - (x << fr->j);
                break;
            }
            --sp;
        }
    }
}

/* Half h against the term Sq(S): 1 and the index of Sq(T) in degree |R| + |S| into *idx when
 * the matrix has odd coefficient, else 0. g: the seqno table (milnor_seqno_index). */
MILNOR_HD static inline int mh_test(const mh_half *h, const milnor_elt *S, const uint32_t *g, uint32_t *idx)
{
    const int nd = h->cs[0], slen = (int)S->len;
    for (int n = 1; n <= nd; ++n) {
        const uint32_t b = n <= slen ? S->r[n - 1] : 0, c = n <= MH_COLS ? h->cs[n] : 0;
        if (c > b || ((b - c) & h->mk[n])) return 0;
    }
    int top = nd > slen ? nd : slen;
    if (top > MILNOR_MAX_LEN) top = MILNOR_MAX_LEN;     /* t_n = 0 beyond: |T| <= 2046 */
    /* the index bottom up: cur = sum_{n' <= n} t_n' |xi_n'| (as milnor_seqno_index, reversed) */
    uint32_t cur = ((slen >= 1 ? S->r[0] : 0) - h->cs[1]) | h->mk[1], rank = 0;
    for (int n = 2; n <= top; ++n) {
        const uint32_t b = n <= slen ? S->r[n - 1] : 0, c = n <= MH_COLS ? h->cs[n] : 0;
        const uint32_t t = (b - c) | h->mk[n], below = cur;
        cur += t * mm_xi_degree(n - 1);
        rank += g[cur * MILNOR_MAX_LEN + n - 1] - g[below * MILNOR_MAX_LEN + n - 1];
    }
    *idx = rank;
    return 1;
}

/* A block of the halves kernel holds the halves of up to `cap` of them in shared memory at
 * once, so it takes its jobs in rounds: the round from job `start` (of nj) runs the jobs
 * start, start + 1, ... while their counts cnt[] fit together; a job whose count is -1 or more
 * than cap is not in any round (the search takes it). Writes hstart[l] (its first half in the
 * pool) for the round's jobs and pre[0..end - start] (pre[q] = the round's items before its
 * job start + q, an item being one (half, term) pair; nterms[l] = job l's terms). Returns end
 * (> start while start < nj). */
MILNOR_HD static inline uint32_t mh_round(const int32_t *cnt, const uint32_t *nterms, uint32_t start, uint32_t nj,
                                          uint32_t cap, uint32_t *hstart, uint64_t *pre)
{
    uint32_t used = 0, l = start;
    pre[0] = 0;
    for (; l < nj; ++l) {
        const int fits = cnt[l] >= 0 && (uint32_t)cnt[l] <= cap;
        if (fits && used + (uint32_t)cnt[l] > cap) break;
        hstart[l] = used;
        const uint32_t c = fits ? (uint32_t)cnt[l] : 0;
        used += c;
        pre[l - start + 1] = pre[l - start] + (uint64_t)c * nterms[l];
    }
    return l;
}

/* Item `in` of a round's job l (an item is one half against one term, halves-major): its half
 * and term. */
MILNOR_HD static inline void mh_item(uint64_t in, uint32_t nterms, uint32_t *half, uint32_t *term)
{
    *half = (uint32_t)(in / nterms);
    *term = (uint32_t)(in % nterms);
}

#endif
