/* lift.h — chain maps between two resolutions by lifting, and the products in Ext they give.
 *
 * Maths (docs/products.md). A class x of Ext^{s0,t0} (a vector over the generators of F_{s0}
 * in degree t0, since a minimal resolution's cochains have zero differential) lifts to a chain
 * map of internal degree t0
 *
 *     f_i : F_{s0+i} -> F_i        d ∘ f_i = f_{i-1} ∘ d,   f_0(z_k) = x_k·ι at degree t0
 *
 * from the source resolution to the target one: both S_2's for products in Ext(F2, F2), or a
 * module M's resolution into S_2's (the unit) for the action of Ext(F2, F2) on Ext(M, F2):
 * then x is a class of Ext(M, F2), f_0 sends M's generators to multiples of S_2's ι, and the
 * products read off are y·x for y in Ext(F2, F2), vectors over M's generators. f_i is A-linear, so it is stored, like a
 * differential, as the image of each generator. On a generator z of F_{s0+i}, i >= 1, of degree
 * T = t + t0:   y = f_{i-1}(d z)  (for each term Sq(S)·g' of d z, the product Sq(S)·f(g'), the
 * same Milnor products as a row of a differential's matrix), then f_i(z) = QI(y), a preimage
 * of y under d_i : F_{i,t} -> F_{i-1,t}. y is in the image because the target is exact and
 * d y = f(d d z) = 0; a y outside it is an internal error (the step fails, naming (i, t)).
 * Any preimage gives the same products, so the preimages are recomputed here from the stored
 * differentials, for the standard and the Nassau resolutions alike, all the y of a step at
 * once, and none where every y is zero (f(z) = 0 is then a preimage): in a set that takes any
 * preimage (lift_set.any_preimage: products, Massey products) first through Nassau's
 * signature blocks (preimage_by_signature, stages/products/preimage.h: level by level in the signature
 * degree, through quasi-inverses of zero-signature blocks of d_i at lower degrees, kept in
 * the set's preimage_cache for its later steps; only the rows of d_i at the lifts' bits are
 * multiplied), and where that does not apply (a module Nassau does not handle, the trivial
 * subalgebra at small t, a residual left) by one RREF of [D^T | Y^T] over the whole matrix of
 * d_i (preimage_solve, sseq's preimage). preimage_qi_compute builds a quasi-inverse that gives
 * the same preimage for any later y (the row operations of [D^T | I] reduced over D^T's
 * columns: docs/algorithms.md §3.4), which the lift sets over one resolution keep
 * (preimage_solve_cached; bench/qi_bench measures it against one solve).
 *
 * Products. For y_j dual to the j-th generator of F_i in degree t, x·y_j evaluated on the
 * generator z of F_{s0+i} in degree t + t0 is the coefficient of y_j's unit in f_i(z)
 * (lift_product_bit): one chain map gives x times every class of the target at once.
 *
 * Batches and the DAG. A lift_set holds several maps over the same pair of resolutions. Its
 * unit of work is a TARGET bidegree (i, t) (lift_step): for every map whose source bidegree
 * (s0+i, t+t0) is resolved, f_i on the generators there, all sharing one solve of d_i at (i, t). Step (i, t) reads f_{i-1} at target degrees < t only, so it needs the steps
 * (i-1, t-1) and (i, t-1) (the second only to chain row i-1's prefix): each step is a chain
 * (stages/chain.h, lift_chain_set below) plan → multiply → finish, whose multiply is the
 * multiply codelet's (CPU or GPU) where the rows are large. A homotopy (Massey products) is a map whose y gets an extra term before the QI:
 * lift_map.extra.
 *
 * Maps of modules. A map φ : M -> N of A-modules (an Ext^0 class of Ext(M, N)) lifts the same
 * way from M's resolution to N's, the bottom row by preimages under N's augmentation
 * (f_0(z) with ε_N f_0(z) = φ ε_M(z), preimage_solve at i = 0): lift_add_module_map. The
 * products read off are then y ∘ f for the classes y of Ext(N, F2): the induced map
 * Ext(N, F2) -> Ext(M, F2).
 *
 * Layout. Per map, per target cell (i, t) (index lift_cell: i x (target max_n + 1) + t - i), an
 * f2mat whose row k is f_i of the k-th generator of source F_{s0+i} in degree t + t0, over the
 * basis of target F_i in degree t on generators of degree <= t (the generators' units last),
 * i.e. freemod_dim(F_i, t, t + 1) columns. Cells are written by their step only.
 *
 * Odd primes. Over resolutions at an odd prime p (both at the same p, over the same algebra A_p
 * or profile B) the maps are the same chain maps over F_p: a class is a vector of coefficients
 * 0..p-1, f_0(z_k) = x_k·ι, f_i(z) = a preimage of f_{i-1}(d z) under d_i, and <x·y_j, z_k> is
 * the coefficient (0..p-1) of y_j's unit in f_i(z_k) (lift_product_coef), with no sign: d ∘ f =
 * f ∘ d on the nose. The step is the same one (lift_step_plan, lift_step_finish: the cells and
 * the y are fieldmats, algebra/fieldmat.h, over the set's field; the stage files version 2,
 * entries mod p), with the same chain kind: the plan's rows of f(d z) are the odd-p multiply's
 * jobs (stages/rowbuild_p.h, the form a standard step's rows take at odd p), which the multiply
 * codelet at odd p (cl_milnor_mul_p, on CPU or CUDA workers) fills over A_p, or the plan's
 * worker over a profile's B (whose elements the codelet cannot index); the finish adds each
 * map's rows times the entries of d z. Only the solve is the prime's own: preimage_solve_p
 * (stages/products/preimage.h), the RREF of [D | 0 | I] over F_p, D the matrix of d_i on the
 * whole of F_{i,t}. A null-homotopy (Massey products) is a map with an extra term, as at
 * p = 2 (lift_map.extra): y = F(z) − h(d z), the sign that makes d h + h d = F over F_p. A map of modules' bottom row
 * (lift_map.bottom) is solved there too, D then the augmentation's matrix on F_{0,t} over N_t;
 * over unstable resolutions (resolve --unstable at odd p) the products land over A_p's whole
 * blocks and are narrowed to the excess-kept columns, as D is (freemod_narrow_p).
 *
 * Stage files (schema/stage-files.md, kind "lift"): one per map and source bidegree with at
 * least one generator and a non-zero target, DIR/stages/lift/<key>/<s>_<T>.zst, key =
 * "<n0>_<s0>_<hex of the class vector>" (over 256 coordinates "<n0>_<s0>_h<FNV-1a 64 of
 * them>"); aux = lift_key_hash(key). A step first loads its
 * valid files (resume), names a damaged one on stderr and recomputes it. Files are renamed into
 * place complete but not synced (a cache whose damage the reader detects: write_cell).
 */
#ifndef EXTFLOW_LIFT_H
#define EXTFLOW_LIFT_H
#include <pthread.h>
#include <stdint.h>
#include "algebra/f2mat.h"
#include "algebra/fieldmat.h"
#include "algebra/latch.h"
#include "stages/chain.h"
#include "stages/products/preimage.h"
#include "stages/resolve/resolution.h"
#include "stages/rowbuild.h"
#include "stages/rowbuild_p.h"

/* Optional inhomogeneous term of a map, at every prime: the map is a null-homotopy h of the chain
 * map F that extra adds, y = F(z) − h_{i-1}(d z) before the solve, so that d h + h d = F (at
 * p = 2 no sign: y ^= F(z)). extra adds F(z) for the generator z (index k) of source F_{s0+i} in
 * degree t + t0 into y, a row over the set's field (uint64_t words at p = 2, bytes 0..p-1 at odd
 * p) of freemod_dim(F_{i-1}, t, t) entries (F(z) is a boundary, so it has no component on the
 * generators of degree t; a callback that can tell checks that). 0, or -1 to fail the step. */
typedef int (*lift_extra_fn)(void *ctx, int i, deg_t t, uint32_t k, void *y);

/* Shared extras (lift_share.c). A planned extra term (lift_map.extra_plan) is a sum of jobs,
 * each the products of a left factor Sq(R) with a list of terms (algebra/milnor.h's jobs and
 * terms); d2's A(a, C(g')) is such a sum (algebra/pair_algebra.h, pair_a_plan_lists), with
 * one list per kind of term of C(g'). The generators of one step repeat jobs (the h z terms of
 * a Massey homotopy's extra), so the step keeps each list once and each job once: a list is
 * named by a key (d2: the composite, the kind, the target module and degree), and
 * lift_share_list says whether the step has it (else its terms follow through
 * lift_share_terms, straight into the step's row_build); lift_share_job adds a job over it to
 * the current generator's extra. After every generator, lift_share_emit puts the jobs into the
 * build's grouped rows: each generator's own (the jobs only it uses), and one row for each set
 * of two or more generators that use the same jobs (where it pays, at most one such row per
 * generator; the others' jobs go to each user's own), every row's jobs reading the one copy of
 * their lists' terms; a job a generator uses twice cancels (the sum is mod 2). Each generator's
 * extra is then the XOR of its grouped rows: the same bits as one row per generator. A step of
 * one generator shares nothing: its jobs go straight into its rows. */
#define LIFT_SHARE_KEY 4
typedef struct lift_share lift_share;
/* For a step of ngen generators with extras, whose rows b holds (its single rows all there). */
lift_share *lift_share_new(row_build *b, uint32_t ngen);
void lift_share_free(lift_share *share);
/* The generator (of the step's rows) whose jobs come next. */
void lift_share_gen(lift_share *share, uint32_t k);
/* The list named key[0..LIFT_SHARE_KEY): *list its number; 1 the step has it, 0 its terms are
 * to follow now (lift_share_terms, before the next list), -1 out of memory. */
int lift_share_list(lift_share *share, const uint64_t key[LIFT_SHARE_KEY], uint32_t *list);
const milnor_sink *lift_share_terms(lift_share *share);
/* Sq(R) (degree r_deg, index r_idx) times list's terms: a summand of the current generator's
 * extra. 0, or -1 out of memory. */
int lift_share_job(lift_share *share, uint32_t list, uint32_t r_deg, uint32_t r_idx);
/* The jobs as grouped rows of b (after its single rows), cut every LIFT_GROUP_PAIRS pairs;
 * generator k's extra is the XOR of b's grouped rows list[offs[k] .. offs[k+1]) (both
 * malloc'd, offs ngen + 2 entries). *read += the pairs of every use, *kept += the pairs planned.
 * 0, or -1 out of memory. */
int lift_share_emit(lift_share *share, uint32_t **offs, uint32_t **list, uint64_t *read, uint64_t *kept);

typedef struct lift_map {
    int s0;
    deg_t t0;                   /* f_i : F_{s0+i} -> F_i raises no degree: internal shift t0 */
    uint32_t nclass;            /* the class: coords[0..nclass) over the generators at (s0, t0) */
    uint8_t *coords;
    char key[160];              /* stage-file directory: "<n0>_<s0>_<hex>" (or a caller's key) */
    int max_i;                  /* steps only for i <= max_i (INT_MAX unless the caller lowers
                                 * it: a Massey product needs a few levels of a map) */
    lift_extra_fn extra;        /* NULL for a plain lift */
    void *extra_ctx;
    /* NULL, or the extra term as Milnor products (set by the caller after lift_add_map): the
     * jobs whose products XOR to extra(z_k), columns over y's bits, given to share (above:
     * each list and job kept once per step); the step plans them as grouped rows of its
     * row_build (stages/rowbuild.h), so the multiply codelet computes them with f(d z), on CPU
     * or GPU workers. 0, or -1 to fail the step. p = 2 only (d2's homotopy; with extra_rest,
     * the intermediates of secondary products and Massey products). */
    int (*extra_plan)(void *extra_ctx, int i, deg_t t, uint32_t k, lift_share *share);
    /* NULL: extra_plan is the whole extra term (extra is then not called). Else, with
     * extra_plan, the rest of it, added into y as extra would be (the step's parallel parts,
     * or its finish): the extra term is extra_plan's products plus extra_rest's. */
    lift_extra_fn extra_rest;
    int (*in_region)(void *extra_ctx, int i, deg_t t);   /* NULL, or a further condition on the
                                 * steps (i, t) of this map (what its extra term reads must exist);
                                 * it must hold at (i-1, t-1) and (i, t-1) where it holds at (i, t) */
    /* NULL for a class; else (lift_add_module_map) s0 = 0 and the bottom row is a cocycle with
     * values in the target's module N: bottom(bottom_ctx, t, k, Y) sets row k of Y (over the
     * set's field, res_module_dim(tgt, t) entries, zeroed by the caller) to its value on the k-th
     * generator of source F_0 in degree t + t0, and f_0 of that generator is a preimage of it
     * under N's augmentation F_0 -> N (a map of modules M -> N, composed with M's augmentation;
     * at every prime). 0, or -1 to fail the step. */
    int (*bottom)(void *bottom_ctx, deg_t t, uint32_t k, fieldmat *Y);
    void *bottom_ctx;
    fieldmat *val;              /* per target cell, over the set's field (val[c].f2 at p = 2,
                                 * val[c].fp at odd p); no rows until the step has run */
    uint8_t *have;              /* per target cell: 1 the step has set val; 2 (before the step)
                                 * a stage file is there to load */
} lift_map;

typedef struct lift_set {
    const resolution *src, *tgt;
    uint32_t prime;             /* tgt->prime: 2, or the odd prime of both resolutions */
    int nmaps;
    lift_map *maps;
    size_t ncells;              /* (tgt->max_s + 1) x (tgt->max_n + 1) */
    char outdir[4096];          /* "" : no stage files */
    pthread_mutex_t lock;       /* the statistics below */
    fail_latch fail;            /* the first failure (lift_fail): fail.msg says why */
    long loaded, computed, damaged, qis;   /* statistics: non-zero cells loaded / computed, files
                                         * found bad, solves of d_i (either way) */
    double qi_seconds;          /* wall time spent solving (all threads added) */
    long qis_by_signature;      /* of the solves, those done by preimage_by_signature */
    preimage_cache *preimage_cache;     /* zero-signature blocks' quasi-inverses
                                         * (stages/products/preimage.h), shared by the steps */
    int any_preimage;           /* set by the caller before the run: 1, any preimage will do
                                 * (products, Massey products): solve through signature blocks
                                 * where they apply (preimage_by_signature), files with their own
                                 * aux; 0 (lift_set_init's default): preimage_solve's, sseq's
                                 * preimage, whose homotopies secondary products read */
    int timing;                 /* set by the caller: measure the next three */
    double cpu_products, cpu_solves, cpu_files;   /* thread CPU seconds in f(d z), the solves,
                                         * the stage files (load and write); f(d z) counts the
                                         * plan, the combination and the multiply done inline,
                                         * not the multiply codelet's chunks */
    uint64_t pairs, pairs_inline;       /* (job x term) pairs of f(d z), and those multiplied
                                         * inside the step's own task (lift_plan_multiply) */
    uint64_t extra_read, extra_kept;    /* planned extras' pairs: as every generator uses them,
                                         * and as planned once per step (lift_share) */
    uint64_t pairs_cuda;                /* those the multiply codelet did on CUDA workers (set
                                         * by the products command; the rest went to CPU workers) */
} lift_set;

/* A set over src -> tgt (both kept by the caller), free over the same algebra (A, or one
 * profile's B: a term Sq(S)·g' of d z is multiplied by f(g') in tgt's basis, so src's index of
 * Sq(S) must be tgt's; the command line refuses other pairs; at an odd prime both at that
 * prime). outdir non-empty: stage files are read and written there. 0, or -1 out of memory (or
 * resolutions at two primes). */
int lift_set_init(lift_set *set, const resolution *src, const resolution *tgt, const char *outdir);
void lift_set_clear(lift_set *set);
/* set (no step run yet) solves through from's preimage cache from now on, so that sets lifting
 * into the same target one after the other (massey's) reuse its zero-signature quasi-inverses.
 * 0, or -1 when the targets differ or from has no cache (nothing changes then). */
int lift_set_share_preimages(lift_set *set, const lift_set *from);
/* Adds the lift of the class coords[0..n) at (s0, t0) (n = generators there); returns its index,
 * or -1 (out of memory, or n does not match). */
int lift_add_class(lift_set *set, int s0, deg_t t0, const uint8_t *coords, uint32_t n);
/* (At an odd prime the coordinates are 0..p-1 and the key's vector one hex digit per
 * coordinate, p <= 13 and at most 128 coordinates, else "h" and the FNV-1a 64 of them.) */
/* The general form (Massey products' homotopies): a map whose bottom row is coords as above
 * (all zero for a homotopy) and whose every y gets extra(...) added (NULL: none); key names its
 * stage-file directory (NULL: the class's, as lift_add_class; else at most 127 characters, no
 * '/', not starting with '.'), so give each map that is not a plain class lift a key of its own. */
int lift_add_map(lift_set *set, int s0, deg_t t0, const uint8_t *coords, uint32_t n, const char *key,
                 lift_extra_fn extra, void *extra_ctx);
/* A chain map lifting a map of modules M -> N (src resolves M, tgt N) whose bottom row is given
 * by bottom (lift_map.bottom), of internal degree t0 (a generator of source F_i in degree T goes
 * to target degree T - t0); key as for lift_add_map (required). Its index, or -1. */
int lift_add_module_map(lift_set *set, deg_t t0, const char *key, int (*bottom)(void *, deg_t, uint32_t, fieldmat *),
                        void *bottom_ctx);
/* FNV-1a 32 of a map's key. */
uint32_t lift_key_hash(const char *key);
/* The aux field of map f's stage files: lift_key_hash(key) when source and target are the same
 * resolution's module; otherwise the same hash continued over ">%016llx:%d" (the target's
 * module_id and algorithm), so a lift into S_2 is never read as one into another module. The
 * header's module_id and algorithm are the source's (the directory's resolution). */
uint32_t lift_file_aux(const lift_set *set, const lift_map *f);
/* (A set with any_preimage writes that hash continued over ":any" instead, and reads both; a
 * set without reads only lift_file_aux's, recomputing over the other kind silently.) */
static inline size_t lift_cell(const lift_set *set, int i, deg_t t)
{ return (size_t)i * ((size_t)set->tgt->max_n + 1) + (size_t)(t - i); }
/* Does map m have a step at target (i, t): source (s0+i, t+t0) and target (i, t) resolved? */
int lift_map_in_region(const lift_set *set, int m, int i, deg_t t);
/* Does any map have a step at (i, t)? */
int lift_in_region(const lift_set *set, int i, deg_t t);
/* Target bidegrees a step (i, t) depends on (each in the set's region), up to 2. */
int lift_deps(const lift_set *set, int i, deg_t t, int dep_i[2], deg_t dep_t[2]);

/* A step in pieces, as a chain runs it (plan → multiply → finish, like a resolution's step). Plan loads what a previous run left, sets the bottom row, and for every
 * other map computing here puts the Milnor products of f_{i-1}(d z) for all its generators z
 * into one build of rows shared by the maps (b at p = 2, bp at odd p: one row per distinct basis
 * element Sq(S)·g' of some d z, the row Sq(S)·f(g') over target F_{i-1} in degree t, on
 * generators of degree < t); the multiply fills them (lift_plan_multiply here, or the multiply
 * codelet's chunks); finish adds each map's rows into its y (the rows of the entries of d z,
 * each times its entry: at p = 2 an XOR), adds the extra terms, solves d_i once for all the y,
 * writes the files and frees the plan. */
typedef struct lift_plan_map {
    int todo;                   /* computed at this step (not loaded, in region) */
    fieldmat V;                 /* rows d z_k over source F_{s0+i-1} in degree t + t0 (i >= 1) */
    int32_t *job_of;            /* per column of V: its row of the step's rows, or -1 (f(g') = 0) */
    fieldmat Y;                 /* rows y_k over the set's field, freemod_dim(F_{i-1}, t, t) entries */
    fieldmat E;                 /* split extras (lift_plan.split): rows extra(z_k), as Y */
    uint32_t *groups;           /* extra_plan: extra(z_k) is the XOR of b's grouped rows
                                 * glist[groups[k] .. groups[k + 1]) (lift_share_emit) */
    uint32_t *glist;
} lift_plan_map;
typedef struct lift_plan {
    row_build b;                /* p = 2: the rows of f(d z) (and planned extras) */
    row_build_p bp;             /* odd p: the rows of f(d z), over Dp (bp.D = &Dp) */
    fpmat Dp;
    lift_plan_map *maps;        /* per map of the set */
    double cpu;                 /* thread CPU seconds of the plan (set->timing) */
    uint32_t extra_rows;        /* generators whose y gets an extra term, over all maps */
    int split;                  /* their extras went to E in parallel parts (lift_step_part) */
} lift_plan;
/* 0, or -1 after lift_fail (finish must still run: it frees p). */
int lift_step_plan(lift_set *set, int i, deg_t t, lift_plan *p);
/* Fills the step's rows on this thread (milnor_mul_batch, or at odd p milnor_p_mul_batch over
 * A_p, milnor_p_sub_mul_into over a profile's B, where a product outside B fails the set). */
void lift_plan_multiply(lift_set *set, int i, deg_t t, lift_plan *p);
/* The extra terms in parts, beside the multiply (the kind's chain parts): how many parts a
 * planned step's extras make (0: they are added in the finish, one generator after another:
 * few of them, or an odd prime, whose Massey homotopies' extras cost less than their tasks:
 * massey S_3 --a h0 --b h0 at stem 80, callgrind with STARPU_NCPU=1, 605.6 M instructions
 * in parts against 567.8 M in the finish), and part k of n (the generators k n'th of the way
 * along). 0, or -1 after lift_fail. */
uint32_t lift_step_parts(const lift_set *set, lift_plan *p);
int lift_step_part(lift_set *set, int i, deg_t t, lift_plan *p, uint32_t k, uint32_t n);
/* 0, or -1 after lift_fail; p is cleared either way. */
int lift_step_finish(lift_set *set, int i, deg_t t, lift_plan *p);
/* Frees what a plan holds and zeroes it (the kind's clear; finish calls it itself). */
void lift_plan_clear(lift_set *set, lift_plan *p);

/* The steps as a chain set (stages/chain.h; in stages/products/lift_chain.c, above lift.c):
 * one chain of kind lift_step_kind (family CHAIN_LIFT) at every prime per
 * target bidegree where some map has a step, after (i-1, t-1) and (i, t-1) (lift_deps); plan →
 * [multiply] → finish with the pieces above; a small step multiplies and finishes in its plan's
 * task. Its context is a lift_step_ctx. The set is kept by the caller while it runs. */
typedef struct lift_step_ctx {
    chain ch;                   /* s = i, t; rows = plan.b (p = 2) or plan.bp (odd p) */
    lift_plan plan;
} lift_step_ctx;
extern const chain_kind lift_step_kind;
chain_set lift_chain_set(lift_set *set);
/* Runs every step of the set with runner; 0, 1 (stopped at the time limit: what finished is in
 * the stage files) or -1 (set->fail.msg says why). */
int lift_run(lift_set *set, const chain_runner *runner);
/* Before a run: does step (i, t) have a map to compute (a generator, a non-zero target, no stage
 * file to load)? */
int lift_step_pending(const lift_set *set, int i, deg_t t);
/* Where the set's cache keeps d_i's quasi-inverses (preimage_cache_keep_qis): does step (i, t)
 * solve through one (a pending step at p = 2, i >= 1, sseq's preimage)? Then
 * lift_step_prepare builds it ahead, in a task of its own (lift_step_kind.prepare), so that
 * the step's finish finds it ready instead of building it on the critical path. */
int lift_step_to_prepare(const lift_set *set, int i, deg_t t);
void lift_step_prepare(lift_set *set, int i, deg_t t);
/* Predicted peak bytes of step (i, t) (the rows of f(d z), the y, the solve) for --memory. */
uint64_t lift_step_footprint(const lift_set *set, int i, deg_t t);
void lift_fail(lift_set *set, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int lift_failed(lift_set *set);
/* 0, or -1 when a step has failed (set->fail.msg says why). */
int lift_flush(lift_set *set);

/* Y's row k = f_j(v_k) for map f, v_k = V's row k: an element of source F_{s0+j} in degree T
 * over the first V->cols elements of its basis (generators in order, each with its block of
 * Milnor elements). The result is over target F_j in degree T - t0 on its first Y->cols basis
 * elements (Y initialised by the caller, zero; a term past them fails the set): f_j(Sq(S)·g) =
 * Sq(S)·f_j(g), so the cells of f at target (j, u - t0) for the generators' degrees u <= T must
 * have been computed. 0, or -1 after lift_fail. */
int lift_apply(lift_set *set, const lift_map *f, int j, deg_t T, const fieldmat *V, fieldmat *Y);

/* Coefficient of the unit of target generator j at (i, t) in f_i(source generator k at
 * (s0+i, t+t0)) of map m: <x·y_j, z_k>. The step must have run (0 otherwise). p = 2 only. */
int lift_product_bit(const lift_set *set, int m, int i, deg_t t, uint32_t j, uint32_t k);
/* The same at any prime: the coefficient 0..p-1. */
uint32_t lift_product_coef(const lift_set *set, int m, int i, deg_t t, uint32_t j, uint32_t k);

#endif
