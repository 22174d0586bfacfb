/* cl_exchange.c — codelets of a distributed run (runtime/rt_mpi.c): cl_publish packs a
 * finished bidegree into its blob on the owner, cl_receive unpacks it on a rank that reads it.
 * StarPU-MPI moves the blob between them. cl_arg: struct cl_exchange_args (STARPU_VALUE). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "codelets/blob.h"
#include "algebra/clock.h"
#include "codelets/codelets.h"
#include <stdio.h>
#include "stages/chain.h"

static uint64_t now_ns(void) { return clock_ns(CLOCK_REALTIME); }    /* the ranks of a host share it */

/* The blob: 8 bytes of the owner's clock at the end of publish, then the exchange's packet. */
static void publish_cpu(void *buffers[], void *cl_arg)
{
    struct cl_exchange_args a;
    starpu_codelet_unpack_args(cl_arg, &a);
    void *bytes = NULL;
    size_t len = 0;
    const chain_set *set = a.set;
    if (set->exchange->pack(set->owner, a.s, a.t, a.kernel, &bytes, &len) == 0) {
        unsigned char *b = malloc(8 + len);
        if (b) {
            memcpy(b + 8, bytes, len);
            uint64_t t = now_ns();
            memcpy(b, &t, 8);
        }
        if (!b || blob_set(buffers[0], b, 8 + len) != 0) {
            char msg[96];
            snprintf(msg, sizeof msg, "out of memory publishing (%d,%d) to the other ranks", a.s, (int)a.t);
            set->fail(set->owner, msg);
            blob_set(buffers[0], NULL, 0);
        }
        free(b);
    }
    free(bytes);
    __atomic_add_fetch(a.sent, (unsigned long long)(8 + len) * (unsigned)a.copies, __ATOMIC_RELAXED);
}

static void receive_cpu(void *buffers[], void *cl_arg)
{
    struct cl_exchange_args a;
    starpu_codelet_unpack_args(cl_arg, &a);
    const struct blob *b = buffers[0];
    const unsigned char *p = blob_bytes(b);
    size_t len = blob_size(b);
    if (len >= 8 && a.lat) {
        uint64_t sent, now = now_ns();
        memcpy(&sent, p, 8);
        unsigned i = __atomic_fetch_add(&a.lat->n, 1, __ATOMIC_RELAXED);
        if (i < a.lat->cap) a.lat->us[i] = now > sent ? (uint32_t)((now - sent) / 1000 > UINT32_MAX ? UINT32_MAX : (now - sent) / 1000) : 0;
    }
    /* fewer than 8 bytes: a publish that failed; unpack says what is wrong */
    a.set->exchange->unpack(a.set->owner, a.s, a.t, a.kernel, len >= 8 ? p + 8 : p, len >= 8 ? len - 8 : len);
    a.set->exchange->received(a.set->owner, a.s, a.t);
}

struct starpu_codelet cl_publish = {
    CL_CPU(publish_cpu) .nbuffers = 1, .modes = { STARPU_W }, .name = "publish",
};
struct starpu_codelet cl_receive = {
    CL_CPU(receive_cpu) .nbuffers = 1, .modes = { STARPU_R }, .name = "receive",
};
