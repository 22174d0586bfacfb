/* milnor_p_cache.c — odd-p Milnor products kept for reuse (milnor_p_cache.h). */
#include "algebra/milnor_p_cache.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "algebra/memacct.h"

#define MPC_ARENA_BYTES ((size_t)1 << 16)     /* the first arena block; each next one twice as large, */
#define MPC_ARENA_MAX ((size_t)2 << 20)       /* up to one huge page */
#define MPC_HUGE ((size_t)2 << 20)            /* a table or block this large: on huge pages (mpc_alloc) */
#define MPC_LOCAL 4096                  /* a target degree this wide or less: scratch on the stack */

typedef struct mpc_slot {
    _Atomic uint64_t key;               /* 0: empty; stored last (release), read first (acquire) */
    const uint32_t *v;                  /* v[0] = n, v[1..n] = index << 8 | coefficient */
} mpc_slot;

typedef struct mpc_table {
    struct mpc_table *older;            /* the tables it replaced: readers may still hold them */
    uint32_t cap;                       /* a power of two */
    mpc_slot *slot;                     /* cap slots (mpc_alloc) */
} mpc_table;

typedef struct mpc_arena {
    struct mpc_arena *next;
    size_t used, size;
    uint32_t data[];
} mpc_arena;

struct milnor_p_cache {
    const milnor_p_sub *B;
    uint64_t max_bytes;
    _Atomic(mpc_table *) table;         /* readers: no lock */
    pthread_mutex_t lock;               /* writers: inserting, growing, the arena, the counts */
    uint32_t n;                         /* keys in table, <= 3/4 of cap */
    uint64_t bytes, misses;
    mpc_arena *arena;
    _Atomic int full;                   /* the budget is spent: products are computed, not kept */
    _Atomic uint64_t uncached;          /* products computed once full */
};

/* bytes for a table or an arena block, zeroed when zero is set: from MPC_HUGE on aligned to and
 * asked on huge pages (madvise), as every request reads a random slot and a random kept vector
 * of a table and arena of tens of MB, and with 4 KB pages each is also a TLB miss. */
static void *mpc_alloc(size_t bytes, int zero)
{
    if (bytes < MPC_HUGE) return zero ? calloc(1, bytes) : malloc(bytes);
    size_t size = (bytes + MPC_HUGE - 1) & ~(MPC_HUGE - 1);
    void *m = aligned_alloc(MPC_HUGE, size);
    if (!m) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(m, size, MADV_HUGEPAGE);
#endif
    if (zero) memset(m, 0, bytes);
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
        free(t->slot);
        free(t);
    }
    for (mpc_arena *a = pc->arena, *next; a; a = next) {
        next = a->next;
        free(a);
    }
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

static uint32_t key_hash(uint64_t key)       /* splitmix64's finaliser */
{
    key ^= key >> 30;
    key *= 0xBF58476D1CE4E5B9ull;
    key ^= key >> 27;
    key *= 0x94D049BB133111EBull;
    return (uint32_t)(key ^ key >> 31);
}

/* The value of key in t, or NULL (t NULL: none). Lock-free: a slot's v is written before its key
 * is released. */
static const uint32_t *lookup(const mpc_table *t, uint64_t key)
{
    if (!t) return NULL;
    uint32_t mask = t->cap - 1;
    for (uint32_t i = key_hash(key) & mask;; i = (i + 1) & mask) {
        uint64_t k = atomic_load_explicit(&t->slot[i].key, memory_order_acquire);
        if (k == key) return t->slot[i].v;
        if (!k) return NULL;
    }
}

/* Puts key -> v into t where it is absent (writer, under the lock; room checked). */
static void insert(mpc_table *t, uint64_t key, const uint32_t *v)
{
    uint32_t mask = t->cap - 1, i = key_hash(key) & mask;
    while (atomic_load_explicit(&t->slot[i].key, memory_order_relaxed)) i = (i + 1) & mask;
    t->slot[i].v = v;
    atomic_store_explicit(&t->slot[i].key, key, memory_order_release);
}

/* Room for one more key: 0, or -1 (out of memory or past the budget; nothing changed). A larger
 * table is filled, then published; the old one stays readable until the cache is freed. */
static int grow(milnor_p_cache *pc)
{
    mpc_table *old = atomic_load_explicit(&pc->table, memory_order_relaxed);
    if (old && 4 * ((uint64_t)pc->n + 1) <= 3 * (uint64_t)old->cap) return 0;
    uint32_t ncap = old ? 2 * old->cap : 1024;
    uint64_t add = sizeof(mpc_table) + (uint64_t)ncap * sizeof(mpc_slot);
    if (pc->bytes + add > pc->max_bytes) {
        atomic_store_explicit(&pc->full, 1, memory_order_relaxed);
        return -1;
    }
    mpc_table *t = malloc(sizeof *t);
    if (!t || !(t->slot = mpc_alloc((size_t)ncap * sizeof(mpc_slot), 1))) {
        free(t);
        return -1;
    }
    t->cap = ncap;
    t->older = old;
    for (uint32_t i = 0; old && i < old->cap; i++) {
        uint64_t key = atomic_load_explicit(&old->slot[i].key, memory_order_relaxed);
        if (key) insert(t, key, old->slot[i].v);
    }
    atomic_store_explicit(&pc->table, t, memory_order_release);
    pc->bytes += add;
    memacct_add(MEM_MILNOR, (int64_t)add);
    return 0;
}

/* n words from the arena; NULL out of memory or past the budget. */
static uint32_t *arena_take(milnor_p_cache *pc, size_t words)
{
    mpc_arena *a = pc->arena;
    if (!a || a->used + words > a->size) {
        size_t block = a ? (a->size * sizeof(uint32_t) + sizeof *a) * 2 : MPC_ARENA_BYTES;
        if (block > MPC_ARENA_MAX) block = MPC_ARENA_MAX;
        size_t size = (block - sizeof *a) / sizeof(uint32_t);
        if (size < words) size = words;
        uint64_t add = sizeof *a + size * sizeof(uint32_t);
        if (pc->bytes + add > pc->max_bytes) atomic_store_explicit(&pc->full, 1, memory_order_relaxed);
        if (pc->bytes + add > pc->max_bytes || !(a = mpc_alloc(add, 0))) return NULL;
        a->next = pc->arena;
        a->used = 0;
        a->size = size;
        pc->arena = a;
        pc->bytes += add;
        memacct_add(MEM_MILNOR, (int64_t)add);
    }
    uint32_t *w = a->data + a->used;
    a->used += words;
    return w;
}

/* out[map[j]] += c·v_j (map NULL: out[j]; map[j] == MILNOR_P_CACHE_DROP: not kept). */
static inline void add_at(const milnor_p_basis *A, uint8_t *out, const uint32_t *map, uint32_t j, uint32_t v)
{
    if (map && (j = map[j]) == MILNOR_P_CACHE_DROP) return;
    uint32_t x = out[j] + v;
    out[j] = (uint8_t)(((unsigned __int128)(A->pdiv * x) * A->p) >> 64);
}

static void apply(const milnor_p_basis *A, const uint32_t *v, uint32_t c, uint8_t *out, const uint32_t *map)
{
    for (uint32_t k = 1; k <= v[0]; k++) add_at(A, out, map, v[k] >> 8, c * (v[k] & 0xff));
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
    uint64_t key = pair_key(B->A, X, Y);
    const uint32_t *v = key ? lookup(atomic_load_explicit(&pc->table, memory_order_acquire), key) : NULL;
    if (v) {
        apply(B->A, v, c, out, map);
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
    uint32_t n = 0;
    for (uint32_t k = 0; k < l.n; k++) n += (l.acc[l.idx[k]] & 0xff) != 0;
    if (!l.outside) {
        pthread_mutex_lock(&pc->lock);
        uint32_t *w;
        mpc_table *t = atomic_load_explicit(&pc->table, memory_order_relaxed);
        pc->misses++;
        if (key && dim < 1u << 24 && !lookup(t, key) && grow(pc) == 0 && (w = arena_take(pc, (size_t)n + 1))) {
            w[0] = 0;           /* an index must fit 24 bits to be packed */
            for (uint32_t k = 0; k < l.n; k++)
                if (l.acc[l.idx[k]] & 0xff) w[++w[0]] = l.idx[k] << 8 | (l.acc[l.idx[k]] & 0xff);
            insert(atomic_load_explicit(&pc->table, memory_order_relaxed), key, w);
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
    const uint32_t kx = elt_key(A, X);      /* X's half of every key */
    for (size_t k0 = 0; k0 < n; k0 += MPC_AHEAD) {
        const size_t m = n - k0 < MPC_AHEAD ? n - k0 : MPC_AHEAD;
        const mpc_table *t = atomic_load_explicit(&pc->table, memory_order_acquire);
        uint64_t key[MPC_AHEAD];
        const uint32_t *v[MPC_AHEAD];
        for (size_t k = 0; k < m; k++) {
            key[k] = halves_key(kx, elt_key(A, terms[k0 + k].y));
            if (t && key[k]) __builtin_prefetch(&t->slot[key_hash(key[k]) & (t->cap - 1)]);
        }
        for (size_t k = 0; k < m; k++) {
            v[k] = key[k] && terms[k0 + k].c % A->p ? lookup(t, key[k]) : NULL;
            if (v[k]) __builtin_prefetch(v[k]);
        }
        for (size_t k = 0; k < m; k++) {
            const milnor_p_cache_term *tm = &terms[k0 + k];
            uint32_t c = tm->c % A->p;
            if (!c) continue;
            if (v[k]) {
                apply(A, v[k], c, map ? out : out + tm->col, map ? map + tm->col : NULL);
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
