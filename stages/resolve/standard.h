/* standard.h — the standard step (s, t) of the resolution (stages/resolve/resolution.h), for S_2 or a
 * finite module: every row under --algorithm standard, rows 0 and 1 under Nassau
 * (step_standard in stages/resolve/step.h), and the stem-edge kernel job (step_edge_kernel).
 *
 * Maths (docs/algorithms.md §4.2). At (s, t) the step reduces the matrix D of d_s on F_{s,t}
 * (rows: basis Sq(R)·g with |g| < t; columns: F_{s-1,t}) together with an identity,
 * [D | 0 | I], to RREF. Rows whose pivot lies in I give the kernel of d_s (consumed by step
 * (s+1, t)); the pivots in D give the image. The new generators of F_s in degree t are the
 * kernel vectors of d_{s-1} at (s-1, t) whose pivot is not an image pivot (sseq's
 * extend_image), so the resolution is minimal. Row 0 maps F_0 onto M: its rows are read off
 * the module's action table (D = 0 for S_2), and its new generators are the basis vectors of
 * M_t that are not image pivots. Where no step reads the kernel, D is reduced alone: the
 * pivots in D's columns are the same.
 *
 * Cofiber (module key "cofiber", stages/resolve/cofiber.h): the steps are those of M except that row
 * s0 of the cone's resolution, in the degrees t0 .. t0 + top of M, hits a subspace of the
 * kernel given with the module (fd_module's cofiber_rows) instead of the whole kernel.
 *
 * Columns. d(g) only meets generators of degree < |g|, so the columns of generators of
 * degree >= t-1 of F_{s-1} are zero in degree t; the matrix keeps the prefix of generators
 * of degree <= t-2. That makes a step depend on (s, t-1) and on the kernel at (s-1, t) only,
 * and lets the stem-edge kernel at (s, N+s+1) be computed from (s, N+s) alone.
 *
 * Layout. c->build.D: dim F_{s,t} (generators < t) rows x dim F_{s-1,t} (generators <= t-2)
 * columns (dim M_t for s = 0); after reduce, c->is_image_pivot flags its columns, and the
 * kernel (rows over F_{s,t}, RREF) waits in res_kernel_slot(res, s, t) for step (s+1, t).
 *
 * Lookahead (res->lookahead = j >= 2, res_lookahead_at). The step at (s, t) waits for (s, t-1),
 * so along a row the large reductions run one after another: on many cores that chain is the
 * run's critical path. But the rows of D from generators of degree <= t-j are a prefix of D's
 * rows (the basis is ordered by generator degree), and their images only meet generators of
 * F_{s-1} of degree < t-j, a prefix of D's columns: they are known once (s, t-j) is done. A
 * chain of its own at (s, t) (family CHAIN_PRE, made for the step; res_pre_plan,
 * res_pre_reduce) reduces them then, [D' | 0 | I] or D' alone, into res->pre; the step plans
 * only its other rows (few: generators of degree t-j+1 .. t-1 times A in degrees < j) and
 * extends that RREF by them (f2mat_rref_extend), the early matrix widened to the step's shape
 * in its own block (f2mat_widen: the full width is not known when the early chain runs, and
 * a widened copy would hold the matrix twice). RREF is unique: the results are those of one
 * whole reduction, bit for bit. The stem-edge kernel job (step_edge_kernel) takes an early
 * reduction the same way: on the stem edge each kernel waits for the step beside it, whose
 * finish waited for the kernel below, so whole reductions there would follow one another down
 * the diagonal. Steps called outside the runner (verify, cofibers, a kernel computed on the
 * spot) find no early reduction and reduce everything.
 *
 * The pieces, which the runtime (runtime/rt.c) turns into StarPU tasks: res_step_plan
 * (marshal Milnor-multiply jobs), the batched multiply (codelets/), res_step_reduce (RREF,
 * image pivots, kernel) and res_step_finish (new generators, res_publish).
 */
#ifndef EXTFLOW_STANDARD_H
#define EXTFLOW_STANDARD_H
#include "algebra/fieldmat.h"
#include "stages/resolve/resolution.h"

/* The pieces of a step. Each returns 0 or -1 (after res_fail). */
int res_step_plan(step_ctx *c);                 /* jobs, terms, zeroed D */
int res_step_reduce(step_ctx *c);               /* RREF; image pivots; kernel if wanted */
/* New gens, publish, stage file: one function at every prime (algebra/fieldmat.h: the kernel
 * and a cofiber's subspace as matrices over F_p, the images a byte an entry at odd p). */
int res_step_finish(step_ctx *c);
/* Predicted peak bytes of the standard step at (s, t) (D, the augmented RREF matrix, the
 * kernel, the jobs), from the dimensions, which are known once its prerequisites are done. */
uint64_t res_step_footprint(const resolution *res, int s, deg_t t);
/* Frees what the standard pieces allocated in c, at either prime (not c->ns: step_free in
 * step.h frees all). */
void res_step_free(step_ctx *c);
/* Lookahead: the j of the step at (s, t) (0: none; only rows s >= 1 at p = 2 over the whole of
 * A, stems from RES_LOOKAHEAD_MIN_STEM, where (s, t-j) is in the region, not under
 * --keep-stages matrix);
 * the early chain's plan and reduce; its predicted peak bytes. */
#define RES_LOOKAHEAD_MIN_STEM 20
int res_lookahead_at(const resolution *res, int s, deg_t t);
int res_pre_plan(step_ctx *c);
int res_pre_reduce(step_ctx *c);
uint64_t res_pre_footprint(const resolution *res, int s, deg_t t);
/* The step's plan, multiply and reduce on this thread at the resolution's prime (standard.c
 * at p = 2, standard_p.c at odd p), outside the runner: a cofiber's resolution of M, a kernel
 * computed on the spot. D, when not NULL, receives a copy of the step's matrix as multiplied
 * (initialised here). 0, or -1 (after res_fail; a failed copy of D records nothing). */
int res_step_here(step_ctx *c, fieldmat *D);
/* Kernel of d_s at (s, t) computed on the spot (stem edge, resume), at either prime. */
int res_compute_kernel(resolution *res, int s, deg_t t);

#endif
