/* lift_chain.c — the lift steps as a chain set (lift.h, "The steps as a chain set"): the chain
 * kind of a step at every prime, of lift.c's pieces (plan, multiply, parts, finish; the rows
 * tagged by the prime's ring, stages/chain.h), and lift_run. It sits above lift.c, so that
 * stages/ has no circle (tests/t-structure.sh). */
#include "stages/products/lift.h"
#include "stages/resolve/resolution_p.h"

static lift_step_ctx *ctx_of(chain *c) { return (lift_step_ctx *)c; }

static int kind_plan(chain *c)
{
    lift_step_ctx *x = ctx_of(c);
    const lift_set *set = c->owner;
    int rc = lift_step_plan(c->owner, c->s, c->t, &x->plan);
    c->rows = set->prime == 2 ? chain_rows_f2(&x->plan.b) : chain_rows_fp(&x->plan.bp);
    return rc;
}
static void kind_multiply(chain *c) { lift_plan_multiply(c->owner, c->s, c->t, &ctx_of(c)->plan); }
static int kind_finish(chain *c) { return lift_step_finish(c->owner, c->s, c->t, &ctx_of(c)->plan); }
static void kind_clear(chain *c) { lift_plan_clear(c->owner, &ctx_of(c)->plan); }
static uint32_t kind_parts(chain *c) { return lift_step_parts(c->owner, &ctx_of(c)->plan); }
static void kind_part(chain *c, uint32_t k, uint32_t n) { lift_step_part(c->owner, c->s, c->t, &ctx_of(c)->plan, k, n); }
static void kind_deps(void *owner, int i, deg_t t, chain_deps *out)
{
    int di[2];
    deg_t dt[2];
    out->n = lift_deps(owner, i, t, di, dt);
    for (int k = 0; k < out->n; k++) out->d[k] = (chain_dep){ .family = CHAIN_LIFT, .s = di[k], .t = dt[k] };
}
static uint64_t kind_footprint(void *owner, int i, deg_t t) { return lift_step_footprint(owner, i, t); }
static void kind_prepare(void *owner, int i, deg_t t) { lift_step_prepare(owner, i, t); }
static int kind_to_prepare(void *owner, int i, deg_t t) { return lift_step_to_prepare(owner, i, t); }
/* priority 1 after a multiply, above every plan (-t) and chunk (0): a step whose rows are
 * multiplied finishes, freeing them, before more steps are planned (peak RSS of products at
 * stem 100: 254 MB against 302 MB at -t; docs/perf.md). Prepare: the kept quasi-inverse of
 * d_i, built beside the step's deps (lift_step_prepare). */
const chain_kind lift_step_kind = { "lift", CHAIN_LIFT, sizeof(lift_step_ctx), kind_plan, NULL, kind_finish, kind_clear,
                                    kind_deps, kind_footprint, kind_multiply, 1, kind_parts, kind_part, NULL,
                                    NULL, NULL, NULL, kind_prepare, kind_to_prepare };

static chain_at step_at(void *owner, int i, deg_t t, int layer)
{
    (void)layer;
    const lift_set *set = owner;
    return (chain_at){ lift_in_region(set, i, t) ? &lift_step_kind : NULL, owner };
}
static void set_fail(void *owner, const char *msg) { lift_fail(owner, "%s", msg); }
static int set_failed(void *owner) { return lift_failed(owner); }

chain_set lift_chain_set(lift_set *set)
{
    /* odd p: the multiply tasks read A_p, over A_p itself only (a profile's rows: the plan's worker) */
    const milnor_p_basis *Ap = set->tgt->odd && set->tgt->odd->B.full ? &set->tgt->odd->A : NULL;
    return (chain_set){ .owner = set, .A = &set->tgt->A, .Ap = Ap, .max_s = set->tgt->max_s, .max_t = set->tgt->max_t,
                        .at = step_at, .fail = set_fail, .failed = set_failed };
}

int lift_run(lift_set *set, const chain_runner *runner)
{
    chain_set cs = lift_chain_set(set);
    int rc = chain_run(runner, &cs);
    return lift_failed(set) ? -1 : rc;
}
