/* extflow bruner save DIR OUTDIR: the sphere's resolution in DIR as Bruner's Diff.s files
 * (stages/out/bruner.h), one per row, into OUTDIR. extflow bruner compare DIR BRUNERDIR: DIR's
 * resolution against the one in BRUNERDIR's Diff.s (or Bruner's hDiff.s) files, by what a
 * change of basis keeps (bruner.h "Comparing"), then that BRUNERDIR's complex is a minimal
 * resolution (bruner_check_exact): exit 0 when they agree, 1 at the first bidegree that
 * differs (the line on stdout: a check that fails exits 1, as verify does), 2 for a file that
 * does not read (FILE:LINE). --sseq-formats: where they agree, the chain map lifting the
 * identity from BRUNERDIR's resolution to DIR's, as sseq's bruner example prints it
 * (bruner_basis_change), in DIR/bruner.txt. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stages/out/bruner.h"
#include "stages/resolve/report.h"
#include "tools/resolved.h"

enum { QUIET, STEM, SSEQ, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [QUIET] = { "quiet", NULL, "no closing summary (save) or no line when they agree (compare)", NULL, NULL },
    [STEM] = { "stem", "N", "compare: stems <= N only (default: DIR's complete region); BRUNERDIR's files must "
                            "hold every generator there", NULL, NULL },
    [SSEQ] = { "sseq-formats", NULL, "compare: when they agree, also write DIR/bruner.txt, what sseq's bruner example "
               "prints for the same files and region: the change of basis from BRUNERDIR's generators to DIR's, per "
               "bidegree (sseq's own generators when DIR is standard)", NULL, NULL },
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
    int want_txt = opts[SSEQ].arg || resolved_has(dir, "bruner.txt");
    rc = !last || bruner_from_resolution(&d.res, &a, want_txt) ? -1 : 0;
    for (int s = 0; !rc && s < nrows; s++) {
        last[s] = report_row_last_stem(&d.res, s);
        if (stem >= 0 && last[s] > stem) last[s] = (int)stem;
        if (b.rows[s].tmax >= 0 && last[s] > b.rows[s].tmax - s) last[s] = b.rows[s].tmax - s;
    }
    if (!rc) rc = bruner_compare(&a, &b, nrows, last, dir, bdir, err, sizeof err, &nbideg);
    if (!rc) rc = bruner_check_exact(&b, nrows, last, bdir, err, sizeof err);
    /* the change of basis only where they agree, made in memory and then written (an earlier
     * run's bruner.txt is written again, or removed where they differ: it would describe other
     * files) */
    if (!rc && want_txt) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        rc = m ? bruner_basis_change(&a, &b, nrows, last, bdir, m, err, sizeof err) : -1;
        if (m && fclose(m) && !rc) rc = -1;
        if (!rc && resolved_write_bytes(dir, "bruner.txt", text, len)) rc = 2;     /* its line is out */
        free(text);
    }
    if (rc == 1 && resolved_has(dir, "bruner.txt")) {
        char path[4200];
        snprintf(path, sizeof path, "%s/bruner.txt", dir);
        unlink(path);
    }
    if (rc == 2) rc = CLI_FAILED;
    else if (rc < 0) fprintf(stderr, "extflow: bruner compare: out of memory\n"), rc = CLI_FAILED;
    else if (rc) printf("%s and %s differ: %s\n", dir, bdir, err), rc = CLI_FAILED;
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
    if (opts[SSEQ].arg) return cli_usage_error("bruner save: --sseq-formats is for compare");
    const char *dir = operands[1], *out = operands[2];
    struct stat st;
    if (stat(out, &st) == 0 ? !S_ISDIR(st.st_mode) : errno != ENOENT)
        return cli_usage_error("bruner save: OUTDIR %s is not a directory", out);
    /* OUTDIR is created, its parent must be there: a usage error before DIR is opened */
    char parent[4200];
    snprintf(parent, sizeof parent, "%s", out);
    char *slash = strrchr(parent, '/');
    while (slash && slash > parent && slash[1] == 0) *slash = 0, slash = strrchr(parent, '/');   /* "a/b/" */
    if (slash) slash[slash == parent] = 0;      /* "/x" keeps "/" */
    if (stat(slash ? parent : ".", &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_usage_error("bruner save: OUTDIR %s: its parent %s is not a directory", out, slash ? parent : ".");
    static opened_dir d;
    int rc = resolved_require_sphere("bruner save", "Bruner's format", dir, &d);
    if (rc) return rc;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "extflow: bruner save: cannot create %s: %s\n", out, strerror(errno));
        resolved_close(&d);
        return CLI_FAILED;
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
    "there (d(d(g)) = 0, exact by ranks): then the two are one resolution up to a change of basis (--sseq-formats: "
    "that change of basis in DIR/bruner.txt). One line on stdout; exit 0 when they agree, 1 at the first bidegree "
    "that differs (that line on stdout; as verify's exit 1 for damage), 2 for a file that does not read "
    "(FILE:LINE: why, on stderr)",
    opts, 3, CLI_ONE_PROCESS, run,
};
