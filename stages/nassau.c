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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "stages/nassau.h"
#include "stages/stagefile.h"

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
    int s = c->s;
    deg_t t = c->t;
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
    int rc = rb_append(&c->build, res, s - 1, t, ns->row_idx, ns->row_start[1]);
    if (rc == 0) rc = rb_append(&c->build, res, s, t, zs_idx, ns->nzero_src);
    free(zs_start);
    free(zs_idx);
    if (rc != 0 || rb_alloc(&c->build, ns->ncols > img_cols ? ns->ncols : img_cols) != 0) goto oom;
    return 0;
oom:
    res_fail(res, "out of memory planning Nassau step (%d,%d)", s, t);
    return -1;
}

/* RREF of [block | 0 | I]; returns the reduced augmented matrix and its pivots. */
static int reduce_augmented(const f2mat *block, f2mat *aug, int32_t **pivots, int *rank)
{
    if (f2mat_augment_identity(aug, block) != 0) return -1;
    *pivots = malloc(sizeof **pivots * (aug->cols + 1));
    if (!*pivots) return -1;
    *rank = f2mat_rref(aug, *pivots);
    return *rank < 0 ? -1 : 0;
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
    if (rb_append(&c->build, c->res, c->s - 1, c->t, other, nother) != 0 ||
        rb_alloc(&c->build, ns->ncols) != 0)
        goto oom;
    for (uint32_t i = 0; i < nz0; i++) ns->row_of[ns->row_idx[i]] = f2mat_row(&ns->phase1.D, i);
    for (uint32_t i = 0; i < nother; i++) ns->row_of[other[i]] = f2mat_row(&c->build.D, i);
    free(zero);
    free(other);
    return 0;
oom:
    free(zero);
    free(other);
    res_fail(c->res, "out of memory in Nassau step (%d,%d)", c->s, c->t);
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
    if (res_keep_stage(res, STAGE_MATRIX, c->s, c->t, &block) != 0) {
        rc = -1;
        goto oom;
    }
    if (reduce_augmented(&block, &aug, &piv, &rank) != 0 ||
        f2mat_kernel_from_rref(&aug, nc0, (uint32_t)rank, piv, &K) != 0)
        goto oom;
    f2mat_clear(&aug);
    if (res_keep_stage(res, STAGE_KERNEL, c->s, c->t, &K) != 0) {
        rc = -1;
        goto oom;
    }
    /* zero-signature image of d_s, in the coordinates rows0 */
    if (f2mat_init(&img, ns->nzero_src, nz0) != 0) goto oom;
    if (f2mat_gather(&img, rowp + nz0, ns->nzero_src, rows0, nz0,
                     (uint32_t)freemod_dim(&res->F[c->s - 1], c->t, c->t - 1)) != 0)
        goto oom;
    imgpiv = malloc(sizeof *imgpiv * (nz0 + 1));
    if (!imgpiv || f2mat_rref(&img, imgpiv) < 0) goto oom;
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
    res_fail(res, "out of memory in Nassau step (%d,%d)", c->s, c->t);
    return -1;
}

/* One signature's correction: the quasi-inverse of its block of d_{s-1} (RREF of
 * [block | 0 | I], f2qi) lifts the part of each dx in this signature's columns, read off dx
 * before it changes; x and dx follow. */
static int correct_signature(step_ctx *c, uint32_t code, const uint64_t **rows, uint64_t *lift)
{
    nassau_state *ns = c->ns;
    uint32_t r0 = ns->row_start[code], nr = ns->row_start[code + 1] - r0;
    uint32_t c0 = ns->col_start[code], nc = ns->col_start[code + 1] - c0;
    if (nr == 0 || nc == 0) return 0;
    const uint32_t *ridx = ns->row_idx + r0, *cidx = ns->col_idx + c0;
    uint32_t dwords = (uint32_t)f2vec_words(ns->ncols), lwords = (uint32_t)f2vec_words(nr);
    for (uint32_t k = 0; k < nr; k++) rows[k] = ns->row_of[ridx[k]];
    f2mat block = { 0 }, aug = { 0 };
    f2qi qi = { 0 };
    int32_t *piv = NULL;
    int rank, rc = -1;
    if (f2mat_init(&block, nr, nc) != 0) goto out;
    if (f2mat_gather(&block, rows, nr, cidx, nc, ns->ncols) != 0) goto out;
    if (reduce_augmented(&block, &aug, &piv, &rank) != 0 ||
        f2mat_quasi_inverse_from_rref(&aug, nc, (uint32_t)rank, piv, &qi) != 0)
        goto out;
    f2mat_clear(&aug);
    for (uint32_t a = 0; a < c->n_new; a++) {
        uint64_t *dx = ns->dx + (size_t)a * dwords;
        memset(lift, 0, lwords * sizeof *lift);
        f2qi_apply_gather(&qi, dx, cidx, lift);
        for (uint32_t w = 0; w < lwords; w++)
            for (uint64_t bits = lift[w]; bits; bits &= bits - 1) {
                uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
                f2vec_flip(c->new_gens[a].img, ridx[i]);
                f2vec_xor(dx, rows[i], dwords);
            }
    }
    rc = 0;
out:
    f2mat_clear(&block);
    f2mat_clear(&aug);
    f2qi_clear(&qi);
    free(piv);
    return rc;
}

/* Corrects each new generator x, signature by signature in increasing code order (sseq's
 * order; a forward substitution, so it stays sequential), until d(x) = 0. */
static int nassau_correct(step_ctx *c)
{
    nassau_state *ns = c->ns;
    uint32_t dwords = (uint32_t)f2vec_words(ns->ncols);
    const uint64_t **rows = malloc(((size_t)ns->nrows + 1) * sizeof *rows);
    uint64_t *lift = malloc((f2vec_words(ns->nrows) + 1) * sizeof *lift);
    int rc = rows && lift ? 0 : -1;
    for (uint32_t code = 1; code < ns->ncodes && rc == 0; code++)
        rc = correct_signature(c, code, rows, lift);
    free(rows);
    free(lift);
    if (rc != 0) {
        res_fail(c->res, "out of memory in Nassau step (%d,%d)", c->s, c->t);
        return -1;
    }
    for (uint32_t a = 0; a < c->n_new; a++)
        if (!f2vec_is_zero(ns->dx + (size_t)a * dwords, dwords)) {
            res_fail(c->res, "Nassau step (%d,%d): d(x) != 0 after all corrections (the "
                     "subalgebra is too large here); this is a bug", c->s, c->t);
            return -1;
        }
    return 0;
}

int res_nassau_finish(step_ctx *c)
{
    resolution *res = c->res;
    if (c->n_new && nassau_correct(c) != 0) return -1;
    fm_gen *gens = c->new_gens;
    uint32_t n = c->n_new;
    c->new_gens = NULL;
    c->n_new = 0;
    if (!gens && !(gens = calloc(1, sizeof *gens))) {
        res_fail(res, "out of memory finishing step (%d,%d)", c->s, c->t);
        return -1;
    }
    return res_publish(res, c->s, c->t, n, gens, (uint32_t)freemod_dim(&res->F[c->s - 1], c->t, c->t));
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
     * the jobs and the signature buckets */
    return f2mat_bytes_for(nz0 + nsrc / ncodes + 1, width) + f2mat_bytes_for(nrows, ncols) + f2mat_bytes_for(nz0, nc0 + 64 + nz0) +
           (nrows + nsrc / ncodes) * sizeof(milnor_row_job) + (nrows + ncols + nsrc + 2 * ncodes) * sizeof(uint32_t) * 2;
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
    free(ns);
    c->ns = NULL;
}

/* ---- preimages under d_i for chain-map lifts (stages/lift.c) -------------------------------- */

/* Why this works (measured bit for bit on the sphere through stem 50, s <= 20, and checked
 * exactly at run time by the residual): for the profile B of a step, the rows of d_i of
 * signature σ, restricted to the columns of signature σ, are the zero-signature block Z of d_i
 * at degree t - |σ| under Sq(R)·g <-> Sq(R - σ)·g (rows and columns alike), and such a row has
 * no other bits below signature degree |σ| + 1: d(Sq(σ)·x) = Sq(σ)·d(x) with Sq(σ) in B. So
 * the solve is a forward substitution over the signature degrees |σ| = 0, 1, ..., each level
 * lifted through quasi-inverses of zero-signature blocks of lower degrees (which later steps
 * of the same row reuse: nassau_lift_cache), and only the rows of d_i at the bits of the
 * lifts are multiplied, to update the residual. */

/* The rows of d_i at (i, t) for the basis elements sel[0..n) of F_{i,t} (generators of degree
 * < t, increasing), over the ncols columns of F_{i-1,t}: the multiply on this thread. */
static int build_rows(const resolution *res, int i, deg_t t, const uint32_t *sel, uint32_t n, uint32_t ncols,
                      row_build *b)
{
    memset(b, 0, sizeof *b);
    if (rb_append(b, res, i, t, sel, n) != 0 || rb_alloc(b, ncols) != 0) return -1;
    rb_multiply(b, &res->A, 0, b->nrows);
    return 0;
}

/* A basis element Sq(R)·g of F_{i,t}: the generator's degree u and index g, R = A_{t-u}[e]. */
typedef struct zelt {
    deg_t u;
    uint32_t g, e;
} zelt;

/* The zero-signature block of d_i at (i, t2) under profile h, and its quasi-inverse. Rows:
 * the zero-signature elements of F_{i,t2} on generators of degree < t2, then the generators of
 * degree t2 (u = t2, e = 0); columns: the zero-signature elements of F_{i-1,t2} on generators
 * of degree < t2. Immutable once built. */
typedef struct nassau_zqi {
    milnor_profile h;
    uint32_t nrows, ncols;
    zelt *row, *col;
    uint32_t *row_basis, *col_basis;    /* their indices in F_{i,t2} and F_{i-1,t2} */
    f2qi qi;
    struct nassau_zqi *next;            /* the cache's other profiles at the same (i, t2) */
} nassau_zqi;

struct nassau_lift_cache {
    const resolution *res;
    pthread_mutex_t lock;
    int refs;                           /* lift sets sharing it */
    size_t ncells;
    nassau_zqi **cell;                  /* res_cell(i, t2) */
};

static void zqi_free(nassau_zqi *z)
{
    if (!z) return;
    free(z->row), free(z->col), free(z->row_basis), free(z->col_basis);
    f2qi_clear(&z->qi);
    free(z);
}

nassau_lift_cache *nassau_lift_cache_new(const resolution *res)
{
    nassau_lift_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->res = res;
    c->ncells = ((size_t)res->max_s + 1) * ((size_t)res->max_n + 1);
    c->cell = calloc(c->ncells, sizeof *c->cell);
    if (!c->cell) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->refs = 1;
    return c;
}

nassau_lift_cache *nassau_lift_cache_ref(nassau_lift_cache *c)
{
    pthread_mutex_lock(&c->lock);
    c->refs++;
    pthread_mutex_unlock(&c->lock);
    return c;
}

void nassau_lift_cache_free(nassau_lift_cache *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->lock);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&c->lock);
    if (!last) return;
    for (size_t k = 0; k < c->ncells; k++)
        for (nassau_zqi *z = c->cell[k], *n; z; z = n) {
            n = z->next;
            zqi_free(z);
        }
    free(c->cell);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int same_profile(const milnor_profile *a, const milnor_profile *b)
{
    return a->len == b->len && a->truncated == b->truncated && !memcmp(a->h, b->h, (size_t)a->len);
}

/* The zero-signature elements of F_{src,t} on generators of degree < t (and their basis
 * indices), appended after *n entries (arrays sized by the caller). */
static void zero_sig_elts(const resolution *res, int src, deg_t t, const milnor_profile *h, zelt *out,
                          uint32_t *basis, uint32_t *n)
{
    const freemod *F = &res->F[src];
    uint32_t j = 0;
    for (deg_t u = 0; u < t; u++)
        for (uint32_t g = 0; g < F->ngens[u]; g++)
            for (uint32_t e = 0; e < res->A.dim[t - u]; e++, j++)
                if (sig_code(&res->A.elts[t - u][e], h) == 0) {
                    out[*n] = (zelt){ u, g, e };
                    basis[(*n)++] = j;
                }
}

static nassau_zqi *zqi_build(const resolution *res, int i, deg_t t2, const milnor_profile *h)
{
    const freemod *F = &res->F[i];
    uint32_t below = (uint32_t)freemod_dim(F, t2, t2), top = res_ngens(res, i, t2);
    uint32_t width = (uint32_t)freemod_dim(&res->F[i - 1], t2, t2);
    nassau_zqi *z = calloc(1, sizeof *z);
    row_build b = { 0 };
    f2mat block = { 0 }, aug = { 0 };
    const uint64_t **rows = NULL;
    int32_t *piv = NULL;
    int rank, ok = 0;
    if (!z) return NULL;
    z->h = *h;
    z->row = malloc(((size_t)below + top + 1) * sizeof *z->row);
    z->row_basis = malloc(((size_t)below + top + 1) * sizeof *z->row_basis);
    z->col = malloc(((size_t)width + 1) * sizeof *z->col);
    z->col_basis = malloc(((size_t)width + 1) * sizeof *z->col_basis);
    rows = malloc(((size_t)below + top + 1) * sizeof *rows);
    if (!z->row || !z->row_basis || !z->col || !z->col_basis || !rows) goto out;
    zero_sig_elts(res, i, t2, h, z->row, z->row_basis, &z->nrows);
    zero_sig_elts(res, i - 1, t2, h, z->col, z->col_basis, &z->ncols);
    uint32_t nz = z->nrows;
    if (build_rows(res, i, t2, z->row_basis, nz, width, &b) != 0) goto out;
    for (uint32_t k = 0; k < nz; k++) rows[k] = f2mat_row(&b.D, k);
    for (uint32_t k = 0; k < top; k++) {        /* the generators of degree t2: their images */
        z->row[z->nrows] = (zelt){ t2, k, 0 };
        z->row_basis[z->nrows] = below + k;
        rows[z->nrows++] = F->gens[t2][k].img;
    }
    if (f2mat_init(&block, z->nrows, z->ncols) != 0) goto out;
    if (f2mat_gather(&block, rows, nz, z->col_basis, z->ncols, width) != 0) goto out;
    for (uint32_t k = 0; k < top; k++) {        /* images: gather only within their bits */
        const fm_gen *g = &F->gens[t2][k];
        f2mat one = block;
        one.data = f2mat_row(&block, nz + k);
        one.rows = 1;
        if (f2mat_gather(&one, &rows[nz + k], 1, z->col_basis, z->ncols, g->bits < width ? g->bits : width) != 0)
            goto out;
    }
    if (reduce_augmented(&block, &aug, &piv, &rank) != 0 ||
        f2mat_quasi_inverse_from_rref(&aug, z->ncols, (uint32_t)rank, piv, &z->qi) != 0)
        goto out;
    ok = 1;
out:
    rb_clear(&b);
    f2mat_clear(&block);
    f2mat_clear(&aug);
    free(piv);
    free(rows);
    if (!ok) {
        zqi_free(z);
        return NULL;
    }
    return z;
}

/* Z at (i, t2) under h: from the cache (built and added when missing), or built for the
 * caller alone (*owned = 1) without one. NULL: out of memory. */
static nassau_zqi *zqi_get(nassau_lift_cache *c, const resolution *res, int i, deg_t t2, const milnor_profile *h,
                           int *owned)
{
    *owned = !c;
    if (!c) return zqi_build(res, i, t2, h);
    size_t cell = res_cell(res, i, t2);
    pthread_mutex_lock(&c->lock);
    nassau_zqi *z = c->cell[cell];
    while (z && !same_profile(&z->h, h)) z = z->next;
    pthread_mutex_unlock(&c->lock);
    if (z) return z;
    nassau_zqi *mine = zqi_build(res, i, t2, h);
    if (!mine) return NULL;
    pthread_mutex_lock(&c->lock);
    for (z = c->cell[cell]; z && !same_profile(&z->h, h); z = z->next) {}
    if (!z) {                       /* not added meanwhile by another step */
        mine->next = c->cell[cell];
        c->cell[cell] = z = mine;
        mine = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    zqi_free(mine);
    return z;
}

/* The slots of the signature with code `code` under h, and its degree |σ|. */
static uint32_t sig_of_code(uint32_t code, const milnor_profile *h, uint32_t *sig)
{
    uint32_t deg = 0;
    memset(sig, 0, MILNOR_MAX_LEN * sizeof *sig);
    for (int k = 0; k < h->len; k++) {
        sig[k] = code & ((1u << h->h[k]) - 1);
        code >>= h->h[k];
        deg += sig[k] * milnor_xi_degree[k];
    }
    return deg;
}

/* Index in F_{src,t} of Sq(R + σ)·g for the element x = Sq(R)·g of degree t2 = t - |σ|. */
static uint32_t shifted(const resolution *res, int src, deg_t t, deg_t t2, const zelt *x, const uint32_t *sig)
{
    const milnor_elt *R = &res->A.elts[t2 - x->u][x->e];
    uint32_t r[MILNOR_MAX_LEN];
    for (int k = 0; k < MILNOR_MAX_LEN; k++) r[k] = ((uint32_t)k < R->len ? R->r[k] : 0) + sig[k];
    milnor_elt S;
    milnor_elt_set(&S, r, MILNOR_MAX_LEN);
    return (uint32_t)freemod_offset(&res->F[src], t, x->u, x->g) + milnor_index(&res->A, &S);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* R's row j ^= d of the basis element idx of F_{i,t}, for every (j, idx) in pend[0..n) (pairs,
 * j first): the rows at those elements are multiplied once each (the generators of degree t,
 * idx >= below, are their images G). 0, or -1 out of memory. */
static int apply_lifts(const resolution *res, int i, deg_t t, uint32_t below, const f2mat *G, uint32_t *pend,
                       size_t n, f2mat *R)
{
    uint32_t *sel = malloc((n + 1) * sizeof *sel), nsel = 0;
    row_build b = { 0 };
    if (!sel) return -1;
    for (size_t k = 0; k < n; k++)
        if (pend[2 * k + 1] < below) sel[nsel++] = pend[2 * k + 1];
    qsort(sel, nsel, sizeof *sel, cmp_u32);
    uint32_t u = 0;
    for (uint32_t k = 0; k < nsel; k++)
        if (!u || sel[u - 1] != sel[k]) sel[u++] = sel[k];
    nsel = u;
    int rc = build_rows(res, i, t, sel, nsel, R->cols, &b);
    for (size_t k = 0; k < n && !rc; k++) {
        uint32_t j = pend[2 * k], idx = pend[2 * k + 1];
        const uint64_t *row;
        if (idx >= below) row = f2mat_row(G, idx - below);
        else row = f2mat_row(&b.D, (uint32_t)((uint32_t *)bsearch(&idx, sel, nsel, sizeof *sel, cmp_u32) - sel));
        f2vec_xor(f2mat_row(R, j), row, f2vec_words(R->cols));
    }
    rb_clear(&b);
    free(sel);
    return rc;
}

int res_nassau_preimages(const resolution *res, nassau_lift_cache *cache, int i, deg_t t, const f2mat *Y, f2mat *X)
{
    memset(X, 0, sizeof *X);
    if (i < 1 || !res_nassau_applies(res->module)) return 1;
    milnor_profile h = optimal_for(i + 1, t - res_module_top(res));
    uint32_t ncodes = 1u << profile_total(&h);
    if (ncodes < 2) return 1;              /* one block: the whole matrix, lift_solve is cheaper */
    const freemod *F = &res->F[i];
    uint32_t below = (uint32_t)freemod_dim(F, t, t), top = res_ngens(res, i, t);
    uint32_t ncols = (uint32_t)freemod_dim(&res->F[i - 1], t, t);
    f2mat R = { 0 }, G = { 0 };
    uint32_t *sigdeg = malloc(((size_t)ncodes + 1) * sizeof *sigdeg), sig[MILNOR_MAX_LEN], maxdeg = 0;
    uint32_t *colmap = NULL, *rowmap = NULL, *pend = NULL;
    uint64_t *lift = NULL;
    size_t npend = 0, pendcap = 0;
    nassau_zqi *z = NULL;
    int rc = -1, owned = 0;
    if (!sigdeg || f2mat_copy(&R, Y) != 0 || f2mat_init(X, Y->rows, below + top) != 0 || f2mat_init(&G, top, ncols) != 0)
        goto out;
    R.cols = ncols;
    for (uint32_t k = 0; k < top; k++) {   /* the generators' images, cut to the columns */
        const fm_gen *g = &F->gens[t][k];
        uint32_t bits = g->bits < ncols ? g->bits : ncols;
        memcpy(f2mat_row(&G, k), g->img, f2vec_words(bits) * sizeof(uint64_t));
        if (bits & 63) f2mat_row(&G, k)[bits >> 6] &= ((uint64_t)1 << (bits & 63)) - 1;
    }
    for (uint32_t c = 0; c < ncodes; c++) {
        sigdeg[c] = sig_of_code(c, &h, sig);
        if (sigdeg[c] > maxdeg) maxdeg = sigdeg[c];
    }
    /* level by level in |σ|: every signature of the level lifted from the same residual (the
     * blocks of one level do not meet), then the residual updated by d of all their lifts */
    for (uint32_t d = 0; d <= maxdeg; d++) {
        deg_t t2 = t - (deg_t)d;
        if (t2 < i) break;                 /* F_i is zero there: nothing to lift with */
        z = NULL;
        owned = 0;
        npend = 0;
        for (uint32_t c = 0; c < ncodes; c++) {
            if (sigdeg[c] != d) continue;
            if (!z && !(z = zqi_get(cache, res, i, t2, &h, &owned))) goto out;
            if (!z->qi.preimage.rows) break;
            sig_of_code(c, &h, sig);
            free(colmap), free(rowmap), free(lift);
            colmap = malloc(((size_t)z->ncols + 1) * sizeof *colmap);
            rowmap = malloc(((size_t)z->nrows + 1) * sizeof *rowmap);
            lift = malloc((f2vec_words(z->nrows) + 1) * sizeof *lift);
            if (!colmap || !rowmap || !lift) goto out;
            for (uint32_t k = 0; k < z->ncols; k++)
                colmap[k] = d ? shifted(res, i - 1, t, t2, &z->col[k], sig) : z->col_basis[k];
            for (uint32_t k = 0; k < z->nrows; k++)
                rowmap[k] = d ? shifted(res, i, t, t2, &z->row[k], sig) : z->row_basis[k];
            for (uint32_t j = 0; j < R.rows; j++) {
                memset(lift, 0, f2vec_words(z->nrows) * sizeof *lift);
                f2qi_apply_gather(&z->qi, f2mat_row(&R, j), colmap, lift);
                for (uint32_t w = 0; w < f2vec_words(z->nrows); w++)
                    for (uint64_t bits = lift[w]; bits; bits &= bits - 1) {
                        uint32_t k = rowmap[w * 64 + (uint32_t)__builtin_ctzll(bits)];
                        f2mat_flip(X, j, k);
                        if (npend == pendcap) {
                            pendcap = pendcap ? 2 * pendcap : 256;
                            uint32_t *np = realloc(pend, 2 * pendcap * sizeof *np);
                            if (!np) goto out;
                            pend = np;
                        }
                        pend[2 * npend] = j, pend[2 * npend + 1] = k, npend++;
                    }
            }
        }
        if (owned) zqi_free(z);
        z = NULL;
        if (npend && apply_lifts(res, i, t, below, &G, pend, npend, &R) != 0) goto out;
    }
    rc = 0;
    for (uint32_t j = 0; j < R.rows && !rc; j++)
        if (!f2vec_is_zero(f2mat_row(&R, j), f2vec_words(ncols))) rc = 1;
out:
    if (owned) zqi_free(z);
    if (rc) f2mat_clear(X);
    f2mat_clear(&R);
    f2mat_clear(&G);
    free(sigdeg), free(colmap), free(rowmap), free(lift), free(pend);
    return rc;
}
