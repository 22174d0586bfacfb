/* lift_share.c — a lift step's planned extra terms, each term list and job kept once for the
 * step, and grouped rows shared by the generators that use the same jobs (lift.h, "Shared
 * extras"). A job is a piece: its pairs are its list's length; its users the generators that
 * used it an odd number of times. */
#include "stages/products/lift.h"
#include <stdlib.h>
#include <string.h>

/* Keys of LIFT_SHARE_KEY words, numbered in the order they come (open addressing). */
typedef struct keytab {
    uint64_t *keys;
    uint32_t n, cap;
    uint32_t *slot, size;       /* number + 1, or 0; size a power of two */
} keytab;

static uint64_t key_hash(const uint64_t *key)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int w = 0; w < LIFT_SHARE_KEY; w++) {
        h ^= key[w];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

/* key's number (*added: 1 if new). 0, or -1 out of memory. */
static int keytab_put(keytab *t, const uint64_t *key, uint32_t *id, int *added)
{
    size_t kb = LIFT_SHARE_KEY * sizeof *key;
    if (2 * ((size_t)t->n + 1) > t->size) {
        uint32_t size = t->size ? 2 * t->size : 256;
        uint32_t *sl = calloc(size, sizeof *sl);
        if (!sl) return -1;
        for (uint32_t p = 0; p < t->n; p++) {
            uint32_t h = (uint32_t)key_hash(t->keys + (size_t)p * LIFT_SHARE_KEY) & (size - 1);
            while (sl[h]) h = (h + 1) & (size - 1);
            sl[h] = p + 1;
        }
        free(t->slot);
        t->slot = sl, t->size = size;
    }
    uint32_t h = (uint32_t)key_hash(key) & (t->size - 1);
    for (; t->slot[h]; h = (h + 1) & (t->size - 1))
        if (!memcmp(t->keys + (size_t)(t->slot[h] - 1) * LIFT_SHARE_KEY, key, kb)) {
            *id = t->slot[h] - 1, *added = 0;
            return 0;
        }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 256;
        uint64_t *k = realloc(t->keys, (size_t)cap * kb);
        if (!k) return -1;
        t->keys = k, t->cap = cap;
    }
    memcpy(t->keys + (size_t)t->n * LIFT_SHARE_KEY, key, kb);
    t->slot[h] = t->n + 1;
    *id = t->n++, *added = 1;
    return 0;
}

static void keytab_clear(keytab *t) { free(t->keys), free(t->slot); }

/* The open grouped row of b is closed once it holds this many (job x term) pairs, so that no one
 * multiply task is long (each grouped row is one task): 4 CPU chunks' worth; at 12288 the extra
 * tasks' overhead cost more than the H lifts' critical paths gained (docs/perf-log.md,
 * 2026-12-07). */
#define LIFT_GROUP_PAIRS 49152
/* A set of generators gets a row of its own for the jobs they all use (and no other) when it
 * saves at least this many pairs (a task's overhead is worth a few hundred products). */
#define SHARE_MIN_SAVED 1024

/* Jobs into b's open grouped row, closed every LIFT_GROUP_PAIRS pairs. */
typedef struct emitter {
    row_build *b;
    milnor_sink to;             /* rb_group_sink(b) */
    uint64_t pairs;             /* in the open group */
} emitter;

static int emit_job(emitter *e, milnor_row_job j)
{
    if (e->to.job(e->to.ctx, j) != 0) return -1;
    if ((e->pairs += j.n_terms) < LIFT_GROUP_PAIRS) return 0;
    e->pairs = 0;
    return rb_group_end(e->b);
}

static int close_row(emitter *e)
{
    e->pairs = 0;
    return e->b->group_job && e->b->group_job[e->b->ngroups + 1] > e->b->group_job[e->b->ngroups]
               ? rb_group_end(e->b) : 0;
}

/* The jobs met, keyed by (list, left factor): open addressing, the keys in the slots. */
typedef struct jslot {
    uint64_t k;                 /* list << 32 | degree */
    uint32_t idx, id;           /* the left factor's index; the job's number + 1 (0: empty) */
} jslot;

struct lift_share {
    row_build *b;               /* the step's rows: the lists' terms go straight into b->terms */
    uint32_t ngen, g0;          /* generators; b's grouped rows before this share's */
    int direct;                 /* one generator: its jobs straight into its grouped row */
    emitter e;
    uint64_t read, kept;        /* pairs (direct) */
    keytab lists;               /* the term lists met in this step */
    size_t *lt0, *lt1, lcap;    /* per list its terms in b */
    uint32_t nlists, open;      /* the list whose terms come now (UINT32_MAX: none) */
    jslot *slot;
    uint32_t ssize, njobs, jcap;
    uint32_t *job_list, *job_deg, *job_idx;
    uint32_t *use_piece, *use_gen;  /* (job, generator) uses, in the generators' order */
    size_t nuses, ucap;
    uint32_t gen;               /* the generator being planned */
    milnor_sink terms;
};

lift_share *lift_share_new(row_build *b, uint32_t ngen)
{
    lift_share *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->b = b, x->ngen = ngen, x->g0 = b->ngroups, x->direct = ngen == 1, x->open = UINT32_MAX;
    x->e = (emitter){ b, rb_group_sink(b), 0 };
    x->terms = rb_group_sink(b);
    return x;
}

void lift_share_free(lift_share *x)
{
    if (!x) return;
    keytab_clear(&x->lists);
    free(x->lt0), free(x->lt1), free(x->slot), free(x->job_list), free(x->job_deg), free(x->job_idx);
    free(x->use_piece), free(x->use_gen);
    free(x);
}

void lift_share_gen(lift_share *x, uint32_t k) { x->gen = k; }

const milnor_sink *lift_share_terms(lift_share *x) { return &x->terms; }

int lift_share_list(lift_share *x, const uint64_t key[LIFT_SHARE_KEY], uint32_t *list)
{
    if (x->open != UINT32_MAX) x->lt1[x->open] = x->b->nterms, x->open = UINT32_MAX;
    int added = 1;
    if (x->direct) *list = x->nlists;           /* one generator: nothing to share */
    else if (keytab_put(&x->lists, key, list, &added) != 0) return -1;
    if (!added) return 1;
    if ((size_t)*list + 1 > x->lcap) {
        size_t cap = x->lcap ? 2 * x->lcap : 256;
        size_t *a = realloc(x->lt0, cap * sizeof *a);
        if (a) x->lt0 = a;
        size_t *b = a ? realloc(x->lt1, cap * sizeof *b) : NULL;
        if (!b) return -1;
        x->lt1 = b, x->lcap = cap;
    }
    x->nlists = *list + 1;
    x->lt0[*list] = x->lt1[*list] = x->b->nterms, x->open = *list;      /* its terms follow */
    return 0;
}

static uint32_t job_hash(uint64_t k, uint32_t idx, uint32_t size)
{
    uint64_t h = (k ^ (uint64_t)idx * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h >> 32) & (size - 1);
}

int lift_share_job(lift_share *x, uint32_t list, uint32_t r_deg, uint32_t r_idx)
{
    if (list == x->open) x->lt1[list] = x->b->nterms;
    uint32_t n = (uint32_t)(x->lt1[list] - x->lt0[list]);
    if (x->direct) {
        x->read += n, x->kept += n;
        return emit_job(&x->e, (milnor_row_job){ r_deg, r_idx, (uint32_t)x->lt0[list], n });
    }
    if (2 * (x->njobs + 1) > x->ssize) {
        uint32_t size = x->ssize ? 2 * x->ssize : 1024;
        jslot *sl = calloc(size, sizeof *sl);
        if (!sl) return -1;
        for (uint32_t h = 0; h < x->ssize; h++)
            if (x->slot[h].id) {
                uint32_t g = job_hash(x->slot[h].k, x->slot[h].idx, size);
                while (sl[g].id) g = (g + 1) & (size - 1);
                sl[g] = x->slot[h];
            }
        free(x->slot);
        x->slot = sl, x->ssize = size;
    }
    uint64_t k = (uint64_t)list << 32 | r_deg;
    uint32_t h = job_hash(k, r_idx, x->ssize);
    while (x->slot[h].id && (x->slot[h].k != k || x->slot[h].idx != r_idx)) h = (h + 1) & (x->ssize - 1);
    if (!x->slot[h].id) {
        if (x->njobs == x->jcap) {
            uint32_t cap = x->jcap ? 2 * x->jcap : 1024;
            uint32_t *a = realloc(x->job_list, cap * sizeof *a);
            if (a) x->job_list = a;
            uint32_t *b = a ? realloc(x->job_deg, cap * sizeof *b) : NULL;
            if (b) x->job_deg = b;
            uint32_t *c = b ? realloc(x->job_idx, cap * sizeof *c) : NULL;
            if (!c) return -1;
            x->job_idx = c, x->jcap = cap;
        }
        x->job_list[x->njobs] = list, x->job_deg[x->njobs] = r_deg, x->job_idx[x->njobs] = r_idx;
        x->slot[h] = (jslot){ k, r_idx, ++x->njobs };
    }
    if (x->nuses == x->ucap) {
        size_t cap = x->ucap ? 2 * x->ucap : 1024;
        uint32_t *up = realloc(x->use_piece, cap * sizeof *up);
        if (up) x->use_piece = up;
        uint32_t *ug = up ? realloc(x->use_gen, cap * sizeof *ug) : NULL;
        if (!ug) return -1;
        x->use_gen = ug, x->ucap = cap;
    }
    x->use_piece[x->nuses] = x->slot[h].id - 1, x->use_gen[x->nuses++] = x->gen;
    return 0;
}

/* ---- the rows ------------------------------------------------------------------------------ */

/* Job p appended to the open grouped row. */
static int emit_piece(const lift_share *x, emitter *e, uint32_t p)
{
    uint32_t l = x->job_list[p];
    return emit_job(e, (milnor_row_job){ x->job_deg[p], x->job_idx[p], (uint32_t)x->lt0[l],
                                         (uint32_t)(x->lt1[l] - x->lt0[l]) });
}

typedef struct srow {
    uint32_t rep;               /* a piece whose users are the row's generators */
    uint32_t first;             /* its first piece (next[] links the rest) */
    uint64_t saved;             /* pairs saved: its pieces' pairs x (users - 1) */
    uint32_t g0, g1;            /* its grouped rows of b */
} srow;

static int by_saved(const void *a, const void *b)
{
    const srow *x = a, *y = b;
    return x->saved < y->saved ? 1 : x->saved > y->saved ? -1 : x->first < y->first ? -1 : x->first > y->first;
}

int lift_share_emit(lift_share *x, uint32_t **offs_out, uint32_t **list_out, uint64_t *read, uint64_t *kept)
{
    row_build *b = x->b;
    uint32_t ngen = x->ngen;
    if (x->open != UINT32_MAX) x->lt1[x->open] = x->b->nterms, x->open = UINT32_MAX;
    *read += x->read, *kept += x->kept;
    uint32_t np = x->njobs;
    if (x->direct || !np) {             /* the rows made already (one generator), or none */
        int rc = close_row(&x->e);
        uint32_t n = b->ngroups - x->g0;
        *offs_out = calloc((size_t)ngen + 2, sizeof **offs_out);
        *list_out = malloc(((size_t)n + 1) * sizeof **list_out);
        if (rc || !*offs_out || !*list_out) return -1;
        for (uint32_t g = 0; g < n; g++) (*list_out)[g] = x->g0 + g;
        for (uint32_t k = 0; k < ngen; k++) (*offs_out)[k + 1] = n;     /* (ngen is 1, or no row) */
        return 0;
    }
    uint64_t *pp = calloc((size_t)np + 1, sizeof *pp);           /* pairs per piece */
    uint32_t *uoff = calloc((size_t)np + 2, sizeof *uoff);        /* users per piece (CSR) */
    uint32_t *users = malloc((x->nuses + 1) * sizeof *users), *nusers = calloc((size_t)np + 1, sizeof *nusers);
    uint32_t *next = malloc(((size_t)np + 1) * sizeof *next), *row_of = malloc(((size_t)np + 1) * sizeof *row_of);
    srow *rows = malloc(((size_t)np + 1) * sizeof *rows);
    uint32_t *own_off = calloc((size_t)ngen + 2, sizeof *own_off), *own = NULL, *offs = NULL, *list = NULL;
    uint32_t *rtab = NULL, rsize = 0, nrows = 0;
    int rc = -1;
    if (!pp || !uoff || !users || !nusers || !next || !row_of || !rows || !own_off) goto done;
    for (uint32_t p = 0; p < np; p++) pp[p] = x->lt1[x->job_list[p]] - x->lt0[x->job_list[p]];
    /* each piece's users in order, a generator that uses it twice not at all (the sum is mod 2) */
    for (size_t u = 0; u < x->nuses; u++) uoff[x->use_piece[u] + 2]++, *read += pp[x->use_piece[u]];
    for (uint32_t p = 0; p < np; p++) uoff[p + 2] += uoff[p + 1];
    for (size_t u = 0; u < x->nuses; u++) users[uoff[x->use_piece[u] + 1]++] = x->use_gen[u];
    for (uint32_t p = 0; p < np; p++) {
        uint32_t *us = users + uoff[p], n = uoff[p + 1] - uoff[p], m = 0;
        for (uint32_t a = 0; a < n;) {
            uint32_t c = a;
            while (c < n && us[c] == us[a]) c++;
            if ((c - a) & 1) us[m++] = us[a];
            a = c;
        }
        nusers[p] = m;
    }
    /* jobs used by the same two or more generators: one candidate row */
    rsize = 64;
    while (rsize < 2 * np) rsize *= 2;
    rtab = calloc(rsize, sizeof *rtab);
    if (!rtab) goto done;
    for (uint32_t p = 0; p < np; p++) {
        row_of[p] = UINT32_MAX;
        if (nusers[p] < 2 || !pp[p]) continue;
        const uint32_t *us = users + uoff[p];
        uint64_t h = 1469598103934665603ull;
        for (uint32_t a = 0; a < nusers[p]; a++) h = (h ^ us[a]) * 1099511628211ull;
        uint32_t s = (uint32_t)(h ^ h >> 29) & (rsize - 1), r;
        for (;; s = (s + 1) & (rsize - 1)) {
            if (!rtab[s]) {
                r = nrows++;
                rows[r] = (srow){ p, UINT32_MAX, 0, 0, 0 };
                rtab[s] = r + 1;
                break;
            }
            r = rtab[s] - 1;
            uint32_t q = rows[r].rep;
            if (nusers[q] == nusers[p] && !memcmp(users + uoff[q], us, nusers[p] * sizeof *us)) break;
        }
        row_of[p] = r;
        rows[r].saved += pp[p] * (nusers[p] - 1);
    }
    for (uint32_t p = np; p-- > 0;)     /* each row's pieces, in order */
        if (row_of[p] != UINT32_MAX) next[p] = rows[row_of[p]].first, rows[row_of[p]].first = p;
    /* the rows that pay, at most as many as the step has generators (and at least 4; their
     * memory), most saved first; the pieces
     * of the others are planned into each user's own row, as without sharing */
    qsort(rows, nrows, sizeof *rows, by_saved);
    uint32_t keep = 0;
    while (keep < nrows && keep < (ngen > 4 ? ngen : 4) && rows[keep].saved >= SHARE_MIN_SAVED) keep++;
    for (uint32_t r = 0; r < nrows; r++)
        for (uint32_t p = rows[r].first; p != UINT32_MAX; p = next[p]) row_of[p] = r < keep ? r : UINT32_MAX;
    /* each generator's own pieces */
    for (uint32_t p = 0; p < np; p++)
        if (row_of[p] == UINT32_MAX && pp[p])
            for (uint32_t a = 0; a < nusers[p]; a++) own_off[users[uoff[p] + a] + 2]++;
    for (uint32_t k = 0; k < ngen; k++) own_off[k + 2] += own_off[k + 1];
    own = malloc(((size_t)own_off[ngen + 1] + 1) * sizeof *own);
    if (!own) goto done;
    for (uint32_t p = 0; p < np; p++)
        if (row_of[p] == UINT32_MAX && pp[p])
            for (uint32_t a = 0; a < nusers[p]; a++) own[own_off[users[uoff[p] + a] + 1]++] = p;
    /* the rows: each generator's own, then the shared ones */
    emitter e = { b, rb_group_sink(b), 0 };
    uint32_t *g0 = malloc(((size_t)ngen + 1) * 2 * sizeof *g0);
    if (!g0) goto fail;
    for (uint32_t k = 0; k < ngen; k++) {
        g0[2 * k] = b->ngroups;
        for (uint32_t a = own_off[k]; a < own_off[k + 1]; a++) {
            if (emit_piece(x, &e, own[a]) != 0) goto fail;
            *kept += pp[own[a]];
        }
        if (close_row(&e) != 0) goto fail;
        g0[2 * k + 1] = b->ngroups;
    }
    for (uint32_t r = 0; r < keep; r++) {
        rows[r].g0 = b->ngroups;
        for (uint32_t p = rows[r].first; p != UINT32_MAX; p = next[p]) {
            if (emit_piece(x, &e, p) != 0) goto fail;
            *kept += pp[p];
        }
        if (close_row(&e) != 0) goto fail;
        rows[r].g1 = b->ngroups;
    }
    /* each generator's grouped rows: its own, then those of the shared rows it is a user of */
    offs = calloc((size_t)ngen + 2, sizeof *offs);
    if (!offs) goto fail;
    for (uint32_t k = 0; k < ngen; k++) offs[k + 2] = g0[2 * k + 1] - g0[2 * k];
    for (uint32_t r = 0; r < keep; r++)
        for (uint32_t a = 0; a < nusers[rows[r].rep]; a++) offs[users[uoff[rows[r].rep] + a] + 2] += rows[r].g1 - rows[r].g0;
    for (uint32_t k = 0; k < ngen; k++) offs[k + 2] += offs[k + 1];
    list = malloc(((size_t)offs[ngen + 1] + 1) * sizeof *list);
    if (!list) goto fail;
    for (uint32_t k = 0; k < ngen; k++)
        for (uint32_t g = g0[2 * k]; g < g0[2 * k + 1]; g++) list[offs[k + 1]++] = g;
    for (uint32_t r = 0; r < keep; r++)
        for (uint32_t a = 0; a < nusers[rows[r].rep]; a++)
            for (uint32_t g = rows[r].g0; g < rows[r].g1; g++) list[offs[users[uoff[rows[r].rep] + a] + 1]++] = g;
    *offs_out = offs, *list_out = list;
    offs = NULL, list = NULL;
    rc = 0;
fail:
    free(g0);
done:
    free(pp), free(uoff), free(users), free(nusers), free(next), free(row_of), free(rows), free(own_off), free(own);
    free(rtab), free(offs), free(list);
    return rc;
}
