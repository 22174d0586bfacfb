/* milnor_p.c — the Milnor basis of A_p (p odd), its index and its product. See milnor_p.h and
 * docs/algorithms.md §9. */
#include "algebra/milnor_p.h"
#include "algebra/milnor_p_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L MILNOR_P_MAX_LEN

int milnor_p_prime_ok(uint32_t p)
{
    if (p < 3 || p > MILNOR_P_MAX_PRIME || p % 2 == 0) return 0;
    for (uint32_t d = 3; d * d <= p; d += 2)
        if (p % d == 0) return 0;
    return 1;
}

/* ---------------------------------------------------------------- elements */

/* The degree tables of prime p (the parts of a basis that depend on p alone). */
static void prime_tables(uint32_t p, uint32_t *w, uint32_t *tau, uint32_t *ppow)
{
    uint64_t pk = 1;                 /* p^k */
    for (int k = 0; k < L; ++k) {
        ppow[k] = pk > UINT32_MAX ? UINT32_MAX : (uint32_t)pk;
        tau[k] = 2 * pk - 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(2 * pk - 1);
        uint64_t wk = (pk * p - 1) / (p - 1);        /* (p^{k+1} - 1)/(p - 1) */
        w[k] = wk > UINT32_MAX ? UINT32_MAX : (uint32_t)wk;
        if (pk <= UINT32_MAX) pk *= p;
    }
}

void milnor_p_elt_set(milnor_p_elt *X, uint32_t p, uint32_t q, const uint32_t *r, int n)
{
    uint32_t w[L], tau[L], ppow[L];
    prime_tables(p, w, tau, ppow);
    memset(X, 0, sizeof *X);
    while (n > 0 && r[n - 1] == 0) --n;
    if (n > L) n = L;
    uint64_t deg = 0;
    for (int i = 0; i < n; ++i) {
        X->r[i] = r[i];
        deg += (uint64_t)r[i] * w[i] * 2 * (p - 1);
    }
    X->len = (uint32_t)n;
    X->q = q & ((1u << L) - 1);
    for (int k = 0; k < L; ++k)
        if (X->q >> k & 1) deg += tau[k];
    X->degree = deg > INT32_MAX ? INT32_MAX : (deg_t)deg;
}

char *milnor_p_elt_format(const milnor_p_elt *X, char *buf, size_t size)
{
    size_t at = 0;
    if (size == 0) return buf;
    buf[0] = 0;
#define PUT(...) do { int n_ = snprintf(buf + at, at < size ? size - at : 0, __VA_ARGS__); \
                      if (n_ > 0) at += (size_t)n_; } while (0)
    for (int k = 0; k < L; ++k)
        if (X->q >> k & 1) PUT("%sQ_%d", at ? " " : "", k);
    if (X->len) {
        PUT("%sP(", at ? " " : "");
        for (uint32_t i = 0; i < X->len; ++i) PUT("%s%u", i ? ", " : "", X->r[i]);
        PUT(")");
    }
    if (at == 0) PUT("1");
#undef PUT
    return buf;
}

/* ---------------------------------------------------------------- basis */

/* P parts of P-degree e in the recursive order (milnor_p.h), from those of lower P-degrees
 * (pp[e'] for e' < e, already built); writes them to out (or only counts with out NULL). */
static uint32_t enumerate_pparts(const milnor_p_basis *A, milnor_p_elt *const *pp, uint32_t e,
                                 milnor_p_elt *out)
{
    if (e == 0) {
        if (out) memset(out, 0, sizeof *out);
        return 1;
    }
    uint32_t k = 0;
    for (int i = 0; i < L && A->w[i] <= e; ++i) {
        uint32_t od = e - A->w[i];
        for (uint32_t o = 0; o < A->pdim[od]; ++o) {
            const milnor_p_elt *old = &pp[od][o];
            if (old->len > (uint32_t)i + 1) break;  /* the list is sorted by length */
            if (out) {
                out[k] = *old;
                out[k].r[i]++;
                out[k].len = (uint32_t)i + 1;
            }
            ++k;
        }
    }
    return k;
}

/* pseq_g[e * L + m] = sum_{j >= 0, e - j w_m >= 0} N(e - j w_m, m - 1), where N(e, m) counts P
 * parts of P-degree e in slots 0..m (docs/algorithms.md §9.2); slot 0's column is unused. */
static int build_pseq(milnor_p_basis *A)
{
    size_t rows = (size_t)A->max_pdeg + 1;
    uint32_t *n = malloc(rows * L * sizeof *n);
    A->pseq_g = calloc(rows * L, sizeof *A->pseq_g);
    if (!n || !A->pseq_g) { free(n); return -1; }
    for (size_t e = 0; e < rows; ++e) {
        uint32_t *ne = n + e * L, *ge = A->pseq_g + e * L;
        ne[0] = 1;
        for (int m = 1; m < L; ++m) {
            size_t x = A->w[m];
            ne[m] = ne[m - 1] + (x <= e ? n[(e - x) * L + m] : 0);
            ge[m] = ne[m - 1] + (x <= e ? A->pseq_g[(e - x) * L + m] : 0);
        }
    }
    free(n);
    return 0;
}

/* Index of the P part r[0..len) among the P parts of P-degree e. */
static inline uint32_t pindex(const milnor_p_basis *A, uint32_t e, const uint32_t *r, uint32_t len)
{
    uint32_t cur = e, rank = 0;
    for (int h = (int)len - 1; h >= 1; --h) {
        if (!r[h]) continue;
        uint32_t below = cur - r[h] * A->w[h];
        rank += A->pseq_g[cur * L + h] - A->pseq_g[below * L + h];
        cur = below;
    }
    return rank;
}

static uint32_t qpart_degree(const milnor_p_basis *A, uint32_t E)
{
    uint32_t d = 0;
    for (int k = 0; k < L; ++k)
        if (E >> k & 1) d += A->tau[k];
    return d;
}

int milnor_p_basis_init(milnor_p_basis *A, uint32_t p, deg_t max_degree)
{
    memset(A, 0, sizeof *A);
    if (!milnor_p_prime_ok(p) || max_degree < 0 || max_degree > MILNOR_P_MAX_DEGREE) return -1;
    A->p = p;
    A->pdiv = UINT64_MAX / p + 1;
    A->qdeg = 2 * (p - 1);
    A->max_degree = max_degree;
    A->max_pdeg = (uint32_t)max_degree / A->qdeg;
    prime_tables(p, A->w, A->tau, A->ppow);
    int ntau = 0;
    while (ntau < L && A->tau[ntau] <= (uint32_t)max_degree) ++ntau;
    A->nq = 1u << ntau;

    size_t nd = (size_t)max_degree + 1, ne = (size_t)A->max_pdeg + 1;
    milnor_p_elt **pp = calloc(ne, sizeof *pp);
    A->pdim = calloc(ne, sizeof *A->pdim);
    A->dim = calloc(nd, sizeof *A->dim);
    A->elts = calloc(nd, sizeof *A->elts);
    A->qoff = malloc(nd * A->nq * sizeof *A->qoff);
    A->binom = malloc((size_t)p * p);
    if (!pp || !A->pdim || !A->dim || !A->elts || !A->qoff || !A->binom) goto fail;
    for (uint32_t a = 0; a < p; ++a)             /* Pascal's triangle mod p */
        for (uint32_t b = 0; b < p; ++b)
            A->binom[a * p + b] = (uint8_t)(b > a ? 0 : b == 0 || b == a ? 1
                                   : (A->binom[(a - 1) * p + b - 1] + A->binom[(a - 1) * p + b]) % p);
    for (uint32_t e = 0; e < ne; ++e) {
        A->pdim[e] = enumerate_pparts(A, pp, e, NULL);
        if (!(pp[e] = malloc(A->pdim[e] * sizeof **pp))) goto fail;
        enumerate_pparts(A, pp, e, pp[e]);
    }
    uint32_t *qd = malloc(A->nq * sizeof *qd);
    if (!qd) goto fail;
    for (uint32_t E = 0; E < A->nq; ++E) qd[E] = qpart_degree(A, E);
    for (size_t d = 0; d < nd; ++d) {
        uint32_t *off = A->qoff + d * A->nq, n = 0;
        for (uint32_t E = 0; E < A->nq; ++E) {
            off[E] = UINT32_MAX;
            if (qd[E] > d || (d - qd[E]) % A->qdeg) continue;
            off[E] = n;
            n += A->pdim[(d - qd[E]) / A->qdeg];
        }
        A->dim[d] = n;
        if (!(A->elts[d] = malloc((n ? n : 1) * sizeof **A->elts))) { free(qd); goto fail; }
        for (uint32_t E = 0; E < A->nq; ++E) {
            if (off[E] == UINT32_MAX) continue;
            uint32_t e = (uint32_t)(d - qd[E]) / A->qdeg;
            for (uint32_t k = 0; k < A->pdim[e]; ++k) {
                milnor_p_elt *x = &A->elts[d][off[E] + k];
                *x = pp[e][k];
                x->q = E;
                x->degree = (deg_t)d;
            }
        }
    }
    free(qd);
    if (build_pseq(A) < 0) goto fail;
    for (size_t e = 0; e < ne; ++e) free(pp[e]);
    free(pp);
    return 0;
fail:
    for (size_t e = 0; pp && e < ne; ++e) free(pp[e]);
    free(pp);
    milnor_p_basis_clear(A);
    return -1;
}

void milnor_p_basis_clear(milnor_p_basis *A)
{
    for (size_t d = 0; A->elts && d <= (size_t)A->max_degree; ++d) free(A->elts[d]);
    free(A->elts);
    free(A->dim);
    free(A->pdim);
    free(A->pseq_g);
    free(A->qoff);
    free(A->binom);
    memset(A, 0, sizeof *A);
}

int milnor_p_count_dims(uint32_t p, deg_t max_degree, uint32_t *dim)
{
    if (!milnor_p_prime_ok(p) || max_degree < 0 || max_degree > MILNOR_P_MAX_DEGREE) return -1;
    uint32_t w[L], tau[L], ppow[L], q = 2 * (p - 1);
    prime_tables(p, w, tau, ppow);
    size_t n = (size_t)max_degree + 1;
    memset(dim, 0, n * sizeof *dim);
    dim[0] = 1;
    for (int i = 0; i < L; ++i) {                  /* times 1/(1 - x^{q w_i}) */
        uint64_t x = (uint64_t)q * w[i];
        for (size_t d = x; x < n && d < n; ++d) dim[d] += dim[d - x];
    }
    for (int k = 0; k < L; ++k) {                  /* times (1 + x^{|Q_k|}) */
        size_t x = tau[k];
        for (size_t d = n; x < n && d-- > x;) dim[d] += dim[d - x];
    }
    return 0;
}

uint32_t milnor_p_index(const milnor_p_basis *A, const milnor_p_elt *X)
{
    uint32_t off = A->qoff[(size_t)X->degree * A->nq + X->q];
    uint32_t e = (uint32_t)(X->degree - (deg_t)qpart_degree(A, X->q)) / A->qdeg;
    return off + pindex(A, e, X->r, X->len);
}

/* ---------------------------------------------------------------- product (docs/algorithms.md §9.3) */

typedef struct pp_mul {
    const milnor_p_basis *A;
    uint32_t p;
    uint64_t pdiv;                   /* A->pdiv */
    const uint8_t *binom;            /* A->binom */
    milnor_p_emit_fn emit;
    void *ctx;
    deg_t degree;
    uint32_t q;                      /* the Q part of the terms being produced */
    uint32_t nr, ns;                 /* lengths of R and S */
    uint32_t r[L], s[L];
    uint32_t colrem[L + 1];          /* s_j minus the entries placed in column j */
    uint32_t m[2 * L + 1];           /* m[n]: sum of the entries placed on anti-diagonal n */
} pp_mul;

/* x / p and x mod p for a 32-bit x without a division: with pdiv = ceil(2^64 / p), the high
 * word of pdiv·x is x / p, and the fraction's low word times p, shifted, is x mod p (exact for
 * every 32-bit x and p > 1). The product's inner loops divide by p at every cell, and a
 * division by a p known only at run time is the costliest instruction there. */
static inline uint32_t p_div(uint64_t pdiv, uint32_t x) { return (uint32_t)(((unsigned __int128)pdiv * x) >> 64); }
static inline uint32_t p_mod(uint64_t pdiv, uint32_t p, uint32_t x)
{
    return (uint32_t)(((unsigned __int128)(pdiv * x) * p) >> 64);
}

/* The factor (m + v choose v) mod p that adding v to a diagonal sum m brings (Lucas):
 * mps_lucas_factor's digits, by p_div. */
static inline uint32_t add_factor(const pp_mul *M, uint32_t m, uint32_t v)
{
    const uint32_t p = M->p;
    uint32_t f = 1;
    while (v) {
        uint32_t qm = p_div(M->pdiv, m), qv = p_div(M->pdiv, v), dm = m - qm * p, dv = v - qv * p;
        if (dm + dv >= p) return 0;
        f = p_mod(M->pdiv, p, f * M->binom[(dm + dv) * p + dv]);
        m = qm;
        v = qv;
    }
    return f;
}

/* mps_next_nocarry (the least v' > v whose digits add to m's without a carry), by p_div. */
static inline uint32_t next_nocarry(const pp_mul *M, uint32_t m, uint32_t v)
{
    const uint32_t p = M->p;
    uint64_t pw = 1;
    uint32_t vv = v;
    for (;;) {
        uint32_t qv = p_div(M->pdiv, vv), qm = p_div(M->pdiv, m), dv = vv - qv * p, dm = m - qm * p;
        if (dv + 1 + dm < p) return (uint32_t)(v + pw);
        v -= (uint32_t)(dv * pw);
        pw *= p;
        if (pw > UINT32_MAX) return UINT32_MAX;
        vv = qv;
        m = qm;
    }
}

/* Row i (1..nr) of the matrix, cell j (ns..1, then x_i0), rowrem = what row i still needs
 * (in units of p^0), c the coefficient so far. */
static void pp_rec(pp_mul *M, uint32_t i, uint32_t j, uint32_t rowrem, uint32_t c)
{
    if (i > M->nr) {                 /* x_0j = the rest of column j, for every j */
        uint32_t old[L + 1];
        memcpy(old, M->m + 1, M->ns * sizeof *old);
        for (uint32_t jj = 1; jj <= M->ns; ++jj) {
            uint32_t v = M->colrem[jj];
            if (!v) continue;
            uint32_t f = add_factor(M, M->m[jj], v);
            if (!f) { memcpy(M->m + 1, old, M->ns * sizeof *old); return; }
            c = p_mod(M->pdiv, M->p, c * f);
            M->m[jj] += v;
        }
        milnor_p_elt T;
        memset(&T, 0, sizeof T);
        uint32_t n = M->nr + M->ns;           /* <= L once trimmed: |T| <= max_degree */
        while (n > 0 && M->m[n] == 0) --n;
        for (uint32_t k = 1; k <= n; ++k) T.r[k - 1] = M->m[k];
        T.len = n;
        T.q = M->q;
        T.degree = M->degree;
        M->emit(c, &T, M->ctx);
        memcpy(M->m + 1, old, M->ns * sizeof *old);
        return;
    }
    if (j == 0) {                    /* x_i0 = the rest of r_i, on diagonal i */
        uint32_t f = add_factor(M, M->m[i], rowrem);
        if (!f) return;
        M->m[i] += rowrem;
        pp_rec(M, i + 1, M->ns, i < M->nr ? M->r[i] : 0, p_mod(M->pdiv, M->p, c * f));
        M->m[i] -= rowrem;
        return;
    }
    uint32_t pj = M->A->ppow[j];
    uint32_t vmax = pj == UINT32_MAX ? 0 : rowrem / pj;
    if (vmax > M->colrem[j]) vmax = M->colrem[j];
    uint32_t n = i + j;
    for (uint32_t v = 0; v <= vmax; v = next_nocarry(M, M->m[n], v)) {
        uint32_t f = v ? add_factor(M, M->m[n], v) : 1;
        M->m[n] += v;
        M->colrem[j] -= v;
        pp_rec(M, i, j - 1, rowrem - v * pj, p_mod(M->pdiv, M->p, c * f));
        M->colrem[j] += v;
        M->m[n] -= v;
    }
}

/* c · Q(E)P(R)·P(S) for the Q part E of M (sums of matrices). */
static void pp_product(pp_mul *M, const uint32_t *r, uint32_t nr, uint32_t c)
{
    memcpy(M->r, r, nr * sizeof *r);
    M->nr = nr;
    memset(M->m, 0, sizeof M->m);
    for (uint32_t j = 1; j <= M->ns; ++j) M->colrem[j] = M->s[j - 1];
    if (nr == 0) {                   /* P() P(S) = P(S) */
        milnor_p_elt T;
        memset(&T, 0, sizeof T);
        memcpy(T.r, M->s, M->ns * sizeof *M->s);
        T.len = M->ns;
        T.q = M->q;
        T.degree = M->degree;
        M->emit(c, &T, M->ctx);
        return;
    }
    pp_rec(M, 1, M->ns, r[0], c);
}

/* Q(G)P(R') · Q(F) with F's Q_k (k increasing) moved left one at a time, each leaf then
 * multiplied by P(S): P(R')Q_k = sum_{i>=0} Q_{k+i} P(R' - p^k e_i), Q(G)Q_{k+i} = sign Q(G+k+i). */
static void commute_q(pp_mul *M, uint32_t G, uint32_t *r, uint32_t nr, uint32_t F, uint32_t c)
{
    if (!F) {
        M->q = G;
        pp_product(M, r, nr, c);
        return;
    }
    uint32_t k = (uint32_t)__builtin_ctz(F), rest = F & (F - 1);
    for (uint32_t i = 0; i <= nr && k + i < L; ++i) {
        uint32_t b = k + i;
        if (G >> b & 1) continue;                       /* Q_b Q_b = 0 */
        uint32_t pk = M->A->ppow[k];
        if (i > 0 && (pk == UINT32_MAX || r[i - 1] < pk)) continue;
        uint32_t sign_odd = (uint32_t)__builtin_popcount(G >> (b + 1)) & 1;
        uint32_t c2 = sign_odd ? (M->p - c) % M->p : c;
        if (i > 0) r[i - 1] -= pk;
        uint32_t n2 = nr;
        while (n2 > 0 && r[n2 - 1] == 0) --n2;
        commute_q(M, G | 1u << b, r, n2, rest, c2);
        if (i > 0) r[i - 1] += pk;
    }
}

void milnor_p_mul_each(const milnor_p_basis *A, const milnor_p_elt *X, const milnor_p_elt *Y,
                       milnor_p_emit_fn emit, void *ctx)
{
    pp_mul M;
    M.A = A;
    M.p = A->p;
    M.pdiv = A->pdiv;
    M.binom = A->binom;
    M.emit = emit;
    M.ctx = ctx;
    M.degree = X->degree + Y->degree;
    M.ns = Y->len;
    memcpy(M.s, Y->r, sizeof M.s);
    uint32_t r[L];
    memcpy(r, X->r, sizeof r);
    commute_q(&M, X->q, r, X->len, Y->q, 1);
}

typedef struct into_ctx {
    const milnor_p_basis *A;
    uint32_t c;
    uint8_t *out;
} into_ctx;

static void add_into(uint32_t c, const milnor_p_elt *T, void *ctx)
{
    into_ctx *x = ctx;
    uint32_t j = milnor_p_index(x->A, T), p = x->A->p;
    x->out[j] = (uint8_t)p_mod(x->A->pdiv, p, x->out[j] + c * x->c);
}

void milnor_p_mul_into(const milnor_p_basis *A, const milnor_p_elt *X, const milnor_p_elt *Y,
                       uint32_t c, uint8_t *out)
{
    into_ctx x = { A, c % A->p, out };
    if (x.c) milnor_p_mul_each(A, X, Y, add_into, &x);
}

void milnor_p_mul_batch(const milnor_p_basis *A, const milnor_row_job *jobs, size_t njobs, const milnor_p_term *terms,
                        uint8_t *rows, size_t stride)
{
    for (size_t i = 0; i < njobs; ++i) {
        const milnor_p_elt *X = &A->elts[jobs[i].r_deg][jobs[i].r_idx];
        uint8_t *row = rows + i * stride;
        for (uint32_t k = 0; k < jobs[i].n_terms; ++k) {
            const milnor_p_term *tm = &terms[jobs[i].first_term + k];
            milnor_p_mul_into(A, X, &A->elts[tm->s_deg][tm->s_idx], tm->coef, row + tm->col_offset);
        }
    }
}

/* ---------------------------------------------------------------- flat basis (milnor_p_search.h) */

/* The header of A's flat buffer (the offsets follow from it). */
static void flat_header(const milnor_p_basis *A, uint32_t *h)
{
    memset(h, 0, MILNOR_P_FLAT_HEADER * sizeof *h);
    uint64_t total = 0;
    for (deg_t d = 0; d <= A->max_degree; ++d) total += A->dim[d];
    h[0] = MILNOR_P_FLAT_MAGIC;
    h[1] = A->p;
    h[2] = (uint32_t)A->max_degree;
    h[4] = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    h[5] = A->nq;
    h[6] = A->max_pdeg;
    memcpy(h + 8, A->w, sizeof A->w);
    memcpy(h + 16, A->tau, sizeof A->tau);
    memcpy(h + 24, A->ppow, sizeof A->ppow);
    size_t words = mpf_words(h);
    h[3] = words > UINT32_MAX ? 0 : (uint32_t)words;
}

size_t milnor_p_flat_words(const milnor_p_basis *A)
{
    uint32_t h[MILNOR_P_FLAT_HEADER];
    flat_header(A, h);
    return h[3];
}

int milnor_p_flat_write(const milnor_p_basis *A, uint32_t *buf, size_t words)
{
    uint32_t h[MILNOR_P_FLAT_HEADER];
    flat_header(A, h);
    if (h[3] == 0 || words != h[3]) return -1;
    memset(buf, 0, words * sizeof *buf);
    memcpy(buf, h, sizeof h);
    uint32_t *first = buf + mpf_first_at(), at = 0;
    milnor_p_elt *elts = (milnor_p_elt *)(buf + mpf_elts_at(h));
    for (deg_t d = 0; d <= A->max_degree; ++d) {
        first[d] = at;
        memcpy(elts + at, A->elts[d], A->dim[d] * sizeof *elts);
        at += A->dim[d];
    }
    first[A->max_degree + 1] = at;
    memcpy(buf + mpf_qoff_at(h), A->qoff, ((size_t)A->max_degree + 1) * A->nq * sizeof *A->qoff);
    memcpy(buf + mpf_pseq_at(h), A->pseq_g, ((size_t)A->max_pdeg + 1) * L * sizeof *A->pseq_g);
    memcpy(buf + mpf_pdim_at(h), A->pdim, ((size_t)A->max_pdeg + 1) * sizeof *A->pdim);
    memcpy(buf + mpf_binom_at(h), A->binom, (size_t)A->p * A->p);
    return 0;
}

int milnor_p_flat_view(const uint32_t *buf, size_t words, milnor_p_basis *view, milnor_p_elt **elts_scratch,
                       uint32_t *dim_scratch)
{
    if (words < MILNOR_P_FLAT_HEADER || buf[0] != MILNOR_P_FLAT_MAGIC || buf[3] != words ||
        !milnor_p_prime_ok(buf[1]) || buf[2] > MILNOR_P_MAX_DEGREE || mpf_words(buf) != words)
        return -1;
    const uint32_t *first = buf + mpf_first_at();
    memset(view, 0, sizeof *view);
    view->p = buf[1];
    view->pdiv = view->p ? UINT64_MAX / view->p + 1 : 0;
    view->qdeg = 2 * (buf[1] - 1);
    view->max_degree = (deg_t)buf[2];
    view->nq = buf[5];
    view->max_pdeg = buf[6];
    memcpy(view->w, buf + 8, sizeof view->w);
    memcpy(view->tau, buf + 16, sizeof view->tau);
    memcpy(view->ppow, buf + 24, sizeof view->ppow);
    milnor_p_elt *elts = (milnor_p_elt *)(buf + mpf_elts_at(buf));
    for (uint32_t d = 0; d <= buf[2]; ++d) {
        if (first[d + 1] < first[d] || first[d + 1] > buf[4]) return -1;
        dim_scratch[d] = first[d + 1] - first[d];
        elts_scratch[d] = elts + first[d];
    }
    view->dim = dim_scratch;
    view->elts = elts_scratch;
    view->qoff = (uint32_t *)(buf + mpf_qoff_at(buf));
    view->pseq_g = (uint32_t *)(buf + mpf_pseq_at(buf));
    view->pdim = (uint32_t *)(buf + mpf_pdim_at(buf));
    view->binom = (uint8_t *)(buf + mpf_binom_at(buf));
    return 0;
}

/* ---------------------------------------------------------------- sub-Hopf-algebras */

milnor_p_profile milnor_p_profile_full(void)
{
    milnor_p_profile pr;
    memset(&pr, 0, sizeof pr);
    pr.qmask = UINT32_MAX;
    return pr;
}

int milnor_p_profile_is_full(const milnor_p_profile *pr)
{
    if (pr->truncated || (pr->qmask & ((1u << L) - 1)) != ((1u << L) - 1)) return 0;
    for (int i = 0; i < pr->len; ++i)
        if (pr->h[i] < 32) return 0;     /* r_i < p^h with h >= 32: no bound below degree 4096 */
    return 1;
}

int milnor_p_profile_has(const milnor_p_profile *pr, uint32_t p, const milnor_p_elt *X)
{
    if ((X->q & ~pr->qmask) != 0) return 0;
    for (uint32_t i = 0; i < X->len; ++i) {
        if ((int)i >= pr->len) {
            if (pr->truncated && X->r[i]) return 0;
            continue;
        }
        uint64_t bound = 1;
        for (int k = 0; k < pr->h[i] && bound <= UINT32_MAX; ++k) bound *= p;
        if (X->r[i] >= bound) return 0;
    }
    return 1;
}

void milnor_p_sub_clear(milnor_p_sub *B)
{
    for (deg_t d = 0; B->b2a && d <= B->max_degree; ++d) free(B->b2a[d]);
    for (deg_t d = 0; B->a2b && d <= B->max_degree; ++d) free(B->a2b[d]);
    free(B->b2a);
    free(B->a2b);
    if (!B->full) free(B->dim);
    memset(B, 0, sizeof *B);
}

int milnor_p_sub_init(milnor_p_sub *B, const milnor_p_basis *A, const milnor_p_profile *pr)
{
    memset(B, 0, sizeof *B);
    B->A = A;
    B->profile = *pr;
    B->max_degree = A->max_degree;
    if (milnor_p_profile_is_full(pr)) {
        B->full = 1;
        B->dim = A->dim;
        return 0;
    }
    size_t n = (size_t)A->max_degree + 1;
    B->dim = calloc(n, sizeof *B->dim);
    B->b2a = calloc(n, sizeof *B->b2a);
    B->a2b = calloc(n, sizeof *B->a2b);
    if (!B->dim || !B->b2a || !B->a2b) goto fail;
    for (size_t d = 0; d < n; ++d) {
        B->b2a[d] = malloc(((size_t)A->dim[d] + 1) * sizeof **B->b2a);
        B->a2b[d] = malloc(((size_t)A->dim[d] + 1) * sizeof **B->a2b);
        if (!B->b2a[d] || !B->a2b[d]) goto fail;
        for (uint32_t j = 0; j < A->dim[d]; ++j) {
            if (!milnor_p_profile_has(pr, A->p, &A->elts[d][j])) {
                B->a2b[d][j] = UINT32_MAX;
                continue;
            }
            B->a2b[d][j] = B->dim[d];
            B->b2a[d][B->dim[d]++] = j;
        }
    }
    return 0;
fail:
    milnor_p_sub_clear(B);
    return -1;
}

typedef struct sub_into_ctx {
    const milnor_p_sub *B;
    const uint32_t *a2b;
    uint32_t c;
    uint8_t *out;
    int outside;
    const uint32_t *map;        /* milnor_p_sub_mul_into_map's, else NULL */
} sub_into_ctx;

static void add_into_sub(uint32_t c, const milnor_p_elt *T, void *ctx)
{
    sub_into_ctx *x = ctx;
    uint32_t j = x->a2b[milnor_p_index(x->B->A, T)], p = x->B->A->p;
    if (j == UINT32_MAX) {
        x->outside = 1;
        return;
    }
    x->out[j] = (uint8_t)p_mod(x->B->A->pdiv, p, x->out[j] + c * x->c);
}

static void add_into_map(uint32_t c, const milnor_p_elt *T, void *ctx)
{
    sub_into_ctx *x = ctx;
    uint32_t j = milnor_p_index(x->B->A, T), p = x->B->A->p;
    if (x->a2b && (j = x->a2b[j]) == UINT32_MAX) {
        x->outside = 1;
        return;
    }
    if ((j = x->map[j]) != MILNOR_P_MAP_DROP) x->out[j] = (uint8_t)p_mod(x->B->A->pdiv, p, x->out[j] + c * x->c);
}

int milnor_p_sub_mul_into_map(const milnor_p_sub *B, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                              uint8_t *out, const uint32_t *map)
{
    sub_into_ctx x = { B, B->full ? NULL : B->a2b[X->degree + Y->degree], c % B->A->p, out, 0, map };
    if (x.c) milnor_p_mul_each(B->A, X, Y, add_into_map, &x);
    return x.outside ? -1 : 0;
}

int milnor_p_sub_mul_into(const milnor_p_sub *B, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                          uint8_t *out)
{
    if (B->full) {
        milnor_p_mul_into(B->A, X, Y, c, out);
        return 0;
    }
    sub_into_ctx x = { B, B->a2b[X->degree + Y->degree], c % B->A->p, out, 0, NULL };
    if (x.c) milnor_p_mul_each(B->A, X, Y, add_into_sub, &x);
    return x.outside ? -1 : 0;
}

int milnor_p_sub_closed(const milnor_p_sub *B, deg_t max_degree)
{
    if (B->full) return 1;
    if (max_degree > B->max_degree) max_degree = B->max_degree;
    uint32_t most = 0;
    for (deg_t d = 0; d <= max_degree; ++d) most = B->A->dim[d] > most ? B->A->dim[d] : most;
    uint8_t *scratch = calloc((size_t)most + 1, 1);
    int ok = scratch != NULL;
    for (deg_t dx = 1; ok && dx < max_degree; ++dx)
        for (deg_t dy = 1; ok && dx + dy <= max_degree; ++dy)
            for (uint32_t i = 0; ok && i < B->dim[dx]; ++i)
                for (uint32_t j = 0; ok && j < B->dim[dy]; ++j)
                    ok = milnor_p_sub_mul_into(B, milnor_p_sub_elt(B, dx, i), milnor_p_sub_elt(B, dy, j), 1,
                                               scratch) == 0;
    free(scratch);
    return ok;
}

int milnor_p_profile_equal(const milnor_p_profile *a, const milnor_p_profile *b)
{
    if (a->qmask != b->qmask || a->truncated != b->truncated) return 0;
    for (int i = 0; i < MILNOR_P_MAX_LEN; i++) {
        int ha = i < a->len ? a->h[i] : a->truncated ? 0 : -1, hb = i < b->len ? b->h[i] : b->truncated ? 0 : -1;
        if (ha != hb) return 0;
    }
    return 1;
}
