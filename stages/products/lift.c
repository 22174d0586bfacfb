/* lift.c — chain maps by lifting, batched per target bidegree (see lift.h). */
#include "stages/products/lift.h"
#include "algebra/clock.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "stages/store/durable.h"
#include "stages/products/preimage.h"
#include "stages/resolve/resolution_p.h"
#include "stages/rowbuild.h"
#include "stages/rowbuild_p.h"
#include "stages/store/stagefile.h"

void lift_fail(lift_set *set, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    latch_vset(&set->fail, fmt, ap);
    va_end(ap);
}

int lift_failed(lift_set *set) { return latch_is_set(&set->fail); }

uint32_t lift_key_hash(const char *key)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

uint32_t lift_file_aux(const lift_set *set, const lift_map *f)
{
    uint32_t h = lift_key_hash(f->key);
    if (set->src->module_id == set->tgt->module_id) return h;
    char tail[64];   /* a map into another resolution: that resolution's module and algorithm too */
    snprintf(tail, sizeof tail, ">%016llx:%d", (unsigned long long)set->tgt->module_id, set->tgt->algorithm);
    for (const unsigned char *p = (const unsigned char *)tail; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

int lift_set_init(lift_set *set, const resolution *src, const resolution *tgt, const char *outdir)
{
    memset(set, 0, sizeof *set);
    set->src = src;
    set->tgt = tgt;
    set->prime = tgt->prime;
    set->ncells = ((size_t)tgt->max_s + 1) * ((size_t)tgt->max_n + 1);
    pthread_mutex_init(&set->lock, NULL);
    latch_init(&set->fail);
    if (outdir && *outdir) snprintf(set->outdir, sizeof set->outdir, "%s", outdir);
    if (src->prime != tgt->prime) return -1;
    if (set->prime != 2) return 0;      /* odd p solves without signature blocks (preimage_solve_p) */
    set->preimage_cache = preimage_cache_new(tgt);
    return set->preimage_cache ? 0 : -1;
}

void lift_set_clear(lift_set *set)
{
    for (int m = 0; m < set->nmaps; m++) {
        lift_map *f = &set->maps[m];
        for (size_t c = 0; f->val && c < set->ncells; c++) fieldmat_clear(&f->val[c]);
        free(f->val);
        free(f->have);
        free(f->coords);
    }
    free(set->maps);
    preimage_cache_free(set->preimage_cache);
    pthread_mutex_destroy(&set->lock);
    latch_destroy(&set->fail);
    memset(set, 0, sizeof *set);
}

int lift_set_share_preimages(lift_set *set, const lift_set *from)
{
    if (!from->preimage_cache || set->tgt != from->tgt) return -1;
    preimage_cache_free(set->preimage_cache);
    set->preimage_cache = preimage_cache_ref(from->preimage_cache);
    return 0;
}

/* mkdir -p of path (components created as needed). */
static int mkdir_p(const char *path)
{
    char buf[4300];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* "<outdir>/stages/lift/<key>" */
static void lift_dir(const lift_set *set, const lift_map *f, char *buf, size_t size)
{
    snprintf(buf, size, "%s/stages/%s/%s", set->outdir, stage_kind_name(STAGE_LIFT), f->key);
}

/* Marks the cells whose file "<s>_<T>.zst" is in dir (f->have = 2: try to load it), so that a
 * step opens only files that exist (an open of a missing file cost 0.2 ms here). */
static void note_files(const lift_set *set, lift_map *f, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int s, T, used = 0;
        if (sscanf(e->d_name, "%d_%d.zst%n", &s, &T, &used) != 2 || e->d_name[used]) continue;
        int i = s - f->s0;
        deg_t t = T - f->t0;
        if (i >= 0 && i <= set->tgt->max_s && t >= i && t - i <= set->tgt->max_n) f->have[lift_cell(set, i, t)] = 2;
    }
    if (d) closedir(d);
}

int lift_add_class(lift_set *set, int s0, deg_t t0, const uint8_t *coords, uint32_t n)
{
    return lift_add_map(set, s0, t0, coords, n, NULL, NULL, NULL);
}

static int add_map(lift_set *set, int s0, deg_t t0, const uint8_t *coords, uint32_t n, const char *key,
                   lift_extra_fn extra, void *extra_ctx, int module_map);

int lift_add_map(lift_set *set, int s0, deg_t t0, const uint8_t *coords, uint32_t n, const char *key,
                 lift_extra_fn extra, void *extra_ctx)
{
    return add_map(set, s0, t0, coords, n, key, extra, extra_ctx, 0);
}

int lift_add_module_map(lift_set *set, deg_t t0, const char *key, int (*bottom)(void *, deg_t, uint32_t, fieldmat *),
                        void *bottom_ctx)
{
    if (!key || !bottom) return -1;
    int m = add_map(set, 0, t0, NULL, 0, key, NULL, NULL, 1);
    if (m >= 0) set->maps[m].bottom = bottom, set->maps[m].bottom_ctx = bottom_ctx;
    return m;
}

static int add_map(lift_set *set, int s0, deg_t t0, const uint8_t *coords, uint32_t n, const char *key,
                   lift_extra_fn extra, void *extra_ctx, int module_map)
{
    /* a homotopy's bottom (n = 0) may lie below the region: d2's h_2 at t0 = 1 < s0 = 2; a map of
     * modules has generators in several degrees of its bottom row, and t0 may be negative */
    if (s0 < 0 || s0 > set->src->max_s || (t0 < s0 && n) || (!module_map && n != res_ngens(set->src, s0, t0)))
        return -1;
    if (key && (!*key || strlen(key) >= sizeof set->maps[0].key || strchr(key, '/') || key[0] == '.')) return -1;
    for (uint32_t k = 0; k < n; k++)
        if (coords[k] >= set->prime) return -1;
    lift_map *nm = realloc(set->maps, ((size_t)set->nmaps + 1) * sizeof *nm);
    if (!nm) return -1;
    set->maps = nm;
    lift_map *f = &nm[set->nmaps];
    memset(f, 0, sizeof *f);
    f->s0 = s0;
    f->t0 = t0;
    f->nclass = n;
    f->max_i = INT_MAX;
    f->coords = malloc(n ? n : 1);
    f->val = calloc(set->ncells, sizeof *f->val);
    f->have = calloc(set->ncells, 1);
    if (!f->coords || !f->val || !f->have) {
        free(f->coords), free(f->val), free(f->have);
        return -1;
    }
    if (n) memcpy(f->coords, coords, n);
    f->extra = extra;
    f->extra_ctx = extra_ctx;
    /* the key: stem, s, then the vector in hex, 4 coordinates a digit, lowest first; a vector
     * of more than 256 coordinates by the FNV-1a 64 of its bits instead (a file name has at
     * most 255 bytes) */
    int len = snprintf(f->key, sizeof f->key, "%d_%d_", (int)(t0 - s0), s0);
    if (key) snprintf(f->key, sizeof f->key, "%s", key);
    else if (set->prime != 2) {     /* odd p: a digit per coordinate, or a hash of them */
        if (set->prime <= 13 && n <= 128) {
            for (uint32_t k = 0; k < n; k++) f->key[len++] = "0123456789abc"[coords[k]];
            f->key[len] = 0;
        } else {
            uint64_t h = 14695981039346656037ull;
            for (uint32_t k = 0; k < n; k++) h = (h ^ coords[k]) * 1099511628211ull;
            snprintf(f->key + len, sizeof f->key - (size_t)len, "h%016llx", (unsigned long long)h);
        }
    } else if (n > 256) {
        uint64_t h = 14695981039346656037ull;
        for (uint32_t k = 0; k < n; k++) h = (h ^ (coords[k] & 1)) * 1099511628211ull;
        snprintf(f->key + len, sizeof f->key - (size_t)len, "h%016llx", (unsigned long long)h);
    } else {
        for (uint32_t k = 0; k < n; k += 4) {
            unsigned d = 0;
            for (uint32_t b = 0; b < 4 && k + b < n; b++) d |= (unsigned)(coords[k + b] & 1) << b;
            f->key[len++] = "0123456789abcdef"[d];
        }
        f->key[len] = 0;
    }
    if (set->outdir[0]) {
        char dir[4400];
        lift_dir(set, f, dir, sizeof dir);
        if (mkdir_p(dir) != 0) {
            free(f->coords), free(f->val), free(f->have);
            return -1;
        }
        stage_remove_temporaries(dir);   /* a killed lift's leftovers (the caller holds DIR's lock) */
        note_files(set, f, dir);
    }
    return set->nmaps++;
}

int lift_map_in_region(const lift_set *set, int m, int i, deg_t t)
{
    const lift_map *f = &set->maps[m];
    return i >= 0 && i <= f->max_i && t >= i && res_is_done(set->tgt, i, t) &&
           res_is_done(set->src, f->s0 + i, t + f->t0) && (!f->in_region || f->in_region(f->extra_ctx, i, t));
}

int lift_in_region(const lift_set *set, int i, deg_t t)
{
    for (int m = 0; m < set->nmaps; m++)
        if (lift_map_in_region(set, m, i, t)) return 1;
    return 0;
}

int lift_deps(const lift_set *set, int i, deg_t t, int dep_i[2], deg_t dep_t[2])
{
    int n = 0;
    if (i >= 1 && lift_in_region(set, i - 1, t - 1)) dep_i[n] = i - 1, dep_t[n++] = t - 1;
    if (lift_in_region(set, i, t - 1)) dep_i[n] = i, dep_t[n++] = t - 1;
    return n;
}

/* ---- one step ------------------------------------------------------------------------------ */

/* Bits of a step's y: target F_{i-1} in degree t on generators below t; at i = 0 (the bottom
 * of maps of modules) the target's module in degree t. */
static uint32_t y_dim(const lift_set *set, int i, deg_t t)
{
    return i ? (uint32_t)freemod_dim(&set->tgt->F[i - 1], t, t) : res_module_dim(set->tgt, t);
}

/* The columns the products of a step's y are made over: y's own (cols, over target F_j in
 * degree t, generators below t), or over the whole of A's blocks for an unstable target, which
 * freemod_narrow then narrows to y's. */
static uint32_t y_wide(const lift_set *set, int j, deg_t t, uint32_t cols)
{
    return set->tgt->unstable ? (uint32_t)freemod_dim_wide(&set->tgt->F[j], t, t) : cols;
}

/* Columns of a map's cell (i, t): the basis of target F_i in degree t, generators <= t. */
static uint32_t cell_cols(const lift_set *set, int i, deg_t t)
{
    return (uint32_t)freemod_dim(&set->tgt->F[i], t, t + 1);
}

static void lift_path(const lift_set *set, const lift_map *f, int s, deg_t T, char *buf, size_t size)
{
    char dir[4400];
    lift_dir(set, f, dir, sizeof dir);
    snprintf(buf, size, "%s/%d_%d.zst", dir, s, (int)T);
}

/* The aux of the files of a set whose preimages are any (set->any_preimage): lift_file_aux's
 * hash continued over ":any", so that a set that needs preimage_solve's preimages never reads them
 * (while a set content with any preimage reads both kinds). */
static uint32_t any_preimage_aux(const lift_set *set, const lift_map *f)
{
    uint32_t h = lift_file_aux(set, f);
    for (const unsigned char *p = (const unsigned char *)":any"; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

/* Loads map f's file at target (i, t) into c (over the set's field) if it is there and valid:
 * 1 loaded, 0 absent or bad (a bad one is named on stderr), -1 out of memory. */
static int load_cell(lift_set *set, const lift_map *f, int i, deg_t t, uint32_t rows, uint32_t cols, fieldmat *c)
{
    char path[4500], err[700];
    int s = f->s0 + i;
    deg_t T = t + f->t0;
    lift_path(set, f, s, T, path, sizeof path);
    stage_header h;
    c->p = set->prime;
    int rc = c->p != 2 ? stage_read_p(path, &h, &c->fp, err, sizeof err) : stage_read(path, &h, &c->f2, err, sizeof err);
    if (rc == STAGE_ENOENT) return 0;
    if (rc == STAGE_ENOMEM) return -1;
    if (rc == STAGE_OK) {
        rc = stage_expect(&h, STAGE_LIFT, s, T, set->src->module_id, set->src->algorithm, err, sizeof err);
        if (rc == STAGE_OK && !set->any_preimage && h.aux == any_preimage_aux(set, f) && h.rows == rows &&
            h.cols == cols) {
            fieldmat_clear(c);          /* a products run's preimages: valid, but not sseq's */
            return 0;
        }
        uint32_t own = lift_file_aux(set, f), other = set->any_preimage ? any_preimage_aux(set, f) : own;
        if (rc == STAGE_OK && ((h.aux != own && h.aux != other) || h.rows != rows || h.cols != cols)) {
            snprintf(err, sizeof err, "%.500s: a lift file of another class or shape (aux %u, %u x %u; expected "
                     "%u x %u)", path, h.aux, h.rows, h.cols, rows, cols);
            rc = STAGE_EMISMATCH;
        }
        if (rc == STAGE_OK && c->p != 2 && c->fp.p != set->prime) {
            snprintf(err, sizeof err, "%.500s: a lift file at p = %u, expected %u", path, c->fp.p, set->prime);
            rc = STAGE_EMISMATCH;
        }
        if (rc != STAGE_OK) fieldmat_clear(c);
    }
    if (rc == STAGE_OK) return 1;
    fprintf(stderr, "extflow: %s; recomputing\n", err);
    pthread_mutex_lock(&set->lock);
    set->damaged++;
    pthread_mutex_unlock(&set->lock);
    return 0;
}

/* Writes map f's cell (i, t) as its stage file in durable.h's cache mode: a temporary renamed
 * into place, no sync (lift files are a cache: a kill never leaves a partial file under the
 * final name, and after a power failure a damaged one fails the reader's checksums and is
 * recomputed; syncing each file made products at stem 80 1.8 times slower, docs/perf.md). */
static int write_cell(lift_set *set, const lift_map *f, int i, deg_t t)
{
    size_t cell = lift_cell(set, i, t);
    char path[4500], err[4200] = "";
    stage_header h = { .kind = STAGE_LIFT, .s = f->s0 + i, .t = t + f->t0, .aux = set->any_preimage ? any_preimage_aux(set, f) : lift_file_aux(set, f),
                       .algorithm = (uint16_t)set->src->algorithm, .module_id = set->src->module_id };
    lift_path(set, f, h.s, h.t, path, sizeof path);
    void *buf = NULL;
    size_t len = 0;
    int rc = set->prime != 2 ? stage_encode_p(&h, &f->val[cell].fp, &buf, &len, err, sizeof err)
                             : stage_encode(&h, &f->val[cell].f2, &buf, &len, err, sizeof err);
    if (rc == STAGE_OK && durable_write_cache(path, buf, len, err, sizeof err) != 0) rc = STAGE_EIO;
    free(buf);
    if (rc != STAGE_OK) lift_fail(set, "%s", err);
    return rc == STAGE_OK ? 0 : -1;
}

/* Where the products of f_j(V's rows) go: the rows of the set's prime, b at p = 2 (milnor.h's
 * terms, indices of the resolution's A) or bp at odd p (milnor_p.h's terms, with coefficients,
 * indices of A_p: B's elements are named by A_p's, as the multiply codelet reads them). */
typedef struct lift_rows {
    row_build *b;               /* p = 2 */
    row_build_p *bp;            /* odd p */
} lift_rows;

static uint32_t rows_njobs(const lift_rows *r) { return r->b ? r->b->nrows : r->bp->nrows; }
static size_t rows_nterms(const lift_rows *r) { return r->b ? r->b->nterms : r->bp->nterms; }

/* A term c·y (y element idx of degree d of the target's algebra, landing at column col). */
static int rows_term(const lift_set *set, lift_rows *r, uint32_t d, uint32_t idx, uint32_t col, uint32_t c)
{
    if (r->b) return rb_push_term(r->b, (milnor_term){ d, idx, col });
    const milnor_p_sub *B = &set->tgt->odd->B;
    uint32_t a = (uint32_t)(milnor_p_sub_elt(B, d, idx) - B->A->elts[d]);
    return rbp_push_term(r->bp, (milnor_p_term){ d, a, col, c });
}

static int rows_job(const lift_set *set, lift_rows *r, uint32_t d, uint32_t idx, uint32_t first, uint32_t n)
{
    if (r->b) return rb_push_job(r->b, (milnor_row_job){ d, idx, first, n });
    const milnor_p_sub *B = &set->src->odd->B;
    uint32_t a = (uint32_t)(milnor_p_sub_elt(B, d, idx) - B->A->elts[d]);
    return rbp_push_job(r->bp, (milnor_row_job){ d, a, first, n });
}

/* The rows' matrix, ncols columns, zero (at odd p *Dp, which bp points to). 0, or -1. */
static int rows_alloc(const lift_set *set, lift_rows *r, fpmat *Dp, uint32_t ncols)
{
    if (r->b) return rb_alloc(r->b, ncols);
    if (fpmat_init(Dp, set->prime, r->bp->nrows, ncols) != 0) return -1;
    r->bp->D = Dp;
    r->bp->ncols = ncols;
    return 0;
}

/* Fills the rows on this thread: 0, or -1 when a product leaves the profile's algebra (odd p). */
static int rows_multiply(const lift_set *set, lift_rows *r)
{
    if (r->b) {
        rb_multiply_all(r->b, &set->tgt->A);
        return 0;
    }
    return rbp_multiply_sub(r->bp, &set->tgt->odd->B, 0, r->bp->nrows);
}

/* The rows over target F_j in degree t narrowed to the excess-kept columns (unstable). 0, -1. */
static int rows_narrow(const lift_set *set, lift_rows *r, int j, deg_t t)
{
    return r->b ? freemod_narrow(&set->tgt->F[j], t, t, &r->b->D) : freemod_narrow_p(&set->tgt->F[j], t, t, r->bp->D);
}

/* The bits of the entries set in some row of V (at every prime: a non-zero entry). */
static void used_entries(const fieldmat *V, uint64_t *any)
{
    uint32_t width = fieldmat_cols(V);
    if (V->p == 2) {
        size_t vw = f2vec_words(width);
        for (uint32_t k = 0; k < V->f2.rows; k++)
            for (size_t w = 0; w < vw; w++) any[w] |= f2mat_row(&V->f2, k)[w];
        return;
    }
    for (uint32_t k = 0; k < V->fp.rows; k++) {
        const uint8_t *v = fpmat_row(&V->fp, k);
        for (uint32_t e = 0; e < width; e++)
            if (v[e]) any[e >> 6] |= (uint64_t)1 << (e & 63);
    }
}

/* The first non-zero entry of row (over the field of p) at or after e and before end, its value
 * in *c; end if none. At p = 2 a word at a time. */
static inline uint64_t next_entry(uint32_t p, const void *row, uint64_t e, uint64_t end, uint32_t *c)
{
    *c = 1;
    if (p == 2) {
        const uint64_t *w = row;
        while (e < end) {
            uint64_t bits = w[e >> 6] >> (e & 63);
            if (bits) return e + (uint64_t)__builtin_ctzll(bits) < end ? e + (uint64_t)__builtin_ctzll(bits) : end;
            e = (e | 63) + 1;
        }
        return end;
    }
    const uint8_t *b = row;
    while (e < end && !b[e]) e++;
    if (e < end) *c = b[e];
    return e < end ? e : end;
}

/* The jobs of f_j(V's rows) for map f (see lift_apply): each distinct basis element Sq(S)·g'
 * of source F_{s0+j} in degree T used in some row of V becomes one Milnor-multiply job of r,
 * whose terms are those of f(g') (the row Sq(S)·f(g') of target F_j in degree T - t0, ycols
 * columns; at odd p each term with its coefficient); job_of[e] = that job's row of r (-1: none,
 * f(g') = 0), for each of V's columns e. The jobs are appended to r, so several calls share
 * one r. 0, or -1 after lift_fail. */
static int apply_plan(lift_set *set, const lift_map *f, int j, deg_t T, const fieldmat *V, uint32_t ycols,
                      lift_rows *r, int32_t *job_of)
{
    const resolution *src = set->src, *tgt = set->tgt;
    const freemod *S = &src->F[f->s0 + j], *G = &tgt->F[j];
    deg_t t = T - f->t0;
    uint32_t width = fieldmat_cols(V), prime = set->prime;
    int rc = -1;
    size_t vw = f2vec_words(width);
    uint64_t *any = calloc(vw + 1, sizeof *any);    /* the entries used in some row of V */
    if (!any) goto out;
    used_entries(V, any);
    for (uint32_t e = 0; e < width; e++) job_of[e] = -1;
    /* jobs for every entry used in some row of V, terms of f(g') added on first use */
    uint64_t base = 0;
    for (deg_t u = 0; u <= T && base < width; u++) {
        if (!S->ngens[u]) continue;
        uint32_t blen = freemod_block(S, T - u, u);    /* unstable: the excess order's prefix */
        deg_t v = u - f->t0;                         /* degree of f(g') in target F_j */
        for (uint32_t g = 0; g < S->ngens[u] && base < width; g++, base += blen) {
            int used = 0;
            for (uint64_t e = base; e < base + blen && e < width && !used; e++) used = f2vec_get(any, e);
            if (!used || v < j) continue;           /* f(g') = 0: F_j is zero below degree j */
            size_t cell = lift_cell(set, j, v);
            if (f->have[cell] != 1) {
                lift_fail(set, "lift: a step needs map %s at target (%d, %d) before it has run", f->key, j, (int)v);
                goto out;
            }
            const fieldmat *fv = &f->val[cell];
            uint32_t first = (uint32_t)rows_nterms(r);
            /* terms of f(g'): the non-zero entries of row g of fv, over target F_j in degree v */
            uint64_t off = 0;
            for (deg_t w = 0; w <= v && fieldmat_rows(fv); w++) {
                if (!G->ngens[w]) continue;
                uint32_t el = freemod_block(G, v - w, w);
                const void *frow = fieldmat_row(fv, g);
                for (uint32_t mm = 0; mm < G->ngens[w]; mm++, off += el) {
                    /* unstable: the products land at the wide offsets (ycols is then wide) */
                    uint64_t col = G->ex ? freemod_dim_wide(G, t, w) + (uint64_t)mm * G->dim[t - w]
                                         : freemod_offset(G, t, w, mm);
                    uint32_t c;
                    for (uint64_t at = next_entry(prime, frow, off, off + el, &c); at < off + el;
                         at = next_entry(prime, frow, at + 1, off + el, &c)) {
                        uint32_t e = (uint32_t)(at - off);
                        if (col + G->dim[t - w] > ycols) {
                            lift_fail(set, "internal error: map %s at target (%d, %d) reaches past its image's "
                                      "columns", f->key, j, (int)t);
                            goto out;
                        }
                        uint32_t idx = G->ex ? excess_index(G->ex, v - w, e) : e;
                        if (rows_term(set, r, (uint32_t)(v - w), idx, (uint32_t)col, c) != 0) goto out;
                    }
                }
            }
            uint32_t n = (uint32_t)(rows_nterms(r) - first);
            if (!n) continue;
            for (uint32_t e = 0; e < blen && base + e < width; e++) {
                if (!f2vec_get(any, base + e)) continue;
                job_of[base + e] = (int32_t)rows_njobs(r);
                uint32_t idx = S->ex ? excess_index(S->ex, T - u, e) : e;
                if (rows_job(set, r, (uint32_t)(T - u), idx, first, n) != 0) goto out;
            }
        }
    }
    rc = 0;
out:
    if (rc && !lift_failed(set)) lift_fail(set, "out of memory lifting at target (%d, %d)", j, (int)t);
    free(any);
    return rc;
}

/* Y's row k += the rows of r's matrix (filled by the multiply) of the entries of V's row k, each
 * times its entry (at p = 2 an XOR). */
static void apply_combine(const fieldmat *V, const int32_t *job_of, const lift_rows *r, fieldmat *Y)
{
    if (V->p == 2) {
        const f2mat *D = &r->b->D;
        size_t vw = f2vec_words(V->f2.cols);
        for (uint32_t k = 0; k < V->f2.rows; k++)
            for (size_t w = 0; w < vw; w++)
                for (uint64_t bits = f2mat_row(&V->f2, k)[w]; bits; bits &= bits - 1) {
                    uint32_t e = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits);
                    if (job_of[e] >= 0)
                        f2vec_xor(f2mat_row(&Y->f2, k), f2mat_row(D, (uint32_t)job_of[e]), f2vec_words(Y->f2.cols));
                }
        return;
    }
    const fpmat *D = r->bp->D;
    uint32_t p = V->p, n = D->cols < Y->fp.cols ? D->cols : Y->fp.cols;
    for (uint32_t k = 0; k < V->fp.rows; k++) {
        const uint8_t *v = fpmat_row(&V->fp, k);
        for (uint32_t e = 0; e < V->fp.cols; e++)
            if (v[e] && job_of[e] >= 0) fpvec_addmul(fpmat_row(&Y->fp, k), fpmat_row(D, (uint32_t)job_of[e]), v[e], n, p);
    }
}

/* Y's row k = f_j(V's row k): see lift.h. apply_plan's jobs, multiplied on this thread, then
 * apply_combine. */
int lift_apply(lift_set *set, const lift_map *f, int j, deg_t T, const fieldmat *V, fieldmat *Y)
{
    row_build b;
    row_build_p bp;
    fpmat Dp = { 0 };
    memset(&b, 0, sizeof b);
    memset(&bp, 0, sizeof bp);
    lift_rows r = { set->prime == 2 ? &b : NULL, set->prime == 2 ? NULL : &bp };
    int32_t *job_of = malloc(((size_t)fieldmat_cols(V) + 1) * sizeof *job_of);
    deg_t t = T - f->t0;
    uint32_t wide = y_wide(set, j, t, fieldmat_cols(Y));
    int rc = job_of ? apply_plan(set, f, j, T, V, wide, &r, job_of) : -1;
    if (!rc && rows_alloc(set, &r, &Dp, wide) != 0) rc = -1;
    if (!rc && rows_multiply(set, &r) != 0) {
        lift_fail(set, "lifting %s at target (%d, %d): a product leaves the profile's algebra", f->key, j, (int)t);
        rc = -1;
    }
    if (!rc && rows_narrow(set, &r, j, t) != 0) rc = -1;
    if (!rc) {
        apply_combine(V, job_of, &r, Y);
    } else if (!lift_failed(set))
        lift_fail(set, "out of memory lifting at target (%d, %d)", j, (int)t);
    rb_clear(&b);
    rbp_clear(&bp);
    fpmat_clear(&Dp);
    free(job_of);
    return rc;
}

/* The rows d z_k of the generators z_k of source F_s (s = s0 + i) in degree T = t + t0 into V
 * (initialised here, over the set's field), over F_{s-1} in degree T. 0, or -1 out of memory
 * (after lift_fail). */
static int boundaries(lift_set *set, const lift_map *f, int i, deg_t t, fieldmat *V)
{
    const resolution *src = set->src;
    int s = f->s0 + i;
    deg_t T = t + f->t0;
    uint32_t nz = res_ngens(src, s, T), width = (uint32_t)freemod_dim(&src->F[s - 1], T, T);
    if (fieldmat_init(V, set->prime, nz, width) != 0) {
        lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
        return -1;
    }
    for (uint32_t k = 0; k < nz; k++) {
        const fm_gen *z = &src->F[s].gens[T][k];
        uint32_t bits = z->bits < width ? z->bits : width;
        if (V->p != 2) {
            memcpy(fpmat_row(&V->fp, k), z->img_p, bits);
            continue;
        }
        memcpy(f2mat_row(&V->f2, k), z->img, f2vec_words(bits) * sizeof(uint64_t));
        if (bits & 63) f2mat_row(&V->f2, k)[bits >> 6] &= ((uint64_t)1 << (bits & 63)) - 1;
    }
    return 0;
}

static double cpu_now(const lift_set *set) { return set->timing ? clock_seconds(CLOCK_THREAD_CPUTIME_ID) : 0; }

/* *acc += seconds, under the set's lock. */
static void add_seconds(lift_set *set, double *acc, double seconds)
{
    if (!set->timing) return;
    pthread_mutex_lock(&set->lock);
    *acc += seconds;
    pthread_mutex_unlock(&set->lock);
}

static int try_load(lift_set *set, lift_map *f, int i, deg_t t, uint32_t rows, uint32_t cols);

/* Map f's cell (i, t) (rows x cols) from its stage file if a valid one is there (1; 0 absent or
 * bad: compute; -1 after lift_fail), its time counted as the files' (set->cpu_files) and taken
 * out of the plan's clock *c0. */
static int try_load_timed(lift_set *set, lift_map *f, int i, deg_t t, uint32_t rows, uint32_t cols, double *c0)
{
    double c1 = cpu_now(set);
    int lr = try_load(set, f, i, t, rows, cols);
    double files = cpu_now(set) - c1;
    add_seconds(set, &set->cpu_files, files);
    *c0 += files;                                   /* the files' time is not the products' */
    return lr;
}

static int try_load(lift_set *set, lift_map *f, int i, deg_t t, uint32_t rows, uint32_t cols)
{
    size_t cell = lift_cell(set, i, t);
    if (!rows || !cols || f->have[cell] != 2) return 0;
    int lr = load_cell(set, f, i, t, rows, cols, &f->val[cell]);
    if (lr < 0) {
        lift_fail(set, "out of memory loading a lift file at target (%d, %d)", i, (int)t);
        return -1;
    }
    if (lr == 1) {
        f->have[cell] = 1;
        pthread_mutex_lock(&set->lock);
        set->loaded++;
        pthread_mutex_unlock(&set->lock);
    }
    return lr;
}

/* The rows of a step's plan at the set's prime (p->b, or p->bp over p->Dp). */
static lift_rows plan_rows(const lift_set *set, lift_plan *p)
{
    return set->prime == 2 ? (lift_rows){ &p->b, NULL } : (lift_rows){ NULL, &p->bp };
}

/* Does map m have an extra term? */
static int has_extra(const lift_set *set, int m)
{
    return set->maps[m].extra != NULL;
}

/* The part of map m's extra term that is added on a CPU (NULL: none): extra, or beside
 * extra_plan's products its extra_rest. */
static lift_extra_fn cpu_extra(const lift_set *set, int m)
{
    const lift_map *f = &set->maps[m];
    return !f->extra ? NULL : f->extra_plan ? f->extra_rest : f->extra;
}

/* Adds map m's CPU extra term (cpu_extra) of generator k into y (a row over the set's field).
 * 0, or -1. */
static int call_extra(lift_set *set, int m, int i, deg_t t, uint32_t k, void *y)
{
    return cpu_extra(set, m)(set->maps[m].extra_ctx, i, t, k, y);
}

/* Plan: for every map with a step here, load its file, or set the bottom, or put the jobs of
 * its f(d z) into the step's rows (p->b at p = 2, p->bp at odd p; the maps' jobs one after the
 * other). */
int lift_step_plan(lift_set *set, int i, deg_t t, lift_plan *p)
{
    memset(p, 0, sizeof *p);
    if (lift_failed(set)) return -1;
    double c0 = cpu_now(set);
    uint32_t prime = set->prime, cols = cell_cols(set, i, t), tgt_dim = y_dim(set, i, t);
    size_t cell = lift_cell(set, i, t);
    lift_rows r = plan_rows(set, p);
    p->maps = calloc((size_t)set->nmaps, sizeof *p->maps);
    int rc = p->maps ? 0 : -1;
    if (rc) lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
    for (int m = 0; m < set->nmaps && !rc; m++) {
        lift_map *f = &set->maps[m];
        lift_plan_map *pm = &p->maps[m];
        if (!lift_map_in_region(set, m, i, t)) continue;
        uint32_t rows = res_ngens(set->src, f->s0 + i, t + f->t0);
        int lr = try_load_timed(set, f, i, t, rows, cols, &c0);
        if (lr != 0) {
            rc = lr < 0 ? -1 : 0;
            continue;
        }
        pm->todo = 1;
        if (fieldmat_init(&f->val[cell], prime, rows, cols) != 0 ||
            fieldmat_init(&pm->Y, prime, (i || f->bottom) && cols ? rows : 0, tgt_dim) != 0) {
            lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
            rc = -1;
        } else if (rows && cols && i == 0 && f->bottom) {   /* a map of modules: y = φ ε(z_k) in N_t */
            for (uint32_t k = 0; k < rows && !rc; k++)
                if (f->bottom(f->bottom_ctx, t, k, &pm->Y) != 0) {
                    lift_fail(set, "lifting at target (%d, %d) failed", i, (int)t);
                    rc = -1;
                }
        } else if (rows && cols && i == 0) {          /* the bottom: f_0(z_k) = x_k ι at t0 */
            for (uint32_t k = 0; k < rows && t == 0; k++)
                if (k < f->nclass && f->coords[k]) fieldmat_set(&f->val[cell], k, 0, f->coords[k]);
        } else if (rows && cols) {                      /* f(d z): jobs of the step's rows */
            rc = boundaries(set, f, i, t, &pm->V);
            pm->job_of = rc ? NULL : malloc(((size_t)fieldmat_cols(&pm->V) + 1) * sizeof *pm->job_of);
            if (!rc && !pm->job_of) {
                lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
                rc = -1;
            }
            if (!rc) rc = apply_plan(set, f, i - 1, t + f->t0, &pm->V, y_wide(set, i - 1, t, tgt_dim), &r, pm->job_of);
        }
    }
    for (int m = 0; m < set->nmaps && !rc && prime == 2; m++) {   /* planned extras: grouped rows, after every single one */
        lift_plan_map *pm = &p->maps[m];
        if (!pm->todo || !set->maps[m].extra_plan) continue;
        uint32_t rows = pm->Y.f2.rows;
        uint64_t read = 0, kept = 0;
        lift_share *share = lift_share_new(&p->b, rows);
        rc = share ? 0 : -1;
        for (uint32_t k = 0; k < rows && !rc; k++) {
            lift_share_gen(share, k);
            rc = set->maps[m].extra_plan(set->maps[m].extra_ctx, i, t, k, share);
        }
        if (!rc) rc = lift_share_emit(share, &pm->groups, &pm->glist, &read, &kept);
        lift_share_free(share);
        if (rc && !lift_failed(set)) lift_fail(set, "lifting at target (%d, %d) failed", i, (int)t);
        pthread_mutex_lock(&set->lock);
        set->extra_read += read, set->extra_kept += kept;
        pthread_mutex_unlock(&set->lock);
    }
    if (!rc && rows_alloc(set, &r, &p->Dp, i ? y_wide(set, i - 1, t, tgt_dim) : tgt_dim) != 0) {
        lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
        rc = -1;
    }
    for (int m = 0; m < set->nmaps && !rc; m++)
        if (p->maps[m].todo && cpu_extra(set, m)) p->extra_rows += fieldmat_rows(&p->maps[m].Y);
    if (!rc) {
        uint64_t pairs = prime == 2 ? rb_pairs(&p->b) : rbp_pairs(&p->bp);
        pthread_mutex_lock(&set->lock);
        set->pairs += pairs;
        pthread_mutex_unlock(&set->lock);
    }
    p->cpu = cpu_now(set) - c0;
    return rc;
}

/* Extras are split from this many generators on (each is a sum over d z of products with
 * composites, a few ms at stem 100: worth a task). */
#define LIFT_SPLIT_ROWS 4
#define LIFT_MAX_PARTS 64

uint32_t lift_step_parts(const lift_set *set, lift_plan *p)
{
    if (set->prime != 2) return 0;      /* odd p's homotopy extras stay in the finish (see lift.h) */
    if (p->extra_rows < LIFT_SPLIT_ROWS) return 0;
    return p->extra_rows / 2 < LIFT_MAX_PARTS ? p->extra_rows / 2 : LIFT_MAX_PARTS;
}

int lift_step_part(lift_set *set, int i, deg_t t, lift_plan *p, uint32_t k, uint32_t n)
{
    uint32_t r0 = (uint32_t)((uint64_t)p->extra_rows * k / n), r1 = (uint32_t)((uint64_t)p->extra_rows * (k + 1) / n);
    uint32_t at = 0;                    /* the first extra row of map m */
    int rc = 0;
    if (k == 0) p->split = 1;           /* (set before the finish reads it: it waits for every part) */
    for (int m = 0; m < set->nmaps && !rc && at < r1; m++) {
        lift_plan_map *pm = &p->maps[m];
        if (!pm->todo || !cpu_extra(set, m)) continue;
        uint32_t rows = fieldmat_rows(&pm->Y), cols = fieldmat_cols(&pm->Y);
        if (at + rows > r0) {
            if (!pm->E.p && rows && cols) {     /* the first part of this map allocates it */
                pthread_mutex_lock(&set->lock);
                if (!pm->E.p && fieldmat_init(&pm->E, set->prime, rows, cols) != 0) rc = -1;
                pthread_mutex_unlock(&set->lock);
            }
            for (uint32_t r = r0 > at ? r0 - at : 0; !rc && pm->E.p && r < rows && at + r < r1; r++)
                rc = call_extra(set, m, i, t, r, fieldmat_row(&pm->E, r));
        }
        at += rows;
    }
    if (rc) lift_fail(set, "lifting at target (%d, %d) failed", i, (int)t);
    return rc ? -1 : 0;
}

void lift_plan_multiply(lift_set *set, int i, deg_t t, lift_plan *p)
{
    double c0 = cpu_now(set);
    lift_rows r = plan_rows(set, p);
    if (rows_multiply(set, &r) != 0)
        lift_fail(set, "lifting at target (%d, %d): a product leaves the profile's algebra", i, (int)t);
    p->cpu += cpu_now(set) - c0;
    uint64_t pairs = set->prime == 2 ? rb_pairs(&p->b) : rbp_pairs(&p->bp);
    pthread_mutex_lock(&set->lock);
    set->pairs_inline += pairs;
    pthread_mutex_unlock(&set->lock);
}

void lift_plan_clear(lift_set *set, lift_plan *p)
{
    for (int m = 0; p->maps && m < set->nmaps; m++) {
        fieldmat_clear(&p->maps[m].V);
        fieldmat_clear(&p->maps[m].Y);
        fieldmat_clear(&p->maps[m].E);
        free(p->maps[m].job_of);
        free(p->maps[m].groups);
        free(p->maps[m].glist);
    }
    free(p->maps);
    rb_clear(&p->b);
    rbp_clear(&p->bp);
    fpmat_clear(&p->Dp);
    memset(p, 0, sizeof *p);
}

static int publish_cell(lift_set *set, lift_map *f, int i, deg_t t);

/* Map m's y from the multiplied rows (f(d z): the sum over the entries of d z) and its extra
 * term F(z): y = F(z) − f(d z) (at p = 2 no sign). 0, or -1 after lift_fail. */
static int finish_y(lift_set *set, int i, deg_t t, lift_plan *p, int m)
{
    lift_plan_map *pm = &p->maps[m];
    fieldmat *Y = &pm->Y;
    uint32_t prime = set->prime, rows = fieldmat_rows(Y), cols = fieldmat_cols(Y);
    int extra = has_extra(set, m), on_cpu = cpu_extra(set, m) != NULL, rc = 0;
    lift_rows r = plan_rows(set, p);
    if (fieldmat_rows(&pm->V)) apply_combine(&pm->V, pm->job_of, &r, Y);
    for (uint32_t k = 0; k < rows && !rc; k++) {
        void *y = fieldmat_row(Y, k);
        if (extra && prime != 2)                    /* −f(d z) */
            for (uint32_t c = 0; c < cols; c++) ((uint8_t *)y)[c] = (uint8_t)((prime - ((uint8_t *)y)[c]) % prime);
        if (set->maps[m].extra_plan)
            for (uint32_t g = pm->groups[k]; g < pm->groups[k + 1]; g++)
                f2vec_xor(y, f2mat_row(&p->b.D, p->b.nrows + pm->glist[g]), f2vec_words(cols));
        if (!on_cpu) continue;
        if (p->split) {
            if (pm->E.p) fieldvec_addmul(prime, y, fieldmat_row(&pm->E, k), 1, cols);
            else if (cols) rc = -1;         /* a part failed before it made E: the run has failed */
        } else
            rc = call_extra(set, m, i, t, k, y);
    }
    if (rc && !lift_failed(set)) lift_fail(set, "lifting %s at target (%d, %d) failed", set->maps[m].key, i, (int)t);
    return rc;
}

/* The nonzero y of all maps, stacked, solved at once (at p = 2 through signature blocks where
 * set->any_preimage allows, else preimage_solve; at odd p preimage_solve_p), each preimage
 * scattered back to its map's cell. 0, or -1 after lift_fail. */
static int solve(lift_set *set, int i, deg_t t, lift_plan *p, uint32_t nonzero)
{
    uint32_t prime = set->prime, cols = cell_cols(set, i, t), tgt_dim = y_dim(set, i, t);
    size_t cell = lift_cell(set, i, t), bytes = fieldvec_bytes(prime, tgt_dim);
    fieldmat all, X = { 0 };
    int rc = fieldmat_init(&all, prime, nonzero, tgt_dim) != 0 ? -1 : 0;
    for (int m = 0, k = 0; m < set->nmaps && !rc; m++)
        for (uint32_t r = 0; p->maps[m].todo && r < fieldmat_rows(&p->maps[m].Y); r++)
            if (!fieldvec_is_zero(prime, fieldmat_row(&p->maps[m].Y, r), tgt_dim))
                memcpy(fieldmat_row(&all, (uint32_t)k++), fieldmat_row(&p->maps[m].Y, r), bytes);
    uint32_t bad = 0;
    double t1 = clock_now(), c1 = cpu_now(set);
    int sr = rc ? -1 : prime != 2 || !set->any_preimage || i == 0 || set->tgt->unstable ? 1
                     : preimage_by_signature(set->tgt, set->preimage_cache, i, t, &all.f2, &X.f2), by_signature = sr == 0;
    if (sr == 1 && prime != 2) sr = preimage_solve_p(set->tgt, i, t, &all.fp, &X.fp, &bad);
    else if (sr == 1) sr = i ? preimage_solve_cached(set->tgt, set->preimage_cache, i, t, &all.f2, &X.f2, &bad)
                             : preimage_solve(set->tgt, i, t, &all.f2, &X.f2, &bad);
    if (sr == 0) X.p = prime;
    pthread_mutex_lock(&set->lock);
    set->qis += sr == 0;
    set->qis_by_signature += by_signature;
    set->qi_seconds += clock_now() - t1;
    set->cpu_solves += cpu_now(set) - c1;
    pthread_mutex_unlock(&set->lock);
    if (sr == -2) {             /* name the map and generator of the stacked row */
        int bm = 0;
        uint32_t br = 0;
        for (int m = 0, k = 0; m < set->nmaps; m++)
            for (uint32_t r = 0; p->maps[m].todo && r < fieldmat_rows(&p->maps[m].Y); r++)
                if (!fieldvec_is_zero(prime, fieldmat_row(&p->maps[m].Y, r), tgt_dim) && (uint32_t)k++ == bad)
                    bm = m, br = r;
        lift_fail(set, "internal error: lifting %s, y = f(d z) for generator %u at source (%d, %d) is not in the "
                  "image of d_%d at (%d, %d)", set->maps[bm].key, br, set->maps[bm].s0 + i,
                  (int)(t + set->maps[bm].t0), i, i, (int)t);
    } else if (sr == -3)
        lift_fail(set, "a product leaves the profile's algebra solving d_%d at (%d, %d)", i, i, (int)t);
    else if (sr < 0)
        lift_fail(set, "out of memory solving d_%d at (%d, %d)", i, i, (int)t);
    rc = sr ? -1 : 0;
    for (int m = 0, k = 0; m < set->nmaps && !rc; m++)   /* scatter back, in the same order */
        for (uint32_t r = 0; p->maps[m].todo && r < fieldmat_rows(&p->maps[m].Y); r++)
            if (!fieldvec_is_zero(prime, fieldmat_row(&p->maps[m].Y, r), tgt_dim))
                memcpy(fieldmat_row(&set->maps[m].val[cell], r), fieldmat_row(&X, (uint32_t)k++), fieldvec_bytes(prime, cols));
    fieldmat_clear(&X);
    fieldmat_clear(&all);
    return rc;
}

/* Finish: every y (at p = 2 f(d z) from the multiplied rows, plus the map's extra term), then
 * one solve of d_i for all the y of all maps (none when they are all zero: f(z) = 0 is a
 * preimage of 0), then the files. */
int lift_step_finish(lift_set *set, int i, deg_t t, lift_plan *p)
{
    int rc = lift_failed(set) || !p->maps ? -1 : 0;
    uint32_t prime = set->prime, tgt_dim = y_dim(set, i, t);
    uint32_t nonzero = 0;
    double c0 = cpu_now(set);
    lift_rows r = plan_rows(set, p);
    if (!rc && i && set->tgt->unstable && rows_narrow(set, &r, i - 1, t) != 0) {
        lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
        rc = -1;
    }
    for (int m = 0; m < set->nmaps && !rc; m++) {
        lift_plan_map *pm = &p->maps[m];
        if (!pm->todo || !fieldmat_rows(&pm->Y)) continue;
        rc = finish_y(set, i, t, p, m);
        for (uint32_t k = 0; k < fieldmat_rows(&pm->Y) && !rc; k++)
            nonzero += !fieldvec_is_zero(prime, fieldmat_row(&pm->Y, k), tgt_dim);
    }
    rb_clear(&p->b);                /* the products' rows are in the y now: not held through the solve */
    rbp_clear(&p->bp);
    fpmat_clear(&p->Dp);
    add_seconds(set, &set->cpu_products, p->cpu + cpu_now(set) - c0);
    if (!rc && nonzero) rc = solve(set, i, t, p, nonzero);
    for (int m = 0; m < set->nmaps && !rc; m++)
        if (p->maps[m].todo) rc = publish_cell(set, &set->maps[m], i, t);
    lift_plan_clear(set, p);
    return rc ? -1 : 0;
}

/* After a step computed map f's cell (i, t): its file written (a non-zero cell, a set with an
 * outdir), the cell marked done and counted. 0, or -1 after lift_fail. */
static int publish_cell(lift_set *set, lift_map *f, int i, deg_t t)
{
    size_t cell = lift_cell(set, i, t);
    int nonzero = fieldmat_rows(&f->val[cell]) && fieldmat_cols(&f->val[cell]);
    double c2 = cpu_now(set);
    int rc = nonzero && set->outdir[0] ? write_cell(set, f, i, t) : 0;
    add_seconds(set, &set->cpu_files, cpu_now(set) - c2);
    if (rc) return -1;
    f->have[cell] = 1;
    pthread_mutex_lock(&set->lock);
    set->computed += nonzero;
    pthread_mutex_unlock(&set->lock);
    return 0;
}

/* ---- the steps as chains ------------------------------------------------------------------ */

int lift_step_pending(const lift_set *set, int i, deg_t t)
{
    if (i < 0 || t < i || t - i > set->tgt->max_n) return 0;
    for (int m = 0; m < set->nmaps; m++) {
        const lift_map *f = &set->maps[m];
        if (lift_map_in_region(set, m, i, t) && res_ngens(set->src, f->s0 + i, t + f->t0) && cell_cols(set, i, t) &&
            f->have[lift_cell(set, i, t)] != 2)
            return 1;
    }
    return 0;
}

int lift_step_to_prepare(const lift_set *set, int i, deg_t t)
{
    return i >= 1 && set->prime == 2 && !set->any_preimage && !set->tgt->unstable &&
           preimage_cache_keeps_qis(set->preimage_cache) && lift_step_pending(set, i, t);
}

void lift_step_prepare(lift_set *set, int i, deg_t t)
{
    if (!lift_failed(set)) preimage_cache_prepare(set->preimage_cache, set->tgt, i, t);
}

uint64_t lift_step_footprint(const lift_set *set, int i, deg_t t)
{
    const resolution *tgt = set->tgt;
    uint64_t dim = freemod_dim(&tgt->F[i], t, t + 1), below = i ? freemod_dim(&tgt->F[i - 1], t, t) : 0;
    uint64_t words = (below + 63) / 64, rows = 0;
    if (set->prime != 2) {          /* odd p: the y and the solve by [D | 0 | I], which outweigh the
                                     * rows of f(d z) (a few thousand pairs a step at stem 80) */
        for (int m = 0; m < set->nmaps; m++)
            if (lift_map_in_region(set, m, i, t)) rows += res_ngens(set->src, set->maps[m].s0 + i, t + set->maps[m].t0);
        return preimage_solve_p_bytes(tgt, i, t, rows);
    }
    for (int m = 0; m < set->nmaps; m++) {
        const lift_map *f = &set->maps[m];
        if (!lift_map_in_region(set, m, i, t)) continue;
        int s = f->s0 + i;
        deg_t T = t + f->t0;
        uint64_t z = res_ngens(set->src, s, T);
        rows += z + (i ? freemod_dim(&set->src->F[s - 1], T, T) : 0);   /* y, and the rows of f(d z) */
        if (f->extra_plan) rows += 2 * z;       /* and of the extras (shared rows: at most z more) */
    }
    /* the solve: [D^T | Y^T], dim F_{i-1} rows of dim F_i + y columns */
    return 4096 + 8 * (rows * words + below * ((dim + rows + 63) / 64));
}


int lift_flush(lift_set *set)
{
    return lift_failed(set) ? -1 : 0;
}

int lift_product_bit(const lift_set *set, int m, int i, deg_t t, uint32_t j, uint32_t k)
{
    return (int)lift_product_coef(set, m, i, t, j, k);
}

uint32_t lift_product_coef(const lift_set *set, int m, int i, deg_t t, uint32_t j, uint32_t k)
{
    const lift_map *f = &set->maps[m];
    const fieldmat *v = &f->val[lift_cell(set, i, t)];
    if (f->have[lift_cell(set, i, t)] != 1 || k >= fieldmat_rows(v) || j >= res_ngens(set->tgt, i, t)) return 0;
    uint64_t col = freemod_offset(&set->tgt->F[i], t, t, j);
    return col < fieldmat_cols(v) ? fieldmat_get(v, k, (uint32_t)col) : 0;
}
