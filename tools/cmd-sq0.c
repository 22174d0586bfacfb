/* extflow sq0 DIR: Sq^0 of every class of the sphere's resolution in DIR whose target is
 * resolved, through the Verschiebung, as StarPU tasks (stages/steenrod/steenrod.h). */
#include <stdio.h>
#include <string.h>
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/runpolicy.h"
#include "stages/progress.h"
#include "stages/steenrod/steenrod.h"
#include "tools/resolved.h"

enum { SSEQ, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/sq0.txt, as sseq's sq0 example prints it", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for resolve", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "after SEC seconds no step starts; exit 3, no table (nothing is kept: a "
                     "rerun starts again)", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line and no closing summary", NULL, NULL },
};

static int write_csv(FILE *f, void *ctx) { return steenrod_sq0_write_csv(f, ctx); }
static int write_sseq(FILE *f, void *ctx) { return steenrod_sq0_write_sseq(f, ctx); }

/* Sq^0 on StarPU, one chain per bidegree, into *q: 0, 1 after a failure, 3 stopped at the time
 * limit (nothing kept). */
static int compute(const resolution *res, steenrod_sq0 *q, const chain_policy *limits)
{
    if (runpolicy_start_all("sq0") != 0) return 1;
    chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg != NULL, "Sq^0 steps");
    int sr = steenrod_sq0_compute(res, q, &runner);
    rt_shutdown();
    if (sr < 0) fprintf(stderr, "extflow: %s\n", q->fail.msg);
    else if (sr == 1)
        fprintf(stderr, "extflow: sq0 stopped %s after %.1f s; Sq^0 keeps nothing between runs%s; no table was "
                "written\n", runpolicy_stop_cause(), clock_now() - limits->start,
                progress_stop_signal() ? "" : " (give a larger --time-limit)");
    return sr < 0 ? 1 : sr == 1 ? 3 : 0;
}

static int run(const char **operands, int n)
{
    double began = clock_now();
    if (n != 1) return cli_usage_error("sq0: DIR expected");
    const char *dir = operands[0];
    chain_policy limits;
    int rc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits);
    if (rc) return rc;
    static opened_dir d;
    if ((rc = resolved_require_sphere("sq0", "Sq^0", dir, &d)) != 0) return rc;
    double t0 = clock_now();
    steenrod_sq0 q;
    memset(&q, 0, sizeof q);
    rc = compute(&d.res, &q, &limits);
    if (!rc) rc = resolved_write_table(dir, "sq0.csv", &d, 0, write_csv, &q);
    if (!rc) rc = resolved_write_html(dir, &d.res);     /* its Sq^0 layer */
    if (!rc) rc = resolved_write_sseq(dir, "sq0.txt", opts[SSEQ].arg != NULL, write_sseq, &q);
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
    "Sq(2R) -> Sq(R) (S_2 only), one StarPU task per bidegree; chart.html gets a Sq^0 layer (off until ticked in "
    "its legend)",
    opts, 1, CLI_ONE_PROCESS, run,
};
