/* chain.h — one interface for every piece of work done per bidegree.
 *
 * A chain is the work of one kind at one bidegree (s, t): a resolution's step (stages/resolve/step.h:
 * standard, Nassau's, the stem-edge kernel, the standard step's early reduction), the target step (i, t) of a batch of chain-map
 * lifts (stages/products/lift.h: products, Massey products, d2's homotopy), the composites of d2 at a
 * cell (stages/d2/secondary.h), verify's d∘d check of a bidegree (stages/out/verify.c). Every kind runs as
 *
 *     plan → [multiply ∥ parts] → [reduce → [multiply → [reduce → multiply → ...]]] [finish parts] finish
 *
 * plan fills the chain's rows (c->rows, one payload tagged by its ring: Milnor products mod 2,
 * rows of a row_build; mod 4, d2's composites; or mod an odd prime, a standard step's rows);
 * the multiply codelet fills them, on CPU or GPU workers; reduce (optional) row-reduces and may plan more rows; finish publishes, after its
 * optional parts (a large finish's independent work, on workers of their own). A kind also
 * declares what it waits for (deps: chains of its own or other kinds at smaller degrees,
 * declared before anything runs), what else it reads (reads: rows of finished chains) and its
 * predicted peak memory (footprint, for --memory). Its pieces work on a context of the kind's own type that begins with
 * the chain (so `(T *)c` is the kind's view, `&x->ch` the chain's); the runner allocates
 * kind->size bytes, zeroed, per chain.
 *
 * A chain set is what one run executes: an owner (the resolution, the lift batch, d2), the
 * chains at each (s, t) of a box, if any (one per layer: d2's composites and homotopy steps), and how the run fails (the first failure
 * is kept by the owner; every piece after it is skipped). Runners execute a set: chain_run_serial
 * below (every chain in order on this thread: tests, no StarPU), or the StarPU dataflow
 * (runtime/rt_chain.h), which adds the memory budget, the time limit and the multiply on
 * GPUs, and never changes a bit of the results: every chain's result is a function of what
 * its deps computed. Code in stages/ that runs a set is handed a chain_runner, so it never
 * calls into runtime/.
 */
#ifndef EXTFLOW_CHAIN_H
#define EXTFLOW_CHAIN_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "algebra/milnor.h"
#include "algebra/team.h"
#include "stages/rowbuild.h"

/* What reduce asks for next: finish; multiply the rows it planned, then finish; or multiply
 * them, then reduce again (a chain that works through its rows in chunks: verify's checks). */
enum { CHAIN_FINISH = 0, CHAIN_MULTIPLY_AGAIN = 1, CHAIN_REDUCE_AGAIN = 2 };

/* Families of kinds: chains of one family at one (s, t) are one chain for the dependencies
 * (the standard and Nassau steps of a resolution are both "the step at (s, t)"). */
enum chain_family { CHAIN_STEP = 0, CHAIN_EDGE = 1, CHAIN_LIFT = 2, CHAIN_COMPOSITE = 3, CHAIN_CHECK = 4,
                    CHAIN_PRE = 5, CHAIN_FAMILIES = 6 };

typedef struct chain_kind chain_kind;
struct sec_batch;
struct row_build_p;

/* The rows a chain's next multiply fills, one payload tagged by the ring its products are in:
 * the runner dispatches on kind (runtime/rt_chain.c), never on which pointer is set. */
enum chain_rows_kind {
    CHAIN_ROWS_NONE = 0,        /* nothing to multiply */
    CHAIN_ROWS_F2 = 1,          /* mod 2: f2, a row_build (stages/rowbuild.h) */
    CHAIN_ROWS_MOD4 = 2,        /* mod 4: mod4, d2's composites (stages/secbatch.h) */
    CHAIN_ROWS_FP = 3           /* mod an odd prime: fp, a standard step's rows (stages/rowbuild_p.h) */
};
typedef struct chain_rows {
    enum chain_rows_kind kind;
    union {
        row_build *f2;
        struct sec_batch *mod4;
        struct row_build_p *fp;
    };
} chain_rows;
#define CHAIN_NO_ROWS ((chain_rows){ .kind = CHAIN_ROWS_NONE })
static inline chain_rows chain_rows_f2(row_build *b) { return (chain_rows){ .kind = CHAIN_ROWS_F2, .f2 = b }; }
static inline chain_rows chain_rows_mod4(struct sec_batch *b) { return (chain_rows){ .kind = CHAIN_ROWS_MOD4, .mod4 = b }; }
static inline chain_rows chain_rows_fp(struct row_build_p *b) { return (chain_rows){ .kind = CHAIN_ROWS_FP, .fp = b }; }

typedef struct chain {
    const chain_kind *kind;
    const struct chain_set *set;    /* the set it runs in (NULL when its pieces are called directly) */
    void *owner;                /* what its pieces work on (resolution, lift_set, ...: chain_at) */
    int s;
    deg_t t;
    chain_rows rows;            /* what the next multiply fills (kind CHAIN_ROWS_NONE: nothing) */
    const struct chain_next *next;  /* what the runner does after each piece */
    void *runtime;              /* the runner's own state of the chain */
    uint32_t nparts;            /* set by the runner: the parts the next piece waits for (their
                                 * handles follow the rows among its buffers) */
    int layer;                  /* set by the runner: the set's layer it was found at (chain_set.layers;
                                 * 0 for a chain made for another), which its profile keeps apart */
} chain;

typedef struct chain_dep {
    int family;                 /* enum chain_family */
    int s;
    deg_t t;
    const chain_kind *make;     /* non-NULL: no chain of the set is there; the runner makes one
                                 * of this kind for the chain that names it (one dependent each) */
} chain_dep;
#define CHAIN_MAX_DEPS 4
typedef struct chain_deps {
    int n;
    chain_dep d[CHAIN_MAX_DEPS];
} chain_deps;

/* What a chain reads of finished chains beyond the results of its deps: the chains of `family`
 * at row s in every degree up to t (a step reads rows of the resolution below its degree; one
 * process orders those reads through its deps transitively). */
typedef struct chain_read {
    int family;                 /* enum chain_family */
    int s;
    deg_t t;
} chain_read;
#define CHAIN_MAX_READS 4
typedef struct chain_reads {
    int n;
    chain_read r[CHAIN_MAX_READS];
} chain_reads;

struct chain_kind {
    const char *name;
    int family;                 /* enum chain_family */
    size_t size;                /* bytes of the kind's context (the chain first) */
    int (*plan)(chain *c);      /* 0, or -1 after the owner's failure was recorded */
    int (*reduce)(chain *c);    /* NULL: none; CHAIN_FINISH, CHAIN_MULTIPLY_AGAIN, CHAIN_REDUCE_AGAIN
                                 * or -1 */
    int (*finish)(chain *c);    /* 0, or -1 */
    void (*clear)(chain *c);    /* frees what the pieces allocated (not c); NULL: nothing */
    /* The chains that must be finished before (s, t) plans (the runner skips those the set
     * says are done). */
    void (*deps)(void *owner, int s, deg_t t, chain_deps *out);
    /* Predicted peak bytes of the chain once its deps are done (admission under --memory). */
    uint64_t (*footprint)(void *owner, int s, deg_t t);
    /* Where the rows planned are a small job (at most one CPU chunk, no GPU would take them),
     * multiply them on the plan's worker and run the rest of the chain there: NULL, never (the
     * rows always go through the multiply tasks); else how (it fills c->rows). */
    void (*multiply_here)(chain *c);
    int finish_priority;        /* of the task after a multiply (plans run at -t) */
    /* Optional parallel parts (a large chain's independent work, split so that its critical
     * path shortens): after a successful plan, parts(c) says how many (0: none), and part(c, k,
     * n) does part k of n, each on a worker of its own, beside the first multiply (so they must
     * not read its rows); the piece after that multiply runs once they are all done. NULL: none. */
    uint32_t (*parts)(chain *c);
    void (*part)(chain *c, uint32_t k, uint32_t n);
    /* What the chain at (s, t) reads (chain_read; rows below 0 are not named), declared once:
     * a distributed run derives from it which ranks receive a row and what a chain waits for
     * on its rank (runtime/rt_mpi.c); verify, what must be loaded before it recomputes a step
     * (stages/resolve/keepstages.c). NULL: nothing beyond what its deps (and theirs) computed and what
     * was finished before the run. */
    void (*reads)(void *owner, int s, deg_t t, chain_reads *out);
    /* Optional parts of the finish (Nassau's quasi-inverses of a large step): once the last
     * piece before finish has run (reduce, or plan for a kind without reduce),
     * finish_parts(c) says how many (0 or 1: none, finish does it all), and finish_part(c, k,
     * n) does part k of n, each on a worker of its own, after the multiply that piece asked
     * for (so they may read its rows, c->rows, read-only); finish runs once they are all
     * done. Called once per chain. NULL: none. */
    uint32_t (*finish_parts)(chain *c);
    void (*finish_part)(chain *c, uint32_t k, uint32_t n);
    /* NULL, or the priority of the chain's tasks after its plan (multiply chunks excepted), in
     * place of finish_priority, once its deps are done: a chain's cost, so that a scheduler that
     * reads priorities starts the longest ones first (they make the critical path). */
    int (*priority)(void *owner, int s, deg_t t);
    /* NULL, or work of chain (s, t) that needs none of its deps, only what was loaded before
     * the run (a lift step's quasi-inverse of d_s): the runner submits prepare(owner, s, t) as a
     * task of its own with the chain, at the plans' priority, so that it has run by the time
     * the chain needs it; the chain must not count on it (it may run before, beside or after). */
    void (*prepare)(void *owner, int s, deg_t t);
    /* With prepare: does chain (s, t) have any? Asked in the submitting thread just before the
     * chain is submitted (NULL: always). */
    int (*to_prepare)(void *owner, int s, deg_t t);
};

/* What the runner does after each piece (set in c->next; chain_run_serial and the StarPU
 * runner have their own). */
typedef struct chain_next {
    int (*admit)(chain *c);     /* before plan: 1 go on; 0 the runner keeps c and plans it later */
    /* after plan: 1 when the runner took the rest (multiply tasks, then reduce or finish), 0
     * when the plan's task is to run the rest itself (chain_rest_here) */
    int (*after_plan)(chain *c, int planned_ok);
    void (*after_reduce)(chain *c, int next);   /* next: reduce's CHAIN_* */
    void (*after_finish)(chain *c);     /* owns c from here */
    /* 1 when the run stopped taking work (--time-limit) before c started: its pieces are not
     * called, nothing is published */
    int (*cancelled)(const chain *c);
    /* NULL, or a team (algebra/team.h) for the row reduction of a matrix of that many bytes by
     * the piece running now, its members recruited among the runner's idle CPU workers; NULL
     * when the matrix is too small to pay or no worker is idle. A step asks through res_rref
     * (stages/resolve/resolution.h). */
    team *(*team)(chain *c, uint64_t bytes);
} chain_next;

/* Is there nothing more to compute for c (its run failed, or stopped taking work)? */
int chain_void(const chain *c);
/* The rest of c after its plan, on this thread: its parts, multiply_here, reduce (and
 * multiply_here, and reduce, again as it asks), its finish parts in order, finish,
 * after_finish. */
void chain_rest_here(chain *c, int planned_ok);
/* Frees what c's pieces allocated and c. */
void chain_free(chain *c);

/* A chain of a set: its kind, and the owner its pieces take (the set's, or a part of it). */
typedef struct chain_at {
    const chain_kind *kind;     /* NULL: none */
    void *owner;
} chain_at;

/* What a set's chains of family CHAIN_STEP hand to the other ranks of a distributed run
 * (runtime/rt_mpi.h: a resolution's rows), the owner's own code behind the runner's exchange
 * tasks: the finished (s, t) packed on the rank that computed it, unpacked on each rank that
 * reads it. With it may go what the chain at (s + 1, t) takes of (s, t) beyond its rows (a
 * resolution's kernel of d_s): kept where that chain runs on the same rank, else sent, or, at
 * s = 0, dropped for the reader to recompute. */
enum { CHAIN_EXCHANGE_KEEP = 0, CHAIN_EXCHANGE_SEND = 1, CHAIN_EXCHANGE_DROP = 2 };
typedef struct chain_exchange {
    /* Does (s, t) have that for the chain at (s + 1, t)? */
    int (*kernel_wanted)(void *owner, int s, deg_t t);
    /* (s, t)'s bytes (*out malloc'ed), with the kernel as `kernel` (CHAIN_EXCHANGE_*) says: 0,
     * or -1 after the owner's failure was recorded */
    int (*pack)(void *owner, int s, deg_t t, int kernel, void **out, size_t *len);
    /* publishes what pack made in this rank's owner (and the kernel when take_kernel): 0 or -1 */
    int (*unpack)(void *owner, int s, deg_t t, int take_kernel, const void *buf, size_t len);
    /* after unpack: (s, t) is finished here too (the progress line) */
    void (*received)(void *owner, int s, deg_t t);
} chain_exchange;

typedef struct chain_set chain_set;
struct chain_set {
    void *owner;
    const milnor_basis *A;      /* the algebra of every multiply of the set */
    const struct milnor_p_basis *Ap;    /* odd p: the algebra of its mod-p multiplies (CHAIN_ROWS_FP; or NULL) */
    int max_s;                  /* the box: s = 0..max_s, t = 0..max_t, visited by t, then layer, */
    deg_t max_t;                /* then s up */
    int layers;                 /* chains per (s, t), at most (0: 1) */
    unsigned throttle;          /* > 0: a chain is submitted only while fewer than throttle tasks
                                 * per worker are pending (chains whose plans would otherwise all
                                 * hold memory at once); the deps of a chain must come earlier in
                                 * the visit */
    chain_at (*at)(void *owner, int s, deg_t t, int layer);     /* the chain of that layer at (s, t) */
    /* NULL, or 1 when the chain of this family at (s, t) is finished (before the run, or during
     * it): a dependency on it needs no waiting */
    int (*done)(void *owner, int family, int s, deg_t t);
    void (*fail)(void *owner, const char *msg);     /* records the run's failure (the first) */
    int (*failed)(void *owner);     /* has it failed? */
    _Atomic int *stopped_elsewhere; /* distributed resolution: another rank stopped (or NULL) */
    /* NULL, or EXTFLOW_STATS's lines of the set's own (chain_policy.verbose), after the runner's
     * count of Milnor products (runtime/rt_stats.h) */
    void (*stats)(void *owner, FILE *out);
    const chain_exchange *exchange; /* how it runs over ranks (NULL: in one process only) */
};

/* How a run goes beyond its results (0: no limit). memory_budget: bytes the run keeps to; a
 * chain is admitted (its plan runs) only when the memory account's lasting kinds, the
 * footprints of the chains in flight and its own fit in it, and always when nothing is in
 * flight. time_limit: seconds (from start, CLOCK_MONOTONIC; 0: the run's start) after which no
 * chain is admitted; the run then returns 1, and what finished is kept for a rerun. */
typedef struct chain_policy {
    uint64_t memory_budget;
    double time_limit;
    double start;
    int verbose;                /* at the end: the share of multiply work each worker kind did */
    int admission_report;       /* at the end: the most chains in flight, how often one waited */
    /* non-NULL: the runner keeps the progress line (stages/progress.h) over the set's chains,
     * each weighted by its footprint, naming them so ("lift steps"); drawn when progress_line */
    const char *progress_noun;
    int progress_line;
} chain_policy;

/* A way to run a set: 0, 1 stopped at the time limit, or -1 failed (the owner says why). */
typedef struct chain_runner {
    int (*run)(const struct chain_runner *r, const chain_set *set);
    chain_policy policy;
    void *ctx;
} chain_runner;
static inline int chain_run(const chain_runner *r, const chain_set *set) { return r->run(r, set); }

/* Every chain of the set in the set's order on this thread (deps come first in it); no limits. */
extern const chain_runner chain_serial;

#endif
