/* fpmat_bench.c — fpmat_rref against FLINT's nmod_mat_rref on random dense matrices of the
 * shapes a resolution at an odd prime reduces (hundreds to thousands of rows and columns;
 * [A | 0 | I] for the kernel). Prints one line per (p, shape, density): median wall seconds of
 * each over REPS runs, and whether both gave the same RREF (it is unique).
 * Built with FLINT where its headers are (the Makefile's HAVE_FLINT); without, ours alone.
 * Usage: fpmat_bench [REPS (default 5)] [MAXDIM (default 3000)] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algebra/fpmat.h"
#include "bench/bench.h"
#ifdef HAVE_FLINT
#include <flint/nmod_mat.h>
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) { return bench_xorshift(&rng); }

static double now(void) { return clock_now(); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    uint32_t maxdim = argc > 2 ? (uint32_t)atoi(argv[2]) : 3000;
    if (reps < 1 || reps > 99) reps = 5;
    static const struct { uint32_t rows, cols; int augment; } shapes[] = {
        { 300, 300, 0 }, { 1000, 1000, 0 }, { 1000, 3000, 0 }, { 3000, 1000, 0 },
        { 2000, 2000, 0 }, { 3000, 3000, 0 }, { 1000, 1000, 1 }, { 2000, 1500, 1 },
    };
    static const uint32_t primes[] = { 3, 5, 7 };
    static const int density[] = { 100, 30 };          /* percent of non-zero entries */
    printf("%-3s %-14s %-4s %10s %10s %6s %s\n", "p", "shape", "nz%", "fpmat_s", "flint_s", "ratio", "same");
    for (size_t k = 0; k < sizeof primes / sizeof *primes; ++k)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
            for (size_t dd = 0; dd < sizeof density / sizeof *density; ++dd) {
                uint32_t p = primes[k], rows = shapes[s].rows, cols = shapes[s].cols;
                if (rows > maxdim || cols > maxdim) continue;
                fpmat a, work;
                fpmat_init(&a, p, rows, cols);
                for (uint32_t i = 0; i < rows; ++i)
                    for (uint32_t c = 0; c < cols; ++c)
                        if ((int)(next_rand() % 100) < density[dd])
                            fpmat_set(&a, i, c, (uint32_t)(1 + next_rand() % (p - 1)));
                if (shapes[s].augment) {
                    fpmat aug;
                    fpmat_augment_identity(&aug, &a);
                    fpmat_clear(&a);
                    a = aug;
                }
                double tm[99];
                int32_t *piv = malloc(a.cols * sizeof *piv);
                for (int r = 0; r < reps; ++r) {
                    fpmat_copy(&work, &a);
                    double t0 = now();
                    fpmat_rref(&work, piv);
                    tm[r] = now() - t0;
                    if (r + 1 < reps) fpmat_clear(&work);
                }
                const char *same = "-";
                double flint_s = 0;
#ifdef HAVE_FLINT
                nmod_mat_t f, g;
                double tf[99];
                nmod_mat_init(f, a.rows, a.cols, p);
                for (uint32_t i = 0; i < a.rows; ++i)
                    for (uint32_t c = 0; c < a.cols; ++c) nmod_mat_entry(f, i, c) = fpmat_get(&a, i, c);
                for (int r = 0; r < reps; ++r) {
                    nmod_mat_init_set(g, f);
                    double t0 = now();
                    nmod_mat_rref(g);
                    tf[r] = now() - t0;
                    if (r + 1 < reps) nmod_mat_clear(g);
                }
                int eq = 1;
                for (uint32_t i = 0; eq && i < a.rows; ++i)
                    for (uint32_t c = 0; c < a.cols; ++c)
                        if (nmod_mat_entry(g, i, c) != fpmat_get(&work, i, c)) { eq = 0; break; }
                same = eq ? "yes" : "NO";
                nmod_mat_clear(g);
                nmod_mat_clear(f);
                flint_s = median(tf, reps);
#endif
                double ours = median(tm, reps);
                char shape[32];
                snprintf(shape, sizeof shape, "%ux%u%s", rows, cols, shapes[s].augment ? "+I" : "");
                printf("%-3u %-14s %-4d %10.4f %10.4f %6.2f %s\n", p, shape, density[dd], ours, flint_s,
                       flint_s > 0 ? ours / flint_s : 0.0, same);
                fflush(stdout);
                free(piv);
                fpmat_clear(&work);
                fpmat_clear(&a);
            }
    return 0;
}
