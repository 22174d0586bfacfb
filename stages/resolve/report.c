/* report.c — Ext tables and charts (see report.h). */
#include "stages/resolve/report.h"
#include "stages/store/durable.h"
#include <stdlib.h>
#include <string.h>

/* Largest stem of row s inside the region (-1 if none). */
int report_row_last_stem(const resolution *res, int s)
{
    return res->region == REGION_STEM ? res->stem : res->rect_t - s;
}

int report_ext_csv(FILE *out, const resolution *res)
{
    fprintf(out, "s,n,dim\n");
    for (int s = 0; s <= res->max_s; s++)
        for (int n = 0; n <= report_row_last_stem(res, s); n++) {
            uint32_t d = res_ngens(res, s, n + s);
            if (d) fprintf(out, "%d,%d,%u\n", s, n + res->shift, d);
        }
    return ferror(out) ? -1 : 0;
}

/* sseq's graded_dimension_string: one symbol and a space per stem, top row first. */
/* A bidegree's mark in the text charts, by dim Ext (sseq's symbols). */
static const char *const chart_sym[] = { " ", "·", ":", "∴", "⁘", "⁙", "⠿", "⡿", "⣿", "9" };
static const char *mark(uint32_t d) { return d < 10 ? chart_sym[d] : "*"; }

/* The chart from internal stem n0 on: rows s from the top down, the empty rows above the first
 * class left out, then the empty line of sseq's println. */
static int chart_from(FILE *out, const resolution *res, int n0)
{
    int started = 0;
    for (int s = res->max_s; s >= 0; s--) {
        int last = report_row_last_stem(res, s), any = 0;
        for (int n = n0; n <= last; n++) any |= res_ngens(res, s, n + s) != 0;
        if (!any && !started) continue;
        started = 1;
        for (int n = n0; n <= last; n++) {
            fprintf(out, "%s ", mark(res_ngens(res, s, n + s)));
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}

int report_chart_txt(FILE *out, const resolution *res) { return chart_from(out, res, 0); }

int report_resolve_unstable(FILE *out, const resolution *res)
{
    /* sseq's stems start at the module's bottom degree (min_degree): S^n's chart at stem n */
    return chart_from(out, res, res->module ? (int)(res->module->min_deg - res->shift) : 0);
}

/* sseq's dot patterns for k classes at one bidegree: offsets in 1/20 of a grid unit, and the
 * radius. Numbers, not code: the layout a reader of sseq's charts knows. */
static const struct { float r; int n; float xy[12][2]; } dot_pat[] = {
    { 2.0f, 1, { { 0, 0 } } },
    { 2.0f, 2, { { -3, 0 }, { 3, 0 } } },
    { 2.0f, 3, { { -3, 2.58f }, { 3, 2.58f }, { 0, -2.58f } } },
    { 2.0f, 4, { { -3, 3 }, { 3, 3 }, { -3, -3 }, { 3, -3 } } },
    { 1.5f, 5, { { -3, 3 }, { 3, 3 }, { 0, 0 }, { -3, -3 }, { 3, -3 } } },
    { 1.5f, 6, { { -2, 4 }, { 2, 4 }, { -2, 0 }, { 2, 0 }, { -2, -4 }, { 2, -4 } } },
    { 1.5f, 7, { { -2, 4 }, { 2, 4 }, { -4, 0 }, { 0, 0 }, { 4, 0 }, { -2, -4 }, { 2, -4 } } },
    { 1.5f, 8, { { -4, 4 }, { 0, 4 }, { 4, 4 }, { -4, 0 }, { 0, 0 }, { 4, 0 }, { -2, -4 }, { 2, -4 } } },
    { 1.5f, 9, { { -4, 4 }, { 0, 4 }, { 4, 4 }, { -4, 0 }, { 0, 0 }, { 4, 0 }, { -4, -4 }, { 0, -4 }, { 4, -4 } } },
    { 1.5f, 10, { { -4, 4 }, { 0, 4 }, { 4, 4 }, { -4, 0 }, { -1.3f, 0 }, { 1.3f, 0 }, { 4, 0 }, { -4, -4 }, { 0, -4 },
                  { 4, -4 } } },
    { 1.5f, 11, { { -4, 4 }, { -1.3f, 4 }, { 1.3f, 4 }, { 4, 4 }, { -4, 0 }, { -1.3f, 0 }, { 1.3f, 0 }, { 4, 0 },
                  { -4, -4 }, { 0, -4 }, { 4, -4 } } },
    { 1.5f, 12, { { -4, 4 }, { -1.3f, 4 }, { 1.3f, 4 }, { 4, 4 }, { -4, 0 }, { -1.3f, 0 }, { 1.3f, 0 }, { 4, 0 },
                  { -4, -4 }, { -1.3f, -4 }, { 1.3f, -4 }, { 4, -4 } } },
};

/* A single-precision number as its fewest decimals that read back to it, never with an
 * exponent (sseq prints f32 so: 2.85, 3, 10, 0.075). */
static void put_f32(FILE *out, float v)
{
    char buf[64];
    for (int prec = 0; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*f", prec, (double)v);
        if (strtof(buf, NULL) == v) break;
    }
    fputs(buf, out);
}

#define DOT_PATTERNS (sizeof dot_pat / sizeof *dot_pat)

/* Dot i of the k classes at grid point (x, y); past sseq's patterns, the grid point itself (the
 * bidegree is drawn as its count: report_unstable_chart). */
static void tikz_point(FILE *out, int x, int y, uint32_t k, uint32_t i)
{
    static const float centre[2] = { 0, 0 };
    const float *o = k <= DOT_PATTERNS ? dot_pat[k - 1].xy[i] : centre;
    fputc('(', out);
    put_f32(out, (float)x + o[0] / 20.0f);
    fputs(", ", out);
    put_f32(out, (float)y - o[1] / 20.0f);
    fputc(')', out);
}

static char chart_name[201];    /* resolve --sseq-name; "" : the default label */

int report_set_chart_name(const char *tmpl)
{
    if (tmpl && strlen(tmpl) >= sizeof chart_name) return -1;
    snprintf(chart_name, sizeof chart_name, "%s", tmpl ? tmpl : "");
    return 0;
}

/* k of a module named NAME[k] (sseq's suspension count), 0 without [k]. */
static long name_shift(const char *name)
{
    size_t len = strlen(name);
    const char *open = strrchr(name, '[');
    if (!open || len < 3 || name[len - 1] != ']') return 0;
    return strtol(open + 1, NULL, 10);
}

/* The label: the template with each '%' replaced by k, or the default. */
static void chart_label(FILE *out, const resolution *res)
{
    const char *t = chart_name[0] ? chart_name : strncmp(res->module_name, "S_", 2) == 0 ? "$S^{%}$" : NULL;
    if (!t) {
        fputs(res->module_name, out);
        return;
    }
    for (; *t; t++)
        if (*t == '%') fprintf(out, "%ld", name_shift(res->module_name));
        else fputc(*t, out);
}

int report_unstable_chart(FILE *out, const resolution *res)
{
    int n0 = res->module ? (int)(res->module->min_deg - res->shift) : 0;
    int maxx = report_max_stem(res) - n0, maxy = res->max_s;
    fprintf(out, "\\begin{figure}[p]\\centering\n\\begin{tikzpicture}[\n  major-grid/.style={ opacity = 0.2 },\n"
                 "  grid/.style={ opacity = 0.1 },\n  d2/.style={ blue },\n]\n");
    for (int x = 0; x <= maxx; x++) {
        fprintf(out, "\\draw [%s] (%d, 0) -- (%d, %d);\n", x % 4 ? "grid" : "major-grid", x, x, maxy);
        if (x % 4 == 0) fprintf(out, "\\node [below] at (%d, 0) {%d};\n", x, x);
    }
    for (int y = 0; y <= maxy; y++) {
        fprintf(out, "\\draw [%s] (0, %d) -- (%d, %d);\n", y % 4 ? "grid" : "major-grid", y, maxx, y);
        if (y % 4 == 0) fprintf(out, "\\node [left] at (0, %d) {%d};\n", y, y);
    }
    fprintf(out, "\\node [right] at (1, %d) {", maxy - 1);
    chart_label(out, res);
    fputs("};\n", out);
    for (int x = 0; x <= maxx; x++)
        for (int s = 0; s <= maxy; s++) {
            int n = x + n0;
            if (n > report_row_last_stem(res, s)) continue;
            uint32_t d = res_ngens(res, s, n + s);
            if (d > DOT_PATTERNS) {     /* sseq has no pattern past 12 classes: the count, as a node */
                fputs("\\node at ", out);
                tikz_point(out, x, s, d, 0);
                fprintf(out, " {%u};\n", d);
            }
            for (uint32_t k = 0; k < d && d <= DOT_PATTERNS; k++) {
                fputs("\\draw [fill] ", out);
                tikz_point(out, x, s, d, k);
                fputs(" circle (", out);
                put_f32(out, dot_pat[d - 1].r / 20.0f);
                fputs(");\n", out);
            }
            if (s == 0 || !d) continue;
            for (int j = 0; j < 4; j++) {       /* h_0 .. h_3 (sseq's): x_(n - 2^j + 1, s - 1, i) to x_(n, s, k) */
                int nb = n - (1 << j) + 1;
                if (nb < n0) continue;
                uint32_t db = res_ngens(res, s - 1, nb + s - 1);
                for (uint32_t i = 0; i < db; i++)
                    for (uint32_t k = 0; k < d; k++)
                        if (report_hj(res, j, s - 1, nb + s - 1, i, k)) {
                            fprintf(out, "\\draw [h_%d] ", j);
                            tikz_point(out, nb - n0, s - 1, db, i);
                            fputs(" -- ", out);
                            tikz_point(out, x, s, d, k);
                            fputs(";\n", out);
                        }
            }
        }
    fprintf(out, "\\end{tikzpicture}\n\\end{figure}\n");
    return ferror(out) ? -1 : 0;
}

#define PANEL_STEMS 35      /* 2 columns a stem after the 5 of the s labels: 75 columns */

int report_chart_panels(FILE *out, const resolution *res)
{
    int maxn = report_max_stem(res), shift = (int)res->shift;
    fprintf(out, "Ext of %.40s%s (stem n = t - s across, s up), a mark per bidegree by dim Ext^{s,t}:\n",
            res->module_name, res->unstable ? " over the unstable algebra" : "");
    for (uint32_t d = 1; d < 10; d++) fprintf(out, "%s%s=%u", d > 1 ? ", " : "", mark(d), d);
    fprintf(out, ", *=10 or more\nchart.html draws the same with its products (open it in a browser).\n");
    for (int n0 = 0; n0 <= maxn; n0 += PANEL_STEMS) {
        int n1 = n0 + PANEL_STEMS - 1 < maxn ? n0 + PANEL_STEMS - 1 : maxn, top = -1;
        for (int s = 0; s <= res->max_s; s++)
            for (int n = n0; n <= n1 && n <= report_row_last_stem(res, s); n++)
                if (res_ngens(res, s, n + s)) top = s;
        fprintf(out, "\n");
        for (int s = top; s >= 0; s--) {
            int last = report_row_last_stem(res, s) < n1 ? report_row_last_stem(res, s) : n1;
            while (last >= n0 && !res_ngens(res, s, last + s)) last--;     /* no trailing blanks */
            fprintf(out, "%3d |", s);
            for (int n = n0; n <= last; n++) fprintf(out, "%s%s", n > n0 ? " " : "", mark(res_ngens(res, s, n + s)));
            fputc('\n', out);
        }
        fprintf(out, "  s -");
        for (int n = n0; n <= n1; n++) fprintf(out, "%s", (n + shift) % 5 ? "--" : "+-");
        fprintf(out, "\n     ");
        /* the stem of each tick, under it (labels may not overlap: one every 5 stems fits) */
        int col = 0;
        for (int n = n0; n <= n1; n++) {
            if ((n + shift) % 5) continue;
            char label[16];
            int at = 2 * (n - n0), len = snprintf(label, sizeof label, "%d", n + shift);
            if (at < col) continue;
            fprintf(out, "%*s%s", at - col, "", label);
            col = at + len;
        }
        fprintf(out, "  n\n");
    }
    return ferror(out) ? -1 : 0;
}

int report_hj(const resolution *res, int j, int s, deg_t t, uint32_t i, uint32_t k)
{
    deg_t t2 = t + (1 << j);
    if (res->prime != 2) return 0;      /* h_j are classes of Ext over the mod 2 algebra */
    if ((1u << j) > milnor_profile_slot_max(&res->A.profile, 0)) return 0;  /* Sq(2^j) not in B */
    if (s + 1 > res->max_s || t2 > res->max_t || k >= res_ngens(res, s + 1, t2)) return 0;
    const fm_gen *y = &res->F[s + 1].gens[t2][k];
    const freemod *F = &res->F[s];
    uint64_t bit = freemod_offset(F, t2, t, i);          /* Sq(2^j) has index 0 */
    if (F->ex) {                /* unstable: its place in the excess order, if its excess 2^j <= t */
        if ((1 << j) > t) return 0;
        bit += excess_rank(F->ex, 1 << j, 0);
    }
    return bit < y->bits && f2vec_get(y->img, bit);
}

int report_h_lines(const resolution *res, report_line_fn fn, void *ctx)
{
    for (int s = 0; s < res->max_s; s++)
        for (int n = 0; n <= report_row_last_stem(res, s); n++)
            for (uint32_t i = 0; i < res_ngens(res, s, n + s); i++)
                for (int j = 0; j < 3; j++) {
                    uint32_t d2 = res_ngens(res, s + 1, n + s + (1 << j));
                    for (uint32_t k = 0; k < d2; k++)
                        if (report_hj(res, j, s, n + s, i, k)) {
                            int rc = fn(ctx, j, n, s, i, k);
                            if (rc) return rc;
                        }
                }
    return 0;
}

int report_max_stem(const resolution *res)
{
    int maxn = 0;
    for (int s = 0; s <= res->max_s; s++)
        if (report_row_last_stem(res, s) > maxn) maxn = report_row_last_stem(res, s);
    return maxn;
}

static void print_elt(FILE *out, const milnor_elt *R)
{
    if (R->len == 0) return;
    fprintf(out, "P(");
    for (uint32_t i = 0; i < R->len; i++) fprintf(out, i ? ", %u" : "%u", R->r[i]);
    fprintf(out, ") ");
}

/* sseq's differentials example: d x_(n,s,i) = P(R) x_(n',s-1,i') + ..., basis order. */
int report_differentials(FILE *out, const resolution *res)
{
    int maxn = report_row_last_stem(res, 0);
    for (int n = 0; n <= maxn; n++)
        for (int s = 0; s <= res->max_s; s++)
            for (uint32_t i = 0; i < res_ngens(res, s, n + s); i++) {
                deg_t t = n + s;
                fprintf(out, "d x_(%d,%d,%u) = ", n + res->shift, s, i);
                int terms = 0;
                if (s > 0) {
                    const fm_gen *g = &res->F[s].gens[t][i];
                    const freemod *F = &res->F[s - 1];
                    uint64_t off = 0;
                    for (deg_t u = 0; u < t; u++)
                        for (uint32_t k = 0; k < F->ngens[u]; k++)
                            for (uint32_t r = 0; r < freemod_block(F, t - u, u); r++, off++)   /* unstable: excess order */
                                if (off < g->bits && f2vec_get(g->img, off)) {
                                    if (terms++) fprintf(out, " + ");
                                    print_elt(out, &res->A.elts[t - u][F->ex ? excess_index(F->ex, t - u, r) : r]);
                                    fprintf(out, "x_(%d,%d,%u)", u - (s - 1) + res->shift, s - 1, k);
                                }
                }
                fprintf(out, "%s\n", terms ? "" : "0");
            }
    return ferror(out) ? -1 : 0;
}

int report_num_gens(FILE *out, const resolution *res)
{
    for (int n = 0; n <= report_row_last_stem(res, 0); n++)
        for (int s = 0; s <= res->max_s; s++)
            fprintf(out, "%d,%d,%u\n", n + res->shift, s, res_ngens(res, s, n + s));
    return ferror(out) ? -1 : 0;
}

int report_resolution_size(FILE *out, const resolution *res)
{
    for (int s = res->max_s; s >= 0; s--) {
        for (int n = 0; n <= report_row_last_stem(res, s); n++)
            fprintf(out, "%llu, ", (unsigned long long)freemod_dim(&res->F[s], n + s, n + s + 1));
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

struct report_render {
    const resolution *res;
    int (*write)(FILE *, const resolution *);
};
static int render_report(FILE *out, void *ctx)
{
    const struct report_render *r = ctx;
    return r->write(out, r->res);
}

int report_write_file(const char *dir, const char *name, const resolution *res,
                      int (*write)(FILE *, const resolution *))
{
    char path[4200];
    struct report_render r = { res, write };
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return durable_write_rendered(path, render_report, &r, NULL, 0);
}
