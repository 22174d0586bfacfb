/* rowbuild_p.h — the rows of a standard step's matrix at an odd prime as jobs for the
 * multiply codelet at odd p (cl_milnor_mul_p): the odd-p form of rowbuild.h.
 *
 * Maths (standard_p.h). Row x·h of D, for a generator h of F_{s,u} (u < t) and x in A_p's
 * basis of degree t - u, is x·d(h) = sum over the terms c·y·g' of d(h) of c·(x·y), landing in
 * the block of g' in F_{s-1} in degree t: one odd-p Milnor product per term.
 *
 * Layout. jobs[i] = (|x|, index of x, first term, number of terms) (milnor.h's milnor_row_job),
 * rows in D's order (generators by degree, then x in basis order); the terms of one generator
 * (milnor_p_term: |y|, index of y, column of g''s block, c) are shared by all its rows. D is
 * the step's fpmat (nrows x ncols bytes, zero), whose rows the multiply fills:
 * milnor_p_mul_batch on a CPU (rbp_multiply) or the CUDA kernel (milnor_p_cuda.h). Over A_p
 * itself only (the indices are A_p's): a profile's steps multiply in their plan
 * (standard_p.c). The jobs and terms are in the memory account (in flight) while they live.
 *
 * Rows of a product that is not a differential's (a lift's f(d z), stages/products/lift.c) are
 * pushed one term and one job at a time (rbp_push_term, rbp_push_job: the arrays grow), and
 * over a profile's B, whose products the codelet cannot index, multiplied on the caller's
 * thread through B (rbp_multiply_sub); the jobs and terms name A_p's elements either way.
 */
#ifndef EXTFLOW_ROWBUILD_P_H
#define EXTFLOW_ROWBUILD_P_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/fpmat.h"
#include "algebra/milnor_p.h"

typedef struct row_build_p {
    uint32_t nrows, ncols;
    milnor_row_job *jobs;       /* nrows */
    milnor_p_term *terms;
    size_t nterms;
    size_t jobcap, termcap;     /* allocated (rbp_alloc's, or grown by the pushes) */
    size_t accounted;           /* bytes of jobs and terms in the memory account */
    fpmat *D;                   /* nrows x ncols, the rows the multiply fills */
} row_build_p;

/* b's jobs and terms arrays, for njobs jobs and nterms terms (in the memory account). 0, or -1
 * out of memory (rbp_clear then frees what was allocated). */
int rbp_alloc(row_build_p *b, size_t njobs, size_t nterms);
/* One term, one job (appended; the arrays grown as needed, kept in the memory account). 0, or
 * -1 out of memory. */
int rbp_push_term(row_build_p *b, milnor_p_term term);
int rbp_push_job(row_build_p *b, milnor_row_job job);
/* (job x term) pairs: the multiply's work. */
uint64_t rbp_pairs(const row_build_p *b);
/* Fills rows row0 .. row0 + nrows - 1 of D on this thread (no runtime). */
void rbp_multiply(const row_build_p *b, const milnor_p_basis *A, uint32_t row0, uint32_t nrows);
/* The same over B (a profile's sub-algebra, or A_p itself): the products land in B's basis
 * (milnor_p_sub_mul_into). 0, or -1 when a product leaves B (the profile is not a
 * sub-Hopf-algebra's). */
int rbp_multiply_sub(const row_build_p *b, const milnor_p_sub *B, uint32_t row0, uint32_t nrows);
void rbp_clear(row_build_p *b);

#endif
