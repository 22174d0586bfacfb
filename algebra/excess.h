/* excess.h — the excess order of the Milnor basis, for free unstable modules (docs/unstable.md).
 *
 * Maths. The excess of Sq(R) = Sq(r1, r2, ...) is e(R) = r1 + r2 + ... . The free unstable
 * module F(n) on a class i of degree n is A·i modulo the classes that an unstable module must
 * kill; those are spanned by the Sq(R)·i with e(R) > n (Kraines 1971), so F(n) has the basis
 * Sq(R)·i with e(R) <= n, and the product Sq(S)·(Sq(R)·i) is the Milnor product Sq(S)Sq(R)
 * with its terms of excess > n dropped (they span a left ideal: the kernel of A -> F(n)).
 * e(R) <= |Sq(R)| always, with equality only for Sq(d), so F(n) agrees with A in degrees <= n.
 *
 * Odd p. The excess of Q(E)P(R) = Q_e1 ... Q_ek P(r1, r2, ...) in A_p is e = k + 2(r1 + r2 + ...):
 * one for each Q, two for each r. F(n), the free unstable A_p-module on a class of degree n (β^e
 * P^i x = 0 when 2i + e > |x|), has the basis Q(E)P(R)·i with e <= n (docs/unstable.md, checked
 * by tests/unstable_p_ref.py kraines and tests/t-excess.c); e <= |Q(E)P(R)| as at p = 2 (|Q_k| >= 1,
 * |xi_i| >= 4), so the same tables serve, built from A_p's basis (excess_init_p).
 *
 * Order. In each degree d the Milnor basis (algebra/milnor.h's order, index j) is listed again
 * sorted by excess, ties by index: order[d][k] is the index of the k-th element, rank[d][j] the
 * position of element j, and count[d][e] the number of elements of excess <= e (e = 0..d). The
 * block of F(n) in degree n + d is then the prefix order[d][0 .. excess_block(X, d, n)): every
 * free unstable module of a resolution lists its blocks in this order (algebra/freemod.h).
 *
 * Layout. One array for each of order and rank, all degrees end to end (first[d] the offset of
 * degree d, first[max_degree + 1] the total), and count's triangle the same way (degree d's
 * d + 1 entries from cfirst[d]).
 */
#ifndef EXTFLOW_EXCESS_H
#define EXTFLOW_EXCESS_H
#include <stdint.h>
#include "algebra/milnor.h"
#include "algebra/milnor_p.h"

typedef struct milnor_excess {
    deg_t max_degree;
    const uint32_t *dim;        /* the basis's dim[d] (the milnor_basis it was built from) */
    uint32_t *first;            /* max_degree + 2 offsets into order and rank */
    uint32_t *order, *rank;
    uint64_t *cfirst;           /* max_degree + 1 offsets into count */
    uint32_t *count;
    uint64_t bytes;             /* what excess_init allocated (excess_bytes), for the memory account */
} milnor_excess;

/* Excess of a basis element. */
static inline uint32_t milnor_excess_of(const milnor_elt *R)
{
    uint32_t e = 0;
    for (uint32_t i = 0; i < R->len; i++) e += R->r[i];
    return e;
}
/* Excess of an element of A_p (p odd): one for each Q_k, two for each unit of r_i. */
static inline uint32_t milnor_p_excess_of(const milnor_p_elt *X)
{
    uint32_t e = (uint32_t)__builtin_popcount(X->q);
    for (uint32_t i = 0; i < X->len; i++) e += 2 * X->r[i];
    return e;
}
/* The tables for A's basis (p = 2) through its max_degree, or A_p's (excess_init_p): 0, or -1
 * out of memory. excess_clear frees them. */
int excess_init(milnor_excess *X, const milnor_basis *A);
int excess_init_p(milnor_excess *X, const milnor_p_basis *A);
void excess_clear(milnor_excess *X);
/* Bytes excess_init allocates for a basis through max_degree with these dims. */
uint64_t excess_bytes(deg_t max_degree, const uint32_t *dim);
/* The number of Sq(R) of degree d with e(R) <= n: dim F(n) in degree n + d. */
static inline uint32_t excess_block(const milnor_excess *X, deg_t d, deg_t n)
{ return n >= d ? X->dim[d] : n < 0 ? 0 : X->count[X->cfirst[d] + (uint64_t)n]; }
/* Index (algebra/milnor.h) of the k-th element of degree d in the excess order, and back. */
static inline uint32_t excess_index(const milnor_excess *X, deg_t d, uint32_t k)
{ return X->order[X->first[d] + k]; }
static inline uint32_t excess_rank(const milnor_excess *X, deg_t d, uint32_t j)
{ return X->rank[X->first[d] + j]; }

#endif
