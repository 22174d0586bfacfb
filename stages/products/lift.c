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
#include "stages/rowbuild.h"
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
    if (set->prime != 2) return 0;      /* odd p solves without signature blocks (lift_p.c) */
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
    if (set->prime != 2 && extra) return -1;    /* no homotopies at odd p yet */
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

/* The jobs of f_j(V's rows) for map f (see lift_apply): each distinct basis element Sq(S)·g'
 * of source F_{s0+j} in degree T set in some row of V becomes one Milnor-multiply job of b,
 * whose terms are those of f(g') (the row Sq(S)·f(g') of target F_j in degree T - t0, ycols
 * bits); job_of[e] = that job's row of b (-1: none, f(g') = 0), for each of V's columns e. The
 * jobs are appended to b, so several calls share one b. 0, or -1 after lift_fail. */
static int apply_plan(lift_set *set, const lift_map *f, int j, deg_t T, const f2mat *V, uint32_t ycols, row_build *b,
                      int32_t *job_of)
{
    const resolution *src = set->src, *tgt = set->tgt;
    const freemod *S = &src->F[f->s0 + j], *G = &tgt->F[j];
    deg_t t = T - f->t0;
    uint32_t width = V->cols;
    int rc = -1;
    size_t vw = f2vec_words(width);
    uint64_t *any = calloc(vw + 1, sizeof *any);    /* the bits set in some row of V */
    if (!any) goto out;
    for (uint32_t k = 0; k < V->rows; k++)
        for (size_t w = 0; w < vw; w++) any[w] |= f2mat_row(V, k)[w];
    for (uint32_t e = 0; e < width; e++) job_of[e] = -1;
    /* jobs for every set bit of some row of V, terms of f(g') added on first use */
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
            const f2mat *fv = &f->val[cell].f2;
            uint32_t first = (uint32_t)b->nterms;
            /* terms of f(g'): the set bits of row g of fv, over target F_j in degree v */
            uint64_t off = 0;
            for (deg_t w = 0; w <= v && fv->rows; w++) {
                if (!G->ngens[w]) continue;
                uint32_t el = freemod_block(G, v - w, w);
                for (uint32_t mm = 0; mm < G->ngens[w]; mm++, off += el) {
                    /* unstable: the products land at the wide offsets (ycols is then wide) */
                    uint64_t col = G->ex ? freemod_dim_wide(G, t, w) + (uint64_t)mm * G->dim[t - w]
                                         : freemod_offset(G, t, w, mm);
                    for (uint32_t e = 0; e < el; e++) {
                        if (!f2vec_get(f2mat_row(fv, g), off + e)) continue;
                        if (col + tgt->A.dim[t - w] > ycols) {
                            lift_fail(set, "internal error: map %s at target (%d, %d) reaches past its image's "
                                      "columns", f->key, j, (int)t);
                            goto out;
                        }
                        uint32_t idx = G->ex ? excess_index(G->ex, v - w, e) : e;
                        if (rb_push_term(b, (milnor_term){ (uint32_t)(v - w), idx, (uint32_t)col }) != 0) goto out;
                    }
                }
            }
            uint32_t n = (uint32_t)b->nterms - first;
            if (!n) continue;
            for (uint32_t e = 0; e < blen && base + e < width; e++) {
                if (!f2vec_get(any, base + e)) continue;
                job_of[base + e] = (int32_t)b->nrows;
                uint32_t idx = S->ex ? excess_index(S->ex, T - u, e) : e;
                if (rb_push_job(b, (milnor_row_job){ (uint32_t)(T - u), idx, first, n }) != 0) goto out;
            }
        }
    }
    rc = 0;
out:
    if (rc && !lift_failed(set)) lift_fail(set, "out of memory lifting at target (%d, %d)", j, (int)t);
    free(any);
    return rc;
}

/* Y's row k ^= the rows of D (filled by the multiply) of the set bits of V's row k. */
static void apply_combine(const f2mat *V, const int32_t *job_of, const f2mat *D, f2mat *Y)
{
    size_t vw = f2vec_words(V->cols);
    for (uint32_t k = 0; k < V->rows; k++)
        for (size_t w = 0; w < vw; w++)
            for (uint64_t bits = f2mat_row(V, k)[w]; bits; bits &= bits - 1) {
                uint32_t e = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits);
                if (job_of[e] >= 0) f2vec_xor(f2mat_row(Y, k), f2mat_row(D, (uint32_t)job_of[e]), f2vec_words(Y->cols));
            }
}

/* Y's row k = f_j(V's row k): see lift.h. apply_plan's jobs, multiplied on this thread, then
 * apply_combine. */
int lift_apply(lift_set *set, const lift_map *f, int j, deg_t T, const f2mat *V, f2mat *Y)
{
    row_build b;
    memset(&b, 0, sizeof b);
    int32_t *job_of = malloc(((size_t)V->cols + 1) * sizeof *job_of);
    uint32_t wide = y_wide(set, j, T - f->t0, Y->cols);
    int rc = job_of ? apply_plan(set, f, j, T, V, wide, &b, job_of) : -1;
    if (!rc && rb_alloc(&b, wide) != 0) rc = -1;
    if (!rc) {
        rb_multiply(&b, &set->tgt->A, 0, b.nrows);
        if (freemod_narrow(&set->tgt->F[j], T - f->t0, T - f->t0, &b.D) != 0) rc = -1;
    }
    if (!rc) {
        apply_combine(V, job_of, &b.D, Y);
    } else if (!lift_failed(set))
        lift_fail(set, "out of memory lifting at target (%d, %d)", j, (int)(T - f->t0));
    rb_clear(&b);
    free(job_of);
    return rc;
}

/* The rows d z_k of the generators z_k of source F_s (s = s0 + i) in degree T = t + t0 into V
 * (initialised here), over F_{s-1} in degree T. 0, or -1 out of memory (after lift_fail). */
static int boundaries(lift_set *set, const lift_map *f, int i, deg_t t, f2mat *V)
{
    const resolution *src = set->src;
    int s = f->s0 + i;
    deg_t T = t + f->t0;
    uint32_t nz = res_ngens(src, s, T), width = (uint32_t)freemod_dim(&src->F[s - 1], T, T);
    if (f2mat_init(V, nz, width) != 0) {
        lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
        return -1;
    }
    for (uint32_t k = 0; k < nz; k++) {
        const fm_gen *z = &src->F[s].gens[T][k];
        uint32_t bits = z->bits < width ? z->bits : width;
        memcpy(f2mat_row(V, k), z->img, f2vec_words(bits) * sizeof(uint64_t));
        if (bits & 63) f2mat_row(V, k)[bits >> 6] &= ((uint64_t)1 << (bits & 63)) - 1;
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

/* Plan: for every map with a step here, load its file, or set the bottom, or put the jobs of
 * its f(d z) into p->b (the maps' jobs one after the other). */
int lift_step_plan(lift_set *set, int i, deg_t t, lift_plan *p)
{
    memset(p, 0, sizeof *p);
    if (lift_failed(set)) return -1;
    double c0 = cpu_now(set);
    uint32_t prime = set->prime, cols = cell_cols(set, i, t), tgt_dim = y_dim(set, i, t);
    size_t cell = lift_cell(set, i, t);
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
        } else if (rows && cols && prime != 2) {        /* odd p: f(d z) on this worker */
            rc = lift_products_p(set, f, i, t, &pm->Y.fp);
        } else if (rows && cols) {
            rc = boundaries(set, f, i, t, &pm->V);
            pm->job_of = rc ? NULL : malloc(((size_t)pm->V.cols + 1) * sizeof *pm->job_of);
            if (!rc && !pm->job_of) {
                lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
                rc = -1;
            }
            if (!rc) rc = apply_plan(set, f, i - 1, t + f->t0, &pm->V, y_wide(set, i - 1, t, tgt_dim), &p->b, pm->job_of);
        }
    }
    for (int m = 0; m < set->nmaps && !rc; m++) {     /* planned extras: grouped rows, after every single one */
        lift_plan_map *pm = &p->maps[m];
        if (!pm->todo || !set->maps[m].extra_plan) continue;
        pm->group0 = p->b.ngroups;
        milnor_sink sink = rb_group_sink(&p->b);
        for (uint32_t k = 0; k < pm->Y.f2.rows && !rc; k++)
            if (set->maps[m].extra_plan(set->maps[m].extra_ctx, i, t, k, &sink) != 0 || rb_group_end(&p->b) != 0) {
                if (!lift_failed(set)) lift_fail(set, "lifting at target (%d, %d) failed", i, (int)t);
                rc = -1;
            }
    }
    if (!rc && prime == 2 && rb_alloc(&p->b, i ? y_wide(set, i - 1, t, tgt_dim) : tgt_dim) != 0) {
        lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
        rc = -1;
    }
    for (int m = 0; m < set->nmaps && !rc; m++)
        if (p->maps[m].todo && set->maps[m].extra && !set->maps[m].extra_plan) p->extra_rows += fieldmat_rows(&p->maps[m].Y);
    if (!rc) {
        uint64_t pairs = rb_pairs(&p->b);
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
    (void)set;
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
        if (!pm->todo || !set->maps[m].extra || set->maps[m].extra_plan) continue;
        uint32_t rows = pm->Y.f2.rows;
        if (at + rows > r0) {
            if (!pm->E.data && rows && pm->Y.f2.cols) {   /* the first part of this map allocates it */
                pthread_mutex_lock(&set->lock);
                if (!pm->E.data && f2mat_init(&pm->E, rows, pm->Y.f2.cols) != 0) rc = -1;
                pthread_mutex_unlock(&set->lock);
            }
            for (uint32_t r = r0 > at ? r0 - at : 0; !rc && pm->E.data && r < rows && at + r < r1; r++)
                rc = set->maps[m].extra(set->maps[m].extra_ctx, i, t, r, f2mat_row(&pm->E, r));
        }
        at += rows;
    }
    if (rc) lift_fail(set, "lifting at target (%d, %d) failed", i, (int)t);
    return rc ? -1 : 0;
}

void lift_plan_multiply(lift_set *set, lift_plan *p)
{
    double c0 = cpu_now(set);
    rb_multiply_all(&p->b, &set->tgt->A);
    p->cpu += cpu_now(set) - c0;
    uint64_t pairs = rb_pairs(&p->b);
    pthread_mutex_lock(&set->lock);
    set->pairs_inline += pairs;
    pthread_mutex_unlock(&set->lock);
}

void lift_plan_clear(lift_set *set, lift_plan *p)
{
    for (int m = 0; p->maps && m < set->nmaps; m++) {
        f2mat_clear(&p->maps[m].V);
        fieldmat_clear(&p->maps[m].Y);
        f2mat_clear(&p->maps[m].E);
        free(p->maps[m].job_of);
    }
    free(p->maps);
    rb_clear(&p->b);
    memset(p, 0, sizeof *p);
}

static int publish_cell(lift_set *set, lift_map *f, int i, deg_t t);

/* p = 2: map m's y from the multiplied rows (f(d z): the XOR over the bits of d z) and its
 * extra term. 0, or -1 after lift_fail. */
static int finish_y(lift_set *set, int i, deg_t t, lift_plan *p, int m)
{
    lift_plan_map *pm = &p->maps[m];
    f2mat *Y = &pm->Y.f2;
    size_t words = f2vec_words(Y->cols);
    int rc = 0;
    apply_combine(&pm->V, pm->job_of, &p->b.D, Y);
    for (uint32_t k = 0; k < Y->rows && !rc; k++) {
        if (set->maps[m].extra_plan)
            f2vec_xor(f2mat_row(Y, k), f2mat_row(&p->b.D, p->b.nrows + pm->group0 + k), words);
        else if (set->maps[m].extra && p->split) {
            if (pm->E.data) f2vec_xor(f2mat_row(Y, k), f2mat_row(&pm->E, k), words);
            else if (Y->cols) rc = -1;      /* a part failed before it made E: the run has failed */
        } else if (set->maps[m].extra)
            rc = set->maps[m].extra(set->maps[m].extra_ctx, i, t, k, f2mat_row(Y, k));
    }
    if (rc) lift_fail(set, "lifting at target (%d, %d) failed", i, (int)t);
    return rc;
}

/* p = 2: the nonzero y of all maps, stacked, solved at once (through signature blocks where
 * set->any_preimage allows, else preimage_solve), each preimage scattered back to its map's
 * cell. 0, or -1 after lift_fail. */
static int solve_2(lift_set *set, int i, deg_t t, lift_plan *p, uint32_t nonzero)
{
    uint32_t cols = cell_cols(set, i, t), tgt_dim = y_dim(set, i, t);
    size_t cell = lift_cell(set, i, t), words = f2vec_words(tgt_dim);
    f2mat all, X;
    int rc = f2mat_init(&all, nonzero, tgt_dim) != 0 ? -1 : 0;
    for (int m = 0, k = 0; m < set->nmaps && !rc; m++)
        for (uint32_t r = 0; p->maps[m].todo && r < p->maps[m].Y.f2.rows; r++)
            if (!f2vec_is_zero(f2mat_row(&p->maps[m].Y.f2, r), words))
                memcpy(f2mat_row(&all, (uint32_t)k++), f2mat_row(&p->maps[m].Y.f2, r), words * 8);
    uint32_t bad = 0;
    double t1 = clock_now(), c1 = cpu_now(set);
    int sr = rc ? -1 : !set->any_preimage || i == 0 || set->tgt->unstable ? 1 : preimage_by_signature(set->tgt, set->preimage_cache, i, t, &all, &X), by_signature = sr == 0;
    if (sr == 1) sr = i ? preimage_solve_cached(set->tgt, set->preimage_cache, i, t, &all, &X, &bad)
                        : preimage_solve(set->tgt, i, t, &all, &X, &bad);
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
            for (uint32_t r = 0; p->maps[m].todo && r < p->maps[m].Y.f2.rows; r++)
                if (!f2vec_is_zero(f2mat_row(&p->maps[m].Y.f2, r), words) && (uint32_t)k++ == bad)
                    bm = m, br = r;
        lift_fail(set, "internal error: lifting %s, y = f(d z) for generator %u at source (%d, %d) is not in the "
                  "image of d_%d at (%d, %d)", set->maps[bm].key, br, set->maps[bm].s0 + i,
                  (int)(t + set->maps[bm].t0), i, i, (int)t);
    }
    else if (sr < 0)
        lift_fail(set, "out of memory solving d_%d at (%d, %d)", i, i, (int)t);
    rc = sr ? -1 : 0;
    for (int m = 0, k = 0; m < set->nmaps && !rc; m++)   /* scatter back, in the same order */
        for (uint32_t r = 0; p->maps[m].todo && r < p->maps[m].Y.f2.rows; r++)
            if (!f2vec_is_zero(f2mat_row(&p->maps[m].Y.f2, r), words))
                memcpy(f2mat_row(&set->maps[m].val[cell].f2, r), f2mat_row(&X, (uint32_t)k++), f2vec_words(cols) * 8);
    if (!sr) f2mat_clear(&X);
    f2mat_clear(&all);
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
    if (!rc && prime == 2 && i && set->tgt->unstable && freemod_narrow(&set->tgt->F[i - 1], t, t, &p->b.D) != 0) {
        lift_fail(set, "out of memory lifting at target (%d, %d)", i, (int)t);
        rc = -1;
    }
    for (int m = 0; m < set->nmaps && !rc; m++) {
        lift_plan_map *pm = &p->maps[m];
        if (!pm->todo || !fieldmat_rows(&pm->Y)) continue;
        if (prime == 2) rc = finish_y(set, i, t, p, m);
        for (uint32_t k = 0; k < fieldmat_rows(&pm->Y) && !rc; k++)
            nonzero += !fieldvec_is_zero(prime, fieldmat_row(&pm->Y, k), tgt_dim);
    }
    rb_clear(&p->b);                /* the products' rows are in the y now: not held through the solve */
    add_seconds(set, &set->cpu_products, p->cpu + cpu_now(set) - c0);
    if (!rc && nonzero && prime == 2) rc = solve_2(set, i, t, p, nonzero);
    else if (!rc && nonzero) {
        double t1 = clock_now(), c1 = cpu_now(set);
        rc = lift_solve_p(set, i, t, p);
        pthread_mutex_lock(&set->lock);
        set->qis += rc == 0;
        set->qi_seconds += clock_now() - t1;
        set->cpu_solves += cpu_now(set) - c1;
        pthread_mutex_unlock(&set->lock);
    }
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

uint64_t lift_step_footprint(const lift_set *set, int i, deg_t t)
{
    const resolution *tgt = set->tgt;
    uint64_t dim = freemod_dim(&tgt->F[i], t, t + 1), below = i ? freemod_dim(&tgt->F[i - 1], t, t) : 0;
    uint64_t words = (below + 63) / 64, rows = 0;
    if (set->prime != 2) {          /* odd p: the y and the solve by [D | 0 | I] */
        for (int m = 0; m < set->nmaps; m++)
            if (lift_map_in_region(set, m, i, t)) rows += res_ngens(set->src, set->maps[m].s0 + i, t + set->maps[m].t0);
        return lift_footprint_p(tgt, i, t, rows);
    }
    for (int m = 0; m < set->nmaps; m++) {
        const lift_map *f = &set->maps[m];
        if (!lift_map_in_region(set, m, i, t)) continue;
        int s = f->s0 + i;
        deg_t T = t + f->t0;
        uint64_t z = res_ngens(set->src, s, T);
        rows += z + (i ? freemod_dim(&set->src->F[s - 1], T, T) : 0);   /* y, and the rows of f(d z) */
        if (f->extra_plan) rows += z;                                       /* and of the extras */
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
