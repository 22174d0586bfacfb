/* milnor_p_cache.c — odd-p Milnor products kept for reuse (milnor_p_cache.h). */
#include "algebra/milnor_p_cache.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "algebra/memacct.h"

#define MPC_HUGE ((size_t)2 << 20)            /* a table this large: on huge pages (mpc_map) */
#define MPC_LOCAL 4096                  /* a target degree this wide or less: scratch on the stack */
#define MPC_ARENA_MAX ((uint64_t)16 << 30) /* the values' reservation at most (32-bit offsets of words) */

/* A slot: 0 empty, else the key's hash's high half << 32 | the value's offset in the arena (in
 * words, never 0); one atomic word, so a reader sees a whole slot or none. */
typedef struct mpc_table {
    struct mpc_table *older;            /* the tables it replaced: their pages given back */
    uint32_t cap;                       /* a power of two */
    size_t size;                        /* bytes mapped */
    _Atomic uint64_t *slot;             /* cap slots (mpc_map) */
} mpc_table;

struct milnor_p_cache {
    const milnor_p_sub *B;
    uint64_t max_bytes;
    _Atomic(mpc_table *) table;         /* readers: no lock */
    pthread_mutex_t lock;               /* writers: inserting, growing, the arena, the counts */
    uint32_t n;                         /* keys in table, <= 3/4 of cap */
    uint64_t bytes, misses;
    uint32_t *arena;                    /* the values, one reservation (touched pages only count) */
    uint64_t arena_words, arena_used;   /* reserved, taken (word 0 unused: offset 0 is "empty") */
    _Atomic int full;                   /* the budget is spent: products are computed, not kept */
    _Atomic uint64_t uncached;          /* products computed once full */
};

/* bytes of fresh zero pages, on huge pages (madvise) from MPC_HUGE on, as every request reads a
 * random slot and a random kept vector of a table and arena of tens of MB, and with 4 KB pages
 * each is also a TLB miss. NULL out of memory. */
static void *mpc_map(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= MPC_HUGE) madvise(m, bytes, MADV_HUGEPAGE);
#endif
    return m;
}

milnor_p_cache *milnor_p_cache_new(const milnor_p_sub *B, uint64_t max_bytes)
{
    milnor_p_cache *pc = calloc(1, sizeof *pc);
    if (!pc) return NULL;
    pc->B = B;
    pc->max_bytes = max_bytes;
    pthread_mutex_init(&pc->lock, NULL);
    return pc;
}

void milnor_p_cache_free(milnor_p_cache *pc)
{
    if (!pc) return;
    for (mpc_table *t = atomic_load(&pc->table), *older; t; t = older) {
        older = t->older;
        munmap((void *)t->slot, t->size);
        free(t);
    }
    if (pc->arena) munmap(pc->arena, pc->arena_words * sizeof(uint32_t));
    pthread_mutex_destroy(&pc->lock);
    memacct_add(MEM_MILNOR, -(int64_t)pc->bytes);
    free(pc);
}

void milnor_p_cache_stats(const milnor_p_cache *pc, uint64_t *kept, uint64_t *misses, uint64_t *bytes)
{
    *kept = pc ? pc->n : 0;
    *misses = pc ? pc->misses + pc->uncached : 0;
    *bytes = pc ? pc->bytes : 0;
}

/* One element's half of a key: (degree + 1, index in its degree), 12 + 20 bits; 0 when it does not
 * fit. */
static inline uint32_t elt_key(const milnor_p_basis *A, const milnor_p_elt *x)
{
    uint64_t ix = (uint64_t)(x - A->elts[x->degree]);
    if (ix >= 1u << 20 || x->degree >= 4095) return 0;
    return ((uint32_t)x->degree + 1) << 20 | (uint32_t)ix;
}

/* The key of the halves kx, ky; 0 when either is (such a pair is not kept). */
static inline uint64_t halves_key(uint32_t kx, uint32_t ky) { return kx && ky ? (uint64_t)kx << 32 | ky : 0; }

/* The key of (x, y): each as (degree + 1, index in its degree), 12 + 20 bits (never 0); 0 when an
 * index does not fit (such a pair is not kept). */
static uint64_t pair_key(const milnor_p_basis *A, const milnor_p_elt *x, const milnor_p_elt *y)
{
    return halves_key(elt_key(A, x), elt_key(A, y));
}

/* splitmix64's finaliser: a bijection of 64-bit words, so its two halves name the key exactly;
 * the slot keeps the high half, the value the low one. */
static inline uint64_t key_hash(uint64_t key)
{
    key ^= key >> 30;
    key *= 0xBF58476D1CE4E5B9ull;
    key ^= key >> 27;
    key *= 0x94D049BB133111EBull;
    return key ^ key >> 31;
}

/* The value of hash h in t, or NULL (t NULL: none). Lock-free: a value is written before its
 * slot is released; a slot of a table given back reads 0 (not kept: the product is computed). */
static const uint32_t *lookup(const milnor_p_cache *pc, const mpc_table *t, uint64_t h)
{
    if (!t) return NULL;
    uint32_t mask = t->cap - 1, hi = (uint32_t)(h >> 32), lo = (uint32_t)h;
    for (uint32_t i = lo & mask;; i = (i + 1) & mask) {
        uint64_t s = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (!s) return NULL;
        if ((uint32_t)(s >> 32) == hi && pc->arena[(uint32_t)s] == lo) return pc->arena + (uint32_t)s + 1;
    }
}

/* Puts slot s (hash's high half, offset) at hash low half lo into t (writer, under the lock). */
static void insert(mpc_table *t, uint32_t lo, uint64_t s)
{
    uint32_t mask = t->cap - 1, i = lo & mask;
    while (atomic_load_explicit(&t->slot[i], memory_order_relaxed)) i = (i + 1) & mask;
    atomic_store_explicit(&t->slot[i], s, memory_order_release);
}

/* Room for one more key: 0, or -1 (out of memory or past the budget; nothing changed). A larger
 * table is filled, then published; the old one stays mapped until the cache is freed but its
 * pages are given back (a reader still in it reads zeros: a miss, never a wrong value). */
static int grow(milnor_p_cache *pc)
{
    mpc_table *old = atomic_load_explicit(&pc->table, memory_order_relaxed);
    if (old && 4 * ((uint64_t)pc->n + 1) <= 3 * (uint64_t)old->cap) return 0;
    uint32_t ncap = old ? 2 * old->cap : 1024;
    uint64_t add = sizeof(mpc_table) + (uint64_t)ncap * sizeof(uint64_t);
    uint64_t drop = old ? sizeof(mpc_table) + (uint64_t)old->cap * sizeof(uint64_t) : 0;
    if (pc->bytes + add - drop > pc->max_bytes) {
        atomic_store_explicit(&pc->full, 1, memory_order_relaxed);
        return -1;
    }
    mpc_table *t = malloc(sizeof *t);
    if (!t || !(t->slot = mpc_map(t->size = (size_t)ncap * sizeof(uint64_t)))) {
        free(t);
        return -1;
    }
    t->cap = ncap;
    t->older = old;
    for (uint32_t i = 0; old && i < old->cap; i++) {
        uint64_t s = atomic_load_explicit(&old->slot[i], memory_order_relaxed);
        if (s) insert(t, pc->arena[(uint32_t)s], s);
    }
    atomic_store_explicit(&pc->table, t, memory_order_release);
    if (old) madvise((void *)old->slot, old->size, MADV_DONTNEED);
    pc->bytes += add - drop;
    memacct_add(MEM_MILNOR, (int64_t)add - (int64_t)drop);
    return 0;
}

/* words from the arena, as an offset (0: out of memory or past the budget). */
static uint32_t arena_take(milnor_p_cache *pc, size_t words)
{
    if (!pc->arena) {
        uint64_t w = pc->max_bytes / sizeof(uint32_t) + 1;
        if (w > MPC_ARENA_MAX / sizeof(uint32_t)) w = MPC_ARENA_MAX / sizeof(uint32_t);
        if (!(pc->arena = mpc_map(w * sizeof(uint32_t)))) return 0;
        pc->arena_words = w;
        pc->arena_used = 1;
    }
    uint64_t add = words * sizeof(uint32_t);
    if (pc->bytes + add > pc->max_bytes || pc->arena_used + words > pc->arena_words) {
        atomic_store_explicit(&pc->full, 1, memory_order_relaxed);
        return 0;
    }
    uint32_t off = (uint32_t)pc->arena_used;
    pc->arena_used += words;
    pc->bytes += add;
    memacct_add(MEM_MILNOR, (int64_t)add);
    return off;
}

static inline uint32_t coef_bits(uint32_t p) { return 32 - (uint32_t)__builtin_clz(p - 1); }

uint32_t milnor_p_cache_packed_words(uint32_t p, uint32_t n, uint32_t max_index)
{
    return max_index < 1u << (16 - coef_bits(p)) ? 1 + (n + 1) / 2 : 1 + n;
}

/* Entry k of a packed value w (its header w[0] written apart): narrow, a 16-bit index << cb |
 * coefficient; wide, a 32-bit index << 8 | coefficient. */
static inline void put_entry(uint32_t *w, int narrow, uint32_t cb, uint32_t k, uint32_t idx, uint32_t coef)
{
    if (narrow)
        ((uint16_t *)(w + 1))[k] = (uint16_t)(idx << cb | coef);
    else
        w[1 + k] = idx << 8 | coef;
}

void milnor_p_cache_pack(uint32_t p, uint32_t n, const uint32_t *idx, const uint8_t *coef, uint32_t max_index,
                         uint32_t *w)
{
    uint32_t cb = coef_bits(p);
    int narrow = max_index < 1u << (16 - cb);
    w[0] = n << 1 | !narrow;
    for (uint32_t k = 0; k < n; k++) put_entry(w, narrow, cb, k, idx[k], coef[k]);
    if (narrow && (n & 1)) ((uint16_t *)(w + 1))[n] = 0;
}

/* out[map[j]] += c·v_j (map NULL: out[j]; map[j] == MILNOR_P_CACHE_DROP: not kept). */
static inline void add_at(const milnor_p_basis *A, uint8_t *out, const uint32_t *map, uint32_t j, uint32_t v)
{
    if (map && (j = map[j]) == MILNOR_P_CACHE_DROP) return;
    uint32_t x = out[j] + v;
    out[j] = (uint8_t)(((unsigned __int128)(A->pdiv * x) * A->p) >> 64);
}

/* A kept value v added: out[map[j]] += c·(X·Y)_j; cb = coef_bits(p), worked out once by the caller. */
static inline void apply(const milnor_p_basis *A, uint32_t cb, const uint32_t *v, uint32_t c, uint8_t *out,
                         const uint32_t *map)
{
    uint32_t n = v[0] >> 1;
    if (v[0] & 1) {
        for (uint32_t k = 1; k <= n; k++) add_at(A, out, map, v[k] >> 8, c * (v[k] & 0xff));
        return;
    }
    const uint16_t *h = (const uint16_t *)(v + 1);
    uint32_t cm = (1u << cb) - 1;
    for (uint32_t k = 0; k < n; k++) add_at(A, out, map, (uint32_t)h[k] >> cb, c * (h[k] & cm));
}

void milnor_p_cache_unpack_into(const milnor_p_basis *A, const uint32_t *w, uint32_t c, uint8_t *out)
{
    apply(A, coef_bits(A->p), w, c, out, NULL);
}

/* A product's terms as they are emitted: acc[j] (bit 15: j listed) sums the coefficients of B's
 * basis element j, idx[0..n) the j's in the order first met. A product has a few terms among
 * the hundreds or thousands of its degree, so the list, not a scan of the degree, reads them
 * back, and only the listed entries are cleared after. */
typedef struct mpc_list {
    const milnor_p_sub *B;
    const uint32_t *a2b;        /* B's index of A's (NULL: B is A) */
    uint16_t *acc;
    uint32_t *idx, n;
    int outside;                /* a term outside B */
} mpc_list;

/* Each thread's scratch for degrees up to MPC_LOCAL, zero between products. */
static _Thread_local uint16_t list_acc[MPC_LOCAL];
static _Thread_local uint32_t list_idx[MPC_LOCAL];

static void list_add(uint32_t c, const milnor_p_elt *T, void *ctx)
{
    mpc_list *l = ctx;
    uint32_t j = milnor_p_index(l->B->A, T), p = l->B->A->p;
    if (l->a2b && (j = l->a2b[j]) == UINT32_MAX) {
        l->outside = 1;
        return;
    }
    uint32_t a = l->acc[j];
    if (!(a & 0x8000)) {
        l->idx[l->n++] = j;
        a = 0x8000;
    }
    uint32_t v = (a & 0xff) + c;
    l->acc[j] = (uint16_t)(0x8000 | (v >= p ? v - p : v));
}

int milnor_p_cache_mul_into_map(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                                uint8_t *out, const uint32_t *map)
{
    const milnor_p_sub *B = pc->B;
    c %= B->A->p;
    if (!c) return 0;
    uint64_t key = pair_key(B->A, X, Y), h = key_hash(key);
    const uint32_t *v = key ? lookup(pc, atomic_load_explicit(&pc->table, memory_order_acquire), h) : NULL;
    if (v) {
        apply(B->A, coef_bits(B->A->p), v, c, out, map);
        return 0;
    }
    int full = atomic_load_explicit(&pc->full, memory_order_relaxed);
    if (full) {
        atomic_fetch_add_explicit(&pc->uncached, 1, memory_order_relaxed);
        return map ? milnor_p_sub_mul_into_map(B, X, Y, c, out, map)     /* as without a cache */
                   : milnor_p_sub_mul_into(B, X, Y, c, out);
    }
    /* the product once with coefficient 1, its terms listed as they come (mpc_list) */
    uint32_t dim = B->dim[X->degree + Y->degree];
    mpc_list l = { B, B->full ? NULL : B->a2b[X->degree + Y->degree], list_acc, list_idx, 0, 0 };
    if (dim > MPC_LOCAL && (!(l.acc = calloc(dim, sizeof *l.acc)) || !(l.idx = malloc(dim * sizeof *l.idx)))) {
        free(l.acc);
        return map ? -2 : milnor_p_sub_mul_into(B, X, Y, c, out);
    }
    milnor_p_mul_each(B->A, X, Y, list_add, &l);
    uint32_t n = 0, top = 0;
    for (uint32_t k = 0; k < l.n; k++)
        if (l.acc[l.idx[k]] & 0xff) {
            n++;
            top = l.idx[k] > top ? l.idx[k] : top;
        }
    if (!l.outside) {
        pthread_mutex_lock(&pc->lock);
        uint32_t off;
        mpc_table *t = atomic_load_explicit(&pc->table, memory_order_relaxed);
        pc->misses++;
        if (key && dim < 1u << 24 && n < 1u << 30 && !lookup(pc, t, h) && grow(pc) == 0 &&
            (off = arena_take(pc, 1 + milnor_p_cache_packed_words(B->A->p, n, top)))) {
            uint32_t *w = pc->arena + off + 1, cb = coef_bits(B->A->p), m = 0;
            int narrow = top < 1u << (16 - cb);     /* else wide: an index must fit 24 bits (dim) */
            pc->arena[off] = (uint32_t)h;
            w[0] = n << 1 | !narrow;
            for (uint32_t k = 0; k < l.n; k++)
                if (l.acc[l.idx[k]] & 0xff) put_entry(w, narrow, cb, m++, l.idx[k], l.acc[l.idx[k]] & 0xff);
            if (narrow && (n & 1)) ((uint16_t *)(w + 1))[n] = 0;
            insert(atomic_load_explicit(&pc->table, memory_order_relaxed), (uint32_t)h, (h >> 32) << 32 | off);
            pc->n++;
        }
        pthread_mutex_unlock(&pc->lock);
        for (uint32_t k = 0; k < l.n; k++)
            if (l.acc[l.idx[k]] & 0xff) add_at(B->A, out, map, l.idx[k], c * (l.acc[l.idx[k]] & 0xff));
    }
    if (dim > MPC_LOCAL) {
        free(l.acc);
        free(l.idx);
    } else
        for (uint32_t k = 0; k < l.n; k++) l.acc[l.idx[k]] = 0;     /* the thread's scratch left zero */
    return l.outside ? -1 : 0;
}

/* Terms fetched ahead at once: their slots, then their kept vectors, are asked of memory
 * together, so the misses overlap instead of coming one after the other. */
#define MPC_AHEAD 16

int milnor_p_cache_mul_terms(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_cache_term *terms, size_t n,
                             uint8_t *out, const uint32_t *map)
{
    const milnor_p_basis *A = pc->B->A;
    const uint32_t kx = elt_key(A, X), cb = coef_bits(A->p);      /* X's half of every key */
    for (size_t k0 = 0; k0 < n; k0 += MPC_AHEAD) {
        const size_t m = n - k0 < MPC_AHEAD ? n - k0 : MPC_AHEAD;
        const mpc_table *t = atomic_load_explicit(&pc->table, memory_order_acquire);
        uint64_t h[MPC_AHEAD];
        uint32_t cand[MPC_AHEAD];
        const uint32_t *v[MPC_AHEAD];
        for (size_t k = 0; k < m; k++) {
            uint64_t key = halves_key(kx, elt_key(A, terms[k0 + k].y));
            h[k] = key && terms[k0 + k].c % A->p ? key_hash(key) : 0;
            if (t && h[k]) __builtin_prefetch(&t->slot[(uint32_t)h[k] & (t->cap - 1)]);
        }
        /* the slots read (now in cache), the value their tag names fetched; a pair whose key
         * hashes to 0 is not kept (never: the hash is a bijection and 0 is no key) */
        for (size_t k = 0; k < m; k++) {
            cand[k] = 0;
            if (!t || !h[k]) continue;
            uint32_t mask = t->cap - 1, hi = (uint32_t)(h[k] >> 32);
            for (uint32_t i = (uint32_t)h[k] & mask;; i = (i + 1) & mask) {
                uint64_t s = atomic_load_explicit(&t->slot[i], memory_order_acquire);
                if (!s) break;
                if ((uint32_t)(s >> 32) == hi) {
                    cand[k] = (uint32_t)s;
                    __builtin_prefetch(pc->arena + (uint32_t)s);
                    break;
                }
            }
        }
        for (size_t k = 0; k < m; k++)
            v[k] = !cand[k] ? NULL : pc->arena[cand[k]] == (uint32_t)h[k] ? pc->arena + cand[k] + 1
                                                                            : lookup(pc, t, h[k]);
        for (size_t k = 0; k < m; k++) {
            const milnor_p_cache_term *tm = &terms[k0 + k];
            uint32_t c = tm->c % A->p;
            if (!c) continue;
            if (v[k]) {
                apply(A, cb, v[k], c, map ? out : out + tm->col, map ? map + tm->col : NULL);
                continue;
            }
            int rc = map ? milnor_p_cache_mul_into_map(pc, X, tm->y, c, out, map + tm->col)
                         : milnor_p_cache_mul_into(pc, X, tm->y, c, out + tm->col);
            if (rc) return rc;
        }
    }
    return 0;
}

int milnor_p_cache_mul_into(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                            uint8_t *out)
{
    return milnor_p_cache_mul_into_map(pc, X, Y, c, out, NULL);
}
