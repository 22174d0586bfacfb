/* step.h — one step of the resolution: a chain (stages/chain.h) whose kind is the step's
 * algorithm, chosen per bidegree.
 *
 * A step (s, t) runs as   plan → multiply → reduce → [multiply → ] finish
 * where plan fills c->build (the rows to compute as Milnor products; the chain's rows,
 * c->ch.rows, point to it), multiply is done by the multiply codelet over them, reduce row-reduces and may plan more rows (then one more
 * multiply runs before finish), and finish publishes the new generators of F_s in degree t and
 * their stage file. The context of each piece is a step_ctx (stages/resolve/resolution.h), whose
 * chain's owner is the resolution.
 *
 * Algorithms: step_standard (every row under --algorithm standard; rows 0 and 1 under Nassau),
 * step_nassau (rows s >= 2 under Nassau: stages/resolve/nassau.h), step_edge_kernel (the kernel of d_s
 * at the stem edge, which the next row's standard step needs; publishes nothing; family
 * CHAIN_EDGE, made by the runner for the step that names it). Dependencies: each algorithm
 * names the steps that must be done before it plans (the standard step: (s, t-1) and the
 * kernel of d_{s-1} at (s-1, t), from the step there or the edge kernel job; Nassau's rows
 * s >= 2: (s, t-1) and (s-1, t-1)); steps done before the run are not named.
 */
#ifndef EXTFLOW_STEP_H
#define EXTFLOW_STEP_H
#include "stages/chain.h"
#include "stages/resolve/resolution.h"

extern const chain_kind step_standard, step_nassau, step_edge_kernel;
/* The standard step's early reduction of its first rows (stages/resolve/standard.h, lookahead): family
 * CHAIN_PRE, made by the runner for the step at the same (s, t). */
extern const chain_kind step_standard_pre;
/* At an odd prime (res->prime != 2; stages/resolve/standard_p.h): every row, and the stem-edge kernel
 * job; over A_p their chain's rows are c->build_p, tagged CHAIN_ROWS_FP (multiply tasks of
 * cl_milnor_mul_p, or the plan's worker for a small step), over a profile's B the plan
 * multiplies them itself (the chain has no rows). */
extern const chain_kind step_standard_p, step_edge_kernel_p;
/* At an odd prime under --algorithm nassau (stages/resolve/nassau_p.h): the steps (s, t), s >= 2, where
 * a subalgebra B may be used; the others are step_standard_p. Its plan multiplies its rows
 * itself (the chain has no rows); deps and reads as step_nassau's. */
extern const chain_kind step_nassau_p;

/* The algorithm of the step at (s, t) (the edge kernel job is asked for by name). */
const chain_kind *step_algo_for(const resolution *res, int s, deg_t t);
/* The resolution's chains: every step of the region not done yet (to run with a chain_runner;
 * the memory budget predicts each from its kind's footprint). */
chain_set step_chain_set(resolution *res);
/* Runs them with r (runtime/rt_chain.h's for the StarPU DAG, over ranks or not; chain_serial),
 * then makes the stage files durable (what finished is kept, even after a failure): 0, 1 when
 * the run stopped at the time limit (a rerun resumes), or -1 (res->error says why). The
 * settings of the steps are res's (lookahead, finish_split: the caller's). */
int res_run(resolution *res, const chain_runner *r);
/* Sets up c (zeroed, c->ch.kind one of the three) for the step at (s, t) of res: its pieces can
 * then be called directly (keepstages.c, cofiber.c). */
void step_init(step_ctx *c, resolution *res, const chain_kind *kind, int s, deg_t t);
/* Frees everything a step's pieces allocated in c (not c itself). */
void step_free(step_ctx *c);

#endif
