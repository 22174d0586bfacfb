/* secondary_product.c — products in Mod_{Cλ²} (see secondary_product.h). */
#include "stages/d2/secondary_product.h"
#include <stdlib.h>
#include <string.h>

int sec_product_failed(sec_product *p)
{
    return latch_is_set(&p->fail) || lift_failed(&p->prim) || lift_failed(&p->hom);
}

int sec_cell_ready(const lift_set *set, int m, int i, deg_t t)
{
    return i >= 0 && t >= i && lift_map_in_region(set, m, i, t) && set->maps[m].have[lift_cell(set, i, t)] == 1;
}
static int cell_ready(const lift_set *set, int i, deg_t t) { return sec_cell_ready(set, 0, i, t); }

const uint64_t *sec_map_row(const lift_set *set, int mi, int i, deg_t t, uint32_t k, uint32_t *bits)
{
    if (!sec_cell_ready(set, mi, i, t)) return NULL;
    const f2mat *m = &set->maps[mi].val[lift_cell(set, i, t)].f2;
    if (k >= m->rows || !m->cols) return NULL;
    *bits = m->cols;
    return f2mat_row(m, k);
}

/* ---- composites C^f ----------------------------------------------------------------------------- */

static const uint64_t *map_row(const lift_set *set, int i, deg_t t, uint32_t k, uint32_t *bits)
{
    return sec_map_row(set, 0, i, t, k, bits);
}

typedef struct image_ctx {
    const sec_product *p;
    int level;                  /* f_{level} */
} image_ctx;

static const uint64_t *image_f(void *vctx, deg_t u, uint32_t g1, uint32_t *bits)
{
    const image_ctx *c = vctx;
    return map_row(&c->p->prim, c->level, u - c->p->t0, g1, bits);
}

int sec_product_needs_composite(const sec_product *p, int s, deg_t T)
{
    const resolution *res = p->sec->res;
    uint32_t n = s >= p->s0 + 1 && s + 1 <= res->max_s && res_is_done(res, s, T) ? res_ngens(res, s, T) : 0;
    const int8_t *pl = n && p->planes ? p->planes[res_cell(res, s, T)] : NULL;
    int read = 0;                   /* (a cell none of whose generators is read: none planned) */
    for (uint32_t g = 0; pl && g < n && !read; g++) read = pl[(size_t)g * PAIR_MAX_K] >= 0;
    return read && cell_ready(&p->prim, s - p->s0, T - p->t0);
}

sec_batch *sec_product_composite_plan(sec_product *p, int s, deg_t T)
{
    const resolution *res = p->sec->res;
    uint32_t n = res_ngens(res, s, T);
    if (!n || sec_product_failed(p)) return NULL;
    int s0 = p->s0;
    deg_t t0 = p->t0, top = T - t0;
    const freemod *Y = &p->unit->res->F[s - s0 - 1];
    sec_batch *bt = malloc(sizeof *bt);
    int rc = bt ? sec_batch_init(bt, &res->A, s, T, n) : -1;
    if (!rc) bt->memo = p->sec->m4memo, bt->planes = p->planes[res_cell(res, s, T)];
    for (uint32_t g = 0; g < n && !rc; g++) {
        rc = sec_batch_gen_begin(bt, g, Y, top);
        if (!rc && bt->planes[(size_t)g * PAIR_MAX_K] < 0) {        /* nothing reads it: empty */
            rc = sec_batch_gen_end(bt, Y);
            if (!rc && p->sec->y_in_batch) rc = sec_batch_plan_y(bt, g);
            continue;
        }
        /* -σ(a)σ(b): a·g1 in d g (over F_{s-1}), b·g2 in f_{s-1}(g1) */
        image_ctx ca = { p, s - 1 - s0 };
        const fm_gen *z = &res->F[s].gens[T][g];
        if (!rc) rc = sec_add_products(bt, &res->F[s - 1], T, z->img, z->bits, t0, image_f, &ca, 3, 0);
        /* +σ(a)σ(b): a·g1 in f_s(g) (over G_{s-s0}, units included), b·g2 in d g1 */
        uint32_t fb = 0;
        const uint64_t *fg = map_row(&p->prim, s - s0, top, g, &fb);
        const freemod *G = &p->unit->res->F[s - s0];
        if (!rc && fg) rc = sec_add_products(bt, G, top, fg, fb, 0, sec_image_of_gen, (void *)G, 1, 0);
        if (!rc) rc = sec_batch_gen_end(bt, Y);
        if (!rc && p->sec->y_in_batch) rc = sec_batch_plan_y(bt, g);    /* the Y terms go to the multiply too */
    }
    return rc ? sec_plan_failed(bt, rc, &p->fail, "the product's composite", s, T) : bt;
}

int sec_product_composite_finish(sec_product *p, sec_batch *bt, const char *why)
{
    return sec_cell_finish(bt, why, sec_product_failed(p), &p->fail, "the product's composite", "d f != f d there",
                           &p->comp[res_cell(p->sec->res, bt->s, bt->T)]);
}

/* ---- the homotopy H ------------------------------------------------------------------------------ */

/* fn(ctx, C(g1), a, na) for every g1 of X on which v (over X in degree D) has terms, a[0..na)
 * those terms, C(g1) non-zero (sec_add_actions' arguments). 0, fn's failure, -1 out of memory,
 * -2 a missing cell. */
static int each_action(const secondary *sec, sec_composite **comp, const resolution *cres, int s_comp, int zs0,
                       deg_t zt0, const freemod *X, deg_t D, const uint64_t *v, uint64_t vbits,
                       int (*fn)(void *, const sec_composite *, const milnor_elt *, uint32_t), void *ctx)
{
    const milnor_basis *A = &sec->res->A;
    uint32_t amax = 1;
    uint64_t off = 0;
    for (deg_t u = 0; u < D; u++)
        if (X->ngens[u] && A->dim[D - u] > amax) amax = A->dim[D - u];
    milnor_elt *a = malloc((size_t)amax * sizeof *a);
    int rc = a ? 0 : -1;
    for (deg_t u = 0; u < D && !rc && off < vbits; u++) {
        if (!X->ngens[u]) continue;
        uint32_t blen = A->dim[D - u];
        for (uint32_t g1 = 0; g1 < X->ngens[u] && !rc; g1++, off += blen) {
            uint32_t na = 0;
            for (uint32_t e = 0; e < blen; e++)
                if (off + e < vbits && f2vec_get(v, off + e)) a[na++] = A->elts[D - u][e];
            if (!na) continue;
            const sec_composite *cells = comp[res_cell(cres, s_comp, u)];
            if (!cells && zs0 >= 0 && u - zt0 < s_comp - zs0) continue;   /* the map is 0 there: so is C */
            rc = !cells ? -2 : cells[g1].n ? fn(ctx, &cells[g1], a, na) : 0;
        }
    }
    free(a);
    return rc;
}

/* Into a lift step's share (sec_plan_action). */
typedef struct plan_ctx {
    secondary *sec;
    const freemod *Yt;
    deg_t ydeg;
    lift_share *share;
    const pair_elt **es;
    uint64_t *eoff;
    uint32_t ecap;
} plan_ctx;
static int plan_one(void *ctx, const sec_composite *c, const milnor_elt *a, uint32_t na)
{
    plan_ctx *p = ctx;
    return sec_plan_action(p->sec, c, a, na, p->Yt, p->ydeg, &p->es, &p->eoff, &p->ecap, p->share);
}

/* Into one batch: a set per g1 (its terms a, every term of C(g1)), the arrays grown as they come
 * (the sets' pointers set once they are all there). */
typedef struct sets_ctx {
    const freemod *Yt;
    deg_t ydeg;
    milnor_elt *a;
    const pair_elt **es;
    uint64_t *eoff;
    pair_a_set *sets;
    size_t *at;                 /* per set: its first a and its first e */
    size_t na, acap, ne, escap, eoffcap, nsets, scap, atcap;
} sets_ctx;
static int grow_to(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}
static int add_set(void *ctx, const sec_composite *c, const milnor_elt *a, uint32_t na)
{
    sets_ctx *x = ctx;
    if (grow_to((void **)&x->a, &x->acap, x->na + na, sizeof *x->a) != 0 ||
        grow_to((void **)&x->es, &x->escap, x->ne + c->n, sizeof *x->es) != 0 ||
        grow_to((void **)&x->eoff, &x->eoffcap, x->ne + c->n, sizeof *x->eoff) != 0 ||
        grow_to((void **)&x->sets, &x->scap, x->nsets + 1, sizeof *x->sets) != 0 ||
        grow_to((void **)&x->at, &x->atcap, 2 * (x->nsets + 1), sizeof *x->at) != 0)
        return -1;
    memcpy(x->a + x->na, a, na * sizeof *a);
    for (uint32_t m = 0; m < c->n; m++) {
        x->es[x->ne + m] = &c->terms[m].e;
        x->eoff[x->ne + m] = freemod_offset(x->Yt, x->ydeg, c->terms[m].w, c->terms[m].index);
    }
    x->sets[x->nsets] = (pair_a_set){ NULL, na, c->n, NULL, NULL };     /* pointers set at the end */
    x->at[2 * x->nsets] = x->na, x->at[2 * x->nsets + 1] = x->ne;
    x->nsets++, x->na += na, x->ne += c->n;
    return 0;
}

int sec_add_actions(secondary *sec, sec_composite **comp, const resolution *cres, int s_comp, int zs0, deg_t zt0,
                    const freemod *X, deg_t D, const uint64_t *v, uint64_t vbits, const freemod *Yt, deg_t ydeg,
                    uint64_t *y, lift_share *share)
{
    if (share) {
        plan_ctx p = { sec, Yt, ydeg, share, NULL, NULL, 0 };
        int rc = each_action(sec, comp, cres, s_comp, zs0, zt0, X, D, v, vbits, plan_one, &p);
        free(p.es), free(p.eoff);
        return rc;
    }
    sets_ctx x = { .Yt = Yt, .ydeg = ydeg };
    int rc = each_action(sec, comp, cres, s_comp, zs0, zt0, X, D, v, vbits, add_set, &x);
    for (size_t k = 0; k < x.nsets && !rc; k++) {
        pair_a_set *t = &x.sets[k];
        t->a = x.a + x.at[2 * k], t->e = x.es + x.at[2 * k + 1], t->col_offset = x.eoff + x.at[2 * k + 1];
    }
    if (!rc && x.nsets) rc = pair_a_mul_add_sets(&sec->res->A, &sec->cache, x.sets, (uint32_t)x.nsets, y);
    free(x.a), free(x.es), free(x.eoff), free(x.sets), free(x.at);
    return rc;
}

int sec_wide_init(f2mat *wide, const freemod *Yt, deg_t t)
{
    return f2mat_init(wide, 1, (uint32_t)freemod_dim(Yt, t, t + 1));
}

int sec_wide_end(f2mat *wide, const freemod *Yt, deg_t t, uint64_t *y, int take)
{
    uint32_t ywidth = (uint32_t)freemod_dim(Yt, t, t);
    const uint64_t *w = f2mat_row(wide, 0);
    int meets = 0;
    for (uint32_t b = ywidth; b < wide->cols && take && !meets; b++) meets = f2vec_get(w, b) != 0;
    for (uint32_t b = 0; b < ywidth && take && !meets; b++)
        if (f2vec_get(w, b)) f2vec_flip(y, b);
    f2mat_clear(wide);
    return meets;
}

int sec_apply_row(lift_set *set, int m, int j, deg_t T, const uint64_t *row, uint32_t bits, f2mat *wide)
{
    fieldmat V, Y;
    if (fieldmat_init(&V, 2, 1, bits) != 0) return -1;
    memcpy(f2mat_row(&V.f2, 0), row, f2vec_words(bits) * 8);
    if (fieldmat_init(&Y, 2, 1, wide->cols) != 0) {
        fieldmat_clear(&V);
        return -1;
    }
    int rc = lift_apply(set, &set->maps[m], j, T, &V, &Y);
    if (!rc) f2vec_xor(f2mat_row(wide, 0), f2mat_row(&Y.f2, 0), f2vec_words(wide->cols));
    fieldmat_clear(&V);
    fieldmat_clear(&Y);
    return rc;
}

/* The terms `what` (SEC_TERMS_*) of I^f(z_k) for z_k the k-th generator of F_s, s = s0 + 1 + i,
 * in degree T = t + t0 + 1: into y over G_{s-s0-2} = G_{i-1} in degree t, generators below t,
 * or (the actions alone) planned into sink. */
static int product_terms(sec_product *p, int i, deg_t t, uint32_t k, uint64_t *y, lift_share *sink, int what)
{
    secondary *sec = p->sec, *unit = p->unit;
    const resolution *res = sec->res, *ures = unit->res;
    int s0 = p->s0, s = s0 + 1 + i;
    deg_t t0 = p->t0, T = t + t0 + 1, D = T - t0;
    const freemod *Yt = &ures->F[i - 1];
    f2mat wide = { 0 };
    if (!sink && sec_wide_init(&wide, Yt, t) != 0) return -1;
    uint64_t *w = sink ? NULL : f2mat_row(&wide, 0);
    uint32_t fb = 0, hb = 0;
    const uint64_t *fz = map_row(&p->prim, s - s0, D, k, &fb);
    int rc = 0;
    if (what & SEC_TERMS_ACTIONS) {
        /* A(a, C^f(g1)) over the terms of d z, A(a, C^G(g1)) over the terms of f_s(z) */
        const fm_gen *z = &res->F[s].gens[T][k];
        rc = sec_add_actions(sec, p->comp, res, s - 1, s0, t0, &res->F[s - 1], T, z->img, z->bits, Yt, t, w, sink);
        if (!rc && fz)
            rc = sec_add_actions(sec, unit->comp, ures, s - s0, -1, 0, &ures->F[s - s0], D, fz, fb, Yt, t, w, sink);
    }
    if (what & SEC_TERMS_REST) {
        /* h^G(f_s(z)), f(h^F(z)) */
        if (!rc && fz) rc = sec_apply_row(&unit->set, 0, s - s0 - 2, D, fz, fb, &wide);
        const uint64_t *hz = map_row(&sec->set, s - 2, T - 1, k, &hb);
        if (!rc && hz) rc = sec_apply_row(&p->prim, 0, s - 2 - s0, T - 1, hz, hb, &wide);
    }
    if (!sink && sec_wide_end(&wide, Yt, t, y, !rc)) rc = -3;
    if (rc == -2)
        latch_set(&p->fail, "internal error: the product needs composites not computed (at s=%d, t=%d)", s, (int)T);
    else if (rc == -3)
        latch_set(&p->fail, "internal error: the product's intermediate at (s=%d, t=%d) meets a generator", s, (int)T);
    else if (rc) latch_set(&p->fail, "out of memory in the product's intermediate at (s=%d, t=%d)", s, (int)T);
    return rc ? -1 : 0;
}

static int product_extra(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    return product_terms(ctx, i, t, k, y, NULL, SEC_TERMS_ALL);
}
static int product_extra_plan(void *ctx, int i, deg_t t, uint32_t k, lift_share *sink)
{
    return product_terms(ctx, i, t, k, NULL, sink, SEC_TERMS_ACTIONS);
}
static int product_extra_rest(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    return product_terms(ctx, i, t, k, y, NULL, SEC_TERMS_REST);
}

/* H's step at target (i, t) also needs h^F at (s-2, T-1) and h^G at (i-1, t) = (s-s0-2, D-1). */
static int product_in_region(void *ctx, int i, deg_t t)
{
    const sec_product *p = ctx;
    if (i == 0) return 1;
    int s = p->s0 + 1 + i;
    deg_t T = t + p->t0 + 1;
    return cell_ready(&p->sec->set, s - 2, T - 1) && cell_ready(&p->unit->set, i - 1, t) &&
           cell_ready(&p->prim, s - p->s0, T - p->t0);
}

int sec_product_init(sec_product *p, secondary *sec, secondary *unit, int s0, deg_t t0, const uint8_t *coords,
                     uint32_t n, const char *outdir, char *error, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->sec = sec;
    p->unit = unit;
    p->s0 = s0, p->t0 = t0;
    latch_init(&p->fail);
    const resolution *res = sec->res, *ures = unit->res;
    lift_set_init(&p->prim, res, ures, outdir);
    lift_set_init(&p->hom, res, ures, outdir);
    lift_set_share_preimages(&p->prim, &unit->set);   /* G's d_i: one cache (its quasi-inverses) */
    lift_set_share_preimages(&p->hom, &unit->set);
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    p->comp = calloc(cells, sizeof *p->comp);
    /* f under a key of its own ("d2f-<class>"): homotopies read f off the generators' units, so
     * it must be the lift with sseq's preimages, never a file `products` wrote (another preimage,
     * the same products) */
    lift_set named;             /* only to name the class as lift_add_class does */
    lift_set_init(&named, res, ures, "");
    int m = p->comp ? lift_add_class(&named, s0, t0, coords, n) : -1;
    char key[160], fkey[160];
    snprintf(fkey, sizeof fkey, "d2f-%.100s", m == 0 ? named.maps[0].key : "");
    snprintf(key, sizeof key, "d2prod-%.100s", m == 0 ? named.maps[0].key : "");
    lift_set_clear(&named);
    if (m == 0) m = lift_add_map(&p->prim, s0, t0, coords, n, fkey, NULL, NULL);
    uint32_t nb = res_ngens(res, s0 + 1, t0 + 1);
    uint8_t *zero = calloc((size_t)nb + 1, 1);
    int h = m == 0 && zero ? lift_add_map(&p->hom, s0 + 1, t0 + 1, zero, nb, key, product_extra, p) : -1;
    free(zero);
    if (h != 0) {
        snprintf(error, errlen, "out of memory setting up the secondary product");
        return -1;
    }
    p->hom.maps[0].in_region = product_in_region;
    if (!sec->intermediates_cpu) {   /* the actions as rows of the step's multiply tasks */
        p->hom.maps[0].extra_plan = product_extra_plan;
        p->hom.maps[0].extra_rest = product_extra_rest;
    }
    return 0;
}

void sec_product_clear(sec_product *p)
{
    if (p->sec) sec_composites_free_all(p->comp, p->sec->res);
    else free(p->comp);
    if (p->sec) sec_planes_free(p->planes, p->sec->res);
    lift_set_clear(&p->prim);
    lift_set_clear(&p->hom);
    latch_destroy(&p->fail);
    memset(p, 0, sizeof *p);
}

static int ops_needs(const void *ctx, int s, deg_t T) { return sec_product_needs_composite(ctx, s, T); }
static sec_batch *ops_plan(void *ctx, int s, deg_t T) { return sec_product_composite_plan(ctx, s, T); }
static int ops_finish(void *ctx, sec_batch *b, const char *why) { return sec_product_composite_finish(ctx, b, why); }
static int ops_failed(void *ctx) { return sec_product_failed(ctx); }
static void ops_fail(void *ctx, const char *msg) { latch_set(&((sec_product *)ctx)->fail, "%s", msg); }

/* H's step on z at (S, T) (target (S - s0 - 1, T - t0 - 1), i >= 1) reads C^f through d z. Exact
 * once f, h^F and h^G have run (product_in_region). */
static int hom_reads(const void *ctx, int S, deg_t T)
{
    const sec_product *p = ctx;
    int i = S - p->s0 - 1;
    return i >= 1 && lift_map_in_region(&p->hom, 0, i, T - p->t0 - 1);
}

int sec_product_may_read(const sec_product *p, int S, deg_t T)
{
    int i = S - p->s0 - 1;
    deg_t t = T - p->t0 - 1;
    return i >= 1 && t >= i && i <= p->hom.maps[0].max_i && res_is_done(p->hom.tgt, i, t) &&
           res_is_done(p->hom.src, S, T) && lift_map_in_region(&p->sec->set, 0, S - 2, T - 1) &&
           lift_map_in_region(&p->unit->set, 0, i - 1, t) && cell_ready(&p->prim, S - p->s0, T - p->t0);
}

void sec_product_planes_of_f(const sec_product *p, int8_t **planes)
{
    const resolution *res = p->sec->res;
    for (int S = p->s0 + 2; S <= res->max_s; S++)
        for (deg_t T = S; T - S <= res->max_n; T++) {
            if (!sec_product_may_read(p, S, T)) continue;
            for (uint32_t k = 0; k < res_ngens(res, S, T); k++) {
                uint32_t bits = 0;
                const uint64_t *f = map_row(&p->prim, S - p->s0, T - p->t0, k, &bits);
                if (f) sec_planes_add_row(planes, p->unit->res, S - p->s0, T - p->t0, f, bits);
            }
        }
}

int sec_product_run_prim(sec_product *p, const chain_runner *runner)
{
    int rc = p->prim_done ? 0 : lift_run(&p->prim, runner);
    p->prim_done = rc == 0;
    return rc;
}

int sec_product_run(sec_product *p, const chain_runner *runner)
{
    int rc = sec_product_run_prim(p, runner);
    if (rc != 0) return rc;
    /* C^f keeps the planes H's steps read (their z: those with h^F there, stems below the top) */
    sec_planes_free(p->planes, p->sec->res);
    p->planes = sec_planes_of_d(p->sec->res, hom_reads, p);
    if (p->planes && p->more_planes) p->more_planes(p->more_ctx, p);
    if (!p->planes) {
        latch_set(&p->fail, "out of memory planning the product's composites");
        return -1;
    }
    composite_ops ops = { .res = p->sec->res, .ctx = p, .needs = ops_needs, .plan = ops_plan, .finish = ops_finish,
                          .failed = ops_failed, .fail = ops_fail };
    atomic_init(&ops.pairs, 0);
    chain_set cs = composite_chain_set(&ops);
    rc = chain_run(runner, &cs);
    p->sec->mod4_pairs += atomic_load(&ops.pairs);     /* d2's line: its memo's hits count these too */
    if (rc != 0 || sec_product_failed(p)) return sec_product_failed(p) ? -1 : rc;
    rc = lift_run(&p->hom, runner);
    return sec_product_failed(p) ? -1 : rc;
}

/* ---- reading products off ------------------------------------------------------------------------- */

int sec_product_survives(const sec_product *p)
{
    const secondary *sec = p->sec;
    const lift_map *f = &p->prim.maps[0];
    if (!secondary_in_range(sec, f->s0, f->t0)) return 1;
    for (uint32_t k = 0; k < res_ngens(sec->res, f->s0 + 2, f->t0 + 1); k++) {
        int bit = 0;
        for (uint32_t i = 0; i < f->nclass; i++) bit ^= f->coords[i] & secondary_d2_bit(sec, f->s0, f->t0, i, k);
        if (bit) return 0;
    }
    return 1;
}

/* The classes y of E3 at the unit's (s, t) as sseq lists them (its subquotient's generators, then
 * its zeros): with K = ker d2 there (ker, in RREF) and Z = the image of the d2 that lands there,
 * first the non-zero rows of the RREF of K reduced modulo Z's RREF, then Z's RREF. Both together
 * span K; Z ⊂ K. e3 is initialised here (rows = dim K, cols = dim). Returns 0, or -1. */
static int e3_basis(const secondary *unit, int s, deg_t t, uint32_t dim, const f2mat *ker, f2mat *e3)
{
    const resolution *ures = unit->res;
    uint32_t nz = s - 2 >= 1 && secondary_in_range(unit, s - 2, t - 1) ? res_ngens(ures, s - 2, t - 1) : 0;
    f2mat z = { 0 }, g = { 0 };
    int32_t *zpiv = calloc((size_t)dim + 1, sizeof *zpiv), *gpiv = calloc((size_t)dim + 1, sizeof *gpiv);
    int rz = -1, rg = -1;
    if (zpiv && gpiv && f2mat_init(&z, nz, dim) == 0 && f2mat_copy(&g, ker) == 0 &&
        f2mat_init(e3, ker->rows, dim) == 0) {
        for (uint32_t j = 0; j < nz; j++)
            for (uint32_t k = 0; k < dim; k++) f2mat_set(&z, j, k, secondary_d2_bit(unit, s - 2, t - 1, j, k));
        rz = f2mat_rref(&z, zpiv);
        for (uint32_t r = 0; rz >= 0 && r < g.rows; r++)
            for (uint32_t c = 0; c < dim; c++)
                if (zpiv[c] >= 0 && f2mat_get(&g, r, c)) f2vec_xor(f2mat_row(&g, r), f2mat_row(&z, (uint32_t)zpiv[c]), g.stride);
        rg = rz < 0 ? -1 : f2mat_rref(&g, gpiv);
    }
    int rc = rz < 0 || rg < 0 || (uint32_t)(rg + rz) != ker->rows ? -1 : 0;
    for (uint32_t r = 0; !rc && r < ker->rows; r++) {
        const uint64_t *src = r < (uint32_t)rg ? f2mat_row(&g, r) : f2mat_row(&z, r - (uint32_t)rg);
        memcpy(f2mat_row(e3, r), src, (size_t)e3->stride * sizeof *src);
    }
    f2mat_clear(&z), f2mat_clear(&g);
    free(zpiv), free(gpiv);
    return rc;
}

static void print_vec(FILE *out, const uint8_t *v, uint32_t n)
{
    fputc('[', out);
    for (uint32_t k = 0; k < n; k++) fprintf(out, "%s%d", k ? ", " : "", v[k]);
    fputc(']', out);
}

int sec_product_write(FILE *out, const sec_product *p, const char *name)
{
    const secondary *sec = p->sec, *unit = p->unit;
    const resolution *res = sec->res, *ures = unit->res;
    int s0 = p->s0;
    deg_t t0 = p->t0;
    int shift = (int)ures->shift;
    /* y runs over the unit's classes (G); x·y and the λ part are classes of F */
    for (int n = 0; n <= ures->max_n; n++)
        for (int s = 0; s <= ures->max_s; s++) {
            deg_t t = n + s;
            uint32_t dim = res_ngens(ures, s, t);
            if (!dim || !res_is_done(ures, s, t)) continue;
            int sx = s + s0, sl = sx + 1;
            deg_t tx = t + t0, tl = tx + 1;
            if (!res_is_done(res, sl, tl) || !res_is_done(res, sx - 1, tx)) continue;
            uint32_t nx = res_ngens(res, sx, tx), nl = res_ngens(res, sl, tl);
            if (!nx && !nl) continue;
            /* the kernel of d2 at (s, t), in RREF (f2mat), and the indices off its pivots */
            uint32_t nd = secondary_in_range(unit, s, t) ? res_ngens(ures, s + 2, t + 1) : 0;
            uint32_t nsrc = sl - 2 >= 1 && secondary_in_range(sec, sl - 2, tl - 1) ? res_ngens(res, sl - 2, tl - 1) : 0;
            f2mat d2 = { 0 }, aug = { 0 }, ker = { 0 }, img = { 0 }, e3 = { 0 };
            int32_t *piv = NULL, *ipiv = calloc((size_t)nl + 1, sizeof *ipiv);
            uint8_t *ext = calloc((size_t)nx + 1, 1), *lam = calloc((size_t)nl + 1, 1);
            int *scratch = calloc((size_t)nx + 1, sizeof *scratch), rank = -1, ir = 0;
            if (ipiv && ext && lam && scratch && f2mat_init(&d2, dim, nd) == 0 && f2mat_init(&img, nsrc, nl) == 0) {
                for (uint32_t i = 0; i < dim; i++)
                    for (uint32_t k = 0; k < nd; k++) f2mat_set(&d2, i, k, secondary_d2_bit(unit, s, t, i, k));
                /* the image of d2 into the λ bidegree, in RREF */
                for (uint32_t j = 0; j < nsrc; j++)
                    for (uint32_t k = 0; k < nl; k++) f2mat_set(&img, j, k, secondary_d2_bit(sec, sl - 2, tl - 1, j, k));
                rank = f2mat_rref_augmented(&d2, &aug, &piv);
                ir = rank < 0 ? -1 : f2mat_rref(&img, ipiv);
            }
            if (rank < 0 || ir < 0 || f2mat_kernel_from_rref(&aug, nd, (uint32_t)rank, piv, &ker) != 0 ||
                e3_basis(unit, s, t, dim, &ker, &e3) != 0) {
                f2mat_clear(&d2), f2mat_clear(&aug), f2mat_clear(&ker), f2mat_clear(&img), f2mat_clear(&e3);
                free(piv), free(ipiv), free(ext), free(lam), free(scratch);
                return -1;
            }
            /* classes that support a d2: λ times the ordinary product (i off the kernel's pivots) */
            for (uint32_t i = 0, r = 0; nx && i < dim; i++) {
                if (r < ker.rows && f2vec_first_bit(f2mat_row(&ker, r), dim) == (int64_t)i) {
                    r++;
                    continue;
                }
                fprintf(out, "[%s] λ x_(%d, %d, %u) = λ ", name, n + shift, s, i);
                for (uint32_t k = 0; k < nx; k++) ext[k] = (uint8_t)lift_product_bit(&p->prim, 0, s, t, i, k);
                print_vec(out, ext, nx);
                fputc('\n', out);
            }
            int sign = (s0 * t) % 2 ? 3 : 1;
            for (uint32_t r = 0; r < e3.rows; r++) {
                const uint64_t *y = f2mat_row(&e3, r);
                memset(scratch, 0, (size_t)nx * sizeof *scratch);
                memset(lam, 0, nl);
                for (uint32_t i = 0; i < dim; i++) {
                    if (!f2vec_get(y, i)) continue;
                    for (uint32_t k = 0; k < nx; k++) scratch[k] += lift_product_bit(&p->prim, 0, s, t, i, k) * sign;
                    for (uint32_t k = 0; k < nl; k++) lam[k] ^= (uint8_t)lift_product_bit(&p->hom, 0, s, t, i, k);
                }
                for (uint32_t k = 0; k < nx; k++) {
                    ext[k] = (uint8_t)(scratch[k] % 2);
                    if ((scratch[k] / 2) % 2)       /* the carry: λ h0 times generator k */
                        for (uint32_t k2 = 0; k2 < nl; k2++) {
                            const fm_gen *zz = &res->F[sl].gens[tl][k2];
                            uint64_t bit = freemod_offset(&res->F[sx], tl, tx, k);   /* Sq(1)·g_k */
                            if (bit < zz->bits && f2vec_get(zz->img, bit)) lam[k2] ^= 1;
                        }
                }
                for (uint32_t c = 0; c < nl; c++)     /* λ's class modulo the image of d2 */
                    if (ipiv[c] >= 0 && lam[c])
                        for (uint32_t k = 0; k < nl; k++) lam[k] ^= (uint8_t)f2mat_get(&img, (uint32_t)ipiv[c], k);
                fprintf(out, "[%s] [", name);
                for (uint32_t i = 0, first = 1; i < dim; i++)
                    if (f2vec_get(y, i)) {
                        fprintf(out, "%sx_(%d, %d, %u)", first ? "" : " + ", n + shift, s, i);
                        first = 0;
                    }
                fputs("] = ", out);
                print_vec(out, ext, nx);
                fputs(" + λ ", out);
                print_vec(out, lam, nl);
                fputc('\n', out);
            }
            f2mat_clear(&d2), f2mat_clear(&aug), f2mat_clear(&ker), f2mat_clear(&img), f2mat_clear(&e3);
            free(piv), free(ipiv), free(ext), free(lam), free(scratch);
        }
    return ferror(out) ? -1 : 0;
}
