/* t-lift-p.c — products at an odd prime by lifting classes to chain maps over F_p (stages/products/lift.h,
 * "Odd primes"; stages/products/lift.c at odd p), on S_3 through stem 40, s <= 12, and S_5 through stem 90, s <= 8.
 * No sseq output at odd p exists here, so the checks are independent answers and identities:
 *   - filtration one, read off the differentials: for x = a0, h0, h1 (dual to the generator g of
 *     F_1 with d g = θ·ι, θ = Q_0, P(1), P(p)) and y dual to the generator w of F_s,
 *     <y·x, z> = the coefficient of θ·w in d z, for every generator z of F_{s+1} (θ is dual to a
 *     primitive of the dual algebra, so no decomposable term of d z has a θ component): the lift
 *     of y read at level 1, and the lift of x read at level s, which must give the same up to the
 *     sign of graded commutativity;
 *   - x·y = (−1)^{s s' + t t'} y·x for every pair of lifted basis classes, and
 *     (x·y)·z = x·(y·z) for every triple (the left side as ±z·(x·y), through the lift of z);
 *   - linearity: the lift of a class [1, 2] multiplies as e_0 + 2 e_1;
 *   - 3-primary facts: a0^s ≠ 0 in stem 0; a0·b0 ≠ 0 at (10, 3) (the target of Toda's Adams
 *     differential d2(h1) = a0 b0); h0·b0 ≠ 0 at (13, 3) (α_1 β_1 ≠ 0 in π_13, the only class
 *     of stem 13 in Ext);
 *   - the StarPU DAG gives the same cells byte for byte as a serial run, with every step's
 *     f(d z) through the odd-p multiply tasks and with every one inline; a class with a
 *     coordinate >= p is refused; a map with an extra term adding nothing is the null-homotopy
 *     of 0, h_i = (-1)^i f_i (the sign of y = F(z) − h(d z)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/products/products.h"
#include "stages/resolve/resolution_p.h"
#include "stages/resolve/step.h"
#include "tests/tap.h"

static void load(const char *name, fd_module *m)
{
    char path[256], buf[1 << 14], err[256];
    snprintf(path, sizeof path, "tests/ref/module-files/%s.json", name);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    if (!n || fdm_parse(buf, n, m, err, sizeof err) != 0) bail(path);
}

static void resolve(resolution *res, fd_module *m, int stem, int max_s)
{
    if (res_init(res, REGION_STEM, stem, max_s, 0, "", 0, ALG_STANDARD) != 0 || res_set_module(res, m, "M") != 0)
        bail("res_init");
    chain_set set = step_chain_set(res);
    if (chain_run(&chain_serial, &set) != 0) bail("resolve");
}

#define MAXCLS 256
typedef struct cls {
    int n, s;
    uint32_t len;
    uint8_t v[16];
} cls;

static uint32_t P;
static long nonzero_want;              /* filtration_one's cases with a non-zero coefficient */
static cls lifted[MAXCLS];
static int nlifted;

static int in_region(const resolution *res, int n, int s) { return s >= 0 && s <= res->max_s && n >= 0 && n <= res->stem; }

/* x·y with x the lifted class m (set), y any class; len 0 when outside the region. */
static cls mul(const resolution *res, const lift_set *set, int m, cls y)
{
    cls x = lifted[m], r = { x.n + y.n, x.s + y.s, 0, { 0 } };
    if (!in_region(res, r.n, r.s) || !in_region(res, y.n, y.s)) return r;
    r.len = res_ngens(res, r.s, r.n + r.s);
    if (r.len > sizeof r.v) bail("a group too large for the test");
    products_multiply(set, m, y.n, y.s, y.v, y.len, r.v, r.len);
    return r;
}

static int is_zero(cls c)
{
    for (uint32_t k = 0; k < c.len; k++)
        if (c.v[k]) return 0;
    return 1;
}

/* (−1)^{s s' + t t'} */
static int sign(cls a, cls b)
{
    long e = (long)a.s * b.s + (long)(a.n + a.s) * (b.n + b.s);
    return e % 2 ? -1 : 1;
}

/* a == c·b coordinatewise mod P (c = ±1) */
static int same_up_to(cls a, cls b, int c)
{
    if (a.len != b.len || a.n != b.n || a.s != b.s) return 0;
    for (uint32_t k = 0; k < a.len; k++)
        if (a.v[k] != (uint8_t)(((int)P + c * (int)b.v[k]) % (int)P)) return 0;
    return 1;
}

/* Every basis class with n <= max_n, s <= max_s, and the extra classes given, lifted into set. */
static void add_basis(lift_set *set, const resolution *res, int max_n, int max_s)
{
    nlifted = 0;
    for (int n = 0; n <= max_n; n++)
        for (int s = 0; s <= max_s; s++)
            for (uint32_t i = 0; i < res_ngens(res, s, n + s); i++) {
                cls c = { n, s, res_ngens(res, s, n + s), { 0 } };
                if (nlifted == MAXCLS || c.len > sizeof c.v) bail("too many classes");
                c.v[i] = 1;
                if (lift_add_class(set, s, n + s, c.v, c.len) != nlifted) bail("lift_add_class");
                lifted[nlifted++] = c;
            }
}

static int find_lifted(int n, int s)
{
    for (int m = 0; m < nlifted; m++)
        if (lifted[m].n == n && lifted[m].s == s && lifted[m].v[0] == 1) return m;
    return -1;
}

/* The filtration-one check for x at (nx, 1) dual to θ: mismatches of x's lift at level s against
 * the coefficient of θ·w_j in d z for every basis class y = e_j at (n, s) of the region, and of
 * the lift of y at level 1 where y is a lifted class. */
static long filtration_one(const resolution *res, const lift_set *set, int nx, const milnor_p_elt *theta, long *cases)
{
    int mx = find_lifted(nx, 1);
    if (mx < 0) bail("x not lifted");
    uint32_t tidx = milnor_p_index(&res->odd->A, theta);
    long bad = 0;
    for (int n = 0; n + nx <= res->stem; n++)
        for (int s = 0; s + 1 <= res->max_s; s++) {
            deg_t ty = n + s, T = ty + nx + 1;
            for (uint32_t j = 0; j < res_ngens(res, s, ty); j++) {
                cls y = { n, s, res_ngens(res, s, ty), { 0 } };
                y.v[j] = 1;
                int my = -1;
                for (int k = 0; k < nlifted && my < 0; k++)
                    if (lifted[k].n == n && lifted[k].s == s && lifted[k].len == y.len && !memcmp(lifted[k].v, y.v, y.len))
                        my = k;
                int e = sign(lifted[mx], y);
                uint64_t col = freemod_offset(&res->F[s], T, ty, j) + tidx;
                for (uint32_t k = 0; k < res_ngens(res, s + 1, T); k++) {
                    const uint8_t *dz = res->F[s + 1].gens[T][k].img_p;
                    uint32_t want = col < res->F[s + 1].gens[T][k].bits ? dz[col] : 0;
                    nonzero_want += want != 0;
                    if (my >= 0) bad += lift_product_coef(set, my, 1, nx + 1, 0, k) != want;
                    bad += lift_product_coef(set, mx, s, ty, j, k) != (uint32_t)(((int)P + e * (int)want) % (int)P);
                    ++*cases;
                }
            }
        }
    return bad;
}

static void commutativity_associativity(const resolution *res, const lift_set *set, const char *what)
{
    long pairs = 0, bad = 0, triples = 0, abad = 0, nonzero = 0;
    for (int a = 0; a < nlifted; a++)
        for (int b = 0; b < nlifted; b++) {
            cls ab = mul(res, set, a, lifted[b]), ba = mul(res, set, b, lifted[a]);
            if (!ab.len) continue;
            pairs++;
            nonzero += !is_zero(ab);
            bad += !same_up_to(ab, ba, sign(lifted[a], lifted[b]));
            for (int c = 0; c < nlifted; c++) {
                cls bc = mul(res, set, b, lifted[c]);
                if (!bc.len) continue;
                cls a_bc = mul(res, set, a, bc), c_ab = mul(res, set, c, ab);
                if (!a_bc.len) continue;
                triples++;
                abad += !same_up_to(a_bc, c_ab, sign(ab, lifted[c]));
            }
        }
    ok(pairs > 100 && nonzero > 20 && bad == 0, "%s: x·y = (-1)^(ss'+tt') y·x on %ld pairs of lifted classes (%ld non-zero; "
       "%ld differ)", what, pairs, nonzero, bad);
    ok(triples > 200 && abad == 0, "%s: x·(y·z) = (x·y)·z on %ld triples (%ld differ)", what, triples, abad);
}

static milnor_p_elt elt(uint32_t q, uint32_t r1)
{
    milnor_p_elt e;
    milnor_p_elt_set(&e, P, q, &r1, r1 ? 1 : 0);
    return e;
}

/* An extra term that adds nothing (counting its calls in *ctx): the map is then the null-homotopy
 * of 0 with bottom x, whose y = −h(d z), so h_i = (−1)^i f_i for x's lift f. */
static int add_nothing(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    (void)i, (void)t, (void)k, (void)y;
    ++*(int *)ctx;
    return 0;
}

/* Is every cell (i, t) of map mh of h (−1)^i times map mf's of f, entry by entry mod P? */
static int signed_cells(const lift_set *h, int mh, const lift_set *f, int mf, long *cells)
{
    for (size_t c = 0; c < h->ncells; c++) {
        const lift_map *a = &h->maps[mh], *b = &f->maps[mf];
        if (a->have[c] != b->have[c]) return 0;
        if (a->have[c] != 1 || !fieldmat_rows(&a->val[c])) continue;
        int odd = (int)(c / ((size_t)h->tgt->max_n + 1)) & 1;
        const fieldmat *x = &a->val[c], *y = &b->val[c];
        if (fieldmat_rows(x) != fieldmat_rows(y) || fieldmat_cols(x) != fieldmat_cols(y)) return 0;
        for (uint32_t r = 0; r < fieldmat_rows(x); r++)
            for (uint32_t k = 0; k < fieldmat_cols(x); k++)
                if (fieldmat_get(x, r, k) != (odd ? (P - fieldmat_get(y, r, k)) % P : fieldmat_get(y, r, k))) return 0;
        ++*cells;
    }
    return 1;
}

/* The cells of every map of a and b are the same bytes. */
static int same_cells(const lift_set *a, const lift_set *b)
{
    for (int m = 0; m < a->nmaps; m++)
        for (size_t c = 0; c < a->ncells; c++)
            if (a->maps[m].have[c] != b->maps[m].have[c] ||
                (a->maps[m].have[c] == 1 && !fieldmat_equal(&a->maps[m].val[c], &b->maps[m].val[c])))
                return 0;
    return 1;
}

int main(void)
{
    plan(16);
    fd_module m3, m5;
    resolution r3, r5;
    load("S_3", &m3);
    resolve(&r3, &m3, 40, 12);
    P = 3;
    lift_set set;
    if (lift_set_init(&set, &r3, &r3, "") != 0) bail("lift_set_init");
    add_basis(&set, &r3, 40, 12);
    /* a class of a 2-dimensional group: [1, 2] at (23, 5) */
    cls two = { 23, 5, res_ngens(&r3, 5, 28), { 1, 2 } };
    if (two.len != 2) bail("Ext^{5,28} is not 2-dimensional");
    int mtwo = lift_add_class(&set, 5, 28, two.v, 2);
    if (mtwo != nlifted) bail("lift_add_class [1,2]");
    if (lift_run(&set, &chain_serial) != 0) bail(set.fail.msg);

    long cases = 0, bad = 0;
    milnor_p_elt q0 = elt(1, 0), p1 = elt(0, 1), p3 = elt(0, 3);
    bad += filtration_one(&r3, &set, 0, &q0, &cases);
    bad += filtration_one(&r3, &set, 3, &p1, &cases);
    bad += filtration_one(&r3, &set, 11, &p3, &cases);
    ok(cases > 80 && nonzero_want > 40 && bad == 0, "p = 3: a0, h0, h1 products of %d lifts (levels 1 and s) equal "
       "the coefficients of Q_0, P(1), P(3) in the differentials (%ld cases, %ld non-zero, %ld differ)", nlifted, cases,
       nonzero_want, bad);
    commutativity_associativity(&r3, &set, "p = 3");

    /* linearity: the lift of [1, 2] against e_0 + 2 e_1, times every lifted basis class */
    int e0 = -1, e1 = -1;
    for (int k = 0; k < nlifted; k++)
        if (lifted[k].n == 23 && lifted[k].s == 5) {
            if (lifted[k].v[0]) e0 = k;
            else e1 = k;
        }
    long lin = 0, linbad = 0;
    lifted[nlifted] = two;
    for (int k = 0; k < nlifted; k++) {
        cls a = mul(&r3, &set, mtwo, lifted[k]), b0 = mul(&r3, &set, e0, lifted[k]), b1 = mul(&r3, &set, e1, lifted[k]);
        if (!a.len) continue;
        lin++;
        for (uint32_t c = 0; c < a.len; c++) linbad += a.v[c] != (b0.v[c] + 2 * b1.v[c]) % 3;
    }
    ok(lin > 5 && linbad == 0, "p = 3: the lift of [1, 2] at (23, 5) multiplies as e_0 + 2 e_1 (%ld products)", lin);

    int a0 = find_lifted(0, 1), h0 = find_lifted(3, 1), b0 = find_lifted(10, 2);
    long tower = 0;
    for (int s = 0; s < 12; s++) {
        cls y = { 0, s, 1, { 1 } };
        tower += !is_zero(mul(&r3, &set, a0, y));
    }
    ok(tower == 12, "p = 3: a0^s != 0 in stem 0 for s <= 12 (%ld of 12)", tower);
    cls a0b0 = mul(&r3, &set, a0, lifted[b0]), h0b0 = mul(&r3, &set, h0, lifted[b0]);
    ok(a0b0.len == 1 && !is_zero(a0b0), "p = 3: a0·b0 != 0 at (10, 3) (Toda's d2(h1) = a0 b0)");
    ok(h0b0.len == 1 && !is_zero(h0b0), "p = 3: h0·b0 != 0 at (13, 3) (α_1 β_1 != 0)");

    /* the StarPU DAG gives the same cells */
    char err[256];
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    lift_set dag;
    if (lift_set_init(&dag, &r3, &r3, "") != 0) bail("lift_set_init");
    for (int k = 0; k <= nlifted; k++)
        if (lift_add_class(&dag, set.maps[k].s0, set.maps[k].t0, set.maps[k].coords, set.maps[k].nclass) != k)
            bail("lift_add_class");
    int rc = lift_run(&dag, &rt_chain_runner);
    ok(rc == 0 && same_cells(&set, &dag), "p = 3: the StarPU DAG's maps equal the serial run's byte for byte");
    /* every step's f(d z) through the odd-p multiply tasks (cl_milnor_mul_p), then every step's
     * inline in its plan task (EXTFLOW_LIFT_INLINE_PAIRS): the serial run's cells either way */
    lift_set tasks, inl;
    if (lift_set_init(&tasks, &r3, &r3, "") != 0 || lift_set_init(&inl, &r3, &r3, "") != 0) bail("lift_set_init");
    for (int k = 0; k <= nlifted; k++)
        if (lift_add_class(&tasks, set.maps[k].s0, set.maps[k].t0, set.maps[k].coords, set.maps[k].nclass) != k ||
            lift_add_class(&inl, set.maps[k].s0, set.maps[k].t0, set.maps[k].coords, set.maps[k].nclass) != k)
            bail("lift_add_class");
    setenv("EXTFLOW_LIFT_INLINE_PAIRS", "0", 1);
    int rc_tasks = lift_run(&tasks, &rt_chain_runner);
    setenv("EXTFLOW_LIFT_INLINE_PAIRS", "18446744073709551615", 1);
    int rc_inl = lift_run(&inl, &rt_chain_runner);
    unsetenv("EXTFLOW_LIFT_INLINE_PAIRS");
    ok(rc_tasks == 0 && same_cells(&set, &tasks) && tasks.pairs == set.pairs && tasks.pairs > 0 && tasks.pairs_inline == 0,
       "p = 3: every step's f(d z) through the odd-p multiply tasks: the serial run's cells (%llu pairs, none inline)",
       (unsigned long long)tasks.pairs);
    ok(rc_inl == 0 && same_cells(&set, &inl) && inl.pairs_inline == set.pairs,
       "p = 3: every step's f(d z) inline in its plan task: the same cells");
    lift_set_clear(&tasks);
    lift_set_clear(&inl);
    lift_set_clear(&dag);
    rt_shutdown();

    uint8_t three[1] = { 3 };
    ok(lift_add_class(&set, 1, 1, three, 1) < 0, "p = 3: a class with a coordinate 3 is refused");
    /* a map with an extra term at odd p (what a Massey homotopy is): one adding nothing lifts
     * h0 with the homotopy's sign, h_i = (−1)^i f_i */
    lift_set ex;
    int calls = 0, mh0 = find_lifted(3, 1);
    long signed_seen = 0;
    if (lift_set_init(&ex, &r3, &r3, "") != 0 ||
        lift_add_map(&ex, set.maps[mh0].s0, set.maps[mh0].t0, set.maps[mh0].coords, set.maps[mh0].nclass,
                     "h0-homotopy-like", add_nothing, &calls) != 0)
        bail("lift_add_map");
    int ex_ok = lift_run(&ex, &chain_serial) == 0 && signed_cells(&ex, 0, &set, mh0, &signed_seen);
    ok(ex_ok && calls > 0 && signed_seen > 10, "p = 3: a map with an extra term adding nothing is (-1)^i times h0's lift (%ld cells, %d calls)",
       signed_seen, calls);
    lift_set_clear(&ex);
    lift_set_clear(&set);

    /* p = 5 */
    load("S_5", &m5);
    resolve(&r5, &m5, 90, 8);
    P = 5;
    if (lift_set_init(&set, &r5, &r5, "") != 0) bail("lift_set_init");
    add_basis(&set, &r5, 90, 8);
    if (lift_run(&set, &chain_serial) != 0) bail(set.fail.msg);
    cases = bad = nonzero_want = 0;
    q0 = elt(1, 0), p1 = elt(0, 1);
    bad += filtration_one(&r5, &set, 0, &q0, &cases);
    bad += filtration_one(&r5, &set, 7, &p1, &cases);
    ok(cases > 30 && nonzero_want > 15 && bad == 0, "p = 5: a0, h0 products of %d lifts equal the differentials' Q_0, "
       "P(1) coefficients (%ld cases, %ld non-zero, %ld differ)", nlifted, cases, nonzero_want, bad);
    commutativity_associativity(&r5, &set, "p = 5");
    /* a changed coefficient of h0's lift at a generator's unit is caught */
    int mx = find_lifted(7, 1);
    long seen = 0;
    for (int i = 1; i <= r5.max_s && !seen; i++)
        for (deg_t t = i; t - i <= r5.stem - 7 && !seen; t++) {
            size_t c = lift_cell(&set, i, t);
            fpmat *v = &set.maps[mx].val[c].fp;
            if (set.maps[mx].have[c] != 1 || !v->rows || !res_ngens(&r5, i, t)) continue;
            uint32_t col = (uint32_t)freemod_offset(&r5.F[i], t, t, 0);
            fpmat_set(v, 0, col, fpmat_get(v, 0, col) + 1);
            seen = 1;
        }
    cases = 0;
    bad = filtration_one(&r5, &set, 7, &p1, &cases);
    ok(seen && bad > 0, "p = 5: a changed coefficient in h0's lift is caught (%ld cases differ)", bad);
    lift_set_clear(&set);
    res_clear(&r3);
    res_clear(&r5);
    fdm_clear(&m3);
    fdm_clear(&m5);
    return done_testing();
}
