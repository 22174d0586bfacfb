/* milnor_p.h — the Milnor basis of the mod p Steenrod algebra A_p, p an odd prime, and its
 * product (docs/algorithms.md §9). The mod 2 algebra is milnor.h; nothing here touches it.
 *
 * Maths. A_p has the Milnor basis Q(E)P(R): E = {e_1 < ... < e_k} a finite set of integers
 * >= 0 and Q(E) = Q_{e_1} Q_{e_2} ... Q_{e_k} in increasing order; R = (r_1, ..., r_l) as at
 * p = 2 (trailing zeros removed). With q = 2(p - 1):
 *     |Q_k| = 2p^k - 1,   |P(R)| = q · sum_i r_i (p^i - 1)/(p - 1),
 * so |P(R)| is a multiple of q and |Q_k| = 1 mod q. The product (Milnor 1958):
 *     Q_j Q_k = -Q_k Q_j,  Q_k Q_k = 0;
 *     P(R) Q_k = Q_k P(R) + sum_{i>=1} Q_{k+i} P(R - p^k e_i)   (terms with r_i < p^k left out);
 *     P(R) P(S) = sum over matrices X = (x_ij), i, j >= 0, x_00 unused, with
 *         rows i >= 1: sum_j p^j x_ij = r_i,   columns j >= 1: sum_i x_ij = s_j,
 *     of b(X) P(T), t_n = sum_{i+j=n} x_ij, b(X) = prod_n t_n! / prod_{i+j=n} x_ij!  mod p.
 * By Lucas b(X) != 0 iff every anti-diagonal adds up in base p without a carry, and then it is
 * the product over diagonals and base-p digits of the multinomials of the digits. So
 * Q(E)P(R) · Q(F)P(S) = Q(E) (P(R) Q(F)) P(S): move the Q_k of F (k increasing) left past
 * P(R) by the second rule, sort each Q_{k+i} into the Q's already there (a sign
 * (-1)^{#larger ones passed}), then multiply the P parts by the third.
 *
 * Order (sseq's, docs/algorithms.md §9.2). P parts of P-degree e (|P(R)| = q e) are listed
 * as milnor.h lists Sq(R) of degree e, with xi weights w_i = (p^i - 1)/(p - 1) in place of
 * 2^i - 1: grouped by length, and inside the group of length i+1 in the order of P-degree
 * e - w_{i+1} from which each comes by adding 1 to r_{i+1}. The basis of degree d is: for
 * each Q part E with |Q(E)| <= d and |Q(E)| = d mod q, E in increasing order as a bit mask
 * (= increasing |Q(E)|), the elements Q(E)P(R) for the P parts of P-degree (d - |Q(E)|)/q in
 * their order. An element's index is its position there.
 *
 * Layout. A milnor_p_basis holds, for each degree 0..max_degree, the array of its elements
 * (milnor_p_elt: E as a bit mask, bit k = Q_k; r[0..len-1], r[i] = r_{i+1}), and two tables
 * that give the index without hashing: qoff[d * nq + E] = index of the first element with Q
 * part E in degree d, and pseq_g, the seqno table of the P parts (docs/algorithms.md §1.3,
 * with the weights w_i). Products accumulate into vectors of bytes: entry j (0..p-1) is the
 * coefficient of basis element j of the target degree. The elements of all degrees are
 * stored (dim grows fast: at p = 3 a basis through degree 300 is small, through 4095 it is
 * not), so build only as far as needed.
 */
#ifndef EXTFLOW_MILNOR_P_H
#define EXTFLOW_MILNOR_P_H
#include <stddef.h>
#include <stdint.h>

#include "algebra/milnor.h"          /* deg_t */

#ifdef __cplusplus
extern "C" {       /* algebra/milnor_p_cuda.cu calls the CPU path to verify the GPU's */
#endif

#define MILNOR_P_MAX_LEN 8           /* xi_1..xi_8 and Q_0..Q_7: enough below degree 4096 */
#define MILNOR_P_MAX_DEGREE 4095
#define MILNOR_P_MAX_PRIME 251       /* odd primes 3 <= p <= 251: a coefficient fits a byte */

/* Q(E)P(r[0], ..., r[len-1]); r[len-1] != 0 unless len == 0; entries beyond len are zero. */
typedef struct milnor_p_elt {
    uint32_t q;                      /* E: bit k set iff Q_k is a factor */
    uint32_t len;
    uint32_t r[MILNOR_P_MAX_LEN];
    deg_t degree;
} milnor_p_elt;

typedef struct milnor_p_basis {
    uint32_t p;
    uint32_t qdeg;                   /* q = 2(p - 1) */
    deg_t max_degree;
    uint32_t max_pdeg;               /* max_degree / q */
    uint32_t w[MILNOR_P_MAX_LEN];    /* w[i] = (p^{i+1} - 1)/(p - 1): P-degree of xi_{i+1} */
    uint32_t tau[MILNOR_P_MAX_LEN];  /* tau[k] = |Q_k| = 2p^k - 1 */
    uint32_t ppow[MILNOR_P_MAX_LEN]; /* p^k, or UINT32_MAX past what 32 bits hold */
    uint32_t nq;                     /* Q parts are masks < nq = 2^(#k with |Q_k| <= max_degree) */
    uint32_t *dim;                   /* dim[d], d = 0..max_degree */
    milnor_p_elt **elts;             /* elts[d][i], i < dim[d], in index order */
    uint32_t *pdim;                  /* pdim[e], P parts of P-degree e = 0..max_pdeg */
    uint32_t *pseq_g;                /* seqno table of the P parts: (max_pdeg + 1) x MAX_LEN */
    uint32_t *qoff;                  /* qoff[d * nq + E]; UINT32_MAX where no Q(E)P(R) has degree d */
    uint8_t *binom;                  /* binom[a * p + b] = (a choose b) mod p, digits a, b < p */
    uint64_t pdiv;                   /* 2^64 / p rounded up: x / p and x mod p of a 32-bit x by
                                      * multiplications (milnor_p.c's product; set with p) */
} milnor_p_basis;

/* Is p an odd prime <= MILNOR_P_MAX_PRIME? */
int milnor_p_prime_ok(uint32_t p);
/* Builds the basis of A_p through max_degree (<= MILNOR_P_MAX_DEGREE). Returns 0, or -1 on
 * bad arguments or out of memory (A zeroed then). milnor_p_basis_clear frees it (safe on a
 * zeroed struct). */
int milnor_p_basis_init(milnor_p_basis *A, uint32_t p, deg_t max_degree);
void milnor_p_basis_clear(milnor_p_basis *A);

/* dim[0..max_degree] of A_p without building the basis, from the generating function
 * prod_i 1/(1 - x^{q w_i}) · prod_k (1 + x^{|Q_k|}). Returns 0, or -1 on bad arguments. */
int milnor_p_count_dims(uint32_t p, deg_t max_degree, uint32_t *dim);

/* Sets X = Q(E)P(r[0..n)) (q = E's mask; trailing zeros trimmed, degree computed for prime p). */
void milnor_p_elt_set(milnor_p_elt *X, uint32_t p, uint32_t q, const uint32_t *r, int n);
/* Index of X in its degree (X must be a basis element of degree <= max_degree). */
uint32_t milnor_p_index(const milnor_p_basis *A, const milnor_p_elt *X);
/* Writes X as sseq prints it ("Q_0 Q_2 P(1, 2)", "P(3)", "Q_1", the unit "1"); returns buf. */
char *milnor_p_elt_format(const milnor_p_elt *X, char *buf, size_t size);

/* X·Y: calls emit(c, T, ctx) for terms c·T, 0 < c < p, of the product. A basis element T may be
 * emitted more than once (from different matrices); the product is the sum of all terms.
 * Requires |X| + |Y| <= A->max_degree. No allocation; thread-safe on a shared const basis. */
typedef void (*milnor_p_emit_fn)(uint32_t c, const milnor_p_elt *T, void *ctx);
void milnor_p_mul_each(const milnor_p_basis *A, const milnor_p_elt *X, const milnor_p_elt *Y,
                       milnor_p_emit_fn emit, void *ctx);
/* out[j] = (out[j] + c · (X·Y)_j) mod p over the basis of degree |X| + |Y| (entries of out
 * must be < p; c < p). */
void milnor_p_mul_into(const milnor_p_basis *A, const milnor_p_elt *X, const milnor_p_elt *Y,
                       uint32_t c, uint8_t *out);

/* Batched product: the odd-p form of milnor_mul_batch (milnor.h), what the multiply codelet
 * at odd p computes (codelets/cl_milnor_mul.c). Row i of the output gets, for each of its
 * terms k, coef_k · (X_i · Y_k), the product's entry j landing at byte col_offset_k + j:
 * rows are bytes (entries 0..p-1, stride bytes apart, as fpmat.h's), added into mod p. X_i and
 * Y_k are given by (degree, index) in A_p's basis (jobs are milnor.h's milnor_row_job). */
typedef struct milnor_p_term {
    uint32_t s_deg, s_idx;          /* Y */
    uint32_t col_offset;            /* byte (column) of the product's entry 0 */
    uint32_t coef;                  /* 1..p-1 */
} milnor_p_term;
/* rows (njobs x stride bytes) += the jobs' products; the caller zeroes them. Thread-safe on a
 * shared const basis. */
void milnor_p_mul_batch(const milnor_p_basis *A, const milnor_row_job *jobs, size_t njobs, const milnor_p_term *terms,
                        uint8_t *rows, size_t stride);

/* A_p flattened into one read-only array of 32-bit words (a StarPU data handle, copied to a
 * GPU as it is); layout in milnor_p_search.h. milnor_p_flat_words: words needed.
 * milnor_p_flat_write: 0, or -1 when words is not that. milnor_p_flat_view: a basis reading
 * the buffer in place (dim and elts are the caller's arrays of max_degree + 1 entries,
 * MILNOR_P_MAX_DEGREE + 1 always suffice; never milnor_p_basis_clear it): 0, or -1 when buf
 * is not a flat basis of that many words. */
size_t milnor_p_flat_words(const milnor_p_basis *A);
int milnor_p_flat_write(const milnor_p_basis *A, uint32_t *buf, size_t words);
int milnor_p_flat_view(const uint32_t *buf, size_t words, milnor_p_basis *view, milnor_p_elt **elts_scratch,
                       uint32_t *dim_scratch);

/* Sub-Hopf-algebras B of A_p by profile (sseq's "profile": q_part, p_part, truncated): Q_k is in
 * B iff bit k of qmask is set; P(R) is in B iff r_i < p^{h_i} for every slot i < len and, when
 * truncated, r_i = 0 past len (not truncated: unbounded there). B's basis is A_p's elements that
 * lie in B, in A_p's order; a product of two of them is a sum of elements of B when the profile
 * is that of a sub-Hopf-algebra (milnor_p_sub_closed checks it through a degree). */
typedef struct milnor_p_profile {
    uint32_t qmask;                  /* default: all ones (every Q_k) */
    int truncated;
    int len;
    uint8_t h[MILNOR_P_MAX_LEN];
} milnor_p_profile;

/* B's basis over a built A_p: dim[d] elements in degree d; b2a[d][i] = A_p-index of B's element
 * i; a2b[d][j] = B-index of A_p's element j, or UINT32_MAX when it is not in B. With full = 1
 * (the whole of A_p) the tables are the identity and left NULL. */
typedef struct milnor_p_sub {
    const milnor_p_basis *A;
    milnor_p_profile profile;
    int full;
    deg_t max_degree;
    uint32_t *dim;
    uint32_t **b2a, **a2b;
} milnor_p_sub;

/* The profile of A_p itself. Is it that (nothing left out)? */
milnor_p_profile milnor_p_profile_full(void);
int milnor_p_profile_is_full(const milnor_p_profile *pr);
/* Do two profiles give the same sub-algebra (same Q's, same bounds, trailing ones alike)? */
int milnor_p_profile_equal(const milnor_p_profile *a, const milnor_p_profile *b);
/* Is X in the sub-algebra of profile pr (prime p)? */
int milnor_p_profile_has(const milnor_p_profile *pr, uint32_t p, const milnor_p_elt *X);
/* B's tables over A (kept by the caller while B lives), through A's max_degree. 0, or -1 out of
 * memory (B zeroed). milnor_p_sub_clear is safe on a zeroed struct. */
int milnor_p_sub_init(milnor_p_sub *B, const milnor_p_basis *A, const milnor_p_profile *pr);
void milnor_p_sub_clear(milnor_p_sub *B);
/* Are the products X·Y of elements of B with |X| + |Y| <= max_degree in B? 1 yes, 0 no. */
int milnor_p_sub_closed(const milnor_p_sub *B, deg_t max_degree);
/* The element i of B in degree d. */
static inline const milnor_p_elt *milnor_p_sub_elt(const milnor_p_sub *B, deg_t d, uint32_t i)
{ return &B->A->elts[d][B->full ? i : B->b2a[d][i]]; }
/* out[j] += c · (X·Y)_j over B's basis of degree |X| + |Y| (X, Y in B). Returns 0, or -1 when a
 * term lies outside B (the profile is not a sub-Hopf-algebra's). */
int milnor_p_sub_mul_into(const milnor_p_sub *B, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                          uint8_t *out);
/* The same with out's entries moved: (X·Y)_j goes to out[map[j]], or nowhere where map[j] is
 * MILNOR_P_MAP_DROP (a row's columns of one block, milnor_p_cache.h). */
#define MILNOR_P_MAP_DROP UINT32_MAX
int milnor_p_sub_mul_into_map(const milnor_p_sub *B, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                              uint8_t *out, const uint32_t *map);

#ifdef __cplusplus
}
#endif
#endif
