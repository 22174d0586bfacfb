/* bruner.c — Bruner's Diff.s files (see bruner.h). */
#include "stages/out/bruner.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stages/resolve/report.h"

/* The degrees row s has complete: 0 .. its last stem + s. */
static deg_t row_top(const resolution *res, int s) { return (deg_t)report_row_last_stem(res, s) + s; }

int bruner_write_diff(FILE *f, const resolution *res, int s)
{
    deg_t top = row_top(res, s);
    uint64_t ngens = 0;
    for (deg_t t = 0; t <= top; t++) ngens += res_is_done(res, s, t) ? res_ngens(res, s, t) : 0;
    fprintf(f, "s=%d  n=%llu\n\n", s, (unsigned long long)ngens);
    uint64_t g = 0;
    for (deg_t t = 0; t <= top; t++) {
        if (!res_is_done(res, s, t)) continue;
        for (uint32_t i = 0; i < res_ngens(res, s, t); i++, g++) {
            fprintf(f, "%llu : %d\n\n", (unsigned long long)g, (int)t);
            if (s == 0) {
                fprintf(f, "1\n0 0 1 i(0).\n\n\n\n");
                continue;
            }
            /* one line per generator h of row s - 1 below t whose coefficient is not zero */
            const fm_gen *z = &res->F[s].gens[t][i];
            const freemod *G = &res->F[s - 1];
            uint32_t lines = 0, h = 0;
            for (int pass = 0; pass < 2; pass++, h = 0) {
                if (pass) fprintf(f, "%u\n", lines);
                for (deg_t u = 0; u < t; u++)
                    for (uint32_t k = 0; k < G->ngens[u]; k++, h++) {
                        uint64_t off = freemod_offset(G, t, u, k);
                        uint32_t dim = res->A.dim[t - u], any = 0;
                        for (uint32_t r = 0; r < dim; r++) {
                            if (off + r >= z->bits || !f2vec_get(z->img, off + r)) continue;
                            if (pass && !any) fprintf(f, "%u %d %u i", h, (int)(t - u), dim);
                            any = 1;
                            if (!pass) break;
                            const milnor_elt *R = &res->A.elts[t - u][r];
                            fputc('(', f);
                            for (uint32_t j = 0; j < R->len; j++) fprintf(f, j ? ",%u" : "%u", R->r[j]);
                            fputc(')', f);
                        }
                        if (!any) continue;
                        if (pass) fprintf(f, ".\n");
                        else lines++;
                    }
            }
            fprintf(f, "\n\n");
        }
    }
    return ferror(f) ? -1 : 0;
}

/* ---- reading and comparing (bruner compare) ---- */

void bruner_free(bruner_res *b)
{
    for (int s = 0; s < b->nrows; s++) {
        bruner_row *r = &b->rows[s];
        free(r->deg), free(r->first), free(r->hit_h), free(r->hit_i);
        free(r->tfirst), free(r->term_h), free(r->term_e);
    }
    free(b->rows);
    b->rows = NULL, b->nrows = 0;
}

/* Row r sized for n generators (no hits yet): 0, or -1. */
static int row_init(bruner_row *r, uint32_t n)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->deg = calloc(n + 1, sizeof *r->deg);
    r->first = calloc(n + 1, sizeof *r->first);
    return r->deg && r->first ? 0 : -1;
}
/* Toggles the entry (h, i) of generator g, the last one begun (first[g] .. nhits): a repeated
 * Sq(2^i) on h cancels, as it does in the sum. 0, or -1. */
static int row_toggle(bruner_row *r, uint32_t g, uint32_t h, uint8_t i)
{
    for (uint32_t k = r->first[g]; k < r->nhits; k++)
        if (r->hit_h[k] == h && r->hit_i[k] == i) {
            r->nhits--;
            r->hit_h[k] = r->hit_h[r->nhits], r->hit_i[k] = r->hit_i[r->nhits];
            return 0;
        }
    if (r->nhits == r->cap) {
        uint32_t cap = r->cap ? 2 * r->cap : 64;
        uint32_t *h2 = realloc(r->hit_h, cap * sizeof *h2);
        if (!h2) return -1;
        r->hit_h = h2;
        uint8_t *i2 = realloc(r->hit_i, cap);
        if (!i2) return -1;
        r->hit_i = i2, r->cap = cap;
    }
    r->hit_h[r->nhits] = h, r->hit_i[r->nhits] = i, r->nhits++;
    return 0;
}
/* i when d = 2^i, else -1. */
static int log2_exact(deg_t d)
{
    if (d <= 0 || (d & (d - 1))) return -1;
    int i = 0;
    while ((1 << i) != d) i++;
    return i;
}

/* Appends the term Sq(r[0..len)) on h to the generator begun last: 0, or -1. */
static int term_add(bruner_row *r, uint32_t h, const uint32_t *rr, int len)
{
    if (r->nterms == r->tcap) {
        uint32_t cap = r->tcap ? 2 * r->tcap : 64;
        uint32_t *h2 = realloc(r->term_h, cap * sizeof *h2);
        if (!h2) return -1;
        r->term_h = h2;
        milnor_elt *e2 = realloc(r->term_e, cap * sizeof *e2);
        if (!e2) return -1;
        r->term_e = e2, r->tcap = cap;
    }
    r->term_h[r->nterms] = h;
    milnor_elt_set(&r->term_e[r->nterms], rr, len);
    r->nterms++;
    return 0;
}

int bruner_from_resolution(const resolution *res, bruner_res *b, int with_terms)
{
    b->nrows = res->max_s + 1;
    b->rows = calloc(b->nrows, sizeof *b->rows);
    if (!b->rows) return b->nrows = 0, -1;
    for (int s = 0; s <= res->max_s; s++) {
        deg_t top = row_top(res, s);
        uint32_t n = 0;
        for (deg_t t = 0; t <= top; t++) n += res_is_done(res, s, t) ? res_ngens(res, s, t) : 0;
        bruner_row *r = &b->rows[s];
        if (row_init(r, n) || (with_terms && !(r->tfirst = calloc(n + 1, sizeof *r->tfirst)))) return -1;
        uint32_t g = 0;
        for (deg_t t = 0; t <= top; t++) {
            if (!res_is_done(res, s, t)) continue;
            for (uint32_t i = 0; i < res_ngens(res, s, t); i++, g++) {
                r->deg[g] = t, r->first[g] = r->nhits;
                if (with_terms) r->tfirst[g] = r->nterms;
                if (s == 0) continue;
                const fm_gen *z = &res->F[s].gens[t][i];
                const freemod *G = &res->F[s - 1];
                uint32_t h = 0;
                for (deg_t u = 0; u < t; u++) {
                    if (!G->ngens[u]) continue;  /* (A is built only as far as a generator needs) */
                    int e = log2_exact(t - u);
                    uint32_t idx = 0, dim = res->A.dim[t - u];
                    if (e >= 0)  /* Sq(2^e)'s index in degree 2^e */
                        while (idx < dim && !(res->A.elts[t - u][idx].len == 1)) idx++;
                    for (uint32_t k = 0; k < G->ngens[u]; k++, h++) {
                        uint64_t off = freemod_offset(G, t, u, k);
                        for (uint32_t j = 0; with_terms && j < dim; j++)
                            if (off + j < z->bits && f2vec_get(z->img, off + j)) {
                                const milnor_elt *R = &res->A.elts[t - u][j];
                                if (term_add(r, h, R->r, (int)R->len)) return -1;
                            }
                        if (e < 0 || idx == dim) continue;
                        if (off + idx < z->bits && f2vec_get(z->img, off + idx) && row_toggle(r, g, h, (uint8_t)e))
                            return -1;
                    }
                }
            }
        }
        r->first[n] = r->nhits;
        if (with_terms) r->tfirst[n] = r->nterms;
    }
    return 0;
}

/* One file's reader: lines numbered from 1, empty ones (after trimming) skipped. */
typedef struct lines {
    FILE *f;
    const char *path;
    long line;
    char *buf;
    size_t cap;
    char *err;
    size_t errlen;
} lines;
static int fail(lines *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(lines *L, const char *fmt, ...)
{
    int k = snprintf(L->err, L->errlen, "%s:%ld: ", L->path, L->line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < L->errlen) vsnprintf(L->err + k, L->errlen - k, fmt, ap);
    va_end(ap);
    return -1;
}
/* The next line that is not empty, trimmed, into L->buf: 1; 0 at the end of the file; -1. */
static int next_line(lines *L)
{
    for (;;) {
        ssize_t k = getline(&L->buf, &L->cap, L->f);
        if (k < 0) return ferror(L->f) ? fail(L, "%s", strerror(errno)) : 0;
        L->line++;
        while (k > 0 && isspace((unsigned char)L->buf[k - 1])) L->buf[--k] = 0;
        char *p = L->buf;
        while (*p == ' ') p++;
        if (*p) {
            memmove(L->buf, p, strlen(p) + 1);
            return 1;
        }
    }
}
/* Unsigned decimal at *p (digits only), at most max: 0, or -1. */
static int number(const char **p, unsigned long max, unsigned long *out)
{
    if (!isdigit((unsigned char)**p)) return -1;
    unsigned long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (unsigned long)(*(*p)++ - '0');
        if (v > max) return -1;
    }
    *out = v;
    return 0;
}
#define BRUNER_MAX_DEG 2046  /* milnor_count_dims's range */

/* Row s of Diff.s from L into b->rows[s] (rows below already read); dimA: dim A_d. */
static int read_row(lines *L, int s, bruner_res *b, const uint32_t *dimA)
{
    int r1 = next_line(L);
    if (r1 <= 0) return r1 < 0 ? -1 : fail(L, "empty file: a header expected");
    const char *p = L->buf;
    unsigned long n, v;
    int sseq = 0;
    if (!strncmp(p, "s=", 2)) {  /* "s=S  n=N" */
        p += 2, sseq = 1;
        if (number(&p, 1u << 30, &v) || (int)v != s || strncmp(p, "  n=", 4)) return fail(L, "header \"s=%d  n=N\" expected", s);
        p += 4;
        if (number(&p, 1u << 30, &n) || *p) return fail(L, "header \"s=%d  n=N\" expected", s);
    } else {  /* "N TMAX" */
        if (number(&p, 1u << 30, &n) || *p != ' ') return fail(L, "header \"N TMAX\" or \"s=%d  n=N\" expected", s);
        while (*p == ' ') p++;
        if (number(&p, BRUNER_MAX_DEG, &v) || *p) return fail(L, "header \"N TMAX\" or \"s=%d  n=N\" expected", s);
    }
    bruner_row *r = &b->rows[s];
    if (s == 0 && n != 1) return fail(L, "row 0 has one generator, the unit");
    if (row_init(r, (uint32_t)n) || !(r->tfirst = calloc(n + 1, sizeof *r->tfirst))) return fail(L, "out of memory");
    r->tmax = sseq ? -1 : (deg_t)v;
    const bruner_row *below = s ? &b->rows[s - 1] : NULL;
    for (uint32_t g = 0;; g++) {
        int k = next_line(L);
        if (k < 0) return -1;
        if (g == n) {  /* the blocks the header counts are read */
            if (!k) break;
            /* sseq's reader skips the header, and its copy of Bruner's Diff.3 counts one block
             * too few: in that layout (numbered blocks) the blocks count, not the header */
            if (!sseq) return fail(L, "more than the header's %lu generators", n);
            deg_t *d2 = realloc(r->deg, (n + 2) * sizeof *d2);
            if (d2) r->deg = d2;
            uint32_t *f2 = d2 ? realloc(r->first, (n + 2) * sizeof *f2) : NULL;
            if (f2) r->first = f2;
            uint32_t *t2 = f2 ? realloc(r->tfirst, (n + 2) * sizeof *t2) : NULL;
            if (!t2) return fail(L, "out of memory");
            r->tfirst = t2, r->n = (uint32_t)++n;
        }
        if (!k) return fail(L, "the file ends after %u of its %lu generators", g, n);
        r->first[g] = r->nhits, r->tfirst[g] = r->nterms;
        p = L->buf;
        if (sseq) {
            if (number(&p, 1u << 30, &v) || v != g || strncmp(p, " : ", 3))
                return fail(L, "generator \"%u : T\" expected", g);
            p += 3;
        }
        if (number(&p, BRUNER_MAX_DEG, &v) || *p) return fail(L, "a degree T (at most %d) expected", BRUNER_MAX_DEG);
        deg_t t = (deg_t)v;
        r->deg[g] = t;
        if ((k = next_line(L)) <= 0) return k < 0 ? -1 : fail(L, "the file ends inside generator %u", g);
        unsigned long nl;
        p = L->buf;
        if (number(&p, 1u << 30, &nl) || *p) return fail(L, "the number of lines of generator %u expected", g);
        if (s == 0 && nl != 1) return fail(L, "Diff.0's block holds one line");
        for (unsigned long j = 0; j < nl; j++) {
            if ((k = next_line(L)) <= 0) return k < 0 ? -1 : fail(L, "the file ends inside generator %u", g);
            unsigned long h, d, m;
            p = L->buf;
            if (number(&p, 1u << 30, &h) || *p++ != ' ' || number(&p, BRUNER_MAX_DEG, &d) || *p++ != ' ' ||
                number(&p, 1ul << 31, &m) || strncmp(p, " i(", 3))
                return fail(L, "\"H D M i(r1,...)...(...).\" expected");
            if (s == 0) {
                if (h || d || t || strcmp(p, " i(0).")) return fail(L, "Diff.0's line is \"0 0 1 i(0).\" in degree 0");
                continue;
            }
            if (h >= below->n) return fail(L, "H = %lu: row %d has %u generators", h, s - 1, below->n);
            if ((deg_t)d != t - below->deg[h])
                return fail(L, "D = %lu: generator %u of degree %d on h %lu of degree %d", d, g, t, h, below->deg[h]);
            if (d == 0) return fail(L, "a coefficient of degree 0: not a minimal resolution");
            if (m != dimA[d]) return fail(L, "M = %lu: dim A_%lu = %u", m, d, dimA[d]);
            p += 2;
            int e = log2_exact((deg_t)d);
            while (*p == '(') {
                p++;
                unsigned long deg = 0, first = 0, nz = 0;
                uint32_t rr[MILNOR_MAX_LEN];
                int slots = 0;
                for (int slot = 0;; slot++) {
                    if (slot >= MILNOR_MAX_LEN || number(&p, BRUNER_MAX_DEG, &v))
                        return fail(L, "a Milnor element \"(r1,...,rk)\" expected");
                    rr[slot] = (uint32_t)v, slots = slot + 1;
                    if (slot == 0) first = v;
                    else nz |= v;
                    deg += v * milnor_xi_degree[slot];
                    if (deg > BRUNER_MAX_DEG) return fail(L, "a Milnor element of degree above %lu", d);
                    if (*p == ',') { p++; continue; }
                    if (*p++ != ')') return fail(L, "a Milnor element \"(r1,...,rk)\" expected");
                    break;
                }
                if (deg != d) return fail(L, "a Milnor element of degree %lu in a coefficient of degree %lu", deg, d);
                if (term_add(r, (uint32_t)h, rr, slots)) return fail(L, "out of memory");
                if (e >= 0 && !nz && first == d && row_toggle(r, g, (uint32_t)h, (uint8_t)e))
                    return fail(L, "out of memory");
            }
            if (strcmp(p, ".")) return fail(L, "the line does not end in \").\"");
        }
    }
    r->first[n] = r->nhits, r->tfirst[n] = r->nterms;
    return 0;
}

int bruner_read(const char *dir, bruner_res *b, char *err, size_t errlen)
{
    static uint32_t dimA[BRUNER_MAX_DEG + 1];
    memset(b, 0, sizeof *b);
    if (milnor_count_dims(BRUNER_MAX_DEG, NULL, dimA)) return snprintf(err, errlen, "%s: dim A", dir), -1;
    size_t plen = strlen(dir) + 32;
    char *path = malloc(plen);
    if (!path) return snprintf(err, errlen, "out of memory"), -1;
    const char *prefix = "Diff";
    snprintf(path, plen, "%s/Diff.0", dir);
    if (access(path, F_OK)) prefix = "hDiff";
    lines L = { .err = err, .errlen = errlen, .path = path };
    int rc = 0;
    for (int s = 0; !rc; s++) {
        snprintf(path, plen, "%s/%s.%d", dir, prefix, s);
        L.f = fopen(path, "r"), L.line = 0;
        if (!L.f) {
            if (errno != ENOENT || s == 0) rc = -1, snprintf(err, errlen, "%s: %s", path, strerror(errno));
            break;
        }
        bruner_row *rows = realloc(b->rows, (s + 1) * sizeof *rows);
        if (!rows) rc = fail(&L, "out of memory");
        else {
            b->rows = rows, b->nrows = s + 1;
            memset(&rows[s], 0, sizeof rows[s]);
            rc = read_row(&L, s, b, dimA);
        }
        fclose(L.f);
    }
    free(L.buf);
    free(path);
    if (rc) bruner_free(b);
    return rc;
}

/* Rank over F2 of the matrix of Sq(2^i) entries of row s's generators of degree t on row
 * s-1's generators of degree t - 2^i (pos: a generator's place among those of its degree). */
static int hi_rank(const bruner_res *b, int s, deg_t t, int i, uint32_t **pos, uint32_t *cols_out, long *rank)
{
    const bruner_row *r = &b->rows[s], *q = &b->rows[s - 1];
    deg_t u = t - (1 << i);
    uint32_t cols = 0, rows = 0;
    for (uint32_t h = 0; h < q->n; h++) cols += q->deg[h] == u;
    for (uint32_t g = 0; g < r->n; g++) rows += r->deg[g] == t;
    *cols_out = cols, *rank = 0;
    if (!cols || !rows) return 0;
    uint32_t words = (cols + 63) / 64;
    uint64_t *m = calloc((size_t)rows * words, 8);
    if (!m) return -1;
    uint32_t k = 0;
    for (uint32_t g = 0; g < r->n; g++) {
        if (r->deg[g] != t) continue;
        for (uint32_t e = r->first[g]; e < r->first[g + 1]; e++)
            if (r->hit_i[e] == i) {
                uint32_t c = pos[s - 1][r->hit_h[e]];
                m[(size_t)k * words + c / 64] ^= 1ull << (c % 64);
            }
        k++;
    }
    long rank_ = 0;  /* Gaussian elimination, pivot by pivot */
    for (uint32_t c = 0; c < cols && rank_ < rows; c++) {
        uint32_t w = c / 64;
        uint64_t bit = 1ull << (c % 64);
        uint32_t piv = (uint32_t)rank_;
        while (piv < rows && !(m[(size_t)piv * words + w] & bit)) piv++;
        if (piv == rows) continue;
        for (uint32_t j = 0; j < words; j++) {
            uint64_t x = m[(size_t)piv * words + j];
            m[(size_t)piv * words + j] = m[(size_t)rank_ * words + j], m[(size_t)rank_ * words + j] = x;
        }
        for (uint32_t o = 0; o < rows; o++)
            if (o != (uint32_t)rank_ && (m[(size_t)o * words + w] & bit))
                for (uint32_t j = 0; j < words; j++) m[(size_t)o * words + j] ^= m[(size_t)rank_ * words + j];
        rank_++;
    }
    free(m);
    *rank = rank_;
    return 0;
}

static void free_places(uint32_t **pos, int nrows)
{
    for (int s = 0; pos && s < nrows; s++) free(pos[s]);
    free(pos);
}
/* pos[s][g]: g's place among row s's generators of its degree (its index in (s, t)); NULL
 * when out of memory. */
static uint32_t **places(const bruner_res *b, int nrows)
{
    uint32_t **pos = calloc(nrows, sizeof *pos);
    for (int s = 0; pos && s < nrows; s++) {
        const bruner_row *r = &b->rows[s];
        deg_t top = 0;
        for (uint32_t g = 0; g < r->n; g++) top = r->deg[g] > top ? r->deg[g] : top;
        uint32_t *seen = calloc((size_t)top + 1, sizeof *seen);
        if (!seen || !(pos[s] = calloc(r->n + 1, sizeof **pos))) {
            free(seen), free_places(pos, nrows);
            return NULL;
        }
        for (uint32_t g = 0; g < r->n; g++) pos[s][g] = seen[r->deg[g]]++;
        free(seen);
    }
    return pos;
}

static uint32_t count_deg(const bruner_row *r, deg_t t)
{
    uint32_t c = 0;
    for (uint32_t g = 0; g < r->n; g++) c += r->deg[g] == t;
    return c;
}

int bruner_compare(const bruner_res *a, const bruner_res *b, int nrows, const int *last_stem, const char *aname,
                   const char *bname, char *msg, size_t msglen, uint64_t *nbideg)
{
    if (nrows > a->nrows) nrows = a->nrows;
    if (nrows > b->nrows) nrows = b->nrows;
    uint32_t **pa = places(a, nrows), **pb = places(b, nrows);
    int rc = pa && pb ? 0 : -1, top = -1;
    for (int s = 0; s < nrows; s++) top = last_stem[s] > top ? last_stem[s] : top;
    *nbideg = 0;
    for (int n = 0; n <= top && !rc; n++)
        for (int s = 0; s < nrows && !rc; s++) {
            if (n > last_stem[s]) continue;
            deg_t t = n + s;
            uint32_t ca = count_deg(&a->rows[s], t), cb = count_deg(&b->rows[s], t);
            ++*nbideg;
            if (ca != cb) {
                snprintf(msg, msglen, "(n, s) = (%d, %d), t = %d: %u generators in %s, %u in %s", n, s, t, ca, aname, cb,
                         bname);
                rc = 1;
                break;
            }
            for (int i = 0; s > 0 && t - (1 << i) >= s - 1 && !rc; i++) {
                uint32_t cols, cols2;
                long ra, rb;
                if (hi_rank(a, s, t, i, pa, &cols, &ra) || hi_rank(b, s, t, i, pb, &cols2, &rb)) rc = -1;
                else if (ra != rb || cols != cols2) {
                    snprintf(msg, msglen,
                             "(n, s) = (%d, %d), t = %d: h_%d from (%d, %d) has rank %ld in %s, %ld in %s "
                             "(the coefficients of Sq(%d))",
                             n, s, t, i, n + 1 - (1 << i), s - 1, ra, aname, rb, bname, 1 << i);
                    rc = 1;
                }
            }
        }
    free_places(pa, nrows), free_places(pb, nrows);
    return rc;
}

/* ---- exactness of a file's complex (bruner_check_exact) ---- */

/* off[g]: g's first column in F_s's basis in degree t (dim A_{t - |g|} columns each, the
 * generators in file order); returns dim F_{s,t}. */
static uint64_t row_offsets(const bruner_row *r, const milnor_basis *A, deg_t t, uint64_t *off)
{
    uint64_t o = 0;
    for (uint32_t g = 0; g < r->n; g++) {
        off[g] = o;
        if (r->deg[g] <= t) o += A->dim[t - r->deg[g]];
    }
    return o;
}

typedef struct exact_ctx {
    const bruner_res *b;
    milnor_basis A;
    uint64_t *off_lo, *off_hi;   /* scratch: offsets of rows s - 1 and s */
    long *rank;                  /* rank[s * (tmax + 1) + t] of d_s in degree t; -1 unknown */
    deg_t tmax;
} exact_ctx;

/* D_s in degree t (s >= 1): a row per basis element a g of F_{s,t}, a d(g) over F_{s-1,t}'s
 * basis. *m initialised here. 0, or -1. */
static int build_d(exact_ctx *x, int s, deg_t t, f2mat *m)
{
    const bruner_row *r = &x->b->rows[s], *q = &x->b->rows[s - 1];
    uint64_t rows = row_offsets(r, &x->A, t, x->off_hi), cols = row_offsets(q, &x->A, t, x->off_lo);
    if (rows > UINT32_MAX || cols > UINT32_MAX || f2mat_init(m, (uint32_t)rows, (uint32_t)cols)) return -1;
    for (uint32_t g = 0; g < r->n; g++) {
        if (r->deg[g] > t) continue;
        deg_t a = t - r->deg[g];
        for (uint32_t j = 0; j < x->A.dim[a]; j++) {
            uint64_t *row = f2mat_row(m, (uint32_t)(x->off_hi[g] + j));
            for (uint32_t k = r->tfirst[g]; k < r->tfirst[g + 1]; k++)
                milnor_mul_into(&x->A, &x->A.elts[a][j], &r->term_e[k], row, x->off_lo[r->term_h[k]]);
        }
    }
    return 0;
}
/* rank of d_s in degree t (d_0 the augmentation): >= 0, or -1. */
static long rank_d(exact_ctx *x, int s, deg_t t)
{
    long *c = &x->rank[(size_t)s * (x->tmax + 1) + t];
    if (*c >= 0) return *c;
    if (s == 0) return *c = t == 0;
    f2mat m;
    if (build_d(x, s, t, &m)) return -1;
    int rk = f2mat_rref(&m, NULL);
    f2mat_clear(&m);
    return rk < 0 ? -1 : (*c = rk);
}

int bruner_check_exact(const bruner_res *b, int nrows, const int *last_stem, const char *bname, char *msg,
                       size_t msglen)
{
    if (nrows > b->nrows) nrows = b->nrows;
    exact_ctx x = { .b = b, .tmax = 0 };
    int top = -1;
    uint32_t most = 1;
    for (int s = 0; s < nrows; s++) {
        top = last_stem[s] > top ? last_stem[s] : top;
        if (last_stem[s] + s > x.tmax) x.tmax = last_stem[s] + s;
        most = b->rows[s].n > most ? b->rows[s].n : most;
    }
    if (x.tmax > MILNOR_MAX_DEGREE / 2) x.tmax = MILNOR_MAX_DEGREE / 2;
    x.off_lo = malloc(((size_t)most + 1) * sizeof *x.off_lo);
    x.off_hi = malloc(((size_t)most + 1) * sizeof *x.off_hi);
    x.rank = malloc((size_t)nrows * (x.tmax + 1) * sizeof *x.rank);
    int rc = x.off_lo && x.off_hi && x.rank && !milnor_basis_init(&x.A, x.tmax, NULL) ? 0 : -1;
    for (size_t k = 0; !rc && k < (size_t)nrows * (x.tmax + 1); k++) x.rank[k] = -1;
    uint64_t *v = NULL;
    f2mat m = { 0 };
    for (int n = 0; n <= top && !rc; n++)
        for (int s = 0; s < nrows && !rc; s++) {
            if (n > last_stem[s]) continue;
            deg_t t = n + s;
            if (t > x.tmax) continue;
            const bruner_row *r = &b->rows[s];
            /* d(d(g)) = 0 for row s's generators of degree t (s >= 2; below, D > 0 sees to it) */
            if (s >= 2) {
                if (build_d(&x, s - 1, t, &m)) { rc = -1; break; }
                const bruner_row *q = &b->rows[s - 1];
                row_offsets(q, &x.A, t, x.off_hi);
                free(v);
                if (!(v = calloc(m.stride ? m.stride : 1, sizeof *v))) { rc = -1; break; }
                for (uint32_t g = 0; g < r->n && !rc; g++) {
                    if (r->deg[g] != t) continue;
                    memset(v, 0, m.stride * sizeof *v);
                    for (uint32_t k = r->tfirst[g]; k < r->tfirst[g + 1]; k++) {
                        const milnor_elt *e = &r->term_e[k];
                        uint64_t row = x.off_hi[r->term_h[k]] + milnor_index(&x.A, e);
                        const uint64_t *src = f2mat_row(&m, (uint32_t)row);
                        for (uint32_t w = 0; w < m.stride; w++) v[w] ^= src[w];
                    }
                    uint64_t any = 0;
                    for (uint32_t w = 0; w < m.stride; w++) any |= v[w];
                    if (any) {
                        snprintf(msg, msglen, "(n, s) = (%d, %d), t = %d: %s's d(d(g)) is not 0 for its generator %u of row %d",
                                 n, s, t, bname, g, s);
                        rc = 1;
                    }
                }
                f2mat_clear(&m);
                if (rc) break;
            }
            /* exactness at F_s in degree t, where row s + 1 reaches t */
            if (s + 1 >= nrows || t - (s + 1) > last_stem[s + 1]) continue;
            long rs = rank_d(&x, s, t), rs1 = rank_d(&x, s + 1, t);
            if (rs < 0 || rs1 < 0) { rc = -1; break; }
            uint64_t dim = row_offsets(r, &x.A, t, x.off_hi);
            if ((uint64_t)(rs + rs1) != dim) {
                snprintf(msg, msglen,
                         "(n, s) = (%d, %d), t = %d: %s's complex is not exact at F_%d: rank d_%d = %ld, but the kernel "
                         "of d_%d has dimension %llu",
                         n, s, t, bname, s, s + 1, rs1, s, (unsigned long long)(dim - (uint64_t)rs));
                rc = 1;
            }
        }
    free(v);
    f2mat_clear(&m);
    if (x.A.dim) milnor_basis_clear(&x.A);
    free(x.off_lo), free(x.off_hi), free(x.rank);
    return rc;
}

/* ---- the change of basis (bruner compare --sseq-formats) ---- */

/* v (a vector of a's F_{s-1} in degree u, laid out as row_offsets lays it) times Sq(e), added
 * into y (a's F_{s-1} in degree u + |e|, offsets off_t); off_u: the offsets in degree u. */
static void act_on(const bruner_row *q, const milnor_basis *A, const milnor_elt *e, const uint64_t *v, deg_t u,
                   const uint64_t *off_u, const uint64_t *off_t, uint64_t *y)
{
    for (uint32_t g = 0; g < q->n && q->deg[g] <= u; g++) {
        deg_t d = u - q->deg[g];
        for (uint32_t j = 0; j < A->dim[d]; j++)
            if (f2vec_get(v, off_u[g] + j)) milnor_mul_into(A, e, &A->elts[d][j], y, off_t[g]);
    }
}

int bruner_basis_change(const bruner_res *a, const bruner_res *b, int nrows, const int *last_stem, const char *bname,
                        FILE *out, char *msg, size_t msglen)
{
    if (nrows > a->nrows) nrows = a->nrows;
    if (nrows > b->nrows) nrows = b->nrows;
    if (nrows < 1) return fprintf(out, "sseq_basis | bruner_basis\n") < 0 ? -1 : 0;
    /* the degrees lifted per row: the region's, and below each row what its differentials reach */
    deg_t *need = malloc(nrows * sizeof *need), tmax = 0;
    uint32_t most = 1;
    if (!need) return -1;
    for (int s = 0; s < nrows; s++) need[s] = last_stem[s] + s;
    for (int s = nrows - 1; s > 0; s--)
        if (need[s] - 1 > need[s - 1]) need[s - 1] = need[s] - 1;
    for (int s = 0; s < nrows; s++) {
        tmax = need[s] > tmax ? need[s] : tmax;
        most = a->rows[s].n > most ? a->rows[s].n : most;
    }
    if (tmax > MILNOR_MAX_DEGREE / 2) {
        free(need);
        snprintf(msg, msglen, "degrees up to %d: the change of basis is computed through degree %d", (int)tmax,
                 MILNOR_MAX_DEGREE / 2);
        return 1;
    }
    exact_ctx x = { .b = a, .tmax = tmax };
    uint64_t *off_u = malloc(((size_t)most + 1) * sizeof *off_u);
    x.off_lo = malloc(((size_t)most + 1) * sizeof *x.off_lo);
    x.off_hi = malloc(((size_t)most + 1) * sizeof *x.off_hi);
    uint64_t ***lift = calloc(nrows, sizeof *lift);
    int rc = off_u && x.off_lo && x.off_hi && lift && !milnor_basis_init(&x.A, tmax, NULL) ? 0 : -1;
    for (int s = 0; !rc && s < nrows; s++)
        if (!(lift[s] = calloc(b->rows[s].n + 1, sizeof **lift))) rc = -1;
    /* row 0: the unit goes to the unit */
    if (!rc && (a->rows[0].n < 1 || b->rows[0].n < 1)) {
        snprintf(msg, msglen, "row 0 is empty");
        rc = 1;
    }
    if (!rc && !(lift[0][0] = calloc(1, sizeof ***lift))) rc = -1;
    if (!rc) lift[0][0][0] = 1;
    /* row s, degree by degree: f_s(g) with d f_s(g) = f_{s-1}(d g), by a quasi-inverse of a's d_s */
    for (int s = 1; s < nrows && !rc; s++) {
        const bruner_row *r = &b->rows[s], *q = &a->rows[s - 1];
        for (deg_t t = s; t <= need[s] && !rc; t++) {
            if (!count_deg(r, t)) continue;
            f2mat D = { 0 }, aug = { 0 };
            int32_t *piv = NULL;
            f2qi qi = { 0 };
            if (build_d(&x, s, t, &D)) { rc = -1; break; }
            uint64_t rows = D.rows, cols = D.cols;
            int rank = f2mat_rref_augmented(&D, &aug, &piv);
            if (rank < 0 || f2mat_quasi_inverse_from_rref(&aug, D.cols, (uint32_t)rank, piv, &qi)) rc = -1;
            row_offsets(q, &x.A, t, x.off_lo);
            size_t words = (D.stride > f2vec_words((uint32_t)cols) ? D.stride : f2vec_words((uint32_t)cols)) + 1;
            uint64_t *y = calloc(words, 8), *z = calloc(words, 8);
            if (!y || !z) rc = -1;
            for (uint32_t g = 0; g < r->n && !rc; g++) {
                if (r->deg[g] != t) continue;
                memset(y, 0, words * 8);
                for (uint32_t k = r->tfirst[g]; k < r->tfirst[g + 1]; k++) {
                    uint32_t h = r->term_h[k];
                    const uint64_t *v = lift[s - 1][h];
                    deg_t u = b->rows[s - 1].deg[h];
                    if (!v) {
                        snprintf(msg, msglen, "(s, t) = (%d, %d): generator %u of %s's row %d is not lifted", s, t, h,
                                 bname, s - 1);
                        rc = 1;
                        break;
                    }
                    row_offsets(q, &x.A, u, off_u);
                    act_on(q, &x.A, &r->term_e[k], v, u, off_u, x.off_lo, y);
                }
                uint64_t *f = rc ? NULL : calloc(f2vec_words((uint32_t)rows) + 1, 8);
                if (!rc && !f) rc = -1;
                if (rc) break;
                f2qi_apply(&qi, y, f);
                memset(z, 0, words * 8);  /* f D = y, checked */
                for (uint64_t i = 0; i < rows; i++)
                    if (f2vec_get(f, i)) f2vec_xor(z, f2mat_row(&D, (uint32_t)i), D.stride);
                if (memcmp(y, z, words * 8)) {
                    snprintf(msg, msglen, "(n, s) = (%d, %d), t = %d: the image of %s's generator %u of row %d is not "
                             "a boundary in ours", (int)(t - s), s, (int)t, bname, g, s);
                    free(f);
                    rc = 1;
                    break;
                }
                lift[s][g] = f;
            }
            free(y), free(z), free(piv);
            f2qi_clear(&qi);
            f2mat_clear(&aug), f2mat_clear(&D);
        }
    }
    /* what sseq's bruner example prints: per bidegree by stem then s, per generator of ours, the
     * coefficient of that generator in f_s of each of b's generators there */
    int top = -1;
    for (int s = 0; s < nrows; s++) top = last_stem[s] > top ? last_stem[s] : top;
    if (!rc && fprintf(out, "sseq_basis | bruner_basis\n") < 0) rc = -1;
    for (int n = 0; n <= top && !rc; n++)
        for (int s = 0; s < nrows && !rc; s++) {
            if (n > last_stem[s]) continue;
            deg_t t = n + s;
            const bruner_row *ra = &a->rows[s], *rb = &b->rows[s];
            row_offsets(ra, &x.A, t, x.off_hi);
            uint32_t i = 0;
            for (uint32_t g = 0; g < ra->n && !rc; g++) {
                if (ra->deg[g] != t) continue;
                fprintf(out, "x_(%d,%d,%u) = [", n, s, i++);
                int first = 1;
                for (uint32_t j = 0; j < rb->n; j++) {
                    if (rb->deg[j] != t) continue;
                    fprintf(out, first ? "%d" : ", %d", lift[s][j] ? f2vec_get(lift[s][j], x.off_hi[g]) : 0);
                    first = 0;
                }
                if (fprintf(out, "]\n") < 0) rc = -1;
            }
        }
    for (int s = 0; lift && s < nrows; s++) {
        for (uint32_t g = 0; lift[s] && g < b->rows[s].n; g++) free(lift[s][g]);
        free(lift[s]);
    }
    free(lift), free(need), free(off_u);
    if (x.A.dim) milnor_basis_clear(&x.A);
    free(x.off_lo), free(x.off_hi);
    return rc;
}
