/* rowbuild.c — the rows of a differential's matrix as Milnor-multiply jobs (see rowbuild.h). */
#include "stages/rowbuild.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>

/* arr (n elements of size bytes used of *cap) with room for one more: doubled, or allocated
 * with first, when full. NULL out of memory (arr and *cap unchanged). */
static void *grow(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
    if (n < *cap) return arr;
    size_t c = *cap ? 2 * *cap : first;
    void *na = realloc(arr, c * size);
    if (na) *cap = c;
    return na;
}

/* Appends one term, growing b->terms (not yet in the memory account). */
static int push_term(row_build *b, milnor_term term)
{
    milnor_term *nt = grow(b->terms, b->nterms, &b->termcap, sizeof *nt, 256);
    if (!nt) return -1;
    b->terms = nt;
    b->terms[b->nterms++] = term;
    return 0;
}

/* Terms of d(g) for generator (u, i) of src: one per set bit, Sq(S) g' landing at the
 * block of g' in the degree-t basis of tgt, in the order of the bits. Appends to
 * b->terms (grown as needed). */
static int add_generator_terms(row_build *b, const freemod *src, const freemod *tgt, const milnor_basis *A,
                               deg_t t, deg_t u, uint32_t i)
{
    const fm_gen *g = &src->gens[u][i];
    /* d(g) starts with the blocks of the generators of degree >= u - top (freemod_first); the
     * cursor is at block k of degree v, which holds the bits off .. off + blen of d(g) and
     * starts at column vbase + k tlen in degree t (freemod_offset(tgt, t, v, k)) */
    deg_t v = freemod_first(tgt, u) - 1;
    uint64_t off = 0, vbase = freemod_dim_wide(tgt, t, v + 1), tlen = 0;
    uint32_t k = 0, nk = 0, blen = 0;
    size_t words = f2vec_words(g->bits);
    for (size_t w = 0; w < words; w++)
        for (uint64_t word = g->img[w] & (w + 1 < words || !(g->bits & 63) ? ~0ull : (1ull << (g->bits & 63)) - 1);
             word; word &= word - 1) {
            uint64_t bit = (uint64_t)w * 64 + (uint64_t)__builtin_ctzll(word);
            while (bit >= off + blen) {     /* the block holding bit (d(g) has no bit past its last) */
                off += blen;
                if (++k >= nk) {
                    vbase += (uint64_t)nk * tlen;
                    while (!tgt->ngens[++v]) {} /* (A.dim[u - v] need not exist where there is none) */
                    k = 0, nk = tgt->ngens[v], tlen = tgt->dim[t - v];
                    blen = tgt->ex ? excess_block(tgt->ex, u - v, v) : A->dim[u - v];
                }
            }
            uint32_t idx = (uint32_t)(bit - off);      /* unstable: the block is in the excess order */
            if (tgt->ex) idx = excess_index(tgt->ex, u - v, idx);
            milnor_term term = { (uint32_t)(u - v), idx, (uint32_t)(vbase + (uint64_t)k * tlen) };
            if (push_term(b, term) != 0) return -1;
        }
    return 0;
}

/* Brings the memory account up to the jobs and terms b holds now. */
static void account(row_build *b)
{
    size_t now = b->jobcap * sizeof *b->jobs + b->termcap * sizeof *b->terms;
    memacct_add(MEM_INFLIGHT, (int64_t)now - (int64_t)b->accounted);
    b->accounted = now;
}

static int append_rows(row_build *b, const freemod *F, const freemod *tgt, const milnor_basis *A, deg_t t,
                       deg_t below, const uint32_t *sel, uint32_t nsel);

int rb_append(row_build *b, const freemod *src, const freemod *tgt, const milnor_basis *A, deg_t t,
              const uint32_t *sel, uint32_t nsel)
{
    int rc = append_rows(b, src, tgt, A, t, t, sel, nsel);
    account(b);
    return rc;
}

int rb_append_below(row_build *b, const freemod *src, const freemod *tgt, const milnor_basis *A, deg_t t,
                    deg_t below)
{
    int rc = append_rows(b, src, tgt, A, t, below, NULL, 0);
    account(b);
    return rc;
}

static int append_rows(row_build *b, const freemod *F, const freemod *tgt, const milnor_basis *A, deg_t t,
                       deg_t below, const uint32_t *sel, uint32_t nsel)
{
    uint32_t total = sel ? nsel : (uint32_t)freemod_dim(F, t, below);
    milnor_row_job *nj = realloc(b->jobs, ((size_t)b->nrows + total + 1) * sizeof *nj);
    if (!nj) return -1;
    b->jobs = nj;
    b->jobcap = (size_t)b->nrows + total + 1;
    uint32_t base = 0, k = 0;   /* base: index of the current block's first element */
    for (deg_t u = freemod_first(F, t); u < below; u++)     /* blocks below it are empty: no rows */
        for (uint32_t i = 0; i < F->ngens[u]; i++) {
            uint32_t blen = F->ex ? excess_block(F->ex, t - u, u) : A->dim[t - u];
            if (sel && (k >= nsel || sel[k] >= base + blen)) {
                base += blen;
                continue;
            }
            uint32_t first = (uint32_t)b->nterms;
            if (add_generator_terms(b, F, tgt, A, t, u, i) != 0) return -1;
            uint32_t n = (uint32_t)b->nterms - first;
            for (uint32_t r = 0; r < blen; r++) {
                if (sel && (k >= nsel || sel[k] != base + r)) continue;
                uint32_t idx = F->ex ? excess_index(F->ex, t - u, r) : r;
                b->jobs[b->nrows++] = (milnor_row_job){ (uint32_t)(t - u), idx, first, n };
                k++;
            }
            base += blen;
        }
    return 0;
}

int rb_push_term(row_build *b, milnor_term term)
{
    size_t cap = b->termcap;
    int rc = push_term(b, term);
    if (b->termcap != cap) account(b);
    return rc;
}

/* Appends a job at position n of b->jobs (grown and accounted as needed). */
static int put_job(row_build *b, size_t n, milnor_row_job job)
{
    size_t cap = b->jobcap;
    milnor_row_job *nj = grow(b->jobs, n, &b->jobcap, sizeof *nj, 64);
    if (!nj) return -1;
    b->jobs = nj;
    if (b->jobcap != cap) account(b);
    b->jobs[n] = job;
    return 0;
}

int rb_push_job(row_build *b, milnor_row_job job)
{
    if (b->ngroups || put_job(b, b->nrows, job) != 0) return -1;   /* single rows come first */
    b->nrows++;
    return 0;
}

/* Room for group_job[0 .. need). */
static int group_room(row_build *b, size_t need)
{
    if (b->group_job && b->groupcap >= need) return 0;
    size_t cap = b->groupcap ? 2 * b->groupcap : 16;
    while (cap < need) cap *= 2;
    uint32_t *g = realloc(b->group_job, cap * sizeof *g);
    if (!g) return -1;
    if (!b->group_job) g[0] = g[1] = b->nrows;
    b->group_job = g;
    b->groupcap = cap;
    return 0;
}

/* The grouped row being built: its jobs so far end at group_job[ngroups + 1] (kept there). */
static int open_group(row_build *b) { return group_room(b, (size_t)b->ngroups + 2); }

static size_t sink_nterms(void *ctx) { return ((row_build *)ctx)->nterms; }
static int sink_term(void *ctx, milnor_term t) { return rb_push_term(ctx, t); }
static int sink_job(void *ctx, milnor_row_job j)
{
    row_build *b = ctx;
    if (open_group(b) != 0 || put_job(b, b->group_job[b->ngroups + 1], j) != 0) return -1;
    b->group_job[b->ngroups + 1]++;
    return 0;
}

milnor_sink rb_group_sink(row_build *b) { return (milnor_sink){ b, sink_nterms, sink_term, sink_job }; }

int rb_group_end(row_build *b)
{
    /* the next group's end goes at group_job[ngroups + 2] (ngroups + 1 after the increment) */
    if (group_room(b, (size_t)b->ngroups + 3) != 0) return -1;
    b->ngroups++;
    b->group_job[b->ngroups + 1] = b->group_job[b->ngroups];   /* the next group starts empty */
    return 0;
}

uint64_t rb_group_pairs(const row_build *b, uint32_t g)
{
    uint64_t pairs = 0;
    for (uint32_t j = b->group_job[g]; j < b->group_job[g + 1]; j++) pairs += b->jobs[j].n_terms;
    return pairs;
}

uint64_t rb_pairs(const row_build *b)
{
    uint64_t pairs = 0;
    for (uint32_t j = 0; j < rb_njobs(b); j++) pairs += b->jobs[j].n_terms;
    return pairs;
}

int rb_alloc(row_build *b, uint32_t ncols)
{
    b->ncols = ncols;
    b->unzeroed = 0;
    return f2mat_init(&b->D, b->nrows + b->ngroups, ncols);
}

int rb_alloc_unzeroed(row_build *b, uint32_t ncols)
{
    b->ncols = ncols;
    b->unzeroed = 1;
    return f2mat_init_unzeroed(&b->D, b->nrows + b->ngroups, ncols);
}

void rb_zero_rows(const row_build *b, uint32_t row0, uint32_t nrows)
{
    if (b->unzeroed && nrows && b->D.stride)
        memset(f2mat_row(&b->D, row0), 0, (size_t)nrows * b->D.stride * sizeof(uint64_t));
}

void rb_multiply(const row_build *b, const milnor_basis *A, uint32_t row0, uint32_t nrows)
{
    rb_zero_rows(b, row0, nrows);
    if (nrows == 0 || b->ncols == 0 || b->nterms == 0) return;  /* row 0 of a module: filled in plan */
    milnor_mul_batch(A, b->jobs + row0, nrows, b->terms, f2mat_row(&b->D, row0), b->D.stride);
}

void rb_multiply_all(const row_build *b, const milnor_basis *A)
{
    rb_multiply(b, A, 0, b->nrows);
    rb_zero_rows(b, b->nrows, b->ngroups);
    for (uint32_t g = 0; g < b->ngroups && b->ncols; g++)
        milnor_mul_batch(A, b->jobs + b->group_job[g], b->group_job[g + 1] - b->group_job[g], b->terms,
                         f2mat_row(&b->D, b->nrows + g), 0);
}

void rb_clear(row_build *b)
{
    memacct_add(MEM_INFLIGHT, -(int64_t)b->accounted);
    free(b->jobs);
    free(b->terms);
    free(b->group_job);
    f2mat_clear(&b->D);
    memset(b, 0, sizeof *b);
}
