/* bruner.h — a resolution of the sphere in R. R. Bruner's file format: one text file Diff.s per
 * homological degree s, the format his programs (and sseq's save_bruner example) write and read
 * (schema/bruner-diff.md).
 *
 * Maths. Row s of a minimal resolution is free on generators g, each with d(g) = sum over the
 * generators h of row s - 1 of a_h h, a_h in A of degree |g| - |h|; a_h is written as a sum of
 * Milnor basis elements Sq(r_1, ..., r_k).
 *
 * Layout of Diff.s (every line ends in "\n"; "_" below is one space):
 *     s=S__n=N                       the row and its number of generators, then an empty line
 *     G_:_T                          generator G (0, 1, ... in the order of the row: by degree T,
 *                                    then index), then an empty line
 *     L                              how many h have a_h != 0
 *     H_D_M_i(r1,r2)(r1)...(...).    one line per such h, by H: its number in Diff.(s-1), the
 *                                    degree D = T - |h| of a_h, M = dim A_D, and a_h's Milnor
 *                                    elements in the Milnor basis's order, each "(r1,...,rk)"
 *     then two empty lines after the block.
 * Diff.0 has the one generator of degree 0 with the block "1", "0 0 1 i(0).". Generators are
 * those of DIR's complete region, row by row.
 *
 * Reading (bruner compare). Bruner's own files, hDiff.s, differ only in their headers: line 1
 * is "N TMAX" (spaces before and after; the row is complete through t = TMAX), a block opens with its degree "T " alone; sseq's
 * Diff.s copies of them put a space after T. bruner_read takes both layouts and any number of
 * empty lines between the lines that carry something.
 *
 * Comparing. Two minimal resolutions of F2 are isomorphic, but their generators and the
 * coefficients of their differentials depend on the bases chosen. What does not: the number
 * of generators in each bidegree (s, t) (dim Ext^{s,t}), and, for each i, the rank of the
 * matrix of coefficients of Sq(2^i) in d(g) on h, g of degree t in row s, h of degree t - 2^i
 * in row s - 1. Sq(2^i) is the only Milnor basis element not in I(A)^2 in its degree (it is
 * dual to the primitive xi_1^{2^i}), so over a minimal resolution that matrix is the matrix of
 * h_i: Ext^{s-1,t-2^i} -> Ext^{s,t} in the two dual bases: its rank is the rank of h_i
 * multiplication, a change of basis leaves it alone. bruner_compare checks both. And
 * bruner_check_exact checks that the file's complex is a minimal resolution at all (d∘d = 0,
 * exact): two minimal resolutions of F2 are isomorphic through the region they both cover, so
 * with the counts equal the two are the same resolution up to a change of basis.
 *
 * Change of basis (bruner compare --sseq-formats). Over two minimal resolutions F' (the file's)
 * and F (ours) of F2, the identity of F2 lifts to a chain map f: F' -> F, row by row: f_0 the
 * identity of A, and for a generator g of F'_s, f_s(g) any z in F_s of degree |g| with
 * d(z) = f_{s-1}(d g) (it exists: f_{s-1}(d g) is a cycle, as d f_{s-1} = f_{s-2} d, and F is
 * exact). Two choices of z differ by a cycle, a boundary, which lies in I(A) F_s as F is
 * minimal: so the coefficient of each generator x of F_s of degree |g| in f_s(g) does not
 * depend on the choices. These coefficients form the matrix of Hom(f, F2) on Ext^{s,t}
 * (invertible: f is an isomorphism of complexes up to homotopy, and minimal resolutions have
 * zero differentials on Hom(-, F2)): the dual basis x^* of our classes written in the file's
 * dual basis. z is found by a quasi-inverse of d_s on F_{s,t} over the Milnor basis, and d(z)
 * is checked.
 *
 * bruner_res holds what the comparison reads: per row s, each generator's degree and its
 * Sq(2^i) entries (h, i) in CSR form (hit_h/hit_i[first[g] .. first[g+1])).
 */
#ifndef EXTFLOW_BRUNER_H
#define EXTFLOW_BRUNER_H
#include <stdio.h>
#include "stages/resolve/resolution.h"

/* Diff.s of res (S_2, p = 2) to f: 0, or -1 on a write error. */
int bruner_write_diff(FILE *f, const resolution *res, int s);

typedef struct bruner_row {
    uint32_t n;             /* generators, numbered 0 .. n-1 as in the file */
    deg_t tmax;             /* hDiff.s's TMAX: the row holds every generator of degree <= tmax;
                             * -1 when the file does not say (Diff.s) */
    deg_t *deg;             /* deg[g] */
    uint32_t *first;        /* n + 1 offsets into hit_h, hit_i */
    uint32_t *hit_h;        /* h: a generator of row s - 1 whose coefficient holds Sq(2^i) */
    uint8_t *hit_i;         /* that i */
    uint32_t nhits, cap;
    /* read from a file only (bruner_read): every term a Sq(R) on h of each d(g), in CSR form */
    uint32_t *tfirst;       /* n + 1 offsets into term_h, term_e */
    uint32_t *term_h;
    milnor_elt *term_e;
    uint32_t nterms, tcap;
} bruner_row;
typedef struct bruner_res {
    int nrows;              /* rows s = 0 .. nrows - 1 */
    bruner_row *rows;
} bruner_res;

/* BRUNERDIR's Diff.0, Diff.1, ... (or hDiff.0, ... when there is no Diff.0), read up to the
 * first one missing, each checked: the header, the blocks' count, every line's H (a generator
 * of the row below), D = T - |h| > 0 (a minimal resolution), M = dim A_D, each Milnor element
 * of degree D. 0; or -1 with "FILE:LINE: what" in err (FILE a path under dir). */
int bruner_read(const char *dir, bruner_res *b, char *err, size_t errlen);
/* The same data taken from res (S_2, p = 2): its complete region, numbered as
 * bruner_write_diff numbers it; with_terms: also every term of each d(g), as bruner_read keeps
 * them (for bruner_basis_change). 0, or -1 out of memory. */
int bruner_from_resolution(const resolution *res, bruner_res *b, int with_terms);
void bruner_free(bruner_res *b);
/* That b (read by bruner_read) is a minimal resolution of F2 in rows 0 .. nrows - 1, row s
 * through stem last_stem[s]: d(d(g)) = 0 for each generator g, and exactness at F_s in each
 * degree t where row s + 1 is complete: rank d_{s+1} + rank d_s = dim F_{s,t} (rank d_1 =
 * dim A_t for t > 0 at s = 0), the ranks over the Milnor basis of F_s in degree t (sums of
 * dim A_{t - |g|}), products by milnor_mul_into. Checked bidegree by bidegree in
 * bruner_compare's order: 0 when it is; 1 with the first failure as one line in msg
 * (naming bname); -1 out of memory. */
int bruner_check_exact(const bruner_res *b, int nrows, const int *last_stem, const char *bname, char *msg,
                       size_t msglen);
/* a and b compared in rows 0 .. nrows - 1 (at most both's rows), row s through stem
 * last_stem[s], bidegrees by stem, then s: 0 when they agree (*nbideg bidegrees compared);
 * 1 with the first difference as one line in msg ("(n, s) = ...: ..."); -1 out of memory. */
int bruner_compare(const bruner_res *a, const bruner_res *b, int nrows, const int *last_stem, const char *aname,
                   const char *bname, char *msg, size_t msglen, uint64_t *nbideg);

/* The change of basis between b (read by bruner_read) and a (bruner_from_resolution with its
 * terms), both minimal resolutions that agree (bruner_compare, bruner_check_exact) in rows
 * 0 .. nrows - 1, row s through stem last_stem[s]: the chain map f: b -> a lifting the identity
 * of F2 ("Change of basis" above), and on out what sseq's bruner example prints of it: the line
 * "sseq_basis | bruner_basis", then per bidegree by stem, then s, per generator x_i of a there,
 * "x_(n,s,i) = [c_0, c_1, ...]": c_j the coefficient of x_i in f(b_j), b_j the j-th generator
 * of b there (file order). 0; 1 with one line in msg (naming bname) when b's differential of a
 * generator has no lift (not a resolution there); -1 out of memory or a write error. */
int bruner_basis_change(const bruner_res *a, const bruner_res *b, int nrows, const int *last_stem, const char *bname,
                        FILE *out, char *msg, size_t msglen);

#endif
