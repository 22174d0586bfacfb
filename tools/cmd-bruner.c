/* extflow bruner save DIR OUTDIR: the sphere's resolution in DIR as Bruner's Diff.s files
 * (stages/out/bruner.h), one per row, into OUTDIR. extflow bruner compare DIR BRUNERDIR: DIR's
 * resolution against the one in BRUNERDIR's Diff.s (or Bruner's hDiff.s) files, by what a
 * change of basis keeps (bruner.h "Comparing"), then that BRUNERDIR's complex is a minimal
 * resolution (bruner_check_exact): exit 0 when they agree, 1 at the first
 * bidegree that differs, 2 for a file that does not read (FILE:LINE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "stages/out/bruner.h"
#include "stages/resolve/report.h"
#include "tools/resolved.h"

enum { QUIET, STEM, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [QUIET] = { "quiet", NULL, "no closing summary (save) or no line when they agree (compare)", NULL, NULL },
    [STEM] = { "stem", "N", "compare: stems <= N only (default: DIR's complete region); BRUNERDIR's files must "
                            "hold every generator there", NULL, NULL },
};

static int compare(const char *dir, const char *bdir)
{
    long stem = -1;
    int rc = cli_opt_count(&opts[STEM], 1 << 20, &stem);
    if (rc) return rc;
    bruner_res b, a = { 0, NULL };
    char err[512];
    if (bruner_read(bdir, &b, err, sizeof err)) {
        fprintf(stderr, "extflow: bruner compare: %s\n", err);
        return 2;
    }
    static opened_dir d;
    if ((rc = resolved_require_sphere("bruner compare", "Bruner's format", dir, &d))) {
        bruner_free(&b);
        return rc;
    }
    int nrows = d.res.max_s + 1 < b.nrows ? d.res.max_s + 1 : b.nrows;
    int *last = malloc(nrows * sizeof *last);
    uint64_t nbideg = 0;
    rc = !last || bruner_from_resolution(&d.res, &a) ? -1 : 0;
    for (int s = 0; !rc && s < nrows; s++) {
        last[s] = report_row_last_stem(&d.res, s);
        if (stem >= 0 && last[s] > stem) last[s] = (int)stem;
        if (b.rows[s].tmax >= 0 && last[s] > b.rows[s].tmax - s) last[s] = b.rows[s].tmax - s;
    }
    if (!rc) rc = bruner_compare(&a, &b, nrows, last, dir, bdir, err, sizeof err, &nbideg);
    if (!rc) rc = bruner_check_exact(&b, nrows, last, bdir, err, sizeof err);
    if (rc < 0) fprintf(stderr, "extflow: bruner compare: out of memory\n"), rc = 1;
    else if (rc) printf("%s and %s differ: %s\n", dir, bdir, err);
    else if (!opts[QUIET].arg)
        printf("%s and %s agree: dim Ext and the ranks of h_i on %llu bidegrees (s <= %d), and %s's complex is a "
               "minimal resolution there\n", dir, bdir,
               (unsigned long long)nbideg, nrows - 1, bdir);
    free(last);
    bruner_free(&a), bruner_free(&b);
    resolved_close(&d);
    return rc;
}

struct diff_ctx {
    const resolution *res;
    int s;
};
static int write_diff(FILE *f, void *ctx)
{
    const struct diff_ctx *c = ctx;
    return bruner_write_diff(f, c->res, c->s);
}

static int run(const char **operands, int n)
{
    if (n < 1 || (strcmp(operands[0], "save") && strcmp(operands[0], "compare")))
        return cli_usage_error("bruner: %s%s: save DIR OUTDIR or compare DIR BRUNERDIR expected",
                               n ? "unknown subcommand " : "no subcommand", n ? operands[0] : "");
    if (!strcmp(operands[0], "compare")) {
        if (n != 3) return cli_usage_error("bruner compare: DIR and BRUNERDIR expected");
        return compare(operands[1], operands[2]);
    }
    if (n != 3) return cli_usage_error("bruner save: DIR and OUTDIR expected");
    if (opts[STEM].arg) return cli_usage_error("bruner save: --stem is for compare");
    const char *dir = operands[1], *out = operands[2];
    struct stat st;
    if (stat(out, &st) == 0 ? !S_ISDIR(st.st_mode) : errno != ENOENT)
        return cli_usage_error("bruner save: OUTDIR %s is not a directory", out);
    static opened_dir d;
    int rc = resolved_require_sphere("bruner save", "Bruner's format", dir, &d);
    if (rc) return rc;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "extflow: cannot create %s: %s\n", out, strerror(errno));
        resolved_close(&d);
        return 1;
    }
    for (int s = 0; s <= d.res.max_s && !rc; s++) {
        char name[32];
        snprintf(name, sizeof name, "Diff.%d", s);
        struct diff_ctx c = { &d.res, s };
        rc = resolved_write(out, name, write_diff, &c);
    }
    if (!rc && !opts[QUIET].arg)
        fprintf(stderr, "extflow: %s's resolution in Bruner's format: %s/Diff.0 .. Diff.%d\n", dir, out, d.res.max_s);
    resolved_close(&d);
    return rc;
}

const cli_command cmd_bruner = {
    "bruner",
    "save DIR OUTDIR: the sphere's resolution in DIR (its complete region) written in R. R. Bruner's format, one "
    "file OUTDIR/Diff.s per row s (schema/bruner-diff.md): each generator's degree and differential as sums of Milnor "
    "elements on the generators of the row below, as sseq's save_bruner example writes them (OUTDIR is created "
    "if missing; its Diff.s replaced).\n"
    "compare DIR BRUNERDIR: DIR's resolution of S_2 against the one in BRUNERDIR's Diff.s files (this layout, "
    "or Bruner's own hDiff.s: \"N TMAX\" headers, blocks opened by T alone), which may use other bases: "
    "in each bidegree (s, t) of DIR's complete region (and BRUNERDIR's rows, through t = TMAX in hDiff.s), by stem then s, the number of "
    "generators (dim Ext) and the rank of each h_i into it (the coefficients of Sq(2^i)) must agree, and BRUNERDIR's complex must be a minimal resolution "
    "there (d(d(g)) = 0, exact by ranks): then the two are one resolution up to a change of basis. One line on "
    "stdout; exit 0 when they agree, 1 at the first bidegree that differs, 2 for a file that does not read "
    "(FILE:LINE: why)",
    opts, 3, CLI_ONE_PROCESS, run,
};
