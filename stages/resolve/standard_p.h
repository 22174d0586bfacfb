/* standard_p.h — the standard step (s, t) at an odd prime p (stages/resolve/resolution_p.h): every row
 * of a resolution whose module file says "p": 3, 5, ... (step_standard_p and the stem-edge
 * kernel job step_edge_kernel_p in stages/resolve/step.h).
 *
 * Maths (docs/algorithms.md §11): as at p = 2 (standard.h), over F_p. The matrix D of d_s in
 * degree t has a row per basis element x·h of F_{s,t} (|h| < t, x in B's basis of degree
 * t - |h|): the vector x·d(h) over F_{s-1,t}, each term c·y·g' of d(h) giving c·(x·y) in g''s
 * block by Milnor's product mod p. The RREF of [D | 0 | I] (fpmat) gives the image pivots
 * (pivot columns inside D) and the kernel (rows with their pivot in I), which waits in its slot
 * for step (s+1, t). The new generators of F_s in degree t are the kernel vectors of d_{s-1}
 * at (s-1, t), in RREF, whose pivot is not an image pivot: with the image they span the
 * kernel, so the resolution is exact at F_{s-1}, and none lies in the image, so it is
 * minimal; their number is dim Ext^{s,t}. Row 0: D's rows are x·d(h) in M_t by the module's
 * action (zero for a trivial module), and the basis vectors of M_t that are no image pivot
 * become the new generators of F_0. A cofiber (module key "cofiber", stages/resolve/cofiber.h): in
 * the degrees t0 .. t0 + top of M, row s0 takes its new generators from the subspace
 * m->cofiber_rows[t - t0] of the kernel instead of the whole kernel, as at p = 2.
 *
 * Layout. c->Dp: dim F_{s,t} (generators < t) rows x dim F_{s-1,t} (generators <= t-2)
 * columns, as c->build.D at p = 2 (c->build keeps its shape). Over A_p itself, plan writes
 * the rows as jobs (c->build_p, stages/rowbuild_p.h; c->ch.rows points to it, tagged CHAIN_ROWS_FP) and the
 * runner multiplies them as at p = 2: multiply tasks (cl_milnor_mul_p, on CPU or CUDA
 * workers: runtime/rt_mul.h) or, for a small step, on the plan's worker
 * (res_step_multiply_p, the kind's multiply_here). Over a profile's B the plan multiplies the
 * rows itself (B's indices are not A_p's, which the codelet reads). After reduce, c->is_image_pivot flags D's columns and the
 * kernel (rows over F_{s,t}, RREF) sits in res_kernel_slot_p(res, s, t).
 *
 * Why plan and reduce stay twins of standard.c's. Their inner loops are the field's own: at
 * p = 2 the rows are packed words built by rowbuild.c's mod-2 jobs and reduced by M4RM on a
 * team of workers, with the lookahead (an early RREF extended in place), the narrowed columns
 * of --unstable and --keep-stages, none of which exist at odd p; here the rows are bytes from
 * rowbuild_p.c's mod-p jobs (or multiplied in the plan over a profile) and reduced by
 * fpmat_rref_split. Written once, each would be a branch on p at every line. What is the same
 * at every prime is written once in standard.c over algebra/fieldmat.h: the finish (new
 * generators from the kernel or a cofiber's subspace, res_publish and its stage file), the
 * step outside the runner (res_step_here: cofibers, a kernel computed on the spot) and freeing.
 */
#ifndef EXTFLOW_STANDARD_P_H
#define EXTFLOW_STANDARD_P_H
#include "stages/resolve/resolution.h"

/* The pieces of a step at odd p. Each returns 0 or -1 (after res_fail). The finish, the step
 * outside the runner (res_step_here), a kernel computed on the spot (res_compute_kernel) and
 * freeing (res_step_free) are standard.h's, one function at every prime. */
int res_step_plan_p(step_ctx *c);               /* D; its rows as jobs, or multiplied (profile) */
void res_step_multiply_p(step_ctx *c);          /* D's rows from the jobs, on this thread */
int res_step_reduce_p(step_ctx *c);             /* RREF; image pivots; kernel if wanted */
uint64_t res_step_footprint_p(const resolution *res, int s, deg_t t);
void res_step_free_p(step_ctx *c);

#endif
