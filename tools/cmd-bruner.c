/* extflow bruner save DIR OUTDIR: the sphere's resolution in DIR as Bruner's Diff.s files
 * (stages/out/bruner.h), one per row, into OUTDIR. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "stages/out/bruner.h"
#include "tools/resolved.h"

enum { QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [QUIET] = { "quiet", NULL, "no closing summary", NULL, NULL },
};

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
    if (n < 1 || strcmp(operands[0], "save"))
        return cli_usage_error("bruner: %s%s: save DIR OUTDIR expected (compare is not there yet)",
                               n ? "unknown subcommand " : "no subcommand", n ? operands[0] : "");
    if (n != 3) return cli_usage_error("bruner save: DIR and OUTDIR expected");
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
    "if missing; its Diff.s replaced)",
    opts, 3, CLI_ONE_PROCESS, run,
};
