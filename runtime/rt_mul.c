/* rt_mul.c — the multiply chunks of a row_build as cl_milnor_mul tasks (see rt_mul.h). */
#include "runtime/rt_mul.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/memacct.h"
#include "codelets/codelets.h"
#include "stages/secbatch.h"

/* A multiply chunk is consecutive rows holding about chunk_pairs (job x term) pairs (at most
 * CHUNK_MAX_ROWS rows): CPU-only runs keep chunks near the former 512 rows (a chunk's task
 * overhead is µs, its work about a millisecond on one core); with CUDA workers chunks are
 * larger, so one launch fills more of the GPU. EXTFLOW_CHUNK_PAIRS overrides (measurements). */
#define CHUNK_PAIRS_CPU 12288
#define CHUNK_PAIRS_CUDA 65536
#define CHUNK_MAX_ROWS 8192
/* With CUDA workers, a build's multiply goes by its size (EXTFLOW_GPU_STEP_PAIRS, "off": any
 * worker takes any chunk, 65536 pairs each): a build of at least GPU_STEP_PAIRS pairs runs on
 * the GPUs only, in chunks of GPU_CHUNK_PAIRS (EXTFLOW_GPU_CHUNK_PAIRS; few launches that fill
 * the device: a small chunk's fixed cost there, allocation and transfer from pageable memory,
 * was ~10 ms); smaller builds run on the CPU workers only, in CPU-sized chunks.
 * EXTFLOW_GPU_CPU_HELP=1 lets CPU workers take the large builds' chunks too (measured slower:
 * a CPU holding a big chunk holds up its step). EXTFLOW_GPU_CPU_SHARE=f (0 <= f <= 0.9) gives
 * the last f of such a build's pairs to the CPU workers in chunks of SHARE_CHUNK_PAIRS, so that
 * many CPU workers share it and none holds the step up for long (at stem 160, f = 0.3 saved
 * 6%, within noise: the default is 0). Figures: docs/perf.md. */
#define GPU_STEP_PAIRS (1u << 18)
/* An odd-p pair costs ~1.4 µs on one core (S_3 at stem 200: 19.3M pairs, 26.7 s), some 15x a
 * mod-2 one: its builds go to the GPUs from GPU_P_STEP_PAIRS pairs on (EXTFLOW_GPU_P_STEP_PAIRS;
 * scaled from the mod-2 threshold by that ratio, not yet measured on a GPU: bench/plans/gpu-oddp.plan). */
#define GPU_P_STEP_PAIRS (1u << 14)
#define GPU_CHUNK_PAIRS (1u << 26)
#define GPU_CHUNK_MAX_ROWS (1u << 20)
#define SHARE_CHUNK_PAIRS (1u << 16)    /* CPU chunks of a GPU build's CPU share: ~10 ms each */
#define GROUP_GPU_PAIRS (1u << 16)      /* a grouped row this large may go to a GPU */

/* The mod-4 products of d2's composites (cl_pair_mul) by the same rule as a build's: with CUDA
 * workers a cell of at least PAIR_GPU_STEP_PAIRS pairs (EXTFLOW_GPU_PAIR_STEP_PAIRS) goes to
 * the GPUs only in chunks of PAIR_GPU_CHUNK_PAIRS, a smaller one to the CPU workers in chunks of
 * PAIR_CHUNK_PAIRS_CPU; "off" lets any worker take any chunk. A mod-4 pair costs ~2 µs on one
 * core against ~35 ns on an H200 (docs/secondary.md), hence thresholds far below the mod-2 ones. */
#define PAIR_CHUNK_PAIRS_CPU 4096
#define PAIR_GPU_STEP_PAIRS 4096
#define PAIR_GPU_CHUNK_PAIRS (1u << 24)

int rt_mul_init(rt_mul *m, const milnor_basis *A, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->words = milnor_flat_words(A);
    m->basis_words = m->words ? malloc(m->words * sizeof *m->basis_words) : NULL;
    int frc = m->basis_words ? milnor_flat_write(A, m->basis_words, m->words) : -1;
    if (frc < 0) {
        free(m->basis_words);
        m->basis_words = NULL;
        if (frc == MILNOR_STOPPED) snprintf(err, errlen, "stopped at the time limit flattening the Milnor basis");
        else snprintf(err, errlen, "out of memory flattening the Milnor basis (%zu MB)", m->words * 4 >> 20);
        return frc;
    }
    starpu_vector_data_register(&m->basis, STARPU_MAIN_RAM, (uintptr_t)m->basis_words, (uint32_t)m->words,
                                sizeof *m->basis_words);
    memacct_add(MEM_MILNOR, (int64_t)(m->words * sizeof *m->basis_words));
    m->ncuda = starpu_cuda_worker_get_count();
    const char *cp = getenv("EXTFLOW_CHUNK_PAIRS");
    m->chunk_pairs = cp && atol(cp) > 0 ? (uint64_t)atol(cp) : m->ncuda ? CHUNK_PAIRS_CUDA : CHUNK_PAIRS_CPU;
    const char *gs = getenv("EXTFLOW_GPU_STEP_PAIRS");
    m->gpu_by_size = m->ncuda > 0 && !(gs && strcmp(gs, "off") == 0);
    m->gpu_step_pairs = gs && *gs && strcmp(gs, "off") != 0 ? strtoull(gs, NULL, 10) : GPU_STEP_PAIRS;
    const char *gp = getenv("EXTFLOW_GPU_P_STEP_PAIRS");
    m->gpu_step_pairs_p = gp && atol(gp) > 0 ? (uint64_t)atol(gp) : GPU_P_STEP_PAIRS;
    const char *gc = getenv("EXTFLOW_GPU_CHUNK_PAIRS"), *gh = getenv("EXTFLOW_GPU_CPU_HELP");
    m->gpu_chunk_pairs = gc && atol(gc) > 0 ? (uint64_t)atol(gc) : GPU_CHUNK_PAIRS;
    m->gpu_cpu_help = gh && *gh && strcmp(gh, "0") != 0;
    const char *gf = getenv("EXTFLOW_GPU_CPU_SHARE");
    m->gpu_cpu_share = gf && *gf ? strtod(gf, NULL) : 0;
    if (!(m->gpu_cpu_share >= 0 && m->gpu_cpu_share <= 0.9)) m->gpu_cpu_share = 0;   /* NaN too */
    const char *ps = getenv("EXTFLOW_GPU_PAIR_STEP_PAIRS");
    m->pair_any = ps && strcmp(ps, "off") == 0;
    m->pair_step_pairs = ps && *ps && !m->pair_any ? strtoull(ps, NULL, 10) : PAIR_GPU_STEP_PAIRS;
    const char *gv = getenv("EXTFLOW_GPU_VERIFY"), *cap = getenv("EXTFLOW_CAPTURE_MUL"),
               *every = getenv("EXTFLOW_CAPTURE_EVERY");
    m->gpu_verify = gv && *gv && strcmp(gv, "0") != 0;
    m->capture = cap && *cap ? fopen(cap, "ab") : NULL;
    if (cap && *cap && !m->capture)    /* the run goes on; the capture asked for is not made */
        fprintf(stderr, "extflow: EXTFLOW_CAPTURE_MUL: cannot write %s: %s (no capture)\n", cap, strerror(errno));
    m->capture_every = every && atol(every) > 0 ? (unsigned long)atol(every) : 1;
    pthread_mutex_init(&m->capture_lock, NULL);
    return 0;
}

int rt_mul_init_p(rt_mul *m, const milnor_p_basis *A, char *err, size_t errlen)
{
    m->pwords = milnor_p_flat_words(A);
    m->pbasis_words = m->pwords ? malloc(m->pwords * sizeof *m->pbasis_words) : NULL;
    if (!m->pbasis_words || milnor_p_flat_write(A, m->pbasis_words, m->pwords) != 0) {
        free(m->pbasis_words);
        m->pbasis_words = NULL;
        snprintf(err, errlen, "out of memory flattening the odd-p Milnor basis (%zu MB)", m->pwords * 4 >> 20);
        return -1;
    }
    starpu_vector_data_register(&m->pbasis, STARPU_MAIN_RAM, (uintptr_t)m->pbasis_words, (uint32_t)m->pwords,
                                sizeof *m->pbasis_words);
    memacct_add(MEM_MILNOR, (int64_t)(m->pwords * sizeof *m->pbasis_words));
    return 0;
}

void rt_mul_clear(rt_mul *m)
{
    if (m->pbasis_words) {
        starpu_data_unregister(m->pbasis);
        memacct_add(MEM_MILNOR, -(int64_t)(m->pwords * sizeof *m->pbasis_words));
        free(m->pbasis_words);
        m->pbasis_words = NULL;
    }
    if (!m->basis_words) return;
    starpu_data_unregister(m->basis);
    if (m->capture) fclose(m->capture);
    pthread_mutex_destroy(&m->capture_lock);
    memacct_add(MEM_MILNOR, -(int64_t)(m->words * sizeof *m->basis_words));
    free(m->basis_words);
    memset(m, 0, sizeof *m);
}

/* Benchmark input: appends a chunk to EXTFLOW_CAPTURE_MUL (bench/milnor_bench --jobs). */
static void capture_chunk(rt_mul *m, const milnor_row_job *jobs, uint32_t n, const milnor_term *terms, uint32_t stride)
{
    pthread_mutex_lock(&m->capture_lock);
    if (m->capture && m->captured++ % m->capture_every == 0 &&
        milnor_batch_record_write(m->capture, jobs, n, terms, stride) < 0) {
        fclose(m->capture);
        m->capture = NULL;
        fprintf(stderr, "extflow: EXTFLOW_CAPTURE_MUL: write failed; capture stopped\n");
    }
    pthread_mutex_unlock(&m->capture_lock);
}

/* The chunking of a build of `pairs` pairs, on the GPUs from step_pairs on (cpu_share: the last EXTFLOW_GPU_CPU_SHARE of a
 * GPU build may go to CPU chunks). */
static rt_chunking chunking_of(const rt_mul *m, uint64_t pairs, uint64_t step_pairs, int cpu_share)
{
    if (!m->gpu_by_size) return (rt_chunking){ m->chunk_pairs, CHUNK_MAX_ROWS, STARPU_CPU | STARPU_CUDA, UINT64_MAX };
    if (pairs >= step_pairs)
        return (rt_chunking){ m->gpu_chunk_pairs, GPU_CHUNK_MAX_ROWS,
                              m->gpu_cpu_help ? STARPU_CPU | STARPU_CUDA : STARPU_CUDA,
                              cpu_share && m->gpu_cpu_share > 0 ? (uint64_t)((double)pairs * (1 - m->gpu_cpu_share))
                                                                : UINT64_MAX };
    return (rt_chunking){ CHUNK_PAIRS_CPU, CHUNK_MAX_ROWS, STARPU_CPU, UINT64_MAX };
}

rt_chunking rt_mul_chunking(const rt_mul *m, const row_build *b, uint64_t *pairs)
{
    *pairs = rb_pairs(b);
    /* a profile's basis (resolving over a sub-Hopf-algebra): CPU workers only, since the GPU
     * kernel indexes products by the whole algebra's seqno table (algebra/milnor.h) */
    if (m->basis_words[0] == MILNOR_FLAT_MAGIC_PROFILE)
        return (rt_chunking){ CHUNK_PAIRS_CPU, CHUNK_MAX_ROWS, STARPU_CPU, UINT64_MAX };
    return chunking_of(m, *pairs, m->gpu_step_pairs, 1);
}

rt_chunking rt_mul_chunking_p(const rt_mul *m, const row_build_p *b, uint64_t *pairs)
{
    *pairs = rbp_pairs(b);
    return chunking_of(m, *pairs, m->gpu_step_pairs_p, 0);
}

/* rt_mul_chunk_rows over the jobs of any build (a row per job). */
static uint32_t chunk_rows(const milnor_row_job *jobs, uint32_t nrows, uint32_t row0, uint64_t done,
                           const rt_chunking *k, uint64_t *pairs, unsigned *where)
{
    int first = done < k->split;
    uint64_t limit = first ? (k->split - done < k->pairs ? k->split - done : k->pairs) : SHARE_CHUNK_PAIRS;
    uint32_t max_rows = first ? k->max_rows : CHUNK_MAX_ROWS;
    uint32_t n = 0;
    *where = first ? k->where : STARPU_CPU;
    *pairs = 0;
    while (row0 + n < nrows && n < max_rows && (*pairs < limit || n == 0))
        *pairs += jobs[row0 + n++].n_terms;
    return n;
}

uint32_t rt_mul_chunk_rows(const row_build *b, uint32_t row0, uint64_t done, const rt_chunking *k,
                           uint64_t *pairs, unsigned *where)
{
    return chunk_rows(b->jobs, b->nrows, row0, done, k, pairs, where);
}

/* One multiply task: rows [row0, row0 + n) of b (a row per job from job row0 on), or (njobs)
 * the grouped row row0 of b, the XOR of njobs jobs from job0 on; its chunk handle is out's k-th. */
/* A chunk's task: its rows (n elements of elemsize bytes at rows) registered as out's k-th
 * handle (mode R for the task that reads them), then cl over basis, the build's shared jobs
 * and terms and those rows (mode), with a copy of arg (freed by StarPU). 0, or -1 (err set). */
static int insert_chunk(struct starpu_codelet *cl, starpu_data_handle_t basis, rt_chunks *out, uint32_t k, void *rows,
                        uint32_t n, size_t elemsize, enum starpu_data_access_mode mode, const void *arg,
                        size_t argsize, int prio, unsigned where, char *err, size_t errlen)
{
    starpu_data_handle_t h;
    starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)rows, n, elemsize);
    out->descr[k] = (struct starpu_data_descr){ h, STARPU_R };
    out->n = k + 1;
    void *args = malloc(argsize);   /* freed by StarPU */
    if (!args) {
        snprintf(err, errlen, "out of memory submitting a %s task", cl->name);
        return -1;
    }
    memcpy(args, arg, argsize);
    int ret = starpu_task_insert(cl, STARPU_R, basis, STARPU_R, out->shared[0], STARPU_R, out->shared[1], mode, h,
                                 STARPU_CL_ARGS, args, argsize, STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE,
                                 (unsigned long long)where, STARPU_NAME, cl->name, 0);
    if (ret != 0) {
        snprintf(err, errlen, "StarPU refused a %s task: %s", cl->name, strerror(-ret));
        return -1;
    }
    return 0;
}

static int submit_chunk(rt_mul *m, row_build *b, uint32_t k, uint32_t row0, uint32_t n, uint32_t job0, uint32_t njobs,
                        uint64_t pairs, unsigned where, const int at[3], rt_chunks *out, char *err, size_t errlen)
{
    struct cl_milnor_mul_args args = { job0, b->D.stride, pairs, m->gpu_verify, at[0], at[1], at[2], njobs };
    if (m->capture) {           /* a grouped row: its jobs into one row (stride 0) */
        if (njobs) capture_chunk(m, b->jobs + job0, njobs, b->terms, 0);
        else capture_chunk(m, b->jobs + row0, n, b->terms, b->D.stride);
    }
    return insert_chunk(&cl_milnor_mul, m->basis, out, k, f2mat_row(&b->D, row0), n * b->D.stride, sizeof(uint64_t),
                        STARPU_W, &args, sizeof args, 0, where, err, errlen);
}

/* Where a grouped row of this many pairs may run: as a build of its size would (rt_mul_chunking),
 * on the GPUs from GROUP_GPU_PAIRS pairs on (one launch each: smaller ones cost more to launch
 * than to compute on a CPU worker). */
static unsigned group_where(const rt_mul *m, uint64_t pairs)
{
    if (m->basis_words[0] == MILNOR_FLAT_MAGIC_PROFILE || !m->ncuda || pairs < GROUP_GPU_PAIRS) return STARPU_CPU;
    return m->gpu_by_size ? (m->gpu_cpu_help ? STARPU_CPU | STARPU_CUDA : STARPU_CUDA) : STARPU_CPU | STARPU_CUDA;
}

int rt_mul_submit(rt_mul *m, row_build *b, int s, int t, int layer, rt_chunks *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (b->nrows + b->ngroups == 0 || b->ncols == 0 || b->nterms == 0) {
        rb_zero_rows(b, 0, b->nrows + b->ngroups);      /* no product: every row is zero */
        return 0;
    }
    rb_zero_rows(b, b->nrows, b->ngroups);              /* a group's chunk XORs into its row */
    uint32_t nchunks = 0;
    for (uint32_t g = 0; g < b->ngroups; g++) nchunks += b->group_job[g + 1] > b->group_job[g];
    uint64_t pairs, done = 0;
    unsigned where;
    rt_chunking cut = rt_mul_chunking(m, b, &pairs);
    for (uint32_t r = 0; r < b->nrows; nchunks++, done += pairs) r += rt_mul_chunk_rows(b, r, done, &cut, &pairs, &where);
    out->descr = calloc(nchunks, sizeof *out->descr);
    if (!out->descr) {
        snprintf(err, errlen, "out of memory submitting a multiply");
        return -1;
    }
    starpu_vector_data_register(&out->shared[0], STARPU_MAIN_RAM, (uintptr_t)b->jobs, rb_njobs(b), sizeof *b->jobs);
    starpu_vector_data_register(&out->shared[1], STARPU_MAIN_RAM, (uintptr_t)b->terms, (uint32_t)b->nterms,
                                sizeof *b->terms);
    done = 0;
    uint32_t k = 0;
    const int at[3] = { s, t, layer };
    for (uint32_t row0 = 0; row0 < b->nrows; k++, done += pairs) {
        uint32_t n = rt_mul_chunk_rows(b, row0, done, &cut, &pairs, &where);
        /* rows a CUDA worker may fill are zeroed (their pages touched) here, as D was before
         * it could be made unzeroed: the GPU's copy back then faults in no page (unmeasured
         * on the GPU either way); a CPU worker's codelet zeroes its own rows */
        if (m->ncuda && (where & STARPU_CUDA)) rb_zero_rows(b, row0, n);
        if (submit_chunk(m, b, k, row0, n, row0, 0, pairs, where, at, out, err, errlen) != 0) return -1;
        row0 += n;
    }
    for (uint32_t g = 0; g < b->ngroups; g++) {     /* an empty one stays zero, as D was made */
        uint32_t job0 = b->group_job[g], nj = b->group_job[g + 1] - job0;
        pairs = rb_group_pairs(b, g);
        if (nj && submit_chunk(m, b, k++, b->nrows + g, 1, job0, nj, pairs, group_where(m, pairs), at, out, err,
                               errlen) != 0)
            return -1;
    }
    return 0;
}

int rt_mul_submit_p(rt_mul *m, row_build_p *b, int s, int t, int layer, rt_chunks *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (b->nrows == 0 || b->ncols == 0 || b->nterms == 0) return 0;    /* D stays zero */
    if (!m->pbasis_words) {
        snprintf(err, errlen, "internal error: no odd-p basis registered for the multiply");
        return -1;
    }
    uint64_t pairs, done = 0;
    unsigned where;
    rt_chunking cut = rt_mul_chunking_p(m, b, &pairs);
    const uint32_t stride = b->D->stride, fit = (1u << 30) / stride;   /* a chunk's bytes fit 32 bits */
    if (cut.max_rows > fit) cut.max_rows = fit ? fit : 1;
    uint32_t nchunks = 0;
    for (uint32_t r = 0; r < b->nrows; nchunks++, done += pairs)
        r += chunk_rows(b->jobs, b->nrows, r, done, &cut, &pairs, &where);
    if (!(out->descr = calloc(nchunks, sizeof *out->descr))) {
        snprintf(err, errlen, "out of memory submitting a multiply");
        return -1;
    }
    starpu_vector_data_register(&out->shared[0], STARPU_MAIN_RAM, (uintptr_t)b->jobs, b->nrows, sizeof *b->jobs);
    starpu_vector_data_register(&out->shared[1], STARPU_MAIN_RAM, (uintptr_t)b->terms, (uint32_t)b->nterms,
                                sizeof *b->terms);
    done = 0;
    for (uint32_t row0 = 0, k = 0; row0 < b->nrows; k++, done += pairs) {
        uint32_t n = chunk_rows(b->jobs, b->nrows, row0, done, &cut, &pairs, &where);
        struct cl_milnor_mul_args args = { row0, stride, pairs, m->gpu_verify, s, t, layer, 0 };
        if (insert_chunk(&cl_milnor_mul_p, m->pbasis, out, k, fpmat_row(b->D, row0), n * stride, 1, STARPU_W, &args,
                         sizeof args, 0, where, err, errlen) != 0)
            return -1;
        row0 += n;
    }
    return 0;
}

uint64_t rt_mul_mod4_chunking(const rt_mul *m, uint64_t pairs, unsigned *where)
{
    if (m->ncuda == 0) {
        *where = STARPU_CPU;
        return PAIR_CHUNK_PAIRS_CPU;
    }
    if (m->pair_any) {
        *where = STARPU_CPU | STARPU_CUDA;
        return PAIR_CHUNK_PAIRS_CPU;
    }
    if (pairs >= m->pair_step_pairs) {
        *where = m->gpu_cpu_help ? STARPU_CPU | STARPU_CUDA : STARPU_CUDA;
        return PAIR_GPU_CHUNK_PAIRS;
    }
    *where = STARPU_CPU;
    return PAIR_CHUNK_PAIRS_CPU;
}

int rt_mul_submit_mod4(rt_mul *m, sec_batch *b, int prio, rt_chunks *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    unsigned where;
    uint64_t chunk = rt_mul_mod4_chunking(m, b->pairs, &where);
    if (sec_batch_cut(b, chunk) != 0) {
        snprintf(err, errlen, "out of memory laying out the composites at (s=%d, t=%d)", b->s, (int)b->T);
        return -1;
    }
    if (b->nchunks == 0) return 0;
    out->descr = calloc(b->nchunks, sizeof *out->descr);
    if (!out->descr) {
        snprintf(err, errlen, "out of memory submitting composites");
        return -1;
    }
    starpu_vector_data_register(&out->shared[0], STARPU_MAIN_RAM, (uintptr_t)b->jobs, (uint32_t)b->njobs,
                                sizeof *b->jobs);
    starpu_vector_data_register(&out->shared[1], STARPU_MAIN_RAM, (uintptr_t)b->terms, (uint32_t)b->nterms,
                                sizeof *b->terms);
    for (uint32_t k = 0; k < b->nchunks; k++) {
        uint32_t j0 = b->gen_job[b->chunk_gen[k]], j1 = b->gen_job[b->chunk_gen[k + 1]];
        struct cl_pair_mul_args args = { j0, j1 - j0, b->twos_at[k], b->chunk_pairs[k], b->memo };
        if (insert_chunk(&cl_pair_mul, m->basis, out, k, b->rows + b->row_at[k], (uint32_t)(2 * b->twos_at[k]),
                         sizeof *b->rows, STARPU_RW, &args, sizeof args, prio, where, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void rt_chunks_release(rt_chunks *k)
{
    for (uint32_t c = 0; c < k->n; c++) starpu_data_unregister_submit(k->descr[c].handle);
    if (k->shared[0]) {
        starpu_data_unregister_submit(k->shared[0]);
        starpu_data_unregister_submit(k->shared[1]);
    }
    free(k->descr);
    memset(k, 0, sizeof *k);
}
