/* runpolicy.c — memory budget, time limit and agreement over ranks (runtime/runpolicy.h). */
#include "runtime/runpolicy.h"
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "runtime/rt_mpi.h"
#include "stages/progress.h"

int runpolicy_parse_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (errno || *end || v == 0 || v > (UINT64_MAX >> shift)) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int runpolicy_limits(const char *memory, const char *time_limit, double began, chain_policy *p, char *err,
                     size_t errlen)
{
    *p = (chain_policy){ .start = began };
    char *end = NULL;
    if (memory && runpolicy_parse_size(memory, &p->memory_budget) != 0) {
        snprintf(err, errlen, "--memory wants a size such as 2G, 512M or 1000000 (bytes), not '%s'", memory);
        return -1;
    }
    if (time_limit) {       /* digits only, 1 to 100000000 */
        errno = 0;
        long seconds = *time_limit >= '0' && *time_limit <= '9' ? strtol(time_limit, &end, 10) : 0;
        if (errno || !end || *end || seconds < 1 || seconds > 100000000) {
            snprintf(err, errlen, "--time-limit wants a number of seconds from 1 to 100000000, not '%s'", time_limit);
            return -1;
        }
        p->time_limit = (double)seconds;
    }
    return 0;
}

/* The cgroup v2 limit (memory.max) into *limit: 1, or 0 where there is none. */
static int cgroup_limit(unsigned long long *limit)
{
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    int have = f && fscanf(f, "%llu", limit) == 1;     /* "max" reads as none */
    if (f) fclose(f);
    return have;
}

uint64_t runpolicy_memory_total(void)
{
    uint64_t total = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    unsigned long long limit;
    if (cgroup_limit(&limit) && limit < total) total = limit;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < total) total = rl.rlim_cur;
    return total;
}

/* MemAvailable (else physical RAM), the room below a cgroup v2 limit and below `ulimit -v`. */
uint64_t runpolicy_memory_available(void)
{
    uint64_t avail = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) avail = (uint64_t)kb * 1024;
    if (f) fclose(f);
    struct rlimit rl;
    unsigned long long pages = 0;
    f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%llu", &pages) != 1) pages = 0;
    if (f) fclose(f);
    unsigned long long limit, usage;
    if (cgroup_limit(&limit)) {
        FILE *g = fopen("/sys/fs/cgroup/memory.current", "r");
        if (g && fscanf(g, "%llu", &usage) == 1 && limit - (usage < limit ? usage : limit) < avail)
            avail = limit - (usage < limit ? usage : limit);
        if (g) fclose(g);
    }
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        uint64_t used = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
        uint64_t room = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
        if (room < avail) avail = room;
    }
    return avail;
}

int runpolicy_refuse_if_too_big(uint64_t need, const char *what)
{
    uint64_t avail = runpolicy_memory_available();
    if (need <= avail) return 0;
    if (rt_mpi_rank() == 0) fprintf(stderr, "extflow: %s needs %.1f GiB for its Milnor tables and bookkeeping alone, "
            "more than the %.1f GiB available\n", what, need / 1073741824.0, avail / 1073741824.0);
    return 2;
}

/* The budget: --memory, else 80% of what is available. */
static uint64_t budget(const chain_policy *limits)
{
    return limits->memory_budget ? limits->memory_budget : runpolicy_memory_available() / 10 * 8;
}

chain_runner runpolicy_runner(const chain_policy *limits, int quiet, const char *noun)
{
    chain_policy p = *limits;
    p.memory_budget = budget(limits);
    p.progress_noun = quiet ? NULL : noun;
    p.progress_line = isatty(2);
    p.verbose = getenv("EXTFLOW_STATS") != NULL;
    return rt_chain_runner_with(p);
}

int runpolicy_start_all(const char *cmd)
{
    char err[300];
    int started = rt_init(0, err, sizeof err) == 0;
    if (!rt_mpi_max(!started)) return 0;
    if (rt_mpi_rank() == 0)
        fprintf(stderr, "extflow: %s%s\n", started ? cmd : err, started ? ": StarPU failed to start on another rank" : "");
    if (started) rt_shutdown();
    return 1;
}

const char *runpolicy_stop_cause(void)
{
    int sig = progress_stop_signal();
    if (!sig && progress_refused()) return "by --strict (the predicted cost is more than the run has)";
    return !sig ? "at the time limit" : sig == SIGINT ? "by SIGINT" : sig == SIGTERM ? "by SIGTERM" : "by a signal";
}

static const char *stop_note;
void runpolicy_stop_note(const char *note) { stop_note = note; }
const char *runpolicy_stop_suffix(void)
{
    static char buf[600];
    if (!stop_note || !*stop_note) return "";
    snprintf(buf, sizeof buf, "; %s", stop_note);
    return buf;
}

int runpolicy_stopped(const char *cmd, const char *dir, const chain_policy *limits, long done)
{
    if (done != 0)
        fprintf(stderr, "extflow: %s stopped %s after %.1f s; its finished steps%s are kept under "
                "%s/stages/lift (rerun to resume); no table was written%s\n", cmd, runpolicy_stop_cause(),
                clock_now() - limits->start, done > 0 ? "" : " (of its stored lifts)", dir, runpolicy_stop_suffix());
    else
        fprintf(stderr, "extflow: %s stopped %s after %.1f s with no step finished%s; no table was written%s\n", cmd,
                runpolicy_stop_cause(), clock_now() - limits->start,
                progress_stop_signal() ? "" : " (reading DIR and the start-up took the time: give a larger --time-limit)",
                runpolicy_stop_suffix());
    return 3;
}

uint64_t runpolicy_malloc(int explicit_budget, const char *env)
{
    uint64_t threshold = explicit_budget ? 4u << 20 : RUNPOLICY_MMAP_SPEED;
    if (env && runpolicy_parse_size(env, &threshold) != 0) threshold = 0;
    if (threshold == 0) return 0;
    if (threshold > RUNPOLICY_MMAP_SPEED) threshold = RUNPOLICY_MMAP_SPEED;    /* glibc refuses more */
    mallopt(M_MMAP_THRESHOLD, (int)threshold);
    /* a fixed threshold also fixes glibc's trim threshold (at 128 KB): the memory-first choice */
    if (!explicit_budget) mallopt(M_TRIM_THRESHOLD, (int)(threshold * 8));
    return threshold;
}

chain_policy runpolicy_resolve(const chain_policy *limits, int verbose)
{
    runpolicy_malloc(limits->memory_budget != 0, getenv("EXTFLOW_MMAP_THRESHOLD"));
    chain_policy p = *limits;
    p.verbose = getenv("EXTFLOW_STATS") != NULL;
    p.admission_report = verbose;
    p.memory_budget = budget(limits);
    if (verbose && rt_mpi_rank() == 0)
        fprintf(stderr, "extflow: memory budget %.0f MB%s\n", (double)p.memory_budget / 1048576.0,
                limits->memory_budget ? "" : " (80% of the memory available)");
    return p;
}
