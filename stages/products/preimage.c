/* preimage.c — preimages under a resolution's differentials, for the steps of lifts (see
 * preimage.h). */
#include "stages/products/preimage.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/nassau.h"
#include "stages/resolve/resolution_p.h"
#include "stages/rowbuild.h"

/* ---- one RREF over the whole matrix of d_i, and the full quasi-inverse ------------------------ */

/* The matrix of d_i on the whole basis of F_{i,t} (generators of degree <= t: the products for
 * those below t, the generators' own images for those of degree t) into b->D, whose columns
 * are F_{i-1,t} on generators of degree < t; for i = 0, the augmentation F_{0,t} -> M_t (its
 * rows from the module's action, no products). 0, or -1 out of memory. */
static int build_differential(const resolution *res, int i, deg_t t, row_build *b)
{
    const freemod *F = &res->F[i];
    uint32_t below = (uint32_t)freemod_dim(F, t, t), top = res_ngens(res, i, t);
    uint32_t cols = i ? (uint32_t)freemod_dim(&res->F[i - 1], t, t) : res_module_dim(res, t);
    memset(b, 0, sizeof *b);
    if (i && rb_append(b, &res->F[i], &res->F[i - 1], &res->A, t, NULL, 0) != 0) return -1;
    b->nrows = below + top;
    /* unstable: the products over the whole of A's blocks, then narrowed (freemod_narrow) */
    if (rb_alloc(b, i && res->unstable ? (uint32_t)freemod_dim_wide(&res->F[i - 1], t, t) : cols) != 0) return -1;
    if (i) rb_multiply(b, &res->A, 0, below);
    else res_module_rows(res, t, &b->D);
    if (i && res->unstable) {
        if (freemod_narrow(&res->F[i - 1], t, t, &b->D) != 0) return -1;
        b->ncols = cols;
    }
    for (uint32_t k = 0; k < top; k++) {
        const fm_gen *g = &F->gens[t][k];
        uint32_t bits = g->bits < cols ? g->bits : cols;
        uint64_t *row = f2mat_row(&b->D, below + k);
        memcpy(row, g->img, f2vec_words(bits) * sizeof *row);
        if (bits & 63) row[bits >> 6] &= ((uint64_t)1 << (bits & 63)) - 1;
    }
    return 0;
}

/* D's rows in reverse order, in place. */
static void reverse_rows(f2mat *D)
{
    for (uint32_t r = 0, n = D->rows; r < n / 2; r++) {
        uint64_t *a = f2mat_row(D, r), *c = f2mat_row(D, n - 1 - r);
        for (size_t w = 0; w < D->stride; w++) {
            uint64_t tmp = a[w];
            a[w] = c[w];
            c[w] = tmp;
        }
    }
}

int preimage_qi_compute(const resolution *res, int i, deg_t t, preimage_qi *qi)
{
    memset(qi, 0, sizeof *qi);
    row_build b;
    f2mat T = { 0 };
    int32_t *pivots = NULL;
    uint32_t *cols = NULL;
    const uint64_t **rows = NULL;
    int rc = -1;
    if (build_differential(res, i, t, &b) != 0) goto out;
    uint32_t n = b.D.rows, m = b.D.cols, seg = f2mat_segment_start(n);
    qi->src_dim = n;
    qi->tgt_dim = m;
    /* [D_rev^T | I]: row j is column j of D (its rows reversed), then e_j */
    reverse_rows(&b.D);
    if (f2mat_init(&T, m, seg + m) != 0) goto out;
    f2mat_transpose_into(&b.D, &T, 0);
    rb_clear(&b);
    for (uint32_t j = 0; j < m; j++) f2mat_flip(&T, j, seg + j);
    pivots = malloc(((size_t)n + 1) * sizeof *pivots);
    int rank = pivots ? f2mat_echelon_prefix(&T, n, pivots) : -1;
    if (rank < 0) goto out;
    qi->rank = (uint32_t)rank;
    qi->pivot = malloc(((size_t)rank + 1) * sizeof *qi->pivot);
    cols = malloc(((size_t)rank + 1) * sizeof *cols);
    rows = malloc(((size_t)rank + 1) * sizeof *rows);
    if (!qi->pivot || !cols || !rows || f2mat_init(&qi->q, m, m) != 0 || f2mat_init(&qi->u, (uint32_t)rank, (uint32_t)rank) != 0)
        goto out;
    for (uint32_t p = 0; p < n; p++)         /* pivot row r <-> the r-th pivot: x's bit n-1-p */
        if (pivots[p] >= 0) {
            qi->pivot[pivots[p]] = (int32_t)(n - 1 - p);
            cols[pivots[p]] = p;
        }
    for (int r = 0; r < rank; r++) rows[r] = f2mat_row(&T, (uint32_t)r);
    if (f2mat_gather(&qi->u, rows, (uint32_t)rank, cols, (uint32_t)rank, n) != 0) goto out;
    for (uint32_t j = 0; j < m; j++)            /* T's right part: the row operations */
        memcpy(f2mat_row(&qi->q, j), f2mat_row(&T, j) + (seg >> 6), f2vec_words(m) * sizeof(uint64_t));
    rc = 0;
out:
    free(pivots);
    free(cols);
    free(rows);
    rb_clear(&b);
    f2mat_clear(&T);
    if (rc) preimage_qi_clear(qi);
    return rc;
}

int preimage_solve(const resolution *res, int i, deg_t t, const f2mat *Y, f2mat *X, uint32_t *bad)
{
    row_build b;
    f2mat T = { 0 };
    int32_t *pivots = NULL;
    int rc = -1;
    if (build_differential(res, i, t, &b) != 0) goto out;
    uint32_t n = b.D.rows, seg = f2mat_segment_start(n);
    /* The unknowns in reverse basis order, so that the free ones set to 0 are those where the
     * kernel of d_i has its leading entries: the preimage sseq's quasi-inverse gives (the I part
     * of the fully reduced RREF of [D | I]), and so the same homotopies, whose values off the
     * generators' units secondary products read. */
    reverse_rows(&b.D);
    /* [D^T | Y^T]: one row per column of D; the unknowns are the rows of D (reversed) */
    if (f2mat_init(&T, b.D.cols, seg + Y->rows) != 0) goto out;
    f2mat_transpose_into(&b.D, &T, 0);
    rb_clear(&b);
    f2mat y = *Y;
    y.cols = T.rows;                 /* Y's columns are D's (bits beyond are zero) */
    f2mat_transpose_into(&y, &T, seg);
    pivots = malloc(((size_t)T.cols + 1) * sizeof *pivots);
    int rank = pivots ? f2mat_rref(&T, pivots) : -1;
    if (rank < 0 || f2mat_init(X, Y->rows, n) != 0) goto out;
    rc = 0;
    for (uint32_t p = 0; p < T.cols && !rc; p++) {   /* x[p] = right-hand side of p's pivot row */
        if (pivots[p] < 0) continue;
        uint32_t r = (uint32_t)pivots[p];
        if (p >= seg) {                  /* a row 0 = y_j: y_j is not in the image */
            *bad = p - seg;
            f2mat_clear(X);
            rc = -2;
            break;
        }
        for (uint32_t j = 0; j < Y->rows; j++)
            if (f2mat_get(&T, r, seg + j)) f2mat_flip(X, j, n - 1 - p);
    }
out:
    free(pivots);
    rb_clear(&b);
    f2mat_clear(&T);
    return rc;
}

/* The parity of the bits a and b share, over w words. */
static int dot(const uint64_t *a, const uint64_t *b, size_t w)
{
    uint64_t acc = 0;
    for (size_t k = 0; k < w; k++) acc ^= a[k] & b[k];
    return __builtin_parityll(acc);
}

int preimage_qi_apply(const preimage_qi *qi, const uint64_t *y, uint64_t *x, uint64_t *z)
{
    const uint32_t m = qi->tgt_dim, rank = qi->rank;
    const size_t w = f2vec_words(m), wr = f2vec_words(rank);
    /* (M y)_r for the rows r >= rank, a basis of the left kernel of D^T: y is in the image iff
     * all are 0 (M's columns past m are zero, so y's bits there are not read) */
    for (uint32_t r = rank; r < m; r++)
        if (dot(f2mat_row(&qi->q, r), y, w)) return -1;
    /* E z = M y on the pivot columns, E's rows there (u) upper unitriangular: back substitution */
    memset(z, 0, wr * sizeof *z);
    for (uint32_t r = rank; r-- > 0;)
        if (dot(f2mat_row(&qi->q, r), y, w) ^ dot(f2mat_row(&qi->u, r), z, wr)) {
            z[r >> 6] |= (uint64_t)1 << (r & 63);
            x[qi->pivot[r] >> 6] ^= (uint64_t)1 << (qi->pivot[r] & 63);
        }
    return 0;
}

void preimage_qi_clear(preimage_qi *qi)
{
    f2mat_clear(&qi->q);
    f2mat_clear(&qi->u);
    free(qi->pivot);
    memset(qi, 0, sizeof *qi);
}

/* ---- at an odd prime: the RREF of [D | 0 | I] over F_p ------------------------------------ */

/* The matrix of d_i on F_{i,t} (generators of degree <= t) into D, initialised here: a row
 * x·d(h) per basis element x·h, over F_{i-1} in degree t (generators below t), or at i = 0 the
 * augmentation's x·ε(h) over the module in degree t. Over an unstable F the rows list each
 * block's excess order and the products land over A_p's whole blocks, narrowed at the end. 0,
 * -1 out of memory, -3 a product outside the profile's algebra. */
static int d_matrix_p(const resolution *res, int i, deg_t t, fpmat *D)
{
    const milnor_p_sub *B = &res->odd->B;
    const freemod *F = &res->F[i], *G = i ? &res->F[i - 1] : NULL;
    uint32_t nrows = (uint32_t)freemod_dim(F, t, t + 1);
    uint32_t ncols = i ? (uint32_t)freemod_dim_wide(G, t, t) : res_module_dim(res, t);
    if (fpmat_init(D, res->prime, nrows, ncols) != 0) return -1;
    res_p_term *terms = NULL;
    size_t cap = 0;
    int rc = 0;
    uint32_t row = 0;
    for (deg_t u = i; u <= t && !rc; u++)
        for (uint32_t h = 0; h < F->ngens[u] && !rc; h++) {
            const fm_gen *g = &F->gens[u][h];
            size_t n = 0;
            if (i && (size_t)g->bits + 1 > cap) {
                res_p_term *nt = realloc(terms, ((size_t)g->bits + 1) * sizeof *nt);
                if (!nt) {
                    rc = -1;
                    break;
                }
                terms = nt;
                cap = (size_t)g->bits + 1;
            }
            if (i) n = res_p_terms(res, i, u, h, t, terms);
            for (uint32_t r = 0, blen = freemod_block(F, t - u, u); r < blen && !rc; r++, row++) {
                uint32_t x = F->ex ? excess_index(F->ex, t - u, r) : r;
                if (!i) res_p_row0_add(res, u, g, t, x, 1, fpmat_row(D, row));
                else if (res_p_row_add(res, terms, n, milnor_p_sub_elt(B, t - u, x), 1, fpmat_row(D, row)) != 0)
                    rc = -3;
            }
        }
    free(terms);
    if (!rc && i && freemod_narrow_p(G, t, t, D) != 0) rc = -1;
    if (rc) fpmat_clear(D);
    return rc;
}

int preimage_solve_p(const resolution *res, int i, deg_t t, const fpmat *Y, fpmat *X, uint32_t *bad)
{
    uint32_t p = res->prime;
    fpmat D = { 0 }, aug = { 0 };
    int32_t *pivots = NULL;
    uint8_t *r = NULL;
    int rc = d_matrix_p(res, i, t, &D);
    if (rc) return rc;
    rc = -1;
    uint32_t ncols = D.cols, seg = fpmat_segment_start(ncols);
    if (fpmat_augment_identity(&aug, &D) != 0 || !(pivots = malloc(sizeof *pivots * ((size_t)aug.cols + 1))) ||
        !(r = malloc((size_t)ncols + 1)) || fpmat_rref(&aug, pivots) < 0 || fpmat_init(X, p, Y->rows, D.rows) != 0)
        goto out;
    for (uint32_t k = 0; k < Y->rows; k++) {
        uint8_t *x = fpmat_row(X, k);
        memcpy(r, fpmat_row(Y, k), ncols);
        for (uint32_t c = 0; c < ncols; c++) {  /* pivot rows are 1 at their pivot, 0 at the others' */
            if (!r[c]) continue;
            if (pivots[c] < 0) {
                *bad = k;
                fpmat_clear(X);
                rc = -2;
                goto out;
            }
            const uint8_t *prow = fpmat_row(&aug, (uint32_t)pivots[c]);
            uint32_t coef = r[c];
            fpvec_addmul(r, prow, p - coef, ncols, p);
            fpvec_addmul(x, prow + seg, coef, D.rows, p);
        }
    }
    rc = 0;
out:
    fpmat_clear(&D);
    fpmat_clear(&aug);
    free(pivots);
    free(r);
    return rc;
}

uint64_t preimage_solve_p_bytes(const resolution *res, int i, deg_t t, uint64_t rows)
{
    uint64_t dim = freemod_dim(&res->F[i], t, t + 1), below = i ? freemod_dim(&res->F[i - 1], t, t) : res_module_dim(res, t);
    uint64_t wide = i && res->unstable ? freemod_dim_wide(&res->F[i - 1], t, t) : 0;
    uint64_t seg = (below + 63) & ~(uint64_t)63;
    return 4096 + rows * seg + dim * seg + dim * (((seg + dim) + 63) & ~(uint64_t)63) + (rows + dim) * wide;
}

/* ---- through Nassau's signature blocks ------------------------------------------------------- */

/* Why this works (measured bit for bit on the sphere through stem 50, s <= 20, and checked
 * exactly at run time by the residual): for the profile B of a step, the rows of d_i of
 * signature σ, restricted to the columns of signature σ, are the zero-signature block Z of d_i
 * at degree t - |σ| under Sq(R)·g <-> Sq(R - σ)·g (rows and columns alike), and such a row has
 * no other bits below signature degree |σ| + 1: d(Sq(σ)·x) = Sq(σ)·d(x) with Sq(σ) in B. So
 * the solve is a forward substitution over the signature degrees |σ| = 0, 1, ..., each level
 * lifted through quasi-inverses of zero-signature blocks of lower degrees (which later steps
 * of the same row reuse: preimage_cache), and only the rows of d_i at the bits of the
 * lifts are multiplied, to update the residual. */

/* The rows of d_i at (i, t) for the basis elements sel[0..n) of F_{i,t} (generators of degree
 * < t, increasing), over the ncols columns of F_{i-1,t}: the multiply on this thread. */
static int build_rows(const resolution *res, int i, deg_t t, const uint32_t *sel, uint32_t n, uint32_t ncols,
                      row_build *b)
{
    memset(b, 0, sizeof *b);
    if (rb_append(b, &res->F[i], &res->F[i - 1], &res->A, t, sel, n) != 0 || rb_alloc(b, ncols) != 0) return -1;
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

struct preimage_cache {
    const resolution *res;
    pthread_mutex_t lock;
    int refs;                           /* lift sets sharing it */
    size_t ncells;
    nassau_zqi **cell;                  /* res_cell(i, t2) */
    preimage_qi **qi;                   /* preimage_cache_keep_qis: res_cell(i, t), or NULL */
    uint8_t *qi_state;                  /* the same cells: QI_NONE, QI_BUILDING (by one thread), QI_SETTLED */
    pthread_cond_t qi_settled;          /* broadcast when a cell leaves QI_BUILDING */
    uint64_t qi_budget, qi_bytes;       /* qi_bytes: those held */
    uint64_t qi_built, qi_used, qi_over;   /* built, applied (a step), refused by the budget */
    uint64_t qi_missed;                 /* steps solved without one (the budget was spent) */
};

enum { QI_NONE, QI_BUILDING, QI_SETTLED };

static void zqi_free(nassau_zqi *z)
{
    if (!z) return;
    free(z->row), free(z->col), free(z->row_basis), free(z->col_basis);
    f2qi_clear(&z->qi);
    free(z);
}

preimage_cache *preimage_cache_new(const resolution *res)
{
    preimage_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->res = res;
    c->ncells = ((size_t)res->max_s + 1) * ((size_t)res->max_n + 1);
    c->cell = calloc(c->ncells, sizeof *c->cell);
    if (!c->cell) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->qi_settled, NULL);
    c->refs = 1;
    return c;
}

preimage_cache *preimage_cache_ref(preimage_cache *c)
{
    pthread_mutex_lock(&c->lock);
    c->refs++;
    pthread_mutex_unlock(&c->lock);
    return c;
}

void preimage_cache_free(preimage_cache *c)
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
    for (size_t k = 0; c->qi && k < c->ncells; k++)
        if (c->qi[k]) {
            preimage_qi_clear(c->qi[k]);
            free(c->qi[k]);
        }
    free(c->qi);
    free(c->qi_state);
    free(c->cell);
    pthread_cond_destroy(&c->qi_settled);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

int preimage_cache_keep_qis(preimage_cache *c, uint64_t budget)
{
    pthread_mutex_lock(&c->lock);
    if (!c->qi_state) c->qi_state = calloc(c->ncells, sizeof *c->qi_state);
    if (!c->qi && c->qi_state) c->qi = calloc(c->ncells, sizeof *c->qi);
    if (c->qi) c->qi_budget = budget;
    int rc = c->qi ? 0 : -1;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

preimage_qi_stats preimage_cache_qi_stats(preimage_cache *c)
{
    pthread_mutex_lock(&c->lock);
    preimage_qi_stats s = { c->qi_built, c->qi_used, c->qi_over, c->qi_missed, c->qi_bytes, c->qi_budget };
    pthread_mutex_unlock(&c->lock);
    return s;
}

/* The kept quasi-inverse of d_i at (i, t), built now if it is not there and the budget has room:
 * NULL when there is none (no QIs, the budget spent, out of memory). One built here that does
 * not fit the budget is still returned, with *own set: the caller applies it and frees it (it
 * would otherwise solve d_i again). One thread builds a cell's (QI_BUILDING) while the others
 * that need it wait for it. ahead (preimage_cache_prepare): build it only if no one has, and
 * return NULL unless kept. */
static const preimage_qi *qi_get(preimage_cache *c, const resolution *res, int i, deg_t t, preimage_qi **own,
                                 int ahead)
{
    *own = NULL;
    if (!c || !c->qi || i < 1 || i > res->max_s || t - i > res->max_n || t < i) return NULL;
    size_t cell = res_cell(res, i, t);
    pthread_mutex_lock(&c->lock);
    while (!ahead && !c->qi[cell] && c->qi_state[cell] == QI_BUILDING) pthread_cond_wait(&c->qi_settled, &c->lock);
    const preimage_qi *q = c->qi[cell];
    int room = c->qi_bytes < c->qi_budget, claim = !q && room && c->qi_state[cell] == QI_NONE;
    if (claim) c->qi_state[cell] = QI_BUILDING;
    pthread_mutex_unlock(&c->lock);
    if (q || !room || (ahead && !claim)) return ahead ? NULL : q;
    preimage_qi *n = malloc(sizeof *n);
    if (!n || preimage_qi_compute(res, i, t, n) != 0) {
        free(n);
        n = NULL;
    }
    uint64_t bytes = n ? f2mat_bytes(&n->q) + f2mat_bytes(&n->u) + ((uint64_t)n->rank + 1) * sizeof *n->pivot : 0;
    pthread_mutex_lock(&c->lock);
    if (n && !c->qi[cell] && c->qi_bytes + bytes <= c->qi_budget) {
        c->qi[cell] = n, n = NULL;
        c->qi_bytes += bytes;
        c->qi_built++;
    } else if (n && !c->qi[cell]) c->qi_over++;
    q = c->qi[cell];
    if (claim) {                        /* settled (a failed build may be tried again) */
        c->qi_state[cell] = q ? QI_SETTLED : QI_NONE;
        pthread_cond_broadcast(&c->qi_settled);
    }
    pthread_mutex_unlock(&c->lock);
    if (n && (q || ahead)) {            /* another thread's is kept, or ahead of no step */
        preimage_qi_clear(n);
        free(n);
    } else if (n)                       /* none fits: this step's alone */
        q = *own = n;
    return ahead ? NULL : q;
}

int preimage_cache_keeps_qis(preimage_cache *c)
{
    if (!c) return 0;
    pthread_mutex_lock(&c->lock);
    int keeps = c->qi != NULL && c->qi_budget > 0;
    pthread_mutex_unlock(&c->lock);
    return keeps;
}

void preimage_cache_prepare(preimage_cache *c, const resolution *res, int i, deg_t t)
{
    preimage_qi *own;
    qi_get(c, res, i, t, &own, 1);
}

int preimage_solve_cached(const resolution *res, preimage_cache *c, int i, deg_t t, const f2mat *Y, f2mat *X,
                          uint32_t *bad)
{
    preimage_qi *own;
    const preimage_qi *q = qi_get(c, res, i, t, &own, 0);
    if (!q) {
        if (c && c->qi) {
            pthread_mutex_lock(&c->lock);
            c->qi_missed++;
            pthread_mutex_unlock(&c->lock);
        }
        return preimage_solve(res, i, t, Y, X, bad);
    }
    size_t yw = f2vec_words(q->tgt_dim);
    uint64_t *y = malloc((yw + f2vec_words(q->rank) + 1) * sizeof *y);
    int rc = !y || f2mat_init(X, Y->rows, q->src_dim) != 0 ? -1 : 0;
    for (uint32_t j = 0; j < Y->rows && !rc; j++) {
        memset(y, 0, (yw + 1) * sizeof *y);
        uint32_t bits = Y->cols < q->tgt_dim ? Y->cols : q->tgt_dim;
        memcpy(y, f2mat_row(Y, j), f2vec_words(bits) * sizeof *y);
        if (bits & 63) y[bits >> 6] &= ((uint64_t)1 << (bits & 63)) - 1;
        if (preimage_qi_apply(q, y, f2mat_row(X, j), y + yw) != 0) {
            *bad = j;
            rc = -2;
        }
    }
    free(y);
    if (rc == -2) f2mat_clear(X);
    if (own) {
        preimage_qi_clear(own);
        free(own);
    }
    pthread_mutex_lock(&c->lock);
    c->qi_used += !own;
    pthread_mutex_unlock(&c->lock);
    return rc;
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
    for (deg_t u = 0; u < t; u++) {
        if (!F->ngens[u]) continue;
        uint32_t dim = res->A.dim[t - u], first = *n;
        for (uint32_t e = 0; e < dim; e++)          /* the first generator's block */
            if (res_nassau_sig_code(&res->A.elts[t - u][e], h) == 0) {
                out[*n] = (zelt){ u, 0, e };
                basis[(*n)++] = j + e;
            }
        uint32_t per = *n - first;
        for (uint32_t g = 1; g < F->ngens[u]; g++)  /* the same elements in each other one */
            for (uint32_t k = first; k < first + per; k++) {
                out[*n] = (zelt){ u, g, out[k].e };
                basis[(*n)++] = j + g * dim + out[k].e;
            }
        j += F->ngens[u] * dim;
    }
}

/* rows (NULL, or zeroed by the caller): gets the multiplied rows of d_i at the zero-signature
 * elements below t2 (row k: basis element row_basis[k], k < the rows' count), which the same
 * step's first level reads again (apply_lifts), instead of their being freed. */
static nassau_zqi *zqi_build(const resolution *res, int i, deg_t t2, const milnor_profile *h, row_build *rows_out)
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
    if ((rank = f2mat_rref_augmented(&block, &aug, &piv)) < 0 ||
        f2mat_quasi_inverse_from_rref(&aug, z->ncols, (uint32_t)rank, piv, &z->qi) != 0)
        goto out;
    ok = 1;
    if (rows_out) *rows_out = b, memset(&b, 0, sizeof b);
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
 * caller alone (*owned = 1) without one; rows_out as zqi_build's where it is built here. NULL:
 * out of memory. */
static nassau_zqi *zqi_get(preimage_cache *c, const resolution *res, int i, deg_t t2, const milnor_profile *h,
                           int *owned, row_build *rows_out)
{
    *owned = !c;
    if (!c) return zqi_build(res, i, t2, h, rows_out);
    size_t cell = res_cell(res, i, t2);
    pthread_mutex_lock(&c->lock);
    nassau_zqi *z = c->cell[cell];
    while (z && !same_profile(&z->h, h)) z = z->next;
    pthread_mutex_unlock(&c->lock);
    if (z) return z;
    nassau_zqi *mine = zqi_build(res, i, t2, h, rows_out);
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

/* Index in F_{src,t} of Sq(R + σ)·g for the element x = Sq(R)·g of degree t2 = t - |σ|; off[u]
 * = freemod_dim(F_src, t, u), the first index of the generators of degree u (block_offsets). */
static uint32_t shifted(const resolution *res, int src, deg_t t, deg_t t2, const zelt *x, const uint32_t *sig,
                        const uint32_t *off)
{
    const milnor_elt *R = &res->A.elts[t2 - x->u][x->e];
    uint32_t r[MILNOR_MAX_LEN];
    for (int k = 0; k < MILNOR_MAX_LEN; k++) r[k] = ((uint32_t)k < R->len ? R->r[k] : 0) + sig[k];
    milnor_elt S;
    milnor_elt_set(&S, r, MILNOR_MAX_LEN);
    return off[x->u] + x->g * freemod_block(&res->F[src], t - x->u, x->u) + milnor_index(&res->A, &S);
}

/* map[k] = shifted(x[k]) for the n elements of a block's row or column list (zero_sig_elts'
 * order: by generator degree, each generator's block the same elements as the first one's),
 * each element's index worked out once per degree and moved by whole blocks for the others. */
static void shift_map(const resolution *res, int src, deg_t t, deg_t t2, const zelt *x, uint32_t n,
                      const uint32_t *sig, const uint32_t *off, uint32_t *map)
{
    uint32_t start = 0, per = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!k || x[k].u != x[k - 1].u) start = k, per = 0;
        if (!x[k].g || !per) {
            map[k] = shifted(res, src, t, t2, &x[k], sig, off);
            per += !x[k].g;
        } else
            map[k] = map[start + (k - start) % per] + x[k].g * freemod_block(&res->F[src], t - x[k].u, x[k].u);
    }
}

/* off[u] = freemod_dim(F, t, u) for u = 0..t (one pass over the degrees, instead of one per
 * element shifted looks up). */
static void block_offsets(const freemod *F, deg_t t, uint32_t *off)
{
    uint64_t dim = 0;
    for (deg_t u = 0; u <= t; u++) {
        off[u] = (uint32_t)dim;
        if (u >= freemod_first(F, t) && u <= F->max_t && F->ngens[u])
            dim += (uint64_t)F->ngens[u] * freemod_block(F, t - u, u);
    }
}

/* code[j] = the signature code under h of basis element j of F_{src,t} (generators of degree < t). */
static void column_codes(const resolution *res, int src, deg_t t, const milnor_profile *h, uint32_t *code)
{
    const freemod *F = &res->F[src];
    uint32_t j = 0;
    for (deg_t u = 0; u < t; u++) {
        if (!F->ngens[u]) continue;     /* (A may not reach degree t - u: u = 0 in F_s, s >= 1) */
        uint32_t n = res->A.dim[t - u], first = j;
        for (uint32_t g = 0; g < F->ngens[u]; g++, j += n)
            if (g) memcpy(code + j, code + first, n * sizeof *code);    /* the same block for each generator */
            else
                for (uint32_t e = 0; e < n; e++) code[j + e] = res_nassau_sig_code(&res->A.elts[t - u][e], h);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* R's row j ^= d of the basis element idx of F_{i,t}, for every (j, idx) in pend[0..n) (pairs,
 * j first): the rows at those elements are multiplied once each (the generators of degree t,
 * idx >= below, are their images G), except those known already: row k of known->D is d of
 * element known_idx[k] (increasing; nknown of them, 0 for none). 0, or -1 out of memory. */
static int apply_lifts(const resolution *res, int i, deg_t t, uint32_t below, const f2mat *G, uint32_t *pend,
                       size_t n, const row_build *known, const uint32_t *known_idx, uint32_t nknown, f2mat *R)
{
    uint32_t *sel = malloc((n + 1) * sizeof *sel), nsel = 0;
    row_build b = { 0 };
    if (!sel) return -1;
    for (size_t k = 0; k < n; k++)
        if (pend[2 * k + 1] < below &&
            !(nknown && bsearch(&pend[2 * k + 1], known_idx, nknown, sizeof *known_idx, cmp_u32)))
            sel[nsel++] = pend[2 * k + 1];
    qsort(sel, nsel, sizeof *sel, cmp_u32);
    uint32_t u = 0;
    for (uint32_t k = 0; k < nsel; k++)
        if (!u || sel[u - 1] != sel[k]) sel[u++] = sel[k];
    nsel = u;
    int rc = build_rows(res, i, t, sel, nsel, R->cols, &b);
    for (size_t k = 0; k < n && !rc; k++) {
        uint32_t j = pend[2 * k], idx = pend[2 * k + 1];
        const uint32_t *at;
        const uint64_t *row;
        if (idx >= below) row = f2mat_row(G, idx - below);
        else if (nknown && (at = bsearch(&idx, known_idx, nknown, sizeof *known_idx, cmp_u32)))
            row = f2mat_row(&known->D, (uint32_t)(at - known_idx));
        else row = f2mat_row(&b.D, (uint32_t)((uint32_t *)bsearch(&idx, sel, nsel, sizeof *sel, cmp_u32) - sel));
        f2vec_xor(f2mat_row(R, j), row, f2vec_words(R->cols));
    }
    rb_clear(&b);
    free(sel);
    return rc;
}

int preimage_by_signature(const resolution *res, preimage_cache *cache, int i, deg_t t, const f2mat *Y, f2mat *X)
{
    memset(X, 0, sizeof *X);
    if (i < 1 || !res_nassau_applies(res->module)) return 1;
    milnor_profile h = res_nassau_profile(i + 1, t - res_module_top(res));
    uint32_t ncodes = res_nassau_ncodes(&h);
    if (ncodes < 2) return 1;              /* one block: the whole matrix, preimage_solve is cheaper */
    const freemod *F = &res->F[i];
    uint32_t below = (uint32_t)freemod_dim(F, t, t), top = res_ngens(res, i, t);
    uint32_t ncols = (uint32_t)freemod_dim(&res->F[i - 1], t, t);
    f2mat R = { 0 }, G = { 0 };
    uint32_t *sigdeg = malloc(((size_t)ncodes + 1) * sizeof *sigdeg), sig[MILNOR_MAX_LEN], maxdeg = 0;
    uint32_t *colmap = NULL, *rowmap = NULL, *pend = NULL, *off = NULL, *off1 = NULL, *colcode = NULL;
    uint64_t *lift = NULL, *any = NULL;
    uint8_t *live = NULL;
    size_t npend = 0, pendcap = 0;
    nassau_zqi *z = NULL;
    row_build zrows = { 0 };           /* level 0's rows where its block is built here */
    int rc = -1, owned = 0;
    off = malloc(((size_t)t + 1) * sizeof *off);
    off1 = malloc(((size_t)t + 1) * sizeof *off1);
    colcode = malloc(((size_t)ncols + 1) * sizeof *colcode);
    any = malloc((f2vec_words(ncols) + 1) * sizeof *any);
    live = malloc((size_t)ncodes);
    if (!sigdeg || !off || !off1 || !colcode || !any || !live || f2mat_copy(&R, Y) != 0 ||
        f2mat_init(X, Y->rows, below + top) != 0 || f2mat_init(&G, top, ncols) != 0)
        goto out;
    block_offsets(F, t, off);
    block_offsets(&res->F[i - 1], t, off1);
    column_codes(res, i - 1, t, &h, colcode);
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
        /* the codes the residual meets: a block whose columns it does not meet lifts nothing (its
         * quasi-inverse is not even looked up), and a zero residual ends the solve */
        memset(any, 0, f2vec_words(ncols) * sizeof *any);
        for (uint32_t j = 0; j < R.rows; j++) {
            const uint64_t *row = f2mat_row(&R, j);
            for (uint32_t w = 0; w < f2vec_words(ncols); w++) any[w] |= row[w];
        }
        if (ncols & 63) any[ncols >> 6] &= ((uint64_t)1 << (ncols & 63)) - 1;
        memset(live, 0, ncodes);
        int lives = 0, nonzero = 0;
        for (uint32_t w = 0; w < f2vec_words(ncols); w++)
            for (uint64_t bits = any[w]; bits; bits &= bits - 1) {
                uint32_t c = colcode[w * 64 + (uint32_t)__builtin_ctzll(bits)];
                nonzero = 1;
                if (sigdeg[c] == d && !live[c]) live[c] = 1, lives++;
            }
        if (!nonzero) break;
        if (!lives) continue;
        z = NULL;
        owned = 0;
        npend = 0;
        for (uint32_t c = 0; c < ncodes; c++) {
            if (sigdeg[c] != d || !live[c]) continue;
            if (!z && !(z = zqi_get(cache, res, i, t2, &h, &owned, d ? NULL : &zrows))) goto out;
            if (!z->qi.preimage.rows) break;
            sig_of_code(c, &h, sig);
            free(colmap), free(rowmap), free(lift);
            colmap = malloc(((size_t)z->ncols + 1) * sizeof *colmap);
            rowmap = malloc(((size_t)z->nrows + 1) * sizeof *rowmap);
            lift = malloc((f2vec_words(z->nrows) + 1) * sizeof *lift);
            if (!colmap || !rowmap || !lift) goto out;
            if (d) {
                shift_map(res, i - 1, t, t2, z->col, z->ncols, sig, off1, colmap);
                shift_map(res, i, t, t2, z->row, z->nrows, sig, off, rowmap);
            } else {
                memcpy(colmap, z->col_basis, z->ncols * sizeof *colmap);
                memcpy(rowmap, z->row_basis, z->nrows * sizeof *rowmap);
            }
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
        if (npend && apply_lifts(res, i, t, below, &G, pend, npend, &zrows, z ? z->row_basis : NULL,
                                 z ? zrows.nrows : 0, &R) != 0)
            goto out;
        rb_clear(&zrows);
        if (owned) zqi_free(z);
        z = NULL;
    }
    rc = 0;
    for (uint32_t j = 0; j < R.rows && !rc; j++)
        if (!f2vec_is_zero(f2mat_row(&R, j), f2vec_words(ncols))) rc = 1;
out:
    if (owned) zqi_free(z);
    rb_clear(&zrows);
    if (rc) f2mat_clear(X);
    f2mat_clear(&R);
    f2mat_clear(&G);
    free(sigdeg), free(colmap), free(rowmap), free(lift), free(pend), free(off), free(off1), free(colcode), free(any), free(live);
    return rc;
}
