/* cl_chain.c — the codelets of a chain (stages/chain.h): plan → (multiply chunks) → reduce →
 * [multiply chunks →] finish, for every kind. cl_arg of each is the chain; each calls its piece
 * of the chain's kind and then the continuation the runner put in c->next, which submits what
 * follows: no codelet calls into runtime/ or knows the kind. */
#include "codelets/codelets.h"
#include "codelets/cl_profile.h"
#include "stages/chain.h"
#include "stages/secbatch.h"
#include "algebra/team.h"
#include <stdatomic.h>

int cl_chain_layer(const chain *c) { return c->kind->family == CHAIN_PRE || c->layer > 0; }

/* Pieces running and members recruited (cl_chain_busy); members' counts for EXTFLOW_STATS. */
static _Atomic int busy;
static _Atomic uint64_t members, members_helped, member_items;
int cl_chain_busy(void) { return busy; }
void cl_chain_recruited(int n) { busy += n; }
void cl_chain_team_stats(uint64_t *recruited, uint64_t *helped, uint64_t *items)
{
    *recruited = members, *helped = members_helped, *items = member_items;
}

static void fail(chain *c, const char *fmt, const char *why)
{
    char msg[400];
    snprintf(msg, sizeof msg, fmt, c->kind->name, c->s, (int)c->t, why);
    c->set->fail(c->set->owner, msg);
}

static void chain_plan_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    chain *c = cl_arg;
    if (!c->next->admit(c)) return;     /* deferred: the runner plans it when there is room */
    busy++;
    uint64_t t0 = cl_profile_start();
    int ok = !chain_void(c) && c->kind->plan(c) == 0;
    cl_profile_stop(PIECE_PLAN, t0, c->s, c->t, cl_chain_layer(c));
    if (!c->next->after_plan(c, ok)) chain_rest_here(c, ok);
    busy--;
}

/* From row r of b's D, past the empty grouped rows (those with no jobs). */
static size_t past_empty_groups(const row_build *b, size_t r)
{
    while (r >= b->nrows && r < (size_t)b->nrows + b->ngroups && b->group_job[r - b->nrows + 1] == b->group_job[r - b->nrows])
        r++;
    return r;
}

const char *cl_rows_check(void *buffers[], unsigned n, const row_build *b)
{
    const f2mat *D = &b->D;
    size_t row = 0;
    for (unsigned k = 0; k < n; k++) {
        row = past_empty_groups(b, row);
        if (!D->stride || (const uint64_t *)STARPU_VECTOR_GET_PTR(buffers[k]) != D->data + row * D->stride)
            return "rows that are not its matrix's";
        row += STARPU_VECTOR_GET_NX(buffers[k]) / D->stride;
    }
    return n && past_empty_groups(b, row) != D->rows ? "part of its matrix" : NULL;
}

/* The task's buffers are the multiply chunks (R), made valid in main memory by StarPU: for mod-2
 * rows, consecutive row slices of c->rows.f2->D, which the piece works on, so they must tile D
 * exactly (what StarPU handed it is what it uses); for a mod-4 batch, one row per chunk, which
 * the batch is pointed at. A failed multiply or a mismatch fails the run. */
static void take_rows(chain *c, void *buffers[])
{
    const char *why = cl_milnor_mul_failed();
    unsigned n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - c->nparts;   /* the parts' last */
    c->nparts = 0;
    if (why) fail(c, "%s (%d, %d): %s", why);
    if (chain_void(c)) return;
    if (c->rows.kind == CHAIN_ROWS_MOD4) {
        sec_batch *b = c->rows.mod4;
        if (n != b->nchunks)
            fail(c, "internal error: %s (%d, %d) was given %s", "not one row per chunk");
        else
            for (uint32_t k = 0; k < b->nchunks; k++) b->chunk_row[k] = (const uint64_t *)STARPU_VECTOR_GET_PTR(buffers[k]);
    } else if (c->rows.kind == CHAIN_ROWS_F2 && (why = cl_rows_check(buffers, n, c->rows.f2)))
        fail(c, "internal error: %s (%d, %d) was given %s", why);
}

/* One part of a chain (chain_kind.part, or finish_part): cl_arg {c, k, n, finish}; its last
 * buffer (W, void) tells the next piece that it is done. A finish part's first a->rows buffers
 * are the multiply's chunks (R), c->rows' mod-2 rows, checked as take_rows does: a mismatch fails
 * the run; after a failed multiply the part does nothing (finish reports the failure). */
static void chain_part_cpu(void *buffers[], void *cl_arg)
{
    const struct cl_chain_part_args *a = cl_arg;
    chain *c = a->c;
    const char *why;
    busy++;
    uint64_t t0 = cl_profile_start();
    if (!a->finish) {
        if (!chain_void(c)) c->kind->part(c, a->k, a->n);
    } else if (c->rows.kind == CHAIN_ROWS_F2 && (why = cl_rows_check(buffers, a->rows, c->rows.f2)))
        fail(c, "internal error: a finish part of %s (%d, %d) was given %s", why);
    else if (!chain_void(c) && !cl_milnor_mul_failed())
        c->kind->finish_part(c, a->k, a->n);
    cl_profile_stop(a->finish ? PIECE_FINISH_PART : PIECE_PART, t0, c->s, c->t, cl_chain_layer(c));
    busy--;
}

static void chain_reduce_cpu(void *buffers[], void *cl_arg)
{
    chain *c = cl_arg;
    busy++;
    uint64_t t0 = cl_profile_start();
    take_rows(c, buffers);
    int r = chain_void(c) ? CHAIN_FINISH : c->kind->reduce(c);
    cl_profile_stop(PIECE_REDUCE, t0, c->s, c->t, cl_chain_layer(c));
    busy--;
    c->next->after_reduce(c, r < 0 ? CHAIN_FINISH : r);
}

static void chain_finish_cpu(void *buffers[], void *cl_arg)
{
    chain *c = cl_arg;
    busy++;
    uint64_t t0 = cl_profile_start();
    take_rows(c, buffers);
    if (!chain_void(c)) c->kind->finish(c);
    cl_profile_stop(PIECE_FINISH, t0, c->s, c->t, cl_chain_layer(c));
    busy--;
    c->next->after_finish(c);
}

/* A team's member: it helps until the piece that formed the team closes it (at once, when it
 * starts after that). No performance model: its time is the piece's, not its own. */
static void chain_member_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    uint64_t ran = team_join(cl_arg);
    team_release(cl_arg);
    members++;
    members_helped += ran > 0;
    member_items += ran;
    busy--;
}

/* A chain's prepare (chain_kind.prepare), with no dependency: cl_arg a struct cl_chain_prep. */
static void chain_prepare_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    const struct cl_chain_prep *a = cl_arg;
    uint64_t t0 = cl_profile_start();
    a->kind->prepare(a->owner, a->s, a->t);
    cl_profile_stop(PIECE_PREPARE, t0, a->s, a->t, 0);
}

struct starpu_codelet cl_chain_member = { CL_CPU(chain_member_cpu).name = "chain_member", .nbuffers = 0 };

CL_CODELET(cl_chain_prepare, chain_prepare_cpu, "chain_prepare", (.symbol = "extflow_chain_prepare_v1"), .nbuffers = 0);
CL_CODELET(cl_chain_plan, chain_plan_cpu, "chain_plan", (.symbol = "extflow_chain_plan_v1"), .nbuffers = 0);
CL_CODELET(cl_chain_reduce, chain_reduce_cpu, "chain_reduce", (.symbol = "extflow_chain_reduce_v1"),
           .nbuffers = STARPU_VARIABLE_NBUFFERS);
CL_CODELET(cl_chain_finish, chain_finish_cpu, "chain_finish", (.symbol = "extflow_chain_finish_v1"),
           .nbuffers = STARPU_VARIABLE_NBUFFERS);
CL_CODELET(cl_chain_part, chain_part_cpu, "chain_part", (.symbol = "extflow_chain_part_v1"),
           .nbuffers = STARPU_VARIABLE_NBUFFERS);
