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

int bruner_from_resolution(const resolution *res, bruner_res *b)
{
    b->nrows = res->max_s + 1;
    b->rows = calloc(b->nrows, sizeof *b->rows);
    if (!b->rows) return b->nrows = 0, -1;
    for (int s = 0; s <= res->max_s; s++) {
        deg_t top = row_top(res, s);
        uint32_t n = 0;
        for (deg_t t = 0; t <= top; t++) n += res_is_done(res, s, t) ? res_ngens(res, s, t) : 0;
        bruner_row *r = &b->rows[s];
        if (row_init(r, n)) return -1;
        uint32_t g = 0;
        for (deg_t t = 0; t <= top; t++) {
            if (!res_is_done(res, s, t)) continue;
            for (uint32_t i = 0; i < res_ngens(res, s, t); i++, g++) {
                r->deg[g] = t, r->first[g] = r->nhits;
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
                        if (e < 0 || idx == dim) continue;
                        uint64_t off = freemod_offset(G, t, u, k) + idx;
                        if (off < z->bits && f2vec_get(z->img, off) && row_toggle(r, g, h, (uint8_t)e)) return -1;
                    }
                }
            }
        }
        r->first[n] = r->nhits;
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
    if (row_init(r, (uint32_t)n)) return fail(L, "out of memory");
    r->tmax = sseq ? -1 : (deg_t)v;
    const bruner_row *below = s ? &b->rows[s - 1] : NULL;
    for (uint32_t g = 0; g < n; g++) {
        r->first[g] = r->nhits;
        int k = next_line(L);
        if (k <= 0) return k < 0 ? -1 : fail(L, "the file ends after %u of its %lu generators", g, n);
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
                for (int slot = 0;; slot++) {
                    if (slot >= MILNOR_MAX_LEN || number(&p, BRUNER_MAX_DEG, &v))
                        return fail(L, "a Milnor element \"(r1,...,rk)\" expected");
                    if (slot == 0) first = v;
                    else nz |= v;
                    deg += v * milnor_xi_degree[slot];
                    if (deg > BRUNER_MAX_DEG) return fail(L, "a Milnor element of degree above %lu", d);
                    if (*p == ',') { p++; continue; }
                    if (*p++ != ')') return fail(L, "a Milnor element \"(r1,...,rk)\" expected");
                    break;
                }
                if (deg != d) return fail(L, "a Milnor element of degree %lu in a coefficient of degree %lu", deg, d);
                if (e >= 0 && !nz && first == d && row_toggle(r, g, (uint32_t)h, (uint8_t)e))
                    return fail(L, "out of memory");
            }
            if (strcmp(p, ".")) return fail(L, "the line does not end in \").\"");
        }
    }
    r->first[n] = r->nhits;
    int k = next_line(L);
    return k < 0 ? -1 : k ? fail(L, "more than the header's %lu generators", n) : 0;
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
