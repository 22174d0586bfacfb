/* admissible.h — the admissible (Cartan-Serre, "Adem") basis of the mod p Steenrod algebra at
 * every prime, and the change of basis to and from the Milnor basis (docs/algorithms.md §12).
 *
 * Maths. At p = 2 the admissible monomials are Sq^{a_1} Sq^{a_2} ... Sq^{a_k} with
 * a_i >= 2 a_{i+1} and a_k >= 1 (k = 0: the unit), of degree sum a_i. At an odd prime they are
 * b^{e_0} P^{s_1} b^{e_1} P^{s_2} ... P^{s_k} b^{e_k} (b = the Bockstein beta, e_i in {0, 1})
 * with s_i >= p s_{i+1} + e_i and s_k >= 1, of degree sum e_i + 2(p - 1) sum s_i. Both lists
 * are bases of A_p (Serre, Cartan), so each degree has as many admissible monomials as Milnor
 * basis elements. In the Milnor basis Sq^a = Sq(a), P^s = P(s), b = Q_0, so a monomial's Milnor
 * expansion is a product of Milnor elements, computed with the Milnor product of milnor.h /
 * milnor_p.h (no other product here). The expansions of one degree are the rows of an
 * invertible square matrix M (admissible x Milnor); Milnor -> admissible solves x M = y by
 * the RREF of [M | 0 | I] (f2mat at p = 2, fpmat at odd p) and its quasi-inverse.
 *
 * Order. The monomials of a degree are listed in increasing lexicographic order of their
 * exponent sequences, (a_1, a_2, ...) at p = 2 and (e_0, s_1, e_1, s_2, e_2, ...) at odd p (a
 * sequence before its extensions): degree 4 at p = 2 is Sq^3 Sq^1, Sq^4; degree 5 at p = 3 is
 * P^1 b, b P^1. An admissible monomial's index is its position there. Milnor elements keep
 * milnor.h's and milnor_p.h's order and index.
 *
 * Layout. An adm_alg holds the prime, the Milnor basis through max_degree (milnor_basis at p =
 * 2, milnor_p_basis at odd p) and, per degree, built on first use: the monomials (adm_mono), M
 * as dim x dim bytes (row i: the Milnor coefficients of monomial i, each 0..p-1) and M's
 * quasi-inverse. Vectors of one degree are arrays of dim bytes, coefficients 0..p-1, over the
 * Milnor or the admissible basis of that degree.
 */
#ifndef EXTFLOW_ADMISSIBLE_H
#define EXTFLOW_ADMISSIBLE_H
#include <stddef.h>
#include <stdint.h>

#include "algebra/f2mat.h"
#include "algebra/fpmat.h"
#include "algebra/milnor.h"
#include "algebra/milnor_p.h"

#define ADM_MAX_LEN 12               /* k < 12: 2^k - 1 <= degree < 2047 */

/* One admissible monomial: s[0..len) = a_1..a_k (p = 2) or s_1..s_k, e[0..len] = e_0..e_k
 * (all 0 at p = 2); entries past len are 0. */
typedef struct adm_mono {
    uint32_t len;
    uint32_t s[ADM_MAX_LEN];
    uint8_t e[ADM_MAX_LEN + 1];
    deg_t degree;
} adm_mono;

typedef struct adm_degree {
    int built;                       /* monomials and M made */
    int solved;                      /* quasi-inverse made */
    uint32_t dim;
    adm_mono *mono;                  /* dim monomials, in order */
    uint8_t *m;                      /* M: dim x dim bytes, row-major */
    f2qi qi2;                        /* p = 2 */
    fpqi qip;                        /* odd p */
} adm_degree;

typedef struct adm_alg {
    uint32_t p;
    deg_t max_degree;
    milnor_basis m2;                 /* p = 2 */
    milnor_p_basis mp;               /* odd p */
    const uint32_t *dim;             /* Milnor (= admissible) dims, 0..max_degree */
    adm_degree *deg;                 /* max_degree + 1 entries */
} adm_alg;

/* p = 2 or an odd prime <= FPMAT_MAX_PRIME? */
int adm_prime_ok(uint32_t p);
/* The Milnor basis of A_p through max_degree (<= MILNOR_MAX_DEGREE at p = 2,
 * MILNOR_P_MAX_DEGREE at odd p); admissible tables come later, on demand. 0, or -1 on bad
 * arguments or out of memory (A zeroed). adm_alg_clear is safe on a zeroed struct. */
int adm_alg_init(adm_alg *A, uint32_t p, deg_t max_degree);
void adm_alg_clear(adm_alg *A);

/* The Milnor element Q(E)P(R) (Sq(R) at p = 2; qmask = E, which must be 0 at p = 2), R = r[0..n):
 * its degree into *d and index into *idx. 0, or -1 when its degree exceeds max_degree (or a
 * slot or Q_k lies beyond the basis's tables). */
int adm_milnor_find(const adm_alg *A, uint32_t qmask, const uint32_t *r, int n, deg_t *d, uint32_t *idx);
/* Degree of Q(E)P(R) at prime p without a basis (UINT64_MAX-safe: saturates past 2^62). */
uint64_t adm_milnor_degree(uint32_t p, uint32_t qmask, const uint32_t *r, int n);
/* out (over Milnor degree dx + dy <= max_degree) += c X·Y, X = element ix of degree dx,
 * Y = element iy of degree dy, 0 < c < p. */
void adm_milnor_mul(const adm_alg *A, deg_t dx, uint32_t ix, deg_t dy, uint32_t iy, uint32_t c, uint8_t *out);
/* Milnor element i of degree d as "Sq(1,2)" (p = 2) or "Q_0 P(1, 2)" (odd p); the unit "1". */
char *adm_milnor_format(const adm_alg *A, deg_t d, uint32_t i, char *buf, size_t size);

/* Degree d's admissible table, built on first use (with those of lower degrees it needs);
 * NULL when out of memory or d is out of range. */
const adm_degree *adm_degree_get(adm_alg *A, deg_t d);
/* m (Milnor coefficients of degree d) += the Milnor expansion of a (admissible coefficients).
 * 0, or -1 out of memory. */
int adm_to_milnor(adm_alg *A, deg_t d, const uint8_t *a, uint8_t *m);
/* a (admissible coefficients of degree d) = the element whose Milnor coefficients are m.
 * 0, or -1 out of memory (or M singular, which would be a bug). */
int adm_from_milnor(adm_alg *A, deg_t d, const uint8_t *m, uint8_t *a);

/* Is x admissible at prime p (the inequalities above, degree consistent)? */
int adm_mono_ok(uint32_t p, const adm_mono *x);
/* Lexicographic comparison of the exponent sequences (the order above): <0, 0, >0. */
int adm_mono_cmp(const adm_mono *x, const adm_mono *y);
/* Index of x in its degree's table (which must be built), or UINT32_MAX when absent. */
uint32_t adm_mono_index(const adm_degree *D, const adm_mono *x);
/* "Sq^3 Sq^1" (p = 2), "b P^3 b P^1" (odd p); the unit "1". */
char *adm_mono_format(uint32_t p, const adm_mono *x, char *buf, size_t size);

/* Number of admissible monomials of each degree 0..max_degree, by a counting recurrence on the
 * first exponent (no list). 0, or -1 on bad arguments or out of memory. */
int adm_count_dims(uint32_t p, deg_t max_degree, uint64_t *dim);

#endif
