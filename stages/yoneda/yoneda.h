/* yoneda.h — a Yoneda representative of a class of Ext_A^{s,t}(F2, F2): a finite exact complex
 * of finite A-modules 0 -> E_s -> ... -> E_0 -> F2 -> 0 with E_s = Sigma^t F2, whose class (the
 * extension it spells) is the given one; built as a quotient of the sphere's minimal
 * resolution F in DIR (docs/products.md, "Yoneda representatives").
 *
 * Maths. For x in Ext^{s,t}, a vector over the generators of F_s in degree t, let ker x be the
 * A-submodule of F_s that x kills (everything outside degree t; in degree t the decomposables
 * and the generators' combinations x misses). Then
 *     E_k = F_k / (degrees > t)                 for k <= s - 2,
 *     E_{s-1} = F_{s-1} / (degrees > t) / d(ker x),    E_s = F_s / ker x = Sigma^t F2,
 * an exact complex in positive degrees with H_0 = F2, through which x : F_s -> Sigma^t F2
 * factors. It is then made smaller, row by row from s - 1 down to 1, by quotients by acyclic
 * subcomplexes (a piece on which d is injective, with its image): first whole generators on
 * whose submodule A·g the differential is injective, then, degree by degree from the top, the
 * elements that every Sq(2^j) kills (each spans a submodule F2·v) and that d does not kill,
 * preferring cheap Milnor elements Sq(R) (rated sum_j popcount(r_j) 2^j) and columns free of
 * earlier relations. These greedy rules are sseq's (its yoneda example), so E's dimensions are
 * sseq's for the same resolution (Milnor basis, standard or Nassau's algorithm).
 *
 * The quotient map F -> E is a chain map over the identity of F2; x is F_s -> E_s. yoneda_check
 * tests the other direction, from E's own tables alone: d d = 0 and d A-linear on E, E exact
 * with H_0 = F2 in degree 0 (ranks), the Euler characteristic sum_k (-1)^k dim E_k(u) = [u = 0]
 * in every degree, and the class recomputed by lifting the identity of F2 to a chain map
 * f : F -> E through E's own differential (any preimage; the composite F_s -> E_s = Sigma^t F2
 * does not depend on the choice, F being minimal) equals x.
 *
 * Layout. E_k in degree u (k = 0..s, u = 0..t) is cell yoneda_cell(k, u) = k (t + 1) + u: for
 * k < s the quotient of F_k(u) by a subspace W (kept fully reduced), its basis the columns of
 * F_k(u) that are no pivot of W; E_s is the one class in (s, t). Over that basis: act[cell * (t
 * + 1) + d], rows i dim A_d + r = Sq(R_r)·e_i over E_k(u + d) (R_r the r-th Milnor element of
 * degree d), and dmat[cell] (k >= 1), row i = d(e_i) over E_{k-1}(u).
 */
#ifndef EXTFLOW_YONEDA_H
#define EXTFLOW_YONEDA_H
#include <stdint.h>
#include <stdio.h>
#include "algebra/f2mat.h"
#include "stages/resolve/resolution.h"

struct yoneda_sub;
struct adem_basis;

typedef struct yoneda {
    const resolution *res;
    const struct adem_basis *adem;  /* NULL: F's Milnor basis; else sseq's admissible one (adem.h) */
    uint64_t *scratch;          /* adem: a vector of swords words */
    size_t swords;
    int n, s;
    deg_t t;                    /* n + s */
    uint8_t *x;                 /* the class, len bytes (copied) */
    uint32_t len;
    uint32_t xgen;              /* a generator j with x_j = 1 */
    uint32_t *edim;             /* [cell]: dim E_k(u) */
    struct yoneda_sub *W;       /* [cell], k < s */
    uint32_t **basis;           /* [cell], k < s: the columns of F_k(u) that are E's basis */
    f2mat *act;                 /* [cell * (t + 1) + d] */
    f2mat *dmat;                /* [cell], k >= 1 */
    f2mat *dcache;              /* [cell], k >= 1: d_k on F_k(u)'s basis (E's coordinates), made on first
                                 * use by the reduction, when dcache_have[cell] */
    uint8_t *dcache_have;
} yoneda;

/* Are the rows 0..s of res resolved through degree t = n + s (all E needs)? */
int yoneda_in_range(const resolution *res, int n, int s);
/* E for the class x[0..len) at (n, s) (len = the generators there; x not zero; yoneda_in_range),
 * reduced over F's Milnor basis (adem NULL) or over sseq's admissible basis (stages/yoneda/adem.h;
 * res then the resolution adem_resolve made, for sseq's S_2@adem). 0, or -1 out of memory.
 * yoneda_clear either way. */
int yoneda_build(yoneda *E, const resolution *res, const struct adem_basis *adem, int n, int s, const uint8_t *x,
                 uint32_t len);
void yoneda_clear(yoneda *E);

static inline size_t yoneda_cell(const yoneda *E, int k, deg_t u) { return (size_t)k * ((size_t)E->t + 1) + (size_t)u; }
static inline uint32_t yoneda_dim(const yoneda *E, int k, deg_t u)
{
    return k < 0 || k > E->s || u < 0 || u > E->t ? 0 : E->edim[yoneda_cell(E, k, u)];
}
/* Sq(R)·e_i, R of degree d, over E_k(u + d) (u + d <= t). */
static inline const f2mat *yoneda_act(const yoneda *E, int k, deg_t u, deg_t d)
{
    return &E->act[yoneda_cell(E, k, u) * ((size_t)E->t + 1) + (size_t)d];
}
/* d : E_k(u) -> E_{k-1}(u), k >= 1. */
static inline const f2mat *yoneda_d(const yoneda *E, int k, deg_t u) { return &E->dmat[yoneda_cell(E, k, u)]; }
/* Total dimension of E_k. */
uint64_t yoneda_total(const yoneda *E, int k);

/* The identities above (d d = 0, A-linear, exact, Euler characteristic, the class), from E's
 * tables: 0, the lifted class in cls[0..len); -1 out of memory; -2 an identity fails (err names
 * it and where). */
int yoneda_check(const yoneda *E, uint8_t *cls, char *err, size_t errlen);

/* sseq's yoneda output (no command line): "Dimension of kth module is dim E_k", k = 0..s. */
int yoneda_write_sseq(FILE *f, const yoneda *E);
/* yoneda-NAME.csv: "k,t,dim" for every (k, u) with E_k(u) != 0, by k then degree. */
#define YONEDA_CSV_HEADER "k,t,dim"
int yoneda_write_csv(FILE *f, const yoneda *E);

#endif
