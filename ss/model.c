/* model.c — pages, consistency and Leibniz propagation (ss/model.h). */
#include "ss/model.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/fpmat.h"

/* ---- a bump allocator for one ss_compute: every page's spaces, freed together ---- */

typedef struct arena_block {
    struct arena_block *next;
    size_t size, used;
    unsigned char data[];
} arena_block;

static void *arena_alloc(ss_model *m, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    for (arena_block *b = m->arena; b; b = b->next)
        if (b->size - b->used >= bytes) {
            void *p = b->data + b->used;
            b->used += bytes;
            memset(p, 0, bytes);
            return p;
        }
    size_t size = bytes > (1u << 22) ? bytes : (1u << 22);
    arena_block *b = malloc(sizeof *b + size);
    if (!b) return NULL;
    b->size = size;
    b->used = bytes;
    b->next = m->arena;
    m->arena = b;
    memset(b->data, 0, bytes);
    return b->data;
}
static void arena_reset(ss_model *m)
{
    for (arena_block *b = m->arena; b; b = b->next) b->used = 0;
}
static void arena_free(ss_model *m)
{
    for (arena_block *b = m->arena, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    m->arena = NULL;
}

/* ---- vectors and subspaces over F_p ---- */

static int vec_zero(const uint8_t *v, int k)
{
    for (int i = 0; i < k; i++)
        if (v[i]) return 0;
    return 1;
}
static int vec_first(const uint8_t *v, int k)
{
    for (int i = 0; i < k; i++)
        if (v[i]) return i;
    return -1;
}
static void vec_scale(uint8_t *v, uint32_t c, int k, uint32_t p)
{
    for (int i = 0; i < k; i++) v[i] = (uint8_t)((v[i] * c) % p);
}

static int space_init(ss_model *m, ss_space *sp, int k)
{
    sp->k = k;
    sp->n = 0;
    sp->rows = arena_alloc(m, (size_t)(k > 0 ? k : 1) * (size_t)(k > 0 ? k : 1));
    sp->piv = arena_alloc(m, sizeof(int) * (size_t)(k > 0 ? k : 1));
    return sp->rows && sp->piv ? 0 : -1;
}
/* v reduced modulo sp in place (rows were each reduced against the earlier ones). */
static void space_reduce(const ss_space *sp, uint8_t *v, uint32_t p)
{
    for (int j = 0; j < sp->n; j++) {
        uint32_t c = v[sp->piv[j]];
        if (c) fpvec_addmul(v, sp->rows + (size_t)j * sp->k, p - c, (size_t)sp->k, p);
    }
}
/* 1 when v (copied) widened sp, 0 when it lay in it. */
static int space_add(ss_space *sp, const uint8_t *v, uint32_t p)
{
    uint8_t *row = sp->rows + (size_t)sp->n * sp->k;
    if (sp->n >= sp->k) return 0;
    memcpy(row, v, (size_t)sp->k);
    space_reduce(sp, row, p);
    int f = vec_first(row, sp->k);
    if (f < 0) return 0;
    vec_scale(row, fp_inverse(row[f], p), sp->k, p);
    sp->piv[sp->n++] = f;
    return 1;
}
static int space_has(const ss_space *sp, const uint8_t *v, uint32_t p)
{
    uint8_t t[sp->k > 0 ? sp->k : 1];
    memcpy(t, v, (size_t)sp->k);
    space_reduce(sp, t, p);
    return vec_zero(t, sp->k);
}
static int space_copy(ss_model *m, ss_space *dst, const ss_space *src)
{
    if (space_init(m, dst, src->k)) return -1;
    dst->n = src->n;
    memcpy(dst->rows, src->rows, (size_t)src->n * src->k);
    memcpy(dst->piv, src->piv, sizeof(int) * (size_t)src->n);
    return 0;
}

/* ---- the known part of d_r at one bidegree ---- */

static int known_init(ss_model *m, ss_known *K, int k, int kt)
{
    memset(K, 0, sizeof *K);
    K->k = k;
    K->kt = kt;
    size_t rows = (size_t)(k > 0 ? k : 1);
    K->dom = arena_alloc(m, rows * rows);
    K->img = arena_alloc(m, rows * (size_t)(kt > 0 ? kt : 1));
    K->piv = arena_alloc(m, sizeof(int) * rows);
    K->why = arena_alloc(m, sizeof(int *) * rows);
    K->nwhy = arena_alloc(m, sizeof(int) * rows);
    return K->dom && K->img && K->piv && K->why && K->nwhy ? 0 : -1;
}
/* (x, y) reduced by K's first `rows` rows in place; the facts of the rows used appended to why. */
static void known_reduce(const ss_known *K, int rows, uint8_t *x, uint8_t *y, uint32_t p, int *why, int *nwhy,
                         int maxwhy)
{
    for (int j = 0; j < rows; j++) {
        uint32_t c = x[K->piv[j]];
        if (!c) continue;
        fpvec_addmul(x, K->dom + (size_t)j * K->k, p - c, (size_t)K->k, p);
        if (K->kt) fpvec_addmul(y, K->img + (size_t)j * K->kt, p - c, (size_t)K->kt, p);
        for (int w = 0; w < K->nwhy[j] && why; w++)
            if (*nwhy < maxwhy) why[(*nwhy)++] = K->why[j][w];
    }
}
#define SS_MAXWHY 64
/* d_r(x) = y added to K (y reduced modulo the target's boundaries by the caller): 1 when new,
 * 0 when implied and equal, -1 when implied and different (*other: a fact behind the rows
 * that imply it, -1 when only boundaries or permanence do), -2 out of memory. */
static int known_add(ss_model *m, ss_known *K, const uint8_t *x, const uint8_t *y, const ss_space *Bt, int fact,
                     int *other)
{
    uint32_t p = m->p;
    uint8_t xx[K->k > 0 ? K->k : 1], yy[K->kt > 0 ? K->kt : 1];
    int why[SS_MAXWHY], nwhy = 0;
    memcpy(xx, x, (size_t)K->k);
    if (K->kt) memcpy(yy, y, (size_t)K->kt);
    known_reduce(K, K->n, xx, yy, p, why, &nwhy, SS_MAXWHY - 1);
    if (K->kt && Bt) space_reduce(Bt, yy, p);
    int f = vec_first(xx, K->k);
    if (f < 0) {
        if (K->kt == 0 || vec_zero(yy, K->kt)) return 0;
        *other = -1;
        for (int w = 0; w < nwhy; w++)
            if (why[w] >= 0 && why[w] != fact) *other = why[w];
        return -1;
    }
    uint32_t inv = fp_inverse(xx[f], p);
    vec_scale(xx, inv, K->k, p);
    if (K->kt) vec_scale(yy, inv, K->kt, p);
    int j = K->n++;
    memcpy(K->dom + (size_t)j * K->k, xx, (size_t)K->k);
    if (K->kt) memcpy(K->img + (size_t)j * K->kt, yy, (size_t)K->kt);
    K->piv[j] = f;
    if (fact >= 0) why[nwhy++] = fact;
    K->why[j] = arena_alloc(m, sizeof(int) * (size_t)(nwhy ? nwhy : 1));
    if (!K->why[j]) return -2;
    memcpy(K->why[j], why, sizeof(int) * (size_t)nwhy);
    K->nwhy[j] = nwhy;
    return 1;
}

/* ---- the model ---- */

int ss_init(ss_model *m, uint32_t p, int nmin, int nmax, int smax)
{
    memset(m, 0, sizeof *m);
    m->p = p;
    m->nmin = nmin;
    m->nmax = nmax;
    m->smax = smax;
    m->rmax = smax + 2;
    m->line_limit = INT_MAX;
    size_t cells = (size_t)(smax + 1) * (size_t)(nmax - nmin + 1);
    m->dim = malloc(sizeof(int) * cells);
    if (!m->dim) return -1;
    for (size_t c = 0; c < cells; c++) m->dim[c] = -1;
    m->conflict[0] = m->conflict[1] = -1;
    return 0;
}

static size_t ncells(const ss_model *m) { return (size_t)(m->smax + 1) * (size_t)(m->nmax - m->nmin + 1); }

void ss_truncate(ss_model *m, int n)
{
    for (int i = n; i < m->nfacts; i++) {
        free(m->facts[i].x);
        free(m->facts[i].y);
    }
    if (n < m->nfacts) m->nfacts = n;
}

void ss_clear(ss_model *m)
{
    ss_truncate(m, 0);
    free(m->facts);
    for (int t = 0; t < m->nproducts; t++) {
        free(m->products[t].v);
        if (m->products[t].mat)
            for (size_t c = 0; c < ncells(m); c++) free(m->products[t].mat[c]);
        free(m->products[t].mat);
    }
    free(m->products);
    free(m->pages);
    free(m->idx_first);
    free(m->idx_next);
    free(m->dim);
    arena_free(m);
    memset(m, 0, sizeof *m);
}

static int check_vec(ss_model *m, const uint8_t *v, int k, const char *what, int n, int s)
{
    for (int i = 0; i < k; i++)
        if (v[i] >= m->p) {
            snprintf(m->err, sizeof m->err, "%s at (%d,%d): coefficient %d is not below p = %u", what, n, s, v[i], m->p);
            return -1;
        }
    return 0;
}

int ss_add_fact(ss_model *m, const ss_fact *f)
{
    int k = ss_dim(m, f->n, f->s);
    if (k < 0) {
        snprintf(m->err, sizeof m->err, "(%d,%d) lies outside the resolved region", f->n, f->s);
        return -1;
    }
    if (k == 0) {
        snprintf(m->err, sizeof m->err, "E2 at (%d,%d) is zero: there is no class there", f->n, f->s);
        return -1;
    }
    if (check_vec(m, f->x, k, "the class", f->n, f->s)) return -1;
    if (vec_zero(f->x, k)) {
        snprintf(m->err, sizeof m->err, "the class at (%d,%d) is the zero vector", f->n, f->s);
        return -1;
    }
    int kt = 0;
    if (f->kind == SS_DIFF) {
        if (f->r < 2) {
            snprintf(m->err, sizeof m->err, "d_%d: the page must be at least 2", f->r);
            return -1;
        }
        kt = ss_dim(m, f->n - 1, f->s + f->r);
        if (kt < 0 && f->n - 1 >= m->nmin) {
            snprintf(m->err, sizeof m->err, "d_%d from (%d,%d) lands in (%d,%d), outside the resolved region", f->r,
                     f->n, f->s, f->n - 1, f->s + f->r);
            return -1;
        }
        if (kt < 0) kt = 0;
        if (f->y && check_vec(m, f->y, kt, "the target", f->n - 1, f->s + f->r)) return -1;
    }
    if (m->nfacts == m->capfacts) {
        int cap = m->capfacts ? 2 * m->capfacts : 256;
        ss_fact *nf = realloc(m->facts, sizeof *nf * (size_t)cap);
        if (!nf) goto oom;
        m->facts = nf;
        m->capfacts = cap;
    }
    ss_fact *g = &m->facts[m->nfacts];
    *g = *f;
    g->x = malloc((size_t)k);
    g->y = f->kind == SS_DIFF ? calloc((size_t)(kt ? kt : 1), 1) : NULL;
    if (!g->x || (f->kind == SS_DIFF && !g->y)) {
        free(g->x);
        free(g->y);
        goto oom;
    }
    memcpy(g->x, f->x, (size_t)k);
    if (f->kind == SS_DIFF && f->y && kt) memcpy(g->y, f->y, (size_t)kt);
    return m->nfacts++;
oom:
    snprintf(m->err, sizeof m->err, "out of memory");
    return -1;
}

int ss_add_product(ss_model *m, const char *name, int n, int s, const uint8_t *v, int permanent, int line)
{
    int k = ss_dim(m, n, s);
    if (k <= 0) {
        snprintf(m->err, sizeof m->err, "product type %s: (%d,%d) %s", name, n, s,
                 k < 0 ? "lies outside the resolved region" : "has no class");
        return -1;
    }
    if (check_vec(m, v, k, "product type", n, s)) return -1;
    if (vec_zero(v, k)) {
        snprintf(m->err, sizeof m->err, "product type %s is the zero vector", name);
        return -1;
    }
    if (m->nproducts == m->capproducts) {
        int cap = m->capproducts ? 2 * m->capproducts : 16;
        ss_product *np = realloc(m->products, sizeof *np * (size_t)cap);
        if (!np) return -1;
        m->products = np;
        m->capproducts = cap;
    }
    ss_product *t = &m->products[m->nproducts];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n = n;
    t->s = s;
    t->permanent = permanent;
    t->diff_to = -1;
    t->line = line;
    t->v = malloc((size_t)k);
    t->mat = calloc(ncells(m), sizeof *t->mat);
    if (!t->v || !t->mat) {
        free(t->v);
        free(t->mat);
        return -1;
    }
    memcpy(t->v, v, (size_t)k);
    return m->nproducts++;
}

int ss_product_row(ss_model *m, int ti, int n, int s, int i, const uint8_t *row)
{
    ss_product *t = &m->products[ti];
    int k = ss_dim(m, n, s), kt = ss_dim(m, n + t->n, s + t->s);
    if (k <= 0 || kt <= 0 || i < 0 || i >= k) {
        snprintf(m->err, sizeof m->err, "product %s · x_(%d,%d,%d): outside the resolved region", t->name, n, s, i);
        return -1;
    }
    int c = ss_cell_index(m, n, s);
    if (!t->mat[c] && !(t->mat[c] = calloc((size_t)k * (size_t)kt, 1))) return -1;
    for (int j = 0; j < kt; j++) t->mat[c][(size_t)i * kt + j] = (uint8_t)((t->mat[c][(size_t)i * kt + j] + row[j]) % m->p);
    return 0;
}

int ss_product_close(ss_model *m, int ti)
{
    ss_product *t = &m->products[ti];
    for (int s = 0; s <= m->smax; s++)
        for (int n = m->nmin; n <= m->nmax; n++) {
            int c = ss_cell_index(m, n, s), k = m->dim[c], kt = ss_dim(m, n + t->n, s + t->s);
            if (k > 0 && kt > 0 && !t->mat[c] && !(t->mat[c] = calloc((size_t)k * (size_t)kt, 1))) return -1;
        }
    return 0;
}

/* t · x at (n, s) into out (the dimension at (n, s) + |t|): 1, or 0 when the product is unknown
 * there (outside the region). A product into a zero group is known and empty (*kt = 0). */
static int product_apply(const ss_model *m, const ss_product *t, int n, int s, const uint8_t *x, uint8_t *out, int *kt)
{
    int k = ss_dim(m, n, s), kk = ss_dim(m, n + t->n, s + t->s);
    *kt = 0;
    if (k < 0) return 0;
    if (kk < 0) return n + t->n < m->nmin;      /* below the bottom stem: zero */
    *kt = kk;
    memset(out, 0, (size_t)kk);
    if (k == 0 || kk == 0) return 1;
    const uint8_t *mat = t->mat[ss_cell_index(m, n, s)];
    if (!mat) return 0;
    for (int i = 0; i < k; i++)
        if (x[i]) fpvec_addmul(out, mat + (size_t)i * kk, x[i], (size_t)kk, m->p);
    return 1;
}

/* ---- describing facts ---- */

void ss_vec_string(const uint8_t *v, int k, char *buf, size_t size)
{
    size_t o = 0;
    for (int i = 0; i < k && o + 2 < size; i++) buf[o++] = (char)('0' + v[i]);
    buf[o] = 0;
}

static void root_line(const ss_model *m, int id, char *buf, size_t size)
{
    const ss_fact *f = &m->facts[id];
    if (f->origin == SS_GIVEN) snprintf(buf, size, "history line %d", f->line);
    else if (f->origin == SS_COMPUTED) snprintf(buf, size, "computed by extflow d2");
    else {
        char a[160] = "";
        if (f->parent >= 0) root_line(m, f->parent, a, sizeof a);
        snprintf(buf, size, "propagated by %s from %s", f->via >= 0 ? m->products[f->via].name : "?", a);
    }
}

void ss_describe(const ss_model *m, int id, char *buf, size_t size)
{
    const ss_fact *f = &m->facts[id];
    char xs[128], ys[128], why[200];
    ss_vec_string(f->x, ss_dim(m, f->n, f->s), xs, sizeof xs);
    root_line(m, id, why, sizeof why);
    if (f->kind == SS_PERM) {
        snprintf(buf, size, "x_(%d,%d)[%s] permanent (%s)", f->n, f->s, xs, why);
        return;
    }
    int kt = ss_dim(m, f->n - 1, f->s + f->r);
    ss_vec_string(f->y, kt > 0 ? kt : 0, ys, sizeof ys);
    snprintf(buf, size, "d_%d x_(%d,%d)[%s] = x_(%d,%d)[%s] (%s)", f->r, f->n, f->s, xs, f->n - 1, f->s + f->r,
             vec_zero(f->y, kt > 0 ? kt : 0) ? "0" : ys, why);
    if (vec_zero(f->y, kt > 0 ? kt : 0)) {
        char *eq = strstr(buf, "= x_(");
        if (eq) snprintf(eq, size - (size_t)(eq - buf), "= 0 (%s)", why);
    }
}

static int refuse(ss_model *m, int a, int b, const char *what)
{
    char da[400], db[400] = "";
    ss_describe(m, a, da, sizeof da);
    if (b >= 0 && b != a) ss_describe(m, b, db, sizeof db);
    m->conflict[0] = a;
    m->conflict[1] = b != a ? b : -1;
    if (b >= 0 && b != a) snprintf(m->err, sizeof m->err, "%s: %s contradicts %s", what, da, db);
    else snprintf(m->err, sizeof m->err, "%s: %s", what, da);
    return 1;
}

/* ---- the pages ---- */

enum { TARGET_IN, TARGET_ZERO, TARGET_UNKNOWN };
static int place(const ss_model *m, int n, int s)
{
    if (n < m->nmin || s < 0) return TARGET_ZERO;
    return ss_dim(m, n, s) < 0 ? TARGET_UNKNOWN : TARGET_IN;
}

typedef struct cell_blame { int killed, hit; } cell_blame;   /* a fact that shrank Z, one that grew B */

/* Page r's known differentials at every bidegree (its Z and B are set): 0, 1 (a refusal), -1. */
static int page_known(ss_model *m, int r, const cell_blame *blame)
{
    uint32_t p = m->p;
    for (int s = 0; s <= m->smax; s++)
        for (int n = m->nmin; n <= m->nmax; n++) {
            int c = ss_cell_index(m, n, s), k = m->dim[c];
            if (k < 0) continue;
            ss_cell *cell = ss_page(m, r, n, s);
            int tp = place(m, n - 1, s + r), kt = tp == TARGET_IN ? ss_dim(m, n - 1, s + r) : 0;
            ss_cell *tc = tp == TARGET_IN ? ss_page(m, r, n - 1, s + r) : NULL;
            if (known_init(m, &cell->d, k, kt)) return -1;
            uint8_t zero[kt > 0 ? kt : 1];
            memset(zero, 0, sizeof zero);
            int other;
            for (int j = 0; j < cell->B.n; j++)
                if (known_add(m, &cell->d, cell->B.rows + (size_t)j * k, zero, NULL, -1, &other) == -2) return -1;
            for (int id = m->idx_first[c]; id >= 0; id = m->idx_next[id]) {   /* permanent classes: d_r = 0 */
                const ss_fact *f = &m->facts[id];
                if (f->kind != SS_PERM) continue;
                if (!space_has(&cell->Z, f->x, p))
                    return refuse(m, id, blame[c].killed, "a permanent class supports a differential");
                int rc = known_add(m, &cell->d, f->x, zero, NULL, id, &other);
                if (rc == -2) return -1;
                if (rc < 0) return refuse(m, id, other, "a permanent class supports a differential");
            }
            for (int id = m->idx_first[c]; id >= 0; id = m->idx_next[id]) {
                const ss_fact *f = &m->facts[id];
                if (f->kind != SS_DIFF || f->r != r) continue;
                if (!space_has(&cell->Z, f->x, p))
                    return refuse(m, id, blame[c].killed, "the source does not survive to this page");
                if (tc && !space_has(&tc->Z, f->y, p))
                    return refuse(m, id, blame[ss_cell_index(m, n - 1, s + r)].killed,
                                  "the target does not survive to this page");
                int rc = known_add(m, &cell->d, f->x, f->y, tc ? &tc->B : NULL, id, &other);
                if (rc == -2) return -1;
                if (rc < 0) {
                    int hit = blame[c].hit;
                    return refuse(m, id, other >= 0 ? other : hit,
                                  other >= 0 && m->facts[other].kind == SS_PERM ? "a permanent class supports a differential"
                                  : space_has(&cell->B, f->x, p) ? "the source is a boundary on this page"
                                  : "a second value for the same class");
                }
            }
            /* the rest of Z_r: d_r unknown, assumed zero (not counted where the target is zero) */
            int before = cell->d.nknown = cell->d.n;
            for (int j = 0; j < cell->Z.n; j++)
                if (known_add(m, &cell->d, cell->Z.rows + (size_t)j * k, zero, NULL, -1, &other) == -2) return -1;
            cell->d.assumed = tp == TARGET_ZERO || (tp == TARGET_IN && kt == 0) ? 0 : cell->d.n - before;
        }
    return 0;
}

/* d_r ∘ d_r = 0 on page r: the known d_r of every known image must vanish on E_r. 0 or 1. */
static int page_dd(ss_model *m, int r)
{
    uint32_t p = m->p;
    for (int s = 0; s <= m->smax; s++)
        for (int n = m->nmin; n <= m->nmax; n++) {
            if (ss_dim(m, n, s) < 0 || place(m, n - 1, s + r) != TARGET_IN) continue;
            const ss_known *K = &ss_page(m, r, n, s)->d;
            const ss_cell *tc = ss_page(m, r, n - 1, s + r);
            const ss_known *T = &tc->d;
            if (!K->kt || !T->kt) continue;
            const ss_cell *tt = place(m, n - 2, s + 2 * r) == TARGET_IN ? ss_page(m, r, n - 2, s + 2 * r) : NULL;
            for (int j = 0; j < K->nknown; j++) {
                uint8_t y[K->kt], w[T->kt];
                memcpy(y, K->img + (size_t)j * K->kt, (size_t)K->kt);
                space_reduce(&tc->B, y, p);
                if (vec_zero(y, K->kt)) continue;
                memset(w, 0, (size_t)T->kt);
                int why[SS_MAXWHY], nwhy = 0;
                known_reduce(T, T->nknown, y, w, p, why, &nwhy, SS_MAXWHY);
                if (tt) space_reduce(&tt->B, w, p);
                if (!vec_zero(y, K->kt) || vec_zero(w, T->kt)) continue;
                int a = -1, b = -1;
                for (int q = 0; q < K->nwhy[j]; q++) if (K->why[j][q] >= 0) a = K->why[j][q];
                for (int q = 0; q < nwhy; q++) if (why[q] >= 0) b = why[q];
                if (a >= 0) return refuse(m, a, b, "d_r of the target is not zero (d_r d_r = 0)");
            }
        }
    return 0;
}

/* Page r + 1's Z and B from page r: 0 or -1. */
static int page_next(ss_model *m, int r, cell_blame *blame)
{
    uint32_t p = m->p;
    for (int s = 0; s <= m->smax; s++)       /* B_{r+1} starts as B_r, Z_{r+1} as the kernel */
        for (int n = m->nmin; n <= m->nmax; n++) {
            int c = ss_cell_index(m, n, s), k = m->dim[c];
            if (k < 0) continue;
            ss_cell *cur = ss_page(m, r, n, s), *nx = ss_page(m, r + 1, n, s);
            if (space_copy(m, &nx->B, &cur->B) || space_init(m, &nx->Z, k)) return -1;
            nx->bexact = cur->bexact;
            int src = place(m, n + 1, s - r);
            if (src == TARGET_UNKNOWN) nx->bexact = 0;
            else if (src == TARGET_IN) {
                ss_cell *sc = ss_page(m, r, n + 1, s - r);
                if (!sc->zexact || sc->d.assumed) nx->bexact = 0;
            }
        }
    for (int s = 0; s <= m->smax; s++)
        for (int n = m->nmin; n <= m->nmax; n++) {
            int c = ss_cell_index(m, n, s), k = m->dim[c];
            if (k < 0) continue;
            ss_cell *cur = ss_page(m, r, n, s), *nx = ss_page(m, r + 1, n, s);
            const ss_known *K = &cur->d;
            int tp = place(m, n - 1, s + r);
            ss_cell *tc = tp == TARGET_IN ? ss_page(m, r, n - 1, s + r) : NULL;
            ss_cell *tn = tp == TARGET_IN ? ss_page(m, r + 1, n - 1, s + r) : NULL;
            int kt = K->kt, nonzero = 0;
            /* eliminate on the images (mod B_r of the target), carrying the domain rows */
            uint8_t img[K->n > 0 ? K->n : 1][kt > 0 ? kt : 1], dom[K->n > 0 ? K->n : 1][k > 0 ? k : 1];
            int ipiv[K->n > 0 ? K->n : 1], nimg = 0;
            for (int j = 0; j < K->n; j++) {
                uint8_t *y = img[nimg], *x = dom[nimg];
                memcpy(x, K->dom + (size_t)j * k, (size_t)k);
                if (kt) memcpy(y, K->img + (size_t)j * kt, (size_t)kt);
                if (kt && tc) space_reduce(&tc->B, y, p);
                for (int q = 0; q < nimg; q++) {
                    uint32_t cf = y[ipiv[q]];
                    if (!cf) continue;
                    fpvec_addmul(y, img[q], p - cf, (size_t)kt, p);
                    fpvec_addmul(x, dom[q], p - cf, (size_t)k, p);
                }
                int f = kt ? vec_first(y, kt) : -1;
                if (f < 0) {
                    space_add(&nx->Z, x, p);           /* in the kernel */
                    continue;
                }
                uint32_t inv = fp_inverse(y[f], p);
                vec_scale(y, inv, kt, p);
                vec_scale(x, inv, k, p);
                ipiv[nimg++] = f;
                nonzero = 1;
                if (tn) space_add(&tn->B, y, p);
                for (int w = 0; w < K->nwhy[j]; w++)
                    if (K->why[j][w] >= 0) {
                        blame[c].killed = K->why[j][w];
                        blame[ss_cell_index(m, n - 1, s + r)].hit = K->why[j][w];
                    }
            }
            nx->zexact = cur->zexact && !K->assumed && (!nonzero || (tc && tc->bexact));
        }
    return 0;
}

static int compute_pages(ss_model *m)
{
    size_t cells = ncells(m);
    arena_reset(m);
    if (!m->pages && !(m->pages = calloc((size_t)(m->rmax - 1) * cells, sizeof *m->pages))) return -1;
    memset(m->pages, 0, (size_t)(m->rmax - 1) * cells * sizeof *m->pages);
    if (!m->idx_first && !(m->idx_first = malloc(sizeof(int) * cells))) return -1;
    int *nx = realloc(m->idx_next, sizeof(int) * (size_t)(m->capfacts ? m->capfacts : 1));
    if (!nx) return -1;
    m->idx_next = nx;
    for (size_t c = 0; c < cells; c++) m->idx_first[c] = -1;
    for (int id = m->nfacts - 1; id >= 0; id--) {
        int c = ss_cell_index(m, m->facts[id].n, m->facts[id].s);
        m->idx_next[id] = m->idx_first[c];
        m->idx_first[c] = id;
    }
    m->idx_n = m->nfacts;
    cell_blame *blame = malloc(sizeof *blame * cells);
    if (!blame) return -1;
    for (size_t c = 0; c < cells; c++) blame[c].killed = blame[c].hit = -1;
    int rc = 0;
    for (int s = 0; s <= m->smax && !rc; s++)      /* page 2: Z = E2, B = 0, both exact */
        for (int n = m->nmin; n <= m->nmax && !rc; n++) {
            int k = ss_dim(m, n, s);
            if (k < 0) continue;
            ss_cell *cell = ss_page(m, 2, n, s);
            if (space_init(m, &cell->Z, k) || space_init(m, &cell->B, k)) rc = -1;
            for (int i = 0; i < k && !rc; i++) {
                uint8_t e[k];
                memset(e, 0, (size_t)k);
                e[i] = 1;
                space_add(&cell->Z, e, m->p);
            }
            cell->zexact = cell->bexact = 1;
        }
    for (int r = 2; r <= m->rmax && !rc; r++) {
        rc = page_known(m, r, blame);
        if (!rc) rc = page_dd(m, r);
        if (!rc && r < m->rmax) rc = page_next(m, r, blame);
    }
    free(blame);
    return rc;
}

/* ---- Leibniz ---- */

/* The permanent facts at (n, s) (indexed, and those appended since) into sp. */
static void add_permanent_span(const ss_model *m, ss_space *sp, int n, int s)
{
    int c = ss_cell_index(m, n, s);
    for (int id = m->idx_first[c]; id >= 0; id = m->idx_next[id])
        if (m->facts[id].kind == SS_PERM) space_add(sp, m->facts[id].x, m->p);
    for (int id = m->idx_n; id < m->nfacts; id++)
        if (m->facts[id].kind == SS_PERM && m->facts[id].n == n && m->facts[id].s == s) space_add(sp, m->facts[id].x, m->p);
}

/* Is product type t usable as permanent: declared so, or its class among the permanent facts? */
static int product_permanent(const ss_model *m, const ss_product *t)
{
    if (t->permanent) return 1;
    int k = ss_dim(m, t->n, t->s);
    uint8_t span[k * k > 0 ? k * k : 1];
    int piv[k > 0 ? k : 1];
    ss_space sp = { k, 0, span, piv };
    add_permanent_span(m, &sp, t->n, t->s);
    return space_has(&sp, t->v, m->p);
}

/* A derived fact d_r(u) = w at (n, s), or u permanent (w NULL): appended when it says something
 * new on the pages just computed; 1 when appended, 0 when not, -1 on a contradiction (m->err),
 * -2 out of memory. */
static int derive(ss_model *m, int kind, int r, int n, int s, const uint8_t *u, const uint8_t *w, int parent,
                  int via)
{
    int k = ss_dim(m, n, s);
    if (k <= 0 || vec_zero(u, k)) return 0;
    ss_fact f = { kind, SS_PROPAGATED, r, n, s, (uint8_t *)u, (uint8_t *)w, 0, parent, via };
    if (kind == SS_PERM) {
        uint8_t span[k * k];
        int piv[k];
        ss_space sp = { k, 0, span, piv };
        add_permanent_span(m, &sp, n, s);
        if (space_has(&sp, u, m->p)) return 0;
        return ss_add_fact(m, &f) < 0 ? -2 : 1;
    }
    int tp = place(m, n - 1, s + r);
    if (tp == TARGET_UNKNOWN) return 0;
    int kw = ss_dim(m, n - 1, s + r);
    for (int id = m->idx_n; id < m->nfacts; id++) {   /* the same fact derived twice in this round */
        const ss_fact *g = &m->facts[id];
        if (g->kind == SS_DIFF && g->r == r && g->n == n && g->s == s && !memcmp(g->x, u, (size_t)k) &&
            (kw <= 0 || !memcmp(g->y, w, (size_t)kw)))
            return 0;
    }
    ss_cell *cell = ss_page(m, r, n, s), *tc = tp == TARGET_IN ? ss_page(m, r, n - 1, s + r) : NULL;
    if (!space_has(&cell->Z, u, m->p)) return 0;      /* dead before page r: checked when facts meet */
    const ss_known *K = &cell->d;
    int kt = K->kt;
    if (kt == 0) return 0;                            /* into a zero group: nothing to learn */
    uint8_t x[k], y[kt > 0 ? kt : 1];
    memcpy(x, u, (size_t)k);
    if (kt) memcpy(y, w, (size_t)kt);
    int why[SS_MAXWHY], nwhy = 0;
    known_reduce(K, K->nknown, x, y, m->p, why, &nwhy, SS_MAXWHY);
    if (kt && tc) space_reduce(&tc->B, y, m->p);
    if (!vec_zero(x, k)) return ss_add_fact(m, &f) < 0 ? -2 : 1;
    if (kt && !vec_zero(y, kt) && (!tc || tc->bexact)) {
        int id = ss_add_fact(m, &f);
        if (id < 0) return -2;
        int other = -1;
        for (int q = 0; q < nwhy; q++)
            if (why[q] >= 0) other = why[q];
        refuse(m, id, other, "Leibniz gives a second value");
        return -1;
    }
    return 0;
}

/* One round of the rules over every fact and product type: the number of new facts, or -1 (a
 * contradiction, m->err) or -2. */
static int leibniz_round(ss_model *m)
{
    int added = 0, nf = m->nfacts;
    uint32_t p = m->p;
    for (int ti = 0; ti < m->nproducts; ti++) {
        const ss_product *t = &m->products[ti];
        if (t->line > m->line_limit) continue;
        int tperm = product_permanent(m, t);
        const ss_product *q = t->diff_to >= 0 ? &m->products[t->diff_to] : NULL;
        if (!tperm && !q) continue;
        uint32_t sign = p > 2 && (t->n & 1) ? p - 1 : 1;
        for (int id = 0; id < nf; id++) {
            const ss_fact fc = m->facts[id], *f = &fc;    /* a copy: derive may move the array */
            int kt, kw, kq, rc = 0;
            uint8_t u[256], w[256], qx[256];
            if (ss_dim(m, f->n + t->n, f->s + t->s) > 256) continue;
            if (!product_apply(m, t, f->n, f->s, f->x, u, &kt) || kt == 0) continue;
            if (f->kind == SS_PERM) {
                if (tperm) rc = derive(m, SS_PERM, 0, f->n + t->n, f->s + t->s, u, NULL, id, ti);
                else {              /* d_r(t·x) = 0 below t's page, q·x on it, for x permanent */
                    memset(w, 0, sizeof w);
                    for (int r = 2; r < t->diff_r; r++) {
                        int d = derive(m, SS_DIFF, r, f->n + t->n, f->s + t->s, u, w, id, ti);
                        if (d < 0) return d;
                        added += d;
                    }
                    if (!product_apply(m, q, f->n, f->s, f->x, qx, &kq)) continue;
                    rc = derive(m, SS_DIFF, t->diff_r, f->n + t->n, f->s + t->s, u, qx, id, ti);
                }
            } else {
                if (!tperm && f->r > t->diff_r) continue;   /* t is dead on that page */
                if (!product_apply(m, t, f->n - 1, f->s + f->r, f->y, w, &kw)) continue;
                for (int i = 0; i < kw; i++) w[i] = (uint8_t)((w[i] * sign) % p);
                if (!tperm && f->r == t->diff_r) {   /* d_r(t·x) = q·x + t·d_r(x) */
                    if (!product_apply(m, q, f->n, f->s, f->x, qx, &kq) || kq != kw) continue;
                    fpvec_add(w, qx, (size_t)kw, p);
                }
                rc = derive(m, SS_DIFF, f->r, f->n + t->n, f->s + t->s, u, w, id, ti);
            }
            if (rc < 0) return rc;
            added += rc;
        }
    }
    return added;
}

int ss_compute(ss_model *m, int propagate)
{
    m->err[0] = 0;
    m->conflict[0] = m->conflict[1] = -1;
    for (int round = 0;; round++) {
        int rc = compute_pages(m);
        if (rc) return rc;
        if (!propagate) return 0;
        int added = leibniz_round(m);
        if (added == -1) return 1;
        if (added < 0) return -1;
        if (added == 0) return 0;
    }
}

/* ---- reading the pages ---- */

int ss_page_dim(const ss_model *m, int r, int n, int s)
{
    if (ss_dim(m, n, s) < 0 || r < 2) return -1;
    if (r > m->rmax) r = m->rmax;
    const ss_cell *c = ss_page(m, r, n, s);
    return c->Z.n - c->B.n;
}

int ss_einf(const ss_model *m, int n, int s, int *dim)
{
    *dim = ss_page_dim(m, m->rmax, n, s);
    if (*dim < 0) return 0;
    const ss_cell *c = ss_page(m, m->rmax, n, s);
    return c->zexact && c->bexact && !c->d.assumed;
}

int ss_last_page(const ss_model *m)
{
    int last = 2;
    for (int id = 0; id < m->nfacts; id++) {
        const ss_fact *f = &m->facts[id];
        if (f->kind == SS_DIFF && f->r > last && !vec_zero(f->y, ss_dim(m, f->n - 1, f->s + f->r) > 0 ? ss_dim(m, f->n - 1, f->s + f->r) : 0))
            last = f->r;
    }
    return last;
}
