/* latch.c — the first failure, kept once (see latch.h). */
#include "algebra/latch.h"
#include <stdio.h>

void latch_init(fail_latch *l)
{
    pthread_mutex_init(&l->lock, NULL);
    atomic_store(&l->set, 0);
    l->msg[0] = '\0';
}

void latch_destroy(fail_latch *l) { pthread_mutex_destroy(&l->lock); }

void latch_vset(fail_latch *l, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&l->lock);
    if (!atomic_load(&l->set)) {
        vsnprintf(l->msg, sizeof l->msg, fmt, ap);
        atomic_store(&l->set, 1);
    }
    pthread_mutex_unlock(&l->lock);
}

void latch_set(fail_latch *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    latch_vset(l, fmt, ap);
    va_end(ap);
}
