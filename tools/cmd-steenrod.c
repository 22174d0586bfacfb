/* extflow steenrod DIR --class C ...: every Sq^k of each class by cup-i products over the
 * sphere's resolution in DIR, as StarPU tasks (stages/steenrod/steenrod.h). */
#include <stdio.h>
#include <string.h>
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/runpolicy.h"
#include "stages/progress.h"
#include "stages/steenrod/steenrod.h"
#include "stages/yoneda/adem.h"
#include "tools/resolved.h"

static product_class classes[RESOLVED_MAX_CLASSES];
static const char *names[RESOLVED_MAX_CLASSES];
static int nclasses;

/* --class C, in the order given: parsed at once, names distinct. */
static int add_class(const char *value) { return resolved_add_class("steenrod", value, 2, classes, names, &nclasses); }

enum { CLASS, BASIS, SSEQ, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [CLASS] = { "class", "C", "a class of Ext^{s,t}, as for products (up to 64 classes)", add_class, NULL },
    [BASIS] = { "basis", "B", "milnor (the default: over DIR's resolution) or adem: over S_2 resolved again in "
                "memory over sseq's admissible basis through stem 2n + s and s <= 2s of the classes (their coordinates "
                "and the squares' are over that resolution's generators), E reduced over that basis, as sseq's "
                "S_2@adem; the table is then DIR/steenrod-adem.csv and chart.html is left alone", NULL, NULL },
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/steenrod-NAME.txt per class, as sseq's steenrod example prints "
               "it", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for resolve", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "after SEC seconds no step starts; exit 3, no table (nothing is kept: a "
                     "rerun starts again)", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line and no closing summary", NULL, NULL },
};

struct steenrod_out {
    const steenrod_result *r;
    int n;
};
static int write_csv(FILE *f, void *ctx)
{
    struct steenrod_out *o = ctx;
    if (fprintf(f, "%s\n", STEENROD_CSV_HEADER) < 0) return -1;
    for (int k = 0; k < o->n; k++)
        if (steenrod_write_csv_rows(f, &o->r[k], names[k]) != 0) return -1;
    return 0;
}
static int write_sseq(FILE *f, void *ctx) { return steenrod_write_sseq(f, ctx); }

/* Sq^k of each class into r[0..nclasses), all classes in one chain set on StarPU: 0, 1 after a
 * failure, 2 when no Sq^k of a class has its target in DIR's resolved region (before anything
 * runs), 3 stopped at the time limit (nothing kept). */
static int compute(const resolution *res, const char *dir, const adem_resolution *a, steenrod_result *r,
                   const chain_policy *limits)
{
    char err[600];
    for (int k = 0; k < nclasses; k++) {   /* which Sq^k are in range: DIR's region says, whatever the basis */
        if (steenrod_result_init(&r[k], res, classes[k].n, classes[k].s, classes[k].coords, classes[k].len) != 0) {
            fprintf(stderr, "extflow: out of memory computing the Steenrod squares of %s\n", names[k]);
            return 1;
        }
        int any = 0;
        for (int i = 0; i <= r[k].s; i++) any |= r[k].known[i];
        if (!any) {
            fprintf(stderr, "extflow: steenrod: no Sq^k %s has its target in %s's resolved region (it needs stem %d "
                    "at s=%d for Sq^0): resolve further\n", names[k], dir, 2 * classes[k].n + classes[k].s,
                    classes[k].s);
            return 2;
        }
    }
    if (runpolicy_start_all("steenrod") != 0) return 1;
    chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg != NULL, "Sq^k steps");
    for (int k = 0; k < nclasses && a; k++) r[k].adem = &a->B;
    int sr = steenrod_compute(a ? &a->res : res, r, nclasses, &runner, err, sizeof err);
    rt_shutdown();
    if (sr == -1) fprintf(stderr, "extflow: %s\n", err);
    else if (sr == -2) fprintf(stderr, "extflow: internal error: %s\n", err);
    else if (sr == 1)
        fprintf(stderr, "extflow: steenrod stopped %s after %.1f s; the squares keep nothing between runs%s; no table "
                "was written\n", runpolicy_stop_cause(), clock_now() - limits->start,
                progress_stop_signal() ? "" : " (give a larger --time-limit)");
    return sr < 0 ? 1 : sr == 1 ? 3 : 0;
}

static int run(const char **operands, int n)
{
    double began = clock_now();
    if (n != 1) return cli_usage_error("steenrod: DIR expected");
    if (!nclasses) return cli_usage_error("steenrod: give at least one --class");
    if (opts[BASIS].arg && strcmp(opts[BASIS].arg, "milnor") && strcmp(opts[BASIS].arg, "adem"))
        return cli_usage_error("steenrod: --basis %s: milnor or adem", opts[BASIS].arg);
    const char *dir = operands[0];
    chain_policy limits;
    int rc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits);
    if (rc) return rc;
    static opened_dir d;
    if ((rc = resolved_require_sphere("steenrod", "Sq^k", dir, &d)) != 0) return rc;
    for (int k = 0; k < nclasses && !rc; k++) rc = resolved_check_class("steenrod", &classes[k], &d.res, &d.man, dir);
    static steenrod_result r[RESOLVED_MAX_CLASSES];   /* zero, or cleared, until computed */
    static adem_resolution a;
    int adem = opts[BASIS].arg && !strcmp(opts[BASIS].arg, "adem");
    double t0 = clock_now();
    if (!rc && adem) {   /* the region every Sq^k of the classes needs: stems <= 2t - s, rows <= 2s */
        int stem = 0, max_s = 0;
        for (int k = 0; k < nclasses; k++) {
            stem = 2 * classes[k].n + classes[k].s > stem ? 2 * classes[k].n + classes[k].s : stem;
            max_s = 2 * classes[k].s > max_s ? 2 * classes[k].s : max_s;
        }
        char err[300];
        int ar = adem_resolution_init(&a, stem, max_s, &d.res, err, sizeof err);
        if (ar) fprintf(stderr, "extflow: %s%s\n", ar == -2 ? "internal error: steenrod: " : "", err);
        rc = ar ? 1 : 0;
    }
    if (!rc) rc = compute(&d.res, dir, adem ? &a : NULL, r, &limits);
    struct steenrod_out out = { r, nclasses };
    if (!rc) rc = resolved_write_table(dir, adem ? "steenrod-adem.csv" : "steenrod.csv", &d, 0, write_csv, &out);
    if (!rc && !adem) rc = resolved_write_html(dir, &d.res);     /* its Sq^1 layer */
    for (int k = 0; k < nclasses && !rc; k++) {
        char name[128];
        snprintf(name, sizeof name, "steenrod-%.63s.txt", classes[k].name);
        rc = resolved_write_sseq(dir, name, opts[SSEQ].arg != NULL, write_sseq, &r[k]);
    }
    if (!rc && !opts[QUIET].arg)
        fprintf(stderr, "extflow: Sq^k of %d class%s over %s in %.1f s; table %s/steenrod%s.csv\n", nclasses,
                nclasses > 1 ? "es" : "", dir, clock_now() - t0, dir, adem ? "-adem" : "");
    for (int k = 0; k < nclasses; k++) steenrod_result_clear(&r[k]);
    adem_resolution_clear(&a);
    resolved_close(&d);
    return rc;
}

const cli_command cmd_steenrod = {
    "steenrod",
    "DIR --class C [--class C ...]: the algebraic Steenrod squares Sq^k C, k = 0..s, of each class C of "
    "Ext^{s,t} over the sphere's resolution in DIR, those whose target (s + k, 2t) is resolved, by cup-i products "
    "on a finite quotient of the resolution (docs/products.md), as StarPU tasks (one per bidegree of E (x) E, the "
    "classes side by side); writes DIR/steenrod.csv (name,name_n,name_s,k,n,s,j: "
    "the coefficient of x_(n,s,j) in Sq^k name is 1), replaced by each run; chart.html gets a Sq^1 layer (off until "
    "ticked in its legend) for the classes alone in their bidegree. C as for products",
    opts, 1, CLI_ONE_PROCESS, run,
};
