/* milnor.c — Milnor basis of the mod 2 Steenrod algebra, its index and its product.
 * See milnor.h and docs/algorithms.md §1 (basis, order, index) and §2 (product). */
#include "algebra/milnor.h"
#include "algebra/clock.h"
#include "algebra/milnor_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#define W MILNOR_MAX_LEN
#define MD MM_SIDE

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

int milnor_profile_equal(const milnor_profile *p, const milnor_profile *q)
{
    for (int i = 0; i < W; ++i)
        if (profile_h(p, i) != profile_h(q, i)) return 0;
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
    const uint32_t *tab = A->hash + A->hash_first[d];
    uint32_t mask = A->hash_first[d + 1] - A->hash_first[d] - 1;
    for (uint32_t s = hash_entries(r, len) & mask;; s = (s + 1) & mask) {
        if (tab[s] == 0) return UINT32_MAX;
        const milnor_elt *e = &A->elts[d][tab[s] - 1];
        if (e->len == len && memcmp(e->r, r, len * sizeof *r) == 0) return tab[s] - 1;
    }
}

/* Slots of degree d's index table: a power of two >= 2 dim. */
static uint32_t hash_slots(uint32_t dim)
{
    uint32_t cap = 2;
    while (cap < 2 * dim) cap *= 2;
    return cap;
}

/* The index tables of a profile basis, all degrees in one array. */
static int build_hash(milnor_basis *A)
{
    size_t n = (size_t)A->max_degree + 1, total = 0;
    A->hash_first = malloc((n + 1) * sizeof *A->hash_first);
    if (!A->hash_first) return -1;
    for (size_t d = 0; d < n; ++d) {
        A->hash_first[d] = (uint32_t)total;
        total += hash_slots(A->dim[d]);
    }
    A->hash_first[n] = (uint32_t)total;
    A->hash = calloc(total, sizeof *A->hash);
    if (!A->hash) return -1;
    for (size_t d = 0; d < n; ++d) {
        uint32_t *tab = A->hash + A->hash_first[d], mask = A->hash_first[d + 1] - A->hash_first[d] - 1;
        for (uint32_t k = 0; k < A->dim[d]; ++k) {
            const milnor_elt *e = &A->elts[d][k];
            uint32_t s = hash_entries(e->r, e->len) & mask;
            while (tab[s]) s = (s + 1) & mask;
            tab[s] = k + 1;
        }
    }
    return 0;
}

/* seqno tables (docs/algorithms.md §1.3): n[e][m] = #Sq(R) of degree e using slots 0..m, g as documented. */
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
    /* seq_d (milnor.h): the index's differences regrouped by the prefix degree they are read at */
    A->seq_d = malloc(rows * W * sizeof *A->seq_d);
    if (!A->seq_d) return -1;
    for (size_t e = 0; e < rows; ++e) {
        const uint32_t *ge = A->seq_g + e * W;
        for (int h = 0; h < W; ++h)
            A->seq_d[h * rows + e] = (h ? ge[h] : 0) - (h + 1 < W ? ge[h + 1] : 0);
    }
    return 0;
}

/* Counts (pass elts NULL) or writes the elements of degree d, in the order of docs/algorithms.md §1.2. */
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

static double deadline_s;      /* milnor_set_deadline; 0: none */

void milnor_set_deadline(double deadline) { deadline_s = deadline; }

int milnor_deadline_passed(void)
{
    if (deadline_s <= 0) return 0;
    return clock_now() >= deadline_s;
}

static int build_elements(milnor_basis *A)
{
    uint32_t pmax[W];
    for (int i = 0; i < W; ++i) pmax[i] = milnor_profile_slot_max(&A->profile, i);
    for (deg_t d = 0; d <= A->max_degree; ++d) {
        if (milnor_deadline_passed()) return MILNOR_STOPPED;
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
    int rc = -1;
    if (!A->dim || !A->elts || (rc = build_elements(A)) < 0) {
        milnor_basis_clear(A);
        return rc;
    }
    if (is_full_profile(&A->profile)) {
        if (build_seqno(A) < 0) goto fail;
        return 0;
    }
    if (build_hash(A) < 0) goto fail;
    return 0;
fail:
    milnor_basis_clear(A);
    return -1;
}

void milnor_basis_clear(milnor_basis *A)
{
    size_t n = (size_t)A->max_degree + 1;
    for (size_t d = 0; A->elts && d < n; ++d) free(A->elts[d]);
    free(A->elts);
    free(A->dim);
    free(A->seq_g);
    free(A->seq_d);
    free(A->hash);
    free(A->hash_first);
    memset(A, 0, sizeof *A);
}

/* Words of what follows the elements: the seqno table, or a profile's index tables, their
 * offsets and the profile (MILNOR_MAX_LEN + 2 words). */
static size_t flat_index_words(const milnor_basis *A)
{
    if (A->seq_g) return 2 * ((size_t)A->max_degree + 1) * W;       /* seq_g, seq_d */
    return (size_t)A->max_degree + 2 + A->hash_first[A->max_degree + 1] + W + 2;
}

size_t milnor_flat_words(const milnor_basis *A)
{
    if (!A->seq_g && !A->hash) return 0;
    size_t total = 0;
    for (deg_t d = 0; d <= A->max_degree; ++d) total += A->dim[d];
    return MILNOR_FLAT_SEQNO_AT((uint32_t)A->max_degree, (uint32_t)total) + flat_index_words(A);
}

int milnor_flat_write(const milnor_basis *A, uint32_t *buf, size_t words)
{
    size_t need = milnor_flat_words(A);
    if (!need || words != need) return -1;
    uint32_t md = (uint32_t)A->max_degree, *first = buf + MILNOR_FLAT_HEADER;
    milnor_elt *elts = (milnor_elt *)(buf + MILNOR_FLAT_ELTS_AT(md));
    uint32_t total = 0;
    for (uint32_t d = 0; d <= md; ++d) {
        if (milnor_deadline_passed()) return MILNOR_STOPPED;
        first[d] = total;
        memcpy(elts + total, A->elts[d], A->dim[d] * sizeof *elts);
        total += A->dim[d];
    }
    first[md + 1] = total;
    uint32_t *index = buf + MILNOR_FLAT_SEQNO_AT(md, total);
    if (A->seq_g) {
        memcpy(index, A->seq_g, ((size_t)md + 1) * W * sizeof *buf);
        memcpy(index + ((size_t)md + 1) * W, A->seq_d, ((size_t)md + 1) * W * sizeof *buf);
    } else {
        uint32_t slots = A->hash_first[md + 1], *prof = index + md + 2 + slots;
        memcpy(index, A->hash_first, ((size_t)md + 2) * sizeof *buf);
        memcpy(index + md + 2, A->hash, (size_t)slots * sizeof *buf);
        prof[0] = (uint32_t)A->profile.truncated;
        prof[1] = (uint32_t)A->profile.len;
        for (int i = 0; i < W; ++i) prof[2 + i] = A->profile.h[i];
    }
    buf[0] = A->seq_g ? MILNOR_FLAT_MAGIC : MILNOR_FLAT_MAGIC_PROFILE;
    buf[1] = md;
    buf[2] = total;
    buf[3] = (uint32_t)need;
    return 0;
}

int milnor_flat_view(const uint32_t *buf, size_t words, milnor_basis *view, milnor_elt **elts_scratch,
                     uint32_t *dim_scratch)
{
    memset(view, 0, sizeof *view);
    if (words < MILNOR_FLAT_HEADER || (buf[0] != MILNOR_FLAT_MAGIC && buf[0] != MILNOR_FLAT_MAGIC_PROFILE) ||
        buf[3] != words || buf[1] > MILNOR_MAX_DEGREE)
        return -1;
    int profile = buf[0] == MILNOR_FLAT_MAGIC_PROFILE;
    uint32_t md = buf[1], total = buf[2];
    const uint32_t *first = buf + MILNOR_FLAT_HEADER;
    size_t at = MILNOR_FLAT_SEQNO_AT(md, total);
    if (at > words || first[md + 1] != total) return -1;
    const uint32_t *index = buf + at;
    if (!profile && at + 2 * ((size_t)md + 1) * W != words) return -1;
    if (profile && (at + md + 2 > words || index[0] != 0 || at + md + 2 + (size_t)index[md + 1] + W + 2 != words))
        return -1;
    milnor_elt *elts = (milnor_elt *)(buf + MILNOR_FLAT_ELTS_AT(md));
    for (uint32_t d = 0; d <= md; ++d) {
        if (first[d + 1] < first[d]) return -1;
        dim_scratch[d] = first[d + 1] - first[d];
        elts_scratch[d] = elts + first[d];
        if (profile) {          /* each table a power of two > dim slots, in order */
            uint32_t slots = index[d + 1] - index[d];
            if (index[d + 1] < index[d] || slots <= dim_scratch[d] || (slots & (slots - 1))) return -1;
        }
    }
    view->max_degree = (deg_t)md;
    view->profile = milnor_profile_full();
    view->dim = dim_scratch;
    view->elts = elts_scratch;
    if (!profile) {
        view->seq_g = (uint32_t *)index;
        view->seq_d = (uint32_t *)index + ((size_t)md + 1) * W;
        return 0;
    }
    const uint32_t *prof = index + md + 2 + index[md + 1];
    if (prof[1] > W) return -1;
    view->profile.truncated = prof[0] != 0;
    view->profile.len = (int)prof[1];
    for (int i = 0; i < W; ++i) view->profile.h[i] = (uint8_t)prof[2 + i];
    view->hash_first = (uint32_t *)index;
    view->hash = (uint32_t *)(index + md + 2);
    return 0;
}

int milnor_batch_record_write(FILE *f, const milnor_row_job *jobs, size_t njobs, const milnor_term *terms,
                              size_t stride_words)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < njobs; ++i)
        if (jobs[i].n_terms) {
            if (jobs[i].first_term < lo) lo = jobs[i].first_term;
            if (jobs[i].first_term + jobs[i].n_terms > hi) hi = jobs[i].first_term + jobs[i].n_terms;
        }
    if (lo > hi) lo = hi = 0;
    uint64_t head[3] = { njobs, hi - lo, stride_words };
    if (fwrite(head, sizeof head, 1, f) != 1) return -1;
    for (size_t i = 0; i < njobs; ++i) {
        milnor_row_job j = jobs[i];
        j.first_term = j.n_terms ? j.first_term - lo : 0;
        if (fwrite(&j, sizeof j, 1, f) != 1) return -1;
    }
    return fwrite(terms + lo, sizeof *terms, hi - lo, f) == hi - lo ? 0 : -1;
}

int milnor_batch_record_read(FILE *f, milnor_row_job **jobs, size_t *njobs, milnor_term **terms, size_t *nterms,
                             size_t *stride_words)
{
    uint64_t h[3];
    *jobs = NULL;
    *terms = NULL;
    if (fread(h, sizeof h, 1, f) != 1) return feof(f) ? 0 : -1;
    if (h[0] > (1u << 30) || h[1] > (1u << 30) || h[2] > (1u << 24)) return -1;
    *njobs = h[0];
    *nterms = h[1];
    *stride_words = h[2];
    *jobs = malloc(*njobs * sizeof **jobs + 1);
    *terms = malloc(*nterms * sizeof **terms + 1);
    if (*jobs && *terms && fread(*jobs, sizeof **jobs, *njobs, f) == *njobs &&
        fread(*terms, sizeof **terms, *nterms, f) == *nterms) {
        for (size_t i = 0; i < *njobs; ++i)
            if ((uint64_t)(*jobs)[i].first_term + (*jobs)[i].n_terms > *nterms) goto bad;
        return 1;
    }
bad:
    free(*jobs);
    free(*terms);
    *jobs = NULL;
    *terms = NULL;
    return -1;
}

int milnor_count_dims(deg_t max_degree, const milnor_profile *profile, uint32_t *dim)
{
    if (max_degree < 0 || max_degree > MILNOR_MAX_DEGREE) return -1;
    milnor_profile p = profile ? *profile : milnor_profile_full();
    if (p.len < 0 || p.len > W) return -1;
    size_t n = (size_t)max_degree + 1;
    uint64_t c[MILNOR_MAX_DEGREE + 1] = { 0 }, old[MILNOR_MAX_DEGREE + 1];   /* 32 KiB, no malloc */
    c[0] = 1;                                   /* slots used so far: none */
    for (int i = 0; i < W; ++i) {               /* add slot i: r_i in 0..pmax, weight x */
        uint64_t pmax = milnor_profile_slot_max(&p, i);
        size_t x = milnor_xi_degree[i];
        if (pmax == 0 || x >= n) continue;
        memcpy(old, c, n * sizeof *old);
        /* c[d] = sum_{k=0..pmax} old[d - kx] = c[d - x] + old[d] - old[d - (pmax+1)x] */
        for (size_t d = x; d < n; ++d) {
            c[d] = c[d - x] + old[d];
            if (pmax < UINT32_MAX && (pmax + 1) * x <= d) c[d] -= old[d - (pmax + 1) * x];
        }
    }
    for (size_t d = 0; d < n; ++d) dim[d] = (uint32_t)c[d];
    return 0;
}

uint64_t milnor_basis_bytes(deg_t max_degree, const milnor_profile *profile)
{
    if (max_degree < 0 || max_degree > MILNOR_MAX_DEGREE) return UINT64_MAX;
    size_t n = (size_t)max_degree + 1;
    uint32_t dim[MILNOR_MAX_DEGREE + 1];
    if (milnor_count_dims(max_degree, profile, dim) != 0) return UINT64_MAX;
    milnor_profile p = profile ? *profile : milnor_profile_full();
    int full = is_full_profile(&p);
    uint64_t bytes = n * (sizeof *dim + sizeof(milnor_elt *));
    for (size_t d = 0; d < n; ++d) {
        bytes += (uint64_t)(dim[d] ? dim[d] : 1) * sizeof(milnor_elt);
        if (!full) bytes += ((uint64_t)hash_slots(dim[d]) + 1) * sizeof(uint32_t);   /* index table */
    }
    if (full) bytes += 3 * n * W * sizeof(uint32_t);     /* seq_g, its scratch and seq_d */
    return bytes;
}

/* Index from the entries t[0..len) (trimmed) of an element of degree d. */
static inline uint32_t index_of(const milnor_basis *A, deg_t d, const uint32_t *t, uint32_t len)
{
    if (!A->seq_g) return hash_lookup(A, d, t, len);
    return milnor_seqno_index(A->seq_g, d, t, len);
}

uint32_t milnor_index(const milnor_basis *A, const milnor_elt *R)
{
    return index_of(A, R->degree, R->r, R->len);
}

uint32_t milnor_index_by_slots(const milnor_basis *A, const milnor_elt *R)
{
    const size_t rows = (size_t)A->max_degree + 1;
    uint32_t idx = 0, p = 0;
    for (int h = 0; h < W; ++h) {
        p += R->r[h] * milnor_xi_degree[h];     /* entries past len are 0 */
        idx += A->seq_d[h * rows + p];
    }
    return idx;
}

/* ---------------------------------------------------------------- product (docs/algorithms.md §2) */


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

/* The batch through one depth-first search per (R, S) pair: the reference path. */
void milnor_mul_batch_search(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
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

/* ---------------------------------------------------------------- batched R-halves (docs/algorithms.md §2.3)
 *
 * For a fixed Sq(R) every Milnor matrix X splits into its R-half (the entries x_ij, i >= 1)
 * and the free parts x_0j = s_j - sum_{i>=1} x_ij. An R-half is kept when the R-entries on
 * each anti-diagonal are bit-disjoint; it then carries cs[j] = sum_{i>=1} x_ij and mk[n] = OR
 * of the R-entries on diagonal n. It gives a matrix with odd coefficient for Sq(S) iff for
 * every n: cs[n] <= s_n and (s_n - cs[n]) & mk[n] == 0, and then t_n = (s_n - cs[n]) | mk[n].
 * A job (one R, many terms S) enumerates the R-halves once and tests each against all its
 * terms, 16 terms at a time in 16-bit lanes (every entry is <= MILNOR_MAX_DEGREE < 2^16).
 * The enumeration is pruned by what the job's terms allow: cs[j] <= max_k s_j, and
 * sum_j cs[j] (2^j - 1) <= max_k |S_k| (cs[j] <= s_j for all j forces that).
 * The set of (X, T) found is exactly that of the search, so the XORed bits are the same. */

#define LANES 16
typedef uint16_t v16u __attribute__((vector_size(2 * LANES)));

/* One job's terms in lanes, built once per term list and read in place by every job of the
 * list: groups of LGROUP terms (64: one AVX-512 test, four AVX2 chunks), each group W + 1 rows
 * of LGROUP 16-bit lanes, s[(g * (W + 1) + n) * LGROUP + k] = s_n of term g * LGROUP + k; row 0
 * and the entries past a term's length (or past the last term) are zero. */
#define LGROUP (4 * LANES)

/* A term's part of its hits' indices (whole algebra). A hit of half h against Sq(S) is
 * Sq(T) with t_n = (s_n - cs_n) | mk_n = s_n + (mk_n - cs_n) (the test made the bits disjoint),
 * so the prefix degree P_h = sum_{n <= h+1} t_n |xi_n| of its slots 1..h+1 is S's prefix degree
 * plus the half's, and index(T) = sum_h seq_d[h * rows + P_h] (milnor.h, rows = max_degree + 1).
 * q[h] = h * rows + S's prefix degree (h = 0..9, below 2^16: 9 x 2047 + 2046), so that
 * q + the half's prefix degrees (half_prefix, mod 2^16) are the 10 table positions; col: the
 * term's column offset. One 32-byte record per term, read whole by each hit. */
typedef union term_slots {
    struct {
        uint16_t q[W];
        uint32_t col;
        uint16_t pad[4];
    } t;
    v16u v;
} term_slots;

typedef struct lane_terms {
    uint32_t first, count;          /* the term range they were built from */
    uint32_t ngroups, slen;         /* slen: longest S */
    uint32_t smax[MD];
    int64_t maxdeg;
    uint16_t *s;
    uint64_t *valid;                /* per group: bit k = lane k holds a term */
    size_t cap;                     /* groups allocated */
    term_slots *slots;              /* per term; filled for the whole algebra only (seq_d) */
} lane_terms;

#define LT_ROWS(L, g) ((L)->s + (size_t)(g) * (W + 1) * LGROUP)

static int lane_terms_build(lane_terms *L, const milnor_basis *A, const milnor_term *terms,
                            uint32_t first, uint32_t count)
{
    uint32_t ng = (count + LGROUP - 1) / LGROUP;
    if (ng > L->cap) {
        size_t cap = ng * 2;
        uint16_t *s = aligned_alloc(64, cap * (W + 1) * LGROUP * sizeof *s);
        uint64_t *valid = malloc(cap * sizeof *valid);
        term_slots *slots = aligned_alloc(64, cap * LGROUP * sizeof *slots);
        if (!s || !valid || !slots) { free(s); free(valid); free(slots); return -1; }
        free(L->s);
        free(L->valid);
        free(L->slots);
        L->s = s;
        L->valid = valid;
        L->slots = slots;
        L->cap = cap;
    }
    L->first = first;
    L->count = count;
    L->ngroups = ng;
    L->slen = 0;
    L->maxdeg = 0;
    memset(L->smax, 0, sizeof L->smax);
    memset(L->s, 0, (size_t)ng * (W + 1) * LGROUP * sizeof *L->s);
    for (uint32_t g = 0; g < ng; ++g) L->valid[g] = 0;
    v16u base = {0};                                /* lane h: h * rows, the start of seq_d's row h */
    for (int h = 0; h < W; ++h) base[h] = (uint16_t)(h * ((uint32_t)A->max_degree + 1));
    for (uint32_t k = 0; k < count; ++k) {
        const milnor_term *tm = &terms[first + k];
        const milnor_elt *S = &A->elts[tm->s_deg][tm->s_idx];
        uint32_t g = k / LGROUP, lane = k % LGROUP;
        uint16_t *rows = LT_ROWS(L, g) + lane;
        L->valid[g] |= (uint64_t)1 << lane;
        if (S->len > L->slen) L->slen = S->len;
        if (S->degree > L->maxdeg) L->maxdeg = S->degree;
        for (uint32_t n = 0; n < S->len; ++n) {
            rows[(n + 1) * LGROUP] = (uint16_t)S->r[n];
            if (S->r[n] > L->smax[n + 1]) L->smax[n + 1] = S->r[n];
        }
        if (A->seq_d) {                             /* whole algebra: the hits' index by slots */
            term_slots *ts = &L->slots[k];
            ts->v = base + (uint16_t)S->degree;     /* the prefix degree from slot len - 1 on */
            uint32_t p = 0;
            for (uint32_t h = 0; h + 1 < S->len; ++h) {
                p += S->r[h] * milnor_xi_degree[h];
                ts->t.q[h] = (uint16_t)(base[h] + p);
            }
            ts->t.col = tm->col_offset;
        }
    }
    return 0;
}

/* Bit k set iff lane k of *ok is set (lanes are all ones or zero). Vectors go by pointer:
 * no 32-byte vector arguments (ABI notes on targets without AVX). */
static inline uint32_t lane_bits(const v16u *ok)
{
#if defined(__AVX2__) && defined(__BMI2__)
    uint32_t b = (uint32_t)_mm256_movemask_epi8((__m256i)*ok);
    return (uint32_t)_pext_u32(b, 0x55555555u);
#else
    uint32_t b = 0;
    for (int k = 0; k < LANES; ++k) b |= (uint32_t)((*ok)[k] & 1) << k;
    return b;
#endif
}

static inline int all_zero(const v16u *v)
{
#ifdef __AVX2__
    return _mm256_testz_si256((__m256i)*v, (__m256i)*v);
#else
    uint64_t a[LANES / 4];
    memcpy(a, v, sizeof a);
    return !(a[0] | a[1] | a[2] | a[3]);
#endif
}

/* ---------------------------------------------------------------- the R-halves, row by row
 *
 * A half is 32 16-bit lanes (64 bytes): lane 0 nd, lanes 1..10 the column sums cs_1..cs_10,
 * lanes 11..30 the diagonal masks mk_1..mk_20 (lane 10 + n), lane 31 zero. nd = min(10, the
 * last diagonal n with mk_n != 0): past diagonal 10 every s_n and cs_n is 0, so the tests
 * there always pass, and the index stops at t_10 (|T| <= 2046).
 *
 * Enumeration. The entries of row i of an R-half (x_i1 .. x_i,top_i, and x_i0 = what is left
 * of r_i) are chosen independently of the other rows, under the job's bounds alone (x_ij <=
 * max s_j, sum_j x_ij (2^j - 1) <= max |S|); the rows then meet only through sums: the column
 * sums and the weight must stay within the bounds, and entries of different rows on one
 * diagonal must share no bit. So each row's choices are listed once, as vectors in the half's
 * layout (lane 0: the weight, lane j: x_ij, lane 10 + i + j: x_ij, lane 10 + i: x_i0), and a
 * half is a sum of one choice per row that passes those tests: a join over the rows, each
 * step one vector add and one vector test. The lanes of the column sums and the weight carry
 * the bias 0x7fff - bound, so that a sum over its bound is a set sign bit (every value is
 * <= MILNOR_MAX_DEGREE, so nothing else reaches bit 15); on diagonals a shared bit is a
 * non-zero AND. The rows are joined from the last (usually the fewest choices) to row 1 (usually
 * the most), whose level runs without branches: every candidate is stored, and the count moves
 * on for those that pass. A row's choices depend on i, r_i and the bounds only, and consecutive
 * jobs share their terms (the rows Sq(R)·g of one g), so they are kept per (i, r_i) until the
 * bounds change (in stem 110's chunks 28% of the rows, 60% of the choices, are new). A new
 * term list whose bounds lie within those the choices were listed under (hrows' smax, maxdeg)
 * keeps them, as the join tests the list's own bounds on every sum: d2's intermediates come as
 * lists of ~25 terms, a new list every few jobs, and consecutive lists often have the same
 * bounds (over stem 60, s <= 32, d2's instructions x0.964); massey --secondary's one-row
 * batches change bounds at 3 of 4 new lists, often to tighter ones (its batches x0.96 when
 * those keep the choices). A row of more than ROW_CHOICES_MAX choices sends its job to the
 * search.
 *
 * The set of halves is that of the cell-by-cell search it replaces (docs/perf.md "The
 * R-halves' enumeration, row by row"), only in another order, and the XOR of the hits does
 * not depend on the order. */

typedef union rhalf {
    uint16_t w[2 * LANES];
    v16u v[2];
} rhalf;
#define RH_CS(h, j) ((h)->w[j])
#define RH_MK(h, n) ((h)->w[W + (n)])
#define RH_ND(h) ((h)->w[0])

#define ROWS_SLOTS 256              /* (i, r_i) kept per term range; cleared when nearly full */
#define ROW_CHOICES_MAX 65536       /* more choices for one row: the job takes the search */
#define ROWS_POOL_KEEP 65536        /* more choices kept: cleared before the next job */

typedef struct hrows {
    rhalf *pool;                    /* the rows' choices, end to end */
    size_t n, cap;
    uint32_t key[ROWS_SLOTS];       /* (i << 16 | r_i) + 1, 0: empty */
    uint32_t off[ROWS_SLOTS], cnt[ROWS_SLOTS];
    int used;
    size_t stop;                    /* the row being listed gives up past pool[stop] */
    uint32_t smax[MD];              /* the bounds the choices are listed under */
    int64_t maxdeg;
} hrows;

static void hrows_clear(hrows *H)
{
    memset(H->key, 0, sizeof H->key);
    H->used = 0;
    H->n = 0;
}

/* Room in H->pool for k more choices; -1: out of memory. */
static int hrows_reserve(hrows *H, size_t k)
{
    if (H->n + k <= H->cap) return 0;
    size_t cap = H->cap ? 2 * H->cap : 1024;
    while (cap < H->n + k) cap *= 2;
    rhalf *p = aligned_alloc(sizeof(rhalf), cap * sizeof *p);
    if (!p) return -1;
    if (H->n) memcpy(p, H->pool, H->n * sizeof *p);
    free(H->pool);
    H->pool = p;
    H->cap = cap;
    return 0;
}

/* Appends to H->pool the choices of row i (columns 1..top, top >= 1) from column j on: cur is
 * the choice so far, rem what is left of r_i, room the weight still allowed. The last column's
 * values are written in one loop. -1: out of memory, or past H->stop. */
static int row_choices(hrows *H, int i, int top, const uint32_t *smax, rhalf *cur, uint32_t rem, int j,
                       uint32_t room)
{
    const uint32_t w = (1u << j) - 1, w0 = cur->w[0];
    uint32_t lim = rem >> j;
    if (smax[j] < lim) lim = smax[j];
    if (room / w < lim) lim = room / w;
    if (j == top) {
        if (H->n + lim + 1 > H->stop || hrows_reserve(H, lim + 1) < 0) return -1;
        for (uint32_t x = 0; x <= lim; ++x) {
            rhalf *o = &H->pool[H->n++];
            *o = *cur;
            o->w[0] = (uint16_t)(w0 + x * w);
            o->w[j] = o->w[W + i + j] = (uint16_t)x;
            o->w[W + i] = (uint16_t)(rem - (x << j));
        }
        return 0;
    }
    for (uint32_t x = 0; x <= lim; ++x) {
        cur->w[0] = (uint16_t)(w0 + x * w);
        cur->w[j] = cur->w[W + i + j] = (uint16_t)x;
        if (row_choices(H, i, top, smax, cur, rem - (x << j), j + 1, room - x * w) < 0) return -1;
    }
    cur->w[0] = (uint16_t)w0;
    cur->w[j] = cur->w[W + i + j] = 0;
    return 0;
}

/* The choices of row i with r_i = r under the bounds: their offset in H->pool and count (kept
 * per (i, r)). -1: out of memory or more than ROW_CHOICES_MAX. */
static int row_lookup(hrows *H, int i, uint32_t r, int top, const uint32_t *smax, uint32_t maxdeg, uint32_t *off,
                      uint32_t *cnt)
{
    const uint32_t key = ((uint32_t)i << 16 | r) + 1;
    uint32_t s = (key * 0x9e3779b1u) >> 24;
    while (H->key[s] && H->key[s] != key) s = (s + 1) % ROWS_SLOTS;
    if (!H->key[s]) {
        rhalf cur;
        memset(&cur, 0, sizeof cur);
        const size_t first = H->n;
        H->stop = first + ROW_CHOICES_MAX;
        if (top == 0) {                             /* x_i0 = r_i alone */
            if (hrows_reserve(H, 1) < 0) return -1;
            cur.w[W + i] = (uint16_t)r;
            H->pool[H->n++] = cur;
        } else if (row_choices(H, i, top, smax, &cur, r, 1, maxdeg) < 0)
            return -1;
        H->key[s] = key;
        H->off[s] = (uint32_t)first;
        H->cnt[s] = (uint32_t)(H->n - first);
        ++H->used;
    }
    *off = H->off[s];
    *cnt = H->cnt[s];
    return 0;
}

typedef struct hjoin {
    const rhalf *c[MD];             /* level l: the choices of row m + 1 - l */
    uint32_t n[MD];
    int m;
    v16u off_lo;                    /* added to lanes 0..15 of a sum: the column sums unbiased */
    rhalf *out;
    size_t cnt, cap;
    int over;
} hjoin;

/* Lanes 0..10 of the low half: the biased bounds' sign bits; lanes 11..15: diagonals 1..5. */
static const v16u SIGN_LO = {0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000};
static const v16u MK_LO = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff};

/* 1 iff sum = a + c breaks a bound or a and c share a bit on a diagonal. */
static inline int join_bad(const v16u *a, const v16u *c, const v16u *sum)
{
    v16u t = (sum[0] & SIGN_LO) | (a[0] & c[0] & MK_LO) | (a[1] & c[1]);
    return !all_zero(&t);
}

/* Level lv of the join from the partial sum s (levels 1..lv-1): the inner levels go down
 * where a choice fits, the last stores the halves. */
static void join_level(hjoin *J, int lv, const v16u *s)
{
    const rhalf *c = J->c[lv];
    const uint32_t n = J->n[lv];
    if (lv < J->m) {
        for (uint32_t k = 0; k < n && !J->over; ++k) {
            v16u t[2] = {s[0] + c[k].v[0], s[1] + c[k].v[1]};
            if (!join_bad(s, c[k].v, t)) join_level(J, lv + 1, t);
        }
        return;
    }
    const int near_cap = J->cnt + n > J->cap;     /* out has cap + 1 slots */
    size_t cnt = J->cnt;
    for (uint32_t k = 0; k < n; ++k) {
        v16u t[2] = {s[0] + c[k].v[0], s[1] + c[k].v[1]};
        const int bad = join_bad(s, c[k].v, t);
        if (near_cap && !bad && cnt == J->cap) {
            J->over = 1;
            return;
        }
        v16u nz0 = (v16u)(t[0] != 0), nz1 = (v16u)(t[1] != 0);
        const uint32_t nz = (lane_bits(&nz0) | lane_bits(&nz1) << LANES | 1u << W) >> W;   /* bit n: mk_n != 0 */
        const int nd = 31 - __builtin_clz(nz);
        rhalf *o = &J->out[cnt];
        o->v[0] = t[0] + J->off_lo;
        o->v[1] = t[1];
        RH_ND(o) = (uint16_t)(nd > W ? W : nd);
        cnt += !bad;
    }
    J->cnt = cnt;
}

/* All R-halves of R under the column bounds (smax, maxdeg) into out[0..cap] (cap + 1 slots);
 * returns their number, -1 when there are more than cap, -2 when a row has too many choices
 * or memory ran out (the job takes the search). */
static long rhalves(hrows *H, const milnor_elt *R, const uint32_t *smax, int64_t maxdeg, rhalf *out, size_t cap)
{
    hjoin J;
    J.m = (int)R->len;
    if (J.m == 0) {                                 /* Sq(0): the empty half */
        if (cap < 1) return -1;
        memset(out, 0, sizeof *out);
        return 1;
    }
    if (H->used + J.m > ROWS_SLOTS * 3 / 4 || H->n > ROWS_POOL_KEEP) hrows_clear(H);
    int lastcol = 0;                                /* the rows listed under H's bounds */
    for (int j = 1; j <= W; ++j)
        if (H->smax[j]) lastcol = j;
    uint32_t off[MD];
    for (int i = 1; i <= J.m; ++i) {
        const uint32_t r = R->r[i - 1];
        int top = 0;
        while (top < lastcol && (r >> (top + 1))) ++top;
        const int lv = J.m + 1 - i;
        if (row_lookup(H, i, r, top, H->smax, (uint32_t)H->maxdeg, &off[lv], &J.n[lv]) < 0) {
            hrows_clear(H);
            return -2;
        }
    }
    for (int lv = 1; lv <= J.m; ++lv) J.c[lv] = H->pool + off[lv];
    rhalf s0;
    memset(&s0, 0, sizeof s0);
    memset(&J.off_lo, 0, sizeof J.off_lo);
    s0.w[0] = (uint16_t)(0x7fff - maxdeg);
    for (int j = 1; j <= W; ++j) s0.w[j] = (uint16_t)(0x7fff - smax[j]);
    for (int j = 0; j <= W; ++j) J.off_lo[j] = (uint16_t)-s0.w[j];
    J.out = out;
    J.cnt = 0;
    J.cap = cap;
    J.over = 0;
    join_level(&J, 1, s0.v);
    return J.over ? -1 : (long)J.cnt;
}

/* The half's part of its hits' prefix degrees (term_slots): lane h (0..9) = sum_{n <= h+1}
 * (mk_n - cs_n) |xi_n| mod 2^16 (negative where the half takes more from S than it adds);
 * lanes 10..15 are not used. One vector multiply and a prefix sum over the lanes. */
static inline v16u half_prefix(const rhalf *hx)
{
    static const v16u xi = {1, 3, 7, 15, 31, 63, 127, 255, 511, 1023};
    v16u cs, mk;
    memcpy(&cs, &hx->w[1], sizeof cs);            /* lanes 0..9: cs_1..cs_10 */
    memcpy(&mk, &hx->w[W + 1], sizeof mk);        /* lanes 0..9: mk_1..mk_10 */
    v16u e = (mk - cs) * xi;
#ifdef __AVX2__
    __m256i x = (__m256i)e;
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 2));     /* prefix sums inside each 128-bit half */
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 4));
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 8));
    __m256i lo = _mm256_permute2x128_si256(x, x, 0x08);   /* the low half's sums, moved up */
    lo = _mm256_shufflehi_epi16(lo, 0xff);
    lo = _mm256_unpackhi_epi64(lo, lo);                   /* its lane 7 in every lane above */
    return (v16u)_mm256_add_epi16(x, lo);
#else
    v16u p = {0};
    uint16_t acc = 0;
    for (int h = 0; h < W; ++h) p[h] = acc = (uint16_t)(acc + e[h]);
    return p;
#endif
}

/* row ^= Sq(R)·S for the terms S of the lanes set in bits, through half hx (whole algebra):
 * ts[k] is lane k's term_slots. A hit's index is the sum over h of seq_d at its term's
 * positions plus the half's prefix degrees; past slot top - 1 (top >= 2, at least the last
 * slot of every hit's T) every prefix degree is |T|, and those entries add up to
 * G[|T|][top - 1] (the seqno table): one read for them. The AVX2 path inlines it with top = 10
 * (the ten reads of seq_d, folded at compile time); the AVX-512 path passes
 * top = max(the half's last diagonal, the list's longest S) to its out-of-line copy
 * (half_hits_slots_out), which switches on top once per call into nine copies of the loop, each
 * with its reads fixed (a switch per hit cost ~5% of massey --secondary's products). Measured (docs/perf-log.md, "The hits' index by slots"): on d2's
 * captured batches the AVX-512 path x0.95 of the old index out of line against x1.00 inlined
 * into the test loop (whose registers it crowds), the AVX2 path x0.94-0.96 inlined. */
static inline void half_hits_slots(const milnor_basis *A, const rhalf *hx, const term_slots *ts, uint64_t bits,
                                   int top, uint64_t *row)
{
    const uint32_t *D = A->seq_d, rows = (uint32_t)A->max_degree + 1;
    const uint32_t *tail = A->seq_g + top - 1, tail_at = (uint32_t)(top - 1) * rows;
    const v16u hp = half_prefix(hx);
    while (bits) {
        const int lane = __builtin_ctzll(bits);
        bits &= bits - 1;
        const term_slots *t = &ts[lane];
        const term_slots q = {.v = t->v + hp};
        uint32_t idx = top == W ? D[q.t.q[W - 1]]                  /* seq_d's row 9 is G's column 9 */
                                : tail[(uint32_t)(q.t.q[top - 1] - tail_at) * W];
        switch (top) {
        case 10: idx += D[q.t.q[8]]; /* fall through */
        case 9: idx += D[q.t.q[7]]; /* fall through */
        case 8: idx += D[q.t.q[6]]; /* fall through */
        case 7: idx += D[q.t.q[5]]; /* fall through */
        case 6: idx += D[q.t.q[4]]; /* fall through */
        case 5: idx += D[q.t.q[3]]; /* fall through */
        case 4: idx += D[q.t.q[2]]; /* fall through */
        case 3: idx += D[q.t.q[1]]; /* fall through */
        default: idx += D[q.t.q[0]];
        }
        flip_bit(row, t->t.col + idx);
    }
}

static __attribute__((noinline)) void half_hits_slots_out(const milnor_basis *A, const rhalf *hx,
                                                          const term_slots *ts, uint64_t bits, int top,
                                                          uint64_t *row)
{
    switch (top) {      /* constant in each loop: no dispatch per hit */
    case 10: half_hits_slots(A, hx, ts, bits, 10, row); return;
    case 9: half_hits_slots(A, hx, ts, bits, 9, row); return;
    case 8: half_hits_slots(A, hx, ts, bits, 8, row); return;
    case 7: half_hits_slots(A, hx, ts, bits, 7, row); return;
    case 6: half_hits_slots(A, hx, ts, bits, 6, row); return;
    case 5: half_hits_slots(A, hx, ts, bits, 5, row); return;
    case 4: half_hits_slots(A, hx, ts, bits, 4, row); return;
    case 3: half_hits_slots(A, hx, ts, bits, 3, row); return;
    default: half_hits_slots(A, hx, ts, bits, 2, row); return;
    }
}

/* The same for a profile's basis (no seq_d): T's entries, then its hash index. s[n * lanes + k]
 * = s_n of lane k (n = 1..slen, 0 beyond), lane k being the term first[k]. */
static inline void half_hits(const milnor_basis *A, const milnor_elt *R, const rhalf *hx, const uint16_t *s,
                             int lanes, int slen, uint64_t bits, const milnor_term *first, uint64_t *row)
{
    int top = RH_ND(hx) > slen ? RH_ND(hx) : slen;
    if (top > W) top = W;                         /* t_n = 0 beyond: |T| <= 2046 */
    while (bits) {
        int lane = __builtin_ctzll(bits);
        bits &= bits - 1;
        const milnor_term *tm = &first[lane];
        const uint16_t *sl = s + lane;
        uint32_t t[2 * MD];
        int len = 0;
        for (int n = 1; n <= top; ++n)
            if ((t[n - 1] = (uint32_t)((sl[n * lanes] - RH_CS(hx, n)) | RH_MK(hx, n)))) len = n;
        flip_bit(row, tm->col_offset + index_of(A, R->degree + (deg_t)tm->s_deg, t, (uint32_t)len));
    }
}

/* row ^= Sq(R)·(its terms) through the halves h[0..nh), 16 terms at a time (the list's
 * vectors read in place). */
static void job_by_halves(const milnor_basis *A, const milnor_elt *R, const rhalf *h, long nh,
                          const lane_terms *L, const milnor_term *terms, uint64_t *row)
{
    static const v16u lane_bit = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
    const int slen = (int)L->slen;
    const uint32_t nchunks = (L->count + LANES - 1) / LANES;
    for (uint32_t c = 0; c < nchunks; ++c) {
        const uint16_t *base = LT_ROWS(L, c / 4) + (c % 4) * LANES;
        const v16u *sv = (const v16u *)base;    /* sv[n * 4]: s_n of the chunk's 16 terms */
        const uint16_t m = (uint16_t)(L->valid[c / 4] >> (c % 4 * LANES));
        const v16u valid = (v16u)((((v16u){0} + m) & lane_bit) != 0);
        for (long x = 0; x < nh; ++x) {
            const rhalf *hx = &h[x];
            v16u ok = valid;
            for (int n = 1; n <= RH_ND(hx); ++n) {
                v16u b = sv[n * (LGROUP / LANES)];
                v16u cc = (v16u){0} + RH_CS(hx, n);
                v16u mm = (v16u){0} + RH_MK(hx, n);
                ok &= (v16u)(b >= cc);
                ok &= (v16u)(((b - cc) & mm) == 0);
                if (all_zero(&ok)) break;
            }
            uint32_t bits = lane_bits(&ok);
            if (!bits) continue;
            if (A->seq_d)
                half_hits_slots(A, hx, L->slots + c * LANES, bits, W, row);
            else
                half_hits(A, R, hx, base, LGROUP, slen, bits, &terms[L->first + c * LANES], row);
        }
    }
}

/* ---------------------------------------------------------------- the AVX-512 test
 *
 * With AVX-512BW a job's terms go 64 at a time (four chunks, two 512-bit registers of 32
 * lanes) and the lane tests live in mask registers (vpcmpuw, vptestnmw: no movemask, no pext).
 * The gain is not the width as such: per (half, group of terms) the loop pays one hard-to-
 * predict exit from the diagonals' loop and one lane extraction, and 64 lanes pay them a
 * quarter as often as 16. The AVX2 path gains nothing from 32 or 64 lanes (2 or 4 ymm per
 * test: measured no faster, docs/perf.md "Milnor products: AVX-512"), its lane extraction
 * growing with the lanes. Compiled with a target attribute, so the binary keeps its
 * x86-64-v3 baseline and takes this path only where the CPU (and OS) have AVX-512BW. */
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX512 1
#include <immintrin.h>
#define GROUP LGROUP
/* row ^= Sq(R)·(the terms of group g in the lanes of bits) through half hx. */
__attribute__((target("avx2,bmi,bmi2,avx512f,avx512bw")))
static inline void group_hits(const milnor_basis *A, const milnor_elt *R, const rhalf *hx, const lane_terms *L,
                              uint32_t g, uint64_t bits, const milnor_term *terms, uint64_t *row)
{
    const int slen = (int)L->slen;
    if (A->seq_d) {
        const int top = RH_ND(hx) > slen ? RH_ND(hx) : slen;
        half_hits_slots_out(A, hx, L->slots + g * GROUP, bits, top < 2 ? 2 : top, row);
    } else
        half_hits(A, R, hx, LT_ROWS(L, g), GROUP, slen, bits, &terms[L->first + g * GROUP], row);
}

/* A group of at most 32 terms (a list's last, often its only one) is tested in one register:
 * half the test's operations (massey --secondary's lists hold ~38 terms; its batches x0.975,
 * resolve's chunks x0.97, d2's x0.975). */
__attribute__((target("avx2,bmi,bmi2,avx512f,avx512bw")))
static void job_by_halves_avx512(const milnor_basis *A, const milnor_elt *R, const rhalf *h, long nh,
                                 const lane_terms *L, const milnor_term *terms, uint64_t *row)
{
    for (uint32_t g = 0; g < L->ngroups; ++g) {
        const uint16_t(*sv)[GROUP] = (const uint16_t(*)[GROUP])LT_ROWS(L, g);  /* sv[n][k]: s_n of term g * 64 + k */
        const uint64_t valid = L->valid[g];
        if (!(valid >> 32)) {
            for (long x = 0; x < nh; ++x) {
                const rhalf *hx = &h[x];
                __mmask32 lo = (__mmask32)valid;
                for (int n = 1; n <= RH_ND(hx); ++n) {
                    __m512i b0 = _mm512_load_si512(sv[n]);
                    __m512i cc = _mm512_set1_epi16((short)RH_CS(hx, n)), mm = _mm512_set1_epi16((short)RH_MK(hx, n));
                    lo = _mm512_mask_cmpge_epu16_mask(lo, b0, cc);
                    lo = _mm512_mask_testn_epi16_mask(lo, _mm512_sub_epi16(b0, cc), mm);
                    if (!lo) break;
                }
                if (lo) group_hits(A, R, hx, L, g, lo, terms, row);
            }
            continue;
        }
        for (long x = 0; x < nh; ++x) {
            const rhalf *hx = &h[x];
            __mmask32 lo = (__mmask32)valid, hi = (__mmask32)(valid >> 32);
            for (int n = 1; n <= RH_ND(hx); ++n) {
                __m512i b0 = _mm512_load_si512(sv[n]), b1 = _mm512_load_si512(&sv[n][GROUP / 2]);
                __m512i cc = _mm512_set1_epi16((short)RH_CS(hx, n)), mm = _mm512_set1_epi16((short)RH_MK(hx, n));
                lo = _mm512_mask_cmpge_epu16_mask(lo, b0, cc);
                hi = _mm512_mask_cmpge_epu16_mask(hi, b1, cc);
                lo = _mm512_mask_testn_epi16_mask(lo, _mm512_sub_epi16(b0, cc), mm);
                hi = _mm512_mask_testn_epi16_mask(hi, _mm512_sub_epi16(b1, cc), mm);
                if (!(lo | hi)) break;
            }
            const uint64_t bits = (uint64_t)lo | (uint64_t)hi << 32;
            if (bits) group_hits(A, R, hx, L, g, bits, terms, row);
        }
    }
}
#endif

int milnor_simd_supported(milnor_simd s)
{
    if (s == MILNOR_SIMD_AVX2) return 1;
#ifdef HAVE_AVX512
    if (s == MILNOR_SIMD_AVX512) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    }
#endif
    return 0;
}

milnor_simd milnor_simd_default(void)
{
    static int chosen = -1;                     /* once; a race writes the same value */
    int c = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (c < 0) {
        const char *e = getenv("EXTFLOW_MILNOR_SIMD");
        c = (e && !strcmp(e, "avx2")) || !milnor_simd_supported(MILNOR_SIMD_AVX512) ? MILNOR_SIMD_AVX2
                                                                                   : MILNOR_SIMD_AVX512;
        __atomic_store_n(&chosen, c, __ATOMIC_RELAXED);
    }
    return (milnor_simd)c;
}

/* Jobs with at least min_terms terms (and not too many R-halves) go through the halves,
 * the others through the search. */
static void batch_dispatch(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                           const milnor_term *terms, uint64_t *rows, size_t stride_words,
                           uint32_t min_terms, size_t max_halves, milnor_simd simd)
{
    lane_terms L;
    memset(&L, 0, sizeof L);
    L.first = UINT32_MAX;
    rhalf *h = NULL;                            /* hcap + 1 slots (rhalves) */
    size_t hcap = 0;
    hrows H;
    memset(&H, 0, sizeof H);
    for (size_t i = 0; i < njobs; ++i) {
        const milnor_row_job *job = &jobs[i];
        const milnor_elt *R = &A->elts[job->r_deg][job->r_idx];
        uint64_t *row = rows + i * stride_words;
        long nh = -1;
        if (job->n_terms >= min_terms && job->n_terms > 0) {
            if (L.first != job->first_term || L.count != job->n_terms) {
                if (lane_terms_build(&L, A, terms, job->first_term, job->n_terms) < 0) L.first = UINT32_MAX;
                /* the rows' choices listed under bounds that contain the list's are kept */
                int within = L.first != UINT32_MAX && L.maxdeg <= H.maxdeg;
                for (int j = 0; j < MD && within; ++j) within = L.smax[j] <= H.smax[j];
                if (!within) {
                    hrows_clear(&H);
                    memcpy(H.smax, L.smax, sizeof H.smax);
                    H.maxdeg = L.maxdeg;
                }
            }
            if (L.first != UINT32_MAX)
                for (;;) {                          /* grow the scratch up to max_halves */
                    if (hcap && (nh = rhalves(&H, R, L.smax, L.maxdeg, h, hcap)) != -1) break;
                    size_t cap = hcap ? 4 * hcap : 256;
                    if (hcap >= max_halves) break;
                    if (cap > max_halves) cap = max_halves;
                    rhalf *nhp = aligned_alloc(sizeof *nhp, (cap + 1) * sizeof *nhp);
                    if (!nhp) break;
                    free(h);
                    h = nhp;
                    hcap = cap;
                }
        }
        if (nh >= 0) {
#ifdef HAVE_AVX512
            if (simd == MILNOR_SIMD_AVX512)
                job_by_halves_avx512(A, R, h, nh, &L, terms, row);
            else
#endif
                job_by_halves(A, R, h, nh, &L, terms, row);
            continue;
        }
        for (uint32_t k = job->first_term; k < job->first_term + job->n_terms; ++k) {
            const milnor_term *tm = &terms[k];
            mul_into(A, R, &A->elts[tm->s_deg][tm->s_idx], row, tm->col_offset);
        }
    }
    free(h);
    free(H.pool);
    free(L.s);
    free(L.valid);
    free(L.slots);
}

void milnor_mul_batch_halves(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                             const milnor_term *terms, uint64_t *rows, size_t stride_words)
{
    batch_dispatch(A, jobs, njobs, terms, rows, stride_words, 1, (size_t)1 << 20, milnor_simd_default());
}

/* Dispatch rule, measured with bench/milnor_bench (best pass, ns per job x term pair, 2-core
 * Debian VM, gcc 12 -O2 -march=x86-64-v3), on batches captured from the codelet during
 * `resolve --stem 90 --max-s 50` (every 7th call: 8.0M pairs, 24.6 terms/job), during
 * `--stem 60 --max-s 30` (1.6M pairs, 6.9 terms/job) and on --synth (112.6 terms/job):
 *
 *   path                                    stem 90  stem 60  synth
 *   search only (milnor_mul_batch_search)     171.4    120.8  279.1
 *   halves, min_terms 1                        56.4     55.0   79.9
 *   halves, min_terms 2                        54.9     50.5   79.3
 *   halves, min_terms 4                        53.1     49.5   78.0
 *   halves, min_terms 8                        54.9     54.5   80.3
 *   min_terms 2, max_halves 256                58.6     50.4  106.7
 *   min_terms 2, max_halves 1024               55.2     51.0   79.8
 *   min_terms 2, max_halves 16384              54.8     50.5   78.7
 *   min_terms 2, max_halves 2^20               55.2     51.7   80.1
 *
 * So: jobs of fewer than 4 terms take the search (nothing to amortise the enumeration over),
 * and so do R with more than 4096 R-halves under the job's bounds (rare; the cap hardly
 * matters past 1024). Between 1 and 8 the differences are a few per cent (run-to-run noise on
 * this VM is about 5%): the enumeration is pruned by the job's own terms, so it is cheap even
 * for 1-3 terms. Scratch is per call; nothing is shared between threads. */
void milnor_mul_batch(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                      const milnor_term *terms, uint64_t *rows, size_t stride_words)
{
    batch_dispatch(A, jobs, njobs, terms, rows, stride_words, 4, 4096, milnor_simd_default());
}

int milnor_mul_batch_simd(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                          const milnor_term *terms, uint64_t *rows, size_t stride_words, milnor_simd simd)
{
    if (!milnor_simd_supported(simd)) return -1;
    batch_dispatch(A, jobs, njobs, terms, rows, stride_words, 4, 4096, simd);
    return 0;
}
