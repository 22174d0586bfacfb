/* resolution_p.h — the odd-prime part of the resolution's core (docs/algorithms.md §11).
 *
 * Maths. At an odd prime p a minimal resolution F_s → ... → F_0 → M of an A_p-module (or a
 * module over a sub-Hopf-algebra B of A_p given by a profile; Ext_B(M) is then what is
 * computed, as at p = 2) is built exactly as at p = 2, over F_p: F_s is free over B on
 * generators g added degree by degree, with basis {x·g : x in B's basis of degree t - |g|}
 * (milnor_p.h: B's elements in A_p's order), and d_s is stored by the images d(g). The rows of
 * d_s in degree t are d(x·h) = x·d(h) = sum over the terms c·y·g' of d(h) of c·(x·y)·g', each
 * x·y a Milnor product in A_p (milnor_p_sub_mul_into: it lands in B). Row 0 maps F_0 onto M:
 * a generator h of F_0 is sent to a vector d(h) of M_u, and d(x·h) = x·d(h) by the module's
 * action (fdm_act_p, algebra/fdmodule_p.h); for a trivial module (the spheres) that is 0
 * whenever |x| > 0, and row 0's generators are M_t's basis.
 *
 * Layout. res->odd holds A_p through the tables' degree (res->milnor_degree, the same bound as
 * at p = 2: stem + 2; res_init_module builds the mod 2 tables through degree 0 only), B over it, and the kernel slots: the kernel of d_s at (s, t) (fpmat,
 * RREF, rows = kernel vectors over F_{s,t} on generators of degree < t), cell res_cell(s, t),
 * from the step at (s, t) to step (s+1, t). The free modules' blocks are B's dims
 * (freemod_use_dims), an image d(g) is `bits` bytes over F_{s-1} in degree |g| (generators of
 * degree < |g|), and a differential's stage file is the fpmat of its generators' images,
 * format version 2.
 *
 * This file calls nothing of resolution.c (which calls it): what can fail returns -1 and the
 * caller records the failure.
 */
#ifndef EXTFLOW_RESOLUTION_P_H
#define EXTFLOW_RESOLUTION_P_H
#include <stdint.h>
#include "algebra/fpmat.h"
#include "algebra/milnor_p.h"
#include "stages/resolve/resolution.h"

typedef struct res_odd {
    milnor_p_basis A;           /* A_p through degree res->A.max_degree */
    milnor_p_sub B;             /* the free modules' algebra: A_p, or the module's profile's B */
    fpmat **kernel;             /* kernel of d_s at (s, t), waiting for step (s+1, t) */
    struct nassau_p_share *share;   /* zero-signature rows of d_s kept between Nassau steps (nassau_p.c) */
    void (*share_clear)(struct resolution *res);    /* frees share: set by nassau_p.c with it */
    uint64_t products_bytes;    /* the budget of Nassau's kept products (nassau_p.h); 0: its default */
} res_odd;

/* Odd p, from res_set_module: res->prime, res->odd (A_p, B, kernel slots), F's dims. 0, or -1
 * out of memory. (A profile that is no sub-Hopf-algebra's shows when a product leaves B: the
 * step fails, naming it.) */
int res_odd_init(resolution *res, const fd_module *m);
void res_odd_clear(resolution *res);
/* Does Nassau's step (stages/resolve/nassau_p.h) take (s, t)? Under --algorithm nassau over A_p
 * itself, where some sub-Hopf-algebra B may be used: exactly where E(Q_0) may (slope 1, top
 * degree 1: t > s + c, c the module's top degree), since every B has slope and top degree >= 1. */
static inline int res_p_nassau_row(const resolution *res, int s, deg_t t)
{
    return res->odd && res->odd->B.full && res->algorithm == ALG_NASSAU && s >= 2 && t > s + res_module_top(res);
}
static inline fpmat **res_kernel_slot_p(resolution *res, int s, deg_t t)
{ return &res->odd->kernel[res_cell(res, s, t)]; }

/* One term c·y·g' of d(h): col is the offset of g''s block in F_{s-1} in degree t, y is an
 * element of B (of degree |h| - |g'|), c in 1..p-1. Unstable (resolution.h): col is the offset
 * over the whole of A_p's blocks (freemod_dim_wide), where the products land before the step
 * narrows them, and d(h)'s entries are read in the excess order (algebra/excess.h). */
typedef struct res_p_term {
    uint64_t col;
    const milnor_p_elt *y;
    uint32_t c;
} res_p_term;
/* The terms of d(h), h = generator i of F_s (s >= 1) in degree u, placed for degree t >= u;
 * out has room for h's bits entries. Returns how many. */
size_t res_p_terms(const resolution *res, int s, deg_t u, uint32_t i, deg_t t, res_p_term *out);
/* row += c·x·d(h) (row over F_{s-1} in degree t; the terms from res_p_terms). 0, or -1 when a
 * product leaves B. */
int res_p_row_add(const resolution *res, const res_p_term *terms, size_t n, const milnor_p_elt *x, uint32_t c,
                  uint8_t *row);

/* row += c·x·d(h) for h a generator of F_0 in degree u (d(h) over M_u), x = element r of B_{t-u}
 * (row over M_t; c in 0..p-1). */
void res_p_row0_add(const resolution *res, deg_t u, const fm_gen *h, deg_t t, uint32_t r, uint32_t c, uint8_t *row);

/* d_{s-1} ∘ d_s on the generators of (s, t), s >= 1 (s = 1: d_0 ∘ d_1 into M, by the module's
 * action), by one-by-one Milnor products: 1 if zero, 0 if not, -1 out of memory. */
int res_check_dd_p(const resolution *res, int s, deg_t t);

#endif
