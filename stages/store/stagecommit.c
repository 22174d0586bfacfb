/* stagecommit.c — group commit of stage files (see stagecommit.h). */
#include "stages/store/stagecommit.h"
#include "algebra/latch.h"
#include "algebra/memacct.h"
#include "stages/store/durable.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct pending {
    char *final;
    void *buf;          /* the file's bytes (stage_encode), or a journal record */
    size_t len;
    int record;         /* 1: append buf to the journal named final */
} pending;

struct stage_committer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pending *items;
    size_t n, cap, batch;
    double delay;
    int stopping, busy;
    unsigned long flush_requests, flushes_done;
    fail_latch fail;            /* the first write that failed */
};

/* Appends the batch's journal records (all to one journal in practice) in one write each
 * journal, then fdatasync. A kill mid-append leaves a torn record, which readers skip. */
static void append_records(pending *items, size_t n, char *msg, size_t msglen)
{
    for (size_t i = 0; i < n && !msg[0]; i++) {
        if (!items[i].record || !items[i].buf) continue;
        size_t total = 0;
        for (size_t j = i; j < n; j++)
            if (items[j].record && items[j].buf && !strcmp(items[j].final, items[i].final)) total += items[j].len;
        unsigned char *all = malloc(total);
        if (!all) {
            snprintf(msg, msglen, "%.400s: out of memory", items[i].final);
            return;
        }
        size_t off = 0;
        for (size_t j = i; j < n; j++)
            if (items[j].record && items[j].buf && !strcmp(items[j].final, items[i].final)) {
                memcpy(all + off, items[j].buf, items[j].len);
                off += items[j].len;
                if (j != i) {
                    free(items[j].buf);
                    items[j].buf = NULL;
                }
            }
        int fd = open(items[i].final, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || durable_write_all(fd, all, total) != 0 || fdatasync(fd) != 0)
            snprintf(msg, msglen, "%.400s: cannot append: %s", items[i].final, strerror(errno));
        if (fd >= 0) close(fd);
        free(all);
    }
}

/* The batch's files in one group commit (durable_write_batch), then its journal records. */
static void commit_batch(stage_committer *sc, pending *items, size_t n)
{
    char msg[4096] = "";
    if (n == 0) return;
    durable_item *files = malloc(n * sizeof *files);
    size_t nf = 0;
    if (!files) snprintf(msg, sizeof msg, "%.400s: out of memory", items[0].final);
    for (size_t i = 0; files && i < n; i++)
        if (!items[i].record) files[nf++] = (durable_item){ items[i].final, items[i].buf, items[i].len };
    if (files && durable_write_batch(files, nf, msg, sizeof msg) != 0 && !msg[0])
        snprintf(msg, sizeof msg, "%.400s: cannot write", items[0].final);
    free(files);
    if (!msg[0]) append_records(items, n, msg, sizeof msg);
    for (size_t i = 0; i < n; i++) {
        free(items[i].final);
        free(items[i].buf);
        memacct_add(MEM_COMMITTER, -(int64_t)items[i].len);
    }
    if (msg[0]) latch_set(&sc->fail, "%s", msg);
}

static void *committer_main(void *arg)
{
    stage_committer *sc = arg;
    pthread_mutex_lock(&sc->lock);
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = (long)(sc->delay * 1e9);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec += ns % 1000000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!sc->stopping && sc->n < sc->batch && sc->flush_requests == sc->flushes_done)
            if (pthread_cond_timedwait(&sc->wake, &sc->lock, &until) == ETIMEDOUT) break;
        unsigned long requested = sc->flush_requests;
        pending *items = sc->items;
        size_t n = sc->n;
        sc->items = NULL;
        sc->n = sc->cap = 0;
        sc->busy = 1;
        pthread_mutex_unlock(&sc->lock);
        commit_batch(sc, items, n);
        free(items);
        pthread_mutex_lock(&sc->lock);
        sc->busy = 0;
        sc->flushes_done = requested;
        pthread_cond_broadcast(&sc->done);
        if (sc->stopping && sc->n == 0) break;
    }
    pthread_mutex_unlock(&sc->lock);
    return NULL;
}

stage_committer *stage_committer_start(double delay_seconds, size_t batch)
{
    stage_committer *sc = calloc(1, sizeof *sc);
    if (!sc) return NULL;
    sc->delay = delay_seconds;
    sc->batch = batch ? batch : 1;
    pthread_mutex_init(&sc->lock, NULL);
    latch_init(&sc->fail);
    pthread_cond_init(&sc->wake, NULL);
    pthread_cond_init(&sc->done, NULL);
    if (pthread_create(&sc->thread, NULL, committer_main, sc) != 0) {
        free(sc);
        return NULL;
    }
    return sc;
}

int stage_committer_failed(stage_committer *sc) { return sc && latch_is_set(&sc->fail); }

static int add_entry(stage_committer *sc, const char *final, void *buf, size_t len, int record)
{
    char *f = strdup(final);
    pthread_mutex_lock(&sc->lock);
    if (f && sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        pending *items = realloc(sc->items, cap * sizeof *items);
        if (items) {
            sc->items = items;
            sc->cap = cap;
        }
    }
    int ok = f && sc->n < sc->cap;
    if (ok) {
        sc->items[sc->n++] = (pending){ f, buf, len, record };
        memacct_add(MEM_COMMITTER, (int64_t)len);
        if (sc->n >= sc->batch) pthread_cond_signal(&sc->wake);
    }
    pthread_mutex_unlock(&sc->lock);
    if (!ok) {
        free(buf);
        free(f);
        return -1;
    }
    return 0;
}

int stage_committer_add(stage_committer *sc, const char *final, void *buf, size_t len)
{
    return add_entry(sc, final, buf, len, 0);
}

int stage_committer_add_record(stage_committer *sc, const char *journal, const void *rec, size_t len)
{
    void *copy = malloc(len);
    if (!copy) return -1;
    memcpy(copy, rec, len);
    return add_entry(sc, journal, copy, len, 1);
}

int stage_committer_flush(stage_committer *sc, char *err, size_t errlen)
{
    pthread_mutex_lock(&sc->lock);
    unsigned long ticket = ++sc->flush_requests;
    pthread_cond_signal(&sc->wake);
    while (sc->flushes_done < ticket) pthread_cond_wait(&sc->done, &sc->lock);
    int rc = latch_is_set(&sc->fail) ? -1 : 0;
    if (rc && err) snprintf(err, errlen, "%s", sc->fail.msg);
    pthread_mutex_unlock(&sc->lock);
    return rc;
}

int stage_committer_stop(stage_committer *sc, char *err, size_t errlen)
{
    if (!sc) return 0;
    int rc = stage_committer_flush(sc, err, errlen);
    pthread_mutex_lock(&sc->lock);
    sc->stopping = 1;
    pthread_cond_signal(&sc->wake);
    pthread_mutex_unlock(&sc->lock);
    pthread_join(sc->thread, NULL);
    pthread_mutex_destroy(&sc->lock);
    latch_destroy(&sc->fail);
    pthread_cond_destroy(&sc->wake);
    pthread_cond_destroy(&sc->done);
    free(sc->items);
    free(sc);
    return rc;
}
