/* extflow ss DIR --history FILE: the Adams spectral sequence above DIR's E2 (ss/model.h):
 * the history replayed, d2 from DIR/d2.csv as computed, the product types lifted by the
 * products command (their rows in DIR/products.csv), Leibniz to a fixed point, and the pages
 * written to DIR/ss/ (docs/ss.md, schema/ss-csv.md). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tools/sssession.h"

enum { HISTORY, DEDUCE, PRODUCTS, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [HISTORY] = { "history", "FILE", "the actions to replay, one JSON object a line: sseq's editor save files "
                  "(Construct, Resolve, AddDifferential, AddPermanentClass, AddProductType, AddProductDifferential) "
                  "or extflow's own (DIR/ss/history.jsonl, version 1); an unknown action is refused by name. "
                  "Without it, only the computed d2 and the default products", NULL, NULL },
    [DEDUCE] = { "deduce", NULL, "also use every class of DIR/products.csv alone in its bidegree as a product "
                 "type (once it is known permanent), and write DIR/ss/deduce.txt: per bidegree what is settled "
                 "and what is open, and each propagated fact with the facts it came from", NULL, NULL },
    [PRODUCTS] = { "products", "LIST", "the product types every run has, comma-separated bare classes (default "
                   "h0,h1,h2 at p = 2, a0,h0 at odd p, on a DIR that is its own unit; 'none' for none)", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for products (the lifts of the product types)", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "as for products: exit 3 with nothing written; a rerun resumes the lifts",
                     NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line and no closing summary", NULL, NULL },
};

static int run(const char **operands, int nops)
{
    if (nops != 1) return cli_usage_error("ss: DIR expected");
    const char *dir = operands[0], *file = opts[HISTORY].arg;
    char err[4600];
    ss_action *actions = NULL;
    int nactions = 0;
    if (file && ss_history_read(file, &actions, &nactions, err, sizeof err)) return cli_usage_error("ss: %s", err);
    ss_session_opts o = { opts[PRODUCTS].arg, opts[MEMORY].arg, opts[TIME_LIMIT].arg, opts[QUIET].arg != NULL,
                          opts[DEDUCE].arg != NULL, file };
    static ss_session S;
    int rc = ss_session_open(&S, dir, actions, nactions, &o, err, sizeof err);
    free(actions);
    if (rc) {
        if (rc == CLI_USAGE && strstr(err, "refused:")) fprintf(stderr, "extflow: ss: %s\n", err);
        else if (rc == CLI_USAGE) cli_usage_error("ss: %s", err);
        else fprintf(stderr, "extflow: ss: %s\n", err);
        return rc;
    }
    rc = ss_session_write(&S, err, sizeof err);
    if (rc) fprintf(stderr, "extflow: %s\n", err);
    else if (!opts[QUIET].arg) {
        int c[6];
        ss_session_counts(&S, c);
        fprintf(stderr, "extflow: ss over %s: %d facts given, %d propagated, %d computed (%d permanent classes); "
                "pages E2..E%d; E_inf settled in %d of %d bidegrees; tables in %s/ss/\n", dir, c[0], c[1], c[2], c[3],
                ss_last_page(&S.m) + 1, c[4], c[5], dir);
    }
    ss_session_close(&S);
    return rc;
}

const cli_command cmd_ss = {
    "ss",
    "DIR [--history FILE]: the Adams spectral sequence above DIR's E2 (docs/ss.md). Replays the history (sseq's "
    "editor save files or extflow's own), takes d2 from DIR/d2.csv as computed, lifts the product types with the "
    "products command (their rows join DIR/products.csv), applies the Leibniz rule to a fixed point and checks "
    "every fact against the pages the others define: a contradiction refuses the first line that causes it, "
    "naming both facts (exit 2, nothing written). Writes DIR/ss/pages.csv (r,n,s,dim: E_r as far as known, "
    "unknown differentials taken as zero; rows 'inf' only where E_inf is settled), differentials.csv, "
    "permanent.csv and history.jsonl (the history in extflow's spelling; schema/ss-csv.md)",
    opts, 1, CLI_ONE_PROCESS, run,
};
