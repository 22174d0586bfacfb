/* t-pair-search.c — the GPU's mod-4 search (algebra/pair_search.h), compiled here as plain C,
 * against the CPU's (milnor_mul_mod4_each): the same (T, c) in the same order for every pair
 * of basis elements up to a degree and for random pairs; split parts that together make the
 * whole; and the kernel's work items (pm4_item) run one after the other on random batches with
 * random starting rows, against pair_mul_mod4_batch, which in turn is checked against
 * pair_sigma_mul_add's ones and twos; and the memo of products (pair_mul_mod4_batch_memo):
 * the same rows when it fills, when it recalls, when its budget leaves it nearly empty, when
 * two threads share it, when a product is 0 mod 4 (no words), and when readers hit (without a
 * lock) while a writer grows its tables.
 * Runs everywhere (no GPU).
 * Env: SEED (random cases; default time). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algebra/milnor.h"
#include "algebra/pair_algebra.h"
#include "algebra/pair_search.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 120
#define ALL_PAIRS_DEG 48

typedef struct emits {
    uint64_t *v;                                /* index << 2 | c */
    size_t n, cap;
} emits;

static const milnor_basis *the_basis;

/* One pass of a batch through a memo, from start, into a fresh copy (a thread's work). */
typedef struct memo_pass {
    const milnor_basis *A;
    pair_m4_memo *memo;
    const batch *b;
    const uint64_t *start;
    uint64_t *rows;
} memo_pass;

static void *memo_run(void *vp)
{
    memo_pass *p = vp;
    p->rows = rows_alloc(p->b->words);
    memcpy(p->rows, p->start, p->b->words * sizeof *p->rows);
    pair_mul_mod4_batch_memo(p->A, p->memo, p->b->jobs, p->b->njobs, p->b->terms, p->rows, p->b->stride,
                             p->b->twos_at);
    return NULL;
}

/* Readers and writers sharing one memo: a reader passes over its batch (whose products the memo
 * holds) again and again until the writers are done, and at least `min_passes` times, each pass
 * checked against ref; a writer passes once over each of its `writer` batches of new products
 * (the second writer from the last batch down, so that the two race to put the same products
 * in), and the tables grow under the readers (who pause between passes, to leave the writers
 * the cores). */
typedef struct memo_share {
    memo_pass pass;                             /* a writer's: batches pass.b[0 .. writer) */
    const uint64_t *ref;
    int writer, backwards, min_passes, writers, *writers_done;
    int passes, bad;
    uint64_t **wref, **wstart;                  /* a writer's batches' refs and starts */
} memo_share;

static void *memo_share_run(void *vp)
{
    memo_share *q = vp;
    for (int x = 0; x < q->writer; x++) {
        int k = q->backwards ? q->writer - 1 - x : x;
        memo_pass p = { q->pass.A, q->pass.memo, &q->pass.b[k], q->wstart[k], NULL };
        memo_run(&p);
        q->bad += memcmp(q->wref[k], p.rows, p.b->words * sizeof *p.rows) != 0;
        free(p.rows);
        q->passes++;
    }
    if (q->writer) {
        __atomic_add_fetch(q->writers_done, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    while (__atomic_load_n(q->writers_done, __ATOMIC_ACQUIRE) < q->writers || q->passes < q->min_passes) {
        memo_run(&q->pass);
        q->bad += memcmp(q->ref, q->pass.rows, q->pass.b->words * sizeof *q->ref) != 0;
        free(q->pass.rows);
        q->passes++;
        nanosleep(&(struct timespec){ 0, 200000 }, NULL);
    }
    return NULL;
}

static uint64_t batch_pairs(const batch *b)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < b->njobs; ++i) n += b->jobs[i].n_terms;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Appends the pairs (R, S) of b, as (|R|, index, |S|, index) in one word, to *keys (*n of them). */
static void batch_keys(const batch *b, uint64_t **keys, size_t *n)
{
    *keys = realloc(*keys, (*n + batch_pairs(b) + 1) * sizeof **keys);
    if (!*keys) bail("out of memory");
    for (uint32_t i = 0; i < b->njobs; ++i)
        for (uint32_t k = 0; k < b->jobs[i].n_terms; ++k) {
            const milnor_term *t = &b->terms[b->jobs[i].first_term + k];
            (*keys)[(*n)++] = (uint64_t)b->jobs[i].r_deg << 53 | (uint64_t)b->jobs[i].r_idx << 32 |
                              (uint64_t)t->s_deg << 21 | t->s_idx;
        }
}

/* Sorts keys[0..n) and drops repeats: the number left. */
static size_t distinct(uint64_t *keys, size_t n)
{
    qsort(keys, n, sizeof *keys, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (!m || keys[i] != keys[m - 1]) keys[m++] = keys[i];
    return m;
}

static void push(emits *e, uint64_t x)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 256;
        e->v = realloc(e->v, e->cap * sizeof *e->v);
        if (!e->v) bail("out of memory");
    }
    e->v[e->n++] = x;
}

static void collect(const milnor_elt *T, unsigned c, void *ctx)
{
    push(ctx, (uint64_t)milnor_index(the_basis, T) << 2 | c);
}

/* The GPU search's emits for part `part` of `nparts`. */
static void gpu_search(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S, uint32_t part,
                       uint32_t nparts, emits *e)
{
    pm4_search s;
    uint32_t t[MILNOR_MAX_LEN];
    unsigned c;
    int len;
    if (!pm4_setup(&s, R, S)) return;
    pm4_split(&s, part, nparts);
    while ((len = pm4_next(&s, t, &c)) >= 0) {
        milnor_elt T;
        milnor_elt_set(&T, t, len);
        push(e, (uint64_t)milnor_index(A, &T) << 2 | c);
    }
}

/* 1 if the GPU search emits what milnor_mul_mod4_each does, in the same order, and its parts
 * for nparts together emit the same multiset. */
static int same_pair(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S, uint32_t nparts,
                     emits *cpu, emits *gpu, size_t *count)
{
    cpu->n = gpu->n = 0;
    milnor_mul_mod4_each(R, S, collect, cpu);
    gpu_search(A, R, S, 0, 1, gpu);
    *count += cpu->n;
    if (cpu->n != gpu->n || (cpu->n && memcmp(cpu->v, gpu->v, cpu->n * sizeof *cpu->v))) return 0;
    if (nparts <= 1) return 1;
    gpu->n = 0;
    for (uint32_t p = 0; p < nparts; ++p) gpu_search(A, R, S, p, nparts, gpu);
    if (gpu->n != cpu->n) return 0;
    qsort(cpu->v, cpu->n, sizeof *cpu->v, cmp_u64);
    qsort(gpu->v, gpu->n, sizeof *gpu->v, cmp_u64);
    return !cpu->n || !memcmp(cpu->v, gpu->v, cpu->n * sizeof *cpu->v);
}

static void random_elt(const milnor_basis *A, deg_t maxdeg, milnor_elt *x)
{
    deg_t d = (deg_t)rnd((uint32_t)maxdeg + 1);
    *x = A->elts[d][rnd(A->dim[d])];
}

int main(void)
{
    seed_from_env();
    milnor_basis A;
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("milnor_basis_init");
    the_basis = &A;
    emits cpu = { 0 }, gpu = { 0 };

    {   /* every pair of degree <= ALL_PAIRS_DEG */
        size_t pairs = 0, terms = 0, bad = 0;
        for (deg_t dr = 0; dr <= ALL_PAIRS_DEG; ++dr)
            for (deg_t ds = 0; dr + ds <= ALL_PAIRS_DEG; ++ds)
                for (uint32_t i = 0; i < A.dim[dr]; ++i)
                    for (uint32_t j = 0; j < A.dim[ds]; ++j, ++pairs)
                        if (!same_pair(&A, &A.elts[dr][i], &A.elts[ds][j], 1 + (uint32_t)(pairs % 5), &cpu, &gpu,
                                       &terms) && bad++ < 3)
                            diag("differs: degrees %d x %d, indices %u x %u", dr, ds, i, j);
        ok(bad == 0, "all %zu pairs of degree <= %d: the same %zu (T, c) in the same order; parts 1..5 make the whole",
           pairs, ALL_PAIRS_DEG, terms);
    }
    {   /* random pairs up to MAXDEG, split in up to 64 parts */
        size_t terms = 0, bad = 0;
        for (int rep = 0; rep < 3000; ++rep) {
            milnor_elt R, S;
            random_elt(&A, MAXDEG / 2, &R);
            random_elt(&A, MAXDEG - R.degree, &S);
            if (!same_pair(&A, &R, &S, 1 + rnd(64), &cpu, &gpu, &terms) && bad++ < 3)
                diag("differs: degrees %d x %d", R.degree, S.degree);
        }
        ok(bad == 0, "3000 random pairs of degree <= %d: the same (T, c) (%zu in all), split parts make the whole",
           MAXDEG, terms);
    }
    {   /* the units: Sq(0)·x = x·Sq(0) = x with coefficient 1 */
        int good = 1;
        for (deg_t d = 0; d <= 30 && good; ++d)
            for (uint32_t j = 0; j < A.dim[d] && good; ++j)
                for (int side = 0; side < 2 && good; ++side) {
                    gpu.n = 0;
                    gpu_search(&A, side ? &A.elts[d][j] : &A.elts[0][0], side ? &A.elts[0][0] : &A.elts[d][j], 0, 1,
                               &gpu);
                    good = gpu.n == 1 && gpu.v[0] == ((uint64_t)j << 2 | 1);
                }
        ok(good, "Sq(0) on either side: the element itself, coefficient 1");
    }

    /* the kernel's work items against pair_mul_mod4_batch, from random starting rows */
    static const uint32_t shapes[][4] = {   /* ngens, maxterms, max |R|, max |S| */
        {1, 1, 5, 5}, {1, 33, 20, 20}, {3, 40, 40, 40}, {30, 8, 50, 30}, {60, 20, 30, 50}, {5, 100, 60, 20},
    };
    size_t flat_words;
    uint32_t *flat = flat_basis(&A, &flat_words);
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; ++sh)
        for (int one_row = 0; one_row < 2; ++one_row) {
            batch b;
            batch_random_mod4(&A, &b, shapes[sh][0], shapes[sh][1], (deg_t)shapes[sh][2], (deg_t)shapes[sh][3],
                              one_row, 48, 2);
            uint64_t *emu, *ref = batch_mod4_rows(&A, &b, 1, &emu);
            uint32_t nparts = 1 + rnd(8);
            /* items dealt as the kernel deals them; the order does not matter in Z/4 */
            for (size_t i = b.njobs; i-- > 0;)
                for (uint32_t item = 0; item < b.jobs[i].n_terms * nparts; ++item)
                    pm4_item(flat, b.jobs[i], b.terms[b.jobs[i].first_term + item / nparts], emu + i * b.stride,
                             b.twos_at, item % nparts, nparts);
            ok(!memcmp(ref, emu, b.words * sizeof *ref),
               "work items = pair_mul_mod4_batch: %u jobs x <= %u terms, |R| <= %u, |S| <= %u, %u parts, %s",
               b.njobs, shapes[sh][1], shapes[sh][2], shapes[sh][3], nparts,
               one_row ? "all into one row" : "a row each");
            free(ref);
            free(emu);
            batch_free(&b);
        }
    free(flat);

    /* the memo: filled, recalled, partly filled (a budget of 1 MB), shared by two threads */
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; ++sh) {
        batch b;
        batch_random_mod4(&A, &b, shapes[sh][0], shapes[sh][1], (deg_t)shapes[sh][2], (deg_t)shapes[sh][3], 0, 48, 2);
        uint64_t *start, *ref = batch_mod4_rows(&A, &b, 1, &start);
        pair_m4_memo *big = pair_m4_memo_new((size_t)64 << 20), *tiny = pair_m4_memo_new((size_t)1 << 20);
        if (!big || !tiny) bail("out of memory");
        int good = 1;
        memo_pass p[4] = { { &A, big, &b, start, NULL }, { &A, big, &b, start, NULL }, { &A, tiny, &b, start, NULL },
                           { &A, tiny, &b, start, NULL } };
        for (int k = 0; k < 4; k++) {           /* one after the other: k = 1, 3 recall what they can */
            memo_run(&p[k]);
            good &= !memcmp(ref, p[k].rows, b.words * sizeof *ref);
            free(p[k].rows);
        }
        uint64_t held, hits, misses, tiny_held;
        size_t bytes;
        pair_m4_memo_stats(tiny, &tiny_held, &hits, &misses, &bytes);
        pair_m4_memo_stats(big, &held, &hits, &misses, &bytes);
        good &= hits >= misses && held == misses && tiny_held <= held;
        pthread_t th[2];
        pair_m4_memo *fresh = pair_m4_memo_new((size_t)64 << 20);
        memo_pass q[2] = { { &A, fresh, &b, start, NULL }, { &A, fresh, &b, start, NULL } };
        for (int k = 0; k < 2; k++)
            if (pthread_create(&th[k], NULL, memo_run, &q[k]) != 0) bail("pthread_create");
        for (int k = 0; k < 2; k++) {
            pthread_join(th[k], NULL);
            good &= !memcmp(ref, q[k].rows, b.words * sizeof *ref);
            free(q[k].rows);
        }
        ok(good, "the memo = pair_mul_mod4_batch: %u jobs x <= %u terms, |R| <= %u, |S| <= %u: filling, recalling "
           "(%llu of %llu pairs), a 1 MB budget (%llu held), two threads at once", b.njobs, shapes[sh][1],
           shapes[sh][2], shapes[sh][3], (unsigned long long)hits, (unsigned long long)(hits + misses),
           (unsigned long long)tiny_held);
        pair_m4_memo_free(big);
        pair_m4_memo_free(tiny);
        pair_m4_memo_free(fresh);
        free(ref);
        free(start);
        batch_free(&b);
    }

    {   /* a product that is 0 mod 4 (no words, e.g. Sq(1)·Sq(3) = 4 Sq(4)) as a fresh memo's first
         * miss, then recalled: no words kept or read (under SAN=1 its empty copy from a scratch
         * buffer never allocated was undefined behaviour), and the rows stay zero */
        milnor_row_job job = { 0 };
        milnor_term term = { 0 };
        int found = 0;
        for (deg_t dr = 1; dr <= 12 && !found; ++dr)
            for (deg_t ds = 1; ds <= 12 && !found; ++ds)
                for (uint32_t i = 0; i < A.dim[dr] && !found; ++i)
                    for (uint32_t j = 0; j < A.dim[ds] && !found; ++j) {
                        emits e = { 0 };
                        milnor_mul_mod4_each(&A.elts[dr][i], &A.elts[ds][j], collect, &e);
                        if (!e.n) {
                            job = (milnor_row_job){ (uint32_t)dr, i, 0, 1 };
                            term = (milnor_term){ (uint32_t)ds, j, 0 };
                            found = 1;
                        }
                        free(e.v);
                    }
        pair_m4_memo *memo = pair_m4_memo_new((size_t)1 << 20);
        if (!memo) bail("out of memory");
        size_t words = 2 * ((A.dim[job.r_deg + term.s_deg] + 63) / 64);
        uint64_t *rows = calloc(words, sizeof *rows);
        if (!rows) bail("out of memory");
        pair_mul_mod4_batch_memo(&A, memo, &job, 1, &term, rows, 0, words / 2);    /* a miss */
        pair_mul_mod4_batch_memo(&A, memo, &job, 1, &term, rows, 0, words / 2);    /* a hit */
        uint64_t held, hits, misses, any = 0;
        size_t bytes;
        pair_m4_memo_stats(memo, &held, &hits, &misses, &bytes);
        for (size_t w = 0; w < words; ++w) any |= rows[w];
        ok(found && !any && held == 1 && hits == 1 && misses == 1, "a product that is 0 mod 4 (Sq(%u #%u)·Sq(%u #%u)) "
           "through a fresh memo, missed then recalled: zero rows, held once", job.r_deg, job.r_idx, term.s_deg,
           term.s_idx);
        free(rows);
        pair_m4_memo_free(memo);
    }

    {   /* lock-free hits while the tables grow: two readers of a batch the memo holds, two writers
         * of the same batches of new products (enough to double the shards' tables), which also
         * read what the other put in; every lookup counted once, every product the memo lacked
         * held once */
        enum { NW = 64 };
        batch r, w[NW];
        uint64_t *wstart[NW], *wref[NW], wpairs = 0, *rkeys = NULL, *wkeys = NULL;
        size_t nr = 0, nwk = 0, fresh = 0;
        int nw = 0;
        batch_random_mod4(&A, &r, 40, 20, 30, 30, 0, 8, 2);
        uint64_t *rstart, *rref = batch_mod4_rows(&A, &r, 1, &rstart);
        batch_keys(&r, &rkeys, &nr);
        nr = distinct(rkeys, nr);
        while (nw < NW && fresh < 64 * 300) {   /* products r lacks: each shard's table doubles 3-4 times */
            batch_random_mod4(&A, &w[nw], 400, 60, 40, 30, 0, 8, 2);
            wref[nw] = batch_mod4_rows(&A, &w[nw], 1, &wstart[nw]);
            wpairs += batch_pairs(&w[nw]);
            batch_keys(&w[nw++], &wkeys, &nwk);
            nwk = distinct(wkeys, nwk);
            fresh = 0;
            for (size_t i = 0; i < nwk; ++i) fresh += !bsearch(&wkeys[i], rkeys, nr, sizeof *rkeys, cmp_u64);
        }
        pair_m4_memo *memo = pair_m4_memo_new((size_t)256 << 20);
        if (!memo) bail("out of memory");
        memo_pass warm = { &A, memo, &r, rstart, NULL };
        memo_run(&warm);
        int good = !memcmp(rref, warm.rows, r.words * sizeof *rref), done = 0;
        free(warm.rows);
        uint64_t held0, hits0, misses0, held, hits, misses;
        size_t bytes0, bytes;
        pair_m4_memo_stats(memo, &held0, &hits0, &misses0, &bytes0);
        memo_share q[4];
        pthread_t th[4];
        for (int k = 0; k < 4; k++)
            q[k] = k < 2 ? (memo_share){ { &A, memo, w, NULL, NULL }, NULL, nw, k, 0, 2, &done, 0, 0, wref, wstart }
                         : (memo_share){ { &A, memo, &r, rstart, NULL }, rref, 0, 0, 3, 2, &done, 0, 0, NULL, NULL };
        for (int k = 0; k < 4; k++)
            if (pthread_create(&th[k], NULL, memo_share_run, &q[k]) != 0) bail("pthread_create");
        uint64_t reads = 0;
        for (int k = 0; k < 4; k++) {
            pthread_join(th[k], NULL);
            good &= !q[k].bad;
            if (k >= 2) reads += (uint64_t)q[k].passes * batch_pairs(&r);
        }
        pair_m4_memo_stats(memo, &held, &hits, &misses, &bytes);
        good &= held - held0 == fresh && misses - misses0 >= fresh &&
                hits + misses - hits0 - misses0 == reads + 2 * wpairs && fresh >= 64 * 300;
        ok(good, "the memo's hits take no lock: 2 readers (%d, %d passes over %llu pairs held) while 2 writers "
           "add %llu products to %llu (%.1f MB held, from %.2f; %llu computed again: both writers missed, or a reader "
           "was in a table given back): the same rows, every lookup counted once, every new product held once",
           q[2].passes, q[3].passes, (unsigned long long)batch_pairs(&r), (unsigned long long)(held - held0),
           (unsigned long long)held0, bytes / 1e6, bytes0 / 1e6, (unsigned long long)(misses - misses0 - fresh));
        pair_m4_memo_free(memo);
        free(rref), free(rstart), free(rkeys), free(wkeys);
        batch_free(&r);
        for (int k = 0; k < nw; k++) free(wref[k]), free(wstart[k]), batch_free(&w[k]);
    }

    {   /* pair_mul_mod4_batch is what pair_sigma_mul_add adds to ones and twos */
        int good = 1;
        for (int rep = 0; rep < 200 && good; ++rep) {
            deg_t d = 2 + (deg_t)rnd(60);
            pair_elt e;
            if (pair_elt_init(&e, &A, d) != 0) bail("pair_elt_init");
            size_t tw = (size_t)(e.twos - e.ones);
            uint64_t *rows = calloc(2 * tw + 1, sizeof *rows);
            milnor_row_job *jobs = malloc(8 * sizeof *jobs);
            milnor_term *terms = malloc(8 * sizeof *terms);
            if (!rows || !jobs || !terms) bail("out of memory");
            for (int k = 0; k < 8; ++k) {
                deg_t dr = (deg_t)rnd((uint32_t)d + 1);
                uint32_t ri = rnd(A.dim[dr]), si = rnd(A.dim[d - dr]);
                pair_sigma_mul_add(&A, &e, &A.elts[dr][ri], &A.elts[d - dr][si]);
                jobs[k] = (milnor_row_job){ (uint32_t)dr, ri, (uint32_t)k, 1 };
                terms[k] = (milnor_term){ (uint32_t)(d - dr), si, 0 };
            }
            pair_mul_mod4_batch(&A, jobs, 8, terms, rows, 0, tw);
            good = !memcmp(rows, e.ones, 2 * tw * sizeof *rows);
            if (!good) diag("degree %d differs", d);
            free(rows);
            free(jobs);
            free(terms);
            pair_elt_clear(&e);
        }
        ok(good, "pair_mul_mod4_batch into one row = pair_sigma_mul_add's ones and twos (200 sums of 8 products)");
    }
    free(cpu.v);
    free(gpu.v);
    milnor_basis_clear(&A);
    return done_testing();
}
