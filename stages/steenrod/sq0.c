/* sq0.c — Sq^0 on every class at once, through the Verschiebung (steenrod.h).
 *
 * Maths. V : A -> A, V(Sq(R)) = Sq(R/2) when every r_i is even and 0 otherwise, halves degrees
 * and is a map of Hopf algebras; Sq^0 is the map it induces on Ext. The identity of F2 is lifted
 * to a V-semilinear chain map phi : F_s -> F_s halving internal degrees (phi(a z) = V(a) phi(z),
 * phi(iota) = iota). On a generator z of degree T, phi(z) = 0 for T odd; for T even, phi(d z)
 * = sum V(Sq(S)) phi(g) over the terms Sq(S) g of d z, an element of F_{s-1} in degree T/2, and
 * phi(z) is a preimage of it under d (stages/products/preimage.h). <Sq^0 x, z> is then the
 * coefficient of x's generators' units in phi(z).
 *
 * Layout. q->phi[res_cell(s, T)]: an f2mat with a row per generator of F_s in degree T, over
 * F_s in degree T/2 (freemod_dim(F_s, T/2, T/2 + 1) columns: the generators of degree <= T/2),
 * 0 columns where not computed; q->have marks the cells done. One chain (sq0_step_kind) per
 * resolved (s, T), after (s-1, T-1) and (s, T-1). The writers walk the classes by stem, then s.
 */
#include "stages/steenrod/steenrod.h"
#include <stdlib.h>
#include <string.h>
#include "algebra/f2mat.h"
#include "stages/products/preimage.h"
#include "stages/yoneda/fmbasis.h"

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
    c->rows = CHAIN_NO_ROWS;
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
                                   sq0_deps, sq0_footprint, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };

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

int steenrod_print_vector(FILE *f, const uint8_t *v, uint32_t dim)
{
    fputc('[', f);
    for (uint32_t j = 0; j < dim; j++) fprintf(f, "%s%u", j ? ", " : "", v[j]);
    fputc(']', f);
    return 0;
}

static int sq0_sseq_row(FILE *f, int n, int s, uint32_t i, const uint8_t *v, uint32_t dim)
{
    fprintf(f, "Sq^0 x_(%d, %d, %u) = ", n, s, i);
    steenrod_print_vector(f, v, dim);
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
