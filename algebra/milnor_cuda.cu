/* milnor_cuda.cu — the batched Milnor product on a CUDA GPU (see milnor_cuda.h). The search is
 * the CPU's own (milnor_search.h), and the shared kernel's cost model, binning and block layout
 * are milnor_sched.h's, all compiled for the device and the host alike. */
#include "algebra/milnor_cuda.h"
#include "algebra/milnor_halves.h"
#include "algebra/milnor_packed.h"
#include "algebra/milnor_sched.h"

#include "algebra/cuda_host.h"
#include <cub/device/device_scan.cuh>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


__device__ static inline void flip_bit_atomic(unsigned long long *row, uint64_t bit)
{
    atomicXor(row + (bit >> 6), 1ull << (bit & 63));
}

/* The flat basis's first-index table, element records and seqno table (milnor_flat_write). */
struct flat_parts {
    const uint32_t *first;
    const milnor_elt *elts;
    const uint32_t *g;
};

__device__ static inline flat_parts flat_parts_of(const uint32_t *flat)
{
    const uint32_t md = flat[1], total = flat[2];
    return flat_parts{ flat + MILNOR_FLAT_HEADER, (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md)),
                       flat + MILNOR_FLAT_SEQNO_AT(md, total) };
}

/* Block size: several jobs per block when a job has fewer threads (threads_per_job divides it). */
#define BLOCK MK_BLOCK

/* Job j gets threads_per_job threads; its items (term k, part p), k < n_terms, p < nparts,
 * are dealt to them in turn; item (k, p) runs part p of the search of Sq(R_j)·Sq(S_k).
 * PACKED (the atomic-packed kernel): the search of milnor_packed.h, its state in registers,
 * where the product is within its limits. */
template <bool PACKED>
__global__ static void mul_batch_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs,
                                        const milnor_term *terms, unsigned long long *rows, uint32_t stride,
                                        uint32_t threads_per_job, uint32_t nparts)
{
    uint64_t gid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t job_no = gid / threads_per_job;
    uint32_t sub = (uint32_t)(gid % threads_per_job);
    if (job_no >= njobs) return;
    const flat_parts fp = flat_parts_of(flat);
    const uint32_t *first = fp.first, *g = fp.g;
    const milnor_elt *elts = fp.elts;
    const milnor_row_job job = jobs[job_no];
    const milnor_elt R = elts[first[job.r_deg] + job.r_idx];
    unsigned long long *row = rows + job_no * stride;
    const uint32_t nitems = job.n_terms * nparts;
    for (uint32_t item = sub; item < nitems; item += threads_per_job) {
        const uint32_t part = item % nparts;
        const milnor_term tm = terms[job.first_term + item / nparts];
        const milnor_elt S = elts[first[tm.s_deg] + tm.s_idx];
        const deg_t d = R.degree + S.degree;
        if (R.len == 0 || S.len == 0) {            /* unit factor: one term, part 0's */
            const milnor_elt *X = R.len ? &R : &S;
            if (part == 0) flip_bit_atomic(row, tm.col_offset + milnor_seqno_index(g, d, X->r, X->len));
            continue;
        }
        if (PACKED) {
            pk_search p;
            const int r = pk_setup(&p, &R, &S);
            if (r == PK_ZERO) continue;
            if (r == PK_READY) {
                pk_split(&p, part, nparts);
                for (int len; (len = pk_step(&p)) != -1;)
                    if (len != MM_STEP_ON) flip_bit_atomic(row, tm.col_offset + pk_seqno_index(&p, g, d, len));
                continue;
            }
        }
        mm_search s;
        uint32_t t[2 * MM_SIDE];
        int len;
        if (!mm_setup(&s, &R, &S)) continue;
        mm_split(&s, part, nparts);
        while ((len = mm_next(&s, t)) >= 0)
            flip_bit_atomic(row, tm.col_offset + milnor_seqno_index(g, d, t, (uint32_t)len));
    }
}

/* The shared kernel (milnor_sched.h): jobs binned by estimated cost, heaviest first, then
 * blocks of J jobs each, their rows accumulated in shared memory (SHARED) or in global memory
 * with atomics (a row that does not fit the budget). */

/* Pass 1: each job's cost bin, and a histogram of the bins (per block in shared memory, then
 * added to hist). */
__global__ static void bin_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs,
                                  const milnor_term *terms, uint8_t *bin, uint32_t *hist)
{
    __shared__ uint32_t h[MK_NBINS];
    for (uint32_t b = threadIdx.x; b < MK_NBINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < njobs) {
        const uint32_t md = flat[1];
        const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md));
        const milnor_row_job job = jobs[j];
        uint32_t b = mk_cost_bin(mk_job_cost(elts, flat + MILNOR_FLAT_HEADER, &job, terms));
        bin[j] = (uint8_t)b;
        atomicAdd(&h[b], 1u);
    }
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < MK_NBINS; b += blockDim.x)
        if (h[b]) atomicAdd(&hist[b], h[b]);
}

/* Pass 2: cursor[b] = the first position of bin b (heaviest bin first). */
__global__ static void starts_kernel(const uint32_t *hist, uint32_t *cursor)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) mk_bin_starts(hist, cursor);
}

/* Pass 3: order[] = the jobs bin by bin (a block reserves its jobs' places per bin at once). */
__global__ static void scatter_kernel(const uint8_t *bin, uint32_t njobs, uint32_t *cursor, uint32_t *order)
{
    __shared__ uint32_t h[MK_NBINS], base[MK_NBINS];
    for (uint32_t b = threadIdx.x; b < MK_NBINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t b = 0, rank = 0;
    if (j < njobs) {
        b = bin[j];
        rank = atomicAdd(&h[b], 1u);
    }
    __syncthreads();
    for (uint32_t c = threadIdx.x; c < MK_NBINS; c += blockDim.x)
        if (h[c]) base[c] = atomicAdd(&cursor[c], h[c]);
    __syncthreads();
    if (j < njobs) order[base[b] + rank] = (uint32_t)j;
}

/* Pass 4: block x owns jobs order[x J .. x J + J); its threads draw items (job l, term k,
 * part p) from a shared counter. SHARED: the rows live in dynamic shared memory as 32-bit
 * words and are stored once at the end; else bits go to the rows in global memory by 64-bit
 * atomic XOR (rows zeroed before). */
template <bool SHARED>
__global__ static void __launch_bounds__(MK_BLOCK)
sched_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs, const milnor_term *terms,
             const uint32_t *order, unsigned long long *rows, uint32_t stride, uint32_t J, uint32_t nparts)
{
    extern __shared__ uint32_t sh_rows[];
    __shared__ uint64_t pre[MK_BLOCK + 1];
    __shared__ uint32_t jobno[MK_BLOCK];
    __shared__ unsigned long long next;
    const uint64_t first_job = (uint64_t)blockIdx.x * J;
    const uint32_t nj = (uint32_t)(njobs - first_job < J ? njobs - first_job : J);
    const flat_parts fp = flat_parts_of(flat);
    const uint32_t *first = fp.first, *g = fp.g;
    const milnor_elt *elts = fp.elts;
    for (uint32_t l = threadIdx.x; l < nj; l += blockDim.x) jobno[l] = order[first_job + l];
    if (SHARED)
        for (uint64_t w = threadIdx.x; w < (uint64_t)nj * 2 * stride; w += blockDim.x) sh_rows[w] = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        pre[0] = 0;
        for (uint32_t l = 0; l < nj; ++l) pre[l + 1] = pre[l] + (uint64_t)jobs[jobno[l]].n_terms * nparts;
        next = 0;
    }
    __syncthreads();
    const uint64_t nitems = pre[nj];
    for (;;) {
        const uint64_t item = atomicAdd(&next, 1ull);
        if (item >= nitems) break;
        mk_item it;
        uint32_t bit;
        const uint32_t l = mk_item_begin(&it, jobs, terms, elts, first, g, pre, jobno, nj, nparts, item);
        if (SHARED) {
            uint32_t *row = sh_rows + (uint64_t)l * 2 * stride;
            while (mk_item_next(&it, &bit)) atomicXor(row + mk_word32(bit), mk_mask32(bit));
        } else {
            unsigned long long *row = rows + (uint64_t)jobno[l] * stride;
            while (mk_item_next(&it, &bit)) flip_bit_atomic(row, bit);
        }
    }
    if (SHARED) {
        __syncthreads();
        for (uint64_t w = threadIdx.x; w < (uint64_t)nj * stride; w += blockDim.x) {
            const uint32_t l = (uint32_t)(w / stride), ww = (uint32_t)(w % stride);
            rows[(uint64_t)jobno[l] * stride + ww] = mk_word64(sh_rows + (uint64_t)l * 2 * stride, ww);
        }
    }
}

/* The dynamic shared memory a launch may ask for: want, or above 48 KiB (where a kernel must
 * opt in) at most the device's opt-in limit less 8 KiB for the kernels' static arrays (~3-5 KB). */
static cudaError_t shared_budget(uint32_t want, uint32_t *budget)
{
    *budget = want;
    if (want <= MK_SHARED_DEFAULT) return cudaSuccess;
    int dev = 0, optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e != cudaSuccess) return e;
    const uint32_t room = optin > 8192 ? (uint32_t)optin - 8192 : 0;
    if (*budget > room) *budget = room;
    return cudaSuccess;
}

/* The shared kernel's launch: scratch (bins, histogram, cursors, order) from the stream's
 * memory pool, passes 1-3, then pass 4 with rows in shared memory when J >= 1. */
static int launch_shared(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                         const milnor_term *terms, uint64_t *rows, uint32_t stride, const milnor_cuda_cfg *c,
                         cudaStream_t st)
{
    uint32_t budget;
    if (shared_budget(c->shared_bytes ? c->shared_bytes : MK_SHARED_DEFAULT, &budget) != cudaSuccess)
        return (int)cudaGetLastError();
    const uint32_t J = mk_jobs_per_block(c->threads_per_job, stride, budget);
    const uint32_t Jg = MK_BLOCK / c->threads_per_job;             /* the global path's */
    const uint32_t per_block = J ? J : Jg;
    const uint64_t blocks = ((uint64_t)njobs + per_block - 1) / per_block;
    const uint32_t jb = (njobs + MK_BLOCK - 1) / MK_BLOCK;
    if (blocks > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    /* scratch: hist[MK_NBINS], cursor[MK_NBINS], order[njobs] (u32), bin[njobs] (u8) */
    const size_t scratch = (2 * MK_NBINS + (size_t)njobs) * 4 + njobs;
    void *buf = NULL;
    cudaError_t e = cudaMallocAsync(&buf, scratch, st);
    if (e != cudaSuccess) return (int)e;
    uint32_t *hist = (uint32_t *)buf, *cursor = hist + MK_NBINS, *order = cursor + MK_NBINS;
    uint8_t *bin = (uint8_t *)(order + njobs);
    const size_t dyn = (size_t)J * stride * 8;
    if ((e = cudaMemsetAsync(hist, 0, MK_NBINS * 4, st)) != cudaSuccess) goto out;
    bin_kernel<<<jb, MK_BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms, bin, hist);
    starts_kernel<<<1, 1, 0, st>>>(hist, cursor);
    scatter_kernel<<<jb, MK_BLOCK, 0, st>>>(bin, njobs, cursor, order);
    if (J) {
        if (dyn > 48 * 1024 &&
            (e = cudaFuncSetAttribute(sched_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn)) !=
                cudaSuccess)
            goto out;
        sched_kernel<true><<<(uint32_t)blocks, MK_BLOCK, dyn, st>>>(flat_basis, jobs, njobs, terms, order,
                                                                    (unsigned long long *)rows, stride, J, c->nparts);
    } else {
        if ((e = cudaMemsetAsync(rows, 0, (size_t)njobs * stride * sizeof *rows, st)) != cudaSuccess) goto out;
        sched_kernel<false><<<(uint32_t)blocks, MK_BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms, order,
                                                                   (unsigned long long *)rows, stride, Jg, c->nparts);
    }
    e = cudaGetLastError();
out:
    cudaError_t f = cudaFreeAsync(buf, st);
    return (int)(e != cudaSuccess ? e : f);
}

/* The halves kernel (milnor_halves.h): block x owns jobs x MH_JOBS .. x MH_JOBS + MH_JOBS - 1.
 * Its first threads count each job's R-halves (one thread per job), then, round by round
 * (mh_round: as many jobs as the pool in shared memory holds), write them to the pool and let
 * all the block's threads test (half, term) items, XORing accepted terms into the rows in
 * global memory (zeroed before). Jobs whose halves do not fit the pool, or that give up,
 * run the search afterwards, their items (term, part) shared by the block's threads. */
#define MH_JOBS 64

__global__ static void __launch_bounds__(MK_BLOCK)
halves_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs, const milnor_term *terms,
              unsigned long long *rows, uint32_t stride, uint32_t pool_cap, uint32_t nparts)
{
    extern __shared__ mh_half pool[];
    __shared__ uint32_t smax[MH_JOBS][MH_COLS + 1], hstart[MH_JOBS], nterms[MH_JOBS], jobno[MH_JOBS];
    __shared__ int32_t maxdeg[MH_JOBS], cnt[MH_JOBS];
    __shared__ uint64_t pre[MH_JOBS + 1];
    __shared__ uint32_t round_end;
    const uint64_t first_job = (uint64_t)blockIdx.x * MH_JOBS;
    const uint32_t nj = (uint32_t)(njobs - first_job < MH_JOBS ? njobs - first_job : MH_JOBS);
    const flat_parts fp = flat_parts_of(flat);
    const uint32_t *first = fp.first, *g = fp.g;
    const milnor_elt *elts = fp.elts;
    for (uint32_t l = threadIdx.x; l < nj; l += blockDim.x) {
        const milnor_row_job job = jobs[first_job + l];
        jobno[l] = (uint32_t)(first_job + l);
        nterms[l] = job.n_terms;
        mh_job_bounds(elts, first, &job, terms, smax[l], &maxdeg[l]);
        cnt[l] = job.n_terms ? mh_enum(&elts[first[job.r_deg] + job.r_idx], smax[l], maxdeg[l], NULL, pool_cap) : 0;
    }
    __syncthreads();
    for (uint32_t start = 0, end; start < nj; start = end) {
        if (threadIdx.x == 0) round_end = mh_round(cnt, nterms, start, nj, pool_cap, hstart, pre);
        __syncthreads();
        end = round_end;                        /* read before the round's last barrier */
        for (uint32_t l = start + threadIdx.x; l < end; l += blockDim.x)
            if (cnt[l] > 0 && (uint32_t)cnt[l] <= pool_cap) {
                const milnor_row_job job = jobs[jobno[l]];
                mh_enum(&elts[first[job.r_deg] + job.r_idx], smax[l], maxdeg[l], pool + hstart[l], (uint32_t)cnt[l]);
            }
        __syncthreads();
        const uint64_t nitems = pre[end - start];
        for (uint64_t item = threadIdx.x; item < nitems; item += blockDim.x) {
            const uint32_t l = start + mk_item_job(pre, end - start, item);
            uint32_t h, k, idx;
            mh_item(item - pre[l - start], nterms[l], &h, &k);
            const milnor_term tm = terms[jobs[jobno[l]].first_term + k];
            if (mh_test(&pool[hstart[l] + h], &elts[first[tm.s_deg] + tm.s_idx], g, &idx))
                flip_bit_atomic(rows + (uint64_t)jobno[l] * stride, tm.col_offset + idx);
        }
        __syncthreads();                        /* the pool is rewritten by the next round */
    }
    /* the jobs left to the search: items (term, part), pre reused */
    if (threadIdx.x == 0) {
        pre[0] = 0;
        for (uint32_t l = 0; l < nj; ++l)
            pre[l + 1] = pre[l] + (cnt[l] < 0 || (uint32_t)cnt[l] > pool_cap ? (uint64_t)nterms[l] * nparts : 0);
    }
    __syncthreads();
    for (uint64_t item = threadIdx.x; item < pre[nj]; item += blockDim.x) {
        mk_item it;
        uint32_t bit;
        const uint32_t l = mk_item_begin(&it, jobs, terms, elts, first, g, pre, jobno, nj, nparts, item);
        while (mk_item_next(&it, &bit)) flip_bit_atomic(rows + (uint64_t)jobno[l] * stride, bit);
    }
}

/* The halves kernel's launch: a pool of shared_bytes (default MH_POOL_DEFAULT) per block. */
static int launch_halves(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                         const milnor_term *terms, uint64_t *rows, uint32_t stride, const milnor_cuda_cfg *c,
                         cudaStream_t st)
{
    uint32_t budget;
    if (shared_budget(c->shared_bytes ? c->shared_bytes : MH_POOL_DEFAULT, &budget) != cudaSuccess)
        return (int)cudaGetLastError();
    const uint32_t cap = budget / (uint32_t)sizeof(mh_half);
    const size_t dyn = (size_t)cap * sizeof(mh_half);
    const uint64_t blocks = ((uint64_t)njobs + MH_JOBS - 1) / MH_JOBS;
    if (blocks > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(rows, 0, (size_t)njobs * stride * sizeof *rows, st);
    if (e != cudaSuccess) return (int)e;
    if (dyn > 48 * 1024 &&
        (e = cudaFuncSetAttribute(halves_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn)) != cudaSuccess)
        return (int)e;
    halves_kernel<<<(uint32_t)blocks, MK_BLOCK, dyn, st>>>(flat_basis, jobs, njobs, terms, (unsigned long long *)rows,
                                                           stride, cap, c->nparts);
    return (int)cudaGetLastError();
}

/* The refill kernel: every (job, term, part) item of the launch in one queue. pre[j] is the
 * first item of job j (pre[njobs] = all of them; an inclusive scan of n_terms x nparts). A
 * thread runs its item one term at a time, one term per turn of its loop: a thread whose item
 * is over takes the next item in the same turn (its warp's threads that need one take
 * consecutive items with one atomicAdd), so a warp's threads stay busy together until the
 * queue is empty, instead of waiting for the warp's longest search. MODE: a turn is a term
 * (refill), one step of the search (step: mk_item_step), or one step of the packed search
 * (packed: milnor_packed.h, its state in registers; a product beyond its limits takes the
 * step kernel's search), so that the threads of a warp also stay together between terms. */
enum { MK_MODE_TERM, MK_MODE_STEP, MK_MODE_PACKED };
__global__ static void items_kernel(const milnor_row_job *jobs, uint32_t njobs, uint32_t nparts,
                                    unsigned long long *count)
{
    const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < njobs) count[j] = (unsigned long long)jobs[j].n_terms * nparts;
}

template <int MODE>
__global__ static void __launch_bounds__(MK_BLOCK)
refill_kernel(const uint32_t *flat, const milnor_row_job *jobs, uint32_t njobs, const milnor_term *terms,
              const unsigned long long *pre, unsigned long long *next, unsigned long long *rows, uint32_t stride,
              uint32_t nparts)
{
    const flat_parts fp = flat_parts_of(flat);
    const unsigned long long nitems = pre[njobs];
    const uint32_t lane = threadIdx.x & 31;
    mk_item it;
    pk_search pk;
    unsigned long long *row = NULL;
    uint32_t col0 = 0;
    deg_t d = 0;
    bool have = false, packed = false;
    for (;;) {
        const unsigned active = __activemask();
        const unsigned need = __ballot_sync(active, !have);
        if (need) {
            const int leader = __ffs(need) - 1;
            unsigned long long base = 0;
            if ((int)lane == leader) base = atomicAdd(next, (unsigned long long)__popc(need));
            base = __shfl_sync(active, base, leader);
            if (!have) {
                const unsigned long long item = base + __popc(need & ((1u << lane) - 1));
                if (item >= nitems) break;
                uint32_t lo = 0, hi = njobs;            /* the last job j with pre[j] <= item */
                while (hi - lo > 1) {
                    const uint32_t mid = (lo + hi) / 2;
                    if (pre[mid] <= item) lo = mid;
                    else hi = mid;
                }
                const uint64_t in = item - pre[lo];
                const milnor_row_job job = jobs[lo];
                const milnor_term tm = terms[job.first_term + (uint32_t)(in / nparts)];
                const milnor_elt *R = &fp.elts[fp.first[job.r_deg] + job.r_idx], *S = &fp.elts[fp.first[tm.s_deg] + tm.s_idx];
                row = rows + (uint64_t)lo * stride;
                have = true;
                packed = false;
                if (MODE == MK_MODE_PACKED) {
                    const int r = pk_setup(&pk, R, S);
                    packed = r != PK_TOO_BIG;
                    have = r != PK_ZERO;
                    pk_split(&pk, (uint32_t)(in % nparts), nparts);
                    col0 = tm.col_offset;
                    d = R->degree + S->degree;
                }
                if (!packed) mk_item_start(&it, fp.g, R, S, tm.col_offset, (uint32_t)(in % nparts), nparts);
            }
        }
        if (!have) continue;
        uint32_t bit;
        int r;
        if (MODE == MK_MODE_PACKED && packed) {
            const int len = pk_step(&pk);
            r = len == -1 ? 0 : len == MM_STEP_ON ? MM_STEP_ON : 1;
            if (r == 1) bit = col0 + pk_seqno_index(&pk, fp.g, d, len);
        } else
            r = MODE == MK_MODE_TERM ? mk_item_next(&it, &bit) : mk_item_step(&it, &bit);
        if (r == 1) flip_bit_atomic(row, bit);
        else if (r == 0) have = false;
    }
}

/* The refill kernel's launch: the items' scan and the queue's counter in scratch from the
 * stream's memory pool; as many blocks as fit the device at once (fewer for a small launch). */
template <int MODE>
static int launch_refill(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                         const milnor_term *terms, uint64_t *rows, uint32_t stride, int one_row,
                         const milnor_cuda_cfg *c, cudaStream_t st)
{
    static int resident = 0;                            /* blocks the device runs at once */
    if (__atomic_load_n(&resident, __ATOMIC_RELAXED) == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, refill_kernel<MODE>, MK_BLOCK, 0) != cudaSuccess)
            return (int)cudaGetLastError();
        __atomic_store_n(&resident, sms * (per_sm > 0 ? per_sm : 1), __ATOMIC_RELAXED);
    }
    size_t scan_bytes = 0;
    unsigned long long *pre = NULL;
    cudaError_t e = cub::DeviceScan::InclusiveSum(NULL, scan_bytes, pre, pre, njobs, st);
    if (e != cudaSuccess) return (int)e;
    /* scratch: pre[0..njobs], next, then the scan's temporary storage */
    void *buf = NULL;
    if ((e = cudaMallocAsync(&buf, ((size_t)njobs + 2) * 8 + scan_bytes, st)) != cudaSuccess) return (int)e;
    pre = (unsigned long long *)buf;
    unsigned long long *next = pre + njobs + 1;
    void *scan_tmp = next + 1;
    const uint32_t jb = (njobs + MK_BLOCK - 1) / MK_BLOCK;
    const uint64_t want = ((uint64_t)njobs * c->nparts + MK_BLOCK - 1) / MK_BLOCK;    /* at least a job a thread */
    const uint32_t blocks = (uint32_t)(want < (uint64_t)resident ? (want ? want : 1) : resident);
    if ((e = cudaMemsetAsync(pre, 0, 8, st)) != cudaSuccess ||
        (e = cudaMemsetAsync(next, 0, 8, st)) != cudaSuccess ||
        (e = cudaMemsetAsync(rows, 0, (size_t)(one_row ? 1 : njobs) * stride * sizeof *rows, st)) != cudaSuccess)
        goto out;
    items_kernel<<<jb, MK_BLOCK, 0, st>>>(jobs, njobs, c->nparts, pre + 1);
    if ((e = cub::DeviceScan::InclusiveSum(scan_tmp, scan_bytes, pre + 1, pre + 1, njobs, st)) != cudaSuccess) goto out;
    refill_kernel<MODE><<<blocks, MK_BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms, pre, next, (unsigned long long *)rows,
                                               one_row ? 0 : stride, c->nparts);
    e = cudaGetLastError();
out:
    cudaError_t f = cudaFreeAsync(buf, st);
    return (int)(e != cudaSuccess ? e : f);
}

/* The configuration used when the caller gives none: EXTFLOW_GPU_SPLIT="threads_per_job,parts"
 * and EXTFLOW_GPU_KERNEL (any kernel of milnor_cuda.h; read once), else the defaults there. */
static milnor_cuda_cfg the_default_cfg = { MILNOR_CUDA_THREADS_PER_JOB, MILNOR_CUDA_PARTS, MILNOR_CUDA_KERNEL_DEFAULT, 0 };
static pthread_once_t default_cfg_once = PTHREAD_ONCE_INIT;

static void read_default_cfg(void)
{
    cuda_split_from_env("EXTFLOW_GPU_SPLIT", BLOCK, &the_default_cfg.threads_per_job, &the_default_cfg.nparts);
    const char *k = getenv("EXTFLOW_GPU_KERNEL");
    if (k && strcmp(k, "atomic") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_ATOMIC;
    else if (k && strcmp(k, "shared") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_SHARED;
    else if (k && strcmp(k, "halves") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_HALVES;
    else if (k && strcmp(k, "refill") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_REFILL;
    else if (k && strcmp(k, "step") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_STEP;
    else if (k && strcmp(k, "packed") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_PACKED;
    else if (k && strcmp(k, "atomic-packed") == 0) the_default_cfg.kernel = MILNOR_CUDA_KERNEL_ATOMIC_PACKED;
}

static milnor_cuda_cfg default_cfg(void)
{
    pthread_once(&default_cfg_once, read_default_cfg);     /* CUDA workers call this at once */
    return the_default_cfg;
}

extern "C" int milnor_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

/* The launch behind both entries: a row per job (stride_words apart), or with one_row all the
 * jobs into one row of stride_words words (the atomic kernel at stride 0: its rows coincide). */
static int launch(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs, const milnor_term *terms,
                  uint64_t *rows, uint32_t stride_words, int one_row, const milnor_cuda_cfg *cfg, cudaStream_t st)
{
    milnor_cuda_cfg c = cfg ? *cfg : default_cfg();
    if (c.kernel == 0) c.kernel = default_cfg().kernel;
    if (njobs == 0) return one_row ? (int)cudaMemsetAsync(rows, 0, (size_t)stride_words * sizeof *rows, st) : 0;
    if (c.threads_per_job < 1 || c.threads_per_job > BLOCK || BLOCK % c.threads_per_job || c.nparts < 1)
        return (int)cudaErrorInvalidValue;
    if (c.kernel == MILNOR_CUDA_KERNEL_SHARED && !one_row)
        return launch_shared(flat_basis, jobs, njobs, terms, rows, stride_words, &c, st);
    if (c.kernel == MILNOR_CUDA_KERNEL_HALVES && !one_row)
        return launch_halves(flat_basis, jobs, njobs, terms, rows, stride_words, &c, st);
    if (c.kernel == MILNOR_CUDA_KERNEL_REFILL)
        return launch_refill<MK_MODE_TERM>(flat_basis, jobs, njobs, terms, rows, stride_words, one_row, &c, st);
    if (c.kernel == MILNOR_CUDA_KERNEL_STEP)
        return launch_refill<MK_MODE_STEP>(flat_basis, jobs, njobs, terms, rows, stride_words, one_row, &c, st);
    if (c.kernel == MILNOR_CUDA_KERNEL_PACKED)
        return launch_refill<MK_MODE_PACKED>(flat_basis, jobs, njobs, terms, rows, stride_words, one_row, &c, st);
    uint64_t blocks = ((uint64_t)njobs * c.threads_per_job + BLOCK - 1) / BLOCK;
    if (blocks > 0x7fffffffu) return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(rows, 0, (size_t)(one_row ? 1 : njobs) * stride_words * sizeof *rows, st);
    if (e != cudaSuccess) return (int)e;
    if (c.kernel == MILNOR_CUDA_KERNEL_ATOMIC_PACKED)
        mul_batch_kernel<true><<<(uint32_t)blocks, BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms,
                                                                   (unsigned long long *)rows, one_row ? 0 : stride_words,
                                                                   c.threads_per_job, c.nparts);
    else
        mul_batch_kernel<false><<<(uint32_t)blocks, BLOCK, 0, st>>>(flat_basis, jobs, njobs, terms,
                                                                    (unsigned long long *)rows, one_row ? 0 : stride_words,
                                                                    c.threads_per_job, c.nparts);
    return (int)cudaGetLastError();
}

extern "C" int milnor_mul_batch_cuda_cfg(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                         const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                                         const milnor_cuda_cfg *cfg, void *stream)
{
    return launch(flat_basis, jobs, njobs, terms, rows, stride_words, 0, cfg, (cudaStream_t)stream);
}

extern "C" int milnor_mul_batch_cuda_row(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                         const milnor_term *terms, uint64_t *row, uint32_t row_words, void *stream)
{
    return launch(flat_basis, jobs, njobs, terms, row, row_words, 1, NULL, (cudaStream_t)stream);
}

extern "C" int milnor_mul_batch_cuda(const uint32_t *flat_basis, const milnor_row_job *jobs, uint32_t njobs,
                                     const milnor_term *terms, uint64_t *rows, uint32_t stride_words,
                                     void *stream)
{
    return milnor_mul_batch_cuda_cfg(flat_basis, jobs, njobs, terms, rows, stride_words, NULL, stream);
}

extern "C" int milnor_mul_batch_cuda_host(const uint32_t *flat, size_t flat_words, const milnor_row_job *jobs,
                                          uint32_t njobs, const milnor_term *terms, size_t nterms,
                                          uint64_t *rows, uint32_t stride_words, int one_row,
                                          const milnor_cuda_cfg *cfg, double *kernel_ms, char *err, size_t errlen)
{
    auto run = [&](const uint32_t *d_flat, const milnor_row_job *d_jobs, const milnor_term *d_terms, uint64_t *d_rows) {
        return launch(d_flat, d_jobs, njobs, d_terms, d_rows, stride_words, one_row, cfg, NULL);
    };
    /* rows poisoned: the launch must zero them */
    return cuda_host_round_trip(flat, flat_words, jobs, njobs, terms, nterms, rows,
                                (size_t)(one_row ? 1 : njobs) * stride_words, false, run, kernel_ms, err, errlen);
}

static __thread flat_cache verify_cache;    /* the basis's host copy, per CUDA worker */
static __thread milnor_elt *view_elts[MILNOR_MAX_DEGREE + 1];
static __thread uint32_t view_dim[MILNOR_MAX_DEGREE + 1];

extern "C" long milnor_mul_batch_cuda_verify(const uint32_t *flat_basis, const milnor_row_job *jobs,
                                             uint32_t njobs, const milnor_term *terms, size_t nterms,
                                             const uint64_t *rows, uint32_t stride_words, int one_row,
                                             void *stream)
{
    auto cpu = [&](const uint32_t *flat, size_t words, const milnor_row_job *h_jobs, const milnor_term *h_terms,
                   uint64_t *out) {
        milnor_basis view;
        if (milnor_flat_view(flat, words, &view, view_elts, view_dim) < 0) return -1;
        milnor_mul_batch_search(&view, h_jobs, njobs, h_terms, out, one_row ? 0 : stride_words);
        return 0;
    };
    return cuda_verify_rows(&verify_cache, flat_basis, MILNOR_FLAT_HEADER, 3, jobs, njobs, terms, nterms, rows,
                            one_row ? 1 : njobs, stride_words, stream, cpu);
}
