/* nassau.c — Nassau's algorithm for a step (s, t), s >= 2, of the resolution of S_2 or of a
 * finite module without a profile (arXiv 1910.04063; docs/algorithms.md §5, with the degree-restricted reads of §5.4).
 *
 * Maths. For a sub-Hopf-algebra B with profile h (chosen per bidegree, optimal_for below),
 * every basis element Sq(R)·g has a signature σ(R) = (r_i mod 2^{h_i})_i. In the range where
 * Ext_B vanishes the zero-signature part of the resolution, F2 ⊗_B F, is exact, so the new
 * generators at (s, t) are counted on zero-signature rows and columns only: kernel of d_{s-1}
 * there, modulo the image of d_s. Each new generator x (a zero-signature cycle mod higher
 * signatures) is then corrected signature by signature, in a fixed order, by the
 * quasi-inverse of the single-signature block of d_{s-1}, until d(x) = 0 exactly.
 *
 * Reads are degree-restricted: F_{s-1} below degree t, F_{s-2} below degree t-1, F_s below t,
 * so (s, t) depends only on (s, t-1) and (s-1, t-1).
 *
 * Layout. Signatures are coded in mixed radix, slot 0 in the low h_0 bits; increasing code
 * order is sseq's signature order (slot 0 fastest). Basis elements are bucketed by code.
 * Phase 1 builds the zero-signature rows of d_{s-1} and of d_s; phase 2 (only when there are
 * new generators) builds every other row of d_{s-1}.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/nassau.h"
#include "stages/store/stagefile.h"

typedef struct nassau_state {
    milnor_profile h;
    uint32_t ncodes;            /* 2^(sum h_i) */
    /* rows: basis of F_{s-1,t} (gens < t), cols: basis of F_{s-2,t} (gens < t-1) */
    uint32_t nrows, ncols;          /* dim F_{s-1,t} below t; dim F_{s-2,t} below t-1 */
    uint32_t *row_start, *row_idx;  /* bucket code → row_idx[row_start[c] .. row_start[c+1]) */
    uint32_t *col_start, *col_idx;
    uint32_t nzero_src;             /* zero-signature rows of F_{s,t} (the image of d_s) */
    row_build phase1;               /* rows: zero-sig of d_{s-1} (nz0 rows), then of d_s */
    const uint64_t **row_of;        /* row of d_{s-1} for each basis element of F_{s-1,t} */
    uint64_t *dx;                   /* n_new x words(ncols): d of the new generators */
    /* a split finish (res_nassau_finish_parts): the quasi-inverse of each signature's block,
     * made by the parts (made[code] once made), applied and freed by finish in code order;
     * part k makes codes part_code[k] .. part_code[k+1]) */
    uint32_t nparts;
    uint32_t *part_code;
    f2qi *qi;
    _Atomic uint8_t *made;
} nassau_state;

static uint32_t profile_total(const milnor_profile *h)
{
    uint32_t n = 0;
    for (int i = 0; i < h->len; i++) n += h->h[i];
    return n;
}

/* The last profile of Nassau's sequence with t >= (2^len - 1)(s + 1) + top degree, t being
 * the internal degree less the module's top degree (Ext_B(M) vanishes there: docs/algorithms.md
 * §5.2; for S_2 the top is 0). */
static milnor_profile optimal_for(int s, deg_t t)
{
    milnor_profile h = { .truncated = 1, .len = 0 }, best = h;
    for (;;) {
        if ((int64_t)t < (((int64_t)1 << h.len) - 1) * (s + 1) + milnor_profile_top_degree(&h))
            return best;
        best = h;
        milnor_profile_next_nassau(&h);
        if (h.len > MILNOR_MAX_LEN - 1) return best;
    }
}

static uint32_t sig_code(const milnor_elt *R, const milnor_profile *h)
{
    uint32_t code = 0, shift = 0;
    for (int i = 0; i < h->len; i++) {
        uint32_t r = (uint32_t)i < R->len ? R->r[i] : 0;
        code |= (r & ((1u << h->h[i]) - 1)) << shift;
        shift += h->h[i];
    }
    return code;
}

/* Buckets the basis of F_{src,t} (generators of degree < bound) by signature code. */
static int bucket(const resolution *res, int src, deg_t t, deg_t bound, const milnor_profile *h,
                  uint32_t ncodes, uint32_t **start, uint32_t **idx, uint32_t *n)
{
    const freemod *F = &res->F[src];
    *n = (uint32_t)freemod_dim(F, t, bound);
    uint32_t *code = malloc(((size_t)*n + 1) * sizeof *code);
    *start = calloc((size_t)ncodes + 1, sizeof **start);
    *idx = malloc(((size_t)*n + 1) * sizeof **idx);
    if (!code || !*start || !*idx) {
        free(code);
        return -1;
    }
    uint32_t k = 0;
    for (deg_t u = 0; u < bound && u <= t; u++)
        for (uint32_t i = 0; i < F->ngens[u]; i++)
            for (uint32_t r = 0; r < res->A.dim[t - u]; r++)
                code[k++] = sig_code(&res->A.elts[t - u][r], h);
    for (uint32_t j = 0; j < *n; j++) (*start)[code[j] + 1]++;
    for (uint32_t c = 0; c < ncodes; c++) (*start)[c + 1] += (*start)[c];
    uint32_t *fill = malloc(((size_t)ncodes + 1) * sizeof *fill);
    if (!fill) {
        free(code);
        return -1;
    }
    memcpy(fill, *start, ncodes * sizeof *fill);
    for (uint32_t j = 0; j < *n; j++) (*idx)[fill[code[j]]++] = j;
    free(fill);
    free(code);
    return 0;
}


int res_nassau_plan(step_ctx *c)
{
    resolution *res = c->res;
    int s = c->ch.s;
    deg_t t = c->ch.t;
    nassau_state *ns = c->ns = calloc(1, sizeof *ns);
    if (!ns) goto oom;
    ns->h = optimal_for(s, t - res_module_top(res));
    ns->ncodes = 1u << profile_total(&ns->h);
    uint32_t *zs_start = NULL, *zs_idx = NULL, nsrc = 0;
    if (bucket(res, s - 1, t, t, &ns->h, ns->ncodes, &ns->row_start, &ns->row_idx, &ns->nrows) ||
        bucket(res, s - 2, t, t - 1, &ns->h, ns->ncodes, &ns->col_start, &ns->col_idx, &ns->ncols) ||
        bucket(res, s, t, t, &ns->h, ns->ncodes, &zs_start, &zs_idx, &nsrc)) {
        free(zs_start);
        free(zs_idx);
        goto oom;
    }
    ns->nzero_src = zs_start[1];
    uint32_t img_cols = (uint32_t)freemod_dim(&res->F[s - 1], t, t - 1);
    int rc = rb_append(&c->build, &res->F[s - 1], &res->F[s - 2], &res->A, t, ns->row_idx, ns->row_start[1]);
    if (rc == 0) rc = rb_append(&c->build, &res->F[s], &res->F[s - 1], &res->A, t, zs_idx, ns->nzero_src);
    free(zs_start);
    free(zs_idx);
    if (rc != 0 || rb_alloc_unzeroed(&c->build, ns->ncols > img_cols ? ns->ncols : img_cols) != 0) goto oom;
    return 0;
oom:
    res_fail(res, "out of memory planning Nassau step (%d,%d)", s, t);
    return -1;
}

/* Phase 2: every row of d_{s-1} of non-zero signature, in increasing basis order; row_of
 * then maps each basis element of F_{s-1,t} to its row in phase 1 or phase 2. */
static int plan_phase2(step_ctx *c)
{
    nassau_state *ns = c->ns;
    uint32_t nz0 = ns->row_start[1], nother = ns->nrows - nz0, k = 0;
    uint8_t *zero = calloc((size_t)ns->nrows + 1, 1);
    uint32_t *other = malloc(((size_t)nother + 1) * sizeof *other);
    ns->row_of = malloc(((size_t)ns->nrows + 1) * sizeof *ns->row_of);
    if (!zero || !other || !ns->row_of) goto oom;
    for (uint32_t i = 0; i < nz0; i++) zero[ns->row_idx[i]] = 1;
    for (uint32_t j = 0; j < ns->nrows; j++)
        if (!zero[j]) other[k++] = j;
    if (rb_append(&c->build, &c->res->F[c->ch.s - 1], &c->res->F[c->ch.s - 2], &c->res->A, c->ch.t, other, nother) != 0 ||
        rb_alloc_unzeroed(&c->build, ns->ncols) != 0)      /* every row written by the multiply */
        goto oom;
    for (uint32_t i = 0; i < nz0; i++) ns->row_of[ns->row_idx[i]] = f2mat_row(&ns->phase1.D, i);
    for (uint32_t i = 0; i < nother; i++) ns->row_of[other[i]] = f2mat_row(&c->build.D, i);
    free(zero);
    free(other);
    return 0;
oom:
    free(zero);
    free(other);
    res_fail(c->res, "out of memory in Nassau step (%d,%d)", c->ch.s, c->ch.t);
    return -1;
}

int res_nassau_reduce0(step_ctx *c)
{
    resolution *res = c->res;
    nassau_state *ns = c->ns;
    uint32_t nz0 = ns->row_start[1], nc0 = ns->col_start[1];
    const uint32_t *rows0 = ns->row_idx, *cols0 = ns->col_idx;
    f2mat block = { 0 }, aug = { 0 }, img = { 0 }, K = { 0 };
    int32_t *piv = NULL, *imgpiv = NULL;
    int rank, rc = -2;          /* -2: out of memory */
    const uint64_t **rowp = malloc(((size_t)nz0 + ns->nzero_src + 1) * sizeof *rowp);
    if (!rowp) goto oom;
    for (uint32_t k = 0; k < nz0 + ns->nzero_src; k++) rowp[k] = f2mat_row(&c->build.D, k);
    /* zero-signature cycles of d_{s-1} */
    if (f2mat_init(&block, nz0, nc0) != 0) goto oom;
    if (f2mat_gather(&block, rowp, nz0, cols0, nc0, c->build.ncols) != 0) goto oom;
    if (res_keep_stage(res, STAGE_MATRIX, c->ch.s, c->ch.t, &block) != 0) {
        rc = -1;
        goto oom;
    }
    if ((rank = res_rref_augmented(c, &block, &aug, &piv)) < 0 ||
        f2mat_kernel_from_rref(&aug, nc0, (uint32_t)rank, piv, &K) != 0)
        goto oom;
    f2mat_clear(&aug);
    if (res_keep_stage(res, STAGE_KERNEL, c->ch.s, c->ch.t, &K) != 0) {
        rc = -1;
        goto oom;
    }
    /* zero-signature image of d_s, in the coordinates rows0 */
    if (f2mat_init(&img, ns->nzero_src, nz0) != 0) goto oom;
    if (f2mat_gather(&img, rowp + nz0, ns->nzero_src, rows0, nz0,
                     (uint32_t)freemod_dim(&res->F[c->ch.s - 1], c->ch.t, c->ch.t - 1)) != 0)
        goto oom;
    imgpiv = malloc(sizeof *imgpiv * (nz0 + 1));
    if (!imgpiv || res_rref(c, &img, imgpiv) < 0) goto oom;
    /* new generators: kernel vectors whose pivot is not an image pivot */
    uint32_t xwords = (uint32_t)f2vec_words(ns->nrows);
    uint32_t dwords = (uint32_t)f2vec_words(ns->ncols);
    c->new_gens = calloc((size_t)nz0 + 1, sizeof *c->new_gens);
    ns->dx = calloc(((size_t)nz0 + 1) * dwords + 1, sizeof *ns->dx);
    if (!c->new_gens || !ns->dx) goto oom;
    for (uint32_t r = 0; r < K.rows; r++) {
        const uint64_t *row = f2mat_row(&K, r);
        int64_t kp = f2vec_first_bit(row, K.cols);
        if (kp < 0 || imgpiv[kp] >= 0) continue;
        fm_gen *g = &c->new_gens[c->n_new];
        g->bits = ns->nrows;
        g->img = calloc((size_t)xwords + 1, 8);
        if (!g->img) goto oom;
        uint64_t *dx = ns->dx + (size_t)c->n_new * dwords;
        for (uint32_t i = 0; i < nz0; i++)
            if (f2vec_get(row, i)) {
                f2vec_flip(g->img, rows0[i]);
                f2vec_xor(dx, rowp[i], dwords);
            }
        c->n_new++;
    }
    /* phase 1 is kept for its zero-signature rows; plan the others if anything needs fixing */
    ns->phase1 = c->build;
    memset(&c->build, 0, sizeof c->build);
    rc = c->n_new == 0 ? 0 : plan_phase2(c) == 0 ? 1 : -1;
oom:
    free(rowp);
    free(piv);
    free(imgpiv);
    f2mat_clear(&block);
    f2mat_clear(&aug);
    f2mat_clear(&img);
    f2mat_clear(&K);
    if (rc != -2) return rc;
    res_fail(res, "out of memory in Nassau step (%d,%d)", c->ch.s, c->ch.t);
    return -1;
}

/* Signature code's block of d_{s-1}: its rows (in rows[0..nr)) and their columns of the
 * same signature; 0 when it is empty (nothing to correct there). */
static uint32_t block_rows(const nassau_state *ns, uint32_t code, const uint64_t **rows, uint32_t *nc)
{
    uint32_t r0 = ns->row_start[code], nr = ns->row_start[code + 1] - r0;
    *nc = ns->col_start[code + 1] - ns->col_start[code];
    if (nr == 0 || *nc == 0) return 0;
    for (uint32_t k = 0; k < nr; k++) rows[k] = ns->row_of[ns->row_idx[r0 + k]];
    return nr;
}

/* The quasi-inverse of signature code's block (RREF of [block | 0 | I], f2qi; shared with idle
 * workers where the block is large, res_rref_augmented); rows from block_rows. It depends on
 * the rows of d_{s-1} alone, so the blocks are independent (a
 * split finish makes them in parts). 0, or -1 out of memory. */
static int signature_qi(step_ctx *c, uint32_t code, const uint64_t **rows, uint32_t nr, uint32_t nc, f2qi *qi)
{
    const nassau_state *ns = c->ns;
    f2mat block = { 0 }, aug = { 0 };
    int32_t *piv = NULL;
    int rank, rc = -1;
    if (f2mat_init(&block, nr, nc) != 0) goto out;
    if (f2mat_gather(&block, rows, nr, ns->col_idx + ns->col_start[code], nc, ns->ncols) != 0) goto out;
    if ((rank = res_rref_augmented(c, &block, &aug, &piv)) < 0 ||
        f2mat_quasi_inverse_from_rref(&aug, nc, (uint32_t)rank, piv, qi) != 0)
        goto out;
    rc = 0;
out:
    f2mat_clear(&block);
    f2mat_clear(&aug);
    free(piv);
    return rc;
}

/* One signature's correction by its block's quasi-inverse: lifts the part of each dx in this
 * signature's columns, read off dx before it changes; x and dx follow. */
static void correct_signature(step_ctx *c, uint32_t code, const uint64_t **rows, uint32_t nr, const f2qi *qi,
                              uint64_t *lift)
{
    nassau_state *ns = c->ns;
    const uint32_t *ridx = ns->row_idx + ns->row_start[code], *cidx = ns->col_idx + ns->col_start[code];
    uint32_t dwords = (uint32_t)f2vec_words(ns->ncols), lwords = (uint32_t)f2vec_words(nr);
    for (uint32_t a = 0; a < c->n_new; a++) {
        uint64_t *dx = ns->dx + (size_t)a * dwords;
        memset(lift, 0, lwords * sizeof *lift);
        f2qi_apply_gather(qi, dx, cidx, lift);
        for (uint32_t w = 0; w < lwords; w++)
            for (uint64_t bits = lift[w]; bits; bits &= bits - 1) {
                uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
                f2vec_flip(c->new_gens[a].img, ridx[i]);
                f2vec_xor(dx, rows[i], dwords);
            }
    }
}

/* Corrects each new generator x, signature by signature in increasing code order (sseq's
 * order; a forward substitution, so it stays sequential), until d(x) = 0. A signature's
 * quasi-inverse comes from the finish's parts where they ran (every one of them: one that did
 * not is a bug, and fails the run), else it is made here. */
static int nassau_correct(step_ctx *c)
{
    nassau_state *ns = c->ns;
    uint32_t dwords = (uint32_t)f2vec_words(ns->ncols);
    const uint64_t **rows = malloc(((size_t)ns->nrows + 1) * sizeof *rows);
    uint64_t *lift = malloc((f2vec_words(ns->nrows) + 1) * sizeof *lift);
    int rc = rows && lift ? 0 : -1;
    for (uint32_t code = 1; code < ns->ncodes && rc == 0; code++) {
        uint32_t nc, nr = block_rows(ns, code, rows, &nc);
        f2qi own = { 0 }, *qi = ns->qi ? &ns->qi[code] : &own;
        if (nr && qi == &own) rc = signature_qi(c, code, rows, nr, nc, &own);
        else if (nr && !ns->made[code]) rc = -2;
        if (nr && rc == 0) correct_signature(c, code, rows, nr, qi, lift);
        f2qi_clear(qi);
    }
    free(rows);
    free(lift);
    if (rc == -2) {
        res_fail(c->res, "Nassau step (%d,%d): a finish part did not make its quasi-inverses; this is a bug",
                 c->ch.s, c->ch.t);
        return -1;
    }
    if (rc != 0) {
        res_fail(c->res, "out of memory in Nassau step (%d,%d)", c->ch.s, c->ch.t);
        return -1;
    }
    for (uint32_t a = 0; a < c->n_new; a++)
        if (!f2vec_is_zero(ns->dx + (size_t)a * dwords, dwords)) {
            res_fail(c->res, "Nassau step (%d,%d): d(x) != 0 after all corrections (the "
                     "subalgebra is too large here); this is a bug", c->ch.s, c->ch.t);
            return -1;
        }
    return 0;
}

/* The work of signature code's quasi-inverse, for the split: its block's entries. */
static uint64_t block_entries(const void *state, uint32_t code)
{
    const nassau_state *ns = state;
    return (uint64_t)(ns->row_start[code + 1] - ns->row_start[code]) * (ns->col_start[code + 1] - ns->col_start[code]);
}

uint32_t res_nassau_finish_parts(step_ctx *c)
{
    nassau_state *ns = c->ns;
    if (!ns || !c->n_new || c->res->finish_split == 0) return 0;
    if (ns->part_code) return ns->nparts;
    /* contiguous runs of codes, each about total / n entries */
    uint32_t n = res_cut_runs(1, ns->ncodes, block_entries, ns, c->res->finish_split, RES_NASSAU_MAX_FINISH_PARTS,
                              &ns->part_code);
    if (n < 2) return 0;
    ns->qi = calloc(ns->ncodes, sizeof *ns->qi);
    ns->made = calloc(ns->ncodes, sizeof *ns->made);
    if (!ns->qi || !ns->made) {   /* finish makes them all itself */
        free(ns->part_code);
        free(ns->qi);
        free((void *)ns->made);
        ns->part_code = NULL, ns->qi = NULL, ns->made = NULL;
        return 0;
    }
    return ns->nparts = n;
}

void res_nassau_finish_part(step_ctx *c, uint32_t k, uint32_t n)
{
    nassau_state *ns = c->ns;
    if (!ns || !ns->part_code || n != ns->nparts || k >= n) return;
    uint32_t most = 0;
    for (uint32_t code = ns->part_code[k]; code < ns->part_code[k + 1]; code++)
        if (ns->row_start[code + 1] - ns->row_start[code] > most) most = ns->row_start[code + 1] - ns->row_start[code];
    const uint64_t **rows = malloc(((size_t)most + 1) * sizeof *rows);
    int rc = rows ? 0 : -1;
    for (uint32_t code = ns->part_code[k]; rc == 0 && code < ns->part_code[k + 1]; code++) {
        uint32_t nc, nr = block_rows(ns, code, rows, &nc);
        if (nr && (rc = signature_qi(c, code, rows, nr, nc, &ns->qi[code])) != 0) f2qi_clear(&ns->qi[code]);
        else ns->made[code] = 1;
    }
    free(rows);
    if (rc != 0) res_fail(c->res, "out of memory in Nassau step (%d,%d)", c->ch.s, c->ch.t);
}

int res_nassau_finish(step_ctx *c)
{
    resolution *res = c->res;
    if (c->n_new && nassau_correct(c) != 0) return -1;
    fm_gen *gens = c->new_gens;
    uint32_t n = c->n_new;
    c->new_gens = NULL;
    c->n_new = 0;
    if (gens) {     /* sized for every zero-signature cycle; the table stays as long as the run */
        fm_gen *fit = realloc(gens, (size_t)(n ? n : 1) * sizeof *gens);
        if (fit) gens = fit;
    }
    if (!gens && !(gens = calloc(1, sizeof *gens))) {
        res_fail(res, "out of memory finishing step (%d,%d)", c->ch.s, c->ch.t);
        return -1;
    }
    return res_publish(res, c->ch.s, c->ch.t, n, gens, (uint32_t)freemod_dim(&res->F[c->ch.s - 1], c->ch.t, c->ch.t));
}

uint64_t res_nassau_footprint(const resolution *res, int s, deg_t t)
{
    milnor_profile h = optimal_for(s, t);
    uint64_t ncodes = (uint64_t)1 << profile_total(&h);
    uint64_t nrows = freemod_dim(&res->F[s - 1], t, t), ncols = freemod_dim(&res->F[s - 2], t, t - 1);
    uint64_t nsrc = freemod_dim(&res->F[s], t, t);
    uint64_t nz0 = nrows / ncodes + 1, nc0 = ncols / ncodes + 1, width = ncols > nrows ? ncols : nrows;
    /* phase 1 (zero-signature rows of d_{s-1} and d_s) and phase 2 (the other rows of
     * d_{s-1}), both kept to the end; the zero-signature block reduced with its identity;
     * the jobs and the signature buckets; where the finish would be split, every signature's
     * quasi-inverse at once (rank x rows of its block: about nz0 bits a row of d_{s-1}) */
    uint64_t split = res->finish_split && nrows / ncodes * ncols >= 2 * res->finish_split ? f2mat_bytes_for(nrows, nz0) : 0;
    return f2mat_bytes_for(nz0 + nsrc / ncodes + 1, width) + f2mat_bytes_for(nrows, ncols) + f2mat_bytes_for(nz0, nc0 + 64 + nz0) +
           (nrows + nsrc / ncodes) * sizeof(milnor_row_job) + (nrows + ncols + nsrc + 2 * ncodes) * sizeof(uint32_t) * 2 + split;
}

void res_nassau_free(step_ctx *c)
{
    nassau_state *ns = c->ns;
    if (!ns) return;
    free(ns->row_start);
    free(ns->row_idx);
    free(ns->col_start);
    free(ns->col_idx);
    rb_clear(&ns->phase1);
    free(ns->row_of);
    free(ns->dx);
    for (uint32_t code = 0; ns->qi && code < ns->ncodes; code++) f2qi_clear(&ns->qi[code]);
    free(ns->qi);
    free((void *)ns->made);
    free(ns->part_code);
    free(ns);
    c->ns = NULL;
}

milnor_profile res_nassau_profile(int s, deg_t t) { return optimal_for(s, t); }

uint32_t res_nassau_ncodes(const milnor_profile *h) { return 1u << profile_total(h); }

uint32_t res_nassau_sig_code(const milnor_elt *R, const milnor_profile *h) { return sig_code(R, h); }
