/* secondary.h — Adams d2 of a resolved region from the secondary Steenrod algebra
 * (algebra/pair_algebra.h), the method of Baues–Jibladze in the form D. Chua gives it
 * (arXiv:2105.07628); docs/secondary.md explains it in our words.
 *
 * Maths. Lift each differential d_s of the minimal resolution to B0 by σ on its Milnor
 * coefficients. σ(d)σ(d) is no longer zero; for a generator g of F_s (s >= 2) in degree T its
 * defect is the COMPOSITE
 *
 *     C(g) = sum over terms b·g' of d g and c·g'' of d g' of σ(b)σ(c)·g''      (g'' in F_{s-2})
 *
 * one finalized pair element per g'' (the odd parts cancel because d∘d = 0). For z in F_s,
 * s >= 3, in degree T, the INTERMEDIATE is the element of F_{s-3} in degree T - 1
 *
 *     I(z) = sum over terms a·g' of d z of A(a, C(g')),
 *
 * and the HOMOTOPY h_s : F_s -> F_{s-2} of degree -1 (h_2 = 0) solves
 *
 *     d h_s(z) = I(z) + h_{s-1}(d z),
 *
 * a lift in the sense of stages/lift.h: a map with s0 = 2, internal shift t0 = 1, a zero bottom
 * row and I as its extra term (lift_map.extra), so it runs as the same DAG of steps, with the
 * same stage files (key "d2") and resume. d2 is the dual of h on generators: for x = x_(n,s,i),
 * dual to the generator y_i of F_s in degree t = n + s, the coefficient of x_(n-1, s+2, k) in
 * d2(x) is the coefficient of y_i's unit in h_{s+2}(z_k), z_k the k-th generator of F_{s+2} in
 * degree t + 1 (lift_product_bit). A class is in range when (s, t) and (s+2, t+1) are resolved.
 * A module must allow h_2 = 0 (true for the sphere and, as sseq checks, for C2 and the tmf
 * module); otherwise the lift at s = 3 finds I(z) outside the image of d_1 and the run fails.
 *
 * Data. Composites live in memory per generator, cell (s, T) of the resolution (s >= 2), a list
 * of (g'' = generator (w, index) of F_{s-2}, pair element of degree T - w); they are computed
 * per cell, independently (secondary_composite_cell), before the homotopy runs.
 */
#ifndef EXTFLOW_SECONDARY_H
#define EXTFLOW_SECONDARY_H
#include <stdio.h>
#include "algebra/pair_algebra.h"
#include "stages/lift.h"

typedef struct sec_term {
    deg_t w;                    /* g'': generator (w, index) of F_{s-2} */
    uint32_t index;
    pair_elt e;                 /* degree T - w */
} sec_term;

typedef struct sec_composite {
    uint32_t n;
    sec_term *terms;
} sec_composite;

typedef struct secondary {
    const resolution *res;
    pair_ay_cache cache;
    sec_composite **comp;       /* per cell res_cell(s, T), s >= 2: ngens(s, T) composites */
    lift_set set;               /* map 0: the homotopy h (key "d2") */
    pthread_mutex_t lock;
    int failed;
    char error[600];
    long composites;            /* generators whose composite was computed */
    double composite_seconds, homotopy_seconds;   /* wall time of the two phases (rt_secondary) */
} secondary;

/* Sets up d2 over res (a complete resolution of S_2 or of a module, over the whole of A):
 * outdir non-empty keeps the homotopy's stage files there. 0; -1 out of memory; -2 when d2 is
 * not for this resolution (a profile's; a finite module for which h_2 = 0 is not valid, by the
 * test sseq uses: no Ext^{2,t+1}, or no Ext^{3,t+1}, at any degree t of the module but its top):
 * error says why. */
int secondary_init(secondary *sec, const resolution *res, const char *outdir, char *error, size_t errlen);
void secondary_clear(secondary *sec);
/* Does the composite of cell (s, T) have to be computed (some homotopy step reads it)? */
int secondary_needs_composite(const secondary *sec, int s, deg_t T);
/* The composites of the generators at (s, T), s >= 2. 0, or -1 (sec->error says why). */
int secondary_composite_cell(secondary *sec, int s, deg_t T);
int secondary_failed(secondary *sec);

/* Is d2 of the classes at (s, t) computed (both ends resolved, s >= 1)? */
int secondary_in_range(const secondary *sec, int s, deg_t t);
/* Coefficient of x_(s+2, t+1, k) in d2 x_(s, t, i). */
int secondary_d2_bit(const secondary *sec, int s, deg_t t, uint32_t i, uint32_t k);

/* DIR/d2.csv (schema/d2-csv.md): every class in range, stems in the module's degrees. 0 or -1. */
int secondary_write_csv(FILE *out, const secondary *sec);
/* sseq's `secondary` output for the same region (without its command line). 0 or -1. */
int secondary_write_sseq(FILE *out, const secondary *sec);

#endif
