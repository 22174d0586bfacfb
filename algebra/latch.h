/* latch.h — the first failure of a piece of work that many threads share, kept once: the first
 * latch_set's message stays, later ones are dropped, and latch_is_set tells every thread that
 * one came. The one error latch of lift sets, d2, secondary products, the stage-file committer
 * and the multiply codelet. Thread-safe; the message is complete before latch_is_set says so. */
#ifndef EXTFLOW_LATCH_H
#define EXTFLOW_LATCH_H
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

typedef struct fail_latch {
    pthread_mutex_t lock;       /* orders the writers */
    _Atomic int set;
    char msg[600];              /* the first failure's message ("" until one came) */
} fail_latch;

#define FAIL_LATCH_INIT { PTHREAD_MUTEX_INITIALIZER, 0, "" }
void latch_init(fail_latch *l);
void latch_destroy(fail_latch *l);
void latch_vset(fail_latch *l, const char *fmt, va_list ap);
void latch_set(fail_latch *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int latch_is_set(fail_latch *l) { return atomic_load(&l->set); }

#endif
