/* steenrod.c — algebraic Steenrod operations on Ext_A(F2, F2) (see steenrod.h). */
#include "stages/steenrod/steenrod.h"
#include <stdlib.h>
#include <string.h>
#include "algebra/f2mat.h"
#include "stages/products/preimage.h"

/* ---- the free modules F_k ------------------------------------------------------------- */

/* Basis element `bit` of F in degree T (generators in order, each with its Milnor block): its
 * generator's degree *u and index *g, and the index *r of its Milnor element in degree T - u.
 * 0, or -1 past the generators of degree <= T. */
static int fm_locate(const freemod *F, deg_t T, uint64_t bit, deg_t *u, uint32_t *g, uint32_t *r)
{
    uint64_t off = 0;
    for (deg_t v = 0; v <= T && v <= F->max_t; v++) {
        uint64_t n = F->ngens[v];
        if (!n) continue;   /* (the algebra's table may stop short of T - v there) */
        uint64_t block = F->dim[T - v];
        if (bit < off + n * block) {
            *u = v;
            *g = (uint32_t)((bit - off) / block);
            *r = (uint32_t)((bit - off) % block);
            return 0;
        }
        off += n * block;
    }
    return -1;
}

/* out (over F_k in degree T + |R|) ^= Sq(R)·(basis element p of F_k in degree T). */
static void fm_act_basis(const resolution *res, int k, deg_t T, uint64_t p, const milnor_elt *R, uint64_t *out)
{
    const freemod *F = &res->F[k];
    deg_t u;
    uint32_t g, r;
    if (fm_locate(F, T, p, &u, &g, &r) != 0) return;
    milnor_mul_into(&res->A, R, &res->A.elts[T - u][r], out, freemod_offset(F, T + R->degree, u, g));
}

/* out (over F_{k-1} in degree T) ^= d(basis element p of F_k in degree T), k >= 1. */
static void fm_d_basis(const resolution *res, int k, deg_t T, uint64_t p, uint64_t *out)
{
    const freemod *F = &res->F[k], *G = &res->F[k - 1];
    deg_t u, w;
    uint32_t g, r, h, q;
    if (fm_locate(F, T, p, &u, &g, &r) != 0) return;
    const milnor_elt *Q = &res->A.elts[T - u][r];
    const fm_gen *gen = &F->gens[u][g];
    for (uint32_t b = 0; b < gen->bits; b++)
        if (f2vec_get(gen->img, b) && fm_locate(G, u, b, &w, &h, &q) == 0)
            milnor_mul_into(&res->A, Q, &res->A.elts[u - w][q], out, freemod_offset(G, T, w, h));
}

static uint32_t fm_dim(const resolution *res, int k, deg_t T)
{
    return T < 0 || T > res->max_t ? 0 : (uint32_t)freemod_dim(&res->F[k], T, T + 1);
}

/* ---- Sq^0 through the Verschiebung ---------------------------------------------------- */

/* V(Sq(S)) = Sq(S/2) when every entry of S is even: 1 and *half set; else 0. */
static int verschiebung(const milnor_elt *S, milnor_elt *half)
{
    uint32_t r[MILNOR_MAX_LEN];
    for (uint32_t i = 0; i < S->len; i++) {
        if (S->r[i] & 1) return 0;
        r[i] = S->r[i] / 2;
    }
    milnor_elt_set(half, r, (int)S->len);
    return 1;
}

void steenrod_sq0_clear(steenrod_sq0 *q)
{
    if (q->phi && q->res) {
        size_t cells = (size_t)(q->res->max_s + 1) * ((size_t)q->res->max_n + 1);
        for (size_t c = 0; c < cells; c++) f2mat_clear(&q->phi[c]);
    }
    free(q->phi);
    free(q->have);
    if (q->res) latch_destroy(&q->fail);
    memset(q, 0, sizeof *q);
}

/* phi at (s, T): 0; -1 after the failure was latched (out of memory, or an internal error). */
static int sq0_step(steenrod_sq0 *q, int s, deg_t T)
{
    const resolution *res = q->res;
    const milnor_basis *A = &res->A;
    size_t c = res_cell(res, s, T);
    uint32_t ng = res_ngens(res, s, T);
    deg_t h = T / 2;
    if (ng == 0 || T % 2) {     /* nothing, or phi = 0 (odd degrees vanish) */
        q->have[c] = 1;
        return 0;
    }
    if (s == 0) {               /* phi(iota) = iota (the sphere: iota, in degree 0, is all of row 0) */
        if (f2mat_init(&q->phi[c], ng, fm_dim(res, 0, h)) != 0) goto oom;
        for (uint32_t j = 0; j < ng && j < q->phi[c].cols; j++) f2mat_set(&q->phi[c], j, j, 1);
        q->have[c] = 1;
        return 0;
    }
    if (h >= s && !res_is_done(res, s, h)) return 0;
    const freemod *F = &res->F[s], *G = &res->F[s - 1];
    f2mat Y;
    if (f2mat_init(&Y, ng, (uint32_t)freemod_dim(G, h, h)) != 0) goto oom;
    for (uint32_t j = 0; j < ng; j++) {   /* y_j = phi(d z_j) */
        const fm_gen *z = &F->gens[T][j];
        uint64_t *y = f2mat_row(&Y, j);
        for (uint32_t b = 0; b < z->bits; b++) {
            deg_t u, w;
            uint32_t g, r, g2, r2;
            milnor_elt half;
            if (!f2vec_get(z->img, b) || fm_locate(G, T, b, &u, &g, &r) != 0) continue;
            if (u % 2 || !verschiebung(&A->elts[T - u][r], &half)) continue;
            size_t cu = res_cell(res, s - 1, u);
            if (!q->have[cu]) {   /* (u, s - 1) is outside the region: so is phi here */
                f2mat_clear(&Y);
                return 0;
            }
            const f2mat *P = &q->phi[cu];
            for (uint32_t p = 0; p < P->cols; p++)
                if (f2mat_get(P, g, p) && fm_locate(G, u / 2, p, &w, &g2, &r2) == 0)
                    milnor_mul_into(A, &half, &A->elts[u / 2 - w][r2], y, freemod_offset(G, h, w, g2));
        }
    }
    if (fm_dim(res, s, h) == 0) {
        int zero = 1;
        for (uint32_t j = 0; j < ng; j++) zero &= f2vec_is_zero(f2mat_row(&Y, j), Y.stride);
        f2mat_clear(&Y);
        if (!zero) {
            latch_set(&q->fail, "internal error: Sq^0: phi(d z) is not zero at (s=%d, t=%d), where F_%d is zero", s,
                      (int)T, s);
            return -1;
        }
        q->have[c] = 1;
        return 0;
    }
    uint32_t bad = 0;
    int rc = preimage_solve(res, s, h, &Y, &q->phi[c], &bad);
    f2mat_clear(&Y);
    if (rc == -2) {
        latch_set(&q->fail, "internal error: Sq^0: phi(d z_%u) at (s=%d, t=%d) is not in the image of d", bad, s, (int)T);
        return -1;
    }
    if (rc) goto oom;
    q->have[c] = 1;
    return 0;
oom:
    latch_set(&q->fail, "out of memory computing Sq^0 at (s=%d, t=%d)", s, (int)T);
    return -1;
}

/* The steps as chains: plan does all (no rows to multiply), after (s-1, T-1) and (s, T-1). */
static int sq0_plan(chain *c)
{
    steenrod_sq0 *q = c->owner;
    c->build = NULL;
    return latch_is_set(&q->fail) ? -1 : sq0_step(q, c->s, c->t);
}
static int sq0_finish(chain *c) { (void)c; return 0; }
static int sq0_in_region(const steenrod_sq0 *q, int s, deg_t T) { return s >= 0 && res_is_done(q->res, s, T); }
static void sq0_deps(void *owner, int s, deg_t T, chain_deps *out)
{
    out->n = 0;
    for (int row = s - 1; row <= s; row++)
        if (sq0_in_region(owner, row, T - 1)) out->d[out->n++] = (chain_dep){ .family = CHAIN_LIFT, .s = row, .t = T - 1 };
}
/* preimage_solve's matrices at (s, T/2): D and its transpose beside the y. */
static uint64_t sq0_footprint(void *owner, int s, deg_t T)
{
    const steenrod_sq0 *q = owner;
    if (s < 1) return 4096;
    uint64_t rows = fm_dim(q->res, s, T / 2), cols = fm_dim(q->res, s - 1, T / 2);
    return 4096 + 3 * f2mat_bytes_for(rows + 64, cols + res_ngens(q->res, s, T) + 64);
}
const chain_kind sq0_step_kind = { "sq0", CHAIN_LIFT, sizeof(chain), sq0_plan, NULL, sq0_finish, NULL,
                                   sq0_deps, sq0_footprint, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL };

static chain_at sq0_at(void *owner, int s, deg_t T, int layer)
{
    (void)layer;
    return (chain_at){ sq0_in_region(owner, s, T) ? &sq0_step_kind : NULL, owner };
}
static void sq0_fail(void *owner, const char *msg) { latch_set(&((steenrod_sq0 *)owner)->fail, "%s", msg); }
static int sq0_failed(void *owner) { return latch_is_set(&((steenrod_sq0 *)owner)->fail); }

int steenrod_sq0_compute(const resolution *res, steenrod_sq0 *q, const chain_runner *runner)
{
    memset(q, 0, sizeof *q);
    latch_init(&q->fail);
    q->res = res;
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    q->phi = calloc(cells, sizeof *q->phi);
    q->have = calloc(cells, 1);
    if (!q->phi || !q->have) {
        latch_set(&q->fail, "out of memory computing Sq^0");
        return -1;
    }
    chain_set set = { .owner = q, .A = &res->A, .max_s = res->max_s, .max_t = res->max_t, .at = sq0_at,
                      .fail = sq0_fail, .failed = sq0_failed };
    int rc = chain_run(runner, &set);
    return latch_is_set(&q->fail) ? -1 : rc;
}

int steenrod_sq0_known(const steenrod_sq0 *q, int n, int s)
{
    const resolution *res = q->res;
    deg_t t = n + s;
    return n >= 0 && s >= 0 && s <= res->max_s && res_is_done(res, s, t) && res_is_done(res, s, 2 * t) &&
           q->have[res_cell(res, s, 2 * t)];
}

void steenrod_sq0_of(const steenrod_sq0 *q, int n, int s, uint32_t i, uint8_t *out)
{
    const resolution *res = q->res;
    deg_t t = n + s;
    uint32_t dim = res_ngens(res, s, 2 * t);
    const f2mat *P = &q->phi[res_cell(res, s, 2 * t)];
    uint64_t col = freemod_dim(&res->F[s], t, t) + i;
    for (uint32_t j = 0; j < dim; j++)
        out[j] = col < P->cols && j < P->rows ? (uint8_t)f2mat_get(P, j, (uint32_t)col) : 0;
}

/* Calls row(n, s, i, vector, dim) for every class with Sq^0 known, by stem then s. */
static int sq0_each(const steenrod_sq0 *q, int (*row)(FILE *, int, int, uint32_t, const uint8_t *, uint32_t),
                    FILE *f)
{
    const resolution *res = q->res;
    uint8_t *v = NULL;
    int rc = 0;
    for (int n = 0; n <= res->max_n && !rc; n++)
        for (int s = 0; s <= res->max_s && !rc; s++) {
            if (!steenrod_sq0_known(q, n, s)) continue;
            uint32_t ng = res_ngens(res, s, n + s), dim = res_ngens(res, s, 2 * (n + s));
            uint8_t *nv = realloc(v, dim + 1);
            if (!nv) {
                rc = -1;
                break;
            }
            v = nv;
            for (uint32_t i = 0; i < ng && !rc; i++) {
                steenrod_sq0_of(q, n, s, i, v);
                rc = row(f, n, s, i, v, dim);
            }
        }
    free(v);
    return rc;
}

static int print_vector(FILE *f, const uint8_t *v, uint32_t dim)
{
    fputc('[', f);
    for (uint32_t j = 0; j < dim; j++) fprintf(f, "%s%u", j ? ", " : "", v[j]);
    fputc(']', f);
    return 0;
}

static int sq0_sseq_row(FILE *f, int n, int s, uint32_t i, const uint8_t *v, uint32_t dim)
{
    fprintf(f, "Sq^0 x_(%d, %d, %u) = ", n, s, i);
    print_vector(f, v, dim);
    return fputc('\n', f) == EOF ? -1 : 0;
}

static int sq0_csv_row(FILE *f, int n, int s, uint32_t i, const uint8_t *v, uint32_t dim)
{
    for (uint32_t j = 0; j < dim; j++)
        if (v[j] && fprintf(f, "%d,%d,%u,%u\n", n, s, i, j) < 0) return -1;
    return 0;
}

int steenrod_sq0_write_sseq(FILE *f, const steenrod_sq0 *q) { return sq0_each(q, sq0_sseq_row, f); }

int steenrod_sq0_write_csv(FILE *f, const steenrod_sq0 *q)
{
    if (fprintf(f, "%s\n", STEENROD_SQ0_CSV_HEADER) < 0) return -1;
    return sq0_each(q, sq0_csv_row, f);
}

/* ---- the Yoneda representative E of a class -------------------------------------------- */

/* A subspace W of F2^dim kept fully reduced: row r has its lowest bit at pivot[r], a column
 * no other row has. */
typedef struct subspace {
    uint32_t dim, rank;
    f2mat rows;                 /* dim x dim, the first rank in use */
    uint32_t *pivot;
    int32_t *row_of;            /* per column: the row whose pivot it is, or -1 */
} subspace;

static int subspace_init(subspace *W, uint32_t dim)
{
    memset(W, 0, sizeof *W);
    W->dim = dim;
    W->pivot = malloc(((size_t)dim + 1) * sizeof *W->pivot);
    W->row_of = malloc(((size_t)dim + 1) * sizeof *W->row_of);
    if (!W->pivot || !W->row_of || f2mat_init(&W->rows, dim, dim) != 0) return -1;
    for (uint32_t c = 0; c < dim; c++) W->row_of[c] = -1;
    return 0;
}

static void subspace_clear(subspace *W)
{
    f2mat_clear(&W->rows);
    free(W->pivot);
    free(W->row_of);
}

/* v (dim bits) reduced modulo W: zero at every pivot column. */
static void subspace_reduce(const subspace *W, uint64_t *v)
{
    for (uint32_t r = 0; r < W->rank; r++)
        if (f2vec_get(v, W->pivot[r])) f2vec_xor(v, f2mat_row(&W->rows, r), f2vec_words(W->dim));
}

/* W += v (v is destroyed); 1 when W grew. */
static int subspace_add(subspace *W, uint64_t *v)
{
    size_t words = f2vec_words(W->dim);
    subspace_reduce(W, v);
    int64_t p = f2vec_first_bit(v, W->dim);
    if (p < 0) return 0;
    for (uint32_t r = 0; r < W->rank; r++)
        if (f2vec_get(f2mat_row(&W->rows, r), (uint64_t)p)) f2vec_xor(f2mat_row(&W->rows, r), v, words);
    memcpy(f2mat_row(&W->rows, W->rank), v, words * sizeof *v);
    W->pivot[W->rank] = (uint32_t)p;
    W->row_of[p] = (int32_t)W->rank++;
    return 1;
}

/* E_k in degree u (k = 0..s, u = 0..t) is F_k in degree u modulo W_k(u) (k < s), the columns
 * that are no pivot of W_k(u) its basis; E_s is one class, in degree t, the image of x's first
 * generator. W starts as d(ker x) in row s - 1 (zero below) and grows by the reduction
 * (ec_reduce). */
typedef struct ecomplex {
    const resolution *res;
    int s;
    deg_t t;
    const uint8_t *x;
    uint32_t xgen;              /* a generator j with x_j = 1 */
    uint32_t *edim;             /* [k * (t + 1) + u] */
    subspace *W;                /* [k * (t + 1) + u], k < s */
    uint32_t **basis;           /* [k * (t + 1) + u], k < s: the columns of F_k(u) that are E's basis */
    /* act[(k * (t + 1) + u) * (t + 1) + d]: row i * dim A_d + r = Sq(R_r)·e_i over E_k(u + d) */
    f2mat *act;
    f2mat *dmat;                /* [k * (t + 1) + u], k >= 1: row i = d(e_i) over E_{k-1}(u) */
} ecomplex;

static size_t ec_cell(const ecomplex *E, int k, deg_t u) { return (size_t)k * ((size_t)E->t + 1) + (size_t)u; }
static uint32_t ec_dim(const ecomplex *E, int k, deg_t u)
{
    return k < 0 || k > E->s || u < 0 || u > E->t ? 0 : E->edim[ec_cell(E, k, u)];
}

/* out (over E_k(u), zeroed by the caller) = the class of v (over F_k(u); v is destroyed). */
static void ec_project(const ecomplex *E, int k, deg_t u, uint64_t *v, uint64_t *out)
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
    size_t c = ec_cell(E, k, u);
    subspace_reduce(&E->W[c], v);
    for (uint32_t b = 0; b < E->edim[c]; b++)
        if (f2vec_get(v, E->basis[c][b])) f2vec_flip(out, b);
}

/* The basis element of F_k(u) that stands for e_b. */
static uint64_t ec_rep(const ecomplex *E, int k, deg_t u, uint32_t b)
{
    if (k == E->s) return freemod_dim(&E->res->F[k], u, u) + E->xgen;
    return E->basis[ec_cell(E, k, u)][b];
}

/* E_k(u)'s basis: the columns that are no pivot of W_k(u). */
static void ec_rebasis(ecomplex *E, int k, deg_t u)
{
    size_t c = ec_cell(E, k, u);
    const subspace *W = &E->W[c];
    uint32_t nb = 0;
    for (uint32_t col = 0; col < W->dim; col++)
        if (W->row_of[col] < 0) E->basis[c][nb++] = col;
    E->edim[c] = nb;
}

static void ec_clear(ecomplex *E)
{
    size_t cells = (size_t)(E->s + 1) * ((size_t)E->t + 1);
    if (E->act)
        for (size_t c = 0; c < cells * ((size_t)E->t + 1); c++) f2mat_clear(&E->act[c]);
    if (E->dmat)
        for (size_t c = 0; c < cells; c++) f2mat_clear(&E->dmat[c]);
    for (size_t c = 0; E->W && c < cells; c++) {
        subspace_clear(&E->W[c]);
        free(E->basis[c]);
    }
    free(E->act);
    free(E->dmat);
    free(E->W);
    free(E->basis);
    free(E->edim);
}

/* W_{s-1} = d(ker x): ker x is every element of F_s outside degree t, and in degree t the
 * decomposables, the generators j with x_j = 0 and j + xgen for the others. 0 or -1. */
static int ec_kernel_image(ecomplex *E, uint64_t *v)
{
    const resolution *res = E->res;
    int s = E->s;
    for (deg_t u = 0; u <= E->t; u++) {
        uint32_t fs = fm_dim(res, s, u), fd = fm_dim(res, s - 1, u);
        uint64_t below = freemod_dim(&res->F[s], u, u);
        subspace *W = &E->W[ec_cell(E, s - 1, u)];
        for (uint32_t p = 0; p < fs; p++) {
            memset(v, 0, f2vec_words(fd) * sizeof *v);
            if (u == E->t && p >= below) {
                uint32_t j = (uint32_t)(p - below);
                if (j == E->xgen) continue;
                fm_d_basis(res, s, u, p, v);
                if (E->x[j]) fm_d_basis(res, s, u, below + E->xgen, v);
            } else
                fm_d_basis(res, s, u, p, v);
            subspace_add(W, v);
        }
    }
    return 0;
}

/* Removes, from E_k, the submodule A·g of each generator g of F_k (by degree, then index) on
 * which d is injective (it meets no cycle, and E is exact: no boundary), and its image from
 * E_{k-1}: a quotient by an acyclic subcomplex. 0 or -1. */
static int ec_kill_generators(ecomplex *E, int k, uint64_t *v, size_t vwords)
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
                uint32_t fd = fm_dim(res, k, u), fd1 = fm_dim(res, k - 1, u), na = A->dim[u - ug];
                uint32_t seg = f2mat_segment_start(fd1);
                f2mat_clear(&M[u]);
                if (f2mat_init(&M[u], na, seg + fd) != 0) goto out;
                for (uint32_t r = 0; r < na; r++) {
                    uint64_t *row = f2mat_row(&M[u], r), p = freemod_offset(F, u, ug, g) + r;
                    memset(v, 0, vwords * sizeof *v);
                    v[p >> 6] |= (uint64_t)1 << (p & 63);
                    subspace_reduce(&E->W[ec_cell(E, k, u)], v);
                    memcpy(row + (seg >> 6), v, f2vec_words(fd) * sizeof *v);
                    memset(v, 0, vwords * sizeof *v);
                    for (uint32_t b = 0; b < fd; b++)
                        if (f2vec_get(row + (seg >> 6), b)) fm_d_basis(res, k, u, b, v);
                    subspace_reduce(&E->W[ec_cell(E, k - 1, u)], v);
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
                uint32_t fd = fm_dim(res, k, u), fd1 = fm_dim(res, k - 1, u), seg = f2mat_segment_start(fd1);
                for (uint32_t r = 0; r < M[u].rows; r++) {
                    const uint64_t *row = f2mat_row(&M[u], r);
                    memcpy(v, row + (seg >> 6), f2vec_words(fd) * sizeof *v);
                    subspace_add(&E->W[ec_cell(E, k, u)], v);
                    memset(v, 0, vwords * sizeof *v);
                    memcpy(v, row, f2vec_words(fd1) * sizeof *v);
                    subspace_add(&E->W[ec_cell(E, k - 1, u)], v);
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
 * Sq(R) rated sum_j popcount(r_j) 2^j (cheap operations first), plus a large penalty per row of
 * W_k(u) with a 1 there. */
typedef struct pref_col {
    long pref;
    uint32_t col, row;
} pref_col;

static long column_preference(const ecomplex *E, int k, deg_t u, uint32_t col)
{
    deg_t ug;
    uint32_t g, r;
    long pref = 0;
    if (fm_locate(&E->res->F[k], u, col, &ug, &g, &r) == 0) {
        const milnor_elt *R = &E->res->A.elts[u - ug][r];
        for (uint32_t j = 0; j < R->len; j++) pref += (long)__builtin_popcount(R->r[j]) << j;
    }
    const subspace *W = &E->W[ec_cell(E, k, u)];
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
static int ec_reduce_degree(ecomplex *E, int k, deg_t u, uint64_t *v, size_t vwords)
{
    const resolution *res = E->res;
    int rc = -1;
    f2mat M = { 0 }, aug = { 0 }, K = { 0 }, Dk = { 0 }, aug2 = { 0 }, Z = { 0 }, Img = { 0 };
    int32_t *piv = NULL, *piv2 = NULL;
    pref_col *order = NULL;
    uint8_t *kept = NULL, *used = NULL;
    size_t c = ec_cell(E, k, u);
    uint32_t ed = E->edim[c], fd = fm_dim(res, k, u), fd1 = fm_dim(res, k - 1, u);
    if (!ed) return 0;
    /* the columns: Sq(2^j) e_b over F_k(u + 2^j) reduced mod W, side by side */
    uint32_t cols = 0;
    for (deg_t d = 1; u + d <= E->t; d *= 2) cols += fm_dim(res, k, u + d);
    if (f2mat_init(&M, ed, cols) != 0) goto out;
    for (uint32_t b = 0; b < ed; b++) {
        uint32_t off = 0;
        for (deg_t d = 1; u + d <= E->t; d *= 2) {
            uint32_t fdd = fm_dim(res, k, u + d);
            milnor_elt R;
            uint32_t r1 = (uint32_t)d;
            milnor_elt_set(&R, &r1, 1);
            memset(v, 0, vwords * sizeof *v);
            fm_act_basis(res, k, u, E->basis[c][b], &R, v);
            subspace_reduce(&E->W[ec_cell(E, k, u + d)], v);
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
            if (f2mat_get(&K, r, b)) fm_d_basis(res, k, u, E->basis[c][b], v);
        subspace_reduce(&E->W[ec_cell(E, k - 1, u)], v);
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
        subspace_add(&E->W[c], v);
        subspace_add(&E->W[ec_cell(E, k - 1, u)], w);
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
static int ec_reduce(ecomplex *E, uint64_t *v, size_t vwords)
{
    for (int k = E->s - 1; k >= 1; k--) {
        if (ec_kill_generators(E, k, v, vwords) != 0) return -1;
        for (deg_t u = E->t; u >= 0; u--)
            if (ec_reduce_degree(E, k, u, v, vwords) != 0) return -1;
    }
    return 0;
}

/* Builds E, its action tables and its differential. 0 or -1. */
static int ec_build(ecomplex *E)
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
    for (int k = 0; k <= s; k++) fw = fw > f2vec_words(fm_dim(res, k, t)) + 1 ? fw : f2vec_words(fm_dim(res, k, t)) + 1;
    uint64_t *v = calloc(2 * fw, sizeof *v);
    if (!v) return -1;
    int rc = -1;
    for (int k = 0; k < s; k++)
        for (deg_t u = 0; u <= t; u++) {
            size_t c = ec_cell(E, k, u);
            if (subspace_init(&E->W[c], fm_dim(res, k, u)) != 0 ||
                !(E->basis[c] = malloc(((size_t)fm_dim(res, k, u) + 1) * sizeof *E->basis[c])))
                goto out;
        }
    E->edim[ec_cell(E, s, t)] = 1;
    if (s >= 1 && ec_kernel_image(E, v) != 0) goto out;
    for (int k = 0; k < s; k++)
        for (deg_t u = 0; u <= t; u++) ec_rebasis(E, k, u);
    if (ec_reduce(E, v, 2 * fw) != 0) goto out;
    const milnor_basis *A = &res->A;
    for (int k = 0; k <= s; k++)
        for (deg_t u = 0; u <= t; u++) {
            uint32_t ed = ec_dim(E, k, u);
            if (!ed) continue;
            for (deg_t d = 0; u + d <= t; d++) {   /* Sq(R)·e_i */
                f2mat *T = &E->act[ec_cell(E, k, u) * ((size_t)t + 1) + (size_t)d];
                uint32_t na = A->dim[d], ed2 = ec_dim(E, k, u + d);
                if (f2mat_init(T, ed * na, ed2) != 0) goto out;
                if (!ed2) continue;
                for (uint32_t i = 0; i < ed; i++)
                    for (uint32_t r = 0; r < na; r++) {
                        memset(v, 0, fw * sizeof *v);
                        fm_act_basis(res, k, u, ec_rep(E, k, u, i), &A->elts[d][r], v);
                        ec_project(E, k, u + d, v, f2mat_row(T, i * na + r));
                    }
            }
            if (k == 0) continue;
            f2mat *D = &E->dmat[ec_cell(E, k, u)];
            if (f2mat_init(D, ed, ec_dim(E, k - 1, u)) != 0) goto out;
            for (uint32_t i = 0; i < ed; i++) {
                memset(v, 0, fw * sizeof *v);
                fm_d_basis(res, k, u, ec_rep(E, k, u, i), v);
                ec_project(E, k - 1, u, v, f2mat_row(D, i));
            }
        }
    rc = 0;
out:
    free(v);
    return rc;
}

/* ---- the tensor square E (x) E --------------------------------------------------------- */

/* (E (x) E)_m in degree T: blocks E_a(u) (x) E_{m-a}(T-u), element (i, j) at off + i db + j. */
typedef struct tblock {
    int a;
    deg_t u;
    uint32_t da, db;
    uint64_t off;
} tblock;
typedef struct tspace {
    uint64_t dim;
    uint32_t nblocks;
    tblock *blocks;
    int64_t *where;             /* [a * (t + 1) + u]: its block, or -1 */
    f2mat D;                    /* d : (m, T) -> (m - 1, T), rows over this space (once built) */
    f2qi qi;
    int have_qi;
} tspace;

typedef struct tensor {
    const ecomplex *E;
    int ms;                     /* m = 0..2s */
    deg_t mt;                   /* T = 0..2t */
    tspace *sp;
} tensor;

static tspace *tsp(const tensor *X, int m, deg_t T) { return &X->sp[(size_t)m * ((size_t)X->mt + 1) + (size_t)T]; }

static void tensor_clear(tensor *X)
{
    if (!X->sp) return;
    for (int m = 0; m <= X->ms; m++)
        for (deg_t T = 0; T <= X->mt; T++) {
            tspace *S = tsp(X, m, T);
            free(S->blocks);
            free(S->where);
            f2mat_clear(&S->D);
            if (S->have_qi) f2qi_clear(&S->qi);
        }
    free(X->sp);
}

static int tensor_init(tensor *X, const ecomplex *E)
{
    int s = E->s;
    deg_t t = E->t;
    X->E = E;
    X->ms = 2 * s;
    X->mt = 2 * t;
    X->sp = calloc((size_t)(X->ms + 1) * ((size_t)X->mt + 1), sizeof *X->sp);
    if (!X->sp) return -1;
    size_t nw = (size_t)(s + 1) * ((size_t)t + 1);
    for (int m = 0; m <= X->ms; m++)
        for (deg_t T = 0; T <= X->mt; T++) {
            tspace *S = tsp(X, m, T);
            S->where = malloc(nw * sizeof *S->where);
            S->blocks = malloc(nw * sizeof *S->blocks);
            if (!S->where || !S->blocks) return -1;
            for (size_t w = 0; w < nw; w++) S->where[w] = -1;
            for (int a = 0; a <= s; a++)
                for (deg_t u = 0; u <= t; u++) {
                    uint32_t da = ec_dim(E, a, u), db = ec_dim(E, m - a, T - u);
                    if (!da || !db) continue;
                    S->where[(size_t)a * ((size_t)t + 1) + (size_t)u] = S->nblocks;
                    S->blocks[S->nblocks++] = (tblock){ a, u, da, db, S->dim };
                    S->dim += (uint64_t)da * db;
                }
            if (S->dim > UINT32_MAX / 2) return -1;
        }
    return 0;
}

static const tblock *tblock_at(const tensor *X, const tspace *S, int a, deg_t u)
{
    if (a < 0 || a > X->E->s || u < 0 || u > X->E->t) return NULL;
    int64_t w = S->where[(size_t)a * ((size_t)X->E->t + 1) + (size_t)u];
    return w < 0 ? NULL : &S->blocks[w];
}

/* The block of element p of S (binary search on the offsets). */
static const tblock *tblock_of(const tspace *S, uint64_t p)
{
    uint32_t lo = 0, hi = S->nblocks;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (S->blocks[mid].off <= p) lo = mid;
        else hi = mid;
    }
    return &S->blocks[lo];
}

/* out (over (m, T)) ^= p (x) q, p over E_a(u), q over E_{m-a}(T-u) (dims of that block). */
static void tensor_add_product(const tblock *B, const uint64_t *p, const uint64_t *q, uint64_t *out)
{
    for (uint32_t i = 0; i < B->da; i++) {
        if (!f2vec_get(p, i)) continue;
        for (uint32_t j = 0; j < B->db; j++)
            if (f2vec_get(q, j)) f2vec_flip(out, B->off + (uint64_t)i * B->db + j);
    }
}

/* The diagonal action on one vector: its blocks with a bit set, and the degrees |R'| a split
 * R = R' + R'' may have for any of them to land in E (x) E. */
typedef struct act_ctx {
    const tensor *X;
    int m;
    deg_t T;
    const uint64_t *v;
    const milnor_elt *R;
    uint64_t *out;
    const tblock **active;
    uint32_t nactive;
    deg_t lo, hi;
    uint32_t c[MILNOR_MAX_LEN];
} act_ctx;

/* Sq(R')·e (x) Sq(R'')·e' for R' = c, over the active blocks. */
static void act_split(act_ctx *x)
{
    const tensor *X = x->X;
    const ecomplex *E = X->E;
    const milnor_basis *A = &E->res->A;
    deg_t t = E->t;
    uint32_t c2[MILNOR_MAX_LEN];
    milnor_elt R1, R2;
    for (uint32_t i = 0; i < x->R->len; i++) c2[i] = x->R->r[i] - x->c[i];
    milnor_elt_set(&R1, x->c, (int)x->R->len);
    milnor_elt_set(&R2, c2, (int)x->R->len);
    uint32_t i1 = milnor_index(A, &R1), i2 = milnor_index(A, &R2), na1 = A->dim[R1.degree], na2 = A->dim[R2.degree];
    const tspace *S2 = tsp(X, x->m, x->T + x->R->degree);
    for (uint32_t bi = 0; bi < x->nactive; bi++) {
        const tblock *B = x->active[bi];
        deg_t v1 = x->T - B->u, u2 = B->u + R1.degree, v2 = v1 + R2.degree;
        if (u2 > t || v2 > t) continue;
        const tblock *B2 = tblock_at(X, S2, B->a, u2);
        if (!B2) continue;
        const f2mat *P = &E->act[ec_cell(E, B->a, B->u) * ((size_t)t + 1) + (size_t)R1.degree];
        const f2mat *Q = &E->act[ec_cell(E, x->m - B->a, v1) * ((size_t)t + 1) + (size_t)R2.degree];
        for (uint32_t i = 0; i < B->da; i++)
            for (uint32_t j = 0; j < B->db; j++)
                if (f2vec_get(x->v, B->off + (uint64_t)i * B->db + j))
                    tensor_add_product(B2, f2mat_row(P, i * na1 + i1), f2mat_row(Q, j * na2 + i2), x->out);
    }
}

/* Every R' <= R (entrywise) with lo <= |R'| <= hi: slot i and those below are still free, deg
 * is the degree of the slots above; rest[i] the most the slots 0..i can add. */
static void act_splits(act_ctx *x, int i, deg_t deg, const deg_t *rest)
{
    if (i < 0) {
        if (deg >= x->lo) act_split(x);
        return;
    }
    for (uint32_t ci = 0; ci <= x->R->r[i]; ci++) {
        deg_t d = deg + (deg_t)ci * (deg_t)milnor_xi_degree[i];
        if (d > x->hi) break;
        x->c[i] = ci;
        if (d + (i ? rest[i - 1] : 0) >= x->lo) act_splits(x, i - 1, d, rest);
    }
    x->c[i] = 0;
}

/* out (over (m, T + |R|)) ^= Sq(R)·v, v over (m, T): the diagonal action, Sq(R)(e (x) e') =
 * sum over R = R' + R'' of Sq(R')e (x) Sq(R'')e'. */
static void tensor_act(const tensor *X, int m, deg_t T, const uint64_t *v, const milnor_elt *R, uint64_t *out)
{
    const ecomplex *E = X->E;
    deg_t t = E->t, d = R->degree;
    if (T + d > X->mt) return;
    const tspace *S = tsp(X, m, T);
    const tblock *active[256], **act = S->nblocks <= 256 ? active : malloc(S->nblocks * sizeof *act);
    act_ctx x = { X, m, T, v, R, out, act, 0, d + 1, -1, { 0 } };
    if (!act) return;   /* (a set with that many blocks does not fit anyway) */
    for (uint32_t bi = 0; bi < S->nblocks; bi++) {
        const tblock *B = &S->blocks[bi];
        int any = 0;
        for (uint64_t p = B->off; p < B->off + (uint64_t)B->da * B->db && !any; p++) any = f2vec_get(v, p);
        if (!any) continue;
        act[x.nactive++] = B;
        deg_t lo = d - (t - (T - B->u)), hi = t - B->u;   /* |R'| <= t - u, |R''| <= t - v */
        if (lo < x.lo) x.lo = lo;
        if (hi > x.hi) x.hi = hi;
    }
    if (x.lo < 0) x.lo = 0;
    if (x.hi > d) x.hi = d;
    if (x.nactive && x.lo <= x.hi) {
        deg_t rest[MILNOR_MAX_LEN];
        for (uint32_t i = 0; i < R->len; i++) rest[i] = (i ? rest[i - 1] : 0) + (deg_t)(R->r[i] * milnor_xi_degree[i]);
        act_splits(&x, (int)R->len - 1, 0, rest);
    }
    if (act != active) free(act);
}

/* out (over (m, T)) ^= tau v: e (x) e' -> e' (x) e. */
static void tensor_swap(const tensor *X, int m, deg_t T, const uint64_t *v, uint64_t *out)
{
    const tspace *S = tsp(X, m, T);
    for (uint64_t p = 0; p < S->dim; p++) {
        if (!f2vec_get(v, p)) continue;
        const tblock *B = tblock_of(S, p), *B2 = tblock_at(X, S, m - B->a, T - B->u);
        uint64_t i = (p - B->off) / B->db, j = (p - B->off) % B->db;
        f2vec_flip(out, B2->off + j * B2->db + i);
    }
}

/* The matrix of d : (m, T) -> (m - 1, T) and its quasi-inverse. 0 or -1. */
static int tensor_qi(tensor *X, int m, deg_t T)
{
    tspace *S = tsp(X, m, T);
    if (S->have_qi) return 0;
    const ecomplex *E = X->E;
    deg_t t = E->t;
    const tspace *S1 = tsp(X, m - 1, T);
    if (f2mat_init(&S->D, (uint32_t)S->dim, (uint32_t)S1->dim) != 0) return -1;
    for (uint32_t bi = 0; bi < S->nblocks; bi++) {
        const tblock *B = &S->blocks[bi];
        int b = m - B->a;
        deg_t v = T - B->u;
        const tblock *L = tblock_at(X, S1, B->a - 1, B->u), *Rb = tblock_at(X, S1, B->a, B->u);
        for (uint32_t i = 0; i < B->da; i++)
            for (uint32_t j = 0; j < B->db; j++) {
                uint64_t *row = f2mat_row(&S->D, (uint32_t)(B->off + (uint64_t)i * B->db + j));
                if (L) {   /* d e_i (x) e_j */
                    const uint64_t *de = f2mat_row(&E->dmat[ec_cell(E, B->a, B->u)], i);
                    for (uint32_t i2 = 0; i2 < L->da; i2++)
                        if (f2vec_get(de, i2)) f2vec_flip(row, L->off + (uint64_t)i2 * L->db + j);
                }
                if (Rb) {  /* e_i (x) d e_j */
                    const uint64_t *de = f2mat_row(&E->dmat[ec_cell(E, b, v)], j);
                    for (uint32_t j2 = 0; j2 < Rb->db; j2++)
                        if (f2vec_get(de, j2)) f2vec_flip(row, Rb->off + (uint64_t)i * Rb->db + j2);
                }
            }
    }
    (void)t;
    f2mat aug = { 0 };
    int32_t *piv = NULL;
    int rank = f2mat_rref_augmented(&S->D, &aug, &piv);
    int rc = rank < 0 ? -1 : f2mat_quasi_inverse_from_rref(&aug, S->D.cols, (uint32_t)rank, piv, &S->qi);
    f2mat_clear(&aug);
    free(piv);
    if (rc) return -1;
    S->have_qi = 1;
    return 0;
}

/* ---- the maps Delta_i ------------------------------------------------------------------- */

void steenrod_result_clear(steenrod_result *r)
{
    if (r->val)
        for (int k = 0; k <= r->s; k++) free(r->val[k]);
    free(r->val);
    free(r->dim);
    free(r->known);
    free(r->edim);
    free(r->coords);
    memset(r, 0, sizeof *r);
}

/* Is every bidegree with row <= kmax, t <= tmax and stem <= nmax resolved? */
static int region_resolved(const resolution *res, int kmax, deg_t tmax, deg_t nmax)
{
    if (kmax > res->max_s) return 0;
    for (int k = 0; k <= kmax; k++)
        for (deg_t T = k; T <= tmax && T - k <= nmax; T++)
            if (!res_is_done(res, k, T)) return 0;
    return 1;
}

/* Which of Sq^0..Sq^s of r's class are in range: Sq^{s-i} needs Delta_i on rows <= 2s - i
 * through degree 2t and stem 2t - 2s + i, and E (rows <= s through degree t). */
int steenrod_result_init(steenrod_result *r, const resolution *res, int n, int s, const uint8_t *coords, uint32_t len)
{
    memset(r, 0, sizeof *r);
    deg_t t = n + s;
    r->n = n;
    r->s = s;
    r->len = len;
    r->coords = malloc(len + 1);
    r->edim = calloc((size_t)s + 1, sizeof *r->edim);
    r->known = calloc((size_t)s + 1, 1);
    r->dim = calloc((size_t)s + 1, sizeof *r->dim);
    r->val = calloc((size_t)s + 1, sizeof *r->val);
    if (!r->coords || !r->edim || !r->known || !r->dim || !r->val) return -1;
    memcpy(r->coords, coords, len);
    int e_ok = region_resolved(res, s, t, t);
    for (int i = 0; i <= s && i < 64; i++) {
        if (!e_ok || !region_resolved(res, 2 * s - i, 2 * t, 2 * t - 2 * s + i)) continue;
        r->known[s - i] = 1;
        r->dim[s - i] = res_ngens(res, 2 * s - i, 2 * t);
        if (!(r->val[s - i] = calloc((size_t)r->dim[s - i] + 1, 1))) return -1;
    }
    return 0;
}

/* ---- the classes' squares as chains ---------------------------------------------------- */

/* One class: E and E (x) E, built by the chain at (0, 0) of its block, and the maps Delta_j(k, T)
 * (j <= imax, k + j <= 2s, T <= 2t), each filled by the chain at (k + j, T). */
typedef struct sq_job {
    struct sq_set *set;
    steenrod_result *r;
    int s;
    deg_t t;
    int want[64], imax;         /* Sq^{s-i} for want[i]; imax the largest such i, -1: no chain */
    deg_t base;                 /* the block's first degree in the chain set: (m, T) is (m, base + T) */
    ecomplex E;
    tensor X;
    f2mat *delta;               /* delta_at(j, k, T) */
    size_t words;               /* of the longest vector over a space of E (x) E, + 1 */
    _Atomic int built;          /* E, X and delta exist */
} sq_job;

typedef struct sq_set {
    const resolution *res;
    sq_job *jobs;
    int n;
    fail_latch fail;            /* the first failure */
    _Atomic int oom;            /* it was memory */
} sq_set;

static f2mat *delta_at(const sq_job *J, int j, int k, deg_t T)
{
    return &J->delta[((size_t)j * (2 * (size_t)J->s + 1) + (size_t)k) * (2 * (size_t)J->t + 1) + (size_t)T];
}

static int sq_oom(sq_job *J)
{
    atomic_store(&J->set->oom, 1);
    latch_set(&J->set->fail, "out of memory computing the Steenrod squares of the class at (n=%d, s=%d)",
              (int)J->t - J->s, J->s);
    return -1;
}

/* The chain at (0, 0): E, E (x) E, the Yoneda line's dimensions, room for delta. 0 or -1. */
static int sq_build(sq_job *J)
{
    const resolution *res = J->set->res;
    int s = J->s;
    deg_t t = J->t;
    J->E = (ecomplex){ .res = res, .s = s, .t = t, .x = J->r->coords };
    while (!J->r->coords[J->E.xgen]) J->E.xgen++;
    if (ec_build(&J->E) != 0 || tensor_init(&J->X, &J->E) != 0) return sq_oom(J);
    for (int k = 0; k <= s; k++)
        for (deg_t u = 0; u <= t; u++) J->r->edim[k] += ec_dim(&J->E, k, u);
    uint64_t maxdim = 0;
    for (int m = 0; m <= J->X.ms; m++)
        for (deg_t T = 0; T <= J->X.mt; T++) maxdim = tsp(&J->X, m, T)->dim > maxdim ? tsp(&J->X, m, T)->dim : maxdim;
    J->words = f2vec_words((uint32_t)maxdim) + 1;
    J->delta = calloc((size_t)(J->imax + 1) * (2 * (size_t)s + 1) * (2 * (size_t)t + 1), sizeof *J->delta);
    if (!J->delta) return sq_oom(J);
    atomic_store(&J->built, 1);
    return 0;
}

/* Delta_j(k, T) for every j + k = m (each reads Delta_{j-1}(k, T) and Delta_j(k - 1, u), u <= T:
 * chains at m - 1), through the quasi-inverse of d on (E (x) E)_m in degree T. 0 or -1. */
static int sq_cell(sq_job *J, int m, deg_t T)
{
    const resolution *res = J->set->res;
    tensor *X = &J->X;
    int s = J->s;
    deg_t t = J->t;
    uint64_t *rhs = NULL, *chk = NULL;
    int rc = 0;
    for (int j = 0; j <= J->imax && j <= m && rc == 0; j++) {
        int k = m - j, need = 0;   /* some wanted i >= j reads Delta_j here */
        for (int i = j; i <= J->imax && !need; i++)
            need = J->want[i] && k <= 2 * s - i && T >= k && T - k <= 2 * t - 2 * s + i;
        uint32_t ng = res_ngens(res, k, T);
        if (!need || !ng) continue;
        tspace *S = tsp(X, m, T);
        f2mat *Dl = delta_at(J, j, k, T);
        if (f2mat_init(Dl, ng, (uint32_t)S->dim) != 0) return sq_oom(J);
        if (m == 0) {   /* Delta_0(iota) = e0 (x) e0 */
            if (S->dim) f2mat_set(Dl, 0, 0, 1);
            continue;
        }
        const tspace *S1 = tsp(X, m - 1, T);
        size_t w1 = f2vec_words((uint32_t)S1->dim) + 1;
        if (!rhs && (!(rhs = malloc(J->words * sizeof *rhs)) || !(chk = malloc(J->words * sizeof *chk)))) {
            rc = sq_oom(J);
            break;
        }
        if (S->dim && tensor_qi(X, m, T) != 0) {
            rc = sq_oom(J);
            break;
        }
        for (uint32_t g = 0; g < ng && rc == 0; g++) {
            memset(rhs, 0, w1 * sizeof *rhs);
            if (j >= 1) {   /* Delta_{j-1}(z) + tau Delta_{j-1}(z) */
                const uint64_t *prev = f2mat_row(delta_at(J, j - 1, k, T), g);
                f2vec_xor(rhs, prev, f2vec_words((uint32_t)S1->dim));
                tensor_swap(X, m - 1, T, prev, rhs);
            }
            if (k >= 1) {   /* Delta_j(d z) */
                const fm_gen *z = &res->F[k].gens[T][g];
                for (uint32_t b = 0; b < z->bits; b++) {
                    deg_t u;
                    uint32_t gi, ri;
                    if (!f2vec_get(z->img, b) || fm_locate(&res->F[k - 1], T, b, &u, &gi, &ri) != 0) continue;
                    const f2mat *P = delta_at(J, j, k - 1, u);
                    if (!P->rows) continue;
                    tensor_act(X, m - 1, u, f2mat_row(P, gi), &res->A.elts[T - u][ri], rhs);
                }
            }
            if (!S->dim) {
                if (!f2vec_is_zero(rhs, w1)) {
                    latch_set(&J->set->fail, "steenrod: Delta_%d at (s=%d, t=%d): a cycle of E(x)E where there is "
                              "nothing", j, k, (int)T);
                    rc = -1;
                }
                continue;
            }
            uint64_t *x = f2mat_row(Dl, g);
            f2qi_apply(&S->qi, rhs, x);
            memset(chk, 0, w1 * sizeof *chk);   /* d x must give back the right side */
            for (uint64_t p = 0; p < S->dim; p++)
                if (f2vec_get(x, p)) f2vec_xor(chk, f2mat_row(&S->D, (uint32_t)p), f2vec_words((uint32_t)S1->dim));
            if (memcmp(chk, rhs, f2vec_words((uint32_t)S1->dim) * sizeof *chk)) {
                latch_set(&J->set->fail, "steenrod: Delta_%d at (s=%d, t=%d): the right side is not a boundary of "
                          "E(x)E", j, k, (int)T);
                rc = -1;
            }
        }
    }
    free(rhs);
    free(chk);
    return rc;
}

static int sq_plan(chain *c)
{
    sq_job *J = c->owner;
    c->build = NULL;
    if (latch_is_set(&J->set->fail)) return -1;
    deg_t T = c->t - J->base;
    if (c->s == 0 && T == 0 && sq_build(J) != 0) return -1;
    return sq_cell(J, c->s, T);
}
static int sq_finish(chain *c) { (void)c; return 0; }
/* (m, T) after (m - 1, T) and (m, T - 1) where they are chains (m <= T: below, (E (x) E)_m is
 * zero in degree T and Delta_j(k, T) has no column): through them, after every chain (m', T')
 * <= (m, T), (0, 0) (the build) included. */
static void sq_deps(void *owner, int m, deg_t tt, chain_deps *out)
{
    const sq_job *J = owner;
    out->n = 0;
    if (m >= 1) out->d[out->n++] = (chain_dep){ .family = CHAIN_LIFT, .s = m - 1, .t = tt };
    if (m <= tt - 1 - J->base) out->d[out->n++] = (chain_dep){ .family = CHAIN_LIFT, .s = m, .t = tt - 1 };
}
/* The build: E's subspaces, at most F's dimensions squared. A cell: the matrix of d on
 * (E (x) E)_m(T), its RREF and quasi-inverse, and two vectors. */
static uint64_t sq_footprint(void *owner, int m, deg_t tt)
{
    sq_job *J = owner;
    deg_t T = tt - J->base;
    if (!atomic_load(&J->built)) {
        uint64_t b = 4096;
        if (m == 0 && T == 0)
            for (int k = 0; k <= J->s; k++)
                for (deg_t u = 0; u <= J->t; u++) b += 2 * f2mat_bytes_for(fm_dim(J->set->res, k, u), fm_dim(J->set->res, k, u));
        return b;
    }
    uint64_t d = tsp(&J->X, m, T)->dim, d1 = m ? tsp(&J->X, m - 1, T)->dim : 0;
    return 4096 + 3 * f2mat_bytes_for(d + 64, d + d1 + 64) + 16 * J->words;
}
static const chain_kind sq_step_kind = { "steenrod", CHAIN_LIFT, sizeof(chain), sq_plan, NULL, sq_finish, NULL,
                                         sq_deps, sq_footprint, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL };

/* The class whose block holds degree tt (the last with base <= tt: bases grow with the class),
 * when it has a chain at (m, tt - base): m <= 2s, m <= T <= 2t. */
static chain_at sq_at(void *owner, int m, deg_t tt, int layer)
{
    (void)layer;
    sq_set *S = owner;
    int lo = 0, hi = S->n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (S->jobs[mid].base <= tt) lo = mid;
        else hi = mid;
    }
    sq_job *J = &S->jobs[lo];
    deg_t T = tt - J->base;
    if (J->imax < 0 || T < m || T > 2 * J->t || m > 2 * J->s) return (chain_at){ NULL, NULL };
    return (chain_at){ &sq_step_kind, J };
}
static void sq_fail(void *owner, const char *msg) { latch_set(&((sq_set *)owner)->fail, "%s", msg); }
static int sq_failed(void *owner) { return latch_is_set(&((sq_set *)owner)->fail); }

int steenrod_compute(const resolution *res, steenrod_result *r, int nr, const chain_runner *runner, char *err,
                     size_t errlen)
{
    sq_set S = { .res = res, .n = nr, .jobs = calloc((size_t)nr + 1, sizeof *S.jobs) };
    if (!S.jobs) return -1;
    latch_init(&S.fail);
    int max_m = 0;
    deg_t next = 0;
    for (int c = 0; c < nr; c++) {
        sq_job *J = &S.jobs[c];
        int nonzero = 0;
        for (uint32_t j = 0; j < r[c].len; j++) nonzero |= r[c].coords[j];
        *J = (sq_job){ .set = &S, .r = &r[c], .s = r[c].s, .t = r[c].n + r[c].s, .imax = -1, .base = next };
        for (int i = 0; i <= J->s && i < 64; i++)
            if (r[c].known[J->s - i]) J->want[i] = 1, J->imax = i;
        if (!nonzero) J->imax = -1;     /* a zero class: zero squares */
        if (J->imax < 0) continue;
        next += 2 * J->t + 1;
        max_m = 2 * J->s > max_m ? 2 * J->s : max_m;
    }
    int rc = 0;
    if (next > 0) {
        chain_set set = { .owner = &S, .A = &res->A, .max_s = max_m, .max_t = next - 1, .at = sq_at,
                          .fail = sq_fail, .failed = sq_failed };
        rc = chain_run(runner, &set);
    }
    if (latch_is_set(&S.fail)) {
        snprintf(err, errlen, "%s", S.fail.msg);
        rc = atomic_load(&S.oom) ? -1 : -2;
    }
    for (int c = 0; c < nr; c++) {
        sq_job *J = &S.jobs[c];
        if (J->imax < 0) continue;
        for (int i = 0; rc == 0 && i <= J->imax; i++) {
            if (!J->want[i]) continue;
            const f2mat *P = delta_at(J, i, 2 * J->s - i, 2 * J->t);
            for (uint32_t g = 0; g < r[c].dim[J->s - i]; g++)
                r[c].val[J->s - i][g] = P->cols ? (uint8_t)f2mat_get(P, g, 0) : 0;
        }
        if (J->delta) {
            size_t ncell = (size_t)(J->imax + 1) * (2 * (size_t)J->s + 1) * (2 * (size_t)J->t + 1);
            for (size_t k = 0; k < ncell; k++) f2mat_clear(&J->delta[k]);
        }
        free(J->delta);
        tensor_clear(&J->X);
        ec_clear(&J->E);
    }
    free(S.jobs);
    latch_destroy(&S.fail);
    return rc;
}

int steenrod_class(const resolution *res, int n, int s, const uint8_t *coords, uint32_t len, steenrod_result *r,
                   char *err, size_t errlen)
{
    if (steenrod_result_init(r, res, n, s, coords, len) != 0) return -1;
    return steenrod_compute(res, r, 1, &chain_serial, err, errlen);
}

/* x_(n, s, i) + ... for the class's non-zero coordinates (sseq's basis string). */
static void print_class(FILE *f, const steenrod_result *r)
{
    int first = 1;
    for (uint32_t j = 0; j < r->len; j++)
        if (r->coords[j]) {
            fprintf(f, "%sx_(%d, %d, %u)", first ? "" : " + ", r->n, r->s, j);
            first = 0;
        }
}

int steenrod_write_sseq(FILE *f, const steenrod_result *r)
{
    fprintf(f, "Dimensions of Yoneda representative: 1");
    for (int k = 0; k <= r->s; k++) fprintf(f, " %llu", (unsigned long long)r->edim[k]);
    fputc('\n', f);
    for (int k = r->s; k >= 0; k--) {
        if (!r->known[k]) continue;
        fprintf(f, "Sq^%d ", k);
        print_class(f, r);
        fprintf(f, " = ");
        print_vector(f, r->val[k], r->dim[k]);
        if (fputc('\n', f) == EOF) return -1;
    }
    return 0;
}

int steenrod_write_csv_rows(FILE *f, const steenrod_result *r, const char *name)
{
    for (int k = 0; k <= r->s; k++)
        for (uint32_t j = 0; r->known[k] && j < r->dim[k]; j++)
            if (r->val[k][j] &&
                fprintf(f, "%s,%d,%d,%d,%d,%d,%u\n", name, r->n, r->s, k, 2 * r->n + r->s - k, r->s + k, j) < 0)
                return -1;
    return 0;
}
