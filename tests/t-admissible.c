/* t-admissible.c — TAP tests of the admissible basis and the change of basis
 * (algebra/admissible.c) and of the calculator's expressions (algebra/stexpr.c), at p = 2, 3, 5.
 *  - dims: the admissible count (a recurrence) against the Milnor dims (milnor_count_dims,
 *    milnor_p_count_dims), and each built table's length, order and admissibility;
 *  - each monomial's expansion holds its leading Milnor element (r_i = s_i - p s_{i+1} - e_i),
 *    a different one for each monomial;
 *  - round trips Milnor -> admissible -> Milnor and admissible -> Milnor -> admissible on every
 *    basis element through a degree;
 *  - Adem's relations: Sq^a Sq^b (a < 2b), P^a P^b (a < pb) and P^a b P^b (a <= pb), each
 *    computed with the Milnor product and written in the admissible basis, against the
 *    relations' right-hand sides from binomials mod p of our own (Pascal's triangle, not the
 *    Lucas tables of milnor_p.c);
 *  - associativity on random triples of random elements (sums of Milnor elements and admissible
 *    monomials, as text), (x y) z = x (y z) through the evaluator, and every result written in
 *    either basis parses back to itself;
 *  - random strings never crash the parser: each is refused (STEXPR_BAD, a position inside it)
 *    or evaluates.
 * Env: SEED (random triples and strings; default time). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algebra/admissible.h"
#include "algebra/stexpr.h"
#include "tests/batch.h"
#include "tests/tap.h"

static const struct { uint32_t p; deg_t count_n, trip_n, adem_n, assoc_n; } CASES[] = {
    { 2, 600, 72, 80, 60 },
    { 3, 1200, 160, 240, 160 },
    { 5, 2000, 400, 600, 320 },
};

/* (n choose k) mod p by Pascal's triangle, n < NB. */
#define NB 700
static uint8_t pascal[NB][NB];
static void pascal_init(uint32_t p)
{
    memset(pascal, 0, sizeof pascal);
    for (int n = 0; n < NB; ++n) {
        pascal[n][0] = 1;
        for (int k = 1; k <= n; ++k) pascal[n][k] = (uint8_t)((pascal[n - 1][k - 1] + pascal[n - 1][k]) % p);
    }
}
static uint32_t binom(int64_t n, int64_t k)
{
    if (k < 0 || n < 0 || k > n) return 0;
    if (n >= NB) bail("binomial beyond the table");
    return pascal[n][k];
}

/* The monomial (e0, s1, e1, s2, e2) (s = 0: the factor left out). */
static adm_mono mono(uint32_t p, int e0, uint32_t s1, int e1, uint32_t s2, int e2)
{
    adm_mono x;
    memset(&x, 0, sizeof x);
    x.e[0] = (uint8_t)e0;
    uint32_t s[2] = { s1, s2 };
    int e[2] = { e1, e2 };
    for (int i = 0; i < 2; ++i)
        if (s[i]) {
            x.s[x.len] = s[i];
            x.e[x.len + 1] = (uint8_t)e[i];
            x.len++;
        } else if (e[i]) {
            x.e[x.len] = 1;             /* b with no P between: only as the last factor here */
        }
    uint32_t q = p == 2 ? 1 : 2 * (p - 1);
    x.degree = (deg_t)(q * (s1 + s2) + (uint32_t)(e0 + e1 + e2));
    return x;
}

static void test_dims(adm_alg *A, deg_t count_n, deg_t table_n)
{
    uint32_t p = A->p;
    uint64_t *adm = malloc(((size_t)count_n + 1) * sizeof *adm);
    uint32_t *mil = malloc(((size_t)count_n + 1) * sizeof *mil);
    int ok_count = adm && mil && adm_count_dims(p, count_n, adm) == 0 &&
                   (p == 2 ? milnor_count_dims(count_n, NULL, mil) : milnor_p_count_dims(p, count_n, mil)) == 0;
    deg_t bad = -1;
    for (deg_t d = 0; ok_count && d <= count_n; ++d)
        if (adm[d] != mil[d]) { ok_count = 0; bad = d; }
    ok(ok_count, "p = %u: admissible monomials counted = Milnor dims through degree %d%s", p, count_n,
       bad >= 0 ? " (differ at some degree)" : "");
    int ok_tab = 1;
    for (deg_t d = 0; d <= table_n && ok_tab; ++d) {
        const adm_degree *D = adm_degree_get(A, d);
        if (!D || D->dim != A->dim[d] || D->dim != adm[d]) { ok_tab = 0; diag("degree %d: table", d); break; }
        for (uint32_t i = 0; i < D->dim; ++i) {
            if (!adm_mono_ok(p, &D->mono[i]) || D->mono[i].degree != d ||
                (i && adm_mono_cmp(&D->mono[i - 1], &D->mono[i]) >= 0) || adm_mono_index(D, &D->mono[i]) != i) {
                char b[200];
                diag("degree %d: monomial %u %s", d, i, adm_mono_format(p, &D->mono[i], b, sizeof b));
                ok_tab = 0;
                break;
            }
        }
    }
    ok(ok_tab, "p = %u: each degree's table through %d: as long as dim, admissible, strictly increasing, indexed", p,
       table_n);
    /* Milnor's leading term: monomial (e_0, s_1, e_1, ...) has Q(E)P(R), E = {i : e_i = 1},
     * r_i = s_i - p s_{i+1} - e_i, in its expansion, and distinct monomials have distinct ones */
    int ok_lead = 1;
    for (deg_t d = 0; d <= table_n && ok_lead; ++d) {
        const adm_degree *D = adm_degree_get(A, d);
        uint8_t *seen = calloc(D->dim + 1, 1);
        for (uint32_t i = 0; i < D->dim && ok_lead; ++i) {
            const adm_mono *x = &D->mono[i];
            uint32_t r[ADM_MAX_LEN] = { 0 }, qm = 0, idx;
            deg_t ld;
            for (uint32_t k = 0; k <= x->len && k <= ADM_MAX_LEN; ++k) qm |= (uint32_t)x->e[k] << k;
            for (uint32_t k = 0; k < x->len; ++k) r[k] = x->s[k] - (k + 1 < x->len ? p * x->s[k + 1] : 0) - (p == 2 ? 0 : x->e[k + 1]);
            if (adm_milnor_find(A, qm, r, (int)x->len, &ld, &idx) != 0 || ld != d || !D->m[(size_t)i * D->dim + idx] ||
                seen[idx]++) {
                char b[200];
                diag("degree %d: %s lacks its leading term", d, adm_mono_format(p, x, b, sizeof b));
                ok_lead = 0;
            }
        }
        free(seen);
    }
    ok(ok_lead, "p = %u: through degree %d each monomial's expansion holds its own leading Milnor element", p, table_n);
    free(adm);
    free(mil);
}

static void test_round_trips(adm_alg *A, deg_t n)
{
    uint32_t p = A->p;
    size_t checked = 0;
    int good = 1;
    for (deg_t d = 0; d <= n && good; ++d) {
        uint32_t dim = A->dim[d];
        uint8_t *u = calloc(dim, 1), *a = calloc(dim, 1), *m = calloc(dim, 1);
        if (!u || !a || !m) bail("out of memory");
        for (uint32_t j = 0; j < dim && good; ++j) {
            /* Milnor element j -> admissible -> Milnor */
            memset(u, 0, dim);
            u[j] = 1;
            memset(m, 0, dim);
            if (adm_from_milnor(A, d, u, a) != 0 || adm_to_milnor(A, d, a, m) != 0 || memcmp(u, m, dim)) {
                diag("p = %u degree %d: Milnor element %u does not come back", p, d, j);
                good = 0;
            }
            /* admissible monomial j -> Milnor -> admissible */
            memset(m, 0, dim);
            if (good && (adm_to_milnor(A, d, u, m) != 0 || adm_from_milnor(A, d, m, a) != 0 || memcmp(u, a, dim))) {
                diag("p = %u degree %d: admissible monomial %u does not come back", p, d, j);
                good = 0;
            }
            checked++;
        }
        free(u), free(a), free(m);
    }
    ok(good, "p = %u: round trips through both bases on all %zu basis elements of degree <= %d", p, checked, n);
}

/* Milnor coefficients of the product of the Milnor generators listed (0: b = Q_0, else P^s /
 * Sq^s), of degree d. */
static uint8_t *milnor_product(adm_alg *A, const uint32_t *g, int ng, deg_t *d)
{
    uint8_t *cur = calloc(1, 1);
    deg_t cd = 0;
    cur[0] = 1;
    for (int k = 0; k < ng; ++k) {
        deg_t gd;
        uint32_t gi;
        if (g[k] == 0 ? adm_milnor_find(A, 1, NULL, 0, &gd, &gi) : adm_milnor_find(A, 0, &g[k], 1, &gd, &gi)) bail("generator");
        uint8_t *next = calloc(A->dim[cd + gd] + 1, 1);
        for (uint32_t j = 0; j < A->dim[cd]; ++j)
            if (cur[j]) adm_milnor_mul(A, cd, j, gd, gi, cur[j], next);
        free(cur);
        cur = next;
        cd += gd;
    }
    *d = cd;
    return cur;
}

/* expected[index of x] += c */
static int add_mono(adm_alg *A, uint8_t *expected, const adm_mono *x, uint32_t c)
{
    const adm_degree *D = adm_degree_get(A, x->degree);
    uint32_t i = D ? adm_mono_index(D, x) : UINT32_MAX;
    if (i == UINT32_MAX) return -1;
    expected[i] = (uint8_t)((expected[i] + c) % A->p);
    return 0;
}

static void test_adem(adm_alg *A, deg_t n)
{
    uint32_t p = A->p, q = p == 2 ? 1 : 2 * (p - 1);
    pascal_init(p);
    size_t rel = 0, nonzero = 0;
    int good = 1;
    for (uint32_t a = 1; q * a <= (uint32_t)n && good; ++a)
        for (uint32_t b = 1; q * (a + b) + 1 <= (uint32_t)n && good; ++b)
            for (int beta = 0; beta <= (p == 2 ? 0 : 1) && good; ++beta) {
                if (beta ? a > p * b : a >= p * b) continue;       /* not an Adem relation */
                uint32_t g[3] = { a, 0, b };
                deg_t d;
                uint8_t *m = beta ? milnor_product(A, g, 3, &d) : milnor_product(A, (uint32_t[]){ a, b }, 2, &d);
                uint32_t dim = A->dim[d];
                uint8_t *got = calloc(dim, 1), *want = calloc(dim, 1);
                if (adm_from_milnor(A, d, m, got) != 0) bail("adm_from_milnor");
                /* the right-hand side, sum over j <= a / p */
                for (uint32_t j = 0; p * j <= a; ++j) {
                    int64_t sgn = (a + j) % 2 ? -1 : 1;            /* (-1)^(a+j); 1 at p = 2 */
                    uint32_t c;
                    adm_mono x;
                    if (p == 2) {
                        c = binom((int64_t)b - 1 - j, (int64_t)a - 2 * j);
                        x = mono(p, 0, a + b - j, 0, j, 0);
                        if (c && add_mono(A, want, &x, c)) good = 0;
                        continue;
                    }
                    if (!beta) {
                        c = binom((int64_t)(p - 1) * (b - j) - 1, (int64_t)a - p * j);
                        c = (uint32_t)((sgn * c % (int64_t)p + p) % p);
                        x = mono(p, 0, a + b - j, 0, j, 0);
                        if (c && add_mono(A, want, &x, c)) good = 0;
                        continue;
                    }
                    c = binom((int64_t)(p - 1) * (b - j), (int64_t)a - p * j);
                    c = (uint32_t)((sgn * c % (int64_t)p + p) % p);
                    x = mono(p, 1, a + b - j, 0, j, 0);               /* b P^{a+b-j} P^j */
                    if (c && add_mono(A, want, &x, c)) good = 0;
                    c = binom((int64_t)(p - 1) * (b - j) - 1, (int64_t)a - p * j - 1);
                    c = (uint32_t)((-sgn * c % (int64_t)p + p) % p);
                    x = mono(p, 0, a + b - j, 1, j, 0);               /* P^{a+b-j} b P^j */
                    if (c && add_mono(A, want, &x, c)) good = 0;
                }
                if (!good) diag("p = %u: a right-hand side's monomial is not in the table (a = %u, b = %u)", p, a, b);
                if (good && memcmp(got, want, dim)) {
                    char s[4096];
                    stexpr_val v = { d, calloc((size_t)d + 1, sizeof(uint8_t *)) };
                    v.v[d] = m;
                    char *t = stexpr_format(A, &v, STEXPR_ADMISSIBLE);
                    snprintf(s, sizeof s, "%s", t ? t : "?");
                    free(t);
                    v.v[d] = NULL;
                    stexpr_val_clear(&v);
                    diag("p = %u: %s^%u %s%s^%u = %s, not the relation's", p, p == 2 ? "Sq" : "P", a, beta ? "b " : "",
                         p == 2 ? "Sq" : "P", b, s);
                    good = 0;
                }
                for (uint32_t i = 0; i < dim; ++i) nonzero += want[i] != 0;
                rel++;
                free(m), free(got), free(want);
            }
    ok(good, "p = %u: %zu Adem relations of degree <= %d (%zu terms) agree with the naive formula", p, rel, n, nonzero);
}

/* A random element as text: 1 to 3 terms, each a coefficient 1..p-1 times a Milnor element or an
 * admissible monomial of degree <= dmax. */
static void random_elt(adm_alg *A, deg_t dmax, char *buf, size_t size)
{
    size_t at = 0;
    int nt = 1 + (int)(rng_next() % 3);
    buf[0] = 0;
    for (int t = 0; t < nt; ++t) {
        deg_t d = (deg_t)(rng_next() % ((uint64_t)dmax + 1));
        if (!A->dim[d]) continue;
        uint32_t i = (uint32_t)(rng_next() % A->dim[d]);
        char name[256];
        if (rng_next() % 2) adm_milnor_format(A, d, i, name, sizeof name);
        else adm_mono_format(A->p, &adm_degree_get(A, d)->mono[i], name, sizeof name);
        at += (size_t)snprintf(buf + at, size - at, "%s%u %s", at ? " - " : "", (uint32_t)(1 + rng_next() % (A->p - 1)), name);
    }
    if (!at) snprintf(buf, size, "1");
}

static char *eval_text(adm_alg *A, const char *text, enum stexpr_basis basis)
{
    stexpr_error err;
    stexpr_val v;
    if (stexpr_eval(text, A, &v, &err) != 0) {
        diag("'%s': column %zu: %s", text, err.pos + 1, err.msg);
        return NULL;
    }
    char *s = stexpr_format(A, &v, basis);
    stexpr_val_clear(&v);
    return s;
}

static void test_assoc(adm_alg *A, deg_t n)
{
    int good = 1, reparsed = 1, nonzero = 0, tries = 0;
    for (; tries < 200 && good; ++tries) {
        char x[1024], y[1024], z[1024], e1[4096], e2[4096];
        random_elt(A, n / 3, x, sizeof x);
        random_elt(A, n / 3, y, sizeof y);
        random_elt(A, n / 3, z, sizeof z);
        snprintf(e1, sizeof e1, "((%s) * (%s)) * (%s)", x, y, z);
        snprintf(e2, sizeof e2, "(%s) ((%s) (%s))", x, y, z);   /* side by side, nested */
        char *r1 = eval_text(A, e1, STEXPR_MILNOR), *r2 = eval_text(A, e2, STEXPR_MILNOR);
        if (!r1 || !r2 || strcmp(r1, r2)) {
            diag("p = %u: (xy)z = %s, x(yz) = %s for x = %s, y = %s, z = %s", A->p, r1 ? r1 : "?", r2 ? r2 : "?", x, y, z);
            good = 0;
        }
        nonzero += r1 && strcmp(r1, "0");
        for (int basis = 0; basis < 2 && r1 && good; ++basis) {  /* written, read back */
            char *w = eval_text(A, e1, (enum stexpr_basis)basis);
            char *back = w ? eval_text(A, w, STEXPR_MILNOR) : NULL;
            if (!back || strcmp(back, r1)) {
                diag("p = %u: %s read back as %s, not %s", A->p, w ? w : "?", back ? back : "?", r1);
                reparsed = 0;
            }
            free(w), free(back);
        }
        free(r1), free(r2);
    }
    ok(good, "p = %u: (xy)z = x(yz) on %d random triples of degree <= %d (%d non-zero)", A->p, tries, n, nonzero);
    ok(reparsed, "p = %u: results written in either basis parse back to the same element", A->p);
}

static void test_garbage(uint32_t p)
{
    static const char alphabet[] = "Sq^P()_,+-*0123456789bQ eta1";
    int good = 1, accepted = 0;
    adm_alg A;
    if (adm_alg_init(&A, p, 60) != 0) bail("adm_alg_init");
    for (int t = 0; t < 3000 && good; ++t) {
        char s[40];
        int len = (int)(rng_next() % 24);
        for (int i = 0; i < len; ++i) s[i] = alphabet[rng_next() % (sizeof alphabet - 1)];
        s[len] = 0;
        stexpr_error err;
        deg_t top;
        int rc = stexpr_check(s, p, 60, &top, &err);
        if (rc == STEXPR_BAD) {
            if (err.pos > (size_t)len || !err.msg[0] || strchr(err.msg, '\n')) { diag("'%s': bad error", s); good = 0; }
            continue;
        }
        stexpr_val v;
        if (rc != 0 || top > 60 || stexpr_eval(s, &A, &v, &err) != 0) { diag("'%s' checked but not evaluated", s); good = 0; continue; }
        char *w = stexpr_format(&A, &v, STEXPR_ADMISSIBLE);
        if (!w) good = 0;
        free(w);
        stexpr_val_clear(&v);
        accepted++;
    }
    adm_alg_clear(&A);
    ok(good, "p = %u: 3000 random strings: each refused at a position inside it, or evaluated (%d were)", p, accepted);
}

int main(void)
{
    seed_from_env();
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; ++c) {
        adm_alg A;
        deg_t top = CASES[c].adem_n > CASES[c].trip_n ? CASES[c].adem_n : CASES[c].trip_n;
        if (CASES[c].assoc_n > top) top = CASES[c].assoc_n;
        if (adm_alg_init(&A, CASES[c].p, top) != 0) bail("adm_alg_init");
        test_dims(&A, CASES[c].count_n, CASES[c].trip_n);
        test_round_trips(&A, CASES[c].trip_n);
        test_adem(&A, CASES[c].adem_n);
        test_assoc(&A, CASES[c].assoc_n);
        adm_alg_clear(&A);
        test_garbage(CASES[c].p);
    }
    return done_testing();
}
