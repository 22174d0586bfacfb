/* milnor.h — the Milnor basis of the mod 2 Steenrod algebra A and its product.
 *
 * Maths. A has the Milnor basis Sq(R), R = (r1, ..., rk) finite sequences of non-negative
 * integers (trailing zeros removed; Sq() is the unit), deg Sq(R) = sum r_i (2^i - 1).
 * Sq(R)·Sq(S) = sum over Milnor matrices X of c(X) Sq(T(X)) (Milnor 1958; see
 * docs/algorithms.md §2.1): rows sum_j 2^j x_ij = r_i, columns sum_i x_ij = s_j,
 * t_n = sum_{i+j=n} x_ij, coefficient = product of multinomials, odd iff no carries.
 *
 * Order. The basis of degree d is listed in sseq's recursive order (docs/algorithms.md §1.2):
 * grouped by length (position of the last non-zero entry), and inside a group of length i+1
 * in the order of degree d - (2^{i+1}-1) from which each element comes by adding 1 to r_{i+1}.
 * The index of Sq(R) in its degree is its position in that list ("seqno", docs/algorithms.md §1.3).
 * This order is part of our output: it makes differentials comparable with sseq's.
 *
 * Layout. A milnor_basis holds, for each degree 0..max_degree, the array of its elements
 * (struct milnor_elt, entries r[0..len-1], r[i] = r_{i+1}), plus the seqno tables that map
 * an element back to its index without hashing. Products accumulate into packed F2 vectors:
 * bit j of word j/64 (least significant first) is basis element j of the target degree.
 *
 * Sub-Hopf-algebras. A profile h = (h1, ..., hk) (truncated or not) defines the sub-Hopf
 * algebra with basis Sq(R), r_i < 2^{h_i}; A(n) = [n+1, n, ..., 1] truncated. Nassau's
 * algorithm walks the sequence [] → [1] → [1,1] → [2,1] → [2,1,1] → [2,2,1] → [3,2,1] → ...
 * (milnor_profile_next_nassau, docs/algorithms.md §1.4).
 */
#ifndef EXTFLOW_MILNOR_H
#define EXTFLOW_MILNOR_H
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {       /* algebra/milnor_cuda.cu calls the CPU path to verify the GPU's */
#endif

typedef int32_t deg_t;       /* internal degrees t, stems n, homological degrees s */

#define MILNOR_MAX_LEN 10    /* xi_1 .. xi_10: enough below degree 2047 */
#define MILNOR_MAX_DEGREE 2046

/* One basis element Sq(r[0], ..., r[len-1]); r[len-1] != 0 unless len == 0; entries beyond
 * len are zero. */
typedef struct milnor_elt {
    uint32_t r[MILNOR_MAX_LEN];
    uint32_t len;
    deg_t degree;
} milnor_elt;

/* |xi_{i+1}| = 2^{i+1} - 1, i = 0-based slot. */
extern const uint32_t milnor_xi_degree[MILNOR_MAX_LEN];

typedef struct milnor_profile {
    int truncated;                  /* slots >= len: h = 0 if truncated, infinite otherwise */
    int len;
    uint8_t h[MILNOR_MAX_LEN];
} milnor_profile;

/* Basis of A (or of a sub-Hopf-algebra) in degrees 0..max_degree. */
typedef struct milnor_basis {
    deg_t max_degree;
    milnor_profile profile;         /* len 0, not truncated: the whole of A */
    uint32_t *dim;                  /* dim[d], d = 0..max_degree */
    milnor_elt **elts;              /* elts[d][i], i < dim[d], in index order */
    /* seqno tables (whole algebra only): g[e * MILNOR_MAX_LEN + h] */
    uint32_t *seq_g;
    /* the same index slot by slot (whole algebra only; docs/algorithms.md §1.3): with P_h =
     * sum_{n <= h} t_n |xi_{n+1}| the degree of T's slots 0..h, index(T) = sum over h = 0..9 of
     * seq_d[h * (max_degree + 1) + P_h] (mod 2^32); seq_d[h][e] = g[e][h] - g[e][h+1] for
     * h = 1..8, -g[e][1] for h = 0, g[e][9] for h = 9 (the differences of g telescoped) */
    uint32_t *seq_d;
    /* profile bases only (seq_g NULL): open-addressing index tables, slot = index + 1, those
     * of all degrees end to end in one array; degree d's is hash[hash_first[d] ..
     * hash_first[d+1]), a power of two >= 2 dim[d] slots (max_degree + 2 offsets) */
    uint32_t *hash;
    uint32_t *hash_first;
} milnor_basis;

/* Builds the basis through max_degree (<= MILNOR_MAX_DEGREE). profile NULL = all of A.
 * Returns 0, -1 on bad arguments / out of memory, or MILNOR_STOPPED past the deadline
 * (milnor_set_deadline). milnor_basis_clear frees it. */
int milnor_basis_init(milnor_basis *A, deg_t max_degree, const milnor_profile *profile);
void milnor_basis_clear(milnor_basis *A);
/* A start-up under a time limit (resolve --time-limit): once CLOCK_MONOTONIC passes deadline
 * (seconds; 0, the default: never), milnor_basis_init and milnor_flat_write stop between two
 * degrees and return MILNOR_STOPPED (the basis cleared). Process-wide: set it before any
 * thread builds a basis. milnor_deadline_passed says whether that moment has come. */
#define MILNOR_STOPPED (-2)
void milnor_set_deadline(double deadline);
int milnor_deadline_passed(void);

/* dim[0..max_degree] of A (or of the profile's sub-Hopf-algebra) without building the basis:
 * the number of R with sum r_i (2^i - 1) = d and r_i <= 2^{h_i} - 1, by the counting
 * recurrence over the slots (32 KiB of stack, no allocation; every dim fits in 32 bits below
 * 2047). Returns 0, or -1 on bad arguments. Same numbers as milnor_basis_init. */
int milnor_count_dims(deg_t max_degree, const milnor_profile *profile, uint32_t *dim);
/* Bytes milnor_basis_init(max_degree, profile) allocates (UINT64_MAX on bad arguments); no
 * allocation. */
uint64_t milnor_basis_bytes(deg_t max_degree, const milnor_profile *profile);

/* Index of Sq(R) in its degree (R must be a basis element of A within max_degree). The
 * whole algebra uses the seqno tables, no hashing; a profile basis uses a small hash. */
uint32_t milnor_index(const milnor_basis *A, const milnor_elt *R);
/* The same index of Sq(R) by seq_d, slot by slot (whole algebra only): what the batched
 * product computes for each of its terms, its prefix degrees split into a part of S and a
 * part of the R-half (algebra/milnor.c). */
uint32_t milnor_index_by_slots(const milnor_basis *A, const milnor_elt *R);

/* Sets R from an array of n entries (trailing zeros trimmed, degree computed). */
void milnor_elt_set(milnor_elt *R, const uint32_t *r, int n);
/* Writes "Sq(r1,r2,...)" (unit "Sq()") into buf; returns buf. */
char *milnor_elt_format(const milnor_elt *R, char *buf, size_t size);

/* Sq(R)·Sq(S): calls emit(T, ctx) once for every term with odd coefficient.
 * Requires |R| + |S| <= MILNOR_MAX_DEGREE. */
void milnor_mul_each(const milnor_elt *R, const milnor_elt *S,
                     void (*emit)(const milnor_elt *T, void *ctx), void *ctx);

/* out ^= Sq(R)·Sq(S) as a packed vector over the basis of degree |R|+|S|, whose bit j is
 * placed at bit col_offset + j of out. */
void milnor_mul_into(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S,
                     uint64_t *out, uint64_t col_offset);

/* Batched product — the operation the StarPU codelet (CPU now, CUDA later) implements.
 * Row i of the output is XOR over its terms k of Sq(R_i)·Sq(S_k), each product's bit j
 * landing at column terms[k].col_offset + j. R_i and S_k are given by (degree, index). */
typedef struct milnor_row_job {
    uint32_t r_deg, r_idx;          /* Sq(R) of this row */
    uint32_t first_term, n_terms;   /* its terms: terms[first_term .. first_term+n_terms) */
} milnor_row_job;

typedef struct milnor_term {
    uint32_t s_deg, s_idx;          /* Sq(S) */
    uint32_t col_offset;            /* column of bit 0 of the product vector */
} milnor_term;

/* Where a planner appends jobs and terms (a row_build's group, a batch of pair_algebra.c):
 * nterms says how many terms it holds, so that a job's first_term can name those appended
 * after it; term and job append one (0, or -1 out of memory). */
typedef struct milnor_sink {
    void *ctx;
    size_t (*nterms)(void *ctx);
    int (*term)(void *ctx, milnor_term t);
    int (*job)(void *ctx, milnor_row_job j);
} milnor_sink;

/* rows: njobs rows of stride_words words each, XORed into (caller zeroes them); with
 * stride_words 0 every job XORs into the one row at rows.
 * Jobs with several terms enumerate the R-halves of their Sq(R) once and test all terms
 * against them (docs/algorithms.md §2.3); the others run one matrix search per pair. Same bits
 * either way. Thread-safe on a shared const basis (scratch is per call). */
void milnor_mul_batch(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                      const milnor_term *terms, uint64_t *rows, size_t stride_words);

/* The same, by one matrix search per (R, S) pair (the reference path). */
void milnor_mul_batch_search(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                             const milnor_term *terms, uint64_t *rows, size_t stride_words);
/* The same, each job enumerating the R-halves of its Sq(R) once (docs/algorithms.md §2.3). */
void milnor_mul_batch_halves(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                             const milnor_term *terms, uint64_t *rows, size_t stride_words);

/* The vector path of the R-halves test: MILNOR_SIMD_AVX2 tests 16 terms at a time in 16-bit
 * lanes (the build's baseline, x86-64-v3; portable vectors elsewhere), MILNOR_SIMD_AVX512 64
 * at a time in two 512-bit registers with mask registers (x86-64 CPUs with AVX-512F and BW).
 * Same bits either way. */
typedef enum milnor_simd { MILNOR_SIMD_AVX2, MILNOR_SIMD_AVX512 } milnor_simd;
/* 1 when this CPU (and build) can take the path. */
int milnor_simd_supported(milnor_simd s);
/* The path milnor_mul_batch and _halves take: AVX-512 where supported, unless the environment
 * has EXTFLOW_MILNOR_SIMD=avx2 (read once). */
milnor_simd milnor_simd_default(void);
/* milnor_mul_batch through the given path; -1 (nothing written) when it is not supported. */
int milnor_mul_batch_simd(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                          const milnor_term *terms, uint64_t *rows, size_t stride_words, milnor_simd simd);

/* A basis flattened into one read-only array of 32-bit words, so that it can be a StarPU data
 * handle and be copied to a GPU as it is. Layout (word offsets):
 *   [0] MILNOR_FLAT_MAGIC (whole algebra) or MILNOR_FLAT_MAGIC_PROFILE (a profile's basis)
 *   [1] max_degree  [2] total elements  [3] words in all
 *   [MILNOR_FLAT_HEADER ..]             first[d], d = 0..max_degree+1: index of degree d's
 *                                       first element (first[max_degree+1] = total)
 *   [MILNOR_FLAT_ELTS_AT(max_degree)..] the elements as milnor_elt records (12 words each),
 *                                       degree by degree in index order
 *   [MILNOR_FLAT_SEQNO_AT(...) ..]      whole algebra: the seqno table seq_g,
 *                                       (max_degree+1) x MILNOR_MAX_LEN, then seq_d,
 *                                       MILNOR_MAX_LEN x (max_degree+1);
 *                                       profile: hash_first (max_degree + 2 offsets), then the
 *                                       index tables (hash_first[max_degree+1] words),
 *                                       then the profile: truncated, len, h[0..9]
 * The GPU kernel reads whole-algebra buffers only (the seqno index); a profile's buffer is read
 * by the CPU implementation alone (runtime/rt_mul.c submits its multiply tasks to CPU workers). */
#define MILNOR_FLAT_MAGIC 0x4d464c31u     /* "MFL1" */
#define MILNOR_FLAT_MAGIC_PROFILE 0x4d465031u     /* "MFP1" */
#define MILNOR_FLAT_HEADER 4u
#define MILNOR_ELT_WORDS (sizeof(milnor_elt) / sizeof(uint32_t))
/* Word offsets of the elements and of the seqno table (macros: the GPU kernel uses them). */
#define MILNOR_FLAT_ELTS_AT(max_degree) (MILNOR_FLAT_HEADER + (size_t)(max_degree) + 2)
#define MILNOR_FLAT_SEQNO_AT(max_degree, total) \
    (MILNOR_FLAT_ELTS_AT(max_degree) + (size_t)(total) * MILNOR_ELT_WORDS)
/* Words needed for A (0 if A cannot be flattened). */
size_t milnor_flat_words(const milnor_basis *A);
/* Writes A into buf (milnor_flat_words(A) words); 0, -1 if A cannot be flattened, or
 * MILNOR_STOPPED past the deadline (milnor_set_deadline). */
int milnor_flat_write(const milnor_basis *A, uint32_t *buf, size_t words);
/* A milnor_basis that reads a flat buffer in place (no copy, nothing to free): its elts and
 * dim are the caller's arrays elts_scratch and dim_scratch of max_degree + 1 entries each
 * (MILNOR_MAX_DEGREE + 1 always suffice). Returns 0, or -1 if buf is not a flat basis of that many words. */
int milnor_flat_view(const uint32_t *buf, size_t words, milnor_basis *view, milnor_elt **elts_scratch,
                     uint32_t *dim_scratch);

/* A batch as one binary record (for capture and benchmarks): u64 njobs, u64 nterms, u64
 * stride_words; njobs milnor_row_job with first_term relative to the record; nterms
 * milnor_term (the range of terms the jobs use). Host byte order. 0, or -1 on a write error. */
int milnor_batch_record_write(FILE *f, const milnor_row_job *jobs, size_t njobs, const milnor_term *terms,
                              size_t stride_words);
/* Reads the next record (arrays malloc'ed, the caller frees them): 1, 0 at the end, -1 on a
 * truncated or implausible record or out of memory. */
int milnor_batch_record_read(FILE *f, milnor_row_job **jobs, size_t *njobs, milnor_term **terms, size_t *nterms,
                             size_t *stride_words);

/* Profiles. */
milnor_profile milnor_profile_full(void);                   /* A itself */
milnor_profile milnor_profile_an(int n);                     /* A(n) */
int milnor_profile_is_valid(const milnor_profile *p);        /* sub-Hopf-algebra condition */
/* Do p and q define the same subalgebra (same h_i in every slot: a truncated profile's trailing
 * zeros do not count)? */
int milnor_profile_equal(const milnor_profile *p, const milnor_profile *q);
uint32_t milnor_profile_slot_max(const milnor_profile *p, int i); /* 2^h_i - 1, or UINT32_MAX */
int milnor_profile_contains(const milnor_profile *p, const milnor_elt *R);
deg_t milnor_profile_top_degree(const milnor_profile *p);    /* finite profiles; else -1 */
/* Nassau's sequence of subalgebras: advances *p to the next one (docs/algorithms.md §1.4). */
void milnor_profile_next_nassau(milnor_profile *p);

#ifdef __cplusplus
}
#endif
#endif
