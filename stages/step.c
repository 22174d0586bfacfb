/* step.c — the step algorithms behind step.h: the standard step (standard.c), Nassau's
 * (nassau.c) and the stem-edge kernel job, with the dependencies of each. */
#include "stages/step.h"
#include "stages/nassau.h"
#include "stages/standard.h"

static void add_dep(step_deps *out, int s, deg_t t, int edge) { out->d[out->n++] = (step_dep){ s, t, edge }; }

static int standard_reduce(step_ctx *c) { return res_step_reduce(c) == 0 ? STEP_FINISH : -1; }

/* (s, t) needs F_s below degree t, from (s, t-1), and the kernel of d_{s-1} at (s-1, t): from
 * the step there when it is in the region, else from the stem-edge kernel job there. */
static void standard_deps(const resolution *res, int s, deg_t t, step_deps *out)
{
    out->n = 0;
    if (t - 1 >= s) add_dep(out, s, t - 1, 0);
    if (s >= 1) add_dep(out, s - 1, t, !res_in_region(res, s - 1, t));
}

/* Nassau's rows read F_{s-1} below t and F_{s-2} below t-1: (s, t-1) and (s-1, t-1) suffice. */
static void nassau_deps(const resolution *res, int s, deg_t t, step_deps *out)
{
    (void)res;
    out->n = 0;
    if (t - 1 >= s) add_dep(out, s, t - 1, 0);
    if (t - 1 >= s - 1) add_dep(out, s - 1, t - 1, 0);
}

static int edge_finish(step_ctx *c) { (void)c; return 0; }

/* The kernel at (s, t) on the stem edge needs F_s below t: (s, t-1) when that is in the region. */
static void edge_deps(const resolution *res, int s, deg_t t, step_deps *out)
{
    out->n = 0;
    if (res_in_region(res, s, t - 1)) add_dep(out, s, t - 1, 0);
}

const step_algo step_standard = { "standard", res_step_plan, standard_reduce, res_step_finish, standard_deps,
                                   res_step_footprint };
const step_algo step_nassau = { "nassau", res_nassau_plan, res_nassau_reduce0, res_nassau_finish, nassau_deps,
                                res_nassau_footprint };
const step_algo step_edge_kernel = { "edge-kernel", res_step_plan, standard_reduce, edge_finish, edge_deps,
                                     res_step_footprint };

const step_algo *step_algo_for(const resolution *res, int s)
{
    return res->algorithm == ALG_NASSAU && s >= 2 ? &step_nassau : &step_standard;
}

void step_free(step_ctx *c)
{
    res_nassau_free(c);
    res_step_free(c);
}
