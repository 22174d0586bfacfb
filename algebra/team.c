/* team.c — a parallel loop whose helpers join while it runs (team.h). */
#include "algebra/team.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

struct team {
    pthread_mutex_t mu;
    pthread_cond_t work;        /* members: a loop opened, or the team closed */
    pthread_cond_t idle;        /* owner: the items taken so far are done */
    uint32_t refs, closed;
    uint32_t n, next, running;  /* the open loop: items, the next to take, items in progress */
    void (*fn)(void *, uint32_t);
    void *arg;
    uint64_t member_items;
    pthread_t *threads;         /* team_with_threads's */
    uint32_t nthreads;
};

team *team_new(uint32_t members)
{
    team *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->work, NULL);
    pthread_cond_init(&t->idle, NULL);
    t->refs = members + 1;
    return t;
}

/* Takes and runs items of the open loop until none is left; called with mu held, returns with
 * it held, and the number it ran. */
static uint32_t take_items(team *t, int member)
{
    uint32_t ran = 0;
    for (; t->next < t->n; ran++) {
        uint32_t i = t->next++;
        void (*fn)(void *, uint32_t) = t->fn;
        void *arg = t->arg;
        t->running++;
        pthread_mutex_unlock(&t->mu);
        fn(arg, i);
        pthread_mutex_lock(&t->mu);
        t->member_items += (uint64_t)member;
        if (--t->running == 0 && t->next >= t->n) pthread_cond_signal(&t->idle);
    }
    return ran;
}

void team_for(team *t, uint32_t n, void (*fn)(void *, uint32_t), void *arg)
{
    if (!t) {
        for (uint32_t i = 0; i < n; i++) fn(arg, i);
        return;
    }
    pthread_mutex_lock(&t->mu);
    t->fn = fn, t->arg = arg, t->n = n, t->next = 0;
    pthread_cond_broadcast(&t->work);
    take_items(t, 0);
    while (t->running) pthread_cond_wait(&t->idle, &t->mu);
    t->n = t->next = 0;
    pthread_mutex_unlock(&t->mu);
}

uint64_t team_join(team *t)
{
    uint64_t ran = 0;
    pthread_mutex_lock(&t->mu);
    while (!t->closed) {
        ran += take_items(t, 1);
        if (!t->closed) pthread_cond_wait(&t->work, &t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return ran;
}

void team_close(team *t)
{
    pthread_mutex_lock(&t->mu);
    t->closed = 1;
    pthread_cond_broadcast(&t->work);
    pthread_mutex_unlock(&t->mu);
}

void team_release(team *t)
{
    pthread_mutex_lock(&t->mu);
    uint32_t left = --t->refs;
    pthread_mutex_unlock(&t->mu);
    if (left) return;
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->work);
    pthread_cond_destroy(&t->idle);
    free(t->threads);
    free(t);
}

void team_end(team *t)
{
    if (!t) return;
    team_close(t);
    team_release(t);
}

uint64_t team_member_items(team *t)
{
    pthread_mutex_lock(&t->mu);
    uint64_t n = t->member_items;
    pthread_mutex_unlock(&t->mu);
    return n;
}

static void *member_thread(void *arg)
{
    team_join(arg);
    return NULL;
}

team *team_with_threads(uint32_t n)
{
    if (n < 2) return NULL;
    team *t = team_new(0);      /* the threads hold no refs: team_stop_threads joins them first */
    if (!t || !(t->threads = calloc(n - 1, sizeof *t->threads))) {
        if (t) team_release(t);
        return NULL;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    cpu_set_t cpus;
    if (sched_getaffinity(getpid(), sizeof cpus, &cpus) == 0)   /* the main thread's CPUs */
        pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus);
    for (uint32_t i = 0; i < n - 1; i++)
        if (pthread_create(&t->threads[t->nthreads], &attr, member_thread, t) == 0) t->nthreads++;
    pthread_attr_destroy(&attr);
    if (!t->nthreads) {
        team_release(t);
        return NULL;
    }
    return t;
}

void team_stop_threads(team *t)
{
    if (!t) return;
    team_close(t);
    for (uint32_t i = 0; i < t->nthreads; i++) pthread_join(t->threads[i], NULL);
    team_release(t);
}
