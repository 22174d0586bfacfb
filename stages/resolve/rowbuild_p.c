/* rowbuild_p.c — the rows of a standard step at an odd prime as multiply jobs (see rowbuild_p.h). */
#include "stages/resolve/rowbuild_p.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/resolution_p.h"

/* Brings the memory account up to the jobs and terms b holds now. */
static void account(row_build_p *b, size_t now)
{
    memacct_add(MEM_INFLIGHT, (int64_t)now - (int64_t)b->accounted);
    b->accounted = now;
}

int rbp_plan(row_build_p *b, const resolution *res, int s, deg_t t, fpmat *D)
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
    b->jobs = malloc(((size_t)D->rows + 1) * sizeof *b->jobs);
    b->terms = malloc((nterms + 1) * sizeof *b->terms);
    if (!b->jobs || !b->terms) goto oom;
    account(b, ((size_t)D->rows + 1) * sizeof *b->jobs + (nterms + 1) * sizeof *b->terms);
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
            for (uint32_t r = 0; r < B->dim[t - u]; r++)
                b->jobs[b->nrows++] = (milnor_row_job){ (uint32_t)(t - u), r, first, n };
        }
    free(scratch);
    return 0;
oom:
    free(scratch);
    rbp_clear(b);
    return -1;
}

uint64_t rbp_pairs(const row_build_p *b)
{
    uint64_t pairs = 0;
    for (uint32_t j = 0; j < b->nrows; j++) pairs += b->jobs[j].n_terms;
    return pairs;
}

void rbp_multiply(const row_build_p *b, const milnor_p_basis *A, uint32_t row0, uint32_t nrows)
{
    if (nrows == 0 || b->nterms == 0) return;
    milnor_p_mul_batch(A, b->jobs + row0, nrows, b->terms, fpmat_row(b->D, row0), b->D->stride);
}

void rbp_clear(row_build_p *b)
{
    account(b, 0);
    free(b->jobs);
    free(b->terms);
    memset(b, 0, sizeof *b);
}
