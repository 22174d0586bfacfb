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

int excess_init(milnor_excess *X, const milnor_basis *A)
{
    deg_t D = A->max_degree;
    uint64_t total = 0, tri = (uint64_t)(D + 1) * (uint64_t)(D + 2) / 2;
    for (deg_t d = 0; d <= D; d++) total += A->dim[d];
    X->max_degree = D;
    X->dim = A->dim;
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
        uint32_t *cnt = X->count + coff, n = A->dim[d];
        X->first[d] = off;
        X->cfirst[d] = coff;
        /* a counting sort by excess (0 .. d), stable in the index: the elements of excess e
         * take the positions cnt[e-1] .. cnt[e] - 1 in index order */
        for (uint32_t j = 0; j < n; j++) cnt[milnor_excess_of(&A->elts[d][j])]++;
        for (deg_t e = 1; e <= d; e++) cnt[e] += cnt[e - 1];
        for (deg_t e = 0; e <= d; e++) start[e] = e ? cnt[e - 1] : 0;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t k = start[milnor_excess_of(&A->elts[d][j])]++;
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

void excess_clear(milnor_excess *X)
{
    free(X->first);
    free(X->cfirst);
    free(X->order);
    free(X->rank);
    free(X->count);
    X->first = X->order = X->rank = X->count = NULL;
    X->cfirst = NULL;
}
