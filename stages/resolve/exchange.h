/* exchange.h — what one bidegree hands to the other ranks of a distributed run (runtime/rt_mpi.c).
 *
 * When step (s, t) has finished on the rank that owns row s, the ranks that read F_s (the
 * owners of the steps whose reads or deps name row s, i.e. rows s+1 and s+2, and rank 0, which
 * writes the reports) need its new generators;
 * under the standard algorithm the owner of row s+1 also needs the kernel of d_s at (s, t),
 * which its finish turns into new generators. exchange_pack writes both into one byte buffer,
 * exchange_unpack publishes them in another rank's resolution, exactly as the owner holds them
 * (no stage file is written there: the owner writes it). The runner reaches them through the
 * chain interface: res_exchange, the resolution's chain_exchange (stages/chain.h).
 *
 * Layout, little-endian words of the machine (all ranks run the same binary on the same
 * architecture):
 *   u32 magic "EXF1", u32 s, u32 t, u32 flags (1: the owner had failed, nothing follows;
 *   2: a kernel follows; 4: the owner's step was cancelled at its time limit (--time-limit),
 *   nothing follows),
 *   u32 n (new generators), u32 width (bits of each image), u32 kernel rows, u32 kernel cols,
 *   n rows of ceil(width/64) u64, then kernel rows of ceil(cols/64) u64.
 */
#ifndef EXTFLOW_EXCHANGE_H
#define EXTFLOW_EXCHANGE_H
#include <stddef.h>
#include "stages/chain.h"
#include "stages/resolve/resolution.h"

#define EXCHANGE_FAILED 1u
#define EXCHANGE_KERNEL 2u
#define EXCHANGE_CANCELLED 4u

/* What exchange_pack does with the kernel of d_s at (s, t) in its slot: leave it (no kernel,
 * or the step that takes it is on this rank), take it out and pack it, or take it out and
 * free it (the reader recomputes it). */
enum { EXCHANGE_KERNEL_KEEP = CHAIN_EXCHANGE_KEEP, EXCHANGE_KERNEL_SEND = CHAIN_EXCHANGE_SEND,
       EXCHANGE_KERNEL_DROP = CHAIN_EXCHANGE_DROP };
/* Bytes of (s, t) as published in res, and the kernel as kernel says. *out is malloc'ed; a
 * failed run packs a header only, with EXCHANGE_FAILED, and so does a step that was cancelled
 * (not done in res), with EXCHANGE_CANCELLED. 0, or -1 after res_fail (out of memory). */
int exchange_pack(resolution *res, int s, deg_t t, int kernel, void **out, size_t *len);
/* Publishes the generators of buf in res at (s, t) (done set), and the kernel in its slot when
 * take_kernel; a packet of a failed owner fails res; a cancelled one publishes nothing and sets
 * res->stopped_elsewhere, so that no step that reads (s, t) runs here. 0, or -1 after
 * res_fail. */
int exchange_unpack(resolution *res, int s, deg_t t, int take_kernel, const void *buf, size_t len);
/* The two above, res_kernel_wanted and the progress line's count of a received step, as the
 * resolution's chain set hands them to a distributed runner (owner: the resolution). */
extern const chain_exchange res_exchange;

#endif
