/* f2mat.c — packed F2 matrices; RREF by our own M4RM (f2mat_m4rm.c), plain Gauss-Jordan
 * when small, M4RI's PLUQ for very large dense matrices,
 * and kernel / quasi-inverse extraction from an RREF'd [A | 0 | I] (docs/algorithms.md §3). */
#include "algebra/f2mat.h"

#if defined(__BMI2__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#include "algebra/memacct.h"

#include <m4ri/m4ri.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* EXTFLOW_POISON_UNZEROED=1 (tests): f2mat_init_unzeroed fills its words with 0xa5, so a row
 * read before it was written shows, where fresh pages from the system would hide it. */
static int poison_unzeroed(void)
{
    static atomic_int v = -1;
    int x = atomic_load_explicit(&v, memory_order_relaxed);
    if (x < 0) {
        const char *e = getenv("EXTFLOW_POISON_UNZEROED");
        x = e && strcmp(e, "1") == 0;
        atomic_store_explicit(&v, x, memory_order_relaxed);
    }
    return x;
}

/* Large matrices on transparent huge pages (2 MB): where the kernel gives them only on request
 * (THP "madvise", Debian's default) every 4 KB page of a fresh block faults in on its first
 * touch, at 0.2-0.3 GB/s on the VM against 10 GB/s in huge pages (docs/perf.md "Huge pages").
 * The advice covers the block's 2 MB-aligned interior; where THP is off or unavailable it does
 * nothing. EXTFLOW_HUGEPAGES=0 leaves the pages as the kernel's default makes them. */
static void advise_huge(void *p, size_t bytes)
{
    static atomic_int on = -1;
    int x = atomic_load_explicit(&on, memory_order_relaxed);
    if (x < 0) {
        const char *e = getenv("EXTFLOW_HUGEPAGES");
        x = !(e && strcmp(e, "0") == 0);
        atomic_store_explicit(&on, x, memory_order_relaxed);
    }
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (x && bytes >= F2MAT_HUGE_MIN && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

static int init(f2mat *m, uint32_t rows, uint32_t cols, int zero)
{
    size_t words = f2vec_words(cols);
    size_t stride = (words + 7) & ~(size_t)7;
    m->rows = m->cols = m->stride = 0;
    m->data = NULL;
    if (stride > UINT32_MAX) return -1;
    if (rows && stride > SIZE_MAX / sizeof(uint64_t) / rows) return -1;
    size_t bytes = (size_t)rows * stride * sizeof(uint64_t);
    /* Never NULL, so f2mat_row() is valid arithmetic even for an empty matrix. */
    size_t alloc = bytes ? bytes : 64;
    uint64_t *d = aligned_alloc(64, alloc);   /* alloc is a multiple of 64 */
    if (!d) return -1;
    advise_huge(d, alloc);
    if (zero) memset(d, 0, alloc);
    else if (poison_unzeroed()) memset(d, 0xa5, alloc);     /* tests: garbage, not the kernel's zeros */
    m->rows = rows;
    m->cols = cols;
    m->stride = (uint32_t)stride;
    m->data = d;
    memacct_add(MEM_INFLIGHT, (int64_t)alloc);
    return 0;
}

int f2mat_init(f2mat *m, uint32_t rows, uint32_t cols) { return init(m, rows, cols, 1); }
int f2mat_init_unzeroed(f2mat *m, uint32_t rows, uint32_t cols) { return init(m, rows, cols, 0); }

size_t f2mat_bytes(const f2mat *m)
{
    size_t bytes = (size_t)m->rows * m->stride * sizeof(uint64_t);
    return m->data ? (bytes ? bytes : 64) : 0;
}

void f2mat_clear(f2mat *m)
{
    memacct_add(MEM_INFLIGHT, -(int64_t)f2mat_bytes(m));
    free(m->data);
    m->data = NULL;
    m->rows = m->cols = m->stride = 0;
}

/* *data reallocated to bytes, its first `used` bytes kept, and 64-byte aligned again where
 * realloc gave less (a copy then; glibc keeps an mmap'ed block's alignment through mremap): the
 * new block, or NULL (*data is then the block the contents are in, for free). */
static uint64_t *realloc_aligned(uint64_t **data, size_t bytes, size_t used)
{
    uint64_t *d = realloc(*data, bytes);
    if (!d) return NULL;
    *data = d;
    advise_huge(d, bytes);
    if ((uintptr_t)d % 64 == 0) return d;
    uint64_t *a = aligned_alloc(64, bytes);
    if (!a) return NULL;
    advise_huge(a, bytes);
    memcpy(a, d, used);
    free(d);
    return *data = a;
}

int f2mat_widen(f2mat *m, uint32_t rows, uint32_t cols, uint32_t from, uint32_t to)
{
    if (cols < m->cols || from > to || from > m->cols || (from != to && (from % 64 || to % 64)) ||
        (uint64_t)to + (m->cols - from) > cols)
        return -1;
    size_t stride = (f2vec_words(cols) + 7) & ~(size_t)7, old = m->stride;
    if (stride > UINT32_MAX || (rows && stride > SIZE_MAX / sizeof(uint64_t) / rows)) return -1;
    size_t keep = rows < m->rows ? rows : m->rows, was = f2mat_bytes(m);
    size_t bytes = (size_t)rows * stride * sizeof(uint64_t), alloc = bytes ? bytes : 64;
    /* fewer bytes (rows dropped): the block stays as it is, the account counts the rows */
    uint64_t *d = alloc > was ? realloc_aligned(&m->data, alloc, was) : m->data;
    if (!d) return -1;
    /* each row: words [0, head) stay, [head, head + moved) go to [at, at + moved), the rest
     * zero. From the last row up, and in a row its moved part first: row r only moves right
     * (r * stride >= r * old, at >= head), over rows already moved, never over the rows above
     * it, so nothing is read after it is written over. */
    size_t ow = f2vec_words(m->cols), head = from == to ? ow : from / 64, moved = ow - head;
    size_t at = from == to ? head : to / 64;
    for (size_t r = keep; r-- > 0;) {
        uint64_t *src = d + r * old, *dst = d + r * stride;
        memmove(dst + at, src + head, moved * sizeof *d);
        memmove(dst, src, head * sizeof *d);
        memset(dst + head, 0, (at - head) * sizeof *d);
        memset(dst + at + moved, 0, (stride - at - moved) * sizeof *d);
    }
    memset(d + keep * stride, 0, (rows - keep) * stride * sizeof *d);
    m->rows = rows;
    m->cols = cols;
    m->stride = (uint32_t)stride;
    memacct_add(MEM_INFLIGHT, (int64_t)alloc - (int64_t)was);
    return 0;
}

int f2mat_copy(f2mat *dst, const f2mat *src)
{
    if (f2mat_init(dst, src->rows, src->cols)) return -1;
    memcpy(dst->data, src->data, (size_t)src->rows * src->stride * sizeof(uint64_t));
    return 0;
}

int f2mat_equal(const f2mat *a, const f2mat *b)
{
    if (a->rows != b->rows || a->cols != b->cols) return 0;
    size_t w = f2vec_words(a->cols);
    for (uint32_t i = 0; i < a->rows; i++)
        if (memcmp(f2mat_row(a, i), f2mat_row(b, i), w * sizeof(uint64_t))) return 0;
    return 1;
}

int f2vec_is_zero(const uint64_t *v, size_t words)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < words; i++) acc |= v[i];
    return acc == 0;
}

uint32_t f2mat_popcount_row(const f2mat *m, uint32_t i)
{
    const uint64_t *r = f2mat_row(m, i);
    size_t w = f2vec_words(m->cols);
    uint32_t n = 0;
    for (size_t k = 0; k < w; k++) n += (uint32_t)__builtin_popcountll(r[k]);
    return n;
}

/* First set bit of a row, or -1. */

/* Pivots from a matrix already in RREF: the first `rank` rows are nonzero. */
static int fill_pivots(const f2mat *m, int32_t *pivots)
{
    size_t w = f2vec_words(m->cols);
    int rank = 0;
    if (pivots)
        for (uint32_t c = 0; c < m->cols; c++) pivots[c] = -1;
    for (uint32_t i = 0; i < m->rows; i++) {
        int64_t c = f2vec_first_bit(f2mat_row(m, i), (uint32_t)(w * 64));
        if (c < 0) break;
        if (pivots) pivots[c] = (int32_t)i;
        rank++;
    }
    return rank;
}

/* Plain Gauss-Jordan. Zero columns are skipped a word at a time via the OR of the
 * not-yet-pivoted rows, so flat matrices (few rows, many columns) stay cheap. */
int f2mat_rref_naive(f2mat *m, int32_t *pivots)
{
    const uint32_t rows = m->rows;
    const size_t nw = f2vec_words(m->cols);
    uint32_t rank = 0;
    if (pivots)
        for (uint32_t c = 0; c < m->cols; c++) pivots[c] = -1;
    for (size_t w = 0; w < nw && rank < rows; w++) {
        uint64_t done = 0;   /* bits of word w already examined */
        for (;;) {
            uint64_t any = 0;
            for (uint32_t r = rank; r < rows; r++) any |= f2mat_row(m, r)[w];
            any &= ~done;
            if (!any) break;
            unsigned b = (unsigned)__builtin_ctzll(any);
            uint64_t bit = (uint64_t)1 << b;
            done |= (bit << 1) - 1;
            uint32_t p = rank;
            while (!(f2mat_row(m, p)[w] & bit)) p++;
            if (p != rank) {
                uint64_t *a = f2mat_row(m, p), *r = f2mat_row(m, rank);
                for (size_t k = w; k < nw; k++) { uint64_t t = a[k]; a[k] = r[k]; r[k] = t; }
            }
            const uint64_t *pr = f2mat_row(m, rank);
            for (uint32_t r = 0; r < rows; r++) {
                uint64_t *x = f2mat_row(m, r);
                if (r != rank && (x[w] & bit)) f2vec_xor(x + w, pr + w, nw - w);
            }
            if (pivots) pivots[w * 64 + b] = (int32_t)rank;
            if (++rank == rows) break;
        }
    }
    return (int)rank;
}

/* Copy into M4RI, echelonize fully, copy back. M4RI shares our bit layout (64-bit words,
 * column c = bit c%64 of word c/64); its rows may span several memory blocks, so go through
 * mzd_row(). M4RI aborts (m4ri_die) rather than failing on out-of-memory. */
/* Debian's M4RI is built without OpenMP, so its block cache (mmc) and mzd cache are not
 * thread-safe: every call into M4RI holds this lock (found as heap corruption in a
 * 2-worker run; see docs/perf.md). */
static pthread_mutex_t m4ri_lock = PTHREAD_MUTEX_INITIALIZER;

static int rref_m4ri(f2mat *m, int32_t *pivots, enum f2_rref_method method)
{
    if (m->rows == 0 || m->cols == 0) return fill_pivots(m, pivots);
    if (m->rows > INT32_MAX || m->cols > INT32_MAX) return -1;
    pthread_mutex_lock(&m4ri_lock);
    mzd_t *A = mzd_init((rci_t)m->rows, (rci_t)m->cols);
    if (!A) {
        pthread_mutex_unlock(&m4ri_lock);
        return -1;
    }
    const size_t w = (size_t)A->width;
    const int64_t copy_bytes = (int64_t)((size_t)m->rows * w * sizeof(uint64_t));
    memacct_add(MEM_INFLIGHT, copy_bytes);
    for (uint32_t i = 0; i < m->rows; i++)
        memcpy(mzd_row(A, (rci_t)i), f2mat_row(m, i), w * sizeof(uint64_t));
    switch (method) {
    case F2_RREF_PLUQ: mzd_echelonize_pluq(A, 1); break;
    case F2_RREF_ECHELONIZE: mzd_echelonize(A, 1); break;
    default: mzd_echelonize_m4ri(A, 1, 0); break;
    }
    const uint64_t last = A->high_bitmask;
    for (uint32_t i = 0; i < m->rows; i++) {
        uint64_t *r = f2mat_row(m, i);
        memcpy(r, mzd_row(A, (rci_t)i), w * sizeof(uint64_t));
        r[w - 1] &= last;
    }
    mzd_free(A);
    memacct_add(MEM_INFLIGHT, -copy_bytes);
    pthread_mutex_unlock(&m4ri_lock);
    return fill_pivots(m, pivots);
}

/* Dispatch, from bench/f2mat_bench (this 2-core Debian VM, AMD EPYC, -O2 -march=x86-64-v3;
 * median times; M4RI times include f2mat's copy into and out of M4RI; docs/perf.md):
 *  - own M4RM (f2mat_m4rm.c) vs M4RI echelonize_m4ri / PLUQ, ms:
 *      [D|0|I] D 1000x800 d=1/4 (1000x1832)       0.72 / 0.96 / 2.09
 *      [D|0|I] D 3000x2500 (3000x5560)            8.2 / 13.0 / 23.2
 *      [D|0|I] D 8000x7000 (8000x15040)           116-160 / 220-367 / 264-271
 *      [D|0|I] D 15000x13000 (15000x28056)        1047-1613 / 2302-3795 / 1620-2553
 *      [D|0|I] D 16000x2000 (16000x18048)         700 / - / 1625
 *      dense 4096^2 12.6/14.1/17.5   8192^2 77/88/98   10240^2 346/-/306   12288^2 755/807/469
 *      16384^2 950/1030/645   128x100000 0.82/1.46/5.7   512x20000 1.73/2.85/5.08
 *      3000x6000 rank 1200: 6.2/7.0/11.7
 *    small, us: 16x4000 1.3/4.2 (naive 4.0)   64x1000 5.9/11 (naive 12)   180^2 22/20
 *      384^2 82/68   512^2 130/125   768^2 309/314   (naive 128x128 11 vs own 12)
 *  So: naive for narrow small matrices (as measured before: 4x4 0.04 us vs own 0.2 us),
 *  PLUQ (under the M4RI lock) only for dense matrices of at least 10240 rows and columns,
 *  where its asymptotically faster multiplication wins (crossover between 8192 and 10240);
 *  our [D | 0 | I] matrices are never dense there (their I block is sparse), and own M4RM
 *  beats PLUQ on them at every size measured. Everything else: own M4RM, which is also
 *  lock-free; M4RI is up to ~20% faster on small squares (180..400), kept out for that. */
static int use_naive(uint32_t rows, uint32_t cols)
{
    return (rows <= 128 && cols <= 256) || (rows <= 8 && cols <= 1024);
}
#define F2_RREF_PLUQ_MIN_DIM 10240u

/* At least 3/4 of the words (of every 16th row) nonzero. */
static int mostly_dense(const f2mat *m)
{
    size_t w = f2vec_words(m->cols), nz = 0, all = 0;
    for (uint32_t i = 0; i < m->rows; i += 16) {
        const uint64_t *r = f2mat_row(m, i);
        for (size_t k = 0; k < w; k++) nz += r[k] != 0;
        all += w;
    }
    return 4 * nz >= 3 * all;
}

static int rref_with(f2mat *m, int32_t *pivots, enum f2_rref_method method, team *tm)
{
    switch (method) {
    case F2_RREF_NAIVE: return f2mat_rref_naive(m, pivots);
    case F2_RREF_M4RI:
    case F2_RREF_PLUQ:
    case F2_RREF_ECHELONIZE: return rref_m4ri(m, pivots, method);
    case F2_RREF_OWN: return f2mat_rref_m4rm(m, pivots);
    case F2_RREF_AUTO: break;
    }
    if (use_naive(m->rows, m->cols)) return f2mat_rref_naive(m, pivots);
    if (m->rows >= F2_RREF_PLUQ_MIN_DIM && m->cols >= F2_RREF_PLUQ_MIN_DIM && mostly_dense(m))
        return rref_m4ri(m, pivots, F2_RREF_PLUQ);
    return f2mat_rref_m4rm_team(m, pivots, tm);
}

int f2mat_rref_with(f2mat *m, int32_t *pivots, enum f2_rref_method method)
{
    return rref_with(m, pivots, method, NULL);
}

int f2mat_rref(f2mat *m, int32_t *pivots) { return rref_with(m, pivots, F2_RREF_AUTO, NULL); }

int f2mat_rref_team(f2mat *m, int32_t *pivots, team *tm) { return rref_with(m, pivots, F2_RREF_AUTO, tm); }

int f2mat_rref_extend(f2mat *m, uint32_t rank0, int32_t *pivots)
{
    const uint32_t rows = m->rows, fresh = rows - rank0;
    const size_t nw = f2vec_words(m->cols);
    uint32_t *pc = malloc(sizeof *pc * ((size_t)rows + 1));     /* pivot column of each pivot row */
    uint64_t *hold = NULL;
    if (!pc) return -1;
    for (uint32_t i = 0; i < rank0; i++) pc[i] = (uint32_t)f2vec_first_bit(f2mat_row(m, i), m->cols);
    /* 1. the new rows reduced by the old pivot rows (whose pivots no other old row has) */
    for (uint32_t i = 0; i < rank0; i++) {
        const uint64_t *p = f2mat_row(m, i), bit = (uint64_t)1 << (pc[i] & 63);
        const size_t w = pc[i] >> 6;
        for (uint32_t r = rank0; r < rows; r++) {
            uint64_t *x = f2mat_row(m, r);
            if (x[w] & bit) f2vec_xor(x + w, p + w, nw - w);
        }
    }
    /* 2. the new rows among themselves: zero on the old pivot columns, so their RREF is too */
    f2mat tail = { fresh, m->cols, m->stride, f2mat_row(m, rank0) };
    int added = f2mat_rref_naive(&tail, NULL);
    if (added < 0) goto oom;
    for (uint32_t j = 0; j < (uint32_t)added; j++)
        pc[rank0 + j] = (uint32_t)f2vec_first_bit(f2mat_row(m, rank0 + j), m->cols);
    /* 3. the old rows cleared at the new pivots */
    for (uint32_t j = 0; j < (uint32_t)added; j++) {
        const uint64_t *p = f2mat_row(m, rank0 + j), bit = (uint64_t)1 << (pc[rank0 + j] & 63);
        const size_t w = pc[rank0 + j] >> 6;
        for (uint32_t i = 0; i < rank0; i++) {
            uint64_t *x = f2mat_row(m, i);
            if (x[w] & bit) f2vec_xor(x + w, p + w, nw - w);
        }
    }
    /* 4. merged in pivot order from the bottom up: the new pivot rows wait in hold, old rows
     * only move down */
    if (added) {
        hold = malloc((size_t)added * m->stride * sizeof *hold);
        uint32_t *hpc = malloc(sizeof *hpc * (size_t)added);
        if (!hold || !hpc) { free(hpc); goto oom; }
        memcpy(hold, f2mat_row(m, rank0), (size_t)added * m->stride * sizeof *hold);
        memcpy(hpc, pc + rank0, sizeof *hpc * (size_t)added);
        int64_t i = (int64_t)rank0 - 1, j = added - 1;
        for (int64_t k = (int64_t)rank0 + added - 1; j >= 0; k--) {
            if (i >= 0 && pc[i] > hpc[j]) {
                if (k != i) memcpy(f2mat_row(m, (uint32_t)k), f2mat_row(m, (uint32_t)i), m->stride * sizeof *hold);
                pc[k] = pc[i--];
            } else {
                memcpy(f2mat_row(m, (uint32_t)k), hold + (size_t)j * m->stride, m->stride * sizeof *hold);
                pc[k] = hpc[j--];
            }
        }
        free(hpc);
    }
    uint32_t rank = rank0 + (uint32_t)added;
    if (pivots) {
        for (uint32_t c = 0; c < m->cols; c++) pivots[c] = -1;
        for (uint32_t r = 0; r < rank; r++) pivots[pc[r]] = (int32_t)r;
    }
    free(hold);
    free(pc);
    return (int)rank;
oom:
    free(hold);
    free(pc);
    return -1;
}

int f2mat_augment_identity(f2mat *aug, const f2mat *a)
{
    uint32_t seg = f2mat_segment_start(a->cols);
    if (a->cols > UINT32_MAX - 63 || (uint64_t)seg + a->rows > UINT32_MAX) {
        aug->data = NULL;
        aug->rows = aug->cols = aug->stride = 0;
        return -1;
    }
    if (f2mat_init(aug, a->rows, seg + a->rows)) return -1;
    size_t w = f2vec_words(a->cols);
    for (uint32_t i = 0; i < a->rows; i++) {
        memcpy(f2mat_row(aug, i), f2mat_row(a, i), w * sizeof(uint64_t));
        f2mat_flip(aug, i, seg + i);
    }
    return 0;
}

int f2mat_augment_in_place(f2mat *a)
{
    uint32_t seg = f2mat_segment_start(a->cols);
    if (a->cols > UINT32_MAX - 63 || (uint64_t)seg + a->rows > UINT32_MAX ||
        f2mat_widen(a, a->rows, seg + a->rows, a->cols, a->cols) != 0)
        return -1;
    for (uint32_t i = 0; i < a->rows; i++) f2mat_flip(a, i, seg + i);
    return 0;
}

int f2mat_rref_augmented_team(const f2mat *a, f2mat *aug, int32_t **pivots, team *tm)
{
    *pivots = NULL;
    if (f2mat_augment_identity(aug, a) != 0) return -1;
    *pivots = malloc(sizeof **pivots * ((size_t)aug->cols + 1));
    return *pivots ? f2mat_rref_team(aug, *pivots, tm) : -1;
}

int f2mat_rref_augmented(const f2mat *a, f2mat *aug, int32_t **pivots)
{
    return f2mat_rref_augmented_team(a, aug, pivots, NULL);
}

/* Number of leading RREF rows whose pivot lies in the A segment (columns < a_cols). */
static uint32_t image_rank(const f2mat *aug, uint32_t a_cols, uint32_t rank, const int32_t *pivots)
{
    uint32_t n = 0;
    if (pivots) {
        for (uint32_t c = 0; c < a_cols && c < aug->cols; c++) n += pivots[c] >= 0;
        return n;
    }
    size_t w = f2vec_words(aug->cols);
    while (n < rank) {
        int64_t c = f2vec_first_bit(f2mat_row(aug, n), (uint32_t)(w * 64));
        if (c < 0 || c >= (int64_t)a_cols) break;
        n++;
    }
    return n;
}

/* Rows [r0, r0 + n) of aug restricted to the I segment (starting at word seg/64) into out,
 * initialised here as n x aug->rows. */
static int extract_identity_part(const f2mat *aug, uint32_t seg, uint32_t r0, uint32_t n, f2mat *out)
{
    if (f2mat_init(out, n, aug->rows)) return -1;
    size_t off = seg / 64, w = f2vec_words(aug->rows);
    for (uint32_t i = 0; i < n; i++)
        memcpy(f2mat_row(out, i), f2mat_row(aug, r0 + i) + off, w * sizeof(uint64_t));
    return 0;
}

int f2mat_kernel_from_rref(const f2mat *aug, uint32_t a_cols, uint32_t rank,
                           const int32_t *pivots, f2mat *kernel)
{
    uint32_t seg = f2mat_segment_start(a_cols);
    kernel->data = NULL;
    kernel->rows = kernel->cols = kernel->stride = 0;
    if (aug->cols != seg + aug->rows || rank > aug->rows) return -1;
    uint32_t img = image_rank(aug, a_cols, rank, pivots);
    return extract_identity_part(aug, seg, img, rank - img, kernel);
}

int f2mat_quasi_inverse_from_rref(const f2mat *aug, uint32_t a_cols, uint32_t rank,
                                  const int32_t *pivots, f2qi *qi)
{
    uint32_t seg = f2mat_segment_start(a_cols);
    memset(qi, 0, sizeof *qi);
    if (aug->cols != seg + aug->rows || rank > aug->rows) return -1;
    uint32_t img = image_rank(aug, a_cols, rank, pivots);
    qi->src_dim = aug->rows;
    qi->tgt_dim = a_cols;
    qi->pivot_cols = malloc((img ? img : 1) * sizeof(int32_t));
    if (!qi->pivot_cols) return -1;
    if (pivots) {
        uint32_t k = 0;
        for (uint32_t c = 0; c < a_cols; c++)
            if (pivots[c] >= 0) qi->pivot_cols[k++] = (int32_t)c;
    } else {
        size_t w = f2vec_words(aug->cols);
        for (uint32_t k = 0; k < img; k++)
            qi->pivot_cols[k] = (int32_t)f2vec_first_bit(f2mat_row(aug, k), (uint32_t)(w * 64));
    }
    if (extract_identity_part(aug, seg, 0, img, &qi->preimage)) {
        free(qi->pivot_cols);
        qi->pivot_cols = NULL;
        return -1;
    }
    return 0;
}

void f2qi_apply(const f2qi *qi, const uint64_t *y, uint64_t *x)
{
    size_t w = f2vec_words(qi->src_dim);
    for (uint32_t k = 0; k < qi->preimage.rows; k++) {
        uint32_t c = (uint32_t)qi->pivot_cols[k];
        if (y[c >> 6] >> (c & 63) & 1) f2vec_xor(x, f2mat_row(&qi->preimage, k), w);
    }
}

void f2qi_apply_gather(const f2qi *qi, const uint64_t *y, const uint32_t *map, uint64_t *x)
{
    size_t w = f2vec_words(qi->src_dim);
    for (uint32_t k = 0; k < qi->preimage.rows; k++)
        if (f2vec_get(y, map[qi->pivot_cols[k]])) f2vec_xor(x, f2mat_row(&qi->preimage, k), w);
}

void f2qi_clear(f2qi *qi)
{
    f2mat_clear(&qi->preimage);
    free(qi->pivot_cols);
    qi->pivot_cols = NULL;
    qi->src_dim = qi->tgt_dim = 0;
}

void f2mat_gather_naive(f2mat *out, const uint64_t *const *rows, uint32_t nrows, const uint32_t *cols,
                        uint32_t ncols, uint32_t limit)
{
    for (uint32_t k = 0; k < nrows; k++) {
        uint64_t *o = f2mat_row(out, k);
        for (uint32_t j = 0; j < ncols; j++)
            if (cols[j] < limit && f2vec_get(rows[k], cols[j])) f2vec_flip(o, j);
    }
}

int f2mat_gather(f2mat *out, const uint64_t *const *rows, uint32_t nrows, const uint32_t *cols,
                 uint32_t ncols, uint32_t limit)
{
#ifdef __BMI2__
    for (uint32_t j = 1; j < ncols; j++)
        if (cols[j] <= cols[j - 1]) goto naive;
    uint32_t n = 0;                 /* the selected columns below limit: a prefix */
    while (n < ncols && cols[n] < limit) n++;
    if (n == 0 || nrows == 0) return 0;
    /* one entry per source word holding selected columns: its index, mask and how many
     * columns it selects */
    uint32_t nw = cols[n - 1] / 64 - cols[0] / 64 + 1;
    uint32_t *word = malloc(sizeof *word * nw);
    uint64_t *mask = malloc(sizeof *mask * nw);
    uint8_t *cnt = malloc(nw);
    if (!word || !mask || !cnt) {
        free(word); free(mask); free(cnt);
        return -1;
    }
    uint32_t e = 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t w = cols[j] / 64;
        if (e == 0 || word[e - 1] != w) {
            word[e] = w;
            mask[e++] = 0;
        }
        mask[e - 1] |= (uint64_t)1 << (cols[j] & 63);
    }
    for (uint32_t i = 0; i < e; i++) cnt[i] = (uint8_t)__builtin_popcountll(mask[i]);
    /* Each row's extracted bits are packed in a register, acc holding the fill < 64 bits of
     * output word ow not yet complete; every step stores acc's word (no load of out, so no
     * chain through memory) and moves on without a branch when it fills. The source rows are
     * scattered (one signature's rows among all of d_{s-1}'s) and mostly out of cache, so each
     * step also prefetches the next row's word: with both, 2-4 times faster than or-ing each
     * extract into out at its offset (docs/perf.md, "Nassau's gather"). The stores stay below
     * word (n - 1) / 64 + 1 of each row, as every prefix before a step is below n. */
    for (uint32_t k = 0; k < nrows; k++) {
        const uint64_t *src = rows[k], *next = rows[k + 1 < nrows ? k + 1 : k];
        uint64_t *o = f2mat_row(out, k), acc = 0;
        uint32_t fill = 0, ow = 0;
        for (uint32_t i = 0; i < e; i++) {
            __builtin_prefetch(next + word[i]);
            uint64_t b = _pext_u64(src[word[i]], mask[i]);
            uint32_t end = fill + cnt[i];
            uint64_t lo = acc | b << fill, hi = (b >> 1) >> (63 - fill);   /* hi: b >> (64 - fill), 0 at fill 0 */
            o[ow] = lo;
            ow += end >> 6;
            acc = end >> 6 ? hi : lo;
            fill = end & 63;
        }
        if (fill) o[ow] = acc;
    }
    free(word); free(mask); free(cnt);
    return 0;
naive:
#endif
    f2mat_gather_naive(out, rows, nrows, cols, ncols, limit);
    return 0;
}

/* 64 x 64 bit transpose in place: bit c of a[r] goes to bit r of a[c] (columns LSB first), by
 * swapping the off-diagonal j x j blocks for j = 32, 16, .., 1. With AVX2 four rows a
 * register: for j >= 4 the rows k and k + j sit in the same lane of two registers; for j = 2, 1
 * in two lanes of one, brought level by a permute. */
static void transpose64(uint64_t a[64])
{
#ifdef __AVX2__
    __m256i v[16];
    for (int q = 0; q < 16; q++) v[q] = _mm256_loadu_si256((const __m256i *)(a + 4 * q));
    static const uint64_t mask[6] = { 0x5555555555555555ull, 0x3333333333333333ull, 0x0F0F0F0F0F0F0F0Full,
                                      0x00FF00FF00FF00FFull, 0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull };
    for (int lj = 5; lj >= 2; lj--) {
        const int j = 1 << lj, d = j / 4;
        const __m256i m = _mm256_set1_epi64x((long long)mask[lj]);
        for (int q = 0; q < 16; q++) {
            if (q & d) continue;
            __m256i x = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(v[q], j), v[q + d]), m);
            v[q] = _mm256_xor_si256(v[q], _mm256_slli_epi64(x, j));
            v[q + d] = _mm256_xor_si256(v[q + d], x);
        }
    }
    const __m256i m2 = _mm256_set1_epi64x((long long)mask[1]), m1 = _mm256_set1_epi64x((long long)mask[0]);
    const __m256i lo2 = _mm256_set_epi64x(0, 0, -1, -1), lo1 = _mm256_set_epi64x(0, -1, 0, -1);
    for (int q = 0; q < 16; q++) {
        __m256i w = v[q];
        /* j = 2: lanes 0, 1 against 2, 3 */
        __m256i s = _mm256_permute4x64_epi64(w, 0x4E);
        __m256i x = _mm256_and_si256(_mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(w, 2), s), m2), lo2);
        w = _mm256_xor_si256(w, _mm256_xor_si256(_mm256_slli_epi64(x, 2), _mm256_permute4x64_epi64(x, 0x4E)));
        /* j = 1: lanes 0, 2 against 1, 3 */
        s = _mm256_shuffle_epi32(w, 0x4E);
        x = _mm256_and_si256(_mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(w, 1), s), m1), lo1);
        w = _mm256_xor_si256(w, _mm256_xor_si256(_mm256_slli_epi64(x, 1), _mm256_shuffle_epi32(x, 0x4E)));
        _mm256_storeu_si256((__m256i *)(a + 4 * q), w);
    }
#else
    uint64_t m = 0x00000000FFFFFFFFull;
    for (int j = 32; j; j >>= 1, m ^= m << j)
        for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
            uint64_t x = ((a[k] >> j) ^ a[k | j]) & m;
            a[k] ^= x << j;
            a[k | j] ^= x;
        }
#endif
}

void f2mat_transpose_into(const f2mat *src, f2mat *dst, uint32_t col0)
{
    uint64_t blk[64];
    for (uint32_t r0 = 0; r0 < src->rows; r0 += 64)
        for (uint32_t c0 = 0; c0 < src->cols; c0 += 64) {
            const uint64_t *in = f2mat_row(src, r0) + (c0 >> 6);
            uint64_t *out = f2mat_row(dst, c0) + ((col0 + r0) >> 6);
            const uint32_t nr = src->rows - r0 < 64 ? src->rows - r0 : 64, nc = src->cols - c0 < 64 ? src->cols - c0 : 64;
            for (uint32_t k = 0; k < nr; k++) blk[k] = in[k * src->stride];
            for (uint32_t k = nr; k < 64; k++) blk[k] = 0;
            transpose64(blk);
            for (uint32_t k = 0; k < nc; k++) out[k * dst->stride] = blk[k];
        }
}
