/* extflow sq0 DIR: Sq^0 of every class of the sphere's resolution in DIR whose target is
 * resolved, through the Verschiebung (stages/steenrod.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "algebra/clock.h"
#include "stages/chart.h"
#include "stages/report.h"
#include "stages/steenrod.h"
#include "tools/resolved.h"

enum { SSEQ, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/sq0.txt, as sseq's sq0 example prints it", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no closing summary", NULL, NULL },
};

static int write_csv(FILE *f, void *ctx) { return steenrod_sq0_write_csv(f, ctx); }
static int write_sseq(FILE *f, void *ctx) { return steenrod_sq0_write_sseq(f, ctx); }

static int run(const char **operands, int n)
{
    if (n != 1) return cli_usage_error("sq0: DIR expected");
    const char *dir = operands[0];
    static opened_dir d;
    int rc = resolved_open("sq0", dir, &d);
    if (rc) return rc;
    if (!resolved_is_sphere(&d)) {
        rc = cli_usage_error("sq0: %s holds %s: Sq^0 is for S_2 only", dir, d.man.module);
        resolved_close(&d);
        return rc;
    }
    double t0 = clock_now();
    steenrod_sq0 q;
    char err[600];
    int sr = steenrod_sq0_compute(&d.res, &q, err, sizeof err);
    rc = sr != 0;
    if (sr == -1) fprintf(stderr, "extflow: out of memory computing Sq^0\n");
    else if (sr) fprintf(stderr, "extflow: internal error: %s\n", err);
    if (!rc) rc = resolved_write(dir, "sq0.csv", write_csv, &q);
    if (!rc && report_write_file(dir, "chart.html", &d.res, chart_write_html) != 0) {   /* its Sq^0 layer */
        fprintf(stderr, "extflow: cannot write %s/chart.html: %s\n", dir, strerror(errno));
        rc = 1;
    }
    if (!rc && opts[SSEQ].arg) rc = resolved_write(dir, "sq0.txt", write_sseq, &q);
    else if (!rc) outdir_remove(dir, "sq0.txt");
    if (!rc && !opts[QUIET].arg)
        fprintf(stderr, "extflow: Sq^0 over %s in %.1f s; table %s/sq0.csv\n", dir, clock_now() - t0, dir);
    steenrod_sq0_clear(&q);
    resolved_close(&d);
    return rc;
}

const cli_command cmd_sq0 = {
    "sq0",
    "DIR: Sq^0 of every class x_(n,s,i) of DIR's resolved region whose target (2n + s, s) is resolved, into "
    "DIR/sq0.csv (n,s,i,k: the coefficient of x_(2n+s,s,k) in Sq^0 x_(n,s,i) is 1), through the Verschiebung "
    "Sq(2R) -> Sq(R) (S_2 only); chart.html gets a Sq^0 layer (off until ticked in its legend)",
    opts, 1, CLI_ONE_PROCESS, run,
};
