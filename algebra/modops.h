/* modops.h — operations on finite modules over the mod 2 Steenrod algebra A: tensor products
 * and module maps (algebra/fdmodule.h holds the modules themselves).
 *
 * Tensor product. M ⊗ N has the basis of pairs x ⊗ y, named "x*y" (sseq's names), in degree
 * |x| + |y|, and A acts through its coproduct: Sq(R) is primitive-like, ψ Sq(R) = Σ Sq(R') ⊗
 * Sq(R'') over R' + R'' = R (entrywise, every coefficient 1 at p = 2), so
 *     Sq(R)(x ⊗ y) = Σ_{R' + R'' = R} Sq(R') x ⊗ Sq(R'') y.
 * For the generators Sq(2^k) = Sq((2^k)) this is the Cartan formula Σ_{i+j=2^k} Sq^i x ⊗ Sq^j y.
 * modops_tensor writes M ⊗ N as a module file (the Sq(2^k) actions by the Cartan formula) and
 * parses it with fdm_parse, which solves every other Sq(R) from those and checks the module
 * axioms; so the module kept beside a resolution (DIR/module.json) is an ordinary module file.
 * tests/t-modops.c checks the full table against the coproduct formula for every Sq(R).
 *
 * Dual. modops_dual below: Hom_A(F, N) = Hom_A(F ⊗ DN, F2) for a finite N, which is how the tests
 * check Ext(M, N) (stages/products/extmn.h) against the resolution of M ⊗ DN.
 *
 * Module maps. f : M -> N of degree δ (|f(x)| = |x| + δ) is F2-linear on the bases, given by a
 * JSON object {"degree": δ, "images": {"x": "y + z", ...}} over the classes of M and N as
 * their module files name them (a class not listed maps to 0; "0" is allowed). It is a map
 * of A-modules iff f(Sq(R) x) = Sq(R) f(x) for every Milnor basis element Sq(R) and every basis
 * class x (checking the Sq(2^k), which generate A, would do; every Sq(R) is checked since the
 * modules are small). Layout: per degree u of M, an f2mat of dim M_u rows over N_{u+δ}.
 */
#ifndef EXTFLOW_MODOPS_H
#define EXTFLOW_MODOPS_H
#include <stddef.h>
#include <stdint.h>
#include "algebra/f2mat.h"
#include "algebra/fdmodule.h"

/* M ⊗ N into *out (a finite module over A at p = 2; both factors must be finite modules over A
 * at p = 2: no profile, presentation, projective space or cofiber). 0, or -1 with a one-line
 * reason in err (out is then empty). */
int modops_tensor(const fd_module *M, const fd_module *N, fd_module *out, char *err, size_t errsize);

/* The dual DN of a finite module N over A: (DN)_{-k} = Hom(N_k, F2), each class x of N giving the
 * dual class of degree -|x| under the same name, and (Sq(R)·f)(x) = f(χ(Sq(R))·x) with χ the
 * antipode of A. Only the Sq(2^k) are written: χ(Sq^n) = Σ_{i=1..n} Sq^i χ(Sq^{n-i}) (from
 * Σ_{i+j=n} Sq^i χ(Sq^j) = 0 for n > 0), as maps of N degree by degree, and the file is read
 * by fdm_parse like a tensor product's. 0, or -1 with a reason in err (out empty). */
int modops_dual(const fd_module *N, fd_module *out, char *err, size_t errsize);

/* Is m a finite module over A at p = 2 (no profile, presentation, RP_n^inf or cofiber)? */
int modops_finite_over_A(const fd_module *m);

/* The module file text of F2 (one class x0 in degree 0), the module of S_2's resolution. */
extern const char modops_sphere_text[];

typedef struct module_map {
    deg_t degree;               /* δ */
    deg_t min_deg, max_deg;     /* M's degrees */
    f2mat *rows;                /* rows[u - min_deg]: dim M_u x dim N_{u+δ} */
} module_map;

/* Parses the map file buf[0..len) for f : M -> N: unknown keys, classes or malformed sums are
 * refused, and an image of the wrong degree. 0; -1 with a one-line reason in err (*f empty);
 * -2 out of memory. */
int modops_map_parse(const char *buf, size_t len, const fd_module *M, const fd_module *N, module_map *f, char *err,
                     size_t errsize);
/* Is f A-linear? 0; or -1 with the first failure in err: "Sq(R) x: f(Sq(R) x) = ..., Sq(R) f(x) = ...". */
int modops_map_check(const module_map *f, const fd_module *M, const fd_module *N, char *err, size_t errsize);
/* out (dim N_{u+δ} bits, zeroed by the caller) ^= f(v), v a packed vector over M_u. */
void modops_map_apply(const module_map *f, const fd_module *M, deg_t u, const uint64_t *v, uint64_t *out);
void modops_map_clear(module_map *f);

#endif
