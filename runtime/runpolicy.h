/* runpolicy.h — the policy every command that computes runs under, written once:
 *
 *   memory  --memory SIZE is the budget admission keeps to (runtime/admission.h); without it
 *           the budget is 80% of the memory available (MemAvailable, a cgroup v2 limit's room,
 *           a `ulimit -v`'s room: the smallest). A region whose fixed tables alone exceed
 *           what is available is refused (exit 2). Under an explicit budget allocations of
 *           4 MB and more come from mmap, so that a finished step's memory goes back at once;
 *           without one, only those of 32 MB and more, and malloc keeps up to 8 times that
 *           free at the top of a heap, so that the next steps reuse freed matrices instead of
 *           faulting fresh pages in (runpolicy_malloc; EXTFLOW_MMAP_THRESHOLD overrides;
 *           docs/perf.md "Where the memory goes" and "malloc's thresholds").
 *   time    --time-limit SEC counts from the command's start (chain_policy.start); a run
 *           stopped there exits 3 with one line saying what is kept.
 *   ranks   under mpirun every rank takes the same branch: a failure on any rank fails all,
 *           else a stop on any rank stops all; rank 0 alone prints.
 *
 * Messages go to stderr as "extflow: ..." lines (rank 0 only where ranks agree). */
#ifndef EXTFLOW_RUNPOLICY_H
#define EXTFLOW_RUNPOLICY_H
#include <stdint.h>
#include "stages/chain.h"

/* A size: digits, then optionally K, M, G or T (powers of 1024); > 0. 0, or -1. */
int runpolicy_parse_size(const char *s, uint64_t *out);
/* --memory and --time-limit (either may be NULL), counting from began, into *p: 0, or -1 with
 * what is wrong (a usage error) in err. */
int runpolicy_limits(const char *memory, const char *time_limit, double began, chain_policy *p, char *err,
                     size_t errlen);

/* Bytes this process may still take (above). */
uint64_t runpolicy_memory_available(void);
/* The most it could ever take: physical RAM, or less under a cgroup v2 limit or `ulimit -v`. */
uint64_t runpolicy_memory_total(void);
/* 0 when `need` bytes of fixed tables fit what is available, else 2 after one line (rank 0). */
int runpolicy_refuse_if_too_big(uint64_t need, const char *what);

/* The runner of products, massey, d2 and verify: limits with the default budget, and the
 * progress line over their steps (named by noun) unless quiet. */
chain_runner runpolicy_runner(const chain_policy *limits, int quiet, const char *noun);
/* StarPU started on every rank (rt_init): 0, or 1 after one line from rank 0 (its own error,
 * or that another rank's StarPU did not start); StarPU is shut down again where it started. */
int runpolicy_start_all(const char *cmd);
/* Why a run stopped: "at the time limit", or "by SIGINT" / "by SIGTERM" when a signal asked
 * (progress_stop, stages/progress.h). A command stopped by a signal exits 128 + the signal
 * (tools/extflow.c maps its 3). */
const char *runpolicy_stop_cause(void);
/* What a command run inside another (mahowald's resolve and products runs, cli_run) adds to its
 * stop line, so that one line says both: "; NOTE" at the end of the line runpolicy_stopped or
 * a resolution's stop prints (NULL or "": nothing). The string is kept, not copied. */
void runpolicy_stop_note(const char *note);
const char *runpolicy_stop_suffix(void);     /* "; NOTE", or "" */
/* A command stopped at --time-limit after finishing `done` steps (-1: not counted): one line,
 * returns 3; its tables are not written. */
int runpolicy_stopped(const char *cmd, const char *dir, const chain_policy *limits, long done);

/* resolve: the policy its steps run under (budget, EXTFLOW_STATS, admission report under
 * verbose, with a line naming the budget on rank 0), and glibc's mmap threshold (above). */
chain_policy runpolicy_resolve(const chain_policy *limits, int verbose);
/* glibc's largest mmap threshold (HEAP_MAX_SIZE / 2 on 64 bits): the default without --memory. */
#define RUNPOLICY_MMAP_SPEED ((uint64_t)32 << 20)
/* Sets malloc's mmap and trim thresholds for a resolve (the rule in the header above): env is
 * EXTFLOW_MMAP_THRESHOLD's value or NULL; "0" leaves glibc's own dynamic rule (and
 * GLIBC_TUNABLES) alone; more than RUNPOLICY_MMAP_SPEED counts as that (extflow's environment
 * check refuses it first). Returns the mmap threshold set, 0 for none. */
uint64_t runpolicy_malloc(int explicit_budget, const char *env);
#endif
