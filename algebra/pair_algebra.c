/* pair_algebra.c — see pair_algebra.h for the maths and the layout. */
#include "algebra/pair_algebra.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- coefficients mod 4 ------------------------------------------------------------------ */

/* (-1)^(number of factors 3 mod 4 in the odd part of m!): 0 for +1, 1 for -1. */
static unsigned odd_fact_sign(uint32_t m)
{
    /* That number is the sum over i >= 0 of floor((floor(m/2^i) + 1)/4) = floor(m/2^(i+2)) + [bits
     * i and i+1 of m both set]; the first parts add up to m - popcount(m) - floor(m/2), the second
     * to popcount(m & m/2). Only its parity matters, and parities add as XOR. */
    return (m ^ (m >> 1) ^ (uint32_t)__builtin_popcount(m) ^ (uint32_t)__builtin_popcount(m & (m >> 1))) & 1;
}

/* odd_fact_sign from a table below OFS_TABLE (every entry and diagonal sum of a product inside
 * MILNOR_MAX_DEGREE): the search asks for it at every step. */
#define OFS_TABLE 2048
static uint8_t ofs_table[OFS_TABLE];
static pthread_once_t ofs_once = PTHREAD_ONCE_INIT;

static void ofs_init(void)
{
    for (uint32_t m = 0; m < OFS_TABLE; m++) ofs_table[m] = (uint8_t)odd_fact_sign(m);
}

static inline unsigned ofs(uint32_t m) { return m < OFS_TABLE ? ofs_table[m] : odd_fact_sign(m); }

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

/* ---- the product in B0, naively: every Milnor matrix (the reference path) ------------------
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

void milnor_mul_mod4_each_naive(const milnor_elt *R, const milnor_elt *S,
                          void (*emit)(const milnor_elt *T, unsigned c, void *ctx), void *ctx)
{
    mod4_search m;
    memset(&m, 0, sizeof m);
    m.R = R, m.S = S, m.lr = (int)R->len, m.ls = (int)S->len;
    m.emit = emit, m.ctx = ctx;
    mod4_cell(&m, 1, 1, m.lr ? R->r[0] : 0);
}

/* ---- the product in B0, pruned by carries --------------------------------------------------
 * A matrix's coefficient is the product of its diagonals' multinomials, whose 2-adic valuation
 * is the number of carries in adding the diagonal's entries in base 2 (Kummer); so only
 * matrices with at most one carry in all count. The carries of a sum of entries are
 * sum popcount(x) - popcount(sum x), which only grows as entries are added: the search places
 * entries one at a time, counts the carries each adds to its diagonal's partial sum, and
 * abandons a branch at the second. Cells (the x_ij, i, j >= 1, that can be non-zero) go column
 * by column as in algebra/milnor_search.h; x_0j is placed after its column's last cell, x_i0
 * after its row's, and inside a row the known low bits of x_i0 (rem mod 2^{j+1}) are tested
 * already (their carries with the diagonal so far are a lower bound). An entry v added to a
 * partial sum P makes no carry iff v & P = 0, and exactly one iff for one bit p, P and v both
 * have bit p, neither has bit p + 1, and they share no other bit; the search takes exactly
 * those values. With no carry the coefficient is ±1: the multinomial's odd part is
 * (odd part of t!) / prod (odd part of x!), whose sign mod 4 is the XOR of odd_fact_sign over
 * t and the entries; with one carry it is 2. */

typedef struct m4_search {
    const milnor_elt *R, *S;
    uint32_t rem[MX], col[MX];                  /* what rows / columns have left */
    uint32_t dsum[2 * MX];                      /* partial sums of the diagonals */
    uint8_t ci[MX * MX], cj[MX * MX], cends[MX * MX];
    int ncells, ndiag;
    unsigned carries, sign;                     /* carries so far (<= 1); XOR of odd_fact_sign */
    void (*emit)(const milnor_elt *T, unsigned c, void *ctx);
    void *ctx;
} m4_search;

enum { M4_ROW_END = 1, M4_COL_END = 2 };

static unsigned carries_of(uint32_t p, uint32_t v)
{
    return (unsigned)(__builtin_popcount(p) + __builtin_popcount(v) - __builtin_popcount(p + v));
}

/* Adds x to diagonal n: its carries (0 or 1), or -1 (nothing added) if that makes two. */
static inline __attribute__((always_inline)) int m4_place(m4_search *m, int n, uint32_t x)
{
    unsigned c = carries_of(m->dsum[n], x);
    if (m->carries + c > 1) return -1;
    m->dsum[n] += x;
    m->carries += c;
    m->sign ^= ofs(x);
    return (int)c;
}

/* The matrix is complete: T and its coefficient to emit (carries and sign: the matrix's so far,
 * every entry in; the t_n's signs are added here). */
static void m4_leaf(m4_search *m, unsigned carries, unsigned sign)
{
    milnor_elt T;
    memset(&T, 0, sizeof T);
    for (int n = 1; n <= m->ndiag; n++) {
        uint32_t t = m->dsum[n];
        if (!t) continue;
        if (n > MILNOR_MAX_LEN) return;         /* beyond every degree we hold */
        T.r[n - 1] = t;
        T.len = (uint32_t)n;
        sign ^= ofs(t);
    }
    T.degree = m->R->degree + m->S->degree;
    m->emit(&T, carries ? 2 : (sign ? 3 : 1), m->ctx);
}

static void m4_cell(m4_search *m, int k, unsigned carries, unsigned sign);

/* Cell k takes the value v (carries and sign already with v's): place it and its ends, go on
 * (the last cell straight to the leaf); then the sums back as they were. Carries and sign
 * travel as arguments, so nothing of them is restored. */
static inline __attribute__((always_inline)) void m4_take(m4_search *m, int k, uint32_t v, unsigned carries,
                                                          unsigned sign)
{
    int i = m->ci[k], j = m->cj[k], n = i + j, ends = m->cends[k];
    m->dsum[n] += v;
    m->rem[i] -= v << j;
    m->col[j] -= v;
    int ok = 1;
    if (ends & M4_ROW_END) {                    /* x_i0 = what row i has left, on diagonal i */
        uint32_t x = m->rem[i];
        unsigned c = carries_of(m->dsum[i], x);
        ok = carries + c <= 1;
        if (ok) m->dsum[i] += x, carries += c, sign ^= ofs(x);
    } else {
        uint32_t low = m->rem[i] & ((2u << j) - 1), plow = m->dsum[i] & ((2u << j) - 1);
        ok = carries + carries_of(plow, low) <= 1;
    }
    if (ok) {
        uint32_t x = 0;
        if (ends & M4_COL_END) {                /* x_0j = what column j has left, on diagonal j */
            x = m->col[j];
            unsigned c = carries_of(m->dsum[j], x);
            ok = carries + c <= 1;
            if (ok) m->dsum[j] += x, carries += c, sign ^= ofs(x);
        }
        if (ok) {
            if (k + 1 == m->ncells) m4_leaf(m, carries, sign);
            else m4_cell(m, k + 1, carries, sign);
            m->dsum[j] -= x;
        }
        if (ends & M4_ROW_END) m->dsum[i] -= m->rem[i];
    }
    m->col[j] += v;
    m->rem[i] += v << j;
    m->dsum[n] -= v;
}

static void m4_cell(m4_search *m, int k, unsigned carries, unsigned sign)
{
    int i = m->ci[k], j = m->cj[k];
    uint32_t lim = m->rem[i] >> j, P = m->dsum[i + j];
    if (m->col[j] < lim) lim = m->col[j];
    for (uint32_t v = 0; v <= lim; v = ((v | P) + 1) & ~P)       /* no carry */
        m4_take(m, k, v, carries, sign ^ ofs(v));
    if (carries) return;
    for (uint32_t rest = P; rest; rest &= rest - 1) {            /* one carry, at bit p */
        int p = __builtin_ctz(rest);
        uint32_t bit = 1u << p;
        if (P & (bit << 1) || bit > lim) continue;
        uint32_t F = P | bit | (bit << 1);
        for (uint32_t y = 0; (y | bit) <= lim; y = ((y | F) + 1) & ~F)
            m4_take(m, k, y | bit, 1, sign ^ ofs(y | bit));
    }
}

void milnor_mul_mod4_each(const milnor_elt *R, const milnor_elt *S,
                          void (*emit)(const milnor_elt *T, unsigned c, void *ctx), void *ctx)
{
    m4_search m;
    pthread_once(&ofs_once, ofs_init);
    memset(m.rem, 0, sizeof m.rem), memset(m.col, 0, sizeof m.col), memset(m.dsum, 0, sizeof m.dsum);
    m.ncells = 0, m.carries = 0, m.sign = 0;    /* (the cells' arrays are written before they are read) */
    m.R = R, m.S = S, m.emit = emit, m.ctx = ctx;
    int lr = (int)R->len, ls = (int)S->len, last_in_row[MX];
    m.ndiag = lr + ls;
    for (int i = 1; i <= lr; i++) m.rem[i] = R->r[i - 1], last_in_row[i] = -1;
    for (int j = 1; j <= ls; j++) {
        int first = m.ncells;
        m.col[j] = S->r[j - 1];
        for (int i = 1; i <= lr && m.col[j]; i++)
            if (m.rem[i] >> j) {
                last_in_row[i] = m.ncells;
                m.ci[m.ncells] = (uint8_t)i, m.cj[m.ncells] = (uint8_t)j, m.cends[m.ncells] = 0;
                m.ncells++;
            }
        if (m.ncells > first) m.cends[m.ncells - 1] = M4_COL_END;
        else if (m4_place(&m, j, m.col[j]) < 0) return;
    }
    for (int i = 1; i <= lr; i++) {
        if (last_in_row[i] >= 0) m.cends[last_in_row[i]] |= M4_ROW_END;
        else if (m4_place(&m, i, m.rem[i]) < 0) return;
    }
    if (m.ncells) m4_cell(&m, 0, m.carries, m.sign);
    else m4_leaf(&m, m.carries, m.sign);
}

/* ---- pair elements ------------------------------------------------------------------------- */

static int log2_floor(uint32_t v) { return 31 - __builtin_clz(v); }
static size_t words_of(uint32_t bits) { return ((size_t)bits + 63) / 64; }

static int vector_nonzero(const uint64_t *v, size_t words)
{
    for (size_t w = 0; w < words; w++)
        if (v[w]) return 1;
    return 0;
}

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

typedef struct planes_acc {
    const milnor_basis *A;
    uint64_t *ones, *twos;
    uint64_t col;
} planes_acc;

/* The coefficient at bit col + index of T (ones, twos) += c, in Z/4. */
static void add_planes(const milnor_elt *T, unsigned c, void *vctx)
{
    planes_acc *acc = vctx;
    uint64_t x = acc->col + milnor_index(acc->A, T), bit = (uint64_t)1 << (x & 63);
    uint64_t *ones = &acc->ones[x >> 6], *twos = &acc->twos[x >> 6];
    unsigned carry = 0;
    if (c & 1) {
        carry = (*ones & bit) != 0;
        *ones ^= bit;
    }
    if (carry ^ ((c >> 1) & 1)) *twos ^= bit;
}

void pair_mul_mod4_batch(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs,
                         const milnor_term *terms, uint64_t *rows, size_t stride_words, size_t twos_at)
{
    pair_mul_mod4_batch_memo(A, NULL, jobs, njobs, terms, rows, stride_words, twos_at);
}

/* ---- the memo of mod-4 products (pair_algebra.h) ----------------------------------------------
 * Shards by the key's hash, each with its own lock for writers: an open-addressing table (at
 * most 3/4 full) of 32-byte slots, two to a 64-byte line, each the key, the product's length
 * and, for products of at most M4_INLINE words (two in three at stem 80), the words themselves;
 * longer ones point into blocks that never move. A word is (index of T) << 2 | c, one per Milnor
 * matrix of non-zero coefficient, as milnor_mul_mod4_each emits them (a T met twice is two
 * words: the sum in Z/4 is the same).
 * Reuse is far apart (most repeats come 10^5 to 10^7 products later), so a lookup is a miss to
 * memory, and the design is about misses: a key's probe starts at the first slot of a line (the
 * hash mixes every bit of the key, so most probes end in that line); the batch asks for that
 * line M4_AHEAD lookups ahead and, M4_AHEAD / 2 ahead, for the words of a long product it finds
 * there; few shards, so that their tables soon reach the size that goes on huge pages.
 * Readers take no lock. A writer (under its shard's lock) fills a free slot's length and words
 * and only then stores its key, with release; a reader loads a key with acquire and reads the
 * rest only when the key is its own, so it sees whole entries. Growing fills a new table, then
 * publishes it (release), then gives the old one's pages back (MADV_DONTNEED: they read as
 * zeros from then on; the mapping stays until the memo is freed). A reader still probing the old
 * table meets zeros, so it finds nothing (and computes the product: the same words), or it found
 * its key and copied the slot: it then loads the key again, and a zero means the copy may be
 * of zeros, so it computes the product too. Hits are counted per batch and added once. A shard
 * past its share of the budget stops taking products; those it lacks are computed each time. */

#define M4_SHARD_BITS 3
#define M4_SHARDS (1 << M4_SHARD_BITS)         /* few: large tables reach huge pages early */
#define M4_INLINE 5
#define M4_BLOCK_WORDS 16384u
#define M4_AHEAD 16                             /* lookups prefetched ahead (their words at half that) */
#define M4_MIN_CAP 256

typedef struct m4_slot_t {
    uint64_t key;                               /* 0: empty */
    uint32_t n;
    uint32_t w[M4_INLINE];                      /* n <= M4_INLINE: the words; else a pointer to them */
} m4_slot_t;
_Static_assert(sizeof(m4_slot_t) == 32, "two slots a cache line");

typedef struct m4_table {
    size_t cap;                                 /* a power of 2, >= M4_MIN_CAP */
    m4_slot_t *slots;                           /* line-aligned (lines hold slots 2i, 2i + 1), in map */
    void *map;                                  /* the mapping: the slots, 2 MB-aligned from M4_HUGE on */
    size_t map_bytes;
    struct m4_table *older;                     /* the table this one replaced, kept for readers */
} m4_table;

typedef struct m4_shard {
    _Alignas(64) m4_table *tab;                 /* read by every lookup without the lock: a line of its own */
    _Alignas(64) pthread_mutex_t lock;          /* the writers' (misses') line */
    size_t n;
    uint32_t **blocks;                          /* the long products' words */
    size_t nblocks, blocks_cap, used;           /* used: words taken in the last block */
    size_t bytes;
    uint64_t misses;
    int full;
} m4_shard;

struct pair_m4_memo {
    size_t shard_budget;
    _Alignas(64) uint64_t hits;                 /* added once per batch */
    m4_shard shard[M4_SHARDS];
};

pair_m4_memo *pair_m4_memo_new(size_t budget_bytes)
{
    pair_m4_memo *m = aligned_alloc(_Alignof(pair_m4_memo), sizeof *m);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->shard_budget = budget_bytes / M4_SHARDS;
    for (int i = 0; i < M4_SHARDS; i++) pthread_mutex_init(&m->shard[i].lock, NULL);
    return m;
}

void pair_m4_memo_free(pair_m4_memo *m)
{
    if (!m) return;
    for (int i = 0; i < M4_SHARDS; i++) {
        m4_shard *sh = &m->shard[i];
        for (size_t b = 0; b < sh->nblocks; b++) free(sh->blocks[b]);
        free(sh->blocks);
        for (m4_table *t = sh->tab, *older; t; t = older) {
            older = t->older;
            munmap(t->map, t->map_bytes);
            free(t);
        }
        pthread_mutex_destroy(&sh->lock);
    }
    free(m);
}

void pair_m4_memo_stats(pair_m4_memo *m, uint64_t *products, uint64_t *hits, uint64_t *misses, size_t *bytes)
{
    *products = *hits = *misses = 0, *bytes = 0;
    if (!m) return;
    *hits = __atomic_load_n(&m->hits, __ATOMIC_RELAXED);
    for (int i = 0; i < M4_SHARDS; i++) {
        m4_shard *sh = &m->shard[i];
        pthread_mutex_lock(&sh->lock);
        *products += sh->n, *misses += sh->misses, *bytes += sh->bytes;
        pthread_mutex_unlock(&sh->lock);
    }
}

/* Every bit of the hash depends on every bit of the key (splitmix64's finisher). A key's low bits
 * are the indices of R and S, its high bits their degrees: a hash whose low bits saw only the
 * key's low bits (a single multiply) started the products of equal indices in different
 * degrees at one slot, and probes ran 7 to 10 slots long. */
static uint64_t m4_hash(uint64_t key)
{
    key = (key ^ key >> 30) * 0xbf58476d1ce4e5b9ull;
    key = (key ^ key >> 27) * 0x94d049bb133111ebull;
    return key ^ key >> 31;
}

/* The first slot of key's probe (the top M4_SHARD_BITS bits of h pick the shard). */
static size_t m4_start(uint64_t h, size_t cap) { return (size_t)h & (cap - 2); }

/* The slot holding key in t, or the free slot where its probe ends (then key is not in t; a
 * writer may fill that slot at any time after: a reader tells the two cases apart by *found,
 * the key as it read it, never by reading the slot again). */
static m4_slot_t *m4_probe(m4_table *t, uint64_t key, uint64_t h, int *found)
{
    size_t mask = t->cap - 1, i = m4_start(h, t->cap);
    for (;;) {
        uint64_t k = __atomic_load_n(&t->slots[i].key, __ATOMIC_ACQUIRE);
        if (k == key || !k) {
            *found = k == key;
            return &t->slots[i];
        }
        i = (i + 1) & mask;
    }
}

static const uint32_t *m4_words_of(const m4_slot_t *e)
{
    if (e->n <= M4_INLINE) return e->w;
    const uint32_t *p;
    memcpy(&p, e->w, sizeof p);
    return p;
}

/* A zeroed table of cap slots, or NULL. Tables of M4_HUGE bytes and more go on transparent huge
 * pages: lookups land anywhere in them, and on 4 KB pages nearly every one also missed the TLB
 * (perf at 80/35: the stall showed on the prefetch). */
#define M4_HUGE ((size_t)2 << 20)
static m4_table *m4_table_new(size_t cap)
{
    m4_table *t = malloc(sizeof *t);
    if (!t) return NULL;
    size_t bytes = cap * sizeof(m4_slot_t), extra = bytes >= M4_HUGE ? M4_HUGE : 0;
    void *p = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return free(t), NULL;
    uintptr_t at = extra ? ((uintptr_t)p + M4_HUGE - 1) & ~(uintptr_t)(M4_HUGE - 1) : (uintptr_t)p;
#ifdef MADV_HUGEPAGE
    if (extra) (void)madvise((void *)at, bytes, MADV_HUGEPAGE);
#endif
    *t = (m4_table){ cap, (m4_slot_t *)at, p, bytes + extra, NULL };
    return t;
}

/* Room for one more product of n words in sh (lock held): 0, or -1 (out of memory or past the
 * budget: the shard is full from then on). */
static int m4_room(pair_m4_memo *m, m4_shard *sh, uint32_t n)
{
    if (sh->full) return -1;
    m4_table *old = sh->tab;
    if (!old || 4 * (sh->n + 1) > 3 * old->cap) {
        size_t cap = old ? 2 * old->cap : M4_MIN_CAP, size = cap * sizeof(m4_slot_t);
        m4_table *t = sh->bytes + size > m->shard_budget ? NULL : m4_table_new(cap);
        if (!t) return sh->full = 1, -1;
        int found;
        for (size_t i = 0; old && i < old->cap; i++)
            if (old->slots[i].key) *m4_probe(t, old->slots[i].key, m4_hash(old->slots[i].key), &found) = old->slots[i];
        t->older = old;
        sh->bytes += size;
        __atomic_store_n(&sh->tab, t, __ATOMIC_RELEASE);       /* its entries before it */
        size_t old_size = old ? old->cap * sizeof(m4_slot_t) : 0;  /* its pages back (zeros from now on) */
        if (old && madvise(old->slots, old_size, MADV_DONTNEED) == 0) sh->bytes -= old_size;
    }
    if (n <= M4_INLINE) return 0;
    if (n > M4_BLOCK_WORDS) return -1;          /* (a product that long is not kept) */
    if (!sh->nblocks || sh->used + n > M4_BLOCK_WORDS) {
        if (sh->bytes + M4_BLOCK_WORDS * sizeof(uint32_t) > m->shard_budget) return sh->full = 1, -1;
        if (sh->nblocks == sh->blocks_cap) {
            size_t c = sh->blocks_cap ? 2 * sh->blocks_cap : 16;
            uint32_t **b = realloc(sh->blocks, c * sizeof *b);
            if (!b) return sh->full = 1, -1;
            sh->blocks = b, sh->blocks_cap = c;
        }
        if (!(sh->blocks[sh->nblocks] = malloc(M4_BLOCK_WORDS * sizeof(uint32_t)))) return sh->full = 1, -1;
        sh->nblocks++;
        sh->used = 0;
        sh->bytes += M4_BLOCK_WORDS * sizeof(uint32_t);
    }
    return 0;
}

/* One product's words, as it is computed (a miss). */
typedef struct m4_words {
    const milnor_basis *A;
    uint32_t *w;
    size_t n, cap;
    int oom;
} m4_words;

static void m4_collect(const milnor_elt *T, unsigned c, void *vctx)
{
    m4_words *x = vctx;
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        uint32_t *w = realloc(x->w, cap * sizeof *w);
        if (!w) {
            x->oom = 1;
            return;
        }
        x->w = w, x->cap = cap;
    }
    x->w[x->n++] = milnor_index(x->A, T) << 2 | c;
}

/* The coefficients of words (n of them) added in Z/4 into the planes at bit col: the ones bit o
 * becomes o ^ c_0, and the twos bit flips by c_1 ^ (o & c_0), the carry. */
static void m4_apply(const uint32_t *words, uint32_t n, uint64_t *ones, uint64_t *twos, uint64_t col)
{
    for (uint32_t k = 0; k < n; k++) {
        uint64_t x = col + (words[k] >> 2), c = words[k] & 3;
        unsigned b = (unsigned)(x & 63);
        uint64_t o = ones[x >> 6] >> b;
        ones[x >> 6] ^= (c & 1) << b;
        twos[x >> 6] ^= (((o & c) ^ (c >> 1)) & 1) << b;
    }
}

static uint64_t m4_key(uint32_t rd, uint32_t ri, uint32_t sd, uint32_t si)
{
    return 1 + ((uint64_t)rd << 53 | (uint64_t)ri << 32 | (uint64_t)sd << 21 | (uint64_t)si);
}

/* Asks for the line where the lookup of key starts. */
static void m4_prefetch(pair_m4_memo *m, uint64_t h)
{
    const m4_table *t = __atomic_load_n(&m->shard[h >> (64 - M4_SHARD_BITS)].tab, __ATOMIC_ACQUIRE);
    if (t) __builtin_prefetch(&t->slots[m4_start(h, t->cap)]);
}

/* Asks for the words of a long product whose key sits in the line its lookup starts at (that
 * line asked for earlier, by m4_prefetch): the second miss of such a lookup. */
static void m4_prefetch_words(pair_m4_memo *m, uint64_t key, uint64_t h)
{
    const m4_table *t = __atomic_load_n(&m->shard[h >> (64 - M4_SHARD_BITS)].tab, __ATOMIC_ACQUIRE);
    if (!t) return;
    const m4_slot_t *e = &t->slots[m4_start(h, t->cap)];
    for (int j = 0; j < 2; j++)
        if (__atomic_load_n(&e[j].key, __ATOMIC_ACQUIRE) == key) {
            if (e[j].n > M4_INLINE) __builtin_prefetch(m4_words_of(&e[j]));
            return;
        }
}

/* Sq(R)·Sq(S), R = elts[rd][ri] and S = elts[sd][si], added into the planes at bit col: from the
 * memo (counted in *hits), or computed (and kept when there is room). */
static void m4_product(const milnor_basis *A, pair_m4_memo *m, m4_words *scratch, uint32_t rd, uint32_t ri,
                       uint32_t sd, uint32_t si, uint64_t key, uint64_t h, uint64_t *ones, uint64_t *twos,
                       uint64_t col, uint64_t *hits)
{
    const milnor_elt *R = &A->elts[rd][ri], *S = &A->elts[sd][si];
    if (!m || ri >= (1u << 21) || si >= (1u << 21)) {
        planes_acc acc = { A, ones, twos, col };
        milnor_mul_mod4_each(R, S, add_planes, &acc);
        return;
    }
    m4_shard *sh = &m->shard[h >> (64 - M4_SHARD_BITS)];
    m4_table *t = __atomic_load_n(&sh->tab, __ATOMIC_ACQUIRE);
    int found = 0;
    if (t) {
        const m4_slot_t *e = m4_probe(t, key, h, &found);
        if (found) {                            /* (the acquire in m4_probe: its n and words are whole) */
            m4_slot_t copy;
            memcpy(&copy, e, sizeof copy);
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (__atomic_load_n(&e->key, __ATOMIC_RELAXED) == key) {    /* t not given back meanwhile */
                ++*hits;
                m4_apply(m4_words_of(&copy), copy.n, ones, twos, col);
                return;
            }
            found = 0;
        }
    }
    scratch->n = 0, scratch->oom = 0;
    milnor_mul_mod4_each(R, S, m4_collect, scratch);
    if (scratch->oom) {                         /* no room to collect: straight into the planes */
        planes_acc acc = { A, ones, twos, col };
        milnor_mul_mod4_each(R, S, add_planes, &acc);
        return;
    }
    uint32_t n = (uint32_t)scratch->n;
    m4_apply(scratch->w, n, ones, twos, col);
    pthread_mutex_lock(&sh->lock);
    sh->misses++;
    if (m4_room(m, sh, n) == 0) {
        m4_slot_t *e = m4_probe(sh->tab, key, h, &found);
        if (!found) {                           /* (another thread may have put it there meanwhile) */
            e->n = n;
            if (n <= M4_INLINE) {
                if (n) memcpy(e->w, scratch->w, n * sizeof *e->w);    /* (n = 0: scratch->w may be NULL) */
            }
            else {
                uint32_t *w = sh->blocks[sh->nblocks - 1] + sh->used;
                memcpy(w, scratch->w, n * sizeof *w);
                sh->used += n;
                memcpy(e->w, &w, sizeof w);
            }
            __atomic_store_n(&e->key, key, __ATOMIC_RELEASE);  /* published after its words */
            sh->n++;
        }
    }
    pthread_mutex_unlock(&sh->lock);
}

/* A place in a batch's pairs: job i, its term k. */
typedef struct m4_cursor {
    size_t i;
    uint32_t k;
} m4_cursor;

/* The key of the pair at c (0 past the last), c moved on to the next. */
static uint64_t m4_step(const milnor_row_job *jobs, size_t njobs, const milnor_term *terms, m4_cursor *c)
{
    while (c->i < njobs && c->k >= jobs[c->i].n_terms) c->i++, c->k = 0;
    if (c->i == njobs) return 0;
    const milnor_term *tm = &terms[jobs[c->i].first_term + c->k++];
    return m4_key(jobs[c->i].r_deg, jobs[c->i].r_idx, tm->s_deg, tm->s_idx);
}

void pair_mul_mod4_batch_memo(const milnor_basis *A, pair_m4_memo *memo, const milnor_row_job *jobs, size_t njobs,
                              const milnor_term *terms, uint64_t *rows, size_t stride_words, size_t twos_at)
{
    m4_words scratch = { A, NULL, 0, 0, 0 };
    uint64_t hits = 0, key[M4_AHEAD] = { 0 }, hash[M4_AHEAD] = { 0 };  /* pair q's at q % M4_AHEAD */
    m4_cursor far = { 0, 0 };                   /* pair q + M4_AHEAD */
    for (int a = 0; memo && a < M4_AHEAD; a++)
        if ((key[a] = m4_step(jobs, njobs, terms, &far))) m4_prefetch(memo, hash[a] = m4_hash(key[a]));
    size_t q = 0;
    for (size_t i = 0; i < njobs; i++) {
        uint64_t *ones = rows + i * stride_words, *twos = ones + twos_at;
        for (uint32_t k = 0; k < jobs[i].n_terms; k++, q++) {
            const milnor_term *tm = &terms[jobs[i].first_term + k];
            size_t at = q % M4_AHEAD, mid = (q + M4_AHEAD / 2) % M4_AHEAD;
            uint64_t kq = key[at], hq = hash[at];
            if (memo) {
                if ((key[at] = m4_step(jobs, njobs, terms, &far))) m4_prefetch(memo, hash[at] = m4_hash(key[at]));
                if (key[mid]) m4_prefetch_words(memo, key[mid], hash[mid]);
            }
            m4_product(A, memo, &scratch, jobs[i].r_deg, jobs[i].r_idx, tm->s_deg, tm->s_idx, kq, hq, ones, twos,
                       tm->col_offset, &hits);
        }
    }
    if (hits) __atomic_fetch_add(&memo->hits, hits, __ATOMIC_RELAXED);
    free(scratch.w);
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

void pair_y_seen(const milnor_elt *R, int8_t lmax[PAIR_MAX_K])
{
    for (int k = 0; k < PAIR_MAX_K; k++)
        for (int i = (int)R->len; i >= 1; i--)
            if (R->r[i - 1] >= (1u << k)) {
                if (lmax[k] < k + i) lmax[k] = (int8_t)(k + i);
                break;
            }
}

/* ---- the A(R, Y) cache ----------------------------------------------------------------------- */

typedef struct pair_ay_entry {
    uint64_t key;                               /* 0: empty */
    uint64_t *vec;
} pair_ay_entry;

/* Every A(Sq R, Y_{k,l}) of one R (k < l, of degree at most A's top): the non-zero ones end to
 * end in v, (k, l)'s at v + at[k][l]; AY_ZERO for a zero one (pair_y_seen's bound, or computed)
 * and for the (k, l) not held (k >= l, or beyond the top degree: no pair element has that plane
 * there). */
#define AY_ZERO UINT32_MAX
#define AY_MASK_WORDS ((PAIR_MAX_K * PAIR_MAX_K + 63) / 64)
typedef struct ay_row {
    uint64_t nonzero[AY_MASK_WORDS];            /* bit k PAIR_MAX_K + l: at[k][l] != AY_ZERO */
    uint32_t at[PAIR_MAX_K][PAIR_MAX_K];
    uint64_t v[];
} ay_row;

typedef struct pair_ay_row_slot {
    uint64_t key;                               /* 0: empty */
    ay_row *row;
} pair_ay_row_slot;

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
    for (size_t i = 0; i < c->rcap; i++) free(c->rows[i].row);
    free(c->rows);
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

/* R's row, computed: NULL out of memory. */
static ay_row *ay_row_new(const milnor_basis *A, const milnor_elt *R)
{
    int8_t lmax[PAIR_MAX_K];
    memset(lmax, -1, sizeof lmax);
    pair_y_seen(R, lmax);
    size_t words = 0, most = 0;
    for (int k = 0; k < PAIR_MAX_K; k++)
        for (int l = k + 1; l <= lmax[k] && l < PAIR_MAX_K; l++) {
            deg_t d = R->degree + (1 << k) + (1 << l) - 2;
            if (d > A->max_degree) break;
            words += words_of(A->dim[d]);
            if (words_of(A->dim[d]) > most) most = words_of(A->dim[d]);
        }
    ay_row *row = malloc(sizeof *row + (words + most + 1) * sizeof(uint64_t));
    if (!row) return NULL;
    uint64_t *scratch = row->v + words;         /* (the last `most + 1` words: one vector's room) */
    size_t at = 0;
    memset(row->nonzero, 0, sizeof row->nonzero);
    for (int k = 0; k < PAIR_MAX_K; k++)
        for (int l = 0; l < PAIR_MAX_K; l++) {
            row->at[k][l] = AY_ZERO;
            deg_t d = R->degree + (1 << k) + (1 << l) - 2;
            if (l <= k || l > lmax[k] || d > A->max_degree) continue;
            size_t w = words_of(A->dim[d]);
            memset(scratch, 0, (w + 1) * sizeof *scratch);
            pair_a_y(A, R, k, l, scratch, 0);
            if (!vector_nonzero(scratch, w)) continue;
            memmove(row->v + at, scratch, w * sizeof *scratch);
            row->at[k][l] = (uint32_t)at;
            row->nonzero[(k * PAIR_MAX_K + l) / 64] |= (uint64_t)1 << ((k * PAIR_MAX_K + l) % 64);
            at += w;
        }
    return row;
}

static size_t ay_row_slot(const pair_ay_cache *c, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (c->rcap - 1);
    while (c->rows[i].key && c->rows[i].key != key) i = (i + 1) & (c->rcap - 1);
    return i;
}

/* R's row (valid until the cache is cleared), or NULL out of memory. */
static const ay_row *ay_row_cached(pair_ay_cache *c, const milnor_basis *A, const milnor_elt *R)
{
    uint64_t key = ay_key(R->degree, milnor_index(A, R), 0, 0);
    pthread_mutex_lock(&c->lock);
    if (c->rcap) {
        size_t i = ay_row_slot(c, key);
        if (c->rows[i].key) {
            const ay_row *row = c->rows[i].row;
            pthread_mutex_unlock(&c->lock);
            return row;
        }
    }
    pthread_mutex_unlock(&c->lock);
    ay_row *row = ay_row_new(A, R);             /* outside the lock; a thread that lost the race frees its own */
    if (!row) return NULL;
    pthread_mutex_lock(&c->lock);
    if (2 * (c->nrows + 1) > c->rcap) {
        size_t cap = c->rcap ? 2 * c->rcap : 1024;
        pair_ay_row_slot *old = c->rows, *grown = calloc(cap, sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&c->lock);
            free(row);
            return NULL;
        }
        size_t old_cap = c->rcap;
        c->rows = grown, c->rcap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].key) c->rows[ay_row_slot(c, old[i].key)] = old[i];
        free(old);
    }
    size_t i = ay_row_slot(c, key);
    if (c->rows[i].key) {
        free(row);
        row = c->rows[i].row;
    } else {
        c->rows[i].key = key;
        c->rows[i].row = row;
        c->nrows++;
    }
    pthread_mutex_unlock(&c->lock);
    return row;
}

/* ---- the action of A on pair elements, one product per pair (the reference path) ------------- */

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

int pair_a_mul_add_pairwise(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
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

/* ---- products in batches -------------------------------------------------------------------
 * The mod-2 products of many σ-products, and of A(a, e) for many e, go to milnor_mul_batch
 * (algebra/milnor.h) at once: jobs (left factors) that share a list of terms (right factors)
 * enumerate their R-halves once for all of them. A batch writes one row (stride 0); terms name
 * their place in it by their column. */

typedef struct mul_batch {
    milnor_row_job *jobs;
    milnor_term *terms;
    size_t njobs, jcap, nterms, tcap;
} mul_batch;

static void mul_batch_clear(mul_batch *b)
{
    free(b->jobs);
    free(b->terms);
}

/* Doubles the array *p of *cap elements of size sz (to 64 at first). 0, or -1 out of memory. */
static int grow_array(void **p, size_t *cap, size_t sz)
{
    size_t n = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, n * sz);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int mul_batch_term(mul_batch *b, deg_t d, uint32_t idx, uint64_t col)
{
    if (b->nterms == b->tcap && grow_array((void **)&b->terms, &b->tcap, sizeof *b->terms) != 0) return -1;
    b->terms[b->nterms++] = (milnor_term){ (uint32_t)d, idx, (uint32_t)col };
    return 0;
}

/* A job: Sq(R) (degree d, index idx) times the terms from position first on. */
static int mul_batch_job(mul_batch *b, deg_t d, uint32_t idx, size_t first)
{
    if (b->njobs == b->jcap && grow_array((void **)&b->jobs, &b->jcap, sizeof *b->jobs) != 0) return -1;
    b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)d, idx, (uint32_t)first, (uint32_t)(b->nterms - first) };
    return 0;
}

int pair_sigma_y_visit(const milnor_elt *b, uint32_t nb, const milnor_elt *c, const deg_t *target_degree, uint32_t nc,
                       const int8_t *lmax, const pair_y_visitor *v)
{
    uint32_t lenb = 0, lenc = 0;
    for (uint32_t j = 0; j < nc; j++)
        if (c[j].len > lenc) lenc = c[j].len;
    for (uint32_t i = 0; i < nb; i++)
        if (b[i].len > lenb) lenb = b[i].len;
    if (!lenb || !lenc) return 0;
    /* per k: the c_j with s_{k+1} >= 1, less e_{k+1} (taken once for every (n, m)) */
    milnor_elt *s1 = malloc((size_t)nc * sizeof *s1);
    uint32_t *js = malloc((size_t)nc * sizeof *js);
    int rc = s1 && js ? 0 : -1;
    for (int k = 0; k < (int)lenc && !rc; k++) {
        uint32_t ns = 0;
        for (uint32_t j = 0; j < nc; j++) {
            s1[ns] = c[j];
            if (sub_slot(&s1[ns], k + 1, 0)) js[ns++] = j;
        }
        for (int n = 1; n <= (int)lenb && ns && !rc; n++)
            for (int m = 0; m < n && !rc; m++) {
                int ya = m + k, yb = n + k, terms = 0, jobs = 0, any = 0;
                if (lmax && yb > lmax[ya]) continue;      /* a plane no action sees */
                /* a group no left factor meets is skipped before its terms */
                for (uint32_t i = 0; i < nb && !any; i++) {
                    milnor_elt R2 = b[i];
                    any = sub_slot(&R2, n, k) && sub_slot(&R2, m, k);
                }
                if (!any) continue;
                for (uint32_t x = 0; x < ns && !rc; x++) {
                    deg_t d = target_degree[js[x]];
                    /* the target's ys[ya][yb] exists: ya < nk(d), yb < nl[ya](d) (pair_elt_init) */
                    if (ya > log2_floor((uint32_t)d) || d + 1 < (deg_t)(1u << ya) + 1 ||
                        yb > log2_floor((uint32_t)d + 1 - (1u << ya)))
                        continue;
                    rc = v->term(v->ctx, js[x], ya, yb, &s1[x]);
                    terms++;
                }
                if (!terms || rc) continue;
                for (uint32_t i = 0; i < nb && !rc; i++) {
                    milnor_elt R2 = b[i];
                    if (sub_slot(&R2, n, k) && sub_slot(&R2, m, k)) {
                        rc = v->job(v->ctx, &R2);
                        jobs++;
                    }
                }
                if (!rc) rc = v->end(v->ctx, jobs);
            }
    }
    free(s1);
    free(js);
    return rc ? -1 : 0;
}

/* pair_sigma_y_add_all's visitor: a mul_batch whose one row is the distinct targets'
 * allocations end to end. */
typedef struct y_into_row {
    const milnor_basis *A;
    mul_batch mb;
    pair_elt **tg;
    uint32_t *tj;               /* c_j's target: tg[tj[j]] */
    size_t *tw;                 /* tg[t]'s first word in the row */
    size_t first;               /* the group's first term */
    uint32_t *sdeg, *sidx;      /* per c_j: the last S met (its degree names k) and its index */
} y_into_row;

static int y_term(void *ctx, uint32_t j, int ya, int yb, const milnor_elt *S1)
{
    y_into_row *y = ctx;
    const pair_elt *t = y->tg[y->tj[j]];
    uint64_t col = 64 * (y->tw[y->tj[j]] + (size_t)(t->ys[ya][yb] - t->mem));
    if (y->sdeg[j] != (uint32_t)S1->degree) y->sdeg[j] = (uint32_t)S1->degree, y->sidx[j] = milnor_index(y->A, S1);
    return mul_batch_term(&y->mb, S1->degree, y->sidx[j], col);
}

static int y_job(void *ctx, const milnor_elt *R2)
{
    y_into_row *y = ctx;
    return mul_batch_job(&y->mb, R2->degree, milnor_index(y->A, R2), y->first);
}

static int y_end(void *ctx, int jobs)
{
    y_into_row *y = ctx;
    if (!jobs) y->mb.nterms = y->first;            /* no left factor: drop the terms */
    y->first = y->mb.nterms;
    return 0;
}

/* The Y terms of all σ(b_i)σ(c_j) (see pair_sigma_mul_add): pair_sigma_y_visit's products into
 * one batch whose row is a scratch copy of the distinct targets' allocations end to end, XORed
 * back at the end. */
int pair_sigma_y_add_all(const milnor_basis *A, const milnor_elt *b, uint32_t nb, const milnor_elt *c,
                         pair_elt *const *target, uint32_t nc, const int8_t *lmax)
{
    if (!nb || !nc) return 0;
    int rc = -1;
    y_into_row y = { .A = A };
    y.tg = malloc((size_t)nc * sizeof *y.tg);
    y.tj = malloc((size_t)nc * sizeof *y.tj);
    y.tw = malloc((size_t)nc * sizeof *y.tw);
    deg_t *deg = malloc((size_t)nc * sizeof *deg);
    y.sdeg = malloc((size_t)nc * sizeof *y.sdeg);
    y.sidx = malloc((size_t)nc * sizeof *y.sidx);
    uint64_t *row = NULL;
    uint32_t nt = 0;
    size_t words = 0;
    if (!y.tg || !y.tj || !y.tw || !deg || !y.sdeg || !y.sidx) goto done;
    for (uint32_t j = 0; j < nc; j++) {
        y.sdeg[j] = UINT32_MAX;     /* (S = c_j less e_{k+1}: its degree is |c_j| + 1 - 2^{k+1}) */
        uint32_t t = 0;
        while (t < nt && y.tg[t] != target[j]) t++;
        if (t == nt) y.tg[nt] = target[j], y.tw[nt++] = words, words += target[j]->words;
        y.tj[j] = t;
        deg[j] = target[j]->degree;
    }
    if (((uint64_t)words << 6) > UINT32_MAX) goto done;         /* columns are 32-bit */
    pair_y_visitor v = { y_term, y_job, y_end, &y };
    if (pair_sigma_y_visit(b, nb, c, deg, nc, lmax, &v) != 0) goto done;
    if (y.mb.njobs) {
        row = calloc(words + 1, sizeof *row);
        if (!row) goto done;
        milnor_mul_batch(A, y.mb.jobs, y.mb.njobs, y.mb.terms, row, 0);
        for (uint32_t t = 0; t < nt; t++)
            for (size_t w = 0; w < y.tg[t]->words; w++) y.tg[t]->mem[w] ^= row[y.tw[t] + w];
    }
    rc = 0;
done:
    free(row);
    free(y.tg);
    free(y.tj);
    free(y.tw);
    free(y.sdeg);
    free(y.sidx);
    free(deg);
    mul_batch_clear(&y.mb);
    return rc;
}

int pair_sigma_mul_add_all(const milnor_basis *A, const milnor_elt *b, uint32_t nb, const milnor_elt *c,
                           pair_elt *const *target, uint32_t nc)
{
    if (!nb || !nc) return 0;
    if (pair_sigma_y_add_all(A, b, nb, c, target, nc, NULL) != 0) return -1;
    for (uint32_t j = 0; j < nc; j++) {
        mod4_acc acc = { A, target[j] };
        for (uint32_t i = 0; i < nb; i++) milnor_mul_mod4_each(&b[i], &c[j], add_mod4, &acc);
    }
    return 0;
}

/* The sink of a mul_batch. */
static size_t batch_nterms(void *ctx) { return ((mul_batch *)ctx)->nterms; }
static int batch_term(void *ctx, milnor_term t) { return mul_batch_term(ctx, (deg_t)t.s_deg, t.s_idx, t.col_offset); }
static int batch_job(void *ctx, milnor_row_job j)
{
    mul_batch *b = ctx;
    if (b->njobs == b->jcap && grow_array((void **)&b->jobs, &b->jcap, sizeof *b->jobs) != 0) return -1;
    b->jobs[b->njobs++] = j;
    return 0;
}

/* A term per set bit of v (degree d) at column col, into the sink. */
static int sink_vector(const milnor_sink *k, const milnor_basis *A, const uint64_t *v, deg_t d, uint64_t col)
{
    for (size_t w = 0; w < words_of(A->dim[d]); w++)
        for (uint64_t bits = v[w]; bits; bits &= bits - 1)
            if (k->term(k->ctx, (milnor_term){ (uint32_t)d, (uint32_t)(64 * w + (size_t)__builtin_ctzll(bits)),
                                              (uint32_t)col }) != 0)
                return -1;
    return 0;
}

/* A job: Sq(R) (degree d, index idx) times the sink's terms from position first on. */
static int sink_job(const milnor_sink *k, deg_t d, uint32_t idx, size_t first)
{
    return k->job(k->ctx, (milnor_row_job){ (uint32_t)d, idx, (uint32_t)first, (uint32_t)(k->nterms(k->ctx) - first) });
}

/* A(a, e_i) for all i: the left factors Sq(R - e_1) (R in a) meet every e_i's twos, and the
 * basis elements of sum_R A(Sq R, Y_{k,l}) every e_i's ys[k][l]; one term list per kind (twos,
 * then each (k, l)) that some e_i has, the terms of all e_i in it, and its left factors. */
int pair_a_plan_lists(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                      const pair_elt *const *e, const uint64_t *col_offset, uint32_t ne, const pair_a_lists *to)
{
    if (!n || !ne || a[0].degree == 0) return 0;
    deg_t da = a[0].degree;
    uint64_t *sum = NULL;
    const ay_row **rows = malloc(n * sizeof *rows);    /* a[r]'s A(Sq R, Y_{k,l}) for every k < l */
    int rc = -1, have = 0;
    if (!rows) return -1;
    /* twos: Sq(R - e_1)·twos (a list no left factor meets is left out: its terms would be
     * multiplied by nothing) */
    int any = 0;
    for (uint32_t r = 0; r < n && !any; r++) any = a[r].len && a[r].r[0];
    for (uint32_t i = 0; any && i < ne && !have; i++) have = vector_nonzero(e[i]->twos, words_of(A->dim[e[i]->degree]));
    int known = have ? to->list(to->ctx, 0) : 0;
    if (known < 0) goto done;
    for (uint32_t i = 0; have && !known && i < ne; i++)
        if (sink_vector(&to->terms, A, e[i]->twos, e[i]->degree, col_offset[i]) != 0) goto done;
    for (uint32_t r = 0; have && r < n; r++) {
        milnor_elt R1 = a[r];
        if (sub_slot(&R1, 1, 0) && to->job(to->ctx, (uint32_t)R1.degree, milnor_index(A, &R1)) != 0) goto done;
    }
    /* Y terms: (sum over a's terms of A(Sq R, Y_{k,l}))·ys[k][l] */
    size_t sumw = 0;
    uint64_t planes[AY_MASK_WORDS] = { 0 };     /* the (k, l) some a[r] sees, as ay_row's bits */
    for (uint32_t r = 0; r < n; r++) {
        if (!(rows[r] = ay_row_cached(cache, A, &a[r]))) goto done;
        for (int w = 0; w < AY_MASK_WORDS; w++) planes[w] |= rows[r]->nonzero[w];
    }
    /* (in the order of k, then l; a plane whose left factors sum to 0 is left out, as the twos
     * are above) */
    for (int pw = 0; pw < AY_MASK_WORDS; pw++)
        for (uint64_t pbits = planes[pw]; pbits; pbits &= pbits - 1) {
            int kl = 64 * pw + __builtin_ctzll(pbits), k = kl / PAIR_MAX_K, l = kl % PAIR_MAX_K;
            deg_t day = da + (1 << k) + (1 << l) - 2;
            have = 0;
            for (uint32_t i = 0; i < ne && !have; i++)
                if (k < e[i]->nk && l < e[i]->nl[k]) have = vector_nonzero(e[i]->ys[k][l], words_of(e[i]->ys_dim[k][l]));
            if (!have) continue;
            size_t aw = words_of(A->dim[day]);
            if (aw > sumw) {
                uint64_t *ns = realloc(sum, (aw + 1) * sizeof *ns);
                if (!ns) goto done;
                sum = ns, sumw = aw;
            }
            memset(sum, 0, aw * sizeof *sum);
            for (uint32_t r = 0; r < n; r++) {
                if (rows[r]->at[k][l] == AY_ZERO) continue;
                const uint64_t *v = rows[r]->v + rows[r]->at[k][l];
                for (size_t w = 0; w < aw; w++) sum[w] ^= v[w];
            }
            if (!vector_nonzero(sum, aw)) continue;
            known = to->list(to->ctx, 1 + k * PAIR_MAX_K + l);
            if (known < 0) goto done;
            for (uint32_t i = 0; !known && i < ne; i++)
                if (k < e[i]->nk && l < e[i]->nl[k] &&
                    sink_vector(&to->terms, A, e[i]->ys[k][l], e[i]->degree + 1 - (1 << k) - (1 << l), col_offset[i]) != 0)
                    goto done;
            for (size_t w = 0; w < aw; w++)
                for (uint64_t bits = sum[w]; bits; bits &= bits - 1)
                    if (to->job(to->ctx, (uint32_t)day, (uint32_t)(64 * w + (size_t)__builtin_ctzll(bits))) != 0) goto done;
        }
    rc = 0;
done:
    free(sum);
    free(rows);
    return rc;
}

/* pair_a_plan_lists into one sink: each list's terms appended, its jobs over them. */
typedef struct list_to_sink {
    const milnor_sink *sink;
    size_t first;               /* the current list's first term */
} list_to_sink;
static int lts_list(void *ctx, int kind)
{
    (void)kind;
    list_to_sink *l = ctx;
    l->first = l->sink->nterms(l->sink->ctx);
    return 0;
}
static int lts_job(void *ctx, uint32_t r_deg, uint32_t r_idx)
{
    list_to_sink *l = ctx;
    return sink_job(l->sink, (deg_t)r_deg, r_idx, l->first);
}

int pair_a_mul_plan(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                    const pair_elt *const *e, const uint64_t *col_offset, uint32_t ne, const milnor_sink *sink)
{
    list_to_sink l = { sink, 0 };
    pair_a_lists to = { &l, *sink, lts_list, lts_job };
    return pair_a_plan_lists(A, cache, a, n, e, col_offset, ne, &to);
}

/* pair_a_mul_plan into a batch whose columns start at the word of the lowest offset, multiplied
 * into out from there. */
int pair_a_mul_add_many(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                        const pair_elt *const *e, const uint64_t *col_offset, uint32_t ne, uint64_t *out)
{
    if (!n || !ne || a[0].degree == 0) return 0;
    deg_t da = a[0].degree;
    uint64_t lo = UINT64_MAX;
    for (uint32_t i = 0; i < ne; i++)
        if (col_offset[i] < lo) lo = col_offset[i];
    lo &= ~(uint64_t)63;
    uint64_t *rel = malloc(ne * sizeof *rel);
    if (!rel) return -1;
    for (uint32_t i = 0; i < ne; i++) {
        rel[i] = col_offset[i] - lo;
        if (rel[i] + ((uint64_t)A->dim[da + e[i]->degree - 1]) > UINT32_MAX) {
            free(rel);
            return -1;
        }
    }
    mul_batch b = { 0 };
    milnor_sink sink = { &b, batch_nterms, batch_term, batch_job };
    int rc = pair_a_mul_plan(A, cache, a, n, e, rel, ne, &sink);
    if (rc == 0) milnor_mul_batch(A, b.jobs, b.njobs, b.terms, out + (lo >> 6), 0);
    free(rel);
    mul_batch_clear(&b);
    return rc;
}

int pair_a_mul_add_sets(const milnor_basis *A, pair_ay_cache *cache, const pair_a_set *sets, uint32_t nsets,
                        uint64_t *out)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t nrel = 0;
    for (uint32_t s = 0; s < nsets; s++) {
        const pair_a_set *x = &sets[s];
        if (!x->n || !x->ne || x->a[0].degree == 0) continue;
        nrel += x->ne;
        for (uint32_t i = 0; i < x->ne; i++) {
            uint64_t end = x->col_offset[i] + (uint64_t)A->dim[x->a[0].degree + x->e[i]->degree - 1];
            if (x->col_offset[i] < lo) lo = x->col_offset[i];
            if (end > hi) hi = end;
        }
    }
    if (!nrel) return 0;
    lo &= ~(uint64_t)63;
    if (hi - lo > UINT32_MAX) return -1;
    uint64_t *rel = malloc(nrel * sizeof *rel);
    if (!rel) return -1;
    mul_batch b = { 0 };
    milnor_sink sink = { &b, batch_nterms, batch_term, batch_job };
    int rc = 0;
    for (uint32_t s = 0, at = 0; s < nsets && !rc; s++) {
        const pair_a_set *x = &sets[s];
        if (!x->n || !x->ne || x->a[0].degree == 0) continue;
        for (uint32_t i = 0; i < x->ne; i++) rel[at + i] = x->col_offset[i] - lo;
        rc = pair_a_mul_plan(A, cache, x->a, x->n, x->e, rel + at, x->ne, &sink);
        at += x->ne;
    }
    if (rc == 0) milnor_mul_batch(A, b.jobs, b.njobs, b.terms, out + (lo >> 6), 0);
    free(rel);
    mul_batch_clear(&b);
    return rc;
}

int pair_a_mul_add(const milnor_basis *A, pair_ay_cache *cache, const milnor_elt *a, uint32_t n,
                   const pair_elt *e, uint64_t *out, uint64_t col_offset)
{
    return pair_a_mul_add_many(A, cache, a, n, &e, &col_offset, 1, out);
}
