/* rt_secondary.c — submission of d2's tasks (see rt_secondary.h). */
#include "runtime/rt_secondary.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "codelets/codelets.h"
#include "runtime/rt_lift.h"
#include "runtime/rt_mul.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One cell's batch and its handles, kept until the wait for all only when its finish could not
 * be submitted (a refusal: the batch and handles are released after the wait). */
typedef struct cell_sub {
    sec_batch *b;
    starpu_data_handle_t jobs, terms, *rows;
    uint32_t nrows;
} cell_sub;

/* Cuts b by rt_mul's policy for mod-4 products and submits its cl_pair_mul chunks and its
 * cl_composite finish (which reads the chunks' rows). 0, or -1 (err set). */
static int submit_cell(rt_mul *m, cell_sub *c, int (*finish)(void *, sec_batch *, const char *), void *ctx, int prio,
                       char *err, size_t errlen)
{
    sec_batch *b = c->b;
    unsigned where;
    uint64_t chunk = rt_mul_mod4_chunking(m, b->pairs, &where);
    if (sec_batch_cut(b, chunk) != 0) {
        snprintf(err, errlen, "out of memory laying out the composites at (s=%d, t=%d)", b->s, (int)b->T);
        return -1;
    }
    struct starpu_data_descr *descr = b->nchunks ? calloc(b->nchunks, sizeof *descr) : NULL;
    c->rows = b->nchunks ? calloc(b->nchunks, sizeof *c->rows) : NULL;
    if (b->nchunks && (!descr || !c->rows)) {
        free(descr);
        snprintf(err, errlen, "out of memory submitting composites");
        return -1;
    }
    if (b->nchunks) {
        starpu_vector_data_register(&c->jobs, STARPU_MAIN_RAM, (uintptr_t)b->jobs, (uint32_t)b->njobs, sizeof *b->jobs);
        starpu_vector_data_register(&c->terms, STARPU_MAIN_RAM, (uintptr_t)b->terms, (uint32_t)b->nterms,
                                    sizeof *b->terms);
    }
    int ret = 0;
    for (uint32_t k = 0; k < b->nchunks && !ret; k++) {
        starpu_vector_data_register(&c->rows[k], STARPU_MAIN_RAM, (uintptr_t)(b->rows + b->row_at[k]),
                                    (uint32_t)(2 * b->twos_at[k]), sizeof *b->rows);
        c->nrows = k + 1;
        descr[k] = (struct starpu_data_descr){ c->rows[k], STARPU_R };
        uint32_t j0 = b->gen_job[b->chunk_gen[k]], j1 = b->gen_job[b->chunk_gen[k + 1]];
        struct cl_pair_mul_args *args = malloc(sizeof *args);    /* freed by StarPU */
        if (!args) {
            ret = -ENOMEM;
            break;
        }
        *args = (struct cl_pair_mul_args){ j0, j1 - j0, b->twos_at[k], b->chunk_pairs[k] };
        ret = starpu_task_insert(&cl_pair_mul, STARPU_R, m->basis, STARPU_R, c->jobs, STARPU_R, c->terms, STARPU_RW,
                                 c->rows[k], STARPU_CL_ARGS, args, sizeof *args, STARPU_PRIORITY, prio,
                                 STARPU_EXECUTE_WHERE, (unsigned long long)where, STARPU_NAME, "pair_mul", 0);
    }
    if (!ret) {
        struct cl_composite_args *fa = malloc(sizeof *fa);      /* freed by StarPU */
        if (fa) *fa = (struct cl_composite_args){ finish, ctx, b };
        ret = !fa ? -ENOMEM : starpu_task_insert(&cl_composite, STARPU_DATA_MODE_ARRAY, descr, (int)b->nchunks,
                                 STARPU_CL_ARGS, fa, sizeof *fa, STARPU_PRIORITY, prio, STARPU_NAME, "composite", 0);
        if (!ret) {
            /* the finish frees the batch, the handles go once their tasks are done (StarPU
             * unregisters them after the finish: no copy back, main memory holds their data) */
            c->b = NULL;
            for (uint32_t k = 0; k < c->nrows; k++) starpu_data_unregister_submit(c->rows[k]);
            if (c->nrows) {
                starpu_data_unregister_submit(c->jobs);
                starpu_data_unregister_submit(c->terms);
            }
            free(c->rows);
            c->rows = NULL;
            c->nrows = 0;
        }
    }
    free(descr);
    if (ret) snprintf(err, errlen, "StarPU refused a composite task: %s", strerror(-ret));
    return ret ? -1 : 0;
}

/* Every cell (s, t) with needs(ctx, s, t), the largest degrees first: its plan (here, reading
 * the differentials), its multiply chunks and its finish; waits for all. A plan holds its jobs
 * and terms until its finish, so cells are planned only while fewer than PLANNED_TASKS_PER_WORKER
 * tasks per worker wait (planning all at once raised d2's peak RSS at stem 70 from 50 to 74 MB).
 * 0, or -1 (err set, or the plan's failure recorded in ctx). */
#define PLANNED_TASKS_PER_WORKER 4
static int composite_tasks(rt_mul *m, const resolution *res, int (*needs)(const void *, int, deg_t),
                           sec_batch *(*plan)(void *, int, deg_t), int (*finish)(void *, sec_batch *, const char *),
                           int (*failed)(void *), void *ctx, uint64_t *pairs, uint64_t *pairs_cuda, char *err,
                           size_t errlen)
{
    uint64_t cpu0, cuda0, cpu1, cuda1;
    cl_pair_mul_stats(&cpu0, &cuda0);
    int rc = 0;
    unsigned most = PLANNED_TASKS_PER_WORKER * starpu_worker_get_count() + 8;
    cell_sub *subs = NULL;
    size_t nsubs = 0, cap = 0;
    for (deg_t t = res->max_t; t >= 0 && !rc; t--)
        for (int s = 2; s <= res->max_s && s <= t && !rc; s++) {
            if (!needs(ctx, s, t)) continue;
            if (nsubs == cap) {
                size_t nc = cap ? 2 * cap : 256;
                cell_sub *q = realloc(subs, nc * sizeof *q);
                if (!q) {
                    snprintf(err, errlen, "out of memory submitting composites");
                    rc = -1;
                    break;
                }
                subs = q, cap = nc;
            }
            starpu_task_wait_for_n_submitted(most);
            cell_sub *c = &subs[nsubs];
            memset(c, 0, sizeof *c);
            c->b = plan(ctx, s, t);
            if (!c->b) {
                if (failed(ctx)) rc = -1;
                continue;
            }
            nsubs++;
            *pairs += c->b->pairs;
            rc = submit_cell(m, c, finish, ctx, (int)t, err, errlen);
        }
    starpu_task_wait_for_all();
    for (size_t i = 0; i < nsubs; i++) {
        cell_sub *c = &subs[i];
        for (uint32_t k = 0; k < c->nrows; k++) starpu_data_unregister(c->rows[k]);   /* only after a refusal */
        if (c->nrows) {
            starpu_data_unregister(c->jobs);
            starpu_data_unregister(c->terms);
        }
        free(c->rows);
        if (c->b) {                                     /* not handed to a finish */
            sec_batch_clear(c->b);
            free(c->b);
        }
    }
    free(subs);
    cl_pair_mul_stats(&cpu1, &cuda1);
    *pairs_cuda += cuda1 - cuda0;
    (void)cpu0, (void)cpu1;
    return rc;
}

static int sec_needs(const void *ctx, int s, deg_t t) { return secondary_needs_composite(ctx, s, t); }
static sec_batch *sec_plan(void *ctx, int s, deg_t t) { return secondary_composite_plan(ctx, s, t); }
static int sec_finish(void *ctx, sec_batch *b, const char *why) { return secondary_composite_finish(ctx, b, why); }
static int sec_failed(void *ctx) { return secondary_failed(ctx); }
static int prod_needs(const void *ctx, int s, deg_t t) { return sec_product_needs_composite(ctx, s, t); }
static sec_batch *prod_plan(void *ctx, int s, deg_t t) { return sec_product_composite_plan(ctx, s, t); }
static int prod_finish(void *ctx, sec_batch *b, const char *why)
{
    return sec_product_composite_finish(ctx, b, why);
}
static int prod_failed(void *ctx) { return sec_product_failed(ctx); }

int rt_secondary(secondary *sec)
{
    const resolution *res = sec->res;
    double t0 = now();
    char err[200] = "";
    rt_mul m;                   /* the flat basis, for the composites and the homotopy's lift */
    if (rt_mul_init(&m, &res->A, err, sizeof err) != 0) {
        lift_fail(&sec->set, "%s", err);
        return -1;
    }
    if (composite_tasks(&m, res, sec_needs, sec_plan, sec_finish, sec_failed, sec, &sec->mod4_pairs,
                        &sec->mod4_pairs_cuda, err, sizeof err) != 0 && err[0])
        lift_fail(&sec->set, "%s", err);
    sec->composite_seconds = now() - t0;
    int rc = -1;
    if (!secondary_failed(sec)) {
        t0 = now();
        rc = rt_lift_with(&sec->set, &m);
        sec->homotopy_seconds = now() - t0;
    }
    rt_mul_clear(&m);
    return rc;
}

static int prod_composites(sec_product *p)
{
    char err[200] = "";
    uint64_t pairs = 0, cuda = 0;
    rt_mul m;
    int rc = rt_mul_init(&m, &p->sec->res->A, err, sizeof err);
    if (!rc) {
        rc = composite_tasks(&m, p->sec->res, prod_needs, prod_plan, prod_finish, prod_failed, p, &pairs, &cuda, err,
                             sizeof err);
        rt_mul_clear(&m);
    }
    if (rc != 0) {
        if (err[0]) lift_fail(&p->hom, "%s", err);
        return -1;
    }
    return sec_product_failed(p) ? -1 : 0;
}

int rt_secondary_product(sec_product *p)
{
    return sec_product_run(p, rt_lift, prod_composites);
}
