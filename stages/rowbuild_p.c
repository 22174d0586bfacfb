/* rowbuild_p.c — the rows of a matrix at an odd prime as multiply jobs (see rowbuild_p.h). */
#include "stages/rowbuild_p.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>

/* Brings the memory account up to the jobs and terms b holds now. */
static void account(row_build_p *b, size_t now)
{
    memacct_add(MEM_INFLIGHT, (int64_t)now - (int64_t)b->accounted);
    b->accounted = now;
}

int rbp_alloc(row_build_p *b, size_t njobs, size_t nterms)
{
    b->jobs = malloc(njobs * sizeof *b->jobs);
    b->terms = malloc(nterms * sizeof *b->terms);
    if (!b->jobs || !b->terms) return -1;
    account(b, njobs * sizeof *b->jobs + nterms * sizeof *b->terms);
    return 0;
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
