/* f2mat.h — dense matrices over F2, packed, and the row reductions a resolution needs.
 *
 * Layout. Row-major, 64 columns per uint64_t word, column c of row i is bit (c % 64) of
 * word data[i * stride + c / 64] (least significant bit first, as sseq's vectors). stride is
 * the words per row, rounded up to a multiple of 8 (64-byte rows); data is 64-byte aligned.
 * Invariant: bits beyond `cols` in each row (the excess bits) are zero.
 *
 *     word:   0                1                   stride-1
 *     row 0:  [c0 ... c63]     [c64 ... c127] ...  [... excess = 0]
 *     row 1:  ...
 *
 * Reduced row echelon form (RREF) contract, relied on by kernel/image/quasi-inverse
 * extraction (docs/algorithms.md §3.1, §3.2): the first `rank` rows are the pivot rows sorted by pivot
 * column, each pivot column is zero in every other row, the remaining rows are zero, and
 * pivots[c] is the row whose pivot is column c, or -1. RREF is unique for a row space, so
 * any method yields bit-identical results. The dense elimination is our own M4RM
 * (f2mat_m4rm.c), plain Gauss-Jordan below a measured size, M4RI only where it measured
 * clearly faster (see the dispatch in f2mat.c).
 *
 * Augmented matrices [A | 0 | I]: the identity segment starts at the first multiple of 64
 * at or after A's last column (f2mat_segment_start), as sseq's AugmentedMatrix does.
 */
#ifndef EXTFLOW_F2MAT_H
#define EXTFLOW_F2MAT_H
#include "algebra/team.h"
#include <stddef.h>
#include <stdint.h>

typedef struct f2mat {
    uint32_t rows, cols;
    uint32_t stride;        /* words per row, multiple of 8 */
    uint64_t *data;         /* rows * stride words, 64-byte aligned, owned */
} f2mat;

/* Matrices of this many bytes or more are advised onto transparent huge pages (f2mat.c). */
#define F2MAT_HUGE_MIN ((size_t)4 << 20)
/* Zeroed rows x cols matrix (either may be 0). Returns 0, or -1 when out of memory. */
int f2mat_init(f2mat *m, uint32_t rows, uint32_t cols);
/* The same, its words left as the allocator gave them: for a matrix whose every row (padding
 * included) is written before it is read. Fresh pages from the system are then first touched
 * by those writes; recycled heap memory holds garbage until they come. */
int f2mat_init_unzeroed(f2mat *m, uint32_t rows, uint32_t cols);
void f2mat_clear(f2mat *m);                       /* frees; safe on a zeroed struct */
/* Bytes m's data takes (0 for a zeroed struct). Every matrix's data counts as in flight in
 * the memory account (algebra/memacct.h) from f2mat_init to f2mat_clear. */
size_t f2mat_bytes(const f2mat *m);
/* The bytes f2mat_init(rows, cols) takes (to predict a step's memory). */
static inline uint64_t f2mat_bytes_for(uint64_t rows, uint64_t cols)
{ return rows * ((((cols + 63) / 64) + 7) & ~(uint64_t)7) * 8; }
int f2mat_copy(f2mat *dst, const f2mat *src);     /* dst uninitialised on entry */
static inline uint64_t *f2mat_row(const f2mat *m, uint32_t i) { return m->data + (size_t)i * m->stride; }
static inline int f2mat_get(const f2mat *m, uint32_t i, uint32_t c)
{ return (int)(f2mat_row(m, i)[c >> 6] >> (c & 63) & 1); }
static inline void f2mat_flip(f2mat *m, uint32_t i, uint32_t c)
{ f2mat_row(m, i)[c >> 6] ^= (uint64_t)1 << (c & 63); }
static inline void f2mat_set(f2mat *m, uint32_t i, uint32_t c, int v)
{ if (f2mat_get(m, i, c) != !!v) f2mat_flip(m, i, c); }
static inline uint32_t f2mat_segment_start(uint32_t cols) { return (cols + 63) & ~63u; }
int f2mat_equal(const f2mat *a, const f2mat *b);

/* In-place RREF (contract above). pivots: array of m->cols ints, or NULL. Returns the rank,
 * or -1 when out of memory. */
int f2mat_rref(f2mat *m, int32_t *pivots);
/* Same contract, fixed method: plain Gauss-Jordan on this layout (reference, and used by
 * f2mat_rref below a size cutoff), or a copy through M4RI with the given echelonizer. */
int f2mat_rref_naive(f2mat *m, int32_t *pivots);
enum f2_rref_method { F2_RREF_AUTO, F2_RREF_NAIVE, F2_RREF_M4RI, F2_RREF_PLUQ, F2_RREF_ECHELONIZE,
                      F2_RREF_OWN };
int f2mat_rref_with(f2mat *m, int32_t *pivots, enum f2_rref_method method);
/* Our own method-of-four-Russians Gauss-Jordan (f2mat_m4rm.c; F2_RREF_OWN): same contract,
 * no M4RI, no globals, scratch allocated per call, so it may run in many threads at once.
 * Returns the rank, or -1 when out of memory (m untouched then). */
int f2mat_rref_m4rm(f2mat *m, int32_t *pivots);
/* The same with a team (algebra/team.h; NULL: alone): the passes over all rows (window reads,
 * listing, table XORs) are loops whose items the team's members share. The same result bit
 * for bit. */
int f2mat_rref_m4rm_team(f2mat *m, int32_t *pivots, team *tm);
/* The RREF of m's first pcols columns, the row operations done on whole rows (our M4RM, alone):
 * rows 0..rank-1 have their pivots in [0, pcols), increasing, each pivot column zero in every
 * other row; the rows below are zero on [0, pcols) and not reduced further (for [A^T | I]: they
 * span the left kernel of A^T, with no elimination spent among them). pivots: pcols ints, or
 * NULL. Returns the rank, or -1 out of memory (m untouched then). */
int f2mat_rref_prefix(f2mat *m, uint32_t pcols, int32_t *pivots);
/* The same, the rows above each panel of pivots left alone: rows 0..rank-1 a row echelon form
 * of the first pcols columns (row r zero before its pivot and at every earlier pivot column,
 * its bits at later pivot columns what they are; the panels of pivots reduced among
 * themselves), the rows below zero there. About a sixth less work than f2mat_rref_prefix on
 * the kept quasi-inverses' [D_rev^T | I] (callgrind x0.846 over massey 60/12; docs/algorithms.md
 * §3.4); for [A^T | I], a solve then ends by back substitution. */
int f2mat_echelon_prefix(f2mat *m, uint32_t pcols, int32_t *pivots);
/* f2mat_rref and f2mat_rref_augmented with a team where the dispatch picks our M4RM (the others
 * run alone). F2MAT_TEAM_MIN: the size from which the runner forms a team. Chosen, not a
 * measured crossover: on the VM two threads gained on a 64 MB [D | 0 | I] and a helper's
 * thread CPU times put small ones (2000 x 4000) at a loss (docs/perf.md, "One reduction,
 * several cores"); bench/device-session16 measures it on 16 cores. */
#define F2MAT_TEAM_MIN ((size_t)32 << 20)
int f2mat_rref_team(f2mat *m, int32_t *pivots, team *tm);
int f2mat_rref_augmented_team(const f2mat *a, f2mat *aug, int32_t **pivots, team *tm);
/* The same with explicit parameters, for tuning (0 = default): k bits per table (<= 8),
 * groups tables per panel (<= 8; panel = k * groups pivots), tile = words per column tile
 * and rowblock = rows per block of the table application. */
int f2mat_rref_m4rm_tuned(f2mat *m, int32_t *pivots, int k, int groups, int tile, int rowblock);

/* RREF of m when its first rank0 rows are already a matrix in RREF (nonzero rows sorted by
 * pivot column, each pivot column zero in the other rows among them) and the rows after them
 * are new: the new rows are reduced by the old pivots, reduced among themselves, and the old
 * rows cleared at the new pivots, then all merged in pivot order. The result is the RREF of
 * m's row space (unique, so it equals f2mat_rref's), in O((rows - rank0) * rank0 * words) for
 * few new rows instead of a whole elimination: the standard step's lookahead (stages/resolve/standard.h).
 * pivots: m->cols ints, or NULL. Returns the rank, or -1 out of memory (m unspecified then). */
int f2mat_rref_extend(f2mat *m, uint32_t rank0, int32_t *pivots);

/* m grown in place to rows x cols (cols >= m->cols): its first min(rows, m->rows) rows kept,
 * the columns from `from` on of each moved to start at column `to` (from <= to, both multiples
 * of 64 when they differ; from = to = m->cols moves nothing, and to + m->cols - from <= cols),
 * every other entry zero. The data is reallocated, not copied into a second matrix: glibc
 * remaps a large (mmap'ed) block's pages, so the peak is the larger matrix alone where a copy
 * would hold both (the standard step's lookahead widens its early RREF so, stages/resolve/standard.c);
 * a matrix of fewer bytes keeps its block. The memory account follows f2mat_bytes. Returns 0,
 * or -1 on a bad shape or out of memory (m keeps its shape and entries then, for f2mat_clear). */
int f2mat_widen(f2mat *m, uint32_t rows, uint32_t cols, uint32_t from, uint32_t to);

/* [A | 0 | I_rows]: aug is initialised here, with cols = segment_start(A.cols) + A.rows. */
int f2mat_augment_identity(f2mat *aug, const f2mat *a);
/* The same in a's own block (f2mat_widen), where A is not needed after: one matrix held, not
 * two. Returns 0, or -1 out of memory (a unchanged). */
int f2mat_augment_in_place(f2mat *a);
/* RREF of [A | 0 | I_rows] (f2mat_augment_identity, then f2mat_rref): aug is initialised here,
 * *pivots malloc'ed (aug->cols + 1 entries); the caller frees both, also after a failure.
 * Returns the rank, or -1 out of memory. */
int f2mat_rref_augmented(const f2mat *a, f2mat *aug, int32_t **pivots);

/* From an RREF'd augmented matrix [A | 0 | I] (a_cols = columns of A, pivots as returned by
 * f2mat_rref): the kernel of A (rows whose pivot lies in the I segment, restricted to it), in
 * RREF; kernel is initialised here (rows = nullity, cols = rows of A). */
int f2mat_kernel_from_rref(const f2mat *aug, uint32_t a_cols, uint32_t rank,
                           const int32_t *pivots, f2mat *kernel);

/* Quasi-inverse of A (docs/algorithms.md §3.2): for each image pivot column (in increasing order)
 * a preimage row. Apply: for y in the image of A, x = sum over image pivot columns c with
 * y[c] = 1 of preimage[row of c]; then x·A = y. */
typedef struct f2qi {
    uint32_t src_dim, tgt_dim;     /* A is src_dim x tgt_dim */
    f2mat preimage;                /* rank x src_dim */
    int32_t *pivot_cols;           /* rank entries, increasing */
} f2qi;
int f2mat_quasi_inverse_from_rref(const f2mat *aug, uint32_t a_cols, uint32_t rank,
                                  const int32_t *pivots, f2qi *qi);
/* x (src_dim bits, zeroed by the caller) ^= QI(y) (y: tgt_dim bits). */
void f2qi_apply(const f2qi *qi, const uint64_t *y, uint64_t *x);
/* The same for a vector y whose column c of A is bit map[c] of y (c < tgt_dim): A's columns
 * gathered out of a larger space, as Nassau's signature blocks are (stages/resolve/nassau.c). */
void f2qi_apply_gather(const f2qi *qi, const uint64_t *y, const uint32_t *map, uint64_t *x);
void f2qi_clear(f2qi *qi);

/* Column gather: out row k = rows[k] restricted to the columns cols[0..ncols), in that order
 * (column j of out is bit cols[j] of rows[k]; bits at or beyond limit read as 0, and no word of
 * rows[k] past the one holding bit limit - 1 is read). out is rows x ncols, zeroed by the
 * caller. With cols strictly increasing (Nassau's signature buckets) each source word goes
 * through one PEXT (BMI2, in x86-64-v3) with the mask of its selected columns, the results
 * packed in a register and each row's next source row prefetched; otherwise, or
 * without BMI2, bit by bit, as f2mat_gather_naive always does (the reference). Returns 0, or
 * -1 when out of memory (out untouched). */
int f2mat_gather(f2mat *out, const uint64_t *const *rows, uint32_t nrows, const uint32_t *cols,
                 uint32_t ncols, uint32_t limit);
void f2mat_gather_naive(f2mat *out, const uint64_t *const *rows, uint32_t nrows, const uint32_t *cols,
                        uint32_t ncols, uint32_t limit);

/* dst[c][col0 + r] = src[r][c] for every row r and column c of src: src's transpose written
 * into dst's columns from col0 on (col0 a multiple of 64; dst has src->cols rows and room for
 * the columns; the words of dst it writes are overwritten whole, bits past src->rows zero), by
 * 64 x 64 blocks (AVX2 where built with it). */
void f2mat_transpose_into(const f2mat *src, f2mat *dst, uint32_t col0);

/* Vector helpers on packed words. */
static inline void f2vec_xor(uint64_t *dst, const uint64_t *src, size_t words)
{ for (size_t i = 0; i < words; i++) dst[i] ^= src[i]; }
static inline size_t f2vec_words(uint32_t bits) { return ((size_t)bits + 63) >> 6; }
static inline int f2vec_get(const uint64_t *v, uint64_t i) { return (int)(v[i >> 6] >> (i & 63) & 1); }
static inline void f2vec_flip(uint64_t *v, uint64_t i) { v[i >> 6] ^= (uint64_t)1 << (i & 63); }
/* Index of the lowest set bit among the first `bits` (rounded up to words), or -1. */
static inline int64_t f2vec_first_bit(const uint64_t *v, uint32_t bits)
{
    for (size_t w = 0; w < f2vec_words(bits); w++)
        if (v[w]) return (int64_t)(w * 64 + (size_t)__builtin_ctzll(v[w]));
    return -1;
}
int f2vec_is_zero(const uint64_t *v, size_t words);
uint32_t f2mat_popcount_row(const f2mat *m, uint32_t i);

#endif
