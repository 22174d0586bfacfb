/* f2mat_bench.c — RREF timings: f2mat's methods (copy through M4RI included), our own M4RM
 * (f2mat_m4rm.c), M4RI's raw echelonizers on an mzd_t (no copy), and the copy in/out alone.
 * Times in milliseconds, median of the runs shown.
 * Usage: f2mat_bench [quick]   full table (quick skips 16384^2)
 *        f2mat_bench own       the docs/perf-log.md table: resolution-like [D | 0 | I] and more,
 *                              own M4RM vs M4RI
 *        f2mat_bench tune k groups tile rowblock [...]   the own routine with those
 *                              parameters (0 = default) on those shapes
 *        f2mat_bench once ROWS COLS DENS   one [D | I], D random ROWS x COLS with 1/2^DENS
 *                              of its bits set (0: half), reduced once by the own routine;
 *                              prints its rank and a hash of the result (for callgrind:
 *                              --toggle-collect=f2mat_rref_m4rm_tuned, docs/perf-log.md)
 *        f2mat_bench team ROWS COLS DENS N...   [D | 0 | I] by our M4RM alone (N = 1) and with
 *                              a team of N threads (team_with_threads), median of REPS (5)
 *        f2mat_bench stage FILE...   each matrix stage file D (resolve --keep-stages matrix)
 *                              reduced alone and as [D | 0 | I] (reps: REPS, default 3) */
#include "algebra/f2mat.h"
#include "stages/store/stagefile.h"
#include "bench/bench.h"

#include <m4ri/m4ri.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rs = 0x853c49e6748fea9bULL;
/* splitmix64: xorshift alone is F2-linear, which caps the rank of the matrices it makes */
static uint64_t rnd(void)
{
    uint64_t z = (rs += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double now_ms(void) { return 1e3 * clock_now(); }

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* dens: 1/2^dens_log2 of the bits set (0 = uniform). rank_k > 0: product of thin factors. */
static void make(f2mat *m, uint32_t rows, uint32_t cols, int dens_log2, uint32_t rank_k)
{
    if (f2mat_init(m, rows, cols)) exit(1);
    size_t w = f2vec_words(cols);
    uint64_t tail = cols % 64 ? (1ULL << (cols % 64)) - 1 : ~0ULL;
    if (rank_k) {
        f2mat f;
        make(&f, rank_k, cols, dens_log2, 0);
        for (uint32_t i = 0; i < rows; i++)
            for (uint32_t k = 0; k < rank_k; k++)
                if (rnd() & 1) f2vec_xor(f2mat_row(m, i), f2mat_row(&f, k), w);
        f2mat_clear(&f);
        return;
    }
    for (uint32_t i = 0; i < rows; i++) {
        uint64_t *r = f2mat_row(m, i);
        for (size_t k = 0; k < w; k++) {
            uint64_t x = rnd();
            for (int d = 0; d < dens_log2; d++) x &= rnd();
            r[k] = x;
        }
        r[w - 1] &= tail;
    }
}

static mzd_t *to_mzd(const f2mat *m)
{
    mzd_t *A = mzd_init((rci_t)m->rows, (rci_t)m->cols);
    for (uint32_t i = 0; i < m->rows; i++)
        memcpy(mzd_row(A, (rci_t)i), f2mat_row(m, i), (size_t)A->width * 8);
    return A;
}

enum { V_AUTO, V_NAIVE, V_M4RI, V_PLUQ, V_ECH, V_OWN, V_RAW_M4RI, V_RAW_PLUQ, V_RAW_ECH, V_COPY, NV };
static const char *vname[NV] = { "auto", "naive", "m4ri", "pluq", "echelonize", "own",
                                 "raw m4ri", "raw pluq", "raw ech", "copy only" };
static int tune_k, tune_g, tune_tile, tune_rb;   /* for V_OWN; 0 = default */

/* One timed run of variant v on a fresh copy of src. */
static double run_once(const f2mat *src, int v, int *rank)
{
    f2mat m;
    int32_t *piv = malloc(((size_t)src->cols + 1) * sizeof *piv);
    double t0, t1;
    if (v <= V_OWN) {
        static const enum f2_rref_method meth[] = { F2_RREF_AUTO, F2_RREF_NAIVE, F2_RREF_M4RI, F2_RREF_PLUQ,
                                                    F2_RREF_ECHELONIZE, F2_RREF_OWN };
        if (f2mat_copy(&m, src)) exit(1);
        t0 = now_ms();
        *rank = v == V_OWN ? f2mat_rref_m4rm_tuned(&m, piv, tune_k, tune_g, tune_tile, tune_rb)
                           : f2mat_rref_with(&m, piv, meth[v]);
        t1 = now_ms();
        f2mat_clear(&m);
    } else if (v == V_COPY) {
        if (f2mat_copy(&m, src)) exit(1);
        t0 = now_ms();
        mzd_t *A = to_mzd(&m);
        for (uint32_t i = 0; i < m.rows; i++)
            memcpy(f2mat_row(&m, i), mzd_row(A, (rci_t)i), (size_t)A->width * 8);
        mzd_free(A);
        t1 = now_ms();
        f2mat_clear(&m);
        *rank = -1;
    } else {
        mzd_t *A = to_mzd(src);
        t0 = now_ms();
        *rank = v == V_RAW_M4RI ? mzd_echelonize_m4ri(A, 1, 0)
              : v == V_RAW_PLUQ ? mzd_echelonize_pluq(A, 1) : mzd_echelonize(A, 1);
        t1 = now_ms();
        mzd_free(A);
    }
    free(piv);
    return t1 - t0;
}

/* Median over `reps` runs, or, when reps == 0, enough runs to fill ~50 ms. */
static double timeit(const f2mat *src, int v, int reps, int *rank)
{
    double ts[256];
    int n = 0;
    double total = 0;
    do {
        ts[n] = run_once(src, v, rank);
        total += ts[n++];
    } while (n < 256 && (reps ? n < reps : (total < 50 || n < 5)));
    qsort(ts, (size_t)n, sizeof ts[0], cmpd);
    return ts[n / 2];
}

static double scale = 1;   /* 1: ms, 1000: us */
static void row_of(const char *label, f2mat *a_, int reps, unsigned mask);
static void row(const char *label, uint32_t r, uint32_t c, int dens, uint32_t k, int reps,
                unsigned mask)
{
    f2mat a;
    make(&a, r, c, dens, k);
    row_of(label, &a, reps, mask);
}

/* [D | 0 | I] for an n x mc matrix D with 1/2^dens_log2 of its bits set. */
static void make_aug(f2mat *aug, uint32_t n, uint32_t mc, int dens_log2)
{
    f2mat d;
    make(&d, n, mc, dens_log2, 0);
    if (f2mat_augment_identity(aug, &d)) exit(1);
    f2mat_clear(&d);
}

static void row_of(const char *label, f2mat *a_, int reps, unsigned mask)
{
    f2mat a = *a_;
    uint32_t r = a.rows, c = a.cols;
    int rank = -1;
    printf("%-14s %6ux%-7u", label, r, c);
    fflush(stdout);
    for (int v = 0; v < NV; v++) {
        if (!(mask >> v & 1)) { printf(" %11s", "-"); continue; }
        int rk;
        double t = timeit(&a, v, reps, &rk);
        if (rk >= 0) rank = rk;
        printf(" %11.3f", t * scale);
        fflush(stdout);
    }
    printf("  %6d\n", rank);
    f2mat_clear(&a);
}

/* The shapes of docs/perf-log.md's "own M4RM vs M4RI" table. */
static void own_shapes(unsigned mask, int reps)
{
    static const uint32_t res[][2] = { { 1000, 800 }, { 3000, 2500 }, { 8000, 7000 }, { 15000, 13000 } };
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        for (int dens = 2; dens <= 3; dens++) {   /* density 1/4, 1/8 */
            f2mat a;
            char label[32];
            make_aug(&a, res[i][0], res[i][1], dens);
            snprintf(label, sizeof label, "[D|0|I] d=1/%d", 1 << dens);
            row_of(label, &a, res[i][0] >= 15000 ? (reps > 3 ? 3 : reps) : reps, mask);
        }
    row("dense", 4096, 4096, 0, 0, reps, mask);
    row("dense", 8192, 8192, 0, 0, reps > 3 ? 3 : reps, mask);
    row("nassau-flat", 128, 100000, 0, 0, reps, mask);
    row("nassau-sparse", 128, 100000, 3, 0, reps, mask);
    row("resol-lowrank", 3000, 6000, 2, 1200, reps, mask);
    row("flat", 512, 20000, 0, 0, reps, mask);
}

static void print_header(void)
{
    printf("%-14s %14s", "shape", "rows x cols");
    for (int v = 0; v < NV; v++) printf(" %11s", vname[v]);
    printf("  %6s\n", "rank");
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "quick");
    if (argc > 1 && !strcmp(argv[1], "own")) {
        const unsigned m = 1u << V_AUTO | 1u << V_M4RI | 1u << V_PLUQ | 1u << V_OWN | 1u << V_RAW_M4RI
                         | 1u << V_RAW_PLUQ;
        printf("# RREF times in ms (median of 5, 3 for the largest). own = f2mat_rref_m4rm;\n"
               "# m4ri/pluq include f2mat's copy into/out of M4RI; raw = on a ready mzd_t.\n");
        print_header();
        own_shapes(m, 5);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "tune")) {
        /* tune [k groups tile rowblock]...: each quadruple a setting (0 = default), all shapes */
        for (int i = 2; i + 3 < argc; i += 4) {
            tune_k = atoi(argv[i]);
            tune_g = atoi(argv[i + 1]);
            tune_tile = atoi(argv[i + 2]);
            tune_rb = atoi(argv[i + 3]);
            printf("# k=%d groups=%d tile=%d rowblock=%d\n", tune_k, tune_g, tune_tile, tune_rb);
            own_shapes(1u << V_OWN, 3);
        }
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "once")) {
        f2mat d, aug;
        make(&d, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), atoi(argv[4]), 0);
        if (f2mat_augment_identity(&aug, &d)) return 1;
        int rank = f2mat_rref_m4rm(&aug, NULL);
        uint64_t h = 0;
        for (uint32_t i = 0; i < aug.rows; i++)
            for (size_t w = 0; w < f2vec_words(aug.cols); w++) h = h * 31 + f2mat_row(&aug, i)[w];
        printf("rank %d hash %016llx\n", rank, (unsigned long long)h);
        return 0;
    }
    if (argc >= 6 && !strcmp(argv[1], "team")) {
        /* [D | 0 | I] with D random ROWS x COLS (1/2^DENS of its bits), reduced by our M4RM
         * alone and with a team of each size named (team_with_threads): median ms of REPS, the
         * result's hash (equal for every size), the items the members took */
        int reps = getenv("REPS") ? atoi(getenv("REPS")) : 5;
        f2mat d, aug;
        make(&d, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), atoi(argv[4]), 0);
        printf("# [D | 0 | I], D %s x %s, density 1/2^%s: ms (median of %d)\n", argv[2], argv[3], argv[4], reps);
        printf("%8s %10s %18s %12s\n", "threads", "ms", "hash", "member items");
        for (int a = 5; a < argc; a++) {
            int n = atoi(argv[a]), rank = 0;
            double ts[64];
            uint64_t h = 0, items = 0;
            for (int r = 0; r < reps && r < 64; r++) {
                if (f2mat_augment_identity(&aug, &d)) return 1;
                team *tm = n > 1 ? team_with_threads((uint32_t)n) : NULL;
                double t0 = now_ms();
                rank = f2mat_rref_m4rm_team(&aug, NULL, tm);
                ts[r] = now_ms() - t0;
                if (tm) items += team_member_items(tm);
                team_stop_threads(tm);
                h = 0;
                for (uint32_t i = 0; i < aug.rows; i++)
                    for (size_t w = 0; w < f2vec_words(aug.cols); w++) h = h * 31 + f2mat_row(&aug, i)[w];
                f2mat_clear(&aug);
            }
            qsort(ts, (size_t)reps, sizeof *ts, cmpd);
            printf("%8d %10.1f %018llx %12llu  (rank %d)\n", n, ts[reps / 2], (unsigned long long)h,
                   (unsigned long long)items, rank);
        }
        f2mat_clear(&d);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "stage")) {
        const unsigned m = 1u << V_AUTO | 1u << V_M4RI | 1u << V_PLUQ | 1u << V_OWN;
        int reps = getenv("REPS") ? atoi(getenv("REPS")) : 3;
        printf("# RREF times in ms (median of %d) of stage files' matrices D and of [D | 0 | I]\n", reps);
        print_header();
        for (int i = 2; i < argc; i++) {
            stage_header h;
            f2mat d, aug;
            char err[1200], label[32];
            if (stage_read(argv[i], &h, &d, err, sizeof err) != STAGE_OK) {
                fprintf(stderr, "f2mat_bench: %s\n", err);
                return 2;
            }
            printf("# %s\n", argv[i]);
            if (f2mat_augment_identity(&aug, &d)) return 1;
            snprintf(label, sizeof label, "D (%d,%d)", h.s, (int)h.t);
            row_of(label, &d, reps, m);
            row_of("[D|0|I]", &aug, reps, m);
        }
        return 0;
    }
    const unsigned ALL = (1u << NV) - 1, NO_NAIVE = ALL & ~(1u << V_NAIVE);
    printf("# RREF times in ms (median). f2mat variants include the copy into/out of M4RI;\n"
           "# 'raw' = M4RI echelonize on a ready mzd_t; 'copy only' = that copy overhead.\n");
    print_header();

    row("dense", 4096, 4096, 0, 0, 3, ALL);
    row("dense", 6144, 6144, 0, 0, 3, NO_NAIVE);
    row("dense", 8192, 8192, 0, 0, 1, NO_NAIVE);
    row("dense-wide", 6144, 16384, 0, 0, 1, NO_NAIVE);
    if (!quick) row("dense", 16384, 16384, 0, 0, 1, NO_NAIVE & ~(1u << V_ECH) & ~(1u << V_RAW_ECH));
    row("nassau-flat", 128, 100000, 0, 0, 5, ALL);
    row("nassau-sparse", 128, 100000, 3, 0, 5, ALL);
    row("resol", 3000, 6000, 0, 0, 3, ALL);
    row("resol-sparse", 3000, 6000, 4, 0, 3, ALL);
    row("resol-lowrank", 3000, 6000, 2, 1200, 3, ALL);

    printf("# small shapes, times in MICROseconds (cutoff for f2mat_rref's naive path)\n");
    scale = 1000;
    static const uint32_t small_rows[] = { 4, 8, 16, 24, 32, 48, 64, 96, 128 };
    static const uint32_t small_cols[] = { 0, 256, 1000, 4000, 10000 };   /* 0 = square */
    const unsigned SMALL = 1u << V_AUTO | 1u << V_NAIVE | 1u << V_M4RI | 1u << V_RAW_M4RI | 1u << V_COPY;
    for (size_t i = 0; i < sizeof small_rows / sizeof *small_rows; i++)
        for (size_t j = 0; j < sizeof small_cols / sizeof *small_cols; j++) {
            uint32_t r = small_rows[i], c = small_cols[j] ? small_cols[j] : r;
            row("small", r, c, 0, 0, 0, SMALL);
        }
    return 0;
}
