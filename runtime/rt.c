/* rt.c — StarPU's start and stop (see rt.h). */
#include "runtime/rt.h"
#include "algebra/clock.h"
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "algebra/memacct.h"
#include "codelets/codelets.h"
#include "runtime/rt_mpi.h"
#ifdef STARPU_USE_CUDA
#include "algebra/milnor_cuda.h"
#endif


/* rt_init, with StarPU-MPI (mpi) or without, with CUDA workers where there are GPUs (cuda). */
static int rt_start(int verbose, int mpi, int cuda, char *err, size_t errlen)
{
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.nopencl = 0;
    int gpus = 0;
#ifdef STARPU_USE_CUDA
    const char *nc = getenv("STARPU_NCUDA");
    gpus = !cuda || (nc && atoi(nc) == 0) ? 0 : milnor_cuda_device_count();
    if (!cuda) conf.ncuda = 0;
#else
    (void)cuda;
    conf.ncuda = 0;
#endif
    /* With CUDA workers: eager (lws/ws/prio of StarPU 1.3 can stall on CUDA workers; dmda kept
     * the GPU under 6% of the pairs and was the slowest, docs/perf.md), 4 chunks in flight per
     * CUDA worker and two CUDA workers per GPU (two streams: one chunk's copies and set-up
     * overlap another's kernel; stem 130 18.5 -> 15.3 s, stem 150 91.2 -> 72.8 s on one H200,
     * docs/perf.md) unless the user chose otherwise. */
    if (gpus > 0 && !getenv("STARPU_SCHED")) conf.sched_policy_name = "eager";
    if (gpus > 0) setenv("STARPU_CUDA_PIPELINE", "4", 0);
    if (gpus > 0) setenv("STARPU_NWORKER_PER_CUDA", "2", 0);
    /* (under StarPU-MPI each rank's CPUs are its binding's, rt_mpi.c: left to it) */
    int ncpus = mpi ? -1 : rt_default_ncpus(cuda, getenv("STARPU_NCPU"), rt_usable_cpus());
    if (ncpus > 0) conf.ncpus = ncpus;     /* else what starpu_conf_init read (STARPU_NCPU) */
    /* SIGINT is ours (tools/extflow.c). StarPU's catcher saves the handler it finds and puts it
     * back only when the signal comes: a command that starts StarPU twice in one process
     * (mahowald's inner runs) found StarPU's own catcher the second time, and a Ctrl-C then
     * re-raised itself for ever (100% CPU, no line). */
    if (!getenv("STARPU_CATCH_SIGNALS")) conf.catch_signals = 0;
    int ret = mpi ? rt_mpi_starpu_init(&conf) : starpu_init(&conf);
    if (ret != 0) {
        snprintf(err, errlen, "StarPU failed to start: %s", strerror(-ret));
        return -1;
    }
    unsigned ncuda = starpu_cuda_worker_get_count();
    if (verbose)
        fprintf(stderr, "extflow: %u CPU workers, %u CUDA workers, scheduler %s%s\n", starpu_cpu_worker_get_count(),
                ncuda, getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : conf.sched_policy_name ? conf.sched_policy_name : "lws",
                conf.sched_policy_name ? " (chosen because CUDA workers exist; set STARPU_SCHED to override)" : "");
    return 0;
}

/* Without CUDA workers (a run over a profile's B): one core left to the submitting thread and
 * at most RT_SMALL_TASK_CPUS CPU workers, unless STARPU_NCPU says otherwise. Such a run's tasks
 * last microseconds: idle workers' polling beyond that many, or on the submitter's core, costs
 * more than they add (docs/perf.md). */
int rt_default_ncpus(int cuda, const char *starpu_ncpu, long cores)
{
    if (cuda || starpu_ncpu || cores < 2) return -1;
    return cores - 1 < RT_SMALL_TASK_CPUS ? (int)(cores - 1) : RT_SMALL_TASK_CPUS;
}

/* rt.h: the affinity mask's CPUs, which rt_default_ncpus compares with its cap. */
long rt_usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);      /* more CPUs than a cpu_set_t holds */
}

int rt_init(int verbose, char *err, size_t errlen) { return rt_start(verbose, rt_mpi_size() > 1, 1, err, errlen); }
int rt_init_cpu(int verbose, char *err, size_t errlen) { return rt_start(verbose, rt_mpi_size() > 1, 0, err, errlen); }
int rt_init_local(int verbose, char *err, size_t errlen) { return rt_start(verbose, 0, 1, err, errlen); }
void rt_shutdown_local(void) { starpu_shutdown(); }

int rt_cpu_workers(void) { return (int)starpu_cpu_worker_get_count(); }

void rt_shutdown(void)
{
    if (rt_mpi_size() > 1) rt_mpi_starpu_shutdown();
    else starpu_shutdown();
}
