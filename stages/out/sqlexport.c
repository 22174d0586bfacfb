/* sqlexport.c — a resolved directory as one SQLite database (see sqlexport.h). */
#include "stages/out/sqlexport.h"
#include "stages/out/chart.h"
#include "stages/store/durable.h"
#include "stages/out/manifest.h"
#include "stages/resolve/report.h"
#include "stages/steenrod/steenrod.h"
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct exporter {
    sqlite3 *db;
    const resolution *res;
    char *err;
    size_t errlen;
} exporter;

/* The first failure's message, with SQLite's reason; -1. */
static int db_fail(exporter *x, const char *what)
{
    if (x->err[0] == 0) snprintf(x->err, x->errlen, "%s: sqlite: %s", what, sqlite3_errmsg(x->db));
    return -1;
}

static int exec(exporter *x, const char *sql)
{
    return sqlite3_exec(x->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(x, "building the database");
}

static int prepare(exporter *x, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(x->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : db_fail(x, "building the database");
}

/* Runs a statement whose parameters are bound, then resets it for the next row. */
static int step(exporter *x, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : db_fail(x, "writing a row");
}

/* A table read from a CSV file: the header line names the columns; types has a letter per
 * column: i an integer, w a name (1 to 63 of [A-Za-z0-9_.^+-], as products' --class takes),
 * b a string of 0 and 1 (maybe empty), r such strings separated by single spaces (maybe
 * empty); d and e the same with any digits (vectors mod an odd prime); t a short text (1 to
 * 200 printable characters, no comma). i columns are INTEGER, the others TEXT (so "01" stays
 * "01"). */
typedef struct csv_table {
    const char *table, *header, *types;
} csv_table;

#define PRODUCT_COLUMNS "name,name_n,name_s,n,s,i,k", "wiiiiii"
static const csv_table h_products_table = { "h_products", PRODUCT_COLUMNS };
static const csv_table products_table = { "products", PRODUCT_COLUMNS };
static const csv_table module_products_table = { "module_products", PRODUCT_COLUMNS };
/* at an odd prime products.csv and module-products.csv have the coefficient c last */
#define PRODUCT_COLUMNS_P "name,name_n,name_s,n,s,i,k,c", "wiiiiiii"
static const csv_table products_table_p = { "products", PRODUCT_COLUMNS_P };
static const csv_table module_products_table_p = { "module_products", PRODUCT_COLUMNS_P };
static const csv_table massey_table = { "massey", "a,b,c_n,c_s,c,n,s,value,indeterminacy,contains_zero", "wwiibiibri" };
static const csv_table massey_table_p = { "massey", "a,b,c_n,c_s,c,n,s,value,indeterminacy,contains_zero", "wwiidiidei" };
static const csv_table d2_table = { "d2", "n,s,i,target_n,target_s,value", "iiiiib" };
/* maps.csv (products --map) has products.csv's columns; steenrod.csv and sq0.csv: S_2 only */
static const csv_table maps_table = { "maps", PRODUCT_COLUMNS };
static const csv_table maps_table_p = { "maps", PRODUCT_COLUMNS_P };
static const csv_table steenrod_table = { "steenrod", STEENROD_CSV_HEADER, "wiiiiii" };
static const csv_table sq0_table = { "sq0", STEENROD_SQ0_CSV_HEADER, "iiii" };
/* the spectral sequence's tables (extflow ss: schema/ss-csv.md); pages' r is a page or "inf" */
static const csv_table ss_pages_table = { "ss_pages", "r,n,s,dim", "wiii" };
static const csv_table ss_differentials_table = { "ss_differentials",
                                                  "fact,r,n,s,source,target_n,target_s,target,origin,why", "iiiidiidwt" };
static const csv_table ss_permanent_table = { "ss_permanent", "fact,n,s,class,origin,why", "iiidwt" };

/* CREATE TABLE t(col TYPE NOT NULL, ...) from t's header and types. */
static int create_table(exporter *x, const csv_table *t)
{
    char sql[512];
    int len = snprintf(sql, sizeof sql, "CREATE TABLE %s(", t->table);
    const char *col = t->header;
    for (int c = 0; t->types[c]; c++) {
        size_t w = strcspn(col, ",");
        len += snprintf(sql + len, sizeof sql - (size_t)len, "%s%.*s %s NOT NULL", c ? ", " : "", (int)w, col,
                        t->types[c] == 'i' ? "INTEGER" : "TEXT");
        col += w + (col[w] == ',');
    }
    snprintf(sql + len, sizeof sql - (size_t)len, ")");
    return exec(x, sql);
}

/* INSERT INTO t VALUES(?, ...) with one parameter per column. */
static int insert_stmt(exporter *x, const csv_table *t, sqlite3_stmt **st)
{
    char sql[256];
    int len = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES(", t->table);
    for (int c = 0; t->types[c]; c++) len += snprintf(sql + len, sizeof sql - (size_t)len, c ? ",?" : "?");
    snprintf(sql + len, sizeof sql - (size_t)len, ")");
    return prepare(x, sql, st);
}

/* Is f[0..len) a field of type letter? An integer goes to *v. */
static int field_ok(char type, const char *f, size_t len, long long *v)
{
    if (type == 'i') {
        size_t k = f[0] == '-';
        if (len == k || len - k > 18) return 0;
        for (size_t j = k; j < len; j++)
            if (f[j] < '0' || f[j] > '9') return 0;
        *v = strtoll(f, NULL, 10);
        return 1;
    }
    if (type == 't') {
        if (len == 0 || len > 200) return 0;
        for (size_t j = 0; j < len; j++)
            if ((unsigned char)f[j] < ' ') return 0;
        return 1;
    }
    if (type == 'w') {
        if (len == 0 || len > 63) return 0;
        for (size_t j = 0; j < len; j++)
            if (!((f[j] >= 'a' && f[j] <= 'z') || (f[j] >= 'A' && f[j] <= 'Z') || (f[j] >= '0' && f[j] <= '9') ||
                  strchr("_.^+-", f[j])))
                return 0;
        return 1;
    }
    int digits = type == 'd' || type == 'e', rows = type == 'r' || type == 'e';
    for (size_t j = 0; j < len; j++)    /* b, r: 0s and 1s (d, e: digits); r, e: rows apart by one space */
        if (f[j] != '0' && f[j] != '1' && !(digits && f[j] >= '0' && f[j] <= '9') &&
            !(rows && f[j] == ' ' && j > 0 && j + 1 < len && f[j - 1] != ' '))
            return 0;
    return 1;
}

/* Adds the row of a file read to the sources table. */
static int add_source(exporter *x, const char *file, const char *table, long rows)
{
    sqlite3_stmt *st;
    if (prepare(x, "INSERT INTO sources VALUES(?, ?, ?, ?, ?)", &st) != 0) return -1;
    sqlite3_bind_text(st, 1, file, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, rows);
    run_region r, whole = region_of(x->res);    /* its region (DIR/tables.json), when recorded */
    if (manifest_table_region(x->res->outdir, file, &r)) {
        char where[64];
        region_describe(where, sizeof where, &r, x->res->shift);
        sqlite3_bind_text(st, 4, where, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 5, !region_contains(&r, &whole));
    }
    int rc = step(x, st);
    sqlite3_finalize(st);
    return rc;
}

/* The rows of DIR/file into table t (created already): 0 (nothing when the file is absent),
 * or -1 with a message (a read error, a first line other than t's header, a line that is not
 * a row). */
static int read_csv(exporter *x, const csv_table *t, const char *file)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", x->res->outdir, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        snprintf(x->err, x->errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    sqlite3_stmt *st = NULL;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, rows = 0;
    int rc = insert_stmt(x, t, &st);
    ssize_t got;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        size_t len = (size_t)got;
        if (len && line[len - 1] == '\n') line[--len] = 0;
        if (lineno++ == 0) {
            if (strcmp(line, t->header) != 0) {
                snprintf(x->err, x->errlen, "%s: the first line is not the header %s", path, t->header);
                rc = -1;
            }
            continue;
        }
        const char *p = line;
        for (int c = 0; t->types[c] && rc == 0; c++) {
            size_t w = strcspn(p, ",");
            long long v = 0;
            if (!field_ok(t->types[c], p, w, &v)) {
                rc = -1;
                break;
            }
            if (t->types[c] == 'i') sqlite3_bind_int64(st, c + 1, v);
            else sqlite3_bind_text(st, c + 1, p, (int)w, SQLITE_TRANSIENT);
            p += w;
            if (t->types[c + 1] && *p++ != ',') rc = -1;     /* too few fields */
        }
        if (rc == 0 && (size_t)(p - line) != len) rc = -1;  /* too many, or a NUL byte */
        if (rc != 0) {
            snprintf(x->err, x->errlen, "%s line %ld: not a row of %s", path, lineno, t->header);
            break;
        }
        rc = step(x, st);
        rows++;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(x->err, x->errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && lineno == 0) {
        snprintf(x->err, x->errlen, "%s: empty (no header line)", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    sqlite3_finalize(st);
    return rc == 0 ? add_source(x, file, t->table, rows) : -1;
}

static int massey_file(const struct dirent *e) { return fnmatch("massey-*.csv", e->d_name, 0) == 0; }

/* Every DIR/massey-*.csv, in the order of their names. */
static int read_massey(exporter *x)
{
    struct dirent **names;
    int n = scandir(x->res->outdir, &names, massey_file, alphasort), rc = 0;
    if (n < 0) {
        snprintf(x->err, x->errlen, "%s: %s", x->res->outdir, strerror(errno));
        return -1;
    }
    for (int k = 0; k < n; k++) {
        if (rc == 0) rc = read_csv(x, x->res->prime != 2 ? &massey_table_p : &massey_table, names[k]->d_name);
        free(names[k]);
    }
    free(names);
    return rc;
}

/* classes: every x_(n,s,i) of the region, names NULL (set by add_name). */
static int add_classes(exporter *x)
{
    const resolution *res = x->res;
    sqlite3_stmt *st;
    if (prepare(x, "INSERT INTO classes VALUES(?, ?, ?, ?, NULL)", &st) != 0) return -1;
    int rc = 0;
    for (int s = 0; s <= res->max_s && rc == 0; s++)
        for (int n = 0; n <= report_row_last_stem(res, s) && rc == 0; n++)
            for (uint32_t i = 0; i < res_ngens(res, s, n + s) && rc == 0; i++) {
                sqlite3_bind_int(st, 1, s);
                sqlite3_bind_int(st, 2, n + res->shift);
                sqlite3_bind_int(st, 3, n + res->shift + s);
                sqlite3_bind_int64(st, 4, i);
                rc = step(x, st);
            }
    sqlite3_finalize(st);
    return rc;
}

typedef struct stmt_ctx {
    exporter *x;
    sqlite3_stmt *st;
} stmt_ctx;

static int add_name(void *ctx, int n, int s, uint32_t i, const char *name)
{
    stmt_ctx *c = ctx;
    sqlite3_bind_text(c->st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(c->st, 2, s);
    sqlite3_bind_int(c->st, 3, n);
    sqlite3_bind_int64(c->st, 4, i);
    return step(c->x, c->st);
}

static int add_h_line(void *ctx, int j, int n, int s, uint32_t i, uint32_t k)
{
    stmt_ctx *c = ctx;
    char name[4];
    snprintf(name, sizeof name, "h%d", j);
    sqlite3_bind_text(c->st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(c->st, 2, (1 << j) - 1);
    sqlite3_bind_int(c->st, 3, 1);
    sqlite3_bind_int(c->st, 4, n + c->x->res->shift);
    sqlite3_bind_int(c->st, 5, s);
    sqlite3_bind_int64(c->st, 6, i);
    sqlite3_bind_int64(c->st, 7, k);
    return step(c->x, c->st);
}

/* manifest: every value of run.json, read by SQLite's json_tree; the key is its path without
 * "$." and the quotes json_tree puts around keys with '_' (run.json's keys hold no quote or
 * dot, schema/run-json.md). The file is under 4 KiB, as manifest_read requires. */
static int add_manifest(exporter *x)
{
    char path[4400], text[4096];
    snprintf(path, sizeof path, "%s/%s", x->res->outdir, MANIFEST_NAME);
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(text, 1, sizeof text, f) : 0;
    int bad = !f || ferror(f);
    if (bad || len == sizeof text) {
        snprintf(x->err, x->errlen, "%s: %s", path, bad ? strerror(errno) : "too large");
        if (f) fclose(f);
        return -1;
    }
    fclose(f);
    sqlite3_stmt *st;
    int rc = prepare(x, "INSERT INTO manifest SELECT replace(substr(fullkey, 3), '\"', ''), atom FROM json_tree(?)"
                        " WHERE type NOT IN ('object', 'array')", &st);
    if (rc == 0) {
        sqlite3_bind_text(st, 1, text, (int)len, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = db_fail(x, path);
        sqlite3_finalize(st);
    }
    return rc;
}

static int add_region(exporter *x)
{
    const resolution *res = x->res;
    run_region r = region_of(res);
    sqlite3_stmt *st;
    if (prepare(x, "INSERT INTO region VALUES(?, ?, ?, ?, ?, ?)", &st) != 0) return -1;
    sqlite3_bind_text(st, 1, r.kind == REGION_STEM ? "stem" : "rect", -1, SQLITE_STATIC);
    if (r.kind == REGION_STEM) sqlite3_bind_int(st, 2, r.stem + res->shift);
    else sqlite3_bind_int(st, 3, r.max_t + res->shift);
    sqlite3_bind_int(st, 4, r.max_s);
    sqlite3_bind_int(st, 5, res->shift);
    sqlite3_bind_int(st, 6, report_max_stem(res) + res->shift);
    int rc = step(x, st);
    sqlite3_finalize(st);
    return rc;
}

static const char schema_sql[] =
    "CREATE TABLE classes(s INTEGER NOT NULL, n INTEGER NOT NULL, t INTEGER NOT NULL, idx INTEGER NOT NULL,"
    " name TEXT, PRIMARY KEY (s, n, idx)) WITHOUT ROWID;"
    "CREATE VIEW ext(s, n, dim) AS SELECT s, n, count(*) FROM classes GROUP BY s, n ORDER BY s, n;"
    "CREATE TABLE manifest(key TEXT PRIMARY KEY NOT NULL, value);"
    "CREATE TABLE region(kind TEXT NOT NULL, stem INTEGER, max_t INTEGER, max_s INTEGER NOT NULL,"
    " min_n INTEGER NOT NULL, max_n INTEGER NOT NULL);"
    "CREATE TABLE sources(file TEXT PRIMARY KEY NOT NULL, tbl TEXT NOT NULL, rows INTEGER NOT NULL, covers TEXT,"
    " partial INTEGER);";

/* d2_terms: one row per 1 of d2.value, k its position (a recursive walk over the string). */
static const char views_sql[] =
    "CREATE VIEW d2_terms(n, s, i, target_n, target_s, k) AS"
    " WITH RECURSIVE pos(n, s, i, target_n, target_s, value, k) AS"
    " (SELECT n, s, i, target_n, target_s, value, 0 FROM d2 WHERE length(value) > 0"
    "  UNION ALL SELECT n, s, i, target_n, target_s, value, k + 1 FROM pos WHERE k + 1 < length(value))"
    " SELECT n, s, i, target_n, target_s, k FROM pos WHERE substr(value, k + 1, 1) = '1';";

/* Every table, in one transaction of the in-memory database. */
static int fill(exporter *x)
{
    int odd = x->res->prime != 2;
    const csv_table *prod = odd ? &products_table_p : &products_table;
    const csv_table *mod = odd ? &module_products_table_p : &module_products_table;
    const csv_table *maps = odd ? &maps_table_p : &maps_table;
    const csv_table *tables[] = { &h_products_table, prod, mod, odd ? &massey_table_p : &massey_table, &d2_table,
                                  maps, &steenrod_table, &sq0_table, &ss_pages_table, &ss_differentials_table,
                                  &ss_permanent_table };
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;", SQLEXPORT_APP_ID,
             SQLEXPORT_VERSION);
    if (exec(x, pragmas) != 0 || exec(x, "BEGIN") != 0 || exec(x, schema_sql) != 0) return -1;
    for (size_t k = 0; k < sizeof tables / sizeof *tables; k++)
        if (create_table(x, tables[k]) != 0) return -1;
    if (exec(x, views_sql) != 0 || add_classes(x) != 0 || add_region(x) != 0 || add_manifest(x) != 0) return -1;
    stmt_ctx c = { x, NULL };
    if (prepare(x, "UPDATE classes SET name = ? WHERE s = ? AND n = ? AND idx = ?", &c.st) != 0) return -1;
    int rc = chart_names(x->res, add_name, &c);
    sqlite3_finalize(c.st);
    if (rc != 0) {
        if (x->err[0] == 0) snprintf(x->err, x->errlen, "naming the classes: %s", strerror(errno));
        return -1;
    }
    if (insert_stmt(x, &h_products_table, &c.st) != 0) return -1;
    rc = report_h_lines(x->res, add_h_line, &c);
    sqlite3_finalize(c.st);
    if (rc != 0 || read_csv(x, prod, "products.csv") != 0 || read_csv(x, mod, "module-products.csv") != 0 ||
        read_massey(x) != 0 || read_csv(x, &d2_table, "d2.csv") != 0 || read_csv(x, maps, "maps.csv") != 0 ||
        read_csv(x, &steenrod_table, "steenrod.csv") != 0 || read_csv(x, &sq0_table, "sq0.csv") != 0 ||
        read_csv(x, &ss_pages_table, "ss/pages.csv") != 0 || read_csv(x, &ss_differentials_table, "ss/differentials.csv") != 0 ||
        read_csv(x, &ss_permanent_table, "ss/permanent.csv") != 0)
        return -1;
    return exec(x, "COMMIT");
}

int sqlexport_write(const resolution *res, const char *path, char *err, size_t errlen)
{
    exporter x = { NULL, res, err, errlen };
    err[0] = 0;
    if (sqlite3_open_v2(":memory:", &x.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite: %s", x.db ? sqlite3_errmsg(x.db) : "out of memory");
        sqlite3_close(x.db);
        return -1;
    }
    int rc = fill(&x);
    sqlite3_int64 size = 0;
    unsigned char *buf = rc == 0 ? sqlite3_serialize(x.db, "main", &size, 0) : NULL;
    if (rc == 0 && !buf) rc = db_fail(&x, "serializing the database");
    if (rc == 0) rc = durable_write_file(path, buf, (size_t)size, err, errlen);
    sqlite3_free(buf);
    sqlite3_close(x.db);
    return rc;
}
