/* admission.c — the memory budget and the time limit of a run (admission.h). */
#include "runtime/admission.h"
#include "algebra/clock.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "algebra/memacct.h"
#include "stages/progress.h"


/* The process's resident set now (/proc/self/statm), or 0 when unreadable. */
static int64_t rss_now(void)
{
    unsigned long long pages[2] = { 0, 0 };
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%llu %llu", &pages[0], &pages[1]) != 2) pages[1] = 0;
    if (f) fclose(f);
    return (int64_t)pages[1] * (int64_t)sysconf(_SC_PAGESIZE);
}

uint64_t admission_min_budget(uint64_t setup_bytes)
{
    return setup_bytes > UINT64_MAX - ADMISSION_MIN_RUN_BYTES ? UINT64_MAX : setup_bytes + ADMISSION_MIN_RUN_BYTES;
}

static _Atomic int active;      /* runners between admission_init and admission_clear */

int admission_active(void) { return active > 0; }

void admission_init(admission *a, uint64_t budget, double time_limit, double start, _Atomic int *stopped_elsewhere)
{
    active++;
    *a = (admission){ .budget = budget, .time_limit = time_limit, .start = start > 0 ? start : clock_now(),
                      .baseline = memacct_peak_rss() - memacct_total(), .stopped_elsewhere = stopped_elsewhere };
    pthread_mutex_init(&a->lock, NULL);
}

void admission_clear(admission *a)
{
    active--;
    free(a->waiting);
    pthread_mutex_destroy(&a->lock);
}

int admission_stopped(const admission *a) { return a->stopped; }

/* Has the time limit passed, here or (a distributed run) on another rank that sent a bidegree
 * k's step reads uncomputed (res->stopped_elsewhere, set before that plan may run)? Checked as steps
 * come and go: a step racing with the moment it passes may still be admitted. */
static int time_is_up(admission *a, const admission_ticket *k)
{
    if (a->time_limit > 0 && !a->stopped && clock_now() - a->start >= a->time_limit) a->stopped = 1;
    if (progress_stop_signal() || progress_refused()) a->stopped = 1;
    if (k && a->stopped_elsewhere && *a->stopped_elsewhere) a->stopped = 1;
    return a->stopped;
}

int admission_time_up(admission *a)
{
    pthread_mutex_lock(&a->lock);
    int up = time_is_up(a, NULL);
    pthread_mutex_unlock(&a->lock);
    return up;
}

static void take(admission *a, admission_ticket *k)
{
    a->in_flight++;
    if (a->in_flight > a->max_in_flight) a->max_in_flight = a->in_flight;
    a->reserved += k->bytes;
    k->admitted = 1;
}

/* Under the lock: does c fit now (rule in admission.h)? Admits it if so. (Giving malloc's
 * retained memory back here with malloc_trim when a step would wait was tried: at stem 110 on
 * 2 workers it cost 1582 trims and half again the CPU time, and the peak RSS did not fall;
 * docs/perf.md.) */
static int try_admit(admission *a, admission_ticket *k)
{
    if (a->in_flight > 0 && a->budget) {
        int64_t taken = a->baseline + memacct_total() - memacct_current(MEM_INFLIGHT) + (int64_t)a->reserved;
        /* the peak resident set (getrusage: no file to read under the lock) bounds the present
         * one; /proc/self/statm only when that bound leaves too little room */
        int64_t rss = memacct_peak_rss();
        if (rss + (int64_t)k->bytes > (int64_t)a->budget) rss = rss_now();
        if ((rss > taken ? rss : taken) + (int64_t)k->bytes > (int64_t)a->budget) return 0;
    }
    take(a, k);
    return 1;
}

int admission_admit(admission *a, admission_ticket *k)
{
    const chain *c = k->c;
    if (k->admitted || k->cancelled) return 1;
    if (time_is_up(a, k)) {
        k->cancelled = 1;
        return 1;
    }
    /* the predictions were 0.9-1.5x short of the measured peak in flight of each step (mean
     * 1.12, stem 90, steps over 1 MB run one at a time): charge 5/4 of them */
    k->bytes = a->budget ? c->kind->footprint(c->owner, c->s, c->t) / 4 * 5 : 0;
    pthread_mutex_lock(&a->lock);
    int ok = try_admit(a, k);
    if (!ok && a->nwaiting == a->capwaiting) {
        size_t cap = a->capwaiting ? 2 * a->capwaiting : 64;
        admission_ticket **w = realloc(a->waiting, cap * sizeof *w);
        if (w) {
            a->waiting = w;
            a->capwaiting = cap;
        } else {            /* no room to wait: admit it rather than lose it */
            take(a, k);
            ok = 1;
        }
    }
    if (!ok) {
        a->waiting[a->nwaiting++] = k;
        a->deferred++;
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
}

size_t admission_release(admission *a, admission_ticket *k, admission_ticket **go, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&a->lock);
    if (k && k->admitted) {
        a->in_flight--;
        a->reserved -= k->bytes;
    }
    int stopped = time_is_up(a, k);
    while (n < max && a->nwaiting) {
        size_t best = 0;
        for (size_t i = 1; i < a->nwaiting; i++)
            if (a->waiting[i]->c->t < a->waiting[best]->c->t) best = i;
        admission_ticket *w = a->waiting[best];
        if (stopped || time_is_up(a, w)) w->cancelled = 1;
        else if (!try_admit(a, w)) break;
        a->waiting[best] = a->waiting[--a->nwaiting];
        go[n++] = w;
    }
    pthread_mutex_unlock(&a->lock);
    return n;
}
