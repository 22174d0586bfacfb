/* milnor_gpu_bench.cu — the Milnor-multiply codelet's two implementations on the same batches:
 * the GPU kernel (algebra/milnor_cuda.cu) against milnor_mul_batch on 1 and on N CPU threads.
 * Usage: milnor_gpu_bench [--threads N] [--quick] --jobs FILE...   batches captured with
 *            EXTFLOW_CAPTURE_MUL=FILE extflow resolve ... (format: milnor.h; grouped rows, all
 *            jobs into one row (stride 0), are skipped and counted)
 *        milnor_gpu_bench [--threads N] [--quick] --synth [SEED]   random resolution-shaped batches
 * Prints ns per (job x term) pair, median of 3 passes, for each kernel K and thread mapping T/P
 * (T threads per job, each product's search split into P parts; milnor_cuda.h; --quick: the
 * mappings 32/1, 128/4 and 256/16 only). K is atomic (the first kernel), shared (rows in
 * shared memory, jobs binned by cost), sorted (the shared kernel's binning with rows in
 * global memory, to separate the two changes) or halves (R-halves tested against the terms,
 * milnor_halves.h; pools of 40 KiB, 24 KiB and 96 KiB per block), refill (one queue of items,
 * a term per turn), step (the same, a search step per turn), packed (step with the state in
 * registers, milnor_packed.h) or atomic-packed (atomic with that search); BENCH_KERNELS=a,b runs
 * those only, BENCH_CFG="T,P T,P" those mappings only, BENCH_MERGED_ONLY=1 the merged launches only:
 *   K T/P chunks    one launch per captured chunk, back to back on one stream (what one CUDA
 *                   worker does, without StarPU's transfers)
 *   K T/P s16       the same dealt round robin over 16 streams (16 chunks in flight)
 *   K T/P merged    all chunks in one launch (the kernel's throughput on a full GPU)
 * then the default kernel and mapping with each chunk's jobs, terms and rows copied in and
 * out, and milnor_mul_batch on 1 thread (one pass) and on N threads (chunks dealt round
 * robin). Every GPU result is checked against the CPU's bit for bit (rows poisoned before
 * each pass), so atomic and shared outputs are identical when both checks pass. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>

#include "algebra/milnor.h"
#include "algebra/milnor_cuda.h"
#include "bench/bench.h"

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

struct rec {
    milnor_row_job *jobs;
    milnor_term *terms;
    size_t njobs, nterms, stride;
    size_t rows_at;             /* word offset of its rows in the concatenated output */
};

static double now(void) { return clock_now(); }

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { return bench_xorshift(&rng); }

static std::vector<rec> synth(const milnor_basis *A, int nbatches)
{
    std::vector<rec> v;
    for (int g = 0; g < nbatches; ++g) {
        rec r = {};
        deg_t dr = (deg_t)(5 + rnd() % 56);
        uint32_t nt = (uint32_t)(2 + rnd() % 60), ncols = 0;
        r.njobs = A->dim[dr];
        r.nterms = nt;
        r.jobs = (milnor_row_job *)malloc(r.njobs * sizeof *r.jobs);
        r.terms = (milnor_term *)malloc(nt * sizeof *r.terms);
        for (uint32_t k = 0; k < nt; ++k) {
            deg_t ds = (deg_t)(1 + rnd() % 40);
            uint32_t off = (uint32_t)(rnd() % 2000);
            r.terms[k] = milnor_term{(uint32_t)ds, (uint32_t)(rnd() % A->dim[ds]), off};
            ncols = std::max(ncols, off + A->dim[dr + ds]);
        }
        for (uint32_t i = 0; i < r.njobs; ++i) r.jobs[i] = milnor_row_job{(uint32_t)dr, i, 0, nt};
        r.stride = (ncols + 63) / 64;
        v.push_back(r);
    }
    return v;
}

struct cpu_work {
    const milnor_basis *A;
    const std::vector<rec> *v;
    uint64_t *out;
    int id, nthreads;
};

static void *cpu_thread(void *p)
{
    cpu_work *w = (cpu_work *)p;
    for (size_t i = (size_t)w->id; i < w->v->size(); i += (size_t)w->nthreads) {
        const rec &r = (*w->v)[i];
        memset(w->out + r.rows_at, 0, r.njobs * r.stride * 8);
        milnor_mul_batch(w->A, r.jobs, r.njobs, r.terms, w->out + r.rows_at, r.stride);
    }
    return NULL;
}

static double cpu_pass(const milnor_basis *A, const std::vector<rec> &v, uint64_t *out, int nthreads)
{
    std::vector<pthread_t> th((size_t)nthreads);
    std::vector<cpu_work> w((size_t)nthreads);
    double t0 = now();
    for (int i = 0; i < nthreads; ++i) {
        w[(size_t)i] = cpu_work{A, &v, out, i, nthreads};
        pthread_create(&th[(size_t)i], NULL, cpu_thread, &w[(size_t)i]);
    }
    for (int i = 0; i < nthreads; ++i) pthread_join(th[(size_t)i], NULL);
    return now() - t0;
}

static double median(std::vector<double> x)
{
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
}

int main(int argc, char **argv)
{
    int nthreads = 16, a = 1, quick = 0;
    size_t one_row = 0;         /* grouped rows skipped (--jobs) */
    std::vector<rec> v;
    if (a + 1 < argc && !strcmp(argv[a], "--threads")) {
        nthreads = atoi(argv[a + 1]);
        a += 2;
    }
    if (a < argc && !strcmp(argv[a], "--quick")) {
        quick = 1;
        ++a;
    }
    if (a < argc && !strcmp(argv[a], "--jobs")) {
        for (++a; a < argc; ++a) {
            FILE *f = fopen(argv[a], "rb");
            if (!f) { perror(argv[a]); return 1; }
            rec r = {};
            int got;
            while ((got = milnor_batch_record_read(f, &r.jobs, &r.njobs, &r.terms, &r.nterms, &r.stride)) == 1) {
                if (r.stride) {
                    v.push_back(r);
                    continue;
                }
                ++one_row;      /* a grouped row (all jobs into one row): not this bench's kernel shape */
                free(r.jobs);
                free(r.terms);
            }
            fclose(f);
            if (got < 0) { fprintf(stderr, "%s: damaged record\n", argv[a]); return 1; }
        }
    } else if (a < argc && !strcmp(argv[a], "--synth")) {
        if (a + 1 < argc) rng = strtoull(argv[a + 1], NULL, 10) | 1;
        milnor_basis A0;
        milnor_basis_init(&A0, 100, NULL);
        v = synth(&A0, 400);
        milnor_basis_clear(&A0);
    } else {
        fprintf(stderr, "usage: milnor_gpu_bench [--threads N] [--quick] --jobs FILE... | --synth [SEED]\n");
        return 2;
    }
    if (one_row) printf("milnor_gpu_bench: %zu grouped rows (stride 0) skipped\n", one_row);
    if (milnor_cuda_device_count() == 0) {
        printf("milnor_gpu_bench: no CUDA device; nothing measured\n");
        return 0;
    }
    deg_t maxdeg = 0;
    size_t words = 0, njobs = 0, maxstride = 1;
    uint64_t pairs = 0;
    for (rec &r : v) {
        r.rows_at = words;
        words += r.njobs * r.stride;
        njobs += r.njobs;
        maxstride = std::max(maxstride, r.stride);
        for (size_t i = 0; i < r.njobs; ++i) {
            pairs += r.jobs[i].n_terms;
            for (uint32_t k = 0; k < r.jobs[i].n_terms; ++k)
                maxdeg = std::max(maxdeg, (deg_t)(r.jobs[i].r_deg + r.terms[r.jobs[i].first_term + k].s_deg));
        }
    }
    milnor_basis A;
    if (milnor_basis_init(&A, maxdeg, NULL) < 0) { fprintf(stderr, "bad degree %d\n", maxdeg); return 1; }
    size_t fw = milnor_flat_words(&A);
    std::vector<uint32_t> flat(fw);
    milnor_flat_write(&A, flat.data(), fw);
    printf("%zu chunks, %zu jobs, %llu pairs (%.1f per job), degree <= %d, basis %zu KB\n", v.size(), njobs,
           (unsigned long long)pairs, (double)pairs / (double)(njobs ? njobs : 1), maxdeg, fw * 4 / 1024);

    /* device copies: per chunk, and merged (jobs re-based, rows at maxstride) */
    uint32_t *d_flat;
    CK(cudaMalloc(&d_flat, fw * 4));
    CK(cudaMemcpy(d_flat, flat.data(), fw * 4, cudaMemcpyHostToDevice));
    std::vector<milnor_row_job *> d_jobs(v.size());
    std::vector<milnor_term *> d_terms(v.size());
    uint64_t *d_rows, *d_merged_rows;
    milnor_row_job *d_mjobs;
    milnor_term *d_mterms;
    std::vector<milnor_row_job> mjobs;
    std::vector<milnor_term> mterms;
    for (size_t i = 0; i < v.size(); ++i) {
        CK(cudaMalloc(&d_jobs[i], v[i].njobs * sizeof(milnor_row_job) + 16));
        CK(cudaMalloc(&d_terms[i], v[i].nterms * sizeof(milnor_term) + 16));
        CK(cudaMemcpy(d_jobs[i], v[i].jobs, v[i].njobs * sizeof(milnor_row_job), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_terms[i], v[i].terms, v[i].nterms * sizeof(milnor_term), cudaMemcpyHostToDevice));
        for (size_t j = 0; j < v[i].njobs; ++j) {
            milnor_row_job jb = v[i].jobs[j];
            jb.first_term += (uint32_t)mterms.size();
            mjobs.push_back(jb);
        }
        mterms.insert(mterms.end(), v[i].terms, v[i].terms + v[i].nterms);
    }
    CK(cudaMalloc(&d_rows, words * 8 + 8));
    CK(cudaMalloc(&d_merged_rows, njobs * maxstride * 8 + 8));
    CK(cudaMalloc(&d_mjobs, mjobs.size() * sizeof(milnor_row_job) + 16));
    CK(cudaMalloc(&d_mterms, mterms.size() * sizeof(milnor_term) + 16));
    CK(cudaMemcpy(d_mjobs, mjobs.data(), mjobs.size() * sizeof(milnor_row_job), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_mterms, mterms.data(), mterms.size() * sizeof(milnor_term), cudaMemcpyHostToDevice));
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    std::vector<cudaStream_t> streams(16);
    for (cudaStream_t &x : streams) CK(cudaStreamCreate(&x));
    std::vector<uint64_t> ref(words + 1), got(words + 1), hostrows(words + 1);
    double t_cpu1 = cpu_pass(&A, v, ref.data(), 1);

    const int PASSES = 3;
    int bad = 0;
    /* GPU: per mapping and kernel, one stream and 16 streams; all chunks in one launch */
    static const milnor_cuda_cfg all_cfgs[] = { {32, 1, 0, 0}, {32, 4, 0, 0}, {128, 4, 0, 0}, {128, 16, 0, 0},
                                                {256, 16, 0, 0}, {256, 64, 0, 0} };
    static const milnor_cuda_cfg quick_cfgs[] = { {32, 1, 0, 0}, {128, 4, 0, 0}, {256, 16, 0, 0} };
    const milnor_cuda_cfg *cfgs = quick ? quick_cfgs : all_cfgs;
    size_t ncfgs = quick ? 3 : 6;
    std::vector<milnor_cuda_cfg> env_cfgs;          /* BENCH_CFG="T,P T,P ...": these mappings only */
    if (const char *e = getenv("BENCH_CFG")) {
        unsigned t, p;
        int n;
        while (sscanf(e, " %u,%u%n", &t, &p, &n) == 2) {
            env_cfgs.push_back({t, p, 0, 0});
            e += n;
        }
        if (!env_cfgs.empty()) {
            cfgs = env_cfgs.data();
            ncfgs = env_cfgs.size();
        }
    }
    /* atomic: the first kernel; shared: rows in shared memory; sorted: the shared kernel's
     * scheduling with rows in global memory (a budget of 1 byte), to tell the two apart */
    static const struct { const char *name; uint32_t kernel, shared_bytes; } kernels[] = {
        {"atomic", MILNOR_CUDA_KERNEL_ATOMIC, 0}, {"shared", MILNOR_CUDA_KERNEL_SHARED, 0},
        {"sorted", MILNOR_CUDA_KERNEL_SHARED, 1}, {"halves", MILNOR_CUDA_KERNEL_HALVES, 0},
        {"halves24k", MILNOR_CUDA_KERNEL_HALVES, 24u << 10}, {"halves96k", MILNOR_CUDA_KERNEL_HALVES, 96u << 10},
        {"refill", MILNOR_CUDA_KERNEL_REFILL, 0}, {"step", MILNOR_CUDA_KERNEL_STEP, 0},
        {"packed", MILNOR_CUDA_KERNEL_PACKED, 0}, {"atomic-packed", MILNOR_CUDA_KERNEL_ATOMIC_PACKED, 0} };
    const int nkernels = (int)(sizeof kernels / sizeof *kernels);
    const char *only = getenv("BENCH_KERNELS");     /* e.g. "atomic,halves": these only */
    const int merged_only = getenv("BENCH_MERGED_ONLY") != NULL;   /* one launch of all chunks per pass */
    std::vector<int> kbad((size_t)nkernels, 0);
    printf("%-26s %10s %12s\n", "path (kernel T/P mode)", "ns/pair", "pairs/s");
    for (size_t ci = 0; ci < ncfgs; ++ci)
        for (int ki = 0; ki < nkernels; ++ki) {
            if (only && !bench_word_in(only, kernels[ki].name)) continue;
            milnor_cuda_cfg c = cfgs[ci];
            c.kernel = kernels[ki].kernel;
            c.shared_bytes = kernels[ki].shared_bytes;
            std::vector<double> t1, t16, tm;
            for (int p = 0; p < PASSES; ++p) {
                for (int ns : {1, 16}) {
                    if (merged_only) continue;
                    CK(cudaMemset(d_rows, 0x5a, words * 8));    /* poison: a launch writes its rows */
                    double t0 = now();
                    for (size_t i = 0; i < v.size(); ++i)
                        CK((cudaError_t)milnor_mul_batch_cuda_cfg(d_flat, d_jobs[i], (uint32_t)v[i].njobs, d_terms[i],
                                                                  d_rows + v[i].rows_at, (uint32_t)v[i].stride, &c,
                                                                  ns == 1 ? st : streams[i % 16]));
                    CK(cudaDeviceSynchronize());
                    (ns == 1 ? t1 : t16).push_back(now() - t0);
                    CK(cudaMemcpy(got.data(), d_rows, words * 8, cudaMemcpyDeviceToHost));
                    kbad[ki] += memcmp(got.data(), ref.data(), words * 8) != 0;
                }
                double t0 = now();
                CK((cudaError_t)milnor_mul_batch_cuda_cfg(d_flat, d_mjobs, (uint32_t)mjobs.size(), d_mterms,
                                                          d_merged_rows, (uint32_t)maxstride, &c, st));
                CK(cudaStreamSynchronize(st));
                tm.push_back(now() - t0);
            }
            char name[64];
            const struct { const char *what; std::vector<double> *t; } rows[] = { {"chunks", &t1}, {"s16", &t16}, {"merged", &tm} };
            for (const auto &r : rows) {
                if (r.t->empty()) continue;
                snprintf(name, sizeof name, "%s %u/%u %s", kernels[ki].name, c.threads_per_job, c.nparts, r.what);
                double m = median(*r.t);
                printf("%-26s %10.2f %12.3e\n", name, 1e9 * m / (double)pairs, (double)pairs / m);
            }
            /* merged rows: row by row against the reference (stride differs) */
            std::vector<uint64_t> merged(njobs * maxstride + 1);
            CK(cudaMemcpy(merged.data(), d_merged_rows, njobs * maxstride * 8, cudaMemcpyDeviceToHost));
            size_t row = 0;
            for (const rec &r : v)
                for (size_t i = 0; i < r.njobs; ++i, ++row)
                    kbad[ki] += memcmp(merged.data() + row * maxstride, ref.data() + r.rows_at + i * r.stride,
                                       r.stride * 8) != 0;
        }
    for (int ki = 0; ki < nkernels; ++ki) {
        if (only && !bench_word_in(only, kernels[ki].name)) continue;
        printf("check %s: %s\n", kernels[ki].name,
               kbad[ki] ? "DIFFERS from the CPU" : "every row identical to the CPU's (chunks, s16, merged)");
        bad += kbad[ki];
    }

    if (merged_only) return bad != 0;
    /* the chunks with transfers, default mapping */
    std::vector<double> t_xfer, t_cpun;
    for (int p = 0; p < PASSES; ++p) {
        double t0 = now();
        for (size_t i = 0; i < v.size(); ++i) {
            CK(cudaMemcpyAsync(d_jobs[i], v[i].jobs, v[i].njobs * sizeof(milnor_row_job), cudaMemcpyHostToDevice, st));
            CK(cudaMemcpyAsync(d_terms[i], v[i].terms, v[i].nterms * sizeof(milnor_term), cudaMemcpyHostToDevice, st));
            CK((cudaError_t)milnor_mul_batch_cuda(d_flat, d_jobs[i], (uint32_t)v[i].njobs, d_terms[i],
                                                  d_rows + v[i].rows_at, (uint32_t)v[i].stride, st));
            CK(cudaMemcpyAsync(hostrows.data() + v[i].rows_at, d_rows + v[i].rows_at, v[i].njobs * v[i].stride * 8,
                               cudaMemcpyDeviceToHost, st));
        }
        CK(cudaStreamSynchronize(st));
        t_xfer.push_back(now() - t0);
        bad += memcmp(hostrows.data(), ref.data(), words * 8) != 0;
        t_cpun.push_back(cpu_pass(&A, v, got.data(), nthreads));
        bad += memcmp(got.data(), ref.data(), words * 8) != 0;
    }
    printf("%-22s %10.2f\n", "gpu default +xfer", 1e9 * median(t_xfer) / (double)pairs);
    printf("%-22s %10.2f   (one pass)\n", "cpu-1", 1e9 * t_cpu1 / (double)pairs);
    printf("cpu-%-18d %10.2f\n", nthreads, 1e9 * median(t_cpun) / (double)pairs);
    printf("check: %s\n", bad ? "GPU DIFFERS from CPU" : "every GPU row identical to the CPU's");
    return bad != 0;
}
