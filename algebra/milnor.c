/* milnor.c — Milnor basis of the mod 2 Steenrod algebra, its index and its product.
 * See milnor.h and ../shared/docs/algorithms.md §1, §2, §5.2. */
#include "algebra/milnor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W MILNOR_MAX_LEN
#define MD (MILNOR_MAX_LEN + 1)        /* Milnor matrix side: row/column 0 plus 10 slots */

const uint32_t milnor_xi_degree[MILNOR_MAX_LEN] = {1, 3, 7, 15, 31, 63, 127, 255, 511, 1023};

/* ---------------------------------------------------------------- elements */

void milnor_elt_set(milnor_elt *R, const uint32_t *r, int n)
{
    memset(R, 0, sizeof *R);
    while (n > 0 && r[n - 1] == 0) --n;
    if (n > W) n = W;
    for (int i = 0; i < n; ++i) {
        R->r[i] = r[i];
        R->degree += (deg_t)(r[i] * milnor_xi_degree[i]);
    }
    R->len = (uint32_t)n;
}

char *milnor_elt_format(const milnor_elt *R, char *buf, size_t size)
{
    size_t k = 0;
    if (size == 0) return buf;
    k += (size_t)snprintf(buf, size, "Sq(");
    for (uint32_t i = 0; i < R->len && k < size; ++i)
        k += (size_t)snprintf(buf + k, size - k, i ? ",%u" : "%u", R->r[i]);
    if (k < size) snprintf(buf + k, size - k, ")");
    return buf;
}

/* ---------------------------------------------------------------- profiles */

milnor_profile milnor_profile_full(void)
{
    milnor_profile p;
    memset(&p, 0, sizeof p);
    return p;
}

milnor_profile milnor_profile_an(int n)
{
    milnor_profile p = milnor_profile_full();
    p.truncated = 1;
    p.len = n + 1 < 0 ? 0 : (n + 1 > W ? W : n + 1);
    for (int i = 0; i < p.len; ++i) p.h[i] = (uint8_t)(n + 1 - i);
    return p;
}

/* h of 0-based slot i: listed, 0 beyond a truncated profile, "infinite" (255) otherwise. */
static int profile_h(const milnor_profile *p, int i)
{
    if (i < p->len) return p->h[i];
    return p->truncated ? 0 : 255;
}

int milnor_profile_is_valid(const milnor_profile *p)
{
    if (p->len < 0 || p->len > W) return 0;
    for (int i = 0; i < p->len; ++i)
        if (p->truncated && p->h[i] > p->len - i) return 0;
    /* Sub-Hopf condition: h_i > (j-i) + h_j implies h_{j-i-1} <= h_j (0-based slots). */
    for (int i = 0; i < W; ++i)
        for (int j = i + 1; j < W; ++j) {
            int hi = profile_h(p, i), hj = profile_h(p, j);
            if (hj < 255 && hi > (j - i) + hj && profile_h(p, j - i - 1) > hj) return 0;
        }
    return 1;
}

uint32_t milnor_profile_slot_max(const milnor_profile *p, int i)
{
    int h = profile_h(p, i);
    return h >= 32 ? UINT32_MAX : (uint32_t)((1ull << h) - 1);
}

int milnor_profile_contains(const milnor_profile *p, const milnor_elt *R)
{
    for (uint32_t i = 0; i < R->len; ++i)
        if (R->r[i] > milnor_profile_slot_max(p, (int)i)) return 0;
    return 1;
}

deg_t milnor_profile_top_degree(const milnor_profile *p)
{
    if (!p->truncated) return -1;
    deg_t top = 0;
    for (int i = 0; i < p->len; ++i)
        top += (deg_t)(milnor_xi_degree[i] * milnor_profile_slot_max(p, i));
    return top;
}

void milnor_profile_next_nassau(milnor_profile *p)
{
    p->truncated = 1;
    if ((p->len == 0 || p->h[0] == p->len) && p->len < W) {    /* [] or A(n): append a 1 */
        p->h[p->len++] = 1;
        return;
    }
    for (int k = p->len - 1, idx = 0; k >= 0; --k, ++idx)
        if (p->h[k] == idx) { p->h[k]++; return; }
}

/* ---------------------------------------------------------------- basis */

static uint32_t hash_entries(const uint32_t *r, uint32_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    for (uint32_t i = 0; i < len; ++i) h = (h ^ r[i]) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ h >> 29);
}

/* Index of the basis element with entries r[0..len) in degree d of a profile basis. */
static uint32_t hash_lookup(const milnor_basis *A, deg_t d, const uint32_t *r, uint32_t len)
{
    const uint32_t *tab = A->hash[d];
    uint32_t mask = A->hash_mask[d];
    for (uint32_t s = hash_entries(r, len) & mask;; s = (s + 1) & mask) {
        if (tab[s] == 0) return UINT32_MAX;
        const milnor_elt *e = &A->elts[d][tab[s] - 1];
        if (e->len == len && memcmp(e->r, r, len * sizeof *r) == 0) return tab[s] - 1;
    }
}

static int build_hash(milnor_basis *A, deg_t d)
{
    uint32_t cap = 2;
    while (cap < 2 * A->dim[d]) cap *= 2;
    uint32_t *tab = calloc(cap, sizeof *tab);
    if (!tab) return -1;
    for (uint32_t k = 0; k < A->dim[d]; ++k) {
        const milnor_elt *e = &A->elts[d][k];
        uint32_t s = hash_entries(e->r, e->len) & (cap - 1);
        while (tab[s]) s = (s + 1) & (cap - 1);
        tab[s] = k + 1;
    }
    A->hash[d] = tab;
    A->hash_mask[d] = cap - 1;
    return 0;
}

/* seqno tables of §1.4: n[e][m] = #Sq(R) of degree e using slots 0..m, g as documented. */
static int build_seqno(milnor_basis *A)
{
    size_t rows = (size_t)A->max_degree + 1;
    uint32_t *n = malloc(rows * W * sizeof *n);
    A->seq_g = malloc(rows * W * sizeof *A->seq_g);
    if (!n || !A->seq_g) { free(n); return -1; }
    for (size_t e = 0; e < rows; ++e) {
        uint32_t *ne = n + e * W, *ge = A->seq_g + e * W;
        ne[0] = 1;
        ge[0] = 1;
        for (int m = 1; m < W; ++m) {
            size_t x = milnor_xi_degree[m];
            ne[m] = ne[m - 1] + (x <= e ? n[(e - x) * W + m] : 0);
            ge[m] = ne[m - 1] + (x <= e ? A->seq_g[(e - x) * W + m] : 0);
        }
    }
    free(n);
    return 0;
}

/* Counts (pass elts NULL) or writes the elements of degree d, in the order of §1.3. */
static uint32_t enumerate_degree(const milnor_basis *A, const uint32_t *pmax, deg_t d,
                                 milnor_elt *out)
{
    uint32_t k = 0;
    if (d == 0) {
        if (out) memset(out, 0, sizeof *out);
        return 1;
    }
    for (int i = 0; i < W && (deg_t)milnor_xi_degree[i] <= d; ++i) {
        if (pmax[i] == 0) continue;
        deg_t od = d - (deg_t)milnor_xi_degree[i];
        for (uint32_t o = 0; o < A->dim[od]; ++o) {
            const milnor_elt *old = &A->elts[od][o];
            if (old->len > (uint32_t)i + 1) break;
            if (old->len == (uint32_t)i + 1 && old->r[i] == pmax[i]) continue;
            if (out) {
                out[k] = *old;
                out[k].r[i]++;
                out[k].len = (uint32_t)i + 1;
                out[k].degree = d;
            }
            ++k;
        }
    }
    return k;
}

static int build_elements(milnor_basis *A)
{
    uint32_t pmax[W];
    for (int i = 0; i < W; ++i) pmax[i] = milnor_profile_slot_max(&A->profile, i);
    for (deg_t d = 0; d <= A->max_degree; ++d) {
        A->dim[d] = enumerate_degree(A, pmax, d, NULL);
        A->elts[d] = malloc((A->dim[d] ? A->dim[d] : 1) * sizeof **A->elts);
        if (!A->elts[d]) return -1;
        enumerate_degree(A, pmax, d, A->elts[d]);
    }
    return 0;
}

static int is_full_profile(const milnor_profile *p)
{
    for (int i = 0; i < p->len; ++i)
        if (p->h[i] < 32) return 0;
    return !p->truncated;
}

int milnor_basis_init(milnor_basis *A, deg_t max_degree, const milnor_profile *profile)
{
    memset(A, 0, sizeof *A);
    if (max_degree < 0 || max_degree > MILNOR_MAX_DEGREE) return -1;
    if (profile && (profile->len < 0 || profile->len > W)) return -1;
    A->max_degree = max_degree;
    A->profile = profile ? *profile : milnor_profile_full();
    size_t n = (size_t)max_degree + 1;
    A->dim = calloc(n, sizeof *A->dim);
    A->elts = calloc(n, sizeof *A->elts);
    if (!A->dim || !A->elts || build_elements(A) < 0) goto fail;
    if (is_full_profile(&A->profile)) {
        if (build_seqno(A) < 0) goto fail;
        return 0;
    }
    A->hash = calloc(n, sizeof *A->hash);
    A->hash_mask = calloc(n, sizeof *A->hash_mask);
    if (!A->hash || !A->hash_mask) goto fail;
    for (deg_t d = 0; d <= max_degree; ++d)
        if (build_hash(A, d) < 0) goto fail;
    return 0;
fail:
    milnor_basis_clear(A);
    return -1;
}

void milnor_basis_clear(milnor_basis *A)
{
    size_t n = (size_t)A->max_degree + 1;
    for (size_t d = 0; A->elts && d < n; ++d) free(A->elts[d]);
    for (size_t d = 0; A->hash && d < n; ++d) free(A->hash[d]);
    free(A->elts);
    free(A->dim);
    free(A->seq_g);
    free(A->hash);
    free(A->hash_mask);
    memset(A, 0, sizeof *A);
}

/* Index from the entries t[0..len) (trimmed) of an element of degree d. */
static inline uint32_t index_of(const milnor_basis *A, deg_t d, const uint32_t *t, uint32_t len)
{
    if (!A->seq_g) return hash_lookup(A, d, t, len);
    const uint32_t *g = A->seq_g;
    uint32_t cur = (uint32_t)d, rank = 0;
    for (int h = (int)len - 1; h >= 1; --h) {
        if (!t[h]) continue;
        uint32_t below = cur - t[h] * milnor_xi_degree[h];
        rank += g[cur * W + h] - g[below * W + h];
        cur = below;
    }
    return rank;
}

uint32_t milnor_index(const milnor_basis *A, const milnor_elt *R)
{
    return index_of(A, R->degree, R->r, R->len);
}

/* ---------------------------------------------------------------- product (§2) */

/* Milnor matrices X (§2.1) are enumerated depth first over their interior entries x_ij
 * (i, j >= 1; the "cells"), each new entry taking only values with no bit in common with
 * the entries already placed on its anti-diagonal (next such value: ((x|mask)+1)&~mask,
 * §2.3). Once the last cell of row i is placed, x_i0 (the rest of r_i) is placed on
 * diagonal i; once the last cell of column j is placed, x_0j (the rest of s_j) on diagonal
 * j; each under the same no-common-bit rule. So every leaf is a matrix whose multinomials
 * are all odd, and T is read off the diagonal masks. Entries that cannot be non-zero
 * (2^j > r_i or s_j = 0) are not cells; rows and columns without cells have their x_i0 = r_i,
 * x_0j = s_j placed before the search. No allocation: the state lives on the stack. */

enum { ROW_END = 1, COL_END = 2 };

typedef struct mm_cell {
    uint8_t i, j, n;                /* row, column, anti-diagonal i + j */
    uint8_t ends;                   /* ROW_END / COL_END: x_i0 / x_0j is placed after it */
} mm_cell;

typedef struct mm_search {
    uint32_t rem[MD];               /* r_i minus the weight placed in row i */
    uint32_t col[MD];               /* s_j minus the entries placed in column j */
    uint32_t mask[2 * MD];          /* OR (= sum) of the entries placed on anti-diagonal n */
    uint32_t val[W * W];            /* current value of each cell */
    mm_cell cell[W * W];
    int ncells;                     /* -1 once the search is over */
    int ndiag;                      /* len R + len S */
    int k;                          /* current cell; -1 before the first matrix */
} mm_search;

/* Places an entry x on diagonal n; 0 (and nothing placed) if it shares a bit with it. */
static inline int mm_fix(mm_search *s, int n, uint32_t x)
{
    if (s->mask[n] & x) return 0;
    s->mask[n] |= x;
    return 1;
}

/* Places the remainders that cell c completes; 0 (nothing placed) on a clash. Inside a row,
 * x_i0 mod 2^{j+1} is already known (later cells weigh 2^{j+1} and more): test those bits. */
static inline int mm_place_ends(mm_search *s, mm_cell c)
{
    if (!(c.ends & ROW_END)) {
        if (s->rem[c.i] & s->mask[c.i] & ((2u << c.j) - 1)) return 0;
    } else if (!mm_fix(s, c.i, s->rem[c.i]))
        return 0;
    if ((c.ends & COL_END) && !mm_fix(s, c.j, s->col[c.j])) {
        if (c.ends & ROW_END) s->mask[c.i] ^= s->rem[c.i];
        return 0;
    }
    return 1;
}

static inline void mm_remove_ends(mm_search *s, mm_cell c)
{
    if (c.ends & COL_END) s->mask[c.j] ^= s->col[c.j];
    if (c.ends & ROW_END) s->mask[c.i] ^= s->rem[c.i];
}

/* Sets up the cells, their end flags and the fixed entries; 0 if the product is zero
 * already. Cells go column by column (j ascending, then i), so that each column's x_0j is
 * placed early and the known low bits of every x_i0 grow with j. */
static inline int mm_setup(mm_search *s, const milnor_elt *R, const milnor_elt *S)
{
    int m = (int)R->len, n = (int)S->len, last_in_row[MD];
    s->ncells = 0;
    s->k = -1;
    s->ndiag = m + n;
    memset(s->mask, 0, sizeof s->mask);
    for (int i = 1; i <= m; ++i) {
        s->rem[i] = R->r[i - 1];
        last_in_row[i] = -1;
    }
    for (int j = 1; j <= n; ++j) {
        int first = s->ncells;
        s->col[j] = S->r[j - 1];
        for (int i = 1; i <= m && s->col[j]; ++i)
            if (s->rem[i] >> j) {
                last_in_row[i] = s->ncells;
                s->cell[s->ncells++] = (mm_cell){(uint8_t)i, (uint8_t)j, (uint8_t)(i + j), 0};
            }
        if (s->ncells > first) s->cell[s->ncells - 1].ends = COL_END;
        else if (!mm_fix(s, j, s->col[j])) return 0;
    }
    for (int i = 1; i <= m; ++i) {
        if (last_in_row[i] >= 0) s->cell[last_in_row[i]].ends |= ROW_END;
        else if (!mm_fix(s, i, s->rem[i])) return 0;
    }
    return 1;
}

/* T of the complete matrix at a leaf: t_n = mask of diagonal n. Returns its length. */
static inline int mm_leaf(const mm_search *s, uint32_t *t)
{
    int len = 0;
    for (int n = 1; n <= s->ndiag; ++n)
        if ((t[n - 1] = s->mask[n])) len = n;
    return len;
}

/* Gives cell *k its next admissible value, backtracking to earlier cells when it has none;
 * 0 when the search is over. */
static inline int mm_advance(mm_search *s, int *k)
{
    for (;;) {
        const mm_cell c = s->cell[*k];
        uint32_t x = s->val[*k], m;
        s->rem[c.i] += x << c.j;
        s->col[c.j] += x;
        m = s->mask[c.n] ^= x;
        x = ((x | m) + 1) & ~m;
        if ((x << c.j) <= s->rem[c.i] && x <= s->col[c.j]) {
            s->rem[c.i] -= x << c.j;
            s->col[c.j] -= x;
            s->mask[c.n] |= x;
            s->val[*k] = x;
            return 1;
        }
        s->val[*k] = 0;
        if (*k == 0) return 0;
        mm_remove_ends(s, s->cell[--*k]);
    }
}

/* Advances the search to the next valid matrix and writes its T into t; returns the length
 * of T, or -1 when there is none left. */
static inline int mm_next(mm_search *s, uint32_t *t)
{
    int k = s->k;
    if (s->ncells < 0) return -1;
    if (k < 0) {                                    /* first call */
        if (s->ncells == 0) {
            s->ncells = -1;                         /* the only matrix */
            return mm_leaf(s, t);
        }
        s->val[k = 0] = 0;
    } else {                                        /* resume after the leaf at cell k */
        mm_remove_ends(s, s->cell[k]);
        goto advance;
    }
    for (;;) {
        if (!mm_place_ends(s, s->cell[k])) goto advance;
        if (k + 1 < s->ncells) {
            s->val[++k] = 0;
            continue;
        }
        s->k = k;
        return mm_leaf(s, t);
    advance:
        if (!mm_advance(s, &k)) {
            s->ncells = -1;
            return -1;
        }
    }
}

void milnor_mul_each(const milnor_elt *R, const milnor_elt *S,
                     void (*emit)(const milnor_elt *T, void *ctx), void *ctx)
{
    mm_search s;
    uint32_t t[2 * MD];
    int len;
    if (!mm_setup(&s, R, S)) return;
    while ((len = mm_next(&s, t)) >= 0) {
        milnor_elt T;
        memset(&T, 0, sizeof T);
        memcpy(T.r, t, (size_t)(len < W ? len : W) * sizeof *t);
        T.len = (uint32_t)len;
        T.degree = R->degree + S->degree;
        emit(&T, ctx);
    }
}

static inline void flip_bit(uint64_t *out, uint64_t bit)
{
    out[bit >> 6] ^= (uint64_t)1 << (bit & 63);
}

/* out ^= Sq(R)·Sq(S) at col_offset: the shared body of mul_into and mul_batch. */
static inline void mul_into(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S,
                            uint64_t *out, uint64_t col_offset)
{
    deg_t d = R->degree + S->degree;
    if (R->len == 0 || S->len == 0) {             /* unit factor */
        const milnor_elt *X = R->len ? R : S;
        flip_bit(out, col_offset + index_of(A, d, X->r, X->len));
        return;
    }
    mm_search s;
    uint32_t t[2 * MD];
    int len;
    if (!mm_setup(&s, R, S)) return;
    while ((len = mm_next(&s, t)) >= 0) flip_bit(out, col_offset + index_of(A, d, t, (uint32_t)len));
}

void milnor_mul_into(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S,
                     uint64_t *out, uint64_t col_offset)
{
    mul_into(A, R, S, out, col_offset);
}

void milnor_mul_batch(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                      const milnor_term *terms, uint64_t *rows, size_t stride_words)
{
    for (size_t i = 0; i < njobs; ++i) {
        const milnor_row_job *job = &jobs[i];
        const milnor_elt *R = &A->elts[job->r_deg][job->r_idx];
        uint64_t *row = rows + i * stride_words;
        for (uint32_t k = job->first_term; k < job->first_term + job->n_terms; ++k) {
            const milnor_term *tm = &terms[k];
            mul_into(A, R, &A->elts[tm->s_deg][tm->s_idx], row, tm->col_offset);
        }
    }
}
