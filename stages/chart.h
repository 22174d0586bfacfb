/* chart.h — the interactive chart: DIR/chart.html, one self-contained page (stages/chart.html,
 * compiled in), and the JSON document it embeds, which `extflow export DIR --json` also
 * writes; and the static DIR/chart.svg. Format: schema/chart-json.md. The h0, h1, h2 lines come from report_h_lines (the
 * same as chart.svg's); DIR/products.csv and DIR/d2.csv, when present, add optional layers
 * (their columns: schema/chart-json.md). A products.csv layer whose class's bidegree holds a
 * single class names that class (c0, Ph1, ...), and the names spread along the h0, h1, h2
 * lines as monomials (h1 c0). */
#ifndef EXTFLOW_CHART_H
#define EXTFLOW_CHART_H
#include <stdio.h>
#include "stages/resolution.h"

/* The JSON document for res (optional files read from res->outdir); 0 or -1 with errno. */
int chart_write_json(FILE *out, const resolution *res);
/* chart.html: the page with that document inside; 0 or -1 with errno. */
int chart_write_html(FILE *out, const resolution *res);
/* chart.svg: the static chart, with axis titles, a legend, and one line style per product
 * layer of res->chart_products (a comma-separated list of names; empty: h0,h1,h2): h0, h1, h2
 * from the differentials (report_h_lines), any other name from DIR/products.csv (a name in
 * neither draws nothing). 0 or -1 with errno. */
int chart_write_svg(FILE *out, const resolution *res);

/* The page's text (generated from stages/chart.html at build time). */
extern const char chart_html_template[];

#endif
