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
 * a batch (stages/secbatch.h: its mod-4 products as milnor.h's jobs and terms); the MULTIPLY adds
 * those products into Z/4 rows (pair_mul_mod4_batch, or its GPU kernel, algebra/pair_cuda.h);
 * the FINISH (sec_batch_finish) adds the Y terms (mod-2 products, one batch per generator), takes
 * ones and twos from the rows and keeps the non-zero pair elements. Unless all_composites, a
 * generator's composite has only what the homotopy reads (planes, below): no Y plane that no
 * action A(a, -) of its reading steps can see, nothing when no step reads it.
 */
#ifndef EXTFLOW_SECONDARY_H
#define EXTFLOW_SECONDARY_H
#include <stdio.h>
#include "algebra/pair_algebra.h"
#include "stages/products/lift.h"
#include "stages/secbatch.h"

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
    int y_in_batch;             /* set by the caller: the composites' Y terms (also those of the
                                 * secondary products and Massey products over sec) go into their batches
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
                                 * them), each whole */
    int8_t **planes;            /* per cell res_cell(s, T), s >= 2, per generator g, from
                                 * [g * PAIR_MAX_K] on: the Y planes that the terms a·g of d z
                                 * see (pair_y_seen), over the z of every homotopy step in the
                                 * region; [g * PAIR_MAX_K] < 0: no such term (secondary_init).
                                 * Unless all_composites, g's composite keeps only those planes,
                                 * and is empty when no step reads it */
    int8_t **planes_all;        /* under all_composites, when set: the planes every reader sees
                                 * (the same over every z, raised to every plane that an element of
                                 * degree up to (the largest stem) - (g's stem) sees: what any chain
                                 * map of stem >= 0 of the resolution into itself reads,
                                 * secondary_bound_composites; or what the readers' own terms see,
                                 * sec_massey_plan_d2), a generator no reader has a term on left
                                 * empty; NULL: every plane of every generator */
    uint64_t mod4_pairs, mod4_pairs_cuda;         /* the composites' mod-4 products, those on CUDA workers */
    pair_m4_memo *m4memo;       /* the mod-4 products of basis pairs met so far (CPU multiplies), shared
                                 * by every composite planned over this secondary (d2's, a secondary
                                 * product's or Massey product's); NULL: none */
} secondary;

/* The memo's default budget (secondary_init; the commands lower it to a quarter of a --memory
 * budget, tools/resolved.h): 1 GiB; d2 through stem 80, s <= 35 holds its ~1.5M distinct products
 * in 102 MB. */
#define SECONDARY_MEMO_BYTES ((size_t)1 << 30)

/* The homotopy over sseq's preimages (any_preimage off), with the full quasi-inverse of each
 * d_i it solves kept (preimage_cache_keep_qis, up to SECONDARY_QI_BYTES) for the lifts of a
 * secondary product or Massey product, which share sec->set's preimage cache and solve the
 * same d_i again: one quasi-inverse then serves every lift, where each solve rebuilt d_i's
 * matrix and reduced it; qi_bytes the budget (0: none kept; out of memory: none kept, the solves
 * as before). */
void secondary_sseq_preimages(secondary *sec, uint64_t qi_bytes);
/* The quasi-inverses' default budget (the commands lower it to a quarter of a --memory budget,
 * tools/resolved.h): 512 MiB; massey --secondary through stem 70, s <= 12 keeps about 150 MB. */
#define SECONDARY_QI_BYTES ((uint64_t)512 << 20)

/* Sets up d2 over res (a complete resolution of S_2 or of a module, over the whole of A):
 * outdir non-empty keeps the homotopy's stage files there. 0; -1 out of memory; -2 when d2 is
 * not for this resolution (a profile's; a finite module for which h_2 = 0 is not valid, by the
 * test sseq uses: no Ext^{2,t+1}, or no Ext^{3,t+1}, at any degree t of the module but its top):
 * error says why. */
int secondary_init(secondary *sec, const resolution *res, const char *outdir, char *error, size_t errlen);
void secondary_clear(secondary *sec);
/* The memo's budget in bytes (0: no memo; what it holds is dropped). 0, or -1 out of memory. */
int secondary_set_memo(secondary *sec, size_t bytes);
/* Under all_composites, when every reader of the composites other than d2's homotopy is a
 * term a·g' of φ z, z a generator of this resolution and φ a map of it into itself of stem >= 0
 * (φ: F_S -> F_{S-σ} of degree τ >= σ: a chain map of a class of S_2, or a Massey product's
 * null-homotopy): their |a| = |z| - τ - |g'| <= (the largest stem) - (g''s stem), so each
 * composite keeps the Y planes that d's terms and such elements see (planes_all). 0, or -1 out
 * of memory. */
int secondary_bound_composites(secondary *sec);
/* Per cell res_cell(s, T) (all s), per generator g, PAIR_MAX_K bytes from [g * PAIR_MAX_K]: the Y
 * planes the coefficients a of the terms a·g of d z see (pair_y_seen's lmax; [g * PAIR_MAX_K]
 * < 0: no term on g), over the generators z of F_S in degree T with reads(ctx, S, T) (reads
 * NULL: every z). NULL out of memory. */
int8_t **sec_planes_of_d(const resolution *res, int (*reads)(const void *, int, deg_t), const void *ctx);
/* Such planes with nothing read yet (every byte -1). NULL out of memory. */
int8_t **sec_planes_new(const resolution *res);
/* Marks read, and raises to what they see, the generators g1 of F_j on which v (vbits bits over
 * F_j in degree D: generators below D in basis order, a block of dim A_{D-|g1|} bits each, then
 * D's own, left out: a unit acts on no composite) has terms: a map's value φ(z) whose terms a·g1
 * act on the composites at row j. */
void sec_planes_add_row(int8_t **planes, const resolution *res, int j, deg_t D, const uint64_t *v, uint64_t vbits);
/* Raises every generator's planes to those that an element of degree up to (the largest stem of
 * a generator) - (g's stem) sees (2^l - 2^k at most that: pair_y_seen's bound), all marked read. */
void sec_planes_raise_stem(int8_t **planes, const resolution *res);
/* Raises the n generators' planes at p (a cell's) to those an element of degree up to reach sees,
 * all marked read (none when reach < 1). */
void sec_planes_raise_reach(int8_t *p, uint32_t n, deg_t reach);
/* Does d2's homotopy step on z at (S, T) (target (S - 2, T - 1)) lie in the region: does it read
 * the composites through d z (sec->planes' z)? */
int secondary_step_reads(const void *sec, int S, deg_t T);
void sec_planes_free(int8_t **planes, const resolution *res);
/* Does the composite of cell (s, T) have to be computed (some homotopy step reads it; under
 * all_composites, any step in the stage files too, or any reader planes_all knows of)? */
int secondary_needs_composite(const secondary *sec, int s, deg_t T);
/* The plan of the composites at (s, T), s >= 2 (a batch, see above; NULL when the cell has no
 * generator or on failure: sec->fail.msg says why). */
sec_batch *secondary_composite_plan(secondary *sec, int s, deg_t T);
/* The finish: the composites of the cell from b's multiplied rows, into sec->comp; frees b.
 * why non-NULL: the multiply failed (why says how), recorded as the run's failure. 0, or -1
 * (sec->fail.msg says why). */
int secondary_composite_finish(secondary *sec, sec_batch *b, const char *why);
int secondary_failed(secondary *sec);
/* A planned intermediate's A(a, C) (a the sum of the basis elements a[0..na) of one degree, C a
 * composite over Yt in degree ydeg) into a lift step's share (stages/products/lift.h): C's term
 * lists named by (C, kind, Yt, ydeg), each kept once per step; es, eoff, ecap: scratch arrays
 * the caller frees. 0, or -1 out of memory. */
int sec_plan_action(secondary *sec, const sec_composite *c, const milnor_elt *a, uint32_t na, const freemod *Yt,
                    deg_t ydeg, const pair_elt ***es, uint64_t **eoff, uint32_t *ecap, lift_share *share);

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
