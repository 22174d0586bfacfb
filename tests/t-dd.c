/* t-dd.c — d∘d = 0 on every generator of the resolution of S_2 through stem 30, checked by
 * one-by-one Milnor products (independent of the batched codelet that built the resolution),
 * and every new generator's differential is a cycle that is not a boundary (minimality); the
 * batched check verify runs (res_check_dd_batch) agrees with it, also where one bit of a
 * differential is flipped. Over a profile (tmf2, over A(2)): res_init_module builds B's basis
 * alone, never A's, and gives the resolution that res_init (A's basis, replaced by B's in
 * res_set_module) gives, generator for generator, with the memory account's Milnor tables at
 * B's size and back to zero after res_clear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/memacct.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/resolve/step.h"
#include "tests/tap.h"

static void check(int algorithm, const char *name)
{
    resolution res;
    char err[256];
    if (res_init(&res, REGION_STEM, 30, 17, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    int rc = res_run(&res, &rt_chain_runner);
    rt_shutdown();
    ok(rc == 0, "%s: resolution through stem 30, s <= 17", name);
    long bidegrees = 0, gens = 0, bad = 0;
    for (int s = 2; s <= res.max_s; s++)
        for (deg_t t = s; t - s <= 30; t++) {
            bidegrees++;
            gens += res_ngens(&res, s, t);
            if (res_check_dd(&res, s, t) != 1) {
                bad++;
                diag("d∘d != 0 at (s, t) = (%d, %d)", s, t);
            }
        }
    ok(bad == 0, "%s: d∘d = 0 at all %ld bidegrees with s >= 2 (%ld generators)", name, bidegrees, gens);
    /* the batched check (verify's) agrees, on the resolution and with one bit of a d(g) flipped */
    long differ = 0, flipped = 0, caught = 0;
    for (int s = 2; s <= res.max_s; s++)
        for (deg_t t = s; t - s <= 30; t++) {
            differ += res_check_dd_batch(&res, s, t) != 1;
            for (uint32_t i = 0; i < res_ngens(&res, s, t); i++) {
                fm_gen *g = &res.F[s].gens[t][i];
                uint32_t bit = (uint32_t)((s * 7919u + (uint32_t)t * 104729u + i) % g->bits);
                f2vec_flip(g->img, bit);
                int one = res_check_dd(&res, s, t), batch = res_check_dd_batch(&res, s, t);
                f2vec_flip(g->img, bit);
                flipped++;
                caught += !one;
                if (one != batch) {
                    differ++;
                    diag("(s, t) = (%d, %d), generator %u, bit %u flipped: one-by-one %d, batched %d", s, t, i, bit,
                         one, batch);
                }
            }
        }
    ok(differ == 0 && caught > flipped / 2, "%s: the batched check agrees everywhere, and on %ld one-bit changes "
       "(%ld of them not cycles)", name, flipped, caught);
    /* d(g) != 0 for every generator with s >= 1 (a zero differential would not be minimal) */
    long zero = 0;
    for (int s = 1; s <= res.max_s; s++)
        for (deg_t t = s; t - s <= 30; t++)
            for (uint32_t i = 0; i < res_ngens(&res, s, t); i++) {
                const fm_gen *g = &res.F[s].gens[t][i];
                zero += f2vec_is_zero(g->img, f2vec_words(g->bits));
            }
    ok(zero == 0, "%s: no generator has d = 0", name);
    res_clear(&res);
}

#define PSTEM 40

/* tmf2 through stem PSTEM (StarPU's CPU workers: multiply tasks are CPU-only over B), its tables built for the module (whole: by
 * res_init, A's basis first); the Milnor tables' bytes in the account after set-up. */
static void resolve_tmf2(resolution *res, fd_module *m, int whole, int64_t *milnor_bytes)
{
    int rc = whole ? res_init(res, REGION_STEM, PSTEM, PSTEM / 2 + 2, 0, "", 0, ALG_STANDARD)
                   : res_init_module(res, REGION_STEM, PSTEM, PSTEM / 2 + 2, 0, "", 0, ALG_STANDARD, m);
    if (rc != 0 || res_set_module(res, m, "tmf2") != 0) bail("res_init tmf2");
    *milnor_bytes = memacct_current(MEM_MILNOR);
    char err[256];
    if (rt_init_cpu(0, err, sizeof err) != 0) bail(err);
    rc = res_run(res, &rt_chain_runner);
    rt_shutdown();
    if (rc != 0) bail(res->error);
}

static void check_profile(void)
{
    char buf[1 << 14], err[256];
    FILE *f = fopen("modules/tmf2.json", "rb");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    fd_module m;
    if (!n || fdm_parse(buf, n, &m, err, sizeof err) != 0 || !m.has_profile) bail("modules/tmf2.json");
    resolution a, b;
    int64_t bytes_a, bytes_b, before = memacct_current(MEM_MILNOR);
    resolve_tmf2(&a, &m, 1, &bytes_a);
    resolve_tmf2(&b, &m, 0, &bytes_b);
    bytes_b -= bytes_a;
    int64_t want = (int64_t)milnor_basis_bytes(b.A.max_degree, &m.A.profile);
    long differ = !milnor_profile_equal(&a.A.profile, &b.A.profile) || a.A.max_degree != b.A.max_degree, gens = 0;
    for (deg_t d = 0; d <= a.A.max_degree && !differ; d++)
        differ += a.A.dim[d] != b.A.dim[d] || memcmp(a.A.elts[d], b.A.elts[d], a.A.dim[d] * sizeof(milnor_elt)) != 0;
    for (int s = 0; s <= a.max_s && !differ; s++)
        for (deg_t t = s; t - s <= PSTEM; t++)
            for (uint32_t i = 0; i < res_ngens(&a, s, t); i++, gens++) {
                const fm_gen *g = &a.F[s].gens[t][i], *h = &b.F[s].gens[t][i];
                differ += res_ngens(&b, s, t) != res_ngens(&a, s, t) || g->bits != h->bits ||
                          memcmp(g->img, h->img, f2vec_words(g->bits) * sizeof *g->img) != 0;
            }
    ok(differ == 0 && gens > 0, "tmf2: A(2)'s basis built alone gives A(2)'s basis built after A's and the same "
       "%ld generators", gens);
    ok(bytes_a - before == want && bytes_b == want && b.A.seq_g == NULL,
       "tmf2: the memory account holds A(2)'s tables (%lld bytes), either way, and no seqno table of A",
       (long long)want);
    res_clear(&a);
    res_clear(&b);
    ok(memacct_current(MEM_MILNOR) == before, "tmf2: the account's Milnor tables back to where they were");
    fdm_clear(&m);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(11);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    check_profile();
    return done_testing();
}
