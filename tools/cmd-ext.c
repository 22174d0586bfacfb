/* extflow ext DIR --coefficients N: Ext_A(M, N) for DIR's module M and a finite module N
 * (stages/products/extmn.h), into DIR/ext-NAME.csv. */
#include <stdio.h>
#include "algebra/clock.h"
#include "algebra/modops.h"
#include "stages/products/extmn.h"
#include "tools/modulearg.h"
#include "tools/resolved.h"

enum { COEF, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [COEF] = { "coefficients", "N", "(required) the module N: S_2 gives DIR's ext.csv", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no closing summary", NULL, NULL },
};

struct extmn_out {
    const resolution *res;
    const fd_module *N;
};
static int write_extmn(FILE *f, void *ctx)
{
    struct extmn_out *o = ctx;
    char err[200];
    return extmn_write_csv(f, o->res, o->N, err, sizeof err);
}

static int run(const char **operands, int n)
{
    double began = clock_now();
    if (n != 1) return cli_usage_error("ext: DIR expected");
    if (!opts[COEF].arg) return cli_usage_error("ext: --coefficients N is required (N = S_2 gives DIR's ext.csv)");
    const char *dir = operands[0];
    fd_module N;
    char nname[64], table[96];
    int rc = modulearg_load(opts[COEF].arg, &N, nname, sizeof nname);
    if (rc) return rc;
    if (!modops_finite_over_A(&N)) {
        fdm_clear(&N);
        return cli_usage_error("ext: --coefficients %s: N must be a finite module over A at p = 2 (no profile, "
                               "presentation, RP_n^inf or cofiber)", opts[COEF].arg);
    }
    static opened_dir d;
    if ((rc = resolved_open("ext", dir, &d, 0)) != 0) {
        fdm_clear(&N);
        return rc;
    }
    if (!res_algebra_is_whole(&d.res)) {
        resolved_close(&d);
        fdm_clear(&N);
        fprintf(stderr, "extflow: ext: %s is resolved over a sub-Hopf-algebra: Ext(M, N) is over A only\n", dir);
        return 2;
    }
    snprintf(table, sizeof table, "ext-%s.csv", nname);
    struct extmn_out out = { &d.res, &N };
    rc = resolved_write_table(dir, table, &d, 0, write_extmn, &out);
    if (!rc && !opts[QUIET].arg)
        fprintf(stderr, "extflow: Ext(%s, %s) through s = %d in %.1f s; table %s/%s\n", d.res.module_name, nname,
                d.res.max_s - 1, clock_now() - began, dir, table);
    resolved_close(&d);
    fdm_clear(&N);
    return rc;
}

const cli_command cmd_ext = {
    "ext",
    "DIR --coefficients N: Ext_A(M, N) for DIR's module M and a finite module N (a name, file, NAME[k], M*N or D(N) as "
    "for resolve), the cohomology of Hom_A(F_s, N) over DIR's resolution, into DIR/ext-NAME.csv (s,n,dim as "
    "ext.csv): rows s below DIR's max s, stems through DIR's last stem minus N's top degree. One process, serial; "
    "over A at p = 2 only",
    opts, 1, CLI_ONE_PROCESS, run,
};
