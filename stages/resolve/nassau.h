/* nassau.h — Nassau's step (s, t), s >= 2, for S_2 or a finite module without a profile
 * (stages/resolve/nassau.c; docs/algorithms.md §5), on the resolution's core (stages/resolve/resolution.h)
 * alone: plan builds the zero-signature rows of d_{s-1} and of d_s; reduce counts and chooses the
 * new generators and, when there are any, plans the remaining rows of d_{s-1} (returns 1: one
 * more multiply); finish corrects them signature by signature and publishes them, a large one
 * after parts that make the signatures' quasi-inverses. State
 * between the pieces lives in c->ns (struct nassau_state, private to nassau.c). */
#ifndef EXTFLOW_NASSAU_H
#define EXTFLOW_NASSAU_H
#include "stages/resolve/resolution.h"

int res_nassau_plan(step_ctx *c);           /* 0, or -1 after res_fail */
int res_nassau_reduce0(step_ctx *c);        /* 1: plan more rows (c->build) and multiply; 0; -1 */
int res_nassau_finish(step_ctx *c);         /* correct the new generators, publish; 0 or -1 */
/* A large finish split (the chain kind's finish parts, after phase 2's multiply): the
 * quasi-inverses of the signature blocks depend on the rows of d_{s-1} alone, so parts make
 * them, each a run of consecutive codes of about res->finish_split block entries, and finish
 * then applies them in code order as before (same bits). finish_parts: how many (0: no split:
 * no new generator, res->finish_split 0, or fewer than 2 parts' worth; at most
 * RES_NASSAU_MAX_FINISH_PARTS); finish_part: part k of n. */
#define RES_NASSAU_MAX_FINISH_PARTS 256
uint32_t res_nassau_finish_parts(step_ctx *c);
void res_nassau_finish_part(step_ctx *c, uint32_t k, uint32_t n);
void res_nassau_free(step_ctx *c);
/* Predicted peak bytes of the step at (s, t), phase 2 included (all rows of d_{s-1}: its D
 * dominates), from the dimensions known once its prerequisites are done. */
uint64_t res_nassau_footprint(const resolution *res, int s, deg_t t);
/* The signatures, for stages/products/preimage.c's solve through the same blocks: the profile B of the
 * sub-Hopf-algebra a step of row s works with at degree t (the step passes its t less the
 * module's top degree: docs/algorithms.md §5.2), its number of signature codes 2^(sum h_i),
 * and the code of Sq(R) (mixed radix, slot 0 in the low h_0 bits; 0: zero signature). */
milnor_profile res_nassau_profile(int s, deg_t t);
uint32_t res_nassau_ncodes(const milnor_profile *h);
uint32_t res_nassau_sig_code(const milnor_elt *R, const milnor_profile *h);

#endif
