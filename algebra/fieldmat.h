/* fieldmat.h — a matrix over the resolution's field F_p, p = 2 or an odd prime: one name for
 * code that is the same at every prime (docs/algorithms.md §3.1, §3.2, §10).
 *
 * Maths. The row reductions a resolution and its lifts need (RREF, the kernel and the
 * quasi-inverse read off the RREF of [A | 0 | I], a row plus a multiple of another) are the
 * same over every prime field; only the packing differs. A fieldmat is f2mat.h's packed
 * matrix at p = 2 and fpmat.h's byte matrix at odd p, and each function here calls the one of
 * that header, so the RREF contract, the augmented layout and the bytes are theirs exactly.
 *
 * Layout. A tag and a union: p, then m.f2 (p = 2: 64 entries a uint64_t word, bit c % 64 of
 * word c / 64) or m.fp (odd p: a byte an entry). A row is handed out as a void pointer to that
 * storage; fieldvec_bytes(p, n) is the bytes n entries of a row take (whole words at p = 2).
 * Code that must be fast at p = 2 (the packed M4RM, the XOR of words) reaches m.f2 directly;
 * everything here is inline, one branch on p in front of the packed call.
 */
#ifndef EXTFLOW_FIELDMAT_H
#define EXTFLOW_FIELDMAT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "algebra/f2mat.h"
#include "algebra/fpmat.h"

typedef struct fieldmat {
    uint32_t p;                 /* 2, or the odd prime (0: a zeroed struct, no matrix) */
    union {
        f2mat f2;               /* p = 2 */
        fpmat fp;               /* odd p (fp.p == p) */
    };
} fieldmat;

/* Bytes of n entries of a row (n bits in whole words at p = 2, n bytes at odd p). */
static inline size_t fieldvec_bytes(uint32_t p, uint32_t n)
{ return p == 2 ? f2vec_words(n) * sizeof(uint64_t) : n; }

/* Zeroed rows x cols matrix over F_p (p = 2 or an odd prime <= FPMAT_MAX_PRIME). 0, or -1 on a
 * bad p or out of memory (m zeroed then). */
static inline int fieldmat_init(fieldmat *m, uint32_t p, uint32_t rows, uint32_t cols)
{
    memset(m, 0, sizeof *m);
    int rc = p == 2 ? f2mat_init(&m->f2, rows, cols) : fpmat_init(&m->fp, p, rows, cols);
    if (rc == 0) m->p = p;
    else memset(m, 0, sizeof *m);
    return rc;
}
/* Frees; safe on a zeroed struct. */
static inline void fieldmat_clear(fieldmat *m)
{
    if (m->p == 2) f2mat_clear(&m->f2);
    else if (m->p) fpmat_clear(&m->fp);
    memset(m, 0, sizeof *m);
}
static inline uint32_t fieldmat_rows(const fieldmat *m) { return !m->p ? 0 : m->p == 2 ? m->f2.rows : m->fp.rows; }
static inline uint32_t fieldmat_cols(const fieldmat *m) { return !m->p ? 0 : m->p == 2 ? m->f2.cols : m->fp.cols; }
static inline void *fieldmat_row(const fieldmat *m, uint32_t i)
{ return m->p == 2 ? (void *)f2mat_row(&m->f2, i) : (void *)fpmat_row(&m->fp, i); }
static inline uint32_t fieldmat_get(const fieldmat *m, uint32_t i, uint32_t c)
{ return m->p == 2 ? (uint32_t)f2mat_get(&m->f2, i, c) : fpmat_get(&m->fp, i, c); }
/* Entry (i, c) = v mod p. */
static inline void fieldmat_set(fieldmat *m, uint32_t i, uint32_t c, uint32_t v)
{
    if (m->p == 2) f2mat_set(&m->f2, i, c, (int)(v & 1));
    else fpmat_set(&m->fp, i, c, v);
}
/* dst = a copy of src (dst uninitialised on entry). 0, or -1 out of memory (dst zeroed then). */
static inline int fieldmat_copy(fieldmat *dst, const fieldmat *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src->p) return 0;
    int rc = src->p == 2 ? f2mat_copy(&dst->f2, &src->f2) : fpmat_copy(&dst->fp, &src->fp);
    if (rc == 0) dst->p = src->p;
    else memset(dst, 0, sizeof *dst);
    return rc;
}
/* Same p, shape and entries. */
static inline int fieldmat_equal(const fieldmat *a, const fieldmat *b)
{
    if (a->p != b->p) return 0;
    return !a->p || (a->p == 2 ? f2mat_equal(&a->f2, &b->f2) : fpmat_equal(&a->fp, &b->fp));
}

/* In-place RREF (f2mat.h's contract, the same over F_p). pivots: m's cols ints, or NULL. The
 * rank, or -1 out of memory. */
static inline int fieldmat_rref(fieldmat *m, int32_t *pivots)
{ return m->p == 2 ? f2mat_rref(&m->f2, pivots) : fpmat_rref(&m->fp, pivots); }
static inline uint32_t fieldmat_segment_start(uint32_t cols) { return (cols + 63) & ~63u; }
/* [A | 0 | I_rows], aug initialised here (cols = segment_start(A's cols) + A's rows). 0 or -1. */
static inline int fieldmat_augment_identity(fieldmat *aug, const fieldmat *a)
{
    memset(aug, 0, sizeof *aug);
    int rc = a->p == 2 ? f2mat_augment_identity(&aug->f2, &a->f2) : fpmat_augment_identity(&aug->fp, &a->fp);
    if (rc == 0) aug->p = a->p;
    else memset(aug, 0, sizeof *aug);
    return rc;
}
/* The kernel of A from the RREF of [A | 0 | I] (a_cols = A's columns), in RREF; kernel
 * initialised here. 0 or -1. */
static inline int fieldmat_kernel_from_rref(const fieldmat *aug, uint32_t a_cols, uint32_t rank,
                                            const int32_t *pivots, fieldmat *kernel)
{
    memset(kernel, 0, sizeof *kernel);
    int rc = aug->p == 2 ? f2mat_kernel_from_rref(&aug->f2, a_cols, rank, pivots, &kernel->f2)
                         : fpmat_kernel_from_rref(&aug->fp, a_cols, rank, pivots, &kernel->fp);
    if (rc == 0) kernel->p = aug->p;
    return rc;
}

/* A quasi-inverse of A (f2qi, fpqi): x·A = y for x = QI(y), y in the image. */
typedef struct fieldqi {
    uint32_t p;
    union {
        f2qi f2;
        fpqi fp;
    };
} fieldqi;
static inline int fieldmat_quasi_inverse_from_rref(const fieldmat *aug, uint32_t a_cols, uint32_t rank,
                                                   const int32_t *pivots, fieldqi *qi)
{
    memset(qi, 0, sizeof *qi);
    int rc = aug->p == 2 ? f2mat_quasi_inverse_from_rref(&aug->f2, a_cols, rank, pivots, &qi->f2)
                         : fpmat_quasi_inverse_from_rref(&aug->fp, a_cols, rank, pivots, &qi->fp);
    if (rc == 0) qi->p = aug->p;
    return rc;
}
/* x += QI(y) (x: src_dim entries, y: tgt_dim entries, rows in the field's storage). */
static inline void fieldqi_apply(const fieldqi *qi, const void *y, void *x)
{
    if (qi->p == 2) f2qi_apply(&qi->f2, y, x);
    else fpqi_apply(&qi->fp, y, x);
}
static inline void fieldqi_clear(fieldqi *qi)
{
    if (qi->p == 2) f2qi_clear(&qi->f2);
    else if (qi->p) fpqi_clear(&qi->fp);
    memset(qi, 0, sizeof *qi);
}

/* Rows as vectors of n entries in the field's storage: dst += c·src (c < p; at p = 2 an XOR
 * when c = 1), entry i, and whether all n are zero. */
static inline void fieldvec_addmul(uint32_t p, void *dst, const void *src, uint32_t c, uint32_t n)
{
    if (p == 2) {
        if (c & 1) f2vec_xor(dst, src, f2vec_words(n));
    } else if (c)
        fpvec_addmul(dst, src, c, n, p);
}
static inline uint32_t fieldvec_get(uint32_t p, const void *v, uint32_t i)
{ return p == 2 ? (uint32_t)f2vec_get(v, i) : ((const uint8_t *)v)[i]; }
/* Entry i = v mod p. */
static inline void fieldvec_set(uint32_t p, void *v, uint32_t i, uint32_t val)
{
    if (p != 2) ((uint8_t *)v)[i] = (uint8_t)(val % p);
    else if (((uint32_t)f2vec_get(v, i) ^ val) & 1) f2vec_flip(v, i);
}
/* The index of the first non-zero entry among the first n (at p = 2 a scan of whole words, as
 * f2vec_first_bit: bits past n must be zero), or -1: none. */
static inline int64_t fieldvec_first(uint32_t p, const void *v, uint32_t n)
{
    if (p == 2) return f2vec_first_bit(v, n);
    const uint8_t *b = v;
    for (uint32_t i = 0; i < n; i++)
        if (b[i]) return i;
    return -1;
}
static inline int fieldvec_is_zero(uint32_t p, const void *v, uint32_t n)
{
    if (p == 2) return f2vec_is_zero(v, f2vec_words(n));
    const uint8_t *b = v;
    for (uint32_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

#endif
