/* t-yoneda.c — Yoneda representatives (stages/yoneda/yoneda.h) on the resolution of S_2 through
 * stem 24, s <= 8, with both algorithms:
 *   - every non-zero class of every bidegree in range (each basis class, and every non-zero
 *     vector where Ext has dimension 2 or 3) passes yoneda_check: d d = 0, d A-linear, E exact
 *     with H_0 = F2, the Euler characteristic in each degree, and the identity of F2 lifted into
 *     E through E's own differential gives the class back;
 *   - the check is not blind: E built for one class but asked about another of the same bidegree
 *     is refused, and the class it recomputes is the one E was built for; that E with one of its
 *     differentials set to zero is refused (not exact); E for g with one entry of Sq(R) on E_k (k >= 1)
 *     changed where d of the entry's basis element is not zero is refused (d no longer A-linear);
 *   - the dimensions sum to the Euler characteristic 1 (sum_k (-1)^k dim E_k = dim F2);
 *   - sseq's admissible basis (stages/yoneda/adem.h): its tables to and from the Milnor basis are
 *     inverse, degree d starts with Sq^d; S_2 resolved over it has the Ext dimensions of the
 *     Milnor resolution everywhere and d d = 0; every non-zero class's E reduced over it passes
 *     the check; the Steenrod squares of its basis classes (stages/steenrod) are the same with E
 *     reduced over either basis. */
#include <stdlib.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/steenrod/steenrod.h"
#include "stages/yoneda/adem.h"
#include "stages/yoneda/yoneda.h"
#include "stages/resolve/step.h"
#include "tests/tap.h"

#define STEM 24
#define MAXS 8

/* yoneda_check on E for x: 0, or the failure (its message in err). */
static int check_class(const resolution *res, const adem_basis *adem, int n, int s, const uint8_t *x, uint32_t len,
                       char *err, size_t errlen, long *euler_bad)
{
    yoneda E;
    uint8_t cls[64];
    if (yoneda_build(&E, res, adem, n, s, x, len) != 0) bail("yoneda_build: out of memory");
    long e = 0;
    for (int k = 0; k <= s; k++) e += (k % 2 ? -1 : 1) * (long)yoneda_total(&E, k);
    *euler_bad += e != 1;
    int rc = yoneda_check(&E, cls, err, errlen);
    if (rc == 0 && memcmp(cls, x, len)) rc = -3;
    yoneda_clear(&E);
    return rc;
}

/* Every non-zero class in range (each basis class; every vector where Ext has dimension <= 3)
 * through yoneda_check, E reduced over the basis adem (NULL: Milnor). */
static void every_class(const resolution *res, const adem_basis *adem, const char *name)
{
    char err[300];
    long classes = 0, bad = 0, euler_bad = 0, sums = 0;
    int first_bad = 1;
    for (int s = 0; s <= MAXS; s++)
        for (int n = 0; n + s <= STEM; n++) {
            uint32_t dim = res_ngens(res, s, n + s);
            if (!dim || !yoneda_in_range(res, n, s)) continue;
            uint32_t nv = dim <= 3 ? (1u << dim) : dim + 1;   /* all vectors, or the basis */
            for (uint32_t m = 1; m < nv; m++) {
                uint8_t x[64] = { 0 };
                if (dim <= 3)
                    for (uint32_t j = 0; j < dim; j++) x[j] = m >> j & 1;
                else
                    x[m - 1] = 1;
                int rc = check_class(res, adem, n, s, x, dim, err, sizeof err, &euler_bad);
                classes++;
                sums += dim >= 2 && (m & (m - 1));
                if (rc && first_bad) diag("%s: class %u at (%d, %d): %d %s", name, m, n, s, rc, rc == -3 ? "" : err);
                first_bad &= !rc;
                bad += rc != 0;
            }
        }
    ok(bad == 0 && classes > 40 && sums >= 2,
       "%s: %ld non-zero classes (%ld of them sums) pass the check: exact, A-linear, the class lifted back", name,
       classes, sums);
    ok(euler_bad == 0, "%s: their dimensions have Euler characteristic 1", name);
}

static void check(int algorithm, const char *name)
{
    resolution res;
    char err[300];
    if (res_init(&res, REGION_STEM, STEM, MAXS, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    if (res_run(&res, &rt_chain_runner) != 0) bail("res_run");
    rt_shutdown();

    every_class(&res, NULL, name);

    /* the check is not blind: a bidegree of dimension 2, E for x = (1, 0) asked about (0, 1) */
    int n2 = -1, s2 = -1;
    for (int s = 2; s <= MAXS && n2 < 0; s++)
        for (int n = 0; n + s <= STEM && n2 < 0; n++)
            if (res_ngens(&res, s, n + s) == 2 && yoneda_in_range(&res, n, s)) n2 = n, s2 = s;
    yoneda E;
    uint8_t x10[2] = { 1, 0 }, cls[2] = { 9, 9 };
    if (n2 < 0 || yoneda_build(&E, &res, NULL, n2, s2, x10, 2) != 0) bail("no bidegree of dimension 2, or out of memory");
    E.x[0] = 0, E.x[1] = 1;
    int rc = yoneda_check(&E, cls, err, sizeof err);
    ok(rc == -2 && strstr(err, "not the class asked for") && cls[0] == 1 && cls[1] == 0,
       "%s: E for (1, 0) at (%d, %d) asked about (0, 1): refused (%s), and it gives back (%u, %u)", name, n2, s2, err,
       cls[0], cls[1]);
    E.x[0] = 1, E.x[1] = 0;

    /* a differential set to zero: not exact (E at (18, 4) has no Sq(R) between its elements:
     * only exactness can see it) */
    int k0 = -1;
    deg_t u0 = 0;
    for (int k = 1; k <= E.s && k0 < 0; k++)
        for (deg_t u = 0; u <= E.t && k0 < 0; u++) {
            const f2mat *D = yoneda_d(&E, k, u);
            for (uint32_t i = 0; i < D->rows && k0 < 0; i++)
                if (!f2vec_is_zero(f2mat_row(D, i), f2vec_words(D->cols))) k0 = k, u0 = u;
        }
    f2mat *D = &E.dmat[yoneda_cell(&E, k0, u0)], saved;
    if (k0 < 0 || f2mat_copy(&saved, D) != 0) bail("no non-zero differential");
    for (uint32_t i = 0; i < D->rows; i++) memset(f2mat_row(D, i), 0, f2vec_words(D->cols) * sizeof(uint64_t));
    rc = yoneda_check(&E, cls, err, sizeof err);
    ok(rc == -2 && strstr(err, "not exact"), "%s: d_%d in degree %d set to zero: refused (%s)", name, k0, (int)u0, err);
    for (uint32_t i = 0; i < D->rows; i++)
        memcpy(f2mat_row(D, i), f2mat_row(&saved, i), f2vec_words(D->cols) * sizeof(uint64_t));
    f2mat_clear(&saved);
    rc = yoneda_check(&E, cls, err, sizeof err);
    ok(rc == 0, "%s: put back, E passes again", name);
    yoneda_clear(&E);

    /* on E for g at (20, 4) (dimensions 13 29 22 6 1 or 15 41 32 6 1): */
    uint8_t g[1] = { 1 };
    if (res_ngens(&res, 4, 24) != 1 || yoneda_build(&E, &res, NULL, 20, 4, g, 1) != 0) bail("g: out of memory");

    /* one entry of Sq(R) e_i on E_k, k >= 1, changed by a basis element e_j with d e_j != 0 */
    int done = 0;
    for (int k = 1; k <= E.s && !done; k++)
        for (deg_t u = 0; u <= E.t && !done; u++)
            for (deg_t d = 1; u + d <= E.t && !done; d++) {
                f2mat *T = &E.act[yoneda_cell(&E, k, u) * ((size_t)E.t + 1) + (size_t)d];
                const f2mat *Dk = yoneda_d(&E, k, u + d);
                for (uint32_t j = 0; j < T->cols && T->rows && !done; j++) {
                    if (f2vec_is_zero(f2mat_row(Dk, j), f2vec_words(Dk->cols))) continue;
                    f2mat_flip(T, 0, j);
                    rc = yoneda_check(&E, cls, err, sizeof err);
                    ok(rc == -2 && strstr(err, "not A-linear"),
                       "%s: Sq(R) e_0 on E_%d in degree %d, |R| = %d, changed at e_%u: refused (%s)", name, k, (int)u,
                       (int)d, j, err);
                    f2mat_flip(T, 0, j);
                    done = 1;
                }
            }
    if (!done) ok(0, "%s: no entry of Sq(R) on E_k to change", name);
    yoneda_clear(&E);
    res_clear(&res);
}

/* sseq's admissible basis and the resolution over it (stages/yoneda/adem.h) */
static void check_adem(void)
{
    adem_basis B;
    milnor_basis A;
    char err[300];
    if (adem_basis_init(&B, STEM + MAXS + 1) != 0 || milnor_basis_init(&A, STEM + MAXS + 1, NULL) != 0)
        bail("out of memory");
    int inverse = 1, first = 1;
    for (deg_t d = 0; d <= B.max; d++) {   /* to_milnor from_milnor = I; sseq's first monomial is Sq^d */
        const f2mat *P = &B.to_milnor[d], *Q = &B.from_milnor[d];
        for (uint32_t i = 0; i < P->rows; i++) {
            uint64_t row[64] = { 0 };
            for (uint32_t j = 0; j < P->cols; j++)
                if (f2mat_get(P, i, j)) f2vec_xor(row, f2mat_row(Q, j), f2vec_words(Q->cols));
            for (uint32_t j = 0; j < P->cols; j++) inverse &= f2vec_get(row, j) == (i == j);
        }
        uint32_t r = (uint32_t)d;
        milnor_elt R;
        milnor_elt_set(&R, &r, d ? 1 : 0);
        uint32_t sq = milnor_index(&A, &R);
        for (uint32_t j = 0; j < P->cols; j++) first &= f2mat_get(P, 0, j) == (j == sq);
        first &= B.rating[d][0] == (uint32_t)__builtin_popcount((unsigned)d) && P->rows == A.dim[d];
    }
    ok(inverse && first, "adem: the tables of degrees 0..%d: Milnor -> admissible -> Milnor is the identity, and "
       "sseq's first monomial of degree d is Sq^d = Sq(d), rated popcount(d)", (int)B.max);
    resolution res, mil;
    if (res_init(&res, REGION_STEM, STEM, MAXS, 0, "", 0, ALG_STANDARD) != 0 ||
        res_init(&mil, REGION_STEM, STEM, MAXS, 0, "", 0, ALG_STANDARD) != 0)
        bail("res_init");
    int rc = adem_resolve(&res, &B, err, sizeof err);
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    if (res_run(&mil, &rt_chain_runner) != 0) bail("res_run");
    rt_shutdown();
    long cells = 0, differ = 0, dd = 0, dd_bad = 0;
    for (int s = 0; s <= MAXS; s++)
        for (int n = 0; n <= STEM; n++) {
            cells++;
            differ += !res_is_done(&res, s, n + s) || res_ngens(&res, s, n + s) != res_ngens(&mil, s, n + s);
            if (s >= 2 && res_ngens(&res, s, n + s)) dd++, dd_bad += res_check_dd(&res, s, n + s) != 1;
        }
    ok(rc == 0 && differ == 0 && cells > 200,
       "adem: S_2 resolved over sseq's admissible basis has the Milnor resolution's Ext in all %ld bidegrees", cells);
    ok(dd_bad == 0 && dd > 40, "adem: d d = 0 on its %ld bidegrees with generators, s >= 2 (Milnor products)", dd);
    every_class(&res, &B, "adem");
    /* the squares do not depend on E: over the admissible resolution, E reduced over either basis */
    long sq_classes = 0, sq_bad = 0, e_differ = 0;
    for (int s = 0; s <= MAXS; s++)
        for (int n = 0; n + s <= STEM; n++)
            for (uint32_t i = 0; i < res_ngens(&res, s, n + s) && i < 64; i++) {
                uint8_t x[64] = { 0 };
                x[i] = 1;
                steenrod_result r[2];
                int any = 0;
                for (int b = 0; b < 2; b++) {
                    if (steenrod_result_init(&r[b], &res, n, s, x, res_ngens(&res, s, n + s)) != 0) bail("oom");
                    r[b].adem = b ? &B : NULL;
                }
                for (int k = 0; k <= s; k++) any |= r[0].known[k];
                if (any && (steenrod_compute(&res, &r[0], 1, &chain_serial, err, sizeof err) != 0 ||
                            steenrod_compute(&res, &r[1], 1, &chain_serial, err, sizeof err) != 0))
                    bail(err);
                for (int k = 0; k <= s && any; k++) {
                    sq_bad += r[0].known[k] != r[1].known[k] || (r[0].known[k] && memcmp(r[0].val[k], r[1].val[k], r[0].dim[k]));
                    e_differ += r[0].edim[k] != r[1].edim[k];
                }
                sq_classes += any;
                steenrod_result_clear(&r[0]);
                steenrod_result_clear(&r[1]);
            }
    ok(sq_bad == 0 && sq_classes > 10 && e_differ > 0,
       "adem: Sq^k of %ld classes are the same with E over either basis (E's dimensions differ %ld times)", sq_classes,
       e_differ);
    res_clear(&res);
    res_clear(&mil);
    milnor_basis_clear(&A);
    adem_basis_clear(&B);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(2 * 6 + 6);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    check_adem();
    return done_testing();
}
