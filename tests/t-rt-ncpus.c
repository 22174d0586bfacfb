/* t-rt-ncpus.c — the CPU worker count extflow asks StarPU for (runtime/rt.h rt_default_ncpus):
 * for a run without CUDA workers (a module over a profile) one fewer than the cores, at most
 * RT_SMALL_TASK_CPUS; StarPU's default (-1: every core) otherwise, and never against STARPU_NCPU;
 * the cores it is given are those of the process's affinity mask (rt_usable_cpus). */
#include "runtime/rt.h"
#include "tests/tap.h"

#include <sched.h>
#include <unistd.h>

int main(void)
{
    plan(10);
    ok(rt_default_ncpus(0, NULL, 16) == RT_SMALL_TASK_CPUS, "no CUDA workers, 16 cores: %d workers",
       rt_default_ncpus(0, NULL, 16));
    ok(rt_default_ncpus(0, NULL, RT_SMALL_TASK_CPUS + 1) == RT_SMALL_TASK_CPUS, "no CUDA workers, %d cores: %d",
       RT_SMALL_TASK_CPUS + 1, RT_SMALL_TASK_CPUS);
    ok(rt_default_ncpus(0, NULL, RT_SMALL_TASK_CPUS) == RT_SMALL_TASK_CPUS - 1, "no CUDA workers, %d cores: %d",
       RT_SMALL_TASK_CPUS, RT_SMALL_TASK_CPUS - 1);
    ok(rt_default_ncpus(0, NULL, 2) == 1, "no CUDA workers, 2 cores: 1 worker, the submitter keeps a core");
    ok(rt_default_ncpus(0, NULL, 1) == -1, "no CUDA workers, 1 core: StarPU's default");
    ok(rt_default_ncpus(1, NULL, 128) == -1, "with CUDA workers, 128 cores: every core");
    ok(rt_default_ncpus(0, "16", 16) == -1, "STARPU_NCPU=16 set: left to StarPU, which reads it");
    ok(rt_default_ncpus(0, "", 64) == -1, "STARPU_NCPU set but empty: left to StarPU (and to extflow's check)");
    /* a process bound to one CPU (as a rank given its share of a node) counts one, whatever
     * the machine has; its own mask again, as many as that mask holds */
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) != 0) bail("sched_getaffinity");
    int first = 0;
    while (!CPU_ISSET(first, &all)) first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) bail("sched_setaffinity");
    long bound = rt_usable_cpus();
    if (sched_setaffinity(0, sizeof all, &all) != 0) bail("sched_setaffinity");
    ok(bound == 1, "bound to CPU %d of %ld online: %ld usable", first, sysconf(_SC_NPROCESSORS_ONLN), bound);
    ok(rt_usable_cpus() == CPU_COUNT(&all), "unbound again: the %d CPUs of its mask (%ld)", CPU_COUNT(&all),
       rt_usable_cpus());
    return done_testing();
}
