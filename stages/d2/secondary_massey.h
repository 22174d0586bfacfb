/* secondary_massey.h — Massey products <a, b, -> in Mod_{Cλ²} (docs/secondary.md, "Massey
 * products in Mod_{Cλ²}"), in the shape of sseq's secondary_massey example.
 *
 * Maths. A class of Mod_{Cλ²} at (s, t) is an Ext part x (a d2-cycle at (s, t)) plus a λ part
 * y at (s+1, t+1), read modulo the image of d2. a and b are such classes of S_2 (a = a_x + λ a_y,
 * b = b_x + λ b_y). Their chain-level data, all maps of S_2's resolution F into itself:
 *
 *   f_a, f_b      the chain maps of the Ext parts (stages/products/lift.h), and H^a, H^b their secondary
 *                 lifts (stages/d2/secondary_product.h), with a_λ, b_λ the chain maps of the λ parts;
 *   h             a null-homotopy of f_b f_a, h_s : F_s -> F_{s+1-sa-sb}, d h + h d = f_b f_a,
 *                 whose bottom (s = sa+sb-1) is v·ι on the generators at (sa+sb-1, ta+tb), v a
 *                 preimage under d2 of the λ part of a·b (a·b = 0 in Mod_{Cλ²}: its Ext part is
 *                 0 and its λ part a d2-boundary; v = 0 when that λ part is 0);
 *   H             the secondary lift of h, H_s : F_s -> F_{s-sa-sb} of degree ta+tb+1, zero at
 *                 s = sa+sb, lifted like every secondary map:  d H_s(z) = I(z) + H_{s-1}(d z) with
 *
 *     COMPOSITE    C(g) = -σσ(f_b f_a)(g) + σσ(d h)(g) + σσ(h d)(g)   (pair elements over
 *                  F_{s-sa-sb}; the product of two units is 2·g'' or 0, kept apart: degree 0)
 *     INTERMEDIATE I(z) = Σ_{a·g' in d z} A(a, C(g'))  +  [A(-, C^F) + h^F](h z)  +  h(h^F z)
 *                       + [A(-, C^b) + H^b + b_λ](f_a z)  +  f_b(H^a z + a_λ z)        (mod 2)
 *
 *   (h^F, C^F: the resolution's own d2 homotopy and composites, stages/d2/secondary.h).
 *
 * For every class c = c_x + λ c_y of Mod_{Cλ²} at a bidegree of the region with b·c = 0 there
 * (E3-cycles c_x with b·c_x = 0 in Ext, then the Ext part together with all λ multiples, the
 * kernel of the Mod_{Cλ²} product by b in RREF), <a, b, c> has the Ext part c_x∘h at
 * (sa+sb+sc-1, ta+tb+tc) and the λ part c_x∘H + c_y∘h at (+1, +1), corrected by w = the d2
 * preimage of b·c's λ part: the Ext part minus a·w, with its carries (the Z/4 sums' 2s) times
 * λ h0, and the carries of b·c_x times λ a·h0. Computed up to a sign, as sseq does; the λ part
 * is not reduced modulo the image of d2 (sseq's output does not reduce it either).
 *
 * Runs: the resolution's secondary lift (sec, all composites, sseq's preimages) must have run.
 * Then, each a set of chains on the runner: f and H of a and of b (sec_product_run), the λ
 * parts' lifts, h (a lift with bottom v and f_b f_a as its extra term, massey_homotopy_extra),
 * the composites C (composite_chain_set) and H (a lift with I as its extra term). Every lift
 * takes sseq's preimages (the λ parts depend on these choices). Reading the brackets off is
 * serial, small linear algebra per bidegree.
 */
#ifndef EXTFLOW_SECONDARY_MASSEY_H
#define EXTFLOW_SECONDARY_MASSEY_H
#include <stdio.h>
#include "stages/products/massey.h"
#include "stages/d2/secondary_product.h"

/* A class of Mod_{Cλ²}: an Ext part at (n, s) and a λ part at (n, s+1), either may be absent
 * (not both); name is sseq's: "[E]", "λL" or "[E] + λL". */
typedef struct sec_mclass {
    int n, s;
    int has_ext, has_lam;
    uint32_t next, nlam;        /* coordinates given for each part */
    uint8_t ext[PRODUCT_VECTOR_MAX], lam[PRODUCT_VECTOR_MAX];
    char name[2 * PRODUCT_NAME_MAX + 48];
} sec_mclass;

typedef struct sec_massey {
    secondary *sec;
    sec_mclass a, b;
    int sa, sb;
    deg_t ta, tb;
    sec_product pa, pb;         /* f and H of the Ext parts (zero maps where a part is absent) */
    lift_set lam;               /* the λ parts' chain maps: map la (a's), lb (b's), -1 if none */
    int la, lb;
    uint32_t nv;
    uint8_t *v;                 /* h's bottom: v over the generators at (sa+sb-1, ta+tb) */
    lift_set hs;                /* map 0: h */
    int h_early;                /* h was lifted by sec_massey_plan_d2 (its bottom v is 0) */
    int h_wait;                 /* set by the caller: h waits for d2 even where it could go first
                                 * (d2's composites then keep h's degree bound: same results) */
    massey_homotopy hctx;
    sec_composite **comp;       /* C per cell res_cell(s, T), s >= sa+sb */
    int8_t **planes;            /* per cell and generator g (sec_planes_of_d): the Y planes the terms
                                 * a·g of d z see; C(g) keeps only those (H reads C through d z
                                 * alone), and is empty when no z has a term on g */
    lift_set Hs;                /* map 0: H */
    fail_latch fail;
    char why[1000];             /* sec_massey_run's refusal */
} sec_massey;

/* Sets up <a, b, -> over sec's resolution (S_2, both classes inside its region, their parts'
 * vectors as long as the generators there). 0, or -1 (err says why). */
int sec_massey_init(sec_massey *m, secondary *sec, const sec_mclass *a, const sec_mclass *b, const char *outdir,
                    char *err, size_t errlen);
void sec_massey_clear(sec_massey *m);
/* Before sec's own run (secondary_run, every composite: all_composites): lifts f_a and f_b
 * and, where its bottom v is sure to be 0 (no generator at (sa+sb-1, ta+tb)) and a·b's Ext part
 * is 0, h; then sets sec->planes_all to the Y planes of d2's composites that their readers see,
 * so that sec computes no others: d z over d2's steps, f_a z and f_b z over H^a's and H^b's,
 * h z over H's (h's terms; where h waits for d2, every plane an element of h z's degree sees).
 * 0, 1 stopped at the time limit, or -1 (err says why). */
int sec_massey_plan_d2(sec_massey *m, const chain_runner *runner, char *err, size_t errlen);
/* Every set of chains above with runner: 0; 1 stopped at the time limit; 2 refused (m->why: an
 * Ext part supports a non-zero d2, or a·b is not 0 in Mod_{Cλ²}); -1 failed (err says why). */
int sec_massey_run(sec_massey *m, const chain_runner *runner, char *err, size_t errlen);
/* sseq's secondary_massey output, one line per class c (stem, then s, then the kernel's rows):
 * "<A, B, C> = ±[ext] + λ[lambda]". 0, or -1 (a write failed, out of memory, or an internal
 * error: a cell not computed, on stderr). */
int sec_massey_write(FILE *out, sec_massey *m);

#endif
