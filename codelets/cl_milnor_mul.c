/* cl_milnor_mul.c — the Milnor-multiply codelet: one chunk of rows of a differential's matrix
 * (cl_milnor_mul at p = 2, cl_milnor_mul_p at an odd prime, rows of bytes mod p).
 * Buffers: 0 the flat basis (milnor_flat_write), 1 the step's jobs, 2 the step's terms, 3 the
 * chunk's rows; cl_arg: row0 (the chunk's first job) and the row stride. Both implementations
 * only unpack buffers and call algebra/ (milnor_mul_batch, milnor_mul_batch_cuda). */
#include "codelets/codelets.h"
#include "codelets/cl_profile.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/latch.h"
#include "algebra/milnor_p.h"
#include "algebra/milnor_p_search.h"
#include "algebra/pair_algebra.h"
#ifdef STARPU_USE_CUDA
#include "algebra/milnor_cuda.h"
#include "algebra/milnor_p_cuda.h"
#include "algebra/pair_cuda.h"
#endif

/* (job x term) pairs multiplied by each implementation: the share of work the GPU took. */
static _Atomic uint64_t pairs_on_cpu, pairs_on_cuda, mod4_on_cpu, mod4_on_cuda;

void cl_milnor_mul_stats(uint64_t *cpu_pairs, uint64_t *cuda_pairs)
{
    *cpu_pairs = pairs_on_cpu;
    *cuda_pairs = pairs_on_cuda;
}

void cl_pair_mul_stats(uint64_t *cpu_pairs, uint64_t *cuda_pairs)
{
    *cpu_pairs = mod4_on_cpu;
    *cuda_pairs = mod4_on_cuda;
}

/* The first failure of a multiply task (its rows are then wrong): the next piece of the step
 * reads it (cl_milnor_mul_failed) and fails the run, so no result is built on those rows. */
static fail_latch failure = FAIL_LATCH_INIT;

const char *cl_milnor_mul_failed(void) { return latch_is_set(&failure) ? failure.msg : NULL; }

/* The basis view of the flat buffer, rebuilt only when a worker meets another buffer: another
 * address, or (a later run's buffer at a freed one's address) another size or degree. */
static __thread const uint32_t *view_of;
static __thread size_t view_words;
static __thread uint32_t view_degree;
static __thread milnor_basis view;
static __thread milnor_elt *view_elts[MILNOR_MAX_DEGREE + 1];
static __thread uint32_t view_dim[MILNOR_MAX_DEGREE + 1];

/* The buffers of one task of either codelet, unpacked (pointers are in the worker's memory
 * node): terms are milnor_terms (p = 2) or milnor_p_terms, rows 64-bit words or bytes mod p,
 * stride units a row. */
typedef struct mul_buffers {
    const uint32_t *flat;
    size_t flat_words;
    const milnor_row_job *jobs;     /* the chunk's first job */
    const void *terms;
    size_t nterms;
    void *rows;
    uint32_t nrows;                 /* rows, or (njobs, p = 2 only) the jobs XORed into one row */
} mul_buffers;

static mul_buffers unpack(void *buffers[], const struct cl_milnor_mul_args *a)
{
    return (mul_buffers){
        .flat = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[0]),
        .flat_words = STARPU_VECTOR_GET_NX(buffers[0]),
        .jobs = (const milnor_row_job *)STARPU_VECTOR_GET_PTR(buffers[1]) + a->row0,
        .terms = (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
        .nterms = STARPU_VECTOR_GET_NX(buffers[2]),
        .rows = (void *)STARPU_VECTOR_GET_PTR(buffers[3]),
        .nrows = a->njobs ? a->njobs : (uint32_t)(STARPU_VECTOR_GET_NX(buffers[3]) / a->stride),
    };
}

#ifdef STARPU_USE_CUDA
/* After a CUDA multiply's launch (what: which multiply): its error recorded, else its pairs and
 * time counted; 1 when EXTFLOW_GPU_VERIFY wants its rows checked. */
static int cuda_launched(const struct cl_milnor_mul_args *a, int err, const char *what, uint64_t t0)
{
    if (err) {  /* StarPU cannot fail a task: the step that reads these rows fails the run */
        latch_set(&failure, "a CUDA launch of the %s failed (CUDA error %d)", what, err);
        return 0;
    }
    pairs_on_cuda += a->pairs;
    cl_profile_stop(PIECE_MUL_CUDA, t0, a->s, a->t, a->layer);
    return a->verify;
}

/* EXTFLOW_GPU_VERIFY's verdict on a chunk of nrows rows, bad the check's result (-1: agreed). */
static void cuda_verified(const struct cl_milnor_mul_args *a, long bad, const char *chunk, uint32_t nrows)
{
    if (bad != -1)
        latch_set(&failure, "EXTFLOW_GPU_VERIFY: %s (%s at job %u, row %ld of %u)",
                  bad == -2 ? "could not read the GPU's result back" : "GPU and CPU rows differ", chunk, a->row0, bad,
                  nrows);
}
#endif

/* This worker's view of the flat basis buffer, or NULL (failure recorded). */
static const milnor_basis *basis_view(const uint32_t *flat, size_t words)
{
    if (view_of != flat || view_words != words || view_degree != flat[1]) {
        if (milnor_flat_view(flat, words, &view, view_elts, view_dim) < 0) {
            latch_set(&failure, "internal error: the Milnor basis buffer is malformed");
            view_of = NULL;
            return NULL;
        }
        view_of = flat;
        view_words = words;
        view_degree = flat[1];
    }
    return &view;
}

static void milnor_mul_cpu(void *buffers[], void *cl_arg)
{
    const struct cl_milnor_mul_args *a = cl_arg;
    uint64_t t0 = cl_profile_start();
    mul_buffers m = unpack(buffers, a);
    if (!basis_view(m.flat, m.flat_words)) return;
    memset(m.rows, 0, (size_t)(a->njobs ? 1 : m.nrows) * a->stride * sizeof(uint64_t));  /* W access: not zeroed */
    milnor_mul_batch(&view, m.jobs, m.nrows, m.terms, m.rows, a->njobs ? 0 : a->stride);
    pairs_on_cpu += a->pairs;
    cl_profile_stop(PIECE_MUL_CPU, t0, a->s, a->t, a->layer);
}

#ifdef STARPU_USE_CUDA
static void milnor_mul_cuda(void *buffers[], void *cl_arg)
{
    const struct cl_milnor_mul_args *a = cl_arg;
    uint64_t t0 = cl_profile_start();
    mul_buffers m = unpack(buffers, a);
    void *stream = starpu_cuda_get_local_stream();
    int err = a->njobs ? milnor_mul_batch_cuda_row(m.flat, m.jobs, m.nrows, m.terms, m.rows, a->stride, stream)
                       : milnor_mul_batch_cuda(m.flat, m.jobs, m.nrows, m.terms, m.rows, a->stride, stream);
    if (cuda_launched(a, err, "Milnor multiply", t0))
        cuda_verified(a, milnor_mul_batch_cuda_verify(m.flat, m.jobs, m.nrows, m.terms, m.nterms, m.rows, a->stride,
                                                      a->njobs != 0, stream),
                      "chunk", m.nrows);
}
#endif

/* Perfmodel: a chunk's cost grows with its (job x term) pairs; history per power-of-2^(1/4)
 * bucket of that count, so StarPU's dmda learns CPU and GPU costs in a few dozen buckets. */
static uint32_t pairs_bucket(uint64_t pairs) { return pairs ? (uint32_t)(4.0 * log2((double)pairs)) : 0; }

static size_t milnor_mul_size(struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    const struct cl_milnor_mul_args *a = task->cl_arg;
    return a->pairs;
}

static uint32_t milnor_mul_footprint(struct starpu_task *task)
{
    return pairs_bucket(((const struct cl_milnor_mul_args *)task->cl_arg)->pairs);
}

CL_CODELET(cl_milnor_mul, milnor_mul_cpu, "milnor_mul",
           (.symbol = "extflow_milnor_mul_v2", .size_base = milnor_mul_size, .footprint = milnor_mul_footprint),
           CL_CUDA(milnor_mul_cuda) .nbuffers = 4, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_W });

/* ---- cl_milnor_mul_p: the same at an odd prime (rows of bytes mod p; codelets.h) ----------------- */

/* This worker's view of the flat A_p buffer (rebuilt when it meets another one), or NULL. */
static __thread const uint32_t *pview_of;
static __thread uint32_t pview_head[MILNOR_P_FLAT_HEADER];
static __thread milnor_p_basis pview;
static __thread milnor_p_elt *pview_elts[MILNOR_P_MAX_DEGREE + 1];
static __thread uint32_t pview_dim[MILNOR_P_MAX_DEGREE + 1];

static const milnor_p_basis *basis_p_view(const uint32_t *flat, size_t words)
{
    if (pview_of != flat || memcmp(pview_head, flat, sizeof pview_head) != 0) {
        if (words < MILNOR_P_FLAT_HEADER || milnor_p_flat_view(flat, words, &pview, pview_elts, pview_dim) < 0) {
            latch_set(&failure, "internal error: the odd-p Milnor basis buffer is malformed");
            pview_of = NULL;
            return NULL;
        }
        pview_of = flat;
        memcpy(pview_head, flat, sizeof pview_head);
    }
    return &pview;
}

static void milnor_mul_p_cpu(void *buffers[], void *cl_arg)
{
    const struct cl_milnor_mul_args *a = cl_arg;
    uint64_t t0 = cl_profile_start();
    mul_buffers m = unpack(buffers, a);
    const milnor_p_basis *A = basis_p_view(m.flat, m.flat_words);
    if (!A) return;
    memset(m.rows, 0, (size_t)m.nrows * a->stride);     /* W access: not zeroed */
    milnor_p_mul_batch(A, m.jobs, m.nrows, m.terms, m.rows, a->stride);
    pairs_on_cpu += a->pairs;
    cl_profile_stop(PIECE_MUL_CPU, t0, a->s, a->t, a->layer);
}

#ifdef STARPU_USE_CUDA
static void milnor_mul_p_cuda(void *buffers[], void *cl_arg)
{
    const struct cl_milnor_mul_args *a = cl_arg;
    uint64_t t0 = cl_profile_start();
    mul_buffers m = unpack(buffers, a);
    void *stream = starpu_cuda_get_local_stream();
    int err = milnor_p_mul_batch_cuda(m.flat, m.jobs, m.nrows, m.terms, m.rows, a->stride, NULL, stream);
    if (cuda_launched(a, err, "odd-p Milnor multiply", t0))
        cuda_verified(a, milnor_p_mul_batch_cuda_verify(m.flat, m.jobs, m.nrows, m.terms, m.nterms, m.rows, a->stride,
                                                        stream),
                      "odd-p chunk", m.nrows);
}
#endif

CL_CODELET(cl_milnor_mul_p, milnor_mul_p_cpu, "milnor_mul_p",
           (.symbol = "extflow_milnor_mul_p_v1", .size_base = milnor_mul_size, .footprint = milnor_mul_footprint),
           CL_CUDA(milnor_mul_p_cuda) .nbuffers = 4, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_W });

/* ---- cl_pair_mul: the mod-4 products of a batch (algebra/pair_cuda.h's layout) ------------------
 * Buffers: 0 the flat basis, 1 the batch's jobs, 2 its terms, 3 the chunk's row (RW: the
 * products are added into it); cl_arg: struct cl_pair_mul_args. */

static void pair_mul_cpu(void *buffers[], void *cl_arg)
{
    const struct cl_pair_mul_args *a = cl_arg;
    const uint32_t *flat = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const milnor_basis *A = basis_view(flat, STARPU_VECTOR_GET_NX(buffers[0]));
    if (!A) return;
    pair_mul_mod4_batch_memo(A, a->memo, (const milnor_row_job *)STARPU_VECTOR_GET_PTR(buffers[1]) + a->job0,
                             a->njobs, (const milnor_term *)STARPU_VECTOR_GET_PTR(buffers[2]),
                             (uint64_t *)STARPU_VECTOR_GET_PTR(buffers[3]), 0, a->twos_at);
    mod4_on_cpu += a->pairs;
}

#ifdef STARPU_USE_CUDA
static void pair_mul_cuda(void *buffers[], void *cl_arg)
{
    const struct cl_pair_mul_args *a = cl_arg;
    int err = pair_mul_mod4_batch_cuda((const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                       (const milnor_row_job *)STARPU_VECTOR_GET_PTR(buffers[1]) + a->job0,
                                       a->njobs, (const milnor_term *)STARPU_VECTOR_GET_PTR(buffers[2]),
                                       (uint64_t *)STARPU_VECTOR_GET_PTR(buffers[3]), 0, a->twos_at, NULL,
                                       starpu_cuda_get_local_stream());
    if (err) {
        latch_set(&failure, "a CUDA launch of the mod-4 Milnor multiply failed (CUDA error %d)", err);
        return;
    }
    mod4_on_cuda += a->pairs;
}
#endif

static size_t pair_mul_size(struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    return ((const struct cl_pair_mul_args *)task->cl_arg)->pairs;
}

static uint32_t pair_mul_footprint(struct starpu_task *task)
{
    return pairs_bucket(((const struct cl_pair_mul_args *)task->cl_arg)->pairs);
}

CL_CODELET(cl_pair_mul, pair_mul_cpu, "pair_mul",
           (.symbol = "extflow_pair_mul_v1", .size_base = pair_mul_size, .footprint = pair_mul_footprint),
           CL_CUDA(pair_mul_cuda) .nbuffers = 4, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_RW });
