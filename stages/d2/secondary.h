/* secondary.h — Adams d2 of a resolved region from the secondary Steenrod algebra
 * (algebra/pair_algebra.h), the method of Baues–Jibladze in the form D. Chua gives it
 * (arXiv:2105.07628); docs/secondary.md explains it in our words.
 *
 * Maths. Lift each differential d_s of the minimal resolution to B0 by σ on its Milnor
 * coefficients. σ(d)σ(d) is no longer zero; for a generator g of F_s (s >= 2) in degree T its
 * defect is the COMPOSITE
 *
 *     C(g) = sum over terms b·g' of d g and c·g'' of d g' of σ(b)σ(c)·g''      (g'' in F_{s-2})
 *
 * one finalized pair element per g'' (the odd parts cancel because d∘d = 0). For z in F_s,
 * s >= 3, in degree T, the INTERMEDIATE is the element of F_{s-3} in degree T - 1
 *
 *     I(z) = sum over terms a·g' of d z of A(a, C(g')),
 *
 * and the HOMOTOPY h_s : F_s -> F_{s-2} of degree -1 (h_2 = 0) solves
 *
 *     d h_s(z) = I(z) + h_{s-1}(d z),
 *
 * a lift in the sense of stages/products/lift.h: a map with s0 = 2, internal shift t0 = 1, a zero bottom
 * row and I as its extra term (lift_map.extra), so it runs as the same DAG of steps, with the
 * same stage files (key "d2") and resume. d2 is the dual of h on generators: for x = x_(n,s,i),
 * dual to the generator y_i of F_s in degree t = n + s, the coefficient of x_(n-1, s+2, k) in
 * d2(x) is the coefficient of y_i's unit in h_{s+2}(z_k), z_k the k-th generator of F_{s+2} in
 * degree t + 1 (lift_product_bit). A class is in range when (s, t) and (s+2, t+1) are resolved.
 * A module must allow h_2 = 0 (true for the sphere and, as sseq checks, for C2 and the tmf
 * module); otherwise the lift at s = 3 finds I(z) outside the image of d_1 and the run fails.
 *
 * Data. Composites live in memory per generator, cell (s, T) of the resolution (s >= 2), a list
 * of (g'' = generator (w, index) of F_{s-2}, pair element of degree T - w); they are computed
 * per cell, independently, before the homotopy runs, in three pieces: a PLAN
 * (secondary_composite_plan) reads the differentials and writes every σ(b)σ(c) of the cell as
 * a batch (sec_batch below: its mod-4 products as milnor.h's jobs and terms); the MULTIPLY adds
 * those products into Z/4 rows (pair_mul_mod4_batch, or its GPU kernel, algebra/pair_cuda.h);
 * the FINISH (sec_batch_finish) adds the Y terms (mod-2 products, pair_sigma_y_add_all), takes
 * ones and twos from the rows and keeps the non-zero pair elements.
 *
 * A sec_batch holds, per generator g of the cell, its TARGETS (the g'' that some σ(b)σ(c) hits,
 * in basis order (w, index), each a pair element of degree T - w) and its GROUPS: one job per
 * left factor b, all sharing the group's terms c (each naming its target: term_slot). Chunks
 * (sec_batch_cut) are runs of consecutive generators; a chunk's row is pair_cuda.h's layout:
 * the ones planes of its generators' targets end to end (target k at word `word`), then the
 * twos planes in the same order, twos_at words after the first; a term's column is 64 times
 * its target's word. The rows start at zero, and every job of a chunk adds into the chunk's one
 * row (stride 0). A product taken 3 times (-1 mod 4, a secondary product) is its term 3 times.
 */
#ifndef EXTFLOW_SECONDARY_H
#define EXTFLOW_SECONDARY_H
#include <stdio.h>
#include "algebra/pair_algebra.h"
#include "stages/products/lift.h"

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
                                 * target whose ys[ya][yb] its ones plane is added into */
    int8_t ya, yb;
} sec_target;

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
 * they may be computed beside it, in parts over the generators. 0, or -1 out of memory. */
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
/* Frees the composites of every cell of res's region in comp (per res_cell; NULL: none), and
 * comp itself. */
void sec_composites_free_all(sec_composite **comp, const resolution *res);

typedef struct secondary {
    const resolution *res;
    pair_ay_cache cache;
    sec_composite **comp;       /* per cell res_cell(s, T), s >= 2: ngens(s, T) composites */
    lift_set set;               /* map 0: the homotopy h (key "d2") */
    pthread_mutex_t lock;       /* composites (the count) */
    pthread_mutex_t late_lock;  /* composites computed late, by a homotopy step (secondary.c) */
    fail_latch fail;            /* the first failure: fail.msg says why */
    long composites;            /* generators whose composite was computed */
    int y_in_batch;             /* set by the caller: the composites' Y terms go into their batches
                                 * (sec_batch_plan_y: mod-4 products, seven times as many pairs as
                                 * the σ terms at stem 80, for the GPU); 0 (the default, the faster
                                 * on CPUs and no slower on the H200): batched mod-2 products in
                                 * the finish */
    int intermediates_cpu;      /* set by the caller: the homotopy's intermediate terms I(z) as
                                 * batched products on the step's own worker (its parts); 0 (the
                                 * default): planned as grouped rows of the step's multiply
                                 * (lift_map.extra_plan), on CPU or GPU workers */
    int all_composites;         /* set by the caller: compute every composite, also those whose
                                 * homotopy steps are in the stage files (a secondary product reads
                                 * them) */
    uint64_t mod4_pairs, mod4_pairs_cuda;         /* the composites' mod-4 products, those on CUDA workers */
} secondary;

/* Sets up d2 over res (a complete resolution of S_2 or of a module, over the whole of A):
 * outdir non-empty keeps the homotopy's stage files there. 0; -1 out of memory; -2 when d2 is
 * not for this resolution (a profile's; a finite module for which h_2 = 0 is not valid, by the
 * test sseq uses: no Ext^{2,t+1}, or no Ext^{3,t+1}, at any degree t of the module but its top):
 * error says why. */
int secondary_init(secondary *sec, const resolution *res, const char *outdir, char *error, size_t errlen);
void secondary_clear(secondary *sec);
/* Does the composite of cell (s, T) have to be computed (some homotopy step reads it)? */
int secondary_needs_composite(const secondary *sec, int s, deg_t T);
/* The plan of the composites at (s, T), s >= 2 (a batch, see above; NULL when the cell has no
 * generator or on failure: sec->fail.msg says why). */
sec_batch *secondary_composite_plan(secondary *sec, int s, deg_t T);
/* The finish: the composites of the cell from b's multiplied rows, into sec->comp; frees b.
 * why non-NULL: the multiply failed (why says how), recorded as the run's failure. 0, or -1
 * (sec->fail.msg says why). */
int secondary_composite_finish(secondary *sec, sec_batch *b, const char *why);
int secondary_failed(secondary *sec);

/* The composites of a run (d2's, or a secondary product's) as a chain set (stages/chain.h): one
 * chain of kind composite_kind (family CHAIN_COMPOSITE) per cell (s, T) that needs them, plan
 * (the batch, on a CPU worker) → mod-4 multiply (cl_pair_mul chunks, CPU or GPU) → finish.
 * Cells are independent; a cell is submitted only while few tasks are pending
 * (chain_set.throttle), since a planned batch holds its jobs and terms until its finish
 * (planning all at once raised d2's peak RSS at stem 70 from 50 to 74 MB; chaining each row's
 * cells instead made d2 at stem 110 on the H200 84 s against 59-69 s). The ops are the set's
 * owner, kept by the caller while it runs. */
typedef struct composite_ops {
    const resolution *res;
    void *ctx;                  /* the secondary, or the sec_product */
    int (*needs)(const void *ctx, int s, deg_t T);
    sec_batch *(*plan)(void *ctx, int s, deg_t T);
    int (*finish)(void *ctx, sec_batch *b, const char *why);
    int (*failed)(void *ctx);
    void (*fail)(void *ctx, const char *msg);
    _Atomic uint64_t pairs;     /* mod-4 (job x term) pairs planned */
    const uint8_t *only;        /* non-NULL: the cells computed are those set here (res_cell),
                                 * instead of those needs names */
} composite_ops;
extern const chain_kind composite_kind;
chain_set composite_chain_set(composite_ops *ops);
/* d2 with runner, as one DAG: the composites that the homotopy's steps still to compute read
 * (but those sec->comp holds already: another rank's, secondary_unpack_composites), and those
 * steps, each after its composites. 0, 1 (stopped at the time limit: the homotopy's
 * finished steps are in its stage files) or -1 (secondary_failed). */
int secondary_run(secondary *sec, const chain_runner *runner);

/* The cells whose composites d2 computes (secondary_run) into need (res_cell(s, T), one byte
 * each, s >= 2; rows 0 and 1 untouched): those that a homotopy step still to compute reads,
 * every one under all_composites. */
void secondary_needed(const secondary *sec, uint8_t *need);
/* The composites of the cells set in cells (res_cell), as a chain set of the composite layer
 * alone, into sec->comp: 0, 1 (stopped at the time limit) or -1 (secondary_failed). */
int secondary_run_composites(secondary *sec, const uint8_t *cells, const chain_runner *runner);

/* Composites between processes (d2 under mpirun, tools/extflow.c): the bytes of the cells set
 * in cells that sec->comp holds, in this build's byte order (the ranks run one build on one
 * kind of machine). Per cell: int32 s, int32 T, uint32 ngens; per generator: uint32 n, its
 * term count; per term: int32 w, uint32 index (g'' = generator (w, index) of F_{s-2}), uint32 m,
 * then m uint32 positions (ascending) and the m uint64 words there of the pair element's words
 * (pair_elt.mem, laid out by pair_elt_init for degree T - w), its non-zero ones. 0, or -1 (a
 * write failed). */
int secondary_pack_composites(const secondary *sec, const uint8_t *cells, FILE *out);
/* The composites of such bytes into sec->comp (counted in sec->composites); their cells count
 * as done for secondary_run. 0, or -1 (out of memory, bytes not of that form, or a cell that
 * sec->comp holds already: sec->fail.msg says which). */
int secondary_unpack_composites(secondary *sec, FILE *in);

/* Is d2 of the classes at (s, t) computed (both ends resolved, s >= 1)? */
int secondary_in_range(const secondary *sec, int s, deg_t t);
/* Coefficient of x_(s+2, t+1, k) in d2 x_(s, t, i). */
int secondary_d2_bit(const secondary *sec, int s, deg_t t, uint32_t i, uint32_t k);

/* DIR/d2.csv (schema/d2-csv.md): every class in range, stems in the module's degrees. 0 or -1. */
int secondary_write_csv(FILE *out, const secondary *sec);
/* sseq's `secondary` output for the same region (without its command line). 0 or -1. */
int secondary_write_sseq(FILE *out, const secondary *sec);

#endif
