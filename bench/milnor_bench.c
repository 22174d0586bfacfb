/* milnor_bench.c — throughput of the Milnor product: all pairs (R, S) with |R| + |S| <= D,
 * through milnor_mul_into one by one and through milnor_mul_batch, repeated for >= 1 s.
 * Usage: milnor_bench [D...]   (default 40 and 80). Prints a plain table.
 *        milnor_bench --jobs FILE...  batches shaped like a resolution's: FILE holds records
 *            (u64 njobs, u64 nterms, u64 stride; njobs milnor_row_job; nterms milnor_term),
 *            e.g. captured from the multiply codelet (first_term relative to the record;
 *            stride 0: every job XORs into one row, a grouped row's record);
 *            --synth [SEED] makes such batches at random: per generator, 20..200 terms of
 *            degrees 1..40 at random column offsets, rows = all R of a degree 5..60.
 *        Both report ns per (job x term) of milnor_mul_batch_search (one matrix search per
 *        pair), milnor_mul_batch_halves (R-halves, docs/algorithms.md §2.3), milnor_mul_batch (dispatch)
 *        and milnor_mul_batch_simd's two vector paths (avx2, avx512: skipped on a CPU without
 *        AVX-512BW), and check that they give the same bits. MILNOR_BENCH_PATHS=halves,batch runs
 *        only those after the search (which is the reference; timed only when named there,
 *        else one untimed pass).
 *        milnor_bench --shapes FILE...  the searches of captured batches, counted (no timing):
 *            per product its cells, its search steps (mm_step) and its terms; by cell count,
 *            the share of products and of steps; and a model of the atomic GPU kernel's warps
 *            (T threads per job, items dealt in turn, a warp's turn as long as its longest
 *            search): steps done / (32 x the steps its warps take), with the job's terms in
 *            their order, sorted by the cost estimate of milnor_sched.h, and sorted by their
 *            true step counts (the best any order of terms can do). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algebra/milnor.h"
#include "algebra/milnor_sched.h"
#include "bench/bench.h"

#define MIN_SECONDS 1.0

static volatile uint64_t sink;

static double now(void) { return clock_now(); }

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

/* ---------------------------------------------------------------- resolution-shaped batches */

typedef struct rec {
    milnor_row_job *jobs;
    milnor_term *terms;
    size_t njobs, nterms, stride;
    size_t one_row;                 /* stride 0 (every job XORs into one row): its words */
} rec;

typedef struct recs {
    rec *r;
    size_t n, cap;
    uint64_t pairs, rows_words;
    deg_t maxdeg;                   /* of the products */
} recs;

static rec *recs_add(recs *v)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r) { fprintf(stderr, "out of memory\n"); exit(1); }
    }
    return memset(&v->r[v->n++], 0, sizeof *v->r);
}

static void recs_account(recs *v, const rec *r)
{
    for (size_t i = 0; i < r->njobs; ++i) {
        const milnor_row_job *j = &r->jobs[i];
        v->pairs += j->n_terms;
        for (uint32_t k = 0; k < j->n_terms; ++k) {
            deg_t d = (deg_t)(j->r_deg + r->terms[j->first_term + k].s_deg);
            if (d > v->maxdeg) v->maxdeg = d;
        }
    }
    v->rows_words += r->njobs * r->stride;
}

static void recs_load(recs *v, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    for (;;) {
        rec r;
        int got = milnor_batch_record_read(f, &r.jobs, &r.njobs, &r.terms, &r.nterms, &r.stride);
        if (got == 0) break;
        if (got < 0) {
            fprintf(stderr, "%s: truncated or damaged record\n", path);
            exit(1);
        }
        *recs_add(v) = r;
        recs_account(v, &r);
    }
    fclose(f);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { return bench_xorshift(&rng); }

/* Random batches: one per generator, all R of one degree against its terms. */
static void recs_synth(recs *v, const milnor_basis *A, int ngen)
{
    for (int g = 0; g < ngen; ++g) {
        rec *r = recs_add(v);
        deg_t dr = (deg_t)(5 + rnd() % 56);
        uint32_t nt = (uint32_t)(20 + rnd() % 181), ncols = 0;
        r->njobs = A->dim[dr];
        r->nterms = nt;
        r->jobs = malloc(r->njobs * sizeof *r->jobs);
        r->terms = malloc(nt * sizeof *r->terms);
        if (!r->jobs || !r->terms) { fprintf(stderr, "out of memory\n"); exit(1); }
        for (uint32_t k = 0; k < nt; ++k) {
            deg_t ds = (deg_t)(1 + rnd() % 40);
            uint32_t off = (uint32_t)(rnd() % 2000);
            r->terms[k] = (milnor_term){(uint32_t)ds, (uint32_t)(rnd() % A->dim[ds]), off};
            if (off + A->dim[dr + ds] > ncols) ncols = off + A->dim[dr + ds];
        }
        for (uint32_t i = 0; i < r->njobs; ++i)
            r->jobs[i] = (milnor_row_job){(uint32_t)dr, i, 0, nt};
        r->stride = words_for(ncols);
        recs_account(v, r);
    }
}

/* Records of stride 0 (sec_batch_y's, pair_algebra's: every job into one row) get a row as
 * wide as their widest product's last column. */
static void recs_one_rows(const milnor_basis *A, recs *v)
{
    for (size_t i = 0; i < v->n; ++i) {
        rec *r = &v->r[i];
        if (r->stride) continue;
        uint64_t cols = 0;
        for (size_t j = 0; j < r->njobs; ++j)
            for (uint32_t k = 0; k < r->jobs[j].n_terms; ++k) {
                const milnor_term *t = &r->terms[r->jobs[j].first_term + k];
                uint64_t end = (uint64_t)t->col_offset + A->dim[r->jobs[j].r_deg + t->s_deg];
                if (end > cols) cols = end;
            }
        r->one_row = words_for((uint32_t)cols);
        v->rows_words += r->one_row;
    }
}

typedef void batch_fn(const milnor_basis *, const milnor_row_job *, size_t, const milnor_term *,
                      uint64_t *, size_t);

/* One pass over all records into out (rows_words words); returns its checksum. */
/* milnor_mul_batch through one vector path (milnor_mul_batch_simd); main skips an unsupported one. */
static void batch_avx2(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs, const milnor_term *terms,
                       uint64_t *rows, size_t stride)
{
    milnor_mul_batch_simd(A, jobs, njobs, terms, rows, stride, MILNOR_SIMD_AVX2);
}

static void batch_avx512(const milnor_basis *A, const milnor_row_job *jobs, size_t njobs, const milnor_term *terms,
                         uint64_t *rows, size_t stride)
{
    milnor_mul_batch_simd(A, jobs, njobs, terms, rows, stride, MILNOR_SIMD_AVX512);
}

static uint64_t recs_pass(const milnor_basis *A, const recs *v, batch_fn *fn, uint64_t *out)
{
    uint64_t h = 0;
    memset(out, 0, v->rows_words * sizeof *out);
    for (size_t i = 0; i < v->n; ++i) {
        const rec *r = &v->r[i];
        fn(A, r->jobs, r->njobs, r->terms, out, r->stride);
        out += r->stride ? r->njobs * r->stride : r->one_row;
    }
    return h;
}

static int bench_recs(recs *v, const char *what)
{
    milnor_basis A;
    if (milnor_basis_init(&A, v->maxdeg, NULL) < 0) { fprintf(stderr, "bad degree\n"); return 1; }
    static const struct { const char *name; batch_fn *fn; } paths[] = {
        {"search", milnor_mul_batch_search},
        {"halves", milnor_mul_batch_halves},
        {"batch", milnor_mul_batch},
        {"avx2", batch_avx2},
        {"avx512", batch_avx512},
    };
    recs_one_rows(&A, v);
    uint64_t *ref = malloc(v->rows_words * sizeof *ref + 8), *out = malloc(v->rows_words * sizeof *out + 8);
    if (!ref || !out) { fprintf(stderr, "out of memory\n"); return 1; }
    memset(ref, 0, v->rows_words * sizeof *ref);
    memset(out, 0, v->rows_words * sizeof *out);
    size_t njobs = 0, one_row = 0;
    for (size_t i = 0; i < v->n; ++i) {
        njobs += v->r[i].njobs;
        one_row += v->r[i].stride == 0;
    }
    printf("%s: %zu batches (%zu of one row), %zu jobs, %llu job x term pairs (%.1f per job), degree <= %d\n",
           what, v->n, one_row, njobs, (unsigned long long)v->pairs,
           (double)v->pairs / (double)(njobs ? njobs : 1), v->maxdeg);
    printf("%-8s %12s %10s %s\n", "path", "pairs/s", "ns/pair", "bits (best pass)");
    int bad = 0;
    const char *only = getenv("MILNOR_BENCH_PATHS");     /* e.g. "search,batch" */
    for (size_t p = 0; p < sizeof paths / sizeof *paths; ++p) {
        if (only && p && !strstr(only, paths[p].name)) continue;
        if (paths[p].fn == batch_avx512 && !milnor_simd_supported(MILNOR_SIMD_AVX512)) {
            printf("%-8s skipped: this CPU has no AVX-512BW\n", paths[p].name);
            continue;
        }
        if (only && !p && !strstr(only, "search")) {        /* the reference, one untimed pass */
            recs_pass(&A, v, paths[p].fn, ref);
            continue;
        }
        uint64_t n = v->pairs;      /* best of >= 3 passes and >= 1 s: robust to a busy machine */
        double t0 = now(), t = 1e30, t1;
        int passes = 0;
        do {
            double a = now();
            recs_pass(&A, v, paths[p].fn, p ? out : ref);
            double b = now() - a;
            if (b < t) t = b;
            ++passes;
        } while ((t1 = now() - t0) < MIN_SECONDS || passes < 3);
        int same = p == 0 || memcmp(ref, out, v->rows_words * sizeof *out) == 0;
        bad += !same;
        printf("%-8s %12.3e %10.1f %s\n", paths[p].name, (double)n / t, 1e9 * t / (double)n,
               p == 0 ? "reference" : same ? "identical" : "DIFFER");
    }
    free(ref);
    free(out);
    milnor_basis_clear(&A);
    return bad != 0;
}

/* --shapes (above). */
typedef struct shape_pair {
    uint64_t steps, est;
} shape_pair;

static int cmp_steps(const void *a, const void *b)
{
    const shape_pair *x = a, *y = b;
    return x->steps < y->steps ? 1 : x->steps > y->steps ? -1 : 0;
}

static int cmp_est(const void *a, const void *b)
{
    const shape_pair *x = a, *y = b;
    return x->est < y->est ? 1 : x->est > y->est ? -1 : 0;
}

/* Warp steps of one job's items p[0..n) under T threads per job: lane l of warp w takes items
 * 32 w + l + T i; a warp's round i lasts its longest item. */
static uint64_t warp_steps(const shape_pair *p, size_t n, uint32_t T)
{
    uint64_t total = 0;
    for (uint32_t w = 0; w < T / 32; ++w)
        for (size_t base = 32 * (size_t)w; base < n; base += T) {
            uint64_t m = 0;
            for (size_t l = base; l < base + 32 && l < n; ++l) m = p[l].steps > m ? p[l].steps : m;
            total += m;
        }
    return total;
}

static int shapes(const recs *v)
{
    milnor_basis A;
    if (milnor_basis_init(&A, v->maxdeg, NULL) < 0) { fprintf(stderr, "bad degree\n"); return 1; }
    enum { NC = 33 };       /* cell counts 0..31, 32 = more */
    uint64_t pairs[NC] = { 0 }, steps[NC] = { 0 }, leaves[NC] = { 0 }, all = 0, sum = 0;
    static const uint32_t Ts[] = { 32, 128 };
    uint64_t warp[3][2] = { { 0 } };
    size_t cap = 0;
    shape_pair *p = NULL;
    for (size_t i = 0; i < v->n; ++i) {
        const rec *r = &v->r[i];
        for (size_t j = 0; j < r->njobs; ++j) {
            const milnor_row_job *job = &r->jobs[j];
            const milnor_elt *R = &A.elts[job->r_deg][job->r_idx];
            if (job->n_terms > cap) {
                cap = job->n_terms * 2;
                p = realloc(p, cap * sizeof *p);
                if (!p) { fprintf(stderr, "out of memory\n"); return 1; }
            }
            for (uint32_t k = 0; k < job->n_terms; ++k) {
                const milnor_term *tm = &r->terms[job->first_term + k];
                const milnor_elt *S = &A.elts[tm->s_deg][tm->s_idx];
                mm_search s;
                uint32_t t[2 * MM_SIDE];
                uint64_t n = 1, found = 0;
                int c = 0, len;
                if (R->len && S->len && mm_setup(&s, R, S)) {
                    c = s.ncells < NC - 1 ? s.ncells : NC - 1;
                    mm_split(&s, 0, 1);
                    for (n = 0; (len = mm_step(&s, t)) != -1; ++n) found += len != MM_STEP_ON;
                } else
                    found = R->len == 0 || S->len == 0;
                p[k] = (shape_pair){ n, mk_pair_cost(R, S) };
                pairs[c]++, steps[c] += n, leaves[c] += found, all++, sum += n;
            }
            for (int o = 0; o < 3; ++o) {
                if (o == 1) qsort(p, job->n_terms, sizeof *p, cmp_est);
                if (o == 2) qsort(p, job->n_terms, sizeof *p, cmp_steps);
                for (int q = 0; q < 2; ++q) warp[o][q] += warp_steps(p, job->n_terms, Ts[q]);
            }
        }
    }
    printf("%llu products, %.1f search steps each\n", (unsigned long long)all, (double)sum / (double)(all ? all : 1));
    printf("%6s %9s %9s %11s %11s\n", "cells", "products", "steps", "steps/prod", "terms/prod");
    for (int c = 0; c < NC; ++c)
        if (pairs[c])
            printf("%5d%s %8.2f%% %8.2f%% %11.1f %11.2f\n", c, c == NC - 1 ? "+" : " ", 100.0 * (double)pairs[c] / (double)all,
                   100.0 * (double)steps[c] / (double)sum, (double)steps[c] / (double)pairs[c],
                   (double)leaves[c] / (double)pairs[c]);
    static const char *const order[] = { "as captured", "by estimate", "by steps" };
    printf("modelled warp efficiency (steps / (32 x warp steps)):\n");
    for (int o = 0; o < 3; ++o)
        printf("  terms %-12s  T=32 %5.1f%%   T=128 %5.1f%%\n", order[o], 100.0 * (double)sum / (32.0 * (double)warp[o][0]),
               100.0 * (double)sum / (32.0 * (double)warp[o][1]));
    free(p);
    milnor_basis_clear(&A);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--shapes")) {
        recs v;
        memset(&v, 0, sizeof v);
        for (int i = 2; i < argc; ++i) recs_load(&v, argv[i]);
        return shapes(&v);
    }
    if (argc > 1 && (!strcmp(argv[1], "--jobs") || !strcmp(argv[1], "--synth"))) {
        recs v;
        memset(&v, 0, sizeof v);
        if (!strcmp(argv[1], "--jobs")) {
            for (int i = 2; i < argc; ++i) recs_load(&v, argv[i]);
        } else {
            milnor_basis A;
            if (argc > 2) rng = strtoull(argv[2], NULL, 10) | 1;
            milnor_basis_init(&A, 100, NULL);
            recs_synth(&v, &A, 400);
            milnor_basis_clear(&A);
        }
        return bench_recs(&v, argv[1] + 2);
    }

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
