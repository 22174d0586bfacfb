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
    b->jobcap = njobs;
    b->termcap = nterms;
    account(b, njobs * sizeof *b->jobs + nterms * sizeof *b->terms);
    return 0;
}

/* Element n of *arr (cap of them allocated, doubled from 64 as needed) = *elt, of size bytes;
 * the account follows b's arrays. 0, or -1 out of memory. */
static int put(row_build_p *b, void **arr, size_t n, size_t *cap, const void *elt, size_t size)
{
    if (n >= *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        void *na = realloc(*arr, nc * size);
        if (!na) return -1;
        *arr = na;
        *cap = nc;
        account(b, b->jobcap * sizeof *b->jobs + b->termcap * sizeof *b->terms);
    }
    memcpy((char *)*arr + n * size, elt, size);
    return 0;
}

int rbp_push_term(row_build_p *b, milnor_p_term term)
{
    if (put(b, (void **)&b->terms, b->nterms, &b->termcap, &term, sizeof term) != 0) return -1;
    b->nterms++;
    return 0;
}

int rbp_push_job(row_build_p *b, milnor_row_job job)
{
    if (put(b, (void **)&b->jobs, b->nrows, &b->jobcap, &job, sizeof job) != 0) return -1;
    b->nrows++;
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

int rbp_multiply_sub(const row_build_p *b, const milnor_p_sub *B, uint32_t row0, uint32_t nrows)
{
    if (B->full) {
        rbp_multiply(b, B->A, row0, nrows);
        return 0;
    }
    for (uint32_t r = row0; r < row0 + nrows; r++) {
        const milnor_row_job *j = &b->jobs[r];
        const milnor_p_elt *x = &B->A->elts[j->r_deg][j->r_idx];
        uint8_t *row = fpmat_row(b->D, r);
        for (uint32_t k = j->first_term; k < j->first_term + j->n_terms; k++) {
            const milnor_p_term *y = &b->terms[k];
            if (milnor_p_sub_mul_into(B, x, &B->A->elts[y->s_deg][y->s_idx], y->coef, row + y->col_offset) != 0)
                return -1;
        }
    }
    return 0;
}

void rbp_clear(row_build_p *b)
{
    account(b, 0);
    free(b->jobs);
    free(b->terms);
    memset(b, 0, sizeof *b);
}
