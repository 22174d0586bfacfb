/* cl_exchange.c — codelets of a distributed run (runtime/rt_mpi.c): cl_publish packs a
 * finished bidegree into its blob on the owner, cl_receive unpacks it on a rank that reads it.
 * StarPU-MPI moves the blob between them. cl_arg: struct cl_exchange_args (STARPU_VALUE). */
#include <stdlib.h>
#include "codelets/blob.h"
#include "codelets/codelets.h"
#include "stages/exchange.h"

static void publish_cpu(void *buffers[], void *cl_arg)
{
    struct cl_exchange_args a;
    starpu_codelet_unpack_args(cl_arg, &a);
    void *bytes = NULL;
    size_t len = 0;
    if (exchange_pack(a.res, a.s, a.t, a.kernel, &bytes, &len) == 0 && blob_set(buffers[0], bytes, len) != 0) {
        res_fail(a.res, "out of memory publishing (%d,%d) to the other ranks", a.s, a.t);
        blob_set(buffers[0], NULL, 0);
    }
    free(bytes);
    __atomic_add_fetch(a.sent, (unsigned long long)(8 + len) * (unsigned)a.copies, __ATOMIC_RELAXED);
}

static void receive_cpu(void *buffers[], void *cl_arg)
{
    struct cl_exchange_args a;
    starpu_codelet_unpack_args(cl_arg, &a);
    const struct blob *b = buffers[0];
    exchange_unpack(a.res, a.s, a.t, a.kernel, blob_bytes(b), blob_size(b));
}

struct starpu_codelet cl_publish = {
    .cpu_funcs = { publish_cpu }, .cpu_funcs_name = { "publish_cpu" },
    .nbuffers = 1, .modes = { STARPU_W }, .name = "publish",
};
struct starpu_codelet cl_receive = {
    .cpu_funcs = { receive_cpu }, .cpu_funcs_name = { "receive_cpu" },
    .nbuffers = 1, .modes = { STARPU_R }, .name = "receive",
};
