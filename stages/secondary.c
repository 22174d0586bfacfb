/* secondary.c — Adams d2 by composites, intermediates and a homotopy (see secondary.h). */
#include "stages/secondary.h"
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void sec_fail(secondary *sec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sec_fail(secondary *sec, const char *fmt, ...)
{
    pthread_mutex_lock(&sec->lock);
    if (!sec->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sec->error, sizeof sec->error, fmt, ap);
        va_end(ap);
        sec->failed = 1;
    }
    pthread_mutex_unlock(&sec->lock);
}

int secondary_failed(secondary *sec)
{
    pthread_mutex_lock(&sec->lock);
    int f = sec->failed;
    pthread_mutex_unlock(&sec->lock);
    return f || lift_failed(&sec->set);
}

static int d2_extra(void *ctx, int i, deg_t t, uint32_t k, uint64_t *y);

int secondary_init(secondary *sec, const resolution *res, const char *outdir, char *error, size_t errlen)
{
    memset(sec, 0, sizeof *sec);
    sec->res = res;
    pthread_mutex_init(&sec->lock, NULL);
    lift_set_init(&sec->set, res, res, outdir ? outdir : "");
    if (res->A.profile.len || res->A.profile.truncated) {
        snprintf(error, errlen, "d2 needs a resolution over the whole Steenrod algebra; this one is over a profile's "
                 "sub-algebra");
        return -2;
    }
    const fd_module *m = res->module;
    if (m && m->has_cofiber) {      /* a cone of complexes: its secondary structure is not M's */
        snprintf(error, errlen, "d2 is for modules; this resolution is of the cofiber of an Ext class (key "
                 "'cofiber'), a complex");
        return -2;
    }
    if (m && !m->fp && !m->rp_open) {   /* h_2 = 0 must be a valid choice (finite modules) */
        int ok2 = 1, ok3 = 1;
        for (deg_t u = m->min_deg; u < m->max_deg; u++) {
            if (!fdm_dim(m, u)) continue;
            ok2 = ok2 && !res_ngens(res, 2, u - res->shift + 1);
            ok3 = ok3 && !res_ngens(res, 3, u - res->shift + 1);
        }
        if (!ok2 && !ok3) {
            snprintf(error, errlen, "%s does not allow the first homotopy to be zero (Ext^{2,t+1} and Ext^{3,t+1} both "
                     "meet its degrees t), which our d2 assumes", res->module_name);
            return -2;
        }
    }
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    sec->comp = calloc(cells, sizeof *sec->comp);
    if (!sec->comp || pair_ay_cache_init(&sec->cache) != 0)
        goto oom;
    uint8_t none = 0;
    if (lift_add_map(&sec->set, 2, 1, &none, 0, "d2", d2_extra, sec) != 0) goto oom;
    return 0;
oom:
    snprintf(error, errlen, "out of memory setting up d2");
    return -1;
}

void secondary_clear(secondary *sec)
{
    const resolution *res = sec->res;
    if (sec->comp) {
        for (int s = 2; s <= res->max_s; s++)
            for (deg_t T = s; T <= res->max_t && T - s <= res->max_n; T++) {
                sec_composite *c = sec->comp[res_cell(res, s, T)];
                if (!c) continue;
                for (uint32_t g = 0; g < res_ngens(res, s, T); g++) {
                    for (uint32_t k = 0; k < c[g].n; k++) pair_elt_clear(&c[g].terms[k].e);
                    free(c[g].terms);
                }
                free(c);
            }
        free(sec->comp);
    }
    pair_ay_cache_clear(&sec->cache);
    lift_set_clear(&sec->set);
    pthread_mutex_destroy(&sec->lock);
    memset(sec, 0, sizeof *sec);
}

int secondary_needs_composite(const secondary *sec, int s, deg_t T)
{
    /* read by I(z) for z in F_{s+1} of degree > T, i.e. by homotopy steps at target row s - 1 */
    return s >= 2 && s + 1 <= sec->res->max_s && res_is_done(sec->res, s, T) && res_ngens(sec->res, s, T);
}

/* Doubles the array *p of *cap elements of size sz (to 64 at first). 0, or -1 out of memory. */
static int grow(void **p, size_t *cap, size_t sz)
{
    size_t n = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, n * sz);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* The composite of one generator g (index gi) of F_s in degree T into *out. 0 or -1. */
static int composite_of(secondary *sec, int s, deg_t T, uint32_t gi, sec_composite *out)
{
    const resolution *res = sec->res;
    const milnor_basis *A = &res->A;
    const freemod *F1 = &res->F[s - 1], *F2 = &res->F[s - 2];
    const fm_gen *g = &res->F[s].gens[T][gi];
    /* one slot per generator of F_{s-2} below degree T, numbered in basis order */
    uint32_t nslots = 0;
    for (deg_t w = 0; w < T; w++) nslots += F2->ngens[w];
    pair_elt **slot = calloc((size_t)nslots + 1, sizeof *slot);
    uint32_t *first = calloc((size_t)T + 1, sizeof *first);      /* first slot of degree w */
    int rc = slot && first ? 0 : -1;
    for (deg_t w = 1; w <= T && !rc; w++) first[w] = first[w - 1] + F2->ngens[w - 1];
    /* per generator g' of F_{s-1}: the terms b of d g on g' meet all terms c·g'' of d g' */
    milnor_elt *bs = NULL, *cs = NULL;
    pair_elt **targets = NULL;
    size_t bcap = 0, ccap = 0;
    uint64_t off = 0;
    for (deg_t u = 0; u < T && !rc; u++) {
        if (!F1->ngens[u]) continue;                  /* (degrees without generators: maybe past A) */
        uint32_t blen = A->dim[T - u];
        for (uint32_t g1 = 0; g1 < F1->ngens[u] && !rc; g1++, off += blen) {
            const fm_gen *h = &F1->gens[u][g1];
            uint32_t nb = 0, nc = 0;
            for (uint32_t e = 0; e < blen && !rc; e++) {
                uint64_t bit = off + e;
                if (bit >= g->bits || !(g->img[bit >> 6] >> (bit & 63) & 1)) continue;
                if (nb == bcap && grow((void **)&bs, &bcap, sizeof *bs) != 0) rc = -1;
                else bs[nb++] = A->elts[T - u][e];
            }
            if (!nb || rc) continue;
            uint64_t off2 = 0;                                /* d g' over F_{s-2} in degree u */
            for (deg_t w = 0; w < u && !rc; w++) {
                if (!F2->ngens[w]) continue;
                uint32_t clen = A->dim[u - w];
                for (uint32_t g2 = 0; g2 < F2->ngens[w] && !rc; g2++, off2 += clen)
                    for (uint32_t e2 = 0; e2 < clen && !rc; e2++) {
                        uint64_t bit2 = off2 + e2;
                        if (bit2 >= h->bits || !(h->img[bit2 >> 6] >> (bit2 & 63) & 1)) continue;
                        pair_elt **p = &slot[first[w] + g2];
                        if (!*p) {
                            *p = malloc(sizeof **p);
                            if (!*p || pair_elt_init(*p, A, T - w) != 0) {
                                free(*p);
                                *p = NULL;
                                rc = -1;
                                break;
                            }
                        }
                        if (nc == ccap) {
                            size_t tcap = ccap;                 /* cs and targets grow together */
                            if (grow((void **)&cs, &ccap, sizeof *cs) != 0 ||
                                grow((void **)&targets, &tcap, sizeof *targets) != 0) {
                                rc = -1;
                                break;
                            }
                        }
                        cs[nc] = A->elts[u - w][e2];
                        targets[nc++] = *p;
                    }
            }
            if (!rc) rc = pair_sigma_mul_add_all(A, bs, nb, cs, targets, nc);
        }
    }
    free(bs);
    free(cs);
    free(targets);
    /* finalize, keep the non-zero ones */
    memset(out, 0, sizeof *out);
    for (deg_t w = 0; w < T && !rc; w++)
        for (uint32_t g2 = 0; g2 < F2->ngens[w] && !rc; g2++) {
            pair_elt *p = slot[first[w] + g2];
            if (!p) continue;
            if (pair_finalize(p) != 0) {
                sec_fail(sec, "internal error: the composite of generator %u at (s=%d, t=%d) has an odd part "
                         "(d∘d is not 0 there)", gi, s, (int)T);
                rc = -1;
                break;
            }
            if (pair_elt_is_zero(p)) continue;
            sec_term *nt = realloc(out->terms, ((size_t)out->n + 1) * sizeof *nt);
            if (!nt) {
                rc = -1;
                break;
            }
            out->terms = nt;
            out->terms[out->n++] = (sec_term){ w, g2, *p };
            free(p);
            slot[first[w] + g2] = NULL;
        }
    for (uint32_t k = 0; slot && k < nslots; k++)
        if (slot[k]) pair_elt_clear(slot[k]), free(slot[k]);
    free(slot);
    free(first);
    if (rc) {
        for (uint32_t k = 0; k < out->n; k++) pair_elt_clear(&out->terms[k].e);
        free(out->terms);
        memset(out, 0, sizeof *out);
        if (!secondary_failed(sec)) sec_fail(sec, "out of memory computing composites at (s=%d, t=%d)", s, (int)T);
    }
    return rc;
}

int secondary_composite_cell(secondary *sec, int s, deg_t T)
{
    const resolution *res = sec->res;
    uint32_t n = res_ngens(res, s, T);
    if (!n || secondary_failed(sec)) return secondary_failed(sec) ? -1 : 0;
    sec_composite *c = calloc(n, sizeof *c);
    if (!c) {
        sec_fail(sec, "out of memory computing composites at (s=%d, t=%d)", s, (int)T);
        return -1;
    }
    for (uint32_t g = 0; g < n; g++)
        if (composite_of(sec, s, T, g, &c[g]) != 0) {
            for (uint32_t h = 0; h < g; h++) {
                for (uint32_t k = 0; k < c[h].n; k++) pair_elt_clear(&c[h].terms[k].e);
                free(c[h].terms);
            }
            free(c);
            return -1;
        }
    sec->comp[res_cell(res, s, T)] = c;
    pthread_mutex_lock(&sec->lock);
    sec->composites += n;
    pthread_mutex_unlock(&sec->lock);
    return 0;
}

/* The extra term of the homotopy at target (i, t): y ^= I(z_k), z_k the k-th generator of F_s,
 * s = i + 2, in degree T = t + 1; y over F_{s-3} in degree t. */
static int d2_extra(void *ctx, int i, deg_t t, uint32_t k, uint64_t *y)
{
    secondary *sec = ctx;
    const resolution *res = sec->res;
    const milnor_basis *A = &res->A;
    int s = i + 2;
    deg_t T = t + 1;
    const freemod *F1 = &res->F[s - 1], *F3 = &res->F[s - 3];
    const fm_gen *z = &res->F[s].gens[T][k];
    uint32_t amax = 1;
    for (deg_t u = 0; u < T; u++)
        if (F1->ngens[u] && A->dim[T - u] > amax) amax = A->dim[T - u];
    milnor_elt *a = malloc((size_t)amax * sizeof *a);
    if (!a) return -1;
    const pair_elt **es = NULL;                 /* the composite's terms and their columns in y */
    uint64_t *eoff = NULL;
    size_t ecap = 0;
    uint64_t off = 0;
    int rc = 0;
    for (deg_t u = 0; u < T && !rc; u++) {
        if (!F1->ngens[u]) continue;
        uint32_t blen = A->dim[T - u];
        for (uint32_t g1 = 0; g1 < F1->ngens[u] && !rc; g1++, off += blen) {
            uint32_t na = 0;
            for (uint32_t e = 0; e < blen; e++) {
                uint64_t bit = off + e;
                if (bit < z->bits && (z->img[bit >> 6] >> (bit & 63) & 1)) a[na++] = A->elts[T - u][e];
            }
            if (!na) continue;
            const sec_composite *cells = sec->comp[res_cell(res, s - 1, u)];
            if (!cells) {
                sec_fail(sec, "internal error: d2 needs the composites at (s=%d, t=%d) before they were computed",
                         s - 1, (int)u);
                rc = -1;
                break;
            }
            const sec_composite *c = &cells[g1];
            if (c->n > ecap) {
                free(es);
                free(eoff);
                ecap = c->n;
                es = malloc(ecap * sizeof *es);
                eoff = malloc(ecap * sizeof *eoff);
                if (!es || !eoff) {
                    rc = -1;
                    break;
                }
            }
            for (uint32_t m = 0; m < c->n; m++) {
                es[m] = &c->terms[m].e;
                eoff[m] = freemod_offset(F3, t, c->terms[m].w, c->terms[m].index);
            }
            rc = pair_a_mul_add_many(A, &sec->cache, a, na, es, eoff, c->n, y);
        }
    }
    free(a);
    free(es);
    free(eoff);
    if (rc && !secondary_failed(sec)) sec_fail(sec, "out of memory in d2's intermediate at (s=%d, t=%d)", s, (int)T);
    return rc;
}

int secondary_in_range(const secondary *sec, int s, deg_t t)
{
    return s >= 1 && lift_map_in_region(&sec->set, 0, s, t) && sec->set.maps[0].have[lift_cell(&sec->set, s, t)] == 1;
}

int secondary_d2_bit(const secondary *sec, int s, deg_t t, uint32_t i, uint32_t k)
{
    return lift_product_bit(&sec->set, 0, s, t, i, k);
}

/* Calls row(out, sec, n, s, i) for every class in range with a non-zero target bidegree, in
 * sseq's order: source stem, then s, then index. */
static void each_class(FILE *out, const secondary *sec, int nonzero_target_only,
                       void (*row)(FILE *, const secondary *, int, int, uint32_t))
{
    const resolution *res = sec->res;
    for (int n = 0; n <= res->max_n; n++)
        for (int s = 1; s + 2 <= res->max_s; s++) {
            deg_t t = n + s;
            if (!secondary_in_range(sec, s, t)) continue;
            if (nonzero_target_only && !res_ngens(res, s + 2, t + 1)) continue;
            for (uint32_t i = 0; i < res_ngens(res, s, t); i++) row(out, sec, n, s, i);
        }
}

static void csv_row(FILE *out, const secondary *sec, int n, int s, uint32_t i)
{
    uint32_t dim = res_ngens(sec->res, s + 2, n + s + 1);
    fprintf(out, "%d,%d,%u,%d,%d,", n + (int)sec->res->shift, s, i, n - 1 + (int)sec->res->shift, s + 2);
    for (uint32_t k = 0; k < dim; k++) fputc('0' + secondary_d2_bit(sec, s, n + s, i, k), out);
    fputc('\n', out);
}

static void sseq_row(FILE *out, const secondary *sec, int n, int s, uint32_t i)
{
    uint32_t dim = res_ngens(sec->res, s + 2, n + s + 1);
    fprintf(out, "d_2 x_(%d, %d, %u) = [", n + (int)sec->res->shift, s, i);
    for (uint32_t k = 0; k < dim; k++) fprintf(out, "%s%d", k ? ", " : "", secondary_d2_bit(sec, s, n + s, i, k));
    fputs("]\n", out);
}

int secondary_write_csv(FILE *out, const secondary *sec)
{
    fputs("n,s,i,target_n,target_s,value\n", out);
    each_class(out, sec, 0, csv_row);
    return ferror(out) ? -1 : 0;
}

int secondary_write_sseq(FILE *out, const secondary *sec)
{
    each_class(out, sec, 1, sseq_row);
    return ferror(out) ? -1 : 0;
}
