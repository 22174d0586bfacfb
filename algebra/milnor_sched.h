/* milnor_sched.h — the cost model, binning and block layout of the "shared" GPU kernel of the
 * batched Milnor product (algebra/milnor_cuda.cu), written once for the device and the host:
 * every function is `static inline` and, under nvcc, __host__ __device__ (MILNOR_HD), so that
 * tests/t-milnor-sched.c runs the kernel's own logic on the CPU against milnor_mul_batch.
 * Includes nothing but milnor_search.h (so nothing of StarPU).
 *
 * Maths. Row i of a batch is the XOR over its terms k of Sq(R_i)·Sq(S_k) (milnor.h); XOR is
 * order-independent, so any order of jobs, terms and search parts gives the same bits.
 *
 * Cost. A product's search visits Milnor matrices cell by cell (milnor_search.h); cell (i, j)
 * takes values 0..min(r_i >> j, s_j) with no bit in common with its anti-diagonal. With b the
 * sum over the cells of the bit length of that bound, the estimate is 8 x 2^(3b/8) (piecewise
 * linear between powers of 2): fitted on the CPU, the time of one product is about
 * 2^(5.15 + 0.36 b) ns (3000 random products of degrees <= 200, correlation of the logs 0.79;
 * the no-carry rule prunes most of the box); so a unit is ~4 ns of one CPU core and a product
 * without cells costs 8. A job costs the sum over its terms (saturating).
 *
 * Binning. Jobs go to MK_NBINS bins by the bit length of their cost, heaviest bin first
 * (bin 0 holds costs of 2^63 and more, bin 63 those below 2); within a bin, any order. The
 * kernel's blocks take the binned order in turn, so the heaviest jobs start first and a
 * launch ends on its lightest ones (longest-processing-time-first scheduling).
 *
 * Block layout. A block of MK_BLOCK threads owns J consecutive jobs of that order
 * (J = MK_BLOCK / threads_per_job, halved while their rows do not fit the shared-memory
 * budget). Its items are (job l, term k, part p), l < J, k < n_terms(l), p < nparts, numbered
 * job by job (pre[l] = first item of job l, 64-bit: a job may have many terms), term by term; threads take items from a shared
 * counter (so a thread that drew light products takes more), and item (l, k, p) runs part p of
 * the search of Sq(R_l)·Sq(S_k) (mm_split). With rows in shared memory, the block's J rows are
 * J x stride 64-bit words held as 2 x stride 32-bit words each (word w of a row = 32-bit words
 * 2w (low) and 2w + 1 (high): bit b is bit b & 31 of 32-bit word b >> 5), zeroed, XORed with
 * 32-bit shared atomics, then stored once each to the rows in global memory (no memset, no
 * global atomic). When one row does not fit (J = 0 here), the block XORs into global memory
 * with 64-bit atomics, after a memset, as the old kernel does. */
#ifndef EXTFLOW_MILNOR_SCHED_H
#define EXTFLOW_MILNOR_SCHED_H
#include "algebra/milnor_search.h"

#define MK_BLOCK 256                /* threads per block */
#define MK_NBINS 64                 /* cost bins (bit lengths of a 64-bit cost) */
#define MK_SHARED_DEFAULT (40u << 10)   /* shared bytes for rows per block (under 48 KiB) */

/* Bit length of v (0 for 0). */
MILNOR_HD static inline uint32_t mk_bitlen(uint64_t v)
{
    uint32_t n = 0;
    while (v) {
        ++n;
        v >>= 1;
    }
    return n;
}

/* Estimated cost of the search of Sq(R)·Sq(S) (see above), at least 8. */
MILNOR_HD static inline uint64_t mk_pair_cost(const milnor_elt *R, const milnor_elt *S)
{
    uint32_t b = 0;
    for (uint32_t j = 1; j <= S->len; ++j)
        for (uint32_t i = 1; i <= R->len; ++i) {
            uint32_t x = R->r[i - 1] >> j, s = S->r[j - 1];
            b += mk_bitlen(x < s ? x : s);
        }
    uint32_t e = 3 * (b < 120 ? b : 120);          /* eighths of a power of 2; at most 2^49 */
    return (uint64_t)(8 + (e & 7)) << (e >> 3);
}

/* A job's cost: the sum over its terms, saturating at UINT64_MAX. elts/first: the flat
 * basis's element records and first-index table (milnor_flat_write). */
MILNOR_HD static inline uint64_t mk_job_cost(const milnor_elt *elts, const uint32_t *first,
                                             const milnor_row_job *job, const milnor_term *terms)
{
    const milnor_elt *R = &elts[first[job->r_deg] + job->r_idx];
    uint64_t c = 0;
    for (uint32_t k = 0; k < job->n_terms; ++k) {
        const milnor_term *tm = &terms[job->first_term + k];
        uint64_t p = mk_pair_cost(R, &elts[first[tm->s_deg] + tm->s_idx]);
        c = c + p < c ? UINT64_MAX : c + p;
    }
    return c;
}

/* The bin of a cost: 0 for the heaviest (bit length 64), MK_NBINS - 1 for costs 0 and 1. */
MILNOR_HD static inline uint32_t mk_cost_bin(uint64_t cost)
{
    uint32_t n = mk_bitlen(cost);
    return n == 0 ? MK_NBINS - 1 : (uint32_t)MK_NBINS - n;
}

/* start[b] = jobs in bins before b (exclusive prefix sum of hist, heaviest bin first). */
MILNOR_HD static inline void mk_bin_starts(const uint32_t *hist, uint32_t *start)
{
    uint32_t s = 0;
    for (uint32_t b = 0; b < MK_NBINS; ++b) {
        start[b] = s;
        s += hist[b];
    }
}

/* Jobs per block: MK_BLOCK / threads_per_job, halved while J rows of stride words exceed
 * shared_bytes; 0 when not even one row fits (or stride is 0: every job XORs into one row),
 * and the kernel then XORs into global memory. */
MILNOR_HD static inline uint32_t mk_jobs_per_block(uint32_t threads_per_job, uint32_t stride, uint32_t shared_bytes)
{
    uint32_t J = threads_per_job ? MK_BLOCK / threads_per_job : 1;
    if (J == 0) J = 1;
    if (stride == 0 || (uint64_t)stride * 8 > shared_bytes) return 0;
    while (J > 1 && (uint64_t)J * stride * 8 > shared_bytes) J /= 2;
    return J;
}

/* The job l (< J) that item `item` belongs to, pre[0..J] being the first items of the block's
 * jobs (pre[J] = its item count; jobs without items repeat a value): the last l with
 * pre[l] <= item. */
MILNOR_HD static inline uint32_t mk_item_job(const uint64_t *pre, uint32_t J, uint64_t item)
{
    uint32_t lo = 0, hi = J;    /* pre[lo] <= item < pre[hi] */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (pre[mid] <= item) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* One item's products, bit by bit: mk_item_start, then mk_item_next until it returns 0. The
 * state is the search's (about 1 KB; a GPU thread's local memory). */
typedef struct mk_item {
    mm_search s;
    const uint32_t *g;              /* seqno table */
    uint32_t col0;                  /* column of the product's bit 0 */
    deg_t d;                        /* degree of the product */
    int state;                      /* 0 search, 1 the unit term pending, 2 done */
    uint32_t unit_bit;
} mk_item;

/* Item (R, S at column col0, part p of nparts); g: the seqno table. */
MILNOR_HD static inline void mk_item_start(mk_item *it, const uint32_t *g, const milnor_elt *R, const milnor_elt *S,
                                           uint32_t col0, uint32_t part, uint32_t nparts)
{
    it->g = g;
    it->col0 = col0;
    it->d = R->degree + S->degree;
    if (R->len == 0 || S->len == 0) {               /* unit factor: one term, part 0's */
        const milnor_elt *X = R->len ? R : S;
        it->state = part == 0 ? 1 : 2;
        it->unit_bit = part == 0 ? col0 + milnor_seqno_index(g, it->d, X->r, X->len) : 0;
        return;
    }
    it->state = mm_setup(&it->s, R, S) ? 0 : 2;
    if (it->state == 0) mm_split(&it->s, part, nparts);
}

/* Starts item `item` of a block whose jobs are jobs[jobno[0..J)] (pre as for mk_item_job,
 * nparts parts per term; elts, first, g: the flat basis's element records, first-index and
 * seqno tables): part p of Sq(R_l)·Sq(S_k) at term k's columns. Returns the item's job l. */
MILNOR_HD static inline uint32_t mk_item_begin(mk_item *it, const milnor_row_job *jobs, const milnor_term *terms,
                                              const milnor_elt *elts, const uint32_t *first, const uint32_t *g,
                                              const uint64_t *pre, const uint32_t *jobno, uint32_t J,
                                              uint32_t nparts, uint64_t item)
{
    const uint32_t l = mk_item_job(pre, J, item);
    const uint64_t in = item - pre[l];
    const milnor_row_job job = jobs[jobno[l]];
    const milnor_term tm = terms[job.first_term + (uint32_t)(in / nparts)];
    const milnor_elt R = elts[first[job.r_deg] + job.r_idx], S = elts[first[tm.s_deg] + tm.s_idx];
    mk_item_start(it, g, &R, &S, tm.col_offset, (uint32_t)(in % nparts), nparts);
    return l;
}

/* The column of the item's next term into *bit; 0 when there is none left. */
MILNOR_HD static inline int mk_item_next(mk_item *it, uint32_t *bit)
{
    if (it->state == 1) {
        it->state = 2;
        *bit = it->unit_bit;
        return 1;
    }
    if (it->state == 2) return 0;
    uint32_t t[2 * MM_SIDE];
    int len = mm_next(&it->s, t);
    if (len < 0) {
        it->state = 2;
        return 0;
    }
    *bit = it->col0 + milnor_seqno_index(it->g, it->d, t, (uint32_t)len);
    return 1;
}

/* As mk_item_next, one search step at a time (mm_step): 1 with the column of a term in *bit,
 * MM_STEP_ON (no term this step), 0 once the item is over. */
MILNOR_HD static inline int mk_item_step(mk_item *it, uint32_t *bit)
{
    if (it->state == 1) {
        it->state = 2;
        *bit = it->unit_bit;
        return 1;
    }
    if (it->state == 2) return 0;
    uint32_t t[2 * MM_SIDE];
    int len = mm_step(&it->s, t);
    if (len == MM_STEP_ON) return MM_STEP_ON;
    if (len < 0) {
        it->state = 2;
        return 0;
    }
    *bit = it->col0 + milnor_seqno_index(it->g, it->d, t, (uint32_t)len);
    return 1;
}

/* Shared rows: bit b of a row flips bit (b & 31) of its 32-bit word b >> 5 ... */
MILNOR_HD static inline uint32_t mk_word32(uint32_t bit) { return bit >> 5; }
MILNOR_HD static inline uint32_t mk_mask32(uint32_t bit) { return 1u << (bit & 31); }
/* ... and 64-bit word w of the row is 32-bit words 2w (low half) and 2w + 1 (high half). */
MILNOR_HD static inline uint64_t mk_word64(const uint32_t *row32, uint32_t w)
{
    return (uint64_t)row32[2 * w] | (uint64_t)row32[2 * w + 1] << 32;
}

#endif
