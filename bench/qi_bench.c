/* qi_bench.c — store or recompute the quasi-inverses products need? (issue 11, item 2)
 *
 * Loads a resolved directory (run.json's complete region) and, for every target bidegree
 * (i, t), i >= 1, of the region, builds the quasi-inverse of d_i there as the lift sets of
 * `d2 --product` and `massey --secondary` keep it (preimage_qi_compute: a row echelon form of
 * [D_rev^T | I] from the stored differentials, docs/algorithms.md §3.4), timing it, and
 * measures what storing it would cost: its matrix q as one zstd stage file, and the CPU
 * time to decode that file from memory (reading it from disk comes on top); and the CPU time of
 * what a lift's step does instead of building the QI, one preimage_solve. Two totals: every QI of the region, and the QIs the lifts of h0..h3,
 * c0, d0 and g need (those (i, t) where a source generator exists at (s0 + i, t + t0)). The
 * differentials' own stage files are summed for scale.
 * Times are CPU seconds of this one thread (the machine may be shared).
 * Usage: qi_bench DIR [MAX_MB]   (QIs whose matrix would exceed MAX_MB, default 4096, are skipped
 *        and counted). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "stages/products/lift.h"
#include "stages/out/manifest.h"
#include "stages/resolve/report.h"
#include "stages/store/stagefile.h"
#include "bench/bench.h"

/* CPU time: the VM is shared */
static double now(void) { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/* Storing the QI: its matrix q as one stage file (the pivots add 4 bytes a row). Returns
 * the file's bytes; *decode_s gets the CPU time to read it back from memory (stage_decode). */
static uint64_t stored_bytes(const preimage_qi *qi, double *decode_s)
{
    f2mat back;
    const f2mat pre = qi->q;
    *decode_s = 0;
    stage_header h = { .kind = STAGE_MATRIX }, h2;
    void *buf = NULL;
    size_t len = 0;
    uint64_t bytes = stage_encode(&h, &pre, &buf, &len, NULL, 0) == STAGE_OK ? len + 4ull * qi->rank : 0;
    double a = now();
    if (bytes && stage_decode("qi", buf, len, &h2, &back, NULL, 0) == STAGE_OK) f2mat_clear(&back);
    *decode_s = now() - a;
    free(buf);
    return bytes;
}

static uint64_t dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    uint64_t sum = 0;
    char path[4600];
    struct stat st;
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) sum += (uint64_t)st.st_size;
    }
    if (d) closedir(d);
    return sum;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: qi_bench DIR [MAX_MB]\n");
        return 2;
    }
    const char *dir = argv[1];
    double max_mb = argc > 2 ? atof(argv[2]) : 4096;
    char err[4300];
    run_manifest m;
    if (manifest_read(dir, &m, err, sizeof err) != 0) {
        fprintf(stderr, "qi_bench: %s: no readable run.json\n", dir);
        return 1;
    }
    resolution res;
    const run_region *r = &m.complete;
    if (res_init(&res, r->kind, r->stem, r->max_s, r->kind == REGION_RECT ? r->max_t : 0, dir, 0, m.algorithm) != 0)
        return 1;
    res.load_action = NULL;
    double t0 = now();
    res_load_stages(&res);
    double load_s = now() - t0;
    static const int cls[][2] = { { 0, 1 }, { 1, 1 }, { 3, 1 }, { 7, 1 }, { 8, 3 }, { 14, 4 }, { 20, 4 } };
    long n_all = 0, n_need = 0, skipped = 0;
    double s_all = 0, s_need = 0, worst = 0, d_all = 0, d_need = 0, v_all = 0, v_need = 0;
    uint64_t b_all = 0, b_need = 0, big_rows = 0, big_cols = 0;
    for (deg_t t = 1; t <= res.max_t; t++)
        for (int i = 1; i <= res.max_s && i <= t; i++) {
            if (!res_is_done(&res, i, t)) continue;
            int need = 0;
            for (size_t c = 0; c < sizeof cls / sizeof *cls && !need; c++) {
                int s0 = cls[c][1];
                deg_t T = t + cls[c][0] + s0;
                need = res_is_done(&res, s0 + i, T) && res_ngens(&res, s0 + i, T) > 0;
            }
            uint64_t rows = freemod_dim(&res.F[i], t, t + 1), cols = freemod_dim(&res.F[i - 1], t, t);
            double mb = (double)rows * (double)(((cols + 63) / 64 + rows / 64 + 16) * 8) / 1048576.0;
            if (mb > max_mb) {
                skipped++;
                continue;
            }
            preimage_qi qi;
            double a = now();
            if (preimage_qi_compute(&res, i, t, &qi) != 0) {
                fprintf(stderr, "qi_bench: out of memory at (%d, %d)\n", i, (int)t);
                return 1;
            }
            double dt = now() - a;
            double dec;
            uint64_t bytes = stored_bytes(&qi, &dec);
            preimage_qi_clear(&qi);
            f2mat Y, X;          /* what a lift's step does instead: one solve (here of y = 0) */
            uint32_t bad;
            double b0 = now();
            if (f2mat_init(&Y, 1, (uint32_t)cols) != 0 || preimage_solve(&res, i, t, &Y, &X, &bad) != 0) {
                fprintf(stderr, "qi_bench: out of memory at (%d, %d)\n", i, (int)t);
                return 1;
            }
            double sv = now() - b0;
            f2mat_clear(&X);
            f2mat_clear(&Y);
            n_all++, s_all += dt, b_all += bytes, d_all += dec, v_all += sv;
            if (need) n_need++, s_need += dt, b_need += bytes, d_need += dec, v_need += sv;
            if (dt > worst) worst = dt, big_rows = rows, big_cols = cols;
        }
    char ddir[4200];
    snprintf(ddir, sizeof ddir, "%s/stages/differential", dir);
    printf("dir %s: %s, region %s%d, s <= %d; loading the differentials %.2f s, their files %.2f MB\n", dir,
           stage_algorithm_name(m.algorithm), r->kind == REGION_STEM ? "stem " : "t <= ",
           r->kind == REGION_STEM ? r->stem : r->max_t, r->max_s, load_s, (double)dir_bytes(ddir) / 1e6);
    printf("every QI (i >= 1):  %6ld QIs, recompute %8.2f CPU s, stored (zstd) %9.1f MB, decoding them %6.2f CPU s, "
           "one solve each instead %6.2f CPU s\n", n_all, s_all, (double)b_all / 1e6, d_all, v_all);
    printf("needed by 7 lifts:  %6ld QIs, recompute %8.2f CPU s, stored (zstd) %9.1f MB, decoding them %6.2f CPU s, "
           "one solve each instead %6.2f CPU s\n", n_need, s_need, (double)b_need / 1e6, d_need, v_need);
    printf("slowest QI: %.2f CPU s (%llu x %llu); skipped (over %.0f MB): %ld\n", worst, (unsigned long long)big_rows,
           (unsigned long long)big_cols, max_mb, skipped);
    res_clear(&res);
    return 0;
}
