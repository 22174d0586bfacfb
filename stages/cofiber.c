/* cofiber.c — the subspaces row s of a cone's resolution hits (see cofiber.h). */
#include "stages/cofiber.h"
#include "stages/standard.h"
#include "stages/standard_p.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolution.h"
#include "stages/resolution_p.h"

/* Is M spanned by the Sq(R)·x0, x0 its bottom class? */
static int cyclic_on_bottom(const fd_module *m)
{
    for (deg_t d = 0; m->min_deg + d <= m->max_deg; d++) {
        uint32_t dim = fdm_dim(m, m->min_deg + d);
        if (!dim) continue;
        f2mat v;
        if (f2mat_init(&v, m->A.dim[d], dim) != 0) return -1;
        for (uint32_t r = 0; r < m->A.dim[d]; r++) {
            const uint64_t *a = fdm_act(m, m->min_deg, 0, d, r);
            if (a) memcpy(f2mat_row(&v, r), a, f2vec_words(dim) * 8);
        }
        int32_t *piv = malloc(sizeof *piv * (dim + 1));
        int rank = piv ? f2mat_rref(&v, piv) : -1;
        free(piv);
        f2mat_clear(&v);
        if (rank < 0) return -1;
        if ((uint32_t)rank != dim) return 0;
    }
    return 1;
}

/* Rank of m's rows restricted to the words [w0, m->stride) (a copy is reduced). */
static int rank_from_word(const f2mat *m, uint32_t w0, uint32_t bits)
{
    f2mat c;
    if (f2mat_init(&c, m->rows, bits) != 0) return -1;
    for (uint32_t i = 0; i < m->rows; i++) memcpy(f2mat_row(&c, i), f2mat_row(m, i) + w0, f2vec_words(bits) * 8);
    int32_t *piv = malloc(sizeof *piv * ((size_t)bits + 1));
    int rank = piv ? f2mat_rref(&c, piv) : -1;
    free(piv);
    f2mat_clear(&c);
    return rank;
}

/* d(K)_τ at (s0, τ) of the resolution r of M, from D (the matrix of d_{s0} on the generators
 * below τ, as the step built it) and the generators of degree τ; -2 when φ is not a cocycle. */
static int target_at(const resolution *r, const fd_module *m, const f2mat *D, int s0, deg_t t0, deg_t tau,
                     uint32_t idx, f2mat *out)
{
    const freemod *F = &r->F[s0];
    deg_t k = tau - t0;
    uint32_t mdim = fdm_dim(m, m->min_deg + k), seg = f2mat_segment_start(mdim);
    uint32_t W = (uint32_t)freemod_dim(&r->F[s0 - 1], tau, tau), nnew = F->ngens[tau];
    f2mat X;
    int rc = -1;
    int32_t *piv = NULL;
    if (f2mat_init(&X, D->rows + nnew, seg + W) != 0) return -1;
    size_t dw = seg / 64, mw = f2vec_words(mdim);
    for (uint32_t i = 0; i < D->rows; i++) memcpy(f2mat_row(&X, i) + dw, f2mat_row(D, i), f2vec_words(D->cols) * 8);
    if (k > 0) {                /* the block of g: φ(Sq(R)·g) = Sq(R)·x0 */
        uint64_t off = freemod_offset(F, tau, t0, idx);
        for (uint32_t j = 0; j < r->A.dim[k]; j++) {
            const uint64_t *a = fdm_act(m, m->min_deg, 0, k, j);
            if (a) f2vec_xor(f2mat_row(&X, (uint32_t)off + j), a, mw);
        }
    }
    for (uint32_t j = 0; j < nnew; j++) {
        memcpy(f2mat_row(&X, D->rows + j) + dw, F->gens[tau][j].img, f2vec_words(W) * 8);
        if (k == 0 && j == idx) f2mat_flip(&X, D->rows + j, 0);      /* φ(g) = x0 */
    }
    int rank_d = rank_from_word(&X, (uint32_t)dw, W);
    piv = malloc(sizeof *piv * ((size_t)X.cols + 1));
    int rank = piv && rank_d >= 0 ? f2mat_rref(&X, piv) : -1;
    if (rank < 0) goto done;
    if (rank != rank_d) { rc = -2; goto done; }
    uint32_t n = 0;
    for (int i = 0; i < rank; i++) n += f2vec_first_bit(f2mat_row(&X, (uint32_t)i), X.cols) >= (int64_t)seg;
    if (f2mat_init(out, n, W) != 0) goto done;
    n = 0;
    for (int i = 0; i < rank; i++)
        if (f2vec_first_bit(f2mat_row(&X, (uint32_t)i), X.cols) >= (int64_t)seg)
            memcpy(f2mat_row(out, n++), f2mat_row(&X, (uint32_t)i) + dw, f2vec_words(W) * 8);
    rc = 0;
done:
    free(piv);
    f2mat_clear(&X);
    return rc;
}

/* ---------------------------------------------------------------- odd p: the same over F_p */

/* Rank of a copy of m (-1 out of memory). */
static int rank_p(const fpmat *m)
{
    fpmat c;
    if (fpmat_copy(&c, m) != 0) return -1;
    int32_t *piv = malloc(sizeof *piv * ((size_t)c.cols + 1));
    int rank = piv ? fpmat_rref(&c, piv) : -1;
    free(piv);
    fpmat_clear(&c);
    return rank;
}

/* Is M spanned by the X·x0 (X in B), x0 its bottom class? */
static int cyclic_on_bottom_p(const fd_module *m)
{
    for (deg_t d = 0; m->min_deg + d <= m->max_deg; d++) {
        uint32_t dim = fdm_dim(m, m->min_deg + d);
        if (!dim) continue;
        fpmat v;
        if (fpmat_init(&v, m->p, m->pB->dim[d], dim) != 0) return -1;
        for (uint32_t r = 0; r < m->pB->dim[d]; r++) memcpy(fpmat_row(&v, r), fdm_act_p(m, m->min_deg, 0, d, r), dim);
        int rank = rank_p(&v);
        fpmat_clear(&v);
        if (rank < 0) return -1;
        if ((uint32_t)rank != dim) return 0;
    }
    return 1;
}

/* target_at over F_p: D is the step's matrix (fpmat), φ(X·g) = X·x0 by the module's action. */
static int target_at_p(const resolution *r, const fd_module *m, const fpmat *D, int s0, deg_t t0, deg_t tau,
                       uint32_t idx, fpmat *out)
{
    const freemod *F = &r->F[s0];
    deg_t k = tau - t0;
    uint32_t mdim = fdm_dim(m, m->min_deg + k), seg = fpmat_segment_start(mdim);
    uint32_t W = (uint32_t)freemod_dim(&r->F[s0 - 1], tau, tau), nnew = F->ngens[tau];
    fpmat X, Xd = { 0 };
    int rc = -1;
    int32_t *piv = NULL;
    if (fpmat_init(&X, m->p, D->rows + nnew, seg + W) != 0) return -1;
    for (uint32_t i = 0; i < D->rows; i++) memcpy(fpmat_row(&X, i) + seg, fpmat_row(D, i), D->cols);
    if (k > 0) {                /* the block of g: φ(X·g) = X·x0 */
        uint64_t off = freemod_offset(F, tau, t0, idx);
        for (uint32_t j = 0; j < r->odd->B.dim[k]; j++) {
            const uint8_t *a = fdm_act_p(m, m->min_deg, 0, k, j);
            if (a) memcpy(fpmat_row(&X, (uint32_t)off + j), a, mdim);
        }
    }
    for (uint32_t j = 0; j < nnew; j++) {
        const fm_gen *g = &F->gens[tau][j];
        memcpy(fpmat_row(&X, D->rows + j) + seg, g->img, g->bits < W ? g->bits : W);
        if (k == 0 && j == idx) fpmat_row(&X, D->rows + j)[0] = 1;      /* φ(g) = x0 */
    }
    if (fpmat_init(&Xd, m->p, X.rows, W) != 0) goto done;
    for (uint32_t i = 0; i < X.rows; i++) memcpy(fpmat_row(&Xd, i), fpmat_row(&X, i) + seg, W);
    int rank_d = rank_p(&Xd);
    piv = malloc(sizeof *piv * ((size_t)X.cols + 1));
    int rank = piv && rank_d >= 0 ? fpmat_rref(&X, piv) : -1;
    if (rank < 0) goto done;
    if (rank != rank_d) { rc = -2; goto done; }
    uint32_t n = 0;
    for (uint32_t c = seg; c < X.cols; c++) n += piv[c] >= 0;
    if (fpmat_init(out, m->p, n, W) != 0) goto done;
    n = 0;
    for (uint32_t c = seg; c < X.cols; c++)    /* pivot rows in the d part, in RREF order */
        if (piv[c] >= 0) memcpy(fpmat_row(out, n++), fpmat_row(&X, (uint32_t)piv[c]) + seg, W);
    rc = 0;
done:
    free(piv);
    fpmat_clear(&Xd);
    fpmat_clear(&X);
    return rc;
}

int cofiber_prepare(fd_module *m, char *err, size_t es)
{
    if (!m->has_cofiber || m->cofiber_rows || m->cofiber_prows) return 0;
    int odd = fdm_prime(m) != 2;
    int cyc = odd ? cyclic_on_bottom_p(m) : cyclic_on_bottom(m);
    if (cyc <= 0) {
        snprintf(err, es, cyc < 0 ? "out of memory" : "key 'cofiber': the module is not generated by its bottom "
                 "class, through which the class is read as a self-map of M");
        return -1;
    }
    m->has_cofiber = 0;                 /* M itself, through rows <= s0 and degrees <= t0 + top */
    deg_t shift = res_module_shift(m);
    int s0 = m->cofiber_s;
    deg_t t0 = m->cofiber_t - shift, top = t0 + (m->max_deg - m->min_deg);
    uint32_t nrows = (uint32_t)(top - t0 + 1);
    f2mat *rows = odd ? NULL : calloc(nrows, sizeof *rows);
    fpmat *prows = odd ? calloc(nrows, sizeof *prows) : NULL;
    resolution r;
    memset(&r, 0, sizeof r);
    int rc = (rows || prows) && res_init_prime(&r, REGION_RECT, 0, s0, top, "", 0, ALG_STANDARD, fdm_prime(m)) == 0 &&
             res_set_module(&r, m, NULL) == 0 ? 0 : -1;
    char whybuf[600] = "";
    for (deg_t t = 0; rc == 0 && t <= top; t++)
        for (int s = 0; rc == 0 && s <= s0 && s <= t; s++) {
            step_ctx c = { .ch = { .s = s, .t = t }, .res = &r };
            f2mat D = { 0 };
            fpmat Dp = { 0 };
            int want = s == s0 && t >= t0;
            rc = odd ? res_step_plan_p(&c) : res_step_plan(&c);
            if (rc == 0 && !odd) {
                rb_multiply(&c.build, &r.A, 0, c.build.nrows);
                if (want && f2mat_copy(&D, &c.build.D) != 0) rc = -1;
            }
            if (rc == 0 && odd) res_step_multiply_p(&c);   /* the rows the plan left as jobs */
            if (rc == 0 && odd && want && fpmat_copy(&Dp, &c.Dp) != 0) rc = -1;
            if (rc == 0) rc = odd ? res_step_reduce_p(&c) : res_step_reduce(&c);
            if (rc == 0) rc = res_step_finish(&c);
            if (rc == 0 && want && t == t0 && m->cofiber_idx >= res_ngens(&r, s0, t0)) {
                snprintf(whybuf, sizeof whybuf, "key 'cofiber': Ext^{%d,%d} has dimension %u, so there is no "
                         "class idx = %u", s0, m->cofiber_t, res_ngens(&r, s0, t0), m->cofiber_idx);
                rc = -1;
            }
            if (rc == 0 && want) {
                rc = odd ? target_at_p(&r, m, &Dp, s0, t0, t, m->cofiber_idx, &prows[t - t0])
                         : target_at(&r, m, &D, s0, t0, t, m->cofiber_idx, &rows[t - t0]);
                if (rc == -2) {
                    snprintf(whybuf, sizeof whybuf, "key 'cofiber': the class, sent to the module's bottom class, is "
                             "not a cocycle (it fails in degree %d): it is no self-map of M", t + shift);
                }
            }
            f2mat_clear(&D);
            fpmat_clear(&Dp);
            if (odd) {
                res_step_free_p(&c);
                free(c.is_image_pivot);
            } else
                res_step_free(&c);
        }
    if (rc != 0 && !whybuf[0]) snprintf(whybuf, sizeof whybuf, "%.500s", r.error[0] ? r.error : "out of memory");
    res_clear(&r);
    m->has_cofiber = 1;
    if (rc != 0) {
        snprintf(err, es, "%s", whybuf);
        for (uint32_t k = 0; rows && k < nrows; k++) f2mat_clear(&rows[k]);
        for (uint32_t k = 0; prows && k < nrows; k++) fpmat_clear(&prows[k]);
        free(rows);
        free(prows);
        return -1;
    }
    m->cofiber_rows = rows;
    m->cofiber_prows = prows;
    m->cofiber_nrows = nrows;
    return 0;
}
