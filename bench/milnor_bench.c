/* milnor_bench.c — throughput of the Milnor product: all pairs (R, S) with |R| + |S| <= D,
 * through milnor_mul_into one by one and through milnor_mul_batch, repeated for >= 1 s.
 * Usage: milnor_bench [D...]   (default 40 and 80). Prints a plain table. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algebra/milnor.h"

#define MIN_SECONDS 1.0

static volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t words_for(uint32_t bits) { return (bits + 63) / 64; }

/* One pass of all pairs through milnor_mul_into; returns the number of products. */
static uint64_t pass_single(const milnor_basis *A, deg_t D, uint64_t *buf, uint64_t *check)
{
    uint64_t n = 0;
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds) {
            size_t w = words_for(A->dim[dr + ds]);
            for (uint32_t i = 0; i < A->dim[dr]; ++i) {
                memset(buf, 0, w * sizeof *buf);
                for (uint32_t k = 0; k < A->dim[ds]; ++k, ++n)
                    milnor_mul_into(A, &A->elts[dr][i], &A->elts[ds][k], buf, 0);
                *check ^= buf[0];
            }
        }
    return n;
}

/* The same pairs as batch jobs: one row per (R, degree of S), its terms all S of that degree
 * landing in the same block (as in a differential), rows of the widest block's stride. */
typedef struct batch {
    milnor_row_job *jobs;
    milnor_term *terms;
    uint64_t *rows;
    size_t njobs, nterms, stride;
} batch;

static int batch_build(const milnor_basis *A, deg_t D, batch *b)
{
    size_t nj = 0, nt = 0;
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds) {
            nj += A->dim[dr];
            nt += (size_t)A->dim[dr] * A->dim[ds];
        }
    b->stride = words_for(A->dim[D]);
    b->jobs = malloc(nj * sizeof *b->jobs);
    b->terms = malloc(nt * sizeof *b->terms);
    b->rows = malloc(nj * b->stride * sizeof *b->rows);
    if (!b->jobs || !b->terms || !b->rows) return -1;
    b->njobs = b->nterms = 0;
    for (deg_t dr = 0; dr <= D; ++dr)
        for (deg_t ds = 0; dr + ds <= D; ++ds)
            for (uint32_t i = 0; i < A->dim[dr]; ++i) {
                b->jobs[b->njobs++] = (milnor_row_job){(uint32_t)dr, i, (uint32_t)b->nterms,
                                                       A->dim[ds]};
                for (uint32_t k = 0; k < A->dim[ds]; ++k)
                    b->terms[b->nterms++] = (milnor_term){(uint32_t)ds, k, 0};
            }
    return 0;
}

static void batch_free(batch *b)
{
    free(b->jobs);
    free(b->terms);
    free(b->rows);
}

static uint64_t pass_batch(const milnor_basis *A, batch *b, uint64_t *check)
{
    memset(b->rows, 0, b->njobs * b->stride * sizeof *b->rows);
    milnor_mul_batch(A, b->jobs, b->njobs, b->terms, b->rows, b->stride);
    *check ^= b->rows[b->njobs * b->stride - 1];
    return b->nterms;
}

static void report(const char *name, deg_t D, uint64_t pairs, uint64_t n, double secs)
{
    printf("%-10s %6d %10llu %14.3e %10.1f\n", name, D, (unsigned long long)pairs,
           (double)n / secs, 1e9 * secs / (double)n);
}

static void bench_degree(const milnor_basis *A, deg_t D, uint64_t *check)
{
    static uint64_t buf[4096];
    uint64_t n = 0, pairs = pass_single(A, D, buf, check);
    double t0 = now(), t;
    do n += pass_single(A, D, buf, check); while ((t = now() - t0) < MIN_SECONDS);
    report("mul_into", D, pairs, n, t);

    batch b;
    if (batch_build(A, D, &b) < 0) { fprintf(stderr, "out of memory\n"); exit(1); }
    n = 0;
    t0 = now();
    do n += pass_batch(A, &b, check); while ((t = now() - t0) < MIN_SECONDS);
    report("mul_batch", D, pairs, n, t);
    batch_free(&b);
}

int main(int argc, char **argv)
{
    deg_t degs[16] = {40, 80};
    int nd = 2;
    if (argc > 1) {
        nd = 0;
        for (int i = 1; i < argc && nd < 16; ++i) degs[nd++] = (deg_t)atoi(argv[i]);
    }
    deg_t maxd = 0;
    for (int i = 0; i < nd; ++i) maxd = degs[i] > maxd ? degs[i] : maxd;
    milnor_basis A;
    if (milnor_basis_init(&A, maxd, NULL) < 0) { fprintf(stderr, "bad degree\n"); return 1; }
    uint64_t check = 0;
    printf("%-10s %6s %10s %14s %10s\n", "entry", "|R|+|S|", "pairs", "products/s", "ns/prod");
    for (int i = 0; i < nd; ++i) bench_degree(&A, degs[i], &check);
    sink = check;                   /* keeps the products observable */
    milnor_basis_clear(&A);
    return 0;
}
