/* secbatch.c — a cell's mod-4 products as a batch, and the composites read off them (see
 * secbatch.h). */
#include "stages/secbatch.h"
#include "algebra/f2mat.h"
#include <stdlib.h>
#include <string.h>

/* Doubles the array *p of *cap elements of size sz (to 64 at first). 0, or -1 out of memory. */
static int grow(void **p, size_t *cap, size_t sz)
{
    size_t n = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, n * sz);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

static size_t words_of(uint32_t bits) { return ((size_t)bits + 63) / 64; }

int sec_batch_init(sec_batch *b, const milnor_basis *A, int s, deg_t T, uint32_t ngens)
{
    memset(b, 0, sizeof *b);
    b->A = A, b->s = s, b->T = T, b->ngens = ngens;
    b->gen_tg = calloc((size_t)ngens + 1, sizeof *b->gen_tg);
    b->gen_job = calloc((size_t)ngens + 1, sizeof *b->gen_job);
    b->ye = calloc((size_t)ngens + 1, sizeof *b->ye);
    return b->gen_tg && b->gen_job && b->ye ? 0 : -1;
}

static void free_targets(pair_elt *e, uint32_t nt)
{
    for (uint32_t t = 0; e && t < nt; t++) pair_elt_clear(&e[t]);
    free(e);
}

void sec_batch_clear(sec_batch *b)
{
    for (uint32_t g = 0; b->ye && g < b->ngens; g++) free_targets(b->ye[g], b->gen_tg[g + 1] - b->gen_tg[g]);
    free(b->ye);
    free(b->tg);
    free(b->gen_tg);
    free(b->jobs);
    free(b->gen_job);
    free(b->terms);
    free(b->term_tg);
    free(b->chunk_gen);
    free(b->row_at);
    free(b->twos_at);
    free(b->chunk_pairs);
    free(b->rows);
    free(b->chunk_row);
    free(b->first);
    free(b->dense);
    memset(b, 0, sizeof *b);
}

int sec_batch_gen_begin(sec_batch *b, uint32_t g, const freemod *Y, deg_t top)
{
    b->cur = g, b->top = top, b->Y = Y;
    b->gen_tg[g] = (uint32_t)b->ntg;
    b->gen_job[g] = (uint32_t)b->njobs;
    b->term0 = b->nterms;
    b->first = calloc((size_t)top + 1, sizeof *b->first);
    if (!b->first) return -1;
    for (deg_t w = 1; w <= top; w++) b->first[w] = b->first[w - 1] + (w - 1 <= Y->max_t ? Y->ngens[w - 1] : 0);
    b->ndense = b->first[top];
    b->dense = malloc((2 * (size_t)b->ndense + 1) * sizeof *b->dense);     /* targets, then their twins */
    if (!b->dense) return -1;
    memset(b->dense, 0xff, (2 * (size_t)b->ndense + 1) * sizeof *b->dense);
    return 0;
}

int64_t sec_batch_target(sec_batch *b, deg_t w, uint32_t index)
{
    if (w >= b->top) return -1;
    uint32_t d = b->first[w] + index;
    b->dense[d] = 0;                                    /* hit; numbered at gen_end */
    return d;
}

/* One term S into target id, one job R on the terms from first on. 0, or -1 out of memory. */
static int push_term(sec_batch *b, const milnor_elt *S, uint32_t id)
{
    if (b->nterms == b->tcap) {
        size_t cap = b->tcap;                       /* terms and term_tg grow together */
        if (grow((void **)&b->terms, &b->tcap, sizeof *b->terms) != 0 ||
            grow((void **)&b->term_tg, &cap, sizeof *b->term_tg) != 0)
            return -1;
    }
    b->terms[b->nterms] = (milnor_term){ (uint32_t)S->degree, milnor_index(b->A, S), 0 };
    b->term_tg[b->nterms++] = id;
    return 0;
}

static int push_job(sec_batch *b, const milnor_elt *R, size_t first)
{
    if (b->njobs == b->jcap && grow((void **)&b->jobs, &b->jcap, sizeof *b->jobs) != 0) return -1;
    b->jobs[b->njobs++] = (milnor_row_job){ (uint32_t)R->degree, milnor_index(b->A, R), (uint32_t)first,
                                            (uint32_t)(b->nterms - first) };
    b->pairs += b->nterms - first;
    return 0;
}

int sec_batch_group(sec_batch *b, const milnor_elt *bs, uint32_t nb, const milnor_elt *cs, const uint32_t *ids,
                    uint32_t nc, int times)
{
    size_t first = b->nterms;
    for (uint32_t j = 0; j < nc; j++) {     /* taken 3 times: once, into the target's twin */
        if (times == 3) b->dense[b->ndense + ids[j]] = 0;
        if (push_term(b, &cs[j], times == 3 ? b->ndense + ids[j] : ids[j]) != 0) return -1;
    }
    for (uint32_t i = 0; i < nb && b->nterms > first; i++)
        if (push_job(b, &bs[i], first) != 0) return -1;
    return 0;
}

/* sec_batch_plan_y's visitor over one group of generator g's jobs. */
typedef struct y_plan {
    sec_batch *b;
    uint32_t t0;                /* g's first target */
    const uint32_t *real;       /* per term of the group: its target (index in tg) */
    int32_t *plane;             /* per (target - t0, ya, yb): its Y plane's index in tg, or -1 */
    size_t first;               /* the group's first Y term */
} y_plan;

static int y_plan_term(void *ctx, uint32_t j, int ya, int yb, const milnor_elt *S)
{
    y_plan *y = ctx;
    sec_batch *b = y->b;
    uint32_t r = y->real[j];
    if (b->tg[r].ya == SEC_TWIN) r = (uint32_t)b->tg[r].real;
    int32_t *p = &y->plane[((size_t)(r - y->t0) * PAIR_MAX_K + (size_t)ya) * PAIR_MAX_K + (size_t)yb];
    if (*p < 0) {
        if (b->ntg == b->tgcap && grow((void **)&b->tg, &b->tgcap, sizeof *b->tg) != 0) return -1;
        deg_t d = b->tg[r].degree + 1 - (deg_t)(1u << ya) - (deg_t)(1u << yb);
        b->tg[b->ntg] = (sec_target){ b->tg[r].w, b->tg[r].index, d, 0, (int32_t)r, (int8_t)ya, (int8_t)yb };
        *p = (int32_t)b->ntg++;
    }
    return push_term(b, S, (uint32_t)*p);
}

static int y_plan_job(void *ctx, const milnor_elt *R) { y_plan *y = ctx; return push_job(y->b, R, y->first); }

static int y_plan_end(void *ctx, int jobs)
{
    y_plan *y = ctx;
    if (!jobs) y->b->nterms = y->first;         /* no left factor: drop the terms (their planes stay, zero) */
    y->first = y->b->nterms;
    return 0;
}

int sec_batch_plan_y(sec_batch *b, uint32_t g)
{
    const milnor_basis *A = b->A;
    uint32_t t0 = b->gen_tg[g], nreal = b->gen_tg[g + 1] - t0, j1 = b->gen_job[g + 1];
    int32_t *plane = malloc(((size_t)nreal * PAIR_MAX_K * PAIR_MAX_K + 1) * sizeof *plane);
    milnor_elt *bs = NULL, *cs = NULL;
    deg_t *deg = NULL;
    uint32_t *real = NULL;
    size_t bcap = 0, ccap = 0;
    int rc = plane ? 0 : -1;
    for (size_t i = 0; plane && i < (size_t)nreal * PAIR_MAX_K * PAIR_MAX_K; i++) plane[i] = -1;
    y_plan y = { b, t0, NULL, plane, 0 };
    pair_y_visitor v = { y_plan_term, y_plan_job, y_plan_end, &y };
    for (uint32_t j = b->gen_job[g]; j < j1 && !rc;) {     /* the mod-4 groups planned so far */
        uint32_t je = j, first = b->jobs[j].first_term, nc = b->jobs[j].n_terms;
        while (je < j1 && b->jobs[je].first_term == first) je++;
        while (!rc && je - j > bcap) rc = grow((void **)&bs, &bcap, sizeof *bs);
        while (!rc && nc > ccap) {
            size_t c1 = ccap, c2 = ccap;
            if (grow((void **)&cs, &ccap, sizeof *cs) != 0 || grow((void **)&deg, &c1, sizeof *deg) != 0 ||
                grow((void **)&real, &c2, sizeof *real) != 0)
                rc = -1;
        }
        if (rc) break;
        for (uint32_t i = j; i < je; i++) bs[i - j] = A->elts[b->jobs[i].r_deg][b->jobs[i].r_idx];
        for (uint32_t c = 0; c < nc; c++) {
            const milnor_term *tm = &b->terms[first + c];
            cs[c] = A->elts[tm->s_deg][tm->s_idx];
            real[c] = b->term_tg[first + c];
            deg[c] = b->tg[real[c]].degree;
        }
        y.real = real;
        y.first = b->nterms;
        rc = pair_sigma_y_visit(bs, je - j, cs, deg, nc, b->planes ? b->planes + (size_t)g * PAIR_MAX_K : NULL, &v);
        j = je;
    }
    b->gen_tg[g + 1] = (uint32_t)b->ntg;
    b->gen_job[g + 1] = (uint32_t)b->njobs;
    b->y_planned = 1;
    free(plane);
    free(bs);
    free(cs);
    free(deg);
    free(real);
    return rc;
}

/* Numbers the generator's targets in basis order and points its terms at them. */
int sec_batch_gen_end(sec_batch *b, const freemod *Y)
{
    for (deg_t w = 0; w < b->top; w++)
        for (uint32_t i = 0; i < (w <= Y->max_t ? Y->ngens[w] : 0); i++) {
            uint32_t d = b->first[w] + i;
            if (b->dense[d] == UINT32_MAX) continue;
            if (b->ntg == b->tgcap && grow((void **)&b->tg, &b->tgcap, sizeof *b->tg) != 0) return -1;
            b->dense[d] = (uint32_t)b->ntg;
            b->tg[b->ntg++] = (sec_target){ w, i, b->top - w, 0, -1, 0, 0 };
        }
    for (deg_t w = 0; w < b->top; w++)                  /* the twins, after every target */
        for (uint32_t i = 0; i < (w <= Y->max_t ? Y->ngens[w] : 0); i++) {
            uint32_t d = b->first[w] + i;
            if (b->dense[b->ndense + d] == UINT32_MAX) continue;
            if (b->ntg == b->tgcap && grow((void **)&b->tg, &b->tgcap, sizeof *b->tg) != 0) return -1;
            b->dense[b->ndense + d] = (uint32_t)b->ntg;
            b->tg[b->ntg++] = (sec_target){ w, i, b->top - w, 0, (int32_t)b->dense[d], SEC_TWIN, 0 };
        }
    for (size_t k = b->term0; k < b->nterms; k++) b->term_tg[k] = b->dense[b->term_tg[k]];
    b->gen_tg[b->cur + 1] = (uint32_t)b->ntg;
    b->gen_job[b->cur + 1] = (uint32_t)b->njobs;
    free(b->first);
    free(b->dense);
    b->first = NULL, b->dense = NULL;
    return 0;
}

int sec_batch_cut(sec_batch *b, uint64_t max_pairs)
{
    b->chunk_gen = malloc(((size_t)b->ngens + 1) * sizeof *b->chunk_gen);
    b->row_at = malloc(((size_t)b->ngens + 1) * sizeof *b->row_at);
    b->twos_at = malloc(((size_t)b->ngens + 1) * sizeof *b->twos_at);
    b->chunk_pairs = malloc(((size_t)b->ngens + 1) * sizeof *b->chunk_pairs);
    b->chunk_row = calloc((size_t)b->ngens + 1, sizeof *b->chunk_row);
    if (!b->chunk_gen || !b->row_at || !b->twos_at || !b->chunk_pairs || !b->chunk_row) return -1;
    uint32_t n = 0;
    uint64_t acc = 0;
    b->chunk_gen[0] = 0;
    for (uint32_t g = 0; g < b->ngens; g++) {
        for (uint32_t j = b->gen_job[g]; j < b->gen_job[g + 1]; j++) acc += b->jobs[j].n_terms;
        if (acc && (acc >= max_pairs || g + 1 == b->ngens)) {
            b->chunk_pairs[n] = acc;
            b->chunk_gen[++n] = g + 1;
            acc = 0;
        }
    }
    if (n) b->chunk_gen[n] = b->ngens;          /* generators without pairs at the end: the last chunk's */
    b->nchunks = n;
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t words = 0;
        for (uint32_t t = b->gen_tg[b->chunk_gen[k]]; t < b->gen_tg[b->chunk_gen[k + 1]]; t++) {
            b->tg[t].word = words;
            words += words_of(b->A->dim[b->tg[t].degree]);
        }
        if (words >= (1u << 26)) return -1;     /* columns are 32-bit */
        b->row_at[k] = total;
        b->twos_at[k] = words;
        total += 2 * words;
    }
    for (size_t k = 0; k < b->nterms; k++) b->terms[k].col_offset = (uint32_t)(64 * b->tg[b->term_tg[k]].word);
    b->rows = calloc(total ? total : 1, sizeof *b->rows);
    return b->rows ? 0 : -1;
}

static int batch_finish(sec_batch *b, sec_composite *out, uint32_t *bad_gen);

int sec_batch_finish(sec_batch *b, sec_composite **out, uint32_t *bad_gen)
{
    *out = calloc(b->ngens, sizeof **out);
    int rc = *out ? batch_finish(b, *out, bad_gen) : -1;
    sec_batch_clear(b);
    free(b);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* gen_y's batch: every group's Y terms (pair_sigma_y_visit) as milnor.h's jobs and terms of one
 * row, the generator's targets' allocations end to end (target t from word tw[t] on). */
typedef struct y_gen {
    const milnor_basis *A;
    const pair_elt *e;          /* the generator's targets */
    const size_t *tw;
    pair_elt *const *pt;        /* per right factor of the group being visited: its target */
    uint32_t *sdeg, *sidx;      /* per right factor: the last S met (its degree names k), its index */
    milnor_term *terms;
    milnor_row_job *jobs;
    size_t nterms, tcap, njobs, jcap, first;
} y_gen;

static int yg_term(void *ctx, uint32_t j, int ya, int yb, const milnor_elt *S)
{
    y_gen *y = ctx;
    const pair_elt *t = y->pt[j];
    if (y->nterms == y->tcap && grow((void **)&y->terms, &y->tcap, sizeof *y->terms) != 0) return -1;
    if (y->sdeg[j] != (uint32_t)S->degree) y->sdeg[j] = (uint32_t)S->degree, y->sidx[j] = milnor_index(y->A, S);
    y->terms[y->nterms++] =
        (milnor_term){ (uint32_t)S->degree, y->sidx[j], (uint32_t)(64 * (y->tw[t - y->e] + (size_t)(t->ys[ya][yb] - t->mem))) };
    return 0;
}

static int yg_job(void *ctx, const milnor_elt *R)
{
    y_gen *y = ctx;
    if (y->njobs == y->jcap && grow((void **)&y->jobs, &y->jcap, sizeof *y->jobs) != 0) return -1;
    y->jobs[y->njobs++] = (milnor_row_job){ (uint32_t)R->degree, milnor_index(y->A, R), (uint32_t)y->first,
                                            (uint32_t)(y->nterms - y->first) };
    return 0;
}

static int yg_end(void *ctx, int jobs)
{
    y_gen *y = ctx;
    if (!jobs) y->nterms = y->first;            /* no left factor: drop the terms */
    y->first = y->nterms;
    return 0;
}

/* Generator g's targets as pair elements with its Y terms added: every group's (its jobs share
 * their terms) in one batch (y_gen). NULL out of memory. */
static pair_elt *gen_y(sec_batch *b, uint32_t g)
{
    const milnor_basis *A = b->A;
    uint32_t t0 = b->gen_tg[g], nt = b->gen_tg[g + 1] - t0;
    pair_elt *e = calloc(nt + 1, sizeof *e);
    size_t *tw = malloc((nt + 1) * sizeof *tw), words = 0;
    milnor_elt *bs = NULL, *cs = NULL;
    pair_elt **pt = NULL;
    deg_t *deg = NULL;
    uint64_t *row = NULL;
    size_t bcap = 0, ccap = 0;
    y_gen y = { .A = A, .e = e, .tw = tw };
    int rc = e && tw ? 0 : -1;
    for (uint32_t t = 0; t < nt && !rc; t++) {
        rc = pair_elt_init(&e[t], A, b->tg[t0 + t].degree);
        tw[t] = words, words += e[t].words;
    }
    if (!rc && (words << 6) > UINT32_MAX) rc = -1;          /* columns are 32-bit */
    pair_y_visitor v = { yg_term, yg_job, yg_end, &y };
    for (uint32_t j = b->gen_job[g]; j < b->gen_job[g + 1] && !rc;) {
        uint32_t j1 = j, first = b->jobs[j].first_term, nc = b->jobs[j].n_terms;
        while (j1 < b->gen_job[g + 1] && b->jobs[j1].first_term == first) j1++;
        while (!rc && j1 - j > bcap) rc = grow((void **)&bs, &bcap, sizeof *bs);
        while (!rc && nc > ccap) {
            size_t c1 = ccap, c2 = ccap, c3 = ccap, c4 = ccap;
            if (grow((void **)&cs, &ccap, sizeof *cs) != 0 || grow((void **)&pt, &c1, sizeof *pt) != 0 ||
                grow((void **)&deg, &c2, sizeof *deg) != 0 || grow((void **)&y.sdeg, &c3, sizeof *y.sdeg) != 0 ||
                grow((void **)&y.sidx, &c4, sizeof *y.sidx) != 0)
                rc = -1;
        }
        if (rc) break;
        for (uint32_t i = j; i < j1; i++) bs[i - j] = A->elts[b->jobs[i].r_deg][b->jobs[i].r_idx];
        /* a term repeated (a product taken 3 = -1 times: sec_batch_group) adds its Y terms, which
         * are mod 2, once for an odd count and not at all for an even one */
        uint32_t n = 0;
        for (uint32_t c = 0; c < nc;) {
            const milnor_term *tm = &b->terms[first + c];
            uint32_t c1 = c + 1;
            while (c1 < nc && b->terms[first + c1].s_deg == tm->s_deg && b->terms[first + c1].s_idx == tm->s_idx &&
                   b->term_tg[first + c1] == b->term_tg[first + c])
                c1++;
            if ((c1 - c) % 2) {
                const sec_target *to = &b->tg[b->term_tg[first + c]];      /* a twin's into its target */
                cs[n] = A->elts[tm->s_deg][tm->s_idx];
                pt[n] = &e[(to->ya == SEC_TWIN ? (uint32_t)to->real : b->term_tg[first + c]) - t0];
                deg[n] = pt[n]->degree;
                y.sdeg[n++] = UINT32_MAX;
            }
            c = c1;
        }
        y.pt = pt;
        rc = pair_sigma_y_visit(bs, j1 - j, cs, deg, n, b->planes ? b->planes + (size_t)g * PAIR_MAX_K : NULL, &v);
        j = j1;
    }
    if (!rc && y.njobs) {
        row = calloc(words + 1, sizeof *row);
        if (!row) rc = -1;
        else {
            milnor_mul_batch(A, y.jobs, y.njobs, y.terms, row, 0);
            for (uint32_t t = 0; t < nt; t++)
                for (size_t w = 0; w < e[t].words; w++) e[t].mem[w] ^= row[tw[t] + w];
        }
    }
    free(row);
    free(y.terms);
    free(y.jobs);
    free(y.sdeg);
    free(y.sidx);
    free(tw);
    free(deg);
    free(bs);
    free(cs);
    free(pt);
    if (rc) {
        free_targets(e, nt);
        return NULL;
    }
    return e;
}

int sec_batch_y(sec_batch *b, uint32_t g0, uint32_t g1)
{
    for (uint32_t g = g0; g < g1 && g < b->ngens; g++)
        if (!b->ye[g] && b->gen_tg[g + 1] > b->gen_tg[g] && !(b->ye[g] = gen_y(b, g))) return -1;
    return 0;
}

/* A y_planned batch: generator g's targets as zero pair elements (its Y planes' stay empty),
 * each plane's ones (the mod-2 products) added into its target's ys[ya][yb]. 0, or -1. */
static int planned_y(sec_batch *b, uint32_t g, uint32_t k)
{
    const milnor_basis *A = b->A;
    uint32_t t0 = b->gen_tg[g], nt = b->gen_tg[g + 1] - t0;
    pair_elt *e = calloc(nt + 1, sizeof *e);
    if (!e) return -1;
    b->ye[g] = e;
    for (uint32_t t = 0; t < nt; t++)
        if (b->tg[t0 + t].real < 0 && pair_elt_init(&e[t], A, b->tg[t0 + t].degree) != 0) return -1;
    for (uint32_t t = 0; t < nt; t++) {
        const sec_target *p = &b->tg[t0 + t];
        if (p->real < 0 || p->ya == SEC_TWIN) continue;
        pair_elt *into = &e[(uint32_t)p->real - t0];
        const uint64_t *ones = b->chunk_row[k] + p->word;
        for (size_t w = 0; w < words_of(A->dim[p->degree]); w++) into->ys[p->ya][p->yb][w] ^= ones[w];
    }
    return 0;
}

static int batch_finish(sec_batch *b, sec_composite *out, uint32_t *bad_gen)
{
    const milnor_basis *A = b->A;
    uint32_t maxnt = 0, k = 0;                          /* k: the chunk of generator g */
    for (uint32_t g = 0; g < b->ngens; g++)
        if (b->gen_tg[g + 1] - b->gen_tg[g] > maxnt) maxnt = b->gen_tg[g + 1] - b->gen_tg[g];
    uint32_t *tw_of = malloc((maxnt + 1) * sizeof *tw_of);     /* a target's twin, or UINT32_MAX */
    int rc = tw_of ? 0 : -1;
    for (uint32_t g = 0; g < b->ngens && !rc; g++) {
        while (k < b->nchunks && g >= b->chunk_gen[k + 1]) k++;
        uint32_t t0 = b->gen_tg[g], nt = b->gen_tg[g + 1] - t0;
        memset(&out[g], 0, sizeof out[g]);
        if (!nt) continue;
        if (b->y_planned ? planned_y(b, g, k) != 0 : sec_batch_y(b, g, g + 1) != 0) {   /* (unless a part did) */
            rc = -1;
            break;
        }
        pair_elt *e = b->ye[g];
        /* ones and twos from the chunk's row, each twin's x taken as -x = (ones, twos ^ ones) and
         * added in Z/4: the ones must have cancelled */
        for (uint32_t t = 0; t < nt; t++) tw_of[t] = UINT32_MAX;
        for (uint32_t t = 0; t < nt; t++)
            if (b->tg[t0 + t].ya == SEC_TWIN) tw_of[(uint32_t)b->tg[t0 + t].real - t0] = t;
        for (uint32_t t = 0; t < nt && !rc; t++) {
            if (b->tg[t0 + t].real >= 0) continue;      /* a Y plane: in its target already; a twin */
            const uint64_t *ones = b->chunk_row[k] + b->tg[t0 + t].word, *twos = ones + b->twos_at[k];
            const uint64_t *o3 = tw_of[t] == UINT32_MAX ? NULL : b->chunk_row[k] + b->tg[t0 + tw_of[t]].word;
            size_t nw = words_of(A->dim[b->tg[t0 + t].degree]);
            for (size_t w = 0; w < nw; w++) {
                uint64_t o = ones[w], tw = twos[w];
                if (o3) tw ^= o3[w + b->twos_at[k]] ^ o3[w] ^ (o & o3[w]), o ^= o3[w];
                if (o) rc = -2;
                e[t].twos[w] = tw;
            }
            if (rc) {
                *bad_gen = g;
                break;
            }
        }
        for (uint32_t t = 0; t < nt && !rc; t++) {
            if (b->tg[t0 + t].real >= 0 || pair_elt_is_zero(&e[t])) continue;
            sec_term *nt2 = realloc(out[g].terms, ((size_t)out[g].n + 1) * sizeof *nt2);
            if (!nt2) {
                rc = -1;
                break;
            }
            out[g].terms = nt2;
            out[g].terms[out[g].n++] = (sec_term){ b->tg[t0 + t].w, b->tg[t0 + t].index, e[t] };
            memset(&e[t], 0, sizeof e[t]);
        }
    }
    free(tw_of);
    if (rc)
        for (uint32_t g = 0; g < b->ngens; g++) {
            for (uint32_t t = 0; t < out[g].n; t++) pair_elt_clear(&out[g].terms[t].e);
            free(out[g].terms);
            memset(&out[g], 0, sizeof out[g]);
        }
    return rc;
}

int sec_add_products(sec_batch *bt, const freemod *X, deg_t D, const uint64_t *v, uint64_t vbits, deg_t shift,
                     sec_image_fn img, void *ctx, int times, int skip_units)
{
    const milnor_basis *A = bt->A;
    const freemod *Y = bt->Y;
    milnor_elt *as = NULL, *cs = NULL;
    uint32_t *ids = NULL;
    size_t acap = 0, ccap = 0;
    int rc = 0;
    uint64_t off = 0;
    for (deg_t u = 0; u <= D && off < vbits && !rc; u++) {
        if (!X->ngens[u]) continue;                   /* (degrees without generators: maybe past A) */
        uint32_t blen = A->dim[D - u];
        for (uint32_t g1 = 0; g1 < X->ngens[u] && !rc; g1++, off += blen) {
            uint32_t na = 0, nc = 0;
            for (uint32_t e = 0; e < blen && !rc; e++) {
                if (off + e >= vbits || !f2vec_get(v, off + e)) continue;
                if (na == acap && grow((void **)&as, &acap, sizeof *as) != 0) rc = -1;
                else as[na++] = A->elts[D - u][e];
            }
            if (!na || rc) continue;
            uint32_t ib = 0;
            const uint64_t *iv = img(ctx, u, g1, &ib);
            if (!iv) continue;
            deg_t E = u - shift;
            uint64_t off2 = 0;
            for (deg_t w = 0; w <= E && off2 < ib && !rc; w++) {
                if (!Y->ngens[w]) continue;
                uint32_t clen = A->dim[E - w];
                for (uint32_t g2 = 0; g2 < Y->ngens[w] && !rc; g2++, off2 += clen)
                    for (uint32_t e2 = 0; e2 < clen && !rc; e2++) {
                        if (off2 + e2 >= ib || !f2vec_get(iv, off2 + e2)) continue;
                        int64_t id = sec_batch_target(bt, w, g2);
                        if (id < 0 && skip_units) continue;     /* σ(1)σ(1) on a generator: the caller's */
                        if (id < 0) {
                            rc = -2;                            /* a composite that hits a generator */
                            break;
                        }
                        if (nc == ccap) {
                            size_t cap = ccap;                  /* cs and ids grow together */
                            if (grow((void **)&cs, &ccap, sizeof *cs) != 0 ||
                                grow((void **)&ids, &cap, sizeof *ids) != 0) {
                                rc = -1;
                                break;
                            }
                        }
                        cs[nc] = A->elts[E - w][e2];
                        ids[nc++] = (uint32_t)id;
                    }
            }
            if (!rc) rc = sec_batch_group(bt, as, na, cs, ids, nc, times);   /* -1 = 3 mod 4 */
        }
    }
    free(as);
    free(cs);
    free(ids);
    return rc;
}

const uint64_t *sec_image_of_gen(void *F, deg_t u, uint32_t g1, uint32_t *bits)
{
    const fm_gen *g = &((const freemod *)F)->gens[u][g1];
    *bits = g->bits;
    return g->bits ? g->img : NULL;
}

sec_batch *sec_plan_failed(sec_batch *bt, int rc, fail_latch *fail, const char *what, int s, deg_t T)
{
    if (bt) sec_batch_clear(bt);
    free(bt);
    if (rc == -2) latch_set(fail, "internal error: %s at (s=%d, t=%d) hits a generator", what, s, (int)T);
    else latch_set(fail, "out of memory computing %s at (s=%d, t=%d)", what, s, (int)T);
    return NULL;
}

int sec_cell_finish(sec_batch *bt, const char *why, int failed, fail_latch *fail, const char *what,
                    const char *odd_why, sec_composite **slot)
{
    int s = bt->s;
    deg_t T = bt->T;
    uint32_t bad = 0;
    if (why) latch_set(fail, "%s", why);
    sec_composite *c = NULL;
    int rc = failed || why ? -3 : sec_batch_finish(bt, &c, &bad);
    if (rc == -3) sec_batch_clear(bt), free(bt);
    else if (rc == -2)
        latch_set(fail, "internal error: %s of generator %u at (s=%d, t=%d) has an odd part%s%s%s", what, bad, s,
                  (int)T, odd_why ? " (" : "", odd_why ? odd_why : "", odd_why ? ")" : "");
    else if (rc)
        latch_set(fail, "out of memory computing %s at (s=%d, t=%d)", what, s, (int)T);
    if (rc) return -1;
    *slot = c;
    return 0;
}

void sec_composites_free(sec_composite *c, uint32_t n)
{
    for (uint32_t g = 0; c && g < n; g++) {
        for (uint32_t k = 0; k < c[g].n; k++) pair_elt_clear(&c[g].terms[k].e);
        free(c[g].terms);
    }
    free(c);
}

int sec_batch_multiply(sec_batch *b)
{
    if (sec_batch_cut(b, UINT64_MAX) != 0) return -1;
    for (uint32_t k = 0; k < b->nchunks; k++) {
        uint32_t j0 = b->gen_job[b->chunk_gen[k]], j1 = b->gen_job[b->chunk_gen[k + 1]];
        pair_mul_mod4_batch_memo(b->A, b->memo, b->jobs + j0, j1 - j0, b->terms, b->rows + b->row_at[k], 0,
                                 b->twos_at[k]);
        b->chunk_row[k] = b->rows + b->row_at[k];
    }
    return 0;
}
