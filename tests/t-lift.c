/* t-lift.c — products by lifting classes to chain maps (stages/products/lift.h), checked against
 * independent answers on the resolution of S_2 through stem 30, s <= 11 (both algorithms):
 *   - the h_j products of lifts of h0..h3 equal the coefficients read off the differentials
 *     (report_hj, the chart's lines), everywhere in the region;
 *   - their filtration_one text equals sseq's filtration_one-S_2 (n <= 10, s <= 5);
 *   - the relations of the sphere listed in the reference's products §7;
 *   - x·y = y·x for every pair of lifted classes, (x·y)·z = x·(y·z) for every triple;
 *   - the StarPU DAG (rt_chain_runner over lift_chain_set) gives the same maps bit for bit as a serial run, by default and
 *     with every step's f(d z) through the multiply codelet's tasks or inline (the knob
 *     EXTFLOW_LIFT_INLINE_PAIRS);
 *   - preimage_solve against the full quasi-inverse and the matrix of d itself, preimage_solve_cached
 *     (the kept quasi-inverses) against preimage_solve bit for bit, and the preimages through
 *     Nassau's signature blocks (preimage_by_signature) against the matrix of d. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/products/preimage.h"
#include "stages/products/products.h"
#include "stages/resolve/report.h"
#include "stages/resolve/step.h"
#include "tests/ref_products.h"
#include "tests/tap.h"

#define STEM 30
#define MAXS 11

/* The classes lifted: name, n, s, coordinates (a string of 0/1). */
static const struct { const char *name; int n, s; const char *v; } classes[] = {
    { "h0", 0, 1, "1" },  { "h1", 1, 1, "1" },  { "h2", 3, 1, "1" },  { "h3", 7, 1, "1" },
    { "c0", 8, 3, "1" },  { "Ph1", 9, 5, "1" }, { "d0", 14, 4, "1" }, { "e0", 17, 4, "1" },
    { "f0", 18, 4, "01" }, { "g", 20, 4, "1" },
};
#define NCLASSES ((int)(sizeof classes / sizeof *classes))

typedef struct cls {
    int n, s;
    uint32_t len;
    uint8_t v[64];
} cls;

static cls named(int m)
{
    cls c = { classes[m].n, classes[m].s, (uint32_t)strlen(classes[m].v), { 0 } };
    for (uint32_t k = 0; k < c.len; k++) c.v[k] = (uint8_t)(classes[m].v[k] - '0');
    return c;
}

static int find(const char *name)
{
    for (int m = 0; m < NCLASSES; m++)
        if (!strcmp(classes[m].name, name)) return m;
    bail(name);
    return -1;
}

static int in_region(int n, int s) { return s >= 0 && s <= MAXS && n >= 0 && n <= STEM; }

/* x·y with x the lifted class m; out.len = 0 when the product lies outside the region. */
static cls mul(const resolution *res, const lift_set *set, int m, cls y)
{
    cls x = named(m), p = { x.n + y.n, x.s + y.s, 0, { 0 } };
    if (!in_region(p.n, p.s) || !in_region(y.n, y.s)) return p;
    p.len = res_ngens(res, p.s, p.n + p.s);
    products_multiply(set, m, y.n, y.s, y.v, y.len, p.v, p.len);
    return p;
}

static int nonzero(cls c)
{
    for (uint32_t k = 0; k < c.len; k++)
        if (c.v[k]) return 1;
    return 0;
}

static int same(cls a, cls b) { return a.n == b.n && a.s == b.s && a.len == b.len && !memcmp(a.v, b.v, a.len); }

static cls basis(const resolution *res, int n, int s, uint32_t i)
{
    cls c = { n, s, res_ngens(res, s, n + s), { 0 } };
    c.v[i] = 1;
    return c;
}

/* sseq's filtration_one text (products §3.3) through (max_n, max_s), from the lifts of h0..h3. */
static char *filtration_one(const resolution *res, const lift_set *set, int max_n, int max_s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int n = 0; n <= max_n; n++)
        for (int s = 0; s < max_s; s++)
            for (int j = 0; j < 4; j++) {
                int t2 = n + s + (1 << j);
                if (t2 - s - 1 > max_n) break;
                uint32_t nz = res_ngens(res, s + 1, t2);
                if (!nz) continue;
                for (uint32_t y = 0; y < res_ngens(res, s, n + s); y++) {
                    fprintf(f, "h_%d x_(%d, %d, %u) = [", j, n, s, y);
                    for (uint32_t k = 0; k < nz; k++)
                        fprintf(f, "%s%d", k ? ", " : "", lift_product_bit(set, j, s, n + s, y, k));
                    fputs("]\n", f);
                }
            }
    fclose(f);
    return buf;
}


static void add_all(lift_set *set, const resolution *res)
{
    for (int m = 0; m < NCLASSES; m++) {
        cls c = named(m);
        if (lift_add_class(set, c.s, c.n + c.s, c.v, c.len) != m) bail("lift_add_class");
    }
    (void)res;
}

/* preimage_cache_prepare on its own thread, racing the step's preimage_solve_cached at the same
 * (i, t): either builds the quasi-inverse, the other waits for it or finds it. */
typedef struct prep_arg {
    preimage_cache *cache;
    const resolution *res;
    int i;
    deg_t t;
} prep_arg;
static void *prep_thread(void *p)
{
    prep_arg *a = p;
    preimage_cache_prepare(a->cache, a->res, a->i, a->t);
    return NULL;
}

/* preimage_solve against the full quasi-inverse and the matrix itself, on every (i, t), i >= 1,
 * through stem 20, s <= 6: for y = d(b_0), d(b_0) + d(b_last) (in the image) the solution x
 * satisfies x·D = y; for y = the first basis vector, preimage_solve says "not in the image"
 * exactly when the quasi-inverse leaves a remainder. The same for preimage_by_signature (where it
 * answers: *sig_cases; its disagreements in *sig_bad), and preimage_solve_cached's bits and answers
 * against preimage_solve's (its disagreements in *qi_bad), with a budget that keeps every
 * quasi-inverse, the same with each built ahead by preimage_cache_prepare on another thread at
 * the same time (also in *qi_bad), and with one of 8 KB, past which each step builds its own
 * and frees it (those disagreements in *small_bad). Returns preimage_solve's disagreements. */
static long check_solve(const resolution *res, long *cases, long *sig_cases, long *sig_bad, long *qi_bad,
                        long *small_bad)
{
    long bad = 0, solves = 0;
    preimage_cache *qc = preimage_cache_new(res), *small = preimage_cache_new(res), *ahead = preimage_cache_new(res);
    if (!qc || preimage_cache_keep_qis(qc, (uint64_t)1 << 30) != 0) bail("preimage_cache_keep_qis");
    if (!ahead || preimage_cache_keep_qis(ahead, (uint64_t)1 << 30) != 0) bail("preimage_cache_keep_qis");
    if (!small || preimage_cache_keep_qis(small, 8192) != 0) bail("preimage_cache_keep_qis");
    for (int i = 1; i <= 6; i++)
        for (deg_t t = i; t - i <= 20; t++) {
            row_build b = { 0 };
            uint32_t below = (uint32_t)freemod_dim(&res->F[i], t, t), top = res_ngens(res, i, t);
            uint32_t cols = (uint32_t)freemod_dim(&res->F[i - 1], t, t);
            if (below + top == 0 || cols == 0) continue;
            if (rb_append(&b, &res->F[i], &res->F[i - 1], &res->A, t, NULL, 0) != 0) bail("rb_append");
            b.nrows = below + top;
            if (rb_alloc(&b, cols) != 0) bail("rb_alloc");
            rb_multiply(&b, &res->A, 0, below);
            for (uint32_t k = 0; k < top; k++)   /* the new generators' rows: their images */
                for (uint32_t c = 0; c < cols && c < res->F[i].gens[t][k].bits; c++)
                    if (f2vec_get(res->F[i].gens[t][k].img, c)) f2mat_flip(&b.D, below + k, c);
            f2mat Y, X;
            if (f2mat_init(&Y, 3, cols) != 0) bail("f2mat_init");
            f2vec_xor(f2mat_row(&Y, 0), f2mat_row(&b.D, 0), f2vec_words(cols));
            f2vec_xor(f2mat_row(&Y, 1), f2mat_row(&b.D, 0), f2vec_words(cols));
            f2vec_xor(f2mat_row(&Y, 1), f2mat_row(&b.D, b.nrows - 1), f2vec_words(cols));
            f2mat_flip(&Y, 2, 0);
            preimage_qi qi;
            if (preimage_qi_compute(res, i, t, &qi) != 0) bail("preimage_qi_compute");
            uint64_t y2[f2vec_words(cols)], x2[f2vec_words(b.nrows)], z2[f2vec_words(b.nrows) + 1];
            memcpy(y2, f2mat_row(&Y, 2), sizeof y2);
            memset(x2, 0, sizeof x2);
            int e0_in_image = preimage_qi_apply(&qi, y2, x2, z2) == 0;
            preimage_qi_clear(&qi);
            uint32_t which = 99;
            Y.rows = 2;
            int rc = preimage_solve(res, i, t, &Y, &X, &which);
            f2mat Xq;                   /* the kept quasi-inverse's answer: the same bits */
            uint32_t qwhich = 99;
            int qrc = preimage_solve_cached(res, qc, i, t, &Y, &Xq, &qwhich);
            *qi_bad += qrc != rc || (rc == 0 && !f2mat_equal(&X, &Xq));
            if (qrc == 0) f2mat_clear(&Xq);
            qrc = preimage_solve_cached(res, small, i, t, &Y, &Xq, &qwhich);
            *small_bad += qrc != rc || (rc == 0 && !f2mat_equal(&X, &Xq));
            if (qrc == 0) f2mat_clear(&Xq);
            prep_arg pa = { ahead, res, i, t };
            pthread_t th;
            if (pthread_create(&th, NULL, prep_thread, &pa) != 0) bail("pthread_create");
            qrc = preimage_solve_cached(res, ahead, i, t, &Y, &Xq, &qwhich);
            pthread_join(th, NULL);
            preimage_cache_prepare(ahead, res, i, t);   /* built already: nothing */
            *qi_bad += qrc != rc || (rc == 0 && !f2mat_equal(&X, &Xq));
            if (qrc == 0) f2mat_clear(&Xq);
            for (uint32_t j = 0; rc == 0 && j < 2; j++) {   /* x_j · D = y_j */
                uint64_t acc[f2vec_words(cols)];
                memset(acc, 0, sizeof acc);
                for (uint32_t r = 0; r < b.nrows; r++)
                    if (f2mat_get(&X, j, r)) f2vec_xor(acc, f2mat_row(&b.D, r), f2vec_words(cols));
                bad += memcmp(acc, f2mat_row(&Y, j), sizeof acc) != 0;
            }
            bad += rc != 0;
            if (rc == 0) f2mat_clear(&X);
            rc = preimage_by_signature(res, NULL, i, t, &Y, &X);   /* the same through signature blocks */
            for (uint32_t j = 0; rc == 0 && j < 2; j++) {
                uint64_t acc[f2vec_words(cols)];
                memset(acc, 0, sizeof acc);
                for (uint32_t r = 0; r < b.nrows; r++)
                    if (f2mat_get(&X, j, r)) f2vec_xor(acc, f2mat_row(&b.D, r), f2vec_words(cols));
                *sig_bad += memcmp(acc, f2mat_row(&Y, j), sizeof acc) != 0;
            }
            *sig_bad += rc < 0;
            *sig_cases += rc == 0;
            if (rc == 0) f2mat_clear(&X);
            f2mat one = Y;
            one.rows = 1;
            one.data = f2mat_row(&Y, 2);
            rc = preimage_solve(res, i, t, &one, &X, &which);
            bad += (rc == 0) != e0_in_image || (rc == -2 && which != 0);
            qrc = preimage_solve_cached(res, qc, i, t, &one, &Xq, &qwhich);
            *qi_bad += qrc != rc || (rc == -2 && qwhich != 0) || (rc == 0 && !f2mat_equal(&X, &Xq));
            if (qrc == 0) f2mat_clear(&Xq);
            qrc = preimage_solve_cached(res, small, i, t, &one, &Xq, &qwhich);
            *small_bad += qrc != rc || (rc == -2 && qwhich != 0) || (rc == 0 && !f2mat_equal(&X, &Xq));
            if (qrc == 0) f2mat_clear(&Xq);
            solves += 2;
            if (rc == 0) f2mat_clear(&X);
            rc = preimage_by_signature(res, NULL, i, t, &one, &X);   /* never claims a y off the image */
            *sig_bad += rc < 0 || (rc == 0 && !e0_in_image);
            if (rc == 0) f2mat_clear(&X);
            Y.rows = 3;
            f2mat_clear(&Y);
            rb_clear(&b);
            *cases += 3;
        }
    preimage_qi_stats qs = preimage_cache_qi_stats(qc);
    *qi_bad += qs.built == 0 || qs.used != 2 * qs.built;   /* each (i, t) built once, applied by both solves */
    preimage_qi_stats as = preimage_cache_qi_stats(ahead);   /* the same, whoever built it: once */
    *qi_bad += as.built != qs.built || as.used != qs.built || as.over != 0 || as.bytes != qs.bytes;
    /* 8 KB: the first few kept, the rest each built for its step (none solved without) */
    preimage_qi_stats ss = preimage_cache_qi_stats(small);
    *small_bad += ss.built == 0 || ss.over == 0 || ss.bytes > 8192 || ss.used + ss.over + ss.missed != (uint64_t)solves ||
                  ss.used < 2 * ss.built;
    preimage_cache_free(qc);
    preimage_cache_free(small);
    preimage_cache_free(ahead);
    return bad;
}

/* An extra term that pushes y out of the image at row 2: Sq(R)·h0 (the first basis vector of
 * F_{1,t}) is never a cycle, since Sq(n)·Sq(1) != 0. */
static int off_image(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    (void)t, (void)k;
    if (i == 2) {
        ((uint64_t *)y)[0] ^= 1;
        ++*(int *)ctx;
    }
    return 0;
}

/* Cells where b's maps differ from a's (set or values); *cells (if given) = cells a has set. */
static long maps_differ(const lift_set *a, const lift_set *b, long *cells)
{
    long differ = 0, n = 0;
    for (int m = 0; m < a->nmaps; m++)
        for (size_t c = 0; c < a->ncells; c++) {
            n += a->maps[m].have[c];
            differ += a->maps[m].have[c] != b->maps[m].have[c] ||
                      (a->maps[m].have[c] && !fieldmat_equal(&a->maps[m].val[c], &b->maps[m].val[c]));
        }
    if (cells) *cells = n;
    return differ;
}

/* The same y with an extra term that adds nothing: the maps must equal the plain lift's. */
static int add_nothing(void *ctx, int i, deg_t t, uint32_t k, void *y)
{
    (void)i, (void)t, (void)k, (void)y;
    ++*(int *)ctx;
    return 0;
}

static void check(int algorithm, const char *name)
{
    resolution res;
    char err[256];
    if (res_init(&res, REGION_STEM, STEM, MAXS, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    if (res_run(&res, &rt_chain_runner) != 0) bail("res_run");
    lift_set set, dag;
    if (lift_set_init(&set, &res, &res, "") != 0 || lift_set_init(&dag, &res, &res, "") != 0) bail("lift_set_init");
    add_all(&set, &res);
    add_all(&dag, &res);
    int serial = lift_run(&set, &chain_serial);
    ok(serial == 0, "%s: lifts of %d classes through stem %d, s <= %d (%ld solves)", name, NCLASSES, STEM, MAXS, set.qis);
    int rc = lift_run(&dag, &rt_chain_runner);
    /* every step's multiply through cl_milnor_mul tasks, then every step's inline in its plan
     * task (EXTFLOW_LIFT_INLINE_PAIRS): the same maps as the serial run either way */
    lift_set chain, inl;
    if (lift_set_init(&chain, &res, &res, "") != 0 || lift_set_init(&inl, &res, &res, "") != 0) bail("lift_set_init");
    add_all(&chain, &res);
    add_all(&inl, &res);
    setenv("EXTFLOW_LIFT_INLINE_PAIRS", "0", 1);
    int rc_chain = lift_run(&chain, &rt_chain_runner);
    setenv("EXTFLOW_LIFT_INLINE_PAIRS", "18446744073709551615", 1);
    int rc_inl = lift_run(&inl, &rt_chain_runner);
    unsetenv("EXTFLOW_LIFT_INLINE_PAIRS");
    rt_shutdown();
    long cells = 0, differ = maps_differ(&set, &dag, &cells);
    ok(rc_chain == 0 && maps_differ(&set, &chain, NULL) == 0 && chain.pairs == set.pairs && chain.pairs > 0 &&
       chain.pairs_inline == 0, "%s: every step's f(d z) through multiply tasks: the serial run's maps (%llu pairs, "
       "none inline)", name, (unsigned long long)chain.pairs);
    ok(rc_inl == 0 && maps_differ(&set, &inl, NULL) == 0 && inl.pairs_inline == set.pairs && dag.pairs == set.pairs &&
       dag.pairs_inline <= dag.pairs, "%s: every step's inline: the same maps (by default %.0f%% of the pairs inline)",
       name, dag.pairs ? 100.0 * (double)dag.pairs_inline / (double)dag.pairs : 0.0);
    lift_set_clear(&chain);
    lift_set_clear(&inl);
    long cases = 0, sig_cases = 0, sig_bad = 0, qi_bad = 0, small_bad = 0,
         solve_bad = check_solve(&res, &cases, &sig_cases, &sig_bad, &qi_bad, &small_bad);
    ok(solve_bad == 0 && cases > 100, "%s: preimage_solve: x·D = y for y in the image, 'not in the image' exactly when "
       "the quasi-inverse says so (%ld cases)", name, cases);
    ok(qi_bad == 0, "%s: preimage_solve_cached (the kept quasi-inverse of each d_i) gives preimage_solve's bits "
       "and its 'not in the image' on the same cases, also with each built ahead (preimage_cache_prepare) on "
       "another thread at the same time: built once", name);
    ok(small_bad == 0, "%s: the same past an 8 KB budget, each step then building its own quasi-inverse and "
       "freeing it (the first kept)", name);
    ok(sig_bad == 0 && sig_cases > 50, "%s: preimage_by_signature: x·D = y for y in the image (%ld bidegrees by "
       "signature blocks), never an answer for a y off it", name, sig_cases);
    ok(rc == 0 && differ == 0 && cells > 0, "%s: the StarPU DAG gives the serial run's maps bit for bit (%ld cells)",
       name, cells);

    /* the extra term of lift_add_map (what a Massey homotopy uses), and the internal error */
    lift_set ex, off;
    int calls = 0, pushed = 0;
    uint8_t one = 1;
    if (lift_set_init(&ex, &res, &res, "") != 0 || lift_set_init(&off, &res, &res, "") != 0) bail("lift_set_init");
    if (lift_add_map(&ex, 1, 2, &one, 1, "h1-homotopy-like", add_nothing, &calls) != 0 ||
        lift_add_map(&off, 1, 1, &one, 1, "h0-pushed-off", off_image, &pushed) != 0)
        bail("lift_add_map");
    int same_maps = lift_run(&ex, &chain_serial) == 0 && calls > 0;
    for (size_t c = 0; same_maps && c < set.ncells; c++)
        same_maps = ex.maps[0].have[c] == set.maps[1].have[c] &&
                    (!ex.maps[0].have[c] || fieldmat_equal(&ex.maps[0].val[c], &set.maps[1].val[c]));
    ok(same_maps, "%s: a map with an extra term that adds nothing equals the lift of h1 (%d calls)", name, calls);
    ok(lift_run(&off, &chain_serial) != 0 && pushed > 0 && strstr(off.fail.msg, "internal error") &&
       strstr(off.fail.msg, "not in the image"), "%s: a y outside the image fails the lift: %s", name, off.fail.msg);
    lift_set_clear(&ex);
    lift_set_clear(&off);

    /* h_j products from the lifts against the differentials, j = 0..3 */
    long checked = 0, bad = 0;
    for (int j = 0; j < 4; j++)
        for (int s = 0; s < MAXS; s++)
            for (int n = 0; n + (1 << j) - 1 <= STEM; n++)
                for (uint32_t y = 0; y < res_ngens(&res, s, n + s); y++)
                    for (uint32_t k = 0; k < res_ngens(&res, s + 1, n + s + (1 << j)); k++) {
                        checked++;
                        bad += lift_product_bit(&set, j, s, n + s, y, k) != report_hj(&res, j, s, n + s, y, k);
                    }
    ok(bad == 0 && checked > 100, "%s: h0..h3 products of the lifts equal the differentials' (%ld coefficients, %ld "
       "differ)", name, checked, bad);
    char *text = filtration_one(&res, &set, 10, 5);
    ok(!strcmp(text, read_ref("filtration_one-S_2")), "%s: lifts of h0..h3 give sseq's filtration_one-S_2 (10, 5)",
       name);
    free(text);

    /* relations (reference products §7) */
    int h0 = find("h0"), h1 = find("h1"), h2 = find("h2"), h3 = find("h3"), c0 = find("c0"), d0 = find("d0"),
        e0 = find("e0"), f0 = find("f0"), g = find("g");
    cls H1 = named(h1), H2 = named(h2), H3 = named(h3), C0 = named(c0), D0 = named(d0),
        E0 = named(e0), F0 = named(f0), G = named(g);
    cls h1h1 = mul(&res, &set, h1, H1), h1cubed = mul(&res, &set, h1, h1h1);
    cls h0sq_h2 = mul(&res, &set, h0, mul(&res, &set, h0, H2));
    ok(nonzero(h1h1) && nonzero(h1cubed) && same(h1cubed, h0sq_h2) && !nonzero(mul(&res, &set, h1, h1cubed)),
       "%s: h1^2 != 0, h1^3 = h0^2 h2 != 0, h1^4 = 0", name);
    ok(!nonzero(mul(&res, &set, h0, H1)), "%s: h0 h1 = 0", name);
    cls h2cubed = mul(&res, &set, h2, mul(&res, &set, h2, H2)), h1sq_h3 = mul(&res, &set, h1, mul(&res, &set, h1, H3));
    ok(nonzero(h2cubed) && same(h2cubed, h1sq_h3), "%s: h2^3 = h1^2 h3 != 0", name);
    cls h0_3_h3 = mul(&res, &set, h0, mul(&res, &set, h0, mul(&res, &set, h0, H3)));
    ok(nonzero(h0_3_h3) && !nonzero(mul(&res, &set, h0, h0_3_h3)), "%s: h0^3 h3 != 0, h0^4 h3 = 0", name);
    ok(!nonzero(mul(&res, &set, h0, mul(&res, &set, h2, H2))) && !nonzero(mul(&res, &set, h1, mul(&res, &set, h2, H2))),
       "%s: h0 h2^2 = 0, h1 h2^2 = 0", name);
    ok(!nonzero(mul(&res, &set, h0, C0)) && nonzero(mul(&res, &set, h1, C0)) && !nonzero(mul(&res, &set, h2, C0)) &&
       !nonzero(mul(&res, &set, h1, mul(&res, &set, h1, C0))), "%s: h0 c0 = 0, h1 c0 != 0, h2 c0 = 0, h1^2 c0 = 0", name);
    cls c0sq = mul(&res, &set, c0, C0), h1sq_d0 = mul(&res, &set, h1, mul(&res, &set, h1, D0));
    ok(nonzero(c0sq) && same(c0sq, h1sq_d0), "%s: c0^2 = h1^2 d0 != 0", name);
    cls h2d0 = mul(&res, &set, h2, D0), h0e0 = mul(&res, &set, h0, E0);
    ok(nonzero(h2d0) && same(h2d0, h0e0), "%s: h2 d0 = h0 e0 != 0", name);
    cls h2e0 = mul(&res, &set, h2, E0), h0g = mul(&res, &set, h0, G);
    ok(nonzero(h2e0) && same(h2e0, h0g), "%s: h2 e0 = h0 g != 0", name);
    cls h1e0 = mul(&res, &set, h1, E0), h0f0 = mul(&res, &set, h0, F0);
    ok(nonzero(h1e0) && same(h1e0, h0f0) && !nonzero(mul(&res, &set, h0, basis(&res, 18, 4, 0))),
       "%s: h1 e0 = h0 f0 != 0, h0 x_(18,4,0) = 0", name);
    cls h0h3sq = mul(&res, &set, h0, mul(&res, &set, h3, H3));
    ok(nonzero(h0h3sq) && !nonzero(mul(&res, &set, h0, h0h3sq)), "%s: h0 h3^2 != 0, h0^2 h3^2 = 0", name);
    cls h1d0 = mul(&res, &set, h1, D0), h0_4_h4 = basis(&res, 15, 5, 0);
    ok(same(h1d0, basis(&res, 15, 5, 1)) && h0_4_h4.len == 2, "%s: h1 d0 = x_(15,5,1) in the 2-dimensional (15, 5)",
       name);

    /* commutativity on pairs, associativity on triples of lifted classes */
    long pairs = 0, bad_pairs = 0, triples = 0, bad_triples = 0;
    for (int a = 0; a < NCLASSES; a++)
        for (int b = 0; b < NCLASSES; b++) {
            cls ab = mul(&res, &set, a, named(b)), ba = mul(&res, &set, b, named(a));
            if (!ab.len) continue;
            pairs++;
            bad_pairs += !same(ab, ba);
            for (int c = 0; c < NCLASSES; c++) {
                cls ab_c = mul(&res, &set, c, ab), bc = mul(&res, &set, b, named(c)), a_bc = mul(&res, &set, a, bc);
                if (!ab_c.len || !a_bc.len) continue;
                triples++;
                bad_triples += !same(ab_c, a_bc);
            }
        }
    ok(bad_pairs == 0 && pairs > 20, "%s: x·y = y·x for the %ld pairs of lifted classes in range", name, pairs);
    ok(bad_triples == 0 && triples > 20, "%s: (x·y)·z = x·(y·z) for the %ld triples in range", name, triples);
    lift_set_clear(&set);
    lift_set_clear(&dag);
    res_clear(&res);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(2 * 26);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    return done_testing();
}
