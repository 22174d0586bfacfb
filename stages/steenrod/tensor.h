/* tensor.h — the tensor square E (x) E of a class's Yoneda representative, with its
 * differential, the diagonal action of A and the swap (the cup-i products of steenrod.h's
 * Sq^k; private to stages/steenrod/).
 *
 * Maths. E is a finite exact quotient of the resolution with H(E) = F2 (stages/yoneda/yoneda.h).
 * (E (x) E)_m in internal degree T is the sum of E_a(u) (x) E_{m-a}(T-u); d(e (x) e') =
 * d e (x) e' + e (x) d e' (signs are 1 mod 2); A acts diagonally, Sq(R)(e (x) e') = sum over
 * R = R' + R'' of Sq(R')e (x) Sq(R'')e' (the Milnor coproduct); tau(e (x) e') = e' (x) e. The
 * square is exact in positive degrees, so a cycle there has a preimage under d: tensor_qi
 * reduces the matrix of d : (m, T) -> (m - 1, T) and keeps a quasi-inverse.
 *
 * Layout. X->sp[m * (mt + 1) + T] (tsp) is the space (m, T), m = 0..2s, T = 0..2t: its blocks
 * E_a(u) (x) E_{m-a}(T-u), the element (i, j) of a block at off + i·db + j, so a vector over the
 * space is one packed F2 row (f2mat.h) of dim bits; where[a * (t + 1) + u] finds a block. D is
 * the differential's matrix (rows over (m, T), columns over (m - 1, T)) and qi its
 * quasi-inverse, built on demand.
 */
#ifndef EXTFLOW_STEENROD_TENSOR_H
#define EXTFLOW_STEENROD_TENSOR_H
#include <stdint.h>
#include "algebra/f2mat.h"
#include "stages/yoneda/yoneda.h"

/* (E (x) E)_m in degree T: blocks E_a(u) (x) E_{m-a}(T-u), element (i, j) at off + i db + j. */
typedef struct tblock {
    int a;
    deg_t u;
    uint32_t da, db;
    uint64_t off;
} tblock;
typedef struct tspace {
    uint64_t dim;
    uint32_t nblocks;
    tblock *blocks;
    int64_t *where;             /* [a * (t + 1) + u]: its block, or -1 */
    f2mat D;                    /* d : (m, T) -> (m - 1, T), rows over this space (once built) */
    f2qi qi;
    int have_qi;
} tspace;

typedef struct tensor {
    const yoneda *E;
    int ms;                     /* m = 0..2s */
    deg_t mt;                   /* T = 0..2t */
    tspace *sp;
} tensor;

static inline tspace *tsp(const tensor *X, int m, deg_t T) { return &X->sp[(size_t)m * ((size_t)X->mt + 1) + (size_t)T]; }

/* X over E (the spaces and their blocks; no matrix yet). 0, or -1 out of memory or too large
 * (clear X either way). */
int tensor_init(tensor *X, const yoneda *E);
void tensor_clear(tensor *X);
/* out (over (m, T + |R|)) ^= Sq(R)·v, v over (m, T). */
void tensor_act(const tensor *X, int m, deg_t T, const uint64_t *v, const milnor_elt *R, uint64_t *out);
/* out (over (m, T)) ^= tau v. */
void tensor_swap(const tensor *X, int m, deg_t T, const uint64_t *v, uint64_t *out);
/* The matrix of d : (m, T) -> (m - 1, T) and its quasi-inverse (tsp(X, m, T)->qi), once. 0 or -1. */
int tensor_qi(tensor *X, int m, deg_t T);

#endif
