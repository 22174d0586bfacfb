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
 * Layout. One open-addressing table (linear probing, at most 3/4 full) of 16-byte slots: a key
 * packing both elements as (degree + 1, index in that degree), 12 + 20 bits each, and a pointer
 * to the value, the product's non-zero entries, one uint32 each (index << 8 | coefficient) after
 * their count, in 64 KB arena blocks freed with the cache. Readers take no lock: a slot's value
 * is written before its key is published (release/acquire), and a full table is replaced by a
 * twice larger copy while the old one stays readable until the cache is freed; writers insert
 * under one mutex. Values never change once inserted. The whole cache (tables, the old ones
 * included, and values) stays under the byte budget given at creation: past it, products are
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
#define MILNOR_P_CACHE_DROP UINT32_MAX
int milnor_p_cache_mul_into_map(milnor_p_cache *pc, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c,
                                uint8_t *out, const uint32_t *map);
/* Products kept, products computed (requests not answered from the cache) and bytes held. */
void milnor_p_cache_stats(const milnor_p_cache *pc, uint64_t *kept, uint64_t *misses, uint64_t *bytes);

#endif
