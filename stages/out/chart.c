/* chart.c — the chart's JSON document and chart.html (see chart.h). */
#include "stages/out/chart.h"
#include "stages/out/manifest.h"
#include "stages/resolve/report.h"
#include "stages/store/stagefile.h"
#include "stages/version.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DATA_MARK "@EXTFLOW_DATA@"

/* Length of the well-formed UTF-8 sequence at p (2 to 4 bytes), 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
    int n = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p <= 0xdf ? 2 : 0;
    if (*p > 0xf4) n = 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    unsigned cp = n == 4 ? (p[0] & 7u) << 18 | (p[1] & 63u) << 12 | (p[2] & 63u) << 6 | (p[3] & 63u)
                : n == 3 ? (p[0] & 15u) << 12 | (p[1] & 63u) << 6 | (p[2] & 63u) : 0x80;
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* A JSON string; <, > and & as \u escapes so that the document can sit inside <script>;
 * a byte that is not part of well-formed UTF-8 becomes U+FFFD. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int n = *p >= 0x80 ? utf8_len(p) : 1;
        if (n > 1) {
            fwrite(p, 1, (size_t)n, out);
            p += n - 1;
        } else if (n == 0) fputs("\\ufffd", out);
        else if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* One row of products.csv (name,name_n,name_s,n,s,i,k; at odd p also c), one coefficient of
 * d2.csv (n,s,i,k, or a 1 of the value of n,s,i,target_n,target_s,value: name empty, name_n = -1,
 * name_s = 2), one row of sq0.csv (n,s,i,k, the target x_(2n+s,s,k): name empty,
 * name_n = n + s, name_s = 0), or one Sq^1 row of steenrod.csv (name,name_n,name_s,1,n',s',j:
 * the class x_(name_n,name_s,0), alone in its bidegree, and the target x_(n',s',j) with
 * (n', s') = (2 name_n + name_s - 1, name_s + 1): name the class's, n = name_n, s = name_s,
 * i = 0, k = j, then name_n = n + s - 1, name_s = 1). */
typedef struct product_row {
    char name[64];
    int name_n, name_s, n, s;
    long i, k;
} product_row;

static int has_class(const resolution *res, int n, int s, long i)
{
    n -= res->shift;    /* the files name the module's stems */
    return s >= 0 && s <= res->max_s && n >= 0 && n <= report_row_last_stem(res, s) && i >= 0 &&
           i < (long)res_ngens(res, s, n + s);
}

enum { ROWS_PRODUCTS = 0, ROWS_D2 = 1, ROWS_SQ0 = 2, ROWS_SQ1 = 3 };
/* Reads DIR/file's rows of that kind (the header line skipped); rows that do not parse or name
 * a class outside the table are counted in *ignored (of steenrod.csv, also the Sq^1 rows of a class not alone
 * in its bidegree; its other squares are skipped). Returns the row count, 0 with *rows NULL
 * when the file is absent (*present = 0), -1 on a read or memory error. */
static long read_rows(const resolution *res, const char *file, int kind, product_row **rows, long *ignored,
                      int *present)
{
    int d2 = kind == ROWS_D2;
    char path[4200], line[512];
    snprintf(path, sizeof path, "%s/%s", res->outdir, file);
    *rows = NULL;
    *ignored = 0;
    FILE *f = fopen(path, "r");
    *present = f != NULL;
    if (!f) return errno == ENOENT ? 0 : -1;
    long n = 0, cap = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        if (lineno++ == 0 || line[0] == '\n' || line[0] == '#') continue;   /* the header */
        product_row r = { .name_n = -1, .name_s = 2 };
        int used = 0, ok, tn, ts;
        char value[400] = "";
        long ones = 1;              /* rows this line stands for */
        if (d2 && sscanf(line, "%d,%d,%ld,%d,%d,%399[01] %n", &r.n, &r.s, &r.i, &tn, &ts, value, &used) == 6) {
            /* extflow d2's form: n,s,i,target_n,target_s,value (schema/d2-csv.md) */
            ones = 0;
            for (const char *v = value; *v; v++) ones += *v == '1';
            ok = tn == r.n - 1 && ts == r.s + 2 && (!ones || (long)strlen(value) == (long)res_ngens(res, ts, tn - res->shift + ts));
        } else if (d2 && sscanf(line, "%d,%d,%ld,%d,%d,%n", &r.n, &r.s, &r.i, &tn, &ts, &used) == 5 && line[used] == '\n') {
            ones = 0;               /* an empty value: the target bidegree is zero */
            ok = tn == r.n - 1 && ts == r.s + 2;
        } else if (d2)
            ok = sscanf(line, "%d,%d,%ld,%ld %n", &r.n, &r.s, &r.i, &r.k, &used) == 4;
        else if (kind == ROWS_SQ0) {
            ok = sscanf(line, "%d,%d,%ld,%ld %n", &r.n, &r.s, &r.i, &r.k, &used) == 4;
            r.name_n = r.n + r.s;
            r.name_s = 0;
        } else if (kind == ROWS_SQ1) {
            int sq = -1;
            ok = sscanf(line, "%63[^,],%d,%d,%d,%d,%d,%ld %n", r.name, &r.n, &r.s, &sq, &tn, &ts, &r.k, &used) == 7;
            if (ok && sq != 1) continue;        /* another square: not this layer's */
            r.i = 0;
            r.name_n = r.n + r.s - 1;
            r.name_s = 1;
            ok = ok && tn == r.n + r.name_n && ts == r.s + 1 && has_class(res, r.n, r.s, 0) &&
                 res_ngens(res, r.s, r.n - res->shift + r.s) == 1;
        } else {
            long c = 1;             /* odd p: a last column, the coefficient 1..p-1 (non-zero: a line) */
            int more = 0;
            ok = sscanf(line, "%63[^,],%d,%d,%d,%d,%ld,%ld %n", r.name, &r.name_n, &r.name_s, &r.n, &r.s,
                        &r.i, &r.k, &used) == 7;
            if (ok && res->prime != 2 && line[used] == ',' && sscanf(line + used, ",%ld %n", &c, &more) == 1)
                used += more;
            ok = ok && c > 0 && c < (long)res->prime;
        }
        ok = ok && (line[used] == 0 || !ones) && has_class(res, r.n, r.s, r.i) &&
             (!ones || value[0] || has_class(res, r.n + r.name_n, r.s + r.name_s, r.k));
        if (!ok) {
            ++*ignored;
            continue;
        }
        for (long k = 0, left = ones; left > 0; k++) {
            if (value[0]) {
                if (value[k] != '1') continue;
                r.k = k;
            }
            left--;
            if (n == cap) {
                product_row *p = realloc(*rows, (size_t)(cap = cap ? cap * 2 : 64) * sizeof *p);
                if (!p) break;
                *rows = p;
            }
            (*rows)[n++] = r;
        }
    }
    int bad = ferror(f) || (n == cap && !feof(f));
    fclose(f);
    if (bad) {
        free(*rows);
        *rows = NULL;
        errno = errno ? errno : ENOMEM;
        return -1;
    }
    return n;
}

typedef struct line_ctx {
    FILE *out;
    int j;
    long count;
    int shift;          /* res->shift: stems are written in the module's degrees */
} line_ctx;

static int json_h_line(void *ctx, int j, int n, int s, uint32_t i, uint32_t k)
{
    line_ctx *c = ctx;
    if (j == c->j) fprintf(c->out, "%s[%d,%d,%u,%u]", c->count++ ? "," : "", n + c->shift, s, i, k);
    return 0;
}

static void json_pairs(FILE *out, const product_row *rows, long n, const char *name)
{
    long count = 0;
    for (long r = 0; r < n; r++)
        if (!name || !strcmp(rows[r].name, name))
            fprintf(out, "%s[%d,%d,%ld,%ld]", count++ ? "," : "", rows[r].n, rows[r].s, rows[r].i, rows[r].k);
}

/* Is name h<digits> (a class the table names by itself)? */
static int is_h_name(const char *name)
{
    if (name[0] != 'h' || !name[1]) return 0;
    for (const char *p = name + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

/* The names of chart.h's chart_names, with products.csv's rows prod[0..np): fn for each named
 * class in the order s, n, i; 0, -1 out of memory (errno ENOMEM), or fn's non-zero return. */
#define NAME_HS 12      /* h0..h11: stems up to 2^12 - 1 */
#define NAME_BASES 255  /* products.csv names used as factors */
/* Indecomposables of Ext of the sphere (and a few products no h0, h1, h2 line reaches) by
 * the names the charts of the field give them, at their bidegrees (n, s): a class named here
 * where its bidegree holds that one class, as a products.csv layer names its class. */
static const struct { const char *name; int n, s; } sphere_names[] = {
    { "c0", 8, 3 }, { "c1", 19, 3 }, { "c2", 41, 3 }, { "d0", 14, 4 }, { "e0", 17, 4 }, { "f0", 18, 4 },
    { "g", 20, 4 }, { "d1", 32, 4 }, { "p0", 33, 4 }, { "e1", 38, 4 }, { "f1", 40, 4 }, { "g2", 44, 4 },
    { "P h1", 9, 5 }, { "P h2", 11, 5 }, { "P c0", 16, 7 }, { "P d0", 22, 8 }, { "P e0", 25, 8 },
    { "P^2 h1", 17, 9 }, { "P^2 h2", 19, 9 },
};

static int names_walk(const resolution *res, const product_row *prod, long np, chart_name_fn fn, void *ctx)
{
    if (res->module) return 0;      /* h_j names are the sphere's */
    int maxn = report_max_stem(res), S = res->max_s + 1;
    long *first = malloc((size_t)S * (size_t)(maxn + 1) * sizeof *first), total = 0;
    if (!first) {
        errno = ENOMEM;
        return -1;
    }
    for (int s = 0; s < S; s++)
        for (int n = 0; n <= maxn; n++) {
            first[(size_t)s * (maxn + 1) + n] = total;
            if (n <= report_row_last_stem(res, s)) total += res_ngens(res, s, n + s);
        }
    /* [NAME_HS]: named; [NAME_HS + 1]: the products.csv factor (1 + its row in prod), or 0 */
    uint8_t (*mono)[NAME_HS + 2] = calloc((size_t)total + 1, sizeof *mono);
    if (!mono) {
        free(first);
        errno = ENOMEM;
        return -1;
    }
#define IDX(n, s, i) (first[(size_t)(s) * (maxn + 1) + (n)] + (long)(i))
    for (int j = 0; j < NAME_HS && S > 1 && (1 << j) - 1 <= report_row_last_stem(res, 1); j++)
        if (res_ngens(res, 1, 1 << j) == 1) {
            long x = IDX((1 << j) - 1, 1, 0);
            mono[x][j] = 1;
            mono[x][NAME_HS] = 1;
        }
    /* h_j^2, j >= 3, alone at (2^(j+1) - 2, 2) (no h0, h1, h2 line reaches it) */
    for (int j = 3; j < NAME_HS && S > 2 && (2 << j) - 2 <= report_row_last_stem(res, 2); j++)
        if (res->prime == 2 && res_ngens(res, 2, 2 << j) == 1 && !mono[IDX((2 << j) - 2, 2, 0)][NAME_HS]) {
            long x = IDX((2 << j) - 2, 2, 0);
            mono[x][j] = 2;
            mono[x][NAME_HS] = 1;
        }
    const char *base_name[NAME_BASES + 1];
    int nbases = 0;
    for (long a = 0; a < np + (long)(sizeof sphere_names / sizeof *sphere_names) && nbases < NAME_BASES; a++) {
        const product_row *r = a < np ? &prod[a] : NULL;
        const char *name = r ? r->name : sphere_names[a - np].name;
        int bn = r ? r->name_n : sphere_names[a - np].n, bs = r ? r->name_s : sphere_names[a - np].s;
        if ((r && is_h_name(name)) || (!r && res->prime != 2) || !has_class(res, bn, bs, 0) ||
            res_ngens(res, bs, bn + bs) != 1)
            continue;
        long x = IDX(bn, bs, 0);
        if (mono[x][NAME_HS]) continue;     /* named already (an h_j, or an earlier layer) */
        base_name[nbases++] = name;
        mono[x][NAME_HS] = 1;
        mono[x][NAME_HS + 1] = (uint8_t)nbases;
    }
    int rc = 0;
    for (int s = 0; s < S && !rc; s++)
        for (int n = 0; n <= report_row_last_stem(res, s) && !rc; n++)
            for (uint32_t i = 0; i < res_ngens(res, s, n + s) && !rc; i++) {
                long x = IDX(n, s, i);
                if (!mono[x][NAME_HS]) continue;
                char name[600];
                int len = 0;
                for (int j = 0; j < NAME_HS; j++)
                    if (mono[x][j])
                        len += snprintf(name + len, sizeof name - (size_t)len, mono[x][j] > 1 ? "%sh%d^%d" : "%sh%d",
                                        len ? " " : "", j, mono[x][j]);
                if (mono[x][NAME_HS + 1])
                    snprintf(name + len, sizeof name - (size_t)len, "%s%s", len ? " " : "",
                             base_name[mono[x][NAME_HS + 1] - 1]);
                rc = fn(ctx, n + res->shift, s, i, name);
                for (int j = 0; j < 3 && s + 1 < S; j++) {
                    int n2 = n + (1 << j) - 1;
                    if (n2 > report_row_last_stem(res, s + 1)) continue;
                    uint32_t d = res_ngens(res, s + 1, n2 + s + 1), terms = 0, k0 = 0;
                    for (uint32_t k = 0; k < d && terms < 2; k++)
                        if (report_hj(res, j, s, n + s, i, k)) terms++, k0 = k;
                    long y = terms == 1 ? IDX(n2, s + 1, k0) : -1;
                    if (y < 0 || mono[y][NAME_HS] || mono[x][j] == 255) continue;
                    memcpy(mono[y], mono[x], NAME_HS + 2);
                    mono[y][j]++;
                    mono[y][NAME_HS] = 1;
                }
            }
#undef IDX
    free(mono);
    free(first);
    return rc;
}

typedef struct json_names_ctx {
    FILE *out;
    long count;
} json_names_ctx;

static int json_name(void *ctx, int n, int s, uint32_t i, const char *name)
{
    json_names_ctx *c = ctx;
    fprintf(c->out, "%s[%d,%d,%u,", c->count++ ? "," : "", n, s, i);
    json_string(c->out, name);
    fputc(']', c->out);
    return 0;
}

int chart_names(const resolution *res, chart_name_fn fn, void *ctx)
{
    product_row *prod = NULL;
    long ignored;
    int present;
    long np = read_rows(res, "products.csv", ROWS_PRODUCTS, &prod, &ignored, &present);
    if (np < 0) return -1;
    int rc = names_walk(res, prod, np, fn, ctx);
    int e = errno;
    free(prod);
    errno = e;
    return rc;
}

/* A layer of rows, or null when its file is absent (n < 0). */
static void json_layer(FILE *out, const char *key, const product_row *rows, long n)
{
    fprintf(out, ",\n\"%s\":", key);
    if (n < 0) {
        fprintf(out, "null");
        return;
    }
    fprintf(out, "[");
    json_pairs(out, rows, n, NULL);
    fprintf(out, "]");
}

/* DIR/ss/'s pages and differentials (extflow ss, schema/ss-csv.md) as the key "ss": the pages'
 * rows [r, n, s, dim] (r 0 for E_inf), and [r, n, s, i, k] for each 1 (or coefficient) of a
 * given or propagated differential: null when DIR has no ss/pages.csv. Lines that are no row
 * are skipped (the files are extflow's own, written durably). */
static void json_ss(FILE *out, const resolution *res)
{
    char path[4400], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/ss/pages.csv", res->outdir);
    FILE *f = fopen(path, "r");
    fprintf(out, ",\n\"ss\":");
    if (!f) {
        fprintf(out, "null");
        return;
    }
    fprintf(out, "{\"pages\":[");
    long count = 0;
    while (getline(&line, &cap, f) >= 0) {
        int r = 0, n, s, dim;
        if (sscanf(line, "%d,%d,%d,%d", &r, &n, &s, &dim) == 4 ||
            (r = 0, sscanf(line, "inf,%d,%d,%d", &n, &s, &dim) == 3))
            fprintf(out, "%s[%d,%d,%d,%d]", count++ % 16 ? "," : count > 1 ? ",\n" : "", r, n, s, dim);
    }
    fclose(f);
    fprintf(out, "],\n\"differentials\":[");
    snprintf(path, sizeof path, "%s/ss/differentials.csv", res->outdir);
    count = 0;
    if ((f = fopen(path, "r"))) {
        while (getline(&line, &cap, f) >= 0) {
            int fact, r, n, s, tn, ts, used = 0;
            char src[260], tgt[260], origin[16];
            if (sscanf(line, "%d,%d,%d,%d,%259[0-9],%d,%d,%n", &fact, &r, &n, &s, src, &tn, &ts, &used) != 7 || !used)
                continue;
            tgt[0] = 0;
            sscanf(line + used, "%259[0-9]", tgt);
            const char *o = strchr(line + used, ',');
            if (!o || sscanf(o + 1, "%15[a-z]", origin) != 1 || !strcmp(origin, "computed")) continue;
            for (size_t i = 0; src[i]; i++)
                for (size_t k = 0; src[i] != '0' && tgt[k]; k++)
                    if (tgt[k] != '0')
                        fprintf(out, "%s[%d,%d,%d,%zu,%zu]", count++ % 16 ? "," : count > 1 ? ",\n" : "", r, n, s, i, k);
        }
        fclose(f);
    }
    free(line);
    fprintf(out, "]}");
}

typedef struct partial_ctx { FILE *out; const resolution *res; int n; } partial_ctx;

static void json_partial_one(void *ctx, const char *table, const run_region *r)
{
    partial_ctx *c = ctx;
    char where[64];
    region_describe(where, sizeof where, r, c->res->shift);
    fprintf(c->out, "%s", c->n++ ? "," : "");
    json_string(c->out, table);
    fprintf(c->out, ":");
    json_string(c->out, where);
}

/* "partial": the derived tables of DIR whose recorded region (DIR/tables.json) is smaller than
 * the chart's, each with the region it covers. */
static void json_partial(FILE *out, const resolution *res)
{
    run_region r = region_of(res);
    partial_ctx c = { out, res, 0 };
    fprintf(out, ",\n\"partial\":{");
    manifest_partial_tables(res->outdir, &r, json_partial_one, &c);
    fprintf(out, "}");
}

/* The document up to its last key (ignored_rows); nd, nq, nq1 < 0: that file is absent. 0, or
 * -1 with errno. */
static int write_document(FILE *out, const resolution *res, const product_row *prod, long np, const product_row *d2,
                          long nd, const product_row *sq0, long nq, const product_row *sq1, long nq1)
{
    run_region r = region_of(res);
    fprintf(out, "{\"format\":\"extflow-chart\",\"format_version\":1,\"program\":\"extflow\",\"version\":");
    json_string(out, EXTFLOW_VERSION);
    fprintf(out, ",\n\"module\":");
    json_string(out, res->module_name);
    fprintf(out, ",\"prime\":%u,%s\"algorithm\":", res->prime, res->unstable ? "\"unstable\":true," : "");
    json_string(out, stage_algorithm_name(res->algorithm));
    if (r.kind == REGION_STEM)
        fprintf(out, ",\n\"range\":{\"kind\":\"stem\",\"stem\":%d,\"max_s\":%d,\"max_n\":%d", r.stem + res->shift,
                r.max_s, report_max_stem(res) + res->shift);
    else
        fprintf(out, ",\n\"range\":{\"kind\":\"t\",\"max_t\":%d,\"max_s\":%d,\"max_n\":%d", r.max_t + res->shift,
                r.max_s, report_max_stem(res) + res->shift);
    if (res->shift) fprintf(out, ",\"min_n\":%d", res->shift);
    fprintf(out, "}");
    fprintf(out, ",\n\"classes\":[");
    long count = 0;
    for (int s = 0; s <= res->max_s; s++)
        for (int n = 0; n <= report_row_last_stem(res, s); n++)
            for (uint32_t i = 0; i < res_ngens(res, s, n + s); i++)
                fprintf(out, "%s[%d,%d,%u]", count++ % 16 ? "," : count > 1 ? ",\n" : "", n + res->shift, s, i);
    fprintf(out, "],\n\"names\":[");
    json_names_ctx nc = { out, 0 };
    if (names_walk(res, prod, np, json_name, &nc) != 0) {
        errno = ENOMEM;
        return -1;
    }
    fprintf(out, "],\n\"products\":[");
    for (int j = 0; j < 3; j++) {
        line_ctx c = { out, j, 0, res->shift };
        fprintf(out, "%s{\"name\":\"h%d\",\"stem\":%d,\"s\":1,\"source\":\"extflow\",\"pairs\":[", j ? ",\n" : "", j,
                (1 << j) - 1);
        report_h_lines(res, json_h_line, &c);
        fprintf(out, "]}");
    }
    for (long a = 0; a < np; a++) {   /* products.csv: one entry per name, in first-seen order */
        long b = 0;
        while (b < a && strcmp(prod[b].name, prod[a].name)) b++;
        if (b < a) continue;
        fprintf(out, ",\n{\"name\":");
        json_string(out, prod[a].name);
        fprintf(out, ",\"stem\":%d,\"s\":%d,\"source\":\"products.csv\",\"pairs\":[", prod[a].name_n, prod[a].name_s);
        json_pairs(out, prod + a, np - a, prod[a].name);
        fprintf(out, "]}");
    }
    fprintf(out, "]");
    json_layer(out, "d2", d2, nd);
    json_layer(out, "sq0", sq0, nq);
    json_layer(out, "sq1", sq1, nq1);
    json_ss(out, res);
    json_partial(out, res);
    return 0;
}

int chart_write_json(FILE *out, const resolution *res)
{
    product_row *prod = NULL, *d2 = NULL, *sq0 = NULL, *sq1 = NULL;
    long pign = 0, dign = 0, qign = 0, q1ign = 0;
    int have_p, have_d2, have_sq0 = 0, have_sq1 = 0;
    long np = read_rows(res, "products.csv", ROWS_PRODUCTS, &prod, &pign, &have_p);
    long nd = np < 0 ? -1 : read_rows(res, "d2.csv", ROWS_D2, &d2, &dign, &have_d2);
    long nq = nd < 0 ? -1 : read_rows(res, "sq0.csv", ROWS_SQ0, &sq0, &qign, &have_sq0);
    long nq1 = nq < 0 ? -1 : read_rows(res, "steenrod.csv", ROWS_SQ1, &sq1, &q1ign, &have_sq1);
    int rc = np < 0 || nd < 0 || nq < 0 || nq1 < 0 ? -1 : 0;
    if (rc == 0) rc = write_document(out, res, prod, np, d2, have_d2 ? nd : -1, sq0, have_sq0 ? nq : -1, sq1,
                                     have_sq1 ? nq1 : -1);
    if (rc == 0) {
        long ign[4] = { have_p ? pign : 0, have_d2 ? dign : 0, have_sq0 ? qign : 0, have_sq1 ? q1ign : 0 };
        fprintf(out, ",\n\"ignored_rows\":{\"products.csv\":%ld,\"d2.csv\":%ld,\"sq0.csv\":%ld,\"steenrod.csv\":%ld}}\n",
                ign[0], ign[1], ign[2], ign[3]);
    }
    int e = errno;
    free(prod);
    free(d2);
    free(sq0);
    free(sq1);
    errno = e;
    return rc == 0 && ferror(out) ? -1 : rc;
}

int chart_write_html(FILE *out, const resolution *res)
{
    const char *mark = strstr(chart_html_template, DATA_MARK);
    if (!mark) {    /* the build embeds a page that has it; checked by tests/t-chart.sh */
        errno = EINVAL;
        return -1;
    }
    fwrite(chart_html_template, 1, (size_t)(mark - chart_html_template), out);
    if (chart_write_json(out, res) != 0) return -1;
    fputs(mark + strlen(DATA_MARK), out);
    return ferror(out) ? -1 : 0;
}

/* chart.svg: a cell per bidegree, classes side by side in it. */
typedef struct svg_ctx {
    FILE *out;
    const resolution *res;
    int cell, margin, h, only_j;
    const char *colour;
} svg_ctx;

#define X(n, k, d) (margin + cell * (n) + cell / 2 + ((d) > 1 ? (int)(k) * 6 - 3 * ((int)(d) - 1) : 0))
#define Y(s) (h - margin - cell * (s) - cell / 2)
/* A line from x_(n,s,i) to x_(n2,s2,k) in layer cls. */
static void svg_line(const svg_ctx *c, const char *cls, int n, int s, long i, int n2, int s2, long k)
{
    int cell = c->cell, margin = c->margin, h = c->h;
    fprintf(c->out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"%s\"/>\n",
            X(n, i, res_ngens(c->res, s, n + s)), Y(s), X(n2, k, res_ngens(c->res, s2, n2 + s2)), Y(s2), cls);
}

static int svg_h_line(void *ctx, int j, int n, int s, uint32_t i, uint32_t k)
{
    const svg_ctx *c = ctx;
    char cls[8];
    snprintf(cls, sizeof cls, "h%d", j);
    if (j == c->only_j) svg_line(c, cls, n, s, i, n + (1 << j) - 1, s + 1, k);
    return 0;
}

/* A layer name as an XML-safe class token: letters, digits, _ and -, others as _. */
static void css_token(char *dst, size_t size, const char *name)
{
    size_t k = 0;
    for (; name[k] && k + 1 < size; k++)
        dst[k] = (name[k] >= 'a' && name[k] <= 'z') || (name[k] >= 'A' && name[k] <= 'Z') ||
                 (name[k] >= '0' && name[k] <= '9') || name[k] == '-' ? name[k] : '_';
    dst[k] = 0;
}

/* A legend entry of chart.svg, row row at x lx: a line of class cls and its label (XML-escaped):
 * the product layers' and d2's. */
static void svg_legend(FILE *out, int lx, int row, const char *cls, const char *label)
{
    fprintf(out, "<g class=\"legend\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"%s\" "
            "stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">", lx, 14 + 12 * row, lx + 18, 14 + 12 * row, cls, lx + 22,
            17 + 12 * row);
    for (const char *p = label; *p; p++) fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : (char[2]){ *p, 0 }, out);
    fprintf(out, "</text></g>\n");
}

int chart_write_svg(FILE *out, const resolution *res)
{
    static const char *palette[] = { "#555", "#c33", "#36c", "#2a2", "#c80", "#93c", "#0aa", "#a52" };
    product_row *prod = NULL;
    long pign;
    int have_p;
    long np = read_rows(res, "products.csv", ROWS_PRODUCTS, &prod, &pign, &have_p);
    if (np < 0) return -1;
    product_row *d2 = NULL;       /* d2 arrows, when DIR/d2.csv exists */
    long dign;
    int have_d2;
    long nd = read_rows(res, "d2.csv", ROWS_D2, &d2, &dign, &have_d2);
    if (nd < 0) {
        free(prod);
        return -1;
    }
    char list[sizeof res->chart_products + 1];
    snprintf(list, sizeof list, "%s", res->chart_products[0] ? res->chart_products : "h0,h1,h2");
    int maxn = report_max_stem(res);
    const int cell = 24, margin = 48;
    int w = margin * 2 + cell * (maxn + 1), h = margin * 2 + cell * (res->max_s + 1);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"9\">\n", w, h, w, h);
    fprintf(out, "<title>Ext_%s(%s, F%u)%s: stems %d..%d, s 0..%d</title>\n",
            res->unstable ? "U" : res_algebra_is_whole(res) ? "A" : "B (a sub-Hopf-algebra)",
            res->module ? res->module_name : "F2", res->prime, res->unstable ? " over the unstable algebra" : "",
            res->shift, maxn + res->shift, res->max_s);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    /* the layers' styles: one colour each, then the legend */
    fprintf(out, "<style>\n");
    int nl = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save), nl++) {
        char tok[80];
        css_token(tok, sizeof tok, name);
        fprintf(out, "line.%s { stroke: %s;%s }\n", tok, palette[nl % 8], nl >= 8 ? " stroke-dasharray: 3 2;" : "");
    }
    if (have_d2)   /* d2: red dashed arrows, heads drawn by the marker */
        fprintf(out, "line.d2 { stroke: #0a7a2f; stroke-dasharray: 4 2; marker-end: url(#d2head); }\n");
    fprintf(out, "</style>\n");
    if (have_d2)
        fprintf(out, "<defs><marker id=\"d2head\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"5\" "
                "markerHeight=\"5\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\" fill=\"#0a7a2f\"/></marker></defs>\n");
    for (int n = 0; n <= maxn; n += 2)
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", margin + cell * n + cell / 2,
                h - margin + 12, n + res->shift);
    for (int s = 0; s <= res->max_s; s += 2)
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", margin - 6,
                h - margin - cell * s - cell / 2 + 3, s);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">stem n = t - s</text>\n",
            margin + cell * (maxn + 1) / 2, h - 10);
    fprintf(out, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" "
            "transform=\"rotate(-90 14 %d)\">homological degree s</text>\n", h / 2, h / 2);
    svg_ctx c = { out, res, cell, margin, h, -1, NULL };
    int lx = w - margin - 90;       /* the legend, top right, above the vanishing line's empty corner */
    run_region whole = region_of(res), part;     /* tables over a smaller region: "(partial)" */
    int partial_p = manifest_table_region(res->outdir, "products.csv", &part) && !region_contains(&part, &whole);
    int partial_d2 = manifest_table_region(res->outdir, "d2.csv", &part) && !region_contains(&part, &whole);
    snprintf(list, sizeof list, "%s", res->chart_products[0] ? res->chart_products : "h0,h1,h2");
    int row = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save), row++) {
        char tok[80], label[96];
        css_token(tok, sizeof tok, name);
        int own = is_h_name(name) && atoi(name + 1) <= 2;
        snprintf(label, sizeof label, "%s%s", name, !own && partial_p ? " (partial)" : "");
        svg_legend(out, lx, row, tok, label);
        if (is_h_name(name) && atoi(name + 1) <= 2) {
            c.only_j = atoi(name + 1);
            report_h_lines(res, svg_h_line, &c);
        } else
            for (long r = 0; r < np; r++)
                if (!strcmp(prod[r].name, name))
                    svg_line(&c, tok, prod[r].n - res->shift, prod[r].s, prod[r].i,   /* rows: M's stems */
                             prod[r].n - res->shift + prod[r].name_n, prod[r].s + prod[r].name_s, prod[r].k);
    }
    if (have_d2) {
        svg_legend(out, lx, row, "d2", partial_d2 ? "d2 (partial)" : "d2");
        for (long r = 0; r < nd; r++)
            svg_line(&c, "d2", d2[r].n - res->shift, d2[r].s, d2[r].i, d2[r].n - res->shift - 1, d2[r].s + 2, d2[r].k);
    }
    for (int s = 0; s <= res->max_s; s++)
        for (int n = 0; n <= report_row_last_stem(res, s); n++) {
            uint32_t d = res_ngens(res, s, n + s);
            for (uint32_t i = 0; i < d; i++)
                fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\"><title>x_(%d,%d,%u)</title></circle>\n",
                        X(n, i, d), Y(s), n + res->shift, s, i);
        }
    fprintf(out, "</svg>\n");
    free(prod);
    free(d2);
    return ferror(out) ? -1 : 0;
}
#undef X
#undef Y
