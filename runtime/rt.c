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
#include "runtime/rt_tags.h"
#include "stages/progress.h"
#include "stages/step.h"
#ifdef STARPU_USE_CUDA
#include "algebra/milnor_cuda.h"
#endif


/* A multiply chunk is consecutive rows holding about chunk_pairs (job x term) pairs (at most
 * CHUNK_MAX_ROWS rows): CPU-only runs keep chunks near the former 512 rows (a chunk's task
 * overhead is µs, its work about a millisecond on one core); with CUDA workers chunks are
 * larger, so one launch fills more of the GPU. EXTFLOW_CHUNK_PAIRS overrides (measurements). */
#define CHUNK_PAIRS_CPU 12288
#define CHUNK_PAIRS_CUDA 65536
#define CHUNK_MAX_ROWS 8192
/* With CUDA workers, a step's multiply goes by its size (EXTFLOW_GPU_STEP_PAIRS, "off": any
 * worker takes any chunk, 65536 pairs each): a step of at least GPU_STEP_PAIRS pairs runs on
 * the GPUs only, in chunks of GPU_CHUNK_PAIRS (EXTFLOW_GPU_CHUNK_PAIRS; few launches that fill
 * the device: a small chunk's fixed cost there, allocation and transfer from pageable memory,
 * was ~10 ms); smaller steps run on the CPU workers only, in CPU-sized chunks.
 * EXTFLOW_GPU_CPU_HELP=1 lets CPU workers take the large steps' chunks too (measured slower:
 * a CPU holding a big chunk holds up its step). EXTFLOW_GPU_CPU_SHARE=f (0 <= f <= 0.9) gives
 * the last f of such a step's pairs to the CPU workers in chunks of SHARE_CHUNK_PAIRS, so that
 * many CPU workers share it and none holds the step up for long. Figures: docs/perf.md. */
#define GPU_STEP_PAIRS (1u << 18)
#define GPU_CHUNK_PAIRS (1u << 26)
#define GPU_CHUNK_MAX_ROWS (1u << 20)
#define SHARE_CHUNK_PAIRS (1u << 16)    /* CPU chunks of a GPU step's CPU share: ~10 ms each */

/* --- memory account: StarPU's share (algebra/memacct.h, MEM_RUNTIME) ---
 * StarPU's allocations cannot be seen from here; what a task or a registered handle costs was
 * measured once (Debian's StarPU 1.3, RSS over 100000 of them: a vector handle 4.5 KB, a
 * submitted task waiting on a tag 1.9 KB), and the runtime counts those per live object:
 * a job's plan task and step_ctx from submission to the end of its finish, and a multiply
 * phase's chunk handles and tasks until the task that reads them runs. */
#define RT_HANDLE_BYTES 4608
#define RT_TASK_BYTES 1920
#define RT_JOB_BYTES ((int64_t)(RT_TASK_BYTES + sizeof(step_ctx)))

static void account_chunks(step_ctx *c, uint32_t nchunks)
{
    int64_t now = nchunks ? (int64_t)(nchunks + 2) * RT_HANDLE_BYTES +
                            (int64_t)nchunks * (RT_TASK_BYTES + (int64_t)sizeof(struct cl_milnor_mul_args))
                          : 0;
    memacct_add(MEM_RUNTIME, now - c->runtime_bytes);
    c->runtime_bytes = now;
}
/* --- end of the memory account's part */

/* One run of rt_resolve: everything its tasks share, reached through step_ctx.runtime. */
typedef struct rt_run {
    resolution *res;
    starpu_data_handle_t basis;     /* the flat Milnor basis, read by every multiply task */
    uint32_t *basis_words;
    uint64_t chunk_pairs;           /* pairs per chunk where any worker may take it */
    int gpu_by_size;                /* CUDA workers exist and EXTFLOW_GPU_STEP_PAIRS is not "off" */
    uint64_t gpu_step_pairs;        /* gpu_by_size: steps this large run on the GPUs only */
    uint64_t gpu_chunk_pairs;       /* pairs per chunk of such a step (EXTFLOW_GPU_CHUNK_PAIRS) */
    int gpu_cpu_help;               /* EXTFLOW_GPU_CPU_HELP: CPU workers may take those chunks too */
    double gpu_cpu_share;           /* EXTFLOW_GPU_CPU_SHARE: share of a GPU step's pairs in CPU chunks */
    int gpu_verify;
    FILE *capture;                  /* EXTFLOW_CAPTURE_MUL: every capture_every-th chunk */
    unsigned long capture_every, captured;
    pthread_mutex_t capture_lock;
    rt_progress progress;
    rt_dist *dist;                  /* several MPI ranks (rt_mpi.h); NULL: this process alone */
    admission admission;            /* --memory, --time-limit */
} rt_run;

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

/* Benchmark input: appends a chunk to EXTFLOW_CAPTURE_MUL (bench/milnor_bench --jobs). */
static void capture_chunk(rt_run *run, const milnor_row_job *jobs, uint32_t n, const milnor_term *terms,
                          uint32_t stride)
{
    pthread_mutex_lock(&run->capture_lock);
    if (run->capture && run->captured++ % run->capture_every == 0 &&
        milnor_batch_record_write(run->capture, jobs, n, terms, stride) < 0) {
        fclose(run->capture);
        run->capture = NULL;
        fprintf(stderr, "extflow: EXTFLOW_CAPTURE_MUL: write failed; capture stopped\n");
    }
    pthread_mutex_unlock(&run->capture_lock);
}

/* How one step's multiply is cut and where its chunks may run: the step's first `split`
 * pairs in chunks of about `pairs` pairs on `where`, the rest in CPU chunks. */
typedef struct chunking {
    uint64_t pairs;             /* per chunk, about */
    uint32_t max_rows;
    unsigned where;             /* STARPU_CPU | STARPU_CUDA, or one of them */
    uint64_t split;             /* UINT64_MAX: the whole step */
} chunking;

static chunking chunking_for(const rt_run *run, const row_build *b)
{
    /* a profile's basis (resolving over a sub-Hopf-algebra): CPU workers only, since the GPU
     * kernel indexes products by the whole algebra's seqno table (algebra/milnor.h) */
    if (run->basis_words[0] == MILNOR_FLAT_MAGIC_PROFILE)
        return (chunking){ CHUNK_PAIRS_CPU, CHUNK_MAX_ROWS, STARPU_CPU, UINT64_MAX };
    if (!run->gpu_by_size) return (chunking){ run->chunk_pairs, CHUNK_MAX_ROWS, STARPU_CPU | STARPU_CUDA, UINT64_MAX };
    uint64_t total = 0;
    for (uint32_t r = 0; r < b->nrows; r++) total += b->jobs[r].n_terms;
    if (total >= run->gpu_step_pairs)
        return (chunking){ run->gpu_chunk_pairs, GPU_CHUNK_MAX_ROWS,
                           run->gpu_cpu_help ? STARPU_CPU | STARPU_CUDA : STARPU_CUDA,
                           run->gpu_cpu_share > 0 ? (uint64_t)((double)total * (1 - run->gpu_cpu_share)) : UINT64_MAX };
    return (chunking){ CHUNK_PAIRS_CPU, CHUNK_MAX_ROWS, STARPU_CPU, UINT64_MAX };
}

/* The chunk starting at row0, `done` pairs into the step: its rows (until its kind's pairs or
 * rows are reached), pairs and workers. */
static uint32_t chunk_rows(const row_build *b, uint32_t row0, uint64_t done, const chunking *k,
                           uint64_t *pairs, unsigned *where)
{
    int first = done < k->split;
    uint64_t limit = first ? (k->split - done < k->pairs ? k->split - done : k->pairs) : SHARE_CHUNK_PAIRS;
    uint32_t max_rows = first ? k->max_rows : CHUNK_MAX_ROWS;
    uint32_t n = 0;
    *where = first ? k->where : STARPU_CPU;
    *pairs = 0;
    while (row0 + n < b->nrows && n < max_rows && (*pairs < limit || n == 0))
        *pairs += b->jobs[row0 + n++].n_terms;
    return n;
}

/* Registers c->build's arrays and submits one multiply task per chunk of rows; returns the
 * chunk handles (R access for the task that consumes them) in *descr. */
static uint32_t submit_multiply(step_ctx *c, struct starpu_data_descr **descr,
                                starpu_data_handle_t *shared)
{
    row_build *b = &c->build;
    rt_run *run = c->runtime;
    *descr = NULL;
    if (b->nrows == 0 || b->ncols == 0 || b->nterms == 0) return 0;
    uint32_t nchunks = 0;
    uint64_t pairs, done = 0;
    unsigned where;
    chunking cut = chunking_for(run, b);
    for (uint32_t r = 0; r < b->nrows; nchunks++, done += pairs) r += chunk_rows(b, r, done, &cut, &pairs, &where);
    *descr = calloc(nchunks, sizeof **descr);
    if (!*descr) {
        res_fail(c->res, "out of memory submitting step (%d,%d)", c->s, c->t);
        return 0;
    }
    starpu_vector_data_register(&shared[0], STARPU_MAIN_RAM, (uintptr_t)b->jobs, b->nrows, sizeof *b->jobs);
    starpu_vector_data_register(&shared[1], STARPU_MAIN_RAM, (uintptr_t)b->terms, (uint32_t)b->nterms,
                                sizeof *b->terms);
    done = 0;
    for (uint32_t k = 0, row0 = 0; k < nchunks; k++, done += pairs) {
        uint32_t n = chunk_rows(b, row0, done, &cut, &pairs, &where);
        starpu_data_handle_t h;
        starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)f2mat_row(&b->D, row0),
                                    n * b->D.stride, sizeof(uint64_t));
        (*descr)[k] = (struct starpu_data_descr){ h, STARPU_R };
        struct cl_milnor_mul_args *args = malloc(sizeof *args);   /* freed by StarPU */
        if (!args) {
            res_fail(c->res, "out of memory submitting step (%d,%d)", c->s, c->t);
            return k + 1;
        }
        *args = (struct cl_milnor_mul_args){ row0, b->D.stride, pairs, run->gpu_verify, c->s, (int)c->t };
        if (run->capture) capture_chunk(run, b->jobs + row0, n, b->terms, b->D.stride);
        submit_or_fail(c->res, starpu_task_insert(&cl_milnor_mul, STARPU_R, run->basis, STARPU_R, shared[0],
                                                  STARPU_R, shared[1], STARPU_W, h, STARPU_CL_ARGS, args,
                                                  sizeof *args, STARPU_EXECUTE_WHERE, (unsigned long long)where,
                                                  STARPU_NAME, "milnor_mul", 0),
                       "milnor_mul");
        row0 += n;
    }
    return nchunks;
}

/* Submits cl (which reads the chunks; tag 0: none), then lets StarPU unregister them once it
 * is done. */
static void submit_after_chunks(step_ctx *c, struct starpu_codelet *cl, struct starpu_data_descr *descr,
                                uint32_t nchunks, starpu_data_handle_t *shared, starpu_tag_t tag,
                                const char *name)
{
    resolution *res = c->res;   /* c may be freed as soon as the task is submitted */
    int ret = tag ? starpu_task_insert(cl, STARPU_DATA_MODE_ARRAY, descr, (int)nchunks, STARPU_CL_ARGS_NFREE, c,
                                       sizeof *c, STARPU_TAG, tag, STARPU_NAME, name, 0)
                  : starpu_task_insert(cl, STARPU_DATA_MODE_ARRAY, descr, (int)nchunks, STARPU_CL_ARGS_NFREE, c,
                                       sizeof *c, STARPU_NAME, name, 0);
    submit_or_fail(res, ret, name);
    for (uint32_t k = 0; k < nchunks; k++) starpu_data_unregister_submit(descr[k].handle);
    if (nchunks) {
        starpu_data_unregister_submit(shared[0]);
        starpu_data_unregister_submit(shared[1]);
    }
    free(descr);
}

/* The continuations of a step's chain (step.h), given to the codelets in c->next. */
static starpu_tag_t done_tag_of(const step_ctx *c) { return tag_of(c->kernel_only ? TAG_EDGE : TAG_DONE, c->s, c->t); }

/* After plan: the multiply chunks of c->build, then reduce, which reads them. */
static void after_plan(step_ctx *c, int planned_ok)
{
    struct starpu_data_descr *descr = NULL;
    starpu_data_handle_t shared[2];
    uint32_t nchunks = planned_ok ? submit_multiply(c, &descr, shared) : 0;
    account_chunks(c, nchunks);
    submit_after_chunks(c, &cl_step_reduce, descr, nchunks, shared, 0, "step_reduce");
}

/* After reduce: the chunks of the rows it planned, if it wants them, then finish (tag DONE). */
static void after_reduce(step_ctx *c, int multiply_again)
{
    struct starpu_data_descr *descr = NULL;
    starpu_data_handle_t shared[2];
    uint32_t nchunks = multiply_again ? submit_multiply(c, &descr, shared) : 0;
    account_chunks(c, nchunks);     /* the chunks of plan were read: only these remain */
    submit_after_chunks(c, &cl_step_finish, descr, nchunks, shared, done_tag_of(c), "step_finish");
}

/* --- admission under --memory and --time-limit (runtime/admission.h) */
static void submit_plan(step_ctx *c);

static int admit(step_ctx *c) { return admission_admit(&((rt_run *)c->runtime)->admission, c); }

/* c finished (or could not run): plan the waiting steps that may start now. */
static void release(step_ctx *c)
{
    admission *a = &((rt_run *)c->runtime)->admission;
    step_ctx *go[64];
    for (size_t n = admission_release(a, c, go, 64);; n = admission_release(a, NULL, go, 64)) {
        for (size_t i = 0; i < n; i++) submit_plan(go[i]);
        if (n < 64) break;
    }
}
/* --- end of admission */

static void after_finish(step_ctx *c)
{
    if (!c->kernel_only && !c->cancelled) progress_step_done(c->s, c->t);
    account_chunks(c, 0);
    release(c);
    memacct_add(MEM_RUNTIME, -RT_JOB_BYTES);
    step_free(c);
    free(c);
}

static const step_next rt_next = { admit, after_plan, after_reduce, after_finish };

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
        memacct_add(MEM_RUNTIME, -RT_JOB_BYTES);
        step_free(c);
        free(c);
    }
}

/* Submits the plan task of a job with its tag dependencies. */
static int submit_job(rt_run *run, int s, deg_t t, int edge, starpu_tag_t *deps, int ndeps)
{
    resolution *res = run->res;
    step_ctx *c = calloc(1, sizeof *c);
    if (!c) {   /* fire the tag its dependents wait on, or they never run (their steps are no-ops) */
        res_fail(res, "out of memory submitting step (%d,%d)", s, t);
        starpu_tag_notify_from_apps(tag_of(edge ? TAG_EDGE : TAG_DONE, s, t));
        return -1;
    }
    c->res = res;
    c->s = s;
    c->t = t;
    c->kernel_only = edge;
    c->algo = edge ? &step_edge_kernel : step_algo_for(res, s);
    c->next = &rt_next;
    c->runtime = run;
    memacct_add(MEM_RUNTIME, RT_JOB_BYTES);
    starpu_tag_t plan = tag_of(edge ? TAG_EDGE_PLAN : TAG_PLAN, s, t);
    if (ndeps) starpu_tag_declare_deps_array(plan, (unsigned)ndeps, deps);
    int ret = starpu_task_insert(&cl_step_plan, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_TAG, plan,
                                 STARPU_PRIORITY, -(int)t, STARPU_NAME, edge ? "edge_plan" : "step_plan", 0);
    if (ret != 0) {
        memacct_add(MEM_RUNTIME, -RT_JOB_BYTES);
        free(c);
        submit_or_fail(res, ret, "step_plan");
        return -1;
    }
    return 0;
}

/* The flat Milnor basis as a read-only StarPU handle: StarPU copies it to each GPU once and
 * keeps it there for the whole run (it never changes). */
static int register_basis(rt_run *run)
{
    size_t words = milnor_flat_words(&run->res->A);
    run->basis_words = words ? malloc(words * sizeof *run->basis_words) : NULL;
    if (!run->basis_words || milnor_flat_write(&run->res->A, run->basis_words, words) < 0) {
        free(run->basis_words);
        run->basis_words = NULL;
        res_fail(run->res, "out of memory flattening the Milnor basis (%zu MB)", words * 4 >> 20);
        return -1;
    }
    starpu_vector_data_register(&run->basis, STARPU_MAIN_RAM, (uintptr_t)run->basis_words, (uint32_t)words,
                                sizeof *run->basis_words);
    memacct_add(MEM_MILNOR, (int64_t)(words * sizeof *run->basis_words));
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
    admission_init(&run->admission, progress->memory_budget, progress->time_limit);
    if (register_basis(run) < 0) {
        admission_clear(&run->admission);
        free(run);
        return -1;
    }
    const char *cp = getenv("EXTFLOW_CHUNK_PAIRS");
    run->chunk_pairs = cp && atol(cp) > 0 ? (uint64_t)atol(cp)
                                          : starpu_cuda_worker_get_count() ? CHUNK_PAIRS_CUDA : CHUNK_PAIRS_CPU;
    const char *gs = getenv("EXTFLOW_GPU_STEP_PAIRS");
    run->gpu_by_size = starpu_cuda_worker_get_count() > 0 && !(gs && strcmp(gs, "off") == 0);
    run->gpu_step_pairs = gs && *gs && strcmp(gs, "off") != 0 ? strtoull(gs, NULL, 10) : GPU_STEP_PAIRS;
    const char *gc = getenv("EXTFLOW_GPU_CHUNK_PAIRS"), *gh = getenv("EXTFLOW_GPU_CPU_HELP");
    run->gpu_chunk_pairs = gc && atol(gc) > 0 ? (uint64_t)atol(gc) : GPU_CHUNK_PAIRS;
    run->gpu_cpu_help = gh && *gh && strcmp(gh, "0") != 0;
    const char *gf = getenv("EXTFLOW_GPU_CPU_SHARE");
    run->gpu_cpu_share = gf && *gf ? strtod(gf, NULL) : 0;
    if (!(run->gpu_cpu_share >= 0 && run->gpu_cpu_share <= 0.9)) run->gpu_cpu_share = 0;   /* NaN too */
    const char *gv = getenv("EXTFLOW_GPU_VERIFY"), *cap = getenv("EXTFLOW_CAPTURE_MUL"),
               *every = getenv("EXTFLOW_CAPTURE_EVERY");
    run->gpu_verify = gv && *gv && strcmp(gv, "0") != 0;
    run->capture = cap && *cap ? fopen(cap, "ab") : NULL;
    run->capture_every = every && atol(every) > 0 ? (unsigned long)atol(every) : 1;
    pthread_mutex_init(&run->capture_lock, NULL);
    cl_profile_enable(run->progress.verbose);
    if (run->progress.verbose) cl_profile_cells(res->max_s, res->max_n);
    struct timespec began, ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    run->dist = rt_dist_new(res);   /* before any task: it takes the done set all ranks share */
    /* distributed: every job is submitted even after a failure (they become no-ops), since
     * other ranks wait for what they publish */
    for (deg_t t = 0; t <= res->max_t && (run->dist || !res_failed(res)); t++)
        for (int s = 0; s <= res->max_s && s <= t; s++)
            if (res_in_region(res, s, t) && !*res_done(res, s, t) && (!run->dist || rt_dist_owns(run->dist, s, t)))
                submit_with_deps(run, s, t, 0);
    if (run->dist) {                /* the blobs between ranks, then every rank's tasks */
        rt_dist_submit_exchanges(run->dist);
        rt_dist_finish(run->dist, run->progress.verbose);
    } else
        starpu_task_wait_for_all();
    clock_gettime(CLOCK_MONOTONIC, &ended);
    starpu_data_unregister(run->basis);
    if (run->capture) fclose(run->capture);
    pthread_mutex_destroy(&run->capture_lock);
    memacct_add(MEM_MILNOR, -(int64_t)(milnor_flat_words(&res->A) * sizeof *run->basis_words));
    free(run->basis_words);
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
