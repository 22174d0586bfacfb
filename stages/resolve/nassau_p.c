/* nassau_p.c — Nassau's step at an odd prime (nassau_p.h; docs/algorithms.md §11.1). */
#include "stages/resolve/nassau_p.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/memacct.h"
#include "algebra/milnor_p_cache.h"
#include "stages/resolve/resolution_p.h"

#define SUB_MAX_Q 4         /* B's Q_k among Q_0..Q_3 */
#define SUB_MAX_LEN 3       /* and h_1..h_3 (h_1, h_2 <= 3, h_3 <= 2): the prototype's candidates */
#define SUB_MAX_CANDS ((1u << SUB_MAX_Q) * 4 * 4 * 3)

typedef struct sub_p {
    uint32_t id;            /* its place in candidates()' list */
    uint32_t qb;            /* bit k: Q_k in B */
    int len;
    uint32_t h[SUB_MAX_LEN];
    uint32_t pw[SUB_MAX_LEN];   /* p^{h_i} */
    uint64_t dim, slope, top;
} sub_p;

typedef struct nassau_p_state {
    sub_p b;
    uint32_t ncodes;
    uint32_t nrows, ncols;          /* dim F_{s-1,t} (generators < t), dim F_{s-2,t} (< t - 1) */
    uint32_t *row_start, *row_idx;  /* bucket code -> row_idx[row_start[c] .. row_start[c+1]) */
    uint32_t *col_start, *col_idx;
    fpmat R1;                       /* the zero-signature rows of d_{s-1}, in bucket order, over F_{s-2,t} */
    uint8_t *dx;                    /* n_new x ncols: d of the new generators */
    _Atomic(uint32_t *) *codes;     /* B's signature codes by degree (codes_table) */
    /* the finish's signatures in its order (by degree, then code; code 0 and degrees past t
     * left out), made by finish_parts or finish, whichever comes first */
    struct code_deg *order;
    uint32_t norder;
    /* a split finish (res_nassau_p_finish_parts): part k makes order[part[k] .. part[k+1]) into
     * made[code] (kept rows and quasi-inverse; .ok once made), which finish applies and frees */
    uint32_t nparts;
    uint32_t *part;
    struct sig_made *made;
} nassau_p_state;

static _Atomic uint64_t stat_steps, stat_corrected, stat_dim, stat_shared;

void res_nassau_p_stats(uint64_t *steps, uint64_t *corrected, uint64_t *largest_dim, uint64_t *shared)
{
    *steps = stat_steps;
    *corrected = stat_corrected;
    *largest_dim = stat_dim;
    *shared = stat_shared;
}

static uint64_t ipow(uint64_t p, uint32_t e)
{
    uint64_t r = 1;
    while (e--) r *= p;
    return r;
}

/* (P) h_m <= h_{m+1} + 1 and (E) k not in QB => h_m <= k - m for m <= k (nassau_p.h). */
static int sub_valid(uint32_t qb, const uint32_t *h, int len)
{
    int hh[16] = { 0 };
    for (int i = 0; i < len; i++) hh[i + 1] = (int)h[i];
    for (int m = 1; m < 15; m++)
        if (hh[m] > hh[m + 1] + 1) return 0;
    for (int k = 0; k < 14; k++)
        if (!(qb >> k & 1))
            for (int m = 1; m <= k; m++)
                if (hh[m] > k - m) return 0;
    return 1;
}

static int sub_make(uint32_t p, uint32_t qb, const uint32_t *h, int len, sub_p *b)
{
    memset(b, 0, sizeof *b);
    b->qb = qb;
    while (len > 0 && h[len - 1] == 0) len--;
    b->len = len;
    b->dim = (uint64_t)1 << __builtin_popcount(qb);
    for (int k = 0; k < SUB_MAX_Q; k++)
        if (qb >> k & 1) {
            uint64_t d = 2 * ipow(p, (uint32_t)k) - 1;
            b->top += d;
            if (d > b->slope) b->slope = d;
        }
    for (int i = 0; i < len; i++) {
        b->h[i] = h[i];
        b->pw[i] = (uint32_t)ipow(p, h[i]);
        uint64_t xi = 2 * (ipow(p, (uint32_t)i + 1) - 1);       /* |xi_{i+1}| */
        if (h[i] && (uint64_t)b->pw[i] * (xi / 2) > b->slope) b->slope = (uint64_t)b->pw[i] * (xi / 2);
        b->top += (uint64_t)(b->pw[i] - 1) * xi;
        b->dim *= b->pw[i];
    }
    return sub_valid(qb, h, len);
}

/* (C) t > slope·s + c and (L) t - top(B) > slope·(s - 2) + c. */
static int sub_usable(const sub_p *b, int s, int64_t t, int64_t c)
{
    return t > (int64_t)b->slope * s + c && t - (int64_t)b->top > (int64_t)b->slope * (s - 2) + c;
}

typedef struct sub_list {
    uint32_t n;
    sub_p *subs;            /* every valid candidate, by dimension (largest first), then top degree */
} sub_list;

static int by_size(const void *a, const void *b)
{
    const sub_p *x = a, *y = b;
    if (x->dim != y->dim) return x->dim > y->dim ? -1 : 1;
    if (x->top != y->top) return x->top < y->top ? -1 : 1;
    if (x->qb != y->qb) return x->qb < y->qb ? -1 : 1;
    return memcmp(x->h, y->h, sizeof x->h);
}

/* Pruning the candidates by slope. A B with slope(B) > MILNOR_P_MAX_DEGREE (4095, the largest t
 * the A_p tables reach) fails (C) t > slope·s + c at every s >= 1 (c >= 0), so it is never used;
 * candidates() drops a profile once a term p^{h_i}·(p^i - 1) of its slope, h_i > 0, passes
 * SLOPE_CAP (h_1, h_2) or SLOPE_CAP_XI3 (h_3); the ξ_3 profiles between the two caps stay but are
 * never usable. A term with h_i = 0 is no part of the slope and is not tested (it was, and from
 * p = 37 on, p^3 - 1 > 32768, dropped every candidate: --algorithm nassau then ran standard
 * steps only). At p <= 31 no h_i = 0 term passes its cap, so the choice of B there is as before
 * (docs/algorithms.md §11.1). */
#define SLOPE_CAP 4096
#define SLOPE_CAP_XI3 (8 * SLOPE_CAP)

/* The candidates at p, made once per prime (QB in Q_0..Q_3, h_1, h_2 <= 3, h_3 <= 2, slope within
 * the caps above). NULL out of memory. */
static const sub_list *candidates(uint32_t p)
{
    static sub_list lists[MILNOR_P_MAX_PRIME + 1];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    sub_list *l = &lists[p];
    pthread_mutex_lock(&lock);
    if (!l->subs && (l->subs = malloc(sizeof *l->subs * SUB_MAX_CANDS))) {
        for (uint32_t qb = 1; qb < 1u << SUB_MAX_Q; qb++)
            for (uint32_t h1 = 0; h1 <= 3; h1++)
                for (uint32_t h2 = 0; h2 <= 3; h2++)
                    for (uint32_t h3 = 0; h3 <= 2; h3++) {
                        uint32_t h[3] = { h1, h2, h3 };
                        if ((h1 && ipow(p, h1) * (p - 1) > SLOPE_CAP) ||
                            (h2 && ipow(p, h2) * (p * p - 1) > SLOPE_CAP) ||
                            (h3 && ipow(p, h3) * (p * p * p - 1) > SLOPE_CAP_XI3))
                            continue;       /* slope past any degree the tables reach */
                        if (sub_make(p, qb, h, 3, &l->subs[l->n])) l->n++;
                    }
        qsort(l->subs, l->n, sizeof *l->subs, by_size);
        for (uint32_t k = 0; k < l->n; k++) l->subs[k].id = k;
    }
    pthread_mutex_unlock(&lock);
    return l->subs ? l : NULL;
}

/* A usable B of largest dimension (then smallest top degree, QB, h): 1, 0 when none, -1 out of
 * memory. */
static int choose(const resolution *res, int s, deg_t t, sub_p *out)
{
    const sub_list *l = s >= 2 ? candidates(res->prime) : NULL;
    if (s >= 2 && !l) return -1;
    for (uint32_t k = 0; l && k < l->n; k++)
        if (sub_usable(&l->subs[k], s, t, res_module_top(res))) {
            *out = l->subs[k];
            return 1;
        }
    return 0;
}

/* The signature code of x (mixed radix: the bits of E ∩ QB, then r_i mod p^{h_i}). */
static uint32_t sig_code(const sub_p *b, const milnor_p_elt *x)
{
    uint32_t code = 0, mult = 1;
    for (int k = 0; k < SUB_MAX_Q; k++)
        if (b->qb >> k & 1) {
            if (x->q >> k & 1) code += mult;
            mult *= 2;
        }
    for (int i = 0; i < b->len; i++) {
        uint32_t r = (uint32_t)i < x->len ? x->r[i] : 0;
        code += (r % b->pw[i]) * mult;
        mult *= b->pw[i];
    }
    return code;
}

/* The degree of the signature with this code. */
static uint64_t sig_degree(const sub_p *b, uint32_t p, uint32_t code)
{
    uint64_t d = 0;
    for (int k = 0; k < SUB_MAX_Q; k++)
        if (b->qb >> k & 1) {
            if (code & 1) d += 2 * ipow(p, (uint32_t)k) - 1;
            code >>= 1;
        }
    for (int i = 0; i < b->len; i++) {
        d += (uint64_t)(code % b->pw[i]) * 2 * (ipow(p, (uint32_t)i + 1) - 1);
        code /= b->pw[i];
    }
    return d;
}

/* The share (nassau_p.h, Sharing). */
#define SHARE_MAX_BYTES ((uint64_t)256 << 20)
enum { SHARE_BUILDING, SHARE_READY, SHARE_ABANDONED, SHARE_DROPPED };

typedef struct share_entry {
    struct share_entry *next;
    int s;
    deg_t t;                /* the zero-signature rows of d_s at t */
    int state;
    fpmat rows;             /* SHARE_READY: over F_{s-1,t}'s generators < t-1 */
} share_entry;

/* The terms of d(h) for one generator h of F_s over F_{s-1}, independent of the degree t a row
 * is made in: target generator (v, q), basis element y of degree |h| - v, coefficient c. At t the
 * column is the offset of generator (v, 0) in F_{s-1,t} plus q·dim A_{t-v} (res_p_terms). */
typedef struct sp_term {
    deg_t v;
    uint32_t q, c;
    const milnor_p_elt *y;
} sp_term;

typedef struct sp_terms {
    uint64_t n;
    sp_term t[];
} sp_terms;

typedef struct nassau_p_share {
    pthread_mutex_t lock;
    share_entry *head;
    uint64_t bytes;
    milnor_p_cache *products;   /* the products kept (milnor_p_cache.h), made with the share */
    /* codes[id][d]: the signature codes of A_p's basis in degree d for candidate id, made once */
    _Atomic(_Atomic(uint32_t *) *) codes[SUB_MAX_CANDS];
    uint64_t codes_bytes;
    /* dterms[s·(max_t+1) + u][i]: the terms of d on generator (u, i) of F_s (sp_terms), made once */
    _Atomic(_Atomic(sp_terms *) *) *dterms;
    _Atomic uint64_t dterms_bytes;
} nassau_p_share;

/* The terms of d kept for all steps (dterms_of) stay below this. */
#define DTERMS_MAX_BYTES ((uint64_t)128 << 20)
static pthread_mutex_t share_make_lock = PTHREAD_MUTEX_INITIALIZER;
static void share_clear(resolution *res);

static nassau_p_share *share_of(resolution *res)
{
    pthread_mutex_lock(&share_make_lock);
    if (!res->odd->share && (res->odd->share = calloc(1, sizeof *res->odd->share))) {
        pthread_mutex_init(&res->odd->share->lock, NULL);
        res->odd->share->products = milnor_p_cache_new(&res->odd->B, res->odd->products_bytes ? res->odd->products_bytes : NASSAU_P_PRODUCTS_BYTES);
        res->odd->share->dterms = calloc(((size_t)res->max_s + 2) * ((size_t)res->max_t + 1), sizeof *res->odd->share->dterms);
        res->odd->share_clear = share_clear;
    }
    pthread_mutex_unlock(&share_make_lock);
    return res->odd->share;
}

/* Candidate b's table of signature codes by degree (below), kept in the share and made on first
 * use (lock-free: the first to publish wins). NULL out of memory. */
static _Atomic(uint32_t *) *codes_table(resolution *res, const sub_p *b)
{
    nassau_p_share *sh = share_of(res);
    if (!sh) return NULL;
    _Atomic(uint32_t *) *row = atomic_load_explicit(&sh->codes[b->id], memory_order_acquire);
    if (!row) {
        _Atomic(uint32_t *) *fresh = calloc((size_t)res->odd->A.max_degree + 1, sizeof *fresh), *none = NULL;
        if (!fresh) return NULL;
        if (atomic_compare_exchange_strong(&sh->codes[b->id], &none, fresh)) row = fresh;
        else {
            free(fresh);
            row = none;
        }
    }
    return row;
}

/* The signature codes of A_p's basis in degree d relative to the step's B, made once per
 * resolution in the table ns->codes. NULL out of memory. */
static const uint32_t *degree_codes(resolution *res, nassau_p_state *ns, deg_t d)
{
    uint32_t *c = atomic_load_explicit(&ns->codes[d], memory_order_acquire);
    if (!c) {
        const milnor_p_sub *B = &res->odd->B;
        nassau_p_share *sh = res->odd->share;
        uint32_t *fresh = malloc(((size_t)B->dim[d] + 1) * sizeof *fresh), *none = NULL;
        if (!fresh) return NULL;
        for (uint32_t r = 0; r < B->dim[d]; r++) fresh[r] = sig_code(&ns->b, milnor_p_sub_elt(B, d, r));
        if (atomic_compare_exchange_strong(&ns->codes[d], &none, fresh)) {
            c = fresh;
            pthread_mutex_lock(&sh->lock);
            sh->codes_bytes += ((size_t)B->dim[d] + 1) * sizeof *fresh;
            pthread_mutex_unlock(&sh->lock);
            memacct_add(MEM_MILNOR, (int64_t)(((size_t)B->dim[d] + 1) * sizeof *fresh));
        } else {
            free(fresh);
            c = none;
        }
    }
    return c;
}

/* Buckets the basis of F_{src,t} (generators of degree < bound) by signature code (stable: each
 * bucket in increasing basis order); the generators of one degree share their codes. 0, or -1
 * out of memory. */
static int bucket(resolution *res, int src, deg_t t, deg_t bound, nassau_p_state *ns, uint32_t **start,
                  uint32_t **idx, uint32_t *n)
{
    const freemod *F = &res->F[src];
    const milnor_p_sub *B = &res->odd->B;
    *n = (uint32_t)freemod_dim(F, t, bound);
    uint32_t *fill = malloc(((size_t)ns->ncodes + 1) * sizeof *fill);
    *start = calloc((size_t)ns->ncodes + 1, sizeof **start);
    *idx = malloc(((size_t)*n + 1) * sizeof **idx);
    if (!fill || !*start || !*idx) {
        free(fill);
        return -1;
    }
    uint32_t *st = *start, *ix = *idx;
    for (deg_t u = freemod_first(F, t); u < bound && u <= t; u++) {
        uint32_t g = F->ngens[u], dim = B->dim[t - u];
        if (!g) continue;
        const uint32_t *dc = degree_codes(res, ns, t - u);
        if (!dc) {
            free(fill);
            return -1;
        }
        for (uint32_t r = 0; r < dim; r++) st[dc[r] + 1] += g;
    }
    for (uint32_t c = 0; c < ns->ncodes; c++) st[c + 1] += st[c];
    memcpy(fill, st, ns->ncodes * sizeof *fill);
    uint32_t j = 0;
    for (deg_t u = freemod_first(F, t); u < bound && u <= t; u++) {
        uint32_t g = F->ngens[u], dim = B->dim[t - u];
        if (!g) continue;
        const uint32_t *dc = degree_codes(res, ns, t - u);
        for (uint32_t i = 0; i < g; i++)
            for (uint32_t r = 0; r < dim; r++) ix[fill[dc[r]]++] = j++;
    }
    free(fill);
    return 0;
}

/* The terms of d on generator (u, i) of F_src, made on first use and kept in the share
 * (published lock-free; past DTERMS_MAX_BYTES not kept). NULL: not kept (out of memory or over
 * the budget), *mine then the caller's to free. */
static const sp_terms *dterms_of(resolution *res, int src, deg_t u, uint32_t i, sp_terms **mine)
{
    nassau_p_share *sh = share_of(res);
    const freemod *F = &res->F[src - 1];
    const fm_gen *h = &res->F[src].gens[u][i];
    const milnor_p_sub *B = &res->odd->B;
    *mine = NULL;
    _Atomic(_Atomic(sp_terms *) *) *slot = sh && sh->dterms ? &sh->dterms[(size_t)src * (res->max_t + 1) + u] : NULL;
    _Atomic(sp_terms *) *gens = slot ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
    if (slot && !gens) {
        _Atomic(sp_terms *) *fresh = calloc((size_t)res->F[src].ngens[u] + 1, sizeof *fresh), *none = NULL;
        if (fresh && atomic_compare_exchange_strong(slot, &none, fresh)) gens = fresh;
        else {
            free(fresh);
            gens = none;
        }
    }
    const sp_terms *kept = gens ? atomic_load_explicit(&gens[i], memory_order_acquire) : NULL;
    if (kept) return kept;
    uint64_t n = 0;
    for (uint32_t b = 0; b < h->bits; b++) n += h->img_p[b] != 0;
    sp_terms *x = malloc(sizeof *x + (n + 1) * sizeof *x->t);
    if (!x) return NULL;
    x->n = 0;
    uint64_t off = 0;
    for (deg_t v = 0; v < u && off < h->bits; v++)
        for (uint32_t q = 0; q < F->ngens[v] && off < h->bits; q++) {
            const uint32_t blen = freemod_block(F, u - v, v);
            for (uint32_t j = 0; j < blen && off < h->bits; j++, off++)
                if (h->img_p[off])
                    x->t[x->n++] = (sp_term){ v, q, h->img_p[off],
                                              milnor_p_sub_elt(B, u - v, F->ex ? excess_index(F->ex, u - v, j) : j) };
        }
    uint64_t bytes = sizeof *x + (n + 1) * sizeof *x->t;
    sp_terms *none = NULL;
    if (gens && atomic_load(&sh->dterms_bytes) + bytes <= DTERMS_MAX_BYTES &&
        atomic_compare_exchange_strong(&gens[i], &none, x)) {
        atomic_fetch_add(&sh->dterms_bytes, bytes);
        memacct_add(MEM_DIFFERENTIALS, (int64_t)bytes);
        return x;
    }
    *mine = x;
    return x;
}

/* The terms of d(h), h the generator (u, i) of F_src, with their columns in degree t (base[v]:
 * the offset of generator (v, 0) in F_{src-1,t}), into *buf (grown as needed); n set. NULL out of
 * memory. */
static const milnor_p_cache_term *gen_terms(resolution *res, int src, deg_t u, uint32_t i, deg_t t, const uint64_t *base,
                                           milnor_p_cache_term **buf, size_t *cap, size_t *n)
{
    sp_terms *mine;
    const sp_terms *x = dterms_of(res, src, u, i, &mine);
    if (!x) return NULL;
    if (x->n + 1 > *cap) {
        free(*buf);
        *cap = x->n + 1 > 2 * *cap ? x->n + 1 : 2 * *cap;
        if (!(*buf = malloc(*cap * sizeof **buf))) {
            *cap = 0;
            free(mine);
            return NULL;
        }
    }
    const freemod *F = &res->F[src - 1];
    for (uint64_t k = 0; k < x->n; k++)
        (*buf)[k] = (milnor_p_cache_term){ base[x->t[k].v] + (uint64_t)x->t[k].q * F->dim[t - x->t[k].v], x->t[k].y,
                                           x->t[k].c };
    *n = x->n;
    free(mine);
    return *buf;
}

/* Rows sel[0..n) (increasing basis indices of F_{src,t}, generators < t) of d_src into the rows
 * dst[k] of out: row = x·d(h), d(h)'s terms kept in the share (dterms_of), the products through
 * pc (milnor_p_cache_mul_terms). colmap: out holds only some columns, column j of the row going
 * to colmap[j] (MILNOR_P_CACHE_DROP: none). 0, -1 out of memory, -2 a product left B. */
static int build_rows(resolution *res, int src, deg_t t, const uint32_t *sel, uint32_t n, fpmat *out,
                      const uint32_t *dst, milnor_p_cache *pc, const uint32_t *colmap)
{
    const freemod *F = &res->F[src];
    const milnor_p_sub *B = &res->odd->B;
    milnor_p_cache_term *buf = NULL;
    size_t cap = 0;
    uint32_t k = 0;
    uint64_t off = 0;
    if (!pc) return -1;
    /* base[v]: generator (v, 0)'s column offset in F_{src-1,t}, summed as res_p_terms does */
    const freemod *T = &res->F[src - 1];
    uint64_t *base = malloc(((size_t)t + 1) * sizeof *base), acc = 0;
    if (!base) return -1;
    for (deg_t v = 0; v < t; v++) {
        base[v] = acc;
        if (v >= freemod_first(T, t) && T->ngens[v]) acc += (uint64_t)T->ngens[v] * T->dim[t - v];
    }
    for (deg_t u = freemod_first(F, t); u < t && k < n; u++)
        for (uint32_t i = 0; i < F->ngens[u] && k < n; i++) {
            uint32_t bl = B->dim[t - u];
            if (sel[k] >= off + bl) {
                off += bl;
                continue;
            }
            size_t nt;
            const milnor_p_cache_term *terms = gen_terms(res, src, u, i, t, base, &buf, &cap, &nt);
            if (!terms) {
                free(buf);
                free(base);
                return -1;
            }
            for (; k < n && sel[k] < off + bl; k++) {
                const milnor_p_elt *x = milnor_p_sub_elt(B, t - u, (uint32_t)(sel[k] - off));
                int bad = milnor_p_cache_mul_terms(pc, x, terms, nt, fpmat_row(out, dst ? dst[k] : k), colmap);
                if (bad) {
                    free(buf);
                    free(base);
                    return bad == -2 ? -1 : -2;
                }
            }
            off += bl;
        }
    free(buf);
    free(base);
    return 0;
}

/* out (rows x cols, initialised here) = the entries cols[] of the rows rows[] of m (0 past m's
 * columns: a shared block stops at the generators < t-1). */
static int gather(fpmat *out, const fpmat *m, const uint32_t *rows, uint32_t nr, const uint32_t *cols, uint32_t nc)
{
    if (fpmat_init(out, m->p, nr, nc) != 0) return -1;
    uint32_t inside = 0;        /* cols[0..inside) lie in m: the columns are increasing */
    while (inside < nc && cols[inside] < m->cols) inside++;
    for (uint32_t i = 0; i < nr; i++) {
        const uint8_t *a = fpmat_row(m, rows[i]);
        uint8_t *o = fpmat_row(out, i);
        for (uint32_t j = 0; j < inside; j++) o[j] = a[cols[j]];
    }
    return 0;
}

static share_entry **share_find(nassau_p_share *sh, int s, deg_t t)
{
    share_entry **e = &sh->head;
    while (*e && ((*e)->s != s || (*e)->t != t)) e = &(*e)->next;
    return e;
}

static void share_unlink(nassau_p_share *sh, share_entry **e)
{
    share_entry *x = *e;
    *e = x->next;
    if (x->rows.data) {
        sh->bytes -= fpmat_bytes(&x->rows);
        memacct_add(MEM_INFLIGHT, -(int64_t)fpmat_bytes(&x->rows));
    }
    fpmat_clear(&x->rows);
    free(x);
}

static void share_clear(resolution *res)
{
    nassau_p_share *sh = res->odd ? res->odd->share : NULL;
    if (!sh) return;
    while (sh->head) share_unlink(sh, &sh->head);
    milnor_p_cache_free(sh->products);
    for (uint32_t k = 0; k < SUB_MAX_CANDS; k++) {
        _Atomic(uint32_t *) *row = atomic_load(&sh->codes[k]);
        for (deg_t d = 0; row && d <= res->odd->A.max_degree; d++) free(atomic_load(&row[d]));
        free(row);
    }
    memacct_add(MEM_MILNOR, -(int64_t)sh->codes_bytes);
    for (size_t k = 0; sh->dterms && k < ((size_t)res->max_s + 2) * ((size_t)res->max_t + 1); k++) {
        _Atomic(sp_terms *) *gens = atomic_load(&sh->dterms[k]);
        int s = (int)(k / ((size_t)res->max_t + 1));
        deg_t u = (deg_t)(k % ((size_t)res->max_t + 1));
        for (uint32_t i = 0; gens && s <= res->max_s && i < res->F[s].ngens[u]; i++) free(atomic_load(&gens[i]));
        free(gens);
    }
    free(sh->dterms);
    memacct_add(MEM_DIFFERENTIALS, -(int64_t)sh->dterms_bytes);
    pthread_mutex_destroy(&sh->lock);
    free(sh);
    res->odd->share = NULL;
}

void res_nassau_p_product_stats(const resolution *res, uint64_t *kept, uint64_t *computed, uint64_t *bytes)
{
    const nassau_p_share *sh = res->odd ? res->odd->share : NULL;
    milnor_p_cache_stats(sh ? sh->products : NULL, kept, computed, bytes);
}

/* Do steps (s, t) and (s+1, t) both multiply the zero-signature rows of d_s with the same B? Both
 * conditions of sub_usable only tighten as s grows, so the B's usable at s+1 are among those at
 * s, and (s+1, t) takes (s, t)'s B exactly when that one is usable at s+1. */
static int share_pair(const resolution *res, int s, deg_t t, const sub_p *known)
{
    sub_p b;
    if (!res_p_nassau_row(res, s, t) || !res_p_nassau_row(res, s + 1, t) || !res_in_region(res, s, t) ||
        !res_in_region(res, s + 1, t))
        return 0;
    if (known) b = *known;
    else if (choose(res, s, t, &b) != 1) return 0;
    return sub_usable(&b, s + 1, t, res_module_top(res));
}

/* The zero-signature rows of d_src at t (sel[0..n): the zero bucket of F_src's generators < t)
 * into out, initialised here over F_{src-1,t}'s generators < t-1: taken from the share when the
 * other step of the pair left them there, else multiplied (and left for it when it is to come;
 * *kept says so, the caller then hands them over with share_put). 0, -1 out of memory, -2 a
 * product left B. known: the B of step (src, t), when the caller is that step. */
static int zero_rows(resolution *res, int src, deg_t t, const sub_p *known, const uint32_t *sel, uint32_t n,
                     fpmat *out, int *kept)
{
    uint32_t width = (uint32_t)freemod_dim(&res->F[src - 1], t, t - 1);
    nassau_p_share *sh = share_pair(res, src, t, known) ? share_of(res) : NULL;
    *kept = 0;
    if (sh) {
        pthread_mutex_lock(&sh->lock);
        share_entry **e = share_find(sh, src, t);
        if (!*e) {
            share_entry *x = calloc(1, sizeof *x);
            if (x) {
                *x = (share_entry){ .next = sh->head, .s = src, .t = t, .state = SHARE_BUILDING };
                sh->head = x;
                *kept = 1;
            }
        } else if ((*e)->state == SHARE_READY && (*e)->rows.rows == n && (*e)->rows.cols == width) {
            *out = (*e)->rows;
            sh->bytes -= fpmat_bytes(out);
            memacct_add(MEM_INFLIGHT, -(int64_t)fpmat_bytes(out));
            (*e)->rows = (fpmat){ 0 };
            share_unlink(sh, e);
            pthread_mutex_unlock(&sh->lock);
            stat_shared++;
            return 0;
        } else if ((*e)->state == SHARE_BUILDING) {
            (*e)->state = SHARE_ABANDONED;
        } else {
            share_unlink(sh, e);
        }
        pthread_mutex_unlock(&sh->lock);
    }
    if (fpmat_init(out, res->prime, n, width) != 0) return -1;
    nassau_p_share *kept_products = share_of(res);
    return build_rows(res, src, t, sel, n, out, NULL, kept_products ? kept_products->products : NULL, NULL);
}

/* Leaves a copy of the rows zero_rows made (rows NULL: none) for the other step of the pair. */
static void share_put(resolution *res, int src, deg_t t, const fpmat *rows)
{
    nassau_p_share *sh = res->odd->share;
    pthread_mutex_lock(&sh->lock);
    share_entry **e = share_find(sh, src, t);
    if (*e && (*e)->state == SHARE_ABANDONED) {
        share_unlink(sh, e);
    } else if (*e) {
        (*e)->state = SHARE_DROPPED;
        if (rows && sh->bytes + fpmat_bytes(rows) <= SHARE_MAX_BYTES && fpmat_copy(&(*e)->rows, rows) == 0) {
            sh->bytes += fpmat_bytes(rows);
            memacct_add(MEM_INFLIGHT, (int64_t)fpmat_bytes(rows));
            (*e)->state = SHARE_READY;
        }
    }
    pthread_mutex_unlock(&sh->lock);
}

int res_nassau_p_plan(step_ctx *c)
{
    resolution *res = c->res;
    int s = c->ch.s, rc;
    deg_t t = c->ch.t;
    nassau_p_state *ns = c->nsp = calloc(1, sizeof *ns);
    if (!ns) goto oom;
    int found = choose(res, s, t, &ns->b);
    if (found < 0) goto oom;
    if (!found) {
        res_fail(res, "Nassau step (%d,%d): no subalgebra may be used here; this is a bug", s, t);
        return -1;
    }
    ns->ncodes = (uint32_t)ns->b.dim;
    if (!(ns->codes = codes_table(res, &ns->b))) goto oom;
    if (bucket(res, s - 1, t, t, ns, &ns->row_start, &ns->row_idx, &ns->nrows) ||
        bucket(res, s - 2, t, t - 1, ns, &ns->col_start, &ns->col_idx, &ns->ncols))
        goto oom;
    int kept;
    rc = zero_rows(res, s - 1, t, NULL, ns->row_idx, ns->row_start[1], &ns->R1, &kept);
    if (kept) share_put(res, s - 1, t, rc == 0 ? &ns->R1 : NULL);
    if (ns->R1.data) memacct_add(MEM_INFLIGHT, (int64_t)fpmat_bytes(&ns->R1));
    if (rc == -1) goto oom;
    if (rc == -2) goto outside;
    return 0;
oom:
    res_fail(res, "out of memory planning Nassau step (%d,%d)", s, t);
    return -1;
outside:
    res_fail(res, "Nassau step (%d,%d): a product left the algebra; this is a bug", s, t);
    return -1;
}

int res_nassau_p_reduce(step_ctx *c)
{
    resolution *res = c->res;
    nassau_p_state *ns = c->nsp;
    int s = c->ch.s;
    deg_t t = c->ch.t;
    uint32_t p = res->prime, nz0 = ns->row_start[1], nc0 = ns->col_start[1];
    uint32_t *src_start = NULL, *src_idx = NULL, nsrc = 0, *ident = malloc(((size_t)nz0 + 1) * sizeof *ident);
    fpmat Z = { 0 }, aug = { 0 }, K = { 0 }, S = { 0 }, img = { 0 };
    int32_t *piv = NULL, *ipiv = NULL;
    int rank, rc = -1;
    /* zero-signature cycles of d_{s-1}: the kernel of Z, RREF */
    for (uint32_t k = 0; ident && k < nz0; k++) ident[k] = k;
    if (!ident || gather(&Z, &ns->R1, ident, nz0, ns->col_idx, nc0) != 0 || fpmat_augment_identity(&aug, &Z) != 0 ||
        !(piv = malloc(sizeof *piv * ((size_t)aug.cols + 1))))
        goto out;
    if ((rank = fpmat_rref_split(&aug, fpmat_segment_start(nc0), piv)) < 0 ||
        fpmat_kernel_from_rref(&aug, nc0, (uint32_t)rank, piv, &K) != 0)
        goto out;
    fpmat_clear(&aug);
    /* the zero-signature image of d_s, in the coordinates of Z's rows */
    if (bucket(res, s, t, t, ns, &src_start, &src_idx, &nsrc) != 0) goto out;
    int kept, b = zero_rows(res, s, t, &ns->b, src_idx, src_start[1], &S, &kept);
    if (kept) share_put(res, s, t, b == 0 ? &S : NULL);
    if (b == -2) {
        res_fail(res, "Nassau step (%d,%d): a product left the algebra; this is a bug", s, t);
        rc = -2;
        goto out;
    }
    uint32_t *all = malloc(((size_t)src_start[1] + 1) * sizeof *all);
    if (b != 0 || !all) {
        free(all);
        goto out;
    }
    for (uint32_t k = 0; k < src_start[1]; k++) all[k] = k;
    rc = gather(&img, &S, all, src_start[1], ns->row_idx, nz0);
    free(all);
    fpmat_clear(&S);
    if (rc != 0 || !(ipiv = malloc(sizeof *ipiv * ((size_t)nz0 + 1))) || fpmat_rref_split(&img, nz0, ipiv) < 0) {
        rc = -1;
        goto out;
    }
    rc = -1;
    /* new generators: the kernel vectors whose pivot is not an image pivot */
    uint32_t width = (uint32_t)freemod_dim(&res->F[s - 1], t, t);
    c->new_gens = calloc((size_t)K.rows + 1, sizeof *c->new_gens);
    ns->dx = calloc(((size_t)K.rows + 1) * (ns->ncols + 1), 1);
    if (!c->new_gens || !ns->dx) goto out;
    for (uint32_t r = 0; r < K.rows; r++) {
        const uint8_t *row = fpmat_row(&K, r);
        uint32_t kp = 0;
        while (kp < nz0 && !row[kp]) kp++;
        if (kp == nz0 || ipiv[kp] >= 0) continue;
        fm_gen *g = &c->new_gens[c->n_new];
        g->bits = width;
        if (!(g->img_p = calloc((size_t)width / 8 + 2, 8))) goto out;
        uint8_t *x = g->img_p, *dx = ns->dx + (size_t)c->n_new * (ns->ncols + 1);
        for (uint32_t i = 0; i < nz0; i++)
            if (row[i]) {
                x[ns->row_idx[i]] = row[i];
                fpvec_addmul(dx, fpmat_row(&ns->R1, i), row[i], ns->ncols, p);
            }
        c->n_new++;
    }
    rc = 0;
out:
    free(ident);
    free(src_start);
    free(src_idx);
    free(piv);
    free(ipiv);
    fpmat_clear(&Z);
    fpmat_clear(&aug);
    fpmat_clear(&K);
    fpmat_clear(&S);
    fpmat_clear(&img);
    if (rc == -1) res_fail(res, "out of memory in Nassau step (%d,%d)", s, t);
    return rc == 0 ? 0 : -1;
}

typedef struct code_deg {
    uint64_t degree;
    uint32_t code;
} code_deg;

static int by_degree(const void *a, const void *b)
{
    const code_deg *x = a, *y = b;
    if (x->degree != y->degree) return x->degree < y->degree ? -1 : 1;
    return x->code < y->code ? -1 : x->code > y->code;
}

/* What a finish part makes for one signature (nassau_p.h, Finish in parts): the quasi-inverse
 * of its block, and full width the rows of d_{s-1} of that signature that a lift may use (those
 * where some preimage row is not zero: every lift is a combination of preimage rows). */
typedef struct sig_made {
    fpqi qi;
    fpmat rows;             /* the rows kept, full width, in bucket order */
    uint32_t *at;           /* nr entries: row i of the signature is rows' row at[i], or
                             * UINT32_MAX (not kept) */
    int ok;                 /* made (else finish makes the signature's rows itself) */
} sig_made;

static uint64_t made_bytes(const sig_made *m)
{
    return fpmat_bytes(&m->rows) + fpmat_bytes(&m->qi.preimage);
}

static void made_clear(sig_made *m)
{
    if (m->ok) memacct_add(MEM_INFLIGHT, -(int64_t)made_bytes(m));
    fpmat_clear(&m->rows);
    fpqi_clear(&m->qi);
    free(m->at);
    m->at = NULL;
    m->ok = 0;
}

/* The quasi-inverse of block (RREF of [block | 0 | I]). 0, or -1 out of memory. */
static int block_qi(const fpmat *block, fpqi *qi)
{
    fpmat aug = { 0 };
    int32_t *piv = NULL;
    int rank, rc = -1;
    if (fpmat_augment_identity(&aug, block) == 0 && (piv = malloc(sizeof *piv * ((size_t)aug.cols + 1))) &&
        (rank = fpmat_rref(&aug, piv)) >= 0 && fpmat_quasi_inverse_from_rref(&aug, block->cols, (uint32_t)rank, piv, qi) == 0)
        rc = 0;
    fpmat_clear(&aug);
    free(piv);
    return rc;
}

/* One signature's correction: the quasi-inverse of its block of d_{s-1} lifts the part of each
 * d(x) in its columns; x -= lift, d(x) -= d(lift). Made here (made NULL): the block on its own
 * columns (colpos: column -> place in the block, MILNOR_P_CACHE_DROP elsewhere; restored on
 * return), then full width only the rows some lift uses; or taken from a finish part (made:
 * the quasi-inverse and, full width, the rows a lift may use). The same bytes either way. 0, -1 out of memory,
 * -2 a product left B. */
static int correct_signature(step_ctx *c, uint32_t code, uint8_t *y, uint32_t *colpos, const sig_made *made)
{
    nassau_p_state *ns = c->nsp;
    uint32_t p = c->res->prime;
    uint32_t nr = ns->row_start[code + 1] - ns->row_start[code], nc = ns->col_start[code + 1] - ns->col_start[code];
    const uint32_t *ridx = ns->row_idx + ns->row_start[code], *cidx = ns->col_idx + ns->col_start[code];
    if (nc == 0 || nr == 0) return 0;      /* no columns: nothing to lift; no rows: the check at the end */
    int wanted = 0;     /* does any d(x) have a part here? (most signatures: none, and no row is built) */
    for (uint32_t a = 0; a < c->n_new && !wanted; a++) {
        const uint8_t *dx = ns->dx + (size_t)a * (ns->ncols + 1);
        for (uint32_t j = 0; j < nc && !wanted; j++) wanted = dx[cidx[j]] != 0;
    }
    if (!wanted) return 0;
    nassau_p_share *sh = share_of(c->res);
    if (!sh || !sh->products) return -1;
    fpmat rows = { 0 }, block = { 0 };
    fpqi own = { 0 };
    const fpqi *qi = made ? &made->qi : &own;
    uint8_t *lifts = calloc((size_t)c->n_new * nr + 1, 1);
    uint32_t *need = malloc(((size_t)nr + 1) * sizeof *need), *sel = malloc(((size_t)nr + 1) * sizeof *sel), nneed = 0;
    int rc = -1;
    if (!made)
        for (uint32_t j = 0; j < nc; j++) colpos[cidx[j]] = j;
    if (!lifts || !need || !sel) goto out;
    if (!made) {
        if (fpmat_init(&block, p, nr, nc) != 0) goto out;
        if ((rc = build_rows(c->res, c->ch.s - 1, c->ch.t, ridx, nr, &block, NULL, sh->products, colpos)) != 0)
            goto out;    /* its block */
        rc = -1;
        if (block_qi(&block, &own) != 0) goto out;
    }
    /* each d(x)'s lift, then the rows some lift uses, full width */
    for (uint32_t a = 0; a < c->n_new; a++) {
        const uint8_t *dx = ns->dx + (size_t)a * (ns->ncols + 1);
        int any = 0;
        for (uint32_t j = 0; j < nc; j++) any |= (y[j] = dx[cidx[j]]) != 0;
        if (any) fpqi_apply(qi, y, lifts + (size_t)a * nr);
    }
    for (uint32_t i = 0; i < nr; i++) {
        int used = 0;
        for (uint32_t a = 0; a < c->n_new && !used; a++) used = lifts[(size_t)a * nr + i] != 0;
        if (used) {
            need[nneed] = i;
            sel[nneed++] = ridx[i];
        }
    }
    int kept = made != NULL;    /* every row needed was kept (always: a lift lies in the preimages' span) */
    for (uint32_t k = 0; kept && k < nneed; k++) kept = made->at[need[k]] != UINT32_MAX;
    if (!kept) {
        if (fpmat_init(&rows, p, nneed, ns->ncols) != 0) goto out;
        if ((rc = build_rows(c->res, c->ch.s - 1, c->ch.t, sel, nneed, &rows, NULL, sh->products, NULL)) != 0) goto out;
    }
    for (uint32_t a = 0; a < c->n_new; a++) {
        uint8_t *dx = ns->dx + (size_t)a * (ns->ncols + 1), *x = c->new_gens[a].img_p;
        const uint8_t *lift = lifts + (size_t)a * nr;
        for (uint32_t k = 0; k < nneed; k++)
            if (lift[need[k]]) {
                uint32_t i = need[k], neg = p - lift[i];
                x[ridx[i]] = (uint8_t)((x[ridx[i]] + neg) % p);
                fpvec_addmul(dx, kept ? fpmat_row(&made->rows, made->at[i]) : fpmat_row(&rows, k), neg, ns->ncols, p);
            }
    }
    rc = 0;
out:
    if (!made)
        for (uint32_t j = 0; j < nc; j++) colpos[cidx[j]] = MILNOR_P_CACHE_DROP;
    free(lifts);
    free(need);
    free(sel);
    fpmat_clear(&rows);
    fpmat_clear(&block);
    fpqi_clear(&own);
    return rc;
}

/* The finish's signatures in its order, once (ns->order). 0, or -1 out of memory. */
static int make_order(step_ctx *c)
{
    nassau_p_state *ns = c->nsp;
    if (ns->order) return 0;
    code_deg *order = malloc(((size_t)ns->ncodes + 1) * sizeof *order);
    if (!order) return -1;
    uint32_t n = 0;
    for (uint32_t code = 1; code < ns->ncodes; code++) {
        uint64_t d = sig_degree(&ns->b, c->res->prime, code);
        if (d <= (uint64_t)c->ch.t) order[n++] = (code_deg){ d, code };
    }
    qsort(order, n, sizeof *order, by_degree);
    ns->order = order;
    ns->norder = n;
    return 0;
}

/* The entries of d_{s-1} a part builds for a signature: its rows times the width (0 where its
 * block is empty: finish never builds those). */
static uint64_t sig_entries(const nassau_p_state *ns, uint32_t code)
{
    uint64_t nr = ns->row_start[code + 1] - ns->row_start[code], nc = ns->col_start[code + 1] - ns->col_start[code];
    return nr && nc ? nr * ns->ncols : 0;
}

/* The same for the i-th signature of the finish's order (res_cut_runs' weight). */
static uint64_t entries_at(const void *state, uint32_t i)
{
    const nassau_p_state *ns = state;
    return sig_entries(ns, ns->order[i].code);
}

uint32_t res_nassau_p_finish_parts(step_ctx *c)
{
    nassau_p_state *ns = c->nsp;
    if (!ns || !c->n_new || c->res->finish_split == 0) return 0;
    if (ns->part) return ns->nparts;
    if (make_order(c) != 0) return 0;       /* finish makes them all itself */
    /* runs of the order, each about total / n entries */
    uint32_t n = res_cut_runs(0, ns->norder, entries_at, ns, c->res->finish_split, RES_NASSAU_P_MAX_FINISH_PARTS,
                              &ns->part);
    if (n < 2) return 0;
    if (!(ns->made = calloc(ns->ncodes, sizeof *ns->made))) {
        free(ns->part);
        ns->part = NULL;
        return 0;
    }
    return ns->nparts = n;
}

/* Signature code's part of a split finish into *m: its rows full width into all (nr rows at
 * least, zeroed here), its block gathered from them, the block's quasi-inverse, and a copy of
 * the rows a lift may use. 0, or -1 (out of memory, or a product left B: finish then makes it
 * itself, and fails there if it must). */
static int make_signature(step_ctx *c, uint32_t code, fpmat *all, milnor_p_cache *products, sig_made *m)
{
    const nassau_p_state *ns = c->nsp;
    uint32_t nr = ns->row_start[code + 1] - ns->row_start[code], nc = ns->col_start[code + 1] - ns->col_start[code];
    const uint32_t *ridx = ns->row_idx + ns->row_start[code], *cidx = ns->col_idx + ns->col_start[code];
    fpmat block = { 0 };
    memset(all->data, 0, (size_t)nr * all->stride);
    if (build_rows(c->res, c->ch.s - 1, c->ch.t, ridx, nr, all, NULL, products, NULL) != 0 ||
        fpmat_init(&block, all->p, nr, nc) != 0)
        return -1;
    for (uint32_t r = 0; r < nr; r++) {
        const uint8_t *a = fpmat_row(all, r);
        uint8_t *o = fpmat_row(&block, r);
        for (uint32_t j = 0; j < nc; j++) o[j] = a[cidx[j]];
    }
    int rc = block_qi(&block, &m->qi);
    fpmat_clear(&block);
    if (rc != 0 || !(m->at = malloc(((size_t)nr + 1) * sizeof *m->at))) return -1;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < nr; i++) {
        int used = 0;
        for (uint32_t r = 0; r < m->qi.preimage.rows && !used; r++) used = fpmat_row(&m->qi.preimage, r)[i] != 0;
        m->at[i] = used ? keep++ : UINT32_MAX;
    }
    if (fpmat_init(&m->rows, all->p, keep, ns->ncols) != 0) return -1;
    for (uint32_t i = 0; i < nr; i++)
        if (m->at[i] != UINT32_MAX) memcpy(fpmat_row(&m->rows, m->at[i]), fpmat_row(all, i), all->stride);
    return 0;
}

void res_nassau_p_finish_part(step_ctx *c, uint32_t k, uint32_t n)
{
    nassau_p_state *ns = c->nsp;
    if (!ns || !ns->part || n != ns->nparts || k >= n) return;
    nassau_p_share *sh = share_of(c->res);
    if (!sh || !sh->products) return;
    uint32_t most = 0;
    for (uint32_t i = ns->part[k]; i < ns->part[k + 1]; i++) {
        uint32_t code = ns->order[i].code, nr = ns->row_start[code + 1] - ns->row_start[code];
        if (sig_entries(ns, code) && nr > most) most = nr;
    }
    fpmat all = { 0 };      /* one signature's rows at a time */
    if (fpmat_init(&all, c->res->prime, most, ns->ncols) != 0) return;
    for (uint32_t i = ns->part[k]; i < ns->part[k + 1]; i++) {
        sig_made *m = &ns->made[ns->order[i].code];
        if (!sig_entries(ns, ns->order[i].code)) continue;
        m->ok = make_signature(c, ns->order[i].code, &all, sh->products, m) == 0;
        if (m->ok) memacct_add(MEM_INFLIGHT, (int64_t)made_bytes(m));
        else made_clear(m);
    }
    fpmat_clear(&all);
}

int res_nassau_p_finish(step_ctx *c)
{
    resolution *res = c->res;
    nassau_p_state *ns = c->nsp;
    int s = c->ch.s;
    deg_t t = c->ch.t;
    uint32_t width = (uint32_t)freemod_dim(&res->F[s - 1], t, t);
    if (c->n_new) {
        /* signatures by increasing degree (ties by code); each builds its rows of d_{s-1} when
         * some d(x) has a part in its columns, or takes what a finish part made */
        uint8_t *buf = malloc((size_t)ns->ncols + 1);
        uint32_t *colpos = malloc(((size_t)ns->ncols + 1) * sizeof *colpos);
        int rc = buf && colpos && make_order(c) == 0 ? 0 : -1;
        for (uint32_t j = 0; rc == 0 && j < ns->ncols; j++) colpos[j] = MILNOR_P_CACHE_DROP;
        for (uint32_t k = 0; rc == 0 && k < ns->norder; k++) {
            uint32_t code = ns->order[k].code;
            sig_made *m = ns->made && ns->made[code].ok ? &ns->made[code] : NULL;
            rc = correct_signature(c, code, buf, colpos, m);
            if (m) made_clear(m);
        }
        free(buf);
        free(colpos);
        if (rc == -2) {
            res_fail(res, "Nassau step (%d,%d): a product left the algebra; this is a bug", s, t);
            return -1;
        }
        if (rc != 0) {
            res_fail(res, "out of memory in Nassau step (%d,%d)", s, t);
            return -1;
        }
        for (uint32_t a = 0; a < c->n_new; a++)
            for (uint32_t j = 0; j < ns->ncols; j++)
                if (ns->dx[(size_t)a * (ns->ncols + 1) + j]) {
                    res_fail(res, "Nassau step (%d,%d): d(x) != 0 after all corrections (B is used outside its "
                             "range); this is a bug", s, t);
                    return -1;
                }
    }
    stat_steps++;
    if (c->n_new) stat_corrected++;
    for (uint64_t d = stat_dim; d < ns->b.dim && !atomic_compare_exchange_weak(&stat_dim, &d, ns->b.dim);) {}
    fm_gen *gens = c->new_gens;
    uint32_t n = c->n_new;
    c->new_gens = NULL;
    c->n_new = 0;
    if (!gens && !(gens = calloc(1, sizeof *gens))) {
        res_fail(res, "out of memory finishing step (%d,%d)", s, t);
        return -1;
    }
    if (n) {
        fm_gen *fit = realloc(gens, (size_t)n * sizeof *gens);
        if (fit) gens = fit;
    }
    return res_publish(res, s, t, n, gens, width);
}

void res_nassau_p_free(step_ctx *c)
{
    nassau_p_state *ns = c->nsp;
    if (!ns) return;
    free(ns->row_start);
    free(ns->row_idx);
    free(ns->col_start);
    free(ns->col_idx);
    if (ns->R1.data) memacct_add(MEM_INFLIGHT, -(int64_t)fpmat_bytes(&ns->R1));
    fpmat_clear(&ns->R1);
    free(ns->dx);
    for (uint32_t code = 0; ns->made && code < ns->ncodes; code++) made_clear(&ns->made[code]);
    free(ns->made);
    free(ns->part);
    free(ns->order);
    free(ns);
    c->nsp = NULL;
}

uint64_t res_nassau_p_footprint(const resolution *res, int s, deg_t t)
{
    uint64_t nrows = freemod_dim(&res->F[s - 1], t, t), ncols = freemod_dim(&res->F[s - 2], t, t - 1);
    uint64_t nsrc = freemod_dim(&res->F[s], t, t);
    /* every row of d_{s-1} (kept to the end), the zero-signature rows of d_s and the buckets */
    return nrows * ((ncols + 63) & ~(uint64_t)63) + nsrc * ((nrows + 63) & ~(uint64_t)63) / 2 +
           (nrows + ncols + nsrc) * 2 * sizeof(uint32_t);
}
