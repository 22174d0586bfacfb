/* rt_tags.h — StarPU tag numbers of the runtime (rt_chain.c, rt_mpi.c): kind << 56 | s << 28 | t.
 * Tags are per process; in a distributed run the data tags of StarPU-MPI (rt_mpi.c) use the
 * same numbering with their own kind, and are the same on every rank. */
#ifndef EXTFLOW_RT_TAGS_H
#define EXTFLOW_RT_TAGS_H
#include <starpu.h>
#include <stdint.h>

enum tag_kind {
    TAG_PLAN = 1, TAG_DONE = 3, TAG_EDGE = 4, TAG_EDGE_PLAN = 5,
    TAG_RECEIVED = 6,   /* rt_mpi.c: (s, t) of another rank's row arrived on this one */
    TAG_PUBLISH = 7,    /* rt_mpi.c: (s, t) packed for the other ranks, on its owner */
    TAG_BLOB = 8,       /* rt_mpi.c: StarPU-MPI data tag of (s, t)'s blob */
    TAG_LIFT = 9,       /* target (i, t) of a lift batch is done (its finish) */
    TAG_LIFT_PLAN = 10, /* the plan task of target (i, t), which carries the deps */
    TAG_COMPOSITE = 11, /* d2's composites at (s, t) are done */
    TAG_COMPOSITE_PLAN = 12,
    TAG_CHECK = 13,     /* verify's d∘d check at (s, t) is done */
    TAG_CHECK_PLAN = 14,
    TAG_PRE = 15,       /* the standard step's early reduction at (s, t) is done (stages/resolve/standard.h) */
    TAG_PRE_PLAN = 16,
};

static inline starpu_tag_t tag_of(int kind, int s, int t)
{
    return ((starpu_tag_t)kind << 56) | ((starpu_tag_t)(uint32_t)s << 28) | (starpu_tag_t)(uint32_t)t;
}

#endif
