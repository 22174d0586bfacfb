/* t-steenrod.c — algebraic Steenrod squares on Ext of the sphere (stages/steenrod/steenrod.h), on the
 * resolution through stem 30, s <= 10, with both algorithms, against answers computed another
 * way:
 *   - Sq^0 through the Verschiebung as StarPU tasks gives the serial run's maps;
 *   - the cup-i squares of every basis class, all classes in one chain set as StarPU tasks,
 *     are each class's serial ones (and the Yoneda line's dimensions too);
 *   - Sq^0 of every basis class by the cup-i construction equals Sq^0 through the
 *     Verschiebung (two unrelated constructions);
 *   - Sq^s x = x·x (the product from a lifted chain map, stages/products/lift.h) for every basis class,
 *     and for the sum of the two classes at (15, 5), whose square is in range;
 *   - Sq^0 h_j = h_{j+1}, Sq^1 h_j = h_j^2; sseq's values for c0 (Sq^0 c0 = c1, Sq^1 c0 = f0 =
 *     x_(18,4,1), Sq^2 c0 = h0 e0, Sq^3 c0 = c0^2);
 *   - the Cartan formula Sq^k(x y) = sum_{a+b=k} Sq^a x · Sq^b y on every pair of a list of
 *     classes (h0 gives the h0-linearity Sq^k(h0 y) = h1 Sq^k y + h0^2 Sq^{k-1} y);
 *   - the Yoneda representative's Euler characteristic (1 - dim E_0 + dim E_1 - ... = 0). */
#include <stdlib.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/products/products.h"
#include "stages/steenrod/steenrod.h"
#include "stages/resolve/step.h"
#include "tests/tap.h"

#define STEM 30
#define MAXS 10

typedef struct cls {
    int n, s;
    uint32_t len;
    uint8_t v[16];
    int in;                     /* known: in range (len may be 0, a zero group) */
} cls;

static int in_region(int n, int s) { return s >= 0 && s <= MAXS && n >= 0 && n <= STEM; }

static int nonzero(const cls *c)
{
    for (uint32_t k = 0; k < c->len; k++)
        if (c->v[k]) return 1;
    return 0;
}

static cls basis(const resolution *res, int n, int s, uint32_t i)
{
    cls c = { n, s, res_ngens(res, s, n + s), { 0 }, 1 };
    c.v[i] = 1;
    return c;
}

/* Sq^k x as a class (len 0 when unknown). */
static cls sq(const steenrod_result *r, int k)
{
    cls c = { 2 * r->n + r->s - k, r->s + k, 0, { 0 }, 0 };
    if (k < 0 || k > r->s || !r->known[k]) return c;
    c.in = 1;
    c.len = r->dim[k];
    memcpy(c.v, r->val[k], c.len);
    return c;
}

static steenrod_result steenrod_of(const resolution *res, const cls *x)
{
    steenrod_result r;
    char err[256];
    if (steenrod_class(res, x->n, x->s, x->v, x->len, &r, err, sizeof err) != 0) bail(err);
    return r;
}

/* x·y with x lifted as map m of set (len 0 out of range). */
static cls mul(const resolution *res, const lift_set *set, int m, const cls *x, const cls *y)
{
    cls p = { x->n + y->n, x->s + y->s, 0, { 0 }, 0 };
    if (!in_region(p.n, p.s) || !y->in) return p;
    p.in = 1;
    p.len = res_ngens(res, p.s, p.n + p.s);
    products_multiply(set, m, y->n, y->s, y->v, y->len, p.v, p.len);
    return p;
}

static int same(const cls *a, const cls *b)
{
    return a->in && b->in && a->n == b->n && a->s == b->s && a->len == b->len && !memcmp(a->v, b->v, a->len);
}

static void check(int algorithm, const char *name)
{
    resolution res;
    char err[256];
    if (res_init(&res, REGION_STEM, STEM, MAXS, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    if (res_run(&res, &rt_chain_runner) != 0) bail("res_run");
    steenrod_sq0 q, qdag;   /* serially, and as StarPU tasks */
    int dag = steenrod_sq0_compute(&res, &qdag, &rt_chain_runner);
    /* the cup-i squares of every basis class with one in range, in one set on StarPU */
    static steenrod_result all[512];
    int nall = 0;
    for (int n = 0; n <= STEM / 2; n++)
        for (int s = 0; s <= MAXS; s++)
            for (uint32_t i = 0; i < res_ngens(&res, s, n + s) && nall < 512; i++) {
                cls x = basis(&res, n, s, i);
                if (steenrod_result_init(&all[nall], &res, n, s, x.v, x.len) != 0) bail("out of memory");
                int any = 0;
                for (int k = 0; k <= s; k++) any |= all[nall].known[k];
                if (any) nall++;
                else steenrod_result_clear(&all[nall]);
            }
    int alldag = steenrod_compute(&res, all, nall, &rt_chain_runner, err, sizeof err);
    rt_shutdown();
    long alldiffer = 0, allsquares = 0;
    for (int c = 0; c < nall; c++) {
        steenrod_result r;
        if (steenrod_class(&res, all[c].n, all[c].s, all[c].coords, all[c].len, &r, err, sizeof err) != 0) bail(err);
        for (int k = 0; k <= r.s; k++) {
            alldiffer += r.edim[k] != all[c].edim[k] || r.known[k] != all[c].known[k] ||
                         (r.known[k] && memcmp(r.val[k], all[c].val[k], r.dim[k]));
            allsquares += r.known[k];
        }
        steenrod_result_clear(&r);
        steenrod_result_clear(&all[c]);
    }
    ok(alldag == 0 && alldiffer == 0 && nall > 20,
       "%s: the cup-i squares of %d classes in one set as StarPU tasks are the serial ones (%ld squares)", name, nall,
       allsquares);
    int serial = steenrod_sq0_compute(&res, &q, &chain_serial);
    long cells = 0, differ = 0;
    for (size_t c = 0; c < (size_t)(res.max_s + 1) * ((size_t)res.max_n + 1); c++) {
        cells += q.have[c];
        differ += q.have[c] != qdag.have[c] || (q.have[c] && !f2mat_equal(&q.phi[c], &qdag.phi[c]));
    }
    ok(serial == 0 && dag == 0 && differ == 0 && cells > 100,
       "%s: Sq^0 through the Verschiebung, serially and as StarPU tasks: the same maps (%ld cells)", name, cells);
    steenrod_sq0_clear(&qdag);

    /* every basis class with some Sq^k in range: cup-i Sq^0 against the Verschiebung's, and the
     * Euler characteristic of E */
    long classes = 0, sq0_cmp = 0, sq0_bad = 0, euler_bad = 0;
    cls squares[128];
    int nsq = 0;
    uint8_t v0[64];
    for (int n = 0; n <= STEM / 2; n++)
        for (int s = 0; s <= MAXS; s++)
            for (uint32_t i = 0; i < res_ngens(&res, s, n + s); i++) {
                cls x = basis(&res, n, s, i);
                steenrod_result r = steenrod_of(&res, &x);
                int any = 0;
                for (int k = 0; k <= s; k++) any |= r.known[k];
                if (!any) {
                    steenrod_result_clear(&r);
                    continue;
                }
                classes++;
                long e = 1;
                for (int k = 0; k <= s; k++) e += (k % 2 ? 1 : -1) * (long)r.edim[k];
                euler_bad += e != 0;
                if (r.known[0]) {
                    sq0_cmp++;
                    steenrod_sq0_of(&q, n, s, i, v0);
                    int bad = !steenrod_sq0_known(&q, n, s) || memcmp(v0, r.val[0], r.dim[0]);
                    if (bad) diag("Sq^0 x_(%d,%d,%u) differs (dim %u)", n, s, i, r.dim[0]);
                    sq0_bad += bad;
                }
                if (r.known[s] && nsq < 128) squares[nsq++] = x;
                steenrod_result_clear(&r);
            }
    ok(sq0_bad == 0 && sq0_cmp > 25, "%s: Sq^0 by cup-i products = Sq^0 by the Verschiebung on %ld basis classes", name,
       sq0_cmp);
    ok(euler_bad == 0 && classes > 40, "%s: the Yoneda representatives of %ld classes have Euler characteristic 1",
       name, classes);

    /* Sq^s x = x·x: the basis classes whose square is in range, and [1,1] at (15, 5) */
    cls sum155 = { 15, 5, res_ngens(&res, 5, 20), { 1, 1 }, 1 };
    if (sum155.len == 2 && nsq < 128) squares[nsq++] = sum155;
    lift_set set;
    if (lift_set_init(&set, &res, &res, "") != 0) bail("lift_set_init");
    for (int m = 0; m < nsq; m++)
        if (lift_add_class(&set, squares[m].s, squares[m].n + squares[m].s, squares[m].v, squares[m].len) != m)
            bail("lift_add_class");
    if (lift_run(&set, &chain_serial) != 0) bail(set.fail.msg);
    long sq_bad = 0, sq_nonzero = 0;
    for (int m = 0; m < nsq; m++) {
        steenrod_result r = steenrod_of(&res, &squares[m]);
        cls top = sq(&r, squares[m].s), xx = mul(&res, &set, m, &squares[m], &squares[m]);
        sq_bad += !same(&top, &xx);
        sq_nonzero += nonzero(&top);
        steenrod_result_clear(&r);
    }
    ok(sq_bad == 0 && nsq > 15 && sq_nonzero > 5 && sum155.len == 2,
       "%s: Sq^s x = x·x for %d classes (%ld squares non-zero; (15, 5) has dimension 2)", name, nsq, sq_nonzero);
    lift_set_clear(&set);

    /* h_j and c0 */
    int hj_ok = 1;
    for (int j = 0; j <= 3; j++) {
        cls h = basis(&res, (1 << j) - 1, 1, 0), next = basis(&res, (2 << j) - 1, 1, 0);
        steenrod_result r = steenrod_of(&res, &h);
        cls s0 = sq(&r, 0), s1 = sq(&r, 1);
        hj_ok &= same(&s0, &next) && s1.len == 1 && s1.v[0] == 1;
        steenrod_result_clear(&r);
    }
    ok(hj_ok, "%s: Sq^0 h_j = h_{j+1}, Sq^1 h_j = h_j^2 != 0, j = 0..3", name);
    cls c0 = basis(&res, 8, 3, 0);
    steenrod_result rc0 = steenrod_of(&res, &c0);
    cls c1 = basis(&res, 19, 3, 0), f0 = basis(&res, 18, 4, 1), s0 = sq(&rc0, 0), s1 = sq(&rc0, 1), s2 = sq(&rc0, 2),
        s3 = sq(&rc0, 3);
    ok(same(&s0, &c1) && same(&s1, &f0) && s2.len == 1 && s2.v[0] && s3.len == 1 && s3.v[0],
       "%s: Sq^0 c0 = c1, Sq^1 c0 = x_(18,4,1), Sq^2 c0 = x_(17,5,0), Sq^3 c0 = x_(16,6,0) (sseq's)", name);
    steenrod_result_clear(&rc0);

    /* the Cartan formula on pairs */
    static const struct { int n, s; } list[] = { { 0, 1 }, { 1, 1 }, { 3, 1 }, { 7, 1 }, { 8, 3 }, { 0, 2 }, { 6, 2 },
                                                  { 9, 5 }, { 14, 4 } };
    enum { NL = sizeof list / sizeof *list };
    steenrod_result rl[NL];
    cls xl[NL];
    lift_set sqs;   /* the lifts of Sq^a x for every x of the list */
    int idx[NL][12];
    if (lift_set_init(&sqs, &res, &res, "") != 0) bail("lift_set_init");
    for (int a = 0; a < NL; a++) {
        xl[a] = basis(&res, list[a].n, list[a].s, 0);
        rl[a] = steenrod_of(&res, &xl[a]);
        for (int k = 0; k <= xl[a].s; k++) {
            cls c = sq(&rl[a], k);
            idx[a][k] = c.in && nonzero(&c) ? lift_add_class(&sqs, c.s, c.n + c.s, c.v, c.len) : -1;
        }
    }
    lift_set pl;   /* the lifts of the list itself, for x·y */
    if (lift_set_init(&pl, &res, &res, "") != 0) bail("lift_set_init");
    for (int a = 0; a < NL; a++)
        if (lift_add_class(&pl, xl[a].s, xl[a].n + xl[a].s, xl[a].v, xl[a].len) != a) bail("lift_add_class");
    if (lift_run(&sqs, &chain_serial) != 0 || lift_run(&pl, &chain_serial) != 0) bail("lift_run");
    long cartan = 0, cartan_bad = 0, cartan_nonzero = 0;
    for (int a = 0; a < NL; a++)
        for (int b = a; b < NL; b++) {
            cls xy = mul(&res, &pl, a, &xl[a], &xl[b]);
            if (!xy.in || !nonzero(&xy)) continue;
            steenrod_result r = steenrod_of(&res, &xy);
            for (int k = 0; k <= xy.s; k++) {
                cls lhs = sq(&r, k);
                if (!lhs.in) continue;
                cls rhs = { lhs.n, lhs.s, lhs.len, { 0 }, 1 };
                int complete = 1;
                for (int i = 0; i <= k; i++) {
                    if (i > xl[a].s || k - i > xl[b].s) continue;
                    cls sa = sq(&rl[a], i), sb = sq(&rl[b], k - i);
                    if (!sa.in || !sb.in) {   /* a factor out of range: then so is the product */
                        complete = 0;
                        break;
                    }
                    if (idx[a][i] < 0 || !nonzero(&sb)) continue;
                    cls p = mul(&res, &sqs, idx[a][i], &sa, &sb);
                    for (uint32_t j = 0; j < p.len && j < rhs.len; j++) rhs.v[j] ^= p.v[j];
                }
                if (!complete) continue;
                cartan++;
                if (!same(&lhs, &rhs))
                    diag("Cartan fails for Sq^%d of (%d,%d)·(%d,%d)", k, xl[a].n, xl[a].s, xl[b].n, xl[b].s);
                cartan_bad += !same(&lhs, &rhs);
                cartan_nonzero += nonzero(&lhs);
            }
            steenrod_result_clear(&r);
        }
    ok(cartan_bad == 0 && cartan > 30 && cartan_nonzero > 10,
       "%s: Sq^k(x y) = sum Sq^a x Sq^b y in %ld cases (%ld non-zero)", name, cartan, cartan_nonzero);
    for (int a = 0; a < NL; a++) steenrod_result_clear(&rl[a]);
    lift_set_clear(&sqs);
    lift_set_clear(&pl);

    /* a zero class: every Sq^k is zero */
    cls zero = { 8, 3, 1, { 0 }, 1 };
    steenrod_result rz = steenrod_of(&res, &zero);
    int zeros = 1;
    for (int k = 0; k <= 3; k++) {
        cls c = sq(&rz, k);
        zeros &= c.in && !nonzero(&c);
    }
    ok(zeros, "%s: the zero class has Sq^k = 0", name);
    steenrod_result_clear(&rz);
    steenrod_sq0_clear(&q);
    res_clear(&res);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(2 * 9);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    return done_testing();
}
