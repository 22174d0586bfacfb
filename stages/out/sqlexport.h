/* sqlexport.h — a resolved directory as one SQLite database (`extflow export DIR --sqlite FILE`).
 *
 * The data: x_(n,s,i) is the basis class of Ext^{s,t}, t = n + s, dual to the i-th generator
 * of F_s in degree t; stems n are the module's degrees, as ext.csv prints them. Tables
 * (schema/sqlite.md has every column):
 *   classes(s, n, t, idx, name)           one row per x_(n,s,idx) of the complete region; name
 *                                         the chart's (chart_names), else NULL
 *   ext(s, n, dim)                        a view: classes counted per bidegree, ext.csv's rows
 *   h_products(name, name_n, name_s, n, s, i, k)
 *                                         the chart's h0, h1, h2 lines (report_h_lines), in
 *                                         products.csv's columns
 *   products, module_products             DIR/products.csv, DIR/module-products.csv
 *   massey                                every DIR/massey-*.csv
 *   d2, and the view d2_terms             DIR/d2.csv; d2_terms: one row per 1 of its value
 *   maps                                  DIR/maps.csv (products --map), products.csv's columns
 *   steenrod, sq0                         DIR/steenrod.csv, DIR/sq0.csv (extflow steenrod, sq0)
 *   manifest(key, value)                  DIR/run.json, nested keys joined by '.'
 *   region(kind, stem, max_t, max_s, min_n, max_n)   the complete region, module degrees
 *   sources(file, tbl, rows)              each optional file read and its row count
 * A table from a CSV file has the file's header as its columns and one row per line; each
 * field is checked for its form (integer, name, 0/1 string) and a line that is not a row fails
 * the export, naming the file and line. PRAGMA application_id is SQLEXPORT_APP_ID, user_version
 * SQLEXPORT_VERSION.
 *
 * The database is built in memory, serialized and written by durable_write_file: FILE is
 * replaced only once the whole database is on disk.
 */
#ifndef EXTFLOW_SQLEXPORT_H
#define EXTFLOW_SQLEXPORT_H
#include <stddef.h>
#include "stages/resolve/resolution.h"

#define SQLEXPORT_APP_ID  0x45787446    /* "ExtF" */
#define SQLEXPORT_VERSION 1

/* Writes the database of res (its complete region; the optional files from res->outdir) to
 * path; 0, or -1 with a message in err. */
int sqlexport_write(const resolution *res, const char *path, char *err, size_t errlen);

#endif
