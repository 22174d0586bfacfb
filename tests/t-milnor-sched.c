/* t-milnor-sched.c — the shared GPU kernel's logic (algebra/milnor_sched.h), run on the CPU:
 * its cost bins, block layout, item numbering and shared-row packing, in a host emulation of
 * the kernel's passes (bin, starts, scatter, the block loop over the flat basis) against the
 * CPU's reference search (milnor_mul_batch_search), on random batches. Runs without a GPU.
 * Env: SEED (random batches; default time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/milnor_sched.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 90

/* Jobs of random R (degree <= maxr) with runs of random terms (degree <= maxs, some jobs with
 * none) at random column offsets; a few unit factors. */
static void batch_random(const milnor_basis *A, batch *b, uint32_t njobs, uint32_t maxterms, deg_t maxr, deg_t maxs)
{
    memset(b, 0, sizeof *b);
    b->jobs = malloc((size_t)njobs * sizeof *b->jobs);
    b->terms = malloc(((size_t)njobs * maxterms + 1) * sizeof *b->terms);
    if (!b->jobs || !b->terms) bail("out of memory");
    uint32_t cols = 0;
    for (uint32_t j = 0; j < njobs; ++j) {
        deg_t dr = (deg_t)rnd((uint32_t)maxr + 1);
        uint32_t nt = rnd(maxterms + 1), first = (uint32_t)b->nterms;
        for (uint32_t k = 0; k < nt; ++k) {
            deg_t ds = (deg_t)rnd((uint32_t)maxs + 1);
            uint32_t off = rnd(300);
            b->terms[b->nterms++] = (milnor_term){ (uint32_t)ds, rnd(A->dim[ds]), off };
            if (off + A->dim[dr + ds] > cols) cols = off + A->dim[dr + ds];
        }
        b->jobs[j] = (milnor_row_job){ (uint32_t)dr, rnd(A->dim[dr]), first, nt };
    }
    b->njobs = njobs;
    b->stride = (cols + 63) / 64 + 1;
}

/* What the emulation saw, for the checks. */
typedef struct emu_report {
    int order_ok;                   /* order[] is a permutation, bins non-decreasing */
    uint32_t J;                     /* jobs per block (0: global rows) */
} emu_report;

/* The kernel's four passes on the host, over the flat basis, as milnor_cuda.cu runs them:
 * bins and histogram, starts, scatter by blocks of MK_BLOCK jobs, then the blocks of J jobs in
 * the binned order. Items are drawn in a scrambled order (a GPU block's threads draw them in
 * any order). rows: poisoned here when J >= 1 (the kernel stores every word), zeroed else. */
static emu_report emulate(const uint32_t *flat, const batch *bt, uint64_t *rows, uint32_t threads_per_job,
                          uint32_t nparts, uint32_t shared_bytes)
{
    emu_report rep = { 1, 0 };
    const uint32_t md = flat[1], total = flat[2], njobs = bt->njobs, stride = bt->stride;
    const uint32_t *first = flat + MILNOR_FLAT_HEADER;
    const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(md));
    const uint32_t *g = flat + MILNOR_FLAT_SEQNO_AT(md, total);
    uint32_t hist[MK_NBINS] = { 0 }, cursor[MK_NBINS];
    uint8_t *bin = malloc(njobs + 1);
    uint32_t *order = malloc(((size_t)njobs + 1) * sizeof *order), *seen = calloc(njobs + 1, sizeof *seen);
    if (!bin || !order || !seen) bail("out of memory");
    for (uint32_t j = 0; j < njobs; ++j) {                          /* pass 1 */
        bin[j] = (uint8_t)mk_cost_bin(mk_job_cost(elts, first, &bt->jobs[j], bt->terms));
        hist[bin[j]]++;
    }
    mk_bin_starts(hist, cursor);                                    /* pass 2 */
    for (uint32_t b0 = 0; b0 < njobs; b0 += MK_BLOCK) {             /* pass 3, block by block */
        uint32_t h[MK_NBINS] = { 0 }, base[MK_NBINS], rank[MK_BLOCK];
        uint32_t n = njobs - b0 < MK_BLOCK ? njobs - b0 : MK_BLOCK;
        for (uint32_t t = 0; t < n; ++t) rank[t] = h[bin[b0 + t]]++;
        for (uint32_t c = 0; c < MK_NBINS; ++c)
            if (h[c]) {
                base[c] = cursor[c];
                cursor[c] += h[c];
            }
        for (uint32_t t = 0; t < n; ++t) order[base[bin[b0 + t]] + rank[t]] = b0 + t;
    }
    for (uint32_t p = 0; p < njobs; ++p) {
        if (order[p] >= njobs || seen[order[p]]++) rep.order_ok = 0;
        else if (p && bin[order[p]] < bin[order[p - 1]]) rep.order_ok = 0;
    }
    const uint32_t J = mk_jobs_per_block(threads_per_job, stride, shared_bytes);
    const uint32_t per_block = J ? J : MK_BLOCK / threads_per_job;
    rep.J = J;
    memset(rows, J ? 0xa5 : 0, (size_t)njobs * stride * sizeof *rows);
    uint32_t *sh = calloc((size_t)per_block * 2 * stride + 1, sizeof *sh);
    uint64_t *pre = malloc(((size_t)per_block + 1) * sizeof *pre);
    uint32_t *jobno = malloc((size_t)per_block * sizeof *jobno);
    if (!sh || !pre || !jobno) bail("out of memory");
    for (uint64_t first_job = 0; first_job < njobs; first_job += per_block) {   /* pass 4 */
        const uint32_t nj = (uint32_t)(njobs - first_job < per_block ? njobs - first_job : per_block);
        for (uint32_t l = 0; l < nj; ++l) jobno[l] = order[first_job + l];
        if (J) memset(sh, 0, (size_t)nj * 2 * stride * sizeof *sh);
        pre[0] = 0;
        for (uint32_t l = 0; l < nj; ++l) pre[l + 1] = pre[l] + (uint64_t)bt->jobs[jobno[l]].n_terms * nparts;
        const uint64_t nitems = pre[nj];
        const uint64_t step = nitems > 7 && nitems % 7 ? 7 : 1;       /* coprime: every item once */
        for (uint64_t q = 0, item = 0; q < nitems; ++q, item = (item + step) % nitems) {
            mk_item it;
            uint32_t bit;
            const uint32_t l = mk_item_begin(&it, bt->jobs, bt->terms, elts, first, g, pre, jobno, nj, nparts, item);
            if (J) {
                uint32_t *row = sh + (size_t)l * 2 * stride;
                while (mk_item_next(&it, &bit)) row[mk_word32(bit)] ^= mk_mask32(bit);
            } else {
                uint64_t *row = rows + (size_t)jobno[l] * stride;
                while (mk_item_next(&it, &bit)) row[bit >> 6] ^= 1ull << (bit & 63);
            }
        }
        if (J)
            for (uint64_t w = 0; w < (uint64_t)nj * stride; ++w) {
                const uint32_t l = (uint32_t)(w / stride), ww = (uint32_t)(w % stride);
                rows[(size_t)jobno[l] * stride + ww] = mk_word64(sh + (size_t)l * 2 * stride, ww);
            }
    }
    free(sh);
    free(pre);
    free(jobno);
    free(bin);
    free(order);
    free(seen);
    return rep;
}

/* Emulation against the reference search: the first differing row, or -1. */
static long check(const milnor_basis *A, const uint32_t *flat, const batch *b, uint32_t tpj, uint32_t nparts,
                  uint32_t shared_bytes, emu_report *rep)
{
    uint64_t *ref = batch_search_rows(A, b), *got = rows_alloc((size_t)b->njobs * b->stride);
    *rep = emulate(flat, b, got, tpj, nparts, shared_bytes);
    long bad = first_diff_row(ref, got, b->njobs, b->stride);
    free(ref);
    free(got);
    return bad;
}

int main(void)
{
    seed_from_env();

    /* the small functions */
    ok(mk_bitlen(0) == 0 && mk_bitlen(1) == 1 && mk_bitlen(255) == 8 && mk_bitlen(UINT64_MAX) == 64, "mk_bitlen");
    ok(mk_cost_bin(0) == MK_NBINS - 1 && mk_cost_bin(1) == MK_NBINS - 1 && mk_cost_bin(2) == MK_NBINS - 2 &&
           mk_cost_bin(UINT64_MAX) == 0 && mk_cost_bin(1ull << 40) < mk_cost_bin(1ull << 39),
       "cost bins: heaviest first, 0 and 1 in the last bin");
    uint32_t hist[MK_NBINS] = { 0 }, start[MK_NBINS];
    hist[0] = 3;
    hist[5] = 2;
    hist[MK_NBINS - 1] = 4;
    mk_bin_starts(hist, start);
    ok(start[0] == 0 && start[1] == 3 && start[5] == 3 && start[6] == 5 && start[MK_NBINS - 1] == 5,
       "bin starts are the exclusive prefix sums");
    ok(mk_jobs_per_block(128, 100, 40960) == 2 && mk_jobs_per_block(1, 10, 40960) == 256 &&
           mk_jobs_per_block(1, 100, 40960) == 32 && mk_jobs_per_block(32, 5120, 40960) == 1 &&
           mk_jobs_per_block(32, 5121, 40960) == 0 && mk_jobs_per_block(32, 0, 40960) == 0 &&
           mk_jobs_per_block(64, 3, 1) == 0,
       "jobs per block: 256/T, halved until the rows fit, 0 when one row does not (or stride 0)");
    uint64_t pre[] = { 0, 4, 4, 4, 9, 10 };
    int job_ok = 1;
    for (uint64_t item = 0; item < 10; ++item) {
        uint32_t l = mk_item_job(pre, 5, item);
        job_ok &= pre[l] <= item && item < pre[l + 1];
    }
    ok(job_ok && mk_item_job(pre, 5, 4) == 3, "item -> job skips jobs without items");
    uint32_t row32[4] = { 0 };
    uint64_t row64[2] = { 0 };
    int pack_ok = 1;
    for (int k = 0; k < 200; ++k) {
        uint32_t bit = rnd(128);
        row32[mk_word32(bit)] ^= mk_mask32(bit);
        row64[bit >> 6] ^= 1ull << (bit & 63);
    }
    pack_ok = mk_word64(row32, 0) == row64[0] && mk_word64(row32, 1) == row64[1];
    ok(pack_ok, "32-bit shared words pack into the 64-bit row words");

    milnor_basis A;
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("milnor_basis_init");
    size_t words;
    uint32_t *flat = flat_basis(&A, &words);

    /* mk_item_step (one search step a call, the step kernel's) gives mk_item_next's terms in the
     * same order, for every part of random products, unit factors included */
    {
        batch b;
        batch_random(&A, &b, 300, 4, 70, 70);
        uint64_t items = 0, terms = 0, steps = 0;
        int same = 1;
        for (uint32_t j = 0; j < b.njobs && same; ++j)
            for (uint32_t k = 0; k < b.jobs[j].n_terms && same; ++k)
                for (uint32_t np = 1; np <= 3 && same; np += 2)
                    for (uint32_t part = 0; part < np && same; ++part) {
                        const milnor_term *tm = &b.terms[b.jobs[j].first_term + k];
                        const milnor_elt *R = &A.elts[b.jobs[j].r_deg][b.jobs[j].r_idx], *S = &A.elts[tm->s_deg][tm->s_idx];
                        mk_item x, y;
                        uint32_t bx = 0, by = 0;
                        int rx, ry;
                        mk_item_start(&x, A.seq_g, R, S, tm->col_offset, part, np);
                        mk_item_start(&y, A.seq_g, R, S, tm->col_offset, part, np);
                        ++items;
                        do {
                            rx = mk_item_next(&x, &bx);
                            while ((ry = mk_item_step(&y, &by)) == MM_STEP_ON) ++steps;
                            ++steps;
                            same = rx == ry && (!rx || bx == by);
                            terms += rx == 1;
                        } while (rx && same);
                    }
        ok(same, "mk_item_step = mk_item_next, term by term (%llu items, %llu terms, %.1f steps a term)",
           (unsigned long long)items, (unsigned long long)terms, terms ? (double)steps / (double)terms : 0.0);
        batch_free(&b);
    }

    /* the cost model ranks products: leaves found by the jobs of the top quarter of estimated
     * costs against those of the bottom quarter (deterministic work, unlike a timing) */
    {
        batch b;
        batch_random(&A, &b, 400, 1, 60, 30);
        const milnor_elt *elts = (const milnor_elt *)(flat + MILNOR_FLAT_ELTS_AT(flat[1]));
        uint64_t *cost = malloc(b.njobs * sizeof *cost), *leaves = calloc(b.njobs, sizeof *leaves);
        if (!cost || !leaves) bail("out of memory");
        for (uint32_t j = 0; j < b.njobs; ++j) {
            cost[j] = mk_job_cost(elts, flat + MILNOR_FLAT_HEADER, &b.jobs[j], b.terms);
            for (uint32_t k = 0; k < b.jobs[j].n_terms; ++k) {
                const milnor_term *tm = &b.terms[b.jobs[j].first_term + k];
                mk_item it;
                uint32_t bit;
                mk_item_start(&it, A.seq_g, &A.elts[b.jobs[j].r_deg][b.jobs[j].r_idx], &A.elts[tm->s_deg][tm->s_idx],
                              0, 0, 1);
                while (mk_item_next(&it, &bit)) leaves[j]++;
            }
        }
        /* sort indices by cost (insertion sort: 400) */
        uint32_t idx[400];
        for (uint32_t j = 0; j < b.njobs; ++j) {
            uint32_t p = j;
            while (p && cost[idx[p - 1]] > cost[j]) {
                idx[p] = idx[p - 1];
                --p;
            }
            idx[p] = j;
        }
        double lo = 0, hi = 0;
        for (uint32_t q = 0; q < b.njobs / 4; ++q) {
            lo += (double)leaves[idx[q]];
            hi += (double)leaves[idx[b.njobs - 1 - q]];
        }
        diag("cost model: terms found by the top quarter of jobs %.0f, by the bottom quarter %.0f", hi, lo);
        ok(hi > 4 * lo, "jobs estimated heavy find more terms than jobs estimated light (%.0f vs %.0f)", hi, lo);
        free(cost);
        free(leaves);
        batch_free(&b);
    }

    /* the emulated kernel against the CPU search: mappings x row budgets (shared rows, halved
     * jobs per block, global rows) */
    static const struct { uint32_t njobs, maxterms, maxr, maxs, tpj, nparts; int budget; } cases[] = {
        /* budget: 0 the default, 1 one byte (global rows), 2 three rows (J halved) */
        {1, 1, 5, 5, 128, 4, 0},      {40, 20, 30, 30, 128, 4, 0},  {300, 8, 60, 25, 1, 1, 0},
        {300, 8, 60, 25, 1, 1, 2},    {100, 40, 40, 40, 32, 1, 1},  {100, 40, 40, 40, 64, 3, 2},
        {513, 5, 50, 30, 16, 8, 0},   {64, 60, 25, 60, 256, 32, 0}, {64, 60, 25, 60, 256, 32, 1},
        {700, 3, 80, 10, 2, 2, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
        for (int rep = 0; rep < 2; ++rep) {
            batch b;
            batch_random(&A, &b, cases[c].njobs, cases[c].maxterms, (deg_t)cases[c].maxr, (deg_t)cases[c].maxs);
            uint32_t budget = cases[c].budget == 0 ? MK_SHARED_DEFAULT
                              : cases[c].budget == 1 ? 1 : 3 * 8 * b.stride;
            emu_report er;
            long bad = check(&A, flat, &b, cases[c].tpj, cases[c].nparts, budget, &er);
            ok(bad == -1 && er.order_ok,
               "%u jobs x <= %u terms, |R| <= %u, |S| <= %u, %u/%u, rows %s (J = %u): binned order is a "
               "permutation, heaviest first; rows = CPU search",
               b.njobs, cases[c].maxterms, cases[c].maxr, cases[c].maxs, cases[c].tpj, cases[c].nparts,
               er.J ? "in shared memory" : "in global memory", er.J);
            if (bad >= 0) diag("row %ld differs", bad);
            batch_free(&b);
        }
    free(flat);
    milnor_basis_clear(&A);
    return done_testing();
}
