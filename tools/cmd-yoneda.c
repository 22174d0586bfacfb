/* extflow yoneda DIR --class C ...: a Yoneda representative of each class (a finite exact
 * complex E_s -> ... -> E_0 -> F2 of finite A-modules spelling the class as an extension),
 * built from the sphere's resolution in DIR and checked against it (stages/yoneda/yoneda.h). */
#include <stdio.h>
#include <string.h>
#include "algebra/clock.h"
#include "stages/yoneda/adem.h"
#include "stages/yoneda/yoneda.h"
#include "tools/resolved.h"

static product_class classes[RESOLVED_MAX_CLASSES];
static const char *names[RESOLVED_MAX_CLASSES];
static int nclasses;

static int add_class(const char *value) { return resolved_add_class("yoneda", value, 2, classes, names, &nclasses); }

enum { CLASS, BASIS, SSEQ, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [CLASS] = { "class", "C", "a class of Ext^{s,t}, as for products (up to 64 classes)", add_class, NULL },
    [BASIS] = { "basis", "B", "milnor (the default: E reduced over F's Milnor basis, on DIR's resolution) or adem: "
                "S_2 resolved again in memory over sseq's admissible basis through the class's stem (the class's "
                "coordinates are over that resolution's generators) and E reduced over that basis, as sseq's "
                "S_2@adem", NULL, NULL },
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/yoneda-NAME.txt per class, as sseq's yoneda example prints it",
               NULL, NULL },
    [QUIET] = { "quiet", NULL, "no closing summary", NULL, NULL },
};

static int write_csv(FILE *f, void *ctx) { return yoneda_write_csv(f, ctx); }
static int write_sseq(FILE *f, void *ctx) { return yoneda_write_sseq(f, ctx); }

/* Where E is built: DIR's resolution over the Milnor basis, or S_2 resolved over sseq's
 * admissible one (adem.h) through the class's stem, in memory. */
/* The admissible resolution for class c (through its stem and s), with DIR's Ext: 0, or 1
 * after a line. */
static int adem_setup(const resolution *dirres, const product_class *c, adem_resolution *a)
{
    char err[300];
    int rc = adem_resolution_init(a, c->n + c->s, c->s, dirres, err, sizeof err);
    if (rc) fprintf(stderr, "extflow: %s%s\n", rc == -2 ? "internal error: yoneda: " : "", err);
    return rc ? 1 : 0;
}

/* E for class c, checked: 0, 1 after a failure (one line), 2 a class E cannot be built for. */
static int build(const resolution *dirres, const char *dir, const product_class *c, adem_resolution *a, yoneda *E)
{
    int nonzero = 0;
    for (uint32_t j = 0; j < c->len; j++) nonzero |= c->coords[j];
    if (!nonzero) return cli_usage_error("yoneda: class %s is zero: it has no Yoneda representative", c->name);
    if (!yoneda_in_range(dirres, c->n, c->s))
        return cli_usage_error("yoneda: class %s at (n=%d, s=%d) needs the rows s <= %d resolved through t = %d (stem %d "
                               "at s = 0); %s's region stops short: resolve further", c->name, c->n, c->s, c->s,
                               c->n + c->s, c->n + c->s, dir);
    if (a && adem_setup(dirres, c, a) != 0) return 1;
    if (yoneda_build(E, a ? &a->res : dirres, a ? &a->B : NULL, c->n, c->s, c->coords, c->len) != 0) {
        fprintf(stderr, "extflow: out of memory building the Yoneda representative of %s\n", c->name);
        return 1;
    }
    char err[300];
    uint8_t cls[PRODUCT_VECTOR_MAX];
    int rc = yoneda_check(E, cls, err, sizeof err);
    if (rc == -1) fprintf(stderr, "extflow: out of memory checking the Yoneda representative of %s\n", c->name);
    else if (rc) fprintf(stderr, "extflow: internal error: yoneda: the representative of %s: %s\n", c->name, err);
    return rc ? 1 : 0;
}

static int run(const char **operands, int n)
{
    if (n != 1) return cli_usage_error("yoneda: DIR expected");
    if (!nclasses) return cli_usage_error("yoneda: give at least one --class");
    const char *basis = opts[BASIS].arg ? opts[BASIS].arg : "milnor";
    if (strcmp(basis, "milnor") && strcmp(basis, "adem"))
        return cli_usage_error("yoneda: --basis %s: milnor or adem", basis);
    const char *dir = operands[0];
    static opened_dir d;
    int rc = resolved_require_sphere("yoneda", "a Yoneda representative", dir, &d);
    if (rc) return rc;
    for (int k = 0; k < nclasses && !rc; k++) rc = resolved_check_class("yoneda", &classes[k], &d.res, &d.man, dir);
    double t0 = clock_now();
    for (int k = 0; k < nclasses && !rc; k++) {
        yoneda E;
        memset(&E, 0, sizeof E);
        adem_resolution a;
        memset(&a, 0, sizeof a);
        char name[128];
        rc = build(&d.res, dir, &classes[k], strcmp(basis, "adem") ? NULL : &a, &E);
        if (!rc) {
            snprintf(name, sizeof name, "yoneda-%.63s.csv", classes[k].name);
            rc = resolved_write_table(dir, name, &d, 0, write_csv, &E);
        }
        if (!rc) {
            snprintf(name, sizeof name, "yoneda-%.63s.txt", classes[k].name);
            rc = resolved_write_sseq(dir, name, opts[SSEQ].arg != NULL, write_sseq, &E);
        }
        if (!rc) {
            printf("%s (n=%d, s=%d): dim E_0..E_%d =", classes[k].name, classes[k].n, classes[k].s, classes[k].s);
            for (int j = 0; j <= E.s; j++) printf(" %llu", (unsigned long long)yoneda_total(&E, j));
            printf("; exact, and lifting the identity of F2 into it gives the class back\n");
        }
        yoneda_clear(&E);
        adem_resolution_clear(&a);
    }
    if (!rc && !opts[QUIET].arg)
        fprintf(stderr, "extflow: %d Yoneda representative%s over %s in %.1f s; tables %s/yoneda-NAME.csv\n", nclasses,
                nclasses > 1 ? "s" : "", dir, clock_now() - t0, dir);
    resolved_close(&d);
    return rc;
}

const cli_command cmd_yoneda = {
    "yoneda",
    "DIR --class C [--class C ...]: a Yoneda representative of each class C of Ext^{s,t} over the sphere's "
    "resolution in DIR: a finite exact complex 0 -> Sigma^t F2 = E_s -> ... -> E_0 -> F2 of finite A-modules "
    "whose extension class is C, a quotient of the resolution reduced by sseq's greedy rules (docs/products.md; "
    "--basis adem: over sseq's admissible basis); "
    "prints the total dimensions of E_0..E_s and writes DIR/yoneda-NAME.csv (k,t,dim: dim E_k in degree t). Each "
    "is checked from its own tables (d d = 0, d A-linear, exact, Euler characteristic, and the identity of F2 "
    "lifted into it gives C back); a failure exits 1. C as for products",
    opts, 1, CLI_ONE_PROCESS, run,
};
