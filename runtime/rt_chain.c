/* rt_chain.c — the StarPU runner of chain sets (see rt_chain.h). */
#include "runtime/rt_chain.h"
#include <errno.h>
#include "algebra/clock.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/memacct.h"
#include "codelets/codelets.h"
#include "runtime/admission.h"
#include "runtime/rt_mul.h"
#include "runtime/rt_stats.h"
#include "runtime/rt_tags.h"
#include "stages/progress.h"

/* --- memory account: StarPU's share (algebra/memacct.h, MEM_RUNTIME) ---
 * StarPU's allocations cannot be seen from here; what a task or a registered handle costs was
 * measured once (Debian's StarPU 1.3, RSS over 100000 of them: a vector handle 4.5 KB, a
 * submitted task waiting on a tag 1.9 KB), and the runner counts those per live object: a
 * chain's plan task and its contexts from submission to the end of its finish, and a multiply
 * phase's chunk handles and tasks until the task that reads them runs. */
#define RT_HANDLE_BYTES 4608
#define RT_TASK_BYTES 1920
/* --- end of the memory account's part (account_chunks below) */

/* Submitting every chain up front costs StarPU's task, job and tag structures for each long
 * before most can run (about 2.3 KB a chain: 47 MB for the 20,703 of tmf2 at stem 200, where
 * they were most of the heap); one process stops submitting once RT_PENDING_HIGH tasks are
 * pending and goes on below RT_PENDING_LOW, far more than the steps that can run at once (a
 * set's own throttle is tighter). Ranks submit every chain: others wait for what they publish. */
#define RT_PENDING_HIGH 8192
#define RT_PENDING_LOW 4096

static const int plan_tag[CHAIN_FAMILIES] = { TAG_PLAN, TAG_EDGE_PLAN, TAG_LIFT_PLAN, TAG_COMPOSITE_PLAN, TAG_CHECK_PLAN,
                                              TAG_PRE_PLAN };
static const int done_tag[CHAIN_FAMILIES] = { TAG_DONE, TAG_EDGE, TAG_LIFT, TAG_COMPOSITE, TAG_CHECK, TAG_PRE };

/* One run of rt_chains: what its tasks share. */
typedef struct rt_chain_run {
    const chain_set *set;
    rt_mul *mul;                    /* the flat basis and the chunking (rt_mul.h) */
    rt_mul own;
    rt_dist *dist;
    admission admission;            /* --memory, --time-limit */
    int inline_given;               /* EXTFLOW_LIFT_INLINE_PAIRS is set: */
    uint64_t inline_pairs;          /* chains with fewer pairs multiply in their plan's task */
    int team_max;                   /* members a piece's team may recruit (EXTFLOW_TEAM; -1:
                                     * half the idle workers) */
    uint64_t team_min;              /* bytes of a matrix that forms a team (EXTFLOW_TEAM_MIN) */
    int progress;                   /* the progress line counts the chains */
    starpu_tag_t *tags;             /* every tag declared, removed at the end (a process runs */
    size_t ntags, captags;          /* several sets: lifts after lifts) */
    pthread_mutex_t tags_lock;
} rt_chain_run;

/* The runner's own state of one chain (c->runtime). */
typedef struct chain_rt {
    rt_chain_run *run;
    admission_ticket ticket;
    int64_t bytes;                  /* its share of the memory account for the current multiply */
    int here;                       /* the rest ran in the plan's task: no task carries DONE */
    int prio;                       /* of its tasks after the plan (chain_kind.priority) */
    double work;                    /* its weight on the progress line */
} chain_rt;

static chain_rt *rt_of(const chain *c) { return c->runtime; }
static int64_t chain_bytes(const chain *c) { return (int64_t)(RT_TASK_BYTES + c->kind->size + sizeof(chain_rt)); }
static starpu_tag_t done_tag_of(const chain *c) { return tag_of(done_tag[c->kind->family], c->s, (int)c->t); }

static void run_fail(rt_chain_run *run, const char *fmt, const char *what, int ret)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, what, strerror(-ret));
    run->set->fail(run->set->owner, msg);
}

static void keep_tag(rt_chain_run *run, starpu_tag_t tag)
{
    pthread_mutex_lock(&run->tags_lock);
    if (run->ntags == run->captags) {
        size_t cap = run->captags ? 2 * run->captags : 256;
        starpu_tag_t *q = realloc(run->tags, cap * sizeof *q);
        if (q) run->tags = q, run->captags = cap;
    }
    if (run->ntags < run->captags) run->tags[run->ntags++] = tag;
    pthread_mutex_unlock(&run->tags_lock);
}

static void account_chunks(chain *c, uint32_t nchunks)
{
    chain_rt *st = rt_of(c);
    int64_t now = nchunks ? (int64_t)(nchunks + 2) * RT_HANDLE_BYTES +
                            (int64_t)nchunks * (RT_TASK_BYTES + (int64_t)sizeof(struct cl_milnor_mul_args))
                          : 0;
    memacct_add(MEM_RUNTIME, now - st->bytes);
    st->bytes = now;
}

/* The multiply chunks of what c planned (mod-2 rows, a mod-4 batch or mod-p rows); a failure
 * fails the run. */
static void submit_multiply(chain *c, rt_chunks *k)
{
    char err[160];
    rt_chain_run *run = rt_of(c)->run;
    int layer = cl_chain_layer(c);
    int rc = 0;
    switch (c->rows.kind) {
    case CHAIN_ROWS_NONE: break;
    case CHAIN_ROWS_F2: rc = rt_mul_submit(run->mul, c->rows.f2, c->s, (int)c->t, layer, k, err, sizeof err); break;
    case CHAIN_ROWS_MOD4: rc = rt_mul_submit_mod4(run->mul, c->rows.mod4, (int)c->t, k, err, sizeof err); break;
    case CHAIN_ROWS_FP: rc = rt_mul_submit_p(run->mul, c->rows.fp, c->s, (int)c->t, layer, k, err, sizeof err); break;
    }
    if (rc != 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s (%d, %d): %s", c->kind->name, c->s, (int)c->t, err);
        c->set->fail(c->set->owner, msg);
    }
}

/* Submits cl (which reads the chunks; tag 0: none), then lets StarPU unregister them once it
 * is done. */
static void submit_after_chunks(chain *c, struct starpu_codelet *cl, rt_chunks *k, starpu_tag_t tag, int prio)
{
    rt_chain_run *run = rt_of(c)->run;   /* c may be freed as soon as the task is submitted */
    int ret = tag ? starpu_task_insert(cl, STARPU_DATA_MODE_ARRAY, k->descr, (int)k->n, STARPU_CL_ARGS_NFREE, c,
                                       c->kind->size, STARPU_TAG, tag, STARPU_PRIORITY, prio, STARPU_NAME, cl->name, 0)
                  : starpu_task_insert(cl, STARPU_DATA_MODE_ARRAY, k->descr, (int)k->n, STARPU_CL_ARGS_NFREE, c,
                                       c->kind->size, STARPU_PRIORITY, prio, STARPU_NAME, cl->name, 0);
    if (ret != 0) {         /* c stays allocated: the chunk tasks may still write its rows */
        run_fail(run, "StarPU refused a %s task: %s", cl->name, ret);
        if (tag) starpu_tag_notify_from_apps(tag);    /* its dependents run (as no-ops) */
    }
    rt_chunks_release(k);
}

static void submit_parts(chain *c, rt_chunks *k, int finish);

/* The finish parts (chain_kind.finish_parts), then the finish task (tag DONE), after the chunks. */
static void submit_finish(chain *c, rt_chunks *k)
{
    if (c->kind->finish_parts && !chain_void(c)) submit_parts(c, k, 1);
    submit_after_chunks(c, &cl_chain_finish, k, done_tag_of(c), rt_of(c)->prio);
}

/* Does c multiply in its plan's task (rt_chain.h, "Small chains")? */
static int multiply_inline(const rt_chain_run *run, chain *c)
{
    if (!c->kind->multiply_here || c->rows.kind == CHAIN_ROWS_MOD4) return 0;
    if (c->rows.kind == CHAIN_ROWS_FP && !run->mul->pbasis_words) return 1;    /* no A_p for the tasks: over a profile */
    if (c->kind->parts && c->kind->parts(c) >= 2) return 0;     /* worth their own workers */
    uint64_t pairs;
    rt_chunking k;
    switch (c->rows.kind) {
    case CHAIN_ROWS_F2:
        if (c->rows.f2->nterms == 0 || c->rows.f2->ncols == 0) return 1;    /* nothing to multiply */
        k = rt_mul_chunking(run->mul, c->rows.f2, &pairs);
        break;
    case CHAIN_ROWS_FP:
        k = rt_mul_chunking_p(run->mul, c->rows.fp, &pairs);
        break;
    default: return 1;
    }
    if (pairs == 0) return 1;
    if (run->inline_given) return pairs < run->inline_pairs;
    return !(run->mul->ncuda && (k.where & STARPU_CUDA)) && pairs <= k.pairs;
}

/* The kind's parts, one task each, each writing a void handle that the next piece reads
 * (appended to k->descr; c->nparts tells the codelet): the parts beside the multiply
 * (chain_kind.parts), or, with finish, the finish parts (chain_kind.finish_parts), which also
 * read the multiply's chunks, k's handles so far. */
static void submit_parts(chain *c, rt_chunks *k, int finish)
{
    uint32_t n = finish ? c->kind->finish_parts(c) : c->kind->parts ? c->kind->parts(c) : 0;
    void (*part)(chain *, uint32_t, uint32_t) = finish ? c->kind->finish_part : c->kind->part;
    if (n < 2) {                /* one part is no split: it runs before the next piece, here */
        if (n == 1 && !finish) part(c, 0, 1);  /* (finish does its own all) */
        return;
    }
    uint32_t nrows = k->n;      /* a finish part's buffers: the chunks (and the voids of the parts
                                 * beside the multiply: it runs after them), then its void handle */
    uint32_t chunks = nrows - c->nparts;
    struct starpu_data_descr *d = realloc(k->descr, (k->n + n) * sizeof *d);
    struct starpu_data_descr *mine = malloc((finish ? nrows + 1 : 1) * sizeof *mine);
    if (!d || !mine) {
        if (d) k->descr = d;
        free(mine);
        if (finish)             /* the kind has split its finish: it cannot run here, before the rows */
            c->set->fail(c->set->owner, "out of memory submitting the parts of a finish");
        else                    /* no room to split: in order, here */
            for (uint32_t i = 0; i < n; i++) part(c, i, n);
        return;
    }
    k->descr = d;
    if (finish) memcpy(mine, d, nrows * sizeof *mine);
    uint32_t last = finish ? nrows : 0;
    for (uint32_t i = 0; i < n; i++) {
        starpu_data_handle_t h;
        starpu_void_data_register(&h);
        mine[last] = (struct starpu_data_descr){ h, STARPU_W };
        struct cl_chain_part_args *a = malloc(sizeof *a);       /* freed by StarPU */
        if (a) *a = (struct cl_chain_part_args){ c, i, n, finish, finish ? chunks : 0 };
        int ret = a ? starpu_task_insert(&cl_chain_part, STARPU_DATA_MODE_ARRAY, mine, (int)last + 1, STARPU_CL_ARGS,
                                         a, sizeof *a, STARPU_PRIORITY, rt_of(c)->prio, STARPU_NAME,
                                         finish ? "chain_finish_part" : "chain_part", 0)
                    : -ENOMEM;
        if (ret != 0) {
            free(a);
            run_fail(rt_of(c)->run, "StarPU refused a %s task: %s", "chain_part", ret);
        }
        d[k->n++] = (struct starpu_data_descr){ h, STARPU_R };
        c->nparts++;
    }
    free(mine);
}

/* After plan: the rest in the plan's task (a failed plan, a small chain), or the multiply
 * chunks and the parts, then reduce (or finish, for a kind without reduce), which reads them. */
static int after_plan(chain *c, int planned_ok)
{
    chain_rt *st = rt_of(c);
    rt_chunks k = { 0 };
    if (!planned_ok || multiply_inline(st->run, c)) {
        st->here = 1;
        return 0;
    }
    st->prio = c->kind->priority ? c->kind->priority(c->owner, c->s, c->t) : c->kind->finish_priority;
    submit_multiply(c, &k);
    account_chunks(c, k.n);
    submit_parts(c, &k, 0);
    if (c->kind->reduce) submit_after_chunks(c, &cl_chain_reduce, &k, 0, st->prio);
    else submit_finish(c, &k);
    return 1;
}

/* After reduce: the chunks of the rows it planned, if it wants them, then reduce again, or
 * finish (tag DONE). */
static void after_reduce(chain *c, int next)
{
    rt_chunks k = { 0 };
    if (next != CHAIN_FINISH) submit_multiply(c, &k);
    account_chunks(c, k.n);         /* the chunks before were read: only these remain */
    if (next == CHAIN_REDUCE_AGAIN) submit_after_chunks(c, &cl_chain_reduce, &k, 0, rt_of(c)->prio);
    else submit_finish(c, &k);
}

/* Plans run lowest degrees first. */
static int plan_priority(const rt_chain_run *run, deg_t t) { (void)run; return -(int)t; }

/* --- admission under --memory and --time-limit (runtime/admission.h) */
static void submit_plan(chain *c);

static int admit(chain *c) { return admission_admit(&rt_of(c)->run->admission, &rt_of(c)->ticket); }
static int cancelled(const chain *c) { return rt_of(c)->ticket.cancelled; }

/* c finished (or could not run): plan the waiting chains that may start now. */
static void release(chain *c)
{
    admission *a = &rt_of(c)->run->admission;
    admission_ticket *go[64];
    for (size_t n = admission_release(a, &rt_of(c)->ticket, go, 64);; n = admission_release(a, NULL, go, 64)) {
        for (size_t i = 0; i < n; i++) submit_plan(go[i]->c);
        if (n < 64) break;
    }
}
/* --- end of admission */

static void free_chain(chain *c)
{
    memacct_add(MEM_RUNTIME, -chain_bytes(c));
    free(c->runtime);
    chain_free(c);
}

static void after_finish(chain *c)
{
    chain_rt *st = rt_of(c);
    if (st->run->progress && !chain_void(c)) progress_item_done(st->work);
    if (st->here) starpu_tag_notify_from_apps(done_tag_of(c));     /* no task carries it */
    account_chunks(c, 0);
    release(c);
    free_chain(c);
}

/* A team for the row reduction of a matrix of `bytes` by the piece running (res_rref), from
 * the run's threshold on (EXTFLOW_TEAM_MIN, else F2MAT_TEAM_MIN): members recruited among the
 * CPU workers that run no piece and help no team now (cl_chain_busy), at most EXTFLOW_TEAM, by
 * default half of them: a member holds its worker until the reduction ends, and the other half
 * stay free for the tasks that become ready meanwhile (those that feed the GPU among them).
 * Each member is a cl_chain_member task at the highest priority, so that an idle worker takes
 * it at once; one that starts after the team closed returns at once. */
static team *recruit(chain *c, uint64_t bytes)
{
    const rt_chain_run *run = rt_of(c)->run;
    if (bytes < run->team_min) return NULL;
    int idle = (int)starpu_cpu_worker_get_count() - cl_chain_busy();
    int n = run->team_max < 0 ? idle / 2 : idle < run->team_max ? idle : run->team_max;
    team *t = n > 0 ? team_new((uint32_t)n) : NULL;
    if (!t) return NULL;
    cl_chain_recruited(n);
    for (int i = 0; i < n; i++)
        if (starpu_task_insert(&cl_chain_member, STARPU_CL_ARGS_NFREE, t, (size_t)1, STARPU_PRIORITY, STARPU_MAX_PRIO,
                               STARPU_NAME, "chain_member", 0) != 0) {
            team_release(t);        /* its member's ref: the team still works, with one fewer */
            cl_chain_recruited(-1);
        }
    return t;
}

static const chain_next rt_next = { admit, after_plan, after_reduce, after_finish, cancelled, recruit };

/* The plan task of an admitted chain that had to wait (its tag and dependencies were those of
 * its first plan task, which has run). */
static void submit_plan(chain *c)
{
    rt_chain_run *run = rt_of(c)->run;
    int ret = starpu_task_insert(&cl_chain_plan, STARPU_CL_ARGS_NFREE, c, c->kind->size, STARPU_PRIORITY,
                                 plan_priority(run, c->t), STARPU_NAME, c->kind->name, 0);
    if (ret != 0) {     /* its chain cannot run: end it as a no-op so its DONE tag fires */
        run_fail(run, "StarPU refused a %s task: %s", "chain_plan", ret);
        starpu_tag_notify_from_apps(done_tag_of(c));
        release(c);
        free_chain(c);
    }
}

/* Submits the plan task of chain (kind, s, t) with its tag dependencies. */
static void submit_chain(rt_chain_run *run, const chain_kind *kind, void *owner, int s, deg_t t, int layer,
                         starpu_tag_t *deps, int ndeps)
{
    const chain_set *set = run->set;
    chain *c = calloc(1, kind->size);
    chain_rt *st = calloc(1, sizeof *st);
    starpu_tag_t done = tag_of(done_tag[kind->family], s, (int)t), plan = tag_of(plan_tag[kind->family], s, (int)t);
    keep_tag(run, done);
    keep_tag(run, plan);
    if (!c || !st) {    /* fire the tag its dependents wait on, or they never run (they are no-ops) */
        free(c);
        free(st);
        set->fail(set->owner, "out of memory submitting a chain");
        starpu_tag_notify_from_apps(done);
        return;
    }
    *c = (chain){ .kind = kind, .set = set, .owner = owner, .s = s, .t = t, .next = &rt_next, .runtime = st,
                  .layer = layer };
    st->run = run;
    st->work = run->progress ? (double)kind->footprint(owner, s, t) : 0;
    st->ticket.c = c;
    memacct_add(MEM_RUNTIME, chain_bytes(c));
    if (ndeps) starpu_tag_declare_deps_array(plan, (unsigned)ndeps, deps);
    int ret = starpu_task_insert(&cl_chain_plan, STARPU_CL_ARGS_NFREE, c, kind->size, STARPU_TAG, plan,
                                 STARPU_PRIORITY, plan_priority(run, t), STARPU_NAME, kind->name, 0);
    if (ret != 0) {
        run_fail(run, "StarPU refused a %s task: %s", "chain_plan", ret);
        starpu_tag_notify_from_apps(done);
        free_chain(c);
    }
}

/* Submits chain (kind, s, t), found at the set's layer, with tag dependencies on the chains its
 * kind names that are not done; one the kind asks to be made is submitted here first. */
static void submit_with_deps(rt_chain_run *run, const chain_kind *kind, void *owner, int s, deg_t t, int layer)
{
    const chain_set *set = run->set;
    chain_deps need;
    starpu_tag_t deps[CHAIN_MAX_DEPS + CHAIN_MAX_READS];
    int n = 0;
    kind->deps(owner, s, t, &need);
    for (int k = 0; k < need.n; k++) {
        const chain_dep *d = &need.d[k];
        starpu_tag_t tag;
        if (d->make) {
            submit_with_deps(run, d->make, owner, d->s, d->t, 0);
            tag = tag_of(done_tag[d->family], d->s, (int)d->t);
        } else if (!set->done || !set->done(set->owner, d->family, d->s, d->t))
            tag = run->dist && d->family == CHAIN_STEP ? rt_dist_ready_tag(run->dist, d->s, d->t)
                                                       : tag_of(done_tag[d->family], d->s, (int)d->t);
        else
            continue;
        deps[n++] = tag;
    }
    if (run->dist && kind->reads) {     /* rows it reads, which may come from other ranks */
        chain_reads reads;
        kind->reads(owner, s, t, &reads);
        n += rt_dist_read_deps(run->dist, &reads, deps, n);
    }
    if (kind->prepare && (!kind->to_prepare || kind->to_prepare(owner, s, t))) {    /* beside the chain, needing nothing; first, to be ready before it */
        struct cl_chain_prep *a = malloc(sizeof *a);   /* StarPU frees it with the task */
        if (a) *a = (struct cl_chain_prep){ kind, owner, s, (int)t };
        if (a && starpu_task_insert(&cl_chain_prepare, STARPU_CL_ARGS, a, sizeof *a, STARPU_PRIORITY,
                                    plan_priority(run, t), STARPU_NAME, "chain_prepare", 0) != 0)
            free(a);    /* refused: the chain does without it */
    }
    submit_chain(run, kind, owner, s, t, layer, deps, n);
}

/* The progress line over the chains of the set (stages/progress.h; a resolution counts its steps
 * on it: stages/resolve/stepprogress.h). */
static void start_progress(rt_chain_run *run, const chain_policy *policy)
{
    const chain_set *set = run->set;
    long n = 0;
    double work = 0;
    for (deg_t t = 0; t <= set->max_t; t++)
        for (int l = 0; l < (set->layers ? set->layers : 1); l++)
            for (int s = 0; s <= set->max_s && s <= t; s++) {
                chain_at a = set->at(set->owner, s, t, l);
                if (a.kind && (!run->dist || rt_dist_owns(run->dist, s, t)))
                    n++, work += (double)a.kind->footprint(a.owner, s, t);
            }
    progress_start_items(n, work, policy->progress_noun, policy->progress_line);
    run->progress = 1;
}

int rt_chains(const chain_set *set, const chain_policy *policy, rt_mul *mul, rt_dist *dist)
{
    rt_chain_run *run = calloc(1, sizeof *run);
    if (!run) {
        set->fail(set->owner, "out of memory starting a run");
        return -1;
    }
    double began = clock_now();
    rt_stats_begin(set, policy);
    run->set = set;
    run->dist = dist;
    run->mul = mul ? mul : &run->own;
    pthread_mutex_init(&run->tags_lock, NULL);
    admission_init(&run->admission, policy->memory_budget, policy->time_limit, policy->start, set->stopped_elsewhere);
    const char *ip = getenv("EXTFLOW_LIFT_INLINE_PAIRS");
    run->inline_given = ip && *ip;
    run->inline_pairs = run->inline_given ? strtoull(ip, NULL, 10) : 0;
    const char *tm = getenv("EXTFLOW_TEAM");    /* checked by tools/env.c */
    run->team_max = tm && *tm ? atoi(tm) : -1;
    const char *tmin = getenv("EXTFLOW_TEAM_MIN");
    run->team_min = tmin && *tmin ? strtoull(tmin, NULL, 10) : F2MAT_TEAM_MIN;
    char err[128];
    /* the start-up deadline is set on one rank only (tools/extflow.c): there a limit that has
     * passed before the first task ends the run now, or during the basis's flat copy */
    int mrc = mul ? 0 : milnor_deadline_passed() ? MILNOR_STOPPED : rt_mul_init(&run->own, set->A, err, sizeof err);
    if (mrc == 0 && !mul && set->Ap && rt_mul_init_p(&run->own, set->Ap, err, sizeof err) != 0) {
        rt_mul_clear(&run->own);
        mrc = -1;
    }
    if (mrc != 0) {
        if (mrc != MILNOR_STOPPED) set->fail(set->owner, err);
        admission_clear(&run->admission);
        pthread_mutex_destroy(&run->tags_lock);
        free(run);
        return mrc == MILNOR_STOPPED ? 1 : -1;
    }
    /* one process stops submitting once the time limit has passed (chains depend on smaller t
     * only) or the run failed; ranks submit every chain (the failed ones become no-ops), since
     * others wait for what they publish */
    if (policy->progress_noun) start_progress(run, policy);
    int failed = 0;
    unsigned most = set->throttle * starpu_worker_get_count() + 8;
    for (deg_t i = 0; i <= set->max_t && !failed; i++) {
        if (!dist && admission_time_up(&run->admission)) break;
        deg_t t = i;
        for (int l = 0; l < (set->layers ? set->layers : 1); l++)
            for (int s = 0; s <= set->max_s && s <= t && !failed; s++) {
                chain_at a = set->at(set->owner, s, t, l);
                if (!a.kind || (dist && !rt_dist_owns(dist, s, t))) continue;
                if (!dist && set->failed(set->owner)) failed = 1;
                else {
                    if (set->throttle) starpu_task_wait_for_n_submitted(most);
                    else if (!dist && starpu_task_nsubmitted() >= RT_PENDING_HIGH)
                        starpu_task_wait_for_n_submitted(RT_PENDING_LOW);
                    submit_with_deps(run, a.kind, a.owner, s, t, l);
                }
            }
    }
    if (dist) {                     /* the blobs between ranks, then every rank's tasks */
        rt_dist_submit_exchanges(dist);
        rt_dist_finish(dist, policy->verbose);
    } else
        starpu_task_wait_for_all();
    if (run->progress) progress_finish();
    for (size_t i = 0; i < run->ntags; i++) starpu_tag_remove(run->tags[i]);   /* the next set reuses them */
    if (!mul) rt_mul_clear(&run->own);
    int stopped = admission_stopped(&run->admission);
    if (policy->admission_report)
        fprintf(stderr, "extflow: at most %u bidegrees in flight; %llu times one waited for memory\n",
                run->admission.max_in_flight, (unsigned long long)run->admission.deferred);
    admission_clear(&run->admission);
    pthread_mutex_destroy(&run->tags_lock);
    free(run->tags);
    free(run);
    rt_stats_end(set, policy, clock_now() - began, dist != NULL);
    return set->failed(set->owner) ? -1 : stopped ? 1 : 0;
}

static int run_chains(const chain_runner *r, const chain_set *set)
{
    return rt_chains(set, &r->policy, NULL, r->ctx);
}

const chain_runner rt_chain_runner = { run_chains, { 0 }, NULL };

void rt_chain_cuda_pairs(uint64_t *mod2, uint64_t *mod4)
{
    uint64_t cpu;
    cl_milnor_mul_stats(&cpu, mod2);
    cl_pair_mul_stats(&cpu, mod4);
}
