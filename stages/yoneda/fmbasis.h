/* fmbasis.h — single basis elements of a resolution's free modules at p = 2: where one sits,
 * Sq(R) on it, its differential. What the Yoneda representative (yoneda.h) and Sq^0
 * (stages/steenrod/steenrod.h) build their matrices from, one basis element at a time.
 *
 * Maths. F_k in degree T has the basis Sq(R)·g over the generators g of degree u <= T, in
 * freemod.h's order: generators by degree then index, each with the block of the Milnor basis
 * of degree T - u. Sq(R)·(Sq(Q) g) = (Sq(R) Sq(Q)) g, expanded by the Milnor product;
 * d(Sq(Q) g) = Sq(Q) d(g), d(g) read from the resolution's images.
 *
 * Layout. A basis element is its index ("bit") in freemod.h's order; results are XORed into
 * packed vectors over F_k (or F_{k-1}) in the target degree, which the caller sizes and zeroes.
 */
#ifndef EXTFLOW_FMBASIS_H
#define EXTFLOW_FMBASIS_H
#include <stdint.h>
#include "stages/resolve/resolution.h"

/* Basis element `bit` of F in degree T: its generator's degree *u and index *g, and the index
 * *r of its Milnor element in degree T - u. 0, or -1 past the generators of degree <= T. */
int fmb_locate(const freemod *F, deg_t T, uint64_t bit, deg_t *u, uint32_t *g, uint32_t *r);
/* out (over F_k in degree T + |R|) ^= Sq(R)·(basis element p of F_k in degree T). */
void fmb_act(const resolution *res, int k, deg_t T, uint64_t p, const milnor_elt *R, uint64_t *out);
/* out (over F_{k-1} in degree T) ^= d(basis element p of F_k in degree T), k >= 1. */
void fmb_d(const resolution *res, int k, deg_t T, uint64_t p, uint64_t *out);
/* dim F_k in degree T (0 outside 0..max_t). */
uint32_t fmb_dim(const resolution *res, int k, deg_t T);

#endif
