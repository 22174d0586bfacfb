/* preimage.h — preimages under a resolution's differentials: given y_j in F_{i-1,t} with
 * d y_j = 0, an x_j in F_{i,t} with d x_j = y_j, for the steps of chain-map lifts
 * (stages/products/lift.h: products, Massey products, d2's homotopies, secondary products).
 *
 * Maths. d_i : F_{i,t} -> F_{i-1,t} (i >= 1) of a finished resolution, rebuilt from its
 * differentials: the rows Sq(R)·g (generators of degree < t) by Milnor products, the
 * generators of degree t by their images. A y in the kernel of d_{i-1} is in the image of d_i
 * because the resolution is exact. Three ways:
 *  - preimage_solve: one RREF of [D^T | Y^T] for all the y of a step (unknowns: the basis of
 *    F_{i,t} in reverse order; free ones set to 0). That is the preimage which is zero where
 *    the kernel of d_i has its leading entries, the one the fully reduced RREF of [D | I] gives
 *    (sseq's quasi-inverse): products do not depend on the choice, but the values of
 *    homotopies off the generators' units do, and secondary products read them. Less work than
 *    building the quasi-inverse below (its I part is as wide as D^T's rows are many), for the
 *    handful of y a step has.
 *  - preimage_by_signature (any preimage): through Nassau's signature blocks (stages/resolve/nassau.h).
 *    For the profile B = res_nassau_profile(i + 1, t) (the one Nassau's step (i + 1, t)
 *    corrects its generators with), the rows of d_i of signature σ restricted to the columns of
 *    signature σ are the zero-signature block of d_i at degree t - |σ| (Sq(R)·g <-> Sq(R - σ)·g),
 *    and meet no other signature of degree <= |σ|; so the y are lifted level by level in |σ|
 *    through the quasi-inverses of zero-signature blocks at (i, t - |σ|), and only the rows of
 *    d_i at the lifts' bits are multiplied, to carry the residual to the next level. The
 *    residual is kept exactly, so an answer is always a true preimage.
 *  - preimage_qi_compute: a quasi-inverse kept for many y (preimage_solve's preimage for any
 *    y): the row operations M of a row echelon form of [D^T | I] -> [E | M] with the pivots
 *    sought in D^T's columns only, so the y are solved later from M y by back substitution
 *    (docs/algorithms.md §3.4; bench/qi_bench measures it against preimage_solve).
 *
 * Layout. Y: one row per y, over the basis of F_{i-1,t} on generators of degree < t (bits
 * beyond are zero). X: one row per y, over the basis of F_{i,t} on generators of degree <= t
 * (generators in order, each with its block of Milnor elements; the generators of degree t
 * last, one bit each).
 */
#ifndef EXTFLOW_PREIMAGE_H
#define EXTFLOW_PREIMAGE_H
#include <stdint.h>
#include "algebra/f2mat.h"
#include "algebra/fpmat.h"
#include "stages/resolve/resolution.h"

/* X (initialised here, Y->rows x dim F_{i,t}) gets sseq's preimage of each row of Y, by one RREF
 * of [D^T | Y^T]. Returns 0, -1 out of memory, or -2 when y_{*bad} is not in the image (X is
 * then not initialised). i = 0 solves the augmentation F_{0,t} -> M_t instead (Y over M_t:
 * res_module_dim(res, t) columns), for the bottom of a map of modules (stages/products/lift.h). */
int preimage_solve(const resolution *res, int i, deg_t t, const f2mat *Y, f2mat *X, uint32_t *bad);
/* The same at an odd prime, over F_p (the rows bytes, entries 0..p-1): D = the matrix of d_i on
 * the whole basis of F_{i,t} (rows x·d(h) by Milnor products mod p over the resolution's B,
 * narrowed to the excess-kept columns when unstable; at i = 0 the augmentation's rows x·ε(h)
 * over M_t), the RREF of [D | 0 | I], and each y reduced by the pivot rows of D, whose I parts
 * add up to x with x·D = y. Returns 0, -1 out of memory, -2 when y_{*bad} is not in the image,
 * -3 when a product leaves B (a profile that is not a sub-Hopf-algebra's); X is initialised
 * only on 0. */
int preimage_solve_p(const resolution *res, int i, deg_t t, const fpmat *Y, fpmat *X, uint32_t *bad);
/* Predicted peak bytes of preimage_solve_p with rows y (the y, D and [D | 0 | I], a byte an
 * entry, rows padded to 64; unstable: the rows of D before they are narrowed). */
uint64_t preimage_solve_p_bytes(const resolution *res, int i, deg_t t, uint64_t rows);

/* The quasi-inverses of zero-signature blocks preimage_by_signature builds, kept for the later
 * steps of a set of lifts into one target (mutex-protected; entries immutable once added). */
typedef struct preimage_cache preimage_cache;
preimage_cache *preimage_cache_new(const resolution *res);   /* NULL: out of memory */
/* One more holder of cache (lift sets over the same target share it); returns cache. */
preimage_cache *preimage_cache_ref(preimage_cache *cache);
/* Drops one holder; the last frees it. */
void preimage_cache_free(preimage_cache *cache);
/* Keep the full quasi-inverse of each d_i (i >= 1) that preimage_solve_cached solves, up to
 * budget bytes in all, for the lift sets that share cache (a secondary product's or Massey
 * product's several lifts into one resolution solve each d_i several times). 0, or -1 out of
 * memory. */
int preimage_cache_keep_qis(preimage_cache *cache, uint64_t budget);
/* Builds and keeps the quasi-inverse of d_i at (i, t) ahead of the steps that will solve d_i
 * there (a task of its own: lift.h's lift_step_prepare), where cache keeps them, the budget
 * has room and no thread has built it or is building it; a step that needs it while it is
 * being built waits for it instead of building it twice. */
void preimage_cache_prepare(preimage_cache *cache, const resolution *res, int i, deg_t t);
/* Does cache keep quasi-inverses (preimage_cache_keep_qis)? */
int preimage_cache_keeps_qis(preimage_cache *cache);
/* The kept quasi-inverses' counts. */
typedef struct preimage_qi_stats {
    uint64_t built;             /* built and kept */
    uint64_t used;              /* steps that applied a kept one */
    uint64_t over;              /* built for one step, then freed: past the budget */
    uint64_t missed;            /* steps that solved d_i without one: the budget was spent */
    uint64_t bytes, budget;     /* held, and the most that may be */
} preimage_qi_stats;
preimage_qi_stats preimage_cache_qi_stats(preimage_cache *cache);
/* preimage_solve's X (the same bits: the preimage zero where the kernel of d_i has its leading
 * entries, which the fully reduced [D | 0 | I] gives too), through the kept quasi-inverse of
 * d_i (built now within the budget) where cache keeps them; else preimage_solve. */
int preimage_solve_cached(const resolution *res, preimage_cache *cache, int i, deg_t t, const f2mat *Y, f2mat *X,
                          uint32_t *bad);
/* X (initialised here, Y->rows x dim F_{i,t}) gets a preimage of each row of Y through Nassau's
 * signature blocks (cache: NULL, or the set's). Returns 0 (d x_j = y_j for all j); 1 when this
 * does not apply (a module Nassau does not handle, B trivial) or some residual is left (X not
 * initialised: use preimage_solve); -1 out of memory. Thread-safe: steps may share one cache. */
int preimage_by_signature(const resolution *res, preimage_cache *cache, int i, deg_t t, const f2mat *Y,
                          f2mat *X);

/* Quasi-inverse of d_i : F_{i,t} -> F_{i-1,t} (i >= 1) of res, from its stored differentials.
 * D (src_dim x tgt_dim) over the whole basis of F_{i,t} (generators of degree <= t, in basis
 * order) and the columns of F_{i-1,t} on generators of degree < t; D_rev its rows in reverse
 * order. A row echelon form of [D_rev^T | I] over D_rev^T's columns alone
 * (f2mat_echelon_prefix) is [E | M] with M invertible (tgt_dim x tgt_dim): pivot rows r <
 * rank, whose pivot columns p_r are the rows of D independent of the rows after them (the
 * complement of the leading entries of ker d_i), and rows r >= rank, E zero there, a basis of
 * the left kernel of D^T. For y (a row over F_{i-1,t}), y is in the image iff (M y)_r = 0 for
 * r >= rank, and x D = y with x zero off those rows of D is E z = M y with z the x at the
 * pivots: back substitution through U, E at the pivot columns (upper unitriangular). That x
 * is the one zero at the leading entries of ker d_i, the preimage_solve's and the fully
 * reduced [D | 0 | I]'s (docs/algorithms.md §3.4).
 * Layout: q = M (tgt_dim x tgt_dim; (M y)_r is the parity of row r and y's common bits); u = U
 * (rank x rank, bit r' of row r = E's entry at p_r'); pivot[r] = the basis index in F_{i,t} of
 * the r-th pivot (x's bit). Less work than the RREF of [D | 0 | I]: no elimination within
 * ker d_i (its dim F_{i,t} - rank pivots in I's columns), none above each pivot. */
typedef struct preimage_qi {
    uint32_t rank, src_dim, tgt_dim;
    f2mat q, u;
    int32_t *pivot;
} preimage_qi;
int preimage_qi_compute(const resolution *res, int i, deg_t t, preimage_qi *qi);
/* x (src_dim bits, zeroed by the caller) ^= the preimage of y (tgt_dim bits; those beyond are
 * not read); returns 0, or -1 if y is not in the image (x then untouched). z: scratch of
 * f2vec_words(rank) words. */
int preimage_qi_apply(const preimage_qi *qi, const uint64_t *y, uint64_t *x, uint64_t *z);
void preimage_qi_clear(preimage_qi *qi);

#endif
