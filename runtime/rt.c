/* rt.c — StarPU glue: initialisation, tags, submission of the resolution DAG (see rt.h). */
#include "runtime/rt.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "algebra/memacct.h"
#include "codelets/cl_profile.h"
#include "codelets/codelets.h"
#include "runtime/admission.h"
#include "runtime/rt_mpi.h"
#include "runtime/rt_mul.h"
#include "runtime/rt_tags.h"
#include "stages/progress.h"
#include "stages/step.h"
#ifdef STARPU_USE_CUDA
#include "algebra/milnor_cuda.h"
#endif


/* --- memory account: StarPU's share (algebra/memacct.h, MEM_RUNTIME) ---
 * StarPU's allocations cannot be seen from here; what a task or a registered handle costs was
 * measured once (Debian's StarPU 1.3, RSS over 100000 of them: a vector handle 4.5 KB, a
 * submitted task waiting on a tag 1.9 KB), and the runtime counts those per live object:
 * a job's plan task and rt_step (its step_ctx inside) from submission to the end of its
 * finish, and a multiply phase's chunk handles and tasks until the task that reads them runs. */
#define RT_HANDLE_BYTES 4608
#define RT_TASK_BYTES 1920
#define RT_JOB_BYTES ((int64_t)(RT_TASK_BYTES + sizeof(rt_step)))
/* --- end of the memory account's part (account_chunks below) */

/* One run of rt_resolve: everything its tasks share, reached through each step's rt_step. */
typedef struct rt_run {
    resolution *res;
    rt_mul mul;                     /* the flat basis and the chunking (rt_mul.h) */
    rt_progress progress;
    rt_dist *dist;                  /* several MPI ranks (rt_mpi.h); NULL: this process alone */
    admission admission;            /* --memory, --time-limit */
} rt_run;

/* The runtime's own state of one step, allocated with its step_ctx (c.runtime points here;
 * the codelets see c only). */
typedef struct rt_step {
    step_ctx c;
    rt_run *run;
    admission_ticket ticket;        /* --memory, --time-limit (admission.h) */
    int64_t bytes;                  /* its share of the memory account for the step's current
                                     * multiply tasks and handles */
} rt_step;

static rt_step *step_of(const step_ctx *c) { return c->runtime; }

static void account_chunks(step_ctx *c, uint32_t nchunks)
{
    rt_step *st = step_of(c);
    int64_t now = nchunks ? (int64_t)(nchunks + 2) * RT_HANDLE_BYTES +
                            (int64_t)nchunks * (RT_TASK_BYTES + (int64_t)sizeof(struct cl_milnor_mul_args))
                          : 0;
    memacct_add(MEM_RUNTIME, now - st->bytes);
    st->bytes = now;
}

int rt_init(int verbose, char *err, size_t errlen)
{
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.nopencl = 0;
    int gpus = 0;
#ifdef STARPU_USE_CUDA
    const char *nc = getenv("STARPU_NCUDA");
    gpus = nc && atoi(nc) == 0 ? 0 : milnor_cuda_device_count();
#else
    conf.ncuda = 0;
#endif
    /* With CUDA workers: eager (lws/ws/prio of StarPU 1.3 can stall on CUDA workers; dmda kept
     * the GPU under 6% of the pairs and was the slowest, docs/perf.md), 4 chunks in flight per
     * CUDA worker unless the user chose otherwise. */
    if (gpus > 0 && !getenv("STARPU_SCHED")) conf.sched_policy_name = "eager";
    if (gpus > 0) setenv("STARPU_CUDA_PIPELINE", "4", 0);
    int ret = rt_mpi_size() > 1 ? rt_mpi_starpu_init(&conf) : starpu_init(&conf);
    if (ret != 0) {
        snprintf(err, errlen, "StarPU failed to start: %s", strerror(-ret));
        return -1;
    }
    unsigned ncuda = starpu_cuda_worker_get_count();
    if (verbose)
        fprintf(stderr, "extflow: %u CPU workers, %u CUDA workers, scheduler %s%s\n", starpu_cpu_worker_get_count(),
                ncuda, getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : conf.sched_policy_name ? conf.sched_policy_name : "lws",
                conf.sched_policy_name ? " (chosen because CUDA workers exist; set STARPU_SCHED to override)" : "");
    return 0;
}

void rt_shutdown(void)
{
    if (rt_mpi_size() > 1) rt_mpi_starpu_shutdown();
    else starpu_shutdown();
}

static void submit_or_fail(resolution *res, int ret, const char *what)
{
    if (ret != 0) res_fail(res, "StarPU refused a %s task: %s", what, strerror(-ret));
}

/* The multiply chunks of c->build (rt_mul_submit); a failure fails the run. */
static void submit_multiply(step_ctx *c, rt_chunks *k)
{
    char err[128];
    if (rt_mul_submit(&step_of(c)->run->mul, &c->build, c->s, (int)c->t, k, err, sizeof err) != 0)
        res_fail(c->res, "step (%d,%d): %s", c->s, c->t, err);
}

/* Submits cl (which reads the chunks; tag 0: none), then lets StarPU unregister them once it
 * is done. */
static void submit_after_chunks(step_ctx *c, struct starpu_codelet *cl, rt_chunks *k, starpu_tag_t tag,
                                const char *name)
{
    resolution *res = c->res;   /* c may be freed as soon as the task is submitted */
    int ret = tag ? starpu_task_insert(cl, STARPU_DATA_MODE_ARRAY, k->descr, (int)k->n, STARPU_CL_ARGS_NFREE, c,
                                       sizeof *c, STARPU_TAG, tag, STARPU_NAME, name, 0)
                  : starpu_task_insert(cl, STARPU_DATA_MODE_ARRAY, k->descr, (int)k->n, STARPU_CL_ARGS_NFREE, c,
                                       sizeof *c, STARPU_NAME, name, 0);
    submit_or_fail(res, ret, name);
    rt_chunks_release(k);
}

/* The continuations of a step's chain (step.h), given to the codelets in c->next. */
static starpu_tag_t done_tag_of(const step_ctx *c) { return tag_of(c->kernel_only ? TAG_EDGE : TAG_DONE, c->s, c->t); }

/* After plan: the multiply chunks of c->build, then reduce, which reads them. */
static void after_plan(step_ctx *c, int planned_ok)
{
    rt_chunks k = { 0 };
    if (planned_ok) submit_multiply(c, &k);
    account_chunks(c, k.n);
    submit_after_chunks(c, &cl_step_reduce, &k, 0, "step_reduce");
}

/* After reduce: the chunks of the rows it planned, if it wants them, then finish (tag DONE). */
static void after_reduce(step_ctx *c, int multiply_again)
{
    rt_chunks k = { 0 };
    if (multiply_again) submit_multiply(c, &k);
    account_chunks(c, k.n);         /* the chunks of plan were read: only these remain */
    submit_after_chunks(c, &cl_step_finish, &k, done_tag_of(c), "step_finish");
}

/* --- admission under --memory and --time-limit (runtime/admission.h) */
static void submit_plan(step_ctx *c);

static int admit(step_ctx *c) { return admission_admit(&step_of(c)->run->admission, &step_of(c)->ticket); }
static int cancelled(const step_ctx *c) { return step_of(c)->ticket.cancelled; }

/* c finished (or could not run): plan the waiting steps that may start now. */
static void release(step_ctx *c)
{
    admission *a = &step_of(c)->run->admission;
    admission_ticket *go[64];
    for (size_t n = admission_release(a, &step_of(c)->ticket, go, 64);; n = admission_release(a, NULL, go, 64)) {
        for (size_t i = 0; i < n; i++) submit_plan(go[i]->c);
        if (n < 64) break;
    }
}
/* --- end of admission */

/* Frees the step c and the runtime's state of it. */
static void free_step(step_ctx *c)
{
    rt_step *st = step_of(c);
    memacct_add(MEM_RUNTIME, -RT_JOB_BYTES);
    step_free(c);
    free(st);
}

static void after_finish(step_ctx *c)
{
    if (!c->kernel_only && !cancelled(c)) progress_step_done(c->s, c->t);
    account_chunks(c, 0);
    release(c);
    free_step(c);
}

static const step_next rt_next = { admit, after_plan, after_reduce, after_finish, cancelled };

/* The plan task of an admitted step that had to wait (its tag and dependencies were those of
 * its first plan task, which has run). */
static void submit_plan(step_ctx *c)
{
    resolution *res = c->res;
    int ret = starpu_task_insert(&cl_step_plan, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_PRIORITY, -(int)c->t,
                                 STARPU_NAME, c->kernel_only ? "edge_plan" : "step_plan", 0);
    submit_or_fail(res, ret, "step_plan");
    if (ret != 0) {     /* its chain cannot run: end it as a no-op so its DONE tag fires */
        starpu_tag_notify_from_apps(done_tag_of(c));
        release(c);
        free_step(c);
    }
}

/* Submits the plan task of a job with its tag dependencies. */
static int submit_job(rt_run *run, int s, deg_t t, int edge, starpu_tag_t *deps, int ndeps)
{
    resolution *res = run->res;
    rt_step *st = calloc(1, sizeof *st);
    if (!st) {  /* fire the tag its dependents wait on, or they never run (their steps are no-ops) */
        res_fail(res, "out of memory submitting step (%d,%d)", s, t);
        starpu_tag_notify_from_apps(tag_of(edge ? TAG_EDGE : TAG_DONE, s, t));
        return -1;
    }
    step_ctx *c = &st->c;
    st->run = run;
    st->ticket.c = c;
    c->res = res;
    c->s = s;
    c->t = t;
    c->kernel_only = edge;
    c->algo = edge ? &step_edge_kernel : step_algo_for(res, s);
    c->next = &rt_next;
    c->runtime = st;
    memacct_add(MEM_RUNTIME, RT_JOB_BYTES);
    starpu_tag_t plan = tag_of(edge ? TAG_EDGE_PLAN : TAG_PLAN, s, t);
    if (ndeps) starpu_tag_declare_deps_array(plan, (unsigned)ndeps, deps);
    int ret = starpu_task_insert(&cl_step_plan, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_TAG, plan,
                                 STARPU_PRIORITY, -(int)t, STARPU_NAME, edge ? "edge_plan" : "step_plan", 0);
    if (ret != 0) {
        memacct_add(MEM_RUNTIME, -RT_JOB_BYTES);
        free(st);
        submit_or_fail(res, ret, "step_plan");
        return -1;
    }
    return 0;
}

/* Submits job (s, t) (edge: the stem-edge kernel job there) with tag dependencies on the jobs
 * its algorithm names that are not done yet; an edge prerequisite is submitted here first. */
static void submit_with_deps(rt_run *run, int s, deg_t t, int edge)
{
    resolution *res = run->res;
    const step_algo *algo = edge ? &step_edge_kernel : step_algo_for(res, s);
    step_deps need;
    starpu_tag_t deps[4];
    int n = 0;
    algo->deps(res, s, t, &need);
    for (int k = 0; k < need.n; k++) {
        const step_dep *d = &need.d[k];
        if (d->edge) {
            submit_with_deps(run, d->s, d->t, 1);
            deps[n++] = tag_of(TAG_EDGE, d->s, d->t);
        } else if (!*res_done(res, d->s, d->t))
            deps[n++] = run->dist ? rt_dist_ready_tag(run->dist, d->s, d->t) : tag_of(TAG_DONE, d->s, d->t);
    }
    if (run->dist) n += rt_dist_extra_deps(run->dist, s, t, deps + n);   /* rows read from other ranks */
    submit_job(run, s, t, edge, deps, n);
}

/* EXTFLOW_STATS, one process: the critical path of the DAG this run executed, each job at its
 * span (cl_profile_cell: as if a worker were always free), and how its steps and the work
 * would fall on 2 and 4 ranks under the ownership rules of runtime/rt_mpi.c. A job's
 * prerequisites are its algorithm's (the rows read from other ranks add none in one process). */
static double path_to(const resolution *res, int s, deg_t t, int edge, double *L, long *pred, uint8_t *seen)
{
    long k = (long)res_cell(res, s, t);
    if (seen[k]) return L[k];
    const step_algo *algo = edge ? &step_edge_kernel : step_algo_for(res, s);
    step_deps need;
    algo->deps(res, s, t, &need);
    double best = 0;
    long from = -1;
    for (int i = 0; i < need.n; i++) {
        const step_dep *d = &need.d[i];
        if (d->s < 0 || d->s > res->max_s || d->t < d->s || d->t - d->s > res->max_n) continue;
        double l = path_to(res, d->s, d->t, d->edge, L, pred, seen);
        if (l > best || from < 0) best = l, from = (long)res_cell(res, d->s, d->t);
    }
    uint64_t work, span;
    cl_profile_cell(s, (int)t, &work, &span);
    seen[k] = 1;
    pred[k] = from;
    return L[k] = best + 1e-9 * (double)span;
}

static void report_dag(const resolution *res)
{
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    double *L = calloc(cells, sizeof *L), own[3][4] = { { 0 } }, total = 0, *row = calloc((size_t)res->max_s + 1, sizeof *row);
    long *pred = calloc(cells, sizeof *pred), end = -1;
    uint8_t *seen = calloc(cells, 1);
    if (!L || !pred || !seen) goto out;
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) {
            if (!res_in_region(res, s, t)) continue;
            long k = (long)res_cell(res, s, t);
            if (path_to(res, s, t, 0, L, pred, seen) > (end < 0 ? -1 : L[end])) end = k;
            uint64_t work, span;
            cl_profile_cell(s, (int)t, &work, &span);
            total += 1e-9 * (double)work;
            if (row) row[s] += 1e-9 * (double)work;
            own[0][s / 2 % 2] += 1e-9 * (double)work;     /* pairs, 2 ranks */
            own[1][s % 2] += 1e-9 * (double)work;         /* rows, 2 ranks */
            own[2][s / 2 % 4] += 1e-9 * (double)work;     /* pairs, 4 ranks */
        }
    if (end < 0) goto out;
    int steps = 0, hops_pairs = 0, hops_rows = 0, s_end = (int)(end / (res->max_n + 1)), s_start = s_end, prev = -1;
    double low = 0;     /* of the path's time, in rows 0 and 1 */
    for (long k = end; k >= 0; k = pred[k], steps++) {
        int s = (int)(k / (res->max_n + 1));
        if (s <= 1) low += L[k] - (pred[k] >= 0 ? L[pred[k]] : 0);
        if (prev >= 0 && s / 2 % 2 != prev / 2 % 2) hops_pairs++;
        if (prev >= 0 && s % 2 != prev % 2) hops_rows++;
        prev = s_start = s;
    }
    fprintf(stderr, "extflow: critical path (each job at its span: plan + reduce + finish + its longest multiply chunk): "
            "%.2f s over %d jobs (%.2f s of it in rows 0 and 1), row %d to row %d (at (%d,%d)); rank changes along it with "
            "2 ranks: %d (pairs), %d (rows)\n", L[end], steps, low, s_start, s_end, s_end,
            s_end + (int)(end % (res->max_n + 1)), hops_pairs, hops_rows);
    fprintf(stderr, "extflow: work %.1f s; by owner with 2 ranks: pairs %.1f / %.1f s, rows %.1f / %.1f s; "
            "4 ranks, pairs: %.1f / %.1f / %.1f / %.1f s\n", total, own[0][0], own[0][1], own[1][0], own[1][1],
            own[2][0], own[2][1], own[2][2], own[2][3]);
    fprintf(stderr, "extflow: work by row s = 0, 1, ... (s):");
    for (int s = 0; row && s <= res->max_s; s++) fprintf(stderr, " %.2f", row[s]);
    fprintf(stderr, "\n");
out:
    free(row);
    free(L);
    free(pred);
    free(seen);
}

int rt_resolve(resolution *res, const rt_progress *progress)
{
    rt_run *run = calloc(1, sizeof *run);
    if (!run) {
        res_fail(res, "out of memory starting the run");
        return -1;
    }
    run->res = res;
    run->progress = *progress;
    admission_init(&run->admission, progress->memory_budget, progress->time_limit, progress->start);
    char err[128];
    /* the start-up deadline is set on one rank only (tools/extflow.c): there a limit that has
     * passed before the first task ends the run now, or during the basis's flat copy */
    int mrc = milnor_deadline_passed() ? MILNOR_STOPPED : rt_mul_init(&run->mul, &res->A, err, sizeof err);
    if (mrc != 0) {
        if (mrc != MILNOR_STOPPED) res_fail(res, "%s", err);
        admission_clear(&run->admission);
        free(run);
        return mrc == MILNOR_STOPPED ? 1 : -1;
    }
    cl_profile_enable(run->progress.verbose);
    if (run->progress.verbose) cl_profile_cells(res->max_s, res->max_n);
    struct timespec began, ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    run->dist = rt_dist_new(res);   /* before any task: it takes the done set all ranks share */
    /* distributed: every job is submitted even after a failure (they become no-ops), since
     * other ranks wait for what they publish */
    /* one process stops submitting once the time limit has passed (jobs depend on smaller t
     * only); ranks submit every job, since others wait for what they publish */
    for (deg_t t = 0; t <= res->max_t && (run->dist || !res_check_writes(res)); t++) {
        if (!run->dist && admission_time_up(&run->admission)) break;
        for (int s = 0; s <= res->max_s && s <= t; s++)
            if (res_in_region(res, s, t) && !*res_done(res, s, t) && (!run->dist || rt_dist_owns(run->dist, s, t)))
                submit_with_deps(run, s, t, 0);
    }
    if (run->dist) {                /* the blobs between ranks, then every rank's tasks */
        rt_dist_submit_exchanges(run->dist);
        rt_dist_finish(run->dist, run->progress.verbose);
    } else
        starpu_task_wait_for_all();
    clock_gettime(CLOCK_MONOTONIC, &ended);
    rt_mul_clear(&run->mul);
    res_flush_stages(res);      /* what finished is kept, even after a failure */
    int stopped = admission_stopped(&run->admission);
    if (run->progress.admission_report)
        fprintf(stderr, "extflow: at most %u bidegrees in flight; %llu times one waited for memory\n",
                run->admission.max_in_flight, (unsigned long long)run->admission.deferred);
    admission_clear(&run->admission);
    if (run->progress.verbose) {
        uint64_t cpu, cuda;
        cl_milnor_mul_stats(&cpu, &cuda);
        fprintf(stderr, "extflow: Milnor products: %llu (job x term) pairs, %.1f%% on CUDA workers\n",
                (unsigned long long)(cpu + cuda), cpu + cuda ? 100.0 * (double)cuda / (double)(cpu + cuda) : 0.0);
        cl_profile_report(stderr, (double)(ended.tv_sec - began.tv_sec) + 1e-9 * (double)(ended.tv_nsec - began.tv_nsec),
                          starpu_worker_get_count());
        if (!run->dist) report_dag(res);
        cl_profile_cells(-1, -1);
    }
    free(run);
    return res_failed(res) ? -1 : stopped ? 1 : 0;
}
