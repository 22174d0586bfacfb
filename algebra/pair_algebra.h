/* pair_algebra.h — the secondary Steenrod algebra at p = 2, as much of it as Adams d2 needs.
 *
 * Maths (docs/secondary.md). Baues' secondary Steenrod algebra is a pair algebra ∂: B1 → B0
 * with coker ∂ = A; we use the split form of D. Chua (arXiv:2105.07628). B0 is the free
 * Z/4-module on the Milnor basis with the product whose structure constants are Milnor's
 * multinomial coefficients taken mod 4; σ: A → B0 sends Sq(R) to the basis element of the same
 * name. For a, b in A, σ(a)σ(b) - σ(ab) lies in ker(B0 → A) ⊕ (image of B1), and what d2 needs
 * of it is a "pair element" of degree d = |a| + |b|:
 *
 *   twos      the coefficients of 2 (a vector over A_d): mod-4 coefficients equal to 2, and
 *             odd ones that add up to 2 once all terms of a sum are in;
 *   Y_{k,l}   for 0 <= k < l, a vector over A_{d+1-2^k-2^l}: Y_{k,l}·y are the correction
 *             terms of σ(a)σ(b), found by removing 2^k from r_n and r_m (m < n; m = 0: from
 *             nothing) and 1 from s_{k+1}; such a term goes to Y_{m+k, n+k};
 *   ones      the odd coefficients (a vector over A_d): they must cancel in the sums d2 forms
 *             (they add up to d∘d = 0 mod 2); pair_finalize checks and drops them.
 *
 * A acts on pair elements with a degree shift of -1 (the pairing A ⊗ ker ∂ → A):
 *   A(Sq R, 2x)       = Sq(R - e_1)·x              (0 when r_1 = 0)
 *   A(Sq R, Y_{k,l}y) = A(Sq R, Y_{k,l})·y,   A(Sq R, Y_{k,l}) = sum over i, j >= 0 with
 *                       i + k >= l, j <= i + k - l of Sq(e_{k+i} + e_{l+j})·Sq(R - 2^k e_i - 2^l e_j)
 *                       (e_0 = 0: "remove nothing"; a term whose subtraction goes negative is
 *                       skipped), of degree |R| + 2^k + 2^l - 2.
 * A(1, ·) = 0. These formulas are those of Chua's paper; the unit cases in tests/t-pair-algebra.c
 * (A(Sq(1), Y_{0,1}) = Sq(2), ...) pin them down.
 *
 * Mod-4 coefficients. C(n, k) mod 4 = 0 when adding k and n - k in base 2 has >= 2 carries,
 * 2 with one carry, and with none the product of the odd parts of n!, k!, (n-k)! mod 4, where
 * the odd part of m! is (-1)^(sum over i of floor((floor(m/2^i) + 1)/4)) mod 4 (the odd numbers
 * <= m that are 3 mod 4, at every power of 2). A multinomial is a product of binomials.
 *
 * Layout. A pair_elt owns one allocation: ones, twos (dim A_d bits each, packed 64 to a word,
 * least significant first), then ys[k][l] for k < nk, l < nl[k] (only k < l are ever set), each
 * over A_{d+1-2^k-2^l}. nk = floor(log2 d) + 1 (0 for d = 0), nl[k] = floor(log2(d+1-2^k)) + 1.
 * Products into packed vectors go through milnor_mul_into or milnor_mul_batch (algebra/milnor.h). Kernels only: nothing
 * here knows StarPU. Thread safety: a pair_elt belongs to its caller; a pair_ay_cache is shared
 * and locked inside.
 */
#ifndef EXTFLOW_PAIR_ALGEBRA_H
#define EXTFLOW_PAIR_ALGEBRA_H
#include <pthread.h>
#include <stdint.h>
#include "algebra/milnor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAIR_MAX_K 12           /* > log2(MILNOR_MAX_DEGREE + 1) */

/* C(n, k) mod 4 (0 when k > n). */
unsigned binom_mod4(uint32_t n, uint32_t k);
/* Multinomial (x[0] + ... + x[n-1])! / prod x[i]! mod 4. */
unsigned multinomial_mod4(const uint32_t *x, int n);

/* Sq(R)·Sq(S) in B0: calls emit(T, c, ctx) for every Milnor matrix whose coefficient c (the
 * product of its diagonals' multinomials) is not 0 mod 4; c in {1, 2, 3}. Several matrices
 * may give the same T: the caller adds. The search places entries one by one and leaves a
 * branch at its second carry (a matrix with two has coefficient 0 mod 4). */
void milnor_mul_mod4_each(const milnor_elt *R, const milnor_elt *S,
                          void (*emit)(const milnor_elt *T, unsigned c, void *ctx), void *ctx);
/* The same matrices (same calls, in another order) by enumerating every Milnor matrix and
 * computing its coefficient at the end: the reference path for the tests. */
void milnor_mul_mod4_each_naive(const milnor_elt *R, const milnor_elt *S,
                                void (*emit)(const milnor_elt *T, unsigned c, void *ctx), void *ctx);

/* The mod-4 products of a batch (milnor.h's jobs and terms), added into two bit-planes per row
 * (the layout of pair_elt's ones and twos): for every job i and each of its terms k, the
 * coefficient of the basis element with index x in Sq(R_i)·Sq(S_k) is added in Z/4 to the
 * coefficient whose bit 0 is bit terms[k].col_offset + x of row i's ones plane and whose bit 1
 * is the same bit of its twos plane, twos_at words after the ones plane. Rows are stride_words
 * apart (0: every job adds into the one row at rows); nothing is zeroed. By
 * milnor_mul_mod4_each: the reference the GPU kernel (algebra/pair_cuda.h) is tested against. */
void pair_mul_mod4_batch(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                         const milnor_term *terms, uint64_t *rows, size_t stride_words, size_t twos_at);

/* A memo of mod-4 products of pairs of basis elements of the whole of A (not a profile's: keys
 * are (degree, index) pairs), shared by threads: d2 and the secondary products meet the same
 * Sq(R)·Sq(S) in many cells (at stem 80, s <= 35: 9.1M products of 1.55M distinct pairs, 83% recalled), and
 * a product has few terms (about 6) against a search of thousands of steps. Lookups take no lock
 * (pair_algebra.c says how). budget_bytes bounds what it holds (its tables and products); past
 * it, products not held are computed each time. NULL out of memory. */
typedef struct pair_m4_memo pair_m4_memo;
pair_m4_memo *pair_m4_memo_new(size_t budget_bytes);
void pair_m4_memo_free(pair_m4_memo *m);
/* Products held, lookups that found one, lookups that did not, bytes held (m NULL: zeros). */
void pair_m4_memo_stats(pair_m4_memo *m, uint64_t *products, uint64_t *hits, uint64_t *misses, size_t *bytes);
/* pair_mul_mod4_batch through memo (NULL: none): the same bits. */
void pair_mul_mod4_batch_memo(const milnor_basis *A, pair_m4_memo *memo, const milnor_row_job *jobs, size_t njobs,
                              const milnor_term *terms, uint64_t *rows, size_t stride_words, size_t twos_at);

typedef struct pair_elt {
    deg_t degree;
    int nk;
    int nl[PAIR_MAX_K];
    uint64_t *ones, *twos;                      /* dim A_degree bits each */
    uint64_t *ys[PAIR_MAX_K][PAIR_MAX_K];       /* ys[k][l]: dim A_{degree+1-2^k-2^l} bits */
    uint32_t ys_dim[PAIR_MAX_K][PAIR_MAX_K];
    uint64_t *mem;                              /* the one allocation */
    size_t words;
} pair_elt;

/* A zero element of degree d (1 <= d <= A->max_degree); 0, or -1 out of memory. */
int pair_elt_init(pair_elt *e, const milnor_basis *A, deg_t d);
void pair_elt_clear(pair_elt *e);
int pair_elt_is_zero(const pair_elt *e);

/* e += σ(Sq R)·σ(Sq S); |R| + |S| = e->degree. */
void pair_sigma_mul_add(const milnor_basis *A, pair_elt *e, const milnor_elt *R, const milnor_elt *S);
/* target[j] += σ(b_i)·σ(c_j) for every i < nb, j < nc (|b_i| + |c_j| = target[j]->degree;
 * targets may repeat, and must not overlap otherwise); the same as pair_sigma_mul_add on each
 * pair, with the mod-2 products of the Y terms in one milnor_mul_batch call. 0, or -1 out of
 * memory (targets then partly updated). */
int pair_sigma_mul_add_all(const milnor_basis *A, const milnor_elt *b, uint32_t nb, const milnor_elt *c,
                           pair_elt *const *target, uint32_t nc);
/* The Y terms of σ(b_i)σ(c_j) as Milnor products, for a caller that multiplies them itself
 * (d2's composites put them beside the mod-4 products, whose ones plane is the mod-2 product):
 * group by group, term(ctx, j, ya, yb, S) for each c_j whose product lands in its target's
 * ys[ya][yb] (target_degree[j]: the degree of c_j's target pair element) as Sq(R)·S, then
 * job(ctx, R) for each left factor R of the group, then end(ctx, number of jobs >= 1); a group
 * that no left factor meets is not visited (at stem 60 a third of the terms were in such).
 * Only the planes Y_{k,l} with l <= lmax[k] are visited (lmax NULL: every plane): a caller
 * that knows which elements will act on the result may leave out the planes none of them sees
 * (pair_y_seen). Callbacks return 0, or -1 to stop (returned). -1 also out of memory. */
typedef struct pair_y_visitor {
    int (*term)(void *ctx, uint32_t j, int ya, int yb, const milnor_elt *S);
    int (*job)(void *ctx, const milnor_elt *R);
    int (*end)(void *ctx, int jobs);
    void *ctx;
} pair_y_visitor;
int pair_sigma_y_visit(const milnor_elt *b, uint32_t nb, const milnor_elt *c, const deg_t *target_degree, uint32_t nc,
                       const int8_t *lmax, const pair_y_visitor *v);
/* The Y terms of pair_sigma_mul_add_all alone (its mod-2 part; the mod-4 part, into ones and
 * twos, can then go through pair_mul_mod4_batch or its GPU kernel), in the planes lmax names
 * (pair_sigma_y_visit). 0, or -1 out of memory. */
int pair_sigma_y_add_all(const milnor_basis *A, const milnor_elt *b, uint32_t nb, const milnor_elt *c,
                         pair_elt *const *target, uint32_t nc, const int8_t *lmax);
/* The planes Sq R sees: A(Sq R, Y_{k,l}) is 0 unless r_i >= 2^k for some i >= l - k (each term
 * of its formula, pair_a_y, takes 2^k from such an r_i), so for each k it sees at most the
 * planes l <= k + i, i the largest with r_i >= 2^k. Raises lmax[k] (k < PAIR_MAX_K) to that
 * where it is lower. */
void pair_y_seen(const milnor_elt *R, int8_t lmax[PAIR_MAX_K]);
/* The odd part must have cancelled: 0 and ones cleared, or -1 (ones not zero: d∘d != 0). */
int pair_finalize(pair_elt *e);

/* A(Sq R, Y_{k,l}) for k < l, into out (zeroed by the caller) as a packed vector over
 * A_{|R|+2^k+2^l-2}, at bit col_offset. */
void pair_a_y(const milnor_basis *A, const milnor_elt *R, int k, int l, uint64_t *out, uint64_t col_offset);

/* A cache of A(Sq R, Y_{k,l}) keyed by (|R|, index of R, k, l), shared by threads; and, for
 * pair_a_plan_lists, by (|R|, index of R) alone: a row of every k < l at once (those of degree
 * at most A's top), the non-zero vectors end to end in one allocation, so that a planner looks
 * R up once for all its planes and skips the planes R does not see. */
typedef struct pair_ay_cache {
    pthread_mutex_t lock;
    size_t n, cap;                              /* open addressing, cap a power of 2 */
    struct pair_ay_entry *slots;
    uint64_t hits, misses;
    size_t nrows, rcap;                         /* the rows: open addressing, rcap a power of 2 */
    struct pair_ay_row_slot *rows;
} pair_ay_cache;
int pair_ay_cache_init(pair_ay_cache *c);
void pair_ay_cache_clear(pair_ay_cache *c);
/* The cached vector (dim A_{|R|+2^k+2^l-2} bits; valid until the cache is cleared), or NULL
 * out of memory. */
const uint64_t *pair_ay_cached(pair_ay_cache *c, const milnor_basis *A, const milnor_elt *R, int k, int l);

/* out ^= A(a, e) at bit col_offset, a = the sum of the n basis elements a[0..n) of one degree
 * |a| >= 1, e finalized; the result lies in degree |a| + e->degree - 1. 0, or -1 out of
 * memory (cache). */
int pair_a_mul_add(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                   const pair_elt *e, uint64_t *out, uint64_t col_offset);
/* out ^= A(a, e[i]) at bit col_offset[i] for every i < ne: pair_a_mul_add for each, with the
 * products of all in one milnor_mul_batch call (the left factors come from a alone, so the e[i]
 * share them). The offsets lie within 2^32 bits of each other. 0, or -1 out of memory. */
int pair_a_mul_add_many(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                        const pair_elt *const *e, const uint64_t *col_offset, uint32_t ne, uint64_t *out);
/* One set of pair_a_mul_add_sets: A(a, e[i]) at col_offset[i] for i < ne, a = the sum of the n
 * basis elements a[0..n) of one degree. */
typedef struct pair_a_set {
    const milnor_elt *a;
    uint32_t n, ne;
    const pair_elt *const *e;
    const uint64_t *col_offset;
} pair_a_set;
/* out ^= A(s.a, s.e[i]) at s.col_offset[i] for every set s of sets[0..nsets) and i < s.ne: the
 * products of all the sets in one milnor_mul_batch call (an intermediate's sum over the terms
 * a·g' of d z of A(a, C(g')): one set per g'). The offsets lie within 2^32 bits of each other.
 * 0, or -1 out of memory. */
int pair_a_mul_add_sets(const milnor_basis *A, pair_ay_cache *cache, const pair_a_set *sets, uint32_t nsets,
                        uint64_t *out);
/* The products of pair_a_mul_add_many as jobs and terms into sink (every job XORs into one row;
 * a term's column is col_offset[i] plus the product's index), for a multiply elsewhere (the
 * codelet: d2's homotopy). The offsets and the products' widths must fit in 32 bits. 0, or -1
 * out of memory. */
int pair_a_mul_plan(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                    const pair_elt *const *e, const uint64_t *col_offset, uint32_t ne, const milnor_sink *sink);
/* pair_a_mul_plan by term lists, for a planner that keeps each list once (a lift step's
 * shared extras, stages/products/lift.h): A(a, e) is a sum over kinds (0: the twos, whose left
 * factors are the Sq(R - e_1); 1 + k PAIR_MAX_K + l: the ys[k][l], whose left factors are the
 * basis elements of sum_R A(Sq R, Y_{k,l})) of products of left factors with one list of terms
 * (every e_i's of that kind, at col_offset[i]), which depends on e and the offsets alone. For
 * each kind some e_i has and some left factor meets (a kind whose left factors sum to zero has
 * no job, so no list), list(ctx, kind) opens it: 0, then its terms follow through terms; 1,
 * the caller has them already (none follow); -1 fails. Then job(ctx, degree, index) once per
 * left factor, a product with the open list's terms. 0, or -1 (out of memory, a callback's). */
typedef struct pair_a_lists {
    void *ctx;
    milnor_sink terms;          /* only term() is called */
    int (*list)(void *ctx, int kind);
    int (*job)(void *ctx, uint32_t r_deg, uint32_t r_idx);
} pair_a_lists;
int pair_a_plan_lists(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                      const pair_elt *const *e, const uint64_t *col_offset, uint32_t ne, const pair_a_lists *to);
/* The same bits as pair_a_mul_add, one milnor_mul_into per pair of basis elements: the
 * reference path for the tests. */
int pair_a_mul_add_pairwise(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                            const pair_elt *e, uint64_t *out, uint64_t col_offset);

#ifdef __cplusplus
}
#endif
#endif
