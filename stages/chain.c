/* chain.c — the pieces every runner shares, and the serial runner (chain.h). */
#include "stages/chain.h"
#include <stdlib.h>
#include <string.h>

int chain_void(const chain *c) { return c->set->failed(c->set->owner) || c->next->cancelled(c); }

static void multiply_here(chain *c)
{
    if (c->rows.kind != CHAIN_ROWS_NONE && c->kind->multiply_here) c->kind->multiply_here(c);
}

/* parts, multiply, reduce, finish parts: CHAIN_FINISH after a success, -1 after a failure (the owner's) or
 * when the set failed */
static int reduce_here(chain *c)
{
    if (chain_void(c)) return -1;
    uint32_t n = c->kind->parts ? c->kind->parts(c) : 0;
    for (uint32_t k = 0; k < n && !chain_void(c); k++) c->kind->part(c, k, n);
    multiply_here(c);
    int r = c->kind->reduce ? c->kind->reduce(c) : CHAIN_FINISH;
    while (r == CHAIN_REDUCE_AGAIN && !chain_void(c)) {
        multiply_here(c);
        r = c->kind->reduce(c);
    }
    if (r == CHAIN_MULTIPLY_AGAIN && !chain_void(c)) multiply_here(c);
    n = r >= 0 && !chain_void(c) && c->kind->finish_parts ? c->kind->finish_parts(c) : 0;
    for (uint32_t k = 0; n >= 2 && k < n && !chain_void(c); k++) c->kind->finish_part(c, k, n);
    return r >= 0 && !chain_void(c) ? CHAIN_FINISH : -1;
}

void chain_rest_here(chain *c, int planned_ok)
{
    if (planned_ok && reduce_here(c) == CHAIN_FINISH) c->kind->finish(c);
    c->next->after_finish(c);
}

void chain_free(chain *c)
{
    if (c->kind->clear) c->kind->clear(c);
    free(c);
}

/* --- the serial runner: each chain's pieces in a row, its multiply on this thread */
static int serial_admit(chain *c) { (void)c; return 1; }
static int serial_after_plan(chain *c, int ok) { (void)c, (void)ok; return 0; }
static void serial_after_reduce(chain *c, int next) { (void)c, (void)next; }
static void serial_after_finish(chain *c) { chain_free(c); }
static int serial_cancelled(const chain *c) { (void)c; return 0; }
static const chain_next serial_next = { serial_admit, serial_after_plan, serial_after_reduce, serial_after_finish,
                                        serial_cancelled, NULL };   /* no team: one thread */

static int serial_one(const chain_set *set, const chain_kind *k, void *owner, int s, deg_t t)
{
    chain_deps need;
    k->deps(owner, s, t, &need);
    for (int i = 0; i < need.n; i++)    /* the others came earlier in the order */
        if (need.d[i].make && serial_one(set, need.d[i].make, owner, need.d[i].s, need.d[i].t) != 0) return -1;
    chain *c = calloc(1, k->size);
    if (!c) {
        set->fail(set->owner, "out of memory starting a chain");
        return -1;
    }
    *c = (chain){ .kind = k, .set = set, .owner = owner, .s = s, .t = t, .next = &serial_next };
    int ok = !set->failed(set->owner) && k->plan(c) == 0;
    chain_rest_here(c, ok);
    return set->failed(set->owner) ? -1 : 0;
}

static int serial_run(const chain_runner *r, const chain_set *set)
{
    (void)r;
    for (deg_t i = 0; i <= set->max_t; i++)
        for (int l = 0, t = i; l < (set->layers ? set->layers : 1); l++)
            for (int s = 0; s <= set->max_s && s <= t; s++) {
                chain_at a = set->at(set->owner, s, t, l);
                if (a.kind && serial_one(set, a.kind, a.owner, s, t) != 0) return -1;
            }
    return 0;
}

const chain_runner chain_serial = { serial_run, { 0 }, NULL };
