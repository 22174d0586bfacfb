/* step.h — one step of the resolution behind one interface, chosen per bidegree.
 *
 * A step (s, t) runs as   plan → multiply → reduce → [multiply → ] finish
 * where plan fills c->build (the rows to compute as Milnor products), multiply is done by the
 * multiply codelet over c->build, reduce row-reduces and may plan more rows (then one more
 * multiply runs before finish), and finish publishes the new generators of F_s in degree t and
 * their stage file. The runtime (runtime/rt.c) turns the pieces into StarPU tasks without
 * knowing which algorithm runs; the codelets call the pieces and then the continuation the
 * runtime put in c->next, so nothing here or in codelets/ calls into runtime/.
 *
 * Algorithms: step_standard (every row under --algorithm standard; rows 0 and 1 under Nassau),
 * step_nassau (rows s >= 2 under Nassau: stages/nassau.h), step_edge_kernel (the kernel of d_s
 * at the stem edge, which the next row's standard step needs; publishes nothing).
 * Dependencies: each algorithm names the bidegrees whose steps must be done before it plans.
 */
#ifndef EXTFLOW_STEP_H
#define EXTFLOW_STEP_H
#include "stages/resolution.h"

enum { STEP_FINISH = 0, STEP_MULTIPLY_AGAIN = 1 };

/* A step's prerequisites: bidegree (s, t), and whether it is the stem-edge kernel job there
 * (edge) rather than the step itself. */
typedef struct step_dep {
    int s;
    deg_t t;
    int edge;
} step_dep;
typedef struct step_deps {
    int n;
    step_dep d[2];
} step_deps;

typedef struct step_algo {
    const char *name;
    int (*plan)(step_ctx *c);       /* 0, or -1 after res_fail */
    int (*reduce)(step_ctx *c);     /* STEP_FINISH, STEP_MULTIPLY_AGAIN, or -1 after res_fail */
    int (*finish)(step_ctx *c);     /* 0, or -1 after res_fail */
    void (*deps)(const resolution *res, int s, deg_t t, step_deps *out);
    /* predicted peak bytes of the step, once its prerequisites are done (admission under
     * --memory) */
    uint64_t (*footprint)(const resolution *res, int s, deg_t t);
} step_algo;

/* What the runtime does after each piece; set in c->next by the runtime. */
typedef struct step_next {
    /* before plan: 1 to go on, 0 when the runtime keeps c to plan it later (it then submits
     * another plan task for c itself) */
    int (*admit)(step_ctx *c);
    void (*after_plan)(step_ctx *c, int planned_ok);
    void (*after_reduce)(step_ctx *c, int multiply_again);
    void (*after_finish)(step_ctx *c);  /* owns c from here: frees it with step_free */
    /* 1 when the run stopped taking work (--time-limit) before c started: every piece of c is
     * then a no-op and nothing is published */
    int (*cancelled)(const step_ctx *c);
} step_next;

extern const step_algo step_standard, step_nassau, step_edge_kernel;

/* The algorithm of the step at row s (the edge kernel job is asked for by name). */
const step_algo *step_algo_for(const resolution *res, int s);
/* Frees everything a step's pieces allocated in c (not c itself). */
void step_free(step_ctx *c);

#endif
