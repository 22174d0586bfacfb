/* massey.h — Massey products <a, b, c> in Ext_A(F2, F2) by null-homotopies of lifted chain maps.
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

/* ---- shared by massey.c and massey_p.c ---- */
/* A class c whose bracket is to be computed: (stem, s) and its coordinates (malloc'd). */
typedef struct massey_pending { int n, s; uint32_t len; uint8_t *c; } massey_pending;
/* What the extra term of one homotopy reads: f_b (map mb of set1) after f_c (map mc of set2). */
typedef struct massey_homotopy {
    lift_set *home;             /* the set the homotopy runs in (failures are reported there) */
    lift_set *set1, *set2;
    int mb, mc;
    int sb, sc;
    deg_t tb, tc;
} massey_homotopy;
/* Is (s, n) resolved in res? */
int massey_done(const resolution *res, int s, int n);
/* Runs a lift set: 0; MASSEY_STOPPED at the time limit; -1 with err set. */
int massey_run_set(lift_set *set, const chain_runner *runner, char *err, size_t errlen);
/* a·b (a lifted as map ma of set1, into the unit set1->tgt) where it is resolved: 0 zero or
 * outside the region, 1 not zero (err says so), -1 out of memory. */
int massey_ab_check(const lift_set *set1, int ma, const product_class *a, const product_class *b, char *err,
                    size_t errlen);
/* Appends c (len coordinates; NULL: zeros) to cs[0..*ncs). 0, or -1 out of memory. */
int massey_pending_push(massey_pending **cs, size_t *ncs, int n, int s, uint32_t len, const uint8_t *c);
/* The homotopy of f_b f_c (f_c = map mc of set2) as a map of set3 with a zero bottom at
 * (sb + sc - 1, tb + tc), its context *ctx (extra_ctx; the caller sets extra or extra_p and
 * max_i). Its index, or -1 out of memory. */
int massey_add_homotopy(lift_set *set3, lift_set *set1, lift_set *set2, int mb, int mc, const product_class *b,
                        const massey_pending *c, massey_homotopy *ctx);
/* The extra term of such a homotopy at p = 2 (lift_map.extra, its ctx a massey_homotopy): y ^=
 * f_b(f_c(z)) for the k-th generator z of the source at target (i, t). The maps' cells it reads
 * must have run (checked: the home set fails otherwise). 0, or -1 after lift_fail. */
int massey_homotopy_extra(void *ctx, int i, deg_t t, uint32_t k, uint64_t *y);
/* The cell of f_c (map mc of set2) that h's extra term reads for the generator k of the
 * homotopy's source at (s0 + i, t + t0): f_c's level sb - 1 + i in degree *tcdeg = t + tb. 1 with
 * *tcdeg and *cell set; 0 when F there is zero (no term); -1 after lift_fail when f_c lacks it. */
int massey_fc_cell(const massey_homotopy *h, int i, deg_t t, uint32_t k, deg_t *tcdeg, size_t *cell);
/* The lifts of one computation of brackets, at either prime: set1 (f_a, f_b: the caller's),
 * set2 (every c's f_c), set3 (every homotopy), the c's, and for c = cs[k] its maps mcs[k] of
 * set2 and mhs[k] of set3 and its homotopy's context hctx[k]. massey_work_clear frees it all. */
typedef struct massey_work {
    lift_set set1, set2, set3;
    int have2, have3;
    massey_pending *cs;
    size_t ncs;
    int *mcs, *mhs;
    massey_homotopy *hctx;
} massey_work;
/* Every c's f_c from res into set1's target through level sa + sb - 1 (set2), then the homotopy
 * of f_b f_c (f_b map mb of set1) through level sa (set3), whose extra term is extra (p = 2) or
 * extra_p (odd p); no stage files; the sets share set1's preimages where it has them. Under
 * share a rank lifts its own c's only (k mod nranks), the others' maps wait (max_i = -1). Adds
 * the f_c to *lifts. As massey_run_set (-1 with err set, out of memory too). */
int massey_lift_cs(massey_work *w, const resolution *res, int mb, const product_class *b, int sa,
                   const massey_share *share, lift_extra_fn extra,
                   int (*extra_p)(void *ctx, int i, deg_t t, uint32_t k, uint8_t *y), const chain_runner *runner,
                   long *lifts, char *err, size_t errlen);
/* err = "out of memory computing Massey products"; returns -1. */
int massey_oom(char *err, size_t errlen);
/* Frees w (set1 too) and clears out unless rc is 0; returns rc. */
int massey_work_clear(massey_work *w, int rc, massey_table *out);
/* br for c's bracket at (ts, tt): bidegrees (in the module's stems), c's vector (taken from c),
 * rep zeroed over the generators there. 0, or -1 out of memory. */
int massey_bracket_start(massey_bracket *br, const resolution *res, massey_pending *c, int ts, deg_t tt);

/* Odd primes (stages/products/massey_p.c): the same brackets over F_p for res at an odd prime, its own
 * unit (F_p over its algebra: S_3, S_5), in one process; a and b in res's region with s >= 1,
 * coordinates 0..p-1. The homotopy h satisfies d h + h d = f_b f_c (y = f_b f_c(z) − h(d z)),
 * the representative is a ∘ h with no further sign, vectors and indeterminacy rows have entries
 * 0..p-1 (the indeterminacy in RREF, the representative reduced by it). Returns as
 * massey_compute. */
int massey_compute_p(const resolution *res, const product_class *a, const product_class *b, const char *lift_dir,
                     const chain_runner *runner, massey_table *out, char *err, size_t errlen);

/* sseq's massey output, one line per bracket that does not contain 0:
 * "<a, b, x_(n, s, [c])> = [rep] + {indeterminacy rows joined by ", "}". 0 or -1. */
int massey_write_sseq(FILE *out, const massey_table *t);
/* massey-A-B.csv (schema/massey-csv.md): every bracket computed (at an odd prime p < 10 the
 * vectors are strings of digits 0..p-1). 0 or -1. */
int massey_write_csv(FILE *out, const massey_table *t, const char *aname, const char *bname);

#endif
