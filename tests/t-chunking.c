/* t-chunking.c — how runtime/rt_mul cuts a build's rows into multiply chunks, checked on
 * made-up builds without running StarPU: the chunks tile the rows; a GPU-sized build goes to
 * the CUDA workers whole, or with EXTFLOW_GPU_CPU_SHARE's f its last f of the pairs to the CPU
 * workers in small chunks; small builds and a profile's basis stay on the CPUs. SEED=n
 * reproduces a run. */
#include "runtime/rt_mul.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng;
static uint32_t rnd(uint32_t n) { rng = rng * 6364136223846793005ULL + 1442695040888963407ULL; return (uint32_t)(rng >> 33) % n; }

/* nrows jobs of 1..maxterms terms each */
static void make_build(row_build *b, uint32_t nrows, uint32_t maxterms)
{
    memset(b, 0, sizeof *b);
    b->nrows = nrows;
    b->jobs = calloc(nrows ? nrows : 1, sizeof *b->jobs);
    if (!b->jobs) bail("oom");
    for (uint32_t r = 0; r < nrows; r++) b->jobs[r].n_terms = 1 + rnd(maxterms);
}

typedef struct cut_stats {
    uint64_t pairs[2];          /* on chunks CUDA may run / CPU only */
    uint64_t max_cpu_chunk;     /* largest CPU-only chunk, pairs */
    uint32_t chunks, rows;
    int cpu_before_gpu;         /* a CPU-only chunk came before one CUDA may run */
} cut_stats;

/* The chunks as rt_mul_submit makes them. */
static cut_stats cut(const rt_mul *m, const row_build *b, uint64_t *total)
{
    cut_stats st = { { 0, 0 }, 0, 0, 0, 0 };
    rt_chunking k = rt_mul_chunking(m, b, total);
    uint64_t done = 0, pairs;
    unsigned where;
    int seen_cpu = 0;
    for (uint32_t r = 0; r < b->nrows; st.chunks++, done += pairs) {
        uint32_t n = rt_mul_chunk_rows(b, r, done, &k, &pairs, &where);
        if (n == 0) break;
        uint64_t sum = 0;
        for (uint32_t i = r; i < r + n; i++) sum += b->jobs[i].n_terms;
        if (sum != pairs) st.rows = UINT32_MAX;           /* pairs misreported */
        int cuda = (where & STARPU_CUDA) != 0;
        st.pairs[!cuda] += pairs;
        if (!cuda && pairs > st.max_cpu_chunk) st.max_cpu_chunk = pairs;
        if (cuda && seen_cpu) st.cpu_before_gpu = 1;
        seen_cpu |= !cuda;
        r += n;
        if (st.rows != UINT32_MAX) st.rows += n;
    }
    return st;
}

int main(void)
{
    const char *s = getenv("SEED");
    rng = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
    diag("SEED=%llu", (unsigned long long)rng);
    plan_lazy();
    uint32_t words[4] = { 0 };   /* a flat basis header that is not a profile's */
    rt_mul m;
    memset(&m, 0, sizeof m);
    m.basis_words = words;
    m.ncuda = 1;
    m.gpu_by_size = 1;
    m.gpu_step_pairs = 1u << 18;
    m.gpu_chunk_pairs = 1u << 20;
    m.chunk_pairs = 65536;

    row_build big, small;
    make_build(&big, 40000, 200);      /* about 4M pairs: a GPU build */
    make_build(&small, 500, 200);      /* about 50k pairs: a CPU build */
    uint64_t total, tsmall;

    cut_stats a = cut(&m, &big, &total);
    ok(a.rows == big.nrows && a.pairs[0] == total && a.pairs[1] == 0,
       "share 0: a GPU build's %u rows (%llu pairs) all in chunks for the GPU (%u chunks)", a.rows,
       (unsigned long long)total, a.chunks);

    static const double shares[] = { 0.1, 0.3, 0.9 };
    for (size_t i = 0; i < sizeof shares / sizeof *shares; i++) {
        m.gpu_cpu_share = shares[i];
        cut_stats b = cut(&m, &big, &total);
        double want = shares[i] * (double)total;
        ok(b.rows == big.nrows && b.pairs[0] + b.pairs[1] == total && !b.cpu_before_gpu &&
           (double)b.pairs[1] > want - 200 && (double)b.pairs[1] < want + 200 && b.max_cpu_chunk < 65536 + 200,
           "share %.1f: the rows tile, the last %llu of %llu pairs (want %.0f +- one row) in CPU chunks of "
           "at most %llu pairs, after the GPU's", shares[i], (unsigned long long)b.pairs[1], (unsigned long long)total,
           want, (unsigned long long)b.max_cpu_chunk);
    }
    m.gpu_cpu_share = 0.3;
    cut_stats c = cut(&m, &small, &tsmall);
    ok(c.rows == small.nrows && c.pairs[0] == 0 && c.pairs[1] == tsmall && c.max_cpu_chunk < 12288 + 200,
       "a build below the GPU's size: CPU chunks of about 12288 pairs, whatever the share (%u chunks)", c.chunks);
    words[0] = MILNOR_FLAT_MAGIC_PROFILE;
    cut_stats d = cut(&m, &big, &total);
    ok(d.rows == big.nrows && d.pairs[0] == 0 && d.pairs[1] == total, "a profile's basis: every chunk on the CPUs");
    words[0] = 0;
    m.gpu_cpu_share = 0;
    row_build one;
    make_build(&one, 1, 5);
    one.jobs[0].n_terms = 1u << 22;         /* one row larger than any chunk */
    cut_stats e = cut(&m, &one, &total);
    ok(e.rows == 1 && e.chunks == 1 && e.pairs[0] == total, "a single row larger than a chunk is one chunk");
    free(big.jobs);
    free(small.jobs);
    free(one.jobs);
    return done_testing();
}
