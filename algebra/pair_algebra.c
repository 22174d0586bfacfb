/* pair_algebra.c — see pair_algebra.h for the maths and the layout. */
#include "algebra/pair_algebra.h"
#include <stdlib.h>
#include <string.h>

/* ---- coefficients mod 4 ------------------------------------------------------------------ */

/* (-1)^(number of factors 3 mod 4 in the odd part of m!): 0 for +1, 1 for -1. */
static unsigned odd_fact_sign(uint32_t m)
{
    unsigned e = 0;
    for (; m; m >>= 1) e += (m + 1) >> 2;
    return e & 1;
}

unsigned binom_mod4(uint32_t n, uint32_t k)
{
    if (k > n) return 0;
    int carries = __builtin_popcount(k) + __builtin_popcount(n - k) - __builtin_popcount(n);
    if (carries >= 2) return 0;
    if (carries == 1) return 2;
    return (odd_fact_sign(n) ^ odd_fact_sign(k) ^ odd_fact_sign(n - k)) ? 3 : 1;
}

unsigned multinomial_mod4(const uint32_t *x, int n)
{
    unsigned c = 1;
    uint32_t sum = 0;
    for (int i = 0; i < n && c; i++) {
        sum += x[i];
        c = (c * binom_mod4(sum, x[i])) & 3;
    }
    return c;
}

/* ---- the product in B0: every Milnor matrix -------------------------------------------------
 * X has rows i = 0..lr (row 0 the free part), columns j = 0..ls; for i >= 1,
 * sum_j 2^j x_ij = r_i (x_i0 takes the rest), for j >= 1, sum_i x_ij = s_j (x_0j the rest);
 * T_n = sum_{i+j=n} x_ij and c = prod_n multinomial(x_{n,0}, x_{n-1,1}, ..., x_{0,n}). */

#define MX (MILNOR_MAX_LEN + 1)
typedef struct mod4_search {
    const milnor_elt *R, *S;
    int lr, ls;
    uint32_t x[MX][MX];
    uint32_t col[MX];                           /* sum over rows 1..i of x_ij so far */
    void (*emit)(const milnor_elt *T, unsigned c, void *ctx);
    void *ctx;
} mod4_search;

static void mod4_finish(mod4_search *m)
{
    for (int j = 1; j <= m->ls; j++) m->x[0][j] = m->S->r[j - 1] - m->col[j];
    milnor_elt T;
    memset(&T, 0, sizeof T);
    unsigned c = 1;
    int top = m->lr + m->ls;
    for (int n = 1; n <= top && c; n++) {
        uint32_t diag[MX];
        int nd = 0;
        uint32_t sum = 0;
        for (int i = n; i >= 0; i--) {
            int j = n - i;
            if (i > m->lr || j > m->ls) continue;
            diag[nd++] = m->x[i][j];
            sum += m->x[i][j];
        }
        c = (c * multinomial_mod4(diag, nd)) & 3;
        if (sum) {
            if (n > MILNOR_MAX_LEN) return;     /* beyond every degree we hold */
            T.r[n - 1] = sum;
            T.len = (uint32_t)n;
        }
    }
    if (!c) return;
    T.degree = m->R->degree + m->S->degree;
    m->emit(&T, c, m->ctx);
}

/* Row i (1-based), column j (1-based) of the R-part; rem = what is left of r_i. */
static void mod4_cell(mod4_search *m, int i, int j, uint32_t rem)
{
    if (i > m->lr) {
        mod4_finish(m);
        return;
    }
    if (j > m->ls) {                            /* row done: x_i0 takes the rest */
        m->x[i][0] = rem;
        mod4_cell(m, i + 1, 1, i + 1 <= m->lr ? m->R->r[i] : 0);
        return;
    }
    uint32_t room = m->S->r[j - 1] - m->col[j];
    for (uint32_t v = 0; v <= room && ((uint64_t)v << j) <= rem; v++) {
        m->x[i][j] = v;
        m->col[j] += v;
        mod4_cell(m, i, j + 1, rem - (v << j));
        m->col[j] -= v;
    }
    m->x[i][j] = 0;
}

void milnor_mul_mod4_each(const milnor_elt *R, const milnor_elt *S,
                          void (*emit)(const milnor_elt *T, unsigned c, void *ctx), void *ctx)
{
    mod4_search m;
    memset(&m, 0, sizeof m);
    m.R = R, m.S = S, m.lr = (int)R->len, m.ls = (int)S->len;
    m.emit = emit, m.ctx = ctx;
    mod4_cell(&m, 1, 1, m.lr ? R->r[0] : 0);
}

/* ---- pair elements ------------------------------------------------------------------------- */

static int log2_floor(uint32_t v) { return 31 - __builtin_clz(v); }
static size_t words_of(uint32_t bits) { return ((size_t)bits + 63) / 64; }

int pair_elt_init(pair_elt *e, const milnor_basis *A, deg_t d)
{
    memset(e, 0, sizeof *e);
    if (d < 1 || d > A->max_degree) return -1;
    e->degree = d;
    e->nk = log2_floor((uint32_t)d) + 1;
    size_t words = 2 * words_of(A->dim[d]);
    for (int k = 0; k < e->nk; k++) {
        uint32_t rem = (uint32_t)d + 1 - (1u << k);
        e->nl[k] = log2_floor(rem) + 1;
        for (int l = 0; l < e->nl[k]; l++) {
            e->ys_dim[k][l] = A->dim[rem - (1u << l)];
            words += words_of(e->ys_dim[k][l]);
        }
    }
    e->mem = calloc(words ? words : 1, sizeof(uint64_t));
    if (!e->mem) return -1;
    e->words = words;
    uint64_t *p = e->mem;
    e->ones = p, p += words_of(A->dim[d]);
    e->twos = p, p += words_of(A->dim[d]);
    for (int k = 0; k < e->nk; k++)
        for (int l = 0; l < e->nl[k]; l++) e->ys[k][l] = p, p += words_of(e->ys_dim[k][l]);
    return 0;
}

void pair_elt_clear(pair_elt *e)
{
    free(e->mem);
    memset(e, 0, sizeof *e);
}

int pair_elt_is_zero(const pair_elt *e)
{
    for (size_t w = 0; w < e->words; w++)
        if (e->mem[w]) return 0;
    return 1;
}

/* Sq(R) with 2^sh removed from slot n (1-based; n = 0: nothing); 0 if that goes negative. */
static int sub_slot(milnor_elt *R, int n, int sh)
{
    if (n == 0) return 1;
    if (n > MILNOR_MAX_LEN || R->r[n - 1] < (1u << sh)) return 0;
    R->r[n - 1] -= 1u << sh;
    R->degree -= (deg_t)(milnor_xi_degree[n - 1] << sh);
    while (R->len && !R->r[R->len - 1]) R->len--;
    return 1;
}

typedef struct mod4_acc {
    const milnor_basis *A;
    pair_elt *e;
} mod4_acc;

/* ones + 2 twos += c at T, in Z/4. */
static void add_mod4(const milnor_elt *T, unsigned c, void *vctx)
{
    mod4_acc *acc = vctx;
    uint32_t idx = milnor_index(acc->A, T);
    uint64_t bit = (uint64_t)1 << (idx & 63);
    uint64_t *ones = &acc->e->ones[idx >> 6], *twos = &acc->e->twos[idx >> 6];
    unsigned v = ((*ones & bit) ? 1u : 0u) + c;
    if (v & 1) *ones |= bit; else *ones &= ~bit;
    if (v & 2) *twos ^= bit;
}

void pair_sigma_mul_add(const milnor_basis *A, pair_elt *e, const milnor_elt *R, const milnor_elt *S)
{
    /* the Y terms */
    for (int k = 0; k < (int)S->len; k++) {
        milnor_elt S1 = *S;
        if (!sub_slot(&S1, k + 1, 0)) continue;
        for (int n = 1; n <= (int)R->len; n++) {
            milnor_elt R1 = *R;
            if (!sub_slot(&R1, n, k)) continue;
            for (int m = 0; m < n; m++) {
                milnor_elt R2 = R1;
                if (!sub_slot(&R2, m, k)) continue;
                int a = m + k, b = n + k;
                if (a >= e->nk || b >= e->nl[a]) continue;   /* cannot happen: degrees agree */
                milnor_mul_into(A, &R2, &S1, e->ys[a][b], 0);
            }
        }
    }
    /* the product, mod 4 */
    mod4_acc acc = { A, e };
    milnor_mul_mod4_each(R, S, add_mod4, &acc);
}

int pair_finalize(pair_elt *e)
{
    size_t w = (size_t)(e->twos - e->ones);     /* ones and twos have the same length */
    for (size_t i = 0; i < w; i++)
        if (e->ones[i]) return -1;
    return 0;
}

void pair_a_y(const milnor_basis *A, const milnor_elt *R, int k, int l, uint64_t *out, uint64_t col_offset)
{
    int len = (int)R->len;
    for (int i = 0; i <= len; i++) {
        if (i + k < l) continue;
        milnor_elt R1 = *R;
        if (!sub_slot(&R1, i, k)) continue;
        int jmax = i + k - l < len ? i + k - l : len;
        for (int j = 0; j <= jmax; j++) {
            milnor_elt R2 = R1;
            if (!sub_slot(&R2, j, l)) continue;
            uint32_t t[MILNOR_MAX_LEN] = { 0 };
            if (k + i > MILNOR_MAX_LEN) continue;
            t[k + i - 1] += 1;
            t[l + j - 1] += 1;
            milnor_elt T;
            milnor_elt_set(&T, t, k + i);
            milnor_mul_into(A, &T, &R2, out, col_offset);
        }
    }
}

/* ---- the A(R, Y) cache ----------------------------------------------------------------------- */

typedef struct pair_ay_entry {
    uint64_t key;                               /* 0: empty */
    uint64_t *vec;
} pair_ay_entry;

static uint64_t ay_key(deg_t deg, uint32_t idx, int k, int l)
{
    return 1 + ((uint64_t)deg << 40 | (uint64_t)idx << 10 | (uint64_t)k << 5 | (uint64_t)l);
}

int pair_ay_cache_init(pair_ay_cache *c)
{
    memset(c, 0, sizeof *c);
    c->cap = 1024;
    c->slots = calloc(c->cap, sizeof *c->slots);
    if (!c->slots) return -1;
    pthread_mutex_init(&c->lock, NULL);
    return 0;
}

void pair_ay_cache_clear(pair_ay_cache *c)
{
    if (!c->slots) return;
    for (size_t i = 0; i < c->cap; i++) free(c->slots[i].vec);
    free(c->slots);
    pthread_mutex_destroy(&c->lock);
    memset(c, 0, sizeof *c);
}

static size_t ay_slot(const pair_ay_cache *c, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (c->cap - 1);
    while (c->slots[i].key && c->slots[i].key != key) i = (i + 1) & (c->cap - 1);
    return i;
}

static int ay_grow(pair_ay_cache *c)
{
    pair_ay_cache bigger = *c;
    bigger.cap = c->cap * 2;
    bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots) return -1;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].key) bigger.slots[ay_slot(&bigger, c->slots[i].key)] = c->slots[i];
    free(c->slots);
    c->slots = bigger.slots;
    c->cap = bigger.cap;
    return 0;
}

const uint64_t *pair_ay_cached(pair_ay_cache *c, const milnor_basis *A, const milnor_elt *R, int k, int l)
{
    uint64_t key = ay_key(R->degree, milnor_index(A, R), k, l);
    pthread_mutex_lock(&c->lock);
    size_t i = ay_slot(c, key);
    if (c->slots[i].key) {
        c->hits++;
        const uint64_t *v = c->slots[i].vec;
        pthread_mutex_unlock(&c->lock);
        return v;
    }
    pthread_mutex_unlock(&c->lock);
    /* computed outside the lock; a thread that lost the race frees its copy */
    deg_t d = R->degree + (1 << k) + (1 << l) - 2;
    uint64_t *v = calloc(words_of(A->dim[d]) + 1, sizeof *v);
    if (!v) return NULL;
    pair_a_y(A, R, k, l, v, 0);
    pthread_mutex_lock(&c->lock);
    i = ay_slot(c, key);
    if (c->slots[i].key) {
        free(v);
        v = c->slots[i].vec;
    } else {
        if (2 * (c->n + 1) > c->cap && ay_grow(c) != 0) {
            pthread_mutex_unlock(&c->lock);
            free(v);
            return NULL;
        }
        i = ay_slot(c, key);
        c->slots[i].key = key;
        c->slots[i].vec = v;
        c->n++;
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return v;
}

/* ---- the action of A on pair elements -------------------------------------------------------- */

/* out ^= x·y at col_offset, x over A_dx, y over A_dy (packed). */
static void mul_vectors(const milnor_basis *A, const uint64_t *x, deg_t dx, const uint64_t *y, deg_t dy,
                        uint64_t *out, uint64_t col_offset)
{
    for (uint32_t i = 0; i < A->dim[dx]; i++) {
        if (!(x[i >> 6] >> (i & 63) & 1)) continue;
        for (uint32_t j = 0; j < A->dim[dy]; j++)
            if (y[j >> 6] >> (j & 63) & 1) milnor_mul_into(A, &A->elts[dx][i], &A->elts[dy][j], out, col_offset);
    }
}

int pair_a_mul_add(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                   const pair_elt *e, uint64_t *out, uint64_t col_offset)
{
    if (!n || a[0].degree == 0) return 0;
    deg_t da = a[0].degree, d = e->degree;
    /* twos: Sq(R - e_1)·twos */
    for (uint32_t r = 0; r < n; r++) {
        milnor_elt R1 = a[r];
        if (!sub_slot(&R1, 1, 0)) continue;
        for (uint32_t j = 0; j < A->dim[d]; j++)
            if (e->twos[j >> 6] >> (j & 63) & 1) milnor_mul_into(A, &R1, &A->elts[d][j], out, col_offset);
    }
    /* Y terms: (sum over a's terms of A(Sq R, Y_{k,l}))·ys[k][l] */
    for (int k = 0; k < e->nk; k++)
        for (int l = k + 1; l < e->nl[k]; l++) {
            const uint64_t *y = e->ys[k][l];
            int any = 0;
            for (size_t w = 0; w < words_of(e->ys_dim[k][l]) && !any; w++) any = y[w] != 0;
            if (!any) continue;
            deg_t dy = d + 1 - (1 << k) - (1 << l), day = da + (1 << k) + (1 << l) - 2;
            size_t aw = words_of(A->dim[day]);
            uint64_t *sum = calloc(aw + 1, sizeof *sum);
            if (!sum) return -1;
            for (uint32_t r = 0; r < n; r++) {
                const uint64_t *v = pair_ay_cached(cache, A, &a[r], k, l);
                if (!v) {
                    free(sum);
                    return -1;
                }
                for (size_t w = 0; w < aw; w++) sum[w] ^= v[w];
            }
            mul_vectors(A, sum, day, y, dy, out, col_offset);
            free(sum);
        }
    return 0;
}
