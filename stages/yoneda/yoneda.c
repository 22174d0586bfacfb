/* yoneda.c — a Yoneda representative of a class of Ext over the sphere (see yoneda.h). */
#include "stages/yoneda/yoneda.h"
#include <stdlib.h>
#include <string.h>
#include "stages/yoneda/adem.h"
#include "stages/yoneda/fmbasis.h"

/* ---- subspaces kept reduced ------------------------------------------------------------ */

/* A subspace W of F2^dim kept fully reduced: row r has its lowest bit at pivot[r], a column
 * no other row has. */
struct yoneda_sub {
    uint32_t dim, rank;
    f2mat rows;                 /* dim x dim, the first rank in use */
    uint32_t *pivot;
    int32_t *row_of;            /* per column: the row whose pivot it is, or -1 */
};
typedef struct yoneda_sub yoneda_sub;

static int yoneda_sub_init(yoneda_sub *W, uint32_t dim)
{
    memset(W, 0, sizeof *W);
    W->dim = dim;
    W->pivot = malloc(((size_t)dim + 1) * sizeof *W->pivot);
    W->row_of = malloc(((size_t)dim + 1) * sizeof *W->row_of);
    if (!W->pivot || !W->row_of || f2mat_init(&W->rows, dim, dim) != 0) return -1;
    for (uint32_t c = 0; c < dim; c++) W->row_of[c] = -1;
    return 0;
}

static void yoneda_sub_clear(yoneda_sub *W)
{
    f2mat_clear(&W->rows);
    free(W->pivot);
    free(W->row_of);
}

/* v (dim bits) reduced modulo W: zero at every pivot column. */
static void yoneda_sub_reduce(const yoneda_sub *W, uint64_t *v)
{
    for (uint32_t r = 0; r < W->rank; r++)
        if (f2vec_get(v, W->pivot[r])) f2vec_xor(v, f2mat_row(&W->rows, r), f2vec_words(W->dim));
}

/* W += v (v is destroyed); 1 when W grew. */
static int yoneda_sub_add(yoneda_sub *W, uint64_t *v)
{
    size_t words = f2vec_words(W->dim);
    yoneda_sub_reduce(W, v);
    int64_t p = f2vec_first_bit(v, W->dim);
    if (p < 0) return 0;
    for (uint32_t r = 0; r < W->rank; r++)
        if (f2vec_get(f2mat_row(&W->rows, r), (uint64_t)p)) f2vec_xor(f2mat_row(&W->rows, r), v, words);
    memcpy(f2mat_row(&W->rows, W->rank), v, words * sizeof *v);
    W->pivot[W->rank] = (uint32_t)p;
    W->row_of[p] = (int32_t)W->rank++;
    return 1;
}

/* ---- F's basis elements in E's coordinates ---------------------------------------------- */

/* out (E's coordinates) ^= d(e) (R NULL: over F_{k-1}(T)) or Sq(R)·e (over F_k(T + |R|)), e the
 * admissible basis element p of F_k(T): d or Sq(R) of each Milnor element of e's expansion (in
 * e's generator's block), summed in E's scratch and converted back. */
static void y_adem(const yoneda *E, int k, deg_t T, uint64_t p, const milnor_elt *R, uint64_t *out)
{
    const resolution *res = E->res;
    const freemod *F = &res->F[k];
    deg_t u;
    uint32_t g, r;
    if (fmb_locate(F, T, p, &u, &g, &r) != 0) return;
    uint64_t off = freemod_offset(F, T, u, g), *img = E->scratch;
    const uint64_t *row = f2mat_row(&E->adem->to_milnor[T - u], r);
    memset(img, 0, E->swords * sizeof *img);
    for (uint32_t c = 0; c < F->dim[T - u]; c++) {
        if (!f2vec_get(row, c)) continue;
        if (R) fmb_act(res, k, T, off + c, R, img);
        else fmb_d(res, k, T, off + c, img);
    }
    if (R) adem_convert(E->adem, F, T + R->degree, img, out, 0);
    else adem_convert(E->adem, &res->F[k - 1], T, img, out, 0);
}

/* out (over F_{k-1}(T), E's coordinates) ^= d(basis element p of F_k(T)). */
static void y_d_direct(const yoneda *E, int k, deg_t T, uint64_t p, uint64_t *out)
{
    if (E->adem) y_adem(E, k, T, p, NULL, out);
    else fmb_d(E->res, k, T, p, out);
}

/* The same through the matrix of d_k in degree T, made on first use (the reduction asks for d
 * of the same basis elements again and again); directly where it cannot be allocated. */
static void y_d(const yoneda *E, int k, deg_t T, uint64_t p, uint64_t *out)
{
    size_t c = yoneda_cell(E, k, T);
    f2mat *M = &E->dcache[c];
    if (!E->dcache_have[c]) {
        uint32_t rows = fmb_dim(E->res, k, T), cols = fmb_dim(E->res, k - 1, T);
        if (f2mat_init(M, rows, cols) != 0) {
            y_d_direct(E, k, T, p, out);
            return;
        }
        for (uint32_t q = 0; q < rows; q++) y_d_direct(E, k, T, q, f2mat_row(M, q));
        E->dcache_have[c] = 1;
    }
    f2vec_xor(out, f2mat_row(M, (uint32_t)p), f2vec_words(M->cols));
}

/* out (over F_k(T + |R|), E's coordinates) ^= Sq(R)·(basis element p of F_k(T)). */
static void y_act(const yoneda *E, int k, deg_t T, uint64_t p, const milnor_elt *R, uint64_t *out)
{
    if (E->adem) y_adem(E, k, T, p, R, out);
    else fmb_act(E->res, k, T, p, R, out);
}

/* ---- E: the quotient, its reduction, its tables ---------------------------------------- */

/* out (over E_k(u), zeroed by the caller) = the class of v (over F_k(u); v is destroyed). */
static void ec_project(const yoneda *E, int k, deg_t u, uint64_t *v, uint64_t *out)
{
    const resolution *res = E->res;
    if (u > E->t) return;
    if (k == E->s) {
        if (u != E->t) return;
        uint64_t below = freemod_dim(&res->F[k], u, u);
        int bit = 0;
        for (uint32_t j = 0; j < res_ngens(res, k, u); j++) bit ^= E->x[j] & f2vec_get(v, below + j);
        if (bit) out[0] |= 1;
        return;
    }
    size_t c = yoneda_cell(E, k, u);
    yoneda_sub_reduce(&E->W[c], v);
    for (uint32_t b = 0; b < E->edim[c]; b++)
        if (f2vec_get(v, E->basis[c][b])) f2vec_flip(out, b);
}

/* The basis element of F_k(u) that stands for e_b. */
static uint64_t ec_rep(const yoneda *E, int k, deg_t u, uint32_t b)
{
    if (k == E->s) return freemod_dim(&E->res->F[k], u, u) + E->xgen;
    return E->basis[yoneda_cell(E, k, u)][b];
}

/* E_k(u)'s basis: the columns that are no pivot of W_k(u). */
static void ec_rebasis(yoneda *E, int k, deg_t u)
{
    size_t c = yoneda_cell(E, k, u);
    const yoneda_sub *W = &E->W[c];
    uint32_t nb = 0;
    for (uint32_t col = 0; col < W->dim; col++)
        if (W->row_of[col] < 0) E->basis[c][nb++] = col;
    E->edim[c] = nb;
}

void yoneda_clear(yoneda *E)
{
    size_t cells = (size_t)(E->s + 1) * ((size_t)E->t + 1);
    if (E->act)
        for (size_t c = 0; c < cells * ((size_t)E->t + 1); c++) f2mat_clear(&E->act[c]);
    if (E->dmat)
        for (size_t c = 0; c < cells; c++) f2mat_clear(&E->dmat[c]);
    if (E->dcache)
        for (size_t c = 0; c < cells; c++) f2mat_clear(&E->dcache[c]);
    free(E->dcache);
    free(E->dcache_have);
    for (size_t c = 0; E->W && c < cells; c++) yoneda_sub_clear(&E->W[c]);
    for (size_t c = 0; E->basis && c < cells; c++) free(E->basis[c]);
    free(E->act);
    free(E->dmat);
    free(E->W);
    free(E->basis);
    free(E->edim);
    free(E->x);
    free(E->scratch);
    memset(E, 0, sizeof *E);
}

/* W_{s-1} = d(ker x): ker x is every element of F_s outside degree t, and in degree t the
 * decomposables, the generators j with x_j = 0 and j + xgen for the others. 0 or -1. */
static int ec_kernel_image(yoneda *E, uint64_t *v)
{
    const resolution *res = E->res;
    int s = E->s;
    for (deg_t u = 0; u <= E->t; u++) {
        uint32_t fs = fmb_dim(res, s, u), fd = fmb_dim(res, s - 1, u);
        uint64_t below = freemod_dim(&res->F[s], u, u);
        yoneda_sub *W = &E->W[yoneda_cell(E, s - 1, u)];
        for (uint32_t p = 0; p < fs; p++) {
            memset(v, 0, f2vec_words(fd) * sizeof *v);
            if (u == E->t && p >= below) {
                uint32_t j = (uint32_t)(p - below);
                if (j == E->xgen) continue;
                y_d(E, s, u, p, v);
                if (E->x[j]) y_d(E, s, u, below + E->xgen, v);
            } else
                y_d(E, s, u, p, v);
            yoneda_sub_add(W, v);
        }
    }
    return 0;
}

/* Removes, from E_k, the submodule A·g of each generator g of F_k (by degree, then index) on
 * which d is injective (it meets no cycle, and E is exact: no boundary), and its image from
 * E_{k-1}: a quotient by an acyclic subcomplex. 0 or -1. */
static int ec_kill_generators(yoneda *E, int k, uint64_t *v, size_t vwords)
{
    const resolution *res = E->res;
    const milnor_basis *A = &res->A;
    const freemod *F = &res->F[k];
    f2mat *M = calloc((size_t)E->t + 1, sizeof *M);
    int32_t *piv = NULL;
    int rc = -1;
    if (!M) return -1;
    for (deg_t ug = 0; ug <= E->t; ug++)
        for (uint32_t g = 0; g < res_ngens(res, k, ug); g++) {
            int injective = 1, any = 0;
            for (deg_t u = ug; u <= E->t && injective; u++) {   /* rows [d v | v], v = Sq(R) g mod W */
                uint32_t fd = fmb_dim(res, k, u), fd1 = fmb_dim(res, k - 1, u), na = A->dim[u - ug];
                uint32_t seg = f2mat_segment_start(fd1);
                f2mat_clear(&M[u]);
                if (f2mat_init(&M[u], na, seg + fd) != 0) goto out;
                for (uint32_t r = 0; r < na; r++) {
                    uint64_t *row = f2mat_row(&M[u], r), p = freemod_offset(F, u, ug, g) + r;
                    memset(v, 0, vwords * sizeof *v);
                    v[p >> 6] |= (uint64_t)1 << (p & 63);
                    yoneda_sub_reduce(&E->W[yoneda_cell(E, k, u)], v);
                    memcpy(row + (seg >> 6), v, f2vec_words(fd) * sizeof *v);
                    memset(v, 0, vwords * sizeof *v);
                    for (uint32_t b = 0; b < fd; b++)
                        if (f2vec_get(row + (seg >> 6), b)) y_d(E, k, u, b, v);
                    yoneda_sub_reduce(&E->W[yoneda_cell(E, k - 1, u)], v);
                    memcpy(row, v, f2vec_words(fd1) * sizeof *v);
                }
                f2mat T;
                if (f2mat_copy(&T, &M[u]) != 0) goto out;
                free(piv);
                piv = malloc(((size_t)T.cols + 1) * sizeof *piv);
                int rank = piv ? f2mat_rref(&T, piv) : -1;
                for (int r = 0; r < rank && injective; r++)   /* a pivot among v's columns: d v = 0, v != 0 */
                    injective = f2vec_first_bit(f2mat_row(&T, (uint32_t)r), T.cols) < (int64_t)fd1;
                any |= rank > 0;
                f2mat_clear(&T);
                if (rank < 0) goto out;
            }
            if (!injective || !any) continue;
            for (deg_t u = ug; u <= E->t; u++) {
                uint32_t fd = fmb_dim(res, k, u), fd1 = fmb_dim(res, k - 1, u), seg = f2mat_segment_start(fd1);
                for (uint32_t r = 0; r < M[u].rows; r++) {
                    const uint64_t *row = f2mat_row(&M[u], r);
                    memcpy(v, row + (seg >> 6), f2vec_words(fd) * sizeof *v);
                    yoneda_sub_add(&E->W[yoneda_cell(E, k, u)], v);
                    memset(v, 0, vwords * sizeof *v);
                    memcpy(v, row, f2vec_words(fd1) * sizeof *v);
                    yoneda_sub_add(&E->W[yoneda_cell(E, k - 1, u)], v);
                }
                ec_rebasis(E, k, u);
                ec_rebasis(E, k - 1, u);
            }
        }
    rc = 0;
out:
    for (deg_t u = 0; u <= E->t; u++) f2mat_clear(&M[u]);
    free(M);
    free(piv);
    return rc;
}

/* Which of E_k(u)'s columns the reduction would rather keep: the column's Milnor element
 * Sq(R) rated sum_j popcount(r_j) 2^j (cheap operations first; over the admissible basis its
 * monomial's rating, adem.h), plus a large penalty per row of W_k(u) with a 1 there. */
typedef struct pref_col {
    long pref;
    uint32_t col, row;
} pref_col;

static long column_preference(const yoneda *E, int k, deg_t u, uint32_t col)
{
    deg_t ug;
    uint32_t g, r;
    long pref = 0;
    if (fmb_locate(&E->res->F[k], u, col, &ug, &g, &r) == 0 && E->adem)
        pref = E->adem->rating[u - ug][r];
    else if (fmb_locate(&E->res->F[k], u, col, &ug, &g, &r) == 0) {
        const milnor_elt *R = &E->res->A.elts[u - ug][r];
        for (uint32_t j = 0; j < R->len; j++) pref += (long)__builtin_popcount(R->r[j]) << j;
    }
    const yoneda_sub *W = &E->W[yoneda_cell(E, k, u)];
    for (uint32_t q = 0; q < W->rank; q++) pref += 10000L * f2vec_get(f2mat_row(&W->rows, q), col);
    return pref;
}

static int pref_cmp(const void *a, const void *b)
{
    const pref_col *x = a, *y = b;
    return x->pref != y->pref ? (x->pref < y->pref ? -1 : 1) : (x->col > y->col) - (x->col < y->col);
}

/* In E_k(u): the elements v that every Sq(2^j) sends to zero (so F2·v is a submodule) with
 * d v != 0: a complement of the cycles among them is removed from E_k(u), and its image under
 * d from E_{k-1}(u). 0 or -1. */
static int ec_reduce_degree(yoneda *E, int k, deg_t u, uint64_t *v, size_t vwords)
{
    const resolution *res = E->res;
    int rc = -1;
    f2mat M = { 0 }, aug = { 0 }, K = { 0 }, Dk = { 0 }, aug2 = { 0 }, Z = { 0 }, Img = { 0 };
    int32_t *piv = NULL, *piv2 = NULL;
    pref_col *order = NULL;
    uint8_t *kept = NULL, *used = NULL;
    size_t c = yoneda_cell(E, k, u);
    uint32_t ed = E->edim[c], fd = fmb_dim(res, k, u), fd1 = fmb_dim(res, k - 1, u);
    if (!ed) return 0;
    /* the columns: Sq(2^j) e_b over F_k(u + 2^j) reduced mod W, side by side */
    uint32_t cols = 0;
    for (deg_t d = 1; u + d <= E->t; d *= 2) cols += fmb_dim(res, k, u + d);
    if (f2mat_init(&M, ed, cols) != 0) goto out;
    for (uint32_t b = 0; b < ed; b++) {
        uint32_t off = 0;
        for (deg_t d = 1; u + d <= E->t; d *= 2) {
            uint32_t fdd = fmb_dim(res, k, u + d);
            milnor_elt R;
            uint32_t r1 = (uint32_t)d;
            milnor_elt_set(&R, &r1, 1);
            memset(v, 0, vwords * sizeof *v);
            y_act(E, k, u, E->basis[c][b], &R, v);
            yoneda_sub_reduce(&E->W[yoneda_cell(E, k, u + d)], v);
            for (uint32_t q = 0; q < fdd; q++)
                if (f2vec_get(v, q)) f2mat_flip(&M, b, off + q);
            off += fdd;
        }
    }
    int rank = f2mat_rref_augmented(&M, &aug, &piv);
    if (rank < 0 || f2mat_kernel_from_rref(&aug, M.cols, (uint32_t)rank, piv, &K) != 0) goto out;
    f2mat_clear(&M);
    f2mat_clear(&aug);
    free(piv);
    piv = NULL;
    /* d on that kernel; rows with their pivot among d's columns: a complement of the cycles */
    if (K.rows && f2mat_init(&Dk, K.rows, fd1) != 0) goto out;
    for (uint32_t r = 0; r < K.rows; r++) {
        memset(v, 0, vwords * sizeof *v);
        for (uint32_t b = 0; b < ed; b++)
            if (f2mat_get(&K, r, b)) y_d(E, k, u, E->basis[c][b], v);
        yoneda_sub_reduce(&E->W[yoneda_cell(E, k - 1, u)], v);
        memcpy(f2mat_row(&Dk, r), v, f2vec_words(fd1) * sizeof *v);
    }
    /* the cycles among them (Z: combinations of K's rows), as vectors over E_k(u) */
    int rank2 = K.rows ? f2mat_rref_augmented(&Dk, &aug2, &piv2) : 0;
    if (rank2 < 0 || (K.rows && f2mat_kernel_from_rref(&aug2, fd1, (uint32_t)rank2, piv2, &Z) != 0) ||
        f2mat_init(&Img, Z.rows, ed) != 0)
        goto out;
    for (uint32_t r = 0; r < Z.rows; r++)
        for (uint32_t q = 0; q < K.rows; q++)
            if (f2mat_get(&Z, r, q)) f2vec_xor(f2mat_row(&Img, r), f2mat_row(&K, q), f2vec_words(ed));
    /* K's rows by preference of their pivot columns (cheap Milnor elements, columns free of W's
     * rows, first); the cycles take, greedily in that order, the columns they need: the rows
     * whose pivot they did not take span a complement of the cycles, which goes */
    order = malloc(((size_t)K.rows + 1) * sizeof *order);
    kept = calloc((size_t)K.rows + 1, 1);
    used = calloc((size_t)Img.rows + 1, 1);
    if (!order || !kept || !used) goto out;
    for (uint32_t q = 0; q < K.rows; q++) {
        uint32_t b = (uint32_t)f2vec_first_bit(f2mat_row(&K, q), ed), col = E->basis[c][b];
        order[q] = (pref_col){ column_preference(E, k, u, col), col, q };
    }
    qsort(order, K.rows, sizeof *order, pref_cmp);
    for (uint32_t o = 0; o < K.rows; o++) {
        uint32_t q = order[o].row, b = (uint32_t)f2vec_first_bit(f2mat_row(&K, q), ed);
        int64_t hit = -1;
        for (uint32_t r = 0; r < Img.rows && hit < 0; r++)
            if (!used[r] && f2mat_get(&Img, r, b)) hit = r;
        if (hit < 0) continue;
        used[hit] = kept[q] = 1;
        for (uint32_t r = 0; r < Img.rows; r++)
            if (!used[r] && f2mat_get(&Img, r, b))
                f2vec_xor(f2mat_row(&Img, r), f2mat_row(&Img, (uint32_t)hit), f2vec_words(ed));
    }
    uint32_t killed = 0;
    for (uint32_t q = 0; q < K.rows; q++) {
        if (kept[q]) continue;
        uint64_t *w = v + f2vec_words(fd) + 1;
        memset(v, 0, vwords * sizeof *v);
        for (uint32_t b = 0; b < ed; b++)
            if (f2mat_get(&K, q, b)) f2vec_flip(v, E->basis[c][b]);
        memcpy(w, f2mat_row(&Dk, q), f2vec_words(fd1) * sizeof *w);   /* d v */
        yoneda_sub_add(&E->W[c], v);
        yoneda_sub_add(&E->W[yoneda_cell(E, k - 1, u)], w);
        killed++;
    }
    if (killed) {
        ec_rebasis(E, k, u);
        ec_rebasis(E, k - 1, u);
    }
    rc = 0;
out:
    f2mat_clear(&Z);
    f2mat_clear(&Img);
    free(order);
    free(kept);
    free(used);
    f2mat_clear(&M);
    f2mat_clear(&aug);
    f2mat_clear(&K);
    f2mat_clear(&Dk);
    f2mat_clear(&aug2);
    free(piv);
    free(piv2);
    return rc;
}

/* The reduction, row by row from s - 1 down to 1: whole generators (ec_kill_generators), then
 * degree by degree from the top (ec_reduce_degree). Each removal is the quotient by an acyclic
 * subcomplex (a piece on which d is injective, with its image), so E keeps its homology (F2 in
 * degree 0) and x still factors through E_s. 0 or -1. */
static int ec_reduce(yoneda *E, uint64_t *v, size_t vwords)
{
    for (int k = E->s - 1; k >= 1; k--) {
        if (ec_kill_generators(E, k, v, vwords) != 0) return -1;
        for (deg_t u = E->t; u >= 0; u--)
            if (ec_reduce_degree(E, k, u, v, vwords) != 0) return -1;
    }
    return 0;
}

/* Builds E, its action tables and its differential. 0 or -1. */
static int ec_build(yoneda *E)
{
    const resolution *res = E->res;
    int s = E->s;
    deg_t t = E->t;
    size_t cells = (size_t)(s + 1) * ((size_t)t + 1);
    E->edim = calloc(cells, sizeof *E->edim);
    E->act = calloc(cells * ((size_t)t + 1), sizeof *E->act);
    E->dmat = calloc(cells, sizeof *E->dmat);
    E->W = calloc(cells, sizeof *E->W);
    E->basis = calloc(cells, sizeof *E->basis);
    if (!E->edim || !E->act || !E->dmat || !E->W || !E->basis) return -1;
    /* v: a vector of F_k(u) for any k <= s, u <= t, and room for a second one after it */
    size_t fw = 1;
    for (int k = 0; k <= s; k++) fw = fw > f2vec_words(fmb_dim(res, k, t)) + 1 ? fw : f2vec_words(fmb_dim(res, k, t)) + 1;
    uint64_t *v = calloc(2 * fw, sizeof *v);
    if (!v) return -1;
    int rc = -1;
    for (int k = 0; k < s; k++)
        for (deg_t u = 0; u <= t; u++) {
            size_t c = yoneda_cell(E, k, u);
            if (yoneda_sub_init(&E->W[c], fmb_dim(res, k, u)) != 0 ||
                !(E->basis[c] = malloc(((size_t)fmb_dim(res, k, u) + 1) * sizeof *E->basis[c])))
                goto out;
        }
    E->edim[yoneda_cell(E, s, t)] = 1;
    if (s >= 1 && ec_kernel_image(E, v) != 0) goto out;
    for (int k = 0; k < s; k++)
        for (deg_t u = 0; u <= t; u++) ec_rebasis(E, k, u);
    if (ec_reduce(E, v, 2 * fw) != 0) goto out;
    const milnor_basis *A = &res->A;
    for (int k = 0; k <= s; k++)
        for (deg_t u = 0; u <= t; u++) {
            uint32_t ed = yoneda_dim(E, k, u);
            if (!ed) continue;
            for (deg_t d = 0; u + d <= t; d++) {   /* Sq(R)·e_i */
                f2mat *T = &E->act[yoneda_cell(E, k, u) * ((size_t)t + 1) + (size_t)d];
                uint32_t na = A->dim[d], ed2 = yoneda_dim(E, k, u + d);
                if (f2mat_init(T, ed * na, ed2) != 0) goto out;
                if (!ed2) continue;
                for (uint32_t i = 0; i < ed; i++)
                    for (uint32_t r = 0; r < na; r++) {
                        memset(v, 0, fw * sizeof *v);
                        y_act(E, k, u, ec_rep(E, k, u, i), &A->elts[d][r], v);
                        ec_project(E, k, u + d, v, f2mat_row(T, i * na + r));
                    }
            }
            if (k == 0) continue;
            f2mat *D = &E->dmat[yoneda_cell(E, k, u)];
            if (f2mat_init(D, ed, yoneda_dim(E, k - 1, u)) != 0) goto out;
            for (uint32_t i = 0; i < ed; i++) {
                memset(v, 0, fw * sizeof *v);
                y_d(E, k, u, ec_rep(E, k, u, i), v);
                ec_project(E, k - 1, u, v, f2mat_row(D, i));
            }
        }
    rc = 0;
out:
    free(v);
    return rc;
}

/* ---- the interface ---------------------------------------------------------------------- */

int yoneda_in_range(const resolution *res, int n, int s)
{
    deg_t t = n + s;
    if (n < 0 || s < 0 || s > res->max_s || t > res->max_t) return 0;
    for (int k = 0; k <= s; k++)
        for (deg_t T = k; T <= t; T++)
            if (!res_is_done(res, k, T)) return 0;
    return 1;
}

int yoneda_build(yoneda *E, const resolution *res, const adem_basis *adem, int n, int s, const uint8_t *x,
                 uint32_t len)
{
    memset(E, 0, sizeof *E);
    *E = (yoneda){ .res = res, .adem = adem, .n = n, .s = s, .t = n + s, .len = len };
    size_t cells = (size_t)(s + 1) * ((size_t)E->t + 1);
    if (!(E->x = malloc((size_t)len + 1)) || !(E->dcache = calloc(cells, sizeof *E->dcache)) ||
        !(E->dcache_have = calloc(cells, 1)))
        return -1;
    if (adem) {   /* room for a vector of any F_k(u), k <= s, u <= t */
        E->swords = 1;
        for (int k = 0; k <= s; k++)
            for (deg_t u = 0; u <= E->t; u++)
                if (f2vec_words(fmb_dim(res, k, u)) + 1 > E->swords) E->swords = f2vec_words(fmb_dim(res, k, u)) + 1;
        if (!(E->scratch = calloc(E->swords, sizeof *E->scratch))) return -1;
    }
    memcpy(E->x, x, len);
    while (E->xgen < len && !x[E->xgen]) E->xgen++;
    if (E->xgen == len) return -1;   /* (a zero class: the caller's to refuse) */
    return ec_build(E);
}

uint64_t yoneda_total(const yoneda *E, int k)
{
    uint64_t n = 0;
    for (deg_t u = 0; u <= E->t; u++) n += yoneda_dim(E, k, u);
    return n;
}

/* out (over E_k(u + d), zeroed by the caller) ^= Sq(R_r)·v, v over E_k(u). */
static void e_act(const yoneda *E, int k, deg_t u, deg_t d, uint32_t r, const uint64_t *v, uint64_t *out)
{
    const f2mat *T = yoneda_act(E, k, u, d);
    uint32_t na = E->res->A.dim[d], to = yoneda_dim(E, k, u + d);
    for (uint32_t i = 0; i < yoneda_dim(E, k, u); i++)
        if (f2vec_get(v, i)) f2vec_xor(out, f2mat_row(T, i * na + r), f2vec_words(to));
}

/* out (over E_{k-1}(u), zeroed by the caller) ^= d v, v over E_k(u). */
static void e_d(const yoneda *E, int k, deg_t u, const uint64_t *v, uint64_t *out)
{
    const f2mat *D = yoneda_d(E, k, u);
    for (uint32_t i = 0; i < yoneda_dim(E, k, u); i++)
        if (f2vec_get(v, i)) f2vec_xor(out, f2mat_row(D, i), f2vec_words(yoneda_dim(E, k - 1, u)));
}

static int rank_of(const f2mat *M)
{
    if (!M->rows || !M->cols) return 0;
    f2mat T;
    if (f2mat_copy(&T, M) != 0) return -1;
    int r = f2mat_rref(&T, NULL);
    f2mat_clear(&T);
    return r;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); rc = -2; goto out; } while (0)

/* d d = 0, d A-linear (on every Milnor element), and the ranks of an exact complex with
 * H_0 = F2 in degree 0, the Euler characteristic in each degree. */
static int check_complex(const yoneda *E, uint64_t *a, uint64_t *b, uint64_t *c, size_t words, char *err,
                         size_t errlen)
{
    const milnor_basis *A = &E->res->A;
    int s = E->s, rc = 0;
    deg_t t = E->t;
    int *rk = calloc((size_t)(s + 2) * ((size_t)t + 1), sizeof *rk);   /* rank of d_k(u), k = 1..s */
    if (!rk) return -1;
    for (int k = 1; k <= s; k++)
        for (deg_t u = 0; u <= t; u++) {
            uint32_t ed = yoneda_dim(E, k, u);
            if ((rk[k * (t + 1) + u] = rank_of(yoneda_d(E, k, u))) < 0) {
                rc = -1;
                goto out;
            }
            for (uint32_t i = 0; i < ed && k >= 2; i++) {   /* d d e_i = 0 */
                memset(a, 0, words * sizeof *a);
                e_d(E, k - 1, u, f2mat_row(yoneda_d(E, k, u), i), a);
                if (!f2vec_is_zero(a, f2vec_words(yoneda_dim(E, k - 2, u))))
                    FAIL("d d is not zero on E_%d in degree %d", k, (int)u);
            }
            for (deg_t d = 1; u + d <= t; d++)   /* d(Sq(R) e_i) = Sq(R) d(e_i) */
                for (uint32_t r = 0; r < A->dim[d]; r++)
                    for (uint32_t i = 0; i < ed; i++) {
                        memset(a, 0, words * sizeof *a);
                        memset(b, 0, words * sizeof *b);
                        memset(c, 0, words * sizeof *c);
                        f2vec_flip(c, i);
                        e_act(E, k, u, d, r, c, a);
                        memset(c, 0, words * sizeof *c);
                        e_d(E, k, u + d, a, c);   /* c = d(Sq(R) e_i) */
                        memset(a, 0, words * sizeof *a);
                        f2vec_flip(a, i);
                        e_d(E, k, u, a, b);
                        memset(a, 0, words * sizeof *a);
                        e_act(E, k - 1, u, d, r, b, a);   /* a = Sq(R) d(e_i) */
                        if (memcmp(a, c, f2vec_words(yoneda_dim(E, k - 1, u + d)) * sizeof *a))
                            FAIL("d is not A-linear on E_%d: d(Sq(R) e_%u) != Sq(R) d(e_%u) (degree %d, |R| = %d)",
                                 k, i, i, (int)u, (int)d);
                    }
        }
    for (deg_t u = 0; u <= t; u++) {
        long euler = 0;
        for (int k = 0; k <= s; k++) {
            long dim = yoneda_dim(E, k, u), in = k >= 1 ? rk[k * (t + 1) + u] : (u == 0),
                 out = k < s ? rk[(k + 1) * (t + 1) + u] : 0;
            if (dim != in + out)   /* ker d_k = im d_{k+1}: dim = rank d_k + rank d_{k+1} */
                FAIL("E is not exact at E_%d in degree %d: dim %ld, ranks of d in and out %ld, %ld", k, (int)u, dim,
                     in, out);
            euler += k % 2 ? -dim : dim;
        }
        if (euler != (u == 0))
            FAIL("the Euler characteristic of E in degree %d is %ld, not %d", (int)u, euler, u == 0);
    }
out:
    free(rk);
    return rc;
}

int yoneda_check(const yoneda *E, uint8_t *cls, char *err, size_t errlen)
{
    const resolution *res = E->res;
    int s = E->s, rc = -1;
    deg_t t = E->t;
    size_t words = 1;
    for (int k = 0; k <= s; k++)
        for (deg_t u = 0; u <= t; u++)
            if (f2vec_words(yoneda_dim(E, k, u)) + 1 > words) words = f2vec_words(yoneda_dim(E, k, u)) + 1;
    size_t cells = (size_t)(s + 1) * ((size_t)t + 1);
    f2mat *f = calloc(cells, sizeof *f);   /* f_k on the generators of F_k in degree u, over E_k(u) */
    uint64_t *a = calloc(3 * words, sizeof *a), *b = a + words, *c = b + words;
    f2mat aug = { 0 };
    int32_t *piv = NULL;
    f2qi qi = { 0 };
    int have_qi = 0;
    if (!f || !a) goto out;
    if ((rc = check_complex(E, a, b, c, words, err, errlen)) != 0) goto out;
    rc = -1;
    /* f_0(iota) = the one element of E_0(0) (exactness made it one-dimensional) */
    if (yoneda_dim(E, 0, 0) != 1 || res_ngens(res, 0, 0) != 1) {
        snprintf(err, errlen, "E_0 in degree 0 has dimension %u, not 1", yoneda_dim(E, 0, 0));
        rc = -2;
        goto out;
    }
    if (f2mat_init(&f[yoneda_cell(E, 0, 0)], 1, 1) != 0) goto out;
    f2mat_set(&f[yoneda_cell(E, 0, 0)], 0, 0, 1);
    for (int k = 1; k <= s; k++)
        for (deg_t T = k; T <= t; T++) {
            uint32_t ng = res_ngens(res, k, T), ed = yoneda_dim(E, k, T), ed1 = yoneda_dim(E, k - 1, T);
            f2mat *F = &f[yoneda_cell(E, k, T)];
            if (!ng) continue;
            if (f2mat_init(F, ng, ed) != 0) goto out;
            if (ed) {
                int rank = f2mat_rref_augmented(yoneda_d(E, k, T), &aug, &piv);
                if (rank < 0 || f2mat_quasi_inverse_from_rref(&aug, ed1, (uint32_t)rank, piv, &qi) != 0) goto out;
                have_qi = 1;
            }
            for (uint32_t g = 0; g < ng; g++) {   /* f_{k-1}(d z) = sum Sq(R) f_{k-1}(g'), then a preimage */
                const fm_gen *z = &res->F[k].gens[T][g];
                memset(a, 0, words * sizeof *a);
                for (uint32_t bit = 0; bit < z->bits; bit++) {
                    deg_t u;
                    uint32_t gi, ri;
                    if (!f2vec_get(z->img, bit) || fmb_locate(&res->F[k - 1], T, bit, &u, &gi, &ri) != 0) continue;
                    const f2mat *P = &f[yoneda_cell(E, k - 1, u)];
                    if (P->rows) e_act(E, k - 1, u, T - u, ri, f2mat_row(P, gi), a);
                }
                memset(b, 0, words * sizeof *b);
                if (ed) f2qi_apply(&qi, a, b);
                memset(c, 0, words * sizeof *c);
                e_d(E, k, T, b, c);
                if (memcmp(a, c, f2vec_words(ed1) * sizeof *a)) {
                    snprintf(err, errlen, "lifting the identity of F2 into E: f(d z) for the generator %u of F_%d in "
                             "degree %d is no boundary of E", g, k, (int)T);
                    rc = -2;
                    goto out;
                }
                memcpy(f2mat_row(F, g), b, f2vec_words(ed) * sizeof *b);
            }
            if (have_qi) f2qi_clear(&qi), have_qi = 0;
            f2mat_clear(&aug);
            free(piv);
            piv = NULL;
        }
    const f2mat *X = &f[yoneda_cell(E, s, t)];
    for (uint32_t j = 0; j < E->len; j++) cls[j] = X->rows > j && X->cols ? (uint8_t)f2mat_get(X, j, 0) : 0;
    rc = 0;
    if (memcmp(cls, E->x, E->len)) {
        snprintf(err, errlen, "the class of E, recomputed by lifting the identity of F2, is not the class asked for");
        rc = -2;
    }
out:
    if (have_qi) f2qi_clear(&qi);
    f2mat_clear(&aug);
    free(piv);
    for (size_t k = 0; f && k < cells; k++) f2mat_clear(&f[k]);
    free(f);
    free(a);
    return rc;
}

int yoneda_write_sseq(FILE *f, const yoneda *E)
{
    for (int k = 0; k <= E->s; k++)
        if (fprintf(f, "Dimension of %dth module is %llu\n", k, (unsigned long long)yoneda_total(E, k)) < 0) return -1;
    return 0;
}

int yoneda_write_csv(FILE *f, const yoneda *E)
{
    if (fprintf(f, "%s\n", YONEDA_CSV_HEADER) < 0) return -1;
    for (int k = 0; k <= E->s; k++)
        for (deg_t u = 0; u <= E->t; u++)
            if (yoneda_dim(E, k, u) && fprintf(f, "%d,%d,%u\n", k, (int)u, yoneda_dim(E, k, u)) < 0) return -1;
    return 0;
}
