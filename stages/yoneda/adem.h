/* adem.h — sseq's admissible ("@adem") basis at p = 2 and the resolution of the sphere sseq
 * computes over it: what `yoneda --basis adem` needs to give sseq's S_2@adem outputs.
 *
 * Maths. The admissible monomials Sq^{a_1} ... Sq^{a_k} (a_i >= 2 a_{i+1}) are a basis of A, as
 * the Milnor elements are (algebra/admissible.h). A free module's basis in degree T is then,
 * block by block over its generators g (freemod.h's order), the admissible monomials of degree
 * T - |g|. Coordinates over one basis or the other describe the same elements; but the
 * standard algorithm and the Yoneda reduction choose by pivots (the first column of a reduced
 * row), so they choose differently in the two bases. In sseq's order a degree n lists Sq^n
 * first, then, for each last exponent l from n/3 down to 1, the monomials of degree n - l whose
 * last exponent is at least 2l, in their own order, each followed by Sq^l. (extflow's own
 * admissible order, admissible.h's, is lexicographic; sseq's is not.) A monomial is rated, for
 * the Yoneda reduction's preference, by the sum of the popcounts of its exponents.
 *
 * adem_resolve is the standard step (stages/resolve/standard.h, docs/algorithms.md §4.2) on S_2
 * with one change of basis: at (s, t) the step's matrix D of d_s, built over the Milnor bases,
 * is rewritten over the admissible bases of F_s and F_{s-1} (a row per admissible monomial
 * times a generator: the sum of D's rows at its Milnor expansion, the columns changed block by
 * block) before the step reduces it. The step's reduction and finish are then sseq's in these
 * coordinates: the RREF of [D | 0 | I], its kernel kept for (s + 1, t) (also at the stem's edge,
 * where (s, t) is outside the region but (s + 1, t) is not), and one new generator for each row
 * of the kernel at (s - 1, t) (in RREF) whose pivot is no pivot of D's image, its image that
 * row. The images the finish publishes are changed back to Milnor coordinates at once, so the
 * result is an ordinary resolution (resolution.h) that everything else, the next steps' plans
 * included, reads as usual; only its choice of generators is sseq's @adem one.
 *
 * Layout. Per degree d <= max: to_milnor[d] (row i: the Milnor expansion of sseq's i-th
 * monomial), from_milnor[d] (row j: Milnor element j over sseq's monomials), rating[d][i].
 */
#ifndef EXTFLOW_ADEM_H
#define EXTFLOW_ADEM_H
#include <stdint.h>
#include "algebra/admissible.h"
#include "stages/resolve/resolution.h"

typedef struct adem_basis {
    deg_t max;
    f2mat *to_milnor;           /* [d] */
    f2mat *from_milnor;         /* [d] */
    uint32_t **rating;          /* [d][i] */
} adem_basis;

/* The tables through degree max. 0, or -1 out of memory (adem_basis_clear either way). */
int adem_basis_init(adem_basis *B, deg_t max);
void adem_basis_clear(adem_basis *B);
/* out (over F in degree T) ^= v (over F in degree T) with each generator's block converted:
 * Milnor -> admissible (to_milnor = 0) or admissible -> Milnor (1). T <= B->max. */
void adem_convert(const adem_basis *B, const freemod *F, deg_t T, const uint64_t *v, uint64_t *out, int to_milnor);
/* out (over F in degree T) ^= the Milnor expansion of admissible basis element p of F(T). */
void adem_expand(const adem_basis *B, const freemod *F, deg_t T, uint64_t p, uint64_t *out);

/* res (res_init'ed for S_2 with REGION_STEM stem, max_s, no stage files, nothing run) resolved
 * serially by the standard algorithm over sseq's admissible basis (B through degree
 * stem + max_s). 0; -1 out of memory; -2 internal error (err). */
int adem_resolve(resolution *res, const adem_basis *B, char *err, size_t errlen);

/* The two together: the basis through stem + max_s + 1 and S_2 resolved over it through stem
 * (REGION_STEM) and max_s; its Ext dimensions are compared with ref's wherever ref is resolved
 * (they cannot depend on the basis). 0; -1 out of memory; -2 internal error, or a dimension
 * that differs (err says where). adem_resolution_clear either way (on a zeroed struct too). */
typedef struct adem_resolution {
    adem_basis B;
    resolution res;
    int have_res;
} adem_resolution;
int adem_resolution_init(adem_resolution *a, int stem, int max_s, const resolution *ref, char *err, size_t errlen);
void adem_resolution_clear(adem_resolution *a);

#endif
