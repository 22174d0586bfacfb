/* standard_p.c — the standard step at an odd prime in pieces: plan (the rows, multiplied),
 * reduce (see standard_p.h; the finish is standard.c's, at every prime). */
#include "stages/resolve/standard_p.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/resolution_p.h"

/* The jobs of every row of D = the matrix of d_s in degree t (s >= 1, over A_p itself), D
 * initialised by the caller (dim F_{s,t} rows). 0, or -1 out of memory (b cleared then). */
static int plan_rows(row_build_p *b, const resolution *res, int s, deg_t t, fpmat *D)
{
    const milnor_p_sub *B = &res->odd->B;
    const freemod *F = &res->F[s];
    memset(b, 0, sizeof *b);
    b->D = D;
    b->ncols = D->cols;
    size_t nterms = 0;
    for (deg_t u = s; u < t; u++)       /* every term of every generator, counted first */
        for (uint32_t i = 0; i < F->ngens[u]; i++) nterms += F->gens[u][i].bits;
    res_p_term *scratch = NULL;
    if (rbp_alloc(b, (size_t)D->rows + 1, nterms + 1) != 0) goto oom;
    for (deg_t u = s; u < t; u++)
        for (uint32_t i = 0; i < F->ngens[u]; i++) {
            res_p_term *ns = realloc(scratch, ((size_t)F->gens[u][i].bits + 1) * sizeof *ns);
            if (!ns) goto oom;
            scratch = ns;
            uint32_t first = (uint32_t)b->nterms, n = (uint32_t)res_p_terms(res, s, u, i, t, scratch);
            for (uint32_t k = 0; k < n; k++) {
                const milnor_p_elt *y = scratch[k].y;
                b->terms[b->nterms++] = (milnor_p_term){ (uint32_t)y->degree, (uint32_t)(y - B->A->elts[y->degree]),
                                                         (uint32_t)scratch[k].col, scratch[k].c };
            }
            const uint32_t blen = freemod_block(F, t - u, u);            /* unstable: the excess order's prefix */
            for (uint32_t r = 0; r < blen; r++)
                b->jobs[b->nrows++] = (milnor_row_job){ (uint32_t)(t - u), F->ex ? excess_index(F->ex, t - u, r) : r,
                                                        first, n };
        }
    free(scratch);
    return 0;
oom:
    free(scratch);
    rbp_clear(b);
    return -1;
}

static uint64_t fp_bytes_for(uint64_t rows, uint64_t cols) { return rows * ((cols + 63) & ~(uint64_t)63); }

/* A matrix of the step enters (sign 1) or leaves (-1) the memory account's bidegrees in flight. */
static void account(const fpmat *m, int sign) { memacct_add(MEM_INFLIGHT, sign * (int64_t)fpmat_bytes(m)); }

int res_step_plan_p(step_ctx *c)
{
    resolution *res = c->res;
    int s = c->ch.s;
    deg_t t = c->ch.t;
    const milnor_p_sub *B = &res->odd->B;
    uint32_t nrows = (uint32_t)freemod_dim(&res->F[s], t, t);
    /* unstable: the products land in the blocks over all of A_p, narrowed before the reduction */
    uint32_t ncols = s == 0 ? res_module_dim(res, t)
                            : (uint32_t)(res->unstable ? freemod_dim_wide : freemod_dim)(&res->F[s - 1], t, t - 1);
    c->build.nrows = nrows;
    c->build.ncols = ncols;
    if (fpmat_init(&c->Dp, res->prime, nrows, ncols) != 0) goto oom;
    account(&c->Dp, 1);
    if (ncols == 0) return 0;
    if (s > 0 && B->full) {                 /* the rows as jobs of the multiply codelet */
        if (plan_rows(&c->build_p, res, s, t, &c->Dp) != 0) goto oom;
        c->ch.rows = chain_rows_fp(&c->build_p);
        return 0;
    }
    res_p_term *terms = NULL;
    size_t cap = 0;
    uint32_t row = 0;
    for (deg_t u = s; u < t; u++)           /* F_s has generators in degrees >= s only */
        for (uint32_t i = 0; i < res->F[s].ngens[u]; i++) {
            const freemod *F = &res->F[s];
            if (s == 0) {                   /* row 0: x·d(h) = the action of x on d(h) in M */
                for (uint32_t r = 0; r < freemod_block(F, t - u, u); r++, row++)
                    res_p_row0_add(res, u, &F->gens[u][i], t, F->ex ? excess_index(F->ex, t - u, r) : r, 1,
                                   fpmat_row(&c->Dp, row));
                continue;
            }
            uint32_t bits = res->F[s].gens[u][i].bits;
            if (bits + 1 > cap) {
                res_p_term *nt = realloc(terms, ((size_t)bits + 1) * sizeof *nt);
                if (!nt) {
                    free(terms);
                    goto oom;
                }
                terms = nt;
                cap = (size_t)bits + 1;
            }
            size_t n = res_p_terms(res, s, u, i, t, terms);
            for (uint32_t r = 0; r < B->dim[t - u]; r++, row++)
                if (res_p_row_add(res, terms, n, milnor_p_sub_elt(B, t - u, r), 1, fpmat_row(&c->Dp, row)) != 0) {
                    free(terms);
                    res_fail(res, "step (%d,%d): a product of the profile's algebra leaves it (the profile is not "
                             "that of a sub-Hopf-algebra)", s, t);
                    return -1;
                }
        }
    free(terms);
    return 0;
oom:
    res_fail(res, "out of memory planning step (%d,%d)", s, t);
    return -1;
}

uint64_t res_step_footprint_p(const resolution *res, int s, deg_t t)
{
    uint64_t rows = freemod_dim(&res->F[s], t, t);
    uint64_t cols = s == 0 ? res_module_dim(res, t) : freemod_dim(&res->F[s - 1], t, t - 1);
    uint64_t seg = (cols + 63) & ~(uint64_t)63;
    uint64_t wide = res->unstable && s > 0 ? fp_bytes_for(rows, freemod_dim_wide(&res->F[s - 1], t, t - 1)) : 0;
    return fp_bytes_for(rows, cols) + fp_bytes_for(rows, seg + rows) + fp_bytes_for(rows, rows) + wide;
}

void res_step_multiply_p(step_ctx *c)
{
    rbp_multiply(&c->build_p, &c->res->odd->A, 0, c->build_p.nrows);
}

int res_step_reduce_p(step_ctx *c)
{
    resolution *res = c->res;
    rbp_clear(&c->build_p);                 /* D's rows are multiplied: the jobs are done */
    int want_kernel = c->kernel_only || res_kernel_wanted(res, c->ch.s, c->ch.t);
    fpmat aug = { 0 };
    int32_t *pivots = NULL;
    fpmat *kernel = NULL;
    if (res->unstable && c->ch.s > 0) {     /* unstable: D's columns of excess <= their generator's degree */
        account(&c->Dp, -1);
        int nrc = freemod_narrow_p(&res->F[c->ch.s - 1], c->ch.t, c->ch.t - 1, &c->Dp);
        account(&c->Dp, 1);
        if (nrc != 0) goto oom;
        c->build.ncols = c->Dp.cols;
    }
    uint32_t ncols = c->build.ncols;
    c->is_image_pivot = calloc(ncols ? ncols : 1, 1);
    if (!c->is_image_pivot) goto oom;
    if (c->build.nrows == 0) {
        if (want_kernel && (!(kernel = calloc(1, sizeof *kernel)) || fpmat_init(kernel, res->prime, 0, 0) != 0))
            goto oom;
    } else if (!want_kernel) {      /* the image pivots alone: an echelon form of D */
        if (!(pivots = malloc(sizeof *pivots * ((size_t)ncols + 1)))) goto oom;
        if (fpmat_rref_split_unsorted(&c->Dp, ncols, pivots) < 0) goto oom;
        for (uint32_t col = 0; col < ncols; col++) c->is_image_pivot[col] = pivots[col] >= 0;
    } else {                        /* [D | 0 | I]: image pivots in D, the kernel's RREF in I */
        if (fpmat_augment_identity(&aug, &c->Dp) != 0) goto oom;
        account(&aug, 1);
        if (!(pivots = malloc(sizeof *pivots * ((size_t)aug.cols + 1)))) goto oom;
        int rank = fpmat_rref_split_unsorted(&aug, fpmat_segment_start(ncols), pivots);
        if (rank < 0) goto oom;
        for (uint32_t col = 0; col < ncols; col++) c->is_image_pivot[col] = pivots[col] >= 0;
        if (!(kernel = calloc(1, sizeof *kernel)) ||
            fpmat_kernel_from_rref(&aug, ncols, (uint32_t)rank, pivots, kernel) != 0)
            goto oom;
        account(&aug, -1);
        fpmat_clear(&aug);
    }
    account(&c->Dp, -1);
    fpmat_clear(&c->Dp);
    free(pivots);
    if (kernel) {
        memacct_add(MEM_KERNELS, (int64_t)fpmat_bytes(kernel));
        *res_kernel_slot_p(res, c->ch.s, c->ch.t) = kernel;
    }
    return 0;
oom:
    if (aug.data) account(&aug, -1);
    fpmat_clear(&aug);
    free(pivots);
    if (kernel) {
        fpmat_clear(kernel);
        free(kernel);
    }
    res_fail(res, "out of memory reducing step (%d,%d)", c->ch.s, c->ch.t);
    return -1;
}

void res_step_free_p(step_ctx *c)
{
    rbp_clear(&c->build_p);
    if (c->Dp.data) account(&c->Dp, -1);
    fpmat_clear(&c->Dp);
}
