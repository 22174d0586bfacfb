/* chart.h — the interactive chart: DIR/chart.html, one self-contained page (stages/out/chart.html,
 * compiled in), and the JSON document it embeds, which `extflow export DIR --json` also
 * writes; and the static DIR/chart.svg. Format: schema/chart-json.md. The h0, h1, h2 lines come from report_h_lines (the
 * same as chart.svg's); DIR/products.csv and DIR/d2.csv, when present, add optional layers
 * (their columns: schema/chart-json.md). A products.csv layer whose class's bidegree holds a
 * single class names that class (c0, Ph1, ...), and the names spread along the h0, h1, h2
 * lines as monomials (h1 c0). */
#ifndef EXTFLOW_CHART_H
#define EXTFLOW_CHART_H
#include <stdio.h>
#include "stages/resolve/resolution.h"

/* The JSON document for res (optional files read from res->outdir); 0 or -1 with errno. */
int chart_write_json(FILE *out, const resolution *res);
/* chart.html: the page with that document inside; 0 or -1 with errno. */
int chart_write_html(FILE *out, const resolution *res);
/* chart.svg: the static chart, with axis titles, a legend, and one line style per product
 * layer of res->chart_products (a comma-separated list of names; empty: h0,h1,h2): h0, h1, h2
 * from the differentials (report_h_lines), any other name from DIR/products.csv (a name in
 * neither draws nothing). 0 or -1 with errno. */
int chart_write_svg(FILE *out, const resolution *res);

/* The names the chart gives classes, as monomials in the h_j: h_j is the class at
 * (2^j - 1, 1) (the only one there), and when h_j · x (j = 0, 1, 2) has exactly one term y
 * and x is the monomial m, y = h_j m and takes that name (the first found, by s then n then
 * i, when several monomials reach y). A layer of DIR/products.csv named L whose class lies in
 * a bidegree of dimension 1 names that class L (it is the only one there), and monomials grow
 * from it too (h1 c0). The sphere's only: a module's classes have none. fn(ctx, n, s, i,
 * name) for each named class x_(n,s,i), by s, then n, then i, n in the module's degrees; 0,
 * -1 with errno (reading products.csv, out of memory), or fn's non-zero return. */
typedef int (*chart_name_fn)(void *ctx, int n, int s, uint32_t i, const char *name);
int chart_names(const resolution *res, chart_name_fn fn, void *ctx);

/* The page's text (generated from stages/out/chart.html at build time). */
extern const char chart_html_template[];

#endif
