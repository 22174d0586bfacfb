/* secondary.c — Adams d2 by composites, intermediates and a homotopy (see secondary.h). */
#include "stages/d2/secondary.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int secondary_failed(secondary *sec)
{
    return latch_is_set(&sec->fail) || lift_failed(&sec->set);
}

static int d2_extra(void *ctx, int i, deg_t t, uint32_t k, void *y);
static int d2_extra_plan(void *ctx, int i, deg_t t, uint32_t k, lift_share *share);

int8_t **sec_planes_new(const resolution *res)
{
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    int8_t **planes = calloc(cells, sizeof *planes);
    if (!planes) return NULL;
    for (int s = 0; s <= res->max_s; s++)
        for (deg_t T = s; T - s <= res->max_n; T++) {
            size_t n = (size_t)res_ngens(res, s, T) * PAIR_MAX_K;
            int8_t **p = &planes[res_cell(res, s, T)];
            if (n && !(*p = malloc(n))) {
                sec_planes_free(planes, res);
                return NULL;
            }
            if (n) memset(*p, -1, n);
        }
    return planes;
}

void sec_planes_add_row(int8_t **planes, const resolution *res, int j, deg_t D, const uint64_t *v, uint64_t vbits)
{
    const milnor_basis *A = &res->A;
    const freemod *X = &res->F[j];
    uint64_t off = 0;
    for (deg_t u = 0; u < D && off < vbits; u++) {
        if (u > X->max_t || !X->ngens[u]) continue;
        uint32_t blen = A->dim[D - u];
        for (uint32_t g1 = 0; g1 < X->ngens[u]; g1++, off += blen)
            for (uint32_t e = 0; e < blen && off + e < vbits; e++)
                if (f2vec_get(v, off + e)) {
                    int8_t *p = planes[res_cell(res, j, u)] + (size_t)g1 * PAIR_MAX_K;
                    if (p[0] < 0) p[0] = 0;                 /* read */
                    pair_y_seen(&A->elts[D - u][e], p);
                }
    }
}

int8_t **sec_planes_of_d(const resolution *res, int (*reads)(const void *, int, deg_t), const void *ctx)
{
    int8_t **planes = sec_planes_new(res);
    for (int S = 1; planes && S <= res->max_s; S++)
        for (deg_t T = S - 1; T - S <= res->max_n + 1; T++) {
            if (reads && !reads(ctx, S, T)) continue;
            for (uint32_t k = 0; k < res_ngens(res, S, T); k++) {
                const fm_gen *z = &res->F[S].gens[T][k];
                sec_planes_add_row(planes, res, S - 1, T, z->img, z->bits);
            }
        }
    return planes;
}

/* sec->planes (secondary.h): the homotopy step at target (i, t), i >= 1, in the region reads
 * the composite of g at (i + 1, u) for each term a·g of d z, z a generator of F_{i+2} in degree
 * t + 1 (d2_intermediate), through A(a, -). */
static int d2_reads(const void *ctx, int S, deg_t T)
{
    const secondary *sec = ctx;
    return S >= 3 && lift_map_in_region(&sec->set, 0, S - 2, T - 1);
}

void sec_planes_raise_reach(int8_t *p, uint32_t n, deg_t reach)
{
    for (uint32_t g = 0; p && reach >= 1 && g < n; g++)
        for (int k = 0; k < PAIR_MAX_K; k++) {
            int8_t *l = &p[(size_t)g * PAIR_MAX_K + k];
            if (k == 0 && *l < 0) *l = 0;       /* read */
            for (int m = k + 1; m < PAIR_MAX_K && (1 << m) - (1 << k) <= reach; m++)
                if (*l < m) *l = (int8_t)m;
        }
}

int secondary_step_reads(const void *sec, int S, deg_t T) { return d2_reads(sec, S, T); }

void sec_planes_raise_stem(int8_t **planes, const resolution *res)
{
    deg_t top = 0;                                      /* the largest stem of a generator */
    for (int s = 0; s <= res->max_s; s++)
        for (deg_t T = s; T <= res->max_t; T++)
            if (res_ngens(res, s, T) && T - s > top) top = T - s;
    for (int s = 0; planes && s <= res->max_s; s++)
        for (deg_t T = s; T - s <= res->max_n; T++) {
            deg_t reach = top - (T - s);                /* the largest |a| of a stem >= 0 map's term */
            int8_t *p = planes[res_cell(res, s, T)];
            for (uint32_t g = 0; p && g < res_ngens(res, s, T); g++)
                for (int k = 0; k < PAIR_MAX_K; k++) {
                    int8_t *l = &p[(size_t)g * PAIR_MAX_K + k];
                    if (k == 0 && *l < 0) *l = 0;       /* read */
                    for (int m = k + 1; m < PAIR_MAX_K && (1 << m) - (1 << k) <= reach; m++)
                        if (*l < m) *l = (int8_t)m;
                }
        }
}

void sec_planes_free(int8_t **planes, const resolution *res)
{
    for (size_t c = 0; planes && c < (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1); c++) free(planes[c]);
    free(planes);
}


int secondary_bound_composites(secondary *sec)
{
    sec_planes_free(sec->planes_all, sec->res);
    if (!(sec->planes_all = sec_planes_of_d(sec->res, NULL, NULL))) return -1;
    sec_planes_raise_stem(sec->planes_all, sec->res);
    return 0;
}

int secondary_init(secondary *sec, const resolution *res, const char *outdir, char *error, size_t errlen)
{
    memset(sec, 0, sizeof *sec);
    sec->res = res;
    pthread_mutex_init(&sec->lock, NULL);
    latch_init(&sec->fail);
    pthread_mutex_init(&sec->late_lock, NULL);
    lift_set_init(&sec->set, res, res, outdir ? outdir : "");
    if (res->A.profile.len || res->A.profile.truncated) {
        snprintf(error, errlen, "d2 needs a resolution over the whole Steenrod algebra; this one is over a profile's "
                 "sub-algebra");
        return -2;
    }
    const fd_module *m = res->module;
    if (m && m->has_cofiber) {      /* a cone of complexes: its secondary structure is not M's */
        snprintf(error, errlen, "d2 is for modules; this resolution is of the cofiber of an Ext class (key "
                 "'cofiber'), a complex");
        return -2;
    }
    if (m && !m->fp && !m->rp_open) {   /* h_2 = 0 must be a valid choice (finite modules) */
        int ok2 = 1, ok3 = 1;
        for (deg_t u = m->min_deg; u < m->max_deg; u++) {
            if (!fdm_dim(m, u)) continue;
            ok2 = ok2 && !res_ngens(res, 2, u - res->shift + 1);
            ok3 = ok3 && !res_ngens(res, 3, u - res->shift + 1);
        }
        if (!ok2 && !ok3) {
            snprintf(error, errlen, "%s does not allow the first homotopy to be zero (Ext^{2,t+1} and Ext^{3,t+1} both "
                     "meet its degrees t), which our d2 assumes", res->module_name);
            return -2;
        }
    }
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    sec->comp = calloc(cells, sizeof *sec->comp);
    if (!sec->comp || pair_ay_cache_init(&sec->cache) != 0 || secondary_set_memo(sec, SECONDARY_MEMO_BYTES) != 0)
        goto oom;
    uint8_t none = 0;
    if (lift_add_map(&sec->set, 2, 1, &none, 0, "d2", d2_extra, sec) != 0 ||
        !(sec->planes = sec_planes_of_d(res, d2_reads, sec)))
        goto oom;
    return 0;
oom:
    snprintf(error, errlen, "out of memory setting up d2");
    return -1;
}

void secondary_clear(secondary *sec)
{
    sec_composites_free_all(sec->comp, sec->res);      /* rows 0 and 1: none */
    sec_planes_free(sec->planes, sec->res);
    sec_planes_free(sec->planes_all, sec->res);
    pair_ay_cache_clear(&sec->cache);
    pair_m4_memo_free(sec->m4memo);
    lift_set_clear(&sec->set);
    pthread_mutex_destroy(&sec->lock);
    latch_destroy(&sec->fail);
    pthread_mutex_destroy(&sec->late_lock);
    memset(sec, 0, sizeof *sec);
}

int secondary_set_memo(secondary *sec, size_t bytes)
{
    pair_m4_memo_free(sec->m4memo);
    sec->m4memo = bytes ? pair_m4_memo_new(bytes) : NULL;
    return bytes && !sec->m4memo ? -1 : 0;
}

int secondary_needs_composite(const secondary *sec, int s, deg_t T)
{
    /* read by I(z) for z in F_{s+1} of degree > T, i.e. by homotopy steps at target row s - 1 */
    const resolution *res = sec->res;
    uint32_t n = s >= 2 && s + 1 <= res->max_s && res_is_done(res, s, T) ? res_ngens(res, s, T) : 0;
    const int8_t *p = !n ? NULL : !sec->all_composites ? sec->planes[res_cell(res, s, T)]
                                 : sec->planes_all ? sec->planes_all[res_cell(res, s, T)] : NULL;
    for (uint32_t g = 0; p && g < n; g++)
        if (p[(size_t)g * PAIR_MAX_K] >= 0) return 1;
    return n && !p;
}

void secondary_needed(const secondary *sec, uint8_t *need)
{
    const resolution *res = sec->res;
    for (int s = 2; s <= res->max_s; s++)
        for (deg_t T = s; T - s <= res->max_n; T++) {
            int need1 = secondary_needs_composite(sec, s, T) && sec->all_composites;
            for (deg_t t = T; !need1 && secondary_needs_composite(sec, s, T) && t <= res->max_t; t++)
                need1 = lift_step_pending(&sec->set, s - 1, t);
            need[res_cell(res, s, T)] = (uint8_t)need1;
        }
}

void sec_composites_free_all(sec_composite **comp, const resolution *res)
{
    for (int s = 0; comp && s <= res->max_s; s++)
        for (deg_t T = s; T <= res->max_t && T - s <= res->max_n; T++)
            sec_composites_free(comp[res_cell(res, s, T)], res_ngens(res, s, T));
    free(comp);
}

/* ---- d2's composites -------------------------------------------------------------------------- */

/* The plan of generator gi of F_s in degree T: per generator g' of F_{s-1}, the terms b of d g
 * on g' meet all terms c·g'' of d g' (one group; d g' has no term on a generator of its own
 * degree, so no product hits one). */
static int plan_generator(secondary *sec, sec_batch *bt, int s, deg_t T, uint32_t gi)
{
    const resolution *res = sec->res;
    const fm_gen *g = &res->F[s].gens[T][gi];
    int rc = sec_batch_gen_begin(bt, gi, &res->F[s - 2], T);
    if (!rc && (!bt->planes || bt->planes[(size_t)gi * PAIR_MAX_K] >= 0))   /* (else no step reads it: empty) */
        rc = sec_add_products(bt, &res->F[s - 1], T, g->img, g->bits, 0, sec_image_of_gen, (void *)&res->F[s - 1],
                                   1, 0);
    if (!rc) rc = sec_batch_gen_end(bt, &res->F[s - 2]);
    return rc;
}

sec_batch *secondary_composite_plan(secondary *sec, int s, deg_t T)
{
    const resolution *res = sec->res;
    uint32_t n = res_ngens(res, s, T);
    if (!n || secondary_failed(sec)) return NULL;
    sec_batch *b = malloc(sizeof *b);
    int rc = b ? sec_batch_init(b, &res->A, s, T, n) : -1;
    if (!rc) b->memo = sec->m4memo, b->planes = !sec->all_composites ? sec->planes[res_cell(res, s, T)]
                                                      : sec->planes_all ? sec->planes_all[res_cell(res, s, T)] : NULL;
    for (uint32_t g = 0; g < n && !rc; g++) {
        rc = plan_generator(sec, b, s, T, g);
        if (!rc && sec->y_in_batch) rc = sec_batch_plan_y(b, g);      /* the Y terms go to the multiply too */
    }
    return rc ? sec_plan_failed(b, rc, &sec->fail, "the composites", s, T) : b;
}

int secondary_composite_finish(secondary *sec, sec_batch *b, const char *why)
{
    uint32_t n = b->ngens;
    if (sec_cell_finish(b, why, secondary_failed(sec), &sec->fail, "the composite", "d∘d is not 0 there",
                        &sec->comp[res_cell(sec->res, b->s, b->T)]))
        return -1;
    pthread_mutex_lock(&sec->lock);
    sec->composites += n;
    pthread_mutex_unlock(&sec->lock);
    return 0;
}

/* ---- the composites as bytes (secondary.h) ------------------------------------------------------ */

static int put(FILE *out, const void *p, size_t n) { return fwrite(p, 1, n, out) == n ? 0 : -1; }
static int get(FILE *in, void *p, size_t n) { return fread(p, 1, n, in) == n ? 0 : -1; }

static int put_term(FILE *out, const sec_term *tm)
{
    const pair_elt *e = &tm->e;
    uint32_t head[3] = { (uint32_t)tm->w, tm->index, 0 };
    for (size_t w = 0; w < e->words; w++) head[2] += e->mem[w] != 0;
    int rc = put(out, head, sizeof head);
    for (uint32_t w = 0; w < e->words && !rc; w++)
        if (e->mem[w]) rc = put(out, &w, sizeof w);
    for (size_t w = 0; w < e->words && !rc; w++)
        if (e->mem[w]) rc = put(out, &e->mem[w], sizeof e->mem[w]);
    return rc;
}

int secondary_pack_composites(const secondary *sec, const uint8_t *cells, FILE *out)
{
    const resolution *res = sec->res;
    int rc = 0;
    for (int s = 2; s <= res->max_s && !rc; s++)
        for (deg_t T = s; T - s <= res->max_n && !rc; T++) {
            const sec_composite *c = sec->comp[res_cell(res, s, T)];
            if (!c || !cells[res_cell(res, s, T)]) continue;
            int32_t head[3] = { s, T, (int32_t)res_ngens(res, s, T) };
            rc = put(out, head, sizeof head);
            for (uint32_t g = 0; g < res_ngens(res, s, T) && !rc; g++) {
                rc = put(out, &c[g].n, sizeof c[g].n);
                for (uint32_t k = 0; k < c[g].n && !rc; k++) rc = put_term(out, &c[g].terms[k]);
            }
        }
    return rc;
}

/* One generator's composite at (s, T) from in: 0, -1 out of memory, -2 bytes not of the form. */
static int get_generator(const secondary *sec, int s, deg_t T, FILE *in, sec_composite *c)
{
    const freemod *F2 = &sec->res->F[s - 2];
    uint32_t below = 0, *at = NULL;
    for (deg_t w = 0; w < T && w <= F2->max_t; w++) below += F2->ngens[w];
    if (get(in, &c->n, sizeof c->n) || c->n > below) return c->n = 0, -2;
    if (!(c->terms = calloc(c->n + 1, sizeof *c->terms))) return c->n = 0, -1;
    int rc = 0;
    for (uint32_t k = 0; k < c->n && !rc; k++) {
        sec_term *tm = &c->terms[k];
        uint32_t head[3];
        if (get(in, head, sizeof head) || (deg_t)head[0] >= T || (deg_t)head[0] > F2->max_t ||
            head[1] >= F2->ngens[head[0]]) {
            rc = -2;
            break;
        }
        tm->w = (deg_t)head[0], tm->index = head[1];
        if (pair_elt_init(&tm->e, &sec->res->A, T - tm->w) != 0 || !(at = realloc(at, (head[2] + 1) * sizeof *at))) {
            rc = -1;
            break;
        }
        rc = head[2] > tm->e.words || get(in, at, head[2] * sizeof *at) ? -2 : 0;
        for (uint32_t j = 0; j < head[2] && !rc; j++)
            if (at[j] >= tm->e.words || (j && at[j] <= at[j - 1]) || get(in, &tm->e.mem[at[j]], sizeof *tm->e.mem))
                rc = -2;
    }
    free(at);
    return rc;
}

int secondary_unpack_composites(secondary *sec, FILE *in)
{
    const resolution *res = sec->res;
    int32_t head[3];
    size_t got;
    while ((got = fread(head, 1, sizeof head, in)) == sizeof head) {
        int s = head[0];
        deg_t T = head[1];
        uint32_t n = (uint32_t)head[2];
        if (s < 2 || s > res->max_s || T < s || T - s > res->max_n || !n || n != res_ngens(res, s, T) ||
            sec->comp[res_cell(res, s, T)])
            break;
        sec_composite *c = calloc(n, sizeof *c);
        int rc = c ? 0 : -1;
        for (uint32_t g = 0; g < n && !rc; g++) rc = get_generator(sec, s, T, in, &c[g]);
        if (rc) {
            sec_composites_free(c, n);
            if (rc == -1) latch_set(&sec->fail, "out of memory reading the composites at (s=%d, t=%d)", s, (int)T);
            else latch_set(&sec->fail, "internal error: the composites at (s=%d, t=%d) from another rank are not "
                          "d2's bytes", s, (int)T);
            return -1;
        }
        sec->comp[res_cell(res, s, T)] = c;
        sec->composites += n;
    }
    if (got == 0 && !ferror(in)) return 0;
    latch_set(&sec->fail, "internal error: composites from another rank are not d2's bytes (at a cell's head)");
    return -1;
}

/* ---- the composites as chains --------------------------------------------------------------- */

typedef struct composite_ctx {
    chain ch;
} composite_ctx;

/* The cell's mod-4 batch (NULL: none planned, or handed to the finish). */
static sec_batch *batch_of(const chain *c) { return c->rows.kind == CHAIN_ROWS_MOD4 ? c->rows.mod4 : NULL; }

static int composite_plan(chain *c)
{
    composite_ops *ops = c->owner;
    sec_batch *b = ops->plan(ops->ctx, c->s, c->t);
    c->rows = b ? chain_rows_mod4(b) : CHAIN_NO_ROWS;
    if (b) atomic_fetch_add(&ops->pairs, b->pairs);
    return b || !ops->failed(ops->ctx) ? 0 : -1;
}

static void composite_multiply(chain *c)
{
    composite_ops *ops = c->owner;
    if (sec_batch_multiply(batch_of(c)) != 0) ops->fail(ops->ctx, "out of memory multiplying composites");
}

static int composite_finish(chain *c)
{
    composite_ops *ops = c->owner;
    sec_batch *b = batch_of(c);
    c->rows = CHAIN_NO_ROWS;        /* the finish frees it */
    return b ? ops->finish(ops->ctx, b, NULL) : 0;
}

/* Cells of this many mod-4 products on, with a few generators, split their Y terms. */
#define COMPOSITE_SPLIT_PAIRS 65536
#define COMPOSITE_MAX_PARTS 64

static uint32_t composite_parts(chain *c)
{
    const sec_batch *b = batch_of(c);
    if (!b || b->y_planned || b->ngens < 4 || b->pairs < COMPOSITE_SPLIT_PAIRS) return 0;
    return b->ngens / 2 < COMPOSITE_MAX_PARTS ? b->ngens / 2 : COMPOSITE_MAX_PARTS;
}

static void composite_part(chain *c, uint32_t k, uint32_t n)
{
    composite_ops *ops = c->owner;
    sec_batch *b = batch_of(c);
    uint32_t g0 = (uint32_t)((uint64_t)b->ngens * k / n), g1 = (uint32_t)((uint64_t)b->ngens * (k + 1) / n);
    if (sec_batch_y(b, g0, g1) != 0) ops->fail(ops->ctx, "out of memory adding the composites' Y terms");
}

static void composite_clear(chain *c)
{
    sec_batch *b = batch_of(c);
    if (b) sec_batch_clear(b);
    free(b);
    c->rows = CHAIN_NO_ROWS;
}

static void composite_deps(void *owner, int s, deg_t t, chain_deps *out)
{
    (void)owner, (void)s, (void)t;
    out->n = 0;
}

/* The batch's rows: two planes of the cell's targets per generator, at most; jobs and terms
 * (counted as the pair elements of every d(g) and its products). */
static uint64_t composite_footprint(void *owner, int s, deg_t T)
{
    composite_ops *ops = owner;
    const resolution *res = ops->res;
    uint64_t n = res_ngens(res, s, T), below = s >= 2 ? freemod_dim(&res->F[s - 2], T, T) : 0;
    return 4096 + n * (2 * 8 * ((below + 63) / 64) + 64 * (s >= 1 ? freemod_dim(&res->F[s - 1], T, T) : 0));
}

const chain_kind composite_kind = { "composite", CHAIN_COMPOSITE, sizeof(composite_ctx), composite_plan, NULL,
                                    composite_finish, composite_clear, composite_deps, composite_footprint,
                                    composite_multiply, 0, composite_parts, composite_part, NULL, NULL, NULL, NULL, NULL, NULL };

static chain_at composite_at(void *owner, int s, deg_t T, int layer)
{
    composite_ops *ops = owner;
    const resolution *res = ops->res;
    (void)layer;
    int on = s >= 2 && (ops->only ? T - s <= res->max_n && ops->only[res_cell(res, s, T)] : ops->needs(ops->ctx, s, T));
    return (chain_at){ on ? &composite_kind : NULL, ops };
}
static void composite_fail(void *owner, const char *msg) { ((composite_ops *)owner)->fail(((composite_ops *)owner)->ctx, msg); }
static int composite_failed(void *owner) { return ((composite_ops *)owner)->failed(((composite_ops *)owner)->ctx); }

chain_set composite_chain_set(composite_ops *ops)
{
    return (chain_set){ .owner = ops, .A = &ops->res->A, .max_s = ops->res->max_s, .max_t = ops->res->max_t,
                        .at = composite_at, .fail = composite_fail, .failed = composite_failed,
                        .throttle = 4 };
}

static int sec_needs(const void *ctx, int s, deg_t T) { return secondary_needs_composite(ctx, s, T); }
static sec_batch *sec_plan(void *ctx, int s, deg_t T) { return secondary_composite_plan(ctx, s, T); }
static int sec_finish(void *ctx, sec_batch *b, const char *why) { return secondary_composite_finish(ctx, b, why); }
static int sec_failed(void *ctx) { return secondary_failed(ctx); }
static void sec_fail_msg(void *ctx, const char *msg) { latch_set(&((secondary *)ctx)->fail, "%s", msg); }

/* d2's composite ops over sec. */
static void sec_ops_init(composite_ops *ops, secondary *sec)
{
    *ops = (composite_ops){ .res = sec->res, .ctx = sec, .needs = sec_needs, .plan = sec_plan, .finish = sec_finish,
                            .failed = sec_failed, .fail = sec_fail_msg };
    atomic_init(&ops->pairs, 0);
}

int secondary_run_composites(secondary *sec, const uint8_t *cells, const chain_runner *runner)
{
    composite_ops ops;
    sec_ops_init(&ops, sec);
    ops.only = cells;
    chain_set cs = composite_chain_set(&ops);
    int rc = chain_run(runner, &cs);
    sec->mod4_pairs += atomic_load(&ops.pairs);
    return secondary_failed(sec) ? -1 : rc;
}

/* ---- d2 as one DAG ----------------------------------------------------------------------------
 * Layer 0: the composites at (s, T) that a homotopy step still to compute reads (all of them
 * under all_composites), less those sec->comp holds already (from other ranks); layer 1: the
 * homotopy's lift steps, the step at target (i, t) after the composites at (i + 1, t) (it reads
 * those at (i + 1, u), u <= t: the earlier ones through the steps at (i, u)) and the lift steps
 * before it. A rerun after a stop computes only the
 * composites of the steps not in the stage files, and each step starts as soon as its
 * composites are there. */
typedef struct d2_dag {
    composite_ops ops;
    secondary *sec;
    uint8_t *need;              /* per cell res_cell(s, T): the composites there are computed */
    chain_kind homotopy;        /* the lift's steps, with the composites among their deps */
} d2_dag;

static void homotopy_deps(void *owner, int i, deg_t t, chain_deps *out)
{
    lift_step_kind.deps(owner, i, t, out);
    if (i + 1 >= 2) out->d[out->n++] = (chain_dep){ .family = CHAIN_COMPOSITE, .s = i + 1, .t = t };
}

static chain_at d2_at(void *owner, int s, deg_t t, int layer)
{
    d2_dag *g = owner;
    const resolution *res = g->sec->res;
    if (layer == 0)
        return (chain_at){ s >= 2 && t - s <= res->max_n && g->need[res_cell(res, s, t)] ? &composite_kind : NULL,
                           &g->ops };
    return (chain_at){ lift_in_region(&g->sec->set, s, t) ? &g->homotopy : NULL, &g->sec->set };
}

static int d2_done(void *owner, int family, int s, deg_t t)
{
    d2_dag *g = owner;
    const resolution *res = g->sec->res;
    return family == CHAIN_COMPOSITE && (t - s > res->max_n || !g->need[res_cell(res, s, t)]);
}
static void d2_fail(void *owner, const char *msg) { latch_set(&((d2_dag *)owner)->sec->fail, "%s", msg); }
static int d2_failed(void *owner) { return secondary_failed(((d2_dag *)owner)->sec); }

int secondary_run(secondary *sec, const chain_runner *runner)
{
    const resolution *res = sec->res;
    d2_dag g = { .sec = sec, .homotopy = lift_step_kind };
    sec->set.maps[0].extra_plan = sec->intermediates_cpu ? NULL : d2_extra_plan;
    sec_ops_init(&g.ops, sec);
    g.homotopy.name = "d2_homotopy";
    g.homotopy.deps = homotopy_deps;
    g.need = calloc((size_t)(res->max_s + 1) * ((size_t)res->max_n + 1), 1);
    if (!g.need) {
        latch_set(&sec->fail, "out of memory planning d2");
        return -1;
    }
    secondary_needed(sec, g.need);
    for (size_t c = 0; c < (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1); c++)
        g.need[c] &= !sec->comp[c];             /* given (secondary_unpack_composites): done */
    chain_set cs = { .owner = &g, .A = &res->A, .max_s = res->max_s, .max_t = res->max_t, .layers = 2, .at = d2_at,
                     .done = d2_done, .fail = d2_fail, .failed = d2_failed,
                     .throttle = 4 };
    int rc = chain_run(runner, &cs);
    sec->mod4_pairs += atomic_load(&g.ops.pairs);
    free(g.need);
    return secondary_failed(sec) ? -1 : rc;
}

/* The composites at (s, T): those computed, or (a step whose stage file was found damaged when
 * it was loaded, after the run had left out the composites it reads) computed now, on this
 * thread, once. NULL on failure (sec->fail.msg says why). */
static const sec_composite *composite_now(secondary *sec, int s, deg_t T)
{
    const resolution *res = sec->res;
    size_t cell = res_cell(res, s, T);
    pthread_mutex_lock(&sec->late_lock);
    if (!sec->comp[cell] && secondary_needs_composite(sec, s, T)) {
        sec_batch *b = secondary_composite_plan(sec, s, T);
        if (b && sec_batch_multiply(b) != 0) latch_set(&sec->fail, "out of memory multiplying composites");
        if (b) secondary_composite_finish(sec, b, NULL);
    }
    pthread_mutex_unlock(&sec->late_lock);
    return sec->comp[cell];
}

/* pair_a_plan_lists into a lift step's share: C's lists named by (C, kind, Yt, ydeg). */
typedef struct action_lists {
    lift_share *share;
    uint64_t key[LIFT_SHARE_KEY];
    uint32_t list;              /* the open one */
} action_lists;
static int al_list(void *ctx, int kind)
{
    action_lists *l = ctx;
    l->key[1] = (uint64_t)kind;
    return lift_share_list(l->share, l->key, &l->list);
}
static int al_job(void *ctx, uint32_t r_deg, uint32_t r_idx)
{
    action_lists *l = ctx;
    return lift_share_job(l->share, l->list, r_deg, r_idx);
}

int sec_plan_action(secondary *sec, const sec_composite *c, const milnor_elt *a, uint32_t na, const freemod *Yt,
                    deg_t ydeg, const pair_elt ***es, uint64_t **eoff, uint32_t *ecap, lift_share *share)
{
    if (!c->n || !na) return 0;
    if (c->n > *ecap) {
        const pair_elt **ne = realloc(*es, c->n * sizeof *ne);
        if (ne) *es = ne;
        uint64_t *no = ne ? realloc(*eoff, c->n * sizeof *no) : NULL;
        if (!no) return -1;
        *eoff = no, *ecap = c->n;
    }
    for (uint32_t m = 0; m < c->n; m++) {
        (*es)[m] = &c->terms[m].e;
        (*eoff)[m] = freemod_offset(Yt, ydeg, c->terms[m].w, c->terms[m].index);
    }
    action_lists l = { share, { (uint64_t)(uintptr_t)c, 0, (uint64_t)(uintptr_t)Yt, (uint64_t)ydeg }, 0 };
    pair_a_lists to = { &l, *lift_share_terms(share), al_list, al_job };
    return pair_a_plan_lists(&sec->res->A, &sec->cache, a, na, *es, *eoff, c->n, &to);
}

/* The extra term of the homotopy at target (i, t): I(z_k), z_k the k-th generator of F_s,
 * s = i + 2, in degree T = t + 1, over F_{s-3} in degree t: XORed into y (share NULL), or its
 * products planned into share, A(a, C(g1)) for the terms a·g1 of d z_k on each g1 (sec_plan_action:
 * the step's grouped rows, each job once per step). */
static int d2_intermediate(void *ctx, int i, deg_t t, uint32_t k, uint64_t *y, lift_share *share)
{
    secondary *sec = ctx;
    const resolution *res = sec->res;
    const milnor_basis *A = &res->A;
    int s = i + 2;
    deg_t T = t + 1;
    const freemod *F1 = &res->F[s - 1], *F3 = &res->F[s - 3];
    const fm_gen *z = &res->F[s].gens[T][k];
    uint32_t amax = 1;
    for (deg_t u = 0; u < T; u++)
        if (F1->ngens[u] && A->dim[T - u] > amax) amax = A->dim[T - u];
    milnor_elt *a = malloc((size_t)amax * sizeof *a);
    if (!a) return -1;
    const pair_elt **es = NULL;                 /* the composite's terms and their columns in y */
    uint64_t *eoff = NULL;
    uint32_t ecap = 0;
    uint64_t off = 0;
    int rc = 0;
    for (deg_t u = 0; u < T && !rc; u++) {
        if (!F1->ngens[u]) continue;
        uint32_t blen = A->dim[T - u];
        for (uint32_t g1 = 0; g1 < F1->ngens[u] && !rc; g1++, off += blen) {
            uint32_t na = 0;
            for (uint32_t e = 0; e < blen; e++) {
                uint64_t bit = off + e;
                if (bit < z->bits && (z->img[bit >> 6] >> (bit & 63) & 1)) a[na++] = A->elts[T - u][e];
            }
            if (!na) continue;
            const sec_composite *cells = composite_now(sec, s - 1, u);
            if (!cells) {
                latch_set(&sec->fail, "internal error: d2 needs the composites at (s=%d, t=%d) before they were "
                          "computed", s - 1, (int)u);
                rc = -1;
                break;
            }
            const sec_composite *c = &cells[g1];
            if (share) {
                rc = sec_plan_action(sec, c, a, na, F3, t, &es, &eoff, &ecap, share);
                continue;
            }
            if (c->n > ecap) {
                free(es);
                free(eoff);
                ecap = c->n;
                es = malloc(ecap * sizeof *es);
                eoff = malloc(ecap * sizeof *eoff);
                if (!es || !eoff) {
                    rc = -1;
                    break;
                }
            }
            for (uint32_t m = 0; m < c->n; m++) {
                es[m] = &c->terms[m].e;
                eoff[m] = freemod_offset(F3, t, c->terms[m].w, c->terms[m].index);
            }
            rc = pair_a_mul_add_many(A, &sec->cache, a, na, es, eoff, c->n, y);
        }
    }
    free(a);
    free(es);
    free(eoff);
    if (rc && !secondary_failed(sec))
        latch_set(&sec->fail, "out of memory in d2's intermediate at (s=%d, t=%d)", s, (int)T);
    return rc;
}

static int d2_extra(void *ctx, int i, deg_t t, uint32_t k, void *y) { return d2_intermediate(ctx, i, t, k, y, NULL); }
static int d2_extra_plan(void *ctx, int i, deg_t t, uint32_t k, lift_share *share)
{
    return d2_intermediate(ctx, i, t, k, NULL, share);
}

void secondary_sseq_preimages(secondary *sec, uint64_t qi_bytes)
{
    sec->set.any_preimage = 0;
    if (sec->set.preimage_cache && qi_bytes) preimage_cache_keep_qis(sec->set.preimage_cache, qi_bytes);
}

int secondary_in_range(const secondary *sec, int s, deg_t t)
{
    return s >= 1 && lift_map_in_region(&sec->set, 0, s, t) && sec->set.maps[0].have[lift_cell(&sec->set, s, t)] == 1;
}

int secondary_d2_bit(const secondary *sec, int s, deg_t t, uint32_t i, uint32_t k)
{
    return lift_product_bit(&sec->set, 0, s, t, i, k);
}

/* Calls row(out, sec, n, s, i) for every class in range with a non-zero target bidegree, in
 * sseq's order: source stem, then s, then index. */
static void each_class(FILE *out, const secondary *sec, int nonzero_target_only,
                       void (*row)(FILE *, const secondary *, int, int, uint32_t))
{
    const resolution *res = sec->res;
    for (int n = 0; n <= res->max_n; n++)
        for (int s = 1; s + 2 <= res->max_s; s++) {
            deg_t t = n + s;
            if (!secondary_in_range(sec, s, t)) continue;
            if (nonzero_target_only && !res_ngens(res, s + 2, t + 1)) continue;
            for (uint32_t i = 0; i < res_ngens(res, s, t); i++) row(out, sec, n, s, i);
        }
}

static void csv_row(FILE *out, const secondary *sec, int n, int s, uint32_t i)
{
    uint32_t dim = res_ngens(sec->res, s + 2, n + s + 1);
    fprintf(out, "%d,%d,%u,%d,%d,", n + (int)sec->res->shift, s, i, n - 1 + (int)sec->res->shift, s + 2);
    for (uint32_t k = 0; k < dim; k++) fputc('0' + secondary_d2_bit(sec, s, n + s, i, k), out);
    fputc('\n', out);
}

static void sseq_row(FILE *out, const secondary *sec, int n, int s, uint32_t i)
{
    uint32_t dim = res_ngens(sec->res, s + 2, n + s + 1);
    fprintf(out, "d_2 x_(%d, %d, %u) = [", n + (int)sec->res->shift, s, i);
    for (uint32_t k = 0; k < dim; k++) fprintf(out, "%s%d", k ? ", " : "", secondary_d2_bit(sec, s, n + s, i, k));
    fputs("]\n", out);
}

int secondary_write_csv(FILE *out, const secondary *sec)
{
    fputs("n,s,i,target_n,target_s,value\n", out);
    each_class(out, sec, 0, csv_row);
    return ferror(out) ? -1 : 0;
}

int secondary_write_sseq(FILE *out, const secondary *sec)
{
    each_class(out, sec, 1, sseq_row);
    return ferror(out) ? -1 : 0;
}
