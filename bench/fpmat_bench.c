/* fpmat_bench.c — the F_p row reductions side by side: fpmat_rref_naive (Gauss-Jordan, the
 * reference), fpmat_rref_m4rm (our table method, what fpmat_rref runs), FLINT's
 * nmod_mat_rref and fpmat_rref_split (the kernel's part only), on two kinds of input:
 *
 *   fpmat_bench [REPS [MAXDIM]]
 *       random matrices, every entry non-zero (100) or 30% non-zero, of fixed shapes up to
 *       MAXDIM (default 3000); "+I" is [A | 0 | I] as the kernel needs it.
 *   fpmat_bench resolution MODULE STEM MAX_S [REPS [TARGETS]]
 *       the matrices an odd-prime resolution really reduces: MODULE (a file of modules/, e.g.
 *       S_3) is resolved serially through STEM with s <= MAX_S, then for each of TARGETS
 *       (comma-separated row counts, default 250,500,1000,1500,2000,3000) the step (s >= 1)
 *       whose D has the nearest number of rows is planned again and [D | 0 | I] reduced, as
 *       the standard step does (stages/resolve/standard_p.c). These are sparse (about 1% of D
 *       non-zero) and staircase-like; random matrices of the same shape and density fill in
 *       far more, so they are no stand-in.
 *
 *   fpmat_bench matrix FILE [REPS]
 *       one D kept by a resolution run with FPMAT_BENCH_SAVE=PREFIX (each target's D written to
 *       PREFIX-S-T.fpm: p, rows, cols as three native 32-bit words, then the rows' cols bytes),
 *       its [D | 0 | I] reduced as above: with REPS 1 and one method, a run for callgrind that
 *       does not resolve first.
 *
 * Each run is REPS rounds (default 5), the methods alternated within a round, one thread;
 * the figures are the medians of wall seconds. "same" compares the three RREFs and pivots
 * byte for byte (the RREF is unique). FPMAT_BENCH_METHODS=naive,own,flint (any of them) runs
 * only those: with REPS 1 and one method, a run for `valgrind --tool=callgrind`'s counts.
 * FLINT is used where its headers were found at build time (the Makefile's HAVE_FLINT).
 * "split" is fpmat_rref_split, what the standard step runs: [A | 0 | I] reduced only as far as
 * the pivots and the kernel need (split at I's first column; a plain A: the pivots alone); it
 * agrees when its pivots and the rows with a pivot from split on are the RREF's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/fdmodule.h"
#include "algebra/fpmat.h"
#include "bench/bench.h"
#include "stages/chain.h"
#include "stages/resolve/cofiber.h"
#include "stages/resolve/resolution.h"
#include "stages/resolve/standard_p.h"
#include "stages/resolve/step.h"
#ifdef HAVE_FLINT
#include <flint/nmod_mat.h>
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) { return bench_xorshift(&rng); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    if (n == 0) return 0;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

enum { NAIVE, OWN, FLINT, SPLIT, NMETHODS };
static const char *method_name[NMETHODS] = { "naive", "own", "flint", "split" };
static int method_on[NMETHODS];

/* One round of method k on a copy of a; out (rows x cols, initialised here on the first round)
 * keeps the result, piv the pivots. Returns the wall seconds. */
static double one_run(int k, const fpmat *a, uint32_t split, fpmat *out, int32_t *piv)
{
    fpmat w;
    if (fpmat_copy(&w, a) != 0) { fprintf(stderr, "fpmat_bench: out of memory\n"); exit(1); }
    double t0 = clock_now(), dt = 0;
    if (k == NAIVE) {
        fpmat_rref_naive(&w, piv);
        dt = clock_now() - t0;
    } else if (k == OWN) {
        fpmat_rref_m4rm(&w, piv);
        dt = clock_now() - t0;
    } else if (k == SPLIT) {
        fpmat_rref_split(&w, split, piv);
        dt = clock_now() - t0;
    } else {
#ifdef HAVE_FLINT
        nmod_mat_t f;
        nmod_mat_init(f, a->rows, a->cols, a->p);
        for (uint32_t i = 0; i < a->rows; ++i)
            for (uint32_t c = 0; c < a->cols; ++c) nmod_mat_entry(f, i, c) = fpmat_get(a, i, c);
        t0 = clock_now();
        nmod_mat_rref(f);
        dt = clock_now() - t0;
        for (uint32_t c = 0; c < a->cols; ++c) piv[c] = -1;
        for (uint32_t i = 0, c = 0; i < a->rows; ++i) {
            for (uint32_t k2 = 0; k2 < a->cols; ++k2) fpmat_set(&w, i, k2, (uint32_t)nmod_mat_entry(f, i, k2));
            while (c < a->cols && fpmat_get(&w, i, c) == 0) ++c;
            if (c < a->cols) piv[c] = (int32_t)i;
        }
        nmod_mat_clear(f);
#endif
    }
    fpmat_clear(out);
    *out = w;
    return dt;
}

/* Whether split's result agrees with the RREF ref: the same pivots, and the same rows where
 * the pivot lies at or right of split (fpmat.h's contract; the rows above are an echelon form). */
static int split_agrees(const fpmat *ref, const int32_t *rp, const fpmat *w, const int32_t *wp, uint32_t split)
{
    if (memcmp(rp, wp, ref->cols * sizeof *rp) != 0) return 0;
    for (uint32_t c = split; c < ref->cols; ++c)
        if (rp[c] >= 0 && memcmp(fpmat_row(ref, (uint32_t)rp[c]), fpmat_row(w, (uint32_t)wp[c]), ref->cols) != 0)
            return 0;
    return 1;
}

/* Rounds of every method on a (split: the kernel's first column, for fpmat_rref_split); prints
 * one line after the label. */
static void compare(const char *label, const fpmat *a, uint32_t split, int reps)
{
    double t[NMETHODS][99], med[NMETHODS] = { 0 };
    fpmat out[NMETHODS] = { { 0 } };
    int32_t *piv[NMETHODS];
    for (int k = 0; k < NMETHODS; ++k) piv[k] = malloc(((size_t)a->cols + 1) * sizeof **piv);
    for (int r = 0; r < reps; ++r)
        for (int k = 0; k < NMETHODS; ++k)
            if (method_on[k]) t[k][r] = one_run(k, a, split, &out[k], piv[k]);
    const char *same = "-";
    int ref = -1, agree = 1, n = 0;
    for (int k = 0; k < NMETHODS; ++k) {
        if (!method_on[k]) continue;
        med[k] = median(t[k], reps);
        ++n;
        if (k == SPLIT) continue;           /* checked below, against an RREF */
        if (ref < 0) ref = k;
        else agree &= fpmat_equal(&out[ref], &out[k]) && memcmp(piv[ref], piv[k], a->cols * sizeof **piv) == 0;
    }
    if (method_on[SPLIT] && ref >= 0) agree &= split_agrees(&out[ref], piv[ref], &out[SPLIT], piv[SPLIT], split);
    if (n > 1) same = agree ? "yes" : "NO";
    printf("%s %9.4f %9.4f %9.4f %9.4f %7.3f %7.3f %7.3f %s\n", label, med[NAIVE], med[OWN], med[FLINT], med[SPLIT],
           med[NAIVE] > 0 ? med[OWN] / med[NAIVE] : 0.0, med[FLINT] > 0 ? med[OWN] / med[FLINT] : 0.0,
           med[OWN] > 0 ? med[SPLIT] / med[OWN] : 0.0, same);
    fflush(stdout);
    for (int k = 0; k < NMETHODS; ++k) {
        fpmat_clear(&out[k]);
        free(piv[k]);
    }
}

static double density(const fpmat *a, uint32_t cols)
{
    uint64_t nz = 0;
    for (uint32_t i = 0; i < a->rows; ++i)
        for (uint32_t c = 0; c < cols; ++c) nz += fpmat_get(a, i, c) != 0;
    return a->rows && cols ? 100.0 * (double)nz / ((double)a->rows * cols) : 0;
}

static void random_shapes(int reps, uint32_t maxdim)
{
    static const struct { uint32_t rows, cols; int augment; } shapes[] = {
        { 300, 300, 0 }, { 1000, 1000, 0 }, { 1000, 3000, 0 }, { 3000, 1000, 0 },
        { 2000, 2000, 0 }, { 3000, 3000, 0 }, { 1000, 1000, 1 }, { 2000, 1500, 1 },
    };
    static const uint32_t primes[] = { 3, 5, 7 };
    static const int dens[] = { 100, 30 };             /* percent of non-zero entries */
    printf("%-3s %-14s %-4s %9s %9s %9s %9s %7s %7s %7s %s\n", "p", "shape", "nz%", "naive_s", "own_s", "flint_s",
           "split_s", "own/nv", "own/fl", "spl/own", "same");
    for (size_t k = 0; k < sizeof primes / sizeof *primes; ++k)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
            for (size_t dd = 0; dd < sizeof dens / sizeof *dens; ++dd) {
                uint32_t p = primes[k], rows = shapes[s].rows, cols = shapes[s].cols;
                if (rows > maxdim || cols > maxdim) continue;
                fpmat a;
                if (fpmat_init(&a, p, rows, cols) != 0) exit(1);
                for (uint32_t i = 0; i < rows; ++i)
                    for (uint32_t c = 0; c < cols; ++c)
                        if ((int)(next_rand() % 100) < dens[dd])
                            fpmat_set(&a, i, c, (uint32_t)(1 + next_rand() % (p - 1)));
                uint32_t split = cols;
                if (shapes[s].augment) {
                    fpmat aug;
                    split = fpmat_segment_start(cols);
                    if (fpmat_augment_identity(&aug, &a) != 0) exit(1);
                    fpmat_clear(&a);
                    a = aug;
                }
                char shape[32], label[64];
                snprintf(shape, sizeof shape, "%ux%u%s", rows, cols, shapes[s].augment ? "+I" : "");
                snprintf(label, sizeof label, "%-3u %-14s %-4d", p, shape, dens[dd]);
                compare(label, &a, split, reps);
                fpmat_clear(&a);
            }
}

/* D of the step (s, t) of a finished resolution, planned again (its kernel slot untouched). */
static int step_matrix(resolution *res, int s, deg_t t, fpmat *d)
{
    step_ctx c = { 0 };
    step_init(&c, res, &step_standard_p, s, t);
    int rc = res_step_plan_p(&c);
    if (rc == 0) {
        if (c.ch.rows.kind == CHAIN_ROWS_FP) res_step_multiply_p(&c);
        rc = fpmat_copy(d, &c.Dp);
    }
    res_step_free_p(&c);
    return rc;
}

/* D to PREFIX-S-T.fpm (the header's format), where FPMAT_BENCH_SAVE=PREFIX is set. */
static void save_matrix(const fpmat *d, int s, int t)
{
    const char *prefix = getenv("FPMAT_BENCH_SAVE");
    if (!prefix || !*prefix) return;
    char path[600];
    snprintf(path, sizeof path, "%s-%d-%d.fpm", prefix, s, t);
    FILE *f = fopen(path, "wb");
    uint32_t h[3] = { d->p, d->rows, d->cols };
    int ok = f && fwrite(h, sizeof h, 1, f) == 1;
    for (uint32_t i = 0; ok && i < d->rows; ++i) ok = fwrite(fpmat_row(d, i), 1, d->cols, f) == d->cols;
    if (!f || fclose(f) != 0 || !ok) fprintf(stderr, "fpmat_bench: cannot write %s\n", path);
}

/* A D kept by save_matrix: its [D | 0 | I] compared as resolution_shapes does. */
static int saved_matrix(const char *path, int reps)
{
    FILE *f = fopen(path, "rb");
    uint32_t h[3];
    fpmat d = { 0 }, aug;
    int ok = f && fread(h, sizeof h, 1, f) == 1 && h[0] < 128 && fpmat_init(&d, h[0], h[1], h[2]) == 0;
    for (uint32_t i = 0; ok && i < d.rows; ++i) ok = fread(fpmat_row(&d, i), 1, d.cols, f) == d.cols;
    for (uint32_t i = 0; ok && i < d.rows; ++i)
        for (uint32_t c = 0; c < d.cols; ++c) ok &= fpmat_get(&d, i, c) < d.p;
    if (f) fclose(f);
    if (!ok || fpmat_augment_identity(&aug, &d) != 0) {
        fprintf(stderr, "fpmat_bench: %s is not a matrix save_matrix wrote\n", path);
        return 2;
    }
    printf("%-40s %9s %9s %9s %9s %7s %7s %7s %s\n", "matrix", "naive_s", "own_s", "flint_s", "split_s", "own/nv",
           "own/fl", "spl/own", "same");
    char label[64];
    snprintf(label, sizeof label, "%-40.40s", path);
    compare(label, &aug, fpmat_segment_start(d.cols), reps);
    fpmat_clear(&aug);
    fpmat_clear(&d);
    return 0;
}

static int resolution_shapes(const char *module, int stem, int max_s, int reps, const char *targets)
{
    char path[512], err[256];
    static char buf[1 << 16];
    snprintf(path, sizeof path, "modules/%s.json", module);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    fd_module m;
    if (!n || fdm_parse(buf, n, &m, err, sizeof err) != 0 || cofiber_prepare(&m, err, sizeof err) != 0) {
        fprintf(stderr, "fpmat_bench: cannot read %s\n", path);
        return 1;
    }
    if (m.p == 2) {
        fprintf(stderr, "fpmat_bench: %s is at p = 2\n", module);
        return 1;
    }
    resolution res;
    if (res_init(&res, REGION_STEM, stem, max_s, 0, "", 0, ALG_STANDARD) != 0 || res_set_module(&res, &m, "M") != 0) {
        fprintf(stderr, "fpmat_bench: res_init failed\n");
        return 1;
    }
    double t0 = clock_now();
    chain_set set = step_chain_set(&res);
    if (chain_run(&chain_serial, &set) != 0) {
        fprintf(stderr, "fpmat_bench: the resolution failed\n");
        return 1;
    }
    printf("# %s (p = %u) through stem %d, s <= %d: resolved serially in %.1f s\n", module, m.p, stem, max_s,
           clock_now() - t0);
    printf("%-7s %-10s %-12s %-5s %-5s %9s %9s %9s %9s %7s %7s %7s %s\n", "module", "(s,t)", "D rows x cols", "rank",
           "nz%", "naive_s", "own_s", "flint_s", "split_s", "own/nv", "own/fl", "spl/own", "same");
    int done_s[64] = { 0 };
    deg_t done_t[64] = { 0 };
    int ndone = 0;
    for (const char *q = targets; *q;) {
        long want = strtol(q, NULL, 10);
        int bs = -1;
        deg_t bt = 0;
        uint64_t best = UINT64_MAX;
        for (int s = 1; s <= max_s; ++s)
            for (deg_t t = s + 1; t - s <= stem; ++t) {
                if (!res_done(&res, s, t)) continue;
                uint64_t rows = freemod_dim(&res.F[s], t, t);
                uint64_t dist = rows > (uint64_t)want ? rows - (uint64_t)want : (uint64_t)want - rows;
                int seen = 0;
                for (int k = 0; k < ndone; ++k) seen |= done_s[k] == s && done_t[k] == t;
                if (!seen && dist < best) { best = dist; bs = s; bt = t; }
            }
        const char *comma = strchr(q, ',');
        q = comma ? comma + 1 : q + strlen(q);
        if (bs < 0 || ndone == 64) continue;
        done_s[ndone] = bs;
        done_t[ndone++] = bt;
        fpmat d, aug;
        if (step_matrix(&res, bs, bt, &d) != 0 || fpmat_augment_identity(&aug, &d) != 0) {
            fprintf(stderr, "fpmat_bench: out of memory\n");
            return 1;
        }
        save_matrix(&d, bs, (int)bt);
        fpmat r;
        int rank = fpmat_copy(&r, &d) == 0 ? fpmat_rref(&r, NULL) : -1;
        fpmat_clear(&r);
        char st[32], shape[32], label[128];
        snprintf(st, sizeof st, "(%d,%d)", bs, (int)bt);
        snprintf(shape, sizeof shape, "%ux%u", d.rows, d.cols);
        snprintf(label, sizeof label, "%-7s %-10s %-12s %-5d %-5.2f", module, st, shape, rank, density(&d, d.cols));
        compare(label, &aug, fpmat_segment_start(d.cols), reps);
        fpmat_clear(&d);
        fpmat_clear(&aug);
    }
    res_clear(&res);
    fdm_clear(&m);
    return 0;
}

int main(int argc, char **argv)
{
    const char *only = getenv("FPMAT_BENCH_METHODS");
    for (int k = 0; k < NMETHODS; ++k) method_on[k] = !only || !*only || bench_word_in(only, method_name[k]);
#ifndef HAVE_FLINT
    method_on[FLINT] = 0;
#endif
    if (argc > 1 && strcmp(argv[1], "resolution") == 0) {
        if (argc < 5) {
            fprintf(stderr, "usage: fpmat_bench resolution MODULE STEM MAX_S [REPS [TARGETS]]\n");
            return 2;
        }
        int reps = argc > 5 ? atoi(argv[5]) : 5;
        if (reps < 1 || reps > 99) reps = 5;
        return resolution_shapes(argv[2], atoi(argv[3]), atoi(argv[4]), reps,
                                 argc > 6 ? argv[6] : "250,500,1000,1500,2000,3000");
    }
    if (argc > 2 && strcmp(argv[1], "matrix") == 0) {
        int reps = argc > 3 ? atoi(argv[3]) : 5;
        return saved_matrix(argv[2], reps < 1 || reps > 99 ? 5 : reps);
    }
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    uint32_t maxdim = argc > 2 ? (uint32_t)atoi(argv[2]) : 3000;
    if (reps < 1 || reps > 99) reps = 5;
    random_shapes(reps, maxdim);
    return 0;
}
