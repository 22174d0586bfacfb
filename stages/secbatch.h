/* secbatch.h — a cell's mod-4 products as a batch: the rows of a chain that multiplies in Z/4
 * (chain.batch, stages/chain.h), which the runner cuts into chunks and multiplies on CPU or GPU
 * workers (runtime/rt_mul.c), and the composites read off them. Adams d2 (stages/d2/secondary.h),
 * the secondary products and the secondary Massey products plan their cells' products here.
 *
 * Maths. A cell (s, T) is a set of generators g; each gets a sum of products times·σ(b)σ(c)
 * in the pair algebra B0 (algebra/pair_algebra.h), grouped by the generator g'' of the target
 * module Y they land on: one pair element of degree T - |g''| per (g, g''), the COMPOSITE of g
 * once finalized (its odd parts must cancel), with the Y terms (mod-2 products) added.
 *
 * A sec_batch holds, per generator g of the cell, its TARGETS (the g'' that some σ(b)σ(c) hits,
 * in basis order (w, index), each a pair element of degree T - w) and its GROUPS: one job per
 * left factor b, all sharing the group's terms c (each naming its target: term_slot). Chunks
 * (sec_batch_cut) are runs of consecutive generators; a chunk's row is pair_cuda.h's layout:
 * the ones planes of its generators' targets end to end (target k at word `word`), then the
 * twos planes in the same order, twos_at words after the first; a term's column is 64 times
 * its target's word. The rows start at zero, and every job of a chunk adds into the chunk's one
 * row (stride 0). A product taken 3 times (-1 mod 4, a secondary product) is its term once, into
 * its target's TWIN (a target of its own, after all of the generator's others): the finish adds
 * -x = 3x of the twin's x into the target, in Z/4.
 */
#ifndef EXTFLOW_SECBATCH_H
#define EXTFLOW_SECBATCH_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/freemod.h"
#include "algebra/latch.h"
#include "algebra/milnor.h"
#include "algebra/pair_algebra.h"

typedef struct sec_term {
    deg_t w;                    /* g'': generator (w, index) of F_{s-2} */
    uint32_t index;
    pair_elt e;                 /* degree T - w */
} sec_term;

typedef struct sec_composite {
    uint32_t n;
    sec_term *terms;
} sec_composite;

typedef struct sec_target {
    deg_t w;                    /* g'' = generator (w, index) of the composite's target module */
    uint32_t index;
    deg_t degree;               /* of its pair element: top - w (a Y plane: that plane's degree) */
    uint64_t word;              /* its ones plane's first word in its chunk's row (sec_batch_cut) */
    int32_t real;               /* -1; or a Y plane (sec_batch_plan_y): the index in tg of the
                                 * target whose ys[ya][yb] its ones plane is added into; or a twin
                                 * (ya = SEC_TWIN): the target it is added into 3 times */
    int8_t ya, yb;
} sec_target;

#define SEC_TWIN (-1)
typedef struct sec_batch {
    const milnor_basis *A;
    int s;
    deg_t T;
    uint32_t ngens;
    sec_target *tg;             /* every generator's targets, generator by generator */
    uint32_t *gen_tg;           /* generator g's targets: tg[gen_tg[g] .. gen_tg[g + 1]) */
    size_t ntg, tgcap;
    milnor_row_job *jobs;       /* generator by generator; a group's jobs share first_term */
    uint32_t *gen_job;          /* generator g's jobs: jobs[gen_job[g] .. gen_job[g + 1]) */
    size_t njobs, jcap;
    milnor_term *terms;
    uint32_t *term_tg;          /* each term's target (index into tg) */
    size_t nterms, tcap;
    uint64_t pairs;             /* job x term pairs: the mod-4 products */
    pair_elt **ye;              /* per generator: its targets' pair elements with the Y terms
                                 * added (sec_batch_y), or NULL until then */
    int y_planned;              /* the Y terms are in the batch (sec_batch_plan_y) */
    pair_m4_memo *memo;         /* set by the planner: the memo the CPU multiply reads and fills
                                 * (pair_mul_mod4_batch_memo), or NULL */
    const int8_t *planes;       /* set by the planner, kept by it: per generator g, from
                                 * planes[g * PAIR_MAX_K] on, the Y planes its composite keeps
                                 * (pair_sigma_y_visit's lmax: those the elements that will act
                                 * on it see, pair_y_seen), or NULL: every plane */
    /* sec_batch_cut: chunk k is generators chunk_gen[k] .. chunk_gen[k + 1] (jobs likewise), its
     * row rows + row_at[k], twos_at[k] words after it */
    uint32_t nchunks;
    uint32_t *chunk_gen;
    uint64_t *row_at, *twos_at, *chunk_pairs;
    uint64_t *rows;             /* every chunk's row, zeroed */
    const uint64_t **chunk_row; /* filled by the finish's codelet: each chunk's row as it reads it */
    /* while planning one generator (sec_batch_gen_begin .. _end) */
    const freemod *Y;
    uint32_t cur, *first, *dense;
    size_t term0;
    deg_t top;
    uint32_t ndense;
} sec_batch;

/* A batch for the ngens generators of cell (s, T). 0, or -1 out of memory. */
int sec_batch_init(sec_batch *b, const milnor_basis *A, int s, deg_t T, uint32_t ngens);
void sec_batch_clear(sec_batch *b);
/* Planning generator g (in order 0, 1, ...): its targets are generators of Y below degree top. */
int sec_batch_gen_begin(sec_batch *b, uint32_t g, const freemod *Y, deg_t top);
/* The target (w, index) of Y for the generator being planned: an id for sec_batch_group, or
 * -1 when w >= top (a product that would hit a generator). */
int64_t sec_batch_target(sec_batch *b, deg_t w, uint32_t index);
/* A group: times · σ(bs[i])·σ(cs[j]) into target ids[j] (sec_batch_target), for every i < nb,
 * j < nc (|bs[i]| + |cs[j]| = the target's degree; times 1 or 3). 0, or -1 out of memory. */
int sec_batch_group(sec_batch *b, const milnor_elt *bs, uint32_t nb, const milnor_elt *cs, const uint32_t *ids,
                    uint32_t nc, int times);
/* Ends generator g's plan (Y as at gen_begin). 0, or -1 out of memory. */
int sec_batch_gen_end(sec_batch *b, const freemod *Y);
/* Cuts the batch into chunks of about max_pairs pairs (whole generators; chunks without pairs
 * join their neighbour), lays out their rows and sets the terms' columns. 0, or -1 (out of
 * memory, or a row past 2^32 columns). */
int sec_batch_cut(sec_batch *b, uint64_t max_pairs);
/* After sec_batch_gen_end of generator g: its Y terms (pair_sigma_y_visit) as more jobs and
 * terms of the batch, into Y planes (targets with real >= 0) whose ones plane, the product mod
 * 2, the finish adds into the Y part of the target pair element; so the multiply codelet (GPU
 * or CPU) does them beside the mod-4 products. Every generator of a batch, or none. 0, or -1
 * out of memory. */
int sec_batch_plan_y(sec_batch *b, uint32_t g);
/* The Y terms (mod-2 products) of generators g0 .. g1 - 1 into b->ye, which no multiply reads:
 * they may be computed beside it, in parts over the generators. A term a group holds 3 times
 * (a product taken -1 times) gives its Y terms once: they are mod 2. 0, or -1 out of memory. */
int sec_batch_y(sec_batch *b, uint32_t g0, uint32_t g1);
/* Multiplies the whole batch on this thread (one chunk) and points chunk_row at its rows. 0, or -1
 * out of memory. */
int sec_batch_multiply(sec_batch *b);
/* The composites of the cell from the multiplied rows (chunk_row[k], chunk k's row): *out gets
 * one per generator (an array of ngens). Frees b (sec_batch_clear, free) in every case. 0; -1
 * out of memory; -2 a pair element with an odd part left (*bad_gen). */
int sec_batch_finish(sec_batch *b, sec_composite **out, uint32_t *bad_gen);
/* The image of generator g1 (degree u) of a free module X, over Y in degree u - shift (NULL:
 * zero; *bits its length). */
typedef const uint64_t *(*sec_image_fn)(void *ctx, deg_t u, uint32_t g1, uint32_t *bits);
/* The one plan of a cell's products, d2's and a secondary product's or Massey product's: for
 * every term a·g1 of v (vbits bits over X in degree D) and every term b·g2 of img(ctx, g1)
 * (over the batch's Y in degree u - shift), times · σ(a)σ(b) into the target g2 of the
 * generator being planned (one group per g1). A product of two units lands on a generator of
 * the composite's own degree: skipped when skip_units (the caller adds its degree-0 part
 * itself), else -2. 0, or -1 out of memory. */
int sec_add_products(sec_batch *bt, const freemod *X, deg_t D, const uint64_t *v, uint64_t vbits, deg_t shift,
                     sec_image_fn img, void *ctx, int times, int skip_units);
/* sec_image_fn of a differential: ctx is a free module F (const freemod *), the image of g1 is
 * d g1 (its fm_gen's image). */
const uint64_t *sec_image_of_gen(void *F, deg_t u, uint32_t g1, uint32_t *bits);
/* A composite cell's plan that failed with rc (-2: a product hits a generator; else out of
 * memory): bt freed, the failure latched in fail, naming what. NULL. */
sec_batch *sec_plan_failed(sec_batch *bt, int rc, fail_latch *fail, const char *what, int s, deg_t T);
/* A composite cell's finish from bt's multiplied rows into *slot (frees bt); why non-NULL (the
 * multiply failed) or failed: nothing but the freeing and the latch. 0, or -1 (fail says why;
 * what names the composites, odd_why, or NULL, what an odd part means). */
int sec_cell_finish(sec_batch *bt, const char *why, int failed, fail_latch *fail, const char *what,
                    const char *odd_why, sec_composite **slot);
/* Frees the n composites of a cell (NULL: none). */
void sec_composites_free(sec_composite *c, uint32_t n);

#endif
