/* secondary_product.h — products in Mod_{Cλ²} by a class x that survives d2: the secondary lift of
 * x's chain map (stages/d2/secondary.h for the resolution's own lift; docs/secondary.md).
 *
 * Maths. x in Ext^{s0,t0}(M) lifts to a chain map f_s : F_s -> G_{s-s0} (stages/products/lift.h), F the
 * resolution of M and G that of the unit S_2 (the same resolution when M = S_2). Its secondary
 * lift is a homotopy H_s : F_s -> G_{s-s0-1} of degree -1, H_{s0+1} = 0, built like d2's
 * homotopy from
 *
 *   COMPOSITE  C^f(g) = -sum σ(a)σ(b) over a·g' in d g, b·g'' in f(g')
 *                       + sum σ(a)σ(b) over a·g' in f(g), b·g'' in d g'     (g'' in G_{s-s0-1})
 *   INTERMEDIATE I^f(g) = sum over a·g' in d g of A(a, C^f(g'))
 *                       + sum over a·g' in f(g) of A(a, C^G(g'))  +  h^G(f(g))  +  f(h^F(g))
 *   HOMOTOPY   d H_s(g) = I^f(g) + H_{s-1}(d g)
 *
 * (h^F, h^G: the two resolutions' own d2 homotopies, C^G: G's composites; -1 is taken mod 4,
 * signs vanish mod 2 elsewhere). For y in Ext^{s,t}(S_2) surviving d2, the product x·y in
 * Mod_{Cλ²} is an Ext(M) part, the ordinary product (at (s+s0, t+t0)), plus λ times a class
 * of Ext(M) at (s+s0+1, t+t0+1): the coefficient of y's unit in H(z) over the generators z
 * there, plus h0 times the Ext part's "carry" when s0·t is odd (the sign (-1)^{s0 t} taken mod
 * 4: -1 = 1 - 2, and 2 = λ h0, h0 acting on Ext(M)), reduced modulo the image of M's d2. A
 * class y that supports a d2 (of S_2) multiplies to λ times its ordinary product. This is what
 * sseq's secondary_product example prints, and secondary_product_write prints it in the same
 * words.
 *
 * Runs: sec and unit (d2 of F and of G, secondary_run; G's with every composite, all_composites;
 * both with sseq's preimages, not any_preimage) must have run; then the primary lift of x,
 * the composites C^f (per bidegree, independent), then H as a lift (s0' = s0 + 1, t0' = t0 + 1,
 * zero bottom, I^f as its extra term, steps only where h^F and h^G are there to read). Lift
 * stage files: "d2f-<key>" for f (not the class's own directory, which `products` fills with
 * other preimages) and "d2prod-<key>" for H.
 */
#ifndef EXTFLOW_SECONDARY_PRODUCT_H
#define EXTFLOW_SECONDARY_PRODUCT_H
#include <stdio.h>
#include "stages/d2/secondary.h"

typedef struct sec_product {
    secondary *sec;             /* F's d2 data: its homotopy h^F and its d2 (x must survive it) */
    secondary *unit;            /* G's: its homotopy h^G, every composite C^G, its d2; sec itself
                                 * when M = S_2 */
    int s0;
    deg_t t0;
    lift_set prim;              /* map 0: f, the class's chain map */
    int prim_done;              /* prim has run (sec_product_run_prim) */
    lift_set hom;               /* map 0: H */
    sec_composite **comp;       /* C^f per cell res_cell(s, T), s >= s0 + 1 */
    int8_t **planes;            /* per cell and generator g of F (sec_planes_of_d): the Y planes that
                                 * the terms a·g of d z see, z over every generator of F: C^f(g)
                                 * keeps only those, and is empty for no term (H reads C^f through
                                 * d z alone), set when the composites start (sec_product_run: z
                                 * over H's steps, those with h^F there); a Massey product raises
                                 * b's (its f_a reads them too) through more_planes */
    void (*more_planes)(void *ctx, struct sec_product *p);   /* or NULL: called after planes is set, before
                                 * the composites (set it to NULL on out of memory) */
    void *more_ctx;
    fail_latch fail;            /* the first failure of the product itself: fail.msg */
} sec_product;

/* The class coords[0..n) at (s0, t0) (s0 >= 1) of Ext(M), M sec's module, lifted into unit's
 * resolution of S_2 (unit = sec when M = S_2). 0, or -1 (error says why). */
int sec_product_init(sec_product *p, secondary *sec, secondary *unit, int s0, deg_t t0, const uint8_t *coords,
                     uint32_t n, const char *outdir, char *error, size_t errlen);
void sec_product_clear(sec_product *p);
int sec_product_failed(sec_product *p);

/* Does d2 vanish on the class (or is its target out of range)? */
int sec_product_survives(const sec_product *p);

/* Steps, for a runner: the primary lift is p->prim (run it first), then every composite cell
 * (sec_product_needs_composite / sec_product_composite_plan, the multiply, sec_product_composite_finish), then p->hom. */
int sec_product_needs_composite(const sec_product *p, int s, deg_t T);
/* The plan of the composites at (s, T) (a batch, stages/d2/secondary.h; NULL: no generator, or a
 * failure that p->fail.msg gives) and their finish from its multiplied rows (frees it; why non-NULL:
 * the multiply failed, recorded as the run's failure; 0 or -1). */
sec_batch *sec_product_composite_plan(sec_product *p, int s, deg_t T);
int sec_product_composite_finish(sec_product *p, sec_batch *bt, const char *why);
/* The primary lift alone, once (a later call, and sec_product_run, do not run it again): 0, 1
 * (stopped at the time limit) or -1. */
int sec_product_run_prim(sec_product *p, const chain_runner *runner);
/* All of it with runner: the primary lift, the composites (composite_chain_set), H's lift.
 * 0, 1 (stopped at the time limit) or -1 (sec_product_failed). */
int sec_product_run(sec_product *p, const chain_runner *runner);

/* Might H's step on z at (S, T) read anything, once the two d2 homotopies (sec's and unit's)
 * have run (f must have: its cells are read)? A superset of the steps H's lift computes, known
 * before the d2 homotopies run. */
int sec_product_may_read(const sec_product *p, int S, deg_t T);
/* Raises planes (sec_planes_of_d's, over unit's resolution) to what the terms of f z see, z over
 * those steps: the planes of unit's composites that H reads (A(-, C^G)(f z)). */
void sec_product_planes_of_f(const sec_product *p, int8_t **planes);

/* sseq's secondary_product output for the class named name (x_(n,s,i): the unit's classes y): 0
 * or -1. */
int sec_product_write(FILE *out, const sec_product *p, const char *name);

/* ---- the pieces of a secondary lift, shared with stages/d2/secondary_massey.c ---- */
/* Map m of set has run at target (i, t). */
int sec_cell_ready(const lift_set *set, int m, int i, deg_t t);
/* Map m's value on generator k at target (i, t): a row over target F_i in degree t (units
 * included, *bits long), or NULL when that cell has not run. */
const uint64_t *sec_map_row(const lift_set *set, int m, int i, deg_t t, uint32_t k, uint32_t *bits);
/* y ^= sum over the terms a·g1 of v (over X in degree D, generators below D only) of
 * A(a, comp(g1)), comp a map's composites at level s_comp, kept per cell of cres (the
 * resolution X belongs to: F for a product's own C^f, G for the unit's C^G), into y over the
 * composites' target module Yt in degree ydeg (pair elements at generators (w, index) of Yt);
 * sec gives the algebra and its product cache. With share (y unused) the same products are
 * planned there instead, one piece per term a·g1 (sec_plan_action: the lift step's grouped rows, for the multiply tasks; its
 * columns are y's, below Yt's generators of degree ydeg, where every A(a, e) lands since
 * |a|, |e| >= 1). A missing cell is an error (-2) unless zs0 >= 0 and u - zt0 < s_comp - zs0
 * (the map, of shift (zs0, zt0), is 0 there); -1 out of memory. */
int sec_add_actions(secondary *sec, sec_composite **comp, const resolution *cres, int s_comp, int zs0, deg_t zt0,
                    const freemod *X, deg_t D, const uint64_t *v, uint64_t vbits, const freemod *Yt, deg_t ydeg,
                    uint64_t *y, lift_share *share);
/* Which terms of an intermediate (a secondary product's or Massey product's extra term) a call
 * adds: the actions A(a, C(g')) (sec_add_actions), the rest (the maps applied, the unit twos),
 * or all. */
enum { SEC_TERMS_ACTIONS = 1, SEC_TERMS_REST = 2, SEC_TERMS_ALL = 3 };
/* An extra term's scratch row over Yt in degree t on the generators of degree <= t (units
 * last, as lift_apply's images): 0, or -1 out of memory. */
int sec_wide_init(f2mat *wide, const freemod *Yt, deg_t t);
/* Frees wide after, when take, XORing its part on the generators below t into y; 1 (y
 * untouched) when take and wide has a unit bit (the term meets a generator: an internal
 * error), else 0. */
int sec_wide_end(f2mat *wide, const freemod *Yt, deg_t t, uint64_t *y, int take);
/* One row (an element of source F_{s0+j} in degree T, bits long) through map m of set
 * (lift_apply), XORed into row 0 of wide (over target F_j in degree T - t0, units included). 0,
 * or -1 after lift_fail. */
int sec_apply_row(lift_set *set, int m, int j, deg_t T, const uint64_t *row, uint32_t bits, f2mat *wide);

#endif
