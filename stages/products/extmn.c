/* extmn.c — Ext_A(M, N) for a finite module N (see extmn.h). */
#include "stages/products/extmn.h"
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/report.h"

/* dim C^{s,t} on the generators of F_s of internal degree <= umax: Σ_g dim N_{|g| - t}. */
static uint32_t cochain_dim(const resolution *res, const fd_module *N, int s, deg_t t, deg_t umax)
{
    uint32_t dim = 0;
    for (deg_t u = s; u <= umax && u <= res->max_t; u++) dim += res_ngens(res, s, u) * fdm_dim(N, u + res->shift - t);
    return dim;
}

/* Offset in C^{s,t} of generator (u, i)'s block. */
static uint32_t cochain_offset(const resolution *res, const fd_module *N, int s, deg_t t, deg_t u, uint32_t i)
{
    return cochain_dim(res, N, s, t, u - 1) + i * fdm_dim(N, u + res->shift - t);
}

/* Rank of δ : C^{s,t} -> C^{s+1,t}, both on generators of degree <= umax; -1 out of memory. */
static long delta_rank(const resolution *res, const fd_module *N, int s, deg_t t, deg_t umax)
{
    uint32_t rows = cochain_dim(res, N, s, t, umax), cols = cochain_dim(res, N, s + 1, t, umax);
    if (!rows || !cols) return 0;
    f2mat D;
    if (f2mat_init(&D, rows, cols) != 0) return -1;
    const freemod *F = &res->F[s];
    deg_t span = N->max_deg - N->min_deg;
    for (deg_t v = s + 1; v <= umax; v++) {
        uint32_t fdim = fdm_dim(N, v + res->shift - t);       /* (δφ)(z) ∈ N_{|z| - t} */
        for (uint32_t k = 0; fdim && k < res_ngens(res, s + 1, v); k++) {
            const fm_gen *z = &res->F[s + 1].gens[v][k];
            uint32_t col = cochain_offset(res, N, s + 1, t, v, k);
            for (deg_t u = s; u < v; u++) {                   /* the terms Sq(R)·g' of d z */
                deg_t d = v - u, nu = u + res->shift - t;
                uint32_t edim = fdm_dim(N, nu), blen = res->A.dim[d];
                for (uint32_t i = 0; edim && d <= span && i < F->ngens[u]; i++) {
                    uint64_t off = freemod_offset(F, v, u, i);
                    uint32_t row = cochain_offset(res, N, s, t, u, i);
                    for (uint32_t r = 0; r < blen && off + r < z->bits; r++) {
                        if (!f2vec_get(z->img, off + r)) continue;
                        uint32_t nr = milnor_index(&N->A, &res->A.elts[d][r]);
                        for (uint32_t e = 0; e < edim; e++) {
                            const uint64_t *y = fdm_act(N, nu, e, d, nr);
                            for (uint32_t b = 0; y && b < fdim; b++)
                                if (f2vec_get(y, b)) f2mat_flip(&D, row + e, col + b);
                        }
                    }
                }
            }
        }
    }
    int32_t *piv = malloc(((size_t)cols + 1) * sizeof *piv);
    long rank = piv ? f2mat_rref(&D, piv) : -1;
    free(piv);
    f2mat_clear(&D);
    return rank;
}

/* Internal degree through which F_s's generators are known (-1: none). */
static deg_t known_through(const resolution *res, int s)
{
    if (s < 0 || s > res->max_s) return -1;
    int last = report_row_last_stem(res, s);
    return last < 0 ? -1 : last + s;
}

int extmn_write_csv(FILE *out, const resolution *res, const fd_module *N, char *err, size_t es)
{
    fprintf(out, "s,n,dim\n");
    for (int s = 0; s + 1 <= res->max_s; s++) {
        /* t (the modules' degrees) with every generator of degree <= t + top(N) known in rows
         * s and s + 1, and those below it in row s - 1 */
        deg_t kmax = known_through(res, s), k1 = known_through(res, s + 1);
        if (k1 < kmax) kmax = k1;
        if (s > 0 && known_through(res, s - 1) + 1 < kmax) kmax = known_through(res, s - 1) + 1;
        deg_t tmax = kmax + res->shift - N->max_deg;
        for (deg_t t = s + res->shift - N->max_deg; t <= tmax; t++) {
            deg_t umax = t - res->shift + N->max_deg;
            long dim = cochain_dim(res, N, s, t, umax);
            if (!dim) continue;
            /* generators of F_{s-1} of degree umax, if known, meet no d z of degree <= umax */
            long r1 = delta_rank(res, N, s, t, umax), r0 = s ? delta_rank(res, N, s - 1, t, umax) : 0;
            if (r1 < 0 || r0 < 0) {
                snprintf(err, es, "out of memory computing Ext at (s=%d, n=%d)", s, (int)(t - s));
                return -1;
            }
            if (dim - r1 - r0 > 0) fprintf(out, "%d,%d,%ld\n", s, (int)(t - s), dim - r1 - r0);
        }
    }
    if (ferror(out)) {
        snprintf(err, es, "write error");
        return -1;
    }
    return 0;
}
