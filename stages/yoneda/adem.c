/* adem.c — sseq's admissible basis and the resolution of S_2 over it (see adem.h). */
#include "stages/yoneda/adem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/standard.h"
#include "stages/yoneda/fmbasis.h"

/* ---- the basis in sseq's order ---------------------------------------------------------- */

/* The monomials of degree n in sseq's order into seq[n] (seq[0..n-1] made): Sq^n, then for the
 * last exponent l = n/3 .. 1 the monomials of degree n - l ending in 2l or more (they come
 * first in seq[n - l], whose last exponents do not increase), each extended by Sq^l. */
static int seq_degree(adm_mono **seq, uint32_t *len, deg_t n)
{
    uint32_t cap = 1;
    for (deg_t l = n / 3; l >= 1; l--) cap += len[n - l];
    if (!(seq[n] = calloc(cap, sizeof **seq))) return -1;
    adm_mono *out = seq[n];
    uint32_t k = 0;
    out[k++] = (adm_mono){ .len = n ? 1 : 0, .s = { (uint32_t)n }, .degree = n };
    for (deg_t l = n / 3; l >= 1; l--)
        for (uint32_t i = 0; i < len[n - l]; i++) {
            adm_mono m = seq[n - l][i];
            if (m.len == 0 || m.len >= ADM_MAX_LEN || m.s[m.len - 1] < 2 * (uint32_t)l) break;
            m.s[m.len++] = (uint32_t)l;
            m.degree = n;
            out[k++] = m;
        }
    len[n] = k;
    return 0;
}

void adem_basis_clear(adem_basis *B)
{
    for (deg_t d = 0; d <= B->max; d++) {
        if (B->to_milnor) f2mat_clear(&B->to_milnor[d]);
        if (B->from_milnor) f2mat_clear(&B->from_milnor[d]);
        if (B->rating) free(B->rating[d]);
    }
    free(B->to_milnor);
    free(B->from_milnor);
    free(B->rating);
    memset(B, 0, sizeof *B);
}

int adem_basis_init(adem_basis *B, deg_t max)
{
    memset(B, 0, sizeof *B);
    B->max = max;
    adm_alg A;
    adm_mono **seq = calloc((size_t)max + 1, sizeof *seq);
    uint32_t *len = calloc((size_t)max + 1, sizeof *len), *pos = NULL;
    uint8_t *m = NULL, *a = NULL;
    int rc = -1;
    B->to_milnor = calloc((size_t)max + 1, sizeof *B->to_milnor);
    B->from_milnor = calloc((size_t)max + 1, sizeof *B->from_milnor);
    B->rating = calloc((size_t)max + 1, sizeof *B->rating);
    if (adm_alg_init(&A, 2, max) != 0) {
        free(seq);
        free(len);
        adem_basis_clear(B);
        return -1;
    }
    if (!seq || !len || !B->to_milnor || !B->from_milnor || !B->rating) goto out;
    for (deg_t d = 0; d <= max; d++) {
        const adm_degree *D = adm_degree_get(&A, d);
        if (!D || seq_degree(seq, len, d) != 0 || len[d] != D->dim) goto out;
        uint32_t n = D->dim;
        free(pos);
        free(m);
        free(a);
        pos = malloc(((size_t)n + 1) * sizeof *pos);   /* extflow's index -> sseq's */
        m = calloc((size_t)n + 1, 1);
        a = calloc((size_t)n + 1, 1);
        if (!pos || !m || !a || !(B->rating[d] = calloc((size_t)n + 1, sizeof **B->rating)) ||
            f2mat_init(&B->to_milnor[d], n, n) != 0 || f2mat_init(&B->from_milnor[d], n, n) != 0)
            goto out;
        for (uint32_t i = 0; i < n; i++) {
            const adm_mono *x = &seq[d][i];
            uint32_t j = adm_mono_index(D, x);
            if (j >= n) goto out;
            pos[j] = i;
            for (uint32_t c = 0; c < n; c++)
                if (D->m[(size_t)j * n + c] & 1) f2mat_flip(&B->to_milnor[d], i, c);
            for (uint32_t q = 0; q < x->len; q++) B->rating[d][i] += (uint32_t)__builtin_popcount(x->s[q]);
        }
        for (uint32_t c = 0; c < n; c++) {
            memset(m, 0, n);
            m[c] = 1;
            if (adm_from_milnor(&A, d, m, a) != 0) goto out;
            for (uint32_t j = 0; j < n; j++)
                if (a[j]) f2mat_flip(&B->from_milnor[d], c, pos[j]);
        }
    }
    rc = 0;
out:
    for (deg_t d = 0; seq && d <= max; d++) free(seq[d]);
    free(seq);
    free(len);
    free(pos);
    free(m);
    free(a);
    adm_alg_clear(&A);
    if (rc) adem_basis_clear(B);
    return rc;
}

void adem_convert(const adem_basis *B, const freemod *F, deg_t T, const uint64_t *v, uint64_t *out, int to_milnor)
{
    uint64_t off = 0;   /* generator (u, g)'s block, as freemod_offset counts it */
    for (deg_t u = freemod_first(F, T); u <= T && u <= F->max_t; u++) {
        if (!F->ngens[u]) continue;     /* (A's dims past the tables' degree are not read) */
        uint32_t block = F->dim[T - u];
        const f2mat *tab = to_milnor ? &B->to_milnor[T - u] : &B->from_milnor[T - u];
        for (uint32_t g = 0; g < F->ngens[u]; g++, off += block) {
            for (uint32_t i = 0; i < block; i++) {
                if (!f2vec_get(v, off + i)) continue;
                const uint64_t *row = f2mat_row(tab, i);
                for (uint32_t c = 0; c < block; c++)
                    if (f2vec_get(row, c)) f2vec_flip(out, off + c);
            }
        }
    }
}

void adem_expand(const adem_basis *B, const freemod *F, deg_t T, uint64_t p, uint64_t *out)
{
    deg_t u;
    uint32_t g, r;
    if (fmb_locate(F, T, p, &u, &g, &r) != 0) return;
    const uint64_t *row = f2mat_row(&B->to_milnor[T - u], r);
    uint64_t off = freemod_offset(F, T, u, g);
    for (uint32_t c = 0; c < F->dim[T - u]; c++)
        if (f2vec_get(row, c)) f2vec_flip(out, off + c);
}

/* ---- the standard step, its matrix in those coordinates ----------------------------------- */

/* D, the standard step's matrix of d_s at (s, t), s >= 1 (rows over the Milnor basis of F_s(t),
 * columns over that of F_{s-1}(t)'s generators of degree <= t - 2, a prefix of whole blocks),
 * rewritten over the admissible bases: row p is the sum of D's rows at p's Milnor expansion, its
 * columns changed block by block. mil, img: scratch for vectors over F_s(t) and F_{s-1}(t)
 * (generators of degree <= t). 0 or -1. */
static int to_admissible(const resolution *res, const adem_basis *B, int s, deg_t t, f2mat *D, uint64_t *mil,
                         uint64_t *img)
{
    f2mat A;
    if (f2mat_init(&A, D->rows, D->cols) != 0) return -1;
    size_t rw = f2vec_words(D->rows), cw = f2vec_words((uint32_t)freemod_dim(&res->F[s - 1], t, t + 1));
    for (uint32_t p = 0; p < D->rows; p++) {
        memset(mil, 0, rw * sizeof *mil);
        memset(img, 0, cw * sizeof *img);
        adem_expand(B, &res->F[s], t, p, mil);
        for (size_t w = 0; w < f2vec_words(D->rows); w++)
            for (uint64_t bits = mil[w]; bits; bits &= bits - 1)
                f2vec_xor(img, f2mat_row(D, (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits))), f2vec_words(D->cols));
        adem_convert(B, &res->F[s - 1], t, img, f2mat_row(&A, p), 0);   /* within D's blocks */
    }
    f2mat_clear(D);
    *D = A;
    return 0;
}

/* The images the finish just published at (s, t), s >= 1 (rows of the kernel at (s - 1, t):
 * admissible coordinates), into Milnor coordinates, in place. */
static void images_to_milnor(resolution *res, const adem_basis *B, int s, deg_t t, uint64_t *mil, uint64_t *img,
                             size_t words)
{
    const freemod *F = &res->F[s];
    for (uint32_t i = 0; i < F->ngens[t]; i++) {
        fm_gen *g = &F->gens[t][i];
        size_t w = f2vec_words(g->bits);
        memset(mil, 0, words * sizeof *mil);
        memset(img, 0, words * sizeof *img);
        memcpy(mil, g->img, w * sizeof *mil);
        adem_convert(B, &res->F[s - 1], t, mil, img, 1);
        memcpy(g->img, img, w * sizeof *img);
    }
}

int adem_resolve(resolution *res, const adem_basis *B, char *err, size_t errlen)
{
    deg_t top = res->stem + res->max_s;
    if (top > B->max) {
        snprintf(err, errlen, "the admissible basis reaches degree %d, the region %d", (int)B->max, (int)top);
        return -2;
    }
    int S = res->max_s;
    size_t words = 0;
    uint64_t *mil = NULL, *img = NULL;
    for (deg_t t = 0; t <= top; t++) {
        size_t w = 1;   /* vectors over F_k(t), generators of degree <= t, for the steps at (k + 1, t) */
        for (int k = t - res->stem - 2 > 0 ? t - res->stem - 2 : 0; k <= S; k++)
            if (f2vec_words(freemod_dim(&res->F[k], t, t + 1)) + 1 > w) w = f2vec_words(freemod_dim(&res->F[k], t, t + 1)) + 1;
        if (w > words) {
            free(mil);
            words = w;
            if (!(mil = calloc(2 * words, sizeof *mil))) goto oom;
            img = mil + words;
        }
        for (int s = 0; s <= S && s <= t; s++) {
            int in = t - s <= res->stem, next = s < S && t - s - 1 <= res->stem;   /* (s + 1, t) reads its kernel */
            if (!in && !next) continue;
            /* the standard step (standard.h), D over the admissible bases: its image pivots, its
             * kernel (in RREF, in the slot for (s + 1, t)) and so its new generators, the rows of
             * the kernel at (s - 1, t) whose pivot is no image pivot, are sseq's @adem ones
             * (row 0 maps onto F2 and needs no change) */
            step_ctx c = { .ch = { .s = s, .t = t }, .res = res, .kernel_only = !in };
            int rc = res_step_plan(&c);
            if (rc == 0) rb_multiply(&c.build, &res->A, 0, c.build.nrows);
            if (rc == 0 && s > 0 && to_admissible(res, B, s, t, &c.build.D, mil, img) != 0) rc = -1;
            if (rc == 0) rc = res_step_reduce(&c);
            if (rc == 0 && in) rc = res_step_finish(&c);
            if (rc == 0 && in && s > 0) images_to_milnor(res, B, s, t, mil, img, words);   /* stored in Milnor's */
            res_step_free(&c);
            if (rc != 0) goto oom;
        }
    }
    free(mil);
    return 0;
oom:
    snprintf(err, errlen, "out of memory resolving S_2 over the admissible basis");
    free(mil);
    return -1;
}

int adem_resolution_init(adem_resolution *a, int stem, int max_s, const resolution *ref, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    int rc;
    if (adem_basis_init(&a->B, stem + max_s + 1) != 0) goto oom;
    a->have_res = 1;
    if (res_init(&a->res, REGION_STEM, stem, max_s, 0, "", 0, ALG_STANDARD) != 0) goto oom;
    if ((rc = adem_resolve(&a->res, &a->B, err, errlen)) != 0) return rc;
    for (int s = 0; s <= max_s; s++)
        for (int n = 0; n <= stem; n++)
            if (res_is_done(ref, s, n + s) && res_ngens(&a->res, s, n + s) != res_ngens(ref, s, n + s)) {
                snprintf(err, errlen, "over the admissible basis Ext at (n=%d, s=%d) has dimension %u, not %u", n, s,
                         res_ngens(&a->res, s, n + s), res_ngens(ref, s, n + s));
                return -2;
            }
    return 0;
oom:
    snprintf(err, errlen, "out of memory resolving S_2 over the admissible basis");
    return -1;
}

void adem_resolution_clear(adem_resolution *a)
{
    if (a->have_res) res_clear(&a->res);
    adem_basis_clear(&a->B);
    memset(a, 0, sizeof *a);
}
