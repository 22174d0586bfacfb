/* env.c — the environment, checked in one place before a command starts StarPU or creates
 * anything (cli_check_env, tools/cli.h; docs/design.md "The environment"). */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "runtime/runpolicy.h"
#include "tools/cli.h"

/* The environment, checked in one place before a command starts StarPU or creates anything:
 * every variable extflow reads or documents, and every one StarPU 1.3.10 parses as a number
 * (starpu_get_env_number and starpu_get_env_float_default abort on trailing characters or a
 * negative value; found by running extflow with each STARPU_ name in libstarpu with a
 * non-numeric value, docs/design.md "The environment"). A bad value is a usage error; an unset
 * variable is never one. A name with '*' matches every variable of that pattern (fnmatch). */
enum env_kind {
    ENV_ANY,      /* any value (a path, a flag that is on when set) */
    ENV_INT,      /* decimal digits, lo..hi; or one of words */
    ENV_REAL,     /* a finite decimal number, lo..hi */
    ENV_SIZE,     /* bytes, or with K, M, G, T; lo..hi */
    ENV_WORD,     /* one of words ("a|b|c") */
    ENV_CPUS,     /* StarPU's list of CPU or device numbers: N, N-M or N-, by spaces or commas */
    ENV_CPU,      /* a CPU number below the number of CPUs the system has */
    ENV_SCHED,    /* one of StarPU's policies that extflow can run (empty: StarPU's default) */
    ENV_SPLIT,    /* EXTFLOW_GPU_SPLIT: T,P with T dividing 256 and 1 <= P <= 1024 */
};
typedef struct env_var {
    const char *name;
    enum env_kind kind;
    double lo, hi;
    const char *words;
    const char *allowed;   /* what the refusal says is allowed */
} env_var;

#define STARPU_INT(name) { name, ENV_INT, 0, INT_MAX, NULL, "an integer, 0 or more (StarPU aborts on any other value)" }
#define STARPU_REAL(name) { name, ENV_REAL, -1e300, 1e300, NULL, "a number (StarPU aborts on any other value)" }
#define COUNT(name, lo, what) { name, ENV_INT, lo, 18446744073709551615.0, NULL, what }
static const env_var env_table[] = {
    /* extflow's own (help, README, docs/design.md) */
    { "EXTFLOW_MMAP_THRESHOLD", ENV_SIZE, 0, 33554432, NULL, "bytes (K, M allowed) up to 32M (glibc's limit), 0 for glibc's rule" },
    { "EXTFLOW_STATS", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_DEBUG", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_STEP_LOG", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_POISON_UNZEROED", ENV_WORD, 0, 0, "0|1", "0 or 1" },
    { "EXTFLOW_HUGEPAGES", ENV_WORD, 0, 0, "0|1", "0 or 1" },
    { "EXTFLOW_CAPTURE_MUL", ENV_ANY, 0, 0, NULL, NULL },
    COUNT("EXTFLOW_CAPTURE_EVERY", 1, "an integer, 1 or more"),
    COUNT("EXTFLOW_CHUNK_PAIRS", 1, "a number of (job x term) pairs, 1 or more"),
    { "EXTFLOW_GPU_STEP_PAIRS", ENV_INT, 0, 1e15, "off", "off or a number of (job x term) pairs, 0 or more" },
    COUNT("EXTFLOW_GPU_CHUNK_PAIRS", 1, "a number of (job x term) pairs, 1 or more"),
    COUNT("EXTFLOW_GPU_P_STEP_PAIRS", 1, "a number of (job x term) pairs, 1 or more"),
    { "EXTFLOW_GPU_PAIR_STEP_PAIRS", ENV_INT, 0, 1e15, "off", "off or a number of (job x term) pairs, 0 or more" },
    { "EXTFLOW_GPU_CPU_HELP", ENV_WORD, 0, 0, "0|1", "0 or 1" },
    { "EXTFLOW_GPU_CPU_SHARE", ENV_REAL, 0, 0.9, NULL, "a share of a step's pairs, 0 to 0.9" },
    { "EXTFLOW_GPU_VERIFY", ENV_WORD, 0, 0, "0|1", "0 or 1" },
    { "EXTFLOW_GPU_SPLIT", ENV_SPLIT, 0, 0, NULL, "T,P: T threads per job dividing 256, P parts, 1 to 1024" },
    { "EXTFLOW_GPU_P_SPLIT", ENV_SPLIT, 0, 0, NULL, "T,P: T threads per job dividing 256, P parts, 1 to 1024" },
    { "EXTFLOW_GPU_KERNEL", ENV_WORD, 0, 0, "atomic|shared|halves|refill|step|packed|atomic-packed",
      "atomic, shared, halves, refill, step, packed or atomic-packed" },
    { "EXTFLOW_MILNOR_SIMD", ENV_WORD, 0, 0, "auto|avx2", "auto (AVX-512 where the CPU has it) or avx2" },
    { "EXTFLOW_D2_Y", ENV_WORD, 0, 0, "batch|cpu", "batch or cpu" },
    { "EXTFLOW_D2_INTERMEDIATE", ENV_WORD, 0, 0, "multiply|cpu", "multiply or cpu" },
    { "EXTFLOW_MASSEY_H", ENV_WORD, 0, 0, "first|late", "first or late" },
    { "EXTFLOW_P_PRODUCTS", ENV_SIZE, 0, 1e15, NULL, "bytes (K, M, G allowed), 0 to keep none" },
    { "EXTFLOW_D2_MEMO", ENV_SIZE, 0, 1e15, NULL, "bytes (K, M, G allowed), 0 for no memo" },
    { "EXTFLOW_D2_QI", ENV_SIZE, 0, 1e15, NULL, "bytes (K, M, G allowed), 0 to keep none" },
    COUNT("EXTFLOW_LIFT_INLINE_PAIRS", 0, "a number of (job x term) pairs, 0 or more"),
    /* 0 is a word, so that the range 2..64 leaves out 1, which would be no lookahead at all */
    { "EXTFLOW_LOOKAHEAD", ENV_INT, 2, 64, "0", "0 (off), or a number of degrees, 2 to 64 (1 is not a lookahead)" },
    COUNT("EXTFLOW_FINISH_SPLIT", 0, "a number of signature-block entries, 0 (off) or more"),
    { "EXTFLOW_TEAM", ENV_INT, 0, 4096, NULL, "a number of helpers per row reduction, 0 (off) or more" },
    COUNT("EXTFLOW_TEAM_MIN", 0, "a number of bytes, 0 or more"),
    { "EXTFLOW_MPI_OWNER", ENV_WORD, 0, 0, "pairs|rows|blocks", "pairs, rows or blocks" },
    { "EXTFLOW_MPI_BIND", ENV_WORD, 0, 0, "yes|no", "yes (the default) or no" },
    /* read by the tests, .ci/run and the fault shim, never by extflow: allowed beside it */
    { "EXTFLOW_REQUIRE_BROWSER", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_REQUIRE_MPI", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_REQUIRE_PATCHED_MPI", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_PATCHED_MPI", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_TEST_*", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_FAULT_*", ENV_ANY, 0, 0, NULL, NULL },
    /* StarPU's, with extflow's own limits */
    { "STARPU_SCHED", ENV_SCHED, 0, 0, NULL, NULL },
    { "STARPU_NCPU", ENV_INT, 1, INT_MAX, NULL, "a number of CPU workers, 1 or more (every task can run on a CPU)" },
    { "STARPU_NCPUS", ENV_INT, 1, INT_MAX, NULL, "a number of CPU workers, 1 or more (every task can run on a CPU)" },
    { "STARPU_NCUDA", ENV_INT, 0, INT_MAX, NULL, "a number of CUDA workers, 0 or more" },
    { "STARPU_NWORKER_PER_CUDA", ENV_INT, 1, INT_MAX, NULL, "a number of workers per GPU, 1 or more" },
    { "STARPU_CALIBRATE", ENV_INT, 0, 2, NULL, "0, 1 (calibrate) or 2 (drop the models and calibrate)" },
    { "STARPU_MPI_IDLE_SLEEP_US", ENV_INT, 0, 10000, NULL, "microseconds, 0 to 10000" },   /* our StarPU-MPI's */
    { "STARPU_HOME", ENV_ANY, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_CPUID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_COREID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_CUDAID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_OPENCLID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_MAIN_THREAD_CPUID", ENV_CPU, 0, 0, NULL, NULL },
    { "STARPU_MAIN_THREAD_COREID", ENV_CPU, 0, 0, NULL, NULL },
    { "STARPU_MPI_THREAD_CPUID", ENV_CPU, 0, 0, NULL, NULL },
    { "STARPU_MPI_THREAD_COREID", ENV_CPU, 0, 0, NULL, NULL },
    /* StarPU's numbers: any other value aborts StarPU, at start or in a scheduler */
    STARPU_INT("STARPU_SILENT"), STARPU_INT("STARPU_NOPENCL"), STARPU_INT("STARPU_NMIC"),
    STARPU_INT("STARPU_NMPI_MS"), STARPU_INT("STARPU_RESERVE_NCPU"), STARPU_INT("STARPU_NTHREADS_PER_CORE"),
    STARPU_INT("STARPU_WORKERS_NOBIND"), STARPU_INT("STARPU_WORKERS_GETBIND"), STARPU_INT("STARPU_MAIN_THREAD_BIND"),
    STARPU_INT("STARPU_PREFETCH"), STARPU_INT("STARPU_BUS_CALIBRATE"), STARPU_INT("STARPU_CALIBRATE_MINIMUM"),
    STARPU_INT("STARPU_CATCH_SIGNALS"), STARPU_INT("STARPU_DIDUSE_BARRIER"), STARPU_INT("STARPU_DISABLE_KERNELS"),
    STARPU_INT("STARPU_DISABLE_ASYNCHRONOUS_*COPY"), STARPU_INT("STARPU_DISABLE_PINNING"),
    STARPU_INT("STARPU_DISPLAY_BINDINGS"), STARPU_INT("STARPU_GLOBAL_ARBITER"), STARPU_INT("STARPU_HISTORY_MAX_ERROR"),
    STARPU_INT("STARPU_LIMIT_BANDWIDTH"), STARPU_INT("STARPU_LIMIT_*_MEM"), STARPU_INT("STARPU_LIMIT_*_SUBMITTED_TASKS"),
    STARPU_INT("STARPU_MAX_MEMORY_USE"), STARPU_INT("STARPU_MAX_PRIO"), STARPU_INT("STARPU_MIN_PRIO"),
    STARPU_INT("STARPU_MEMORY_STATS"), STARPU_INT("STARPU_MINIMUM_AVAILABLE_MEM"),
    STARPU_INT("STARPU_MINIMUM_CLEAN_BUFFERS"), STARPU_INT("STARPU_TARGET_AVAILABLE_MEM"),
    STARPU_INT("STARPU_TARGET_CLEAN_BUFFERS"), STARPU_INT("STARPU_PERF_MODEL_HOMOGENEOUS_*"),
    STARPU_INT("STARPU_OPENCL_ON_CPUS"), STARPU_INT("STARPU_OPENCL_ONLY_ON_CPUS"), STARPU_INT("STARPU_SIMGRID"),
    STARPU_INT("STARPU_SINGLE_COMBINED_WORKER"), STARPU_INT("STARPU_STATS"), STARPU_INT("STARPU_TASK_BREAK_ON_*"),
    STARPU_INT("STARPU_TASK_PROGRESS"), STARPU_INT("STARPU_TRACE_BUFFER_SIZE"), STARPU_INT("STARPU_USE_NUMA"),
    STARPU_INT("STARPU_WATCHDOG_CRASH"), STARPU_INT("STARPU_WATCHDOG_DELAY"), STARPU_INT("STARPU_WATCHDOG_TIMEOUT"),
    STARPU_INT("STARPU_WORKER_TREE"), STARPU_INT("STARPU_BACKOFF_MIN"), STARPU_INT("STARPU_BACKOFF_MAX"),
    STARPU_INT("STARPU_MIN_WORKERSIZE"), STARPU_INT("STARPU_MAX_WORKERSIZE"),
    STARPU_INT("STARPU_SYNTHESIZE_ARITY_COMBINED_WORKER"), STARPU_INT("STARPU_NTASKS_THRESHOLD"),
    STARPU_INT("STARPU_SCHED_READY"), STARPU_INT("STARPU_SCHED_SORTED_ABOVE"), STARPU_INT("STARPU_SCHED_SORTED_BELOW"),
    STARPU_INT("STARPU_SCHED_GRAPH_TEST_DESCENDANTS"), STARPU_INT("STARPU_CUDA_PIPELINE"),
    STARPU_INT("STARPU_OPENCL_PIPELINE"), STARPU_INT("STARPU_CUDA_THREAD_PER_WORKER"),
    STARPU_INT("STARPU_CUDA_THREAD_PER_DEV"), STARPU_INT("STARPU_ENABLE_CUDA_GPU_GPU_DIRECT"),
    STARPU_INT("STARPU_MPI_CACHE"), STARPU_INT("STARPU_MPI_CACHE_STATS"), STARPU_INT("STARPU_MPI_COMM"),
    STARPU_INT("STARPU_MPI_COOP_SENDS"), STARPU_INT("STARPU_MPI_DEBUG_LEVEL_MIN"),
    STARPU_INT("STARPU_MPI_DEBUG_LEVEL_MAX"), STARPU_INT("STARPU_MPI_DRIVER_CALL_FREQUENCY"),
    STARPU_INT("STARPU_MPI_DRIVER_TASK_FREQUENCY"), STARPU_INT("STARPU_MPI_NDETACHED_SEND"),
    STARPU_INT("STARPU_MPI_NOBIND"), STARPU_INT("STARPU_MPI_NREADY_PROCESS"), STARPU_INT("STARPU_MPI_PRIORITIES"),
    STARPU_INT("STARPU_COMM_STATS"),
    STARPU_REAL("STARPU_SCHED_ALPHA"), STARPU_REAL("STARPU_SCHED_BETA"), STARPU_REAL("STARPU_SCHED_GAMMA"),
    STARPU_REAL("STARPU_IDLE_POWER"), STARPU_REAL("STARPU_WINDOW_TIME_SIZE"), STARPU_REAL("STARPU_EXP_LEN_THRESHOLD"),
};

/* StarPU's policies that cannot run extflow: heteroprio aborts without the application's
 * callback that sets its priorities up; modular-heteroprio-heft hangs on extflow's tasks. */
static const char *const unusable_policies[] = { "heteroprio", "modular-heteroprio-heft" };

/* Whether v is one of the words of list ("a|b|c"). */
static int env_is_word(const char *v, const char *list)
{
    size_t n = strlen(v);
    for (const char *p = list; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, v, n)) return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Decimal digits only, at most 15 of them. */
static int env_digits(const char *s, const char **end, double *out)
{
    const char *p = s;
    while (*p >= '0' && *p <= '9') p++;
    if (p == s || p - s > 20) return -1;
    *out = strtod(s, NULL);
    *end = p;
    return 0;
}

/* 0 when v is a value e allows, else -1 with the allowed values in allowed. */
static int env_value_ok(const env_var *e, const char *v, char *allowed, size_t size)
{
    const char *end;
    double x;
    snprintf(allowed, size, "%s", e->allowed ? e->allowed : "");
    switch (e->kind) {
    case ENV_ANY:
        return 0;
    case ENV_INT:
        if (e->words && env_is_word(v, e->words)) return 0;
        return env_digits(v, &end, &x) == 0 && !*end && x >= e->lo && x <= e->hi ? 0 : -1;
    case ENV_REAL: {
        char *rend;
        errno = 0;
        x = strtod(v, &rend);
        /* decimal notation only: no hex, inf or nan, which strtod would also take */
        return *v && !*rend && !errno && strspn(v, "+-.0123456789eE") == strlen(v) && x >= e->lo && x <= e->hi ? 0 : -1;
    }
    case ENV_SIZE: {
        uint64_t b;
        if (!strcmp(v, "0")) return e->lo <= 0 ? 0 : -1;
        return runpolicy_parse_size(v, &b) == 0 && (double)b >= e->lo && (double)b <= e->hi ? 0 : -1;
    }
    case ENV_WORD:
        return env_is_word(v, e->words) ? 0 : -1;
    case ENV_CPUS:
        snprintf(allowed, size, "numbers N, ranges N-M or N-, separated by spaces or commas");
        for (const char *p = v;;) {
            if (env_digits(p, &p, &x) != 0) return -1;
            if (*p == '-') {
                p++;
                if (*p >= '0' && *p <= '9' && (env_digits(p, &p, &x) != 0)) return -1;
            }
            if (!*p) return 0;
            if (*p != ' ' && *p != ',') return -1;
            while (*p == ' ' || *p == ',') p++;
            if (!*p) return 0;
        }
    case ENV_CPU: {
        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
        if (ncpu < 1) ncpu = 1;
        snprintf(allowed, size, "a CPU number, 0 to %ld", ncpu - 1);
        return env_digits(v, &end, &x) == 0 && !*end && x < (double)ncpu ? 0 : -1;
    }
    case ENV_SCHED: {
        if (!*v) return 0;   /* StarPU takes an empty value as its default policy */
        size_t len = (size_t)snprintf(allowed, size, "not a policy of StarPU's that extflow can run; policies:");
        int found = 0;
        for (struct starpu_sched_policy **p = starpu_sched_get_predefined_policies(); *p; p++) {
            int unusable = 0;
            for (size_t i = 0; i < sizeof unusable_policies / sizeof *unusable_policies; i++)
                unusable |= !strcmp((*p)->policy_name, unusable_policies[i]);
            if (unusable) continue;
            found |= !strcmp((*p)->policy_name, v);
            if (len < size) len += (size_t)snprintf(allowed + len, size - len, " %s", (*p)->policy_name);
        }
        return found ? 0 : -1;
    }
    case ENV_SPLIT: {
        double t, p;
        if (env_digits(v, &end, &t) != 0 || *end != ',' || env_digits(end + 1, &end, &p) != 0 || *end) return -1;
        return t >= 1 && t <= 256 && 256 % (long)t == 0 && p >= 1 && p <= 1024 ? 0 : -1;
    }
    }
    return -1;
}

/* Whether name is one of env_table's names or patterns. */
static int env_known(const char *name)
{
    for (size_t i = 0; i < sizeof env_table / sizeof *env_table; i++) {
        const char *e = env_table[i].name;
        if (strchr(e, '*') ? fnmatch(e, name, 0) == 0 : strcmp(e, name) == 0) return 1;
    }
    return 0;
}

/* The edit distance of a and b (insertions, deletions, substitutions; names are short). */
static size_t env_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[256];
    if (lb >= sizeof row / sizeof *row) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* An EXTFLOW_ name the table lacks (a typo, or a variable since removed) is a usage error: it
 * would change nothing, silently. The nearest known name, within 3 edits, is suggested. */
static int env_refuse_unknown(const char *name, const char *value)
{
    const char *best = NULL;
    size_t bestd = 4;
    for (size_t i = 0; i < sizeof env_table / sizeof *env_table; i++) {
        const char *e = env_table[i].name;
        size_t d = strncmp(e, "EXTFLOW_", 8) || strchr(e, '*') ? (size_t)-1 : env_distance(name, e);
        if (d < bestd) bestd = d, best = e;
    }
    char hint[128] = "";
    if (best) snprintf(hint, sizeof hint, " (did you mean %s?)", best);
    return cli_usage_error("%s=%s: not a variable extflow reads%s", name, value, hint);
}

/* Every variable of env_table that is set, before anything is created or StarPU starts: a bad
 * value is a usage error (two lines, exit 2), and so is an EXTFLOW_ name the table lacks. Then StarPU's own messages (bus calibration,
 * dmda's "not calibrated" warnings) are silenced unless --verbose asks for them or the user
 * set STARPU_SILENT. Returns 0, or 2 after a usage error. */
/* An environ entry's name into name (size 256): its value, or NULL when it has none or the
 * name is longer. */
static const char *env_split(const char *entry, char *name)
{
    const char *eq = strchr(entry, '=');
    if (!eq || eq - entry >= 256) return NULL;
    memcpy(name, entry, (size_t)(eq - entry));
    name[eq - entry] = 0;
    return eq + 1;
}

int cli_check_env(int verbose)
{
    extern char **environ;
    char allowed[2048], name[256];
    for (size_t i = 0; i < sizeof env_table / sizeof *env_table; i++) {
        const env_var *e = &env_table[i];
        for (char **ep = environ; ep && *ep; ep++) {
            const char *v = env_split(*ep, name);
            if (!v || (strchr(e->name, '*') ? fnmatch(e->name, name, 0) != 0 : strcmp(e->name, name) != 0)) continue;
            if (env_value_ok(e, v, allowed, sizeof allowed) != 0)
                return cli_usage_error("%s=%s: %s%s", name, v, e->kind == ENV_SCHED ? "" : "expected ", allowed);
        }
    }
    for (char **ep = environ; ep && *ep; ep++) {
        const char *v = env_split(*ep, name);
        if (v && !strncmp(name, "EXTFLOW_", 8) && !env_known(name)) return env_refuse_unknown(name, v);
    }
    if (verbose) setenv("STARPU_SILENT", "0", 1);
    else setenv("STARPU_SILENT", "1", 0);
    return 0;
}
