/* t-rt-ncpus.c — the CPU worker count extflow asks StarPU for (runtime/rt.h rt_default_ncpus):
 * at most RT_SMALL_TASK_CPUS for a run without CUDA workers (a module over a profile) on more
 * cores than that, StarPU's default (-1: every core) otherwise, and never against STARPU_NCPU. */
#include "runtime/rt.h"
#include "tests/tap.h"

int main(void)
{
    plan(6);
    ok(rt_default_ncpus(0, NULL, 16) == RT_SMALL_TASK_CPUS, "no CUDA workers, 16 cores: %d workers",
       rt_default_ncpus(0, NULL, 16));
    ok(rt_default_ncpus(0, NULL, RT_SMALL_TASK_CPUS) == -1, "no CUDA workers, %d cores: every core",
       RT_SMALL_TASK_CPUS);
    ok(rt_default_ncpus(0, NULL, 2) == -1, "no CUDA workers, 2 cores: every core");
    ok(rt_default_ncpus(1, NULL, 128) == -1, "with CUDA workers, 128 cores: every core");
    ok(rt_default_ncpus(0, "16", 16) == -1, "STARPU_NCPU=16 set: left to StarPU, which reads it");
    ok(rt_default_ncpus(0, "", 64) == -1, "STARPU_NCPU set but empty: left to StarPU (and to extflow's check)");
    return done_testing();
}
