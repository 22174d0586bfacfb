/* resolved.h — what products, massey, d2, export, steenrod and sq0 share: a finished
 * resolution opened for reading (its directory locked under every rank, its complete region
 * loaded: stages/out/outdir.h), the unit a module's products act through (--unit), --class
 * arguments parsed and checked against the region, tables written, and --memory/--time-limit
 * read. Each function prints its one line
 * (a usage error through cli_usage_error) and returns the exit status, 0 to go on. */
#ifndef EXTFLOW_RESOLVED_H
#define EXTFLOW_RESOLVED_H
#include "stages/out/outdir.h"
#include "stages/products/products.h"
#include "tools/cli.h"

typedef struct opened_dir {
    outdir dir;             /* locked by rank 0 */
    resolution res;
    run_manifest man;
    fd_module fdm;
} opened_dir;

/* --memory and --time-limit (options that may be absent) counting from began, into *limits. */
int resolved_limits(const cli_option *memory, const cli_option *time_limit, double began, chain_policy *limits);
/* The budget of sec's memo of mod-4 products (stages/d2/secondary.h): EXTFLOW_D2_MEMO's (checked
 * by cli_check_env) if set; else, under a --memory budget, a quarter of it at most. 0, or -1 (out
 * of memory: error says so). */
struct secondary;
int resolved_d2_memo(struct secondary *sec, const chain_policy *limits, char *error, size_t errlen);
/* Where sec's Y terms and intermediates are multiplied: EXTFLOW_D2_Y=batch (in the mod-4 batch)
 * and EXTFLOW_D2_INTERMEDIATE=cpu (on the step's own workers), both checked by cli_check_env. */
void resolved_d2_ways(struct secondary *sec);
/* The budget of the quasi-inverses a secondary product's or Massey product's lifts share
 * (secondary_sseq_preimages): EXTFLOW_D2_QI's (checked by cli_check_env) if set; else a quarter of
 * a --memory budget, at most SECONDARY_QI_BYTES; else a quarter of 80% of the memory available,
 * at least SECONDARY_QI_BYTES. */
uint64_t resolved_qi_budget(const chain_policy *limits);
/* Under EXTFLOW_STATS, one line on stderr: the quasi-inverses sec's preimage cache kept (built,
 * bytes against budget, applied), and the steps that solved without one. */
void resolved_qi_report(struct secondary *sec);
/* Under EXTFLOW_STATS, one line on stderr: lift set NAME's bidegrees and its solves' count and
 * wall seconds (summed over the steps). */
void resolved_lift_report(const char *name, const lift_set *set);
/* The environment checked, DIR locked (rank 0, for all ranks) and its complete region loaded.
 * flags: RESOLVED_ODD_OK (1) takes a resolution at an odd prime, RESOLVED_UNSTABLE_OK one over
 * the unstable algebra (docs/unstable.md: maps of modules only so far); without them such a
 * directory is refused in one line. */
#define RESOLVED_ODD_OK 1
#define RESOLVED_UNSTABLE_OK 2
int resolved_open(const char *cmd, const char *dir, opened_dir *d, int flags);
void resolved_close(opened_dir *d);
/* The unit F_p resolved over DIR's algebra that products over DIR's module act through: DIR
 * itself when its module is that unit (*have_unit = 0), else UNITDIR's, opened into *u, which
 * must hold F_p over the same algebra (the same prime, and at an odd one the same profile) and
 * cover DIR's region row by row (docs/products.md "Modules"). Nothing is left open on an
 * error. */
int resolved_open_unit(const char *cmd, const char *dir, const opened_dir *d, const char *unitdir, opened_dir *u,
                       int *have_unit);
/* For --map: TARGETDIR (DIR itself when absent or the same) opened into *u (*have_unit = 1
 * when it is another directory), and the map files files[0..nmap) read into pmaps for DIR's
 * module -> TARGETDIR's (stages/products/products.h). Nothing is left open on an error. */
int resolved_open_map_target(const char *dir, opened_dir *d, const char *target, opened_dir *u, int *have_unit,
                             products_module_map *pmaps, const char *const *files, int nmap);
/* products_map_clear of pmaps[0..nmap). */
void resolved_close_maps(products_module_map *pmaps, int nmap);
/* resolved_close of u (when have_unit) and d. */
void resolved_close_both(opened_dir *d, opened_dir *u, int have_unit);
/* Is DIR's module the sphere S_2? */
int resolved_is_sphere(const opened_dir *d);
/* resolved_open of DIR (p = 2) for a command that is for S_2 alone: unless DIR's module is S_2,
 * the usage error "CMD: DIR holds MODULE: WHAT is for S_2 only" with nothing left open. */
int resolved_require_sphere(const char *cmd, const char *what, const char *dir, opened_dir *d);
/* Is DIR's module the unit of the algebra it is resolved over: S_2, or F_p (one class, in
 * degree 0) over A_p or a profile's sub-Hopf-algebra B (ko, tmf2, S_3)? Such a directory is
 * its own unit. */
int resolved_is_unit(const opened_dir *d);
/* One --class VALUE of cmd (products, steenrod) parsed at the prime p (coordinates 0..p-1, the
 * bare names of products_parse_class_p) into classes[*n] (names[*n] its name, distinct from the
 * earlier ones), at most RESOLVED_MAX_CLASSES: 0, or 2 after a usage error. */
#define RESOLVED_MAX_CLASSES 64
int resolved_add_class(const char *cmd, const char *value, uint32_t p, product_class *classes, const char **names,
                       int *n);
/* A class argument in DIR's complete region, with as many coordinates as there are generators. */
int resolved_check_class(const char *cmd, const product_class *c, const resolution *res, const run_manifest *man,
                         const char *dir);
/* DIR/name from write_fn (outdir_write): 0, or 1 after a line. */
int resolved_write(const char *dir, const char *name, int (*write_fn)(FILE *, void *), void *ctx);
/* DIR/name holding the len bytes at p (a text made in memory first), as resolved_write. */
int resolved_write_bytes(const char *dir, const char *name, const char *p, size_t len);
/* A table derived from DIR's resolution (products.csv, d2.csv, ...) written (resolved_write)
 * and its region recorded in DIR/tables.json: DIR's complete region, or, for a table merged
 * with an earlier run's rows (merged), the record already there (that run's region, the
 * smaller) or none. 0, or 1 after a line. */
int resolved_write_table(const char *dir, const char *name, const opened_dir *d, int merged,
                         int (*write_fn)(FILE *, void *), void *ctx);
/* sseq's text DIR/name beside a table (--sseq-formats, asked): written when asked, and also
 * when an earlier run left one, so that it stays current rather than stale or deleted. 0, or
 * 1 after a line. */
int resolved_write_sseq(const char *dir, const char *name, int asked, int (*write_fn)(FILE *, void *), void *ctx);
/* Whether DIR/name is there (an output of an earlier run). */
int resolved_has(const char *dir, const char *name);
/* chart.svg and chart.html written again (they draw products.csv and d2.csv): 0, or 1. */
int resolved_write_charts(const char *dir, const resolution *res);
/* chart.html alone written again (its Sq^0 and Sq^1 layers: sq0.csv, steenrod.csv): 0, or 1. */
int resolved_write_html(const char *dir, const resolution *res);

#endif
