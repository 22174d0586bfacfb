/* milnor_p_search.h — one product Q(E)P(R)·Q(F)P(S) of A_p (p odd) as an iterative search,
 * and the flat odd-p basis both the CPU and the GPU read: written once for the host and the
 * device (every function `static inline`, under nvcc __host__ __device__, MP_HD), with no
 * recursion and no allocation, so that a GPU thread runs it in its own local memory. It
 * includes nothing but milnor_p.h: the kernel knows nothing of StarPU.
 *
 * Maths (milnor_p.h; docs/algorithms.md §9.3). The product is
 *     Q(E) · (P(R) Q(F)) · P(S):
 * (1) the Q phase moves the Q_k of F (k increasing) left past P(R) one at a time:
 *     P(R') Q_k = sum_{i>=0} Q_{k+i} P(R' - p^k e_i) (i = 0: R' unchanged; i >= 1 needs
 *     r'_i >= p^k), and Q_{k+i} joins the Q's already there with the sign (-1)^(number of
 *     them above k+i), or kills the term if Q_{k+i} is there. Each way of choosing the i's is
 *     one Q combination (G, R', sign); the search walks them depth first with an odometer.
 * (2) the P phase, for each Q combination, enumerates the matrices X of P(R')·P(S): free
 *     cells x_ij (rows i = 1..|R'|, columns j = |S|..1 in that order), each value v running
 *     over 0 .. min(rowrem / p^j, colrem_j) with base-p digits that add to the anti-diagonal's
 *     sum so far without a carry (Lucas: else b(X) = 0 mod p); x_i0 closes row i (the rest of
 *     r'_i) and x_0j closes column j (the rest of s_j), both checked the same way. The
 *     coefficient is the product, over the cells in the order placed, of (m + v choose v) mod
 *     p, m the diagonal's sum before v: a multinomial is such a product in any order, so
 *     this is b(X), the same as milnor_p.c's recursive walk computes.
 * Every term T = Q(G)P(T(X)) comes out with its coefficient c (1..p-1) and its index in the
 * basis of degree |X| + |Y| (the same index as milnor_p_index); the sum of the terms is the
 * product, as milnor_p_mul_each emits it (tests/t-milnor-p.c compares them on every pair in
 * a range). The search can be cut into nparts parts: the top-level branches (each Q
 * combination's first free cell value, or the combination itself when the P phase has no
 * free cell) are numbered in the order met, and part k takes those numbered k mod nparts.
 *
 * Flat basis (32-bit words; offsets from mpf_* below):
 *   [0] MILNOR_P_FLAT_MAGIC [1] p [2] max_degree [3] words in all [4] elements in all
 *   [5] nq [6] max_pdeg [7] 0; [8..16) w, [16..24) tau, [24..32) ppow (milnor_p_basis)
 *   first[d], d = 0..max_degree+1: index of degree d's first element (first[max_degree+1] =
 *   the total); the elements as milnor_p_elt records, degree by degree in index order;
 *   qoff ((max_degree+1) x nq); pseq_g ((max_pdeg+1) x MILNOR_P_MAX_LEN); pdim (max_pdeg+1);
 *   binom (p x p bytes, in words).
 * milnor_p_flat_write (milnor_p.h) writes it; milnor_p_flat_view reads it back as a basis.
 */
#ifndef EXTFLOW_MILNOR_P_SEARCH_H
#define EXTFLOW_MILNOR_P_SEARCH_H
#include "algebra/milnor_p.h"

#ifdef __CUDACC__
#define MP_HD __host__ __device__
#else
#define MP_HD
#endif

#ifdef __CUDA_ARCH__
#define MPS_POPCOUNT(x) __popc(x)
#else
#define MPS_POPCOUNT(x) __builtin_popcount(x)
#endif

#define MPS_L MILNOR_P_MAX_LEN
#define MILNOR_P_FLAT_MAGIC 0x4d504631u    /* "MPF1" */
#define MILNOR_P_FLAT_HEADER 32u
#define MILNOR_P_ELT_WORDS (sizeof(milnor_p_elt) / sizeof(uint32_t))

/* Word offsets of the flat basis's parts, from its header h. */
MP_HD static inline size_t mpf_first_at(void) { return MILNOR_P_FLAT_HEADER; }
MP_HD static inline size_t mpf_elts_at(const uint32_t *h) { return mpf_first_at() + (size_t)h[2] + 2; }
MP_HD static inline size_t mpf_qoff_at(const uint32_t *h) { return mpf_elts_at(h) + (size_t)h[4] * MILNOR_P_ELT_WORDS; }
MP_HD static inline size_t mpf_pseq_at(const uint32_t *h) { return mpf_qoff_at(h) + ((size_t)h[2] + 1) * h[5]; }
MP_HD static inline size_t mpf_pdim_at(const uint32_t *h) { return mpf_pseq_at(h) + ((size_t)h[6] + 1) * MPS_L; }
MP_HD static inline size_t mpf_binom_at(const uint32_t *h) { return mpf_pdim_at(h) + (size_t)h[6] + 1; }
MP_HD static inline size_t mpf_words(const uint32_t *h) { return mpf_binom_at(h) + ((size_t)h[1] * h[1] + 3) / 4; }

/* What the search reads: the prime's tables and pointers to the index tables. */
typedef struct mps_tables {
    uint32_t p, qdeg, nq;
    uint32_t w[MPS_L], tau[MPS_L], ppow[MPS_L];
    const uint8_t *binom;           /* binom[a * p + b] = (a choose b) mod p, a, b < p */
    const uint32_t *qoff;           /* qoff[d * nq + E] */
    const uint32_t *pseq_g;         /* (max_pdeg + 1) x MPS_L */
} mps_tables;

/* The tables of a flat basis. */
MP_HD static inline void mps_tables_of_flat(mps_tables *T, const uint32_t *flat)
{
    T->p = flat[1];
    T->qdeg = 2 * (flat[1] - 1);
    T->nq = flat[5];
    for (int k = 0; k < MPS_L; ++k) {
        T->w[k] = flat[8 + k];
        T->tau[k] = flat[16 + k];
        T->ppow[k] = flat[24 + k];
    }
    T->qoff = flat + mpf_qoff_at(flat);
    T->pseq_g = flat + mpf_pseq_at(flat);
    T->binom = (const uint8_t *)(flat + mpf_binom_at(flat));
}

/* The element i of degree d of a flat basis. */
MP_HD static inline const milnor_p_elt *mpf_elt(const uint32_t *flat, uint32_t d, uint32_t i)
{
    const milnor_p_elt *elts = (const milnor_p_elt *)(flat + mpf_elts_at(flat));
    return &elts[flat[mpf_first_at() + d] + i];
}

/* Index of Q(q)P(r[0..len)) (trimmed) in degree d: qoff, then the rank of the P part among
 * those of its P-degree (the seqno table, as milnor_p.c's pindex). */
MP_HD static inline uint32_t mps_index(const mps_tables *T, uint32_t d, uint32_t q, const uint32_t *r, uint32_t len)
{
    uint32_t qd = 0;
    for (int k = 0; k < MPS_L; ++k)
        if (q >> k & 1) qd += T->tau[k];
    uint32_t cur = (d - qd) / T->qdeg, rank = 0;
    for (int h = (int)len - 1; h >= 1; --h) {
        if (!r[h]) continue;
        uint32_t below = cur - r[h] * T->w[h];
        rank += T->pseq_g[cur * MPS_L + h] - T->pseq_g[below * MPS_L + h];
        cur = below;
    }
    return T->qoff[(size_t)d * T->nq + q] + rank;
}

/* (m + v choose v) mod p by Lucas: the product of the digits' binomials (binom: the p x p
 * table of milnor_p_basis), 0 on a carry. milnor_p.c's recursive product uses it too. */
MP_HD static inline uint32_t mps_lucas_factor(uint32_t p, const uint8_t *binom, uint32_t m, uint32_t v)
{
    uint32_t f = 1;
    while (v) {
        uint32_t dm = m % p, dv = v % p;
        if (dm + dv >= p) return 0;
        f = f * binom[(dm + dv) * p + dv] % p;
        m /= p;
        v /= p;
    }
    return f;
}

MP_HD static inline uint32_t mps_add_factor(const mps_tables *T, uint32_t m, uint32_t v)
{
    return mps_lucas_factor(T->p, T->binom, m, v);
}

/* The least v' > v whose digits add to m's without a carry, given that v's do (a mixed-radix
 * increment: digit k runs over 0 .. p - 1 - (digit k of m)); UINT32_MAX if none. */
MP_HD static inline uint32_t mps_next_nocarry(uint32_t p, uint32_t m, uint32_t v)
{
    uint64_t pw = 1;
    for (;;) {
        uint32_t dv = (uint32_t)(v / pw % p), dm = (uint32_t)(m / pw % p);
        if (dv + 1 + dm < p) return (uint32_t)(v + pw);
        v -= (uint32_t)(dv * pw);
        pw *= p;
        if (pw > UINT32_MAX) return UINT32_MAX;
    }
}

#define MPS_CELLS (MPS_L * MPS_L)

/* The state of one product's search (about 1 KB, on the caller's stack). */
typedef struct mps_search {
    const mps_tables *T;
    uint32_t degree;                /* |X| + |Y| */
    uint32_t part, nparts, branch;  /* this part of nparts; top-level branches met so far */
    uint32_t ns, s[MPS_L];          /* S */
    /* Q phase */
    int nf, qa, qstarted;           /* F's Q_k's, the odometer's depth, started? */
    uint32_t fk[MPS_L];             /* the k's of F, increasing */
    int qi[MPS_L];                  /* choice i at each depth (-1: none yet) */
    uint32_t qg[MPS_L + 1], qc[MPS_L + 1];  /* Q part and coefficient before each depth */
    uint32_t r[MPS_L];              /* R', changed in place by the choices */
    /* P phase of the current Q combination */
    int pstate;                     /* 0 idle, 1 matrices, 2 one term (a factor is a unit) */
    uint32_t g, nr;                 /* its Q part and R' trimmed length */
    int ncell, pc;                  /* free cells; the current one (-1: not started) */
    uint32_t val[MPS_CELLS], after[MPS_CELLS], x0[MPS_CELLS];  /* value, row rest after it, x_i0 */
    uint32_t coef[MPS_CELLS + 1];   /* coefficient before each cell */
    uint32_t colrem[MPS_L + 1];
    uint32_t m[2 * MPS_L + 1];      /* anti-diagonal sums */
} mps_search;

/* A term the search found: coefficient c (1..p-1) of basis element `index` of degree s->degree. */
typedef struct mps_term {
    uint32_t c, index;
} mps_term;

/* Starts the search of X·Y (|X| + |Y| within the tables' degree), part `part` of nparts. */
MP_HD static inline void mps_start(mps_search *s, const mps_tables *T, const milnor_p_elt *X, const milnor_p_elt *Y,
                                   uint32_t part, uint32_t nparts)
{
    s->T = T;
    s->degree = (uint32_t)(X->degree + Y->degree);
    s->part = part;
    s->nparts = nparts;
    s->branch = 0;
    s->ns = Y->len;
    for (int k = 0; k < MPS_L; ++k) {
        s->s[k] = Y->r[k];
        s->r[k] = X->r[k];
    }
    s->nf = 0;
    for (uint32_t k = 0; k < MPS_L; ++k)
        if (Y->q >> k & 1) s->fk[s->nf++] = k;
    s->qg[0] = X->q;
    s->qc[0] = 1;
    s->qa = 0;
    s->qstarted = 0;
    s->pstate = 0;
}

/* Depth a of the Q odometer: the next valid choice after qi[a] (undone first), placed. */
MP_HD static inline int mps_q_advance(mps_search *s, int a)
{
    const uint32_t k = s->fk[a], pk = s->T->ppow[k], G = s->qg[a];
    int i = s->qi[a];
    if (i > 0) s->r[i - 1] += pk;
    for (++i; k + (uint32_t)i < MPS_L; ++i) {
        const uint32_t b = k + (uint32_t)i;
        if (G >> b & 1) continue;                               /* Q_b Q_b = 0 */
        if (i > 0 && (pk == UINT32_MAX || s->r[i - 1] < pk)) continue;
        if (i > 0) s->r[i - 1] -= pk;
        s->qi[a] = i;
        s->qg[a + 1] = G | 1u << b;
        s->qc[a + 1] = MPS_POPCOUNT(G >> (b + 1)) & 1 ? s->T->p - s->qc[a] : s->qc[a];
        return 1;
    }
    s->qi[a] = i;
    return 0;
}

/* The next Q combination (in qg[nf], qc[nf], r): 1, or 0 when there is none left. */
MP_HD static inline int mps_q_next(mps_search *s)
{
    int a;
    if (!s->qstarted) {
        s->qstarted = 1;
        a = 0;
        if (s->nf == 0) return 1;
        s->qi[0] = -1;
    } else {
        if (s->nf == 0) return 0;
        a = s->nf - 1;
    }
    while (a >= 0) {
        if (!mps_q_advance(s, a)) {
            --a;
            continue;
        }
        if (++a == s->nf) return 1;
        s->qi[a] = -1;
    }
    return 0;
}

/* Free cell c: row i, column j, anti-diagonal i + j. */
MP_HD static inline void mps_cell(const mps_search *s, int c, uint32_t *i, uint32_t *j)
{
    *i = (uint32_t)c / s->ns + 1;
    *j = s->ns - (uint32_t)c % s->ns;
}

/* Cell c's first (fresh) or next value, with its row's x_i0 when it closes the row; placed.
 * 0 when there is none (the cell is then empty). */
MP_HD static inline int mps_cell_next(mps_search *s, int c, int fresh)
{
    const mps_tables *T = s->T;
    uint32_t i, j;
    mps_cell(s, c, &i, &j);
    const uint32_t n = i + j, pj = T->ppow[j], p = T->p;
    uint32_t v;
    if (fresh) {
        v = 0;
    } else {                                                  /* take the old value out */
        s->m[n] -= s->val[c];
        s->colrem[j] += s->val[c];
        if (j == 1) s->m[i] -= s->x0[c];
        v = mps_next_nocarry(p, s->m[n], s->val[c]);
    }
    const uint32_t rr = j == s->ns ? s->r[i - 1] : s->after[c - 1];
    uint32_t vmax = pj == UINT32_MAX ? 0 : rr / pj;
    if (vmax > s->colrem[j]) vmax = s->colrem[j];
    for (; v != UINT32_MAX && v <= vmax; v = mps_next_nocarry(p, s->m[n], v)) {
        uint32_t f = v ? mps_add_factor(T, s->m[n], v) : 1;
        const uint32_t rest = rr - v * pj;
        uint32_t f0 = 1;
        if (j == 1 && rest) f0 = mps_add_factor(T, s->m[i], rest);   /* x_i0 on diagonal i */
        if (!f || !f0) continue;
        if (c == 0 && s->branch++ % s->nparts != s->part) continue;
        s->val[c] = v;
        s->after[c] = rest;
        s->m[n] += v;
        s->colrem[j] -= v;
        if (j == 1) {
            s->x0[c] = rest;
            s->m[i] += rest;
        }
        s->coef[c + 1] = s->coef[c] * f % p * f0 % p;
        return 1;
    }
    return 0;
}

/* The term of the matrix now complete: the columns' x_0j, then T and its index. 0 if b(X) = 0. */
MP_HD static inline int mps_leaf(mps_search *s, mps_term *out)
{
    const mps_tables *T = s->T;
    uint32_t c = s->coef[s->ncell], t[2 * MPS_L];
    const uint32_t n = s->nr + s->ns;
    for (uint32_t k = 1; k <= n; ++k) t[k - 1] = s->m[k];
    for (uint32_t j = 1; j <= s->ns; ++j) {
        const uint32_t v = s->colrem[j];
        if (!v) continue;
        const uint32_t f = mps_add_factor(T, s->m[j], v);
        if (!f) return 0;
        c = c * f % T->p;
        t[j - 1] += v;
    }
    uint32_t len = n;
    while (len > 0 && t[len - 1] == 0) --len;
    out->c = c;
    out->index = mps_index(T, s->degree, s->g, t, len);
    return 1;
}

/* Sets up the P phase of the Q combination just found. */
MP_HD static inline void mps_p_start(mps_search *s)
{
    s->g = s->qg[s->nf];
    uint32_t nr = MPS_L;
    while (nr > 0 && s->r[nr - 1] == 0) --nr;
    s->nr = nr;
    if (nr == 0 || s->ns == 0) {                              /* P() P(S) = P(S), P(R') P() = P(R') */
        s->pstate = 2;
        return;
    }
    s->pstate = 1;
    s->ncell = (int)(nr * s->ns);
    s->pc = -1;
    s->coef[0] = s->qc[s->nf];
    for (int k = 0; k <= 2 * MPS_L; ++k) s->m[k] = 0;
    for (uint32_t j = 1; j <= s->ns; ++j) s->colrem[j] = s->s[j - 1];
}

/* The next term of the P phase: 1, or 0 when the combination is done. */
MP_HD static inline int mps_p_next(mps_search *s, mps_term *out)
{
    if (s->pstate == 2) {
        s->pstate = 0;
        if (s->branch++ % s->nparts != s->part) return 0;
        const uint32_t *t = s->nr ? s->r : s->s;
        const uint32_t len = s->nr ? s->nr : s->ns;
        out->c = s->qc[s->nf];
        out->index = mps_index(s->T, s->degree, s->g, t, len);
        return 1;
    }
    int c = s->pc, fresh = 0;
    if (c < 0) {
        c = 0;
        fresh = 1;
    }
    for (;;) {
        if (!mps_cell_next(s, c, fresh)) {
            if (--c < 0) {
                s->pstate = 0;
                return 0;
            }
            fresh = 0;
            continue;
        }
        if (c == s->ncell - 1) {
            s->pc = c;
            if (mps_leaf(s, out)) return 1;
            fresh = 0;
            continue;
        }
        ++c;
        fresh = 1;
    }
}

/* The next term of the product (in any order; a basis element may come more than once): 1,
 * or 0 at the end. */
MP_HD static inline int mps_next(mps_search *s, mps_term *out)
{
    for (;;) {
        if (s->pstate && mps_p_next(s, out)) return 1;
        if (!mps_q_next(s)) return 0;
        mps_p_start(s);
    }
}

#endif
