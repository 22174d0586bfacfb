/* massey.h — Massey products <a, b, c> in Ext_A(F_p, F_p) (and over a module M) by null-homotopies
 * of lifted chain maps, at every prime (the section "Odd primes" below says what changes).
 *
 * Maths (docs/products.md). For classes a, b, c with a·b = 0 and b·c = 0, lift b and c to
 * chain maps f_b, f_c (stages/products/lift.h). By minimality b·c = 0 makes ε f_b f_c = 0 on the nose,
 * so the composite is null-homotopic with a zero bottom: maps h_s : F_s -> F_{s+1-sb-sc} of
 * internal degree tb + tc with
 *
 *     d h_s + h_{s-1} d = f_b f_c,   h_{sb+sc-1} = 0,
 *
 * built level by level as a lift whose bottom class is zero and whose y gets the extra term
 * f_b(f_c(z)) before the quasi-inverse (lift_map.extra): h_s(z) = QI(h_{s-1}(d z) + f_b f_c(z)).
 * Then a·h is a cocycle on F_{sa+sb+sc-1}, and its class, read off h_{sa+sb+sc-1} at a's
 * generators, lies in <a, b, c> at bidegree |a| + |b| + |c| - (1, 0). The indeterminacy is
 * a·Ext^{|b|+|c|-(1,0)} + Ext^{|a|+|b|-(1,0)}·c, products read off f_a and f_c; the
 * representative is reduced by it (RREF, pivot = first coordinate), so a bracket containing
 * 0 has a zero representative.
 *
 * What is computed (the shape of sseq's massey example): for every bidegree (n, s) of the
 * region, in stem order then s, the kernel of multiplication by b there (in RREF, when the
 * product's bidegree is resolved), and for each kernel row c whose bracket's bidegree is
 * resolved, <a, b, c>. Work: one lift set for f_a and f_b, one for every f_c (levels up to
 * sa + sb - 1 only), one for every homotopy (levels up to sa): each set's steps share one
 * quasi-inverse per target bidegree, so the brackets of all c's cost a few batched passes.
 *
 * Modules. For c in Ext(M, F2), f_c : F^M -> F^{S_2} lifts c into the unit's resolution, f_a
 * and f_b are maps of S_2's resolution, and h : F^M_s -> F^{S_2}_{s+1-sb-sc}: the same
 * construction with M's generators as the source. What f_b cannot give over M is b·y for y in
 * Ext(M) (f_b maps S_2's resolution), so the kernel of b and the indeterminacy a·Ext(M) are
 * read off one lift per basis class y of Ext(M) (x·y = x ∘ f_y), through level max(sa, sb);
 * f_a is then lifted through level sb only (a·b) and f_b below sa (the homotopies' f_b f_c).
 *
 * Odd primes. The same construction over F_p (coordinates 0..p-1, the matrices fieldmats): the
 * homotopy satisfies d h + h d = f_b f_c, so each of its y is f_b f_c(z) − h(d z) (the lift
 * step's extra term; at p = 2 the same with no sign), the representative is a ∘ h with no further
 * sign, and the indeterminacy's rows are in RREF with the representative reduced by them.
 */
#ifndef EXTFLOW_MASSEY_H
#define EXTFLOW_MASSEY_H
#include <stdio.h>
#include "stages/products/products.h"

typedef struct massey_bracket {
    int cn, cs;                 /* c's bidegree (stem, s) */
    uint32_t clen;              /* c: coordinates over the generators at (cs, cn + cs) */
    uint8_t *c;
    int n, s;                   /* the bracket's bidegree */
    uint32_t dim;               /* generators there */
    uint8_t *rep;               /* dim coordinates: the representative, reduced */
    uint32_t nindet;            /* rows of the indeterminacy (RREF) */
    uint8_t *indet;             /* nindet x dim */
} massey_bracket;

typedef struct massey_table {
    massey_bracket *b;
    size_t n;
    long lifts;                 /* chain maps lifted (f_a, f_b, the f_c) */
} massey_table;

/* massey_compute's result when its runner stopped at the time limit (what the lifts finished is
 * in their stage files). */
#define MASSEY_STOPPED 2

/* One of several processes (MPI ranks) computing the same brackets, each calling massey_compute
 * with the same arguments but rank. Rank r lifts the f_c and homotopies of the c's k ≡ r mod
 * nranks (in the order above, so a homotopy reads its f_c on its own rank) and, over a module,
 * M's basis classes k ≡ r; over S_2 with stage files, rank 0 lifts f_a and rank 1 f_b, which
 * every rank then loads. The cells the others read (a basis lift's products with a and b, a
 * bracket's cells of f_c and of its homotopy) and each rank's status pass through allgather,
 * which every rank calls at the same points: its len bytes at mine go to every rank, *all (*alllen
 * bytes, malloc'd) the ranks' buffers in rank order; 0, or -1 on every rank (out of memory). A
 * failure, stop or refusal on one rank is every rank's at the next exchange; rank 0 gets the
 * table, the others an empty one (its lifts counted). */
typedef struct massey_share {
    int rank, nranks;
    int (*allgather)(const void *mine, size_t len, void **all, size_t *alllen);
} massey_share;

/* <a, b, c> for every c described above, over res, whose region is complete: a resolution of
 * S_2 (then unit == res) or of a module M, with unit a resolution of S_2 covering res's region
 * (a, b in Ext(F2, F2), c in Ext(M, F2), the bracket in Ext(M, F2)). a and b must lie in
 * unit's region with s >= 1. f_a and f_b (the maps a products
 * run lifts too) keep their stage files under lift_dir ("" : none); the f_c and the homotopies
 * keep none (hundreds of partial maps: recomputing them beats thousands of small files; at stem
 * 70 writing the f_c's 41k cells took 3.4 s more than computing them, loading them as long). The
 * lift sets are run by runner (stages/chain.h); share: NULL alone, or this rank's part (above).
 * Returns 0; 1 when a·b != 0 (no bracket is defined: err says so); MASSEY_STOPPED; -1 on a
 * runtime failure (err says why; another rank's: "rank R: " in front). */
int massey_compute(const resolution *res, const resolution *unit, const product_class *a, const product_class *b,
                   const char *lift_dir, const chain_runner *runner, const massey_share *share, massey_table *out,
                   char *err, size_t errlen);
void massey_table_clear(massey_table *t);

/* ---- shared with d2's secondary Massey products (stages/d2/secondary_massey.c) ---- */
/* What the extra term of one homotopy reads: f_b (map mb of set1) after f_c (map mc of set2). */
typedef struct massey_homotopy {
    lift_set *home;             /* the set the homotopy runs in (failures are reported there) */
    lift_set *set1, *set2;
    int mb, mc;
    int sb, sc;
    deg_t tb, tc;
} massey_homotopy;
/* The extra term of such a homotopy at every prime (lift_map.extra, its ctx a massey_homotopy):
 * y += f_b(f_c(z)) for the k-th generator z of the source at target (i, t), y a row over the
 * field (lift_extra_fn). The maps' cells it reads must have run (checked: the home set fails
 * otherwise). 0, or -1 after lift_fail. */
int massey_homotopy_extra(void *ctx, int i, deg_t t, uint32_t k, void *y);

/* sseq's massey output, one line per bracket that does not contain 0:
 * "<a, b, x_(n, s, [c])> = [rep] + {indeterminacy rows joined by ", "}". 0 or -1. */
int massey_write_sseq(FILE *out, const massey_table *t);
/* massey-A-B.csv (schema/massey-csv.md): every bracket computed (at an odd prime p < 10 the
 * vectors are strings of digits 0..p-1). 0 or -1. */
int massey_write_csv(FILE *out, const massey_table *t, const char *aname, const char *bname);

#endif
