/* rt.h — the runtime layer's start and stop: StarPU with its CPU and CUDA workers (and
 * StarPU-MPI under mpirun). What runs on it is a chain set (stages/chain.h), run by
 * runtime/rt_chain.h; a resolution's DAG is its steps' set (stages/resolve/step.h: res_run),
 * whose chains name the steps they need.
 */
#ifndef EXTFLOW_RT_H
#define EXTFLOW_RT_H
#include <stddef.h>

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
/* The CPU workers StarPU started (after rt_init). */
int rt_cpu_workers(void);

#endif
