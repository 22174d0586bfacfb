/* extmn.h — Ext_A(M, N) for a finite module N, from a finished resolution F_• of M.
 *
 * Maths. Ext_A^{s,t}(M, N) is the cohomology of the cochain complex Hom_A(F_s, Σ^t N): an
 * A-map φ : F_s -> Σ^t N is fixed by the images of the generators, φ(g) ∈ N_{|g| - t}, so
 *     C^{s,t} = ⊕_{g generator of F_s} N_{|g| - t},
 * and δ : C^{s,t} -> C^{s+1,t}, (δφ)(z) = φ(d z) = Σ Sq(R)·φ(g') over the terms Sq(R)·g' of
 * d z (N's action). dim Ext^{s,t} = dim C^{s,t} − rank δ^{s,t} − rank δ^{s−1,t}. For N = F2
 * every δ vanishes (d z has no unit term in a minimal resolution) and this is M's own Ext.
 * Degrees are the modules' own (M's shift undone); n = t − s as in ext.csv.
 *
 * Region. Row s needs F_{s+1} (so s < max_s) and the generators of F_{s−1}, F_s, F_{s+1} of
 * degree up to t + top(N): a row of stems n ≤ L − top(N) (L the stem M's row is resolved
 * through; one less where row s − 1 stops a stem earlier, as in a rectangle). No product of
 * Milnor elements is formed: the action table of N gives every Sq(R)·e.
 *
 * Layout. Per (s, t): the basis of C^{s,t} lists the generators of F_s by degree and index and,
 * for each, N_{|g| − t} in its basis order; δ is an f2mat over those bases, row-reduced once.
 */
#ifndef EXTFLOW_EXTMN_H
#define EXTFLOW_EXTMN_H
#include <stdio.h>
#include "algebra/fdmodule.h"
#include "stages/resolve/resolution.h"

/* The table of Ext^{s,t}(M, N), res a finished resolution of M over A at p = 2 and N a finite
 * module over A: the header "s,n,dim", then a row s,n,dim for every non-zero group of the
 * region above, by s then n. 0; -1 out of memory or a write error (err says which). */
int extmn_write_csv(FILE *out, const resolution *res, const fd_module *N, char *err, size_t errsize);

#endif
