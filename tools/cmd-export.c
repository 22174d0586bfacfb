/* extflow export DIR --json [--out FILE] | --sqlite FILE: the chart's JSON document
 * (stages/out/chart.h) or one SQLite database (stages/out/sqlexport.h) of the region DIR/run.json
 * says is complete, from the stage files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "stages/out/chart.h"
#include "stages/store/durable.h"
#include "stages/resolve/report.h"
#include "stages/out/sqlexport.h"
#include "tools/resolved.h"

enum { JSON, TEXT, OUT, SQLITE, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [TEXT] = { "text", NULL, "write the chart as text for a terminal to stdout: a legend, then panels of 35 stems "
               "with s and stem labels, at most 80 columns (DIR/chart.txt keeps sseq's layout, one line a row)",
               NULL, NULL },
    [JSON] = { "json", NULL, "write the chart's JSON document (classes, h0, h1, h2 products, DIR/products.csv and "
               "DIR/d2.csv when present; the one chart.html embeds; schema/chart-json.md) to stdout", NULL, NULL },
    [OUT] = { "out", "FILE", "with --json or --text: to FILE instead", NULL, NULL },
    [SQLITE] = { "sqlite", "FILE", "write one SQLite database instead: the Ext basis with the chart's names, the h0, "
                 "h1, h2 products, run.json as keys and values, and the tables DIR/products.csv, "
                 "module-products.csv, massey-*.csv, d2.csv, maps.csv, steenrod.csv and sq0.csv where present, a row per line "
                 "(schema/sqlite.md). "
                 "FILE is replaced only once the whole database is written; FILE's directory must exist", NULL,
                 NULL },
};

/* FILE's directory must exist, and FILE must not be one: 0, or 2 after a usage error. */
static int check_file(const char *file)
{
    struct stat st;
    char *slash = strrchr(file, '/');
    char parent[4200];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash == file ? 1 : slash - file) : 1, slash ? file : ".");
    if (!*file || (slash && !slash[1])) return cli_usage_error("export: '%s' is not a file name", file);
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_usage_error("export: %s: no directory %s to write it in", file, parent);
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) return cli_usage_error("export: %s is a directory", file);
    return 0;
}

/* The chart's JSON document or text (write) to file, or to stdout when file is NULL: 0, or 1
 * after a line. */
static int export_chart(const char *dir, const resolution *res, const char *file,
                        int (*write)(FILE *, const resolution *))
{
    char *buf = NULL;
    size_t len = 0;
    int rc = 0;
    FILE *f = open_memstream(&buf, &len);
    int bad = !f || write(f, res) != 0, e = errno;
    if (f && fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (bad) {
        fprintf(stderr, "extflow: cannot write the chart of %s: %s\n", dir, strerror(e));
        rc = 1;
    } else if (file && durable_write_file(file, buf, len, NULL, 0) != 0) {
        fprintf(stderr, "extflow: cannot write %s: %s\n", file, strerror(errno));
        rc = 1;
    } else if (!file && (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)) {
        fprintf(stderr, "extflow: cannot write to stdout: %s\n", strerror(errno));
        rc = 1;
    }
    free(buf);
    return rc;
}

static int run(const char **operands, int n)
{
    if (n != 1) return cli_usage_error("export: DIR expected");
    const char *dir = operands[0];
    int kinds = !!opts[JSON].arg + !!opts[TEXT].arg + !!opts[SQLITE].arg;
    if (!kinds) return cli_usage_error("export: one of --json, --text and --sqlite FILE is required");
    if (kinds > 1) return cli_usage_error("export: --json, --text and --sqlite FILE are three exports: give one of them");
    if (opts[OUT].arg && opts[SQLITE].arg)
        return cli_usage_error("export: --out goes with --json or --text (--sqlite names its FILE)");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_usage_error("export: %s is not a directory", dir);
    const char *file = opts[SQLITE].arg ? opts[SQLITE].arg : opts[OUT].arg;
    int rc = file ? check_file(file) : 0;
    if (rc) return rc;
    run_manifest m;
    fd_module fdm = { 0 };
    resolution res;
    char err[4400];
    if ((rc = outdir_check_free(dir, err, sizeof err)) != 0 ||
        (rc = outdir_load(dir, &res, &m, &fdm, 1, err, sizeof err)) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        fdm_clear(&fdm);
        return rc;
    }
    if (!opts[SQLITE].arg) rc = export_chart(dir, &res, file, opts[TEXT].arg ? report_chart_panels : chart_write_json);
    else if (sqlexport_write(&res, file, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: cannot export %s to %s: %s\n", dir, file, err);
        rc = 1;
    }
    res_clear(&res);
    fdm_clear(&fdm);
    return rc;
}

const cli_command cmd_export = {
    "export", "DIR --json [--out FILE], DIR --text [--out FILE] or DIR --sqlite FILE: the resolution's chart or "
    "tables", opts, 1,
    CLI_ONE_PROCESS, run,
};
