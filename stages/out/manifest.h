/* manifest.h — DIR/run.json: which resolution a directory holds and how far it is complete.
 *
 * Written after a successful run, after ext.csv (report_write_file: durably, by stages/store/durable.h); format in
 * schema/run-json.md. A run whose module or algorithm differs from the directory's is refused
 * (tools/extflow.c), so stage files of another resolution are never overwritten; a run over a
 * region the manifest's contains is widened to it, so ext.csv always covers everything
 * complete. A directory without a manifest (an interrupted first run, or one made before
 * manifests existed) is identified by its stage files' headers (manifest_sniff).
 */
#ifndef EXTFLOW_MANIFEST_H
#define EXTFLOW_MANIFEST_H
#include <stddef.h>
#include <stdint.h>
#include "stages/resolve/resolution.h"

#define MANIFEST_NAME "run.json"

/* A region of bidegrees: REGION_STEM (t - s <= stem) or REGION_RECT (t <= max_t), s <= max_s. */
typedef struct run_region {
    int kind, stem, max_t, max_s;
} run_region;

typedef struct run_manifest {
    char module[32];
    uint64_t module_id;
    int algorithm;              /* ALG_STANDARD or ALG_NASSAU */
    int prime;                  /* 2, or an odd prime (a module file's "p") */
    int unstable;               /* over the unstable algebra ("unstable": true; resolve --unstable) */
    run_region complete;        /* every bidegree of it is in the stage files, ext.csv covers it */
    char version[32];           /* program that wrote it (informative) */
} run_manifest;

/* 0 read, 1 no manifest, -1 unreadable or invalid (message in err). */
int manifest_read(const char *dir, run_manifest *m, char *err, size_t errlen);
/* Writes DIR/run.json for res (its module's name and id, algorithm and region); 0 or -1 with errno. */
int manifest_write(const char *dir, const resolution *res);
/* Module and algorithm of the first valid differential stage file; 1 found, 0 none. */
/* DIR/module.json: a copy of the module file a directory of a module other than S_2 was
 * resolved from (verify rebuilds the module from it). */
#define MODULE_COPY_NAME "module.json"
int manifest_sniff(const char *dir, uint64_t *module_id, int *algorithm);
/* The prime of DIR's resolution: run.json's, else its first valid differential file's, else 2. */
uint32_t manifest_prime(const char *dir);

/* DIR/tables.json: the region each table derived from the resolution (products.csv, d2.csv,
 * sq0.csv, ...) was computed over, written by the command that writes the table
 * (schema/run-json.md, "tables.json"). After resolve extends DIR such a table covers less
 * than run.json's complete region: resolve says so, and the charts and export --sqlite mark
 * it partial. A table with no entry (written before tables.json, or by another tool) has no
 * known region. */
#define TABLES_NAME "tables.json"
/* Records that DIR/table covers *r (NULL: forgets its entry, an unknown region): 0, or -1
 * with the message in err. Written durably (stages/store/durable.h). */
int manifest_table_note(const char *dir, const char *table, const run_region *r, char *err, size_t errlen);
/* DIR/table's recorded region into *r: 1, or 0 when none is recorded (or tables.json is
 * unreadable). */
int manifest_table_region(const char *dir, const char *table, run_region *r);
/* Calls fn(ctx, table, region) for each recorded table whose region does not contain
 * *complete, in tables.json's order; returns how many. */
int manifest_partial_tables(const char *dir, const run_region *complete,
                            void (*fn)(void *ctx, const char *table, const run_region *r), void *ctx);

/* Largest stem of row s in the region, -1 if row s is outside it. */
int region_last_stem(const run_region *r, int s);
int region_contains(const run_region *outer, const run_region *inner);
int region_has(const run_region *r, int s, int t);
/* "stem 60 (s <= 32)" or "t <= 50 (s <= 20)", the stem or t moved by shift (the module's
 * degrees: resolution.h's shift; 0 for a module starting in degree >= 0). */
void region_describe(char *buf, size_t size, const run_region *r, deg_t shift);
run_region region_of(const resolution *res);

#endif
