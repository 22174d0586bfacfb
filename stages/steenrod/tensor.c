/* tensor.c — E (x) E: its spaces, the diagonal action, the swap and the differential's
 * quasi-inverse (see tensor.h). */
#include "stages/steenrod/tensor.h"
#include <stdlib.h>
#include <string.h>

void tensor_clear(tensor *X)
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

int tensor_init(tensor *X, const yoneda *E)
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
void tensor_act(const tensor *X, int m, deg_t T, const uint64_t *v, const milnor_elt *R, uint64_t *out)
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
void tensor_swap(const tensor *X, int m, deg_t T, const uint64_t *v, uint64_t *out)
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
int tensor_qi(tensor *X, int m, deg_t T)
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

