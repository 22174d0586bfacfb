/* stexpr.h — expressions in the mod p Steenrod algebra A_p: parsed, evaluated with the Milnor
 * product, and written in the Milnor or the admissible basis (`extflow algebra --eval`;
 * docs/algorithms.md §12.3).
 *
 * Grammar (spaces allowed between tokens, not inside a number or after a bare name):
 *     expr    = term { ("+" | "-") term }
 *     term    = factor { ["*"] factor }         a factor next to another multiplies
 *     factor  = { "+" | "-" } primary
 *     primary = INT | gen | "(" expr ")"
 *     gen     = "Sq(" [INT {"," INT}] ")"       Milnor Sq(r1, r2, ...)            p = 2
 *             | "Sq^" INT | "Sq" INT            Sq^a = Sq(a)                       p = 2
 *             | "P(" [INT {"," INT}] ")"        Milnor P(r1, r2, ...)             odd p
 *             | "P^" INT | "P" INT              P^s = P(s)                         odd p
 *             | "Q_" INT | "Q(" INT ")" | "Q" INT   Milnor's Q_i (at p = 2: Sq(0,...,0,1),
 *                                                the 1 in slot i + 1)
 *             | "b" | "beta"                    the Bockstein, Q_0                 odd p
 * An INT alone is that multiple of the unit, read mod p. So the admissible monomial
 * "Sq^4 Sq^2" and the Milnor product "Sq(4)*Sq(2)" are the same expression, and whatever
 * stexpr_format writes parses back to the same element. Elements need not be homogeneous.
 * Parentheses nest at most STEXPR_MAX_DEPTH deep; every product's degree is at most the limit
 * given (the bound is the sum of the factors' largest degrees, before any cancellation).
 *
 * Layout. A value is a vector of Milnor coefficients (bytes, 0..p-1) per degree 0..top; v[d]
 * is NULL where the value has no term of degree d. Evaluation runs in two passes over the text:
 * the first checks it and finds top without a basis, the second evaluates over an adm_alg
 * built through top.
 */
#ifndef EXTFLOW_STEXPR_H
#define EXTFLOW_STEXPR_H
#include <stddef.h>
#include <stdint.h>

#include "algebra/admissible.h"

#define STEXPR_MAX_DEPTH 64
#define STEXPR_BAD (-2)

typedef struct stexpr_val {
    deg_t top;
    uint8_t **v;                     /* top + 1 entries (dim[d] bytes each, or NULL) */
} stexpr_val;

typedef struct stexpr_error {
    size_t pos;                      /* offset of the offending character in the text */
    char msg[200];
} stexpr_error;

/* The largest degree text can reach at prime p (the first pass): 0 and *top, or STEXPR_BAD
 * with err set (a syntax error, a generator not of this prime, a degree above limit). */
int stexpr_check(const char *text, uint32_t p, deg_t limit, deg_t *top, stexpr_error *err);
/* Evaluates text over A (built through at least the top stexpr_check found) into *out (the
 * caller clears it with stexpr_val_clear). 0, STEXPR_BAD with err set, or -1 out of memory. */
int stexpr_eval(const char *text, adm_alg *A, stexpr_val *out, stexpr_error *err);
void stexpr_val_clear(stexpr_val *v);

enum stexpr_basis { STEXPR_MILNOR, STEXPR_ADMISSIBLE };
/* The value as text, malloc'ed: its terms joined by " + ", degree by degree increasing and, in
 * a degree, in the basis's order (admissible.h); a coefficient c != 1 written "c " before its
 * element; "0" for zero. NULL when out of memory. */
char *stexpr_format(adm_alg *A, const stexpr_val *v, enum stexpr_basis basis);

#endif
