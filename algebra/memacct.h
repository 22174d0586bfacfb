/* memacct.h — the memory account: bytes held, by kind, current and peak.
 *
 * What it is for. A run's memory is mostly a few kinds of arrays whose sizes the code knows
 * when it allocates and frees them; each such place adds or subtracts the bytes under its
 * kind, so at any moment the account says what the resolution holds, and at the end (with
 * the process's peak RSS) where the memory went (`resolve --verbose`, run.json "memory").
 * The admission of chains under `--memory` (runtime/admission.c) reads it too.
 *
 * Layout. One atomic counter of current bytes and one of the peak per kind, and the same for
 * their sum (the peak of the sum is not the sum of the peaks: kinds peak at different times).
 * Updates are relaxed atomics, one add and at most a compare-exchange loop for the peak, so
 * they cost nothing next to the allocation they follow. Counters are process-wide (one run
 * per process); memacct_reset starts a new account.
 */
#ifndef EXTFLOW_MEMACCT_H
#define EXTFLOW_MEMACCT_H
#include <stdint.h>
#include <stdio.h>

enum mem_kind {
    MEM_DIFFERENTIALS,  /* the free modules' stored images d(g), kept for later steps */
    MEM_KERNELS,        /* kernels waiting in their slots for the next row's step */
    MEM_INFLIGHT,       /* bidegrees in flight: D, RREF workspaces, Nassau blocks, jobs, terms */
    MEM_MILNOR,         /* the Milnor basis tables and their flat copy for the codelets */
    MEM_RUNTIME,        /* StarPU's own, as far as attributable: registered handles, tasks */
    MEM_COMMITTER,      /* encoded stage files waiting in the committer's queue */
    MEM_NKINDS
};

void memacct_add(enum mem_kind kind, int64_t bytes);     /* bytes < 0: freed */
/* Moves bytes from one kind to another (a kernel leaving its step for its slot). */
void memacct_move(enum mem_kind from, enum mem_kind to, int64_t bytes);
int64_t memacct_current(enum mem_kind kind);
int64_t memacct_peak(enum mem_kind kind);
int64_t memacct_total(void);                            /* sum of the kinds now */
int64_t memacct_total_peak(void);
const char *memacct_name(enum mem_kind kind);           /* "differentials", ... (run.json keys) */
void memacct_reset(void);
/* The process's peak resident set so far, in bytes (getrusage). */
int64_t memacct_peak_rss(void);
/* The account as a table in MB: each kind now and at its peak, the peak of the sum, the peak
 * RSS and the rest (peak RSS minus the peak of the sum: malloc's free lists and arenas, stacks,
 * libraries, StarPU's unattributed state). */
void memacct_print(FILE *f);

#endif
