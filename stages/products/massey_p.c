/* massey_p.c — Massey products <a, b, c> at an odd prime (massey.h, "Odd primes").
 *
 * The same construction as massey.c over F_p, for a resolution that is its own unit (S_3, S_5:
 * F_p over A_p or a profile's B), in one process. f_a, f_b and every f_c are lift_set maps
 * over F_p (stages/products/lift_p.c); f_b f_c is null-homotopic with a zero bottom (ε f_b f_c = 0 by
 * minimality), and the homotopy h : F_s -> F_{s+1-sb-sc} with d h + h d = f_b f_c is a lift
 * whose every y is f_b f_c(z) − h(d z) (lift_map.extra_p). The bracket's representative is
 * a ∘ h at level sa: the coefficient of z in it is Σ_j a_j <y_j unit in h(z)>, with no further
 * sign (a convention: other conventions differ by a sign, which the indeterminacy and every
 * statement "x lies in ±<a, b, c>" absorb). The indeterminacy a·Ext + Ext·c is read off f_a and
 * f_c, put in RREF over F_p, and the representative reduced by it (zero when the bracket
 * contains 0). */
#include "stages/products/massey.h"
#include <stdlib.h>
#include <string.h>

/* y += f_b(f_c(z)) for the generator z = k of the homotopy's source at (s0 + i, t + t0): f_c(z)
 * sits in f_c's cell at target (sb - 1 + i, T - tc), f_b maps it to F_{i-1} in degree t. */
static int homotopy_extra_p(void *vctx, int i, deg_t t, uint32_t k, uint8_t *y)
{
    massey_homotopy *h = vctx;
    const resolution *res = h->home->tgt;
    uint32_t p = res->prime;
    deg_t tcdeg;
    size_t cell;
    int got = massey_fc_cell(h, i, t, k, &tcdeg, &cell);
    if (got <= 0) return got;
    uint32_t below = (uint32_t)freemod_dim(&res->F[i - 1], t, t), all = (uint32_t)freemod_dim(&res->F[i - 1], t, t + 1);
    uint8_t *Y = calloc((size_t)all + 1, 1);
    if (!Y) {
        lift_fail(h->home, "out of memory in a Massey homotopy at (%d, %d)", i, (int)t);
        return -1;
    }
    const fpmat *v = &h->set2->maps[h->mc].val[cell].fp;
    int rc = lift_apply_p(h->set1, &h->set1->maps[h->mb], i - 1, tcdeg, fpmat_row(v, k), v->cols, Y);
    if (rc != 0) lift_fail(h->home, "%s", h->set1->fail.msg);
    for (uint32_t c = below; c < all && !rc; c++)
        if (Y[c]) {
            lift_fail(h->home, "internal error: f_b f_c(z) at (%d, %d) has a unit component", i, (int)t);
            rc = -1;
        }
    for (uint32_t c = 0; c < below && !rc; c++) y[c] = (uint8_t)((y[c] + Y[c]) % p);
    free(Y);
    return rc;
}


/* The rows x·e_j (x = map m of set, e_j the basis classes at (s, t)) into M's rows r0.., over
 * the generators at the product's bidegree (M's columns). */
static void product_rows(const lift_set *set, int m, int s, deg_t t, uint32_t r0, fpmat *M)
{
    for (uint32_t j = 0; j < res_ngens(set->tgt, s, t); j++)
        for (uint32_t z = 0; z < M->cols; z++) fpmat_set(M, r0 + j, z, lift_product_coef(set, m, s, t, j, z));
}

int massey_compute_p(const resolution *res, const product_class *a, const product_class *b, const char *lift_dir,
                     const chain_runner *runner, massey_table *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    uint32_t p = res->prime;
    int sa = a->s, sb = b->s, na = a->n, nb = b->n;
    deg_t ta = na + sa, tb = nb + sb;
    massey_work wk = { 0 };
    int rc = -1;
    fpmat M = { 0 }, aug = { 0 }, ker = { 0 };
    int32_t *piv = NULL;
    if (lift_set_init(&wk.set1, res, res, lift_dir) != 0) goto oom;
    wk.set1.any_preimage = 1;
    int ma = lift_add_class(&wk.set1, sa, ta, a->coords, a->len);
    int mb = lift_add_class(&wk.set1, sb, tb, b->coords, b->len);
    if (ma < 0 || mb < 0) {
        snprintf(err, errlen, "out of memory (or cannot create the lift folders) setting up the lifts of a and b");
        goto out;
    }
    out->lifts = 2;
    if ((rc = massey_run_set(&wk.set1, runner, err, errlen)) != 0) goto out;
    rc = -1;
    if ((rc = massey_ab_check(&wk.set1, ma, a, b, err, errlen)) != 0) {   /* a·b must vanish */
        if (rc < 0) goto oom;
        goto out;
    }
    /* the c's: kernel of multiplication by b (rows: b·e_j) at every bidegree, in RREF */
    for (int n = 0; n <= res->max_n; n++)
        for (int s = 0; s <= res->max_s; s++) {
            uint32_t nc = massey_done(res, s, n) ? res_ngens(res, s, n + s) : 0;
            if (!nc || !massey_done(res, s + sb, n + nb) || !massey_done(res, s + sa + sb - 1, n + na + nb + 1)) continue;
            uint32_t w = res_ngens(res, s + sb, n + nb + s + sb);
            if (fpmat_init(&M, p, nc, w) != 0) goto oom;
            product_rows(&wk.set1, mb, s, n + s, 0, &M);
            if (fpmat_augment_identity(&aug, &M) != 0 || !(piv = malloc(((size_t)aug.cols + 1) * sizeof *piv))) goto oom;
            int rank = fpmat_rref(&aug, piv);
            if (rank < 0 || fpmat_kernel_from_rref(&aug, w, (uint32_t)rank, piv, &ker) != 0) goto oom;
            for (uint32_t r = 0; r < ker.rows; r++)
                if (massey_pending_push(&wk.cs, &wk.ncs, n, s, nc, fpmat_row(&ker, r)) != 0) goto oom;
            fpmat_clear(&M), fpmat_clear(&aug), fpmat_clear(&ker);
            free(piv);
            piv = NULL;
        }
    /* every f_c through level sa + sb - 1, then every homotopy through level sa (no stage files) */
    if ((rc = massey_lift_cs(&wk, res, mb, b, sa, NULL, NULL, homotopy_extra_p, runner, &out->lifts, err, errlen)) != 0)
        goto out;
    rc = -1;
    out->b = calloc(wk.ncs + 1, sizeof *out->b);
    if (!out->b) goto oom;
    for (size_t k = 0; k < wk.ncs; k++) {
        massey_bracket *br = &out->b[out->n++];
        int sc = wk.cs[k].s;
        deg_t tc = wk.cs[k].n + sc, tt = ta + tb + tc;
        int ts = sa + sb + sc - 1;
        if (massey_bracket_start(br, res, &wk.cs[k], ts, tt) != 0) goto oom;
        for (uint32_t z = 0; z < br->dim; z++) {
            uint32_t v = 0;
            for (uint32_t j = 0; j < a->len; j++)
                v += a->coords[j] * lift_product_coef(&wk.set3, wk.mhs[k], sa, ta, j, z);
            br->rep[z] = (uint8_t)(v % p);
        }
        /* indeterminacy: a·Ext at (ts - sa, tt - ta) and Ext·c at (ts - sc, tt - tc), off f_a and f_c */
        uint32_t ny = res_ngens(res, ts - sa, tt - ta), nx = res_ngens(res, ts - sc, tt - tc);
        if (fpmat_init(&M, p, ny + nx, br->dim) != 0) goto oom;
        if (ny) product_rows(&wk.set1, ma, ts - sa, tt - ta, 0, &M);
        if (nx) product_rows(&wk.set2, wk.mcs[k], ts - sc, tt - tc, ny, &M);
        int rank = fpmat_rref(&M, NULL);
        if (rank < 0) goto oom;
        br->nindet = (uint32_t)rank;
        br->indet = calloc((size_t)rank * br->dim + 1, 1);
        if (!br->indet) goto oom;
        for (uint32_t r = 0; r < (uint32_t)rank; r++) {
            const uint8_t *row = fpmat_row(&M, r);
            uint32_t pc = 0;
            while (pc < br->dim && !row[pc]) pc++;
            uint32_t f = pc < br->dim ? br->rep[pc] : 0;     /* RREF: the pivot entry is 1 */
            memcpy(br->indet + (size_t)r * br->dim, row, br->dim);
            if (f) fpvec_addmul(br->rep, row, p - f, br->dim, p);
        }
        fpmat_clear(&M);
    }
    rc = 0;
    goto out;
oom:
    rc = massey_oom(err, errlen);
out:
    fpmat_clear(&M), fpmat_clear(&aug), fpmat_clear(&ker);
    free(piv);
    return massey_work_clear(&wk, rc, out);
}
