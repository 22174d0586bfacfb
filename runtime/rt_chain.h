/* rt_chain.h — the StarPU runner of chain sets (stages/chain.h): one entry for every
 * per-bidegree DAG (a resolution, a batch of lifts, d2's composites).
 *
 * DAG. Each chain is a chain of StarPU tasks: plan (tag PLAN of its family) → multiply chunks
 * (cl_milnor_mul for mod-2 rows, cl_pair_mul for a mod-4 batch; rt_mul.h cuts them and picks
 * CPU or GPU workers) → reduce → [multiply chunks →] finish (tag DONE of its family). A chain's
 * plan waits, by StarPU tag dependencies declared before anything runs, for the chains its kind
 * names (chain_kind.deps) that the set does not call done; a dependency the kind asks the
 * runner to make (the resolution's stem-edge kernel jobs) is submitted with the chain that
 * needs it. The scheduler (STARPU_SCHED) only picks the order; every chain's result is a
 * function of its inputs alone, so outputs never depend on it.
 *
 * Small chains. For a kind with multiply_here, a chain whose rows are at most one CPU chunk
 * that no GPU would take (most of a lift's target steps, the small standard steps of a
 * resolution) multiplies and finishes in its plan's task; EXTFLOW_LIFT_INLINE_PAIRS=N replaces
 * that rule (inline exactly below N pairs; 0: never).
 * A chain whose plan failed ends in its plan's task too.
 *
 * Policy (chain_policy): admission under --memory and --time-limit (admission.h) from each plan
 * task; after the time limit no chain is admitted (the rest become no-ops, their tags still
 * fire) and the run returns 1. Priorities: plans at -t (low degrees first), the tasks after the
 * plan (multiply chunks excepted) at the kind's priority(owner, s, t) where it has one, else
 * its finish_priority.
 *
 * Distributed resolution (rt_mpi.h): with dist, only the chains of this rank's rows are run,
 * step dependencies wait for the rows' readiness on this rank, and the exchanges are submitted
 * after the chains. StarPU must be started (rt_init).
 */
#ifndef EXTFLOW_RT_CHAIN_H
#define EXTFLOW_RT_CHAIN_H
#include "runtime/rt_mpi.h"
#include "stages/chain.h"

struct rt_mul;
/* Runs every chain of set under policy: 0, 1 when it stopped at the time limit (what finished
 * is kept), or -1 (the owner says why: the runner's own failures go to set->fail). mul: the caller's flat basis of set->A, kept (NULL: the run makes
 * its own). dist: NULL unless a distributed resolution. */
int rt_chains(const chain_set *set, const chain_policy *policy, struct rt_mul *mul, rt_dist *dist);
/* chain_runner over rt_chains with the runner's policy (no basis; ctx: the rt_dist, NULL: not
 * distributed). */
extern const chain_runner rt_chain_runner;
/* (job x term) pairs multiplied so far in this process on CUDA workers: mod 2 (cl_milnor_mul)
 * and mod 4 (cl_pair_mul). */
void rt_chain_cuda_pairs(uint64_t *mod2, uint64_t *mod4);
/* rt_chain_runner with a policy. */
static inline chain_runner rt_chain_runner_with(chain_policy p) { chain_runner r = rt_chain_runner; r.policy = p; return r; }
/* The same over the ranks of dist (a distributed resolution: rt_dist_new; NULL: one process). */
static inline chain_runner rt_chain_runner_dist(chain_policy p, rt_dist *dist)
{
    chain_runner r = rt_chain_runner_with(p);
    r.ctx = dist;
    return r;
}

#endif
