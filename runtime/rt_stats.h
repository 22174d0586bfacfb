/* rt_stats.h — EXTFLOW_STATS's report of a run (chain_policy.verbose): where its task time went,
 * piece by piece (codelets/cl_profile.h), how many Milnor products ran on CPU and CUDA workers,
 * the set's own lines (chain_set.stats: a resolution's Nassau steps at odd p), the idle
 * workers recruited into row reductions (EXTFLOW_TEAM), and, in one process, the
 * critical path of the DAG it ran with how its chains would fall on 2 and 4 ranks. Any chain
 * set's, read through the chain interface (stages/chain.h): its box, its chains' kinds and
 * their deps; rt_chains calls these when its policy says verbose.
 *
 * Layout: the profile holds a cell per (s, t - s, layer) of the set's box, t - s = 0..max_t.
 */
#ifndef EXTFLOW_RT_STATS_H
#define EXTFLOW_RT_STATS_H
#include "stages/chain.h"

/* Before the run's first task: the profile on (policy->verbose) or off, its cells. */
void rt_stats_begin(const chain_set *set, const chain_policy *policy);
/* After its last (seconds: the run's wall time; distributed: no critical path, the ranks
 * report theirs): the lines on stderr, then the cells freed. Nothing unless verbose. */
void rt_stats_end(const chain_set *set, const chain_policy *policy, double seconds, int distributed);

#endif
