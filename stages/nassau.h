/* nassau.h — Nassau's step (s, t), s >= 2, for the sphere (stages/nassau.c; docs/algorithms.md
 * §5): plan builds the zero-signature rows of d_{s-1} and of d_s; reduce counts and chooses the
 * new generators and, when there are any, plans the remaining rows of d_{s-1} (returns 1: one
 * more multiply); finish corrects them signature by signature and publishes them. State
 * between the pieces lives in c->ns (struct nassau_state, private to nassau.c). */
#ifndef EXTFLOW_NASSAU_H
#define EXTFLOW_NASSAU_H
#include "stages/resolution.h"

int res_nassau_plan(step_ctx *c);           /* 0, or -1 after res_fail */
int res_nassau_reduce0(step_ctx *c);        /* 1: plan more rows (c->build) and multiply; 0; -1 */
int res_nassau_finish(step_ctx *c);         /* correct the new generators, publish; 0 or -1 */
void res_nassau_free(step_ctx *c);
/* Predicted peak bytes of the step at (s, t), phase 2 included (all rows of d_{s-1}: its D
 * dominates), from the dimensions known once its prerequisites are done. */
uint64_t res_nassau_footprint(const resolution *res, int s, deg_t t);
/* Preimages under d_i : F_{i,t} -> F_{i-1,t} (i >= 1) of res through Nassau's signature
 * blocks, for chain-map lifts (stages/lift.h): X (initialised here, Y->rows x dim F_{i,t}) gets
 * for each row y_j of Y (over F_{i-1,t} on generators of degree < t, d y_j = 0) an x_j with
 * d x_j = y_j. Profile B = optimal_for(i + 1, t), the one Nassau's step (i + 1, t) corrects
 * its generators with. The rows of d_i of signature σ restricted to the columns of signature σ
 * are the zero-signature block of d_i at degree t - |σ| (Sq(R)·g <-> Sq(R - σ)·g), and meet no
 * other signature of degree <= |σ|; so the y are lifted level by level in |σ| through the
 * quasi-inverses of zero-signature blocks at (i, t - |σ|) (kept in cache, when given, for the
 * later steps of row i), and only the rows of d_i at the lifts' bits are multiplied, to carry
 * the residual to the next level. The residual is kept exactly: 0 means d x_j = y_j for all j.
 * Returns 0; 1 when this does not apply (a module Nassau does not handle, B trivial) or some
 * residual is left (X not initialised: use lift_solve); -1 out of memory. Thread-safe: steps
 * may share one cache. */
typedef struct nassau_lift_cache nassau_lift_cache;
nassau_lift_cache *nassau_lift_cache_new(const resolution *res);   /* NULL: out of memory */
/* One more holder of cache (lift sets over the same target share it); returns cache. */
nassau_lift_cache *nassau_lift_cache_ref(nassau_lift_cache *cache);
/* Drops one holder; the last frees it. */
void nassau_lift_cache_free(nassau_lift_cache *cache);
int res_nassau_preimages(const resolution *res, nassau_lift_cache *cache, int i, deg_t t, const f2mat *Y,
                         f2mat *X);

#endif
