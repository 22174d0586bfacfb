/* adem.c — sseq's admissible basis and the resolution of S_2 over it (see adem.h). */
#include "stages/yoneda/adem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    for (deg_t u = 0; u <= T && u <= F->max_t; u++) {
        uint32_t block = F->dim[T - u];
        const f2mat *tab = to_milnor ? &B->to_milnor[T - u] : &B->from_milnor[T - u];
        for (uint32_t g = 0; g < F->ngens[u]; g++) {
            uint64_t off = freemod_offset(F, T, u, g);
            for (uint32_t i = 0; i < block; i++) {
                if (!f2vec_get(v, off + i)) continue;
                const uint64_t *row = f2mat_row(tab, i);
                for (uint32_t c = 0; c < block; c++)
                    if (f2vec_get(row, c)) f2vec_flip(out, off + c);
            }
        }
    }
}

/* ---- the standard algorithm in those coordinates ---------------------------------------- */

/* The matrix of d_k on F_k(t) (generators of degree < t) over the admissible bases, into D
 * (initialised here); for k = 0 the augmentation to F2, zero on those rows. 0 or -1. */
static int d_matrix(const resolution *res, const adem_basis *B, int k, deg_t t, f2mat *D, uint64_t *e, uint64_t *mil,
                    uint64_t *img, size_t words)
{
    const freemod *F = &res->F[k];
    uint32_t rows = (uint32_t)freemod_dim(F, t, t), cols = k ? (uint32_t)freemod_dim(&res->F[k - 1], t, t) : t == 0;
    if (f2mat_init(D, rows, cols) != 0) return -1;
    for (uint32_t p = 0; p < rows && k; p++) {
        memset(e, 0, words * sizeof *e);
        memset(mil, 0, words * sizeof *mil);
        memset(img, 0, words * sizeof *img);
        f2vec_flip(e, p);
        adem_convert(B, F, t, e, mil, 1);
        for (uint32_t b = 0; b < rows; b++)
            if (f2vec_get(mil, b)) fmb_d(res, k, t, b, img);
        adem_convert(B, &res->F[k - 1], t, img, f2mat_row(D, p), 0);
    }
    return 0;
}

int adem_resolve(resolution *res, const adem_basis *B, char *err, size_t errlen)
{
    int rc = -1;
    deg_t top = res->stem + res->max_s;
    if (top > B->max) {
        snprintf(err, errlen, "the admissible basis reaches degree %d, the region %d", (int)B->max, (int)top);
        return -2;
    }
    size_t words = 1;
    f2mat D = { 0 }, aug = { 0 }, K = { 0 }, D1 = { 0 };
    int32_t *piv = NULL;
    uint64_t *e = NULL, *mil = NULL, *img = NULL;
    for (deg_t t = 0; t <= top; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) {
            if (t - s > res->stem) continue;
            /* vectors over F_k(t), k <= s, generators of degree <= t (those of degree t at s - 1 too) */
            size_t w = 1;
            for (int k = 0; k <= s; k++) {
                size_t wk = f2vec_words(freemod_dim(&res->F[k], t, t + 1)) + 1;
                w = wk > w ? wk : w;
            }
            if (w > words || !e) {
                free(e);
                words = w > words ? w : words;
                if (!(e = calloc(3 * words, sizeof *e))) goto out;
                mil = e + words;
                img = mil + words;
            }
            uint32_t n = 0, width = s ? (uint32_t)freemod_dim(&res->F[s - 1], t, t) : t == 0;
            fm_gen *gens = NULL;
            if (s == 0) {   /* F2 in degree 0: iota */
                if (t == 0) {
                    if (!(gens = calloc(1, sizeof *gens)) || !(gens[0].img = calloc(1, sizeof(uint64_t)))) goto oom;
                    gens[0].bits = 1;
                    gens[0].img[0] = 1;
                    n = 1;
                }
                if (res_publish(res, 0, t, n, gens, width) != 0) goto fail;
                continue;
            }
            /* the image's pivots at (s, t), and the kernel of d_{s-1} at (s - 1, t), in RREF */
            if (d_matrix(res, B, s, t, &D, e, mil, img, words) != 0) goto oom;
            int rank = f2mat_rref(&D, NULL);
            if (rank < 0) goto oom;
            uint8_t *is_pivot = calloc((size_t)width + 1, 1);
            if (!is_pivot) goto oom;
            for (int r = 0; r < rank; r++)
                is_pivot[f2vec_first_bit(f2mat_row(&D, (uint32_t)r), D.cols)] = 1;
            f2mat_clear(&D);
            if (s == 1) {   /* the kernel of the augmentation on F_0(t): all of it for t > 0 */
                if (f2mat_init(&K, t ? width : 0, width) != 0) goto oom_p;
                for (uint32_t r = 0; r < K.rows; r++) f2mat_set(&K, r, r, 1);
            } else {
                if (d_matrix(res, B, s - 1, t, &D1, e, mil, img, words) != 0) goto oom_p;
                int r1 = f2mat_rref_augmented(&D1, &aug, &piv);
                if (r1 < 0 || f2mat_kernel_from_rref(&aug, D1.cols, (uint32_t)r1, piv, &K) != 0) goto oom_p;
                f2mat_clear(&D1);
                f2mat_clear(&aug);
                free(piv);
                piv = NULL;
            }
            if (K.rows && K.cols != width) {
                snprintf(err, errlen, "the kernel at (%d, %d) has %u columns, F_%d %u", s - 1, (int)t, K.cols, s - 1,
                         width);
                free(is_pivot);
                rc = -2;
                goto out;
            }
            if (!(gens = calloc((size_t)K.rows + 1, sizeof *gens))) goto oom_p;
            for (uint32_t r = 0; r < K.rows; r++) {
                const uint64_t *row = f2mat_row(&K, r);
                int64_t pv = f2vec_first_bit(row, width);
                if (pv < 0 || is_pivot[pv]) continue;
                if (!(gens[n].img = calloc(f2vec_words(width) + 1, sizeof(uint64_t)))) {
                    for (uint32_t q = 0; q < n; q++) free(gens[q].img);
                    free(gens);
                    goto oom_p;
                }
                adem_convert(B, &res->F[s - 1], t, row, gens[n].img, 1);   /* stored in Milnor coordinates */
                gens[n].bits = width;
                n++;
            }
            free(is_pivot);
            f2mat_clear(&K);
            if (res_publish(res, s, t, n, gens, width) != 0) goto fail;
            continue;
        oom_p:
            free(is_pivot);
            goto oom;
        }
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory resolving S_2 over the admissible basis");
    rc = -1;
    goto out;
fail:
    snprintf(err, errlen, "%s", res->error);
    rc = -2;
out:
    f2mat_clear(&D);
    f2mat_clear(&D1);
    f2mat_clear(&aug);
    f2mat_clear(&K);
    free(piv);
    free(e);
    return rc;
}
