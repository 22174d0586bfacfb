/* report.h — outputs people read: the Ext table (CSV), text and SVG charts, and sseq's
 * example formats (differentials, num_gens, resolution_size) for comparison.
 *
 * dim Ext^{s,t} = number of generators of F_s in degree t; stem n = t - s. The charts put
 * n across and s up. h_j-multiplication (j = 0, 1, 2) from x at (s, t) to y at
 * (s+1, t+2^j) is the coefficient of Sq(2^j)·x in d(y) (sseq's filtration_one).
 * Every file is written to a temporary name and renamed, ext.csv last.
 */
#ifndef EXTFLOW_REPORT_H
#define EXTFLOW_REPORT_H
#include <stdio.h>
#include "stages/resolve/resolution.h"

int report_ext_csv(FILE *out, const resolution *res);
int report_chart_txt(FILE *out, const resolution *res);
/* resolve --unstable --sseq-formats: resolve_unstable.txt, what sseq's resolve_unstable example
 * prints: the chart of chart.txt from the module's bottom degree on (S^n's from stem n), as
 * sseq's stems start at the module's min_degree. */
int report_resolve_unstable(FILE *out, const resolution *res);
/* resolve --unstable --sseq-formats: unstable_chart.txt, the figure sseq's unstable_chart example
 * prints for this module (one per suspension there: the files of S^0, S^1, ... in turn are its
 * whole output): a TikZ picture of stems 0 .. N - n across (n the bottom degree, N the top stem)
 * and s = 0 .. S up, grid lines (major every 4), the label "$S^{n}$" (a sphere; another module:
 * its name) at (1, S - 1), a dot per class (several at one bidegree spread by sseq's patterns)
 * and the h0 .. h3 lines into it ("[h_j] from -- to", report_hj), bidegrees by stem then s. */
int report_unstable_chart(FILE *out, const resolution *res);
/* The label template of unstable_chart.txt (resolve --sseq-name): '%' becomes k for a module
 * NAME[k] (0 without [k]); NULL or "" restores the default. 0, or -1 when it is too long. */
int report_set_chart_name(const char *tmpl);
/* The same chart for a reader (export --text): a legend, then panels of 35 stems, each with
 * its s labels and a stem axis, at most 80 columns whatever the region. */
int report_chart_panels(FILE *out, const resolution *res);
int report_differentials(FILE *out, const resolution *res);
int report_num_gens(FILE *out, const resolution *res);
int report_resolution_size(FILE *out, const resolution *res);
/* Coefficient of Sq(2^j)·(generator i at (s, t)) in d(generator k at (s+1, t + 2^j)). */
int report_hj(const resolution *res, int j, int s, deg_t t, uint32_t i, uint32_t k);
/* Every h_j line (j = 0, 1, 2) of the charts, from x_(n,s,i) to x_(n + 2^j - 1, s + 1, k),
 * in chart.svg's order: fn(ctx, j, n, s, i, k) for each; a non-zero return stops the walk
 * and is returned. chart.svg and the chart's JSON (stages/out/chart.h) both take them from here. */
typedef int (*report_line_fn)(void *ctx, int j, int n, int s, uint32_t i, uint32_t k);
int report_h_lines(const resolution *res, report_line_fn fn, void *ctx);
/* Largest stem of row s inside the region. */
int report_row_last_stem(const resolution *res, int s);
/* Largest stem of the region (the charts' width). */
int report_max_stem(const resolution *res);
/* Writes dir/name through write(FILE*, res), atomically; 0 or -1 with errno. */
int report_write_file(const char *dir, const char *name, const resolution *res,
                      int (*write)(FILE *, const resolution *));

#endif
