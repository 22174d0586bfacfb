/* mahowald.h — algebraic Mahowald invariants (root invariants) of the classes of Ext_A(F2, F2)
 * through the stunted projective spaces RP_{-k}^∞ (docs/mahowald.md).
 *
 * Maths. P_k = H^*(RP_{-k}^∞) = F2{x^e : e >= -k}. Two maps of A-modules leave P_k:
 *   the (-1)-cell  φ_k : P_k -> Σ^{-1} F2,  x^{-1} -> ι  (the map S^{-1} -> RP_{-k}^∞),
 *   the bottom cell ψ_k : P_k -> Σ^{-k} F2,  x^{-k} -> ι  (the cell S^{-k} -> RP_{-k}^∞),
 * classes of Ext^{0,-1}(P_k) and Ext^{0,-k}(P_k) dual to the generators x^{-1} and x^{-k} of
 * P_k's F_0. Lifted into the resolution of F2 (products over a module with S_2 as unit), they
 * give φ_k^* : Ext^{s,t}(F2) -> Ext^{s,t-1}(P_k) and ψ_k^* : Ext^{s,t+k-1}(F2) -> Ext^{s,t-1}(P_k).
 * For a class x of Ext^{s,t}(F2), the smallest k with φ_k^*(x) != 0 is the one where that
 * image lies in the image of ψ_k^* (the exact sequence of 0 -> P_{k-1} -> P_k -> Σ^{-k} F2 -> 0
 * in Ext), and M(x) is the coset ψ_k^{*-1}(φ_k^*(x)), a class of Ext^{s,t+k-1}(F2) modulo the
 * kernel of ψ_k^* there. At each k and bidegree this module takes the matrix of ψ_k^* (one row
 * per generator of S_2's F_s in degree t+k-1, over P_k's generators in degree t-1) and row
 * reduces [ψ | I] (the reduced echelon form, unique): the I-parts of its zero rows are the
 * kernel's reduced basis, and the preimage of v is the sum of the I-parts of the pivot rows at
 * v's pivot columns (the one preimage vanishing at the kernel basis's pivots, whatever P_k's
 * basis), as sseq's mahowald_invariant chooses it.
 *
 * Data. The induced maps come as rows of a module-products.csv (schema/products-csv.md):
 * "name,name_n,name_s,n,s,i,k" says P_k's class k at (n + name_n, s) is in name · x_(n,s,i);
 * dimensions as ext.csv rows "s,n,dim" (absent: 0). Vectors are byte arrays (dimensions in
 * the low range this is run over are small: at most MAHOWALD_MAX_DIM generators a bidegree).
 */
#ifndef EXTFLOW_MAHOWALD_H
#define EXTFLOW_MAHOWALD_H
#include <stdint.h>
#include <stdio.h>

#define MAHOWALD_MAX_DIM 256

/* ext.csv read: dim of Ext^{s} at stem n (module degrees), for s in [0, max_s] and n in
 * [min_n, max_n]; 0 outside. */
typedef struct mahowald_ext {
    int min_n, max_n, max_s;
    uint32_t *dim;              /* (max_s + 1) x (max_n - min_n + 1) */
} mahowald_ext;

/* One induced map's rows: x_(n, s, i) of S_2 -> class j of the module at (n + shift, s). */
typedef struct mahowald_entry { int n, s; uint32_t i, j; } mahowald_entry;
typedef struct mahowald_map {
    int shift;                  /* name_n: -1 for φ, -k for ψ */
    size_t len, cap;
    mahowald_entry *e;
} mahowald_map;

/* 0, or -1 with one line in err (file unreadable or not such a table). */
int mahowald_read_ext(const char *path, mahowald_ext *x, char *err, size_t errlen);
uint32_t mahowald_ext_dim(const mahowald_ext *x, int n, int s);
void mahowald_ext_clear(mahowald_ext *x);
/* The rows of module-products.csv at path named name into *m (shift set from name_n); 0, or -1
 * with one line in err. A name with no rows gives an empty map (all images zero). */
int mahowald_read_map(const char *path, const char *name, mahowald_map *m, char *err, size_t errlen);
void mahowald_map_clear(mahowald_map *m);
/* v (dim bytes, zeroed here) = the image of x_(n, s, i) under m. */
void mahowald_map_image(const mahowald_map *m, int n, int s, uint32_t i, uint8_t *v, uint32_t dim);

/* One invariant found: M(x_(n, s, i)) detected at k, in Ext^s at stem n + k - 1: the chosen
 * class inv[0..dim) and the indeterminacy's reduced basis ker[r * dim ..], r < nker. */
typedef struct mahowald_result {
    int n, s, k;
    uint32_t i, dim, nker;
    uint8_t inv[MAHOWALD_MAX_DIM];
    uint8_t *ker;               /* malloc'd nker x dim (NULL when nker = 0) */
} mahowald_result;

/* The invariants detected at k: for every stem n in [0, max_n] and s in [0, max_s] (the region
 * of P_k's resolution read through the stem n - 1 <= k - 2), every class x_(n, s, i) of S_2
 * (dimensions in s2) with phi(x) != 0 inside ψ's image; phi and psi the maps of P_k (dims in pk).
 * Calls found(ctx, r) for each in order (n, then s, then i); returns how many, or -1 when a
 * bidegree is larger than MAHOWALD_MAX_DIM or found failed (err says why). *early (when not
 * NULL) counts the classes whose image is non-zero but not from the bottom cell at the first k
 * whose region holds them (k = max(1, n + 1, 2s - 2)): detected at a smaller k than the region
 * looks at, so never reported (none is expected: sseq's bounds). */
long mahowald_detect(int k, int max_n, int max_s, const mahowald_ext *s2, const mahowald_ext *pk,
                     const mahowald_map *phi, const mahowald_map *psi,
                     int (*found)(void *ctx, const mahowald_result *r), void *ctx, long *early, char *err,
                     size_t errlen);

/* sseq's line for r: "M(x_(s, t, i)) = x_(s, T, j) + ...[ mod <...>]" (t = n + s, T = t + k - 1). */
int mahowald_write_sseq_line(FILE *out, const mahowald_result *r);
/* Our CSV row for r: n,s,i,k,mn,ms,invariant,indeterminacy (mahowald_csv_header). */
#define MAHOWALD_CSV_HEADER "n,s,i,k,mn,ms,invariant,indeterminacy"
int mahowald_write_csv_row(FILE *out, const mahowald_result *r);

#endif
