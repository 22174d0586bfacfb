/* secondary_massey.c — Massey products <a, b, -> in Mod_{Cλ²} (see secondary_massey.h). */
#include "stages/d2/secondary_massey.h"
#include <stdlib.h>
#include <string.h>

static int sm_failed(sec_massey *m)
{
    return latch_is_set(&m->fail) || lift_failed(&m->hs) || lift_failed(&m->Hs) || lift_failed(&m->lam);
}

static const resolution *R(const sec_massey *m) { return m->sec->res; }

/* Generators at (s, t), 0 outside the resolution. */
static uint32_t ngens(const sec_massey *m, int s, deg_t t) { return s >= 0 ? res_ngens(R(m), s, t) : 0; }

static int done(const sec_massey *m, int s, deg_t t) { return res_is_done(R(m), s, t); }

/* A cell of map k of set that exists in the target's range and has run. */
static int ready(const lift_set *set, int k, int i, deg_t t)
{
    return k >= 0 && i >= 0 && i <= set->tgt->max_s && t >= i && t - i <= set->tgt->max_n &&
           sec_cell_ready(set, k, i, t);
}

/* <x·y_j, z_k> for map k of set at target (i, t), 0 outside the range. */
static int bit(const lift_set *set, int k, int i, deg_t t, uint32_t j, uint32_t z)
{
    if (k < 0 || i < 0 || i > set->tgt->max_s || t < i || t - i > set->tgt->max_n) return 0;
    return lift_product_bit(set, k, i, t, j, z);
}

/* Is Sq(1)·g_z (g_z the z-th generator of F_s in degree t) a term of d of the zz-th generator of
 * F_{s+1} in degree t + 1? (h0 times x_z, read at x_zz.) */
static int h0_bit(const resolution *res, int s, deg_t t, uint32_t z, uint32_t zz)
{
    const fm_gen *g = &res->F[s + 1].gens[t + 1][zz];
    uint64_t b = freemod_offset(&res->F[s], t + 1, t, z);
    return b < g->bits && f2vec_get(g->img, b);
}

/* ---- small linear algebra over the classes ----------------------------------------------------- */

/* The image of d2 into (s, t) (from (s-2, t-1)), in RREF, with its pivots (piv[c] = row or -1, nt
 * entries). 0, or -1 out of memory. */
static int d2_image(const sec_massey *m, int s, deg_t t, f2mat *img, int32_t *piv)
{
    uint32_t nt = ngens(m, s, t), nsrc = s - 2 >= 1 && secondary_in_range(m->sec, s - 2, t - 1) ? ngens(m, s - 2, t - 1) : 0;
    if (f2mat_init(img, nsrc, nt) != 0) return -1;
    for (uint32_t j = 0; j < nsrc; j++)
        for (uint32_t k = 0; k < nt; k++) f2mat_set(img, j, k, secondary_d2_bit(m->sec, s - 2, t - 1, j, k));
    for (uint32_t c = 0; c < nt; c++) piv[c] = -1;
    return f2mat_rref(img, piv) < 0 ? -1 : 0;
}

/* v (nt entries) reduced by the rows of img at their pivots. */
static void reduce_by(const f2mat *img, const int32_t *piv, uint8_t *v, uint32_t nt)
{
    for (uint32_t c = 0; c < nt; c++)
        if (piv[c] >= 0 && v[c])
            for (uint32_t k = 0; k < nt; k++) v[k] ^= (uint8_t)f2mat_get(img, (uint32_t)piv[c], k);
}

/* The Mod_{Cλ²} product of x (a when X = 0, b when 1) with the Ext class u of the target at
 * (sy, ty): ext over the generators at (sy+sX, ty+tX), lam at (sy+sX+1, ty+tX+1); lam reduced by
 * the image of d2 when reduce. The sign (-1)^{sX ty} of sseq's convention is taken mod 4 (its 2s
 * are λ h0). 0, or -1 out of memory. */
static int product(const sec_massey *m, int X, int sy, deg_t ty, const uint8_t *u, int reduce, uint8_t *ext, uint8_t *lam)
{
    const sec_product *p = X ? &m->pb : &m->pa;
    int sx = X ? m->sb : m->sa, lk = X ? m->lb : m->la;
    deg_t tx = X ? m->tb : m->ta;
    uint32_t ny = ngens(m, sy, ty), n1 = ngens(m, sy + sx, ty + tx), n2 = ngens(m, sy + sx + 1, ty + tx + 1);
    int sign = (sx * ty) % 2 ? 3 : 1;
    memset(lam, 0, n2);
    for (uint32_t z = 0; z < n1; z++) {
        int sc = 0;
        for (uint32_t i = 0; i < ny; i++) sc += u[i] * bit(&p->prim, 0, sy, ty, i, z) * sign;
        ext[z] = (uint8_t)(sc % 2);
        if ((sc / 2) % 2)
            for (uint32_t zz = 0; zz < n2; zz++) lam[zz] ^= (uint8_t)h0_bit(R(m), sy + sx, ty + tx, z, zz);
    }
    for (uint32_t zz = 0; zz < n2; zz++)
        for (uint32_t i = 0; i < ny; i++)
            if (u[i]) lam[zz] ^= (uint8_t)(bit(&p->hom, 0, sy, ty, i, zz) ^ bit(&m->lam, lk, sy, ty, i, zz));
    if (!reduce || !n2) return 0;
    f2mat img;
    int32_t *piv = malloc((n2 + 1) * sizeof *piv);
    int rc = piv ? d2_image(m, sy + sx + 1, ty + tx + 1, &img, piv) : -1;
    if (!rc) reduce_by(&img, piv, lam, n2);
    if (piv) f2mat_clear(&img);
    free(piv);
    return rc;
}

/* A preimage under d2 of lam (over the generators at (s0+2, t0+1)), from (s0, t0), as sseq's
 * differential's quasi-inverse picks it: the RREF of the rows [d2(e_j) | e_j], the source parts of
 * the rows at lam's pivot coordinates added up (coordinates off the pivots are ignored). *exact:
 * lam lies in the image. 0, or -1 out of memory. */
static int d2_preimage(const sec_massey *m, int s0, deg_t t0, const uint8_t *lam, uint8_t *out, int *exact)
{
    uint32_t nsrc = ngens(m, s0, t0), nl = ngens(m, s0 + 2, t0 + 1);
    int in = s0 >= 1 && secondary_in_range(m->sec, s0, t0);
    memset(out, 0, nsrc);
    *exact = 1;
    if (!nl) return 0;
    f2mat D, aug = { 0 };
    int32_t *piv = NULL;
    if (f2mat_init(&D, in ? nsrc : 0, nl) != 0) return -1;
    for (uint32_t j = 0; in && j < nsrc; j++)
        for (uint32_t k = 0; k < nl; k++) f2mat_set(&D, j, k, secondary_d2_bit(m->sec, s0, t0, j, k));
    int rank = f2mat_rref_augmented(&D, &aug, &piv);
    if (rank >= 0) {
        uint32_t seg = f2mat_segment_start(nl);
        uint8_t *left = malloc(nl + 1);
        if (!left) rank = -1;
        for (uint32_t k = 0; left && k < nl; k++) left[k] = lam[k];
        for (uint32_t c = 0; left && c < nl; c++) {
            if (piv[c] < 0 || !left[c]) continue;
            uint32_t r = (uint32_t)piv[c];
            for (uint32_t k = 0; k < nl; k++) left[k] ^= (uint8_t)f2mat_get(&aug, r, k);
            for (uint32_t j = 0; j < D.rows; j++) out[j] ^= (uint8_t)f2mat_get(&aug, r, seg + j);
        }
        for (uint32_t k = 0; left && k < nl; k++)
            if (left[k]) *exact = 0;
        free(left);
    }
    f2mat_clear(&D), f2mat_clear(&aug);
    free(piv);
    return rank < 0 ? -1 : 0;
}

/* sseq's product_nullhomotopy for x (a: X = 0, b: 1) and the class u + λ ul at (sy, ty): the
 * λ part of x·(u + λ ul) (unreduced, with x's Ext part times ul) and its d2 preimage w over the
 * generators at (sy+sX-1, ty+tX). *ext_zero: the Ext part of the product is 0; *exact: its λ part
 * is a d2 boundary. 0, or -1 out of memory. */
static int nullhomotopy(const sec_massey *m, int X, int sy, deg_t ty, const uint8_t *u, const uint8_t *ul, uint8_t *w,
                        int *ext_zero, int *exact)
{
    const sec_product *p = X ? &m->pb : &m->pa;
    int sx = X ? m->sb : m->sa;
    deg_t tx = X ? m->tb : m->ta;
    uint32_t n1 = ngens(m, sy + sx, ty + tx), n2 = ngens(m, sy + sx + 1, ty + tx + 1), nyl = ngens(m, sy + 1, ty + 1);
    uint8_t *ext = calloc(n1 + 1, 1), *lam = calloc(n2 + 1, 1);
    int rc = ext && lam ? product(m, X, sy, ty, u, 0, ext, lam) : -1;
    *ext_zero = 1;
    for (uint32_t z = 0; z < n1; z++) *ext_zero &= !ext[z];
    for (uint32_t zz = 0; !rc && zz < n2; zz++)
        for (uint32_t i = 0; i < nyl; i++)
            if (ul[i]) lam[zz] ^= (uint8_t)bit(&p->prim, 0, sy + 1, ty + 1, i, zz);
    if (!rc) rc = d2_preimage(m, sy + sx - 1, ty + tx, lam, w, exact);
    free(ext), free(lam);
    return rc;
}

/* ---- the composites C of H ------------------------------------------------------------------- */

typedef struct img_ctx {
    const sec_massey *m;
    int level;
} img_ctx;

static const uint64_t *img_fb(void *vctx, deg_t u, uint32_t g1, uint32_t *bits)
{
    const img_ctx *c = vctx;
    return sec_map_row(&c->m->pb.prim, 0, c->level, u - c->m->tb, g1, bits);
}

static const uint64_t *img_h(void *vctx, deg_t u, uint32_t g1, uint32_t *bits)
{
    const img_ctx *c = vctx;
    return sec_map_row(&c->m->hs, 0, c->level, u - c->m->ta - c->m->tb, g1, bits);
}

/* C at (s, T) is read by H's steps whose source is F_{s+1} (massey_extra): none at the top s. */
static int needs(const void *ctx, int s, deg_t T)
{
    const sec_massey *m = ctx;
    uint32_t n = s >= m->sa + m->sb && s + 1 <= R(m)->max_s && done(m, s, T) && T - m->ta - m->tb >= s - m->sa - m->sb
                     ? ngens(m, s, T) : 0;
    const int8_t *p = n ? m->planes[res_cell(R(m), s, T)] : NULL;
    int read = 0;                   /* (a cell none of whose generators H reads: none planned) */
    for (uint32_t g = 0; p && g < n && !read; g++) read = p[(size_t)g * PAIR_MAX_K] >= 0;
    return read;
}

static sec_batch *plan(void *ctx, int s, deg_t T)
{
    sec_massey *m = ctx;
    const resolution *res = R(m);
    uint32_t n = ngens(m, s, T);
    if (!n || sm_failed(m)) return NULL;
    int sa = m->sa, sb = m->sb, lv = s - sa - sb;
    deg_t top = T - m->ta - m->tb;
    const freemod *Y = &res->F[lv];
    sec_batch *bt = malloc(sizeof *bt);
    int rc = bt ? sec_batch_init(bt, &res->A, s, T, n) : -1;
    if (!rc) bt->memo = m->sec->m4memo, bt->planes = m->planes[res_cell(res, s, T)];
    img_ctx cfb = { m, lv }, ch = { m, lv };
    for (uint32_t g = 0; g < n && !rc; g++) {
        uint32_t bits = 0;
        rc = sec_batch_gen_begin(bt, g, Y, top);
        if (!rc && bt->planes[(size_t)g * PAIR_MAX_K] < 0) {        /* nothing reads it: empty */
            rc = sec_batch_gen_end(bt, Y);
            if (!rc && m->sec->y_in_batch) rc = sec_batch_plan_y(bt, g);
            continue;
        }
        /* -σσ(f_b f_a): a·g1 in f_a(g), b·g2 in f_b(g1); two units: degree 0, in the intermediate */
        const uint64_t *fa = sec_map_row(&m->pa.prim, 0, s - sa, T - m->ta, g, &bits);
        if (!rc && fa) rc = sec_add_products(bt, &res->F[s - sa], T - m->ta, fa, bits, m->tb, img_fb, &cfb, 3, 1);
        /* +σσ(d h): a·g1 in h(g) (units included), b·g2 in d g1 */
        const uint64_t *hg = lv + 1 <= res->max_s ? sec_map_row(&m->hs, 0, lv + 1, top, g, &bits) : NULL;
        const freemod *H = hg ? &res->F[lv + 1] : NULL;
        if (!rc && hg) rc = sec_add_products(bt, H, top, hg, bits, 0, sec_image_of_gen, (void *)H, 1, 0);
        /* +σσ(h d): a·g1 in d g, b·g2 in h(g1) */
        const fm_gen *z = &res->F[s].gens[T][g];
        if (!rc && s >= 1) rc = sec_add_products(bt, &res->F[s - 1], T, z->img, z->bits, m->ta + m->tb, img_h, &ch, 1, 0);
        if (!rc) rc = sec_batch_gen_end(bt, Y);
        if (!rc && m->sec->y_in_batch) rc = sec_batch_plan_y(bt, g);    /* the Y terms go to the multiply too */
    }
    return rc ? sec_plan_failed(bt, rc, &m->fail, "a Massey composite", s, T) : bt;
}

static int finish(void *ctx, sec_batch *bt, const char *why)
{
    sec_massey *m = ctx;
    return sec_cell_finish(bt, why, sm_failed(m), &m->fail, "a Massey composite", NULL,
                           &m->comp[res_cell(R(m), bt->s, bt->T)]);
}

static int ops_failed(void *ctx) { return sm_failed(ctx); }
static void ops_fail(void *ctx, const char *msg) { latch_set(&((sec_massey *)ctx)->fail, "%s", msg); }

/* ---- the homotopy H ------------------------------------------------------------------------------- */

/* wide ^= A(a, 2·g'') for the degree-0 part of C(g') over the terms a·g' of d z (z in F_s, degree
 * T): the units of f_b f_a(g'), counted; 3 times an even count is 2 at g'' when the count is 2
 * mod 4, and A(Sq R, 2 g'') = Sq(R - e_1) g''. 0, -1 out of memory, -3 an odd count. */
static int add_unit_twos(const sec_massey *m, int s, deg_t T, const fm_gen *z, const freemod *Yt, deg_t ydeg, uint64_t *w)
{
    const resolution *res = R(m);
    const milnor_basis *A = &res->A;
    const freemod *X = &res->F[s - 1];
    int l1 = s - 1 - m->sa, l2 = l1 - m->sb;
    uint64_t off = 0;
    for (deg_t u = 0; u < T && off < z->bits; u++) {
        if (!X->ngens[u]) continue;
        uint32_t blen = A->dim[T - u];
        for (uint32_t g1 = 0; g1 < X->ngens[u]; g1++, off += blen) {
            deg_t u1 = u - m->ta, u2 = u1 - m->tb;
            uint32_t n1 = ngens(m, l1, u1), n2 = ngens(m, l2, u2), b1 = 0, b2 = 0;
            if (!n1 || !n2) continue;
            const uint64_t *fa = sec_map_row(&m->pa.prim, 0, l1, u1, g1, &b1);
            if (!fa) continue;
            for (uint32_t k2 = 0; k2 < n2; k2++) {
                int count = 0;
                for (uint32_t k1 = 0; k1 < n1; k1++) {
                    uint64_t at = freemod_offset(&res->F[l1], u1, u1, k1);
                    if (at >= b1 || !f2vec_get(fa, at)) continue;
                    const uint64_t *fb = sec_map_row(&m->pb.prim, 0, l2, u2, k1, &b2);
                    uint64_t at2 = freemod_offset(&res->F[l2], u2, u2, k2);
                    count += fb && at2 < b2 && f2vec_get(fb, at2);
                }
                if (count % 2) return -3;
                if (count % 4 != 2) continue;
                for (uint32_t e = 0; e < blen; e++) {
                    if (off + e >= z->bits || !f2vec_get(z->img, off + e)) continue;
                    milnor_elt r = A->elts[T - u][e];
                    if (!r.len || !r.r[0]) continue;
                    r.r[0]--, r.degree--;
                    while (r.len && !r.r[r.len - 1]) r.len--;
                    f2vec_flip(w, freemod_offset(Yt, ydeg, u2, k2) + milnor_index(A, &r));
                }
            }
        }
    }
    return 0;
}

/* The terms `what` (SEC_TERMS_*) of I(z_k), z_k the k-th generator of F_s, s = sa+sb+i, in
 * degree T = t + ta+tb+1: into y over F_{i-1} in degree t, generators below t, or (the actions
 * alone) planned into sink. */
static int massey_terms(sec_massey *m, int i, deg_t t, uint32_t k, uint64_t *y, lift_share *sink, int what)
{
    secondary *sec = m->sec;
    const resolution *res = R(m);
    int sa = m->sa, sb = m->sb, s = sa + sb + i, la = m->la, lb = m->lb;
    deg_t ta = m->ta, tb = m->tb, T = t + ta + tb + 1;
    const freemod *Yt = &res->F[i - 1];
    f2mat wide = { 0 };
    if (!sink && sec_wide_init(&wide, Yt, t) != 0) return -1;
    uint64_t *w = sink ? NULL : f2mat_row(&wide, 0);
    const fm_gen *z = &res->F[s].gens[T][k];
    uint32_t hzb = 0, fab = 0, b = 0;
    const uint64_t *hz = sec_map_row(&m->hs, 0, i + 1, t + 1, k, &hzb);
    const uint64_t *fa = sec_map_row(&m->pa.prim, 0, s - sa, T - ta, k, &fab);
    int rc = 0;
    if (what & SEC_TERMS_ACTIONS) {
        /* A(a, C(g')) over d z; A(-, C^F)(h z); A(-, C^b)(f_a z) */
        rc = sec_add_actions(sec, m->comp, res, s - 1, sa + sb, ta + tb, &res->F[s - 1], T, z->img, z->bits, Yt, t, w,
                             sink);
        if (!rc && hz) rc = sec_add_actions(sec, sec->comp, res, i + 1, -1, 0, &res->F[i + 1], t + 1, hz, hzb, Yt, t, w, sink);
        if (!rc && fa)
            rc = sec_add_actions(sec, m->pb.comp, res, s - sa, sb, tb, &res->F[s - sa], T - ta, fa, fab, Yt, t, w, sink);
    }
    if (what & SEC_TERMS_REST) {
        /* C's degree-0 part over d z; h^F(h z); h(h^F z) */
        if (!rc) rc = add_unit_twos(m, s, T, z, Yt, t, w);
        if (!rc && hz) rc = sec_apply_row(&sec->set, 0, i - 1, t + 1, hz, hzb, &wide);
        const uint64_t *hf = sec_map_row(&sec->set, 0, s - 2, T - 1, k, &b);
        if (!rc && hf) rc = sec_apply_row(&m->hs, 0, i - 1, T - 1, hf, b, &wide);
        /* [H^b + b_λ](f_a z) */
        if (!rc && fa) rc = sec_apply_row(&m->pb.hom, 0, i - 1, T - ta, fa, fab, &wide);
        if (!rc && fa && lb >= 0) rc = sec_apply_row(&m->lam, lb, i - 1, T - ta, fa, fab, &wide);
        /* f_b(H^a z + a_λ z) */
        const uint64_t *ha = sec_map_row(&m->pa.hom, 0, s - sa - 1, T - ta - 1, k, &b);
        if (!rc && ha) rc = sec_apply_row(&m->pb.prim, 0, i - 1, T - ta - 1, ha, b, &wide);
        const uint64_t *al = la >= 0 ? sec_map_row(&m->lam, la, s - sa - 1, T - ta - 1, k, &b) : NULL;
        if (!rc && al) rc = sec_apply_row(&m->pb.prim, 0, i - 1, T - ta - 1, al, b, &wide);
    }
    if (!sink && sec_wide_end(&wide, Yt, t, y, !rc)) rc = -4;
    if (rc == -2) lift_fail(&m->Hs, "internal error: the Massey homotopy needs composites not computed (at s=%d, t=%d)", s, (int)T);
    else if (rc == -3) lift_fail(&m->Hs, "internal error: f_b f_a has an odd unit count at (s=%d, t=%d): a·b is not 0", s, (int)T);
    else if (rc == -4) lift_fail(&m->Hs, "internal error: the Massey intermediate at (s=%d, t=%d) meets a generator", s, (int)T);
    else if (rc == -1 && !lift_failed(&m->Hs)) lift_fail(&m->Hs, "out of memory in the Massey intermediate at (s=%d, t=%d)", s, (int)T);
    return rc ? -1 : 0;
}

static int massey_extra(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    return massey_terms(ctx, i, t, k, y, NULL, SEC_TERMS_ALL);
}
static int massey_extra_plan(void *ctx, int i, deg_t t, uint32_t k, lift_share *sink)
{
    return massey_terms(ctx, i, t, k, NULL, sink, SEC_TERMS_ACTIONS);
}
static int massey_extra_rest(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    return massey_terms(ctx, i, t, k, y, NULL, SEC_TERMS_REST);
}

/* H's step at target (i, t) reads the cells below; each must have run. */
static int massey_in_region(void *ctx, int i, deg_t t)
{
    const sec_massey *m = ctx;
    if (i == 0) return 1;
    int s = m->sa + m->sb + i;
    deg_t T = t + m->ta + m->tb + 1;
    return ready(&m->sec->set, 0, s - 2, T - 1) && ready(&m->sec->set, 0, i - 1, t) && ready(&m->pb.hom, 0, i - 1, t) &&
           ready(&m->pa.hom, 0, s - m->sa - 1, T - m->ta - 1) && ready(&m->pa.prim, 0, s - m->sa, T - m->ta) &&
           ready(&m->hs, 0, i - 1, t) && (m->lb < 0 || ready(&m->lam, m->lb, i - 1, t)) &&
           (m->la < 0 || ready(&m->lam, m->la, s - m->sa - 1, T - m->ta - 1));
}

/* Might H's step on z at (S, T) run: every cell it reads that has run by the time C^b is planned
 * (d2's homotopy, a's f and H) there? A superset of massey_in_region's steps, exact where the
 * cells of b's H, h and the λ parts are there too (massey_reads). */
static int massey_may_read(const sec_massey *m, int S, deg_t T)
{
    int i = S - m->sa - m->sb;
    deg_t t = T - m->ta - m->tb - 1;
    return i >= 1 && t >= i && done(m, i, t) && done(m, S, T) && ready(&m->sec->set, 0, S - 2, T - 1) &&
           ready(&m->sec->set, 0, i - 1, t) && ready(&m->pa.hom, 0, S - m->sa - 1, T - m->ta - 1) &&
           ready(&m->pa.prim, 0, S - m->sa, T - m->ta);
}

/* H's step on z at (S, T) reads C through d z (massey_extra): exact once h and b's H have run. */
static int massey_reads(const void *ctx, int S, deg_t T)
{
    const sec_massey *m = ctx;
    return massey_may_read(m, S, T) && massey_in_region((void *)ctx, S - m->sa - m->sb, T - m->ta - m->tb - 1);
}

/* pb.more_planes: C^b also keeps the planes the terms of f_a z see, z over H's steps. */
static void read_by_fa(void *ctx, sec_product *pb)
{
    const sec_massey *m = ctx;
    const resolution *res = R(m);
    for (int S = m->sa + m->sb + 1; S <= res->max_s; S++)
        for (deg_t T = S; T - S <= res->max_n; T++) {
            if (!massey_may_read(m, S, T)) continue;
            for (uint32_t k = 0; k < ngens(m, S, T); k++) {
                uint32_t bits = 0;
                const uint64_t *fa = sec_map_row(&m->pa.prim, 0, S - m->sa, T - m->ta, k, &bits);
                if (fa) sec_planes_add_row(pb->planes, res, S - m->sa, T - m->ta, fa, bits);
            }
        }
}

static int run_set(lift_set *set, const chain_runner *runner, char *err, size_t errlen);

/* Might H's step on z at (S, T) run, where d2's homotopy has not run yet (its cells: those it
 * will compute) and neither have the products' H? A superset of massey_may_read's steps. */
static int massey_will_read(const sec_massey *m, int S, deg_t T)
{
    int i = S - m->sa - m->sb;
    deg_t t = T - m->ta - m->tb - 1;
    return i >= 1 && t >= i && done(m, i, t) && done(m, S, T) && lift_map_in_region(&m->sec->set, 0, S - 2, T - 1) &&
           lift_map_in_region(&m->sec->set, 0, i - 1, t) && ready(&m->pa.prim, 0, S - m->sa, T - m->ta);
}

/* Is the Ext part of a·b 0 (f_a read at b's generators, as product() reads it)? */
static int ab_ext_zero(const sec_massey *m)
{
    if (!m->b.has_ext) return 1;
    uint32_t ny = ngens(m, m->sb, m->tb), n1 = ngens(m, m->sb + m->sa, m->tb + m->ta);
    for (uint32_t z = 0; z < n1; z++) {
        int sc = 0;
        for (uint32_t i = 0; i < ny && i < m->b.next; i++) sc += m->b.ext[i] * bit(&m->pa.prim, 0, m->sb, m->tb, i, z);
        if (sc % 2) return 0;
    }
    return 1;
}

/* h's lift: bottom m->v (nv generators), f_b f_a its extra term. 0, or -1 out of memory. */
static int add_h(sec_massey *m)
{
    m->hctx = (massey_homotopy){ &m->hs, &m->pb.prim, &m->pa.prim, 0, 0, m->sb, m->sa, m->tb, m->ta };
    return lift_add_map(&m->hs, m->sa + m->sb - 1, m->ta + m->tb, m->v, m->nv, "secondary-massey-h",
                        massey_homotopy_extra, &m->hctx) != 0 ? -1 : 0;
}

int sec_massey_plan_d2(sec_massey *m, const chain_runner *runner, char *err, size_t errlen)
{
    secondary *sec = m->sec;
    const resolution *res = R(m);
    int rc = sec_product_run_prim(&m->pa, runner);
    if (!rc) rc = sec_product_run_prim(&m->pb, runner);
    if (rc < 0) snprintf(err, errlen, "%s", m->pa.prim.fail.set ? m->pa.prim.fail.msg : m->pb.prim.fail.msg);
    /* h now when its bottom v is sure to be 0 (no generator there) and a·b's Ext part is 0 (else
     * sec_massey_run refuses) */
    if (!rc && !m->h_wait && !ngens(m, m->sa + m->sb - 1, m->ta + m->tb) && ab_ext_zero(m)) {
        m->nv = 0;
        if (!(m->v = calloc(1, 1)) || add_h(m) != 0) {
            snprintf(err, errlen, "out of memory setting up the Massey homotopy");
            return -1;
        }
        if ((rc = run_set(&m->hs, runner, err, errlen)) == 0) m->h_early = 1;
    }
    if (rc) return rc;
    sec_planes_free(sec->planes_all, res);
    if (!(sec->planes_all = sec_planes_of_d(res, secondary_step_reads, sec))) goto oom;
    sec_product_planes_of_f(&m->pa, sec->planes_all);       /* A(-, C^F)(f_a z) in H^a */
    sec_product_planes_of_f(&m->pb, sec->planes_all);       /* A(-, C^F)(f_b z) in H^b */
    /* A(-, C^F)(h z) in H, z at (S, T), h z over F_{i+1} in degree t + 1: its terms, or where h
     * waits for d2, every plane an element of degree t + 1 - u sees at (i + 1, u) */
    deg_t *reach = m->h_early ? NULL : calloc(((size_t)res->max_s + 1) * ((size_t)res->max_n + 1), sizeof *reach);
    if (!m->h_early && !reach) goto oom;
    for (int S = m->sa + m->sb + 1; S <= res->max_s; S++)
        for (deg_t T = S; T - S <= res->max_n; T++) {
            int i = S - m->sa - m->sb;
            deg_t t = T - m->ta - m->tb - 1;
            if (!ngens(m, S, T) || !massey_will_read(m, S, T) || i + 1 > res->max_s) continue;
            for (uint32_t k = 0; m->h_early && k < ngens(m, S, T); k++) {
                uint32_t bits = 0;
                const uint64_t *hz = sec_map_row(&m->hs, 0, i + 1, t + 1, k, &bits);
                if (hz) sec_planes_add_row(sec->planes_all, res, i + 1, t + 1, hz, bits);
            }
            for (deg_t u = i + 1; !m->h_early && u <= t && u - (i + 1) <= res->max_n; u++) {
                deg_t *r = &reach[res_cell(res, i + 1, u)];
                if (t + 1 - u > *r) *r = t + 1 - u;
            }
        }
    for (int s = 0; reach && s <= res->max_s; s++)
        for (deg_t u = s; u - s <= res->max_n; u++)
            sec_planes_raise_reach(sec->planes_all[res_cell(res, s, u)], ngens(m, s, u), reach[res_cell(res, s, u)]);
    free(reach);
    return 0;
oom:
    snprintf(err, errlen, "out of memory planning d2's composites");
    return -1;
}

/* ---- set-up and run ---------------------------------------------------------------------------- */

int sec_massey_init(sec_massey *m, secondary *sec, const sec_mclass *a, const sec_mclass *b, const char *outdir,
                    char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->sec = sec;
    m->a = *a, m->b = *b;
    m->sa = a->s, m->sb = b->s, m->ta = a->n + a->s, m->tb = b->n + b->s;
    m->la = m->lb = -1;
    latch_init(&m->fail);
    const resolution *res = sec->res;
    lift_set_init(&m->lam, res, res, outdir);
    lift_set_init(&m->hs, res, res, "");
    lift_set_init(&m->Hs, res, res, "");
    lift_set_share_preimages(&m->lam, &sec->set);     /* F's d_i: one cache (its quasi-inverses) */
    lift_set_share_preimages(&m->hs, &sec->set);
    lift_set_share_preimages(&m->Hs, &sec->set);
    m->comp = calloc((size_t)(res->max_s + 1) * ((size_t)res->max_n + 1), sizeof *m->comp);
    uint32_t na = ngens(m, m->sa, m->ta), nb = ngens(m, m->sb, m->tb);
    uint8_t *za = calloc(na + 1, 1), *zb = calloc(nb + 1, 1);
    int rc = m->comp && za && zb ? 0 : -1;
    if (!rc) rc = sec_product_init(&m->pa, sec, sec, m->sa, m->ta, a->has_ext ? a->ext : za, na, outdir, err, errlen);
    if (!rc) rc = sec_product_init(&m->pb, sec, sec, m->sb, m->tb, b->has_ext ? b->ext : zb, nb, outdir, err, errlen);
    /* C^b is also read through f_a z (massey_extra) */
    m->pb.more_planes = read_by_fa, m->pb.more_ctx = m;
    free(za), free(zb);
    if (!rc && a->has_lam && (m->la = lift_add_class(&m->lam, m->sa + 1, m->ta + 1, a->lam, a->nlam)) < 0) rc = -1;
    if (!rc && b->has_lam && (m->lb = lift_add_class(&m->lam, m->sb + 1, m->tb + 1, b->lam, b->nlam)) < 0) rc = -1;
    if (rc) snprintf(err, errlen, "out of memory setting up the secondary Massey product");
    return rc;
}

void sec_massey_clear(sec_massey *m)
{
    if (!m->sec) return;
    sec_composites_free_all(m->comp, R(m));
    sec_planes_free(m->planes, R(m));
    free(m->v);
    if (m->pa.sec) sec_product_clear(&m->pa);
    if (m->pb.sec) sec_product_clear(&m->pb);
    lift_set_clear(&m->lam);
    lift_set_clear(&m->hs);
    lift_set_clear(&m->Hs);
    latch_destroy(&m->fail);
    memset(m, 0, sizeof *m);
}

/* rc of a lift set's run: 0, 1 stopped, or -1 with err. */
static int run_set(lift_set *set, const chain_runner *runner, char *err, size_t errlen)
{
    int rc = lift_run(set, runner);
    if (rc < 0) snprintf(err, errlen, "%s", set->fail.msg);
    return rc;
}

static int run_product(sec_product *p, const chain_runner *runner, char *err, size_t errlen)
{
    int rc = sec_product_run(p, runner);
    if (rc < 0)
        snprintf(err, errlen, "%s", p->fail.set ? p->fail.msg : p->prim.fail.set ? p->prim.fail.msg : p->hom.fail.msg);
    return rc;
}

int sec_massey_run(sec_massey *m, const chain_runner *runner, char *err, size_t errlen)
{
    const resolution *res = R(m);
    const char *which = !sec_product_survives(&m->pa) ? m->a.name : !sec_product_survives(&m->pb) ? m->b.name : NULL;
    if (which) {
        snprintf(m->why, sizeof m->why, "the Ext part of %s supports a non-zero d2 (extflow d2 lists it): it does not lift to "
                 "Mod_{Cλ²}", which);
        return 2;
    }
    int rc = run_product(&m->pa, runner, err, errlen);
    if (!rc) rc = run_product(&m->pb, runner, err, errlen);
    if (!rc && m->lam.nmaps) rc = run_set(&m->lam, runner, err, errlen);
    if (rc) return rc;
    /* a·b = 0 in Mod_{Cλ²}, and h's bottom v: d2(v) = the λ part of a·b */
    m->nv = ngens(m, m->sa + m->sb - 1, m->ta + m->tb);
    free(m->v);
    m->v = calloc(m->nv + 1, 1);
    uint8_t *bl = calloc(ngens(m, m->sb + 1, m->tb + 1) + 1, 1);
    int ext_zero = 1, exact = 1;
    if (bl && m->b.has_lam) memcpy(bl, m->b.lam, m->b.nlam);
    uint8_t *bx = calloc(ngens(m, m->sb, m->tb) + 1, 1);
    if (bx && m->b.has_ext) memcpy(bx, m->b.ext, m->b.next);
    if (!m->v || !bl || !bx || nullhomotopy(m, 0, m->sb, m->tb, bx, bl, m->v, &ext_zero, &exact) != 0) {
        free(bl), free(bx);
        snprintf(err, errlen, "out of memory computing the secondary Massey product");
        return -1;
    }
    free(bl), free(bx);
    if (!ext_zero || !exact) {
        snprintf(m->why, sizeof m->why, "%s·%s is not 0 in Mod_{Cλ²} (its %s part is not %s): <%s, %s, -> is not "
                 "defined", m->a.name, m->b.name, ext_zero ? "λ" : "Ext", ext_zero ? "a d2 boundary" : "0", m->a.name,
                 m->b.name);
        return 2;
    }
    /* h, with bottom v and f_b f_a as its extra term (unless sec_massey_plan_d2 lifted it, v = 0) */
    if (!m->h_early && add_h(m) != 0) {
        snprintf(err, errlen, "out of memory setting up the Massey homotopy");
        return -1;
    }
    if (!m->h_early && (rc = run_set(&m->hs, runner, err, errlen)) != 0) return rc;
    /* its composites (the planes H's steps read: their z those with every cell H reads there),
     * then H */
    sec_planes_free(m->planes, res);
    if (!(m->planes = sec_planes_of_d(res, massey_reads, m))) {
        snprintf(err, errlen, "out of memory planning the Massey composites");
        return -1;
    }
    composite_ops ops = { .res = res, .ctx = m, .needs = needs, .plan = plan, .finish = finish, .failed = ops_failed,
                          .fail = ops_fail };
    atomic_init(&ops.pairs, 0);
    chain_set cs = composite_chain_set(&ops);
    rc = chain_run(runner, &cs);
    if (sm_failed(m)) {
        snprintf(err, errlen, "%s", m->fail.set ? m->fail.msg : m->hs.fail.msg);
        return -1;
    }
    if (rc) return rc;
    uint32_t n0 = ngens(m, m->sa + m->sb, m->ta + m->tb + 1);
    uint8_t *zero = calloc(n0 + 1, 1);
    int h = zero ? lift_add_map(&m->Hs, m->sa + m->sb, m->ta + m->tb + 1, zero, n0, "secondary-massey-H", massey_extra, m)
                 : -1;
    free(zero);
    if (h != 0) {
        snprintf(err, errlen, "out of memory setting up the secondary Massey homotopy");
        return -1;
    }
    m->Hs.maps[0].in_region = massey_in_region;
    if (!m->sec->intermediates_cpu) {   /* the actions as rows of the step's multiply tasks */
        m->Hs.maps[0].extra_plan = massey_extra_plan;
        m->Hs.maps[0].extra_rest = massey_extra_rest;
    }
    return run_set(&m->Hs, runner, err, errlen);
}

/* ---- reading the brackets off ---------------------------------------------------------------------- */

/* "x_(n, s, i) + ..." over the non-zero coordinates of v; returns how many. */
static int put_basis(FILE *out, int n, int s, const uint8_t *v, uint32_t len)
{
    int k = 0;
    for (uint32_t i = 0; i < len; i++)
        if (v[i]) fprintf(out, "%sx_(%d, %d, %u)", k++ ? " + " : "", n, s, i);
    return k;
}

static void put_list(FILE *out, const uint8_t *v, uint32_t len)
{
    fputc('[', out);
    for (uint32_t i = 0; i < len; i++) fprintf(out, i ? ", %d" : "%d", v[i]);
    fputc(']', out);
}

/* Rows of the RREF'd mat whose pivot lies at or after column c0, restricted to [c0, c0 + w), into
 * *ker (initialised here). */
static int kernel_rows(const f2mat *mat, uint32_t rank, uint32_t c0, uint32_t w, f2mat *ker)
{
    uint32_t first = 0;
    while (first < rank && f2vec_first_bit(f2mat_row(mat, first), mat->cols) < (int64_t)c0) first++;
    if (f2mat_init(ker, rank - first, w) != 0) return -1;
    for (uint32_t r = first; r < rank; r++)
        for (uint32_t c = 0; c < w; c++) f2mat_set(ker, r - first, c, f2mat_get(mat, r, c0 + c));
    return 0;
}

/* The E3 cycles x at (s, t) with b·x = 0 in Ext (x in the kernel of d2 there, or anywhere in
 * Ext where d2 is not computed), a basis in RREF, into *k2. 0, or -1. */
static int e3_b_cycles(sec_massey *m, int s, deg_t t, f2mat *k2)
{
    uint32_t nt = ngens(m, s, t), np = ngens(m, s + m->sb, t + m->tb);
    f2mat d2 = { 0 }, aug = { 0 }, e3 = { 0 }, M = { 0 };
    int32_t *piv = NULL;
    int rc = -1;
    /* E3 at (s, t): the kernel of d2 there (all of Ext where d2 is not computed), in RREF */
    uint32_t nd = t > 0 && secondary_in_range(m->sec, s, t) ? ngens(m, s + 2, t + 1) : 0;
    if (f2mat_init(&d2, nt, nd) != 0) goto out;
    for (uint32_t i = 0; i < nt; i++)
        for (uint32_t k = 0; k < nd; k++) f2mat_set(&d2, i, k, secondary_d2_bit(m->sec, s, t, i, k));
    int rank = f2mat_rref_augmented(&d2, &aug, &piv);
    if (rank < 0 || f2mat_kernel_from_rref(&aug, nd, (uint32_t)rank, piv, &e3) != 0) goto out;
    /* E3 cycles x with b·x = 0 in Ext: [b·x | x], rows with pivots past b·x */
    if (f2mat_init(&M, e3.rows, np + nt) != 0) goto out;
    for (uint32_t r = 0; r < e3.rows; r++)
        for (uint32_t i = 0; i < nt; i++) {
            if (!f2mat_get(&e3, r, i)) continue;
            f2mat_flip(&M, r, np + i);
            for (uint32_t z = 0; z < np; z++)
                if (bit(&m->pb.prim, 0, s, t, i, z)) f2mat_flip(&M, r, z);
        }
    if ((rank = f2mat_rref(&M, NULL)) < 0 || kernel_rows(&M, (uint32_t)rank, np, nt, k2) != 0) goto out;
    rc = 0;
out:
    f2mat_clear(&d2), f2mat_clear(&aug), f2mat_clear(&e3), f2mat_clear(&M);
    free(piv);
    return rc;
}

/* The kernel of the product by b in Mod_{Cλ²} at (s, t) from the E3 cycles k2: rows [x | y]
 * (x at (s, t), y at (s+1, t+1), the λ part), a basis in RREF, into *k3. 0, or -1. */
static int lambda_b_kernel(sec_massey *m, int s, deg_t t, const f2mat *k2, f2mat *k3)
{
    int sb = m->sb;
    deg_t tb = m->tb;
    uint32_t nt = ngens(m, s, t), ntl = ngens(m, s + 1, t + 1), np = ngens(m, s + sb, t + tb),
             npl = ngens(m, s + sb + 1, t + tb + 1), wide = np + npl + nt + ntl;
    f2mat M = { 0 }, img = { 0 };
    int32_t *ipiv = calloc(ntl + 1, sizeof *ipiv), *ppiv = NULL;
    uint8_t *row = calloc(wide + 1, 1), *g = calloc(nt + 1, 1);
    int rc = -1, rank;
    if (!ipiv || !row || !g) goto out;
    /* [b·x (Ext, λ reduced) | x | 0], and the λ multiples [0 | b·y reduced | 0 | y] for y off the
     * pivots of d2's image at (s+1, t+1) */
    if (d2_image(m, s + 1, t + 1, &img, ipiv) != 0) goto out;
    uint32_t nlm = 0;
    for (uint32_t i = 0; i < ntl; i++) nlm += ipiv[i] < 0;
    if (f2mat_init(&M, k2->rows + nlm, wide) != 0) goto out;
    for (uint32_t r = 0; r < k2->rows; r++) {
        for (uint32_t i = 0; i < nt; i++) g[i] = (uint8_t)f2mat_get(k2, r, i);
        if (product(m, 1, s, t, g, 1, row, row + np) != 0) goto out;
        for (uint32_t c = 0; c < np + npl; c++) f2mat_set(&M, r, c, row[c]);
        for (uint32_t i = 0; i < nt; i++) f2mat_set(&M, r, np + npl + i, g[i]);
    }
    f2mat_clear(&img);
    ppiv = calloc(npl + 1, sizeof *ppiv);
    if (!ppiv || d2_image(m, s + sb + 1, t + tb + 1, &img, ppiv) != 0) goto out;
    for (uint32_t i = 0, r = k2->rows; i < ntl; i++) {
        if (ipiv[i] >= 0) continue;
        for (uint32_t z = 0; z < npl; z++) row[z] = (uint8_t)bit(&m->pb.prim, 0, s + 1, t + 1, i, z);
        reduce_by(&img, ppiv, row, npl);
        for (uint32_t z = 0; z < npl; z++) f2mat_set(&M, r, np + z, row[z]);
        f2mat_set(&M, r++, np + npl + nt + i, 1);
    }
    if ((rank = f2mat_rref(&M, NULL)) < 0 || kernel_rows(&M, (uint32_t)rank, np + npl, nt + ntl, k3) != 0) goto out;
    rc = 0;
out:
    f2mat_clear(&M), f2mat_clear(&img);
    free(ipiv), free(ppiv), free(row), free(g);
    return rc;
}

/* One bracket <a, b, c> in Mod_{Cλ²}, c = gx + λ gl at (s, t) (stem n), from wv, the d2
 * preimage of b·c's λ part (nullhomotopy): the Ext part ext and the λ part sc1 of the bracket
 * at (s + sa + sb - 1, t + ta + tb), written as a line of sseq's massey text. sc0 (nsrc + np
 * entries) is scratch. */
static void write_bracket(FILE *out, sec_massey *m, int n, int s, deg_t t, const uint8_t *gx, const uint8_t *gl,
                          const uint8_t *wv, int *sc0, uint8_t *sc1, uint8_t *ext)
{
    const resolution *res = R(m);
    int sa = m->sa, sb = m->sb, shift = (int)res->shift;
    deg_t ta = m->ta, tb = m->tb;
    int ss = s + sa + sb - 1;
    deg_t st = t + ta + tb;
    uint32_t nsrc = ngens(m, ss, st), nsl = ngens(m, ss + 1, st + 1);
    uint32_t nt = ngens(m, s, t), ntl = ngens(m, s + 1, t + 1), np = ngens(m, s + sb, t + tb);
    uint32_t nw = ngens(m, s + sb - 1, t + tb);
    memset(sc0, 0, (nsrc + np + 1) * sizeof *sc0);
    memset(sc1, 0, nsl);
    for (uint32_t z = 0; z < nsrc; z++) {
        for (uint32_t i = 0; i < nt; i++) sc0[z] += gx[i] * bit(&m->hs, 0, s, t, i, z);
        for (uint32_t j = 0; j < nw; j++) sc0[z] += 3 * wv[j] * bit(&m->pa.prim, 0, s + sb - 1, t + tb, j, z);
    }
    for (uint32_t zz = 0; zz < nsl; zz++) {
        for (uint32_t i = 0; i < nt; i++) sc1[zz] ^= (uint8_t)(gx[i] & bit(&m->Hs, 0, s, t, i, zz));
        for (uint32_t i = 0; i < ntl; i++) sc1[zz] ^= (uint8_t)(gl[i] & bit(&m->hs, 0, s + 1, t + 1, i, zz));
    }
    for (uint32_t z = 0; z < nsrc; z++)     /* the Ext part's carries: λ h0 times them */
        if ((sc0[z] / 2) % 2)
            for (uint32_t zz = 0; zz < nsl; zz++) sc1[zz] ^= (uint8_t)h0_bit(res, ss, st, z, zz);
    for (uint32_t z = 0; z < nsrc; z++) ext[z] = (uint8_t)(sc0[z] % 2);
    /* the carries of b·c (2 = λ h0) times a: f_a read at Sq(1) on their generators */
    int *bc = sc0 + nsrc;
    for (uint32_t q = 0; q < np; q++) {
        for (uint32_t i = 0; i < nt; i++) bc[q] += gx[i] * bit(&m->pb.prim, 0, s, t, i, q);
        if (!((bc[q] / 2) % 2)) continue;
        uint64_t at = freemod_offset(&res->F[s + sb], t + tb + 1, t + tb, q);
        for (uint32_t zz = 0; zz < nsl; zz++) {
            uint32_t bits = 0;
            const uint64_t *fa = sec_map_row(&m->pa.prim, 0, s + sb, t + tb + 1, zz, &bits);
            if (fa && at < bits && f2vec_get(fa, at)) sc1[zz] ^= 1;
        }
    }
    fprintf(out, "<%s, %s, ", m->a.name, m->b.name);
    int hx = 0;
    for (uint32_t i = 0; i < nt; i++) hx |= gx[i];
    if (hx) {
        fputc('[', out);
        put_basis(out, n + shift, s, gx, nt);
        fputc(']', out);
    }
    int nl = 0;
    for (uint32_t i = 0; i < ntl; i++) nl += gl[i];
    if (nl) {
        fputs(hx ? " + λ" : "λ", out);
        if (nl > 1) fputc('(', out);
        put_basis(out, n + shift, s + 1, gl, ntl);
        if (nl > 1) fputc(')', out);
    }
    fputs("> = ±", out);
    put_list(out, ext, nsrc);
    fputs(" + λ", out);
    put_list(out, sc1, nsl);
    fputc('\n', out);
}

/* The brackets of the classes c at (s, t) (stem n); 0, or -1. */
static int write_bidegree(FILE *out, sec_massey *m, int n, int s, deg_t t)
{
    int ss = s + m->sa + m->sb - 1;
    deg_t st = t + m->ta + m->tb;
    uint32_t nsrc = ngens(m, ss, st), nsl = ngens(m, ss + 1, st + 1);
    uint32_t nt = ngens(m, s, t), ntl = ngens(m, s + 1, t + 1), np = ngens(m, s + m->sb, t + m->tb);
    if (!nsrc && !nsl) return 0;
    f2mat k2 = { 0 }, k3 = { 0 };
    uint8_t *g = calloc(nt + ntl + 1, 1), *wv = calloc(ngens(m, s + m->sb - 1, t + m->tb) + 1, 1);
    int *sc0 = calloc(nsrc + np + 1, sizeof *sc0), rc = -1;
    uint8_t *sc1 = calloc(nsl + 1, 1), *ext = calloc(nsrc + 1, 1);
    if (!g || !wv || !sc0 || !sc1 || !ext) goto out;
    if (e3_b_cycles(m, s, t, &k2) != 0 || lambda_b_kernel(m, s, t, &k2, &k3) != 0) goto out;
    /* the cells read below */
    if ((nt && nsrc && !ready(&m->hs, 0, s, t)) || (ntl && nsl && !ready(&m->hs, 0, s + 1, t + 1)) ||
        (nt && nsl && !ready(&m->Hs, 0, s, t))) {
        fprintf(stderr, "extflow: internal error: the Massey homotopies do not reach (s=%d, t=%d)\n", s, (int)t);
        goto out;
    }
    for (uint32_t r = 0; r < k3.rows; r++) {
        for (uint32_t i = 0; i < nt + ntl; i++) g[i] = (uint8_t)f2mat_get(&k3, r, i);
        int ez, ex;
        if (nullhomotopy(m, 1, s, t, g, g + nt, wv, &ez, &ex) != 0) goto out;
        write_bracket(out, m, n, s, t, g, g + nt, wv, sc0, sc1, ext);
    }
    rc = 0;
out:
    f2mat_clear(&k2), f2mat_clear(&k3);
    free(g), free(wv), free(sc0), free(sc1), free(ext);
    return rc;
}

int sec_massey_write(FILE *out, sec_massey *m)
{
    const resolution *res = R(m);
    int sa = m->sa, sb = m->sb;
    deg_t ta = m->ta, tb = m->tb;
    for (int n = 0; n <= res->max_n; n++)
        for (int s = 0; s <= res->max_s; s++) {
            deg_t t = n + s;
            if (!done(m, s, t) || !done(m, s + sa + sb - 2, t + ta + tb) || !done(m, s + sa + sb, t + ta + tb + 1)) continue;
            if (write_bidegree(out, m, n, s, t) != 0) return -1;
        }
    return ferror(out) ? -1 : 0;
}
