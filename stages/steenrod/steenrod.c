/* steenrod.c — algebraic Steenrod operations on Ext_A(F2, F2) (see steenrod.h). */
#include "stages/steenrod/steenrod.h"
#include <stdlib.h>
#include <string.h>
#include "algebra/f2mat.h"
#include "stages/products/preimage.h"
#include "stages/yoneda/fmbasis.h"
#include "stages/yoneda/yoneda.h"

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
        if (f2mat_init(&q->phi[c], ng, fmb_dim(res, 0, h)) != 0) goto oom;
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
            if (!f2vec_get(z->img, b) || fmb_locate(G, T, b, &u, &g, &r) != 0) continue;
            if (u % 2 || !verschiebung(&A->elts[T - u][r], &half)) continue;
            size_t cu = res_cell(res, s - 1, u);
            if (!q->have[cu]) {   /* (u, s - 1) is outside the region: so is phi here */
                f2mat_clear(&Y);
                return 0;
            }
            const f2mat *P = &q->phi[cu];
            for (uint32_t p = 0; p < P->cols; p++)
                if (f2mat_get(P, g, p) && fmb_locate(G, u / 2, p, &w, &g2, &r2) == 0)
                    milnor_mul_into(A, &half, &A->elts[u / 2 - w][r2], y, freemod_offset(G, h, w, g2));
        }
    }
    if (fmb_dim(res, s, h) == 0) {
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
    uint64_t rows = fmb_dim(q->res, s, T / 2), cols = fmb_dim(q->res, s - 1, T / 2);
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
    const yoneda *E;
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

static int tensor_init(tensor *X, const yoneda *E)
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
                    uint32_t da = yoneda_dim(E, a, u), db = yoneda_dim(E, m - a, T - u);
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
    const yoneda *E = X->E;
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
        const f2mat *P = yoneda_act(E, B->a, B->u, R1.degree);
        const f2mat *Q = yoneda_act(E, x->m - B->a, v1, R2.degree);
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
    const yoneda *E = X->E;
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
    const yoneda *E = X->E;
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
                    const uint64_t *de = f2mat_row(yoneda_d(E, B->a, B->u), i);
                    for (uint32_t i2 = 0; i2 < L->da; i2++)
                        if (f2vec_get(de, i2)) f2vec_flip(row, L->off + (uint64_t)i2 * L->db + j);
                }
                if (Rb) {  /* e_i (x) d e_j */
                    const uint64_t *de = f2mat_row(yoneda_d(E, b, v), j);
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
    int e_ok = yoneda_in_range(res, n, s);
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
    yoneda E;
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
    if (yoneda_build(&J->E, res, J->r->adem, J->r->n, s, J->r->coords, J->r->len) != 0 || tensor_init(&J->X, &J->E) != 0)
        return sq_oom(J);
    for (int k = 0; k <= s; k++) J->r->edim[k] = yoneda_total(&J->E, k);
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
                    if (!f2vec_get(z->img, b) || fmb_locate(&res->F[k - 1], T, b, &u, &gi, &ri) != 0) continue;
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
                for (deg_t u = 0; u <= J->t; u++) b += 2 * f2mat_bytes_for(fmb_dim(J->set->res, k, u), fmb_dim(J->set->res, k, u));
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
        yoneda_clear(&J->E);
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
