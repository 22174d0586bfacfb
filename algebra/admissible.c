/* admissible.c — the admissible basis and the change of basis to and from the Milnor basis.
 * See admissible.h and docs/algorithms.md §12. */
#include "algebra/admissible.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP ((uint64_t)1 << 62)

int adm_prime_ok(uint32_t p) { return p == 2 || (milnor_p_prime_ok(p) && p <= FPMAT_MAX_PRIME); }

static uint64_t sat_add(uint64_t a, uint64_t b) { return a >= CAP || b >= CAP || a + b >= CAP ? CAP : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > CAP / a ? CAP : a * b; }

uint64_t adm_milnor_degree(uint32_t p, uint32_t qmask, const uint32_t *r, int n)
{
    uint64_t d = 0, pk = 1, w = 0;          /* pk = p^k, w = (p^i - 1)/(p - 1) */
    for (int k = 0; k < 32; ++k) {
        uint64_t tau = sat_mul(2, pk);                     /* |Q_k| = 2 p^k - 1 */
        if (qmask >> k & 1) d = sat_add(d, tau >= CAP ? CAP : tau - 1);
        pk = sat_mul(pk, p);
    }
    pk = 1;
    for (int i = 0; i < n; ++i) {
        pk = sat_mul(pk, p);
        w = sat_add(sat_mul(w, p), 1);       /* w_{i+1} = p w_i + 1 */
        uint64_t weight = p == 2 ? pk - 1 : sat_mul(w, 2 * (uint64_t)(p - 1));
        if (pk >= CAP) weight = CAP;
        if (r[i]) d = sat_add(d, sat_mul(weight, r[i]));
    }
    return d;
}

int adm_alg_init(adm_alg *A, uint32_t p, deg_t max_degree)
{
    memset(A, 0, sizeof *A);
    if (!adm_prime_ok(p) || max_degree < 0 || max_degree > (p == 2 ? MILNOR_MAX_DEGREE : MILNOR_P_MAX_DEGREE))
        return -1;
    A->p = p;
    A->max_degree = max_degree;
    if (p == 2) {
        if (milnor_basis_init(&A->m2, max_degree, NULL) != 0) goto fail;
        A->dim = A->m2.dim;
    } else {
        if (milnor_p_basis_init(&A->mp, p, max_degree) != 0) goto fail;
        A->dim = A->mp.dim;
    }
    A->deg = calloc((size_t)max_degree + 1, sizeof *A->deg);
    if (!A->deg) goto fail;
    return 0;
fail:
    adm_alg_clear(A);
    return -1;
}

void adm_alg_clear(adm_alg *A)
{
    if (A->deg)
        for (deg_t d = 0; d <= A->max_degree; ++d) {
            adm_degree *D = &A->deg[d];
            free(D->mono);
            free(D->m);
            f2qi_clear(&D->qi2);
            fpqi_clear(&D->qip);
        }
    free(A->deg);
    if (A->p == 2) milnor_basis_clear(&A->m2);
    else if (A->p) milnor_p_basis_clear(&A->mp);
    memset(A, 0, sizeof *A);
}

int adm_milnor_find(const adm_alg *A, uint32_t qmask, const uint32_t *r, int n, deg_t *d, uint32_t *idx)
{
    while (n > 0 && r[n - 1] == 0) --n;
    uint64_t deg = adm_milnor_degree(A->p, qmask, r, n);
    if (deg > (uint64_t)A->max_degree || (A->p == 2 && qmask)) return -1;
    if (A->p == 2) {
        if (n > MILNOR_MAX_LEN) return -1;
        milnor_elt R;
        milnor_elt_set(&R, r, n);
        *d = R.degree;
        *idx = milnor_index(&A->m2, &R);
    } else {
        if (n > MILNOR_P_MAX_LEN || qmask >> MILNOR_P_MAX_LEN) return -1;
        milnor_p_elt X;
        milnor_p_elt_set(&X, A->p, qmask, r, n);
        *d = X.degree;
        *idx = milnor_p_index(&A->mp, &X);
    }
    return 0;
}

typedef struct mul2_ctx { const milnor_basis *B; uint8_t *out; } mul2_ctx;
static void mul2_emit(const milnor_elt *T, void *ctx)
{
    mul2_ctx *c = ctx;
    c->out[milnor_index(c->B, T)] ^= 1;
}

void adm_milnor_mul(const adm_alg *A, deg_t dx, uint32_t ix, deg_t dy, uint32_t iy, uint32_t c, uint8_t *out)
{
    if (c % A->p == 0) return;
    if (A->p == 2) {
        mul2_ctx ctx = { &A->m2, out };
        milnor_mul_each(&A->m2.elts[dx][ix], &A->m2.elts[dy][iy], mul2_emit, &ctx);
    } else {
        milnor_p_mul_into(&A->mp, &A->mp.elts[dx][ix], &A->mp.elts[dy][iy], c % A->p, out);
    }
}

char *adm_milnor_format(const adm_alg *A, deg_t d, uint32_t i, char *buf, size_t size)
{
    if (d == 0) {
        snprintf(buf, size, "1");
        return buf;
    }
    if (A->p == 2) return milnor_elt_format(&A->m2.elts[d][i], buf, size);
    return milnor_p_elt_format(&A->mp.elts[d][i], buf, size);
}

/* ---------------------------------------------------------------- monomials */

int adm_mono_cmp(const adm_mono *x, const adm_mono *y)
{
    /* the sequences e_0, s_1, e_1, ..., s_k, e_k; at p = 2 the e's are all 0 */
    if (x->e[0] != y->e[0]) return x->e[0] < y->e[0] ? -1 : 1;
    for (uint32_t i = 0; i < x->len && i < y->len; ++i) {
        if (x->s[i] != y->s[i]) return x->s[i] < y->s[i] ? -1 : 1;
        if (x->e[i + 1] != y->e[i + 1]) return x->e[i + 1] < y->e[i + 1] ? -1 : 1;
    }
    return x->len == y->len ? 0 : x->len < y->len ? -1 : 1;
}

int adm_mono_ok(uint32_t p, const adm_mono *x)
{
    if (x->len > ADM_MAX_LEN) return 0;
    uint64_t deg = 0;
    for (uint32_t i = 0; i <= x->len; ++i) {
        if (x->e[i] > 1 || (p == 2 && x->e[i])) return 0;
        deg += x->e[i];
    }
    for (uint32_t i = 0; i < x->len; ++i) {
        if (x->s[i] == 0) return 0;
        if (i + 1 < x->len && (uint64_t)x->s[i] < (uint64_t)p * x->s[i + 1] + x->e[i + 1]) return 0;
        deg += (uint64_t)x->s[i] * (p == 2 ? 1 : 2 * (p - 1));
    }
    return deg == (uint64_t)x->degree;
}

uint32_t adm_mono_index(const adm_degree *D, const adm_mono *x)
{
    uint32_t lo = 0, hi = D->dim;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = adm_mono_cmp(&D->mono[mid], x);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return UINT32_MAX;
}

char *adm_mono_format(uint32_t p, const adm_mono *x, char *buf, size_t size)
{
    size_t at = 0;
    if (size == 0) return buf;
    buf[0] = 0;
#define PUT(...) do { int n_ = snprintf(buf + at, at < size ? size - at : 0, __VA_ARGS__); \
                      if (n_ > 0) at += (size_t)n_; } while (0)
    for (uint32_t i = 0; i <= x->len; ++i) {
        if (i > 0) PUT("%s%s^%u", at ? " " : "", p == 2 ? "Sq" : "P", x->s[i - 1]);
        if (x->e[i]) PUT("%sb", at ? " " : "");
    }
    if (at == 0) PUT("1");
#undef PUT
    return buf;
}

/* ---------------------------------------------------------------- a degree's list */

typedef struct mono_list { adm_mono *v; uint32_t n, cap; int oom; } mono_list;

static void list_push(mono_list *L, const adm_mono *x)
{
    if (L->oom) return;
    if (L->n == L->cap) {
        uint32_t cap = L->cap ? 2 * L->cap : 16;
        adm_mono *v = realloc(L->v, (size_t)cap * sizeof *v);
        if (!v) { L->oom = 1; return; }
        L->v = v, L->cap = cap;
    }
    L->v[L->n++] = *x;
}

/* p = 2: appends cur extended by every admissible tail of degree rem whose first exponent is at
 * most maxfirst, in increasing order. A tail's entries after a add up to less than a, so a
 * exceeds rem / 2. */
static void gen2(mono_list *L, adm_mono *cur, uint32_t rem, uint32_t maxfirst)
{
    if (rem == 0) { list_push(L, cur); return; }
    if (cur->len == ADM_MAX_LEN) return;
    uint32_t k = cur->len;
    for (uint32_t a = rem / 2 + 1; a <= rem && a <= maxfirst; ++a) {
        cur->s[k] = a, cur->len = k + 1;
        gen2(L, cur, rem - a, a / 2);
    }
    cur->s[k] = 0, cur->len = k;
}

/* odd p: cur (e_k already set) extended by P^s b^e ... of degree rem with s <= maxs; the
 * monomial stopping here comes first (a sequence before its extensions), then s, then e
 * increasing. */
static void genp(mono_list *L, uint32_t p, adm_mono *cur, uint32_t rem, uint32_t maxs)
{
    uint32_t q = 2 * (p - 1), k = cur->len;
    if (rem == 0) { list_push(L, cur); return; }
    if (k == ADM_MAX_LEN) return;
    for (uint32_t s = 1; s <= maxs && q * s <= rem; ++s)
        for (uint32_t e = 0; e <= 1 && q * s + e <= rem; ++e) {
            cur->s[k] = s, cur->e[k + 1] = (uint8_t)e, cur->len = k + 1;
            genp(L, p, cur, rem - q * s - e, (s - e) / p);
        }
    cur->s[k] = 0, cur->e[k + 1] = 0, cur->len = k;
}

/* Monomial x's Milnor expansion into row (dim(x->degree) bytes, zeroed): the first factor
 * (Sq^a, P^s, or b when e_0 = 1) times the expansion of the rest, an admissible monomial of
 * lower degree. */
static int expand(adm_alg *A, const adm_mono *x, uint8_t *row)
{
    if (x->degree == 0) { row[0] = 1; return 0; }
    adm_mono t;
    memset(&t, 0, sizeof t);
    deg_t hd;
    uint32_t hi;
    if (A->p != 2 && x->e[0]) {             /* b · (the rest) */
        t = *x;
        t.e[0] = 0;
        t.degree = x->degree - 1;
        if (adm_milnor_find(A, 1, NULL, 0, &hd, &hi) != 0) return -1;
    } else {                                /* Sq^a or P^s · (the rest) */
        t.len = x->len - 1;
        memcpy(t.s, x->s + 1, t.len * sizeof *t.s);
        memcpy(t.e, x->e + 1, (t.len + 1) * sizeof *t.e);
        if (adm_milnor_find(A, 0, &x->s[0], 1, &hd, &hi) != 0) return -1;
        t.degree = x->degree - hd;
    }
    const adm_degree *T = adm_degree_get(A, t.degree);
    if (!T) return -1;
    uint32_t ti = adm_mono_index(T, &t);
    if (ti == UINT32_MAX) return -1;
    const uint8_t *trow = T->m + (size_t)ti * T->dim;
    for (uint32_t j = 0; j < T->dim; ++j)
        if (trow[j]) adm_milnor_mul(A, hd, hi, t.degree, j, trow[j], row);
    return 0;
}

const adm_degree *adm_degree_get(adm_alg *A, deg_t d)
{
    if (d < 0 || d > A->max_degree) return NULL;
    adm_degree *D = &A->deg[d];
    if (D->built) return D;
    mono_list L = { 0 };
    adm_mono cur;
    memset(&cur, 0, sizeof cur);
    cur.degree = d;
    if (A->p == 2) gen2(&L, &cur, (uint32_t)d, (uint32_t)d);
    else
        for (uint32_t e0 = 0; e0 <= 1 && e0 <= (uint32_t)d; ++e0) {
            cur.e[0] = (uint8_t)e0;
            genp(&L, A->p, &cur, (uint32_t)d - e0, (uint32_t)d);
        }
    if (L.oom || L.n != A->dim[d]) { free(L.v); return NULL; }   /* the count is Serre's theorem */
    uint32_t n = L.n;
    uint8_t *m = calloc((size_t)n * n + 1, 1);
    if (!m) { free(L.v); return NULL; }
    for (uint32_t i = 0; i < n; ++i)
        if (expand(A, &L.v[i], m + (size_t)i * n) != 0) { free(L.v); free(m); return NULL; }
    D->mono = L.v, D->m = m, D->dim = n, D->built = 1;
    return D;
}

int adm_to_milnor(adm_alg *A, deg_t d, const uint8_t *a, uint8_t *m)
{
    const adm_degree *D = adm_degree_get(A, d);
    if (!D) return -1;
    for (uint32_t i = 0; i < D->dim; ++i)
        if (a[i] % A->p) {
            const uint8_t *row = D->m + (size_t)i * D->dim;
            for (uint32_t j = 0; j < D->dim; ++j) m[j] = (uint8_t)((m[j] + a[i] * row[j]) % A->p);
        }
    return 0;
}

/* M's quasi-inverse: the RREF of [M | 0 | I]; M has full rank (both lists are bases). */
static int solve_degree(adm_alg *A, adm_degree *D)
{
    uint32_t n = D->dim;
    int rc = -1;
    if (A->p == 2) {
        f2mat M = { 0 }, aug = { 0 };
        int32_t *piv = NULL;
        if (f2mat_init(&M, n, n) != 0) return -1;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n; ++j)
                if (D->m[(size_t)i * n + j]) f2mat_set(&M, i, j, 1);
        int rank = f2mat_rref_augmented(&M, &aug, &piv);
        if (rank == (int)n && f2mat_quasi_inverse_from_rref(&aug, n, (uint32_t)rank, piv, &D->qi2) == 0) rc = 0;
        f2mat_clear(&M);
        f2mat_clear(&aug);
        free(piv);
    } else {
        fpmat M = { 0 }, aug = { 0 };
        int32_t *piv = NULL;
        if (fpmat_init(&M, A->p, n, n) != 0) return -1;
        for (uint32_t i = 0; i < n; ++i) memcpy(fpmat_row(&M, i), D->m + (size_t)i * n, n);
        if (fpmat_augment_identity(&aug, &M) == 0 && (piv = malloc(((size_t)aug.cols + 1) * sizeof *piv))) {
            int rank = fpmat_rref(&aug, piv);
            if (rank == (int)n && fpmat_quasi_inverse_from_rref(&aug, n, (uint32_t)rank, piv, &D->qip) == 0) rc = 0;
        }
        fpmat_clear(&M);
        fpmat_clear(&aug);
        free(piv);
    }
    if (rc == 0) D->solved = 1;
    return rc;
}

int adm_from_milnor(adm_alg *A, deg_t d, const uint8_t *m, uint8_t *a)
{
    adm_degree *D = (adm_degree *)adm_degree_get(A, d);
    if (!D || (!D->solved && solve_degree(A, D) != 0)) return -1;
    uint32_t n = D->dim;
    memset(a, 0, n);
    if (A->p == 2) {
        size_t w = f2vec_words(n);
        uint64_t *y = calloc(2 * w + 1, sizeof *y);
        if (!y) return -1;
        uint64_t *x = y + w;
        for (uint32_t j = 0; j < n; ++j)
            if (m[j] & 1) f2vec_flip(y, j);
        f2qi_apply(&D->qi2, y, x);
        for (uint32_t i = 0; i < n; ++i) a[i] = (uint8_t)f2vec_get(x, i);
        free(y);
    } else {
        fpqi_apply(&D->qip, m, a);
    }
    return 0;
}

/* ---------------------------------------------------------------- counting */

int adm_count_dims(uint32_t p, deg_t max_degree, uint64_t *dim)
{
    if (!adm_prime_ok(p) || max_degree < 0 || max_degree > (p == 2 ? MILNOR_MAX_DEGREE : MILNOR_P_MAX_DEGREE))
        return -1;
    /* N(d, b): monomials of degree d (p = 2: Sq^{a_1} ...; odd p: P^{s_1} b^{e_1} ... , no
     * leading b) whose first exponent is at most b, b = 0..B(d) (B(d) = d at p = 2, d / q at
     * odd p, beyond which nothing changes); N(0, b) = 1 (the unit). Rows end to end. */
    uint32_t q = p == 2 ? 1 : 2 * (p - 1);
    size_t *at = malloc(((size_t)max_degree + 2) * sizeof *at);
    if (!at) return -1;
    size_t total = 0;
    for (deg_t d = 0; d <= max_degree; ++d) at[d] = total, total += (size_t)d / q + 1;
    uint64_t *N = malloc(total * sizeof *N);
    if (!N) { free(at); return -1; }
#define NB(d, b) N[at[d] + ((b) < (uint64_t)(d) / q ? (b) : (uint64_t)(d) / q)]
    for (deg_t d = 0; d <= max_degree; ++d) {
        uint64_t B = (uint64_t)d / q;
        for (uint64_t b = 0; b <= B; ++b) {
            uint64_t v = d == 0 ? 1 : b == 0 ? 0 : N[at[d] + b - 1];
            if (d > 0 && b > 0) {
                if (p == 2) v += NB(d - (deg_t)b, b / 2);
                else
                    for (uint64_t e = 0; e <= 1 && q * b + e <= (uint64_t)d; ++e)
                        v += NB(d - (deg_t)(q * b + e), (b - e) / p);
            }
            N[at[d] + b] = v;
        }
        dim[d] = NB(d, B);
        if (p != 2 && d > 0) dim[d] += NB(d - 1, (uint64_t)(d - 1) / q);   /* b^{e_0 = 1} */
    }
#undef NB
    free(N);
    free(at);
    return 0;
}
