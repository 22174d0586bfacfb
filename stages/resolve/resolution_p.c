/* resolution_p.c — the odd-prime part of the resolution's core: its algebra, kernel slots, the
 * rows of a differential as Milnor products over F_p, stage-file matrices, d∘d (see
 * resolution_p.h). */
#include "stages/resolve/resolution_p.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>

int res_odd_init(resolution *res, const fd_module *m)
{
    res_odd *o = calloc(1, sizeof *o);
    if (!o) return -1;
    res->odd = o;
    res->prime = m->p;
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    if (milnor_p_basis_init(&o->A, m->p, res->milnor_degree) != 0) return -1;
    if (milnor_p_sub_init(&o->B, &o->A, &m->pprofile) != 0) return -1;
    if (!(o->kernel = calloc(cells, sizeof *o->kernel))) return -1;
    for (int s = 0; s <= res->max_s; s++) freemod_use_dims(&res->F[s], o->B.dim);
    return 0;
}

void res_odd_clear(resolution *res)
{
    res_odd *o = res->odd;
    if (!o) return;
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    for (size_t i = 0; o->kernel && i < cells; i++)
        if (o->kernel[i]) {
            memacct_add(MEM_KERNELS, -(int64_t)o->kernel[i]->rows * o->kernel[i]->stride);
            fpmat_clear(o->kernel[i]);
            free(o->kernel[i]);
        }
    free(o->kernel);
    if (o->share_clear) o->share_clear(res);
    milnor_p_sub_clear(&o->B);
    milnor_p_basis_clear(&o->A);
    free(o);
    res->odd = NULL;
}

size_t res_p_terms(const resolution *res, int s, deg_t u, uint32_t i, deg_t t, res_p_term *out)
{
    const milnor_p_sub *B = &res->odd->B;
    const freemod *F = &res->F[s - 1];
    const fm_gen *h = &res->F[s].gens[u][i];
    const uint8_t *img = h->img_p;
    size_t n = 0;
    uint64_t off = 0, base = 0;         /* base = freemod_dim(F, t, v): generator (v, 0)'s offset */
    const deg_t first = freemod_first(F, t);
    for (deg_t v = 0; v < u && off < h->bits; v++) {
        for (uint32_t q = 0; q < F->ngens[v] && off < h->bits; q++) {
            /* freemod_offset, summed as we go; unstable: the offset over the whole of A_p's blocks,
             * and the block of v in degree u is the excess order's prefix (resolution_p.h) */
            uint64_t col = base + (uint64_t)q * F->dim[t - v];
            const uint32_t blen = freemod_block(F, u - v, v);
            for (uint32_t j = 0; j < blen && off < h->bits; j++, off++)
                if (img[off])
                    out[n++] = (res_p_term){ col, milnor_p_sub_elt(B, u - v, F->ex ? excess_index(F->ex, u - v, j) : j),
                                             img[off] };
        }
        if (v >= first && F->ngens[v]) base += (uint64_t)F->ngens[v] * F->dim[t - v];
    }
    return n;
}

int res_p_row_add(const resolution *res, const res_p_term *terms, size_t n, const milnor_p_elt *x, uint32_t c,
                  uint8_t *row)
{
    const milnor_p_sub *B = &res->odd->B;
    uint32_t p = res->prime;
    for (size_t k = 0; k < n; k++)
        if (milnor_p_sub_mul_into(B, x, terms[k].y, terms[k].c * c % p, row + terms[k].col) != 0) return -1;
    return 0;
}

void res_p_row0_add(const resolution *res, deg_t u, const fm_gen *h, deg_t t, uint32_t r, uint32_t c, uint8_t *row)
{
    const fd_module *m = res->module;
    uint32_t p = res->prime, width = res_module_dim(res, t);
    const uint8_t *img = h->img_p;
    for (uint32_t j = 0; m && j < h->bits; j++) {
        const uint8_t *a = img[j] ? fdm_act_p(m, u + res->shift, j, t - u, r) : NULL;
        if (a) fpvec_addmul(row, a, img[j] * c % p, width, p);
    }
}

int res_check_dd_p(const resolution *res, int s, deg_t t)
{
    uint32_t n = res->F[s].ngens[t], p = res->prime;
    if (s < 1 || !n) return 1;
    const milnor_p_sub *B = &res->odd->B;
    const freemod *F1 = &res->F[s - 1];
    /* unstable: the products land over the whole of A_p's blocks (res_p_terms), and the terms of
     * too large an excess are zero in F_{s-2}: only the kept columns must vanish */
    size_t width = s == 1 ? res_module_dim(res, t) : (size_t)freemod_dim_wide(&res->F[s - 2], t, t);
    uint8_t *acc = calloc(width + 1, 1), *kept = s >= 2 ? freemod_kept(&res->F[s - 2], t, t) : NULL;
    if (s >= 2 && res->F[s - 2].ex && !kept) {
        free(acc);
        return -1;
    }
    res_p_term *terms = NULL;
    size_t cap = 0;
    int rc = acc ? 1 : -1;
    for (uint32_t i = 0; rc == 1 && i < n; i++) {   /* d(d(g)) = sum over d(g)'s terms c·x·h of c·x·d(h) */
        const fm_gen *g = &res->F[s].gens[t][i];
        const uint8_t *img = g->img_p;
        memset(acc, 0, width);
        uint64_t off = 0;
        for (deg_t u = 0; rc == 1 && u < t && off < g->bits; u++)
            for (uint32_t k = 0; rc == 1 && k < F1->ngens[u] && off < g->bits; k++) {
                const fm_gen *h = &F1->gens[u][k];
                size_t nterms = 0;
                if (s >= 2) {
                    if (h->bits + 1 > cap) {
                        res_p_term *nt = realloc(terms, ((size_t)h->bits + 1) * sizeof *nt);
                        if (!nt) { rc = -1; break; }
                        terms = nt;
                        cap = (size_t)h->bits + 1;
                    }
                    nterms = res_p_terms(res, s - 1, u, k, t, terms);
                }
                for (uint32_t r = 0; rc == 1 && r < freemod_block(F1, t - u, u) && off < g->bits; r++, off++) {
                    if (!img[off]) continue;
                    uint32_t x = F1->ex ? excess_index(F1->ex, t - u, r) : r;
                    if (s == 1) res_p_row0_add(res, u, h, t, x, img[off], acc);     /* d_0 into M */
                    else if (res_p_row_add(res, terms, nterms, milnor_p_sub_elt(B, t - u, x), img[off], acc) != 0)
                        rc = 0;     /* a product outside B: not a resolution over B */
                }
            }
        for (size_t c = 0; rc == 1 && c < width; c++)
            if (acc[c] % p && (!kept || kept[c])) rc = 0;
    }
    free(terms);
    free(acc);
    free(kept);
    return rc;
}
