/* t-lift-share.c — a lift step's shared extras (stages/products/lift.h, lift_share.c) against
 * the plain way: random steps whose generators use random jobs (a left factor Sq(R) times one of
 * a few random term lists, many jobs shared between generators, some used twice by one
 * generator), planned through lift_share, emitted as grouped rows and multiplied; each
 * generator's extra, the XOR of its grouped rows, must equal the products of its own jobs
 * multiplied into one row (milnor_mul_batch), with a job used twice cancelled by the sum mod 2.
 * Also: the pairs kept never exceed those read and are fewer where generators share, a step
 * with no job gives no grouped row, and long lists are cut into several grouped rows; and a
 * row_build's grouped-row bounds stay right as their array grows. */
#include <stdlib.h>
#include <string.h>
#include "algebra/milnor.h"
#include "stages/products/lift.h"
#include "tests/tap.h"

#define TOP 24          /* degrees of the basis */
#define NCOLS 2048      /* the rows' width */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

typedef struct tlist {
    milnor_term *t;
    uint32_t n;
} tlist;
typedef struct tjob {
    uint32_t list, r_deg, r_idx;
} tjob;

/* A random basis element of degree 1..maxd as (degree, index). */
static void random_elt(const milnor_basis *A, uint32_t maxd, uint32_t *d, uint32_t *idx)
{
    *d = 1 + rnd(maxd);
    *idx = rnd(A->dim[*d]);
}

/* One random step: ngen generators, nlists lists of up to maxterms terms, njobs distinct jobs,
 * uses per generator; returns 1 when every generator's XOR of rows is its own product sum. */
static int one_step(const milnor_basis *A, uint32_t ngen, uint32_t nlists, uint32_t maxterms, uint32_t njobs,
                    uint32_t uses, uint64_t *read, uint64_t *kept, uint32_t *ngroups, uint64_t *maxpairs)
{
    tlist *lists = calloc(nlists, sizeof *lists);
    tjob *jobs = calloc(njobs, sizeof *jobs);
    for (uint32_t l = 0; l < nlists; l++) {
        lists[l].n = 1 + rnd(maxterms);
        lists[l].t = malloc(lists[l].n * sizeof *lists[l].t);
        for (uint32_t i = 0; i < lists[l].n; i++) {
            uint32_t d, idx;
            random_elt(A, 8, &d, &idx);
            lists[l].t[i] = (milnor_term){ d, idx, rnd(NCOLS - 1024) };
        }
    }
    for (uint32_t j = 0; j < njobs; j++) {
        jobs[j].list = rnd(nlists);
        random_elt(A, 8, &jobs[j].r_deg, &jobs[j].r_idx);
    }
    row_build b = { 0 };
    lift_share *x = lift_share_new(&b, ngen);
    uint32_t *pick = malloc(((size_t)ngen * uses + 1) * sizeof *pick);
    int good = x && pick;
    for (uint32_t k = 0; k < ngen && good; k++) {
        lift_share_gen(x, k);
        for (uint32_t u = 0; u < uses && good; u++) {
            uint32_t j = rnd(njobs);
            if (u && rnd(8) == 0) j = pick[k * uses + rnd(u)];     /* used twice: cancels */
            pick[k * uses + u] = j;
            uint64_t key[LIFT_SHARE_KEY] = { 7, jobs[j].list, 0, 0 };
            uint32_t id;
            int have = lift_share_list(x, key, &id);
            for (uint32_t i = 0; have == 0 && i < lists[jobs[j].list].n; i++)
                good = lift_share_terms(x)->term(lift_share_terms(x)->ctx, lists[jobs[j].list].t[i]) == 0;
            good = good && have >= 0 && lift_share_job(x, id, jobs[j].r_deg, jobs[j].r_idx) == 0;
        }
    }
    uint32_t *offs = NULL, *glist = NULL;
    good = good && lift_share_emit(x, &offs, &glist, read, kept) == 0 && rb_alloc(&b, NCOLS) == 0;
    lift_share_free(x);
    if (good) rb_multiply_all(&b, A);
    *ngroups = b.ngroups;
    *maxpairs = 0;
    for (uint32_t g = 0; g < b.ngroups; g++)
        if (rb_group_pairs(&b, g) > *maxpairs) *maxpairs = rb_group_pairs(&b, g);
    /* each generator's own products, into one row */
    uint32_t words = (NCOLS + 63) / 64;
    uint64_t *want = calloc(words, sizeof *want), *got = calloc(words, sizeof *got);
    milnor_term *terms = malloc(((size_t)uses * maxterms + 1) * sizeof *terms);
    milnor_row_job *rj = malloc(((size_t)uses + 1) * sizeof *rj);
    good = good && want && got && terms && rj;
    for (uint32_t k = 0; k < ngen && good; k++) {
        uint32_t nt = 0;
        for (uint32_t u = 0; u < uses; u++) {
            const tjob *j = &jobs[pick[k * uses + u]];
            rj[u] = (milnor_row_job){ j->r_deg, j->r_idx, nt, lists[j->list].n };
            memcpy(terms + nt, lists[j->list].t, lists[j->list].n * sizeof *terms);
            nt += lists[j->list].n;
        }
        memset(want, 0, words * sizeof *want);
        memset(got, 0, words * sizeof *got);
        milnor_mul_batch(A, rj, uses, terms, want, 0);
        for (uint32_t g = offs[k]; g < offs[k + 1]; g++)
            for (uint32_t w = 0; w < words; w++) got[w] ^= f2mat_row(&b.D, b.nrows + glist[g])[w];
        good = !memcmp(want, got, words * sizeof *want);
        if (!good) diag("generator %u of %u differs", k, ngen);
    }
    for (uint32_t l = 0; l < nlists; l++) free(lists[l].t);
    free(lists), free(jobs), free(pick), free(offs), free(glist), free(want), free(got), free(terms), free(rj);
    rb_clear(&b);
    return good;
}

/* Grouped rows of a row_build (stages/rowbuild.h) made one job each, n of them for every n up to
 * 70 (the bounds array grows past 16, 32 and 64 entries): group g must span job 3 + g alone.
 * rb_group_end once wrote the next group's start one entry past the array (16 groups of 16 entries:
 * ASan's heap-buffer-overflow, and the entry lost when the array moved). */
static int group_bounds(void)
{
    int good = 1;
    for (uint32_t n = 1; n <= 70 && good; n++) {
        row_build b = { 0 };
        for (uint32_t r = 0; r < 3 && good; r++) good = rb_push_job(&b, (milnor_row_job){ 1, 0, 0, 1 }) == 0;
        good = good && rb_push_term(&b, (milnor_term){ 1, 0, 0 }) == 0;
        milnor_sink to = rb_group_sink(&b);
        for (uint32_t g = 0; g < n && good; g++)
            good = to.job(to.ctx, (milnor_row_job){ 1, 0, 0, 1 }) == 0 && rb_group_end(&b) == 0;
        good = good && b.ngroups == n && rb_njobs(&b) == 3 + n;
        for (uint32_t g = 0; g <= n && good; g++) good = b.group_job[g] == 3 + g;
        if (!good) diag("%u grouped rows: bounds wrong", n);
        rb_clear(&b);
    }
    return good;
}

int main(void)
{
    milnor_basis A;
    if (milnor_basis_init(&A, TOP, NULL) < 0) bail("init A");
    plan(7);
    int all = 1;
    uint64_t read = 0, kept = 0;
    uint32_t ng = 0;
    uint64_t mp = 0;
    for (int r = 0; r < 40 && all; r++) {
        uint32_t ngen = 1 + rnd(12);
        all = one_step(&A, ngen, 1 + rnd(10), 1 + rnd(40), 1 + rnd(60), 1 + rnd(30), &read, &kept, &ng, &mp);
    }
    ok(all, "40 random steps: each generator's XOR of its grouped rows is its jobs' products (a job used twice "
       "cancels)");
    ok(kept <= read, "pairs kept (%llu) <= pairs read (%llu)", (unsigned long long)kept, (unsigned long long)read);
    read = kept = 0;
    int shared = one_step(&A, 16, 3, 200, 8, 20, &read, &kept, &ng, &mp);
    ok(shared && 2 * kept < read, "16 generators drawing on 8 jobs: the same products, %llu pairs kept of %llu read",
       (unsigned long long)kept, (unsigned long long)read);
    read = kept = 0;
    ok(one_step(&A, 5, 4, 1, 4, 0, &read, &kept, &ng, &mp) && ng == 0 && kept == 0,
       "a step whose generators use no job has no grouped row");
    read = kept = 0;
    int cut = one_step(&A, 6, 3, 4000, 60, 40, &read, &kept, &ng, &mp);
    ok(cut && kept > 2 * 49152 && mp <= 49152 + 4000, "long lists (%llu pairs kept) cut into %u grouped rows of at "
       "most %llu pairs, the same products", (unsigned long long)kept, ng, (unsigned long long)mp);
    read = kept = 0;
    ok(one_step(&A, 1, 5, 30, 40, 25, &read, &kept, &ng, &mp), "one generator alone");
    ok(group_bounds(), "a row_build's grouped rows, 1 to 70 of them, one job each after 3 single rows: "
       "group_job[g] = 3 + g for every g <= ngroups");
    milnor_basis_clear(&A);
    return done_testing();
}
