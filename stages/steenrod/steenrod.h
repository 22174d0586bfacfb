/* steenrod.h — algebraic Steenrod operations Sq^i on Ext_A(F2, F2), from a finished minimal
 * resolution of the sphere (docs/products.md, "Steenrod operations").
 *
 * Maths. For x in Ext^{s,t} (a vector over the generators of F_s in degree t) the operations
 * are Sq^k x in Ext^{s+k, 2t}, k = 0..s, with Sq^s x = x^2. Two constructions:
 *
 *  - steenrod_sq0: Sq^0 on every class at once. The Verschiebung V : A -> A, V(Sq(R)) = Sq(R/2)
 *    when every r_i is even and 0 otherwise, is a map of Hopf algebras that halves degrees;
 *    Sq^0 is the map it induces on Ext. We lift the identity of F2 to a V-semilinear chain map
 *    phi : F_s -> F_s halving internal degrees (phi(a z) = V(a) phi(z), phi(iota) = iota):
 *    on a generator z of degree T, phi(z) = 0 for T odd, else a preimage under d of
 *    phi(d z) = sum V(Sq(S)) phi(g) over the terms Sq(S) g of d z. Then <Sq^0 x, z> is the
 *    coefficient of x's generators' units in phi(z).
 *
 *  - steenrod_class: every Sq^k x of one class, by cup-i products on E, the Yoneda
 *    representative of x (stages/yoneda/yoneda.h: a finite exact quotient of F with H(E) = F2
 *    and x factoring through F_s -> E_s = Sigma^t F2; its dimensions are sseq's).
 *    E (x) E, with the diagonal action Sq(R)(e (x) e') = sum_{R'+R''=R} Sq(R')e (x) Sq(R'')e',
 *    is exact in positive degrees too; A-linear maps Delta_i : F_k -> (E (x) E)_{k+i} are lifted
 *    on generators, Delta_0(iota) = e0 (x) e0 and
 *        d Delta_i(z) = Delta_i(d z) + Delta_{i-1}(z) + tau Delta_{i-1}(z)   (tau: the swap),
 *    each through a quasi-inverse of d on E (x) E in that bidegree. Sq^{s-i} x on a generator z
 *    of F_{2s-i} in degree 2t is the coefficient of the single class of E_s (x) E_s in
 *    Delta_i(z).
 *
 * Layout. Results are vectors over the generators of the target bidegree, one byte per
 * coordinate (0 or 1). Both run as chains (stages/chain.h). Sq^0: one per bidegree. Sq^k: per
 * class, a block of chains at (m, T), m = 0..2s, T = 0..2t (the classes' blocks side by side
 * along t in one chain set, so classes run side by side too): (0, 0) builds E and E (x) E (the
 * reduction of E is serial), (m, T) computes the quasi-inverse of d on (E (x) E)_m in degree T
 * and every Delta_j(k, T) with j + k = m; it waits for (m - 1, T) and (m, T - 1). Nothing is
 * kept between runs: a run stopped at its time limit gives no square.
 *
 * Files: sq0.c (Sq^0), tensor.h/tensor.c (E (x) E), delta.c (which Delta_i a class needs, the
 * result), squares.c (Sq^k as chains, the writers).
 */
#ifndef EXTFLOW_STEENROD_H
#define EXTFLOW_STEENROD_H
#include <stdint.h>
#include <stdio.h>
#include "algebra/latch.h"
#include "stages/chain.h"
#include "stages/resolve/resolution.h"

/* Sq^0 on a resolution of S_2: phi at (s, T) for every even T with (s, T) and (s, T / 2)
 * resolved. */
typedef struct steenrod_sq0 {
    const resolution *res;
    f2mat *phi;                 /* per cell res_cell(s, T): rows = generators at (s, T), cols =
                                 * freemod_dim(F_s, T/2, T/2 + 1); cols 0 where not computed */
    uint8_t *have;              /* per cell: phi computed there */
    fail_latch fail;            /* the first failure */
} steenrod_sq0;

/* phi with runner (chain_serial, or runtime/rt_chain.h's StarPU runner): a chain of kind
 * sq0_step_kind (family CHAIN_LIFT) per resolved (s, T), after (s-1, T-1) and (s, T-1) (phi at
 * (s, T) reads phi on row s-1 below degree T), whose plan solves there (no rows to multiply).
 * 0; 1 stopped at the runner's time limit (phi only in part: steenrod_sq0_known says where); -1
 * failed (q->fail.msg: out of memory, or an internal error naming the bidegree). q must be
 * cleared after either. */
extern const chain_kind sq0_step_kind;
int steenrod_sq0_compute(const resolution *res, steenrod_sq0 *q, const chain_runner *runner);
void steenrod_sq0_clear(steenrod_sq0 *q);
/* Is Sq^0 of the classes at (n, s) known (both (s, n+s) and (s, 2(n+s)) resolved)? */
int steenrod_sq0_known(const steenrod_sq0 *q, int n, int s);
/* Sq^0 x_(n,s,i) into out[0..ngens(s, 2t)) (t = n + s). */
void steenrod_sq0_of(const steenrod_sq0 *q, int n, int s, uint32_t i, uint8_t *out);
/* sseq's sq0 output (no command line): "Sq^0 x_(n, s, i) = [..]" for every class with
 * steenrod_sq0_known, by stem then s. */
int steenrod_sq0_write_sseq(FILE *f, const steenrod_sq0 *q);
/* sq0.csv: "n,s,i,k" rows, one per coefficient 1 of x_(2n+s, s, k) in Sq^0 x_(n,s,i). */
#define STEENROD_SQ0_CSV_HEADER "n,s,i,k"
int steenrod_sq0_write_csv(FILE *f, const steenrod_sq0 *q);

/* Every Sq^k of one class x (s >= 0, t = n + s, coords over the generators at (s, t)). */
struct adem_basis;
typedef struct steenrod_result {
    int n, s;
    /* NULL (steenrod_result_init's): E reduced over F's Milnor basis; else over sseq's
     * admissible basis (stages/yoneda/adem.h; the resolution then adem_resolve's), set by the
     * caller before steenrod_compute: only E's dimensions change, not the squares */
    const struct adem_basis *adem;
    uint32_t len;
    uint8_t *coords;            /* the class (len bytes, copied) */
    uint64_t *edim;             /* total dimension of E_k, k = 0..s (the Yoneda representative) */
    /* per k = 0..s: known[k] (Sq^k x's target (s + k, 2t) and what it needs are resolved),
     * dim[k] generators there, val[k] its coordinates (dim[k] bytes) */
    uint8_t *known;
    uint32_t *dim;
    uint8_t **val;
} steenrod_result;

/* r for the class x (coords[0..len) over the generators at (s, t), t = n + s): which Sq^k are
 * known (in range), none computed yet. 0, or -1 out of memory (clear r either way). */
int steenrod_result_init(steenrod_result *r, const resolution *res, int n, int s, const uint8_t *coords, uint32_t len);
/* Every known Sq^k of the classes of r[0..nr) (steenrod_result_init), with runner (chain_serial,
 * or runtime/rt_chain.h's StarPU runner; the same bits either way): 0; 1 stopped at the runner's
 * time limit (no r is complete); -1 out of memory; -2 internal error (err says where, for -1
 * too). A zero class gives zeros. */
int steenrod_compute(const resolution *res, steenrod_result *r, int nr, const chain_runner *runner, char *err,
                     size_t errlen);
/* One class, serially: steenrod_result_init and steenrod_compute with chain_serial. */
int steenrod_class(const resolution *res, int n, int s, const uint8_t *coords, uint32_t len, steenrod_result *r,
                   char *err, size_t errlen);
void steenrod_result_clear(steenrod_result *r);
/* sseq's steenrod output for r (no command line): the Yoneda line, then Sq^s .. Sq^0 (the known
 * ones). */
int steenrod_write_sseq(FILE *f, const steenrod_result *r);
/* steenrod.csv rows for r named name: "name,name_n,name_s,k,n,s,j" — coefficient 1 of
 * x_(n, s, j) in Sq^k name, (n, s) = (2 name_n + name_s - k, name_s + k). */
#define STEENROD_CSV_HEADER "name,name_n,name_s,k,n,s,j"
int steenrod_write_csv_rows(FILE *f, const steenrod_result *r, const char *name);
/* "[v_0, v_1, ...]": a result vector as sseq prints it (both writers' rows; sq0.c). */
int steenrod_print_vector(FILE *f, const uint8_t *v, uint32_t dim);

#endif
