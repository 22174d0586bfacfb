/* rt_mul.h — the multiply chunks of a row_build (stages/rowbuild.h) as cl_milnor_mul tasks,
 * and of d2's composites as cl_pair_mul tasks, for the chain runner (rt_chain.c). Internal to
 * runtime/.
 *
 * A run registers its flat Milnor basis once (rt_mul_init: a read-only handle StarPU copies to
 * each GPU once) and reads the chunking's knobs from the environment; each row_build is then
 * cut into chunks of consecutive rows (rt_mul_submit: one handle per chunk, W for its task,
 * and the build's jobs and terms as two shared R handles), and the task that reads the rows
 * takes the chunk handles R (rt_chunks.descr) and is submitted before rt_chunks_release.
 *
 * Chunking (rt_mul_chunking): about 12288 (job x term) pairs a chunk on CPU workers (65536 with
 * CUDA workers and EXTFLOW_GPU_STEP_PAIRS=off, where any worker may take any chunk); with CUDA
 * workers a build of at least 2^18 pairs goes to the GPUs only, in chunks of up to 2^26 pairs,
 * a smaller one to the CPU workers only; a profile's basis (a sub-Hopf-algebra) to the CPU
 * workers only (the GPU kernel indexes the whole algebra's seqno table). docs/perf.md has the
 * measurements; EXTFLOW_CHUNK_PAIRS, EXTFLOW_GPU_STEP_PAIRS, EXTFLOW_GPU_CHUNK_PAIRS,
 * EXTFLOW_GPU_CPU_HELP override; EXTFLOW_GPU_CPU_SHARE=f puts the last f of a GPU build's pairs
 * in CPU-only chunks of 65536 pairs; EXTFLOW_GPU_VERIFY rechecks GPU chunks on the CPU;
 * EXTFLOW_CAPTURE_MUL (every EXTFLOW_CAPTURE_EVERY-th chunk) records chunks for the benches
 * (a grouped row as a record of stride 0: its jobs XOR into one row).
 * At an odd prime a standard step's rows (rowbuild_p.h) are cut by the same rules into
 * cl_milnor_mul_p tasks over the flat A_p (rt_mul_init_p; whole algebra only), with its own
 * GPU threshold (EXTFLOW_GPU_P_STEP_PAIRS, 16384 pairs: an odd-p pair costs more). */
#ifndef EXTFLOW_RT_MUL_H
#define EXTFLOW_RT_MUL_H
#include <pthread.h>
#include <starpu.h>
#include <stdio.h>
#include "stages/rowbuild.h"
#include "stages/rowbuild_p.h"

typedef struct rt_mul {
    starpu_data_handle_t basis;     /* the flat Milnor basis, read by every multiply task */
    uint32_t *basis_words;
    size_t words;
    starpu_data_handle_t pbasis;    /* odd p: the flat A_p (rt_mul_init_p), read by cl_milnor_mul_p */
    uint32_t *pbasis_words;
    size_t pwords;
    unsigned ncuda;                 /* CUDA workers */
    uint64_t chunk_pairs;           /* pairs per chunk where any worker may take it */
    int gpu_by_size;                /* CUDA workers exist and EXTFLOW_GPU_STEP_PAIRS is not "off" */
    uint64_t gpu_step_pairs;        /* gpu_by_size: builds this large run on the GPUs only */
    uint64_t gpu_step_pairs_p;      /* the same at odd p (EXTFLOW_GPU_P_STEP_PAIRS) */
    uint64_t gpu_chunk_pairs;       /* pairs per chunk of such a build (EXTFLOW_GPU_CHUNK_PAIRS) */
    int gpu_cpu_help;               /* EXTFLOW_GPU_CPU_HELP: CPU workers may take those chunks too */
    double gpu_cpu_share;           /* EXTFLOW_GPU_CPU_SHARE: share of a GPU build's pairs in CPU chunks */
    int gpu_verify;
    int pair_any;                   /* EXTFLOW_GPU_PAIR_STEP_PAIRS=off: any worker takes any mod-4 chunk */
    uint64_t pair_step_pairs;       /* d2's cells this large multiply on the GPUs (rt_mul_mod4_chunking) */
    FILE *capture;                  /* EXTFLOW_CAPTURE_MUL: every capture_every-th chunk */
    unsigned long capture_every, captured;
    pthread_mutex_t capture_lock;
} rt_mul;

/* How one build's multiply is cut and where its chunks may run: the build's first `split`
 * pairs in chunks of about `pairs` pairs on `where`, the rest in CPU-only chunks. */
typedef struct rt_chunking {
    uint64_t pairs;             /* per chunk, about */
    uint32_t max_rows;
    unsigned where;             /* STARPU_CPU | STARPU_CUDA, or one of them */
    uint64_t split;             /* UINT64_MAX: the whole build */
} rt_chunking;

/* The chunk handles of one build, for the task that reads them. */
typedef struct rt_chunks {
    struct starpu_data_descr *descr;    /* n chunk handles, mode R */
    uint32_t n;
    starpu_data_handle_t shared[2];     /* the build's jobs and terms */
} rt_chunks;

/* Registers A's flat copy (the caller keeps A) and reads the knobs. 0, -1 out of memory, or
 * MILNOR_STOPPED past the start-up deadline (milnor_set_deadline); err says which. StarPU must
 * be started. */
int rt_mul_init(rt_mul *m, const milnor_basis *A, char *err, size_t errlen);
/* Odd p: also registers A_p's flat copy (the caller keeps A), for rt_mul_submit_p. 0, or -1
 * out of memory (err says so). */
int rt_mul_init_p(rt_mul *m, const milnor_p_basis *A, char *err, size_t errlen);
/* Unregisters the bases (after every task that reads them has run) and frees them. */
void rt_mul_clear(rt_mul *m);
/* The chunking of b; *pairs = its (job x term) pairs. */
rt_chunking rt_mul_chunking(const rt_mul *m, const row_build *b, uint64_t *pairs);
/* The chunk of b starting at row row0, `done` pairs into the build, cut by k: its rows (until
 * its kind's pairs or rows are reached; at least one), and in *pairs and *where its pairs and
 * the workers that may run it. Plain arithmetic, no StarPU call (tests/t-chunking.c). */
uint32_t rt_mul_chunk_rows(const row_build *b, uint32_t row0, uint64_t done, const rt_chunking *k,
                           uint64_t *pairs, unsigned *where);
/* One cl_milnor_mul task per chunk of b's rows (none when b has nothing to multiply); s, t:
 * the resolution's bidegree the tasks' times are credited to (cl_profile), or -1, and layer
 * cl_profile's layer there. 0, or -1
 * (err set) when a task could not be made; the chunks made so far are in *out either way. */
int rt_mul_submit(rt_mul *m, row_build *b, int s, int t, int layer, rt_chunks *out, char *err, size_t errlen);
/* The same at an odd prime: b's rows (a standard step's, stages/rowbuild_p.h) cut as a mod-2
 * build of as many pairs would be (rt_mul_chunking_p; no CPU share), one cl_milnor_mul_p task
 * per chunk. Needs rt_mul_init_p. 0, or -1 (err set). */
rt_chunking rt_mul_chunking_p(const rt_mul *m, const row_build_p *b, uint64_t *pairs);
int rt_mul_submit_p(rt_mul *m, row_build_p *b, int s, int t, int layer, rt_chunks *out, char *err, size_t errlen);
/* After the task that reads the chunks was submitted: StarPU unregisters them when it is done. */
void rt_chunks_release(rt_chunks *k);

/* How a cell of d2's composites with `pairs` mod-4 pairs is cut (cl_pair_mul): the chunk size
 * in pairs, and where its chunks run (*where). */
uint64_t rt_mul_mod4_chunking(const rt_mul *m, uint64_t pairs, unsigned *where);

/* The same for a cell of mod-4 products (stages/secbatch.h): b cut by rt_mul_mod4_chunking, one
 * cl_pair_mul task per chunk (its row RW), at priority prio; the chunks' rows in *out (R) for
 * the task that reads them. 0, or -1 (err set); the chunks made so far are in *out either way. */
struct sec_batch;
int rt_mul_submit_mod4(rt_mul *m, struct sec_batch *b, int prio, rt_chunks *out, char *err, size_t errlen);

#endif
