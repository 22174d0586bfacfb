/* lift_p.c — what the lift step does differently at an odd prime (lift.h, "Odd primes"): the
 * products f_{i-1}(d z) by Milnor products mod p, and the solve of d_i over F_p. The step's
 * frame (load, bottom row, stacking, files) is lift.c's, at every prime; this file calls none
 * of lift.c (a failure goes into the set's latch), so lift.c sits above it.
 *
 * Products (i, t), for a map computing here: y_k = f_{i-1}(d z_k) for the generators z_k of
 * source F_{s0+i} in degree T = t + t0. Each term c·x·g' of d z_k (x in B, g' a generator of
 * source F_{s0+i-1}) gives c·x·f(g'), and f(g') is row g' of the map's cell (i-1, |g'| - t0), a
 * sum of terms e·y·h over target F_{i-1}: so c·e·(x·y) lands in h's block of F_{i-1} in degree
 * t (res_p_row_add, the product a differential's rows are made of).
 * Solve: D = the matrix of d_i on F_{i,t} (a row x·d(h) per basis element x·h, generators of
 * degree <= t, in freemod's order: the cell's columns), the RREF of [D | 0 | I]; every y is
 * reduced by the pivot rows of D, whose I parts add up to a preimage x (x·D = y), and a y that
 * leaves a remainder is not in the image: an internal error naming the map and bidegree. At
 * i = 0 (a map of modules' bottom row) D is the augmentation's matrix on F_{0,t}, rows x·ε(h)
 * over the module in degree t. Unstable (resolve --unstable): the blocks list the excess order's
 * prefix (freemod_block, excess_index), the products land over A_p's whole blocks (the offsets
 * res_p_terms gives) and the y and D are narrowed to the kept columns (freemod_narrow_p). */
#include "stages/products/lift.h"
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/resolution_p.h"

/* Growable array of the terms of one element (res_p_term). */
typedef struct term_buf {
    res_p_term *v;
    size_t n, cap;
} term_buf;

static int terms_room(term_buf *b, size_t need)
{
    if (need <= b->cap) return 0;
    res_p_term *nv = realloc(b->v, need * sizeof *nv);
    if (!nv) return -1;
    b->v = nv;
    b->cap = need;
    return 0;
}

/* The element of B that the e-th entry of a block of F in degree d above a generator of
 * degree u stands for: e itself, or over an unstable F the e-th of the excess order. */
static const milnor_p_elt *block_elt(const milnor_p_sub *B, const freemod *F, deg_t d, uint32_t e)
{
    return milnor_p_sub_elt(B, d, F->ex ? excess_index(F->ex, d, e) : e);
}

/* The terms e·y·h of f(g') (row g of map f's cell at target (j, v)), placed in target F_j in
 * degree t (columns: h's block there, over the whole of A_p's blocks where F_j is unstable, as
 * res_p_terms places them). 0, or -1 out of memory. */
static int image_terms(const lift_set *set, const fpmat *fv, uint32_t g, int j, deg_t v, deg_t t, term_buf *out)
{
    const resolution *tgt = set->tgt;
    const freemod *G = &tgt->F[j];
    const milnor_p_sub *B = &tgt->odd->B;
    const uint8_t *row = fpmat_row(fv, g);
    out->n = 0;
    uint64_t off = 0;
    for (deg_t w = 0; w <= v; w++)
        for (uint32_t h = 0; h < G->ngens[w]; h++) {
            uint64_t col = G->ex ? freemod_dim_wide(G, t, w) + (uint64_t)h * G->dim[t - w] : freemod_offset(G, t, w, h);
            for (uint32_t e = 0, n = freemod_block(G, v - w, w); e < n; e++, off++) {
                if (off >= fv->cols || !row[off]) continue;
                if (terms_room(out, out->n + 1) != 0) return -1;
                out->v[out->n++] = (res_p_term){ col, block_elt(B, G, v - w, e), row[off] };
            }
        }
    return 0;
}

/* y += f_j(v), v an element of source F_{s0+j} in degree T (an image d z: entries over the
 * source's basis there, generators of degree < T), y over target F_j in degree T - t0. 0, or
 * -1 after a failure in the set's latch. */
static int apply_p(lift_set *set, const lift_map *f, int j, deg_t T, const uint8_t *v, uint32_t vlen, uint8_t *y,
                   term_buf *tb)
{
    const resolution *src = set->src, *tgt = set->tgt;
    const freemod *S = &src->F[f->s0 + j];
    const milnor_p_sub *Bs = &src->odd->B;
    deg_t t = T - f->t0;
    uint32_t p = set->prime;
    uint64_t base = 0;
    for (deg_t u = 0; u < T && base < vlen; u++)
        for (uint32_t g = 0; g < S->ngens[u] && base < vlen; g++) {
            uint32_t blen = freemod_block(S, T - u, u);
            int used = 0;
            for (uint32_t e = 0; e < blen && base + e < vlen && !used; e++) used = v[base + e] != 0;
            deg_t w = u - f->t0;                    /* degree of f(g') in target F_j */
            if (!used || w < j) {                   /* f(g') = 0 below degree j */
                base += blen;
                continue;
            }
            size_t cell = lift_cell(set, j, w);
            if (f->have[cell] != 1) {
                latch_set(&set->fail, "lift: a step needs map %s at target (%d, %d) before it has run", f->key, j, (int)w);
                return -1;
            }
            const fpmat *fv = &f->val[cell].fp;
            if (!fv->rows) {
                base += blen;
                continue;
            }
            if (image_terms(set, fv, g, j, w, t, tb) != 0) {
                latch_set(&set->fail, "out of memory lifting at target (%d, %d)", j + 1, (int)t);
                return -1;
            }
            for (uint32_t e = 0; e < blen && base + e < vlen; e++)
                if (v[base + e] && res_p_row_add(tgt, tb->v, tb->n, block_elt(Bs, S, T - u, e), v[base + e] % p, y)) {
                    latch_set(&set->fail, "lifting %s at target (%d, %d): a product leaves the profile's algebra", f->key,
                              j + 1, (int)t);
                    return -1;
                }
            base += blen;
        }
    return 0;
}

int lift_apply_p(lift_set *set, const lift_map *f, int j, deg_t T, const uint8_t *v, uint32_t vlen, uint8_t *y)
{
    term_buf tb = { 0 };
    int rc = apply_p(set, f, j, T, v, vlen, y, &tb);
    free(tb.v);
    return rc;
}

int lift_products_p(lift_set *set, const lift_map *f, int i, deg_t t, fpmat *Y)
{
    int s = f->s0 + i;
    deg_t T = t + f->t0;
    uint32_t width = (uint32_t)freemod_dim(&set->src->F[s - 1], T, T);
    const freemod *G = &set->tgt->F[i - 1];
    term_buf tb = { 0 };
    fpmat W = { 0 };            /* unstable target: the products over A_p's whole blocks, narrowed */
    int rc = G->ex && fpmat_init(&W, set->prime, Y->rows, (uint32_t)freemod_dim_wide(G, t, t)) != 0 ? -1 : 0;
    if (rc) latch_set(&set->fail, "out of memory lifting at target (%d, %d)", i, (int)t);
    for (uint32_t k = 0; k < Y->rows && !rc; k++) {
        const fm_gen *z = &set->src->F[s].gens[T][k];
        rc = apply_p(set, f, i - 1, T, z->img_p, z->bits < width ? z->bits : width,
                     fpmat_row(G->ex ? &W : Y, k), &tb);
    }
    if (!rc && G->ex) {
        if ((rc = freemod_narrow_p(G, t, t, &W)) != 0) latch_set(&set->fail, "out of memory lifting at target (%d, %d)", i, (int)t);
        for (uint32_t k = 0; k < Y->rows && !rc; k++) memcpy(fpmat_row(Y, k), fpmat_row(&W, k), Y->cols);
    }
    for (uint32_t k = 0; k < Y->rows && !rc && f->extra_p; k++) {
        uint8_t *y = fpmat_row(Y, k);
        for (uint32_t c = 0; c < Y->cols; c++) y[c] = (uint8_t)((set->prime - y[c]) % set->prime);
        if ((rc = f->extra_p(f->extra_ctx, i, t, k, y)) != 0 && !latch_is_set(&set->fail))
            latch_set(&set->fail, "lifting %s at target (%d, %d) failed", f->key, i, (int)t);
    }
    fpmat_clear(&W);
    free(tb.v);
    return rc;
}

/* The matrix of d_i on F_{i,t} (generators of degree <= t) into D, initialised here: a row
 * x·d(h) per basis element x·h, over F_{i-1} in degree t (generators below t), or at i = 0 the
 * augmentation's x·ε(h) over the module in degree t. Over an unstable F the rows list each
 * block's excess order and the products land over A_p's whole blocks, narrowed at the end. 0, or
 * -1 (out of memory, or a product outside the profile's algebra: msg says which). */
static int d_matrix(const resolution *tgt, int i, deg_t t, fpmat *D, const char **msg)
{
    const milnor_p_sub *B = &tgt->odd->B;
    const freemod *F = &tgt->F[i], *G = i ? &tgt->F[i - 1] : NULL;
    uint32_t nrows = (uint32_t)freemod_dim(F, t, t + 1);
    uint32_t ncols = i ? (uint32_t)freemod_dim_wide(G, t, t) : res_module_dim(tgt, t);
    *msg = "out of memory";
    if (fpmat_init(D, tgt->prime, nrows, ncols) != 0) return -1;
    term_buf tb = { 0 };
    uint32_t row = 0;
    for (deg_t u = i; u <= t; u++)
        for (uint32_t h = 0; h < F->ngens[u]; h++) {
            const fm_gen *g = &F->gens[u][h];
            size_t n = 0;
            if (i && terms_room(&tb, (size_t)g->bits + 1) != 0) goto fail;
            if (i) n = res_p_terms(tgt, i, u, h, t, tb.v);
            for (uint32_t r = 0, blen = freemod_block(F, t - u, u); r < blen; r++, row++) {
                uint32_t x = F->ex ? excess_index(F->ex, t - u, r) : r;
                if (!i) res_p_row0_add(tgt, u, g, t, x, 1, fpmat_row(D, row));
                else if (res_p_row_add(tgt, tb.v, n, milnor_p_sub_elt(B, t - u, x), 1, fpmat_row(D, row)) != 0) {
                    *msg = "a product leaves the profile's algebra";
                    goto fail;
                }
            }
        }
    free(tb.v);
    if (i && freemod_narrow_p(G, t, t, D) != 0) {
        fpmat_clear(D);
        return -1;
    }
    return 0;
fail:
    free(tb.v);
    fpmat_clear(D);
    return -1;
}

int lift_solve_p(lift_set *set, int i, deg_t t, const lift_plan *x)
{
    const resolution *tgt = set->tgt;
    uint32_t p = set->prime;
    size_t cell = lift_cell(set, i, t);
    fpmat D = { 0 }, aug = { 0 };
    int32_t *pivots = NULL;
    uint8_t *r = NULL;
    const char *msg = "out of memory";
    int rc = -1;
    if (d_matrix(tgt, i, t, &D, &msg) != 0) goto out;
    uint32_t ncols = D.cols, seg = fpmat_segment_start(ncols);
    if (fpmat_augment_identity(&aug, &D) != 0 || !(pivots = malloc(sizeof *pivots * ((size_t)aug.cols + 1))) ||
        !(r = malloc((size_t)ncols + 1)))
        goto out;
    if (fpmat_rref(&aug, pivots) < 0) goto out;
    for (int m = 0; m < set->nmaps; m++) {
        const lift_plan_map *pm = &x->maps[m];
        for (uint32_t k = 0; pm->todo && k < pm->Y.fp.rows; k++) {
            const uint8_t *y = fpmat_row(&pm->Y.fp, k);
            uint8_t *out = fpmat_row(&set->maps[m].val[cell].fp, k);
            memcpy(r, y, ncols);
            for (uint32_t c = 0; c < ncols; c++) {   /* pivot rows are 1 at their pivot, 0 at the others' */
                if (!r[c]) continue;
                if (pivots[c] < 0) {
                    latch_set(&set->fail, "internal error: lifting %s, y = f(d z) for generator %u at source (%d, %d) is not "
                              "in the image of d_%d at (%d, %d)", set->maps[m].key, k, set->maps[m].s0 + i,
                              (int)(t + set->maps[m].t0), i, i, (int)t);
                    msg = NULL;
                    goto out;
                }
                const uint8_t *prow = fpmat_row(&aug, (uint32_t)pivots[c]);
                uint32_t coef = r[c];
                fpvec_addmul(r, prow, p - coef, ncols, p);
                fpvec_addmul(out, prow + seg, coef, D.rows, p);
            }
        }
    }
    rc = 0;
out:
    if (rc && msg) latch_set(&set->fail, "%s solving d_%d at (%d, %d)", msg, i, i, (int)t);
    fpmat_clear(&D);
    fpmat_clear(&aug);
    free(pivots);
    free(r);
    return rc;
}

uint64_t lift_footprint_p(const resolution *tgt, int i, deg_t t, uint64_t rows)
{
    uint64_t dim = freemod_dim(&tgt->F[i], t, t + 1), below = i ? freemod_dim(&tgt->F[i - 1], t, t) : res_module_dim(tgt, t);
    uint64_t wide = i && tgt->unstable ? freemod_dim_wide(&tgt->F[i - 1], t, t) : 0;
    uint64_t seg = (below + 63) & ~(uint64_t)63;
    /* the y, D and [D | 0 | I], a byte an entry, rows padded to 64; unstable: the y and D over
     * A_p's whole blocks before they are narrowed */
    return 4096 + rows * seg + dim * seg + dim * (((seg + dim) + 63) & ~(uint64_t)63) + (rows + dim) * wide;
}
