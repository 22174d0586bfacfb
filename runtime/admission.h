/* admission.h — which chains may start now: the memory budget (--memory) and the time limit
 * (--time-limit) of a run. Plain bookkeeping, no StarPU: runtime/rt_chain.c asks it from each
 * plan task and tells it when a chain finishes (a "step" below is any chain, stages/chain.h).
 *
 * Rule. A step's predicted footprint (chain_kind.footprint, from the dimensions, known once its
 * prerequisites are done) is admitted when the memory taken plus it fits in the budget, where
 * the memory taken is the larger of the resident set now and (the baseline the process held
 * beyond the account at the start + the memory account's lasting kinds, everything but "in
 * flight" + the footprints of the steps admitted and not finished); and always when no step is
 * in flight, so a run never stalls whatever the budget (with one smaller than any step, steps
 * run one at a time). A step that does not fit waits here; each finish admits the waiting
 * steps that fit then, lowest t first. After the time limit nothing is admitted: steps are
 * handed back cancelled (admission_ticket.cancelled), so that their pieces are no-ops and
 * their DONE tags still fire. In a distributed run each rank counts its own time limit, and a rank that
 * receives a bidegree another rank cancelled (res->stopped_elsewhere, given to admission_init) stops admitting too, so
 * no step ever reads a bidegree that was not computed. No thread ever waits on this.
 */
#ifndef EXTFLOW_ADMISSION_H
#define EXTFLOW_ADMISSION_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "stages/chain.h"

/* What admission keeps of one step: part of the runtime's own state of the chain
 * (runtime/rt_chain.c, reached through the chain's runtime pointer). Zeroed before the step's
 * first admission_admit. */
typedef struct admission_ticket {
    chain *c;                   /* the step */
    uint64_t bytes;             /* footprint reserved for the step under --memory */
    int admitted;               /* counted among the steps in flight */
    int cancelled;              /* the run stopped taking work (--time-limit) before the step
                                 * started: every piece of it is a no-op, nothing is published */
} admission_ticket;

typedef struct admission {
    uint64_t budget;                /* bytes; 0: no memory limit */
    double time_limit, start;       /* seconds (0: none); monotonic clock at the start */
    int64_t baseline;               /* peak RSS minus the account at the start */
    pthread_mutex_t lock;           /* over everything below */
    uint32_t in_flight, max_in_flight;
    uint64_t reserved;              /* footprints of the steps in flight */
    admission_ticket **waiting;
    size_t nwaiting, capwaiting;
    uint64_t deferred;              /* how many times a step had to wait */
    _Atomic int stopped;            /* the time limit has passed (here or on another rank) */
    _Atomic int *stopped_elsewhere; /* set by another rank's cancelled bidegree (or NULL) */
} admission;

/* The smallest budget a run accepts: its fixed tables (res_setup_bytes) and room for one
 * small bidegree beside the process itself (code, StarPU's workers, stage-file buffers:
 * 11 MB of RSS in all at stem 4). A smaller --memory is a usage error, not "budget 0 MB". */
#define ADMISSION_MIN_RUN_BYTES (8ull << 20)
uint64_t admission_min_budget(uint64_t setup_bytes);
/* start: CLOCK_MONOTONIC seconds the time limit counts from (0: now); stopped_elsewhere: the
 * flag a distributed resolution sets when another rank stopped (NULL: none). */
void admission_init(admission *a, uint64_t budget, double time_limit, double start, _Atomic int *stopped_elsewhere);
/* Whether a runner is running (between admission_init and admission_clear): a stop asked by a
 * signal (progress_stop, stages/progress.h) can then end the run as --time-limit does.
 * Async-signal-safe. */
int admission_active(void);
/* Has the time limit passed (here; or on another rank, as steps report it), or a signal asked
 * for a stop? */
int admission_time_up(admission *a);
void admission_clear(admission *a);
/* Before the plan of k's step: 1 when it may go on (admitted; or cancelled, the time limit
 * having passed), 0 when it waits here (admission_release hands it back later). */
int admission_admit(admission *a, admission_ticket *k);
/* k's step (an admitted one) has finished, or NULL: hands back in go[0..n) up to max waiting
 * steps that are admitted (or cancelled) now, for the caller to plan; while n == max, call
 * again with k = NULL for more. */
size_t admission_release(admission *a, admission_ticket *k, admission_ticket **go, size_t max);
int admission_stopped(const admission *a);

#endif
