/* t-milnor-halves.c — the GPU halves kernel's logic (algebra/milnor_halves.h) on the CPU:
 * the R-halves' enumeration against a brute force over all matrices, and a host emulation of
 * the kernel's blocks (counts, rounds through a pool of a given size, tests, the search for
 * jobs that do not fit) against the CPU's reference search (milnor_mul_batch_search) on random
 * batches. Runs without a GPU. Env: SEED (random batches; default time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/milnor_halves.h"
#include "algebra/milnor_sched.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 90
#define JOBS 64                     /* jobs per emulated block, as the kernel's MH_JOBS */

/* Brute force: every choice of x_ij (i = 1..len R, j = 1..MH_COLS, 2^j x_ij <= r_i in all),
 * kept when x_i0 >= 0, the entries on each diagonal have disjoint bits, cs_j <= smax_j and
 * sum_j cs_j (2^j - 1) <= maxdeg. Appends each half to out. */
typedef struct bf {
    const milnor_elt *R;
    const uint32_t *smax;
    int32_t maxdeg;
    uint32_t x[MM_SIDE][MM_SIDE];
    mh_half *out;
    size_t n, cap;
} bf;

static void bf_rec(bf *b, int i, int j, uint32_t used)
{
    const int m = (int)b->R->len;
    if (i > m) {
        uint32_t cs[MH_COLS + 1] = { 0 }, mk[MH_DIAGS + 1] = { 0 };
        int64_t deg = 0;
        for (int ii = 1; ii <= m; ++ii) {
            uint32_t w = 0;
            for (int jj = 1; jj <= MH_COLS; ++jj) {
                uint32_t x = b->x[ii][jj];
                w += x << jj;
                cs[jj] += x;
                if (mk[ii + jj] & x) return;
                mk[ii + jj] |= x;
            }
            uint32_t x0 = b->R->r[ii - 1] - w;
            if (mk[ii] & x0) return;
            mk[ii] |= x0;
        }
        for (int jj = 1; jj <= MH_COLS; ++jj) {
            if (cs[jj] > b->smax[jj]) return;
            deg += (int64_t)cs[jj] * ((1 << jj) - 1);
        }
        if (deg > b->maxdeg) return;
        if (b->n == b->cap) bail("brute force: too many halves");
        mh_store(&b->out[b->n++], cs, mk, MH_DIAGS);
        return;
    }
    if (j > MH_COLS) {
        bf_rec(b, i + 1, 1, 0);
        return;
    }
    const uint32_t r = b->R->r[i - 1];
    for (uint32_t x = 0; used + (x << j) <= r; ++x) {
        b->x[i][j] = x;
        bf_rec(b, i, j + 1, used + (x << j));
    }
    b->x[i][j] = 0;
}

static int half_cmp(const void *a, const void *b) { return memcmp(a, b, sizeof(mh_half)); }

/* The enumeration of R under (smax, maxdeg) = the brute force, as sets; counting = writing. */
static int enum_matches(const milnor_elt *R, const uint32_t *smax, int32_t maxdeg, size_t *nfound)
{
    enum { CAP = 1 << 16 };
    mh_half *a = calloc(CAP, sizeof *a), *c = calloc(CAP, sizeof *c);
    if (!a || !c) bail("out of memory");
    bf b = { R, smax, maxdeg, { { 0 } }, c, 0, CAP };
    bf_rec(&b, 1, 1, 0);
    int32_t counted = mh_enum(R, smax, maxdeg, NULL, CAP), n = mh_enum(R, smax, maxdeg, a, CAP);
    int same = n >= 0 && counted == n && (size_t)n == b.n;
    if (same) {
        qsort(a, (size_t)n, sizeof *a, half_cmp);
        qsort(c, b.n, sizeof *c, half_cmp);
        same = memcmp(a, c, b.n * sizeof *a) == 0;
    }
    *nfound = b.n;
    free(a);
    free(c);
    return same;
}

/* The kernel's block loop on the host: blocks of JOBS jobs; counts under the pool's cap;
 * rounds (mh_round) of enumeration and (half, term) tests; then the search, in parts, for the
 * jobs left out. Returns the number of jobs the search took. rows: zeroed here. */
static uint32_t emulate(const uint32_t *flat, const batch *bt, uint64_t *rows, uint32_t cap, uint32_t nparts)
{
    const uint32_t md = flat[1], total = flat[2];
    const uint32_t *first = flat + MILNOR_FLAT_HEADER;
    const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md));
    const uint32_t *g = flat + MILNOR_FLAT_SEQNO_AT(md, total);
    mh_half *pool = malloc(((size_t)cap + 1) * sizeof *pool);
    if (!pool) bail("out of memory");
    uint32_t fallback = 0;
    memset(rows, 0, (size_t)bt->njobs * bt->stride * sizeof *rows);
    for (uint32_t fj = 0; fj < bt->njobs; fj += JOBS) {
        const uint32_t nj = bt->njobs - fj < JOBS ? bt->njobs - fj : JOBS;
        uint32_t smax[JOBS][MH_COLS + 1], hstart[JOBS], nterms[JOBS], jobno[JOBS];
        int32_t maxdeg[JOBS], cnt[JOBS];
        uint64_t pre[JOBS + 1];
        for (uint32_t l = 0; l < nj; ++l) {
            const milnor_row_job *job = &bt->jobs[fj + l];
            jobno[l] = fj + l;
            nterms[l] = job->n_terms;
            mh_job_bounds(elts, first, job, bt->terms, smax[l], &maxdeg[l]);
            cnt[l] = job->n_terms ? mh_enum(&elts[first[job->r_deg] + job->r_idx], smax[l], maxdeg[l], NULL, cap) : 0;
        }
        for (uint32_t start = 0, end; start < nj; start = end) {
            end = mh_round(cnt, nterms, start, nj, cap, hstart, pre);
            if (end <= start) bail("a round without jobs");
            for (uint32_t l = start; l < end; ++l)
                if (cnt[l] > 0 && (uint32_t)cnt[l] <= cap) {
                    const milnor_row_job *job = &bt->jobs[jobno[l]];
                    if (hstart[l] + (uint32_t)cnt[l] > cap) bail("a round overflows the pool");
                    mh_enum(&elts[first[job->r_deg] + job->r_idx], smax[l], maxdeg[l], pool + hstart[l],
                            (uint32_t)cnt[l]);
                }
            const uint64_t nitems = pre[end - start];
            const uint64_t step = nitems > 7 && nitems % 7 ? 7 : 1;   /* threads take items in any order */
            for (uint64_t q = 0, item = 0; q < nitems; ++q, item = (item + step) % nitems) {
                const uint32_t l = start + mk_item_job(pre, end - start, item);
                uint32_t h, k, idx;
                mh_item(item - pre[l - start], nterms[l], &h, &k);
                const milnor_term *tm = &bt->terms[bt->jobs[jobno[l]].first_term + k];
                if (mh_test(&pool[hstart[l] + h], &elts[first[tm->s_deg] + tm->s_idx], g, &idx)) {
                    const uint32_t bit = tm->col_offset + idx;
                    rows[(size_t)jobno[l] * bt->stride + (bit >> 6)] ^= 1ull << (bit & 63);
                }
            }
        }
        pre[0] = 0;
        for (uint32_t l = 0; l < nj; ++l) {
            const int left = cnt[l] < 0 || (uint32_t)cnt[l] > cap;
            fallback += (uint32_t)left;
            pre[l + 1] = pre[l] + (left ? (uint64_t)nterms[l] * nparts : 0);
        }
        for (uint64_t item = 0; item < pre[nj]; ++item) {
            mk_item it;
            uint32_t bit;
            memset(&it, 0, sizeof it);
            const uint32_t l = mk_item_begin(&it, bt->jobs, bt->terms, elts, first, g, pre, jobno, nj, nparts, item);
            while (mk_item_next(&it, &bit)) rows[(size_t)jobno[l] * bt->stride + (bit >> 6)] ^= 1ull << (bit & 63);
        }
    }
    free(pool);
    return fallback;
}

/* Jobs of random R (degree <= maxr) in runs sharing their terms (a generator's differential,
 * as the resolution's batches), terms of degree <= maxs at random column offsets; some jobs
 * with no terms; units appear among R and S. */
static void batch_runs(const milnor_basis *A, batch *b, uint32_t njobs, uint32_t maxterms, deg_t maxr, deg_t maxs)
{
    memset(b, 0, sizeof *b);
    b->jobs = malloc((size_t)njobs * sizeof *b->jobs);
    b->terms = malloc(((size_t)njobs * maxterms + 1) * sizeof *b->terms);
    if (!b->jobs || !b->terms) bail("out of memory");
    uint32_t cols = 0, first = 0, nt = 0, run = 0;
    for (uint32_t j = 0; j < njobs; ++j) {
        if (run == 0) {                             /* a new generator: new terms */
            run = 1 + rnd(12);
            nt = rnd(maxterms + 1);
            first = (uint32_t)b->nterms;
            for (uint32_t k = 0; k < nt; ++k) {
                deg_t ds = (deg_t)rnd((uint32_t)maxs + 1);
                b->terms[b->nterms++] = (milnor_term){ (uint32_t)ds, rnd(A->dim[ds]), rnd(300) };
            }
        }
        --run;
        deg_t dr = (deg_t)rnd((uint32_t)maxr + 1);
        for (uint32_t k = 0; k < nt; ++k) {
            const milnor_term *tm = &b->terms[first + k];
            if (tm->col_offset + A->dim[dr + (deg_t)tm->s_deg] > cols) cols = tm->col_offset + A->dim[dr + (deg_t)tm->s_deg];
        }
        b->jobs[j] = (milnor_row_job){ (uint32_t)dr, rnd(A->dim[dr]), first, nt };
    }
    b->njobs = njobs;
    b->stride = (cols + 63) / 64 + 1;
}

int main(void)
{
    seed_from_env();
    milnor_basis A;
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("milnor_basis_init");

    /* the enumeration against the brute force: every R of degree <= 24, random bounds */
    {
        size_t tried = 0, halves = 0, bad = 0;
        for (deg_t d = 0; d <= 24; ++d)
            for (uint32_t x = 0; x < A.dim[d]; ++x) {
                uint32_t smax[MH_COLS + 1] = { 0 };
                for (int j = 1; j <= 4; ++j) smax[j] = rnd(2) ? rnd(12) : 0;
                int32_t maxdeg = (int32_t)rnd(40);
                size_t n;
                bad += !enum_matches(&A.elts[d][x], smax, maxdeg, &n);
                halves += n;
                ++tried;
            }
        ok(bad == 0, "R-halves of all %zu R of degree <= 24 under random bounds (%zu halves): enumeration = brute "
           "force, counting = writing", tried, halves);
        uint32_t wide[MH_COLS + 1] = { 0, 60, 60, 60, 60, 60, 0, 0, 0, 0, 0 };
        for (int which = 0; which < 2; ++which) {
            const milnor_elt *X = &A.elts[40][which ? A.dim[40] - 1 : 0];
            size_t n = 0;
            int same = enum_matches(X, wide, 200, &n);
            ok(same && n > 1, "R = the %s element of degree 40, loose bounds: %zu halves, enumeration = brute force",
               which ? "last" : "first", n);
        }
        milnor_elt R = A.elts[40][0];
        int32_t full = mh_enum(&R, wide, 200, NULL, UINT32_MAX);
        ok(full > 1 && mh_enum(&R, wide, 200, NULL, (uint32_t)full - 1) == -1 &&
               mh_enum(&R, wide, 200, NULL, (uint32_t)full) == full,
           "more halves than cap: -1; exactly cap: the count");
        milnor_elt unit = A.elts[0][0];
        ok(mh_enum(&unit, wide, 200, NULL, 1) == 1 && mh_enum(&unit, wide, 200, NULL, 0) == -1,
           "Sq(0) has the one empty half (and none fits a cap of 0)");
    }

    size_t words;
    uint32_t *flat = flat_basis(&A, &words);
    /* the emulated kernel against the CPU search: shapes x pool sizes (cap in halves) */
    static const struct { uint32_t njobs, maxterms, maxr, maxs, cap, nparts; } cases[] = {
        {1, 1, 5, 5, 640, 4},        {40, 20, 30, 30, 640, 4},    {300, 8, 60, 25, 640, 1},
        {300, 8, 60, 25, 16, 4},     {100, 40, 40, 40, 640, 2},   {100, 40, 40, 40, 3, 3},
        {513, 5, 50, 30, 640, 4},    {64, 60, 25, 60, 640, 4},    {64, 60, 25, 60, 1, 4},
        {700, 3, 80, 10, 100, 2},    {200, 30, 45, 45, 640, 4},   {200, 30, 45, 45, 0, 4},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
        for (int rep = 0; rep < 2; ++rep) {
            batch b;
            batch_runs(&A, &b, cases[c].njobs, cases[c].maxterms, (deg_t)cases[c].maxr, (deg_t)cases[c].maxs);
            uint64_t *ref = batch_search_rows(&A, &b), *got = rows_alloc((size_t)b.njobs * b.stride);
            uint32_t searched = emulate(flat, &b, got, cases[c].cap, cases[c].nparts);
            long bad = first_diff_row(ref, got, b.njobs, b.stride);
            ok(bad == -1, "%u jobs x <= %u terms, |R| <= %u, |S| <= %u, pool of %u halves (%u jobs to the search, "
               "%u parts): rows = CPU search", b.njobs, cases[c].maxterms, cases[c].maxr, cases[c].maxs, cases[c].cap,
               searched, cases[c].nparts);
            if (bad >= 0) diag("row %ld differs", bad);
            free(ref);
            free(got);
            batch_free(&b);
        }
    free(flat);
    milnor_basis_clear(&A);
    return done_testing();
}
