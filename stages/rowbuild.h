/* rowbuild.h — rows of a differential's matrix, as jobs for the Milnor-multiply codelet.
 *
 * Maths. Row i is d(Sq(R_i)·g_i) for selected basis elements Sq(R_i)·g_i of F_{src,t}
 * (generators of degree < t): with d(g_i) = sum of Sq(S)·g' over the set bits of g_i's image,
 * it is sum Sq(R_i)·Sq(S)·g', one Milnor product per term, landing in the block of g'.
 *
 * Layout. jobs[i] = (|R_i|, index of R_i, its first term, number of terms); the terms of one
 * generator are shared by all its rows; D is the packed F2 matrix the multiply fills
 * (algebra/milnor.h: milnor_row_job, milnor_term), nrows rows, one per job.
 *
 * Unstable (algebra/freemod.h's ex): R_i and S name their elements through the excess order of
 * their blocks, and the columns are the wide ones (freemod_dim_wide: blocks over all of A), which
 * the standard step narrows after the multiply (stages/resolve/standard.c).
 *
 * Grouped rows. After those, a build may hold ngroups rows that are sums of products: grouped
 * row g (row nrows + g of D) is the XOR of the products of jobs[group_job[g] .. group_job[g+1])
 * (they follow the nrows single jobs; group_job[0] = nrows). Lifts whose extra term is made of
 * Milnor products plan it so (d2's homotopy: stages/products/lift.h, lift_map.extra_plan), so that the
 * multiply codelet computes it on CPU or GPU workers with the rest. */
#ifndef EXTFLOW_ROWBUILD_H
#define EXTFLOW_ROWBUILD_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/f2mat.h"
#include "algebra/freemod.h"
#include "algebra/milnor.h"

typedef struct row_build {
    uint32_t nrows, ncols;
    milnor_row_job *jobs;       /* nrows jobs */
    milnor_term *terms;
    size_t nterms, termcap;
    size_t jobcap;              /* jobs allocated */
    size_t accounted;           /* bytes of jobs and terms in the memory account (in flight) */
    uint32_t ngroups;           /* grouped rows, after the nrows single ones */
    uint32_t *group_job;        /* ngroups + 1 entries (NULL: none), grouped jobs from nrows on */
    size_t groupcap;
    f2mat D;                    /* (nrows + ngroups) x ncols, filled by the multiply codelet */
    int unzeroed;               /* D from rb_alloc_unzeroed: each row holds garbage until the
                                   multiply (codelet, rt_mul_submit or rb_multiply) writes it */
} row_build;

/* Appends the rows of d: src -> tgt (a resolution's F_s -> F_{s-1}; A their algebra) for the
 * basis elements sel[0..nsel) (increasing indices of src in degree t, generators of degree < t),
 * or all of them if sel is NULL, to b (whose D is allocated by rb_alloc). */
int rb_append(row_build *b, const freemod *src, const freemod *tgt, const milnor_basis *A, deg_t t,
              const uint32_t *sel, uint32_t nsel);
/* Appends the rows of every basis element Sq(R)·g of src in degree t with |g| < below (a prefix
 * of the basis; generators of degree >= below are not read, so their step may still be running). */
int rb_append_below(row_build *b, const freemod *src, const freemod *tgt, const milnor_basis *A, deg_t t,
                    deg_t below);
/* One term, one job (rows of a product that is not a differential's: stages/products/lift.c), arrays
 * grown as needed and kept in the memory account. 0, or -1 out of memory. */
int rb_push_term(row_build *b, milnor_term term);
int rb_push_job(row_build *b, milnor_row_job job);
/* A sink (algebra/milnor.h) whose jobs go to the grouped row being built; rb_group_end closes
 * it (after every single row: rb_push_job no more). 0, or -1 out of memory. */
milnor_sink rb_group_sink(row_build *b);
int rb_group_end(row_build *b);
/* Jobs in all (single and grouped), and the first job after the grouped ones. */
static inline uint32_t rb_njobs(const row_build *b) { return b->ngroups ? b->group_job[b->ngroups] : b->nrows; }
/* (job x term) pairs of the rows: the multiply's work (grouped_pairs: of grouped row g alone). */
uint64_t rb_pairs(const row_build *b);
uint64_t rb_group_pairs(const row_build *b, uint32_t g);
/* D for the single and grouped rows, ncols columns. */
int rb_alloc(row_build *b, uint32_t ncols);
/* The same, D not zeroed: for rows that the multiply alone writes (rt_mul_submit's chunks, each
 * row whole; rt_mul_submit and rb_multiply zero what no product writes), which then first touch
 * its pages, in parallel, instead of one serial memset where D is made. */
int rb_alloc_unzeroed(row_build *b, uint32_t ncols);
/* Zeroes rows row0 .. row0+nrows-1 of D when it was made unzeroed (else nothing to do). */
void rb_zero_rows(const row_build *b, uint32_t row0, uint32_t nrows);
/* Fills rows row0 .. row0+nrows-1 of D (single rows) on this thread (no runtime: resume,
 * verify); rb_multiply_all fills every row, grouped ones included. */
void rb_multiply(const row_build *b, const milnor_basis *A, uint32_t row0, uint32_t nrows);
void rb_multiply_all(const row_build *b, const milnor_basis *A);
void rb_clear(row_build *b);

#endif
