/* rt.h — the runtime layer: StarPU start/stop and the resolution's task DAG.
 *
 * DAG. The resolution's steps are a chain set (stages/resolve/step.h: step_chain_set) run by the chain
 * runner (runtime/rt_chain.h): each step (s, t) a chain of StarPU tasks plan (tag PLAN) →
 * multiply chunks → reduce → [multiply chunks →] finish (tag DONE, or EDGE for a stem-edge
 * kernel job), whatever the step's algorithm, which also names the steps it needs: the standard
 * step (s, t-1) and (s-1, t) or the edge kernel job there; Nassau's rows s >= 2 (s, t-1) and
 * (s-1, t-1) only.
 */
#ifndef EXTFLOW_RT_H
#define EXTFLOW_RT_H
#include "stages/chain.h"
#include "stages/resolve/resolution.h"

/* Starts StarPU: CPU workers, and CUDA workers where StarPU was built with CUDA and a device
 * exists (then eager unless STARPU_SCHED is set). verbose: one line saying what started. */
int rt_init(int verbose, char *err, size_t errlen);
/* The same with no CUDA worker: for a run whose multiply tasks are all CPU-only (a module
 * over a profile's sub-Hopf algebra, runtime/rt_mul.c), so that no CUDA context is made; and
 * one CPU worker fewer than the cores, at most RT_SMALL_TASK_CPUS, unless STARPU_NCPU is set
 * (its tasks are tiny; the submitting thread keeps a core); under StarPU-MPI, as rt_init. */
int rt_init_cpu(int verbose, char *err, size_t errlen);
#define RT_SMALL_TASK_CPUS 8
/* The CPU worker count rt_init and rt_init_cpu ask StarPU for (-1: StarPU's default, every
 * core), given cuda (0 for rt_init_cpu), STARPU_NCPU's value (NULL when unset) and the cores:
 * rt_usable_cpus(), the CPUs in this process's affinity mask, not the machine's. Where that
 * mask is a cgroup's cpuset or a binding StarPU keeps (STARPU_WORKERS_GETBIND, which
 * runtime/rt_mpi.c sets for the ranks of a node), StarPU's own default counts only its CPUs,
 * while a conf.ncpus it is given is never lowered to them: counted against the machine, the
 * cap would start 8 workers on a rank's 4 CPUs. */
int rt_default_ncpus(int cuda, const char *starpu_ncpu, long cores);
long rt_usable_cpus(void);
void rt_shutdown(void);
/* The same without StarPU-MPI, also under mpirun: a session whose tasks never cross ranks (d2),
 * which no StarPU-MPI barrier at its shutdown ties to the other ranks'. */
int rt_init_local(int verbose, char *err, size_t errlen);
void rt_shutdown_local(void);
/* Runs every step of the region not already done under the policy (stages/chain.h: memory
 * budget, time limit, verbose reports); returns 0, 1 when it stopped at the time limit (what
 * finished is in the stage files: a rerun resumes), or -1 (see res->error). */
int rt_resolve(resolution *res, const chain_policy *progress);

#endif
