/* t-resolution-p.c — the resolution at an odd prime (stages/standard_p.h) against sseq's
 * tables: S_3 and C3 (over the profile that leaves Q_0 out) at p = 3, S_5 at p = 5, the module
 * files sseq ships (tests/ref/module-files/), every dim Ext^{s,t} of the region equal to the
 * `n,s,dim` lines of sseq's num_gens (tests/ref/oddprimes/num_gens-M-N-S, made by sseq's
 * standard algorithm, tests/ref/oddprimes/README.md). The region is smaller than the tables'
 * here (stem 40 at p = 3) so that the test stays short; tests/t-oddprimes.sh runs the CLI
 * through the tables' full regions. Then, on the same resolutions: d∘d = 0 at every bidegree
 * by one-by-one Milnor products mod p (independent of the plan's rows), and the check catches
 * changed entries; no generator has d = 0 (minimality); the serial runner and the StarPU
 * runner give the same generators byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/rt.h"
#include "stages/resolution_p.h"
#include "stages/step.h"
#include "tests/tap.h"

static int load(const char *path, fd_module *m)
{
    FILE *f = fopen(path, "rb");
    char buf[1 << 14], err[256];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    if (!n || fdm_parse(buf, n, m, err, sizeof err) != 0) {
        diag("%s: %s", path, n ? err : "cannot read");
        return -1;
    }
    return 0;
}

/* The reference's dims, ref[s * (N + 1) + n], for n <= N, s <= S; -1 where it has no line. */
static int *read_ref(const char *path, int N, int S)
{
    FILE *f = fopen(path, "r");
    int *ref = malloc(sizeof *ref * (size_t)(N + 1) * (size_t)(S + 1));
    char line[256];
    if (!f || !ref) bail("cannot read the reference table");
    for (int k = 0; k < (N + 1) * (S + 1); k++) ref[k] = -1;
    while (fgets(line, sizeof line, f)) {
        int n, s, d;
        if (sscanf(line, "%d,%d,%d", &n, &s, &d) == 3 && n <= N && s <= S) ref[s * (N + 1) + n] = d;
    }
    fclose(f);
    return ref;
}

static int resolve(resolution *res, fd_module *m, int stem, int max_s, int starpu)
{
    if (res_init(res, REGION_STEM, stem, max_s, 0, "", 0, ALG_STANDARD) != 0 || res_set_module(res, m, "M") != 0)
        bail("res_init");
    if (!starpu) {
        chain_set set = step_chain_set(res);
        return chain_run(&chain_serial, &set);
    }
    char err[256];
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    chain_policy quiet = { 0 };
    int rc = rt_resolve(res, &quiet);
    rt_shutdown();
    return rc;
}

static void check(const char *name, const char *table, int N, int S, int stem, int max_s)
{
    char path[256];
    fd_module m;
    snprintf(path, sizeof path, "tests/ref/module-files/%s.json", name);
    if (load(path, &m) != 0) bail("module file");
    resolution res, rt;
    int rc = resolve(&res, &m, stem, max_s, 0);
    ok(rc == 0 && res.prime == m.p, "%s: resolved at p = %u through stem %d, s <= %d (serial runner)%s%s", name, m.p,
       stem, max_s, rc ? ": " : "", rc ? res.error : "");
    int *ref = read_ref(table, N, S);
    long cells = 0, gens = 0, bad = 0;
    for (int s = 0; s <= max_s; s++)
        for (int n = 0; n <= stem; n++) {
            int want = ref[s * (N + 1) + n], have = (int)res_ngens(&res, s, n + s);
            cells++;
            gens += have;
            if (want != have && bad++ < 5) diag("%s: (n, s) = (%d, %d): %d generators, sseq has %d", name, n, s, have, want);
        }
    ok(bad == 0, "%s: dim Ext^{s,t} equals sseq's table at all %ld bidegrees (%ld classes)", name, cells, gens);
    long ddbad = 0, flipped = 0, caught = 0, zero = 0;
    for (int s = 1; s <= max_s; s++)
        for (deg_t t = s; t - s <= stem; t++) {
            ddbad += res_check_dd(&res, s, t) != 1;
            for (uint32_t i = 0; i < res_ngens(&res, s, t); i++) {
                fm_gen *g = &res.F[s].gens[t][i];
                uint8_t *img = (uint8_t *)g->img;
                uint32_t nz = 0;
                for (uint32_t k = 0; k < g->bits; k++) nz += img[k] != 0;
                zero += nz == 0;
                if (s < 2 || !g->bits) continue;
                uint32_t at = (uint32_t)((s * 7919u + (uint32_t)t * 104729u + i) % g->bits);
                img[at] = (uint8_t)((img[at] + 1) % m.p);
                caught += res_check_dd(&res, s, t) == 0;
                img[at] = (uint8_t)((img[at] + m.p - 1) % m.p);
                flipped++;
            }
        }
    ok(ddbad == 0 && zero == 0, "%s: d∘d = 0 at every bidegree, and no generator has d = 0", name);
    /* a changed entry adds e·x·h to d(g), still a cycle when x·d(h) = 0 (often at odd p) */
    ok(caught > 0, "%s: the d∘d check sees %ld of %ld one-entry changes", name, caught, flipped);
    rc = resolve(&rt, &m, stem, max_s, 1);
    long differ = rc != 0;
    for (int s = 0; s <= max_s && !differ; s++)
        for (deg_t t = s; t - s <= stem && !differ; t++) {
            uint32_t n = res_ngens(&res, s, t);
            differ |= n != res_ngens(&rt, s, t);
            for (uint32_t i = 0; i < n && !differ; i++)
                differ |= res.F[s].gens[t][i].bits != rt.F[s].gens[t][i].bits ||
                          memcmp(res.F[s].gens[t][i].img, rt.F[s].gens[t][i].img, res.F[s].gens[t][i].bits) != 0;
        }
    ok(!differ, "%s: the StarPU runner gives the same generators, byte for byte", name);
    free(ref);
    res_clear(&rt);
    res_clear(&res);
    fdm_clear(&m);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(15);
    check("S_3", "tests/ref/oddprimes/num_gens-S_3-60-20", 60, 20, 40, 20);
    check("C3", "tests/ref/oddprimes/num_gens-C3-60-20", 60, 20, 40, 20);
    check("S_5", "tests/ref/oddprimes/num_gens-S_5-100-15", 100, 15, 60, 15);
    return done_testing();
}
