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

#endif
