/* t-milnor-cuda.c — the CUDA Milnor product against the CPU's reference search, and the flat
 * basis (the buffer both read) against the basis it was made from.
 * The flat-basis tests run everywhere; the GPU tests are skipped where there is no device.
 * Env: SEED (random batches; default time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/milnor_cuda.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 100

/* Rows shaped like a differential's: generators with terms of degrees <= maxs at increasing
 * column blocks; each row an R of degree dr times one generator's terms (jobs share terms). */
static void batch_random(const milnor_basis *A, batch *b, uint32_t ngens, uint32_t maxterms, deg_t maxr,
                         deg_t maxs)
{
    memset(b, 0, sizeof *b);
    uint32_t *gfirst = calloc(ngens, sizeof *gfirst), *gcount = calloc(ngens, sizeof *gcount);
    deg_t *gdeg = calloc(ngens, sizeof *gdeg);
    size_t cap = (size_t)ngens * maxterms + 1;
    b->terms = malloc(cap * sizeof *b->terms);
    if (!gfirst || !gcount || !gdeg || !b->terms) bail("out of memory");
    /* each generator's d(g) lives in a target degree tdeg; its terms Sq(S) of degree tdeg - |h|
     * for target generators h at column blocks of width dim A(tdeg - |h|) */
    uint32_t cols = 0;
    deg_t dr = 1 + (deg_t)rnd((uint32_t)maxr);
    for (uint32_t g = 0; g < ngens; ++g) {
        gfirst[g] = (uint32_t)b->nterms;
        gcount[g] = rnd(maxterms + 1);
        gdeg[g] = (deg_t)rnd((uint32_t)maxs + 1);
        for (uint32_t k = 0; k < gcount[g]; ++k) {
            uint32_t si = rnd(A->dim[gdeg[g]]);
            b->terms[b->nterms++] = (milnor_term){ (uint32_t)gdeg[g], si, cols };
            cols += A->dim[gdeg[g] + dr];
        }
    }
    /* rows: every R of degree dr (a random subset when there are many) times each generator */
    batch_rows(A, b, dr, ngens, gfirst, gcount, 0);
    b->stride = (cols + 63) / 64 + 1;
    free(gfirst);
    free(gcount);
    free(gdeg);
}

/* One row (milnor_mul_batch_cuda_row's path): the XOR of every job's products, GPU vs the CPU's
 * search at stride 0; 1 equal, 0 not, -2 on CUDA failure. */
static int compare_gpu_one_row(const milnor_basis *A, const uint32_t *flat, size_t words, const batch *b)
{
    uint64_t *cpu = rows_alloc(b->stride), *gpu = rows_alloc(b->stride);
    char err[256] = "";
    int same = -2;
    milnor_mul_batch_search(A, b->jobs, b->njobs, b->terms, cpu, 0);
    if (milnor_mul_batch_cuda_host(flat, words, b->jobs, b->njobs, b->terms, b->nterms, gpu, b->stride, 1, NULL, NULL,
                                   err, sizeof err) == 0)
        same = !memcmp(cpu, gpu, b->stride * sizeof *cpu);
    else
        diag("CUDA: %s", err);
    free(cpu);
    free(gpu);
    return same;
}

/* GPU rows vs the CPU's search; returns the first differing row or -1 (-2 on CUDA failure). */
static long compare_gpu(const milnor_basis *A, const uint32_t *flat, size_t words, const batch *b,
                        const milnor_cuda_cfg *cfg, double *ms)
{
    uint64_t *cpu = batch_search_rows(A, b), *gpu = rows_alloc((size_t)b->njobs * b->stride);
    char err[256] = "";
    long bad = -2;
    if (milnor_mul_batch_cuda_host(flat, words, b->jobs, b->njobs, b->terms, b->nterms, gpu, b->stride, 0, cfg, ms,
                                   err, sizeof err) == 0)
        bad = first_diff_row(cpu, gpu, b->njobs, b->stride);
    else
        diag("CUDA: %s", err);
    free(cpu);
    free(gpu);
    return bad;
}

int main(void)
{
    seed_from_env();
    milnor_basis A, view;
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("milnor_basis_init");
    size_t words = milnor_flat_words(&A);
    uint32_t *flat = malloc(words * sizeof *flat);
    static milnor_elt *vel[MILNOR_MAX_DEGREE + 1];
    static uint32_t vdim[MILNOR_MAX_DEGREE + 1];
    if (!flat) bail("out of memory");
    ok(words > 0 && milnor_flat_write(&A, flat, words) == 0, "flatten the basis through degree %d (%zu words)",
       MAXDEG, words);
    ok(milnor_flat_write(&A, flat, words - 1) < 0, "flatten refuses a buffer of the wrong size");
    ok(milnor_flat_view(flat, words, &view, vel, vdim) == 0, "view of the flat basis");
    int same = view.max_degree == A.max_degree;
    for (deg_t d = 0; same && d <= A.max_degree; ++d)
        same = view.dim[d] == A.dim[d] && !memcmp(view.elts[d], A.elts[d], A.dim[d] * sizeof *A.elts[d]);
    same = same && !memcmp(view.seq_g, A.seq_g, ((size_t)MAXDEG + 1) * MILNOR_MAX_LEN * sizeof *A.seq_g);
    ok(same, "the view has the basis's dims, elements and seqno table");
    uint32_t saved = flat[3];
    flat[3] ^= 1;
    ok(milnor_flat_view(flat, words, &view, vel, vdim) < 0, "a damaged header is refused");
    flat[3] = saved;
    milnor_flat_view(flat, words, &view, vel, vdim);
    {   /* products read through the view are those of the basis */
        batch b;
        batch_random(&A, &b, 20, 40, 30, 30);
        size_t n = (size_t)b.njobs * b.stride;
        uint64_t *r1 = calloc(n, 8), *r2 = calloc(n, 8);
        milnor_mul_batch(&A, b.jobs, b.njobs, b.terms, r1, b.stride);
        milnor_mul_batch(&view, b.jobs, b.njobs, b.terms, r2, b.stride);
        ok(!memcmp(r1, r2, n * 8), "milnor_mul_batch through the view = through the basis (%u rows)", b.njobs);
        free(r1);
        free(r2);
        batch_free(&b);
    }

    int ndev = milnor_cuda_device_count();
    if (ndev == 0) {
        printf("ok %d # SKIP no CUDA device here\n", ++tap_count);
        return done_testing();
    }
    diag("%d CUDA device(s)", ndev);
    batch b;
    double ms = 0;
    batch_all_pairs(&A, &b, 40, 0);
    b.stride = (A.dim[40] + 63) / 64;
    /* mappings: the default (128/1) and the former one (128/4), a warp per job, one thread per job, other split shapes;
     * each under both kernels (atomic, shared), and the shared kernel with a row budget that
     * halves its jobs per block (3 rows) or sends its rows to global memory (1 byte) */
    static const milnor_cuda_cfg cfgs[] = {
        {128, 1, MILNOR_CUDA_KERNEL_ATOMIC, 0},
        {128, 4, MILNOR_CUDA_KERNEL_ATOMIC, 0}, {128, 4, MILNOR_CUDA_KERNEL_SHARED, 0},
        {32, 1, MILNOR_CUDA_KERNEL_ATOMIC, 0},  {32, 1, MILNOR_CUDA_KERNEL_SHARED, 0},
        {1, 1, MILNOR_CUDA_KERNEL_ATOMIC, 0},   {1, 1, MILNOR_CUDA_KERNEL_SHARED, 0},
        {64, 3, MILNOR_CUDA_KERNEL_ATOMIC, 0},  {64, 3, MILNOR_CUDA_KERNEL_SHARED, 1},
        {128, 8, MILNOR_CUDA_KERNEL_ATOMIC, 0}, {16, 8, MILNOR_CUDA_KERNEL_SHARED, 3 * 8},
        {256, 32, MILNOR_CUDA_KERNEL_ATOMIC, 0}, {256, 32, MILNOR_CUDA_KERNEL_SHARED, 0},
        {128, 4, MILNOR_CUDA_KERNEL_HALVES, 0}, {128, 1, MILNOR_CUDA_KERNEL_HALVES, 3 * 64},
        {128, 4, MILNOR_CUDA_KERNEL_HALVES, 1}, {128, 2, MILNOR_CUDA_KERNEL_HALVES, 96u << 10},
        {128, 4, MILNOR_CUDA_KERNEL_REFILL, 0}, {1, 1, MILNOR_CUDA_KERNEL_REFILL, 0},
        {1, 7, MILNOR_CUDA_KERNEL_REFILL, 0},   {128, 1, MILNOR_CUDA_KERNEL_STEP, 0},
        {1, 4, MILNOR_CUDA_KERNEL_STEP, 0},     {128, 1, MILNOR_CUDA_KERNEL_PACKED, 0},
        {1, 3, MILNOR_CUDA_KERNEL_PACKED, 0},   {128, 1, MILNOR_CUDA_KERNEL_ATOMIC_PACKED, 0},
        {32, 4, MILNOR_CUDA_KERNEL_ATOMIC_PACKED, 0},
    };
    static const char *const kname[] = { "default", "atomic", "shared", "halves", "refill", "step", "packed",
                                         "atomic-packed" };
    for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; ++c) {
        milnor_cuda_cfg k = cfgs[c];
        if (k.shared_bytes == 3 * 8) k.shared_bytes = 3 * 8 * b.stride;
        ok(compare_gpu(&A, flat, words, &b, &k, &ms) == -1,
           "all %zu products of degree <= 40, %s kernel (rows budget %u B), %u threads/job, %u parts: GPU = CPU "
           "search (%.2f ms)", b.nterms, kname[k.kernel], k.shared_bytes, k.threads_per_job, k.nparts, ms);
    }
    batch_free(&b);
    milnor_cuda_cfg wrong = { 96, 1, 0, 0 };
    b = (batch){ 0 };
    batch_random(&A, &b, 2, 4, 10, 10);
    ok(compare_gpu(&A, flat, words, &b, &wrong, &ms) == -2, "a mapping whose threads/job does not divide 256 is refused");
    batch_free(&b);
    static const uint32_t shapes[][4] = {   /* ngens, maxterms, max |R|, max |S| */
        {1, 1, 5, 5}, {1, 33, 20, 20}, {3, 64, 40, 40}, {50, 8, 60, 30}, {200, 40, 30, 60}, {17, 200, 70, 25},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i)
        for (int rep = 0; rep < 3; ++rep) {
            batch_random(&A, &b, shapes[i][0], shapes[i][1], (deg_t)shapes[i][2], (deg_t)shapes[i][3]);
            const milnor_cuda_cfg *cfg = &cfgs[(i + (size_t)rep) % (sizeof cfgs / sizeof *cfgs)];
            long bad = compare_gpu(&A, flat, words, &b, cfg, &ms);
            ok(bad == -1, "random batch %u gens x <= %u terms, |R| <= %u, |S| <= %u, %s kernel, mapping %u/%u: %u "
               "rows, GPU = CPU%s", shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], kname[cfg->kernel],
               cfg->threads_per_job, cfg->nparts, b.njobs,
               bad == -1 ? "" : " (first differing row below)");
            if (bad >= 0) diag("row %ld differs", bad);
            batch_free(&b);
        }
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i)  /* all jobs into one contended row */
        for (int wide = 0; wide < 2; wide++) {  /* as generated, and padded to 64 KiB */
            batch_random(&A, &b, shapes[i][0], shapes[i][1], (deg_t)shapes[i][2], (deg_t)shapes[i][3]);
            if (wide && b.stride < 8192) b.stride = 8192;   /* never narrower than its columns */
            ok(compare_gpu_one_row(&A, flat, words, &b) == 1, "one row (a row_build's grouped row) of %u words: %u "
               "jobs of a random batch %u gens x <= %u terms XORed into it, GPU = CPU", b.stride, b.njobs,
               shapes[i][0], shapes[i][1]);
            batch_free(&b);
        }
    b = (batch){ 0 };
    b.stride = 1;
    ok(compare_gpu(&A, flat, words, &b, NULL, &ms) == -1, "an empty batch launches nothing and succeeds");
    ok(compare_gpu_one_row(&A, flat, words, &b) == 1, "an empty batch into one row zeroes it");
    free(flat);
    milnor_basis_clear(&A);
    return done_testing();
}
