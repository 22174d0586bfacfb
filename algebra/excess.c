/* excess.c — the excess order of the Milnor basis (see excess.h). */
#include "algebra/excess.h"
#include <stdlib.h>

uint64_t excess_bytes(deg_t max_degree, const uint32_t *dim)
{
    uint64_t total = 0;
    for (deg_t d = 0; d <= max_degree; d++) total += dim[d];
    uint64_t tri = (uint64_t)(max_degree + 1) * (uint64_t)(max_degree + 2) / 2;
    return ((uint64_t)max_degree + 2) * 4 + 2 * total * 4 + ((uint64_t)max_degree + 1) * 8 + tri * 4;
}

/* The excess of element j of degree d of the basis (a milnor_basis at p = 2, a milnor_p_basis at
 * odd p). */
typedef uint32_t (*excess_fn)(const void *A, deg_t d, uint32_t j);
static uint32_t excess_2(const void *A, deg_t d, uint32_t j)
{ return milnor_excess_of(&((const milnor_basis *)A)->elts[d][j]); }
static uint32_t excess_odd(const void *A, deg_t d, uint32_t j)
{ return milnor_p_excess_of(&((const milnor_p_basis *)A)->elts[d][j]); }

/* The tables of a basis through degree D with dims dim, excess by ex. */
static int build(milnor_excess *X, const void *A, deg_t D, const uint32_t *dim, excess_fn ex)
{
    uint64_t total = 0, tri = (uint64_t)(D + 1) * (uint64_t)(D + 2) / 2;
    for (deg_t d = 0; d <= D; d++) total += dim[d];
    X->max_degree = D;
    X->dim = dim;
    X->bytes = excess_bytes(D, dim);
    X->first = malloc(((size_t)D + 2) * sizeof *X->first);
    X->cfirst = malloc(((size_t)D + 1) * sizeof *X->cfirst);
    X->order = malloc((size_t)(total ? total : 1) * sizeof *X->order);
    X->rank = malloc((size_t)(total ? total : 1) * sizeof *X->rank);
    X->count = calloc((size_t)tri, sizeof *X->count);
    uint32_t *start = malloc(((size_t)D + 1) * sizeof *start);
    if (!X->first || !X->cfirst || !X->order || !X->rank || !X->count || !start) {
        free(start);
        excess_clear(X);
        return -1;
    }
    uint32_t off = 0;
    uint64_t coff = 0;
    for (deg_t d = 0; d <= D; d++) {
        uint32_t *cnt = X->count + coff, n = dim[d];
        X->first[d] = off;
        X->cfirst[d] = coff;
        /* a counting sort by excess (0 .. d), stable in the index: the elements of excess e
         * take the positions cnt[e-1] .. cnt[e] - 1 in index order */
        for (uint32_t j = 0; j < n; j++) cnt[ex(A, d, j)]++;     /* ex <= d (excess.h) */
        for (deg_t e = 1; e <= d; e++) cnt[e] += cnt[e - 1];
        for (deg_t e = 0; e <= d; e++) start[e] = e ? cnt[e - 1] : 0;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t k = start[ex(A, d, j)]++;
            X->order[off + k] = j;
            X->rank[off + j] = k;
        }
        off += n;
        coff += (uint64_t)d + 1;
    }
    X->first[D + 1] = off;
    free(start);
    return 0;
}

int excess_init(milnor_excess *X, const milnor_basis *A) { return build(X, A, A->max_degree, A->dim, excess_2); }
int excess_init_p(milnor_excess *X, const milnor_p_basis *A) { return build(X, A, A->max_degree, A->dim, excess_odd); }

void excess_clear(milnor_excess *X)
{
    free(X->first);
    free(X->cfirst);
    free(X->order);
    free(X->rank);
    free(X->count);
    X->first = X->order = X->rank = X->count = NULL;
    X->cfirst = NULL;
    X->bytes = 0;
}
