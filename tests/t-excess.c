/* t-excess.c — TAP tests of the excess order of the Milnor basis (algebra/excess.c), on which the
 * free unstable modules of resolve --unstable stand (docs/unstable.md).
 *
 * 1. excess_block(d, n) = the number of R with sum r_i (2^i - 1) = d and sum r_i <= n, counted here
 *    by a recursion over the slots that never looks at the basis tables (d <= COUNT_DEG).
 * 2. order is a permutation of each degree's basis, rank its inverse, the excess never decreases
 *    along it, and ties keep the index order.
 * 3. The elements of excess > n span a left ideal: every term of Sq(S)·Sq(R) with e(R) > n has
 *    excess > n (|S| + |R| <= IDEAL_DEG, all pairs). A free unstable module's products are then
 *    the Milnor products with the terms of excess > n dropped (what the resolution does).
 * 4-6. The same at p = 3 and 5 (excess #E + 2 sum r_i of Q(E)P(R)): excess_block(d, n) equals the
 *    number of admissible monomials b^e0 P^s1 ... P^sk b^ek of degree d (algebra/admissible.c's
 *    list) of excess 2 s1 + e0 - (e1 + ... + ek) - 2(p - 1)(s2 + ... + sk) <= n, the dimension of
 *    F(n) in degree n + d by the admissible basis (docs/unstable.md); the order as in 2; the left
 *    ideal as in 3 (|X| + |Y| <= ODD_IDEAL_DEG).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "algebra/admissible.h"
#include "algebra/excess.h"
#include "algebra/milnor.h"
#include "tests/tap.h"

#define COUNT_DEG 80
#define IDEAL_DEG 40
#define ODD_COUNT_DEG 300
#define ODD_IDEAL_DEG 200

/* R's of degree `left` in slots 0..slot (|xi_{i+1}| = 2^{i+1} - 1) with excess <= room. */
static uint64_t count(int slot, int left, int room)
{
    if (left == 0) return 1;
    if (slot < 0 || room < 0) return 0;
    int xi = (1 << (slot + 1)) - 1;
    uint64_t n = 0;
    for (int r = 0; r * xi <= left && r <= room; r++) n += count(slot - 1, left - r * xi, room - r);
    return n;
}

struct ideal_check { uint32_t n; int bad; };
static void check_term(const milnor_elt *T, void *ctx)
{
    struct ideal_check *c = ctx;
    if (milnor_excess_of(T) <= c->n) c->bad = 1;
}

/* Excess of an admissible monomial at an odd prime p. */
static int64_t adm_excess(uint32_t p, const adm_mono *x)
{
    if (x->len == 0) return x->e[0];
    int64_t e = 2 * (int64_t)x->s[0] + x->e[0];
    for (uint32_t i = 1; i <= x->len; i++) e -= x->e[i];
    for (uint32_t i = 1; i < x->len; i++) e -= 2 * (int64_t)(p - 1) * x->s[i];
    return e;
}

struct ideal_check_p { uint32_t n; int bad; };
static void check_term_p(uint32_t c, const milnor_p_elt *T, void *ctx)
{
    (void)c;
    struct ideal_check_p *k = ctx;
    if (milnor_p_excess_of(T) <= k->n) k->bad = 1;
}

/* Tests 4-6 at the odd prime p. */
static void odd_prime(uint32_t p)
{
    adm_alg A;
    milnor_excess X;
    if (adm_alg_init(&A, p, ODD_COUNT_DEG) != 0 || excess_init_p(&X, &A.mp) != 0) bail("tables at an odd prime");
    int bad = 0;
    uint64_t monos = 0;
    for (deg_t d = 0; d <= ODD_COUNT_DEG && !bad; d++) {
        const adm_degree *D = adm_degree_get(&A, d);
        if (!D) bail("an admissible basis");
        for (deg_t n = 0; n <= d + 1 && !bad; n++) {
            uint32_t want = 0;
            for (uint32_t k = 0; k < D->dim; k++) want += adm_excess(p, &D->mono[k]) <= n;
            if (excess_block(&X, d, n) != want) {
                diag("p = %u, degree %d, excess <= %d: %u, admissible %u", p, d, n, excess_block(&X, d, n), want);
                bad = 1;
            }
        }
        monos += D->dim;
    }
    ok(!bad, "p = %u: excess_block(d, n) = #admissible monomials of degree d, excess <= n (d <= %d, %llu monomials)", p,
       ODD_COUNT_DEG, (unsigned long long)monos);

    bad = 0;
    for (deg_t d = 0; d <= ODD_COUNT_DEG && !bad; d++)
        for (uint32_t k = 0; k < A.mp.dim[d] && !bad; k++) {
            uint32_t j = excess_index(&X, d, k);
            if (j >= A.mp.dim[d] || excess_rank(&X, d, j) != k) bad = 1;
            if (k > 0) {
                uint32_t i = excess_index(&X, d, k - 1), e0 = milnor_p_excess_of(&A.mp.elts[d][i]),
                         e1 = milnor_p_excess_of(&A.mp.elts[d][j]);
                if (e0 > e1 || (e0 == e1 && i >= j)) bad = 1;
            }
            if (bad) diag("p = %u, degree %d, position %u", p, d, k);
        }
    ok(!bad, "p = %u: the excess order is a permutation sorted by excess, ties by index", p);

    bad = 0;
    uint64_t pairs = 0;
    for (deg_t dx = 0; dx <= ODD_IDEAL_DEG && !bad; dx++)
        for (deg_t dy = 1; dx + dy <= ODD_IDEAL_DEG && !bad; dy++)
            for (uint32_t i = 0; i < A.mp.dim[dx] && !bad; i++)
                for (uint32_t j = 0; j < A.mp.dim[dy] && !bad; j++) {
                    const milnor_p_elt *x = &A.mp.elts[dx][i], *y = &A.mp.elts[dy][j];
                    /* the lowest excess of a term, against every n below y's excess at once */
                    struct ideal_check_p c = { milnor_p_excess_of(y) - 1, 0 };
                    if (milnor_p_excess_of(y) == 0) continue;
                    milnor_p_mul_each(&A.mp, x, y, check_term_p, &c);
                    pairs++;
                    if (c.bad) {
                        char a[128], b[128];
                        diag("p = %u: %s * %s has a term of excess < %u", p, milnor_p_elt_format(x, a, sizeof a),
                             milnor_p_elt_format(y, b, sizeof b), milnor_p_excess_of(y));
                        bad = 1;
                    }
                }
    ok(!bad, "p = %u: X·Y has no term of excess < e(Y) (|X| + |Y| <= %d, %llu pairs)", p, ODD_IDEAL_DEG,
       (unsigned long long)pairs);
    excess_clear(&X);
    adm_alg_clear(&A);
}

int main(void)
{
    milnor_basis A;
    milnor_excess X;
    plan(9);
    if (milnor_basis_init(&A, COUNT_DEG, NULL) != 0 || excess_init(&X, &A) != 0) bail("tables");

    int bad = 0;
    for (deg_t d = 0; d <= COUNT_DEG && !bad; d++)
        for (deg_t n = 0; n <= d + 1 && !bad; n++) {
            uint64_t want = count(9, d, n);
            if (excess_block(&X, d, n) != want) {
                diag("degree %d, excess <= %d: %u, counted %llu", d, n, excess_block(&X, d, n),
                     (unsigned long long)want);
                bad = 1;
            }
        }
    ok(!bad, "excess_block counts the Sq(R) of excess <= n in every degree <= %d", COUNT_DEG);

    bad = 0;
    for (deg_t d = 0; d <= COUNT_DEG && !bad; d++)
        for (uint32_t k = 0; k < A.dim[d] && !bad; k++) {
            uint32_t j = excess_index(&X, d, k);
            if (j >= A.dim[d] || excess_rank(&X, d, j) != k) bad = 1;
            if (k > 0) {
                uint32_t i = excess_index(&X, d, k - 1), e0 = milnor_excess_of(&A.elts[d][i]),
                         e1 = milnor_excess_of(&A.elts[d][j]);
                if (e0 > e1 || (e0 == e1 && i >= j)) bad = 1;
            }
            if (bad) diag("degree %d, position %u", d, k);
        }
    ok(!bad, "the excess order is a permutation sorted by excess, ties by index");

    bad = 0;
    for (deg_t ds = 0; ds <= IDEAL_DEG && !bad; ds++)
        for (deg_t dr = 1; ds + dr <= IDEAL_DEG && !bad; dr++)
            for (uint32_t i = 0; i < A.dim[ds] && !bad; i++)
                for (uint32_t j = 0; j < A.dim[dr] && !bad; j++) {
                    uint32_t e = milnor_excess_of(&A.elts[dr][j]);
                    for (uint32_t n = 0; n < e && !bad; n++) {
                        struct ideal_check c = { n, 0 };
                        milnor_mul_each(&A.elts[ds][i], &A.elts[dr][j], check_term, &c);
                        if (c.bad) {
                            char a[128], b[128];
                            diag("%s * %s has a term of excess <= %u", milnor_elt_format(&A.elts[ds][i], a, sizeof a),
                                 milnor_elt_format(&A.elts[dr][j], b, sizeof b), n);
                            bad = 1;
                        }
                    }
                }
    ok(!bad, "Sq(S)·Sq(R) has no term of excess <= n when e(R) > n (|S| + |R| <= %d)", IDEAL_DEG);
    excess_clear(&X);
    milnor_basis_clear(&A);
    odd_prime(3);
    odd_prime(5);
    return done_testing();
}
