/* delta.c — the maps Delta_i a class's squares need, and the result they fill (steenrod.h).
 *
 * Maths. Sq^{s-i} x, x in Ext^{s,t}, is read off Delta_i : F_{2s-i} -> (E (x) E)_{2s} in degree
 * 2t, and Delta_i on F_k through degree T needs Delta_{i-1} there and Delta_i on F_{k-1}: so
 * Sq^{s-i} x is in range when every bidegree of row <= 2s - i, t <= 2t and stem <= 2t - 2s + i
 * is resolved, and E's rows <= s through degree t are (yoneda_in_range).
 *
 * Layout. steenrod_result: per k = 0..s, known[k] (Sq^k x in range), dim[k] generators at
 * (s + k, 2t) and val[k] a byte per generator (0 or 1), allocated here and filled by squares.c;
 * coords is a copy of the class, edim E's total dimensions.
 */
#include "stages/steenrod/steenrod.h"
#include <stdlib.h>
#include <string.h>
#include "stages/yoneda/yoneda.h"

void steenrod_result_clear(steenrod_result *r)
{
    if (r->val)
        for (int k = 0; k <= r->s; k++) free(r->val[k]);
    free(r->val);
    free(r->dim);
    free(r->known);
    free(r->edim);
    free(r->coords);
    memset(r, 0, sizeof *r);
}

/* Is every bidegree with row <= kmax, t <= tmax and stem <= nmax resolved? */
static int region_resolved(const resolution *res, int kmax, deg_t tmax, deg_t nmax)
{
    if (kmax > res->max_s) return 0;
    for (int k = 0; k <= kmax; k++)
        for (deg_t T = k; T <= tmax && T - k <= nmax; T++)
            if (!res_is_done(res, k, T)) return 0;
    return 1;
}

/* Which of Sq^0..Sq^s of r's class are in range: Sq^{s-i} needs Delta_i on rows <= 2s - i
 * through degree 2t and stem 2t - 2s + i, and E (rows <= s through degree t). */
int steenrod_result_init(steenrod_result *r, const resolution *res, int n, int s, const uint8_t *coords, uint32_t len)
{
    memset(r, 0, sizeof *r);
    deg_t t = n + s;
    r->n = n;
    r->s = s;
    r->len = len;
    r->coords = malloc(len + 1);
    r->edim = calloc((size_t)s + 1, sizeof *r->edim);
    r->known = calloc((size_t)s + 1, 1);
    r->dim = calloc((size_t)s + 1, sizeof *r->dim);
    r->val = calloc((size_t)s + 1, sizeof *r->val);
    if (!r->coords || !r->edim || !r->known || !r->dim || !r->val) return -1;
    memcpy(r->coords, coords, len);
    int e_ok = yoneda_in_range(res, n, s);
    for (int i = 0; i <= s && i < 64; i++) {
        if (!e_ok || !region_resolved(res, 2 * s - i, 2 * t, 2 * t - 2 * s + i)) continue;
        r->known[s - i] = 1;
        r->dim[s - i] = res_ngens(res, 2 * s - i, 2 * t);
        if (!(r->val[s - i] = calloc((size_t)r->dim[s - i] + 1, 1))) return -1;
    }
    return 0;
}

