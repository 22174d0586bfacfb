/* milnor_p_cache.h — odd-p Milnor products X·Y kept for the next time they are asked for
 * (Nassau's step at odd p, stages/resolve/nassau_p.c; docs/algorithms.md §11.1, "Products kept").
 *
 * Maths. A row x·d(h) of a differential is the sum of the products x·y over the terms c·y of
 * d(h). The same pair (x, y) of basis elements comes back for every generator whose image has y
 * as a term and in every step that multiplies x there: resolving S_3 through stem 120, s <= 40,
 * Nassau's steps ask for 264,064 products of 38,383 distinct pairs. A product is a fixed vector
 * over B's basis in degree |x| + |y|, so each pair is computed once (milnor_p_sub_mul_into) and
 * the next request adds the kept vector: out[j] += c·(X·Y)_j.
 *
 * Layout. One open-addressing table (linear probing, at most 3/4 full) of 8-byte slots, each one
 * atomic word: 0 empty, else the high half of h = H(key) << 32 | the value's offset in the arena
 * (in 32-bit words, never 0). The key packs both elements as (degree + 1, index in that degree),
 * 12 + 20 bits each; H (splitmix64's finaliser) is a bijection of 64-bit words, so h's low half,
 * kept as the value's first word, and the slot's high half name the key exactly: a slot whose
 * high half matches is the pair's when the value's first word equals h's low half, and the
 * probe starts at h's low bits. The value after that word: n << 1 | wide, then the product's n
 * non-zero entries, 16 bits each (index << b | coefficient, b the bits of p - 1: 2 at p = 3, 3 at
 * p = 5 and 7) when every index is below 2^(16 - b), else 32 bits each (index << 8 |
 * coefficient). The arena is one reservation of address space as large as the budget (at most
 * 16 GB; only touched pages are memory), so an offset of 32 bits reaches it all. When the table
 * fills, a twice larger one replaces it and the old one's pages are given back (MADV_DONTNEED):
 * a reader still probing it reads zeros, a miss, and computes the product; the old mapping itself
 * stays until the cache is freed. Tables of 2 MB and more and the arena are asked on huge pages
 * (madvise), since every request reads a random slot and a random vector of tens of MB and with
 * 4 KB pages each is a TLB miss too.
 * A product not kept yet is computed once into a list of its terms (each thread's scratch, cleared
 * entry by entry), not into a zeroed vector of its whole degree read back in full.
 * A row's terms are asked together (milnor_p_cache_mul_terms): their slots and vectors are
 * prefetched, so that the misses to memory overlap. Readers take no lock: a value is written
 * before its slot is published (release/acquire), and writers insert under one mutex. Values
 * never change once inserted. The whole cache (the current table and the values' words) stays
 * under the byte budget given at creation: past it, products are
 * computed and not kept, and a request the table cannot answer costs the product alone, as
 * without a cache (no scratch vector, no lock).
 */
#ifndef EXTFLOW_MILNOR_P_CACHE_H
#define EXTFLOW_MILNOR_P_CACHE_H
#include <stdint.h>

#include "algebra/milnor_p.h"

typedef struct milnor_p_cache milnor_p_cache;

/* A cache for products over B, at most max_bytes (tables and values). NULL out of memory. */
milnor_p_cache *milnor_p_cache_new(const milnor_p_sub *B, uint64_t max_bytes);
void milnor_p_cache_free(milnor_p_cache *pc);
/* out[j] += c·(X·Y)_j over B's basis of degree |X| + |Y|, as milnor_p_sub_mul_into (and its
 * -1 when a term lies outside B); thread-safe. */
int milnor_p_cache_mul_into(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                            uint8_t *out);
/* The same with out's entries moved: (X·Y)_j goes to out[map[j]], or nowhere where map[j] is
 * MILNOR_P_CACHE_DROP (a block of a row's columns). -1 as above, -2 out of memory. */
#define MILNOR_P_CACHE_DROP MILNOR_P_MAP_DROP
int milnor_p_cache_mul_into_map(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                                uint8_t *out, const uint32_t *map);
/* A row's sum out += sum_k c_k·(X·Y_k) at once, term k's product entry j landing at
 * out[col_k + j] (map NULL) or at out[map[col_k + j]] (MILNOR_P_CACHE_DROP: nowhere): what
 * milnor_p_cache_mul_into (_map) does term by term, the same bytes, with the table's slots and
 * kept vectors of a run of terms fetched from memory before the first is read (each request is
 * a miss to memory once the table outgrows the caches). 0, -1 a term outside B, -2 out of
 * memory. */
typedef struct milnor_p_cache_term {
    uint64_t col;
    const milnor_p_elt *y;
    uint32_t c;
} milnor_p_cache_term;
int milnor_p_cache_mul_terms(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_cache_term *terms, size_t n,
                             uint8_t *out, const uint32_t *map);
/* A kept value's packing (exposed for its tests): n entries (index idx[k], coefficient coef[k],
 * 0 < coef < p, every index <= max_index < 2^24) into w[0] = n << 1 | wide and then, when
 * max_index < 2^(16 - b) with b the bits of p - 1, 16-bit entries index << b | coefficient two to a
 * word (an odd count padded with 0), else 32-bit ones index << 8 | coefficient.
 * milnor_p_cache_packed_words gives the words it writes. */
uint32_t milnor_p_cache_packed_words(uint32_t p, uint32_t n, uint32_t max_index);
void milnor_p_cache_pack(uint32_t p, uint32_t n, const uint32_t *idx, const uint8_t *coef, uint32_t max_index,
                         uint32_t *w);
/* The entries of a packed value added to out: out[idx_k] += c·coef_k mod p (A's p). */
void milnor_p_cache_unpack_into(const milnor_p_basis *A, const uint32_t *w, uint32_t c, uint8_t *out);
/* Products kept, products computed (requests not answered from the cache) and bytes held. */
void milnor_p_cache_stats(const milnor_p_cache *pc, uint64_t *kept, uint64_t *misses, uint64_t *bytes);

#endif
