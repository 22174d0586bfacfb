/* step.c — the step algorithms behind step.h as chain kinds: the standard step (standard.c),
 * Nassau's (nassau.c) and the stem-edge kernel job, with the dependencies of each. */
#include "stages/resolve/step.h"
#include "stages/resolve/nassau.h"
#include "stages/resolve/nassau_p.h"
#include "stages/resolve/stepprogress.h"
#include "stages/resolve/standard.h"
#include "stages/resolve/resolution_p.h"
#include "stages/resolve/standard_p.h"
#include "stages/resolve/exchange.h"

static step_ctx *ctx_of(chain *c) { return (step_ctx *)c; }

void step_init(step_ctx *c, resolution *res, const chain_kind *kind, int s, deg_t t)
{
    c->ch.kind = kind;
    c->ch.owner = res;
    c->ch.s = s;
    c->ch.t = t;
    c->ch.rows = chain_rows_f2(&c->build);
    c->res = res;
    c->kernel_only = kind == &step_edge_kernel || kind == &step_edge_kernel_p;
    if (kind == &step_standard_p || kind == &step_edge_kernel_p || kind == &step_nassau_p)
        c->ch.rows = CHAIN_NO_ROWS;     /* products in plan */
}

/* Every piece's context is set up by the first one (the runner zeroed it and set the chain). */
static step_ctx *begin(chain *ch)
{
    step_ctx *c = ctx_of(ch);
    step_init(c, ch->owner, ch->kind, ch->s, ch->t);
    return c;
}

/* A step's finish, rc its algorithm's: a finished step moves the progress line on. */
static int finished(chain *c, int rc)
{
    if (rc == 0) progress_step_done(c->s, c->t);
    return rc;
}
static int standard_plan(chain *c) { return res_step_plan(begin(c)); }
static int standard_reduce(chain *c) { return res_step_reduce(ctx_of(c)) == 0 ? CHAIN_FINISH : -1; }
static int standard_finish(chain *c) { return finished(c, res_step_finish(ctx_of(c))); }
static int nassau_plan(chain *c) { return res_nassau_plan(begin(c)); }
static int nassau_reduce(chain *c) { return res_nassau_reduce0(ctx_of(c)); }
static int nassau_finish(chain *c) { return finished(c, res_nassau_finish(ctx_of(c))); }
static int nassau_plan_p(chain *c) { return res_nassau_p_plan(begin(c)); }
static int nassau_reduce_p(chain *c) { return res_nassau_p_reduce(ctx_of(c)) == 0 ? CHAIN_FINISH : -1; }
static int nassau_finish_p(chain *c) { return finished(c, res_nassau_p_finish(ctx_of(c))); }
static uint32_t nassau_finish_parts_p(chain *c) { return res_nassau_p_finish_parts(ctx_of(c)); }
static void nassau_finish_part_p(chain *c, uint32_t k, uint32_t n) { res_nassau_p_finish_part(ctx_of(c), k, n); }
static uint32_t nassau_finish_parts(chain *c) { return res_nassau_finish_parts(ctx_of(c)); }
static void nassau_finish_part(chain *c, uint32_t k, uint32_t n) { res_nassau_finish_part(ctx_of(c), k, n); }
static int edge_finish(chain *c) { (void)c; return 0; }
/* a small step's rows (one CPU chunk at most) on its plan's worker, the rest of it there too */
static void multiply_here(chain *c) { rb_multiply_all(&ctx_of(c)->build, &ctx_of(c)->res->A); }
static int pre_plan(chain *c) { return res_pre_plan(begin(c)); }
static int pre_reduce(chain *c) { return res_pre_reduce(ctx_of(c)) == 0 ? CHAIN_FINISH : -1; }
/* odd p (standard_p.h): plan multiplies on its own worker; reduce as at p = 2; finish the same */
static int standard_plan_p(chain *c) { return res_step_plan_p(begin(c)); }
static int standard_reduce_p(chain *c) { return res_step_reduce_p(ctx_of(c)) == 0 ? CHAIN_FINISH : -1; }
static void multiply_here_p(chain *c) { res_step_multiply_p(ctx_of(c)); }
static void clear(chain *c) { step_free(ctx_of(c)); }     /* at every prime (res_step_free) */

static void add_dep(chain_deps *out, int family, int s, deg_t t, const chain_kind *make)
{
    out->d[out->n++] = (chain_dep){ family, s, t, make };
}

/* (s, t) plans and reduces once F_s and F_{s-1} below degree t are known: (s, t-1), which
 * waited for (s-1, t-1) (at t = s, (s-1, t-1) itself); its finish needs the kernel of d_{s-1} at
 * (s-1, t): from the step there when it is in the region, else from the stem-edge kernel job
 * there. (Only the finish needs that kernel, but a step that waited for it after its plan held
 * its memory while admission kept the step below out: t-budget hung; docs/perf.md.) */
static void standard_deps(void *owner, int s, deg_t t, chain_deps *out)
{
    resolution *res = owner;
    out->n = 0;
    if (t - 1 >= s) add_dep(out, CHAIN_STEP, s, t - 1, NULL);
    else if (s >= 1) add_dep(out, CHAIN_STEP, s - 1, t - 1, NULL);   /* F_{s-1} below t */
    if (s >= 1 && !res_in_region(res, s - 1, t)) add_dep(out, CHAIN_EDGE, s - 1, t, &step_edge_kernel);
    else if (s >= 1) add_dep(out, CHAIN_STEP, s - 1, t, NULL);
    if (res_lookahead_at(res, s, t)) add_dep(out, CHAIN_PRE, s, t, &step_standard_pre);
}

/* The early reduction at (s, t) (standard.h, lookahead j) reads F_s up to degree t-j and F_{s-1}
 * below it: (s, t-j), which waited for (s-1, t-j). */
static void pre_deps(void *owner, int s, deg_t t, chain_deps *out)
{
    out->n = 0;
    add_dep(out, CHAIN_STEP, s, t - res_lookahead_at(owner, s, t), NULL);
}

/* The same at odd p, with the odd-p stem-edge kernel job. */
static void standard_deps_p(void *owner, int s, deg_t t, chain_deps *out)
{
    standard_deps(owner, s, t, out);
    for (int k = 0; k < out->n; k++)
        if (out->d[k].make) out->d[k].make = &step_edge_kernel_p;
}

/* Nassau's rows read F_{s-1} below t and F_{s-2} below t-1: (s, t-1) and (s-1, t-1) suffice. */
static void nassau_deps(void *owner, int s, deg_t t, chain_deps *out)
{
    (void)owner;
    out->n = 0;
    if (t - 1 >= s) add_dep(out, CHAIN_STEP, s, t - 1, NULL);
    if (t - 1 >= s - 1) add_dep(out, CHAIN_STEP, s - 1, t - 1, NULL);
}

/* The kernel at (s, t) on the stem edge needs F_s below t: (s, t-1) when that is in the region;
 * under the lookahead its early rows are reduced as a step's are (on the stem edge these
 * reductions follow one another down the diagonal: (s, t) waits for the step (s, t-1), whose
 * finish waited for the kernel at (s-1, t-1)). */
static void edge_deps(void *owner, int s, deg_t t, chain_deps *out)
{
    resolution *res = owner;
    out->n = 0;
    if (res_in_region(res, s, t - 1)) add_dep(out, CHAIN_STEP, s, t - 1, NULL);
    if (res_lookahead_at(res, s, t)) add_dep(out, CHAIN_PRE, s, t, &step_standard_pre);
}

static uint64_t standard_footprint(void *owner, int s, deg_t t) { return res_step_footprint(owner, s, t); }
static uint64_t standard_footprint_p(void *owner, int s, deg_t t) { return res_step_footprint_p(owner, s, t); }
static uint64_t pre_footprint(void *owner, int s, deg_t t) { return res_pre_footprint(owner, s, t); }
static uint64_t nassau_footprint(void *owner, int s, deg_t t) { return res_nassau_footprint(owner, s, t); }
static uint64_t nassau_footprint_p(void *owner, int s, deg_t t) { return res_nassau_p_footprint(owner, s, t); }
/* Priorities of the standard steps' reduces (chain_kind.priority): 1 + log2 of the predicted
 * MiB, 0 under 1 MiB. The large reductions of the low rows near the top degree make the
 * critical path (docs/perf.md); a scheduler that reads priorities then starts them before the
 * small ones queued with them. */
static int size_priority(uint64_t bytes)
{
    int p = 0;
    for (bytes >>= 20; bytes; bytes >>= 1) p++;
    return p;
}
static int standard_priority(void *owner, int s, deg_t t) { return size_priority(res_step_footprint(owner, s, t)); }
static int pre_priority(void *owner, int s, deg_t t) { return size_priority(res_pre_footprint(owner, s, t)); }
static int failed(void *owner) { return res_check_writes(owner); }
static void fail(void *owner, const char *msg) { res_fail(owner, "%s", msg); }

static void add_read(chain_reads *out, int s, deg_t t)
{
    if (s >= 0 && t >= s) out->r[out->n++] = (chain_read){ CHAIN_STEP, s, t };
}

/* The standard step at (s, t) (and the stem-edge kernel job, which is its plan and reduce)
 * reads F_s and F_{s-1} below degree t: D's rows and columns; the kernel of d_{s-1} at t that
 * its finish takes comes from a dep. */
static void standard_reads(void *owner, int s, deg_t t, chain_reads *out)
{
    (void)owner;
    out->n = 0;
    add_read(out, s, t - 1);
    add_read(out, s - 1, t - 1);
}

static void pre_reads(void *owner, int s, deg_t t, chain_reads *out)
{
    deg_t j = res_lookahead_at(owner, s, t);
    out->n = 0;
    add_read(out, s, t - j);
    add_read(out, s - 1, t - j - 1);
}

/* Nassau's step at (s, t) reads F_s and F_{s-1} below t and F_{s-2} below t-1. */
static void nassau_reads(void *owner, int s, deg_t t, chain_reads *out)
{
    standard_reads(owner, s, t, out);
    add_read(out, s - 2, t - 2);
}

#define STEP_KIND(NAME, FAMILY, PLAN, REDUCE, FINISH, CLEAR, DEPS, FOOTPRINT, READS, PRIORITY)                    \
    { .name = NAME, .family = FAMILY, .size = sizeof(step_ctx), .plan = PLAN, .reduce = REDUCE, .finish = FINISH, \
      .clear = CLEAR, .deps = DEPS, .footprint = FOOTPRINT, .reads = READS, .priority = PRIORITY }
const chain_kind step_standard = { .name = "standard", .family = CHAIN_STEP, .size = sizeof(step_ctx),
                                   .plan = standard_plan, .reduce = standard_reduce, .finish = standard_finish,
                                   .clear = clear, .deps = standard_deps, .footprint = standard_footprint,
                                   .multiply_here = multiply_here, .reads = standard_reads,
                                   .priority = standard_priority };
/* Nassau's, with its finish in parts where it is large (nassau.h) */
const chain_kind step_nassau = { .name = "nassau", .family = CHAIN_STEP, .size = sizeof(step_ctx), .plan = nassau_plan,
                                 .reduce = nassau_reduce, .finish = nassau_finish, .clear = clear, .deps = nassau_deps,
                                 .footprint = nassau_footprint, .reads = nassau_reads,
                                 .finish_parts = nassau_finish_parts, .finish_part = nassau_finish_part };
const chain_kind step_standard_pre = STEP_KIND("standard-early", CHAIN_PRE, pre_plan, pre_reduce, edge_finish, clear,
                                               pre_deps, pre_footprint, pre_reads, pre_priority);
const chain_kind step_edge_kernel = STEP_KIND("edge-kernel", CHAIN_EDGE, standard_plan, standard_reduce, edge_finish,
                                              clear, edge_deps, standard_footprint, standard_reads,
                                              standard_priority);
/* odd p: the rows go to multiply tasks, or a small step's to its plan's worker (multiply_here) */
#define STEP_KIND_P(NAME, FAMILY, FINISH, DEPS)                                                       \
    { .name = NAME, .family = FAMILY, .size = sizeof(step_ctx), .plan = standard_plan_p,              \
      .reduce = standard_reduce_p, .finish = FINISH, .clear = clear, .deps = DEPS,                  \
      .footprint = standard_footprint_p, .multiply_here = multiply_here_p, .reads = standard_reads }
const chain_kind step_standard_p = STEP_KIND_P("standard-p", CHAIN_STEP, standard_finish, standard_deps_p);
const chain_kind step_edge_kernel_p = STEP_KIND_P("edge-kernel-p", CHAIN_EDGE, edge_finish, edge_deps);

/* Nassau's at odd p, with its finish in parts where it is large (nassau_p.h) */
const chain_kind step_nassau_p = { .name = "nassau-p", .family = CHAIN_STEP, .size = sizeof(step_ctx),
                                   .plan = nassau_plan_p, .reduce = nassau_reduce_p, .finish = nassau_finish_p,
                                   .clear = clear, .deps = nassau_deps, .footprint = nassau_footprint_p,
                                   .reads = nassau_reads, .finish_parts = nassau_finish_parts_p,
                                   .finish_part = nassau_finish_part_p };

const chain_kind *step_algo_for(const resolution *res, int s, deg_t t)
{
    if (res->prime != 2)
        return res_p_nassau_row(res, s, t) ? &step_nassau_p : &step_standard_p;
    return res->algorithm == ALG_NASSAU && s >= 2 ? &step_nassau : &step_standard;
}

static chain_at step_at(void *owner, int s, deg_t t, int layer)
{
    resolution *res = owner;
    (void)layer;
    return (chain_at){ res_in_region(res, s, t) && !*res_done(res, s, t) ? step_algo_for(res, s, t) : NULL, res };
}

static int step_done(void *owner, int family, int s, deg_t t)
{
    return family == CHAIN_STEP && res_is_done(owner, s, t);
}

/* EXTFLOW_STATS: the Nassau steps at odd p (stages/resolve/nassau_p.h), when there were any. */
static void step_stats(void *owner, FILE *out)
{
    uint64_t nsteps, ncorrected, ndim, nshared, kept, computed, bytes;
    res_nassau_p_stats(&nsteps, &ncorrected, &ndim, &nshared);
    res_nassau_p_product_stats(owner, &kept, &computed, &bytes);
    if (nsteps)
        fprintf(out,
                "extflow: Nassau steps at odd p: %llu (%llu corrected), subalgebras up to dimension %llu, "
                "%llu zero-signature row blocks shared; products: %llu computed, %llu kept (%.1f MB)\n",
                (unsigned long long)nsteps, (unsigned long long)ncorrected, (unsigned long long)ndim,
                (unsigned long long)nshared, (unsigned long long)computed, (unsigned long long)kept, bytes / 1e6);
}

chain_set step_chain_set(resolution *res)
{
    const milnor_p_basis *Ap = res->odd && res->odd->B.full ? &res->odd->A : NULL;  /* standard_p.h */
    return (chain_set){ .owner = res, .A = &res->A, .Ap = Ap, .max_s = res->max_s, .max_t = res->max_t, .at = step_at,
                        .done = step_done, .fail = fail, .failed = failed, .stopped_elsewhere = &res->stopped_elsewhere,
                        .stats = step_stats, .exchange = &res_exchange };
}

void step_free(step_ctx *c)
{
    res_nassau_free(c);
    res_nassau_p_free(c);
    res_step_free(c);
}

int res_run(resolution *res, const chain_runner *r)
{
    chain_set set = step_chain_set(res);
    int rc = chain_run(r, &set);
    res_flush_stages(res);
    return res_failed(res) ? -1 : rc;
}
