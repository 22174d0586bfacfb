/* resolution.h — the resolution's core: the state of a minimal resolution of the sphere
 * S_2 = F2 (or of a finite module M, res_set_module) over A, and what every step shares:
 * publishing a bidegree's new generators, queueing and flushing stage files, loading them on
 * resume.
 *
 * Maths (docs/algorithms.md §4). F_s → F_{s-1} → ... → F_0 → M with F_s free. The step at
 * bidegree (s, t) adds the new generators of F_s in degree t, each given by its image d(g) in
 * F_{s-1,t}; the resolution is minimal, so dim Ext^{s,t} = the number of new generators. The
 * steps are the standard one (stages/resolve/standard.h) and Nassau's (stages/resolve/nassau.h), chosen per
 * row behind stages/resolve/step.h; both depend on this core only, and publish through res_publish.
 *
 * Layout. F[s] holds the generators of F_s by degree (algebra/freemod.h: each one's image over
 * the basis of F_{s-1} in its degree, on generators of lower degree). The per-bidegree arrays
 * (done, the kernel slots a step hands to the next row, the journal's marks) have one cell
 * per (s, n = t - s) of the region, res_cell(s, t). A step's work travels through its pieces in
 * a step_ctx. Stage files (schema/stage-files.md) are encoded here and queued to the
 * committer (stages/store/stagecommit.h), which makes them durable at res_flush_stages.
 *
 * Odd primes (stages/resolve/resolution_p.h, docs/algorithms.md §11): a module file with "p": 3, 5, ...
 * makes res_set_module set prime and res->odd (the algebra A_p or its profile's B, and the
 * kernel slots over F_p); the free modules' blocks are then B's basis, images byte vectors
 * (freemod.h), stage files version 2 (schema/stage-files.md), and the steps those of
 * stages/resolve/standard_p.h. Everything else in this header is the same at every prime.
 *
 * Unstable (resolve --unstable, docs/unstable.md): res_set_unstable makes every F_s a sum of
 * free unstable modules (algebra/freemod.h's ex: blocks truncated by excess, algebra/excess.h);
 * the module id changes with it, so the stage files of a stable and an unstable resolution
 * never mix. Only the standard step at p = 2 over the whole of A runs so (no lookahead).
 *
 * --keep-stages: the steps hand the matrix they reduce and its kernel to res_keep_stage, which
 * passes them to the hook stages/resolve/keepstages.h installs in res->keep (save them as stage files,
 * or compare them with the files there); the core never calls keepstages.c.
 */
#ifndef EXTFLOW_RESOLUTION_H
#define EXTFLOW_RESOLUTION_H
#include <pthread.h>
#include <stdint.h>
#include "algebra/f2mat.h"
#include "algebra/fdmodule.h"
#include "algebra/fpmat.h"
#include "algebra/freemod.h"
#include "algebra/milnor.h"
#include "stages/chain.h"
#include "stages/rowbuild.h"
#include "stages/rowbuild_p.h"
#include "stages/store/stagecommit.h"

enum region_kind { REGION_STEM = 0, REGION_RECT = 1 };
struct resolution;
/* What --keep-stages does with the matrix m of kind STAGE_MATRIX or STAGE_KERNEL a step has at
 * (s, t) (stages/resolve/keepstages.h installs it); 0, or -1 after res_fail. */
typedef int res_keep_fn(struct resolution *res, int kind, int s, deg_t t, const f2mat *m);
/* The module resolved; module_id = stage_hash64 of this definition. */
#define RES_MODULE_S2 "S_2 {\"p\":2,\"gens\":{\"x0\":0},\"actions\":[]}"

typedef struct resolution {
    milnor_basis A;
    int max_s;                  /* s = 0..max_s */
    deg_t max_t;                /* largest internal degree touched (edge kernels included) */
    deg_t max_n;                /* largest stem t - s touched (edge kernels included) */
    int region;                 /* REGION_STEM: t - s <= stem; REGION_RECT: t <= rect_t */
    int stem;
    deg_t rect_t;
    freemod *F;                 /* F[0..max_s] */
    /* per-bidegree arrays, cell res_cell(s, t) = s * (max_n + 1) + t - s: sized by the
     * region's stems, not by its largest t (a tall thin region stays small) */
    uint8_t *done;              /* (s, t) finished and published */
    uint8_t *empty_done;        /* journal: (s, t) finished with no generator (resume only) */
    f2mat **kernel;             /* kernel of d_s at (s, t), waiting for step (s+1, t) */
    struct res_prereduced **pre;    /* the lookahead's early reduction at (s, t), waiting for the
                                 * step there (stages/resolve/standard.h) */
    int lookahead;              /* j >= 2: standard steps reduce their rows from generators of
                                 * degree <= t-j early (stages/resolve/standard.h); 0: never */
    uint64_t finish_split;      /* > 0: a Nassau finish makes its quasi-inverses in parts of about
                                 * this many block entries (stages/resolve/nassau.h); 0: never;
                                 * RES_FINISH_SPLIT from res_init (docs/perf.md, "The tail") */
    char outdir[4096];
    uint64_t module_id;
    const fd_module *module;    /* the module resolved; NULL: the sphere S_2 (res_set_module) */
    char module_name[256];      /* as run.json and the reports name it ("S_2" by default) */
    deg_t shift;                /* the module's degree of internal degree 0: its bottom degree
                                 * when that is negative, else 0. Steps, stage files and run.json
                                 * use internal degrees t >= s; the reports print stems n + shift */
    int write_stages;
    stage_committer *committer; /* group commit of stage files (write_stages only) */
    unsigned keep_stages;       /* 1 << STAGE_MATRIX, 1 << STAGE_KERNEL: the kinds the steps hand
                                 * to keep (--keep-stages; set with it by stages/resolve/keepstages.h) */
    res_keep_fn *keep;          /* save or compare them (NULL: nothing is kept) */
    /* keepstages.c's account of its comparisons (verify): */
    long keep_checked, keep_bad;/* files compared, and how many disagreed or were unreadable */
    char keep_error[1200];      /* the last disagreement */
    int algorithm;              /* enum algorithm */
    char chart_products[512];   /* chart.svg's product layers, comma-separated ("": h0,h1,h2) */
    const char *load_action;    /* what res_load_stages says it does with a bad file (NULL: silent) */
    /* first error (runtime failures inside tasks); later tasks become no-ops */
    pthread_mutex_t lock;
    int failed;
    char error[512];
    /* a distributed run: another rank stopped at its time limit and sent a bidegree it never
     * computed (stages/resolve/exchange.c); this rank takes no more work either (runtime/admission.c) */
    _Atomic int stopped_elsewhere;
    uint32_t prime;             /* 2, or the odd prime of the module (res_set_module) */
    deg_t milnor_degree;        /* the degree the algebra's tables must reach (stem + 2, or T) */
    struct res_odd *odd;        /* odd prime: its algebra and kernel slots (resolution_p.h); else NULL */
    int unstable;               /* over the unstable algebra: free unstable modules (res_set_unstable) */
    milnor_excess ex;           /* unstable: the excess order of A's basis (algebra/excess.h) */
} resolution;

enum algorithm { ALG_STANDARD = 1, ALG_NASSAU = 2 };

/* The lookahead's early reduction at (s, t) (stages/resolve/standard.h): m is the RREF of the first
 * `rows` rows of the step's D (those of generators of degree <= t-j; `cols`, the columns of
 * generators of F_{s-1} of degree < t-j, a prefix of D's), augmented by the identity [D | 0 | I]
 * when the step extracts a kernel; rank: its nonzero rows. In res->pre it counts as MEM_KERNELS
 * in the memory account, taken by the step as in flight. */
typedef struct res_prereduced {
    f2mat m;
    uint32_t rows, cols, rank;
    int augmented;
} res_prereduced;
/* Frees p (in flight; NULL: nothing). */
void res_prereduced_free(res_prereduced *p);
/* The early reduction waiting in res->pre at (s, t), taken out (NULL: none). */
res_prereduced *res_prereduced_take(resolution *res, int s, deg_t t);   /* = enum stage_algorithm */

/* Work of one bidegree, carried through its tasks: a chain (stages/chain.h) whose owner is the
 * resolution. */
typedef struct step_ctx {
    chain ch;                   /* s, t, the kind (the step's algorithm, stages/resolve/step.h); build */
    resolution *res;
    int kernel_only;            /* stem-edge job: compute the kernel, add nothing */
    row_build build;            /* what the multiply tasks of the current phase fill; standard:
                                 * D is dim F_{s,t} (gens < t) x dim F_{s-1,t} (gens <= t-2), or
                                 * only the rows after pre's */
    struct res_prereduced *pre; /* standard, lookahead: the early reduction of D's first rows */
    uint8_t *is_image_pivot;    /* build.ncols flags after reduction */
    struct nassau_state *ns;    /* Nassau's signature bookkeeping between tasks */
    struct nassau_p_state *nsp; /* the same at odd p (stages/resolve/nassau_p.h) */
    fm_gen *new_gens;           /* Nassau: the new generators, published by finish */
    uint32_t n_new;
    fpmat Dp;                   /* odd p: the matrix of d_s in degree t (build's shape, no jobs) */
    row_build_p build_p;        /* odd p over A_p: Dp's rows as multiply jobs (rowbuild_p.h) */
} step_ctx;

/* res_init's finish_split: block entries a part of a Nassau finish makes (docs/perf.md, "The
 * tail"; resolve takes EXTFLOW_FINISH_SPLIT instead). */
#define RES_FINISH_SPLIT (1u << 22)
/* 0, -1 out of memory, or MILNOR_STOPPED when the Milnor basis stopped at its deadline
 * (milnor_set_deadline); res_clear either way. */
int res_init(resolution *res, int region, int stem, int max_s, deg_t rect_t,
             const char *outdir, int write_stages, int algorithm);
/* The same for the module m that res_set_module will set (NULL: S_2), built for its algebra
 * alone: over a profile's B (ko, tmf2) B's basis, never A's (at stem 200 A's is 31 MB and a
 * tenth of a second, B(2)'s a few KB); at an odd p the mod 2 tables through degree 0 only
 * (res_set_module builds A_p; at stem 400 the mod 2 ones would cost 1 GB and most of the
 * start-up). res_init is res_init_module(..., NULL). */
int res_init_module(resolution *res, int region, int stem, int max_s, deg_t rect_t,
                    const char *outdir, int write_stages, int algorithm, const fd_module *m);
void res_clear(resolution *res);
/* Resolves the finite module m (kept by the caller until res_clear) instead of S_2: row 0 maps
 * F_0 onto m, and the module id becomes the hash of m's canonical text (the sphere keeps
 * S_2's id). A module with a profile is resolved over its sub-Hopf-algebra B: on an
 * initialised resolution, A becomes B's basis (the free modules are free over B), and a finitely
 * presented module is truncated to the degrees <= max_t (fdm_truncate). Call before loading or
 * running anything. 0, -1 out of memory, or MILNOR_STOPPED (B's basis stopped at its deadline). */
int res_set_module(resolution *res, fd_module *m, const char *name);
/* Resolves by free unstable modules (call after res_init_module, before res_set_module, whose
 * module id then says "unstable"); on a resolution without free modules (a probe for the id)
 * only the flag. 0, or -1 out of memory. */
int res_set_unstable(resolution *res);
/* The excess order of the free modules' algebra (A at p = 2; Ap at odd p, from res_set_module
 * once A_p is built), replacing any there: 0, or -1 out of memory. */
int res_use_excess(resolution *res, const milnor_basis *A, const milnor_p_basis *Ap);
/* The module id res_set_module gives m (NULL: S_2), of a stable or an unstable resolution. */
uint64_t res_module_id(const fd_module *m, int unstable);
/* Is the module m (NULL: S_2) unstable, Sq^i x = 0 for every class x and i > |x|? 1 yes; 0 no,
 * with the first class at fault named in why. Read off the action table: for a finite module
 * (a projective space RP_n^inf, known by truncations, is judged by resolve apart; 1 here, as for
 * profiles, presentations and cofibers, which resolve --unstable refuses). At an odd prime:
 * β^e P^i x = 0 for 2i + e > |x| (Q_0^e P(i) on every class). */
int res_module_is_unstable(const fd_module *m, char *why, size_t size);
/* The shift res_set_module gives a resolution of m (NULL: the sphere): internal degree 0 is
 * m's bottom degree when that is negative. A region given in m's degrees (stems n, or t <= T)
 * is n - shift (T - shift) internally. */
deg_t res_module_shift(const fd_module *m);
/* The module's top degree, internal (0 for S_2): Nassau's vanishing bound moves up by it. */
deg_t res_module_top(const resolution *res);
/* Does Nassau's algorithm apply to m (NULL: S_2)? Finite modules without a profile: yes;
 * modules over a sub-Hopf-algebra and finitely presented (infinite) ones: no. */
int res_nassau_applies(const fd_module *m);
/* At an odd prime (stages/resolve/nassau_p.h, only when asked for): modules over A_p itself, finite,
 * without a cofiber. */
int res_nassau_p_applies(const fd_module *m);
/* Is the algebra the free modules are over the whole Steenrod algebra (A, or A_p), no profile's B? */
int res_algebra_is_whole(const resolution *res);
/* dim M_t of the module resolved (t internal); inline, so resolution_p.c reads it without
 * calling into resolution.c (which calls resolution_p.c). */
static inline uint32_t res_module_dim(const resolution *res, deg_t t)
{
    return res->module ? fdm_dim(res->module, t + res->shift) : t == 0;
}
/* The rows Sq(R)·g of d_0 : F_{0,t} -> M_t for the generators g of degree < t (basis order), by
 * Sq(R)·d(g) read off the module's action table, into D's first rows (zeroed by the caller,
 * res_module_dim(res, t) columns); for S_2 they are zero. */
void res_module_rows(const resolution *res, deg_t t, f2mat *D);
int res_in_region(const resolution *res, int s, deg_t t);
/* Cell of (s, t) in the per-bidegree arrays; requires 0 <= s <= max_s, 0 <= t - s <= max_n. */
static inline size_t res_cell(const resolution *res, int s, deg_t t)
{ return (size_t)s * ((size_t)res->max_n + 1) + (size_t)(t - s); }
static inline uint8_t *res_done(resolution *res, int s, deg_t t)
{ return &res->done[res_cell(res, s, t)]; }
/* Read-only: (s, t) is done; 0 for any (s, t) outside the arrays. */
static inline int res_is_done(const resolution *res, int s, deg_t t)
{ return s >= 0 && s <= res->max_s && t >= s && t - s <= res->max_n && res->done[res_cell(res, s, t)]; }
static inline f2mat **res_kernel_slot(resolution *res, int s, deg_t t)
{ return &res->kernel[res_cell(res, s, t)]; }
/* Bytes that res_init_module would allocate for this region and module m (NULL: S_2) before
 * any step runs (the Milnor tables, A's or a profile's B's, and the per-bidegree arrays; at an
 * odd p, A_p's tables are not counted: a few MB at stem 400); the matrices of the steps come
 * on top. */
uint64_t res_setup_bytes(int region, int stem, int max_s, deg_t rect_t, const fd_module *m);
void res_fail(resolution *res, const char *fmt, ...);
/* Has the run failed (res_fail)? Only reads the flag. */
int res_failed(resolution *res);
/* res_failed, after recording a failed background write of the stage files (the committer's)
 * as the run's failure: res_flush_stages then gives its message. Called where a run decides
 * whether to go on (each piece of a step, the submission loop, a packet for other ranks). */
int res_check_writes(resolution *res);

/* Does the step at (s, t) hand the kernel of d_s to step (s+1, t)? (The standard step does,
 * into res_kernel_slot, except on row s >= 1 under Nassau, whose next rows read none.) */
int res_kernel_wanted(const resolution *res, int s, deg_t t);
/* A cofiber (module key "cofiber", stages/resolve/cofiber.h): at (s, t) of row s0 in the degrees t0 ..
 * t0 + top of M, the index k of the subspace of the kernel (the module's cofiber_rows[k], a
 * matrix over its field) the step takes its new generators from; -1 elsewhere. */
int res_cofiber_row(const resolution *res, int s, deg_t t);
/* Publishes n generators at (s, t) and writes their stage file (takes gens). */
int res_publish(resolution *res, int s, deg_t t, uint32_t n, fm_gen *gens, uint32_t width);

/* Encodes m as the stage file of this kind at (s, t) (header from res: algorithm, module)
 * and queues it to the committer; 0, or -1 after res_fail. */
int res_queue_stage(resolution *res, int kind, int s, deg_t t, uint32_t aux, const f2mat *m);
/* --keep-stages: a step's matrix or kernel at (s, t), handed to res->keep. Does nothing for a
 * kind not in keep_stages, or without a hook. 0, or -1 (after res_fail) when it cannot be
 * queued. */
int res_keep_stage(resolution *res, int kind, int s, deg_t t, const f2mat *m);
/* f2mat_rref and f2mat_rref_augmented for a step's piece, shared with a team where the matrix
 * holds F2MAT_TEAM_MIN bytes or more (EXTFLOW_TEAM_MIN): the runner's idle CPU workers join
 * while it runs (chain_next.team); alone for a smaller matrix, outside a runner (verify,
 * --keep-stages' checks), under the serial runner, with no worker idle, or under EXTFLOW_TEAM=0.
 * Whoever joins, the result is the same. */
int res_rref(step_ctx *c, f2mat *m, int32_t *pivots);
int res_rref_augmented(step_ctx *c, const f2mat *a, f2mat *aug, int32_t **pivots);
/* A Nassau finish's parts (nassau.h, nassau_p.h): items first .. end-1 of weights weight(ctx, i)
 * cut into n runs of consecutive items, run k ending where the running sum first reaches
 * (k + 1)/n of the total; n = total / per, at most the items of non-zero weight and most.
 * Returns n with (*bounds)[0..n] (first, ..., end; allocated here), or 0 (fewer than 2 runs'
 * worth, per 0, or out of memory; *bounds NULL). */
uint32_t res_cut_runs(uint32_t first, uint32_t end, uint64_t (*weight)(const void *ctx, uint32_t i), const void *ctx,
                      uint64_t per, uint32_t most, uint32_t **bounds);

/* Makes every stage file written so far durable and visible; 0, or -1 (after res_fail). */
int res_flush_stages(resolution *res);

/* Resume: load finished bidegrees from OUT/stages; returns how many were loaded. Out of
 * memory: res_fail (check res_failed), nothing partial is published. */
long res_load_stages(resolution *res);
/* d_{s-1} ∘ d_s on the generators of (s, t), by one-by-one products (s >= 2; s = 1 with a
 * module: d_0 ∘ d_1 into M by its action table): 1 if zero, 0 if not, -1 out of memory or at
 * an odd prime (res_check_dd_p there, stages/resolve/resolution_p.h, which calls into this file). */
int res_check_dd(const resolution *res, int s, deg_t t);
/* The same check by the batched multiply (verify): the basis elements Sq(R)·h of F_{s-1,t}
 * that occur in some d(g), g a new generator at (s, t), become rows d_{s-1}(Sq(R)·h) built with
 * rowbuild (rb_append, rb_multiply; at most RES_DD_CHUNK rows at a time), and d(d(g)) is the
 * sum of the rows of its bits. The rows are computed from the loaded differentials of F_{s-1},
 * not read from any file. s = 1 with a module: res_check_dd. Unstable: the rows are made over the
 * whole of A's blocks (freemod_dim_wide), and only the columns the narrowing keeps must vanish. Thread-safe on a resolution no
 * one writes. 1 if zero, 0 if not, -1 out of memory. */
#define RES_DD_CHUNK 2048u
int res_check_dd_batch(const resolution *res, int s, deg_t t);
/* The same in pieces, for a chain (verify's tasks), s >= 2: begin selects the rows and plans the
 * first chunk into d->b (about 32 MB of rows, at least RES_DD_CHUNK; none when no generator or
 * no bit); once d->b is multiplied, next adds it into the generators' sums and plans the next
 * chunk (1), or ends (0); result: 1 if every d(d(g)) is zero, else 0. begin and next: -1 out
 * of memory. clear frees d. */
typedef struct res_dd {
    uint32_t n, width, nsel, next, chunk;
    size_t words;
    uint32_t *sel;              /* the basis elements of F_{s-1,t} some d(g) has */
    uint64_t *acc;              /* n sums d(d(g)), words each */
    uint64_t *keep;             /* unstable: the columns of acc that count (the others are the
                                 * products' terms of too large excess); NULL: all */
    row_build b;                /* the chunk being multiplied */
} res_dd;
int res_dd_begin(const resolution *res, int s, deg_t t, res_dd *d);
int res_dd_next(const resolution *res, int s, deg_t t, res_dd *d);
int res_dd_result(res_dd *d);
void res_dd_clear(res_dd *d);
/* Number of generators at (s, t) = dim Ext^{s,t}. */
static inline uint32_t res_ngens(const resolution *res, int s, deg_t t)
{ return (s <= res->max_s && t >= 0 && t <= res->max_t) ? res->F[s].ngens[t] : 0; }

#endif
