/* cofiber.c — the subspaces row s of a cone's resolution hits (see cofiber.h). */
#include "stages/resolve/cofiber.h"
#include "stages/resolve/standard.h"
#include "stages/resolve/standard_p.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/resolution.h"
#include "stages/resolve/resolution_p.h"

/* A matrix at either prime, as this file uses it: an f2mat at p = 2 (entries packed 64 to a
 * word), an fpmat at odd p (a byte each). Rows are handled as bytes: a run of n entries takes
 * vec_bytes(p, n) bytes, and column c, a multiple of 64, starts vec_bytes(p, c) bytes into a
 * row. */
typedef struct pmat {
    uint32_t p;
    f2mat f;
    fpmat b;
} pmat;

static size_t vec_bytes(uint32_t p, uint32_t n) { return p == 2 ? f2vec_words(n) * 8 : n; }
static int pm_init(pmat *m, uint32_t p, uint32_t rows, uint32_t cols)
{
    *m = (pmat){ .p = p };
    return p == 2 ? f2mat_init(&m->f, rows, cols) : fpmat_init(&m->b, p, rows, cols);
}
static void pm_clear(pmat *m)
{
    f2mat_clear(&m->f);
    fpmat_clear(&m->b);
}
static uint32_t pm_rows(const pmat *m) { return m->p == 2 ? m->f.rows : m->b.rows; }
static uint32_t pm_cols(const pmat *m) { return m->p == 2 ? m->f.cols : m->b.cols; }
static uint8_t *pm_row(const pmat *m, uint32_t i)
{
    return m->p == 2 ? (uint8_t *)f2mat_row(&m->f, i) : fpmat_row(&m->b, i);
}
static void pm_set1(pmat *m, uint32_t i, uint32_t c)
{
    if (m->p == 2) f2mat_set(&m->f, i, c, 1);
    else fpmat_set(&m->b, i, c, 1);
}
static int pm_rref(pmat *m, int32_t *piv) { return m->p == 2 ? f2mat_rref(&m->f, piv) : fpmat_rref(&m->b, piv); }

/* Rank of m (reduced in place; -1 out of memory). */
static int pm_rank(pmat *m)
{
    int32_t *piv = malloc(sizeof *piv * ((size_t)pm_cols(m) + 1));
    int rank = piv ? pm_rref(m, piv) : -1;
    free(piv);
    return rank;
}

/* The algebra's basis in degree d (B's at odd p), and x_r·x0 for x_r its element r and x0 M's
 * bottom class (NULL: zero). */
static uint32_t basis_dim(const fd_module *m, deg_t d) { return fdm_prime(m) == 2 ? m->A.dim[d] : m->pB->dim[d]; }
static const void *act_on_bottom(const fd_module *m, deg_t d, uint32_t r)
{
    if (fdm_prime(m) == 2) return fdm_act(m, m->min_deg, 0, d, r);
    return fdm_act_p(m, m->min_deg, 0, d, r);
}

/* Is M spanned by the x·x0 (x in the algebra), x0 its bottom class? */
static int cyclic_on_bottom(const fd_module *m)
{
    uint32_t p = fdm_prime(m);
    for (deg_t d = 0; m->min_deg + d <= m->max_deg; d++) {
        uint32_t dim = fdm_dim(m, m->min_deg + d);
        if (!dim) continue;
        pmat v;
        if (pm_init(&v, p, basis_dim(m, d), dim) != 0) return -1;
        for (uint32_t r = 0; r < basis_dim(m, d); r++) {
            const void *a = act_on_bottom(m, d, r);
            if (a) memcpy(pm_row(&v, r), a, vec_bytes(p, dim));
        }
        int rank = pm_rank(&v);
        pm_clear(&v);
        if (rank < 0) return -1;
        if ((uint32_t)rank != dim) return 0;
    }
    return 1;
}

/* d(K)_τ at (s0, τ) of the resolution r of M, from D (the matrix of d_{s0} on the generators
 * below τ, as the step built it) and the generators of degree τ, into out (initialised here);
 * -2 when φ is not a cocycle. */
static int target_at(const resolution *r, const fd_module *m, const pmat *D, int s0, deg_t t0, deg_t tau,
                     uint32_t idx, pmat *out)
{
    uint32_t p = r->prime;
    const freemod *F = &r->F[s0];
    deg_t k = tau - t0;
    uint32_t mdim = fdm_dim(m, m->min_deg + k), seg = f2mat_segment_start(mdim);
    uint32_t W = (uint32_t)freemod_dim(&r->F[s0 - 1], tau, tau), nnew = F->ngens[tau];
    size_t at = vec_bytes(p, seg);                  /* the d part of a row of X */
    pmat X, Xd = { 0 };
    int rc = -1;
    int32_t *piv = NULL;
    if (pm_init(&X, p, pm_rows(D) + nnew, seg + W) != 0) return -1;
    for (uint32_t i = 0; i < pm_rows(D); i++) memcpy(pm_row(&X, i) + at, pm_row(D, i), vec_bytes(p, pm_cols(D)));
    if (k > 0) {                /* the block of g: φ(x·g) = x·x0 */
        uint64_t off = freemod_offset(F, tau, t0, idx);
        for (uint32_t j = 0; j < basis_dim(m, k); j++) {
            const void *a = act_on_bottom(m, k, j);
            if (a) memcpy(pm_row(&X, (uint32_t)off + j), a, vec_bytes(p, mdim));
        }
    }
    for (uint32_t j = 0; j < nnew; j++) {
        const fm_gen *g = &F->gens[tau][j];
        memcpy(pm_row(&X, pm_rows(D) + j) + at, g->img, vec_bytes(p, g->bits < W ? g->bits : W));
        if (k == 0 && j == idx) pm_set1(&X, pm_rows(D) + j, 0);      /* φ(g) = x0 */
    }
    if (pm_init(&Xd, p, pm_rows(&X), W) != 0) goto done;
    for (uint32_t i = 0; i < pm_rows(&X); i++) memcpy(pm_row(&Xd, i), pm_row(&X, i) + at, vec_bytes(p, W));
    int rank_d = pm_rank(&Xd);
    piv = malloc(sizeof *piv * ((size_t)seg + W + 1));
    int rank = piv && rank_d >= 0 ? pm_rref(&X, piv) : -1;
    if (rank < 0) goto done;
    if (rank != rank_d) { rc = -2; goto done; }
    uint32_t n = 0;
    for (uint32_t c = seg; c < seg + W; c++) n += piv[c] >= 0;
    if (pm_init(out, p, n, W) != 0) goto done;
    n = 0;
    for (uint32_t c = seg; c < seg + W; c++)    /* pivot rows in the d part, in RREF order */
        if (piv[c] >= 0) memcpy(pm_row(out, n++), pm_row(&X, (uint32_t)piv[c]) + at, vec_bytes(p, W));
    rc = 0;
done:
    free(piv);
    pm_clear(&Xd);
    pm_clear(&X);
    return rc;
}

int cofiber_prepare(fd_module *m, char *err, size_t es)
{
    if (!m->has_cofiber || m->cofiber_rows || m->cofiber_prows) return 0;
    int odd = fdm_prime(m) != 2;
    int cyc = cyclic_on_bottom(m);
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
    int rc = (rows || prows) && res_init_module(&r, REGION_RECT, 0, s0, top, "", 0, ALG_STANDARD, m) == 0 &&
             res_set_module(&r, m, NULL) == 0 ? 0 : -1;
    char whybuf[600] = "";
    for (deg_t t = 0; rc == 0 && t <= top; t++)
        for (int s = 0; rc == 0 && s <= s0 && s <= t; s++) {
            step_ctx c = { .ch = { .s = s, .t = t }, .res = &r };
            pmat D = { 0 }, T = { 0 };
            int want = s == s0 && t >= t0;
            rc = odd ? res_step_plan_p(&c) : res_step_plan(&c);
            if (rc == 0 && odd) res_step_multiply_p(&c);   /* the rows the plan left as jobs */
            else if (rc == 0) rb_multiply(&c.build, &r.A, 0, c.build.nrows);
            D.p = fdm_prime(m);
            if (rc == 0 && want && (odd ? fpmat_copy(&D.b, &c.Dp) : f2mat_copy(&D.f, &c.build.D)) != 0) rc = -1;
            if (rc == 0) rc = odd ? res_step_reduce_p(&c) : res_step_reduce(&c);
            if (rc == 0) rc = res_step_finish(&c);
            if (rc == 0 && want && t == t0 && m->cofiber_idx >= res_ngens(&r, s0, t0)) {
                snprintf(whybuf, sizeof whybuf, "key 'cofiber': Ext^{%d,%d} has dimension %u, so there is no "
                         "class idx = %u", s0, m->cofiber_t, res_ngens(&r, s0, t0), m->cofiber_idx);
                rc = -1;
            }
            if (rc == 0 && want) {
                rc = target_at(&r, m, &D, s0, t0, t, m->cofiber_idx, &T);
                if (rc == 0 && odd) prows[t - t0] = T.b;
                else if (rc == 0) rows[t - t0] = T.f;
                if (rc == -2) {
                    snprintf(whybuf, sizeof whybuf, "key 'cofiber': the class, sent to the module's bottom class, is "
                             "not a cocycle (it fails in degree %d): it is no self-map of M", t + shift);
                }
            }
            pm_clear(&D);
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
