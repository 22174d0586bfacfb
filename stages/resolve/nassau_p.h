/* nassau_p.h — Nassau's step (s, t), s >= 2, at an odd prime p (docs/algorithms.md §11.1;
 * the prototype it follows is tests/nassau_p.py), for a module over A_p itself without a
 * cofiber, selected by `resolve --algorithm nassau` (step_nassau_p in stages/resolve/step.h).
 *
 * Maths. A sub-Hopf-algebra B(QB; h) of A_p is spanned by the Q(E)P(R) with E ⊂ QB and
 * r_i < p^{h_i}; we use those with (P) h_m <= h_{m+1} + 1 and (E) k ∉ QB => h_m <= k - m (m <= k).
 * The signature of Q(E)P(R) is (E ∩ QB, (r_i mod p^{h_i})_i); the zero-signature coordinates of
 * F are F_p ⊗_B F, and in d's matrix a row of signature σ meets only columns of signature σ or
 * of a signature of larger degree, the σ → σ block being the zero-signature block of degree
 * t - |σ| up to signs. With slope(B) = max(2p^k - 1 (k ∈ QB), p^{h_i}(p^i - 1)) and c the module's
 * top degree, step (s, t) may use B when t > slope·s + c and t - top(B) > slope·(s - 2) + c; it
 * takes one of largest dimension (none: the standard step). Plan multiplies the zero-signature
 * rows of d_{s-1} and d_s; reduce counts the new generators there (kernel of the zero-signature
 * block of d_{s-1} modulo the zero-signature image of d_s); finish, when there are any,
 * corrects each generator x signature by signature in
 * increasing degree by the quasi-inverse of that signature's block, x -= lift, until d(x) = 0
 * (checked), then publishes them; a signature's rows are multiplied only when some d(x) has a
 * part in its columns, first into its block alone (the products' entries in the signature's
 * columns), then full width only for the rows some lift uses.
 *
 * Layout. State lives in c->nsp (struct nassau_p_state, private to nassau_p.c): the chosen B, the
 * signature code of each basis element of F_{s-1,t} (generators < t) and F_{s-2,t} (< t - 1),
 * bucketed by code (mixed radix: the bits of E ∩ QB, then r_i mod p^{h_i}), and the
 * zero-signature rows of d_{s-1} (an fpmat over F_{s-2,t}, in bucket order; finish makes each
 * other signature's rows in turn). The candidate B's are listed once per prime. The rows are
 * multiplied on the step's own worker, not in multiply tasks: each product x·y through the
 * resolution's product cache (algebra/milnor_p_cache.h, made with the share below, at most
 * res->odd->products_bytes, else NASSAU_P_PRODUCTS_BYTES), since the same pairs come back across generators and steps. The terms of
 * d on each generator (its non-zero entries as target generator, basis element, coefficient,
 * independent of t) are also kept in the share, made once per generator (at most
 * DTERMS_MAX_BYTES), and the signature codes of each degree once per candidate B.
 *
 * Sharing. Step (s, t)'s reduce and step (s+1, t)'s plan both want the zero-signature rows of d_s
 * at t (generators < t; their entries lie in F_{s-1}'s generators < t-1, by minimality); when
 * both are Nassau steps in the region with the same B, the first to come multiplies them and
 * leaves them in res->odd->share (a list under a lock, keyed by (s, t)), the second takes them.
 * The steps run in either order or at once: the first leaves a placeholder, a second that finds
 * it still building builds its own and marks it abandoned; a block that would take the share past
 * SHARE_MAX_BYTES is not kept (marked dropped). What a step never takes (a rerun that resumed
 * from stage files) is freed with the resolution.
 *
 * Finish in parts. Of a large finish nearly all the time goes into multiplying each signature's
 * rows of d_{s-1} (its block, then the rows some lift uses) and the block's quasi-inverse; they
 * read d_{s-1} alone, so the signatures are independent, and only applying the quasi-inverses
 * is a forward substitution (a lift changes d(x) in the columns of signatures of larger degree).
 * Where the signatures' rows hold at least 2N entries (rows x the width of d_{s-1}; N =
 * res->finish_split, EXTFLOW_FINISH_SPLIT), runs of the finish's order of about N entries each
 * become finish parts (tasks of their own, stages/chain.h): a part multiplies every row of its
 * signatures full width (the products are the same as for the block alone), gathers the block
 * from them, and keeps its quasi-inverse and the rows a lift may use (those where a preimage
 * row is not zero: about half) in the step's state (the footprint counts every row of d_{s-1}
 * already). Finish then goes through the signatures in the same order as unsplit: one no d(x)
 * reaches is dropped, one it reaches takes the kept quasi-inverse and rows, so every byte is the
 * unsplit finish's. The parts make signatures the unsplit finish skips (about 2% of the rows at
 * S_3 stem 250) and every row once, where the unsplit finish multiplies a block's rows and then
 * again those a lift uses; a signature a part could not make (out of memory) finish makes itself.
 */
#ifndef EXTFLOW_NASSAU_P_H
#define EXTFLOW_NASSAU_P_H
#include "stages/resolve/resolution.h"

/* The products kept for all steps of a resolution stay below res->odd->products_bytes, else this
 * (resolve: EXTFLOW_P_PRODUCTS, a quarter of --memory, or a sixteenth of the machine's memory and
 * at least this). 64 MB held 786,432 of
 * the products S_3 asks for through stem 250, s <= 70 (3.4 M distinct; 304 MB held them all in the
 * first layout, 107 MB in the compact one, algebra/milnor_p_cache.h) and
 * left 5.6 G requests to be computed again through stem 386, s <= 100 (docs/perf.md). */
#define NASSAU_P_PRODUCTS_BYTES ((uint64_t)256 << 20)

/* The steps it takes: res_p_nassau_row (stages/resolve/resolution_p.h). */
int res_nassau_p_plan(step_ctx *c);         /* 0, or -1 after res_fail */
int res_nassau_p_reduce(step_ctx *c);       /* 0, or -1 after res_fail */
int res_nassau_p_finish(step_ctx *c);       /* correct the new generators, publish; 0 or -1 */
/* A large finish split (the chain kind's finish parts, after reduce; Finish in parts above):
 * finish_parts says how many (0: no split: no new generator, res->finish_split 0, or fewer
 * than 2 parts' worth; at most RES_NASSAU_P_MAX_FINISH_PARTS); finish_part makes part k of n. */
#define RES_NASSAU_P_MAX_FINISH_PARTS 256
uint32_t res_nassau_p_finish_parts(step_ctx *c);
void res_nassau_p_finish_part(step_ctx *c, uint32_t k, uint32_t n);
void res_nassau_p_free(step_ctx *c);
uint64_t res_nassau_p_footprint(const resolution *res, int s, deg_t t);
/* Since the process started: Nassau steps at odd p finished, and those with new generators
 * (corrected); the subalgebras' largest dimension used; zero-signature row blocks taken from
 * the share instead of multiplied (for EXTFLOW_STATS). */
void res_nassau_p_stats(uint64_t *steps, uint64_t *corrected, uint64_t *largest_dim, uint64_t *shared);
/* res's product cache (Layout above): products kept, computed, bytes held (all 0 without one). */
void res_nassau_p_product_stats(const resolution *res, uint64_t *kept, uint64_t *computed, uint64_t *bytes);

#endif
