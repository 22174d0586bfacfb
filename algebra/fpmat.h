/* fpmat.h — dense matrices over F_p, p an odd prime below 128, and the row reductions a
 * resolution at an odd prime needs (docs/algorithms.md §10). F2 keeps f2mat.h.
 *
 * Layout. Row-major, one byte per entry (0..p-1): entry (i, c) is data[i * stride + c].
 * stride is the bytes per row, rounded up to a multiple of 64; data is 64-byte aligned.
 * Invariant: the bytes beyond `cols` in each row are zero.
 *
 *     byte:   0    1    ...  cols-1   cols ... stride-1
 *     row 0:  [a00  a01  ...  a0,c-1]  [0 ...... 0]
 *
 * One byte per entry is what we measured fastest (docs/perf.md, "F_p row reduction"): with
 * entries below p < 128, the sum of two fits a byte, so a row operation x += y is, 32 entries
 * at a time (AVX2), t = x + y, x = min(t, t - p) as unsigned bytes. fpmat_rref_naive reads a
 * multiple c·y of the pivot row from a table of its multiples built once per pivot;
 * fpmat_rref (fpmat_m4rm.c) clears a panel of k pivots at once from a table of the p^k
 * combinations of their rows, over the blocks of 32 bytes where those rows are non-zero.
 *
 * RREF contract (as f2mat's, docs/algorithms.md §3.1): the first `rank` rows are the pivot
 * rows sorted by pivot column, each with entry 1 at its pivot; each pivot column is zero in
 * every other row; the remaining rows are zero; pivots[c] is the row whose pivot is column c,
 * or -1. The RREF of a row space is unique, so any method gives the same bytes.
 *
 * Augmented matrices [A | 0 | I]: the identity starts at the first multiple of 64 at or after
 * A's last column (fpmat_segment_start). In the RREF of [A | 0 | I], the rows with a pivot in
 * A give the image and, in I, a preimage of each image row; the rows with a pivot in I are a
 * basis of the kernel of A (rows = source, a vector times A is its image).
 */
#ifndef EXTFLOW_FPMAT_H
#define EXTFLOW_FPMAT_H
#include <stddef.h>
#include <stdint.h>

#define FPMAT_MAX_PRIME 127

typedef struct fpmat {
    uint32_t p;
    uint32_t rows, cols;
    uint32_t stride;        /* bytes per row, a multiple of 64 */
    uint8_t *data;          /* rows * stride bytes, 64-byte aligned, owned */
} fpmat;

/* Zeroed rows x cols matrix over F_p (either may be 0; p an odd prime <= FPMAT_MAX_PRIME).
 * Returns 0, or -1 on a bad p or out of memory (m zeroed then). */
int fpmat_init(fpmat *m, uint32_t p, uint32_t rows, uint32_t cols);
void fpmat_clear(fpmat *m);                       /* frees; safe on a zeroed struct */
int fpmat_copy(fpmat *dst, const fpmat *src);     /* dst uninitialised on entry */
static inline uint8_t *fpmat_row(const fpmat *m, uint32_t i) { return m->data + (size_t)i * m->stride; }
static inline uint32_t fpmat_get(const fpmat *m, uint32_t i, uint32_t c) { return fpmat_row(m, i)[c]; }
static inline void fpmat_set(fpmat *m, uint32_t i, uint32_t c, uint32_t v) { fpmat_row(m, i)[c] = (uint8_t)(v % m->p); }
static inline uint64_t fpmat_bytes(const fpmat *m) { return (uint64_t)m->rows * m->stride; }
static inline uint32_t fpmat_segment_start(uint32_t cols) { return (cols + 63) & ~63u; }
int fpmat_equal(const fpmat *a, const fpmat *b);  /* same p, shape and entries */

/* In-place RREF (contract above). pivots: array of m->cols ints, or NULL. Returns the rank,
 * or -1 when out of memory (m untouched then). No global state: may run in many threads. */
int fpmat_rref(fpmat *m, int32_t *pivots);
/* Same contract, fixed method: plain Gauss-Jordan with a table of the pivot row's multiples
 * (the reference), or our table method below; FP_RREF_AUTO is fpmat_rref's choice. */
int fpmat_rref_naive(fpmat *m, int32_t *pivots);
enum fp_rref_method { FP_RREF_AUTO, FP_RREF_NAIVE, FP_RREF_OWN };
int fpmat_rref_with(fpmat *m, int32_t *pivots, enum fp_rref_method method);
/* Our own method-of-four-Russians Gauss-Jordan over F_p (fpmat_m4rm.c; FP_RREF_OWN): panels of
 * k pivots cleared out of the other rows with one addition each from a table of the p^k
 * combinations of the panel's rows, and every addition cut to the blocks the panel's rows
 * can change. Same contract; no globals, scratch allocated per call before m is touched.
 * Returns the rank, or -1 when out of memory (m untouched then). */
int fpmat_rref_m4rm(fpmat *m, int32_t *pivots);
/* The same with an explicit panel width k (0 = default; at most 8, and p^k <= 4096). */
int fpmat_rref_m4rm_tuned(fpmat *m, int32_t *pivots, int k);

/* The kernel's part of an RREF (fpmat_m4rm.c): columns left of split (the identity's first
 * column in [A | 0 | I]) are eliminated from the rows below each pivot only, columns from split
 * on from every row without a pivot left of split. Then the pivots and rank are the RREF's and
 * so are the rows with a pivot at or right of split, the kernel (fpmat_kernel_from_rref reads
 * them alike); the rows with a pivot left of split are only in echelon form (not a
 * quasi-inverse). split >= cols: the pivots alone, the rows in echelon form. Returns the rank,
 * or -1 when out of memory (m untouched then). */
int fpmat_rref_split(fpmat *m, uint32_t split, int32_t *pivots);
/* The same with the rows left where the elimination leaves them (no pass over the matrix to
 * sort them): pivot_rows[c] is the row whose pivot is column c, or -1; each such row holds what
 * fpmat_rref_split's row pivots[c] holds (the kernel's rows byte for byte), the other rows are
 * zero. fpmat_kernel_from_rref reads either. */
int fpmat_rref_split_unsorted(fpmat *m, uint32_t split, int32_t *pivot_rows);

/* [A | 0 | I_rows]: aug is initialised here, with cols = segment_start(A.cols) + A.rows. */
int fpmat_augment_identity(fpmat *aug, const fpmat *a);
/* From an RREF'd [A | 0 | I] (a_cols = columns of A): the kernel of A (rows whose pivot lies in
 * I, restricted to I, read through pivots, in the order of their pivot columns), in RREF; kernel
 * is initialised here (rows = nullity, cols = rows of A). pivots may be fpmat_rref_split's or
 * fpmat_rref_split_unsorted's; rank is unused. */
int fpmat_kernel_from_rref(const fpmat *aug, uint32_t a_cols, uint32_t rank, const int32_t *pivots,
                           fpmat *kernel);

/* Quasi-inverse of A: for each image pivot column c (increasing) the I part of its pivot row.
 * For y in the image of A, x = sum_c y[c] · preimage[row of c] satisfies x·A = y, since the A
 * parts of the pivot rows are 1 at their own pivot and 0 at the others'. */
typedef struct fpqi {
    uint32_t src_dim, tgt_dim;     /* A is src_dim x tgt_dim */
    fpmat preimage;                /* rank x src_dim */
    int32_t *pivot_cols;           /* rank entries, increasing */
} fpqi;
int fpmat_quasi_inverse_from_rref(const fpmat *aug, uint32_t a_cols, uint32_t rank, const int32_t *pivots,
                                  fpqi *qi);
/* x (src_dim entries) += QI(y) (y: tgt_dim entries), mod p. */
void fpqi_apply(const fpqi *qi, const uint8_t *y, uint8_t *x);
void fpqi_clear(fpqi *qi);

/* Row operations on n entries (any n; entries < p): dst = dst + src mod p, and
 * dst = dst + c·src mod p (c < p). */
void fpvec_add(uint8_t *dst, const uint8_t *src, size_t n, uint32_t p);
void fpvec_addmul(uint8_t *dst, const uint8_t *src, uint32_t c, size_t n, uint32_t p);
/* Inverse of a (0 < a < p) mod p: a^{p-2} (inline: fpmat_m4rm.c, which fpmat.c calls, needs
 * nothing of fpmat.c). */
static inline uint32_t fp_inverse(uint32_t a, uint32_t p)
{
    uint32_t r = 1, b = a % p, e = p - 2;
    while (e) {
        if (e & 1) r = r * b % p;
        b = b * b % p;
        e >>= 1;
    }
    return r;
}

#endif
