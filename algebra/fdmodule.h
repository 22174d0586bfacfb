/* fdmodule.h — finite dimensional modules over the mod 2 Steenrod algebra A.
 *
 * Maths. M is a graded F2-vector space with a basis in degrees min_deg..max_deg (all >= 0 in
 * this version) and an action of A. A module file gives the action of the algebra generators
 * Sq(2^k) on the basis; the action of every Milnor basis element Sq(R) follows, degree by
 * degree, by writing Sq(R) as a sum of products Sq(2^k)·Sq(S) with |S| < |R| (linear algebra
 * over the products in degree |R|). fdm_parse then checks that the result is a module:
 * Sq(R)(Sq(S) x) = (Sq(R)Sq(S)) x for every pair of Milnor basis elements and every basis
 * element x (the products by milnor_mul_each); a file that breaks an Adem relation fails here.
 *
 * Layout. Basis of M_t: the classes of degree t ordered by name (strcmp), so the file's key
 * order does not matter. The action table holds Sq(R)·x, for x in M_u and R of degree d with
 * u + d <= max_deg, as packed vectors over M_{u+d} (fdm_act).
 *
 * Format: JSON as written by the sseq project (docs/modules.md): p, type "finite dimensional
 * module", gens {name: degree}, actions ["Sq2 x0 = x2 + y2", ...]; "profile" is refused. */
#ifndef EXTFLOW_FDMODULE_H
#define EXTFLOW_FDMODULE_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/milnor.h"

/* Largest top degree - bottom degree accepted (the module check grows with it: ~10 s at 128). */
#define FDM_MAX_SPAN 128

typedef struct fd_module {
    deg_t min_deg, max_deg;     /* degrees of the basis (max_deg < min_deg: M = 0) */
    uint32_t *dim;              /* dim[t - min_deg] */
    char ***names;              /* names[t - min_deg][i] */
    milnor_basis A;             /* through max_deg - min_deg */
    uint64_t **act;             /* act[(u - min_deg) * (span + 1) + d]: dim M_u * A.dim[d] rows of
                                 * words(dim M_{u+d}) words; NULL past max_deg */
    char *canonical;            /* the canonical text of M (hashed into the module id) */
    char *source;               /* the module file as parsed (resolve keeps it in DIR/module.json) */
    size_t source_len;
} fd_module;

/* Parses and checks a module file held in buf[0..len). 0, or -1 with a one-line reason in err
 * (naming the key or class at fault; no file name). */
int fdm_parse(const char *buf, size_t len, fd_module *m, char *err, size_t errsize);
void fdm_clear(fd_module *m);
/* dim M_t (0 outside the module's degrees). */
static inline uint32_t fdm_dim(const fd_module *m, deg_t t)
{ return t >= m->min_deg && t <= m->max_deg ? m->dim[t - m->min_deg] : 0; }
/* Sq(R)·x for x = basis element i of M_u and R = element r of the Milnor basis in degree d:
 * a packed vector over M_{u+d}; NULL when u + d lies past the top of M (the product is 0). */
const uint64_t *fdm_act(const fd_module *m, deg_t u, uint32_t i, deg_t d, uint32_t r);
/* Is M the sphere F2 (one class in degree 0)? */
int fdm_is_sphere(const fd_module *m);

#endif
